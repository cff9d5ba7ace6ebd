#!/usr/bin/env bash
# Installs Apache TVM from PyPI (apache-tvm, Python package and libraries) for tests/tvm (bindings
# generated for TVM's libraries) and tests/tvm_runtime (TVM running on both runtimes), in the
# project-local, git-ignored folder .deps/apache-tvm/:
#
#   wheels/       the pinned wheels of tests/tvm_runtime/requirements.txt and apache-tvm-ffi, downloaded
#                 once (the apache-tvm wheel is ~100 MB) and kept when the rest is redone
#   site/         apache-tvm, numpy, ml_dtypes, typing_extensions (`pip install --target`), shared
#                 by both venvs through a .pth file: TVM's 260 MB of libraries are installed once
#   venv-apache/  the pinned apache-tvm-ffi wheel as published
#   venv-ffihub/  the same wheel; the test points its tvm_ffi/lib/libtvm_ffi.so at ffihub's build
#
# TVM's libraries find libtvm_ffi.so by its soname, which tvm_ffi has loaded before them, so each
# venv's tvm_ffi decides which runtime TVM runs on. Running the script again is a no-op once done.
#
# Environment:
#   PYTHON  a CPython 3.11 interpreter (default: python3); the apache-tvm-ffi wheel is cp311
set -euo pipefail

FFI_VERSION="0.1.15.post2"
FFI_SHA256="8ecebe749834f6ac0f2693d5964acf9ac75d0bc26e6ba64c46eb7ab00ea50fac"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/.deps/apache-tvm"
REQUIREMENTS="$ROOT/tests/tvm_runtime/requirements.txt"
# The stamp records what the installation was made from; any change redoes it.
STAMP_TEXT="$FFI_VERSION $FFI_SHA256 $(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"
# shellcheck source=SCRIPTDIR/lib/wheels.sh
source "$ROOT/scripts/lib/wheels.sh"

if stamp_matches "$DEST/.installed" "$STAMP_TEXT"; then
    echo "Apache TVM (Python) already installed in $DEST"
    exit 0
fi

require_linux_x86_64 "wheels are"
require_python_version 3.11

rm -rf "$DEST/site" "$DEST/venv-apache" "$DEST/venv-ffihub" "$DEST/.installed"
mkdir -p "$DEST/wheels"
make_work_dir apache-tvm
FFI_REQUIREMENT="$WORK/ffi-requirements.txt"
echo "apache-tvm-ffi==$FFI_VERSION --hash=sha256:$FFI_SHA256" >"$FFI_REQUIREMENT"

echo "fetching the pinned wheels into $DEST/wheels (reused when present)"
for requirements in "$REQUIREMENTS" "$FFI_REQUIREMENT"; do
    download_wheels "$DEST/wheels" "$requirements" --python-version 3.11 --platform manylinux_2_28_x86_64 ||
        die "cannot download the wheels of $requirements"
done

echo "installing apache-tvm and its requirements into $DEST/site"
install_wheels "$DEST/wheels" "$REQUIREMENTS" --target "$WORK/site" || die "cannot install $REQUIREMENTS"
mv "$WORK/site" "$DEST/site"
echo "creating venv-apache and venv-ffihub with apache-tvm-ffi==$FFI_VERSION"
make_wheel_venv "$DEST/venv-apache" "$DEST/wheels" "$FFI_REQUIREMENT" "$DEST/site" apache-tvm-site.pth ||
    die "cannot install apache-tvm-ffi into venv-apache"
copy_venv_for_ffihub "$DEST"

"$DEST/venv-apache/bin/python" -c 'import tvm; tvm.target.Target("llvm")' ||
    die "apache-tvm does not import on Apache's runtime"
echo "$STAMP_TEXT" >"$DEST/.installed"
echo "installed Apache TVM (Python) in $DEST"
