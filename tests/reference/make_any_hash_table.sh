#!/usr/bin/env bash
# Regenerates tests/reference/any_hash_table.tsv: the AnyHash values that Apache TVM-FFI's own
# header code computes for a fixed list of Map/Dict keys (see any_hash_table.cc), which
# runtime/tests/map_any_hash.rs compares with ffihub's runtime.
#
#   tests/reference/make_any_hash_table.sh
#
# Uses the Apache wheel at $APACHE_TVM_FFI_DIR, or .deps/apache-tvm-ffi/tvm_ffi
# (scripts/setup-apache.sh installs it).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
APACHE="${APACHE_TVM_FFI_DIR:-$ROOT/.deps/apache-tvm-ffi/tvm_ffi}"
if [[ ! -f "$APACHE/lib/libtvm_ffi.so" ]]; then
  echo "Apache TVM-FFI not found at $APACHE: run scripts/setup-apache.sh or set APACHE_TVM_FFI_DIR" >&2
  exit 1
fi
BUILD="$(mktemp -d)"
trap 'rm -rf "$BUILD"' EXIT
g++ -std=c++17 -O1 -Wall -Wextra -I "$APACHE/include" "$HERE/any_hash_table.cc" \
    -o "$BUILD/any_hash_table" -L "$APACHE/lib" -ltvm_ffi -Wl,-rpath,"$APACHE/lib"
"$BUILD/any_hash_table" > "$BUILD/any_hash_table.tsv"
mv "$BUILD/any_hash_table.tsv" "$HERE/any_hash_table.tsv"
echo "wrote $HERE/any_hash_table.tsv ($(wc -l < "$HERE/any_hash_table.tsv") values)"
