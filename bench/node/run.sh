#!/usr/bin/env bash
# Builds what the Node benchmark needs (release builds of the runtime, the addon and the demo
# extension; the generated packages) and runs bench/node/bench.mjs on ffihub's runtime and on
# Apache's. Also runs the napi-rs comparison of ADR 0004 when asked: `bench/node/run.sh napi`.
#   bench/node/run.sh rows   only the bench/run.sh table rows, on ffihub's runtime
set -euo pipefail
if [[ "${1:-}" == "rows" ]]; then
    # Everything but the rows goes to stderr.
    exec 3>&1 1>&2
fi
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
[[ "$TARGET" = /* ]] || TARGET="$ROOT/$TARGET"
APACHE="${APACHE_TVM_FFI_DIR:-$ROOT/.deps/apache-tvm-ffi/tvm_ffi}"

if [[ "${1:-}" == "napi" ]]; then
    CARGO_TARGET_DIR="$TARGET/napi-overhead" cargo build --release \
        --manifest-path bench/node/napi-overhead/Cargo.toml
    node bench/node/napi-overhead.mjs "$TARGET/napi-overhead/release"
    exit 0
fi

scripts/setup-apache.sh >/dev/null
cargo build --release -p ffihub-runtime -p ffihub-node -p ffihub-demo
cargo build --release -p ffihub-bindgen --bin ffihub
PACKAGES="$TARGET/bench/node/packages"
for spec in "demo:$TARGET/release/libffihub_demo.so" "testing:$APACHE/lib/libtvm_ffi_testing.so"; do
    name="${spec%%:*}"
    "$TARGET/release/ffihub" generate --lang node --runtime "$TARGET/release/libtvm_ffi.so" \
        --lib "${spec#*:}" --name "$name" --out "$PACKAGES/$name"
done
mkdir -p "$PACKAGES/node_modules/@ffihub"
ln -sfn "$ROOT/bindings/node" "$PACKAGES/node_modules/@ffihub/tvm-ffi"

runtimes=("ffihub:$TARGET/release" "apache:$APACHE/lib")
if [[ "${1:-}" == "rows" ]]; then
    runtimes=("ffihub:$TARGET/release")
    export BENCH_ROWS=1
    exec 1>&3
fi
for runtime in "${runtimes[@]}"; do
    FFIHUB_RUNTIME="${runtime%%:*}" \
    LD_LIBRARY_PATH="${runtime#*:}" \
    FFIHUB_NODE_ADDON="$TARGET/release/libffihub_node.so" \
    FFIHUB_NODE_PACKAGES="$PACKAGES" \
    FFIHUB_LIBRARY_PATH="$TARGET/release:$APACHE/lib" \
    NODE_PATH="$PACKAGES/node_modules" \
        node bench/node/bench.mjs
done
