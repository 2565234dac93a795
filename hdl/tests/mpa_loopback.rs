//! MPA transmit into MPA receive, both blocks busy in the same cycles (`sim/src/tb/mpa_loopback.rs`):
//! every ULPDU comes back intact with a good status, markers off and on (on only in a build with
//! markers), and the link runs at the wire limit for ULPDUs of 1 KiB and up.

use rnic_sim::tb::mpa_loopback::measure_loopback;
use rnic_sim::tb::mpa_tx::MARKER_CASES;
use rnic_sim::testbench::BackendKind;

#[test]
fn verilator_loopback_delivers_every_ulpdu_at_the_wire_limit() {
    for &markers in MARKER_CASES {
        for (len, count) in [
            (0, 20),
            (1, 20),
            (3, 20),
            (64, 200),
            (1024, 100),
            (9000, 10),
        ] {
            let t = measure_loopback(BackendKind::Verilator, len, markers, count).unwrap();
            if len >= 1024 {
                assert!(t.llp_beats_per_cycle >= 0.99, "{t:?}");
                assert!(t.tx_ulpdu_beats_per_cycle >= 0.97, "{t:?}");
            }
        }
    }
}

#[test]
fn rust_hdl_loopback_delivers_every_ulpdu() {
    for &markers in MARKER_CASES {
        measure_loopback(BackendKind::RustHdl, 700, markers, 4).unwrap();
    }
}
