# Julia arrays whose memory C keeps (the data of a tensor made from a Julia array): while the
# runtime holds the tensor, the memory under it must stay where it is and stay allocated.
#
# - Julia 1.11 and later: an `Array` is a reference into a `Memory`, and every growing or
#   reallocating operation (`resize!`, `push!`, `append!`, `sizehint!`...) moves the array to a
#   new `Memory` and leaves the old one alone. The keep-alive slot holds the array's `Memory`, so
#   the memory C reads stays valid by construction (the array then no longer shares it).
# - Julia 1.5 to 1.10: an `Array` owns its buffer and those operations free or reallocate it. The
#   array is marked shared (`isshared` in its flags, Julia's own mark for arrays whose data another
#   array uses: what `reshape` sets), so that each of them throws Julia's "cannot resize array with
#   shared data" while C keeps the tensor; when the last tensor over it is released (its slot
#   swept), the mark is cleared again, unless the array was shared before. The slot also holds the
#   buffer's owner when the array does not own its buffer (a `vec` or `reshape` of another array),
#   since such an array copies itself away from the shared data when it grows.
#
# Known limit on 1.5-1.10: an array reshaped while C keeps it loses its shared mark when C lets go,
# as Julia has no count of the arrays sharing a buffer.

# What a keep-alive slot holds for a tensor over the Julia array `array` (the argument) whose
# memory is in the Array `buffer` (the array itself, or the Array under a view of it).
struct _Kept
    array::Any
    buffer::Array
    owner::Any    # the Memory (1.11+), the buffer's owner (1.5-1.10, a shared buffer), or nothing
end

const _ARRAYS_OWN_MEMORY = isdefined(Core, :GenericMemory)

# 1.5-1.10: the flags of a `jl_array_t` (after `data` and `length`), and the `isshared` bit in
# them, found in __init__ by watching `reshape` set it.
const _ARRAY_FLAGS_OFFSET = 2 * sizeof(Int)
const _SHARED_BIT = Ref{UInt16}(0)
# Kept buffers: how many tensors keep each, and whether it was shared before the first.
const _KEEPS = IdDict{Any,Tuple{Int,Bool}}()

_array_flags(a::Array) = GC.@preserve a unsafe_load(Ptr{UInt16}(pointer_from_objref(a) + _ARRAY_FLAGS_OFFSET))
_set_array_flags!(a::Array, f::UInt16) =
    GC.@preserve a unsafe_store!(Ptr{UInt16}(pointer_from_objref(a) + _ARRAY_FLAGS_OFFSET), f)

function _find_shared_bit()
    _ARRAYS_OWN_MEMORY && return nothing
    probe = zeros(UInt8, 64)
    before = _array_flags(probe)
    shared = reshape(probe, 8, 8)
    bit = xor(_array_flags(probe), before)
    count_ones(bit) == 1 || error("TVMFFI: cannot find the shared flag of arrays on Julia $VERSION")
    _SHARED_BIT[] = bit
    GC.@preserve shared return nothing
end

# The object owning the buffer of an array that does not own it (`how == 3`), stored after its
# dimensions (jl_array_t, 1.5-1.10).
function _buffer_owner(a::Array)
    _array_flags(a) & 0x0003 == 0x0003 || return nothing
    words = ndims(a) < 3 ? 0 : ndims(a) - 2
    GC.@preserve a begin
        p = unsafe_load(Ptr{Ptr{Cvoid}}(pointer_from_objref(a) + 5 * sizeof(Int) + words * sizeof(Int)))
        return p == C_NULL ? nothing : unsafe_pointer_to_objref(p)
    end
end

# The Array whose memory the strided array `x` uses, or `nothing` (an array type of a package).
function _buffer_of(x::AbstractArray)
    while !(x isa Array)
        p = parent(x)
        p === x && return nothing
        x = p
    end
    return x
end

# The slot value for a tensor over `x`, protecting the memory under it.
function _keep(x::AbstractArray)
    buffer = _buffer_of(x)
    buffer === nothing ? x : _keep(x, buffer)
end

function _keep(x::AbstractArray, buffer::Array)
    _ARRAYS_OWN_MEMORY && return _Kept(x, buffer, getfield(buffer, :ref).mem)
    owner = _buffer_owner(buffer)
    lock(_SLOT_LOCK)
    try
        n, was_shared = get(_KEEPS, buffer, (0, false))
        if n == 0
            flags = _array_flags(buffer)
            was_shared = flags & _SHARED_BIT[] != 0
            was_shared || _set_array_flags!(buffer, flags | _SHARED_BIT[])
        end
        _KEEPS[buffer] = (n + 1, was_shared)
    finally
        unlock(_SLOT_LOCK)
    end
    return _Kept(x, buffer, owner)
end

# Called with `_SLOT_LOCK` held when a slot is freed.
_unkeep(@nospecialize(v)) = nothing
function _unkeep(k::_Kept)
    _ARRAYS_OWN_MEMORY && return nothing
    buffer = k.buffer
    n, was_shared = _KEEPS[buffer]
    if n == 1
        delete!(_KEEPS, buffer)
        was_shared || _set_array_flags!(buffer, _array_flags(buffer) & ~_SHARED_BIT[])
    else
        _KEEPS[buffer] = (n - 1, was_shared)
    end
    return nothing
end

"""
    TVMFFI.is_kept(x::Array) -> Bool

Whether C currently keeps a tensor over the memory of `x` (made from `x`, or from a view of it),
not yet swept (see [`sweep_keepalive!`](@ref)). While it does, on Julia 1.5-1.10 the operations
that would move or free the memory (`resize!`, `push!`, `append!`, `empty!`, `sizehint!`,
`deleteat!`...) throw; on 1.11 and later they move `x` to new memory and C's stays valid.
"""
function is_kept(x::Array)
    lock(_SLOT_LOCK)
    try
        _ARRAYS_OWN_MEMORY || return haskey(_KEEPS, x)
        return any(v -> v isa _Kept && v.buffer === x, _SLOTS.values)
    finally
        unlock(_SLOT_LOCK)
    end
end
