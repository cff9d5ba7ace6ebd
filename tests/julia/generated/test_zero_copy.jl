# Zero copy, both ways: a 100-million-element Float32 Julia array is changed in place by the
# demo's kernel, and tensors returned from C are wrapped without copying (same data pointer).
isdefined(Main, :GenTest) || include(joinpath(@__DIR__, "common.jl"))
module TestZeroCopy
using Test, TVMFFI, Demo, TestingLib, ..GenTest

const N = 100_000_000

# The data pointer of the tensor an array returned by a call is a view of.
function tensor_data_pointer(a::AbstractArray)
    h = TVMFFI._existing_tensor(a)
    h == C_NULL && return C_NULL
    dl = unsafe_load(Ptr{TVMFFI.DLTensor}(h + 24))
    return dl.data + dl.byte_offset
end

@testset "a 100M-element Julia array changed in place" begin
    x = zeros(Float32, N)
    p = pointer(x)
    add_one_inplace(x[1:1])                             # compile first
    timed = @timed add_one_inplace(x)                   # (value, seconds, bytes, ...) on every Julia
    t, alloc = timed[2], timed[3]
    @test pointer(x) == p
    @test x[1] === 1.0f0 && x[N ÷ 2] === 1.0f0 && x[N] === 1.0f0
    @test sum(x) == Float64(N)
    @test alloc < 10_000                               # 400 MB were not copied
    @info "add_one_inplace on $N Float32 (a debug build of the demo): $(round(t, digits = 2)) s, $alloc bytes allocated in Julia"

    y = TestingLib.schema_id_tensor(x)                  # the same memory comes back
    @test y isa Vector{Float32}
    @test pointer(y) == pointer(x)
    @test @allocated(TestingLib.schema_id_tensor(x)) < 10_000
    y[1] = 42
    @test x[1] === 42.0f0                               # one memory, two views
    x = y = nothing
    GC.gc()
end

@testset "a tensor made in C is wrapped without copying" begin
    a = arange(1_000_000)
    @test a isa Vector{Float32} && a[end] === 999_999.0f0
    @test tensor_data_pointer(a) == Ptr{Cvoid}(pointer(a))   # a views the C tensor's memory
    b = TestingLib.schema_id_tensor(a)                  # passing it back passes that tensor
    @test pointer(b) == pointer(a)
    add_one_inplace(a)
    @test b[1] === 1.0f0                                # C wrote into the memory `a` views
    arange(10)
    @test @allocated(arange(10_000_000)) < 10_000       # 40 MB made in C, no Julia copy
    s = scaled_copy(reshape(Float32.(1:6), 2, 3), 1.0)   # row-major: a PermutedDimsArray
    @test s isa PermutedDimsArray && s == reshape(Float32.(1:6), 2, 3)
    @test tensor_data_pointer(s) == Ptr{Cvoid}(pointer(parent(s)))
end

end # module
