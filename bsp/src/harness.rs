//! Synthesis harness: a wrapper `rnic_synth_top` around the DUT `top` with three pins.
//!
//! A block synthesized alone has more ports than the package has pins (a 64-bit datapath has
//! about 110), and paths through I/O pads would distort its Fmax. The harness therefore
//!
//! * drives every DUT input except `clock` from one long shift register fed by pin `sin`,
//! * registers every DUT output bit,
//! * XOR-folds the registered bits into pin `sout` through a pipelined tree (4 bits per LUT,
//!   one register per level, so no harness path is longer than one LUT),
//! * clocks the DUT's `clock` input from the board clock pin `clk`.
//!
//! Every DUT input and output therefore matters to `sout`, and every path through the DUT
//! starts and ends at a flip-flop. The last shift-register bit is also folded in, so `sin` is
//! used even by a DUT without inputs. The flow ([`crate::synthesize`]) keeps the boundary
//! between harness and DUT (`keep_hierarchy` on `top`): yosys cannot propagate a constant
//! output into the harness, merge the registers of two identical outputs, or cancel them in
//! the XOR tree, so nothing of the DUT is optimised away and the harness cost is fixed.
//!
//! Harness cost: one flip-flop per shift-register bit, per output-register bit and per fold
//! register; every harness LUT (the XORs) drives a harness flip-flop, so the harness occupies
//! one iCE40 logic cell per flip-flop ([`Harness::logic_cells`]), unless nextpnr packs an
//! output register into the cell of the DUT LUT that drives it.

use anyhow::{bail, Result};
use serde::Serialize;

use crate::ports::{parse_ports, verilog_identifier, Direction, Port};

/// Name of the generated wrapper module.
pub const HARNESS_TOP: &str = "rnic_synth_top";

/// Name of the DUT's clock input, tied to the board clock.
pub const DUT_CLOCK: &str = "clock";

/// Shape of the generated harness.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Harness {
    /// DUT ports, in header order.
    pub ports: Vec<Port>,
    /// Whether the DUT has a 1-bit `clock` input (tied to the board clock).
    pub has_clock: bool,
    /// DUT input bits driven from the shift register (all inputs except `clock`).
    pub input_bits: usize,
    /// DUT output bits captured in output registers.
    pub output_bits: usize,
    /// Length of the input shift register (`max(input_bits, 1)`).
    pub shift_register_bits: usize,
    /// Output-register bits (`output_bits + 1`: the last shift-register bit is folded too).
    pub output_register_bits: usize,
    /// Registers in the XOR-fold tree, including the `sout` register.
    pub fold_registers: usize,
}

impl Harness {
    /// All flip-flops the harness adds.
    pub fn flip_flops(&self) -> usize {
        self.shift_register_bits + self.output_register_bits + self.fold_registers
    }

    /// Logic cells the harness occupies: one per harness flip-flop (for `sout`, whose
    /// flip-flop nextpnr packs into the output pad, the cell of its XOR LUT). See the module
    /// documentation.
    pub fn logic_cells(&self) -> usize {
        self.flip_flops()
    }
}

/// Analyses the DUT and returns the harness shape (no Verilog).
pub fn plan_harness(dut_verilog: &str) -> Result<Harness> {
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
    let shift_register_bits = input_bits.max(1);
    let output_register_bits = output_bits + 1;
    let fold_registers = fold_levels(output_register_bits).iter().sum();
    Ok(Harness {
        ports,
        has_clock,
        input_bits,
        output_bits,
        shift_register_bits,
        output_register_bits,
        fold_registers,
    })
}

/// Widths of the registered levels of the XOR tree that folds `bits` bits, 4 per LUT, down to
/// one bit (the last level is the single `sout` register).
fn fold_levels(bits: usize) -> Vec<usize> {
    let mut levels = Vec::new();
    let mut width = bits;
    loop {
        width = width.div_ceil(4);
        levels.push(width);
        if width == 1 {
            return levels;
        }
    }
}

/// Verilog of the harness module `rnic_synth_top` (ports `clk`, `sin`, `sout`) that
/// instantiates the DUT `top` found in `dut_verilog`. The result does not include the DUT.
pub fn harness_verilog(dut_verilog: &str) -> Result<String> {
    let h = plan_harness(dut_verilog)?;
    Ok(render_harness(&h))
}

/// Verilog of the harness planned by [`plan_harness`].
pub fn render_harness(h: &Harness) -> String {
    let mut v = String::new();
    let sr = h.shift_register_bits;
    let or = h.output_register_bits;
    let mut line = |s: String| {
        v.push_str(&s);
        v.push('\n');
    };
    line("// Synthesis harness generated by rnic-bsp: do not edit.".into());
    line(format!(
        "// DUT `top`: {} input bits from a shift register fed by `sin`, {} output bits \
         registered and XOR-folded into `sout`.",
        h.input_bits, h.output_bits
    ));
    line("`default_nettype none".into());
    line(format!("module {HARNESS_TOP}(clk, sin, sout);"));
    line("    input wire clk;".into());
    line("    input wire sin;".into());
    line("    output reg sout;".into());
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
    let mut conns = Vec::new();
    let mut sr_pos = 0;
    for (i, p) in h.ports.iter().enumerate() {
        let id = verilog_identifier(&p.name);
        let expr = match p.direction {
            Direction::Input if p.name == DUT_CLOCK && p.width == 1 => "clk".to_string(),
            Direction::Input => {
                let e = format!("harness_sr[{}:{}]", sr_pos + p.width - 1, sr_pos);
                sr_pos += p.width;
                e
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
    // Output registers: every DUT output bit plus the last shift-register bit.
    let mut parts: Vec<String> = outputs
        .iter()
        .rev()
        .map(|(i, _)| format!("harness_o{i}"))
        .collect();
    parts.push(format!("harness_sr[{}]", sr - 1));
    line(format!("    reg [{}:0] harness_oreg;", or - 1));
    line(format!(
        "    always @(posedge clk) harness_oreg <= {{{}}};",
        parts.join(", ")
    ));
    // Pipelined XOR-fold tree.
    let mut prev = "harness_oreg".to_string();
    let mut width = or;
    let levels = fold_levels(or);
    for (n, &w) in levels.iter().enumerate() {
        let last = n + 1 == levels.len();
        let name = if last {
            "sout".to_string()
        } else {
            let name = format!("harness_fold{}", n + 1);
            line(format!("    reg [{}:0] {name};", w - 1));
            name
        };
        line("    always @(posedge clk) begin".into());
        for k in 0..w {
            let lo = 4 * k;
            let hi = (lo + 3).min(width - 1);
            let target = if last {
                name.clone()
            } else {
                format!("{name}[{k}]")
            };
            let src = if width == 1 {
                prev.clone()
            } else if hi == lo {
                format!("{prev}[{lo}]")
            } else {
                format!("^{prev}[{hi}:{lo}]")
            };
            line(format!("        {target} <= {src};"));
        }
        line("    end".into());
        prev = name;
        width = w;
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
    fn plan_counts_bits() {
        let h = plan_harness(DUT).unwrap();
        assert!(h.has_clock);
        assert_eq!(h.input_bits, 9);
        assert_eq!(h.output_bits, 104);
        assert_eq!(h.shift_register_bits, 9);
        assert_eq!(h.output_register_bits, 105);
        // 105 -> 27 -> 7 -> 2 -> 1
        assert_eq!(fold_levels(105), vec![27, 7, 2, 1]);
        assert_eq!(h.fold_registers, 37);
        assert_eq!(h.flip_flops(), 9 + 105 + 37);
    }

    #[test]
    fn fold_levels_small() {
        assert_eq!(fold_levels(1), vec![1]);
        assert_eq!(fold_levels(4), vec![1]);
        assert_eq!(fold_levels(5), vec![2, 1]);
        assert_eq!(fold_levels(16), vec![4, 1]);
        assert_eq!(fold_levels(17), vec![5, 2, 1]);
    }

    #[test]
    fn renders_connections() {
        let v = harness_verilog(DUT).unwrap();
        assert!(v.contains("module rnic_synth_top(clk, sin, sout);"), "{v}");
        assert!(v.contains(".clock(clk)"), "{v}");
        assert!(v.contains(".s$data(harness_sr[7:0])"), "{v}");
        assert!(v.contains(".s$valid(harness_sr[8:8])"), "{v}");
        assert!(v.contains(".q(harness_o3)"), "{v}");
        assert!(v.contains(".wide(harness_o4)"), "{v}");
        assert!(v.contains("wire [95:0] harness_o4;"), "{v}");
        assert!(
            v.contains("harness_oreg <= {harness_o4, harness_o3, harness_sr[8]};"),
            "{v}"
        );
        assert!(v.contains("sout <= ^harness_fold3[1:0];"), "{v}");
        assert!(v.contains("harness_fold1[26] <= harness_oreg[104];"), "{v}");
    }

    #[test]
    fn escapes_odd_names_and_handles_no_inputs() {
        let v = harness_verilog("module top(\\a.b , y); output \\a.b ; output [3:0] y; endmodule")
            .unwrap();
        assert!(v.contains(".\\a.b (harness_o0)"), "{v}");
        assert!(v.contains("harness_sr <= sin;"), "{v}");
        // 4 output bits + 1 shift bit = 5 -> 2 -> 1
        assert!(v.contains("sout <= ^harness_fold1[1:0];"), "{v}");
    }

    #[test]
    fn rejects_inout() {
        let e = harness_verilog("module top(a); inout wire a; endmodule").unwrap_err();
        assert!(e.to_string().contains("inout"), "{e}");
    }
}
