//! Tests of the SendEngine (`hdl/src/rdmap/send_engine.rs`) on both back ends, against the
//! reference model of `rnic_sim::tb::send_engine`: 4 QPs round robin over small rings (log2
//! 1..=3, so the rings wrap many times), doorbells in the middle of the traffic, random Write /
//! Read / Send variants with FENCE and SIGNALED, exact messages (all fields the opcode uses),
//! exact CQEs, `orq_push` count, ORD (never more than min(ORD, 4) Reads outstanding), fence,
//! and flush after a bad lkey, an unknown opcode or `qp_err`. The rust-hdl runs are short and
//! regular; the Verilator runs long with random DMA latency, back-pressure and delays.

use rnic_hdl::rdmap::send_engine::SendEngine;
use rnic_sim::tb::send_engine::{run, RunCfg};
use rnic_sim::testbench::{run_with_waveform_on_failure, BackendKind};

fn runs(errors: bool, seeds: std::ops::Range<u64>) {
    for kind in BackendKind::ALL {
        let verilator = kind.name() == "verilator";
        // Verilator: more seeds, longer runs.
        let seeds = if verilator {
            seeds.start..seeds.end + 6
        } else {
            seeds.clone()
        };
        for seed in seeds {
            let cfg = RunCfg {
                seed,
                wqes_per_qp: if verilator { 200 } else { 12 },
                errors,
                random: verilator,
                max_cycles: if verilator { 1_000_000 } else { 40_000 },
            };
            run_with_waveform_on_failure(
                "send_engine",
                || kind.build(SendEngine::default()),
                |sim| run(sim, cfg),
            );
        }
    }
}

#[test]
fn messages_and_completions_four_qps() {
    runs(false, 0..3);
}

#[test]
fn flush_after_bad_lkey_unknown_opcode_and_qp_err() {
    runs(true, 10..14);
}

/// A second run on the same engine: every QP's context is committed again (`qpc_write`) over a
/// context RAM that still holds the first run's MSNs (well above 1), so the messages of the
/// second run check that a commit restarts both MSNs at 1 (the per-QP fresh flags, one RAM
/// write per commit).
#[test]
fn context_commit_after_traffic_restarts_msns() {
    for kind in BackendKind::ALL {
        let verilator = kind.name() == "verilator";
        for errors in [false, true] {
            let cfg = |seed| RunCfg {
                seed,
                wqes_per_qp: if verilator { 60 } else { 12 },
                errors,
                random: verilator,
                max_cycles: if verilator { 400_000 } else { 40_000 },
            };
            run_with_waveform_on_failure(
                "send_engine_recommit",
                || kind.build(SendEngine::default()),
                |sim| {
                    run(sim, cfg(20));
                    run(sim, cfg(21));
                },
            );
        }
    }
}
