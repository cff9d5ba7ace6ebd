# Finding and opening libtvm_ffi.so, and the C function pointers of its ABI.
#
# The library is opened in `__init__` (never at precompile time) with RTLD_GLOBAL, so that
# extension libraries opened later (which carry `DT_NEEDED libtvm_ffi.so`) bind to this very
# runtime: one runtime per process. Every C function is called through a pointer cached in a
# `Ref` that `__init__` fills.

const _LIBNAME = "libtvm_ffi." * Libdl.dlext

# This package's folder (its Artifacts.toml, when released with one, binds the runtime), found in
# __init__: `@__DIR__` would be the folder the package was precompiled in, and package images can
# be moved with their depot (1.11+).
const _PACKAGE_ROOT = Ref{String}("")
_package_root() = _PACKAGE_ROOT[]
_find_package_paths() = (_PACKAGE_ROOT[] = something(pkgdir(@__MODULE__), normpath(joinpath(@__DIR__, ".."))))

# The workspace's release build, relative to this package (bindings/julia/TVMFFI): the runtime
# "next to the package" when TVMFFI is used from a checkout.
_workspace_lib() = normpath(joinpath(_package_root(), "..", "..", "..", "target", "release", _LIBNAME))

"""
    library_path() -> Union{Pair{String,String},Nothing}

The `libtvm_ffi` named by the environment (docs/install.md, "Finding libraries"), as
`variable => file`: `ENV["TVM_FFI_LIB"]` (a `libtvm_ffi.so`, or a folder holding one), else
`ENV["TVM_FFI_LIB_DIR"]` (a folder). `nothing` when neither is set; then `TVMFFI` uses, in order,
a runtime already loaded in the process, the runtime of its `TVMFFI` artifact (when its
`Artifacts.toml` binds one for this platform: a registered release installed with `Pkg.add`), the
checkout's `target/release/libtvm_ffi.so` (when this package lives in an ffihub checkout), and
the system loader (`LD_LIBRARY_PATH`, ld.so.cache). [`loaded_library`](@ref) tells which file
was opened.
"""
function library_path()
    for var in ("TVM_FFI_LIB", "TVM_FFI_LIB_DIR")
        value = get(ENV, var, "")
        isempty(value) && continue
        file = var == "TVM_FFI_LIB_DIR" || isdir(value) ? joinpath(value, _LIBNAME) : value
        return var => abspath(file)
    end
    return nothing
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
    :TVMFFITypeGetOrAllocIndex,
    :TVMFFITypeRegisterField,
    :TVMFFITypeRegisterMethod,
    :TVMFFITypeRegisterMetadata,
    :TVMFFIGetVersion,
)

for name in _C_FUNCTIONS
    @eval const $(Symbol(:_fp_, name)) = Ref{Ptr{Cvoid}}(C_NULL)
end

# `Libdl.dlopen`, returning the handle or the loader's reason (the last line of its message).
function _dlopen(file::AbstractString, flags)
    try
        return Libdl.dlopen(file, flags)
    catch e
        e isa ErrorException || rethrow()
        return String(last(split(e.msg, '\n')))
    end
end

# Apache's runtime installs a SIGSEGV handler (a backtrace printer) when it is loaded. Julia needs
# its own: with several threads, garbage collection stops them at safepoints by a protected page
# that faults. So Julia's handler is put back after the runtime is opened (Linux; `struct
# sigaction` fits in the buffer on every Linux ABI).
const _SIGSEGV = 11
function _keeping_sigsegv_handler(open::F) where {F}
    Sys.islinux() || return open()
    saved = zeros(UInt8, 512)
    ccall(:sigaction, Cint, (Cint, Ptr{Cvoid}, Ptr{UInt8}), _SIGSEGV, C_NULL, saved) == 0 || return open()
    try
        return open()
    finally
        ccall(:sigaction, Cint, (Cint, Ptr{UInt8}, Ptr{Cvoid}), _SIGSEGV, saved, C_NULL)
    end
end

_open_library() = _keeping_sigsegv_handler(_open_library_now)

function _open_library_now()
    flags = Libdl.RTLD_NOW | Libdl.RTLD_GLOBAL
    given = library_path()
    handle = nothing
    if given !== nothing
        var, file = given
        handle = _dlopen(file, flags)
        handle isa String && error("TVMFFI: cannot load the TVM-FFI runtime $file given by $var: $handle. ",
                                   "Point $var at a libtvm_ffi.so (or a folder holding one), or unset it.")
    else
        tried = ["TVM_FFI_LIB (unset)"]
        # One runtime per process: reuse a libtvm_ffi that is already loaded (matched by SONAME).
        handle = Libdl.dlopen(_LIBNAME, Libdl.RTLD_NOLOAD | flags; throw_error = false)
        if handle === nothing
            push!(tried, "a runtime loaded in the process (none)")
            artifact, why = artifact_library(_package_root(), "TVMFFI", _LIBNAME)
            why === nothing || push!(tried, why)
            for file in (artifact, _workspace_lib(), _LIBNAME)
                file === nothing && continue
                if file == _workspace_lib() && !isfile(file)
                    push!(tried, "$file (no such file)")
                    continue
                end
                handle = _dlopen(file, flags)
                handle isa String || break
                push!(tried, (file == _LIBNAME ? "the system loader" : file) * " ($handle)")
            end
        end
        handle isa String && error(
            "TVMFFI: cannot load the TVM-FFI runtime ($_LIBNAME): tried $(join(tried, ", ")); set ",
            "ENV[\"TVM_FFI_LIB\"] to a libtvm_ffi.so or its folder (ffihub's: target/release after ",
            "`cargo build --release -p ffihub-runtime`; Apache's: tvm_ffi/lib of its wheel), or add its folder ",
            "to LD_LIBRARY_PATH.")
    end
    _LIB_HANDLE[] = handle
    _LIB_PATH[] = abspath(something(Libdl.dlpath(handle), _LIBNAME))
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

An error the library raises while it loads is thrown (an extension already loaded from another
path raises one naming both paths).
"""
function load_library(path::AbstractString)
    _LIB_HANDLE[] == C_NULL && error("TVMFFI is not initialized")
    _raised_error_if_any()  # one raised earlier is no longer anyone's
    handle = _keeping_sigsegv_handler(() -> Libdl.dlopen(String(path), Libdl.RTLD_NOW | Libdl.RTLD_GLOBAL))
    err = _raised_error_if_any()
    err === nothing || throw(err)
    return handle
end

"""
    load_package_libraries(package, files; dirs = String[], artifacts = nothing) -> Vector{String}

Open the shared libraries a generated package binds (with [`load_library`](@ref)) and return
their paths. Each file name in `files` is looked up (docs/install.md, "Finding libraries"):

1. in `dirs` (a generated package passes its own `lib/` folder);
2. in the `lib/` folder of the artifact named `package` that the `Artifacts.toml` in the folder
   `artifacts` binds for this platform (a generated package passes its own folder; see
   [`bind_library_artifact`](@ref)), when there is such a file;
3. in each folder of `ENV["FFIHUB_LIBRARY_PATH"]` (separated by `:`), in order;
4. by the system loader, by bare name (a library already loaded, `LD_LIBRARY_PATH`, ld.so.cache).

A file that exists but fails to open is an error at once. When the library is found nowhere, the
error names every place tried and why it failed, and what to set. Generated packages call it from
`__init__`, after `TVMFFI` has opened the runtime.
"""
function load_package_libraries(package::AbstractString, files; dirs = String[],
                                artifacts::Union{Nothing,AbstractString} = nothing)
    paths = String[]
    for file in files
        path = _find_package_library(String(package), String(file), dirs, artifacts)
        load_library(path)
        push!(paths, path)
    end
    return paths
end

function _find_package_library(package::String, file::String, dirs, artifacts)
    tried = String[]
    for dir in dirs
        path = abspath(joinpath(dir, file))
        isfile(path) && return path
        push!(tried, "$path (no such file)")
    end
    if artifacts !== nothing
        path, why = artifact_library(artifacts, package, file)
        path === nothing || return path
        why === nothing || push!(tried, why)
    end
    search = split(get(ENV, "FFIHUB_LIBRARY_PATH", ""), ':'; keepempty = false)
    for dir in search
        path = abspath(joinpath(dir, file))
        isfile(path) && return path
        push!(tried, "$path (no such file)")
    end
    isempty(search) && push!(tried, "FFIHUB_LIBRARY_PATH (unset)")
    handle = _dlopen(file, Libdl.RTLD_NOW | Libdl.RTLD_GLOBAL)
    handle isa String || return something(Libdl.dlpath(handle), file)
    push!(tried, "the system loader ($handle)")
    home = isempty(dirs) ? "" : " ($(abspath(first(dirs))))"
    error("$package: cannot load $file: tried $(join(tried, ", ")); put the library next to the package$home, ",
          "add its folder to ENV[\"FFIHUB_LIBRARY_PATH\"], or pass its path to TVMFFI.load_library.")
end
