# Errors raised by the library become `FFIError{kind}` exceptions with message and backtrace.
isdefined(Main, :GenTest) || include(joinpath(@__DIR__, "common.jl"))
module TestErrors
using Test, TVMFFI, Demo, TestingLib, ..GenTest

catch_err(f) = try
    f()
    nothing
catch e
    e
end

@testset "kinds" begin
    for kind in ("ValueError", "TypeError", "IndexError", "KeyError", "RuntimeError", "MyOwnError")
        e = catch_err(() -> raise_error(kind, "message of $kind"))
        @test e isa FFIError{Symbol(kind)}
        @test e.kind == kind
        @test e.message == "message of $kind"
    end
    @test_throws TVMFFI.ValueError checked_sqrt(-1)
    @test_throws TVMFFI.ValueError parse_int("x")
    @test_throws TVMFFI.ValueError Demo.repeat("x", -1)
    # A Rust extension's failed allocation (2 TiB) is an error, not an abort of the host.
    @test_throws FFIError{:MemoryError} Demo.repeat("ab", 2^40)
    @test_throws TVMFFI.ValueError TestingLib.test_raise_error("ValueError", "v")
end

@testset "messages and backtraces" begin
    e = catch_err(() -> checked_sqrt(-4))
    @test occursin("cannot take the square root of -4", e.message)
    @test occursin("checked_sqrt", e.backtrace)
    @test occursin("ValueError: cannot take the square root", sprint(showerror, e))
    p = catch_err(() -> Demo.panic("it broke"))
    @test p isa FFIError
    @test p.kind == "InternalError"
    @test occursin("it broke", p.message)
end

@testset "wrong argument types that pass the Julia annotations" begin
    # The library checks elements; its TypeError is worded for the caller, and stays below it.
    e = catch_err(() -> sum_array(["not a float"]))
    @test e isa ArgumentError
    @test occursin("sum_array(values): expected values::AbstractVector{<:Real}", e.msg)
    @test occursin("got a vector of String values", e.msg)
    @test_throws TVMFFI.TypeError map_get(Dict("k" => "v"), "k")   # values must be ints
    @test_throws ArgumentError Demo.add_one("1")                   # caught before the call
end

check_no_leaks(label = "errors") do
    for i in 1:100
        catch_err(() -> raise_error("ValueError", "e$i"))
        catch_err(() -> checked_sqrt(-i))
    end
end

end # module
