#!/usr/bin/env bash
# The C++ main job: build ffihub's runtime and the demo extension, generate the demo's C++
# header with `ffihub generate --lang cpp` into target/generated/cpp/demo, then compile and run
# the C++ example of docs/cpp.md (extracted verbatim) against it.
#   scripts/demo-cpp.sh                                                   # on ffihub's runtime
#   TVM_FFI_LIB_DIR=.deps/apache-tvm-ffi/tvm_ffi/lib scripts/demo-cpp.sh  # on Apache's runtime
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

LIB_DIR="$(cd "${TVM_FFI_LIB_DIR:-$ROOT/target/release}" 2>/dev/null && pwd)" || {
  echo "demo-cpp.sh: ${TVM_FFI_LIB_DIR} does not exist" >&2
  exit 1
}
# TVM_FFI_LIB_DIR also steers the Rust extension API's build script: cargo runs without it.
env -u TVM_FFI_LIB_DIR cargo build --release --locked -p ffihub-runtime -p ffihub-demo
env -u TVM_FFI_LIB_DIR cargo build --locked -p ffihub-bindgen
OUT="$ROOT/target/generated/cpp"
mkdir -p "$OUT"

target/debug/ffihub generate --lang cpp --name demo \
    --lib target/release/libffihub_demo.so --runtime "$LIB_DIR/libtvm_ffi.so" --out "$OUT/demo"

# The example of docs/cpp.md: the ```cpp block after the "<!-- cpp-example -->" marker.
awk '/<!-- cpp-example -->/ { found = 1; next }
     found && /^```cpp$/ { inside = 1; next }
     inside && /^```$/ { exit }
     inside { print }' docs/cpp.md > "$OUT/example.cpp"

g++ -std=c++17 -O2 -Wall -Wextra -Werror -pedantic \
    -I bindings/cpp/include -I runtime/include -I "$OUT/demo" \
    "$OUT/example.cpp" -o "$OUT/example" -L "$LIB_DIR" -ltvm_ffi
# The runtime's folder first; target/release also holds the demo extension.
LD_LIBRARY_PATH="$LIB_DIR:$ROOT/target/release" "$OUT/example"
