#!/usr/bin/env bash
# bench/run.sh rows of the julia bindings (see run.sh here).
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" rows
