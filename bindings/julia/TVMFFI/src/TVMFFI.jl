"""
    TVMFFI

Julia support package for [TVM-FFI](https://github.com/apache/tvm-ffi) libraries, on ffihub's
runtime or Apache's (`libtvm_ffi.so`, C ABI 0.1). It uses nothing but `ccall` and Julia's
standard library, runs on Julia 1.5 and later, and is what ffihub's generated Julia packages are
built on.

- Functions: [`get_global_func`](@ref), calling an [`FFIFunction`](@ref) (`f(args...)`,
  [`call_packed`](@ref)), [`register_global_func`](@ref); any Julia function passes as a callback.
- Values convert both ways (see `src/any.jl` for the table): `nothing`, integers, `Bool`, floats,
  `String`, `Vector{UInt8}` (bytes), [`DLDataType`](@ref), [`DLDevice`](@ref), containers as lazy
  views ([`FFIArray`](@ref), [`FFIList`](@ref), [`FFIMap`](@ref), [`FFIDict`](@ref),
  [`FFIShape`](@ref)), tensors as zero-copy Julia arrays, objects as [`FFIObject`](@ref)s, errors
  as [`FFIError`](@ref)s.
- Objects: reflection ([`get_field`](@ref), [`set_field!`](@ref), [`call_method`](@ref),
  [`construct`](@ref)) and [`register_object_type`](@ref) for generated types; object types
  defined in Julia with [`@ffi_object`](@ref) and [`@ffi_method`](@ref), which every language
  reads through reflection.
- Modules: [`load_module`](@ref), [`system_lib`](@ref).

The runtime is chosen when the package is loaded: `ENV["TVM_FFI_LIB"]` (a file or a folder),
else a runtime already loaded, else the runtime artifact a release installs with the package,
else the system loader; see [`library_path`](@ref) and the repository's docs/install.md
("Finding libraries").

Memory rules: results are owned by their Julia wrappers, which release them in finalizers (or
`close`); arguments are borrowed for the call and kept alive with `GC.@preserve`; Julia callbacks
and arrays that C holds are kept alive by integer-indexed slots, released by the C object's
deleter, and the memory of a kept array cannot move or be freed (`kept.jl`); callbacks are entered
and C objects deleted through native code (`libtvmffi_julia.so`, `shim.jl`), so that no Julia
code runs on a thread Julia cannot run it on, and no deleter runs Julia code.
"""
module TVMFFI

using Libdl

export FFIObject, FFIFunction, FFIModule, FFITensor, FFIArray, FFIList, FFIMap, FFIDict, FFIShape,
    FFIError, DLDevice, DLDataType, ObjectRef,
    get_global_func, register_global_func, call_packed, load_module, system_lib,
    @ffi_object, @ffi_method

include("artifacts.jl")
include("lib.jl")
include("unwind_check.jl")
include("abi.jl")
include("error.jl")
include("object.jl")
include("keepalive.jl")
include("kept.jl")
include("any.jl")
include("function.jl")
include("shim.jl")
include("containers.jl")
include("tensor.jl")
include("typed.jl")
include("arguments.jl")
include("module.jl")
include("reflection.jl")
include("metadata.jl")
include("exports.jl")
include("extend_base.jl")
include("fieldtype.jl")
include("define.jl")
include("show.jl")
include("precompile.jl")

function __init__()
    _warn_if_exceptions_crash()
    _find_package_paths()
    _open_library()
    _open_shim()
    _find_shared_bit()
    # Nothing cached at precompile time refers to this process's runtime.
    empty!(_GLOBAL_CACHE)
    empty!(_WRAPPER_CACHE)
    empty!(_TABLES)
    _MISSING_SENTINEL[] = nothing
    _KWARGS_MARKER[] = nothing
    return nothing
end

end # module
