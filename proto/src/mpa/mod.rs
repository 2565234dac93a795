//! MPA: Marker PDU Aligned framing for TCP (RFC 5044) with the enhanced connection setup of
//! RFC 6581. Catalog: `mpa-peer-connect.md` (§1 Request/Reply, §4 error codes, §5 FPDU).
//!
//! | submodule | what | catalog |
//! |---|---|---|
//! | [`frame`] | MPA Request / Reply frames, revision 1 and 2, enhanced IRD/ORD/RTR data | §1, §3 |
//! | [`fpdu`] | one FPDU without markers (ULPDU_Length, ULPDU, PAD, CRC), markers, MULPDU | §5.1–§5.4 |
//! | [`framer`] | TX: a ULPDU to its wire octets, markers inserted on the 512-octet grid | §5.3 |
//! | [`deframer`] | RX: an LLP byte stream cut anywhere back to ULPDUs, markers and CRC checked | §5, §4.2 |
//!
//! Request/Reply frames travel in TCP streaming mode and are not FPDUs (§1.1); after them each
//! direction switches to FPDU mode, whose first octet is stream offset 0 for markers (§5.3).

pub mod deframer;
pub mod fpdu;
pub mod frame;
pub mod framer;

pub use deframer::{Deframer, DeframerConfig, Delivery, Status};
pub use fpdu::{
    fpdu_len, mulpdu, pad_len, Fpdu, FpduRepr, Marker, CRC_LEN, FPDUPTR_IGNORED_BITS,
    MARKER_INTERVAL, MARKER_LEN, MAX_ULPDU, MIN_FPDU_LEN, ULPDU_LENGTH_LEN,
};
pub use frame::{EnhancedData, Frame, FrameKind, FrameRepr, RtrOptions};
pub use framer::{fpdu_wire_len, Framer};

/// Everything that can be wrong with MPA input, or with a request to build MPA output.
///
/// Parsing never panics: malformed octets give one of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// Fewer octets than the header, or than PD_Length announces (ENH-RX-PDLEN, §1.4).
    Truncated,
    /// The key is neither "MPA ID Req Frame" nor "MPA ID Rep Frame" (ENH-RX-KEY, §1.4).
    BadKey,
    /// The key is the other role's key: a Request where a Reply was expected or the reverse,
    /// which is how Initiator/Initiator or Responder/Responder pairing shows (ENH-RX-KEY, §1.4).
    WrongKey,
    /// Rev is greater than the highest revision this model knows (ENH-RX-REV, §3.1).
    BadRevision,
    /// PD_Length is over 512 (ENH-RX-PDLEN, §1.4).
    PrivateDataTooLong,
    /// Octets follow Header+PD; a peer cannot legally send FPDUs yet (ENH-RX-EXTRA, §1.4).
    TrailingBytes,
    /// The R (reject) bit is set in a Request (ENH-RX-R0, §1.4).
    RejectInRequest,
    /// S=1 with Rev < 2: enhanced features need revision 2 (ENH-RX-S, §1.4).
    EnhancedNeedsRev2,
    /// S=1 but PD_Length < 4, so the Enhanced Connection Data is missing (ENH-RX-S, §1.4).
    EnhancedDataMissing,
    /// An IRD or ORD value does not fit the 14-bit field (§1.2); TX only.
    IrdOrdOutOfRange,
    /// The received CRC differs from the one computed over the FPDU (§4.2 code 0x02).
    BadCrc,
    /// A marker's FPDUPTR disagrees with the FPDU start found via ULPDU_Length (§4.2 code 0x03).
    BadMarker,
    /// ULPDU_Length is larger than the receiver accepts, or a ULPDU is over 65535 octets (§5.1).
    UlpduTooLong,
    /// With markers, a marker inside this FPDU would need an FPDUPTR over 0xFFFF (§5.3); TX only.
    FpduptrOverflow,
    /// With markers, the stream offset of an FPDU is not a multiple of 4 (§5.3); FPDUs and
    /// markers are always 4-aligned in MPA stream space.
    UnalignedStreamOffset,
    /// The output (or receive) buffer cannot hold what is asked of it.
    BufferTooSmall,
}

impl Error {
    /// The MPA Terminate error code (Layer 2) a receiver reports for this error, if any.
    ///
    /// Errors that only a local caller can make (buffer sizes, TX arguments) have none. A
    /// ULPDU_Length over the configured maximum has no specific RFC 5044 code; it is a local
    /// resource limit, so it maps to 0x5 Local Catastrophic ("any local error with no specific
    /// code", §4.1; decision recorded in `docs/decisions.md`).
    pub fn llp_error_code(self) -> Option<LlpErrorCode> {
        match self {
            Error::Truncated
            | Error::BadKey
            | Error::WrongKey
            | Error::BadRevision
            | Error::PrivateDataTooLong
            | Error::TrailingBytes
            | Error::RejectInRequest
            | Error::EnhancedNeedsRev2
            | Error::EnhancedDataMissing => Some(LlpErrorCode::InvalidRequestOrReply),
            Error::BadCrc => Some(LlpErrorCode::CrcError),
            Error::BadMarker => Some(LlpErrorCode::MarkerError),
            Error::UlpduTooLong => Some(LlpErrorCode::LocalCatastrophic),
            Error::IrdOrdOutOfRange
            | Error::FpduptrOverflow
            | Error::UnalignedStreamOffset
            | Error::BufferTooSmall => None,
        }
    }
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self, f)
    }
}

/// Terminate Layer value of MPA (LLP) errors: 0010b (§4.1).
pub const TERMINATE_LAYER_LLP: u8 = 0x2;
/// Terminate Error Type of MPA errors as the spec writes it, "Lower Layer Protocol" 0x3 (§4.1).
/// The default on TX; see §4.4 for the 0x0 convention.
pub const TERMINATE_ETYPE_LLP: u8 = 0x3;
/// Terminate Error Type 0x0 "MPA Error", the Linux siw / Wireshark convention for Layer 2
/// (§4.4); accepted on RX like any other type.
pub const TERMINATE_ETYPE_MPA: u8 = 0x0;

wire_enum! {
    /// MPA (Terminate Layer 2) error codes: 0x1–0x4 from RFC 5044 (§4.2), 0x5–0x7 added by
    /// RFC 6581 (§4.1). The discriminant is the on-wire Error Code octet.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum LlpErrorCode {
        /// 0x01: TCP connection closed, terminated or lost; local report only (§4.2).
        TcpConnectionLost = 0x01,
        /// 0x02: MPA CRC error, received CRC ≠ computed (§4.2).
        CrcError = 0x02,
        /// 0x03: MPA Marker and ULPDU_Length disagree on the FPDU start (§4.2).
        MarkerError = 0x03,
        /// 0x04: invalid MPA Request or Reply frame (§4.2).
        InvalidRequestOrReply = 0x04,
        /// 0x05: Local Catastrophic, a local error with no specific code (RFC 6581, §4.1).
        LocalCatastrophic = 0x05,
        /// 0x06: Insufficient IRD resources, the Initiator cannot satisfy ORD_r (RFC 6581, §4.1).
        InsufficientIrdResources = 0x06,
        /// 0x07: No matching RTR option (RFC 6581, §4.1).
        NoMatchingRtrOption = 0x07,
    }

    impl LlpErrorCode {
        /// Every code, in numeric order.
        pub const ALL: [LlpErrorCode; 7];

        /// The Error Code octet of a Terminate message.
        pub const fn code(self) -> u8;

        /// The code for an Error Code octet, if MPA defines it.
        pub fn from_code(code: u8) -> Option<Self>;
    }
}
