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
# Counts the entries made in `_KEEPS` (see `_end_guard`).
const _KEEP_EPOCH = Ref(0)

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
        _KEEP_EPOCH[] += 1
    finally
        unlock(_SLOT_LOCK)
    end
    return _Kept(x, buffer, owner)
end

# --- memory protected for one call -----------------------------------------------------------------
#
# A tensor made for one synchronous call (`_call_tensor_arg`) has no slot: the caller preserves the
# array, and the memory is protected for the call only. After the call, a tensor C kept gets a slot
# and the protection above (`_keep_after_call`); otherwise the protection ends (`_end_guard`).
# - 1.11 and later: the buffer's `Memory` is preserved with the call's arguments (a callback that
#   grows the array moves it away; the tensor's memory stays).
# - 1.5 to 1.10: the array is marked shared for the call, so a callback's `resize!` throws. The
#   call notes `_KEEP_EPOCH` when it sets the mark: a tensor kept meanwhile (by a callback) took
#   the mark for the array's own, and the last of those clears it instead. An array marked already
#   (kept, or sharing its data, or in another call) keeps its mark while such calls are in flight
#   (`_IN_CALL`): a mark whose last user ends meanwhile is cleared by the last of them
#   (`_CLEAR_LATER`).
#   The lock is taken only when other threads could be keeping arrays meanwhile.

const _IN_CALL = Ref(0)
const _CLEAR_LATER = Any[]

# The epoch (see above), or -1 if the array was marked shared already; 0 on 1.11+.
function _guard_for_call(buffer::Array)
    _ARRAYS_OWN_MEMORY && return 0
    threaded = Threads.nthreads() > 1
    threaded && lock(_SLOT_LOCK)
    flags = _array_flags(buffer)
    epoch = -1
    if flags & _SHARED_BIT[] == 0
        _set_array_flags!(buffer, flags | _SHARED_BIT[])
        epoch = _KEEP_EPOCH[]
    else
        _IN_CALL[] += 1
    end
    threaded && unlock(_SLOT_LOCK)
    return epoch
end

function _end_guard(buffer::Array, epoch::Int)
    _ARRAYS_OWN_MEMORY && return nothing
    threaded = Threads.nthreads() > 1
    threaded && lock(_SLOT_LOCK)
    if epoch < 0
        _IN_CALL[] -= 1
        _IN_CALL[] == 0 && !isempty(_CLEAR_LATER) && _clear_later!()
    elseif _KEEP_EPOCH[] == epoch
        _release_mark!(buffer)
    else
        _hand_over_mark!(buffer)
    end
    threaded && unlock(_SLOT_LOCK)
    return nothing
end

_clear_shared!(buffer::Array) = _set_array_flags!(buffer, _array_flags(buffer) & ~_SHARED_BIT[])

# Clears a mark nothing keeps any more, unless calls over marked arrays are in flight (one of
# them, on another thread or an outer call, may use this one): then the last of them does.
_release_mark!(buffer::Array) = _IN_CALL[] > 0 ? push!(_CLEAR_LATER, buffer) : _clear_shared!(buffer)

# Clears a mark set by this code on `buffer`, or passes it to the tensors keeping it, which took
# it for the array's own.
function _hand_over_mark!(buffer::Array)
    kept = get(_KEEPS, buffer, nothing)
    if kept === nothing
        _release_mark!(buffer)
    else
        _KEEPS[buffer] = (kept[1], false)
    end
    return nothing
end

function _clear_later!()
    buffers = copy(_CLEAR_LATER)
    empty!(_CLEAR_LATER)
    foreach(_hand_over_mark!, buffers)
    return nothing
end

# The slot value of a tensor made for a call that C kept: the protection of `_keep`, in place of
# the call's (under the lock throughout, so that no other thread sees the array unprotected).
function _keep_after_call(x::AbstractArray, buffer::Array, epoch::Int, memory)
    _ARRAYS_OWN_MEMORY && return _Kept(x, buffer, memory)
    lock(_SLOT_LOCK)
    try
        _end_guard(buffer, epoch)
        return _keep(x, buffer)
    finally
        unlock(_SLOT_LOCK)
    end
end

# Called with `_SLOT_LOCK` held when a slot is freed.
_unkeep(@nospecialize(v)) = nothing
function _unkeep(k::_Kept)
    _ARRAYS_OWN_MEMORY && return nothing
    buffer = k.buffer
    n, was_shared = _KEEPS[buffer]
    if n == 1
        delete!(_KEEPS, buffer)
        was_shared || _release_mark!(buffer)
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
