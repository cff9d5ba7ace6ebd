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
# arguments allocate nothing; a `Vector{Float64}` / `Vector{Int64}` of 1e6 elements passed as
# `Array[float]` / `Array[int]` costs at most 5x the floor per element (the floor: the same call
# with the ffi.Array built by a bare ccall of `ffi.Array` on ready-made values); a
# `Vector{Float32}(16)` passed as a tensor (demo.tensor_sum) at most 150 ns over the same call
# with the tensor made once (`FFITensor(a)`).
# BENCH_ROWS=1 prints bench/run.sh table rows instead.
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

# Arrays of 1e6 elements: ns per element of the generated call, and of the floor.
const ARRAY_N = 1_000_000
const FFI_ARRAY = T.handle(get_global_func("ffi.Array"))
const sum_array = T.handle(get_global_func("demo.sum_array"))
const id_arr_int = T.handle(get_global_func("testing.schema_id_arr_int"))

function raw_array_call(callee::Ptr{Cvoid}, anys::Vector{T.TVMFFIAny})
    arr = Ref(T.TVMFFIAny(0, 0, 0))
    rc = GC.@preserve anys arr ccall(CALL[], Cint, (Ptr{Cvoid}, Ptr{T.TVMFFIAny}, Int32, Ptr{T.TVMFFIAny}),
        FFI_ARRAY, anys, length(anys), arr)
    rc == 0 || error("ffi.Array failed")
    out = raw_call(callee, (arr[],))
    T._release_any(arr[])
    T._release_any(out)
    return nothing
end

function array_rows()
    floats = [i + 0.5 for i in 1:ARRAY_N]
    ints = collect(1:ARRAY_N)
    float_anys = [float_any(x) for x in floats]
    int_anys = [int_any(x) for x in ints]
    best = Dict(k => Inf for k in (:float, :float_floor, :int, :int_floor))
    for round in 1:5
        best[:float] = min(best[:float], @elapsed Demo.sum_array(floats))
        best[:float_floor] = min(best[:float_floor], @elapsed raw_array_call(sum_array, float_anys))
        best[:int] = min(best[:int], @elapsed TestingLib.schema_id_arr_int(ints))
        best[:int_floor] = min(best[:int_floor], @elapsed raw_array_call(id_arr_int, int_anys))
    end
    return Dict(k => v * 1e9 / ARRAY_N for (k, v) in best)
end

# A Julia array as a tensor argument, made into a tensor for each call, against the same call with
# the tensor made once: ns per call, best of the rounds (interleaved).
# (Two arrays: the one under the tensor made once is kept by it, which a Julia array passed on its
# own is not.)
const FLOATS = zeros(Float32, 16)
const FLOAT_TENSOR = T.FFITensor(zeros(Float32, 16))
function tensor_rows()
    n = N ÷ 10
    per_call = () -> (s = 0.0; for i in 1:n; s += Demo.tensor_sum(FLOATS); end; s)
    made_once = () -> (s = 0.0; for i in 1:n; s += Demo.tensor_sum(FLOAT_TENSOR); end; s)
    per_call(); made_once()
    best = [Inf, Inf]
    for round in 1:ROUNDS
        best[1] = min(best[1], @elapsed per_call())
        best[2] = min(best[2], @elapsed made_once())
    end
    return best .* (1e9 / n)
end

function rows()
    best = Dict(name => [Inf, Inf] for (name, _) in PAIRS)
    for (_, (raw, gen)) in PAIRS
        raw(); gen()
    end
    for round in 1:ROUNDS, (name, (raw, gen)) in PAIRS
        best[name][1] = min(best[name][1], @elapsed raw())
        best[name][2] = min(best[name][2], @elapsed gen())
    end
    row(op, ours, ref, target) =
        @printf("| %s | %.1f ns | %.1f ns | %.2fx | ≤ %.1fx |\n", op, ours, ref, ours / ref, target)
    for (name, _) in PAIRS
        r, g = best[name] .* (1e9 / N)
        row("julia: $name, generated vs bare ccall", g, r, 2.0)
    end
    array_rows()   # compile
    a = array_rows()
    row("julia: `Vector{Float64}` of 1e6 as `Array[float]` (demo.sum_array), per element, vs C floor",
        a[:float], a[:float_floor], 5.0)
    row("julia: `Vector{Int64}` of 1e6 as `Array[int]` (testing.schema_id_arr_int), per element, vs C floor",
        a[:int], a[:int_floor], 5.0)
    t = tensor_rows()
    @printf("| julia: `Vector{Float32}(16)` as a tensor `Demo.tensor_sum(a)` vs the tensor made once `Demo.tensor_sum(FFITensor(a))` | %.1f ns | %.1f ns | %+.1f ns | ≤ +150 ns |\n",
        t[1], t[2], t[1] - t[2])
    worst = 0.0
    for (_, f) in ALLOC_CASES
        f()
        worst = max(worst, (@allocated f()) / 1000)
    end
    @printf("| julia: bytes allocated per scalar call (worst of %d cases) | %.1f B | 0 B | — | 0 B |\n",
        length(ALLOC_CASES), worst)
end

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
    t = tensor_rows()
    @printf("%-42s %12.1f %12.1f %+7.1f ns\n", "tensor_sum(Vector{Float32}(16)) vs made once", t[1], t[2], t[1] - t[2])
    @printf("\n%-48s %s\n", "bytes allocated per call", "bytes")
    for (name, f) in ALLOC_CASES
        f()
        bytes = @allocated f()
        @printf("%-48s %5.1f\n", name, bytes / 1000)
    end
end

if get(ENV, "BENCH_ROWS", "0") == "1"
    rows()
else
    main()
end
