//! Driver and monitor for [`rnic_hdl::mpa::mpa_rx::MpaRx`], usable on both back ends.
//!
//! The driver plays the LLP (a TCP offload engine handing over in-order byte streams) and the
//! firmware: per connection it sends a plan of [`Step`]s (bytes, configuration writes) with
//! each byte run cut into random segments (1 to 9000 bytes, 1-byte segments included) that
//! interleave across connections at segment boundaries, with random `llp_valid` gaps. The
//! consumers apply random back-pressure on `ulpdu_ready` and `raw_ready`. The monitor collects,
//! per connection, the ULPDUs (bytes and good flag), the raw bytes and the error codes, and
//! checks the stream rules of the output ports as it goes (first/last structure, keep, codes,
//! and `ulpdu_len` equal to the ULPDU's byte count on every one of its beats).
//!
//! [`golden_deliveries`] and [`hw_deliveries`] put the golden `Deframer`'s output and the
//! hardware's in the same form, so a test compares them with one `assert_eq!`.

use crate::stream::{beat_payload, packet_beats, Beat};
use crate::testbench::{Backend, BackendKind, InputId, OutputId};
use anyhow::{anyhow, Result};
use rand::{Rng, SeedableRng};
use rnic_hdl::config::{CONNECTIONS, DATA_WIDTH, MARKERS};
use rnic_hdl::mpa::mpa_rx::MpaRx;
use rnic_proto::mpa::{Deframer, DeframerConfig, Framer, LlpErrorCode, Status};
use std::collections::VecDeque;

/// A connection's receive configuration, as written through the `cfg_*` port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxConnConfig {
    pub fpdu_mode: bool,
    pub markers: bool,
    pub crc: bool,
    pub max_ulpdu: u16,
}

impl RxConnConfig {
    /// Raw mode (the power-up state): bytes verbatim to the firmware.
    pub const RAW: RxConnConfig = RxConnConfig {
        fpdu_mode: false,
        markers: false,
        crc: false,
        max_ulpdu: 0,
    };

    /// FPDU mode with these settings; markers only if the block is built with them
    /// ([`MARKERS`]; not in the `no-markers` build, where the stream has none either).
    pub const fn fpdu(markers: bool, crc: bool, max_ulpdu: u16) -> Self {
        RxConnConfig {
            fpdu_mode: true,
            markers: markers && MARKERS,
            crc,
            max_ulpdu,
        }
    }

    /// The golden deframer's configuration for the same settings (stream offset 0).
    pub fn deframer(&self) -> DeframerConfig {
        DeframerConfig {
            markers: self.markers,
            crc: self.crc,
            max_ulpdu: self.max_ulpdu,
            stream_offset: 0,
        }
    }
}

/// One step of a connection's plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Bytes of the connection's LLP stream, cut into random segments.
    Bytes(Vec<u8>),
    /// A configuration write, issued once everything sent before it on this connection has
    /// left the block (raw bytes delivered, pipeline drained), as the firmware does.
    Configure(RxConnConfig),
}

/// Random traffic shape.
#[derive(Clone, Copy, Debug)]
pub struct Traffic {
    /// Smallest segment of the non-tiny ones (bytes; the last segment of a run may be shorter).
    pub seg_min: usize,
    /// Largest segment (bytes).
    pub seg_max: usize,
    /// Probability that a segment is tiny (1 to 4 bytes).
    pub tiny: f64,
    /// Probability of an idle cycle before each LLP beat.
    pub idle: f64,
    /// Probability that `ulpdu_ready` is low in a cycle.
    pub ulpdu_stall: f64,
    /// Probability that `raw_ready` is low in a cycle.
    pub raw_stall: f64,
}

impl Traffic {
    /// Segments up to 9000 bytes, some tiny, 10 % idle input, 20 % back-pressure.
    pub const RANDOM: Traffic = Traffic {
        seg_min: 1,
        seg_max: 9000,
        tiny: 0.2,
        idle: 0.1,
        ulpdu_stall: 0.2,
        raw_stall: 0.2,
    };
    /// 9000-byte segments, input always valid, outputs always ready: the wire limit.
    pub const FULL_SPEED: Traffic = Traffic {
        seg_min: 9000,
        seg_max: 9000,
        tiny: 0.0,
        idle: 0.0,
        ulpdu_stall: 0.0,
        raw_stall: 0.0,
    };
}

/// One ULPDU as delivered on the `ulpdu_*` port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ulpdu {
    pub bytes: Vec<u8>,
    pub good: bool,
}

/// What the block delivered, per connection.
#[derive(Clone, Debug, Default)]
pub struct RxOutput {
    /// Complete ULPDUs (last beat seen).
    pub ulpdus: Vec<Vec<Ulpdu>>,
    /// The bytes of a ULPDU whose last beat has not come out yet.
    pub open: Vec<Option<Vec<u8>>>,
    /// The `ulpdu_len` of the open ULPDU's beats so far (all must equal its byte count).
    pub open_len: Vec<Option<u16>>,
    pub raw: Vec<Vec<u8>>,
    pub errors: Vec<Vec<u8>>,
    /// LLP beats accepted.
    pub beats_in: u64,
    /// Cycle of the first and the last accepted LLP beat.
    pub first_beat_cycle: Option<u64>,
    pub last_beat_cycle: Option<u64>,
}

impl RxOutput {
    /// Nothing received yet, on every connection.
    pub fn new() -> Self {
        RxOutput {
            ulpdus: vec![Vec::new(); CONNECTIONS],
            open: vec![None; CONNECTIONS],
            open_len: vec![None; CONNECTIONS],
            raw: vec![Vec::new(); CONNECTIONS],
            errors: vec![Vec::new(); CONNECTIONS],
            ..RxOutput::default()
        }
    }

    /// LLP input beats per cycle between the first and the last accepted beat.
    pub fn beats_per_cycle(&self) -> f64 {
        match (self.first_beat_cycle, self.last_beat_cycle) {
            (Some(a), Some(b)) => self.beats_in as f64 / (b - a + 1) as f64,
            _ => 0.0,
        }
    }
}

/// The golden deframer's deliveries for `stream` up to and including the first error.
pub fn golden_deliveries(stream: &[u8], config: DeframerConfig) -> Vec<(Vec<u8>, Status)> {
    let mut d = Deframer::new(vec![0u8; usize::from(config.max_ulpdu)], config)
        .expect("valid deframer configuration");
    let mut out = Vec::new();
    let mut rest = stream;
    while !rest.is_empty() {
        let (used, delivery) = d.feed(rest);
        if let Some(delivery) = delivery {
            out.push((delivery.ulpdu.to_vec(), delivery.status));
        }
        rest = &rest[used..];
    }
    out
}

/// The status an LLP error code stands for (0x2, 0x3, 0x5 as `Error::llp_error_code` maps them).
pub fn status_of_code(code: u8) -> Option<Status> {
    match LlpErrorCode::from_code(code)? {
        LlpErrorCode::CrcError => Some(Status::BadCrc),
        LlpErrorCode::MarkerError => Some(Status::BadMarker),
        LlpErrorCode::LocalCatastrophic => Some(Status::UlpduTooLong),
        _ => None,
    }
}

/// The hardware's deliveries of one connection in the golden form: every ULPDU with `Good`, or
/// for the bad one the status of the connection's error code; a code 0x5 (ULPDU_Length over the
/// maximum, no ULPDU sent) as an empty `UlpduTooLong` delivery. An error pulse that matches no
/// delivery still appears (as an empty delivery), so a comparison with the golden model fails.
pub fn hw_deliveries(ulpdus: &[Ulpdu], errors: &[u8]) -> Vec<(Vec<u8>, Status)> {
    let error = errors.first().map(|&c| {
        status_of_code(c).unwrap_or_else(|| panic!("error code {c:#x} is not an MPA RX code"))
    });
    let mut out = Vec::new();
    let mut used = false;
    for u in ulpdus {
        let status = if u.good {
            Status::Good
        } else {
            used = true;
            error.unwrap_or(Status::Good)
        };
        out.push((u.bytes.clone(), status));
    }
    if let Some(e) = error {
        if !used {
            out.push((Vec::new(), e));
        }
    }
    out
}

/// Golden FPDU stream of one connection: `ulpdus` framed by [`Framer`] from stream offset 0.
pub fn frame_stream(ulpdus: &[Vec<u8>], markers: bool, crc: bool) -> Vec<u8> {
    let mut framer = Framer::new(markers, crc);
    let mut out = Vec::new();
    for u in ulpdus {
        let len = u16::try_from(u.len()).expect("ULPDU of at most 65535 bytes");
        let mut buf = vec![0u8; framer.wire_len(len)];
        let n = framer.write_fpdu(u, &mut buf).expect("framing");
        out.extend_from_slice(&buf[..n]);
    }
    out
}

/// Ports of the block, resolved once.
pub struct MpaRxTb {
    llp_data: InputId,
    llp_keep: InputId,
    llp_last: InputId,
    llp_valid: InputId,
    llp_conn: InputId,
    cfg_write: InputId,
    cfg_conn: InputId,
    cfg_fpdu_mode: InputId,
    cfg_markers: InputId,
    cfg_crc: InputId,
    cfg_max_ulpdu: InputId,
    ulpdu_ready: InputId,
    raw_ready: InputId,
    llp_ready: OutputId,
    ulpdu_data: OutputId,
    ulpdu_keep: OutputId,
    ulpdu_first: OutputId,
    ulpdu_last: OutputId,
    ulpdu_good: OutputId,
    ulpdu_valid: OutputId,
    ulpdu_conn: OutputId,
    ulpdu_len: OutputId,
    raw_data: OutputId,
    raw_keep: OutputId,
    raw_last: OutputId,
    raw_valid: OutputId,
    raw_conn: OutputId,
    err_valid: OutputId,
    err_conn: OutputId,
    err_code: OutputId,
}

/// Per-connection driver state.
struct ConnPlan {
    steps: VecDeque<Step>,
    /// Segments of the current byte step still to send.
    segments: VecDeque<Vec<u8>>,
    /// Raw-mode bytes sent and not yet seen on `raw_*`.
    raw_pending: usize,
    fpdu_mode: bool,
    /// Cycle of the last accepted beat of this connection.
    last_beat: u64,
}

const DRAIN_IDLE_CYCLES: u64 = 64;
/// Cycles without any progress while input remains before the block is declared stuck.
const STUCK_CYCLES: u64 = 100_000;
/// Cycles after a connection's last beat before the pipeline is known to be empty of it.
const PIPELINE_CYCLES: u64 = 8;

impl MpaRxTb {
    /// Resolves the ports of an [`MpaRx`] on `sim`.
    pub fn new(sim: &dyn Backend) -> Result<Self> {
        Ok(MpaRxTb {
            llp_data: sim.input("llp_data")?,
            llp_keep: sim.input("llp_keep")?,
            llp_last: sim.input("llp_last")?,
            llp_valid: sim.input("llp_valid")?,
            llp_conn: sim.input("llp_conn")?,
            cfg_write: sim.input("cfg_write")?,
            cfg_conn: sim.input("cfg_conn")?,
            cfg_fpdu_mode: sim.input("cfg_fpdu_mode")?,
            cfg_markers: sim.input("cfg_markers")?,
            cfg_crc: sim.input("cfg_crc")?,
            cfg_max_ulpdu: sim.input("cfg_max_ulpdu")?,
            ulpdu_ready: sim.input("ulpdu_ready")?,
            raw_ready: sim.input("raw_ready")?,
            llp_ready: sim.output("llp_ready")?,
            ulpdu_data: sim.output("ulpdu_data")?,
            ulpdu_keep: sim.output("ulpdu_keep")?,
            ulpdu_first: sim.output("ulpdu_first")?,
            ulpdu_last: sim.output("ulpdu_last")?,
            ulpdu_good: sim.output("ulpdu_good")?,
            ulpdu_valid: sim.output("ulpdu_valid")?,
            ulpdu_conn: sim.output("ulpdu_conn")?,
            ulpdu_len: sim.output("ulpdu_len")?,
            raw_data: sim.output("raw_data")?,
            raw_keep: sim.output("raw_keep")?,
            raw_last: sim.output("raw_last")?,
            raw_valid: sim.output("raw_valid")?,
            raw_conn: sim.output("raw_conn")?,
            err_valid: sim.output("err_valid")?,
            err_conn: sim.output("err_conn")?,
            err_code: sim.output("err_code")?,
        })
    }

    /// Cuts `bytes` into random segments.
    fn segments(bytes: &[u8], traffic: &Traffic, rng: &mut impl Rng) -> VecDeque<Vec<u8>> {
        let mut out = VecDeque::new();
        let mut rest = bytes;
        while !rest.is_empty() {
            let n = if rng.gen_bool(traffic.tiny) {
                rng.gen_range(1..=4)
            } else {
                let max = match rng.gen_range(0..3) {
                    0 => 64,
                    1 => 1500,
                    _ => traffic.seg_max,
                }
                .clamp(traffic.seg_min.max(1), traffic.seg_max.max(1));
                rng.gen_range(traffic.seg_min.clamp(1, max)..=max)
            }
            .min(rest.len());
            out.push_back(rest[..n].to_vec());
            rest = &rest[n..];
        }
        out
    }

    /// Runs the plans (`plans[c]` for connection `c`; fewer plans than connections leave the
    /// others idle) to the end and drains the block. Returns what came out; every ULPDU begun
    /// must have ended.
    ///
    /// Panics (naming the cycle) on an output-protocol violation: a ULPDU beat with `first`
    /// while one is open, a beat without `first` while none is, a partial or empty `keep`
    /// outside the last beat, a non-contiguous `keep`, or an error code that is not 0x2, 0x3,
    /// 0x5; and when the block makes no progress for a long time.
    pub fn run(
        &self,
        sim: &mut dyn Backend,
        plans: &[Vec<Step>],
        traffic: &Traffic,
        rng: &mut impl Rng,
    ) -> RxOutput {
        let mut out = RxOutput::new();
        self.run_into(sim, plans, traffic, rng, &mut out);
        for (c, open) in out.open.iter().enumerate() {
            assert!(
                open.is_none(),
                "connection {c}: a ULPDU was left open after draining"
            );
        }
        out
    }

    /// As [`MpaRxTb::run`], adding to `out` (a ULPDU open in `out` may continue), and a ULPDU
    /// may be left open at the end (its beats so far in `out.open`).
    pub fn run_into(
        &self,
        sim: &mut dyn Backend,
        plans: &[Vec<Step>],
        traffic: &Traffic,
        rng: &mut impl Rng,
        out: &mut RxOutput,
    ) {
        assert!(plans.len() <= CONNECTIONS);
        let lanes = DATA_WIDTH / 8;
        let mut conns: Vec<ConnPlan> = plans
            .iter()
            .map(|p| ConnPlan {
                steps: p.iter().cloned().collect(),
                segments: VecDeque::new(),
                raw_pending: 0,
                fpdu_mode: false,
                last_beat: 0,
            })
            .collect();
        // The segment being sent: connection, beats, next beat.
        let mut current: Option<(usize, Vec<Beat>, usize)> = None;
        let mut idle_run = 0u64;
        let mut stuck_run = 0u64;
        sim.set(self.cfg_write, 0);
        loop {
            let cycle = sim.cycles();
            // Pick the next segment (or a configuration write) when none is in progress.
            let mut cfg: Option<(usize, RxConnConfig)> = None;
            if current.is_none() {
                let mut ready: Vec<usize> = Vec::new();
                for (c, p) in conns.iter_mut().enumerate() {
                    // Move to the next step when the current byte step is sent.
                    while p.segments.is_empty() {
                        match p.steps.front() {
                            Some(Step::Bytes(_)) => {
                                if let Some(Step::Bytes(b)) = p.steps.pop_front() {
                                    if !p.fpdu_mode {
                                        p.raw_pending += b.len();
                                    }
                                    p.segments = Self::segments(&b, traffic, rng);
                                }
                            }
                            _ => break,
                        }
                    }
                    let drained = p.raw_pending == 0 && cycle >= p.last_beat + PIPELINE_CYCLES;
                    let blocked = p.segments.is_empty()
                        && matches!(p.steps.front(), Some(Step::Configure(_)))
                        && !drained;
                    let has_work = !p.segments.is_empty() || !p.steps.is_empty();
                    if has_work && !blocked {
                        ready.push(c);
                    }
                }
                if let Some(&c) = ready.get(rng.gen_range(0..ready.len().max(1))) {
                    let p = &mut conns[c];
                    if let Some(seg) = p.segments.pop_front() {
                        current = Some((c, packet_beats(&seg, DATA_WIDTH), 0));
                    } else if let Some(Step::Configure(k)) = p.steps.pop_front() {
                        p.fpdu_mode = k.fpdu_mode;
                        cfg = Some((c, k));
                    }
                }
            }
            // Configuration port.
            match cfg {
                Some((c, k)) => {
                    sim.set(self.cfg_write, 1);
                    sim.set(self.cfg_conn, c as u128);
                    sim.set(self.cfg_fpdu_mode, u128::from(k.fpdu_mode));
                    sim.set(self.cfg_markers, u128::from(k.markers));
                    sim.set(self.cfg_crc, u128::from(k.crc));
                    sim.set(self.cfg_max_ulpdu, u128::from(k.max_ulpdu));
                }
                None => {
                    sim.set(self.cfg_write, 0);
                    sim.set(self.cfg_conn, rng.gen());
                    sim.set(self.cfg_fpdu_mode, rng.gen());
                    sim.set(self.cfg_markers, rng.gen());
                    sim.set(self.cfg_crc, rng.gen());
                    sim.set(self.cfg_max_ulpdu, rng.gen());
                }
            }
            // LLP input, with random gaps.
            let offer = match &current {
                Some((c, beats, i)) if cfg.is_none() && !rng.gen_bool(traffic.idle) => {
                    Some((*c, beats[*i]))
                }
                _ => None,
            };
            match offer {
                Some((c, beat)) => {
                    sim.set(self.llp_valid, 1);
                    sim.set(self.llp_data, beat.data);
                    sim.set(self.llp_keep, beat.keep);
                    sim.set(self.llp_last, u128::from(beat.last));
                    sim.set(self.llp_conn, c as u128);
                }
                None => {
                    sim.set(self.llp_valid, 0);
                    sim.set(self.llp_data, rng.gen());
                    sim.set(self.llp_keep, rng.gen());
                    sim.set(self.llp_last, rng.gen());
                    sim.set(self.llp_conn, rng.gen());
                }
            }
            let ulpdu_ready = !rng.gen_bool(traffic.ulpdu_stall);
            let raw_ready = !rng.gen_bool(traffic.raw_stall);
            sim.set(self.ulpdu_ready, u128::from(ulpdu_ready));
            sim.set(self.raw_ready, u128::from(raw_ready));

            let mut active = cfg.is_some();
            // Input handshake.
            if let Some((c, _)) = offer {
                if sim.get(self.llp_ready) == 1 {
                    active = true;
                    out.beats_in += 1;
                    out.first_beat_cycle.get_or_insert(cycle);
                    out.last_beat_cycle = Some(cycle);
                    conns[c].last_beat = cycle;
                    if let Some((_, beats, i)) = &mut current {
                        *i += 1;
                        if *i == beats.len() {
                            current = None;
                        }
                    }
                }
            }
            // ULPDU output.
            if ulpdu_ready && sim.get(self.ulpdu_valid) == 1 {
                active = true;
                let c = sim.get(self.ulpdu_conn) as usize;
                let beat = Beat {
                    data: sim.get(self.ulpdu_data),
                    keep: sim.get(self.ulpdu_keep),
                    last: sim.get(self.ulpdu_last) == 1,
                };
                let first = sim.get(self.ulpdu_first) == 1;
                let good = sim.get(self.ulpdu_good) == 1;
                let len = sim.get(self.ulpdu_len) as u16;
                check_keep(beat.keep, lanes, cycle);
                let open = &mut out.open[c];
                if first {
                    assert!(
                        open.is_none(),
                        "cycle {cycle}: ULPDU first beat on connection {c} while one is open"
                    );
                    *open = Some(Vec::new());
                    out.open_len[c] = Some(len);
                } else {
                    assert_eq!(
                        out.open_len[c],
                        Some(len),
                        "cycle {cycle}: ulpdu_len changed within a ULPDU (connection {c})"
                    );
                    assert!(
                        open.is_some(),
                        "cycle {cycle}: ULPDU beat without first on connection {c}"
                    );
                }
                let full = (1u128 << lanes) - 1;
                if !beat.last {
                    assert_eq!(
                        beat.keep, full,
                        "cycle {cycle}: partial keep before the last beat (connection {c})"
                    );
                } else if beat.keep == 0 {
                    assert!(
                        first,
                        "cycle {cycle}: empty last beat that is not a 0-byte ULPDU (connection {c})"
                    );
                }
                if let Some(bytes) = open.as_mut() {
                    bytes.extend(beat_payload(&beat, DATA_WIDTH));
                }
                if beat.last {
                    let bytes = open.take().unwrap_or_default();
                    assert_eq!(
                        usize::from(len),
                        bytes.len(),
                        "cycle {cycle}: ulpdu_len of a ULPDU of {} bytes (connection {c})",
                        bytes.len()
                    );
                    out.open_len[c] = None;
                    out.ulpdus[c].push(Ulpdu { bytes, good });
                }
            }
            // Raw output.
            if raw_ready && sim.get(self.raw_valid) == 1 {
                active = true;
                let c = sim.get(self.raw_conn) as usize;
                let beat = Beat {
                    data: sim.get(self.raw_data),
                    keep: sim.get(self.raw_keep),
                    last: sim.get(self.raw_last) == 1,
                };
                check_keep(beat.keep, lanes, cycle);
                let bytes = beat_payload(&beat, DATA_WIDTH);
                if let Some(p) = conns.get_mut(c) {
                    p.raw_pending = p.raw_pending.saturating_sub(bytes.len());
                }
                out.raw[c].extend(bytes);
            }
            // Errors.
            if sim.get(self.err_valid) == 1 {
                active = true;
                let c = sim.get(self.err_conn) as usize;
                let code = sim.get(self.err_code) as u8;
                assert!(
                    status_of_code(code).is_some(),
                    "cycle {cycle}: error code {code:#x} on connection {c}"
                );
                out.errors[c].push(code);
            }
            sim.tick();

            let sending = current.is_some()
                || conns
                    .iter()
                    .any(|p| !p.segments.is_empty() || !p.steps.is_empty());
            idle_run = if active || sending { 0 } else { idle_run + 1 };
            if !sending && idle_run >= DRAIN_IDLE_CYCLES {
                break;
            }
            stuck_run = if active { 0 } else { stuck_run + 1 };
            assert!(
                stuck_run < STUCK_CYCLES,
                "cycle {cycle}: no progress for {STUCK_CYCLES} cycles (llp_ready stuck low?)"
            );
        }
    }
}

/// `keep` contiguous from lane 0 (the most significant bit).
fn check_keep(keep: u128, lanes: usize, cycle: u64) {
    let n = keep.count_ones() as usize;
    let contiguous = if n == 0 {
        0
    } else {
        ((1u128 << n) - 1) << (lanes - n)
    };
    assert_eq!(
        keep, contiguous,
        "cycle {cycle}: keep {keep:#b} not contiguous from lane 0"
    );
}

/// LLP input throughput of one back end for one ULPDU size.
#[derive(Clone, Debug)]
pub struct RxThroughput {
    pub backend: &'static str,
    pub ulpdu_len: usize,
    pub beats: u64,
    pub cycles: u64,
}

impl RxThroughput {
    pub fn beats_per_cycle(&self) -> f64 {
        self.beats as f64 / self.cycles as f64
    }
}

/// Benchmark: LLP input beats per cycle of [`MpaRx`] for ULPDUs of `ulpdu_len` bytes (CRC on,
/// markers off, one connection, 9000-byte segments, input always valid, outputs always ready),
/// about `bytes` bytes of stream. Counted from the first to the last accepted input beat.
/// The Verilator model is built without tracing. Fails if the deliveries differ from the
/// golden deframer's.
pub fn measure_beats_per_cycle(
    kind: BackendKind,
    ulpdu_len: usize,
    bytes: usize,
) -> Result<RxThroughput> {
    measure_interleaved(kind, ulpdu_len, 1, 9000, bytes)
}

/// As [`measure_beats_per_cycle`] with `connections` connections whose streams arrive in
/// segments of `segment` bytes, interleaved: the cost of the per-segment context switch.
/// `bytes` is the stream length of each connection.
pub fn measure_interleaved(
    kind: BackendKind,
    ulpdu_len: usize,
    connections: usize,
    segment: usize,
    bytes: usize,
) -> Result<RxThroughput> {
    let mut sim = kind.build_untraced(MpaRx::default())?;
    let tb = MpaRxTb::new(sim.as_ref())?;
    let len = u16::try_from(ulpdu_len).map_err(|_| anyhow!("ULPDU over 65535 bytes"))?;
    let cfg = RxConnConfig::fpdu(false, true, len);
    let count = (bytes / ulpdu_len.max(1)).max(2);
    let streams: Vec<Vec<u8>> = (0..connections)
        .map(|c| {
            let ulpdus: Vec<Vec<u8>> = (0..count)
                .map(|i| {
                    (0..ulpdu_len)
                        .map(|j| (i * 131 + j * 7 + c) as u8)
                        .collect()
                })
                .collect();
            frame_stream(&ulpdus, cfg.markers, cfg.crc)
        })
        .collect();
    let plans: Vec<Vec<Step>> = streams
        .iter()
        .map(|stream| vec![Step::Configure(cfg), Step::Bytes(stream.clone())])
        .collect();
    let traffic = Traffic {
        seg_min: segment,
        seg_max: segment,
        ..Traffic::FULL_SPEED
    };
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let got = tb.run(sim.as_mut(), &plans, &traffic, &mut rng);
    for (c, stream) in streams.iter().enumerate() {
        if hw_deliveries(&got.ulpdus[c], &got.errors[c])
            != golden_deliveries(stream, cfg.deframer())
        {
            return Err(anyhow!(
                "MPA RX delivered something else than the golden deframer on connection {c} \
                 during the benchmark"
            ));
        }
    }
    let (a, b) = (
        got.first_beat_cycle.unwrap_or(0),
        got.last_beat_cycle.unwrap_or(0),
    );
    Ok(RxThroughput {
        backend: kind.name(),
        ulpdu_len,
        beats: got.beats_in,
        cycles: b - a + 1,
    })
}

/// The benchmark's ULPDU sizes: 64 B, 1 KiB and the largest ULPDU_Length (65535).
pub const BENCH_ULPDU_SIZES: [usize; 3] = [64, 1024, 65535];
