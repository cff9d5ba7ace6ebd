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

PYTHON="${PYTHON:-python3}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/.deps/tilelang"
REQUIREMENTS="$ROOT/tests/tilelang/requirements.txt"
# The stamp records what the installation was made from; any change redoes it.
STAMP_TEXT="$FFI_VERSION $FFI_SHA256 $(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"

die() {
    echo "setup-tilelang.sh: error: $*" >&2
    exit 1
}

if [[ -f "$DEST/.installed" && "$(cat "$DEST/.installed")" == "$STAMP_TEXT" ]]; then
    echo "tilelang already installed in $DEST"
    exit 0
fi

[[ "$(uname -s)-$(uname -m)" == "Linux-x86_64" ]] || die "only Linux x86_64 is supported (the pinned wheels are)"
command -v "$PYTHON" >/dev/null || die "$PYTHON not found"
py_version="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
[[ "$py_version" == "3.11" ]] || die "$PYTHON is Python $py_version; the pinned wheels need CPython 3.11 (set PYTHON)"

rm -rf "$DEST/site" "$DEST/venv-apache" "$DEST/venv-ffihub" "$DEST/.installed"
mkdir -p "$DEST/wheels"
WORK="$(mktemp -d "$ROOT/.deps/.tilelang.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
FFI_REQUIREMENT="$WORK/ffi-requirements.txt"
echo "apache-tvm-ffi==$FFI_VERSION --hash=sha256:$FFI_SHA256" >"$FFI_REQUIREMENT"

PIP=("$PYTHON" -m pip --disable-pip-version-check)
echo "fetching the pinned wheels into $DEST/wheels (reused when present)"
for requirements in "$REQUIREMENTS" "$FFI_REQUIREMENT"; do
    "${PIP[@]}" download --quiet --no-deps --only-binary :all: --require-hashes \
        --dest "$DEST/wheels" -r "$requirements" ||
        die "cannot download the wheels of $requirements"
done

# Only the downloaded wheels, checked against the hashes again.
INSTALL=(install --quiet --root-user-action ignore --no-deps --no-index --find-links "$DEST/wheels" --require-hashes --only-binary :all:)
echo "installing tilelang and the packages its TVM needs into $DEST/site"
"${PIP[@]}" "${INSTALL[@]}" --target "$WORK/site" -r "$REQUIREMENTS" ||
    die "cannot install $REQUIREMENTS"
for lib in tilelang/lib/libtvm_runtime.so tilelang/lib/libtvm_compiler.so tilelang/lib/libtilelang.so \
    z3/lib/libz3.so.4.15 tilelang/3rdparty/tvm/python/tvm/__init__.py; do
    [[ -f "$WORK/site/$lib" ]] || die "the installation lacks $lib"
done
mv "$WORK/site" "$DEST/site"
echo "creating venv-apache with apache-tvm-ffi==$FFI_VERSION"
"$PYTHON" -m venv --without-pip "$DEST/venv-apache"
"${PIP[@]}" --python "$DEST/venv-apache/bin/python" "${INSTALL[@]}" -r "$FFI_REQUIREMENT" ||
    die "cannot install apache-tvm-ffi into venv-apache"
site_packages="$("$DEST/venv-apache/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
echo "$DEST/site" >"$site_packages/tilelang-site.pth"
# A venv finds its packages relative to its own python: a copy is a second venv. venv-apache keeps
# the wheel's library; venv-ffihub's is replaced by a link to the library under test, which the
# test (re)points before every run.
cp -a "$DEST/venv-apache" "$DEST/venv-ffihub"
rm "$DEST/venv-ffihub/lib/python3.11/site-packages/tvm_ffi/lib/libtvm_ffi.so"

"$DEST/venv-apache/bin/python" -c 'import tvm_ffi, numpy, psutil' ||
    die "the tilelang environment does not import on Apache's runtime"
echo "$STAMP_TEXT" >"$DEST/.installed"
echo "installed tilelang in $DEST"
