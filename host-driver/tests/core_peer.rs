//! The core against the independent software peer (`rnic_sim::peer`), both directions: a
//! mistake made the same way in the core's transmit and receive paths passes the loopback
//! tests but not these. The core is driven through the verbs API (MMIO, rings in host
//! memory); the peer sits on LLP connection 0 ([`PeerLink`]) and checks every FPDU it
//! receives in strict mode. The connection is set up by MPA in raw mode first: the core's side
//! through the driver's connection manager (`rnic_driver::cm`), the peer's by the firmware's
//! ([`PeerLink::with_mpa`]), client-server or peer-to-peer with either RTR form, the core
//! either Initiator or Responder.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_driver::cm::{self, CmConfig, CmError};
use rnic_driver::verbs::{Cq, Device, Mr, Qp, QpCaps, RecvWr, SendOp, SendWr, Sge, Wc};
use rnic_firmware::conn::{ConnConfig, ConnError, ConnState, Role, RtrForm, RTR_WR_ID};
use rnic_proto::verbs::{access, WcOpcode, WcStatus};
use rnic_sim::peer::{Completion, Peer, PeerConfig, Queue, SendKind};
use rnic_sim::tb::peer_link::PeerLink;
use rnic_sim::tb::rnic::DeviceConfig;
use std::cell::RefCell;
use std::rc::Rc;

const SIZES: [u32; 7] = [0, 1, 3, 4, 1023, 4096, 65536];
const BUF: u64 = 65536 + 256;

struct Rig {
    dev: Device,
    peer: Rc<RefCell<Peer>>,
    qp: Qp,
    cq: Cq,
    /// The core's region the peer writes to and reads from, and its local source / sink.
    core_remote: Mr,
    core_local: Mr,
    /// The peer's regions: the one the core writes to / reads from (STag), and its local one.
    peer_remote: (u32, u64),
    peer_local: (u32, u64),
    rng: StdRng,
}

/// How the connection is set up: the core's MPA role and the RTR (peer-to-peer when not
/// `None`; the Initiator offers that form only).
#[derive(Clone, Copy, Debug)]
struct Setup {
    core: Role,
    rtr: RtrForm,
}

const CLIENT: Setup = Setup {
    core: Role::Initiator,
    rtr: RtrForm::None,
};

/// MPA's defaults both sides (Rev 2, CRC on, markers off, IRD = ORD = 4, EMSS 1460), with the
/// RTR of `s`; the peer's FPDU configuration is what they negotiate (checked after the setup).
fn rig(seed: u64, s: Setup) -> Rig {
    let mut core_cfg = CmConfig {
        private_data: b"core".to_vec(),
        ..CmConfig::default()
    };
    let mut peer_conn = ConnConfig {
        timeout: cm::DEFAULT_TIMEOUT_CYCLES,
        ..ConnConfig::default()
    };
    let initiator = match s.core {
        Role::Initiator => &mut core_cfg.conn,
        Role::Responder => &mut peer_conn,
    };
    if s.rtr != RtrForm::None {
        initiator.peer_to_peer = true;
        initiator.rtr.zero_length_write = s.rtr == RtrForm::ZeroLengthWrite;
        initiator.rtr.zero_length_read = s.rtr == RtrForm::ZeroLengthRead;
    }
    // The MULPDU of the default EMSS without markers, each way (RFC 5044 §5.4).
    let mulpdu = rnic_proto::mpa::mulpdu(peer_conn.emss, false);
    let pcfg = PeerConfig {
        tx_crc: true,
        rx_crc: true,
        tx_markers: false,
        rx_markers: false,
        mulpdu,
        max_rx_ulpdu: mulpdu,
        ird: 4,
        ord: 4,
        pd: 1,
        memory_size: 1 << 20,
        strict: true,
    };
    let peer = Rc::new(RefCell::new(Peer::new(pcfg)));
    let peer_role = match s.core {
        Role::Initiator => Role::Responder,
        Role::Responder => Role::Initiator,
    };
    let link = PeerLink::with_mpa(0, peer.clone(), seed, peer_role, peer_conn, b"peer")
        .expect("the peer's MPA side starts");
    let cfg = DeviceConfig {
        seed,
        ..DeviceConfig::default()
    };
    let mut dev = Device::open(cfg, Box::new(link)).expect("open the device");
    let pd = dev.alloc_pd().unwrap();
    let cq = dev.create_cq(8).unwrap();
    let qp = dev.create_qp(pd, cq, cq, QpCaps::default()).unwrap();
    assert_eq!(qp.0, 0, "QP 0 is LLP connection 0, where the peer is");
    let b = dev.alloc_buf(BUF, 4096).unwrap();
    let core_remote = dev
        .reg_mr(
            pd,
            b.addr,
            b.len,
            access::LOCAL_WRITE | access::REMOTE_WRITE | access::REMOTE_READ,
            true,
        )
        .unwrap();
    let b = dev.alloc_buf(BUF, 4096).unwrap();
    let core_local = dev
        .reg_mr(
            pd,
            b.addr,
            b.len,
            access::LOCAL_READ | access::LOCAL_WRITE,
            false,
        )
        .unwrap();
    let est = dev
        .connect_cm(qp, s.core, core_cfg)
        .unwrap_or_else(|e| panic!("MPA setup {s:?}: {e}"));
    assert_eq!(est.remote_private_data, b"peer");
    // Both sides negotiated what the peer was built with.
    let link = dev.sim().llp_as::<PeerLink>().unwrap();
    let m = link.mpa_params().unwrap_or_else(|| {
        panic!(
            "the peer's side: {:?} {:?}",
            link.mpa_state(),
            link.mpa_error()
        )
    });
    assert_eq!((m.rx_crc, m.tx_crc), (pcfg.rx_crc, pcfg.tx_crc));
    assert_eq!((m.rx_markers, m.tx_markers), (false, false));
    assert_eq!((u32::from(m.ird), u32::from(m.ord)), (pcfg.ird, pcfg.ord));
    assert_eq!(m.tx_mulpdu, pcfg.mulpdu);
    assert_eq!(est.params.tx_mulpdu, pcfg.max_rx_ulpdu);
    assert_eq!((est.params.ird, est.params.ord), (4, 4));
    assert_eq!(
        est.tx_fenced,
        s.core == Role::Responder && s.rtr == RtrForm::None
    );
    if s.core == Role::Responder && s.rtr != RtrForm::None {
        // The peer's RTR completes (a Read RTR once its zero-length Read Response is in).
        let mut pc = Vec::new();
        for _ in 0..10_000 {
            pc.extend(peer.borrow_mut().poll());
            if !pc.is_empty() {
                break;
            }
            dev.run(16);
        }
        assert_eq!(pc.len(), 1, "the peer's RTR completion");
        assert_eq!((pc[0].wr_id, pc[0].status), (RTR_WR_ID, WcStatus::Success));
    }
    let (peer_remote, peer_local) = {
        let mut p = peer.borrow_mut();
        let r = p
            .memory_mut()
            .register(
                0x1000,
                BUF,
                access::REMOTE_WRITE | access::REMOTE_READ | access::LOCAL_WRITE,
                1,
                true,
            )
            .unwrap();
        let l = p
            .memory_mut()
            .register(
                0x40000,
                BUF,
                access::LOCAL_READ | access::LOCAL_WRITE,
                1,
                false,
            )
            .unwrap();
        ((r, 0x1000), (l, 0x40000))
    };
    Rig {
        dev,
        peer,
        qp,
        cq,
        core_remote,
        core_local,
        peer_remote,
        peer_local,
        rng: StdRng::seed_from_u64(seed),
    }
}

impl Rig {
    fn data(&mut self, len: u32) -> Vec<u8> {
        (0..len).map(|_| self.rng.gen()).collect()
    }

    /// Runs the device until the peer has `n` completions; returns them.
    fn peer_completions(&mut self, n: usize) -> Vec<Completion> {
        let mut got = Vec::new();
        for _ in 0..200_000 {
            got.extend(self.peer.borrow_mut().poll());
            if got.len() >= n {
                return got;
            }
            self.dev.run(16);
        }
        panic!("the peer has {} of {n} completions", got.len());
    }

    fn no_violations(&self) {
        let p = self.peer.borrow();
        assert!(p.violations().is_empty(), "peer saw: {:?}", p.violations());
        let v = self.dev.mem().violations();
        assert!(v.is_empty(), "protection monitor: {}", v[0]);
    }

    fn sg(mr: &Mr, off: u64, len: u32) -> Vec<Sge> {
        if len == 0 {
            return vec![];
        }
        vec![Sge {
            addr: mr.addr + off,
            length: len,
            lkey: mr.lkey,
        }]
    }

    fn wc(&self, wr_id: u64, opcode: WcOpcode, len: u32) -> Wc {
        Wc {
            wr_id,
            qp: self.qp.0,
            opcode,
            status: WcStatus::Success,
            byte_len: len,
            invalidated: None,
            solicited: false,
        }
    }
}

/// The core as requester: Write, Read and the four Sends to the peer, every size, random
/// alignments; the peer's memory and completions and the core's completions checked.
#[test]
fn core_requests_to_the_peer() {
    let mut r = rig(3, CLIENT);
    let mut wr_id = 1;
    for &len in &SIZES {
        let (so, ro) = (r.rng.gen_range(0..64u64), r.rng.gen_range(0..64u64));
        // RDMA Write.
        let d = r.data(len);
        r.dev.write_mem(r.core_local.addr + so, &d);
        let wr = SendWr {
            wr_id,
            op: SendOp::RdmaWrite {
                remote_addr: r.peer_remote.1 + ro,
                rkey: r.peer_remote.0,
            },
            sg_list: Rig::sg(&r.core_local, so, len),
            signaled: true,
            fence: false,
        };
        r.dev.post_send(r.qp, &wr).unwrap();
        let wc = r.dev.wait_cq(r.cq, 1, 5_000_000).unwrap();
        assert_eq!(wc[0], r.wc(wr_id, WcOpcode::RdmaWrite, len));
        r.dev.run(3000 + u64::from(len) / 2);
        let got = r
            .peer
            .borrow()
            .memory()
            .read(r.peer_remote.1 + ro, u64::from(len))
            .unwrap()
            .to_vec();
        assert_eq!(got, d, "Write of {len}: the peer's memory");
        wr_id += 1;
        // RDMA Read.
        let d = r.data(len);
        r.peer
            .borrow_mut()
            .memory_mut()
            .write(r.peer_remote.1 + ro, &d);
        let wr = SendWr {
            wr_id,
            op: SendOp::RdmaRead {
                remote_addr: r.peer_remote.1 + ro,
                rkey: r.peer_remote.0,
            },
            sg_list: Rig::sg(&r.core_local, so, len),
            signaled: true,
            fence: false,
        };
        r.dev.post_send(r.qp, &wr).unwrap();
        let wc = r.dev.wait_cq(r.cq, 1, 5_000_000).unwrap();
        assert_eq!(wc[0], r.wc(wr_id, WcOpcode::RdmaRead, len));
        assert_eq!(
            r.dev.read_mem(r.core_local.addr + so, len as usize),
            d,
            "Read of {len}"
        );
        wr_id += 1;
        // The Sends.
        for kind in SendKind::ALL {
            let d = r.data(len);
            r.dev.write_mem(r.core_local.addr + so, &d);
            let inv = if kind.invalidates() {
                let mut p = r.peer.borrow_mut();
                Some(
                    p.memory_mut()
                        .register(0x80000, 64, access::REMOTE_WRITE, 1, true)
                        .unwrap(),
                )
            } else {
                None
            };
            r.peer
                .borrow_mut()
                .post_recv(wr_id, r.peer_remote.1 + ro, len + 7)
                .unwrap();
            let op = match kind {
                SendKind::Send => SendOp::Send,
                SendKind::SendSe => SendOp::SendSe,
                SendKind::SendInv => SendOp::SendInv {
                    invalidate_rkey: inv.unwrap(),
                },
                SendKind::SendSeInv => SendOp::SendSeInv {
                    invalidate_rkey: inv.unwrap(),
                },
            };
            let wr = SendWr {
                wr_id,
                op,
                sg_list: Rig::sg(&r.core_local, so, len),
                signaled: true,
                fence: false,
            };
            r.dev.post_send(r.qp, &wr).unwrap();
            let wc = r.dev.wait_cq(r.cq, 1, 5_000_000).unwrap();
            assert_eq!(wc[0], r.wc(wr_id, WcOpcode::Send, len));
            let pc = r.peer_completions(1);
            assert_eq!(
                pc,
                vec![Completion {
                    wr_id,
                    queue: Queue::Recv,
                    opcode: WcOpcode::Recv,
                    status: WcStatus::Success,
                    byte_len: len,
                    invalidated_stag: inv,
                    solicited: kind.solicited(),
                }],
                "{kind:?} of {len}"
            );
            let got = r
                .peer
                .borrow()
                .memory()
                .read(r.peer_remote.1 + ro, u64::from(len))
                .unwrap()
                .to_vec();
            assert_eq!(got, d, "{kind:?} of {len}: the peer's receive buffer");
            wr_id += 1;
        }
        r.no_violations();
    }
    // The peer's completions of the Writes and Reads it served: none (it only responded).
    assert!(r.peer.borrow_mut().poll().is_empty());
}

/// The peer as requester: Write, Read and the four Sends to the core, every size, random
/// alignments; the core's memory and completions and the peer's completions checked.
#[test]
fn peer_requests_to_the_core() {
    // The core is the Responder: the peer's first FPDU lifts its fence.
    let mut r = rig(
        4,
        Setup {
            core: Role::Responder,
            rtr: RtrForm::None,
        },
    );
    let mut wr_id = 100;
    for &len in &SIZES {
        let (so, ro) = (r.rng.gen_range(0..64u64), r.rng.gen_range(0..64u64));
        // RDMA Write into the core.
        let d = r.data(len);
        r.peer
            .borrow_mut()
            .memory_mut()
            .write(r.peer_local.1 + so, &d);
        r.peer
            .borrow_mut()
            .post_write(
                wr_id,
                r.peer_local.1 + so,
                u64::from(len),
                r.core_remote.rkey,
                r.core_remote.addr + ro,
            )
            .unwrap();
        let pc = r.peer_completions(1);
        assert_eq!(pc[0].status, WcStatus::Success);
        assert_eq!(pc[0].opcode, WcOpcode::RdmaWrite);
        r.dev.run(3000 + u64::from(len) / 2);
        r.no_violations();
        let ev = r.peer.borrow_mut().events();
        let core_ev = r.dev.query_async_event(r.qp).unwrap();
        assert!(
            ev.is_empty() && core_ev.is_none(),
            "peer Write of {len}: peer events {ev:?}, core event {core_ev:?}"
        );
        assert_eq!(
            r.dev.read_mem(r.core_remote.addr + ro, len as usize),
            d,
            "peer Write of {len}"
        );
        wr_id += 1;
        // RDMA Read from the core.
        let d = r.data(len);
        r.dev.write_mem(r.core_remote.addr + ro, &d);
        r.peer
            .borrow_mut()
            .post_read(
                wr_id,
                r.peer_local.0,
                r.peer_local.1 + so,
                u64::from(len),
                r.core_remote.rkey,
                r.core_remote.addr + ro,
            )
            .unwrap();
        let pc = r.peer_completions(1);
        assert_eq!(
            (pc[0].status, pc[0].opcode, pc[0].byte_len),
            (WcStatus::Success, WcOpcode::RdmaRead, len)
        );
        let got = r
            .peer
            .borrow()
            .memory()
            .read(r.peer_local.1 + so, u64::from(len))
            .unwrap()
            .to_vec();
        assert_eq!(got, d, "peer Read of {len}");
        wr_id += 1;
        // Sends into the core.
        for kind in SendKind::ALL {
            let d = r.data(len);
            r.peer
                .borrow_mut()
                .memory_mut()
                .write(r.peer_local.1 + so, &d);
            let inv = if kind.invalidates() {
                let pd = r.core_remote.pd;
                let b = r.dev.alloc_buf(64, 64).unwrap();
                Some(
                    r.dev
                        .reg_mr(pd, b.addr, 64, access::REMOTE_WRITE, true)
                        .unwrap(),
                )
            } else {
                None
            };
            r.dev
                .post_recv(
                    r.qp,
                    &RecvWr {
                        wr_id,
                        sg_list: vec![Sge {
                            addr: r.core_remote.addr + ro,
                            length: len + 5,
                            lkey: r.core_remote.lkey,
                        }],
                    },
                )
                .unwrap();
            r.peer
                .borrow_mut()
                .post_send(
                    wr_id,
                    kind,
                    r.peer_local.1 + so,
                    u64::from(len),
                    inv.map_or(0, |m| m.rkey),
                )
                .unwrap();
            let wc = r.dev.wait_cq(r.cq, 1, 5_000_000).unwrap();
            assert_eq!(
                wc[0],
                Wc {
                    wr_id,
                    qp: r.qp.0,
                    opcode: WcOpcode::Recv,
                    status: WcStatus::Success,
                    byte_len: len,
                    invalidated: inv.map(|m| m.rkey),
                    solicited: kind.solicited(),
                },
                "{kind:?} of {len}"
            );
            assert_eq!(
                r.dev.read_mem(r.core_remote.addr + ro, len as usize),
                d,
                "{kind:?} of {len}"
            );
            if let Some(m) = inv {
                assert!(!r.dev.mr_valid(&m), "the core invalidated the STag");
                r.dev.dereg_mr(m).unwrap();
            }
            let pc = r.peer_completions(1);
            assert_eq!(
                (pc[0].status, pc[0].opcode),
                (WcStatus::Success, WcOpcode::Send)
            );
            wr_id += 1;
        }
        r.no_violations();
    }
}

/// Peer-to-peer setups with the independent peer, each RTR form, the core Initiator (its RTR
/// through its send queue) and Responder (the peer's RTR lifts its fence); then a Write and a
/// Read each way, every byte checked, the Reads after a Read RTR carrying MSN 2 (the strict
/// peer and the core both check it), no violation and no asynchronous event.
#[test]
fn p2p_setups_with_the_peer() {
    let mut seed = 20;
    for core in [Role::Initiator, Role::Responder] {
        for rtr in [RtrForm::ZeroLengthWrite, RtrForm::ZeroLengthRead] {
            seed += 1;
            let mut r = rig(seed, Setup { core, rtr });
            let what = format!("{core:?} / {rtr:?}");
            // The core writes to and reads from the peer.
            let d = r.data(300);
            r.dev.write_mem(r.core_local.addr, &d);
            for (i, op) in [
                SendOp::RdmaWrite {
                    remote_addr: r.peer_remote.1,
                    rkey: r.peer_remote.0,
                },
                SendOp::RdmaRead {
                    remote_addr: r.peer_remote.1,
                    rkey: r.peer_remote.0,
                },
            ]
            .into_iter()
            .enumerate()
            {
                let off = 512 * i as u64;
                let wr = SendWr {
                    wr_id: i as u64,
                    op,
                    sg_list: Rig::sg(&r.core_local, off, 300),
                    signaled: true,
                    fence: false,
                };
                r.dev.post_send(r.qp, &wr).unwrap();
                let wc = r.dev.wait_cq(r.cq, 1, 5_000_000).unwrap();
                // The RTR (an unsignaled WR before it) never shows.
                assert_eq!(
                    (wc[0].wr_id, wc[0].status),
                    (i as u64, WcStatus::Success),
                    "{what}"
                );
            }
            assert_eq!(
                r.dev.read_mem(r.core_local.addr + 512, 300),
                d,
                "{what}: Read"
            );
            // The peer writes to and reads from the core.
            let d = r.data(200);
            r.peer.borrow_mut().memory_mut().write(r.peer_local.1, &d);
            r.peer
                .borrow_mut()
                .post_write(
                    7,
                    r.peer_local.1,
                    200,
                    r.core_remote.rkey,
                    r.core_remote.addr,
                )
                .unwrap();
            let read = r.peer.borrow_mut().post_read(
                8,
                r.peer_local.0,
                r.peer_local.1 + 1024,
                200,
                r.core_remote.rkey,
                r.core_remote.addr,
            );
            read.unwrap();
            let pc = r.peer_completions(2);
            assert!(
                pc.iter().all(|c| c.status == WcStatus::Success),
                "{what}: {pc:?}"
            );
            assert_eq!(r.dev.read_mem(r.core_remote.addr, 200), d, "{what}: Write");
            let back = r
                .peer
                .borrow()
                .memory()
                .read(r.peer_local.1 + 1024, 200)
                .unwrap()
                .to_vec();
            assert_eq!(back, d, "{what}: the peer's Read");
            r.no_violations();
            assert_eq!(r.dev.query_async_event(r.qp).unwrap(), None, "{what}");
        }
    }
}

/// Markers are a build-time capability of the core (FEATURES bit 0; not in the `no-markers`
/// build, docs/decisions.md "Markers as a build-time capability (no-markers)"). A peer that
/// requires them (its M bit: markers on what it receives) gets them from a core that has them;
/// a core without them refuses it at setup: as Responder with a Reply with R = 1 (the peer sees
/// a Reject), as Initiator by sending nothing more (the peer never sees an FPDU).
#[test]
fn peer_requiring_markers() {
    for (seed, core) in [(40, Role::Initiator), (41, Role::Responder)] {
        let emss = ConnConfig::default().emss;
        let pcfg = PeerConfig {
            tx_crc: true,
            rx_crc: true,
            tx_markers: false,
            rx_markers: true,
            mulpdu: rnic_proto::mpa::mulpdu(emss, false),
            max_rx_ulpdu: rnic_proto::mpa::mulpdu(emss, true),
            ird: 4,
            ord: 4,
            pd: 1,
            memory_size: 1 << 16,
            strict: true,
        };
        let peer_conn = ConnConfig {
            timeout: cm::DEFAULT_TIMEOUT_CYCLES,
            rx_markers: true,
            ..ConnConfig::default()
        };
        let peer = Rc::new(RefCell::new(Peer::new(pcfg)));
        let peer_role = match core {
            Role::Initiator => Role::Responder,
            Role::Responder => Role::Initiator,
        };
        let link = PeerLink::with_mpa(0, peer, seed, peer_role, peer_conn, b"peer").unwrap();
        let cfg = DeviceConfig {
            seed,
            ..DeviceConfig::default()
        };
        let mut dev = Device::open(cfg, Box::new(link)).unwrap();
        let pd = dev.alloc_pd().unwrap();
        let cq = dev.create_cq(8).unwrap();
        let qp = dev.create_qp(pd, cq, cq, QpCaps::default()).unwrap();
        let r = dev.connect_cm(qp, core, CmConfig::default());
        // Time for the core's last octets to reach the peer.
        dev.run(5_000);
        let link = dev.sim().llp_as::<PeerLink>().unwrap();
        assert_eq!(dev.caps().markers, rnic_hdl::config::MARKERS);
        if dev.caps().markers {
            let est = r.unwrap_or_else(|e| panic!("{core:?}: {e}"));
            assert_eq!(
                (est.params.rx_markers, est.params.tx_markers),
                (false, true)
            );
            let m = link.mpa_params().expect("the peer's side established");
            assert_eq!((m.rx_markers, m.tx_markers), (true, false));
        } else {
            assert_eq!(
                r.unwrap_err(),
                CmError::Mpa(ConnError::PeerRequiresMarkers),
                "{core:?}"
            );
            let peer_state = match core {
                // The peer accepted and waits for a first FPDU that never comes.
                Role::Initiator => ConnState::AwaitFirstFpdu,
                // The peer received the Reject.
                Role::Responder => ConnState::Rejected,
            };
            assert_eq!(link.mpa_state(), Some(peer_state), "{core:?}");
            assert!(dev.qp_state(qp).is_ok());
        }
    }
}

/// A core without markers refuses to be asked for them locally: the connection manager before
/// anything is sent, the verbs' QP commit with markers in either direction.
#[cfg(feature = "no-markers")]
#[test]
fn local_markers_request_without_markers() {
    use rnic_driver::verbs::{ConnParams, VerbsError};
    let peer_conn = ConnConfig {
        timeout: cm::DEFAULT_TIMEOUT_CYCLES,
        ..ConnConfig::default()
    };
    let pcfg = PeerConfig {
        tx_crc: true,
        rx_crc: true,
        tx_markers: false,
        rx_markers: false,
        mulpdu: 1454,
        max_rx_ulpdu: 1454,
        ird: 4,
        ord: 4,
        pd: 1,
        memory_size: 1 << 16,
        strict: true,
    };
    let peer = Rc::new(RefCell::new(Peer::new(pcfg)));
    let link = PeerLink::with_mpa(0, peer, 42, Role::Responder, peer_conn, b"").unwrap();
    let cfg = DeviceConfig {
        seed: 42,
        ..DeviceConfig::default()
    };
    let mut dev = Device::open(cfg, Box::new(link)).unwrap();
    assert!(!dev.caps().markers);
    let pd = dev.alloc_pd().unwrap();
    let cq = dev.create_cq(8).unwrap();
    let qp = dev.create_qp(pd, cq, cq, QpCaps::default()).unwrap();
    let mut c = CmConfig::default();
    c.conn.rx_markers = true;
    assert_eq!(
        dev.connect_cm(qp, Role::Initiator, c).unwrap_err(),
        CmError::Mpa(ConnError::MarkersUnsupported)
    );
    for (rx, tx) in [(true, false), (false, true)] {
        let p = ConnParams {
            rx_markers: rx,
            tx_markers: tx,
            ..ConnParams::default()
        };
        assert!(matches!(
            dev.connect(qp, p),
            Err(VerbsError::InvalidArgument(_))
        ));
    }
}
