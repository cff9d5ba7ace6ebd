# A TVM-compiled kernel library from Julia (tests/kernels/main.rs): one call loads it, its `main`
# is called by name on Julia Arrays, which it reads and writes in place (zero-copy DLPack views).
#
#     julia --project=bindings/julia/TVMFFI vector_add.jl LIBRARY
using Test, TVMFFI

@testset "vector_add.so from Julia" begin
    m = TVMFFI.load_module(ARGS[1])
    n = 1000
    a = Float32.(1:n)
    b = fill(0.5f0, n)
    c = zeros(Float32, n)
    @test m.main(a, b, c) === nothing
    @test c == a .+ b                      # written into c's own memory
    @test a == Float32.(1:n)               # inputs untouched
    # TVM's generated argument checks raise through TVM-FFI.
    @test_throws TVMFFI.FFIError m.main(a, b, zeros(Float64, n))
    @test_throws ArgumentError m.no_such_kernel
end
println("julia: vector_add ok")
