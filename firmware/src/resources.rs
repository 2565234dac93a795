//! The resource manager of the privileged resource manager (RFC 5040 §8.1.2): STags, protection
//! domains, completion queues and QPs, each with a fixed limit and typed errors.
//! Catalog: `rfc5040-rdmap.md` §6.1 item 8 (unpredictable STags), §6.2 (PRM controls scarce
//! resources), §7.2 (per-STag state).
//!
//! STag = index << 8 | key (`rnic_proto::verbs::make_stag`). The index is a free entry of the
//! 64-entry table chosen at random (not the lowest one), the key is drawn from a seeded
//! xorshift64* generator and is never the previous key of that index, so a stale STag of an
//! entry never matches the entry's new registration (RFC 5040 §8.1 item 8; DESIGN.md). STag 0
//! is never handed out (some peers treat it as special).

use rnic_proto::verbs::{make_stag, stag_index, stag_key};

/// Entries of the core's STag table.
pub const STAG_ENTRIES: usize = 64;
/// Protection domains (`QP_CTRL[11:8]`, `STAG_FLAGS[11:8]`: 4 bits).
pub const PDS: usize = 16;
/// Completion queues of the core.
pub const CQS: usize = rnic_proto::host::CQS;
/// QP register windows of the register map (`QP_REGS` .. `CQ_REGS`): the most QPs a core has.
/// A core reports its own count in CAPS \[7:0\] ([`crate::device::caps_qps`]: 4, or 2 when
/// built with `two-qps`); [`Resources::with_qps`] hands out only those.
pub const QPS: usize = rnic_proto::host::QP_WINDOWS;

/// Why an allocation or a release failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceError {
    /// All 64 STag entries are in use.
    NoStag,
    /// All 16 protection domains are in use.
    NoPd,
    /// All CQs are in use.
    NoCq,
    /// All QPs are in use.
    NoQp,
    /// The STag is not allocated, or its key is not the current one.
    InvalidStag(u32),
    /// The handle is not allocated (or out of range).
    InvalidHandle(u8),
    /// The PD still has STags or QPs.
    PdInUse(u8),
}

/// A seeded xorshift64* generator: small, fast, no `unsafe`, never stuck at 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XorShift64 {
    state: u64,
}

impl XorShift64 {
    /// A generator from `seed` (0 is replaced by a fixed non-zero constant).
    pub const fn new(seed: u64) -> Self {
        XorShift64 {
            state: if seed == 0 {
                0x9E37_79B9_7F4A_7C15
            } else {
                seed
            },
        }
    }

    /// The next 64-bit value.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// The next 8-bit value (the top bits, the best of xorshift64*).
    pub fn next_u8(&mut self) -> u8 {
        (self.next_u64() >> 56) as u8
    }
}

/// A bitmap allocator of up to 64 handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pool {
    used: u64,
    size: u8,
}

impl Pool {
    const fn new(size: usize) -> Self {
        Pool {
            used: 0,
            size: size as u8,
        }
    }

    fn is_used(&self, i: u8) -> bool {
        i < self.size && self.used & (1 << i) != 0
    }

    /// The first free handle at or after `start` (wrapping).
    fn alloc_from(&mut self, start: u8) -> Option<u8> {
        (0..self.size)
            .map(|k| (start % self.size + k) % self.size)
            .find(|&i| !self.is_used(i))
            .inspect(|&i| self.used |= 1 << i)
    }

    fn free(&mut self, i: u8) -> bool {
        if self.is_used(i) {
            self.used &= !(1 << i);
            true
        } else {
            false
        }
    }

    fn count(&self) -> u32 {
        self.used.count_ones()
    }
}

/// One registered STag's owner data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct StagSlot {
    key: u8,
    pd: u8,
}

/// STags, PDs, CQs and QPs.
#[derive(Debug, Clone)]
pub struct Resources {
    rng: XorShift64,
    stags: Pool,
    slots: [StagSlot; STAG_ENTRIES],
    /// The key an index had last (also after its release), so the next differs.
    last_key: [Option<u8>; STAG_ENTRIES],
    pds: Pool,
    cqs: Pool,
    qps: Pool,
    qp_pd: [u8; QPS],
}

impl Resources {
    /// An empty manager whose key generator starts from `seed` (take it from an entropy
    /// source, e.g. a free-running counter sampled at an external event).
    pub fn new(seed: u64) -> Self {
        Self::with_qps(seed, QPS)
    }

    /// As [`Resources::new`] for a core of `qps` QPs (CAPS \[7:0\], at most [`QPS`]): QPs
    /// `0..qps` are handed out, the next allocation is [`ResourceError::NoQp`].
    pub fn with_qps(seed: u64, qps: usize) -> Self {
        Resources {
            rng: XorShift64::new(seed),
            stags: Pool::new(STAG_ENTRIES),
            slots: [StagSlot::default(); STAG_ENTRIES],
            last_key: [None; STAG_ENTRIES],
            pds: Pool::new(PDS),
            cqs: Pool::new(CQS),
            qps: Pool::new(if qps < QPS { qps } else { QPS }),
            qp_pd: [0; QPS],
        }
    }

    /// A new key for `index`: random, not its previous key, and not making STag 0.
    fn new_key(&mut self, index: u8) -> u8 {
        let prev = self.last_key[usize::from(index)];
        let bad = |k: u8| Some(k) == prev || (index == 0 && k == 0);
        let mut key = self.rng.next_u8();
        let mut tries = 0;
        // At most two values are forbidden: a few more draws, then a bounded walk.
        while bad(key) {
            key = if tries < 8 {
                self.rng.next_u8()
            } else {
                key.wrapping_add(1)
            };
            tries += 1;
        }
        self.last_key[usize::from(index)] = Some(key);
        key
    }

    /// Allocates an STag in `pd` with a fresh unpredictable key.
    pub fn alloc_stag(&mut self, pd: u8) -> Result<u32, ResourceError> {
        if !self.pds.is_used(pd) {
            return Err(ResourceError::InvalidHandle(pd));
        }
        let start = self.rng.next_u8();
        let index = self.stags.alloc_from(start).ok_or(ResourceError::NoStag)?;
        let key = self.new_key(index);
        self.slots[usize::from(index)] = StagSlot { key, pd };
        Ok(make_stag(u32::from(index), key))
    }

    /// Re-registers an allocated STag: same entry, new key; the old STag stops matching.
    pub fn rekey_stag(&mut self, stag: u32) -> Result<u32, ResourceError> {
        let index = self.check_stag(stag)?;
        let key = self.new_key(index);
        self.slots[usize::from(index)].key = key;
        Ok(make_stag(u32::from(index), key))
    }

    /// Releases an STag (its key must be the current one).
    pub fn free_stag(&mut self, stag: u32) -> Result<(), ResourceError> {
        let index = self.check_stag(stag)?;
        self.stags.free(index);
        Ok(())
    }

    /// The PD of an allocated STag.
    pub fn stag_pd(&self, stag: u32) -> Result<u8, ResourceError> {
        let index = self.check_stag(stag)?;
        Ok(self.slots[usize::from(index)].pd)
    }

    fn check_stag(&self, stag: u32) -> Result<u8, ResourceError> {
        let index = stag_index(stag);
        match u8::try_from(index) {
            Ok(i) if self.stags.is_used(i) && self.slots[usize::from(i)].key == stag_key(stag) => {
                Ok(i)
            }
            _ => Err(ResourceError::InvalidStag(stag)),
        }
    }

    /// STags in use.
    pub fn stags_in_use(&self) -> u32 {
        self.stags.count()
    }

    /// Allocates a protection domain.
    pub fn alloc_pd(&mut self) -> Result<u8, ResourceError> {
        self.pds.alloc_from(0).ok_or(ResourceError::NoPd)
    }

    /// Releases a protection domain that no STag or QP uses.
    pub fn free_pd(&mut self, pd: u8) -> Result<(), ResourceError> {
        if !self.pds.is_used(pd) {
            return Err(ResourceError::InvalidHandle(pd));
        }
        let stag_uses = (0..STAG_ENTRIES as u8)
            .any(|i| self.stags.is_used(i) && self.slots[usize::from(i)].pd == pd);
        let qp_uses =
            (0..QPS as u8).any(|q| self.qps.is_used(q) && self.qp_pd[usize::from(q)] == pd);
        if stag_uses || qp_uses {
            return Err(ResourceError::PdInUse(pd));
        }
        self.pds.free(pd);
        Ok(())
    }

    /// Allocates a completion queue.
    pub fn alloc_cq(&mut self) -> Result<u8, ResourceError> {
        self.cqs.alloc_from(0).ok_or(ResourceError::NoCq)
    }

    /// Releases a completion queue.
    pub fn free_cq(&mut self, cq: u8) -> Result<(), ResourceError> {
        if self.cqs.free(cq) {
            Ok(())
        } else {
            Err(ResourceError::InvalidHandle(cq))
        }
    }

    /// Allocates a QP in `pd`.
    pub fn alloc_qp(&mut self, pd: u8) -> Result<u8, ResourceError> {
        if !self.pds.is_used(pd) {
            return Err(ResourceError::InvalidHandle(pd));
        }
        let qp = self.qps.alloc_from(0).ok_or(ResourceError::NoQp)?;
        self.qp_pd[usize::from(qp)] = pd;
        Ok(qp)
    }

    /// Releases a QP.
    pub fn free_qp(&mut self, qp: u8) -> Result<(), ResourceError> {
        if self.qps.free(qp) {
            Ok(())
        } else {
            Err(ResourceError::InvalidHandle(qp))
        }
    }
}
