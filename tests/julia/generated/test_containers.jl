# Containers: arguments are built as the declared container type element by element (a numeric
# vector passed as `Array[float]` is an `ffi.Array`, not a tensor; nested vectors and dicts
# too); results are lazy views (`FFIArray`, `FFIMap`, `FFIShape`).
isdefined(Main, :GenTest) || include(joinpath(@__DIR__, "common.jl"))
module TestContainers
using Test, TVMFFI, Demo, TestingLib, ..GenTest

@testset "arrays" begin
    @test sum_array([1.5, 2.5]) === 4.0
    @test sum_array([1, 2, 3]) === 6.0                 # ints are converted to the element type
    @test sum_array((1, 2.5)) === 3.5                  # tuples too
    @test sum_array(Float64[]) == 0.0
    r = make_range(4)
    @test r isa FFIArray
    @test collect(r) == [0, 1, 2, 3]
    @test reverse_array([1, "two", 3.0]) == [3.0, "two", 1]
    @test reverse_array(r) == [3, 2, 1, 0]             # an FFIArray passes as itself
    @test array_get(["a", "b", "c"], -1) == "c"
    @test word_lengths(["a", "abc"]) == Dict("a" => 1, "abc" => 3)
    @test word_lengths(("x", :sym)) == Dict("x" => 1, "sym" => 3)
    @test_throws TVMFFI.IndexError array_get([1], 5)
end

@testset "maps" begin
    m = Dict("a" => 1, "b" => 2)
    @test map_get(m, "b") === 2
    @test map_get(FFIMap(m), "a") === 1
    @test_throws TVMFFI.KeyError map_get(m, "zz")
    @test collect(map_keys(Dict("z" => 1, "y" => [1, 2]))) == ["y", "z"]
    wl = word_lengths(["hello"])
    @test wl isa FFIMap
    @test wl["hello"] == 5
end

@testset "nested containers" begin
    data = [Dict("a" => [1, 2, 3]), Dict("b" => Int[], "c" => [10])]   # vectors inside: arrays, not tensors
    s = nested_summary(data)
    @test s["maps"] == 2 && s["keys"] == 3 && s["values"] == 4 && s["total"] == 16
    n = make_nested(3)
    @test n isa FFIArray && length(n) == 3
    @test collect(n[3]["range"]) == [0, 1]
    @test nested_summary(n)["total"] == 0 + 1 + 2 + 0 + 1
end

@testset "shapes" begin
    @test collect(echo_shape((2, 3))) == [2, 3]
    @test echo_shape([4]) isa FFIShape
    @test shape_numel((2, 3, 4)) === 24
    @test shape_numel(make_shape([5, 6])) === 30
    @test Tuple(make_shape((1, 2))) == (1, 2)
end

@testset "typed containers of the testing library" begin
    @test collect(TestingLib.schema_id_arr_int([1, 2, 3])) == [1, 2, 3]
    @test collect(TestingLib.schema_id_arr_str(["a", "b"])) == ["a", "b"]
    l = TestingLib.schema_id_list_int([1, 2])
    @test l isa FFIList && collect(l) == [1, 2]
    d = TestingLib.schema_id_dict_str_int(Dict("k" => 1))
    @test d isa FFIDict && d["k"] == 1
    @test TestingLib.schema_id_map_str_str(Dict("a" => "b"))["a"] == "b"
    r = TestingLib.schema_arr_map_opt([1, nothing, 3], Dict("x" => [1, 2]), "s")
    @test r isa FFIMap
    @test TestingLib.schema_id_variant_int_str(3) === 3
    @test TestingLib.schema_id_variant_int_str("x") == "x"
    @test collect(TestingLib.schema_variant_mix([7, 8])) == [7, 8]   # the Array[int] member
    @test TestingLib.schema_variant_mix(5) === 5
end

check_no_leaks(label = "containers") do
    for i in 1:100
        sum_array([i, 2i])
        word_lengths(["w$i", "x"])
        nested_summary([Dict("a" => [i])])
        collect(make_nested(2)[2]["range"])
        map_get(Dict("k" => i), "k")
        shape_numel((i, 2))
    end
end

end # module
