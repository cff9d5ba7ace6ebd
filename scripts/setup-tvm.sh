#!/usr/bin/env bash
# Installs Apache TVM 0.27's runtime and compiler libraries (PyPI `apache-tvm==0.27.0.post1`,
# pinned by hash) into the git-ignored .deps/apache-tvm/lib: the large real-world library that
# tests/tvm generates bindings for. Only the two libraries are unpacked; nothing is installed.
# Running it again is a no-op once they exist.
set -euo pipefail
VERSION="0.27.0.post1"
WHEEL_FILE="apache_tvm-${VERSION}-py3-none-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"
WHEEL_SHA256="f503fc903b6e16fda5daacac6698ecb8bc38937f57da7aa29f6c7ab169d08657"
PYTHON="${PYTHON:-python3}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/.deps/apache-tvm"
if [[ -f "$DEST/lib/libtvm_compiler.so" && -f "$DEST/lib/libtvm_runtime.so" && "$(cat "$DEST/.installed-version" 2>/dev/null)" == "$VERSION" ]]; then
    echo "apache-tvm==$VERSION already installed in $DEST"
    exit 0
fi
mkdir -p "$ROOT/.deps"
WORK="$(mktemp -d "$ROOT/.deps/.apache-tvm.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
"$PYTHON" -m pip download --no-deps --only-binary=:all: --python-version 3.11 --implementation cp \
    --abi cp311 --platform manylinux_2_28_x86_64 --dest "$WORK" "apache-tvm==$VERSION"
actual="$(sha256sum "$WORK/$WHEEL_FILE" | cut -d' ' -f1)"
[[ "$actual" == "$WHEEL_SHA256" ]] || { echo "setup-tvm.sh: sha256 mismatch for $WHEEL_FILE: $actual" >&2; exit 1; }
"$PYTHON" - "$WORK/$WHEEL_FILE" "$WORK/unpacked" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in ("tvm/lib/libtvm_runtime.so", "tvm/lib/libtvm_compiler.so"):
        z.extract(name, sys.argv[2])
PY
mkdir -p "$WORK/out/lib"
mv "$WORK/unpacked/tvm/lib/"*.so "$WORK/out/lib/"
chmod 0755 "$WORK/out/lib/"*.so
echo "$VERSION" >"$WORK/out/.installed-version"
rm -rf "$DEST"
mv "$WORK/out" "$DEST"
echo "installed apache-tvm==$VERSION libraries into $DEST/lib"
