//! What the driver needs from a device: MMIO register accesses, host memory (the rings and
//! buffers the device reaches by DMA) and the passing of time. The simulated core
//! ([`SimDevice`]) is one implementation; [`NullDevice`] is another, a register-level model
//! that answers the identification reads and completes every signaled send work request at
//! its doorbell, so the driver's own cost per `post_send` + `poll_cq` can be measured without
//! simulating the core (`benches/verbs.rs`).

use rnic_proto::host::{cqe_owner, regs, Cqe, SqWqe, WqeOpcode, CQE_LEN, SQ_WQE_LEN};
use rnic_proto::verbs::{WcOpcode, WcStatus};
use rnic_sim::host_mem::Region;
use rnic_sim::tb::rnic::SimDevice;

/// A device as the driver reaches it: as a host reaches a PCIe device.
pub trait HostDevice {
    /// One MMIO register read.
    fn mmio_read(&mut self, addr: u16) -> anyhow::Result<u32>;
    /// One MMIO register write.
    fn mmio_write(&mut self, addr: u16, value: u32);
    /// The host CPU's load of `buf.len()` bytes at `addr`.
    fn mem_read(&self, addr: u64, buf: &mut [u8]);
    /// The host CPU's store of `data` at `addr`.
    fn mem_write(&mut self, addr: u64, data: &[u8]);
    /// Lets `cycles` device clock cycles pass.
    fn run(&mut self, cycles: u64);
    /// Device clock cycles so far.
    fn cycles(&self) -> u64;
    /// The device may read (descriptor rings) or write (completion rings) these bytes
    /// outside every registered region: for a protection monitor; nothing by default.
    fn grant_device(&mut self, _addr: u64, _len: u64, _read: bool, _write: bool) {}
    /// STag table entry `index` now describes `region` (for a protection monitor).
    fn region_set(&mut self, _index: u32, _region: Region) {}
    /// STag table entry `index` is invalid from now on (for a protection monitor).
    fn region_invalidated(&mut self, _index: u32) {}
    /// QP `qp` is enabled in `pd` (`None`: disabled) (for a protection monitor).
    fn qp_pd_set(&mut self, _qp: usize, _pd: Option<u8>) {}
}

impl HostDevice for SimDevice {
    fn mmio_read(&mut self, addr: u16) -> anyhow::Result<u32> {
        SimDevice::mmio_read(self, addr)
    }
    fn mmio_write(&mut self, addr: u16, value: u32) {
        SimDevice::mmio_write(self, addr, value)
    }
    fn mem_read(&self, addr: u64, buf: &mut [u8]) {
        let m = self.mem();
        for (i, b) in buf.iter_mut().enumerate() {
            *b = m.byte((addr as u32).wrapping_add(i as u32));
        }
    }
    fn mem_write(&mut self, addr: u64, data: &[u8]) {
        self.mem_mut().write(addr as u32, data)
    }
    fn run(&mut self, cycles: u64) {
        SimDevice::run(self, cycles)
    }
    fn cycles(&self) -> u64 {
        SimDevice::cycles(self)
    }
    fn grant_device(&mut self, addr: u64, len: u64, read: bool, write: bool) {
        self.mem_mut()
            .allow_device(addr as u32, len as u32, read, write)
    }
    fn region_set(&mut self, index: u32, region: Region) {
        self.mem_mut().set_region(index, region)
    }
    fn region_invalidated(&mut self, index: u32) {
        self.mem_mut().invalidate_region(index)
    }
    fn qp_pd_set(&mut self, qp: usize, pd: Option<u8>) {
        self.mem_mut().set_qp_pd(qp, pd)
    }
}

/// QPs, CQs and log2 of the STag entries the null device reports (the QPs of the build).
const NULL_QPS: usize = rnic_hdl::config::QPS;
const NULL_CQS: usize = 4;
const NULL_STAG_LOG2: u32 = 8;
/// The ring index bits of the null device: the build's, as the core (12 in the Alchitry Cu
/// profile): its indexes wrap there, and it reports them in FEATURES.
const NULL_RING_INDEX_BITS: u32 = rnic_hdl::config::RING_INDEX_BITS as u32;
/// The local length bits of the null device: the build's, as the core (24 in the Alchitry Cu
/// profile), reported in FEATURES so that the driver refuses the same lengths.
const NULL_LEN_BITS: u32 = rnic_hdl::config::LOCAL_LEN_BITS as u32;
/// Its ring index mask.
const NULL_RING_MASK: u16 = ((1u32 << NULL_RING_INDEX_BITS) - 1) as u16;

#[derive(Clone, Copy, Default)]
struct NullQp {
    ctrl: u32,
    sq_base: u32,
    sq_log2: u32,
    sq_ci: u16,
}

#[derive(Clone, Copy, Default)]
struct NullCq {
    base: u32,
    log2: u32,
    pi: u16,
}

/// A device that moves no data: it identifies itself as the core, reports every path idle,
/// keeps the QP and CQ registers the driver programs, and at an SQ doorbell reads each new
/// WQE and writes its successful CQE (signaled ones only, as the core) into the QP's send
/// CQ. Its host memory is a flat byte vector. Receive doorbells are accepted and never
/// complete. One MMIO access is one cycle.
#[derive(Default)]
pub struct NullDevice {
    mem: Vec<u8>,
    qps: [NullQp; NULL_QPS],
    cqs: [NullCq; NULL_CQS],
    cycles: u64,
}

impl NullDevice {
    /// A fresh device (all registers zero, memory empty).
    pub fn new() -> Self {
        NullDevice::default()
    }

    fn doorbell(&mut self, qp: usize, pi: u16) {
        let q = self.qps[qp];
        while self.qps[qp].sq_ci != pi {
            let ci = self.qps[qp].sq_ci;
            let at =
                u64::from(q.sq_base) + (u64::from(ci) % (1u64 << q.sq_log2)) * SQ_WQE_LEN as u64;
            let mut raw = [0u8; SQ_WQE_LEN];
            self.mem_read(at, &mut raw);
            self.qps[qp].sq_ci = ci.wrapping_add(1) & NULL_RING_MASK;
            let Ok(wqe) = SqWqe::parse(&raw) else {
                continue;
            };
            if wqe.flags & rnic_proto::host::wqe_flags::SIGNALED == 0 {
                continue;
            }
            let opcode = match wqe.opcode {
                WqeOpcode::RdmaWrite => WcOpcode::RdmaWrite,
                WqeOpcode::RdmaRead => WcOpcode::RdmaRead,
                _ => WcOpcode::Send,
            };
            let cq_n = (q.ctrl >> regs::QP_CTRL_SEND_CQ_SHIFT & 3) as usize;
            let cq = self.cqs[cq_n];
            let cqe = Cqe {
                wqe_index: ci,
                opcode: opcode as u8,
                status: WcStatus::Success as u8,
                byte_len: wqe.length,
                inv_stag: 0,
                qp: qp as u8,
                flags: 0,
                owner: cqe_owner(cq.pi, cq.log2),
            };
            let at = u64::from(cq.base) + (u64::from(cq.pi) % (1u64 << cq.log2)) * CQE_LEN as u64;
            self.mem_write(at, &cqe.emit());
            self.cqs[cq_n].pi = cq.pi.wrapping_add(1) & NULL_RING_MASK;
        }
    }
}

impl HostDevice for NullDevice {
    fn mmio_read(&mut self, addr: u16) -> anyhow::Result<u32> {
        self.cycles += 2;
        Ok(match addr {
            regs::ID => regs::ID_VALUE,
            regs::VERSION => regs::VERSION_VALUE,
            regs::CAPS => NULL_QPS as u32 | (NULL_CQS as u32) << 8 | NULL_STAG_LOG2 << 16 | 4 << 24,
            regs::STATUS => regs::STATUS_RX_IDLE | regs::STATUS_TX_IDLE,
            regs::FEATURES => {
                regs::FEATURES_MARKERS
                    | 32 << regs::FEATURES_DMA_ADDR_SHIFT
                    | NULL_RING_INDEX_BITS << regs::FEATURES_RING_INDEX_SHIFT
                    | NULL_LEN_BITS << regs::FEATURES_LEN_SHIFT
            }
            a if (regs::CQ_REGS..regs::CQ_REGS + NULL_CQS as u16 * regs::CQ_STRIDE)
                .contains(&a) =>
            {
                let c = &self.cqs[usize::from((a - regs::CQ_REGS) / regs::CQ_STRIDE)];
                match (a - regs::CQ_REGS) % regs::CQ_STRIDE {
                    regs::CQ_PI => u32::from(c.pi),
                    _ => 0,
                }
            }
            _ => 0,
        })
    }

    fn mmio_write(&mut self, addr: u16, value: u32) {
        self.cycles += 1;
        if (regs::QP_REGS..regs::QP_REGS + NULL_QPS as u16 * regs::QP_STRIDE).contains(&addr) {
            let n = usize::from((addr - regs::QP_REGS) / regs::QP_STRIDE);
            let q = &mut self.qps[n];
            match (addr - regs::QP_REGS) % regs::QP_STRIDE {
                regs::QP_CTRL => {
                    q.ctrl = value;
                    q.sq_ci = 0;
                }
                regs::QP_SQ_BASE => {
                    q.sq_base = value & !0x1F;
                    q.sq_log2 = value & 0xF;
                }
                regs::QP_SQ_PI => self.doorbell(n, value as u16 & NULL_RING_MASK),
                _ => {}
            }
        } else if (regs::CQ_REGS..regs::CQ_REGS + NULL_CQS as u16 * regs::CQ_STRIDE).contains(&addr)
        {
            let c = &mut self.cqs[usize::from((addr - regs::CQ_REGS) / regs::CQ_STRIDE)];
            match (addr - regs::CQ_REGS) % regs::CQ_STRIDE {
                regs::CQ_BASE => c.base = value,
                regs::CQ_LOG2 => {
                    c.log2 = value & 0xF;
                    c.pi = 0;
                }
                _ => {}
            }
        }
    }

    fn mem_read(&self, addr: u64, buf: &mut [u8]) {
        let a = addr as usize;
        for (i, b) in buf.iter_mut().enumerate() {
            *b = self.mem.get(a + i).copied().unwrap_or(0);
        }
    }

    fn mem_write(&mut self, addr: u64, data: &[u8]) {
        let a = addr as usize;
        if self.mem.len() < a + data.len() {
            self.mem.resize(a + data.len(), 0);
        }
        self.mem[a..a + data.len()].copy_from_slice(data);
    }

    fn run(&mut self, cycles: u64) {
        self.cycles += cycles;
    }

    fn cycles(&self) -> u64 {
        self.cycles
    }
}
