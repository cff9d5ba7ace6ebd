#!/usr/bin/env bash
# xgrammar 0.2.8 end to end (examples/xgrammar/README.md): its
# libxgrammar_bindings.so from the pinned wheel (scripts/setup-xgrammar.sh) is dumped on both
# runtimes (identical dumps), generated for Julia, Node and C++ with `--harvest` (the wheel's
# Python package) and the entries of examples/xgrammar/bindings.yaml it cannot derive
# (tests/xgrammar/packages.sh, which bench/xgrammar shares), and the three examples run on
# both runtimes: each prints the allowed-token set at every step, which must equal the one
# Python computes through Apache's tvm_ffi on the same library (examples/xgrammar/reference.py),
# and a few hand-written ones;
# checks.mjs and checks.jl check the results' declared types and the errors about arguments.
# The declarations pass tsc --strict (with the Node example, type-checked) and the header
# g++ -Wall -Wextra -Werror -pedantic. Usage: tests/xgrammar/run.sh OUT_DIR (the workspace
# built: target/debug/ffihub, target/release/libtvm_ffi.so, the Node addon).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="$1"
EXAMPLES="$ROOT/examples/xgrammar"
PYTHON="$ROOT/.deps/pysuites/0.1.15.post2/venv-apache/bin/python"  # Apache's tvm_ffi 0.1.15.post2 and numpy (scripts/setup-pysuite.sh)
# shellcheck source=tests/common.sh
source "$ROOT/tests/common.sh"
"$ROOT/tests/xgrammar/packages.sh" "$OUT"
LIB="$OUT/lib"
# The dump is the same on Apache's runtime.
LD_LIBRARY_PATH="$APACHE/lib" "$FFIHUB" dump --runtime "$APACHE/lib/libtvm_ffi.so" \
    --lib "$LIB/libxgrammar_bindings.so" -o "$OUT/xgrammar.apache.yaml"
cmp "$OUT/xgrammar.apache.yaml" "$OUT/xgrammar.ours.yaml"

# The reference, from Python, and what it must say whatever the library's version.
"$PYTHON" "$EXAMPLES/reference.py" "$LIB/libxgrammar_bindings.so" >"$OUT/reference.txt"
expect() {
    grep -qxF "$1" "$OUT/reference.txt" || { echo "reference.txt lacks \`$1\`: $2" >&2; exit 1; }
}
expect "json allowed 1 21" "an object starts with { (or {\")"
expect "json allowed 3 14" "after { only \" and \"a\": properties in order, no whitespace"
expect "json accept 2 false" "} right after { is rejected: a and b are required"
expect "json allowed 16 17 23" "after \"b\": only booleans (true, false, tr)"
expect "json allowed 0" "after the closing } only the stop token"
expect "json terminated true" "the stop token ends the match"
expect "ebnf allowed 0" "after the 1 of the EBNF grammar only the stop token"

# The API reads like xgrammar's Python API (typed returns, options objects, named parameters).
DTS="$OUT/xgrammar/node/index.d.ts"
HPP="$OUT/xgrammar/cpp/xgrammar.hpp"  # its classes, declared in xgrammar/detail.hpp (one header per namespace)
CLASSES="$OUT/xgrammar/cpp/xgrammar/detail.hpp"
JL="$OUT/xgrammar/julia/src/Xgrammar.jl"
has() { grep -qF "$2" "$1" || { echo "$(basename "$1") lacks: $2" >&2; exit 1; }; }
has "$DTS" "static fromJsonSchema(schema: string, options?: { anyWhitespace?: boolean; indent?: number | bigint | null | undefined; separators?: readonly [string, string] | null | undefined;"
has "$DTS" "}): __ffiRoot.Grammar;"
has "$DTS" "constructor(compiledGrammar: __ffiRoot.CompiledGrammar, options?: { overrideStopTokens?:"
has "$DTS" "fillNextTokenBitmask(bitmask: __ffi.TensorLike, index?: number | bigint, options?: { debugPrint?: boolean }): boolean;"
has "$CLASSES" "static ::xgrammar::Grammar from_json_schema(const std::string& schema, const FromJsonSchemaOptions& options);"
has "$HPP" "bool any_whitespace = true;"
has "$JL" "from_json_schema(::Type{<:Xgrammar.AbstractGrammar}, schema::AbstractString; any_whitespace::Bool = true,"

# C++: the example, against the generated header.
g++ -std=c++17 -Wall -Wextra -Werror -pedantic -I "$OUT/xgrammar/cpp" -I "$ROOT/bindings/cpp/include" \
    -I "$ROOT/runtime/include" "$EXAMPLES/example.cpp" -L "$OURS" -ltvm_ffi -o "$OUT/example_cpp"

# Node: the package installed as `xgrammar` (packages.sh) next to the example, which
# tsc --strict checks.
cp "$EXAMPLES/example.mjs" "$OUT/node/"
tsc_strict "$OUT/node" example.mjs

for rt in apache ours; do
    dir="$(runtime_dir $rt)"
    LD_LIBRARY_PATH="$dir" FFIHUB_LIBRARY_PATH="$LIB" "$OUT/example_cpp" >"$OUT/cpp.$rt.txt"
    (cd "$OUT/node" && TVM_FFI_LIB="$dir/libtvm_ffi.so" FFIHUB_LIBRARY_PATH="$LIB" node example.mjs) \
        >"$OUT/node.$rt.txt"
    JULIA_DEPOT_PATH="$OUT/julia-depot" TVM_FFI_LIB="$dir/libtvm_ffi.so" LD_LIBRARY_PATH="$dir" \
        FFIHUB_LIBRARY_PATH="$LIB" "$ROOT/scripts/julia" --startup-file=no \
        --project="$OUT/julia-env" "$EXAMPLES/example.jl" >"$OUT/julia.$rt.txt"
    for lang in cpp node julia; do
        diff -u "$OUT/reference.txt" "$OUT/$lang.$rt.txt" ||
            { echo "$lang on the $rt runtime differs from Python" >&2; exit 1; }
    done
    echo "ok: C++, Node and Julia on the $rt runtime: $(grep -c allowed "$OUT/reference.txt") allowed-token sets equal Python's"
    # Type truth of the overlay's narrowed results, and errors about arguments in the caller's
    # words (options named, counted as one argument), from Node and Julia.
    (cd "$OUT/node" && TVM_FFI_LIB="$dir/libtvm_ffi.so" FFIHUB_LIBRARY_PATH="$LIB" \
        node "$ROOT/tests/xgrammar/checks.mjs" "$OUT/xgrammar/node" "$OUT/node/example.mjs")
    JULIA_DEPOT_PATH="$OUT/julia-depot" TVM_FFI_LIB="$dir/libtvm_ffi.so" LD_LIBRARY_PATH="$dir" \
        FFIHUB_LIBRARY_PATH="$LIB" "$ROOT/scripts/julia" --startup-file=no --project="$OUT/julia-env" \
        "$ROOT/tests/xgrammar/checks.jl"
done
