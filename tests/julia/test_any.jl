# Values crossing the ABI both ways: every kind of the type table in docs/architecture.md that is not a container,
# tensor, function or object (those have their own files). Round trips go through C
# (`testing.echo`, `testing.schema_id_*` from Apache's testing library) and through a Julia
# callback (C -> Julia -> C).
isdefined(Main, :FFITest) || include(joinpath(@__DIR__, "common.jl"))
module TestAny
using Test, TVMFFI, ..FFITest
const T = TVMFFI

testing_lib()
const echo = get_global_func("testing.echo")
const id_int = get_global_func("testing.schema_id_int")
const id_float = get_global_func("testing.schema_id_float")
const id_bool = get_global_func("testing.schema_id_bool")
const id_dtype = get_global_func("testing.schema_id_dtype")
const id_device = get_global_func("testing.schema_id_device")
const id_opt_int = get_global_func("testing.schema_id_opt_int")
const id_any = get_global_func("testing.schema_id_any")
# A Julia identity function called from C: Julia -> C -> Julia callback -> C -> Julia.
const apply = get_global_func("testing.apply")
julia_echo(x) = apply(y -> y, x)

@testset "nothing" begin
    @test echo(nothing) === nothing
    @test julia_echo(nothing) === nothing
    @test id_opt_int(nothing) === nothing
    @test id_opt_int(5) === 5
end

@testset "integers" begin
    for x in (0, 1, -1, 42, typemax(Int64), typemin(Int64))
        @test echo(x) === x
        @test id_int(x) === x
        @test julia_echo(x) === x
    end
    # any Integer in range converts; results are Int64
    @test echo(Int8(-3)) === Int64(-3)
    @test echo(UInt32(7)) === Int64(7)
    @test id_int(Int16(12)) === Int64(12)
    @test echo(UInt64(2)^63 - 1) === typemax(Int64)
    @test_throws InexactError echo(UInt64(2)^63)
    @test_throws InexactError echo(Int128(2)^70)
    @test get_global_func("testing.add_one")(41) === 42
end

@testset "booleans" begin
    @test echo(true) === true
    @test echo(false) === false
    @test id_bool(true) === true
    @test julia_echo(false) === false
end

@testset "floats" begin
    for x in (0.0, -1.5, 3.141592653589793, Inf, -Inf, floatmax(Float64), nextfloat(0.0))
        @test echo(x) === x
        @test id_float(x) === x
        @test julia_echo(x) === x
    end
    @test isnan(echo(NaN))
    @test echo(1.5f0) === 1.5                      # any AbstractFloat, as Float64
    @test echo(Float16(0.25)) === 0.25
    @test id_float(2) === 2.0                       # the typed callee converts int to float
end

@testset "strings (details in test_strings.jl)" begin
    @test echo("") == ""
    @test echo("small") == "small"
    @test echo("a heap-allocated string") == "a heap-allocated string"
    @test echo(:symbol) == "symbol"
    @test echo('x') == "x"
    @test echo(SubString("abcdef", 2, 4)) == "bcd"
    @test julia_echo("round trip") == "round trip"
end

@testset "bytes" begin
    @test echo(UInt8[1, 2, 3]) == UInt8[1, 2, 3]
    @test echo(b"raw bytes, long enough") == Vector{UInt8}(b"raw bytes, long enough")
    @test echo(UInt8[]) == UInt8[]
end

@testset "data types" begin
    f32 = DLDataType("float32")
    @test f32 == DLDataType(T.kDLFloat, 32, 1)
    @test DLDataType(Float32) == f32
    @test convert(DLDataType, "int8") == DLDataType(Int8)
    @test string(DLDataType(Float16)) == "float16"
    @test string(DLDataType("float32x4")) == "float32x4"
    @test DLDataType("bool") == DLDataType(T.kDLBool, 8, 1)
    @test string(DLDataType(UInt64)) == "uint64"
    @test T.julia_type(DLDataType("int32")) === Int32
    @test T.julia_type(DLDataType("bfloat16")) === nothing
    @test echo(f32) === f32
    @test id_dtype(DLDataType("int64")) == DLDataType(Int64)
    @test echo(Float64) === DLDataType(Float64)         # Julia element types pass as DataType
    @test julia_echo(DLDataType(UInt16)) === DLDataType(UInt16)
    @test sprint(show, f32) == "DLDataType(\"float32\")"
    @test_throws FFIError DLDataType("notatype")
end

@testset "devices" begin
    @test DLDevice(:cpu) == DLDevice(1, 0)
    @test DLDevice(:cuda, 1) == DLDevice(2, 1)
    @test DLDevice("cuda:3") == DLDevice(2, 3)
    @test DLDevice((:rocm, 2)) == DLDevice(10, 2)
    @test convert(DLDevice, (:cuda, 0)) == DLDevice(:cuda, 0)
    @test string(DLDevice(:cuda, 1)) == "cuda:1"
    @test sprint(show, DLDevice(:cpu, 0)) == "DLDevice(:cpu, 0)"
    @test_throws ArgumentError DLDevice(:nosuchdevice)
    for d in (DLDevice(:cpu, 0), DLDevice(:cuda, 7), DLDevice(:metal, 1))
        @test echo(d) === d
        @test id_device(d) === d
        @test julia_echo(d) === d
    end
end

@testset "opaque pointers" begin
    p = Ptr{Cvoid}(UInt(0x1234))
    @test echo(p) === p
    @test julia_echo(p) === p
end

@testset "big integers" begin
    @test echo(big(5)) === 5                           # BigInts in the Int64 range are ints
    for x in (big(2)^64, -big(2)^64 - 3, big(2)^200 + 12345, -(big(2)^63) - 1)
        @test echo(x) == x
        @test echo(x) isa BigInt
    end
end

@testset "Any parameters" begin
    @test id_any(7) === 7
    @test id_any("seven") == "seven"
    @test id_any(nothing) === nothing
end

@testset "unsupported values are rejected before the call" begin
    @test_throws ArgumentError echo(1 // 2)
    @test_throws ArgumentError echo(Base.ImmutableDict{Int,Int}() => 1)
end

@testset "low-level to_any / from_any" begin
    a = T.to_any("a string longer than seven bytes")
    @test a.type_index == T.kTVMFFIStr
    @test T.from_any(a; owned = false) == "a string longer than seven bytes"
    @test T.from_any(a; owned = true) == "a string longer than seven bytes"  # consumes it
    b = T.to_any(12)
    @test b.type_index == T.kTVMFFIInt && T.from_any(b; owned = true) === 12
end

check_no_leaks(label = "values") do
    for i in 1:200
        echo(i)
        echo("string number $i, on the heap")
        echo(UInt8[1, 2, 3, 4, 5, 6, 7, 8, 9])
        echo(big(2)^70)
        julia_echo("x"^i)
        echo(DLDevice(:cuda, i))
    end
end

end # module
