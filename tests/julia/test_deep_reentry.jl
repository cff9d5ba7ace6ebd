# Re-entry far deeper than the native stack allows (Julia -> C -> Julia -> ...) raises
# `RecursionError` instead of crashing. test_callbacks.jl runs this file in a process of its own
# with a small stack; it is not in the suite's list (runtests.jl), since on the usual 8 MB stack
# the guard trips only after about 2,500 levels, and every level the error unwinds through is a
# Julia `throw`, which records the whole stack: about 45 s per deep call on Julia 1.5.
isdefined(Main, :FFITest) || include(joinpath(@__DIR__, "common.jl"))
module TestDeepReentry
using Test, TVMFFI, ..FFITest

testing_lib()
const apply = get_global_func("testing.apply")

depth(n) = n == 0 ? 0 : 1 + apply(depth, n - 1)

@testset "re-entry 10,000 deep raises instead of crashing" begin
    @test depth(100) == 100
    err = try
        depth(10_000)
        nothing
    catch e
        e
    end
    @test err isa FFIError
    @test err.kind == "RecursionError"
    @test occursin("call nesting too deep: the native stack is nearly exhausted", err.message)
    @test depth(100) == 100  # the thread is usable afterwards
    check_no_leaks(label = "deep re-entry") do
        @test_throws FFIError depth(10_000)
    end
end

end # module
