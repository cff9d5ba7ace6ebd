#!/usr/bin/env bash
# The main job, for now: build ffihub's runtime, compile the seeds' add_one_c example against
# ffihub's headers, and run it through a small C host on ffihub's libtvm_ffi.so.
#   scripts/run-example.sh            # on ffihub's runtime
#   TVM_FFI_LIB_DIR=dir scripts/run-example.sh   # on another libtvm_ffi.so (e.g. Apache's)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

cargo build --release --locked -p ffihub-runtime
LIB_DIR="${TVM_FFI_LIB_DIR:-$ROOT/target/release}"
OUT="$ROOT/target/examples/add_one_c"
mkdir -p "$OUT"
# The example is Apache's code, kept verbatim: it has an unused variable and parameters.
gcc -std=c11 -O2 -fPIC -shared -Wall -Wno-unused-variable -Wno-unused-parameter \
    -I runtime/include examples/add_one_c/add_one_c.c -o "$OUT/add_one_c.so"
gcc -std=c11 -O2 -Wall -Wextra -Werror -I runtime/include examples/add_one_c/host.c \
    -o "$OUT/host" -L "$LIB_DIR" -ltvm_ffi -ldl
LD_LIBRARY_PATH="$LIB_DIR" "$OUT/host" "$OUT/add_one_c.so"
