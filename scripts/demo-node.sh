#!/usr/bin/env bash
# The Node main job: builds the runtime, the Node addon and the demo extension, generates the
# demo's Node package with `ffihub generate --lang node` into target/generated/node/demo, and
# runs the Node example of docs/node.md (the ```js block after the `node-example` marker) as target/generated/node/example.mjs.
#   --apache   run the example on Apache's runtime too (installs the wheel into .deps/)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
[[ "$TARGET" = /* ]] || TARGET="$ROOT/$TARGET"
OUT="$TARGET/generated/node"

command -v node >/dev/null || { echo "demo-node.sh: node not found (Node.js 18.18+)" >&2; exit 1; }

cargo build --release -p ffihub-runtime -p ffihub-node
cargo build -p ffihub-demo -p ffihub-bindgen
"$TARGET/debug/ffihub" generate --lang node --runtime "$TARGET/release/libtvm_ffi.so" \
    --lib "$TARGET/debug/libffihub_demo.so" --name demo --out "$OUT/demo"
mkdir -p "$OUT/node_modules/@ffihub"
ln -sfn "$ROOT/bindings/node" "$OUT/node_modules/@ffihub/tvm-ffi"

doc=docs/node.md
awk '/node-example/ { armed = 1; next }
     armed && /^```js/ { inside = 1; next }
     inside && /^```/ { exit }
     inside { print }' "$doc" >"$OUT/example.mjs"
[[ -s "$OUT/example.mjs" ]] || { echo "demo-node.sh: no node-example block in $doc" >&2; exit 1; }

echo "==> $OUT/example.mjs on ffihub's runtime (from $doc)"
TVM_FFI_LIB="$TARGET/release" FFIHUB_LIBRARY_PATH="$TARGET/debug" node "$OUT/example.mjs"

if [[ "${1:-}" == "--apache" ]]; then
    scripts/setup-apache.sh >/dev/null
    APACHE="${APACHE_TVM_FFI_DIR:-$ROOT/.deps/apache-tvm-ffi/tvm_ffi}"
    echo "==> $OUT/example.mjs on Apache's runtime"
    TVM_FFI_LIB="$APACHE/lib" FFIHUB_LIBRARY_PATH="$TARGET/debug" node "$OUT/example.mjs"
fi
