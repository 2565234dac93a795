//! Testbench driver of the whole receive path, `RxPath` (`hdl/src/rdmap/mod.rs`, "RxPath"):
//! MpaRx + DdpRxParse + StagCheck + RxControl + RxPlace + TerminateTx. It drives the block by
//! port NAME through [`Backend`], so it builds before the block exists, on both back ends.
//!
//! The bench plays everything around the core:
//! - the firmware: `mpa_cfg_*`, `qp_cfg_*`, `prog_*` writes (one-cycle strobes), `orq_push`,
//!   `irq_done` strobes;
//! - the LLP: a byte queue per connection, sent in LLP segments of random size
//!   ([`Knobs::seg_min`]..=[`Knobs::seg_max`]) that interleave across connections at segment
//!   boundaries, byte 0 in the MSB lane, `llp_last` on a segment's last beat, random
//!   `llp_valid` gaps;
//! - the RQ responder: answers each `rq_req_*` after a random latency (1..=20 cycles) with a
//!   one-cycle `rq_rsp_valid` strobe from the QP's WQE FIFO; one request outstanding at a
//!   time (`rq_req_ready` low meanwhile); `rq_req_pop = 1` consumes the head;
//! - host memory: [`HostMemory`] takes the `dma_wr_*` beats (random `dma_wr_ready`) and its
//!   protection monitor checks every byte;
//! - collectors for `cqe_*`, `aev_*`, `irq_*` and the Terminate ULPDUs on `tx_*` (reassembled
//!   per connection, length checked against `tx_len`), with random ready.
//!
//! Between campaign rounds the bench resets the QPs only when the core reports `rx_idle` and
//! its own stimulus is used up ([`RxPathBench::run_until_drained`]): segments dropped after a
//! QP's error move nothing out, so a quiet time on the outputs (the first bench waited for 600
//! cycles without output after the last input byte) can end with segments still in the core,
//! which were then checked on the reset QP.
//!
//! [`RxPathBench::check_against_model`] then compares, per QP, the CQEs, async events, IRQ
//! entries and Terminate ULPDUs with the model's, host memory with the image the model's
//! placements make, and fails on any monitor violation.
//!
//! Decisions the RxControl author and the lead must confirm (contract silent):
//! - an `rq_req` with `pop = 1` is answered too (with the WQE it consumed), so every request
//!   gets exactly one response, in order ([`Knobs::rq_answer_pops`] turns that off);
//! - the monitor applies a remote invalidation when the CQE with `cqe_with_inv` arrives (every
//!   placement of earlier segments of that QP is done by then).

use crate::host_mem::{HostMemory, Region};
use crate::mutate::{QpPlan, Setup, MAX_ULPDU};
use crate::rx_model::{AsyncEvent, Cqe, Expected, Irq, MrEntry, QpConfig, RecvWqe, RxModel, QPS};
use crate::stream::{beat_payload, packet_beats, Beat};
use crate::testbench::{Backend, InputId, OutputId};
use anyhow::Result;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_proto::mpa::Framer;
use rnic_proto::verbs::stag_index;
use std::collections::VecDeque;

/// Datapath width of the Cu build (bits).
const WIDTH: usize = 32;

/// Random traffic and back-pressure shape.
#[derive(Clone, Copy, Debug)]
pub struct Knobs {
    /// Smallest LLP segment (bytes).
    pub seg_min: usize,
    /// Largest LLP segment (bytes).
    pub seg_max: usize,
    /// Probability of an idle cycle on the LLP input.
    pub llp_idle: f64,
    /// Probability that `dma_wr_ready` is low.
    pub dma_stall: f64,
    /// Probability that each of `cqe_ready`, `aev_ready`, `irq_ready`, `tx_ready`,
    /// `raw_ready`, `rq_req_ready` is low.
    pub out_stall: f64,
    /// RQ responder latency range (cycles, at least 1).
    pub rq_latency: (u64, u64),
    /// Answer `rq_req` with `pop = 1` too.
    pub rq_answer_pops: bool,
}

impl Knobs {
    /// LLP segments 1..=1500 bytes, 10 % idle input, 20 % back-pressure everywhere, RQ
    /// latency 1..=20.
    pub const RANDOM: Knobs = Knobs {
        seg_min: 1,
        seg_max: 1500,
        llp_idle: 0.1,
        dma_stall: 0.2,
        out_stall: 0.2,
        rq_latency: (1, 20),
        rq_answer_pops: true,
    };
    /// 9000-byte LLP segments, input always valid, every ready high, RQ latency 1: the
    /// throughput limit, for benchmarks.
    pub const FULL_SPEED: Knobs = Knobs {
        seg_min: 9000,
        seg_max: 9000,
        llp_idle: 0.0,
        dma_stall: 0.0,
        out_stall: 0.0,
        rq_latency: (1, 1),
        rq_answer_pops: true,
    };
}

/// Counters of a run, for benchmarks (`measure_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// LLP beats accepted.
    pub llp_beats: u64,
    /// LLP bytes accepted.
    pub llp_bytes: u64,
    /// Cycle of the first and last accepted LLP beat.
    pub first_llp_cycle: Option<u64>,
    pub last_llp_cycle: Option<u64>,
    /// DMA write beats and bytes accepted.
    pub dma_beats: u64,
    pub dma_bytes: u64,
    /// Cycle of the last accepted DMA write beat.
    pub last_dma_cycle: Option<u64>,
    /// Cycle of the last output handshake of any kind.
    pub last_output_cycle: Option<u64>,
    /// Per connection: FPDUs queued by [`RxPathBench::send_ulpdus`], and `fpdu_good_valid`
    /// strobes seen (FPDUs that passed MPA's checks).
    pub ulpdus_sent: [u64; QPS],
    pub fpdu_good: [u64; QPS],
}

impl Stats {
    /// Accepted LLP beats per cycle between the first and last accepted beat.
    pub fn llp_beats_per_cycle(&self) -> f64 {
        match (self.first_llp_cycle, self.last_llp_cycle) {
            (Some(a), Some(b)) => self.llp_beats as f64 / (b - a + 1) as f64,
            _ => 0.0,
        }
    }
}

/// Ports of `RxPath`, resolved once by name.
#[derive(Clone, Copy)]
struct Ports {
    llp_data: InputId,
    llp_keep: InputId,
    llp_last: InputId,
    llp_valid: InputId,
    llp_conn: InputId,
    mpa_cfg_write: InputId,
    mpa_cfg_conn: InputId,
    mpa_cfg_fpdu_mode: InputId,
    mpa_cfg_markers: InputId,
    mpa_cfg_crc: InputId,
    mpa_cfg_max_ulpdu: InputId,
    raw_ready: InputId,
    qp_cfg_write: InputId,
    qp_cfg_qp: InputId,
    qp_cfg_enable: InputId,
    qp_cfg_pd: InputId,
    qp_cfg_ird: InputId,
    prog_write: InputId,
    prog_index: InputId,
    prog_valid: InputId,
    prog_key: InputId,
    prog_pd: InputId,
    prog_access: InputId,
    prog_qp_bound: InputId,
    prog_qp: InputId,
    prog_remote_inv: InputId,
    prog_base_to: InputId,
    prog_len: InputId,
    prog_host_addr: InputId,
    dma_wr_ready: InputId,
    rq_req_ready: InputId,
    rq_rsp_valid: InputId,
    rq_rsp_present: InputId,
    rq_rsp_to: InputId,
    rq_rsp_len_n: InputId,
    rq_rsp_lkey: InputId,
    rq_rsp_index: InputId,
    orq_push: InputId,
    orq_push_qp: InputId,
    irq_done: InputId,
    irq_done_qp: InputId,
    irq_ready: InputId,
    cqe_ready: InputId,
    aev_ready: InputId,
    tx_ready: InputId,

    llp_ready: OutputId,
    raw_data: OutputId,
    raw_keep: OutputId,
    raw_valid: OutputId,
    raw_conn: OutputId,
    dma_wr_addr: OutputId,
    dma_wr_data: OutputId,
    dma_wr_keep: OutputId,
    dma_wr_last: OutputId,
    dma_wr_valid: OutputId,
    rq_req_valid: OutputId,
    rq_req_qp: OutputId,
    rq_req_pop: OutputId,
    irq_valid: OutputId,
    irq_qp: OutputId,
    irq_word: OutputId,
    cqe_valid: OutputId,
    cqe_qp: OutputId,
    cqe_opcode: OutputId,
    cqe_status: OutputId,
    cqe_byte_len: OutputId,
    cqe_index: OutputId,
    cqe_inv_stag: OutputId,
    cqe_with_inv: OutputId,
    cqe_solicited: OutputId,
    aev_valid: OutputId,
    aev_qp: OutputId,
    aev_kind: OutputId,
    aev_layer: OutputId,
    aev_etype: OutputId,
    aev_code: OutputId,
    tx_data: OutputId,
    tx_keep: OutputId,
    tx_last: OutputId,
    tx_valid: OutputId,
    tx_conn: OutputId,
    tx_len: OutputId,
    rx_idle: OutputId,
    fpdu_good_valid: OutputId,
    fpdu_good_conn: OutputId,
}

impl Ports {
    fn new(sim: &dyn Backend) -> Result<Ports> {
        macro_rules! ports {
            (in: $($i:ident),* ; out: $($o:ident),* $(,)?) => {
                Ports { $($i: sim.input(stringify!($i))?,)* $($o: sim.output(stringify!($o))?,)* }
            };
        }
        Ok(ports!(
            in: llp_data, llp_keep, llp_last, llp_valid, llp_conn, mpa_cfg_write, mpa_cfg_conn,
                mpa_cfg_fpdu_mode, mpa_cfg_markers, mpa_cfg_crc, mpa_cfg_max_ulpdu, raw_ready,
                qp_cfg_write, qp_cfg_qp, qp_cfg_enable, qp_cfg_pd, qp_cfg_ird, prog_write,
                prog_index, prog_valid, prog_key, prog_pd, prog_access, prog_qp_bound, prog_qp,
                prog_remote_inv, prog_base_to, prog_len, prog_host_addr, dma_wr_ready,
                rq_req_ready, rq_rsp_valid, rq_rsp_present, rq_rsp_to, rq_rsp_len_n, rq_rsp_lkey,
                rq_rsp_index, orq_push, orq_push_qp, irq_done, irq_done_qp, irq_ready,
                cqe_ready, aev_ready, tx_ready;
            out: llp_ready, raw_data, raw_keep, raw_valid, raw_conn, dma_wr_addr, dma_wr_data,
                dma_wr_keep, dma_wr_last, dma_wr_valid, rq_req_valid, rq_req_qp, rq_req_pop,
                irq_valid, irq_qp, irq_word, cqe_valid, cqe_qp, cqe_opcode, cqe_status,
                cqe_byte_len, cqe_index, cqe_inv_stag, cqe_with_inv, cqe_solicited, aev_valid,
                aev_qp, aev_kind, aev_layer, aev_etype, aev_code, tx_data, tx_keep, tx_last,
                tx_valid, tx_conn, tx_len, rx_idle, fpdu_good_valid, fpdu_good_conn,
        ))
    }
}

/// One RQ response waiting for its cycle.
#[derive(Clone, Copy, Debug)]
struct RqAnswer {
    due: u64,
    wqe: Option<RecvWqe>,
}

/// Cuts `len` bytes into LLP segment sizes.
pub fn llp_segment_sizes(len: usize, knobs: &Knobs, rng: &mut impl Rng) -> Vec<usize> {
    let mut out = Vec::new();
    let mut rest = len;
    while rest > 0 {
        let n = rng
            .gen_range(knobs.seg_min.max(1)..=knobs.seg_max.max(knobs.seg_min).max(1))
            .min(rest);
        out.push(n);
        rest -= n;
    }
    out
}

/// The FPDU stream of a connection: `ulpdus` framed by [`Framer`] from stream offset 0.
pub fn frame(ulpdus: &[Vec<u8>], markers: bool, crc: bool) -> Vec<u8> {
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

/// Octets of the FPDU of a ULPDU of `len` octets, markers off: length, ULPDU, PAD, CRC
/// (`mpa-peer-connect.md` §5.1).
pub fn fpdu_len(len: usize) -> usize {
    (2 + len).div_ceil(4) * 4 + 4
}

/// Flips a bit of the CRC of FPDU `k` in a stream made by [`frame`] (markers off) from
/// `ulpdus`, so MpaRx delivers that ULPDU with `ulpdu_good = 0` and reports CRC error 0x02.
/// The model's side of it: `receive(q, &ulpdus[k], false)` then `llp_error(q, 0x02)`.
pub fn corrupt_crc(stream: &mut [u8], ulpdus: &[Vec<u8>], k: usize) {
    let at: usize = ulpdus[..=k]
        .iter()
        .map(|u| fpdu_len(u.len()))
        .sum::<usize>()
        - 1;
    stream[at] ^= 0x01;
}

/// One seeded random run of the whole receive path: [`Setup::standard`], `messages` random
/// messages per QP (each a mutant with probability `mutant_prob`), framed with good CRCs,
/// sent interleaved with the back-pressure of `knobs`, and checked against [`RxModel`]
/// ([`RxPathBench::run_plans`]). Returns the bench (for its [`Stats`]) and the expectation.
pub fn run_random(
    sim: Box<dyn Backend>,
    seed: u64,
    knobs: Knobs,
    messages: usize,
    mutant_prob: f64,
    max_cycles: u64,
) -> Result<(RxPathBench, Expected)> {
    let mut bench = RxPathBench::new(sim, seed, knobs)?;
    let mut rng = StdRng::seed_from_u64(seed);
    let setup = Setup::standard(&mut rng);
    let mut gen = crate::mutate::Gen::new(seed, setup.clone());
    let plans: Vec<QpPlan> = (0..QPS)
        .map(|q| gen.plan(q, messages, mutant_prob))
        .collect();
    let mut model = RxModel::new();
    let exp = bench.run_plans(&setup, &plans, &mut model, max_cycles);
    Ok((bench, exp))
}

/// The model's IRQ entries as the `irq_*` port carries them ([`Irq::on_port`]).
fn port_view(irqs: &[Irq]) -> Vec<Irq> {
    irqs.iter().map(|i| i.on_port()).collect()
}

/// Panics naming the first position where the hardware's sequence and the model's differ.
fn first_difference<T: PartialEq + std::fmt::Debug>(hw: &[T], model: &[T], q: usize, what: &str) {
    if hw == model {
        return;
    }
    let i = hw.iter().zip(model).take_while(|(a, b)| a == b).count();
    panic!(
        "QP {q}: {what} differ at #{i} of {} (hardware) / {} (model)\n hardware: {:?}\n model:    {:?}",
        hw.len(),
        model.len(),
        hw.get(i.saturating_sub(1)..(i + 2).min(hw.len())),
        model.get(i.saturating_sub(1)..(i + 2).min(model.len())),
    );
}

/// Cycle limit of one campaign round's drain ([`RxPathBench::run_until_drained`]).
pub const CAMPAIGN_ROUND_LIMIT: u64 = 1_000_000;

/// What a [`run_campaign`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CampaignReport {
    /// Rounds run (each ends with every QP reset).
    pub rounds: usize,
    /// Segments sent, and mutated segments among them.
    pub segments: usize,
    pub mutants: usize,
    /// Terminates the core sent (each ended a QP's round early).
    pub terminates: usize,
    /// Bytes placed by DMA.
    pub placed_bytes: u64,
    /// Cycles run.
    pub cycles: u64,
}

/// The mutation campaign of issue 4: `rounds` rounds in which every QP receives `messages`
/// random messages, each mutated with probability `mutant_prob` (wrong STag, key, PD, rights,
/// bounds, wrapping TO, lengths, opcodes, versions, QN, MSN, MO, ...). The four QPs run
/// interleaved; after each round every QP (and its MPA connection) is reset in the core and in
/// the model, so every round's first mutant meets a live QP. At the end the core's completions,
/// events, Read Requests, Terminate ULPDUs and host memory must equal the model's, and the
/// protection monitor must have seen no access outside a granting region.
pub fn run_campaign(
    sim: Box<dyn Backend>,
    seed: u64,
    knobs: Knobs,
    rounds: usize,
    messages: usize,
    mutant_prob: f64,
) -> Result<CampaignReport> {
    let mut bench = RxPathBench::new(sim, seed, knobs)?;
    let mut rng = StdRng::seed_from_u64(seed);
    let setup = Setup::standard(&mut rng);
    let mut gen = crate::mutate::Gen::new(seed, setup.clone());
    let mut model = RxModel::new();
    for (i, e) in &setup.stags {
        bench.program_stag(*i, *e);
    }
    setup.apply(&mut model);
    let initial = bench.fill_regions_random();
    let mut exp = Expected::new();
    let mut report = CampaignReport::default();
    let start = bench.cycles();
    let mut sent: Vec<Vec<Vec<u8>>> = vec![Vec::new(); QPS];
    let mut prev: Vec<Vec<Vec<u8>>> = vec![Vec::new(); QPS];
    for _ in 0..rounds {
        let mut round = Expected::new();
        let marks: Vec<(usize, usize, usize, usize)> = (0..QPS)
            .map(|q| {
                (
                    bench.cqes[q].len(),
                    bench.aevs[q].len(),
                    bench.irqs[q].len(),
                    bench.terms[q].len(),
                )
            })
            .collect();
        for (q, c) in setup.qps.iter().enumerate() {
            bench.mpa_cfg(q, true, false, true, MAX_ULPDU);
            bench.qp_cfg(q, *c);
            bench.clear_rq(q);
            model.configure_qp(q, *c);
            model.clear_rq(q);
            gen.reset_qp(q);
        }
        for q in 0..QPS {
            let plan = gen.plan(q, messages, mutant_prob);
            for w in &plan.posts {
                bench.post_recv(q, *w);
                model.post_recv(q, *w);
            }
            for _ in 0..plan.orq_pushes {
                bench.orq_push(q);
                model.orq_push(q);
            }
            for u in &plan.ulpdus {
                let events = model.receive(q, u, true);
                round.extend(events.iter().cloned());
                exp.extend(events);
            }
            prev[q] = std::mem::replace(&mut sent[q], plan.ulpdus.clone());
            report.segments += plan.ulpdus.len();
            report.mutants += plan.mutants.len();
            bench.send_ulpdus(q, &plan.ulpdus);
        }
        // Dropped segments (after a QP's first error) move nothing out, so silence on the
        // outputs says nothing: wait for `rx_idle` before the next round's resets.
        // Debugging: CAMPAIGN_TRACE prints each round's start; CAMPAIGN_VCD_ROUND=n traces round
        // n (on a back end built with tracing) and gives up after 40000 cycles in it.
        if std::env::var("CAMPAIGN_TRACE").is_ok() {
            eprintln!("round {} at cycle {}", report.rounds, bench.cycles());
        }
        let mut limit = CAMPAIGN_ROUND_LIMIT;
        if let Ok(r) = std::env::var("CAMPAIGN_VCD_ROUND") {
            if r.parse::<usize>().ok() == Some(report.rounds) {
                let dir = crate::testbench::waveform_dir();
                std::fs::create_dir_all(&dir)?;
                let path = dir.join(format!("campaign-seed{seed}-round{r}.vcd"));
                eprintln!("tracing round {r} to {}", path.display());
                bench.sim().trace_to(&path)?;
                limit = 40_000;
            }
        }
        bench.run_until_drained(limit);
        // This round's events against the model's, so a failure names its round and segments.
        for q in 0..QPS {
            let hw = (
                &bench.cqes[q][marks[q].0..],
                &bench.aevs[q][marks[q].1..],
                &bench.irqs[q][marks[q].2..],
                &bench.terms[q][marks[q].3..],
            );
            let round_irqs = port_view(&round.irqs[q]);
            let want = (
                &round.cqes[q][..],
                &round.aevs[q][..],
                &round_irqs[..],
                &round.terms[q][..],
            );
            if hw != want {
                let segs: Vec<String> = prev[q]
                    .iter()
                    .map(|u| format!("(previous round) {}", hex_list(std::slice::from_ref(u))))
                    .chain(sent[q].iter().map(|u| hex_list(std::slice::from_ref(u))))
                    .collect();
                panic!(
                    "round {} QP {q}: the core differs from the model\n core:  {hw:?}\n model: {want:?}\n segments sent:\n{}",
                    report.rounds,
                    segs.join("\n")
                );
            }
        }
        report.rounds += 1;
    }
    bench.check_against_model(&exp, &initial);
    report.terminates = bench.terms.iter().map(Vec::len).sum();
    report.placed_bytes = bench.stats().dma_bytes;
    report.cycles = bench.cycles() - start;
    Ok(report)
}

/// Expected host memory: `initial` with the model's placements applied in order.
pub fn expected_memory(initial: &HostMemory, exp: &Expected) -> HostMemory {
    let mut m = initial.clone();
    for (_, addr, bytes) in &exp.places {
        m.write(*addr, bytes);
    }
    m
}

/// Testbench of `RxPath` over either back end.
pub struct RxPathBench {
    sim: Box<dyn Backend>,
    p: Ports,
    rng: StdRng,
    /// Traffic and back-pressure shape (may be changed between runs).
    pub knobs: Knobs,
    /// Host memory with the protection monitor.
    pub mem: HostMemory,
    /// When set, every IRQ entry taken is answered with an `irq_done` strobe for its QP (the
    /// read responder finishing at once). Off by default: the IRD check then depends only on
    /// the traffic, as the model assumes.
    pub auto_irq_done: bool,
    llp: Vec<VecDeque<u8>>,
    current: Option<(usize, Vec<Beat>, usize)>,
    rq: Vec<VecDeque<RecvWqe>>,
    rq_pending: VecDeque<RqAnswer>,
    pending_irq_done: VecDeque<usize>,
    /// The words of the IRQ entry being received, its commit cycle (`irq_ready` 0).
    irq_words: Vec<u32>,
    irq_commit: bool,
    /// CQEs taken, per QP.
    pub cqes: Vec<Vec<Cqe>>,
    /// Async events taken, per QP.
    pub aevs: Vec<Vec<AsyncEvent>>,
    /// IRQ entries taken, per QP.
    pub irqs: Vec<Vec<Irq>>,
    /// Terminate ULPDUs sent, per connection.
    pub terms: Vec<Vec<Vec<u8>>>,
    /// Bytes on `raw_*` (firmware path), per connection.
    pub raw: Vec<Vec<u8>>,
    tx_open: Vec<Option<(Vec<u8>, u16)>>,
    stats: Stats,
    /// Every output event with the cycle it was taken, in order (for `rnic inject`).
    pub log: Vec<(u64, Logged)>,
    write_open: bool,
}

/// An output event of the receive path as the bench took it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Logged {
    /// One posted DMA write request: its bytes from `addr` on (merged beats up to `last`).
    Write { addr: u32, bytes: Vec<u8> },
    /// A completion.
    Cqe(Cqe),
    /// An asynchronous event.
    Async(AsyncEvent),
    /// A queued Read Request.
    Irq(Irq),
    /// A Terminate ULPDU sent on a connection.
    Terminate { conn: usize, ulpdu: Vec<u8> },
}

impl RxPathBench {
    /// A bench over `sim` (an `RxPath` on either back end), seeded.
    pub fn new(sim: Box<dyn Backend>, seed: u64, knobs: Knobs) -> Result<Self> {
        let p = Ports::new(sim.as_ref())?;
        let mut b = RxPathBench {
            sim,
            p,
            rng: StdRng::seed_from_u64(seed),
            knobs,
            mem: HostMemory::new(),
            auto_irq_done: false,
            llp: vec![VecDeque::new(); QPS],
            current: None,
            rq: vec![VecDeque::new(); QPS],
            rq_pending: VecDeque::new(),
            pending_irq_done: VecDeque::new(),
            irq_words: Vec::new(),
            irq_commit: false,
            cqes: vec![Vec::new(); QPS],
            aevs: vec![Vec::new(); QPS],
            irqs: vec![Vec::new(); QPS],
            terms: vec![Vec::new(); QPS],
            raw: vec![Vec::new(); QPS],
            tx_open: vec![None; QPS],
            stats: Stats::default(),
            log: Vec::new(),
            write_open: false,
        };
        for id in [
            b.p.mpa_cfg_write,
            b.p.qp_cfg_write,
            b.p.prog_write,
            b.p.orq_push,
            b.p.irq_done,
            b.p.llp_valid,
            b.p.rq_rsp_valid,
        ] {
            b.sim.set(id, 0);
        }
        Ok(b)
    }

    /// The back end.
    pub fn sim(&mut self) -> &mut dyn Backend {
        self.sim.as_mut()
    }

    /// Counters so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Clears the counters.
    pub fn reset_stats(&mut self) {
        self.stats = Stats::default();
    }

    /// Cycles run so far.
    pub fn cycles(&self) -> u64 {
        self.sim.cycles()
    }

    /// MpaRx configuration of a connection (one-cycle strobe). Call while the connection's
    /// input is idle.
    pub fn mpa_cfg(
        &mut self,
        conn: usize,
        fpdu_mode: bool,
        markers: bool,
        crc: bool,
        max_ulpdu: u16,
    ) {
        let p = &self.p;
        let s = &mut self.sim;
        s.set(p.mpa_cfg_conn, conn as u128);
        s.set(p.mpa_cfg_fpdu_mode, u128::from(fpdu_mode));
        s.set(p.mpa_cfg_markers, u128::from(markers));
        s.set(p.mpa_cfg_crc, u128::from(crc));
        s.set(p.mpa_cfg_max_ulpdu, u128::from(max_ulpdu));
        s.set(p.mpa_cfg_write, 1);
        self.step();
        self.sim.set(self.p.mpa_cfg_write, 0);
    }

    /// QP configuration write (one-cycle strobe); the monitor learns the QP's PD.
    pub fn qp_cfg(&mut self, qp: usize, cfg: QpConfig) {
        let p = &self.p;
        let s = &mut self.sim;
        s.set(p.qp_cfg_qp, qp as u128);
        s.set(p.qp_cfg_enable, u128::from(cfg.enable));
        s.set(p.qp_cfg_pd, u128::from(cfg.pd));
        s.set(p.qp_cfg_ird, u128::from(cfg.ird));
        s.set(p.qp_cfg_write, 1);
        self.step();
        self.sim.set(self.p.qp_cfg_write, 0);
        self.mem.set_qp_pd(qp, cfg.enable.then_some(cfg.pd));
    }

    /// STag table write (one-cycle strobe, then a cycle without: StagCheck writes an entry over
    /// two cycles, and HostIf's commits of different entries are at least that far apart); the
    /// monitor registers the region under `index`.
    pub fn program_stag(&mut self, index: u32, e: MrEntry) {
        let p = &self.p;
        let s = &mut self.sim;
        s.set(p.prog_index, u128::from(index));
        s.set(p.prog_valid, u128::from(e.valid));
        s.set(p.prog_key, u128::from(e.key));
        s.set(p.prog_pd, u128::from(e.pd));
        s.set(p.prog_access, u128::from(e.access));
        s.set(p.prog_qp_bound, u128::from(e.qp_bound.is_some()));
        s.set(p.prog_qp, u128::from(e.qp_bound.unwrap_or(0)));
        s.set(p.prog_remote_inv, u128::from(e.remote_inv));
        s.set(p.prog_base_to, u128::from(e.base_to));
        s.set(p.prog_len, u128::from(e.len));
        s.set(p.prog_host_addr, u128::from(e.host_addr));
        s.set(p.prog_write, 1);
        self.step();
        self.sim.set(self.p.prog_write, 0);
        self.step();
        self.mem.set_region(
            index,
            Region {
                host_addr: e.host_addr,
                len: e.len,
                pd: e.pd,
                access: e.access,
                valid: e.valid,
            },
        );
    }

    /// Posts a receive WQE in the RQ responder's FIFO of `qp`.
    pub fn post_recv(&mut self, qp: usize, wqe: RecvWqe) {
        self.rq[qp].push_back(wqe);
    }

    /// Drops the receive WQEs still posted on `qp` (after a QP reset).
    pub fn clear_rq(&mut self, qp: usize) {
        self.rq[qp].clear();
    }

    /// `orq_push` strobe for `qp`.
    pub fn orq_push(&mut self, qp: usize) {
        self.sim.set(self.p.orq_push_qp, qp as u128);
        self.sim.set(self.p.orq_push, 1);
        self.step();
        self.sim.set(self.p.orq_push, 0);
    }

    /// `irq_done` strobe for `qp`.
    pub fn irq_done(&mut self, qp: usize) {
        self.sim.set(self.p.irq_done_qp, qp as u128);
        self.sim.set(self.p.irq_done, 1);
        self.step();
        self.sim.set(self.p.irq_done, 0);
    }

    /// Queues LLP bytes for a connection.
    pub fn send_llp(&mut self, conn: usize, bytes: &[u8]) {
        self.llp[conn].extend(bytes.iter().copied());
    }

    /// Frames ULPDUs (CRC on, markers off) and queues them on `conn`.
    pub fn send_ulpdus(&mut self, conn: usize, ulpdus: &[Vec<u8>]) {
        let stream = frame(ulpdus, false, true);
        self.stats.ulpdus_sent[conn] += ulpdus.len() as u64;
        self.send_llp(conn, &stream);
    }

    /// Whether stimulus is still pending (LLP bytes, a segment in flight, an RQ answer).
    pub fn busy(&self) -> bool {
        self.current.is_some()
            || self.llp.iter().any(|q| !q.is_empty())
            || !self.rq_pending.is_empty()
            || !self.pending_irq_done.is_empty()
    }

    /// One clock cycle: drives the LLP feeder, the RQ responder and every ready, takes every
    /// output handshake, ticks.
    pub fn step(&mut self) {
        let cycle = self.sim.cycles();
        let k = self.knobs;
        // LLP feeder: a new segment from a random connection with bytes.
        if self.current.is_none() {
            let ready: Vec<usize> = (0..QPS).filter(|&c| !self.llp[c].is_empty()).collect();
            if !ready.is_empty() {
                let c = ready[self.rng.gen_range(0..ready.len())];
                let n = llp_segment_sizes(self.llp[c].len(), &k, &mut self.rng)[0];
                let seg: Vec<u8> = self.llp[c].drain(..n).collect();
                self.current = Some((c, packet_beats(&seg, WIDTH), 0));
            }
        }
        let offer = match &self.current {
            Some((c, beats, i)) if !self.rng.gen_bool(k.llp_idle) => Some((*c, beats[*i])),
            _ => None,
        };
        let p = self.p;
        match offer {
            Some((c, b)) => {
                self.sim.set(p.llp_valid, 1);
                self.sim.set(p.llp_data, b.data);
                self.sim.set(p.llp_keep, b.keep);
                self.sim.set(p.llp_last, u128::from(b.last));
                self.sim.set(p.llp_conn, c as u128);
            }
            None => {
                self.sim.set(p.llp_valid, 0);
                self.sim.set(p.llp_data, u128::from(self.rng.gen::<u32>()));
                self.sim.set(p.llp_keep, self.rng.gen_range(0..16));
                self.sim.set(p.llp_last, self.rng.gen_range(0..2));
                self.sim.set(p.llp_conn, self.rng.gen_range(0..QPS as u128));
            }
        }
        // RQ responder: the answer due now.
        let answer = match self.rq_pending.front() {
            Some(a) if a.due <= cycle => self.rq_pending.pop_front(),
            _ => None,
        };
        match answer {
            Some(a) => {
                let w = a.wqe.unwrap_or_default();
                self.sim.set(p.rq_rsp_valid, 1);
                self.sim.set(p.rq_rsp_present, u128::from(a.wqe.is_some()));
                self.sim.set(p.rq_rsp_to, u128::from(w.to));
                self.sim.set(p.rq_rsp_len_n, u128::from(!w.len));
                self.sim.set(p.rq_rsp_lkey, u128::from(w.lkey));
                self.sim.set(p.rq_rsp_index, u128::from(w.index));
            }
            None => self.sim.set(p.rq_rsp_valid, 0),
        }
        // irq_done strobes owed by auto_irq_done (setup strobes set it directly).
        let auto_done = self.pending_irq_done.pop_front();
        if let Some(q) = auto_done {
            self.sim.set(p.irq_done_qp, q as u128);
            self.sim.set(p.irq_done, 1);
        }
        // Readies.
        let ready = |rng: &mut StdRng, stall: f64| !rng.gen_bool(stall);
        let rq_req_ready = self.rq_pending.is_empty() && ready(&mut self.rng, k.out_stall);
        let dma_ready = ready(&mut self.rng, k.dma_stall);
        let cqe_ready = ready(&mut self.rng, k.out_stall);
        let aev_ready = ready(&mut self.rng, k.out_stall);
        // `irq_ready` is the ReadResponder's level: 0 while a request's words come and in
        // the cycle after them (its commit), else random (a full queue).
        let irq_commit = std::mem::take(&mut self.irq_commit);
        let irq_ready =
            ready(&mut self.rng, k.out_stall) && self.irq_words.is_empty() && !irq_commit;
        let tx_ready = ready(&mut self.rng, k.out_stall);
        let raw_ready = ready(&mut self.rng, k.out_stall);
        for (id, v) in [
            (p.rq_req_ready, rq_req_ready),
            (p.dma_wr_ready, dma_ready),
            (p.cqe_ready, cqe_ready),
            (p.aev_ready, aev_ready),
            (p.irq_ready, irq_ready),
            (p.tx_ready, tx_ready),
            (p.raw_ready, raw_ready),
        ] {
            self.sim.set(id, u128::from(v));
        }
        let mut active = false;
        // LLP handshake.
        if let Some((_, b)) = offer {
            if self.sim.get(p.llp_ready) == 1 {
                let s = &mut self.stats;
                s.llp_beats += 1;
                s.llp_bytes += u64::from(b.keep.count_ones());
                s.first_llp_cycle.get_or_insert(cycle);
                s.last_llp_cycle = Some(cycle);
                if let Some((_, beats, i)) = &mut self.current {
                    *i += 1;
                    if *i == beats.len() {
                        self.current = None;
                    }
                }
            }
        }
        // RQ request.
        if rq_req_ready && self.sim.get(p.rq_req_valid) == 1 {
            let q = self.sim.get(p.rq_req_qp) as usize % QPS;
            let pop = self.sim.get(p.rq_req_pop) == 1;
            let wqe = if pop {
                self.rq[q].pop_front()
            } else {
                self.rq[q].front().copied()
            };
            if !pop || k.rq_answer_pops {
                let (lo, hi) = k.rq_latency;
                let due = cycle + self.rng.gen_range(lo.max(1)..=hi.max(lo).max(1));
                self.rq_pending.push_back(RqAnswer { due, wqe });
            }
        }
        // DMA writes.
        if dma_ready && self.sim.get(p.dma_wr_valid) == 1 {
            let addr = self.sim.get(p.dma_wr_addr) as u32;
            let data = self.sim.get(p.dma_wr_data) as u32;
            let keep = self.sim.get(p.dma_wr_keep) as u8;
            let last = self.sim.get(p.dma_wr_last) == 1;
            self.mem.dma_write_beat(addr, data, keep, last, cycle);
            self.log_write(cycle, addr, data, keep, last);
            self.stats.dma_beats += 1;
            self.stats.dma_bytes += u64::from(keep.count_ones());
            self.stats.last_dma_cycle = Some(cycle);
            active = true;
        }
        if cqe_ready && self.sim.get(p.cqe_valid) == 1 {
            let c = Cqe {
                qp: self.sim.get(p.cqe_qp) as u8,
                opcode: self.sim.get(p.cqe_opcode) as u8,
                status: self.sim.get(p.cqe_status) as u8,
                byte_len: self.sim.get(p.cqe_byte_len) as u32,
                index: self.sim.get(p.cqe_index) as u16,
                inv_stag: self.sim.get(p.cqe_inv_stag) as u32,
                with_inv: self.sim.get(p.cqe_with_inv) == 1,
                solicited: self.sim.get(p.cqe_solicited) == 1,
            };
            if c.with_inv {
                self.mem.invalidate_region(stag_index(c.inv_stag));
            }
            self.log.push((cycle, Logged::Cqe(c)));
            self.cqes[usize::from(c.qp) % QPS].push(c);
            active = true;
        }
        if aev_ready && self.sim.get(p.aev_valid) == 1 {
            let a = AsyncEvent {
                qp: self.sim.get(p.aev_qp) as u8,
                kind: self.sim.get(p.aev_kind) as u8,
                layer: self.sim.get(p.aev_layer) as u8,
                etype: self.sim.get(p.aev_etype) as u8,
                code: self.sim.get(p.aev_code) as u8,
            };
            self.log.push((cycle, Logged::Async(a)));
            self.aevs[usize::from(a.qp) % QPS].push(a);
            active = true;
        }
        // A word per `irq_valid` strobe: source address, sink STag, sink TO high, low, size.
        if self.sim.get(p.irq_valid) == 1 {
            self.irq_words.push(self.sim.get(p.irq_word) as u32);
            active = true;
        }
        if self.irq_words.len() == 5 {
            let w = std::mem::take(&mut self.irq_words);
            self.irq_commit = true;
            let i = Irq {
                qp: self.sim.get(p.irq_qp) as u8,
                sink_stag: w[1],
                sink_to: (u64::from(w[2]) << 32) | u64::from(w[3]),
                size: w[4],
                src_stag: 0,
                src_to: 0,
                src_addr: w[0],
            };
            let q = usize::from(i.qp) % QPS;
            self.log.push((cycle, Logged::Irq(i)));
            self.irqs[q].push(i);
            if self.auto_irq_done {
                self.pending_irq_done.push_back(q);
            }
            active = true;
        }
        if tx_ready && self.sim.get(p.tx_valid) == 1 {
            let c = self.sim.get(p.tx_conn) as usize % QPS;
            let len = self.sim.get(p.tx_len) as u16;
            let beat = Beat {
                data: self.sim.get(p.tx_data),
                keep: self.sim.get(p.tx_keep),
                last: self.sim.get(p.tx_last) == 1,
            };
            let open = self.tx_open[c].get_or_insert_with(|| (Vec::new(), len));
            assert_eq!(
                open.1, len,
                "cycle {cycle}: tx_len changed within a Terminate ULPDU on connection {c}"
            );
            open.0.extend(beat_payload(&beat, WIDTH));
            if beat.last {
                let (bytes, len) = self.tx_open[c].take().expect("open ULPDU");
                assert_eq!(
                    bytes.len(),
                    usize::from(len),
                    "cycle {cycle}: Terminate ULPDU on connection {c} has {} bytes, tx_len {len}",
                    bytes.len()
                );
                self.log.push((
                    cycle,
                    Logged::Terminate {
                        conn: c,
                        ulpdu: bytes.clone(),
                    },
                ));
                self.terms[c].push(bytes);
            }
            active = true;
        }
        if raw_ready && self.sim.get(p.raw_valid) == 1 {
            let c = self.sim.get(p.raw_conn) as usize % QPS;
            let beat = Beat {
                data: self.sim.get(p.raw_data),
                keep: self.sim.get(p.raw_keep),
                last: true,
            };
            self.raw[c].extend(beat_payload(&beat, WIDTH));
            active = true;
        }
        if self.sim.get(p.fpdu_good_valid) == 1 {
            self.stats.fpdu_good[self.sim.get(p.fpdu_good_conn) as usize % QPS] += 1;
        }
        if active {
            self.stats.last_output_cycle = Some(cycle);
        }
        self.sim.tick();
        if auto_done.is_some() {
            self.sim.set(self.p.irq_done, 0);
        }
    }

    /// Adds a DMA write beat to the log: it extends the open write request when it continues it.
    fn log_write(&mut self, cycle: u64, addr: u32, data: u32, keep: u8, last: bool) {
        let lanes: Vec<(u32, u8)> = (0..4u32)
            .filter(|l| keep & (0x8 >> l) != 0)
            .map(|l| (addr.wrapping_add(l), (data >> (24 - 8 * l)) as u8))
            .collect();
        let Some(&(first, _)) = lanes.first() else {
            return;
        };
        let continues = matches!(
            (self.write_open, self.log.last()),
            (true, Some((_, Logged::Write { addr: a, bytes }))) if a.wrapping_add(bytes.len() as u32) == first
        );
        if continues {
            if let Some((_, Logged::Write { bytes, .. })) = self.log.last_mut() {
                bytes.extend(lanes.iter().map(|&(_, b)| b));
            }
        } else {
            self.log.push((
                cycle,
                Logged::Write {
                    addr: first,
                    bytes: lanes.iter().map(|&(_, b)| b).collect(),
                },
            ));
        }
        self.write_open = !last;
    }

    /// Steps until the stimulus is used up and no output has moved for `quiet` cycles.
    /// Returns the cycles run. Panics after `max_cycles`.
    pub fn run_until_idle_for(&mut self, max_cycles: u64, quiet: u64) -> u64 {
        let start = self.sim.cycles();
        loop {
            self.step();
            let now = self.sim.cycles();
            let last = self.stats.last_output_cycle.unwrap_or(start).max(start);
            if !self.busy() && now - last > quiet {
                return now - start;
            }
            assert!(
                now - start < max_cycles,
                "RxPath not idle after {max_cycles} cycles (LLP bytes left: {:?}, segment in \
                 flight: {}, RQ answers pending: {})",
                self.llp.iter().map(|q| q.len()).collect::<Vec<_>>(),
                self.current.is_some(),
                self.rq_pending.len()
            );
        }
    }

    /// Steps until the stimulus is used up and the core reports `rx_idle` (nothing in flight
    /// anywhere in the receive path: the condition for resetting a QP). Returns the cycles
    /// run. Panics after `max_cycles`.
    pub fn run_until_drained(&mut self, max_cycles: u64) -> u64 {
        let start = self.sim.cycles();
        loop {
            self.step();
            let now = self.sim.cycles();
            if !self.busy() && self.sim.get(self.p.rx_idle) == 1 {
                return now - start;
            }
            if now - start >= max_cycles {
                let p = self.p;
                let outs: Vec<(&str, u128)> = [
                    ("llp_ready", p.llp_ready),
                    ("dma_wr_valid", p.dma_wr_valid),
                    ("rq_req_valid", p.rq_req_valid),
                    ("cqe_valid", p.cqe_valid),
                    ("aev_valid", p.aev_valid),
                    ("irq_valid", p.irq_valid),
                    ("tx_valid", p.tx_valid),
                    ("raw_valid", p.raw_valid),
                ]
                .into_iter()
                .map(|(n, id)| (n, self.sim.get(id)))
                .collect();
                panic!(
                    "RxPath not drained after {max_cycles} cycles (LLP bytes left: {:?}, \
                     segment in flight: {:?}, RQ answers pending: {}; outputs {outs:?})",
                    self.llp.iter().map(|q| q.len()).collect::<Vec<_>>(),
                    self.current.as_ref().map(|c| (c.0, c.1.len(), c.2)),
                    self.rq_pending.len()
                );
            }
        }
    }

    /// [`RxPathBench::run_until_idle_for`] with 200 quiet cycles.
    pub fn run_until_idle(&mut self, max_cycles: u64) -> u64 {
        self.run_until_idle_for(max_cycles, 200)
    }

    /// Fills every registered region with random bytes (so a wrong write of zeros shows), and
    /// returns the memory as it is now: the `initial` image for [`expected_memory`].
    pub fn fill_regions_random(&mut self) -> HostMemory {
        let regions: Vec<Region> = self.mem.regions().values().copied().collect();
        for r in regions {
            let bytes: Vec<u8> = (0..r.len).map(|_| self.rng.gen()).collect();
            self.mem.write(r.host_addr, &bytes);
        }
        self.mem.clone()
    }

    /// Compares everything with the model: per QP the CQEs, async events, IRQ entries and
    /// Terminate ULPDUs in order; host memory against `initial` + the model's placements at
    /// every address either side wrote; no monitor violation; no Terminate ULPDU left open.
    pub fn check_against_model(&self, exp: &Expected, initial: &HostMemory) {
        for q in 0..QPS {
            first_difference(&self.cqes[q], &exp.cqes[q], q, "CQEs");
            first_difference(&self.aevs[q], &exp.aevs[q], q, "async events");
            first_difference(&self.irqs[q], &port_view(&exp.irqs[q]), q, "IRQ entries");
            if self.terms[q] != exp.terms[q] {
                panic!(
                    "QP {q}: Terminate ULPDUs differ\n hardware: {}\n model:    {}",
                    hex_list(&self.terms[q]),
                    hex_list(&exp.terms[q])
                );
            }
            assert!(
                self.tx_open[q].is_none(),
                "connection {q}: a Terminate ULPDU was left open"
            );
        }
        let want = expected_memory(initial, exp);
        let mut addrs = self.mem.written_addresses();
        for (_, addr, bytes) in &exp.places {
            addrs.extend((0..bytes.len() as u32).map(|i| addr.wrapping_add(i)));
        }
        addrs.sort_unstable();
        addrs.dedup();
        let bad: Vec<String> = addrs
            .iter()
            .filter(|&&a| self.mem.byte(a) != want.byte(a))
            .take(20)
            .map(|&a| {
                format!(
                    "  {a:#010x}: hardware {:#04x}, model {:#04x}",
                    self.mem.byte(a),
                    want.byte(a)
                )
            })
            .collect();
        assert!(
            bad.is_empty(),
            "host memory differs from the model's placements (first 20):\n{}",
            bad.join("\n")
        );
        self.mem.assert_no_violations();
    }

    /// Programs the bench and `model` for `setup` (STags, QPs, MpaRx FPDU mode with CRC on),
    /// posts each plan's WQEs and ORQ entries on both, queues the framed segments, runs to idle
    /// and checks against the model. The model runs each QP's segments in order (the setup
    /// keeps QPs independent, `crate::mutate`). Returns the model's expectation.
    pub fn run_plans(
        &mut self,
        setup: &Setup,
        plans: &[QpPlan],
        model: &mut RxModel,
        max_cycles: u64,
    ) -> Expected {
        for (i, e) in &setup.stags {
            self.program_stag(*i, *e);
        }
        for (q, c) in setup.qps.iter().enumerate() {
            self.qp_cfg(q, *c);
            self.mpa_cfg(q, true, false, true, MAX_ULPDU);
        }
        setup.apply(model);
        let initial = self.fill_regions_random();
        let mut exp = Expected::new();
        for (q, plan) in plans.iter().enumerate() {
            for w in &plan.posts {
                self.post_recv(q, *w);
                model.post_recv(q, *w);
            }
            for _ in 0..plan.orq_pushes {
                self.orq_push(q);
                model.orq_push(q);
            }
            for u in &plan.ulpdus {
                exp.extend(model.receive(q, u, true));
            }
            self.send_ulpdus(q, &plan.ulpdus);
        }
        self.run_until_drained(max_cycles);
        self.check_against_model(&exp, &initial);
        exp
    }

    /// Benchmark: `count` single-segment RDMA Writes of `payload` bytes each on QP 0 into one
    /// region (CRC on, markers off, [`Knobs::FULL_SPEED`]), checked against the model.
    /// Returns the counters (LLP beats per cycle between the first and last beat).
    pub fn measure_write_stream(&mut self, payload: usize, count: usize) -> Stats {
        use rnic_proto::rdmap::{Body, DdpFields, Message};
        use rnic_proto::verbs::{access, make_stag};
        self.knobs = Knobs::FULL_SPEED;
        let entry = MrEntry {
            valid: true,
            key: 0x5A,
            pd: 1,
            access: access::REMOTE_WRITE,
            qp_bound: None,
            remote_inv: false,
            base_to: 0x1000_0000,
            len: (payload * count.min(64)).max(1) as u32,
            host_addr: 0x10_0000,
        };
        let setup = Setup {
            stags: vec![(1, entry)],
            qps: vec![
                QpConfig {
                    enable: true,
                    pd: 1,
                    ird: 1,
                },
                QpConfig::default(),
                QpConfig::default(),
                QpConfig::default(),
            ],
        };
        let data: Vec<u8> = (0..payload).map(|i| (i * 7 + 3) as u8).collect();
        let ulpdus: Vec<Vec<u8>> = (0..count)
            .map(|i| {
                let m = Message {
                    last: true,
                    ddp: DdpFields::Tagged {
                        stag: make_stag(1, 0x5A),
                        to: entry.base_to + ((i % 64) * payload) as u64,
                    },
                    body: Body::RdmaWrite { payload: &data },
                };
                let mut out = vec![0u8; m.buffer_len()];
                m.emit(&mut rnic_proto::ddp::Packet::new_unchecked(&mut out[..]))
                    .expect("emit");
                out
            })
            .collect();
        let plans = vec![
            QpPlan {
                ulpdus,
                ..QpPlan::default()
            },
            QpPlan::default(),
            QpPlan::default(),
            QpPlan::default(),
        ];
        self.reset_stats();
        let mut model = RxModel::new();
        self.run_plans(
            &setup,
            &plans,
            &mut model,
            100 + 10 * (payload as u64 + 40) * count as u64,
        );
        self.stats
    }
}

fn hex_list(v: &[Vec<u8>]) -> String {
    let items: Vec<String> = v
        .iter()
        .map(|u| u.iter().map(|b| format!("{b:02x}")).collect::<String>())
        .collect();
    format!("[{}]", items.join(", "))
}

#[cfg(test)]
mod fake;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rx_model::RxEvent;
    use rnic_proto::mpa::{Deframer, DeframerConfig};

    fn bench(seed: u64, knobs: Knobs, fake: fake::FakeRxPath) -> RxPathBench {
        RxPathBench::new(Box::new(fake), seed, knobs).unwrap()
    }

    fn plans(seed: u64, messages: usize, mutant_prob: f64) -> (Setup, Vec<QpPlan>) {
        let mut rng = StdRng::seed_from_u64(seed);
        let setup = Setup::standard(&mut rng);
        let mut gen = crate::mutate::Gen::new(seed, setup.clone());
        let plans = (0..QPS)
            .map(|q| gen.plan(q, messages, mutant_prob))
            .collect();
        (setup, plans)
    }

    /// The whole bench against the software stand-in: valid traffic on four interleaved
    /// connections with random back-pressure, then mutants; RQ pops answered or not.
    #[test]
    fn bench_agrees_with_a_model_backed_fake() {
        // CQEs, Terminates, IRQ entries, async events, placements: all must occur.
        let mut totals = [0usize; 5];
        for seed in 0..12 {
            let answer_pops = seed % 2 == 0;
            let knobs = Knobs {
                rq_answer_pops: answer_pops,
                ..Knobs::RANDOM
            };
            let mutants = if seed < 4 { 0.0 } else { 0.15 };
            let fake = Box::new(fake::FakeRxPath::new(answer_pops));
            let (b, exp) = run_random(fake, seed, knobs, 25, mutants, 2_000_000).unwrap();
            for q in 0..QPS {
                totals[0] += exp.cqes[q].len();
                totals[1] += exp.terms[q].len();
                totals[2] += exp.irqs[q].len();
                totals[3] += exp.aevs[q].len();
            }
            totals[4] += exp.places.len();
            if seed < 4 {
                assert!(exp.terms.iter().all(|t| t.is_empty()));
                assert!(b.mem.write_requests() > 0);
            }
        }
        assert!(totals.iter().all(|&n| n >= 10), "{totals:?}");
    }

    /// The comparison fails when the block places a wrong byte.
    #[test]
    #[should_panic(expected = "host memory differs")]
    fn bench_catches_a_corrupted_placement() {
        let mut fake = fake::FakeRxPath::new(true);
        fake.corrupt_dma = true;
        let mut b = bench(1, Knobs::RANDOM, fake);
        let (setup, plans) = plans(1, 20, 0.0);
        b.run_plans(&setup, &plans, &mut RxModel::new(), 2_000_000);
    }

    /// The comparison fails when a completion is missing (the model expects one more CQE).
    #[test]
    #[should_panic(expected = "CQEs")]
    fn bench_catches_a_missing_completion() {
        let mut b = bench(2, Knobs::RANDOM, fake::FakeRxPath::new(true));
        let (setup, plans) = plans(2, 10, 0.0);
        let mut model = RxModel::new();
        let mut exp = b.run_plans(&setup, &plans, &mut model, 2_000_000);
        let q = (0..QPS).find(|&q| !exp.cqes[q].is_empty()).unwrap();
        let extra = exp.cqes[q][0];
        exp.cqes[q].push(extra);
        b.check_against_model(&exp, &HostMemory::new());
    }

    #[test]
    fn measure_write_stream_counts() {
        let mut b = bench(3, Knobs::FULL_SPEED, fake::FakeRxPath::new(true));
        let s = b.measure_write_stream(256, 20);
        // FPDU: length 2, ULPDU 14 + 256 (no PAD: 272 is 4-aligned), CRC 4.
        assert_eq!(s.llp_bytes, 20 * (2 + 14 + 256 + 4));
        assert_eq!(s.dma_bytes, 20 * 256);
        assert!(s.llp_beats_per_cycle() > 0.5 && s.llp_beats_per_cycle() <= 1.0);
    }

    /// A corrupted CRC: the fake (like MpaRx) delivers the ULPDU as bad; nothing completes.
    #[test]
    fn corrupt_crc_hits_the_chosen_fpdu() {
        let ulpdus = vec![vec![1u8; 22], vec![2u8; 23], vec![3u8; 24]];
        for k in 0..3 {
            let mut stream = frame(&ulpdus, false, true);
            corrupt_crc(&mut stream, &ulpdus, k);
            let cfg = DeframerConfig {
                markers: false,
                crc: true,
                max_ulpdu: MAX_ULPDU,
                stream_offset: 0,
            };
            let mut d = Deframer::new(vec![0u8; usize::from(MAX_ULPDU)], cfg).unwrap();
            let (_, first) = d.feed(&stream);
            let good = first.unwrap().status.is_good();
            assert_eq!(good, k != 0, "FPDU {k}");
        }
        assert_eq!(fpdu_len(22), 28);
        assert_eq!(fpdu_len(0), 8);
        assert_eq!(fpdu_len(2), 8);
    }

    #[test]
    fn segment_sizes_cover_the_stream() {
        let mut rng = StdRng::seed_from_u64(1);
        for len in [0usize, 1, 5, 1500, 1501, 10_000] {
            let s = llp_segment_sizes(len, &Knobs::RANDOM, &mut rng);
            assert_eq!(s.iter().sum::<usize>(), len);
            assert!(s.iter().all(|&n| (1..=1500).contains(&n)));
        }
    }

    /// The framed stream deframes back to the same ULPDUs with good CRCs.
    #[test]
    fn framing_round_trips() {
        let ulpdus = vec![vec![1u8; 22], vec![], vec![7u8; 1500], vec![3u8; 19]];
        let stream = frame(&ulpdus, false, true);
        let cfg = DeframerConfig {
            markers: false,
            crc: true,
            max_ulpdu: MAX_ULPDU,
            stream_offset: 0,
        };
        let mut d = Deframer::new(vec![0u8; usize::from(MAX_ULPDU)], cfg).unwrap();
        let mut got = Vec::new();
        let mut rest = &stream[..];
        while !rest.is_empty() {
            let (used, delivery) = d.feed(rest);
            if let Some(del) = delivery {
                assert!(del.status.is_good());
                got.push(del.ulpdu.to_vec());
            }
            rest = &rest[used..];
        }
        assert_eq!(got, ulpdus);
    }

    #[test]
    fn expected_memory_applies_places_in_order() {
        let mut init = HostMemory::new();
        init.write(0x10, &[9; 8]);
        let mut exp = Expected::new();
        exp.extend([
            RxEvent::Place {
                qp: 0,
                addr: 0x12,
                bytes: vec![1, 2, 3],
            },
            RxEvent::Place {
                qp: 1,
                addr: 0x13,
                bytes: vec![4],
            },
        ]);
        let m = expected_memory(&init, &exp);
        assert_eq!(m.read(0x10, 8), [9, 9, 1, 4, 3, 9, 9, 9]);
    }
}
