#!/usr/bin/env bash
# Runs every test of ffihub from a fresh clone: installs what is missing (system packages with
# apt when run as root, the pinned Apache wheel into .deps/), checks formatting and lints, builds
# the runtime, then runs the Rust unit tests and the cross-language conformance tests.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

step() { printf '\n==> %s\n' "$*"; }

step "system tools"
scripts/setup-system.sh

step "Apache TVM-FFI wheel (reference runtime, headers and testing library)"
scripts/setup-apache.sh

step "the Python test suites of the Apache TVM-FFI releases ffihub serves (sdist tests/python, two venvs per release)"
scripts/setup-pysuite.sh

step "Apache TVM from PyPI (apache-tvm with the pinned apache-tvm-ffi, two venvs; its libraries for the generator tests)"
scripts/setup-tvm.sh

step "xgrammar from PyPI (its TVM-FFI library, bound with examples/xgrammar/bindings.yaml)"
scripts/setup-xgrammar.sh

step "tilelang 0.1.15 from PyPI (without its requirements; its bundled TVM on apache-tvm-ffi 0.1.12, two venvs)"
scripts/setup-tilelang.sh

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

step "tests"
cargo test --workspace --locked
