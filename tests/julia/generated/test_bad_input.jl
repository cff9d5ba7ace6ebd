# The bad-input matrix (the same cases as tests/node/bad_input.test.mjs and
# tests/cpp/test_bad_input.cpp): each case throws a Julia exception that names the function (and
# the argument) or is handled as documented, never crashes, and leaks nothing.
isdefined(Main, :GenTest) || include(joinpath(@__DIR__, "common.jl"))
module TestBadInput
using Test, TVMFFI, Demo, TestingLib, ..GenTest

caught(f) = try
    f()
    nothing
catch e
    e
end
message(e) = sprint(showerror, e)

# Arguments that no method takes: an ArgumentError in the caller's words (the function, the
# parameter, its type, the type given, or how many arguments were expected).
@testset "wrong type: ArgumentError naming the function, the parameter and both types" begin
    e = caught(() -> Demo.add_one("x"))
    @test e isa ArgumentError
    @test message(e) == "ArgumentError: add_one(x): expected x::Integer, got a value of type String"
    @test message(caught(() -> Demo.concat("a", 5))) ==
          "ArgumentError: concat(a, b): expected b::AbstractString, got a value of type Int64"
    @test message(caught(() -> Demo.Point("a", 4))) ==
          "ArgumentError: Point(x, y): expected x::Real, got a value of type String"
    @test message(caught(() -> Demo.translate(Demo.Point(1, 2), 1, "b"))) ==
          "ArgumentError: translate(self, dx, dy): expected dy::Real, got a value of type String"
    # The raw function: the runtime's own TypeError.
    raw = get_global_func("demo.add_one")
    e = caught(() -> raw("x"))
    @test e isa FFIError{:TypeError}
    @test occursin("argument #0 when calling: `demo.add_one(0: int) -> int`. Expected `int` but got `ffi.SmallStr`", e.message)
    check_no_leaks(label = "wrong type") do
        @test_throws ArgumentError Demo.concat("a", 5)
        @test_throws FFIError{:TypeError} raw("x")
    end
end

@testset "wrong count: how many arguments were expected; the raw function counts" begin
    @test message(caught(() -> Demo.add_one())) ==
          "ArgumentError: add_one(x): expected 1 argument, got 0 (missing x::Integer)"
    @test message(caught(() -> Demo.add_one(1, "two"))) ==
          "ArgumentError: add_one(x): expected 1 argument, got 2 (the first extra one a value of type String)"
    @test message(caught(() -> Demo.Point(1))) ==
          "ArgumentError: Point(x, y): expected 2 arguments, got 1 (missing y::Real)"
    @test message(caught(() -> Demo.add_one(1; y = 2))) ==
          "ArgumentError: add_one(x): takes no keyword arguments, got y"
    e = caught(() -> get_global_func("demo.add_one")(1, 2))
    @test e isa FFIError{:TypeError}
    @test occursin("`demo.add_one(0: int) -> int`. Expected 1 but got 2 arguments", e.message)
end

@testset "nothing: ArgumentError for required arguments, None for optional ones" begin
    @test message(caught(() -> Demo.concat(nothing, "a"))) ==
          "ArgumentError: concat(a, b): expected a::AbstractString, got a value of type Nothing"
    @test Demo.echo_optional_int(nothing) === nothing
    e = caught(() -> get_global_func("demo.add_one")(nothing))
    @test e isa FFIError{:TypeError} && occursin("got `None`", e.message)
end

@testset "out-of-range ints: InexactError or TypeError naming the function" begin
    @test caught(() -> Demo.echo_int(typemax(UInt64))) isa InexactError
    @test caught(() -> Demo.echo_int(Int128(2)^70)) isa InexactError
    @test message(caught(() -> Demo.echo_int(big(2)^63))) ==
          "ArgumentError: echo_int(x): expected x::Integer, got a BigInt beyond Int64 (9223372036854775808)"
    @test Demo.echo_int(typemax(Int64)) === typemax(Int64)
    @test Demo.echo_int(typemin(Int64)) === typemin(Int64)
    @test message(caught(() -> Demo.echo_int(1.5))) ==
          "ArgumentError: echo_int(x): expected x::Integer, got a value of type Float64"
end

# Values a parameter's Julia type takes but the library refuses: the library's TypeError in the
# caller's words (the parameter, the type it takes in Julia's terms, the kind of value given),
# thrown while the library's error is handled, which stays on the exception stack.
@testset "values the Julia type takes but the library refuses: ArgumentError in the caller's words" begin
    @test message(caught(() -> Demo.make_shape(Any[1, "x"]))) ==
          "ArgumentError: make_shape(dims): expected dims::AbstractVector{<:Integer}, got a vector of Int64 and String values"
    stack = try
        Demo.make_shape(Any[1, "x"])
        nothing
    catch
        # `catch_stack` is deprecated since 1.7 (a warning under `--depwarn`).
        VERSION >= v"1.7" ? Base.current_exceptions() : Base.catch_stack()
    end
    @test length(stack) == 2
    @test first(stack[2]) isa ArgumentError
    runtime = first(stack[1])
    @test runtime isa FFIError{:TypeError}
    @test occursin("argument #0 when calling: `demo.make_shape(", runtime.message)
    # A constructor's parameter (typed `__ffi_init__`).
    @test message(caught(() -> Demo.Shape2D("s", Any[Demo.Point(1, 2), 3]))) ==
          "ArgumentError: Shape2D(name, vertices, color): expected vertices::AbstractVector{<:AbstractPoint}, " *
          "got a vector of Demo.Point and Int64 values"
    check_no_leaks(label = "refused by the library") do
        @test_throws ArgumentError Demo.make_shape(Any[1, "x"])
        @test_throws ArgumentError Demo.echo_int(big(2)^63)
    end
end

@testset "NaN and Inf: pass as floats, refused as ints" begin
    @test isnan(Demo.echo_float(NaN))
    @test Demo.echo_float(Inf) === Inf
    @test Demo.echo_float(-Inf) === -Inf
    @test caught(() -> Demo.add_one(NaN)) isa ArgumentError
end

@testset "library errors: their frames, up to the call from Julia" begin
    e = caught(() -> TestingLib.test_raise_error("ValueError", "boom"))
    @test e isa FFIError{:ValueError}
    shown = message(e)
    @test startswith(shown, "ValueError: boom")
    # No frame of Julia's own runtime or of the compiled caller (jl_*, julia_*, japi1_*...).
    @test !occursin(r"in (jl_|ijl_|julia_|japi|jfptr_)", shown)
    # The library's frames stay (when the runtime recorded them), and the whole backtrace too.
    @test occursin("TestRaiseError", e.backtrace) == occursin("TestRaiseError", shown)
    @test startswith(e.backtrace, TVMFFI.library_frames(e.backtrace))
end

@testset "invalid UTF-8 and embedded NUL keep their bytes" begin
    bad = String(UInt8[0x61, 0xff, 0x62, 0xfe, 0x63, 0x64, 0x65, 0x66])  # heap-sized
    @test codeunits(Demo.echo_string(bad)) == codeunits(bad)
    @test Demo.string_length(String(UInt8[0xff, 0xfe])) == 2
    @test Demo.string_length("a\0b") == 3
    @test Demo.echo_string("a\0b, long enough for the heap") == "a\0b, long enough for the heap"
end

@testset "a 100 MB string round-trips" begin
    big_text = "x"^100_000_000
    @test Demo.string_length(big_text) == 100_000_000
    @test sizeof(Demo.echo_string(big_text)) == 100_000_000
end

@testset "100,000-deep and cyclic containers: ArgumentError" begin
    deep = Any[1]
    for _ in 1:100_000
        deep = Any[deep]
    end
    cyclic = Any[1]
    push!(cyclic, cyclic)
    selfdict = Dict{Any,Any}()
    selfdict["self"] = selfdict
    for value in (deep, cyclic, selfdict, (cyclic,))
        e = caught(() -> Demo.echo_any(value))
        @test e isa ArgumentError && occursin("nested more than 1000 levels deep", e.msg)
    end
    @test Demo.echo_any(Any[Any[1]]) == [[1]]  # the thread still works
    check_no_leaks(label = "deep and cyclic") do
        @test_throws ArgumentError Demo.echo_any(deep)
        @test_throws ArgumentError Demo.echo_any(cyclic)
    end
end

@testset "use after close: ArgumentError; closing twice is a no-op" begin
    p = Demo.Point(3, 4)
    close(p)
    close(p)
    e = caught(() -> Demo.norm(p))
    @test e isa ArgumentError && occursin("closed", e.msg)
end

@testset "unknown function and unknown type key" begin
    e = caught(() -> get_global_func("no.such.function"))
    @test e isa KeyError && e.key == "no.such.function"
    for f in (() -> TVMFFI.type_index("no.such.Type"), () -> TVMFFI.construct("no.such.Type", 1))
        e = caught(f)
        @test e isa FFIError && occursin("no.such.Type", e.message)
    end
end

@testset "a library path that is missing or not a library: FFIError naming the path" begin
    for path in ("/nonexistent/libnothing.so", "/etc/passwd")
        e = caught(() -> load_module(path))
        @test e isa FFIError && occursin(path, e.message)
    end
end

end # module
