# Type truth: the values the generated packages return are of the types they declare (`isa`):
# function and method results against the return types Julia infers for the calls, and every
# property and container element reachable from them (tests/julia/type_truth.jl).
isdefined(Main, :GenTest) || include(joinpath(@__DIR__, "common.jl"))
isdefined(Main, :TypeTruth) || include(joinpath(@__DIR__, "..", "type_truth.jl"))
module TestTypeTruth
using Test, TVMFFI, Demo, TestingLib, ..GenTest, ..TypeTruth

# Calls `f(args...)` and checks its result against the return type Julia infers for the call
# (what the generated method declares), then everything reachable from it.
function returns!(r, f, args...)
    declared = only(Base.return_types(f, map(Core.Typeof, args)))
    return walk!(r, check!(r, string(f), f(args...), declared), 3)
end

@testset "type truth of Demo" begin
    r = Report()
    p = Demo.Point(1, 2)
    c = Demo.Counter("c", 2)
    sq = Demo.square(Demo.Shape2D, 2)
    spec = Demo.TensorSpec("float32", "cpu", (2, 3))
    for (f, args) in ((Demo.add_one, (1,)), (Demo.echo_int, (typemax(Int64),)), (Demo.echo_float, (1.5,)),
                      (Demo.echo_bool, (true,)), (Demo.echo_string, ("s",)), (Demo.echo_bytes, (UInt8[1, 2],)),
                      (Demo.echo_optional_int, (nothing,)), (Demo.echo_optional_int, (3,)),
                      (Demo.checked_sqrt, (4,)), (Demo.concat, ("a", "b")), (Demo.greet, (nothing,)),
                      (Demo.echo_dtype, ("float32",)), (Demo.echo_device, ("cpu",)), (Demo.echo_shape, ((2, 3),)),
                      (Demo.make_range, (5,)), (Demo.make_nested, (3,)), (Demo.make_shape, ([2, 3],)),
                      (Demo.word_lengths, (["a", "bb"],)), (Demo.map_keys, (Dict("a" => 1),)),
                      (Demo.map_get, (Dict("a" => 1), "a")), (Demo.array_get, ([1, 2], 0)),
                      (Demo.make_multiplier, (2.0,)), (Demo.make_counter_fn, (1,)), (Demo.arange, (3,)),
                      (Demo.echo_any, (p,)), (Demo.device_name, ("cpu",)), (Demo.dtype_bits, ("float32",)),
                      (Demo.norm, (p,)), (Demo.translate, (p, 1, 1)), (Demo.distance, (p, p)),
                      (Demo.origin, (Demo.Point,)), (Demo.to_2d, (Demo.Point3D(1, 2, 3),)),
                      (Demo.increment, (c,)), (Demo.add, (c, 2)), (Demo.describe, (c,)), (Demo.to_string, (c,)),
                      (Demo.with_step, (Demo.Counter, "s", 2)), (Demo.area, (sq,)), (Demo.num_vertices, (sq,)),
                      (Demo.perimeter, (sq,)), (Demo.square, (Demo.Shape2D, 1)), (Demo.numel, (spec,)),
                      (Demo.nbytes, (spec,)))
        returns!(r, f, args...)
    end
    for x in (p, c, sq, spec, Demo.Point3D(1, 2, 3))
        walk!(r, x, 4)
    end
    println("type truth of Demo: $(r.checked) values checked, $(length(r.observed)) declarations observed")
    @test r.checked > 100
    @test r.mismatches == String[]
end

@testset "type truth of TestingLib" begin
    r = Report()
    for (f, args) in ((TestingLib.add_one, (1,)), (TestingLib.schema_id_int, (1,)),
                      (TestingLib.schema_id_float, (1.5,)), (TestingLib.schema_id_bool, (true,)),
                      (TestingLib.schema_id_string, ("s",)), (TestingLib.schema_id_arr_int, ([1, 2],)),
                      (TestingLib.schema_id_list_int, ([1, 2],)), (TestingLib.schema_id_dict_str_int, (Dict("a" => 1),)),
                      (TestingLib.schema_id_map_str_int, (Dict("a" => 1),)), (TestingLib.schema_id_opt_int, (nothing,)),
                      (TestingLib.schema_id_opt_int, (1,)), (TestingLib.schema_id_arr_str, (["a"],)), (TestingLib.schema_id_variant_int_str, (1,)),
                      (TestingLib.schema_id_dict_str_str, (Dict("a" => "b"),)), (TestingLib.schema_id_arr, ([1, "a"],)))
        returns!(r, f, args...)
    end
    # Every type that constructs from no arguments, and everything reachable from it.
    for name in names(TestingLib)
        T = getfield(TestingLib, name)
        T isa DataType && T <: TVMFFI.FFIObject && !isabstracttype(T) || continue
        object = try
            T()
        catch
            continue  # it needs arguments
        end
        walk!(r, object, 4)
    end
    walk!(r, TestingLib.TestIntPair(1, 2), 4)
    println("type truth of TestingLib: $(r.checked) values checked, $(length(r.observed)) declarations observed")
    @test r.checked > 20
    @test r.mismatches == String[]
end
end
