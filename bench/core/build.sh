# Sourced by bench/core's scripts: builds both runtimes' sides of bench/core/bench_core.c (build
# logs on stderr) and sets ROOT (the checkout, also the working directory), OURS and APACHE (the
# folders holding each runtime's libtvm_ffi.so) and BIN (the benchmark program).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
[[ "$TARGET" = /* ]] || TARGET="$ROOT/$TARGET"
APACHE="${APACHE_TVM_FFI_DIR:-$ROOT/.deps/apache-tvm-ffi/tvm_ffi}/lib"
OURS="$TARGET/release"
BIN="$TARGET/bench/core/bench_core"
{
    scripts/setup-apache.sh
    # The runtime first: the demo extension links the runtime it finds in the target folder.
    env -u TVM_FFI_LIB_DIR cargo build --release --locked -p ffihub-runtime
    env -u TVM_FFI_LIB_DIR cargo build --release --locked -p ffihub-demo
    mkdir -p "$TARGET/bench/core"
    gcc -std=c11 -O2 -Wall -Wextra -Werror -I runtime/include bench/core/bench_core.c \
        -o "$BIN" -L "$OURS" -ltvm_ffi -ldl
} >&2
