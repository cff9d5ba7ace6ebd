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
`__tvm_ffi_<name>` functions become `m["<name>"]`; the runtime keeps the library loaded.
"""
load_module(path::AbstractString) = _global_func("ffi.ModuleLoadFromFile")(String(path))::FFIModule

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
