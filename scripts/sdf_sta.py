#!/usr/bin/env python3
"""Static timing analysis of a routed iCE40 design over every endpoint, from nextpnr's SDF.

nextpnr 0.4 reports only the worst path of each clock. The flow's nextpnr run also writes
`out.sdf` (`--sdf`): every net's delay to each of its sinks (INTERCONNECT), every cell arc
(IOPATH) and every setup check (SETUPHOLD), in the delays of nextpnr's own timing analysis.
This script propagates arrival times from the clocked arcs (a logic cell's CLK -> O, a block
RAM's RCLK -> RDATA, a registered I/O tile's INPUT_CLK -> D_IN_0) through the combinational
arcs and checks every setup endpoint against the period, so that every failing endpoint shows
at once, not one per routing run. The clock network's delay is common to both ends of a path
and left out, as nextpnr leaves it out; the worst slack gives nextpnr's Fmax.

usage:
  scripts/sdf_sta.py target/synth/rnic_w32/out.sdf [period_ns [n_paths]]
  scripts/sdf_sta.py --self-test
Prints the endpoint count, how many fail, the worst slack and Fmax; the failing endpoints
grouped by the endpoint cell's name (its register or block RAM, bit indices and the packer's
suffixes dropped); then the worst path of each of the `n_paths` worst groups.
"""
import collections
import re
import signal
import sys

CLOCK_PINS = {"CLK", "RCLK", "WCLK", "INPUT_CLK", "OUTPUT_CLK"}


def unescape(name):
    return re.sub(r"\\(.)", r"\1", name)


def split_pin(text):
    """`cell/port` (SDF-escaped) -> (cell, port)."""
    text = unescape(text)
    i = text.rfind("/")
    return text[:i], text[i + 1:]


def parse(sdf):
    """The timing graph: net arcs into each pin, cell arcs into each output pin, the clocked
    outputs with their clock-to-out delay, and the setup checks. Delays in ns (SDF: ps)."""
    net_in = collections.defaultdict(list)
    for m in re.finditer(r"\(INTERCONNECT (\S+) (\S+) \((\d+):", sdf):
        src, dst = split_pin(m.group(1)), split_pin(m.group(2))
        if dst[1] in CLOCK_PINS or dst[1] == "USER_SIGNAL_TO_GLOBAL_BUFFER":
            continue  # the clock network
        net_in[dst].append((src, int(m.group(3)) / 1000.0))
    cell_in = collections.defaultdict(list)
    clocked = {}
    setups = []
    for chunk in sdf.split("(CELL\n")[1:]:
        m = re.match(r"\s*\(CELLTYPE \"(\w+)\"\)\s+\(INSTANCE ([^\n]*)\)\n(.*)", chunk, re.S)
        if m is None:
            continue
        inst, body = unescape(m.group(2).strip()), m.group(3)
        for a in re.finditer(r"\(IOPATH (?:\(posedge )?(\S+?)\)? (\S+) \((\d+):", body):
            i, o, d = a.group(1), a.group(2), int(a.group(3)) / 1000.0
            if i in CLOCK_PINS:
                clocked[(inst, o)] = max(d, clocked.get((inst, o), 0.0))
            else:
                cell_in[(inst, o)].append(((inst, i), d))
        for a in re.finditer(r"\(SETUPHOLD \(posedge (\S+?)\) \(posedge (\S+?)\) \((\d+):", body):
            setups.append(((inst, a.group(1)), int(a.group(3)) / 1000.0))
    return net_in, cell_in, clocked, setups


def analyse(sdf, period):
    """(endpoints sorted by slack as (slack, pin, arrival + setup), path of a pin)."""
    net_in, cell_in, clocked, setups = parse(sdf)
    arrival = {}  # pin -> (worst arrival, the pin it comes from)
    sys.setrecursionlimit(1000000)

    def at(pin):
        if pin in arrival:
            return arrival[pin][0]
        arrival[pin] = (float("-inf"), None)  # a combinational loop counts nothing
        best = (clocked[pin], None) if pin in clocked else (float("-inf"), None)
        for src, d in cell_in.get(pin, []) + net_in.get(pin, []):
            a = at(src) + d
            if a > best[0]:
                best = (a, src)
        arrival[pin] = best
        return best[0]

    ends = []
    for pin, setup in setups:
        a = at(pin)
        if a > float("-inf"):  # an unregistered pad's input is asynchronous: no path
            ends.append((period - a - setup, pin, a + setup))
    ends.sort()

    def path(pin):
        steps = []
        while pin is not None:
            steps.append((pin, arrival[pin][0]))
            pin = arrival[pin][1]
        return list(reversed(steps))

    return ends, path


def group_of(cell):
    s = re.sub(r"_SB_(LUT4|DFF\w*|CARRY|RAM40_4K)_.*$", "", cell)
    s = re.sub(r"(_DFFLC|_LC|_RAM)$", "", s)
    s = re.sub(r"\.words\.\d+\.\d+$", "", s)
    s = re.sub(r"(\$\d+)?(\.q|\.d)$", "", s)
    return re.sub(r"\[\d+\]", "", s)


def report(sdf, period, npaths, out):
    ends, path = analyse(sdf, period)
    if not ends:
        out.write("no timing endpoint\n")
        return
    fail = [e for e in ends if e[0] < 0]
    worst = ends[0][0]
    out.write("endpoints %d; failing at %.2f ns: %d; worst slack %.2f ns (Fmax %.2f MHz)\n"
              % (len(ends), period, len(fail), worst, 1000.0 / (period - worst)))
    groups = collections.defaultdict(list)
    for e in fail:
        groups[group_of(e[1][0])].append(e)
    order = sorted(groups.items(), key=lambda kv: kv[1][0][0])
    if order:
        out.write("\n%-70s %6s %8s\n" % ("failing endpoints by cell", "count", "worst"))
        for g, es in order:
            out.write("%-70s %6d %8.2f\n" % (g[:70], len(es), es[0][0]))
    for g, es in order[:npaths]:
        slack, pin, _ = es[0]
        out.write("\n== %s: slack %.2f ns at %s.%s\n" % (g, slack, pin[0], pin[1]))
        for (cell, port), a in path(pin):
            if len(cell) > 110:  # yosys's names of LUTs grow with each level: keep both ends
                cell = cell[:70] + "..." + cell[-37:]
            out.write("   %6.2f  %s.%s\n" % (a, cell, port))


# Two flip-flops into a LUT into a third flip-flop, in nextpnr-ice40 0.4's HX8K delays (its own
# report gives 3.08 ns for a[0] -> q: 0.54 clock-to-out + 0.588 + 0.399 + 1.218 + 0.335 setup),
# and b's slower net; b's input from an unregistered pad has no path.
def sdf_cell(celltype, inst, arcs=(), setups=()):
    """One CELL entry in nextpnr's SDF layout: IOPATH `arcs` (input, output, ps) and SETUPHOLD
    `setups` (pin, ps) against CLK."""
    text = '  (CELL\n    (CELLTYPE "%s")\n    (INSTANCE %s)\n' % (celltype, inst)
    if arcs:
        text += "    (DELAY\n      (ABSOLUTE\n"
        for i, o, ps in arcs:
            text += "        (IOPATH %s %s (%d:%d:%d) (%d:%d:%d))\n" % ((i, o) + (ps,) * 6)
        text += "      )\n    )\n"
    if setups:
        text += "    (TIMINGCHECK\n"
        for pin, ps in setups:
            text += "      (SETUPHOLD (posedge %s) (posedge CLK) (%d:%d:%d) (0:0:0))\n" % (
                (pin,) + (ps,) * 3)
        text += "    )\n"
    return text + "  )\n"


def self_test_sdf():
    """Two flip-flops into a LUT into a third flip-flop, in nextpnr-ice40 0.4's HX8K delays
    (its own report gives 3.08 ns for a[0] -> q: 0.54 clock-to-out + 0.588 + 0.399 + 1.218 +
    0.335 setup), and b's slower net; b's input from an unregistered pad has no path."""
    nets = [("gb/GLOBAL_BUFFER_OUTPUT", "a\\[0\\]_LC/CLK", 308),
            ("a\\[0\\]_LC/O", "lut_LC/I1", 588),
            ("b_LC/O", "lut_LC/I2", 700),
            ("lut_LC/O", "q_LC/I3", 1218),
            ("pad\\$sb_io/D_IN_0", "b_LC/I0", 2000)]
    top = "".join("        (INTERCONNECT %s %s (%d:%d:%d) (%d:%d:%d))\n" % ((a, b) + (ps,) * 6)
                  for a, b, ps in nets)
    clk_q = [("CLK", "O", 540)]
    return ("(DELAYFILE\n  (TIMESCALE 1ps)\n"
            + '  (CELL\n    (CELLTYPE "top")\n    (INSTANCE )\n    (DELAY\n      (ABSOLUTE\n'
            + top + "      )\n    )\n  )\n"
            + sdf_cell("ICESTORM_LC", "a\\[0\\]_LC", clk_q)
            + sdf_cell("ICESTORM_LC", "b_LC", clk_q, [("I0", 468)])
            + sdf_cell("ICESTORM_LC", "lut_LC", [("I1", "O", 399), ("I2", "O", 378)])
            + sdf_cell("ICESTORM_LC", "q_LC", clk_q, [("I3", 335)])
            + sdf_cell("SB_IO", "pad\\$sb_io")
            + ")\n")


def self_test():
    ends, path = analyse(self_test_sdf(), 3.0)
    # The unregistered pad's path to b is asynchronous: one endpoint, q's I3.
    assert len(ends) == 1, ends
    slack, pin, total = ends[0]
    assert pin == ("q_LC", "I3"), pin
    # The worse of the LUT's inputs: b (0.54 + 0.700 + 0.378 = 1.618 at the LUT's output), not
    # a[0] (0.54 + 0.588 + 0.399 = 1.527); then 1.218 + 0.335 to q.
    assert abs(total - 3.171) < 1e-9, total
    assert abs(slack - (3.0 - 3.171)) < 1e-9, slack
    steps = [p for p, _ in path(pin)]
    assert steps == [("b_LC", "O"), ("lut_LC", "I2"), ("lut_LC", "O"), ("q_LC", "I3")], steps
    assert group_of("dut.rx.check.stags.ram.words.0.1_RAM") == "dut.rx.check.stags.ram"
    assert group_of("dut.host.cw_pi.d_SB_LUT4_O_11_LC") == "dut.host.cw_pi"
    print("sdf_sta self-test: ok")


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    if len(argv) == 2 and argv[1] == "--self-test":
        self_test()
        return 0
    if len(argv) < 2 or len(argv) > 4:
        sys.stderr.write("usage: sdf_sta.py OUT.sdf [PERIOD_NS [N_PATHS]] | --self-test\n")
        return 2
    try:
        sdf = open(argv[1]).read()
        period = float(argv[2]) if len(argv) > 2 else 10.0
        npaths = int(argv[3]) if len(argv) > 3 else 15
    except (OSError, ValueError) as e:
        sys.stderr.write("sdf_sta.py: %s\n" % e)
        return 2
    report(sdf, period, npaths, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
