//! Tests of RDMAP receive control (`hdl/src/rdmap/rx_control.rs`) on both simulation back
//! ends. The check table (rows 0-21) and the completion rules are those of `rnic_hdl::rdmap`
//! (`rfc5040-rdmap.md` §5.4 check order, §5.1 codes, §1.6 Terminate HdrCt, §2.2 completions;
//! `mpa-peer-connect.md` §6.4 DDP codes). The test bench (`rnic_sim::tb::rx_control`) plays the
//! parser, StagCheck, the RQ, RxPlace and TerminateTx with random back-pressure; every case
//! asserts exact values written here by hand, and the whole outcome against the software model
//! `rnic_sim::tb::rx_control::model`.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
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
use rnic_sim::tb::rx_control::{
    model, Aev, Cqe, Env, Irq, Outcome, QpConfig, RxControlTb, Segment, StagEntry, Term, Verdict,
    Wqe,
};
use rnic_sim::testbench::{run_with_waveform_on_failure, BackendKind};
use std::sync::Mutex;

// ---- The environment of the directed cases.

const PD0: u8 = 1;
/// Write / Read Response sink of QP 0 (remote write, local write, remote invalidate).
const W0: u32 = make_stag(1, 0x11);
const W0_BASE: u64 = 0x1000;
const W0_HOST: u32 = 0x8000_0000;
/// Read source of QP 0 (remote read only), with a TO above 2^32.
const R0: u32 = make_stag(2, 0x22);
const R0_BASE: u64 = 0x2000_0000_0000;
const R0_HOST: u32 = 0x9000_0000;
/// Receive buffer of QP 0 (local write), across a 2^32 boundary of TO.
const L0: u32 = make_stag(3, 0x33);
const L0_BASE: u64 = 0x1_FFFF_FF00;
const L0_HOST: u32 = 0xA000_0000;
/// Remote-write region that cannot be invalidated.
const NI: u32 = make_stag(4, 0x44);
/// A region of another PD.
const OTHER: u32 = make_stag(5, 0x55);
/// A region at the top of the 64-bit TO space.
const TOP: u32 = make_stag(6, 0x66);
const TOP_BASE: u64 = 0xFFFF_FFFF_FFFF_F000;
/// Never registered.
const BAD: u32 = make_stag(9, 0x99);

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
        entry(W0, PD0, access::REMOTE_WRITE | access::LOCAL_WRITE, true, W0_BASE, 0x1000, W0_HOST),
        entry(R0, PD0, access::REMOTE_READ, false, R0_BASE, 0x100, R0_HOST),
        entry(L0, PD0, access::LOCAL_WRITE, true, L0_BASE, 0x1000, L0_HOST),
        entry(NI, PD0, access::REMOTE_WRITE, false, 0, 0x1000, 0x100),
        entry(OTHER, 2, access::ALL, true, 0, 0x1000, 0x200),
        entry(TOP, PD0, access::ALL, true, TOP_BASE, 0x1000, 0x300),
    ];
    e.rqs[0] = (0..4)
        .map(|i| Wqe {
            to: L0_BASE + 0x80,
            len: 100,
            lkey: L0,
            index: 7 + i,
        })
        .collect();
    e
}

fn run(kind: BackendKind, name: &str, segs: &[Segment], env: &Env, seed: u64) -> Outcome {
    let result = Mutex::new(None);
    run_with_waveform_on_failure(
        name,
        || kind.build(RxControl::default()),
        |sim| {
            let tb = RxControlTb::new(sim).expect("ports");
            let mut rng = StdRng::seed_from_u64(seed);
            let out = tb.run(sim, segs, env, &mut rng);
            *result.lock().unwrap() = Some(out);
        },
    );
    let out = result.into_inner().unwrap().expect("outcome");
    assert_eq!(
        out,
        model::expect(segs, env),
        "{name} on {}: hardware and model differ",
        kind.name()
    );
    out
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
    Segment::read_request(conn, msn, 0xABCD_0001, 0x1122_3344_5566_7788, size, src, src_to)
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
    case("1 L < H", vec![ok_write.clone(), s], env(), term(Layer::Rdmap, oper, Op::Unspecified as u8, 0, 1, 10), None);
    // Row 2.
    let mut s = write(0, W0, W0_BASE, 4);
    s.header[0] = (s.header[0] & !3) | 2;
    case("2 DV tagged", vec![s], env(), term(Layer::Ddp, tg, Tg::InvalidDdpVersion as u8, 0, 0, 18), None);
    let mut s = send(1, 0, true, 4);
    s.header[0] &= !3;
    case("2 DV untagged", vec![s], env(), term(Layer::Ddp, ut, Ut::InvalidDdpVersion as u8, 0, 0, 22), None);
    // Row 3.
    let s = Segment::untagged(0, Opcode::Send, true, 0, 3, 1, 0, 0);
    case("3 QN", vec![s], env(), term(Layer::Ddp, ut, Ut::InvalidQn as u8, 2, 0, 18), None);
    // Row 4.
    let mut s = write(0, W0, W0_BASE, 4);
    s.header[1] &= 0x3F;
    case("4 RV", vec![s], env(), term(Layer::Rdmap, oper, Op::InvalidRdmapVersion as u8, 0, 0, 18), None);
    // Row 5.
    let mut s = send(1, 0, true, 0);
    s.header[1] = (s.header[1] & 0xF0) | 0x8;
    case("5 opcode", vec![s], env(), term(Layer::Rdmap, oper, Op::UnexpectedOpcode as u8, 0, 0, 18), None);
    // Row 6: a Send on QN 1, a Write untagged.
    let s = Segment::untagged(0, Opcode::Send, true, 0, 1, 1, 0, 0);
    case("6 Send QN", vec![s], env(), term(Layer::Rdmap, oper, Op::UnexpectedOpcode as u8, 0, 0, 18), None);
    let s = Segment::untagged(0, Opcode::RdmaWrite, true, 0, 0, 1, 0, 0);
    case("6 Write untagged", vec![s], env(), term(Layer::Rdmap, oper, Op::UnexpectedOpcode as u8, 0, 0, 18), None);
    // Row 7: a Read Request with L = 0; with MO != 0.
    let mut s = rrq(0, 1, 8, R0, R0_BASE);
    s.header[0] &= !rnic_proto::ddp::L_FLAG;
    case("7 RRQ L", vec![s], env(), term(Layer::Ddp, ut, Ut::InvalidMo as u8, 2, 0, 46), None);
    let mut s = rrq(0, 1, 8, R0, R0_BASE);
    s.header[17] = 4;
    case("7 RRQ MO", vec![s], env(), term(Layer::Ddp, ut, Ut::InvalidMo as u8, 2, 0, 46), None);
    // Row 8.
    let mut s = rrq(0, 1, 8, R0, R0_BASE);
    s.len = 50;
    case("8 RRQ length", vec![s], env(), term(Layer::Rdmap, oper, Op::Unspecified as u8, 2, 0, 50), None);
    // Row 10: every StagCheck status.
    for (row, stag, to, code) in [
        ("10 invalid", BAD, W0_BASE, (Layer::Ddp, tg, Tg::InvalidStag as u8)),
        ("10 not associated", OTHER, 0, (Layer::Ddp, tg, Tg::StagNotAssociated as u8)),
        ("10 access", R0, R0_BASE, (Layer::Rdmap, prot, Pr::AccessRights as u8)),
        ("10 wrap", TOP, 0xFFFF_FFFF_FFFF_FFFC, (Layer::Ddp, tg, Tg::ToWrap as u8)),
        ("10 bounds", W0, W0_BASE + 0xFFC, (Layer::Ddp, tg, Tg::BaseOrBounds as u8)),
    ] {
        case(row, vec![write(0, stag, to, 8)], env(), term(code.0, code.1, code.2, 2, 0, 22), None);
    }
    // Row 11: no Read outstanding.
    let s = Segment::tagged(0, Opcode::RdmaReadResponse, true, W0, W0_BASE, 8);
    case("11 no read", vec![s.clone()], env(), term(Layer::Rdmap, oper, Op::UnexpectedOpcode as u8, 0, 0, 22), None);
    // Row 12: the sink check fails; the Read completes in error.
    let mut e = env();
    e.orq[0] = 1;
    let s = Segment::tagged(0, Opcode::RdmaReadResponse, true, W0, W0_BASE + 0xFFF, 8);
    case("12 bounds", vec![s], e, term(Layer::Ddp, tg, Tg::BaseOrBounds as u8, 2, 0, 22), Some(read_cqe(WcStatus::LocProtErr)));
    // Rows 13-15.
    case("13 MSN", vec![send(2, 0, true, 4)], env(), term(Layer::Ddp, ut, Ut::MsnRange as u8, 2, 0, 22), None);
    case("14 MO", vec![send(1, 4, true, 4)], env(), term(Layer::Ddp, ut, Ut::InvalidMo as u8, 2, 0, 22), None);
    let mut e = env();
    e.rqs[0].clear();
    case("15 no WQE", vec![send(1, 0, true, 4)], e, term(Layer::Ddp, ut, Ut::MsnNoBuffer as u8, 2, 0, 22), None);
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
        term(Layer::Ddp, DdpEType::LocalCatastrophic as u8, LOCAL_CATASTROPHIC_CODE, 0, 0, 22),
        Some(recv_cqe(WcStatus::LocProtErr, 0, 7)),
    );
    // Rows 18-20.
    case("18 MSN", vec![rrq(0, 2, 8, R0, R0_BASE)], env(), term(Layer::Ddp, ut, Ut::MsnRange as u8, 2, 0, 46), None);
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
        case(row, vec![rrq(0, 1, 8, stag, to)], env(), term(Layer::Rdmap, prot, code as u8, 3, 0, 46), None);
    }
    // Row 21.
    let s = Segment::send(0, Opcode::SendInvalidate, true, BAD, 1, 0, 4);
    case(
        "21 invalid",
        vec![s],
        env(),
        term(Layer::Rdmap, oper, Op::StagCannotBeInvalidated as u8, 2, 0, 22),
        Some(recv_cqe(WcStatus::GeneralErr, 0, 7)),
    );
    let s = Segment::send(0, Opcode::SendSeInvalidate, true, NI, 1, 0, 4);
    case(
        "21 not invalidatable",
        vec![s],
        env(),
        term(Layer::Rdmap, prot, Pr::StagCannotBeInvalidated as u8, 2, 0, 22),
        Some(recv_cqe(WcStatus::GeneralErr, 0, 7)),
    );
    let s = Segment::send(0, Opcode::SendInvalidate, true, OTHER, 1, 0, 0);
    case(
        "21 not associated",
        vec![s],
        env(),
        term(Layer::Rdmap, prot, Pr::StagCannotBeInvalidated as u8, 2, 0, 18),
        Some(recv_cqe(WcStatus::GeneralErr, 0, 7)),
    );
    v
}

fn check_table(kind: BackendKind) {
    for (n, c) in cases().into_iter().enumerate() {
        if std::env::var("RXC_CASE").is_ok_and(|v| v != n.to_string()) {
            continue;
        }
        let out = run(kind, &format!("rx_control_row_{n}"), &c.segs, &c.env, n as u64);
        let last = c.segs.len() - 1;
        assert_eq!(out.terms[0], vec![c.term], "row {} on {}", c.row, kind.name());
        assert_eq!(out.aevs[0], vec![sent(&c.term)], "row {}", c.row);
        let want_cqes: Vec<Cqe> = c.cqe.into_iter().collect();
        assert_eq!(out.cqes[0], want_cqes, "row {}", c.row);
        assert!(!out.verdicts[last].place, "row {}: the failing segment is not placed", c.row);
        assert_eq!(out.verdicts.len(), c.segs.len(), "row {}", c.row);
        for q in 1..4 {
            assert!(out.terms[q].is_empty() && out.aevs[q].is_empty(), "row {}", c.row);
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

#[test]
fn zz_debug() {
    let mut sim = BackendKind::RustHdl.build(RxControl::default()).unwrap();
    let sim = sim.as_mut();
    let names = ["job_ready", "hdr_a_addr", "chk_valid", "vd_valid", "done_ready", "rq_req_valid", "free_valid", "term_valid"];
    let ins = ["job_valid", "job_len", "hdr_a_data", "qp_cfg_write", "qp_cfg_enable", "vd_ready"];
    let set = |sim: &mut dyn rnic_sim::testbench::Backend, n: &str, v: u128| { let i = sim.input(n).unwrap(); sim.set(i, v) };
    set(sim, "qp_cfg_write", 1); set(sim, "qp_cfg_enable", 1); sim.tick(); set(sim, "qp_cfg_write", 0);
    set(sim, "job_valid", 1); set(sim, "job_len", 22); set(sim, "vd_ready", 1);
    let _ = ins;
    for c in 0..30 {
        let w = write(0, W0, W0_BASE, 8).words();
        let a = { let o = sim.output("hdr_a_addr").unwrap(); sim.get(o) } as usize;
        let vals: Vec<u128> = names.iter().map(|n| { let o = sim.output(n).unwrap(); sim.get(o) }).collect();
        println!("{c}: {:?}", vals);
        sim.tick();
        if vals[0] == 1 { set(sim, "job_valid", 0); }
        set(sim, "hdr_a_data", w[a & 31] as u128);
    }
}
