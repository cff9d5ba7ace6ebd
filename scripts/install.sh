#!/usr/bin/env bash
# Installs ffihub for C and C++ users (and the generator for everyone) under a prefix:
#   P/lib/libtvm_ffi.so                      the runtime
#   P/lib/libtvmffi_julia.so                 the native entry points of the Julia package TVMFFI
#                                            (found next to the runtime it opens; ADR 0016)
#   P/include/tvm/ffi/*.h, P/include/dlpack/ the TVM-FFI C headers
#   P/include/ffihub/{,containers/}*.hpp     the header-only C++ support library
#   P/bin/ffihub                             the binding generator (finds P/lib/libtvm_ffi.so)
#   P/lib/cmake/ffihub/                      find_package(ffihub): ffihub::tvm_ffi, ffihub::ffihub,
#                                            ffihub::generator, ffihub_generate()
#   P/lib/pkgconfig/tvm_ffi.pc, ffihub.pc    pkg-config (tvm_ffi also serves Rust's ffihub-sys)
#
#   scripts/install.sh --prefix /usr/local
#   scripts/install.sh --prefix ~/.local --debug   # the generator's debug build (no release build)
# It builds what it installs first (cargo build --release, --locked).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

usage() { echo "usage: scripts/install.sh --prefix DIR [--debug]" >&2; exit 2; }
PREFIX="" PROFILE=release
while [[ $# -gt 0 ]]; do
    case "$1" in
        --prefix) [[ $# -ge 2 ]] || usage; PREFIX="$2"; shift 2 ;;
        --prefix=*) PREFIX="${1#--prefix=}"; shift ;;
        --debug) PROFILE=debug; shift ;;
        *) usage ;;
    esac
done
[[ -n "$PREFIX" ]] || usage
mkdir -p "$PREFIX"
PREFIX="$(cd "$PREFIX" && pwd)"

cd "$ROOT"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
[[ "$TARGET" = /* ]] || TARGET="$ROOT/$TARGET"
cargo build --release --locked -p ffihub-runtime -p ffihub-julia-shim
if [[ "$PROFILE" == release ]]; then
    cargo build --release --locked -p ffihub-bindgen --bin ffihub
else
    cargo build --locked -p ffihub-bindgen --bin ffihub
fi

install -d "$PREFIX/bin" "$PREFIX/lib/cmake/ffihub" "$PREFIX/lib/pkgconfig" "$PREFIX/include"
install -m 755 "$TARGET/release/libtvm_ffi.so" "$PREFIX/lib/libtvm_ffi.so"
install -m 755 "$TARGET/release/libtvmffi_julia.so" "$PREFIX/lib/libtvmffi_julia.so"
install -m 755 "$TARGET/$PROFILE/ffihub" "$PREFIX/bin/ffihub"
cp -R runtime/include/tvm runtime/include/dlpack bindings/cpp/include/ffihub "$PREFIX/include/"
install -m 644 bindings/cpp/cmake/ffihub-config.cmake bindings/cpp/cmake/ffihub-generate.cmake \
    "$PREFIX/lib/cmake/ffihub/"
VERSION="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)"
sed "s/@VERSION@/$VERSION/" bindings/cpp/cmake/ffihub-config-version.cmake.in \
    > "$PREFIX/lib/cmake/ffihub/ffihub-config-version.cmake"
for pc in tvm_ffi ffihub; do
    sed -e "s|@PREFIX@|$PREFIX|" -e "s/@VERSION@/$VERSION/" "bindings/cpp/pkgconfig/$pc.pc.in" \
        > "$PREFIX/lib/pkgconfig/$pc.pc"
done
echo "installed ffihub $VERSION under $PREFIX"
echo "  CMake:      find_package(ffihub) with CMAKE_PREFIX_PATH=$PREFIX"
echo "  pkg-config: PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig pkg-config --cflags --libs ffihub"
echo "  generator:  $PREFIX/bin/ffihub"
