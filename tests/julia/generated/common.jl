# Shared helpers of the generated-package suite (tests/julia/generated). Every test file includes
# this once (through `isdefined(Main, :GenTest)`), so each file also runs on its own:
#
#     FFIHUB_LIBRARY_PATH=target/debug:.deps/apache-tvm-ffi/tvm_ffi/lib TVM_FFI_LIB=target/release \
#         scripts/julia --project=target/ffihub-tests/julia/env tests/julia/generated/test_objects.jl
module GenTest

using Test
using TVMFFI
# `Base.Docs.doc` has methods only once REPL is loaded since 1.11; scripts never load it.
import REPL
using Demo: Demo

export runtime_name, is_ffihub, settle, check_no_leaks, @test_ffihub

"""The runtime under test: "ffihub" when it has `ffihub.LiveObjectCount`, else "apache"."""
is_ffihub() = TVMFFI.live_object_count() !== nothing
runtime_name() = is_ffihub() ? "ffihub" : "apache"

"""Runs the finalizers of unreachable wrappers and frees released keep-alive slots."""
function settle()
    for _ in 1:3
        GC.gc()
    end
    TVMFFI.sweep_keepalive!()
    GC.gc()
end

"""
    check_no_leaks(workload; label)

Runs `workload()` once to warm caches, then again between two forced collections, and checks
that the runtime's live-object count (ffihub's runtime only), the demo's count of live Rust
objects and the number of Julia keep-alive slots are back where they started.
"""
function check_no_leaks(workload; label = "workload")
    workload()
    settle()
    before = (TVMFFI.live_object_count(), Demo.live_object_count(), TVMFFI.keepalive_count())
    workload()
    settle()
    after = (TVMFFI.live_object_count(), Demo.live_object_count(), TVMFFI.keepalive_count())
    @testset "no leaks: $label" begin
        if before[1] === nothing
            @test_skip after[1] == before[1]    # Apache's runtime has no live-object counter
        else
            @test after[1] == before[1]
        end
        @test after[2] == before[2]
        @test after[3] == before[3]
    end
end

"""`@test_ffihub cond`: `@test cond` on ffihub's runtime; recorded as skipped on Apache's."""
macro test_ffihub(ex)
    quote
        if is_ffihub()
            @test $(esc(ex))
        else
            @test_skip $(esc(ex))
        end
    end
end

end # module GenTest
