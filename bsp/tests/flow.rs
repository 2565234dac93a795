//! End-to-end tests of the synthesis flow. They run the real tools (yosys, nextpnr-ice40,
//! icepack, verilator) and fail, not skip, when a tool is missing.

mod common;

use common::require_tools;
use std::path::{Path, PathBuf};

use rnic_bsp::{
    harness_verilog, lint_verilog, lint_verilog_top, parse_ports, plan_harness_with,
    render_harness, replace_with_seeds, synthesize, synthesize_within, Board, Direction,
    DutAnalysis, HARNESS_TOP, NEXTPNR_TIME_LIMIT,
};

/// An 8-bit registered adder, written like rust-hdl output (non-ANSI header, `$` in a name).
const ADDER: &str = "
module top(clock,a$x,b,sum);
    
    // Module arguments
    input wire  clock;
    input wire  [7:0] a$x;
    input wire  [7:0] b;
    output reg  [8:0] sum;
    
    always @(posedge clock) begin
        sum <= {1'b0, a$x} + {1'b0, b};
    end
endmodule // top
";

/// A combinational output (`y`) whose LUT also feeds a register inside: its harness register
/// could not share the LUT's logic cell, so the flow registers it in an I/O tile.
const SHARED_OUTPUT: &str = "
module top(clock,a,b,y,z);
    input wire  clock;
    input wire  [3:0] a;
    input wire  [3:0] b;
    output wire  [3:0] y;
    output reg  [3:0] z;
    assign y = a ^ b;
    always @(posedge clock) begin
        z <= z + y;
    end
endmodule // top
";

fn work_dir(name: &str) -> PathBuf {
    common::work_dir("rnic-bsp-flow", name)
}

#[test]
fn tools_are_installed() {
    require_tools();
}

#[test]
fn adder_ports() {
    let ports = parse_ports(ADDER).unwrap();
    let summary: Vec<(&str, Direction, usize)> = ports
        .iter()
        .map(|p| (p.name.as_str(), p.direction, p.width))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("clock", Direction::Input, 1),
            ("a$x", Direction::Input, 8),
            ("b", Direction::Input, 8),
            ("sum", Direction::Output, 9),
        ]
    );
}

#[test]
fn adder_synthesizes_on_alchitry_cu() {
    require_tools();
    let dir = work_dir("adder");
    let report = synthesize(ADDER, Board::AlchitryCu, &dir).unwrap_or_else(|e| panic!("{e:#}"));
    println!("{report}");
    assert_eq!(report.board, Board::AlchitryCu);
    assert_eq!(report.figures_source, "report.json");
    assert!(report.logic_cells_used > 0, "{report}");
    assert!(report.logic_cells_used < 7680, "{report}");
    assert_eq!(report.logic_cells_total, 7680);
    assert_eq!(report.bram_total, 32);
    // The adder's 16 inputs come from the input registers of 16 of the 91 bidirectional
    // pins (I/O tiles, no logic cell); the shift register is one bit. Its outputs are
    // flip-flops: not registered again; with the last shift bit, 10 bits on 10 pins, no XOR.
    assert_eq!(report.harness.bidir_pins, 91);
    assert_eq!(report.harness.input_pins, 16);
    assert_eq!(report.harness.shift_register_bits, 1);
    assert_eq!(report.harness.output_register_bits(), 0);
    assert_eq!(report.harness.output_pins, 10);
    assert_eq!(report.harness.fold_luts(), 0);
    assert_eq!(report.io_used, 95, "clk, sin, sout, hoe and 91 hio");
    // yosys kept harness and block apart: the harness occupies one cell per flip-flop (the
    // shift register's one bit).
    assert_eq!(report.harness_logic_cells, 1, "{report}");
    assert_eq!(
        report.dut_logic_cells + report.harness_logic_cells,
        report.logic_cells_used
    );
    let dut = report.dut_cells.expect("yosys statistics of module top");
    assert_eq!(dut.flip_flops, 9, "the 9-bit sum register: {dut:?}");
    assert!(dut.luts >= 8, "{dut:?}");
    assert!(report.fmax_mhz > 100.0, "{report}");
    assert_eq!(report.target_mhz, 100.0);
    assert!(report.timing_met);
    assert!(report.clock_net.starts_with("clk"), "{}", report.clock_net);
    assert!(report.bitstream.is_file());
    assert!(std::fs::metadata(&report.bitstream).unwrap().len() > 0);
    for log in ["yosys.log", "nextpnr.log", "icepack.log"] {
        assert!(dir.join(log).is_file(), "{log} kept in the work dir");
    }
    assert!(
        dir.join("out.sdf").is_file(),
        "nextpnr's delays kept for scripts/sdf_sta.py"
    );
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["logic_cells_used"], report.logic_cells_used);
}

#[test]
fn unpackable_output_registers_go_to_io_tiles() {
    require_tools();
    let dir = work_dir("shared-output");
    let report =
        synthesize(SHARED_OUTPUT, Board::AlchitryCu, &dir).unwrap_or_else(|e| panic!("{e:#}"));
    println!("{report}");
    let h = &report.harness;
    // Pass 1 registered y[3:0] in logic cells; none could pack (each LUT also feeds the
    // adder), so pass 2 put all four in I/O-tile output registers.
    let y: Vec<(String, usize)> = (0..4).map(|b| ("y".to_string(), b)).collect();
    assert_eq!(h.io_registered_outputs, y);
    assert_eq!(h.output_register_bits(), 0);
    assert_eq!((h.input_pins, h.shift_register_bits), (8, 1));
    let v = std::fs::read_to_string(dir.join("harness.v")).unwrap();
    assert!(v.contains("begin : harness_ior"), "{v}");
    // Only the shift register's bit is left of the harness in logic cells.
    assert_eq!(report.harness_logic_cells, 1, "{report}");
    assert!(report.timing_met, "{report}");
}

#[test]
fn other_seeds_place_the_same_netlist_again() {
    require_tools();
    let dir = work_dir("adder-seeds");
    let report = synthesize(ADDER, Board::AlchitryCu, &dir).unwrap_or_else(|e| panic!("{e:#}"));
    let fmax = replace_with_seeds(Board::AlchitryCu, &dir, &[2, 3], NEXTPNR_TIME_LIMIT)
        .unwrap_or_else(|e| panic!("{e:#}"));
    assert_eq!(fmax.iter().map(|f| f.0).collect::<Vec<_>>(), vec![2, 3]);
    for (seed, f) in &fmax {
        // An 8-bit adder closes far above the board clock whatever the placement.
        assert!(*f > 100.0, "seed {seed}: {f} MHz");
        assert!(dir.join(format!("nextpnr_seed{seed}.log")).is_file());
        assert!(!dir.join(format!("seed{seed}.asc")).exists(), "not kept");
    }
    // The default placement's bitstream is untouched.
    assert!(report.bitstream.is_file());
    // Without the netlist (no earlier synthesis) nextpnr fails, and the error names it.
    let empty = work_dir("no-netlist");
    std::fs::create_dir_all(&empty).unwrap();
    let _ = std::fs::remove_file(empty.join("out.json"));
    let err = replace_with_seeds(Board::AlchitryCu, &empty, &[2], NEXTPNR_TIME_LIMIT).unwrap_err();
    assert!(format!("{err:#}").contains("nextpnr-ice40"), "{err:#}");
}

#[test]
fn broken_verilog_fails_naming_yosys() {
    require_tools();
    let broken = ADDER.replace("{1'b0, b};", "{1'b0, b} +;");
    let dir = work_dir("broken");
    let err = synthesize(&broken, Board::AlchitryCu, &dir).unwrap_err();
    let msg = format!("{err:#}");
    assert!(msg.starts_with("yosys failed (exit status: "), "{msg}");
    // The analysis pre-pass is the first yosys run to read the DUT.
    assert!(msg.contains("yosys_analysis.log"), "{msg}");
    assert!(msg.contains("ERROR"), "the log tail is in the error: {msg}");
}

/// 256 words of 544 bits: 34 iCE40 block RAMs (16 bits wide each), two more than the HX8K has.
const TOO_MANY_RAMS: &str = "
module top(clock,we,addr,din,dout);
    input wire  clock;
    input wire  we;
    input wire  [7:0] addr;
    input wire  [543:0] din;
    output reg  [543:0] dout;
    reg [543:0] mem [0:255];
    always @(posedge clock) begin
        if (we) mem[addr] <= din;
        dout <= mem[addr];
    end
endmodule // top
";

#[test]
fn a_design_too_big_says_it_does_not_fit() {
    require_tools();
    let dir = work_dir("too-big");
    let err = synthesize(TOO_MANY_RAMS, Board::AlchitryCu, &dir).unwrap_err();
    let msg = format!("{err:#}");
    assert!(
        msg.starts_with("the design does not fit the alchitry-cu"),
        "{msg}"
    );
    assert!(msg.contains("block RAMs 34/32 (106 %)"), "{msg}");
    assert!(msg.contains("harness included (the harness: "), "{msg}");
    assert!(msg.contains("the block alone (yosys):"), "{msg}");
    assert!(msg.contains(" 34 block RAMs"), "{msg}");
    assert!(
        msg.contains("ERROR: Unable to place"),
        "nextpnr's own line: {msg}"
    );
}

/// nextpnr past its time limit is stopped, and the error says so (here before it placed
/// anything: the whole core's own run stops while routing and reports its placement, see the
/// unit test `a_run_stopped_at_its_limit_says_what_placement_gave`).
#[test]
fn nextpnr_past_its_limit_is_stopped() {
    require_tools();
    let dir = work_dir("nextpnr-limit");
    let err =
        synthesize_within(ADDER, Board::AlchitryCu, &dir, std::time::Duration::ZERO).unwrap_err();
    let msg = format!("{err:#}");
    assert!(
        msg.starts_with(
            "nextpnr-ice40 did not finish within 0 s and was stopped on the alchitry-cu"
        ),
        "{msg}"
    );
    assert!(msg.contains("nextpnr.log"), "{msg}");
    assert!(
        !dir.join("out.bin").exists(),
        "no bitstream from a stopped run"
    );
}

/// The part of the iCE40 `SB_IO` the harness's bidirectional pins use (registered input,
/// tristate output), for Verilator's lint (yosys has the real cell).
const SB_IO_MODEL: &str = "module SB_IO #(parameter [5:0] PIN_TYPE = 6'b000000) (
    inout wire PACKAGE_PIN,
    input wire OUTPUT_ENABLE,
    input wire D_OUT_0,
    input wire D_OUT_1,
    input wire OUTPUT_CLK,
    input wire INPUT_CLK,
    output reg D_IN_0
);
    reg q0, q1;
    always @(posedge OUTPUT_CLK) q0 <= D_OUT_0;
    always @(negedge OUTPUT_CLK) q1 <= D_OUT_1;
    assign PACKAGE_PIN = OUTPUT_ENABLE ? (OUTPUT_CLK ? q0 : q1) : 1'bz;
    always @(posedge INPUT_CLK) D_IN_0 <= PACKAGE_PIN;
endmodule
";

#[test]
fn adder_and_harness_pass_lint() {
    require_tools();
    lint_verilog(ADDER, &work_dir("lint-adder")).unwrap_or_else(|e| panic!("{e:#}"));
    // The harness itself is clean under the same policy.
    let both = format!("{ADDER}\n{}", harness_verilog(ADDER).unwrap());
    lint_verilog_top(&both, HARNESS_TOP, &work_dir("lint-harness"))
        .unwrap_or_else(|e| panic!("{e:#}"));
    // So is one with input pins, output registers and output pins.
    let mut analysis = DutAnalysis::default();
    for b in 0..8 {
        analysis.direct_inputs.insert(("a$x".into(), b));
    }
    analysis.combinational_outputs.insert(("sum".into(), 8));
    let h = plan_harness_with(ADDER, &analysis, 10).unwrap();
    assert_eq!((h.input_pins, h.output_pins, h.fold_luts()), (7, 8, 1));
    let both = format!("{ADDER}\n{SB_IO_MODEL}\n{}", render_harness(&h));
    lint_verilog_top(&both, HARNESS_TOP, &work_dir("lint-harness-pins"))
        .unwrap_or_else(|e| panic!("{e:#}"));
    let h = plan_harness_with(ADDER, &analysis, 40).unwrap();
    // sum[8]'s register on a pin's falling-edge register; the other 8 bits and the shift bit
    // on 9 pins.
    assert_eq!((h.input_pins, h.output_pins, h.fold_luts()), (16, 9, 0));
    assert_eq!(h.ddr_outputs, 1);
    let both = format!("{ADDER}\n{SB_IO_MODEL}\n{}", render_harness(&h));
    lint_verilog_top(&both, HARNESS_TOP, &work_dir("lint-harness-pins2"))
        .unwrap_or_else(|e| panic!("{e:#}"));
}

#[test]
fn lint_catches_a_latch() {
    require_tools();
    let latch = "module top(clock, en, d, q);
    input wire  clock;
    input wire  en;
    input wire  d;
    output reg  q;
    always @(*) begin
        if (en) q = d;
    end
endmodule
";
    let err = lint_verilog(latch, &work_dir("lint-latch")).unwrap_err();
    let msg = format!("{err:#}");
    assert!(msg.starts_with("verilator failed"), "{msg}");
    assert!(msg.contains("LATCH"), "{msg}");
}

#[test]
fn missed_timing_is_reported_not_an_error() {
    require_tools();
    // A 24x24-bit multiplier in one cycle: no DSP on the HX8K, far too slow for 100 MHz.
    let slow = "module top(clock, a, b, p);
    input wire  clock;
    input wire  [23:0] a;
    input wire  [23:0] b;
    output reg  [47:0] p;
    always @(posedge clock) p <= a * b;
endmodule
";
    let dir = work_dir("slow");
    let report = synthesize(slow, Board::AlchitryCu, &dir).unwrap_or_else(|e| panic!("{e:#}"));
    println!("{report}");
    assert!(report.fmax_mhz < 100.0, "{report}");
    assert!(!report.timing_met);
    assert!(report.to_string().contains("FAILED"));
    assert!(report.bitstream.is_file());

    // scripts/sdf_sta.py times every endpoint from the run's SDF: its worst slack is nextpnr's
    // Fmax, and the product register's bits are among the failing endpoints.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/sdf_sta.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .arg(dir.join("out.sdf"))
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // First line: "endpoints N; failing at 10.00 ns: F; worst slack S ns (Fmax M MHz)".
    let first = text.lines().next().unwrap_or_default();
    let figure = |after: &str, until: char| -> f64 {
        first
            .split(after)
            .nth(1)
            .and_then(|t| t.split(until).next())
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("no {after:?} figure in {first:?}"))
    };
    let fmax = figure("(Fmax ", ' ');
    assert!(
        (fmax - report.fmax_mhz).abs() < 0.05,
        "sdf_sta {fmax} vs nextpnr {report}"
    );
    let failing = figure("failing at 10.00 ns: ", ';');
    assert!(failing >= 1.0, "{text}");
    assert!(
        text.lines()
            .any(|l| l.split_whitespace().next() == Some("dut.p")),
        "the product register's group fails: {text}"
    );
}
