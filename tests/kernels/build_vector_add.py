#!/usr/bin/env python3
"""Compiles a float32 vector add with Apache TVM (`tvm.compile` for LLVM, then
`export_library`) into DIR/vector_add.so: a kernel library with no ffihub metadata, whose
one function `main(a, b, c)` writes `c[i] = a[i] + b[i]` for any length.

    build_vector_add.py DIR
"""

import sys
from pathlib import Path

import tvm
from tvm import te


def main() -> None:
    out = Path(sys.argv[1]) / "vector_add.so"
    n = te.var("n")
    a = te.placeholder((n,), dtype="float32", name="a")
    b = te.placeholder((n,), dtype="float32", name="b")
    c = te.compute((n,), lambda i: a[i] + b[i], name="c")
    func = te.create_prim_func([a, b, c])
    lib = tvm.compile(tvm.IRModule({"main": func}), target="llvm")
    lib.export_library(str(out))
    print(out)


if __name__ == "__main__":
    main()
