#!/usr/bin/env bash
# Parameter names end to end (docs/adr/0012-signatures.md): a C++ library built against Apache's
# headers names its parameters with `arg_names` metadata (a global, a method, a static method, a
# constructor, a module export) and in docstrings (module exports); Apache's testing library
# names one export's parameters in its docstring; the demo extension (Rust) records its own.
# Each is dumped (the C++ library on both runtimes: identical dumps), generated for Julia, Node
# and C++, and the names are checked where each language shows them (Julia method argument
# names, JavaScript parameter lists and the `.d.ts`, the C++ declarations), with calls on both
# runtimes. Usage: tests/signatures/run.sh OUT_DIR (the workspace built: target/debug/ffihub,
# target/release/libtvm_ffi.so, the demo extension, the Node addon).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="$1"
HERE="$ROOT/tests/signatures"
# shellcheck source=tests/common.sh
source "$ROOT/tests/common.sh"
rm -rf "$OUT" && mkdir -p "$OUT/lib"
LIB="$OUT/lib"

# The library, against Apache's headers only (the export macros leave parameters unused).
g++ -std=c++17 -O1 -Wall -Wextra -Wno-unused-parameter -Werror -fPIC -shared \
    -I "$APACHE/include" "$HERE/arg_names.cc" "$HERE/docstring_exports.cc" \
    -L "$APACHE/lib" -ltvm_ffi -o "$LIB/libsignames.so"
cp "$ROOT/target/debug/libffihub_demo.so" "$APACHE/lib/libtvm_ffi_testing.so" "$LIB/"

for rt in apache ours; do
    dir="$(runtime_dir $rt)"
    LD_LIBRARY_PATH="$dir" "$FFIHUB" dump --runtime "$dir/libtvm_ffi.so" --lib "$LIB/libsignames.so" \
        -o "$OUT/signames.$rt.yaml"
done
cmp "$OUT/signames.apache.yaml" "$OUT/signames.ours.yaml"
# The testing library on ffihub's runtime, which also returns its globals' docs.
LD_LIBRARY_PATH="$OURS" "$FFIHUB" dump --runtime "$OURS/libtvm_ffi.so" \
    --lib "$LIB/libtvm_ffi_testing.so" -o "$OUT/testing.yaml"
LD_LIBRARY_PATH="$OURS" "$FFIHUB" dump --runtime "$OURS/libtvm_ffi.so" \
    --lib "$LIB/libffihub_demo.so" -o "$OUT/demo.yaml"

for pkg in signames testing demo; do
    meta="$OUT/$pkg.yaml"
    [ $pkg = signames ] && meta="$OUT/signames.ours.yaml"
    name=$([ $pkg = testing ] && echo tvm_ffi_testing || echo $pkg)
    "$FFIHUB" generate --lang all --name "$name" --metadata "$meta" --out "$OUT/$pkg" \
        2>"$OUT/$pkg.log" || { cat "$OUT/$pkg.log"; exit 1; }
    node_support "$OUT/$pkg/node"
done
grep -q "parameter names (functions, methods and constructors with parameters): 5 from arg_names, 2 from docstrings" \
    "$OUT/signames.log"

# C++: the names in the declarations, then calls.
HPP="$OUT/signames/cpp/signames.hpp"
for decl in 'double affine(double value, double scale, double shift)' \
    'double dot(double other_x, double other_y) const;' \
    'static ::signames::Vec scaled(const ::signames::Vec& vec, double factor);' \
    'explicit Vec(double x, double y);' \
    'int64_t clamp(int64_t value, int64_t low, int64_t high)' \
    'int64_t power(int64_t base, int64_t exponent)' \
    'double lerp(double start, double end, double t)'; do
    grep -qF "$decl" "$HPP" || { echo "signames.hpp lacks: $decl" >&2; exit 1; }
done
grep -qF 'testing_dll_test_add_with_docstring(int64_t a, int64_t b)' "$OUT/testing/cpp/tvm_ffi_testing.hpp" ||
    { echo "tvm_ffi_testing.hpp lacks the docstring's names" >&2; exit 1; }
grep -qF 'inline int64_t add_one(int64_t x)' "$OUT/demo/cpp/demo.hpp"
g++ -std=c++17 -Wall -Wextra -Werror -pedantic -I "$OUT/signames/cpp" -I "$OUT/testing/cpp" \
    -I "$ROOT/bindings/cpp/include" -I "$ROOT/runtime/include" "$HERE/calls.cpp" \
    -L "$OURS" -ltvm_ffi -o "$OUT/calls_cpp"

# Node: the declarations pass tsc --strict and name the parameters.
tsc_strict "$OUT/signames/node" index.d.ts
for decl in 'constructor(x: number, y: number);' 'dot(otherX: number, otherY: number): number;' \
    'export declare function lerp(start: number, end: number, t: number): number;'; do
    grep -qF "$decl" "$OUT/signames/node/index.d.ts" || { echo "index.d.ts lacks: $decl" >&2; exit 1; }
done

julia_env "$OUT/julia-env" Signames="$OUT/signames/julia" TvmFfiTesting="$OUT/testing/julia" \
    Demo="$OUT/demo/julia"

for rt in apache ours; do
    dir="$(runtime_dir $rt)"
    echo "--- $rt runtime"
    LD_LIBRARY_PATH="$dir" FFIHUB_LIBRARY_PATH="$LIB" "$OUT/calls_cpp"
    TVM_FFI_LIB="$dir/libtvm_ffi.so" FFIHUB_LIBRARY_PATH="$LIB" node "$HERE/calls.js" \
        "$OUT/signames/node/index.js" "$OUT/testing/node/index.js" "$OUT/demo/node/index.js"
    JULIA_DEPOT_PATH="$OUT/julia-depot" TVM_FFI_LIB="$dir/libtvm_ffi.so" LD_LIBRARY_PATH="$dir" \
        FFIHUB_LIBRARY_PATH="$LIB" \
        "$ROOT/scripts/julia" --startup-file=no --project="$OUT/julia-env" "$HERE/calls.jl"
done
