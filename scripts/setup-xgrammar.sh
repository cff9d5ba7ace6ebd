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

PYTHON="${PYTHON:-python3}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/.deps/xgrammar"
STAMP="$DEST/.installed-version"

die() {
    echo "setup-xgrammar.sh: error: $*" >&2
    exit 1
}

if [[ -f "$DEST/xgrammar/libxgrammar_bindings.so" && -f "$STAMP" && "$(cat "$STAMP")" == "$WHEEL_SHA256" ]]; then
    echo "xgrammar==$VERSION already installed in $DEST"
    exit 0
fi
[[ "$(uname -s)-$(uname -m)" == "Linux-x86_64" ]] || die "only Linux x86_64 is supported (the pinned wheel is)"
command -v "$PYTHON" >/dev/null || die "$PYTHON not found"

mkdir -p "$ROOT/.deps"
WORK="$(mktemp -d "$ROOT/.deps/.xgrammar.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
if [[ -n "${XGRAMMAR_WHEEL:-}" ]]; then
    [[ -f "$XGRAMMAR_WHEEL" ]] || die "XGRAMMAR_WHEEL=$XGRAMMAR_WHEEL does not exist"
    cp "$XGRAMMAR_WHEEL" "$WORK/$WHEEL_FILE"
else
    echo "downloading xgrammar==$VERSION from PyPI"
    "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
        --python-version 3.11 --implementation cp --abi cp311 --platform manylinux_2_28_x86_64 \
        --dest "$WORK" "xgrammar==$VERSION" || die "pip download of xgrammar==$VERSION failed"
fi
[[ -f "$WORK/$WHEEL_FILE" ]] || die "expected $WHEEL_FILE, got: $(ls "$WORK")"
actual="$(sha256sum "$WORK/$WHEEL_FILE" | cut -d' ' -f1)"
[[ "$actual" == "$WHEEL_SHA256" ]] || die "sha256 mismatch for $WHEEL_FILE: expected $WHEEL_SHA256, got $actual"

mkdir "$WORK/unpacked"
"$PYTHON" -m zipfile -e "$WORK/$WHEEL_FILE" "$WORK/unpacked" || die "cannot unpack $WHEEL_FILE"
[[ -f "$WORK/unpacked/xgrammar/libxgrammar_bindings.so" ]] || die "the wheel has no xgrammar/libxgrammar_bindings.so"
chmod 0755 "$WORK/unpacked/xgrammar/libxgrammar_bindings.so"  # zipfile does not keep modes
echo "$WHEEL_SHA256" >"$WORK/unpacked/.installed-version"
rm -rf "$DEST"
mv "$WORK/unpacked" "$DEST"
echo "installed xgrammar==$VERSION into $DEST"
