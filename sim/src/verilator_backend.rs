//! Back end 2: Verilator running the Verilog that rust-hdl generates for the same block.
//!
//! Ports are looked up by the names of the block's [`SimPorts`] lists, so a testbench sees the
//! same [`InputId`]s and [`OutputId`]s as on the rust-hdl back end.

use crate::testbench::{Backend, InputId, OutputId};
use crate::verilator::{BuildOptions, PortId, VerilatedModel};
use anyhow::{Context, Result};
use rnic_hdl::catalog::top_verilog;
use rnic_hdl::ports::SimPorts;
use std::marker::PhantomData;
use std::path::Path;

/// Verilator simulation of a block.
pub struct VerilatorSim<B: SimPorts> {
    model: VerilatedModel,
    clock: PortId,
    inputs: Vec<PortId>,
    outputs: Vec<PortId>,
    dirty: bool,
    /// The clock is still high after the last rising edge; it falls at the next tick.
    clock_high: bool,
    cycles: u64,
    tracing: bool,
    block: PhantomData<fn() -> B>,
}

impl<B: SimPorts> VerilatorSim<B> {
    /// Generates the block's Verilog, builds (or reuses from the cache) its Verilator model,
    /// with VCD tracing compiled in so that a failing test can leave a waveform.
    pub fn new(block: B) -> Result<Self> {
        Self::with_options(block, &BuildOptions::default())
    }

    /// As [`VerilatorSim::new`] without tracing compiled in: the fastest model, for benchmarks.
    pub fn new_untraced(block: B) -> Result<Self> {
        Self::with_options(
            block,
            &BuildOptions {
                trace: false,
                ..BuildOptions::default()
            },
        )
    }

    /// As [`VerilatorSim::new`] with explicit build options.
    pub fn with_options(block: B, options: &BuildOptions) -> Result<Self> {
        let verilog = top_verilog(block);
        let model = VerilatedModel::build_with(&verilog, options)
            .context("building the Verilator model")?;
        Self::from_model(model)
    }

    /// Wraps an already built model of a `B`.
    pub fn from_model(mut model: VerilatedModel) -> Result<Self> {
        let clock = model.port("clock")?;
        let inputs = B::inputs()
            .iter()
            .map(|n| model.port(n))
            .collect::<Result<Vec<_>>>()?;
        let outputs = B::outputs()
            .iter()
            .map(|n| model.port(n))
            .collect::<Result<Vec<_>>>()?;
        model.set(clock, 0);
        model.eval();
        Ok(VerilatorSim {
            model,
            clock,
            inputs,
            outputs,
            dirty: false,
            clock_high: false,
            cycles: 0,
            tracing: false,
            block: PhantomData,
        })
    }
}

fn to_words(value: u128) -> [u32; 4] {
    core::array::from_fn(|i| (value >> (32 * i)) as u32)
}

impl<B: SimPorts> Backend for VerilatorSim<B> {
    fn name(&self) -> &'static str {
        "verilator"
    }
    fn input_names(&self) -> &'static [&'static str] {
        B::inputs()
    }
    fn output_names(&self) -> &'static [&'static str] {
        B::outputs()
    }
    fn set(&mut self, port: InputId, value: u128) {
        let id = self.inputs[port.0];
        // Bits above the port's width are dropped, as rust-hdl's `Bits` conversion does.
        let width = self.model.info(id).width;
        let value = if width >= 128 {
            value
        } else {
            value & ((1u128 << width) - 1)
        };
        if width <= 64 {
            self.model.set(id, value as u64);
        } else {
            self.model.set_wide(id, &to_words(value));
        }
        self.dirty = true;
    }
    fn get(&mut self, port: OutputId) -> u128 {
        if self.dirty {
            // The falling edge goes with this evaluation: the generated logic has no
            // falling-edge flip-flops, so outputs are the same as with the clock high, and
            // `tick` then needs only the rising-edge evaluation (two per cycle, not three).
            if self.clock_high {
                self.model.set(self.clock, 0);
                self.clock_high = false;
            }
            self.model.eval();
            self.dirty = false;
        }
        let id = self.outputs[port.0];
        if self.model.info(id).width <= 64 {
            u128::from(self.model.get(id))
        } else {
            let mut words = [0u32; 4];
            self.model.get_wide(id, &mut words);
            words
                .iter()
                .rev()
                .fold(0, |acc, &w| acc << 32 | u128::from(w))
        }
    }
    fn tick(&mut self) {
        // The falling edge of the previous cycle and this cycle's input changes share one
        // evaluation (Verilator settles input-driven logic before it looks for edges; `get`
        // may have done it already), so a cycle costs two evaluations; flip-flops still sample
        // settled inputs at the rising edge.
        if self.clock_high {
            self.model.set(self.clock, 0);
            self.model.eval();
        } else if self.dirty {
            self.model.eval();
        }
        if self.tracing {
            self.model.dump(self.cycles * 2);
        }
        self.model.set(self.clock, 1);
        self.model.eval();
        self.clock_high = true;
        self.dirty = false;
        if self.tracing {
            self.model.dump(self.cycles * 2 + 1);
        }
        self.cycles += 1;
    }
    fn cycles(&self) -> u64 {
        self.cycles
    }
    fn trace_to(&mut self, path: &Path) -> Result<()> {
        self.model.open_trace(path)?;
        self.tracing = true;
        Ok(())
    }
}
