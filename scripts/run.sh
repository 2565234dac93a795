#!/usr/bin/env bash
# The project's main job (README "Run it"): installs what is missing, builds the `rnic` tool
# and runs it. Arguments go to `rnic`; without any it runs `rnic bench`.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cargo build --release -q -p rnic-driver --bin rnic
if [ $# -eq 0 ]; then set -- bench; fi
exec target/release/rnic "$@"
