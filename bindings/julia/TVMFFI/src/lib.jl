# Finding and opening libtvm_ffi.so, and the C function pointers of its ABI.
#
# The library is opened in `__init__` (never at precompile time) with RTLD_GLOBAL, so that
# extension libraries opened later (which carry `DT_NEEDED libtvm_ffi.so`) bind to this very
# runtime: one runtime per process. Every C function is called through a pointer cached in a
# `Ref` that `__init__` fills.

const _LIBNAME = "libtvm_ffi." * Libdl.dlext

# The workspace's release build, relative to this package (bindings/julia/TVMFFI/src).
const _WORKSPACE_LIB = normpath(joinpath(@__DIR__, "..", "..", "..", "..", "target", "release", _LIBNAME))

"""
    library_path() -> String

The `libtvm_ffi` that `TVMFFI` opens when it is loaded, chosen from the environment at load time:

1. `ENV["TVM_FFI_LIB"]`: the full path of a `libtvm_ffi.so` (ffihub's or Apache's);
2. `ENV["TVM_FFI_LIB_DIR"]`: a folder holding `libtvm_ffi.so`;
3. the ffihub workspace build `target/release/libtvm_ffi.so` next to this package, if it exists;
4. plain `"libtvm_ffi.so"`, found by the dynamic loader's search path.

If a `libtvm_ffi.so` is already loaded in the process (by its SONAME), that one is used instead:
there is one runtime per process. [`loaded_library`](@ref) tells which file was opened.
"""
function library_path()
    lib = get(ENV, "TVM_FFI_LIB", "")
    isempty(lib) || return lib
    dir = get(ENV, "TVM_FFI_LIB_DIR", "")
    isempty(dir) || return joinpath(dir, _LIBNAME)
    isfile(_WORKSPACE_LIB) && return _WORKSPACE_LIB
    return _LIBNAME
end

const _LIB_HANDLE = Ref{Ptr{Cvoid}}(C_NULL)
const _LIB_PATH = Ref{String}("")

"""
    loaded_library() -> String

The path of the `libtvm_ffi` this session uses (empty before the package is initialized).
"""
loaded_library() = _LIB_PATH[]

# The C functions used by the binding. `_fp_<name>[]` holds the address of `<name>`.
const _C_FUNCTIONS = (
    :TVMFFIObjectIncRef,
    :TVMFFIObjectDecRef,
    :TVMFFIAnyViewToOwnedAny,
    :TVMFFIStringFromByteArray,
    :TVMFFIBytesFromByteArray,
    :TVMFFIBigIntFromByteArray,
    :TVMFFIBigIntGetContentByteArray,
    :TVMFFIDataTypeFromString,
    :TVMFFIDataTypeToString,
    :TVMFFIErrorMoveFromRaised,
    :TVMFFIErrorSetRaised,
    :TVMFFIErrorCreate,
    :TVMFFIFunctionCreate,
    :TVMFFIFunctionCall,
    :TVMFFIFunctionGetGlobal,
    :TVMFFIFunctionSetGlobal,
    :TVMFFITensorFromDLPackVersioned,
    :TVMFFITypeKeyToIndex,
    :TVMFFIGetTypeInfo,
    :TVMFFIGetTypeAttrColumn,
    :TVMFFIGetVersion,
)

for name in _C_FUNCTIONS
    @eval const $(Symbol(:_fp_, name)) = Ref{Ptr{Cvoid}}(C_NULL)
end

function _open_library()
    # One runtime per process: reuse a libtvm_ffi that is already loaded (matched by SONAME).
    handle = Libdl.dlopen(_LIBNAME, Libdl.RTLD_NOLOAD | Libdl.RTLD_NOW | Libdl.RTLD_GLOBAL; throw_error = false)
    path = library_path()
    if handle === nothing
        handle = Libdl.dlopen(path, Libdl.RTLD_NOW | Libdl.RTLD_GLOBAL; throw_error = false)
        handle === nothing && error(
            "TVMFFI: cannot load the TVM-FFI runtime \"$path\". Set ENV[\"TVM_FFI_LIB\"] to the path " *
            "of a libtvm_ffi.so (ffihub: `cargo build --release -p ffihub-runtime` builds " *
            "target/release/libtvm_ffi.so) or ENV[\"TVM_FFI_LIB_DIR\"] to its folder.",
        )
    end
    _LIB_HANDLE[] = handle
    _LIB_PATH[] = abspath(something(Libdl.dlpath(handle), path))
    for name in _C_FUNCTIONS
        ptr = Libdl.dlsym(handle, name; throw_error = false)
        ptr === nothing && error("TVMFFI: $(_LIB_PATH[]) does not export $name (not a TVM-FFI 0.1 runtime?)")
        getfield(@__MODULE__, Symbol(:_fp_, name))[] = ptr
    end
    return nothing
end

"""
    abi_version() -> VersionNumber

The C ABI version reported by the loaded runtime (`TVMFFIGetVersion`), e.g. `v"0.1.16"`.
"""
function abi_version()
    out = Ref{NTuple{3,UInt32}}((0, 0, 0))
    ccall(_fp_TVMFFIGetVersion[], Cvoid, (Ptr{Cvoid},), out)
    major, minor, patch = out[]
    return VersionNumber(major, minor, patch)
end

"""
    load_library(path) -> Ptr{Cvoid}

Open a shared library that registers TVM-FFI global functions and types from its static
initializers (for example Apache's `libtvm_ffi_testing.so`), with `RTLD_GLOBAL`, and return its
`dlopen` handle. The library binds to the runtime this session uses. To use a library's exported
`__tvm_ffi_<name>` functions, use [`load_module`](@ref) instead.
"""
function load_library(path::AbstractString)
    _LIB_HANDLE[] == C_NULL && error("TVMFFI is not initialized")
    return Libdl.dlopen(String(path), Libdl.RTLD_NOW | Libdl.RTLD_GLOBAL)
end

"""
    load_package_libraries(package, files; env = "", dirs = String[]) -> Vector{String}

Open the shared libraries a generated package binds (with [`load_library`](@ref)) and return
their paths. Each file name in `files` is looked up, in order:

1. in the folders listed in `ENV[env]` (separated by `:`), e.g. `ENV["DEMO_LIB_DIR"]`;
2. in `dirs` (a generated package passes its own `lib/` folder);
3. among the libraries already loaded in the process (by file name or SONAME);
4. by the dynamic loader's search (`LD_LIBRARY_PATH`, the system folders).

Throws an error that lists where it looked and how to point the package at the library.
Generated packages call it from `__init__`, after `TVMFFI` has opened the runtime.
"""
function load_package_libraries(package::AbstractString, files; env::AbstractString = "",
                                 dirs = String[])
    paths = String[]
    for file in files
        path = _find_package_library(String(package), String(file), String(env), dirs)
        load_library(path)
        push!(paths, path)
    end
    return paths
end

function _find_package_library(package::String, file::String, env::String, dirs)
    tried = String[]
    folders = isempty(env) ? String[] : split(get(ENV, env, ""), ':'; keepempty = false)
    for dir in Iterators.flatten((folders, dirs))
        path = joinpath(dir, file)
        isfile(path) && return abspath(path)
        push!(tried, path)
    end
    handle = Libdl.dlopen(file, Libdl.RTLD_NOLOAD | Libdl.RTLD_NOW | Libdl.RTLD_GLOBAL; throw_error = false)
    handle === nothing || return something(Libdl.dlpath(handle), file)
    handle = Libdl.dlopen(file, Libdl.RTLD_NOW | Libdl.RTLD_GLOBAL; throw_error = false)
    handle === nothing || return something(Libdl.dlpath(handle), file)
    push!(tried, "$file on the dynamic loader's search path")
    hint = isempty(env) ? "" : "set ENV[\"$env\"] to the folder that holds it, or "
    error("$package: cannot find the library $file (looked at: $(join(tried, ", "))). To use it, " *
          hint * "add its folder to LD_LIBRARY_PATH.")
end
