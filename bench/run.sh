#!/usr/bin/env bash
# All benchmarks in one markdown table (not a test: run it by hand; a few minutes).
#
#   bench/run.sh [AREA...]     e.g. `bench/run.sh core julia`; default: every area
#
# Convention (for anyone adding benchmarks): an area is a directory bench/<AREA>/ with an
# executable `rows.sh`. It builds what it needs and prints, on stdout, one markdown row per
# measured operation and nothing else:
#
#   | <operation> | <ours> | <reference> | <ratio ours/reference> | <target> |
#
# with units on the times (`14.7 ns`, `3.1 µs`), the ratio as `0.93x` and the target as e.g.
# `≤ 1.0x`. "Reference" is Apache's runtime (the same binary run with the library path swapped)
# or the language's floor (a bare ccall, a bare N-API call, a raw TVMFFIFunctionCall); the two
# sides are measured in the same run, alternated. Progress and build logs go to stderr. This
# script prints the header once, the rows of every area in order, and writes bench/RESULTS.md
# with the date and the machine.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if [[ $# -gt 0 ]]; then
    areas=("$@")
else
    areas=()
    for script in bench/*/rows.sh; do
        areas+=("$(basename "$(dirname "$script")")")
    done
fi

header='| operation | ours | reference | ratio | target |
|---|---|---|---|---|'
rows=""
for area in "${areas[@]}"; do
    script="bench/$area/rows.sh"
    [[ -x "$script" ]] || { echo "bench/run.sh: no $script" >&2; exit 2; }
    echo "== $area" >&2
    started=$SECONDS
    # Only table rows count; a failing area is reported and the others still run.
    if out="$("$script")"; then
        rows+="$(grep -E '^\|' <<<"$out" || true)"$'\n'
    else
        echo "bench/run.sh: $script failed" >&2
        rows+="| $area: benchmark failed (see stderr) | | | | |"$'\n'
    fi
    echo "   ($((SECONDS - started)) s)" >&2
done

table="$header"$'\n'"${rows%$'\n'}"
echo "$table"

# bench/RESULTS.md keeps the latest table per CPU family (vendor and family number): a run
# replaces its own family's section and keeps the others, since the same code can rank
# differently on another family (docs/adr/0008-runtime-hot-paths.md).
cpuinfo() { grep -m1 "^$1[[:space:]]*:" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true; }
vendor="$(cpuinfo vendor_id)"
family="$(cpuinfo 'cpu family')"
python3 bench/results.py "cpu-family: ${vendor:-unknown} ${family:-?}" \
    "$(cpuinfo 'model name') (${vendor:-unknown vendor}, family ${family:-?}, model $(cpuinfo model))" \
    "Produced by \`bench/run.sh ${areas[*]}\` on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(uname -srm)." \
    "$table"
