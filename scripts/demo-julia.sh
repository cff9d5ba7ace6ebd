#!/usr/bin/env bash
# The Julia main job: builds the runtime and the demo extension, generates the demo's Julia
# package with `ffihub generate --lang julia` into target/generated/julia/Demo, makes a Julia
# environment that has it and the TVMFFI support package (target/generated/julia/env, with
# Pkg.develop: offline), and runs the Julia example of docs/julia.md (the ```julia block after the
# `julia-example` marker) as
# target/generated/julia/example.jl.
#   --apache   run the example on Apache's runtime too (installs the wheel into .deps/)
# Julia comes from scripts/setup-julia.sh (scripts/demo.sh runs it), through the scripts/julia wrapper.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
[[ "$TARGET" = /* ]] || TARGET="$ROOT/$TARGET"
OUT="$TARGET/generated/julia"

scripts/julia --startup-file=no -e 'nothing' ||
    { echo "demo-julia.sh: Julia is not set up: run scripts/setup-julia.sh (as root)" >&2; exit 1; }

cargo build --release -p ffihub-runtime
cargo build -p ffihub-demo -p ffihub-bindgen
"$TARGET/debug/ffihub" generate --lang julia --runtime "$TARGET/release/libtvm_ffi.so" \
    --lib "$TARGET/debug/libffihub_demo.so" --name demo --out "$OUT/Demo"
scripts/julia --startup-file=no --project="$OUT/env" -e "using Pkg; Pkg.develop([
    PackageSpec(path = \"$ROOT/bindings/julia/TVMFFI\"), PackageSpec(path = \"$OUT/Demo\")]; io = devnull)"

doc=docs/julia.md
awk '/julia-example/ { armed = 1; next }
     armed && /^```julia/ { inside = 1; next }
     inside && /^```/ { exit }
     inside { print }' "$doc" >"$OUT/example.jl"
[[ -s "$OUT/example.jl" ]] || { echo "demo-julia.sh: no julia-example block in $doc" >&2; exit 1; }

echo "==> $OUT/example.jl on ffihub's runtime (from $doc)"
TVM_FFI_LIB="$TARGET/release/libtvm_ffi.so" FFIHUB_LIBRARY_PATH="$TARGET/debug" \
    scripts/julia --startup-file=no --project="$OUT/env" "$OUT/example.jl"

if [[ "${1:-}" == "--apache" ]]; then
    scripts/setup-apache.sh >/dev/null
    APACHE="${APACHE_TVM_FFI_DIR:-$ROOT/.deps/apache-tvm-ffi/tvm_ffi}"
    echo "==> $OUT/example.jl on Apache's runtime"
    TVM_FFI_LIB="$APACHE/lib/libtvm_ffi.so" LD_LIBRARY_PATH="$APACHE/lib" FFIHUB_LIBRARY_PATH="$TARGET/debug" \
        scripts/julia --startup-file=no --project="$OUT/env" "$OUT/example.jl"
fi
