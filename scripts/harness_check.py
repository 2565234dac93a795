#!/usr/bin/env python3
"""Checks a synthesis run's harness against yosys's final netlist (bsp/src/harness.rs):

- every DUT output bit the harness folds without a register (neither in a harness flip-flop
  nor in an I/O tile's output register) is driven by a flip-flop's Q (`SB_DFF*`) or a block
  RAM's RDATA (`SB_RAM40_4K`, clocked) in module `top`;
- every DUT input bit the harness drives from a pin comes from the input register of an
  iCE40 I/O tile (`SB_IO` with PIN_TYPE[1:0] = 00, `D_IN_0`, clocked by the board clock), so
  that its paths through DUT logic start at a flip-flop;
- every DUT input bit comes from a flip-flop: the shift register, a pin's I/O-tile input
  register, a harness output register or a DUT output driven by an `SB_DFF*` in `top` (the
  looped-back inputs), or is a constant;
- every output register of an I/O tile that the harness uses is on the board clock: `D_OUT_0`
  of the I/O-registered outputs (PIN_TYPE[5:2] = 1001, or 1000 with DDR outputs), and
  `D_OUT_1` (falling edge, DDR) of every pin, which must be driven by a harness flip-flop's Q
  (a harness output register) or a constant, so that its half-cycle path is a route alone.

Usage: scripts/harness_check.py WORK_DIR (e.g. target/synth/rnic_w32, with out.json and
harness.v). Exits 1 when a bit breaks the rule, listing it.
"""
import json, sys, re
# DUT outputs come straight from SB_DFF* Q and pin-driven DUT inputs feed only SB_DFF* D.
d = sys.argv[1]
v = json.load(open(d + '/out.json'))
top = v['modules']['top']
h = open(d + '/harness.v').read()
q = set(); uses = {}; ram = set()
for cn, c in top['cells'].items():
    ff = c['type'].startswith('SB_DFF')
    for p, bits in c['connections'].items():
        dr = c['port_directions'].get(p, 'input')
        for b in bits:
            if not isinstance(b, int): continue
            if dr == 'output':
                if ff and p == 'Q': q.add(b)
                if c['type'].startswith('SB_RAM') and p == 'RDATA': ram.add(b)
            else:
                uses.setdefault(b, []).append((c['type'], p))
ports = top['ports']
oregs = set()
m = re.search(r'harness_oreg <= \{(.*)\};', h)
if m:
    oregs = set(x.strip() for x in m.group(1).split(','))
# Outputs registered in an I/O tile (SB_IO PIN_TYPE[5:2] = 1001): `assign harness_pin_out[k] =
# harness_oN[b];` with k below the `harness_ior` generate's bound.
m = re.search(r'harness_k < (\d+); harness_k = harness_k \+ 1\) begin : harness_ior', h)
n_ior = int(m.group(1)) if m else 0
for k, src in re.findall(r'assign harness_pin_out\[(\d+)\] = (harness_o\d+\[\d+\]);', h):
    if int(k) < n_ior:
        oregs.add(src)
# output port index map as in harness: harness_o{i} comment // name
onames = dict((name, i) for i, name in re.findall(r'wire \[\d+:0\] harness_o(\d+); // (\S+)', h))
bad_out = []; n_out = 0
for name, p in ports.items():
    if p['direction'] != 'output': continue
    i = onames[name]
    for k, b in enumerate(p['bits']):
        if f'harness_o{i}[{k}]' in oregs: continue
        n_out += 1
        if isinstance(b, int) and b not in q and b not in ram: bad_out.append((name, k))
print('unregistered outputs', n_out, 'not from SB_DFF Q or SB_RAM RDATA:', bad_out)
# Pin inputs: the harness's SB_IO cells whose D_IN_0 feeds the DUT.
hm = v['modules'].get('rnic_synth_top', {'cells': {}, 'netnames': {}})
clk = set(hm['netnames'].get('clk', {'bits': []})['bits'])
pin_in = hm['netnames'].get('harness_pin_in', {'bits': []})['bits']
n_in = 0; bad_in = []
for cn, c in hm['cells'].items():
    if c['type'] != 'SB_IO': continue
    d = c['connections'].get('D_IN_0', [None])[0]
    if d not in pin_in: continue
    n_in += 1
    pt = c['parameters'].get('PIN_TYPE', '')
    pt = int(pt, 2) if set(pt) <= set('01') else int(pt)
    ck = c['connections'].get('INPUT_CLK', [None])[0]
    if pt & 3 != 0 or ck not in clk:
        bad_in.append((cn, bin(pt), ck))
print('pin inputs', n_in, 'not from a registered SB_IO on clk:', bad_in)
# I/O-registered outputs: their SB_IO registers D_OUT_0 on the board clock.
pin_out = hm['netnames'].get('harness_pin_out', {'bits': []})['bits'][:n_ior]
n_or = 0; bad_or = []
for cn, c in hm['cells'].items():
    if c['type'] != 'SB_IO' or c['connections'].get('D_OUT_0', [None])[0] not in pin_out: continue
    n_or += 1
    pt = c['parameters'].get('PIN_TYPE', '')
    pt = int(pt, 2) if set(pt) <= set('01') else int(pt)
    if pt >> 2 not in (0b1001, 0b1000) or c['connections'].get('OUTPUT_CLK', [None])[0] not in clk:
        bad_or.append((cn, bin(pt)))
print('I/O-registered outputs', n_or, 'of', n_ior, 'not registered on clk:', bad_or)
# Falling-edge outputs: D_OUT_1 from a harness SB_DFF* Q (or a constant), in DDR mode on clk.
hq = set()
for cn, c in hm['cells'].items():
    if c['type'].startswith('SB_DFF'):
        hq.update(b for b in c['connections'].get('Q', []) if isinstance(b, int))
n_ddr = 0; bad_ddr = []
for cn, c in hm['cells'].items():
    if c['type'] != 'SB_IO': continue
    d1 = c['connections'].get('D_OUT_1', [None])[0]
    if d1 is None: continue
    pt = c['parameters'].get('PIN_TYPE', '')
    pt = int(pt, 2) if set(pt) <= set('01') else int(pt)
    if isinstance(d1, int):
        n_ddr += 1
        if d1 not in hq: bad_ddr.append((cn, 'D_OUT_1 not from a harness flip-flop'))
    if pt >> 2 != 0b1000 or c['connections'].get('OUTPUT_CLK', [None])[0] not in clk:
        bad_ddr.append((cn, bin(pt)))
print('falling-edge outputs', n_ddr, 'not from a harness flip-flop in a DDR register on clk:', bad_ddr)
bad_or += bad_ddr
# Every DUT input bit from a flip-flop (or a constant).
drv = {}
for cn, c in hm['cells'].items():
    for p, bits in c['connections'].items():
        if c['port_directions'].get(p) == 'output':
            for k, b in enumerate(bits):
                if isinstance(b, int): drv[b] = (cn, c['type'], p, k)
n_dut_in = 0; bad_dut_in = []
for cn, c in hm['cells'].items():
    if c['type'] != 'top': continue
    for p, bits in c['connections'].items():
        if c['port_directions'].get(p) != 'input' or p == 'clock': continue
        for k, b in enumerate(bits):
            if not isinstance(b, int): continue
            n_dut_in += 1
            d = drv.get(b)
            ok = False
            if d and d[1].startswith('SB_DFF') and d[2] == 'Q': ok = True
            elif d and d[1] == 'SB_IO' and d[2] == 'D_IN_0': ok = True
            elif d and d[1] == 'top':
                tb = ports[d[2]]['bits'][d[3]]
                ok = isinstance(tb, int) and (tb in q or tb in ram)
            if not ok: bad_dut_in.append((p, k, d))
print('DUT input bits', n_dut_in, 'not from a flip-flop:', bad_dut_in)
bad_or += bad_dut_in
bad_in += bad_or + ([('I/O-registered outputs missing', n_ior - n_or)] if n_or != n_ior else [])
sys.exit(1 if bad_out or bad_in else 0)
