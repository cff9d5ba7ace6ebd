# Reflection: type keys and indices, fields (read and written through the getters and setters of
# TVMFFITypeInfo), methods and constructors. This is the API generated packages build their
# types on.

_type_info_ptr(ti::Int32) = ccall(_fp_TVMFFIGetTypeInfo[], Ptr{TVMFFITypeInfo}, (Int32,), ti)

type_key(ti::Integer) = _string(unsafe_load(_type_info_ptr(Int32(ti))).type_key)

"""
    type_index(type_key::AbstractString) -> Int32

The runtime type index registered for a type key. Throws an [`FFIError`](@ref) for unknown keys.
"""
function type_index(key::AbstractString)
    s = String(key)
    out = Ref{Int32}(0)
    rc = GC.@preserve s ccall(_fp_TVMFFITypeKeyToIndex[], Cint, (Ptr{TVMFFIByteArray}, Ptr{Int32}),
        Ref(_bytearray(s)), out)
    _check(rc)
    return out[]
end

_tindex(t::Integer) = Int32(t)
_tindex(t::AbstractString) = type_index(t)
_tindex(x::ObjectRef) = type_index(x)

"""
    FieldInfo

A reflected field: `name::Symbol`, `owner` (type key of the declaring type), `offset` (bytes from
the object header), `flags`, `doc`, `metadata` (JSON, with the `"type_schema"`),
`writable::Bool`, and the C `getter` / `setter` pointers.
"""
struct FieldInfo
    name::Symbol
    owner::String
    offset::Int64
    flags::Int64
    getter::Ptr{Cvoid}
    setter::Ptr{Cvoid}
    doc::String
    metadata::String
end

Base.getproperty(f::FieldInfo, s::Symbol) =
    s === :writable ? (getfield(f, :flags) & kTVMFFIFieldFlagBitMaskWritable != 0) : getfield(f, s)
Base.propertynames(::FieldInfo) = (fieldnames(FieldInfo)..., :writable)

"""
    MethodInfo

A reflected method: `name::Symbol`, `owner` (type key), `flags`, `is_static::Bool`, `doc`,
`metadata` (JSON), `func::FFIFunction`.
"""
struct MethodInfo
    name::Symbol
    owner::String
    flags::Int64
    is_static::Bool
    doc::String
    metadata::String
    func::FFIFunction
end

# The type infos of `ti` and its ancestors, root (ffi.Object) first.
function _type_chain(ti::Int32)
    info = unsafe_load(_type_info_ptr(ti))
    chain = TVMFFITypeInfo[]
    for d in 1:info.type_depth
        push!(chain, unsafe_load(unsafe_load(info.type_ancestors, d)))
    end
    push!(chain, info)
    return chain
end

function _read_fields(info::TVMFFITypeInfo)
    owner = _string(info.type_key)
    out = FieldInfo[]
    for i in 1:Int(info.num_fields)
        f = unsafe_load(info.fields, i)
        push!(out, FieldInfo(Symbol(_string(f.name)), owner, f.offset, f.flags, f.getter, f.setter,
            _string(f.doc), _string(f.metadata)))
    end
    return out
end

function _read_methods(info::TVMFFITypeInfo)
    owner = _string(info.type_key)
    out = MethodInfo[]
    for i in 1:Int(info.num_methods)
        m = unsafe_load(info.methods, i)
        func = _copy_any(m.method)
        func isa FFIFunction || continue
        push!(out, MethodInfo(Symbol(_string(m.name)), owner, m.flags,
            m.flags & kTVMFFIFieldFlagBitMaskIsStaticMethod != 0, _string(m.doc), _string(m.metadata), func))
    end
    return out
end

struct _TypeTables
    fields::Vector{FieldInfo}              # ancestors' fields first
    field_index::Dict{Symbol,FieldInfo}    # most derived declaration wins
    methods::Dict{Symbol,MethodInfo}       # most derived declaration wins
end

const _TABLES = Dict{Int32,_TypeTables}()
const _TABLES_LOCK = ReentrantLock()

function _tables(ti::Int32)
    lock(_TABLES_LOCK) do
        get!(_TABLES, ti) do
            fields = FieldInfo[]
            methods = Dict{Symbol,MethodInfo}()
            for info in _type_chain(ti)
                append!(fields, _read_fields(info))
                for m in _read_methods(info)
                    methods[m.name] = m
                end
            end
            index = Dict{Symbol,FieldInfo}()
            for f in fields
                index[f.name] = f
            end
            _TypeTables(fields, index, methods)
        end
    end
end

"""
    clear_reflection_cache()

Forget cached field and method tables (after a library registered more fields or methods for an
already inspected type).
"""
clear_reflection_cache() = lock(() -> (empty!(_TABLES); nothing), _TABLES_LOCK)

"""
    fields(t) -> Vector{FieldInfo}

The reflected fields of a type, given as a type key, a type index or an object, including
inherited fields (ancestors' first).
"""
fields(t) = copy(_tables(_tindex(t)).fields)

"""
    methods_of(t) -> Vector{MethodInfo}

The reflected methods of a type (type key, index or object), including inherited ones.
"""
methods_of(t) = sort!(collect(values(_tables(_tindex(t)).methods)); by = m -> m.name)

"""
    field_info(t, name::Symbol) -> FieldInfo

The field `name` of type `t` (type key, index or object); throws
[`TVMFFI.AttributeError`](@ref) if there is none. Generated code may cache the result per type.
"""
function field_info(t, name::Symbol)
    ti = _tindex(t)
    f = get(_tables(ti).field_index, name, nothing)
    f === nothing && throw(FFIError("AttributeError", "$(type_key(ti)) has no field $name"))
    return f
end

"""
    field_info(t, names::AbstractVector{Symbol}) -> Vector{FieldInfo}

The fields `names` of type `t`, in that order (what generated packages look up once in
`__init__`).
"""
field_info(t, names::AbstractVector{Symbol}) = FieldInfo[field_info(t, n) for n in names]

"""
    get_field(obj, name::Symbol)
    get_field(obj, f::FieldInfo)

Read a field through its reflected getter; the value is owned by the result (objects are new
wrappers with their own reference).
"""
get_field(obj::ObjectRef, name::Symbol) = get_field(obj, field_info(type_index(obj), name))

get_field(obj::ObjectRef, f::FieldInfo) = _take_any(_get_field_any(obj, f))

"""
    get_field(R::Type, obj, f::FieldInfo) -> R

[`get_field`](@ref) for a field whose value has the Julia type `R` (its declared type, as
generated code knows it): scalars are read without allocating, other values are checked to be
`R` (see [`call_typed`](@ref)).
"""
@inline get_field(::Type{R}, obj::ObjectRef, f::FieldInfo) where {R} = _take_typed(R, _get_field_any(obj, f))

@inline function _get_field_any(obj::ObjectRef, f::FieldInfo)
    f.getter == C_NULL && _throw_no_getter(f)
    out = Ref(_ANY_NONE)
    rc = GC.@preserve obj ccall(f.getter, Cint, (Ptr{Cvoid}, Ptr{TVMFFIAny}), handle(obj) + f.offset, out)
    _check(rc)
    return out[]
end

@noinline _throw_no_getter(f::FieldInfo) = throw(FFIError("AttributeError", "field $(f.name) of $(f.owner) has no getter"))

"""
    set_field!(obj, name::Symbol, value)
    set_field!(obj, f::FieldInfo, value)

Write a writable field through its reflected setter (a C setter, or a setter function object when
the field has the `SetterIsFunctionObj` flag). Read-only fields throw
[`TVMFFI.AttributeError`](@ref).
"""
set_field!(obj::ObjectRef, name::Symbol, value) = set_field!(obj, field_info(type_index(obj), name), value)

function set_field!(obj::ObjectRef, f::FieldInfo, value)
    (f.writable && f.setter != C_NULL) || throw(FFIError("AttributeError", "field $(f.name) of $(f.owner) is read-only"))
    GC.@preserve obj begin
        addr = handle(obj) + f.offset
        if f.flags & kTVMFFIFieldFlagBitSetterIsFunctionObj != 0
            # The setter is an ffi.Function called as setter(OpaquePtr(field address), value).
            setter = _borrow_object(FFIFunction, f.setter)
            try
                _release_any(_call_any(setter, addr, value))
            finally
                close(setter)
            end
        else
            a, owned = _arg(value)
            try
                rc = GC.@preserve value ccall(f.setter, Cint, (Ptr{Cvoid}, Ptr{TVMFFIAny}), addr, Ref(a))
                _check(rc)
            finally
                owned && _release_any(a)
            end
        end
    end
    return obj
end

"""
    get_method(t, name::Symbol) -> FFIFunction

The reflected method `name` of a type (type key, index or object), searching ancestors too.
Instance methods take the object as their first argument. Throws
[`TVMFFI.AttributeError`](@ref) if there is none.
"""
function get_method(t, name::Symbol)
    ti = _tindex(t)
    m = get(_tables(ti).methods, name, nothing)
    m === nothing && throw(FFIError("AttributeError", "$(type_key(ti)) has no method $name"))
    return m.func
end

"""
    call_method(obj, name::Symbol, args...)

Call the reflected method `name` on `obj`: instance methods get `obj` as first argument, static
methods only `args`.
"""
function call_method(obj::ObjectRef, name::Symbol, args...)
    ti = type_index(obj)
    m = get(_tables(ti).methods, name, nothing)
    m === nothing && throw(FFIError("AttributeError", "$(type_key(ti)) has no method $name"))
    return m.is_static ? m.func(args...) : m.func(obj, args...)
end

"""
    construct(t, args...; kwargs...)

Create an object of type `t` (type key, index, or a registered Julia type) with its
`__ffi_init__` constructor (the reflected static method, else the `__ffi_init__` type attribute).
Keyword arguments are passed by name with TVM-FFI's keyword protocol (the `ffi.GetKwargsObject`
marker followed by name/value pairs), which auto-generated constructors accept. The result is
downcast to the most-derived registered Julia type. Keyword arguments whose value is
[`TVMFFI.OMITTED`](@ref) are not passed (the constructor uses the field's default).
"""
function construct(t, args...; kwargs...)
    init = init_function(t)
    isempty(kwargs) && return init(args...)
    given = [k => v for (k, v) in kwargs if v !== OMITTED]
    isempty(given) && return init(args...)
    packed = Any[args...]
    push!(packed, kwargs_marker())
    for (k, v) in given
        push!(packed, String(k), v)
    end
    return call_packed_vector(init, packed)
end

construct(::Type{T}, args...; kwargs...) where {T<:FFIObject} = construct(_registered_key(T), args...; kwargs...)

"""
    init_function(t) -> FFIFunction

The constructor of type `t` (type key, index, or registered Julia type) that
[`construct`](@ref) calls: the type's own static `__ffi_init__` method, else its
`__ffi_init__` type attribute. Generated packages look it up once and call it directly.
Throws [`TVMFFI.TypeError`](@ref) if the type has none.
"""
function init_function(t)
    ti = _tindex(t)
    m = get(_tables(ti).methods, :__ffi_init__, nothing)
    init = if m !== nothing && m.owner == type_key(ti)
        m.func
    else
        type_attr(ti, "__ffi_init__")
    end
    init isa FFIFunction || throw(FFIError("TypeError", "$(type_key(ti)) has no __ffi_init__ constructor"))
    return init
end

init_function(::Type{T}) where {T<:FFIObject} = init_function(_registered_key(T))

const _KWARGS_MARKER = Ref{Any}(nothing)

"""
    kwargs_marker() -> TVMFFI.Object

The `ffi.GetKwargsObject()` sentinel: in a packed argument list, the arguments after it are
`name, value` pairs (used by `__ffi_init__` constructors).
"""
function kwargs_marker()
    k = _KWARGS_MARKER[]
    if k === nothing
        k = _global_func("ffi.GetKwargsObject")()
        _KWARGS_MARKER[] = k
    end
    return k::FFIObject
end

function _registered_key(::Type{T}) where {T}
    lock(_REGISTRY_LOCK) do
        for (k, v) in _TYPE_REGISTRY
            v === T && return k
        end
        throw(ArgumentError("$T is not registered with TVMFFI.register_object_type"))
    end
end

"""
    type_attr(t, name) -> Any

The value of the type attribute column `name` (e.g. `"__ffi_init__"`, `"__ffi_repr__"`) for type
`t`, or `nothing` when the type has none.
"""
function type_attr(t, name::AbstractString)
    ti = _tindex(t)
    s = String(name)
    col = GC.@preserve s ccall(_fp_TVMFFIGetTypeAttrColumn[], Ptr{TVMFFITypeAttrColumn}, (Ptr{TVMFFIByteArray},),
        Ref(_bytearray(s)))
    col == C_NULL && return nothing
    c = unsafe_load(col)
    i = Int(ti) - Int(c.begin_index)
    (0 <= i < c.size) || return nothing
    a = unsafe_load(c.data, i + 1)
    a.type_index == kTVMFFINone && return nothing
    return _copy_any(a)
end

"""
    ancestors(t) -> Vector{String}

The type keys of the ancestors of a type (type key, index or object), root first.
"""
ancestors(t) = String[_string(i.type_key) for i in _type_chain(_tindex(t))[1:(end - 1)]]

# --- generic objects: reflected fields as properties --------------------------------------------------

"""
    getproperty(obj::TVMFFI.Object, name::Symbol)

Reads the reflected field `name` (see [`get_field`](@ref)).
"""
Base.getproperty(obj::Object, name::Symbol) = get_field(obj, name)

"""
    setproperty!(obj::TVMFFI.Object, name::Symbol, value)

Writes the writable reflected field `name` (see [`set_field!`](@ref)).
"""
Base.setproperty!(obj::Object, name::Symbol, value) = (set_field!(obj, name, value); value)

"""
    propertynames(obj::TVMFFI.Object)

The names of the object's reflected fields, inherited ones first.
"""
Base.propertynames(obj::Object, private::Bool = false) = Tuple(f.name for f in fields(type_index(obj)))
