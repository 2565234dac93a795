//! Tests of the STag table and protection check (`hdl/src/ddp/stag_check.rs`,
//! `hdl/src/ddp/stag_table.rs`) on both simulation back ends, against a software reference
//! model written here from the contract (`hdl/src/ddp/mod.rs`, `check_status`) and the catalog
//! (`rfc5040-rdmap.md` §5.4 check order with the wrap before the bounds, §6.1 items 1-3 and 7,
//! §7.2 STag entry).
//!
//! The stimulus is random and seeded: a table write in some cycles (some invalidating, never
//! two in consecutive cycles: HostIf's commits), a request in most cycles after a cycle without
//! one and now and then right after another (which cancels the earlier one: no response, no
//! invalidation), checks and invalidates, with TOs and lengths on the corners of the
//! region and of 2^64 (TO = base_to - 1, TO + len = end, end + 1, TO + len = 2^64, 2^64 + 1,
//! len 0, indexes >= 64, wrong keys, PDs, QPs, rights), and table writes placed on purpose
//! around requests of the same index to exercise the exact programming and invalidation
//! timing rules of the module documentation. Every response (status, host address, tag) and
//! every cycle's `rsp_valid` are compared exactly.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_hdl::config::{CONNECTIONS, CONN_BITS, LOCAL_LEN_BITS, STAG_ENTRIES};
use rnic_hdl::ddp::check_status;
use rnic_hdl::ddp::stag_check::StagCheck;
use rnic_proto::verbs::access;
use rnic_sim::host_mem::{in_window, DMA_ADDR_MASK};
use rnic_sim::tb::stag_check::{Entry, Prog, Request, Response, StagCheckTb, STAG_CHECK_LATENCY};
use rnic_sim::testbench::{run_with_waveform_on_failure, Backend, BackendKind};

/// One cycle of stimulus.
#[derive(Clone, Copy, Debug, Default)]
struct Cycle {
    prog: Option<Prog>,
    req: Option<Request>,
}

/// The reference model: the table as the requests of one cycle see it.
struct Model {
    entries: [Entry; STAG_ENTRIES],
}

impl Model {
    fn new() -> Self {
        Model {
            entries: [Entry::default(); STAG_ENTRIES],
        }
    }

    /// The response to `r`; `disturbed`: its entry is written while the pipeline reads it.
    fn check(&self, r: &Request, disturbed: bool) -> Response {
        let index = (r.stag >> 8) as usize;
        let key = r.stag as u8;
        let rsp = |status: u8, host_addr: u32| Response {
            tag: r.tag,
            status,
            host_addr,
        };
        if index >= STAG_ENTRIES {
            return rsp(check_status::INVALID_STAG, 0);
        }
        let e = &self.entries[index];
        // The table keeps base_TO[31:0]: an entry programmed with a larger base is invalid.
        if disturbed || !e.valid || e.key != key || e.base_to >> 32 != 0 {
            return rsp(check_status::INVALID_STAG, 0);
        }
        if e.pd != r.pd || (e.qp_bound && e.qp != r.qp) {
            return rsp(check_status::NOT_ASSOCIATED, 0);
        }
        if r.invalidate {
            return if e.remote_inv {
                rsp(check_status::OK, 0)
            } else {
                rsp(check_status::NOT_INVALIDATABLE, 0)
            };
        }
        if r.access & !e.access != 0 {
            return rsp(check_status::ACCESS, 0);
        }
        // Lengths of LOCAL_LEN_BITS (24 in the Cu profile): a request's length of
        // `1 << LOCAL_LEN_BITS` or more is BOUNDS (never WRAP), a region's length is taken
        // modulo `1 << LOCAL_LEN_BITS` (the driver registers none longer).
        let big = u64::from(r.len) >> LOCAL_LEN_BITS != 0;
        let (to, len) = (u128::from(r.to), u128::from(r.len));
        if !big && to + len > 1u128 << 64 {
            return rsp(check_status::WRAP, 0);
        }
        let rlen = u128::from(e.len) & ((1u128 << LOCAL_LEN_BITS) - 1);
        let base = u128::from(e.base_to);
        if big || to < base || to + len > base + rlen {
            return rsp(check_status::BOUNDS, 0);
        }
        rsp(
            check_status::OK,
            // (At the core's address width: 24 bits in the Cu profile.)
            e.host_addr.wrapping_add((r.to - e.base_to) as u32) & DMA_ADDR_MASK,
        )
    }
}

/// The expected response of every cycle's request, by the exact rules of the module docs: a
/// request of cycle `t` followed by a request in `t + 1` is cancelled (no response, no
/// invalidation); else it sees the table writes of cycles `< t` and the invalidations of
/// requests of cycles `< t`; a check of index `i` is disturbed by a write of `i` in cycles
/// `t - 1`, `t` and `t + 1`, an invalidate by one in cycles `t - 1` and `t`. A repeated
/// commit (a write in the cycle after another) changes nothing. The table's write port
/// (`stag_table`, "Writes"): an invalidation's clear is due in cycle `t + 2`, waits while the
/// port writes a new commit's word 1 (cycle `p`) or word 0 (`p + 1`), and, once waiting, takes
/// the port from a new commit's word 1: that commit programs its entry invalid. Also returns
/// how many commits were so displaced.
fn expected_counted(cycles: &[Cycle]) -> (Vec<Option<Response>>, usize) {
    let mut m = Model::new();
    let mut out = Vec::with_capacity(cycles.len());
    let hits = |c: Option<&Cycle>, index: usize| {
        c.and_then(|c| c.prog)
            .is_some_and(|p| p.index == index % STAG_ENTRIES)
    };
    let prog = |x: usize| cycles.get(x).and_then(|c| c.prog);
    // Clears due per cycle (t + 2 of their invalidate).
    let mut due: Vec<Option<usize>> = vec![None; cycles.len() + 3];
    // The write port: a new commit in the previous cycle (its word 0 now), a waiting clear.
    let (mut nw, mut pend) = (false, None::<usize>);
    let mut displaced = 0;
    for (t, c) in cycles.iter().enumerate() {
        let mut clear = None;
        let cancelled = cycles.get(t + 1).is_some_and(|n| n.req.is_some());
        let rsp = c.req.filter(|_| !cancelled).map(|r| {
            let index = (r.stag >> 8) as usize;
            let window = if r.invalidate { 0 } else { 1 };
            let disturbed =
                (0..=window + 1).any(|d| t + d >= 1 && hits(cycles.get(t + d - 1), index));
            let rsp = m.check(&r, disturbed);
            if r.invalidate && rsp.status == check_status::OK {
                clear = Some(index);
            }
            rsp
        });
        out.push(rsp);
        // A write of the index in t + 1 drops the clear (the write comes after it).
        due[t + 2] = clear.filter(|&i| prog(t + 1).map(|p| p.index) != Some(i));
        // The write port in cycle t.
        let prev = t.checked_sub(1).and_then(prog);
        let new = c.prog.is_some() && prev.is_none();
        let written_index = c.prog.or(prev).map(|p| p.index);
        let live = pend.filter(|&i| written_index != Some(i));
        let now = due[t].filter(|&i| c.prog.map(|p| p.index) != Some(i));
        assert!(
            !(nw && live.is_some() && now.is_some()),
            "cycle {t}: two clears wait"
        );
        pend = if nw {
            live.or(now)
        } else if live.is_some() || new {
            now
        } else {
            None
        };
        if let Some(p) = c.prog.filter(|_| new) {
            let displaced_now = live.is_some();
            displaced += usize::from(displaced_now);
            m.entries[p.index] = Entry {
                valid: p.entry.valid && !displaced_now,
                ..p.entry
            };
        }
        nw = new;
        if let Some(i) = clear {
            m.entries[i].valid = false;
        }
    }
    (out, displaced)
}

fn expected(cycles: &[Cycle]) -> Vec<Option<Response>> {
    expected_counted(cycles).0
}

fn random_entry(rng: &mut StdRng) -> Entry {
    // base_TO is 32 bits in the table (the driver registers nothing above 2^32); now and then a
    // larger one, which makes the entry invalid.
    let base_to = match rng.gen_range(0..10) {
        0..=2 => rng.gen_range(0..4096),
        3 | 4 => (1u64 << 32) - rng.gen_range(1..=1u64 << 20),
        5 | 6 => (1u64 << 32) - rng.gen_range(1..=4096),
        7 => 0u64.wrapping_sub(rng.gen_range(1..=1u64 << 33)),
        _ => u64::from(rng.gen::<u32>()),
    };
    let len = match rng.gen_range(0..6) {
        0 => 0,
        1 => 1,
        2 => u32::MAX,
        3 => rng.gen_range(0..8192),
        _ => rng.gen(),
    };
    Entry {
        valid: rng.gen_bool(0.85),
        key: rng.gen(),
        pd: rng.gen_range(0..16),
        access: if rng.gen_bool(0.5) {
            access::ALL
        } else {
            rng.gen_range(0..16)
        },
        qp_bound: rng.gen_bool(0.5),
        qp: rng.gen_range(0..CONNECTIONS as u8),
        remote_inv: rng.gen_bool(0.6),
        base_to,
        len,
        host_addr: rng.gen::<u32>() & DMA_ADDR_MASK,
    }
}

/// A request aimed at `index` (whose entry is `e` as far as the generator knows), on one of the
/// corners, sometimes with one field wrong.
fn random_request(rng: &mut StdRng, index: usize, e: &Entry) -> Request {
    let len: u32 = match rng.gen_range(0..7) {
        0 => 0,
        1 => 1,
        // 2^24: a Read Request's size just past the Cu profile's lengths.
        6 => 1 << 24,
        2 => e.len,
        3 => rng.gen_range(0..=e.len.max(1)),
        4 => rng.gen_range(0..4096),
        _ => rng.gen(),
    };
    let end = e.base_to.wrapping_add(u64::from(e.len));
    let to = match rng.gen_range(0..10) {
        0 => e.base_to.wrapping_sub(1),
        1 => e.base_to,
        // TO + len = end of the region, and one past it.
        2 => end.wrapping_sub(u64::from(len)),
        3 => end.wrapping_sub(u64::from(len)).wrapping_add(1),
        // TO + len = 2^64 exactly (no wrap), and 2^64 + 1 (wrap).
        4 => 0u64.wrapping_sub(u64::from(len)),
        5 => 0u64.wrapping_sub(u64::from(len)).wrapping_add(1),
        6 => u64::MAX,
        7 => rng.gen(),
        _ => e
            .base_to
            .wrapping_add(rng.gen_range(0..=u64::from(e.len.saturating_sub(len)))),
    };
    let mut r = Request {
        tag: rng.gen_range(0..16),
        stag: (index as u32) << 8 | u32::from(e.key),
        to,
        len,
        pd: e.pd,
        qp: if e.qp_bound {
            e.qp
        } else {
            rng.gen_range(0..CONNECTIONS as u8)
        },
        access: [
            access::REMOTE_WRITE,
            access::REMOTE_READ,
            access::LOCAL_WRITE,
            0,
        ][rng.gen_range(0..4)],
        invalidate: rng.gen_bool(0.1),
    };
    match rng.gen_range(0..20) {
        0 => r.stag ^= 1 << rng.gen_range(0..8),
        1 => r.pd ^= 1 << rng.gen_range(0..4),
        // A QP the build has (the port is CONN_BITS wide).
        2 => r.qp ^= 1 << rng.gen_range(0..CONN_BITS),
        3 => r.access = rng.gen_range(0..16),
        // Index of 64 or more: one bit of 31..14 set.
        4 => r.stag |= 1 << rng.gen_range(14..32),
        _ => {}
    }
    r
}

/// `n` cycles of random stimulus.
fn random_cycles(seed: u64, n: usize) -> Vec<Cycle> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut cycles = vec![Cycle::default(); n];
    // What the generator believes is in the table (writes only): enough to aim requests.
    let mut shadow = [Entry::default(); STAG_ENTRIES];
    let mut last_index = 0usize;
    for t in 0..n {
        // The first cycles program most of the table.
        let p_prog = if t < 2 * STAG_ENTRIES { 0.5 } else { 0.08 };
        let prog_free = |cycles: &[Cycle], t: usize| {
            cycles[t.saturating_sub(1)..(t + 2).min(cycles.len())]
                .iter()
                .all(|c| c.prog.is_none())
        };
        if prog_free(&cycles, t) && rng.gen_bool(p_prog) {
            cycles[t].prog = Some(Prog {
                index: rng.gen_range(0..STAG_ENTRIES),
                entry: random_entry(&mut rng),
            });
        }
        // Now and then a repeated commit (the same staging registers, in the next cycle).
        if t > 0 && cycles[t].prog.is_none() && cycles.get(t + 1).is_some_and(|c| c.prog.is_none())
        {
            if let Some(p) = cycles[t - 1].prog.filter(|_| rng.gen_bool(0.15)) {
                cycles[t].prog = Some(p);
            }
        }
        if let Some(p) = cycles[t].prog {
            shadow[p.index] = p.entry;
        }
        let after_request = t > 0 && cycles[t - 1].req.is_some();
        if rng.gen_bool(if after_request { 0.1 } else { 0.8 }) {
            // Often the index of the previous request (an invalidate followed by a check).
            let index = if rng.gen_bool(0.2) {
                last_index
            } else {
                rng.gen_range(0..STAG_ENTRIES)
            };
            last_index = index;
            let r = random_request(&mut rng, index, &shadow[index]);
            cycles[t].req = Some(r);
            // Now and then a write of the same index around it: the disturbance window and
            // its edges (a write 2 cycles before or 2 or 3 cycles after no longer disturbs it).
            if rng.gen_bool(0.04) {
                let w = t + rng.gen_range(0..=5);
                if w >= 2 && w - 2 < cycles.len() && prog_free(&cycles, w - 2) {
                    let mut entry = shadow[index];
                    if rng.gen_bool(0.5) {
                        entry = random_entry(&mut rng);
                    }
                    cycles[w - 2].prog = Some(Prog { index, entry });
                }
            }
        }
    }
    cycles
}

/// Runs `cycles` (then drains) and compares every cycle's response.
fn run_and_compare(sim: &mut dyn Backend, cycles: &[Cycle], seed: u64) {
    let tb = StagCheckTb::new(sim).unwrap();
    let want = expected(cycles);
    let mut rng = StdRng::seed_from_u64(seed ^ 0x5eed);
    let mut counts = [0usize; 8];
    let mut held = tb.host_addr(sim);
    for t in 0..cycles.len() + STAG_CHECK_LATENCY + 2 {
        let c = cycles.get(t).copied().unwrap_or_default();
        tb.drive(sim, c.prog.as_ref(), c.req.as_ref(), &mut rng);
        let got = tb.response(sim);
        let exp = t
            .checked_sub(STAG_CHECK_LATENCY)
            .and_then(|i| want.get(i).copied().flatten());
        assert_eq!(
            got,
            exp,
            "cycle {t}: response to the request of cycle {:?} ({:?})",
            t.checked_sub(STAG_CHECK_LATENCY),
            t.checked_sub(STAG_CHECK_LATENCY)
                .and_then(|i| cycles.get(i))
                .and_then(|c| c.req)
        );
        if let Some(r) = got {
            counts[usize::from(r.status)] += 1;
            held = r.host_addr;
        } else {
            // Between responses the address holds (RxControl reads it there: no copy).
            assert_eq!(
                tb.host_addr(sim),
                held,
                "cycle {t}: rsp_host_addr changed without a response"
            );
        }
        sim.tick();
    }
    // The stimulus reaches every status (a test that cannot fail is a defect).
    for (status, n) in counts.iter().enumerate().take(7) {
        assert!(*n > 0, "status {status} never answered: {counts:?}");
    }
}

fn check_random(kind: BackendKind, name: &str, seed: u64, n: usize) {
    let cycles = random_cycles(seed, n);
    let (_, displaced) = expected_counted(&cycles);
    eprintln!("{name} seed {seed}: {displaced} commits displaced by a waiting clear");
    run_with_waveform_on_failure(
        name,
        || kind.build(StagCheck::default()),
        |sim: &mut dyn Backend| run_and_compare(sim, &cycles, seed),
    );
}

#[test]
fn rust_hdl_random_requests_and_programming() {
    check_random(BackendKind::RustHdl, "stag_check_random", 1, 30_000);
}

#[test]
fn verilator_random_requests_and_programming() {
    for seed in 1..=4 {
        check_random(BackendKind::Verilator, "stag_check_random", seed, 200_000);
    }
}

/// Directed: the exact timing rules of the module documentation, one at a time.
fn check_timing_rules(kind: BackendKind) {
    let entry = Entry {
        valid: true,
        key: 0x5a,
        pd: 3,
        access: access::ALL,
        qp_bound: false,
        qp: 0,
        remote_inv: true,
        base_to: 0x1000,
        len: 0x1000,
        host_addr: in_window(0x8000_0000),
    };
    let index = 9usize;
    let check = |tag: u8, key: u8| Request {
        tag,
        stag: (index as u32) << 8 | u32::from(key),
        to: 0x1800,
        len: 16,
        pd: 3,
        qp: 1,
        access: access::REMOTE_WRITE,
        invalidate: false,
    };
    let invalidate = |tag: u8| Request {
        invalidate: true,
        ..check(tag, 0x5a)
    };
    let rekeyed = Entry { key: 0xa5, ..entry };
    let ok = |tag| Some((tag, check_status::OK, in_window(0x8000_0000) + 0x800));
    let invalid = |tag| Some((tag, check_status::INVALID_STAG, 0));
    // (write, request, expected response to the request)
    type Step = (Option<Entry>, Option<Request>, Option<(u8, u8, u32)>);
    let ok_inv = |tag| Some((tag, check_status::OK, 0));
    let steps: Vec<Step> = vec![
        (Some(entry), None, None),
        (None, None, None),
        // A request two cycles after the write sees it.
        (None, Some(check(1, 0x5a)), ok(1)),
        (None, None, None),
        // A re-keying write in cycle P = 7: checks of P - 3 see the old entry, of P - 1 and
        // P + 1 are refused, of P + 3 see the new key.
        (None, Some(check(2, 0x5a)), ok(2)),
        (None, None, None),
        (None, Some(check(3, 0x5a)), invalid(3)),
        (Some(rekeyed), None, None),
        (None, Some(check(4, 0xa5)), invalid(4)),
        (None, None, None),
        (None, Some(check(5, 0xa5)), ok(5)),
        (None, None, None),
        // A write in P = 15: checks of P - 2 see the old entry, of P are refused (even if the
        // write changed nothing), of P + 2 see the new one.
        (None, None, None),
        (None, Some(check(6, 0xa5)), ok(6)),
        (None, None, None),
        (Some(entry), Some(check(7, 0x5a)), invalid(7)),
        (None, None, None),
        (None, Some(check(8, 0x5a)), ok(8)),
        (None, None, None),
        // A request cancels the request of the previous cycle: no response to check 9.
        (None, Some(check(9, 0x5a)), None),
        (None, Some(check(10, 0x5a)), ok(10)),
        (None, None, None),
        // An invalidate: the check two cycles after it (its valid bit is read in the cycle of
        // the clear) already sees the STag invalid, and a second invalidate too.
        (None, Some(invalidate(11)), ok_inv(11)),
        (None, None, None),
        (None, Some(check(12, 0x5a)), invalid(12)),
        (None, None, None),
        (None, Some(invalidate(13)), invalid(13)),
        (None, None, None),
        // Re-registered one cycle after an invalidate passed: the write wins over the clear.
        (Some(entry), None, None),
        (None, None, None),
        (None, Some(invalidate(14)), ok_inv(14)),
        (Some(entry), None, None),
        (None, None, None),
        (None, Some(check(15, 0x5a)), ok(15)),
        (None, None, None),
        // A cancelled invalidate clears nothing.
        (None, Some(invalidate(0)), None),
        (None, Some(check(1, 0x5a)), ok(1)),
        (None, None, None),
        // Re-registered two cycles after an invalidate passed (the edge of its clear): the
        // write wins.
        (None, Some(invalidate(2)), ok_inv(2)),
        (None, None, None),
        (Some(entry), None, None),
        (None, None, None),
        (None, Some(check(3, 0x5a)), ok(3)),
        // An invalidate one cycle after a write is refused.
        (None, None, None),
        (Some(entry), None, None),
        (None, Some(invalidate(4)), invalid(4)),
        (None, None, None),
        (None, Some(check(5, 0x5a)), ok(5)),
    ];
    let cycles: Vec<Cycle> = steps
        .iter()
        .map(|(e, r, _)| Cycle {
            prog: e.map(|entry| Prog { index, entry }),
            req: *r,
        })
        .collect();
    // The model agrees with the hand-written expectations ...
    let model: Vec<Option<(u8, u8, u32)>> = expected(&cycles)
        .iter()
        .map(|r| r.map(|r| (r.tag, r.status, r.host_addr)))
        .collect();
    let hand: Vec<Option<(u8, u8, u32)>> = steps.iter().map(|s| s.2).collect();
    assert_eq!(model, hand, "reference model vs the documented rules");
    // ... and the hardware with both.
    run_directed(kind, "stag_check_timing", &cycles, &hand, 3);
}

/// Drives the directed `cycles` into the hardware and checks each response against `hand`
/// (the documented rules' expectation for the request of that cycle), `STAG_CHECK_LATENCY`
/// cycles later.
fn run_directed(
    kind: BackendKind,
    name: &str,
    cycles: &[Cycle],
    hand: &[Option<(u8, u8, u32)>],
    seed: u64,
) {
    run_with_waveform_on_failure(
        name,
        || kind.build(StagCheck::default()),
        |sim: &mut dyn Backend| {
            let tb = StagCheckTb::new(sim).unwrap();
            let mut rng = StdRng::seed_from_u64(seed);
            for t in 0..cycles.len() + STAG_CHECK_LATENCY + 2 {
                let c = cycles.get(t).copied().unwrap_or_default();
                tb.drive(sim, c.prog.as_ref(), c.req.as_ref(), &mut rng);
                let got = tb.response(sim).map(|r| (r.tag, r.status, r.host_addr));
                let exp = t
                    .checked_sub(STAG_CHECK_LATENCY)
                    .and_then(|i| hand.get(i).copied().flatten());
                assert_eq!(got, exp, "cycle {t}");
                sim.tick();
            }
        },
    );
}

#[test]
fn rust_hdl_timing_rules() {
    check_timing_rules(BackendKind::RustHdl);
}

#[test]
fn verilator_timing_rules() {
    check_timing_rules(BackendKind::Verilator);
}

/// Directed: the write-port collision rules (`stag_table`, "Writes"), cycle by cycle: a
/// remote invalidation's clear against the programming of another index.
fn check_collision_rules(kind: BackendKind) {
    let entry = |key: u8| Entry {
        valid: true,
        key,
        pd: 3,
        access: access::ALL,
        qp_bound: false,
        qp: 0,
        remote_inv: true,
        base_to: 0x1000,
        len: 0x1000,
        host_addr: in_window(0x8000_0000),
    };
    let check = |tag: u8, index: usize| Request {
        tag,
        stag: (index as u32) << 8 | 0x5a,
        to: 0x1800,
        len: 16,
        pd: 3,
        qp: 1,
        access: access::REMOTE_WRITE,
        invalidate: false,
    };
    let invalidate = |tag: u8, index: usize| Request {
        invalidate: true,
        ..check(tag, index)
    };
    let w = |index: usize| {
        Some(Prog {
            index,
            entry: entry(0x5a),
        })
    };
    let ok = |tag| Some((tag, check_status::OK, in_window(0x8000_0000) + 0x800));
    let ok_inv = |tag| Some((tag, check_status::OK, 0));
    let invalid = |tag| Some((tag, check_status::INVALID_STAG, 0));
    type Step = (Option<Prog>, Option<Request>, Option<(u8, u8, u32)>);
    let mut steps: Vec<Step> = vec![
        (w(9), None, None),
        (None, None, None),
        (w(5), None, None),
        (None, None, None),
        (w(6), None, None),
        (None, None, None),
        (w(7), None, None),
        (None, None, None),
        (None, Some(check(1, 9)), ok(1)),
        (None, None, None),
        // An invalidate in T = 10: its clear is due in T + 2, when a commit of index 5 writes
        // word 1 (and word 0 in T + 3): it waits, and is written in T + 4. Checks of index 9
        // in T + 2 (the clear pending), T + 4 (written at that edge), T + 6 (in the RAM) see
        // it invalid; index 5 is programmed.
        (None, Some(invalidate(2, 9)), ok_inv(2)),
        (None, None, None),
        (w(5), Some(check(3, 9)), invalid(3)),
        (None, None, None),
        (None, Some(check(4, 9)), invalid(4)),
        (None, None, None),
        (None, Some(check(5, 9)), invalid(5)),
        (None, None, None),
        (None, Some(check(6, 5)), ok(6)),
        (None, None, None),
        // Re-registered (T = 20); an invalidate in T + 2 whose clear is due in T + 4, the
        // cycle after a commit of index 5 (its word 0): it waits; a new commit of index 6 in
        // T + 5 (2 cycles after the one of index 5) is displaced by the waiting clear and
        // programs index 6 invalid. The commit of index 7 in T + 8 is programmed.
        (w(9), None, None),
        (None, None, None),
        (None, Some(invalidate(7, 9)), ok_inv(7)),
        (w(5), None, None),
        (None, None, None),
        (w(6), Some(check(8, 9)), invalid(8)),
        (None, None, None),
        (None, Some(check(9, 6)), invalid(9)),
        (w(7), None, None),
        (None, None, None),
        (None, Some(check(10, 6)), invalid(10)),
        (None, None, None),
        (None, Some(check(11, 7)), ok(11)),
        (None, None, None),
        (None, Some(check(12, 9)), invalid(12)),
        (None, None, None),
        // Re-registered (T = 36); an invalidate in T + 2 whose clear (due in T + 4) waits
        // behind a commit of index 5 in T + 4; a commit of index 9 itself in T + 6 drops the
        // waiting clear: index 9 ends as programmed.
        (w(9), None, None),
        (None, None, None),
        (None, Some(invalidate(13, 9)), ok_inv(13)),
        (None, None, None),
        (w(5), None, None),
        (None, Some(check(14, 9)), invalid(14)),
        (w(9), None, None),
        (None, None, None),
        (None, Some(check(15, 9)), ok(15)),
        (None, None, None),
        // A repeated commit (T = 46, 47) writes nothing more: an invalidate's clear due in
        // T + 3 (the second commit's cycle, the first one's word 0) waits one cycle; index 6
        // is programmed, index 9 cleared.
        (w(6), None, None),
        (w(6), Some(invalidate(0, 9)), ok_inv(0)),
        (None, None, None),
        (None, Some(check(1, 9)), invalid(1)),
        (None, None, None),
        (None, Some(check(2, 6)), ok(2)),
        (None, None, None),
        (None, Some(check(3, 9)), invalid(3)),
    ];
    steps.extend([(None, None, None), (None, None, None)]);
    let cycles: Vec<Cycle> = steps
        .iter()
        .map(|(p, r, _)| Cycle { prog: *p, req: *r })
        .collect();
    let (model, displaced) = expected_counted(&cycles);
    let model: Vec<Option<(u8, u8, u32)>> = model
        .iter()
        .map(|r| r.map(|r| (r.tag, r.status, r.host_addr)))
        .collect();
    let hand: Vec<Option<(u8, u8, u32)>> = steps.iter().map(|s| s.2).collect();
    assert_eq!(model, hand, "reference model vs the documented rules");
    assert_eq!(displaced, 1, "one displaced commit");
    run_directed(kind, "stag_check_collision", &cycles, &hand, 5);
}

#[test]
fn rust_hdl_collision_rules() {
    check_collision_rules(BackendKind::RustHdl);
}

#[test]
fn verilator_collision_rules() {
    check_collision_rules(BackendKind::Verilator);
}
