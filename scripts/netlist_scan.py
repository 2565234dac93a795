#!/usr/bin/env python3
"""Three area leads in a yosys `synth_ice40` netlist of the core (docs/decisions.md "One load per
register", BENCHMARKS.md "The whole core on the Alchitry Cu"):

- feedback multiplexers: flip-flops whose D input is driven by a LUT that also reads the
  flip-flop's own Q (a hold multiplexer, which a flip-flop enable could often replace; counters
  show up too, so a register listed here is a lead, not a defect);
- flip-flops that cannot share an iCE40 logic cell with a LUT: nextpnr packs a flip-flop with
  the LUT driving its D only when that LUT drives nothing else; a flip-flop fed by a port, a
  block RAM, another flip-flop, a carry or a shared LUT takes a logic cell of its own;
- inverters in front of carry chains: an `SB_CARRY` takes its operands from its cell's LUT
  inputs as they are, so `a - b` / `a < b` with `b` from a flip-flop, a RAM or a port costs one
  inverter LUT per bit in a cell of its own (docs/decisions.md "Twelfth session"); listed by
  the net inverted.

    ./target/release/rnic verilog --block rnic --out D
    yosys -q -p "synth_ice40 -top top -json D/core.json" D/rnic_w32.v
    python3 scripts/netlist_scan.py D/core.json [top [N]]   (N: how many registers to list, 25)

A flip-flop is named by a net of its output, which may be the input port of the block it feeds
(`arb$se_msg_len` is the send engine's register on the arbiter's port): the per-block figures
are approximate.
"""
import collections
import json
import re
import sys

BLOCKS = ('rx', 'ddp', 'se', 'host', 'rr', 'arb', 'mpa', 'cq')


def main():
    m = json.load(open(sys.argv[1]))['modules'][sys.argv[2] if len(sys.argv) > 2 else 'top']
    cells = m['cells']
    names = {}
    for n, v in m['netnames'].items():
        for b in v['bits']:
            if isinstance(b, int) and (b not in names or (names[b].startswith('$') and not n.startswith('$'))):
                names[b] = n
    driver, fanout, carry_in = {}, collections.Counter(), set()
    for cn, c in cells.items():
        t = c['type']
        for p, bits in c['connections'].items():
            out = ((t == 'SB_LUT4' and p == 'O') or (t.startswith('SB_DFF') and p == 'Q')
                   or (t == 'SB_CARRY' and p == 'CO') or (t.startswith('SB_RAM') and p.startswith('RDATA')))
            for b in bits:
                if out:
                    driver[b] = (cn, t)
                else:
                    fanout[b] += 1
                    if t == 'SB_CARRY':
                        carry_in.add(b)

    def block(net):
        parts = re.split(r'[.$]', net)
        if parts[0] == 'rx' and len(parts) > 1:
            return 'rx.' + parts[1]
        return parts[0] if parts[0] in BLOCKS else '(top)'

    def register(net):
        return re.sub(r'(\$q|\.q)$', '', net)

    ffs = [c for c in cells.values() if c['type'].startswith('SB_DFF')]
    fb, alone, total = collections.Counter(), collections.Counter(), collections.Counter()
    fb_reg, alone_reg, kinds = collections.Counter(), collections.Counter(), collections.Counter()
    for c in ffs:
        q, d = c['connections']['Q'][0], c['connections']['D'][0]
        net = names.get(q, '?')
        total[block(net)] += 1
        drv = driver.get(d)
        if drv and drv[1] == 'SB_LUT4':
            lc = cells[drv[0]]['connections']
            ins = [lc[p][0] for p in ('I0', 'I1', 'I2', 'I3')]
            same = [b for b in ins if b != q and isinstance(b, int) and names.get(b) == net]
            if q in ins and not same:
                fb[block(net)] += 1
                fb_reg[register(net)] += 1
        if not (drv and drv[1] == 'SB_LUT4' and fanout[d] == 1):
            alone[block(net)] += 1
            alone_reg[register(net)] += 1
            kinds['a port or constant' if drv is None else
                  'a shared LUT' if drv[1] == 'SB_LUT4' else drv[1]] += 1
    print(f'flip-flops: {len(ffs)}; with a feedback LUT on D: {sum(fb.values())}; '
          f'in a logic cell of their own: {sum(alone.values())}')
    print('D of the flip-flops alone, from: ' + ', '.join(f'{k} {n}' for k, n in kinds.most_common()))
    print('per block (feedback / alone / flip-flops):')
    for b, n in total.most_common():
        print(f'  {fb[b]:5d} {alone[b]:5d} {n:5d}  {b}')
    print('largest registers with a feedback LUT:')
    for r, n in fb_reg.most_common(25):
        print(f'  {n:4d}  {r}')
    print('largest registers alone in their logic cells:')
    for r, n in alone_reg.most_common(int(sys.argv[3]) if len(sys.argv) > 3 else 25):
        print(f'  {n:4d}  {r}')
    inv = collections.Counter()
    for c in cells.values():
        if c['type'] != 'SB_LUT4' or c['connections']['O'][0] not in carry_in:
            continue
        ins = [c['connections'][p][0] for p in ('I0', 'I1', 'I2', 'I3')]
        var = [i for i, b in enumerate(ins) if isinstance(b, int)]
        if len(var) != 1:
            continue
        init = c['parameters']['LUT_INIT']
        init = int(init, 2) if set(init) <= set('01') else int(init)
        base = sum(1 << i for i, b in enumerate(ins) if b == '1')
        if (init >> base) & 1 == 1 and (init >> (base | 1 << var[0])) & 1 == 0:
            inv[register(names.get(ins[var[0]], '?').split('[')[0])] += 1
    print(f'inverter LUTs in front of carry chains: {sum(inv.values())}')
    for r, n in inv.most_common(25):
        print(f'  {n:4d}  {r}')


if __name__ == '__main__':
    main()
