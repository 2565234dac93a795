//! Tests of the CRC-32C stream block (`hdl/src/crc/crc32c.rs`) on both simulation back ends,
//! checked against the golden model (`rnic_proto::crc32c`, the `crc` crate's CRC-32/ISCSI).
//! Catalog: `mpa-peer-connect.md` §5.2.

use rand::{Rng, SeedableRng};
use rnic_hdl::crc::Crc32c;
use rnic_hdl::ports::SimPorts;
use rnic_proto::crc32c::crc32c;
use rnic_sim::tb::crc32c::Crc32cTb;
use rnic_sim::testbench::{run_with_waveform_on_failure, Backend, BackendKind};

fn random_packets(rng: &mut impl Rng, count: usize, max_len: usize) -> Vec<Vec<u8>> {
    (0..count)
        .map(|_| {
            let len = match rng.gen_range(0..10) {
                0 => 0,
                1 => rng.gen_range(1..=8),
                _ => rng.gen_range(0..=max_len),
            };
            (0..len).map(|_| rng.gen()).collect()
        })
        .collect()
}

/// Random packets of 0..=max_len bytes with random idle cycles; every CRC equals the golden one.
fn check_random<B: SimPorts + Default + 'static>(
    width: usize,
    kind: BackendKind,
    count: usize,
    max_len: usize,
) {
    let name = format!("crc32c_w{width}_random");
    run_with_waveform_on_failure(
        &name,
        || kind.build(B::default()),
        |sim: &mut dyn Backend| {
            let mut rng = rand::rngs::StdRng::seed_from_u64(width as u64 * 1000 + count as u64);
            let packets = random_packets(&mut rng, count, max_len);
            let tb = Crc32cTb::new(sim, width).unwrap();
            let got = tb.run(sim, &packets, 0.2, &mut rng);
            assert_eq!(got.len(), packets.len(), "one CRC per packet");
            for (i, (p, crc)) in packets.iter().zip(&got).enumerate() {
                assert_eq!(
                    *crc,
                    crc32c(p),
                    "packet {i} of {} bytes at W={width} on {}",
                    p.len(),
                    sim.name()
                );
            }
        },
    );
}

#[test]
fn verilator_random_packets_w8() {
    check_random::<Crc32c<8, 1>>(8, BackendKind::Verilator, 300, 2000);
}
#[test]
fn verilator_random_packets_w32() {
    check_random::<Crc32c<32, 4>>(32, BackendKind::Verilator, 1000, 2000);
}
#[test]
fn verilator_random_packets_w64() {
    check_random::<Crc32c<64, 8>>(64, BackendKind::Verilator, 1000, 2000);
}
#[test]
fn verilator_random_packets_w128() {
    check_random::<Crc32c<128, 16>>(128, BackendKind::Verilator, 300, 2000);
}
#[test]
fn rust_hdl_random_packets_w8() {
    check_random::<Crc32c<8, 1>>(8, BackendKind::RustHdl, 12, 2000);
}
#[test]
fn rust_hdl_random_packets_w32() {
    check_random::<Crc32c<32, 4>>(32, BackendKind::RustHdl, 40, 2000);
}
#[test]
fn rust_hdl_random_packets_w64() {
    check_random::<Crc32c<64, 8>>(64, BackendKind::RustHdl, 60, 2000);
}

/// The iSCSI known answers of §5.2, back to back with no idle cycle, every keep of the last beat
/// (lengths 0..=9 around the vectors), on the 32-bit Cu datapath.
#[test]
fn known_answers_back_to_back_w32() {
    for kind in BackendKind::ALL {
        let mut sim = kind.build(Crc32c::<32, 4>::default()).unwrap();
        let tb = Crc32cTb::new(sim.as_ref(), 32).unwrap();
        let mut packets: Vec<Vec<u8>> = vec![
            vec![0; 32],
            vec![0xff; 32],
            (0..32).collect(),
            (0..32).rev().collect(),
            b"123456789".to_vec(),
            vec![],
        ];
        packets.extend((0..=9).map(|n| (0..n).map(|i| i * 7 + 1).collect()));
        let got = tb.run(
            sim.as_mut(),
            &packets,
            0.0,
            &mut rand::rngs::StdRng::seed_from_u64(1),
        );
        assert_eq!(
            &got[..6],
            &[
                0x8A91_36AA,
                0x62A8_AB43,
                0x46DD_794E,
                0x113F_DB5C,
                0xE306_9283,
                0
            ]
        );
        let want: Vec<u32> = packets.iter().map(|p| crc32c(p)).collect();
        assert_eq!(got, want, "{}", kind.name());
        // Back to back: one beat per cycle, no bubble between packets, plus two drain cycles.
        let beats: u64 = packets
            .iter()
            .map(|p| p.len().div_ceil(4).max(1) as u64)
            .sum();
        assert_eq!(sim.cycles(), beats + 2);
    }
}

/// `crc_valid` pulses for exactly one cycle per packet and the CRC appears the cycle after the
/// last beat (one cycle of latency) and stays until the next beat.
#[test]
fn crc_valid_is_a_one_cycle_pulse_after_last() {
    for kind in BackendKind::ALL {
        let mut sim = kind.build(Crc32c::<32, 4>::default()).unwrap();
        let data = sim.input("data").unwrap();
        let keep = sim.input("keep").unwrap();
        let last = sim.input("last").unwrap();
        let valid = sim.input("valid").unwrap();
        let crc = sim.output("crc").unwrap();
        let crc_valid = sim.output("crc_valid").unwrap();
        assert_eq!(sim.get(crc_valid), 0, "idle after power-up");
        sim.set(data, u128::from(u32::from_be_bytes(*b"1234")));
        sim.set(keep, 0b1111);
        sim.set(last, 0);
        sim.set(valid, 1);
        sim.tick();
        assert_eq!(sim.get(crc_valid), 0);
        sim.set(data, u128::from(u32::from_be_bytes(*b"5678")));
        sim.tick();
        sim.set(data, u128::from(u32::from_be_bytes(*b"9xyz")));
        sim.set(keep, 0b1000);
        sim.set(last, 1);
        sim.tick();
        assert_eq!(sim.get(crc_valid), 1, "{}", kind.name());
        assert_eq!(sim.get(crc) as u32, crc32c(b"123456789"));
        sim.set(valid, 0);
        sim.tick();
        assert_eq!(sim.get(crc_valid), 0, "one-cycle pulse on {}", kind.name());
        // The CRC stays until the next beat counts (MpaTx emits it a few beats later when a
        // marker or back-pressure comes between), and the next packet starts from the init
        // value although the register still holds the last CRC.
        sim.tick();
        sim.tick();
        assert_eq!(
            sim.get(crc) as u32,
            crc32c(b"123456789"),
            "held on {}",
            kind.name()
        );
        sim.set(data, u128::from(u32::from_be_bytes(*b"1234")));
        sim.set(keep, 0b1111);
        sim.set(valid, 1);
        sim.tick();
        assert_eq!(sim.get(crc_valid), 1, "{}", kind.name());
        assert_eq!(
            sim.get(crc) as u32,
            crc32c(b"1234"),
            "fresh start on {}",
            kind.name()
        );
    }
}
