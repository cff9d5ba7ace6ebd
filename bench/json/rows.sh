#!/usr/bin/env bash
# Benchmark (not a test): JSON graph round trip (ffi.ToJSONGraphString + ffi.FromJSONGraphString)
# of a 10,000-node tree of Maps, Arrays, strings and ints, on ffihub's runtime and on Apache's:
# one binary, library path swapped, runs alternated, the median of each side reported as a
# markdown row; also each half, ffi.DeepCopy and ffi.RecursiveHash of the same tree. Target: the
# round trip in at most 1.0x Apache's time.
#   bench/json/rows.sh [rounds-per-run] [runs]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

scripts/setup-apache.sh >/dev/null
env -u TVM_FFI_LIB_DIR cargo build --release --locked -p ffihub-runtime >&2
APACHE="${APACHE_TVM_FFI_DIR:-$ROOT/.deps/apache-tvm-ffi/tvm_ffi}"
OUT="$ROOT/target/bench/json"
mkdir -p "$OUT"
gcc -std=c11 -D_POSIX_C_SOURCE=199309L -O2 -Wall -Wextra -Werror -I "$APACHE/include" bench/json/json_graph.c \
    -o "$OUT/json_graph" -L "$APACHE/lib" -ltvm_ffi

ROUNDS="${1:-30}"
RUNS="${2:-5}"
ours="$OUT/json_graph.ours"
theirs="$OUT/json_graph.apache"
: >"$ours"
: >"$theirs"
for _ in $(seq "$RUNS"); do
  LD_LIBRARY_PATH="$ROOT/target/release" "$OUT/json_graph" "$ROUNDS" >>"$ours"
  LD_LIBRARY_PATH="$APACHE/lib" "$OUT/json_graph" "$ROUNDS" >>"$theirs"
done
python3 - "$ours" "$theirs" <<'PY'
import statistics
import sys

def medians(path):
    runs = [list(map(float, line.split())) for line in open(path) if line.strip()]
    return [statistics.median(column) for column in zip(*runs)]

ops = [
    ("JSON graph round trip, 10,000-node tree (ToJSONGraphString + FromJSONGraphString)", "<= 1.0x"),
    ("ToJSONGraphString, 10,000-node tree", "-"),
    ("FromJSONGraphString, 10,000-node tree", "-"),
    ("DeepCopy, 10,000-node tree", "-"),
    ("RecursiveHash, 10,000-node tree", "-"),
]
for (name, target), ours, ref in zip(ops, medians(sys.argv[1]), medians(sys.argv[2])):
    print(f"| {name} | {ours / 1e6:.2f} ms | {ref / 1e6:.2f} ms | {ours / ref:.2f}x | {target} |")
PY
