//! `rnic serve` and `rnic connect`: two processes, each with its own simulated core whose LLP
//! connection 0 is a real kernel TCP connection ([`TcpBridge`]); MPA is set up through the
//! firmware's connection manager ([`crate::cm`], `connect` the Initiator, `serve` the
//! Responder), then the connect side runs RDMA Writes, Reads or Sends against the serve side.
//!
//! Cross-process verification (the convention both sides follow):
//!
//! - The **Request's private data** ([`RequestPd`]) carries the seed, the operation, the size
//!   and the count. Both sides derive every payload from it with [`pattern`]: operation `i`
//!   writes / sends `pattern(seed, b'W' / b'S', i, size)`, and Read `i` must return
//!   `pattern(seed, b'R', i, size)`, which the serve side writes into its source half before it
//!   lets any FPDU in (its LLP RX stays held until then).
//! - The **Reply's private data** ([`ReplyPd`]) carries the serve side's region: one STag (rkey)
//!   over `2 * half` bytes at `addr`: the sink half first (Write `i` lands at `addr + i * size`;
//!   receive `i` of the Sends points there too), then the source half (Read `i` reads
//!   `addr + half + i * size`).
//! - Done: the connect side, once every operation completed (a Write completes once sent),
//!   waits for its LLP to drain and closes its write side; the serve side sees EOF, waits for
//!   its receive path to be idle, and checks the sink half (Writes) or every receive completion
//!   and its bytes (Sends). Either side exits non-zero on any mismatch.
//!
//! With `--pcap FILE` each side writes what crossed its socket ([`write_pcap`]): the octets as
//! the kernel took and gave them, cut into one MPA frame or FPDU per TCP segment, with the real
//! addresses and ports, for Wireshark.

use crate::cm::{CmConfig, Established};
use crate::verbs::{Device, Mr, Qp, QpCaps, RecvWr, SendOp, SendWr, Sge, Wc};
use anyhow::{anyhow, bail, ensure, Context, Result};
use rnic_firmware::conn::Role;
use rnic_proto::host::regs;
use rnic_proto::verbs::{access, WcOpcode, WcStatus};
use rnic_sim::dma_port::DmaConfig;
use rnic_sim::pcap::mpa::MpaCapture;
use rnic_sim::pcap::{Direction, Endpoint, PcapWriter, TcpConnection};
use rnic_sim::tb::rnic::{DeviceConfig, SimDevice};
use rnic_sim::tcp_bridge::{BridgeConfig, Capture, CloseReason, TcpBridge, Way};
use rnic_sim::testbench::BackendKind;
use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The operation the connect side runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpOp {
    Write,
    Read,
    Send,
}

impl TcpOp {
    fn code(self) -> u8 {
        match self {
            TcpOp::Write => b'W',
            TcpOp::Read => b'R',
            TcpOp::Send => b'S',
        }
    }

    fn from_code(c: u8) -> Option<TcpOp> {
        match c {
            b'W' => Some(TcpOp::Write),
            b'R' => Some(TcpOp::Read),
            b'S' => Some(TcpOp::Send),
            _ => None,
        }
    }

    /// Parses `--op`.
    pub fn parse(s: &str) -> std::result::Result<TcpOp, String> {
        match s {
            "write" => Ok(TcpOp::Write),
            "read" => Ok(TcpOp::Read),
            "send" => Ok(TcpOp::Send),
            _ => Err(format!("'{s}' is no operation (write, read, send)")),
        }
    }
}

/// Tag of both private data formats (and their version).
const MAGIC: &[u8; 4] = b"RNC1";

/// The Request's private data: what the connect side will do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestPd {
    pub seed: u64,
    pub op: TcpOp,
    pub size: u32,
    pub count: u32,
}

impl RequestPd {
    /// `RNC1`, seed (8, big-endian), op (1: W, R, S), size (4), count (4).
    pub fn emit(&self) -> Vec<u8> {
        let mut v = MAGIC.to_vec();
        v.extend(self.seed.to_be_bytes());
        v.push(self.op.code());
        v.extend(self.size.to_be_bytes());
        v.extend(self.count.to_be_bytes());
        v
    }

    pub fn parse(b: &[u8]) -> Result<RequestPd> {
        ensure!(
            b.len() == 21 && &b[..4] == MAGIC,
            "the Request's private data is not an `rnic connect` request ({} octets)",
            b.len()
        );
        Ok(RequestPd {
            seed: u64::from_be_bytes(b[4..12].try_into()?),
            op: TcpOp::from_code(b[12]).ok_or_else(|| anyhow!("unknown operation {}", b[12]))?,
            size: u32::from_be_bytes(b[13..17].try_into()?),
            count: u32::from_be_bytes(b[17..21].try_into()?),
        })
    }
}

/// The Reply's private data: the serve side's region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplyPd {
    pub rkey: u32,
    pub addr: u64,
    /// Bytes of each half.
    pub half: u64,
}

impl ReplyPd {
    /// `RNC1`, rkey (4), addr (8), half (8), big-endian.
    pub fn emit(&self) -> Vec<u8> {
        let mut v = MAGIC.to_vec();
        v.extend(self.rkey.to_be_bytes());
        v.extend(self.addr.to_be_bytes());
        v.extend(self.half.to_be_bytes());
        v
    }

    pub fn parse(b: &[u8]) -> Result<ReplyPd> {
        ensure!(
            b.len() == 24 && &b[..4] == MAGIC,
            "the Reply's private data is not an `rnic serve` reply ({} octets)",
            b.len()
        );
        Ok(ReplyPd {
            rkey: u32::from_be_bytes(b[4..8].try_into()?),
            addr: u64::from_be_bytes(b[8..16].try_into()?),
            half: u64::from_be_bytes(b[16..24].try_into()?),
        })
    }
}

/// The payload of operation `i` of kind `tag` (xorshift64* from the seed, the tag and `i`).
pub fn pattern(seed: u64, tag: u8, i: u32, len: u32) -> Vec<u8> {
    let mut x = seed ^ u64::from(tag) << 56 ^ u64::from(i).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x |= 1;
    (0..len)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        })
        .collect()
}

/// Common options of both sides.
#[derive(Clone, Debug)]
pub struct TcpArgs {
    pub backend: BackendKind,
    /// Wall-clock limit of the whole run.
    pub timeout: Duration,
    /// Write the connection's traffic to this pcap file ([`write_pcap`]).
    pub pcap: Option<PathBuf>,
}

fn bridge_config(a: &TcpArgs) -> BridgeConfig {
    BridgeConfig {
        capture: a.pcap.is_some(),
        ..BridgeConfig::default()
    }
}

/// A pcap endpoint for a socket address (IPv6 is shown as 10.0.0.x: the writer is IPv4 only).
fn pcap_endpoint(addr: SocketAddr, host: u8) -> Endpoint {
    Endpoint {
        mac: [0x02, 0, 0, 0, 0, host],
        ip: match addr.ip() {
            IpAddr::V4(ip) => ip,
            IpAddr::V6(_) => Ipv4Addr::new(10, 0, 0, host),
        },
        port: addr.port(),
    }
}

/// Writes what crossed connection 0's socket (`cap`, [`BridgeConfig::capture`]) to the pcap
/// file `path` as one TCP connection from `initiator` to `responder`, this side being `role`:
/// every chunk the kernel took or gave, in order, at [`crate::loopback::PCAP_START_US`] plus
/// 10 ns per cycle, cut into one MPA frame or FPDU per segment ([`MpaCapture`]); then the
/// connection is closed. Returns the FPDUs written each way (Initiator to Responder first).
pub fn write_pcap(
    cap: &Capture,
    role: Role,
    initiator: SocketAddr,
    responder: SocketAddr,
    path: &Path,
) -> Result<[usize; 2]> {
    let conn = TcpConnection::new(pcap_endpoint(initiator, 1), pcap_endpoint(responder, 2));
    let mut mc = MpaCapture::new(conn);
    let mut w = PcapWriter::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut t = crate::loopback::PCAP_START_US;
    for c in cap.chunks.iter().filter(|c| c.conn == 0) {
        t = t.max(crate::loopback::pcap_time_us(c.cycle));
        let sent_by_initiator = (c.way == Way::ToSocket) == (role == Role::Initiator);
        let dir = if sent_by_initiator {
            Direction::InitiatorToResponder
        } else {
            Direction::ResponderToInitiator
        };
        mc.push(&mut w, dir, &c.bytes, t)?;
    }
    mc.finish(&mut w, t + 1)?;
    w.flush()
        .with_context(|| format!("writing {}", path.display()))?;
    Ok([
        mc.fpdus(Direction::InitiatorToResponder),
        mc.fpdus(Direction::ResponderToInitiator),
    ])
}

/// Writes the capture of `dev`'s bridge when `--pcap` asked for one.
fn save_pcap(
    dev: &mut Device,
    a: &TcpArgs,
    role: Role,
    initiator: SocketAddr,
    responder: SocketAddr,
) -> Result<Option<(PathBuf, [usize; 2])>> {
    let Some(path) = &a.pcap else {
        return Ok(None);
    };
    let cap = bridge(dev)?
        .take_capture()
        .ok_or_else(|| anyhow!("the bridge kept no capture"))?;
    let n = write_pcap(&cap, role, initiator, responder, path)?;
    Ok(Some((path.clone(), n)))
}

/// The summary line about the pcap file (empty without `--pcap`).
fn pcap_line(p: &Option<(PathBuf, [usize; 2])>) -> String {
    match p {
        Some((path, [i, r])) => format!(
            "\npcap            {} ({i} FPDUs Initiator to Responder, {r} back)",
            path.display()
        ),
        None => String::new(),
    }
}

fn open(a: &TcpArgs, bridge: TcpBridge) -> Result<Device> {
    let cfg = DeviceConfig {
        backend: a.backend,
        dma: DmaConfig::default(),
        seed: 1,
    };
    let sim = SimDevice::new(cfg, Box::new(bridge))?;
    Ok(Device::attach(sim, 1)?)
}

fn bridge(dev: &mut Device) -> Result<&mut TcpBridge> {
    dev.sim_mut()
        .llp_as_mut::<TcpBridge>()
        .ok_or_else(|| anyhow!("the LLP is not a TCP bridge"))
}

fn closed(dev: &Device) -> Option<CloseReason> {
    dev.sim().llp_as::<TcpBridge>().and_then(|b| b.closed(0))
}

fn check_deadline(start: Instant, a: &TcpArgs, what: &str) -> Result<()> {
    if start.elapsed() > a.timeout {
        bail!("{what}: no end within {:?}", a.timeout);
    }
    Ok(())
}

/// Runs the device until the receive path is idle and the bridge holds nothing.
fn settle(dev: &mut Device) -> Result<()> {
    dev.sim_mut()
        .run_until("receive path idle", 2_000_000, 8, |d| {
            !d.models_busy()
                && d.mmio_read(regs::STATUS)
                    .is_ok_and(|s| s & regs::STATUS_RX_IDLE != 0)
        })
        .map(|_| ())
}

/// What `serve` did.
#[derive(Clone, Debug)]
pub struct ServeSummary {
    pub peer: SocketAddr,
    pub request: RequestPd,
    pub established: Established,
    /// Bytes the peer's operations moved (written, sent, or read from the source half).
    pub bytes: u64,
    /// Of them, bytes checked here (Write and Send; Reads are checked by the connect side).
    pub verified_bytes: u64,
    pub cycles: u64,
    /// With `--pcap`: the file and the FPDUs written each way (Initiator to Responder first).
    pub pcap: Option<(PathBuf, [usize; 2])>,
}

/// `rnic serve`: listens on `listen`, prints `listening on ADDR` (stdout, flushed), accepts
/// one connection, sets up MPA as the Responder and serves one `rnic connect` run.
pub fn serve(listen: SocketAddr, max_bytes: u64, a: &TcpArgs) -> Result<ServeSummary> {
    let start = Instant::now();
    let mut br = TcpBridge::new(bridge_config(a));
    let local = br.listen(listen).context("listen")?;
    println!("listening on {local}");
    std::io::stdout().flush()?;
    let peer = br.accept(0, a.timeout).context("accept")?;
    let mut dev = open(a, br)?;
    let pd = dev.alloc_pd()?;
    let cq = dev.create_cq(10)?;
    let qp = dev.create_qp(pd, cq, cq, QpCaps::default())?;
    let half = max_bytes.max(4).next_multiple_of(4096);
    let buf = dev.alloc_buf(2 * half, 4096)?;
    let mr = dev.reg_mr(
        pd,
        buf.addr,
        buf.len,
        access::LOCAL_WRITE | access::REMOTE_WRITE | access::REMOTE_READ,
        false,
    )?;
    let reply = ReplyPd {
        rkey: mr.rkey,
        addr: mr.addr,
        half,
    };
    let cfg = CmConfig {
        private_data: reply.emit(),
        release_hold: false,
        ..CmConfig::default()
    };
    let est = dev
        .connect_cm(qp, Role::Responder, cfg)
        .map_err(|e| anyhow!("MPA setup (Responder): {e}"))?;
    let req = RequestPd::parse(&est.remote_private_data)?;
    let total = u64::from(req.size) * u64::from(req.count);
    // The peer checks this too; refuse before letting any FPDU in.
    ensure!(
        total <= half,
        "{} x {} bytes exceed the {half}-byte halves",
        req.count,
        req.size
    );
    match req.op {
        TcpOp::Read => {
            for i in 0..req.count {
                let at = mr.addr + half + u64::from(i) * u64::from(req.size);
                dev.write_mem(at, &pattern(req.seed, b'R', i, req.size));
            }
        }
        TcpOp::Send => {
            ensure!(req.count <= 256, "at most 256 Sends (the receive queue)");
            for i in 0..req.count {
                dev.post_recv(
                    qp,
                    &RecvWr {
                        wr_id: u64::from(i),
                        sg_list: vec![sge(&mr, u64::from(i) * u64::from(req.size), req.size)],
                    },
                )?;
            }
        }
        TcpOp::Write => {}
    }
    // Now the peer's FPDUs may come in.
    dev.sim_mut().llp_mut().hold_rx(qp.0, false);
    let mut wcs: Vec<Wc> = Vec::new();
    loop {
        check_deadline(start, a, "serving")?;
        dev.run(256);
        if req.op == TcpOp::Send {
            wcs.extend(dev.poll_cq(cq, 16)?);
        }
        if let Some(ev) = dev.query_async_event(qp)? {
            bail!("QP {} raised {ev:?}", qp.0);
        }
        match closed(&dev) {
            Some(CloseReason::Eof) => break,
            Some(CloseReason::Error(k)) => bail!("the connection failed: {k:?}"),
            None => {}
        }
    }
    settle(&mut dev)?;
    let mut verified = 0;
    match req.op {
        TcpOp::Write => {
            for i in 0..req.count {
                let at = mr.addr + u64::from(i) * u64::from(req.size);
                let got = dev.read_mem(at, req.size as usize);
                ensure!(
                    got == pattern(req.seed, b'W', i, req.size),
                    "Write {i}: the bytes at {at:#x} differ from the seed's"
                );
                verified += u64::from(req.size);
            }
        }
        TcpOp::Send => {
            wcs.extend(dev.poll_cq(cq, 256)?);
            ensure!(
                wcs.len() == req.count as usize,
                "{} receive completions of {}",
                wcs.len(),
                req.count
            );
            for (k, w) in wcs.iter().enumerate() {
                ensure!(
                    w.wr_id == k as u64
                        && w.status == WcStatus::Success
                        && w.opcode == WcOpcode::Recv
                        && w.byte_len == req.size,
                    "receive completion {k}: {w:?}"
                );
                let at = mr.addr + k as u64 * u64::from(req.size);
                let got = dev.read_mem(at, req.size as usize);
                ensure!(
                    got == pattern(req.seed, b'S', k as u32, req.size),
                    "Send {k}: the received bytes differ from the seed's"
                );
                verified += u64::from(req.size);
            }
        }
        TcpOp::Read => {}
    }
    bridge(&mut dev)?.finish(0);
    dev.run(64);
    let pcap = save_pcap(&mut dev, a, Role::Responder, peer, local)?;
    Ok(ServeSummary {
        peer,
        request: req,
        established: est,
        bytes: total,
        verified_bytes: verified,
        cycles: dev.sim().cycles(),
        pcap,
    })
}

fn sge(mr: &Mr, off: u64, len: u32) -> Sge {
    Sge {
        addr: mr.addr + off,
        length: len,
        lkey: mr.lkey,
    }
}

/// What `connect` did.
#[derive(Clone, Debug)]
pub struct ConnectSummary {
    pub established: Established,
    pub ops: u32,
    pub bytes: u64,
    pub cycles: u64,
    /// With `--pcap`: the file and the FPDUs written each way (Initiator to Responder first).
    pub pcap: Option<(PathBuf, [usize; 2])>,
}

/// `rnic connect`: connects to `addr`, sets up MPA as the Initiator and runs `req` against the
/// serve side, at most `window` operations in flight, every byte checked (see the module
/// documentation).
pub fn connect(
    addr: SocketAddr,
    req: RequestPd,
    window: usize,
    a: &TcpArgs,
) -> Result<ConnectSummary> {
    let start = Instant::now();
    ensure!(
        (1..=256).contains(&req.count),
        "--count must be 1..=256 (got {})",
        req.count
    );
    let mut br = TcpBridge::new(bridge_config(a));
    let local = br
        .connect(0, addr, a.timeout)
        .with_context(|| format!("connect to {addr}"))?;
    let mut dev = open(a, br)?;
    let pd = dev.alloc_pd()?;
    let cq = dev.create_cq(10)?;
    let qp: Qp = dev.create_qp(pd, cq, cq, QpCaps::default())?;
    let total = u64::from(req.size) * u64::from(req.count);
    let buf = dev.alloc_buf(total.max(4), 4096)?;
    let mr = dev.reg_mr(
        pd,
        buf.addr,
        buf.len,
        access::LOCAL_READ | access::LOCAL_WRITE,
        false,
    )?;
    let cfg = CmConfig {
        private_data: req.emit(),
        ..CmConfig::default()
    };
    let est = dev
        .connect_cm(qp, Role::Initiator, cfg)
        .map_err(|e| anyhow!("MPA setup (Initiator): {e}"))?;
    let reply = ReplyPd::parse(&est.remote_private_data)?;
    ensure!(
        total <= reply.half,
        "{total} bytes exceed the serve side's {} bytes",
        reply.half
    );
    for i in 0..req.count {
        let off = u64::from(i) * u64::from(req.size);
        let data = match req.op {
            TcpOp::Write => pattern(req.seed, b'W', i, req.size),
            TcpOp::Send => pattern(req.seed, b'S', i, req.size),
            TcpOp::Read => vec![0; req.size as usize],
        };
        dev.write_mem(mr.addr + off, &data);
    }
    let window = window.max(1);
    let mut posted = 0u32;
    let mut done = 0u32;
    while done < req.count {
        check_deadline(start, a, "the operations")?;
        while posted < req.count && ((posted - done) as usize) < window {
            let off = u64::from(posted) * u64::from(req.size);
            let op = match req.op {
                TcpOp::Write => SendOp::RdmaWrite {
                    remote_addr: reply.addr + off,
                    rkey: reply.rkey,
                },
                TcpOp::Read => SendOp::RdmaRead {
                    remote_addr: reply.addr + reply.half + off,
                    rkey: reply.rkey,
                },
                TcpOp::Send => SendOp::Send,
            };
            dev.post_send(
                qp,
                &SendWr {
                    wr_id: u64::from(posted),
                    op,
                    sg_list: if req.size == 0 {
                        Vec::new()
                    } else {
                        vec![sge(&mr, off, req.size)]
                    },
                    signaled: true,
                    fence: false,
                },
            )?;
            posted += 1;
        }
        dev.run(64);
        for w in dev.poll_cq(cq, 16)? {
            ensure!(
                w.wr_id == u64::from(done) && w.status == WcStatus::Success,
                "operation {done}: completion {w:?}"
            );
            if req.op == TcpOp::Read {
                let off = u64::from(done) * u64::from(req.size);
                let got = dev.read_mem(mr.addr + off, req.size as usize);
                ensure!(
                    got == pattern(req.seed, b'R', done, req.size),
                    "Read {done}: the bytes differ from the seed's"
                );
            }
            done += 1;
        }
        if let Some(ev) = dev.query_async_event(qp)? {
            bail!("QP {} raised {ev:?}", qp.0);
        }
        if let Some(CloseReason::Error(k)) = closed(&dev) {
            bail!("the connection failed: {k:?}");
        }
    }
    // Every FPDU out of the core and the bridge, then close our side; wait for the serve side's
    // close (it checks first), bounded.
    settle(&mut dev)?;
    bridge(&mut dev)?.finish(0);
    while closed(&dev).is_none() {
        check_deadline(start, a, "the serve side's close")?;
        dev.run(256);
    }
    let pcap = save_pcap(&mut dev, a, Role::Initiator, local, addr)?;
    Ok(ConnectSummary {
        established: est,
        ops: req.count,
        bytes: total,
        cycles: dev.sim().cycles(),
        pcap,
    })
}

/// The serve side's summary as printed.
pub fn format_serve(s: &ServeSummary) -> String {
    let m = s.established.mpa;
    format!(
        "serve: {} from {} (MPA rev {}, CRC {}, markers {}, IRD {} ORD {})\n\
         operations      {} x {} bytes\n\
         bytes           {}\n\
         verified bytes  {}\n\
         cycles          {}\n\
         errors          0{}",
        op_name(s.request.op),
        s.peer,
        m.revision,
        on_off(m.rx_crc),
        on_off(m.rx_markers || m.tx_markers),
        m.ird,
        m.ord,
        s.request.count,
        s.request.size,
        s.bytes,
        s.verified_bytes,
        s.cycles,
        pcap_line(&s.pcap)
    )
}

/// The connect side's summary as printed.
pub fn format_connect(req: &RequestPd, s: &ConnectSummary) -> String {
    let m = s.established.mpa;
    format!(
        "connect: {} (MPA rev {}, CRC {}, markers {}, IRD {} ORD {})\n\
         operations      {} x {} bytes\n\
         bytes           {}\n\
         cycles          {}\n\
         errors          0 (every completion and every byte verified against seed {}){}",
        op_name(req.op),
        m.revision,
        on_off(m.rx_crc),
        on_off(m.rx_markers || m.tx_markers),
        m.ird,
        m.ord,
        s.ops,
        req.size,
        s.bytes,
        s.cycles,
        req.seed,
        pcap_line(&s.pcap)
    )
}

fn op_name(op: TcpOp) -> &'static str {
    match op {
        TcpOp::Write => "RDMA Write",
        TcpOp::Read => "RDMA Read",
        TcpOp::Send => "Send",
    }
}

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}
