# The Julia test suite of the packages that `ffihub generate --lang julia` makes: `Demo` (the demo
# extension, examples/demo) and `TestingLib` (Apache's libtvm_ffi_testing.so). One file per
# feature. `cargo test -p ffihub-tests --test julia` generates both packages, writes a Julia
# environment that has them (target/ffihub-tests/julia/env) and runs this file on both runtimes:
#
#     FFIHUB_LIBRARY_PATH=target/debug:.deps/apache-tvm-ffi/tvm_ffi/lib TVM_FFI_LIB=target/release \
#         scripts/julia --project=target/ffihub-tests/julia/env tests/julia/generated/runtests.jl
#
# Arguments select files (`runtests.jl test_objects.jl`). The last line of the output is
# `julia: N passed, N failed, N skipped`; the exit code is 0 only if nothing failed.
const TEST_FILES = [
    "test_loading.jl",
    "test_functions.jl",
    "test_dtype_device.jl",
    "test_containers.jl",
    "test_callbacks.jl",
    "test_errors.jl",
    "test_bad_input.jl",
    "test_protocols.jl",
    "test_type_truth.jl",
    "test_objects.jl",
    "test_testing_lib.jl",
    "test_define.jl",
    "test_base_names.jl",
    "test_tensors.jl",
    "test_zero_copy.jl",
    "test_gc_stress.jl",
]

include(joinpath(@__DIR__, "common.jl"))
using .GenTest
using .SuiteHarness: run_suite
using TVMFFI

println("Generated packages on the $(runtime_name()) runtime: $(TVMFFI.loaded_library()) ",
        "(ABI $(TVMFFI.abi_version())), Julia $(VERSION)")
run_suite("generated packages", @__DIR__, isempty(ARGS) ? TEST_FILES : ARGS)
