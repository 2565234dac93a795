//! Synthesis harness: a wrapper `rnic_synth_top` around the DUT `top`, on the board's pins.
//!
//! A block synthesized alone has more ports than the package has pins (the whole core has
//! about 410 port bits, the cb132 package 95 pins). The harness gives every DUT port bit a
//! source or a sink while adding as few logic cells as it can, and keeps every timed path of
//! the DUT starting and ending at a flip-flop:
//!
//! * **Inputs.** A DUT input bit that feeds nothing but the `D` input of DUT flip-flops (no
//!   logic between the port and the flip-flop; found by [`analyse_dut`]) is driven straight
//!   from a pin `hin[k]`: its only path is a wire to a flip-flop, which the real core has from
//!   a register of the TOE / PCIe side and which is not a logic path. Every other input bit
//!   (and a direct one when the pins run out) comes from one long shift register fed by pin
//!   `sin`, so that its paths through DUT logic start at a flip-flop.
//! * **Outputs.** A DUT output bit driven straight from a DUT flip-flop's `Q` is not
//!   registered again. An output bit that is not (a combinational output, listed by
//!   [`analyse_dut`]) is captured in a harness output register, so that its path ends at a
//!   flip-flop. These bits (and the last shift-register bit, so that `sin` matters even to a
//!   DUT without inputs) are XOR-folded, without registers, into the remaining pins `sout`
//!   and `hout[k]`: a pin takes one bit, or a 4-input XOR (one LUT) of bits or of other XORs.
//!   Paths that end at a pin are not part of nextpnr's Fmax of the board clock (they are
//!   reported as `posedge clk -> <async>`).
//! * `clock` is the board clock pin `clk`.
//!
//! Every DUT input and output therefore matters to some pin. The flow ([`crate::synthesize`])
//! keeps the boundary between harness and DUT (`keep_hierarchy` on `top`): yosys cannot
//! propagate a constant output into the harness, merge two identical outputs, or cancel them in
//! the XOR tree, so nothing of the DUT is optimised away and the harness cost is fixed.
//!
//! Harness cost ([`Harness::logic_cells`]): one logic cell per shift-register bit, per output
//! register and per fold LUT, less the output registers that nextpnr packs into the cell of the
//! DUT LUT that drives them ([`packed_output_registers`]). Pins are given first to direct inputs (a pin saves a
//! shift-register flip-flop, a logic cell), then to the fold (a pin saves at most a third of a
//! LUT). Without an analysis ([`plan_harness`]) the harness is conservative: every input bit
//! from the shift register, every output bit registered.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use anyhow::{bail, Context, Result};
use serde::Serialize;
use serde_json::Value;

use crate::ports::{parse_ports, verilog_identifier, Direction, Port};

/// Name of the generated wrapper module.
pub const HARNESS_TOP: &str = "rnic_synth_top";

/// Name of the DUT's clock input, tied to the board clock.
pub const DUT_CLOCK: &str = "clock";

/// One bit of a DUT port: port name and bit index (0 = least significant).
pub type PortBit = (String, usize);

/// What yosys found in the DUT netlist ([`analyse_dut`]), per port bit.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DutAnalysis {
    /// Input bits whose every use is the `D` input of a DUT flip-flop.
    pub direct_inputs: BTreeSet<PortBit>,
    /// Output bits not driven straight from a DUT flip-flop's `Q` (nor constant).
    pub combinational_outputs: BTreeSet<PortBit>,
}

impl DutAnalysis {
    /// The conservative analysis: no direct input, every output bit combinational.
    pub fn conservative(ports: &[Port]) -> Self {
        let combinational_outputs = ports
            .iter()
            .filter(|p| p.direction == Direction::Output)
            .flat_map(|p| (0..p.width).map(|b| (p.name.clone(), b)))
            .collect();
        DutAnalysis {
            direct_inputs: BTreeSet::new(),
            combinational_outputs,
        }
    }
}

/// The yosys script of the analysis pre-pass: the DUT alone, flattened, flip-flops inferred
/// (`proc`, `opt` folds enables into `$dffe`), written as JSON to `json`.
pub fn analysis_script(dut_file: &str, json: &str) -> String {
    format!("read_verilog {dut_file}; hierarchy -top top; proc; flatten; opt; write_json {json}")
}

/// yosys's coarse flip-flop cell types (latches are not flip-flops).
fn is_flip_flop(cell_type: &str) -> bool {
    matches!(
        cell_type,
        "$dff"
            | "$dffe"
            | "$adff"
            | "$adffe"
            | "$sdff"
            | "$sdffe"
            | "$sdffce"
            | "$aldff"
            | "$aldffe"
            | "$dffsr"
            | "$dffsre"
    )
}

/// Reads the JSON netlist of [`analysis_script`] (module `top`) and classifies the DUT's port
/// bits: inputs that feed only flip-flops' `D`, outputs not driven from a flip-flop's `Q`.
pub fn analyse_dut(netlist_json: &str) -> Result<DutAnalysis> {
    let v: Value = serde_json::from_str(netlist_json).context("yosys JSON netlist")?;
    let top = &v["modules"]["top"];
    let ports = top["ports"]
        .as_object()
        .context("no module `top` with ports in the netlist")?;
    let cells = top["cells"].as_object().cloned().unwrap_or_default();
    let bits = |x: &Value| -> Vec<Value> { x.as_array().cloned().unwrap_or_default() };
    // Flip-flop Q bits; the uses of every net bit that are not a flip-flop's D.
    let mut q_bits = BTreeSet::new();
    let mut other_use = BTreeSet::new();
    for cell in cells.values() {
        let ty = cell["type"].as_str().unwrap_or("");
        let ff = is_flip_flop(ty);
        let conns = cell["connections"].as_object().cloned().unwrap_or_default();
        for (port, conn) in &conns {
            let dir = cell["port_directions"][port].as_str().unwrap_or("input");
            for b in bits(conn).iter().filter_map(Value::as_u64) {
                if ff && port == "Q" {
                    q_bits.insert(b);
                } else if dir != "output" && !(ff && port == "D") {
                    other_use.insert(b);
                }
            }
        }
    }
    // A net bit that is also an output port bit (a wire straight through) is another use.
    for p in ports.values() {
        if p["direction"] == "output" {
            other_use.extend(bits(&p["bits"]).iter().filter_map(Value::as_u64));
        }
    }
    let mut a = DutAnalysis::default();
    for (name, p) in ports {
        for (i, b) in bits(&p["bits"]).iter().enumerate() {
            match (p["direction"].as_str(), b.as_u64()) {
                (Some("input"), Some(n)) if name != DUT_CLOCK && !other_use.contains(&n) => {
                    a.direct_inputs.insert((name.clone(), i));
                }
                (Some("output"), Some(n)) if !q_bits.contains(&n) => {
                    a.combinational_outputs.insert((name.clone(), i));
                }
                _ => {}
            }
        }
    }
    Ok(a)
}

/// How many of the harness's output registers nextpnr packs into the logic cell of the DUT
/// LUT that drives them: those whose output bit, in yosys's final netlist `netlist_json`
/// (module `top` kept apart), is driven by an `SB_LUT4` that drives nothing else (nextpnr packs
/// a flip-flop with its LUT when the flip-flop is the LUT's only load). These registers occupy
/// no logic cell of their own.
pub fn packed_output_registers(h: &Harness, netlist_json: &str) -> Result<usize> {
    let v: Value = serde_json::from_str(netlist_json).context("yosys JSON netlist")?;
    let top = &v["modules"]["top"];
    let ports = top["ports"]
        .as_object()
        .context("no module `top` with ports in the netlist")?;
    let mut lut_driven = BTreeSet::new();
    let mut loads: BTreeMap<u64, usize> = BTreeMap::new();
    for cell in top["cells"]
        .as_object()
        .into_iter()
        .flat_map(|c| c.values())
    {
        let lut = cell["type"] == "SB_LUT4";
        for (port, conn) in cell["connections"].as_object().into_iter().flatten() {
            let output = cell["port_directions"][port] == "output";
            for b in conn
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_u64)
            {
                if output && lut {
                    lut_driven.insert(b);
                } else if !output {
                    *loads.entry(b).or_default() += 1;
                }
            }
        }
    }
    for p in ports.values().filter(|p| p["direction"] == "output") {
        for b in p["bits"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_u64)
        {
            *loads.entry(b).or_default() += 1;
        }
    }
    Ok(h.registered_outputs
        .iter()
        .filter_map(|(name, bit)| ports.get(name)?["bits"].get(*bit)?.as_u64())
        .filter(|b| lut_driven.contains(b) && loads.get(b) == Some(&1))
        .count())
}

/// Where one DUT input bit comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum InputSource {
    /// Bit `k` of the shift register.
    Shift(usize),
    /// Pin `hin[k]`.
    Pin(usize),
}

/// Shape of the generated harness.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Harness {
    /// DUT ports, in header order.
    pub ports: Vec<Port>,
    /// Whether the DUT has a 1-bit `clock` input (tied to the board clock).
    pub has_clock: bool,
    /// DUT input bits (all inputs except `clock`).
    pub input_bits: usize,
    /// DUT output bits.
    pub output_bits: usize,
    /// Source of every input bit, by port name (index = bit).
    pub input_sources: BTreeMap<String, Vec<InputSource>>,
    /// DUT input bits driven straight from a pin `hin[k]`.
    pub input_pins: usize,
    /// Length of the input shift register (at least 1).
    pub shift_register_bits: usize,
    /// Output bits captured in a harness output register (the combinational outputs).
    pub registered_outputs: Vec<PortBit>,
    /// Output pins: `sout` and `hout[0 .. output_pins - 1]`.
    pub output_pins: usize,
}

impl Harness {
    /// Output-register bits (one per registered output).
    pub fn output_register_bits(&self) -> usize {
        self.registered_outputs.len()
    }

    /// Bits XOR-folded into the output pins (every output bit and the last shift bit).
    pub fn fold_bits(&self) -> usize {
        self.output_bits + 1
    }

    /// 4-input XORs (one LUT each) of the fold.
    pub fn fold_luts(&self) -> usize {
        fold_luts(self.fold_bits(), self.output_pins)
    }

    /// All flip-flops the harness adds.
    pub fn flip_flops(&self) -> usize {
        self.shift_register_bits + self.output_register_bits()
    }

    /// Logic cells the harness occupies: one per flip-flop and one per fold LUT (no fold LUT
    /// drives a flip-flop). See the module documentation.
    pub fn logic_cells(&self) -> usize {
        self.flip_flops() + self.fold_luts()
    }

    /// Pins the harness uses besides `clk`: `sin`, the `hin` and the output pins.
    pub fn pins(&self) -> usize {
        1 + self.input_pins + self.output_pins
    }
}

/// The conservative harness (no analysis, see the module documentation) with only the three
/// pins `clk`, `sin` and `sout`.
pub fn plan_harness(dut_verilog: &str) -> Result<Harness> {
    let ports = parse_ports(dut_verilog)?;
    let analysis = DutAnalysis::conservative(&ports);
    plan_harness_with(dut_verilog, &analysis, 2)
}

/// Plans the harness from the DUT's `analysis` with `pins` pins besides `clk` (at least 2:
/// `sin` and `sout`).
pub fn plan_harness_with(
    dut_verilog: &str,
    analysis: &DutAnalysis,
    pins: usize,
) -> Result<Harness> {
    if pins < 2 {
        bail!("the synthesis harness needs at least two pins besides the clock, got {pins}");
    }
    let ports = parse_ports(dut_verilog)?;
    let mut has_clock = false;
    let mut input_bits = 0;
    let mut output_bits = 0;
    for p in &ports {
        match p.direction {
            Direction::Input if p.name == DUT_CLOCK && p.width == 1 => has_clock = true,
            Direction::Input => input_bits += p.width,
            Direction::Output => output_bits += p.width,
            Direction::InOut => bail!(
                "port `{}` of module `top` is inout: the synthesis harness supports only \
                 input and output ports",
                p.name
            ),
        }
    }
    // Direct inputs take pins first, leaving `sin` and `sout`.
    let mut pins_left = pins - 2;
    let mut input_sources = BTreeMap::new();
    let (mut input_pins, mut shift) = (0, 0);
    let mut registered_outputs = Vec::new();
    for p in &ports {
        match p.direction {
            Direction::Input if p.name == DUT_CLOCK && p.width == 1 => {}
            Direction::Input => {
                let mut v = Vec::with_capacity(p.width);
                for b in 0..p.width {
                    if pins_left > 0 && analysis.direct_inputs.contains(&(p.name.clone(), b)) {
                        pins_left -= 1;
                        v.push(InputSource::Pin(input_pins));
                        input_pins += 1;
                    } else {
                        v.push(InputSource::Shift(shift));
                        shift += 1;
                    }
                }
                input_sources.insert(p.name.clone(), v);
            }
            _ => {
                for b in 0..p.width {
                    if analysis
                        .combinational_outputs
                        .contains(&(p.name.clone(), b))
                    {
                        registered_outputs.push((p.name.clone(), b));
                    }
                }
            }
        }
    }
    let shift_register_bits = shift.max(1);
    // `sout` and the pins left, at most one per folded bit (output bits and the last shift bit).
    let output_pins = (pins_left + 1).min(output_bits + 1);
    Ok(Harness {
        ports,
        has_clock,
        input_bits,
        output_bits,
        input_sources,
        input_pins,
        shift_register_bits,
        registered_outputs,
        output_pins,
    })
}

/// 4-input XORs needed to fold `bits` bits into `pins` pins: each removes up to three bits.
fn fold_luts(bits: usize, pins: usize) -> usize {
    bits.saturating_sub(pins).div_ceil(3)
}

/// Conservative harness Verilog ([`plan_harness`]) of the DUT `top` found in `dut_verilog`.
/// The result does not include the DUT.
pub fn harness_verilog(dut_verilog: &str) -> Result<String> {
    let h = plan_harness(dut_verilog)?;
    Ok(render_harness(&h))
}

/// Name of output pin `k` of the harness (`sout`, then `hout[k - 1]`).
fn output_pin(h: &Harness, k: usize) -> String {
    match k {
        0 => "sout".into(),
        _ if h.output_pins == 2 => "hout".into(),
        _ => format!("hout[{}]", k - 1),
    }
}

/// Pin constraints of the harness's pins besides `clk`, `sin` and `sout` (which the board's
/// constraint file places), on `spare` pins of the package in order.
pub fn harness_pcf(h: &Harness, spare: &[&str]) -> Result<String> {
    let mut names: Vec<String> = (0..h.input_pins)
        .map(|k| {
            if h.input_pins == 1 {
                "hin".into()
            } else {
                format!("hin[{k}]")
            }
        })
        .collect();
    names.extend((1..h.output_pins).map(|k| output_pin(h, k)));
    if names.len() > spare.len() {
        bail!(
            "the harness needs {} spare pins, the board offers {}",
            names.len(),
            spare.len()
        );
    }
    let mut s = String::from("\n## Synthesis harness: further pins (generated)\n");
    for (n, p) in names.iter().zip(spare) {
        s.push_str(&format!("set_io {n} {p}\n"));
    }
    Ok(s)
}

/// Verilog of the harness planned by [`plan_harness`] or [`plan_harness_with`].
pub fn render_harness(h: &Harness) -> String {
    let mut v = String::new();
    let sr = h.shift_register_bits;
    let mut line = |s: String| {
        v.push_str(&s);
        v.push('\n');
    };
    line("// Synthesis harness generated by rnic-bsp: do not edit.".into());
    line(format!(
        "// DUT `top`: {} input bits ({} from pins, the others from a shift register fed by \
         `sin`), {} output bits ({} registered) XOR-folded into {} pins.",
        h.input_bits,
        h.input_pins,
        h.output_bits,
        h.output_register_bits(),
        h.output_pins
    ));
    line("`default_nettype none".into());
    let mut header = vec!["clk", "sin", "sout"];
    if h.input_pins > 0 {
        header.push("hin");
    }
    if h.output_pins > 1 {
        header.push("hout");
    }
    line(format!("module {HARNESS_TOP}({});", header.join(", ")));
    line("    input wire clk;".into());
    line("    input wire sin;".into());
    line("    output wire sout;".into());
    match h.input_pins {
        0 => {}
        1 => line("    input wire hin;".into()),
        n => line(format!("    input wire [{}:0] hin;", n - 1)),
    }
    match h.output_pins {
        0 | 1 => {}
        2 => line("    output wire hout;".into()),
        n => line(format!("    output wire [{}:0] hout;", n - 2)),
    }
    line(String::new());
    line(format!("    reg [{}:0] harness_sr;", sr - 1));
    if sr == 1 {
        line("    always @(posedge clk) harness_sr <= sin;".into());
    } else {
        line(format!(
            "    always @(posedge clk) harness_sr <= {{harness_sr[{}:0], sin}};",
            sr - 2
        ));
    }
    line(String::new());
    // DUT output wires, one per output port.
    let outputs: Vec<(usize, &Port)> = h
        .ports
        .iter()
        .enumerate()
        .filter(|(_, p)| p.direction == Direction::Output)
        .collect();
    for (i, p) in &outputs {
        line(format!(
            "    wire [{}:0] harness_o{i}; // {}",
            p.width - 1,
            p.name
        ));
    }
    // Instance with named connections.
    let hin = |k: usize| {
        if h.input_pins == 1 {
            "hin".to_string()
        } else {
            format!("hin[{k}]")
        }
    };
    let mut conns = Vec::new();
    for (i, p) in h.ports.iter().enumerate() {
        let id = verilog_identifier(&p.name);
        let expr = match p.direction {
            Direction::Input if p.name == DUT_CLOCK && p.width == 1 => "clk".to_string(),
            Direction::Input => {
                let bits: Vec<String> = h.input_sources[&p.name]
                    .iter()
                    .rev()
                    .map(|s| match *s {
                        InputSource::Shift(k) => format!("harness_sr[{k}]"),
                        InputSource::Pin(k) => hin(k),
                    })
                    .collect();
                if bits.len() == 1 {
                    bits[0].clone()
                } else {
                    format!("{{{}}}", bits.join(", "))
                }
            }
            _ => format!("harness_o{i}"),
        };
        conns.push(format!("        .{id}({expr})"));
    }
    if conns.is_empty() {
        line("    top dut();".into());
    } else {
        line("    top dut(".into());
        line(conns.join(",\n"));
        line("    );".into());
    }
    line(String::new());
    // Output registers for the combinational outputs; the fold's inputs.
    let registered: BTreeMap<&PortBit, usize> = h
        .registered_outputs
        .iter()
        .enumerate()
        .map(|(k, pb)| (pb, k))
        .collect();
    let mut fold: VecDeque<String> = VecDeque::new();
    let mut reg_inputs = Vec::new();
    for (i, p) in &outputs {
        for b in 0..p.width {
            match registered.get(&(p.name.clone(), b)) {
                Some(&k) => {
                    reg_inputs.push(format!("harness_o{i}[{b}]"));
                    fold.push_back(format!("harness_oreg[{k}]"));
                }
                None => fold.push_back(format!("harness_o{i}[{b}]")),
            }
        }
    }
    fold.push_back(format!("harness_sr[{}]", sr - 1));
    if !reg_inputs.is_empty() {
        line(format!(
            "    reg [{}:0] harness_oreg;",
            reg_inputs.len() - 1
        ));
        reg_inputs.reverse();
        line(format!(
            "    always @(posedge clk) harness_oreg <= {{{}}};",
            reg_inputs.join(", ")
        ));
    }
    // XOR fold without registers: each 4-input XOR is one LUT.
    let mut n = 0;
    while fold.len() > h.output_pins {
        let k = (fold.len() - h.output_pins + 1).min(4);
        let parts: Vec<String> = fold.drain(..k).collect();
        line(format!("    wire harness_x{n} = {};", parts.join(" ^ ")));
        fold.push_back(format!("harness_x{n}"));
        n += 1;
    }
    for (k, s) in fold.iter().enumerate() {
        line(format!("    assign {} = {s};", output_pin(h, k)));
    }
    line("endmodule".into());
    line("`default_nettype wire".into());
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUT: &str = "module top(clock,s$data,s$valid,q,wide);
    input wire  clock;
    input wire  [7:0] s$data;
    input wire  s$valid;
    output reg  [7:0] q;
    output reg  [95:0] wide;
endmodule
";

    #[test]
    fn conservative_plan_counts_bits() {
        let h = plan_harness(DUT).unwrap();
        assert!(h.has_clock);
        assert_eq!(h.input_bits, 9);
        assert_eq!(h.output_bits, 104);
        assert_eq!(h.input_pins, 0);
        assert_eq!(h.shift_register_bits, 9);
        assert_eq!(h.output_register_bits(), 104);
        assert_eq!(h.fold_bits(), 105);
        assert_eq!(h.output_pins, 1);
        // 105 bits into one pin: 35 XORs of 4 (104 / 3 rounded up).
        assert_eq!(h.fold_luts(), 35);
        assert_eq!(h.flip_flops(), 9 + 104);
        assert_eq!(h.logic_cells(), 9 + 104 + 35);
        assert_eq!(h.pins(), 2);
    }

    #[test]
    fn fold_luts_small() {
        assert_eq!(fold_luts(1, 1), 0);
        assert_eq!(fold_luts(4, 1), 1);
        assert_eq!(fold_luts(5, 1), 2);
        assert_eq!(fold_luts(16, 1), 5);
        assert_eq!(fold_luts(16, 4), 4);
        assert_eq!(fold_luts(10, 12), 0);
    }

    #[test]
    fn renders_connections() {
        let v = harness_verilog(DUT).unwrap();
        assert!(v.contains("module rnic_synth_top(clk, sin, sout);"), "{v}");
        assert!(v.contains(".clock(clk)"), "{v}");
        assert!(
            v.contains(
                ".s$data({harness_sr[7], harness_sr[6], harness_sr[5], harness_sr[4], \
                 harness_sr[3], harness_sr[2], harness_sr[1], harness_sr[0]})"
            ),
            "{v}"
        );
        assert!(v.contains(".s$valid(harness_sr[8])"), "{v}");
        assert!(v.contains(".q(harness_o3)"), "{v}");
        assert!(v.contains(".wide(harness_o4)"), "{v}");
        assert!(v.contains("wire [95:0] harness_o4;"), "{v}");
        assert!(v.contains("reg [103:0] harness_oreg;"), "{v}");
        assert!(
            v.contains("harness_oreg <= {harness_o4[95], harness_o4[94], "),
            "{v}"
        );
        assert!(v.contains("harness_o3[1], harness_o3[0]};"), "{v}");
        assert!(
            v.contains(
                "wire harness_x0 = harness_oreg[0] ^ harness_oreg[1] ^ harness_oreg[2] ^ \
                 harness_oreg[3];"
            ),
            "{v}"
        );
        assert!(v.contains("wire harness_x34 ="), "{v}");
        assert!(!v.contains("harness_x35"), "{v}");
        assert!(v.contains("assign sout = harness_x34;"), "{v}");
        // The last shift-register bit is folded too.
        assert!(
            v.lines()
                .any(|l| l.contains("wire harness_x") && l.contains("harness_sr[8]")),
            "{v}"
        );
    }

    #[test]
    fn analysis_gives_pins_and_keeps_flip_flop_outputs_unregistered() {
        let mut a = DutAnalysis::default();
        // s$data[0..4] feed flip-flops only; q[7] and wide[0] are combinational.
        for b in 0..4 {
            a.direct_inputs.insert(("s$data".into(), b));
        }
        a.combinational_outputs.insert(("q".into(), 7));
        a.combinational_outputs.insert(("wide".into(), 0));
        // sin, sout, 3 more: three direct inputs get pins, one pin left for the fold.
        let h = plan_harness_with(DUT, &a, 5).unwrap();
        assert_eq!(h.input_pins, 3);
        assert_eq!(h.shift_register_bits, 6);
        assert_eq!(h.output_register_bits(), 2);
        assert_eq!(h.output_pins, 1);
        assert_eq!(h.fold_luts(), 35);
        assert_eq!(
            h.input_sources["s$data"],
            vec![
                InputSource::Pin(0),
                InputSource::Pin(1),
                InputSource::Pin(2),
                InputSource::Shift(0),
                InputSource::Shift(1),
                InputSource::Shift(2),
                InputSource::Shift(3),
                InputSource::Shift(4),
            ]
        );
        let v = render_harness(&h);
        assert!(
            v.contains("module rnic_synth_top(clk, sin, sout, hin);"),
            "{v}"
        );
        assert!(v.contains("input wire [2:0] hin;"), "{v}");
        assert!(v.contains("harness_sr[0], hin[2], hin[1], hin[0]})"), "{v}");
        assert!(v.contains(".s$valid(harness_sr[5])"), "{v}");
        assert!(
            v.contains("harness_oreg <= {harness_o4[0], harness_o3[7]};"),
            "{v}"
        );
        assert!(v.contains("harness_o3[0] ^ harness_o3[1]"), "{v}");
        assert!(v.contains("harness_o3[6] ^ harness_oreg[0];"), "{v}");
        assert!(v.contains("harness_oreg[1] ^ harness_o4[1]"), "{v}");
        // Many pins: the 4 direct inputs, then 104 + 1 bits on 100 output pins, 2 XORs.
        let h = plan_harness_with(DUT, &a, 106).unwrap();
        assert_eq!((h.input_pins, h.output_pins, h.fold_luts()), (4, 101, 2));
        let pcf = harness_pcf(&h, &vec!["X"; 104]).unwrap();
        assert!(pcf.contains("set_io hin[3] X"), "{pcf}");
        assert!(pcf.contains("set_io hout[99] X"), "{pcf}");
        assert!(harness_pcf(&h, &["X"; 10]).is_err());
        let v = render_harness(&h);
        assert!(v.contains("output wire [99:0] hout;"), "{v}");
        assert!(v.contains("assign hout[99] = "), "{v}");
        assert!(plan_harness_with(DUT, &a, 1).is_err());
    }

    #[test]
    fn analyses_a_yosys_netlist() {
        // a -> ff D only; b -> ff D and logic; y = ff Q; z = a xor b (combinational).
        let json = r#"{"modules": {"top": {
            "ports": {
                "clock": {"direction": "input", "bits": [2]},
                "a": {"direction": "input", "bits": [3, 4]},
                "b": {"direction": "input", "bits": [5]},
                "y": {"direction": "output", "bits": [6, 7, "0"]},
                "z": {"direction": "output", "bits": [8]}
            },
            "cells": {
                "r": {"type": "$dffe", "port_directions": {"CLK": "input", "D": "input",
                      "EN": "input", "Q": "output"},
                      "connections": {"CLK": [2], "D": [3, 5], "EN": [9], "Q": [6, 7]}},
                "x": {"type": "$xor", "port_directions": {"A": "input", "B": "input",
                      "Y": "output"},
                      "connections": {"A": [4], "B": [5], "Y": [8]}}
            }
        }}}"#;
        let a = analyse_dut(json).unwrap();
        let bits = |v: &[(&str, usize)]| -> BTreeSet<PortBit> {
            v.iter().map(|(n, b)| (n.to_string(), *b)).collect()
        };
        assert_eq!(a.direct_inputs, bits(&[("a", 0)]));
        assert_eq!(a.combinational_outputs, bits(&[("z", 0)]));
        assert!(analyse_dut("{}").is_err());
    }

    #[test]
    fn counts_output_registers_packed_with_their_lut() {
        let mut a = DutAnalysis::default();
        for b in 0..4 {
            a.combinational_outputs.insert(("q".into(), b));
        }
        let h = plan_harness_with(DUT, &a, 2).unwrap();
        // q[0]: LUT only to the port (packed); q[1]: LUT also inside (not); q[2]: flip-flop
        // (not); q[3]: the same net as q[0] on two port bits (not).
        let json = r#"{"modules": {"top": {
            "ports": {
                "q": {"direction": "output", "bits": [10, 11, 12, 10, 13, 14, 15, 16]},
                "wide": {"direction": "output", "bits": []}
            },
            "cells": {
                "l0": {"type": "SB_LUT4", "port_directions": {"I0": "input", "O": "output"},
                       "connections": {"I0": [20], "O": [10]}},
                "l1": {"type": "SB_LUT4", "port_directions": {"I0": "input", "O": "output"},
                       "connections": {"I0": [11], "O": [11]}},
                "f": {"type": "SB_DFF", "port_directions": {"D": "input", "Q": "output"},
                      "connections": {"D": [20], "Q": [12]}}
            }
        }}}"#;
        assert_eq!(packed_output_registers(&h, json).unwrap(), 0);
        let json = json.replace("[10, 11, 12, 10,", "[10, 11, 12, 17,");
        assert_eq!(packed_output_registers(&h, &json).unwrap(), 1);
    }

    #[test]
    fn escapes_odd_names_and_handles_no_inputs() {
        let v = harness_verilog("module top(\\a.b , y); output \\a.b ; output [3:0] y; endmodule")
            .unwrap();
        assert!(v.contains(".\\a.b (harness_o0)"), "{v}");
        assert!(v.contains("harness_sr <= sin;"), "{v}");
        // 1 + 4 output bits + 1 shift bit = 6 -> 2 XORs -> 1 pin.
        assert!(v.contains("assign sout = harness_x1;"), "{v}");
    }

    #[test]
    fn rejects_inout() {
        let e = harness_verilog("module top(a); inout wire a; endmodule").unwrap_err();
        assert!(e.to_string().contains("inout"), "{e}");
    }
}
