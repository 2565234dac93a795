//! LLP errors through the whole receive path (issue 4 "Placement"): a segment whose CRC is bad
//! may have been placed (inside a region that grants the write) but never completes; the QP
//! sends the LLP Terminate (Layer 2, EType `TERMINATE_ETYPE_LLP`, code 0x02 CRC error,
//! `mpa-peer-connect.md` §4.2-§4.3, no headers) and drops what follows; another QP is untouched.

use rnic_hdl::rdmap::rx_path::RxPath;
use rnic_proto::mpa::TERMINATE_ETYPE_LLP;
use rnic_proto::rdmap::{Body, DdpFields, Message};
use rnic_proto::verbs::{access, make_stag, AsyncEventKind, WcOpcode, WcStatus};
use rnic_sim::rx_model::{AsyncEvent, MrEntry, QpConfig, RecvWqe};
use rnic_sim::tb::rx_path::{corrupt_crc, frame, Knobs, RxPathBench};
use rnic_sim::testbench::BackendKind;

fn emit(m: &Message) -> Vec<u8> {
    let mut out = vec![0u8; m.buffer_len()];
    m.emit(&mut rnic_proto::ddp::Packet::new_unchecked(&mut out[..]))
        .unwrap();
    out
}

fn send(msn: u32, payload: &[u8]) -> Vec<u8> {
    emit(&Message {
        last: true,
        ddp: DdpFields::Untagged { msn, mo: 0 },
        body: Body::Send { payload },
    })
}

#[test]
fn bad_crc_never_completes_and_ends_the_stream_with_an_llp_terminate() {
    let sim = BackendKind::Verilator
        .build_untraced(RxPath::default())
        .unwrap();
    let mut b = RxPathBench::new(sim, 9, Knobs::RANDOM).unwrap();
    b.program_stag(
        2,
        MrEntry {
            valid: true,
            key: 0x22,
            pd: 1,
            access: access::LOCAL_WRITE,
            qp_bound: None,
            remote_inv: false,
            base_to: 0,
            len: 0x1000,
            host_addr: 0x20_0000,
        },
    );
    let lkey = make_stag(2, 0x22);
    for q in [0, 1] {
        b.mpa_cfg(q, true, false, true, u16::MAX);
        b.qp_cfg(
            q,
            QpConfig {
                enable: true,
                pd: 1,
                ird: 2,
            },
        );
        for i in 0..3u16 {
            b.post_recv(
                q,
                RecvWqe {
                    to: 0x100 * u64::from(i) + 0x800 * q as u64,
                    len: 0x100,
                    lkey,
                    index: i,
                },
            );
        }
    }
    let qp0 = vec![send(1, &[1; 40]), send(2, &[2; 40]), send(3, &[3; 40])];
    let mut stream = frame(&qp0, false, true);
    corrupt_crc(&mut stream, &qp0, 1);
    b.send_llp(0, &stream);
    let qp1 = vec![send(1, &[7; 16]), send(2, &[8; 16])];
    b.send_ulpdus(1, &qp1);
    b.run_until_idle(1_000_000);

    // QP 0: the first Send completes; the second (bad CRC) never does, nor the third.
    assert_eq!(b.cqes[0].len(), 1, "{:?}", b.cqes[0]);
    assert_eq!(b.cqes[0][0].opcode, WcOpcode::Recv as u8);
    assert_eq!(b.cqes[0][0].status, WcStatus::Success as u8);
    assert_eq!(b.cqes[0][0].byte_len, 40);
    let code = 0x02;
    assert_eq!(
        b.aevs[0],
        vec![AsyncEvent {
            qp: 0,
            kind: AsyncEventKind::TerminateSent as u8,
            layer: 2,
            etype: TERMINATE_ETYPE_LLP,
            code,
        }]
    );
    let mut term = vec![0x41, 0x47, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0];
    term.extend([0x20 | TERMINATE_ETYPE_LLP, code, 0, 0]);
    assert_eq!(b.terms[0], vec![term]);
    // The third Send's bytes were never written.
    assert_eq!(b.mem.read(0x20_0200, 40), vec![0; 40]);
    // QP 1 is untouched: both Sends complete.
    assert_eq!(b.cqes[1].len(), 2, "{:?}", b.cqes[1]);
    assert!(b.terms[1].is_empty() && b.aevs[1].is_empty());
    assert_eq!(b.mem.read(0x20_0800, 16), vec![7; 16]);
    b.mem.assert_no_violations();
    // `fpdu_good_valid` (QP_STATUS_FPDU_RECEIVED, the send fence): QP 0's first FPDU only,
    // both of QP 1's.
    assert_eq!(b.stats().fpdu_good[..2], [1, 2]);
}
