# Module exports of generated packages: the `__tvm_ffi_<name>` functions of a package's libraries,
# reached through each library loaded once as a module.

"""
    load_package_modules!(modules, package, paths, exports; regenerate = "") -> modules

Load each library in `paths` as a module ([`load_module`](@ref)) into the empty vector `modules`
and check that it still exports what the package was generated from: `exports[i]` lists
`name => signature` pairs for `paths[i]`, the signature in the spelling of
[`schema_repr`](@ref), or `""` for an export without metadata (only its existence is checked).
Throws an `ErrorException` listing every difference and the command that regenerates the
package. Generated packages call it from `__init__`, after [`load_package_libraries`](@ref).
"""
function load_package_modules!(modules::Vector{FFIModule}, package::AbstractString, paths,
                               exports; regenerate::AbstractString = "")
    empty!(modules)
    problems = String[]
    for (path, wanted) in zip(paths, exports)
        m = load_module(path)
        push!(modules, m)
        for (name, expected) in wanted
            if !implements_function(m, name)
                push!(problems, "$(basename(path)) does not export $name (no symbol __tvm_ffi_$name)")
                continue
            end
            isempty(expected) && continue
            meta = function_metadata(m, name)
            live = meta === nothing ? "" : _metadata_signature(meta, false)
            live == expected || push!(problems,
                "export $name of $(basename(path)) is $(isempty(live) ? "untyped" : live), not $expected")
        end
    end
    isempty(problems) && return modules
    msg = "$package does not match the module exports of its libraries, " *
          "$(length(problems)) difference$(length(problems) == 1 ? "" : "s"):\n  - " *
          join(problems, "\n  - ")
    msg *= isempty(regenerate) ? "\nRegenerate the package from the current library." :
           "\nRegenerate the package: $regenerate"
    error(msg)
end

"""
    TVMFFI.module_function!(slot::FFIFunction, modules, i, name) -> FFIFunction

The export `name` of `modules[i]`, bound into the empty `slot` on first use and returned from it
afterwards (like [`global_function!`](@ref) for globals).
"""
@inline module_function!(slot::FFIFunction, modules::Vector{FFIModule}, i::Int, name::String) =
    getfield(slot, :handle) == C_NULL ? _bind_export!(slot, modules, i, name) : slot

@noinline function _bind_export!(slot::FFIFunction, modules::Vector{FFIModule}, i::Int, name::String)
    i <= length(modules) || error("TVMFFI: the package's modules are not loaded (was its __init__ run?)")
    return bind!(slot, modules[i][name])
end
