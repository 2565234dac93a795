//! Tests of the MPA transmit block (`hdl/src/mpa/mpa_tx.rs`) on both simulation back ends,
//! checked byte for byte against the golden model (`rnic_proto::mpa::Framer`).
//! Catalog: `mpa-peer-connect.md` §5.1 (FPDU, PAD), §5.2 (CRC), §5.3 (markers), §7 (vectors).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_hdl::config::{CONNECTIONS, DATA_WIDTH};
use rnic_hdl::mpa::mpa_tx::MpaTx;
use rnic_proto::mpa::{Framer, MAX_ULPDU};
use rnic_sim::equivalence::lockstep;
use rnic_sim::stream::packet_beats;
use rnic_sim::tb::mpa_tx::{
    golden, max_ulpdu_with_markers, measure_throughput, measure_throughput_table, ConnConfig,
    MpaTxTb, Step, TrafficOptions, TxRun, MARKER_CASES,
};
use rnic_sim::testbench::{run_with_waveform_on_failure, Backend, BackendKind, InputId};

const SPECIAL_SIZES: [usize; 16] = [
    0, 1, 2, 3, 4, 5, 509, 510, 511, 512, 513, 514, 515, 1024, 1448, 4096,
];

fn build(kind: BackendKind) -> anyhow::Result<Box<dyn Backend>> {
    kind.build(MpaTx::default())
}

fn cfg(conn: usize, markers: bool, crc: bool) -> Step {
    Step::Config(ConnConfig {
        conn,
        fpdu_mode: true,
        markers,
        crc,
    })
}

fn ulpdus(list: Vec<(usize, Vec<u8>)>) -> Step {
    Step::Traffic {
        ulpdus: list,
        raws: Vec::new(),
    }
}

fn bytes(rng: &mut impl Rng, len: usize) -> Vec<u8> {
    (0..len).map(|_| rng.gen()).collect()
}

/// The block's output equals the golden model's: every LLP packet of every connection, and
/// the connections of the refused packets.
fn assert_golden(run: &TxRun, script: &[Step], what: &str) {
    let (want, want_errors) = golden(script);
    for conn in 0..CONNECTIONS {
        let (got, want) = (&run.packets[conn], &want[conn]);
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            if g != w {
                let at = g.iter().zip(w).position(|(a, b)| a != b);
                panic!(
                    "{what}: connection {conn} packet {i}: {} octets, want {}; first difference \
                     at octet {at:?}\n got {:02x?}\nwant {:02x?}",
                    g.len(),
                    w.len(),
                    &g[..g.len().min(64)],
                    &w[..w.len().min(64)]
                );
            }
        }
        assert_eq!(
            got.len(),
            want.len(),
            "{what}: connection {conn}: LLP packet count"
        );
    }
    for (conn, packets) in want.iter().enumerate() {
        assert_eq!(
            run.bytes(conn),
            packets.concat(),
            "{what}: connection {conn}: byte stream"
        );
    }
    let mut errors = run.errors.clone();
    errors.sort_unstable();
    assert_eq!(errors, want_errors, "{what}: refused packets (err_conn)");
}

/// A random script: raw packets on every connection, the switch to FPDU mode with every
/// combination of markers and CRC, ULPDUs of random and boundary sizes interleaved over the
/// connections, a connection still in raw mode while the others send FPDUs, refused packets
/// both ways, a re-configuration mid-stream, and (if `with_max`) the largest ULPDUs once.
fn random_script(rng: &mut impl Rng, count: usize, max_len: usize, with_max: bool) -> Vec<Step> {
    let size = |rng: &mut StdRng| match rng.gen_range(0..10) {
        0..=2 => SPECIAL_SIZES[rng.gen_range(0..SPECIAL_SIZES.len())],
        3 => rng.gen_range(0..=8),
        _ => rng.gen_range(0..=max_len),
    };
    let mut r = StdRng::seed_from_u64(rng.gen());
    let raw_packet = |r: &mut StdRng, conn: usize| {
        let len = match r.gen_range(0..8) {
            0 => 0,
            _ => r.gen_range(1..=300),
        };
        (conn, bytes(r, len))
    };
    let mut script = Vec::new();
    // MPA Request/Reply bytes in raw mode, before the switch.
    script.push(Step::Traffic {
        ulpdus: Vec::new(),
        raws: (0..3 * CONNECTIONS)
            .map(|i| raw_packet(&mut r, i % CONNECTIONS))
            .collect(),
    });
    // Connections 0..3 switch with every marker/CRC combination; the last one stays raw.
    let fpdu_conns = CONNECTIONS - 1;
    for conn in 0..fpdu_conns {
        script.push(cfg(conn, conn & 1 == 0, conn & 2 == 0));
    }
    let mut list: Vec<(usize, Vec<u8>)> = (0..count / 2)
        .map(|_| {
            let conn = r.gen_range(0..fpdu_conns);
            let len = size(&mut r);
            (conn, bytes(&mut r, len))
        })
        .collect();
    // Firmware bugs: a ULPDU for the raw connection, raw bytes for an FPDU connection.
    list.insert(list.len() / 2, (fpdu_conns, bytes(&mut r, 37)));
    script.push(Step::Traffic {
        ulpdus: list,
        raws: vec![
            raw_packet(&mut r, fpdu_conns),
            (0, bytes(&mut r, 41)),
            raw_packet(&mut r, fpdu_conns),
        ],
    });
    script.push(Step::Config(ConnConfig {
        conn: fpdu_conns,
        fpdu_mode: true,
        markers: r.gen(),
        crc: r.gen(),
    }));
    // Re-configuration mid-stream: the offset restarts at 0, markers toggled.
    script.push(cfg(0, false, true));
    script.push(cfg(1, true, true));
    let mut list: Vec<(usize, Vec<u8>)> = (0..count - count / 2)
        .map(|_| {
            let conn = r.gen_range(0..CONNECTIONS);
            let len = size(&mut r);
            (conn, bytes(&mut r, len))
        })
        .collect();
    if with_max {
        // Connection 0 has no markers now, connection 1 has.
        list.insert(list.len() / 3, (0, bytes(&mut r, MAX_ULPDU)));
        list.insert(
            2 * list.len() / 3,
            (1, bytes(&mut r, max_ulpdu_with_markers())),
        );
    }
    script.push(ulpdus(list));
    script
}

fn check_random(kind: BackendKind, seed: u64, count: usize, max_len: usize, with_max: bool) {
    let name = format!("mpa_tx_random_{seed}");
    run_with_waveform_on_failure(
        &name,
        || build(kind),
        |sim: &mut dyn Backend| {
            let mut rng = StdRng::seed_from_u64(seed);
            let script = random_script(&mut rng, count, max_len, with_max);
            let tb = MpaTxTb::new(sim).unwrap();
            let opts = TrafficOptions {
                backpressure: rng.gen_range(0.0..0.5),
                gaps: rng.gen_range(0.0..0.3),
            };
            let run = tb.run(sim, &script, &opts, &mut rng);
            assert_golden(&run, &script, &format!("seed {seed} on {}", sim.name()));
        },
    );
}

#[test]
fn verilator_random_traffic() {
    for seed in 1..=6 {
        check_random(BackendKind::Verilator, seed, 400, 2100, seed == 1);
    }
}

#[test]
fn rust_hdl_random_traffic() {
    check_random(BackendKind::RustHdl, 100, 120, 1500, false);
}

#[test]
fn rust_hdl_largest_ulpdus() {
    check_random(BackendKind::RustHdl, 101, 4, 64, true);
}

/// The golden vectors V1–V6 of §7 (no markers, CRC on), framed by the hardware: the output is
/// the catalog's octets, CRC included, and the `Framer`'s.
#[test]
fn golden_vectors_v1_to_v6() {
    let hex = |s: &str| -> Vec<u8> {
        s.split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).unwrap())
            .collect()
    };
    let v5 = |etype: &str, code: &str, crc: &str| {
        hex(&format!(
            "00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 {etype} {code} 00 00 {crc}"
        ))
    };
    let fpdus = vec![
        hex("00 00 00 00 c7 4b 67 48"),
        hex("00 0e c1 40 00 00 00 01 00 00 00 00 00 00 00 00 eb d3 4c 5f"),
        hex(
            "00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00 00 00 00 01 00 00 00 00 \
             00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00 27 db d7 e7",
        ),
        hex("00 0e c1 42 00 00 00 01 00 00 00 00 00 00 00 00 21 a3 e8 3e"),
        v5("23", "05", "2f 09 f7 93"),
        v5("23", "06", "5c c9 d9 79"),
        v5("23", "07", "22 5b 98 dc"),
        v5("20", "05", "16 80 d5 f1"),
        v5("20", "06", "65 40 fb 1b"),
        v5("20", "07", "1b d2 ba be"),
    ];
    let list: Vec<(usize, Vec<u8>)> = fpdus
        .iter()
        .map(|f| {
            let len = usize::from(u16::from_be_bytes([f[0], f[1]]));
            (0, f[2..2 + len].to_vec())
        })
        .collect();
    let script = vec![cfg(0, false, true), ulpdus(list)];
    for kind in BackendKind::ALL {
        run_with_waveform_on_failure(
            "mpa_tx_golden_vectors",
            || build(kind),
            |sim: &mut dyn Backend| {
                let tb = MpaTxTb::new(sim).unwrap();
                let mut rng = StdRng::seed_from_u64(7);
                let opts = TrafficOptions {
                    backpressure: 0.3,
                    gaps: 0.2,
                };
                let run = tb.run(sim, &script, &opts, &mut rng);
                assert_eq!(run.packets[0], fpdus, "§7 vectors on {}", sim.name());
                assert_golden(&run, &script, "§7 vectors");
            },
        );
    }
}

/// §5.3 example: the first FPDU with ULPDU_Length 600 and markers is preceded by the marker
/// `00 00 00 00`, carries the marker `00 00 01 fc` at stream offset 512, and is 616 octets
/// with its leading marker, which its CRC covers (the CRC at 612 is over octets 0..611).
#[cfg(not(feature = "no-markers"))]
#[test]
fn marker_example_5_3() {
    let ulpdu: Vec<u8> = (0..600).map(|i| (i * 3 + 1) as u8).collect();
    let script = vec![cfg(2, true, true), ulpdus(vec![(2, ulpdu)])];
    for kind in BackendKind::ALL {
        run_with_waveform_on_failure(
            "mpa_tx_marker_example",
            || build(kind),
            |sim: &mut dyn Backend| {
                let tb = MpaTxTb::new(sim).unwrap();
                let mut rng = StdRng::seed_from_u64(8);
                let run = tb.run(sim, &script, &TrafficOptions::FULL_SPEED, &mut rng);
                let p = &run.packets[2][0];
                assert_eq!(p.len(), 616);
                assert_eq!(&p[..6], &[0, 0, 0, 0, 0x02, 0x58]);
                assert_eq!(&p[512..516], &[0, 0, 0x01, 0xfc]);
                assert_eq!(
                    &p[612..],
                    &rnic_proto::crc32c::to_wire(rnic_proto::crc32c::crc32c(&p[..612]))
                );
                assert_golden(&run, &script, "§5.3 example");
            },
        );
    }
}

/// Full speed (`llp_ready` always high, input always valid): the block moves one LLP beat every
/// cycle, so the cycle count equals the beats the protocol needs (FPDU words, markers
/// included, plus raw beats): no bubble at packet boundaries, on connection switches, at
/// markers, or between raw packets and FPDUs.
#[test]
fn full_speed_has_no_bubbles() {
    // FPDUs on every connection but the last (3 of 4, or 1 of 2 with `two-qps`), raw packets
    // on the last.
    let fpdu_conns = CONNECTIONS - 1;
    let mut rng = StdRng::seed_from_u64(9);
    let mut list = Vec::new();
    for i in 0..120 {
        let len = SPECIAL_SIZES
            .get(i)
            .copied()
            .unwrap_or_else(|| rng.gen_range(0..1600));
        list.push((i % fpdu_conns, bytes(&mut rng, len)));
    }
    let raw_conn = CONNECTIONS - 1;
    let raws: Vec<(usize, Vec<u8>)> = (0..10)
        .map(|i| (raw_conn, bytes(&mut rng, 1 + i * 13)))
        .collect();
    let mut script: Vec<Step> = [cfg(0, true, true), cfg(1, false, true), cfg(2, true, false)]
        .into_iter()
        .take(fpdu_conns)
        .collect();
    script.push(Step::Traffic { ulpdus: list, raws });
    let (want, _) = golden(&script);
    let lanes = DATA_WIDTH / 8;
    let want_beats: usize = want
        .iter()
        .flatten()
        .map(|p| packet_beats(p, DATA_WIDTH).len())
        .sum();
    for kind in BackendKind::ALL {
        run_with_waveform_on_failure(
            "mpa_tx_full_speed",
            || build(kind),
            |sim: &mut dyn Backend| {
                let tb = MpaTxTb::new(sim).unwrap();
                let mut rng = StdRng::seed_from_u64(10);
                let run = tb.run(sim, &script, &TrafficOptions::FULL_SPEED, &mut rng);
                assert_golden(&run, &script, "full speed");
                assert_eq!(run.llp_beats as usize, want_beats);
                // Every FPDU word is a full beat.
                let fpdu_octets: usize = want[..fpdu_conns].iter().flatten().map(Vec::len).sum();
                assert_eq!(fpdu_octets % lanes, 0);
                assert_eq!(
                    run.active_cycles,
                    run.llp_beats,
                    "cycles from the first offered beat to the last LLP beat on {}",
                    sim.name()
                );
            },
        );
    }
}

/// The `rnic bench` figures as cycle counts: at full speed the LLP side runs at the wire limit
/// (one beat per cycle: the cycles from the first offered beat to the last LLP beat equal the
/// LLP beats), and the input side at the share the protocol leaves: 16 of 18 beats for
/// 64-octet ULPDUs without markers, 256 of 258 for 1 KiB (markers take 1 beat in 128 more).
#[test]
fn throughput_at_the_wire_limit() {
    let table = measure_throughput_table(BackendKind::Verilator).unwrap();
    assert_eq!(table.len(), 3 * MARKER_CASES.len());
    for t in &table {
        assert_eq!(t.llp_beats_per_cycle, 1.0, "{t:?}");
        assert!(
            (t.input_beats_per_cycle * t.overhead - 1.0).abs() < 1e-9,
            "input beats = LLP beats / overhead: {t:?}"
        );
        if t.ulpdu_len >= 1024 && !t.markers {
            assert!(t.input_beats_per_cycle >= 0.99, "{t:?}");
        }
    }
    assert_eq!(
        table[0].input_beats_per_cycle,
        16.0 / 18.0,
        "{:?}",
        table[0]
    );
    assert_eq!(
        table[1].input_beats_per_cycle,
        256.0 / 258.0,
        "{:?}",
        table[1]
    );
    let t = measure_throughput(BackendKind::RustHdl, 64, true, 20).unwrap();
    assert_eq!(t.llp_beats_per_cycle, 1.0, "{t:?}");
}

/// FPDUPTR overflow (§5.3, `Framer` error `FpduptrOverflow`): with markers, a ULPDU whose last
/// embedded marker would be more than 0xFFFF octets after its header is refused (`err`, no
/// output, stream offset unchanged) exactly where the `Framer` refuses it; the largest ULPDU
/// the `Framer` accepts at the offset goes out.
#[cfg(not(feature = "no-markers"))]
#[test]
fn fpduptr_overflow_is_refused_like_the_framer() {
    let mut rng = StdRng::seed_from_u64(11);
    // At offset 0 (leading marker) the largest is 65526.
    let mut script = vec![
        cfg(1, true, true),
        ulpdus(vec![(1, bytes(&mut rng, MAX_ULPDU))]),
        ulpdus(vec![(1, bytes(&mut rng, 65_527))]),
        ulpdus(vec![(1, bytes(&mut rng, 65_526))]),
    ];
    // Then at the offset this leaves: the boundary of that header position.
    let mut f = Framer::new(true, true);
    let mut out = vec![0u8; 70_000];
    f.write_fpdu(&vec![0; 65_526], &mut out).unwrap();
    let p = (f.stream_offset / 4 % 128).max(1) as usize;
    let bad = 65_531 - 4 * p;
    script.push(ulpdus(vec![(1, bytes(&mut rng, bad))]));
    script.push(ulpdus(vec![(1, bytes(&mut rng, bad - 1))]));
    let (want, errors) = golden(&script);
    assert_eq!(errors, vec![1, 1, 1], "the Framer refuses three of them");
    assert_eq!(want[1].len(), 2);
    for kind in BackendKind::ALL {
        run_with_waveform_on_failure(
            "mpa_tx_fpduptr_overflow",
            || build(kind),
            |sim: &mut dyn Backend| {
                let tb = MpaTxTb::new(sim).unwrap();
                let mut rng = StdRng::seed_from_u64(12);
                let opts = TrafficOptions {
                    backpressure: 0.1,
                    gaps: 0.0,
                };
                let run = tb.run(sim, &script, &opts, &mut rng);
                assert_golden(&run, &script, "FPDUPTR overflow");
            },
        );
    }
}

/// Firmware bugs never hang the block: a ULPDU for a connection in raw mode and raw bytes for a
/// connection in FPDU mode are consumed without output and reported on `err` / `err_conn`,
/// under back-pressure, and the traffic around them is unaffected.
#[test]
fn wrong_mode_packets_are_dropped_and_flagged() {
    // One connection in FPDU mode, two in raw mode (connections 2 / 1, 3; with `two-qps` 0 / 1,
    // 1).
    let (fpdu, raw_a, raw_b) = if CONNECTIONS >= 4 {
        (2, 1, 3)
    } else {
        (0, 1, 1)
    };
    let mut rng = StdRng::seed_from_u64(13);
    let script = vec![
        cfg(fpdu, false, true),
        Step::Traffic {
            ulpdus: vec![
                (raw_a, bytes(&mut rng, 100)),
                (fpdu, bytes(&mut rng, 100)),
                (raw_b, bytes(&mut rng, 0)),
                (fpdu, bytes(&mut rng, 7)),
            ],
            raws: vec![
                (fpdu, bytes(&mut rng, 50)),
                (raw_a, bytes(&mut rng, 9)),
                (fpdu, bytes(&mut rng, 4)),
            ],
        },
    ];
    let (want, errors) = golden(&script);
    let mut refused = vec![raw_a, fpdu, fpdu, raw_b];
    refused.sort_unstable();
    assert_eq!(errors, refused);
    assert_eq!(want[fpdu].len(), 2);
    for kind in BackendKind::ALL {
        run_with_waveform_on_failure(
            "mpa_tx_wrong_mode",
            || build(kind),
            |sim: &mut dyn Backend| {
                let tb = MpaTxTb::new(sim).unwrap();
                let mut rng = StdRng::seed_from_u64(14);
                let opts = TrafficOptions {
                    backpressure: 0.4,
                    gaps: 0.2,
                };
                let run = tb.run(sim, &script, &opts, &mut rng);
                assert_golden(&run, &script, "wrong mode");
            },
        );
    }
}

/// A configuration write restarts the marker grid: after writing the same connection again, the
/// next FPDU starts with the stream-start marker `00 00 00 00`, even when the write lands while
/// the previous FPDU of that connection is still going out.
#[cfg(not(feature = "no-markers"))]
#[test]
fn reconfiguration_restarts_the_marker_grid() {
    let mut rng = StdRng::seed_from_u64(15);
    let script = vec![
        cfg(0, true, true),
        ulpdus(vec![(0, bytes(&mut rng, 99))]),
        cfg(0, true, true),
        ulpdus(vec![(0, bytes(&mut rng, 10))]),
    ];
    for kind in BackendKind::ALL {
        run_with_waveform_on_failure(
            "mpa_tx_reconfiguration",
            || build(kind),
            |sim: &mut dyn Backend| {
                let tb = MpaTxTb::new(sim).unwrap();
                let mut rng = StdRng::seed_from_u64(16);
                let run = tb.run(sim, &script, &TrafficOptions::FULL_SPEED, &mut rng);
                assert_eq!(&run.packets[0][1][..6], &[0, 0, 0, 0, 0, 10]);
                assert_golden(&run, &script, "reconfiguration");
            },
        );
    }
}

/// Both back ends agree cycle by cycle on fully random inputs (random configuration writes,
/// keeps, connections, valids and back-pressure): the Verilog rust-hdl generates behaves like
/// the rust-hdl model.
#[test]
fn backends_agree_every_cycle() {
    let mut a = BackendKind::RustHdl.build(MpaTx::default()).unwrap();
    let mut b = BackendKind::Verilator.build(MpaTx::default()).unwrap();
    let names = a.input_names();
    let mut rng = StdRng::seed_from_u64(17);
    let r = lockstep(a.as_mut(), b.as_mut(), 20_000, |_, i| match names[i] {
        // Rare configuration writes, so FPDUs get long enough to reach markers.
        "cfg_write" => u128::from(rng.gen_ratio(1, 200)),
        "cfg_fpdu_mode" => u128::from(rng.gen_ratio(7, 8)),
        "ulpdu_len" => rng.gen_range(0..2000),
        "ulpdu_last" | "raw_last" => u128::from(rng.gen_ratio(1, 40)),
        _ => rng.gen(),
    });
    assert_eq!(r, Ok(()));
}

/// Inputs that break the port contract (a sideband that changes inside a packet, `ulpdu_len`
/// unrelated to the packet, any `keep`, configuration writes at any time) never hang the block:
/// with `llp_ready` high most of the time, both inputs keep moving and so does the LLP output,
/// in every window of 10000 cycles.
#[test]
fn contract_violations_never_hang() {
    let mut sim = build(BackendKind::Verilator).unwrap();
    let names = sim.input_names();
    let port = |s: &dyn Backend, n: &str| s.input(n).unwrap();
    let out = |s: &dyn Backend, n: &str| s.output(n).unwrap();
    let (uv, rv, lr) = (
        port(sim.as_ref(), "ulpdu_valid"),
        port(sim.as_ref(), "raw_valid"),
        port(sim.as_ref(), "llp_ready"),
    );
    let (ur, rr, lv) = (
        out(sim.as_ref(), "ulpdu_ready"),
        out(sim.as_ref(), "raw_ready"),
        out(sim.as_ref(), "llp_valid"),
    );
    let mut rng = StdRng::seed_from_u64(18);
    for window in 0..20 {
        let mut moved = [0u32; 3];
        for _ in 0..10_000 {
            let mut values = [0u128; 3];
            for (i, name) in names.iter().enumerate() {
                let v = match *name {
                    "cfg_write" => u128::from(rng.gen_ratio(1, 50)),
                    "cfg_fpdu_mode" => u128::from(rng.gen_ratio(3, 4)),
                    "ulpdu_last" | "raw_last" => u128::from(rng.gen_ratio(1, 20)),
                    "llp_ready" => u128::from(rng.gen_ratio(9, 10)),
                    _ => rng.gen(),
                };
                sim.set(InputId(i), v);
                for (k, id) in [uv, rv, lr].into_iter().enumerate() {
                    if id == InputId(i) {
                        values[k] = v & 1;
                    }
                }
            }
            moved[0] += u32::from(values[0] == 1 && sim.get(ur) == 1);
            moved[1] += u32::from(values[1] == 1 && sim.get(rr) == 1);
            moved[2] += u32::from(values[2] == 1 && sim.get(lv) == 1);
            sim.tick();
        }
        assert!(
            moved.iter().all(|&m| m > 500),
            "window {window}: ULPDU, raw and LLP beats moved: {moved:?}"
        );
    }
}

/// Built without markers (`no-markers`), the block ignores the configuration's markers bit: a
/// connection configured with markers sends the `Framer`'s FPDUs without markers, across the
/// 512-octet grid, and refuses none.
#[cfg(feature = "no-markers")]
#[test]
fn markers_bit_is_ignored_without_markers() {
    let mut rng = StdRng::seed_from_u64(51);
    let list: Vec<(usize, Vec<u8>)> = [600usize, 1, 511, 1448, 3, 9000]
        .iter()
        .map(|&n| (0, bytes(&mut rng, n)))
        .collect();
    let script = vec![cfg(0, true, true), ulpdus(list.clone())];
    let mut framer = Framer::new(false, true);
    let mut buf = vec![0u8; 10_000];
    let want: Vec<Vec<u8>> = list
        .iter()
        .map(|(_, u)| {
            let n = framer.write_fpdu(u, &mut buf).unwrap();
            buf[..n].to_vec()
        })
        .collect();
    for kind in BackendKind::ALL {
        run_with_waveform_on_failure(
            "mpa_tx_no_markers",
            || build(kind),
            |sim: &mut dyn Backend| {
                let tb = MpaTxTb::new(sim).unwrap();
                let mut rng = StdRng::seed_from_u64(52);
                let run = tb.run(sim, &script, &TrafficOptions::FULL_SPEED, &mut rng);
                assert_eq!(run.packets[0], want, "on {}", sim.name());
                assert!(run.errors.is_empty());
            },
        );
    }
}
