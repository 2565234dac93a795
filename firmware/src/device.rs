//! Programming the core through its MMIO registers (`rnic_proto::host::regs`).
//!
//! - [`program_stag`] / [`invalidate_stag`]: stage STAG_INDEX, STAG_FLAGS, the base TO and the
//!   length (their halves paired), then write STAG_COMMIT with the host address.
//! - [`commit_qp`]: stage QP_ULPDU, the SQ and RQ rings, then write QP_CTRL, which commits the
//!   context and resets the QP's state. The core wants QP_CTRL written only while the receive
//!   path is idle (`STATUS_RX_IDLE`): the function polls it a bounded number of times and
//!   reports [`DeviceError::RxBusy`] rather than hang.
//! - [`commit_cq`]: CQ_BASE, then CQ_LOG2 (which commits).
//!
//! Values that do not fit their register field are typed errors, never truncated silently.

use crate::conn::ConnParams;
use rnic_proto::host::regs;
use rnic_proto::verbs::{stag_index, stag_key};

/// The core's MMIO port.
pub trait Device {
    /// Writes a 32-bit register.
    fn mmio_write(&mut self, addr: u16, v: u32);
    /// Reads a 32-bit register.
    fn mmio_read(&mut self, addr: u16) -> u32;
}

/// Reads of STATUS before [`commit_qp`] gives up waiting for the receive path to drain.
pub const RX_IDLE_POLLS: usize = 64;
/// Largest ring log2 of the register field (`[3:0]`, at most 15); a core may allow less
/// ([`max_ring_log2`]).
pub const MAX_RING_LOG2: u8 = 15;

/// Why programming failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceError {
    /// ID register is not "RNIC" or the version differs.
    NotAnRnic(u32),
    /// `STATUS_RX_IDLE` stayed 0 for [`RX_IDLE_POLLS`] reads.
    RxBusy,
    /// A field does not fit its register (name of the field).
    OutOfRange(&'static str),
    /// A ring address is not aligned as the core needs (32 octets SQ, 16 RQ / CQ).
    Misaligned(&'static str),
}

/// The QP count in a CAPS value (bits 7:0): QPs `0..count` exist, QP n on LLP connection n.
pub fn caps_qps(caps: u32) -> usize {
    (caps & 0xFF) as usize
}

/// Checks the ID and VERSION registers; returns CAPS.
pub fn probe(dev: &mut impl Device) -> Result<u32, DeviceError> {
    let id = dev.mmio_read(regs::ID);
    if id != regs::ID_VALUE {
        return Err(DeviceError::NotAnRnic(id));
    }
    let v = dev.mmio_read(regs::VERSION);
    if v >> 16 != regs::VERSION_VALUE >> 16 {
        return Err(DeviceError::NotAnRnic(v));
    }
    Ok(dev.mmio_read(regs::CAPS))
}

/// Reads FEATURES: whether the core implements MPA markers (`FEATURES_MARKERS`; a build with
/// `no-markers` does not). The connection manager's [`crate::conn::ConnConfig::markers_supported`].
pub fn markers_supported(dev: &mut impl Device) -> bool {
    dev.mmio_read(regs::FEATURES) & regs::FEATURES_MARKERS != 0
}

/// Reads FEATURES: the largest ring log2 this core can index, one less than its ring index
/// bits (`regs::features_ring_index_bits`: 15 for 16-bit indexes, 11 in the Alchitry Cu
/// build), at most [`MAX_RING_LOG2`]. A ring of more entries cannot tell full from empty.
pub fn max_ring_log2(dev: &mut impl Device) -> u8 {
    let bits = regs::features_ring_index_bits(dev.mmio_read(regs::FEATURES));
    bits.saturating_sub(1).min(u32::from(MAX_RING_LOG2)) as u8
}

/// One STag table entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StagEntry {
    /// The STag (index << 8 | key).
    pub stag: u32,
    /// Protection domain (4 bits).
    pub pd: u8,
    /// Access rights (`rnic_proto::verbs::access`, 4 bits).
    pub access: u8,
    /// Base tagged offset.
    pub base_to: u64,
    /// Region length in octets.
    pub len: u32,
    /// Host (DMA) address of the region's first octet.
    pub host_addr: u32,
    /// Bound to one QP (a memory window).
    pub qp: Option<u8>,
    /// A peer may invalidate it (Send with Invalidate).
    pub remote_invalidate: bool,
}

fn field(v: u32, bits: u32, name: &'static str) -> Result<u32, DeviceError> {
    if v >> bits == 0 {
        Ok(v)
    } else {
        Err(DeviceError::OutOfRange(name))
    }
}

/// Programs (validates) an STag table entry.
pub fn program_stag(dev: &mut impl Device, e: &StagEntry) -> Result<(), DeviceError> {
    let index = field(stag_index(e.stag), 24, "stag index")?;
    let mut flags = u32::from(stag_key(e.stag)) << regs::STAG_FLAGS_KEY_SHIFT
        | field(u32::from(e.pd), 4, "pd")? << regs::STAG_FLAGS_PD_SHIFT
        | field(u32::from(e.access), 4, "access")? << regs::STAG_FLAGS_ACCESS_SHIFT
        | regs::STAG_FLAGS_VALID;
    if let Some(qp) = e.qp {
        flags |=
            regs::STAG_FLAGS_QP_BOUND | field(u32::from(qp), 4, "qp")? << regs::STAG_FLAGS_QP_SHIFT;
    }
    if e.remote_invalidate {
        flags |= regs::STAG_FLAGS_REMOTE_INV;
    }
    dev.mmio_write(regs::STAG_INDEX, index);
    dev.mmio_write(regs::STAG_FLAGS, flags);
    dev.mmio_write(regs::STAG_TO_LEN_LO, regs::stag_to_len_lo(e.base_to, e.len));
    dev.mmio_write(regs::STAG_BASE_TO_HI, (e.base_to >> 32) as u32);
    dev.mmio_write(regs::STAG_TO_LEN_HI, regs::stag_to_len_hi(e.base_to, e.len));
    // The commit's data is the host address.
    dev.mmio_write(regs::STAG_COMMIT, e.host_addr);
    Ok(())
}

/// Invalidates the entry of `stag` (VALID = 0; the key is kept so a late check still fails).
pub fn invalidate_stag(dev: &mut impl Device, stag: u32) -> Result<(), DeviceError> {
    let index = field(stag_index(stag), 24, "stag index")?;
    dev.mmio_write(regs::STAG_INDEX, index);
    dev.mmio_write(
        regs::STAG_FLAGS,
        u32::from(stag_key(stag)) << regs::STAG_FLAGS_KEY_SHIFT,
    );
    dev.mmio_write(regs::STAG_COMMIT, 0);
    Ok(())
}

/// A QP's local resources (the connection-independent part of the context).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QpResources {
    /// Protection domain (4 bits).
    pub pd: u8,
    /// CQ of send-side completions (2 bits).
    pub send_cq: u8,
    /// CQ of receive completions (2 bits).
    pub recv_cq: u8,
    /// SQ ring host address (32-octet aligned).
    pub sq_base: u32,
    /// log2 of the SQ entries.
    pub sq_log2: u8,
    /// RQ ring host address (16-octet aligned).
    pub rq_base: u32,
    /// log2 of the RQ entries.
    pub rq_log2: u8,
}

/// The QP_CTRL value of a QP with `params` (None: raw mode, not enabled, as during setup).
pub fn qp_ctrl_value(params: Option<&ConnParams>, res: &QpResources) -> Result<u32, DeviceError> {
    let mut v = field(u32::from(res.pd), 4, "pd")? << regs::QP_CTRL_PD_SHIFT
        | field(u32::from(res.send_cq), 2, "send cq")? << regs::QP_CTRL_SEND_CQ_SHIFT
        | field(u32::from(res.recv_cq), 2, "recv cq")? << regs::QP_CTRL_RECV_CQ_SHIFT;
    if let Some(p) = params {
        v |= regs::QP_CTRL_ENABLE | regs::QP_CTRL_FPDU_MODE;
        for (on, bit) in [
            (p.rx_crc, regs::QP_CTRL_RX_CRC),
            (p.rx_markers, regs::QP_CTRL_RX_MARKERS),
            (p.tx_crc, regs::QP_CTRL_TX_CRC),
            (p.tx_markers, regs::QP_CTRL_TX_MARKERS),
        ] {
            if on {
                v |= bit;
            }
        }
        v |= field(u32::from(p.ird), 4, "ird")? << regs::QP_CTRL_IRD_SHIFT;
        v |= field(u32::from(p.ord), 4, "ord")? << regs::QP_CTRL_ORD_SHIFT;
    }
    Ok(v)
}

/// Commits a QP's context: QP_ULPDU, SQ / RQ rings, then QP_CTRL (enabled in FPDU mode with
/// the negotiated CRC / markers / IRD / ORD when `params` is given; raw mode otherwise). Reads
/// FEATURES for the largest ring ([`max_ring_log2`]), then waits (bounded) for
/// `STATUS_RX_IDLE`. Nothing is written on an error.
pub fn commit_qp(
    dev: &mut impl Device,
    qp: usize,
    params: Option<&ConnParams>,
    res: &QpResources,
) -> Result<(), DeviceError> {
    if qp >= crate::resources::QPS {
        return Err(DeviceError::OutOfRange("qp"));
    }
    let max = max_ring_log2(dev);
    if res.sq_log2 > max || res.rq_log2 > max {
        return Err(DeviceError::OutOfRange("ring log2"));
    }
    if !res.sq_base.is_multiple_of(32) {
        return Err(DeviceError::Misaligned("sq base"));
    }
    if !res.rq_base.is_multiple_of(16) {
        return Err(DeviceError::Misaligned("rq base"));
    }
    let ctrl = qp_ctrl_value(params, res)?;
    let ulpdu = params.map_or(0, |p| {
        u32::from(p.tx_mulpdu) << 16 | u32::from(p.rx_max_ulpdu)
    });
    if !(0..RX_IDLE_POLLS).any(|_| dev.mmio_read(regs::STATUS) & regs::STATUS_RX_IDLE != 0) {
        return Err(DeviceError::RxBusy);
    }
    dev.mmio_write(regs::qp_reg(qp, regs::QP_ULPDU), ulpdu);
    dev.mmio_write(
        regs::qp_reg(qp, regs::QP_SQ_BASE),
        regs::qp_sq_base(res.sq_base, u32::from(res.sq_log2)),
    );
    dev.mmio_write(regs::qp_reg(qp, regs::QP_RQ_BASE), res.rq_base);
    dev.mmio_write(regs::qp_reg(qp, regs::QP_RQ_LOG2), u32::from(res.rq_log2));
    dev.mmio_write(regs::qp_reg(qp, regs::QP_CTRL), ctrl);
    Ok(())
}

/// Commits a CQ: CQ_BASE, then CQ_LOG2 (producer / consumer 0, phase 1, overflow cleared). A
/// CQ larger than the core can index ([`max_ring_log2`], read from FEATURES) is refused.
pub fn commit_cq(dev: &mut impl Device, cq: usize, base: u32, log2: u8) -> Result<(), DeviceError> {
    if cq >= rnic_proto::host::CQS {
        return Err(DeviceError::OutOfRange("cq"));
    }
    if log2 > max_ring_log2(dev) {
        return Err(DeviceError::OutOfRange("cq log2"));
    }
    if !base.is_multiple_of(16) {
        return Err(DeviceError::Misaligned("cq base"));
    }
    dev.mmio_write(regs::cq_reg(cq, regs::CQ_BASE), base);
    dev.mmio_write(regs::cq_reg(cq, regs::CQ_LOG2), u32::from(log2));
    Ok(())
}

/// Reads a QP's latched asynchronous event (`QP_AEV`).
pub fn read_async_event(dev: &mut impl Device, qp: usize) -> Option<crate::qp::AsyncEvent> {
    crate::qp::AsyncEvent::from_register(dev.mmio_read(regs::qp_reg(qp, regs::QP_AEV)))
}
