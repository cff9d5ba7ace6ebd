#!/usr/bin/env bash
# The main job: builds the runtime and runs each language's example (the
# "Getting started" section of docs/<lang>.md) on it, each through
# a package `ffihub generate` makes for the demo extension:
#   C     the seeds' add_one_c, unmodified, through a small C host (scripts/run-example.sh)
#   Julia scripts/demo-julia.sh
#   Node  scripts/demo-node.sh
#   C++   scripts/demo-cpp.sh
# Pass --apache to run the Julia and Node examples on Apache's runtime too.
# Installs what it needs first, like scripts/test.sh (each setup script does nothing when its
# part is already there): system tools (apt, as root), Julia, the Apache wheel, the Node packages.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

step() { printf '\n==> %s\n' "$*"; }

step "system tools, Julia, the Apache TVM-FFI wheel, Node packages"
scripts/setup-system.sh
scripts/setup-julia.sh
scripts/setup-apache.sh
scripts/setup-node.sh

step "C: add_one_c on ffihub's runtime"
scripts/run-example.sh
step "Julia: the generated Demo package"
scripts/demo-julia.sh "$@"
step "Node.js: the generated demo package"
scripts/demo-node.sh "$@"
step "C++: the generated demo.hpp"
scripts/demo-cpp.sh
