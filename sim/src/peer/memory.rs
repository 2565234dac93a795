//! The peer's byte-addressed memory and its STag table (`rfc5040-rdmap.md` §6.1, §7.2).
//!
//! A region is registered over `[addr, addr + len)` of the memory; its Tagged Offsets are
//! the memory addresses themselves (VA-based TOs), so a TO names the byte it places or reads.
//! STags follow `rnic_proto::verbs`: index in the upper 24 bits, key in the low 8.

use std::collections::BTreeMap;

use rnic_proto::verbs::{make_stag, stag_index, stag_key};

/// One registered memory region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    /// Its STag (index and key).
    pub stag: u32,
    /// First byte (and first legal TO).
    pub addr: u64,
    /// Length in bytes.
    pub len: u64,
    /// `rnic_proto::verbs::access` bits.
    pub access: u8,
    /// Protection domain; an STag of another PD is "not associated" with this stream.
    pub pd: u32,
    /// The peer may invalidate it with a Send with Invalidate.
    pub remote_inv: bool,
    /// Still valid (not invalidated).
    pub valid: bool,
}

/// Why an STag check failed, in the order the checks are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StagError {
    /// No region with this index, wrong key, or invalidated.
    Invalid,
    /// The region belongs to another protection domain.
    NotAssociated,
    /// The region lacks the access right the operation needs.
    Access,
    /// TO + length wraps 2^64.
    Wrap,
    /// The range is not inside the region.
    Bounds,
}

/// Why a remote invalidation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvalidateError {
    /// No such valid STag (index, key, valid bit).
    NotFound,
    /// The STag is of another PD or was not registered for remote invalidation.
    NotAllowed,
}

/// Memory plus STag table.
#[derive(Debug, Clone)]
pub struct Memory {
    bytes: Vec<u8>,
    regions: BTreeMap<u32, Region>,
    next_index: u32,
}

impl Memory {
    /// `size` bytes of zeroed memory, no regions.
    pub fn new(size: usize) -> Self {
        Memory {
            bytes: vec![0; size],
            regions: BTreeMap::new(),
            next_index: 1,
        }
    }

    /// All of it.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// All of it, mutably.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.bytes
    }

    /// `len` bytes at `addr`, if inside the memory.
    pub fn read(&self, addr: u64, len: u64) -> Option<&[u8]> {
        let start = usize::try_from(addr).ok()?;
        let end = start.checked_add(usize::try_from(len).ok()?)?;
        self.bytes.get(start..end)
    }

    /// Writes `data` at `addr`; `false` (and nothing written) if outside the memory.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> bool {
        let Ok(start) = usize::try_from(addr) else {
            return false;
        };
        match self.bytes.get_mut(start..start.saturating_add(data.len())) {
            Some(dst) if start.checked_add(data.len()).is_some() => {
                dst.copy_from_slice(data);
                true
            }
            _ => false,
        }
    }

    /// Whether `[addr, addr + len)` lies inside the memory.
    pub fn contains(&self, addr: u64, len: u64) -> bool {
        self.read(addr, len).is_some()
    }

    /// Registers a region with a fresh STag (index counts up from 1, key derived from it).
    /// `None` if the range is not inside the memory.
    pub fn register(
        &mut self,
        addr: u64,
        len: u64,
        access: u8,
        pd: u32,
        remote_inv: bool,
    ) -> Option<u32> {
        let index = self.next_index;
        let key = (index.wrapping_mul(0x9D) ^ 0x5A) as u8;
        let stag = make_stag(index, key);
        self.register_stag(stag, addr, len, access, pd, remote_inv)?;
        Some(stag)
    }

    /// Registers a region under a given STag (replacing any region of that index).
    pub fn register_stag(
        &mut self,
        stag: u32,
        addr: u64,
        len: u64,
        access: u8,
        pd: u32,
        remote_inv: bool,
    ) -> Option<u32> {
        if !self.contains(addr, len) {
            return None;
        }
        let index = stag_index(stag);
        self.next_index = self.next_index.max(index + 1);
        self.regions.insert(
            index,
            Region {
                stag,
                addr,
                len,
                access,
                pd,
                remote_inv,
                valid: true,
            },
        );
        Some(stag)
    }

    /// The valid region this STag names (index and key match).
    pub fn region(&self, stag: u32) -> Option<&Region> {
        self.regions
            .get(&stag_index(stag))
            .filter(|r| r.valid && stag_key(r.stag) == stag_key(stag))
    }

    /// Local invalidation; `false` if the STag names no valid region.
    pub fn invalidate(&mut self, stag: u32) -> bool {
        match self.regions.get_mut(&stag_index(stag)) {
            Some(r) if r.valid && r.stag == stag => {
                r.valid = false;
                true
            }
            _ => false,
        }
    }

    /// Checks an access of `len` bytes at `to` needing `need` rights, from a stream of `pd`.
    /// Order: valid STag, PD, rights, wrap, bounds (`rfc5040-rdmap.md` §5.4: the wrap is tested
    /// before the range so a wrapped sum is never range-compared).
    pub fn check(
        &self,
        stag: u32,
        to: u64,
        len: u64,
        need: u8,
        pd: u32,
    ) -> Result<Region, StagError> {
        let r = *self.region(stag).ok_or(StagError::Invalid)?;
        if r.pd != pd {
            return Err(StagError::NotAssociated);
        }
        if r.access & need != need {
            return Err(StagError::Access);
        }
        let end = to.checked_add(len).ok_or(StagError::Wrap)?;
        if to < r.addr || end > r.addr + r.len {
            return Err(StagError::Bounds);
        }
        Ok(r)
    }

    /// Invalidation requested by the remote peer (Send with Invalidate, §6.1 item 7).
    pub fn remote_invalidate(&mut self, stag: u32, pd: u32) -> Result<(), InvalidateError> {
        let r = *self.region(stag).ok_or(InvalidateError::NotFound)?;
        if r.pd != pd || !r.remote_inv {
            return Err(InvalidateError::NotAllowed);
        }
        self.invalidate(stag);
        Ok(())
    }
}
