//! The software golden model of the core's receive path (DDP + RDMAP receive behind MpaRx).
//!
//! Written from the specifications and the contract, not from the hardware: the receive-check
//! table, completion rules and the one error path of `hdl/src/rdmap/mod.rs` (rows 0-21), the
//! StagCheck semantics of `hdl/src/ddp/mod.rs` (`check_status`), `rfc5040-rdmap.md` §1.6
//! (Terminate layout), §2.2 (per-message rules), §5.2-§5.4 (errors), §7.1 (per-QP state), and
//! `mpa-peer-connect.md` §6 (DDP). Parsing and the Terminate bytes come from `rnic_proto`.
//!
//! One QP per LLP connection (QP n is connection n). [`RxModel::receive`] takes one DDP segment
//! (the MPA ULPDU, without length, PAD and CRC) and returns what the core must do for it:
//! [`RxEvent::Place`] (bytes at a host address), then completions, IRQ entries, async events and
//! the Terminate ULPDU the core sends.
//!
//! # Decisions where the contract is silent (also in the report to the lead)
//!
//! - Rows 1-8 use `rnic_proto::rdmap::Message::parse` (extensions off) for the triple and
//!   `TerminateCode::header_control` for HdrCt, except that a segment shorter than its DDP header
//!   (row 1, `ddp::Error::Truncated`) gets HdrCt none as the table says (the proto would say M, D,
//!   which cannot be built from a header that is not all there).
//! - Row 9 is decided from the octets alone, as the table says (`L < 22`, L flag, MO), not by
//!   `TerminateRepr::parse`: a Terminate of at least 22 octets whose M / D bits name parts that
//!   are missing is a TerminateReceived here, where the proto would call it malformed.
//!   A BadTerminateReceived event carries layer, etype and code 0.
//! - Error completions (rows 12, 16, 17, 21) carry `byte_len` 0, `inv_stag` 0, `with_inv` and
//!   `solicited` false; RdmaRead completions carry `index` 0 and `byte_len` 0 (the ORQ is a
//!   count, `orq_push` names no WQE, and the driver knows the Read's length from its WQE).
//! - An IRQ entry of a zero-length Read Request (no StagCheck, row 20) has `src_addr` 0.
//! - An LLP error on a QP that is disabled or already in error has no effect.
//! - State that the contract advances "when a segment is checked" (expected MSN / MO, the IRQ
//!   count, an invalidation of row 21) advances when every check of the segment passes, even if
//!   the segment turns out bad (`good = false`); effects at "done" (WQE pop + CQE, ORQ count - 1 +
//!   CQE, IRQ push, a received Terminate, committing an error) happen only for a good segment.
//!   A bad segment is always followed by an LLP error in the core, which ends the QP anyway.
//!   (The hardware pops a good Send's receive WQE earlier, when its L = 1 segment passes its
//!   checks, `docs/decisions.md` "RxControl: the receive WQE popped at the last segment's
//!   check"; the two differ only in the receive queue of a QP that a bad segment ends, which
//!   no comparison with this model looks at.)

use rnic_proto::ddp::{self, Packet as DdpPacket};
use rnic_proto::mpa::TERMINATE_ETYPE_LLP;
use rnic_proto::rdmap::{
    Body, DdpFields, Error as RdmapError, Extensions, HdrCt, Message, Opcode, ReadRequestPacket,
    ReadRequestRepr, TerminateCode, TerminateRepr,
};
use rnic_proto::verbs::{access, stag_index, stag_key, AsyncEventKind, WcOpcode, WcStatus};
use std::collections::VecDeque;

/// Entries of the STag table (`rnic_hdl::config::STAG_ENTRIES`).
pub const STAG_ENTRIES: usize = rnic_hdl::config::STAG_ENTRIES;
/// QPs of the core (`rnic_hdl::config::QPS`).
pub const QPS: usize = rnic_hdl::config::QPS;

/// `check_status` values (`hdl/src/ddp/mod.rs`).
pub mod status {
    pub const OK: u8 = 0;
    pub const INVALID_STAG: u8 = 1;
    pub const NOT_ASSOCIATED: u8 = 2;
    pub const ACCESS: u8 = 3;
    pub const WRAP: u8 = 4;
    pub const BOUNDS: u8 = 5;
    pub const NOT_INVALIDATABLE: u8 = 6;
}

/// One STag table entry, as programmed through `prog_*` (`rfc5040-rdmap.md` §7.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MrEntry {
    pub valid: bool,
    pub key: u8,
    pub pd: u8,
    /// [`rnic_proto::verbs::access`] bits.
    pub access: u8,
    /// `Some(qp)`: a window bound to that QP.
    pub qp_bound: Option<u8>,
    /// The entry may be invalidated by a remote Send with Invalidate.
    pub remote_inv: bool,
    pub base_to: u64,
    pub len: u32,
    pub host_addr: u32,
}

/// A QP configuration write (`qp_cfg_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QpConfig {
    pub enable: bool,
    pub pd: u8,
    pub ird: u8,
}

/// A receive WQE as the RQ responder returns it (`rq_rsp_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecvWqe {
    pub to: u64,
    pub len: u32,
    pub lkey: u32,
    pub index: u16,
}

/// A completion (`cqe_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cqe {
    pub qp: u8,
    pub opcode: u8,
    pub status: u8,
    pub byte_len: u32,
    pub index: u16,
    pub inv_stag: u32,
    pub with_inv: bool,
    pub solicited: bool,
}

/// An inbound Read Request handed to the read responder (`irq_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Irq {
    pub qp: u8,
    pub sink_stag: u32,
    pub sink_to: u64,
    pub size: u32,
    pub src_stag: u32,
    pub src_to: u64,
    pub src_addr: u32,
}

impl Irq {
    /// The request as the `irq_*` port carries it: without SrcSTag / SrcTO (the ReadResponder
    /// does not need them; RxControl checked and translated them, `docs/core.md`).
    pub fn on_port(self) -> Irq {
        Irq {
            src_stag: 0,
            src_to: 0,
            ..self
        }
    }
}

/// An asynchronous event (`aev_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsyncEvent {
    pub qp: u8,
    /// [`AsyncEventKind`] value.
    pub kind: u8,
    pub layer: u8,
    pub etype: u8,
    pub code: u8,
}

/// What the receive path does for a segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RxEvent {
    /// Bytes placed at a host address.
    Place {
        qp: u8,
        addr: u32,
        bytes: Vec<u8>,
    },
    Cqe(Cqe),
    Irq(Irq),
    Async(AsyncEvent),
    /// The exact Terminate ULPDU the core sends on the QP's connection.
    Terminate {
        qp: u8,
        ulpdu: Vec<u8>,
    },
}

/// Per-QP state (`rfc5040-rdmap.md` §7.1).
#[derive(Clone, Debug, Default)]
struct QpState {
    cfg: QpConfig,
    msn_send: u32,
    msn_rrq: u32,
    mo: u32,
    irq_count: u32,
    orq_count: u32,
    error: bool,
    rq: VecDeque<RecvWqe>,
}

/// A failed check: the Terminate it commits and the completion it makes, if any.
#[derive(Clone, Debug)]
struct Fail {
    code: TerminateCode,
    hdrct: HdrCt,
    cqe: Option<Cqe>,
    /// Rows 16, 17, 21: the WQE is consumed; row 12: the oldest Read.
    pop_wqe: bool,
    pop_orq: bool,
}

/// What a good segment does at "done".
#[derive(Clone, Debug)]
enum Done {
    Nothing,
    Cqe {
        cqe: Cqe,
        pop_wqe: bool,
        pop_orq: bool,
    },
    Irq(Irq),
    /// A Terminate arrived (row 9); the QP goes to error.
    TerminateIn(AsyncEvent),
}

/// The receive path's golden model.
#[derive(Clone, Debug)]
pub struct RxModel {
    stags: Vec<MrEntry>,
    qps: Vec<QpState>,
}

impl Default for RxModel {
    fn default() -> Self {
        Self::new()
    }
}

/// The StagCheck of `hdl/src/ddp/mod.rs`: `Ok(host address)` or `Err(check_status)`.
pub fn stag_check(
    entry: Option<&MrEntry>,
    stag: u32,
    to: u64,
    len: u32,
    pd: u8,
    qp: u8,
    rights: u8,
) -> Result<u32, u8> {
    let e = match entry {
        Some(e) if e.valid && e.key == stag_key(stag) => e,
        _ => return Err(status::INVALID_STAG),
    };
    if e.pd != pd || e.qp_bound.is_some_and(|b| b != qp) {
        return Err(status::NOT_ASSOCIATED);
    }
    if e.access & rights != rights {
        return Err(status::ACCESS);
    }
    let end = u128::from(to) + u128::from(len);
    if end > 1u128 << 64 {
        return Err(status::WRAP);
    }
    if to < e.base_to || end > u128::from(e.base_to) + u128::from(e.len) {
        return Err(status::BOUNDS);
    }
    Ok(e.host_addr.wrapping_add((to - e.base_to) as u32))
}

/// Terminate triple of a failed tagged-buffer StagCheck (rows 10, 12).
fn tagged_code(st: u8) -> TerminateCode {
    match st {
        status::INVALID_STAG => TerminateCode::from_raw(1, 1, 0x00),
        status::NOT_ASSOCIATED => TerminateCode::from_raw(1, 1, 0x02),
        status::ACCESS => TerminateCode::from_raw(0, 1, 0x02),
        status::WRAP => TerminateCode::from_raw(1, 1, 0x03),
        _ => TerminateCode::from_raw(1, 1, 0x01),
    }
}

/// Terminate triple of a failed Read Request source check (row 20).
fn rrq_code(st: u8) -> TerminateCode {
    match st {
        status::INVALID_STAG => TerminateCode::from_raw(0, 1, 0x00),
        status::NOT_ASSOCIATED => TerminateCode::from_raw(0, 1, 0x03),
        status::ACCESS => TerminateCode::from_raw(0, 1, 0x02),
        status::WRAP => TerminateCode::from_raw(0, 1, 0x04),
        _ => TerminateCode::from_raw(0, 1, 0x01),
    }
}

const NONE: HdrCt = HdrCt {
    m: false,
    d: false,
    r: false,
};
const MD: HdrCt = HdrCt {
    m: true,
    d: true,
    r: false,
};
const MDR: HdrCt = HdrCt {
    m: true,
    d: true,
    r: true,
};

/// The Terminate ULPDU the core sends: untagged header (L, QN 2, MSN 1, MO 0, Invalidate STag
/// 0, opcode 7) and the Terminate header with the parts HdrCt names, copied from the offending
/// `segment` (`rfc5040-rdmap.md` §1.6, §5.2, `docs/decisions.md` "DDP Segment Length").
pub fn terminate_ulpdu(code: TerminateCode, hdrct: HdrCt, segment: &[u8]) -> Vec<u8> {
    let mut repr = TerminateRepr::new(code);
    if hdrct.m || hdrct.d {
        repr = repr
            .with_segment(segment)
            .expect("M/D Terminates only for segments holding their whole DDP header");
    }
    if hdrct.r {
        let rrq = segment
            .get(ddp::UNTAGGED_HEADER_LEN..)
            .and_then(|b| ReadRequestRepr::parse(&ReadRequestPacket::new_unchecked(b)).ok())
            .expect("R Terminates only for whole Read Requests");
        repr = repr.with_rdma_header(rrq);
    }
    let msg = Message {
        last: true,
        ddp: DdpFields::Untagged {
            msn: ddp::MSN_INITIAL,
            mo: 0,
        },
        body: Body::Terminate(repr),
    };
    let mut out = vec![0u8; msg.buffer_len()];
    msg.emit(&mut DdpPacket::new_unchecked(&mut out[..]))
        .expect("Terminate emit");
    out
}

impl RxModel {
    /// Power-up state: every STag invalid, every QP disabled.
    pub fn new() -> Self {
        RxModel {
            stags: vec![MrEntry::default(); STAG_ENTRIES],
            qps: (0..QPS).map(|_| QpState::default()).collect(),
        }
    }

    /// Programs STag table entry `index` (`prog_*`). Indexes outside the table are ignored.
    pub fn program_stag(&mut self, index: u32, entry: MrEntry) {
        if let Some(e) = self.stags.get_mut(index as usize) {
            *e = entry;
        }
    }

    /// The STag table entry `index`.
    pub fn stag_entry(&self, index: u32) -> Option<&MrEntry> {
        self.stags.get(index as usize)
    }

    /// A QP configuration write: resets MSNs to 1, MO to 0, IRQ / ORQ counts, the error latch.
    /// The posted receive WQEs (host memory) stay.
    pub fn configure_qp(&mut self, qp: usize, cfg: QpConfig) {
        let q = &mut self.qps[qp];
        q.cfg = cfg;
        q.msn_send = ddp::MSN_INITIAL;
        q.msn_rrq = ddp::MSN_INITIAL;
        q.mo = 0;
        q.irq_count = 0;
        q.orq_count = 0;
        q.error = false;
    }

    /// Posts a receive WQE on the QP's RQ.
    pub fn post_recv(&mut self, qp: usize, wqe: RecvWqe) {
        self.qps[qp].rq.push_back(wqe);
    }

    /// Empties the QP's RQ (for a caller that feeds the model one WQE at a time, as the RQ
    /// responder answers).
    pub fn clear_rq(&mut self, qp: usize) {
        self.qps[qp].rq.clear();
    }

    /// The QP's RQ (head first), as the RQ responder should hold it.
    pub fn rq(&self, qp: usize) -> &VecDeque<RecvWqe> {
        &self.qps[qp].rq
    }

    /// A Read Request went out on the QP (`orq_push`).
    pub fn orq_push(&mut self, qp: usize) {
        self.qps[qp].orq_count += 1;
    }

    /// The read responder finished one Read Request of the QP (`irq_done`).
    pub fn irq_done(&mut self, qp: usize) {
        let q = &mut self.qps[qp];
        q.irq_count = q.irq_count.saturating_sub(1);
    }

    /// Whether the QP is in error.
    pub fn in_error(&self, qp: usize) -> bool {
        self.qps[qp].error
    }

    /// An LLP (MPA) error on the QP's connection (`llp_err_*`): Terminate 2 /
    /// `TERMINATE_ETYPE_LLP` / code, HdrCt none, and the QP goes to error.
    pub fn llp_error(&mut self, qp: usize, code: u8) -> Vec<RxEvent> {
        let q = &self.qps[qp];
        if !q.cfg.enable || q.error {
            return Vec::new();
        }
        let fail = Fail {
            code: TerminateCode::from_raw(2, TERMINATE_ETYPE_LLP, code),
            hdrct: NONE,
            cqe: None,
            pop_wqe: false,
            pop_orq: false,
        };
        let mut out = Vec::new();
        self.commit(qp, &fail, &[], &mut out);
        out
    }

    fn commit(&mut self, qp: usize, fail: &Fail, segment: &[u8], out: &mut Vec<RxEvent>) {
        let q = &mut self.qps[qp];
        q.error = true;
        if fail.pop_wqe {
            q.rq.pop_front();
        }
        if fail.pop_orq {
            q.orq_count = q.orq_count.saturating_sub(1);
        }
        if let Some(c) = fail.cqe {
            out.push(RxEvent::Cqe(c));
        }
        out.push(RxEvent::Terminate {
            qp: qp as u8,
            ulpdu: terminate_ulpdu(fail.code, fail.hdrct, segment),
        });
        out.push(RxEvent::Async(AsyncEvent {
            qp: qp as u8,
            kind: AsyncEventKind::TerminateSent as u8,
            layer: fail.code.layer(),
            etype: fail.code.error_type(),
            code: fail.code.error_code(),
        }));
    }

    /// One received segment (`ulpdu`: DDP header + payload) on QP `qp`; `good` is MpaRx's
    /// `ulpdu_good`. Returns the events in order: placements, then completions / IRQ entries /
    /// async events / the Terminate.
    pub fn receive(&mut self, qp: usize, ulpdu: &[u8], good: bool) -> Vec<RxEvent> {
        // Row 0.
        if !self.qps[qp].cfg.enable || self.qps[qp].error {
            return Vec::new();
        }
        let mut out = Vec::new();
        match self.check(qp, ulpdu, &mut out) {
            Err(fail) => {
                out.clear();
                if good {
                    self.commit(qp, &fail, ulpdu, &mut out);
                }
            }
            Ok(done) if good => {
                let q = &mut self.qps[qp];
                match done {
                    Done::Nothing => {}
                    Done::Cqe {
                        cqe,
                        pop_wqe,
                        pop_orq,
                    } => {
                        if pop_wqe {
                            q.rq.pop_front();
                        }
                        if pop_orq {
                            q.orq_count = q.orq_count.saturating_sub(1);
                        }
                        out.push(RxEvent::Cqe(cqe));
                    }
                    Done::Irq(irq) => out.push(RxEvent::Irq(irq)),
                    Done::TerminateIn(ev) => {
                        q.error = true;
                        out.push(RxEvent::Async(ev));
                    }
                }
            }
            Ok(_) => {}
        }
        out
    }

    /// Rows 1-21 for one segment: places into `out` and advances check-time state when every
    /// check passes.
    fn check(&mut self, qp: usize, seg: &[u8], out: &mut Vec<RxEvent>) -> Result<Done, Fail> {
        let qpn = qp as u8;
        let pd = self.qps[qp].cfg.pd;
        let fail = |code: TerminateCode, hdrct: HdrCt| Fail {
            code,
            hdrct,
            cqe: None,
            pop_wqe: false,
            pop_orq: false,
        };
        let packet = DdpPacket::new_unchecked(seg);
        // Rows 1-8 (and the static part of 9) by the golden parser.
        let msg = match Message::parse(&packet, Extensions::NONE) {
            Ok(m) => Some(m),
            Err(
                RdmapError::Segmented(Opcode::Terminate)
                | RdmapError::Truncated(Opcode::Terminate)
                | RdmapError::BadLength {
                    opcode: Opcode::Terminate,
                    ..
                },
            ) => None,
            Err(e) => {
                let code = e
                    .terminate_code()
                    .expect("every receive error of a non-Terminate maps to a Terminate");
                let hdrct = match e {
                    // Row 1: the header is not all there; the table says none.
                    RdmapError::Ddp(ddp::Error::Truncated) => NONE,
                    _ => code.header_control(false),
                };
                return Err(fail(code, hdrct));
            }
        };
        let l = seg.len();
        let opcode = match &msg {
            Some(m) => m.opcode(),
            None => Opcode::Terminate,
        };
        if opcode == Opcode::Terminate {
            // Row 9: never answered.
            let mo = packet.mo();
            let bad = l < ddp::UNTAGGED_HEADER_LEN + 4 || !packet.last() || mo != 0;
            let ev = if bad {
                AsyncEvent {
                    qp: qpn,
                    kind: AsyncEventKind::BadTerminateReceived as u8,
                    layer: 0,
                    etype: 0,
                    code: 0,
                }
            } else {
                AsyncEvent {
                    qp: qpn,
                    kind: AsyncEventKind::TerminateReceived as u8,
                    layer: seg[18] >> 4,
                    etype: seg[18] & 0xF,
                    code: seg[19],
                }
            };
            return Ok(Done::TerminateIn(ev));
        }
        let msg = msg.expect("parsed");
        let payload = msg.body.payload();
        let p = payload.len() as u32;
        let last = msg.last;
        match (msg.body, msg.ddp) {
            (Body::RdmaWrite { .. }, DdpFields::Tagged { stag, to }) => {
                // Row 10.
                if p > 0 {
                    let entry = self.stags.get(stag_index(stag) as usize);
                    let addr = stag_check(entry, stag, to, p, pd, qpn, access::REMOTE_WRITE)
                        .map_err(|st| fail(tagged_code(st), MD))?;
                    out.push(RxEvent::Place {
                        qp: qpn,
                        addr,
                        bytes: payload.to_vec(),
                    });
                }
                Ok(Done::Nothing)
            }
            (Body::RdmaReadResponse { .. }, DdpFields::Tagged { stag, to }) => {
                // Row 11.
                if self.qps[qp].orq_count == 0 {
                    return Err(fail(TerminateCode::from_raw(0, 2, 0x06), NONE));
                }
                // Row 12.
                if p > 0 {
                    let entry = self.stags.get(stag_index(stag) as usize);
                    match stag_check(entry, stag, to, p, pd, qpn, access::LOCAL_WRITE) {
                        Ok(addr) => out.push(RxEvent::Place {
                            qp: qpn,
                            addr,
                            bytes: payload.to_vec(),
                        }),
                        Err(st) => {
                            return Err(Fail {
                                cqe: Some(read_cqe(qpn, WcStatus::LocProtErr)),
                                pop_orq: true,
                                ..fail(tagged_code(st), MD)
                            })
                        }
                    }
                }
                if last {
                    Ok(Done::Cqe {
                        cqe: read_cqe(qpn, WcStatus::Success),
                        pop_wqe: false,
                        pop_orq: true,
                    })
                } else {
                    Ok(Done::Nothing)
                }
            }
            (Body::RdmaReadRequest(rrq), DdpFields::Untagged { msn, .. }) => {
                let q = &self.qps[qp];
                // Row 18.
                if msn != q.msn_rrq {
                    return Err(fail(TerminateCode::from_raw(1, 2, 0x03), MD));
                }
                // Row 19.
                if q.irq_count >= u32::from(q.cfg.ird) {
                    return Err(fail(TerminateCode::from_raw(0, 2, 0x07), MD));
                }
                // Row 20.
                let mut src_addr = 0;
                if rrq.read_size != 0 {
                    let entry = self.stags.get(stag_index(rrq.src_stag) as usize);
                    src_addr = stag_check(
                        entry,
                        rrq.src_stag,
                        rrq.src_to,
                        rrq.read_size,
                        pd,
                        qpn,
                        access::REMOTE_READ,
                    )
                    .map_err(|st| fail(rrq_code(st), MDR))?;
                }
                let q = &mut self.qps[qp];
                q.msn_rrq = q.msn_rrq.wrapping_add(1);
                q.irq_count += 1;
                Ok(Done::Irq(Irq {
                    qp: qpn,
                    sink_stag: rrq.sink_stag,
                    sink_to: rrq.sink_to,
                    size: rrq.read_size,
                    src_stag: rrq.src_stag,
                    // As RxControl gives it on the Cu: bits 63..33 as all ones, 1 or 0 (exact
                    // for every checked request; only a zero-length one, which is not checked
                    // and whose SrcTO nothing uses, can differ).
                    src_to: crate::tb::rx_control::cu_to(rrq.src_to),
                    src_addr,
                }))
            }
            (body, DdpFields::Untagged { msn, mo }) => {
                // Sends (3-6): rows 13-17, 21.
                let q = &self.qps[qp];
                if msn != q.msn_send {
                    return Err(fail(TerminateCode::from_raw(1, 2, 0x03), MD));
                }
                if mo != q.mo {
                    return Err(fail(TerminateCode::from_raw(1, 2, 0x04), MD));
                }
                let Some(wqe) = q.rq.front().copied() else {
                    return Err(fail(TerminateCode::from_raw(1, 2, 0x02), MD));
                };
                let err_cqe = |code, hdrct| Fail {
                    cqe: Some(Cqe {
                        qp: qpn,
                        opcode: WcOpcode::Recv as u8,
                        status: 0,
                        byte_len: 0,
                        index: wqe.index,
                        inv_stag: 0,
                        with_inv: false,
                        solicited: false,
                    }),
                    pop_wqe: true,
                    ..fail(code, hdrct)
                };
                let with_status = |mut f: Fail, st: WcStatus| {
                    if let Some(c) = f.cqe.as_mut() {
                        c.status = st as u8;
                    }
                    f
                };
                if u64::from(mo) + u64::from(p) > u64::from(wqe.len) {
                    return Err(with_status(
                        err_cqe(TerminateCode::from_raw(1, 2, 0x05), MD),
                        WcStatus::LocLenErr,
                    ));
                }
                if p > 0 {
                    let to = wqe.to.wrapping_add(u64::from(mo));
                    let entry = self.stags.get(stag_index(wqe.lkey) as usize);
                    match stag_check(entry, wqe.lkey, to, p, pd, qpn, access::LOCAL_WRITE) {
                        Ok(addr) => out.push(RxEvent::Place {
                            qp: qpn,
                            addr,
                            bytes: payload.to_vec(),
                        }),
                        Err(_) => {
                            return Err(with_status(
                                err_cqe(TerminateCode::from_raw(1, 0, 0x00), NONE),
                                WcStatus::LocProtErr,
                            ))
                        }
                    }
                }
                let op = body.opcode();
                let invalidates = op.has_invalidate_stag();
                let inv_stag = body.invalidate_stag();
                if invalidates && last {
                    // Row 21: takes effect at the check.
                    let idx = stag_index(inv_stag) as usize;
                    let st = match self.stags.get(idx) {
                        Some(e) if e.valid && e.key == stag_key(inv_stag) => {
                            if e.pd != pd || e.qp_bound.is_some_and(|b| b != qpn) {
                                status::NOT_ASSOCIATED
                            } else if !e.remote_inv {
                                status::NOT_INVALIDATABLE
                            } else {
                                status::OK
                            }
                        }
                        _ => status::INVALID_STAG,
                    };
                    match st {
                        status::OK => self.stags[idx].valid = false,
                        status::INVALID_STAG => {
                            return Err(with_status(
                                err_cqe(TerminateCode::from_raw(0, 2, 0x09), MD),
                                WcStatus::GeneralErr,
                            ))
                        }
                        _ => {
                            return Err(with_status(
                                err_cqe(TerminateCode::from_raw(0, 1, 0x09), MD),
                                WcStatus::GeneralErr,
                            ))
                        }
                    }
                }
                let q = &mut self.qps[qp];
                if last {
                    q.mo = 0;
                    q.msn_send = q.msn_send.wrapping_add(1);
                    Ok(Done::Cqe {
                        cqe: Cqe {
                            qp: qpn,
                            opcode: WcOpcode::Recv as u8,
                            status: WcStatus::Success as u8,
                            byte_len: mo.wrapping_add(p),
                            index: wqe.index,
                            inv_stag: if invalidates { inv_stag } else { 0 },
                            with_inv: invalidates,
                            solicited: matches!(op, Opcode::SendSe | Opcode::SendSeInvalidate),
                        },
                        pop_wqe: true,
                        pop_orq: false,
                    })
                } else {
                    q.mo = q.mo.wrapping_add(p);
                    Ok(Done::Nothing)
                }
            }
            // Message::parse guarantees the model matches the opcode.
            _ => unreachable!("tagged/untagged mismatch after Message::parse"),
        }
    }
}

fn read_cqe(qp: u8, st: WcStatus) -> Cqe {
    Cqe {
        qp,
        opcode: WcOpcode::RdmaRead as u8,
        status: st as u8,
        byte_len: 0,
        index: 0,
        inv_stag: 0,
        with_inv: false,
        solicited: false,
    }
}

/// The model's events of one run, sorted per QP and kind, for comparison with the hardware.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Expected {
    pub cqes: Vec<Vec<Cqe>>,
    pub aevs: Vec<Vec<AsyncEvent>>,
    pub irqs: Vec<Vec<Irq>>,
    pub terms: Vec<Vec<Vec<u8>>>,
    /// Every placement, in model order: (qp, address, bytes).
    pub places: Vec<(u8, u32, Vec<u8>)>,
}

impl Expected {
    /// Nothing expected on any QP.
    pub fn new() -> Self {
        Expected {
            cqes: vec![Vec::new(); QPS],
            aevs: vec![Vec::new(); QPS],
            irqs: vec![Vec::new(); QPS],
            terms: vec![Vec::new(); QPS],
            places: Vec::new(),
        }
    }

    /// Adds events in order.
    pub fn extend(&mut self, events: impl IntoIterator<Item = RxEvent>) {
        for e in events {
            match e {
                RxEvent::Place { qp, addr, bytes } => self.places.push((qp, addr, bytes)),
                RxEvent::Cqe(c) => self.cqes[usize::from(c.qp)].push(c),
                RxEvent::Irq(i) => self.irqs[usize::from(i.qp)].push(i),
                RxEvent::Async(a) => self.aevs[usize::from(a.qp)].push(a),
                RxEvent::Terminate { qp, ulpdu } => self.terms[usize::from(qp)].push(ulpdu),
            }
        }
    }
}
