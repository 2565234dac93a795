//! Tests of RDMAP receive control (`hdl/src/rdmap/rx_control.rs`) on both simulation back
//! ends. The check table (rows 0-21) and the completion rules are those of `rnic_hdl::rdmap`
//! (`rfc5040-rdmap.md` §5.4 check order, §5.1 codes, §1.6 Terminate HdrCt, §2.2 completions;
//! `mpa-peer-connect.md` §6.4 DDP codes). The test bench (`rnic_sim::tb::rx_control`) plays the
//! parser, StagCheck, the RQ, RxPlace and TerminateTx with random back-pressure; every case
//! asserts exact values written here by hand, and the whole outcome against the software model
//! `rnic_sim::tb::rx_control::model`.
//!
//! The file covers both profiles: the default build (four QPs) and the Alchitry Cu profile
//! (`--features two-qps,no-markers`: two QPs, 24-bit host addresses and local lengths). The
//! directed cases send on QPs 0 and 1 only (their host addresses through `in_window`), the
//! random traffic on every QP (`CONNECTIONS`). One case alone needs four QPs,
//! `terminates_four_qps` (four QPs in four states at once): it is ignored in the two-QP
//! profile, where `terminates_and_llp` checks the same rules on two QPs.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_hdl::config::CONNECTIONS;
use rnic_hdl::rdmap::rx_control::RxControl;
use rnic_proto::ddp::{
    ErrorType as DdpEType, TaggedBufferCode as Tg, UntaggedBufferCode as Ut,
    LOCAL_CATASTROPHIC_CODE,
};
use rnic_proto::mpa::{LlpErrorCode, TERMINATE_ETYPE_LLP};
use rnic_proto::rdmap::terminate::{
    ErrorType as REType, Layer, RemoteOperationCode as Op, RemoteProtectionCode as Pr,
};
use rnic_proto::rdmap::Opcode;
use rnic_proto::verbs::{access, make_stag, AsyncEventKind, WcOpcode, WcStatus};
use rnic_sim::host_mem::{in_window, DMA_ADDR_MASK};
use rnic_sim::tb::rx_control::{
    model, Aev, Cqe, Env, Irq, Outcome, QpConfig, RxControlTb, Segment, StagEntry, Term, Timing,
    Verdict, Wqe,
};
use rnic_sim::testbench::{run_with_waveform_on_failure, BackendKind};
use std::sync::Mutex;

// ---- The environment of the directed cases.

const PD0: u8 = 1;
/// Write / Read Response sink of QP 0 (remote write, local write, remote invalidate).
const W0: u32 = make_stag(1, 0x11);
const W0_BASE: u64 = 0x1000;
const W0_HOST: u32 = in_window(0x8000_0000);
/// Read source of QP 0 (remote read only), with a TO above 2^32 (below 2^33: RxControl keeps
/// TO bits 63..33 as flags, exact only for the STag table's 32-bit base TOs).
const R0: u32 = make_stag(2, 0x22);
const R0_BASE: u64 = 0x1_2000_0000;
const R0_HOST: u32 = in_window(0x9000_0000);
/// Receive buffer of QP 0 (local write), across a 2^32 boundary of TO.
const L0: u32 = make_stag(3, 0x33);
const L0_BASE: u64 = 0x1_FFFF_FF00;
const L0_HOST: u32 = in_window(0xA000_0000);
/// Remote-write region that cannot be invalidated.
const NI: u32 = make_stag(4, 0x44);
/// A region of another PD.
const OTHER: u32 = make_stag(5, 0x55);
/// A region at the top of the 64-bit TO space.
const TOP: u32 = make_stag(6, 0x66);
const TOP_BASE: u64 = 0xFFFF_FFFF_FFFF_F000;
/// Never registered.
const BAD: u32 = make_stag(9, 0x99);

/// QP 0 (PD 1, IRD 2, four receive WQEs) and QP 1 (PD 2, IRD 2) and, in a build of four QPs,
/// QP 2 (PD 3, IRD 1) and a disabled QP 3: only the QPs below `CONNECTIONS` (the two-QP profile
/// has QPs 0 and 1 only).
fn env() -> Env {
    let cfg = |pd, ird| QpConfig {
        enable: true,
        pd,
        ird,
    };
    let mut e = Env::new(&[
        (0, cfg(PD0, 2)),
        (1, cfg(2, 2)),
        (2, cfg(3, 1)),
        (
            3,
            QpConfig {
                enable: false,
                pd: 4,
                ird: 2,
            },
        ),
    ]);
    e.qps.retain(|&(qp, _)| qp < CONNECTIONS);
    let entry = |stag, pd, access, remote_inv, base_to, len, host_addr| StagEntry {
        stag,
        pd,
        access,
        qp: None,
        remote_inv,
        base_to,
        len,
        host_addr,
    };
    e.stags.entries = vec![
        entry(
            W0,
            PD0,
            access::REMOTE_WRITE | access::LOCAL_WRITE,
            true,
            W0_BASE,
            0x1000,
            W0_HOST,
        ),
        entry(R0, PD0, access::REMOTE_READ, false, R0_BASE, 0x100, R0_HOST),
        entry(L0, PD0, access::LOCAL_WRITE, true, L0_BASE, 0x1000, L0_HOST),
        entry(NI, PD0, access::REMOTE_WRITE, false, 0, 0x1000, 0x100),
        entry(OTHER, 2, access::ALL, true, 0, 0x1000, 0x200),
        entry(TOP, PD0, access::ALL, true, TOP_BASE, 0x1000, 0x300),
    ];
    e.rqs[0] = (0..4)
        .map(|i| Wqe {
            // TO + MO crosses 2^32 at MO 0x20.
            to: L0_BASE + 0xE0,
            len: 100,
            lkey: L0,
            index: 7 + i,
        })
        .collect();
    e
}

fn run(kind: BackendKind, name: &str, segs: &[Segment], env: &Env, seed: u64) -> Outcome {
    let out = run_hw(kind, name, segs, env, seed);
    assert_eq!(
        out,
        model::expect(segs, env),
        "{name} on {}: hardware and model differ",
        kind.name()
    );
    out
}

/// The hardware's outcome only (for runs the model does not cover: LLP errors, bad runs).
fn run_hw(kind: BackendKind, name: &str, segs: &[Segment], env: &Env, seed: u64) -> Outcome {
    run_hw_timed(kind, name, segs, env, seed).0
}

/// [`run_hw`] with the cycles of the pops and of the Sends' last dones.
fn run_hw_timed(
    kind: BackendKind,
    name: &str,
    segs: &[Segment],
    env: &Env,
    seed: u64,
) -> (Outcome, Timing) {
    let result = Mutex::new(None);
    run_with_waveform_on_failure(
        name,
        || kind.build(RxControl::default()),
        |sim| {
            let tb = RxControlTb::new(sim).expect("ports");
            let mut rng = StdRng::seed_from_u64(seed);
            let out = tb.run_timed(sim, segs, env, &mut rng);
            *result.lock().unwrap() = Some(out);
        },
    );
    result.into_inner().unwrap().expect("outcome")
}

fn sent(t: &Term) -> Aev {
    Aev {
        kind: AsyncEventKind::TerminateSent as u8,
        layer: t.layer,
        etype: t.etype,
        code: t.code,
    }
}

/// Layer/EType/Code, HdrCt (0 none, 2 MD, 3 MDR), slot, seglen.
fn term(layer: Layer, etype: u8, code: u8, hdr: u8, slot: u8, seglen: u16) -> Term {
    Term {
        slot,
        layer: layer as u8,
        etype,
        code,
        m: hdr >= 2,
        d: hdr >= 2,
        r: hdr == 3,
        seglen,
    }
}

fn recv_cqe(status: WcStatus, byte_len: u32, index: u16) -> Cqe {
    Cqe {
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
        opcode: WcOpcode::RdmaRead as u8,
        ..recv_cqe(status, 0, 0)
    }
}

fn write(conn: usize, stag: u32, to: u64, payload: u16) -> Segment {
    Segment::tagged(conn, Opcode::RdmaWrite, true, stag, to, payload)
}

fn send(msn: u32, mo: u32, last: bool, payload: u16) -> Segment {
    Segment::send(0, Opcode::Send, last, 0, msn, mo, payload)
}

fn rrq(conn: usize, msn: u32, size: u32, src: u32, src_to: u64) -> Segment {
    Segment::read_request(
        conn,
        msn,
        0xABCD_0001,
        0x1122_3344_5566_7788,
        size,
        src,
        src_to,
    )
}

/// One case of the check table: segments on QP 0 (the last one fails), its Terminate, and the
/// error CQE if the row completes a WQE or a Read.
struct Case {
    row: &'static str,
    segs: Vec<Segment>,
    env: Env,
    term: Term,
    cqe: Option<Cqe>,
}

fn cases() -> Vec<Case> {
    let oper = REType::RemoteOperation as u8;
    let prot = REType::RemoteProtection as u8;
    let tg = DdpEType::TaggedBuffer as u8;
    let ut = DdpEType::UntaggedBuffer as u8;
    let mut v = Vec::new();
    let mut case = |row, segs: Vec<Segment>, env: Env, term: Term, cqe| {
        v.push(Case {
            row,
            segs,
            env,
            term,
            cqe,
        })
    };
    let ok_write = write(0, W0, W0_BASE, 8);
    // Row 1: shorter than the header (slot 1: the second segment of connection 0).
    let mut s = write(0, W0, W0_BASE, 0);
    s.len = 10;
    case(
        "1 L < H",
        vec![ok_write.clone(), s],
        env(),
        term(Layer::Rdmap, oper, Op::Unspecified as u8, 0, 1, 10),
        None,
    );
    // Row 2.
    let mut s = write(0, W0, W0_BASE, 4);
    s.header[0] = (s.header[0] & !3) | 2;
    case(
        "2 DV tagged",
        vec![s],
        env(),
        term(Layer::Ddp, tg, Tg::InvalidDdpVersion as u8, 0, 0, 18),
        None,
    );
    let mut s = send(1, 0, true, 4);
    s.header[0] &= !3;
    case(
        "2 DV untagged",
        vec![s],
        env(),
        term(Layer::Ddp, ut, Ut::InvalidDdpVersion as u8, 0, 0, 22),
        None,
    );
    // Row 3.
    let s = Segment::untagged(0, Opcode::Send, true, 0, 3, 1, 0, 0);
    case(
        "3 QN",
        vec![s],
        env(),
        term(Layer::Ddp, ut, Ut::InvalidQn as u8, 2, 0, 18),
        None,
    );
    // Row 4.
    let mut s = write(0, W0, W0_BASE, 4);
    s.header[1] &= 0x3F;
    case(
        "4 RV",
        vec![s],
        env(),
        term(Layer::Rdmap, oper, Op::InvalidRdmapVersion as u8, 0, 0, 18),
        None,
    );
    // Row 5.
    let mut s = send(1, 0, true, 0);
    s.header[1] = (s.header[1] & 0xF0) | 0x8;
    case(
        "5 opcode",
        vec![s],
        env(),
        term(Layer::Rdmap, oper, Op::UnexpectedOpcode as u8, 0, 0, 18),
        None,
    );
    // Row 6: a Send on QN 1, a Write untagged.
    let s = Segment::untagged(0, Opcode::Send, true, 0, 1, 1, 0, 0);
    case(
        "6 Send QN",
        vec![s],
        env(),
        term(Layer::Rdmap, oper, Op::UnexpectedOpcode as u8, 0, 0, 18),
        None,
    );
    let s = Segment::untagged(0, Opcode::RdmaWrite, true, 0, 0, 1, 0, 0);
    case(
        "6 Write untagged",
        vec![s],
        env(),
        term(Layer::Rdmap, oper, Op::UnexpectedOpcode as u8, 0, 0, 18),
        None,
    );
    // Row 7: a Read Request with L = 0; with MO != 0.
    let mut s = rrq(0, 1, 8, R0, R0_BASE);
    s.header[0] &= !rnic_proto::ddp::L_FLAG;
    case(
        "7 RRQ L",
        vec![s],
        env(),
        term(Layer::Ddp, ut, Ut::InvalidMo as u8, 2, 0, 46),
        None,
    );
    let mut s = rrq(0, 1, 8, R0, R0_BASE);
    s.header[17] = 4;
    case(
        "7 RRQ MO",
        vec![s],
        env(),
        term(Layer::Ddp, ut, Ut::InvalidMo as u8, 2, 0, 46),
        None,
    );
    // Row 8.
    let mut s = rrq(0, 1, 8, R0, R0_BASE);
    s.len = 50;
    case(
        "8 RRQ length",
        vec![s],
        env(),
        term(Layer::Rdmap, oper, Op::Unspecified as u8, 2, 0, 50),
        None,
    );
    // Row 10: every StagCheck status.
    for (row, stag, to, code) in [
        (
            "10 invalid",
            BAD,
            W0_BASE,
            (Layer::Ddp, tg, Tg::InvalidStag as u8),
        ),
        (
            "10 not associated",
            OTHER,
            0,
            (Layer::Ddp, tg, Tg::StagNotAssociated as u8),
        ),
        (
            "10 access",
            R0,
            R0_BASE,
            (Layer::Rdmap, prot, Pr::AccessRights as u8),
        ),
        (
            "10 wrap",
            TOP,
            0xFFFF_FFFF_FFFF_FFFC,
            (Layer::Ddp, tg, Tg::ToWrap as u8),
        ),
        (
            "10 bounds",
            W0,
            W0_BASE + 0xFFC,
            (Layer::Ddp, tg, Tg::BaseOrBounds as u8),
        ),
    ] {
        case(
            row,
            vec![write(0, stag, to, 8)],
            env(),
            term(code.0, code.1, code.2, 2, 0, 22),
            None,
        );
    }
    // Row 11: no Read outstanding.
    let s = Segment::tagged(0, Opcode::RdmaReadResponse, true, W0, W0_BASE, 8);
    case(
        "11 no read",
        vec![s.clone()],
        env(),
        term(Layer::Rdmap, oper, Op::UnexpectedOpcode as u8, 0, 0, 22),
        None,
    );
    // Row 12: the sink check fails; the Read completes in error.
    let mut e = env();
    e.orq[0] = 1;
    let s = Segment::tagged(0, Opcode::RdmaReadResponse, true, W0, W0_BASE + 0xFFF, 8);
    case(
        "12 bounds",
        vec![s],
        e,
        term(Layer::Ddp, tg, Tg::BaseOrBounds as u8, 2, 0, 22),
        Some(read_cqe(WcStatus::LocProtErr)),
    );
    // Rows 13-15.
    case(
        "13 MSN",
        vec![send(2, 0, true, 4)],
        env(),
        term(Layer::Ddp, ut, Ut::MsnRange as u8, 2, 0, 22),
        None,
    );
    case(
        "14 MO",
        vec![send(1, 4, true, 4)],
        env(),
        term(Layer::Ddp, ut, Ut::InvalidMo as u8, 2, 0, 22),
        None,
    );
    let mut e = env();
    e.rqs[0].clear();
    case(
        "15 no WQE",
        vec![send(1, 0, true, 4)],
        e,
        term(Layer::Ddp, ut, Ut::MsnNoBuffer as u8, 2, 0, 22),
        None,
    );
    // Row 16: 60 + 41 > 100.
    case(
        "16 too long",
        vec![send(1, 0, false, 60), send(1, 60, true, 41)],
        env(),
        term(Layer::Ddp, ut, Ut::MessageTooLong as u8, 2, 1, 59),
        Some(recv_cqe(WcStatus::LocLenErr, 0, 7)),
    );
    // Row 17: the WQE's lkey is of another PD.
    let mut e = env();
    e.rqs[0][0].lkey = OTHER;
    case(
        "17 lkey",
        vec![send(1, 0, true, 4)],
        e,
        term(
            Layer::Ddp,
            DdpEType::LocalCatastrophic as u8,
            LOCAL_CATASTROPHIC_CODE,
            0,
            0,
            22,
        ),
        Some(recv_cqe(WcStatus::LocProtErr, 0, 7)),
    );
    // Rows 18-20.
    case(
        "18 MSN",
        vec![rrq(0, 2, 8, R0, R0_BASE)],
        env(),
        term(Layer::Ddp, ut, Ut::MsnRange as u8, 2, 0, 46),
        None,
    );
    let mut e = env();
    e.qps[0].1.ird = 1;
    case(
        "19 IRD",
        vec![rrq(0, 1, 8, R0, R0_BASE), rrq(0, 2, 8, R0, R0_BASE)],
        e,
        term(Layer::Rdmap, oper, Op::CatastrophicStream as u8, 2, 1, 46),
        None,
    );
    for (row, stag, to, code) in [
        ("20 invalid", BAD, R0_BASE, Pr::InvalidStag),
        ("20 not associated", OTHER, 0, Pr::StagNotAssociated),
        ("20 access", W0, W0_BASE, Pr::AccessRights),
        ("20 wrap", TOP, 0xFFFF_FFFF_FFFF_FFFC, Pr::ToWrap),
        ("20 bounds", R0, R0_BASE + 0xFC, Pr::BaseOrBounds),
    ] {
        case(
            row,
            vec![rrq(0, 1, 8, stag, to)],
            env(),
            term(Layer::Rdmap, prot, code as u8, 3, 0, 46),
            None,
        );
    }
    // Row 21.
    let s = Segment::send(0, Opcode::SendInvalidate, true, BAD, 1, 0, 4);
    case(
        "21 invalid",
        vec![s],
        env(),
        term(
            Layer::Rdmap,
            oper,
            Op::StagCannotBeInvalidated as u8,
            2,
            0,
            22,
        ),
        Some(recv_cqe(WcStatus::GeneralErr, 0, 7)),
    );
    let s = Segment::send(0, Opcode::SendSeInvalidate, true, NI, 1, 0, 4);
    case(
        "21 not invalidatable",
        vec![s],
        env(),
        term(
            Layer::Rdmap,
            prot,
            Pr::StagCannotBeInvalidated as u8,
            2,
            0,
            22,
        ),
        Some(recv_cqe(WcStatus::GeneralErr, 0, 7)),
    );
    let s = Segment::send(0, Opcode::SendInvalidate, true, OTHER, 1, 0, 0);
    case(
        "21 not associated",
        vec![s],
        env(),
        term(
            Layer::Rdmap,
            prot,
            Pr::StagCannotBeInvalidated as u8,
            2,
            0,
            18,
        ),
        Some(recv_cqe(WcStatus::GeneralErr, 0, 7)),
    );
    v
}

fn check_table(kind: BackendKind) {
    for (n, c) in cases().into_iter().enumerate() {
        let out = run(
            kind,
            &format!("rx_control_row_{n}"),
            &c.segs,
            &c.env,
            n as u64,
        );
        let last = c.segs.len() - 1;
        assert_eq!(
            out.terms[0],
            vec![c.term],
            "row {} on {}",
            c.row,
            kind.name()
        );
        assert_eq!(out.aevs[0], vec![sent(&c.term)], "row {}", c.row);
        let want_cqes: Vec<Cqe> = c.cqe.into_iter().collect();
        assert_eq!(out.cqes[0], want_cqes, "row {}", c.row);
        assert!(
            !out.verdicts[last].place,
            "row {}: the failing segment is not placed",
            c.row
        );
        assert_eq!(out.verdicts.len(), c.segs.len(), "row {}", c.row);
        for q in 1..CONNECTIONS {
            assert!(
                out.terms[q].is_empty() && out.aevs[q].is_empty(),
                "row {}",
                c.row
            );
        }
    }
}

#[test]
fn check_table_rust_hdl() {
    check_table(BackendKind::RustHdl);
}

#[test]
fn check_table_verilator() {
    check_table(BackendKind::Verilator);
}

// ---- Good paths (`rnic_hdl::rdmap` completion rules, `rfc5040-rdmap.md` §2.2).

/// Read Response sink of QP 1 (PD 2, bound to QP 1) and its Read source.
const RR1: u32 = make_stag(7, 0x77);
const RR1_HOST: u32 = in_window(0xB000_0000);
const SR1: u32 = make_stag(8, 0x88);
const SR1_HOST: u32 = in_window(0xC000_0000);

/// [`env`] with QP 1 also a Read requester (one Read outstanding into RR1) and a Read responder
/// (SR1): QP 1 interleaves Sends, a Read Response and Read Requests, beside QP 0's traffic.
fn good_env() -> Env {
    let mut e = env();
    e.orq[1] = 1;
    let entry = |stag, access, base_to, host_addr| StagEntry {
        stag,
        pd: 2,
        access,
        qp: Some(1),
        remote_inv: false,
        base_to,
        len: 0x1000,
        host_addr,
    };
    e.stags
        .entries
        .push(entry(RR1, access::LOCAL_WRITE, 0x5000, RR1_HOST));
    e.stags
        .entries
        .push(entry(SR1, access::REMOTE_READ, 0x1_7000_0000, SR1_HOST));
    // QP 1 receives into the region of PD 2.
    e.rqs[1] = (0..2)
        .map(|i| Wqe {
            to: 0x100,
            len: 0x100,
            lkey: OTHER,
            index: 40 + i,
        })
        .collect();
    e
}

fn good_segments() -> Vec<Segment> {
    vec![
        // QP 0: Write, a three-segment Send, a Send with Invalidate of W0. QP 1, between them:
        // a two-segment Read Response, a zero-length Send SE, a Send SE with Invalidate of
        // OTHER, two Read Requests.
        write(0, W0, W0_BASE + 0x10, 100),
        send(1, 0, false, 40),
        Segment::tagged(1, Opcode::RdmaReadResponse, false, RR1, 0x5000, 32),
        send(1, 40, false, 40),
        Segment::tagged(1, Opcode::RdmaReadResponse, true, RR1, 0x5020, 16),
        send(1, 80, true, 20),
        Segment::send(1, Opcode::SendSe, true, 0, 1, 0, 0),
        Segment::send(0, Opcode::SendInvalidate, true, W0, 2, 0, 8),
        Segment::send(1, Opcode::SendSeInvalidate, true, OTHER, 2, 0, 16),
        rrq(1, 1, 0x20, SR1, 0x1_7000_0010),
        // Zero-length: no check, even with an invalid STag.
        write(0, BAD, 0, 0),
        rrq(1, 2, 0, BAD, 0),
        // W0 was invalidated by the Send with Invalidate: this Write fails (row 10).
        write(0, W0, W0_BASE, 4),
    ]
}

/// `qp0` and `qp1` at QPs 0 and 1, 0 at the others.
fn per_qp(qp0: usize, qp1: usize) -> Vec<usize> {
    let mut v = vec![0; CONNECTIONS];
    v[0] = qp0;
    v[1] = qp1;
    v
}

fn good_paths(kind: BackendKind) {
    let segs = good_segments();
    let e = good_env();
    let out = run(kind, "rx_control_good", &segs, &e, 7);
    let placed = |addr| Verdict {
        conn: 0,
        place: true,
        addr,
    };
    let l0 = L0_HOST + 0xE0;
    assert_eq!(out.verdicts[0], placed(W0_HOST + 0x10));
    assert_eq!(out.verdicts[1], placed(l0));
    assert_eq!(out.verdicts[3], placed(l0 + 40));
    assert_eq!(out.verdicts[5], placed(l0 + 80));
    assert_eq!(out.verdicts[7], placed(l0));
    assert_eq!(
        out.verdicts[2],
        Verdict {
            conn: 1,
            place: true,
            addr: RR1_HOST
        }
    );
    assert_eq!(
        out.verdicts[4],
        Verdict {
            conn: 1,
            place: true,
            addr: RR1_HOST + 0x20
        }
    );
    assert!(!out.verdicts[6].place && !out.verdicts[10].place && !out.verdicts[11].place);
    assert!(!out.verdicts[12].place);
    // The lkey checks: WQE TO + MO across 2^32, the payload length.
    let lkey_tos: Vec<(u64, u32)> = out
        .checks
        .iter()
        .filter(|c| c.stag == L0)
        .map(|c| (c.to, c.len))
        .collect();
    assert_eq!(
        lkey_tos,
        vec![
            (L0_BASE + 0xE0, 40),
            (L0_BASE + 0xE0 + 40, 40),
            (L0_BASE + 0xE0 + 80, 20),
            (L0_BASE + 0xE0, 8)
        ]
    );
    assert_eq!(L0_BASE + 0xE0 + 40, 0x2_0000_0008);
    assert!(
        out.checks.iter().all(|c| c.stag != BAD),
        "zero-length: no check"
    );
    let inv: Vec<u32> = out
        .checks
        .iter()
        .filter(|c| c.invalidate)
        .map(|c| c.stag)
        .collect();
    assert_eq!(inv, vec![W0, OTHER]);
    let recv = |byte_len, index, inv_stag, with_inv, solicited| Cqe {
        opcode: WcOpcode::Recv as u8,
        status: WcStatus::Success as u8,
        byte_len,
        index,
        inv_stag,
        with_inv,
        solicited,
    };
    assert_eq!(
        out.cqes[0],
        vec![recv(100, 7, 0, false, false), recv(8, 8, W0, true, false)]
    );
    assert_eq!(
        out.cqes[1],
        vec![
            read_cqe(WcStatus::Success),
            recv(0, 40, 0, false, true),
            recv(16, 41, OTHER, true, true)
        ]
    );
    assert_eq!(out.pops, per_qp(2, 2));
    let irq = |size, src_addr| Irq {
        sink_stag: 0xABCD_0001,
        sink_to: 0x1122_3344_5566_7788,
        size,
        src_addr,
    };
    assert!(out.irqs[0].is_empty());
    assert_eq!(out.irqs[1], vec![irq(0x20, SR1_HOST + 0x10), irq(0, 0)]);
    let t = term(
        Layer::Ddp,
        DdpEType::TaggedBuffer as u8,
        Tg::InvalidStag as u8,
        2,
        0,
        18,
    );
    assert_eq!(out.terms[0], vec![t]);
    assert_eq!(out.aevs[0], vec![sent(&t)]);
    assert!(out.terms[1..].iter().all(Vec::is_empty));
    assert!(out.aevs[1..].iter().all(Vec::is_empty));
}

#[test]
fn good_paths_rust_hdl() {
    good_paths(BackendKind::RustHdl);
}

#[test]
fn good_paths_verilator() {
    good_paths(BackendKind::Verilator);
}

// ---- The one error path.

fn first_error_only(kind: BackendKind) {
    let other = |to| write(1, OTHER, to, 8);
    let segs = vec![
        write(0, BAD, 0, 8),
        other(0x10),
        write(0, BAD, 0, 8),
        other(0x20),
        write(0, W0, W0_BASE, 8),
        send(1, 0, true, 4),
        other(0x30),
    ];
    let out = run(kind, "rx_control_first_error", &segs, &env(), 11);
    let t = term(
        Layer::Ddp,
        DdpEType::TaggedBuffer as u8,
        Tg::InvalidStag as u8,
        2,
        0,
        22,
    );
    assert_eq!(out.terms[0], vec![t], "one Terminate only");
    assert_eq!(out.aevs[0], vec![sent(&t)]);
    assert!(out.cqes[0].is_empty());
    assert_eq!(out.pops[0], 0);
    for i in [0, 2, 4, 5] {
        assert!(!out.verdicts[i].place, "QP 0 segment {i} dropped");
    }
    for (i, off) in [(1, 0x10), (3, 0x20), (6, 0x30)] {
        assert_eq!(
            out.verdicts[i],
            Verdict {
                conn: 1,
                place: true,
                addr: 0x200 + off
            },
            "QP 1 untouched"
        );
    }
    assert!(out.terms[1].is_empty() && out.aevs[1].is_empty());
    // Only the first failing Write and QP 1's Writes were checked.
    assert_eq!(out.checks.len(), 4);
}

#[test]
fn first_error_only_rust_hdl() {
    first_error_only(BackendKind::RustHdl);
}

#[test]
fn first_error_only_verilator() {
    first_error_only(BackendKind::Verilator);
}

/// The Terminate an LLP error sends (no header copied).
fn llp_term(code: u8) -> Term {
    Term {
        slot: 0,
        layer: Layer::Llp as u8,
        etype: TERMINATE_ETYPE_LLP,
        code,
        m: false,
        d: false,
        r: false,
        seglen: 0,
    }
}

fn terminate_received() -> Aev {
    Aev {
        kind: AsyncEventKind::TerminateReceived as u8,
        layer: 1,
        etype: 2,
        code: 5,
    }
}

fn bad_terminate_received() -> Aev {
    Aev {
        kind: AsyncEventKind::BadTerminateReceived as u8,
        layer: 0,
        etype: 0,
        code: 0,
    }
}

/// A Terminate of 20 octets (shorter than its header): a bad Terminate received.
fn bad_terminate(conn: usize) -> Segment {
    let mut s = Segment::terminate(conn, 1, 0x12, 0x05, 0);
    s.len = 20;
    s
}

/// Row 9 (received Terminates), a run ending with `done_good = 0` and an LLP error, and a
/// disabled QP (row 0), on QPs 0 and 1 (every build): a Terminate received on QP 1 while QP 0
/// ends with an LLP error; then a bad Terminate received on QP 0 while QP 1 is disabled.
fn terminates_and_llp(kind: BackendKind) {
    let mut bad_send = send(1, 0, true, 4);
    bad_send.good = false;
    let segs = vec![
        Segment::terminate(1, 1, 0x12, 0x05, 10),
        bad_send,
        write(1, OTHER, 0, 8),
    ];
    let mut e = env();
    let code = LlpErrorCode::CrcError.code();
    // Once the Send is offered.
    e.llp_errors = vec![(0, code, 2)];
    let out = run_hw(kind, "rx_control_terminates", &segs, &e, 5);
    assert_eq!(out.aevs[1], vec![terminate_received()]);
    assert!(out.terms[1].is_empty(), "a Terminate is never answered");
    assert!(out.cqes[1].is_empty());
    let llp = llp_term(code);
    assert_eq!(out.terms[0], vec![llp]);
    assert_eq!(out.aevs[0], vec![sent(&llp)]);
    assert!(out.cqes[0].is_empty(), "done_good = 0: no completion");
    // The Send's WQE is popped if it was checked before the LLP error (`crc_after_check`).
    assert!(out.pops[0] <= 1);
    // The Write after QP 1's Terminate (placed in `first_error_only` without it) is dropped.
    assert!(out.verdicts.iter().all(|v| !v.place), "{:?}", out.verdicts);
    // The LLP error may come before or after the Send's check; nothing else is checked.
    assert!(out.checks.iter().all(|c| c.stag == L0), "{:?}", out.checks);

    // A Write that passes its checks on QP 0 and on QP 1 (`first_error_only`), after a bad
    // Terminate on QP 0 and on a disabled QP 1: neither is checked or placed, and the disabled
    // QP reports nothing. No LLP error: the model covers this run.
    let segs = vec![
        bad_terminate(0),
        write(1, OTHER, 0x10, 8),
        write(0, W0, W0_BASE, 8),
    ];
    let mut e = env();
    e.qps[1].1.enable = false;
    let out = run(kind, "rx_control_bad_terminate", &segs, &e, 6);
    assert_eq!(out.aevs[0], vec![bad_terminate_received()]);
    assert!(out.terms[0].is_empty(), "a Terminate is never answered");
    assert!(out.cqes[0].is_empty());
    assert!(
        out.aevs[1].is_empty() && out.terms[1].is_empty() && out.cqes[1].is_empty(),
        "disabled QP 1"
    );
    assert!(out.verdicts.iter().all(|v| !v.place), "{:?}", out.verdicts);
    assert!(out.checks.is_empty(), "{:?}", out.checks);
}

#[test]
fn terminates_and_llp_rust_hdl() {
    terminates_and_llp(BackendKind::RustHdl);
}

#[test]
fn terminates_and_llp_verilator() {
    terminates_and_llp(BackendKind::Verilator);
}

/// [`terminates_and_llp`]'s states at once, each on its own QP of four: a Terminate received on
/// QP 1, a bad one on QP 2, an LLP error on QP 0 (its Send ends with `done_good = 0`), QP 3
/// disabled, with a Write after each: isolation among four QPs. Builds of four QPs only (the
/// two-QP profile checks the same rules on its two QPs in `terminates_and_llp`).
fn terminates_four_qps(kind: BackendKind) {
    let mut bad_send = send(1, 0, true, 4);
    bad_send.good = false;
    let segs = vec![
        Segment::terminate(1, 1, 0x12, 0x05, 10),
        bad_terminate(2),
        bad_send,
        write(1, OTHER, 0, 8),
        write(3, W0, W0_BASE, 8),
        write(2, W0, W0_BASE, 8),
    ];
    let mut e = env();
    assert_eq!(e.qps.len(), 4, "four QPs");
    let code = LlpErrorCode::CrcError.code();
    e.llp_errors = vec![(0, code, 3)];
    let out = run_hw(kind, "rx_control_terminates_four_qps", &segs, &e, 5);
    assert_eq!(out.aevs[1], vec![terminate_received()]);
    assert_eq!(out.aevs[2], vec![bad_terminate_received()]);
    assert!(
        out.terms[1].is_empty() && out.terms[2].is_empty(),
        "a Terminate is never answered"
    );
    let llp = llp_term(code);
    assert_eq!(out.terms[0], vec![llp]);
    assert_eq!(out.aevs[0], vec![sent(&llp)]);
    assert!(out.cqes[0].is_empty(), "done_good = 0: no completion");
    // The Send's WQE is popped if it was checked before the LLP error (`crc_after_check`).
    assert!(out.pops[0] <= 1);
    assert!(out.aevs[3].is_empty() && out.terms[3].is_empty());
    assert!(out.verdicts.iter().all(|v| !v.place), "{:?}", out.verdicts);
    // The LLP error may come before or after the Send's check; nothing else is checked.
    assert!(out.checks.iter().all(|c| c.stag == L0), "{:?}", out.checks);
}

#[test]
#[cfg_attr(
    feature = "two-qps",
    ignore = "four QPs: the two-QP profile has two (terminates_and_llp covers its rules)"
)]
fn terminates_four_qps_rust_hdl() {
    terminates_four_qps(BackendKind::RustHdl);
}

#[test]
#[cfg_attr(
    feature = "two-qps",
    ignore = "four QPs: the two-QP profile has two (terminates_and_llp covers its rules)"
)]
fn terminates_four_qps_verilator() {
    terminates_four_qps(BackendKind::Verilator);
}

// ---- When the receive WQE is popped.

/// A Send's WQE is popped when its L = 1 segment passes its checks, before that segment's
/// `done_*` (the done writes only the CQE): the RQ then fetches the next head WQE while the
/// segment is placed. Each QP's k-th pop is taken before the done of its k-th Send L = 1, and
/// the completions are unchanged (the model's).
fn pop_at_check(kind: BackendKind) {
    let segs = good_segments();
    let e = good_env();
    for seed in [7, 8, 9] {
        let (out, t) = run_hw_timed(kind, "rx_control_pop_at_check", &segs, &e, seed);
        assert_eq!(out, model::expect(&segs, &e), "seed {seed}");
        assert_eq!(out.pops, per_qp(2, 2));
        for qp in 0..2 {
            assert_eq!(t.pops[qp].len(), t.send_last_dones[qp].len(), "QP {qp}");
            for (k, (p, d)) in t.pops[qp].iter().zip(&t.send_last_dones[qp]).enumerate() {
                assert!(
                    p < d,
                    "seed {seed} QP {qp} Send {k}: popped in cycle {p}, done in cycle {d}"
                );
            }
        }
    }
}

#[test]
fn pop_at_check_rust_hdl() {
    pop_at_check(BackendKind::RustHdl);
}

#[test]
fn pop_at_check_verilator() {
    pop_at_check(BackendKind::Verilator);
}

/// A Send L = 1 that passes its checks and then ends with `done_good = 0` (a CRC error): its
/// WQE was popped at the check and gets no CQE; the LLP error takes the QP to error (the driver
/// never reuses an RQ slot before its CQE and does not read the hardware's consumer index).
/// The LLP error comes once the next job (QP 1's) was offered, so the Send was taken before
/// it and is checked first (the error waits for the QP's segments in flight).
fn crc_after_check(kind: BackendKind) {
    let mut bad_send = send(1, 0, true, 4);
    bad_send.good = false;
    let segs = vec![bad_send, write(1, OTHER, 0, 8)];
    let mut e = env();
    let code = LlpErrorCode::CrcError.code();
    e.llp_errors = vec![(0, code, 2)];
    for seed in [1, 2, 3] {
        let (out, t) = run_hw_timed(kind, "rx_control_crc_after_check", &segs, &e, seed);
        assert_eq!(
            out.verdicts[0],
            Verdict {
                conn: 0,
                place: true,
                addr: L0_HOST + 0xE0
            },
            "seed {seed}: the Send passed its checks"
        );
        assert_eq!(out.pops[0], 1, "seed {seed}: popped at the check");
        assert!(t.pops[0][0] < t.send_last_dones[0][0], "seed {seed}");
        assert!(out.cqes[0].is_empty(), "seed {seed}: done_good = 0, no CQE");
        let llp = llp_term(code);
        assert_eq!(out.terms[0], vec![llp], "seed {seed}");
        assert_eq!(out.aevs[0], vec![sent(&llp)], "seed {seed}");
        assert!(out.pops[1..].iter().all(|&n| n == 0), "seed {seed}");
        assert!(out.verdicts[1].place && out.cqes[1].is_empty());
    }
}

#[test]
fn crc_after_check_rust_hdl() {
    crc_after_check(BackendKind::RustHdl);
}

#[test]
fn crc_after_check_verilator() {
    crc_after_check(BackendKind::Verilator);
}

// ---- Wire lengths past the Cu profile's 24-bit local lengths.

/// The environment of [`env`] on QPs 0 and 1 only (the two-QP profile has no QP 2 or 3).
fn env_two_qps() -> Env {
    let mut e = env();
    e.qps.retain(|&(qp, _)| qp < 2);
    e
}

/// A Read Request's size (32 bits on the wire) of 2^24 or more gets the Terminate of any
/// oversized Read, BOUNDS (RxControl keeps 24 bits of it in the Cu profile, with a flag for the
/// upper ones); a Send's MO of 2^24 or more fails row 14 (the expected MO is the sum of
/// earlier segments that fit a WQE, below 2^24 in the Cu profile) as it did before. Runs in
/// every build (QPs 0 and 1 only).
fn wide_wire_lengths(kind: BackendKind) {
    let prot = REType::RemoteProtection as u8;
    let ut = DdpEType::UntaggedBuffer as u8;
    for (n, size) in [1u32 << 24, (1 << 24) + 8, 0x8000_0008, u32::MAX]
        .into_iter()
        .enumerate()
    {
        let segs = vec![rrq(0, 1, size, R0, R0_BASE)];
        let out = run(
            kind,
            &format!("rx_control_wide_size_{n}"),
            &segs,
            &env_two_qps(),
            20 + n as u64,
        );
        assert_eq!(
            out.terms[0],
            vec![term(Layer::Rdmap, prot, Pr::BaseOrBounds as u8, 3, 0, 46)],
            "size {size:#x}"
        );
        assert!(out.irqs[0].is_empty(), "size {size:#x}");
    }
    for (n, mo) in [1u32 << 24, (1 << 24) - 2, 0xFFFF_FFFC]
        .into_iter()
        .enumerate()
    {
        let segs = vec![send(1, mo, true, 4)];
        let out = run(
            kind,
            &format!("rx_control_wide_mo_{n}"),
            &segs,
            &env_two_qps(),
            30 + n as u64,
        );
        assert_eq!(
            out.terms[0],
            vec![term(Layer::Ddp, ut, Ut::InvalidMo as u8, 2, 0, 22)],
            "MO {mo:#x}"
        );
    }
}

#[test]
fn wide_wire_lengths_rust_hdl() {
    wide_wire_lengths(BackendKind::RustHdl);
}

#[test]
fn wide_wire_lengths_verilator() {
    wide_wire_lengths(BackendKind::Verilator);
}

// ---- Random traffic against the model.

/// MO and MSN beyond 16 bits (RxControl keeps the expected MSNs and MO in 16-bit halves of a
/// block RAM): a three-segment Send whose MO passes 2^16, then a segment whose MO is off by
/// 2^16 (row 14); and a Send whose MSN is off by 2^16 (row 13).
fn wide_mo_msn(kind: BackendKind) {
    const BIG: u32 = make_stag(10, 0xAA);
    let mut e = env();
    e.stags.entries.push(StagEntry {
        stag: BIG,
        pd: PD0,
        access: access::LOCAL_WRITE,
        qp: None,
        remote_inv: false,
        base_to: 0,
        len: 0x10_0000,
        host_addr: 0x10_0000,
    });
    e.rqs[0] = (0..3)
        .map(|i| Wqe {
            to: 0,
            len: 0x8_0000,
            lkey: BIG,
            index: i,
        })
        .collect();
    let mo_segs = vec![
        send(1, 0, false, 40000),
        send(1, 40000, false, 40000),
        send(1, 80000, true, 40000),
        send(2, 0, false, 40000),
        send(2, 40000 + 0x1_0000, false, 4),
    ];
    let out = run(kind, "rx_control_wide_mo", &mo_segs, &e, 11);
    assert_eq!(out.cqes[0], vec![recv_cqe(WcStatus::Success, 120000, 0)]);
    let ut = DdpEType::UntaggedBuffer as u8;
    assert_eq!(
        out.terms[0],
        vec![term(Layer::Ddp, ut, Ut::InvalidMo as u8, 2, 0, 18 + 4)]
    );
    let msn_segs = vec![send(1, 0, true, 4), send(2 + 0x1_0000, 0, true, 4)];
    let out = run(kind, "rx_control_wide_msn", &msn_segs, &e, 12);
    assert_eq!(out.cqes[0], vec![recv_cqe(WcStatus::Success, 4, 0)]);
    assert_eq!(
        out.terms[0],
        vec![term(Layer::Ddp, ut, Ut::MsnRange as u8, 2, 1, 18 + 4)]
    );
}

#[test]
fn wide_mo_msn_rust_hdl() {
    wide_mo_msn(BackendKind::RustHdl);
}

#[test]
fn wide_mo_msn_verilator() {
    wide_mo_msn(BackendKind::Verilator);
}

/// Random, mostly valid traffic on every QP (four, or two in the two-QP profile) with rare
/// errors that end a QP (a Send longer than its WQE, a corrupted header octet). Their rates are
/// per segment of a QP's traffic: halved with two QPs (each has twice the segments), so a QP
/// lives as long into a run in both profiles (the same rates and draws with four).
fn random_traffic(rng: &mut StdRng, count: usize) -> (Vec<Segment>, Env) {
    let per_qp = CONNECTIONS as f64 / 4.0;
    let cfg = |q: usize| QpConfig {
        enable: true,
        pd: q as u8 + 1,
        ird: 15,
    };
    let qps: Vec<(usize, QpConfig)> = (0..CONNECTIONS).map(|q| (q, cfg(q))).collect();
    let mut e = Env::new(&qps);
    e.stall = 0.25;
    fn region(
        e: &mut Env,
        rng: &mut StdRng,
        key: &mut u32,
        q: usize,
        access: u8,
        remote_inv: bool,
    ) -> (u32, u64) {
        *key += 1;
        let stag = make_stag(*key, rng.gen());
        // Base TOs below 2^32, as the Cu STag table holds them (RxControl keeps TO bits
        // 63..33 as two flags: `docs/decisions.md`, "RxControl: TO bits 63..33 as flags").
        let base_to = rng.gen::<u64>() >> rng.gen_range(32..44);
        e.stags.entries.push(StagEntry {
            stag,
            pd: q as u8 + 1,
            access,
            qp: if rng.gen_bool(0.5) { Some(q) } else { None },
            remote_inv,
            base_to,
            len: 0x10000,
            host_addr: rng.gen::<u32>() & DMA_ADDR_MASK,
        });
        (stag, base_to)
    }
    let mut key = 1u32;
    struct Q {
        w: (u32, u64),
        r: (u32, u64),
        l: (u32, u64),
        inv: Vec<u32>,
        msn0: u32,
        msn1: u32,
        wqes: VecDeque<Wqe>,
        orq: usize,
    }
    use std::collections::VecDeque;
    let mut qs: Vec<Q> = Vec::new();
    for q in 0..CONNECTIONS {
        let w = region(
            &mut e,
            rng,
            &mut key,
            q,
            access::REMOTE_WRITE | access::LOCAL_WRITE,
            false,
        );
        let r = region(&mut e, rng, &mut key, q, access::REMOTE_READ, false);
        let l = region(&mut e, rng, &mut key, q, access::LOCAL_WRITE, false);
        let inv = (0..count / 4)
            .map(|_| region(&mut e, rng, &mut key, q, access::REMOTE_WRITE, true).0)
            .collect();
        let wqes: VecDeque<Wqe> = (0..count as u16)
            .map(|i| Wqe {
                to: l.1 + rng.gen_range(0..0x8000),
                len: rng.gen_range(0..600),
                lkey: l.0,
                index: i,
            })
            .collect();
        e.rqs[q] = wqes.clone();
        e.orq[q] = 20;
        qs.push(Q {
            w,
            r,
            l,
            inv,
            msn0: 1,
            msn1: 1,
            wqes,
            orq: 20,
        });
    }
    let mut segs = Vec::new();
    while segs.len() < count {
        let c = rng.gen_range(0..CONNECTIONS);
        let q = &mut qs[c];
        let kind = rng.gen_range(0..100);
        let mut new: Vec<Segment> = Vec::new();
        if kind < 30 {
            let p = if rng.gen_bool(0.1) {
                0
            } else {
                rng.gen_range(1..200)
            };
            let to = q.w.1 + rng.gen_range(0..0xFF00);
            new.push(write(c, q.w.0, to, p));
        } else if kind < 60 {
            let Some(w) = q.wqes.front().copied() else {
                continue;
            };
            let total = if rng.gen_bool(0.005 * per_qp) {
                w.len + 1
            } else {
                rng.gen_range(0..=w.len)
            };
            let n = rng.gen_range(1..=3u32).min(total.max(1));
            let ops = [
                Opcode::Send,
                Opcode::SendInvalidate,
                Opcode::SendSe,
                Opcode::SendSeInvalidate,
            ];
            let op = ops[rng.gen_range(0..4)];
            let inv_stag = match op {
                Opcode::SendInvalidate | Opcode::SendSeInvalidate => q.inv.pop().unwrap_or(BAD),
                _ => 0,
            };
            let mut mo = 0;
            for i in 0..n {
                let p = if i + 1 == n { total - mo } else { total / n };
                new.push(Segment::send(
                    c,
                    op,
                    i + 1 == n,
                    inv_stag,
                    q.msn0,
                    mo,
                    p as u16,
                ));
                mo += p;
            }
            q.msn0 += 1;
            q.wqes.pop_front();
        } else if kind < 80 && q.msn1 <= 15 {
            let size = if rng.gen_bool(0.1) {
                0
            } else {
                rng.gen_range(1..0x1000)
            };
            let to = q.r.1 + rng.gen_range(0..0xE000);
            new.push(Segment::read_request(
                c,
                q.msn1,
                rng.gen(),
                rng.gen(),
                size,
                q.r.0,
                to,
            ));
            q.msn1 += 1;
        } else if kind >= 80 && q.orq > 0 {
            let n = rng.gen_range(1..=3);
            let mut to = q.w.1 + rng.gen_range(0..0x8000);
            for i in 0..n {
                let p = rng.gen_range(0..100);
                new.push(Segment::tagged(
                    c,
                    Opcode::RdmaReadResponse,
                    i + 1 == n,
                    q.w.0,
                    to,
                    p,
                ));
                to += u64::from(p);
            }
            q.orq -= 1;
        }
        let _ = q.l;
        // Rare corruption of one header octet.
        for s in &mut new {
            if rng.gen_bool(0.001 * per_qp) {
                let i = rng.gen_range(0..s.header.len().min(20));
                s.header[i] ^= 1 << rng.gen_range(0..8);
            }
        }
        segs.extend(new);
    }
    (segs, e)
}

#[test]
fn random_short_rust_hdl() {
    let mut rng = StdRng::seed_from_u64(0x5EED_0001);
    let (segs, e) = random_traffic(&mut rng, 150);
    let out = run(
        BackendKind::RustHdl,
        "rx_control_random_short",
        &segs,
        &e,
        1,
    );
    assert!(out.cqes.iter().map(Vec::len).sum::<usize>() > 10);
}

#[test]
fn random_long_verilator() {
    for seed in 0..6u64 {
        let mut rng = StdRng::seed_from_u64(0x5EED_1000 + seed);
        let (segs, mut e) = random_traffic(&mut rng, 2500);
        // StagCheck latencies from an answer in the next cycle to a full check queue.
        e.chk_latency = [1, 6, 20][seed as usize % 3];
        let out = run(
            BackendKind::Verilator,
            "rx_control_random_long",
            &segs,
            &e,
            seed,
        );
        let cqes: usize = out.cqes.iter().map(Vec::len).sum();
        let irqs: usize = out.irqs.iter().map(Vec::len).sum();
        let placed = out.verdicts.iter().filter(|v| v.place).count();
        eprintln!(
            "seed {seed}: {cqes} CQEs, {irqs} IRQs, {placed} placed, terms {:?}",
            out.terms.iter().map(Vec::len).collect::<Vec<_>>()
        );
        // A QP takes at most 15 Read Requests in a run (IRD 15, no `irq_done`): at least a
        // third of them over the QPs.
        assert!(cqes > 50 && irqs > 5 * CONNECTIONS && placed > 200);
    }
}

/// Cycles per job with every output ready, for short segments of each kind (printed; the
/// bounds are the figures of the module documentation). A Send's figure depends on the bench's
/// random RQ latencies and done delays: 39.7 to 40.7 cycles over seeds 0-15 in either profile,
/// so its bound is 41. (Seed 3 gives 39.7 with four QPs and 40.3 with two: the bench's draws
/// of `job_conn` between jobs, from `0..CONNECTIONS`, take the random stream elsewhere; with
/// the same stream the two profiles' cycles are the same, but for the configuration of QPs 2
/// and 3.)
#[test]
fn throughput_verilator() {
    let mut e = good_env();
    e.stall = 0.0;
    e.qps[1].1.ird = 15;
    e.rqs[0] = (0..200)
        .map(|i| Wqe {
            to: L0_BASE,
            len: 100,
            lkey: L0,
            index: i,
        })
        .collect();
    type Gen = fn(usize) -> Segment;
    let kinds: [(&str, Gen, u64); 4] = [
        (
            "Write, 4 octets",
            |i| {
                write(
                    i % 2,
                    if i % 2 == 0 { W0 } else { OTHER },
                    0x1000 * ((i % 2) as u64 ^ 1),
                    4,
                )
            },
            8,
        ),
        ("Write, 0 octets", |i| write(i % 2, BAD, 0, 0), 9),
        ("Send, 4 octets", |i| send(i as u32 + 1, 0, true, 4), 41),
        (
            "Read Request, 8 octets",
            |i| rrq(1, i as u32 + 1, 8, SR1, 0x1_7000_0000),
            32,
        ),
    ];
    for (name, gen, bound) in kinds {
        let n = if name.starts_with("Read") { 15 } else { 100 };
        let segs: Vec<Segment> = (0..n).map(gen).collect();
        let mut sim = BackendKind::Verilator.build(RxControl::default()).unwrap();
        let tb = RxControlTb::new(sim.as_ref()).unwrap();
        let mut rng = StdRng::seed_from_u64(3);
        let start = sim.cycles();
        let out = tb.run(sim.as_mut(), &segs, &e, &mut rng);
        assert_eq!(out, model::expect(&segs, &e), "{name}");
        let cycles = (sim.cycles() - start - 64) as f64 / n as f64;
        eprintln!("{name}: {cycles:.1} cycles per job");
        assert!(cycles <= bound as f64, "{name}: {cycles} cycles per job");
    }
}
