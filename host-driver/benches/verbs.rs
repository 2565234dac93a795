//! The verbs driver's own cost per `post_send` + `poll_cq` (issue 6, "Must show"): the
//! device is a [`NullDevice`] (a register-level model that completes each signaled send work
//! request at its doorbell by writing its CQE), so what is measured is the driver: checks,
//! the WQE written into the SQ ring, the doorbell write, the CQE read and parsed, the
//! work-request bookkeeping and the CQ doorbell. Not the core (that is `rnic bench`).
//!
//! Run: `cargo bench -p rnic-driver --bench verbs`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use rnic_driver::verbs::{ConnParams, Device, HostDevice, NullDevice, QpCaps, SendOp, SendWr, Sge};
use rnic_proto::host::{regs, wqe_flags, Cqe, SqWqe, WqeOpcode, CQE_LEN, SQ_WQE_LEN};
use rnic_proto::verbs::access;

fn post_send_poll_cq(c: &mut Criterion) {
    let mut dev = Device::attach(NullDevice::new(), 1).expect("the null device identifies");
    let pd = dev.alloc_pd().unwrap();
    let cq = dev.create_cq(8).unwrap();
    let qp = dev.create_qp(pd, cq, cq, QpCaps::default()).unwrap();
    dev.connect(qp, ConnParams::default()).unwrap();
    let buf = dev.alloc_buf(4096, 4096).unwrap();
    let mr = dev
        .reg_mr(pd, buf.addr, buf.len, access::LOCAL_READ, false)
        .unwrap();
    let mut group = c.benchmark_group("verbs");
    for (name, op) in [
        ("post_send+poll_cq/send", SendOp::Send),
        (
            "post_send+poll_cq/rdma_write",
            SendOp::RdmaWrite {
                remote_addr: 0x1000,
                rkey: 0x0000_0105,
            },
        ),
    ] {
        let mut wr = SendWr {
            wr_id: 0,
            op,
            sg_list: vec![Sge {
                addr: mr.addr,
                length: 64,
                lkey: mr.lkey,
            }],
            signaled: true,
            fence: false,
        };
        group.bench_function(name, |b| {
            b.iter(|| {
                wr.wr_id = wr.wr_id.wrapping_add(1);
                dev.post_send(qp, black_box(&wr)).unwrap();
                let wc = dev.poll_cq(cq, 1).unwrap();
                assert_eq!(wc.len(), 1);
                black_box(wc);
            })
        });
    }
    group.finish();
}

/// The null device's own share of a pair, to subtract: the same WQE written into the ring, the
/// doorbell (the model parses the WQE and writes the CQE), the CQE read back and the CQ
/// doorbell, with none of the driver's checks or bookkeeping.
fn null_device_alone(c: &mut Criterion) {
    let mut d = NullDevice::new();
    let (sq, cq) = (0x1_0000u64, 0x2_0000u64);
    d.mmio_write(regs::cq_reg(0, regs::CQ_BASE), cq as u32);
    d.mmio_write(regs::cq_reg(0, regs::CQ_LOG2), 8);
    d.mmio_write(
        regs::qp_reg(0, regs::QP_SQ_BASE),
        regs::qp_sq_base(sq as u32, 8),
    );
    d.mmio_write(regs::qp_reg(0, regs::QP_CTRL), regs::QP_CTRL_ENABLE);
    let mut pi = 0u16;
    c.bench_function("verbs/null_device_alone", |b| {
        b.iter(|| {
            let wqe = SqWqe {
                opcode: WqeOpcode::Send,
                flags: wqe_flags::SIGNALED,
                length: 64,
                lkey: 0x0000_0100,
                rkey: 0,
                addr: 0x3_0000,
                remote_addr: 0,
            };
            d.mem_write(sq + u64::from(pi % 256) * SQ_WQE_LEN as u64, &wqe.emit());
            pi = pi.wrapping_add(1);
            d.mmio_write(regs::qp_reg(0, regs::QP_SQ_PI), u32::from(pi));
            let mut raw = [0u8; CQE_LEN];
            d.mem_read(
                cq + u64::from(pi.wrapping_sub(1) % 256) * CQE_LEN as u64,
                &mut raw,
            );
            d.mmio_write(regs::cq_reg(0, regs::CQ_CI), u32::from(pi));
            black_box(Cqe::parse(&raw).unwrap());
        })
    });
}

criterion_group!(benches, post_send_poll_cq, null_device_alone);
criterion_main!(benches);
