#!/usr/bin/env bash
# Instructions per operation of the runtime's C ABI, ffihub's runtime against Apache's, counted by
# callgrind (not a test: a benchmark whose numbers do not depend on the CPU family or the load).
#
#   bench/core/instructions.sh [-v] [OPERATION...]
#
# Each operation of bench/core/bench_core.c (default: all of bench/core/operations.tsv and the
# 1e3-entry map builds) runs under `valgrind --tool=callgrind` twice per runtime, n and 3n times
# after the same setup, counting only inside the benchmark's function of the operation; the
# difference of the two counts over 2n is the cost of one operation, without the first call's
# lazy work. Counted: every
# instruction outside the benchmark program itself (the runtime, the C library, the loader),
# i.e. what the runtime makes one call cost. `-v` also prints, per operation and runtime, the
# functions that the operation's instructions ran in. Prints a markdown table.
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

# "<operation> <n>": n of the cheaper run (the operations that take microseconds run fewer times).
specs=()
if [[ $# -gt 0 ]]; then
    names=("$@")
else
    mapfile -t names < <(cut -f1 bench/core/operations.tsv)
    names+=(map_1000 map_1000_padded)
fi
for name in "${names[@]}"; do
    case "$name" in
        raise_fetch_error | array_of_1000_ints | map_*) specs+=("$name 10") ;;
        *) specs+=("$name 1000") ;;
    esac
done

OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
for spec in "${specs[@]}"; do
    read -r name n <<<"$spec"
    for side in ours ref; do
        if [[ $side == ours ]]; then lib="$OURS"; else lib="$APACHE"; fi
        for count in "$n" "$((3 * n))"; do
            # Only what runs inside the operation's function (op_*) is counted.
            LD_LIBRARY_PATH="$lib" valgrind --tool=callgrind -q --toggle-collect='op_*' \
                --callgrind-out-file="$OUT/$side.$name.$count" "$BIN" once "$name" "$count"
        done
    done
    echo "   $name" >&2
done

python3 - "$OUT" "$BIN" "$VERBOSE" bench/core/operations.tsv "${specs[@]}" <<'PY'
import collections, os, re, sys

out, program, verbose, labels_path, *specs = sys.argv[1:]
LABELS = dict(line.rstrip("\n").split("\t") for line in open(labels_path, encoding="utf-8"))
LABELS["map_1000"] = "runtime: `ffi.Map` str→int, 1e3 entries (`key-<i>`), per entry"
LABELS["map_1000_padded"] = ("runtime: `ffi.Map` str→int, 1e3 entries (`key-<10 digits>`: "
                             "colliding hashes), per entry")
PER = {"map_1000": 1000, "map_1000_padded": 1000}  # operations per run of the op


def self_costs(path):
    """Instructions per (object, function) in a callgrind profile, each counted where it ran."""
    names, cost = {}, collections.Counter()
    obj = fn = None
    skip_next = False  # the line after `calls=` is the callee's inclusive cost

    def name(kind, text):
        m = re.match(r"\((\d+)\)(?: (.*))?$", text)
        if m is None:
            return text
        if m.group(2) is not None:
            names[(kind, m.group(1))] = m.group(2)
        return names[(kind, m.group(1))]

    for line in open(path, encoding="utf-8", errors="replace"):
        if line[:1].isdigit() or line[:1] in "+-*":
            if skip_next:
                skip_next = False
            else:
                fields = line.split()
                if len(fields) >= 2:
                    cost[(obj, fn)] += int(fields[1])
        elif line.startswith("ob="):
            obj = name("ob", line[3:].rstrip("\n"))
        elif line.startswith("fn="):
            fn = name("fn", line[3:].rstrip("\n"))
        elif line.startswith("cob="):
            name("ob", line[4:].rstrip("\n"))
        elif line.startswith("cfn="):
            name("fn", line[4:].rstrip("\n"))
        elif line.startswith("calls="):
            skip_next = True
    return cost


def per_op(side, name, n):
    few = self_costs(os.path.join(out, f"{side}.{name}.{n}"))
    many = self_costs(os.path.join(out, f"{side}.{name}.{3 * n}"))
    ops = 2 * n * PER.get(name, 1)
    split = {key: (many[key] - few[key]) / ops for key in set(few) | set(many)}
    runtime = sum(v for (obj, _), v in split.items() if obj != program)
    return runtime, split


print("| operation | ours | Apache's | ratio |")
print("|---|---|---|---|")
details = []
for spec in specs:
    name, n = spec.split()
    ours, ours_split = per_op("ours", name, int(n))
    ref, ref_split = per_op("ref", name, int(n))
    print(f"| {LABELS.get(name, name)} | {ours:.0f} | {ref:.0f} | {ours / ref:.2f}x |")
    for side, split in (("ours", ours_split), ("Apache's", ref_split)):
        top = sorted(((v, key) for key, v in split.items() if abs(v) >= 0.5), reverse=True)
        details.append(f"{name}, {side}:\n" + "".join(
            f"  {v:10.1f}  {fn}  [{os.path.basename(obj or '?')}]\n" for v, (obj, fn) in top))
if verbose == "1":
    print("\nInstructions per operation by function (the benchmark program's own included):\n")
    print("```\n" + "".join(details) + "```")
PY
