//! The whole core's raw (firmware) ports through `SimDevice`: packets queued with `raw_send`
//! on one connection of the LLP loopback come out of `raw_rx_*` on its pair, byte for byte,
//! while both connections are in raw mode (after reset no QP is in FPDU mode).

use rnic_sim::dma_port::DmaConfig;
use rnic_sim::loopback::{LlpLoopback, LoopbackConfig};
use rnic_sim::tb::rnic::{DeviceConfig, SimDevice};
use rnic_sim::testbench::BackendKind;

fn device() -> SimDevice {
    let cfg = DeviceConfig {
        backend: BackendKind::RustHdl,
        dma: DmaConfig::default(),
        seed: 3,
    };
    SimDevice::new(
        cfg,
        Box::new(LlpLoopback::new(LoopbackConfig::full_speed(3))),
    )
    .unwrap()
}

/// Packets of 1..=45 octets each way (every `keep` pattern of the last beat), both connections
/// at once: the concatenation received equals the concatenation sent, nothing arrives on the
/// sending connection, and `raw_tx_pending` drains to 0.
#[test]
fn raw_packets_cross_the_loopback_both_ways() {
    let mut dev = device();
    let mut sent = [Vec::new(), Vec::new()];
    for (i, len) in [1usize, 2, 3, 4, 5, 8, 13, 45].into_iter().enumerate() {
        for (conn, s) in sent.iter_mut().enumerate() {
            let pkt: Vec<u8> = (0..len)
                .map(|k| (k * 7 + i * 31 + conn * 101) as u8)
                .collect();
            dev.raw_send(conn, &pkt);
            s.extend_from_slice(&pkt);
        }
    }
    assert!(dev.raw_tx_pending(0) > 0);
    let mut got = [Vec::new(), Vec::new()];
    dev.run_until("raw bytes delivered", 20_000, 16, |d| {
        for (conn, g) in got.iter_mut().enumerate() {
            for p in d.raw_take(conn) {
                g.extend(p);
            }
        }
        got[0].len() == sent[1].len() && got[1].len() == sent[0].len()
    })
    .unwrap();
    assert_eq!(got[1], sent[0], "conn 0 -> conn 1");
    assert_eq!(got[0], sent[1], "conn 1 -> conn 0");
    assert_eq!(dev.raw_tx_pending(0), 0);
    assert_eq!(dev.raw_tx_pending(1), 0);
    dev.run(200);
    assert!(dev.raw_take(0).is_empty() && dev.raw_take(1).is_empty());
    assert_eq!(dev.raw_rx_partial(0) + dev.raw_rx_partial(1), 0);
}
