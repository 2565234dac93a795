#!/usr/bin/env bash
# The project's test command (README "Run the tests"; CI runs it through .ci/run):
# installs what is missing, checks formatting and lints, then runs every test of the workspace,
# including the real synthesis run and both simulation back ends.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
python3 scripts/sdf_sta.py --self-test
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
cargo test --workspace "$@"
# The Alchitry Cu profile (rnic-driver's `alchitry-cu`: 2 QPs, no markers; docs/decisions.md
# "The Alchitry Cu profile"), the configuration synthesized for the board: lint it, run the
# blocks whose logic it changes, the driver's refusals of markers, the core end to end and the
# CLI (its test lints every block's Verilog with Verilator: the profile's widths differ). It
# rebuilds rnic-hdl and the crates above it once, and one more Verilator model of the core.
cargo clippy -p rnic-hdl -p rnic-sim -p rnic-driver --features rnic-driver/alchitry-cu \
    --all-targets -- -D warnings
cargo test -p rnic-hdl --features two-qps,no-markers --test mpa_mpa_tx --test mpa_mpa_rx \
    --test mpa_loopback --test host_host_if --test rdmap_send_engine --test ddp_rx_parse \
    --test ddp_rx_place --test ddp_tx --test ddp_stag_check --test top_cqe_queue \
    --test rdmap_tx_arbiter --test rdmap_read_responder --test rdmap_terminate_tx \
    --test rdmap_rx_control
cargo test -p rnic-sim --features two-qps,no-markers --test rx_path
cargo test -p rnic-driver --features alchitry-cu --test core_loopback --test core_peer \
    --test verbs_misuse --test cm --test cli
