# The harness both Julia suites share: the support package's (tests/julia, helpers in
# common.jl) and the generated packages' (tests/julia/generated, helpers in generated/common.jl).
# Each suite's common.jl includes it once (through `isdefined(Main, :SuiteHarness)`) and
# re-exports what its test files use; each runtests.jl lists its files and calls `run_suite`.
module SuiteHarness

using Test
using TVMFFI

export runtime_name, is_ffihub, settle, check_no_leaks, gc_stress, run_suite, @test_ffihub

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

# The counters a leak shows in: the runtime's live objects (ffihub's runtime only, else
# `nothing`), the Julia keep-alive slots, then the suite's own (`counts()`, a tuple).
counters(counts) = (TVMFFI.live_object_count(), TVMFFI.keepalive_count(), counts()...)

# One test per counter: equal again (the live-object count is skipped on Apache's runtime).
function test_counters_back(before, after)
    if before[1] === nothing
        @test_skip after[1] == before[1]    # Apache's runtime has no live-object counter
    else
        @test after[1] == before[1]
    end
    for i in 2:length(before)
        @test after[i] == before[i]
    end
end

"""
    check_no_leaks(workload; label, counts = () -> ())

Runs `workload()` once to warm caches, then again between two forced collections, and checks
that the runtime's live-object count (ffihub's runtime only), the number of Julia keep-alive
slots and the suite's own counters (`counts()`, a tuple) are back where they started.
"""
function check_no_leaks(workload; label = "workload", counts = () -> ())
    workload()
    settle()
    before = counters(counts)
    workload()
    settle()
    after = counters(counts)
    @testset "no leaks: $label" begin
        test_counters_back(before, after)
    end
end

"""
    gc_stress(step, title; counts = () -> (), finally_test = () -> nothing)

The GC stress test: `step(i)` (one call that creates and drops values; returns whether its
result was right) for i in 1:N, N = 1,000,000 or `TVMFFI_STRESS_CALLS`, with a full collection
every 10,000 calls. Every result must be right, and afterwards the counters of
`check_no_leaks` must be back where they started; `finally_test()` adds the suite's own tests.
"""
function gc_stress(step, title; counts = () -> (), finally_test = () -> nothing)
    calls = parse(Int, get(ENV, "TVMFFI_STRESS_CALLS", "1000000"))
    stress(n) = count(i -> (ok = step(i); i % 10_000 == 0 && GC.gc(); !ok), 1:n)
    @testset "GC stress: $calls calls$title" begin
        stress(1000)                            # warm up caches and compile
        settle()
        before = counters(counts)
        t = @elapsed wrong = stress(calls)
        @info "GC stress on $(runtime_name()): $calls calls in $(round(t, digits = 1)) s"
        @test wrong == 0
        settle()
        after = counters(counts)
        before[1] === nothing || @info "live objects: $(before[1]) before, $(after[1]) after"
        test_counters_back(before, after)
        finally_test()
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

# Test.get_test_counts returns a tuple up to Julia 1.10 and a struct afterwards.
function test_counts(ts)
    c = Test.get_test_counts(ts)
    if c isa Tuple
        return (c[1] + c[5], c[2] + c[6], c[3] + c[7], c[4] + c[8])
    end
    return (c.passes + c.cumulative_passes, c.fails + c.cumulative_fails,
            c.errors + c.cumulative_errors, c.broken + c.cumulative_broken)
end

"""
    run_suite(title, dir, files)

Runs each of `files` (in `dir`, included into `Main`) in a test set of its own, prints the
seconds each took (`julia times: a.jl 1.2 s, ...`, so a slow file shows in any log) and then
`julia: N passed, N failed, N skipped` as the last line (tests/julia/run.rs reads both) and exits
0 only if nothing failed.
"""
function run_suite(title, dir, files)
    times = String[]
    pass, fail, err, broken = try
        ts = @testset "$title ($(runtime_name()))" begin
            for f in files
                seconds = @elapsed @testset "$f" begin
                    Base.include(Main, joinpath(dir, f))
                end
                push!(times, "$f $(round(seconds, digits = 1)) s")
            end
        end
        test_counts(ts)
    catch e
        e isa Test.TestSetException || rethrow()
        (e.pass, e.fail, e.error, e.broken)
    end
    println("julia times: ", join(times, ", "))
    println("julia: $pass passed, $(fail + err) failed, $broken skipped")
    exit(fail + err == 0 ? 0 : 1)
end

end # module SuiteHarness
