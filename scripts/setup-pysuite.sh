#!/usr/bin/env bash
# Prepares Apache TVM-FFI's own Python test suite for tests/pysuite (run by `cargo test -p
# ffihub-tests --test pysuite`), in the project-local, git-ignored folder .deps/pysuite/:
#
#   tests/python/   the tests/python folder of the pinned apache-tvm-ffi source distribution
#   venv-apache/    the pinned wheel and the suite's requirements (tests/pysuite/requirements.txt)
#   venv-ffihub/    the same; the test points its tvm_ffi/lib/libtvm_ffi.so at ffihub's build
#
# The sdist is fetched with `pip download --no-binary :all:`, which makes pip prepare the
# package's metadata with its build backend: a small tools venv (.deps/pysuite/tools) holds that
# backend so the download takes seconds. Running the script again is a no-op once done.
#
# Environment:
#   PYTHON  a CPython 3.11 interpreter (default: python3); the wheels are cp311
set -euo pipefail

VERSION="0.1.15.post2"
SDIST_FILE="apache_tvm_ffi-${VERSION}.tar.gz"
SDIST_SHA256="909be9ef5af07726aa9afd38a3111abc4d86cfd5927ebedfa9166232ce7d287b"
# What pip needs to prepare the sdist's metadata without an isolated build environment.
BUILD_BACKEND=(cmake==4.4.5 cython==3.3.1 ninja==1.13.2 scikit-build-core==1.1.2 setuptools-scm==10.3.4)

PYTHON="${PYTHON:-python3}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/.deps/pysuite"
REQUIREMENTS="$ROOT/tests/pysuite/requirements.txt"
# The stamp records what the installation was made from; any change redoes it.
STAMP_TEXT="$VERSION $SDIST_SHA256 $(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"

die() {
    echo "setup-pysuite.sh: error: $*" >&2
    exit 1
}

if [[ -f "$DEST/.installed" && "$(cat "$DEST/.installed")" == "$STAMP_TEXT" &&
    -x "$DEST/venv-apache/bin/python" && -x "$DEST/venv-ffihub/bin/python" &&
    -d "$DEST/tests/python" ]]; then
    echo "Apache's Python test suite $VERSION already prepared in $DEST"
    exit 0
fi

command -v "$PYTHON" >/dev/null || die "$PYTHON not found"
py_version="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
[[ "$py_version" == "3.11" ]] || die "$PYTHON is Python $py_version; the pinned wheels need CPython 3.11 (set PYTHON)"

rm -rf "$DEST"
mkdir -p "$DEST"
WORK="$(mktemp -d "$ROOT/.deps/.pysuite.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

echo "fetching the apache-tvm-ffi==$VERSION source distribution"
"$PYTHON" -m venv "$WORK/tools"
"$WORK/tools/bin/pip" install --quiet --disable-pip-version-check --only-binary :all: "${BUILD_BACKEND[@]}" ||
    die "cannot install the build backend (${BUILD_BACKEND[*]})"
"$WORK/tools/bin/pip" download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
    --no-build-isolation --dest "$WORK" "apache-tvm-ffi==$VERSION" ||
    die "pip download of the apache-tvm-ffi==$VERSION sdist failed"
[[ -f "$WORK/$SDIST_FILE" ]] || die "expected $SDIST_FILE, got: $(ls "$WORK")"
actual="$(sha256sum "$WORK/$SDIST_FILE" | cut -d' ' -f1)"
[[ "$actual" == "$SDIST_SHA256" ]] || die "sha256 mismatch for $SDIST_FILE: expected $SDIST_SHA256, got $actual"

# Only tests/python: without the rest of the source tree nothing can import the sdist's own
# python/tvm_ffi instead of the installed wheel.
tar -xzf "$WORK/$SDIST_FILE" -C "$WORK" "apache_tvm_ffi-$VERSION/tests/python"
mkdir -p "$DEST/tests"
mv "$WORK/apache_tvm_ffi-$VERSION/tests/python" "$DEST/tests/python"
[[ "$(find "$DEST/tests/python" -name 'test_*.py' | wc -l)" -ge 50 ]] ||
    die "the sdist's tests/python has fewer than 50 test files"

for runtime in apache ffihub; do
    echo "installing the test requirements into venv-$runtime"
    "$PYTHON" -m venv "$DEST/venv-$runtime"
    "$DEST/venv-$runtime/bin/pip" install --quiet --disable-pip-version-check \
        --require-hashes --only-binary :all: -r "$REQUIREMENTS" ||
        die "cannot install $REQUIREMENTS into venv-$runtime"
done
# The wheel's own library stays in venv-apache; venv-ffihub's is replaced by a link to the
# library under test, which the test (re)points before every run.
rm "$DEST/venv-ffihub/lib/python3.11/site-packages/tvm_ffi/lib/libtvm_ffi.so"

echo "$STAMP_TEXT" >"$DEST/.installed"
echo "prepared Apache's Python test suite $VERSION in $DEST"
