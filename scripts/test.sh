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
# The two-QP core (rnic-hdl's `two-qps`, docs/decisions.md "The QP count (two-qps)"): end to
# end through the verbs API, in release (rebuilds rnic-hdl and the crates above it once).
cargo clippy -p rnic-driver --features two-qps --all-targets -- -D warnings
cargo test --release -p rnic-driver --features two-qps --test core_loopback --test core_peer \
    --test verbs_misuse
