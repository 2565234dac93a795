//! Tests of the Terminate transmitter (`hdl/src/rdmap/terminate_tx.rs`) on both simulation
//! back ends, byte for byte against the golden model: the Terminate message built by
//! `rnic_proto::rdmap` (`Message` with a `TerminateRepr`). Catalog: `rfc5040-rdmap.md` §1.6
//! (layout), §1.7 (QN 2), §1.8 (the golden Read Request Terminate, 70 octets).
//!
//! The test plays DdpRxParse's header RAM (port B, registered read) with random segments in
//! every slot, tagged and untagged, and sends every HdrCt combination with random codes and
//! segment lengths, back to back and with gaps, under random `tx_ready` back-pressure.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_hdl::config::{CONNECTIONS, HDR_SLOTS};
use rnic_hdl::rdmap::terminate_tx::{TerminateTx, TERMINATE_FIRST_BEAT_LATENCY};
use rnic_proto::ddp;
use rnic_proto::rdmap::{
    Body, DdpFields, Message, ReadRequestPacket, ReadRequestRepr, TerminateCode, TerminateRepr,
    TerminatedDdpHeader,
};
use rnic_sim::tb::terminate_tx::{HeaderRam, TermRequest, TermRun, TermTraffic, TerminateTxTb};
use rnic_sim::testbench::{run_with_waveform_on_failure, Backend, BackendKind};

/// The golden Terminate ULPDU for `req` over the segment in its slot (`slot` = the slot's
/// octets): the proto's Terminate message with QN 2, MSN 1, MO 0, L = 1. R is sent only with
/// D on an untagged header (the block's contract, `docs/decisions.md` "Twentieth session"):
/// otherwise the Terminate has R = 0 and no RDMA header.
fn golden(req: &TermRequest, slot: &[u8]) -> Vec<u8> {
    let tagged = slot.first().is_some_and(|c| c & 0x80 != 0);
    let r = req.r && req.d && !tagged;
    let any = req.m || req.d;
    let repr = TerminateRepr {
        code: TerminateCode::from_raw(req.layer, req.etype, req.code),
        m: req.m,
        r,
        ddp_segment_length: if any { req.seglen } else { 0 },
        ddp_header: req
            .d
            .then(|| TerminatedDdpHeader::from_bytes(slot).expect("slot holds a header")),
        rdma_header: r.then(|| {
            ReadRequestRepr::parse(&ReadRequestPacket::new_unchecked(&slot[18..46]))
                .expect("28 octets")
        }),
    };
    let msg = Message {
        last: true,
        ddp: DdpFields::Untagged { msn: 1, mo: 0 },
        body: Body::Terminate(repr),
    };
    let mut buf = vec![0u8; msg.buffer_len()];
    msg.emit(&mut ddp::Packet::new_unchecked(&mut buf[..]))
        .expect("emit");
    buf
}

/// A random segment of up to 128 octets: tagged (T = 1) or untagged, random otherwise.
fn random_segment(rng: &mut StdRng, tagged: bool) -> Vec<u8> {
    let len = rng.gen_range(0..=128usize);
    let mut s: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    if let Some(c) = s.first_mut() {
        *c = if tagged { *c | 0x80 } else { *c & 0x7f };
    }
    s
}

/// A request for the segment in its slot: `seglen` is that segment's length (RxControl's
/// contract: TerminateTx zeroes the copied octets from there on).
fn random_request(
    rng: &mut StdRng,
    ram: &HeaderRam,
    conn: usize,
    slot: usize,
    hdrct: u8,
) -> TermRequest {
    TermRequest {
        conn,
        slot,
        layer: rng.gen_range(0..16),
        etype: rng.gen_range(0..16),
        code: rng.gen(),
        m: hdrct & 4 != 0,
        d: hdrct & 2 != 0,
        r: hdrct & 1 != 0,
        seglen: ram.seg_len(conn, slot) as u16,
    }
}

/// Compares a run with the golden ULPDUs, the done strobes with the requests.
fn check_run(run: &TermRun, ram: &HeaderRam, requests: &[TermRequest], what: &str) {
    assert_eq!(run.ulpdus.len(), requests.len(), "{what}: ULPDU count");
    for (i, (u, r)) in run.ulpdus.iter().zip(requests).enumerate() {
        let want = golden(r, &ram.slot_bytes(r.conn, r.slot));
        assert_eq!(u.conn, r.conn, "{what}: request {i} connection");
        assert_eq!(
            u.bytes, want,
            "{what}: request {i} {r:?}: ULPDU\n got {:02x?}\nwant {want:02x?}",
            u.bytes
        );
    }
    let want_done: Vec<(usize, usize)> = requests.iter().map(|r| (r.conn, r.slot)).collect();
    let got_done: Vec<(usize, usize)> = run.done.iter().map(|d| (d.0, d.1)).collect();
    assert_eq!(got_done, want_done, "{what}: term_done strobes");
}

/// Every HdrCt combination on every (connection, slot), tagged and untagged segments, random
/// codes; back-pressure `stall`, request gaps `gap`.
fn check_random(kind: BackendKind, name: &str, seed: u64, rounds: usize, traffic: TermTraffic) {
    run_with_waveform_on_failure(
        name,
        || kind.build(TerminateTx::default()),
        |sim: &mut dyn Backend| {
            let mut rng = StdRng::seed_from_u64(seed);
            let tb = TerminateTxTb::new(sim).unwrap();
            for round in 0..rounds {
                let mut ram = HeaderRam::default();
                for conn in 0..CONNECTIONS {
                    for slot in 0..HDR_SLOTS {
                        let tagged = (conn + slot + round) % 2 == 0;
                        ram.write_segment(conn, slot, &random_segment(&mut rng, tagged));
                    }
                }
                let mut requests = Vec::new();
                for hdrct in 0..8u8 {
                    for conn in 0..CONNECTIONS {
                        for slot in 0..HDR_SLOTS {
                            requests.push(random_request(&mut rng, &ram, conn, slot, hdrct));
                        }
                    }
                }
                // Shuffle so that lengths and cases change from one request to the next.
                for i in (1..requests.len()).rev() {
                    requests.swap(i, rng.gen_range(0..=i));
                }
                let run = tb.run(sim, &ram, &requests, traffic, &mut rng);
                check_run(&run, &ram, &requests, &format!("round {round}"));
            }
        },
    );
}

const BACKPRESSURE: TermTraffic = TermTraffic {
    gap: 0.3,
    stall: 0.3,
};
const FULL_SPEED: TermTraffic = TermTraffic {
    gap: 0.0,
    stall: 0.0,
};

#[test]
fn rust_hdl_every_hdrct_random_backpressure() {
    check_random(
        BackendKind::RustHdl,
        "terminate_tx_random",
        1,
        2,
        BACKPRESSURE,
    );
}

#[test]
fn verilator_every_hdrct_random_backpressure() {
    check_random(
        BackendKind::Verilator,
        "terminate_tx_random",
        2,
        40,
        BACKPRESSURE,
    );
    check_random(
        BackendKind::Verilator,
        "terminate_tx_heavy_stall",
        3,
        10,
        TermTraffic {
            gap: 0.0,
            stall: 0.8,
        },
    );
}

/// The catalog's golden Terminate of a Read Request (`rfc5040-rdmap.md` §1.8): RDMAP / Remote
/// Protection / Invalid STag, M = D = R = 1, 70 octets, byte for byte from the catalog text;
/// and the timing at full speed: first beat 4 cycles after the request, one beat every other
/// cycle, `term_done` right after, back-to-back requests `2n + 4` cycles apart.
fn check_golden_vector(kind: BackendKind) {
    let rrq: [u8; 46] = [
        0x41, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00,
        0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00,
        0x00, 0x00, 0x10, 0x00, 0x55, 0x66, 0x77, 0x88, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80,
        0x00,
    ];
    let want: Vec<u8> = [
        &[
            0x41, 0x47, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01,
            0x00, 0x00, 0x00, 0x00,
        ][..],
        &[0x01, 0x00, 0xe0, 0x00],
        &[0x00, 0x2e],
        &rrq[..],
    ]
    .concat();
    assert_eq!(want.len(), 70);
    // Connection 2 (0 in a two-QP build).
    let conn = 2 % CONNECTIONS;
    let req = TermRequest {
        conn,
        slot: 1,
        layer: 0,
        etype: 1,
        code: 0x00,
        m: true,
        d: true,
        r: true,
        seglen: 46,
    };
    let mut ram = HeaderRam::default();
    ram.write_segment(conn, 1, &rrq);
    // Another slot of the same connection with something else in it, requested right after.
    ram.write_segment(conn, 0, &[0xc1; 30]);
    let other = TermRequest {
        slot: 0,
        seglen: 30,
        ..req
    };
    assert_eq!(golden(&req, &ram.slot_bytes(conn, 1)), want, "golden model");
    run_with_waveform_on_failure(
        "terminate_tx_golden",
        || kind.build(TerminateTx::default()),
        |sim: &mut dyn Backend| {
            let tb = TerminateTxTb::new(sim).unwrap();
            let mut rng = StdRng::seed_from_u64(5);
            let run = tb.run(sim, &ram, &[req, other], FULL_SPEED, &mut rng);
            assert_eq!(run.ulpdus[0].bytes, want, "hardware vs the catalog");
            check_run(&run, &ram, &[req, other], "golden");
            // `other` asks for R after a tagged header: sent as MD (38 octets), R = 0 in the
            // control word (octet 20: M 0x80, D 0x40, R 0x20).
            assert_eq!(
                run.ulpdus[1].bytes.len(),
                38,
                "R after a tagged header: no RDMA header"
            );
            assert_eq!(run.ulpdus[1].bytes[20] & 0xE0, 0xC0, "M = D = 1, R = 0");
            for (i, u) in run.ulpdus.iter().enumerate() {
                let beats = u.bytes.len().div_ceil(4) as u64;
                assert_eq!(
                    u.first_cycle,
                    run.taken[i] + TERMINATE_FIRST_BEAT_LATENCY as u64,
                    "first beat latency"
                );
                assert_eq!(
                    u.last_cycle - u.first_cycle + 1,
                    2 * beats - 1,
                    "one beat every other cycle"
                );
                assert_eq!(run.done[i].2, u.last_cycle + 1, "term_done");
            }
            assert_eq!(
                run.taken[1],
                run.done[0].2 + 1,
                "next request taken in the cycle after term_done (the source holds the \
                 request until then)"
            );
        },
    );
}

#[test]
fn rust_hdl_golden_read_request_terminate() {
    check_golden_vector(BackendKind::RustHdl);
}

#[test]
fn verilator_golden_read_request_terminate() {
    check_golden_vector(BackendKind::Verilator);
}
