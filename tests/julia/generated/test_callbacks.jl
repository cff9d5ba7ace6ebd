# Function parameters and results: Julia functions (and other callables) are passed as callbacks,
# typed function results come back callable, closures keep their state, callbacks' exceptions
# reach the caller.
isdefined(Main, :GenTest) || include(joinpath(@__DIR__, "common.jl"))
module TestCallbacks
using Test, TVMFFI, Demo, ..GenTest

struct Scale
    k::Int
end
(s::Scale)(x) = s.k * x

@testset "callbacks" begin
    @test apply_twice(x -> x + 1, 5) === 7
    @test apply_twice(Scale(3), 2) === 18          # any callable object
    double = make_multiplier(2.0)
    @test double isa FFIFunction
    @test double(21.0) === 42.0
    @test apply_twice(compose(x -> x + 1, x -> 2x), 1) === 10   # a C function passed back
    @test map_array(x -> x * 2, [1, 2, 3]) == [2, 4, 6]
    @test map_array(string, [1, 2]) == ["1", "2"]
    counter = make_counter_fn(10)
    @test counter() == 10 && counter() == 11 && counter() == 12
    inc_then_double = compose(x -> x + 1, x -> 2x)
    @test inc_then_double(4) == 10
    @test compose(make_multiplier(2.0), make_multiplier(5.0))(1.0) == 10.0
end

@testset "exceptions inside callbacks" begin
    e = try
        apply_twice(x -> error("boom $x"), 1)
        nothing
    catch err
        err
    end
    @test e isa FFIError
    @test occursin("boom 1", e.message)
    @test_throws TVMFFI.ValueError apply_twice(x -> throw(ArgumentError("bad")), 1)
    @test_throws TVMFFI.KeyError map_array(x -> Demo.map_get(Dict("a" => 1), "b"), [1])
end

check_no_leaks(label = "callbacks") do
    for i in 1:200
        apply_twice(x -> x + i, 1)
        make_multiplier(Float64(i))(1.0)
        map_array(x -> x, [i])
        compose(x -> x, x -> x)(i)
    end
end

end # module
