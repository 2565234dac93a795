//! Driver for [`rnic_hdl::rdmap::rx_control::RxControl`], usable on both back ends, and an
//! independent software model of its receive checks.
//!
//! [`RxControlTb::run`] plays every block around RxControl with software models:
//! DdpRxParse (jobs in a given order, each written into its connection's next header slot when
//! that slot is free; header RAM read port A with a 1-cycle registered read), StagCheck (a
//! table answering after a fixed latency with the request's tag; an invalidate takes effect at
//! the request), the RQ responder (per-QP WQE queues, random latency), RxPlace (takes verdicts,
//! reports `done_*` per segment after a random delay, in segment order), TerminateTx (takes
//! `term_*`, pulses `term_done` later), and consumers with random `ready` on every output. It
//! checks the protocol as it goes (one verdict per job in job order, slots freed once and only
//! when busy, pops only of queued WQEs) and returns everything that came out.
//!
//! [`model`] computes what should come out from the segments alone (rows 0-21 of the check
//! table of `rnic_hdl::rdmap`, `rfc5040-rdmap.md` §5.4), for runs where every segment ends
//! good and no LLP error occurs.

use crate::host_mem::DMA_ADDR_MASK;
use crate::testbench::{Backend, InputId, OutputId};
use anyhow::Result;
use rand::Rng;
use rnic_hdl::config::{CONNECTIONS, HDR_WORDS, LOCAL_LEN_BITS};
use rnic_hdl::ddp::check_status;
use rnic_hdl::ports::SimPorts;
use rnic_hdl::rdmap::rx_control::RxControl;
use rnic_proto::ddp::{DDP_VERSION, L_FLAG, T_FLAG};
use rnic_proto::rdmap::{Opcode, RDMAP_VERSION};
use std::collections::{HashMap, VecDeque};

/// One STag table entry of the StagCheck stub (`rfc5040-rdmap.md` §7.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StagEntry {
    pub stag: u32,
    pub pd: u8,
    pub access: u8,
    pub qp: Option<usize>,
    pub remote_inv: bool,
    pub base_to: u64,
    pub len: u32,
    pub host_addr: u32,
}

/// The StagCheck stub's table: the behaviour documented for `rnic_hdl::ddp::check_status`.
#[derive(Clone, Debug, Default)]
pub struct StagTable {
    pub entries: Vec<StagEntry>,
}

impl StagTable {
    /// Status and host address of a request, and the invalidate's effect.
    #[allow(clippy::too_many_arguments)]
    pub fn check(
        &mut self,
        stag: u32,
        to: u64,
        len: u32,
        pd: u8,
        qp: usize,
        access: u8,
        invalidate: bool,
    ) -> (u8, u32) {
        let Some(pos) = self.entries.iter().position(|e| e.stag == stag) else {
            return (check_status::INVALID_STAG, 0);
        };
        let e = self.entries[pos];
        if e.pd != pd || e.qp.is_some_and(|q| q != qp) {
            return (check_status::NOT_ASSOCIATED, 0);
        }
        if invalidate {
            if !e.remote_inv {
                return (check_status::NOT_INVALIDATABLE, 0);
            }
            self.entries.remove(pos);
            return (check_status::OK, 0);
        }
        if e.access & access != access {
            return (check_status::ACCESS, 0);
        }
        let Some(end) = to.checked_add(u64::from(len)) else {
            return (check_status::WRAP, 0);
        };
        if to < e.base_to || end > e.base_to + u64::from(e.len) {
            return (check_status::BOUNDS, 0);
        }
        // StagCheck adds at the width of a host address (24 bits in the Cu profile).
        (
            check_status::OK,
            e.host_addr.wrapping_add((to - e.base_to) as u32) & DMA_ADDR_MASK,
        )
    }
}

/// A receive WQE as the RQ responder returns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wqe {
    pub to: u64,
    pub len: u32,
    pub lkey: u32,
    pub index: u16,
}

/// One segment (ULPDU) as the parser hands it over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub conn: usize,
    /// The ULPDU's first octets (at least the header; more is cut at `HDR_WORDS` words).
    pub header: Vec<u8>,
    /// ULPDU_Length (`job_len`).
    pub len: u16,
    /// `done_good` of its run.
    pub good: bool,
}

/// DDP control octet: T, L, DV.
fn ctrl(tagged: bool, last: bool) -> u8 {
    (if tagged { T_FLAG } else { 0 }) | (if last { L_FLAG } else { 0 }) | DDP_VERSION
}

/// RDMAP control octet: RV, opcode.
fn rctrl(op: Opcode) -> u8 {
    (RDMAP_VERSION << 6) | op as u8
}

impl Segment {
    /// A tagged segment (Write, Read Response) with `payload` octets (`rfc5040-rdmap.md` §1.4).
    pub fn tagged(conn: usize, op: Opcode, last: bool, stag: u32, to: u64, payload: u16) -> Self {
        let mut h = vec![ctrl(true, last), rctrl(op)];
        h.extend_from_slice(&stag.to_be_bytes());
        h.extend_from_slice(&to.to_be_bytes());
        Segment {
            conn,
            len: 14 + payload,
            header: h,
            good: true,
        }
    }

    /// An untagged segment (Sends, Terminate) with `payload` octets after the 18-octet header.
    #[allow(clippy::too_many_arguments)]
    pub fn untagged(
        conn: usize,
        op: Opcode,
        last: bool,
        inv_stag: u32,
        qn: u32,
        msn: u32,
        mo: u32,
        payload: u16,
    ) -> Self {
        let mut h = vec![ctrl(false, last), rctrl(op)];
        h.extend_from_slice(&inv_stag.to_be_bytes());
        h.extend_from_slice(&qn.to_be_bytes());
        h.extend_from_slice(&msn.to_be_bytes());
        h.extend_from_slice(&mo.to_be_bytes());
        Segment {
            conn,
            len: 18 + payload,
            header: h,
            good: true,
        }
    }

    /// A Send-type segment on QN 0.
    #[allow(clippy::too_many_arguments)]
    pub fn send(
        conn: usize,
        op: Opcode,
        last: bool,
        inv_stag: u32,
        msn: u32,
        mo: u32,
        payload: u16,
    ) -> Self {
        Self::untagged(conn, op, last, inv_stag, 0, msn, mo, payload)
    }

    /// An RDMA Read Request (QN 1, L = 1, MO 0, 46 octets; `rfc5040-rdmap.md` §1.5).
    pub fn read_request(
        conn: usize,
        msn: u32,
        sink_stag: u32,
        sink_to: u64,
        size: u32,
        src_stag: u32,
        src_to: u64,
    ) -> Self {
        let mut s = Self::untagged(conn, Opcode::RdmaReadRequest, true, 0, 1, msn, 0, 0);
        s.header.extend_from_slice(&sink_stag.to_be_bytes());
        s.header.extend_from_slice(&sink_to.to_be_bytes());
        s.header.extend_from_slice(&size.to_be_bytes());
        s.header.extend_from_slice(&src_stag.to_be_bytes());
        s.header.extend_from_slice(&src_to.to_be_bytes());
        s.len = 46;
        s
    }

    /// A Terminate (QN 2, L = 1) whose header starts with `layer_etype` and `code`
    /// (`rfc5040-rdmap.md` §1.6), `extra` further octets.
    pub fn terminate(conn: usize, msn: u32, layer_etype: u8, code: u8, extra: u16) -> Self {
        let mut s = Self::untagged(conn, Opcode::Terminate, true, 0, 2, msn, 0, 4 + extra);
        s.header.extend_from_slice(&[layer_etype, code, 0, 0]);
        s
    }

    /// Header words as DdpRxParse writes them (byte 0 in the MSB lane, zeros past `len`).
    pub fn words(&self) -> [u32; HDR_WORDS] {
        let mut w = [0u32; HDR_WORDS];
        for (i, &b) in self.header.iter().enumerate().take(HDR_WORDS * 4) {
            if i < usize::from(self.len) {
                w[i / 4] |= u32::from(b) << (24 - 8 * (i % 4));
            }
        }
        w
    }

    /// The words on the parser's port A: port A reads no 0 past the segment's end
    /// (`rnic_hdl::ddp`, "Header slots"), so the words after the last beat are junk here (what
    /// an earlier segment left): RxControl is shown to use none of them.
    pub fn ram_words(&self) -> [u32; HDR_WORDS] {
        let mut w = self.words();
        let beats = usize::from(self.len).div_ceil(4).max(1);
        for (i, x) in w.iter_mut().enumerate().skip(beats) {
            *x = 0x9E37_79B9u32.rotate_left(i as u32) ^ u32::from(self.len);
        }
        w
    }
}

/// A QP configuration write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QpConfig {
    pub enable: bool,
    pub pd: u8,
    pub ird: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub conn: usize,
    pub place: bool,
    pub addr: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cqe {
    pub opcode: u8,
    pub status: u8,
    pub byte_len: u32,
    pub index: u16,
    pub inv_stag: u32,
    pub with_inv: bool,
    pub solicited: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aev {
    pub kind: u8,
    pub layer: u8,
    pub etype: u8,
    pub code: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Irq {
    pub sink_stag: u32,
    pub sink_to: u64,
    pub size: u32,
    pub src_addr: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Term {
    pub slot: u8,
    pub layer: u8,
    pub etype: u8,
    pub code: u8,
    pub m: bool,
    pub d: bool,
    pub r: bool,
    pub seglen: u16,
}

/// A TO as RxControl hands it to the StagCheck on the Cu: bits 32..0 exact, bits 63..33 all
/// ones, 1 or 0 (they are kept as two flags; the STag table holds 32-bit base TOs and regions
/// under 2^32 octets, so a TO with other bits 63..33 fails its bounds check either way:
/// `docs/decisions.md`, "RxControl: TO bits 63..33 as flags").
pub fn cu_to(to: u64) -> u64 {
    let hi = to >> 33;
    let lo = to & ((1 << 33) - 1);
    if hi == (1 << 31) - 1 {
        to
    } else if hi != 0 {
        (1 << 33) | lo
    } else {
        lo
    }
}

/// A Read Request's size as RxControl hands it to the StagCheck (`chk_len`): below
/// `1 << LOCAL_LEN_BITS` exact, else its low `LOCAL_LEN_BITS` with bit `LOCAL_LEN_BITS` set (a
/// flag the StagCheck answers BOUNDS: `docs/decisions.md`, "Local lengths of 24 bits in the
/// Alchitry Cu profile"). The same value in a build of 32-bit lengths.
pub fn cu_len(len: u32) -> u32 {
    if LOCAL_LEN_BITS >= 32 || len >> LOCAL_LEN_BITS == 0 {
        len
    } else {
        (len & ((1 << LOCAL_LEN_BITS) - 1)) | 1 << LOCAL_LEN_BITS
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Check {
    pub stag: u32,
    pub to: u64,
    pub len: u32,
    pub pd: u8,
    pub qp: usize,
    pub access: u8,
    pub invalidate: bool,
}

/// Everything that came out, per QP where it belongs to one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Verdicts in job order.
    pub verdicts: Vec<Verdict>,
    pub cqes: Vec<Vec<Cqe>>,
    pub aevs: Vec<Vec<Aev>>,
    pub irqs: Vec<Vec<Irq>>,
    pub terms: Vec<Vec<Term>>,
    pub checks: Vec<Check>,
    /// WQEs popped per QP.
    pub pops: Vec<usize>,
}

impl Outcome {
    pub fn new() -> Self {
        Outcome {
            cqes: vec![Vec::new(); CONNECTIONS],
            aevs: vec![Vec::new(); CONNECTIONS],
            irqs: vec![Vec::new(); CONNECTIONS],
            terms: vec![Vec::new(); CONNECTIONS],
            pops: vec![0; CONNECTIONS],
            ..Outcome::default()
        }
    }
}

/// When things happened (cycle numbers), per QP: what [`Outcome`] leaves out, for tests of
/// timing contracts (not compared with the model).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    /// Cycles in which a pop (`rq_req_pop = 1`) was taken.
    pub pops: Vec<Vec<u64>>,
    /// Cycles in which the `done_*` of a Send-type segment with L = 1 was taken.
    pub send_last_dones: Vec<Vec<u64>>,
}

impl Segment {
    /// A Send-type segment (untagged, opcode 3-6) with the L flag.
    pub fn is_send_last(&self) -> bool {
        let (c, r) = (self.header[0], self.header[1] & 0xF);
        c & T_FLAG == 0
            && c & L_FLAG != 0
            && (Opcode::Send as u8..=Opcode::SendSeInvalidate as u8).contains(&r)
    }
}

/// Environment of a run.
#[derive(Clone, Debug)]
pub struct Env {
    pub qps: Vec<(usize, QpConfig)>,
    pub stags: StagTable,
    pub rqs: Vec<VecDeque<Wqe>>,
    /// ORQ pushes per QP at the start (Read Requests that went out).
    pub orq: Vec<usize>,
    /// LLP errors: (connection, code, after how many jobs were issued).
    pub llp_errors: Vec<(usize, u8, usize)>,
    /// `irq_done` strobes: (QP, after how many irq pushes of that QP).
    pub irq_dones: Vec<(usize, usize)>,
    /// StagCheck latency in cycles.
    pub chk_latency: u64,
    /// Probability that a `ready` is low (and of gaps on `job_valid`).
    pub stall: f64,
}

impl Env {
    pub fn new(qps: &[(usize, QpConfig)]) -> Self {
        Env {
            qps: qps.to_vec(),
            stags: StagTable::default(),
            rqs: vec![VecDeque::new(); CONNECTIONS],
            orq: vec![0; CONNECTIONS],
            llp_errors: Vec::new(),
            irq_dones: Vec::new(),
            chk_latency: 6,
            stall: 0.3,
        }
    }
}

/// Ports resolved once.
pub struct RxControlTb {
    ins: HashMap<&'static str, InputId>,
    outs: HashMap<&'static str, OutputId>,
}

const STUCK_CYCLES: u64 = 20_000;

impl RxControlTb {
    pub fn new(sim: &dyn Backend) -> Result<Self> {
        let mut ins = HashMap::new();
        for n in <RxControl as SimPorts>::inputs() {
            ins.insert(*n, sim.input(n)?);
        }
        let mut outs = HashMap::new();
        for n in <RxControl as SimPorts>::outputs() {
            outs.insert(*n, sim.output(n)?);
        }
        Ok(RxControlTb { ins, outs })
    }

    fn set(&self, sim: &mut dyn Backend, port: &str, v: u128) {
        sim.set(self.ins[port], v);
    }

    fn get(&self, sim: &mut dyn Backend, port: &str) -> u128 {
        sim.get(self.outs[port])
    }

    /// Runs `segments` (in job order) in `env` to the end; panics on a protocol violation or
    /// when nothing moves for a long time.
    pub fn run(
        &self,
        sim: &mut dyn Backend,
        segments: &[Segment],
        env: &Env,
        rng: &mut impl Rng,
    ) -> Outcome {
        self.run_timed(sim, segments, env, rng).0
    }

    /// [`Self::run`], with the cycles of the pops and of the Sends' last dones.
    pub fn run_timed(
        &self,
        sim: &mut dyn Backend,
        segments: &[Segment],
        env: &Env,
        rng: &mut impl Rng,
    ) -> (Outcome, Timing) {
        let mut out = Outcome::new();
        let mut timing = Timing {
            pops: vec![Vec::new(); CONNECTIONS],
            send_last_dones: vec![Vec::new(); CONNECTIONS],
        };
        let mut stags = env.stags.clone();
        let mut rqs = env.rqs.clone();
        for n in <RxControl as SimPorts>::inputs() {
            self.set(sim, n, 0);
        }
        // Configuration.
        for &(qp, cfg) in &env.qps {
            self.set(sim, "qp_cfg_write", 1);
            self.set(sim, "qp_cfg_qp", qp as u128);
            self.set(sim, "qp_cfg_enable", u128::from(cfg.enable));
            self.set(sim, "qp_cfg_pd", u128::from(cfg.pd));
            self.set(sim, "qp_cfg_ird", u128::from(cfg.ird));
            sim.tick();
        }
        self.set(sim, "qp_cfg_write", 0);
        for (qp, &n) in env.orq.iter().enumerate() {
            for _ in 0..n {
                self.set(sim, "orq_push", 1);
                self.set(sim, "orq_push_qp", qp as u128);
                sim.tick();
            }
        }
        self.set(sim, "orq_push", 0);

        let mut ram: HashMap<(usize, usize), [u32; HDR_WORDS]> = HashMap::new();
        let mut busy = [[false; 2]; CONNECTIONS];
        let mut next_slot = [0usize; CONNECTIONS];
        let mut next_job = 0usize;
        // Job offered: (segment index, slot).
        let mut offered: Option<(usize, usize)> = None;
        let mut job_order: VecDeque<usize> = VecDeque::new();
        // Dones: (ready at cycle, conn, good, segment index).
        let mut dones: VecDeque<(u64, usize, bool, usize)> = VecDeque::new();
        let mut done_offer: Option<(usize, bool, usize)> = None;
        let mut chk_rsp: VecDeque<(u64, u8, u8, u32)> = VecDeque::new();
        let mut rq_rsp: Option<(u64, Option<Wqe>)> = None;
        let mut term_dones: VecDeque<(u64, usize, usize)> = VecDeque::new();
        // The Terminate request taken and not yet done (TerminateTx reads it in place).
        let mut term_held: Option<(usize, Term)> = None;
        let mut llp: Vec<(usize, u8, usize)> = env.llp_errors.clone();
        let mut irq_dones: Vec<(usize, usize)> = env.irq_dones.clone();
        // The request being received on `irq_*`, its QP, its commit cycle, `irq_ready` in this
        // cycle and the two before.
        let mut irq_words: Vec<u32> = Vec::new();
        let mut irq_qp = 0usize;
        let mut irq_commit = false;
        let mut irq_rdy = [false; 3];
        let mut idle = 0u64;
        let mut stuck = 0u64;
        let mut hdr_data = 0u32;
        loop {
            let cycle = sim.cycles();
            // ---- Header RAM: the word of the address presented last cycle.
            self.set(sim, "hdr_a_data", u128::from(hdr_data));
            // ---- Jobs.
            if offered.is_none() && next_job < segments.len() {
                let s = &segments[next_job];
                let slot = next_slot[s.conn];
                if !busy[s.conn][slot] {
                    busy[s.conn][slot] = true;
                    ram.insert((s.conn, slot), s.ram_words());
                    next_slot[s.conn] ^= 1;
                    offered = Some((next_job, slot));
                    next_job += 1;
                }
            }
            let job_gap = rng.gen_bool(env.stall / 2.0);
            match offered {
                Some((i, slot)) if !job_gap => {
                    self.set(sim, "job_valid", 1);
                    self.set(sim, "job_conn", segments[i].conn as u128);
                    self.set(sim, "job_slot", slot as u128);
                    self.set(sim, "job_len", u128::from(segments[i].len));
                }
                _ => {
                    self.set(sim, "job_valid", 0);
                    self.set(sim, "job_conn", rng.gen_range(0..CONNECTIONS) as u128);
                    self.set(sim, "job_slot", rng.gen_range(0..2));
                    self.set(sim, "job_len", rng.gen::<u16>().into());
                }
            }
            // ---- StagCheck responses.
            match chk_rsp.front() {
                Some(&(at, tag, st, addr)) if at == cycle => {
                    chk_rsp.pop_front();
                    self.set(sim, "rsp_valid", 1);
                    self.set(sim, "rsp_tag", tag.into());
                    self.set(sim, "rsp_status", st.into());
                    self.set(sim, "rsp_host_addr", addr.into());
                }
                _ => {
                    self.set(sim, "rsp_valid", 0);
                    self.set(sim, "rsp_tag", rng.gen_range(0..16));
                    self.set(sim, "rsp_status", rng.gen_range(0..8));
                    // StagCheck holds `rsp_host_addr` from a response to the next one
                    // (RxControl reads it there: the port keeps its value; the draw keeps the
                    // random stream of the other ports as it was).
                    let _ = rng.gen::<u32>();
                }
            }
            // ---- RQ responses.
            match rq_rsp {
                Some((at, w)) if at == cycle => {
                    rq_rsp = None;
                    // An empty RQ answers not present, with random fields.
                    let present = w.is_some();
                    let w = w.unwrap_or(Wqe {
                        to: rng.gen(),
                        len: rng.gen(),
                        lkey: rng.gen(),
                        index: rng.gen(),
                    });
                    self.set(sim, "rq_rsp_valid", 1);
                    self.set(sim, "rq_rsp_present", u128::from(present));
                    self.set(sim, "rq_rsp_to", w.to.into());
                    self.set(sim, "rq_rsp_len_n", (!w.len).into());
                    self.set(sim, "rq_rsp_lkey", w.lkey.into());
                    self.set(sim, "rq_rsp_index", w.index.into());
                }
                _ => self.set(sim, "rq_rsp_valid", 0),
            }
            // ---- Dones.
            if done_offer.is_none() {
                if let Some(&(at, conn, good, i)) = dones.front() {
                    if at <= cycle {
                        dones.pop_front();
                        done_offer = Some((conn, good, i));
                    }
                }
            }
            match done_offer {
                Some((conn, good, _)) => {
                    self.set(sim, "done_valid", 1);
                    self.set(sim, "done_conn", conn as u128);
                    self.set(sim, "done_good", u128::from(good));
                }
                None => self.set(sim, "done_valid", 0),
            }
            // ---- term_done strobes (TerminateTx reads the request in place: RxControl must
            // still hold it, valid and unchanged, in the done's cycle).
            let mut term_done_now = false;
            match term_dones.front() {
                Some(&(at, conn, slot)) if at <= cycle => {
                    term_dones.pop_front();
                    self.set(sim, "term_done", 1);
                    self.set(sim, "term_done_conn", conn as u128);
                    self.set(sim, "term_done_slot", slot as u128);
                    term_done_now = true;
                }
                _ => self.set(sim, "term_done", 0),
            }
            // ---- LLP errors, irq_done strobes.
            self.set(sim, "llp_err_valid", 0);
            if let Some(p) = llp.iter().position(|&(_, _, after)| after <= next_job) {
                let (conn, code, _) = llp.remove(p);
                self.set(sim, "llp_err_valid", 1);
                self.set(sim, "llp_err_conn", conn as u128);
                self.set(sim, "llp_err_code", code.into());
            }
            self.set(sim, "irq_done", 0);
            if let Some(p) = irq_dones
                .iter()
                .position(|&(qp, after)| out.irqs[qp].len() >= after)
            {
                let (qp, _) = irq_dones.remove(p);
                self.set(sim, "irq_done", 1);
                self.set(sim, "irq_done_qp", qp as u128);
            }
            // ---- Readies.
            let mut ready = |_: &str| !rng.gen_bool(env.stall);
            let r_vd = ready("vd");
            let r_rq = ready("rq");
            let r_irq = ready("irq");
            let r_cqe = ready("cqe");
            let r_aev = ready("aev");
            let r_term = ready("term");
            self.set(sim, "vd_ready", u128::from(r_vd));
            self.set(sim, "rq_req_ready", u128::from(r_rq));
            // (A level: 0 while a request is being written and in the cycle after it, its
            // commit, as the ReadResponder's; else random.)
            let irq_ready = r_irq && irq_words.is_empty() && !irq_commit;
            irq_commit = false;
            irq_rdy = [irq_ready, irq_rdy[0], irq_rdy[1]];
            self.set(sim, "irq_ready", u128::from(irq_ready));
            self.set(sim, "cqe_ready", u128::from(r_cqe));
            self.set(sim, "aev_ready", u128::from(r_aev));
            // One request at a time: not ready from its take to its done.
            let r_term = r_term && term_held.is_none();
            self.set(sim, "term_ready", u128::from(r_term));

            // ---- Sample the outputs before the edge.
            let mut active = false;
            let addr = self.get(sim, "hdr_a_addr") as usize;
            let (a_conn, a_slot, a_word) = (addr >> 6, (addr >> 5) & 1, addr & 31);
            hdr_data = ram.get(&(a_conn, a_slot)).map_or(0, |w| w[a_word]);
            if let Some((i, _)) = offered {
                if !job_gap && self.get(sim, "job_ready") == 1 {
                    offered = None;
                    job_order.push_back(i);
                    active = true;
                }
            }
            if let Some((conn, _, i)) = done_offer {
                if self.get(sim, "done_ready") == 1 {
                    if segments[i].is_send_last() {
                        timing.send_last_dones[conn].push(cycle);
                    }
                    done_offer = None;
                    active = true;
                }
            }
            if self.get(sim, "chk_valid") == 1 {
                let c = Check {
                    stag: self.get(sim, "chk_stag") as u32,
                    to: self.get(sim, "chk_to") as u64,
                    len: self.get(sim, "chk_len") as u32,
                    pd: self.get(sim, "chk_pd") as u8,
                    qp: self.get(sim, "chk_qp") as usize,
                    access: self.get(sim, "chk_access") as u8,
                    invalidate: self.get(sim, "chk_invalidate") == 1,
                };
                // TO and length are don't-care for an invalidate request.
                let c = if c.invalidate {
                    Check { to: 0, len: 0, ..c }
                } else {
                    c
                };
                let tag = self.get(sim, "chk_tag") as u8;
                let (st, a) = stags.check(c.stag, c.to, c.len, c.pd, c.qp, c.access, c.invalidate);
                out.checks.push(c);
                chk_rsp.push_back((cycle + env.chk_latency, tag, st, a));
                active = true;
            }
            if r_vd && self.get(sim, "vd_valid") == 1 {
                let v = Verdict {
                    conn: self.get(sim, "vd_conn") as usize,
                    place: self.get(sim, "vd_place") == 1,
                    addr: self.get(sim, "vd_addr") as u32,
                };
                // The address's carry-select flags (word bits 9..0, 19..0 all ones).
                let w = v.addr >> 2;
                assert_eq!(
                    (self.get(sim, "vd_a10") == 1, self.get(sim, "vd_a20") == 1),
                    (w & 0x3FF == 0x3FF, w & 0xF_FFFF == 0xF_FFFF),
                    "cycle {cycle}: carry-select flags of verdict {v:?}"
                );
                let i = job_order
                    .pop_front()
                    .unwrap_or_else(|| panic!("cycle {cycle}: verdict {v:?} without a job"));
                assert_eq!(
                    v.conn, segments[i].conn,
                    "cycle {cycle}: verdict of job {i}"
                );
                // `vd_addr` means nothing without `vd_place` (`ddp` module doc, "Verdicts"):
                // recorded as 0, as the model gives it.
                out.verdicts.push(Verdict {
                    addr: if v.place { v.addr } else { 0 },
                    ..v
                });
                dones.push_back((cycle + rng.gen_range(1..12), v.conn, segments[i].good, i));
                active = true;
            }
            if r_rq && self.get(sim, "rq_req_valid") == 1 {
                let qp = self.get(sim, "rq_req_qp") as usize;
                if self.get(sim, "rq_req_pop") == 1 {
                    assert!(
                        rqs[qp].pop_front().is_some(),
                        "cycle {cycle}: pop of an empty RQ {qp}"
                    );
                    out.pops[qp] += 1;
                    timing.pops[qp].push(cycle);
                } else {
                    assert!(rq_rsp.is_none(), "cycle {cycle}: two RQ reads in flight");
                    rq_rsp = Some((cycle + rng.gen_range(1..8), rqs[qp].front().copied()));
                }
                active = true;
            }
            // The ReadResponder's side: a word per `irq_valid` strobe (source address, sink
            // STag, sink TO high, low, size); a request starts only while `irq_ready`.
            if self.get(sim, "irq_valid") == 1 {
                let qp = self.get(sim, "irq_qp") as usize;
                if irq_words.is_empty() {
                    // RxControl decides in Idle, two cycles before the first word.
                    assert!(
                        irq_rdy[2],
                        "cycle {cycle}: a request started without irq_ready"
                    );
                    irq_qp = qp;
                }
                assert_eq!(qp, irq_qp, "cycle {cycle}: irq_qp changed within a request");
                irq_words.push(self.get(sim, "irq_word") as u32);
                if irq_words.len() == 5 {
                    let w = std::mem::take(&mut irq_words);
                    out.irqs[qp].push(Irq {
                        src_addr: w[0],
                        sink_stag: w[1],
                        sink_to: (u64::from(w[2]) << 32) | u64::from(w[3]),
                        size: w[4],
                    });
                    irq_commit = true;
                }
                active = true;
            }
            if r_cqe && self.get(sim, "cqe_valid") == 1 {
                let qp = self.get(sim, "cqe_qp") as usize;
                out.cqes[qp].push(Cqe {
                    opcode: self.get(sim, "cqe_opcode") as u8,
                    status: self.get(sim, "cqe_status") as u8,
                    byte_len: self.get(sim, "cqe_byte_len") as u32,
                    index: self.get(sim, "cqe_index") as u16,
                    inv_stag: self.get(sim, "cqe_inv_stag") as u32,
                    with_inv: self.get(sim, "cqe_with_inv") == 1,
                    solicited: self.get(sim, "cqe_solicited") == 1,
                });
                active = true;
            }
            if r_aev && self.get(sim, "aev_valid") == 1 {
                let qp = self.get(sim, "aev_qp") as usize;
                out.aevs[qp].push(Aev {
                    kind: self.get(sim, "aev_kind") as u8,
                    layer: self.get(sim, "aev_layer") as u8,
                    etype: self.get(sim, "aev_etype") as u8,
                    code: self.get(sim, "aev_code") as u8,
                });
                active = true;
            }
            let term_now = (self.get(sim, "term_valid") == 1).then(|| {
                (
                    self.get(sim, "term_conn") as usize,
                    Term {
                        slot: self.get(sim, "term_slot") as u8,
                        layer: self.get(sim, "term_layer") as u8,
                        etype: self.get(sim, "term_etype") as u8,
                        code: self.get(sim, "term_code") as u8,
                        m: self.get(sim, "term_m") == 1,
                        d: self.get(sim, "term_d") == 1,
                        r: self.get(sim, "term_r") == 1,
                        seglen: self.get(sim, "term_seglen") as u16,
                    },
                )
            });
            if let Some(held) = term_held {
                assert_eq!(
                    term_now,
                    Some(held),
                    "cycle {cycle}: a taken Terminate request not held until its term_done"
                );
                if term_done_now {
                    term_held = None;
                }
            }
            if let Some((conn, t)) = term_now.filter(|_| r_term) {
                out.terms[conn].push(t);
                term_held = Some((conn, t));
                term_dones.push_back((cycle + rng.gen_range(2..20), conn, usize::from(t.slot)));
                active = true;
            }
            if self.get(sim, "free_valid") == 1 {
                let conn = self.get(sim, "free_conn") as usize;
                let slot = self.get(sim, "free_slot") as usize;
                assert!(
                    busy[conn][slot],
                    "cycle {cycle}: free of slot {slot} of connection {conn}, which is not busy"
                );
                busy[conn][slot] = false;
                active = true;
            }
            sim.tick();

            let pending = next_job < segments.len()
                || offered.is_some()
                || !job_order.is_empty()
                || !dones.is_empty()
                || done_offer.is_some()
                || !term_dones.is_empty()
                || !chk_rsp.is_empty()
                || rq_rsp.is_some()
                || !llp.is_empty();
            if active {
                idle = 0;
                stuck = 0;
            } else {
                idle += 1;
                stuck += 1;
            }
            if !pending && idle > 64 {
                break;
            }
            assert!(
                stuck < STUCK_CYCLES,
                "no progress for {STUCK_CYCLES} cycles at cycle {cycle} (job {next_job} of {}, \
                 {} verdicts)",
                segments.len(),
                out.verdicts.len()
            );
        }
        for (c, b) in busy.iter().enumerate() {
            assert_eq!(*b, [false, false], "connection {c}: slots left busy");
        }
        (out, timing)
    }
}

/// The software model of RxControl for segments that all end good, without LLP errors or
/// `irq_done` strobes: the rows of the check table in order, the per-QP state, the completions.
pub mod model {
    use super::*;
    use rnic_proto::ddp::{
        ErrorType as DdpEType, TaggedBufferCode as Tg, UntaggedBufferCode as Ut,
        LOCAL_CATASTROPHIC_CODE,
    };
    use rnic_proto::rdmap::terminate::{
        ErrorType as REType, Layer, RemoteOperationCode as Op, RemoteProtectionCode as Pr,
    };
    use rnic_proto::verbs::{access, AsyncEventKind, WcOpcode, WcStatus};

    #[derive(Clone, Debug)]
    struct Qp {
        cfg: QpConfig,
        dead: bool,
        msn0: u32,
        msn1: u32,
        mo: u32,
        irq: u32,
        orq: u32,
    }

    fn be32(h: &[u8], at: usize) -> u32 {
        let mut b = [0u8; 4];
        for (i, x) in b.iter_mut().enumerate() {
            *x = h.get(at + i).copied().unwrap_or(0);
        }
        u32::from_be_bytes(b)
    }

    fn be64(h: &[u8], at: usize) -> u64 {
        (u64::from(be32(h, at)) << 32) | u64::from(be32(h, at + 4))
    }

    /// A Terminate triple with HdrCt and the segment's length.
    fn term(layer: Layer, etype: u8, code: u8, hdr: u8, seg: &Segment, slot: u8) -> Term {
        Term {
            slot,
            layer: layer as u8,
            etype,
            code,
            m: hdr >= 2,
            d: hdr >= 2,
            r: hdr == 3,
            seglen: seg.len,
        }
    }

    fn tagged_code(st: u8, rrq: bool) -> (Layer, u8, u8) {
        let prot = REType::RemoteProtection as u8;
        let tg = DdpEType::TaggedBuffer as u8;
        match (st, rrq) {
            (check_status::INVALID_STAG, false) => (Layer::Ddp, tg, Tg::InvalidStag as u8),
            (check_status::NOT_ASSOCIATED, false) => (Layer::Ddp, tg, Tg::StagNotAssociated as u8),
            (check_status::WRAP, false) => (Layer::Ddp, tg, Tg::ToWrap as u8),
            (check_status::BOUNDS, false) => (Layer::Ddp, tg, Tg::BaseOrBounds as u8),
            (check_status::INVALID_STAG, true) => (Layer::Rdmap, prot, Pr::InvalidStag as u8),
            (check_status::NOT_ASSOCIATED, true) => {
                (Layer::Rdmap, prot, Pr::StagNotAssociated as u8)
            }
            (check_status::WRAP, true) => (Layer::Rdmap, prot, Pr::ToWrap as u8),
            (check_status::BOUNDS, true) => (Layer::Rdmap, prot, Pr::BaseOrBounds as u8),
            (check_status::ACCESS, _) => (Layer::Rdmap, prot, Pr::AccessRights as u8),
            _ => unreachable!("status {st}"),
        }
    }

    /// What RxControl should produce for `segments` in `env`.
    pub fn expect(segments: &[Segment], env: &Env) -> Outcome {
        let mut out = Outcome::new();
        let mut stags = env.stags.clone();
        let mut rqs = env.rqs.clone();
        let mut qps: Vec<Option<Qp>> = vec![None; CONNECTIONS];
        for &(i, cfg) in &env.qps {
            qps[i] = Some(Qp {
                cfg,
                dead: false,
                msn0: 1,
                msn1: 1,
                mo: 0,
                irq: 0,
                orq: env.orq[i] as u32,
            });
        }
        let mut slots = [0u8; CONNECTIONS];
        let oper = REType::RemoteOperation as u8;
        let ut = DdpEType::UntaggedBuffer as u8;
        let sent = AsyncEventKind::TerminateSent as u8;
        for seg in segments {
            let c = seg.conn;
            let slot = slots[c];
            slots[c] ^= 1;
            let h = &seg
                .words()
                .iter()
                .flat_map(|w| w.to_be_bytes())
                .collect::<Vec<u8>>();
            let mut verdict = Verdict {
                conn: c,
                place: false,
                addr: 0,
            };
            let Some(q) = qps[c].as_mut().filter(|q| q.cfg.enable && !q.dead) else {
                out.verdicts.push(verdict);
                continue;
            };
            let t = h[0] & T_FLAG != 0;
            let last = h[0] & L_FLAG != 0;
            let dv = h[0] & 3;
            let rv = h[1] >> 6;
            let op = h[1] & 0x0F;
            let hl: u16 = if t { 14 } else { 18 };
            let l = seg.len;
            let qn = be32(h, 6);
            let msn = be32(h, 10);
            let mo = be32(h, 14);
            // The error of a failed row: Terminate, event, maybe a CQE (and pop).
            let mut err: Option<(Term, Option<Cqe>)> = None;
            let fail = |t: Term| Some((t, None));
            let is = |o: Opcode| op == o as u8;
            let send = (3..=6).contains(&op);
            if l < hl {
                err = fail(term(
                    Layer::Rdmap,
                    oper,
                    Op::Unspecified as u8,
                    0,
                    seg,
                    slot,
                ));
            } else if dv != 1 {
                err = if t {
                    fail(term(
                        Layer::Ddp,
                        DdpEType::TaggedBuffer as u8,
                        Tg::InvalidDdpVersion as u8,
                        0,
                        seg,
                        slot,
                    ))
                } else {
                    fail(term(
                        Layer::Ddp,
                        ut,
                        Ut::InvalidDdpVersion as u8,
                        0,
                        seg,
                        slot,
                    ))
                };
            } else if !t && qn > 2 {
                err = fail(term(Layer::Ddp, ut, Ut::InvalidQn as u8, 2, seg, slot));
            } else if rv != 1 {
                err = fail(term(
                    Layer::Rdmap,
                    oper,
                    Op::InvalidRdmapVersion as u8,
                    0,
                    seg,
                    slot,
                ));
            } else if op >= 8
                || match op {
                    0 | 2 => !t,
                    1 => t || qn != 1,
                    7 => t || qn != 2,
                    _ => t || qn != 0,
                }
            {
                err = fail(term(
                    Layer::Rdmap,
                    oper,
                    Op::UnexpectedOpcode as u8,
                    0,
                    seg,
                    slot,
                ));
            } else if is(Opcode::RdmaReadRequest) && (!last || mo != 0) {
                err = fail(term(Layer::Ddp, ut, Ut::InvalidMo as u8, 2, seg, slot));
            } else if is(Opcode::RdmaReadRequest) && l != 46 {
                err = fail(term(
                    Layer::Rdmap,
                    oper,
                    Op::Unspecified as u8,
                    2,
                    seg,
                    slot,
                ));
            } else if is(Opcode::Terminate) {
                q.dead = true;
                let aev = if l < 22 || !last || mo != 0 {
                    Aev {
                        kind: AsyncEventKind::BadTerminateReceived as u8,
                        layer: 0,
                        etype: 0,
                        code: 0,
                    }
                } else {
                    Aev {
                        kind: AsyncEventKind::TerminateReceived as u8,
                        layer: h[18] >> 4,
                        etype: h[18] & 0xF,
                        code: h[19],
                    }
                };
                out.aevs[c].push(aev);
            } else if is(Opcode::RdmaWrite) {
                let p = u32::from(l - hl);
                if p > 0 {
                    let c_ = Check {
                        stag: be32(h, 2),
                        to: cu_to(be64(h, 6)),
                        len: p,
                        pd: q.cfg.pd,
                        qp: c,
                        access: access::REMOTE_WRITE,
                        invalidate: false,
                    };
                    out.checks.push(c_);
                    let (st, a) = stags.check(c_.stag, c_.to, p, q.cfg.pd, c, c_.access, false);
                    if st == check_status::OK {
                        verdict.place = true;
                        verdict.addr = a;
                    } else {
                        let (ly, et, cd) = tagged_code(st, false);
                        err = fail(term(ly, et, cd, 2, seg, slot));
                    }
                }
            } else if is(Opcode::RdmaReadResponse) {
                if q.orq == 0 {
                    err = fail(term(
                        Layer::Rdmap,
                        oper,
                        Op::UnexpectedOpcode as u8,
                        0,
                        seg,
                        slot,
                    ));
                } else {
                    if last {
                        q.orq -= 1;
                    }
                    let p = u32::from(l - hl);
                    let mut ok = true;
                    if p > 0 {
                        let c_ = Check {
                            stag: be32(h, 2),
                            to: cu_to(be64(h, 6)),
                            len: p,
                            pd: q.cfg.pd,
                            qp: c,
                            access: access::LOCAL_WRITE,
                            invalidate: false,
                        };
                        out.checks.push(c_);
                        let (st, a) = stags.check(c_.stag, c_.to, p, q.cfg.pd, c, c_.access, false);
                        if st == check_status::OK {
                            verdict.place = true;
                            verdict.addr = a;
                        } else {
                            ok = false;
                            let (ly, et, cd) = tagged_code(st, false);
                            err = Some((
                                term(ly, et, cd, 2, seg, slot),
                                Some(Cqe {
                                    opcode: WcOpcode::RdmaRead as u8,
                                    status: WcStatus::LocProtErr as u8,
                                    byte_len: 0,
                                    index: 0,
                                    inv_stag: 0,
                                    with_inv: false,
                                    solicited: false,
                                }),
                            ));
                        }
                    }
                    if ok && last {
                        out.cqes[c].push(Cqe {
                            opcode: WcOpcode::RdmaRead as u8,
                            status: WcStatus::Success as u8,
                            byte_len: 0,
                            index: 0,
                            inv_stag: 0,
                            with_inv: false,
                            solicited: false,
                        });
                    }
                }
            } else if send {
                let p = u32::from(l - hl);
                let inv = is(Opcode::SendInvalidate) || is(Opcode::SendSeInvalidate);
                let sol = is(Opcode::SendSe) || is(Opcode::SendSeInvalidate);
                let recv_err = |status: WcStatus, w: &Wqe| Cqe {
                    opcode: WcOpcode::Recv as u8,
                    status: status as u8,
                    byte_len: 0,
                    index: w.index,
                    inv_stag: 0,
                    with_inv: false,
                    solicited: false,
                };
                if msn != q.msn0 {
                    err = fail(term(Layer::Ddp, ut, Ut::MsnRange as u8, 2, seg, slot));
                } else if mo != q.mo {
                    err = fail(term(Layer::Ddp, ut, Ut::InvalidMo as u8, 2, seg, slot));
                } else if let Some(w) = rqs[c].front().copied() {
                    let sum = u64::from(mo) + u64::from(p);
                    if sum > u64::from(w.len) {
                        err = Some((
                            term(Layer::Ddp, ut, Ut::MessageTooLong as u8, 2, seg, slot),
                            Some(recv_err(WcStatus::LocLenErr, &w)),
                        ));
                    } else {
                        let mut ok = true;
                        if p > 0 {
                            let c_ = Check {
                                stag: w.lkey,
                                to: cu_to(w.to.wrapping_add(u64::from(mo))),
                                len: p,
                                pd: q.cfg.pd,
                                qp: c,
                                access: access::LOCAL_WRITE,
                                invalidate: false,
                            };
                            out.checks.push(c_);
                            let (st, a) =
                                stags.check(c_.stag, c_.to, p, q.cfg.pd, c, c_.access, false);
                            if st == check_status::OK {
                                verdict.place = true;
                                verdict.addr = a;
                            } else {
                                ok = false;
                                err = Some((
                                    term(
                                        Layer::Ddp,
                                        DdpEType::LocalCatastrophic as u8,
                                        LOCAL_CATASTROPHIC_CODE,
                                        0,
                                        seg,
                                        slot,
                                    ),
                                    Some(recv_err(WcStatus::LocProtErr, &w)),
                                ));
                            }
                        }
                        if ok && inv && last {
                            let stag = be32(h, 2);
                            let c_ = Check {
                                stag,
                                to: 0,
                                len: 0,
                                pd: q.cfg.pd,
                                qp: c,
                                access: 0,
                                invalidate: true,
                            };
                            out.checks.push(c_);
                            let (st, _) = stags.check(stag, 0, 0, q.cfg.pd, c, 0, true);
                            if st != check_status::OK {
                                ok = false;
                                verdict.place = false;
                                verdict.addr = 0;
                                let code = if st == check_status::INVALID_STAG {
                                    (oper, Op::StagCannotBeInvalidated as u8)
                                } else {
                                    (
                                        REType::RemoteProtection as u8,
                                        Pr::StagCannotBeInvalidated as u8,
                                    )
                                };
                                err = Some((
                                    term(Layer::Rdmap, code.0, code.1, 2, seg, slot),
                                    Some(recv_err(WcStatus::GeneralErr, &w)),
                                ));
                            }
                        }
                        if ok {
                            q.mo = if last { 0 } else { sum as u32 };
                            if last {
                                q.msn0 = q.msn0.wrapping_add(1);
                                rqs[c].pop_front();
                                out.pops[c] += 1;
                                out.cqes[c].push(Cqe {
                                    opcode: WcOpcode::Recv as u8,
                                    status: WcStatus::Success as u8,
                                    byte_len: sum as u32,
                                    index: w.index,
                                    inv_stag: if inv { be32(h, 2) } else { 0 },
                                    with_inv: inv,
                                    solicited: sol,
                                });
                            }
                        }
                    }
                } else {
                    err = fail(term(Layer::Ddp, ut, Ut::MsnNoBuffer as u8, 2, seg, slot));
                }
            } else {
                // Read Request.
                if msn != q.msn1 {
                    err = fail(term(Layer::Ddp, ut, Ut::MsnRange as u8, 2, seg, slot));
                } else if q.irq == u32::from(q.cfg.ird) {
                    err = fail(term(
                        Layer::Rdmap,
                        oper,
                        Op::CatastrophicStream as u8,
                        2,
                        seg,
                        slot,
                    ));
                } else {
                    q.msn1 = q.msn1.wrapping_add(1);
                    q.irq += 1;
                    let size = be32(h, 30);
                    let mut irq = Irq {
                        sink_stag: be32(h, 18),
                        sink_to: be64(h, 22),
                        size,
                        src_addr: 0,
                    };
                    let mut ok = true;
                    if size != 0 {
                        let c_ = Check {
                            stag: be32(h, 34),
                            to: cu_to(be64(h, 38)),
                            len: cu_len(size),
                            pd: q.cfg.pd,
                            qp: c,
                            access: access::REMOTE_READ,
                            invalidate: false,
                        };
                        out.checks.push(c_);
                        let (st, a) =
                            stags.check(c_.stag, c_.to, size, q.cfg.pd, c, c_.access, false);
                        if st == check_status::OK {
                            irq.src_addr = a;
                        } else {
                            ok = false;
                            let (ly, et, cd) = tagged_code(st, true);
                            err = fail(term(ly, et, cd, 3, seg, slot));
                        }
                    }
                    if ok {
                        out.irqs[c].push(irq);
                    }
                }
            }
            if let Some((t, cqe)) = err {
                q.dead = true;
                verdict.place = false;
                verdict.addr = 0;
                if let Some(cqe) = cqe {
                    if cqe.opcode == WcOpcode::Recv as u8 {
                        rqs[c].pop_front();
                        out.pops[c] += 1;
                    }
                    out.cqes[c].push(cqe);
                }
                out.aevs[c].push(Aev {
                    kind: sent,
                    layer: t.layer,
                    etype: t.etype,
                    code: t.code,
                });
                out.terms[c].push(t);
            }
            out.verdicts.push(verdict);
        }
        out
    }
}
