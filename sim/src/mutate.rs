//! Seeded generator of receive-path traffic: valid DDP segments for a [`Setup`] (Writes,
//! Sends with posted WQEs, Read Requests, Read Responses with ORQ entries) and **mutants** of
//! them (one or more [`Mutation`]s applied to one segment of a valid message, or to the receive
//! WQE a Send lands in). Everything returned is ULPDU bytes (DDP header + payload); the
//! testbench frames them into FPDUs with `rnic_proto::mpa::Framer` (CRC on, markers off).
//!
//! The [`Setup`] keeps the QPs independent, so the model can run each QP's segments in order
//! while the hardware interleaves connections: every QP has its own PD and its own regions in
//! disjoint host memory, and the only remotely invalidatable STag of a QP is bound to it.
//! Mutants reach other QPs' STags only through checks that fail (other PD, bound elsewhere).
//!
//! STag table layout of [`Setup::standard`] (`index = 8 * qp + slot`, catalog
//! `rfc5040-rdmap.md` §7.2):
//!
//! | slot | rights | use |
//! |---|---|---|
//! | 0 | REMOTE_WRITE, REMOTE_READ | Write sink, Read Request source |
//! | 1 | LOCAL_WRITE | Send receive buffers (WQE lkey) |
//! | 2 | LOCAL_WRITE | Read Response sink |
//! | 3 | REMOTE_READ | read-only (missing-right mutants) |
//! | 4 | ALL, bound to QP `qp + 1` | trap: not associated with this QP |
//! | 5 | REMOTE_WRITE, remote_inv, bound to this QP | Write sink, target of Send with Invalidate |
//!
//! Indexes 32-63 stay invalid.

use crate::host_mem::Region;
use crate::rx_model::{MrEntry, QpConfig, RecvWqe, RxModel, QPS};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_proto::ddp;
use rnic_proto::rdmap::{Body, DdpFields, Message, Opcode, ReadRequestRepr};
use rnic_proto::verbs::{access, make_stag, stag_index};

/// Slots of a QP's STags in the table (index = 8 * qp + slot).
pub mod slot {
    pub const WRITE: u32 = 0;
    pub const RECV: u32 = 1;
    pub const READ_SINK: u32 = 2;
    pub const READ_ONLY: u32 = 3;
    pub const TRAP: u32 = 4;
    pub const INVALIDATABLE: u32 = 5;
}

/// Largest payload the generator puts in one segment.
pub const MAX_SEG_PAYLOAD: usize = 1024;
/// The MPA maximum ULPDU the testbench should configure (room for headers and extensions).
pub const MAX_ULPDU: u16 = 2048;

/// The STag table and QP configuration the traffic is generated for.
#[derive(Clone, Debug)]
pub struct Setup {
    /// (table index, entry) of every programmed entry.
    pub stags: Vec<(u32, MrEntry)>,
    /// Configuration of QP n.
    pub qps: Vec<QpConfig>,
}

impl Setup {
    /// The layout of the module documentation with random keys and base TOs; every QP enabled
    /// with PD `qp + 1` and an IRD of 1..=4.
    pub fn standard(rng: &mut impl Rng) -> Setup {
        let mut stags = Vec::new();
        let mut qps = Vec::new();
        for q in 0..QPS as u32 {
            let pd = q as u8 + 1;
            qps.push(QpConfig {
                enable: true,
                pd,
                ird: rng.gen_range(1..=4),
            });
            let host = (q + 1) << 20;
            let specs: [(u32, u8, u32, Option<u8>, bool, u32); 6] = [
                (
                    slot::WRITE,
                    access::REMOTE_WRITE | access::REMOTE_READ,
                    8192,
                    None,
                    false,
                    0,
                ),
                (slot::RECV, access::LOCAL_WRITE, 16384, None, false, 0x4000),
                (
                    slot::READ_SINK,
                    access::LOCAL_WRITE,
                    8192,
                    None,
                    false,
                    0x8000,
                ),
                (
                    slot::READ_ONLY,
                    access::REMOTE_READ,
                    4096,
                    None,
                    false,
                    0xC000,
                ),
                (
                    slot::TRAP,
                    access::ALL,
                    4096,
                    Some(((q + 1) % QPS as u32) as u8),
                    false,
                    0xE000,
                ),
                (
                    slot::INVALIDATABLE,
                    access::REMOTE_WRITE,
                    2048,
                    Some(q as u8),
                    true,
                    0x10000,
                ),
            ];
            for (s, acc, len, bound, inv, off) in specs {
                // Base TOs anywhere below 2^32 (the Cu STag table keeps 32 bits of base TO, as
                // the driver registers no region above 2^32), far enough from 0 and 2^32 for
                // the offset mutants.
                let base_to = match rng.gen_range(0..3) {
                    0 => 0x1_0000,
                    1 => rng.gen_range(0x1_0000..1u64 << 31),
                    _ => rng.gen_range(1u64 << 31..(1u64 << 32) - (1 << 20)),
                };
                stags.push((
                    8 * q + s,
                    MrEntry {
                        valid: true,
                        key: rng.gen(),
                        pd,
                        access: acc,
                        qp_bound: bound,
                        remote_inv: inv,
                        base_to,
                        len,
                        host_addr: host + off,
                    },
                ));
            }
        }
        Setup { stags, qps }
    }

    /// The entry at a table index.
    pub fn entry(&self, index: u32) -> Option<&MrEntry> {
        self.stags.iter().find(|(i, _)| *i == index).map(|(_, e)| e)
    }

    /// The STag of a programmed table index.
    pub fn stag(&self, index: u32) -> u32 {
        make_stag(index, self.entry(index).map_or(0, |e| e.key))
    }

    /// Programs the model (STags, QP configurations).
    pub fn apply(&self, model: &mut RxModel) {
        for (i, e) in &self.stags {
            model.program_stag(*i, *e);
        }
        for (q, c) in self.qps.iter().enumerate() {
            model.configure_qp(q, *c);
        }
    }

    /// The monitor's regions: (table index, region).
    pub fn regions(&self) -> Vec<(u32, Region)> {
        self.stags
            .iter()
            .map(|(i, e)| {
                (
                    *i,
                    Region {
                        host_addr: e.host_addr,
                        len: e.len,
                        pd: e.pd,
                        access: e.access,
                        valid: e.valid,
                    },
                )
            })
            .collect()
    }
}

/// One way to break a segment (or the WQE a Send lands in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mutation {
    /// STag index of an invalid or out-of-table entry.
    WrongStagIndex,
    /// Key changed.
    WrongKey,
    /// A valid STag of another QP's PD.
    OtherPd,
    /// This PD's STag bound to another QP.
    OtherQpBound,
    /// An STag without the right this operation needs.
    MissingRight,
    /// TO below the region's base.
    ToBelowBase,
    /// TO + length past the region's end.
    PastEnd,
    /// TO near 2^64 so that TO + length wraps.
    ToWrap,
    /// A Send's receive WQE too short for the message.
    ShortWqe,
    /// ULPDU cut to a random shorter length.
    Truncate,
    /// ULPDU extended by random octets.
    Extend,
    /// ULPDU replaced by its first 0..=13 octets.
    Tiny,
    /// Opcode set to a value 0..=15.
    Opcode(u8),
    /// T flag flipped.
    FlipT,
    /// DV set to 0, 2 or 3.
    Dv(u8),
    /// RV set to 0, 2 or 3.
    Rv(u8),
    /// QN set to a value.
    Qn(u32),
    /// MSN changed by a delta (wrapping).
    MsnDelta(i32),
    /// MO set to a random value.
    MoRandom,
    /// L flag flipped.
    FlipL,
    /// Read Request size set to a random value.
    RrqSize,
    /// Read Request source TO set to a random value.
    RrqSrcTo,
}

impl Mutation {
    /// A random mutation.
    pub fn random(rng: &mut impl Rng) -> Mutation {
        let pick = |rng: &mut dyn rand::RngCore, v: &[u8]| v[rng.gen_range(0..v.len())];
        match rng.gen_range(0..22) {
            0 => Mutation::WrongStagIndex,
            1 => Mutation::WrongKey,
            2 => Mutation::OtherPd,
            3 => Mutation::OtherQpBound,
            4 => Mutation::MissingRight,
            5 => Mutation::ToBelowBase,
            6 => Mutation::PastEnd,
            7 => Mutation::ToWrap,
            8 => Mutation::ShortWqe,
            9 => Mutation::Truncate,
            10 => Mutation::Extend,
            11 => Mutation::Tiny,
            12 => Mutation::Opcode(rng.gen_range(0..16)),
            13 => Mutation::FlipT,
            14 => Mutation::Dv(pick(rng, &[0, 2, 3])),
            15 => Mutation::Rv(pick(rng, &[0, 2, 3])),
            16 => Mutation::Qn(if rng.gen_bool(0.7) {
                rng.gen_range(0..=5)
            } else {
                rng.gen()
            }),
            17 => Mutation::MsnDelta(match rng.gen_range(0..3) {
                0 => 1,
                1 => -1,
                _ => rng.gen(),
            }),
            18 => Mutation::MoRandom,
            19 => Mutation::FlipL,
            20 => Mutation::RrqSize,
            _ => Mutation::RrqSrcTo,
        }
    }
}

/// What the testbench and the model must be given for one QP.
#[derive(Clone, Debug, Default)]
pub struct QpPlan {
    /// Receive WQEs to post before the traffic (model `post_recv`, RQ responder FIFO).
    pub posts: Vec<RecvWqe>,
    /// Read Requests that "went out" before the traffic (`orq_push` strobes).
    pub orq_pushes: u32,
    /// The segments, in order.
    pub ulpdus: Vec<Vec<u8>>,
    /// (segment number, mutations applied to it).
    pub mutants: Vec<(usize, Vec<Mutation>)>,
}

/// Where a message's STag / TO / length live, for the protection mutants.
#[derive(Clone, Copy, Debug)]
enum Target {
    /// Tagged segment: STag at 2..6, TO at 6..14.
    Tagged,
    /// Read Request: source STag at 34..38, TO at 38..46, size at 30..34.
    ReadRequest,
    /// Send: the WQE at `posts[i]`.
    Send(usize),
}

#[derive(Clone, Debug)]
struct QpGen {
    msn_send: u32,
    msn_rrq: u32,
    rrq_left: u32,
    next_wqe_index: u16,
    invalidated: bool,
    /// Next free offset in the receive-buffer region (WQE buffers do not overlap).
    recv_off: u64,
}

/// The seeded generator.
pub struct Gen {
    rng: StdRng,
    pub setup: Setup,
    qps: Vec<QpGen>,
}

impl Gen {
    /// A generator for `setup`, seeded.
    pub fn new(seed: u64, setup: Setup) -> Gen {
        let qps = setup
            .qps
            .iter()
            .map(|c| QpGen {
                msn_send: 1,
                msn_rrq: 1,
                rrq_left: u32::from(c.ird),
                next_wqe_index: 0,
                invalidated: false,
                recv_off: 0,
            })
            .collect();
        Gen {
            rng: StdRng::seed_from_u64(seed),
            setup,
            qps,
        }
    }

    /// Forgets what QP `q`'s peer has sent: the core and the model reset the QP (MSNs back to
    /// 1, IRD budget full, WQE indexes from 0). Invalidated STags stay invalidated.
    pub fn reset_qp(&mut self, q: usize) {
        let ird = u32::from(self.setup.qps[q].ird);
        let g = &mut self.qps[q];
        g.msn_send = 1;
        g.msn_rrq = 1;
        g.rrq_left = ird;
        g.next_wqe_index = 0;
        g.recv_off = 0;
    }

    /// The generator's RNG (for callers that need more randomness in the same stream).
    pub fn rng(&mut self) -> &mut StdRng {
        &mut self.rng
    }

    fn entry(&self, q: usize, s: u32) -> MrEntry {
        *self
            .setup
            .entry(8 * q as u32 + s)
            .expect("standard setup entry")
    }

    fn payload(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.rng.gen()).collect()
    }

    /// Random split of `len` payload octets into segment lengths (at least one segment).
    fn split(&mut self, len: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut rest = len;
        loop {
            let n = rest.min(self.rng.gen_range(1..=MAX_SEG_PAYLOAD));
            out.push(n);
            rest -= n;
            if rest == 0 {
                return out;
            }
        }
    }

    fn len_up_to(&mut self, max: usize) -> usize {
        match self.rng.gen_range(0..8) {
            0 => 0,
            1 => self.rng.gen_range(1..=8),
            2 => max,
            _ => self.rng.gen_range(0..=max),
        }
    }

    fn tagged(&mut self, opcode: Opcode, stag: u32, to: u64, len: usize) -> Vec<Vec<u8>> {
        let data = self.payload(len);
        let parts = self.split(len);
        let mut out = Vec::new();
        let mut off = 0;
        for (i, &n) in parts.iter().enumerate() {
            let chunk = &data[off..off + n];
            let body = match opcode {
                Opcode::RdmaWrite => Body::RdmaWrite { payload: chunk },
                _ => Body::RdmaReadResponse { payload: chunk },
            };
            out.push(emit(&Message {
                last: i + 1 == parts.len(),
                ddp: DdpFields::Tagged {
                    stag,
                    to: to.wrapping_add(off as u64),
                },
                body,
            }));
            off += n;
        }
        out
    }

    /// A valid RDMA Write (0..=4096 octets) into the QP's Write region (or its invalidatable
    /// region while that is valid).
    pub fn write(&mut self, q: usize) -> Vec<Vec<u8>> {
        self.write_target(q).1
    }

    fn write_target(&mut self, q: usize) -> (Target, Vec<Vec<u8>>) {
        let s = if !self.qps[q].invalidated && self.rng.gen_bool(0.3) {
            slot::INVALIDATABLE
        } else {
            slot::WRITE
        };
        let e = self.entry(q, s);
        let len = self.len_up_to(e.len.min(4096) as usize);
        let off = self.rng.gen_range(0..=u64::from(e.len) - len as u64);
        let stag = make_stag(8 * q as u32 + s, e.key);
        (
            Target::Tagged,
            self.tagged(Opcode::RdmaWrite, stag, e.base_to + off, len),
        )
    }

    /// A valid Read Response (its ORQ entry is added to `plan.orq_pushes`).
    pub fn read_response(&mut self, q: usize, plan: &mut QpPlan) -> Vec<Vec<u8>> {
        plan.orq_pushes += 1;
        let e = self.entry(q, slot::READ_SINK);
        let len = self.len_up_to(4096);
        let off = self.rng.gen_range(0..=u64::from(e.len) - len as u64);
        let stag = make_stag(8 * q as u32 + slot::READ_SINK, e.key);
        self.tagged(Opcode::RdmaReadResponse, stag, e.base_to + off, len)
    }

    /// A valid Send of `opcode` (3-6) with its WQE added to `plan.posts`. A Send with
    /// Invalidate names the QP's invalidatable STag (once; later ones become plain Sends).
    pub fn send(&mut self, q: usize, opcode: Opcode, plan: &mut QpPlan) -> Vec<Vec<u8>> {
        let mut opcode = opcode;
        if opcode.has_invalidate_stag() && self.qps[q].invalidated {
            opcode = if opcode == Opcode::SendInvalidate {
                Opcode::Send
            } else {
                Opcode::SendSe
            };
        }
        let inv_stag = if opcode.has_invalidate_stag() {
            self.qps[q].invalidated = true;
            self.setup.stag(8 * q as u32 + slot::INVALIDATABLE)
        } else {
            0
        };
        let e = self.entry(q, slot::RECV);
        let len = self.len_up_to(2048);
        let slack = self.rng.gen_range(0..64u64);
        let g = &mut self.qps[q];
        if g.recv_off + len as u64 + slack > u64::from(e.len) {
            g.recv_off = 0;
        }
        let wqe = RecvWqe {
            to: e.base_to + g.recv_off,
            len: (len as u64 + slack) as u32,
            lkey: make_stag(8 * q as u32 + slot::RECV, e.key),
            index: g.next_wqe_index,
        };
        g.recv_off += len as u64 + slack;
        g.next_wqe_index = g.next_wqe_index.wrapping_add(1);
        let msn = g.msn_send;
        g.msn_send = g.msn_send.wrapping_add(1);
        plan.posts.push(wqe);
        let data = self.payload(len);
        let parts = self.split(len);
        let mut out = Vec::new();
        let mut off = 0;
        for (i, &n) in parts.iter().enumerate() {
            let payload = &data[off..off + n];
            let body = match opcode {
                Opcode::Send => Body::Send { payload },
                Opcode::SendSe => Body::SendSe { payload },
                Opcode::SendInvalidate => Body::SendInvalidate {
                    invalidate_stag: inv_stag,
                    payload,
                },
                _ => Body::SendSeInvalidate {
                    invalidate_stag: inv_stag,
                    payload,
                },
            };
            out.push(emit(&Message {
                last: i + 1 == parts.len(),
                ddp: DdpFields::Untagged {
                    msn,
                    mo: off as u32,
                },
                body,
            }));
            off += n;
        }
        out
    }

    /// A valid Read Request from the QP's Write region (REMOTE_READ), or `None` when the
    /// QP's IRD is used up (the generator never calls `irq_done`).
    pub fn read_request(&mut self, q: usize) -> Option<Vec<u8>> {
        if self.qps[q].rrq_left == 0 {
            return None;
        }
        self.qps[q].rrq_left -= 1;
        let e = self.entry(q, slot::WRITE);
        let size = self.len_up_to(e.len as usize) as u32;
        let off = self.rng.gen_range(0..=u64::from(e.len - size));
        let rrq = ReadRequestRepr {
            sink_stag: self.rng.gen(),
            sink_to: self.rng.gen(),
            read_size: size,
            src_stag: make_stag(8 * q as u32 + slot::WRITE, e.key),
            src_to: e.base_to + off,
        };
        Some(self.read_request_of(q, rrq))
    }

    /// A Read Request with the QP's next MSN (counts against nothing: IRD overflow tests).
    pub fn read_request_of(&mut self, q: usize, rrq: ReadRequestRepr) -> Vec<u8> {
        let msn = self.qps[q].msn_rrq;
        self.qps[q].msn_rrq = msn.wrapping_add(1);
        emit(&Message {
            last: true,
            ddp: DdpFields::Untagged { msn, mo: 0 },
            body: Body::RdmaReadRequest(rrq),
        })
    }

    /// One valid message of a random kind; returns its segments and where its protection
    /// target lives.
    fn message(&mut self, q: usize, plan: &mut QpPlan) -> (Target, Vec<Vec<u8>>) {
        loop {
            match self.rng.gen_range(0..5) {
                0 => return self.write_target(q),
                1 => {
                    let segs = self.read_response(q, plan);
                    return (Target::Tagged, segs);
                }
                2 => {
                    if let Some(s) = self.read_request(q) {
                        return (Target::ReadRequest, vec![s]);
                    }
                }
                _ => {
                    let op = [
                        Opcode::Send,
                        Opcode::SendInvalidate,
                        Opcode::SendSe,
                        Opcode::SendSeInvalidate,
                    ][self.rng.gen_range(0..4)];
                    let segs = self.send(q, op, plan);
                    return (Target::Send(plan.posts.len() - 1), segs);
                }
            }
        }
    }

    /// A plan of `messages` random messages for QP `q`; each message is a mutant with
    /// probability `mutant_prob` (1 to 3 mutations on one of its segments).
    pub fn plan(&mut self, q: usize, messages: usize, mutant_prob: f64) -> QpPlan {
        let mut plan = QpPlan::default();
        for _ in 0..messages {
            let (target, mut segs) = self.message(q, &mut plan);
            if self.rng.gen_bool(mutant_prob) {
                let i = self.rng.gen_range(0..segs.len());
                let n = self.rng.gen_range(1..=3);
                let muts: Vec<Mutation> = (0..n).map(|_| Mutation::random(&mut self.rng)).collect();
                for &m in &muts {
                    self.apply(q, m, target, &mut segs[i], &mut plan);
                }
                plan.mutants.push((plan.ulpdus.len() + i, muts));
            }
            plan.ulpdus.extend(segs);
        }
        plan
    }

    /// Applies one mutation to `seg` (a segment of a message whose protection target is
    /// `target`). Mutations that do not fit the segment (a field past its end) change nothing.
    fn apply(
        &mut self,
        q: usize,
        m: Mutation,
        target: Target,
        seg: &mut Vec<u8>,
        plan: &mut QpPlan,
    ) {
        let rng = &mut self.rng;
        let len = seg.len();
        match m {
            Mutation::Truncate => {
                let n = rng.gen_range(0..len.max(1));
                seg.truncate(n);
            }
            Mutation::Extend => {
                let n = rng.gen_range(1..=64);
                seg.extend((0..n).map(|_| rng.gen::<u8>()));
            }
            Mutation::Tiny => {
                let n = rng.gen_range(0..=13);
                seg.resize(n.min(len), 0);
            }
            Mutation::Opcode(v) => set_u8(seg, 1, |c| (c & 0xF0) | (v & 0xF)),
            Mutation::FlipT => set_u8(seg, 0, |c| c ^ ddp::T_FLAG),
            Mutation::FlipL => set_u8(seg, 0, |c| c ^ ddp::L_FLAG),
            Mutation::Dv(v) => set_u8(seg, 0, |c| (c & !ddp::DV_MASK) | (v & 3)),
            Mutation::Rv(v) => set_u8(seg, 1, |c| (c & 0x3F) | (v << 6)),
            Mutation::Qn(v) => put(seg, 6, &v.to_be_bytes()),
            Mutation::MsnDelta(d) => {
                if let Some(b) = seg.get(10..14) {
                    let msn = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
                    put(seg, 10, &msn.wrapping_add(d as u32).to_be_bytes());
                }
            }
            Mutation::MoRandom => {
                let v: u32 = if rng.gen_bool(0.5) {
                    rng.gen_range(0..4096)
                } else {
                    rng.gen()
                };
                put(seg, 14, &v.to_be_bytes());
            }
            Mutation::RrqSize => {
                let v: u32 = if rng.gen_bool(0.5) {
                    rng.gen_range(0..16384)
                } else {
                    rng.gen()
                };
                put(seg, 30, &v.to_be_bytes());
            }
            Mutation::RrqSrcTo => {
                let v: u64 = rng.gen();
                put(seg, 38, &v.to_be_bytes());
            }
            _ => self.protection(q, m, target, seg, plan),
        }
    }

    /// The STag / TO mutations, on the field the message's target names.
    fn protection(
        &mut self,
        q: usize,
        m: Mutation,
        target: Target,
        seg: &mut [u8],
        plan: &mut QpPlan,
    ) {
        // Current (stag, to, length) of the target.
        let (stag, to, n) = match target {
            Target::Tagged => match (get_u32(seg, 2), get_u64(seg, 6)) {
                (Some(s), Some(t)) => (s, t, seg.len().saturating_sub(14) as u64),
                _ => return,
            },
            Target::ReadRequest => match (get_u32(seg, 34), get_u64(seg, 38), get_u32(seg, 30)) {
                (Some(s), Some(t), Some(z)) => (s, t, u64::from(z)),
                _ => return,
            },
            Target::Send(i) => {
                let w = plan.posts[i];
                (w.lkey, w.to, u64::from(w.len))
            }
        };
        let idx = stag_index(stag);
        let base = self.setup.entry(idx).map(|e| (e.base_to, e.len));
        let other_q = (q + self.rng.gen_range(1..QPS)) % QPS;
        let (mut stag, mut to, mut wqe_len) = (stag, to, n);
        match m {
            Mutation::WrongStagIndex => {
                let i = if self.rng.gen_bool(0.5) {
                    self.rng.gen_range(32..64)
                } else {
                    self.rng.gen_range(64..1 << 24)
                };
                stag = make_stag(i, stag as u8);
            }
            Mutation::WrongKey => stag ^= self.rng.gen_range(1..=255u32),
            Mutation::OtherPd => stag = self.setup.stag(8 * other_q as u32 + slot::WRITE),
            Mutation::OtherQpBound => stag = self.setup.stag(8 * q as u32 + slot::TRAP),
            Mutation::MissingRight => {
                let s = match target {
                    Target::Tagged if idx % 8 == slot::READ_SINK => slot::READ_ONLY,
                    Target::Tagged => slot::READ_SINK,
                    Target::ReadRequest => slot::RECV,
                    Target::Send(_) => slot::READ_ONLY,
                };
                stag = self.setup.stag(8 * q as u32 + s);
            }
            Mutation::ToBelowBase => {
                if let Some((b, _)) = base {
                    to = b - self.rng.gen_range(1..=0x1000);
                }
            }
            Mutation::PastEnd => {
                if let Some((b, l)) = base {
                    let len = match target {
                        Target::Send(_) => 1,
                        _ => n.max(1),
                    };
                    to = (b + u64::from(l)).wrapping_sub(len) + self.rng.gen_range(1..=64);
                }
            }
            Mutation::ToWrap => to = u64::MAX - self.rng.gen_range(0..n.max(1)),
            Mutation::ShortWqe => wqe_len = n.saturating_sub(self.rng.gen_range(1..=64)),
            _ => unreachable!("not a protection mutation"),
        }
        match target {
            Target::Tagged => {
                put(seg, 2, &stag.to_be_bytes());
                put(seg, 6, &to.to_be_bytes());
            }
            Target::ReadRequest => {
                put(seg, 34, &stag.to_be_bytes());
                put(seg, 38, &to.to_be_bytes());
            }
            Target::Send(i) => {
                let w = &mut plan.posts[i];
                w.lkey = stag;
                w.to = to;
                w.len = wqe_len as u32;
            }
        }
    }
}

fn emit(m: &Message) -> Vec<u8> {
    let mut out = vec![0u8; m.buffer_len()];
    m.emit(&mut ddp::Packet::new_unchecked(&mut out[..]))
        .expect("valid message");
    out
}

fn set_u8(seg: &mut [u8], at: usize, f: impl Fn(u8) -> u8) {
    if let Some(c) = seg.get_mut(at) {
        *c = f(*c);
    }
}

/// Writes `bytes` at `at`, only the part that falls inside the segment.
fn put(seg: &mut [u8], at: usize, bytes: &[u8]) {
    for (i, &b) in bytes.iter().enumerate() {
        if let Some(c) = seg.get_mut(at + i) {
            *c = b;
        }
    }
}

fn get_u32(seg: &[u8], at: usize) -> Option<u32> {
    seg.get(at..at + 4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

fn get_u64(seg: &[u8], at: usize) -> Option<u64> {
    seg.get(at..at + 8).map(|b| {
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        u64::from_be_bytes(a)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rx_model::{Expected, RxEvent};

    /// Valid plans run through the model without any Terminate, and every Send completes.
    #[test]
    fn valid_plans_have_no_errors() {
        for seed in 0..20 {
            let mut rng = StdRng::seed_from_u64(seed);
            let setup = Setup::standard(&mut rng);
            let mut gen = Gen::new(seed, setup.clone());
            let mut model = RxModel::new();
            setup.apply(&mut model);
            for q in 0..QPS {
                let plan = gen.plan(q, 30, 0.0);
                for w in &plan.posts {
                    model.post_recv(q, *w);
                }
                for _ in 0..plan.orq_pushes {
                    model.orq_push(q);
                }
                let mut exp = Expected::new();
                for u in &plan.ulpdus {
                    exp.extend(model.receive(q, u, true));
                }
                assert!(
                    exp.terms[q].is_empty(),
                    "seed {seed} qp {q}: {:?}",
                    exp.aevs[q]
                );
                assert_eq!(
                    exp.cqes[q].len() as u32,
                    plan.posts.len() as u32 + plan.orq_pushes
                );
                assert!(model.rq(q).is_empty());
            }
        }
    }

    /// Mutants make errors, and whatever they do, placements stay inside the QP's regions
    /// with the right to write them.
    #[test]
    fn mutants_fail_and_never_place_outside() {
        let mut terms = 0;
        for seed in 0..200 {
            let mut rng = StdRng::seed_from_u64(seed);
            let setup = Setup::standard(&mut rng);
            let mut gen = Gen::new(seed, setup.clone());
            let mut model = RxModel::new();
            setup.apply(&mut model);
            let mut mem = crate::host_mem::HostMemory::new();
            for (i, r) in setup.regions() {
                mem.set_region(i, r);
            }
            for (q, c) in setup.qps.iter().enumerate() {
                mem.set_qp_pd(q, Some(c.pd));
            }
            for q in 0..QPS {
                let plan = gen.plan(q, 6, 0.5);
                for w in &plan.posts {
                    model.post_recv(q, *w);
                }
                for _ in 0..plan.orq_pushes {
                    model.orq_push(q);
                }
                for u in &plan.ulpdus {
                    for e in model.receive(q, u, true) {
                        match e {
                            RxEvent::Place { addr, bytes, .. } => {
                                for i in 0..bytes.len() {
                                    let a = addr.wrapping_add(i as u32);
                                    let why = mem.why_denied(a, crate::host_mem::AccessKind::Write);
                                    assert!(why.is_none(), "seed {seed}: {a:#x}: {why:?}");
                                }
                            }
                            RxEvent::Terminate { .. } => terms += 1,
                            _ => {}
                        }
                    }
                }
            }
        }
        assert!(
            terms > 200,
            "mutants should mostly fail ({terms} Terminates)"
        );
    }
}
