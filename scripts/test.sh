#!/usr/bin/env bash
# The project's test command (README "Run the tests"; CI runs it through .ci/run):
# installs what is missing, checks formatting and lints, then runs every test of the workspace,
# including the real synthesis run and both simulation back ends.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
cargo test --workspace "$@"
