# Apache TVM 0.27 through the generated Julia package (tests/tvm/run.sh): typed calls into
# submodules that follow TVM's own namespaces (`Tvm.ir`, `Tvm.target`). Prints the time of
# `using Tvm` (the package is precompiled by an earlier run).
load = @elapsed using Tvm
using Test

@testset "TVM from Julia" begin
    seven = Tvm.ir.IntImm(7)
    @test seven isa Tvm.ir.IntImm
    @test seven isa Tvm.ir.AbstractConstant
    @test seven.value == 7
    kinds = collect(Tvm.target.list_target_kinds())
    @test "llvm" in kinds
    add = Tvm.ir.get_op("relax.add")
    @test add isa Tvm.ir.Op
    @test add.name == "relax.add"
end
println("using Tvm: $(round(load; digits = 2)) s")
