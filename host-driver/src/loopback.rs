//! `rnic loopback`, the main job: two QPs of one simulated core connected to each other
//! through the LLP loopback model (MPA set up through the firmware, [`crate::cm`]), a chosen traffic mix run through the verbs API, every byte
//! verified, and a summary.
//!
//! Outputs on request:
//!
//! - `--vcd FILE`: a VCD waveform of the whole core for the whole run
//!   ([`SimDevice::new_traced`]); written as the simulation runs, complete when [`run`] returns.
//! - `--pcap FILE`: the wire traffic as a classic pcap of Ethernet / IPv4 / TCP frames that
//!   Wireshark's iWARP dissectors (MPA, DDP, RDMAP) decode. The loopback model captures every
//!   packet the core transmits ([`LoopbackConfig::capture`]); [`write_pcap`] writes them one
//!   TCP connection per connected QP pair, one MPA PDU per TCP segment
//!   ([`rnic_sim::pcap::mpa::MpaCapture`]).
//!
//! **The MPA Request and Reply** are the ones the firmware exchanged through the core's raw
//! ports ([`crate::cm`]), captured on the wire like every FPDU. A capture of QPs put in FPDU
//! mode directly (`Device::connect`, no MPA exchange) gets them **synthesized**: Wireshark needs them to recognise the stream as MPA and to learn
//! whether FPDUs carry markers and a CRC (RFC 5044 §7.1). [`mpa_frame`] builds them from the
//! session's [`ConnParams`] with `rnic_proto::mpa` (Rev 2 with the RFC 6581 §1.2 enhanced
//! IRD/ORD, client-server model) and [`write_pcap`] puts them before the FPDUs. FPDU mode, and
//! the marker grid, start at the first octet after each frame (RFC 5044 §5.3), which is where
//! the core's stream starts, so the FPDUs are the core's octets unchanged.
//!
//! Known limit of the decoder, not of the capture: with markers, Wireshark 4.0 miscounts the
//! markers of an FPDU that ends exactly on the 512-octet grid ([`ends_on_marker_grid`]); the
//! summary says how many FPDUs of the capture do ([`CaptureStats::grid_end_fpdus`]) and
//! which options confine the damage to them ([`WIRESHARK_MARKER_OPTIONS`]).

use crate::cm;
use crate::traffic::{Mix, OpKind, Session, Sizes, Summary, TrafficConfig};
use crate::verbs::{ConnParams, Device, VerbsError};
use anyhow::{anyhow, bail, Context, Result};
use rnic_proto::mpa::frame::REQUEST_KEY;
use rnic_proto::mpa::{EnhancedData, Frame, FrameKind, FrameRepr, MARKER_LEN};
use rnic_sim::dma_port::DmaConfig;
use rnic_sim::loopback::{LlpLoopback, LoopbackConfig};
use rnic_sim::pcap::mpa::{MpaCapture, MpaSplitter, Pdu};
use rnic_sim::pcap::{Direction, PcapWriter, TcpConnection, DEFAULT_MSS};
use rnic_sim::tb::rnic::{DeviceConfig, SimDevice};
use rnic_sim::testbench::BackendKind;
use std::collections::BTreeSet;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// Timestamp of the first frame of a capture (2023-11-14 22:13:20 UTC, in microseconds):
/// fixed, so that a run's capture is the same file every time. One cycle is 10 ns after it.
pub const PCAP_START_US: u64 = 1_700_000_000_000_000;

/// The capture timestamp of core cycle `cycle` (10 ns each, 100 MHz): just after the frames
/// stamped [`PCAP_START_US`].
pub const fn pcap_time_us(cycle: u64) -> u64 {
    PCAP_START_US + 1 + cycle / 100
}

/// Private data of the synthesized MPA frames: says in the capture itself that they are.
pub const SYNTHESIZED_PRIVATE_DATA: &[u8] = b"rnic loopback: synthesized MPA frame";

/// Largest TCP payload [`write_pcap`] uses (the 16-bit IPv4 Total Length less the headers).
const MAX_MSS: usize = 65_495;

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
    /// Set the connection up with the MPA exchange through the firmware (the default of the
    /// command); else put both QPs in FPDU mode directly (and synthesize the MPA frames of a
    /// capture).
    pub mpa_setup: bool,
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

/// What a capture holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureStats {
    /// The file written.
    pub path: PathBuf,
    /// Frames (records) in it.
    pub frames: u64,
    /// Packets the core transmitted (`llp_tx_*` up to `last`).
    pub packets: usize,
    /// FPDUs written, per TCP connection and direction (Initiator to Responder first), found
    /// again from the MPA framing.
    pub fpdus: Vec<[usize; 2]>,
    /// The TCP MSS of the capture's connections.
    pub mss: usize,
    /// FPDUs that Wireshark 4.0 cannot dissect (see [`ends_on_marker_grid`]); 0 without
    /// markers. They and the FPDUs after them in their direction may show as TCP data.
    pub grid_end_fpdus: usize,
    /// The MPA Request / Reply were synthesized (QPs put in FPDU mode without an exchange).
    pub synthesized_frames: bool,
}

impl CaptureStats {
    /// FPDUs in all.
    pub fn total_fpdus(&self) -> usize {
        self.fpdus.iter().map(|d| d[0] + d[1]).sum()
    }
}

/// What a run did: the traffic's summary and, with `--pcap`, the capture.
#[derive(Clone, Debug)]
pub struct Report {
    pub summary: Summary,
    pub capture: Option<CaptureStats>,
}

/// The MPA Request (`kind` = Request, sent by the Initiator) or Reply of a connection set up
/// with `p`, as [`write_pcap`] synthesizes it: Rev 2, S = 1 with the RFC 6581 §1.2 enhanced
/// connection data (IRD = `p.ird`, ORD = `p.ord`, A = 0: client-server, no RTR message follows),
/// C = `p.tx_crc`, and M = `p.tx_markers`. M asks for markers on what the frame's sender
/// *receives* (RFC 5044 §7.1); both QPs of a session are connected with the same `p`, so each
/// side receives what the other sends with `tx_markers`. Private data:
/// [`SYNTHESIZED_PRIVATE_DATA`].
pub fn mpa_frame(kind: FrameKind, p: &ConnParams) -> Vec<u8> {
    let repr = FrameRepr {
        kind,
        markers: p.tx_markers,
        crc: p.tx_crc,
        reject: false,
        revision: rnic_proto::mpa::frame::REVISION_2,
        enhanced: Some(EnhancedData {
            ird: u16::from(p.ird),
            ord: u16::from(p.ord),
            peer_to_peer: None,
        }),
        private_data: SYNTHESIZED_PRIVATE_DATA,
    };
    let mut buf = vec![0; repr.buffer_len()];
    repr.emit(&mut Frame::new_unchecked(&mut buf[..]))
        .expect("IRD/ORD of at most 15 and a short private data always fit");
    buf
}

/// Whether Wireshark 4.0's MPA dissector (`packet-iwarp-mpa.c`) miscounts the markers of an
/// FPDU of `len` octets (markers and any leading marker included) that starts at FPDU-mode
/// stream offset `offset`: with markers it takes one segment for one FPDU and counts
/// `(len - first) / 512 + 1` markers from the first marker position `first`, one too many
/// when the FPDU ends exactly on the 512-octet grid (RFC 5044 §5.3 puts the next marker there,
/// the first octets of the *next* FPDU). It then wants four more octets than the segment has,
/// and TCP's PDU tracking carries the misalignment into every later segment of that direction,
/// so the rest of it shows as TCP data. With [`WIRESHARK_MARKER_OPTIONS`] (no TCP reassembly,
/// no sequence analysis) only these FPDUs are lost. The capture is right (the octets are the
/// core's); the dissector is not, so this is reported, not hidden.
pub fn ends_on_marker_grid(offset: u32, len: usize) -> bool {
    let interval = rnic_proto::mpa::MARKER_INTERVAL as usize;
    let first = (interval - offset as usize % interval) % interval;
    first < len && (len - first).is_multiple_of(interval)
}

/// FPDUs of one direction's FPDU-mode stream `bytes` (with markers) that end on the marker
/// grid ([`ends_on_marker_grid`]).
fn grid_end_fpdus(bytes: &[u8]) -> usize {
    let mut split = MpaSplitter::fpdu_mode(true);
    let mut offset = 0u32;
    let mut n = 0;
    for pdu in split.push(bytes) {
        if let Pdu::Fpdu(b) = pdu {
            n += usize::from(ends_on_marker_grid(offset, b.len()));
            offset = offset.wrapping_add(b.len() as u32);
        }
    }
    n
}

/// tshark / Wireshark options that confine the damage of FPDUs ending on the marker grid to
/// those FPDUs ([`ends_on_marker_grid`]); harmless otherwise (one FPDU per segment).
pub const WIRESHARK_MARKER_OPTIONS: [&str; 4] = [
    "-o",
    "tcp.analyze_sequence_numbers:FALSE",
    "-o",
    "tcp.desegment_tcp_streams:FALSE",
];

/// Writes the packets `lb` captured to the pcap file `path`: one TCP connection per connected
/// pair that carried traffic (the lower connection index is the Initiator,
/// [`TcpConnection::simulated`] of it), each opened with the synthesized MPA Request and Reply
/// of `p` ([`mpa_frame`], see the module documentation), then every packet in wire order, one
/// MPA PDU per TCP segment, at [`PCAP_START_US`] plus 10 ns per cycle; then the connections are
/// closed.
///
/// With markers, Wireshark 4.0 needs each FPDU in one segment, so the MSS is raised above 1460
/// when an FPDU with its markers is longer (a jumbo-frame link); without markers it stays at
/// 1460 and a longer FPDU spans segments, which Wireshark reassembles.
pub fn write_pcap(lb: &LlpLoopback, p: &ConnParams, path: &Path) -> Result<CaptureStats> {
    let packets = lb.captured();
    let initiators: BTreeSet<usize> = packets
        .iter()
        .map(|pk| lb.pair(pk.conn).map_or(pk.conn, |other| pk.conn.min(other)))
        .collect();
    let longest = packets.iter().map(|pk| pk.bytes.len()).max().unwrap_or(0);
    let mss = if p.tx_markers {
        (longest + MARKER_LEN).clamp(DEFAULT_MSS, MAX_MSS)
    } else {
        DEFAULT_MSS
    };
    let mut w = PcapWriter::create(path).with_context(|| format!("creating {}", path.display()))?;
    // The firmware's own MPA Request is the first packet when the connection was set up
    // through the raw ports; else the frames are synthesized.
    let real_frames = packets
        .first()
        .is_some_and(|pk| pk.bytes.starts_with(&REQUEST_KEY));
    let mut caps: Vec<(usize, MpaCapture)> = Vec::new();
    for &i in &initiators {
        let conn = u16::try_from(i).map_err(|_| anyhow!("connection {i} out of range"))?;
        let mut cap = MpaCapture::new(TcpConnection::simulated(conn).with_mss(mss));
        if real_frames {
            caps.push((i, cap));
            continue;
        }
        cap.push(
            &mut w,
            Direction::InitiatorToResponder,
            &mpa_frame(FrameKind::Request, p),
            PCAP_START_US,
        )?;
        cap.push(
            &mut w,
            Direction::ResponderToInitiator,
            &mpa_frame(FrameKind::Reply, p),
            PCAP_START_US,
        )?;
        caps.push((i, cap));
    }
    let mut t = PCAP_START_US;
    for pk in packets {
        t = t.max(pcap_time_us(pk.cycle));
        let dir = if initiators.contains(&pk.conn) {
            Direction::InitiatorToResponder
        } else {
            Direction::ResponderToInitiator
        };
        let initiator = lb.pair(pk.conn).map_or(pk.conn, |o| pk.conn.min(o));
        let (_, cap) = caps
            .iter_mut()
            .find(|(i, _)| *i == initiator)
            .expect("every packet's pair has a connection");
        cap.push(&mut w, dir, &pk.bytes, t)?;
    }
    let mut fpdus = Vec::new();
    for (_, cap) in caps.iter_mut() {
        t += 1;
        cap.finish(&mut w, t)?;
        fpdus.push([
            cap.fpdus(Direction::InitiatorToResponder),
            cap.fpdus(Direction::ResponderToInitiator),
        ]);
    }
    w.flush()
        .with_context(|| format!("writing {}", path.display()))?;
    let grid_end_fpdus = if p.tx_markers {
        let conns: BTreeSet<usize> = packets.iter().map(|pk| pk.conn).collect();
        conns
            .iter()
            .map(|&c| {
                // FPDU mode starts after the MPA frame (one raw packet) when it was sent.
                let stream: Vec<u8> = packets
                    .iter()
                    .filter(|pk| pk.conn == c)
                    .skip(usize::from(real_frames))
                    .flat_map(|pk| pk.bytes.iter().copied())
                    .collect();
                grid_end_fpdus(&stream)
            })
            .sum()
    } else {
        0
    };
    Ok(CaptureStats {
        path: path.to_path_buf(),
        frames: w.frames(),
        packets: packets.len(),
        fpdus,
        mss,
        grid_end_fpdus,
        synthesized_frames: !real_frames,
    })
}

/// Runs the session; with `--pcap`, writes the capture after it. The caller prints the report
/// ([`format_summary`]).
pub fn run(a: &LoopbackArgs) -> Result<Report> {
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
    let slot_bytes = u64::from(a.size) + 128;
    let mut session = if a.mpa_setup {
        Session::new_with(dev, 1, slots, slot_bytes, |dev, p| {
            let probe = (p.cq[0], p.remote_mr[1].rkey, p.remote_mr[1].addr);
            cm::connect_pair(dev, p.qp, cm.clone(), Some(probe))
                .map_err(|e| VerbsError::Device(format!("MPA setup: {e}")))?;
            Ok(())
        })?
    } else {
        Session::new(dev, 1, slots, slot_bytes, a.params)?
    };
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
    let capture = match &a.pcap {
        Some(path) => {
            let lb = session
                .dev
                .sim()
                .llp_as::<LlpLoopback>()
                .ok_or_else(|| anyhow!("the LLP model is not the loopback"))?;
            Some(write_pcap(lb, &a.params, path)?)
        }
        None => None,
    };
    // Dropping the device closes the VCD file (flushes its buffer).
    drop(session);
    Ok(Report { summary, capture })
}

/// The summary as printed.
pub fn format_summary(a: &LoopbackArgs, r: &Report) -> String {
    let s = &r.summary;
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
    ) + &outputs(a, r)
}

/// The lines about the files written (none without `--vcd` / `--pcap`).
fn outputs(a: &LoopbackArgs, r: &Report) -> String {
    let mut out = String::new();
    if let Some(path) = &a.vcd {
        out += &format!("\nvcd             {}", path.display());
    }
    if let Some(c) = &r.capture {
        out += &format!(
            "\npcap            {} ({} frames, {} FPDUs{})",
            c.path.display(),
            c.frames,
            c.total_fpdus(),
            if c.synthesized_frames {
                "; MPA Request/Reply synthesized"
            } else {
                ""
            }
        );
        if c.grid_end_fpdus > 0 {
            out += &format!(
                "\nnote            {} FPDU(s) end on the marker grid, which Wireshark 4.0 \
                 misparses: open with {} to lose only those",
                c.grid_end_fpdus,
                WIRESHARK_MARKER_OPTIONS.join(" ")
            );
        }
    }
    out
}
