//! Back end 1: rust-hdl's own simulator, stepped cycle by cycle.
//!
//! rust-hdl's `Simulation` runs testbenches in threads that hand the circuit back and forth;
//! stepping the circuit directly with [`simulate`] (settle until nothing changes) is the same
//! evaluation without the hand-offs, and lets one testbench API serve both back ends.

use crate::testbench::{Backend, InputId, OutputId};
use anyhow::{anyhow, Result};
use rnic_hdl::ports::SimPorts;
use rust_hdl::core::check_error::check_all;
use rust_hdl::core::vcd_probe::{write_vcd_change, write_vcd_dump, write_vcd_header, VCDProbe};
use rust_hdl::prelude::*;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

/// Settle passes before a circuit is declared oscillating.
const MAX_SETTLE_PASSES: usize = 10_000;

/// rust-hdl simulation of a block.
pub struct HdlSim<B: SimPorts> {
    uut: B,
    dirty: bool,
    cycles: u64,
    vcd: Option<VCDProbe<BufWriter<File>>>,
}

impl<B: SimPorts> HdlSim<B> {
    /// Connects and checks the block (rust-hdl's connection and logic-loop checks), then settles
    /// it with the clock low.
    pub fn new(mut uut: B) -> Result<Self> {
        uut.connect_all();
        check_all(&uut).map_err(|e| anyhow!("rust-hdl check failed: {e:?}"))?;
        uut.clock_input().next = Clock { clk: false };
        let mut sim = HdlSim {
            uut,
            dirty: true,
            cycles: 0,
            vcd: None,
        };
        sim.settle();
        Ok(sim)
    }

    /// The block itself, for white-box checks.
    pub fn block(&self) -> &B {
        &self.uut
    }

    fn settle(&mut self) {
        assert!(
            simulate(&mut self.uut, MAX_SETTLE_PASSES),
            "rust-hdl: the circuit did not settle (combinational loop?) at cycle {}",
            self.cycles
        );
        self.dirty = false;
    }

    fn dump(&mut self, time: u64) {
        if let Some(vcd) = self.vcd.take() {
            let mut vcd = vcd;
            let _ = vcd.timestamp(time);
            self.vcd = Some(write_vcd_change(vcd, &self.uut));
        }
    }
}

impl<B: SimPorts> Backend for HdlSim<B> {
    fn name(&self) -> &'static str {
        "rust-hdl"
    }
    fn input_names(&self) -> &'static [&'static str] {
        B::inputs()
    }
    fn output_names(&self) -> &'static [&'static str] {
        B::outputs()
    }
    fn set(&mut self, port: InputId, value: u128) {
        self.uut.set_input(port.0, value);
        self.dirty = true;
    }
    fn get(&mut self, port: OutputId) -> u128 {
        if self.dirty {
            self.settle();
        }
        self.uut.get_output(port.0)
    }
    fn tick(&mut self) {
        // Inputs settle before the edge, so the flip-flops sample settled values.
        if self.dirty {
            self.settle();
        }
        self.dump(self.cycles * 2);
        self.uut.clock_input().next = Clock { clk: true };
        self.settle();
        self.dump(self.cycles * 2 + 1);
        self.uut.clock_input().next = Clock { clk: false };
        self.settle();
        self.cycles += 1;
    }
    fn cycles(&self) -> u64 {
        self.cycles
    }
    fn trace_to(&mut self, path: &Path) -> Result<()> {
        let file = BufWriter::new(File::create(path)?);
        let vcd = write_vcd_header(file, &self.uut);
        self.vcd = Some(write_vcd_dump(vcd, &self.uut));
        Ok(())
    }
}
