//! Tests of the Read Response generator (`hdl/src/rdmap/read_responder.rs`) on both back ends:
//! random Read Requests on `irq_*` with random gaps (each held until taken, as RxControl
//! does), a DdpTx model on `rr_msg_*` with random `rr_msg_ready`, a random number of messages
//! taken ahead and random done delays.
//!
//! Checked every cycle: `rr_msg_*` is the Read Response of the request shown (opcode 2, sink
//! STag / TO, source address, size, other fields 0), or nothing when the QP FIFO is full;
//! `irq_ready` is the handshake; every request becomes exactly one response, in request order
//! (`rfc5040-rdmap.md` §3, rule 20); `irq_done` strobes exactly at `rr_msg_done` with the QP of
//! the oldest response in flight; no more than `RR_INFLIGHT` in flight; `idle` exactly when
//! none is in flight.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_hdl::rdmap::read_responder::{ReadResponder, RR_INFLIGHT};
use rnic_sim::tb::read_responder::{IrqIn, ReadReq};
use rnic_sim::tb::tx_arbiter::{DdpTxSink, MsgJob, MsgOut};
use rnic_sim::testbench::{run_with_waveform_on_failure, Backend, BackendKind};
use std::collections::VecDeque;

struct Params {
    reqs: usize,
    show: f64,
    ready: f64,
    capacity: usize,
    max_delay: u32,
}

fn run(sim: &mut dyn Backend, seed: u64, p: &Params) {
    let mut rng = StdRng::seed_from_u64(seed);
    let irq = IrqIn::new(sim);
    let out = MsgOut::new(sim, "rr_");
    let done = sim.output("irq_done").unwrap();
    let done_qp = sim.output("irq_done_qp").unwrap();
    let idle = sim.output("idle").unwrap();
    let reqs: Vec<ReadReq> = (0..p.reqs).map(|_| ReadReq::random(&mut rng)).collect();
    let mut queue: VecDeque<ReadReq> = reqs.iter().copied().collect();
    let mut showing = false;
    let mut sink: DdpTxSink<u8> = DdpTxSink::new(p.ready, p.capacity, p.max_delay);
    let mut got: Vec<MsgJob> = Vec::new();
    let mut done_qps: Vec<u8> = Vec::new();
    let mut max_inflight = 0;
    let mut cycle = 0;
    while !(queue.is_empty() && sink.inflight.is_empty()) {
        cycle += 1;
        assert!(cycle < p.reqs * 400, "seed {seed}: stuck");
        if !showing && !queue.is_empty() && rng.gen_bool(p.show) {
            showing = true;
        }
        let req = if showing {
            queue.front().copied()
        } else {
            None
        };
        irq.drive(sim, req.as_ref());
        let ready = sink.ready(&mut rng);
        sim.set(out.ready, u128::from(ready));
        sim.set(out.done, 0);
        assert_eq!(
            sim.get(idle),
            u128::from(sink.inflight.is_empty()),
            "seed {seed} cycle {cycle}: idle"
        );
        let full = sink.inflight.len() >= RR_INFLIGHT;
        let shown = out.read(sim);
        let want = req.filter(|_| !full).map(|r| r.response());
        assert_eq!(shown, want, "seed {seed} cycle {cycle}: rr_msg");
        let taken = shown.is_some() && ready;
        if req.is_some() {
            assert_eq!(
                sim.get(irq.ready) == 1,
                taken,
                "seed {seed} cycle {cycle}: irq_ready"
            );
        }
        if taken {
            let r = queue.pop_front().unwrap();
            showing = false;
            got.push(shown.unwrap());
            sink.take(&mut rng, r.qp);
            max_inflight = max_inflight.max(sink.inflight.len());
        }
        let d = sink.done();
        sim.set(out.done, u128::from(d));
        assert_eq!(
            sim.get(done),
            u128::from(d),
            "seed {seed} cycle {cycle}: irq_done"
        );
        if d {
            let qp = sink.inflight.front().unwrap().1;
            assert_eq!(
                sim.get(done_qp),
                u128::from(qp),
                "seed {seed} cycle {cycle}: irq_done_qp"
            );
        }
        if let Some(qp) = sink.end_cycle() {
            done_qps.push(qp);
        }
        sim.tick();
    }
    let want: Vec<MsgJob> = reqs.iter().map(|r| r.response()).collect();
    assert_eq!(got, want, "seed {seed}: responses in request order");
    let want_qps: Vec<u8> = reqs.iter().map(|r| r.qp).collect();
    assert_eq!(done_qps, want_qps, "seed {seed}: irq_done QPs in order");
    assert_eq!(sim.get(idle), 1, "seed {seed}: idle at the end");
    if p.capacity > RR_INFLIGHT && p.max_delay >= 20 {
        assert_eq!(max_inflight, RR_INFLIGHT, "seed {seed}: FIFO never full");
    }
}

fn params(rng: &mut StdRng, reqs: usize, seed: u64) -> Params {
    let mut p = Params {
        reqs,
        show: rng.gen_range(0.1..1.0),
        ready: rng.gen_range(0.2..1.0),
        capacity: rng.gen_range(1..=RR_INFLIGHT + 2),
        max_delay: rng.gen_range(0..40),
    };
    if seed.is_multiple_of(3) {
        // DdpTx would take more than the responder remembers; dones come late.
        p.capacity = RR_INFLIGHT + 2;
        p.show = 0.95;
        p.ready = 0.95;
        p.max_delay += 20;
    }
    p
}

#[test]
fn rust_hdl_short() {
    for seed in 0..3 {
        let p = params(&mut StdRng::seed_from_u64(3000 + seed), 40, seed);
        run_with_waveform_on_failure(
            "read_responder",
            || BackendKind::RustHdl.build(ReadResponder::default()),
            |sim| run(sim, seed, &p),
        );
    }
}

#[test]
fn verilator_random() {
    for seed in 0..40 {
        let p = params(&mut StdRng::seed_from_u64(4000 + seed), 400, seed);
        run_with_waveform_on_failure(
            "read_responder",
            || BackendKind::Verilator.build(ReadResponder::default()),
            |sim| run(sim, seed, &p),
        );
    }
}
