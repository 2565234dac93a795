//! Resource manager: STag keys unpredictable and never repeated back to back for an index
//! (RFC 5040 §8.1 item 8), PD / CQ / QP limits with typed errors.

use rnic_firmware::resources::{ResourceError, Resources, XorShift64, CQS, PDS, QPS, STAG_ENTRIES};
use rnic_proto::verbs::{stag_index, stag_key};
use std::collections::HashSet;

#[test]
fn stags_fill_the_table_then_fail() {
    let mut r = Resources::new(42);
    let pd = r.alloc_pd().unwrap();
    let mut indexes = HashSet::new();
    for _ in 0..STAG_ENTRIES {
        let s = r.alloc_stag(pd).unwrap();
        assert_ne!(s, 0, "STag 0 is never handed out");
        assert!(stag_index(s) < STAG_ENTRIES as u32);
        assert!(indexes.insert(stag_index(s)));
        assert_eq!(r.stag_pd(s), Ok(pd));
    }
    assert_eq!(r.alloc_stag(pd), Err(ResourceError::NoStag));
    assert_eq!(r.stags_in_use(), STAG_ENTRIES as u32);
}

#[test]
fn key_never_repeats_for_an_index() {
    for seed in [1u64, 2, 3, 0, u64::MAX] {
        let mut r = Resources::new(seed);
        let pd = r.alloc_pd().unwrap();
        let mut stag = r.alloc_stag(pd).unwrap();
        let mut keys = HashSet::new();
        for _ in 0..5000 {
            let next = r.rekey_stag(stag).unwrap();
            assert_eq!(stag_index(next), stag_index(stag));
            assert_ne!(stag_key(next), stag_key(stag));
            // The old STag no longer matches.
            assert_eq!(r.stag_pd(stag), Err(ResourceError::InvalidStag(stag)));
            keys.insert(stag_key(next));
            stag = next;
        }
        // Spread: nearly every key value shows up.
        assert!(keys.len() > 250, "{}", keys.len());
        // Free and allocate again: the same index never gets its previous key.
        let mut r = Resources::new(seed);
        let pd = r.alloc_pd().unwrap();
        let mut last = [None; STAG_ENTRIES];
        for _ in 0..3000 {
            let s = r.alloc_stag(pd).unwrap();
            let i = stag_index(s) as usize;
            assert_ne!(last[i], Some(stag_key(s)));
            last[i] = Some(stag_key(s));
            r.free_stag(s).unwrap();
            assert_eq!(r.free_stag(s), Err(ResourceError::InvalidStag(s)));
        }
    }
}

#[test]
fn different_seeds_give_different_stags() {
    let seq = |seed| {
        let mut r = Resources::new(seed);
        let pd = r.alloc_pd().unwrap();
        (0..16)
            .map(|_| r.alloc_stag(pd).unwrap())
            .collect::<Vec<_>>()
    };
    assert_ne!(seq(1), seq(2));
    assert_eq!(seq(7), seq(7));
    let mut g = XorShift64::new(0);
    assert_ne!(g.next_u64(), 0);
}

#[test]
fn forged_stags_are_refused() {
    let mut r = Resources::new(9);
    let pd = r.alloc_pd().unwrap();
    let s = r.alloc_stag(pd).unwrap();
    let forged = s ^ 0x01;
    assert_eq!(r.free_stag(forged), Err(ResourceError::InvalidStag(forged)));
    assert_eq!(
        r.free_stag(0xFFFF_FF00),
        Err(ResourceError::InvalidStag(0xFFFF_FF00))
    );
    assert_eq!(r.alloc_stag(15), Err(ResourceError::InvalidHandle(15)));
}

#[test]
fn pd_cq_qp_limits() {
    let mut r = Resources::new(5);
    let pds: Vec<u8> = (0..PDS).map(|_| r.alloc_pd().unwrap()).collect();
    assert_eq!(r.alloc_pd(), Err(ResourceError::NoPd));
    let cqs: Vec<u8> = (0..CQS).map(|_| r.alloc_cq().unwrap()).collect();
    assert_eq!(r.alloc_cq(), Err(ResourceError::NoCq));
    let qps: Vec<u8> = (0..QPS).map(|_| r.alloc_qp(pds[1]).unwrap()).collect();
    assert_eq!(r.alloc_qp(pds[1]), Err(ResourceError::NoQp));
    // A PD in use by QPs or STags cannot be freed.
    assert_eq!(r.free_pd(pds[1]), Err(ResourceError::PdInUse(pds[1])));
    let s = r.alloc_stag(pds[2]).unwrap();
    assert_eq!(r.free_pd(pds[2]), Err(ResourceError::PdInUse(pds[2])));
    r.free_stag(s).unwrap();
    r.free_pd(pds[2]).unwrap();
    assert_eq!(r.free_pd(pds[2]), Err(ResourceError::InvalidHandle(pds[2])));
    for q in qps {
        r.free_qp(q).unwrap();
    }
    r.free_pd(pds[1]).unwrap();
    assert_eq!(r.free_qp(0), Err(ResourceError::InvalidHandle(0)));
    assert_eq!(r.free_cq(99), Err(ResourceError::InvalidHandle(99)));
    r.free_cq(cqs[3]).unwrap();
    assert_eq!(r.alloc_cq(), Ok(cqs[3]));
    assert_eq!(r.alloc_pd(), Ok(pds[1]));
}

/// A 2-QP core (CAPS \[7:0\] = 2, the `two-qps` build): QPs 0 and 1, then `NoQp`; freeing one
/// makes room for it again.
#[test]
fn qp_count_from_caps() {
    let caps = 0x0406_0002;
    let n = rnic_firmware::device::caps_qps(caps);
    assert_eq!(n, 2);
    let mut r = Resources::with_qps(9, n);
    let pd = r.alloc_pd().unwrap();
    assert_eq!(r.alloc_qp(pd), Ok(0));
    assert_eq!(r.alloc_qp(pd), Ok(1));
    assert_eq!(r.alloc_qp(pd), Err(ResourceError::NoQp));
    r.free_qp(0).unwrap();
    assert_eq!(r.alloc_qp(pd), Ok(0));
    // More than the register map holds is capped.
    let mut r = Resources::with_qps(9, 200);
    let pd = r.alloc_pd().unwrap();
    assert_eq!((0..QPS).filter(|_| r.alloc_qp(pd).is_ok()).count(), QPS);
    assert_eq!(r.alloc_qp(pd), Err(ResourceError::NoQp));
}
