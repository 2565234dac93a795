//! Testbench of the SendEngine (`hdl/src/rdmap/send_engine.rs`, `docs/core.md` "SendEngine"):
//! host memory holding the SQ rings behind a [`DmaPort`] (random latency, pieces overtaking,
//! request back-pressure), a fake StagCheck answering `lchk_*` [`STAG_CHECK_LATENCY`] cycles
//! later from a table of registered keys, a fake TX side taking `msg_*` with random delay and
//! strobing `msg_done`, a fake receive side strobing `rdc_*` for outstanding Reads, random
//! `scqe_ready`.
//!
//! The reference model ([`expected`]) is written from `docs/core.md`, not from the hardware:
//! per QP, the messages the WQEs must produce (all fields, MSNs counted per queue number) and
//! the CQEs (only signaled successes and every error, in submission order). Timing-dependent
//! facts come from observation: which Reads got an `rdc` (else they are flushed) and, after a
//! `qp_err`, how many WQEs were still sent (the sent ones must be a prefix of the expected
//! messages). The bench checks on the fly: never more than min(ORD, 4) Reads outstanding, no
//! FENCE or non-Read message while a Read is outstanding, `orq_push` with every Read Request.

use crate::dma_port::{DmaConfig, DmaPort};
use crate::host_mem::{in_window, HostMemory};
use crate::testbench::Backend;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_hdl::config::QPS;
use rnic_hdl::ddp::check_status;
use rnic_proto::host::{wqe_flags, SqWqe, WqeOpcode};
use rnic_proto::verbs::{access, WcOpcode, WcStatus};
use std::collections::{BTreeMap, VecDeque};

/// StagCheck latency of RxPath's `lchk_*` port.
pub const STAG_CHECK_LATENCY: u64 = 5;
/// Outstanding Reads the hardware keeps per QP.
pub const ORQ_CAP: u32 = 4;

/// A registered local key of the fake StagCheck.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    pub pd: u8,
    pub access: u8,
    pub to: u64,
    pub len: u64,
    pub host: u32,
}

/// The fake StagCheck's answer: (status, host address).
pub fn check(
    keys: &BTreeMap<u32, Key>,
    stag: u32,
    to: u64,
    len: u32,
    pd: u8,
    acc: u8,
) -> (u8, u32) {
    let Some(k) = keys.get(&stag) else {
        return (check_status::INVALID_STAG, 0);
    };
    if k.pd != pd {
        return (check_status::NOT_ASSOCIATED, 0);
    }
    if k.access & acc != acc {
        return (check_status::ACCESS, 0);
    }
    let Some(end) = to.checked_add(u64::from(len)) else {
        return (check_status::WRAP, 0);
    };
    if to < k.to || end > k.to + k.len {
        return (check_status::BOUNDS, 0);
    }
    (check_status::OK, k.host.wrapping_add((to - k.to) as u32))
}

/// A WQE as posted: the descriptor (`op` may be an unknown opcode value).
#[derive(Clone, Copy, Debug)]
pub struct Wqe {
    pub op: u8,
    pub w: SqWqe,
}

impl Wqe {
    fn bytes(&self) -> [u8; 32] {
        let mut b = self.w.emit();
        b[0] = self.op;
        b
    }
}

/// A message job as seen on `msg_*` (fields an opcode does not use are zeroed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Msg {
    pub conn: u8,
    pub opcode: u8,
    pub stag: u32,
    pub to: u64,
    pub inv_stag: u32,
    pub src_to: u64,
    pub msn: u32,
    pub addr: u32,
    pub len: u32,
}

impl Msg {
    /// Keeps only the fields `docs/core.md` defines for the opcode.
    pub fn masked(mut self) -> Self {
        if self.opcode != 1 {
            self.inv_stag = 0;
            self.src_to = 0;
        }
        if self.opcode >= 3 {
            if !(self.opcode == 4 || self.opcode == 6) {
                self.stag = 0;
            }
            self.to = 0;
        }
        if self.opcode == 0 {
            self.msn = 0;
        }
        if self.len == 0 || self.opcode == 1 {
            self.addr = 0;
        }
        self
    }
}

/// A send-side CQE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cqe {
    pub qp: u8,
    pub opcode: u8,
    pub status: u8,
    pub byte_len: u32,
    pub index: u16,
}

/// One QP's setup.
#[derive(Clone, Debug)]
pub struct QpSetup {
    pub pd: u8,
    pub ord: u8,
    pub base: u32,
    pub log2: u8,
    pub wqes: Vec<Wqe>,
    /// Strobe `qp_err` once this many WQEs were posted (and some cycles passed).
    pub qp_err_after: Option<usize>,
}

/// What the model needs from observation.
#[derive(Clone, Debug, Default)]
pub struct Observed {
    /// Status of the `rdc` that completed each Read (by WQE index in the QP's list).
    pub rdc: BTreeMap<usize, u8>,
    pub qp_err: bool,
    /// WQEs sent (count of messages of the QP).
    pub sent: usize,
}

/// Reference model: the messages and CQEs of one QP.
pub fn expected(
    qp: u8,
    s: &QpSetup,
    keys: &BTreeMap<u32, Key>,
    obs: &Observed,
) -> (Vec<Msg>, Vec<Cqe>) {
    let mut msgs = Vec::new();
    let mut cqes = Vec::new();
    let (mut msn0, mut msn1) = (1u32, 1u32);
    let mut err = false;
    let cqe = |op: WcOpcode, st: WcStatus, len: u32, i: usize| Cqe {
        qp,
        opcode: op as u8,
        status: st as u8,
        byte_len: len,
        index: i as u16,
    };
    for (i, q) in s.wqes.iter().enumerate() {
        let w = &q.w;
        let signaled = w.flags & wqe_flags::SIGNALED != 0;
        let sent_ok = i < obs.sent || !obs.qp_err;
        if err || !sent_ok {
            cqes.push(cqe(WcOpcode::Send, WcStatus::WrFlushErr, 0, i));
            continue;
        }
        let Some(op) = WqeOpcode::from_u8(q.op) else {
            cqes.push(cqe(WcOpcode::Send, WcStatus::LocQpOpErr, 0, i));
            err = true;
            continue;
        };
        let wc = match op {
            WqeOpcode::RdmaWrite => WcOpcode::RdmaWrite,
            WqeOpcode::RdmaRead => WcOpcode::RdmaRead,
            _ => WcOpcode::Send,
        };
        let is_read = op == WqeOpcode::RdmaRead;
        let acc = if is_read {
            access::LOCAL_WRITE
        } else {
            access::LOCAL_READ
        };
        let (st, host) = if w.length > 0 {
            check(keys, w.lkey, w.addr, w.length, s.pd, acc)
        } else {
            (0, 0)
        };
        if st != check_status::OK {
            cqes.push(cqe(wc, WcStatus::LocProtErr, 0, i));
            err = true;
            continue;
        }
        let m = Msg {
            conn: qp,
            opcode: op.rdmap_opcode(),
            // `docs/core.md` "The message job": the remote STag / TO on `stag` / `to` (a
            // Read Request's Data Source, a Send's Invalidate STag), a Read Request's Data
            // Sink on `inv_stag` / `src_to`.
            stag: w.rkey,
            to: w.remote_addr,
            inv_stag: w.lkey,
            // The sink TO's low half (upper half 0: a checked local TO is below 2^32).
            src_to: w.addr & u64::from(u32::MAX),
            msn: if is_read { msn1 } else { msn0 },
            addr: host,
            len: w.length,
        };
        msgs.push(m.masked());
        match op {
            WqeOpcode::RdmaRead => {
                msn1 += 1;
                match obs.rdc.get(&i) {
                    Some(&0) if signaled => cqes.push(cqe(wc, WcStatus::Success, w.length, i)),
                    Some(&0) => {}
                    Some(&st) => cqes.push(Cqe {
                        status: st,
                        ..cqe(wc, WcStatus::Success, 0, i)
                    }),
                    None => cqes.push(cqe(wc, WcStatus::WrFlushErr, 0, i)),
                }
            }
            WqeOpcode::RdmaWrite => {
                if signaled {
                    cqes.push(cqe(wc, WcStatus::Success, w.length, i));
                }
            }
            _ => {
                msn0 += 1;
                if signaled {
                    cqes.push(cqe(wc, WcStatus::Success, w.length, i));
                }
            }
        }
    }
    (msgs, cqes)
}

/// Knobs of one run.
#[derive(Clone, Copy, Debug)]
pub struct RunCfg {
    pub seed: u64,
    pub wqes_per_qp: usize,
    /// Inject bad lkeys, unknown opcodes and `qp_err`.
    pub errors: bool,
    /// Random back-pressure and delays everywhere (else fast and regular).
    pub random: bool,
    pub max_cycles: u64,
}

fn rand_wqe(rng: &mut StdRng, keys: &[(u32, Key)], pd_keys: &[usize], fence_p: f64) -> Wqe {
    let op = [0u8, 1, 1, 2, 3, 4, 5, 0, 1][rng.gen_range(0..9)];
    let (lkey, k) = keys[pd_keys[rng.gen_range(0..pd_keys.len())]];
    let length = if rng.gen_bool(0.15) {
        0
    } else {
        rng.gen_range(1..=k.len as u32)
    };
    let addr = k.to + rng.gen_range(0..=k.len - u64::from(length));
    let mut flags = 0;
    if rng.gen_bool(0.7) {
        flags |= wqe_flags::SIGNALED;
    }
    if rng.gen_bool(fence_p) {
        flags |= wqe_flags::FENCE;
    }
    Wqe {
        op,
        w: SqWqe {
            opcode: WqeOpcode::from_u8(op).unwrap(),
            flags,
            length,
            lkey,
            rkey: rng.gen(),
            addr,
            remote_addr: rng.gen(),
        },
    }
}

/// Runs the bench; panics on any mismatch.
pub fn run(sim: &mut dyn Backend, cfg: RunCfg) {
    let mut rng = StdRng::seed_from_u64(cfg.seed);
    let i = |s: &dyn Backend, n: &str| s.input(n).unwrap();
    let o = |s: &dyn Backend, n: &str| s.output(n).unwrap();
    let seed = cfg.seed;

    // Keys: two PDs; each key grants LOCAL_READ and / or LOCAL_WRITE.
    let mut keys = BTreeMap::new();
    let mut klist = Vec::new();
    for n in 0..8u32 {
        let pd = (n % 2) as u8 + 1;
        let acc = if n % 4 < 2 {
            access::LOCAL_READ | access::LOCAL_WRITE
        } else if n % 4 == 2 {
            access::LOCAL_READ
        } else {
            access::LOCAL_WRITE
        };
        let k = Key {
            pd,
            access: acc,
            // Regions end below 2^32 (the driver refuses others; the engine keeps only whether
            // a local TO's upper half is 0).
            to: 0x1000_0000 * u64::from(n) + 0x1000,
            len: 0x4000,
            host: in_window(0x4000_0000) + n * 0x10_0000,
        };
        let stag = (n + 1) << 8 | 0x42;
        keys.insert(stag, k);
        klist.push((stag, k));
    }
    let mut mem = HostMemory::new();
    let mut setups = Vec::new();
    for q in 0..QPS as u8 {
        let pd = q % 2 + 1;
        // Keys of the QP's PD with both local rights (good for every opcode).
        let good: Vec<usize> = (0..klist.len())
            .filter(|&n| {
                klist[n].1.pd == pd && klist[n].1.access == access::LOCAL_READ | access::LOCAL_WRITE
            })
            .collect();
        let log2 = rng.gen_range(1..=3u8);
        let base = in_window(0x1000_0000) + u32::from(q) * 0x1000;
        mem.allow_device(base, 32 << log2, true, false);
        let mut wqes: Vec<Wqe> = (0..cfg.wqes_per_qp)
            .map(|_| rand_wqe(&mut rng, &klist, &good, 0.3))
            .collect();
        let mut qp_err_after = None;
        if cfg.errors {
            let at = rng.gen_range(cfg.wqes_per_qp / 3..cfg.wqes_per_qp);
            match (q + seed as u8) % 4 {
                0 => {
                    // A bad lkey: unknown, other PD, missing right, out of bounds, or a TO
                    // whose low half is in bounds and whose upper half is not 0.
                    let w = &mut wqes[at].w;
                    w.length = w.length.max(1);
                    match rng.gen_range(0..5) {
                        0 => w.lkey ^= 0x0100_0000,
                        1 => w.lkey = klist[(pd as usize) % 2].0,
                        2 => {
                            let n = if w.opcode == WqeOpcode::RdmaRead {
                                2
                            } else {
                                3
                            };
                            let n = (0..klist.len()).find(|&x| x % 4 == n).unwrap();
                            w.lkey = klist[n].0;
                            w.addr = klist[n].1.to;
                        }
                        3 => w.addr = keys[&w.lkey].to + keys[&w.lkey].len,
                        _ => w.addr += rng.gen_range(1..=u64::from(u32::MAX)) << 32,
                    }
                }
                1 => wqes[at].op = 6 + rng.gen_range(0..50),
                2 => qp_err_after = Some(at),
                _ => {}
            }
        }
        setups.push(QpSetup {
            pd,
            ord: [1, 1, 2, 3, 6][rng.gen_range(0..5)],
            base,
            log2,
            wqes,
            qp_err_after,
        });
    }

    let dcfg = if cfg.random {
        DmaConfig::random(&mut rng)
    } else {
        let mut d = DmaConfig::default();
        d.read.latency = 4;
        d.read.jitter = 0;
        d
    };
    let mut dma = DmaPort::new(dcfg, seed ^ 0xd4a);
    let p = |x: f64| if cfg.random { x } else { 1.0 };

    // Idle inputs and the QP context commits.
    for n in [
        "sq_db_valid",
        "qp_err_valid",
        "sq_rd_cpl_valid",
        "lrsp_valid",
        "msg_done",
        "rdc_valid",
    ] {
        sim.set(i(sim, n), 0);
    }
    sim.tick();
    for (q, s) in setups.iter().enumerate() {
        sim.set(i(sim, "qpc_write"), 1);
        sim.set(i(sim, "qpc_qp"), q as u128);
        sim.set(i(sim, "qpc_enable"), 1);
        sim.set(i(sim, "qpc_pd"), u128::from(s.pd));
        sim.set(i(sim, "qpc_ord"), u128::from(s.ord));
        sim.set(i(sim, "qpc_sq_base"), u128::from(s.base));
        sim.set(i(sim, "qpc_sq_log2"), u128::from(s.log2));
        sim.tick();
    }
    sim.set(i(sim, "qpc_write"), 0);

    let mut posted = [0usize; QPS];
    let mut retired = [0usize; QPS];
    let mut msgs: [Vec<Msg>; QPS] = Default::default();
    let mut msg_wqe: [Vec<usize>; QPS] = Default::default();
    let mut cqes: [Vec<Cqe>; QPS] = Default::default();
    let mut obs: [Observed; QPS] = Default::default();
    // Outstanding Reads (WQE index), as the bench sees them.
    let mut outst: [VecDeque<usize>; QPS] = Default::default();
    let mut rdc_stop = [false; QPS];
    let mut rdc_cur: Option<(usize, u8, u64)> = None;
    let mut rdc_due: [Option<u64>; QPS] = [None; QPS];
    let mut lrsp: VecDeque<(u64, u8, u32, usize)> = VecDeque::new();
    let mut done_due: Option<u64> = None;
    // The fake TxArbiter / DdpTx: a job is picked (`msg_pick`) the cycle before it is shown;
    // in its first cycle shown (`msg_first`, T) the TO's low half is read, the STag at T+1,
    // the TO's high half at T+2 (`docs/core.md` "The message job"): `cap`, patched into the
    // message handed over (`patch`: QP, index), which may be handed over from T on.
    let mut shown = false;
    let mut t_first: Option<u64> = None;
    let mut cap: [Option<u32>; 3] = [None; 3];
    let mut patch: Option<(usize, usize)> = None;
    let mut msg_wait: u64 = 0;
    let mut orq_pushes = 0usize;
    let mut ord_hits = 0usize;
    let mut fence_held = 0usize;
    let mut fenced_read_after_read = 0usize;
    let mut hints_seen = 0usize;
    let mut idle_run = 0u64;
    let mut first_qps = Vec::new();
    let fast = !cfg.random;

    let now0 = sim.cycles();
    loop {
        let now = sim.cycles();
        assert!(
            now - now0 < cfg.max_cycles,
            "seed {seed}: timeout: posted {posted:?} retired {retired:?} cqes {:?}",
            cqes.iter().map(|c| c.len()).collect::<Vec<_>>()
        );
        // Doorbells: post up to the free ring room, one QP per cycle.
        sim.set(i(sim, "sq_db_valid"), 0);
        let q = rng.gen_range(0..QPS);
        let s = &setups[q];
        let size = 1usize << s.log2;
        if posted[q] < s.wqes.len() && posted[q] - retired[q] < size && rng.gen_bool(p(0.3)) {
            let room = size - (posted[q] - retired[q]);
            let n = rng.gen_range(1..=room).min(s.wqes.len() - posted[q]);
            for k in posted[q]..posted[q] + n {
                mem.write(s.base + ((k % size) as u32) * 32, &s.wqes[k].bytes());
            }
            posted[q] += n;
            sim.set(i(sim, "sq_db_valid"), 1);
            sim.set(i(sim, "sq_db_qp"), q as u128);
            sim.set(i(sim, "sq_db_pi"), (posted[q] & 0xFFFF) as u128);
        }
        // qp_err.
        sim.set(i(sim, "qp_err_valid"), 0);
        for (q, s) in setups.iter().enumerate() {
            if let Some(a) = s.qp_err_after {
                if !obs[q].qp_err && posted[q] > a && rng.gen_bool(0.05) {
                    obs[q].qp_err = true;
                    rdc_stop[q] = true;
                    sim.set(i(sim, "qp_err_valid"), 1);
                    sim.set(i(sim, "qp_err_qp"), q as u128);
                    break;
                }
            }
        }
        // DMA.
        let rq_ready = dma.rd_req_ready(now);
        sim.set(i(sim, "sq_rd_req_ready"), u128::from(rq_ready));
        if rq_ready && sim.get(o(sim, "sq_rd_req_valid")) == 1 {
            let addr = sim.get(o(sim, "sq_rd_req_addr")) as u32;
            let len = sim.get(o(sim, "sq_rd_req_len")) as usize;
            let tag = sim.get(o(sim, "sq_rd_req_tag")) as u8;
            assert_eq!(len, 32, "seed {seed}");
            assert_eq!(addr % 32, 0, "seed {seed}: WQE fetch address");
            dma.rd_request(now, addr, len, tag);
        }
        match dma.rd_beat(now, &mut mem) {
            Some(b) => {
                sim.set(i(sim, "sq_rd_cpl_valid"), 1);
                sim.set(i(sim, "sq_rd_cpl_tag"), u128::from(b.tag));
                sim.set(i(sim, "sq_rd_cpl_data"), u128::from(b.data));
                sim.set(i(sim, "sq_rd_cpl_keep"), u128::from(b.keep));
                sim.set(i(sim, "sq_rd_cpl_last"), u128::from(b.last));
            }
            None => sim.set(i(sim, "sq_rd_cpl_valid"), 0),
        }
        // Fake StagCheck.
        match lrsp.front() {
            Some(&(due, st, host, _)) if due == now => {
                lrsp.pop_front();
                sim.set(i(sim, "lrsp_valid"), 1);
                sim.set(i(sim, "lrsp_status"), u128::from(st));
                sim.set(i(sim, "lrsp_host_addr"), u128::from(host));
            }
            _ => sim.set(i(sim, "lrsp_valid"), 0),
        }
        let lready = rng.gen_bool(p(0.7));
        sim.set(i(sim, "lchk_ready"), u128::from(lready));
        if lready && sim.get(o(sim, "lchk_valid")) == 1 {
            let stag = sim.get(o(sim, "lchk_stag")) as u32;
            let to = sim.get(o(sim, "lchk_to")) as u64;
            let len = sim.get(o(sim, "lchk_len")) as u32;
            let pd = sim.get(o(sim, "lchk_pd")) as u8;
            let qp = sim.get(o(sim, "lchk_qp")) as usize;
            let acc = sim.get(o(sim, "lchk_access")) as u8;
            assert_eq!(pd, setups[qp].pd, "seed {seed}: lchk_pd");
            let (st, host) = check(&keys, stag, to, len, pd, acc);
            if st != check_status::OK {
                rdc_stop[qp] = true;
            }
            lrsp.push_back((now + STAG_CHECK_LATENCY, st, host, qp));
        }
        // Fake TX.
        sim.set(i(sim, "msg_done"), 0);
        if done_due == Some(now) {
            sim.set(i(sim, "msg_done"), 1);
            done_due = None;
        }
        let se_valid = sim.get(o(sim, "msg_valid")) == 1;
        let first = shown && t_first.is_none();
        if first {
            t_first = Some(now);
            cap = [None; 3];
        }
        sim.set(i(sim, "msg_first"), u128::from(first));
        let mready = shown && done_due.is_none() && msg_wait <= now && rng.gen_bool(p(0.5));
        sim.set(i(sim, "msg_ready"), u128::from(mready));
        // Picked: shown from the next cycle on (not in the cycle of a hand-over).
        let pick = !shown && se_valid && rng.gen_bool(p(0.7));
        sim.set(i(sim, "msg_pick"), u128::from(pick));
        if let Some(t) = t_first {
            let k = now - t;
            if k < 3 {
                let w = sim.get(o(sim, "msg_stag")) as u32;
                let to = sim.get(o(sim, "msg_to")) as u64;
                assert_eq!((to >> 32) as u32, w, "seed {seed}: msg_to halves differ");
                assert_eq!(to as u32, w, "seed {seed}: msg_to / msg_stag differ");
                cap[k as usize] = Some(w);
            }
        }
        // The fake takes a message at its hand-over (`msg_take` with `msg_ready`).
        let take = mready && sim.get(o(sim, "msg_valid")) == 1;
        sim.set(i(sim, "msg_take"), u128::from(take));
        let push = sim.get(o(sim, "orq_push")) == 1;
        // The read-ahead hint: while it is up, the next message handed over is the hinted one;
        // its region starts at `msg_addr` (no `nxt_addr` port).
        let hint = (sim.get(o(sim, "nxt_valid")) == 1).then(|| {
            (
                sim.get(o(sim, "msg_addr")) as u32,
                sim.get(o(sim, "nxt_len")) as u32,
            )
        });
        if hint.is_some() {
            hints_seen += 1;
        }
        if mready && se_valid {
            let m = Msg {
                conn: sim.get(o(sim, "msg_conn")) as u8,
                opcode: sim.get(o(sim, "msg_opcode")) as u8,
                stag: sim.get(o(sim, "msg_stag")) as u32,
                to: sim.get(o(sim, "msg_to")) as u64,
                inv_stag: sim.get(o(sim, "msg_inv_stag")) as u32,
                src_to: sim.get(o(sim, "msg_src_to")) as u64,
                msn: sim.get(o(sim, "msg_msn")) as u32,
                addr: sim.get(o(sim, "msg_addr")) as u32,
                len: sim.get(o(sim, "msg_len")) as u32,
            }
            .masked();
            if let Some((a, l)) = hint {
                assert!(
                    m.opcode != 1 && m.len == l && m.addr == a,
                    "seed {seed}: message {m:x?} handed over while the hint was {a:#x}+{l}"
                );
            }
            let q = m.conn as usize;
            let wi = retired[q].max(msg_wqe[q].last().map_or(0, |&x| x + 1));
            // The WQE is the next one of the QP not yet sent or completed.
            let wi = (wi..posted[q])
                .next()
                .expect("message beyond the producer index");
            let wqe = setups[q].wqes[wi];
            if first_qps.len() < 8 {
                first_qps.push(q);
            }
            let fence = wqe.w.flags & wqe_flags::FENCE != 0;
            if m.opcode == 1
                && fence
                && msg_wqe[q]
                    .last()
                    .is_some_and(|&l| setups[q].wqes[l].op == 1 && l + 1 == wi)
            {
                fenced_read_after_read += 1;
            }
            if m.opcode != 1 || fence {
                assert!(
                    outst[q].is_empty(),
                    "seed {seed}: QP {q} WQE {wi} (op {}) sent with a Read outstanding",
                    m.opcode
                );
                if fence {
                    fence_held += 1;
                }
            }
            if m.opcode == 1 {
                assert!(push, "seed {seed}: orq_push with the Read Request");
                assert_eq!(sim.get(o(sim, "orq_push_qp")) as usize, q, "seed {seed}");
                outst[q].push_back(wi);
                let cap = u32::from(setups[q].ord).min(ORQ_CAP) as usize;
                assert!(
                    outst[q].len() <= cap,
                    "seed {seed}: QP {q}: more than ORD Reads outstanding"
                );
                if outst[q].len() == cap {
                    ord_hits += 1;
                }
                if rdc_due[q].is_none() {
                    rdc_due[q] = Some(now + if fast { 3 } else { rng.gen_range(2..300) });
                }
                orq_pushes += 1;
            } else {
                assert!(!push, "seed {seed}: orq_push without a Read Request");
            }
            done_due = Some(
                now + if fast {
                    2
                } else if rng.gen_bool(0.3) {
                    // Long enough for the prefetch and the early check.
                    rng.gen_range(60..200)
                } else {
                    rng.gen_range(1..30)
                },
            );
            msg_wait = now + if fast { 0 } else { rng.gen_range(0..4) };
            if std::env::var("SE_DEBUG").is_ok_and(|v| v == seed.to_string()) && q == 0 {
                eprintln!(
                    "{now} msg q{q} wqe {wi} op {} sig {} outst {:?} ord {}",
                    m.opcode, wqe.w.flags, outst[q], setups[q].ord
                );
            }
            patch = Some((q, msgs[q].len()));
            msgs[q].push(m);
            msg_wqe[q].push(wi);
            shown = false;
            if done_due.is_some_and(|d| d < t_first.unwrap() + 3) {
                done_due = Some(t_first.unwrap() + 3);
            }
            retired[q] = retired[q].max(wi + 1);
        } else {
            assert!(!push, "seed {seed}: orq_push without a hand-over");
        }
        // Fake receive side: rdc for the oldest outstanding Read.
        if rdc_cur.is_none() {
            for q in 0..QPS {
                if let Some(d) = rdc_due[q] {
                    if d <= now && !rdc_stop[q] && !outst[q].is_empty() {
                        let st = if cfg.errors && rng.gen_bool(0.1) {
                            WcStatus::RemAccessErr as u8
                        } else {
                            0
                        };
                        rdc_cur = Some((q, st, now));
                        rdc_due[q] = None;
                        break;
                    }
                }
            }
        }
        match rdc_cur {
            Some((q, st, _)) => {
                sim.set(i(sim, "rdc_valid"), 1);
                sim.set(i(sim, "rdc_qp"), q as u128);
                sim.set(i(sim, "rdc_status"), u128::from(st));
                if sim.get(o(sim, "rdc_ready")) == 1 {
                    let wi = outst[q].pop_front().expect("rdc without outstanding Read");
                    obs[q].rdc.insert(wi, st);
                    if std::env::var("SE_DEBUG").is_ok_and(|v| v == seed.to_string()) && q == 0 {
                        eprintln!("{now} rdc q{q} wqe {wi} st {st}");
                    }
                    rdc_cur = None;
                    if !outst[q].is_empty() {
                        rdc_due[q] = Some(now + if fast { 3 } else { rng.gen_range(2..300) });
                    }
                }
            }
            None => sim.set(i(sim, "rdc_valid"), 0),
        }
        // CQEs.
        let cready = rng.gen_bool(p(0.6));
        sim.set(i(sim, "scqe_ready"), u128::from(cready));
        if cready && sim.get(o(sim, "scqe_valid")) == 1 {
            let c = Cqe {
                qp: sim.get(o(sim, "scqe_qp")) as u8,
                opcode: sim.get(o(sim, "scqe_opcode")) as u8,
                status: sim.get(o(sim, "scqe_status")) as u8,
                byte_len: sim.get(o(sim, "scqe_byte_len")) as u32,
                index: sim.get(o(sim, "scqe_index")) as u16,
            };
            let q = c.qp as usize;
            // Map the 16-bit index back to the WQE number.
            let wi = c.index as usize;
            if c.opcode == WcOpcode::RdmaRead as u8 && c.status == WcStatus::WrFlushErr as u8 {
                assert_eq!(outst[q].pop_front(), Some(wi), "seed {seed}: flushed Read");
            }
            retired[q] = retired[q].max(wi + 1);
            if std::env::var("SE_DEBUG").is_ok_and(|v| v == seed.to_string()) && q == 0 {
                eprintln!("{now} cqe {c:?}");
            }
            cqes[q].push(c);
        }
        if let (Some((q, k)), [Some(lo), Some(stag), Some(hi)]) = (patch, cap) {
            let m = &mut msgs[q][k];
            m.stag = stag;
            m.to = (u64::from(hi) << 32) | u64::from(lo);
            *m = m.masked();
            patch = None;
            t_first = None;
        }
        if pick {
            shown = true;
        }
        let idle = sim.get(o(sim, "idle")) == 1;
        sim.tick();
        let all_done = (0..QPS).all(|q| {
            posted[q] == setups[q].wqes.len() && retired[q] == posted[q] && outst[q].is_empty()
        }) && done_due.is_none()
            && rdc_cur.is_none();
        if all_done && idle {
            idle_run += 1;
            if idle_run > 20 {
                break;
            }
        } else {
            idle_run = 0;
        }
    }

    for q in 0..QPS {
        obs[q].sent = msgs[q].len();
        let (em, ec) = expected(q as u8, &setups[q], &keys, &obs[q]);
        if obs[q].qp_err {
            assert!(msgs[q].len() <= em.len(), "seed {seed}: QP {q} messages");
            assert_eq!(
                msgs[q][..],
                em[..msgs[q].len()],
                "seed {seed}: QP {q} messages"
            );
        } else {
            assert_eq!(msgs[q], em, "seed {seed}: QP {q} messages");
        }
        assert_eq!(cqes[q], ec, "seed {seed}: QP {q} CQEs");
    }
    let reads: usize = msgs.iter().flatten().filter(|m| m.opcode == 1).count();
    assert_eq!(orq_pushes, reads, "seed {seed}: orq_push count");
    assert!(reads > 0, "seed {seed}: no Read");
    let distinct = {
        let mut d = first_qps.clone();
        d.sort();
        d.dedup();
        d.len()
    };
    // At least 3 of 4 QPs (both of 2) among the first messages.
    assert!(
        distinct >= (QPS - 1).max(2),
        "seed {seed}: first messages from QPs {first_qps:?}: no round robin"
    );
    if cfg.errors {
        // The error kinds of the seed's QPs (`(q + seed) % 4`: every kind with 4 QPs, two of
        // them with 2): 0 bad lkey, 1 unknown opcode, 2 qp_err, 3 none.
        let kinds: Vec<u8> = (0..QPS as u8).map(|q| (q + seed as u8) % 4).collect();
        assert!(
            !kinds.contains(&2) || obs.iter().any(|o| o.qp_err),
            "seed {seed}: no qp_err"
        );
        for (st, kind) in [
            (WcStatus::WrFlushErr, None),
            (WcStatus::LocProtErr, Some(0)),
            (WcStatus::LocQpOpErr, Some(1)),
        ] {
            if kind.is_some_and(|k| !kinds.contains(&k)) {
                continue;
            }
            assert!(
                cqes.iter().flatten().any(|c| c.status == st as u8),
                "seed {seed}: no {st:?} CQE"
            );
        }
    }
    if cfg.wqes_per_qp >= 40 && !cfg.errors {
        assert!(
            hints_seen > 0 || !cfg.random,
            "seed {seed}: no read-ahead hint"
        );
        assert!(ord_hits > 0, "seed {seed}: ORD limit never reached");
        assert!(fence_held > 0 || !cfg.random, "seed {seed}: no fence");
        assert!(
            fenced_read_after_read > 0 || !cfg.random,
            "seed {seed}: no fenced Read right after a Read"
        );
    }
    mem.assert_no_violations();
}
