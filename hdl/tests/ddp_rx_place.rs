//! Tests of DDP placement (`hdl/src/ddp/rx_place.rs`) on both simulation back ends, against the
//! byte-level host memory model of `rnic_sim::tb::ddp_rx_place`. Catalog: `rfc5040-rdmap.md`
//! §3 (placement; a completion never overtakes its data), `mpa-peer-connect.md` §6.2 / §6.3
//! (the payload after the 14 / 18 header octets, so payload octet 0 in lane 2).
//!
//! Every run checks each DMA beat (exact octets at exact addresses, nothing of dropped runs,
//! keep contiguous, addresses 4-aligned, write requests contiguous and inside a 4 KiB page) and
//! the completions (run order, connection, good flag, only after the run's data).

use rand::SeedableRng;
use rnic_hdl::config::{CONNECTIONS, DMA_ADDR_BITS};
use rnic_hdl::ddp::rx_place::RxPlace;
use rnic_sim::host_mem::in_window;
use rnic_sim::tb::ddp_rx_place::{
    measure_beats_per_cycle, random_runs, PlaceTraffic, Run, RxPlaceTb,
};
use rnic_sim::testbench::{run_with_waveform_on_failure, Backend, BackendKind};

fn check_random(
    kind: BackendKind,
    name: &str,
    seed: u64,
    count: usize,
    max_len: usize,
    traffic: PlaceTraffic,
) {
    run_with_waveform_on_failure(
        name,
        || kind.build(RxPlace::default()),
        |sim: &mut dyn Backend| {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let tb = RxPlaceTb::new(sim).unwrap();
            let runs = random_runs(&mut rng, count, max_len);
            let rep = tb.run(sim, &runs, &traffic, &mut rng);
            println!(
                "{name}: {count} runs, {} beats in, {} DMA beats in {} requests",
                rep.beats_in, rep.dma_beats, rep.requests
            );
        },
    );
}

#[test]
fn verilator_random_runs_four_connections() {
    for seed in 0..8 {
        check_random(
            BackendKind::Verilator,
            &format!("ddp_rx_place_random_{seed}"),
            seed,
            800,
            300,
            PlaceTraffic::RANDOM,
        );
    }
}

/// Verdicts up to 200 cycles late: the input FIFO fills and `pay_ready` falls.
#[test]
fn verilator_late_verdicts() {
    let traffic = PlaceTraffic {
        verdict_delay: 200,
        idle: 0.0,
        ..PlaceTraffic::RANDOM
    };
    run_with_waveform_on_failure(
        "ddp_rx_place_late",
        || BackendKind::Verilator.build(RxPlace::default()),
        |sim: &mut dyn Backend| {
            let mut rng = rand::rngs::StdRng::seed_from_u64(30);
            let tb = RxPlaceTb::new(sim).unwrap();
            let runs = random_runs(&mut rng, 300, 600);
            let rep = tb.run(sim, &runs, &traffic, &mut rng);
            assert!(rep.input_stalls > 0, "the input FIFO never filled");
        },
    );
}

/// Long runs crossing 4 KiB pages, no back-pressure.
#[test]
fn verilator_long_runs() {
    let traffic = PlaceTraffic {
        switch: 0.05,
        ..PlaceTraffic::FULL_SPEED
    };
    check_random(
        BackendKind::Verilator,
        "ddp_rx_place_long",
        31,
        60,
        9000,
        traffic,
    );
}

#[test]
fn rust_hdl_random_runs_four_connections() {
    check_random(
        BackendKind::RustHdl,
        "ddp_rx_place_random_small",
        100,
        150,
        120,
        PlaceTraffic::RANDOM,
    );
}

/// Every host alignment with every payload length 0 to 9, on both back ends.
#[test]
fn both_back_ends_alignments_and_short_runs() {
    let mut runs = Vec::new();
    let mut addr = in_window(0x4000_0000);
    for lo in 0..4u32 {
        for len in 0..10usize {
            for conn in [CONNECTIONS / 2 - 1, CONNECTIONS - 1] {
                addr = (addr + 64) & !63;
                runs.push(Run {
                    conn,
                    payload: (0..len)
                        .map(|j| (j * 17 + len + lo as usize) as u8)
                        .collect(),
                    good: len % 2 == 0,
                    place: !(len == 7 && conn == CONNECTIONS - 1),
                    addr: addr + lo,
                });
            }
        }
    }
    for kind in BackendKind::ALL {
        run_with_waveform_on_failure(
            "ddp_rx_place_alignments",
            || kind.build(RxPlace::default()),
            |sim: &mut dyn Backend| {
                let mut rng = rand::rngs::StdRng::seed_from_u64(9);
                let tb = RxPlaceTb::new(sim).unwrap();
                tb.run(sim, &runs, &PlaceTraffic::RANDOM, &mut rng);
            },
        );
    }
}

/// Runs whose host words carry out of word address bits 9..0 and 19..10 (4 KiB, 4 MiB and
/// 1 GiB boundaries, every alignment, from the verdict's address and from a page before): the next-address increment is three 10-bit
/// incrementers with carry select, so these carries must reach the upper parts.
#[test]
fn both_back_ends_address_carries() {
    let mut runs = Vec::new();
    // One run per 4 MiB step from each base, so the runs never overlap; the third base
    // reaches the 1 GiB boundary. In a 16 MiB host window (the Cu profile's 24 address bits)
    // the steps are 512 and 256 KiB from 4 and 12 MiB: the 4, 8 and 12 MiB boundaries.
    let bases: &[(u32, u32)] = if DMA_ADDR_BITS < 32 {
        &[(0x0040_0000, 0x0008_0000), (0x00C0_0000, 0x0004_0000)]
    } else {
        &[
            (0x0040_0000, 0x0040_0000),
            (0x1000_1000, 0x0040_0000),
            (0x3F80_0000, 0x0040_0000),
            (0xC000_0000, 0x0040_0000),
        ]
    };
    for (i, &(b, step)) in bases.iter().enumerate() {
        let mut k = 0u32;
        for lo in 0..4u32 {
            for len in [3usize, 9, 40, 4120] {
                // The longest run starts a page before the boundary: the increment's flags
                // must follow the placed words, not only the verdict's address.
                let before = if len > 4096 { 4104 } else { 8 };
                runs.push(Run {
                    conn: (i + lo as usize + len) % CONNECTIONS,
                    payload: (0..len).map(|j| (j * 13 + len + i) as u8).collect(),
                    good: true,
                    place: true,
                    addr: b + k * step - before + lo,
                });
                k += 1;
            }
        }
    }
    for kind in BackendKind::ALL {
        run_with_waveform_on_failure(
            "ddp_rx_place_carries",
            || kind.build(RxPlace::default()),
            |sim: &mut dyn Backend| {
                let mut rng = rand::rngs::StdRng::seed_from_u64(11);
                let tb = RxPlaceTb::new(sim).unwrap();
                tb.run(sim, &runs, &PlaceTraffic::RANDOM, &mut rng);
            },
        );
    }
}

/// Throughput: long runs, one connection and all of them (4, or 2 with `two-qps`) interleaved beat by beat, host addresses
/// 2 mod 4 (payload already in its lanes: no carry) and others (a carry, flushed at every
/// change of connection), verdicts at once or up to 24 cycles after the run's first beat.
#[test]
fn verilator_throughput() {
    let cases = [
        (1usize, 2u32, 0, 0.99),
        (1, 0, 0, 0.99),
        (1, 1, 24, 0.99),
        (CONNECTIONS, 2, 0, 0.99),
        (CONNECTIONS, 0, 0, 0.45),
        (CONNECTIONS, 3, 24, 0.45),
    ];
    for (conns, lo, delay, min) in cases {
        let r =
            measure_beats_per_cycle(BackendKind::Verilator, 1024, conns, lo, delay, 200).unwrap();
        println!(
            "RxPlace, 1024-octet runs, {conns} connection(s), host address {lo} mod 4, verdicts \
             up to {delay} cycles late: {} beats in {} cycles = {:.4} beats/cycle",
            r.beats_in,
            r.last_beat_cycle.unwrap() - r.first_beat_cycle.unwrap() + 1,
            r.beats_per_cycle()
        );
        assert!(
            r.beats_per_cycle() >= min,
            "{conns} connections, address {lo} mod 4"
        );
    }
}
