# Apache TVM 0.27 through the generated Julia package (tests/tvm/run.sh): typed calls into
# submodules that follow TVM's own namespaces (`Tvm.ir`, `Tvm.target`), printing through
# `__ffi_repr__`, and type truth: every property and element reachable from the calls' results,
# and from the objects each class constructs from no arguments through its own constructor, is of its declared type
# (tests/julia/type_truth.jl). Prints the time of `using Tvm` (the package is precompiled by an
# earlier run).
load = @elapsed using Tvm
using Test, TVMFFI
include(joinpath(@__DIR__, "..", "julia", "type_truth.jl"))
using .TypeTruth

# The concrete object types of a package, in its module and submodules.
function object_types(m::Module, out = DataType[])
    for name in names(m; all = true)
        isdefined(m, name) || continue
        x = getfield(m, name)
        if x isa Module && x !== m && parentmodule(x) === m
            object_types(x, out)
        elseif x isa DataType && x <: TVMFFI.FFIObject && !isabstracttype(x) && parentmodule(x) === m
            push!(out, x)
        end
    end
    return out
end

@testset "TVM from Julia" begin
    seven = Tvm.ir.IntImm(7)
    @test seven isa Tvm.ir.IntImm
    @test seven isa Tvm.ir.AbstractConstant
    @test seven.value == 7
    kinds = collect(Tvm.target.list_target_kinds())
    @test "llvm" in kinds
    @test kinds isa Vector{String}           # Array[str]: an FFIArray{String}
    add = Tvm.ir.get_op("relax.add")
    @test add isa Tvm.ir.Op
    @test add.name == "relax.add"
    @test add.span === nothing               # declared `ir.Span`, default None: Union{Nothing, ...}
    # `__ffi_repr__` drives `show`: a Target prints as TVM chose.
    llvm = Tvm.target.Target("llvm")       # the packed global `target.Target`, as a constructor of the type
    @test sprint(show, llvm) == TVMFFI.repr_ffi(llvm)
    @test occursin("\"kind\":\"llvm\"", sprint(show, llvm))

    r = Report()
    foreach(x -> walk!(r, x, 4), (seven, add, llvm, Tvm.target.list_target_kinds()))
    constructed = 0
    types = object_types(Tvm)
    for T in types
        # Through the type's own constructor (`__ffi_init__`): a member constructor may leave a
        # field None that TVM declares without `Optional` (`PyExprMutator()` leaves `builder_`,
        # an `ir.BlockBuilder`).
        object = try
            TVMFFI.construct(T)
        catch
            continue  # it needs arguments
        end
        constructed += 1
        walk!(r, object, 3)
    end
    println("type truth of Tvm: $(r.checked) values checked, $(length(r.observed)) declarations observed, ",
            "$constructed of $(length(types)) types constructed from defaults")
    @test r.mismatches == String[]
end
println("using Tvm: $(round(load; digits = 2)) s")
