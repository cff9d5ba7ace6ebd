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
using Test

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
using TVMFFI

files = isempty(ARGS) ? TEST_FILES : ARGS
println("TVMFFI tests on the $(runtime_name()) runtime: $(TVMFFI.loaded_library()) (ABI $(TVMFFI.abi_version())), ",
        "Julia $(VERSION)")

# Test.get_test_counts returns a tuple up to Julia 1.10 and a struct afterwards.
function counts(ts)
    c = Test.get_test_counts(ts)
    if c isa Tuple
        return (c[1] + c[5], c[2] + c[6], c[3] + c[7], c[4] + c[8])
    end
    return (c.passes + c.cumulative_passes, c.fails + c.cumulative_fails,
            c.errors + c.cumulative_errors, c.broken + c.cumulative_broken)
end

pass, fail, err, broken = try
    ts = @testset "TVMFFI ($(runtime_name()))" begin
        for f in files
            @testset "$f" begin
                include(joinpath(@__DIR__, f))
            end
        end
    end
    counts(ts)
catch e
    e isa Test.TestSetException || rethrow()
    (e.pass, e.fail, e.error, e.broken)
end

println("julia: $pass passed, $(fail + err) failed, $broken skipped")
exit(fail + err == 0 ? 0 : 1)
