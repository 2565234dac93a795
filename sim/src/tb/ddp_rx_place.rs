//! Driver and monitor for [`rnic_hdl::ddp::rx_place::RxPlace`], usable on both back ends.
//!
//! The driver plays DdpRxParse and RxControl: payload runs as the contract in `rnic_hdl::ddp`
//! shapes them (payload octet 0 in lane 2 of the first beat, later beats from lane 0, only the
//! last beat partial, junk in the lanes outside `keep`), the runs of the connections interleaved
//! at random beat boundaries, and one verdict per run in run order (the order of the runs'
//! first beats), each offered a random number of cycles after its run's first beat was taken.
//! The consumers apply random back-pressure on `dma_wr_ready`, `done_ready` (and the driver
//! random gaps on `pay_valid` and `vd_valid`).
//!
//! The monitor checks every DMA beat against a byte-level model of host memory: the address a
//! multiple of 4, `keep` contiguous and not empty, every kept octet at an address of a placed
//! run with exactly that run's octet, no octet written twice (so nothing of a dropped run and
//! nothing outside the runs); the beats of one write request at consecutive word addresses
//! inside one 4 KiB page, with only the first beat starting after lane 0 and only the last
//! ending before lane 3. Completions: one per run, in the order the runs end, with the run's connection and
//! good flag, and only once every octet of the run has been written. Completions come in the
//! order the runs *end* (their last beats), verdicts in the order they begin.

use crate::host_mem::{in_window, DMA_ADDR_MASK};
use crate::stream::Beat;
use crate::testbench::{Backend, BackendKind, InputId, OutputId};
use anyhow::Result;
use rand::{Rng, SeedableRng};
use rnic_hdl::config::CONNECTIONS;
use rnic_hdl::ddp::rx_place::RxPlace;
use std::collections::{HashMap, VecDeque};

/// One payload run with its verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    pub conn: usize,
    pub payload: Vec<u8>,
    pub good: bool,
    pub place: bool,
    pub addr: u32,
}

/// The `pay_*` beats of a run: octets 0-1 in lanes 2-3 of the first beat, then 4 per beat.
pub fn run_beats(payload: &[u8]) -> Vec<Beat> {
    let mut beats = Vec::new();
    let head = payload.len().min(2);
    let mut data = 0u128;
    let mut keep = 0u128;
    for (i, &b) in payload[..head].iter().enumerate() {
        data |= u128::from(b) << (8 * (1 - i));
        keep |= 1 << (1 - i);
    }
    beats.push(Beat {
        data,
        keep,
        last: false,
    });
    for chunk in payload[head..].chunks(4) {
        let mut data = 0u128;
        let mut keep = 0u128;
        for (i, &b) in chunk.iter().enumerate() {
            data |= u128::from(b) << (8 * (3 - i));
            keep |= 1 << (3 - i);
        }
        beats.push(Beat {
            data,
            keep,
            last: false,
        });
    }
    if let Some(b) = beats.last_mut() {
        b.last = true;
    }
    beats
}

/// Stimulus and back-pressure.
#[derive(Clone, Copy, Debug)]
pub struct PlaceTraffic {
    /// Probability of an idle `pay_valid` cycle before offering a beat.
    pub idle: f64,
    /// Probability of moving to another connection after each beat.
    pub switch: f64,
    /// Cycles from a run's first beat being taken to its verdict being offered:
    /// uniform in `0..=verdict_delay`.
    pub verdict_delay: u64,
    /// Probability that `vd_valid` stays low in a cycle although the verdict is due.
    pub vd_idle: f64,
    /// Probability that `dma_wr_ready` / `done_ready` is low in a cycle.
    pub dma_stall: f64,
    pub done_stall: f64,
}

impl PlaceTraffic {
    /// Random gaps and back-pressure everywhere, verdicts up to 30 cycles late.
    pub const RANDOM: PlaceTraffic = PlaceTraffic {
        idle: 0.15,
        switch: 0.3,
        verdict_delay: 30,
        vd_idle: 0.2,
        dma_stall: 0.3,
        done_stall: 0.3,
    };
    /// Input always valid, verdicts at once, outputs always ready, one connection at a time.
    pub const FULL_SPEED: PlaceTraffic = PlaceTraffic {
        idle: 0.0,
        switch: 0.0,
        verdict_delay: 0,
        vd_idle: 0.0,
        dma_stall: 0.0,
        done_stall: 0.0,
    };
}

/// What a run measured.
#[derive(Clone, Debug, Default)]
pub struct PlaceReport {
    pub beats_in: u64,
    pub first_beat_cycle: Option<u64>,
    pub last_beat_cycle: Option<u64>,
    pub dma_beats: u64,
    pub requests: u64,
    pub dones: usize,
    /// Cycles in which `pay_ready` was low while a beat was offered.
    pub input_stalls: u64,
}

impl PlaceReport {
    /// Input beats per cycle between the first and the last accepted beat.
    pub fn beats_per_cycle(&self) -> f64 {
        match (self.first_beat_cycle, self.last_beat_cycle) {
            (Some(a), Some(b)) => self.beats_in as f64 / (b - a + 1) as f64,
            _ => 0.0,
        }
    }
}

/// Ports of the block, resolved once.
pub struct RxPlaceTb {
    pay_data: InputId,
    pay_keep: InputId,
    pay_first: InputId,
    pay_last: InputId,
    pay_good: InputId,
    pay_valid: InputId,
    pay_conn: InputId,
    vd_valid: InputId,
    vd_conn: InputId,
    vd_place: InputId,
    vd_addr: InputId,
    vd_a10: InputId,
    vd_a20: InputId,
    dma_wr_ready: InputId,
    done_ready: InputId,
    pay_ready: OutputId,
    vd_ready: OutputId,
    dma_wr_addr: OutputId,
    dma_wr_data: OutputId,
    dma_wr_keep: OutputId,
    dma_wr_last: OutputId,
    dma_wr_valid: OutputId,
    done_valid: OutputId,
    done_conn: OutputId,
    done_good: OutputId,
}

const STUCK_CYCLES: u64 = 20_000;

impl RxPlaceTb {
    /// Resolves the ports of an [`RxPlace`] on `sim`.
    pub fn new(sim: &dyn Backend) -> Result<Self> {
        Ok(RxPlaceTb {
            pay_data: sim.input("pay_data")?,
            pay_keep: sim.input("pay_keep")?,
            pay_first: sim.input("pay_first")?,
            pay_last: sim.input("pay_last")?,
            pay_good: sim.input("pay_good")?,
            pay_valid: sim.input("pay_valid")?,
            pay_conn: sim.input("pay_conn")?,
            vd_valid: sim.input("vd_valid")?,
            vd_conn: sim.input("vd_conn")?,
            vd_place: sim.input("vd_place")?,
            vd_addr: sim.input("vd_addr")?,
            vd_a10: sim.input("vd_a10")?,
            vd_a20: sim.input("vd_a20")?,
            dma_wr_ready: sim.input("dma_wr_ready")?,
            done_ready: sim.input("done_ready")?,
            pay_ready: sim.output("pay_ready")?,
            vd_ready: sim.output("vd_ready")?,
            dma_wr_addr: sim.output("dma_wr_addr")?,
            dma_wr_data: sim.output("dma_wr_data")?,
            dma_wr_keep: sim.output("dma_wr_keep")?,
            dma_wr_last: sim.output("dma_wr_last")?,
            dma_wr_valid: sim.output("dma_wr_valid")?,
            done_valid: sim.output("done_valid")?,
            done_conn: sim.output("done_conn")?,
            done_good: sim.output("done_good")?,
        })
    }

    /// Sends `runs` (each connection's in their order; placed runs must not overlap in host
    /// memory) and checks everything the module documentation lists. Panics, naming the cycle,
    /// on the first difference.
    pub fn run(
        &self,
        sim: &mut dyn Backend,
        runs: &[Run],
        traffic: &PlaceTraffic,
        rng: &mut impl Rng,
    ) -> PlaceReport {
        let mut rep = PlaceReport::default();
        let mut queues: Vec<VecDeque<usize>> = vec![VecDeque::new(); CONNECTIONS];
        for (i, r) in runs.iter().enumerate() {
            queues[r.conn].push_back(i);
        }
        // Host memory model: the octet each placed address must receive, and what was written.
        let mut want: HashMap<u32, (u8, usize)> = HashMap::new();
        for (i, r) in runs.iter().enumerate() {
            if r.place {
                for (j, &b) in r.payload.iter().enumerate() {
                    let a = r.addr.wrapping_add(j as u32);
                    assert!(
                        want.insert(a, (b, i)).is_none(),
                        "test setup: placed runs overlap at {a:#x}"
                    );
                }
            }
        }
        let mut written: HashMap<u32, u8> = HashMap::new();
        let mut left: Vec<usize> = runs
            .iter()
            .map(|r| if r.place { r.payload.len() } else { 0 })
            .collect();

        let mut cur_run: Vec<Option<(usize, Vec<Beat>, usize)>> = vec![None; CONNECTIONS];
        let mut cur_conn = 0usize;
        let mut offer: Option<(usize, Beat, bool)> = None;
        // Verdicts: run index and the cycle from which it may be offered, in run order.
        let mut verdicts: VecDeque<(usize, u64)> = VecDeque::new();
        // The verdict offered in the previous cycle (what a `vd_ready` acknowledges).
        let mut vd_prev: Option<usize> = None;
        let mut end_order: VecDeque<usize> = VecDeque::new();
        // The open write request: next word address expected, page.
        let mut req: Option<u32> = None;
        let mut stuck = 0u64;

        loop {
            let cycle = sim.cycles();
            let mut active = false;
            // ---- Payload input.
            if offer.is_none() && !rng.gen_bool(traffic.idle) {
                if rng.gen_bool(traffic.switch)
                    || (cur_run[cur_conn].is_none() && queues[cur_conn].is_empty())
                {
                    let ready: Vec<usize> = (0..CONNECTIONS)
                        .filter(|&c| cur_run[c].is_some() || !queues[c].is_empty())
                        .collect();
                    if let Some(&c) = ready.get(rng.gen_range(0..ready.len().max(1))) {
                        cur_conn = c;
                    }
                }
                let c = cur_conn;
                if cur_run[c].is_none() {
                    if let Some(i) = queues[c].pop_front() {
                        cur_run[c] = Some((i, run_beats(&runs[i].payload), 0));
                    }
                }
                if let Some((_, beats, k)) = &cur_run[c] {
                    offer = Some((c, beats[*k], *k == 0));
                }
            }
            match offer {
                Some((c, beat, first)) => {
                    let (i, _, _) = cur_run[c].as_ref().expect("run in progress");
                    let junk = u128::from(rng.gen::<u32>()) & !mask32(beat.keep as u8);
                    sim.set(self.pay_valid, 1);
                    sim.set(self.pay_data, beat.data | junk);
                    sim.set(self.pay_keep, beat.keep);
                    sim.set(self.pay_first, u128::from(first));
                    sim.set(self.pay_last, u128::from(beat.last));
                    let good = if beat.last { runs[*i].good } else { rng.gen() };
                    sim.set(self.pay_good, u128::from(good));
                    sim.set(self.pay_conn, c as u128);
                }
                None => {
                    sim.set(self.pay_valid, 0);
                    sim.set(self.pay_data, u128::from(rng.gen::<u32>()));
                    sim.set(self.pay_keep, rng.gen_range(0..16));
                    sim.set(self.pay_first, rng.gen_range(0..2));
                    sim.set(self.pay_last, rng.gen_range(0..2));
                    sim.set(self.pay_good, rng.gen_range(0..2));
                    sim.set(self.pay_conn, rng.gen_range(0..CONNECTIONS) as u128);
                }
            }
            // ---- Verdict.
            let vd = match verdicts.front() {
                Some(&(i, due)) if due <= cycle && !rng.gen_bool(traffic.vd_idle) => Some(i),
                _ => None,
            };
            match vd {
                Some(i) => {
                    sim.set(self.vd_valid, 1);
                    sim.set(self.vd_conn, runs[i].conn as u128);
                    sim.set(self.vd_place, u128::from(runs[i].place));
                    sim.set(self.vd_addr, u128::from(runs[i].addr));
                    // The address's carry-select flags (word bits 9..0, 19..0 all ones).
                    let w = runs[i].addr >> 2;
                    sim.set(self.vd_a10, u128::from(w & 0x3FF == 0x3FF));
                    sim.set(self.vd_a20, u128::from(w & 0xF_FFFF == 0xF_FFFF));
                }
                None => {
                    sim.set(self.vd_valid, 0);
                    sim.set(self.vd_conn, rng.gen_range(0..CONNECTIONS) as u128);
                    sim.set(self.vd_place, rng.gen_range(0..2));
                    sim.set(self.vd_addr, u128::from(rng.gen::<u32>() & DMA_ADDR_MASK));
                    sim.set(self.vd_a10, rng.gen_range(0..2));
                    sim.set(self.vd_a20, rng.gen_range(0..2));
                }
            }
            let dma_ready = !rng.gen_bool(traffic.dma_stall);
            let done_ready = !rng.gen_bool(traffic.done_stall);
            sim.set(self.dma_wr_ready, u128::from(dma_ready));
            sim.set(self.done_ready, u128::from(done_ready));

            // ---- Input handshakes.
            if let Some((c, beat, first)) = offer {
                if sim.get(self.pay_ready) == 1 {
                    active = true;
                    offer = None;
                    rep.beats_in += 1;
                    rep.first_beat_cycle.get_or_insert(cycle);
                    rep.last_beat_cycle = Some(cycle);
                    let (i, _, k) = cur_run[c].as_mut().expect("run in progress");
                    let i = *i;
                    if first {
                        let delay = rng.gen_range(0..=traffic.verdict_delay);
                        verdicts.push_back((i, cycle + 1 + delay));
                    }
                    *k += 1;
                    if beat.last {
                        // Completions come in the order the runs end.
                        end_order.push_back(i);
                        cur_run[c] = None;
                    }
                } else {
                    rep.input_stalls += 1;
                }
            }
            // `vd_ready` (a register) acknowledges the verdict taken in the previous cycle,
            // whatever `vd_valid` is now (`crate::ddp` "RxPlace": the take is the cycle before).
            if sim.get(self.vd_ready) == 1 {
                assert!(
                    vd_prev.is_some(),
                    "cycle {cycle}: vd_ready without a verdict offered in the previous cycle"
                );
                active = true;
                verdicts.pop_front();
            }
            vd_prev = vd;

            // ---- DMA writes.
            if dma_ready && sim.get(self.dma_wr_valid) == 1 {
                active = true;
                rep.dma_beats += 1;
                let addr = sim.get(self.dma_wr_addr) as u32;
                let data = sim.get(self.dma_wr_data) as u32;
                let keep = sim.get(self.dma_wr_keep) as u8;
                let last = sim.get(self.dma_wr_last) == 1;
                assert_eq!(addr % 4, 0, "cycle {cycle}: DMA address {addr:#x}");
                let lanes: Vec<usize> = (0..4).filter(|l| keep >> (3 - l) & 1 == 1).collect();
                assert!(
                    !lanes.is_empty() && lanes.windows(2).all(|w| w[1] == w[0] + 1),
                    "cycle {cycle}: keep {keep:#06b} at {addr:#x} empty or not contiguous"
                );
                let (lo, hi) = (lanes[0], *lanes.last().unwrap_or(&0));
                match req {
                    Some(next) => {
                        assert_eq!(
                            addr, next,
                            "cycle {cycle}: write request continues at {addr:#x}, not at the \
                             next word"
                        );
                        assert!(
                            !addr.is_multiple_of(4096),
                            "cycle {cycle}: request crosses 4 KiB"
                        );
                        assert_eq!(
                            lo, 0,
                            "cycle {cycle}: a request's later beat starts at lane {lo}"
                        );
                    }
                    None => rep.requests += 1,
                }
                if !last {
                    assert_eq!(
                        hi, 3,
                        "cycle {cycle}: a request's beat before its last ends at lane {hi}"
                    );
                }
                req = if last { None } else { Some(addr + 4) };
                for l in lanes {
                    let a = addr + l as u32;
                    let b = (data >> (8 * (3 - l))) as u8;
                    let Some(&(w, run)) = want.get(&a) else {
                        panic!("cycle {cycle}: octet {b:#04x} written at {a:#x}, outside every placed run")
                    };
                    assert_eq!(b, w, "cycle {cycle}: octet at {a:#x} (run {run})");
                    assert!(
                        written.insert(a, b).is_none(),
                        "cycle {cycle}: octet at {a:#x} written twice"
                    );
                    left[run] -= 1;
                }
            }

            // ---- Completions.
            if sim.get(self.done_valid) == 1 {
                let i = *end_order
                    .front()
                    .unwrap_or_else(|| panic!("cycle {cycle}: done with no run ended"));
                assert_eq!(
                    left[i], 0,
                    "cycle {cycle}: done of run {i} (connection {}) before its data",
                    runs[i].conn
                );
                if done_ready {
                    active = true;
                    end_order.pop_front();
                    rep.dones += 1;
                    let got = (
                        sim.get(self.done_conn) as usize,
                        sim.get(self.done_good) == 1,
                    );
                    assert_eq!(
                        got,
                        (runs[i].conn, runs[i].good),
                        "cycle {cycle}: done of run {i} (connection, good)"
                    );
                }
            }

            sim.tick();

            let finished = queues.iter().all(|q| q.is_empty())
                && cur_run.iter().all(|r| r.is_none())
                && offer.is_none()
                && verdicts.is_empty()
                && end_order.is_empty();
            if finished {
                break;
            }
            stuck = if active { 0 } else { stuck + 1 };
            assert!(
                stuck < STUCK_CYCLES,
                "cycle {cycle}: no progress for {STUCK_CYCLES} cycles ({} verdicts and {} \
                 completions outstanding)",
                verdicts.len(),
                end_order.len()
            );
        }
        // Drain: nothing more may come out.
        for _ in 0..16 {
            sim.set(self.dma_wr_ready, 1);
            sim.set(self.done_ready, 1);
            sim.set(self.pay_valid, 0);
            sim.set(self.vd_valid, 0);
            assert_eq!(
                sim.get(self.dma_wr_valid),
                0,
                "DMA write after the last completion"
            );
            assert_eq!(sim.get(self.done_valid), 0, "completion with no run");
            sim.tick();
        }
        assert!(req.is_none(), "a write request was left open");
        assert_eq!(written.len(), want.len(), "octets placed");
        assert_eq!(rep.dones, runs.len());
        rep
    }
}

/// `keep` lanes as a 32-bit byte mask (lane 0 in the top byte).
fn mask32(keep: u8) -> u128 {
    (0..4)
        .filter(|l| keep >> (3 - l) & 1 == 1)
        .map(|l| 0xFFu128 << (8 * (3 - l)))
        .fold(0, |a, b| a | b)
}

/// Random runs: payloads of 0 to `max_len` octets (the short ones 0 to 9 often), random
/// connections, good flags, place/drop (mostly place) and host addresses of every alignment in
/// disjoint regions (a few near a 4 KiB page end).
pub fn random_runs(rng: &mut impl Rng, count: usize, max_len: usize) -> Vec<Run> {
    let mut next = in_window(0x1000_0000) + rng.gen_range(0..4096);
    (0..count)
        .map(|_| {
            let len = if rng.gen_bool(0.3) {
                rng.gen_range(0..10)
            } else {
                rng.gen_range(0..=max_len)
            };
            let mut addr = next + rng.gen_range(0..8);
            if rng.gen_bool(0.1) {
                // End near a page boundary so requests must split there.
                let page_end = ((addr + 16) | 0xFFF) + 1;
                addr = page_end - rng.gen_range(1..16);
            }
            next = addr + len as u32 + rng.gen_range(0..8);
            Run {
                conn: rng.gen_range(0..CONNECTIONS),
                payload: (0..len).map(|_| rng.gen()).collect(),
                good: rng.gen_bool(0.8),
                place: rng.gen_bool(0.8),
                addr,
            }
        })
        .collect()
}

/// Benchmark: payload beats per cycle into [`RxPlace`] for runs of `len` octets on
/// `connections` connections (interleaved beat by beat when more than one), host addresses
/// `addr_lo` mod 4, input always valid, each verdict offered 0 to `verdict_delay` cycles
/// after its run's first beat was taken, outputs always ready. Checked like any run.
pub fn measure_beats_per_cycle(
    kind: BackendKind,
    len: usize,
    connections: usize,
    addr_lo: u32,
    verdict_delay: u64,
    runs: usize,
) -> Result<PlaceReport> {
    let mut sim = kind.build_untraced(RxPlace::default())?;
    let tb = RxPlaceTb::new(sim.as_ref())?;
    let stride = (len as u32 + 4096) & !3;
    let rs: Vec<Run> = (0..runs)
        .map(|i| Run {
            conn: i % connections,
            payload: (0..len).map(|j| (i * 5 + j) as u8).collect(),
            good: true,
            place: true,
            addr: in_window(0x2000_0000) + i as u32 * stride + addr_lo,
        })
        .collect();
    let traffic = PlaceTraffic {
        switch: if connections > 1 { 1.0 } else { 0.0 },
        verdict_delay,
        ..PlaceTraffic::FULL_SPEED
    };
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    Ok(tb.run(sim.as_mut(), &rs, &traffic, &mut rng))
}
