# Errors both ways: errors raised in C/C++/Rust become FFIError{kind} exceptions with message and
# backtrace; Julia exceptions thrown in callbacks become raised errors of a mapped kind carrying
# the Julia frames; errors that cross several times keep kind, message and every backtrace.
isdefined(Main, :FFITest) || include(joinpath(@__DIR__, "common.jl"))
module TestErrors
using Test, TVMFFI, ..FFITest
const T = TVMFFI

testing_lib()
const raise = get_global_func("testing.test_raise_error")
const apply = get_global_func("testing.apply")

caught(f) =
    try
        f()
        nothing
    catch e
        e
    end

@testset "errors from C become typed exceptions" begin
    for (kind, E) in (("ValueError", TVMFFI.ValueError), ("TypeError", TVMFFI.TypeError),
                      ("IndexError", TVMFFI.IndexError), ("KeyError", TVMFFI.KeyError),
                      ("AttributeError", TVMFFI.AttributeError), ("RuntimeError", TVMFFI.RuntimeError))
        e = caught(() -> raise(kind, "message of $kind"))
        @test e isa E
        @test e isa FFIError
        @test e.kind == kind
        @test e.message == "message of $kind"
        @test !isempty(e.backtrace)
        @test e.obj isa TVMFFI.Object
        @test_throws E raise(kind, "again")
    end
    # kinds without an alias still get their own type
    e = caught(() -> raise("MyCustomError", "custom"))
    @test e isa FFIError{:MyCustomError}
    @test e.kind == "MyCustomError"
    @test !(e isa TVMFFI.RuntimeError)
    # TVMFFI's KeyError is not Base's
    @test !(caught(() -> raise("KeyError", "k")) isa Base.KeyError)
end

@testset "the backtrace names the C++ frame" begin
    e = caught(() -> raise("ValueError", "where"))
    @test occursin("testing.cc", e.backtrace) || occursin("TestRaiseError", e.backtrace)
    @test occursin(r"File \".*\", line \d+, in ", e.backtrace)
end

@testset "showerror" begin
    e = caught(() -> raise("ValueError", "shown message"))
    s = sprint(showerror, e)
    @test startswith(s, "ValueError: shown message")
    @test occursin("backtrace", s)
    @test sprint(show, FFIError("IndexError", "m")) == "TVMFFI.FFIError(\"IndexError\", \"m\")"
end

@testset "Julia exceptions in callbacks become raised errors" begin
    cases = (
        (() -> error("plain error")) => ("RuntimeError", "plain error"),
        (() -> throw(ArgumentError("bad arg"))) => ("ValueError", "bad arg"),
        (() -> [1, 2][5]) => ("IndexError", "BoundsError"),
        (() -> Dict(1 => 2)[3]) => ("KeyError", "KeyError"),
        (() -> sqrt(-1.0)) => ("ValueError", "DomainError"),
        (() -> 1 + "x") => ("TypeError", "MethodError"),
        (() -> throw(FFIError("CustomKind", "kept as is"))) => ("CustomKind", "kept as is"),
    )
    for (f, (kind, fragment)) in cases
        e = caught(() -> apply(f))
        @test e isa FFIError
        @test e.kind == kind
        @test occursin(fragment, e.message)
        # the Julia frames of the callback are in the backtrace
        @test occursin("test_errors.jl", e.backtrace)
    end
    @test caught(() -> apply(() -> error("x"))) isa TVMFFI.RuntimeError
end

@testset "error_kind is extensible" begin
    struct MyJuliaError <: Exception end
    T.error_kind(::MyJuliaError) = "AttributeError"
    @test caught(() -> apply(() -> throw(MyJuliaError()))) isa TVMFFI.AttributeError
end

@testset "errors crossing several times keep kind, message and all frames" begin
    # C++ raises -> Julia callback sees FFIError and rethrows -> C -> Julia
    rethrowing = () -> raise("IndexError", "deep")
    e = caught(() -> apply(rethrowing))
    @test e isa TVMFFI.IndexError
    @test e.message == "deep"
    @test occursin("testing.cc", e.backtrace) || occursin("TestRaiseError", e.backtrace)
    @test occursin("test_errors.jl", e.backtrace)
    # Julia -> C -> Julia -> C -> Julia: the inner Julia error surfaces with its kind
    inner = () -> throw(ArgumentError("innermost"))
    middle = () -> apply(inner)
    e2 = caught(() -> apply(middle))
    @test e2 isa TVMFFI.ValueError
    @test occursin("innermost", e2.message)
    # catching and handling inside a callback works: nothing is raised
    handled = () -> try
        raise("ValueError", "handled")
    catch err
        "handled: " * err.message
    end
    @test apply(handled) == "handled: handled"
end

@testset "errors as values" begin
    err = FFIError("ValueError", "as a value", "  File \"x.jl\", line 1, in f\n")
    echo = get_global_func("testing.echo")
    back = echo(err)                               # an ffi.Error object goes in and comes back
    @test back isa TVMFFI.ValueError
    @test back.message == "as a value"
    @test back.obj isa TVMFFI.Object
    @test echo(back).obj == back.obj               # the same object passes through unchanged
    @test T.type_key(back.obj) == "ffi.Error"
end

@testset "argument conversion errors are Julia errors, raised before the call" begin
    @test_throws ArgumentError get_global_func("testing.echo")(1 // 3)
    @test_throws InexactError get_global_func("testing.echo")(typemax(UInt64))
end

@testset "a pending error does not leak into the next call" begin
    @test caught(() -> raise("ValueError", "first")) isa FFIError
    @test get_global_func("testing.add_one")(1) === 2
end

# (Kept small: raising an error is slow on ffihub's runtime, about 0.1 s each at the time of writing.)
check_no_leaks(label = "errors") do
    for i in 1:40
        caught(() -> raise("ValueError", "error number $i"))
        caught(() -> apply(() -> error("julia error $i")))
        caught(() -> apply(() -> raise("KeyError", "nested $i")))
    end
end

end # module

module TestUnwindCheck
using Test, TVMFFI

@testset "the libunwind versions that crash Debian's Julia 1.5 are recognized" begin
    @test TVMFFI._libunwind_too_new("1.6.2-3")
    @test TVMFFI._libunwind_too_new("1.8.1-0.1")
    @test TVMFFI._libunwind_too_new("2:1.6.0")
    @test !TVMFFI._libunwind_too_new("1.3.2-2")
    @test !TVMFFI._libunwind_too_new("1.5.0")
    @test !TVMFFI._libunwind_too_new("")
    # This process runs with a libunwind that works (scripts/julia): nothing to report.
    system = TVMFFI._debian_system_libunwind()
    @test system === nothing || !TVMFFI._libunwind_too_new(system)
end
end
