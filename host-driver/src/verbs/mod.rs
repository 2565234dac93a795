//! The verbs-style API of the RNIC: open a device, allocate protection domains, register
//! memory (lkey / rkey = STag), create completion queues and queue pairs whose rings live in
//! host memory, post work requests, poll work completions. It feels like rdma-core's
//! `ibv_*` calls, with Rust ownership in place of manual freeing: a buffer cannot be freed
//! while a registered region covers it, and a region cannot be deregistered while a posted,
//! uncompleted work request names it.
//!
//! The driver reaches the core only as a host would reach a PCIe device: MMIO register
//! accesses (`rnic_proto::host::regs`) and descriptors in host memory (SQ / RQ WQEs it writes,
//! CQEs the core writes, polled by their owner bit), through the [`HostDevice`] trait. The
//! back end is the simulated device ([`rnic_sim::tb::rnic::SimDevice`], the default type
//! parameter of [`Device`]): time passes while the driver waits ([`Device::run`],
//! [`Device::wait_cq`]). [`NullDevice`] is a register-level stand-in that completes sends at
//! their doorbell, to measure the driver's own cost (`benches/verbs.rs`).
//!
//! Misuse ends in a typed [`VerbsError`] or an error completion, never a panic or an unbounded
//! wait (`tests/verbs_misuse.rs`): the driver checks what it can see (lkeys and bounds,
//! element count, 32-bit addresses, queue depth, QP state, objects in use, stale handles,
//! exhaustion); [`Device::set_driver_checks`] turns the element checks off to show the core's
//! own protection path.
//!
//! Limits of this version of the core (`docs/decisions.md`, "The whole core"): one scatter /
//! gather element per work request, 32-bit DMA addresses (24-bit in the Alchitry Cu profile:
//! `Caps::dma_addr_bits`), QP n is LLP connection n.

mod error;
mod hw;
mod qp;

pub use error::{Result, VerbsError};
pub use hw::{HostDevice, NullDevice};
pub use qp::{ConnParams, QpCaps, QpState, RecvWr, SendOp, SendWr, Sge, Wc};

use rnic_firmware::resources::XorShift64;
use rnic_proto::host::{regs, Cqe, CQE_LEN};
use rnic_proto::verbs::{access, make_stag, stag_index, AsyncEventKind, WcOpcode, WcStatus};
use rnic_sim::host_mem::{HostMemory, Region};
use rnic_sim::tb::rnic::{DeviceConfig, Llp, SimDevice};
use std::collections::BTreeMap;

/// Protection domains of the core (`PD_BITS` = 4).
pub const MAX_PDS: usize = 16;
/// Where the driver's DMA-able host memory starts (the first page stays unmapped, so a zero
/// address in a descriptor is never a buffer).
const HEAP_BASE: u64 = 0x0001_0000;

/// A buffer of DMA-able host memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Buf {
    /// Host (and DMA) address of the first byte.
    pub addr: u64,
    /// Length in bytes.
    pub len: u64,
}

/// A protection domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pd(pub u8);

/// A registered memory region. Its tagged offsets are host addresses (as rdma-core's
/// `ibv_reg_mr` uses virtual addresses): TO `addr` is the region's first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mr {
    /// Local key (STag).
    pub lkey: u32,
    /// Remote key: the same STag.
    pub rkey: u32,
    /// First byte (host address = tagged offset).
    pub addr: u64,
    /// Length in bytes.
    pub len: u64,
    /// Protection domain.
    pub pd: Pd,
    /// Access rights ([`rnic_proto::verbs::access`] bits).
    pub access: u8,
}

/// A completion queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cq(pub usize);

/// A queue pair (QP n is LLP connection n).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Qp(pub usize);

/// What the device reports it has (CAPS and FEATURES registers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    pub qps: usize,
    pub cqs: usize,
    pub stags: usize,
    pub width_octets: usize,
    /// The core implements MPA markers (`FEATURES_MARKERS`; not in a `no-markers` build, the
    /// Alchitry Cu profile): a connection with markers in either direction is refused.
    pub markers: bool,
    /// Bits of a host (DMA) address (FEATURES `[15:8]`: 24 in the Alchitry Cu profile, 32
    /// otherwise): rings, CQs, buffers and registered regions lie below `1 << dma_addr_bits`.
    pub dma_addr_bits: u32,
    /// Bits of a local length (FEATURES `[31:24]`: 24 in the Alchitry Cu profile, 32
    /// otherwise): a work request's element and a registered region are shorter than
    /// `1 << len_bits`.
    pub len_bits: u32,
    /// Bits of a ring index (FEATURES `[23:16]`: 12 in the Alchitry Cu profile, 16 otherwise):
    /// a ring (SQ, RQ, CQ) has at most `2^(ring_index_bits - 1)` entries, and the driver keeps
    /// its indexes modulo `2^ring_index_bits`, as the core does.
    pub ring_index_bits: u32,
}

impl Caps {
    /// The largest log2 of a ring's entries: full must differ from empty in
    /// `ring_index_bits` bits.
    pub fn max_ring_log2(&self) -> u32 {
        self.ring_index_bits - 1
    }

    /// The ring index mask, `2^ring_index_bits - 1`: every index the driver keeps is reduced
    /// by it, so that it compares exactly with the indexes the core reports (a CQE's
    /// `wqe_index`).
    pub fn ring_index_mask(&self) -> u16 {
        ((1u32 << self.ring_index_bits) - 1) as u16
    }

    /// Refuses a ring of `2^log2` entries the core cannot index (`what`: "SQ", "RQ", "CQ").
    pub(crate) fn check_ring_log2(&self, what: &str, log2: u32) -> Result<()> {
        let max = self.max_ring_log2();
        if (1..=max).contains(&log2) {
            return Ok(());
        }
        Err(VerbsError::InvalidArgument(format!(
            "{what} of 2^{log2} entries: log2 must be 1..={max} (this core's ring indexes have \
             {} bits)",
            self.ring_index_bits
        )))
    }
}

/// An asynchronous event of a QP (QP_AEV): why it went to error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AsyncEvent {
    pub kind: Option<AsyncEventKind>,
    /// The Terminate's layer, error type and code (0 for a CQ overflow).
    pub layer: u8,
    pub etype: u8,
    pub code: u8,
}

#[derive(Debug, Clone)]
struct CqState {
    base: u64,
    log2: u32,
    ci: u16,
    /// QPs whose send or receive completions go here.
    users: usize,
}

#[derive(Debug, Clone, Copy)]
struct MrState {
    mr: Mr,
    /// Posted, uncompleted work requests naming this STag.
    in_flight: usize,
    /// Not invalidated by a peer's Send with Invalidate.
    valid: bool,
}

/// An open device: the simulated core by default, any [`HostDevice`] in general.
pub struct Device<D: HostDevice = SimDevice> {
    dev: D,
    /// Check SGEs against the registered regions before posting (see
    /// [`Device::set_driver_checks`]).
    checks: bool,
    caps: Caps,
    /// Live buffers by address.
    bufs: BTreeMap<u64, u64>,
    heap_top: u64,
    pds: [bool; MAX_PDS],
    pd_users: [usize; MAX_PDS],
    mrs: Vec<Option<MrState>>,
    /// The last key each STag index carried (a new registration never repeats it).
    last_key: Vec<u8>,
    /// The firmware's key generator (RFC 5040 §8.1 item 8, `rnic_firmware::resources`).
    key_rng: XorShift64,
    cqs: Vec<Option<CqState>>,
    qps: Vec<Option<qp::QpEntry>>,
}

impl Device<SimDevice> {
    /// Opens the simulated device built by `cfg` with its LLP port on `llp`, and checks that
    /// it is this core (ID, VERSION) and reads its capabilities.
    pub fn open(cfg: DeviceConfig, llp: Box<dyn Llp>) -> Result<Device> {
        let dev = SimDevice::new(cfg, llp)?;
        Device::attach(dev, cfg.seed)
    }

    /// The simulated device underneath (cycles, statistics, host memory, the LLP model).
    pub fn sim(&self) -> &SimDevice {
        &self.dev
    }

    /// The simulated device underneath, mutable.
    pub fn sim_mut(&mut self) -> &mut SimDevice {
        &mut self.dev
    }

    /// Host memory and its protection monitor.
    pub fn mem(&self) -> &HostMemory {
        self.dev.mem()
    }
}

impl<D: HostDevice> Device<D> {
    /// Opens an already built device (a traced simulated one, say, or a [`NullDevice`]).
    /// `seed` seeds the STag key generator (RFC 5040 §8.1 item 8: keys must not be
    /// predictable from outside).
    pub fn attach(mut dev: D, seed: u64) -> Result<Device<D>> {
        let id = dev.mmio_read(regs::ID)?;
        let version = dev.mmio_read(regs::VERSION)?;
        if id != regs::ID_VALUE || version >> 16 != regs::VERSION_VALUE >> 16 {
            return Err(VerbsError::NotAnRnic { id, version });
        }
        let c = dev.mmio_read(regs::CAPS)?;
        let features = dev.mmio_read(regs::FEATURES)?;
        let caps = Caps {
            qps: rnic_firmware::device::caps_qps(c),
            cqs: (c >> 8 & 0xFF) as usize,
            stags: 1 << (c >> 16 & 0xFF),
            width_octets: (c >> 24) as usize,
            markers: features & regs::FEATURES_MARKERS != 0,
            dma_addr_bits: regs::features_dma_addr_bits(features).min(32),
            ring_index_bits: regs::features_ring_index_bits(features).clamp(2, 16),
            len_bits: regs::features_len_bits(features).min(32),
        };
        Ok(Device {
            dev,
            checks: true,
            caps,
            bufs: BTreeMap::new(),
            heap_top: HEAP_BASE,
            pds: [false; MAX_PDS],
            pd_users: [0; MAX_PDS],
            mrs: vec![None; caps.stags],
            last_key: vec![0; caps.stags],
            key_rng: XorShift64::new(seed),
            cqs: vec![None; caps.cqs],
            qps: (0..caps.qps).map(|_| None).collect(),
        })
    }

    /// The device's capabilities.
    pub fn caps(&self) -> Caps {
        self.caps
    }

    /// The device underneath.
    pub fn device(&self) -> &D {
        &self.dev
    }

    /// The device underneath, mutable.
    pub fn device_mut(&mut self) -> &mut D {
        &mut self.dev
    }

    /// Turns the driver's own checks of scatter / gather elements against the registered
    /// regions on (the default) or off. Off, a wrong lkey or an out-of-bounds element is
    /// posted as it is, and the core must catch it (RFC 5040 §5.4: the work request
    /// completes with a local protection error, the QP goes to error and every later work
    /// request is flushed): for tests of the hardware's protection path.
    pub fn set_driver_checks(&mut self, on: bool) {
        self.checks = on;
    }

    /// Lets `cycles` clock cycles pass.
    pub fn run(&mut self, cycles: u64) {
        self.dev.run(cycles);
    }

    // ---------------------------------------------------------------- host memory

    /// Allocates `len` bytes of DMA-able host memory aligned to `align` (a power of two),
    /// zeroed.
    pub fn alloc_buf(&mut self, len: u64, align: u64) -> Result<Buf> {
        if len == 0 || !align.is_power_of_two() {
            return Err(VerbsError::InvalidArgument(format!(
                "buffer of {len} bytes aligned to {align}: need len > 0 and a power-of-two alignment"
            )));
        }
        let addr = self.heap_top.div_ceil(align).saturating_mul(align);
        self.check_dmaable(addr, len)?;
        self.heap_top = addr + len;
        self.bufs.insert(addr, len);
        self.dev.mem_write(addr, &vec![0; len as usize]);
        Ok(Buf { addr, len })
    }

    /// Refuses `len` bytes at `addr` unless they lie below `1 << dma_addr_bits` (FEATURES):
    /// the core drives no higher host address (a 16 MiB window in the Alchitry Cu profile).
    fn check_dmaable(&self, addr: u64, len: u64) -> Result<()> {
        let end = 1u64 << self.caps.dma_addr_bits;
        if addr.checked_add(len).is_none_or(|e| e > end) {
            return Err(VerbsError::AddressNotDmaable {
                addr,
                len,
                bits: self.caps.dma_addr_bits,
            });
        }
        Ok(())
    }

    /// Refuses a length of `1 << len_bits` or more (FEATURES): the core keeps lengths of
    /// `len_bits` (24 in the Alchitry Cu profile), a longer one would be cut.
    fn check_len(&self, len: u64) -> Result<()> {
        if len >> self.caps.len_bits != 0 {
            return Err(VerbsError::LengthTooLong {
                len,
                bits: self.caps.len_bits,
            });
        }
        Ok(())
    }

    /// Allocates a buffer at `offset` bytes past an `align`-aligned address: a buffer at a
    /// chosen alignment, for tests of unaligned transfers.
    pub fn alloc_buf_at_offset(&mut self, len: u64, align: u64, offset: u64) -> Result<Buf> {
        let total = len
            .checked_add(offset)
            .ok_or(VerbsError::AddressNotDmaable {
                addr: offset,
                len,
                bits: self.caps.dma_addr_bits,
            })?;
        let b = self.alloc_buf(total, align)?;
        self.bufs.remove(&b.addr);
        let buf = Buf {
            addr: b.addr + offset,
            len,
        };
        self.bufs.insert(buf.addr, len);
        Ok(buf)
    }

    /// Frees a buffer. Refused while a registered region overlaps it (deregister first), so
    /// the device can never touch memory the driver gave back.
    pub fn free_buf(&mut self, buf: Buf) -> Result<()> {
        if self.bufs.get(&buf.addr) != Some(&buf.len) {
            return Err(VerbsError::BadHandle("buffer"));
        }
        if let Some(m) = self
            .mrs
            .iter()
            .flatten()
            .find(|m| m.mr.addr < buf.addr + buf.len && buf.addr < m.mr.addr + m.mr.len)
        {
            return Err(VerbsError::Busy(format!(
                "buffer {:#x}+{} is registered as STag {:#010x}",
                buf.addr, buf.len, m.mr.lkey
            )));
        }
        let ring = self.cqs.iter().flatten().any(|c| c.base == buf.addr)
            || self
                .qps
                .iter()
                .flatten()
                .any(|q| q.sq_base == buf.addr || q.rq_base == buf.addr);
        if ring {
            return Err(VerbsError::Busy(format!(
                "buffer {:#x}+{} is the ring of a live CQ or QP",
                buf.addr, buf.len
            )));
        }
        self.bufs.remove(&buf.addr);
        Ok(())
    }

    /// Writes `data` into host memory at `addr` (the host CPU's store).
    pub fn write_mem(&mut self, addr: u64, data: &[u8]) {
        self.dev.mem_write(addr, data);
    }

    /// Reads `len` bytes of host memory at `addr`.
    pub fn read_mem(&self, addr: u64, len: usize) -> Vec<u8> {
        let mut v = vec![0; len];
        self.dev.mem_read(addr, &mut v);
        v
    }

    // ---------------------------------------------------------------- PD and MR

    /// Allocates a protection domain.
    pub fn alloc_pd(&mut self) -> Result<Pd> {
        let i = self
            .pds
            .iter()
            .position(|u| !u)
            .ok_or(VerbsError::NoResources {
                what: "PD",
                max: MAX_PDS,
            })?;
        self.pds[i] = true;
        Ok(Pd(i as u8))
    }

    /// Frees a protection domain no region or QP uses any more.
    pub fn dealloc_pd(&mut self, pd: Pd) -> Result<()> {
        let i = usize::from(pd.0);
        if i >= MAX_PDS || !self.pds[i] {
            return Err(VerbsError::BadHandle("PD"));
        }
        if self.pd_users[i] > 0 {
            return Err(VerbsError::Busy(format!(
                "PD {i} has {} regions or QPs",
                self.pd_users[i]
            )));
        }
        self.pds[i] = false;
        Ok(())
    }

    fn next_key(&mut self, index: usize) -> u8 {
        loop {
            let k = self.key_rng.next_u8();
            if k != self.last_key[index] {
                self.last_key[index] = k;
                return k;
            }
        }
    }

    /// Registers `len` bytes at `addr` in `pd` with `access` rights
    /// ([`rnic_proto::verbs::access`] bits; remote write or remote read imply local write or
    /// read being meaningful, as in verbs). The region may be invalidated by a peer's Send
    /// with Invalidate when `remote_invalidate` is set.
    pub fn reg_mr(
        &mut self,
        pd: Pd,
        addr: u64,
        len: u64,
        access_flags: u8,
        remote_invalidate: bool,
    ) -> Result<Mr> {
        self.check_pd(pd)?;
        if access_flags & !access::ALL != 0 {
            return Err(VerbsError::InvalidArgument(format!(
                "access {access_flags:#x} has bits outside {:#x}",
                access::ALL
            )));
        }
        if len == 0 || len > u64::from(u32::MAX) {
            return Err(VerbsError::InvalidArgument(format!(
                "region length {len}: must be 1..=2^32-1"
            )));
        }
        self.check_len(len)?;
        self.check_dmaable(addr, len)?;
        let inside = self
            .bufs
            .range(..=addr)
            .next_back()
            .is_some_and(|(&a, &l)| addr + len <= a + l);
        if !inside {
            return Err(VerbsError::InvalidArgument(format!(
                "{len} bytes at {addr:#x} are not inside one allocated buffer"
            )));
        }
        let index = self
            .mrs
            .iter()
            .position(Option::is_none)
            .ok_or(VerbsError::NoResources {
                what: "STag",
                max: self.caps.stags,
            })?;
        let key = self.next_key(index);
        let stag = make_stag(index as u32, key);
        let mr = Mr {
            lkey: stag,
            rkey: stag,
            addr,
            len,
            pd,
            access: access_flags,
        };
        let mut flags = u32::from(key) << regs::STAG_FLAGS_KEY_SHIFT
            | u32::from(pd.0) << regs::STAG_FLAGS_PD_SHIFT
            | u32::from(access_flags) << regs::STAG_FLAGS_ACCESS_SHIFT
            | regs::STAG_FLAGS_VALID;
        if remote_invalidate {
            flags |= regs::STAG_FLAGS_REMOTE_INV;
        }
        self.program_stag(index as u32, flags, addr, len as u32, addr as u32);
        self.dev.region_set(
            index as u32,
            Region {
                host_addr: addr as u32,
                len: len as u32,
                pd: pd.0,
                access: access_flags,
                valid: true,
            },
        );
        self.mrs[index] = Some(MrState {
            mr,
            in_flight: 0,
            valid: true,
        });
        self.pd_users[usize::from(pd.0)] += 1;
        Ok(mr)
    }

    fn program_stag(&mut self, index: u32, flags: u32, to: u64, len: u32, host: u32) {
        self.dev.mmio_write(regs::STAG_INDEX, index);
        self.dev.mmio_write(regs::STAG_FLAGS, flags);
        self.dev
            .mmio_write(regs::STAG_TO_LEN_LO, regs::stag_to_len_lo(to, len));
        self.dev
            .mmio_write(regs::STAG_BASE_TO_HI, (to >> 32) as u32);
        self.dev
            .mmio_write(regs::STAG_TO_LEN_HI, regs::stag_to_len_hi(to, len));
        // The commit's data is the host address.
        self.dev.mmio_write(regs::STAG_COMMIT, host);
    }

    /// Deregisters a region: the STag is invalid from now on, for the peer and locally.
    /// Refused while a posted, uncompleted work request of this device names it.
    pub fn dereg_mr(&mut self, mr: Mr) -> Result<()> {
        let index = stag_index(mr.lkey) as usize;
        match self.mrs.get(index).copied().flatten() {
            Some(s) if s.mr == mr => {
                if s.in_flight > 0 {
                    return Err(VerbsError::Busy(format!(
                        "STag {:#010x} is named by {} posted work requests",
                        mr.lkey, s.in_flight
                    )));
                }
            }
            _ => return Err(VerbsError::BadHandle("MR")),
        }
        self.program_stag(index as u32, 0, 0, 0, 0);
        self.dev.region_invalidated(index as u32);
        self.mrs[index] = None;
        self.pd_users[usize::from(mr.pd.0)] -= 1;
        Ok(())
    }

    /// Whether the STag of `mr` is still valid in this driver's view (a peer's Send with
    /// Invalidate clears it; the receive completion reports it).
    pub fn mr_valid(&self, mr: &Mr) -> bool {
        self.mrs
            .get(stag_index(mr.lkey) as usize)
            .copied()
            .flatten()
            .is_some_and(|s| s.mr == *mr && s.valid)
    }

    fn check_pd(&self, pd: Pd) -> Result<()> {
        if usize::from(pd.0) < MAX_PDS && self.pds[usize::from(pd.0)] {
            Ok(())
        } else {
            Err(VerbsError::BadHandle("PD"))
        }
    }

    // ---------------------------------------------------------------- CQ

    /// Creates a completion queue of `2^log2` entries (1..=15, 1..=11 in the Alchitry Cu
    /// profile: [`Caps::max_ring_log2`]).
    pub fn create_cq(&mut self, log2: u32) -> Result<Cq> {
        self.caps.check_ring_log2("CQ", log2)?;
        let i = self
            .cqs
            .iter()
            .position(Option::is_none)
            .ok_or(VerbsError::NoResources {
                what: "CQ",
                max: self.caps.cqs,
            })?;
        let bytes = (CQE_LEN as u64) << log2;
        let ring = self.alloc_buf(bytes, 64)?;
        self.dev.grant_device(ring.addr, bytes, false, true);
        self.dev
            .mmio_write(regs::cq_reg(i, regs::CQ_BASE), ring.addr as u32);
        self.dev.mmio_write(regs::cq_reg(i, regs::CQ_LOG2), log2);
        self.cqs[i] = Some(CqState {
            base: ring.addr,
            log2,
            ci: 0,
            users: 0,
        });
        Ok(Cq(i))
    }

    /// Destroys a completion queue no QP uses any more (destroy the QPs first): its handle is
    /// stale from now on, and its ring is given back.
    pub fn destroy_cq(&mut self, cq: Cq) -> Result<()> {
        let s = self.cq_state(cq)?;
        if s.users > 0 {
            return Err(VerbsError::Busy(format!(
                "CQ {} takes the completions of {} QP queues",
                cq.0, s.users
            )));
        }
        let base = s.base;
        self.cqs[cq.0] = None;
        self.bufs.remove(&base);
        Ok(())
    }

    /// Whether the CQ overflowed (RFC 5040 §8.1 item 10): it then drops every completion.
    pub fn cq_overflowed(&mut self, cq: Cq) -> Result<bool> {
        self.cq_state(cq)?;
        Ok(self.dev.mmio_read(regs::cq_reg(cq.0, regs::CQ_STATUS))? & 1 == 1)
    }

    fn cq_state(&mut self, cq: Cq) -> Result<&mut CqState> {
        self.cqs
            .get_mut(cq.0)
            .and_then(Option::as_mut)
            .ok_or(VerbsError::BadHandle("CQ"))
    }

    /// Takes up to `max` work completions from `cq` without waiting.
    pub fn poll_cq(&mut self, cq: Cq, max: usize) -> Result<Vec<Wc>> {
        let (base, log2, mut ci) = {
            let s = self.cq_state(cq)?;
            (s.base, s.log2, s.ci)
        };
        let mask = self.caps.ring_index_mask();
        let mut out = Vec::new();
        while out.len() < max {
            let at = base + (u64::from(ci) % (1 << log2)) * CQE_LEN as u64;
            let mut raw = [0u8; CQE_LEN];
            self.dev.mem_read(at, &mut raw);
            let cqe = Cqe::parse(&raw).map_err(|e| VerbsError::Device(format!("{e:?}")))?;
            if cqe.owner != rnic_proto::host::cqe_owner(ci, log2) {
                break;
            }
            out.push(self.complete(cqe)?);
            ci = ci.wrapping_add(1) & mask;
        }
        if !out.is_empty() {
            self.cq_state(cq)?.ci = ci;
            self.dev
                .mmio_write(regs::cq_reg(cq.0, regs::CQ_CI), u32::from(ci));
        }
        Ok(out)
    }

    /// Waits (lets the device run) until `n` work completions were taken from `cq`, at most
    /// `max_cycles` cycles.
    pub fn wait_cq(&mut self, cq: Cq, n: usize, max_cycles: u64) -> Result<Vec<Wc>> {
        let start = self.dev.cycles();
        let mut out = Vec::new();
        loop {
            out.extend(self.poll_cq(cq, n - out.len())?);
            if out.len() == n {
                return Ok(out);
            }
            if self.dev.cycles() - start > max_cycles {
                return Err(VerbsError::Device(format!(
                    "CQ {}: {} of {n} completions after {max_cycles} cycles",
                    cq.0,
                    out.len()
                )));
            }
            self.dev.run(8);
        }
    }

    /// Turns a CQE into a work completion: finds the work request's `wr_id` by the CQE's
    /// ring index, and releases what the work request held.
    fn complete(&mut self, cqe: Cqe) -> Result<Wc> {
        let qpn = usize::from(cqe.qp);
        let opcode = WcOpcode::from_u8(cqe.opcode).ok_or_else(|| {
            VerbsError::Device(format!("CQE with unknown opcode {:#x}", cqe.opcode))
        })?;
        let status = WcStatus::from_u8(cqe.status).ok_or_else(|| {
            VerbsError::Device(format!("CQE with unknown status {:#x}", cqe.status))
        })?;
        let q = self
            .qps
            .get_mut(qpn)
            .and_then(Option::as_mut)
            .ok_or_else(|| VerbsError::Device(format!("CQE names QP {qpn}, which has no QP")))?;
        let recv = opcode == WcOpcode::Recv;
        let posted = q.take_completed(recv, cqe.wqe_index).ok_or_else(|| {
            VerbsError::Device(format!(
                "CQE names {} index {} of QP {qpn}, which has no work request outstanding there",
                if recv { "RQ" } else { "SQ" },
                cqe.wqe_index
            ))
        })?;
        if status != WcStatus::Success {
            q.state = QpState::Error;
        }
        // Exactly what post_send / post_recv held (STag 0 is a valid STag: index 0, key 0).
        if let Some(stag) = posted.stag {
            if let Some(Some(m)) = self.mrs.get_mut(stag_index(stag) as usize) {
                if m.mr.lkey == stag {
                    m.in_flight = m.in_flight.saturating_sub(1);
                }
            }
        }
        let invalidated = (recv && cqe.flags & rnic_proto::host::cqe_flags::WITH_INV != 0)
            .then_some(cqe.inv_stag);
        if let Some(stag) = invalidated {
            let index = stag_index(stag);
            if let Some(Some(m)) = self.mrs.get_mut(index as usize) {
                if m.mr.rkey == stag {
                    m.valid = false;
                }
            }
            self.dev.region_invalidated(index);
        }
        // A flushed work request was never fetched: its CQE's opcode is a placeholder, the
        // driver knows what was posted (rdma-core leaves it undefined; this is more useful).
        let opcode = if status == WcStatus::WrFlushErr {
            posted.opcode
        } else {
            opcode
        };
        Ok(Wc {
            wr_id: posted.wr_id,
            qp: qpn,
            opcode,
            status,
            byte_len: cqe.byte_len,
            invalidated,
            solicited: recv && cqe.flags & rnic_proto::host::cqe_flags::SOLICITED != 0,
        })
    }

    // ---------------------------------------------------------------- async events

    /// The QP's first asynchronous event (a Terminate sent or received, a CQ overflow), if it
    /// had one; a QP with an event is in error.
    pub fn query_async_event(&mut self, qp: Qp) -> Result<Option<AsyncEvent>> {
        self.qp_ref(qp)?;
        let v = self.dev.mmio_read(regs::qp_reg(qp.0, regs::QP_AEV))?;
        if v & regs::QP_AEV_VALID == 0 {
            return Ok(None);
        }
        if let Some(q) = self.qps[qp.0].as_mut() {
            q.state = QpState::Error;
        }
        Ok(Some(AsyncEvent {
            kind: AsyncEventKind::from_u8((v >> 16) as u8),
            layer: (v >> 12 & 0xF) as u8,
            etype: (v >> 8 & 0xF) as u8,
            code: v as u8,
        }))
    }

    /// Whether an FPDU of the QP's connection has passed MPA's checks since the QP was
    /// connected (`QP_STATUS_FPDU_RECEIVED`): the Responder's send fence (RFC 5044 §7.1.2,
    /// MPA-ST-4) may lift, and a peer-to-peer Responder has its RTR.
    pub fn fpdu_received(&mut self, qp: Qp) -> Result<bool> {
        self.qp_ref(qp)?;
        let v = self.dev.mmio_read(regs::qp_reg(qp.0, regs::QP_STATUS))?;
        Ok(v & regs::QP_STATUS_FPDU_RECEIVED != 0)
    }
}
