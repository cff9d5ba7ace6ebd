#!/usr/bin/env bash
# Runs the thread stress program (tests/c/thread_stress.c, every operation including global and
# type registration) on ffihub's runtime under ThreadSanitizer, with the runtime AND Rust's
# standard library instrumented, so that the detector sees std's locks (an uninstrumented std
# makes every access behind a contended Mutex look like a race). Not part of the test command:
# building the standard library takes several minutes.
#
#     scripts/race-check.sh [rounds] [iterations]      # default: 2 rounds of 200 iterations
#
# Needs (installed here from Debian when missing, as root): rustc-web, cargo-web and
# rust-web-src (a toolchain with its std sources, built with RUSTC_BOOTSTRAP=1 -Zbuild-std),
# lld-19 (the runtime links with lld) and libclang-rt-19-dev (the TSan runtime for the C
# program). Exits 0 when TSan reports nothing; the report is in target/race-check/tsan.log.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS="${1:-2}"
ITERATIONS="${2:-200}"
OUT="$ROOT/target/race-check"
LLVM=/usr/lib/llvm-19
TSAN_RT="$LLVM/lib/clang/19/lib/linux/libclang_rt.tsan-x86_64.a"

if [ ! -x /usr/bin/rustc ] || [ ! -d /usr/lib/rustlib/src/rust/library ] || [ ! -x "$LLVM/bin/ld.lld" ] ||
  [ ! -f "$TSAN_RT" ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    rustc-web cargo-web rust-web-src lld-19 libclang-rt-19-dev
fi
"$ROOT/scripts/setup-apache.sh" >/dev/null
APACHE="$ROOT/.deps/apache-tvm-ffi/tvm_ffi"
mkdir -p "$OUT"

# The runtime and std, instrumented (a target folder of their own: the flags differ).
echo "race-check: building the runtime and std with -Zsanitizer=thread (slow the first time)"
(cd "$ROOT" && PATH="$LLVM/bin:$PATH" RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 \
  RUSTFLAGS="-Zsanitizer=thread -Clink-arg=-fuse-ld=lld" \
  /usr/bin/cargo build -Zbuild-std --release -p ffihub-runtime \
  --target x86_64-unknown-linux-gnu --target-dir "$ROOT/target/tsan-std")
LIB_DIR="$ROOT/target/tsan-std/x86_64-unknown-linux-gnu/release"

# The C program, instrumented by gcc and linked with LLVM's TSan runtime (the runtime library
# calls its newer entry points); -rdynamic exports them to libtvm_ffi.so.
gcc -std=c11 -g -O1 -fsanitize=thread -I "$APACHE/include" -I "$APACHE/3rdparty/dlpack/include" \
  -c "$ROOT/tests/c/thread_stress.c" -o "$OUT/thread_stress.o"
gcc "$OUT/thread_stress.o" -o "$OUT/thread_stress" -rdynamic \
  -Wl,--whole-archive "$TSAN_RT" -Wl,--no-whole-archive \
  -L"$APACHE/lib" -ltvm_ffi -lpthread -ldl -lm -lrt -lstdc++

echo "race-check: thread_stress all $ROUNDS $ITERATIONS under ThreadSanitizer"
status=0
LD_LIBRARY_PATH="$LIB_DIR" TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1" \
  "$OUT/thread_stress" all "$ROUNDS" "$ITERATIONS" >"$OUT/stdout.log" 2>"$OUT/tsan.log" || status=$?
tail -n 1 "$OUT/stdout.log"
reports=$(grep -c "WARNING: ThreadSanitizer" "$OUT/tsan.log" || true)
echo "race-check: $reports ThreadSanitizer report(s), exit status $status (details: $OUT/tsan.log)"
[ "$status" -eq 0 ] && [ "$reports" -eq 0 ]
