# TVM-FFI types of the fields and method signatures of object types defined in Julia
# (`@ffi_object`, `@ffi_method`: define.jl).
#
# A declaration is a Julia type; `_ffi_type` resolves it once into a `FieldType` tree, from which
# follow the type schema (reflection metadata), the storage in the object (Apache's rules for
# binding-defined types: 8-byte scalars, 1-byte bool, 16-byte Any for strings, bytes, optionals
# and Any, 8-byte object references for everything else), the Julia type reads return, and the
# check every write goes through (`_coerce`), whoever writes.
#
# | declaration                                   | TVM-FFI            | reads return              |
# |-----------------------------------------------|--------------------|---------------------------|
# | `Int64` (any `Integer` type), `Float64`, `Bool` | int, float, bool | `Int64`, `Float64`, `Bool` |
# | `String`, `Vector{UInt8}`                     | str, bytes         | `String`, `Vector{UInt8}` |
# | `DLDataType`, `DLDevice`                      | DataType, Device   | the same                  |
# | `Vector{T}`, `ArrayOf{T}`; `ListOf{T}`        | Array[T]; List[T]  | `FFIArray{T'}`; `FFIList{T'}` (T' what T reads as) |
# | `Dict{K,V}`, `MapOf{K,V}`; `DictOf{K,V}`      | Map[K, V]; Dict[K, V] | `FFIMap{K',V'}`; `FFIDict{K',V'}` |
# | `FFIArray`, `FFIList`, `FFIMap`, `FFIDict`    | the same of Any    | `FFIArray{Any}`...        |
# | `Union{Nothing,T}`                            | Optional[T]        | `Union{Nothing,...}`      |
# | a registered object type (or its abstract type), `FFIObject` | its type key, ffi.Object | the type |
# | `FFIFunction`, `FFIShape`, `Any`              | ffi.Function, ffi.Shape, Any | the same        |

"""
    TVMFFI.FieldType

A TVM-FFI type resolved from a Julia declaration (see `@ffi_object`): its `kind` (`:int`,
`:float`, `:bool`, `:str`, `:bytes`, `:dtype`, `:device`, `:any`, `:function`, `:shape`,
`:object`, `:array`, `:list`, `:map`, `:dict`, `:optional`), the type key of `:object` types and
the element types of containers and optionals.
"""
struct FieldType
    kind::Symbol
    key::String                  # :object only
    args::Vector{FieldType}
    index::Base.RefValue{Int32}  # :object only: the key's type index, looked up on first use
end
FieldType(kind::Symbol, args::FieldType...) = FieldType(kind, "", FieldType[args...], Ref(Int32(-1)))
_object_type(key::AbstractString) = FieldType(:object, String(key), FieldType[], Ref(Int32(-1)))

# Julia types that declare a field or parameter but are not written down literally: the object
# type being defined (so that it can refer to itself) and its abstract supertype.
struct _SelfType
    concrete::Any
    abstract::Any
    key::String
end
const _NO_SELF = _SelfType(nothing, nothing, "")

const _SCALARS = Dict{Any,Symbol}(Int64 => :int, Float64 => :float, Bool => :bool, String => :str,
    Vector{UInt8} => :bytes, DLDataType => :dtype, DLDevice => :device, Any => :any,
    FFIFunction => :function, FFIShape => :shape)
const _ANY_CONTAINERS = Dict{Any,Symbol}(FFIArray => :array, FFIList => :list, FFIMap => :map, FFIDict => :dict)

@noinline _unsupported_type(@nospecialize(T), what) = throw(ArgumentError(
    "$what: the Julia type $T has no TVM-FFI equivalent; use Int64, Float64, Bool, String, " *
    "Vector{UInt8} (bytes), Vector{T} or TVMFFI.ArrayOf{T}, TVMFFI.ListOf{T}, Dict{K,V} or TVMFFI.MapOf{K,V}, " *
    "TVMFFI.DictOf{K,V}, Union{Nothing,T}, DLDataType, DLDevice, FFIFunction, FFIShape, Any, or a registered " *
    "object type"))

"""
    TVMFFI._ffi_type(T, what; self) -> FieldType

The TVM-FFI type a field or parameter declared as the Julia type `T` has (see the table at the
top of fieldtype.jl); `what` names the declaration in errors.
"""
function _ffi_type(@nospecialize(T), what::AbstractString; self::_SelfType = _NO_SELF)
    kind = get(_SCALARS, T, nothing)
    kind === nothing || return FieldType(kind)
    kind = get(_ANY_CONTAINERS, T, nothing)
    any = FieldType(:any)
    kind === nothing || return kind in (:array, :list) ? FieldType(kind, any) : FieldType(kind, any, any)
    T isa Type || _unsupported_type(T, what)
    if T isa Union
        (T.a === Nothing || T.b === Nothing) || _unsupported_type(T, what)
        return FieldType(:optional, _ffi_type(T.a === Nothing ? T.b : T.a, what; self = self))
    end
    T isa DataType || _unsupported_type(T, what)
    sub(X) = _ffi_type(X, what; self = self)
    T <: Integer && T !== Bool && T !== BigInt && return FieldType(:int)
    T <: AbstractFloat && return FieldType(:float)
    T <: ArrayOf && return FieldType(:array, sub(T.parameters[1]))
    T <: ListOf && return FieldType(:list, sub(T.parameters[1]))
    T <: MapOf && return FieldType(:map, sub(T.parameters[1]), sub(T.parameters[2]))
    T <: DictOf && return FieldType(:dict, sub(T.parameters[1]), sub(T.parameters[2]))
    T <: Vector && return FieldType(:array, sub(T.parameters[1]))
    T <: Dict && return FieldType(:map, sub(T.parameters[1]), sub(T.parameters[2]))
    (T === self.concrete || T === self.abstract) && return _object_type(self.key)
    T === FFIObject && return _object_type("ffi.Object")
    if T <: FFIObject
        key = _object_key(T)
        key === nothing || return _object_type(key)
    end
    _unsupported_type(T, what)
end

# The type key of a registered Julia object type, or of the abstract type a registered type (and
# its subtypes) derive from, as generated and defined types do (`Point <: AbstractPoint`).
function _object_key(@nospecialize(T))
    lock(_REGISTRY_LOCK) do
        for (key, R) in _TYPE_REGISTRY
            R === T && return key
        end
        isabstracttype(T) || return nothing
        for (key, R) in _TYPE_REGISTRY
            supertype(R) === T && return key
        end
        return nothing
    end
end

# --- type schema ------------------------------------------------------------------------------------

const _SCHEMA_ORIGIN = Dict(:int => "int", :float => "float", :bool => "bool", :str => "ffi.String",
    :bytes => "ffi.Bytes", :dtype => "DataType", :device => "Device", :any => "Any",
    :function => "ffi.Function", :shape => "ffi.Shape", :array => "ffi.Array", :list => "ffi.List",
    :map => "ffi.Map", :dict => "ffi.Dict", :optional => "Optional")

_origin(t::FieldType) = t.kind === :object ? t.key : _SCHEMA_ORIGIN[t.kind]

"""
    TVMFFI.schema_json(t::FieldType) -> String

The type schema of `t` in TVM-FFI's JSON form (`{"type":"ffi.Array","args":[{"type":"int"}]}`),
as C++ registrations write it into reflection metadata.
"""
function schema_json(t::FieldType)
    isempty(t.args) && return "{\"type\":" * _json_quote(_origin(t)) * "}"
    return "{\"type\":" * _json_quote(_origin(t)) * ",\"args\":[" * join(map(schema_json, t.args), ",") * "]}"
end

# A function schema: `{"type":"ffi.Function","named_args":{"return":[R],"params":[P...]}}`.
_function_schema_json(ret::FieldType, params::Vector{FieldType}) =
    "{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[" * schema_json(ret) * "],\"params\":[" *
    join(map(schema_json, params), ",") * "]}}"

# Reflection metadata holding a type schema: `{"type_schema":"<schema JSON as a string>"}`.
_schema_metadata(schema::String) = "{\"type_schema\":" * _json_quote(schema) * "}"

# A JSON string literal.
function _json_quote(s::AbstractString)
    io = IOBuffer()
    print(io, '"')
    for c in s
        if c == '"' || c == '\\'
            print(io, '\\', c)
        elseif c < ' '
            print(io, "\\u", string(UInt16(c), base = 16, pad = 4))
        else
            print(io, c)
        end
    end
    print(io, '"')
    return String(take!(io))
end

"""
    TVMFFI.type_text(t::FieldType) -> String

`t` as error messages spell it: `int`, `str`, `Array[float]`, `Optional[myapp.Node]`.
"""
function type_text(t::FieldType)
    t.kind === :object && return t.key
    name = t.kind === :optional ? "Optional" : t.kind === :str ? "str" : t.kind === :bytes ? "bytes" :
           replace(_SCHEMA_ORIGIN[t.kind], "ffi." => "")
    isempty(t.args) && return name
    return name * "[" * join(map(type_text, t.args), ", ") * "]"
end

# --- storage ----------------------------------------------------------------------------------------

"""
    TVMFFI.field_layout(t::FieldType) -> (size, alignment, static_type_index)

How a field of type `t` is stored in objects of a type defined by a binding, as the runtime's
generic getters, setters and deleter expect it (`ffi.MakeFieldGetter` takes the static type
index): scalars as their C type, strings, bytes, optionals and Any as an owned 16-byte Any,
every other object type as one 8-byte reference.
"""
function field_layout(t::FieldType)
    k = t.kind
    k === :int && return (8, 8, kTVMFFIInt)
    k === :float && return (8, 8, kTVMFFIFloat)
    k === :bool && return (1, 1, kTVMFFIBool)
    k === :dtype && return (4, 2, kTVMFFIDataType)
    k === :device && return (8, 4, kTVMFFIDevice)
    k in (:str, :bytes, :optional, :any) && return (16, 8, kTVMFFIAny)
    return (8, 8, kTVMFFIObject)
end

# Whether a default of this type must be made anew for every object (mutable containers).
_needs_factory(t::FieldType) = t.kind in (:list, :dict)

# --- reads ----------------------------------------------------------------------------------------

"""
    TVMFFI.field_read_type(T::Type) -> Type

The Julia type that reading a field declared as `T` returns (containers are lazy views of the
element types read: `Vector{Int}` and `ArrayOf{Int}` read as `FFIArray{Int64}`, `FFIArray` as
`FFIArray{Any}`).
"""
field_read_type(::Type{T}) where {T} = T
# An object of a type deriving from `T` reads as its own Julia type, a subtype of `T`'s
# abstract type (`Point <: AbstractPoint`), not of `T`.
field_read_type(::Type{T}) where {T<:FFIObject} = isconcretetype(T) && supertype(T) !== FFIObject ? supertype(T) : T
field_read_type(::Type{T}) where {T<:Integer} = Int64
field_read_type(::Type{Bool}) = Bool
field_read_type(::Type{T}) where {T<:AbstractFloat} = Float64
field_read_type(::Type{Vector{UInt8}}) = Vector{UInt8}
field_read_type(::Type{<:Union{Vector{T},ArrayOf{T}}}) where {T} = FFIArray{field_read_type(T)}
field_read_type(::Type{ListOf{T}}) where {T} = FFIList{field_read_type(T)}
field_read_type(::Type{<:Union{Dict{K,V},MapOf{K,V}}}) where {K,V} = FFIMap{field_read_type(K),field_read_type(V)}
field_read_type(::Type{DictOf{K,V}}) where {K,V} = FFIDict{field_read_type(K),field_read_type(V)}
field_read_type(::Type{FFIArray}) = FFIArray{Any}
field_read_type(::Type{FFIList}) = FFIList{Any}
field_read_type(::Type{FFIMap}) = FFIMap{Any,Any}
field_read_type(::Type{FFIDict}) = FFIDict{Any,Any}
field_read_type(::Type{Union{Nothing,T}}) where {T} = Union{Nothing,field_read_type(T)}
# `Any` and `Nothing` are `Union{Nothing,T}` too (T = Any, T = Union{}): not recursed into.
field_read_type(::Type{Any}) = Any
field_read_type(::Type{Nothing}) = Nothing

"""
    TVMFFI.field_value(T::Type, x)

`x` prepared to be written to a field declared as `T` (as [`to_ffi`](@ref) prepares arguments:
Julia vectors and dicts become `ffi.Array`s and `ffi.Map`s element by element).
"""
field_value(::Type{T}, x) where {T} = to_ffi(_description(T), x)

# The `to_ffi` description of a declaration (`Vector{T}` is `ArrayOf{T}`, ...).
_description(::Type{T}) where {T} = T
_description(::Type{T}) where {T<:Integer} = T === Bool ? Bool : Int64
_description(::Type{T}) where {T<:AbstractFloat} = Float64
_description(::Type{Vector{UInt8}}) = Vector{UInt8}
_description(::Type{Vector{T}}) where {T} = ArrayOf{_description(T)}
_description(::Type{Dict{K,V}}) where {K,V} = MapOf{_description(K),_description(V)}
_description(::Type{ArrayOf{T}}) where {T} = ArrayOf{_description(T)}
_description(::Type{ListOf{T}}) where {T} = ListOf{_description(T)}
_description(::Type{MapOf{K,V}}) where {K,V} = MapOf{_description(K),_description(V)}
_description(::Type{DictOf{K,V}}) where {K,V} = DictOf{_description(K),_description(V)}
_description(::Type{Union{Nothing,T}}) where {T} = Union{Nothing,_description(T)}
_description(::Type{Any}) = Any
_description(::Type{Nothing}) = Nothing

# --- writes: the check every value stored in a field goes through -------------------------------------

struct _Mismatch <: Exception end

# The value to store for `x` (a Julia value as `_copy_any` reads it) in a field of type `t`:
# `x` itself when it already has the type, a converted value when TVM-FFI converts it (an int
# into a float field, a container whose elements convert), or `_Mismatch()` thrown.
function _coerce(t::FieldType, @nospecialize(x))
    k = t.kind
    if k === :any
        return x
    elseif k === :int
        (x isa Integer && typemin(Int64) <= x <= typemax(Int64)) || throw(_Mismatch())
        return x isa Int64 ? x : Int64(x)
    elseif k === :float
        (x isa Real && !(x isa BigInt)) || throw(_Mismatch())
        return x isa Float64 ? x : Float64(x)
    elseif k === :bool
        x isa Bool && return x
        x isa Integer || throw(_Mismatch())
        return x != 0
    elseif k === :optional
        return x === nothing ? nothing : _coerce(t.args[1], x)
    elseif k === :array || k === :list
        x isa (k === :array ? FFIArray : FFIList) || throw(_Mismatch())
        elements = collect(x)
        items = Any[_coerce(t.args[1], e) for e in elements]
        all(i -> items[i] === elements[i], eachindex(items)) && return x
        return _SeqArg(k === :list, items)
    elseif k === :map || k === :dict
        x isa (k === :map ? FFIMap : FFIDict) || throw(_Mismatch())
        kv = Any[]
        same = true
        for (key, v) in x
            ck, cv = _coerce(t.args[1], key), _coerce(t.args[2], v)
            same &= ck === key && cv === v
            push!(kv, ck, cv)
        end
        return same ? x : _MapArg(k === :dict, kv)
    elseif k === :object
        (x isa ObjectRef && _derives_from(type_index(x), t)) || throw(_Mismatch())
        return x
    end
    x isa _KIND_VALUE[k] || throw(_Mismatch())
    return x
end

const _KIND_VALUE = Dict{Symbol,Type}(:str => String, :bytes => Vector{UInt8}, :dtype => DLDataType,
    :device => DLDevice, :function => FFIFunction, :shape => FFIShape)

# Whether type index `ti` is the object type `t` or derives from it.
function _derives_from(ti::Int32, t::FieldType)
    t.key == "ffi.Object" && return true
    want = t.index[]
    if want < 0
        want = type_index(t.key)
        t.index[] = want
    end
    ti == want && return true
    info = unsafe_load(_type_info_ptr(ti))
    for d in 1:info.type_depth
        unsafe_load(unsafe_load(info.type_ancestors, d)).type_index == want && return true
    end
    return false
end

# What a Julia value is in TVM-FFI's words, for errors.
_value_text(::Nothing) = "None"
_value_text(::Bool) = "bool"
_value_text(::Integer) = "int"
_value_text(::AbstractFloat) = "float"
_value_text(::AbstractString) = "str"
_value_text(::Vector{UInt8}) = "bytes"
_value_text(x::ObjectRef) = isopen(x) ? type_key(x) : "a closed $(typeof(x))"
_value_text(::AbstractArray) = "ffi.Tensor"     # a numeric Julia array passes as a tensor
_value_text(@nospecialize(x)) = string(typeof(x))

"""
    TVMFFI.coerce_value(t::FieldType, x, what)

The value to store for `x` in a field of type `t` (see `_coerce`); throws a
[`TVMFFI.TypeError`](@ref) naming `what` (the field) and both types when `x` does not have the
type.
"""
function coerce_value(t::FieldType, @nospecialize(x), what::AbstractString)
    try
        return _coerce(t, x)
    catch e
        e isa _Mismatch || rethrow()
        throw(FFIError("TypeError", "$what expects $(type_text(t)), got $(_value_text(x))$(_element_hint(t, x))"))
    end
end

# For a container of the right kind whose elements do not convert: which element.
function _element_hint(t::FieldType, @nospecialize(x))
    if t.kind in (:array, :list) && x isa Union{FFIArray,FFIList}
        for (i, e) in enumerate(x)
            try
                _coerce(t.args[1], e)
            catch err
                err isa _Mismatch || rethrow()
                return " (element $(i - 1) is $(_value_text(e)))"
            end
        end
    end
    return ""
end
