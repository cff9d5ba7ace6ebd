# Modules: libraries loaded through the runtime (`ffi.ModuleLoadFromFile`), the system library.

"""
    FFIModule <: FFIObject

A TVM-FFI module (`ffi.Module`): a loaded shared library exporting `__tvm_ffi_<name>` functions,
or the system library. `m["name"]` (or [`get_function`](@ref)) looks a function up; functions
keep their module alive.
"""
mutable struct FFIModule <: FFIObject
    handle::Ptr{Cvoid}
    FFIModule(h::Ptr{Cvoid}) = new(h)
end

"""
    load_module(path) -> FFIModule

Load a shared library as a module (`ffi.ModuleLoadFromFile`). Its exported
`__tvm_ffi_<name>` functions become `m.<name>` and `m["<name>"]`; the runtime keeps the library
loaded. A kernel library needs nothing else: `load_module("vector_add.so").main(a, b, c)`.
A relative path is taken from the working folder. Throws an `FFIError` naming the path if it
is not a loadable library.
"""
function load_module(path::AbstractString)
    # A file named relative to the working folder is that file (`dlopen` would search the
    # loader's path for a bare name instead).
    file = isfile(path) ? abspath(path) : String(path)
    try
        return _global_func("ffi.ModuleLoadFromFile")(file)::FFIModule
    catch e
        # The runtime's message may not name the file (e.g. an unknown extension).
        e isa FFIError || rethrow()
        throw(FFIError(e.kind, "cannot load $(repr(String(path))) as a module: $(e.message)", e.backtrace))
    end
end

"""
    system_lib(prefix = "") -> FFIModule

The system library module (`ffi.SystemLib`): functions registered by statically linked code
with `TVMFFIEnvModRegisterSystemLibSymbol`, looked up as `"<prefix><name>"` first. One module per
prefix.
"""
system_lib(prefix::AbstractString = "") = _global_func("ffi.SystemLib")(String(prefix))::FFIModule

"""
    get_function(m::FFIModule, name; query_imports = false) -> Union{FFIFunction,Nothing}

The function `name` of the module (`ffi.ModuleGetFunction`), or `nothing`.
"""
get_function(m::FFIModule, name::AbstractString; query_imports::Bool = false) =
    _global_func("ffi.ModuleGetFunction")(m, String(name), query_imports)

"""
    getindex(m::FFIModule, name) -> FFIFunction

The function `name` of the module; throws `Base.KeyError(name)` if it has none.
"""
function Base.getindex(m::FFIModule, name::AbstractString)
    f = get_function(m, name)
    f === nothing && throw(Base.KeyError(String(name)))
    return f::FFIFunction
end

"""
    getproperty(m::FFIModule, name::Symbol) -> FFIFunction

The function `name` of the module, so that a compiled kernel library reads like a namespace:

    m = TVMFFI.load_module("vector_add.so")
    m.main(a, b, c)

Throws an `ArgumentError` naming the function if the module has none (`m["name"]` throws a
`KeyError` instead, and [`get_function`](@ref) returns `nothing`).
"""
function Base.getproperty(m::FFIModule, name::Symbol)
    f = get_function(m, String(name); query_imports = true)
    f === nothing && throw(ArgumentError("the $(module_kind(m)) module has no function `$name` " *
                                         "(a library exports function `f` as the symbol `__tvm_ffi_f`)"))
    return f::FFIFunction
end

"""
    propertynames(m::FFIModule)

Empty: a module looks its functions up by name and cannot list them (a library's exports are
the `__tvm_ffi_<name>` symbols of its dynamic symbol table; `ffihub dump --lib` lists them).
"""
Base.propertynames(::FFIModule, private::Bool = false) = ()

"""
    implements_function(m::FFIModule, name; query_imports = false) -> Bool
"""
implements_function(m::FFIModule, name::AbstractString; query_imports::Bool = false) =
    _global_func("ffi.ModuleImplementsFunction")(m, String(name), query_imports)::Bool

"""
    module_kind(m::FFIModule) -> String

The module's kind, e.g. `"library"` (`ffi.ModuleGetKind`).
"""
module_kind(m::FFIModule) = _global_func("ffi.ModuleGetKind")(m)::String

"""
    function_doc(m::FFIModule, name; query_imports = false) -> Union{String,Nothing}

The docstring a library exports for `name` (`__tvm_ffi__doc_<name>`), or `nothing`.
"""
function_doc(m::FFIModule, name::AbstractString; query_imports::Bool = false) =
    _global_func("ffi.ModuleGetFunctionDoc")(m, String(name), query_imports)

"""
    function_metadata(m::FFIModule, name; query_imports = false) -> Union{String,Nothing}

The metadata JSON a library exports for `name` (`__tvm_ffi__metadata_<name>`), or `nothing`.
"""
function_metadata(m::FFIModule, name::AbstractString; query_imports::Bool = false) =
    _global_func("ffi.ModuleGetFunctionMetadata")(m, String(name), query_imports)

"""
    import_module!(m::FFIModule, other::FFIModule) -> m

Add `other` to the imports of `m` (`ffi.ModuleImportModule`): lookups with
`query_imports = true` search it too.
"""
function import_module!(m::FFIModule, other::FFIModule)
    _global_func("ffi.ModuleImportModule")(m, other)
    return m
end
