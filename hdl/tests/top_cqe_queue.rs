//! Tests of the completion queue (`hdl/src/top/cqe_queue.rs`) on both back ends: random
//! completions under random `in_valid` gaps and `out_ready` back-pressure leave whole and in
//! order, the head's routing fields (QP, opcode, status) before `out_go` and its 4 CQE beats
//! after it, under random beat and release back-pressure, heads released without beats or
//! after some; the producer's entry is held while `in_valid && !in_ready` (RxControl's
//! contract); `in_ready` is never high when the queue holds `CQE_QUEUE_DEPTH` entries.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_hdl::config::CONN_BITS;
use rnic_hdl::top::cqe_queue::{CqeQueue, CQE_QUEUE_DEPTH};
use rnic_proto::host::{cqe_flags, Cqe};
use rnic_sim::testbench::{run_with_waveform_on_failure, Backend, BackendKind};
use std::collections::VecDeque;

const FIELDS: [(&str, u32); 8] = [
    ("qp", CONN_BITS as u32),
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

/// The CQE's 4 beats of an entry, as HostIf writes them: `rnic_proto::host::Cqe::emit` with
/// the owner bit 0 (HostIf adds it), read as 4 big-endian words (byte 0 in the top lane).
fn beats(e: &[u128]) -> [u128; 4] {
    let mut flags = 0;
    if e[6] != 0 {
        flags |= cqe_flags::WITH_INV;
    }
    if e[7] != 0 {
        flags |= cqe_flags::SOLICITED;
    }
    let b = Cqe {
        wqe_index: e[4] as u16,
        opcode: e[1] as u8,
        status: e[2] as u8,
        byte_len: e[3] as u32,
        inv_stag: e[5] as u32,
        qp: e[0] as u8,
        flags,
        owner: false,
    }
    .emit();
    core::array::from_fn(|i| {
        u128::from(u32::from_be_bytes(b[4 * i..4 * i + 4].try_into().unwrap()))
    })
}

/// What the consumer (HostIf) does with the head entry: release it without beats (an RdmaRead
/// completion, a dropped CQE), take all 4 beats then release it, or raise `out_go` and release
/// it after some beats (a CQE dropped after the writer took it).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Plan {
    NoBeats,
    Beats,
    Abort(usize),
}

fn run(sim: &mut dyn Backend, seed: u64, n: usize, p_in: f64, p_out: f64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let i = |s: &dyn Backend, n: &str| s.input(n).unwrap();
    let o = |s: &dyn Backend, n: &str| s.output(n).unwrap();
    let mut src: VecDeque<Vec<u128>> = (0..n).map(|_| entry(&mut rng)).collect();
    let want: VecDeque<Vec<u128>> = src.iter().cloned().collect();
    let mut want = want;
    let mut got = 0usize;
    let mut offered = false;
    let mut queued = 0usize;
    let mut max_queued = 0usize;
    // The consumer: its plan for the head, `out_go` raised, beats taken.
    let mut plan: Option<Plan> = None;
    let mut go = false;
    let mut beat = 0usize;
    let mut full_beats = 0usize;
    for cyc in 0..(n * 400 + 400) {
        if got == n {
            break;
        }
        // A producer keeps an offered entry until it is taken.
        offered = src.front().is_some() && (offered || rng.gen_bool(p_in));
        sim.set(i(sim, "in_valid"), u128::from(offered));
        if let Some(e) = src.front() {
            for (k, &(f, _)) in FIELDS.iter().enumerate() {
                sim.set(i(sim, &format!("in_{f}")), e[k]);
            }
        }
        let valid = sim.get(o(sim, "out_valid")) == 1;
        if valid && plan.is_none() {
            let w = want.front().expect("an entry beyond those queued");
            // The head's routing fields, before `out_go`.
            assert_eq!(
                sim.get(o(sim, "out_qp")),
                w[0],
                "seed {seed} cycle {cyc}: qp"
            );
            assert_eq!(sim.get(o(sim, "out_opcode")), w[1], "seed {seed}: opcode");
            assert_eq!(sim.get(o(sim, "out_status")), w[2], "seed {seed}: status");
            plan = Some(match rng.gen_range(0..6) {
                0 => Plan::NoBeats,
                1 => Plan::Abort(rng.gen_range(0..4)),
                _ => Plan::Beats,
            });
        }
        if !valid {
            assert_eq!(
                sim.get(o(sim, "out_beat_valid")),
                0,
                "seed {seed}: beat without head"
            );
        }
        if plan.is_some() && plan != Some(Plan::NoBeats) && !go {
            go = rng.gen_bool(0.5);
        }
        sim.set(i(sim, "out_go"), u128::from(go));
        if let Some(p) = plan {
            assert_eq!(
                sim.get(o(sim, "out_qp")),
                want.front().unwrap()[0],
                "seed {seed}: qp held"
            );
            if !go {
                assert_eq!(sim.get(o(sim, "out_opcode")), want.front().unwrap()[1]);
                assert_eq!(sim.get(o(sim, "out_status")), want.front().unwrap()[2]);
            }
            assert!(p != Plan::NoBeats || !go);
        }
        let beat_ready = rng.gen_bool(p_out);
        sim.set(i(sim, "out_beat_ready"), u128::from(beat_ready));
        let bv = sim.get(o(sim, "out_beat_valid")) == 1;
        if bv {
            assert!(
                go && beat < 4,
                "seed {seed} cycle {cyc}: beat {beat} unasked"
            );
            if beat_ready {
                let w = beats(want.front().unwrap());
                assert_eq!(
                    sim.get(o(sim, "out_beat")),
                    w[beat],
                    "seed {seed} cycle {cyc}: beat {beat}"
                );
                beat += 1;
            }
        }
        // The release: after the plan's beats, under back-pressure.
        let release = match plan {
            None => false,
            Some(Plan::NoBeats) => rng.gen_bool(p_out),
            Some(Plan::Beats) => beat == 4 && !(bv && beat_ready) && rng.gen_bool(p_out),
            Some(Plan::Abort(k)) => go && beat >= k && rng.gen_bool(p_out),
        };
        sim.set(i(sim, "out_ready"), u128::from(release));
        let in_ready = sim.get(o(sim, "in_ready")) == 1;
        if in_ready {
            assert!(
                queued < CQE_QUEUE_DEPTH,
                "seed {seed}: room beyond the depth"
            );
        }
        if release {
            if plan == Some(Plan::Beats) {
                full_beats += 1;
            }
            want.pop_front();
            got += 1;
            queued -= 1;
            plan = None;
            go = false;
            beat = 0;
        }
        if offered && in_ready {
            src.pop_front();
            offered = false;
            queued += 1;
            max_queued = max_queued.max(queued);
        }
        sim.tick();
    }
    sim.tick();
    assert_eq!(got, n, "seed {seed}: completions");
    assert!(
        full_beats > n / 3,
        "seed {seed}: {full_beats} CQEs read whole"
    );
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
