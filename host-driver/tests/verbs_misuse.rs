//! Misuse of the verbs API (issue 6, item 1), on the whole core (rust-hdl back end, through
//! [`rnic_sim::tb::rnic::SimDevice`] and the loopback LLP model; QP 0 <-> QP 1 connected with
//! [`Device::connect`]). Each misuse ends in a typed [`VerbsError`] or an error completion,
//! never a hang (every wait is bounded) nor a panic. Where the driver catches a mistake, the
//! hardware path is also shown with the driver's checks off.

use rnic_driver::verbs::{
    ConnParams, Cq, Device, Mr, Pd, Qp, QpCaps, QpState, RecvWr, SendOp, SendWr, Sge, VerbsError,
};
use rnic_proto::host::regs;
use rnic_proto::verbs::{access, AsyncEventKind, WcOpcode, WcStatus};
use rnic_sim::loopback::{LlpLoopback, LoopbackConfig};
use rnic_sim::tb::rnic::DeviceConfig;
use rnic_sim::testbench::BackendKind;

/// Cycles any single wait may take (rust-hdl runs about 3 k cycles/s).
const WAIT: u64 = 60_000;

/// QP 0 and QP 1 connected to each other, each with its own CQ and a 4 KiB region (local
/// and remote access) in one PD.
struct Fx {
    dev: Device,
    pd: Pd,
    cq: [Cq; 2],
    qp: [Qp; 2],
    mr: [Mr; 2],
}

fn fixture(cq_log2: [u32; 2]) -> Fx {
    let cfg = DeviceConfig {
        backend: BackendKind::RustHdl,
        seed: 3,
        ..DeviceConfig::default()
    };
    let llp = LlpLoopback::new(LoopbackConfig::full_speed(3));
    let mut dev = Device::open(cfg, Box::new(llp)).expect("open the rust-hdl device");
    assert_eq!(dev.sim().backend_name(), "rust-hdl");
    let pd = dev.alloc_pd().unwrap();
    let cq = [
        dev.create_cq(cq_log2[0]).unwrap(),
        dev.create_cq(cq_log2[1]).unwrap(),
    ];
    let caps = QpCaps {
        sq_log2: 3,
        rq_log2: 3,
    };
    let qp = [
        dev.create_qp(pd, cq[0], cq[0], caps).unwrap(),
        dev.create_qp(pd, cq[1], cq[1], caps).unwrap(),
    ];
    let all = access::LOCAL_READ | access::LOCAL_WRITE | access::REMOTE_WRITE | access::REMOTE_READ;
    let mut mr = Vec::new();
    for _ in 0..2 {
        let b = dev.alloc_buf(4096, 4096).unwrap();
        mr.push(dev.reg_mr(pd, b.addr, b.len, all, false).unwrap());
    }
    dev.connect(qp[0], ConnParams::default()).unwrap();
    dev.connect(qp[1], ConnParams::default()).unwrap();
    Fx {
        dev,
        pd,
        cq,
        qp,
        mr: [mr[0], mr[1]],
    }
}

fn sge(mr: &Mr, off: u64, length: u32) -> Vec<Sge> {
    vec![Sge {
        addr: mr.addr + off,
        length,
        lkey: mr.lkey,
    }]
}

fn write_wr(wr_id: u64, local: &Mr, remote: &Mr, len: u32) -> SendWr {
    SendWr {
        wr_id,
        op: SendOp::RdmaWrite {
            remote_addr: remote.addr,
            rkey: remote.rkey,
        },
        sg_list: sge(local, 0, len),
        signaled: true,
        fence: false,
    }
}

fn send_wr(wr_id: u64, local: &Mr, len: u32) -> SendWr {
    SendWr {
        wr_id,
        op: SendOp::Send,
        sg_list: sge(local, 0, len),
        signaled: true,
        fence: false,
    }
}

/// Waits (bounded) until QP `qp` has an asynchronous event.
fn wait_async(dev: &mut Device, qp: Qp) -> rnic_driver::verbs::AsyncEvent {
    for _ in 0..WAIT / 64 {
        if let Some(e) = dev.query_async_event(qp).unwrap() {
            return e;
        }
        dev.run(64);
    }
    panic!("QP {}: no asynchronous event within {WAIT} cycles", qp.0);
}

/// Waits (bounded) until the transmit and receive paths and the models are idle.
fn settle(dev: &mut Device) {
    for _ in 0..WAIT / 16 {
        let s = dev.sim_mut().mmio_read(regs::STATUS).unwrap();
        let idle = regs::STATUS_RX_IDLE | regs::STATUS_TX_IDLE;
        if s & idle == idle && !dev.sim().models_busy() {
            return;
        }
        dev.run(16);
    }
    panic!("the device did not go idle within {WAIT} cycles");
}

/// `settle`, then: nothing was written or read that must not be.
fn settle_without_violations(dev: &mut Device) {
    settle(dev);
    assert!(
        dev.mem().violations().is_empty(),
        "{:?}",
        dev.mem().violations()
    );
}

/// One 16-octet element of `mr`'s lkey at 4 GiB above the region: its low 32 bits are inside.
fn above_4_gib(mr: &Mr) -> Vec<Sge> {
    vec![Sge {
        addr: mr.addr + (1 << 32),
        length: 16,
        lkey: mr.lkey,
    }]
}

/// A wrong lkey (right index, wrong key), an out-of-bounds element and a stale lkey are
/// refused by the driver with `LocalProtection` before anything reaches the core; nothing was
/// posted (the rings are untouched), so the QP still works.
#[test]
fn wrong_lkey_is_refused_by_the_driver() {
    let mut f = fixture([6, 6]);
    let bad = Mr {
        lkey: f.mr[0].lkey ^ 1,
        ..f.mr[0]
    };
    let e = f
        .dev
        .post_send(f.qp[0], &write_wr(1, &bad, &f.mr[1], 64))
        .unwrap_err();
    assert_eq!(
        e,
        VerbsError::LocalProtection {
            qp: 0,
            lkey: bad.lkey,
            addr: bad.addr,
            length: 64
        }
    );
    // One byte past the region's end.
    let e = f
        .dev
        .post_recv(
            f.qp[1],
            &RecvWr {
                wr_id: 2,
                sg_list: sge(&f.mr[1], 4095, 2),
            },
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            VerbsError::LocalProtection {
                qp: 1,
                length: 2,
                ..
            }
        ),
        "{e}"
    );
    // An element whose end wraps the address space.
    let e = f
        .dev
        .post_send(
            f.qp[0],
            &SendWr {
                sg_list: vec![Sge {
                    addr: u64::MAX - 3,
                    length: 64,
                    lkey: f.mr[0].lkey,
                }],
                ..send_wr(3, &f.mr[0], 0)
            },
        )
        .unwrap_err();
    assert!(matches!(e, VerbsError::LocalProtection { .. }), "{e}");
    // Nothing was posted: a good Write still completes first, as work request 4.
    f.dev.write_mem(f.mr[0].addr, &[0xA5; 64]);
    f.dev
        .post_send(f.qp[0], &write_wr(4, &f.mr[0], &f.mr[1], 64))
        .unwrap();
    let wc = f.dev.wait_cq(f.cq[0], 1, WAIT).unwrap();
    assert_eq!(
        (wc[0].wr_id, wc[0].opcode, wc[0].status, wc[0].byte_len),
        (4, WcOpcode::RdmaWrite, WcStatus::Success, 64)
    );
    settle(&mut f.dev);
    assert_eq!(f.dev.read_mem(f.mr[1].addr, 64), vec![0xA5; 64]);
    assert_eq!(f.dev.qp_state(f.qp[0]).unwrap(), QpState::Rts);
}

/// The hardware path of a wrong lkey (the driver's checks off): the core completes the Write
/// with a local protection error (its STag check of the source, RFC 5040 §5.4), the QP goes
/// to error, and the two later Writes complete flushed; nothing reaches the peer's memory and
/// every region held by the flushed work requests is released (deregistration works).
#[test]
fn wrong_lkey_hardware_path_completes_loc_prot_err_then_flushes() {
    let mut f = fixture([6, 6]);
    f.dev.set_driver_checks(false);
    f.dev.write_mem(f.mr[0].addr, &[0x5A; 64]);
    let bad = Mr {
        lkey: f.mr[0].lkey ^ 1,
        ..f.mr[0]
    };
    f.dev
        .post_send(f.qp[0], &write_wr(1, &bad, &f.mr[1], 64))
        .unwrap();
    f.dev
        .post_send(f.qp[0], &write_wr(2, &f.mr[0], &f.mr[1], 64))
        .unwrap();
    f.dev
        .post_send(f.qp[0], &write_wr(3, &f.mr[0], &f.mr[1], 64))
        .unwrap();
    let wc = f.dev.wait_cq(f.cq[0], 3, WAIT).unwrap();
    let got: Vec<_> = wc.iter().map(|w| (w.wr_id, w.opcode, w.status)).collect();
    assert_eq!(
        got,
        vec![
            (1, WcOpcode::RdmaWrite, WcStatus::LocProtErr),
            (2, WcOpcode::RdmaWrite, WcStatus::WrFlushErr),
            (3, WcOpcode::RdmaWrite, WcStatus::WrFlushErr),
        ]
    );
    assert_eq!(f.dev.qp_state(f.qp[0]).unwrap(), QpState::Error);
    settle(&mut f.dev);
    assert_eq!(f.dev.read_mem(f.mr[1].addr, 64), vec![0; 64]);
    assert_eq!(f.dev.poll_cq(f.cq[1], 4).unwrap(), vec![]);
    // Posting to the QP in error is refused (typed), on both queues.
    let e = f
        .dev
        .post_send(f.qp[0], &write_wr(4, &f.mr[0], &f.mr[1], 64))
        .unwrap_err();
    assert_eq!(
        e,
        VerbsError::QpNotReady {
            qp: 0,
            state: "in error"
        }
    );
    let e = f
        .dev
        .post_recv(
            f.qp[0],
            &RecvWr {
                wr_id: 5,
                sg_list: sge(&f.mr[0], 0, 64),
            },
        )
        .unwrap_err();
    assert!(matches!(e, VerbsError::QpNotReady { qp: 0, .. }), "{e}");
    // Nothing is held any more: the local region deregisters.
    f.dev.dereg_mr(f.mr[0]).unwrap();
}

/// The same element above 4 GiB in a work request that the core prefetches: posted while a
/// 4 KiB Write is being sent, the SendEngine reads it into its prefetch buffer, whose copy of
/// the address's upper half is kept as a "not 0" flag apart from the buffer (`pf_ahi`). The
/// flag must reach the local STag check: with it lost, the check would see the low 32 bits,
/// inside the region, and the Write would succeed. The first Write completes; the second
/// completes with a local protection error, and nothing is written that must not be.
#[test]
fn sge_above_4_gib_prefetched() {
    let mut f = fixture([6, 6]);
    f.dev.set_driver_checks(false);
    let first = write_wr(1, &f.mr[0], &f.mr[1], 4096);
    let second = SendWr {
        sg_list: above_4_gib(&f.mr[0]),
        ..write_wr(2, &f.mr[0], &f.mr[1], 16)
    };
    f.dev.post_send(f.qp[0], &first).unwrap();
    f.dev.post_send(f.qp[0], &second).unwrap();
    let wc = f.dev.wait_cq(f.cq[0], 2, WAIT).unwrap();
    assert_eq!(
        wc.iter().map(|w| (w.wr_id, w.status)).collect::<Vec<_>>(),
        vec![(1, WcStatus::Success), (2, WcStatus::LocProtErr)],
        "{wc:?}"
    );
    settle_without_violations(&mut f.dev);
}

/// An element above 4 GiB (the driver's checks off): the core cannot address it (32-bit DMA,
/// 24-bit in the Cu profile);
/// the STag check fails (the tagged offset is outside the region) and the work request
/// completes with a local protection error. With the checks on, the driver refuses it.
#[test]
fn sge_above_4_gib() {
    let mut f = fixture([6, 6]);
    let wr = SendWr {
        sg_list: above_4_gib(&f.mr[0]),
        ..write_wr(1, &f.mr[0], &f.mr[1], 16)
    };
    let e = f.dev.post_send(f.qp[0], &wr).unwrap_err();
    assert!(matches!(e, VerbsError::LocalProtection { .. }), "{e}");
    f.dev.set_driver_checks(false);
    f.dev.post_send(f.qp[0], &wr).unwrap();
    let wc = f.dev.wait_cq(f.cq[0], 1, WAIT).unwrap();
    assert_eq!(
        (wc[0].wr_id, wc[0].status),
        (1, WcStatus::LocProtErr),
        "{wc:?}"
    );
    settle_without_violations(&mut f.dev);
    // Registration and allocation above 4 GiB are refused.
    let e = f
        .dev
        .reg_mr(f.pd, 1 << 32, 4096, access::LOCAL_READ, false)
        .unwrap_err();
    assert_eq!(
        e,
        VerbsError::AddressNotDmaable {
            addr: 1 << 32,
            len: 4096,
            bits: f.dev.caps().dma_addr_bits
        }
    );
    let e = f
        .dev
        .reg_mr(f.pd, u64::MAX - 10, 100, access::LOCAL_READ, false)
        .unwrap_err();
    assert!(matches!(e, VerbsError::AddressNotDmaable { .. }), "{e}");
    let e = f.dev.alloc_buf(5 << 30, 4096).unwrap_err();
    assert!(matches!(e, VerbsError::AddressNotDmaable { .. }), "{e}");
    let e = f.dev.alloc_buf(64, 1 << 63).unwrap_err();
    assert!(matches!(e, VerbsError::AddressNotDmaable { .. }), "{e}");
    let e = f.dev.alloc_buf_at_offset(u64::MAX, 64, 8).unwrap_err();
    assert!(matches!(e, VerbsError::AddressNotDmaable { .. }), "{e}");
}

/// The host window the core reports (FEATURES `[15:8]`): 24 address bits (16 MiB) in the
/// Alchitry Cu profile, 32 otherwise. A registration, a buffer or a ring (here a CQ's) that
/// does not lie below `1 << bits` is refused with a one-line error.
#[test]
fn host_window_of_the_profile() {
    let cfg = DeviceConfig {
        backend: BackendKind::RustHdl,
        seed: 5,
        ..DeviceConfig::default()
    };
    let llp = LlpLoopback::new(LoopbackConfig::full_speed(5));
    let mut dev = Device::open(cfg, Box::new(llp)).expect("open the rust-hdl device");
    let bits = dev.caps().dma_addr_bits;
    assert_eq!(
        bits,
        if cfg!(feature = "alchitry-cu") {
            24
        } else {
            32
        }
    );
    let end = 1u64 << bits;
    let pd = dev.alloc_pd().unwrap();
    // A region crossing the window's end, and one above it.
    let e = dev
        .reg_mr(pd, end - 4096, 8192, access::LOCAL_READ, false)
        .unwrap_err();
    assert_eq!(
        e,
        VerbsError::AddressNotDmaable {
            addr: end - 4096,
            len: 8192,
            bits
        }
    );
    let text = e.to_string();
    assert!(!text.contains('\n'), "{text}");
    if bits == 24 {
        assert_eq!(
            text,
            "8192 bytes at 0xfff000 are not addressable by the core (24-bit DMA: host memory \
             below 0x1000000)"
        );
    }
    let e = dev
        .reg_mr(pd, end, 4096, access::LOCAL_READ, false)
        .unwrap_err();
    assert!(
        matches!(e, VerbsError::AddressNotDmaable { bits: b, .. } if b == bits),
        "{e}"
    );
    // A buffer larger than the window.
    let e = dev.alloc_buf(end, 64).unwrap_err();
    assert!(matches!(e, VerbsError::AddressNotDmaable { .. }), "{e}");
    if bits == 24 {
        // Fill the window to 1 KiB below its end: a CQ of 64 entries (1 KiB ring) still fits
        // there, the next one's ring does not.
        let top = dev.alloc_buf(64, 64).unwrap();
        let fill = end - 1024 - (top.addr + top.len);
        let buf = dev.alloc_buf(fill, 64).unwrap();
        assert_eq!(buf.addr + buf.len, end - 1024);
        let big = dev.alloc_buf(1024, 64).unwrap();
        assert_eq!(big.addr + big.len, end);
        dev.free_buf(big).unwrap();
        // (The heap does not reuse freed space: the next ring starts at the window's end.)
        let e = dev.create_cq(4).unwrap_err();
        assert_eq!(
            e,
            VerbsError::AddressNotDmaable {
                addr: end,
                len: 16 << 4,
                bits
            }
        );
        // A region inside the window is registered.
        dev.reg_mr(pd, buf.addr, 4096, access::LOCAL_READ, false)
            .unwrap();
    }
}

/// The ring index width the core reports (FEATURES `[23:16]`): 12 bits in the Alchitry Cu
/// profile, 16 otherwise. A ring (CQ, SQ, RQ) of more than `2^(bits-1)` entries cannot tell
/// full from empty, so the driver refuses it at create time with a one-line error; the largest
/// one is accepted.
#[test]
fn ring_size_of_the_profile() {
    let cfg = DeviceConfig {
        backend: BackendKind::RustHdl,
        seed: 6,
        ..DeviceConfig::default()
    };
    let llp = LlpLoopback::new(LoopbackConfig::full_speed(6));
    let mut dev = Device::open(cfg, Box::new(llp)).expect("open the rust-hdl device");
    let cu = cfg!(feature = "alchitry-cu");
    let bits = dev.caps().ring_index_bits;
    assert_eq!(bits, if cu { 12 } else { 16 });
    let max = dev.caps().max_ring_log2();
    assert_eq!(max, bits - 1);
    assert_eq!(u32::from(dev.caps().ring_index_mask()), (1 << bits) - 1);
    let text = |what: &str, l: u32| {
        format!(
            "invalid argument: {what} of 2^{l} entries: log2 must be 1..={max} (this core's ring \
             indexes have {bits} bits)"
        )
    };
    let e = dev.create_cq(max + 1).unwrap_err();
    assert_eq!(e.to_string(), text("CQ", max + 1));
    if cu {
        assert_eq!(
            e.to_string(),
            "invalid argument: CQ of 2^12 entries: log2 must be 1..=11 (this core's ring \
             indexes have 12 bits)"
        );
        for l in 12..=15 {
            assert!(matches!(
                dev.create_cq(l),
                Err(VerbsError::InvalidArgument(_))
            ));
        }
    }
    assert!(matches!(
        dev.create_cq(0),
        Err(VerbsError::InvalidArgument(_))
    ));
    let cq = dev.create_cq(max).unwrap();
    let pd = dev.alloc_pd().unwrap();
    for (sq, rq, what) in [(max + 1, 3, "SQ"), (3, max + 1, "RQ")] {
        let caps = QpCaps {
            sq_log2: sq,
            rq_log2: rq,
        };
        let e = dev.create_qp(pd, cq, cq, caps).unwrap_err();
        assert_eq!(e.to_string(), text(what, max + 1));
        assert!(!e.to_string().contains('\n'));
    }
    // Nothing was taken by the refused QPs: the largest rings fit in QP 0.
    let caps = QpCaps {
        sq_log2: max,
        rq_log2: max,
    };
    assert_eq!(dev.create_qp(pd, cq, cq, caps).unwrap(), Qp(0));
}

/// The local length bits the core reports (FEATURES `[31:24]`): 24 in the Alchitry Cu profile,
/// 32 otherwise. A work request's element (post_send, post_recv) or a region (reg_mr) of
/// `1 << bits` octets or more is refused with a one-line error, with the driver's own checks
/// on or off (the core would cut the length); one octet less passes the length check.
#[test]
fn local_lengths_of_the_profile() {
    let mut f = fixture([4, 4]);
    let bits = f.dev.caps().len_bits;
    assert_eq!(
        bits,
        if cfg!(feature = "alchitry-cu") {
            24
        } else {
            32
        }
    );
    let features = f.dev.device_mut().mmio_read(regs::FEATURES).unwrap();
    assert_eq!(regs::features_len_bits(features), bits);
    if bits < 32 {
        let len = 1u32 << bits;
        let too_long = VerbsError::LengthTooLong {
            len: len.into(),
            bits,
        };
        for checks in [true, false] {
            f.dev.set_driver_checks(checks);
            let e = f
                .dev
                .post_send(f.qp[0], &write_wr(1, &f.mr[0], &f.mr[1], len))
                .unwrap_err();
            assert_eq!(e, too_long, "checks {checks}");
            let e = f
                .dev
                .post_send(f.qp[0], &send_wr(2, &f.mr[0], len))
                .unwrap_err();
            assert_eq!(e, too_long, "checks {checks}");
            let wr = RecvWr {
                wr_id: 3,
                sg_list: sge(&f.mr[1], 0, len),
            };
            let e = f.dev.post_recv(f.qp[1], &wr).unwrap_err();
            assert_eq!(e, too_long, "checks {checks}");
        }
        f.dev.set_driver_checks(true);
        let e = f
            .dev
            .reg_mr(f.pd, f.mr[0].addr, len.into(), access::LOCAL_READ, false)
            .unwrap_err();
        assert_eq!(e, too_long);
        let text = e.to_string();
        assert_eq!(
            text,
            "16777216 bytes are longer than the core's 24-bit lengths allow (at most 16777215)"
        );
        // One octet less is not refused for its length (the element is outside its region).
        let e = f
            .dev
            .post_send(f.qp[0], &write_wr(4, &f.mr[0], &f.mr[1], len - 1))
            .unwrap_err();
        assert!(matches!(e, VerbsError::LocalProtection { .. }), "{e}");
    }
    // Nothing refused was posted: a Write still completes.
    f.dev
        .post_send(f.qp[0], &write_wr(5, &f.mr[0], &f.mr[1], 64))
        .unwrap();
    let wc = f.dev.wait_cq(f.cq[0], 1, WAIT).unwrap();
    assert_eq!(
        (wc[0].wr_id, wc[0].status),
        (5, WcStatus::Success),
        "{wc:?}"
    );
}

/// A Send larger than the receive buffer: the responder completes the receive work request
/// with a local length error and sends the Terminate of `rdmap::mod` row 16 (DDP untagged
/// buffer error, 1/2/0x05, RFC 5041 §7.2); the requester's QP receives it. Both QPs are in
/// error; posting to them is refused.
#[test]
fn send_larger_than_the_receive_buffer() {
    let mut f = fixture([6, 6]);
    f.dev
        .post_recv(
            f.qp[1],
            &RecvWr {
                wr_id: 10,
                sg_list: sge(&f.mr[1], 0, 16),
            },
        )
        .unwrap();
    f.dev.write_mem(f.mr[0].addr, &[0x77; 64]);
    f.dev.post_send(f.qp[0], &send_wr(1, &f.mr[0], 64)).unwrap();
    let wc = f.dev.wait_cq(f.cq[1], 1, WAIT).unwrap();
    assert_eq!(
        (wc[0].wr_id, wc[0].qp, wc[0].opcode, wc[0].status),
        (10, 1, WcOpcode::Recv, WcStatus::LocLenErr)
    );
    let resp = wait_async(&mut f.dev, f.qp[1]);
    assert_eq!(
        (resp.kind, resp.layer, resp.etype, resp.code),
        (Some(AsyncEventKind::TerminateSent), 1, 2, 0x05)
    );
    let req = wait_async(&mut f.dev, f.qp[0]);
    assert_eq!(
        (req.kind, req.layer, req.etype, req.code),
        (Some(AsyncEventKind::TerminateReceived), 1, 2, 0x05)
    );
    // The requester's Send itself left whole before the Terminate came back: it completes
    // successfully (a Send completes when sent, RFC 5040 §5.3); the error is the async event.
    let wc = f.dev.wait_cq(f.cq[0], 1, WAIT).unwrap();
    assert_eq!(
        (wc[0].wr_id, wc[0].opcode, wc[0].status, wc[0].byte_len),
        (1, WcOpcode::Send, WcStatus::Success, 64)
    );
    // Nothing beyond the 16-byte buffer was written.
    settle(&mut f.dev);
    assert_eq!(f.dev.read_mem(f.mr[1].addr + 16, 48), vec![0; 48]);
    for q in f.qp {
        assert_eq!(f.dev.qp_state(q).unwrap(), QpState::Error);
        let e = f.dev.post_send(q, &send_wr(2, &f.mr[0], 8)).unwrap_err();
        assert!(matches!(e, VerbsError::QpNotReady { .. }), "{e}");
    }
    // wait_cq for completions that never come is bounded.
    let e = f.dev.wait_cq(f.cq[1], 1, 2_000).unwrap_err();
    assert!(matches!(e, VerbsError::Device(_)), "{e}");
}

/// A CQ of 2 entries and 3 signaled Writes without polling: the third completion finds the
/// ring full, the CQ overflows (RFC 5040 §8.1 item 10) and the QP gets the CqOverflow
/// asynchronous event; the two completions in the ring are still polled.
#[test]
fn cq_overflow() {
    let mut f = fixture([1, 6]);
    f.dev.write_mem(f.mr[0].addr, &[0x11; 32]);
    for i in 1..=3 {
        f.dev
            .post_send(f.qp[0], &write_wr(i, &f.mr[0], &f.mr[1], 32))
            .unwrap();
    }
    let ev = wait_async(&mut f.dev, f.qp[0]);
    assert_eq!(ev.kind, Some(AsyncEventKind::CqOverflow), "{ev:?}");
    assert!(f.dev.cq_overflowed(f.cq[0]).unwrap());
    assert!(!f.dev.cq_overflowed(f.cq[1]).unwrap());
    settle(&mut f.dev);
    let wc = f.dev.poll_cq(f.cq[0], 8).unwrap();
    let got: Vec<_> = wc.iter().map(|w| (w.wr_id, w.status)).collect();
    assert_eq!(got, vec![(1, WcStatus::Success), (2, WcStatus::Success)]);
    assert_eq!(f.dev.qp_state(f.qp[0]).unwrap(), QpState::Error);
    // The other QP is not touched.
    assert_eq!(f.dev.query_async_event(f.qp[1]).unwrap(), None);
    assert_eq!(f.dev.qp_state(f.qp[1]).unwrap(), QpState::Rts);
}

/// Buffers and regions in use cannot be given back: a registered buffer (`Busy`), a region
/// named by a posted receive (`Busy` until it completes), a CQ used by a QP, a PD with
/// regions; more than one scatter / gather element is refused.
#[test]
fn busy_objects_and_sge_count() {
    let mut f = fixture([6, 6]);
    let b = f.dev.alloc_buf(256, 64).unwrap();
    let mr = f
        .dev
        .reg_mr(f.pd, b.addr, 256, access::LOCAL_WRITE, false)
        .unwrap();
    let e = f.dev.free_buf(b).unwrap_err();
    assert!(matches!(e, VerbsError::Busy(_)), "{e}");
    // A posted receive holds its region.
    f.dev
        .post_recv(
            f.qp[1],
            &RecvWr {
                wr_id: 7,
                sg_list: sge(&mr, 0, 64),
            },
        )
        .unwrap();
    let e = f.dev.dereg_mr(mr).unwrap_err();
    assert!(matches!(e, VerbsError::Busy(_)), "{e}");
    let e = f.dev.destroy_qp(f.qp[1]).unwrap_err();
    assert!(matches!(e, VerbsError::Busy(_)), "{e}");
    assert!(matches!(
        f.dev.destroy_cq(f.cq[0]).unwrap_err(),
        VerbsError::Busy(_)
    ));
    assert!(matches!(
        f.dev.dealloc_pd(f.pd).unwrap_err(),
        VerbsError::Busy(_)
    ));
    // More than one element, or none on a receive.
    let two = SendWr {
        sg_list: vec![sge(&f.mr[0], 0, 8)[0], sge(&f.mr[0], 8, 8)[0]],
        ..send_wr(1, &f.mr[0], 8)
    };
    let e = f.dev.post_send(f.qp[0], &two).unwrap_err();
    assert!(matches!(e, VerbsError::InvalidArgument(_)), "{e}");
    for n in [0, 2] {
        let e = f
            .dev
            .post_recv(
                f.qp[1],
                &RecvWr {
                    wr_id: 8,
                    sg_list: vec![sge(&mr, 0, 8)[0]; n],
                },
            )
            .unwrap_err();
        assert!(matches!(e, VerbsError::InvalidArgument(_)), "{n}: {e}");
    }
    // The receive completes: the region is free again, then the buffer.
    f.dev.write_mem(f.mr[0].addr, &[0x42; 64]);
    f.dev.post_send(f.qp[0], &send_wr(2, &f.mr[0], 64)).unwrap();
    let wc = f.dev.wait_cq(f.cq[1], 1, WAIT).unwrap();
    assert_eq!(
        (wc[0].wr_id, wc[0].status, wc[0].byte_len),
        (7, WcStatus::Success, 64)
    );
    assert_eq!(f.dev.read_mem(b.addr, 64), vec![0x42; 64]);
    f.dev.dereg_mr(mr).unwrap();
    f.dev.free_buf(b).unwrap();
    assert_eq!(
        f.dev.free_buf(b).unwrap_err(),
        VerbsError::BadHandle("buffer")
    );
    assert_eq!(f.dev.dereg_mr(mr).unwrap_err(), VerbsError::BadHandle("MR"));
}

/// Every PD, STag, CQ and QP in use: the next allocation is `NoResources` naming the kind and
/// the device's count; giving one back makes room again.
#[test]
fn exhaustion() {
    let mut f = fixture([6, 6]);
    let caps = f.dev.caps();
    // PDs (the fixture holds one).
    let mut pds = vec![];
    for _ in 1..16 {
        pds.push(f.dev.alloc_pd().unwrap());
    }
    assert_eq!(
        f.dev.alloc_pd().unwrap_err(),
        VerbsError::NoResources {
            what: "PD",
            max: 16
        }
    );
    f.dev.dealloc_pd(pds[3]).unwrap();
    assert_eq!(f.dev.alloc_pd().unwrap(), pds[3]);
    // STags (the fixture holds two).
    let b = f.dev.alloc_buf(4096, 64).unwrap();
    let mut mrs = vec![];
    for i in 2..caps.stags {
        mrs.push(
            f.dev
                .reg_mr(
                    f.pd,
                    b.addr + (i as u64 % 4096),
                    1,
                    access::LOCAL_READ,
                    false,
                )
                .unwrap(),
        );
    }
    assert_eq!(
        f.dev
            .reg_mr(f.pd, b.addr, 1, access::LOCAL_READ, false)
            .unwrap_err(),
        VerbsError::NoResources {
            what: "STag",
            max: caps.stags
        }
    );
    let old = mrs[5];
    f.dev.dereg_mr(old).unwrap();
    let new = f
        .dev
        .reg_mr(f.pd, b.addr, 1, access::LOCAL_READ, false)
        .unwrap();
    assert_ne!(
        new.lkey, old.lkey,
        "a new registration never repeats the key"
    );
    // The stale lkey is refused.
    let e = f.dev.post_send(f.qp[0], &send_wr(1, &old, 1)).unwrap_err();
    assert!(matches!(e, VerbsError::LocalProtection { .. }), "{e}");
    // CQs and QPs (the fixture holds two of each; the core has one CQ per QP). The QPs below
    // use the fixture's CQ 0 (a 2-QP core has no CQ beyond the fixture's).
    let mut cqs = vec![];
    for _ in 2..caps.cqs {
        cqs.push(f.dev.create_cq(2).unwrap());
    }
    assert_eq!(
        f.dev.create_cq(2).unwrap_err(),
        VerbsError::NoResources {
            what: "CQ",
            max: caps.cqs
        }
    );
    let mut qps = vec![];
    for _ in 2..caps.qps {
        qps.push(
            f.dev
                .create_qp(f.pd, f.cq[0], f.cq[0], QpCaps::default())
                .unwrap(),
        );
    }
    assert_eq!(
        f.dev
            .create_qp(f.pd, f.cq[0], f.cq[0], QpCaps::default())
            .unwrap_err(),
        VerbsError::NoResources {
            what: "QP",
            max: caps.qps
        }
    );
    // An idle QP is not ready (a 2-QP core has none beyond the fixture's two).
    if let Some(&idle) = qps.first() {
        let e = f.dev.post_send(idle, &send_wr(1, &f.mr[0], 1)).unwrap_err();
        assert_eq!(
            e,
            VerbsError::QpNotReady {
                qp: idle.0,
                state: "not connected"
            }
        );
        f.dev.destroy_qp(idle).unwrap();
        let again = f
            .dev
            .create_qp(f.pd, f.cq[0], f.cq[0], QpCaps::default())
            .unwrap();
        assert_eq!(again, idle);
    }
}

/// The driver takes the QP count from the device's CAPS \[7:0\] (4, or 2 with `two-qps`): it
/// hands out QPs 0 .. count - 1 and refuses the next with `NoResources` naming the count (on a
/// 2-QP core: no QP 2).
#[test]
#[allow(clippy::reversed_empty_ranges)] // `QPS..4`: no absent QP windows at 4 QPs
fn qp_count_from_caps() {
    let mut f = fixture([6, 6]);
    let caps = f.dev.caps();
    assert_eq!(caps.qps, rnic_hdl::config::QPS);
    let sim = f.dev.sim_mut();
    assert_eq!(
        (sim.mmio_read(regs::CAPS).unwrap() & 0xFF) as usize,
        rnic_hdl::config::QPS
    );
    // The register windows of QPs the core does not have (QP_REGS holds 4) decode as nothing:
    // they read 0 and a write changes no QP's register.
    for qp in rnic_hdl::config::QPS..4 {
        let before = sim.mmio_read(regs::qp_reg(0, regs::QP_ULPDU)).unwrap();
        sim.mmio_write(regs::qp_reg(qp, regs::QP_ULPDU), 0x5A5);
        assert_eq!(sim.mmio_read(regs::qp_reg(qp, regs::QP_ULPDU)).unwrap(), 0);
        assert_eq!(
            sim.mmio_read(regs::qp_reg(qp, regs::QP_SQ_BASE)).unwrap(),
            0
        );
        for q in 0..rnic_hdl::config::QPS {
            let r = sim.mmio_read(regs::qp_reg(q, regs::QP_ULPDU)).unwrap();
            assert!(q != 0 || r == before, "QP {qp}'s write reached QP {q}");
            assert_ne!(r, 0x5A5, "QP {qp}'s write reached QP {q}");
        }
    }
    // The fixture's CQ (a 2-QP core has 2 CQs, both the fixture's).
    let cq = f.cq[0];
    let mut n = vec![f.qp[0].0, f.qp[1].0];
    for _ in 2..caps.qps {
        n.push(f.dev.create_qp(f.pd, cq, cq, QpCaps::default()).unwrap().0);
    }
    assert_eq!(n, (0..caps.qps).collect::<Vec<_>>());
    let e = f
        .dev
        .create_qp(f.pd, cq, cq, QpCaps::default())
        .unwrap_err();
    assert_eq!(
        e,
        VerbsError::NoResources {
            what: "QP",
            max: rnic_hdl::config::QPS
        }
    );
    assert_eq!(
        e.to_string(),
        format!("no free QP: all {} are in use", rnic_hdl::config::QPS)
    );
}

/// Handles of destroyed objects, and handles that never were, are `BadHandle`.
#[test]
fn stale_handles() {
    let mut f = fixture([6, 6]);
    // Never existed.
    assert_eq!(
        f.dev.qp_state(Qp(99)).unwrap_err(),
        VerbsError::BadHandle("QP")
    );
    assert_eq!(
        f.dev.poll_cq(Cq(99), 1).unwrap_err(),
        VerbsError::BadHandle("CQ")
    );
    assert_eq!(
        f.dev.dealloc_pd(Pd(200)).unwrap_err(),
        VerbsError::BadHandle("PD")
    );
    assert_eq!(
        f.dev
            .post_send(Qp(3), &send_wr(1, &f.mr[0], 1))
            .unwrap_err(),
        VerbsError::BadHandle("QP")
    );
    // Destroyed: a QP, its CQ, a PD.
    f.dev.destroy_qp(f.qp[1]).unwrap();
    for e in [
        f.dev.qp_state(f.qp[1]).unwrap_err(),
        f.dev.query_async_event(f.qp[1]).unwrap_err(),
        f.dev.destroy_qp(f.qp[1]).unwrap_err(),
        f.dev
            .post_recv(
                f.qp[1],
                &RecvWr {
                    wr_id: 1,
                    sg_list: sge(&f.mr[1], 0, 8),
                },
            )
            .unwrap_err(),
    ] {
        assert_eq!(e, VerbsError::BadHandle("QP"));
    }
    f.dev.destroy_cq(f.cq[1]).unwrap();
    assert_eq!(
        f.dev.poll_cq(f.cq[1], 1).unwrap_err(),
        VerbsError::BadHandle("CQ")
    );
    assert_eq!(
        f.dev.cq_overflowed(f.cq[1]).unwrap_err(),
        VerbsError::BadHandle("CQ")
    );
    assert_eq!(
        f.dev.wait_cq(f.cq[1], 1, 100).unwrap_err(),
        VerbsError::BadHandle("CQ")
    );
    assert_eq!(
        f.dev
            .create_qp(f.pd, f.cq[0], f.cq[1], QpCaps::default())
            .unwrap_err(),
        VerbsError::BadHandle("CQ")
    );
    let pd2 = f.dev.alloc_pd().unwrap();
    f.dev.dealloc_pd(pd2).unwrap();
    assert_eq!(
        f.dev
            .reg_mr(pd2, f.mr[0].addr, 8, access::LOCAL_READ, false)
            .unwrap_err(),
        VerbsError::BadHandle("PD")
    );
    assert_eq!(
        f.dev.dealloc_pd(pd2).unwrap_err(),
        VerbsError::BadHandle("PD")
    );
    // CQ 0's ring (the first allocation: 64 CQEs of 16 bytes at the heap's base) is not a
    // buffer the user may free.
    let e = f
        .dev
        .free_buf(rnic_driver::verbs::Buf {
            addr: 0x10000,
            len: 16 << 6,
        })
        .unwrap_err();
    assert!(matches!(e, VerbsError::Busy(_)), "{e}");
    // The surviving QP 0 is untouched.
    assert_eq!(f.dev.qp_state(f.qp[0]).unwrap(), QpState::Rts);
    assert_eq!(f.dev.query_async_event(f.qp[0]).unwrap(), None);
}
