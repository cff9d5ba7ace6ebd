#!/usr/bin/env bash
# Module exports (`__tvm_ffi_<name>` symbols) end to end: build examples/exports_cpp against
# Apache's headers twice (with and without TVM_FFI_DLL_EXPORT_INCLUDE_METADATA) and the seeds'
# examples/add_one_c; dump them on both runtimes (the dumps must be byte-identical); generate the
# Julia, Node and C++ packages; then call the exports from each language on each runtime (the
# library path picks the runtime). Usage: tests/exports/run.sh OUT_DIR (the workspace built:
# target/debug/ffihub, target/release/libtvm_ffi.so, the Node addon).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="$1"
# shellcheck source=tests/common.sh
source "$ROOT/tests/common.sh"
rm -rf "$OUT" && mkdir -p "$OUT/lib"
LIB="$OUT/lib"

# The libraries, built against Apache's headers only (the macros leave parameters unused).
CXXFLAGS=(-std=c++17 -O1 -Wall -Wextra -Wno-unused-parameter -Werror -fPIC -shared
    -I "$APACHE/include" -L "$APACHE/lib" -ltvm_ffi)
g++ "$ROOT/examples/exports_cpp/exports.cc" "${CXXFLAGS[@]}" -DTVM_FFI_DLL_EXPORT_INCLUDE_METADATA=1 \
    -o "$LIB/libexports.so" &
g++ "$ROOT/examples/exports_cpp/exports.cc" "${CXXFLAGS[@]}" -o "$LIB/libexports_plain.so" &
gcc -std=c11 -fPIC -shared -Wno-unused-variable -Wno-unused-parameter -I "$APACHE/include" \
    "$ROOT/examples/add_one_c/add_one_c.c" -o "$LIB/add_one_c.so"
wait %1 %2

# Dumps on both runtimes, byte-identical.
for rt in apache ours; do
    dir="$(runtime_dir $rt)"
    LD_LIBRARY_PATH="$dir" "$FFIHUB" dump --runtime "$dir/libtvm_ffi.so" --lib "$LIB/libexports.so" \
        --lib "$LIB/add_one_c.so" -o "$OUT/exports.$rt.yaml"
    LD_LIBRARY_PATH="$dir" "$FFIHUB" dump --runtime "$dir/libtvm_ffi.so" \
        --lib "$LIB/libexports_plain.so" -o "$OUT/plain.$rt.yaml"
done
cmp "$OUT/exports.apache.yaml" "$OUT/exports.ours.yaml"
cmp "$OUT/plain.apache.yaml" "$OUT/plain.ours.yaml"
grep -q 'doc: y += a \* x on float32 vectors, in place.' "$OUT/exports.ours.yaml"
grep -q 'name: add_one_c' "$OUT/exports.ours.yaml"
if grep -q 'signature' "$OUT/plain.ours.yaml"; then
    echo "the library built without metadata has signatures in its dump" >&2
    exit 1
fi

"$FFIHUB" generate --lang all --name exports --metadata "$OUT/exports.ours.yaml" --out "$OUT/exports"
"$FFIHUB" generate --lang all --name exports_plain --metadata "$OUT/plain.ours.yaml" --out "$OUT/plain"

# C++: both headers in one program, the libraries found through FFIHUB_LIBRARY_PATH.
g++ -std=c++17 -Wall -Wextra -Werror -pedantic -I "$OUT/exports/cpp" -I "$OUT/plain/cpp" \
    -I "$ROOT/bindings/cpp/include" -I "$ROOT/runtime/include" "$ROOT/tests/exports/calls.cpp" \
    -L "$OURS" -ltvm_ffi -o "$OUT/calls_cpp"

# Node: the declarations pass tsc --strict; the support package is linked in.
node_support "$OUT/exports/node"
node_support "$OUT/plain/node"
tsc_strict "$OUT/exports/node" index.d.ts

# Julia: an offline environment with path entries, a private depot.
julia_env "$OUT/julia-env" Exports="$OUT/exports/julia" ExportsPlain="$OUT/plain/julia"

# The load-time checks: the package generated with metadata, given the library built without it.
mkdir -p "$OUT/stale"
cp "$LIB/libexports_plain.so" "$OUT/stale/libexports.so"
cp "$LIB/add_one_c.so" "$OUT/stale/"
LD_LIBRARY_PATH="$OURS" FFIHUB_LIBRARY_PATH="$OUT/stale" "$OUT/calls_cpp" stale
LD_LIBRARY_PATH="$OURS" FFIHUB_LIBRARY_PATH=/nonexistent "$OUT/calls_cpp" missing
if LD_LIBRARY_PATH="$OURS" FFIHUB_LIBRARY_PATH="$OUT/stale" \
    node -e 'require(process.argv[1])' "$OUT/exports/node/index.js" 2>"$OUT/stale/node.log"; then
    echo "Node loaded a package whose exports changed" >&2
    exit 1
fi
grep -q "export add_one changed (now: packed)" "$OUT/stale/node.log"
echo "ok: Node stale exports refused"

for rt in apache ours; do
    dir="$(runtime_dir $rt)"
    echo "--- $rt runtime"
    LD_LIBRARY_PATH="$dir" FFIHUB_LIBRARY_PATH="$LIB" "$OUT/calls_cpp"
    TVM_FFI_LIB="$dir/libtvm_ffi.so" FFIHUB_LIBRARY_PATH="$LIB" \
        node "$ROOT/tests/exports/calls.js" "$OUT/exports/node/index.js" "$OUT/plain/node/index.js"
    JULIA_DEPOT_PATH="$OUT/julia-depot" TVM_FFI_LIB="$dir/libtvm_ffi.so" LD_LIBRARY_PATH="$dir" \
        FFIHUB_LIBRARY_PATH="$LIB" \
        "$ROOT/scripts/julia" --startup-file=no --project="$OUT/julia-env" "$ROOT/tests/exports/calls.jl"
done
JULIA_DEPOT_PATH="$OUT/julia-depot" TVM_FFI_LIB="$OURS/libtvm_ffi.so" LD_LIBRARY_PATH="$OURS" \
    FFIHUB_LIBRARY_PATH="$OUT/stale" \
    "$ROOT/scripts/julia" --startup-file=no --project="$OUT/julia-env" -e '
        try
            import Exports
            error("Julia loaded a package whose exports changed")
        catch e
            msg = sprint(showerror, e)
            occursin("export add_one of libexports.so is untyped, not (int) -> int", msg) || rethrow()
        end
        println("ok: Julia stale exports refused")'

