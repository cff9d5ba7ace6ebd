#!/usr/bin/env bash
# The xgrammar 0.2.8 packages, generated and made usable in place (offline), for
# tests/xgrammar/run.sh and bench/xgrammar/rows.sh: xgrammar's libxgrammar_bindings.so from the
# pinned wheel (scripts/setup-xgrammar.sh) is dumped on ffihub's runtime and generated for
# Julia, Node and C++ with `--harvest` (the wheel's Python package) and the entries of
# examples/xgrammar/bindings.yaml it cannot derive, then checked against the library.
# Usage: tests/xgrammar/packages.sh OUT_DIR (the workspace built: target/debug/ffihub,
# target/release/libtvm_ffi.so). Writes, in OUT_DIR (emptied first):
#   lib/libxgrammar_bindings.so    the library (FFIHUB_LIBRARY_PATH=OUT_DIR/lib loads it)
#   xgrammar.ours.yaml             its dump on ffihub's runtime
#   xgrammar/{julia,node,cpp}      the packages (Julia `Xgrammar`, Node `xgrammar`, xgrammar.hpp)
#   node/node_modules/xgrammar     the Node package, importable from OUT_DIR/node
#   julia-env                      a Julia environment with `Xgrammar` and TVMFFI
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/common.sh
source "$ROOT/tests/common.sh"
rm -rf "$1" && mkdir -p "$1/lib"
OUT="$(cd "$1" && pwd)"  # absolute: the links below point into it
cp "$ROOT/.deps/xgrammar/xgrammar/libxgrammar_bindings.so" "$OUT/lib/"

LD_LIBRARY_PATH="$OURS" "$FFIHUB" dump --runtime "$OURS/libtvm_ffi.so" \
    --lib "$OUT/lib/libxgrammar_bindings.so" -o "$OUT/xgrammar.ours.yaml"
GENERATE=(--lang all --name xgrammar --metadata "$OUT/xgrammar.ours.yaml"
    --harvest --python "$ROOT/.deps/xgrammar/xgrammar"
    --config "$ROOT/examples/xgrammar/bindings.yaml" --out "$OUT/xgrammar")
"$FFIHUB" generate "${GENERATE[@]}"
"$FFIHUB" check "${GENERATE[@]}"

node_support "$OUT/xgrammar/node"
mkdir -p "$OUT/node/node_modules"
ln -sfn "$OUT/xgrammar/node" "$OUT/node/node_modules/xgrammar"
julia_env "$OUT/julia-env" Xgrammar="$OUT/xgrammar/julia"
