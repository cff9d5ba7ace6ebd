#!/usr/bin/env bash
# Benchmark (not a test): modules across the C++/runtime boundary and the exported C++ API
# (ADR 0005). One binary built against Apache's headers runs on ffihub's runtime and on Apache's,
# alternated for several rounds; each row is the median per call. The machine is shared and
# noisy: compare the ratios, not the absolute numbers.
#   bench/cxx/rows.sh [iterations] [rounds]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
ITERATIONS="${1:-200000}"
ROUNDS="${2:-5}"

scripts/setup-apache.sh >/dev/null
cargo build --release --locked -p ffihub-runtime >&2
APACHE="${APACHE_TVM_FFI_DIR:-$ROOT/.deps/apache-tvm-ffi/tvm_ffi}"
OUT="$ROOT/target/bench/cxx"
mkdir -p "$OUT"
FLAGS=(-std=c++17 -O2 -DNDEBUG -Wall -Wextra -Werror -Wno-unused-parameter -I "$APACHE/include")
g++ "${FLAGS[@]}" -shared -fPIC tests/c/cxx_extension.cc -o "$OUT/libcxx_extension.so" \
    -L "$APACHE/lib" -ltvm_ffi
g++ "${FLAGS[@]}" bench/cxx/bench_modules.cc -o "$OUT/bench_modules" -L "$APACHE/lib" -ltvm_ffi

: >"$OUT/samples.tsv"
for _ in $(seq "$ROUNDS"); do
    for runtime in ffihub apache; do
        if [[ $runtime == ffihub ]]; then lib_dir="$ROOT/target/release"; else lib_dir="$APACHE/lib"; fi
        LD_LIBRARY_PATH="$lib_dir" "$OUT/bench_modules" "$OUT/libcxx_extension.so" "$ITERATIONS" |
            sed "s/^/$runtime\t/" >>"$OUT/samples.tsv"
    done
done

# | operation | ours | reference | ratio ours/ref | target |, medians over the rounds.
python3 - "$OUT/samples.tsv" <<'PY'
import statistics, sys
samples = {}
for line in open(sys.argv[1]):
    runtime, operation, ns = line.rstrip("\n").split("\t")
    samples.setdefault(operation, {}).setdefault(runtime, []).append(float(ns))
for operation, by_runtime in samples.items():
    ours, ref = statistics.median(by_runtime["ffihub"]), statistics.median(by_runtime["apache"])
    print(f"| {operation} | {ours:.0f} ns | {ref:.0f} ns | {ours / ref:.2f} | <= 1.5 |")
PY
