# Tensor parameters and results: Julia arrays (any strided layout) go in without copying, tensors
# made in C come back as Julia arrays over their memory, dtype errors are raised by the library.
isdefined(Main, :GenTest) || include(joinpath(@__DIR__, "common.jl"))
module TestTensors
using Test, TVMFFI, Demo, TestingLib, ..GenTest

@testset "Julia arrays in" begin
    x = Float32[1, 2, 3]
    add_one_inplace(x)
    @test x == Float32[2, 3, 4]
    m = Float32[1 2 3; 4 5 6]
    add_one_inplace(m)                                  # column-major matrix
    @test m == Float32[2 3 4; 5 6 7]
    v = zeros(Float32, 10)
    add_one_inplace(view(v, 1:2:10))                    # a strided view
    @test v == Float32[isodd(i) ? 1 : 0 for i in 1:10]
    t = PermutedDimsArray(zeros(Float32, 2, 3), (2, 1))
    add_one_inplace(t)
    @test all(==(1.0f0), t)
    @test tensor_sum(Float32[1.5, 2.5]) === 4.0
    info = tensor_info(zeros(Float32, 2, 3))
    @test collect(info["shape"]) == [2, 3]
    @test collect(info["strides"]) == [1, 2]            # Julia's column-major strides
    @test info["dtype"] == DLDataType(Float32)
    @test_throws TVMFFI.TypeError add_one_inplace([1.0, 2.0])   # float64: the library says no
end

@testset "transposes and reshaped views: tensors when strided, a clear error when not" begin
    M = Float32[1 2 3; 4 5 6]
    @test tensor_sum(transpose(M)) === 21.0
    @test tensor_sum(adjoint(M)) === 21.0
    @test collect(tensor_info(transpose(M))["strides"]) == [2, 1]
    add_one_inplace(transpose(M))                       # the parent's memory, no copy
    @test M == Float32[2 3 4; 5 6 7]
    @test tensor_sum(reshape(view(M, :, 1:2), 2, 2)) === 16.0   # a strided reshaped view
    notstrided = reshape(view(M, 1:1, :), 3, 1)
    err = try
        tensor_sum(notstrided)
        nothing
    catch e
        e
    end
    @test err isa ArgumentError
    @test occursin("2-dimensional", err.msg) && occursin("pass copy(x)", err.msg)
    @test tensor_sum(copy(notstrided)) === 9.0
    @test_throws ArgumentError TVMFFI.call_packed(get_global_func("demo.echo_any"), Any[1 2; 3 4])
end

@testset "tensors out" begin
    a = arange(5)
    @test a isa Vector{Float32}
    @test a == Float32[0, 1, 2, 3, 4]
    c = scaled_copy(Float32[1 2; 3 4], 2.0)
    @test size(c) == (2, 2)
    @test c == Float32[2 4; 6 8]
    @test tensor_sum(arange(4)) === 6.0                 # an array over a C tensor goes back as it
    r = TestingLib.schema_id_tensor(UInt8[1, 2, 3])     # declared Tensor: bytes are a tensor here
    @test r isa Vector{UInt8} && r == UInt8[1, 2, 3]
    @test TestingLib.schema_id_tensor(FFITensor(Float32[1])) == Float32[1]
    @test TestingLib.optional_tensor_view_has_value(nothing) === false
    @test TestingLib.optional_tensor_view_has_value(Float32[1]) === true
end

check_no_leaks(label = "tensors") do
    for i in 1:200
        x = Float32[i, 1]
        add_one_inplace(x)
        arange(3)
        scaled_copy(x, 2.0)
        TestingLib.schema_id_tensor(x)
        tensor_info(x)
    end
end

end # module
