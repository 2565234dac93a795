//! Host memory, the DMA write sink of the receive path, and the memory-protection monitor.
//!
//! [`HostMemory`] is byte-addressed, sparse, 32-bit addressed; bytes never written read as 0.
//! The core drives [`DMA_ADDR_BITS`] of a host address (24 in the Alchitry Cu profile, the
//! `two-qps` feature: a 16 MiB window; 32 otherwise), so the testbenches draw host addresses
//! inside [`DMA_ADDR_MASK`]. The hardware's posted writes arrive as beats
//! ([`HostMemory::dma_write_beat`], the `dma_wr_*` port of `hdl/src/ddp/mod.rs`): `addr` is the
//! host address of lane 0 (a multiple of 4), byte 0 of `data` in the most significant lane,
//! `keep` one bit per lane with the MSB for lane 0, `last` ending one posted write request.
//!
//! The **protection monitor** (`rfc5040-rdmap.md` §6.1: the RNIC must never touch memory the
//! STag checks did not grant) knows the registered regions ([`Region`], kept up to date by the
//! testbench when one is invalidated) and the PDs of the enabled QPs. Every byte the hardware
//! writes must lie in a valid region that grants LOCAL_WRITE or REMOTE_WRITE and belongs to the
//! PD of an enabled QP; every byte it reads ([`HostMemory::check_read`], for the read
//! responder) in one granting LOCAL_READ or REMOTE_READ. A violation is recorded with its
//! address and reason; [`HostMemory::assert_no_violations`] fails the test listing them.
//! Protection is checked per byte against the union of regions, because several STags may map
//! the same memory.

use rnic_proto::verbs::access;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

pub use rnic_hdl::config::DMA_ADDR_BITS;

/// The host addresses the core reaches: `(1 << DMA_ADDR_BITS) - 1`.
pub const DMA_ADDR_MASK: u32 = ((1u64 << DMA_ADDR_BITS) - 1) as u32;

/// A testbench's host address scaled into the core's window: `a >> (32 - DMA_ADDR_BITS)`
/// (`0x1000_0000` is `0x0010_0000` at 24 bits), `a` itself at 32 bits.
pub const fn in_window(a: u32) -> u32 {
    a >> (32 - DMA_ADDR_BITS)
}

/// Bytes per page of the sparse store.
const PAGE: u32 = 4096;

/// A registered memory region as the monitor sees it (host side of an STag table entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// Host address of the first byte.
    pub host_addr: u32,
    /// Length in bytes.
    pub len: u32,
    /// Protection domain.
    pub pd: u8,
    /// Access rights ([`rnic_proto::verbs::access`] bits).
    pub access: u8,
    /// Cleared when the region's STag is invalidated.
    pub valid: bool,
}

impl Region {
    fn contains(&self, addr: u32) -> bool {
        let a = u64::from(addr);
        let base = u64::from(self.host_addr);
        a >= base && a < base + u64::from(self.len)
    }
}

/// Direction of a checked access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// A DMA write (placement).
    Write,
    /// A DMA read (read responder).
    Read,
}

/// One protection or protocol violation seen by the monitor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Host address of the offending byte (or of the beat, for a beat-format violation).
    pub addr: u32,
    /// Write or read.
    pub kind: AccessKind,
    /// Why it is a violation.
    pub reason: String,
    /// Cycle stamp given by the caller.
    pub cycle: u64,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cycle {}: {:?} at {:#010x}: {}",
            self.cycle, self.kind, self.addr, self.reason
        )
    }
}

/// One accepted DMA write beat, as logged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteBeat {
    /// Host address of lane 0.
    pub addr: u32,
    /// Data, byte 0 in the most significant lane.
    pub data: u32,
    /// Lanes written, MSB = lane 0.
    pub keep: u8,
    /// Ends a posted write request.
    pub last: bool,
    /// Cycle stamp given by the caller.
    pub cycle: u64,
}

impl WriteBeat {
    /// The (address, byte) pairs this beat writes.
    pub fn bytes(&self) -> Vec<(u32, u8)> {
        (0..4u32)
            .filter(|lane| self.keep >> (3 - lane) & 1 == 1)
            .map(|lane| {
                (
                    self.addr.wrapping_add(lane),
                    (self.data >> (8 * (3 - lane))) as u8,
                )
            })
            .collect()
    }
}

/// Host memory the device may read or write outside every registered region: the descriptor
/// rings a driver hands it (SQ and RQ rings: read; CQ rings: write).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceRange {
    /// Host address of the first byte.
    pub addr: u32,
    /// Length in bytes.
    pub len: u32,
    /// The device may read it.
    pub read: bool,
    /// The device may write it.
    pub write: bool,
}

/// Sparse host memory with the protection monitor and the DMA write log.
#[derive(Clone, Debug, Default)]
pub struct HostMemory {
    pages: HashMap<u32, Box<[u8]>>,
    /// Registered regions by id (the testbench uses the STag table index).
    regions: BTreeMap<u32, Region>,
    /// PD of each enabled QP (`None`: QP disabled).
    qp_pds: Vec<Option<u8>>,
    /// Memory the device may touch outside every region (descriptor rings).
    device: Vec<DeviceRange>,
    violations: Vec<Violation>,
    log: Vec<WriteBeat>,
    write_requests: u64,
}

impl HostMemory {
    /// Empty memory (all zeros), no regions, no enabled QP.
    pub fn new() -> Self {
        HostMemory::default()
    }

    /// Reads `len` bytes at `addr` (addresses wrap at 2^32), unchecked.
    pub fn read(&self, addr: u32, len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| self.byte(addr.wrapping_add(i as u32)))
            .collect()
    }

    /// One byte, unchecked.
    pub fn byte(&self, addr: u32) -> u8 {
        self.pages
            .get(&(addr / PAGE))
            .map_or(0, |p| p[(addr % PAGE) as usize])
    }

    /// Writes bytes at `addr`, unchecked (test setup, the model's expected image).
    pub fn write(&mut self, addr: u32, bytes: &[u8]) {
        for (i, &b) in bytes.iter().enumerate() {
            let a = addr.wrapping_add(i as u32);
            let page = self
                .pages
                .entry(a / PAGE)
                .or_insert_with(|| vec![0u8; PAGE as usize].into_boxed_slice());
            page[(a % PAGE) as usize] = b;
        }
    }

    /// Registers (or replaces) region `id`.
    pub fn set_region(&mut self, id: u32, region: Region) {
        self.regions.insert(id, region);
    }

    /// Lets the device read (`read`) and / or write (`write`) `len` bytes at `addr` outside
    /// every region: a descriptor ring the driver handed it.
    pub fn allow_device(&mut self, addr: u32, len: u32, read: bool, write: bool) {
        self.device.push(DeviceRange {
            addr,
            len,
            read,
            write,
        });
    }

    /// Marks region `id` invalid (its STag was invalidated); unknown ids are ignored.
    pub fn invalidate_region(&mut self, id: u32) {
        if let Some(r) = self.regions.get_mut(&id) {
            r.valid = false;
        }
    }

    /// The registered regions by id.
    pub fn regions(&self) -> &BTreeMap<u32, Region> {
        &self.regions
    }

    /// Sets the PD of QP `qp`, `None` when the QP is disabled.
    pub fn set_qp_pd(&mut self, qp: usize, pd: Option<u8>) {
        if self.qp_pds.len() <= qp {
            self.qp_pds.resize(qp + 1, None);
        }
        self.qp_pds[qp] = pd;
    }

    /// Why an access of `kind` to the byte at `addr` is not allowed, or `None` if it is.
    pub fn why_denied(&self, addr: u32, kind: AccessKind) -> Option<String> {
        let a = u64::from(addr);
        if self.device.iter().any(|d| {
            a >= u64::from(d.addr)
                && a < u64::from(d.addr) + u64::from(d.len)
                && match kind {
                    AccessKind::Write => d.write,
                    AccessKind::Read => d.read,
                }
        }) {
            return None;
        }
        let rights = match kind {
            AccessKind::Write => access::LOCAL_WRITE | access::REMOTE_WRITE,
            AccessKind::Read => access::LOCAL_READ | access::REMOTE_READ,
        };
        let mut reason = None;
        for (id, r) in self.regions.iter().filter(|(_, r)| r.contains(addr)) {
            let why = if !r.valid {
                format!("region {id} is invalid (invalidated or never valid)")
            } else if r.access & rights == 0 {
                format!(
                    "region {id} (access {:#x}) grants no {kind:?} right",
                    r.access
                )
            } else if !self.qp_pds.contains(&Some(r.pd)) {
                format!("region {id} belongs to PD {} of no enabled QP", r.pd)
            } else {
                return None;
            };
            reason.get_or_insert(why);
        }
        Some(reason.unwrap_or_else(|| "outside every registered region".to_string()))
    }

    /// Checks a read of `len` bytes at `addr` (read responder), recording violations.
    /// Returns whether every byte was allowed.
    pub fn check_read(&mut self, addr: u32, len: usize, cycle: u64) -> bool {
        let mut ok = true;
        for i in 0..len {
            let a = addr.wrapping_add(i as u32);
            if let Some(reason) = self.why_denied(a, AccessKind::Read) {
                ok = false;
                self.violations.push(Violation {
                    addr: a,
                    kind: AccessKind::Read,
                    reason,
                    cycle,
                });
            }
        }
        ok
    }

    /// Accepts one DMA write beat from the hardware: checks the beat format (4-aligned
    /// address, contiguous keep) and every written byte against the regions, records
    /// violations, writes the bytes (the memory shows what the hardware did, allowed or not)
    /// and logs the beat.
    pub fn dma_write_beat(&mut self, addr: u32, data: u32, keep: u8, last: bool, cycle: u64) {
        let beat = WriteBeat {
            addr,
            data,
            keep: keep & 0xF,
            last,
            cycle,
        };
        if !addr.is_multiple_of(4) {
            self.violations.push(Violation {
                addr,
                kind: AccessKind::Write,
                reason: "dma_wr_addr not a multiple of 4".to_string(),
                cycle,
            });
        }
        if !keep_contiguous(beat.keep) {
            self.violations.push(Violation {
                addr,
                kind: AccessKind::Write,
                reason: format!("dma_wr_keep {:#06b} not contiguous", beat.keep),
                cycle,
            });
        }
        for (a, b) in beat.bytes() {
            if let Some(reason) = self.why_denied(a, AccessKind::Write) {
                self.violations.push(Violation {
                    addr: a,
                    kind: AccessKind::Write,
                    reason,
                    cycle,
                });
            }
            self.write(a, &[b]);
        }
        if last {
            self.write_requests += 1;
        }
        self.log.push(beat);
    }

    /// Every accepted DMA write beat, in order.
    pub fn write_log(&self) -> &[WriteBeat] {
        &self.log
    }

    /// Posted write requests ended (`dma_wr_last` beats).
    pub fn write_requests(&self) -> u64 {
        self.write_requests
    }

    /// The violations recorded so far.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// Panics listing every violation, if any.
    pub fn assert_no_violations(&self) {
        if self.violations.is_empty() {
            return;
        }
        let list: Vec<String> = self
            .violations
            .iter()
            .take(50)
            .map(|v| format!("  {v}"))
            .collect();
        panic!(
            "memory-protection monitor: {} violation(s):\n{}{}",
            self.violations.len(),
            list.join("\n"),
            if self.violations.len() > 50 {
                "\n  ..."
            } else {
                ""
            }
        );
    }

    /// Every address written by the hardware (from the log), sorted, deduplicated.
    pub fn written_addresses(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .log
            .iter()
            .flat_map(|b| b.bytes().into_iter().map(|(a, _)| a))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// `keep` (4 lanes, MSB = lane 0) is one run of ones, or empty.
pub fn keep_contiguous(keep: u8) -> bool {
    let k = keep & 0xF;
    if k == 0 {
        return true;
    }
    let shifted = k >> k.trailing_zeros();
    shifted & (shifted + 1) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(host_addr: u32, len: u32, pd: u8, access: u8) -> Region {
        Region {
            host_addr,
            len,
            pd,
            access,
            valid: true,
        }
    }

    #[test]
    fn sparse_read_write() {
        let mut m = HostMemory::new();
        assert_eq!(m.read(0x1234, 3), [0, 0, 0]);
        m.write(PAGE - 2, &[1, 2, 3, 4]);
        assert_eq!(m.read(PAGE - 3, 6), [0, 1, 2, 3, 4, 0]);
        m.write(u32::MAX, &[9, 8]);
        assert_eq!(m.read(u32::MAX, 2), [9, 8]);
    }

    #[test]
    fn beat_lanes_are_msb_first() {
        let mut m = HostMemory::new();
        m.set_region(0, region(0x100, 16, 1, access::REMOTE_WRITE));
        m.set_qp_pd(0, Some(1));
        m.dma_write_beat(0x104, 0xAABB_CCDD, 0b0011, true, 7);
        assert_eq!(m.read(0x104, 4), [0, 0, 0xCC, 0xDD]);
        assert!(m.violations().is_empty());
        assert_eq!(m.write_requests(), 1);
        assert_eq!(m.written_addresses(), [0x106, 0x107]);
    }

    #[test]
    fn monitor_reasons() {
        let mut m = HostMemory::new();
        m.set_region(0, region(0x100, 8, 1, access::REMOTE_WRITE));
        m.set_region(1, region(0x200, 8, 1, access::REMOTE_READ));
        m.set_region(2, region(0x300, 8, 2, access::LOCAL_WRITE));
        m.set_qp_pd(0, Some(1));
        assert_eq!(m.why_denied(0x107, AccessKind::Write), None);
        assert!(m
            .why_denied(0x108, AccessKind::Write)
            .unwrap()
            .contains("outside"));
        assert!(m
            .why_denied(0x200, AccessKind::Write)
            .unwrap()
            .contains("right"));
        assert_eq!(m.why_denied(0x200, AccessKind::Read), None);
        assert!(m
            .why_denied(0x300, AccessKind::Write)
            .unwrap()
            .contains("PD 2"));
        m.set_qp_pd(3, Some(2));
        assert_eq!(m.why_denied(0x300, AccessKind::Write), None);
        m.invalidate_region(2);
        assert!(m
            .why_denied(0x300, AccessKind::Write)
            .unwrap()
            .contains("invalid"));
        m.dma_write_beat(0x2FC, 0x0102_0304, 0b0011, false, 3);
        m.dma_write_beat(0x300, 0x0102_0304, 0b1100, false, 3);
        // 0x2FE, 0x2FF: outside; 0x300, 0x301: invalid region.
        assert_eq!(m.violations().len(), 4);
        m.dma_write_beat(0x102, 0, 0b1010, true, 4);
        assert_eq!(
            m.violations().len(),
            6,
            "misaligned address and non-contiguous keep"
        );
        assert!(!m.check_read(0x207, 2, 5));
        assert_eq!(m.violations().len(), 7);
    }

    #[test]
    #[should_panic(expected = "1 violation")]
    fn assert_lists_violations() {
        let mut m = HostMemory::new();
        m.dma_write_beat(0x0, 0, 0b1000, true, 1);
        m.assert_no_violations();
    }

    #[test]
    fn contiguous_keeps() {
        for k in [0u8, 1, 2, 3, 4, 6, 7, 8, 12, 14, 15] {
            assert!(keep_contiguous(k), "{k:#b}");
        }
        for k in [5u8, 9, 10, 11, 13] {
            assert!(!keep_contiguous(k), "{k:#b}");
        }
    }
}
