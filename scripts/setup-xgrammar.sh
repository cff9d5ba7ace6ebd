#!/usr/bin/env bash
# Installs the pinned xgrammar wheel's TVM-FFI library for tests/xgrammar (xgrammar from Julia,
# Node.js and C++ through generated bindings, examples/xgrammar) into the project-local,
# git-ignored folder .deps/xgrammar/, giving .deps/xgrammar/xgrammar/libxgrammar_bindings.so and
# the wheel's Python sources (whose signatures examples/xgrammar/bindings.yaml follows).
#
# Nothing is installed: the wheel is fetched with `pip download --no-deps` (xgrammar's Python
# layer needs torch, which is not wanted here; the library needs only a TVM-FFI runtime) and
# unpacked with `python3 -m zipfile`. Running the script again is a no-op once the files exist.
#
# Environment:
#   XGRAMMAR_WHEEL  use this local .whl file instead of downloading one (offline setups)
#   PYTHON          the Python interpreter to use (default: python3)
set -euo pipefail

VERSION="0.2.8"
# The library inside is the same in every CPython variant of the wheel; one is pinned.
WHEEL_FILE="xgrammar-${VERSION}-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"
WHEEL_SHA256="885d7468636a8ca829513b9740fef21cbb438239fa3f91cce06e95e31973b8c6"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/.deps/xgrammar"
# shellcheck source=SCRIPTDIR/lib/wheels.sh
source "$ROOT/scripts/lib/wheels.sh"

if [[ -f "$DEST/xgrammar/libxgrammar_bindings.so" ]] && stamp_matches "$DEST/.installed-version" "$WHEEL_SHA256"; then
    echo "xgrammar==$VERSION already installed in $DEST"
    exit 0
fi
require_linux_x86_64 "wheel is"
require_python

make_work_dir xgrammar
fetch_pinned_wheel XGRAMMAR_WHEEL "$WHEEL_FILE" "$WHEEL_SHA256" "xgrammar==$VERSION" \
    --python-version 3.11 --implementation cp --abi cp311 --platform manylinux_2_28_x86_64

unpack_wheel "$WORK/$WHEEL_FILE" "$WORK/unpacked"
[[ -f "$WORK/unpacked/xgrammar/libxgrammar_bindings.so" ]] || die "the wheel has no xgrammar/libxgrammar_bindings.so"
chmod 0755 "$WORK/unpacked/xgrammar/libxgrammar_bindings.so"  # zipfile does not keep modes
echo "$WHEEL_SHA256" >"$WORK/unpacked/.installed-version"
rm -rf "$DEST"
mv "$WORK/unpacked" "$DEST"
echo "installed xgrammar==$VERSION into $DEST"
