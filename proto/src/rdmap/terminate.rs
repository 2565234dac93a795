//! Terminate header (RFC 5040 §4.8, Figures 7-10) and the Terminate code catalog.
//!
//! Catalogs: `rfc5040-rdmap.md` §1.6 (layout), §5.1 (Figure 9 codes), §5.2 (Figure 10, what each
//! class carries); `mpa-peer-connect.md` §4.3 (layout as FPDU), §6.4 (DDP codes);
//! `rfc7306-atomics-immediate.md` §4.1.
//!
//! ```text
//! hdr off   DDP off  field
//! 0..4      18..22   Layer(4) | EType(4) | Error Code(8) | M | D | R | Reserved(13)
//! 4..6      22..24   DDP Segment Length          present iff any of M, D, R is set
//! 6..20/24  24..     Terminated DDP Header       present iff D (14 octets tagged, 18 untagged)
//! then 28            Terminated RDMA Header      present iff R (an RDMA Read Request header)
//! ```
//!
//! Receive is lenient (`rfc5040-rdmap.md` §1.6): the reserved bits are ignored, octets after the
//! last included part are ignored (some senders zero-fill), and R = 1 without the 28 octets of an
//! RDMA header is accepted (siw sets R for every Remote Protection error). Layer 2 (LLP) codes
//! belong to [`crate::mpa`]; here they are carried as raw values.

use super::read_request::{self, Repr as ReadRequestRepr};
use super::{Error, Opcode};
use crate::ddp::{self, read_u16, read_u32, write_u16, write_u32};

wire_enum! {
    /// Terminate layer: which layer detected the error. `rfc5040-rdmap.md` §5.1 (Figure 9).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum Layer {
        /// RDMAP (layer 0).
        Rdmap = 0x0,
        /// DDP (layer 1); codes in [`crate::ddp`].
        Ddp = 0x1,
        /// LLP, e.g. MPA (layer 2); codes are defined by [`crate::mpa`].
        Llp = 0x2,
    }

    impl Layer {
        /// The layer named by a 4-bit Layer value, if any.
        pub const fn from_u8(value: u8) -> Option<Layer>;
    }
}

wire_enum! {
    /// RDMAP error types (layer 0). `rfc5040-rdmap.md` §5.1.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum ErrorType {
        /// Local Catastrophic Error: any Error Code value is acceptable.
        LocalCatastrophic = 0x0,
        /// Remote Protection Error ([`RemoteProtectionCode`]).
        RemoteProtection = 0x1,
        /// Remote Operation Error ([`RemoteOperationCode`]).
        RemoteOperation = 0x2,
    }

    impl ErrorType {
        /// The type named by a 4-bit EType value, if any.
        pub const fn from_u8(value: u8) -> Option<ErrorType>;
    }
}

/// Error Code sent with an RDMAP Local Catastrophic error (the RFC accepts any value; siw sends
/// 0xFF). `rfc5040-rdmap.md` §5.1, §1.8.
pub const LOCAL_CATASTROPHIC_TX_CODE: u8 = 0xFF;

wire_enum! {
    /// RDMAP Remote Protection Error codes (layer 0, EType 1). `rfc5040-rdmap.md` §5.1.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum RemoteProtectionCode {
        /// Invalid STag.
        InvalidStag = 0x00,
        /// Base or bounds violation.
        BaseOrBounds = 0x01,
        /// Access rights violation.
        AccessRights = 0x02,
        /// STag not associated with RDMAP Stream.
        StagNotAssociated = 0x03,
        /// TO wrap.
        ToWrap = 0x04,
        /// STag cannot be Invalidated (protection flavour, `rfc5040-rdmap.md` §5.1 note on 0x09).
        StagCannotBeInvalidated = 0x09,
        /// Unspecified Error.
        Unspecified = 0xFF,
    }

    impl RemoteProtectionCode {
        /// The code named by an 8-bit Error Code value, if any.
        pub const fn from_u8(value: u8) -> Option<Self>;
    }
}

wire_enum! {
    /// RDMAP Remote Operation Error codes (layer 0, EType 2). `rfc5040-rdmap.md` §5.1.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum RemoteOperationCode {
        /// Invalid RDMAP version.
        InvalidRdmapVersion = 0x05,
        /// Unexpected OpCode.
        UnexpectedOpcode = 0x06,
        /// Catastrophic error, localized to RDMAP Stream.
        CatastrophicStream = 0x07,
        /// Catastrophic error, global.
        CatastrophicGlobal = 0x08,
        /// STag cannot be Invalidated (operation flavour, `rfc5040-rdmap.md` §5.1 note on 0x09).
        StagCannotBeInvalidated = 0x09,
        /// Unspecified Error.
        Unspecified = 0xFF,
    }

    impl RemoteOperationCode {
        /// The code named by an 8-bit Error Code value, if any.
        pub const fn from_u8(value: u8) -> Option<Self>;
    }
}

/// The (Layer, EType, Error Code) triple of a Terminate, decoded against the catalog.
///
/// [`TerminateCode::from_raw`] is total: values the catalog does not name become
/// [`TerminateCode::Unknown`], so `from_raw(c.layer(), c.error_type(), c.error_code())` gives the
/// same triple back for every wire value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TerminateCode {
    /// 0/0/any: RDMAP Local Catastrophic Error (the code is any value).
    RdmapLocalCatastrophic(u8),
    /// 0/1/code: RDMAP Remote Protection Error.
    RdmapRemoteProtection(RemoteProtectionCode),
    /// 0/2/code: RDMAP Remote Operation Error.
    RdmapRemoteOperation(RemoteOperationCode),
    /// 1/0/code: DDP local catastrophic error (code 0x00 in the catalog; any value kept).
    DdpLocalCatastrophic(u8),
    /// 1/1/code: DDP tagged buffer error.
    DdpTaggedBuffer(ddp::TaggedBufferCode),
    /// 1/2/code: DDP untagged buffer error.
    DdpUntaggedBuffer(ddp::UntaggedBufferCode),
    /// 2/type/code: LLP (MPA) error; the values belong to [`crate::mpa`].
    Llp {
        /// EType (4 bits).
        error_type: u8,
        /// Error Code.
        error_code: u8,
    },
    /// A triple the catalog does not name.
    Unknown {
        /// Layer (4 bits).
        layer: u8,
        /// EType (4 bits).
        error_type: u8,
        /// Error Code.
        error_code: u8,
    },
}

impl TerminateCode {
    /// Decodes a triple (Layer and EType are the 4-bit wire values).
    pub const fn from_raw(layer: u8, error_type: u8, error_code: u8) -> TerminateCode {
        const RDMAP: u8 = Layer::Rdmap as u8;
        const DDP: u8 = Layer::Ddp as u8;
        const LLP: u8 = Layer::Llp as u8;
        const R_LOCAL: u8 = ErrorType::LocalCatastrophic as u8;
        const R_PROT: u8 = ErrorType::RemoteProtection as u8;
        const R_OPER: u8 = ErrorType::RemoteOperation as u8;
        const D_LOCAL: u8 = ddp::ErrorType::LocalCatastrophic as u8;
        const D_TAGGED: u8 = ddp::ErrorType::TaggedBuffer as u8;
        const D_UNTAGGED: u8 = ddp::ErrorType::UntaggedBuffer as u8;
        let unknown = TerminateCode::Unknown {
            layer,
            error_type,
            error_code,
        };
        match (layer, error_type) {
            (RDMAP, R_LOCAL) => TerminateCode::RdmapLocalCatastrophic(error_code),
            (RDMAP, R_PROT) => match RemoteProtectionCode::from_u8(error_code) {
                Some(c) => TerminateCode::RdmapRemoteProtection(c),
                None => unknown,
            },
            (RDMAP, R_OPER) => match RemoteOperationCode::from_u8(error_code) {
                Some(c) => TerminateCode::RdmapRemoteOperation(c),
                None => unknown,
            },
            (DDP, D_LOCAL) => TerminateCode::DdpLocalCatastrophic(error_code),
            (DDP, D_TAGGED) => match ddp::TaggedBufferCode::from_u8(error_code) {
                Some(c) => TerminateCode::DdpTaggedBuffer(c),
                None => unknown,
            },
            (DDP, D_UNTAGGED) => match ddp::UntaggedBufferCode::from_u8(error_code) {
                Some(c) => TerminateCode::DdpUntaggedBuffer(c),
                None => unknown,
            },
            (LLP, _) => TerminateCode::Llp {
                error_type,
                error_code,
            },
            _ => unknown,
        }
    }

    /// Layer value.
    pub const fn layer(&self) -> u8 {
        match *self {
            TerminateCode::RdmapLocalCatastrophic(_)
            | TerminateCode::RdmapRemoteProtection(_)
            | TerminateCode::RdmapRemoteOperation(_) => Layer::Rdmap as u8,
            TerminateCode::DdpLocalCatastrophic(_)
            | TerminateCode::DdpTaggedBuffer(_)
            | TerminateCode::DdpUntaggedBuffer(_) => Layer::Ddp as u8,
            TerminateCode::Llp { .. } => Layer::Llp as u8,
            TerminateCode::Unknown { layer, .. } => layer,
        }
    }

    /// EType value.
    pub const fn error_type(&self) -> u8 {
        match *self {
            TerminateCode::RdmapLocalCatastrophic(_) => ErrorType::LocalCatastrophic as u8,
            TerminateCode::RdmapRemoteProtection(_) => ErrorType::RemoteProtection as u8,
            TerminateCode::RdmapRemoteOperation(_) => ErrorType::RemoteOperation as u8,
            TerminateCode::DdpLocalCatastrophic(_) => ddp::ErrorType::LocalCatastrophic as u8,
            TerminateCode::DdpTaggedBuffer(_) => ddp::ErrorType::TaggedBuffer as u8,
            TerminateCode::DdpUntaggedBuffer(_) => ddp::ErrorType::UntaggedBuffer as u8,
            TerminateCode::Llp { error_type, .. } => error_type,
            TerminateCode::Unknown { error_type, .. } => error_type,
        }
    }

    /// Error Code value.
    pub const fn error_code(&self) -> u8 {
        match *self {
            TerminateCode::RdmapLocalCatastrophic(c) => c,
            TerminateCode::RdmapRemoteProtection(c) => c as u8,
            TerminateCode::RdmapRemoteOperation(c) => c as u8,
            TerminateCode::DdpLocalCatastrophic(c) => c,
            TerminateCode::DdpTaggedBuffer(c) => c as u8,
            TerminateCode::DdpUntaggedBuffer(c) => c as u8,
            TerminateCode::Llp { error_code, .. } => error_code,
            TerminateCode::Unknown { error_code, .. } => error_code,
        }
    }

    /// The HdrCt bits to send with this error (Figure 10, `rfc5040-rdmap.md` §5.2):
    /// - Local Catastrophic (RDMAP or DDP) and LLP errors: none;
    /// - invalid DDP version, invalid RDMAP version, unexpected opcode: none, because the layout
    ///   of the offending segment is unknown (§5.2, an inference of the catalog);
    /// - every other DDP or RDMAP error: M and D;
    /// - R only for an RDMAP Remote Protection error on an RDMA Read Request
    ///   (`read_request`), the only message with an RDMA header.
    pub const fn header_control(&self, read_request: bool) -> HdrCt {
        const NONE: HdrCt = HdrCt {
            m: false,
            d: false,
            r: false,
        };
        const MD: HdrCt = HdrCt {
            m: true,
            d: true,
            r: false,
        };
        match *self {
            TerminateCode::RdmapRemoteProtection(_) => HdrCt {
                m: true,
                d: true,
                r: read_request,
            },
            TerminateCode::RdmapRemoteOperation(
                RemoteOperationCode::InvalidRdmapVersion | RemoteOperationCode::UnexpectedOpcode,
            )
            | TerminateCode::DdpTaggedBuffer(ddp::TaggedBufferCode::InvalidDdpVersion)
            | TerminateCode::DdpUntaggedBuffer(ddp::UntaggedBufferCode::InvalidDdpVersion) => NONE,
            TerminateCode::RdmapRemoteOperation(_)
            | TerminateCode::DdpTaggedBuffer(_)
            | TerminateCode::DdpUntaggedBuffer(_) => MD,
            TerminateCode::RdmapLocalCatastrophic(_)
            | TerminateCode::DdpLocalCatastrophic(_)
            | TerminateCode::Llp { .. }
            | TerminateCode::Unknown { .. } => NONE,
        }
    }
}

/// HdrCt: the header control bits of the Terminate control word. `rfc5040-rdmap.md` §1.6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct HdrCt {
    /// M: DDP Segment Length valid.
    pub m: bool,
    /// D: Terminated DDP Header included.
    pub d: bool,
    /// R: Terminated RDMA Header included.
    pub r: bool,
}

/// Layer in the 32-bit Terminate control word. `rfc5040-rdmap.md` §1.6.
pub const LAYER_MASK: u32 = 0xF000_0000;
/// EType in the 32-bit Terminate control word. `rfc5040-rdmap.md` §1.6.
pub const ETYPE_MASK: u32 = 0x0F00_0000;
/// Error Code in the 32-bit Terminate control word. `rfc5040-rdmap.md` §1.6.
pub const ERROR_CODE_MASK: u32 = 0x00FF_0000;
/// M (DDP Segment Length valid) in the 32-bit Terminate control word. `rfc5040-rdmap.md` §1.6.
pub const M_FLAG: u32 = 0x0000_8000;
/// D (DDP header included) in the 32-bit Terminate control word. `rfc5040-rdmap.md` §1.6.
pub const D_FLAG: u32 = 0x0000_4000;
/// R (RDMA header included) in the 32-bit Terminate control word. `rfc5040-rdmap.md` §1.6.
pub const R_FLAG: u32 = 0x0000_2000;
/// Reserved bits of the control word: 0 on transmit, ignored on receive. `rfc5040-rdmap.md` §1.6.
pub const RESERVED_MASK: u32 = 0x0000_1FFF;

/// Octet ranges relative to the start of the Terminate header. `rfc5040-rdmap.md` §1.6.
pub mod field {
    /// A field's octet range.
    pub type Field = core::ops::Range<usize>;
    /// Terminate Control (19 bits) + Reserved (13 bits).
    pub const CONTROL: Field = 0..4;
    /// DDP Segment Length (present iff any of M, D, R is set).
    pub const DDP_SEGMENT_LENGTH: Field = 4..6;
    /// Start of the Terminated DDP Header (present iff D).
    pub const DDP_HEADER: usize = 6;
}

/// Minimum Terminate header: the control word alone (M = D = R = 0). `rfc5040-rdmap.md` §1.6.
pub const MIN_HEADER_LEN: usize = field::CONTROL.end;
/// Maximum Terminate header: control, segment length, untagged DDP header, RDMA header = 52.
/// `rfc5040-rdmap.md` §1.6.
pub const MAX_HEADER_LEN: usize =
    field::DDP_HEADER + ddp::UNTAGGED_HEADER_LEN + read_request::HEADER_LEN;

/// The copy of the offending segment's DDP header a Terminate carries when D = 1, octet for octet
/// (14 octets if its T flag is set, else 18), so that a header with a bad DV or reserved bits is
/// echoed exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TerminatedDdpHeader {
    // Invariant: octets past `header_len()` are zero.
    bytes: [u8; ddp::UNTAGGED_HEADER_LEN],
}

impl TerminatedDdpHeader {
    /// Copies the DDP header at the start of `segment` (the length its T flag names).
    pub fn from_bytes(segment: &[u8]) -> Result<TerminatedDdpHeader, ddp::Error> {
        let len = match segment.first() {
            Some(&c) => ddp::header_len_for(c),
            None => return Err(ddp::Error::Truncated),
        };
        let src = segment.get(..len).ok_or(ddp::Error::Truncated)?;
        let mut bytes = [0u8; ddp::UNTAGGED_HEADER_LEN];
        bytes[..len].copy_from_slice(src);
        Ok(TerminatedDdpHeader { bytes })
    }

    /// The header a [`ddp::Repr`] emits.
    pub fn from_repr(repr: &ddp::Repr) -> TerminatedDdpHeader {
        let mut bytes = [0u8; ddp::UNTAGGED_HEADER_LEN];
        let len = repr.buffer_len();
        let mut packet = ddp::Packet::new_unchecked(&mut bytes[..len]);
        // Cannot fail: the buffer is exactly `buffer_len()` long.
        let _ = repr.emit(&mut packet);
        TerminatedDdpHeader { bytes }
    }

    /// T flag of the copied header.
    pub fn is_tagged(&self) -> bool {
        self.bytes[ddp::field::CONTROL] & ddp::T_FLAG != 0
    }

    /// 14 (tagged) or 18 (untagged).
    pub fn header_len(&self) -> usize {
        ddp::header_len_for(self.bytes[ddp::field::CONTROL])
    }

    /// The copied octets.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.header_len()]
    }

    /// A DDP view of the copied header (all header getters are in bounds).
    pub fn packet(&self) -> ddp::Packet<&[u8]> {
        ddp::Packet::new_unchecked(self.as_bytes())
    }

    /// The copied header parsed as a DDP header (fails on a bad DV).
    pub fn repr(&self) -> Result<ddp::Repr, ddp::Error> {
        ddp::Repr::parse(&self.packet())
    }
}

/// A view of a Terminate header (the octets after the untagged DDP header).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Packet<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Packet<T> {
        Packet { buffer }
    }

    /// Wraps a buffer, checking that it holds every part the M, D bits name.
    pub fn new_checked(buffer: T) -> Result<Packet<T>, Error> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Checks that the buffer holds the control word, the DDP Segment Length when any HdrCt bit
    /// is set, and the whole Terminated DDP Header when D is set. A missing RDMA header (R set)
    /// is tolerated.
    pub fn check_len(&self) -> Result<(), Error> {
        let data = self.buffer.as_ref();
        let truncated = Err(Error::Truncated(Opcode::Terminate));
        if data.len() < MIN_HEADER_LEN {
            return truncated;
        }
        if self.has_segment_length() && data.len() < field::DDP_SEGMENT_LENGTH.end {
            return truncated;
        }
        if self.d() {
            match data.get(field::DDP_HEADER) {
                Some(&c) if data.len() >= field::DDP_HEADER + ddp::header_len_for(c) => {}
                _ => return truncated,
            }
        }
        Ok(())
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The whole 32-bit control word.
    pub fn control_word(&self) -> u32 {
        read_u32(self.buffer.as_ref(), field::CONTROL.start)
    }

    /// Layer (4 bits).
    pub fn layer(&self) -> u8 {
        ((self.control_word() & LAYER_MASK) >> LAYER_MASK.trailing_zeros()) as u8
    }

    /// EType (4 bits).
    pub fn error_type(&self) -> u8 {
        ((self.control_word() & ETYPE_MASK) >> ETYPE_MASK.trailing_zeros()) as u8
    }

    /// Error Code.
    pub fn error_code(&self) -> u8 {
        ((self.control_word() & ERROR_CODE_MASK) >> ERROR_CODE_MASK.trailing_zeros()) as u8
    }

    /// The triple, decoded.
    pub fn code(&self) -> TerminateCode {
        TerminateCode::from_raw(self.layer(), self.error_type(), self.error_code())
    }

    /// M: DDP Segment Length valid.
    pub fn m(&self) -> bool {
        self.control_word() & M_FLAG != 0
    }

    /// D: Terminated DDP Header included.
    pub fn d(&self) -> bool {
        self.control_word() & D_FLAG != 0
    }

    /// R: Terminated RDMA Header included.
    pub fn r(&self) -> bool {
        self.control_word() & R_FLAG != 0
    }

    /// HdrCt (M, D, R).
    pub fn hdrct(&self) -> HdrCt {
        HdrCt {
            m: self.m(),
            d: self.d(),
            r: self.r(),
        }
    }

    /// The 13 reserved bits (ignored on receive).
    pub fn reserved(&self) -> u16 {
        (self.control_word() & RESERVED_MASK) as u16
    }

    /// Whether the DDP Segment Length field is present (any of M, D, R set).
    pub fn has_segment_length(&self) -> bool {
        self.control_word() & (M_FLAG | D_FLAG | R_FLAG) != 0
    }

    /// DDP Segment Length, when present and in the buffer.
    pub fn ddp_segment_length(&self) -> Option<u16> {
        let data = self.buffer.as_ref();
        if self.has_segment_length() && data.len() >= field::DDP_SEGMENT_LENGTH.end {
            Some(read_u16(data, field::DDP_SEGMENT_LENGTH.start))
        } else {
            None
        }
    }

    /// The Terminated DDP Header octets, when D is set and they are in the buffer.
    pub fn terminated_ddp_header(&self) -> Option<&[u8]> {
        if !self.d() {
            return None;
        }
        let data = self.buffer.as_ref();
        let len = ddp::header_len_for(*data.get(field::DDP_HEADER)?);
        data.get(field::DDP_HEADER..field::DDP_HEADER + len)
    }

    /// Offset of the Terminated RDMA Header: after the segment length and the DDP header if any.
    pub fn rdma_header_offset(&self) -> usize {
        let ddp_len = self.terminated_ddp_header().map_or(0, |h| h.len());
        field::DDP_HEADER + ddp_len
    }

    /// The Terminated RDMA Header octets, when R is set and all 28 are in the buffer.
    pub fn terminated_rdma_header(&self) -> Option<&[u8]> {
        if !self.r() {
            return None;
        }
        let at = self.rdma_header_offset();
        self.buffer.as_ref().get(at..at + read_request::HEADER_LEN)
    }

    /// Length of the parts the HdrCt bits name and the buffer holds.
    pub fn header_len(&self) -> usize {
        if !self.has_segment_length() {
            MIN_HEADER_LEN
        } else if self.terminated_rdma_header().is_some() {
            self.rdma_header_offset() + read_request::HEADER_LEN
        } else {
            self.rdma_header_offset()
        }
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the whole 32-bit control word.
    pub fn set_control_word(&mut self, value: u32) {
        write_u32(self.buffer.as_mut(), field::CONTROL.start, value)
    }

    /// Sets Layer, EType and Error Code from a triple; HdrCt and reserved bits are kept.
    pub fn set_code(&mut self, code: TerminateCode) {
        let keep = self.control_word() & (M_FLAG | D_FLAG | R_FLAG | RESERVED_MASK);
        let word = ((code.layer() as u32) << LAYER_MASK.trailing_zeros()) & LAYER_MASK
            | ((code.error_type() as u32) << ETYPE_MASK.trailing_zeros()) & ETYPE_MASK
            | ((code.error_code() as u32) << ERROR_CODE_MASK.trailing_zeros());
        self.set_control_word(word | keep);
    }

    /// Sets M, D, R and clears the reserved bits.
    pub fn set_hdrct(&mut self, hdrct: HdrCt) {
        let mut word = self.control_word() & (LAYER_MASK | ETYPE_MASK | ERROR_CODE_MASK);
        if hdrct.m {
            word |= M_FLAG;
        }
        if hdrct.d {
            word |= D_FLAG;
        }
        if hdrct.r {
            word |= R_FLAG;
        }
        self.set_control_word(word);
    }

    /// Sets the DDP Segment Length field.
    pub fn set_ddp_segment_length(&mut self, value: u16) {
        write_u16(self.buffer.as_mut(), field::DDP_SEGMENT_LENGTH.start, value)
    }
}

/// A Terminate header. `rfc5040-rdmap.md` §1.6.
///
/// On the wire D = `ddp_header.is_some()`, R = `r || rdma_header.is_some()`, and the DDP Segment
/// Length is present iff any of M, D, R is set (otherwise `ddp_segment_length` must be 0 for
/// emit/parse to be the identity).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Repr {
    /// (Layer, EType, Error Code).
    pub code: TerminateCode,
    /// M: the DDP Segment Length is valid.
    pub m: bool,
    /// R as received; `true` with `rdma_header == None` means R was set without the 28 octets.
    pub r: bool,
    /// DDP Segment Length of the offending segment (this project sends the whole segment length,
    /// i.e. its MPA ULPDU Length; `rfc5040-rdmap.md` §1.6).
    pub ddp_segment_length: u16,
    /// Terminated DDP Header (D).
    pub ddp_header: Option<TerminatedDdpHeader>,
    /// Terminated RDMA Header (R): the (progress-updated) RDMA Read Request header.
    pub rdma_header: Option<ReadRequestRepr>,
}

impl Repr {
    /// A Terminate with no headers (M = D = R = 0): Local Catastrophic, LLP errors, errors on
    /// outbound messages. `rfc5040-rdmap.md` §5.2, §5.3 case 1.
    pub const fn new(code: TerminateCode) -> Repr {
        Repr {
            code,
            m: false,
            r: false,
            ddp_segment_length: 0,
            ddp_header: None,
            rdma_header: None,
        }
    }

    /// Adds the offending segment (M = D = 1): its whole length as the DDP Segment Length and a
    /// copy of its DDP header. `rfc5040-rdmap.md` §5.3 case 2. Segments longer than 65535 octets
    /// cannot come from MPA; the length saturates.
    pub fn with_segment(self, segment: &[u8]) -> Result<Repr, ddp::Error> {
        Ok(Repr {
            m: true,
            ddp_segment_length: u16::try_from(segment.len()).unwrap_or(u16::MAX),
            ddp_header: Some(TerminatedDdpHeader::from_bytes(segment)?),
            ..self
        })
    }

    /// Adds the Terminated RDMA Header (R = 1). `rfc5040-rdmap.md` §5.3 case 3.
    pub const fn with_rdma_header(self, header: ReadRequestRepr) -> Repr {
        Repr {
            r: true,
            rdma_header: Some(header),
            ..self
        }
    }

    /// The HdrCt bits this Terminate is sent with.
    pub const fn hdrct(&self) -> HdrCt {
        HdrCt {
            m: self.m,
            d: self.ddp_header.is_some(),
            r: self.r || self.rdma_header.is_some(),
        }
    }

    /// Parses a Terminate header; lenient as described in the module documentation.
    pub fn parse<T: AsRef<[u8]>>(packet: &Packet<T>) -> Result<Repr, Error> {
        packet.check_len()?;
        let ddp_header = match packet.terminated_ddp_header() {
            Some(bytes) => Some(
                TerminatedDdpHeader::from_bytes(bytes)
                    .map_err(|_| Error::Truncated(Opcode::Terminate))?,
            ),
            None => None,
        };
        let rdma_header = match packet.terminated_rdma_header() {
            Some(bytes) => Some(ReadRequestRepr::parse(
                &read_request::Packet::new_unchecked(bytes),
            )?),
            None => None,
        };
        Ok(Repr {
            code: packet.code(),
            m: packet.m(),
            r: packet.r(),
            ddp_segment_length: packet.ddp_segment_length().unwrap_or(0),
            ddp_header,
            rdma_header,
        })
    }

    /// Length of the header on the wire: 4 ..= 52 octets.
    pub fn buffer_len(&self) -> usize {
        let h = self.hdrct();
        if !(h.m || h.d || h.r) {
            return MIN_HEADER_LEN;
        }
        field::DDP_HEADER
            + self.ddp_header.map_or(0, |d| d.header_len())
            + self.rdma_header.map_or(0, |r| r.buffer_len())
    }

    /// Writes the header into the first `buffer_len()` octets (reserved bits 0).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, packet: &mut Packet<T>) -> Result<(), Error> {
        let len = self.buffer_len();
        if packet.buffer.as_ref().len() < len {
            return Err(Error::BufferTooSmall);
        }
        packet.set_control_word(0);
        packet.set_code(self.code);
        let hdrct = self.hdrct();
        packet.set_hdrct(hdrct);
        if len == MIN_HEADER_LEN {
            return Ok(());
        }
        packet.set_ddp_segment_length(self.ddp_segment_length);
        let mut at = field::DDP_HEADER;
        let buf = packet.buffer.as_mut();
        if let Some(h) = &self.ddp_header {
            let bytes = h.as_bytes();
            buf[at..at + bytes.len()].copy_from_slice(bytes);
            at += bytes.len();
        }
        if let Some(r) = &self.rdma_header {
            let mut view = read_request::Packet::new_unchecked(&mut buf[at..]);
            r.emit(&mut view)?;
        }
        Ok(())
    }
}
