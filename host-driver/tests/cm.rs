//! MPA connection setup through the firmware (`rnic_driver::cm`) on the whole core's raw ports,
//! rust-hdl back end: QP 0 the Initiator, QP 1 the Responder of one core over the LLP loopback,
//! then verified traffic (`rnic_driver::traffic` checks every byte and completion).

use rnic_driver::cm::{self, CmConfig, CmError, Established};
use rnic_driver::traffic::{Mix, OpKind, Session, Sizes, TrafficConfig};
use rnic_driver::verbs::{Device, Qp, QpCaps, QpState, VerbsError};
use rnic_firmware::conn::{ConnError, RtrForm};
use rnic_proto::crc32c::{crc32c, to_wire};
use rnic_sim::dma_port::DmaConfig;
use rnic_sim::loopback::{LlpLoopback, LoopbackConfig};
use rnic_sim::tb::rnic::DeviceConfig;
use rnic_sim::testbench::BackendKind;

fn open(seed: u64) -> Device {
    let cfg = DeviceConfig {
        backend: BackendKind::RustHdl,
        dma: DmaConfig::default(),
        seed,
    };
    let llp = LoopbackConfig {
        capture: true,
        ..LoopbackConfig::full_speed(seed)
    };
    Device::open(cfg, Box::new(LlpLoopback::new(llp))).expect("open the simulated device")
}

/// A device with two unconnected QPs (0 and 1, paired by the loopback), each with its own CQ.
fn two_qps(seed: u64) -> (Device, [Qp; 2]) {
    let mut dev = open(seed);
    let pd = dev.alloc_pd().unwrap();
    let qp = |dev: &mut Device| {
        let cq = dev.create_cq(4).unwrap();
        dev.create_qp(pd, cq, cq, QpCaps::default()).unwrap()
    };
    let q = [qp(&mut dev), qp(&mut dev)];
    (dev, q)
}

fn cfgs(f: impl Fn(&mut CmConfig, usize)) -> [CmConfig; 2] {
    let mut c = [CmConfig::default(), CmConfig::default()];
    c[0].private_data = b"request pd".to_vec();
    c[1].private_data = b"reply pd!".to_vec();
    for (i, x) in c.iter_mut().enumerate() {
        f(x, i);
    }
    c
}

/// Sets up a session's pair through MPA with `cfg` (probe on) and returns the two results.
fn setup(seed: u64, cfg: [CmConfig; 2]) -> (Session, [Established; 2]) {
    let mut got = None;
    let s = Session::new_with(open(seed), 1, 2, 4096 + 128, |dev, p| {
        let probe = (p.cq[0], p.remote_mr[1].rkey, p.remote_mr[1].addr);
        let r = cm::connect_pair(dev, p.qp, cfg.clone(), Some(probe))
            .map_err(|e| VerbsError::Device(e.to_string()))?;
        got = Some(r);
        Ok(())
    })
    .expect("MPA setup");
    let e = got.expect("connected");
    assert_eq!(e[0].remote_private_data, b"reply pd!");
    // A Rev 1 Responder hands the whole PD to its ULP (the enhanced octets included).
    assert!(e[1].remote_private_data.ends_with(b"request pd"));
    assert!(!e[0].tx_fenced && !e[1].tx_fenced, "probe lifts the fence");
    for q in s.pairs[0].qp {
        assert_eq!(s.dev.qp_state(q).unwrap(), QpState::Rts);
    }
    (s, e)
}

/// The packets connection `conn` sent after its MPA frame (the first packet), as captured.
fn fpdus(s: &Session, conn: usize) -> Vec<Vec<u8>> {
    let lb = s.dev.sim().llp_as::<LlpLoopback>().unwrap();
    let mut v: Vec<Vec<u8>> = lb
        .captured()
        .iter()
        .filter(|p| p.conn == conn)
        .map(|p| p.bytes.clone())
        .collect();
    v.remove(0);
    v
}

/// A verified Write, Read and Send each way of `len` bytes.
fn traffic(s: &mut Session, len: u32) {
    for (i, op) in [OpKind::Write, OpKind::Read, OpKind::Send]
        .into_iter()
        .enumerate()
    {
        let cfg = TrafficConfig {
            mix: Mix::Only(op),
            sizes: Sizes::Fixed(len),
            count: 2,
            window: 1,
            slots: 2,
            random_alignment: false,
            both_directions: true,
            seed: i as u64,
            stall_cycles: 300_000,
        };
        let sum = s
            .run(&cfg, |_| {})
            .unwrap_or_else(|e| panic!("{op:?} of {len} bytes after MPA setup: {e}"));
        assert_eq!(sum.ops, 2);
        assert_eq!(sum.bytes, 2 * u64::from(len));
    }
    for q in s.pairs[0].qp {
        assert_eq!(s.dev.query_async_event(q).unwrap(), None);
    }
}

/// Rev 2 (RFC 6581) with the defaults: enhanced, CRC on both ways, no markers, IRD = ORD = 4,
/// client-server (no RTR); then Write / Read / Send both ways.
#[test]
fn rev2_default_setup_then_traffic() {
    let (mut s, e) = setup(1, cfgs(|_, _| {}));
    for x in &e {
        let m = x.mpa;
        assert_eq!((m.revision, m.enhanced), (2, true));
        assert_eq!((m.rx_crc, m.tx_crc), (true, true));
        assert_eq!((m.rx_markers, m.tx_markers), (false, false));
        assert_eq!((m.ird, m.ord), (4, 4));
        assert_eq!(m.rtr, RtrForm::None);
        assert_eq!(m.tx_fpdu_octets, 0);
        assert_eq!((x.params.ird, x.params.ord), (4, 4));
    }
    // The probe, the first FPDU: a zero-length tagged Write (ULPDU_Length 14), no marker.
    let probe = &fpdus(&s, 0)[0];
    assert_eq!(probe.len(), 20);
    assert_eq!(probe[..2], [0, 14]);
    assert_eq!(e[0].mpa.remote_ird_ord, Some((4, 4)));
    let req = e[1].request.expect("the Responder saw the Request");
    assert_eq!((req.revision, req.crc, req.markers), (2, true, false));
    traffic(&mut s, 300);
}

/// Rev 1 (RFC 5044) both sides, and a Rev 2 Initiator falling back to a Rev 1 Responder.
#[test]
fn rev1_setup_and_fallback() {
    let (mut s, e) = setup(2, cfgs(|c, _| c.conn.max_revision = 1));
    for x in &e {
        assert_eq!((x.mpa.revision, x.mpa.enhanced), (1, false));
        assert_eq!(x.mpa.remote_ird_ord, None);
    }
    traffic(&mut s, 100);
    let (mut s, e) = setup(
        3,
        cfgs(|c, i| {
            if i == 1 {
                c.conn.max_revision = 1;
            }
        }),
    );
    for x in &e {
        assert_eq!((x.mpa.revision, x.mpa.enhanced), (1, false));
    }
    // S=1 read as reserved: IRD 4 / ORD 4 (no A) ahead of the ULP's octets.
    assert_eq!(e[1].remote_private_data, b"\x00\x04\x00\x04request pd");
    traffic(&mut s, 100);
}

/// The last FPDU QP 0 sent for one 100-byte Write (captured by the loopback model).
fn write_fpdu(s: &mut Session) -> Vec<u8> {
    let cfg = TrafficConfig {
        mix: Mix::Only(OpKind::Write),
        sizes: Sizes::Fixed(100),
        count: 1,
        window: 1,
        slots: 2,
        random_alignment: false,
        both_directions: false,
        seed: 9,
        stall_cycles: 300_000,
    };
    s.run(&cfg, |_| {}).expect("one Write");
    let lb = s.dev.sim().llp_as::<LlpLoopback>().unwrap();
    let pkt = lb.captured().iter().rev().find(|p| p.conn == 0).unwrap();
    pkt.bytes.clone()
}

/// CRC off when neither side asks (C=0 both), on when only one does (§3.2: Req.C | Rep.C).
/// The wire shows it: the CRC field is present either way (RFC 5044 §4.1), 0 without CRC and
/// the CRC-32C of the FPDU with it.
#[test]
fn crc_negotiation_on_and_off() {
    let (mut off, e) = setup(4, cfgs(|c, _| c.conn.crc = false));
    for x in &e {
        assert_eq!((x.params.rx_crc, x.params.tx_crc), (false, false));
    }
    traffic(&mut off, 64);
    let (mut one, e) = setup(
        5,
        cfgs(|c, i| {
            if i == 0 {
                c.conn.crc = false;
            }
        }),
    );
    for x in &e {
        assert_eq!((x.params.rx_crc, x.params.tx_crc), (true, true));
    }
    traffic(&mut one, 64);
    // MPA length 2 + DDP/RDMAP 14 + 100 + CRC 4.
    let with = write_fpdu(&mut one);
    let without = write_fpdu(&mut off);
    assert_eq!((with.len(), without.len()), (120, 120));
    assert_eq!(without[116..], [0; 4]);
    assert_eq!(with[116..], to_wire(crc32c(&with[..116])));
    assert_ne!(with[116..], [0; 4]);
}

/// IRD / ORD negotiated down (RFC 6581 §3.3): Initiator IRD 8 ORD 8, Responder IRD 2 ORD 3 give
/// the Responder IRD 2 ORD 3 and the Initiator IRD 3 (= ORD_r) ORD 2 (= IRD_r).
#[test]
fn ird_ord_negotiated_down() {
    let (mut s, e) = setup(
        6,
        cfgs(|c, i| {
            let (ird, ord) = if i == 0 { (8, 8) } else { (2, 3) };
            c.conn.ird = ird;
            c.conn.ord = ord;
        }),
    );
    assert_eq!((e[0].params.ird, e[0].params.ord), (3, 2));
    assert_eq!((e[1].params.ird, e[1].params.ord), (2, 3));
    assert_eq!(e[0].mpa.remote_ird_ord, Some((2, 3)));
    assert_eq!(e[1].mpa.remote_ird_ord, Some((8, 8)));
    traffic(&mut s, 128);
}

/// Markers (RFC 5044 §5): each side's M bit asks for markers on what it receives; MpaTx inserts
/// them from the QP_CTRL commit (the grid starts at the first FPDU octet, as the commit resets
/// the stream offset and nothing FPDU-mode went through the raw path).
#[cfg(not(feature = "no-markers"))]
#[test]
fn markers_both_ways_then_traffic() {
    let (mut s, e) = setup(7, cfgs(|c, _| c.conn.rx_markers = true));
    for x in &e {
        assert_eq!((x.params.rx_markers, x.params.tx_markers), (true, true));
        assert_eq!(x.mpa.tx_mulpdu, x.params.tx_mulpdu);
    }
    // The first FPDU (the probe) starts on the grid: a marker with FPDUPTR 0, then the header.
    let probe = &fpdus(&s, 0)[0];
    assert_eq!(probe.len(), 24);
    assert_eq!(probe[..6], [0, 0, 0, 0, 0, 14]);
    // Enough octets for several 512-octet marker intervals each way.
    traffic(&mut s, 1500);
}

/// Markers one way only: the Responder asks (M=1 in the Reply), the Initiator does not.
#[cfg(not(feature = "no-markers"))]
#[test]
fn markers_one_way_then_traffic() {
    let (mut s, e) = setup(8, cfgs(|c, i| c.conn.rx_markers = i == 1));
    assert_eq!(
        (e[0].params.rx_markers, e[0].params.tx_markers),
        (false, true)
    );
    assert_eq!(
        (e[1].params.rx_markers, e[1].params.tx_markers),
        (true, false)
    );
    traffic(&mut s, 1100);
}

/// A Responder that rejects: both sides end with `Rejected` and the Responder's private data,
/// and neither QP is committed.
#[test]
fn reject_leaves_both_qps_idle() {
    let (mut dev, qp) = two_qps(9);
    let c = cfgs(|c, i| {
        if i == 1 {
            c.accept = false;
            c.private_data = b"go away".to_vec();
        }
    });
    let r = cm::connect_pair(&mut dev, qp, c, None);
    assert_eq!(
        r.unwrap_err(),
        CmError::Rejected {
            private_data: b"go away".to_vec()
        }
    );
    for q in qp {
        assert_eq!(dev.qp_state(q).unwrap(), QpState::Idle);
    }
}

/// An Initiator whose QP cannot hold the Responder's ORD sends the Terminate 2/3/6 through the
/// raw path and fails with `InsufficientIrd`; its QP stays idle.
#[test]
fn insufficient_ird_fails_the_initiator() {
    let (mut dev, qp) = two_qps(10);
    let c = cfgs(|c, i| {
        if i == 0 {
            // Advertises IRD 8 but its QP holds only 1.
            c.conn.max_ird = 1;
            c.conn.ird = 8;
        } else {
            c.conn.ord = 4;
        }
    });
    let r = cm::connect_pair(&mut dev, qp, c, None);
    match r {
        Err(CmError::Mpa(ConnError::InsufficientIrd { .. })) => {}
        other => panic!("expected InsufficientIrd, got {other:?}"),
    }
    assert_eq!(dev.qp_state(qp[0]).unwrap(), QpState::Idle);
}

/// Golden vectors of `mpa-peer-connect.md` §7 (no markers, CRC on).
const V2_WRITE_RTR: [u8; 20] = [
    0x00, 0x0e, 0xc1, 0x40, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0xeb, 0xd3, 0x4c, 0x5f,
];
const V3_READ_RTR: [u8; 52] = [
    0x00, 0x2e, 0x41, 0x41, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0x27, 0xdb, 0xd7, 0xe7,
];
const V4_READ_RTR_RESPONSE: [u8; 20] = [
    0x00, 0x0e, 0xc1, 0x42, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0x21, 0xa3, 0xe8, 0x3e,
];

/// Peer-to-peer configurations (A=1) with the Initiator offering `rtr` (C, D).
fn p2p_cfgs(write: bool, read: bool, markers: bool) -> [CmConfig; 2] {
    cfgs(|c, i| {
        c.conn.peer_to_peer = i == 0;
        c.conn.rx_markers = markers;
        if i == 0 {
            c.conn.rtr.zero_length_write = write;
            c.conn.rtr.zero_length_read = read;
        }
    })
}

/// No CQE on either side of a fresh connection (the RTR and its Read Response are not
/// completions, ENH-SM-4).
fn no_completions(s: &mut Session) {
    let p = &s.pairs[0];
    let cqs = p.cq;
    for cq in cqs {
        assert_eq!(s.dev.poll_cq(cq, 8).unwrap(), vec![], "no CQE for the RTR");
    }
}

/// Peer-to-peer with the zero-length RDMA Write RTR (C, §2.5): the RTR is the Initiator's first
/// FPDU, byte for byte the catalog's V2; it lifts the Responder's fence
/// (`QP_STATUS_FPDU_RECEIVED`) with no CQE and no event; then traffic both ways.
#[test]
fn p2p_write_rtr_then_traffic() {
    let (mut s, e) = setup(12, p2p_cfgs(true, true, false));
    // The Responder knows the model, not the form: the core reports that an FPDU arrived,
    // not what it was (its firmware keeps `UlpSend`, "refined by the first FPDU" on the raw
    // path only).
    assert_eq!(e[1].mpa.rtr, RtrForm::UlpSend);
    assert_eq!(e[0].mpa.rtr, RtrForm::ZeroLengthWrite);
    assert!(!e[1].tx_fenced, "the RTR lifted the Responder's fence");
    assert_eq!(fpdus(&s, 0)[0], V2_WRITE_RTR);
    no_completions(&mut s);
    traffic(&mut s, 200);
}

/// Peer-to-peer with the zero-length RDMA Read RTR (D): the Initiator's first FPDU is V3 (QN 1,
/// MSN 1, sink and source STag 1), the Responder's core answers with V4 as its first FPDU, no
/// CQE on either side; the ULP's first Read then carries read-request MSN 2.
#[test]
fn p2p_read_rtr_then_traffic() {
    let (mut s, e) = setup(13, p2p_cfgs(false, true, false));
    // The Responder knows the model, not the form: the core reports that an FPDU arrived,
    // not what it was (its firmware keeps `UlpSend`, "refined by the first FPDU" on the raw
    // path only).
    assert_eq!(e[1].mpa.rtr, RtrForm::UlpSend);
    assert_eq!(e[0].mpa.rtr, RtrForm::ZeroLengthRead);
    for x in &e {
        assert!(x.params.ord >= 1 && x.params.ird >= 1);
    }
    assert_eq!(fpdus(&s, 0)[0], V3_READ_RTR);
    // The Responder is established at the RTR's arrival; its Read Response follows.
    s.dev.run(5_000);
    assert_eq!(fpdus(&s, 1)[0], V4_READ_RTR_RESPONSE);
    no_completions(&mut s);
    traffic(&mut s, 200);
    // The Initiator's next Read Request (opcode 1, QN 1): MSN 2.
    let rreq = fpdus(&s, 0)
        .into_iter()
        .skip(1)
        .find(|f| f[3] & 0x0F == 1 && f[2] & 0x80 == 0)
        .expect("a Read Request from the Initiator");
    assert_eq!(rreq[8..16], [0, 0, 0, 1, 0, 0, 0, 2], "QN 1, MSN 2");
}

/// Peer-to-peer with markers both ways: the RTR is the first FPDU of the marker grid (a marker
/// `00 00 00 00` at stream offset 0, RFC 5044 §5.1), then traffic crosses later markers.
#[cfg(not(feature = "no-markers"))]
#[test]
fn p2p_rtr_with_markers() {
    let (mut s, e) = setup(14, p2p_cfgs(true, false, true));
    assert_eq!(e[0].mpa.rtr, RtrForm::ZeroLengthWrite);
    let rtr = &fpdus(&s, 0)[0];
    assert_eq!(rtr.len(), 24);
    assert_eq!(rtr[..8], [0, 0, 0, 0, 0x00, 0x0e, 0xc1, 0x40]);
    traffic(&mut s, 1500);
}

/// A peer-to-peer Responder whose Initiator never sends the RTR fails at its deadline
/// (`Timeout` in `AwaitFirstFpdu`), never hangs. The Initiator is the firmware alone on QP 0's
/// raw port: it sends the Request and never commits, so no RTR leaves.
#[test]
fn p2p_responder_times_out_without_rtr() {
    use rnic_firmware::conn::{ConnState, Connection, Role};
    let (mut dev, qp) = two_qps(15);
    let c = p2p_cfgs(true, true, false);
    let mut init = Connection::new(Role::Initiator, c[0].conn);
    init.connect(0, &c[0].private_data).unwrap();
    let req = init.output().to_vec();
    dev.sim_mut().raw_send(qp[0].0, &req);
    let mut rc = c[1].clone();
    rc.conn.timeout = 20_000;
    let r = dev.connect_cm(qp[1], Role::Responder, rc);
    match r {
        Err(CmError::Mpa(ConnError::Timeout { state, .. })) => {
            assert_eq!(state, ConnState::AwaitFirstFpdu)
        }
        other => panic!("expected a timeout awaiting the RTR, got {other:?}"),
    }
    assert!(dev.sim().cycles() < 40_000);
}

/// The empty-FPDU RTR (B) is refused: the core's receive path takes an empty FPDU as a DDP
/// short segment (decisions, "Connection setup through the core").
#[test]
fn empty_fpdu_rtr_is_unsupported() {
    let (mut dev, [qp, _]) = two_qps(11);
    let mut c = CmConfig::default();
    c.conn.peer_to_peer = true;
    c.conn.rtr.zero_length_fpdu = true;
    let r = dev.connect_cm(qp, rnic_firmware::conn::Role::Initiator, c);
    assert!(matches!(r, Err(CmError::Unsupported(_))), "{r:?}");
}
