"""tilelang 0.1.15's native libraries and its bundled TVM build, for tests/tilelang/main.rs.

tilelang's own Python package imports torch as it loads; its bundled TVM Python package
(``tilelang/3rdparty/tvm/python``) does not, so this script drives that one, with tilelang's
libraries, the way tilelang's ``__init__`` sets them up (libz3 loaded first, ``TVM_LIBRARY_PATH``
at tilelang's ``lib`` folder). Usage:

    python scenario.py load <libtvm_ffi.so> <site>
        loads a TVM-FFI runtime, then tilelang's libtvm_runtime.so and libtvm_compiler.so with
        every symbol bound at once (RTLD_NOW); prints one line per library
    python scenario.py kernel <site>
        (in a venv with tilelang's apache-tvm-ffi) imports tilelang's TVM, loads libtilelang.so,
        runs tilelang's ``tl.transform.Simplify`` pass on a TE kernel, compiles it to C, exports
        it as a shared library (gcc), loads it and runs it; prints the transcript
    python scenario.py coload <site> <apache TVM lib dir> tilelang-first|tvm-first
        loads tilelang's TVM and Apache TVM's libtvm_runtime.so and libtvm_compiler.so in one
        process, in the given order

``<site>`` is the folder tilelang and z3-solver are installed in (.deps/tilelang/site).
"""

from __future__ import annotations

import ctypes
import os
import sys
import tempfile


def prepare_tilelang(site: str) -> None:
    """What tilelang's ``__init__`` does before importing its TVM."""
    ctypes.CDLL(os.path.join(site, "z3", "lib", "libz3.so.4.15"), ctypes.RTLD_GLOBAL)
    os.environ["TVM_LIBRARY_PATH"] = os.path.join(site, "tilelang", "lib")
    sys.path.insert(0, os.path.join(site, "tilelang", "3rdparty", "tvm", "python"))


def load(runtime: str, site: str) -> None:
    ctypes.CDLL(runtime, ctypes.RTLD_GLOBAL)
    ctypes.CDLL(os.path.join(site, "z3", "lib", "libz3.so.4.15"), ctypes.RTLD_GLOBAL)
    for name in ("libtvm_runtime.so", "libtvm_compiler.so"):
        path = os.path.join(site, "tilelang", "lib", name)
        try:
            ctypes.CDLL(path, os.RTLD_NOW | os.RTLD_LOCAL)
            print(f"loaded {name}")
        except OSError as err:
            print(f"cannot load {name}: {err}")
            sys.exit(1)


def kernel(site: str) -> None:
    prepare_tilelang(site)
    import numpy as np
    import tvm
    from tvm import te

    lib_dir = os.path.realpath(os.path.join(site, "tilelang", "lib"))
    print(f"tvm {tvm.__version__} from tilelang's 3rdparty/tvm")
    for lib in (tvm.base._LIB_RUNTIME, tvm.base._LIB):
        name = os.path.basename(lib._name)
        from_tilelang = os.path.dirname(os.path.realpath(lib._name)) == lib_dir
        print(f"{name} from tilelang's lib folder: {from_tilelang}")
    ctypes.CDLL(os.path.join(lib_dir, "libtilelang.so"))
    simplify = tvm.get_global_func("tl.transform.Simplify")
    n = 16
    a = te.placeholder((n,), name="A")
    b = te.placeholder((n,), name="B")
    c = te.compute((n,), lambda i: a[i] * 2 + b[i], name="C")
    mod = tvm.IRModule({"main": te.create_prim_func([a, b, c])})
    mod = simplify(False)(mod)
    print(f"tl.transform.Simplify kept main: {'main' in [gv.name_hint for gv in mod.get_global_vars()]}")
    lib = tvm.compile(mod, target="c")
    path = os.path.join(tempfile.mkdtemp(prefix="tilelang-kernel-"), "kernel.so")
    lib.export_library(path)
    func = tvm.runtime.load_module(path)["main"]
    x = tvm.runtime.tensor(np.arange(n, dtype="float32"))
    y = tvm.runtime.tensor(np.ones(n, dtype="float32"))
    z = tvm.runtime.tensor(np.zeros(n, dtype="float32"))
    func(x, y, z)
    expected = np.arange(n, dtype="float32") * 2 + 1
    print(f"kernel result: {z.numpy().tolist()}")
    print(f"kernel result correct: {bool((z.numpy() == expected).all())}")


def coload(site: str, tvm_lib_dir: str, order: str) -> None:
    def tilelang_tvm() -> None:
        prepare_tilelang(site)
        import tvm  # noqa: F401

        print("loaded tilelang's TVM")

    def apache_tvm() -> None:
        import tvm_ffi  # noqa: F401  (loads the runtime the libraries link, as TVM's Python does)

        for name in ("libtvm_runtime.so", "libtvm_compiler.so"):
            ctypes.CDLL(os.path.join(tvm_lib_dir, name), os.RTLD_NOW | os.RTLD_LOCAL)
        print("loaded Apache TVM's libtvm_runtime.so and libtvm_compiler.so")

    sys.stdout.reconfigure(line_buffering=True)
    steps = [tilelang_tvm, apache_tvm] if order == "tilelang-first" else [apache_tvm, tilelang_tvm]
    for step in steps:
        step()


def main() -> None:
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "load":
        load(*args)
    elif mode == "kernel":
        kernel(*args)
    elif mode == "coload":
        coload(*args)
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
