//! The simulated device: the whole core ([`rnic_hdl::top::rnic::Rnic`]) on a back end, with
//! host memory behind its DMA port ([`DmaPort`], [`HostMemory`] and its protection monitor),
//! an MMIO port driven one register access at a time, and its LLP port connected to an
//! [`Llp`] (the loopback model, a software peer, a TCP bridge).
//!
//! This is what a driver talks to: it reaches the core only through [`SimDevice::mmio_write`],
//! [`SimDevice::mmio_read`] and host memory ([`SimDevice::mem`]), as it would a PCIe device;
//! time passes in [`SimDevice::step`]. The device drives the port by NAME through
//! [`Backend`], so it runs on both back ends (Verilator for anything long).
//!
//! Cycle convention (as every bench): inputs are set, combinational `ready`s read, the
//! handshakes that happen at this edge are recorded, then [`Backend::tick`].

use crate::dma_port::{DmaConfig, DmaPort};
use crate::host_mem::HostMemory;
use crate::stream::{beat_payload, packet_beats, Beat};
use crate::tb::host_if::MMIO_READY_LIMIT;
use crate::testbench::{Backend, BackendKind, InputId, OutputId};
use anyhow::{bail, Result};
use rnic_hdl::config::{CONNECTIONS, DATA_WIDTH};
use rnic_hdl::top::rnic::Rnic;
use std::collections::VecDeque;
use std::path::Path;

/// The network side of the core's LLP port: an in-order byte stream per connection.
pub trait Llp {
    /// `llp_tx_ready` for cycle `now` (asked once per cycle).
    fn tx_ready(&mut self, now: u64) -> bool;
    /// The core sent a beat on connection `conn` in cycle `now` (only the `keep` lanes count).
    fn tx_beat(&mut self, now: u64, conn: usize, beat: Beat);
    /// The beat offered on `llp_rx_*` in cycle `now` (the same until taken), with its
    /// connection.
    fn rx_offer(&mut self, now: u64) -> Option<(usize, Beat)>;
    /// The offered beat was taken in cycle `now`.
    fn rx_taken(&mut self, now: u64);
    /// Bytes in flight inside the model.
    fn busy(&self) -> bool;
    /// The model itself, to reach its own API (a capture, a peer) after a run.
    fn as_any(&self) -> &dyn std::any::Any;
    /// Holds (`true`) or releases `conn`'s RX at the LLP (no new octet of it is offered): the
    /// connection manager's gate around the switch to FPDU mode. Models that cannot reorder
    /// the driver's steps (the loopback, the software peer) ignore it.
    fn hold_rx(&mut self, _conn: usize, _hold: bool) {}
    /// The model itself, mutable, for models that have an API to drive during a run (the TCP
    /// bridge's `finish`); `None` by default.
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        None
    }
}

/// How the device is built.
#[derive(Clone, Copy, Debug)]
pub struct DeviceConfig {
    /// Back end.
    pub backend: BackendKind,
    /// The DMA port's latency, split and back-pressure.
    pub dma: DmaConfig,
    /// Seed of every random choice of the models.
    pub seed: u64,
}

impl Default for DeviceConfig {
    /// Verilator, the default DMA model (latency 50, no back-pressure), seed 1.
    fn default() -> Self {
        DeviceConfig {
            backend: BackendKind::Verilator,
            dma: DmaConfig::default(),
            seed: 1,
        }
    }
}

/// Counters of a run, for benchmarks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceStats {
    /// LLP TX beats and bytes (kept octets) per connection.
    pub llp_tx_beats: [u64; CONNECTIONS],
    pub llp_tx_bytes: [u64; CONNECTIONS],
    /// Cycle of the first and last LLP TX beat per connection.
    pub llp_tx_first: [Option<u64>; CONNECTIONS],
    pub llp_tx_last: [Option<u64>; CONNECTIONS],
    /// LLP RX beats and bytes per connection, and the cycle of the last RX beat.
    pub llp_rx_beats: [u64; CONNECTIONS],
    pub llp_rx_bytes: [u64; CONNECTIONS],
    pub llp_rx_last: [Option<u64>; CONNECTIONS],
    /// DMA read requests, completion beats; write beats and bytes.
    pub dma_rd_requests: u64,
    pub dma_rd_beats: u64,
    pub dma_wr_beats: u64,
    pub dma_wr_bytes: u64,
    /// Cycle of every DMA write request's last beat, with the request's first address.
    pub dma_wr_packets: Vec<(u64, u32)>,
}

/// One event at the core's ports, recorded when [`SimDevice::record_events`] is on (to find
/// where the cycles of a message go: `rnic-driver`'s `core_probe` example).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DevEvent {
    /// An MMIO register write (a doorbell, ...).
    Mmio { addr: u16, value: u32 },
    /// A DMA read request taken.
    DmaRd { addr: u32, len: u32, tag: u8 },
    /// The last beat of a DMA write packet taken; `addr` is its first address.
    DmaWr { addr: u32 },
    /// The first beat of an LLP TX packet taken.
    LlpTxFirst { conn: usize },
    /// The last beat of an LLP TX packet taken.
    LlpTxLast { conn: usize },
}

/// Port ids of [`Rnic`].
#[derive(Clone, Copy)]
struct Ports {
    llp_rx_data: InputId,
    llp_rx_keep: InputId,
    llp_rx_last: InputId,
    llp_rx_valid: InputId,
    llp_rx_conn: InputId,
    llp_tx_ready: InputId,
    raw_rx_ready: InputId,
    raw_tx_data: InputId,
    raw_tx_keep: InputId,
    raw_tx_last: InputId,
    raw_tx_valid: InputId,
    raw_tx_conn: InputId,
    mmio_valid: InputId,
    mmio_write: InputId,
    mmio_addr: InputId,
    mmio_wdata: InputId,
    dma_rd_req_ready: InputId,
    dma_rd_cpl_valid: InputId,
    dma_rd_cpl_tag: InputId,
    dma_rd_cpl_data: InputId,
    dma_rd_cpl_keep: InputId,
    dma_rd_cpl_last: InputId,
    dma_wr_ready: InputId,
    dma_wr_done: InputId,
    llp_rx_ready: OutputId,
    llp_tx_data: OutputId,
    llp_tx_keep: OutputId,
    llp_tx_last: OutputId,
    llp_tx_valid: OutputId,
    llp_tx_conn: OutputId,
    raw_rx_data: OutputId,
    raw_rx_keep: OutputId,
    raw_rx_last: OutputId,
    raw_rx_valid: OutputId,
    raw_rx_conn: OutputId,
    raw_tx_ready: OutputId,
    mmio_ready: OutputId,
    mmio_rvalid: OutputId,
    mmio_rdata: OutputId,
    dma_rd_req_valid: OutputId,
    dma_rd_req_addr: OutputId,
    dma_rd_req_len: OutputId,
    dma_rd_req_tag: OutputId,
    dma_wr_valid: OutputId,
    dma_wr_addr: OutputId,
    dma_wr_data: OutputId,
    dma_wr_keep: OutputId,
    dma_wr_last: OutputId,
}

impl Ports {
    fn new(sim: &dyn Backend) -> Result<Ports> {
        macro_rules! ports {
            (in: $($i:ident),* ; out: $($o:ident),* $(,)?) => {
                Ports { $($i: sim.input(stringify!($i))?,)* $($o: sim.output(stringify!($o))?,)* }
            };
        }
        Ok(ports!(
            in: llp_rx_data, llp_rx_keep, llp_rx_last, llp_rx_valid, llp_rx_conn, llp_tx_ready,
                raw_rx_ready, raw_tx_data, raw_tx_keep, raw_tx_last, raw_tx_valid, raw_tx_conn,
                mmio_valid, mmio_write, mmio_addr, mmio_wdata,
                dma_rd_req_ready, dma_rd_cpl_valid, dma_rd_cpl_tag, dma_rd_cpl_data,
                dma_rd_cpl_keep, dma_rd_cpl_last, dma_wr_ready, dma_wr_done;
            out: llp_rx_ready, llp_tx_data, llp_tx_keep, llp_tx_last, llp_tx_valid, llp_tx_conn,
                raw_rx_data, raw_rx_keep, raw_rx_last, raw_rx_valid, raw_rx_conn, raw_tx_ready,
                mmio_ready, mmio_rvalid, mmio_rdata, dma_rd_req_valid, dma_rd_req_addr,
                dma_rd_req_len, dma_rd_req_tag, dma_wr_valid, dma_wr_addr, dma_wr_data,
                dma_wr_keep, dma_wr_last,
        ))
    }
}

/// The simulated device (see the module documentation).
pub struct SimDevice {
    sim: Box<dyn Backend>,
    p: Ports,
    mem: HostMemory,
    dma: DmaPort,
    llp: Box<dyn Llp>,
    stats: DeviceStats,
    /// First address of the DMA write request in progress.
    wr_open: Option<u32>,
    /// Raw (firmware) TX: whole packets waiting per connection, as beats; the front beat of
    /// the connection in `raw_tx_cur` is on offer.
    raw_tx: Vec<VecDeque<Beat>>,
    /// Connection whose packet is being offered (a packet is never interleaved).
    raw_tx_cur: Option<usize>,
    /// Raw RX: bytes of the packet being received and whole packets, per connection.
    raw_rx_open: Vec<Vec<u8>>,
    raw_rx_done: Vec<Vec<Vec<u8>>>,
    /// Port events with their cycle, when recording.
    events: Option<Vec<(u64, DevEvent)>>,
    /// Per connection: an LLP TX packet is open (for [`DevEvent::LlpTxFirst`]).
    tx_open: [bool; CONNECTIONS],
}

impl SimDevice {
    /// Builds the core on `cfg.backend` with its LLP port on `llp`.
    pub fn new(cfg: DeviceConfig, llp: Box<dyn Llp>) -> Result<Self> {
        let sim = cfg.backend.build_untraced(Rnic::default())?;
        Self::with_backend(sim, cfg, llp)
    }

    /// As [`SimDevice::new`], with a VCD waveform of every cycle written to `vcd`.
    pub fn new_traced(cfg: DeviceConfig, llp: Box<dyn Llp>, vcd: &Path) -> Result<Self> {
        let mut sim = cfg.backend.build(Rnic::default())?;
        sim.trace_to(vcd)?;
        Self::with_backend(sim, cfg, llp)
    }

    fn with_backend(
        mut sim: Box<dyn Backend>,
        cfg: DeviceConfig,
        llp: Box<dyn Llp>,
    ) -> Result<Self> {
        let p = Ports::new(sim.as_ref())?;
        for id in [
            p.mmio_valid,
            p.raw_tx_valid,
            p.llp_rx_valid,
            p.dma_rd_cpl_valid,
        ] {
            sim.set(id, 0);
        }
        sim.set(p.raw_rx_ready, 1);
        Ok(SimDevice {
            sim,
            p,
            mem: HostMemory::new(),
            dma: DmaPort::new(cfg.dma, cfg.seed),
            llp,
            stats: DeviceStats::default(),
            wr_open: None,
            raw_tx: vec![VecDeque::new(); CONNECTIONS],
            raw_tx_cur: None,
            raw_rx_open: vec![Vec::new(); CONNECTIONS],
            raw_rx_done: vec![Vec::new(); CONNECTIONS],
            events: None,
            tx_open: [false; CONNECTIONS],
        })
    }

    /// Starts (a new, empty log) or stops recording [`DevEvent`]s.
    pub fn record_events(&mut self, on: bool) {
        self.events = on.then(Vec::new);
    }

    /// The recorded events, oldest first.
    pub fn events(&self) -> &[(u64, DevEvent)] {
        self.events.as_deref().unwrap_or(&[])
    }

    fn event(&mut self, now: u64, e: DevEvent) {
        if let Some(v) = self.events.as_mut() {
            v.push((now, e));
        }
    }

    /// Writes a VCD waveform of every cycle from now on to `path` (to look at a state reached
    /// after a long untraced run; the rust-hdl back end, or a Verilator model built traced).
    pub fn trace_to(&mut self, path: &Path) -> Result<()> {
        self.sim.trace_to(path)
    }

    /// The back end's name.
    pub fn backend_name(&self) -> &'static str {
        self.sim.name()
    }

    /// Host memory (and its protection monitor).
    pub fn mem(&self) -> &HostMemory {
        &self.mem
    }

    /// Host memory, to write buffers and descriptors, and to register regions with the monitor.
    pub fn mem_mut(&mut self) -> &mut HostMemory {
        &mut self.mem
    }

    /// The LLP model.
    pub fn llp(&self) -> &dyn Llp {
        self.llp.as_ref()
    }

    /// The LLP model, mutable.
    pub fn llp_mut(&mut self) -> &mut dyn Llp {
        self.llp.as_mut()
    }

    /// The LLP model as its concrete type `T` (`None` if it is another model).
    pub fn llp_as<T: 'static>(&self) -> Option<&T> {
        self.llp.as_any().downcast_ref::<T>()
    }

    /// The LLP model as its concrete type `T`, mutable (`None` if it is another model or has
    /// no mutable access, [`Llp::as_any_mut`]).
    pub fn llp_as_mut<T: 'static>(&mut self) -> Option<&mut T> {
        self.llp.as_any_mut().and_then(|a| a.downcast_mut::<T>())
    }

    /// Cycles run so far.
    pub fn cycles(&self) -> u64 {
        self.sim.cycles()
    }

    /// Counters since the start (or [`SimDevice::reset_stats`]).
    pub fn stats(&self) -> &DeviceStats {
        &self.stats
    }

    /// Clears the counters.
    pub fn reset_stats(&mut self) {
        self.stats = DeviceStats::default();
    }

    /// Whether the models around the core hold work (DMA reads, write-dones, LLP bytes, raw TX
    /// packets).
    pub fn models_busy(&self) -> bool {
        self.dma.busy() || self.llp.busy() || self.raw_tx.iter().any(|q| !q.is_empty())
    }

    /// Holds the access on the MMIO port until `mmio_ready` takes it (`docs/core.md` "MMIO":
    /// the core's wait state, so two cycles), then drops `mmio_valid`.
    fn mmio_hold(&mut self) -> Result<()> {
        let p = self.p;
        for _ in 0..MMIO_READY_LIMIT {
            let taken = self.sim.get(p.mmio_ready) == 1;
            self.step();
            if taken {
                self.sim.set(p.mmio_valid, 0);
                self.sim.set(p.mmio_write, 0);
                return Ok(());
            }
        }
        bail!("MMIO access: no mmio_ready within {MMIO_READY_LIMIT} cycles")
    }

    /// One MMIO register write (two cycles: the wait state, then the write).
    pub fn mmio_write(&mut self, addr: u16, value: u32) {
        let p = self.p;
        self.sim.set(p.mmio_valid, 1);
        self.sim.set(p.mmio_write, 1);
        self.sim.set(p.mmio_addr, u128::from(addr));
        self.sim.set(p.mmio_wdata, u128::from(value));
        let now = self.sim.cycles();
        self.event(now, DevEvent::Mmio { addr, value });
        self.mmio_hold()
            .unwrap_or_else(|e| panic!("MMIO write of {addr:#05x}: {e}"));
    }

    /// One MMIO register read (two cycles: the wait state and the read; the data is on the port
    /// after them, with `mmio_rvalid`).
    pub fn mmio_read(&mut self, addr: u16) -> Result<u32> {
        let p = self.p;
        self.sim.set(p.mmio_valid, 1);
        self.sim.set(p.mmio_write, 0);
        self.sim.set(p.mmio_addr, u128::from(addr));
        self.mmio_hold()?;
        for _ in 0..4 {
            if self.sim.get(p.mmio_rvalid) == 1 {
                return Ok(self.sim.get(p.mmio_rdata) as u32);
            }
            self.step();
        }
        bail!("MMIO read of {addr:#05x}: no mmio_rvalid within 4 cycles")
    }

    /// Runs `n` cycles.
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.step();
        }
    }

    /// Runs until `done(self)` holds (checked every `every` cycles), at most `max` cycles;
    /// returns the cycles run, or an error naming `what` at the limit.
    pub fn run_until(
        &mut self,
        what: &str,
        max: u64,
        every: u64,
        mut done: impl FnMut(&mut SimDevice) -> bool,
    ) -> Result<u64> {
        let start = self.cycles();
        loop {
            if done(self) {
                return Ok(self.cycles() - start);
            }
            if self.cycles() - start >= max {
                bail!("{what}: not reached within {max} cycles");
            }
            for _ in 0..every.max(1) {
                self.step();
            }
        }
    }

    /// One clock cycle of the core and every model around it.
    pub fn step(&mut self) {
        let now = self.sim.cycles();
        let p = self.p;
        // DMA read completions: one beat per cycle, no ready.
        match self.dma.rd_beat(now, &mut self.mem) {
            Some(b) => {
                self.sim.set(p.dma_rd_cpl_valid, 1);
                self.sim.set(p.dma_rd_cpl_tag, u128::from(b.tag));
                self.sim.set(p.dma_rd_cpl_data, u128::from(b.data));
                self.sim.set(p.dma_rd_cpl_keep, u128::from(b.keep));
                self.sim.set(p.dma_rd_cpl_last, u128::from(b.last));
                self.stats.dma_rd_beats += 1;
            }
            None => self.sim.set(p.dma_rd_cpl_valid, 0),
        }
        let done = self.dma.wr_done(now);
        self.sim.set(p.dma_wr_done, u128::from(done));
        let rd_req_ready = self.dma.rd_req_ready(now);
        self.sim.set(p.dma_rd_req_ready, u128::from(rd_req_ready));
        let wr_ready = self.dma.wr_ready(now);
        self.sim.set(p.dma_wr_ready, u128::from(wr_ready));
        // LLP.
        let tx_ready = self.llp.tx_ready(now);
        self.sim.set(p.llp_tx_ready, u128::from(tx_ready));
        let offer = self.llp.rx_offer(now);
        match offer {
            Some((conn, b)) => {
                self.sim.set(p.llp_rx_valid, 1);
                self.sim.set(p.llp_rx_data, b.data);
                self.sim.set(p.llp_rx_keep, b.keep);
                self.sim.set(p.llp_rx_last, u128::from(b.last));
                self.sim.set(p.llp_rx_conn, conn as u128);
            }
            None => self.sim.set(p.llp_rx_valid, 0),
        }

        // Raw (firmware) TX: one packet at a time, connections in turn.
        if self.raw_tx_cur.is_none() {
            self.raw_tx_cur = (0..CONNECTIONS).find(|&c| !self.raw_tx[c].is_empty());
        }
        let raw_offer = self
            .raw_tx_cur
            .and_then(|c| self.raw_tx[c].front().map(|b| (c, *b)));
        match raw_offer {
            Some((conn, b)) => {
                self.sim.set(p.raw_tx_valid, 1);
                self.sim.set(p.raw_tx_data, b.data);
                self.sim.set(p.raw_tx_keep, b.keep);
                self.sim.set(p.raw_tx_last, u128::from(b.last));
                self.sim.set(p.raw_tx_conn, conn as u128);
            }
            None => self.sim.set(p.raw_tx_valid, 0),
        }

        // Handshakes at this edge.
        if let Some((conn, b)) = raw_offer {
            if self.sim.get(p.raw_tx_ready) == 1 {
                self.raw_tx[conn].pop_front();
                if b.last {
                    self.raw_tx_cur = None;
                }
            }
        }
        if self.sim.get(p.raw_rx_valid) == 1 {
            // raw_rx_ready is tied to 1: every offered beat is taken.
            let conn = self.sim.get(p.raw_rx_conn) as usize % CONNECTIONS;
            let beat = Beat {
                data: self.sim.get(p.raw_rx_data),
                keep: self.sim.get(p.raw_rx_keep),
                last: self.sim.get(p.raw_rx_last) == 1,
            };
            self.raw_rx_open[conn].extend(beat_payload(&beat, DATA_WIDTH));
            if beat.last {
                let pkt = std::mem::take(&mut self.raw_rx_open[conn]);
                self.raw_rx_done[conn].push(pkt);
            }
        }
        if let Some((conn, b)) = offer {
            if self.sim.get(p.llp_rx_ready) == 1 {
                self.llp.rx_taken(now);
                let c = conn % CONNECTIONS;
                self.stats.llp_rx_beats[c] += 1;
                self.stats.llp_rx_bytes[c] += u64::from((b.keep as u8).count_ones());
                self.stats.llp_rx_last[c] = Some(now);
            }
        }
        if tx_ready && self.sim.get(p.llp_tx_valid) == 1 {
            let conn = self.sim.get(p.llp_tx_conn) as usize;
            let beat = Beat {
                data: self.sim.get(p.llp_tx_data),
                keep: self.sim.get(p.llp_tx_keep),
                last: self.sim.get(p.llp_tx_last) == 1,
            };
            let c = conn % CONNECTIONS;
            self.stats.llp_tx_beats[c] += 1;
            self.stats.llp_tx_bytes[c] += beat_payload(&beat, DATA_WIDTH).len() as u64;
            self.stats.llp_tx_first[c].get_or_insert(now);
            self.stats.llp_tx_last[c] = Some(now);
            if !self.tx_open[c] {
                self.event(now, DevEvent::LlpTxFirst { conn: c });
            }
            self.tx_open[c] = !beat.last;
            if beat.last {
                self.event(now, DevEvent::LlpTxLast { conn: c });
            }
            self.llp.tx_beat(now, conn, beat);
        }
        if rd_req_ready && self.sim.get(p.dma_rd_req_valid) == 1 {
            let addr = self.sim.get(p.dma_rd_req_addr) as u32;
            let len = self.sim.get(p.dma_rd_req_len) as usize;
            let tag = self.sim.get(p.dma_rd_req_tag) as u8;
            self.dma.rd_request(now, addr, len, tag);
            self.stats.dma_rd_requests += 1;
            self.event(
                now,
                DevEvent::DmaRd {
                    addr,
                    len: len as u32,
                    tag,
                },
            );
        }
        if wr_ready && self.sim.get(p.dma_wr_valid) == 1 {
            let addr = self.sim.get(p.dma_wr_addr) as u32;
            let data = self.sim.get(p.dma_wr_data) as u32;
            let keep = self.sim.get(p.dma_wr_keep) as u8;
            let last = self.sim.get(p.dma_wr_last) == 1;
            self.dma.wr_beat(now, &mut self.mem, addr, data, keep, last);
            self.stats.dma_wr_beats += 1;
            self.stats.dma_wr_bytes += u64::from(keep.count_ones());
            let first = *self.wr_open.get_or_insert(addr);
            if last {
                self.stats.dma_wr_packets.push((now, first));
                self.event(now, DevEvent::DmaWr { addr: first });
                self.wr_open = None;
            }
        }
        self.sim.tick();
    }

    /// Whether the core offers raw (non-FPDU) bytes to the firmware now.
    pub fn raw_rx_pending(&mut self) -> bool {
        self.sim.get(self.p.raw_rx_valid) == 1
    }

    /// Queues one raw packet for connection `conn` on `raw_tx_*` (the firmware's path to the
    /// LLP for a connection in raw mode: MPA Request / Reply, RTR, Terminate; `docs/core.md`
    /// "The core's ports"). Byte 0 goes in the most significant lane; an empty packet is one
    /// `last` beat with `keep` 0. Packets leave whole, in order per connection.
    pub fn raw_send(&mut self, conn: usize, packet: &[u8]) {
        self.raw_tx[conn % CONNECTIONS].extend(packet_beats(packet, DATA_WIDTH));
    }

    /// Beats of `conn` queued by [`SimDevice::raw_send`] and not yet taken by the core.
    pub fn raw_tx_pending(&self, conn: usize) -> usize {
        self.raw_tx[conn % CONNECTIONS].len()
    }

    /// The whole raw packets the core passed on `raw_rx_*` for `conn` since the last call
    /// (a packet ends at `raw_rx_last`; a partial one stays for the next call).
    pub fn raw_take(&mut self, conn: usize) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.raw_rx_done[conn % CONNECTIONS])
    }

    /// Octets of `conn` received on `raw_rx_*` in a packet not yet ended.
    pub fn raw_rx_partial(&self, conn: usize) -> usize {
        self.raw_rx_open[conn % CONNECTIONS].len()
    }
}
