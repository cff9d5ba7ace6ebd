# Helpers of the Julia test suite of the support package (tests/julia), on the harness both
# suites share (harness.jl). Every test file includes this once (through
# `isdefined(Main, :FFITest)`), so each file also runs on its own:
#
#     TVM_FFI_LIB=target/release/libtvm_ffi.so \
#         scripts/julia --project=bindings/julia/TVMFFI tests/julia/test_any.jl
isdefined(Main, :SuiteHarness) || include(joinpath(@__DIR__, "harness.jl"))

module FFITest

using Test
using TVMFFI
using ..SuiteHarness
const T = TVMFFI

export T, testing_lib, runtime_name, is_ffihub, settle, check_no_leaks, gc_stress, compile_kernel,
       kernels, REPO_ROOT, @test_ffihub

const REPO_ROOT = normpath(joinpath(@__DIR__, "..", ".."))

"""
Apache's `libtvm_ffi_testing.so` (from the wheel): `ENV["TVM_FFI_TESTING_LIB"]`, else
`\$APACHE_TVM_FFI_DIR/lib/`, else `.deps/apache-tvm-ffi/tvm_ffi/lib/` (scripts/setup-apache.sh).
It is loaded into the process once, with RTLD_GLOBAL, and binds to the runtime under test.
"""
function testing_lib()
    path = get(ENV, "TVM_FFI_TESTING_LIB", "")
    if isempty(path)
        root = get(ENV, "APACHE_TVM_FFI_DIR", joinpath(REPO_ROOT, ".deps", "apache-tvm-ffi", "tvm_ffi"))
        path = joinpath(root, "lib", "libtvm_ffi_testing.so")
    end
    isfile(path) || error("Apache's libtvm_ffi_testing.so is not at $path: run scripts/setup-apache.sh " *
                          "or set TVM_FFI_TESTING_LIB")
    if !_TESTING_LOADED[]
        T.load_library(path)
        _TESTING_LOADED[] = true
    end
    return path
end
const _TESTING_LOADED = Ref(false)

"""
    compile_kernel(source) -> String

Compile a C source file (against the checked-in TVM-FFI headers, runtime/include) into a shared
library in a temporary folder and return its path. Its `TVMFFI*` symbols stay undefined and bind
to the runtime already loaded in the process.
"""
function compile_kernel(source::AbstractString)
    dir = mktempdir()
    lib = joinpath(dir, splitext(basename(source))[1] * ".so")
    inc = joinpath(REPO_ROOT, "runtime", "include")
    run(`gcc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -I$inc $source -o $lib`)
    return lib
end

"""
    kernels() -> FFIModule

tests/julia/kernels.c, compiled once per process and loaded with `TVMFFI.load_module`.
"""
function kernels()
    if _KERNELS[] === nothing
        _KERNELS[] = T.load_module(compile_kernel(joinpath(@__DIR__, "kernels.c")))
    end
    return _KERNELS[]::FFIModule
end
const _KERNELS = Ref{Any}(nothing)

end # module FFITest
