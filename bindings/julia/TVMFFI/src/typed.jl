# Typed conversions: what generated wrappers use to pass arguments by their declared type schema.
#
# Untyped calls convert by the Julia value alone (a numeric `Vector` is a tensor, a `Dict` is an
# `ffi.Map`, ...). A parameter declared `Array[int]`, `List[str]`, `Dict[str, int]`, `Shape` or
# `Map[str, Array[float]]` needs the value built as that container, element by element (an inner
# `Vector{Int}` must become an `ffi.Array`, not a tensor). `to_ffi(T, x)` does that, where `T`
# describes the declared type with Julia types:
#
# | declared type                 | `T`                                          |
# |-------------------------------|----------------------------------------------|
# | int, bool, str, None, Any ... | `Int64`, `Bool`, `String`, `Nothing`, `Any`  |
# | float                         | `Float64` (integers are converted)           |
# | bytes                         | `Vector{UInt8}`                              |
# | DataType, Device              | `DLDataType`, `DLDevice` (parsed from strings, symbols, tuples) |
# | Tensor, Shape, Function       | `FFITensor`, `FFIShape`, `FFIFunction`       |
# | Array[T], List[T]             | `ArrayOf{T}`, `ListOf{T}`                    |
# | Map[K, V], Dict[K, V]         | `MapOf{K,V}`, `DictOf{K,V}`                  |
# | Tuple[A, B]                   | `TupleOf{Tuple{A,B}}`                        |
# | Optional[T]                   | `Union{Nothing,T}`                           |
# | Variant[A, B]                 | `VariantOf{Tuple{A,B}}`                      |
#
# Containers are not built by `to_ffi`: it returns a small description (`_SeqArg`, `_MapArg`,
# ...) that the call converts into a temporary C object and releases right after the call, like
# any other temporary argument. Nothing here allocates for scalar parameters.

"""
    TVMFFI.ArrayOf{T}

Describes a parameter of type `Array[T]` for [`to_ffi`](@ref): any iterable (a `Vector`, a
tuple, a generator) becomes an `ffi.Array` whose elements are converted as `T`.
"""
struct ArrayOf{T} end

"""`TVMFFI.ListOf{T}`: like [`ArrayOf`](@ref), for `List[T]` (an `ffi.List`)."""
struct ListOf{T} end

"""
    TVMFFI.MapOf{K,V}

Describes `Map[K, V]`: an `AbstractDict` (or an iterable of pairs) becomes an `ffi.Map` with
keys converted as `K` and values as `V`.
"""
struct MapOf{K,V} end

"""`TVMFFI.DictOf{K,V}`: like [`MapOf`](@ref), for `Dict[K, V]` (an `ffi.Dict`)."""
struct DictOf{K,V} end

"""`TVMFFI.TupleOf{Tuple{A,B,...}}`: `Tuple[A, B, ...]`, passed as an `ffi.Array` of the converted items."""
struct TupleOf{T<:Tuple} end

"""
    TVMFFI.VariantOf{Tuple{A,B,...}}

Describes `Variant[A, B, ...]`: the value is converted as the first member type that accepts it
(an integer for `Int64`, a vector or tuple for `ArrayOf`, a dict for `MapOf`, ...), else passed
unchanged.
"""
struct VariantOf{T<:Tuple} end

"""
    TVMFFI.DataTypeLike

What a `DataType` parameter accepts: a [`DLDataType`](@ref), a string (`"float32"`) or a Julia
element type (`Float32`).
"""
const DataTypeLike = Union{DLDataType,AbstractString,Type}

"""
    TVMFFI.DeviceLike

What a `Device` parameter accepts: a [`DLDevice`](@ref), a symbol (`:cpu`), a string
(`"cuda:1"`) or a tuple (`(:cuda, 1)`).
"""
const DeviceLike = Union{DLDevice,Symbol,AbstractString,Tuple{Symbol,Integer}}

"""
    TVMFFI.TensorLike

A tensor in Julia: any (strided, numeric) `AbstractArray`, passed without copying, or an
[`FFITensor`](@ref). Tensor results are `Array`s over the tensor's memory when possible.
"""
const TensorLike = Union{AbstractArray,FFITensor}

"""`TVMFFI.ShapeLike`: what a `Shape` parameter accepts: an [`FFIShape`](@ref), a tuple or vector of integers."""
const ShapeLike = Union{FFIShape,Tuple{Vararg{Integer}},AbstractVector{<:Integer}}

"""`TVMFFI.SequenceLike`: what an `Array[T]`, `List[T]` or `Tuple[...]` parameter accepts: a vector or a tuple."""
const SequenceLike = Union{AbstractVector,Tuple}

# Temporary arguments built at call time (owned for the call, released after it).
struct _SeqArg
    list::Bool
    items::Vector{Any}
end
struct _MapArg
    dict::Bool
    kv::Vector{Any}
end
struct _ShapeArg
    dims::Vector{Int64}
end
# A homogeneous numeric vector for `Array[float]` / `Array[int]` (`list`: `List[...]`), whose
# elements are written straight into the argument buffer: no boxing, no dynamic dispatch.
struct _NumSeqArg{T<:Union{Int64,Float64},V<:AbstractVector}
    list::Bool
    items::V
end
_NumSeqArg{T}(list::Bool, items::V) where {T,V} = _NumSeqArg{T,V}(list, items)
struct _TensorArg{A<:AbstractArray}
    array::A
end
struct _CallbackArg{F}
    f::F
end

_arg(x::_SeqArg) = (_call_any_vector(_global_func(x.list ? "ffi.List" : "ffi.Array"), x.items), true)
_arg(x::_MapArg) = (_call_any_vector(_global_func(x.dict ? "ffi.Dict" : "ffi.Map"), x.kv), true)
_arg(x::_ShapeArg) = (_call_any_vector(_global_func("ffi.Shape"), x.dims), true)
function _arg(x::_NumSeqArg{T}) where {T}
    items = x.items
    anys = Vector{TVMFFIAny}(undef, length(items))
    @inbounds for (i, e) in enumerate(items)
        anys[i] = T === Float64 ? TVMFFIAny(kTVMFFIFloat, 0, reinterpret(UInt64, Float64(e))) :
                                  TVMFFIAny(kTVMFFIInt, 0, reinterpret(UInt64, Int64(e)))
    end
    f = _global_func(x.list ? "ffi.List" : "ffi.Array")
    rv = Ref(_ANY_NONE)
    rc = GC.@preserve f anys rv ccall(_fp_TVMFFIFunctionCall[], Cint,
        (Ptr{Cvoid}, Ptr{TVMFFIAny}, Int32, Ptr{TVMFFIAny}), handle(f), anys, length(anys), rv)
    _check(rc)
    return (rv[], true)
end
_arg(x::_TensorArg) = _tensor_arg(x.array)
_call_arg(x::_TensorArg) = _call_tensor_arg(x.array)
_arg(x::_CallbackArg) = (TVMFFIAny(kTVMFFIFunction, 0, UInt64(_new_callback(x.f))), true)

"""
    TVMFFI.to_ffi(T, x)

`x` prepared to be passed as a parameter declared with the type that `T` describes (see
[`ArrayOf`](@ref) for the descriptions). Values that need nothing are returned unchanged;
containers are described and built by the call that receives them, and released after it.

```julia
f = get_global_func("testing.schema_id_arr_int")
f(TVMFFI.to_ffi(TVMFFI.ArrayOf{Int64}, [1, 2, 3]))   # an ffi.Array, not a tensor
```
"""
to_ffi(::Type, x) = x
to_ffi(::Type{Any}, x) = x
to_ffi(::Type{Nothing}, x) = x
to_ffi(::Type{Float64}, x::Real) = Float64(x)
to_ffi(::Type{Vector{UInt8}}, x::Vector{UInt8}) = x
to_ffi(::Type{Vector{UInt8}}, x::AbstractVector{UInt8}) = Vector{UInt8}(x)
to_ffi(::Type{DLDataType}, x) = convert(DLDataType, x)
to_ffi(::Type{DLDevice}, x) = convert(DLDevice, x)
to_ffi(::Type{FFIShape}, x::FFIShape) = x
to_ffi(::Type{FFIShape}, x::Union{Tuple,AbstractVector}) = _ShapeArg(Int64[d for d in x])
to_ffi(::Type{FFITensor}, x::AbstractArray{UInt8}) = _TensorArg(x)   # bytes otherwise
to_ffi(::Type{FFIFunction}, x::Union{Base.Function,FFIFunction}) = x
to_ffi(::Type{FFIFunction}, x) = _CallbackArg(x)                     # any callable object
to_ffi(::Type{Union{Nothing,T}}, x) where {T} = x === nothing ? nothing : to_ffi(T, x)
to_ffi(::Type{Union{Nothing,T}}, ::Nothing) where {T} = nothing
# `Any` and `Nothing` are `Union{Nothing,T}` too (T = Any, T = Union{}): tie-breakers.
to_ffi(::Type{Any}, ::Nothing) = nothing
to_ffi(::Type{Nothing}, ::Nothing) = nothing

to_ffi(::Type{ArrayOf{T}}, x::FFIArray) where {T} = x
# Homogeneous numeric vectors: the same values as element by element, without boxing (an
# element converts exactly as `to_ffi(Float64, e)` / `_arg(e::Integer)` would convert it).
const _SmallInt = Union{Int8,Int16,Int32,Int64,UInt8,UInt16,UInt32}
to_ffi(::Type{ArrayOf{Float64}}, x::AbstractVector{<:Union{AbstractFloat,_SmallInt}}) = _NumSeqArg{Float64}(false, x)
to_ffi(::Type{ArrayOf{Int64}}, x::AbstractVector{<:_SmallInt}) = _NumSeqArg{Int64}(false, x)
to_ffi(::Type{ListOf{Float64}}, x::AbstractVector{<:Union{AbstractFloat,_SmallInt}}) = _NumSeqArg{Float64}(true, x)
to_ffi(::Type{ListOf{Int64}}, x::AbstractVector{<:_SmallInt}) = _NumSeqArg{Int64}(true, x)
# Typed views of numeric containers (a result passed back) are both containers and numeric
# vectors: they pass as they are.
to_ffi(::Type{ArrayOf{Float64}}, x::FFIArray{<:Union{AbstractFloat,_SmallInt}}) = x
to_ffi(::Type{ArrayOf{Int64}}, x::FFIArray{<:_SmallInt}) = x
to_ffi(::Type{ListOf{Float64}}, x::FFIList{<:Union{AbstractFloat,_SmallInt}}) = x
to_ffi(::Type{ListOf{Int64}}, x::FFIList{<:_SmallInt}) = x
to_ffi(::Type{ArrayOf{T}}, x) where {T} = _SeqArg(false, Any[to_ffi(T, e) for e in x])
to_ffi(::Type{ListOf{T}}, x::FFIList) where {T} = x
to_ffi(::Type{ListOf{T}}, x) where {T} = _SeqArg(true, Any[to_ffi(T, e) for e in x])
to_ffi(::Type{TupleOf{T}}, x::FFIArray) where {T} = x
to_ffi(::Type{TupleOf{T}}, x) where {T} =
    _SeqArg(false, Any[to_ffi(fieldtype(T, i), e) for (i, e) in enumerate(x)])
to_ffi(::Type{MapOf{K,V}}, x::FFIMap) where {K,V} = x
to_ffi(::Type{MapOf{K,V}}, x) where {K,V} = _MapArg(false, _converted_pairs(K, V, x))
to_ffi(::Type{DictOf{K,V}}, x::FFIDict) where {K,V} = x
to_ffi(::Type{DictOf{K,V}}, x) where {K,V} = _MapArg(true, _converted_pairs(K, V, x))

function _converted_pairs(K, V, d)
    kv = Any[]
    for (k, v) in d
        push!(kv, to_ffi(K, k), to_ffi(V, v))
    end
    return kv
end

function to_ffi(::Type{VariantOf{T}}, x) where {T}
    for M in fieldtypes(T)
        _accepts(M, x) && return to_ffi(M, x)
    end
    return x
end

# Whether a Variant member declared as `M` takes the Julia value `x`.
_accepts(::Type{M}, x) where {M} = x isa M
_accepts(::Type{Any}, x) = true
_accepts(::Type{Nothing}, x) = x === nothing
_accepts(::Type{Int64}, x) = x isa Integer && !(x isa Bool)
_accepts(::Type{Float64}, x) = x isa Real && !(x isa Bool)
_accepts(::Type{String}, x) = x isa Union{AbstractString,Symbol}
_accepts(::Type{Vector{UInt8}}, x) = x isa AbstractVector{UInt8}
_accepts(::Type{<:Union{ArrayOf,ListOf,TupleOf}}, x) = x isa Union{AbstractVector,Tuple,FFIArray,FFIList} &&
    !(x isa AbstractVector{UInt8})
_accepts(::Type{<:Union{MapOf,DictOf}}, x) = x isa AbstractDict
_accepts(::Type{FFITensor}, x) = x isa Union{AbstractArray,FFITensor}
_accepts(::Type{FFIShape}, x) = x isa Union{FFIShape,Tuple{Vararg{Integer}}}
_accepts(::Type{FFIFunction}, x) = x isa Union{Base.Function,FFIFunction}
_accepts(::Type{Union{Nothing,T}}, x) where {T} = x === nothing || _accepts(T, x)
_accepts(::Type{VariantOf{T}}, x) where {T} = any(M -> _accepts(M, x), fieldtypes(T))

"""`TVMFFI.Omitted`: the type of [`OMITTED`](@ref)."""
struct Omitted end

"""
    TVMFFI.OMITTED

Stands for an argument that is not passed, so that the callee uses its own default (a
constructor parameter whose default is computed by the library). [`construct`](@ref) drops
keyword arguments whose value is `OMITTED`.
"""
const OMITTED = Omitted()
