#!/usr/bin/env bash
# bench/run.sh rows of the node bindings (see run.sh here).
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" rows
