#!/usr/bin/env bash
# Benchmark (not a test): StructuralEqual and StructuralHash of a 10,000-node object tree
# (bench/structural/structural.c), the same binary on ffihub's runtime and on Apache's (library path
# swapped), alternated over several runs; each run reports its best time per call, and the table
# shows the median of those per runtime. Target: at most 1.0x Apache's time.
#   bench/structural/rows.sh [runs] [rounds-per-run]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

scripts/setup-apache.sh >/dev/null
env -u TVM_FFI_LIB_DIR cargo build --release --locked -p ffihub-runtime >&2
APACHE="${APACHE_TVM_FFI_DIR:-$ROOT/.deps/apache-tvm-ffi/tvm_ffi}"
OUT="$ROOT/target/bench/structural"
mkdir -p "$OUT"
gcc -std=c11 -O2 -DNDEBUG -Wall -Wextra -Werror -I "$APACHE/include" \
    bench/structural/structural.c -o "$OUT/structural" -L "$APACHE/lib" -ltvm_ffi

RUNS="${1:-5}"
ROUNDS="${2:-30}"
: >"$OUT/structural.times"
for ((i = 0; i < RUNS; i++)); do
  for runtime in ffihub apache; do
    case "$runtime" in
      ffihub) lib_dir="$ROOT/target/release" ;;
      apache) lib_dir="$APACHE/lib" ;;
    esac
    LD_LIBRARY_PATH="$lib_dir" "$OUT/structural" "$ROUNDS" |
      sed "s/^/$runtime /" >>"$OUT/structural.times"
  done
done

# Median of each (runtime, operation), then one markdown row per operation.
awk '
  function median(list,   n, v, i, j, t) {
    n = split(list, v, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  function show(ns) { return ns >= 1e6 ? sprintf("%.2f ms", ns / 1e6) : sprintf("%.1f us", ns / 1e3) }
  { times[$1 SUBSEP $2] = times[$1 SUBSEP $2] " " $3; ops[$2] = 1 }
  END {
    for (op in ops) {
      ours = median(times["ffihub" SUBSEP op]); ref = median(times["apache" SUBSEP op])
      printf "| %s of a 10,000-node object tree | %s | %s | %.2fx | <= 1.0x |\n", op, show(ours), show(ref), ours / ref
    }
  }' "$OUT/structural.times" | sort
