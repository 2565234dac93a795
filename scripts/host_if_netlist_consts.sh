#!/usr/bin/env bash
# Reads ID, VERSION and CAPS over MMIO from HostIf's *mapped* iCE40 netlist (yosys synth_ice40,
# then Verilator with yosys's own cell models), to check that the register RAM's initial
# contents (`StagRam::with_contents`, docs/decisions.md "HostIf: area") reach the block RAMs'
# INIT parameters. The usual tests run the source Verilog, not the netlist (`host_host_if`
# checks the source's words against rnic_proto::host::regs). Prints the three words and exits
# non-zero if the netlist's differ from the source Verilog's initial words.
#   scripts/host_if_netlist_consts.sh            (about 1 min; needs yosys and verilator)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p rnic-driver --bin rnic
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
target/release/rnic verilog --block host_if --out "$d" >/dev/null
yosys -q -p "read_verilog $d/host_if_w32.v; synth_ice40 -top top; write_verilog -noattr $d/net.v"
cat > "$d/tb.v" <<'V'
module tb(input clock, input [11:0] addr, input valid, output ready, output rvalid,
          output [31:0] rdata);
  top dut(.clock(clock), .mmio_valid(valid), .mmio_write(1'b0), .mmio_addr(addr),
          .mmio_wdata(32'd0), .mmio_ready(ready), .mmio_rvalid(rvalid), .mmio_rdata(rdata));
endmodule
V
cat > "$d/main.cpp" <<'C'
#include "Vtb.h"
#include <cstdio>
int main() {
  Vtb t;
  const unsigned addr[3] = {0x000, 0x004, 0x008};  // ID, VERSION, CAPS
  const unsigned want[3] = {WANT_ID, WANT_VERSION, WANT_CAPS};
  int bad = 0;
  auto tick = [&] { t.clock = 1; t.eval(); t.clock = 0; t.eval(); };
  t.clock = 0; t.valid = 0; t.addr = 0; t.eval();
  for (int c = 0; c < 4; c++) tick();
  for (int k = 0; k < 3; k++) {
    // Held until `mmio_ready` takes it (docs/core.md "MMIO": a wait state first).
    t.addr = addr[k]; t.valid = 1; t.eval();
    for (int c = 0; c < 4; c++) { bool taken = t.ready; tick(); if (taken) break; }
    t.valid = 0; t.eval();
    for (int c = 0; c < 3 && !t.rvalid; c++) tick();
    printf("MMIO 0x%03x: %08x (expected %08x)\n", addr[k], (unsigned)t.rdata, want[k]);
    bad |= !t.rvalid || t.rdata != want[k];
    tick();
  }
  return bad;
}
C
# The expected words: the source Verilog's `initial` words 0-2.
v=$(grep -oE "mem\[[012]\] = 32'h[0-9a-f]+" "$d/host_if_w32.v" | sed -E "s/.*'h//")
read -r id ver caps <<<"$(echo $v)"
verilator --cc --exe --build -O1 -Wno-fatal -Wno-lint -Wno-style -DNO_ICE40_DEFAULT_ASSIGNMENTS \
  -CFLAGS "-DWANT_ID=0x$id -DWANT_VERSION=0x$ver -DWANT_CAPS=0x$caps" \
  --top-module tb -Mdir "$d/obj" "$d/tb.v" "$d/net.v" /usr/share/yosys/ice40/cells_sim.v \
  "$d/main.cpp" -o simbin >"$d/verilator.log" 2>&1 || { cat "$d/verilator.log"; exit 1; }
"$d/obj/simbin"
