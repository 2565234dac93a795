//! Driver, monitor and golden model for [`rnic_hdl::mpa::mpa_tx::MpaTx`], on either back end.
//!
//! A test is a script of [`Step`]s: configuration writes, and traffic steps whose ULPDUs and raw
//! packets are offered on the two inputs at the same time (each input in script order). The
//! monitor collects the LLP output as packets per connection and checks the stream rules on
//! the way (a beat held under back-pressure stays unchanged, `llp_conn` is constant over a
//! packet, `keep` is full except on the last beat). [`golden`] gives what the
//! `rnic_proto::mpa::Framer` says the same script must produce.

use crate::stream::{beat_payload, packet_beats, Beat};
use crate::testbench::{Backend, BackendKind, InputId, OutputId};
use anyhow::{anyhow, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_hdl::config::{CONNECTIONS, DATA_WIDTH, KEEP_WIDTH, MARKERS};
use rnic_hdl::mpa::mpa_tx::MpaTx;
use rnic_proto::mpa::{Framer, MAX_ULPDU};
use std::collections::VecDeque;

/// A configuration write (`cfg_*` ports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnConfig {
    pub conn: usize,
    pub fpdu_mode: bool,
    pub markers: bool,
    pub crc: bool,
}

/// One step of a script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A `cfg_write` cycle, issued once every packet of the steps before it was taken.
    Config(ConnConfig),
    /// ULPDUs and raw packets, `(connection, bytes)`, offered on both inputs at once.
    Traffic {
        ulpdus: Vec<(usize, Vec<u8>)>,
        raws: Vec<(usize, Vec<u8>)>,
    },
}

/// Stimulus randomness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrafficOptions {
    /// Probability that `llp_ready` is low in a cycle.
    pub backpressure: f64,
    /// Probability of an idle cycle (valid low, random data) before each input beat.
    pub gaps: f64,
}

impl TrafficOptions {
    /// `llp_ready` always high, inputs always valid: the wire limit.
    pub const FULL_SPEED: TrafficOptions = TrafficOptions {
        backpressure: 0.0,
        gaps: 0.0,
    };
}

/// What the block did with a script.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TxRun {
    /// LLP packets per connection, in order.
    pub packets: Vec<Vec<Vec<u8>>>,
    /// `err_conn` of every `err` pulse, in order.
    pub errors: Vec<usize>,
    /// Cycles the run took, drain included.
    pub cycles: u64,
    /// Cycles from the first cycle an input beat was offered to the cycle of the last LLP beat.
    pub active_cycles: u64,
    /// LLP beats moved.
    pub llp_beats: u64,
    /// ULPDU and raw input beats taken.
    pub ulpdu_beats: u64,
    pub raw_beats: u64,
}

impl TxRun {
    /// The LLP byte stream of connection `conn`: its packets back to back.
    pub fn bytes(&self, conn: usize) -> Vec<u8> {
        self.packets[conn].concat()
    }
    /// LLP beats per active cycle (1.0 is the wire limit).
    pub fn llp_beats_per_cycle(&self) -> f64 {
        self.llp_beats as f64 / self.active_cycles.max(1) as f64
    }
    /// ULPDU input beats per active cycle.
    pub fn input_beats_per_cycle(&self) -> f64 {
        (self.ulpdu_beats + self.raw_beats) as f64 / self.active_cycles.max(1) as f64
    }
}

/// The markers settings the block can be tested with: off, and on when it is built with them
/// ([`MARKERS`]; not in the `no-markers` build).
pub const MARKER_CASES: &[bool] = if MARKERS { &[false, true] } else { &[false] };

/// The expected output of a script: LLP packets per connection (the `Framer`'s FPDUs, raw
/// packets verbatim) and the connections of the refused packets, sorted. Every connection
/// starts in raw mode, as the block powers up. A block built without markers ([`MARKERS`]
/// false) ignores the configuration's markers bit: its FPDUs are the `Framer`'s without
/// markers.
pub fn golden(script: &[Step]) -> (Vec<Vec<Vec<u8>>>, Vec<usize>) {
    let mut state: Vec<Option<Framer>> = vec![None; CONNECTIONS];
    let mut packets = vec![Vec::new(); CONNECTIONS];
    let mut errors = Vec::new();
    let mut buf = vec![0u8; 70_000];
    for step in script {
        match step {
            Step::Config(c) => {
                state[c.conn] = c
                    .fpdu_mode
                    .then(|| Framer::new(c.markers && MARKERS, c.crc));
            }
            Step::Traffic { ulpdus, raws } => {
                for (conn, bytes) in raws {
                    match state[*conn] {
                        None => packets[*conn].push(bytes.clone()),
                        Some(_) => errors.push(*conn),
                    }
                }
                for (conn, bytes) in ulpdus {
                    match &mut state[*conn] {
                        Some(framer) => match framer.write_fpdu(bytes, &mut buf) {
                            Ok(n) => packets[*conn].push(buf[..n].to_vec()),
                            Err(_) => errors.push(*conn),
                        },
                        None => errors.push(*conn),
                    }
                }
            }
        }
    }
    errors.sort_unstable();
    (packets, errors)
}

/// One input stream's packets as beats, with the sideband of each packet.
struct Source {
    packets: VecDeque<(usize, usize, Vec<Beat>)>,
    beat: usize,
    gap: bool,
}

impl Source {
    fn new(packets: &[(usize, Vec<u8>)]) -> Self {
        Source {
            packets: packets
                .iter()
                .map(|(conn, bytes)| (*conn, bytes.len(), packet_beats(bytes, DATA_WIDTH)))
                .collect(),
            beat: 0,
            gap: false,
        }
    }

    fn current(&self) -> Option<(usize, usize, Beat)> {
        self.packets
            .front()
            .map(|(conn, len, beats)| (*conn, *len, beats[self.beat]))
    }

    fn advance(&mut self) {
        let beats = self.packets.front().map_or(0, |p| p.2.len());
        self.beat += 1;
        if self.beat == beats {
            self.beat = 0;
            self.packets.pop_front();
        }
    }
}

/// Port handles of an [`MpaTx`] on a back end.
pub struct MpaTxTb {
    ulpdu_data: InputId,
    ulpdu_keep: InputId,
    ulpdu_last: InputId,
    ulpdu_valid: InputId,
    ulpdu_conn: InputId,
    ulpdu_len: InputId,
    ulpdu_ready: OutputId,
    raw_data: InputId,
    raw_keep: InputId,
    raw_last: InputId,
    raw_valid: InputId,
    raw_conn: InputId,
    raw_ready: OutputId,
    cfg_write: InputId,
    cfg_conn: InputId,
    cfg_fpdu_mode: InputId,
    cfg_markers: InputId,
    cfg_crc: InputId,
    llp_data: OutputId,
    llp_keep: OutputId,
    llp_last: OutputId,
    llp_valid: OutputId,
    llp_ready: InputId,
    llp_conn: OutputId,
    err: OutputId,
    err_conn: OutputId,
}

/// The LLP beat on the outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LlpBeat {
    data: u128,
    keep: u128,
    last: bool,
    conn: usize,
}

impl MpaTxTb {
    /// Resolves the ports of an [`MpaTx`] on `sim`.
    pub fn new(sim: &dyn Backend) -> Result<Self> {
        Ok(MpaTxTb {
            ulpdu_data: sim.input("ulpdu_data")?,
            ulpdu_keep: sim.input("ulpdu_keep")?,
            ulpdu_last: sim.input("ulpdu_last")?,
            ulpdu_valid: sim.input("ulpdu_valid")?,
            ulpdu_conn: sim.input("ulpdu_conn")?,
            ulpdu_len: sim.input("ulpdu_len")?,
            ulpdu_ready: sim.output("ulpdu_ready")?,
            raw_data: sim.input("raw_data")?,
            raw_keep: sim.input("raw_keep")?,
            raw_last: sim.input("raw_last")?,
            raw_valid: sim.input("raw_valid")?,
            raw_conn: sim.input("raw_conn")?,
            raw_ready: sim.output("raw_ready")?,
            cfg_write: sim.input("cfg_write")?,
            cfg_conn: sim.input("cfg_conn")?,
            cfg_fpdu_mode: sim.input("cfg_fpdu_mode")?,
            cfg_markers: sim.input("cfg_markers")?,
            cfg_crc: sim.input("cfg_crc")?,
            llp_data: sim.output("llp_data")?,
            llp_keep: sim.output("llp_keep")?,
            llp_last: sim.output("llp_last")?,
            llp_valid: sim.output("llp_valid")?,
            llp_ready: sim.input("llp_ready")?,
            llp_conn: sim.output("llp_conn")?,
            err: sim.output("err")?,
            err_conn: sim.output("err_conn")?,
        })
    }

    /// Drives one input stream for this cycle; returns whether a beat is offered.
    fn offer(
        sim: &mut dyn Backend,
        src: &mut Source,
        ports: [InputId; 5],
        len_port: Option<InputId>,
        gaps: f64,
        rng: &mut impl Rng,
    ) -> bool {
        let [data, keep, last, valid, conn] = ports;
        // An idle cycle before a beat; a beat once offered stays until taken.
        let idle = src.gap;
        if idle {
            src.gap = rng.gen_bool(gaps);
        }
        match src.current() {
            Some((c, len, beat)) if !idle => {
                sim.set(data, beat.data);
                sim.set(keep, beat.keep);
                sim.set(last, u128::from(beat.last));
                sim.set(conn, c as u128);
                if let Some(p) = len_port {
                    sim.set(p, len as u128);
                }
                sim.set(valid, 1);
                true
            }
            _ => {
                // Idle: everything but `valid` is noise.
                sim.set(data, rng.gen());
                sim.set(keep, rng.gen());
                sim.set(last, u128::from(rng.gen::<bool>()));
                sim.set(conn, rng.gen());
                if let Some(p) = len_port {
                    sim.set(p, rng.gen());
                }
                sim.set(valid, 0);
                false
            }
        }
    }

    fn llp_beat(&self, sim: &mut dyn Backend) -> LlpBeat {
        LlpBeat {
            data: sim.get(self.llp_data),
            keep: sim.get(self.llp_keep),
            last: sim.get(self.llp_last) == 1,
            conn: sim.get(self.llp_conn) as usize,
        }
    }

    /// Runs `script` and collects the LLP output until it has been idle for a while. Panics on
    /// a stream-rule violation or when the block stops making progress (a hang).
    pub fn run(
        &self,
        sim: &mut dyn Backend,
        script: &[Step],
        opts: &TrafficOptions,
        rng: &mut impl Rng,
    ) -> TxRun {
        let full_keep = (1u128 << KEEP_WIDTH) - 1;
        let mut run = TxRun {
            packets: vec![Vec::new(); CONNECTIONS],
            ..TxRun::default()
        };
        let start = sim.cycles();
        let mut first_offer: Option<u64> = None;
        let mut last_llp = 0u64;
        let mut current: Option<(usize, Vec<u8>)> = None;
        let mut held: Option<LlpBeat> = None;
        let mut steps = script.iter();
        let mut ulpdu = Source::new(&[]);
        let mut raw = Source::new(&[]);
        let mut idle_cycles = 0u64;
        let mut stalled = 0u64;
        let ulpdu_ports = [
            self.ulpdu_data,
            self.ulpdu_keep,
            self.ulpdu_last,
            self.ulpdu_valid,
            self.ulpdu_conn,
        ];
        let raw_ports = [
            self.raw_data,
            self.raw_keep,
            self.raw_last,
            self.raw_valid,
            self.raw_conn,
        ];
        loop {
            // Next step once both inputs have delivered every packet of the current one.
            let mut cfg = None;
            if ulpdu.packets.is_empty() && raw.packets.is_empty() {
                match steps.next() {
                    Some(Step::Config(c)) => cfg = Some(*c),
                    Some(Step::Traffic { ulpdus, raws }) => {
                        ulpdu = Source::new(ulpdus);
                        raw = Source::new(raws);
                    }
                    None => {
                        if idle_cycles > 16 {
                            break;
                        }
                    }
                }
            }
            sim.set(self.cfg_write, u128::from(cfg.is_some()));
            let c = cfg.unwrap_or(ConnConfig {
                conn: rng.gen_range(0..CONNECTIONS),
                fpdu_mode: rng.gen(),
                markers: rng.gen(),
                crc: rng.gen(),
            });
            sim.set(self.cfg_conn, c.conn as u128);
            sim.set(self.cfg_fpdu_mode, u128::from(c.fpdu_mode));
            sim.set(self.cfg_markers, u128::from(c.markers));
            sim.set(self.cfg_crc, u128::from(c.crc));

            let u_offered = Self::offer(
                sim,
                &mut ulpdu,
                ulpdu_ports,
                Some(self.ulpdu_len),
                opts.gaps,
                rng,
            );
            let r_offered = Self::offer(sim, &mut raw, raw_ports, None, opts.gaps, rng);
            let now = sim.cycles() - start;
            if (u_offered || r_offered) && first_offer.is_none() {
                first_offer = Some(now);
            }
            let ready = opts.backpressure <= 0.0 || !rng.gen_bool(opts.backpressure);
            sim.set(self.llp_ready, u128::from(ready));

            // Monitor, before the edge.
            if sim.get(self.err) == 1 {
                run.errors.push(sim.get(self.err_conn) as usize);
            }
            let valid = sim.get(self.llp_valid) == 1;
            let beat = self.llp_beat(sim);
            if let Some(h) = held {
                assert!(
                    valid,
                    "llp_valid dropped under back-pressure at cycle {now}"
                );
                assert_eq!(
                    beat, h,
                    "LLP beat changed under back-pressure at cycle {now}"
                );
            }
            held = (valid && !ready).then_some(beat);
            let moved_llp = valid && ready;
            if moved_llp {
                run.llp_beats += 1;
                last_llp = now;
                let (conn, bytes) = current.get_or_insert_with(|| (beat.conn, Vec::new()));
                assert_eq!(
                    *conn, beat.conn,
                    "llp_conn changed inside a packet at cycle {now}"
                );
                assert!(
                    beat.last || beat.keep == full_keep,
                    "partial keep {:#x} before the last beat at cycle {now}",
                    beat.keep
                );
                let b = Beat {
                    data: beat.data,
                    keep: beat.keep,
                    last: beat.last,
                };
                bytes.extend(beat_payload(&b, DATA_WIDTH));
                if beat.last {
                    let (conn, bytes) = current.take().unwrap();
                    run.packets[conn].push(bytes);
                }
            }
            let u_moved = u_offered && sim.get(self.ulpdu_ready) == 1;
            let r_moved = r_offered && sim.get(self.raw_ready) == 1;
            sim.tick();

            let busy = u_offered || r_offered || valid;
            idle_cycles = if busy || cfg.is_some() {
                0
            } else {
                idle_cycles + 1
            };
            if u_moved {
                run.ulpdu_beats += 1;
                ulpdu.advance();
                ulpdu.gap = opts.gaps > 0.0 && rng.gen_bool(opts.gaps);
            }
            if r_moved {
                run.raw_beats += 1;
                raw.advance();
                raw.gap = opts.gaps > 0.0 && rng.gen_bool(opts.gaps);
            }
            if u_moved || r_moved || moved_llp {
                stalled = 0;
            } else {
                stalled += 1;
                assert!(
                    stalled < 1000,
                    "no progress for 1000 cycles at cycle {now}: the block hangs"
                );
            }
        }
        assert!(current.is_none(), "an LLP packet was left unfinished");
        run.cycles = sim.cycles() - start;
        run.active_cycles = last_llp.saturating_sub(first_offer.unwrap_or(0));
        run
    }
}

/// Throughput of the block at full speed (`llp_ready` always high, input always valid).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Throughput {
    pub backend: &'static str,
    pub ulpdu_len: usize,
    pub markers: bool,
    pub ulpdus: usize,
    /// LLP beats per cycle: 1.0 is the wire limit.
    pub llp_beats_per_cycle: f64,
    /// ULPDU beats per cycle.
    pub input_beats_per_cycle: f64,
    /// Protocol overhead: LLP beats per ULPDU beat (header, PAD, CRC, markers).
    pub overhead: f64,
}

/// Measures LLP beats per cycle and input beats per cycle for `ulpdus` ULPDUs of `ulpdu_len`
/// octets back to back on one connection (CRC on; markers as asked), on a fresh block, and checks
/// the output against the `Framer` on the way. Use `ulpdu_len` 64, 1024 and the maximum
/// (65535 without markers; see [`max_ulpdu_with_markers`]) for the `rnic bench` table.
pub fn measure_throughput(
    kind: BackendKind,
    ulpdu_len: usize,
    markers: bool,
    ulpdus: usize,
) -> Result<Throughput> {
    let mut sim: Box<dyn Backend> = kind.build_untraced(MpaTx::default())?;
    let tb = MpaTxTb::new(sim.as_ref())?;
    let mut rng = StdRng::seed_from_u64(ulpdu_len as u64);
    let conf = ConnConfig {
        conn: 0,
        fpdu_mode: true,
        markers,
        crc: true,
    };
    tb.run(
        sim.as_mut(),
        &[Step::Config(conf)],
        &TrafficOptions::FULL_SPEED,
        &mut rng,
    );
    let traffic = Step::Traffic {
        ulpdus: (0..ulpdus)
            .map(|i| (0, (0..ulpdu_len).map(|j| (i * 31 + j) as u8).collect()))
            .collect(),
        raws: Vec::new(),
    };
    let run = tb.run(
        sim.as_mut(),
        std::slice::from_ref(&traffic),
        &TrafficOptions::FULL_SPEED,
        &mut rng,
    );
    let (want, errors) = golden(&[Step::Config(conf), traffic]);
    if run.packets != want || !errors.is_empty() || !run.errors.is_empty() {
        return Err(anyhow!(
            "MPA TX output differs from the Framer during the benchmark ({} B ULPDUs)",
            ulpdu_len
        ));
    }
    Ok(Throughput {
        backend: kind.name(),
        ulpdu_len,
        markers,
        ulpdus,
        llp_beats_per_cycle: run.llp_beats_per_cycle(),
        input_beats_per_cycle: run.input_beats_per_cycle(),
        overhead: run.llp_beats as f64 / run.ulpdu_beats as f64,
    })
}

/// The `rnic bench` table: [`measure_throughput`] for ULPDUs of 64 octets, 1 KiB and the
/// largest (65535 without markers, [`max_ulpdu_with_markers`] with), markers off and on
/// ([`MARKER_CASES`]). The rust-hdl back end runs a tenth of the ULPDUs (at least two).
pub fn measure_throughput_table(kind: BackendKind) -> Result<Vec<Throughput>> {
    let scale = match kind {
        BackendKind::Verilator => 1,
        BackendKind::RustHdl => 10,
    };
    let mut table = Vec::new();
    for &markers in MARKER_CASES {
        let max = if markers {
            max_ulpdu_with_markers()
        } else {
            MAX_ULPDU
        };
        for (len, count) in [(64, 2000), (1024, 200), (max, 4)] {
            table.push(measure_throughput(
                kind,
                len,
                markers,
                (count / scale).max(2),
            )?);
        }
    }
    Ok(table)
}

/// The largest ULPDU the `Framer` accepts with markers at every stream offset (65022 octets):
/// longer ones overflow FPDUPTR at some offsets, and the block refuses them there.
pub fn max_ulpdu_with_markers() -> usize {
    (0..=u16::MAX)
        .rev()
        .find(|&l| (0..128).all(|w| !rnic_hdl::mpa::mpa_tx::fpduptr_overflows(l, w)))
        .map_or(0, usize::from)
}
