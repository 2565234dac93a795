#!/usr/bin/env bash
# The whole core's area as the flow's yosys sees it, without the harness and without
# nextpnr: `rnic verilog --block rnic`, then the flow's own yosys commands
# (`rnic_bsp::flow::yosys_script`, with its ABC script `rnic_bsp::flow::abc_script`) on `top`,
# then `scripts/netlist_scan.py`. Prints LUT4, flip-flops, carries, flip-flops alone in a
# cell and the estimate LUT4 + lone flip-flops (nextpnr's logic cells are about 230 more:
# carries without a LUT, the harness). docs/decisions.md "The flat core decides, and it is
# noisy at this scale": a local change moves this by +-20 to 30 LUT4.
#
#   scripts/flat_core.sh [DIR]      (DIR: scratch directory, default /tmp/flat_core)
#
# Build the `rnic` binary of the configuration to measure first, e.g. the Cu profile:
#   cargo build --release -p rnic-driver --features alchitry-cu --bin rnic
# About 5 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dir=${1:-/tmp/flat_core}
rm -rf "$dir"
mkdir -p "$dir"
./target/release/rnic verilog --block rnic --out "$dir" >/dev/null
mv "$dir/rnic_w32.v" "$dir/dut.v"
# rnic_bsp::flow::abc_script(): ABC_DEFAULT_MAPPING, ABC_EXTRA_ROUNDS (5) x ABC_ROUND, lutpack
# (bsp/src/flow.rs's test `flat_core_script_follows_the_flow` keeps the two in step).
round="strash; dch -f; if; mfs2; "
printf '%s%s%s%s%s%slutpack -S 1\n' \
    "strash; &get -n; &fraig -x; &put; scorr; dc2; dretime; strash; dch -f; if; mfs2; " \
    "$round" "$round" "$round" "$round" "$round" >"$dir/abc.script"
cd "$dir"
# rnic_bsp::flow::yosys_script() with `top` as the top module and no harness.
if ! yosys -q -p "read_verilog dut.v; \
    synth_ice40 -dffe_min_ce_use 8 -top top -run :map_luts; \
    techmap -map +/ice40/latches_map.v; \
    abc -dress -lut 4 -script $dir/abc.script; \
    ice40_wrapcarry -unwrap; \
    techmap -map +/ice40/ff_map.v; \
    clean; \
    opt_lut -dlogic SB_CARRY:I0=1:I1=2:CI=3 -dlogic SB_CARRY:CO=3; \
    synth_ice40 -dffe_min_ce_use 8 -top top -run map_cells: -json out.json; \
    tee -q -o stat.txt stat" >yosys.log 2>&1; then
    echo "yosys failed; see $dir/yosys.log" >&2
    exit 1
fi
python3 "$root/scripts/netlist_scan.py" out.json top 1 >scan.txt
lut=$(awk '/SB_LUT4/ {print $2}' stat.txt | tail -1)
ff=$(awk '/SB_DFF/ {s += $2} END {print s}' stat.txt)
carry=$(awk '/SB_CARRY/ {print $2}' stat.txt | tail -1)
lone=$(grep -o "in a logic cell of their own: [0-9]*" scan.txt | grep -o "[0-9]*$" || true)
if [ -z "$lut" ] || [ -z "$lone" ]; then
    echo "flat_core: cannot read LUT4 from $dir/stat.txt or lone flip-flops from $dir/scan.txt" >&2
    exit 1
fi
echo "LUT4 $lut  FF $ff  carries ${carry:-0}  lone FF $lone  estimate $((lut + lone))"
