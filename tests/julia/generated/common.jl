# Helpers of the generated-package suite (tests/julia/generated), on the harness both suites share
# (../harness.jl). Every test file includes this once (through `isdefined(Main, :GenTest)`), so
# each file also runs on its own:
#
#     FFIHUB_LIBRARY_PATH=target/debug:.deps/apache-tvm-ffi/tvm_ffi/lib TVM_FFI_LIB=target/release \
#         scripts/julia --project=target/ffihub-tests/julia/env tests/julia/generated/test_objects.jl
isdefined(Main, :SuiteHarness) || include(joinpath(@__DIR__, "..", "harness.jl"))

module GenTest

using Test
using TVMFFI
# check_no_leaks and gc_stress are this suite's own (below), with the demo's counter.
using ..SuiteHarness: SuiteHarness, runtime_name, is_ffihub, settle, @test_ffihub
# `Base.Docs.doc` has methods only once REPL is loaded since 1.11; scripts never load it.
import REPL
using Demo: Demo

export runtime_name, is_ffihub, settle, check_no_leaks, gc_stress, @test_ffihub

"""The demo's count of live Rust objects, which `check_no_leaks` and `gc_stress` also check."""
demo_counts() = (Demo.live_object_count(),)

"""
    check_no_leaks(workload; label)

`SuiteHarness.check_no_leaks` with the demo's count of live Rust objects as well.
"""
check_no_leaks(workload; label = "workload") =
    SuiteHarness.check_no_leaks(workload; label = label, counts = demo_counts)

"""
    gc_stress(step, title; finally_test)

`SuiteHarness.gc_stress` with the demo's count of live Rust objects as well.
"""
gc_stress(step, title; finally_test = () -> nothing) =
    SuiteHarness.gc_stress(step, title; counts = demo_counts, finally_test = finally_test)

end # module GenTest
