//! Tests of the DDP receive parser (`hdl/src/ddp/rx_parse.rs`) on both simulation back ends,
//! against the independent model of `rnic_sim::tb::ddp_rx_parse` (written from the contract
//! in `rnic_hdl::ddp`). Catalog: `mpa-peer-connect.md` §6.1 (T flag, opcode), §6.2 / §6.3
//! (14- and 18-octet headers), `rfc5040-rdmap.md` §1.3 (opcodes with payload).
//!
//! Every run checks the job sequence, every payload beat, the payload octets of every run,
//! header words read through both ports (zero past a segment's end), that a job shows no later
//! than its run's first beat, and that a first beat never passes a busy slot.

use rand::SeedableRng;
use rnic_hdl::config::CONNECTIONS;
use rnic_hdl::ddp::rx_parse::DdpRxParse;
use rnic_sim::tb::ddp_rx_parse::{
    measure_beats_per_cycle, random_segments, DdpRxParseTb, JobClass, ParseTraffic, Segment,
};
use rnic_sim::testbench::{run_with_waveform_on_failure, Backend, BackendKind};

fn check_random(kind: BackendKind, name: &str, seed: u64, count: usize, traffic: ParseTraffic) {
    run_with_waveform_on_failure(
        name,
        || kind.build(DdpRxParse::default()),
        |sim: &mut dyn Backend| {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let tb = DdpRxParseTb::new(sim).unwrap();
            let segs = random_segments(&mut rng, count);
            let rep = tb.run(sim, &segs, &traffic, &mut rng);
            assert_eq!(rep.jobs, count);
            assert!(
                rep.busy_waits > 0,
                "no first beat ever waited on a busy slot"
            );
            println!(
                "{name}: {} segments, {} beats in, {} payload beats, {} header reads, {} cycles \
                 of a first beat waiting on a busy slot",
                count, rep.beats_in, rep.pay_beats, rep.header_reads, rep.busy_waits
            );
        },
    );
}

/// The class rules of the contract's "job beat", on the catalog's control words
/// (`rfc5040-rdmap.md` §1.2 table).
#[test]
fn job_classes_of_the_catalog_control_words() {
    let class = |w: u16| JobClass::of(&w.to_be_bytes());
    assert_eq!(class(0xC140), JobClass::Tagged); // RDMA Write
    assert_eq!(class(0x8142), JobClass::Tagged); // RDMA Read Response
    assert_eq!(class(0x4141), JobClass::AtEnd); // RDMA Read Request
    for w in [0x4143, 0x0144, 0x4145, 0x4146] {
        assert_eq!(class(w), JobClass::Untagged); // Send variants
    }
    assert_eq!(class(0x4147), JobClass::AtEnd); // Terminate
    assert_eq!(class(0xC143), JobClass::AtEnd); // Send opcode with T = 1
    assert_eq!(class(0x4140), JobClass::AtEnd); // Write opcode with T = 0
}

#[test]
fn verilator_random_segments_four_connections() {
    for seed in 0..6 {
        check_random(
            BackendKind::Verilator,
            &format!("ddp_rx_parse_random_{seed}"),
            seed,
            600,
            ParseTraffic::RANDOM,
        );
    }
}

/// Slots freed late: the input waits on busy slots often.
#[test]
fn verilator_slow_free() {
    let traffic = ParseTraffic {
        free_delay: 200,
        idle: 0.0,
        ..ParseTraffic::RANDOM
    };
    check_random(
        BackendKind::Verilator,
        "ddp_rx_parse_slow_free",
        40,
        300,
        traffic,
    );
}

/// Outputs never stalled, input always valid: beat by beat with the reads and frees as fast as
/// the tb goes.
#[test]
fn verilator_no_back_pressure() {
    let traffic = ParseTraffic {
        idle: 0.0,
        job_stall: 0.0,
        pay_stall: 0.0,
        read_idle: 0.0,
        free_delay: 0,
        ..ParseTraffic::RANDOM
    };
    check_random(
        BackendKind::Verilator,
        "ddp_rx_parse_full",
        41,
        400,
        traffic,
    );
}

#[test]
fn rust_hdl_random_segments_four_connections() {
    check_random(
        BackendKind::RustHdl,
        "ddp_rx_parse_random_small",
        100,
        120,
        ParseTraffic::RANDOM,
    );
}

/// One segment of each edge length with each class, one connection, on both back ends.
#[test]
fn both_back_ends_edge_lengths() {
    let mut segs = Vec::new();
    for len in [
        0usize, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 46, 70, 130, 131,
    ] {
        for ctl in [0xC140u16, 0x4143, 0x4141, 0x4147] {
            let mut bytes: Vec<u8> = (0..len).map(|i| (i * 13 + len) as u8).collect();
            for (i, b) in ctl.to_be_bytes().iter().enumerate().take(len) {
                bytes[i] = *b;
            }
            segs.push(Segment {
                conn: 2 % CONNECTIONS,
                bytes,
                good: len % 3 != 0,
            });
        }
    }
    for kind in BackendKind::ALL {
        run_with_waveform_on_failure(
            "ddp_rx_parse_edges",
            || kind.build(DdpRxParse::default()),
            |sim: &mut dyn Backend| {
                let mut rng = rand::rngs::StdRng::seed_from_u64(5);
                let tb = DdpRxParseTb::new(sim).unwrap();
                let rep = tb.run(sim, &segs, &ParseTraffic::RANDOM, &mut rng);
                assert_eq!(rep.jobs, segs.len());
            },
        );
    }
}

/// Throughput: one ULPDU beat per cycle for long segments, one connection and all of them
/// (four, two in the Cu profile) interleaved beat by beat.
#[test]
fn verilator_throughput() {
    for (len, conns) in [
        (1024usize, 1usize),
        (1024, CONNECTIONS),
        (64, 1),
        (64, CONNECTIONS),
    ] {
        let r = measure_beats_per_cycle(BackendKind::Verilator, len, conns, 400).unwrap();
        println!(
            "DdpRxParse, {len}-octet segments, {conns} connection(s): {} beats in {} cycles = \
             {:.4} beats/cycle",
            r.beats_in,
            r.last_beat_cycle.unwrap() - r.first_beat_cycle.unwrap() + 1,
            r.beats_per_cycle()
        );
        assert!(
            r.beats_per_cycle() >= 0.99,
            "{len} octets, {conns} connections"
        );
    }
}
