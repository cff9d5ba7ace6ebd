# Object handles: one mutable Julia wrapper per reference, a finalizer that releases it, `close`.
#
# Ownership rules (docs/architecture.md, "Ownership"):
# - values returned by C (call results, field getters, errors) are *owned*: the wrapper takes the
#   reference the C side handed out (no IncRef) and its finalizer DecRefs it once;
# - arguments are *borrowed* for the duration of a call: the wrapper's handle is put in the argument
#   buffer without IncRef, and the wrapper is kept alive with GC.@preserve until the call returns;
# - a handle that C only lends (callback arguments, container elements, fields read through a
#   view) is IncRef'd before it is wrapped.
#
# Every wrapper type is a `mutable struct` whose only field is `handle::Ptr{Cvoid}` (C_NULL once
# released). The package reads it with `getfield(x, :handle)` because generated types overload
# `getproperty` for their reflected fields.

"""
    FFIObject

Supertype of the Julia wrappers of TVM-FFI objects that are not containers: [`Object`](@ref)
(any object whose type has no registered Julia type), [`FFIFunction`](@ref),
[`FFIModule`](@ref), [`FFITensor`](@ref) and the types generated packages register with
[`register_object_type`](@ref). Containers wrap objects too but subtype `AbstractVector` /
`AbstractDict`; see [`ObjectRef`](@ref) for the union of all wrappers.

A subtype must be a `mutable struct` with the single field `handle::Ptr{Cvoid}` and a constructor
`T(h::Ptr{Cvoid})`; best as the only inner constructor, `T(h::Ptr{Cvoid}) = new(h)`, which leaves
outer constructors of any arity free (e.g. one calling `__ffi_init__`). `TVMFFI` creates
instances itself (taking ownership of a reference) and attaches the finalizer that releases it.
"""
abstract type FFIObject end

"""
    TVMFFI.Object <: FFIObject

A TVM-FFI object whose type (or any ancestor's) has no registered Julia type. Its reflected fields
are properties (`obj.a`, `obj.a = 1` for writable ones, `propertynames(obj)`), and
[`call_method`](@ref) calls its methods.
"""
mutable struct Object <: FFIObject
    handle::Ptr{Cvoid}
    Object(h::Ptr{Cvoid}) = new(h)
end

# Forward declarations of the container wrappers (defined in containers.jl / tensor.jl) so that
# `ObjectRef` can name them. Their type parameters are the element types a signature declares
# (`Array[int]` comes back as an `FFIArray{Int64}`); values of other origins have `Any`.
"""
    FFIArray{T} <: AbstractVector{T}

A lazy, read-only view of an `ffi.Array` (immutable sequence). Elements are converted on access
to `T`, the element type its signature declares (`FFIArray{Int64}` for `Array[int]`, `Any` when
nothing is declared), so `collect` gives a `Vector{T}`. Build one from any Julia iterable with
`FFIArray(v)`; Julia vectors (except numeric arrays, which become tensors, and `Vector{UInt8}`,
which becomes bytes) and tuples convert to `ffi.Array` automatically when passed to a function.
"""
mutable struct FFIArray{T} <: AbstractVector{T}
    handle::Ptr{Cvoid}
    FFIArray{T}(h::Ptr{Cvoid}) where {T} = new{T}(h)
end

"""
    FFIList{T} <: AbstractVector{T}

A lazy view of an `ffi.List` (mutable sequence shared with C), elements of type `T` (as for
[`FFIArray`](@ref)): `getindex`, `setindex!`, `push!`, `pop!`, `insert!`, `deleteat!`,
`empty!` act on the C object. `FFIList(v)` builds one.
"""
mutable struct FFIList{T} <: AbstractVector{T}
    handle::Ptr{Cvoid}
    FFIList{T}(h::Ptr{Cvoid}) where {T} = new{T}(h)
end

"""
    FFIMap{K,V} <: AbstractDict{K,V}

A lazy, read-only view of an `ffi.Map` (immutable hash map, insertion-ordered iteration), with
keys of type `K` and values of type `V` (as declared by its signature, else `Any`). `FFIMap(d)`
builds one; Julia `AbstractDict`s convert to `ffi.Map` automatically.
"""
mutable struct FFIMap{K,V} <: AbstractDict{K,V}
    handle::Ptr{Cvoid}
    FFIMap{K,V}(h::Ptr{Cvoid}) where {K,V} = new{K,V}(h)
end

"""
    FFIDict{K,V} <: AbstractDict{K,V}

A lazy view of an `ffi.Dict` (mutable hash map shared with C), typed like [`FFIMap`](@ref):
`setindex!`, `delete!`, `empty!` act on the C object. `FFIDict(d)` builds one.
"""
mutable struct FFIDict{K,V} <: AbstractDict{K,V}
    handle::Ptr{Cvoid}
    FFIDict{K,V}(h::Ptr{Cvoid}) where {K,V} = new{K,V}(h)
end

# Wrappers of values whose element types nothing declares.
FFIArray(h::Ptr{Cvoid}) = FFIArray{Any}(h)
FFIList(h::Ptr{Cvoid}) = FFIList{Any}(h)
FFIMap(h::Ptr{Cvoid}) = FFIMap{Any,Any}(h)
FFIDict(h::Ptr{Cvoid}) = FFIDict{Any,Any}(h)

"""
    FFIShape <: AbstractVector{Int64}

A view of an `ffi.Shape` (immutable `Int64` tuple). `FFIShape((2, 3))` builds one; `Tuple(s)`
and `Vector(s)` copy it out.
"""
mutable struct FFIShape <: AbstractVector{Int64}
    handle::Ptr{Cvoid}
    FFIShape(h::Ptr{Cvoid}) = new(h)
end

"""
    ObjectRef

The union of every Julia wrapper of a TVM-FFI object: `FFIObject` subtypes and the container
views ([`FFIArray`](@ref), [`FFIList`](@ref), [`FFIMap`](@ref), [`FFIDict`](@ref),
[`FFIShape`](@ref)). [`handle`](@ref), [`type_index`](@ref), [`type_key`](@ref),
[`same_object`](@ref) and `close` work on all of them.
"""
const ObjectRef = Union{FFIObject,FFIArray,FFIList,FFIMap,FFIDict,FFIShape}

# Releases the wrapper's reference (finalizer and `close`); safe to call twice.
function _release!(x)
    h = getfield(x, :handle)
    if h != C_NULL
        setfield!(x, :handle, C_NULL)
        _decref(h)
    end
    return nothing
end

# Wraps an owned handle (takes the reference).
@inline function _take_object(::Type{T}, h::Ptr{Cvoid}) where {T}
    obj = T(h)
    finalizer(_release!, obj)
    return obj
end

# Wraps a borrowed handle (adds a reference first).
@inline function _borrow_object(::Type{T}, h::Ptr{Cvoid}) where {T}
    _incref(h)
    return _take_object(T, h)
end

"""
    handle(x::ObjectRef) -> Ptr{Cvoid}

The object handle (a pointer to its `TVMFFIObject` header) that `x` holds a reference to. It is
valid while `x` is alive: keep `x` in a `GC.@preserve` block while C code uses the pointer.
Throws if `x` was closed.
"""
@inline function handle(x::ObjectRef)
    h = getfield(x, :handle)
    h == C_NULL && _throw_closed(x)
    return h
end

@noinline _throw_closed(x) = throw(ArgumentError("this $(typeof(x)) was closed: its TVM-FFI object was released"))

"""
    close(x::ObjectRef)

Release the reference `x` holds now instead of when the garbage collector finalizes `x`. Using
`x` afterwards throws; closing twice is a no-op.
"""
Base.close(x::ObjectRef) = _release!(x)

"""
    isopen(x::ObjectRef) -> Bool

Whether `x` still holds its reference (it was not closed).
"""
Base.isopen(x::ObjectRef) = getfield(x, :handle) != C_NULL

"""
    type_index(x::ObjectRef) -> Int32

The runtime type index of the object (`70` for `ffi.Tensor`, dynamic indices from 128 on).
"""
type_index(x::ObjectRef) = _header_type_index(handle(x))

"""
    type_key(x::ObjectRef) -> String
    type_key(type_index::Integer) -> String

The registered type key, e.g. `"ffi.Array"` or `"testing.TestIntPair"`. A type index must be
valid (Apache's runtime aborts the process on an unknown index).
"""
type_key(x::ObjectRef) = type_key(type_index(x))

"""
    same_object(a, b) -> Bool

Whether two wrappers refer to the same TVM-FFI object (same handle).
"""
same_object(a::ObjectRef, b::ObjectRef) = handle(a) == handle(b)
same_object(a, b) = false

"""
    ==(a::FFIObject, b::FFIObject)

Object identity: true when both wrap the same TVM-FFI object (as `same_object`). Containers
compare by content like other `AbstractVector`s / `AbstractDict`s.
"""
Base.:(==)(a::FFIObject, b::FFIObject) = same_object(a, b)
Base.hash(a::FFIObject, h::UInt) = hash(getfield(a, :handle), hash(:FFIObject, h))

# --- Julia types per TVM-FFI type key ---------------------------------------------------------------

const _REGISTRY_LOCK = ReentrantLock()
const _TYPE_REGISTRY = Dict{String,DataType}()   # type key -> Julia wrapper type
const _WRAPPER_CACHE = Dict{Int32,DataType}()    # type index -> resolved wrapper type

"""
    register_object_type(type_key::AbstractString, T::Type)

Make objects whose type is `type_key`, or derives from it without a registered type of its own,
come back from C as `T` (the most-derived registered type wins). `T` must be a `mutable struct`
subtype of [`FFIObject`](@ref) with the single field `handle::Ptr{Cvoid}`.

Generated packages call this from their `__init__` (a registration made at precompile time would
not be kept):

```julia
mutable struct TestIntPair <: TVMFFI.FFIObject
    handle::Ptr{Cvoid}
    TestIntPair(h::Ptr{Cvoid}) = new(h)
end
function __init__()
    TVMFFI.register_object_type("testing.TestIntPair", TestIntPair)
end
```
"""
function register_object_type(type_key::AbstractString, @nospecialize(T::Type))
    # Not specialized on T: a generated package registers dozens of types in `__init__`.
    (T isa DataType && T <: FFIObject && isconcretetype(T) && _ismutabletype(T) &&
     fieldnames(T) == (:handle,) && fieldtype(T, 1) === Ptr{Cvoid} && hasmethod(T, Tuple{Ptr{Cvoid}})) ||
        throw(ArgumentError("$T must be a mutable struct subtype of FFIObject with the single field " *
                            "handle::Ptr{Cvoid} and a constructor $T(::Ptr{Cvoid})"))
    lock(_REGISTRY_LOCK)
    try
        _TYPE_REGISTRY[String(type_key)] = T
        empty!(_WRAPPER_CACHE)
    finally
        unlock(_REGISTRY_LOCK)
    end
    return T
end

"""
    registered_object_type(type_key) -> Union{DataType,Nothing}

The Julia type registered for exactly `type_key`, or `nothing`.
"""
registered_object_type(type_key::AbstractString) =
    lock(() -> get(_TYPE_REGISTRY, String(type_key), nothing), _REGISTRY_LOCK)

# `Base.ismutabletype` exists from Julia 1.7 on; `DataType.mutable` until 1.6.
_ismutabletype(T::DataType) = isdefined(Base, :ismutabletype) ? Base.ismutabletype(T) : T.mutable

# Wrapper types of the runtime's builtin object types (by static type index).
function _builtin_wrapper(ti::Int32)
    ti == kTVMFFIFunction && return FFIFunction
    ti == kTVMFFIArray && return FFIArray{Any}
    ti == kTVMFFIList && return FFIList{Any}
    ti == kTVMFFIMap && return FFIMap{Any,Any}
    ti == kTVMFFIDict && return FFIDict{Any,Any}
    ti == kTVMFFIShape && return FFIShape
    ti == kTVMFFITensor && return FFITensor
    ti == kTVMFFIModule && return FFIModule
    return nothing
end

function _resolve_wrapper(ti::Int32)
    info = _type_info_ptr(ti)
    info == C_NULL && return Object
    tinfo = unsafe_load(info)
    T = get(_TYPE_REGISTRY, _string(tinfo.type_key), nothing)
    T === nothing || return T
    B = _builtin_wrapper(ti)
    B === nothing || return B
    # Ancestors, most derived first.
    for d in tinfo.type_depth:-1:1
        anc = unsafe_load(unsafe_load(tinfo.type_ancestors, d))
        T = get(_TYPE_REGISTRY, _string(anc.type_key), nothing)
        T === nothing || return T
        B = _builtin_wrapper(anc.type_index)
        B === nothing || return B
    end
    return Object
end

# The Julia wrapper type for objects of type index `ti`.
function _wrapper_type(ti::Int32)
    lock(_REGISTRY_LOCK) do
        T = get(_WRAPPER_CACHE, ti, nothing)
        if T === nothing
            T = _resolve_wrapper(ti)
            _WRAPPER_CACHE[ti] = T
        end
        T
    end
end
