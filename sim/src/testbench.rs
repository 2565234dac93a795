//! One testbench API over both simulation back ends.
//!
//! A [`Backend`] is one instance of a block with a single clock named `clock`. Ports are named
//! as in the generated Verilog and indexed as in the block's [`SimPorts`] lists, so the same
//! testbench code drives rust-hdl's simulator and the Verilator model and reads the same values.
//!
//! Cycle semantics, identical on both back ends: inputs set before [`Backend::tick`] are sampled
//! by the rising edge; outputs read after it show the state after that edge.

use anyhow::{anyhow, Result};
use rnic_hdl::ports::SimPorts;
use std::path::{Path, PathBuf};

/// Index of an input port in the block's [`SimPorts::inputs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputId(pub usize);
/// Index of an output port in the block's [`SimPorts::outputs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputId(pub usize);

/// A simulated clocked block.
pub trait Backend {
    /// "rust-hdl" or "verilator".
    fn name(&self) -> &'static str;
    /// Input port names, in [`InputId`] order.
    fn input_names(&self) -> &'static [&'static str];
    /// Output port names, in [`OutputId`] order.
    fn output_names(&self) -> &'static [&'static str];
    /// Sets an input; it holds until set again.
    fn set(&mut self, port: InputId, value: u128);
    /// Reads an output (combinational outputs reflect the inputs set so far).
    fn get(&mut self, port: OutputId) -> u128;
    /// One clock cycle: rising edge, then falling edge.
    fn tick(&mut self);
    /// Cycles run so far.
    fn cycles(&self) -> u64;
    /// Writes a VCD waveform of every cycle from now on to `path`.
    fn trace_to(&mut self, path: &Path) -> Result<()>;

    /// Looks an input up by name.
    fn input(&self, name: &str) -> Result<InputId> {
        port_index(self.input_names(), name, "input").map(InputId)
    }
    /// Looks an output up by name.
    fn output(&self, name: &str) -> Result<OutputId> {
        port_index(self.output_names(), name, "output").map(OutputId)
    }
}

fn port_index(names: &[&str], name: &str, what: &str) -> Result<usize> {
    names
        .iter()
        .position(|n| *n == name)
        .ok_or_else(|| anyhow!("no {what} port '{name}' (known: {})", names.join(", ")))
}

/// Which simulation back end to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    /// rust-hdl's own simulator: exact, slow.
    RustHdl,
    /// Verilator on the generated Verilog: fast.
    Verilator,
}

impl BackendKind {
    pub const ALL: [BackendKind; 2] = [BackendKind::RustHdl, BackendKind::Verilator];

    pub fn name(self) -> &'static str {
        match self {
            BackendKind::RustHdl => "rust-hdl",
            BackendKind::Verilator => "verilator",
        }
    }

    /// As [`BackendKind::build`], with the Verilator model built without tracing: the fastest
    /// model, for benchmarks.
    pub fn build_untraced<B: SimPorts + 'static>(self, block: B) -> Result<Box<dyn Backend>> {
        Ok(match self {
            BackendKind::RustHdl => Box::new(crate::hdl_backend::HdlSim::new(block)?),
            BackendKind::Verilator => {
                Box::new(crate::verilator_backend::VerilatorSim::new_untraced(block)?)
            }
        })
    }

    /// Builds a back end for `block`.
    pub fn build<B: SimPorts + 'static>(self, block: B) -> Result<Box<dyn Backend>> {
        Ok(match self {
            BackendKind::RustHdl => Box::new(crate::hdl_backend::HdlSim::new(block)?),
            BackendKind::Verilator => Box::new(crate::verilator_backend::VerilatorSim::new(block)?),
        })
    }
}

/// Where waveforms of failing simulations go: `$CARGO_TARGET_DIR/waveforms` (or
/// `target/waveforms` at the workspace root).
pub fn waveform_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("waveforms")
}

/// Runs a deterministic testbench; if it panics, runs it once more on a fresh back end with a
/// VCD trace, and panics naming the waveform's path. Costs nothing when the test passes.
pub fn run_with_waveform_on_failure<F>(
    name: &str,
    make: impl Fn() -> Result<Box<dyn Backend>>,
    test: F,
) where
    F: Fn(&mut dyn Backend) + std::panic::RefUnwindSafe,
{
    let mut sim = make().expect("building the simulation");
    let first = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| test(sim.as_mut())));
    let Err(cause) = first else { return };
    let dir = waveform_dir();
    let path = dir.join(format!("{}-{}.vcd", name, sim.name()));
    let traced = std::fs::create_dir_all(&dir)
        .map_err(anyhow::Error::from)
        .and_then(|()| {
            let mut sim = make()?;
            sim.trace_to(&path)?;
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| test(sim.as_mut())));
            Ok(())
        });
    let msg = cause
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| cause.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    match traced {
        Ok(()) => panic!("{msg}\nwaveform of the failing run: {}", path.display()),
        Err(e) => panic!("{msg}\n(no waveform: {e})"),
    }
}
