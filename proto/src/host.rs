//! The host interface of the RNIC: the MMIO register map and the descriptor formats (SQ WQE,
//! RQ WQE, CQE) the driver and the hardware exchange through host-memory rings.
//!
//! One source of truth: the hardware's register file and descriptor parsers
//! (`rnic-hdl` `host`, `rdmap::send_engine`), the driver and the test benches all use these
//! numbers. Decisions (`docs/decisions.md`, "Host interface"):
//!
//! - **Descriptors are big-endian** (like mlx5's WQEs and CQEs): a DMA beat carries byte 0 in
//!   its most significant lane (DESIGN.md "Interface conventions"), so every 32-bit field of a
//!   descriptor is one beat as it comes from the bus, with no byte swap in hardware.
//! - **Rings** have `2^log2` entries; producer and consumer indexes are free-running counters
//!   of the core's ring index width (entry = index mod size): 16 bits, or 12 in the Alchitry Cu
//!   build (`regs::FEATURES_RING_INDEX_SHIFT`), carried in `[15:0]` fields with the upper bits
//!   ignored / read 0. A ring is empty when the indexes are equal and full when they differ by
//!   the size, so it has at most half the index space (`2^(bits-1)` entries). The SQ and RQ
//!   producer indexes are doorbells (MMIO writes); the CQ producer index is readable, and each
//!   CQE carries an owner (phase) bit so that the driver can poll host memory instead.
//! - **One SGE per work request** in this version (`length`, `lkey`, `addr`); scatter/gather
//!   lists are left for later (the WQE has room: it is 32 octets, the next version 64).
//! - A CQE names its work request by **ring index** (`wqe_index`); the driver keeps the
//!   `wr_id` of each index, as mlx5's `wqe_counter` does.

/// MMIO register offsets (octets; 32-bit registers, 32-bit aligned).
pub mod regs {
    /// Bits of an MMIO address.
    pub const MMIO_ADDR_BITS: usize = 12;

    /// Read only: [`ID_VALUE`].
    pub const ID: u16 = 0x000;
    /// "RNIC".
    pub const ID_VALUE: u32 = 0x524E_4943;
    /// Read only: register map version, major << 16 | minor.
    pub const VERSION: u16 = 0x004;
    /// Version 2.0 of this map (2.0: the STag registers paired, see [`STAG_COMMIT`]; the SQ
    /// log2 in [`QP_SQ_BASE`]).
    pub const VERSION_VALUE: u32 = 0x0002_0000;
    /// Read only: `[7:0]` QPs, `[15:8]` CQs, `[23:16]` log2 of the STag table entries,
    /// `[31:24]` datapath width in octets.
    pub const CAPS: u16 = 0x008;
    /// Read only: bit [`STATUS_RX_IDLE`], bit [`STATUS_TX_IDLE`], as they were in the cycle
    /// before the read's first (the core registers them).
    pub const STATUS: u16 = 0x00C;
    /// The receive path is drained (RxPath `rx_idle`).
    pub const STATUS_RX_IDLE: u32 = 1 << 0;
    /// The transmit side (send engine, read responder, DDP TX, MPA TX) has nothing in flight.
    pub const STATUS_TX_IDLE: u32 = 1 << 1;
    /// Read only: the build-time capabilities of the core, see the `FEATURES_*` bits (the
    /// hardware's `rnic_hdl::config`; CAPS has no free field). Bits not defined read 0.
    pub const FEATURES: u16 = 0x010;
    /// The MPA blocks implement markers (RFC 5044 §5). Without it (the Alchitry Cu build,
    /// `no-markers`) the core ignores `QP_CTRL_RX_MARKERS` / `QP_CTRL_TX_MARKERS` and the
    /// firmware negotiates markers off: it never sends M = 1 and refuses a peer that sends it
    /// (`docs/decisions.md` "Markers as a build-time capability (no-markers)").
    pub const FEATURES_MARKERS: u32 = 1 << 0;
    /// `[15:8]`: the bits of a host (DMA) address the core drives: 32, or 24 in the Alchitry
    /// Cu build (a 16 MiB host window, `docs/decisions.md` "Host addresses of 24 bits in the
    /// Alchitry Cu profile"). Rings, CQs and registered regions must lie below
    /// `1 << bits`: the driver refuses the others. 0 (a core before this field) means 32.
    pub const FEATURES_DMA_ADDR_SHIFT: u32 = 8;
    /// The field's mask (after the shift).
    pub const FEATURES_DMA_ADDR_MASK: u32 = 0xFF;

    /// A width field of FEATURES at `shift` (`mask` after the shift); 0, a core before the
    /// field, reads as `default`.
    fn features_width(features: u32, shift: u32, mask: u32, default: u32) -> u32 {
        match features >> shift & mask {
            0 => default,
            b => b,
        }
    }

    /// The host address bits a FEATURES value reports (`FEATURES_DMA_ADDR_*`; 0 reads as 32).
    pub fn features_dma_addr_bits(features: u32) -> u32 {
        features_width(
            features,
            FEATURES_DMA_ADDR_SHIFT,
            FEATURES_DMA_ADDR_MASK,
            32,
        )
    }
    /// `[23:16]`: the bits of a ring index the core keeps: 16, or 12 in the Alchitry Cu build
    /// (`docs/decisions.md` "Ring indexes of 12 bits in the Alchitry Cu profile"). A ring (SQ,
    /// RQ, CQ) has at most `1 << (bits - 1)` entries (full must differ from empty): the driver
    /// refuses larger ones. The index fields below stay `[15:0]`: the core ignores the bits
    /// above `bits` on write and reads them as 0, as it writes a CQE's `wqe_index`. 0 (a core
    /// before this field) means 16.
    pub const FEATURES_RING_INDEX_SHIFT: u32 = 16;
    /// The field's mask (after the shift).
    pub const FEATURES_RING_INDEX_MASK: u32 = 0xFF;

    /// The ring index bits a FEATURES value reports (`FEATURES_RING_INDEX_*`; 0 reads as 16).
    pub fn features_ring_index_bits(features: u32) -> u32 {
        features_width(
            features,
            FEATURES_RING_INDEX_SHIFT,
            FEATURES_RING_INDEX_MASK,
            16,
        )
    }

    /// `[31:24]`: the bits of a local length the core keeps: 32, or 24 in the Alchitry Cu
    /// build (`docs/decisions.md` "Local lengths of 24 bits in the Alchitry Cu profile"). A
    /// WQE's length (SQ and RQ) and a registered region's length must be below `1 << bits`:
    /// the driver refuses the others. 0 (a core before this field) means 32.
    pub const FEATURES_LEN_SHIFT: u32 = 24;
    /// The field's mask (after the shift).
    pub const FEATURES_LEN_MASK: u32 = 0xFF;

    /// The local length bits a FEATURES value reports (`FEATURES_LEN_*`; 0 reads as 32).
    pub fn features_len_bits(features: u32) -> u32 {
        features_width(features, FEATURES_LEN_SHIFT, FEATURES_LEN_MASK, 32)
    }

    // STag table programming: stage the fields, then write STAG_COMMIT with the host address.
    // The base TO's and the length's low and high halves are paired ([`stag_to_len_lo`],
    // [`stag_to_len_hi`]) and the host address is the commit's own data, so that the hardware
    // reads the fields the table's first word needs from its register RAMs in the commit's
    // cycle and keeps the rest in 32 flip-flops (`docs/decisions.md` "HostIf: the STag
    // registers paired", map version 2.0; 1.0 had STAG_BASE_TO_LO 0x048, STAG_LEN 0x050 and
    // STAG_HOST_ADDR 0x054).
    /// `[23:0]` the entry index (STag bits 31..8).
    pub const STAG_INDEX: u16 = 0x040;
    /// Entry flags, see the `STAG_FLAGS_*` fields.
    pub const STAG_FLAGS: u16 = 0x044;
    /// `[7:0]` key.
    pub const STAG_FLAGS_KEY_SHIFT: u32 = 0;
    /// `[11:8]` protection domain.
    pub const STAG_FLAGS_PD_SHIFT: u32 = 8;
    /// `[15:12]` access rights ([`crate::verbs::access`]).
    pub const STAG_FLAGS_ACCESS_SHIFT: u32 = 12;
    /// `[16]` the entry is valid (0: the commit invalidates the entry).
    pub const STAG_FLAGS_VALID: u32 = 1 << 16;
    /// `[17]` bound to one QP (a memory window), the QP in `[27:24]`.
    pub const STAG_FLAGS_QP_BOUND: u32 = 1 << 17;
    /// `[18]` a remote peer may invalidate it (Send with Invalidate).
    pub const STAG_FLAGS_REMOTE_INV: u32 = 1 << 18;
    /// `[27:24]` the QP of a bound entry.
    pub const STAG_FLAGS_QP_SHIFT: u32 = 24;
    /// `[15:0]` base tagged offset bits 15..0, `[31:16]` region length bits 15..0
    /// ([`stag_to_len_lo`]).
    pub const STAG_TO_LEN_LO: u16 = 0x048;
    /// Base tagged offset, high 32 bits.
    pub const STAG_BASE_TO_HI: u16 = 0x04C;
    /// `[15:0]` base tagged offset bits 31..16, `[31:16]` region length bits 31..16
    /// ([`stag_to_len_hi`]).
    pub const STAG_TO_LEN_HI: u16 = 0x050;
    /// Write: program the entry from the staged fields; the value written is the host (DMA)
    /// address of the region's first octet. Reads 0.
    pub const STAG_COMMIT: u16 = 0x058;

    /// QP_SQ_BASE's value: the SQ ring's 32-octet aligned host address `base` and the log2
    /// of its entries.
    pub const fn qp_sq_base(base: u32, log2: u32) -> u32 {
        (base & !0x1F) | (log2 & 0xF)
    }

    /// STAG_TO_LEN_LO's value: the low halves of the base TO and the length.
    pub const fn stag_to_len_lo(base_to: u64, len: u32) -> u32 {
        (base_to as u32 & 0xFFFF) | (len << 16)
    }

    /// STAG_TO_LEN_HI's value: bits 31..16 of the base TO and the length.
    pub const fn stag_to_len_hi(base_to: u64, len: u32) -> u32 {
        ((base_to as u32) >> 16) | (len & 0xFFFF_0000)
    }

    /// Per-QP registers: `QP_REGS + qp * QP_STRIDE + offset`.
    pub const QP_REGS: u16 = 0x100;
    /// Distance between two QPs' register blocks.
    pub const QP_STRIDE: u16 = 0x40;
    /// Write: commit the QP context (the staged ULPDU / SQ / RQ registers and these bits) to
    /// every block and reset the QP's state (MSNs 1, MO 0, ring indexes 0, ORQ / IRQ 0, no
    /// error, MPA stream offset 0). The firmware writes it only when `STATUS_RX_IDLE` (and the
    /// QP's LLP input stopped, `rdmap::rx_path`). Read: the last value written.
    pub const QP_CTRL: u16 = 0x00;
    /// `[0]` the QP is enabled (RTS).
    pub const QP_CTRL_ENABLE: u32 = 1 << 0;
    /// `[1]` the connection is in FPDU mode (0: raw mode, during MPA setup).
    pub const QP_CTRL_FPDU_MODE: u32 = 1 << 1;
    /// `[2]` check the CRC of received FPDUs.
    pub const QP_CTRL_RX_CRC: u32 = 1 << 2;
    /// `[3]` received FPDUs carry markers.
    pub const QP_CTRL_RX_MARKERS: u32 = 1 << 3;
    /// `[4]` compute the CRC of sent FPDUs (else 0).
    pub const QP_CTRL_TX_CRC: u32 = 1 << 4;
    /// `[5]` insert markers into sent FPDUs.
    pub const QP_CTRL_TX_MARKERS: u32 = 1 << 5;
    /// `[11:8]` protection domain.
    pub const QP_CTRL_PD_SHIFT: u32 = 8;
    /// `[15:12]` IRD: inbound Read Requests the QP queues at most.
    pub const QP_CTRL_IRD_SHIFT: u32 = 12;
    /// `[19:16]` ORD: outbound Read Requests outstanding at most (0 stalls every Read).
    pub const QP_CTRL_ORD_SHIFT: u32 = 16;
    /// `[21:20]` the CQ of send-side completions.
    pub const QP_CTRL_SEND_CQ_SHIFT: u32 = 20;
    /// `[23:22]` the CQ of receive completions.
    pub const QP_CTRL_RECV_CQ_SHIFT: u32 = 22;
    /// `[15:0]` the largest ULPDU accepted (MPA receive check); `[31:16]` the largest ULPDU
    /// sent (the peer's MULPDU: DDP segments are cut to it).
    pub const QP_ULPDU: u16 = 0x04;
    /// `[31:5]` SQ ring host address (32-octet aligned), `[3:0]` log2 of the SQ entries (at
    /// most the ring index bits - 1: 15, or 11 in the Alchitry Cu build), `[4]` 0:
    /// [`qp_sq_base`]. (Map 1.0 had the log2 in its own register at 0x0C,
    /// now unmapped: the QP_CTRL commit reads both from the one register-RAM word, no
    /// flip-flops, `docs/decisions.md` "HostIf: the SQ log2 in QP_SQ_BASE".)
    pub const QP_SQ_BASE: u16 = 0x08;
    /// Write: SQ doorbell, the new producer index `[15:0]` (bits at and above the ring index
    /// width, FEATURES `[23:16]`, ignored).
    pub const QP_SQ_PI: u16 = 0x10;
    /// RQ ring host address (16-octet aligned: `[3:0]` are ignored).
    pub const QP_RQ_BASE: u16 = 0x14;
    /// `[3:0]` log2 of the RQ entries (at most the ring index bits - 1: 15, or 11 in the
    /// Alchitry Cu build).
    pub const QP_RQ_LOG2: u16 = 0x18;
    /// Write: RQ doorbell, the new producer index `[15:0]` (bits at and above the ring index
    /// width ignored: they read back 0).
    pub const QP_RQ_PI: u16 = 0x1C;
    /// Read: the RQ consumer index `[15:0]` (receive WQEs consumed, modulo `2^bits` of the ring
    /// index width; the bits above read 0).
    pub const QP_RQ_CI: u16 = 0x20;
    /// Read: the first asynchronous event of the QP since its QP_CTRL write: `[31]` valid,
    /// `[23:16]` kind ([`crate::verbs::AsyncEventKind`]), `[15:12]` layer, `[11:8]` error
    /// type, `[7:0]` code.
    pub const QP_AEV: u16 = 0x24;
    /// Valid bit of `QP_AEV`.
    pub const QP_AEV_VALID: u32 = 1 << 31;
    /// Read: bit [`QP_STATUS_ERROR`], bit [`QP_STATUS_FPDU_RECEIVED`].
    pub const QP_STATUS: u16 = 0x28;
    /// `QP_STATUS[0]`: the QP is in error (an asynchronous event was raised).
    pub const QP_STATUS_ERROR: u32 = 1 << 0;
    /// `QP_STATUS[1]`: an FPDU of the QP's connection passed MPA's checks (its CRC, when on)
    /// since the `QP_CTRL` write: the Responder's send fence may lift (RFC 5044 §7.1.2,
    /// `mpa-peer-connect.md` MPA-ST-4), and a peer-to-peer Responder has its RTR (§2.4).
    pub const QP_STATUS_FPDU_RECEIVED: u32 = 1 << 1;

    /// Per-CQ registers: `CQ_REGS + cq * CQ_STRIDE + offset`.
    pub const CQ_REGS: u16 = 0x200;
    /// Distance between two CQs' register blocks.
    pub const CQ_STRIDE: u16 = 0x20;
    /// CQ ring host address (16-octet aligned).
    pub const CQ_BASE: u16 = 0x00;
    /// Write `[3:0]` log2 of the CQ entries (at most the ring index bits - 1: 15, or 11 in the
    /// Alchitry Cu build): commits the CQ (producer and consumer index 0, phase 1, overflow
    /// cleared).
    pub const CQ_LOG2: u16 = 0x04;
    /// Read: the producer index `[15:0]` (CQEs written, modulo `2^bits` of the ring index
    /// width; the bits above read 0).
    pub const CQ_PI: u16 = 0x08;
    /// Write: the consumer index `[15:0]` (CQEs the driver has taken; bits at and above the
    /// ring index width ignored: they read back 0).
    pub const CQ_CI: u16 = 0x0C;
    /// Read: `[0]` overflowed (RFC 5040 §8.1 item 10): a CQE found the ring full; the CQ drops
    /// every later CQE until it is committed again.
    pub const CQ_STATUS: u16 = 0x10;

    /// The address of a per-QP register.
    pub const fn qp_reg(qp: usize, offset: u16) -> u16 {
        QP_REGS + qp as u16 * QP_STRIDE + offset
    }

    /// The address of a per-CQ register.
    pub const fn cq_reg(cq: usize, offset: u16) -> u16 {
        CQ_REGS + cq as u16 * CQ_STRIDE + offset
    }
}

/// CQ register windows of the map (`regs::CQ_REGS`, `regs::CQ_STRIDE`): the most CQs a core can
/// have. A core reports its own count in CAPS \[15:8\] (4, or 2 when built with `two-qps`); the
/// windows of CQs it does not have read 0 and ignore writes.
pub const CQS: usize = 4;

/// QP register windows of the map (`regs::QP_REGS` .. `regs::CQ_REGS`): the most QPs a core
/// can have. A core reports its own count in CAPS \[7:0\] (4, or 2 when built with `two-qps`);
/// the windows of QPs it does not have read 0 and ignore writes.
pub const QP_WINDOWS: usize = ((regs::CQ_REGS - regs::QP_REGS) / regs::QP_STRIDE) as usize;

/// Octets of an SQ WQE.
pub const SQ_WQE_LEN: usize = 32;
/// Octets of an RQ WQE.
pub const RQ_WQE_LEN: usize = 16;
/// Octets of a CQE.
pub const CQE_LEN: usize = 16;

wire_enum! {
    /// The operation of an SQ WQE (octet 0).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum WqeOpcode {
        /// RDMA Write: `length` octets from (`lkey`, `addr`) to (`rkey`, `remote_addr`).
        RdmaWrite = 0,
        /// RDMA Read: `length` octets from (`rkey`, `remote_addr`) into (`lkey`, `addr`).
        RdmaRead = 1,
        /// Send.
        Send = 2,
        /// Send with Invalidate of `rkey` at the peer.
        SendInv = 3,
        /// Send with Solicited Event.
        SendSe = 4,
        /// Send with Solicited Event and Invalidate of `rkey`.
        SendSeInv = 5,
    }

    impl WqeOpcode {
        /// Every opcode.
        pub const ALL: [WqeOpcode; 6];
        /// The opcode of a value, if any.
        pub const fn from_u8(value: u8) -> Option<Self>;
    }
}

impl WqeOpcode {
    /// The RDMAP opcode of the message the WQE sends first.
    pub const fn rdmap_opcode(self) -> u8 {
        match self {
            WqeOpcode::RdmaWrite => 0,
            WqeOpcode::RdmaRead => 1,
            WqeOpcode::Send => 3,
            WqeOpcode::SendInv => 4,
            WqeOpcode::SendSe => 5,
            WqeOpcode::SendSeInv => 6,
        }
    }

    /// The work-completion opcode of the WQE.
    pub const fn wc_opcode(self) -> crate::verbs::WcOpcode {
        match self {
            WqeOpcode::RdmaWrite => crate::verbs::WcOpcode::RdmaWrite,
            WqeOpcode::RdmaRead => crate::verbs::WcOpcode::RdmaRead,
            _ => crate::verbs::WcOpcode::Send,
        }
    }
}

/// SQ WQE flags (octet 1).
pub mod wqe_flags {
    /// Write a CQE when the WQE completes successfully (errors always complete).
    pub const SIGNALED: u8 = 1 << 0;
    /// Hold the WQE until every earlier RDMA Read of the QP has completed (RFC 5040 rule 13).
    pub const FENCE: u8 = 1 << 1;
}

/// CQE flags (octet 13).
pub mod cqe_flags {
    /// A received Send with Invalidate: `inv_stag` was invalidated.
    pub const WITH_INV: u8 = 1 << 0;
    /// A received Send with Solicited Event.
    pub const SOLICITED: u8 = 1 << 1;
}

/// Why a descriptor could not be parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DescError {
    /// The buffer is shorter than the descriptor.
    Truncated,
    /// Octet 0 of an SQ WQE is no [`WqeOpcode`].
    UnknownOpcode(u8),
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn be64(b: &[u8], at: usize) -> u64 {
    (u64::from(be32(b, at)) << 32) | u64::from(be32(b, at + 4))
}

/// An SQ WQE (32 octets, big-endian):
///
/// | octets | field |
/// |---|---|
/// | 0 | opcode ([`WqeOpcode`]) |
/// | 1 | flags ([`wqe_flags`]) |
/// | 2..4 | reserved, 0 |
/// | 4..8 | length (octets) |
/// | 8..12 | lkey: the local STag |
/// | 12..16 | rkey: the remote STag (Write, Read) or the STag to invalidate (Send with Invalidate) |
/// | 16..24 | addr: the local tagged offset |
/// | 24..32 | remote_addr: the remote tagged offset (Write, Read) |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SqWqe {
    pub opcode: WqeOpcode,
    pub flags: u8,
    pub length: u32,
    pub lkey: u32,
    pub rkey: u32,
    pub addr: u64,
    pub remote_addr: u64,
}

impl SqWqe {
    /// Parses the first [`SQ_WQE_LEN`] octets of `b`.
    pub fn parse(b: &[u8]) -> Result<Self, DescError> {
        if b.len() < SQ_WQE_LEN {
            return Err(DescError::Truncated);
        }
        Ok(SqWqe {
            opcode: WqeOpcode::from_u8(b[0]).ok_or(DescError::UnknownOpcode(b[0]))?,
            flags: b[1],
            length: be32(b, 4),
            lkey: be32(b, 8),
            rkey: be32(b, 12),
            addr: be64(b, 16),
            remote_addr: be64(b, 24),
        })
    }

    /// The 32 octets of the WQE.
    pub fn emit(&self) -> [u8; SQ_WQE_LEN] {
        let mut b = [0u8; SQ_WQE_LEN];
        b[0] = self.opcode as u8;
        b[1] = self.flags;
        b[4..8].copy_from_slice(&self.length.to_be_bytes());
        b[8..12].copy_from_slice(&self.lkey.to_be_bytes());
        b[12..16].copy_from_slice(&self.rkey.to_be_bytes());
        b[16..24].copy_from_slice(&self.addr.to_be_bytes());
        b[24..32].copy_from_slice(&self.remote_addr.to_be_bytes());
        b
    }
}

/// An RQ WQE (16 octets, big-endian): 0..4 length, 4..8 lkey, 8..16 addr (tagged offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RqWqe {
    pub length: u32,
    pub lkey: u32,
    pub addr: u64,
}

impl RqWqe {
    /// Parses the first [`RQ_WQE_LEN`] octets of `b`.
    pub fn parse(b: &[u8]) -> Result<Self, DescError> {
        if b.len() < RQ_WQE_LEN {
            return Err(DescError::Truncated);
        }
        Ok(RqWqe {
            length: be32(b, 0),
            lkey: be32(b, 4),
            addr: be64(b, 8),
        })
    }

    /// The 16 octets of the WQE.
    pub fn emit(&self) -> [u8; RQ_WQE_LEN] {
        let mut b = [0u8; RQ_WQE_LEN];
        b[0..4].copy_from_slice(&self.length.to_be_bytes());
        b[4..8].copy_from_slice(&self.lkey.to_be_bytes());
        b[8..16].copy_from_slice(&self.addr.to_be_bytes());
        b
    }
}

/// A CQE (16 octets, big-endian):
///
/// | octets | field |
/// |---|---|
/// | 0..2 | wqe_index: ring index of the SQ or RQ WQE (modulo `2^bits` of the ring index width) |
/// | 2 | opcode ([`crate::verbs::WcOpcode`]) |
/// | 3 | status ([`crate::verbs::WcStatus`]) |
/// | 4..8 | byte_len (received octets of a Recv; the WQE's length for a send-side success) |
/// | 8..12 | inv_stag (a Recv with [`cqe_flags::WITH_INV`]) |
/// | 12 | qp |
/// | 13 | flags ([`cqe_flags`]) |
/// | 14 | reserved, 0 |
/// | 15 | bit 0: owner (phase): 1 on the first pass over the ring, flipped at each wrap |
///
/// The opcode and status octets are kept raw so that a CQE from a misbehaving device still
/// parses; [`crate::verbs::WcOpcode::from_u8`] and [`crate::verbs::WcStatus::from_u8`]
/// decode them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cqe {
    pub wqe_index: u16,
    pub opcode: u8,
    pub status: u8,
    pub byte_len: u32,
    pub inv_stag: u32,
    pub qp: u8,
    pub flags: u8,
    pub owner: bool,
}

impl Cqe {
    /// Parses the first [`CQE_LEN`] octets of `b`.
    pub fn parse(b: &[u8]) -> Result<Self, DescError> {
        if b.len() < CQE_LEN {
            return Err(DescError::Truncated);
        }
        Ok(Cqe {
            wqe_index: u16::from_be_bytes([b[0], b[1]]),
            opcode: b[2],
            status: b[3],
            byte_len: be32(b, 4),
            inv_stag: be32(b, 8),
            qp: b[12],
            flags: b[13],
            owner: b[15] & 1 == 1,
        })
    }

    /// The 16 octets of the CQE.
    pub fn emit(&self) -> [u8; CQE_LEN] {
        let mut b = [0u8; CQE_LEN];
        b[0..2].copy_from_slice(&self.wqe_index.to_be_bytes());
        b[2] = self.opcode;
        b[3] = self.status;
        b[4..8].copy_from_slice(&self.byte_len.to_be_bytes());
        b[8..12].copy_from_slice(&self.inv_stag.to_be_bytes());
        b[12] = self.qp;
        b[13] = self.flags;
        b[15] = u8::from(self.owner);
        b
    }
}

/// The owner (phase) bit a CQE written at free-running producer index `pi` of a ring of
/// `2^log2` entries carries: 1 on the first pass, flipped at each wrap.
pub const fn cqe_owner(pi: u16, log2: u32) -> bool {
    (pi >> log2) & 1 == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::{WcOpcode, WcStatus};

    #[test]
    fn sq_wqe_round_trip_and_layout() {
        let w = SqWqe {
            opcode: WqeOpcode::SendSeInv,
            flags: wqe_flags::SIGNALED | wqe_flags::FENCE,
            length: 0x0102_0304,
            lkey: 0x0000_0142,
            rkey: 0xAABB_CCDD,
            addr: 0x1122_3344_5566_7788,
            remote_addr: 0x99AA_BBCC_DDEE_FF00,
        };
        let b = w.emit();
        assert_eq!(&b[..8], &[5, 3, 0, 0, 1, 2, 3, 4]);
        assert_eq!(&b[12..16], &[0xAA, 0xBB, 0xCC, 0xDD]);
        assert_eq!(b[16], 0x11);
        assert_eq!(SqWqe::parse(&b), Ok(w));
        assert_eq!(SqWqe::parse(&b[..31]), Err(DescError::Truncated));
        let mut bad = b;
        bad[0] = 0x40;
        assert_eq!(SqWqe::parse(&bad), Err(DescError::UnknownOpcode(0x40)));
    }

    #[test]
    fn rq_wqe_and_cqe_round_trip() {
        let r = RqWqe {
            length: 4096,
            lkey: 0x0203,
            addr: 0x8000,
        };
        assert_eq!(RqWqe::parse(&r.emit()), Ok(r));
        let c = Cqe {
            wqe_index: 0x1234,
            opcode: WcOpcode::Recv as u8,
            status: WcStatus::LocLenErr as u8,
            byte_len: 77,
            inv_stag: 0x0000_0501,
            qp: 3,
            flags: cqe_flags::WITH_INV,
            owner: true,
        };
        let b = c.emit();
        assert_eq!(&b[..4], &[0x12, 0x34, 128, 1]);
        assert_eq!(b[15], 1);
        assert_eq!(Cqe::parse(&b), Ok(c));
    }

    #[test]
    fn owner_bit_flips_per_pass() {
        assert!(cqe_owner(0, 2));
        assert!(cqe_owner(3, 2));
        assert!(!cqe_owner(4, 2));
        assert!(cqe_owner(8, 2));
        assert!(!cqe_owner(0xFFFF, 2));
    }

    #[test]
    fn paired_register_values() {
        let (to, len) = (0x5566_7788_1122_3344u64, 0x0001_0203u32);
        assert_eq!(regs::stag_to_len_lo(to, len), 0x0203_3344);
        assert_eq!(regs::stag_to_len_hi(to, len), 0x0001_1122);
        assert_eq!(regs::qp_sq_base(0x4000_1030, 9), 0x4000_1029);
    }

    #[test]
    fn features_fields() {
        // A core before the fields reads 0: 32 address bits, 16 ring index bits.
        assert_eq!(regs::features_dma_addr_bits(0), 32);
        assert_eq!(regs::features_ring_index_bits(0), 16);
        // The Alchitry Cu build: markers off, 24 address bits, 12 ring index bits; the field
        // at [31:24] does not leak into [23:16].
        let cu = 24 << regs::FEATURES_DMA_ADDR_SHIFT | 12 << regs::FEATURES_RING_INDEX_SHIFT;
        assert_eq!(regs::features_dma_addr_bits(cu), 24);
        assert_eq!(regs::features_ring_index_bits(cu), 12);
        assert_eq!(regs::features_ring_index_bits(cu | 0xFF00_0000), 12);
        assert_eq!(regs::features_ring_index_bits(16 << 16 | 1), 16);
    }

    #[test]
    fn register_blocks_do_not_overlap() {
        assert!(regs::qp_reg(3, regs::QP_STATUS) < regs::CQ_REGS);
        assert!(regs::cq_reg(CQS - 1, regs::CQ_STATUS) < 1 << regs::MMIO_ADDR_BITS);
        // The read-only global registers: distinct, aligned, below the STag staging registers.
        let globals = [
            regs::ID,
            regs::VERSION,
            regs::CAPS,
            regs::STATUS,
            regs::FEATURES,
        ];
        for (i, a) in globals.iter().enumerate() {
            assert!(a % 4 == 0 && *a < regs::STAG_INDEX);
            assert!(!globals[..i].contains(a));
        }
        assert_eq!(WqeOpcode::SendInv.rdmap_opcode(), 4);
        assert_eq!(WqeOpcode::RdmaRead.wc_opcode(), WcOpcode::RdmaRead);
    }
}
