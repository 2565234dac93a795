//! Synthesis harness: a wrapper `rnic_synth_top` around the DUT `top`, on the board's pins.
//!
//! A block synthesized alone has more ports than the package has pins (the whole core has
//! about 410 port bits, the cb132 package 95 pins). The harness gives every DUT port bit a
//! source or a sink while adding as few logic cells as it can, and keeps every timed path of
//! the DUT starting and ending at a flip-flop:
//!
//! * **Inputs.** The package's spare pins are bidirectional (`hio[k]`, output enable pin
//!   `hoe`): each one's input is registered in its iCE40 I/O tile (`SB_IO` `PIN_TYPE[1:0]` =
//!   00, `D_IN_0` on the board clock), a flip-flop that takes no logic cell. DUT input bits
//!   take these registers first: those that feed nothing but the `D` input of DUT flip-flops
//!   (found by [`analyse_dut`]) before the others. The next ones are looped back from
//!   flip-flops that are there anyway: the DUT's outputs driven straight from a DUT flip-flop,
//!   then the harness's output registers. That takes no logic cell, the DUT cannot see the
//!   loop (it is synthesized apart, see below), and every looped path runs through a
//!   flip-flop. Every other input bit comes from one long shift register fed by pin `sin`
//!   (one logic cell a bit). Either way, an input's paths through DUT logic start at a
//!   flip-flop, as they would from a register of the TOE / PCIe side of a real board. An
//!   input bit the DUT does not read at all (the whole core's `dma_rd_cpl_keep`,
//!   `dma_wr_done`) is tied to 0: it has no path to time.
//! * **Outputs.** A DUT output bit driven straight from a DUT flip-flop's `Q` is not
//!   registered again. An output bit that is not (a combinational output, listed by
//!   [`analyse_dut`]) is captured in a harness output register, so that its path ends at a
//!   flip-flop. nextpnr packs such a register into the logic cell of the DUT LUT driving it
//!   when that LUT drives nothing else; the flow's second yosys pass moves the others (found
//!   by [`unpacked_output_registers`] in the first pass's netlist) into the output registers
//!   of the first bidirectional pins' I/O tiles, which take no logic cell
//!   ([`plan_harness_io`]). Every pin is a DDR output (`PIN_TYPE[5:2]` = 1000): besides its
//!   rising-edge register (`D_OUT_0`) it has a falling-edge one (`D_OUT_1`), which takes the
//!   `Q` of one harness output register as it is ([`Harness::ddr_outputs`]): a flip-flop, so
//!   that this harness-only path is a clock-to-out and a route (nextpnr 0.4 reports it with
//!   the other I/O-tile paths as `<async>`, which the flow's Fmax includes at a full period:
//!   [`crate::report::NextpnrFigures::io_path_ns`]). The remaining bits (and the last
//!   shift-register bit, so that `sin` matters even to a DUT without inputs) are XOR-folded
//!   into `sout` and the other pins' rising-edge registers: a pin takes one bit, or a 4-input
//!   XOR (one LUT) of bits or of other XORs (a full-cycle path from flip-flops).
//! * `clock` is the board clock pin `clk`.
//!
//! Every DUT input and output therefore matters to some pin. The flow ([`crate::synthesize`])
//! keeps the boundary between harness and DUT (`keep_hierarchy` on `top`): yosys cannot
//! propagate a constant output into the harness, merge two identical outputs, or cancel them in
//! the XOR tree, so nothing of the DUT is optimised away and the harness cost is fixed.
//!
//! Harness cost ([`Harness::logic_cells`]): one logic cell per shift-register bit, per output
//! register and per fold LUT, less the output registers that nextpnr packs into the cell of
//! the DUT LUT that drives them ([`packed_output_registers`]). The I/O-tile registers cost
//! none: each bidirectional pin saves a shift-register bit, an unpackable output register or a
//! share of the fold, and three fold bits (a fold LUT) with its falling-edge register; a
//! looped-back input saves a shift-register bit. On the cb132 (92 spare pins: `hoe` and 91
//! `hio`) the whole core's 172 input bits are 91 pin registers, 76 looped back and 5 unread
//! (no shift register but its one bit), its 61 output registers that could not pack are I/O
//! registers and 91 others go to falling-edge registers: the harness went from about 262
//! logic cells to about 20 (`docs/decisions.md`, "Sixteenth session", "Seventeenth
//! session"). Without an analysis ([`plan_harness`]) the harness is conservative: only `sin`
//! and `sout`, every input bit from the shift register, every output bit registered.
//!
//! The price: the I/O tiles are on the die's edge, so the logic a pin's register feeds or is
//! fed by is pulled towards it (measured with the input registers alone: the composed receive
//! path 4 256 -> 4 168 cells, Fmax at nextpnr seeds default / 2 / 3 90.7 / 98.2 / 92.5 ->
//! 86.2 / 86.5 / 87.1 MHz). A board's real inputs and outputs (a MAC's, a PCIe core's) are at
//! the edge too.

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
    /// Input bits the DUT does not read at all (a subset of `direct_inputs`): the harness
    /// ties them to 0 instead of spending a pin or a shift-register bit on them.
    pub unused_inputs: BTreeSet<PortBit>,
    /// Output bits not driven straight from a DUT flip-flop's `Q` (nor constant).
    pub combinational_outputs: BTreeSet<PortBit>,
    /// Output bits driven straight from a DUT flip-flop's `Q`.
    pub flip_flop_outputs: BTreeSet<PortBit>,
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
            unused_inputs: BTreeSet::new(),
            combinational_outputs,
            flip_flop_outputs: BTreeSet::new(),
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
    let mut d_use = BTreeSet::new();
    for cell in cells.values() {
        let ty = cell["type"].as_str().unwrap_or("");
        let ff = is_flip_flop(ty);
        let conns = cell["connections"].as_object().cloned().unwrap_or_default();
        for (port, conn) in &conns {
            let dir = cell["port_directions"][port].as_str().unwrap_or("input");
            for b in bits(conn).iter().filter_map(Value::as_u64) {
                if ff && port == "Q" {
                    q_bits.insert(b);
                } else if ff && port == "D" {
                    d_use.insert(b);
                } else if dir != "output" {
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
                    if !d_use.contains(&n) {
                        a.unused_inputs.insert((name.clone(), i));
                    }
                }
                (Some("output"), Some(n)) if !q_bits.contains(&n) => {
                    a.combinational_outputs.insert((name.clone(), i));
                }
                (Some("output"), Some(_)) => {
                    a.flip_flop_outputs.insert((name.clone(), i));
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
    Ok(h.registered_outputs.len() - unpacked_output_registers(h, netlist_json)?.len())
}

/// The harness's output registers that nextpnr cannot pack with a DUT LUT (the others of
/// [`packed_output_registers`]): each takes a logic cell of its own. The flow moves them into
/// I/O-tile output registers ([`plan_harness_io`]).
pub fn unpacked_output_registers(h: &Harness, netlist_json: &str) -> Result<Vec<PortBit>> {
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
        .filter(|(name, bit)| {
            let b = ports
                .get(name)
                .and_then(|p| p["bits"].get(*bit))
                .and_then(Value::as_u64);
            !b.is_some_and(|b| lut_driven.contains(&b) && loads.get(&b) == Some(&1))
        })
        .cloned()
        .collect())
}

/// Where one DUT input bit comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum InputSource {
    /// Bit `k` of the shift register.
    Shift(usize),
    /// The input register of bidirectional pin `hio[k]`.
    Pin(usize),
    /// Constant 0: the DUT does not read the bit ([`DutAnalysis::unused_inputs`]).
    Zero,
    /// A DUT output bit driven straight from a DUT flip-flop
    /// ([`DutAnalysis::flip_flop_outputs`]), looped back.
    Output(PortBit),
    /// Harness output register `k` (of a combinational DUT output), looped back.
    OutputRegister(usize),
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
    /// DUT input bits tied to 0 because the DUT does not read them.
    pub unused_input_bits: usize,
    /// DUT input bits driven by a flip-flop of a DUT output: the DUT's own output flip-flop
    /// ([`InputSource::Output`]) or a harness output register ([`InputSource::OutputRegister`]).
    pub looped_inputs: usize,
    /// DUT output bits.
    pub output_bits: usize,
    /// Source of every input bit, by port name (index = bit).
    pub input_sources: BTreeMap<String, Vec<InputSource>>,
    /// DUT input bits driven from a pin's input register (`hio[k]`, an iCE40 I/O-tile
    /// flip-flop: no logic cell).
    pub input_pins: usize,
    /// Bidirectional pins `hio` (0, or at least 2; with them the pin `hoe`, their output
    /// enable).
    pub bidir_pins: usize,
    /// Length of the input shift register (at least 1).
    pub shift_register_bits: usize,
    /// Output bits captured in a harness output register (the combinational outputs).
    pub registered_outputs: Vec<PortBit>,
    /// Combinational output bits registered in the I/O tile of a bidirectional pin
    /// (`hio[k]` for the k-th, `PIN_TYPE[5:2]` = 1001), not in a logic cell.
    pub io_registered_outputs: Vec<PortBit>,
    /// Harness output registers (the first of `registered_outputs`) whose `Q` goes, unfolded,
    /// to the falling-edge output register of a bidirectional pin (`hio[k]`'s `D_OUT_1`,
    /// `PIN_TYPE[5:2]` = 1000, DDR): one per pin at most.
    pub ddr_outputs: usize,
    /// Pins of the XOR fold: `sout` and the outputs of the pins after the I/O-registered ones.
    pub output_pins: usize,
}

impl Harness {
    /// Output-register bits (one per registered output).
    pub fn output_register_bits(&self) -> usize {
        self.registered_outputs.len()
    }

    /// Bits XOR-folded into the output pins (every output bit not registered in an I/O tile
    /// nor sent to a pin's falling-edge register, and the last shift bit).
    pub fn fold_bits(&self) -> usize {
        self.output_bits - self.io_registered_outputs.len() - self.ddr_outputs + 1
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

    /// Pins the harness uses besides `clk`: `sin`, `sout`, and `hoe` with the `hio` pins.
    pub fn pins(&self) -> usize {
        2 + if self.bidir_pins > 0 {
            1 + self.bidir_pins
        } else {
            0
        }
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
    plan_harness_io(dut_verilog, analysis, pins, &[])
}

/// [`plan_harness_with`], with the combinational outputs `io_outputs` (those whose harness
/// register would not pack with a DUT LUT: [`unpacked_output_registers`]) registered in the
/// I/O tiles of the first bidirectional pins instead, as many as there are pins but one (the
/// fold keeps `sout` and at least one pin).
pub fn plan_harness_io(
    dut_verilog: &str,
    analysis: &DutAnalysis,
    pins: usize,
    io_outputs: &[PortBit],
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
    // Beyond `sin` and `sout`: one pin `hoe` (the bidirectional pins' output enable) and the
    // bidirectional pins `hio`, when there are at least two.
    let bidir_pins = if pins >= 5 { pins - 3 } else { 0 };
    let io_registered_outputs: Vec<PortBit> = io_outputs
        .iter()
        .filter(|pb| analysis.combinational_outputs.contains(*pb))
        .take(bidir_pins.saturating_sub(1))
        .cloned()
        .collect();
    let io_set: BTreeSet<&PortBit> = io_registered_outputs.iter().collect();
    // Registered pin inputs go to the direct inputs first, then to the others in port order.
    let mut direct_first: Vec<PortBit> = Vec::new();
    let mut others: Vec<PortBit> = Vec::new();
    for p in &ports {
        if p.direction == Direction::Input && !(p.name == DUT_CLOCK && p.width == 1) {
            for b in 0..p.width {
                let pb = (p.name.clone(), b);
                if analysis.unused_inputs.contains(&pb) {
                    continue;
                }
                if analysis.direct_inputs.contains(&pb) {
                    direct_first.push(pb);
                } else {
                    others.push(pb);
                }
            }
        }
    }
    direct_first.extend(others);
    let from_pin: BTreeMap<PortBit, usize> = direct_first
        .into_iter()
        .take(bidir_pins)
        .enumerate()
        .map(|(k, pb)| (pb, k))
        .collect();
    let mut registered_outputs = Vec::new();
    let mut loop_sources: VecDeque<InputSource> = VecDeque::new();
    for p in ports.iter().filter(|p| p.direction == Direction::Output) {
        for b in 0..p.width {
            let pb = (p.name.clone(), b);
            if analysis.combinational_outputs.contains(&pb) && !io_set.contains(&pb) {
                registered_outputs.push(pb);
            } else if analysis.flip_flop_outputs.contains(&pb) {
                loop_sources.push_back(InputSource::Output(pb));
            }
        }
    }
    loop_sources.extend((0..registered_outputs.len()).map(InputSource::OutputRegister));
    if bidir_pins == 0 {
        // The conservative harness (no pins beyond `sin` / `sout`) loops nothing back.
        loop_sources.clear();
    }
    let mut input_sources = BTreeMap::new();
    let mut shift = 0;
    for p in &ports {
        if p.direction == Direction::Input && !(p.name == DUT_CLOCK && p.width == 1) {
            let mut v = Vec::with_capacity(p.width);
            for b in 0..p.width {
                let pb = (p.name.clone(), b);
                match from_pin.get(&pb) {
                    Some(&k) => v.push(InputSource::Pin(k)),
                    None if analysis.unused_inputs.contains(&pb) => v.push(InputSource::Zero),
                    None => match loop_sources.pop_front() {
                        Some(src) => v.push(src),
                        None => {
                            v.push(InputSource::Shift(shift));
                            shift += 1;
                        }
                    },
                }
            }
            input_sources.insert(p.name.clone(), v);
        }
    }
    let shift_register_bits = shift.max(1);
    // Each bidirectional pin's falling-edge output register takes one harness output register.
    let ddr_outputs = bidir_pins.min(registered_outputs.len());
    // `sout` and the bidirectional pins not taken by an I/O-registered output, at most one per
    // folded bit (the other output bits and the last shift bit).
    let m = io_registered_outputs.len();
    let output_pins = (bidir_pins - m + 1).min(output_bits - m - ddr_outputs + 1);
    Ok(Harness {
        ports,
        has_clock,
        input_bits,
        unused_input_bits: count_sources(&input_sources, |s| *s == InputSource::Zero),
        looped_inputs: count_sources(&input_sources, |s| {
            matches!(s, InputSource::Output(_) | InputSource::OutputRegister(_))
        }),
        output_bits,
        input_sources,
        input_pins: from_pin.len(),
        bidir_pins,
        shift_register_bits,
        registered_outputs,
        io_registered_outputs,
        ddr_outputs,
        output_pins,
    })
}

/// How many of the input bits' `sources` satisfy `f`.
fn count_sources(
    sources: &BTreeMap<String, Vec<InputSource>>,
    f: impl Fn(&InputSource) -> bool,
) -> usize {
    sources.values().flatten().filter(|s| f(s)).count()
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

/// The signal that drives fold pin `k` of the harness (`sout`, then the outputs of the
/// bidirectional pins after the I/O-registered outputs).
fn output_pin(h: &Harness, k: usize) -> String {
    match k {
        0 => "sout".into(),
        _ => format!("harness_pin_out[{}]", h.io_registered_outputs.len() + k - 1),
    }
}

/// Pin constraints of the harness's pins besides `clk`, `sin` and `sout` (which the board's
/// constraint file places), on `spare` pins of the package in order: `hoe`, then `hio[k]`.
pub fn harness_pcf(h: &Harness, spare: &[&str]) -> Result<String> {
    let mut names: Vec<String> = Vec::new();
    if h.bidir_pins > 0 {
        names.push("hoe".into());
        names.extend((0..h.bidir_pins).map(|k| format!("hio[{k}]")));
    }
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
        "// DUT `top`: {} input bits ({} from pin input registers, {} from flip-flops of outputs, \
         {} unread and tied to 0, the others from a shift register fed by `sin`), {} output bits \
         ({} registered) XOR-folded into {} pins.",
        h.input_bits,
        h.input_pins,
        h.looped_inputs,
        h.unused_input_bits,
        h.output_bits,
        h.output_register_bits(),
        h.output_pins
    ));
    line("`default_nettype none".into());
    let mut header = vec!["clk", "sin", "sout"];
    if h.bidir_pins > 0 {
        header.extend(["hoe", "hio"]);
    }
    line(format!("module {HARNESS_TOP}({});", header.join(", ")));
    line("    input wire clk;".into());
    line("    input wire sin;".into());
    line("    output wire sout;".into());
    let n = h.bidir_pins;
    if n > 0 {
        line("    input wire hoe;".into());
        line(format!("    inout wire [{}:0] hio;", n - 1));
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
    if n > 0 {
        // Input registered in the I/O tile (PIN_TYPE[1:0] = 00, D_IN_0), output tristate
        // without a register (PIN_TYPE[5:2] = 1010), enabled by `hoe`.
        line(String::new());
        line(format!("    wire [{}:0] harness_pin_in;", n - 1));
        line(format!("    wire [{}:0] harness_pin_out;", n - 1));
        let ddr = h.ddr_outputs > 0;
        if ddr {
            line(format!("    wire [{}:0] harness_pin_out1;", n - 1));
        }
        line("    genvar harness_k;".into());
        // With falling-edge outputs every pin is a DDR output (PIN_TYPE[5:2] = 1000): `D_OUT_0`
        // registered on the rising edge, `D_OUT_1` on the falling edge.
        let ddr_out = if ddr {
            " .D_OUT_1(harness_pin_out1[harness_k]),"
        } else {
            ""
        };
        let m = h.io_registered_outputs.len();
        if m > 0 {
            // The same with the output registered in the I/O tile (PIN_TYPE[5:2] = 1001).
            let pt = if ddr { "1000" } else { "1001" };
            line(format!(
                "    generate for (harness_k = 0; harness_k < {m}; harness_k = harness_k + 1) \
                 begin : harness_ior"
            ));
            line(format!(
                "        SB_IO #(.PIN_TYPE(6'b{pt}_00)) io(.PACKAGE_PIN(hio[harness_k]), \
                 .OUTPUT_ENABLE(hoe), .D_OUT_0(harness_pin_out[harness_k]),{ddr_out} \
                 .OUTPUT_CLK(clk), .INPUT_CLK(clk), .D_IN_0(harness_pin_in[harness_k]));"
            ));
            line("    end endgenerate".into());
        }
        line(format!(
            "    generate for (harness_k = {m}; harness_k < {n}; harness_k = harness_k + 1) \
             begin : harness_io"
        ));
        if ddr {
            line(format!(
                "        SB_IO #(.PIN_TYPE(6'b1000_00)) io(.PACKAGE_PIN(hio[harness_k]), \
                 .OUTPUT_ENABLE(hoe), .D_OUT_0(harness_pin_out[harness_k]),{ddr_out} \
                 .OUTPUT_CLK(clk), .INPUT_CLK(clk), .D_IN_0(harness_pin_in[harness_k]));"
            ));
        } else {
            line(
                "        SB_IO #(.PIN_TYPE(6'b1010_00)) io(.PACKAGE_PIN(hio[harness_k]), \
                 .OUTPUT_ENABLE(hoe), .D_OUT_0(harness_pin_out[harness_k]), .INPUT_CLK(clk), \
                 .D_IN_0(harness_pin_in[harness_k]));"
                    .into(),
            );
        }
        line("    end endgenerate".into());
    }
    line(String::new());
    // DUT output wires, one per output port.
    let outputs: Vec<(usize, &Port)> = h
        .ports
        .iter()
        .enumerate()
        .filter(|(_, p)| p.direction == Direction::Output)
        .collect();
    let output_index: BTreeMap<&str, usize> =
        outputs.iter().map(|(i, p)| (p.name.as_str(), *i)).collect();
    // The output registers are declared before the DUT: looped-back inputs read them.
    if !h.registered_outputs.is_empty() {
        line(format!(
            "    reg [{}:0] harness_oreg;",
            h.registered_outputs.len() - 1
        ));
    }
    for (i, p) in &outputs {
        line(format!(
            "    wire [{}:0] harness_o{i}; // {}",
            p.width - 1,
            p.name
        ));
    }
    // Instance with named connections.
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
                        InputSource::Pin(k) => format!("harness_pin_in[{k}]"),
                        InputSource::Zero => "1'b0".into(),
                        InputSource::Output((ref name, b)) => {
                            format!("harness_o{}[{b}]", output_index[name.as_str()])
                        }
                        InputSource::OutputRegister(k) => format!("harness_oreg[{k}]"),
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
    let io_registered: BTreeMap<&PortBit, usize> = h
        .io_registered_outputs
        .iter()
        .enumerate()
        .map(|(k, pb)| (pb, k))
        .collect();
    let mut fold: VecDeque<String> = VecDeque::new();
    let mut reg_inputs = Vec::new();
    for (i, p) in &outputs {
        for b in 0..p.width {
            let pb = (p.name.clone(), b);
            if let Some(&k) = io_registered.get(&pb) {
                line(format!(
                    "    assign harness_pin_out[{k}] = harness_o{i}[{b}];"
                ));
                continue;
            }
            match registered.get(&pb) {
                Some(&k) => {
                    reg_inputs.push(format!("harness_o{i}[{b}]"));
                    // The first registers go to the pins' falling-edge registers, unfolded.
                    if k >= h.ddr_outputs {
                        fold.push_back(format!("harness_oreg[{k}]"));
                    }
                }
                None => fold.push_back(format!("harness_o{i}[{b}]")),
            }
        }
    }
    fold.push_back(format!("harness_sr[{}]", sr - 1));
    if !reg_inputs.is_empty() {
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
    if h.ddr_outputs > 0 {
        for k in 0..h.bidir_pins {
            if k < h.ddr_outputs {
                line(format!(
                    "    assign harness_pin_out1[{k}] = harness_oreg[{k}];"
                ));
            } else {
                line(format!("    assign harness_pin_out1[{k}] = 1'b0;"));
            }
        }
    }
    // Bidirectional pins beyond the fold (a DUT with few outputs) drive 0.
    for k in h.output_pins.max(1)..=h.bidir_pins - h.io_registered_outputs.len() {
        line(format!("    assign {} = 1'b0;", output_pin(h, k)));
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
        // q[1] comes straight from a DUT flip-flop.
        a.flip_flop_outputs.insert(("q".into(), 1));
        // sin, sout, hoe and two bidirectional pins: two direct inputs from the pins' input
        // registers, three from flip-flops of outputs (q[1], the two output registers), four
        // from the shift register; the two output registers on the pins' falling-edge
        // registers; the fold (102 other output bits and the shift bit) on `sout` and the two
        // pins.
        let h = plan_harness_with(DUT, &a, 5).unwrap();
        assert_eq!((h.bidir_pins, h.input_pins, h.pins()), (2, 2, 5));
        assert_eq!((h.looped_inputs, h.shift_register_bits), (3, 4));
        assert_eq!(h.output_register_bits(), 2);
        assert_eq!((h.ddr_outputs, h.fold_bits(), h.output_pins), (2, 103, 3));
        assert_eq!(h.fold_luts(), 34);
        assert_eq!(
            h.input_sources["s$data"],
            vec![
                InputSource::Pin(0),
                InputSource::Pin(1),
                InputSource::Output(("q".into(), 1)),
                InputSource::OutputRegister(0),
                InputSource::OutputRegister(1),
                InputSource::Shift(0),
                InputSource::Shift(1),
                InputSource::Shift(2),
            ]
        );
        let v = render_harness(&h);
        assert!(
            v.contains("module rnic_synth_top(clk, sin, sout, hoe, hio);"),
            "{v}"
        );
        assert!(v.contains("input wire hoe;"), "{v}");
        assert!(v.contains("inout wire [1:0] hio;"), "{v}");
        assert!(
            v.contains(
                "SB_IO #(.PIN_TYPE(6'b1000_00)) io(.PACKAGE_PIN(hio[harness_k]), \
                 .OUTPUT_ENABLE(hoe), .D_OUT_0(harness_pin_out[harness_k]), \
                 .D_OUT_1(harness_pin_out1[harness_k]), .OUTPUT_CLK(clk), .INPUT_CLK(clk), \
                 .D_IN_0(harness_pin_in[harness_k]));"
            ),
            "{v}"
        );
        assert!(
            v.contains(
                ".s$data({harness_sr[2], harness_sr[1], harness_sr[0], harness_oreg[1], \
                 harness_oreg[0], harness_o3[1], harness_pin_in[1], harness_pin_in[0]})"
            ),
            "{v}"
        );
        assert!(v.contains(".s$valid(harness_sr[3])"), "{v}");
        // The output registers are declared before the DUT instance that reads them.
        assert!(
            v.find("reg [1:0] harness_oreg;").unwrap() < v.find("top dut(").unwrap(),
            "{v}"
        );
        assert!(
            v.contains("harness_oreg <= {harness_o4[0], harness_o3[7]};"),
            "{v}"
        );
        assert!(v.contains("harness_o3[0] ^ harness_o3[1]"), "{v}");
        assert!(
            v.contains("harness_o3[4] ^ harness_o3[5] ^ harness_o3[6] ^ harness_o4[1];"),
            "{v}"
        );
        assert!(!v.contains("^ harness_oreg"), "{v}");
        assert!(
            v.contains("assign harness_pin_out1[0] = harness_oreg[0];"),
            "{v}"
        );
        assert!(
            v.contains("assign harness_pin_out1[1] = harness_oreg[1];"),
            "{v}"
        );
        assert!(v.contains("assign harness_pin_out[1] = "), "{v}");
        let pcf = harness_pcf(&h, &["A", "B", "C"]).unwrap();
        assert!(
            pcf.contains("set_io hoe A\nset_io hio[0] B\nset_io hio[1] C\n"),
            "{pcf}"
        );
        // Many pins: all 9 inputs from pins (direct ones first), 2 output registers on falling
        // edges, 102 + 1 bits on 103 output pins, no XOR; the pins beyond the fold drive 0.
        let h = plan_harness_with(DUT, &a, 106).unwrap();
        assert_eq!((h.bidir_pins, h.input_pins, h.output_pins), (103, 9, 103));
        assert_eq!((h.shift_register_bits, h.fold_luts()), (1, 0));
        assert_eq!(h.input_sources["s$valid"], vec![InputSource::Pin(8)]);
        assert_eq!(h.input_sources["s$data"][4], InputSource::Pin(4));
        assert!(harness_pcf(&h, &["X"; 10]).is_err());
        let v = render_harness(&h);
        assert!(v.contains("inout wire [102:0] hio;"), "{v}");
        assert!(v.contains("assign harness_pin_out[102] = 1'b0;"), "{v}");
        assert!(v.contains("assign harness_pin_out1[102] = 1'b0;"), "{v}");
        assert!(!v.contains("assign harness_pin_out[103]"), "{v}");
        // An input bit the DUT does not read takes neither a pin nor a shift-register bit.
        let mut u = a.clone();
        u.direct_inputs.insert(("s$valid".into(), 0));
        u.unused_inputs.insert(("s$valid".into(), 0));
        u.direct_inputs.insert(("s$data".into(), 7));
        u.unused_inputs.insert(("s$data".into(), 7));
        let h = plan_harness_with(DUT, &u, 5).unwrap();
        assert_eq!(
            (h.input_pins, h.looped_inputs, h.shift_register_bits),
            (2, 3, 2)
        );
        assert_eq!(h.unused_input_bits, 2);
        assert_eq!(h.input_sources["s$valid"], vec![InputSource::Zero]);
        assert_eq!(h.input_sources["s$data"][7], InputSource::Zero);
        let v = render_harness(&h);
        assert!(v.contains(".s$valid(1'b0)"), "{v}");
        assert!(v.contains(".s$data({1'b0, harness_sr[1], "), "{v}");
        assert!(v.contains("2 unread and tied to 0"), "{v}");
        // Three or four pins: no bidirectional pins (`hoe` and one pin would gain nothing).
        assert_eq!(plan_harness_with(DUT, &a, 4).unwrap().bidir_pins, 0);
        assert!(plan_harness_with(DUT, &a, 1).is_err());
    }

    #[test]
    fn unpacked_output_registers_move_into_io_tiles() {
        let mut a = DutAnalysis::default();
        for b in 0..8 {
            a.combinational_outputs.insert(("q".into(), b));
        }
        // q[2] and q[5] would not pack; wide[0] is not combinational (never I/O-registered).
        let io: Vec<PortBit> = vec![("q".into(), 2), ("wide".into(), 0), ("q".into(), 5)];
        let h = plan_harness_io(DUT, &a, 10, &io).unwrap();
        assert_eq!(h.bidir_pins, 7);
        assert_eq!(
            h.io_registered_outputs,
            vec![("q".to_string(), 2), ("q".to_string(), 5)]
        );
        assert_eq!(h.output_register_bits(), 6);
        // 104 outputs - 2 in I/O registers - 6 on falling edges + the shift bit on `sout` and
        // the 5 pins left: (97 - 6) / 3 XORs.
        assert_eq!(h.ddr_outputs, 6);
        assert_eq!((h.fold_bits(), h.output_pins, h.fold_luts()), (97, 6, 31));
        let v = render_harness(&h);
        assert!(
            v.contains("harness_k < 2; harness_k = harness_k + 1) begin : harness_ior"),
            "{v}"
        );
        assert!(v.contains("SB_IO #(.PIN_TYPE(6'b1000_00))"), "{v}");
        assert!(!v.contains("SB_IO #(.PIN_TYPE(6'b1001_00))"), "{v}");
        assert!(v.contains(".OUTPUT_CLK(clk)"), "{v}");
        assert!(v.contains("for (harness_k = 2; harness_k < 7;"), "{v}");
        assert!(
            v.contains("assign harness_pin_out[0] = harness_o3[2];"),
            "{v}"
        );
        assert!(
            v.contains("assign harness_pin_out[1] = harness_o3[5];"),
            "{v}"
        );
        assert!(!v.contains("harness_oreg[6]"), "{v}");
        assert!(v.contains("assign harness_pin_out[6] = "), "{v}");
        assert!(
            !v.contains("harness_o3[2] ^") && !v.contains("^ harness_o3[2]"),
            "{v}"
        );
        // At most all pins but one: the fold keeps `sout` and one pin.
        let many: Vec<PortBit> = (0..8).map(|b| ("q".to_string(), b)).collect();
        let h = plan_harness_io(DUT, &a, 6, &many).unwrap();
        assert_eq!(
            (h.bidir_pins, h.io_registered_outputs.len(), h.output_pins),
            (3, 2, 2)
        );
    }

    #[test]
    fn analyses_a_yosys_netlist() {
        // a -> ff D only; b -> ff D and logic; y = ff Q; z = a xor b (combinational).
        let json = r#"{"modules": {"top": {
            "ports": {
                "clock": {"direction": "input", "bits": [2]},
                "a": {"direction": "input", "bits": [3, 4]},
                "b": {"direction": "input", "bits": [5]},
                "c": {"direction": "input", "bits": [10]},
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
        // c is read by nothing: direct (vacuously) and unused.
        assert_eq!(a.direct_inputs, bits(&[("a", 0), ("c", 0)]));
        assert_eq!(a.unused_inputs, bits(&[("c", 0)]));
        // y[2] is a constant: neither combinational nor from a flip-flop.
        assert_eq!(a.flip_flop_outputs, bits(&[("y", 0), ("y", 1)]));
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
