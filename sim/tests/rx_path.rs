//! The whole receive path (`RxPath`: MpaRx, DdpRxParse, StagCheck, RxControl, RxPlace,
//! TerminateTx) against the software model `RxModel`, with the memory-protection monitor on.

use rnic_hdl::rdmap::rx_path::RxPath;
use rnic_sim::rx_model::Cqe;
use rnic_sim::tb::rx_path::{run_campaign, run_random, Knobs};
use rnic_sim::testbench::BackendKind;

#[test]
fn random_valid_traffic_matches_the_model_verilator() {
    for seed in 1..=3 {
        let sim = BackendKind::Verilator.build(RxPath::default()).unwrap();
        let (bench, exp) = run_random(sim, seed, Knobs::RANDOM, 30, 0.0, 5_000_000).unwrap();
        bench.mem.assert_no_violations();
        // Valid traffic: no Terminate anywhere, and the run did complete messages (the
        // comparison with the model inside `run_random` is not vacuous).
        assert!(
            exp.terms.iter().all(Vec::is_empty),
            "valid traffic Terminated"
        );
        assert!(bench.terms.iter().all(Vec::is_empty));
        assert!(
            bench.cqes.iter().map(Vec::len).sum::<usize>() > 0,
            "no completion at all"
        );
        assert!(bench.stats().dma_bytes > 0, "nothing placed");
        // Every FPDU had a good CRC: one `fpdu_good_valid` strobe each, on its connection.
        let st = bench.stats();
        assert_eq!(st.fpdu_good, st.ulpdus_sent);
        assert!(st.fpdu_good.iter().all(|&n| n > 0));
    }
}

#[test]
fn random_mutants_match_the_model_verilator() {
    for seed in 10..=12 {
        let sim = BackendKind::Verilator.build(RxPath::default()).unwrap();
        let (bench, _) = run_random(sim, seed, Knobs::RANDOM, 30, 0.2, 5_000_000).unwrap();
        bench.mem.assert_no_violations();
    }
}

/// One ULPDU of `m`.
fn emit(m: &rnic_proto::rdmap::Message) -> Vec<u8> {
    let mut out = vec![0u8; m.buffer_len()];
    m.emit(&mut rnic_proto::ddp::Packet::new_unchecked(&mut out[..]))
        .expect("emit");
    out
}

/// What [`qp_reset_after_dropped_segments`] saw after the reset: (core, model) CQEs and
/// Terminate ULPDUs of QP 0, and `rx_idle` when the outputs had been quiet for 600 cycles.
type ResetOutcome = (Vec<Cqe>, Vec<Cqe>, Vec<Vec<u8>>, Vec<Vec<u8>>, u128);

/// The campaign's QP reset (seed 5, round 10) as a directed sequence: QP 0 goes to error at
/// once (a Read Response with no outstanding Read: row 11, 0/2/0x06, `rfc5040-rdmap.md` §5.4),
/// then eight 1500-octet Writes and a zero-length Read Response L = 1 follow; all are dropped
/// (row 0) and move nothing out, so the outputs are quiet long before the last of them has
/// left the core. Then QP 0 and its connection are reset, one Read is made outstanding
/// (`orq_push`) and a Read Response L = 1 arrives: `rfc5040-rdmap.md` §2.2 wants one
/// RdmaRead / Success CQE and no Terminate. With `drain`, the reset waits for `rx_idle`;
/// without, for 600 quiet output cycles after the last input byte (the old bench).
fn qp_reset_after_dropped_segments(kind: BackendKind, drain: bool) -> ResetOutcome {
    use rand::SeedableRng;
    use rnic_proto::rdmap::{Body, DdpFields, Message};
    use rnic_sim::mutate::{slot, Setup, MAX_ULPDU};
    use rnic_sim::rx_model::{RxEvent, RxModel};
    use rnic_sim::tb::rx_path::RxPathBench;
    let sim = kind.build_untraced(RxPath::default()).unwrap();
    let knobs = Knobs {
        seg_min: 1500,
        seg_max: 1500,
        llp_idle: 0.0,
        ..Knobs::RANDOM
    };
    let mut bench = RxPathBench::new(sim, 5, knobs).unwrap();
    let rx_idle = bench.sim().output("rx_idle").unwrap();
    let setup = Setup::standard(&mut rand::rngs::StdRng::seed_from_u64(5));
    let mut model = RxModel::new();
    for (i, e) in &setup.stags {
        bench.program_stag(*i, *e);
    }
    setup.apply(&mut model);
    bench.qp_cfg(0, setup.qps[0]);
    bench.mpa_cfg(0, true, false, true, MAX_ULPDU);
    let sink = Message {
        last: true,
        ddp: DdpFields::Tagged {
            stag: setup.stag(slot::READ_SINK),
            to: setup.entry(slot::READ_SINK).unwrap().base_to,
        },
        body: Body::RdmaReadResponse { payload: &[] },
    };
    let data = vec![0x5Au8; 1500 - 14];
    let write = Message {
        last: true,
        ddp: DdpFields::Tagged {
            stag: setup.stag(slot::WRITE),
            to: setup.entry(slot::WRITE).unwrap().base_to,
        },
        body: Body::RdmaWrite { payload: &data },
    };
    let mut first = vec![emit(&sink)];
    first.extend((0..8).map(|_| emit(&write)));
    first.push(emit(&sink));
    for u in &first {
        model.receive(0, u, true);
    }
    bench.send_ulpdus(0, &first);
    let quiet = bench.run_until_idle_for(1_000_000, 600);
    assert!(quiet > 0);
    let idle_when_quiet = bench.sim().get(rx_idle);
    if drain {
        bench.run_until_drained(1_000_000);
    }
    let (c0, t0) = (bench.cqes[0].len(), bench.terms[0].len());
    bench.mpa_cfg(0, true, false, true, MAX_ULPDU);
    bench.qp_cfg(0, setup.qps[0]);
    model.configure_qp(0, setup.qps[0]);
    bench.orq_push(0);
    model.orq_push(0);
    let u = emit(&sink);
    let events = model.receive(0, &u, true);
    bench.send_ulpdus(0, &[u]);
    bench.run_until_drained(1_000_000);
    let mut want_cqes = Vec::new();
    let mut want_terms = Vec::new();
    for e in events {
        match e {
            RxEvent::Cqe(c) => want_cqes.push(c),
            RxEvent::Terminate { ulpdu, .. } => want_terms.push(ulpdu),
            _ => {}
        }
    }
    (
        bench.cqes[0][c0..].to_vec(),
        want_cqes,
        bench.terms[0][t0..].to_vec(),
        want_terms,
        idle_when_quiet,
    )
}

#[test]
fn qp_reset_waits_for_rx_idle() {
    for kind in [BackendKind::Verilator, BackendKind::RustHdl] {
        let (cqes, want_cqes, terms, want_terms, idle_when_quiet) =
            qp_reset_after_dropped_segments(kind, true);
        // The outputs went quiet with dropped segments still in the core.
        assert_eq!(idle_when_quiet, 0, "{kind:?}");
        assert_eq!(want_cqes.len(), 1);
        assert!(want_terms.is_empty());
        assert_eq!(cqes, want_cqes, "{kind:?}");
        assert_eq!(terms, want_terms, "{kind:?}");
    }
}

/// The directed test has teeth: resetting after 600 quiet output cycles (the old campaign
/// bench) lets a dropped Read Response of before the reset be checked on the reset QP, so the
/// core's events differ from the model's (the campaign failure of seed 5, round 10).
#[test]
fn qp_reset_on_quiet_outputs_is_too_early() {
    let (cqes, want_cqes, terms, want_terms, _) =
        qp_reset_after_dropped_segments(BackendKind::Verilator, false);
    // The stale Read Response takes the outstanding Read (its CQE), the new one finds none:
    // Terminate 0/2/0x06 (octets 18-19), where the model has no Terminate.
    assert_eq!(cqes, want_cqes);
    assert!(want_terms.is_empty());
    assert_eq!(terms.len(), 1);
    assert_eq!(terms[0][18..20], [0x02, 0x06]);
}

/// The mutation campaign (rounds of random messages per QP, mutated with probability 0.5;
/// every QP and connection reset after each round once `rx_idle` is 1), short: seed 5 goes
/// past its round 10, where the reset used to come too early.
#[test]
fn campaign_verilator() {
    for seed in 5..=8 {
        let sim = BackendKind::Verilator
            .build_untraced(RxPath::default())
            .unwrap();
        let r = run_campaign(sim, seed, Knobs::RANDOM, 150, 3, 0.5).unwrap();
        assert_eq!(r.rounds, 150);
        assert!(r.mutants > 0 && r.terminates > 0, "{r:?}");
    }
}

#[test]
fn campaign_rust_hdl() {
    let sim = BackendKind::RustHdl.build(RxPath::default()).unwrap();
    let r = run_campaign(sim, 5, Knobs::RANDOM, 12, 3, 0.5).unwrap();
    assert!(r.mutants > 0 && r.terminates > 0, "{r:?}");
}

/// Small LLP segments and back-pressure 60 % of the time everywhere.
const HARSH: Knobs = Knobs {
    seg_min: 1,
    seg_max: 64,
    llp_idle: 0.3,
    dma_stall: 0.6,
    out_stall: 0.6,
    rq_latency: (1, 40),
    rq_answer_pops: true,
};

/// Deadlock found by the harsh campaign (seed 21, round 72): RxControl held a job whose verdict
/// waited in `Direct` for `vd_ready`; RxPlace takes that verdict only after its `done_*` is
/// taken, and that done (of a Send, with events) waited in RxControl's done lane for the FSM.
/// Before the fix the core stopped taking LLP bytes in round 72.
#[test]
fn campaign_harsh_no_deadlock_verilator() {
    let sim = BackendKind::Verilator
        .build_untraced(RxPath::default())
        .unwrap();
    let r = run_campaign(sim, 21, HARSH, 80, 3, 0.5).unwrap();
    assert_eq!(r.rounds, 80);
}

/// The long campaign, on demand: `SEEDS=1,2,3 ROUNDS=2000 MSGS=3 P=0.5 HARSH=0 cargo test -p
/// rnic-sim --test rx_path campaign_long -- --ignored --nocapture`.
#[test]
#[ignore]
fn campaign_long() {
    let var = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
    let rounds: usize = var("ROUNDS", "2000").parse().unwrap();
    let msgs: usize = var("MSGS", "3").parse().unwrap();
    let p: f64 = var("P", "0.5").parse().unwrap();
    for seed in var("SEEDS", "1,2,3,4").split(',') {
        let seed: u64 = seed.trim().parse().unwrap();
        let t = std::time::Instant::now();
        let sim = if std::env::var("CAMPAIGN_VCD_ROUND").is_ok() {
            BackendKind::Verilator.build(RxPath::default()).unwrap()
        } else {
            BackendKind::Verilator
                .build_untraced(RxPath::default())
                .unwrap()
        };
        let knobs = if var("HARSH", "0") == "1" {
            HARSH
        } else {
            Knobs::RANDOM
        };
        let r = run_campaign(sim, seed, knobs, rounds, msgs, p).unwrap();
        eprintln!(
            "seed {seed} messages {msgs} p {p}: {r:?} in {:?}",
            t.elapsed()
        );
    }
}

/// The send engine's local checks share StagCheck with the receive path (`docs/core.md`,
/// "RxPath additions"): every local request (held until taken, `lchk_valid && lchk_ready`) is
/// answered on `lrsp_*` exactly `STAG_CHECK_LATENCY - 1` cycles after it was taken with the
/// model's status and address, RxControl keeps priority, and the receive traffic running at the
/// same time is all placed.
#[test]
fn local_checks_share_stagcheck_with_receive_traffic_verilator() {
    use rand::{Rng, SeedableRng};
    use rnic_hdl::ddp::stag_check::STAG_CHECK_LATENCY;
    use rnic_proto::rdmap::{Body, DdpFields, Message};
    use rnic_proto::verbs::access;
    use rnic_sim::mutate::{slot, Setup, MAX_ULPDU};
    use rnic_sim::rx_model::stag_check;
    use rnic_sim::tb::rx_path::{Logged, RxPathBench};
    let seed = 11;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let sim = BackendKind::Verilator
        .build_untraced(RxPath::default())
        .unwrap();
    let mut bench = RxPathBench::new(sim, seed, Knobs::FULL_SPEED).unwrap();
    let setup = Setup::standard(&mut rand::rngs::StdRng::seed_from_u64(seed));
    for (i, e) in &setup.stags {
        bench.program_stag(*i, *e);
    }
    bench.qp_cfg(0, setup.qps[0]);
    bench.mpa_cfg(0, true, false, true, MAX_ULPDU);
    let data = vec![0xA5u8; 64];
    let entry = setup.entry(slot::WRITE).unwrap();
    let writes: Vec<Vec<u8>> = (0..200u64)
        .map(|k| {
            emit(&Message {
                last: true,
                ddp: DdpFields::Tagged {
                    stag: setup.stag(slot::WRITE),
                    to: entry.base_to + (k * 64) % u64::from(entry.len - 64),
                },
                body: Body::RdmaWrite { payload: &data },
            })
        })
        .collect();
    bench.send_ulpdus(0, &writes);
    let p = |b: &mut RxPathBench, n: &str| b.sim().input(n).unwrap();
    let (v, st, to, len, pd, qp, acc) = (
        p(&mut bench, "lchk_valid"),
        p(&mut bench, "lchk_stag"),
        p(&mut bench, "lchk_to"),
        p(&mut bench, "lchk_len"),
        p(&mut bench, "lchk_pd"),
        p(&mut bench, "lchk_qp"),
        p(&mut bench, "lchk_access"),
    );
    let o = |b: &mut RxPathBench, n: &str| b.sim().output(n).unwrap();
    let (ready, rv, rs, ra) = (
        o(&mut bench, "lchk_ready"),
        o(&mut bench, "lrsp_valid"),
        o(&mut bench, "lrsp_status"),
        o(&mut bench, "lrsp_host_addr"),
    );
    let mut expected = std::collections::VecDeque::new();
    let mut answered = 0;
    let mut stalled = 0;
    let mut pending = None;
    // Cycles the pending request has waited: 1 normally (StagCheck's first cycle), more when
    // RxControl took the StagCheck first.
    let mut waited = 0usize;
    for i in 0..6000 {
        let c = bench.cycles();
        if pending.is_none() && i < 5990 && rng.gen_bool(0.5) {
            let (index, e) = setup.stags[rng.gen_range(0..setup.stags.len())];
            let stag = if rng.gen_bool(0.1) {
                make_bad(setup.stag(index))
            } else {
                setup.stag(index)
            };
            let t = e.base_to + rng.gen_range(0..u64::from(e.len) + 8);
            let l = rng.gen_range(0..256u32);
            let (pdv, qpv) = (
                rng.gen_range(0..3u8),
                rng.gen_range(0..rnic_hdl::config::CONNECTIONS as u8),
            );
            let rights = [access::LOCAL_READ, access::LOCAL_WRITE][rng.gen_range(0..2)];
            pending = Some((stag, t, l, pdv, qpv, rights));
        }
        let want = pending.is_some();
        let (stag, t, l, pdv, qpv, rights) = pending.unwrap_or_default();
        let sim = bench.sim();
        sim.set(v, u128::from(want));
        sim.set(st, u128::from(stag));
        sim.set(to, u128::from(t));
        sim.set(len, u128::from(l));
        sim.set(pd, u128::from(pdv));
        sim.set(qp, u128::from(qpv));
        sim.set(acc, u128::from(rights));
        let taken = want && sim.get(ready) == 1;
        waited += usize::from(want && !taken);
        if taken {
            stalled += usize::from(waited > 1);
            waited = 0;
        }
        if taken {
            let entry = setup.entry(rnic_proto::verbs::stag_index(stag));
            let res = stag_check(entry, stag, t, l, pdv, qpv, rights);
            expected.push_back((c + STAG_CHECK_LATENCY as u64 - 1, res));
            pending = None;
        }
        bench.step();
        let sim = bench.sim();
        sim.set(v, 0);
        if sim.get(rv) == 1 {
            let (due, res) = expected
                .pop_front()
                .expect("a local answer nobody asked for");
            assert_eq!(bench.cycles(), due, "answer latency");
            let sim = bench.sim();
            let (status, addr) = (sim.get(rs) as u8, sim.get(ra) as u32);
            match res {
                Ok(a) => assert_eq!((status, addr), (0, a), "seed {seed}"),
                Err(s) => assert_eq!(status, s, "seed {seed}"),
            }
            answered += 1;
        }
    }
    bench.run_until_idle(100_000);
    assert!(expected.is_empty(), "unanswered local checks");
    assert!(answered > 1000, "only {answered} local checks answered");
    assert!(
        stalled > 0,
        "RxControl never took priority: the test did not overlap"
    );
    let placed = bench
        .log
        .iter()
        .map(|(_, l)| match l {
            Logged::Write { bytes, .. } => bytes.len(),
            _ => 0,
        })
        .sum::<usize>();
    assert_eq!(placed, 200 * 64, "receive traffic not all placed");
    assert!(
        !bench
            .log
            .iter()
            .any(|(_, l)| matches!(l, Logged::Terminate { .. })),
        "a Terminate"
    );
}

/// An STag with the key changed (an invalid STag).
fn make_bad(stag: u32) -> u32 {
    stag ^ 0x5A
}
