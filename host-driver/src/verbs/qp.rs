//! Queue pairs: creation, connection, work requests and completions.

use super::{Cq, Device, HostDevice, Pd, Qp, Result, VerbsError};
use rnic_proto::host::{regs, wqe_flags, RqWqe, SqWqe, WqeOpcode, RQ_WQE_LEN, SQ_WQE_LEN};
use rnic_proto::verbs::{stag_index, WcOpcode, WcStatus};
use std::collections::VecDeque;

/// Cycles from the QP_CTRL write until the new context is in force in every block.
const COMMIT_CYCLES: u64 = 4;

/// A scatter / gather element: `length` bytes at `addr` (a tagged offset of `lkey`'s region).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sge {
    pub addr: u64,
    pub length: u32,
    pub lkey: u32,
}

/// The operation of a send work request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendOp {
    /// RDMA Write of the SGE to (`rkey`, `remote_addr`) at the peer.
    RdmaWrite { remote_addr: u64, rkey: u32 },
    /// RDMA Read of (`rkey`, `remote_addr`) at the peer into the SGE.
    RdmaRead { remote_addr: u64, rkey: u32 },
    /// Send.
    Send,
    /// Send with Invalidate of `invalidate_rkey` at the peer.
    SendInv { invalidate_rkey: u32 },
    /// Send with Solicited Event.
    SendSe,
    /// Send with Solicited Event and Invalidate.
    SendSeInv { invalidate_rkey: u32 },
}

impl SendOp {
    /// The opcode of this operation's work completion.
    pub fn wc_opcode(self) -> WcOpcode {
        match self {
            SendOp::RdmaWrite { .. } => WcOpcode::RdmaWrite,
            SendOp::RdmaRead { .. } => WcOpcode::RdmaRead,
            _ => WcOpcode::Send,
        }
    }

    fn wqe(self) -> (WqeOpcode, u32, u64) {
        match self {
            SendOp::RdmaWrite { remote_addr, rkey } => (WqeOpcode::RdmaWrite, rkey, remote_addr),
            SendOp::RdmaRead { remote_addr, rkey } => (WqeOpcode::RdmaRead, rkey, remote_addr),
            SendOp::Send => (WqeOpcode::Send, 0, 0),
            SendOp::SendInv { invalidate_rkey } => (WqeOpcode::SendInv, invalidate_rkey, 0),
            SendOp::SendSe => (WqeOpcode::SendSe, 0, 0),
            SendOp::SendSeInv { invalidate_rkey } => (WqeOpcode::SendSeInv, invalidate_rkey, 0),
        }
    }
}

/// A send work request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendWr {
    /// Returned in the work completion.
    pub wr_id: u64,
    pub op: SendOp,
    /// At most one element in this version of the core; none for a zero-length message.
    pub sg_list: Vec<Sge>,
    /// Complete with a work completion on success (errors always complete).
    pub signaled: bool,
    /// Wait for every earlier RDMA Read of the QP to complete first.
    pub fence: bool,
}

/// A receive work request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecvWr {
    pub wr_id: u64,
    /// Exactly one element in this version of the core.
    pub sg_list: Vec<Sge>,
}

/// A work completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wc {
    pub wr_id: u64,
    pub qp: usize,
    pub opcode: WcOpcode,
    pub status: WcStatus,
    /// Received bytes of a Recv; the request's length for a successful send-side completion.
    pub byte_len: u32,
    /// The STag a received Send with Invalidate invalidated.
    pub invalidated: Option<u32>,
    /// A received Send with Solicited Event.
    pub solicited: bool,
}

/// Ring sizes of a QP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QpCaps {
    /// log2 of the send queue entries (1..=15, 1..=11 in the Alchitry Cu profile:
    /// [`super::Caps::max_ring_log2`]).
    pub sq_log2: u32,
    /// log2 of the receive queue entries (as `sq_log2`).
    pub rq_log2: u32,
}

impl Default for QpCaps {
    /// 256 send and 256 receive work requests.
    fn default() -> Self {
        QpCaps {
            sq_log2: 8,
            rq_log2: 8,
        }
    }
}

/// What the two ends of a connection agreed (MPA negotiation, RFC 5044 §7.1 and RFC 6581):
/// the QP is programmed with these when it goes to RTS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnParams {
    /// CRC on received / sent FPDUs.
    pub rx_crc: bool,
    pub tx_crc: bool,
    /// Markers in received / sent FPDUs.
    pub rx_markers: bool,
    pub tx_markers: bool,
    /// Inbound Read Requests queued at most (IRD, 0..=4: the core queues 16 for its 4 QPs) and
    /// outbound Reads outstanding (ORD, 0..=15; the send engine tracks 4 per QP).
    pub ird: u8,
    pub ord: u8,
    /// The largest ULPDU accepted and the peer's: DDP segments are cut to `tx_mulpdu`.
    pub rx_max_ulpdu: u16,
    pub tx_mulpdu: u16,
}

impl Default for ConnParams {
    /// CRC on, markers off (DESIGN.md), IRD = ORD = 4, MULPDU 1454 (a 1500-octet Ethernet MTU
    /// less the IP, TCP and MPA overhead) each way, up to 65535 accepted.
    fn default() -> Self {
        ConnParams {
            rx_crc: true,
            tx_crc: true,
            rx_markers: false,
            tx_markers: false,
            ird: 4,
            ord: 4,
            rx_max_ulpdu: u16::MAX,
            tx_mulpdu: 1454,
        }
    }
}

/// Where a QP is (RFC 5040 §6 states, as the driver sees them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QpState {
    /// Created, not connected.
    Idle,
    /// Connected, moving data (RTS).
    Rts,
    /// A work request failed or an asynchronous event came: every further work request
    /// completes in flush error.
    Error,
}

impl QpState {
    fn name(self) -> &'static str {
        match self {
            QpState::Idle => "not connected",
            QpState::Rts => "ready to send",
            QpState::Error => "in error",
        }
    }
}

/// A posted, uncompleted work request.
#[derive(Debug, Clone)]
pub(super) struct Posted {
    pub wr_id: u64,
    /// What its work completion reports as the opcode when the core does not know it: a
    /// flushed send work request is never fetched, and its CQE says Send
    /// (`rdmap::send_engine`).
    pub opcode: WcOpcode,
    /// The STag it names, if any (released at completion; one element per work request in
    /// this core, so no allocation per post).
    pub stag: Option<u32>,
}

/// The driver's state of one QP.
#[derive(Debug, Clone)]
pub(super) struct QpEntry {
    pub pd: Pd,
    pub send_cq: Cq,
    pub recv_cq: Cq,
    pub caps: QpCaps,
    pub sq_base: u64,
    pub rq_base: u64,
    /// Producer indexes and the outstanding work requests from the consumer on, modulo
    /// `2^ring_index_bits` (`super::Caps::ring_index_mask`), as the CQEs' `wqe_index`.
    pub sq_pi: u16,
    pub rq_pi: u16,
    pub sq: VecDeque<(u16, Posted)>,
    pub rq: VecDeque<(u16, Posted)>,
    pub state: QpState,
}

impl QpEntry {
    /// The work request a CQE at ring `index` completes. Send queue completions are in order
    /// and an unsignaled success has no CQE, so the entries before `index` completed silently.
    pub fn take_completed(&mut self, recv: bool, index: u16) -> Option<Posted> {
        let q = if recv { &mut self.rq } else { &mut self.sq };
        let at = q.iter().position(|(i, _)| *i == index)?;
        let mut done: Vec<(u16, Posted)> = q.drain(..=at).collect();
        done.pop().map(|(_, p)| p)
    }
}

impl<D: HostDevice> Device<D> {
    pub(super) fn qp_ref(&self, qp: Qp) -> Result<&QpEntry> {
        self.qps
            .get(qp.0)
            .and_then(Option::as_ref)
            .ok_or(VerbsError::BadHandle("QP"))
    }

    /// Creates a QP in `pd` with its send and receive completions on `send_cq` / `recv_cq`.
    /// The rings are allocated in host memory; the QP is idle until [`Device::connect`].
    pub fn create_qp(&mut self, pd: Pd, send_cq: Cq, recv_cq: Cq, caps: QpCaps) -> Result<Qp> {
        self.check_pd(pd)?;
        self.cq_state(send_cq)?;
        self.cq_state(recv_cq)?;
        for (name, l) in [("SQ", caps.sq_log2), ("RQ", caps.rq_log2)] {
            self.caps.check_ring_log2(name, l)?;
        }
        let n = self
            .qps
            .iter()
            .position(Option::is_none)
            .ok_or(VerbsError::NoResources {
                what: "QP",
                max: self.caps.qps,
            })?;
        let sq_bytes = (SQ_WQE_LEN as u64) << caps.sq_log2;
        let rq_bytes = (RQ_WQE_LEN as u64) << caps.rq_log2;
        let sq = self.alloc_buf(sq_bytes, 64)?;
        let rq = self.alloc_buf(rq_bytes, 64)?;
        self.dev.grant_device(sq.addr, sq_bytes, true, false);
        self.dev.grant_device(rq.addr, rq_bytes, true, false);
        self.cq_state(send_cq)?.users += 1;
        self.cq_state(recv_cq)?.users += 1;
        self.pd_users[usize::from(pd.0)] += 1;
        self.qps[n] = Some(QpEntry {
            pd,
            send_cq,
            recv_cq,
            caps,
            sq_base: sq.addr,
            rq_base: rq.addr,
            sq_pi: 0,
            rq_pi: 0,
            sq: VecDeque::new(),
            rq: VecDeque::new(),
            state: QpState::Idle,
        });
        Ok(Qp(n))
    }

    /// Waits (at most 100 000 cycles) for the receive path to drain: a QP's context must
    /// not change while a segment of it is in flight (`rdmap::rx_path`).
    fn wait_rx_idle(&mut self, why: &str) -> Result<()> {
        let start = self.dev.cycles();
        loop {
            if self.dev.mmio_read(regs::STATUS)? & regs::STATUS_RX_IDLE != 0 {
                return Ok(());
            }
            if self.dev.cycles() - start >= 100_000 {
                return Err(VerbsError::Device(format!(
                    "receive path not idle {why} within 100000 cycles"
                )));
            }
            self.dev.run(4);
        }
    }

    /// Destroys a QP with no outstanding work request (poll its completions first; a QP in
    /// error has its work requests flushed by the core): the core's QP is disabled (its
    /// QP_CTRL written 0 once the receive path is idle), its rings are given back, its CQs
    /// and PD lose a user, and its handle is stale from now on.
    pub fn destroy_qp(&mut self, qp: Qp) -> Result<()> {
        let q = self.qp_ref(qp)?;
        if !q.sq.is_empty() || !q.rq.is_empty() {
            return Err(VerbsError::Busy(format!(
                "QP {} has {} send and {} receive work requests outstanding",
                qp.0,
                q.sq.len(),
                q.rq.len()
            )));
        }
        let q = q.clone();
        if q.state != QpState::Idle {
            self.wait_rx_idle("before the QP is disabled")?;
            self.dev.mmio_write(regs::qp_reg(qp.0, regs::QP_CTRL), 0);
            self.dev.qp_pd_set(qp.0, None);
        }
        for cq in [q.send_cq, q.recv_cq] {
            self.cq_state(cq)?.users -= 1;
        }
        self.pd_users[usize::from(q.pd.0)] -= 1;
        self.bufs.remove(&q.sq_base);
        self.bufs.remove(&q.rq_base);
        self.qps[qp.0] = None;
        Ok(())
    }

    /// The driver's view of the QP's state.
    pub fn qp_state(&self, qp: Qp) -> Result<QpState> {
        Ok(self.qp_ref(qp)?.state)
    }

    /// Moves the QP to RTS with the connection's negotiated parameters: programs its context
    /// (QP_ULPDU, rings, QP_CTRL with FPDU mode), which also resets its sequence numbers and
    /// ring indexes. The LLP connection must be set up (MPA exchanged) before.
    pub fn connect(&mut self, qp: Qp, p: ConnParams) -> Result<()> {
        let q = self.qp_ref(qp)?.clone();
        let ird_max = rnic_hdl::rdmap::read_responder::IRD_MAX as u8;
        if p.ird > ird_max || p.ord > 15 {
            return Err(VerbsError::InvalidArgument(format!(
                "IRD {} / ORD {}: IRD at most {ird_max} (the core queues {} inbound Read \
                 Requests for all its QPs), ORD at most 15",
                p.ird,
                p.ord,
                rnic_hdl::rdmap::read_responder::IRQ_DEPTH
            )));
        }
        if (p.rx_markers || p.tx_markers) && !self.caps.markers {
            return Err(VerbsError::InvalidArgument(format!(
                "markers (rx {}, tx {}): this core is built without markers (FEATURES bit 0 \
                 is 0, the `no-markers` build)",
                p.rx_markers, p.tx_markers
            )));
        }
        if q.state != QpState::Idle {
            return Err(VerbsError::QpNotReady {
                qp: qp.0,
                state: q.state.name(),
            });
        }
        // The receive path must be drained before a QP's context changes (rdmap::rx_path).
        self.wait_rx_idle("before the QP commit")?;
        let n = qp.0;
        self.dev.mmio_write(
            regs::qp_reg(n, regs::QP_ULPDU),
            u32::from(p.rx_max_ulpdu) | u32::from(p.tx_mulpdu) << 16,
        );
        self.dev.mmio_write(
            regs::qp_reg(n, regs::QP_SQ_BASE),
            regs::qp_sq_base(q.sq_base as u32, q.caps.sq_log2),
        );
        self.dev
            .mmio_write(regs::qp_reg(n, regs::QP_RQ_BASE), q.rq_base as u32);
        self.dev
            .mmio_write(regs::qp_reg(n, regs::QP_RQ_LOG2), q.caps.rq_log2);
        let mut ctrl = regs::QP_CTRL_ENABLE
            | regs::QP_CTRL_FPDU_MODE
            | u32::from(q.pd.0) << regs::QP_CTRL_PD_SHIFT
            | u32::from(p.ird) << regs::QP_CTRL_IRD_SHIFT
            | u32::from(p.ord) << regs::QP_CTRL_ORD_SHIFT
            | (q.send_cq.0 as u32) << regs::QP_CTRL_SEND_CQ_SHIFT
            | (q.recv_cq.0 as u32) << regs::QP_CTRL_RECV_CQ_SHIFT;
        for (on, bit) in [
            (p.rx_crc, regs::QP_CTRL_RX_CRC),
            (p.tx_crc, regs::QP_CTRL_TX_CRC),
            (p.rx_markers, regs::QP_CTRL_RX_MARKERS),
            (p.tx_markers, regs::QP_CTRL_TX_MARKERS),
        ] {
            if on {
                ctrl |= bit;
            }
        }
        self.dev.mmio_write(regs::qp_reg(n, regs::QP_CTRL), ctrl);
        // The commit reaches the blocks one cycle after the write (HostIf's registered strobe)
        // and MpaRx restarts the connection one cycle later: bytes the peer sends before that
        // would be cut by the restart (`docs/decisions.md`, "MPA receive"). Return once the
        // context is in force.
        self.dev.run(COMMIT_CYCLES);
        self.dev.qp_pd_set(n, Some(q.pd.0));
        if let Some(s) = self.qps[n].as_mut() {
            s.state = QpState::Rts;
        }
        Ok(())
    }

    fn one_sge(qp: Qp, sg: &[Sge], what: &str, allow_none: bool) -> Result<Option<Sge>> {
        match sg {
            [] if allow_none => Ok(None),
            [s] => Ok(Some(*s)),
            _ => Err(VerbsError::InvalidArgument(format!(
                "QP {}: a {what} work request takes {} scatter/gather element (got {}): \
                 max_sge is 1 in this core",
                qp.0,
                if allow_none {
                    "at most one"
                } else {
                    "exactly one"
                },
                sg.len()
            ))),
        }
    }

    /// Checks an SGE against the driver's view of the region: a mistake the driver can see
    /// (unknown lkey, out of bounds) is a typed error here, before the hardware would
    /// complete it with a local protection error.
    fn check_sge(&self, qp: Qp, s: &Sge) -> Result<()> {
        let inside = self
            .mrs
            .get(stag_index(s.lkey) as usize)
            .copied()
            .flatten()
            .filter(|m| m.mr.lkey == s.lkey)
            .is_some_and(|m| {
                s.addr >= m.mr.addr
                    && s.addr
                        .checked_add(u64::from(s.length))
                        .is_some_and(|e| e <= m.mr.addr + m.mr.len)
            });
        if inside {
            Ok(())
        } else {
            Err(VerbsError::LocalProtection {
                qp: qp.0,
                lkey: s.lkey,
                addr: s.addr,
                length: s.length,
            })
        }
    }

    /// Counts a posted work request naming `stag` against its region (released at its
    /// completion). Only the region the STag is (index and key) counts: with the driver's
    /// checks off, a wrong key must not pin the region that happens to share its index.
    fn hold_stag(&mut self, stag: u32) {
        if let Some(Some(m)) = self.mrs.get_mut(stag_index(stag) as usize) {
            if m.mr.lkey == stag {
                m.in_flight += 1;
            }
        }
    }

    /// Posts a send work request: writes the WQE into the SQ ring and rings the doorbell.
    pub fn post_send(&mut self, qp: Qp, wr: &SendWr) -> Result<()> {
        let q = self.qp_ref(qp)?;
        if q.state != QpState::Rts {
            return Err(VerbsError::QpNotReady {
                qp: qp.0,
                state: q.state.name(),
            });
        }
        let depth = 1usize << q.caps.sq_log2;
        if q.sq.len() >= depth {
            return Err(VerbsError::QueueFull {
                qp: qp.0,
                queue: "send queue",
                depth,
            });
        }
        let sge = Self::one_sge(qp, &wr.sg_list, "send", true)?;
        if let Some(s) = &sge {
            self.check_len(u64::from(s.length))?;
        }
        // A zero-length element accesses nothing: like the send engine, its lkey is not
        // checked (the peer-to-peer Read RTR names STag 1, `crate::cm`).
        if let (Some(s), true) = (&sge, self.checks) {
            if s.length > 0 {
                self.check_sge(qp, s)?;
            }
        }
        let (opcode, rkey, remote_addr) = wr.op.wqe();
        let mut flags = 0;
        if wr.signaled {
            flags |= wqe_flags::SIGNALED;
        }
        if wr.fence {
            flags |= wqe_flags::FENCE;
        }
        let s = sge.unwrap_or(Sge {
            addr: 0,
            length: 0,
            lkey: 0,
        });
        let wqe = SqWqe {
            opcode,
            flags,
            length: s.length,
            lkey: s.lkey,
            rkey,
            addr: s.addr,
            remote_addr,
        };
        let (base, pi) = (q.sq_base, q.sq_pi);
        let mask = self.caps.ring_index_mask();
        let at = base + (u64::from(pi) % depth as u64) * SQ_WQE_LEN as u64;
        self.dev.mem_write(at, &wqe.emit());
        let stag = (s.length > 0).then_some(s.lkey);
        if let Some(st) = stag {
            self.hold_stag(st);
        }
        let q = self.qps[qp.0].as_mut().expect("checked");
        q.sq.push_back((
            pi,
            Posted {
                wr_id: wr.wr_id,
                opcode: wr.op.wc_opcode(),
                stag,
            },
        ));
        q.sq_pi = pi.wrapping_add(1) & mask;
        let new_pi = q.sq_pi;
        self.dev
            .mmio_write(regs::qp_reg(qp.0, regs::QP_SQ_PI), u32::from(new_pi));
        Ok(())
    }

    /// Posts a receive work request: writes the WQE into the RQ ring and rings the doorbell.
    pub fn post_recv(&mut self, qp: Qp, wr: &RecvWr) -> Result<()> {
        let q = self.qp_ref(qp)?;
        if q.state == QpState::Error {
            return Err(VerbsError::QpNotReady {
                qp: qp.0,
                state: q.state.name(),
            });
        }
        let depth = 1usize << q.caps.rq_log2;
        if q.rq.len() >= depth {
            return Err(VerbsError::QueueFull {
                qp: qp.0,
                queue: "receive queue",
                depth,
            });
        }
        let s = Self::one_sge(qp, &wr.sg_list, "receive", false)?.expect("one element");
        self.check_len(u64::from(s.length))?;
        if self.checks {
            self.check_sge(qp, &s)?;
        }
        let wqe = RqWqe {
            length: s.length,
            lkey: s.lkey,
            addr: s.addr,
        };
        let (base, pi) = (q.rq_base, q.rq_pi);
        let mask = self.caps.ring_index_mask();
        let at = base + (u64::from(pi) % depth as u64) * RQ_WQE_LEN as u64;
        self.dev.mem_write(at, &wqe.emit());
        self.hold_stag(s.lkey);
        let q = self.qps[qp.0].as_mut().expect("checked");
        q.rq.push_back((
            pi,
            Posted {
                wr_id: wr.wr_id,
                opcode: WcOpcode::Recv,
                stag: Some(s.lkey),
            },
        ));
        q.rq_pi = pi.wrapping_add(1) & mask;
        let new_pi = q.rq_pi;
        self.dev
            .mmio_write(regs::qp_reg(qp.0, regs::QP_RQ_PI), u32::from(new_pi));
        Ok(())
    }
}
