#!/usr/bin/env bash
# Benchmark (not a test): JSON graph round trip (ffi.ToJSONGraphString + ffi.FromJSONGraphString)
# of a 10,000-node tree of Maps, Arrays, strings and ints, on ffihub's runtime and on Apache's:
# one binary, library path swapped, runs alternated, the median of each side reported as a
# markdown row. Target: at most 1.0x Apache's time.
#   bench/runtime/run_json_graph.sh [rounds-per-run] [runs]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

scripts/setup-apache.sh >/dev/null
env -u TVM_FFI_LIB_DIR cargo build --release --locked -p ffihub-runtime >&2
APACHE="${APACHE_TVM_FFI_DIR:-$ROOT/.deps/apache-tvm-ffi/tvm_ffi}"
OUT="$ROOT/target/bench/runtime"
mkdir -p "$OUT"
gcc -std=c11 -D_POSIX_C_SOURCE=199309L -O2 -Wall -Wextra -Werror -I "$APACHE/include" bench/runtime/json_graph.c \
    -o "$OUT/json_graph" -L "$APACHE/lib" -ltvm_ffi

ROUNDS="${1:-30}"
RUNS="${2:-5}"
ours=()
theirs=()
for _ in $(seq "$RUNS"); do
  ours+=("$(LD_LIBRARY_PATH="$ROOT/target/release" "$OUT/json_graph" "$ROUNDS" | cut -d' ' -f1)")
  theirs+=("$(LD_LIBRARY_PATH="$APACHE/lib" "$OUT/json_graph" "$ROUNDS" | cut -d' ' -f1)")
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
python3 - "$(median "${ours[@]}")" "$(median "${theirs[@]}")" <<'PY'
import sys
ours, ref = float(sys.argv[1]), float(sys.argv[2])
print(f"| JSON graph round trip, 10,000-node tree (ToJSONGraphString + FromJSONGraphString) "
      f"| {ours / 1e6:.2f} ms | {ref / 1e6:.2f} ms | {ours / ref:.2f}x | <= 1.0x |")
PY
