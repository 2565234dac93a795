//! Driver and monitor for [`rnic_hdl::rdmap::terminate_tx::TerminateTx`], usable on both back
//! ends.
//!
//! The driver offers Terminate requests on `term_*` (with random gaps; a taken request stays
//! on `term_*` until its `term_done`, the port's contract), plays DdpRxParse's
//! header RAM on read port B (the word of the address presented in one cycle is on
//! `hdr_b_data` in the next), and applies random back-pressure on `tx_ready`. The monitor
//! collects every ULPDU from `tx_*` and every `term_done` strobe, checking the stream rules as it
//! goes: `keep` contiguous from lane 0 and full but on the last beat, `tx_conn` and `tx_len`
//! the same on every beat of a ULPDU, `tx_len` equal to the octets delivered, and `term_done`
//! exactly one cycle after the last beat moved, naming the request's connection and slot.

use crate::stream::{beat_payload, Beat};
use crate::testbench::{Backend, InputId, OutputId};
use anyhow::Result;
use rand::Rng;
use rnic_hdl::config::{CONNECTIONS, HDR_SLOTS, HDR_WORDS, HDR_WORD_BITS};

/// One Terminate request as RxControl issues it on `term_*`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TermRequest {
    pub conn: usize,
    pub slot: usize,
    pub layer: u8,
    pub etype: u8,
    pub code: u8,
    pub m: bool,
    pub d: bool,
    pub r: bool,
    pub seglen: u16,
}

/// DdpRxParse's header RAM as the test fills it: `HDR_WORDS` words per (connection, slot).
/// As the parser writes it: words 0..15 hold the segment's first 64 octets and, past the
/// segment's end, junk (what an earlier segment left: TerminateTx must not copy it, it zeroes
/// every octet at or past `term_seglen`); words 16..31 are never written (0).
#[derive(Clone, Debug)]
pub struct HeaderRam {
    words: Vec<u32>,
    /// Each slot's segment (its first `4 * HDR_WORDS` octets).
    segs: Vec<Vec<u8>>,
}

impl Default for HeaderRam {
    fn default() -> Self {
        HeaderRam {
            words: vec![0; CONNECTIONS * HDR_SLOTS * HDR_WORDS],
            segs: vec![Vec::new(); CONNECTIONS * HDR_SLOTS],
        }
    }
}

/// Header words the parser writes (beats 0..15 of a segment).
const WRITTEN_WORDS: usize = 16;

impl HeaderRam {
    fn base(conn: usize, slot: usize) -> usize {
        (conn * HDR_SLOTS + slot) << HDR_WORD_BITS
    }

    /// Writes a segment into a slot the way DdpRxParse does (byte 0 in the MSB lane), with
    /// junk in words 0..15 past its end (a Terminate request for it carries its length as
    /// `seglen`).
    pub fn write_segment(&mut self, conn: usize, slot: usize, segment: &[u8]) {
        let base = Self::base(conn, slot);
        // Beats written: a 0-octet ULPDU is one beat with no lane kept (word 0 is 0).
        let full = segment.len().div_ceil(4).max(1);
        for w in 0..HDR_WORDS {
            let mut word = 0u32;
            for lane in 0..4 {
                let b = segment.get(4 * w + lane).copied().unwrap_or(0);
                word |= u32::from(b) << (24 - 8 * lane);
            }
            if w >= WRITTEN_WORDS {
                word = 0;
            } else if w >= full {
                word = 0xA55A_0000 ^ ((base + w) as u32 * 0x0101_0101) ^ segment.len() as u32;
            }
            self.words[base + w] = word;
        }
        let mut seg = segment.to_vec();
        seg.truncate(4 * HDR_WORDS);
        self.segs[base >> HDR_WORD_BITS] = seg;
    }

    /// The slot's segment octets (`4 * HDR_WORDS`, 0 past its end): what a Terminate copies.
    pub fn slot_bytes(&self, conn: usize, slot: usize) -> Vec<u8> {
        let mut s = self.segs[Self::base(conn, slot) >> HDR_WORD_BITS].clone();
        s.resize(4 * HDR_WORDS, 0);
        s
    }

    /// The length of the segment in a slot.
    pub fn seg_len(&self, conn: usize, slot: usize) -> usize {
        self.segs[Self::base(conn, slot) >> HDR_WORD_BITS].len()
    }

    /// The word at a `{conn, slot, word}` address.
    pub fn read(&self, addr: u128) -> u32 {
        self.words[addr as usize % self.words.len()]
    }
}

/// One ULPDU from `tx_*`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxUlpdu {
    pub conn: usize,
    pub bytes: Vec<u8>,
    /// Cycle of its first and its last beat.
    pub first_cycle: u64,
    pub last_cycle: u64,
}

/// What the block did.
#[derive(Clone, Debug, Default)]
pub struct TermRun {
    pub ulpdus: Vec<TxUlpdu>,
    /// `term_done` strobes: (connection, slot, cycle).
    pub done: Vec<(usize, usize, u64)>,
    /// Cycle in which each request was taken.
    pub taken: Vec<u64>,
}

/// Random timing of a run.
#[derive(Clone, Copy, Debug)]
pub struct TermTraffic {
    /// Probability of an idle cycle before offering the next request.
    pub gap: f64,
    /// Probability that `tx_ready` is low in a cycle.
    pub stall: f64,
}

/// Ports of the block, resolved once.
pub struct TerminateTxTb {
    term: [InputId; 10],
    hdr_b_data: InputId,
    tx_ready: InputId,
    term_ready: OutputId,
    hdr_b_addr: OutputId,
    tx_data: OutputId,
    tx_keep: OutputId,
    tx_last: OutputId,
    tx_valid: OutputId,
    tx_conn: OutputId,
    tx_len: OutputId,
    term_done: OutputId,
    term_done_conn: OutputId,
    term_done_slot: OutputId,
}

const TERM_PORTS: [&str; 10] = [
    "term_valid",
    "term_conn",
    "term_slot",
    "term_layer",
    "term_etype",
    "term_code",
    "term_m",
    "term_d",
    "term_r",
    "term_seglen",
];

/// Cycles without any output before the run is declared stuck.
const STUCK_CYCLES: u64 = 1000;

impl TerminateTxTb {
    /// Resolves the ports of a [`TerminateTx`](rnic_hdl::rdmap::terminate_tx::TerminateTx).
    pub fn new(sim: &dyn Backend) -> Result<Self> {
        let mut term = [InputId(0); 10];
        for (p, name) in term.iter_mut().zip(TERM_PORTS) {
            *p = sim.input(name)?;
        }
        Ok(TerminateTxTb {
            term,
            hdr_b_data: sim.input("hdr_b_data")?,
            tx_ready: sim.input("tx_ready")?,
            term_ready: sim.output("term_ready")?,
            hdr_b_addr: sim.output("hdr_b_addr")?,
            tx_data: sim.output("tx_data")?,
            tx_keep: sim.output("tx_keep")?,
            tx_last: sim.output("tx_last")?,
            tx_valid: sim.output("tx_valid")?,
            tx_conn: sim.output("tx_conn")?,
            tx_len: sim.output("tx_len")?,
            term_done: sim.output("term_done")?,
            term_done_conn: sim.output("term_done_conn")?,
            term_done_slot: sim.output("term_done_slot")?,
        })
    }

    /// Issues `requests` in order against the header RAM `ram` and runs until every ULPDU has
    /// left and every `term_done` has come. Panics on a stream-rule violation (see the module
    /// documentation) or when nothing happens for a long time.
    pub fn run(
        &self,
        sim: &mut dyn Backend,
        ram: &HeaderRam,
        requests: &[TermRequest],
        traffic: TermTraffic,
        rng: &mut impl Rng,
    ) -> TermRun {
        let mut out = TermRun::default();
        let mut next = 0usize;
        // The ULPDU being received: conn, len, bytes, first cycle.
        let mut open: Option<(usize, usize, Vec<u8>, u64)> = None;
        // Cycle after which `term_done` is due (the last beat's cycle).
        let mut done_due: Option<u64> = None;
        let mut quiet = 0u64;
        let mut offer_now = false;
        // The request taken and not yet done (held on `term_*`).
        let mut held: Option<usize> = None;
        sim.set(self.hdr_b_data, u128::from(rng.gen::<u32>()));
        loop {
            let cycle = sim.cycles();
            // Request port: the current request stays offered until taken, and a taken one
            // stays on `term_*` (valid) until its `term_done` (TerminateTx reads it in place).
            if !offer_now && held.is_none() && next < requests.len() {
                offer_now = !rng.gen_bool(traffic.gap);
            }
            let req = match held {
                Some(i) => requests.get(i),
                None => requests.get(next).filter(|_| offer_now),
            };
            let values: [u128; 10] = match req {
                Some(r) => [
                    1,
                    r.conn as u128,
                    r.slot as u128,
                    u128::from(r.layer),
                    u128::from(r.etype),
                    u128::from(r.code),
                    u128::from(r.m),
                    u128::from(r.d),
                    u128::from(r.r),
                    u128::from(r.seglen),
                ],
                None => {
                    let mut v: [u128; 10] = std::array::from_fn(|_| rng.gen());
                    v[0] = 0;
                    v
                }
            };
            for (p, v) in self.term.iter().zip(values) {
                sim.set(*p, v);
            }
            let ready = !rng.gen_bool(traffic.stall);
            sim.set(self.tx_ready, u128::from(ready));
            let mut active = false;
            if req.is_some() && sim.get(self.term_ready) == 1 {
                assert!(
                    held.is_none(),
                    "cycle {cycle}: a request taken again before its term_done"
                );
                out.taken.push(cycle);
                held = Some(next);
                next += 1;
                offer_now = false;
                active = true;
            }
            // Output stream.
            if sim.get(self.tx_valid) == 1 && ready {
                active = true;
                let beat = Beat {
                    data: sim.get(self.tx_data),
                    keep: sim.get(self.tx_keep),
                    last: sim.get(self.tx_last) == 1,
                };
                let conn = sim.get(self.tx_conn) as usize;
                let len = sim.get(self.tx_len) as usize;
                let n = beat.keep.count_ones() as usize;
                let contiguous = if n == 0 {
                    0
                } else {
                    ((1u128 << n) - 1) << (4 - n)
                };
                assert_eq!(beat.keep, contiguous, "cycle {cycle}: keep not contiguous");
                assert!(
                    beat.last || n == 4,
                    "cycle {cycle}: partial keep before the last beat"
                );
                assert!(n > 0, "cycle {cycle}: empty beat");
                let (c, l, bytes, _) = open.get_or_insert_with(|| (conn, len, Vec::new(), cycle));
                assert_eq!(
                    (*c, *l),
                    (conn, len),
                    "cycle {cycle}: tx_conn / tx_len changed"
                );
                bytes.extend(beat_payload(&beat, 32));
                if beat.last {
                    let (conn, len, bytes, first_cycle) = open.take().unwrap_or_default();
                    assert_eq!(bytes.len(), len, "cycle {cycle}: tx_len vs octets");
                    assert!(done_due.is_none(), "cycle {cycle}: term_done missing");
                    done_due = Some(cycle);
                    out.ulpdus.push(TxUlpdu {
                        conn,
                        bytes,
                        first_cycle,
                        last_cycle: cycle,
                    });
                }
            }
            if sim.get(self.term_done) == 1 {
                active = true;
                assert_eq!(
                    done_due.take().map(|c| c + 1),
                    Some(cycle),
                    "cycle {cycle}: term_done not one cycle after a last beat"
                );
                out.done.push((
                    sim.get(self.term_done_conn) as usize,
                    sim.get(self.term_done_slot) as usize,
                    cycle,
                ));
                assert!(held.is_some(), "cycle {cycle}: term_done without a request");
                held = None;
            } else {
                assert!(
                    done_due.is_none_or(|c| c + 1 != cycle),
                    "cycle {cycle}: term_done missing after the last beat"
                );
            }
            // The header RAM: registered read.
            let addr = sim.get(self.hdr_b_addr);
            sim.tick();
            sim.set(self.hdr_b_data, u128::from(ram.read(addr)));

            quiet = if active { 0 } else { quiet + 1 };
            let finished =
                next == requests.len() && out.done.len() == requests.len() && open.is_none();
            if finished && quiet > 8 {
                break;
            }
            assert!(quiet < STUCK_CYCLES, "cycle {cycle}: no progress");
        }
        out
    }
}
