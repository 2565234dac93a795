use rnic_hdl::rdmap::rx_path::RxPath;
use rnic_sim::rx_model::{QpConfig, RecvWqe};
use rnic_sim::tb::rx_path::{Knobs, RxPathBench};
use rnic_sim::testbench::BackendKind;
fn hx(s: &str) -> Vec<u8> { (0..s.len()/2).map(|i| u8::from_str_radix(&s[2*i..2*i+2],16).unwrap()).collect() }
#[test]
fn reset_then_short_send() {
    for pre in [false, true] {
    for knobs in [Knobs::FULL_SPEED, Knobs::RANDOM] {
        let sim = BackendKind::Verilator.build_untraced(RxPath::default()).unwrap();
        let mut b = RxPathBench::new(sim, 3, knobs).unwrap();
        let cfg = QpConfig { enable: true, pd: 1, ird: 4 };
        b.mpa_cfg(0, true, false, true, 9000);
        b.qp_cfg(0, cfg);
        if pre {
            // a Terminate-causing segment first (bad opcode), then reset
            b.send_ulpdus(0, &[hx("414f000000000000000000000001000000000149")]);
            b.run_until_idle(100000);
            b.mpa_cfg(0, true, false, true, 9000);
            b.qp_cfg(0, cfg);
        }
        b.post_recv(0, RecvWqe { to: 0, len: 100, lkey: 0x100, index: 0 });
        b.send_ulpdus(0, &[hx("4143000000000000000000000055000000000149")]);
        b.run_until_idle(100000);
        eprintln!("pre {pre} knobs {:?}: terms {:?} aevs {:?}", knobs.seg_max, b.terms[0], b.aevs[0]);
    }}
}
