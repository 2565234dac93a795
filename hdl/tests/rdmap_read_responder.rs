//! Tests of the Read Response generator (`hdl/src/rdmap/read_responder.rs`) on both back ends:
//! random Read Requests on `irq_*` with random gaps (each started while `irq_ready`, its five words
//! then strobed with random gaps, as RxControl sends them), a DdpTx model on `rr_msg_*` with random
//! `rr_msg_ready`, a random number of messages taken ahead and random done delays.
//!
//! Checked every cycle: `rr_msg_*` is the Read Response of the oldest queued request (opcode
//! 2, sink STag / TO, source address, size, other fields 0; the TO's low half in the job's
//! first cycle shown, `rr_msg_first`, the STag in its second, the TO's high half in its third,
//! as DdpTx reads them; address and size up to the take), never offered when the QP FIFO
//! is full; `irq_ready` is 1 exactly while no request is being written and the request queue
//! has room (the receive path never waits for the transmit side); every
//! request becomes exactly one response, in request order (`rfc5040-rdmap.md` §3, rule 20); `irq_done` strobes exactly at `rr_msg_done` with the QP of
//! the oldest response in flight; no more than `RR_INFLIGHT` in flight; `idle` at the end. A third test puts the ReadResponder behind the TxArbiter, as in the core
//! (SendEngine jobs on the other input): every `irq_done` and `se_msg_done` reaches its source.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_hdl::config::{CONN_BITS, DMA_ADDR_BITS};
use rnic_hdl::rdmap::read_responder::{ReadResponder, IRQ_DEPTH, RR_INFLIGHT};
use rnic_hdl::rdmap::tx_arbiter::{TxArbiter, TXA_INFLIGHT};
use rnic_sim::tb::read_responder::{IrqIn, ReadReq};
use rnic_sim::tb::tx_arbiter::{DdpTxSink, MsgIn, MsgJob, MsgOut, MsgSource};
use rnic_sim::testbench::{run_with_waveform_on_failure, Backend, BackendKind};
use rust_hdl::prelude::*;
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
    let mut irq = IrqIn::new(sim);
    let out = MsgOut::new(sim, "rr_");
    let done = sim.output("irq_done").unwrap();
    let done_qp = sim.output("irq_done_qp").unwrap();
    let idle = sim.output("idle").unwrap();
    let take_in = sim.input("rr_msg_take").unwrap();
    let first_in = sim.input("rr_msg_first").unwrap();
    let pick_in = sim.input("rr_msg_pick").unwrap();
    // The job offered was picked (`rr_msg_pick`, as the TxArbiter does in the cycle before it
    // shows it): it is shown to the DdpTx model until its handshake.
    let mut picked = false;
    // Cycles the job has been shown (0: its first, `rr_msg_first`, DdpTx's `taking`).
    let mut age = 0usize;
    let nxt_valid = sim.output("rr_nxt_valid").unwrap();
    // The hinted region starts at `rr_msg_addr` (no `rr_nxt_addr` port).
    let nxt_addr = sim.output("rr_msg_addr").unwrap();
    let nxt_len = sim.output("rr_nxt_len").unwrap();
    // DdpTx's `msg_take` was given for the job shown (its addr / len may change since).
    let mut taken_shown = false;
    let mut hints = 0usize;
    let reqs: Vec<ReadReq> = (0..p.reqs).map(|_| ReadReq::random(&mut rng)).collect();
    let mut queue: VecDeque<ReadReq> = reqs.iter().copied().collect();
    let mut sink: DdpTxSink<u8> = DdpTxSink::new(p.ready, p.capacity, p.max_delay);
    let mut got: Vec<MsgJob> = Vec::new();
    let mut done_qps: Vec<u8> = Vec::new();
    let mut max_inflight = 0;
    let mut cycle = 0;
    // Requests taken into the block's queue, not yet offered and taken as a response.
    let mut queued: VecDeque<ReadReq> = VecDeque::new();
    // The block's queue count (committed, job not taken), a request's commit cycle (its QP
    // word written the cycle after its last word).
    let mut qcnt = 0usize;
    let mut committing = false;
    while !(queue.is_empty() && !irq.busy() && queued.is_empty() && sink.inflight.is_empty()) {
        cycle += 1;
        assert!(cycle < p.reqs * 400, "seed {seed}: stuck");
        // `irq_ready`: no request being written, room in the queue (the receive path never
        // waits for the transmit side).
        assert_eq!(
            sim.get(irq.ready) == 1,
            !irq.busy() && !committing && qcnt < IRQ_DEPTH,
            "seed {seed} cycle {cycle}: irq_ready with {qcnt} queued"
        );
        let go = rng.gen_bool(p.show);
        let (started, finished) = irq.cycle(sim, queue.front(), go);
        if started {
            queue.pop_front();
        }
        let full = sink.inflight.len() >= RR_INFLIGHT;
        let offered = out.read(sim);
        if picked {
            assert!(
                offered.is_some(),
                "seed {seed} cycle {cycle}: a picked job withdrawn"
            );
        }
        let mut shown = if picked { offered } else { None };
        // The arbiter picks a job offered (not full) at random; `rr_msg_addr` is the job's
        // source address in that cycle (the arbiter copies it then).
        let pick = !picked && offered.is_some() && rng.gen_bool(0.7);
        sim.set(pick_in, u128::from(pick));
        if pick {
            let r = queued.front().unwrap();
            assert_eq!(
                sim.get(nxt_addr) as u32,
                r.src_addr,
                "seed {seed} cycle {cycle}: rr_msg_addr at the pick"
            );
        }
        // DdpTx takes a job (its handshake, at its end) two cycles after it took it up at the
        // soonest: it reads the STag and the TO's high half then.
        let ready = sink.ready(&mut rng) && (offered.is_none() || (picked && age >= 2));
        sim.set(out.ready, u128::from(ready));
        sim.set(out.done, 0);
        sim.set(first_in, u128::from(shown.is_some() && age == 0));
        // The read-ahead hint is the next request's (after the one taken, if it was).
        if sim.get(nxt_valid) == 1 {
            hints += 1;
            let k = usize::from(shown.is_some() && taken_shown);
            let r = queued.get(k).unwrap_or_else(|| {
                panic!("seed {seed} cycle {cycle}: a hint with no request queued")
            });
            assert_eq!(
                sim.get(nxt_len) as u32,
                r.size,
                "seed {seed} cycle {cycle}: the hint's size (rr_nxt_len) of the next request"
            );
            // The hint's address (rr_msg_addr) is defined except while the hinted job is shown
            // and not taken: the port reads its other words then (the arbiter holds the
            // address it copied before, `rdmap_tx_arbiter`).
            if shown.is_none() || taken_shown {
                assert_eq!(
                    sim.get(nxt_addr) as u32,
                    r.src_addr,
                    "seed {seed} cycle {cycle}: the hint's address (rr_msg_addr) of the next request"
                );
            }
        }
        if let Some(m) = shown.as_mut() {
            // Each field is checked where DdpTx reads it: the sink TO's low half when it
            // takes the job up (age 0), the STag a cycle later, the TO's high half two
            // cycles later, the size up to the take, the address at the pick (above).
            let h = queued.front().unwrap().response();
            m.addr = h.addr;
            if taken_shown {
                m.len = h.len;
            }
            if age != 0 {
                m.to = (m.to & !0xFFFF_FFFF) | (h.to & 0xFFFF_FFFF);
            }
            if age != 1 {
                m.stag = h.stag;
            }
            if age != 2 {
                m.to = (m.to & 0xFFFF_FFFF) | (h.to & !0xFFFF_FFFF);
            }
        }
        // The DdpTx model takes a job shown (msg_take) a cycle after it took it up at the
        // soonest, or at its ready.
        let take_now =
            shown.is_some() && !taken_shown && (ready || (age >= 1 && rng.gen_bool(0.5)));
        sim.set(take_in, u128::from(take_now));
        if offered.is_some() {
            assert!(
                !full,
                "seed {seed} cycle {cycle}: offered with {RR_INFLIGHT} in flight"
            );
        }
        if let Some(m) = &shown {
            let head = queued.front().copied();
            assert_eq!(
                Some(*m),
                head.map(|r| r.response()),
                "seed {seed} cycle {cycle}: rr_msg is the oldest queued request's response"
            );
        }
        if committing {
            qcnt += 1;
        }
        committing = false;
        if let Some(r) = finished {
            queued.push_back(r);
            committing = true;
            assert!(queued.len() <= IRQ_DEPTH, "seed {seed}: over-full queue");
        }
        if take_now {
            taken_shown = true;
        }
        if pick {
            picked = true;
        }
        age = if shown.is_some() { age + 1 } else { 0 };
        if let (Some(m), true) = (shown, ready) {
            taken_shown = false;
            picked = false;
            age = 0;
            let r = queued.pop_front().unwrap();
            qcnt -= 1;
            got.push(m);
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
    if p.reqs >= 100 && p.show > 0.5 {
        assert!(hints > 0, "seed {seed}: no read-ahead hint");
    }
    // Jobs come 6 cycles apart at best (4 load steps): dones 40 cycles late fill the FIFO.
    if p.capacity > RR_INFLIGHT && p.max_delay >= 40 {
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
        p.max_delay += 40;
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

/// The ReadResponder behind the TxArbiter, as in the core: SendEngine jobs and Read Responses
/// share DdpTx; the dones find their way back through both blocks.
#[derive(LogicBlock, Default)]
struct RrArb {
    clock: Signal<In, Clock>,
    irq_valid: Signal<In, Bit>,
    irq_ready: Signal<Out, Bit>,
    irq_qp: Signal<In, Bits<CONN_BITS>>,
    irq_word: Signal<In, Bits<32>>,
    irq_done: Signal<Out, Bit>,
    irq_done_qp: Signal<Out, Bits<CONN_BITS>>,
    se_msg_valid: Signal<In, Bit>,
    se_msg_ready: Signal<Out, Bit>,
    se_msg_conn: Signal<In, Bits<CONN_BITS>>,
    se_msg_opcode: Signal<In, Bits<4>>,
    se_msg_stag: Signal<In, Bits<32>>,
    se_msg_to: Signal<In, Bits<64>>,
    se_msg_inv_stag: Signal<In, Bits<32>>,
    se_msg_src_to: Signal<In, Bits<64>>,
    se_msg_msn: Signal<In, Bits<32>>,
    se_msg_addr: Signal<In, Bits<DMA_ADDR_BITS>>,
    se_msg_len: Signal<In, Bits<32>>,
    se_msg_done: Signal<Out, Bit>,
    msg_valid: Signal<Out, Bit>,
    msg_ready: Signal<In, Bit>,
    msg_conn: Signal<Out, Bits<CONN_BITS>>,
    msg_opcode: Signal<Out, Bits<4>>,
    msg_stag: Signal<Out, Bits<32>>,
    msg_to: Signal<Out, Bits<64>>,
    msg_inv_stag: Signal<Out, Bits<32>>,
    msg_src_to: Signal<Out, Bits<64>>,
    msg_msn: Signal<Out, Bits<32>>,
    msg_addr: Signal<Out, Bits<DMA_ADDR_BITS>>,
    msg_len: Signal<Out, Bits<32>>,
    msg_done: Signal<In, Bit>,
    idle: Signal<Out, Bit>,
    rr: ReadResponder,
    arb: TxArbiter,
}

impl Logic for RrArb {
    #[hdl_gen]
    fn update(&mut self) {
        self.rr.clock.next = self.clock.val();
        self.arb.clock.next = self.clock.val();
        self.rr.irq_valid.next = self.irq_valid.val();
        self.rr.irq_qp.next = self.irq_qp.val();
        self.rr.irq_word.next = self.irq_word.val();
        self.irq_ready.next = self.rr.irq_ready.val();
        self.irq_done.next = self.rr.irq_done.val();
        self.irq_done_qp.next = self.rr.irq_done_qp.val();
        self.arb.se_msg_valid.next = self.se_msg_valid.val();
        self.arb.se_msg_conn.next = self.se_msg_conn.val();
        self.arb.se_msg_opcode.next = self.se_msg_opcode.val();
        self.arb.se_msg_stag.next = self.se_msg_stag.val();
        self.arb.se_msg_to.next = self.se_msg_to.val();
        self.arb.se_msg_inv_stag.next = self.se_msg_inv_stag.val();
        self.arb.se_msg_src_to.next = self.se_msg_src_to.val();
        self.arb.se_msg_msn.next = self.se_msg_msn.val();
        self.arb.se_msg_addr.next = self.se_msg_addr.val();
        self.arb.se_msg_len.next = self.se_msg_len.val();
        self.se_msg_ready.next = self.arb.se_msg_ready.val();
        self.se_msg_done.next = self.arb.se_msg_done.val();
        // The take strobe with the handshake (the latest the contract allows: DdpTx reads
        // nothing ahead here); no SendEngine hints.
        self.arb.msg_take.next = self.arb.msg_valid.val() && self.msg_ready.val();
        self.rr.rr_msg_take.next = self.arb.rr_msg_take.val();
        self.rr.rr_msg_first.next = self.arb.rr_msg_first.val();
        self.rr.rr_msg_pick.next = self.arb.rr_msg_pick.val();
        self.arb.se_nxt_valid.next = false;
        self.arb.se_nxt_len.next = 0.into();
        self.arb.rr_nxt_valid.next = self.rr.rr_nxt_valid.val();
        self.arb.rr_nxt_len.next = self.rr.rr_nxt_len.val();
        self.arb.rr_msg_valid.next = self.rr.rr_msg_valid.val();
        self.arb.rr_msg_conn.next = self.rr.rr_msg_conn.val();
        self.arb.rr_msg_opcode.next = self.rr.rr_msg_opcode.val();
        self.arb.rr_msg_stag.next = self.rr.rr_msg_stag.val();
        self.arb.rr_msg_to.next = self.rr.rr_msg_to.val();
        self.arb.rr_msg_addr.next = self.rr.rr_msg_addr.val();
        self.arb.rr_msg_len.next = self.rr.rr_msg_len.val();
        self.rr.rr_msg_ready.next = self.arb.rr_msg_ready.val();
        self.rr.rr_msg_done.next = self.arb.rr_msg_done.val();
        self.msg_valid.next = self.arb.msg_valid.val();
        self.msg_conn.next = self.arb.msg_conn.val();
        self.msg_opcode.next = self.arb.msg_opcode.val();
        self.msg_stag.next = self.arb.msg_stag.val();
        self.msg_to.next = self.arb.msg_to.val();
        self.msg_inv_stag.next = self.arb.msg_inv_stag.val();
        self.msg_src_to.next = self.arb.msg_src_to.val();
        self.msg_msn.next = self.arb.msg_msn.val();
        self.msg_addr.next = self.arb.msg_addr.val();
        self.msg_len.next = self.arb.msg_len.val();
        self.arb.msg_ready.next = self.msg_ready.val();
        self.arb.msg_done.next = self.msg_done.val();
        self.idle.next = self.rr.idle.val() && self.arb.idle.val();
    }
}

rnic_hdl::sim_ports!(impl[] RrArb {
    inputs: irq_valid, irq_qp, irq_word, se_msg_valid, se_msg_conn, se_msg_opcode, se_msg_stag,
        se_msg_to, se_msg_inv_stag, se_msg_src_to, se_msg_msn, se_msg_addr, se_msg_len, msg_ready,
        msg_done;
    outputs: irq_ready, irq_done, irq_done_qp, se_msg_ready, se_msg_done, msg_valid, msg_conn,
        msg_opcode, msg_stag, msg_to, msg_inv_stag, msg_src_to, msg_msn, msg_addr, msg_len, idle;
});

/// Messages taken by DdpTx: whose (0 SendEngine, 1 ReadResponder) and, for a response, its QP.
fn run_pair(sim: &mut dyn Backend, seed: u64, n: usize) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut irq = IrqIn::new(sim);
    let se = MsgIn::new(sim, "se_");
    let out = MsgOut::new(sim, "");
    let done = sim.output("irq_done").unwrap();
    let done_qp = sim.output("irq_done_qp").unwrap();
    let idle = sim.output("idle").unwrap();
    let reqs: Vec<ReadReq> = (0..n).map(|_| ReadReq::random(&mut rng)).collect();
    // SendEngine jobs never use opcode 2, so the owner of a message is visible on msg_opcode.
    let se_jobs: VecDeque<MsgJob> = (0..n)
        .map(|_| {
            let mut j = MsgJob::random(&mut rng);
            if j.opcode == 2 {
                j.opcode = 0;
            }
            j
        })
        .collect();
    let mut src = MsgSource::new(se_jobs.clone(), 0.5);
    let mut queue: VecDeque<ReadReq> = reqs.iter().copied().collect();
    let mut sink: DdpTxSink<Option<u8>> = DdpTxSink::new(0.7, TXA_INFLIGHT + 2, 25);
    let (mut got_se, mut got_rr, mut done_qps, mut se_dones) = (vec![], vec![], vec![], 0);
    let mut cycle = 0;
    let mut queued: VecDeque<ReadReq> = VecDeque::new();
    // Cycles the message has been shown (0: DdpTx takes it up), and a Read Response's
    // fields as DdpTx reads them: the TO's low half at 0, the STag at 1, the high half at 2.
    let mut age = 0usize;
    let mut seen = MsgJob::default();
    while !(queue.is_empty()
        && !irq.busy()
        && queued.is_empty()
        && src.finished()
        && sink.inflight.is_empty())
    {
        cycle += 1;
        assert!(cycle < n * 400, "seed {seed}: stuck");
        let go = rng.gen_bool(0.5);
        let (started, finished) = irq.cycle(sim, queue.front(), go);
        if started {
            queue.pop_front();
        }
        let job = src.offer(&mut rng);
        se.drive(sim, job.as_ref());
        let shown = out.read(sim);
        // DdpTx's handshake comes two cycles after it took the message up at the soonest.
        let ready = sink.ready(&mut rng) && (shown.is_none() || age >= 2);
        sim.set(out.ready, u128::from(ready));
        sim.set(out.done, 0);
        if let Some(r) = finished {
            queued.push_back(r);
        }
        if let Some(m) = shown {
            match age {
                0 => seen.to = m.to & 0xFFFF_FFFF,
                1 => seen.stag = m.stag,
                2 => seen.to |= m.to & !0xFFFF_FFFF,
                _ => {}
            }
            age += 1;
        }
        if let Some(mut m) = shown {
            if ready {
                age = 0;
                if m.opcode == 2 {
                    let r = queued.pop_front().unwrap();
                    m.stag = seen.stag;
                    m.to = seen.to;
                    assert_eq!(m.used(), r.response(), "seed {seed} cycle {cycle}");
                    got_rr.push(m.used());
                    sink.take(&mut rng, Some(r.qp));
                } else {
                    assert_eq!(sim.get(se.ready), 1, "seed {seed} cycle {cycle}");
                    got_se.push(src.taken());
                    // A Read Request's `msg_addr` is the hint source's through the arbiter
                    // (DdpTx reads no `msg_addr` of it: `docs/core.md` "TxArbiter").
                    let want = got_se.last().map(|j| MsgJob {
                        addr: if j.opcode == 1 { m.addr } else { j.addr },
                        ..*j
                    });
                    assert_eq!(Some(m), want, "seed {seed} cycle {cycle}");
                    sink.take(&mut rng, None);
                }
            }
        }
        let d = sink.done();
        sim.set(out.done, u128::from(d));
        let owner = sink.inflight.front().map(|(_, o)| *o);
        let rr_done = d && matches!(owner, Some(Some(_)));
        assert_eq!(
            sim.get(done) == 1,
            rr_done,
            "seed {seed} cycle {cycle}: irq_done"
        );
        assert_eq!(
            sim.get(se.done) == 1,
            d && owner == Some(None),
            "seed {seed} cycle {cycle}: se_msg_done"
        );
        if rr_done {
            done_qps.push(sim.get(done_qp) as u8);
        }
        if d && owner == Some(None) {
            se_dones += 1;
        }
        sink.end_cycle();
        sim.tick();
    }
    let want_rr: Vec<MsgJob> = reqs.iter().map(|r| r.response()).collect();
    assert_eq!(got_rr, want_rr, "seed {seed}: responses");
    assert_eq!(got_se, Vec::from(se_jobs), "seed {seed}: SendEngine jobs");
    let want_qps: Vec<u8> = reqs.iter().map(|r| r.qp).collect();
    assert_eq!(done_qps, want_qps, "seed {seed}: irq_done QPs");
    assert_eq!(se_dones, n, "seed {seed}: SendEngine dones");
    assert_eq!(sim.get(idle), 1, "seed {seed}: idle");
}

#[test]
fn behind_the_arbiter_both_back_ends() {
    for kind in BackendKind::ALL {
        let (seeds, n) = match kind {
            BackendKind::RustHdl => (0..2, 30),
            _ => (0..20, 300),
        };
        for seed in seeds {
            run_with_waveform_on_failure(
                "read_responder_arbiter",
                || kind.build(RrArb::default()),
                |sim| run_pair(sim, 5000 + seed, n),
            );
        }
    }
}
