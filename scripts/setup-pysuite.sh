#!/usr/bin/env bash
# Prepares the own Python test suites of the apache-tvm-ffi releases listed in
# tests/pysuite/releases.txt for tests/pysuite (run by `cargo test -p ffihub-tests --test
# pysuite`), in the project-local, git-ignored folder .deps/pysuites/:
#
#   wheels/            every pinned wheel (each release's apache-tvm-ffi, the shared test
#                      requirements), downloaded once and kept when the rest is redone
#   site/              tests/pysuite/requirements.txt (pytest, numpy...), installed once and put on
#                      the path of every venv below by a .pth file
#   tools/             the build backend pip needs to fetch a source distribution
#   <version>/wheel/   the release's wheel unpacked (its headers and libraries: the C++
#                      compatibility tests build against them)
#   <version>/tests/python
#                      the tests/python folder of the release's source distribution
#   <version>/venv-apache/  the release's wheel as published
#   <version>/venv-ffihub/  the same; the test points its tvm_ffi/lib/libtvm_ffi.so at ffihub's build
#
# A release whose sdist column is `-` gets only its wheel/ folder. The releases are prepared in
# parallel; running the script again redoes only what changed (each folder has a stamp).
#
# The sdists are fetched with `pip download --no-binary :all:`, which makes pip prepare the
# package's metadata with its build backend: the tools venv holds that backend so a download
# takes seconds.
#
# Environment:
#   PYTHON  a CPython 3.11 interpreter (default: python3); the wheels are cp311
set -euo pipefail

# What pip needs to prepare an sdist's metadata without an isolated build environment.
BUILD_BACKEND=(cmake==4.4.5 cython==3.3.1 ninja==1.13.2 scikit-build-core==1.1.2 setuptools-scm==10.3.4)
WHEEL_TAG="cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/.deps/pysuites"
RELEASES="$ROOT/tests/pysuite/releases.txt"
REQUIREMENTS="$ROOT/tests/pysuite/requirements.txt"
SITE_STAMP="$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"
# shellcheck source=SCRIPTDIR/lib/wheels.sh
source "$ROOT/scripts/lib/wheels.sh"

# The releases: "<version> <wheel sha256> <sdist sha256 or -> <minimum test files>" lines.
mapfile -t RELEASE_LINES < <(grep -v '^[[:space:]]*\(#\|$\)' "$RELEASES" | tr -s ' \t' ' ')
[[ ${#RELEASE_LINES[@]} -gt 0 ]] || die "no releases in $RELEASES"

release_stamp() { # <version> <wheel sha256> <sdist sha256>
    echo "$1 $2 $3 $SITE_STAMP"
}

release_ready() { # <version> <wheel sha256> <sdist sha256>
    local dir="$DEST/$1"
    stamp_matches "$dir/.installed" "$(release_stamp "$@")" || return 1
    [[ "$3" == "-" ]] || [[ -x "$dir/venv-apache/bin/python" && -x "$dir/venv-ffihub/bin/python" && -d "$dir/tests/python" ]]
}

all_ready() {
    stamp_matches "$DEST/site/.installed" "$SITE_STAMP" || return 1
    local line
    for line in "${RELEASE_LINES[@]}"; do
        read -r version wheel_sha sdist_sha _ <<<"$line"
        release_ready "$version" "$wheel_sha" "$sdist_sha" || return 1
    done
}

if all_ready; then
    echo "the Python test suites of ${#RELEASE_LINES[@]} apache-tvm-ffi releases are already prepared in $DEST"
    exit 0
fi

require_linux_x86_64 "wheels are"
require_python_version 3.11

mkdir -p "$DEST/wheels"
make_work_dir pysuites

echo "fetching the pinned wheels into $DEST/wheels (reused when present)"
RELEASE_REQUIREMENTS="$WORK/releases.txt"
for line in "${RELEASE_LINES[@]}"; do
    read -r version wheel_sha _ <<<"$line"
    echo "apache-tvm-ffi==$version --hash=sha256:$wheel_sha"
done >"$RELEASE_REQUIREMENTS"
# pip refuses two versions of one package in a requirements file: one download per release.
while read -r requirement; do
    echo "$requirement" >"$WORK/one.txt"
    download_wheels "$DEST/wheels" "$WORK/one.txt" || die "cannot download $requirement"
done <"$RELEASE_REQUIREMENTS"
download_wheels "$DEST/wheels" "$REQUIREMENTS" || die "cannot download the wheels of $REQUIREMENTS"

if ! stamp_matches "$DEST/site/.installed" "$SITE_STAMP"; then
    echo "installing $REQUIREMENTS into $DEST/site"
    rm -rf "$DEST/site"
    install_wheels "$DEST/wheels" "$REQUIREMENTS" --target "$WORK/site" || die "cannot install $REQUIREMENTS"
    echo "$SITE_STAMP" >"$WORK/site/.installed"
    mv "$WORK/site" "$DEST/site"
fi

TOOLS_STAMP="${BUILD_BACKEND[*]}"
if ! stamp_matches "$DEST/tools/.installed" "$TOOLS_STAMP"; then
    echo "installing the build backend pip needs to fetch an sdist into $DEST/tools"
    rm -rf "$DEST/tools"
    "$PYTHON" -m venv "$DEST/tools"
    "$DEST/tools/bin/pip" install --quiet --disable-pip-version-check --only-binary :all: "${BUILD_BACKEND[@]}" ||
        die "cannot install the build backend (${BUILD_BACKEND[*]})"
    echo "$TOOLS_STAMP" >"$DEST/tools/.installed"
fi

# Prepares one release in $DEST/<version> (run in the background; its output goes to a log).
prepare_release() { # <version> <wheel sha256> <sdist sha256> <minimum test files>
    local version="$1" wheel_sha="$2" sdist_sha="$3" min_tests="$4"
    local dir="$DEST/$version" work="$WORK/$version"
    local wheel="$DEST/wheels/apache_tvm_ffi-$version-$WHEEL_TAG.whl"
    rm -rf "$dir"
    mkdir -p "$work"
    [[ -f "$wheel" ]] || die "expected $wheel"
    unpack_wheel "$wheel" "$work/wheel"
    [[ -f "$work/wheel/tvm_ffi/include/tvm/ffi/c_api.h" && -f "$work/wheel/tvm_ffi/lib/libtvm_ffi.so" ]] ||
        die "the $version wheel has no tvm_ffi/include or tvm_ffi/lib/libtvm_ffi.so"
    if [[ "$sdist_sha" != "-" ]]; then
        local sdist="$work/apache_tvm_ffi-$version.tar.gz"
        "$DEST/tools/bin/pip" download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
            --no-build-isolation --dest "$work" "apache-tvm-ffi==$version" ||
            die "pip download of the apache-tvm-ffi==$version sdist failed"
        [[ -f "$sdist" ]] || die "expected $sdist, got: $(ls "$work")"
        check_sha256 "$sdist" "$sdist_sha"
        # Only tests/python: without the rest of the source tree nothing can import the sdist's
        # own python/tvm_ffi instead of the installed wheel.
        tar -xzf "$sdist" -C "$work" "apache_tvm_ffi-$version/tests/python"
        mkdir -p "$work/tests"
        mv "$work/apache_tvm_ffi-$version/tests/python" "$work/tests/python"
        local found
        found="$(find "$work/tests/python" -name 'test_*.py' | wc -l)"
        [[ "$found" -ge "$min_tests" ]] ||
            die "the $version sdist's tests/python has $found test files, expected at least $min_tests"
        grep -F "apache-tvm-ffi==$version " "$RELEASE_REQUIREMENTS" >"$work/requirement.txt"
        make_wheel_venv "$work/venv-apache" "$DEST/wheels" "$work/requirement.txt" "$DEST/site" pysuite-site.pth ||
            die "cannot install apache-tvm-ffi==$version"
    fi
    mkdir -p "$dir"
    mv "$work/wheel" "$dir/wheel"
    if [[ "$sdist_sha" != "-" ]]; then
        mv "$work/tests" "$dir/tests"
        mv "$work/venv-apache" "$dir/venv-apache"
        copy_venv_for_ffihub "$dir"
        "$dir/venv-apache/bin/python" -c 'import tvm_ffi, pytest, numpy' ||
            die "apache-tvm-ffi==$version does not import in $dir/venv-apache"
    fi
    release_stamp "$version" "$wheel_sha" "$sdist_sha" >"$dir/.installed"
}

pids=()
versions=()
for line in "${RELEASE_LINES[@]}"; do
    read -r version wheel_sha sdist_sha min_tests <<<"$line"
    if release_ready "$version" "$wheel_sha" "$sdist_sha"; then
        echo "apache-tvm-ffi $version: already prepared"
        continue
    fi
    echo "apache-tvm-ffi $version: preparing"
    prepare_release "$version" "$wheel_sha" "$sdist_sha" "$min_tests" >"$WORK/$version.log" 2>&1 &
    pids+=("$!")
    versions+=("$version")
done
failed=()
for i in "${!pids[@]}"; do
    if ! wait "${pids[$i]}"; then
        failed+=("${versions[$i]}")
        sed "s/^/  ${versions[$i]}: /" "$WORK/${versions[$i]}.log" >&2
    fi
done
[[ ${#failed[@]} -eq 0 ]] || die "could not prepare: ${failed[*]}"
echo "prepared the Python test suites of ${#RELEASE_LINES[@]} apache-tvm-ffi releases in $DEST"
