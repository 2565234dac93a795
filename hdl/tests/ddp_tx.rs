//! Tests of the DDP / RDMAP transmit segmenter (`hdl/src/ddp/tx.rs`) against segments built
//! with `rnic-proto` (the testbench `rnic_sim::tb::ddp_tx` checks every octet, `ulpdu_conn`,
//! `ulpdu_len`, `keep`, `msg_done` timing and count, and every read request's range, size,
//! 4 KiB rule and tag). Both back ends; the rust-hdl one with a few short messages, Verilator
//! with random traffic (every opcode, lengths 0..=several KiB and some of 64 KiB and more,
//! random host alignment, MULPDU below 64, 64, 100, 1454, 9000 and random ones per
//! connection), random DMA latency / pieces / overtaking / request back-pressure and random
//! `ulpdu_ready`.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_hdl::config::CONNECTIONS;
use rnic_hdl::ddp::tx::DdpTx;
use rnic_sim::host_mem::in_window;
use rnic_sim::tb::ddp_tx::{
    measure_beats_per_cycle, memory_for, random_hints, random_messages, DdpTxTb, TxHint, TxMsg,
    TxTraffic,
};
use rnic_sim::testbench::{run_with_waveform_on_failure, Backend, BackendKind};

fn run(sim: &mut dyn Backend, seed: u64, count: usize, max_len: u32, big: bool, hinted: bool) {
    let mut rng = StdRng::seed_from_u64(seed);
    let msgs = random_messages(&mut rng, count, max_len, big);
    let hints = if hinted {
        random_hints(&mut rng, &msgs)
    } else {
        Vec::new()
    };
    let mut mem = memory_for(&msgs, &mut rng);
    let choices = [0u16, 20, 63, 64, 65, 100, 1454, 9000, 71, 200];
    let mulpdu = [0; CONNECTIONS].map(|_: u16| {
        if rng.gen_bool(0.7) {
            choices[rng.gen_range(0..choices.len())]
        } else {
            rng.gen_range(0..=9100)
        }
    });
    let traffic = if seed.is_multiple_of(4) {
        TxTraffic::FULL_SPEED
    } else {
        TxTraffic::random(&mut rng)
    };
    let tb = DdpTxTb::new(sim).unwrap();
    let total: u64 = msgs.iter().map(|m| u64::from(m.len)).sum();
    let r = tb
        .run_hinted(
            sim,
            mulpdu,
            &msgs,
            &hints,
            &mut mem,
            &traffic,
            seed,
            200_000 + total * 40,
        )
        .unwrap_or_else(|e| panic!("seed {seed} mulpdu {mulpdu:?} traffic {traffic:?}: {e:#}"));
    assert!(r.segments >= msgs.len(), "seed {seed}: too few segments");
    println!(
        "seed {seed}: {} messages, {} segments, {} beats, {} requests, {} cycles",
        msgs.len(),
        r.segments,
        r.beats,
        r.requests,
        r.cycles
    );
}

/// A fixed set of short messages: every opcode, lengths 0..=9, both alignments, MULPDU 64.
fn short(sim: &mut dyn Backend) {
    let mut msgs = Vec::new();
    let mut addr = in_window(0x4000_0000) + 0xffc;
    for (i, len) in [0u32, 1, 2, 3, 4, 5, 9, 47, 60, 130]
        .into_iter()
        .enumerate()
    {
        msgs.push(TxMsg {
            conn: i % CONNECTIONS,
            opcode: (i % 7) as u8,
            stag: 0xA1B2_C3D4 + i as u32,
            // TO's lower half wraps within the tagged 130-octet message (MULPDU 64).
            to: 0x0102_0304_FFFF_FFC0 + i as u64,
            inv_stag: 0x1122_3344,
            src_to: 0x8877_6655_4433_2211,
            msn: 5 + i as u32,
            addr: addr + (i as u32 % 4),
            len,
        });
        addr += 256;
    }
    let mut rng = StdRng::seed_from_u64(3);
    let mut mem = memory_for(&msgs, &mut rng);
    let tb = DdpTxTb::new(sim).unwrap();
    let mut traffic = TxTraffic::FULL_SPEED;
    traffic.dma.read.latency = 5;
    traffic.ready = 0.7;
    tb.run(
        sim,
        std::array::from_fn(|c| [64, 0, 100, 9000][c]),
        &msgs,
        &mut mem,
        &traffic,
        3,
        20_000,
    )
    .unwrap_or_else(|e| panic!("{e:#}"));
}

#[test]
fn short_messages_both_back_ends() {
    for kind in BackendKind::ALL {
        run_with_waveform_on_failure("ddp_tx_short", || kind.build(DdpTx::default()), short);
    }
}

#[test]
fn random_messages_rust_hdl() {
    run_with_waveform_on_failure(
        "ddp_tx_random",
        || BackendKind::RustHdl.build(DdpTx::default()),
        |sim| run(sim, 1, 6, 300, false, false),
    );
}

#[test]
fn random_hinted_messages_rust_hdl() {
    run_with_waveform_on_failure(
        "ddp_tx_random_hinted",
        || BackendKind::RustHdl.build(DdpTx::default()),
        |sim| run(sim, 2, 8, 600, false, true),
    );
}

#[test]
fn random_hinted_messages_verilator() {
    for seed in 100..124 {
        run_with_waveform_on_failure(
            "ddp_tx_random_hinted",
            || BackendKind::Verilator.build(DdpTx::default()),
            |sim| run(sim, seed, 60, 5000, seed.is_multiple_of(5), true),
        );
    }
}

fn write(i: usize, addr: u32, len: u32) -> TxMsg {
    TxMsg {
        conn: i % CONNECTIONS,
        opcode: if i % 3 == 2 { 3 } else { 0 },
        stag: 0x5100 + i as u32,
        to: 0x1000 * i as u64,
        inv_stag: 0,
        src_to: 0x77,
        msn: 9 + i as u32,
        addr,
        len,
    }
}

/// Back-to-back 1 KiB messages, each hinting the next from its start: with DMA latency 50,
/// every message but the first takes no more cycles than its beats plus the take, the 2-cycle
/// set-up, the output stage and the registered `msg_done` (without the hint: about 50 more).
/// With `nxt_shown` low (the hints are the other source's, `docs/core.md` "The message job"),
/// no message may use the region read ahead: each one is read again (a flush), with the right
/// payload.
fn hint_matches(sim: &mut dyn Backend, shown: bool) {
    let msgs: Vec<TxMsg> = (0..6)
        .map(|i| {
            write(
                i,
                in_window(0x3000_0000) + 0x1800 * i as u32 + (i as u32 % 4),
                1024,
            )
        })
        .collect();
    let hints: Vec<TxHint> = (0..6)
        .map(|i| {
            if i < 5 {
                TxHint::Next {
                    target: i + 1,
                    delay: 0,
                }
            } else {
                TxHint::None
            }
        })
        .collect();
    let mut rng = StdRng::seed_from_u64(11);
    let mut mem = memory_for(&msgs, &mut rng);
    let mut tb = DdpTxTb::new(sim).unwrap();
    tb.hint_shown = shown;
    let r = tb
        .run_hinted(
            sim,
            [9000; CONNECTIONS],
            &msgs,
            &hints,
            &mut mem,
            &TxTraffic::FULL_SPEED,
            11,
            50_000,
        )
        .unwrap_or_else(|e| panic!("{e:#}"));
    println!("cycles {:?} beats {:?}", r.msg_cycles, r.msg_beats);
    assert!(
        r.msg_cycles[0] >= r.msg_beats[0] + 50,
        "first message without a hint"
    );
    for i in 1..6 {
        if shown {
            assert!(
                r.msg_cycles[i] <= r.msg_beats[i] + 5,
                "message {i}: {} cycles for {} beats",
                r.msg_cycles[i],
                r.msg_beats[i]
            );
        } else {
            assert!(
                r.msg_cycles[i] >= r.msg_beats[i] + 50,
                "message {i} used another source's read-ahead: {} cycles for {} beats",
                r.msg_cycles[i],
                r.msg_beats[i]
            );
        }
    }
}

#[test]
fn hint_matches_no_latency_gap_both_back_ends() {
    for kind in BackendKind::ALL {
        run_with_waveform_on_failure(
            "ddp_tx_hint_match",
            || kind.build(DdpTx::default()),
            |sim| hint_matches(sim, true),
        );
    }
}

#[test]
fn hint_of_the_other_source_not_matched_both_back_ends() {
    for kind in BackendKind::ALL {
        run_with_waveform_on_failure(
            "ddp_tx_hint_other_source",
            || kind.build(DdpTx::default()),
            |sim| hint_matches(sim, false),
        );
    }
}

/// A hinted message overtaken by another one (cancel), no-payload messages between the hint
/// and its message (read-ahead kept), a hint of a region no message reads, and a hint
/// withdrawn after which the message's memory changes (the new octets must be sent).
fn hint_mismatch(sim: &mut dyn Backend, traffic: &TxTraffic) {
    let base = in_window(0x5000_0000);
    let mut msgs = vec![
        write(0, base, 700),
        write(1, base + 0x1000 + 1, 300), // not the hinted one: cancels
        write(2, base + 0x2000 + 2, 900), // hinted by 0
        write(3, base + 0x3000, 0),       // no payload
        write(4, base + 0x3100, 64),      // Read Request (no payload)
        write(5, base + 0x4000 + 3, 2000), // hinted by 2 across 3, 4
        write(6, base + 0x5000, 500),     // hinted by 5, withdrawn, memory changed
        write(7, base + 0x6000, 100),
        write(8, base + 0x5000, 500), // the same region as 6 again, hint withdrawn
    ];
    msgs[4].opcode = 1;
    let hints = vec![
        TxHint::Next {
            target: 2,
            delay: 0,
        },
        TxHint::None,
        TxHint::Next {
            target: 5,
            delay: 5,
        },
        TxHint::None,
        TxHint::None,
        TxHint::Withdraw {
            target: 6,
            delay: 0,
            hold: 40,
        },
        TxHint::Other {
            addr: base + 0x7000,
            len: 800,
            delay: 3,
        },
        TxHint::Withdraw {
            target: 8,
            delay: 0,
            hold: 150,
        },
        TxHint::None,
    ];
    let mut rng = StdRng::seed_from_u64(12);
    let mut mem = memory_for(&msgs, &mut rng);
    let tb = DdpTxTb::new(sim).unwrap();
    tb.run_hinted(
        sim,
        std::array::from_fn(|c| [1454, 9000, 100, 64][c]),
        &msgs,
        &hints,
        &mut mem,
        traffic,
        12,
        80_000,
    )
    .unwrap_or_else(|e| panic!("{e:#}"));
}

#[test]
fn hint_mismatch_withdraw_no_payload_both_back_ends() {
    for kind in BackendKind::ALL {
        run_with_waveform_on_failure(
            "ddp_tx_hint_mismatch",
            || kind.build(DdpTx::default()),
            |sim| hint_mismatch(sim, &TxTraffic::FULL_SPEED),
        );
    }
    for seed in 0..8 {
        let mut rng = StdRng::seed_from_u64(seed);
        let traffic = TxTraffic::random(&mut rng);
        run_with_waveform_on_failure(
            "ddp_tx_hint_mismatch",
            || BackendKind::Verilator.build(DdpTx::default()),
            |sim| hint_mismatch(sim, &traffic),
        );
    }
}

#[test]
fn random_messages_verilator() {
    for seed in 0..24 {
        run_with_waveform_on_failure(
            "ddp_tx_random",
            || BackendKind::Verilator.build(DdpTx::default()),
            |sim| run(sim, seed, 60, 5000, seed.is_multiple_of(3), false),
        );
    }
}

/// Long RDMA Writes with DMA latency 50 and `ulpdu_ready` always 1: at least 0.97 beats per
/// cycle (goal of `docs/core.md` "DdpTx").
#[test]
fn throughput_64k_writes_latency_50() {
    for (mulpdu, align) in [(1454u16, 0u32), (1454, 3), (9000, 1)] {
        let r =
            measure_beats_per_cycle(BackendKind::Verilator, 65536, 4, mulpdu, align, 50).unwrap();
        let bpc = r.beats_per_cycle();
        println!(
            "DdpTx 64 KiB Writes, MULPDU {mulpdu}, align {align}, latency 50: {} beats in {} \
             cycles = {bpc:.4} beats/cycle",
            r.beats, r.cycles
        );
        assert!(bpc >= 0.97, "{bpc} beats per cycle");
    }
}
