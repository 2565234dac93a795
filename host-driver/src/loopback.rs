//! `rnic loopback`, the main job: two QPs of one simulated core connected to each other
//! through the LLP loopback model (MPA set up through the firmware, [`crate::cm`]), a chosen traffic mix run through the verbs API, every byte
//! verified, and a summary.

use crate::cm;
use crate::traffic::{Mix, OpKind, Session, Sizes, Summary, TrafficConfig};
use crate::verbs::{ConnParams, Device, VerbsError};
use anyhow::{bail, Context, Result};
use rnic_sim::dma_port::DmaConfig;
use rnic_sim::loopback::{LlpLoopback, LoopbackConfig};
use rnic_sim::tb::rnic::{DeviceConfig, SimDevice};
use rnic_sim::testbench::BackendKind;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

/// What `rnic loopback` runs.
#[derive(Clone, Debug)]
pub struct LoopbackArgs {
    pub mix: Mix,
    pub size: u32,
    pub count: usize,
    pub window: usize,
    pub params: ConnParams,
    pub backend: BackendKind,
    pub seed: u64,
    pub vcd: Option<PathBuf>,
    pub pcap: Option<PathBuf>,
}

/// Parses `--op`.
pub fn parse_mix(s: &str) -> std::result::Result<Mix, String> {
    Ok(match s {
        "write" => Mix::Only(OpKind::Write),
        "read" => Mix::Only(OpKind::Read),
        "send" => Mix::Only(OpKind::Send),
        "send-inv" => Mix::Only(OpKind::SendInv),
        "send-se" => Mix::Only(OpKind::SendSe),
        "send-se-inv" => Mix::Only(OpKind::SendSeInv),
        "mixed" => Mix::Mixed,
        _ => {
            return Err(format!(
                "'{s}' is no operation (write, read, send, send-inv, send-se, send-se-inv, mixed)"
            ))
        }
    })
}

/// Runs the session and returns its summary (the caller prints it).
pub fn run(a: &LoopbackArgs) -> Result<Summary> {
    if a.size > 16 << 20 {
        bail!("--size {} is over 16 MiB", a.size);
    }
    let cfg = DeviceConfig {
        backend: a.backend,
        dma: DmaConfig::default(),
        seed: a.seed,
    };
    let llp = LoopbackConfig {
        capture: a.pcap.is_some(),
        ..LoopbackConfig::full_speed(a.seed)
    };
    let loopback = Box::new(LlpLoopback::new(llp));
    let sim = match &a.vcd {
        Some(path) => SimDevice::new_traced(cfg, loopback, path)
            .with_context(|| format!("building the traced core for {}", path.display()))?,
        None => SimDevice::new(cfg, loopback)?,
    };
    let dev = Device::attach(sim, a.seed)?;
    let window = a.window.max(1);
    let slots = 2 * window;
    // MPA through the firmware on the raw ports, QP 0 the Initiator, QP 1 the Responder.
    let cm = cm::configs_from_params(&a.params);
    let mut session = Session::new_with(dev, 1, slots, u64::from(a.size) + 128, |dev, p| {
        let probe = (p.cq[0], p.remote_mr[1].rkey, p.remote_mr[1].addr);
        cm::connect_pair(dev, p.qp, cm.clone(), Some(probe))
            .map_err(|e| VerbsError::Device(format!("MPA setup: {e}")))?;
        Ok(())
    })?;
    let traffic = TrafficConfig {
        mix: a.mix,
        sizes: Sizes::Fixed(a.size),
        count: a.count,
        window,
        slots,
        random_alignment: false,
        both_directions: true,
        seed: a.seed,
        stall_cycles: 2_000_000,
    };
    let tty = std::io::stderr().is_terminal();
    let count = a.count;
    let mut last = 0usize;
    let summary = session.run(&traffic, |done| {
        if tty && (done * 50 / count.max(1) != last * 50 / count.max(1) || done == count) {
            let bar = done * 40 / count.max(1);
            eprint!(
                "\r[{}{}] {done}/{count} operations",
                "#".repeat(bar),
                " ".repeat(40 - bar)
            );
            let _ = std::io::stderr().flush();
        }
        last = done;
    })?;
    if tty {
        eprintln!();
    }
    Ok(summary)
}

/// The summary as printed.
pub fn format_summary(a: &LoopbackArgs, s: &Summary) -> String {
    let kinds: Vec<String> = s
        .per_kind
        .iter()
        .map(|(k, n)| format!("{k:?} {n}"))
        .collect();
    format!(
        "loopback: QP 0 <-> QP 1 on one simulated core ({} back end), {} bytes per operation\n\
         operations      {} ({})\n\
         bytes           {}\n\
         cycles          {}\n\
         bytes/cycle     {:.3}\n\
         Gbit/s @100MHz  {:.3}\n\
         sim cycles/s    {:.0}\n\
         errors          0 (every byte and every completion verified)",
        match a.backend {
            BackendKind::Verilator => "verilator",
            BackendKind::RustHdl => "rust-hdl",
        },
        a.size,
        s.ops,
        kinds.join(", "),
        s.bytes,
        s.cycles,
        s.bytes_per_cycle(),
        s.gbit_per_s_at_100mhz(),
        s.cycles_per_second(),
    )
}
