use rnic_hdl::rdmap::rx_path::RxPath;
use rnic_sim::tb::rx_path::{run_campaign, Knobs};
use rnic_sim::testbench::BackendKind;
#[test]
#[ignore]
fn campaign_e() {
    let seeds: Vec<u64> = std::env::var("SEEDS").unwrap_or("5,6,7,8".into()).split(',').map(|s| s.parse().unwrap()).collect();
    let rounds: usize = std::env::var("ROUNDS").unwrap_or("300".into()).parse().unwrap();
    for seed in seeds {
        let sim = BackendKind::Verilator.build_untraced(RxPath::default()).unwrap();
        let r = run_campaign(sim, seed, Knobs::RANDOM, rounds, 3, 0.5);
        eprintln!("seed {seed}: {r:?}");
        r.unwrap();
    }
}
