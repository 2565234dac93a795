//! The whole receive path (`RxPath`: MpaRx, DdpRxParse, StagCheck, RxControl, RxPlace,
//! TerminateTx) against the software model `RxModel`, with the memory-protection monitor on.

use rnic_hdl::rdmap::rx_path::RxPath;
use rnic_sim::tb::rx_path::{run_random, Knobs};
use rnic_sim::testbench::BackendKind;

#[test]
fn random_valid_traffic_matches_the_model_verilator() {
    for seed in 1..=3 {
        let sim = BackendKind::Verilator.build(RxPath::default()).unwrap();
        let (bench, exp) = run_random(sim, seed, Knobs::RANDOM, 30, 0.0, 5_000_000).unwrap();
        bench.mem.assert_no_violations();
        let _ = exp;
    }
}

#[test]
fn random_mutants_match_the_model_verilator() {
    for seed in 10..=12 {
        let sim = BackendKind::Verilator.build(RxPath::default()).unwrap();
        let (bench, _) = run_random(sim, seed, Knobs::RANDOM, 30, 0.2, 5_000_000).unwrap();
        bench.mem.assert_no_violations();
    }
}
