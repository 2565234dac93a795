//! The flow on Verilog that rust-hdl itself generates: port parsing, lint policy and a full
//! synthesis run. Fails, not skips, when a tool is missing.

mod common;

use common::require_tools;
use std::path::PathBuf;

use rnic_bsp::{lint_verilog, parse_ports, synthesize, Board, Direction};
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum Phase {
    Idle,
    Run,
    Done,
}

#[derive(LogicInterface, Default)]
struct Stream {
    pub data: Signal<In, Bits<8>>,
    pub valid: Signal<In, Bit>,
}

/// A block that uses what rnic-hdl blocks use: an interface (`s$data` ports), DFFs, an enum
/// state machine, a FIFO, a RAM, a signed input and a wide output.
#[derive(LogicBlock, Default)]
struct Sample {
    pub clock: Signal<In, Clock>,
    pub s: Stream,
    pub sg: Signal<In, Signed<8>>,
    pub q: Signal<Out, Bits<8>>,
    pub wide: Signal<Out, Bits<96>>,
    count: DFF<Bits<8>>,
    phase: DFF<Phase>,
    fifo: SyncFIFO<Bits<8>, 4, 5, 1>,
    ram: RAM<Bits<8>, 4>,
}

impl Logic for Sample {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count, phase);
        clock!(self, clock, fifo);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.ram.read_address.next = self.count.q.val().get_bits::<4>(0);
        self.ram.write_address.next = self.s.data.val().get_bits::<4>(0);
        self.ram.write_data.next = self.s.data.val();
        self.ram.write_enable.next = self.s.valid.val();
        self.fifo.bus_write.data.next = self.s.data.val();
        self.fifo.bus_write.write.next = self.s.valid.val() & !self.fifo.bus_write.full.val();
        self.fifo.bus_read.read.next = !self.fifo.bus_read.empty.val();
        match self.phase.q.val() {
            Phase::Idle => {
                if self.s.valid.val() {
                    self.phase.d.next = Phase::Run;
                }
            }
            Phase::Run => self.phase.d.next = Phase::Done,
            Phase::Done => self.phase.d.next = Phase::Idle,
        }
        if self.s.valid.val() {
            self.count.d.next = self.count.q.val() + self.s.data.val();
        }
        self.q.next = self.count.q.val() ^ self.fifo.bus_read.data.val() ^ self.ram.read_data.val();
        if self.sg.val().get_bit(7) {
            self.q.next = 0.into();
        }
        self.wide.next = bit_cast::<96, 8>(self.count.q.val());
        if self.phase.q.val() == Phase::Done {
            self.wide.next = !bit_cast::<96, 8>(self.count.q.val());
        }
    }
}

fn sample_verilog() -> String {
    let mut uut = Sample::default();
    uut.connect_all();
    generate_verilog(&uut)
}

fn work_dir(name: &str) -> PathBuf {
    common::work_dir("rnic-bsp-rust-hdl", name)
}

#[test]
fn parses_rust_hdl_ports() {
    let v = sample_verilog();
    let ports = parse_ports(&v).unwrap();
    let summary: Vec<(&str, Direction, usize)> = ports
        .iter()
        .map(|p| (p.name.as_str(), p.direction, p.width))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("clock", Direction::Input, 1),
            ("s$data", Direction::Input, 8),
            ("s$valid", Direction::Input, 1),
            ("sg", Direction::Input, 8),
            ("q", Direction::Output, 8),
            ("wide", Direction::Output, 96),
        ]
    );
}

#[test]
fn rust_hdl_verilog_passes_lint() {
    require_tools();
    lint_verilog(&sample_verilog(), &work_dir("lint")).unwrap_or_else(|e| panic!("{e:#}"));
}

#[test]
fn rust_hdl_block_synthesizes() {
    require_tools();
    let report = synthesize(&sample_verilog(), Board::AlchitryCu, &work_dir("synth"))
        .unwrap_or_else(|e| panic!("{e:#}"));
    println!("{report}");
    assert_eq!(report.harness.input_bits, 17);
    assert_eq!(report.harness.output_bits, 104);
    // yosys maps the fold into as many LUTs as planned; the output registers nextpnr packs
    // with the block's LUTs are the block's cells.
    assert_eq!(
        (report.harness_logic_cells + report.harness_packed_registers) as usize,
        report.harness.logic_cells(),
        "{report}"
    );
    // The block's logic is kept whole: its wide output (one byte and 88 copies of one bit)
    // is not folded away against the harness.
    let dut = report.dut_cells.expect("yosys statistics of module top");
    assert!(
        dut.flip_flops >= 8 + 2,
        "count and phase registers: {dut:?}"
    );
    assert_eq!(dut.brams, 2, "FIFO and RAM: {dut:?}");
    assert!(report.dut_logic_cells >= dut.flip_flops, "{report}");
    assert!(report.logic_cells_used < 7680);
    assert!(report.fmax_mhz > 0.0);
    assert!(report.bitstream.is_file());
}
