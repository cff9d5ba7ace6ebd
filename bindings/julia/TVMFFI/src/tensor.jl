# Tensors (DLPack, zero-copy both ways), data types and devices.
#
# Julia -> C: a strided numeric Julia array becomes an `ffi.Tensor` through
# `TVMFFITensorFromDLPackVersioned`. The DLManagedTensorVersioned (plus shape and strides) lives in
# C memory; its `manager_ctx` is the cell of a keep-alive slot holding the Julia array, so the array
# lives as long as the tensor. The tensor's deleter only marks that cell and frees the C block
# (keepalive.jl); the array is dropped by the next sweep.
#
# C -> Julia: a CPU tensor with a Julia element type and compact strides becomes a Julia `Array`
# over the tensor's memory (`unsafe_wrap`, no copy): column-major data is an `Array`, row-major
# data (the C convention) a `PermutedDimsArray` over an `Array` with reversed dimensions, so that
# `A[i, j]` is the C element `[i][j]` either way. The Array's finalizer keeps the tensor alive and
# releases it. Passing that array back to C passes the original tensor (same handle).

"""
    FFITensor <: FFIObject

An `ffi.Tensor`. Tensors returned by C functions are converted to Julia arrays (zero-copy) when
they are on the CPU with a Julia element type and compact strides; others come back as
`FFITensor`, with [`shape`](@ref), [`dtype`](@ref), [`device`](@ref) and [`data_pointer`](@ref).

    FFITensor(x::AbstractArray)

makes a tensor over the memory of a strided numeric Julia array, without copying (the tensor
keeps `x` alive). Numeric arrays passed as arguments are converted like this automatically.
"""
mutable struct FFITensor <: FFIObject
    handle::Ptr{Cvoid}
    FFITensor(h::Ptr{Cvoid}) = new(h)
end

FFITensor(x::AbstractArray) = _take_object(FFITensor, _tensor_from_array(x))
FFITensor(x::FFITensor) = x

# --- data types ------------------------------------------------------------------------------------

function _dlpack_eltype(::Type{T}) where {T}
    T === Float32 && return DLDataType(kDLFloat, 32, 1)
    T === Float64 && return DLDataType(kDLFloat, 64, 1)
    T === Float16 && return DLDataType(kDLFloat, 16, 1)
    T === Int8 && return DLDataType(kDLInt, 8, 1)
    T === Int16 && return DLDataType(kDLInt, 16, 1)
    T === Int32 && return DLDataType(kDLInt, 32, 1)
    T === Int64 && return DLDataType(kDLInt, 64, 1)
    T === UInt8 && return DLDataType(kDLUInt, 8, 1)
    T === UInt16 && return DLDataType(kDLUInt, 16, 1)
    T === UInt32 && return DLDataType(kDLUInt, 32, 1)
    T === UInt64 && return DLDataType(kDLUInt, 64, 1)
    T === Bool && return DLDataType(kDLBool, 8, 1)
    T === ComplexF32 && return DLDataType(kDLComplex, 64, 1)
    T === ComplexF64 && return DLDataType(kDLComplex, 128, 1)
    return nothing
end

"""
    julia_type(dt::DLDataType) -> Union{Type,Nothing}

The Julia element type of a DLPack data type with one lane (`Float32` for `float32`, `Bool` for
`bool`, ...), or `nothing` if Julia has no equivalent (e.g. `bfloat16`, vector types).
"""
function julia_type(dt::DLDataType)
    dt.lanes == 1 || return nothing
    c, b = dt.code, dt.bits
    if c == kDLFloat
        b == 32 && return Float32
        b == 64 && return Float64
        b == 16 && return Float16
    elseif c == kDLInt
        b == 8 && return Int8
        b == 16 && return Int16
        b == 32 && return Int32
        b == 64 && return Int64
    elseif c == kDLUInt
        b == 8 && return UInt8
        b == 16 && return UInt16
        b == 32 && return UInt32
        b == 64 && return UInt64
    elseif c == kDLBool
        b == 8 && return Bool
    elseif c == kDLComplex
        b == 64 && return ComplexF32
        b == 128 && return ComplexF64
    end
    return nothing
end

DLDataType(code::Integer, bits::Integer) = DLDataType(UInt8(code), UInt8(bits), UInt16(1))
DLDataType(code::Integer, bits::Integer, lanes::Integer) = DLDataType(UInt8(code), UInt8(bits), UInt16(lanes))

function DLDataType(::Type{T}) where {T}
    dt = _dlpack_eltype(T)
    dt === nothing && throw(ArgumentError("no DLPack data type for the Julia type $T"))
    return dt
end

function DLDataType(s::AbstractString)
    str = String(s)
    out = Ref(DLDataType(0, 0, 0))
    rc = GC.@preserve str ccall(_fp_TVMFFIDataTypeFromString[], Cint, (Ptr{TVMFFIByteArray}, Ptr{DLDataType}),
        Ref(_bytearray(str)), out)
    _check(rc)
    return out[]
end

Base.convert(::Type{DLDataType}, s::AbstractString) = DLDataType(s)
Base.convert(::Type{DLDataType}, ::Type{T}) where {T} = DLDataType(T)

"""
    string(dt::DLDataType) -> String

The runtime's spelling of the data type (`TVMFFIDataTypeToString`), e.g. `"float32"`.
"""
function Base.string(dt::DLDataType)
    out = Ref(_ANY_NONE)
    _check(ccall(_fp_TVMFFIDataTypeToString[], Cint, (Ptr{DLDataType}, Ptr{TVMFFIAny}), Ref(dt), out))
    return _take_any(out[])::String
end

function Base.show(io::IO, dt::DLDataType)
    s = try
        string(dt)
    catch
        nothing
    end
    if s === nothing
        print(io, "DLDataType(", dt.code, ", ", dt.bits, ", ", dt.lanes, ")")
    else
        print(io, "DLDataType(", repr(s), ")")
    end
end

# --- devices ----------------------------------------------------------------------------------------------

const _DEVICE_NAMES = (
    1 => :cpu, 2 => :cuda, 3 => :cuda_host, 4 => :opencl, 7 => :vulkan, 8 => :metal, 9 => :vpi,
    10 => :rocm, 11 => :rocm_host, 12 => :ext_dev, 13 => :cuda_managed, 14 => :oneapi, 15 => :webgpu,
    16 => :hexagon, 17 => :maia, 18 => :trn,
)

function _device_type(name::Symbol)
    for (code, n) in _DEVICE_NAMES
        n === name && return Int32(code)
    end
    name === :gpu && return Int32(2)
    throw(ArgumentError("unknown device name :$name"))
end

function _device_name(code::Integer)
    for (c, n) in _DEVICE_NAMES
        c == code && return n
    end
    return nothing
end

DLDevice(name::Symbol, id::Integer = 0) = DLDevice(_device_type(name), Int32(id))
DLDevice(device_type::Integer, id::Integer) = DLDevice(Int32(device_type), Int32(id))
DLDevice(t::Tuple{Symbol,Integer}) = DLDevice(t[1], t[2])
function DLDevice(s::AbstractString)
    parts = split(s, ':')
    length(parts) <= 2 || throw(ArgumentError("invalid device string \"$s\""))
    id = length(parts) == 2 ? parse(Int32, parts[2]) : Int32(0)
    return DLDevice(Symbol(parts[1]), id)
end

Base.convert(::Type{DLDevice}, x::Union{Symbol,AbstractString,Tuple{Symbol,Integer}}) = DLDevice(x)

"""
    string(d::DLDevice) -> String

`"cpu:0"`, `"cuda:1"`, ... (`"device<type>:<id>"` for unknown device types).
"""
function Base.string(d::DLDevice)
    n = _device_name(d.device_type)
    return n === nothing ? "device$(d.device_type):$(d.device_id)" : "$(n):$(d.device_id)"
end

function Base.show(io::IO, d::DLDevice)
    n = _device_name(d.device_type)
    if n === nothing
        print(io, "DLDevice(", d.device_type, ", ", d.device_id, ")")
    else
        print(io, "DLDevice(:", n, ", ", d.device_id, ")")
    end
end

# --- Julia array -> tensor -----------------------------------------------------------------------------------

const _DLPACK_HEADER = sizeof(DLManagedTensorVersioned)

# Arrays whose elements sit at fixed strides in memory (`strides(x)`, from `_data_pointer(x)`): strided
# arrays, and permutations and transposes of them (an adjoint only of reals, where it is a transpose).
_is_strided(x::AbstractArray) = x isa StridedArray || _is_strided_wrapper(x)
_is_strided_wrapper(x::PermutedDimsArray) = parent(x) isa StridedArray
_is_strided_wrapper(x::AbstractArray) =
    _is_transpose(x) && (nameof(typeof(x)) === :Transpose || eltype(x) <: Real) && parent(x) isa StridedArray

# LinearAlgebra's `Transpose` and `Adjoint`, which start at their parent's first element. Named through
# the loaded module, so that TVMFFI does not depend on LinearAlgebra (without it, there are none).
const _LINEAR_ALGEBRA = Base.PkgId(Base.UUID("37e2e46d-f89d-539d-b4ee-838fcccc9c8e"), "LinearAlgebra")
function _is_transpose(x::AbstractArray)
    T = typeof(x)
    return nameof(T) in (:Transpose, :Adjoint) && Base.PkgId(parentmodule(T)) == _LINEAR_ALGEBRA
end

_data_pointer(x::PermutedDimsArray) = pointer(parent(x))
_data_pointer(x::AbstractArray) = _is_transpose(x) ? pointer(parent(x)) : pointer(x)

# Makes an `ffi.Tensor` (owned handle) over the memory of `x`, which it keeps alive.
function _tensor_from_array(x::AbstractArray)
    _check_tensorable(x)
    cell = _slot_new(_keep(x))
    h, _, rc = _new_tensor(x, cell)
    if rc != 0
        _slot_discard(cell)
        _check(rc)
    end
    return h
end

function _check_tensorable(x::AbstractArray{T}) where {T}
    _dlpack_eltype(T) === nothing && throw(ArgumentError("TVMFFI: no DLPack data type for arrays of $T"))
    _is_strided(x) || throw(ArgumentError("TVMFFI: a $(typeof(x)) is not strided; copy it into an Array first"))
    return nothing
end

# An `ffi.Tensor` (owned handle) over the memory of `x` whose DLPack deleter marks `cell` (none:
# C_NULL), the address of its managed tensor (C memory that the deleter frees), and the return
# code (not 0: no tensor, the error raised; nothing to free), so that callers need no `try` (a
# `sigsetjmp`).
function _new_tensor(x::AbstractArray{T,N}, cell::Ptr{Cvoid}) where {T,N}
    dims = size(x)
    strd = strides(x)
    mem = Libc.malloc(_DLPACK_HEADER + _SPARE_WORDS + 16 * max(N, 1))
    mem == C_NULL && throw(OutOfMemoryError())
    shape_ptr = Ptr{Int64}(mem + _DLPACK_HEADER + _SPARE_WORDS)
    strides_ptr = shape_ptr + 8 * max(N, 1)
    for i in 1:N
        unsafe_store!(shape_ptr, Int64(dims[i]), i)
        unsafe_store!(strides_ptr, Int64(strd[i]), i)
    end
    data = Ptr{Cvoid}(_data_pointer(x))
    dl = DLTensor(data, DLDevice(kDLCPU, Int32(0)), Int32(N), _dlpack_eltype(T), shape_ptr, strides_ptr, UInt64(0))
    unsafe_store!(Ptr{DLManagedTensorVersioned}(mem),
        DLManagedTensorVersioned(DLPackVersion(1, 1), cell, _shim_dlpack_deleter[], UInt64(0), dl))
    out = Ref{Ptr{Cvoid}}(C_NULL)
    rc = ccall(_fp_TVMFFITensorFromDLPackVersioned[], Cint, (Ptr{Cvoid}, Int32, Int32, Ptr{Ptr{Cvoid}}),
        mem, 0, 0, out)
    # The runtime did not take the managed tensor: free it ourselves.
    rc == 0 || (Libc.free(mem); return out[], mem, rc)
    h = out[]
    unsafe_store!(Ptr{Ptr{Cvoid}}(mem + _DLPACK_HEADER), h)
    unsafe_store!(Ptr{UInt64}(mem + _DLPACK_HEADER + 8), _combined_count(h))
    return h, mem, rc
end

# --- the spare tensor -------------------------------------------------------------------------------------------
#
# A tensor made for one call (`_call_tensor_arg`) that nothing referenced but the call when it
# returned is kept as the spare (one per process, taken and put back atomically): the next call
# passing an array of the same memory, element type, size and strides takes it instead of making
# a tensor, which saves its allocations and frees. While spare it keeps nothing and nothing else
# references it (its reference count is the one it had when made), so no C code can reach its
# memory, which may be gone; when taken it describes the taking call's array, protected like any
# (`_guard_for_call`). Its managed block (`_new_tensor`) holds, after the DLPack header, the
# tensor's handle and that count.
const _SPARE_WORDS = 16
const _SPARE = Threads.Atomic{UInt}(0)   # the spare's managed block, 0 for none

_combined_count(h::Ptr{Cvoid}) = unsafe_load(Ptr{UInt64}(h))
_spare_handle(managed::Ptr{Cvoid}) = unsafe_load(Ptr{Ptr{Cvoid}}(managed + _DLPACK_HEADER))
_spare_fresh(managed::Ptr{Cvoid}) = unsafe_load(Ptr{UInt64}(managed + _DLPACK_HEADER + 8))

# The spare (its handle and managed block) if it describes `x`, else (C_NULL, C_NULL) (a spare
# that does not is released).
function _take_spare(x::AbstractArray{T,N}) where {T,N}
    m = Ptr{Cvoid}(Threads.atomic_xchg!(_SPARE, UInt(0)))
    m == C_NULL && return (C_NULL, C_NULL)
    h = _spare_handle(m)
    _describes(h, x) && _combined_count(h) == _spare_fresh(m) && return (h, m)
    _decref(h)
    return (C_NULL, C_NULL)
end

# Whether the tensor `h` describes the memory of `x` as `_new_tensor` would.
function _describes(h::Ptr{Cvoid}, x::AbstractArray{T,N}) where {T,N}
    dl = unsafe_load(Ptr{DLTensor}(h + _HEADER_SIZE))
    (dl.data == Ptr{Cvoid}(_data_pointer(x)) && dl.ndim == N && dl.byte_offset == 0 && dl.strides != C_NULL &&
        dl.dtype == _dlpack_eltype(T) && dl.device.device_type == kDLCPU) || return false
    dims = size(x)
    strd = strides(x)
    for i in 1:N
        (unsafe_load(dl.shape, i) == dims[i] && unsafe_load(dl.strides, i) == strd[i]) || return false
    end
    return true
end

# Makes the tensor of a finished call (its count the one it was made with) the spare; the one
# it replaces is released.
function _put_spare(managed::Ptr{Cvoid})
    old = Ptr{Cvoid}(Threads.atomic_xchg!(_SPARE, UInt(managed)))
    old == C_NULL || _decref(_spare_handle(old))
    return nothing
end

# --- tensor -> Julia array --------------------------------------------------------------------------------------

# Arrays made over tensors, so that passing them back passes the same tensor:
# objectid(array) => (WeakRef(array), WeakRef(owner), tensor handle, permuted, data, length). The
# owner is what carries the finalizer that releases the handle (`_finalized_owner`), so the handle
# is valid while that WeakRef still points to it; the array still uses the tensor's memory while
# its owner, data pointer and length are the ones recorded (on 1.11+ a grown array moves to new
# memory). Dead entries are purged when the table grows. (A finalizer closure does not keep what
# it captures alive for the GC, so the reference is held as a raw handle, not as a wrapper.)
const _WRAPPED = Dict{UInt,Tuple{WeakRef,WeakRef,Ptr{Cvoid},Bool,Ptr{Cvoid},Int}}()
const _WRAPPED_LOCK = ReentrantLock()
const _WRAPPED_PURGE_AT = Ref(1024)

# What the finalizer of an array over a tensor goes on: since 1.11 the array's `Memory`, which
# `vec`, `reshape` and views of the array share without referring to the array itself; before,
# the array (which those refer to as their data owner).
_finalized_owner(B::Array) = _ARRAYS_OWN_MEMORY ? getfield(B, :ref).mem : B

function _remember_wrapped(B::Array, h::Ptr{Cvoid}, permuted::Bool)
    lock(_WRAPPED_LOCK)
    try
        if length(_WRAPPED) >= _WRAPPED_PURGE_AT[]
            filter!(kv -> kv[2][1].value !== nothing, _WRAPPED)
            _WRAPPED_PURGE_AT[] = max(1024, 2 * length(_WRAPPED))
        end
        _WRAPPED[objectid(B)] = (WeakRef(B), WeakRef(_finalized_owner(B)), h, permuted,
                                 Ptr{Cvoid}(pointer(B)), length(B))
    finally
        unlock(_WRAPPED_LOCK)
    end
end

# The tensor handle behind an array made by `_try_array` (still over the tensor's memory), or C_NULL.
function _lookup_wrapped(B::Array, permuted::Bool)
    e = lock(() -> get(_WRAPPED, objectid(B), nothing), _WRAPPED_LOCK)
    e === nothing && return C_NULL
    (e[1].value === B && e[4] == permuted) || return C_NULL
    (e[2].value === _finalized_owner(B) && e[5] == Ptr{Cvoid}(pointer(B)) && e[6] == length(B)) || return C_NULL
    return e[3]
end

_is_reversed_perm(::PermutedDimsArray{T,N,perm}) where {T,N,perm} = perm == ntuple(i -> N + 1 - i, N)

function _existing_tensor(x::AbstractArray)
    if x isa Array
        return _lookup_wrapped(x, false)
    elseif x isa PermutedDimsArray && parent(x) isa Array && _is_reversed_perm(x)
        return _lookup_wrapped(parent(x), true)
    end
    return C_NULL
end

function _tensor_arg(x::AbstractArray)
    h = _existing_tensor(x)       # valid during the call: the caller preserves x
    h == C_NULL || return (TVMFFIAny(_header_type_index(h), 0, UInt64(h)), false)
    return (TVMFFIAny(kTVMFFITensor, 0, UInt64(_tensor_from_array(x))), true)
end

# A tensor argument of one synchronous call (`_convert_args`), which the caller preserves: a tensor
# without a keep-alive slot, its memory protected for the call only (kept.jl); after the call
# (`_release_arg`) a tensor that C kept gets its slot then. Arrays whose buffer is not an Array
# take the general path (`_tensor_arg`).
function _call_tensor_arg(x::A) where {A<:AbstractArray}
    buffer = _buffer_of(x)
    if buffer === nothing
        any, owned = _tensor_arg(x)
        return (any, _CallTensor{A}(x, owned))
    end
    if _maybe_over_tensor(buffer)
        h = _existing_tensor(x)
        h == C_NULL || return (TVMFFIAny(_header_type_index(h), 0, UInt64(h)), _CallTensor{A}(x, false))
    end
    _check_tensorable(x)
    epoch = _guard_for_call(buffer)
    h, managed = _take_spare(x)
    if h == C_NULL
        h, managed, rc = _new_tensor(x, C_NULL)
        if rc != 0
            _end_guard(buffer, epoch)
            _check(rc)
        end
    end
    t = _CallTensor{A}(x, buffer, epoch, _ARRAYS_OWN_MEMORY ? getfield(buffer, :ref).mem : nothing, managed, true)
    return (TVMFFIAny(kTVMFFITensor, 0, UInt64(h)), t)
end

# Whether `buffer` may be an array over a tensor's memory (`_try_array`): on 1.5-1.10 Julia marks
# arrays over foreign memory (`unsafe_wrap`) shared, which saves the table's lock and lookup.
_maybe_over_tensor(buffer::Array) = _ARRAYS_OWN_MEMORY || _array_flags(buffer) & _SHARED_BIT[] != 0

# How `_release_arg` releases an array argument (one type for every path, so that calls stay
# type-stable).
struct _CallTensor{A<:AbstractArray}
    array::A
    buffer::Any           # the Array whose memory the tensor uses (a tensor made for the call)
    epoch::Int            # `_guard_for_call`'s (1.5-1.10)
    memory::Any           # the buffer's Memory (1.11+), preserved with the call's arguments
    managed::Ptr{Cvoid}   # the DLManagedTensorVersioned; C_NULL: not a tensor made for the call
    owned::Bool           # not made for the call: whether the argument is released (`_arg`)
end
_CallTensor{A}(x::A, owned::Bool) where {A} = _CallTensor{A}(x, nothing, -1, nothing, C_NULL, owned)

const _MANAGER_CTX_OFFSET = 8   # in DLManagedTensorVersioned (after the version)

function _release_arg(a::TVMFFIAny, t::_CallTensor)
    t.managed == C_NULL && return _release_arg(a, t.owned)
    h = _v_ptr(a)
    buffer = t.buffer::Array
    # The strong count: with only this call's reference left nobody can take another, and the
    # tensor dies here.
    if unsafe_load(Ptr{UInt64}(h)) % UInt32 > 1
        # C kept it: the slot and the protection of a tensor made by `_tensor_from_array`, in
        # place before the call's reference goes (the deleter can run only after).
        cell = _slot_new(_keep_after_call(t.array, buffer, t.epoch, t.memory))
        unsafe_store!(Ptr{Ptr{Cvoid}}(t.managed + _MANAGER_CTX_OFFSET), cell)
    else
        _end_guard(buffer, t.epoch)
        # Nothing else references it (no weak reference either): the call's reference becomes
        # the spare's.
        _combined_count(h) == _spare_fresh(t.managed) && return _put_spare(t.managed)
    end
    _decref(h)
    return nothing
end

_host_device(dev::DLDevice) = dev.device_type == 1 || dev.device_type == 3 || dev.device_type == 11

function _compact(shape::Vector{Int}, strides::Vector{Int}, order)
    expected = 1
    for i in order
        shape[i] == 1 || strides[i] == expected || return false
        expected *= shape[i]
    end
    return true
end

# Views the memory a DLTensor describes as a Julia array. Returns (array, parent Array, permuted,
# aliased): `aliased` is false when the tensor is empty and a fresh empty array is returned.
# Returns `nothing` if it cannot be viewed without copying.
function _wrap_dltensor(dl::DLTensor)
    _host_device(dl.device) || return nothing
    T = julia_type(dl.dtype)
    T === nothing && return nothing
    n = Int(dl.ndim)
    shape = Int[unsafe_load(dl.shape, i) for i in 1:n]
    if any(==(0), shape)
        A = Array{T}(undef, Tuple(shape))
        return (A, A, false, false)
    end
    strides = dl.strides == C_NULL ? Int[] : Int[unsafe_load(dl.strides, i) for i in 1:n]
    p = Ptr{T}(dl.data + dl.byte_offset)
    row_major = isempty(strides) || _compact(shape, strides, n:-1:1)
    col_major = !isempty(strides) && _compact(shape, strides, 1:n)
    if col_major || (n <= 1 && row_major)
        B = unsafe_wrap(Array, p, Tuple(shape); own = false)
        return (B, B, false, true)
    elseif row_major
        B = unsafe_wrap(Array, p, Tuple(reverse(shape)); own = false)
        return (PermutedDimsArray(B, Tuple(n:-1:1)), B, true, true)
    end
    return nothing
end

_dltensor(t::FFITensor) = GC.@preserve t unsafe_load(Ptr{DLTensor}(handle(t) + _HEADER_SIZE))

# Consumes the wrapper `t`: returns a Julia array over its memory that owns t's reference (released
# by the array's finalizer), or `nothing` (and leaves `t` untouched) if that is not possible.
function _try_array(t::FFITensor)
    w = _wrap_dltensor(_dltensor(t))
    w === nothing && return nothing
    A, B, permuted, aliased = w
    if aliased
        h = getfield(t, :handle)
        setfield!(t, :handle, C_NULL)
        finalizer(_ -> _decref(h), _finalized_owner(B))
        _remember_wrapped(B, h, permuted)
    else
        _release!(t)
    end
    return A
end

# The Julia value of a tensor result: a zero-copy array when possible, else the FFITensor.
function _tensor_result(t::FFITensor)
    A = _try_array(t)
    return A === nothing ? t : A
end

"""
    to_array(t::FFITensor) -> AbstractArray

A zero-copy Julia array over the tensor's memory (an `Array` for column-major data, a
`PermutedDimsArray` for row-major data), which keeps the tensor alive. Throws if the tensor is
not on the CPU, has no Julia element type, or has non-compact strides.
"""
function to_array(t::FFITensor)
    A = _try_array(FFITensor(_incref_handle(handle(t))))
    A === nothing && throw(ArgumentError("TVMFFI: this tensor ($(dtype(t)) on $(device(t))) cannot be viewed as a Julia array"))
    return A
end

_incref_handle(h::Ptr{Cvoid}) = (_incref(h); h)

# Copies the data of a borrowed DLTensor* (callback arguments of type DLTensorPtr).
function _copy_dltensor(p::Ptr{DLTensor})
    w = _wrap_dltensor(unsafe_load(p))
    w === nothing && throw(ArgumentError("TVMFFI: cannot read a DLTensor* argument of this dtype/device"))
    return copy(w[1])
end

"""
    shape(t::FFITensor) -> Vector{Int}

The tensor's dimensions (C order).
"""
function shape(t::FFITensor)
    dl = _dltensor(t)
    return GC.@preserve t Int[unsafe_load(dl.shape, i) for i in 1:Int(dl.ndim)]
end

"""
    dtype(t::FFITensor) -> DLDataType
"""
dtype(t::FFITensor) = _dltensor(t).dtype

"""
    device(t::FFITensor) -> DLDevice
"""
device(t::FFITensor) = _dltensor(t).device

"""
    data_pointer(t::FFITensor) -> Ptr{Cvoid}

The address of the tensor's first element (`data + byte_offset`), valid while `t` is alive.
"""
data_pointer(t::FFITensor) = (dl = _dltensor(t); dl.data + dl.byte_offset)

Base.ndims(t::FFITensor) = Int(_dltensor(t).ndim)
Base.size(t::FFITensor) = Tuple(shape(t))
