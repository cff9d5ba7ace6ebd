# Containers: ffi.Array / ffi.List as AbstractVector views, ffi.Map / ffi.Dict as AbstractDict
# views, ffi.Shape; Julia vectors, tuples and Dicts converting in; mutation of List and Dict
# through the runtime's globals, seen from C.
isdefined(Main, :FFITest) || include(joinpath(@__DIR__, "common.jl"))
module TestContainers
using Test, TVMFFI, ..FFITest
const T = TVMFFI

testing_lib()
const echo = get_global_func("testing.echo")
g(name) = get_global_func(name)

@testset "FFIArray" begin
    a = FFIArray([1, "two", 3.0, nothing, true])
    @test a isa FFIArray
    @test a isa AbstractVector
    @test T.type_key(a) == "ffi.Array"
    @test length(a) == 5
    @test size(a) == (5,)
    @test a[1] === 1 && a[2] == "two" && a[3] === 3.0 && a[4] === nothing && a[5] === true
    @test collect(a) == Any[1, "two", 3.0, nothing, true]
    @test a == Any[1, "two", 3.0, nothing, true]
    @test_throws BoundsError a[0]
    @test_throws BoundsError a[6]
    @test [x for x in a if x isa Int] == [1]
    # the runtime's own accessors agree with the view
    @test g("ffi.ArraySize")(a) == 5
    @test g("ffi.ArrayGetItem")(a, 1) == "two"
    @test g("ffi.ArrayContains")(a, "two") === true
    @test isempty(FFIArray())
    @test FFIArray(1:4) == [1, 2, 3, 4]
end

@testset "Julia vectors and tuples convert to ffi.Array" begin
    r = echo(Any[1, "x"])
    @test r isa FFIArray && r == Any[1, "x"]
    @test echo((1, 2, 3)) isa FFIArray
    @test echo(["a", "b"]) == ["a", "b"]                   # non-numeric vectors are arrays
    @test g("testing.schema_id_arr_int")((4, 5, 6)) == [4, 5, 6]
    @test g("testing.schema_id_arr_str")(["p", "q"]) == ["p", "q"]
    nested = echo(Any[Any[1, 2], (3, Any["four"])])
    @test nested[1] isa FFIArray && nested[2][2][1] == "four"
    @test convert(FFIArray, [1, 2]) isa FFIArray
end

@testset "arrays of objects keep them alive" begin
    p = T.construct("testing.TestIntPair", 3, 4)
    a = FFIArray([p, p])
    q = a[2]
    @test T.same_object(p, q)
    @test q.a == 3
    p = nothing
    GC.gc()
    @test a[1].b == 4
end

@testset "FFIList" begin
    l = FFIList([1, 2, 3])
    @test l isa FFIList && T.type_key(l) == "ffi.List"
    push!(l, "four")
    @test length(l) == 4 && l[4] == "four"
    l[1] = 10
    @test l[1] == 10
    insert!(l, 2, "ins")
    @test collect(l) == Any[10, "ins", 2, 3, "four"]
    deleteat!(l, 2)
    @test collect(l) == Any[10, 2, 3, "four"]
    @test pop!(l) == "four"
    @test length(l) == 3
    @test g("ffi.ListSize")(l) == 3
    # mutations are shared with C: a C function appending to the same list
    g("ffi.ListAppend")(l, 99)
    @test l[end] == 99
    empty!(l)
    @test isempty(l)
    @test_throws BoundsError l[1]
    @test g("testing.schema_id_list_int")(FFIList([7, 8])) == [7, 8]
end

@testset "FFIMap" begin
    m = FFIMap(Dict("a" => 1, "b" => "two"))
    @test m isa FFIMap && m isa AbstractDict
    @test T.type_key(m) == "ffi.Map"
    @test length(m) == 2
    @test m["a"] === 1 && m["b"] == "two"
    @test haskey(m, "a") && !haskey(m, "zzz")
    @test get(m, "zzz", :default) === :default
    @test_throws Base.KeyError m["zzz"]
    @test Set(keys(m)) == Set(["a", "b"])
    @test Set(values(m)) == Set(Any[1, "two"])
    @test Dict(m) == Dict{Any,Any}("a" => 1, "b" => "two")
    # insertion order is kept
    ordered = FFIMap(["k$i" => i for i in 1:20])
    @test collect(keys(ordered)) == ["k$i" for i in 1:20]
    # non-string keys
    mixed = FFIMap([1 => "one", "x" => 2, 2.5 => nothing])
    @test mixed[1] == "one" && mixed["x"] == 2 && mixed[2.5] === nothing
    @test isempty(FFIMap())
end

@testset "Julia Dicts convert to ffi.Map" begin
    r = echo(Dict("x" => 1))
    @test r isa FFIMap && r["x"] == 1
    @test g("testing.schema_id_map_str_int")(Dict("a" => 1, "b" => 2)) == Dict("a" => 1, "b" => 2)
    @test g("testing.schema_id_map_str_str")(Dict("k" => "v"))["k"] == "v"
    @test_throws FFIError g("testing.schema_id_map_str_int")(Dict("a" => "not an int"))
end

@testset "FFIDict" begin
    d = FFIDict(Dict("a" => 1))
    @test d isa FFIDict && T.type_key(d) == "ffi.Dict"
    d["b"] = 2
    @test length(d) == 2 && d["b"] == 2
    d["a"] = "replaced"
    @test d["a"] == "replaced"
    delete!(d, "a")
    @test !haskey(d, "a") && length(d) == 1
    delete!(d, "not there")
    g("ffi.DictSetItem")(d, "from C", 3)              # shared with C
    @test d["from C"] == 3
    empty!(d)
    @test isempty(d)
    @test g("testing.schema_id_dict_str_int")(FFIDict(Dict("z" => 26)))["z"] == 26
end

@testset "FFIShape" begin
    s = FFIShape((2, 3, 4))
    @test s isa FFIShape && s isa AbstractVector{Int64}
    @test T.type_key(s) == "ffi.Shape"
    @test length(s) == 3 && s == [2, 3, 4]
    @test Tuple(s) == (2, 3, 4)
    @test prod(s) == 24
    @test FFIShape(Int[]) == Int[]
    @test echo(s) == [2, 3, 4]
    @test echo(s) isa FFIShape
end

@testset "closed containers" begin
    a = FFIArray([1])
    close(a)
    @test !isopen(a)
    @test_throws ArgumentError length(a)
    @test sprint(show, a) == "FFIArray(<closed>)"
    close(a)                                             # twice is fine
end

@testset "show" begin
    shown = sprint(show, MIME"text/plain"(), FFIArray([1, 2]))
    @test occursin("2-element", shown) && occursin("FFIArray", shown) && endswith(shown, "\n 1\n 2")
    @test occursin("FFIMap", sprint(show, MIME"text/plain"(), FFIMap(Dict("a" => 1))))
end

check_no_leaks(label = "containers") do
    for i in 1:100
        a = FFIArray([i, "s$i", Any[i, i + 1]])
        a[3][2]
        l = FFIList(1:5)
        push!(l, "x")
        pop!(l)
        m = FFIMap(Dict("k$i" => i, "n" => Dict("inner" => i)))
        m["n"]["inner"]
        collect(m)
        d = FFIDict()
        d["a"] = a
        delete!(d, "a")
        FFIShape((i, 2))
        echo(Any[Dict(1 => 2)])
    end
end

@testset "to_ffi: typed containers passed back, nothing in Any" begin
    arr_int = get_global_func("testing.schema_id_arr_int")
    ints = T.FFIArray{Int64}([1, 2, 3])
    @test T.to_ffi(T.ArrayOf{Int64}, ints) === ints           # passed as it is, no MethodError
    @test collect(arr_int(T.to_ffi(T.ArrayOf{Int64}, ints))) == [1, 2, 3]
    floats = T.FFIArray{Float64}([1.5])
    @test T.to_ffi(T.ArrayOf{Float64}, floats) === floats
    list = T.FFIList{Int64}([4])
    @test T.to_ffi(T.ListOf{Int64}, list) === list
    flist = T.FFIList{Float64}([4.5])
    @test T.to_ffi(T.ListOf{Float64}, flist) === flist
    @test T.to_ffi(Any, nothing) === nothing
    @test T.to_ffi(Nothing, nothing) === nothing
    @test collect(echo(T.to_ffi(T.ArrayOf{Any}, Any[1, nothing]))) == Any[1, nothing]
    m = echo(T.to_ffi(T.MapOf{String,Any}, Dict("a" => nothing)))
    @test m["a"] === nothing
end

end # module
