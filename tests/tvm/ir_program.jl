# The IR program of tests/tvm/ir_program.py from Julia (tests/tvm/run.sh), through the
# constructors and methods TVM's Python API gives its globals (ADR 0019): `Tvm.ir.Var("x", ty)`
# is the member constructor that calls the global `ir.Var`, `with_attr(f, key, value)` the
# member method that calls `ir.BaseFuncWithAttr`. It prints what TVM's Python prints for it (the
# file `ENV["TVM_IR_EXPECTED"]`). What Python computes in `__init__` (PrimFunc's missing return
# type and empty attributes) is spelled out, as in tests/tvm/tvm.cpp and calls.js.
using Tvm, TVMFFI
using Tvm.ir: with_attr

i32 = Tvm.ir.PrimType("int32")
x = Tvm.ir.Var("x", i32)
y = Tvm.ir.Var("y", i32)
e = Tvm.prim.Add(x, Tvm.prim.Mul(y, Tvm.ir.IntImm("int32", 2)))
f = with_attr(Tvm.tirx.PrimFunc([x, y], Tvm.tirx.Evaluate(e), Tvm.ir.type_missing(),
    Tvm.ir.DictAttrs(Dict{String,Any}())), "global_symbol", "main")
f isa Tvm.tirx.PrimFunc || error("with_attr returned a $(typeof(f))")
mod = Tvm.ir.IRModule(Dict(Tvm.ir.GlobalVar("main") => f), nothing, Dict{String,Any}())
printed = "$(sprint(show, e))\n----\n$(sprint(show, mod))"
expected = read(ENV["TVM_IR_EXPECTED"], String)
printed == expected || error("the IR program prints\n$printed\nwhere TVM's Python prints\n$expected")
# The class's constructor, as in Python (`Target("llvm")`): the packed global `target.Target`,
# which stays bound under its own name (`Target_`, since the type has the name `Target`).
llvm = Tvm.target.Target("llvm")
llvm isa Tvm.target.Target || error("Target(\"llvm\") made a $(typeof(llvm))")
sprint(show, llvm) == sprint(show, Tvm.target.Target_("llvm")) || error("Target(\"llvm\") differs from the global's")
println("ok: the IR program from Julia prints what TVM's Python prints; Target(\"llvm\"): ", llvm.kind.name)
