#!/usr/bin/env bash
# Where the whole core's cells are: yosys `synth_ice40` of the core with each block kept as its
# own module (`keep_hierarchy`), then LUT4, flip-flops, carries and block RAMs per block, in
# the composition (inputs from the neighbouring blocks, not from a harness).
#
#   scripts/core_blocks.sh [DIR]      (DIR: scratch directory, default /tmp/core_blocks)
#
# Build the `rnic` binary of the configuration to measure first, e.g. the Cu profile:
#   cargo build --release -p rnic-driver --features alchitry-cu --bin rnic
# About 2 minutes. Kept hierarchy stops optimisation across block boundaries, so the total is a
# few hundred LUT4 above the flat synthesis of `rnic synth --block rnic` (docs/decisions.md
# "Ninth session"); the split is what this is for. nextpnr's logic cells are roughly LUT4 plus
# the flip-flops that cannot share a cell with their LUT (`scripts/netlist_scan.py`).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/core_blocks}
rm -rf "$dir"
mkdir -p "$dir"
./target/release/rnic verilog --block rnic --out "$dir" >/dev/null
v="$dir/rnic_w32.v"
# The blocks: the core's direct children, and the receive and transmit paths'.
mods=$(grep -o '^module [^(]*' "$v" | awk '{print $2}' |
    awk -F'$' 'NF == 2 || (NF == 3 && ($2 == "rx" || $2 == "tx"))' | grep -v '^top\$[rt]x$')
script="read_verilog $v;"
for m in $mods; do
    # Registers of one bit are modules too (rust-hdl's DFF): keep only blocks with ports of
    # their own logic, i.e. every module named above that has more than a `d`, `q`, `clock`.
    if grep -q "^module $(printf '%s' "$m" | sed 's/\$/\\$/g')(d,q,clock)" "$v"; then
        continue
    fi
    script="$script setattr -mod -set keep_hierarchy 1 $m;"
done
script="$script synth_ice40 -top top; tee -q -o $dir/stat.txt stat"
if ! yosys -q -p "$script" >"$dir/yosys.log" 2>&1; then
    echo "yosys failed; see $dir/yosys.log" >&2
    exit 1
fi
awk '
    /^=== / { m = $2; order[++n] = m }
    /SB_LUT4/ { lut[m] = $2 }
    /SB_DFF/ { ff[m] += $2 }
    /SB_CARRY/ { carry[m] = $2 }
    /SB_RAM40_4K/ { ram[m] = $2 }
    /^=== design hierarchy ===/ { exit }
    END {
        printf "%-18s %6s %6s %6s %5s\n", "block", "LUT4", "FF", "carry", "RAM"
        for (i = 1; i <= n; i++) {
            k = order[i]
            if (k == "design") continue
            name = (k == "top") ? "(glue)" : substr(k, 5)
            printf "%-18s %6d %6d %6d %5d\n", name, lut[k], ff[k], carry[k], ram[k]
            tl += lut[k]; tf += ff[k]; tc += carry[k]; tr += ram[k]
        }
        printf "%-18s %6d %6d %6d %5d\n", "total", tl, tf, tc, tr
    }' "$dir/stat.txt"
