#!/usr/bin/env bash
# Makes sure the system tools the tests need are present: gcc/g++ (C conformance programs),
# clang 16 with libc++ and its sanitizer runtimes (the C++ side is tested with g++ and clang,
# libstdc++ and libc++: CXX_MATRIX in tests/src/lib.rs),
# valgrind (memory checks), cmake and pkg-config (the install tests, tests/install), objcopy
# (release packages without debug info), git and curl (the Julia packages' registry and artifact
# downloads). Installs missing ones with apt-get when running as root; otherwise says what to
# install.
set -euo pipefail

missing=()
command -v gcc >/dev/null || missing+=(gcc)
command -v g++ >/dev/null || missing+=(g++)
command -v valgrind >/dev/null || missing+=(valgrind)
command -v clang++-16 >/dev/null || missing+=(clang-16)
LLVM=/usr/lib/llvm-16
[[ -f $LLVM/include/c++/v1/vector ]] || missing+=(libc++-16-dev)
[[ -f $LLVM/lib/libc++abi.so ]] || missing+=(libc++abi-16-dev)
[[ -f $LLVM/lib/clang/16/lib/linux/libclang_rt.asan-x86_64.a ]] || missing+=(libclang-rt-16-dev)
command -v cmake >/dev/null || missing+=(cmake)
command -v pkg-config >/dev/null || missing+=(pkg-config)
command -v python3 >/dev/null || missing+=(python3)
command -v objcopy >/dev/null || missing+=(binutils)
command -v git >/dev/null || missing+=(git)
command -v curl >/dev/null || missing+=(curl)
# venvs for Apache's Python test suite (scripts/setup-pysuite.sh)
python3 -c 'import ensurepip' 2>/dev/null || missing+=(python3-venv)

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "system tools present: gcc g++ clang-16 (libc++, sanitizers) valgrind cmake pkg-config python3 python3-venv objcopy git curl"
    exit 0
fi
if [[ "$(id -u)" -ne 0 ]] || ! command -v apt-get >/dev/null; then
    echo "setup-system.sh: please install: ${missing[*]}" >&2
    exit 1
fi
echo "installing: ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
