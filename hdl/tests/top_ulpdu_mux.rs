//! Tests of the ULPDU multiplexer (`hdl/src/top/ulpdu_mux.rs`) on both back ends: random
//! packets from both sources under random `valid` gaps and `ulpdu_ready` back-pressure. Every
//! packet leaves whole (never interleaved), each source's packets in order with their `conn`
//! and `len`, and a Terminate waiting at a packet boundary goes before a waiting segment.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_hdl::top::ulpdu_mux::UlpduMux;
use rnic_sim::testbench::{run_with_waveform_on_failure, Backend, BackendKind};
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq)]
struct Packet {
    conn: u128,
    len: u128,
    words: Vec<(u128, u128)>,
}

fn packets(rng: &mut StdRng, n: usize, tag: u128) -> VecDeque<Packet> {
    (0..n)
        .map(|i| {
            let beats = rng.gen_range(1..6);
            Packet {
                conn: rng.gen_range(0..4),
                len: rng.gen_range(0..0xFFFF),
                words: (0..beats)
                    .map(|b| ((tag << 28) | ((i as u128) << 8) | b as u128, 0xF))
                    .collect(),
            }
        })
        .collect()
}

fn run(sim: &mut dyn Backend, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let i = |s: &dyn Backend, n: &str| s.input(n).unwrap();
    let o = |s: &dyn Backend, n: &str| s.output(n).unwrap();
    let mut src = [packets(&mut rng, 60, 1), packets(&mut rng, 60, 2)];
    let want = src.clone();
    let names = ["term", "ddp"];
    let mut beat = [0usize; 2];
    let mut out: [Vec<Packet>; 2] = [Vec::new(), Vec::new()];
    let mut cur: Option<(usize, Packet)> = None;
    let mut boundary_waiting_both = 0;
    for _ in 0..20_000 {
        let mut offered = [false; 2];
        for s in 0..2 {
            let n = names[s];
            let show = rng.gen_bool(0.7);
            match src[s].front() {
                Some(p) if show || beat[s] > 0 => {
                    let (d, k) = p.words[beat[s]];
                    sim.set(i(sim, &format!("{n}_data")), d);
                    sim.set(i(sim, &format!("{n}_keep")), k);
                    sim.set(
                        i(sim, &format!("{n}_last")),
                        u128::from(beat[s] + 1 == p.words.len()),
                    );
                    sim.set(i(sim, &format!("{n}_conn")), p.conn);
                    sim.set(i(sim, &format!("{n}_len")), p.len);
                    sim.set(i(sim, &format!("{n}_valid")), 1);
                    offered[s] = true;
                }
                _ => sim.set(i(sim, &format!("{n}_valid")), 0),
            }
        }
        let ready = rng.gen_bool(0.6);
        sim.set(i(sim, "ulpdu_ready"), u128::from(ready));
        let valid = sim.get(o(sim, "ulpdu_valid")) == 1;
        if cur.is_none() && offered[0] && offered[1] {
            boundary_waiting_both += 1;
            assert_eq!(
                sim.get(o(sim, "ulpdu_data")) >> 28,
                1,
                "seed {seed}: the Terminate goes first"
            );
        }
        if valid && ready {
            let taken: Vec<usize> = (0..2)
                .filter(|&s| sim.get(o(sim, &format!("{}_ready", names[s]))) == 1)
                .collect();
            assert_eq!(taken.len(), 1, "seed {seed}: exactly one source moves");
            let s = taken[0];
            let d = sim.get(o(sim, "ulpdu_data"));
            let k = sim.get(o(sim, "ulpdu_keep"));
            let conn = sim.get(o(sim, "ulpdu_conn"));
            let len = sim.get(o(sim, "ulpdu_len"));
            let last = sim.get(o(sim, "ulpdu_last")) == 1;
            let p = cur.get_or_insert_with(|| {
                (
                    s,
                    Packet {
                        conn,
                        len,
                        words: Vec::new(),
                    },
                )
            });
            assert_eq!(p.0, s, "seed {seed}: packets interleaved");
            assert_eq!(
                (p.1.conn, p.1.len),
                (conn, len),
                "seed {seed}: sideband changed"
            );
            p.1.words.push((d, k));
            beat[s] += 1;
            if last {
                let (s, p) = cur.take().unwrap();
                out[s].push(p);
                src[s].pop_front();
                beat[s] = 0;
            }
        } else {
            for s in 0..2 {
                if offered[s] {
                    assert_eq!(
                        sim.get(o(sim, &format!("{}_ready", names[s]))) & u128::from(!ready),
                        0
                    );
                }
            }
        }
        sim.tick();
    }
    for s in 0..2 {
        assert_eq!(
            out[s],
            Vec::from(want[s].clone()),
            "seed {seed}: {} packets",
            names[s]
        );
    }
    assert!(
        boundary_waiting_both > 5,
        "seed {seed}: priority never exercised"
    );
    assert_eq!(sim.get(o(sim, "idle")), 1);
}

#[test]
fn whole_packets_in_order_terminate_first() {
    for kind in BackendKind::ALL {
        for seed in 0..3 {
            run_with_waveform_on_failure(
                "ulpdu_mux",
                || kind.build(UlpduMux::default()),
                |sim| run(sim, seed),
            );
        }
    }
}
