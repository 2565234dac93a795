//! Tests of the MPA receive block (`hdl/src/mpa/mpa_rx.rs`) on both simulation back ends,
//! checked against the golden model (`rnic_proto::mpa::{Framer, Deframer}`).
//! Catalog: `mpa-peer-connect.md` §5 (FPDU, PAD, CRC, markers), §4.2 (error codes).
//!
//! Every test compares, per connection, the hardware's deliveries (ULPDU bytes and status,
//! from `ulpdu_*` and `err_*`) with the golden deframer's, for random segmentations of the
//! streams (1 to 9000 bytes, tiny segments included), interleaved connections, random input
//! gaps and random output back-pressure.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rnic_hdl::config::{CONNECTIONS, MARKERS};
use rnic_hdl::mpa::mpa_rx::MpaRx;
use rnic_proto::mpa::{Status, MAX_ULPDU};
use rnic_sim::equivalence::lockstep;
use rnic_sim::tb::mpa_rx::{
    frame_stream, golden_deliveries, hw_deliveries, measure_beats_per_cycle, MpaRxTb, RxConnConfig,
    RxOutput, Step, Traffic, Ulpdu,
};
use rnic_sim::tb::mpa_tx::MARKER_CASES;
use rnic_sim::testbench::{run_with_waveform_on_failure, Backend, BackendKind};

type Deliveries = Vec<(Vec<u8>, Status)>;

/// An MPA Reply (§1.3 example C) followed by `extra` bytes: what the firmware reads raw.
fn raw_prefix(rng: &mut impl Rng, extra: usize) -> Vec<u8> {
    let mut v = b"MPA ID Rep Frame".to_vec();
    v.extend_from_slice(&[0x50, 0x02, 0x00, 0x04, 0x80, 0x10, 0x80, 0x10]);
    v.extend((0..extra).map(|_| rng.gen::<u8>()));
    v
}

/// ULPDU sizes: the edge cases first (0 to 7, every PAD case, shuffled; then 509 to 515,
/// 1024 and `max`, shuffled; those up to `max`), then
/// random ones (often tiny), all at most `max`.
fn ulpdu_sizes(rng: &mut impl Rng, max: usize, count: usize) -> Vec<usize> {
    let mut edge: Vec<usize> = (0..8).collect();
    edge.shuffle(rng);
    let mut large = vec![509, 510, 511, 512, 513, 514, 515, 1024, max];
    large.shuffle(rng);
    edge.extend(large);
    edge.retain(|&s| s <= max);
    (0..count)
        .map(|i| match edge.get(i) {
            Some(&s) => s,
            None if rng.gen_bool(0.3) => rng.gen_range(0..=8.min(max)),
            None => rng.gen_range(0..=max),
        })
        .collect()
}

fn random_ulpdus(rng: &mut impl Rng, max: usize, count: usize) -> Vec<Vec<u8>> {
    ulpdu_sizes(rng, max, count)
        .into_iter()
        .map(|n| (0..n).map(|_| rng.gen()).collect())
        .collect()
}

/// One connection's plan: raw Request/Reply bytes, the switch to FPDU mode, FPDUs; then back to
/// raw mode, more raw bytes, and FPDU mode again with a fresh stream (offset 0 again).
/// Returns the plan, the raw bytes expected and the golden deliveries.
fn connection_plan(
    rng: &mut impl Rng,
    cfg: RxConnConfig,
    count: usize,
    rounds: usize,
) -> (Vec<Step>, Vec<u8>, Deliveries) {
    let mut plan = Vec::new();
    let mut raw = Vec::new();
    let mut want = Vec::new();
    for _ in 0..rounds {
        let extra = rng.gen_range(0..40);
        let prefix = raw_prefix(rng, extra);
        raw.extend_from_slice(&prefix);
        let ulpdus = random_ulpdus(rng, usize::from(cfg.max_ulpdu), count);
        let stream = frame_stream(&ulpdus, cfg.markers, cfg.crc);
        want.extend(golden_deliveries(&stream, cfg.deframer()));
        plan.push(Step::Configure(RxConnConfig::RAW));
        plan.push(Step::Bytes(prefix));
        plan.push(Step::Configure(cfg));
        plan.push(Step::Bytes(stream));
    }
    (plan, raw, want)
}

/// Four connections with different settings, `rounds` raw/FPDU rounds each.
fn check_golden_streams(
    kind: BackendKind,
    name: &str,
    seed: u64,
    count: usize,
    rounds: usize,
    traffic: Traffic,
) {
    let configs = [
        RxConnConfig::fpdu(true, true, 1500),
        RxConnConfig::fpdu(false, true, 2048),
        RxConnConfig::fpdu(true, false, 700),
        RxConnConfig::fpdu(false, false, MAX_ULPDU as u16),
    ];
    run_with_waveform_on_failure(
        name,
        || kind.build(MpaRx::default()),
        |sim: &mut dyn Backend| {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let tb = MpaRxTb::new(sim).unwrap();
            let mut plans = Vec::new();
            let mut expect = Vec::new();
            // As many connections as the build has (4, or 2 with `two-qps`).
            for cfg in configs.into_iter().take(CONNECTIONS) {
                // The largest ULPDUs only now and then, to keep the run short.
                let n = if cfg.max_ulpdu > 9000 {
                    count / 4
                } else {
                    count
                };
                let (plan, raw, want) = connection_plan(&mut rng, cfg, n.max(1), rounds);
                plans.push(plan);
                expect.push((raw, want));
            }
            let got = tb.run(sim, &plans, &traffic, &mut rng);
            for (c, (raw, want)) in expect.iter().enumerate() {
                assert_eq!(&got.raw[c], raw, "raw bytes of connection {c}");
                assert!(got.errors[c].is_empty(), "errors on connection {c}");
                let have = hw_deliveries(&got.ulpdus[c], &got.errors[c]);
                assert_eq!(have.len(), want.len(), "ULPDU count of connection {c}");
                for (i, (h, w)) in have.iter().zip(want).enumerate() {
                    assert!(
                        h == w,
                        "connection {c} ULPDU {i}: {} bytes {:?}, want {} bytes {:?}",
                        h.0.len(),
                        h.1,
                        w.0.len(),
                        w.1
                    );
                }
            }
        },
    );
}

#[test]
fn verilator_golden_streams_four_connections() {
    for seed in 0..8 {
        check_golden_streams(
            BackendKind::Verilator,
            &format!("mpa_rx_golden_{seed}"),
            seed,
            60,
            2,
            Traffic::RANDOM,
        );
    }
}

/// Segments of 1 to 4 bytes only, so that the connections interleave at almost every beat and
/// the word FSM swaps contexts all the time.
#[test]
fn verilator_tiny_segments_four_connections() {
    let traffic = Traffic {
        tiny: 1.0,
        ..Traffic::RANDOM
    };
    for seed in 0..2 {
        check_golden_streams(
            BackendKind::Verilator,
            &format!("mpa_rx_tiny_{seed}"),
            50 + seed,
            30,
            1,
            traffic,
        );
    }
}

#[test]
fn rust_hdl_golden_streams_four_connections() {
    check_golden_streams(
        BackendKind::RustHdl,
        "mpa_rx_golden_small",
        100,
        10,
        1,
        Traffic::RANDOM,
    );
}

/// Four connections (two with `two-qps`), each stream corrupted at a random place (a bit flip, or a random byte run),
/// so that connections die at different times while the others go on: each must match the
/// golden model, up to and including its first error, and report at most one error.
#[test]
fn verilator_random_corruption_four_connections() {
    let configs = [
        RxConnConfig::fpdu(true, true, 1500),
        RxConnConfig::fpdu(false, true, 600),
        RxConnConfig::fpdu(true, false, 2048),
        RxConnConfig::fpdu(false, true, 9000),
    ];
    for seed in 0..12u64 {
        run_with_waveform_on_failure(
            &format!("mpa_rx_corruption_{seed}"),
            || BackendKind::Verilator.build(MpaRx::default()),
            |sim: &mut dyn Backend| {
                let mut rng = rand::rngs::StdRng::seed_from_u64(1000 + seed);
                let tb = MpaRxTb::new(sim).unwrap();
                let mut plans = Vec::new();
                let mut want = Vec::new();
                for cfg in configs.into_iter().take(CONNECTIONS) {
                    let ulpdus = random_ulpdus(&mut rng, usize::from(cfg.max_ulpdu), 20);
                    let mut stream = frame_stream(&ulpdus, cfg.markers, cfg.crc);
                    let at = rng.gen_range(0..stream.len());
                    if rng.gen_bool(0.5) {
                        stream[at] ^= 1 << rng.gen_range(0..8);
                    } else {
                        let end = (at + rng.gen_range(1..16)).min(stream.len());
                        for b in &mut stream[at..end] {
                            *b = rng.gen();
                        }
                    }
                    want.push(golden_deliveries(&stream, cfg.deframer()));
                    plans.push(vec![Step::Configure(cfg), Step::Bytes(stream)]);
                }
                let got = tb.run(sim, &plans, &Traffic::RANDOM, &mut rng);
                for (c, w) in want.iter().enumerate() {
                    assert!(
                        got.errors[c].len() <= 1,
                        "connection {c}: {:?}",
                        got.errors[c]
                    );
                    let have = hw_deliveries(&got.ulpdus[c], &got.errors[c]);
                    assert!(
                        &have == w,
                        "connection {c}: hardware {:?}, golden {:?}",
                        summary(&have),
                        summary(w)
                    );
                }
            },
        );
    }
}

/// A small stream of every PAD case, markers inside and between FPDUs (with markers on it
/// passes offsets 0 and 512), followed by clean trailing FPDUs so that a corrupted length still
/// reaches a CRC check or the maximum.
fn flip_stream(markers: bool) -> (Vec<u8>, usize, RxConnConfig) {
    let cfg = RxConnConfig::fpdu(markers, true, 300);
    let sizes: &[usize] = if markers {
        &[0, 1, 2, 3, 5, 13, 250, 180, 7, 40]
    } else {
        &[0, 1, 2, 3, 4, 5, 6, 7, 13]
    };
    let ulpdus: Vec<Vec<u8>> = sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| (0..n).map(|j| (i * 37 + j * 11 + 1) as u8).collect())
        .collect();
    let tested = frame_stream(&ulpdus, markers, true);
    let trailing: Vec<Vec<u8>> = (0..4).map(|i| vec![0xA5 ^ i as u8; 120]).collect();
    let mut all = ulpdus.clone();
    all.extend(trailing);
    let stream = frame_stream(&all, markers, true);
    assert_eq!(&stream[..tested.len()], &tested[..]);
    (stream, tested.len(), cfg)
}

/// Flips bit `bit` of `stream` on connection 0 while connection 1 carries a clean stream;
/// both must match the golden model exactly.
fn check_flip(
    tb: &MpaRxTb,
    sim: &mut dyn Backend,
    rng: &mut impl Rng,
    stream: &[u8],
    cfg: RxConnConfig,
    bit: usize,
    other: &(Vec<u8>, RxConnConfig, Deliveries),
) {
    let mut bad = stream.to_vec();
    bad[bit / 8] ^= 0x80 >> (bit % 8);
    let want = golden_deliveries(&bad, cfg.deframer());
    let plans = vec![
        vec![Step::Configure(cfg), Step::Bytes(bad)],
        vec![Step::Configure(other.1), Step::Bytes(other.0.clone())],
    ];
    let got = tb.run(sim, &plans, &Traffic::RANDOM, rng);
    let have = hw_deliveries(&got.ulpdus[0], &got.errors[0]);
    assert!(
        got.errors[0].len() <= 1,
        "bit {bit}: more than one error reported: {:?}",
        got.errors[0]
    );
    assert!(
        have == want,
        "bit {bit}: hardware {:?}, golden {:?}",
        summary(&have),
        summary(&want)
    );
    let clean = hw_deliveries(&got.ulpdus[1], &got.errors[1]);
    assert!(
        clean == other.2,
        "bit {bit}: the other connection was disturbed"
    );
}

fn summary(d: &Deliveries) -> Vec<(usize, Status)> {
    d.iter().map(|(b, s)| (b.len(), *s)).collect()
}

/// Every single-bit error inside the FPDUs of a small stream (CRC on) is detected with the
/// golden deframer's code and nothing after it is delivered on that connection, while another
/// connection keeps flowing correctly. Exhaustive, with and without markers.
#[test]
fn verilator_every_single_bit_error_detected() {
    for &markers in MARKER_CASES {
        let name = format!("mpa_rx_bit_flips_markers_{markers}");
        run_with_waveform_on_failure(
            &name,
            || BackendKind::Verilator.build(MpaRx::default()),
            |sim: &mut dyn Backend| {
                let mut rng = rand::rngs::StdRng::seed_from_u64(u64::from(markers) + 17);
                let tb = MpaRxTb::new(sim).unwrap();
                let (stream, tested, cfg) = flip_stream(markers);
                let other_cfg = RxConnConfig::fpdu(!markers, true, 2000);
                let other_stream =
                    frame_stream(&random_ulpdus(&mut rng, 600, 6), other_cfg.markers, true);
                let other_want = golden_deliveries(&other_stream, other_cfg.deframer());
                let other = (other_stream, other_cfg, other_want);
                let mut undetected = Vec::new();
                for bit in 0..tested * 8 {
                    check_flip(&tb, sim, &mut rng, &stream, cfg, bit, &other);
                    let mut bad = stream.clone();
                    bad[bit / 8] ^= 0x80 >> (bit % 8);
                    if golden_deliveries(&bad, cfg.deframer())
                        .iter()
                        .all(|(_, s)| *s == Status::Good)
                    {
                        undetected.push(bit);
                    }
                }
                // No flip escapes the golden deframer, with or without markers: every marker is
                // in a CRC span, so a flip in the bits the marker check ignores (RESERVED and
                // the two FPDUPTR LSBs) is still a CRC error, also in the marker at offset 0,
                // which begins the first FPDU (bits numbered from the first byte's MSB). The
                // flip stream's other marker (offset 512) sits inside an FPDU.
                assert_eq!(undetected, Vec::<usize>::new(), "undetected flips");
                if markers {
                    // The offset-0 marker's ignored bits: detected, and as a bad CRC of the
                    // first FPDU (the hardware matched the golden deliveries above).
                    for bit in (0..16).chain([30, 31]) {
                        let mut bad = stream.clone();
                        bad[bit / 8] ^= 0x80 >> (bit % 8);
                        let want = golden_deliveries(&bad, cfg.deframer());
                        assert_eq!(want[0].1, Status::BadCrc, "bit {bit}");
                    }
                }
            },
        );
    }
}

#[test]
fn rust_hdl_single_bit_errors_sampled() {
    run_with_waveform_on_failure(
        "mpa_rx_bit_flips_sampled",
        || BackendKind::RustHdl.build(MpaRx::default()),
        |sim: &mut dyn Backend| {
            let mut rng = rand::rngs::StdRng::seed_from_u64(5);
            let tb = MpaRxTb::new(sim).unwrap();
            let (stream, tested, cfg) = flip_stream(false);
            let other_cfg = RxConnConfig::fpdu(true, true, 2000);
            let other_stream =
                frame_stream(&random_ulpdus(&mut rng, 100, 3), other_cfg.markers, true);
            let other_want = golden_deliveries(&other_stream, other_cfg.deframer());
            let other = (other_stream, other_cfg, other_want);
            for _ in 0..6 {
                let bit = rng.gen_range(0..tested * 8);
                check_flip(&tb, sim, &mut rng, &stream, cfg, bit, &other);
            }
        },
    );
}

/// A corrupted leading marker (FPDUPTR 0, right before a header: at offset 0 and at 512, where
/// the second FPDU starts on the grid) begins the FPDU that follows and is in its CRC span: with
/// CRC on any flip in it is a CRC error (0x2) of that FPDU, with CRC off a wrong FPDUPTR is a
/// marker error (0x3) and a flip in the ignored bits changes nothing. Hardware and golden
/// deframer agree exactly, another connection running beside.
#[cfg(not(feature = "no-markers"))]
fn check_leading_marker(kind: BackendKind) {
    run_with_waveform_on_failure(
        "mpa_rx_leading_marker",
        || kind.build(MpaRx::default()),
        |sim: &mut dyn Backend| {
            let mut rng = rand::rngs::StdRng::seed_from_u64(23);
            let tb = MpaRxTb::new(sim).unwrap();
            // FPDU 0: 2 + 502 + 4 = 508 octets from offset 4, so FPDU 1 starts at 512.
            let ulpdus: Vec<Vec<u8>> = [502usize, 100, 30]
                .iter()
                .enumerate()
                .map(|(i, &n)| (0..n).map(|j| (i * 29 + j * 7 + 3) as u8).collect())
                .collect();
            let other_cfg = RxConnConfig::fpdu(true, true, 600);
            let other = frame_stream(&random_ulpdus(&mut rng, 600, 3), true, true);
            let other_want = golden_deliveries(&other, other_cfg.deframer());
            for crc in [true, false] {
                let cfg = RxConnConfig::fpdu(true, crc, 600);
                let stream = frame_stream(&ulpdus, true, crc);
                assert_eq!(&stream[512..516], &[0, 0, 0, 0], "leading marker at 512");
                // (marker offset, octet in it, bit mask, FPDU index, ignored bit)
                for (at, octet, mask, fpdu, ignored) in [
                    (0, 0, 0x80, 0, true),
                    (0, 3, 0x01, 0, true),
                    (0, 3, 0x04, 0, false),
                    (0, 2, 0x10, 0, false),
                    (512, 1, 0x02, 1, true),
                    (512, 3, 0x08, 1, false),
                ] {
                    let mut bad = stream.clone();
                    bad[at + octet] ^= mask;
                    let want = golden_deliveries(&bad, cfg.deframer());
                    let expect = match (crc, ignored) {
                        (true, _) => Status::BadCrc,
                        (false, false) => Status::BadMarker,
                        (false, true) => Status::Good,
                    };
                    assert_eq!(
                        want.len(),
                        if expect == Status::Good { 3 } else { fpdu + 1 }
                    );
                    assert_eq!(
                        want[fpdu].1,
                        expect,
                        "golden, crc {crc}, octet {}",
                        at + octet
                    );
                    assert!(want[..fpdu].iter().all(|(_, s)| *s == Status::Good));
                    let plans = vec![
                        vec![Step::Configure(cfg), Step::Bytes(bad)],
                        vec![Step::Configure(other_cfg), Step::Bytes(other.clone())],
                    ];
                    let got = tb.run(sim, &plans, &Traffic::RANDOM, &mut rng);
                    assert_eq!(
                        hw_deliveries(&got.ulpdus[0], &got.errors[0]),
                        want,
                        "crc {crc}, octet {} mask {mask:#x}",
                        at + octet
                    );
                    let code: &[u8] = match expect {
                        Status::BadCrc => &[0x2],
                        Status::BadMarker => &[0x3],
                        _ => &[],
                    };
                    assert_eq!(got.errors[0], code);
                    assert_eq!(hw_deliveries(&got.ulpdus[1], &got.errors[1]), other_want);
                }
            }
        },
    );
}

#[cfg(not(feature = "no-markers"))]
#[test]
fn verilator_leading_marker_in_crc_span() {
    check_leading_marker(BackendKind::Verilator);
}

#[cfg(not(feature = "no-markers"))]
#[test]
fn rust_hdl_leading_marker_in_crc_span() {
    check_leading_marker(BackendKind::RustHdl);
}

/// ULPDU_Length over the connection's maximum: code 0x5 at the header, nothing after it on
/// that connection, the other connection unaffected; a configuration write revives it.
fn check_too_long(kind: BackendKind) {
    run_with_waveform_on_failure(
        "mpa_rx_too_long",
        || kind.build(MpaRx::default()),
        |sim: &mut dyn Backend| {
            let mut rng = rand::rngs::StdRng::seed_from_u64(9);
            let tb = MpaRxTb::new(sim).unwrap();
            let cfg = RxConnConfig::fpdu(true, true, 100);
            let mut ulpdus = random_ulpdus(&mut rng, 100, 5);
            ulpdus.push(vec![7; 101]);
            ulpdus.extend(random_ulpdus(&mut rng, 100, 3));
            let stream = frame_stream(&ulpdus, cfg.markers, cfg.crc);
            let want = golden_deliveries(&stream, cfg.deframer());
            assert_eq!(want.last().map(|d| d.1), Some(Status::UlpduTooLong));
            assert_eq!(want.len(), 6);
            let other_cfg = RxConnConfig::fpdu(false, true, 300);
            let other_stream = frame_stream(&random_ulpdus(&mut rng, 300, 8), false, true);
            let other_want = golden_deliveries(&other_stream, other_cfg.deframer());
            let revived = frame_stream(&random_ulpdus(&mut rng, 100, 4), cfg.markers, true);
            let revived_want = golden_deliveries(&revived, cfg.deframer());
            let plans = vec![
                vec![Step::Configure(cfg), Step::Bytes(stream)],
                vec![Step::Configure(other_cfg), Step::Bytes(other_stream)],
            ];
            let got = tb.run(sim, &plans, &Traffic::RANDOM, &mut rng);
            assert_eq!(got.errors[0], vec![0x5]);
            assert_eq!(hw_deliveries(&got.ulpdus[0], &got.errors[0]), want);
            assert!(got.errors[1].is_empty());
            assert_eq!(hw_deliveries(&got.ulpdus[1], &got.errors[1]), other_want);
            // Rewriting the configuration clears the error: a fresh stream flows again.
            let plans = vec![vec![Step::Configure(cfg), Step::Bytes(revived)]];
            let got = tb.run(sim, &plans, &Traffic::RANDOM, &mut rng);
            assert!(got.errors[0].is_empty());
            assert_eq!(hw_deliveries(&got.ulpdus[0], &got.errors[0]), revived_want);
        },
    );
}

#[test]
fn verilator_ulpdu_length_over_max() {
    check_too_long(BackendKind::Verilator);
}

#[test]
fn rust_hdl_ulpdu_length_over_max() {
    check_too_long(BackendKind::RustHdl);
}

/// Cut-through: a ULPDU's beats leave before its FPDU's CRC field has arrived; only the last
/// beat waits for the CRC field, which here comes in a later segment after other traffic.
fn check_cut_through(kind: BackendKind) {
    run_with_waveform_on_failure(
        "mpa_rx_cut_through",
        || kind.build(MpaRx::default()),
        |sim: &mut dyn Backend| {
            let mut rng = rand::rngs::StdRng::seed_from_u64(11);
            let tb = MpaRxTb::new(sim).unwrap();
            for (markers, len) in [(false, 1026), (true, 1021)] {
                if markers && !MARKERS {
                    continue;
                }
                let cfg = RxConnConfig::fpdu(markers, true, 2048);
                let ulpdu: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                let stream = frame_stream(std::slice::from_ref(&ulpdu), markers, true);
                let split = stream.len() - 1;
                let other_cfg = RxConnConfig::fpdu(false, false, 600);
                let other = frame_stream(&random_ulpdus(&mut rng, 600, 4), false, false);
                let other_want = golden_deliveries(&other, other_cfg.deframer());
                let mut out = RxOutput::new();
                let plans = vec![
                    vec![Step::Configure(cfg), Step::Bytes(stream[..split].to_vec())],
                    vec![Step::Configure(other_cfg), Step::Bytes(other)],
                ];
                tb.run_into(sim, &plans, &Traffic::RANDOM, &mut rng, &mut out);
                // Every beat but the last (len mod 4 bytes, or 4) has left.
                let held = match len % 4 {
                    0 => 4,
                    r => r,
                };
                assert!(out.ulpdus[0].is_empty());
                assert_eq!(out.open[0].as_deref(), Some(&ulpdu[..len - held]));
                assert_eq!(hw_deliveries(&out.ulpdus[1], &out.errors[1]), other_want);
                let plans = vec![vec![Step::Bytes(stream[split..].to_vec())]];
                tb.run_into(sim, &plans, &Traffic::RANDOM, &mut rng, &mut out);
                assert_eq!(out.open[0], None);
                assert_eq!(
                    out.ulpdus[0],
                    vec![Ulpdu {
                        bytes: ulpdu.clone(),
                        good: true
                    }]
                );
            }
        },
    );
}

#[test]
fn verilator_cut_through() {
    check_cut_through(BackendKind::Verilator);
}

#[test]
fn rust_hdl_cut_through() {
    check_cut_through(BackendKind::RustHdl);
}

/// One connection, 9000-byte segments, input always valid, outputs always ready: at least 0.99
/// LLP beats per cycle for 1 KiB ULPDUs (and for 64-byte and maximum ULPDUs).
#[test]
fn verilator_throughput_one_connection() {
    for (len, bytes) in [(64, 64 * 1024), (1024, 256 * 1024), (65535, 262_140)] {
        let t = measure_beats_per_cycle(BackendKind::Verilator, len, bytes).unwrap();
        println!(
            "{len}-byte ULPDUs: {} beats in {} cycles = {:.4} beats/cycle",
            t.beats,
            t.cycles,
            t.beats_per_cycle()
        );
        assert!(
            t.beats_per_cycle() >= 0.99,
            "{len}-byte ULPDUs: {} beats in {} cycles",
            t.beats,
            t.cycles
        );
    }
}

/// The same random stimulus on both back ends: every output equal every cycle.
#[test]
fn back_ends_agree_cycle_by_cycle() {
    let mut a = BackendKind::RustHdl.build(MpaRx::default()).unwrap();
    let mut b = BackendKind::Verilator.build(MpaRx::default()).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let names = a.input_names();
    let mut values: Vec<u128> = vec![0; names.len()];
    let r = lockstep(a.as_mut(), b.as_mut(), 4000, |cycle, i| {
        if i == 0 {
            for (j, name) in names.iter().enumerate() {
                values[j] = match *name {
                    // Mostly FPDU mode with markers, occasionally reconfigured.
                    "cfg_write" => u128::from(cycle < 4 || rng.gen_bool(0.01)),
                    "cfg_fpdu_mode" => u128::from(rng.gen_bool(0.9)),
                    "cfg_max_ulpdu" => rng.gen_range(0..64),
                    "ulpdu_ready" | "raw_ready" => u128::from(rng.gen_bool(0.8)),
                    "llp_keep" => [0b1111, 0b1110, 0b1100, 0b1000][rng.gen_range(0..4)],
                    // Small lengths in the header position so FPDUs complete now and then.
                    "llp_data" => rng.gen::<u128>() & 0x003F_FFFF,
                    _ => rng.gen(),
                };
            }
        }
        values[i]
    });
    assert_eq!(r, Ok(()));
}

/// Built without markers (`no-markers`), the block ignores the configuration's markers bit: a
/// connection configured with markers takes a stream without markers (FPDUs across the
/// 512-octet grid) exactly as the golden deframer without markers does.
#[cfg(feature = "no-markers")]
#[test]
fn markers_bit_is_ignored_without_markers() {
    for kind in BackendKind::ALL {
        run_with_waveform_on_failure(
            "mpa_rx_no_markers",
            || kind.build(MpaRx::default()),
            |sim: &mut dyn Backend| {
                let mut rng = rand::rngs::StdRng::seed_from_u64(61);
                let tb = MpaRxTb::new(sim).unwrap();
                let asks = RxConnConfig {
                    fpdu_mode: true,
                    markers: true,
                    crc: true,
                    max_ulpdu: 2048,
                };
                let ulpdus = random_ulpdus(&mut rng, 2048, 12);
                let stream = frame_stream(&ulpdus, false, true);
                let want =
                    golden_deliveries(&stream, RxConnConfig::fpdu(false, true, 2048).deframer());
                assert_eq!(want.len(), ulpdus.len());
                assert!(want.iter().all(|(_, s)| *s == Status::Good));
                let plans = vec![vec![Step::Configure(asks), Step::Bytes(stream)]];
                let got = tb.run(sim, &plans, &Traffic::RANDOM, &mut rng);
                assert!(got.errors[0].is_empty(), "{:?}", got.errors[0]);
                assert_eq!(hw_deliveries(&got.ulpdus[0], &got.errors[0]), want);
            },
        );
    }
}
