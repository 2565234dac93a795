//! The receive-path golden model (`rnic_sim::rx_model`) against the contract's check table
//! (`hdl/src/rdmap/mod.rs`, rows 0-21) and the catalogs: `rfc5040-rdmap.md` §1.6 (Terminate
//! layout), §1.8 (golden vectors), §2.2 (per-message rules), §5.2-§5.4 (errors),
//! `mpa-peer-connect.md` §6 (DDP header, codes). Every Terminate is parsed back with
//! `rnic_proto` and compared with the table's triple and HdrCt.
//!
//! Every case also runs on the hardware: [`Both`] mirrors each setup step and each segment
//! into a fresh `RxPath` on the Verilator back end (MpaRx, DdpRxParse, StagCheck, RxControl,
//! RxPlace, TerminateTx) and asserts that the core's placements, completions, Read Requests,
//! async events and Terminate ULPDUs are exactly the model's, so the table is checked on the
//! hardware byte for byte, with the memory-protection monitor on every DMA write.

use rnic_proto::ddp;
use rnic_proto::rdmap::{
    Body, DdpFields, Extensions, HdrCt, Message, Opcode, ReadRequestRepr, TerminateRepr,
};
use rnic_proto::verbs::{access, make_stag, AsyncEventKind, WcOpcode, WcStatus};
use rnic_sim::rx_model::{
    stag_check, status, AsyncEvent, Cqe, Irq, MrEntry, QpConfig, RecvWqe, RxEvent, RxModel,
};
use rnic_sim::tb::rx_path::{Knobs, Logged, RxPathBench};
use rnic_sim::testbench::BackendKind;
use std::collections::VecDeque;

// ---------------------------------------------------------------- model and hardware

/// The model and the hardware side by side: every call goes to both; `receive` returns the
/// model's events after asserting the core produced the same.
struct Both {
    model: RxModel,
    /// `None` once the hardware can no longer follow (an LLP error or a bad CRC is injected
    /// into the model only).
    hw: Option<RxPathBench>,
}

/// Merges adjacent placements, so a DMA write split at a page or a connection change compares
/// equal to the model's one placement per segment.
fn merged(events: Vec<RxEvent>) -> Vec<RxEvent> {
    let mut out: Vec<RxEvent> = Vec::new();
    for e in events {
        if let (
            Some(RxEvent::Place { qp, addr, bytes }),
            RxEvent::Place {
                qp: q2,
                addr: a2,
                bytes: b2,
            },
        ) = (out.last_mut(), &e)
        {
            if qp == q2 && addr.wrapping_add(bytes.len() as u32) == *a2 {
                bytes.extend_from_slice(b2);
                continue;
            }
        }
        if matches!(&e, RxEvent::Place { bytes, .. } if bytes.is_empty()) {
            continue;
        }
        out.push(e);
    }
    out
}

impl Both {
    fn new() -> Both {
        let sim = BackendKind::Verilator
            .build_untraced(rnic_hdl::rdmap::rx_path::RxPath::default())
            .expect("building RxPath");
        let mut hw = RxPathBench::new(sim, 1, Knobs::RANDOM).expect("bench");
        for q in 0..4 {
            hw.mpa_cfg(q, true, false, true, u16::MAX);
        }
        Both {
            model: RxModel::new(),
            hw: Some(hw),
        }
    }

    fn program_stag(&mut self, index: u32, entry: MrEntry) {
        self.model.program_stag(index, entry);
        if let Some(hw) = &mut self.hw {
            hw.program_stag(index, entry);
        }
    }

    fn configure_qp(&mut self, qp: usize, cfg: QpConfig) {
        self.model.configure_qp(qp, cfg);
        if let Some(hw) = &mut self.hw {
            hw.qp_cfg(qp, cfg);
        }
    }

    fn post_recv(&mut self, qp: usize, wqe: RecvWqe) {
        self.model.post_recv(qp, wqe);
        if let Some(hw) = &mut self.hw {
            hw.post_recv(qp, wqe);
        }
    }

    fn orq_push(&mut self, qp: usize) {
        self.model.orq_push(qp);
        if let Some(hw) = &mut self.hw {
            hw.orq_push(qp);
        }
    }

    fn irq_done(&mut self, qp: usize) {
        self.model.irq_done(qp);
        if let Some(hw) = &mut self.hw {
            hw.irq_done(qp);
        }
    }

    fn in_error(&self, qp: usize) -> bool {
        self.model.in_error(qp)
    }

    fn rq(&self, qp: usize) -> &VecDeque<RecvWqe> {
        self.model.rq(qp)
    }

    fn stag_entry(&self, index: u32) -> Option<&MrEntry> {
        self.model.stag_entry(index)
    }

    fn llp_error(&mut self, qp: usize, code: u8) -> Vec<RxEvent> {
        self.hw = None;
        self.model.llp_error(qp, code)
    }

    fn receive(&mut self, qp: usize, ulpdu: &[u8], good: bool) -> Vec<RxEvent> {
        let events = self.model.receive(qp, ulpdu, good);
        if !good {
            self.hw = None;
        }
        if let Some(hw) = &mut self.hw {
            hw.log.clear();
            hw.send_ulpdus(qp, &[ulpdu.to_vec()]);
            hw.run_until_idle(1_000_000);
            let got: Vec<RxEvent> = hw
                .log
                .iter()
                .map(|(_, e)| match e {
                    Logged::Write { addr, bytes } => RxEvent::Place {
                        qp: qp as u8,
                        addr: *addr,
                        bytes: bytes.clone(),
                    },
                    Logged::Cqe(c) => RxEvent::Cqe(*c),
                    Logged::Irq(i) => RxEvent::Irq(*i),
                    Logged::Async(a) => RxEvent::Async(*a),
                    Logged::Terminate { conn, ulpdu } => RxEvent::Terminate {
                        qp: *conn as u8,
                        ulpdu: ulpdu.clone(),
                    },
                })
                .collect();
            // Each output port keeps its own order; across ports the order is not defined.
            let by_kind = |evs: Vec<RxEvent>| {
                let mut kinds: [Vec<RxEvent>; 5] = Default::default();
                for e in merged(evs) {
                    let k = match e {
                        RxEvent::Place { .. } => 0,
                        RxEvent::Cqe(_) => 1,
                        RxEvent::Irq(_) => 2,
                        RxEvent::Async(_) => 3,
                        RxEvent::Terminate { .. } => 4,
                    };
                    // Compared as the `irq_*` port carries a request.
                    let e = match e {
                        RxEvent::Irq(i) => RxEvent::Irq(i.on_port()),
                        e => e,
                    };
                    kinds[k].push(e);
                }
                kinds
            };
            assert_eq!(
                by_kind(got),
                by_kind(events.clone()),
                "the core (left) differs from the model (right) on segment {ulpdu:02x?}"
            );
            hw.mem.assert_no_violations();
        }
        events
    }
}

// ---------------------------------------------------------------- setup

const PD: u8 = 3;
/// Write / Read source region: REMOTE_WRITE | REMOTE_READ, TO 0x1000.., host 0x10_0000.
const W_IDX: u32 = 1;
const W_KEY: u8 = 0x11;
const W_BASE: u64 = 0x1000;
const W_LEN: u32 = 0x1000;
const W_HOST: u32 = 0x10_0000;
/// Receive buffers / Read Response sink: LOCAL_WRITE, TO 0, host 0x20_0000.
const R_IDX: u32 = 2;
const R_KEY: u8 = 0x22;
const R_LEN: u32 = 0x2000;
const R_HOST: u32 = 0x20_0000;
/// Invalidatable Write region: REMOTE_WRITE, remote_inv, host 0x30_0000.
const I_IDX: u32 = 3;
const I_KEY: u8 = 0x33;
/// Same PD, no remote_inv, REMOTE_READ only.
const N_IDX: u32 = 4;
const N_KEY: u8 = 0x44;
/// Other PD.
const O_IDX: u32 = 5;
const O_KEY: u8 = 0x55;
/// Same PD, bound to QP 1.
const B_IDX: u32 = 6;
const B_KEY: u8 = 0x66;

fn stag(idx: u32, key: u8) -> u32 {
    make_stag(idx, key)
}

fn entry(access: u8, base_to: u64, len: u32, host_addr: u32) -> MrEntry {
    MrEntry {
        valid: true,
        key: 0,
        pd: PD,
        access,
        qp_bound: None,
        remote_inv: false,
        base_to,
        len,
        host_addr,
    }
}

/// QP 0 enabled (PD 3, IRD 2) with the STags above, in the model and in the core.
fn model() -> Both {
    let mut m = Both::new();
    m.program_stag(
        W_IDX,
        MrEntry {
            key: W_KEY,
            ..entry(
                access::REMOTE_WRITE | access::REMOTE_READ,
                W_BASE,
                W_LEN,
                W_HOST,
            )
        },
    );
    m.program_stag(
        R_IDX,
        MrEntry {
            key: R_KEY,
            ..entry(access::LOCAL_WRITE, 0, R_LEN, R_HOST)
        },
    );
    m.program_stag(
        I_IDX,
        MrEntry {
            key: I_KEY,
            remote_inv: true,
            ..entry(access::REMOTE_WRITE, 0x5000, 0x100, 0x30_0000)
        },
    );
    m.program_stag(
        N_IDX,
        MrEntry {
            key: N_KEY,
            ..entry(access::REMOTE_READ, 0, 0x100, 0x40_0000)
        },
    );
    m.program_stag(
        O_IDX,
        MrEntry {
            key: O_KEY,
            pd: PD + 1,
            remote_inv: true,
            ..entry(access::ALL, 0, 0x100, 0x50_0000)
        },
    );
    m.program_stag(
        B_IDX,
        MrEntry {
            key: B_KEY,
            qp_bound: Some(1),
            remote_inv: true,
            ..entry(access::ALL, 0, 0x100, 0x60_0000)
        },
    );
    m.configure_qp(
        0,
        QpConfig {
            enable: true,
            pd: PD,
            ird: 2,
        },
    );
    m
}

fn wqe(to: u64, len: u32, index: u16) -> RecvWqe {
    RecvWqe {
        to,
        len,
        lkey: stag(R_IDX, R_KEY),
        index,
    }
}

// ---------------------------------------------------------------- segment builders

fn emit(m: &Message) -> Vec<u8> {
    let mut out = vec![0u8; m.buffer_len()];
    m.emit(&mut ddp::Packet::new_unchecked(&mut out[..]))
        .unwrap();
    out
}

fn write(stag: u32, to: u64, payload: &[u8], last: bool) -> Vec<u8> {
    emit(&Message {
        last,
        ddp: DdpFields::Tagged { stag, to },
        body: Body::RdmaWrite { payload },
    })
}

fn read_response(stag: u32, to: u64, payload: &[u8], last: bool) -> Vec<u8> {
    emit(&Message {
        last,
        ddp: DdpFields::Tagged { stag, to },
        body: Body::RdmaReadResponse { payload },
    })
}

fn send(op: Opcode, inv: u32, msn: u32, mo: u32, payload: &[u8], last: bool) -> Vec<u8> {
    let body = match op {
        Opcode::Send => Body::Send { payload },
        Opcode::SendSe => Body::SendSe { payload },
        Opcode::SendInvalidate => Body::SendInvalidate {
            invalidate_stag: inv,
            payload,
        },
        _ => Body::SendSeInvalidate {
            invalidate_stag: inv,
            payload,
        },
    };
    emit(&Message {
        last,
        ddp: DdpFields::Untagged { msn, mo },
        body,
    })
}

fn rrq(msn: u32, size: u32, src_stag: u32, src_to: u64) -> Vec<u8> {
    emit(&Message {
        last: true,
        ddp: DdpFields::Untagged { msn, mo: 0 },
        body: Body::RdmaReadRequest(ReadRequestRepr {
            sink_stag: 0xABCD_EF01,
            sink_to: 0x7777_0000_1234,
            read_size: size,
            src_stag,
            src_to,
        }),
    })
}

fn terminate_in(layer_etype: u8, code: u8) -> Vec<u8> {
    let mut s = vec![0x41, 0x47, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0];
    s.extend([layer_etype, code, 0, 0]);
    s
}

fn payload(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(13).wrapping_add(seed))
        .collect()
}

// ---------------------------------------------------------------- checks

/// A Terminate triple: Layer, EType, Error Code.
type Triple = (u8, u8, u8);

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

/// Checks that `events` are exactly an error commit for `seg` (optionally with `cqe` first):
/// the Terminate ULPDU parses with `rnic_proto`, is untagged QN 2 MSN 1 MO 0 L=1 with
/// Invalidate STag 0 (`rfc5040-rdmap.md` §1.6, §1.7), carries `triple` and `hdrct`, the
/// segment length and the headers as received; the async event is TerminateSent with the
/// triple; nothing is placed.
fn assert_term(events: &[RxEvent], seg: &[u8], triple: Triple, hdrct: HdrCt, cqe: Option<Cqe>) {
    let mut it = events.iter();
    if let Some(c) = cqe {
        assert_eq!(it.next(), Some(&RxEvent::Cqe(c)), "{events:?}");
    }
    let Some(RxEvent::Terminate { qp: 0, ulpdu }) = it.next() else {
        panic!("expected a Terminate on QP 0: {events:?}");
    };
    assert_eq!(
        it.next(),
        Some(&RxEvent::Async(AsyncEvent {
            qp: 0,
            kind: AsyncEventKind::TerminateSent as u8,
            layer: triple.0,
            etype: triple.1,
            code: triple.2,
        }))
    );
    assert_eq!(it.next(), None);
    assert_eq!(
        &ulpdu[..18],
        &[0x41, 0x47, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0]
    );
    let m = Message::parse(&ddp::Packet::new_unchecked(&ulpdu[..]), Extensions::NONE).unwrap();
    assert_eq!(m.ddp, DdpFields::Untagged { msn: 1, mo: 0 });
    assert!(m.last);
    let Body::Terminate(t) = m.body else {
        panic!("not a Terminate")
    };
    assert_eq!(
        (t.code.layer(), t.code.error_type(), t.code.error_code()),
        triple
    );
    assert_eq!(t.hdrct(), hdrct);
    let mut len = 18 + 4;
    if hdrct.m || hdrct.d {
        assert_eq!(usize::from(t.ddp_segment_length), seg.len());
        let h = ddp::header_len_for(seg[0]);
        assert_eq!(t.ddp_header.unwrap().as_bytes(), &seg[..h]);
        len += 2 + h;
    }
    if hdrct.r {
        assert_eq!(&ulpdu[len..len + 28], &seg[18..46]);
        len += 28;
    }
    assert_eq!(ulpdu.len(), len, "Terminate ULPDU length");
}

/// One fresh model, one segment on QP 0, the error of the table.
fn row(seg: &[u8], triple: Triple, hdrct: HdrCt) {
    let mut m = model();
    let ev = m.receive(0, seg, true);
    assert_term(&ev, seg, triple, hdrct, None);
    assert!(m.in_error(0));
    // Row 0: a QP in error drops everything silently.
    assert_eq!(
        m.receive(0, &write(stag(W_IDX, W_KEY), W_BASE, &[1], true), true),
        []
    );
}

fn places(events: &[RxEvent]) -> Vec<(u32, Vec<u8>)> {
    events
        .iter()
        .filter_map(|e| match e {
            RxEvent::Place { addr, bytes, .. } => Some((*addr, bytes.clone())),
            _ => None,
        })
        .collect()
}

fn recv_cqe(status: WcStatus, byte_len: u32, index: u16) -> Cqe {
    Cqe {
        qp: 0,
        opcode: WcOpcode::Recv as u8,
        status: status as u8,
        byte_len,
        index,
        inv_stag: 0,
        with_inv: false,
        solicited: false,
    }
}

fn read_cqe(status: WcStatus) -> Cqe {
    Cqe {
        qp: 0,
        opcode: WcOpcode::RdmaRead as u8,
        status: status as u8,
        byte_len: 0,
        index: 0,
        inv_stag: 0,
        with_inv: false,
        solicited: false,
    }
}

// ---------------------------------------------------------------- rows

/// Row 0: a disabled QP drops silently; configuration clears the error (mod.rs "One error
/// path").
#[test]
fn row00_disabled_or_in_error_drops_silently() {
    let mut m = model();
    let good = write(stag(W_IDX, W_KEY), W_BASE, &[1, 2], true);
    assert_eq!(m.receive(1, &good, true), []);
    assert_eq!(m.receive(0, &[0u8; 3], true).len(), 2);
    assert_eq!(m.receive(0, &good, true), []);
    m.configure_qp(
        0,
        QpConfig {
            enable: true,
            pd: PD,
            ird: 2,
        },
    );
    assert_eq!(places(&m.receive(0, &good, true)), [(W_HOST, vec![1, 2])]);
}

/// Row 1: `L < H` is 0/2/0xFF with no headers (contract; `docs/decisions.md`), for L = 0, 1,
/// 13 tagged and 17 untagged.
#[test]
fn row01_short_segment() {
    let w = write(stag(W_IDX, W_KEY), W_BASE, &[], true);
    let s = send(Opcode::Send, 0, 1, 0, &[], true);
    for seg in [&[][..], &w[..1], &w[..13], &s[..17], &s[..2]] {
        row(seg, (0, 2, 0xFF), NONE);
    }
}

/// Row 2: DV != 1 is 1/1/0x04 tagged, 1/2/0x06 untagged, no headers (`mpa-peer-connect.md`
/// §6.1, §6.4; `rfc5040-rdmap.md` §5.2 layout unknown).
#[test]
fn row02_ddp_version() {
    for dv in [0u8, 2, 3] {
        let mut w = write(stag(W_IDX, W_KEY), W_BASE, &[1], true);
        w[0] = (w[0] & !3) | dv;
        row(&w, (1, 1, 0x04), NONE);
        let mut s = send(Opcode::Send, 0, 1, 0, &[1], true);
        s[0] = (s[0] & !3) | dv;
        row(&s, (1, 2, 0x06), NONE);
    }
}

/// Row 3: an untagged QN above 2 is 1/2/0x01 with M, D (`mpa-peer-connect.md` §6.3,
/// `rfc5040-rdmap.md` §1.7).
#[test]
fn row03_invalid_qn() {
    for qn in [3u32, 5, 0xFFFF_FFFF] {
        let mut s = send(Opcode::Send, 0, 1, 0, &[1, 2], true);
        s[6..10].copy_from_slice(&qn.to_be_bytes());
        row(&s, (1, 2, 0x01), MD);
    }
}

/// Row 4: RV != 1 is 0/2/0x05, no headers (`rfc5040-rdmap.md` §5.4 row 1).
#[test]
fn row04_rdmap_version() {
    for rv in [0u8, 2, 3] {
        let mut w = write(stag(W_IDX, W_KEY), W_BASE, &[1], true);
        w[1] = (w[1] & 0x3F) | rv << 6;
        row(&w, (0, 2, 0x05), NONE);
    }
}

/// Row 5: opcodes 8-15 (no RFC 7306 / commit extension) are 0/2/0x06, no headers
/// (`rfc5040-rdmap.md` §5.4 row 2).
#[test]
fn row05_reserved_opcode() {
    for op in 8u8..16 {
        let mut s = send(Opcode::Send, 0, 1, 0, &[], true);
        s[1] = 0x40 | op;
        row(&s, (0, 2, 0x06), NONE);
    }
}

/// Row 6: T or QN not the opcode's is 0/2/0x06, no headers (`rfc5040-rdmap.md` §5.4 row 3).
#[test]
fn row06_model_or_qn_mismatch() {
    // Write (tagged opcode) in an untagged header.
    let mut s = send(Opcode::Send, 0, 1, 0, &[], true);
    s[1] = 0x40;
    row(&s, (0, 2, 0x06), NONE);
    // Send in a tagged header.
    let mut w = write(stag(W_IDX, W_KEY), W_BASE, &[0; 8], true);
    w[1] = 0x43;
    row(&w, (0, 2, 0x06), NONE);
    // Read Request on QN 0, Send on QN 1, Terminate on QN 0.
    let mut r = rrq(1, 0, 0, 0);
    r[9] = 0;
    row(&r, (0, 2, 0x06), NONE);
    let mut s = send(Opcode::Send, 0, 1, 0, &[], true);
    s[9] = 1;
    row(&s, (0, 2, 0x06), NONE);
    let mut t = terminate_in(0x12, 0x05);
    t[9] = 0;
    row(&t, (0, 2, 0x06), NONE);
}

/// Row 7: a Read Request with L = 0 or MO != 0 is 1/2/0x04 with M, D
/// (`docs/decisions.md` "single segments").
#[test]
fn row07_segmented_read_request() {
    let mut r = rrq(1, 16, stag(W_IDX, W_KEY), W_BASE);
    r[0] &= !ddp::L_FLAG;
    row(&r, (1, 2, 0x04), MD);
    let mut r = rrq(1, 16, stag(W_IDX, W_KEY), W_BASE);
    r[17] = 4;
    row(&r, (1, 2, 0x04), MD);
}

/// Row 8: a Read Request of L != 46 is 0/2/0xFF with M, D.
#[test]
fn row08_read_request_length() {
    let r = rrq(1, 16, stag(W_IDX, W_KEY), W_BASE);
    row(&r[..45], (0, 2, 0xFF), MD);
    row(&r[..18], (0, 2, 0xFF), MD);
    let mut long = r.clone();
    long.push(0);
    row(&long, (0, 2, 0xFF), MD);
}

/// Row 9: a Terminate is never answered; the QP goes to error with TerminateReceived (octets
/// 18, 19) or BadTerminateReceived (`rfc5040-rdmap.md` §2.2 "Terminate", §5.5).
#[test]
fn row09_terminate_received() {
    let mut m = model();
    let ev = m.receive(0, &terminate_in(0x11, 0x02), true);
    assert_eq!(
        ev,
        [RxEvent::Async(AsyncEvent {
            qp: 0,
            kind: AsyncEventKind::TerminateReceived as u8,
            layer: 1,
            etype: 1,
            code: 2,
        })]
    );
    assert!(m.in_error(0));
    assert_eq!(
        m.receive(0, &write(stag(W_IDX, W_KEY), W_BASE, &[1], true), true),
        []
    );
    // Longer Terminates (with headers, or trailing bytes) are accepted as well.
    let mut long = terminate_in(0x02, 0x06);
    long.extend([0xAA; 30]);
    let mut m = model();
    assert_eq!(
        m.receive(0, &long, true),
        [RxEvent::Async(AsyncEvent {
            qp: 0,
            kind: AsyncEventKind::TerminateReceived as u8,
            layer: 0,
            etype: 2,
            code: 6,
        })]
    );
    let bad = AsyncEvent {
        qp: 0,
        kind: AsyncEventKind::BadTerminateReceived as u8,
        layer: 0,
        etype: 0,
        code: 0,
    };
    let t = terminate_in(0x11, 0x02);
    let mut not_last = t.clone();
    not_last[0] &= !ddp::L_FLAG;
    let mut mo = t.clone();
    mo[17] = 4;
    for seg in [&t[..21], &t[..18], &not_last[..], &mo[..]] {
        let mut m = model();
        assert_eq!(m.receive(0, seg, true), [RxEvent::Async(bad)]);
        assert!(m.in_error(0));
    }
}

/// Row 10: a Write's StagCheck (REMOTE_WRITE) and its codes, M, D (`mpa-peer-connect.md` §6.4,
/// `rfc5040-rdmap.md` §5.3 "DDP errors"); zero-length Writes are not checked (§2.2).
#[test]
fn row10_write_protection() {
    let p = payload(8, 1);
    let cases: [(u32, u64, Triple); 10] = [
        (stag(40, W_KEY), W_BASE, (1, 1, 0x00)),
        (stag(64, W_KEY), W_BASE, (1, 1, 0x00)),
        (stag(W_IDX, W_KEY ^ 1), W_BASE, (1, 1, 0x00)),
        (stag(O_IDX, O_KEY), 0, (1, 1, 0x02)),
        (stag(B_IDX, B_KEY), 0, (1, 1, 0x02)),
        (stag(R_IDX, R_KEY), 0, (0, 1, 0x02)),
        (stag(W_IDX, W_KEY), u64::MAX - 6, (1, 1, 0x03)),
        (stag(W_IDX, W_KEY), W_BASE - 1, (1, 1, 0x01)),
        (
            stag(W_IDX, W_KEY),
            W_BASE + u64::from(W_LEN) - 7,
            (1, 1, 0x01),
        ),
        (stag(N_IDX, N_KEY), 0, (0, 1, 0x02)),
    ];
    for (s, to, triple) in cases {
        row(&write(s, to, &p, true), triple, MD);
    }
    // TO + len = 2^64 exactly does not wrap (it is out of bounds).
    row(
        &write(stag(W_IDX, W_KEY), u64::MAX - 7, &p, true),
        (1, 1, 0x01),
        MD,
    );
    // The last byte of the region, and zero-length Writes anywhere.
    let mut m = model();
    let end = W_BASE + u64::from(W_LEN) - 8;
    let ev = m.receive(0, &write(stag(W_IDX, W_KEY), end, &p, false), true);
    assert_eq!(places(&ev), [(W_HOST + W_LEN - 8, p.clone())]);
    assert_eq!(m.receive(0, &write(stag(40, 0), 0, &[], true), true), []);
    assert!(!m.in_error(0));
}

/// Row 11: a Read Response without an outstanding Read is 0/2/0x06, no headers.
#[test]
fn row11_read_response_without_read() {
    row(
        &read_response(stag(R_IDX, R_KEY), 0, &[1, 2, 3], true),
        (0, 2, 0x06),
        NONE,
    );
}

/// Row 12: a Read Response's StagCheck (LOCAL_WRITE); the oldest Read completes LocProtErr.
#[test]
fn row12_read_response_protection() {
    let cases: [(u32, u64, Triple); 4] = [
        (stag(R_IDX, R_KEY ^ 0x80), 0, (1, 1, 0x00)),
        (stag(O_IDX, O_KEY), 0, (1, 1, 0x02)),
        (stag(W_IDX, W_KEY), W_BASE, (0, 1, 0x02)),
        (stag(R_IDX, R_KEY), u64::from(R_LEN) - 1, (1, 1, 0x01)),
    ];
    for (s, to, triple) in cases {
        let mut m = model();
        m.orq_push(0);
        let seg = read_response(s, to, &[1, 2], false);
        let ev = m.receive(0, &seg, true);
        assert_term(&ev, &seg, triple, MD, Some(read_cqe(WcStatus::LocProtErr)));
    }
}

/// Row 13: a Send with the wrong MSN is 1/2/0x03, M, D (`mpa-peer-connect.md` §6.3).
#[test]
fn row13_send_msn() {
    let mut m = model();
    m.post_recv(0, wqe(0, 100, 7));
    let seg = send(Opcode::Send, 0, 2, 0, &[1], true);
    assert_term(&m.receive(0, &seg, true), &seg, (1, 2, 0x03), MD, None);
}

/// Row 14: a Send with the wrong MO is 1/2/0x04, M, D.
#[test]
fn row14_send_mo() {
    let mut m = model();
    m.post_recv(0, wqe(0, 100, 7));
    let seg = send(Opcode::Send, 0, 1, 4, &[1], true);
    assert_term(&m.receive(0, &seg, true), &seg, (1, 2, 0x04), MD, None);
    // Second segment with the MO of the first missing.
    let mut m = model();
    m.post_recv(0, wqe(0, 100, 7));
    assert!(
        m.receive(0, &send(Opcode::Send, 0, 1, 0, &[1, 2], false), true)
            .len()
            == 1
    );
    let seg = send(Opcode::Send, 0, 1, 3, &[1], true);
    assert_term(&m.receive(0, &seg, true), &seg, (1, 2, 0x04), MD, None);
}

/// Row 15: a Send with no receive WQE is 1/2/0x02, M, D (`rfc5040-rdmap.md` §2.2 "Send types").
#[test]
fn row15_send_without_wqe() {
    row(&send(Opcode::SendSe, 0, 1, 0, &[1], true), (1, 2, 0x02), MD);
}

/// Row 16: a Send longer than its WQE is 1/2/0x05, M, D; the WQE completes LocLenErr.
#[test]
fn row16_send_too_long() {
    let mut m = model();
    m.post_recv(0, wqe(0, 10, 9));
    let first = send(Opcode::Send, 0, 1, 0, &payload(6, 0), false);
    assert_eq!(m.receive(0, &first, true).len(), 1);
    let seg = send(Opcode::Send, 0, 1, 6, &payload(5, 0), true);
    let ev = m.receive(0, &seg, true);
    assert_term(
        &ev,
        &seg,
        (1, 2, 0x05),
        MD,
        Some(recv_cqe(WcStatus::LocLenErr, 0, 9)),
    );
    assert!(m.rq(0).is_empty(), "the WQE is consumed");
}

/// Row 17: a Send whose WQE lkey fails its check is 1/0/0x00 with no headers; the WQE
/// completes LocProtErr.
#[test]
fn row17_send_lkey() {
    let bad = [
        RecvWqe {
            lkey: stag(R_IDX, 0),
            ..wqe(0, 100, 4)
        },
        RecvWqe {
            lkey: stag(W_IDX, W_KEY),
            ..wqe(W_BASE, 100, 4)
        },
        RecvWqe {
            lkey: stag(O_IDX, O_KEY),
            ..wqe(0, 100, 4)
        },
        wqe(u64::from(R_LEN) - 2, 100, 4),
    ];
    for w in bad {
        let mut m = model();
        m.post_recv(0, w);
        let seg = send(Opcode::Send, 0, 1, 0, &[1, 2, 3], true);
        let ev = m.receive(0, &seg, true);
        assert_term(
            &ev,
            &seg,
            (1, 0, 0x00),
            NONE,
            Some(recv_cqe(WcStatus::LocProtErr, 0, 4)),
        );
    }
}

/// Row 18: a Read Request with the wrong QN 1 MSN is 1/2/0x03, M, D.
#[test]
fn row18_read_request_msn() {
    row(&rrq(2, 16, stag(W_IDX, W_KEY), W_BASE), (1, 2, 0x03), MD);
}

/// Row 19: more queued Read Requests than IRD is 0/2/0x07, M, D; `irq_done` frees a place.
#[test]
fn row19_ird_limit() {
    let mut m = model();
    let s = stag(W_IDX, W_KEY);
    assert!(matches!(
        m.receive(0, &rrq(1, 4, s, W_BASE), true)[..],
        [RxEvent::Irq(_)]
    ));
    assert!(matches!(
        m.receive(0, &rrq(2, 4, s, W_BASE), true)[..],
        [RxEvent::Irq(_)]
    ));
    m.irq_done(0);
    assert!(matches!(
        m.receive(0, &rrq(3, 4, s, W_BASE), true)[..],
        [RxEvent::Irq(_)]
    ));
    let seg = rrq(4, 4, s, W_BASE);
    assert_term(&m.receive(0, &seg, true), &seg, (0, 2, 0x07), MD, None);
}

/// Row 20: a Read Request's source check (REMOTE_READ), its codes and M, D, R with the Read
/// Request header as received (`rfc5040-rdmap.md` §5.2, §5.3 case 3, §5.4 rows 4-8).
#[test]
fn row20_read_request_protection() {
    let cases: [(u32, u64, u32, Triple); 7] = [
        (stag(40, 1), 0, 4, (0, 1, 0x00)),
        (stag(W_IDX, 0), W_BASE, 4, (0, 1, 0x00)),
        (stag(O_IDX, O_KEY), 0, 4, (0, 1, 0x03)),
        (stag(B_IDX, B_KEY), 0, 4, (0, 1, 0x03)),
        (stag(R_IDX, R_KEY), 0, 4, (0, 1, 0x02)),
        (stag(W_IDX, W_KEY), u64::MAX - 2, 4, (0, 1, 0x04)),
        (stag(W_IDX, W_KEY), W_BASE, W_LEN + 1, (0, 1, 0x01)),
    ];
    for (s, to, size, triple) in cases {
        row(&rrq(1, size, s, to), triple, MDR);
    }
    // Zero-length Read Requests are not checked (§2.2); their IRQ entry has src_addr 0.
    let mut m = model();
    assert_eq!(
        m.receive(0, &rrq(1, 0, stag(40, 1), 5), true),
        [RxEvent::Irq(Irq {
            qp: 0,
            sink_stag: 0xABCD_EF01,
            sink_to: 0x7777_0000_1234,
            size: 0,
            src_stag: stag(40, 1),
            src_to: 5,
            src_addr: 0,
        })]
    );
}

/// Row 21: Send with Invalidate of an invalid STag is 0/2/0x09, of a not-associated or
/// non-invalidatable one 0/1/0x09, M, D; the WQE completes GeneralErr (`rfc5040-rdmap.md`
/// §2.2 "Send types", §5.1 note on 0x09, §6.1 item 7).
#[test]
fn row21_invalidate() {
    let cases: [(Opcode, u32, Triple); 5] = [
        (Opcode::SendInvalidate, stag(I_IDX, I_KEY ^ 1), (0, 2, 0x09)),
        (Opcode::SendSeInvalidate, stag(63, 0), (0, 2, 0x09)),
        (Opcode::SendInvalidate, stag(O_IDX, O_KEY), (0, 1, 0x09)),
        (Opcode::SendInvalidate, stag(B_IDX, B_KEY), (0, 1, 0x09)),
        (Opcode::SendSeInvalidate, stag(N_IDX, N_KEY), (0, 1, 0x09)),
    ];
    for (op, inv, triple) in cases {
        let mut m = model();
        m.post_recv(0, wqe(0x100, 64, 2));
        let seg = send(op, inv, 1, 0, &[5; 3], true);
        let ev = m.receive(0, &seg, true);
        assert_term(
            &ev,
            &seg,
            triple,
            MD,
            Some(recv_cqe(WcStatus::GeneralErr, 0, 2)),
        );
    }
}

// ---------------------------------------------------------------- good paths

/// A three-segment Send: MO grows by P, MSN stays until L = 1 (`rfc5040-rdmap.md` §7.1,
/// `mpa-peer-connect.md` §6.3); placement at WQE TO + MO; one CQE with byte_len = MO + P; the
/// next Send has MSN 2.
#[test]
fn multi_segment_send() {
    let mut m = model();
    m.post_recv(0, wqe(0x40, 100, 11));
    m.post_recv(0, wqe(0x200, 8, 12));
    let (a, b, c) = (payload(10, 1), payload(20, 2), payload(5, 3));
    assert_eq!(
        m.receive(0, &send(Opcode::Send, 0, 1, 0, &a, false), true),
        [RxEvent::Place {
            qp: 0,
            addr: R_HOST + 0x40,
            bytes: a.clone()
        }]
    );
    assert_eq!(
        places(&m.receive(0, &send(Opcode::Send, 0, 1, 10, &b, false), true)),
        [(R_HOST + 0x4A, b.clone())]
    );
    let ev = m.receive(0, &send(Opcode::SendSe, 0, 1, 30, &c, true), true);
    assert_eq!(
        ev,
        [
            RxEvent::Place {
                qp: 0,
                addr: R_HOST + 0x5E,
                bytes: c.clone()
            },
            RxEvent::Cqe(Cqe {
                solicited: true,
                ..recv_cqe(WcStatus::Success, 35, 11)
            }),
        ]
    );
    let ev = m.receive(0, &send(Opcode::Send, 0, 2, 0, &[9; 8], true), true);
    assert_eq!(ev[1], RxEvent::Cqe(recv_cqe(WcStatus::Success, 8, 12)));
    assert!(m.rq(0).is_empty());
}

/// Send with Invalidate completes with the STag; a later Write to it fails 1/1/0x00
/// (row 21 "takes effect at the check").
#[test]
fn send_with_invalidate_then_write() {
    let mut m = model();
    let inv = stag(I_IDX, I_KEY);
    assert_eq!(
        places(&m.receive(0, &write(inv, 0x5000, &[1, 2], true), true)),
        [(0x30_0000, vec![1, 2])]
    );
    m.post_recv(0, wqe(0, 16, 1));
    let ev = m.receive(
        0,
        &send(Opcode::SendSeInvalidate, inv, 1, 0, &[7], true),
        true,
    );
    assert_eq!(
        ev[1],
        RxEvent::Cqe(Cqe {
            inv_stag: inv,
            with_inv: true,
            solicited: true,
            ..recv_cqe(WcStatus::Success, 1, 1)
        })
    );
    assert!(!m.stag_entry(I_IDX).unwrap().valid);
    let seg = write(inv, 0x5000, &[1, 2], true);
    assert_term(&m.receive(0, &seg, true), &seg, (1, 1, 0x00), MD, None);
}

/// Read Response: placed at the sink, one RdmaRead CQE per Read at L = 1 (`rfc5040-rdmap.md`
/// §2.2 "Read Response"); the ORQ count goes down.
#[test]
fn read_response_completion() {
    let mut m = model();
    m.orq_push(0);
    let s = stag(R_IDX, R_KEY);
    let (a, b) = (payload(12, 5), payload(3, 6));
    assert_eq!(
        places(&m.receive(0, &read_response(s, 0x10, &a, false), true)),
        [(R_HOST + 0x10, a)]
    );
    let ev = m.receive(0, &read_response(s, 0x1C, &b, true), true);
    assert_eq!(
        ev,
        [
            RxEvent::Place {
                qp: 0,
                addr: R_HOST + 0x1C,
                bytes: b
            },
            RxEvent::Cqe(read_cqe(WcStatus::Success)),
        ]
    );
    let seg = read_response(s, 0, &[1], true);
    assert_term(&m.receive(0, &seg, true), &seg, (0, 2, 0x06), NONE, None);
}

/// Read Requests queue as IRQ entries with the source host address; their MSNs count on QN 1
/// apart from the Sends' on QN 0.
#[test]
fn read_requests_queue() {
    let mut m = model();
    m.post_recv(0, wqe(0, 4, 0));
    assert_eq!(
        m.receive(0, &send(Opcode::Send, 0, 1, 0, &[1], true), true)
            .len(),
        2
    );
    let ev = m.receive(0, &rrq(1, 0x10, stag(W_IDX, W_KEY), W_BASE + 0x20), true);
    assert_eq!(
        ev,
        [RxEvent::Irq(Irq {
            qp: 0,
            sink_stag: 0xABCD_EF01,
            sink_to: 0x7777_0000_1234,
            size: 0x10,
            src_stag: stag(W_IDX, W_KEY),
            src_to: W_BASE + 0x20,
            src_addr: W_HOST + 0x20,
        })]
    );
}

/// Zero-length operations: a Write places nothing, a Send consumes a WQE with byte_len 0, a
/// Read Response completes its Read (`rfc5040-rdmap.md` §2.2).
#[test]
fn zero_length_operations() {
    let mut m = model();
    assert_eq!(
        m.receive(0, &write(stag(W_IDX, W_KEY), 0, &[], true), true),
        []
    );
    m.post_recv(
        0,
        RecvWqe {
            lkey: 0,
            ..wqe(0, 0, 3)
        },
    );
    assert_eq!(
        m.receive(0, &send(Opcode::Send, 0, 1, 0, &[], true), true),
        [RxEvent::Cqe(recv_cqe(WcStatus::Success, 0, 3))]
    );
    m.orq_push(0);
    assert_eq!(
        m.receive(0, &read_response(0, 0, &[], true), true),
        [RxEvent::Cqe(read_cqe(WcStatus::Success))]
    );
    assert!(!m.in_error(0));
}

/// A bad segment (CRC or marker error) still places when its checks pass but completes
/// nothing and commits no error of its own; the LLP error then terminates the QP with
/// 2/3/code and no headers (contract "A segment whose run ends with done_good = 0").
#[test]
fn bad_segment_and_llp_error() {
    let mut m = model();
    m.post_recv(0, wqe(0, 16, 0));
    let seg = send(Opcode::Send, 0, 1, 0, &[1, 2], true);
    assert_eq!(places(&m.receive(0, &seg, false)), [(R_HOST, vec![1, 2])]);
    assert_eq!(m.receive(0, &[0u8; 2], false), []);
    assert!(!m.in_error(0));
    let ev = m.llp_error(0, 0x02);
    assert_term(&ev, &[], (2, 3, 0x02), NONE, None);
    assert!(m.in_error(0));
    assert_eq!(m.llp_error(0, 0x03), []);
    assert_eq!(m.llp_error(2, 0x03), [], "disabled QP");
}

/// The golden Read Request Terminate of `rfc5040-rdmap.md` §1.8, byte for byte: SrcSTag
/// 0x55667788 is an invalid STag here (index outside the table), 0/1/0x00 with M, D, R.
#[test]
fn golden_read_request_terminate() {
    let rrq_bytes: [u8; 46] = [
        0x41, 0x41, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0x11, 0x22, 0x33, 0x44, 0, 0,
        0, 0, 0, 0, 0x20, 0, 0, 0, 0x10, 0, 0x55, 0x66, 0x77, 0x88, 0, 0, 0, 0, 0, 0, 0x80, 0,
    ];
    let golden: Vec<u8> = [
        &[0x41, 0x47, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0][..],
        &[0x01, 0x00, 0xe0, 0x00],
        &[0x00, 0x2e],
        &rrq_bytes[..],
    ]
    .concat();
    assert_eq!(golden.len(), 70);
    let mut m = model();
    let ev = m.receive(0, &rrq_bytes, true);
    let Some(RxEvent::Terminate { ulpdu, .. }) = ev.first() else {
        panic!("{ev:?}")
    };
    assert_eq!(ulpdu, &golden);
    let t = TerminateRepr::parse(&rnic_proto::rdmap::TerminatePacket::new_unchecked(
        &golden[18..],
    ))
    .unwrap();
    assert_eq!(t.hdrct(), MDR);
}

/// The StagCheck order of `hdl/src/ddp/mod.rs`: wrap before bounds, host address modulo 2^32.
#[test]
fn stag_check_semantics() {
    let e = MrEntry {
        valid: true,
        key: 9,
        pd: 1,
        access: access::REMOTE_WRITE,
        qp_bound: Some(2),
        remote_inv: false,
        base_to: u64::MAX - 0xF,
        len: 0x10,
        host_addr: 0xFFFF_FFF8,
    };
    let s = make_stag(0, 9);
    let chk = |to, len, pd, qp, rights| stag_check(Some(&e), s, to, len, pd, qp, rights);
    assert_eq!(
        chk(u64::MAX - 0xF, 0x10, 1, 2, access::REMOTE_WRITE),
        Ok(0xFFFF_FFF8)
    );
    assert_eq!(chk(u64::MAX - 0x7, 8, 1, 2, access::REMOTE_WRITE), Ok(0));
    assert_eq!(
        chk(u64::MAX - 0x7, 9, 1, 2, access::REMOTE_WRITE),
        Err(status::WRAP)
    );
    assert_eq!(
        chk(u64::MAX - 0x10, 1, 1, 2, access::REMOTE_WRITE),
        Err(status::BOUNDS)
    );
    assert_eq!(
        chk(u64::MAX, 1, 1, 2, access::REMOTE_READ),
        Err(status::ACCESS)
    );
    assert_eq!(
        chk(u64::MAX, 1, 1, 3, access::REMOTE_WRITE),
        Err(status::NOT_ASSOCIATED)
    );
    assert_eq!(
        chk(u64::MAX, 1, 2, 2, access::REMOTE_WRITE),
        Err(status::NOT_ASSOCIATED)
    );
    assert_eq!(
        stag_check(Some(&e), make_stag(0, 8), 0, 0, 1, 2, 0),
        Err(status::INVALID_STAG)
    );
    assert_eq!(
        stag_check(None, s, 0, 0, 1, 2, 0),
        Err(status::INVALID_STAG)
    );
}

/// Rows 1-8 agree with `Message::parse` + `Error::terminate_code` + `header_control` except
/// for the truncated segment (row 1), where the table says HdrCt none: the proto would send M,
/// D for 0/2/0xFF (`docs/decisions.md`), which cannot be built from a partial header.
#[test]
fn table_and_proto_disagree_only_on_truncation() {
    let e = Message::parse(
        &ddp::Packet::new_unchecked(&[0x41u8; 5][..]),
        Extensions::NONE,
    )
    .unwrap_err();
    let code = e.terminate_code().unwrap();
    assert_eq!(
        (code.layer(), code.error_type(), code.error_code()),
        (0, 2, 0xFF)
    );
    assert_eq!(code.header_control(false), MD);
    row(&[0x41u8; 5], (0, 2, 0xFF), NONE);
}

/// Thousands of mutants (`rnic_sim::mutate`): the model never panics, every Terminate it sends
/// parses back with `rnic_proto` as a one-segment Terminate whose length matches its HdrCt,
/// each QP sends at most one Terminate and nothing after it (contract "One error path"), and
/// every row family occurs.
#[test]
fn mutants_give_well_formed_single_terminates() {
    use rnic_sim::mutate::{Gen, Setup};
    use std::collections::BTreeSet;
    let mut triples = BTreeSet::new();
    for seed in 0..300u64 {
        let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(seed);
        let setup = Setup::standard(&mut rng);
        let mut gen = Gen::new(seed, setup.clone());
        let mut m = RxModel::new();
        setup.apply(&mut m);
        for q in 0..4 {
            let plan = gen.plan(q, 8, 0.4);
            for w in &plan.posts {
                m.post_recv(q, *w);
            }
            for _ in 0..plan.orq_pushes {
                m.orq_push(q);
            }
            let mut ended = false;
            for u in &plan.ulpdus {
                let ev = m.receive(q, u, true);
                if ended {
                    assert_eq!(ev, [], "events after the QP went to error");
                }
                for e in &ev {
                    match e {
                        RxEvent::Terminate { ulpdu, .. } => {
                            let msg = Message::parse(
                                &ddp::Packet::new_unchecked(&ulpdu[..]),
                                Extensions::NONE,
                            )
                            .expect("Terminate parses");
                            let Body::Terminate(t) = msg.body else {
                                panic!("not a Terminate")
                            };
                            assert_eq!(ulpdu.len(), 18 + t.buffer_len());
                            triples.insert((
                                t.code.layer(),
                                t.code.error_type(),
                                t.code.error_code(),
                            ));
                            ended = true;
                        }
                        RxEvent::Async(a) if a.kind != AsyncEventKind::TerminateSent as u8 => {
                            ended = true;
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    for t in [
        (0, 2, 0xFF),
        (1, 1, 0x04),
        (1, 2, 0x06),
        (1, 2, 0x01),
        (0, 2, 0x05),
        (0, 2, 0x06),
        (1, 2, 0x04),
        (1, 1, 0x00),
        (1, 1, 0x02),
        (0, 1, 0x02),
        (1, 1, 0x03),
        (1, 1, 0x01),
        (1, 2, 0x03),
        (1, 2, 0x05),
        (1, 0, 0x00),
        (0, 1, 0x00),
        (0, 1, 0x03),
        (0, 1, 0x01),
    ] {
        assert!(
            triples.contains(&t),
            "no mutant produced {t:x?}; got {triples:x?}"
        );
    }
}
