#!/usr/bin/env bash
# The runtime's C ABI against Apache's: bench/core/bench_core.c, one binary run with the library
# path swapped between ffihub's runtime and Apache's, alternated (the order flips every pair),
# medians over the process pairs. Prints bench/run.sh table rows.
#   bench/core/rows.sh         BENCH_PAIRS (default 7) micro pairs, BENCH_MAP_PAIRS (3) map pairs
set -euo pipefail
# shellcheck source=bench/core/build.sh
source "$(dirname "${BASH_SOURCE[0]}")/build.sh"
PAIRS="${BENCH_PAIRS:-7}"
MAP_PAIRS="${BENCH_MAP_PAIRS:-3}"
RAW="$(mktemp)"
trap 'rm -f "$RAW"' EXIT

# Lines "<side> <name> <value>" into $RAW.
run() { # side lib_dir args...
    local side="$1" lib="$2"
    shift 2
    LD_LIBRARY_PATH="$lib" "$BIN" "$@" | sed "s/^/$side /" >>"$RAW"
}
pair() { # args... (both sides, order flipping with the pair number)
    if ((i % 2 == 0)); then run ours "$OURS" "$@"; run ref "$APACHE" "$@"
    else run ref "$APACHE" "$@"; run ours "$OURS" "$@"; fi
}
for ((i = 0; i < PAIRS; i++)); do
    pair micro
    echo "   micro pair $((i + 1))/$PAIRS" >&2
done
for ((i = 0; i < MAP_PAIRS; i++)); do
    for spec in 1000 1000000 "1000 padded" "1000000 padded"; do
        name="map_${spec// /_}"
        # `map` prints a bare number: name it.
        if ((i % 2 == 0)); then order="ours:$OURS ref:$APACHE"; else order="ref:$APACHE ours:$OURS"; fi
        for side_lib in $order; do
            # shellcheck disable=SC2086 # spec is "<entries> [padded]"
            echo "${side_lib%%:*} $name $(LD_LIBRARY_PATH="${side_lib#*:}" "$BIN" map $spec)" >>"$RAW"
        done
    done
    echo "floor page_touch $(LD_LIBRARY_PATH="$OURS" "$BIN" touch 256)" >>"$RAW"
    echo "   map pair $((i + 1))/$MAP_PAIRS" >&2
done
# A #[ffihub::function] (the demo extension's add_one) against Apache's C++ testing.add_one,
# both loaded into one process on ffihub's runtime.
for ((i = 0; i < PAIRS; i++)); do
    LD_LIBRARY_PATH="$OURS" "$BIN" calls "$OURS/libffihub_demo.so" demo.add_one \
        "$APACHE/libtvm_ffi_testing.so" testing.add_one | sed 's/^/calls /' >>"$RAW"
done

python3 - "$RAW" bench/core/operations.tsv <<'PY'
import statistics, sys
from collections import defaultdict

values = defaultdict(list)
for line in open(sys.argv[1]):
    side, name, value = line.split()
    values[(side, name)].append(float(value))
med = {key: statistics.median(v) for key, v in values.items()}

def time(ns):
    return f"{ns:.1f} ns" if ns < 1000 else f"{ns / 1000:.2f} µs"

def row(label, ours, ref, target, fmt=time):
    print(f"| {label} | {fmt(ours)} | {fmt(ref)} | {ours / ref:.2f}x | ≤ {target:.1f}x |")

# bench/core/operations.tsv: "<operation>\t<label>", one line per micro operation.
ROWS = [line.rstrip("\n").split("\t") for line in open(sys.argv[2], encoding="utf-8")]
for name, label in ROWS:
    row(label, med[("ours", name)], med[("ref", name)], 1.0)
row("runtime: peak RSS of the C benchmark", med[("ours", "peak_rss_kib")],
    med[("ref", "peak_rss_kib")], 1.0, lambda kib: f"{kib / 1024:.1f} MiB")
for n, label in ((1000, "1e3"), (1000000, "1e6")):
    row(f"runtime: `ffi.Map` str→int, {label} entries (`key-<i>`), per entry",
        med[("ours", f"map_{n}")], med[("ref", f"map_{n}")], 1.0)
for n, label in ((1000, "1e3"), (1000000, "1e6")):
    row(f"runtime: `ffi.Map` str→int, {label} entries (`key-<10 digits>`: colliding hashes), per entry",
        med[("ours", f"map_{n}_padded")], med[("ref", f"map_{n}_padded")], 1.0)
row("maps: per-entry build cost, 1e6 vs 1e3 entries, `key-<i>` (reference: ours at 1e3)",
    med[("ours", "map_1000000")], med[("ours", "map_1000")], 2.0)
row("maps: per-entry build cost, 1e6 vs 1e3 entries, colliding keys (reference: ours at 1e3)",
    med[("ours", "map_1000000_padded")], med[("ours", "map_1000_padded")], 2.0)
# What the kernel charges for the memory a 1e6 build must write, whichever the runtime: the
# table (2^21 slots: 2^17 blocks of 16 x 49 B) and the key strings (1e6 String objects of 64 B
# with malloc's header), first touched page by page.
pages = (2**17 * 16 * 49 + 1000000 * 64) / 4096
touch = pages * med[("floor", "page_touch")] / 1e6
print("| maps: first touch of the memory a 1e6 build writes (103 MB table, 64 MB of key strings), per entry "
      f"(reference: ours at 1e3) | {time(touch)} | {time(med[('ours', 'map_1000')])} "
      f"| {touch / med[('ours', 'map_1000')]:.2f}x | — |")
# The same scaling of Apache's runtime, for comparison (its layout and hash are the ABI ours
# keeps: see docs/adr/0008-runtime-hot-paths.md).
for key, label in (("map_{}", "`key-<i>`"), ("map_{}_padded", "colliding keys")):
    ours = med[("ref", key.format(1000000))]
    ref = med[("ref", key.format(1000))]
    print(f"| maps: Apache's per-entry build cost, 1e6 vs 1e3 entries, {label} (reference: Apache at 1e3) "
          f"| {time(ours)} | {time(ref)} | {ours / ref:.2f}x | — |")
row("rust: `#[ffihub::function]` demo.add_one vs Apache's C++ testing.add_one (ffihub runtime)",
    med[("calls", "demo.add_one")], med[("calls", "testing.add_one")], 1.1)
PY
