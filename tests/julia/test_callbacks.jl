# Julia callbacks: Julia functions as TVM-FFI functions (arguments, results, globals), kept alive
# by the slot table while C holds them and released when the runtime drops them.
isdefined(Main, :FFITest) || include(joinpath(@__DIR__, "common.jl"))
module TestCallbacks
using Test, TVMFFI, ..FFITest
const T = TVMFFI

testing_lib()
const apply = get_global_func("testing.apply")
const echo = get_global_func("testing.echo")

@testset "callbacks as arguments" begin
    @test apply(x -> x + 1, 41) === 42
    @test apply((a, b) -> a * b, 6, 7) === 42
    @test apply(() -> "no args") == "no args"
    @test apply(string, "a", 1, 2.5) == "a12.5"
    counter = Ref(0)
    bump = () -> (counter[] += 1; nothing)
    for _ in 1:10
        apply(bump)
    end
    @test counter[] == 10
end

@testset "arguments and results of every kind" begin
    @test apply(identity, nothing) === nothing
    @test apply(identity, "a string longer than seven") == "a string longer than seven"
    @test apply(identity, UInt8[1, 2, 3]) == UInt8[1, 2, 3]
    @test apply(identity, DLDevice(:cuda, 2)) === DLDevice(:cuda, 2)
    @test apply(() -> Any[1, "two"]) == Any[1, "two"]
    @test apply(() -> Dict("k" => 1))["k"] == 1
    p = T.construct("testing.TestIntPair", 1, 2)
    q = apply(x -> x, p)
    @test T.same_object(p, q)
    @test apply(x -> x.a + x.b, p) === 3
    @test apply(a -> length(a), FFIArray([1, 2, 3])) === 3
    @test apply(m -> m["x"], FFIMap(Dict("x" => "y"))) == "y"
    # a callback that returns a callback
    make_adder = n -> (x -> x + n)
    adder = apply(make_adder, 10)
    @test adder isa FFIFunction
    @test adder(5) === 15
    @test apply(adder, 1) === 11
end

@testset "FFIFunction(f) and calling it directly" begin
    f = FFIFunction((x, y) -> x - y)
    @test f(10, 3) === 7
    @test echo(f)(1, 1) === 0
    struct Callable
        k::Int
    end
    (c::Callable)(x) = c.k * x
    h = FFIFunction(Callable(3))
    @test h(5) === 15
    @test FFIFunction(h) === h
end

@testset "register_global_func" begin
    name = "julia_test.add"
    fn = register_global_func(name, (a, b) -> a + b)
    @test fn isa FFIFunction
    @test get_global_func(name)(2, 3) === 5
    @test name in T.list_global_func_names()
    @test_throws FFIError register_global_func(name, (a, b) -> a - b)
    register_global_func(name, (a, b) -> a - b; override = true)
    @test get_global_func(name)(2, 3) === -1
    # C code finds it too (testing.apply calls a function it received; here by name through C)
    @test apply(get_global_func(name), 10, 4) === 6
    @test T.remove_global_func(name) === true
    @test get_global_func(name; allow_missing = true) === nothing
end

@testset "the runtime keeps registered callbacks alive" begin
    name = "julia_test.closure"
    let state = Dict("hits" => 0)
        register_global_func(name, () -> (state["hits"] += 1; state["hits"]))
    end
    for _ in 1:3
        GC.gc()
    end
    T.sweep_keepalive!()
    @test get_global_func(name)() === 1
    @test get_global_func(name)() === 2
    T.remove_global_func(name)
end

@testset "slots are released when the runtime drops the function" begin
    T.sweep_keepalive!()
    base = T.keepalive_count()
    f = FFIFunction(x -> x)
    @test T.keepalive_count() == base + 1
    held = FFIList([f])                                   # C holds a second reference
    close(f)
    T.sweep_keepalive!()
    @test T.keepalive_count() == base + 1                 # still reachable from the list
    @test held[1](7) === 7
    empty!(held)                                          # the last C reference goes away
    GC.gc()                                               # ... and the wrapper `held[1]` made
    T.sweep_keepalive!()
    @test T.keepalive_count() == base
end

@testset "callbacks inside containers and maps built by C" begin
    fs = FFIArray([x -> x + 1, x -> x * 2])
    @test fs[1](1) === 2 && fs[2](5) === 10
    m = FFIMap(Dict("f" => (s -> uppercase(s))))
    @test m["f"]("abc") == "ABC"
end

@testset "reentrancy: Julia -> C -> Julia -> C -> Julia" begin
    inner = x -> x * 10
    outer = x -> apply(inner, x) + 1
    @test apply(outer, 4) === 41
    depth(n) = n == 0 ? 0 : 1 + apply(depth, n - 1)
    @test depth(20) == 20
end

# Apache's runtime has no stack guard: there 10,000 levels overflow the native stack and the
# process crashes, so the deep case runs on ffihub's runtime only. It runs in a process of its own
# with a 2 MB stack (test_deep_reentry.jl says why): a crash there fails this test, not the suite,
# and so does a hang (its own limit of 300 s; it takes about 10).
if is_ffihub()
    @testset "re-entry 10,000 deep raises instead of crashing (own process, 2 MB stack)" begin
        project = dirname(Base.active_project())
        runtests = joinpath(@__DIR__, "runtests.jl")  # (a macro is not expanded inside ``)
        suite = `$(Base.julia_cmd()) --startup-file=no --project=$project $runtests test_deep_reentry.jl`
        out = IOBuffer()
        child = run(pipeline(ignorestatus(`sh -c 'ulimit -s 2048 && exec timeout 300 "$@"' sh $suite`),
                             stdout = out, stderr = out))
        text = String(take!(out))
        success(child) || print(text)
        @test success(child)
        @test occursin(r"^julia: [1-9][0-9]* passed, 0 failed, 0 skipped$"m, text)
    end
end

check_no_leaks(label = "callbacks") do
    for i in 1:300
        apply(x -> x + i, i)
        f = FFIFunction(() -> i)
        echo(f)()
        apply(n -> (y -> y + n), i)(1)
    end
end

end # module
