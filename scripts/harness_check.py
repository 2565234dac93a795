#!/usr/bin/env python3
"""Checks a synthesis run's harness against yosys's final netlist (bsp/src/harness.rs):

- every DUT output bit the harness folds without a register is driven by a flip-flop's Q
  (`SB_DFF*`) or a block RAM's RDATA (`SB_RAM40_4K`, clocked) in module `top`;
- every DUT input bit the harness drives from a pin (`hin[k]`) feeds only flip-flops' D.

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
# direct inputs: find connections using hin
conns = re.findall(r'\.(\S+)\((\{[^)]*\}|[^)]*)\)', h)
bad_in = []; n_in = 0
for name, expr in conns:
    if 'hin' not in expr: continue
    parts = [x.strip() for x in expr.strip('{}').split(',')]
    parts.reverse()
    bits = ports[name]['bits']
    for k, src in enumerate(parts):
        if 'hin' not in src: continue
        n_in += 1
        b = bits[k]
        us = uses.get(b, [])
        if any(not (t.startswith('SB_DFF') and p == 'D') for t, p in us):
            bad_in.append((name, k, us))
print('pin inputs', n_in, 'not only SB_DFF D:', bad_in)
sys.exit(1 if bad_out or bad_in else 0)
