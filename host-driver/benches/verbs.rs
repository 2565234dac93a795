//! The verbs driver's own cost per `post_send` + `poll_cq` (issue 6, "Must show"): the
//! device is a [`NullDevice`] (a register-level model that completes each signaled send work
//! request at its doorbell by writing its CQE), so what is measured is the driver: checks,
//! the WQE written into the SQ ring, the doorbell write, the CQE read and parsed, the
//! work-request bookkeeping and the CQ doorbell. Not the core (that is `rnic bench`).
//!
//! Run: `cargo bench -p rnic-driver --bench verbs`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use rnic_driver::verbs::{ConnParams, Device, NullDevice, QpCaps, SendOp, SendWr, Sge};
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

criterion_group!(benches, post_send_poll_cq);
criterion_main!(benches);
