//! DDP (RFC 5041): the control field, the tagged and the untagged buffer headers, the queue
//! numbers RDMAP uses, and the DDP error codes a Terminate carries in layer 1.
//!
//! Catalog: `mpa-peer-connect.md` §6 (byte layouts §6.1-§6.3, error codes §6.4) and
//! `rfc5040-rdmap.md` §1.2-§1.4, §1.7. Offsets in this module count from the first DDP header
//! octet, i.e. the octet right after the 2-octet MPA ULPDU Length (FPDU offset 2).
//!
//! ```text
//! tagged (14 octets)                     untagged (18 octets)
//! 0      T|L|Rsvd|DV                     0      T|L|Rsvd|DV
//! 1      RsvdULP[0:7] (RDMAP control)    1      RsvdULP[0:7] (RDMAP control)
//! 2..6   STag                            2..6   RsvdULP[8:39] (RDMAP: Invalidate STag)
//! 6..14  TO                              6..10  QN
//! 14..   payload                         10..14 MSN
//!                                        14..18 MO
//!                                        18..   payload
//! ```
//!
//! The view ([`Packet`]) spans one DDP segment (the ULPDU): header and payload. [`Repr`] is the
//! header alone. Parsing checks the length and the DDP version; the reserved bits are "not checked
//! on receive" and are ignored; the RDMAP meaning of RsvdULP and the QN is checked by
//! [`crate::rdmap`].

use crate::rdmap::TerminateCode;

/// DDP version (DV) of RFC 5041: `01b`. RDMAC 1.0 used `00b`. `mpa-peer-connect.md` §6.1.
pub const DDP_VERSION: u8 = 1;

/// T, the tagged flag, in control octet 0: 1 = tagged buffer model. `mpa-peer-connect.md` §6.1.
pub const T_FLAG: u8 = 0x80;
/// L, the last flag, in control octet 0: last segment of the DDP message. `mpa-peer-connect.md`
/// §6.1.
pub const L_FLAG: u8 = 0x40;
/// Reserved bits of control octet 0: 0 on transmit, not checked on receive.
/// `mpa-peer-connect.md` §6.1.
pub const RSVD_MASK: u8 = 0x3C;
/// DV, the DDP version, in control octet 0. `mpa-peer-connect.md` §6.1.
pub const DV_MASK: u8 = 0x03;

/// Length of the DDP control field (control octet + `RsvdULP[0:7]`). `mpa-peer-connect.md` §6.1.
pub const CONTROL_LEN: usize = 2;
/// Length of the tagged buffer header. `mpa-peer-connect.md` §6.2.
pub const TAGGED_HEADER_LEN: usize = field::TO.end;
/// Length of the untagged buffer header. `mpa-peer-connect.md` §6.3.
pub const UNTAGGED_HEADER_LEN: usize = field::MO.end;

/// QN 0: the Send queue (all Send variants, and RFC 7306 Immediate Data).
/// `rfc5040-rdmap.md` §1.7, `rfc7306-atomics-immediate.md` §0.
pub const QN_SEND: u32 = 0;
/// QN 1: the RDMA Read Request queue (also RFC 7306 Atomic Requests and the Flush / Verify /
/// Atomic Write Requests). `rfc5040-rdmap.md` §1.7, `rfc7306-atomics-immediate.md` §0,
/// `rdma-commit.md` §0.
pub const QN_READ_REQUEST: u32 = 1;
/// QN 2: the Terminate queue. `rfc5040-rdmap.md` §1.7.
pub const QN_TERMINATE: u32 = 2;
/// QN 3: the RFC 7306 Atomic Response queue (also the Flush / Verify / Atomic Write Responses).
/// `rfc7306-atomics-immediate.md` §0, `rdma-commit.md` §0.
pub const QN_ATOMIC_RESPONSE: u32 = 3;

/// MSN of the first message on every QN. `mpa-peer-connect.md` §6.3.
pub const MSN_INITIAL: u32 = 1;

/// Octet ranges of the header fields. `mpa-peer-connect.md` §6.2, §6.3.
pub mod field {
    /// A field's octet range.
    pub type Field = core::ops::Range<usize>;
    /// Control octet: T, L, Rsvd, DV.
    pub const CONTROL: usize = 0;
    /// `RsvdULP[0:7]`: the RDMAP control field.
    pub const ULP_CTRL: usize = 1;
    /// Tagged: Data Sink STag.
    pub const STAG: Field = 2..6;
    /// Tagged: Tagged Offset.
    pub const TO: Field = 6..14;
    /// Untagged: `RsvdULP[8:39]` (the RDMAP Invalidate STag).
    pub const RSVD_ULP: Field = 2..6;
    /// Untagged: Queue Number.
    pub const QN: Field = 6..10;
    /// Untagged: Message Sequence Number.
    pub const MSN: Field = 10..14;
    /// Untagged: Message Offset.
    pub const MO: Field = 14..18;
}

wire_enum! {
    /// DDP error types (Terminate layer 1). `mpa-peer-connect.md` §6.4.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum ErrorType {
        /// Local catastrophic error (its only code is [`LOCAL_CATASTROPHIC_CODE`]).
        LocalCatastrophic = 0x0,
        /// Tagged buffer error ([`TaggedBufferCode`]).
        TaggedBuffer = 0x1,
        /// Untagged buffer error ([`UntaggedBufferCode`]).
        UntaggedBuffer = 0x2,
        /// Reserved for use by the LLP.
        ReservedLlp = 0x3,
    }

    impl ErrorType {
        /// The type named by a 4-bit EType value, if any.
        pub const fn from_u8(value: u8) -> Option<Self>;
    }
}

/// Error code of a DDP local catastrophic error. `mpa-peer-connect.md` §6.4.
pub const LOCAL_CATASTROPHIC_CODE: u8 = 0x00;

wire_enum! {
    /// DDP tagged buffer error codes (layer 1, EType 1). `mpa-peer-connect.md` §6.4.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum TaggedBufferCode {
        /// Invalid STag.
        InvalidStag = 0x00,
        /// Base or bounds violation.
        BaseOrBounds = 0x01,
        /// STag not associated with DDP Stream.
        StagNotAssociated = 0x02,
        /// TO wrap.
        ToWrap = 0x03,
        /// Invalid DDP version.
        InvalidDdpVersion = 0x04,
    }

    impl TaggedBufferCode {
        /// The code named by an 8-bit Error Code value, if any.
        pub const fn from_u8(value: u8) -> Option<Self>;
    }
}

wire_enum! {
    /// DDP untagged buffer error codes (layer 1, EType 2). `mpa-peer-connect.md` §6.4.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum UntaggedBufferCode {
        /// Invalid QN.
        InvalidQn = 0x01,
        /// Invalid MSN - no buffer available.
        MsnNoBuffer = 0x02,
        /// Invalid MSN - MSN range is not valid.
        MsnRange = 0x03,
        /// Invalid MO.
        InvalidMo = 0x04,
        /// DDP Message too long for available buffer.
        MessageTooLong = 0x05,
        /// Invalid DDP version.
        InvalidDdpVersion = 0x06,
    }

    impl UntaggedBufferCode {
        /// The code named by an 8-bit Error Code value, if any.
        pub const fn from_u8(value: u8) -> Option<Self>;
    }
}

/// What is wrong with a DDP segment (or with a buffer handed to `emit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// The segment is shorter than the header its T flag names (or than the control field).
    Truncated,
    /// DV is not [`DDP_VERSION`]. `tagged` is the segment's T flag, which selects the code.
    BadDdpVersion {
        /// T flag of the offending segment.
        tagged: bool,
        /// The DV value received.
        version: u8,
    },
    /// An untagged segment names a QN no enabled RDMAP message uses.
    InvalidQn(u32),
    /// `emit` was given a buffer shorter than `buffer_len()`.
    BufferTooSmall,
}

impl Error {
    /// The Terminate (layer, type, code) that reports this error to the peer, or `None` for an
    /// error that is not about a received segment ([`Error::BufferTooSmall`]).
    ///
    /// - [`Error::BadDdpVersion`]: 1/1/0x04 (tagged) or 1/2/0x06 (untagged),
    ///   `mpa-peer-connect.md` §6.1, §6.4.
    /// - [`Error::InvalidQn`]: 1/2/0x01, `mpa-peer-connect.md` §6.3.
    /// - [`Error::Truncated`]: 0/2/0xFF (RDMAP Remote Operation, Unspecified); no DDP code fits a
    ///   segment too short for its own header (`docs/decisions.md`, DDP / RDMAP).
    pub const fn terminate_code(&self) -> Option<TerminateCode> {
        use crate::rdmap::RemoteOperationCode;
        match *self {
            Error::Truncated => Some(TerminateCode::RdmapRemoteOperation(
                RemoteOperationCode::Unspecified,
            )),
            Error::BadDdpVersion { tagged: true, .. } => Some(TerminateCode::DdpTaggedBuffer(
                TaggedBufferCode::InvalidDdpVersion,
            )),
            Error::BadDdpVersion { tagged: false, .. } => Some(TerminateCode::DdpUntaggedBuffer(
                UntaggedBufferCode::InvalidDdpVersion,
            )),
            Error::InvalidQn(_) => Some(TerminateCode::DdpUntaggedBuffer(
                UntaggedBufferCode::InvalidQn,
            )),
            Error::BufferTooSmall => None,
        }
    }
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::Truncated => write!(f, "DDP segment shorter than its header"),
            Error::BadDdpVersion { tagged, version } => {
                write!(f, "invalid DDP version {version} (tagged: {tagged})")
            }
            Error::InvalidQn(qn) => write!(f, "invalid QN {qn}"),
            Error::BufferTooSmall => write!(f, "buffer too small"),
        }
    }
}

/// Big-endian u16 at `at` (the caller guarantees the bounds).
#[inline]
pub(crate) fn read_u16(buf: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([buf[at], buf[at + 1]])
}

/// Big-endian u32 at `at` (the caller guarantees the bounds).
#[inline]
pub(crate) fn read_u32(buf: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&buf[at..at + 4]);
    u32::from_be_bytes(b)
}

/// Big-endian u64 at `at` (the caller guarantees the bounds).
#[inline]
pub(crate) fn read_u64(buf: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&buf[at..at + 8]);
    u64::from_be_bytes(b)
}

/// Writes a big-endian u16 at `at`.
#[inline]
pub(crate) fn write_u16(buf: &mut [u8], at: usize, value: u16) {
    buf[at..at + 2].copy_from_slice(&value.to_be_bytes());
}

/// Writes a big-endian u32 at `at`.
#[inline]
pub(crate) fn write_u32(buf: &mut [u8], at: usize, value: u32) {
    buf[at..at + 4].copy_from_slice(&value.to_be_bytes());
}

/// Writes a big-endian u64 at `at`.
#[inline]
pub(crate) fn write_u64(buf: &mut [u8], at: usize, value: u64) {
    buf[at..at + 8].copy_from_slice(&value.to_be_bytes());
}

/// Header length named by the control octet: [`TAGGED_HEADER_LEN`] if T is set, else
/// [`UNTAGGED_HEADER_LEN`].
#[inline]
pub const fn header_len_for(control: u8) -> usize {
    if control & T_FLAG != 0 {
        TAGGED_HEADER_LEN
    } else {
        UNTAGGED_HEADER_LEN
    }
}

/// A read/write view of one DDP segment (header + payload).
///
/// Getters of a view made with [`Packet::new_unchecked`] may panic if the buffer is shorter than
/// the field; [`Packet::new_checked`] guarantees the header fields the T flag names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Packet<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Packet<T> {
        Packet { buffer }
    }

    /// Wraps a buffer, checking that it holds the whole header its T flag names.
    pub fn new_checked(buffer: T) -> Result<Packet<T>, Error> {
        let packet = Self::new_unchecked(buffer);
        packet.check_len()?;
        Ok(packet)
    }

    /// Checks that the buffer holds the control field and the whole header the T flag names.
    pub fn check_len(&self) -> Result<(), Error> {
        let data = self.buffer.as_ref();
        match data.first() {
            Some(&control) if data.len() >= CONTROL_LEN.max(header_len_for(control)) => Ok(()),
            _ => Err(Error::Truncated),
        }
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// T: the tagged buffer model.
    pub fn tagged(&self) -> bool {
        self.buffer.as_ref()[field::CONTROL] & T_FLAG != 0
    }

    /// L: the last segment of the DDP message.
    pub fn last(&self) -> bool {
        self.buffer.as_ref()[field::CONTROL] & L_FLAG != 0
    }

    /// The 4 reserved bits of the control octet (not checked on receive).
    pub fn reserved(&self) -> u8 {
        (self.buffer.as_ref()[field::CONTROL] & RSVD_MASK) >> RSVD_MASK.trailing_zeros()
    }

    /// DV: the DDP version.
    pub fn ddp_version(&self) -> u8 {
        self.buffer.as_ref()[field::CONTROL] & DV_MASK
    }

    /// `RsvdULP[0:7]`: the octet DDP carries for the ULP (the RDMAP control field).
    pub fn ulp_ctrl(&self) -> u8 {
        self.buffer.as_ref()[field::ULP_CTRL]
    }

    /// Tagged: the Data Sink STag.
    pub fn stag(&self) -> u32 {
        read_u32(self.buffer.as_ref(), field::STAG.start)
    }

    /// Tagged: the Tagged Offset (TO) of the segment's first payload octet.
    pub fn to(&self) -> u64 {
        read_u64(self.buffer.as_ref(), field::TO.start)
    }

    /// Untagged: `RsvdULP[8:39]` (RDMAP's Invalidate STag).
    pub fn rsvd_ulp(&self) -> u32 {
        read_u32(self.buffer.as_ref(), field::RSVD_ULP.start)
    }

    /// Untagged: the Queue Number (QN).
    pub fn qn(&self) -> u32 {
        read_u32(self.buffer.as_ref(), field::QN.start)
    }

    /// Untagged: the Message Sequence Number (MSN).
    pub fn msn(&self) -> u32 {
        read_u32(self.buffer.as_ref(), field::MSN.start)
    }

    /// Untagged: the Message Offset (MO) of the segment's first payload octet.
    pub fn mo(&self) -> u32 {
        read_u32(self.buffer.as_ref(), field::MO.start)
    }

    /// Header length the T flag names.
    pub fn header_len(&self) -> usize {
        header_len_for(self.buffer.as_ref()[field::CONTROL])
    }

    /// Length of the whole segment (header + payload), i.e. the MPA ULPDU Length.
    pub fn segment_len(&self) -> usize {
        self.buffer.as_ref().len()
    }
}

impl<'a, T: AsRef<[u8]> + ?Sized> Packet<&'a T> {
    /// The payload: every octet after the header (for RDMAP, the RDMAP header and the ULP
    /// payload).
    pub fn payload(&self) -> &'a [u8] {
        let data = self.buffer.as_ref();
        data.get(self.header_len()..).unwrap_or(&[])
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets T.
    pub fn set_tagged(&mut self, value: bool) {
        self.set_flag(T_FLAG, value)
    }

    /// Sets L.
    pub fn set_last(&mut self, value: bool) {
        self.set_flag(L_FLAG, value)
    }

    /// Sets the 4 reserved bits.
    pub fn set_reserved(&mut self, value: u8) {
        let c = &mut self.buffer.as_mut()[field::CONTROL];
        *c = (*c & !RSVD_MASK) | ((value << RSVD_MASK.trailing_zeros()) & RSVD_MASK);
    }

    /// Sets DV.
    pub fn set_ddp_version(&mut self, value: u8) {
        let c = &mut self.buffer.as_mut()[field::CONTROL];
        *c = (*c & !DV_MASK) | (value & DV_MASK);
    }

    /// Sets `RsvdULP[0:7]`.
    pub fn set_ulp_ctrl(&mut self, value: u8) {
        self.buffer.as_mut()[field::ULP_CTRL] = value;
    }

    /// Sets the tagged STag.
    pub fn set_stag(&mut self, value: u32) {
        write_u32(self.buffer.as_mut(), field::STAG.start, value)
    }

    /// Sets the tagged TO.
    pub fn set_to(&mut self, value: u64) {
        write_u64(self.buffer.as_mut(), field::TO.start, value)
    }

    /// Sets the untagged `RsvdULP[8:39]`.
    pub fn set_rsvd_ulp(&mut self, value: u32) {
        write_u32(self.buffer.as_mut(), field::RSVD_ULP.start, value)
    }

    /// Sets the untagged QN.
    pub fn set_qn(&mut self, value: u32) {
        write_u32(self.buffer.as_mut(), field::QN.start, value)
    }

    /// Sets the untagged MSN.
    pub fn set_msn(&mut self, value: u32) {
        write_u32(self.buffer.as_mut(), field::MSN.start, value)
    }

    /// Sets the untagged MO.
    pub fn set_mo(&mut self, value: u32) {
        write_u32(self.buffer.as_mut(), field::MO.start, value)
    }

    /// The payload, mutably (every octet after the header the T flag names).
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let start = self.header_len();
        self.buffer.as_mut().get_mut(start..).unwrap_or(&mut [])
    }

    fn set_flag(&mut self, mask: u8, value: bool) {
        let c = &mut self.buffer.as_mut()[field::CONTROL];
        if value {
            *c |= mask;
        } else {
            *c &= !mask;
        }
    }
}

impl<T: AsRef<[u8]>> AsRef<[u8]> for Packet<T> {
    fn as_ref(&self) -> &[u8] {
        self.buffer.as_ref()
    }
}

/// The buffer-model specific part of a DDP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Model {
    /// Tagged buffer model (T = 1), `mpa-peer-connect.md` §6.2.
    Tagged {
        /// Data Sink STag.
        stag: u32,
        /// Tagged Offset.
        to: u64,
    },
    /// Untagged buffer model (T = 0), `mpa-peer-connect.md` §6.3.
    Untagged {
        /// `RsvdULP[8:39]`: RDMAP's Invalidate STag (0 when unused).
        rsvd_ulp: u32,
        /// Queue Number.
        qn: u32,
        /// Message Sequence Number.
        msn: u32,
        /// Message Offset.
        mo: u32,
    },
}

/// A DDP header (tagged or untagged), without its payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Repr {
    /// L: last segment of the DDP message.
    pub last: bool,
    /// `RsvdULP[0:7]`: the RDMAP control field.
    pub ulp_ctrl: u8,
    /// Tagged or untagged fields.
    pub model: Model,
}

impl Repr {
    /// Parses the header of a segment: checks the length and DV; ignores the reserved bits.
    pub fn parse<T: AsRef<[u8]>>(packet: &Packet<T>) -> Result<Repr, Error> {
        packet.check_len()?;
        if packet.ddp_version() != DDP_VERSION {
            return Err(Error::BadDdpVersion {
                tagged: packet.tagged(),
                version: packet.ddp_version(),
            });
        }
        let model = if packet.tagged() {
            Model::Tagged {
                stag: packet.stag(),
                to: packet.to(),
            }
        } else {
            Model::Untagged {
                rsvd_ulp: packet.rsvd_ulp(),
                qn: packet.qn(),
                msn: packet.msn(),
                mo: packet.mo(),
            }
        };
        Ok(Repr {
            last: packet.last(),
            ulp_ctrl: packet.ulp_ctrl(),
            model,
        })
    }

    /// T flag of this header.
    pub const fn tagged(&self) -> bool {
        matches!(self.model, Model::Tagged { .. })
    }

    /// Header length: [`TAGGED_HEADER_LEN`] or [`UNTAGGED_HEADER_LEN`].
    pub const fn buffer_len(&self) -> usize {
        match self.model {
            Model::Tagged { .. } => TAGGED_HEADER_LEN,
            Model::Untagged { .. } => UNTAGGED_HEADER_LEN,
        }
    }

    /// Writes the header (reserved bits 0, DV = [`DDP_VERSION`]) into the first `buffer_len()`
    /// octets of the view. The payload is left alone.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, packet: &mut Packet<T>) -> Result<(), Error> {
        if packet.as_ref().len() < self.buffer_len() {
            return Err(Error::BufferTooSmall);
        }
        let control = if self.last { L_FLAG } else { 0 } | DDP_VERSION;
        packet.buffer.as_mut()[field::CONTROL] = control;
        packet.set_ulp_ctrl(self.ulp_ctrl);
        match self.model {
            Model::Tagged { stag, to } => {
                packet.set_tagged(true);
                packet.set_stag(stag);
                packet.set_to(to);
            }
            Model::Untagged {
                rsvd_ulp,
                qn,
                msn,
                mo,
            } => {
                packet.set_rsvd_ulp(rsvd_ulp);
                packet.set_qn(qn);
                packet.set_msn(msn);
                packet.set_mo(mo);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Control octets of `mpa-peer-connect.md` §6.1 ("common byte0 values").
    #[test]
    fn control_octets() {
        assert_eq!(T_FLAG | L_FLAG | DDP_VERSION, 0xC1);
        assert_eq!(T_FLAG | DDP_VERSION, 0x81);
        assert_eq!(L_FLAG | DDP_VERSION, 0x41);
        assert_eq!(DDP_VERSION, 0x01);
        assert_eq!(TAGGED_HEADER_LEN, 14);
        assert_eq!(UNTAGGED_HEADER_LEN, 18);
    }

    /// Reserved bits are ignored on receive (`mpa-peer-connect.md` §6.1).
    #[test]
    fn reserved_bits_ignored() {
        let mut seg = [0u8; 14];
        seg[0] = 0xC1 | RSVD_MASK;
        let p = Packet::new_checked(&seg[..]).unwrap();
        assert_eq!(p.reserved(), 0xF);
        let r = Repr::parse(&p).unwrap();
        assert!(r.last);
        assert!(r.tagged());
    }
}
