//! Tests of the transmit message arbiter (`hdl/src/rdmap/tx_arbiter.rs`) on both back ends:
//! random jobs on `se_msg_*` and `rr_msg_*` with random valid gaps, a DdpTx model on `msg_*`
//! with random `msg_ready`, a random number of messages taken ahead and random done delays.
//!
//! Checked against a reference model of the arbiter every cycle: the job on `msg_*` is the one
//! the round-robin rule picked in the cycle before (held while shown and not taken; shown when
//! that source waited then, was not taken then, and the FIFO has room now), with every
//! field (a Read Response's `inv_stag` / `src_to` / `msn` excepted: the SendEngine's pass
//! through); exactly the picked source sees `ready`; each message is taken exactly once, each
//! source's jobs in order; every `msg_done` is routed to the owner of the oldest message in
//! flight, and to it only; no more than `TXA_INFLIGHT` messages in flight; neither source is
//! passed over twice while it waits; `idle` exactly when nothing is in flight or held;
//! `msg_take` routed to the source shown; the read-ahead hint `nxt_*` is, a cycle late, the hint
//! (`nxt_valid` / `nxt_len` and the `*_msg_addr` it drove then) of the source expected next (the
//! model's `nsel`), with `nxt_valid` 0 in the cycle after that choice changes; `nxt_shown` when
//! the hint's source is the one shown (held, only a fall passing, while a ReadResponder job is
//! shown and not taken with the ReadResponder's hint forwarded). A source's hint address is its
//! `*_msg_addr` (driven at random while it shows no job).

// Per-source arrays (ports, offers, sources) are indexed together by the source number.
#![allow(clippy::needless_range_loop)]

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_hdl::rdmap::tx_arbiter::{TxArbiter, TXA_INFLIGHT};
use rnic_sim::host_mem::DMA_ADDR_MASK;
use rnic_sim::tb::tx_arbiter::{DdpTxSink, MsgIn, MsgJob, MsgOut, MsgSource};
use rnic_sim::testbench::{run_with_waveform_on_failure, Backend, BackendKind};
use std::collections::VecDeque;

struct Params {
    jobs: usize,
    cycles: usize,
    show: [f64; 2],
    ready: f64,
    capacity: usize,
    max_delay: u32,
}

fn run(sim: &mut dyn Backend, seed: u64, p: &Params) {
    let mut rng = StdRng::seed_from_u64(seed);
    let ports = [MsgIn::new(sim, "se_"), MsgIn::new(sim, "rr_")];
    let out = MsgOut::new(sim, "");
    let idle = sim.output("idle").unwrap();
    let i = |n: &str| sim.input(n).unwrap();
    let hin = [
        [i("se_nxt_valid"), i("se_nxt_len")],
        [i("rr_nxt_valid"), i("rr_nxt_len")],
    ];
    let take_in = i("msg_take");
    let o = |n: &str| sim.output(n).unwrap();
    let takes = [o("se_msg_take"), o("rr_msg_take")];
    let hout = [o("nxt_valid"), o("nxt_addr"), o("nxt_len"), o("nxt_shown")];
    let mut hint: [Option<u32>; 2] = [None, None];
    // The value each source drives on its `msg_addr` (its hint address).
    let mut drv_addr = [0u32; 2];
    let mut nsel_prev = 0usize;
    // The job shown had its `msg_take` (until its handshake): the hint choice is held till then.
    let mut took = false;
    let want: [VecDeque<MsgJob>; 2] = [
        (0..p.jobs).map(|_| MsgJob::random(&mut rng)).collect(),
        // The ReadResponder's jobs are Read Responses (tagged): its port has no `inv_stag`,
        // `src_to`, `msn`.
        (0..p.jobs)
            .map(|_| {
                MsgJob {
                    opcode: 2,
                    ..MsgJob::random(&mut rng)
                }
                .used()
            })
            .collect(),
    ];
    let mut src = [
        MsgSource::new(want[0].clone(), p.show[0]),
        MsgSource::new(want[1].clone(), p.show[1]),
    ];
    let mut sink: DdpTxSink<usize> = DdpTxSink::new(p.ready, p.capacity, p.max_delay);
    let mut got: [Vec<MsgJob>; 2] = [Vec::new(), Vec::new()];
    let mut dones = [0usize; 2];
    // Reference model state.
    let mut held: Option<usize> = None;
    // last_rr resets to 0: the SendEngine counts as granted last.
    let mut last = 0usize;
    // The source shown in this cycle, chosen in the last one (`pick_q`, reset 0).
    let mut pick = 0usize;
    // The picked source waited in the last cycle and was not taken (`msg_valid` unless full).
    let mut carry = false;
    // The hint forwarded in this cycle (address, length), registered in the last one.
    let mut h_reg: Option<(u32, u32)> = None;
    let mut passed_over = [0usize; 2];
    let mut both_waited = 0usize;
    let mut max_inflight = 0usize;
    let mut cycle = 0;
    while cycle < p.cycles && !(src[0].finished() && src[1].finished() && sink.inflight.is_empty())
    {
        cycle += 1;
        let offer = [src[0].offer(&mut rng), src[1].offer(&mut rng)];
        for s in 0..2 {
            ports[s].drive(sim, offer[s].as_ref());
            match offer[s] {
                Some(job) => drv_addr[s] = job.addr,
                None if rng.gen_bool(0.2) => {
                    drv_addr[s] = rng.gen::<u32>() & DMA_ADDR_MASK;
                    sim.set(ports[s].fields[7].unwrap(), u128::from(drv_addr[s]));
                }
                None => {}
            }
        }
        for s in 0..2 {
            if rng.gen_bool(0.05) {
                hint[s] = if hint[s].is_some() {
                    None
                } else {
                    Some(u32::from(rng.gen::<u16>()))
                };
            }
            let l = hint[s].unwrap_or(u32::from(rng.gen::<u16>()));
            sim.set(hin[s][0], u128::from(hint[s].is_some()));
            sim.set(hin[s][1], u128::from(l));
        }
        let take = rng.gen_bool(0.3);
        sim.set(take_in, u128::from(take));
        let ready = sink.ready(&mut rng);
        sim.set(out.ready, u128::from(ready));
        sim.set(out.done, 0);
        assert_eq!(
            sim.get(idle),
            u128::from(sink.inflight.is_empty() && held.is_none()),
            "seed {seed} cycle {cycle}: idle"
        );
        // The reference pick.
        let full = sink.inflight.len() >= TXA_INFLIGHT;
        // The source selected is `pick`, chosen in the last cycle (below; its `ready` may be
        // 1 while it offers nothing).
        let shown = out.read(sim);
        // `msg_valid` was chosen in the last cycle too: the source waited then and was not
        // being taken (so it still waits), and the FIFO has room now.
        let is_shown = carry && !full;
        assert!(!carry || offer[pick].is_some(), "seed {seed}: model");
        let nsel = if is_shown && !took {
            nsel_prev
        } else if is_shown {
            if pick == 1 {
                // A waiting SendEngine Read Request (no payload) does not count.
                let se_pay = offer[0].is_some_and(|j| j.opcode != 1);
                usize::from(!se_pay && hint[1].is_some())
            } else {
                usize::from(offer[1].is_some() || hint[0].is_none())
            }
        } else {
            usize::from(hint[0].is_none())
        };
        match offer[pick] {
            Some(job) if is_shown => {
                // A Read Response shows the SendEngine's `inv_stag` / `src_to` / `msn`
                // (passed through, unused for a tagged message): compared as DdpTx reads it.
                assert_eq!(
                    shown.map(|j| if pick == 1 { j.used() } else { j }),
                    Some(job),
                    "seed {seed} cycle {cycle}: job shown (source {pick})"
                );
            }
            _ => assert_eq!(shown, None, "seed {seed} cycle {cycle}: nothing shown"),
        }
        // Take strobe and hint.
        for s in 0..2 {
            assert_eq!(
                sim.get(takes[s]) == 1,
                take && pick == s,
                "seed {seed} cycle {cycle}: msg_take of source {s}"
            );
        }
        // The hint forwarded is a register: the last cycle's hint of the source chosen
        // then (`h_reg`), none in the cycle after the choice changed.
        assert_eq!(
            sim.get(hout[0]) == 1,
            h_reg.is_some(),
            "seed {seed} cycle {cycle}: nxt_valid (source {nsel_prev})"
        );
        if let Some(h) = h_reg {
            assert_eq!(
                (sim.get(hout[1]) as u32, sim.get(hout[2]) as u32),
                h,
                "seed {seed} cycle {cycle}: nxt_addr / nxt_len"
            );
        }
        assert_eq!(
            sim.get(hout[3]) == 1,
            nsel_prev == pick,
            "seed {seed} cycle {cycle}: nxt_shown"
        );
        // While a ReadResponder job is shown and not taken with its hint forwarded, its
        // `rr_msg_addr` is its queue RAM's read port reading the job's words: the hint is
        // held, only a fall passes.
        let frz = nsel == 1 && pick == 1 && is_shown && !took;
        h_reg = if frz {
            h_reg.filter(|_| hint[1].is_some())
        } else if nsel == nsel_prev {
            hint[nsel].map(|l| (drv_addr[nsel], l))
        } else {
            None
        };
        nsel_prev = nsel;
        let rdy = [sim.get(ports[0].ready) == 1, sim.get(ports[1].ready) == 1];
        for s in 0..2 {
            assert_eq!(
                rdy[s],
                ready && is_shown && pick == s,
                "seed {seed} cycle {cycle}: ready of source {s}"
            );
        }
        if held.is_none() && offer[0].is_some() && offer[1].is_some() && !full {
            both_waited += 1;
        }
        if shown.is_some() && ready {
            took = false;
        } else if take {
            took = true;
        }
        // The next cycle's source: the shown one while it waits, else round robin between the
        // sources waiting now (this cycle's handshake counted as the last grant).
        let last_now = if shown.is_some() && ready { pick } else { last };
        let next_pick = if shown.is_some() && !ready {
            pick
        } else if offer[0].is_some() && offer[1].is_some() {
            1 - last_now
        } else {
            usize::from(offer[1].is_some())
        };
        if shown.is_some() {
            let s = pick;
            if ready {
                got[s].push(src[s].taken());
                last = s;
                held = None;
                sink.take(&mut rng, s);
                max_inflight = max_inflight.max(sink.inflight.len());
                passed_over[s] = 0;
                if offer[1 - s].is_some() {
                    passed_over[1 - s] += 1;
                    assert!(
                        passed_over[1 - s] <= 1,
                        "seed {seed} cycle {cycle}: source {} starves",
                        1 - s
                    );
                }
            } else {
                held = Some(s);
            }
        } else {
            held = None;
        }
        // Dones, in message order, to the owner of the oldest message.
        let done = sink.done();
        sim.set(out.done, u128::from(done));
        let owner = sink.inflight.front().map(|(_, s)| *s);
        for s in 0..2 {
            assert_eq!(
                sim.get(ports[s].done) == 1,
                done && owner == Some(s),
                "seed {seed} cycle {cycle}: done of source {s}"
            );
        }
        if let Some(s) = sink.end_cycle() {
            dones[s] += 1;
        }
        let taken_now = shown.is_some() && ready;
        carry = offer[next_pick].is_some() && !(taken_now && pick == next_pick);
        pick = next_pick;
        sim.tick();
    }
    for s in 0..2 {
        assert_eq!(
            got[s],
            Vec::from(want[s].clone()),
            "seed {seed}: jobs of source {s}"
        );
        assert_eq!(dones[s], p.jobs, "seed {seed}: dones of source {s}");
    }
    assert!(sink.inflight.is_empty(), "seed {seed}: dones missing");
    assert_eq!(sim.get(idle), 1, "seed {seed}: idle at the end");
    assert!(both_waited > 5, "seed {seed}: round robin never exercised");
    if p.capacity > TXA_INFLIGHT && p.max_delay >= 20 {
        assert_eq!(
            max_inflight, TXA_INFLIGHT,
            "seed {seed}: in-flight limit never reached"
        );
    }
}

fn params(rng: &mut StdRng, jobs: usize) -> Params {
    Params {
        jobs,
        cycles: jobs * 400,
        show: [rng.gen_range(0.1..1.0), rng.gen_range(0.1..1.0)],
        ready: rng.gen_range(0.2..1.0),
        capacity: rng.gen_range(1..=TXA_INFLIGHT + 2),
        max_delay: rng.gen_range(0..40),
    }
}

#[test]
fn rust_hdl_short() {
    for seed in 0..3 {
        let mut rng = StdRng::seed_from_u64(1000 + seed);
        let mut p = params(&mut rng, 40);
        // Seed 0: DdpTx takes more than the arbiter lets it, dones after long delays.
        if seed == 0 {
            p.capacity = TXA_INFLIGHT + 2;
            p.max_delay = 30;
            p.ready = 0.9;
            p.show = [0.9, 0.9];
        }
        run_with_waveform_on_failure(
            "tx_arbiter",
            || BackendKind::RustHdl.build(TxArbiter::default()),
            |sim| run(sim, seed, &p),
        );
    }
}

#[test]
fn verilator_random() {
    for seed in 0..40 {
        let mut rng = StdRng::seed_from_u64(2000 + seed);
        let mut p = params(&mut rng, 400);
        if seed.is_multiple_of(4) {
            p.capacity = TXA_INFLIGHT + 2;
            p.show = [0.95, 0.95];
            p.ready = 0.95;
            p.max_delay += 20;
        }
        run_with_waveform_on_failure(
            "tx_arbiter",
            || BackendKind::Verilator.build(TxArbiter::default()),
            |sim| run(sim, seed, &p),
        );
    }
}
