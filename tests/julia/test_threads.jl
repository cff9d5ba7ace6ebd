# Libraries that call back from threads of their own and keep tensors over Julia arrays
# (tests/julia/threads_lib.cc, built by tests/julia/run.rs into FFIHUB_THREADS_LIB), and every
# conversion path from tasks on several threads. Run with JULIA_NUM_THREADS=1 and =4 (run.rs).
using Test
using TVMFFI
const T = TVMFFI

const THREADS_LIB = get(ENV, "FFIHUB_THREADS_LIB", "")
isempty(THREADS_LIB) && error("FFIHUB_THREADS_LIB is not set: tests/julia/run.rs builds tests/julia/threads_lib.cc")
T.load_library(THREADS_LIB)
lib(name) = T.get_global_func("threads_lib." * name)

# Before 1.9 a call on a library thread is refused with this error; from 1.9 it runs.
const REFUSED = !(VERSION >= v"1.9")
refused(e) = e isa FFIError && e.kind == "RuntimeError" &&
             occursin("a library thread called a Julia function", e.message) &&
             occursin("Julia 1.9 and later run such calls", e.message) &&
             occursin("Call the function from a Julia thread", e.message)

@testset "library threads (Julia $VERSION, $(Threads.nthreads()) threads)" begin
    @test T.can_call_julia_here()
    ran = Threads.Atomic{Int}(0)
    f = () -> (Threads.atomic_add!(ran, 1); 42)

    @testset "call_from_thread" begin
        if REFUSED
            e = try
                lib("call_from_thread")(f)
                nothing
            catch err
                err
            end
            @test refused(e)
            @test ran[] == 0
        else
            @test lib("call_from_thread")(f) == 42
        end
    end

    @testset "call_from_threads (four library threads)" begin
        g = i -> (Threads.atomic_add!(ran, 1); i)
        if REFUSED
            e = try
                lib("call_from_threads")(g, 200)
                nothing
            catch err
                err
            end
            @test refused(e)
            @test ran[] == 0
        else
            @test lib("call_from_threads")(g, 200) == 200
        end
    end

    @testset "call_later (a detached library thread, after the call returned)" begin
        lib("call_later")(f, 20)
        result = ""
        while isempty(result)   # the library thread reports when it is done
            sleep(0.01)
            result = lib("call_later_result")()
        end
        if REFUSED
            @test startswith(result, "RuntimeError: a library thread called a Julia function")
        else
            @test result == "ok"
        end
    end

    @testset "the process lives on: callbacks on Julia threads still run" begin
        T.register_global_func("threads_test.twice", x -> 2x; override = true)
        @test T.get_global_func("threads_test.twice")(21) == 42
        @test T.FFIFunction(f)() == 42
        GC.gc()
        T.sweep_keepalive!()
    end
end

@testset "kept memory" begin
    sweep() = (GC.gc(); T.sweep_keepalive!())
    moving = [
        "resize! (grow)" => v -> resize!(v, 10_000_000),
        "resize! (shrink)" => v -> resize!(v, 10),
        "push!" => v -> push!(v, 1.0),
        "append!" => v -> append!(v, ones(1000)),
        "empty!" => v -> empty!(v),
        "sizehint!" => v -> sizehint!(v, 10_000_000),
        "pushfirst!" => v -> pushfirst!(v, 1.0),
        "deleteat!" => v -> deleteat!(v, 1),
        "pop!" => v -> pop!(v),
    ]
    for (what, op) in moving
        @testset "$what" begin
            v = ones(100_000)
            lib("keep")(v)
            @test T.is_kept(v)
            if T._ARRAYS_OWN_MEMORY
                op(v)              # moves `v` to new memory; the library's stays valid
            else
                @test_throws ErrorException("cannot resize array with shared data") op(v)
            end
            sweep()
            @test lib("kept_sum")() == 100_000.0   # never freed memory
            lib("release")()
            sweep()
            @test !T.is_kept(v)
            w = ones(100_000)
            op(w)
            op(v)                  # resizable again
            @test length(v) == length(w)
        end
    end

    @testset "kept twice, released once: still kept" begin
        v = ones(1000)
        t1 = T.FFITensor(v)
        lib("keep")(v)
        lib("release")()
        sweep()
        @test T.is_kept(v) || T._ARRAYS_OWN_MEMORY
        T._ARRAYS_OWN_MEMORY || @test_throws ErrorException push!(v, 1.0)
        close(t1)
        sweep()
        push!(v, 1.0)
        @test length(v) == 1001
    end

    @testset "an array that was shared before stays shared" begin
        v = ones(100)
        r = reshape(v, 10, 10)
        lib("keep")(v)
        lib("release")()
        sweep()
        @test_throws ErrorException push!(v, 1.0)
        @test sum(r) == 100.0
    end

    @testset "a vec of a matrix: the matrix's memory stays valid" begin
        m = ones(300, 300)
        v = vec(m)
        lib("keep")(v)
        m = nothing
        push!(v, 1.0)          # `v` copies itself away from the shared data
        sweep()
        @test lib("kept_sum")() == 90_000.0
        lib("release")()
    end

    @testset "released on a library thread (the deleter never enters Julia)" begin
        v = ones(5000)
        lib("keep")(v)
        lib("release_on_thread")()
        @test lib("kept_size")() == -1
        sweep()
        @test !T.is_kept(v)
        push!(v, 2.0)
        @test length(v) == 5001
    end

    @testset "a view of a kept array protects its parent" begin
        v = ones(1000)
        lib("keep")(view(v, 1:500))
        T._ARRAYS_OWN_MEMORY || @test_throws ErrorException resize!(v, 10^7)
        sweep()
        @test lib("kept_sum")() == 500.0
        lib("release")()
        sweep()
        resize!(v, 10)
        @test length(v) == 10
    end

    @testset "an array over a tensor: vec and reshape keep the tensor" begin
        x = collect(1.0:6.0)
        A = T.to_array(T.FFITensor(x))
        v = vec(reshape(A, 2, 3))
        A = nothing
        GC.gc(); GC.gc()
        @test sum(v) == 21.0
    end
end

@testset "conversions and callbacks from tasks on $(Threads.nthreads()) threads" begin
    T.register_global_func("threads_test.echo", x -> x; override = true)
    echo = T.get_global_func("threads_test.echo")
    T.register_global_func("threads_test.apply", (g, x) -> g(x); override = true)
    apply = T.get_global_func("threads_test.apply")
    work(i) = begin
        a = T.FFIArray([i, (i, "x"), Dict("k" => [1, 2, 3])])
        l = T.FFIList{Int64}([i, i + 1])
        m = T.FFIMap(Dict("a" => i, "b" => (1, 2)))
        d = T.FFIDict(Dict(i => "v"))
        ok = length(a) == 3 && a[1] == i && collect(l) == [i, i + 1] && m["a"] == i && d[i] == "v"
        r = echo((i, [i, "y"], Dict("z" => (i,))))         # tuple, vector, dict through a callback
        ok &= length(r) == 3 && r[1] == i && r[3]["z"][1] == i
        ok &= apply(x -> [x, x], i)[2] == i                # a Julia callback returning a container
        ok &= sum(T.to_array(T.FFITensor(fill(Float64(i), 4)))) == 4i
        ok
    end
    tasks = [Threads.@spawn(all(work(j) for j in (10i):(10i + 9))) for i in 1:16]
    @test all(fetch.(tasks))
    deep = Any[1]
    for _ in 1:1500
        deep = Any[deep]
    end
    t = Threads.@spawn try
        T.FFIArray(deep)
        false
    catch e
        e isa ArgumentError && occursin("nested more than", e.msg)
    end
    @test fetch(t)
    @test T.FFIArray([[[1]]])[1][1][1] == 1   # the depth went back to zero
end

# A thread waiting in a library call does not hold up a collection another thread starts (calls
# are GC-safe wherever another thread can run Julia code). Here the library waits for a signal
# that a second Julia thread sends after collecting: with plain calls that collection waits for
# the call, and the call returns false after its timeout.
@testset "a collection while another thread waits in a library call" begin
    @test T.gc_safe_calls() == (VERSION >= v"1.9" || Threads.nthreads() > 1)
    if Threads.nthreads() > 1
        wait_signal, signal = lib("wait_signal"), lib("signal")
        got = fill(false, 2)
        Threads.@threads :static for i in 1:2     # iteration i runs on thread i
            if i == 1
                got[1] = wait_signal(10_000)
            else
                sleep(0.2)                         # thread 1 is in the call by now
                GC.gc()
                signal()
                got[2] = true
            end
        end
        @test got == [true, true]
    end
    # Callbacks that come back on the calling thread leave the GC-safe state: they allocate and
    # collect, from tasks on every thread.
    T.register_global_func("threads_test.collect", n -> (GC.gc(false); sum(collect(1:n))); override = true)
    collect_in_callback = T.get_global_func("threads_test.collect")
    apply = T.get_global_func("threads_test.apply")
    ok(i) = collect_in_callback(100) == 5050 && apply(x -> (GC.gc(false); [x, x]), i)[2] == i
    @test all(fetch.([Threads.@spawn(all(ok(j) for j in 1:20)) for _ in 1:8]))
end
