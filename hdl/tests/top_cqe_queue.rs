//! Tests of the completion queue (`hdl/src/top/cqe_queue.rs`) on both back ends: random
//! completions under random `in_valid` gaps and `out_ready` back-pressure leave whole and in
//! order; the producer's entry is held while `in_valid && !in_ready` (RxControl's contract);
//! `in_ready` is never high when the queue holds `CQE_QUEUE_DEPTH` entries and the register.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_hdl::top::cqe_queue::{CqeQueue, CQE_QUEUE_DEPTH};
use rnic_sim::testbench::{run_with_waveform_on_failure, Backend, BackendKind};
use std::collections::VecDeque;

const FIELDS: [(&str, u32); 8] = [
    ("qp", 2),
    ("opcode", 8),
    ("status", 8),
    ("byte_len", 32),
    ("index", 16),
    ("inv_stag", 32),
    ("with_inv", 1),
    ("solicited", 1),
];

fn entry(rng: &mut StdRng) -> Vec<u128> {
    FIELDS
        .iter()
        .map(|&(_, w)| rng.gen::<u128>() & ((1u128 << w) - 1))
        .collect()
}

fn run(sim: &mut dyn Backend, seed: u64, n: usize, p_in: f64, p_out: f64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let i = |s: &dyn Backend, n: &str| s.input(n).unwrap();
    let o = |s: &dyn Backend, n: &str| s.output(n).unwrap();
    let mut src: VecDeque<Vec<u128>> = (0..n).map(|_| entry(&mut rng)).collect();
    let want: Vec<Vec<u128>> = src.iter().cloned().collect();
    let mut got = Vec::new();
    let mut offered = false;
    let mut queued = 0usize;
    let mut max_queued = 0usize;
    for _ in 0..(n * 40 + 200) {
        // A producer keeps an offered entry until it is taken.
        offered = src.front().is_some() && (offered || rng.gen_bool(p_in));
        sim.set(i(sim, "in_valid"), u128::from(offered));
        if let Some(e) = src.front() {
            for (k, &(f, _)) in FIELDS.iter().enumerate() {
                sim.set(i(sim, &format!("in_{f}")), e[k]);
            }
        }
        let ready = rng.gen_bool(p_out);
        sim.set(i(sim, "out_ready"), u128::from(ready));
        let in_ready = sim.get(o(sim, "in_ready")) == 1;
        if in_ready {
            assert!(
                queued < CQE_QUEUE_DEPTH + 1,
                "seed {seed}: room beyond the depth"
            );
        }
        if sim.get(o(sim, "out_valid")) == 1 && ready {
            got.push(
                FIELDS
                    .iter()
                    .map(|&(f, _)| sim.get(o(sim, &format!("out_{f}"))))
                    .collect::<Vec<_>>(),
            );
            queued -= 1;
        }
        if offered && in_ready {
            src.pop_front();
            offered = false;
            queued += 1;
            max_queued = max_queued.max(queued);
        }
        sim.tick();
    }
    assert_eq!(got, want, "seed {seed}: completions");
    assert_eq!(sim.get(o(sim, "idle")), 1, "seed {seed}: idle at the end");
    if p_out < 0.2 {
        assert!(
            max_queued >= CQE_QUEUE_DEPTH,
            "seed {seed}: never filled ({max_queued})"
        );
    }
}

#[test]
fn completions_in_order_under_back_pressure() {
    for kind in BackendKind::ALL {
        let seeds = if matches!(kind, BackendKind::RustHdl) {
            2
        } else {
            6
        };
        for seed in 0..seeds {
            for &(p_in, p_out) in &[(0.9, 0.9), (0.9, 0.05), (0.2, 0.5)] {
                run_with_waveform_on_failure(
                    "cqe_queue",
                    || kind.build(CqeQueue::default()),
                    |sim| run(sim, seed, 60, p_in, p_out),
                );
            }
        }
    }
}
