#!/usr/bin/env python3
"""Apache TVM end to end, on whichever libtvm_ffi.so the running venv's tvm_ffi loads.

Run by tests/tvm_runtime/main.rs in the two venvs of scripts/setup-tvm.sh (Apache's runtime and
ffihub's); both runs must print the same lines. Every scenario also checks its own results (against
numpy, or a structural comparison), so a run that prints but computes wrongly fails on its own.

    scenarios.py build DIR   import tvm, TE vector add, TVMScript round trip, Relax on the VM;
                             exports the compiled libraries into DIR, then does `load DIR`
    scenarios.py load DIR    loads the libraries that `build` exported into DIR (possibly on the
                             other runtime) and runs them
    scenarios.py json DIR    tvm.ir.save_json / load_json of the TVMScript PrimFunc (writes DIR/
                             prim_func.json); only on ffihub's runtime: Apache's crashes there,
                             because TVM 0.27.0's ir.PrimType registers its __any_hash__ hook
                             with the older native convention (int64_t return), which TVM-FFI
                             0.1.15 reads as a TVMFFIAny and then releases as an object

Timings go to stderr as `timing <what> <seconds>` lines (they differ between runs), and so does
`runtime <path>`, the libtvm_ffi.so the process has mapped.
"""

from __future__ import annotations

import hashlib
import re
import sys
import time
from pathlib import Path

START = time.perf_counter()
import tvm  # noqa: E402

IMPORT_SECONDS = time.perf_counter() - START

import numpy as np  # noqa: E402
import tvm_ffi  # noqa: E402
from tvm import relax, te  # noqa: E402
from tvm.script import ir as I  # noqa: E402
from tvm.script import relax as R  # noqa: E402
from tvm.script import tirx as T  # noqa: E402

N = 1024
TE_LIB = "te_add.so"
RELAX_LIB = "relax_vm.so"


def timing(what: str, seconds: float) -> None:
    print(f"timing {what} {seconds:.6f}", file=sys.stderr, flush=True)


def show(label: str, value: object) -> None:
    print(f"{label}: {value}", flush=True)


def digest(array: np.ndarray) -> str:
    """A stable, exact summary of an array: dtype, shape and a few values."""
    flat = array.reshape(-1)
    picks = [flat[i] for i in (0, 1, flat.size // 2, flat.size - 1)]
    return f"{array.dtype}{list(array.shape)} sum={float(array.sum())!r} values={[float(v) for v in picks]}"


def te_inputs() -> tuple[np.ndarray, np.ndarray]:
    a = np.arange(N, dtype="float32") * np.float32(0.5)
    b = np.full(N, 3.25, dtype="float32") - np.arange(N, dtype="float32")
    return a, b


def run_te_add(lib: tvm.runtime.Module | tvm.runtime.Executable, label: str) -> None:
    a, b = te_inputs()
    dev = tvm.cpu(0)
    a_t, b_t = tvm.runtime.tensor(a, dev), tvm.runtime.tensor(b, dev)
    c_t = tvm.runtime.empty((N,), "float32", dev)
    lib["add"](a_t, b_t, c_t)
    c = c_t.numpy()
    np.testing.assert_array_equal(c, a + b)
    show(label, digest(c))


def relax_inputs() -> tuple[np.ndarray, np.ndarray]:
    x = np.arange(12, dtype="float32").reshape(3, 4) - np.float32(5.0)
    w = (np.arange(20, dtype="float32").reshape(4, 5) % 7) * np.float32(0.25)
    return x, w


def relax_expected(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.maximum(x @ w, np.float32(0)) + np.float32(1)


def run_relax(executable: relax.VMExecutable | tvm.runtime.Module, label: str) -> None:
    x, w = relax_inputs()
    dev = tvm.cpu(0)
    vm = relax.VirtualMachine(executable, dev)
    out = vm["main"](tvm.runtime.tensor(x, dev), tvm.runtime.tensor(w, dev)).numpy()
    np.testing.assert_allclose(out, relax_expected(x, w), rtol=1e-6)
    show(label, digest(out))


def loaded_runtime() -> str:
    """The path of the libtvm_ffi.so this process has mapped (the runtime under test)."""
    with open("/proc/self/maps", encoding="utf-8") as maps:
        paths = {line.split()[-1] for line in maps if line.rstrip().endswith("/libtvm_ffi.so")}
    if len(paths) != 1:
        raise RuntimeError(f"expected one libtvm_ffi.so mapped, found {sorted(paths)}")
    return paths.pop()


def normalized_llvm_ir(text: str) -> str:
    """LLVM IR without the object addresses TVM writes into its TBAA metadata names."""
    return re.sub(r'"0x[0-9a-f]+"', '"0x..."', text)


def show_module_methods(mod: tvm.runtime.Module, out_dir: Path) -> None:
    """The C++ module's virtual methods, called through the runtime's module API."""
    show("te implements add/missing", (mod.implements_function("add"), mod.implements_function("missing")))
    show("te write formats", list(mod.get_write_formats()))
    source = normalized_llvm_ir(mod.inspect_source("ll"))
    assert source.startswith("; ModuleID = 'TVMMod'") and "define" in source, source[:200]
    show("te llvm ir", f"{len(source.splitlines())} lines sha256={hashlib.sha256(source.encode()).hexdigest()}")
    path = out_dir / "te_add.ll"
    mod.write_to_file(str(path), "ll")
    written = normalized_llvm_ir(path.read_text(encoding="utf-8"))
    show("te llvm ir written to file is the inspected source", written.strip() == source.strip())
    assert written.strip() == source.strip()


def scenario_import() -> None:
    show("tvm version", tvm.__version__)
    show("llvm target", tvm.target.Target("llvm").kind.name)
    timing("import_tvm", IMPORT_SECONDS)


def scenario_te(out_dir: Path) -> None:
    a = te.placeholder((N,), name="A", dtype="float32")
    b = te.placeholder((N,), name="B", dtype="float32")
    c = te.compute(a.shape, lambda i: a[i] + b[i], name="C")
    func = te.create_prim_func([a, b, c]).with_attr("global_symbol", "add")
    start = time.perf_counter()
    lib = tvm.compile(tvm.IRModule({"add": func}), target="llvm")
    timing("te_compile", time.perf_counter() - start)
    show("te kind", lib.mod.kind)
    show_module_methods(lib.mod, out_dir)
    run_te_add(lib, "te add")
    lib.export_library(str(out_dir / TE_LIB))
    show("te exported", TE_LIB)


@T.prim_func
def scale_rows(n: T.int32, a: T.handle, b: T.handle):
    T.func_attr({"global_symbol": "scale_rows", "tirx.noalias": True})
    A = T.match_buffer(a, (n, 8), "float32")
    B = T.match_buffer(b, (n, 8), "float32")
    for i, j in T.grid(n, 8):
        if A[i, j] > T.float32(0):
            B[i, j] = A[i, j] * T.float32(2) + T.Cast("float32", j)
        else:
            B[i, j] = T.float32(0)


def scenario_tvmscript() -> None:
    text = scale_rows.script()
    print(text, flush=True)
    parsed = tvm.script.from_source(text)
    tvm.ir.assert_structural_equal(scale_rows, parsed)
    show("tvmscript round trip structurally equal", tvm_ffi.structural_equal(scale_rows, parsed))
    same_hash = tvm_ffi.structural_hash(scale_rows) == tvm_ffi.structural_hash(parsed)
    show("tvmscript round trip structural hash equal", same_hash)
    assert same_hash
    show("tvmscript reprint identical", parsed.script() == text)
    assert parsed.script() == text


@I.ir_module
class DenseRelu:
    @R.function
    def main(x: R.Tensor((3, 4), "float32"), w: R.Tensor((4, 5), "float32")) -> R.Tensor((3, 5), "float32"):
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.nn.relu(y)
            out = R.add(z, R.const(1.0, "float32"))
            R.output(out)
        return out


def scenario_relax(out_dir: Path) -> None:
    start = time.perf_counter()
    executable = tvm.compile(DenseRelu, target="llvm")
    timing("relax_compile", time.perf_counter() - start)
    show("relax executable", type(executable).__name__)
    run_relax(executable, "relax vm")
    executable.export_library(str(out_dir / RELAX_LIB))
    show("relax exported", RELAX_LIB)


def scenario_load(lib_dir: Path) -> None:
    te_lib = tvm.runtime.load_module(str(lib_dir / TE_LIB))
    show("loaded te kind", te_lib.kind)
    run_te_add(te_lib, "loaded te add")
    relax_lib = tvm.runtime.load_module(str(lib_dir / RELAX_LIB))
    show("loaded relax kind", relax_lib.kind)
    show("loaded relax imports", [m.kind for m in relax_lib.imports])
    run_relax(relax_lib, "loaded relax vm")


def scenario_json(out_dir: Path) -> None:
    saved = tvm.ir.save_json(scale_rows)
    (out_dir / "prim_func.json").write_text(saved, encoding="utf-8")
    loaded = tvm.ir.load_json(saved)
    tvm.ir.assert_structural_equal(scale_rows, loaded)
    show("json round trip structurally equal", True)
    show("json round trip reprint identical", loaded.script() == scale_rows.script())
    assert loaded.script() == scale_rows.script()


def main() -> None:
    if len(sys.argv) != 3 or sys.argv[1] not in ("build", "load", "json"):
        sys.exit(f"usage: {sys.argv[0]} build|load|json DIR")
    directory = Path(sys.argv[2])
    print(f"runtime {loaded_runtime()}", file=sys.stderr, flush=True)
    if sys.argv[1] == "build":
        directory.mkdir(parents=True, exist_ok=True)
        scenario_import()
        scenario_te(directory)
        scenario_tvmscript()
        scenario_relax(directory)
    if sys.argv[1] == "json":
        directory.mkdir(parents=True, exist_ok=True)
        scenario_json(directory)
        return
    scenario_load(directory)


if __name__ == "__main__":
    main()
