#!/usr/bin/env bash
# The project's main job (README "Run it"): installs what is missing, builds the `rnic` tool
# and runs it. Arguments go to `rnic`; without any it runs `rnic loopback` (a verified RDMA
# session between two QPs of the simulated core).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cargo build --release -q -p rnic-driver --bin rnic
if [ $# -eq 0 ]; then set -- loopback; fi
exec target/release/rnic "$@"
