#!/usr/bin/env bash
# Instructions per operation of the runtime's C ABI, ffihub's runtime against Apache's, counted by
# callgrind (not a test: a benchmark whose numbers depend neither on the CPU nor on the load).
#
#   bench/core/instructions.sh [-v] [OPERATION...]
#
# Each operation of bench/core/bench_core.c (default: all of bench/core/operations.tsv and the
# 1e3-entry map builds) runs under `valgrind --tool=callgrind` twice per runtime, n and 3n times
# after the same setup, counting only inside the benchmark's function of the operation; the
# difference of the two counts over 2n is the cost of one operation, without the first call's
# lazy work. Counted: every instruction outside the benchmark program itself (the runtime, the C
# library), i.e. what the runtime makes one call cost, and the executed jumps of the runtime
# library that cross or end at a 32-byte boundary (code layout that some Intel cores run slowly;
# see bench/core/instructions.py). `-v` also prints, per operation and runtime, the functions
# the instructions ran in. Prints a markdown table; a run of all operations also writes it to
# bench/RESULTS.md (section `instruction-counts`).
set -euo pipefail
VERBOSE=0
if [[ "${1:-}" == -v ]]; then
    VERBOSE=1
    shift
fi
command -v valgrind >/dev/null || {
    echo "bench/core/instructions.sh: needs valgrind (apt-get install valgrind)" >&2
    exit 2
}
# shellcheck source=bench/core/build.sh
source "$(dirname "${BASH_SOURCE[0]}")/build.sh"

# Pairs "<operation>" "<n>": n of the cheaper run (operations that take microseconds run fewer
# times).
specs=()
ALL=0
if [[ $# -gt 0 ]]; then
    names=("$@")
else
    ALL=1
    mapfile -t names < <(cut -f1 bench/core/operations.tsv)
    names+=(map_1000 map_1000_padded)
fi
for name in "${names[@]}"; do
    case "$name" in
        raise_fetch_error | array_of_1000_ints | map_*) specs+=("$name" 10) ;;
        *) specs+=("$name" 1000) ;;
    esac
done

OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
for ((i = 0; i < ${#specs[@]}; i += 2)); do
    name="${specs[i]}" n="${specs[i + 1]}"
    for side in ours ref; do
        if [[ $side == ours ]]; then lib="$OURS"; else lib="$APACHE"; fi
        for count in "$n" "$((3 * n))"; do
            # Only what runs inside the operation's function (op_*) is counted.
            LD_LIBRARY_PATH="$lib" valgrind --tool=callgrind -q --toggle-collect='op_*' \
                --dump-instr=yes --callgrind-out-file="$OUT/$side.$name.$count" \
                "$BIN" once "$name" "$count"
        done
    done
    echo "   $name" >&2
done

report="$(python3 bench/core/instructions.py "$OUT" "$BIN" "$VERBOSE" bench/core/operations.tsv \
    "${specs[@]}")"
echo "$report"
if ((ALL)); then
    apache="$(cat "$APACHE/../../.installed-version" 2>/dev/null || echo "in $APACHE")"
    python3 bench/results.py instruction-counts "Instructions per operation (any CPU)" \
        "Produced by \`bench/core/instructions.sh\` on $(date -u '+%Y-%m-%d'), $(valgrind --version), \
Apache TVM-FFI $apache. Instructions executed per \
operation (callgrind) by the runtime and what it calls (the C library: malloc, memcpy...), not \
by the benchmark program's loop; the same C program on both runtimes. Unlike times, they do not \
depend on the CPU or the load: a row at or below Apache's does no more work on any CPU (how fast \
each instruction runs still depends on the micro-architecture and the code layout). The last \
columns count the executed jumps of libtvm_ffi.so that cross or end at a 32-byte boundary, which \
Intel cores from Skylake to Cascade Lake run slowly (docs/adr/0008-runtime-hot-paths.md)." \
        "$(grep '^|' <<<"$report")"
fi
