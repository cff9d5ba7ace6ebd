# Module exports through the generated Julia packages (tests/exports/run.sh): `Exports.add_one(x)`
# and friends are typed, documented functions of libexports.so (loaded once as a module);
# `ExportsPlain` binds the same library built without metadata (packed functions).
using Test
import Exports, ExportsPlain

@testset "module exports from Julia" begin
    @test Exports.add_one(41) === 42
    @test_throws ArgumentError Exports.add_one("x")
    @test Exports.greet("ffi", 2) == "hello ffi, hello ffi"
    @test Exports.sum([1.5, 2.5, 3.0]) == 7.0
    x = Float32[1, 2, 3]
    y = Float32[10, 20, 30]
    Exports.axpy(2, x, y)
    @test y == Float32[12, 24, 36]
    @test_throws Exception Exports.axpy(1, x, zeros(Float32, 2))
    out = zeros(Float32, 4)
    Exports.add_one_c(Float32[1, 2, 3, 4], out)
    @test out == Float32[2, 3, 4, 5]
    doc = string(@doc Exports.add_one)
    @test occursin("Add one to an integer.", doc)
    @test occursin("exported by `libexports.so`", doc)
    @test ExportsPlain.add_one(41) == 42
    @test ExportsPlain.greet("x", 1) == "hello x"
end
