# Conversions between Julia values and `TVMFFIAny` (docs/architecture.md, "Values").
#
# Julia -> Any, for arguments: `_arg(x)` returns `(any, owned)`. The Any is a *view* of `x` for one
# call; when `owned` is true it holds a reference created for the call (a string or container
# built from Julia data, a callback, a tensor over a Julia array) that the caller releases after
# the call. Wrappers of existing objects are borrowed: the caller keeps them alive with
# GC.@preserve for the duration of the call.
#
# Any -> Julia: `_take_any(a)` consumes an *owned* Any (call results, getters); `_copy_any(a)`
# reads a *borrowed* view (callback arguments, container elements) and adds references as needed.
#
# | ABI                        | Julia                                                          |
# |----------------------------|----------------------------------------------------------------|
# | None                       | nothing                                                        |
# | Int, Bool, Float           | Int64 (any Integer in range), Bool, Float64 (any AbstractFloat) |
# | String (small or heap)     | String (also any AbstractString, Symbol, Char)                 |
# | Bytes (small or heap)      | Vector{UInt8} (also b"..." literals)                           |
# | DataType, Device           | DLDataType (also Julia element types like Float32), DLDevice    |
# | Array, List                | FFIArray, FFIList (lazy views); tuples and non-numeric vectors  |
# |                            | convert to ffi.Array                                           |
# | Map, Dict                  | FFIMap, FFIDict (lazy views); AbstractDicts convert to ffi.Map  |
# | Shape                      | FFIShape (an AbstractVector{Int64})                            |
# | Function                   | FFIFunction (callable); any Julia Function converts in         |
# | Tensor                     | Julia Array (zero-copy, both ways; numeric strided arrays)     |
# | BigInt                     | Base.BigInt outside the Int64 range                            |
# | Error                      | FFIError                                                       |
# | other objects              | the registered Julia type, or TVMFFI.Object                    |

# --- Julia -> Any ----------------------------------------------------------------------------------

@inline _arg(::Nothing) = (_ANY_NONE, false)
@inline _arg(x::Bool) = (TVMFFIAny(kTVMFFIBool, 0, UInt64(x)), false)
@inline _arg(x::Int64) = (TVMFFIAny(kTVMFFIInt, 0, reinterpret(UInt64, x)), false)
@inline function _arg(x::Integer)
    (typemin(Int64) <= x <= typemax(Int64)) || throw(InexactError(:TVMFFIAny, Int64, x))
    return _arg(Int64(x))
end
function _arg(x::BigInt)
    typemin(Int64) <= x <= typemax(Int64) && return _arg(Int64(x))
    return (_bigint_any(x), true)
end
@inline _arg(x::AbstractFloat) = (TVMFFIAny(kTVMFFIFloat, 0, reinterpret(UInt64, Float64(x))), false)
@inline _arg(x::String) = _arg_bytes(x, kTVMFFISmallStr, _fp_TVMFFIStringFromByteArray)
_arg(x::AbstractString) = _arg(String(x))
_arg(x::Symbol) = _arg(String(x))
_arg(x::AbstractChar) = _arg(string(x))
@inline _arg(x::Vector{UInt8}) = _arg_bytes(x, kTVMFFISmallBytes, _fp_TVMFFIBytesFromByteArray)
_arg(x::Base.CodeUnits{UInt8,String}) = _arg(Vector{UInt8}(x))
@inline _arg(x::DLDataType) = (TVMFFIAny(kTVMFFIDataType, 0, _dtype_bits(x)), false)
@inline _arg(x::DLDevice) = (TVMFFIAny(kTVMFFIDevice, 0, _device_bits(x)), false)
_arg(::Type{T}) where {T<:Number} = _arg(DLDataType(T))
@inline _arg(x::Ptr) = (TVMFFIAny(kTVMFFIOpaquePtr, 0, UInt64(x)), false)
@inline _arg(x::FFIObject) = _object_view(x)
@inline _arg(x::Union{FFIArray,FFIList,FFIShape}) = _object_view(x)
@inline _arg(x::Union{FFIMap,FFIDict}) = _object_view(x)
function _arg(e::FFIError)
    obj = e.obj
    if obj isa Object && isopen(obj)
        return _object_view(obj)
    end
    h = _new_error_object(e.kind, e.message, e.backtrace)
    h == C_NULL && throw(OutOfMemoryError())
    return (TVMFFIAny(kTVMFFIError, 0, UInt64(h)), true)
end
_arg(f::Base.Function) = (TVMFFIAny(kTVMFFIFunction, 0, UInt64(_new_callback(f))), true)
# Whether an array argument passes as a tensor (else as an `ffi.Array`).
_is_tensor_arg(x::AbstractArray) = _dlpack_eltype(eltype(x)) !== nothing && _is_strided(x)
function _arg(x::AbstractArray)
    _is_tensor_arg(x) && return _tensor_arg(x)
    ndims(x) == 1 || throw(ArgumentError(
        "TVMFFI: cannot pass a $(ndims(x))-dimensional $(typeof(x)): arrays of numbers pass as " *
        "tensors only when strided (their elements at fixed strides in memory), other arrays only " *
        "as vectors (ffi.Array); pass copy(x), a dense Array"))
    return (_sequence_any(_global_func("ffi.Array"), x), true)
end
_arg(x::Tuple) = (_sequence_any(_global_func("ffi.Array"), x), true)
_arg(x::AbstractDict) = (_mapping_any(_global_func("ffi.Map"), x), true)
_arg(@nospecialize(x)) =
    throw(ArgumentError("TVMFFI: cannot pass a value of type $(typeof(x)) to TVM-FFI (no conversion to Any)"))

@inline _object_view(x) = (h = handle(x); (TVMFFIAny(_header_type_index(h), 0, UInt64(h)), false))

# Strings and bytes of up to 7 bytes are stored inline (SmallStr / SmallBytes); longer ones become
# runtime-allocated String / Bytes objects owned for the call.
@inline function _arg_bytes(x::Union{String,Vector{UInt8}}, small_index::Int32, create::Ref{Ptr{Cvoid}})
    n = sizeof(x)
    if n <= 7
        v = UInt64(0)
        GC.@preserve x begin
            p = Ptr{UInt8}(pointer(x))
            for i in 1:n
                v |= UInt64(unsafe_load(p, i)) << (8 * (i - 1))
            end
        end
        return (TVMFFIAny(small_index, UInt32(n), v), false)
    end
    out = Ref(_ANY_NONE)
    GC.@preserve x begin
        ba = Ref(TVMFFIByteArray(Ptr{UInt8}(pointer(x)), n))
        rc = ccall(create[], Cint, (Ptr{TVMFFIByteArray}, Ptr{TVMFFIAny}), ba, out)
    end
    _check(rc)
    return (out[], true)
end

function _bigint_any(x::BigInt)
    # Two's complement, least significant 64-bit word first.
    nwords = cld(ndigits(x, base = 2) + 1, 64)
    words = Vector{UInt64}(undef, nwords)
    mask = (BigInt(1) << 64) - 1
    y = x < 0 ? (BigInt(1) << (64 * nwords)) + x : x
    for i in 1:nwords
        words[i] = UInt64(y & mask)
        y >>= 64
    end
    out = Ref(_ANY_NONE)
    GC.@preserve words begin
        ba = Ref(TVMFFIByteArray(Ptr{UInt8}(pointer(words)), 8 * nwords))
        rc = ccall(_fp_TVMFFIBigIntFromByteArray[], Cint, (Ptr{TVMFFIByteArray}, Ptr{TVMFFIAny}), ba, out)
    end
    _check(rc)
    return out[]
end

@inline _dtype_bits(x::DLDataType) = UInt64(x.code) | (UInt64(x.bits) << 8) | (UInt64(x.lanes) << 16)
@inline _device_bits(x::DLDevice) = UInt64(reinterpret(UInt32, x.device_type)) | (UInt64(reinterpret(UInt32, x.device_id)) << 32)
@inline _dtype_from_bits(v::UInt64) = DLDataType(v % UInt8, (v >> 8) % UInt8, (v >> 16) % UInt16)
@inline _device_from_bits(v::UInt64) = DLDevice(reinterpret(Int32, v % UInt32), reinterpret(Int32, (v >> 32) % UInt32))

# Converts a Julia value into an *owned* Any (callback results): borrowed views get a reference.
function _to_owned_any(@nospecialize(x))
    a, owned = _arg(x)
    owned || (_is_object_index(a.type_index) && _incref(_v_ptr(a)))
    return a
end

# --- Any -> Julia ----------------------------------------------------------------------------------

"""
    TVMFFI.from_any(a::TVMFFIAny; owned::Bool)

Convert a raw `TVMFFIAny` to its Julia value. With `owned = true` the Any's reference is consumed
(results of C calls); with `owned = false` it is a borrowed view and references are added as
needed (arguments received by callbacks). For code that calls C functions directly.
"""
from_any(a::TVMFFIAny; owned::Bool) = owned ? _take_any(a) : _copy_any(a)

"""
    TVMFFI.to_any(x) -> TVMFFIAny

Convert a Julia value to an *owned* `TVMFFIAny` (its reference, if any, belongs to the caller,
who must hand it to C code that takes ownership or release it with [`release_any`](@ref)).
"""
to_any(x) = _to_owned_any(x)

"""
    TVMFFI.release_any(a::TVMFFIAny)

Release the reference an owned `TVMFFIAny` holds (no-op for values that are not objects).
"""
release_any(a::TVMFFIAny) = _release_any(a)

function _small_bytes(a::TVMFFIAny)
    n = Int(a.small_len)
    out = Vector{UInt8}(undef, n)
    v = a.v
    for i in 1:n
        out[i] = (v >> (8 * (i - 1))) % UInt8
    end
    return out
end
_small_string(a::TVMFFIAny) = String(_small_bytes(a))

# The (data, size) cell of a String or Bytes object.
@inline _bytes_cell(h::Ptr{Cvoid}) = unsafe_load(Ptr{TVMFFIByteArray}(h + _HEADER_SIZE))

function _bytes_vector(ba::TVMFFIByteArray)
    out = Vector{UInt8}(undef, ba.size)
    ba.size > 0 && unsafe_copyto!(pointer(out), ba.data, ba.size)
    return out
end

function _bigint_value(a::TVMFFIAny)
    ba = Ref(a)
    content = ccall(_fp_TVMFFIBigIntGetContentByteArray[], TVMFFIByteArray, (Ptr{TVMFFIAny},), ba)
    nwords = Int(content.size) ÷ 8
    nwords == 0 && return BigInt(0)
    words = unsafe_wrap(Array, Ptr{UInt64}(content.data), nwords)
    y = BigInt(0)
    for i in nwords:-1:1
        y = (y << 64) | BigInt(words[i])
    end
    if words[nwords] >> 63 != 0      # negative: two's complement
        y -= BigInt(1) << (64 * nwords)
    end
    return y
end

# Values that are not objects (same for owned Anys and views).
function _pod_value(a::TVMFFIAny)
    ti = a.type_index
    ti == kTVMFFINone && return nothing
    ti == kTVMFFIInt && return _v_int64(a)
    ti == kTVMFFIBool && return a.v != 0
    ti == kTVMFFIFloat && return _v_float64(a)
    ti == kTVMFFISmallStr && return _small_string(a)
    ti == kTVMFFISmallBytes && return _small_bytes(a)
    ti == kTVMFFIOpaquePtr && return _v_ptr(a)
    ti == kTVMFFIDataType && return _dtype_from_bits(a.v)
    ti == kTVMFFIDevice && return _device_from_bits(a.v)
    ti == kTVMFFIRawStr && return unsafe_string(Ptr{UInt8}(a.v))
    ti == kTVMFFIByteArrayPtr && return _bytes_vector(unsafe_load(Ptr{TVMFFIByteArray}(a.v)))
    ti == kTVMFFIDLTensorPtr && return _copy_dltensor(Ptr{DLTensor}(a.v))
    throw(ArgumentError("TVMFFI: cannot convert a TVM-FFI value of type index $ti to Julia"))
end

# Consumes an owned Any.
function _take_any(a::TVMFFIAny)
    ti = a.type_index
    _is_object_index(ti) || return _pod_value(a)
    h = _v_ptr(a)
    if ti == kTVMFFIStr
        s = _string(_bytes_cell(h))
        _decref(h)
        return s
    elseif ti == kTVMFFIBytes
        b = _bytes_vector(_bytes_cell(h))
        _decref(h)
        return b
    elseif ti == kTVMFFIError
        return _error_from_handle(h)
    elseif ti == kTVMFFIBigInt
        v = try
            _bigint_value(a)
        finally
            _decref(h)
        end
        return v
    end
    T = _wrapper_type(ti)
    obj = _take_object(T, h)
    T === FFITensor && return _tensor_result(obj)
    return obj
end

# Reads a borrowed view.
function _copy_any(a::TVMFFIAny)
    ti = a.type_index
    if ti == kTVMFFIObjectRValueRef
        out = Ref(_ANY_NONE)
        _check(ccall(_fp_TVMFFIAnyViewToOwnedAny[], Cint, (Ptr{TVMFFIAny}, Ptr{TVMFFIAny}), Ref(a), out))
        return _take_any(out[])
    end
    _is_object_index(ti) || return _pod_value(a)
    h = _v_ptr(a)
    ti == kTVMFFIStr && return _string(_bytes_cell(h))
    ti == kTVMFFIBytes && return _bytes_vector(_bytes_cell(h))
    _incref(h)
    return _take_any(a)
end
