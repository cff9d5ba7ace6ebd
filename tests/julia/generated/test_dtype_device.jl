# DataType and Device parameters: Julia values, strings, symbols and tuples convert to the
# declared type; results are `DLDataType` / `DLDevice`.
isdefined(Main, :GenTest) || include(joinpath(@__DIR__, "common.jl"))
module TestDtypeDevice
using Test, TVMFFI, Demo, ..GenTest

@testset "data types" begin
    f32 = DLDataType("float32")
    @test echo_dtype(f32) == f32
    @test echo_dtype("float32") == f32             # parsed by the runtime
    @test echo_dtype(Float32) == f32               # a Julia element type
    @test echo_dtype("int8") == DLDataType(Int8)
    @test @inferred(echo_dtype(f32)) == f32
    @test dtype_bits("float16") === 16
    @test dtype_bits(Int64) === 64
    @test string(echo_dtype("bfloat16")) == "bfloat16"
    @test_throws FFIError echo_dtype("not a dtype")
end

@testset "devices" begin
    cpu = DLDevice(:cpu, 0)
    @test echo_device(cpu) == cpu
    @test echo_device(:cpu) == cpu
    @test echo_device("cuda:1") == DLDevice(:cuda, 1)
    @test echo_device((:cuda, 2)) == DLDevice(:cuda, 2)
    @test @inferred(echo_device(cpu)) == cpu
    @test make_device("cuda", 3) == DLDevice(:cuda, 3)
    @test device_name(:cuda) == "cuda:0"
    @test_throws TVMFFI.ValueError make_device("abacus", 0)
end

@testset "objects with dtype, device and shape fields" begin
    s = TensorSpec(Float32, :cpu, (2, 3), "x")
    @test s.dtype == DLDataType(Float32)
    @test s.device == DLDevice(:cpu, 0)
    @test collect(s.shape) == [2, 3]
    @test s.label == "x"
    @test numel(s) === 6
    @test nbytes(s) === 24
    @test TensorSpec("float64", "cpu:0", [4]).label === nothing
    @test nbytes(TensorSpec("float64", "cpu:0", [4])) === 32
end

end # module
