# The Julia test suite of the TVMFFI support package: one file per feature, run against whichever
# runtime the environment selects (see TVMFFI.library_path):
#
#     TVM_FFI_LIB=target/release/libtvm_ffi.so \
#         scripts/julia --project=bindings/julia/TVMFFI tests/julia/runtests.jl
#     TVM_FFI_LIB=.deps/apache-tvm-ffi/tvm_ffi/lib/libtvm_ffi.so \
#         scripts/julia --project=bindings/julia/TVMFFI tests/julia/runtests.jl
#
# Arguments select files (`runtests.jl test_any.jl test_errors.jl`). The last line of the output
# is `julia: N passed, N failed, N skipped`; the exit code is 0 only if nothing failed.
# `cargo test -p ffihub-tests --test julia` runs the suite on both runtimes (tests/julia/run.rs).
const TEST_FILES = [
    "test_any.jl",
    "test_strings.jl",
    "test_containers.jl",
    "test_functions.jl",
    "test_callbacks.jl",
    "test_errors.jl",
    "test_tensors.jl",
    "test_modules.jl",
    "test_objects.jl",
    "test_gc_stress.jl",
    "test_artifacts.jl",
    "test_threads.jl",
]

include(joinpath(@__DIR__, "common.jl"))
using .FFITest
using .SuiteHarness: run_suite
using TVMFFI

println("TVMFFI tests on the $(runtime_name()) runtime: $(TVMFFI.loaded_library()) (ABI $(TVMFFI.abi_version())), ",
        "Julia $(VERSION)")
run_suite("TVMFFI", @__DIR__, isempty(ARGS) ? TEST_FILES : ARGS)
