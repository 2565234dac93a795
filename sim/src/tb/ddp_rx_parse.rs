//! Driver and monitor for [`rnic_hdl::ddp::rx_parse::DdpRxParse`], usable on both back ends.
//!
//! The driver plays MpaRx: per connection a queue of segments (ULPDUs), sent beat by beat with
//! the connections interleaved at random beat boundaries, random idle cycles, random junk in the
//! lanes outside `keep` and on every input while `ulpdu_valid` is low. A beat once offered is
//! held until taken. The monitor plays RxControl and RxPlace: random back-pressure on `job_*`
//! and `pay_*`; for every job it reads the slot's header words through the read ports (the
//! words up to the job beat in the very cycle the job first shows, then all 32 once the
//! segment's last beat was taken) and frees the slot after a random delay.
//!
//! Everything is checked against an independent model written from the contract in
//! `rnic_hdl::ddp` ("The job beat", "The payload run", "Header slots"): the job sequence
//! (connection, slot, length), every payload beat (connection, keep, the kept lanes of the data,
//! first, last, good on the last beat) in order, the payload octets of every run (exactly
//! `ULPDU[14..]` / `ULPDU[18..]` or nothing), every header word read (words 0..15: the beat's
//! kept lanes, zeros elsewhere; words 16..31: 0, never written; words 0..15 past the segment's
//! end are unspecified on both ports and not checked), that job k shows no later than run k's first
//! beat, and that a first beat whose slot is busy is never taken.

use crate::stream::{beat_payload, packet_beats, Beat};
use crate::testbench::{Backend, BackendKind, InputId, OutputId};
use anyhow::Result;
use rand::{Rng, SeedableRng};
use rnic_hdl::config::{CONNECTIONS, DATA_WIDTH, HDR_WORDS};
use rnic_hdl::ddp::rx_parse::DdpRxParse;
use std::collections::VecDeque;

/// One segment (ULPDU) of a connection, with the `ulpdu_good` of its last beat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub conn: usize,
    pub bytes: Vec<u8>,
    pub good: bool,
}

/// Where a segment's job is (the contract's "job beat").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobClass {
    /// T = 1, opcode 0 or 2: job at beat 3, payload from octet 14.
    Tagged,
    /// T = 0, opcode 3 to 6: job at beat 4, payload from octet 18.
    Untagged,
    /// Anything else: job at the last beat, no payload.
    AtEnd,
}

impl JobClass {
    /// The class of a ULPDU from its octets 0 (T flag) and 1 (opcode in the low nibble);
    /// `ulpdu_data` of a segment shorter than 2 octets decides nothing (its one beat is its job
    /// beat either way), so it is taken as [`JobClass::AtEnd`].
    pub fn of(bytes: &[u8]) -> Self {
        if bytes.len() < 2 {
            return JobClass::AtEnd;
        }
        let t = bytes[0] & 0x80 != 0;
        let op = bytes[1] & 0x0F;
        match (t, op) {
            (true, 0 | 2) => JobClass::Tagged,
            (false, 3..=6) => JobClass::Untagged,
            _ => JobClass::AtEnd,
        }
    }

    /// Job beat index and header length in octets (payload starts there).
    fn job_at(self) -> Option<(usize, usize)> {
        match self {
            JobClass::Tagged => Some((3, 14)),
            JobClass::Untagged => Some((4, 18)),
            JobClass::AtEnd => None,
        }
    }
}

const LANES: usize = DATA_WIDTH / 8;

/// The job beat of a segment of `beats` beats.
pub fn job_beat(bytes: &[u8]) -> usize {
    let beats = packet_beats(bytes, DATA_WIDTH).len();
    match JobClass::of(bytes).job_at() {
        Some((j, _)) => j.min(beats - 1),
        None => beats - 1,
    }
}

/// The payload octets of a segment: everything after the 14 / 18 header octets of a tagged /
/// untagged segment with payload, else nothing.
pub fn payload_of(bytes: &[u8]) -> Vec<u8> {
    match JobClass::of(bytes).job_at() {
        Some((_, h)) if bytes.len() > h => bytes[h..].to_vec(),
        _ => Vec::new(),
    }
}

/// One payload beat as the model expects it (data with the lanes outside `keep` cleared).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PayBeat {
    pub conn: usize,
    pub data: u32,
    pub keep: u8,
    pub first: bool,
    pub last: bool,
    /// `pay_good`, compared on the last beat only.
    pub good: bool,
}

/// Lanes of `keep` as a 32-bit byte mask (lane 0 in the top byte).
pub fn lane_mask(keep: u8) -> u32 {
    (0..LANES)
        .filter(|l| keep >> (LANES - 1 - l) & 1 == 1)
        .map(|l| 0xFFu32 << (8 * (LANES - 1 - l)))
        .fold(0, |a, b| a | b)
}

/// The payload run of a segment, beat by beat.
pub fn expected_run(seg: &Segment) -> Vec<PayBeat> {
    let beats = packet_beats(&seg.bytes, DATA_WIDTH);
    let class = JobClass::of(&seg.bytes);
    let jb = job_beat(&seg.bytes);
    (jb..beats.len())
        .map(|i| {
            let b = beats[i];
            let keep = if i > jb {
                b.keep as u8
            } else if class.job_at().map(|(j, _)| j) == Some(i) {
                // Octets 14-15 / 18-19: lanes 2 and 3.
                b.keep as u8 & 0b0011
            } else {
                0
            };
            PayBeat {
                conn: seg.conn,
                data: b.data as u32 & lane_mask(keep),
                keep,
                first: i == jb,
                last: i + 1 == beats.len(),
                good: seg.good,
            }
        })
        .collect()
}

/// Header words the parser writes (beats 0..15 of a segment; words 16..31 read 0).
pub const HDR_WRITTEN_WORDS: usize = 16;

/// Header word `w` of a segment's slot: beat `w`'s kept octets, 0 elsewhere and past the end.
pub fn header_word(bytes: &[u8], w: usize) -> u32 {
    let beats = packet_beats(bytes, DATA_WIDTH);
    beats
        .get(w)
        .map(|b| b.data as u32 & lane_mask(b.keep as u8))
        .unwrap_or(0)
}

/// Stimulus and back-pressure.
#[derive(Clone, Copy, Debug)]
pub struct ParseTraffic {
    /// Probability of an idle input cycle before offering a beat.
    pub idle: f64,
    /// Probability of moving to another connection after each beat.
    pub switch: f64,
    /// Probability that `job_ready` / `pay_ready` is low in a cycle.
    pub job_stall: f64,
    pub pay_stall: f64,
    /// Probability that a read port issues nothing in a cycle (when it has reads to issue).
    pub read_idle: f64,
    /// Cycles from the end of a slot's reads to its `free` strobe: uniform in `0..=free_delay`.
    pub free_delay: u64,
    /// Read and check the header words (off for throughput runs: slots are freed as soon as
    /// the job was taken and the segment ended).
    pub check_headers: bool,
}

impl ParseTraffic {
    /// Random gaps and back-pressure everywhere.
    pub const RANDOM: ParseTraffic = ParseTraffic {
        idle: 0.15,
        switch: 0.3,
        job_stall: 0.3,
        pay_stall: 0.3,
        read_idle: 0.2,
        free_delay: 24,
        check_headers: true,
    };
    /// Input always valid, outputs always ready, slots freed at once.
    pub const FULL_SPEED: ParseTraffic = ParseTraffic {
        idle: 0.0,
        switch: 0.0,
        job_stall: 0.0,
        pay_stall: 0.0,
        read_idle: 0.0,
        free_delay: 0,
        check_headers: false,
    };
}

/// What a run measured.
#[derive(Clone, Debug, Default)]
pub struct ParseReport {
    pub beats_in: u64,
    pub first_beat_cycle: Option<u64>,
    pub last_beat_cycle: Option<u64>,
    pub jobs: usize,
    pub header_reads: u64,
    /// Cycles in which a first beat was offered while its slot was busy (it must wait).
    pub busy_waits: u64,
    /// Payload beats out.
    pub pay_beats: u64,
}

impl ParseReport {
    /// Input beats per cycle between the first and the last accepted beat.
    pub fn beats_per_cycle(&self) -> f64 {
        match (self.first_beat_cycle, self.last_beat_cycle) {
            (Some(a), Some(b)) => self.beats_in as f64 / (b - a + 1) as f64,
            _ => 0.0,
        }
    }
}

/// Ports of the block, resolved once.
pub struct DdpRxParseTb {
    ulpdu_data: InputId,
    ulpdu_keep: InputId,
    ulpdu_first: InputId,
    ulpdu_last: InputId,
    ulpdu_good: InputId,
    ulpdu_valid: InputId,
    ulpdu_conn: InputId,
    ulpdu_len: InputId,
    job_ready: InputId,
    pay_ready: InputId,
    hdr_a_addr: InputId,
    hdr_b_addr: InputId,
    free_valid: InputId,
    free_conn: InputId,
    free_slot: InputId,
    ulpdu_ready: OutputId,
    job_valid: OutputId,
    job_conn: OutputId,
    job_slot: OutputId,
    job_len: OutputId,
    pay_data: OutputId,
    pay_keep: OutputId,
    pay_first: OutputId,
    pay_last: OutputId,
    pay_good: OutputId,
    pay_valid: OutputId,
    pay_conn: OutputId,
    hdr_a_data: OutputId,
    hdr_b_data: OutputId,
}

/// Model state of one segment once its first beat was taken.
struct SegState {
    seg: Segment,
    slot: usize,
    complete: bool,
    job_taken: bool,
    /// Header reads issued or queued and not yet checked.
    reads_pending: usize,
    /// The full header read was queued.
    full_read: bool,
    freed: bool,
}

/// A header read: segment, word.
type Read = (usize, usize);

const STUCK_CYCLES: u64 = 20_000;

impl DdpRxParseTb {
    /// Resolves the ports of a [`DdpRxParse`] on `sim`.
    pub fn new(sim: &dyn Backend) -> Result<Self> {
        Ok(DdpRxParseTb {
            ulpdu_data: sim.input("ulpdu_data")?,
            ulpdu_keep: sim.input("ulpdu_keep")?,
            ulpdu_first: sim.input("ulpdu_first")?,
            ulpdu_last: sim.input("ulpdu_last")?,
            ulpdu_good: sim.input("ulpdu_good")?,
            ulpdu_valid: sim.input("ulpdu_valid")?,
            ulpdu_conn: sim.input("ulpdu_conn")?,
            ulpdu_len: sim.input("ulpdu_len")?,
            job_ready: sim.input("job_ready")?,
            pay_ready: sim.input("pay_ready")?,
            hdr_a_addr: sim.input("hdr_a_addr")?,
            hdr_b_addr: sim.input("hdr_b_addr")?,
            free_valid: sim.input("free_valid")?,
            free_conn: sim.input("free_conn")?,
            free_slot: sim.input("free_slot")?,
            ulpdu_ready: sim.output("ulpdu_ready")?,
            job_valid: sim.output("job_valid")?,
            job_conn: sim.output("job_conn")?,
            job_slot: sim.output("job_slot")?,
            job_len: sim.output("job_len")?,
            pay_data: sim.output("pay_data")?,
            pay_keep: sim.output("pay_keep")?,
            pay_first: sim.output("pay_first")?,
            pay_last: sim.output("pay_last")?,
            pay_good: sim.output("pay_good")?,
            pay_valid: sim.output("pay_valid")?,
            pay_conn: sim.output("pay_conn")?,
            hdr_a_data: sim.output("hdr_a_data")?,
            hdr_b_data: sim.output("hdr_b_data")?,
        })
    }

    fn hdr_addr(conn: usize, slot: usize, word: usize) -> u128 {
        ((conn * 2 + slot) * HDR_WORDS + word) as u128
    }

    /// Sends `segments` (each connection's in their order) and checks everything the module
    /// documentation lists. Panics, naming the cycle, on the first difference.
    pub fn run(
        &self,
        sim: &mut dyn Backend,
        segments: &[Segment],
        traffic: &ParseTraffic,
        rng: &mut impl Rng,
    ) -> ParseReport {
        let mut rep = ParseReport::default();
        let mut queues: Vec<VecDeque<Segment>> = vec![VecDeque::new(); CONNECTIONS];
        for s in segments {
            queues[s.conn].push_back(s.clone());
        }
        // Expected payload octets per connection, in order, and what came out.
        let want_runs: Vec<Vec<(Vec<u8>, bool)>> = (0..CONNECTIONS)
            .map(|c| {
                queues[c]
                    .iter()
                    .map(|s| (payload_of(&s.bytes), s.good))
                    .collect()
            })
            .collect();
        let mut got_runs: Vec<Vec<(Vec<u8>, bool)>> = vec![Vec::new(); CONNECTIONS];
        let mut open_run: Vec<Option<Vec<u8>>> = vec![None; CONNECTIONS];

        let mut segs: Vec<SegState> = Vec::new();
        // Per connection: the segment in progress (index into `segs`) and its next beat.
        let mut cur_seg: Vec<Option<(usize, usize)>> = vec![None; CONNECTIONS];
        let mut nxt_slot = [0usize; CONNECTIONS];
        let mut busy = [[false; 2]; CONNECTIONS];
        let mut cur_conn = 0usize;
        let mut offer: Option<(usize, Beat, bool)> = None; // conn, beat, first
        let mut exp_jobs: VecDeque<usize> = VecDeque::new(); // segment indices
        let mut exp_pay: VecDeque<PayBeat> = VecDeque::new();
        let mut jobs_taken = 0usize;
        let mut jobs_shown = 0usize;
        let mut firsts_seen = 0usize;
        let mut reads: VecDeque<Read> = VecDeque::new();
        let mut frees: Vec<(u64, usize)> = Vec::new(); // due cycle, segment
        let mut stuck = 0u64;

        loop {
            let cycle = sim.cycles();
            let mut active = false;
            // ---- Registered outputs: a job first showing gets its early header reads now.
            let job_valid = sim.get(self.job_valid) == 1;
            let mut early: Vec<Read> = Vec::new();
            // Every run whose first beat was taken (by the previous edge) has its job shown
            // by now (`ddp` contract: the job enters `job_*` at that edge at the latest).
            let shown_now = jobs_shown + usize::from(job_valid && jobs_shown == jobs_taken);
            assert!(
                shown_now >= firsts_seen,
                "cycle {cycle}: job of run {} not shown in the cycle after its first beat",
                firsts_seen.saturating_sub(1)
            );
            if job_valid && jobs_shown == jobs_taken {
                jobs_shown += 1;
                if traffic.check_headers {
                    let s = *exp_jobs
                        .front()
                        .unwrap_or_else(|| panic!("cycle {cycle}: job shown with none expected"));
                    let jb = job_beat(&segs[s].seg.bytes).min(HDR_WORDS - 1);
                    // The job beat's word on port A, word 0 on port B in this cycle; the rest
                    // of the words up to the job beat later.
                    early.push((s, jb));
                    if jb > 0 {
                        early.push((s, 0));
                    }
                    for w in (1..jb).rev() {
                        reads.push_front((s, w));
                    }
                    segs[s].reads_pending += jb + 1;
                }
            }

            // ---- Input beat.
            if offer.is_none() && !rng.gen_bool(traffic.idle) {
                if rng.gen_bool(traffic.switch) || queues[cur_conn].is_empty() {
                    let ready: Vec<usize> = (0..CONNECTIONS)
                        .filter(|&c| cur_seg[c].is_some() || !queues[c].is_empty())
                        .collect();
                    if let Some(&c) = ready.get(rng.gen_range(0..ready.len().max(1))) {
                        cur_conn = c;
                    }
                }
                let c = cur_conn;
                if cur_seg[c].is_none() {
                    if let Some(seg) = queues[c].pop_front() {
                        segs.push(SegState {
                            seg,
                            slot: 0,
                            complete: false,
                            job_taken: false,
                            reads_pending: 0,
                            full_read: false,
                            freed: false,
                        });
                        cur_seg[c] = Some((segs.len() - 1, 0));
                    }
                }
                if let Some((s, i)) = cur_seg[c] {
                    let beats = packet_beats(&segs[s].seg.bytes, DATA_WIDTH);
                    offer = Some((c, beats[i], i == 0));
                }
            }
            match offer {
                Some((c, beat, first)) => {
                    let (s, _) = cur_seg[c].expect("offered beat of a segment");
                    let lanes_out = !lane_mask(beat.keep as u8) as u128;
                    sim.set(self.ulpdu_valid, 1);
                    sim.set(
                        self.ulpdu_data,
                        beat.data | (rng.gen::<u32>() as u128 & lanes_out),
                    );
                    sim.set(self.ulpdu_keep, beat.keep);
                    sim.set(self.ulpdu_first, u128::from(first));
                    sim.set(self.ulpdu_last, u128::from(beat.last));
                    let good = if beat.last {
                        segs[s].seg.good
                    } else {
                        rng.gen()
                    };
                    sim.set(self.ulpdu_good, u128::from(good));
                    sim.set(self.ulpdu_conn, c as u128);
                    sim.set(self.ulpdu_len, segs[s].seg.bytes.len() as u128);
                }
                None => {
                    sim.set(self.ulpdu_valid, 0);
                    sim.set(self.ulpdu_data, rng.gen::<u32>() as u128);
                    sim.set(self.ulpdu_keep, rng.gen_range(0..16));
                    sim.set(self.ulpdu_first, rng.gen_range(0..2));
                    sim.set(self.ulpdu_last, rng.gen_range(0..2));
                    sim.set(self.ulpdu_good, rng.gen_range(0..2));
                    sim.set(self.ulpdu_conn, rng.gen_range(0..CONNECTIONS) as u128);
                    sim.set(self.ulpdu_len, rng.gen::<u16>() as u128);
                }
            }
            let job_ready = !rng.gen_bool(traffic.job_stall);
            let pay_ready = !rng.gen_bool(traffic.pay_stall);
            sim.set(self.job_ready, u128::from(job_ready));
            sim.set(self.pay_ready, u128::from(pay_ready));

            // ---- Header reads: early ones first (always issued), then the queue.
            let mut issued: [Option<Read>; 2] = [None, None];
            for (port, slot) in issued.iter_mut().enumerate() {
                let r = if !early.is_empty() {
                    Some(early.remove(0))
                } else if !rng.gen_bool(traffic.read_idle) {
                    reads.pop_front()
                } else {
                    None
                };
                let id = if port == 0 {
                    self.hdr_a_addr
                } else {
                    self.hdr_b_addr
                };
                match r {
                    Some((s, w)) => {
                        sim.set(id, Self::hdr_addr(segs[s].seg.conn, segs[s].slot, w));
                        *slot = Some((s, w));
                    }
                    None => sim.set(id, rng.gen_range(0..256)),
                }
            }
            assert!(early.is_empty());

            // ---- Free strobe: one due free per cycle.
            let due = frees.iter().position(|&(t, _)| t <= cycle);
            let freeing = due.map(|i| frees.swap_remove(i).1);
            match freeing {
                Some(s) => {
                    sim.set(self.free_valid, 1);
                    sim.set(self.free_conn, segs[s].seg.conn as u128);
                    sim.set(self.free_slot, segs[s].slot as u128);
                }
                None => {
                    sim.set(self.free_valid, 0);
                    sim.set(self.free_conn, rng.gen_range(0..CONNECTIONS) as u128);
                    sim.set(self.free_slot, rng.gen_range(0..2));
                }
            }

            // ---- Input handshake.
            let ready = sim.get(self.ulpdu_ready) == 1;
            if let Some((c, beat, first)) = offer {
                if first && busy[c][nxt_slot[c]] {
                    rep.busy_waits += 1;
                    assert!(
                        !ready,
                        "cycle {cycle}: first beat of connection {c} taken while its slot {} \
                         is busy",
                        nxt_slot[c]
                    );
                }
                if ready {
                    active = true;
                    offer = None;
                    rep.beats_in += 1;
                    rep.first_beat_cycle.get_or_insert(cycle);
                    rep.last_beat_cycle = Some(cycle);
                    let (s, i) = cur_seg[c].expect("segment in progress");
                    if first {
                        segs[s].slot = nxt_slot[c];
                        busy[c][nxt_slot[c]] = true;
                        nxt_slot[c] ^= 1;
                    }
                    // Payload beats leave in the order their ULPDU beats came in.
                    let jb = job_beat(&segs[s].seg.bytes);
                    if i >= jb {
                        let mut p = expected_run(&segs[s].seg)[i - jb];
                        p.good = p.good || !p.last;
                        exp_pay.push_back(p);
                    }
                    if i == jb {
                        exp_jobs.push_back(s);
                    }
                    if beat.last {
                        cur_seg[c] = None;
                        segs[s].complete = true;
                    } else {
                        cur_seg[c] = Some((s, i + 1));
                    }
                }
            }

            // ---- Job output.
            if job_valid && job_ready {
                active = true;
                let s = exp_jobs
                    .pop_front()
                    .unwrap_or_else(|| panic!("cycle {cycle}: job with none expected"));
                let st = &mut segs[s];
                let got = (
                    sim.get(self.job_conn) as usize,
                    sim.get(self.job_slot) as usize,
                    sim.get(self.job_len) as usize,
                );
                assert_eq!(
                    got,
                    (st.seg.conn, st.slot, st.seg.bytes.len()),
                    "cycle {cycle}: job {jobs_taken} (connection, slot, length)"
                );
                st.job_taken = true;
                jobs_taken += 1;
                rep.jobs += 1;
            }

            // ---- Payload output.
            if sim.get(self.pay_valid) == 1 {
                let first = sim.get(self.pay_first) == 1;
                if first {
                    // Run k's first beat may show before job k does: the job enters `job_*` at
                    // the edge this beat is taken (`ddp` contract), which the check at the top
                    // of the next cycle asserts.
                    if pay_ready {
                        firsts_seen += 1;
                    }
                }
                if pay_ready {
                    active = true;
                    rep.pay_beats += 1;
                    let keep = sim.get(self.pay_keep) as u8;
                    let last = sim.get(self.pay_last) == 1;
                    let got = PayBeat {
                        conn: sim.get(self.pay_conn) as usize,
                        data: sim.get(self.pay_data) as u32 & lane_mask(keep),
                        keep,
                        first,
                        last,
                        good: !last || sim.get(self.pay_good) == 1,
                    };
                    let want = exp_pay.pop_front().unwrap_or_else(|| {
                        panic!("cycle {cycle}: payload beat {got:?} unexpected")
                    });
                    assert_eq!(got, want, "cycle {cycle}: payload beat");
                    let c = got.conn;
                    if first {
                        assert!(open_run[c].is_none());
                        open_run[c] = Some(Vec::new());
                    }
                    let run = open_run[c]
                        .as_mut()
                        .unwrap_or_else(|| panic!("cycle {cycle}: beat outside a run"));
                    run.extend(beat_payload(
                        &Beat {
                            data: u128::from(got.data),
                            keep: u128::from(keep),
                            last,
                        },
                        DATA_WIDTH,
                    ));
                    if last {
                        let bytes = open_run[c].take().unwrap_or_default();
                        got_runs[c].push((bytes, sim.get(self.pay_good) == 1));
                    }
                }
            }

            // ---- Full header reads and frees.
            for (s, st) in segs.iter_mut().enumerate() {
                if st.complete && st.job_taken && !st.full_read {
                    st.full_read = true;
                    if traffic.check_headers {
                        st.reads_pending += HDR_WORDS;
                        reads.extend((0..HDR_WORDS).map(|w| (s, w)));
                    }
                }
            }

            sim.tick();

            // ---- Read data of the addresses presented before the edge.
            for (port, r) in issued.iter().enumerate() {
                if let Some((s, w)) = *r {
                    active = true;
                    rep.header_reads += 1;
                    let got = sim.get(if port == 0 {
                        self.hdr_a_data
                    } else {
                        self.hdr_b_data
                    }) as u32;
                    // Words 16..31 are never written (0); below, a word past the segment's
                    // end is whatever an earlier segment left there, on both ports (contract
                    // in `rnic_hdl::ddp`).
                    let want = if w < HDR_WRITTEN_WORDS {
                        header_word(&segs[s].seg.bytes, w)
                    } else {
                        0
                    };
                    let past_end = w >= packet_beats(&segs[s].seg.bytes, DATA_WIDTH).len();
                    if past_end && w < HDR_WRITTEN_WORDS {
                        segs[s].reads_pending -= 1;
                        continue;
                    }
                    assert_eq!(
                        got,
                        want,
                        "cycle {cycle}: header word {w} of connection {} slot {} on port {} \
                         (segment of {} octets)",
                        segs[s].seg.conn,
                        segs[s].slot,
                        if port == 0 { 'A' } else { 'B' },
                        segs[s].seg.bytes.len()
                    );
                    segs[s].reads_pending -= 1;
                }
            }
            for (s, st) in segs.iter_mut().enumerate() {
                if st.full_read && st.reads_pending == 0 && !st.freed {
                    st.freed = true;
                    let delay = rng.gen_range(0..=traffic.free_delay);
                    frees.push((cycle + 1 + delay, s));
                }
            }
            if let Some(s) = freeing {
                busy[segs[s].seg.conn][segs[s].slot] = false;
            }

            let done = queues.iter().all(|q| q.is_empty())
                && cur_seg.iter().all(|c| c.is_none())
                && offer.is_none()
                && exp_jobs.is_empty()
                && exp_pay.is_empty()
                && frees.is_empty()
                && segs.iter().all(|s| s.freed);
            if done {
                break;
            }
            stuck = if active || freeing.is_some() {
                0
            } else {
                stuck + 1
            };
            assert!(
                stuck < STUCK_CYCLES,
                "cycle {cycle}: no progress for {STUCK_CYCLES} cycles ({} jobs and {} payload \
                 beats outstanding)",
                exp_jobs.len(),
                exp_pay.len()
            );
        }
        assert_eq!(got_runs, want_runs, "payload octets and good flags per run");
        rep
    }
}

/// Random segments: lengths 0..=300 with the edge lengths 0 to 14, 18, 46 and 70 first; octet 0
/// a random T flag (and random other bits), octet 1 a random opcode (all 16) with random high
/// bits; connections random; good mostly set.
pub fn random_segments(rng: &mut impl Rng, count: usize) -> Vec<Segment> {
    let mut edge: Vec<usize> = (0..=14).collect();
    edge.extend([18, 46, 70]);
    (0..count)
        .map(|i| {
            let len = match edge.get(i % (edge.len() * 2)) {
                Some(&l) => l,
                None => rng.gen_range(0..=300),
            };
            let mut bytes: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            if len >= 2 && rng.gen_bool(0.7) {
                // Mostly the opcodes that carry payload, under the right T flag.
                let (t, op) = match rng.gen_range(0..3) {
                    0 => (0x80, [0u8, 2][rng.gen_range(0..2)]),
                    1 => (0x00, rng.gen_range(3..=6)),
                    _ => (rng.gen_range(0..2) * 0x80, rng.gen_range(0..16)),
                };
                bytes[0] = (bytes[0] & 0x7F) | t;
                bytes[1] = (bytes[1] & 0xF0) | op;
            }
            Segment {
                conn: rng.gen_range(0..CONNECTIONS),
                bytes,
                good: rng.gen_bool(0.8),
            }
        })
        .collect()
}

/// Benchmark: ULPDU beats per cycle into [`DdpRxParse`] for tagged segments of `len` octets on
/// `connections` connections (interleaved beat by beat when more than one), input always
/// valid, outputs always ready, slots freed as soon as possible. Checked like any run.
pub fn measure_beats_per_cycle(
    kind: BackendKind,
    len: usize,
    connections: usize,
    segments: usize,
) -> Result<ParseReport> {
    let mut sim = kind.build_untraced(DdpRxParse::default())?;
    let tb = DdpRxParseTb::new(sim.as_ref())?;
    let segs: Vec<Segment> = (0..segments)
        .map(|i| {
            let mut bytes: Vec<u8> = (0..len).map(|j| (i * 7 + j) as u8).collect();
            bytes[0] = 0xC1;
            bytes[1] = 0x40;
            Segment {
                conn: i % connections,
                bytes,
                good: true,
            }
        })
        .collect();
    let traffic = ParseTraffic {
        switch: if connections > 1 { 1.0 } else { 0.0 },
        ..ParseTraffic::FULL_SPEED
    };
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    Ok(tb.run(sim.as_mut(), &segs, &traffic, &mut rng))
}
