# Per-call cost of generated Julia wrappers, side by side with a minimal hand-written `ccall` of
# TVMFFIFunctionCall on the same function, in one process (rounds are interleaved and the best
# round of each case is kept: the machine is shared and noisy), and the bytes Julia allocates
# per call. Run it with bench/julia/run.sh, which builds what it needs and runs it on ffihub's
# runtime and on Apache's; or by hand in an environment that has the generated packages
# `TestingLib` (Apache's libtvm_ffi_testing.so) and `Demo` (the demo extension):
#
#     scripts/julia --project=target/bench/julia/env bench/julia/bench.jl
#
# Targets: a generated wrapper costs at most 2x the hand-written ccall; calls with scalar
# arguments allocate nothing.
using TVMFFI, TestingLib, Demo
using Printf
const T = TVMFFI

const N = parse(Int, get(ENV, "BENCH_CALLS", "2000000"))
const ROUNDS = parse(Int, get(ENV, "BENCH_ROUNDS", "7"))

# The floor: one TVMFFIFunctionCall with `n` int arguments, the result's type index read back.
# Nothing else: no conversion, no error handling beyond the return code.
const CALL = T._fp_TVMFFIFunctionCall
@inline function raw_call(h::Ptr{Cvoid}, args::NTuple{K,T.TVMFFIAny}) where {K}
    a = Ref(args)
    rv = Ref(T.TVMFFIAny(0, 0, 0))
    rc = GC.@preserve a rv ccall(CALL[], Cint, (Ptr{Cvoid}, Ptr{Cvoid}, Int32, Ptr{T.TVMFFIAny}), h, a, K, rv)
    rc == 0 || error("call failed")
    return rv[]
end
int_any(i::Int) = T.TVMFFIAny(T.kTVMFFIInt, 0, reinterpret(UInt64, i))
float_any(x::Float64) = T.TVMFFIAny(T.kTVMFFIFloat, 0, reinterpret(UInt64, x))

const nop = T.handle(get_global_func("testing.nop"))
const noargs = T.handle(get_global_func("testing.schema_no_args_no_return"))
const add1 = T.handle(get_global_func("testing.add_one"))
const demo_add1 = T.handle(get_global_func("demo.add_one"))

# name => (hand-written ccall, generated wrapper): each runs N calls.
const PAIRS = [
    "no-op, packed: testing.nop()" => (
        () -> (for i in 1:N; raw_call(nop, ()); end),
        () -> (for i in 1:N; TestingLib.nop(); end)),
    "no-op, typed () -> None" => (
        () -> (for i in 1:N; raw_call(noargs, ()); end),
        () -> (for i in 1:N; TestingLib.schema_no_args_no_return(); end)),
    "3 scalars, packed: nop(i, 2.5, 3)" => (
        () -> (for i in 1:N; raw_call(nop, (int_any(i), float_any(2.5), int_any(3))); end),
        () -> (for i in 1:N; TestingLib.nop(i, 2.5, 3); end)),
    "typed (int) -> int: testing.add_one" => (
        () -> (s = 0; for i in 1:N; s += reinterpret(Int, raw_call(add1, (int_any(i),)).v); end; s),
        () -> (s = 0; for i in 1:N; s += TestingLib.add_one(i); end; s)),
    "typed (int) -> int, Rust: demo.add_one" => (
        () -> (s = 0; for i in 1:N; s += reinterpret(Int, raw_call(demo_add1, (int_any(i),)).v); end; s),
        () -> (s = 0; for i in 1:N; s += Demo.add_one(i); end; s)),
]

# Bytes Julia allocates per call (a loop of 1000 calls, after a warm-up).
const p = Demo.Point(3, 4)
const ALLOC_CASES = [
    "TestingLib.add_one(i::Int)" => () -> (s = 0; for i in 1:1000; s += TestingLib.add_one(i); end; s),
    "TestingLib.schema_id_float(x::Float64)" => () -> (s = 0.0; for i in 1:1000; s += TestingLib.schema_id_float(i + 0.5); end; s),
    "TestingLib.schema_id_bool(b::Bool)" => () -> (c = 0; for i in 1:1000; c += TestingLib.schema_id_bool(isodd(i)); end; c),
    "TestingLib.schema_id_opt_int(i) (Optional[int])" => () -> (s = 0; for i in 1:1000; s += something(TestingLib.schema_id_opt_int(i), 0); end; s),
    "TestingLib.schema_id_dtype(dt::DLDataType)" => () -> (for i in 1:1000; TestingLib.schema_id_dtype(DLDataType(2, 32, 1)); end),
    "TestingLib.schema_id_device(d::DLDevice)" => () -> (for i in 1:1000; TestingLib.schema_id_device(DLDevice(1, 0)); end),
    "TestingLib.schema_no_args_no_return()" => () -> (for i in 1:1000; TestingLib.schema_no_args_no_return(); end),
    "TestingLib.nop(i, 2.5, 3) (packed)" => () -> (for i in 1:1000; TestingLib.nop(i, 2.5, 3); end),
    "Demo.add_one(i::Int)" => () -> (s = 0; for i in 1:1000; s += Demo.add_one(i); end; s),
    "Demo.echo_float(x::Float64)" => () -> (s = 0.0; for i in 1:1000; s += Demo.echo_float(i + 0.5); end; s),
    "p.x (field read, Float64)" => () -> (s = 0.0; for i in 1:1000; s += p.x; end; s),
    "Demo.norm(p) (method, Point)" => () -> (s = 0.0; for i in 1:1000; s += Demo.norm(p); end; s),
]

function main()
    runtime = T.live_object_count() === nothing ? "apache" : "ffihub"
    println("Julia $(VERSION), runtime $runtime ($(T.loaded_library())), $N calls per round, best of $ROUNDS rounds")
    best = Dict(name => [Inf, Inf] for (name, _) in PAIRS)
    for (_, (raw, gen)) in PAIRS   # compile
        raw(); gen()
    end
    for round in 1:ROUNDS, (name, (raw, gen)) in PAIRS
        best[name][1] = min(best[name][1], @elapsed raw())
        best[name][2] = min(best[name][2], @elapsed gen())
    end
    @printf("\n%-42s %12s %12s %8s\n", "call", "ccall ns", "generated ns", "ratio")
    for (name, _) in PAIRS
        r, g = best[name] .* (1e9 / N)
        @printf("%-42s %12.1f %12.1f %7.2fx\n", name, r, g, g / r)
    end
    @printf("\n%-48s %s\n", "bytes allocated per call", "bytes")
    for (name, f) in ALLOC_CASES
        f()
        bytes = @allocated f()
        @printf("%-48s %5.1f\n", name, bytes / 1000)
    end
end

main()
