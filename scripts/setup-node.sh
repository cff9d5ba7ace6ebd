#!/usr/bin/env bash
# Prepares the Node.js side of ffihub (run by scripts/test.sh before `cargo test`; idempotent):
#   - checks that Node.js >= 18.18 and npm are installed;
#   - installs the pinned dev tools of the Node tests (typescript, tests/node/package-lock.json)
#     into tests/node/node_modules with `npm ci` (it also links @ffihub/tvm-ffi to
#     bindings/node), and the local npm registry of the install rehearsal (verdaccio,
#     tests/node/registry/package-lock.json) into tests/node/registry/node_modules: the only
#     steps that need the npm registry;
#   - with --build: builds the addon, the demo extension and `ffihub`, and generates the demo's
#     and the testing library's packages into target/generated/node (for running the suites by
#     hand: see tests/node/helpers.mjs).
# The Rust driver (`cargo test -p ffihub-tests --test node`) does the build and generation itself
# and runs `npm ci` when node_modules is missing, so only the first step is needed before it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

die() {
    echo "setup-node.sh: error: $*" >&2
    exit 1
}

command -v node >/dev/null || die "node not found (Node.js 18.18 or newer is needed; 20 is tested)"
command -v npm >/dev/null || die "npm not found"
node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 18 || (a === 18 && b >= 18) ? 0 : 1)' ||
    die "Node.js $(node --version) is too old (18.18 or newer is needed)"

for dir in tests/node tests/node/registry; do
    if [[ ! -f $dir/node_modules/.package-lock.json || $dir/package-lock.json -nt $dir/node_modules/.package-lock.json ]]; then
        (cd "$dir" && npm ci --no-audit --no-fund)
    else
        echo "$dir/node_modules is up to date"
    fi
done

if [[ "${1:-}" == "--build" ]]; then
    TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
    [[ "$TARGET" = /* ]] || TARGET="$ROOT/$TARGET"
    APACHE="${APACHE_TVM_FFI_DIR:-$ROOT/.deps/apache-tvm-ffi/tvm_ffi}"
    scripts/setup-apache.sh
    cargo build --release -p ffihub-runtime
    cargo build --release -p ffihub-node
    cargo build -p ffihub-demo
    cargo build -p ffihub-bindgen --bin ffihub
    OUT="$TARGET/generated/node"
    "$TARGET/debug/ffihub" generate --lang node --runtime "$TARGET/release/libtvm_ffi.so" \
        --lib "$TARGET/debug/libffihub_demo.so" --name demo --out "$OUT/demo"
    "$TARGET/debug/ffihub" generate --lang node --runtime "$TARGET/release/libtvm_ffi.so" \
        --lib "$APACHE/lib/libtvm_ffi_testing.so" --name tvm-ffi-testing --out "$OUT/testing"
    mkdir -p "$OUT/node_modules/@ffihub"
    ln -sfn "$ROOT/bindings/node" "$OUT/node_modules/@ffihub/tvm-ffi"
    cat <<MSG
Ready. Run the suites by hand on ffihub's runtime (Apache's: TVM_FFI_LIB=$APACHE/lib):
  cd tests/node && TVM_FFI_LIB=$TARGET/release FFIHUB_LIBRARY_PATH=$TARGET/debug:$APACHE/lib \\
    FFIHUB_NODE_PACKAGES=$OUT node --test --expose-gc
MSG
fi
