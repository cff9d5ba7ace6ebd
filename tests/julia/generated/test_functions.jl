# Global functions through their typed wrappers: scalars, strings, bytes, optionals, Any, packed
# functions; argument annotations reject wrong types before any call; results have the declared
# Julia type (inferred, no boxing for scalars).
isdefined(Main, :GenTest) || include(joinpath(@__DIR__, "common.jl"))
module TestFunctions
using Test, TVMFFI, Demo, ..GenTest

@testset "scalars" begin
    @test add_one(41) === 42
    @test add_one(Int32(1)) === 2                  # any Integer
    @test add_one(typemax(Int64)) === typemin(Int64)
    @test_throws InexactError add_one(UInt64(2)^63)
    @test echo_int(-5) === -5
    @test echo_float(1.5) === 1.5
    @test echo_float(2) === 2.0                    # integers convert to the declared float
    @test echo_float(1 // 2) === 0.5
    @test echo_bool(true) === true
    @test checked_sqrt(16) === 4.0
    @test safe_divide(1, 4) === 0.25
    @test safe_divide(1, 0) === nothing
    @test_throws ArgumentError add_one(1.5)        # annotations are checked in Julia
    @test_throws ArgumentError add_one("1")
    @test_throws ArgumentError echo_bool(1)
    @test @inferred(add_one(1)) === 2
    @test @inferred(echo_float(1.0)) === 1.0
    @test @inferred(Union{Nothing,Float64}, safe_divide(1.0, 2.0)) === 0.5
    @test @inferred(echo_bool(false)) === false
end

@testset "strings and bytes" begin
    @test echo_string("hi") == "hi"                # small string
    long = "a string that is longer than seven bytes, with ünïcödé"
    @test echo_string(long) == long                # heap string
    @test echo_string(SubString(long, 1, 20)) == long[1:20]
    @test concat("foo", "bar") == "foobar"
    @test Demo.repeat("ab", 3) == "ababab"
    @test string_length("héllo") == 6              # bytes
    @test @inferred(concat("a", "b")) == "ab"
    @test echo_string("") == ""
    @test greet("Julia") == "Hello, Julia!"
    @test greet(nothing) == "Hello, world!"
    @test parse_int(" 42 ") === 42
    b = UInt8[0x00, 0xff, 0x10]
    @test echo_bytes(b) == b
    @test echo_bytes(b) isa Vector{UInt8}
    big = rand(UInt8, 1000)
    @test reverse_bytes(big) == reverse(big)
    @test echo_bytes(codeunits("bytes!")) == Vector{UInt8}("bytes!")
    @test echo_bytes(view(big, 1:10)) == big[1:10]          # any AbstractVector{UInt8}
    @test_throws ArgumentError echo_string(1)
end

@testset "optional and Any" begin
    @test echo_optional_int(3) === 3
    @test echo_optional_int(nothing) === nothing
    @test @inferred(Union{Nothing,Int64}, echo_optional_int(3)) === 3
    @test echo_any(1) === 1
    @test echo_any("x") == "x"
    @test echo_any(nothing) === nothing
    @test is_none(nothing) && !is_none(0)
    p = Point(1, 2)
    @test echo_any(p) isa Point
    @test echo_any(p) == p                         # the same object
end

@testset "packed functions" begin
    @test packed_sum() === 0
    @test packed_sum(1, 2, 3) === 6
    @test packed_sum(1, 2.5) === 3.5
    @test packed_sum(true, 1) === 2
    @test arg_types(1, 1.0, "s", "a longer string", nothing) ==
          ["int", "float", "ffi.SmallStr", "ffi.String", "None"]
    @test arg_types(Point(0, 0)) == ["demo.Point"]
    @test_throws TVMFFI.TypeError packed_sum("x")
end

@testset "misc" begin
    @test version() isa String && !isempty(version())
    @test Demo.live_object_count() isa Int64
end

check_no_leaks(label = "functions") do
    for i in 1:200
        add_one(i)
        echo_string("heap string number $i")
        echo_bytes(rand(UInt8, 32))
        greet(isodd(i) ? nothing : "x$i")
        echo_any(Point(i, i))
        arg_types(i, "a longer string value $i")
    end
end

end # module
