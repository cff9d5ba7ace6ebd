#!/usr/bin/env bash
# Installs tilelang 0.1.15 from PyPI, without its requirements, for tests/tilelang (its bundled
# TVM build on ffihub's runtime), in the project-local, git-ignored folder .deps/tilelang/:
#
#   wheels/       the pinned wheels of tests/tilelang/requirements.txt and apache-tvm-ffi 0.1.12
#   site/         tilelang (its libtvm_runtime.so, libtvm_compiler.so, libtilelang.so and bundled
#                 TVM Python package), z3-solver, psutil, numpy... (`pip install --target`),
#                 shared by both venvs through a .pth file
#   venv-apache/  apache-tvm-ffi 0.1.12 as published (tilelang 0.1.15 requires >=0.1.11,<0.1.13)
#   venv-ffihub/  the same; the test points its tvm_ffi/lib/libtvm_ffi.so at ffihub's build
#
# Running the script again is a no-op once done.
#
# Environment:
#   PYTHON  a CPython 3.11 interpreter (default: python3); the apache-tvm-ffi wheel is cp311
set -euo pipefail

FFI_VERSION="0.1.12"
FFI_SHA256="011e372fb9b169c3bd57f63e03fa1383cee6f1ef47a4932c4ff552f29db281c3"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/.deps/tilelang"
REQUIREMENTS="$ROOT/tests/tilelang/requirements.txt"
# The stamp records what the installation was made from; any change redoes it.
STAMP_TEXT="$FFI_VERSION $FFI_SHA256 $(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"
# shellcheck source=SCRIPTDIR/lib/wheels.sh
source "$ROOT/scripts/lib/wheels.sh"

if stamp_matches "$DEST/.installed" "$STAMP_TEXT"; then
    echo "tilelang already installed in $DEST"
    exit 0
fi

require_linux_x86_64 "wheels are"
require_python_version 3.11

rm -rf "$DEST/site" "$DEST/venv-apache" "$DEST/venv-ffihub" "$DEST/.installed"
mkdir -p "$DEST/wheels"
make_work_dir tilelang
FFI_REQUIREMENT="$WORK/ffi-requirements.txt"
echo "apache-tvm-ffi==$FFI_VERSION --hash=sha256:$FFI_SHA256" >"$FFI_REQUIREMENT"

echo "fetching the pinned wheels into $DEST/wheels (reused when present)"
for requirements in "$REQUIREMENTS" "$FFI_REQUIREMENT"; do
    download_wheels "$DEST/wheels" "$requirements" || die "cannot download the wheels of $requirements"
done

echo "installing tilelang and the packages its TVM needs into $DEST/site"
install_wheels "$DEST/wheels" "$REQUIREMENTS" --target "$WORK/site" || die "cannot install $REQUIREMENTS"
for lib in tilelang/lib/libtvm_runtime.so tilelang/lib/libtvm_compiler.so tilelang/lib/libtilelang.so \
    z3/lib/libz3.so.4.15 tilelang/3rdparty/tvm/python/tvm/__init__.py; do
    [[ -f "$WORK/site/$lib" ]] || die "the installation lacks $lib"
done
mv "$WORK/site" "$DEST/site"
echo "creating venv-apache with apache-tvm-ffi==$FFI_VERSION"
make_wheel_venv "$DEST/venv-apache" "$DEST/wheels" "$FFI_REQUIREMENT" "$DEST/site" tilelang-site.pth ||
    die "cannot install apache-tvm-ffi into venv-apache"
copy_venv_for_ffihub "$DEST"

"$DEST/venv-apache/bin/python" -c 'import tvm_ffi, numpy, psutil' ||
    die "the tilelang environment does not import on Apache's runtime"
echo "$STAMP_TEXT" >"$DEST/.installed"
echo "installed tilelang in $DEST"
