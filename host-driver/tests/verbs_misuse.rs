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
use rnic_sim::testbench::BackendKind;
use rnic_sim::tb::rnic::DeviceConfig;

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
        matches!(e, VerbsError::LocalProtection { qp: 1, length: 2, .. }),
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
