# Object types defined in Julia: `@ffi_object` and `@ffi_method`.
#
# A type defined here is a TVM-FFI type like one registered in C++: its type key has an index in
# the runtime's registry, its fields are reflected (name, type schema, offset, the runtime's
# generic getter, a setter that checks and converts the value, default), its objects live in
# runtime memory (allocated by the runtime's `__ffi_new__` / `__ffi_init__` for types defined
# field by field, `ffi._PyClassRegisterTypeAttrColumns`), and its methods are reflected
# functions. C++, Rust, Python and Node read and write such objects through reflection; printing,
# structural equality and hashing, JSON graphs and deep copies work on them as on any type.
# Everything used here is part of Apache's C ABI and `ffi.*` globals, so it works on both runtimes.
#
# Lifetimes: types are never unregistered, so what a type holds lives as long as the process:
# the setters' converters (`_CONVERTERS`, indexed by the context pointer the setter passes back),
# default factories and methods (Julia callbacks whose keep-alive slots the runtime's registry
# owns through their functions).

"""
    TVMFFI.ObjectSpec

What `@ffi_object` declared for a Julia type: the type key, the Julia type and its parent (a
registered object type, or `nothing` for `ffi.Object`), the own fields, whether fields are
writable (`mutable struct`), the structural equality kind, the methods added with
`@ffi_method`, and, once registered in this process, the type index and the reflected records
of the own fields. [`object_spec`](@ref) returns it.
"""
mutable struct ObjectSpec
    key::String
    type::DataType
    parent::Union{DataType,Nothing}
    fields::Vector{Any}              # _FieldSpec
    writable::Bool
    structure::Symbol
    methods::Vector{Any}             # _MethodSpec
    field_infos::Vector{FieldInfo}   # the own fields' records, filled on registration
    index::Int32                     # -1 until registered in this process
end

struct _FieldSpec
    name::Symbol
    declared::Any                    # the Julia type written in the declaration
    has_default::Bool
    default::Any
    doc::String
end

struct _MethodSpec
    name::Symbol
    f::Any                           # the Julia function called with (self, args...) / (args...)
    static::Bool
    param_names::Vector{Symbol}      # after `self`
    params::Vector{Any}              # their Julia types
    ret::Any                         # the declared return type (Any when not declared)
end

const _STRUCTURE_KINDS = Dict(:none => Int32(0), :tree => Int32(1), :var => Int32(2), :dag => Int32(3),
    :const_tree => Int32(4), :singleton => Int32(5))

"""
    TVMFFI.object_spec(T::Type) -> ObjectSpec

The declaration of a type defined with `@ffi_object`, given the type or its abstract type
(`@ffi_object` defines both methods; other types have none).
"""
function object_spec end

_has_spec(@nospecialize(T)) = T isa DataType && hasmethod(object_spec, Tuple{Type{T}})

"""
    TVMFFI.is_defined_type(T) -> Bool

Whether `T` was defined with `@ffi_object`.
"""
is_defined_type(@nospecialize(T)) = _has_spec(T) && object_spec(T).type === T

# --- the setters' converter -----------------------------------------------------------------------

struct _FieldConverter
    type::FieldType
    what::String         # "field `count` of myapp.Config", for errors
end

const _CONVERTERS = _FieldConverter[]
const _CONVERTERS_LOCK = ReentrantLock()

# The converter `ffi.MakeFieldSetter` calls for every write (int(void*, const TVMFFIAny*,
# TVMFFIAny*)): the context is the converter's index in `_CONVERTERS`. Reads the value, checks it
# against the field's type (converting where TVM-FFI converts), and returns it owned.
function _field_convert(ctx::Ptr{Cvoid}, value::Ptr{TVMFFIAny}, out::Ptr{TVMFFIAny})::Cint
    try
        c = lock(() -> _CONVERTERS[Int(UInt(ctx))], _CONVERTERS_LOCK)
        a = unsafe_load(value)
        if c.type.kind === :any
            owned = Ref(_ANY_NONE)
            _check(ccall(_fp_TVMFFIAnyViewToOwnedAny[], Cint, (Ptr{TVMFFIAny}, Ptr{TVMFFIAny}), Ref(a), owned))
            unsafe_store!(out, owned[])
        else
            y = coerce_value(c.type, _copy_any(a), c.what)
            GC.@preserve y unsafe_store!(out, _to_owned_any(y))
        end
        return Int32(0)
    catch e
        try
            _raise_julia_exception(e, catch_backtrace(), :_field_convert)
        catch
        end
        return Int32(-1)
    end
end

function _new_converter(t::FieldType, what::String)
    lock(_CONVERTERS_LOCK) do
        push!(_CONVERTERS, _FieldConverter(t, what))
        return Ptr{Cvoid}(length(_CONVERTERS))
    end
end

# --- registration -----------------------------------------------------------------------------------

# The index of a registered type key, or nothing (a lookup that allocates nothing).
function _lookup_type_index(key::String)
    ti = GC.@preserve key ccall(_fp_TVMFFITypeGetOrAllocIndex[], Int32,
        (Ptr{TVMFFIByteArray}, Int32, Int32, Int32, Int32, Int32), Ref(_bytearray(key)), -1, 0, 0, 0, -2)
    return ti < 0 ? nothing : ti
end

# The parent's type key and index, checked to be a type objects can derive from.
function _parent_of(spec::ObjectSpec)
    P = spec.parent
    P === nothing && return ("ffi.Object", kTVMFFIObject)
    if is_defined_type(P)
        define_type(P)
        pspec = object_spec(P)
        return (pspec.key, pspec.index)
    end
    key = _object_key(P)
    key === nothing && throw(ArgumentError("$(spec.key): the parent $P is not a registered object type " *
        "(derive from a type defined with @ffi_object, a generated type, or nothing for ffi.Object)"))
    return (key, type_index(key))
end

# Where the fields of a child of type `ti` start: right after the last reflected field of `ti`
# and its ancestors (C++ compilers on Linux place a derived class's members in the base's tail
# padding). Throws when `ti` has memory its reflected fields do not describe (hidden C++
# members), which objects allocated from reflection alone cannot hold.
function _child_offset(ti::Int32, key::String)
    info = unsafe_load(_type_info_ptr(ti))
    fields_ = TVMFFIFieldInfo[]
    for t in _type_chain(ti), i in 1:Int(t.num_fields)
        push!(fields_, unsafe_load(t.fields, i))
    end
    sort!(fields_; by = f -> f.offset)
    finish = _HEADER_SIZE
    for f in fields_
        f.offset - finish >= max(f.alignment, 1) && _hidden_layout(key, finish, f.offset)
        finish = max(finish, Int(f.offset + f.size))
    end
    if info.metadata != C_NULL
        total = Int(unsafe_load(info.metadata).total_size)
        total > cld(finish, 8) * 8 && _hidden_layout(key, finish, total)
    end
    return finish
end

@noinline _hidden_layout(key, from, to) = throw(ArgumentError(
    "cannot derive from $key: its objects have $(to - from) bytes (offset $from to $to) that are not " *
    "reflected fields, so a type defined from its reflection cannot lay them out"))

struct _PreparedField
    spec::_FieldSpec
    type::FieldType
    offset::Int
    default::Any                     # the converted default (a value, or a factory callable)
end

"""
    TVMFFI.define_type(T::Type) -> Int32

Register the type `T` declared with `@ffi_object` (and its parent, if that is also declared
with `@ffi_object`) in the runtime, with its fields and methods, unless it already is; returns
its type index. `@ffi_object` does this itself when it runs outside precompilation; a package
whose module is precompiled calls it for each of its types in `__init__`.

Errors name the type: a type key already registered, a field whose Julia type has no TVM-FFI
equivalent or whose name is taken, a parent that is not a registered type or whose layout
cannot be derived from (`ArgumentError`), a default of the wrong type ([`TVMFFI.TypeError`](@ref)).
They are checked before anything is registered.
"""
function define_type(::Type{T}) where {T}
    is_defined_type(T) || throw(ArgumentError("$T was not declared with @ffi_object"))
    spec = object_spec(T)
    spec.index >= 0 && return spec.index
    existing = _lookup_type_index(spec.key)
    existing === nothing || throw(ArgumentError("the type key $(spec.key) is already registered " *
        "(as $(something(registered_object_type(spec.key), "a type of another library or language"))); " *
        "type keys are global to the process: choose another one"))
    parent_key, parent_index = _parent_of(spec)
    offset = parent_key == "ffi.Object" ? _HEADER_SIZE : _child_offset(parent_index, parent_key)
    self = _SelfType(T, supertype(T), spec.key)
    prepared = _PreparedField[]
    taken = Symbol[f.name for f in fields(parent_index)]
    for f in spec.fields
        what = "field `$(f.name)` of $(spec.key)"
        f.name in taken && throw(ArgumentError("$what: the name is already a field of the type"))
        push!(taken, f.name)
        t = _ffi_type(f.declared, what; self = self)
        size, align, _ = field_layout(t)
        offset = cld(offset, align) * align
        default = f.has_default ? _prepared_default(t, f, what) : nothing
        push!(prepared, _PreparedField(f, t, offset, default))
        offset += size
    end
    total_size = max(cld(offset, 8) * 8, _HEADER_SIZE)
    # Checked: nothing below fails on input, only on a runtime error.
    depth = length(_type_chain(parent_index))
    index = GC.@preserve spec ccall(_fp_TVMFFITypeGetOrAllocIndex[], Int32,
        (Ptr{TVMFFIByteArray}, Int32, Int32, Int32, Int32, Int32), Ref(_bytearray(spec.key)), -1, depth, 0, 1, parent_index)
    register_object_type(spec.key, T)
    for p in prepared
        _register_field(index, spec, p)
    end
    _global_func("ffi._PyClassRegisterTypeAttrColumns")(index, total_size)
    GC.@preserve spec begin
        md = Ref(TVMFFITypeMetadata(TVMFFIByteArray(C_NULL, 0), C_NULL, Int32(total_size),
            _STRUCTURE_KINDS[spec.structure]))
        _check(ccall(_fp_TVMFFITypeRegisterMetadata[], Cint, (Int32, Ptr{TVMFFITypeMetadata}), index, md))
    end
    spec.index = index
    lock(() -> (_DEFINED_BY_INDEX[index] = T), _REGISTRY_LOCK)
    for m in spec.methods
        _register_method(spec, m)
    end
    clear_reflection_cache()
    append!(empty!(spec.field_infos), field_info(spec.key, Symbol[f.name for f in spec.fields]))
    return index
end

# The default of a field, converted and checked like a written value (a mutable container
# becomes a factory, so that objects do not share it).
function _prepared_default(t::FieldType, f::_FieldSpec, what::String)
    value = field_value(f.declared, f.default)
    a = _to_owned_any(value)
    try
        coerce_value(t, _copy_any(a), "the default of $what")
    finally
        _release_any(a)
    end
    _needs_factory(t) || return value
    declared, default = f.declared, f.default
    return FFIFunction(() -> field_value(declared, default))
end

function _register_field(index::Int32, spec::ObjectSpec, p::_PreparedField)
    f, t = p.spec, p.type
    size, align, static_index = field_layout(t)
    getter = Ptr{Cvoid}(reinterpret(UInt, _global_func("ffi.MakeFieldGetter")(static_index)::Int64))
    convert = @cfunction(_field_convert, Cint, (Ptr{Cvoid}, Ptr{TVMFFIAny}, Ptr{TVMFFIAny}))
    ctx = _new_converter(t, "field `$(f.name)` of $(spec.key)")
    setter = _global_func("ffi.MakeFieldSetter")(static_index, Int64(UInt(ctx)), Int64(UInt(convert)))::FFIFunction
    flags = kTVMFFIFieldFlagBitSetterIsFunctionObj
    spec.writable && (flags |= kTVMFFIFieldFlagBitMaskWritable)
    default_any, owned = _ANY_NONE, false
    if f.has_default
        flags |= kTVMFFIFieldFlagBitMaskHasDefault
        p.default isa FFIFunction && (flags |= kTVMFFIFieldFlagBitMaskDefaultFromFactory)
        default_any, owned = _arg(p.default)
    end
    name, doc, metadata = String(f.name), f.doc, _schema_metadata(schema_json(t))
    try
        GC.@preserve name doc metadata setter p begin
            info = Ref(TVMFFIFieldInfo(_bytearray(name), _bytearray(doc), _bytearray(metadata), flags,
                size, align, p.offset, getter, handle(setter), default_any, static_index))
            _check(ccall(_fp_TVMFFITypeRegisterField[], Cint, (Int32, Ptr{TVMFFIFieldInfo}), index, info))
        end
    finally
        owned && _release_any(default_any)
        close(setter)   # the registry keeps its own reference
    end
end

# --- methods ------------------------------------------------------------------------------------------

# The reflection metadata of a method (its type schema); throws for a parameter or result type
# that has no TVM-FFI equivalent.
function _method_metadata(spec::ObjectSpec, m::_MethodSpec)
    self = _SelfType(spec.type, supertype(spec.type), spec.key)
    what(i) = "parameter `$(m.param_names[i])` of $(spec.key).$(m.name)"
    params = FieldType[_ffi_type(_description_of_value_type(P), what(i); self = self) for (i, P) in enumerate(m.params)]
    m.static || pushfirst!(params, _object_type(spec.key))
    ret = _ffi_type(_description_of_value_type(m.ret), "the result of $(spec.key).$(m.name)"; self = self)
    return _schema_metadata(_function_schema_json(ret, params))
end

function _register_method(spec::ObjectSpec, m::_MethodSpec)
    metadata = _method_metadata(spec, m)
    fn = FFIFunction((args...) -> _call_defined_method(spec, m, args))
    name = String(m.name)
    flags = m.static ? kTVMFFIFieldFlagBitMaskIsStaticMethod : Int64(0)
    try
        GC.@preserve name metadata fn begin
            info = Ref(TVMFFIMethodInfo(_bytearray(name), TVMFFIByteArray(C_NULL, 0), _bytearray(metadata), flags,
                TVMFFIAny(kTVMFFIFunction, 0, UInt64(handle(fn)))))
            _check(ccall(_fp_TVMFFITypeRegisterMethod[], Cint, (Int32, Ptr{TVMFFIMethodInfo}), spec.index, info))
        end
    finally
        close(fn)   # the registry keeps its own reference, and with it the callback
    end
    clear_reflection_cache()
    return nothing
end

# The declaration (field vocabulary) of a method's Julia parameter or result type: containers
# arrive as lazy views, so `AbstractVector` is an Array of Any, `AbstractVector{T}` an Array of T.
function _description_of_value_type(@nospecialize(P))
    P === Integer && return Int64
    P in (Real, AbstractFloat) && return Float64
    P === AbstractString && return String
    P === Function && return FFIFunction
    P === AbstractVector && return FFIArray
    P === AbstractDict && return FFIMap
    P isa DataType && isabstracttype(P) && P <: AbstractVector && return Vector{eltype(P)}
    P isa DataType && isabstracttype(P) && P <: AbstractDict && return Dict{keytype(P),valtype(P)}
    return P
end

# Calls a method on behalf of a TVM-FFI caller: arguments are converted to the Julia parameter
# types (an int for a Float64, an ffi.Array for a Vector{Int}), the result to the declared type.
function _call_defined_method(spec::ObjectSpec, m::_MethodSpec, args::Tuple)
    n = length(m.params) + (m.static ? 0 : 1)
    length(args) == n || throw(FFIError("TypeError",
        "$(spec.key).$(m.name) takes $n argument$(n == 1 ? "" : "s") " *
        "($(join([m.static ? String[] : ["self"]; String.(m.param_names)], ", "))), got $(length(args))"))
    jargs = Any[args...]
    m.static || (jargs[1] = _method_argument(_abstract_of(spec.type), jargs[1], "the object of $(spec.key).$(m.name)"))
    for (i, P) in enumerate(m.params)
        j = i + (m.static ? 0 : 1)
        jargs[j] = _method_argument(P, jargs[j], "argument `$(m.param_names[i])` of $(spec.key).$(m.name)")
    end
    result = m.static ? m.f(spec.type, jargs...) : m.f(jargs...)
    return m.ret === Any ? result : field_value(_description_of_value_type(m.ret), result)
end

function _method_argument(@nospecialize(P), @nospecialize(x), what::String)
    x isa P && return x
    if x isa FFIObject
        # An object of a defined type that reached Julia as another registered type (a package
        # generated from a dump registers its own): the defining type's wrapper.
        d = _defined_wrapper(x)
        d isa P && return d
    end
    try
        P <: AbstractFloat && x isa Integer && return convert(P, x)
        P <: Union{AbstractVector,AbstractDict} && x isa Union{FFIArray,FFIList,FFIMap,FFIDict} && return convert(P, x)
    catch
    end
    throw(FFIError("TypeError", "$what expects $P, got $(_value_text(x))"))
end

"""
    TVMFFI.add_method(T, name::Symbol, f, params, param_names, ret; static = false)

Declare the Julia function `f` as the reflected method `name` of the type `T` declared with
`@ffi_object` (what `@ffi_method` does): instance methods are called as `f(self, args...)`,
static ones as `f(args...)`. `params` are the Julia types of the arguments after `self`, `ret`
the declared result type (`Any` if none); they make the method's type schema. The method is
registered now if `T` is, else when [`define_type`](@ref) registers `T`.
"""
function add_method(@nospecialize(T), name::Symbol, @nospecialize(f), params, param_names, @nospecialize(ret);
                    static::Bool = false)
    D = _defined_type_for(T)
    spec = object_spec(D)
    m = _MethodSpec(name, f, static, Symbol[param_names...], Any[params...], ret)
    _method_metadata(spec, m)   # checked before anything is recorded
    i = findfirst(x -> x.name === name, spec.methods)
    if i === nothing
        push!(spec.methods, m)
        spec.index >= 0 && _register_method(spec, m)
    else
        # Redefined (the registered function calls the generic function `f`, so it already
        # dispatches to the new Julia method).
        spec.methods[i] = m
    end
    return f
end

_abstract_of(@nospecialize(T)) = supertype(T)

# Types defined in this process, by type index (for `_defined_wrapper`).
const _DEFINED_BY_INDEX = Dict{Int32,DataType}()

# A new wrapper of `x`'s object of the nearest defined type in its type's chain (or `x`).
function _defined_wrapper(x::FFIObject)
    for info in reverse(_type_chain(type_index(x)))
        D = lock(() -> get(_DEFINED_BY_INDEX, info.type_index, nothing), _REGISTRY_LOCK)
        D === nothing || return x isa D ? x : _borrow_object(D, handle(x))
    end
    return x
end

# The defined type a method's receiver annotation names (the type or its abstract supertype).
function _defined_type_for(@nospecialize(T))
    _has_spec(T) && return object_spec(T).type
    throw(ArgumentError("@ffi_method: the receiver type $T is not a type declared with @ffi_object " *
                        "(or its abstract supertype)"))
end

# --- objects of defined types ----------------------------------------------------------------------

"""
    TVMFFI.construct_defined(T, args, kwargs)

Create an object of the defined type `T` (what `T(args...; kwargs...)` calls): positional
arguments are the fields in declaration order (inherited fields first), keywords any field by
name; fields not given take their defaults. Values are converted by their field's declaration.
"""
function construct_defined(::Type{T}, args::Tuple, kwargs) where {T}
    define_type(T)
    spec = object_spec(T)
    names = Symbol[f.name for f in fields(spec.key)]
    length(args) <= length(names) || throw(ArgumentError(
        "$T takes at most $(length(names)) positional arguments ($(join(names, ", "))), got $(length(args))"))
    given = Pair{Symbol,Any}[names[i] => args[i] for i in eachindex(args)]
    for (k, v) in kwargs
        k in names || throw(ArgumentError("$T has no field $k (fields: $(join(names, ", ")))"))
        any(p -> p.first === k, given) && throw(ArgumentError("$T: field $k given twice"))
        push!(given, k => v)
    end
    values = Any[]
    for (k, v) in given
        push!(values, String(k), _field_value_for(T, k, v))
    end
    init = init_function(spec.key)
    isempty(values) && return init()::T
    return call_packed_vector(init, Any[kwargs_marker(); values])::T
end

# `value` prepared for the field `name` of a defined type: by the declaration of whichever
# defined type in `T`'s chain declares it; fields of other parents are passed as they are.
function _field_value_for(@nospecialize(T), name::Symbol, @nospecialize(value))
    while is_defined_type(T)
        spec = object_spec(T)
        for f in spec.fields
            f.name === name && return field_value(f.declared, value)
        end
        T = spec.parent
    end
    return value
end

"""
    TVMFFI.get_inherited_field(obj, name::Symbol)

Read a field that the defined type of `obj` inherits (or throw
[`TVMFFI.AttributeError`](@ref) for an unknown name).
"""
get_inherited_field(obj::FFIObject, name::Symbol) = get_field(obj, name)

"""
    TVMFFI.set_inherited_field!(obj, name::Symbol, value)

Write a field that the defined type of `obj` inherits, converted by its declaration.
"""
set_inherited_field!(obj::FFIObject, name::Symbol, value) =
    set_field!(obj, name, _field_value_for(typeof(obj), name, value))

"""
    TVMFFI.property_names(obj) -> Tuple

The names of the reflected fields of `obj`, inherited ones first.
"""
property_names(obj::ObjectRef) = Tuple(f.name for f in fields(type_index(obj)))

"""
    TVMFFI.structural_equal(a, b) -> Bool

Whether two values are structurally equal (`ffi.StructuralEqual`: objects field by field, as
their types' structural equality kinds say).
"""
structural_equal(a, b) = _global_func("ffi.StructuralEqual")(a, b, false, false)::Bool

"""
    TVMFFI.structural_hash(x) -> Int64

The structural hash of a value (`ffi.StructuralHash`); structurally equal values have equal
hashes.
"""
structural_hash(x) = _global_func("ffi.StructuralHash")(x, false, false)::Int64

"""
    TVMFFI.shallow_copy(x::FFIObject)

A new object of the same type whose fields hold the same values (`__ffi_shallow_copy__`).
"""
function shallow_copy(x::T) where {T<:FFIObject}
    f = type_attr(type_index(x), "__ffi_shallow_copy__")
    f isa FFIFunction || throw(FFIError("TypeError", "$(type_key(x)) cannot be copied"))
    return f(x)::T
end

"""
    TVMFFI.deep_copy(x)

A copy of `x` and of every object it reaches (`ffi.DeepCopy`), sharing preserved.
"""
deep_copy(x::T) where {T} = _global_func("ffi.DeepCopy")(x)::T

# --- the macros -------------------------------------------------------------------------------------

"""
    @ffi_object "key" [option=value ...] struct Name [<: Parent]
        field::Type
        field::Type = default
        ...
    end

Define a TVM-FFI object type in Julia: `key` is registered in the runtime as a child of
`Parent` (a type defined with `@ffi_object`, a generated type, or none for `ffi.Object`), with
the fields as reflected fields, so that C++, Rust, Python and Node read and write them through
reflection, and print, compare, hash, serialize and copy its objects like any other.

The macro defines `abstract type AbstractName <: supertype(Parent)` (`TVMFFI.FFIObject` for
roots) and `mutable struct Name <: AbstractName` wrapping one reference to an object in runtime
memory (as generated types do), with:

- properties for the fields (`x.count`, typed reads; writes `x.count = 3` for a
  `mutable struct`, whose fields are writable through reflection too; a `struct`'s are
  read-only), `propertynames`;
- constructors `Name(fields...; fields...)`: positional arguments in declaration order
  (inherited fields first), keywords by name, defaults for what is not given;
- `show` through `ffi.ReprPrint`, `copy` (a shallow copy) and `deepcopy` (`ffi.DeepCopy`);
- `==` and `hash`: identity, or structural (`ffi.StructuralEqual` / `ffi.StructuralHash`) with
  `eq = :structural`.

Field types are Julia types: `Int64` (int), `Float64` (float), `Bool`, `String` (str),
`Vector{UInt8}` (bytes), `Vector{T}` (Array[T]), `Dict{K,V}` (Map[K, V]), `TVMFFI.ListOf{T}`,
`TVMFFI.DictOf{K,V}`, `Union{Nothing,T}` (Optional[T]), `DLDataType`, `DLDevice`,
`FFIFunction`, `FFIShape`, `Any`, registered object types (this one included) and
`FFIObject`. A string literal before a field is its doc. Writes are checked and converted by
the field's type whoever writes (Julia, C++ or another language): a wrong type is a
[`TVMFFI.TypeError`](@ref) naming the field.

Options: `eq = :identity | :structural`; `structure = :tree` (the structural equality kind of
the type: `:tree`, `:const_tree`, `:dag`, `:var`, `:singleton` or `:none`).

The type is registered when the macro runs; in a module that is precompiled, call
[`TVMFFI.define_type`](@ref)`(Name)` in `__init__` instead (registrations made while
precompiling do not survive). Methods: [`@ffi_method`](@ref).

```julia
@ffi_object "myapp.Config" mutable struct Config
    "the name"
    name::String
    scale::Float64 = 1.0
    tags::Vector{String} = String[]
    parent::Union{Nothing,Config} = nothing
end
c = Config("base"; tags = ["a"])
c.scale = 2          # stored as 2.0
```
"""
macro ffi_object(key, args...)
    isempty(args) && throw(ArgumentError("@ffi_object \"key\" [options] struct ... end"))
    def = args[end]
    (def isa Expr && def.head === :struct) ||
        throw(ArgumentError("@ffi_object: expected a struct definition after the type key and options"))
    options = Dict{Symbol,Any}(:eq => QuoteNode(:identity), :structure => QuoteNode(:tree))
    for o in args[1:(end - 1)]
        (o isa Expr && o.head === :(=) && o.args[1] in (:eq, :structure)) ||
            throw(ArgumentError("@ffi_object: unknown option $o (options: eq = :identity | :structural, structure = :tree | ...)"))
        options[o.args[1]] = o.args[2]
    end
    eq = options[:eq] isa QuoteNode ? options[:eq].value : nothing
    eq in (:identity, :structural) || throw(ArgumentError("@ffi_object: eq must be :identity or :structural"))
    structure = options[:structure] isa QuoteNode ? options[:structure].value : nothing
    haskey(_STRUCTURE_KINDS, structure) ||
        throw(ArgumentError("@ffi_object: structure must be one of $(join(sort!(collect(keys(_STRUCTURE_KINDS))), ", "))"))
    writable, head, body = def.args
    name, parent = head isa Expr && head.head === :<: ? (head.args[1], head.args[2]) : (head, nothing)
    name isa Symbol || throw(ArgumentError("@ffi_object: $head: parametric types cannot be TVM-FFI types"))
    fields_ = _parse_fields(name, body)
    return _object_expr(key, name, parent, fields_, writable, eq, structure)
end

# (name, declared type expression, default expression or nothing, has default, doc) per field.
function _parse_fields(name::Symbol, body::Expr)
    out = Any[]
    doc = ""
    for line in body.args
        line isa LineNumberNode && continue
        if line isa String
            doc = line
            continue
        end
        has_default = line isa Expr && line.head === :(=)
        decl = has_default ? line.args[1] : line
        (decl isa Expr && decl.head === :(::) && length(decl.args) == 2 && decl.args[1] isa Symbol) ||
            throw(ArgumentError("@ffi_object $name: `$line` is not a field declaration `name::Type` or " *
                                "`name::Type = default` (methods are defined with @ffi_method)"))
        push!(out, (decl.args[1], decl.args[2], has_default ? line.args[2] : nothing, has_default, doc))
        doc = ""
    end
    return out
end

function _object_expr(key, name::Symbol, parent, fields_, writable::Bool, eq::Symbol, structure::Symbol)
    abstract_name = Symbol("Abstract", name)
    fields_ref = gensym(Symbol(name, "_fields"))
    spec_ref = gensym(Symbol(name, "_spec"))
    supertype_expr = parent === nothing ? :($TVMFFI.FFIObject) : :($TVMFFI.object_supertype($parent))
    field_specs = [:($TVMFFI._FieldSpec($(QuoteNode(f[1])), $(f[2]), $(f[4]), $(f[3]), $(f[5]))) for f in fields_]
    reads = [:(name === $(QuoteNode(f[1])) &&
               return $TVMFFI.get_field($TVMFFI.field_read_type($(f[2])), self, $fields_ref[$i]))
             for (i, f) in enumerate(fields_)]
    writes = [:(name === $(QuoteNode(f[1])) &&
                return ($TVMFFI.set_field!(self, $fields_ref[$i], $TVMFFI.field_value($(f[2]), value)); value))
              for (i, f) in enumerate(fields_)]
    equality = eq === :structural ? quote
        Base.:(==)(a::$name, b::$name) = $TVMFFI.structural_equal(a, b)
        Base.hash(a::$name, h::UInt) = hash($TVMFFI.structural_hash(a), hash($(QuoteNode(name)), h))
    end : nothing
    return esc(quote
        abstract type $abstract_name <: $supertype_expr end
        Base.@__doc__ mutable struct $name <: $abstract_name
            handle::Ptr{Cvoid}
            $name(handle::Ptr{Cvoid}) = new(handle)
        end
        const $fields_ref = $TVMFFI.FieldInfo[]
        const $spec_ref = $TVMFFI.ObjectSpec($key, $name, $(parent === nothing ? nothing : parent),
            Any[$(field_specs...)], $writable, $(QuoteNode(structure)), Any[], $fields_ref, Int32(-1))
        $TVMFFI.object_spec(::Type{$name}) = $spec_ref
        $TVMFFI.object_spec(::Type{$abstract_name}) = $spec_ref
        @inline function Base.getproperty(self::$name, name::Symbol)
            $(reads...)
            return $TVMFFI.get_inherited_field(self, name)
        end
        function Base.setproperty!(self::$name, name::Symbol, value)
            $(writes...)
            $TVMFFI.set_inherited_field!(self, name, value)
            return value
        end
        Base.propertynames(self::$name, private::Bool = false) = $TVMFFI.property_names(self)
        $name(args...; kwargs...) = $TVMFFI.construct_defined($name, args, kwargs)
        Base.copy(x::$name) = $TVMFFI.shallow_copy(x)
        Base.deepcopy_internal(x::$name, ::IdDict) = $TVMFFI.deep_copy(x)
        $equality
        $TVMFFI._define_unless_precompiling($name)
        $name
    end)
end

"""
    TVMFFI.object_supertype(P::Type) -> Type

The abstract type that the Julia types of TVM-FFI types deriving from the registered type `P`
subtype (`AbstractP` for generated and defined types).
"""
function object_supertype(@nospecialize(P))
    (P isa DataType && P <: FFIObject && _object_key(P) !== nothing && isabstracttype(supertype(P))) ||
        throw(ArgumentError("$P is not a registered object type to derive from (a type defined with " *
                            "@ffi_object or generated by ffihub)"))
    return supertype(P)
end

_precompiling() = ccall(:jl_generating_output, Cint, ()) == 1

_define_unless_precompiling(@nospecialize(T)) = _precompiling() ? nothing : (define_type(T); nothing)

"""
    @ffi_method function name(self::T, arg::A, ...)::R
        ...
    end

Define a Julia function and make it the reflected method `name` of `T`, a type declared with
[`@ffi_object`](@ref) (or its abstract type `AbstractT`, so that types deriving from `T` have
it too): C++, Rust, Python and Node call it by name, with the object first. A first parameter
`::Type{T}` makes a static method. Argument and result types make the method's type schema
(`Int64`, `Float64`, `String`, `Vector{T}`, object types...; others are `Any`); arguments are
converted to them (an int passed for a `Float64`, an `ffi.Array` for a `Vector{T}`) and the
result from the declared type. A Julia exception reaches the caller as a TVM-FFI error of its
kind (see [`error_kind`](@ref)).

```julia
@ffi_method function scaled(self::AbstractConfig, k::Float64)::Float64
    return self.scale * k
end
```
"""
macro ffi_method(def)
    (def isa Expr && def.head in (:function, :(=))) ||
        throw(ArgumentError("@ffi_method: expected a function definition"))
    sig = def.args[1]
    ret = :Any
    if sig isa Expr && sig.head === :(::)
        sig, ret = sig.args
    end
    (sig isa Expr && sig.head === :call && sig.args[1] isa Symbol) ||
        throw(ArgumentError("@ffi_method: `$(def.args[1])` is not a plain `name(self::T, args...)` signature " *
                            "(no `where`, no keyword arguments)"))
    fname = sig.args[1]
    params = sig.args[2:end]
    any(p -> p isa Expr && p.head in (:parameters, :kw, :...), params) &&
        throw(ArgumentError("@ffi_method $fname: keyword, optional and variadic parameters cannot be reflected"))
    isempty(params) && throw(ArgumentError("@ffi_method $fname: the first parameter is the receiver, `self::T`"))
    receiver = params[1]
    (receiver isa Expr && receiver.head === :(::)) ||
        throw(ArgumentError("@ffi_method $fname: the first parameter must be annotated with its type, `self::T`"))
    rtype = receiver.args[end]
    static = rtype isa Expr && rtype.head === :curly && rtype.args[1] === :Type
    owner = static ? rtype.args[2] : rtype
    names = [p isa Symbol ? p : p.args[1] for p in params[2:end]]
    types = [p isa Symbol ? :Any : p.args[end] for p in params[2:end]]
    return esc(quote
        Base.@__doc__ $def
        $TVMFFI.add_method($owner, $(QuoteNode(fname)), $fname, Any[$(types...)],
            Symbol[$(map(QuoteNode, names)...)], $ret; static = $static)
    end)
end
