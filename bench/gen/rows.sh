#!/usr/bin/env bash
# Benchmark (not a test): the generator at the scale of Apache TVM 0.27 (libtvm_runtime.so +
# libtvm_compiler.so: 1,830 functions, 472 types), the harvest of TVM's Python package, and the
# load time of the packages it writes.
# Prints markdown rows `| operation | ours | reference | ratio | target |`; for these rows the
# reference is the target itself (there is no other generator to run side by side), so the
# ratio says how far under (< 1) or over (> 1) the target a run is.
#   bench/gen/rows.sh [repetitions]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
# shellcheck source=tests/common.sh
source "$ROOT/tests/common.sh"
REPS="${1:-5}"
scripts/setup-apache.sh >/dev/null
scripts/setup-tvm.sh >/dev/null
cargo build --release --locked -p ffihub-bindgen >/dev/null 2>&1
APACHE="$(runtime_dir apache)"
TVM="$ROOT/.deps/apache-tvm/site/tvm/lib"
OUT="$ROOT/target/bench/gen"
rm -rf "$OUT" && mkdir -p "$OUT"
LD_LIBRARY_PATH="$APACHE:$TVM" target/release/ffihub dump --runtime "$APACHE/libtvm_ffi.so" \
    --lib "$TVM/libtvm_runtime.so" --lib "$TVM/libtvm_compiler.so" -o "$OUT/tvm.yaml" 2>/dev/null

# Best wall time and peak RSS of `generate --lang all` over REPS runs.
python3 - "$REPS" "$OUT" <<'PY'
import resource, subprocess, sys, time
reps, out = int(sys.argv[1]), sys.argv[2]
best = float("inf")
for i in range(reps):
    t = time.perf_counter()
    subprocess.run(["target/release/ffihub", "generate", "--lang", "all", "--name", "tvm",
                    "--metadata", f"{out}/tvm.yaml", "--out", f"{out}/all"],
                   check=True, stderr=subprocess.DEVNULL)
    best = min(best, time.perf_counter() - t)
peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"| generate TVM 0.27 --lang all (julia+node+cpp, best of {reps}) | {best:.2f} s | 2 s | {best / 2:.2f} | < 2 s |")
print(f"| generate TVM 0.27 --lang all, peak memory | {peak_mb:.0f} MB | 500 MB | {peak_mb / 500:.2f} | < 500 MB |")
PY

# Best wall time and peak RSS of `harvest` (TVM's Python package: 894 files) over REPS runs.
python3 - "$REPS" "$OUT" "$ROOT/.deps/apache-tvm/site/tvm" <<'PY'
import resource, subprocess, sys, time
reps, out, package = int(sys.argv[1]), sys.argv[2], sys.argv[3]
best = float("inf")
for i in range(reps):
    t = time.perf_counter()
    subprocess.run(["target/release/ffihub", "harvest", "--metadata", f"{out}/tvm.yaml",
                    "--python", package, "-o", f"{out}/harvested.yaml"],
                   check=True, stderr=subprocess.DEVNULL)
    best = min(best, time.perf_counter() - t)
peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"| harvest TVM 0.27's Python package (894 files, best of {reps}) | {best:.2f} s | 2 s | {best / 2:.2f} | < 2 s |")
print(f"| harvest TVM 0.27's Python package, peak memory | {peak_mb:.0f} MB | 300 MB | {peak_mb / 300:.2f} | < 300 MB |")
PY

# Node: require() of the generated package (loads TVM, checks 2,302 items), best of REPS.
node_support "$OUT/all/node"
node_ms=$(for _ in $(seq "$REPS"); do
    LD_LIBRARY_PATH="$APACHE:$TVM" FFIHUB_LIBRARY_PATH="$TVM" node -e '
        const t = process.hrtime.bigint(); require(process.argv[1]);
        console.log(Number(process.hrtime.bigint() - t) / 1e6)' "$OUT/all/node/index.js"
done | sort -n | head -1)
python3 -c "import sys; v=float(sys.argv[1]); print(f'| Node require() of the TVM package (best of $REPS) | {v:.0f} ms | 5000 ms | {v/5000:.2f} | < 5 s |')" "$node_ms"

# Julia: precompilation, then `using` of the precompiled package (best of REPS).
julia_env "$OUT/julia-env" Tvm="$OUT/all/julia"
export JULIA_DEPOT_PATH="$OUT/julia-depot" TVM_FFI_LIB="$APACHE/libtvm_ffi.so" FFIHUB_LIBRARY_PATH="$TVM" LD_LIBRARY_PATH="$APACHE:$TVM"
jl() { scripts/julia --startup-file=no --project="$OUT/julia-env" "$@"; }
jl -e 'import TVMFFI'  # the support package's own precompilation is not counted
pre=$(jl -e 't = @elapsed Base.compilecache(Base.PkgId(Base.UUID("'"$(package_uuid "$OUT/all/julia")"'"), "Tvm")); println(t)' 2>/dev/null | tail -1)
python3 -c "import sys; v=float(sys.argv[1]); print(f'| Julia 1.5 precompilation of the TVM package | {v:.1f} s | 60 s | {v/60:.2f} | < 60 s |')" "$pre"
using=$(for _ in $(seq "$REPS"); do jl -e 'println(@elapsed using Tvm)'; done | sort -n | head -1)
python3 -c "import sys; v=float(sys.argv[1]); print(f'| Julia 1.5 \`using\` of the precompiled TVM package (best of $REPS) | {v:.2f} s | 5 s | {v/5:.2f} | < 5 s |')" "$using"
