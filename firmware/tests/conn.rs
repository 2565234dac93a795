//! MPA connection setup: an Initiator and a Responder back to back, octets moved in random
//! pieces; golden frames and FPDUs of `mpa-peer-connect.md` §1.3 and §7.

use rnic_firmware::conn::{
    build_read_rtr_response, build_rtr, ConnConfig, ConnError, ConnState, Connection, Role,
    RtrForm, MAX_ULP_PRIVATE_DATA,
};
use rnic_proto::crc32c::{crc32c, RESIDUE};
use rnic_proto::mpa::frame::{REPLY_KEY, REQUEST_KEY};
use rnic_proto::mpa::{mulpdu, Framer, RtrOptions, TERMINATE_ETYPE_MPA};
use rnic_proto::rdmap::{Body, DdpFields, Message, ReadRequestRepr};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

fn req(tail: &str) -> Vec<u8> {
    let mut v = REQUEST_KEY.to_vec();
    v.extend(hex(tail));
    v
}

fn rep(tail: &str) -> Vec<u8> {
    let mut v = REPLY_KEY.to_vec();
    v.extend(hex(tail));
    v
}

/// Moves `from`'s output into `to` in random pieces; returns the octets `to` did not consume
/// (FPDU mode: the FPDU engine's) and the first error.
fn pump(from: &mut Connection, to: &mut Connection, rng: &mut Rng) -> (Vec<u8>, Option<ConnError>) {
    let bytes = from.output().to_vec();
    from.consume_output(bytes.len());
    feed(to, &bytes, rng)
}

fn feed(to: &mut Connection, bytes: &[u8], rng: &mut Rng) -> (Vec<u8>, Option<ConnError>) {
    let mut engine = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let n = 1 + rng.below(rest.len().min(24));
        let (chunk, tail) = rest.split_at(n);
        match to.on_raw_bytes(chunk) {
            Ok(used) => engine.extend_from_slice(&chunk[used..]),
            Err(e) => return (engine, Some(e)),
        }
        rest = tail;
    }
    (engine, None)
}

enum Decision<'a> {
    Accept(&'a [u8]),
    Reject(&'a [u8]),
}

struct Run {
    init: Connection,
    resp: Connection,
    /// FPDU-mode octets the Initiator sent after the Reply (the RTR or a Terminate).
    to_resp: Vec<u8>,
}

/// Full exchange for every seed in `seeds`; checks all seeds agree and returns the last run.
fn run(icfg: ConnConfig, rcfg: ConnConfig, pd: &[u8], d: Decision, seed: u64) -> Run {
    let mut rng = Rng(seed | 1);
    let mut init = Connection::new(Role::Initiator, icfg);
    let mut resp = Connection::new(Role::Responder, rcfg);
    resp.listen(0).unwrap();
    init.connect(0, pd).unwrap();
    assert_eq!(init.state(), ConnState::RequestSent);
    let (left, err) = pump(&mut init, &mut resp, &mut rng);
    assert!(left.is_empty() && err.is_none(), "{err:?}");
    assert_eq!(resp.state(), ConnState::RequestReceived);
    match d {
        Decision::Accept(p) => {
            resp.accept(p).unwrap();
            assert_eq!(resp.state(), ConnState::AwaitFirstFpdu);
            assert!(resp.tx_fenced() && !resp.rx_raw_mode());
        }
        Decision::Reject(p) => resp.reject(p).unwrap(),
    }
    let (left, _) = pump(&mut resp, &mut init, &mut rng);
    assert!(left.is_empty());
    let to_resp = init.output().to_vec();
    pump(&mut init, &mut resp, &mut rng);
    Run {
        init,
        resp,
        to_resp,
    }
}

fn seeds() -> impl Iterator<Item = u64> {
    [1u64, 7, 0xDEAD_BEEF, 12345, 99].into_iter()
}

fn cfg() -> ConnConfig {
    ConnConfig::default()
}

fn v1() -> ConnConfig {
    ConnConfig {
        max_revision: 1,
        enhanced: false,
        ..cfg()
    }
}

fn p2p(write: bool, read: bool) -> ConnConfig {
    ConnConfig {
        peer_to_peer: true,
        rtr: RtrOptions {
            zero_length_fpdu: false,
            zero_length_write: write,
            zero_length_read: read,
        },
        ..cfg()
    }
}

fn established(r: &Run) {
    assert_eq!(
        r.init.state(),
        ConnState::Established,
        "{:?}",
        r.init.error()
    );
    assert_eq!(
        r.resp.state(),
        ConnState::Established,
        "{:?}",
        r.resp.error()
    );
    assert!(!r.init.tx_fenced() && !r.resp.tx_fenced());
}

#[test]
fn rev1_setup() {
    for s in seeds() {
        let r = run(v1(), v1(), b"hello", Decision::Accept(b"world"), s);
        assert_eq!(r.init.state(), ConnState::Established);
        assert_eq!(r.init.remote_private_data(), b"world");
        assert_eq!(r.resp.remote_private_data(), b"hello");
        let p = r.init.params().unwrap();
        assert_eq!((p.revision, p.enhanced, p.rtr), (1, false, RtrForm::None));
        assert_eq!(p.tx_fpdu_octets, 0);
        // Client-server: the Responder stays fenced until the client's first FPDU.
        assert_eq!(r.resp.state(), ConnState::AwaitFirstFpdu);
        assert!(r.resp.tx_fenced());
        let q = r.resp.params().unwrap();
        assert_eq!((q.revision, q.enhanced), (1, false));
        assert_eq!((q.ird, q.ord), (4, 4));
    }
}

/// A client's first FPDU (a Send) lifts the Responder's fence; the octets stay the engine's.
#[test]
fn rev2_client_server_first_send_unfences() {
    for s in seeds() {
        let mut r = run(cfg(), cfg(), b"", Decision::Accept(b""), s);
        assert_eq!(r.init.state(), ConnState::Established);
        assert_eq!(r.resp.state(), ConnState::AwaitFirstFpdu);
        let p = r.init.params().unwrap();
        assert_eq!((p.revision, p.enhanced, p.rtr), (2, true, RtrForm::None));
        assert_eq!(p.remote_ird_ord, Some((4, 4)));
        let msg = Message {
            last: true,
            ddp: DdpFields::Untagged { msn: 1, mo: 0 },
            body: Body::Send {
                payload: b"first ULP message",
            },
        };
        let mut ulpdu = vec![0u8; msg.buffer_len()];
        msg.emit(&mut rnic_proto::ddp::Packet::new_unchecked(&mut ulpdu[..]))
            .unwrap();
        let mut wire = vec![0u8; 128];
        let n = Framer::new(false, true)
            .write_fpdu(&ulpdu, &mut wire)
            .unwrap();
        let mut rng = Rng(s);
        // The first piece alone does not unfence.
        let (left, err) = feed(&mut r.resp, &wire[..5], &mut rng);
        assert_eq!((left.len(), err), (5, None));
        assert!(r.resp.tx_fenced());
        let (left, err) = feed(&mut r.resp, &wire[5..n], &mut rng);
        assert_eq!((left.len(), err), (n - 5, None));
        assert_eq!(r.resp.state(), ConnState::Established);
        assert_eq!(r.resp.params().unwrap().rtr, RtrForm::None);
    }
}

#[test]
fn first_fpdu_with_bad_crc_fails_without_unfencing() {
    let mut r = run(cfg(), cfg(), b"", Decision::Accept(b""), 3);
    let mut wire = hex("00 0e c1 40 00 00 00 01 00 00 00 00 00 00 00 00 eb d3 4c 5f");
    wire[19] ^= 1;
    let (_, err) = feed(&mut r.resp, &wire, &mut Rng(5));
    assert!(matches!(err, Some(ConnError::BadFirstFpdu(_))));
    assert_eq!(r.resp.state(), ConnState::Failed);
    assert!(r.resp.tx_fenced());
}

#[test]
fn hardware_reports_first_fpdu() {
    let mut r = run(cfg(), cfg(), b"", Decision::Accept(b""), 3);
    r.resp.first_fpdu_received().unwrap();
    assert_eq!(r.resp.state(), ConnState::Established);
    assert!(r.resp.first_fpdu_received().is_err());
}

/// §7 V2: the zero-length RDMA Write RTR, CRC on, no markers.
#[test]
fn p2p_write_rtr() {
    for s in seeds() {
        let r = run(
            p2p(true, true),
            p2p(true, true),
            b"",
            Decision::Accept(b""),
            s,
        );
        established(&r);
        assert_eq!(
            r.to_resp,
            hex("00 0e c1 40 00 00 00 01 00 00 00 00 00 00 00 00 eb d3 4c 5f")
        );
        assert_eq!(r.init.params().unwrap().rtr, RtrForm::ZeroLengthWrite);
        assert_eq!(r.init.params().unwrap().tx_fpdu_octets, 20);
        assert_eq!(r.resp.params().unwrap().rtr, RtrForm::ZeroLengthWrite);
    }
}

/// `rtr_in_output` off (the RTR goes through the FPDU engine's send queue): the Initiator is
/// established with the negotiated form and no FPDU octets in its output; the Responder still
/// waits for its first FPDU, which the engine then sends (V2 / V3 here). The empty FPDU (B) is
/// no work request: it stays in the output (V1).
#[test]
fn rtr_through_the_send_queue() {
    let v2 = "00 0e c1 40 00 00 00 01 00 00 00 00 00 00 00 00 eb d3 4c 5f";
    let v3 = "00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00 00 00 00 01 00 00 00 00 \
              00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00 27 db d7 e7";
    for (write, read, form, wire) in [
        (true, true, RtrForm::ZeroLengthWrite, v2),
        (false, true, RtrForm::ZeroLengthRead, v3),
    ] {
        let icfg = ConnConfig {
            rtr_in_output: false,
            ..p2p(write, read)
        };
        let mut r = run(icfg, p2p(true, true), b"", Decision::Accept(b""), 3);
        assert!(r.to_resp.is_empty(), "{form:?}: no raw RTR");
        assert_eq!(r.init.state(), ConnState::Established);
        let p = r.init.params().unwrap();
        assert_eq!((p.rtr, p.tx_fpdu_octets), (form, 0));
        assert_eq!(r.resp.state(), ConnState::AwaitFirstFpdu);
        let (_, err) = feed(&mut r.resp, &hex(wire), &mut Rng(5));
        assert_eq!(err, None);
        assert_eq!(r.resp.state(), ConnState::Established);
        assert_eq!(r.resp.params().unwrap().rtr, form);
    }
    let b_only = |rtr_in_output| ConnConfig {
        rtr: RtrOptions {
            zero_length_fpdu: true,
            zero_length_write: false,
            zero_length_read: false,
        },
        rtr_in_output,
        ..p2p(false, false)
    };
    let r = run(b_only(false), b_only(true), b"", Decision::Accept(b""), 3);
    assert_eq!(r.to_resp, hex("00 00 00 00 c7 4b 67 48"));
    established(&r);
}

/// §7 V3 / V4: the zero-length RDMA Read RTR and its Read Response.
#[test]
fn p2p_read_rtr() {
    for s in seeds() {
        let r = run(
            p2p(false, true),
            p2p(true, true),
            b"",
            Decision::Accept(b""),
            s,
        );
        established(&r);
        let v3 = hex(
            "00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00 \
             00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00 27 db d7 e7",
        );
        assert_eq!(r.to_resp, v3);
        assert_eq!(r.init.params().unwrap().rtr, RtrForm::ZeroLengthRead);
        assert_eq!(r.resp.params().unwrap().rtr, RtrForm::ZeroLengthRead);
        assert!(r.resp.params().unwrap().ird >= 1);
    }
    let rr = ReadRequestRepr {
        sink_stag: 1,
        sink_to: 0,
        read_size: 0,
        src_stag: 1,
        src_to: 0,
    };
    let mut out = [0u8; 64];
    let n = build_read_rtr_response(&rr, false, true, &mut out).unwrap();
    assert_eq!(
        out[..n].to_vec(),
        hex("00 0e c1 42 00 00 00 01 00 00 00 00 00 00 00 00 21 a3 e8 3e")
    );
}

/// §7 V1: the zero-length FPDU, when both sides enable B.
#[test]
fn p2p_zero_length_fpdu_rtr() {
    let b_only = ConnConfig {
        rtr: RtrOptions {
            zero_length_fpdu: true,
            zero_length_write: false,
            zero_length_read: false,
        },
        ..p2p(false, false)
    };
    for s in seeds() {
        let r = run(b_only, b_only, b"", Decision::Accept(b""), s);
        established(&r);
        assert_eq!(r.to_resp, hex("00 00 00 00 c7 4b 67 48"));
        assert_eq!(r.resp.params().unwrap().rtr, RtrForm::ZeroLengthFpdu);
    }
}

/// Responder accepts no form: A=1, B=C=D=0, the ULP must send first (ENH-SM-7).
#[test]
fn p2p_no_form_means_ulp_send() {
    let r = run(
        p2p(true, true),
        p2p(false, false),
        b"",
        Decision::Accept(b""),
        11,
    );
    assert_eq!(r.init.state(), ConnState::Established);
    assert_eq!(r.init.params().unwrap().rtr, RtrForm::UlpSend);
    assert!(r.to_resp.is_empty());
    assert_eq!(r.resp.state(), ConnState::AwaitFirstFpdu);
}

/// No common form: Terminate 2/3/7 (§7 V5 code 7) and a typed error; the Responder sees the
/// Terminate as its first FPDU.
#[test]
fn p2p_no_matching_rtr_terminates() {
    let b_only = ConnConfig {
        rtr: RtrOptions {
            zero_length_fpdu: true,
            zero_length_write: false,
            zero_length_read: false,
        },
        ..p2p(false, false)
    };
    for s in seeds() {
        let r = run(p2p(true, true), b_only, b"", Decision::Accept(b""), s);
        assert_eq!(r.init.state(), ConnState::Failed);
        assert_eq!(r.init.error(), Some(ConnError::NoMatchingRtr));
        assert_eq!(
            r.to_resp,
            hex("00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 23 07 00 00 22 5b 98 dc")
        );
        assert_eq!(r.resp.state(), ConnState::Failed);
        assert!(matches!(
            r.resp.error(),
            Some(ConnError::PeerTerminated(c)) if c.layer() == 2 && c.error_code() == 7
        ));
    }
}

#[test]
fn crc_truth_table() {
    for (ic, rc) in [(false, false), (false, true), (true, false), (true, true)] {
        let r = run(
            ConnConfig { crc: ic, ..cfg() },
            ConnConfig { crc: rc, ..cfg() },
            b"",
            Decision::Accept(b""),
            ic as u64 * 2 + rc as u64 + 1,
        );
        for p in [r.init.params().unwrap(), r.resp.params().unwrap()] {
            assert_eq!((p.rx_crc, p.tx_crc), (ic || rc, ic || rc));
        }
    }
}

/// Markers per direction (§3.2); with markers the RTR starts with the marker 00000000.
#[test]
fn markers_per_direction() {
    for (im, rm) in [(false, false), (false, true), (true, false), (true, true)] {
        let r = run(
            ConnConfig {
                rx_markers: im,
                ..p2p(true, false)
            },
            ConnConfig {
                rx_markers: rm,
                ..p2p(true, false)
            },
            b"",
            Decision::Accept(b""),
            7,
        );
        established(&r);
        let (i, q) = (r.init.params().unwrap(), r.resp.params().unwrap());
        assert_eq!((i.rx_markers, i.tx_markers), (im, rm));
        assert_eq!((q.rx_markers, q.tx_markers), (rm, im));
        assert_eq!(i.tx_mulpdu, mulpdu(1460, rm));
        let mut expect = Vec::new();
        if rm {
            expect.extend([0, 0, 0, 0]);
        }
        let mut fpdu = hex("00 0e c1 40 00 00 00 01 00 00 00 00 00 00 00 00");
        let mut covered = expect.clone();
        covered.extend(&fpdu);
        fpdu.extend(crc32c(&covered).to_le_bytes());
        expect.extend(fpdu);
        assert_eq!(r.to_resp, expect);
        assert_eq!(crc32c(&r.to_resp), RESIDUE);
    }
}

/// IRD/ORD negotiated down (§3.3): Responder IRD = min(ORD_i, its IRD), ORD = min(its ORD,
/// IRD_i); Initiator IRD = ORD_r, ORD = min(its ORD, IRD_r).
#[test]
fn ird_ord_negotiated_down() {
    let i = ConnConfig {
        ird: 8,
        ord: 8,
        ..cfg()
    };
    let rc = ConnConfig {
        ird: 2,
        ord: 3,
        ..cfg()
    };
    let r = run(i, rc, b"", Decision::Accept(b""), 5);
    let (ip, rp) = (r.init.params().unwrap(), r.resp.params().unwrap());
    assert_eq!((rp.ird, rp.ord), (2, 3));
    assert_eq!(rp.remote_ird_ord, Some((8, 8)));
    assert_eq!((ip.ird, ip.ord), (3, 2));
    assert_eq!(ip.remote_ird_ord, Some((2, 3)));
    // The Initiator's smaller IRD caps the Responder's ORD.
    let r = run(
        ConnConfig { ird: 1, ..i },
        ConnConfig {
            ird: 9,
            ord: 9,
            ..cfg()
        },
        b"",
        Decision::Accept(b""),
        6,
    );
    assert_eq!(r.resp.params().unwrap().ord, 1);
    assert_eq!(r.resp.params().unwrap().ird, 8);
    assert_eq!(
        (r.init.params().unwrap().ird, r.init.params().unwrap().ord),
        (1, 8)
    );
}

/// ORD_i = 0 with the Read RTR: the Responder gives IRD 1 (ENH-IRD-3 exception), and
/// the Initiator, with ORD 0, cannot use the Read form and takes the Write form.
#[test]
fn ord_zero_and_read_rtr() {
    let i = ConnConfig {
        ord: 0,
        ..p2p(true, true)
    };
    let r = run(i, p2p(true, true), b"", Decision::Accept(b""), 8);
    established(&r);
    assert_eq!(r.resp.params().unwrap().ird, 1);
    assert_eq!(r.init.params().unwrap().rtr, RtrForm::ZeroLengthWrite);
}

/// 0x3FFF turns auto negotiation off (§3.3): local values are kept.
#[test]
fn no_auto_negotiation() {
    let i = ConnConfig {
        ird: 0x3FFF,
        ord: 0x3FFF,
        max_ird: 6,
        ..cfg()
    };
    let r = run(
        i,
        ConnConfig {
            ird: 3,
            ord: 5,
            ..cfg()
        },
        b"",
        Decision::Accept(b""),
        9,
    );
    let (ip, rp) = (r.init.params().unwrap(), r.resp.params().unwrap());
    assert_eq!((rp.ird, rp.ord), (3, 5));
    assert_eq!((ip.ird, ip.ord), (6, 15));
    assert_eq!(ip.remote_ird_ord, Some((3, 5)));
}

/// Reject with private data: enhanced, carrying the Responder's IRD / ORD (§1.3 D layout).
#[test]
fn reject_with_private_data() {
    for s in seeds() {
        let r = run(
            cfg(),
            ConnConfig {
                ird: 0,
                ord: 8,
                ..cfg()
            },
            b"please",
            Decision::Reject(b"go away"),
            s,
        );
        assert_eq!(r.init.state(), ConnState::Rejected);
        assert_eq!(r.resp.state(), ConnState::Rejected);
        assert_eq!(r.init.remote_private_data(), b"go away");
        assert_eq!(r.init.reject_ird_ord(), Some((0, 8)));
        assert!(r.init.params().is_none());
    }
    // The exact bytes: golden D with ULP PD.
    let mut resp = Connection::new(
        Role::Responder,
        ConnConfig {
            ird: 0,
            ord: 8,
            ..cfg()
        },
    );
    resp.listen(0).unwrap();
    resp.on_raw_bytes(&req("50 02 00 04 00 04 00 04")).unwrap();
    resp.reject(b"").unwrap();
    assert_eq!(resp.output(), &rep("70 02 00 04 00 00 00 08")[..]);
    // A revision-1 Reject.
    let r = run(v1(), v1(), b"", Decision::Reject(b"x"), 1);
    assert_eq!(r.init.state(), ConnState::Rejected);
    assert_eq!(r.init.reject_ird_ord(), None);
    assert_eq!(r.init.remote_private_data(), b"x");
}

#[test]
fn bad_key() {
    let mut resp = Connection::new(Role::Responder, cfg());
    resp.listen(0).unwrap();
    let mut f = req("40 01 00 00");
    f[3] = b'X';
    assert_eq!(resp.on_raw_bytes(&f), Err(ConnError::BadKey));
    assert_eq!(resp.state(), ConnState::Failed);
    assert_eq!(resp.error(), Some(ConnError::BadKey));
    // Refuses everything afterwards.
    assert_eq!(resp.on_raw_bytes(&f), Ok(0));
    // Two Initiators back to back: each sees a Request where a Reply belongs.
    let mut a = Connection::new(Role::Initiator, cfg());
    let mut b = Connection::new(Role::Initiator, cfg());
    a.connect(0, b"").unwrap();
    b.connect(0, b"").unwrap();
    let (_, err) = pump(&mut a, &mut b, &mut Rng(3));
    assert_eq!(err, Some(ConnError::WrongKey));
    // A Reply sent to a Responder.
    let mut resp = Connection::new(Role::Responder, cfg());
    resp.listen(0).unwrap();
    assert_eq!(
        resp.on_raw_bytes(&rep("40 01 00 00")),
        Err(ConnError::WrongKey)
    );
}

#[test]
fn bad_revision() {
    for (rev, accept0, want) in [
        (3u8, true, Err(ConnError::BadRevision(3))),
        (0xFF, true, Err(ConnError::BadRevision(0xFF))),
        (0, false, Err(ConnError::BadRevision(0))),
        (0, true, Ok(20)),
    ] {
        let mut resp = Connection::new(
            Role::Responder,
            ConnConfig {
                accept_rev0: accept0,
                ..cfg()
            },
        );
        resp.listen(0).unwrap();
        let f = req(&format!("40 {rev:02x} 00 00"));
        assert_eq!(resp.on_raw_bytes(&f), want);
        if want.is_ok() {
            resp.accept(b"").unwrap();
            // Rev 0 is answered as Rev 1 (§3.1).
            assert_eq!(resp.output(), &rep("40 01 00 00")[..]);
        }
    }
    // The Initiator refuses a Reply of a higher revision than it sent.
    let mut init = Connection::new(Role::Initiator, v1());
    init.connect(0, b"").unwrap();
    assert_eq!(
        init.on_raw_bytes(&rep("40 02 00 00")),
        Err(ConnError::RevisionMismatch {
            sent: 1,
            received: 2
        })
    );
}

/// A revision-1 Responder answers a revision-2 enhanced Request with revision 1; the
/// Initiator falls back if allowed (unenhanced, no RTR), else fails.
#[test]
fn revision_fallback() {
    for s in seeds() {
        let r = run(p2p(true, true), v1(), b"", Decision::Accept(b""), s);
        assert_eq!(r.init.state(), ConnState::Established);
        let p = r.init.params().unwrap();
        assert_eq!((p.revision, p.enhanced, p.rtr), (1, false, RtrForm::None));
        assert!(r.to_resp.is_empty());
        // The revision-1 Responder handed the 4 enhanced octets to its ULP as PD.
        assert_eq!(r.resp.remote_private_data().len(), 4);
    }
    let strict = ConnConfig {
        allow_revision_fallback: false,
        ..cfg()
    };
    let r = run(strict, v1(), b"", Decision::Accept(b""), 1);
    assert_eq!(r.init.state(), ConnState::Failed);
    assert_eq!(
        r.init.error(),
        Some(ConnError::RevisionMismatch {
            sent: 2,
            received: 1
        })
    );
    // Revision 2 without S in answer to S=1 is not a fallback.
    let mut init = Connection::new(Role::Initiator, cfg());
    init.connect(0, b"").unwrap();
    assert_eq!(
        init.on_raw_bytes(&rep("40 02 00 00")),
        Err(ConnError::EnhancedMismatch)
    );
}

#[test]
fn truncated_frame_then_timeout() {
    for s in seeds() {
        let mut resp = Connection::new(
            Role::Responder,
            ConnConfig {
                timeout: 100,
                ..cfg()
            },
        );
        resp.listen(10).unwrap();
        let f = req("40 02 00 0a 01 02 03 04 05 06 07 08 09 0a");
        let (_, err) = feed(&mut resp, &f[..25], &mut Rng(s));
        assert_eq!(err, None);
        resp.tick(109);
        assert_eq!(resp.state(), ConnState::AwaitRequest);
        resp.tick(110);
        assert_eq!(resp.state(), ConnState::Failed);
        assert_eq!(
            resp.error(),
            Some(ConnError::Timeout {
                state: ConnState::AwaitRequest,
                partial: 25
            })
        );
    }
    // The LLP closing with half a frame.
    let mut init = Connection::new(Role::Initiator, cfg());
    init.connect(0, b"").unwrap();
    init.on_raw_bytes(&rep("50 02")).unwrap();
    init.on_llp_closed();
    assert_eq!(init.error(), Some(ConnError::Truncated { received: 18 }));
}

#[test]
fn oversized_private_data() {
    // PD_Length 513: refused once the header is in, without waiting for the PD.
    let mut resp = Connection::new(Role::Responder, cfg());
    resp.listen(0).unwrap();
    assert_eq!(
        resp.on_raw_bytes(&req("40 02 02 01")),
        Err(ConnError::PrivateDataTooLong(513))
    );
    let mut init = Connection::new(Role::Initiator, cfg());
    init.connect(0, b"").unwrap();
    assert_eq!(
        init.on_raw_bytes(&rep("50 02 ff ff")),
        Err(ConnError::PrivateDataTooLong(0xFFFF))
    );
    // 512 octets in all is fine.
    let pd = vec![0x5A; MAX_ULP_PRIVATE_DATA];
    for s in seeds() {
        let r = run(cfg(), cfg(), &pd, Decision::Accept(&pd), s);
        assert_eq!(r.init.state(), ConnState::Established);
        assert_eq!(r.init.remote_private_data(), &pd[..]);
    }
    // Locally: too much for an enhanced frame.
    let mut init = Connection::new(Role::Initiator, cfg());
    assert_eq!(
        init.connect(0, &[0; MAX_ULP_PRIVATE_DATA + 1]),
        Err(ConnError::LocalPrivateDataTooLong(509))
    );
    assert_eq!(init.state(), ConnState::Idle);
}

#[test]
fn timeouts() {
    let c = ConnConfig {
        timeout: 50,
        ..p2p(true, true)
    };
    let mut init = Connection::new(Role::Initiator, c);
    init.connect(100, b"").unwrap();
    init.tick(149);
    assert_eq!(init.state(), ConnState::RequestSent);
    init.tick(150);
    assert_eq!(
        init.error(),
        Some(ConnError::Timeout {
            state: ConnState::RequestSent,
            partial: 0
        })
    );
    // Responder waiting for the ULP's decision.
    let mut r = run(c, c, b"", Decision::Accept(b""), 1);
    established(&r);
    r.init.tick(1000); // established: no effect
    assert_eq!(r.init.state(), ConnState::Established);
    let mut resp = Connection::new(Role::Responder, c);
    resp.listen(0).unwrap();
    resp.on_raw_bytes(&req("40 02 00 00")).unwrap();
    resp.tick(50);
    assert_eq!(
        resp.error(),
        Some(ConnError::Timeout {
            state: ConnState::RequestReceived,
            partial: 0
        })
    );
    // P2P Responder waiting for the RTR.
    let mut resp = Connection::new(Role::Responder, c);
    resp.listen(0).unwrap();
    resp.on_raw_bytes(&req("50 02 00 04 80 04 c0 04")).unwrap();
    resp.accept(b"").unwrap();
    resp.tick(50);
    assert_eq!(resp.state(), ConnState::Failed);
    // Client-server Responder: no timer on the first FPDU.
    let mut resp = Connection::new(Role::Responder, c);
    resp.listen(0).unwrap();
    resp.on_raw_bytes(&req("40 01 00 00")).unwrap();
    resp.accept(b"").unwrap();
    resp.tick(1_000_000);
    assert_eq!(resp.state(), ConnState::AwaitFirstFpdu);
}

#[test]
fn trailing_bytes_after_frame() {
    let mut init = Connection::new(Role::Initiator, v1());
    init.connect(0, b"").unwrap();
    let mut f = rep("40 01 00 00");
    f.extend([0, 0]);
    assert_eq!(init.on_raw_bytes(&f), Err(ConnError::TrailingBytes));
    let mut resp = Connection::new(Role::Responder, v1());
    resp.listen(0).unwrap();
    resp.on_raw_bytes(&req("40 01 00 00")).unwrap();
    assert_eq!(resp.on_raw_bytes(&[1]), Err(ConnError::TrailingBytes));
}

#[test]
fn api_misuse_is_an_error() {
    let mut init = Connection::new(Role::Initiator, cfg());
    assert!(init.listen(0).is_err());
    assert!(init.accept(b"").is_err());
    init.connect(0, b"").unwrap();
    assert!(init.connect(0, b"").is_err());
    let mut bad = Connection::new(
        Role::Initiator,
        ConnConfig {
            max_revision: 3,
            ..cfg()
        },
    );
    assert_eq!(bad.connect(0, b""), Err(ConnError::BadConfig));
}

// ------------------------------------------------------------ golden frames (§1.3)

/// §1.3 A: v1 Request with CRC; the Responder's v1 Reply.
#[test]
fn golden_a_v1() {
    let mut init = Connection::new(Role::Initiator, v1());
    init.connect(0, b"").unwrap();
    assert_eq!(init.output(), &req("40 01 00 00")[..]);
    let mut resp = Connection::new(Role::Responder, v1());
    resp.listen(0).unwrap();
    assert_eq!(resp.on_raw_bytes(init.output()), Ok(20));
    resp.accept(b"").unwrap();
    assert_eq!(resp.output(), &rep("40 01 00 00")[..]);
}

/// §1.3 B as sent; answered by this Responder (HW IRD/ORD at most 15, C only), and §1.3 C
/// (ORD_r 16 over what the Initiator can give) ending in Terminate 2/3/6 (§7 V5 code 6).
#[test]
fn golden_b_c_and_insufficient_ird() {
    let c = ConnConfig {
        ird: 16,
        ord: 16,
        ..p2p(true, true)
    };
    let mut init = Connection::new(Role::Initiator, c);
    init.connect(0, b"ABCD").unwrap();
    assert_eq!(
        init.output(),
        &req("50 02 00 08 80 10 c0 10 41 42 43 44")[..]
    );
    let mut resp = Connection::new(
        Role::Responder,
        ConnConfig {
            ird: 15,
            ord: 15,
            ..p2p(true, false)
        },
    );
    resp.listen(0).unwrap();
    resp.on_raw_bytes(init.output()).unwrap();
    assert_eq!(resp.remote_private_data(), b"ABCD");
    resp.accept(b"").unwrap();
    assert_eq!(resp.output(), &rep("50 02 00 04 80 0f 80 0f")[..]);
    init.consume_output(32);
    assert_eq!(
        init.on_raw_bytes(&rep("50 02 00 04 80 10 80 10")),
        Err(ConnError::InsufficientIrd {
            remote_ird: 16,
            remote_ord: 16
        })
    );
    assert_eq!(
        init.output(),
        &hex("00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 23 06 00 00 5c c9 d9 79")
            [..]
    );
}

/// §1.3 E: no auto negotiation; §7 V6: Terminate with EType 0 (the siw convention).
#[test]
fn golden_e_and_etype0_terminate() {
    let mut init = Connection::new(
        Role::Initiator,
        ConnConfig {
            ird: 0x3FFF,
            ord: 0x3FFF,
            ..cfg()
        },
    );
    init.connect(0, b"").unwrap();
    assert_eq!(init.output(), &req("50 02 00 04 3f ff 3f ff")[..]);
    let mut init = Connection::new(
        Role::Initiator,
        ConnConfig {
            term_error_type: TERMINATE_ETYPE_MPA,
            ..p2p(true, true)
        },
    );
    init.connect(0, b"").unwrap();
    init.consume_output(24);
    // Reply: A=1 with only B, which this Initiator cannot send.
    assert_eq!(
        init.on_raw_bytes(&rep("40 02 00 00")),
        Err(ConnError::EnhancedMismatch)
    );
    let mut init = Connection::new(
        Role::Initiator,
        ConnConfig {
            term_error_type: TERMINATE_ETYPE_MPA,
            ..p2p(true, true)
        },
    );
    init.connect(0, b"").unwrap();
    init.consume_output(24);
    assert_eq!(
        init.on_raw_bytes(&rep("50 02 00 04 c0 04 00 04")),
        Err(ConnError::NoMatchingRtr)
    );
    assert_eq!(
        init.output(),
        &hex("00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 20 07 00 00 1b d2 ba be")
            [..]
    );
}

#[test]
fn rtr_builder_forms() {
    let mut out = [0u8; 64];
    assert_eq!(build_rtr(RtrForm::None, false, true, &mut out), Ok(0));
    assert_eq!(build_rtr(RtrForm::UlpSend, false, true, &mut out), Ok(0));
    assert_eq!(
        build_rtr(RtrForm::ZeroLengthFpdu, false, true, &mut out),
        Ok(8)
    );
    // CRC off: the field is still there, as zeros.
    assert_eq!(
        build_rtr(RtrForm::ZeroLengthWrite, false, false, &mut out),
        Ok(20)
    );
    assert_eq!(&out[16..20], &[0, 0, 0, 0]);
}

/// A P2P Reply whose A differs from the Request's.
#[test]
fn p2p_mismatch() {
    let mut init = Connection::new(Role::Initiator, p2p(true, true));
    init.connect(0, b"").unwrap();
    assert_eq!(
        init.on_raw_bytes(&rep("50 02 00 04 00 04 00 04")),
        Err(ConnError::PeerToPeerMismatch)
    );
}

/// Every combination of revision, enhanced, model, RTR forms, CRC and markers on both sides,
/// with random segmentation: each run ends established on both sides (after the RTR) or in a
/// typed error, and the two sides agree on CRC and markers per direction.
#[test]
fn configuration_matrix() {
    let mut rng = Rng(0x1234_5678);
    let mut established_runs = 0;
    let mut outcomes = std::collections::BTreeMap::new();
    for i in 0..400u32 {
        let mut pick = || {
            let v = rng.next();
            ConnConfig {
                max_revision: 1 + (v & 1) as u8,
                enhanced: v & 2 != 0,
                crc: v & 4 != 0,
                rx_markers: v & 8 != 0,
                peer_to_peer: v & 16 != 0,
                rtr: RtrOptions {
                    zero_length_fpdu: v & 32 != 0,
                    zero_length_write: v & 64 != 0,
                    zero_length_read: v & 128 != 0,
                },
                ird: ((v >> 8) % 6) as u16,
                ord: ((v >> 12) % 6) as u16,
                ..cfg()
            }
        };
        let (ic, rc) = (pick(), pick());
        let r = run(ic, rc, b"pd", Decision::Accept(b"ok"), u64::from(i) + 1);
        let want = expected_rtr(&ic, &rc);
        match want {
            Ok(form) => assert_eq!(r.init.params().map(|p| p.rtr), Some(form), "{ic:?} {rc:?}"),
            Err(e) => assert_eq!(r.init.error(), Some(e), "{ic:?} {rc:?}"),
        }
        *outcomes
            .entry(format!(
                "{:?} {:?} {:?}",
                r.init.state(),
                r.resp.state(),
                r.init.error()
            ))
            .or_insert(0) += 1;
        match (r.init.state(), r.resp.state()) {
            (ConnState::Established, ConnState::Established) => {
                established_runs += 1;
                let (a, b) = (r.init.params().unwrap(), r.resp.params().unwrap());
                assert_eq!((a.tx_crc, a.tx_markers), (b.rx_crc, b.rx_markers));
                assert_eq!((a.rx_crc, a.rx_markers), (b.tx_crc, b.tx_markers));
                assert_eq!(
                    (a.tx_crc, a.rx_markers, b.rx_markers),
                    (ic.crc || rc.crc, ic.rx_markers, rc.rx_markers)
                );
                assert!(
                    a.ird >= b.ord && b.ird >= a.ord || !a.enhanced,
                    "{a:?} {b:?}"
                );
                assert_eq!(a.rtr, b.rtr);
                assert_eq!(a.tx_fpdu_octets, r.to_resp.len());
            }
            // No RTR: the Responder waits for the client's first message.
            (ConnState::Established, ConnState::AwaitFirstFpdu) => {
                let a = r.init.params().unwrap();
                assert!(matches!(a.rtr, RtrForm::None | RtrForm::UlpSend));
                assert!(r.to_resp.is_empty());
            }
            (ConnState::Failed, _) => {
                let e = r.init.error().unwrap();
                assert!(
                    matches!(
                        e,
                        ConnError::NoMatchingRtr
                            | ConnError::EnhancedMismatch
                            | ConnError::PeerToPeerMismatch
                            | ConnError::RevisionMismatch { .. }
                    ),
                    "{e:?} {ic:?} {rc:?}"
                );
            }
            other => panic!("{other:?} {ic:?} {rc:?}"),
        }
    }
    assert!(established_runs > 5, "{outcomes:?}");
    assert_eq!(outcomes.len(), 3, "{outcomes:?}");
}

/// Independent model of the outcome (§3.1 revision/S policy, §3.3, §3.4 RTR choice).
fn expected_rtr(ic: &ConnConfig, rc: &ConnConfig) -> Result<RtrForm, ConnError> {
    let sent_enh = ic.enhanced && ic.max_revision == 2;
    let understands = rc.enhanced && rc.max_revision == 2;
    let reply_rev = if (sent_enh && !understands) || ic.max_revision == 1 {
        1
    } else {
        rc.max_revision
    };
    if reply_rev < ic.max_revision || !sent_enh || !ic.peer_to_peer {
        return Ok(RtrForm::None);
    }
    let mut ird_r = ic.ord.min(rc.ird).min(rc.max_ird);
    if ic.ord == 0 && ic.rtr.zero_length_read && rc.rtr.zero_length_read {
        ird_r = ird_r.max(1);
    }
    let (b, c, d) = (
        rc.rtr.zero_length_fpdu,
        rc.rtr.zero_length_write,
        rc.rtr.zero_length_read && ird_r >= 1,
    );
    let ord_i = ic.ord.min(ird_r);
    if c && ic.rtr.zero_length_write {
        Ok(RtrForm::ZeroLengthWrite)
    } else if d && ic.rtr.zero_length_read && ord_i >= 1 {
        Ok(RtrForm::ZeroLengthRead)
    } else if b && ic.rtr.zero_length_fpdu {
        Ok(RtrForm::ZeroLengthFpdu)
    } else if !(b || c || d) {
        Ok(RtrForm::UlpSend)
    } else {
        Err(ConnError::NoMatchingRtr)
    }
}

/// A device without markers (`markers_supported` false, the `no-markers` build).
fn no_markers(c: ConnConfig) -> ConnConfig {
    ConnConfig {
        markers_supported: false,
        ..c
    }
}

/// Without markers, asking for them (M = 1 on what this side receives) is a setup error of
/// either role: nothing is sent, the connection stays idle.
#[test]
fn no_markers_local_request_is_a_setup_error() {
    let asks = no_markers(ConnConfig {
        rx_markers: true,
        ..cfg()
    });
    let mut init = Connection::new(Role::Initiator, asks);
    assert_eq!(init.connect(0, b""), Err(ConnError::MarkersUnsupported));
    assert_eq!(init.state(), ConnState::Idle);
    assert!(init.output().is_empty());
    let mut resp = Connection::new(Role::Responder, asks);
    assert_eq!(resp.listen(0), Err(ConnError::MarkersUnsupported));
    assert_eq!(resp.state(), ConnState::Idle);
    assert_eq!(ConnError::MarkersUnsupported.llp_error_code(), None);
    // Not asking works, and the Request says M = 0: golden B's flags (C | S, no M).
    let mut init = Connection::new(Role::Initiator, no_markers(cfg()));
    init.connect(0, b"").unwrap();
    assert_eq!(init.output(), &req("50 02 00 04 00 04 00 04")[..]);
}

/// Without markers, a Request with M = 1 (the Responder would have to insert markers, §3.2) is
/// refused with a Reply with R = 1 before the ULP is asked: enhanced (IRD / ORD as `reject`)
/// for an enhanced Request, revision 1 for a revision-1 one.
#[test]
fn no_markers_request_with_m_is_rejected() {
    for (request, reply) in [
        // M | C | S, Rev 2, IRD 4, ORD 4 -> C | R | S, Rev 2, this side's IRD 3 / ORD 5.
        ("d0 02 00 04 00 04 00 04", "70 02 00 04 00 03 00 05"),
        // M only, Rev 1 -> C | R (this side wants CRC), Rev 1.
        ("80 01 00 00", "60 01 00 00"),
    ] {
        let mut resp = Connection::new(
            Role::Responder,
            no_markers(ConnConfig {
                ird: 3,
                ord: 5,
                ..cfg()
            }),
        );
        resp.listen(0).unwrap();
        assert_eq!(
            resp.on_raw_bytes(&req(request)),
            Err(ConnError::PeerRequiresMarkers),
            "{request}"
        );
        assert_eq!(resp.state(), ConnState::Failed);
        assert_eq!(resp.error(), Some(ConnError::PeerRequiresMarkers));
        assert!(resp.request_info().unwrap().markers);
        assert!(resp.params().is_none());
        assert_eq!(resp.output(), &rep(reply)[..], "{request}");
        assert_eq!(
            resp.accept(b""),
            Err(ConnError::BadState(ConnState::Failed))
        );
    }
    // Back to back: an Initiator that asks for markers sees the Reject.
    for s in seeds() {
        let mut rng = Rng(s | 1);
        let mut init = Connection::new(
            Role::Initiator,
            ConnConfig {
                rx_markers: true,
                ..cfg()
            },
        );
        let mut resp = Connection::new(Role::Responder, no_markers(cfg()));
        resp.listen(0).unwrap();
        init.connect(0, b"").unwrap();
        let (_, err) = pump(&mut init, &mut resp, &mut rng);
        assert_eq!(err, Some(ConnError::PeerRequiresMarkers));
        let (left, err) = pump(&mut resp, &mut init, &mut rng);
        assert!(left.is_empty() && err.is_none());
        assert_eq!(init.state(), ConnState::Rejected);
        assert_eq!(init.reject_ird_ord(), Some((4, 4)));
    }
}

/// Without markers, a Reply with M = 1 (the Initiator would have to insert markers) ends the
/// setup with nothing sent: no RTR, no Terminate (both would need markers). A Reject with M = 1
/// is still a Reject.
#[test]
fn no_markers_reply_with_m_fails_without_output() {
    let start = || {
        let mut init = Connection::new(Role::Initiator, no_markers(p2p(true, true)));
        init.connect(0, b"").unwrap();
        let n = init.output().len();
        init.consume_output(n);
        init
    };
    let mut init = start();
    // M | C | S, Rev 2, IRD 4, ORD 4, A with the Write RTR.
    assert_eq!(
        init.on_raw_bytes(&rep("d0 02 00 04 80 04 c0 04")),
        Err(ConnError::PeerRequiresMarkers)
    );
    assert_eq!(init.state(), ConnState::Failed);
    assert_eq!(init.error(), Some(ConnError::PeerRequiresMarkers));
    assert!(init.output().is_empty());
    assert!(init.params().is_none());
    assert_eq!(
        ConnError::PeerRequiresMarkers.llp_error_code(),
        Some(rnic_proto::mpa::LlpErrorCode::LocalCatastrophic)
    );
    // The same Reply without M establishes.
    let mut init = start();
    assert_eq!(init.on_raw_bytes(&rep("50 02 00 04 80 04 c0 04")), Ok(24));
    assert_eq!(init.state(), ConnState::Established);
    let p = init.params().unwrap();
    assert!(!p.rx_markers && !p.tx_markers);
    // A Reject with M = 1.
    let mut init = start();
    assert_eq!(init.on_raw_bytes(&rep("f0 02 00 04 00 04 00 04")), Ok(24));
    assert_eq!(init.state(), ConnState::Rejected);
    // Back to back: a Responder that asks for markers.
    for s in seeds() {
        let mut rng = Rng(s | 1);
        let mut init = Connection::new(Role::Initiator, no_markers(cfg()));
        let mut resp = Connection::new(
            Role::Responder,
            ConnConfig {
                rx_markers: true,
                ..cfg()
            },
        );
        resp.listen(0).unwrap();
        init.connect(0, b"").unwrap();
        pump(&mut init, &mut resp, &mut rng);
        resp.accept(b"").unwrap();
        let (_, err) = pump(&mut resp, &mut init, &mut rng);
        assert_eq!(err, Some(ConnError::PeerRequiresMarkers));
        assert_eq!(init.state(), ConnState::Failed);
        assert!(init.output().is_empty());
    }
}

/// Without markers and a peer without them, nothing changes: the setups of
/// `markers_per_direction` without markers, byte for byte.
#[test]
fn no_markers_device_without_markers_peer() {
    for s in seeds() {
        let with = run(
            p2p(true, false),
            p2p(true, false),
            b"",
            Decision::Accept(b""),
            s,
        );
        let without = run(
            no_markers(p2p(true, false)),
            no_markers(p2p(true, false)),
            b"",
            Decision::Accept(b""),
            s,
        );
        established(&without);
        assert_eq!(with.to_resp, without.to_resp);
        assert_eq!(with.init.params(), without.init.params());
        assert_eq!(with.resp.params(), without.resp.params());
    }
}
