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
# The Alchitry Cu profile leaves MPA markers out (`no-markers`, docs/decisions.md "Markers as a
# build-time capability (no-markers)"): lint that build, run the MPA blocks' tests (markers bit
# ignored, FEATURES without markers) and the driver's setups that refuse markers.
cargo clippy -p rnic-hdl -p rnic-sim -p rnic-driver --features rnic-driver/no-markers \
    --all-targets -- -D warnings
cargo test --release -p rnic-hdl --features no-markers \
    --test mpa_mpa_tx --test mpa_mpa_rx --test mpa_loopback --test host_host_if
cargo test --release -p rnic-driver --features no-markers --test core_peer --test cm
