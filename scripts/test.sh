#!/usr/bin/env bash
# Runs every test of ffihub from a fresh clone: installs what is missing (system packages with
# apt when run as root, the pinned Apache wheel into .deps/), checks formatting and lints, builds
# the runtime, then runs the Rust unit tests and the cross-language conformance tests.
#
# scripts/test.sh --fast: the tier for checking a change in minutes, once a full run has installed
# .deps/: formatting, lints and API docs, the unit and snapshot tests of every crate, and the
# demo and Apache-testing-library suites of C, C++, Julia and Node.js on both runtimes. It leaves
# out the Python suites of Apache's releases, TVM, tilelang, xgrammar, the install and registry
# tests, the valgrind and AddressSanitizer runs of the C and C++ programs, and the C++ suite's
# compilers other than g++ with C++17; its setup steps are the full run's, which install nothing
# that is already there.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

fast=0
case "${1:-}" in
    "") ;;
    --fast) fast=1 ;;
    *)
        echo "usage: scripts/test.sh [--fast]" >&2
        exit 2
        ;;
esac

# Each step prints its heading; the time of each is printed when the next starts, and the total
# at the end, so a slow step is visible in any log.
step_name="" step_started=$SECONDS
step_done() {
    [[ -z "$step_name" ]] || printf '    (%d s: %s)\n' $((SECONDS - step_started)) "$step_name"
}
step() {
    step_done
    step_name="$*" step_started=$SECONDS
    printf '\n==> %s\n' "$*"
}
# A signal ends the run as a failure (the EXIT trap below sees its status).
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'status=$?; [[ $status -ne 0 ]] || step_done; printf "\nscripts/test.sh: %s after %d s\n" "$([[ $status -eq 0 ]] && echo passed || echo "failed ($status)")" $SECONDS' EXIT

step "system tools"
scripts/setup-system.sh

step "Apache TVM-FFI wheel (reference runtime, headers and testing library)"
scripts/setup-apache.sh

if [[ $fast -eq 0 ]]; then
    step "the Python test suites of the Apache TVM-FFI releases ffihub serves (sdist tests/python, two venvs per release)"
    scripts/setup-pysuite.sh

    step "Apache TVM from PyPI (apache-tvm with the pinned apache-tvm-ffi, two venvs; its libraries for the generator tests)"
    scripts/setup-tvm.sh

    step "xgrammar from PyPI (its TVM-FFI library, bound with examples/xgrammar/bindings.yaml)"
    scripts/setup-xgrammar.sh

    step "tilelang 0.1.15 from PyPI (without its requirements; its bundled TVM on apache-tvm-ffi 0.1.12, two venvs)"
    scripts/setup-tilelang.sh
fi

step "Julia 1.5.3 with bullseye's libunwind (for the Julia bindings)"
scripts/setup-julia.sh

step "Node packages for the Node binding tests (typescript, pinned by a lockfile)"
scripts/setup-node.sh

step "build the runtime (target/release/libtvm_ffi.so; everything else links it) and TVMFFI's native entry points (libtvmffi_julia.so)"
cargo build --release --locked -p ffihub-runtime -p ffihub-julia-shim

step "formatting, lints and API docs (no rustdoc warnings: broken or private links)"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked

step "build the workspace (the demo extension, the Node addon and ffihub land in target/debug)"
cargo build --workspace --locked

if [[ $fast -eq 0 ]]; then
    step "tests"
    cargo test --workspace --locked
    exit 0
fi

step "unit and snapshot tests of every crate (no valgrind runs)"
cargo test --workspace --locked --exclude ffihub-tests -- --skip valgrind

step "C: Apache's testing library and the core scenario on both runtimes (no valgrind)"
cargo test --locked -p ffihub-tests --test conformance -- --skip valgrind

# The first configuration of the compiler matrix (CXX_MATRIX: g++, libstdc++, C++17) only; the
# other compilers, standard libraries and standards, and the sanitizer build, are the full run's.
step "C++: the support library's suite on both runtimes (g++ C++17; no other compiler, no sanitizers)"
cargo test --locked -p ffihub-tests --test cpp -- --skip sanitized:: --skip gcc_cxx20:: --skip clang_

step "Julia: the support package's suite and the generated Demo and TestingLib packages on both runtimes"
cargo test --locked -p ffihub-tests --test julia -- julia_suite_on julia_generated_packages_on

step "Node.js: the addon's and the generated packages' suites on both runtimes"
cargo test --locked -p ffihub-tests --test node -- node_suites_on
