#!/usr/bin/env python3
"""Flip-flops whose D input is driven by a LUT that also reads the flip-flop's own Q: a hold
(feedback) multiplexer, which a flip-flop enable could often replace (docs/decisions.md "One load
per register"). Counters show up too; a register counted here is a lead, not a defect.

    ./target/release/rnic verilog --block rnic --out D
    yosys -q -p "synth_ice40 -top top -json D/core.json" D/rnic_w32.v
    python3 scripts/feedback_muxes.py D/core.json [top]
"""
import json, re, sys, collections
d = json.load(open(sys.argv[1]))
top = sys.argv[2] if len(sys.argv) > 2 else 'top'
m = d['modules'][top]
cells = m['cells']
names = {}
for n, v in m['netnames'].items():
    for i, b in enumerate(v['bits']):
        if isinstance(b, int):
            if b not in names or (names[b][0].startswith('$') and not n.startswith('$')):
                names[b] = (n, i)
driver = {}
for cn, c in cells.items():
    t = c['type']
    for p, bits in c['connections'].items():
        out = (t == 'SB_LUT4' and p == 'O') or (t.startswith('SB_DFF') and p == 'Q') or (t == 'SB_CARRY' and p == 'CO') or (t.startswith('SB_RAM') and p.startswith('RDATA'))
        if out:
            for b in bits:
                driver[b] = (cn, t)
regs = collections.Counter()
regs_fb = collections.Counter()
regs_self = collections.Counter()
tot_fb = 0
tot_ff = 0
luts_fb = set()
for cn, c in cells.items():
    if not c['type'].startswith('SB_DFF'):
        continue
    tot_ff += 1
    q = c['connections']['Q'][0]
    dd = c['connections']['D'][0]
    nm = names.get(q, ('?', 0))[0]
    nm = re.sub(r'\.q$', '', nm)
    regs[nm] += 1
    drv = driver.get(dd)
    if drv and drv[1] == 'SB_LUT4':
        lc = cells[drv[0]]['connections']
        ins = [lc[p][0] for p in ('I0', 'I1', 'I2', 'I3')]
        if q in ins:
            # other bits of the same register among the inputs: counter-like
            same = [b for b in ins if b != q and isinstance(b, int) and names.get(b, ('',))[0] == names.get(q, ('?',))[0]]
            if same:
                regs_self[nm] += 1
            else:
                regs_fb[nm] += 1
                tot_fb += 1
                luts_fb.add(drv[0])
print(f'flip-flops {tot_ff}, with a plain feedback LUT on D: {tot_fb} (distinct LUTs {len(luts_fb)})')
by_blk = collections.Counter()
for r, n in regs_fb.items():
    by_blk[r.split('.')[0] if '.' in r else r] += n
for b, n in by_blk.most_common(20):
    print(f'  {n:5d}  {b}')
print('largest registers with feedback:')
for r, n in regs_fb.most_common(60):
    print(f'  {n:4d}/{regs[r]:<4d} {r}')
