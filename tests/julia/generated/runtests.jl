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
using Test

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
using TVMFFI

files = isempty(ARGS) ? TEST_FILES : ARGS
println("Generated packages on the $(runtime_name()) runtime: $(TVMFFI.loaded_library()) ",
        "(ABI $(TVMFFI.abi_version())), Julia $(VERSION)")

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
    ts = @testset "generated packages ($(runtime_name()))" begin
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
