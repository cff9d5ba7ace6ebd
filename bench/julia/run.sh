#!/usr/bin/env bash
# Builds what the Julia benchmark needs (release builds of the runtime and the demo extension,
# the generator; the generated packages TestingLib and Demo and a Julia environment that has
# them) and runs bench/julia/bench.jl on ffihub's runtime and on Apache's.
#   bench/julia/run.sh [rows]   `rows`: only the bench/run.sh table rows, on ffihub's runtime
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

scripts/setup-apache.sh >/dev/null
cargo build --release -p ffihub-runtime -p ffihub-demo
cargo build --release -p ffihub-bindgen --bin ffihub
OUT="$TARGET/bench/julia"
for spec in "demo:Demo:$TARGET/release/libffihub_demo.so" "testing_lib:TestingLib:$APACHE/lib/libtvm_ffi_testing.so"; do
    IFS=: read -r name dir lib <<<"$spec"
    "$TARGET/release/ffihub" generate --lang julia --runtime "$TARGET/release/libtvm_ffi.so" \
        --lib "$lib" --name "$name" --out "$OUT/packages/$dir"
done
# A Julia environment with the local packages (offline: scripts/setup-julia.sh installs an
# empty placeholder registry).
mkdir -p "$OUT/env"
scripts/julia --startup-file=no --project="$OUT/env" -e "using Pkg; Pkg.develop([
    PackageSpec(path = \"$ROOT/bindings/julia/TVMFFI\"),
    PackageSpec(path = \"$OUT/packages/Demo\"),
    PackageSpec(path = \"$OUT/packages/TestingLib\")]; io = devnull)"

run_bench() { # runtime_dir
    TVM_FFI_LIB="$1/libtvm_ffi.so" LD_LIBRARY_PATH="$1" \
    FFIHUB_LIBRARY_PATH="$TARGET/release:$APACHE/lib" \
        scripts/julia --startup-file=no --project="$OUT/env" bench/julia/bench.jl
}
if [[ "${1:-}" == "rows" ]]; then
    BENCH_ROWS=1 run_bench "$TARGET/release" >&3
    exit 0
fi
for runtime in "$TARGET/release" "$APACHE/lib"; do
    run_bench "$runtime"
    echo
done
