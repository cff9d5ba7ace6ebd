#!/usr/bin/env bash
# bench/run.sh rows of a real library: xgrammar 0.2.8's matcher step (is_terminated,
# accept_token(4) + rollback(1), fill_next_token_bitmask with a preallocated mask) from Julia,
# Node.js and C++ through the generated packages on ffihub's runtime, each against Python
# calling the same library through Apache's `tvm_ffi` (its own runtime), the reference. The
# packages come from tests/xgrammar/packages.sh (what tests/xgrammar uses); the scenario is the
# EBNF grammar of examples/xgrammar after one `a` (bench.py, bench.jl, bench.mjs, bench.cpp).
# The four programs run one after another, twice (alternated), and each keeps its best round of
# each call; a row is the language's time over Python's. Target: ≤ 1.0x.
# Needs scripts/setup-xgrammar.sh, setup-apache.sh, setup-pysuite.sh, setup-node.sh and
# setup-julia.sh. Everything but the rows goes to stderr.
set -euo pipefail
exec 3>&1 1>&2
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
HERE="$ROOT/bench/xgrammar"
PYTHON="$ROOT/.deps/pysuites/0.1.15.post2/venv-apache/bin/python"  # Apache's tvm_ffi and numpy
# shellcheck source=tests/common.sh
source "$ROOT/tests/common.sh"
for needed in "$ROOT/.deps/xgrammar/xgrammar/libxgrammar_bindings.so" "$PYTHON" "$APACHE/lib/libtvm_ffi.so"; do
    [[ -e "$needed" ]] || { echo "bench/xgrammar: $needed is missing (scripts/setup-*.sh)" >&2; exit 1; }
done

cargo build --release --locked -p ffihub-runtime -p ffihub-node
cargo build --locked -p ffihub-bindgen --bin ffihub
OUT="$ROOT/target/bench/xgrammar"
"$ROOT/tests/xgrammar/packages.sh" "$OUT/packages"
LIB="$OUT/packages/lib"
g++ -std=c++17 -O2 -DNDEBUG -Wall -Wextra -Werror -pedantic -I "$OUT/packages/xgrammar/cpp" \
    -I bindings/cpp/include -I runtime/include "$HERE/bench.cpp" -L "$OURS" -ltvm_ffi \
    -o "$OUT/bench_cpp"
cp "$HERE/bench.mjs" "$OUT/packages/node/"  # next to its node_modules/xgrammar

# run LANG: one program's `<operation> <ns>` lines, prefixed with LANG.
run() {
    case "$1" in
        python) "$PYTHON" "$HERE/bench.py" "$LIB/libxgrammar_bindings.so" ;;
        c++) LD_LIBRARY_PATH="$OURS" FFIHUB_LIBRARY_PATH="$LIB" "$OUT/bench_cpp" ;;
        node) (cd "$OUT/packages/node" && TVM_FFI_LIB="$OURS/libtvm_ffi.so" \
            FFIHUB_NODE_ADDON="$OURS/libffihub_node.so" FFIHUB_LIBRARY_PATH="$LIB" node bench.mjs) ;;
        julia) JULIA_DEPOT_PATH="$OUT/julia-depot" TVM_FFI_LIB="$OURS/libtvm_ffi.so" \
            LD_LIBRARY_PATH="$OURS" FFIHUB_LIBRARY_PATH="$LIB" "$ROOT/scripts/julia" \
            --startup-file=no --project="$OUT/packages/julia-env" "$HERE/bench.jl" ;;
    esac | sed "s/^/$1 /"
}
LANGS=(python c++ node julia)
: >"$OUT/times.txt"
for pass in 1 2; do
    for lang in "${LANGS[@]}"; do
        echo "pass $pass: $lang"
        run "$lang" | tee -a "$OUT/times.txt"
    done
done

# The rows: the best of the two passes per language and call, over Python's.
python3 - "$OUT/times.txt" >&3 <<'PY'
import sys
best = {}
for line in open(sys.argv[1]):
    lang, op, ns = line.split()
    best[lang, op] = min(best.get((lang, op), float("inf")), float(ns))
CALLS = {
    "is_terminated": "`matcher.is_terminated()`",
    "accept_rollback": "`accept_token(4)` + `rollback(1)`",
    "fill": "`fill_next_token_bitmask(mask)`, the mask made once",
}
def ns(t):
    return f"{t / 1000:.2f} µs" if t >= 1000 else f"{t:.1f} ns"
for op, call in CALLS.items():
    ref = best["python", op]
    for lang in ("julia", "node", "c++"):
        t = best[lang, op]
        print(f"| xgrammar 0.2.8: {call}, {lang} vs Python (Apache's tvm_ffi) | {ns(t)} | {ns(ref)} | {t / ref:.2f}x | ≤ 1.0x |")
PY
