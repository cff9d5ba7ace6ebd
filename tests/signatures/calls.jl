# The parameter names the libraries gave, as Julia shows them (the argument names of each
# generated method), and calls (tests/signatures/run.sh).
using Test
import Signames, TvmFfiTesting, Demo

"The argument names of `f`'s method with `n` arguments (the receiver included)."
function argnames(f, n)
    m = only(filter(m -> m.nargs == n + 1, collect(methods(f))))
    return Base.method_argnames(m)[2:end]
end

@testset "parameter names from arg_names, docstrings and Rust" begin
    @test argnames(Signames.affine, 3) == [:value, :scale, :shift]
    @test argnames(Signames.dot, 3) == [:self, :other_x, :other_y]
    @test argnames(Signames.scaled, 3)[2:end] == [:vec, :factor]
    @test argnames(Signames.Vec, 2) == [:x, :y]
    @test argnames(Signames.clamp, 3) == [:value, :low, :high]
    @test argnames(Signames.power, 2) == [:base, :exponent]
    @test argnames(Signames.lerp, 3) == [:start, :end_, :t]
    @test argnames(TvmFfiTesting.testing_dll_test_add_with_docstring, 2) == [:a, :b]
    @test argnames(Demo.apply_twice, 2) == [:f, :x]
    @test occursin("dot(self::AbstractVec, other_x::Real, other_y::Real)", string(@doc Signames.dot))

    @test Signames.affine(2, 3, 1) == 7.0
    v = Signames.Vec(3, 4)
    @test Signames.dot(v, 1, 2) == 11.0
    @test Signames.scaled(Signames.Vec, v, 2).x == 6.0
    @test Signames.clamp(15, 0, 10) == 10
    @test Signames.power(2, 10) == 1024
    @test Signames.lerp(0, 10, 0.5) == 5.0
    @test TvmFfiTesting.testing_dll_test_add_with_docstring(2, 3) == 5
end
