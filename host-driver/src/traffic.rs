//! Verified RDMA traffic over connected QP pairs: what `rnic loopback` runs and what the
//! end-to-end tests run. Every operation's bytes and work completions are checked:
//!
//! - a Read or a Send is checked at its completion (the core writes the CQE after the data:
//!   the Read's sink at the requester, the Recv buffer at the responder);
//! - an RDMA Write completes at the requester when its last octet was handed to MPA (as siw
//!   does, `docs/decisions.md`), before the responder placed it, so Writes are checked at the
//!   next *sync point*: when every slot of a pair is used, the session waits for every posted
//!   operation to complete and for the device to drain (STATUS rx / tx idle, nothing on the
//!   wire), then checks the Writes and frees the slots.
//!
//! Each pair has `slots` buffer slots in each of its regions; an operation takes one, so
//! operations in flight never share bytes; up to `window` operations per pair are in flight.

use crate::verbs::{
    ConnParams, Cq, Device, Mr, Qp, QpCaps, RecvWr, Result, SendOp, SendWr, Sge, VerbsError, Wc,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_proto::host::regs;
use rnic_proto::verbs::{access, WcOpcode, WcStatus};
use std::collections::{HashMap, VecDeque};

/// An operation of the traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    Write,
    Read,
    Send,
    SendInv,
    SendSe,
    SendSeInv,
}

impl OpKind {
    /// Every operation.
    pub const ALL: [OpKind; 6] = [
        OpKind::Write,
        OpKind::Read,
        OpKind::Send,
        OpKind::SendInv,
        OpKind::SendSe,
        OpKind::SendSeInv,
    ];
}

/// Which operations a run posts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mix {
    /// Only this one.
    Only(OpKind),
    /// Every operation, chosen at random.
    Mixed,
}

/// Message sizes of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sizes {
    /// Every message this many bytes.
    Fixed(u32),
    /// Uniform in `lo..=hi`, with 0 one time in ten.
    Random(u32, u32),
}

impl Sizes {
    fn max(self) -> u32 {
        match self {
            Sizes::Fixed(n) => n,
            Sizes::Random(_, hi) => hi,
        }
    }
    fn pick(self, rng: &mut StdRng) -> u32 {
        match self {
            Sizes::Fixed(n) => n,
            Sizes::Random(lo, hi) => {
                if rng.gen_ratio(1, 10) {
                    0
                } else {
                    rng.gen_range(lo..=hi.max(lo))
                }
            }
        }
    }
}

/// A run's shape.
#[derive(Clone, Copy, Debug)]
pub struct TrafficConfig {
    pub mix: Mix,
    pub sizes: Sizes,
    /// Operations in all.
    pub count: usize,
    /// Operations in flight per pair at most.
    pub window: usize,
    /// Buffer slots per pair (at least `window`).
    pub slots: usize,
    /// Random buffer alignments (else every buffer 4096-aligned).
    pub random_alignment: bool,
    /// Post from both QPs of a pair (else only from the first).
    pub both_directions: bool,
    pub seed: u64,
    /// Give up when no operation was posted or completed for this many cycles.
    pub stall_cycles: u64,
}

impl Default for TrafficConfig {
    fn default() -> Self {
        TrafficConfig {
            mix: Mix::Mixed,
            sizes: Sizes::Fixed(4096),
            count: 100,
            window: 8,
            slots: 16,
            random_alignment: true,
            both_directions: true,
            seed: 1,
            stall_cycles: 2_000_000,
        }
    }
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub ops: usize,
    /// Payload bytes moved (every operation's length).
    pub bytes: u64,
    /// Device cycles from the first post to the last check.
    pub cycles: u64,
    /// Operations per kind.
    pub per_kind: Vec<(OpKind, usize)>,
    /// Wall-clock seconds of the run.
    pub wall_seconds: f64,
}

impl Summary {
    /// Payload bytes per cycle.
    pub fn bytes_per_cycle(&self) -> f64 {
        self.bytes as f64 / self.cycles.max(1) as f64
    }
    /// Goodput at a 100 MHz clock, Gbit/s.
    pub fn gbit_per_s_at_100mhz(&self) -> f64 {
        self.bytes_per_cycle() * 8.0 * 100e6 / 1e9
    }
    /// Simulated cycles per wall-clock second.
    pub fn cycles_per_second(&self) -> f64 {
        self.cycles as f64 / self.wall_seconds.max(1e-9)
    }
}

/// Two connected QPs and their regions.
#[derive(Clone, Debug)]
pub struct Pair {
    pub qp: [Qp; 2],
    pub cq: [Cq; 2],
    /// The region the other side writes into and reads from (and Sends land in).
    pub remote_mr: [Mr; 2],
    /// The local source / sink region.
    pub local_mr: [Mr; 2],
    /// Bytes per slot.
    pub slot_bytes: u64,
}

/// One operation in flight.
#[derive(Clone, Debug)]
struct Pending {
    pair: usize,
    side: usize,
    kind: OpKind,
    slot: usize,
    /// The completions still expected: (side, work completion).
    wcs: Vec<(usize, Wc)>,
    /// Bytes to check at completion (Read, Send) or at the next sync point (Write).
    check: (u64, Vec<u8>),
    /// The STag a Send with Invalidate names (deregistered once checked).
    inv: Option<Mr>,
}

/// A set of connected pairs on one device, and the runs over them.
pub struct Session {
    pub dev: Device,
    pub pairs: Vec<Pair>,
}

impl Session {
    /// Creates `pairs` pairs of QPs (QP 2k with QP 2k + 1, each its own CQ) on `dev`, with
    /// `slots` slots of `slot_bytes` in each region, and connects them with `params`.
    pub fn new(
        dev: Device,
        pairs: usize,
        slots: usize,
        slot_bytes: u64,
        params: ConnParams,
    ) -> Result<Session> {
        Self::new_with(dev, pairs, slots, slot_bytes, |dev, p| {
            dev.connect(p.qp[0], params)?;
            dev.connect(p.qp[1], params)?;
            Ok(())
        })
    }

    /// The pairs, not connected.
    fn build(mut dev: Device, pairs: usize, slots: usize, slot_bytes: u64) -> Result<Session> {
        let pd = dev.alloc_pd()?;
        let mut out = Vec::new();
        let region = slots as u64 * slot_bytes;
        for _ in 0..pairs {
            // 2^12 entries, or the most the core's ring indexes allow (2^11 in the Alchitry Cu
            // profile): either is far more than two rings of 2^8 can have outstanding.
            let cq_log2 = dev.caps().max_ring_log2().min(12);
            let cq = [dev.create_cq(cq_log2)?, dev.create_cq(cq_log2)?];
            let caps = QpCaps {
                sq_log2: 8,
                rq_log2: 8,
            };
            let qp = [
                dev.create_qp(pd, cq[0], cq[0], caps)?,
                dev.create_qp(pd, cq[1], cq[1], caps)?,
            ];
            let mut remote = Vec::new();
            let mut local = Vec::new();
            for _ in 0..2 {
                let b = dev.alloc_buf(region, 4096)?;
                remote.push(dev.reg_mr(
                    pd,
                    b.addr,
                    b.len,
                    access::LOCAL_WRITE | access::REMOTE_WRITE | access::REMOTE_READ,
                    false,
                )?);
                let b = dev.alloc_buf(region, 4096)?;
                local.push(dev.reg_mr(
                    pd,
                    b.addr,
                    b.len,
                    access::LOCAL_READ | access::LOCAL_WRITE,
                    false,
                )?);
            }
            out.push(Pair {
                qp,
                cq,
                remote_mr: [remote[0], remote[1]],
                local_mr: [local[0], local[1]],
                slot_bytes,
            });
        }
        Ok(Session { dev, pairs: out })
    }

    /// As [`Session::new`], with each pair connected by `connect` (e.g. MPA through the
    /// firmware, [`crate::cm::connect_pair`]) instead of a direct commit.
    pub fn new_with(
        dev: Device,
        pairs: usize,
        slots: usize,
        slot_bytes: u64,
        mut connect: impl FnMut(&mut Device, &Pair) -> Result<()>,
    ) -> Result<Session> {
        let mut s = Self::build(dev, pairs, slots, slot_bytes)?;
        for p in &s.pairs {
            connect(&mut s.dev, p)?;
        }
        Ok(s)
    }

    /// Runs `cfg` over every pair (operations spread at random) and checks everything;
    /// `progress` is called with the operations done so far.
    pub fn run(&mut self, cfg: &TrafficConfig, mut progress: impl FnMut(usize)) -> Result<Summary> {
        let slot_need = u64::from(cfg.sizes.max()) + 128;
        if self.pairs.iter().any(|p| p.slot_bytes < slot_need) || cfg.slots < cfg.window.max(1) {
            return Err(VerbsError::InvalidArgument(format!(
                "slots of at least {slot_need} bytes and at least `window` slots are needed"
            )));
        }
        let mut rng = StdRng::seed_from_u64(cfg.seed);
        let wall = std::time::Instant::now();
        let start = self.dev.sim().cycles();
        let n = self.pairs.len();
        let mut free: Vec<VecDeque<usize>> = (0..n).map(|_| (0..cfg.slots).collect()).collect();
        let mut pending: HashMap<u64, Pending> = HashMap::new();
        let mut unchecked_writes: Vec<Pending> = Vec::new();
        let mut summary = Summary::default();
        let mut per_kind: HashMap<OpKind, usize> = HashMap::new();
        let mut posted = 0usize;
        let mut done = 0usize;
        let mut wr_id = 1u64;
        let mut last_progress = start;
        while done < cfg.count {
            // Post while there is room.
            let mut progressed = false;
            if posted < cfg.count {
                let pair = rng.gen_range(0..n);
                let in_flight = pending.values().filter(|p| p.pair == pair).count();
                if in_flight < cfg.window.max(1) {
                    if let Some(slot) = free[pair].pop_front() {
                        let side = if cfg.both_directions {
                            rng.gen_range(0..2)
                        } else {
                            0
                        };
                        let kind = match cfg.mix {
                            Mix::Only(k) => k,
                            Mix::Mixed => OpKind::ALL[rng.gen_range(0..OpKind::ALL.len())],
                        };
                        let len = cfg.sizes.pick(&mut rng);
                        let p = self.post(&mut rng, cfg, pair, side, kind, slot, len, wr_id)?;
                        pending.insert(wr_id, p);
                        *per_kind.entry(kind).or_default() += 1;
                        summary.bytes += u64::from(len);
                        wr_id += 1;
                        posted += 1;
                        progressed = true;
                    }
                }
            }
            // Take completions.
            for pair in 0..n {
                for side in 0..2 {
                    let cq = self.pairs[pair].cq[side];
                    for wc in self.dev.poll_cq(cq, 64)? {
                        progressed = true;
                        let id = wc.wr_id & !(1 << 63);
                        let p = pending.get_mut(&id).ok_or_else(|| {
                            VerbsError::Device(format!("completion of unknown wr_id {}", wc.wr_id))
                        })?;
                        let at = p.wcs.iter().position(|(s, w)| *s == side && *w == wc);
                        match at {
                            Some(i) => {
                                p.wcs.remove(i);
                            }
                            None => {
                                return Err(VerbsError::Device(format!(
                                    "{:?} of pair {pair} from side {}: completion {wc:?} on side \
                                     {side}, expected {:?}",
                                    p.kind, p.side, p.wcs
                                )))
                            }
                        }
                        if p.wcs.is_empty() {
                            let p = pending.remove(&id).expect("present");
                            if p.kind == OpKind::Write {
                                unchecked_writes.push(p);
                            } else {
                                self.check_bytes(&p)?;
                                if let Some(mr) = p.inv {
                                    if self.dev.mr_valid(&mr) {
                                        return Err(VerbsError::Device(format!(
                                            "STag {:#010x} still valid after a Send with \
                                             Invalidate",
                                            mr.rkey
                                        )));
                                    }
                                    self.dev.dereg_mr(mr)?;
                                }
                                free[p.pair].push_back(p.slot);
                            }
                            done += 1;
                            progress(done);
                        }
                    }
                }
            }
            // Sync point: a pair out of slots (or the end) with nothing in flight.
            let stuck = (0..n)
                .any(|pair| free[pair].is_empty() && !pending.values().any(|p| p.pair == pair))
                || (posted == cfg.count && pending.is_empty());
            if stuck && !unchecked_writes.is_empty() {
                self.drain()?;
                for p in unchecked_writes.drain(..) {
                    self.check_bytes(&p)?;
                    free[p.pair].push_back(p.slot);
                }
                progressed = true;
            }
            if progressed {
                last_progress = self.dev.sim().cycles();
            } else {
                self.dev.run(16);
                if self.dev.sim().cycles() - last_progress > cfg.stall_cycles {
                    let mut waiting: Vec<String> = pending
                        .values()
                        .map(|p| {
                            format!(
                                "{:?} pair {} side {} of {} bytes, waiting for {:?}",
                                p.kind,
                                p.pair,
                                p.side,
                                p.check.1.len(),
                                p.wcs.iter().map(|(s, w)| (s, w.opcode)).collect::<Vec<_>>()
                            )
                        })
                        .collect();
                    waiting.sort();
                    return Err(VerbsError::Device(format!(
                        "no progress for {} cycles: {done} of {} operations done, {} in flight: \
                         {}",
                        cfg.stall_cycles,
                        cfg.count,
                        pending.len(),
                        waiting.join("; ")
                    )));
                }
            }
            let v = self.dev.mem().violations();
            if let Some(first) = v.first() {
                return Err(VerbsError::Device(format!("protection monitor: {first}")));
            }
        }
        self.drain()?;
        for p in unchecked_writes.drain(..) {
            self.check_bytes(&p)?;
        }
        summary.ops = done;
        summary.cycles = self.dev.sim().cycles() - start;
        summary.wall_seconds = wall.elapsed().as_secs_f64();
        let mut kinds: Vec<_> = per_kind.into_iter().collect();
        kinds.sort_by_key(|(k, _)| OpKind::ALL.iter().position(|x| x == k));
        summary.per_kind = kinds;
        Ok(summary)
    }

    /// Waits until the core and the wire are drained.
    pub fn drain(&mut self) -> Result<()> {
        let both = regs::STATUS_RX_IDLE | regs::STATUS_TX_IDLE;
        let mut quiet = 0;
        let start = self.dev.sim().cycles();
        while quiet < 3 {
            let busy = self.dev.sim().models_busy();
            let s = self.dev.sim_mut().mmio_read(regs::STATUS)?;
            if !busy && s & both == both {
                quiet += 1;
            } else {
                quiet = 0;
            }
            self.dev.run(8);
            if self.dev.sim().cycles() - start > 10_000_000 {
                return Err(VerbsError::Device("the device does not drain".into()));
            }
        }
        Ok(())
    }

    fn check_bytes(&self, p: &Pending) -> Result<()> {
        let (addr, want) = &p.check;
        let got = self.dev.read_mem(*addr, want.len());
        if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
            return Err(VerbsError::Device(format!(
                "{:?} of {} bytes (pair {}, side {}): byte {i} at {:#x} is {:#04x}, want {:#04x}",
                p.kind,
                want.len(),
                p.pair,
                p.side,
                addr + i as u64,
                got[i],
                want[i]
            )));
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn post(
        &mut self,
        rng: &mut StdRng,
        cfg: &TrafficConfig,
        pair: usize,
        side: usize,
        kind: OpKind,
        slot: usize,
        len: u32,
        wr_id: u64,
    ) -> Result<Pending> {
        let p = self.pairs[pair].clone();
        let (s, r) = (side, 1 - side);
        let base = slot as u64 * p.slot_bytes;
        let mut off = || {
            if cfg.random_alignment {
                rng.gen_range(0..64u64)
            } else {
                0
            }
        };
        let (src_off, dst_off) = (base + off(), base + off());
        let data: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let local = p.local_mr[s];
        let remote = p.remote_mr[r];
        let sg = |mr: Mr, o: u64| {
            if len == 0 {
                vec![]
            } else {
                vec![Sge {
                    addr: mr.addr + o,
                    length: len,
                    lkey: mr.lkey,
                }]
            }
        };
        let wc = |opcode| Wc {
            wr_id,
            qp: p.qp[s].0,
            opcode,
            status: WcStatus::Success,
            byte_len: len,
            invalidated: None,
            solicited: false,
        };
        let mut out = Pending {
            pair,
            side,
            kind,
            slot,
            wcs: vec![],
            check: (0, vec![]),
            inv: None,
        };
        let (op, sg_list) = match kind {
            OpKind::Write => {
                self.dev.write_mem(local.addr + src_off, &data);
                out.wcs.push((s, wc(WcOpcode::RdmaWrite)));
                out.check = (remote.addr + dst_off, data);
                (
                    SendOp::RdmaWrite {
                        remote_addr: remote.addr + dst_off,
                        rkey: remote.rkey,
                    },
                    sg(local, src_off),
                )
            }
            OpKind::Read => {
                self.dev.write_mem(remote.addr + src_off, &data);
                out.wcs.push((s, wc(WcOpcode::RdmaRead)));
                out.check = (local.addr + dst_off, data);
                (
                    SendOp::RdmaRead {
                        remote_addr: remote.addr + src_off,
                        rkey: remote.rkey,
                    },
                    sg(local, dst_off),
                )
            }
            _ => {
                let recv_len = len + rng.gen_range(0..64);
                self.dev.post_recv(
                    p.qp[r],
                    &RecvWr {
                        wr_id: wr_id | 1 << 63,
                        sg_list: vec![Sge {
                            addr: remote.addr + dst_off,
                            length: recv_len.max(1),
                            lkey: remote.lkey,
                        }],
                    },
                )?;
                self.dev.write_mem(local.addr + src_off, &data);
                let inv = if matches!(kind, OpKind::SendInv | OpKind::SendSeInv) {
                    let b = self.dev.alloc_buf(64, 64)?;
                    Some(
                        self.dev
                            .reg_mr(remote.pd, b.addr, 64, access::REMOTE_WRITE, true)?,
                    )
                } else {
                    None
                };
                out.inv = inv;
                out.wcs.push((s, wc(WcOpcode::Send)));
                out.wcs.push((
                    r,
                    Wc {
                        wr_id: wr_id | 1 << 63,
                        qp: p.qp[r].0,
                        opcode: WcOpcode::Recv,
                        status: WcStatus::Success,
                        byte_len: len,
                        invalidated: inv.map(|m| m.rkey),
                        solicited: matches!(kind, OpKind::SendSe | OpKind::SendSeInv),
                    },
                ));
                out.check = (remote.addr + dst_off, data);
                let op = match kind {
                    OpKind::Send => SendOp::Send,
                    OpKind::SendSe => SendOp::SendSe,
                    OpKind::SendInv => SendOp::SendInv {
                        invalidate_rkey: inv.expect("registered").rkey,
                    },
                    _ => SendOp::SendSeInv {
                        invalidate_rkey: inv.expect("registered").rkey,
                    },
                };
                (op, sg(local, src_off))
            }
        };
        self.dev.post_send(
            p.qp[s],
            &SendWr {
                wr_id,
                op,
                sg_list,
                signaled: true,
                fence: false,
            },
        )?;
        Ok(out)
    }
}
