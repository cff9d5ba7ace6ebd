# Functions: global lookup, calls with 0..many arguments through one TVMFFIFunctionCall, typed
# callees converting and rejecting arguments, functions as values, the global registry.
isdefined(Main, :FFITest) || include(joinpath(@__DIR__, "common.jl"))
module TestFunctions
using Test, TVMFFI, ..FFITest
const T = TVMFFI

testing_lib()

@testset "lookup" begin
    f = get_global_func("testing.add_one")
    @test f isa FFIFunction
    @test T.type_key(f) == "ffi.Function"
    @test f(1) === 2
    @test call_packed(f, 41) === 42
    @test_throws Base.KeyError get_global_func("no.such.function")
    @test get_global_func("no.such.function"; allow_missing = true) === nothing
    names = T.list_global_func_names()
    @test "ffi.Array" in names && "testing.add_one" in names
    @test allunique(names)
end

@testset "arity" begin
    @test get_global_func("testing.schema_no_args")() isa Int
    @test get_global_func("testing.schema_no_args_no_return")() === nothing
    @test get_global_func("testing.schema_no_return")(1) === nothing
    nop = get_global_func("testing.nop")
    @test nop() === nothing
    @test nop(1, "two", 3.0, nothing, [1], Dict(1 => 2)) === nothing
    echo = get_global_func("testing.echo")
    @test echo(5) === 5
    # many arguments, via a Julia callback that returns them as an ffi.Array
    collect_args = FFIFunction((args...) -> collect(Any, args))
    @test collect(collect_args(1:40...)) == collect(1:40)
    @test collect(T.call_packed_vector(collect_args, Any[1, "b", 3.0])) == Any[1, "b", 3.0]
    @test collect(T.call_packed_vector(collect_args, collect(1:1000))) == collect(1:1000)
end

@testset "typed callees convert or reject arguments" begin
    id_int = get_global_func("testing.schema_id_int")
    @test id_int(Int32(3)) === 3
    @test id_int(true) in (1, true)                     # bool -> int is an accepted conversion
    @test_throws FFIError id_int("not an int")
    e = try
        id_int("not an int")
    catch err
        err
    end
    @test e isa TVMFFI.TypeError
    @test occursin("int", e.message)
    @test_throws FFIError get_global_func("testing.add_one")()   # missing argument
end

@testset "functions are values" begin
    id_func = get_global_func("testing.schema_id_func")
    add_one = get_global_func("testing.add_one")
    f = id_func(add_one)
    @test f isa FFIFunction
    @test T.same_object(f, add_one)
    @test f(10) === 11
    # Julia functions convert in and come back callable
    g = id_func(x -> 2x)
    @test g isa FFIFunction
    @test g(21) === 42
    @test get_global_func("testing.apply")(add_one, 1) === 2
    @test get_global_func("testing.apply")(+, 1, 2) === 3
end

@testset "metadata" begin
    md = T.global_func_metadata("testing.add_one")
    @test occursin("type_schema", md)
    ts = T.type_schema(md)
    @test ts["type"] == "ffi.Function"
    @test ts["named_args"]["params"] == Any[Dict{String,Any}("type" => "int")]
    @test ts["named_args"]["return"] == Any[Dict{String,Any}("type" => "int")]
    @test T.type_schema(T.global_func_metadata("ffi.Array")) == Dict{String,Any}("type" => "ffi.Function")
    @test T.parse_json("""{"a": [1, 2.5, "x\\n\\u00e9", true, null], "b": {}}""") ==
          Dict{String,Any}("a" => Any[1, 2.5, "x\né", true, nothing], "b" => Dict{String,Any}())
end

@testset "metadata check helper" begin
    schema = """{"type":"ffi.Function","named_args":{"params":[{"type":"int"}],"return":[{"type":"int"}]}}"""
    @test T.check_metadata("Good"; functions = ["testing.add_one" => schema, "testing.nop" => ""],
                           types = ["testing.TestIntPair" => ["a", "b"]]) === nothing
    wrong = """{"type":"ffi.Function","named_args":{"params":[{"type":"float"}],"return":[{"type":"int"}]}}"""
    err = try
        T.check_metadata("Stale"; functions = ["testing.add_one" => wrong, "testing.gone" => ""],
                         types = ["testing.TestIntPair" => ["a", "c"], "testing.Nope" => String[]],
                         regenerate = "ffihub generate --lang julia ...")
        nothing
    catch e
        e
    end
    @test err isa ErrorException
    msg = err.msg
    @test occursin("Stale does not match", msg)
    @test occursin("testing.add_one changed signature", msg)
    @test occursin("testing.gone is not registered", msg)
    @test occursin("missing: c", msg) && occursin("new: b", msg)
    @test occursin("testing.Nope is not registered", msg)
    @test occursin("ffihub generate --lang julia", msg)
end

@testset "closed functions" begin
    f = get_global_func("testing.add_one")
    close(f)
    @test_throws ArgumentError f(1)
    @test sprint(show, f) == "FFIFunction(<closed>)"
end

@testset "global docs (ffihub.GetGlobalFuncDoc, ffihub's runtime only)" begin
    doc = get_global_func("ffihub.GetGlobalFuncDoc"; allow_missing = true)
    @test (doc === nothing) == !is_ffihub()
    if doc !== nothing
        # Apache's testing library: GlobalDef().def("testing.TestIntPairSum", ..., "Get sum of the pair")
        @test doc("testing.TestIntPairSum") == "Get sum of the pair"
        @test doc("testing.add_one") == ""
        @test_throws T.FFIError{:RuntimeError} doc("no.such.global")
    end
end

check_no_leaks(label = "functions") do
    add_one = get_global_func("testing.add_one")
    echo = get_global_func("testing.echo")
    id_func = get_global_func("testing.schema_id_func")
    for i in 1:500
        add_one(i)
        echo(add_one)
        id_func(add_one)(i)
        get_global_func("testing.nop")(i, "x")
    end
end

end # module
