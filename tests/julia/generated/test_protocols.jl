# Julia's protocols on generated values: containers carry the element types their signatures
# declare (`eltype`, `collect`), a `to_string` method is what `print` and `string` write, and
# `show` prints the runtime's text (the type's `__ffi_repr__` hook when it has one).
isdefined(Main, :GenTest) || include(joinpath(@__DIR__, "common.jl"))
module TestProtocols
using Test, TVMFFI, Demo, TestingLib, ..GenTest

@testset "containers carry their declared element types" begin
    r = Demo.make_range(3)                          # Array[int]
    @test r isa FFIArray{Int64} && eltype(r) === Int64
    @test collect(r) isa Vector{Int64} && collect(r) == [0, 1, 2]
    x = TestingLib.schema_id_arr_int([1, 2, 3])
    @test typeof(x) === FFIArray{Int64} && typeof(collect(x)) === Vector{Int64}
    @test TestingLib.schema_id_list_int([1, 2]) isa FFIList{Int64}
    m = Demo.word_lengths(["ab", "c"])              # Map[str, int]
    @test m isa FFIMap{String,Int64}
    @test collect(m) == Pair{String,Int64}["ab" => 2, "c" => 1]
    @test m["ab"] === 2 && keys(m) isa AbstractSet{String}
    n = Demo.make_nested(2)                         # Array[Map[str, Array[int]]]
    @test n isa FFIArray{FFIMap{String,FFIArray{Int64}}}
    @test n[2]["range"] isa FFIArray{Int64} && collect(n[2]["range"]) == [0]
    vs = Demo.square(Demo.Shape2D, 2).vertices      # a field: Array[demo.Point]
    @test eltype(vs) === Demo.AbstractPoint && vs[1] isa Demo.Point
    # Without a declared type (untyped calls, containers made in Julia): Any.
    @test eltype(FFIArray([1, "a"])) === Any
    @test get_global_func("demo.make_range")(2) isa FFIArray{Any}
    # Made with an element type: elements are checked when read.
    typed = FFIArray{Int64}([1, 2])
    @test typed isa FFIArray{Int64} && collect(typed) == [1, 2]
    @test_throws FFIError{:TypeError} FFIArray{Int64}([1, "a"])[2]
end

@testset "print and string write a `to_string` method's text" begin
    c = Demo.Counter("clicks", 2)
    @test string(c) == "Counter(clicks: 2)"
    @test sprint(print, c) == "Counter(clicks: 2)"
    @test "$c" == "Counter(clicks: 2)"
    Demo.increment(c)
    @test string(c) == "Counter(clicks: 3)"
    # `show` (and so `repr` and the REPL) prints the runtime's text.
    @test repr(c) == "demo.Counter(label=\"clicks\", count=3, step=1)"
    # Without `to_string`: the runtime's text both ways.
    p = Demo.Point(1, 2)
    @test string(p) == repr(p) == "demo.Point(x=1, y=2)"
end

@testset "containers show like Julia's" begin
    shown = sprint(show, MIME"text/plain"(), Demo.make_range(2))
    @test startswith(shown, "2-element FFIArray{Int64}:")
    @test sprint(show, Demo.make_range(3)) == "[0, 1, 2]"
    @test sprint(show, Demo.word_lengths(["a"])) == "FFIMap(\"a\" => 1)"
end
end
