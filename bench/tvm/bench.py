#!/usr/bin/env python3
"""One run of the Apache TVM benchmark (bench/tvm/rows.sh runs it in both venvs, alternated).

Prints `<operation>\t<seconds>` lines: `import tvm` in a fresh interpreter, the first TE compile
(cold: TVM's lazy initialisation included), the best of several further TE compiles (warm), and
the best of several Relax compiles.
"""

import sys
import time

start = time.perf_counter()
import tvm  # noqa: E402

import_seconds = time.perf_counter() - start

from tvm import te  # noqa: E402
from tvm.script import ir as I  # noqa: E402
from tvm.script import relax as R  # noqa: E402


def te_vector_add() -> tvm.IRModule:
    a = te.placeholder((1024,), name="A", dtype="float32")
    b = te.placeholder((1024,), name="B", dtype="float32")
    c = te.compute(a.shape, lambda i: a[i] + b[i], name="C")
    return tvm.IRModule({"add": te.create_prim_func([a, b, c]).with_attr("global_symbol", "add")})


@I.ir_module
class DenseRelu:
    @R.function
    def main(x: R.Tensor((3, 4), "float32"), w: R.Tensor((4, 5), "float32")) -> R.Tensor((3, 5), "float32"):
        with R.dataflow():
            out = R.add(R.nn.relu(R.matmul(x, w)), R.const(1.0, "float32"))
            R.output(out)
        return out


def seconds(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    print(f"import tvm\t{import_seconds:.6f}")
    print(f"TE vector add tvm.compile, first\t{seconds(lambda: tvm.compile(te_vector_add(), target='llvm')):.6f}")
    warm = min(seconds(lambda: tvm.compile(te_vector_add(), target="llvm")) for _ in range(repeats))
    print(f"TE vector add tvm.compile, warm\t{warm:.6f}")
    relax = min(seconds(lambda: tvm.compile(DenseRelu, target="llvm")) for _ in range(repeats))
    print(f"Relax matmul+relu tvm.compile, warm\t{relax:.6f}")


if __name__ == "__main__":
    main()
