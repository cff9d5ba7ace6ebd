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

PYTHON="${PYTHON:-python3}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/.deps/apache-tvm"
REQUIREMENTS="$ROOT/tests/tvm_runtime/requirements.txt"
# The stamp records what the installation was made from; any change redoes it.
STAMP_TEXT="$FFI_VERSION $FFI_SHA256 $(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"

die() {
    echo "setup-tvm.sh: error: $*" >&2
    exit 1
}

if [[ -f "$DEST/.installed" && "$(cat "$DEST/.installed")" == "$STAMP_TEXT" ]]; then
    echo "Apache TVM (Python) already installed in $DEST"
    exit 0
fi

[[ "$(uname -s)-$(uname -m)" == "Linux-x86_64" ]] || die "only Linux x86_64 is supported (the pinned wheels are)"
command -v "$PYTHON" >/dev/null || die "$PYTHON not found"
py_version="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
[[ "$py_version" == "3.11" ]] || die "$PYTHON is Python $py_version; the pinned wheels need CPython 3.11 (set PYTHON)"

rm -rf "$DEST/site" "$DEST/venv-apache" "$DEST/venv-ffihub" "$DEST/.installed"
mkdir -p "$DEST/wheels"
WORK="$(mktemp -d "$ROOT/.deps/.apache-tvm.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
FFI_REQUIREMENT="$WORK/ffi-requirements.txt"
echo "apache-tvm-ffi==$FFI_VERSION --hash=sha256:$FFI_SHA256" >"$FFI_REQUIREMENT"

PIP=("$PYTHON" -m pip --disable-pip-version-check)
echo "fetching the pinned wheels into $DEST/wheels (reused when present)"
for requirements in "$REQUIREMENTS" "$FFI_REQUIREMENT"; do
    "${PIP[@]}" download --quiet --no-deps --only-binary :all: --require-hashes \
        --python-version 3.11 --platform manylinux_2_28_x86_64 \
        --dest "$DEST/wheels" -r "$requirements" ||
        die "cannot download the wheels of $requirements"
done

# Only the downloaded wheels, checked against the hashes again.
INSTALL=(install --quiet --root-user-action ignore --no-deps --no-index --find-links "$DEST/wheels" --require-hashes --only-binary :all:)
echo "installing apache-tvm and its requirements into $DEST/site"
"${PIP[@]}" "${INSTALL[@]}" --target "$WORK/site" -r "$REQUIREMENTS" ||
    die "cannot install $REQUIREMENTS"
mv "$WORK/site" "$DEST/site"
for runtime in apache ffihub; do
    echo "creating venv-$runtime with apache-tvm-ffi==$FFI_VERSION"
    venv="$DEST/venv-$runtime"
    "$PYTHON" -m venv --without-pip "$venv"
    "${PIP[@]}" --python "$venv/bin/python" "${INSTALL[@]}" -r "$FFI_REQUIREMENT" ||
        die "cannot install apache-tvm-ffi into venv-$runtime"
    site_packages="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
    echo "$DEST/site" >"$site_packages/apache-tvm-site.pth"
done
# venv-apache keeps the wheel's library; venv-ffihub's is replaced by a link to the library under
# test, which the test (re)points before every run.
rm "$DEST/venv-ffihub/lib/python3.11/site-packages/tvm_ffi/lib/libtvm_ffi.so"

"$DEST/venv-apache/bin/python" -c 'import tvm; tvm.target.Target("llvm")' ||
    die "apache-tvm does not import on Apache's runtime"
echo "$STAMP_TEXT" >"$DEST/.installed"
echo "installed Apache TVM (Python) in $DEST"
