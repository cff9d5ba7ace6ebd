#!/usr/bin/env bash
# Benchmark (not a test): a generated typed call vs a raw TVMFFIFunctionCall of the same
# function, side by side in one run, on ffihub's runtime and on Apache's (same binary, library
# path swapped). Target: the generated call within 10% of the raw one. The machine is shared
# and noisy: compare the ratios, not the absolute numbers.
#   bench/cpp/run.sh [iterations]
#   bench/cpp/run.sh rows      only the bench/run.sh table rows, on ffihub's runtime
set -euo pipefail
rows=0
if [[ "${1:-}" == "rows" ]]; then
    rows=1
    shift
    exec 3>&1 1>&2   # everything but the rows goes to stderr
fi
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

scripts/setup-apache.sh >/dev/null
env -u TVM_FFI_LIB_DIR cargo build --release --locked -p ffihub-runtime
env -u TVM_FFI_LIB_DIR cargo build --locked -p ffihub-bindgen
APACHE="${APACHE_TVM_FFI_DIR:-$ROOT/.deps/apache-tvm-ffi/tvm_ffi}"
TESTING="$APACHE/lib/libtvm_ffi_testing.so"
OUT="$ROOT/target/bench/cpp"
mkdir -p "$OUT"

target/debug/ffihub generate --lang cpp --name tvm_ffi_testing \
    --lib "$TESTING" --runtime target/release/libtvm_ffi.so --out "$OUT/generated"
g++ -std=c++17 -O2 -DNDEBUG -Wall -Wextra -Werror -pedantic \
    -I bindings/cpp/include -I runtime/include -I "$OUT/generated" \
    bench/cpp/bench_calls.cpp -o "$OUT/bench_calls" -L target/release -ltvm_ffi

if ((rows)); then
    # The calls go on for rounds of 2e6: one runtime is enough for the ratio.
    LD_LIBRARY_PATH="$ROOT/target/release" BENCH_ROWS=1 \
        "$OUT/bench_calls" "$TESTING" "${1:-2000000}" >&3
    exit 0
fi
for lib_dir in "$ROOT/target/release" "$APACHE/lib"; do
  case "$lib_dir" in
    "$ROOT"/target/*) echo "== ffihub's runtime" ;;
    *) echo "== Apache's runtime" ;;
  esac
  LD_LIBRARY_PATH="$lib_dir" "$OUT/bench_calls" "$TESTING" "${1:-2000000}"
done
