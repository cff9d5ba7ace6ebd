# GC stress: 1,000,000 calls that create and drop objects, strings, bytes, containers, tensors,
# callbacks and errors, with a full collection every 10,000 calls. Nothing may crash, every
# result must be right, and afterwards the runtime's live-object count and the Julia keep-alive
# slots must be back where they started. (`TVMFFI_STRESS_CALLS` overrides the count; the loop and
# the checks are the harness's `gc_stress`.) Then a library that keeps a tensor over an array no
# Julia code holds any more (tests/julia/threads_lib.cc) reads it after collections that reuse
# freed memory.
isdefined(Main, :FFITest) || include(joinpath(@__DIR__, "common.jl"))
module TestGCStress
using Test, TVMFFI, ..FFITest
const T = TVMFFI

testing_lib()
const echo = get_global_func("testing.echo")
const apply = get_global_func("testing.apply")
const id_tensor = get_global_func("testing.schema_id_tensor")
const add_one = get_global_func("testing.add_one")
const raise = get_global_func("testing.test_raise_error")
const make_iota = kernels()["make_iota"]

# One call per iteration (plus the conversions it implies); returns whether the result was right.
function step(i::Int)
    k = i % 10
    if k == 0                                   # an object, read back through its getter
        p = T.construct("testing.TestIntPair", i, 1)
        return p.a == i
    elseif k == 1                               # a heap string
        s = "a heap string, number $i"
        return echo(s) == s
    elseif k == 2                               # an Array built from a tuple, with a nested object
        a = echo((i, "x", (i, i)))
        return a[1] == i && a[3][2] == i
    elseif k == 3                               # a Map from a Dict
        m = echo(Dict("k" => i, "s" => "v$i"))
        return m["k"] == i
    elseif k == 4                               # a Julia array as a tensor and back, zero-copy
        x = Float32[i, 2, 3]
        y = id_tensor(x)
        return pointer(y) == pointer(x) && y[1] == Float32(i)
    elseif k == 5                               # a Julia closure as a callback
        return apply(x -> x + i, 1) == i + 1
    elseif k == 6                               # a callback that C keeps (returned and called)
        f = apply(n -> (y -> y * n), 2)
        return f(i) == 2i
    elseif k == 7                               # a tensor allocated in C, viewed from Julia
        a = make_iota(4)
        return a[4] == 3.0f0
    elseif k == 8                               # bytes, and a raised error every 10,000 calls
        if i % 10_000 == 8
            e = try
                raise("ValueError", "stress $i")
                nothing
            catch err
                err
            end
            return e isa TVMFFI.ValueError && e.message == "stress $i"
        end
        b = rand(UInt8, 16)
        return echo(b) == b
    else                                        # a plain int call
        return add_one(i) == i + 1
    end
end

gc_stress(step, ""; finally_test = () -> @test kernels()["live_buffers"]() == 0)

# The library keeps a tensor over an array that only it still holds; collections run and new
# arrays of the same size are allocated (freed array memory is reused for them), and then the
# library reads the whole tensor. If the array's memory had been freed, the sum would be that of
# the new arrays (or the read would fault): with the keep-alive slot not holding the array,
# nearly every round reads the junk.
const THREADS_LIB = get(ENV, "FFIHUB_THREADS_LIB", "")
isempty(THREADS_LIB) && error("FFIHUB_THREADS_LIB is not set: tests/julia/run.rs builds tests/julia/threads_lib.cc")
T.load_library(THREADS_LIB)
threads_lib(name) = get_global_func("threads_lib." * name)

const KEPT_ROUNDS = 500
const KEPT_LENGTH = 1_000                       # 8 KB: malloc'd, not pooled (every Julia 1.x)

# In functions of their own, so that no stack slot of the loop still holds the array or the junk.
@noinline keep_filled(keep, i) = (keep(fill(Float64(i), KEPT_LENGTH)); nothing)
@noinline allocate_junk() = sum(length, [fill(-1.0, KEPT_LENGTH) for _ in 1:4])

function kept_rounds(n::Int)
    keep, kept_sum, release = threads_lib("keep"), threads_lib("kept_sum"), threads_lib("release")
    wrong = 0
    for i in 1:n
        keep_filled(keep, i)                    # no Julia reference is left
        GC.gc(false); GC.gc(false)              # the tensor wrapper's finalizer, then the array
        allocate_junk()
        kept_sum() == Float64(i) * KEPT_LENGTH || (wrong += 1)
        release()
        i % 100 == 0 && (GC.gc(); T.sweep_keepalive!())
    end
    return wrong
end

@testset "a kept tensor over an array nothing else holds: $KEPT_ROUNDS rounds" begin
    settle()
    slots_before = T.keepalive_count()
    @test kept_rounds(KEPT_ROUNDS) == 0
    settle()
    @test T.keepalive_count() == slots_before
end

end # module
