# The small TVM IR program that tests/tvm/tvm.cpp, calls.js and ir_program.jl build through the
# constructors, methods and properties TVM's Python API gives its globals (ADR 0019), built here
# with TVM's Python: prints the expression's and the module's printed form (`__ffi_repr__`),
# separated by a line `----`, which the other languages' must equal. Usage: python ir_program.py
from tvm import ir, tirx

x = tirx.Var("x", "int32")
y = tirx.Var("y", "int32")
e = x + y * 2
f = tirx.PrimFunc([x, y], tirx.Evaluate(e)).with_attr("global_symbol", "main")
mod = ir.IRModule({"main": f})
print(f"{e}\n----\n{mod}", end="")
