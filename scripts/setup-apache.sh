#!/usr/bin/env bash
# Installs the pinned Apache TVM-FFI wheel into the project-local, git-ignored folder
# .deps/apache-tvm-ffi/ (giving .deps/apache-tvm-ffi/tvm_ffi/{include,lib/libtvm_ffi.so,...}).
# The conformance tests compare ffihub against it (see tests/src/lib.rs, apache_root()).
#
# Nothing is installed system-wide: the wheel is fetched with `pip download --no-deps` and
# unpacked with `python3 -m zipfile`. Running the script again is a no-op once the files exist.
#
# Environment:
#   APACHE_TVM_FFI_WHEEL  use this local .whl file instead of downloading one (offline setups)
#   PYTHON                the Python interpreter to use (default: python3)
set -euo pipefail

VERSION="0.1.15.post2"
# The wheel is specific to a CPython version only because of its Python extension; the C/C++
# libraries the tests use are the same in every variant, so one variant is pinned (with its hash).
WHEEL_PYTHON="3.11"
WHEEL_ABI="cp311"
WHEEL_PLATFORM="manylinux_2_28_x86_64"
WHEEL_FILE="apache_tvm_ffi-${VERSION}-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl"
WHEEL_SHA256="8ecebe749834f6ac0f2693d5964acf9ac75d0bc26e6ba64c46eb7ab00ea50fac"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/.deps/apache-tvm-ffi"
# shellcheck source=SCRIPTDIR/lib/wheels.sh
source "$ROOT/scripts/lib/wheels.sh"

is_complete() {
    [[ -f "$DEST/tvm_ffi/include/tvm/ffi/c_api.h" &&
        -f "$DEST/tvm_ffi/include/dlpack/dlpack.h" &&
        -f "$DEST/tvm_ffi/lib/libtvm_ffi.so" &&
        -f "$DEST/tvm_ffi/lib/libtvm_ffi_testing.so" ]] && stamp_matches "$DEST/.installed-version" "$VERSION"
}

if is_complete; then
    echo "apache-tvm-ffi==$VERSION already installed in $DEST"
    exit 0
fi

require_linux_x86_64 "wheel is $WHEEL_PLATFORM"
require_python

make_work_dir apache-tvm-ffi
fetch_pinned_wheel APACHE_TVM_FFI_WHEEL "$WHEEL_FILE" "$WHEEL_SHA256" "apache-tvm-ffi==$VERSION" \
    --python-version "$WHEEL_PYTHON" --implementation cp --abi "$WHEEL_ABI" --platform "$WHEEL_PLATFORM"

unpack_wheel "$WORK/$WHEEL_FILE" "$WORK/unpacked"
for f in include/tvm/ffi/c_api.h include/dlpack/dlpack.h lib/libtvm_ffi.so lib/libtvm_ffi_testing.so; do
    [[ -f "$WORK/unpacked/tvm_ffi/$f" ]] || die "the wheel has no tvm_ffi/$f"
done
# zipfile does not keep permission bits.
chmod 0755 "$WORK/unpacked/tvm_ffi/lib/"*.so
echo "$VERSION" >"$WORK/unpacked/.installed-version"

# Replace any partial or outdated installation in one step.
rm -rf "$DEST"
mv "$WORK/unpacked" "$DEST"
is_complete || die "installation in $DEST is incomplete"
echo "installed apache-tvm-ffi==$VERSION into $DEST"
