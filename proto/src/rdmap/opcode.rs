//! The RDMAP control field (RV, Rsv, OpCode) and every opcode: RFC 5040, RFC 7306 and
//! draft-talpey-rdma-commit-01.
//!
//! Catalogs: `rfc5040-rdmap.md` §1.2, §1.3; `rfc7306-atomics-immediate.md` §0, §1.1;
//! `rdma-commit.md` §0, §1.8 P-1 and `DESIGN.md` ("commit extensions use 5-bit opcodes with the
//! reserved bit next to the opcode, only on QPs where the extension was enabled").

use super::Error;
use crate::ddp;

/// RDMAP version (RV) of RFC 5040: `01b` (`00b` was the RDMA Consortium RDMAP, not supported).
/// `rfc5040-rdmap.md` §1.2.
pub const RDMAP_VERSION: u8 = 1;
/// RV in the RDMAP control octet (DDP octet 1). `rfc5040-rdmap.md` §1.2.
pub const RV_MASK: u8 = 0xC0;
/// Rsv in the RDMAP control octet: 0 on transmit, ignored on receive. With the commit extension
/// enabled its low bit is opcode bit 4 (see [`OPCODE_MASK_COMMIT`]). `rfc5040-rdmap.md` §1.2.
pub const RSV_MASK: u8 = 0x30;
/// OpCode in the RDMAP control octet (4 bits, RFC 5040 / RFC 7306). `rfc5040-rdmap.md` §1.2.
pub const OPCODE_MASK: u8 = 0x0F;
/// OpCode in the RDMAP control octet on a QP with the commit extension: 5 bits, the low Rsv bit
/// next to the opcode is opcode bit 4. `rdma-commit.md` §1.8 P-1, Q-1 (a), `DESIGN.md`.
pub const OPCODE_MASK_COMMIT: u8 = 0x1F;

/// Which RDMAP extensions a QP has enabled; selects the opcodes and QNs a receiver accepts.
///
/// RFC 5040 opcodes 0x0-0x7 and QNs 0-2 are always accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Extensions {
    /// RFC 7306: opcodes 0x8-0xB and QN 3. `rfc7306-atomics-immediate.md` §0.
    pub atomics_immediate: bool,
    /// draft-talpey-rdma-commit-01: opcodes 0xC-0x11 (5-bit opcode field) and QN 3.
    /// `rdma-commit.md` §0.
    pub commit: bool,
}

impl Extensions {
    /// RFC 5040 only.
    pub const NONE: Extensions = Extensions {
        atomics_immediate: false,
        commit: false,
    };
    /// RFC 5040 + RFC 7306.
    pub const RFC7306: Extensions = Extensions {
        atomics_immediate: true,
        commit: false,
    };
    /// RFC 5040 + RFC 7306 + the commit extensions.
    pub const ALL: Extensions = Extensions {
        atomics_immediate: true,
        commit: true,
    };

    /// The mask that extracts the opcode from the RDMAP control octet on such a QP.
    pub const fn opcode_mask(self) -> u8 {
        if self.commit {
            OPCODE_MASK_COMMIT
        } else {
            OPCODE_MASK
        }
    }

    /// Whether an untagged segment may carry this QN on such a QP: 0, 1, 2 always; 3 with RFC 7306
    /// or the commit extension. `rfc5040-rdmap.md` §1.7, `rfc7306-atomics-immediate.md` §0.
    pub const fn qn_valid(self, qn: u32) -> bool {
        match qn {
            ddp::QN_SEND | ddp::QN_READ_REQUEST | ddp::QN_TERMINATE => true,
            ddp::QN_ATOMIC_RESPONSE => self.atomics_immediate || self.commit,
            _ => false,
        }
    }
}

/// Which specification defines an opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Spec {
    /// RFC 5040.
    Rfc5040,
    /// RFC 7306.
    Rfc7306,
    /// draft-talpey-rdma-commit-01.
    Commit,
}

wire_enum! {
    /// Every RDMAP opcode. `rfc5040-rdmap.md` §1.3 (Figure 4), `rfc7306-atomics-immediate.md` §0,
    /// `rdma-commit.md` §0 (Table 1; P-4: Atomic Write Response is 0x11).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[repr(u8)]
    pub enum Opcode {
        /// RDMA Write: tagged. RFC 5040.
        RdmaWrite = 0x0,
        /// RDMA Read Request: untagged, QN 1, 28-octet header. RFC 5040.
        RdmaReadRequest = 0x1,
        /// RDMA Read Response: tagged. RFC 5040.
        RdmaReadResponse = 0x2,
        /// Send: untagged, QN 0. RFC 5040.
        Send = 0x3,
        /// Send with Invalidate: untagged, QN 0, Invalidate STag. RFC 5040.
        SendInvalidate = 0x4,
        /// Send with Solicited Event: untagged, QN 0. RFC 5040.
        SendSe = 0x5,
        /// Send with Solicited Event and Invalidate: untagged, QN 0, Invalidate STag. RFC 5040.
        SendSeInvalidate = 0x6,
        /// Terminate: untagged, QN 2, Terminate header. RFC 5040.
        Terminate = 0x7,
        /// Immediate Data: untagged, QN 0, 8 octets. RFC 7306.
        ImmediateData = 0x8,
        /// Immediate Data with Solicited Event: untagged, QN 0, 8 octets. RFC 7306.
        ImmediateDataSe = 0x9,
        /// Atomic Request: untagged, QN 1, 52-octet header. RFC 7306.
        AtomicRequest = 0xA,
        /// Atomic Response: untagged, QN 3, 12-octet header. RFC 7306.
        AtomicResponse = 0xB,
        /// RDMA Flush Request: untagged, QN 1, 20 octets. draft-talpey-rdma-commit-01.
        FlushRequest = 0xC,
        /// RDMA Flush Response: untagged, QN 3, no payload. draft-talpey-rdma-commit-01.
        FlushResponse = 0xD,
        /// RDMA Verify Request: untagged, QN 1, 16 + H octets. draft-talpey-rdma-commit-01.
        VerifyRequest = 0xE,
        /// RDMA Verify Response: untagged, QN 3, H' octets of hash. draft-talpey-rdma-commit-01.
        VerifyResponse = 0xF,
        /// Atomic Write Request: untagged, QN 1, 24 octets, 5-bit opcode.
        /// draft-talpey-rdma-commit-01.
        AtomicWriteRequest = 0x10,
        /// Atomic Write Response: untagged, QN 3, no payload, 5-bit opcode.
        /// draft-talpey-rdma-commit-01.
        AtomicWriteResponse = 0x11,
    }

    impl Opcode {
        /// Every opcode, in numeric order.
        pub const ALL: [Opcode; 18];

        /// The opcode with this numeric value, regardless of which extensions are enabled.
        pub const fn from_u8(value: u8) -> Option<Opcode>;

        /// Its numeric value.
        pub const fn value(self) -> u8;
    }
}

impl Opcode {
    /// The specification that defines it.
    pub const fn spec(self) -> Spec {
        match self as u8 {
            0x0..=0x7 => Spec::Rfc5040,
            0x8..=0xB => Spec::Rfc7306,
            _ => Spec::Commit,
        }
    }

    /// Whether a QP with these extensions accepts the opcode.
    pub const fn enabled(self, ext: Extensions) -> bool {
        match self.spec() {
            Spec::Rfc5040 => true,
            Spec::Rfc7306 => ext.atomics_immediate,
            Spec::Commit => ext.commit,
        }
    }

    /// T flag the message MUST use: tagged for RDMA Write and RDMA Read Response only.
    /// `rfc5040-rdmap.md` §1.3, `rfc7306-atomics-immediate.md` §1.1, `rdma-commit.md` §0.
    pub const fn is_tagged(self) -> bool {
        matches!(self, Opcode::RdmaWrite | Opcode::RdmaReadResponse)
    }

    /// The QN an untagged message uses; `None` for the tagged ones.
    /// `rfc5040-rdmap.md` §1.7, `rfc7306-atomics-immediate.md` §0, `rdma-commit.md` §0.
    pub const fn queue_number(self) -> Option<u32> {
        match self {
            Opcode::RdmaWrite | Opcode::RdmaReadResponse => None,
            Opcode::Send
            | Opcode::SendInvalidate
            | Opcode::SendSe
            | Opcode::SendSeInvalidate
            | Opcode::ImmediateData
            | Opcode::ImmediateDataSe => Some(ddp::QN_SEND),
            Opcode::RdmaReadRequest
            | Opcode::AtomicRequest
            | Opcode::FlushRequest
            | Opcode::VerifyRequest
            | Opcode::AtomicWriteRequest => Some(ddp::QN_READ_REQUEST),
            Opcode::Terminate => Some(ddp::QN_TERMINATE),
            Opcode::AtomicResponse
            | Opcode::FlushResponse
            | Opcode::VerifyResponse
            | Opcode::AtomicWriteResponse => Some(ddp::QN_ATOMIC_RESPONSE),
        }
    }

    /// Whether the untagged `RsvdULP[8:39]` is the Invalidate STag (Send with Invalidate, Send with
    /// SE and Invalidate). For every other untagged opcode it is 0 on transmit and ignored on
    /// receive. `rfc5040-rdmap.md` §1.2; for the commit requests see `docs/decisions.md`.
    pub const fn has_invalidate_stag(self) -> bool {
        matches!(self, Opcode::SendInvalidate | Opcode::SendSeInvalidate)
    }

    /// Whether the message may carry ULP payload (RDMA Write, Read Response and the Sends).
    /// `rfc5040-rdmap.md` §1.3 (Figure 5), `rfc7306-atomics-immediate.md` §1.1.
    pub const fn carries_ulp_payload(self) -> bool {
        matches!(
            self,
            Opcode::RdmaWrite
                | Opcode::RdmaReadResponse
                | Opcode::Send
                | Opcode::SendInvalidate
                | Opcode::SendSe
                | Opcode::SendSeInvalidate
        )
    }

    /// Whether the message asks for a Solicited Event.
    pub const fn solicited_event(self) -> bool {
        matches!(
            self,
            Opcode::SendSe | Opcode::SendSeInvalidate | Opcode::ImmediateDataSe
        )
    }

    /// The RDMAP control octet for this opcode: RV = [`RDMAP_VERSION`], Rsv = 0 (bit 4 of a
    /// 5-bit commit opcode lands in the low Rsv bit). `rfc5040-rdmap.md` §1.2.
    pub const fn control(self) -> u8 {
        (RDMAP_VERSION << RV_MASK.trailing_zeros()) | (self as u8 & OPCODE_MASK_COMMIT)
    }

    /// Decodes the RDMAP control octet on a QP with these extensions: checks RV first
    /// ([`Error::BadRdmapVersion`]), then the opcode ([`Error::UnknownOpcode`] for a reserved or
    /// not enabled value). Rsv bits outside the opcode are ignored.
    pub const fn from_control(control: u8, ext: Extensions) -> Result<Opcode, Error> {
        let rv = (control & RV_MASK) >> RV_MASK.trailing_zeros();
        if rv != RDMAP_VERSION {
            return Err(Error::BadRdmapVersion(rv));
        }
        let value = control & ext.opcode_mask();
        match Self::from_u8(value) {
            Some(op) if op.enabled(ext) => Ok(op),
            _ => Err(Error::UnknownOpcode(value)),
        }
    }
}

impl From<Opcode> for u8 {
    fn from(op: Opcode) -> u8 {
        op as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Control words of `rfc5040-rdmap.md` §1.2 and the octets of `rfc7306-atomics-immediate.md`
    /// §1.1 / `rdma-commit.md` §0.
    #[test]
    fn control_octets() {
        for op in Opcode::ALL {
            assert_eq!(Opcode::from_u8(op.value()), Some(op));
            assert_eq!(op.control(), 0x40 | op.value());
            assert_eq!(Opcode::from_control(op.control(), Extensions::ALL), Ok(op));
        }
        assert_eq!(Opcode::AtomicWriteRequest.control(), 0x50);
        assert_eq!(Opcode::AtomicWriteResponse.control(), 0x51);
    }

    /// P-1: without the commit extension 0x50 is an RDMA Write with a Rsv bit set.
    #[test]
    fn five_bit_opcode_only_with_commit() {
        assert_eq!(
            Opcode::from_control(0x50, Extensions::RFC7306),
            Ok(Opcode::RdmaWrite)
        );
        assert_eq!(
            Opcode::from_control(0x4C, Extensions::RFC7306),
            Err(Error::UnknownOpcode(0xC))
        );
        assert_eq!(
            Opcode::from_control(0x4A, Extensions::NONE),
            Err(Error::UnknownOpcode(0xA))
        );
        assert_eq!(
            Opcode::from_control(0x52, Extensions::ALL),
            Err(Error::UnknownOpcode(0x12))
        );
        assert_eq!(
            Opcode::from_control(0x00, Extensions::ALL),
            Err(Error::BadRdmapVersion(0))
        );
    }
}
