# Containers: lazy Julia views of ffi.Array / ffi.List (AbstractVector), ffi.Map / ffi.Dict
# (AbstractDict) and ffi.Shape (AbstractVector{Int64}).
#
# Sequences and shapes are read straight from their ABI layout (TVMFFISeqCell / TVMFFIShapeCell
# after the object header); elements are converted on access to the container's element type
# (objects get a new reference). Maps and every mutation go through the runtime's `ffi.*` global
# functions.

# --- building from Julia -----------------------------------------------------------------------------

# How deep Julia containers may nest when converted (the same limit as the Node binding): deeper
# or cyclic values raise an ArgumentError instead of overflowing the stack. The depth is counted
# per task (in its task-local storage), not per thread: a task may move between threads (1.7+),
# and thread ids are not bounded by `nthreads()` (interactive and adopted threads, 1.9+).
const MAX_NESTING = 1000
const _NESTING_KEY = :TVMFFI_nesting

function _nested(convert::F) where {F}
    depth = get!(() -> Ref(0), task_local_storage(), _NESTING_KEY)::Base.RefValue{Int}
    d = (depth[] += 1)
    try
        d > MAX_NESTING && throw(ArgumentError(
            "TVMFFI: cannot convert a value nested more than $MAX_NESTING levels deep " *
            "(arrays, tuples or dicts) to TVM-FFI; is it cyclic?"))
        return convert()
    finally
        depth[] -= 1
    end
end

# Calls a packed constructor (ffi.Array, ffi.List, ffi.Map, ...) with the elements of `xs`;
# returns the owned result.
_sequence_any(ctor::FFIFunction, xs) =
    _nested(() -> _call_any_vector(ctor, xs isa AbstractVector ? xs : collect(Any, xs)))

function _mapping_any(ctor::FFIFunction, d)
    return _nested() do
        kv = Any[]
        for (k, v) in d
            push!(kv, k, v)
        end
        _call_any_vector(ctor, kv)
    end
end

_take_as(::Type{T}, a::TVMFFIAny) where {T} = _take_typed(T, a)

"""
    FFIArray(xs = ())
    FFIArray{T}(xs)

A new `ffi.Array` holding the elements of the iterable `xs`, each converted to TVM-FFI; its
element type is `Any`, or `T` (then every element must read back as a `T`).
"""
FFIArray(xs = ()) = _take_as(FFIArray{Any}, _sequence_any(_global_func("ffi.Array"), xs))
FFIArray{T}(xs) where {T} = _take_as(FFIArray{T}, _sequence_any(_global_func("ffi.Array"), xs))

"""
    FFIList(xs = ())
    FFIList{T}(xs)

A new `ffi.List` holding the elements of the iterable `xs` (element type `Any`, or `T`).
"""
FFIList(xs = ()) = _take_as(FFIList{Any}, _sequence_any(_global_func("ffi.List"), xs))
FFIList{T}(xs) where {T} = _take_as(FFIList{T}, _sequence_any(_global_func("ffi.List"), xs))

"""
    FFIMap(d = ())
    FFIMap{K,V}(d)

A new `ffi.Map` with the key => value pairs of `d` (an `AbstractDict` or any iterable of pairs);
keys and values of type `Any`, or `K` and `V`.
"""
FFIMap(d = ()) = _take_as(FFIMap{Any,Any}, _mapping_any(_global_func("ffi.Map"), d))
FFIMap{K,V}(d) where {K,V} = _take_as(FFIMap{K,V}, _mapping_any(_global_func("ffi.Map"), d))

"""
    FFIDict(d = ())
    FFIDict{K,V}(d)

A new `ffi.Dict` with the key => value pairs of `d` (types as for [`FFIMap`](@ref)).
"""
FFIDict(d = ()) = _take_as(FFIDict{Any,Any}, _mapping_any(_global_func("ffi.Dict"), d))
FFIDict{K,V}(d) where {K,V} = _take_as(FFIDict{K,V}, _mapping_any(_global_func("ffi.Dict"), d))

"""
    FFIShape(dims)

A new `ffi.Shape` from integer dimensions, e.g. `FFIShape((2, 3))` or `FFIShape([2, 3])`.
"""
FFIShape(dims) = _take_as(FFIShape, _call_any_vector(_global_func("ffi.Shape"), Int64[d for d in dims]))

# Copies of an existing wrapper (same object, new reference) and passthrough conversions.
FFIArray(x::FFIArray) = x
FFIList(x::FFIList) = x
FFIMap(x::FFIMap) = x
FFIDict(x::FFIDict) = x
FFIShape(x::FFIShape) = x

Base.convert(::Type{FFIArray}, x::Union{AbstractVector,Tuple}) = FFIArray(x)
Base.convert(::Type{FFIList}, x::Union{AbstractVector,Tuple}) = FFIList(x)
Base.convert(::Type{FFIMap}, x::AbstractDict) = FFIMap(x)
Base.convert(::Type{FFIDict}, x::AbstractDict) = FFIDict(x)
Base.convert(::Type{FFIShape}, x::Union{AbstractVector{<:Integer},Tuple{Vararg{Integer}}}) = FFIShape(x)
Base.convert(::Type{FFIArray}, x::FFIArray) = x
Base.convert(::Type{FFIList}, x::FFIList) = x
Base.convert(::Type{FFIMap}, x::FFIMap) = x
Base.convert(::Type{FFIDict}, x::FFIDict) = x
Base.convert(::Type{FFIShape}, x::FFIShape) = x

# --- sequences (Array, List) -----------------------------------------------------------------------------

const _Seq{T} = Union{FFIArray{T},FFIList{T}}

@inline _seq_cell(h::Ptr{Cvoid}) = unsafe_load(Ptr{TVMFFISeqCell}(h + _HEADER_SIZE))

"""
    length(a::Union{FFIArray,FFIList}), size(a)

The number of elements, read from the sequence's cell.
"""
Base.size(a::_Seq) = (GC.@preserve(a, Int(_seq_cell(handle(a)).size)),)
Base.IndexStyle(::Type{<:_Seq}) = IndexLinear()

"""
    getindex(a::Union{FFIArray{T},FFIList{T}}, i::Int) -> T

Element `i` (1-based), converted to Julia as a `T` (objects are new wrappers holding their own
reference); an element that is not a `T` throws [`TVMFFI.TypeError`](@ref).
"""
function Base.getindex(a::_Seq{T}, i::Int) where {T}
    GC.@preserve a begin
        cell = _seq_cell(handle(a))
        1 <= i <= cell.size || throw(BoundsError(a, i))
        return _copy_typed(T, unsafe_load(cell.data, i))
    end
end

"""
    setindex!(l::FFIList, v, i::Int)

Replace element `i` of the list (`ffi.ListSetItem`).
"""
function Base.setindex!(l::FFIList, v, i::Int)
    checkbounds(l, i)
    _global_func("ffi.ListSetItem")(l, i - 1, v)
    return l
end

"""
    push!(l::FFIList, v)

Append `v` to the list (`ffi.ListAppend`).
"""
function Base.push!(l::FFIList, v)
    _global_func("ffi.ListAppend")(l, v)
    return l
end

"""
    insert!(l::FFIList, i::Integer, v)

Insert `v` so that it becomes element `i` (`ffi.ListInsert`).
"""
function Base.insert!(l::FFIList, i::Integer, v)
    1 <= i <= length(l) + 1 || throw(BoundsError(l, i))
    _global_func("ffi.ListInsert")(l, Int(i) - 1, v)
    return l
end

"""
    deleteat!(l::FFIList, i::Integer)

Remove element `i` (`ffi.ListErase`).
"""
function Base.deleteat!(l::FFIList, i::Integer)
    checkbounds(l, i)
    _global_func("ffi.ListErase")(l, Int(i) - 1)
    return l
end

"""
    pop!(l::FFIList)

Remove and return the last element (`ffi.ListPop`).
"""
function Base.pop!(l::FFIList)
    n = length(l)
    n == 0 && throw(ArgumentError("list must be non-empty"))
    return _global_func("ffi.ListPop")(l, n - 1)
end

"""
    empty!(l::FFIList)

Remove all elements (`ffi.ListClear`).
"""
function Base.empty!(l::FFIList)
    _global_func("ffi.ListClear")(l)
    return l
end

# --- shapes ----------------------------------------------------------------------------------------------

@inline _shape_cell(h::Ptr{Cvoid}) = unsafe_load(Ptr{TVMFFIShapeCell}(h + _HEADER_SIZE))

Base.size(s::FFIShape) = (GC.@preserve(s, Int(_shape_cell(handle(s)).size)),)
Base.IndexStyle(::Type{FFIShape}) = IndexLinear()
function Base.getindex(s::FFIShape, i::Int)
    GC.@preserve s begin
        cell = _shape_cell(handle(s))
        1 <= i <= cell.size || throw(BoundsError(s, i))
        return unsafe_load(cell.data, i)
    end
end

# --- maps (Map, Dict) ------------------------------------------------------------------------------------

const _Mapping = Union{FFIMap,FFIDict}

_map_prefix(::FFIMap) = "ffi.Map"
_map_prefix(::FFIDict) = "ffi.Dict"
_map_global(m::_Mapping, op::String) = _global_func(_map_prefix(m) * op)

"""
    length(m::Union{FFIMap,FFIDict})

The number of entries (`ffi.MapSize` / `ffi.DictSize`).
"""
Base.length(m::_Mapping) = _map_global(m, "Size")(m)::Int

# The `ffi.GetInvalidObject()` sentinel that `*GetItemOrMissing` returns for a missing key.
const _MISSING_SENTINEL = Ref{Any}(nothing)
function _missing_handle()
    s = _MISSING_SENTINEL[]
    if s === nothing
        s = _global_func("ffi.GetInvalidObject")()
        _MISSING_SENTINEL[] = s
    end
    return handle(s)
end

# The value for `key` (a `V`), or `default` when the map has no such key.
function _map_get(m::AbstractDict{K,V}, key, default) where {K,V}
    a = _call_any(_map_global(m, "GetItemOrMissing"), m, key)
    if _is_object_index(a.type_index) && _v_ptr(a) == _missing_handle()
        _release_any(a)
        return default
    end
    return _take_typed(V, a)
end

struct _NotFound end
const _NOT_FOUND = _NotFound()

"""
    getindex(m::Union{FFIMap,FFIDict}, key)

The value stored under `key` (converted to TVM-FFI for the lookup); throws `Base.KeyError(key)`
if there is none.
"""
function Base.getindex(m::_Mapping, key)
    v = _map_get(m, key, _NOT_FOUND)
    v === _NOT_FOUND && throw(Base.KeyError(key))
    return v
end

"""
    get(m::Union{FFIMap,FFIDict}, key, default)

The value stored under `key`, or `default`.
"""
Base.get(m::_Mapping, key, default) = _map_get(m, key, default)

"""
    haskey(m::Union{FFIMap,FFIDict}, key) -> Bool

Whether `key` is present (`ffi.MapCount` / `ffi.DictCount`).
"""
Base.haskey(m::_Mapping, key) = _map_global(m, "Count")(m, key)::Int > 0

"""
    iterate(m::Union{FFIMap{K,V},FFIDict{K,V}}[, state])

Iterates `key => value` pairs (`Pair{K,V}`) in the map's insertion order
(`ffi.MapForwardIterFunctor`); `keys`, `values`, `pairs` and `collect` are built on it.
"""
function Base.iterate(m::_Mapping)
    n = length(m)
    n == 0 && return nothing
    it = _map_global(m, "ForwardIterFunctor")(m)::FFIFunction
    return _entry(m, it), (it, n - 1)
end

function Base.iterate(m::_Mapping, state::Tuple{FFIFunction,Int})
    it, remaining = state
    if remaining == 0
        close(it)
        return nothing
    end
    it(2)
    return _entry(m, it), (it, remaining - 1)
end

# The entry the iteration functor `it` is at, as the map's `Pair{K,V}`.
_entry(::AbstractDict{K,V}, it::FFIFunction) where {K,V} =
    Pair{K,V}(_take_typed(K, _call_any(it, 0)), _take_typed(V, _call_any(it, 1)))

"""
    setindex!(d::FFIDict, v, key)

Store `v` under `key` (`ffi.DictSetItem`).
"""
function Base.setindex!(d::FFIDict, v, key)
    _global_func("ffi.DictSetItem")(d, key, v)
    return d
end

"""
    delete!(d::FFIDict, key)

Remove `key` if present (`ffi.DictErase`).
"""
function Base.delete!(d::FFIDict, key)
    haskey(d, key) && _global_func("ffi.DictErase")(d, key)
    return d
end

"""
    empty!(d::FFIDict)

Remove every entry (`ffi.DictClear`).
"""
function Base.empty!(d::FFIDict)
    _global_func("ffi.DictClear")(d)
    return d
end
