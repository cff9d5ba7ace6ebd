#!/usr/bin/env bash
# Makes a release of TVMFFI, the Julia support package, with ffihub's runtime as a Pkg artifact
# (docs/install.md, "Julia"): what a package registry points at, so that `Pkg.add("TVMFFI")`
# installs the package and downloads the runtime for the platform, with no variable to set.
#
#   scripts/release-julia.sh --url URL --out DIR [--runtime FILE] [--shim FILE]
#
# writes into DIR:
#   TVMFFI/                                the package (bindings/julia/TVMFFI) and its
#                                          Artifacts.toml; a git repository with one commit, to
#                                          push to TVMFFI's repository and register (the commit's
#                                          tree hash, which the registry records, is printed)
#   TVMFFI-<version>-<platform>.tar.gz     the artifact, lib/libtvm_ffi.so and lib/libtvmffi_julia.so
#                                          (TVMFFI's native entry points, ADR 0016) without debug
#                                          info: upload it to URL, where Artifacts.toml says it is
#   libtvm_ffi.so.debug                    the debug info split off (named by the library's
#                                          .gnu_debuglink: put it beside the library for file:line
#                                          in backtraces)
#
# The runtime is FILE, by default target/release/libtvm_ffi.so, and the shim
# target/release/libtvmffi_julia.so (both built here with cargo when not given). The
# artifact is bound for this machine's platform (Linux, its architecture and C library); run
# the script on each platform to release, into the same DIR. Julia runs through scripts/julia.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

die() {
    echo "release-julia.sh: error: $*" >&2
    exit 1
}

URL=""
OUT=""
RUNTIME=""
SHIM=""
while [[ $# -gt 0 ]]; do
    case "$1" in
    --url) URL="${2:-}"; shift 2 ;;
    --out) OUT="${2:-}"; shift 2 ;;
    --runtime) RUNTIME="${2:-}"; shift 2 ;;
    --shim) SHIM="${2:-}"; shift 2 ;;
    *) die "unknown argument $1 (usage: scripts/release-julia.sh --url URL --out DIR [--runtime FILE] [--shim FILE])" ;;
    esac
done
[[ -n "$URL" && -n "$OUT" ]] || die "usage: scripts/release-julia.sh --url URL --out DIR [--runtime FILE] [--shim FILE]"
command -v objcopy >/dev/null || die "objcopy not found (binutils)"
command -v git >/dev/null || die "git not found"

if [[ -z "$RUNTIME" ]]; then
    (cd "$ROOT" && cargo build --release --locked -p ffihub-runtime)
    RUNTIME="$ROOT/target/release/libtvm_ffi.so"
fi
[[ -f "$RUNTIME" ]] || die "$RUNTIME: no such file"
if [[ -z "$SHIM" ]]; then
    (cd "$ROOT" && cargo build --release --locked -p ffihub-julia-shim)
    SHIM="$ROOT/target/release/libtvmffi_julia.so"
fi
[[ -f "$SHIM" ]] || die "$SHIM: no such file"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
PACKAGE="$OUT/TVMFFI"
[[ ! -e "$PACKAGE" ]] || die "$PACKAGE exists: remove it, or choose another --out"

# The package: the files of bindings/julia/TVMFFI that git does not ignore (no Manifest.toml).
mkdir -p "$PACKAGE"
git -C "$ROOT" ls-files -z --cached --others --exclude-standard bindings/julia/TVMFFI | while IFS= read -r -d '' file; do
    rel="${file#bindings/julia/TVMFFI/}"
    mkdir -p "$PACKAGE/$(dirname "$rel")"
    cp "$ROOT/$file" "$PACKAGE/$rel"
done

# The runtime without its debug info, which goes beside the tarball.
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
objcopy --only-keep-debug "$RUNTIME" "$OUT/libtvm_ffi.so.debug"
objcopy --strip-debug --add-gnu-debuglink="$OUT/libtvm_ffi.so.debug" "$RUNTIME" "$STAGE/libtvm_ffi.so"
objcopy --strip-debug "$SHIM" "$STAGE/libtvmffi_julia.so"

# TVMFFI from this checkout makes the artifact (it finds the checkout's runtime, or TVM_FFI_LIB's).
TARBALL="$("$ROOT/scripts/julia" --startup-file=no --project="$ROOT/bindings/julia/TVMFFI" -e '
    using TVMFFI
    print(TVMFFI.bind_library_artifact(ARGS[1], ARGS[2:3]; url_base = ARGS[4], tarball_dir = ARGS[5]))' \
    "$PACKAGE" "$STAGE/libtvm_ffi.so" "$STAGE/libtvmffi_julia.so" "$URL" "$OUT")"

git -C "$PACKAGE" init -q
git -C "$PACKAGE" add -A
VERSION="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$PACKAGE/Project.toml")"
git -C "$PACKAGE" -c user.name="ffihub release" -c user.email="release@ffihub.invalid" \
    -c commit.gpgsign=false commit -qm "TVMFFI v$VERSION"
echo "package:  $PACKAGE (git tree $(git -C "$PACKAGE" rev-parse 'HEAD^{tree}'))"
echo "artifact: $TARBALL (upload to $URL)"
echo "debug:    $OUT/libtvm_ffi.so.debug"
