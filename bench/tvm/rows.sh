#!/usr/bin/env bash
# Benchmark (not a test): Apache TVM from PyPI (scripts/setup-tvm.sh) on ffihub's runtime
# and on Apache's: `import tvm` and tvm.compile of the TE vector add and of a small Relax program
# (bench/tvm/bench.py), the two venvs alternated over several runs (a fresh interpreter each, the
# order flipping every run); the table shows the median per runtime. Target: at most 1.0x Apache's time. The machine is
# shared and noisy: compare the ratios, not the absolute numbers.
#   bench/tvm/rows.sh [runs] [compiles-per-run]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

scripts/setup-tvm.sh >/dev/null
env -u TVM_FFI_LIB_DIR cargo build --release --locked -p ffihub-runtime >&2
DEPS="$ROOT/.deps/apache-tvm"
WHEEL_LIBRARY="lib/python3.11/site-packages/tvm_ffi/lib/libtvm_ffi.so"
# venv-ffihub's runtime is a link to ffihub's build (tests/tvm_runtime points it the same way).
ln -sfn "$ROOT/target/release/libtvm_ffi.so" "$DEPS/venv-ffihub/$WHEEL_LIBRARY"
OUT="$ROOT/target/bench/tvm"
mkdir -p "$OUT"

RUNS="${1:-9}"
COMPILES="${2:-10}"
: >"$OUT/tvm.times"
for ((i = 0; i < RUNS; i++)); do
  # The order flips every run, so that neither side always runs first.
  order="ffihub apache"
  ((i % 2 == 0)) || order="apache ffihub"
  for runtime in $order; do
    env -u LD_LIBRARY_PATH -u LD_PRELOAD PYTHONDONTWRITEBYTECODE=1 \
      "$DEPS/venv-$runtime/bin/python" bench/tvm/bench.py "$COMPILES" |
      sed "s/^/$runtime\t/" >>"$OUT/tvm.times"
  done
done

# Median of each (runtime, operation), then one markdown row per operation.
awk -F'\t' '
  function median(list,   n, v, i, j, t) {
    n = split(list, v, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  function show(s) { return s >= 1 ? sprintf("%.2f s", s) : sprintf("%.1f ms", s * 1e3) }
  { times[$1 SUBSEP $2] = times[$1 SUBSEP $2] " " $3; if (!($2 in ops)) { ops[$2] = 1; order[++n] = $2 } }
  END {
    for (k = 1; k <= n; k++) {
      op = order[k]
      ours = median(times["ffihub" SUBSEP op]); ref = median(times["apache" SUBSEP op])
      printf "| Apache TVM: %s | %s | %s | %.2fx | <= 1.0x |\n", op, show(ours), show(ref), ours / ref
    }
  }' "$OUT/tvm.times"
