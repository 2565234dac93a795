//! RFC 7306 Atomic Request (52 octets) and Atomic Response (12 octets) headers, right after the
//! untagged DDP header. Catalog: `rfc7306-atomics-immediate.md` §1.2, §1.3 (I-1: the response is
//! 12 octets), §1.5 (golden frames).
//!
//! ```text
//! Atomic Request                       Atomic Response
//! hdr off  DDP off  field              hdr off  DDP off  field
//! 0..4     18..22   Reserved(28)|AOpCode   0..4   18..22   Original Request Identifier
//! 4..8     22..26   Request Identifier     4..12  22..30   Original Remote Data Value
//! 8..12    26..30   Remote STag
//! 12..20   30..38   Remote Tagged Offset
//! 20..28   38..46   Add or Swap Data
//! 28..36   46..54   Add or Swap Mask
//! 36..44   54..62   Compare Data
//! 44..52   62..70   Compare Mask
//! ```

use super::{Error, Opcode};
use crate::ddp::{read_u32, read_u64, write_u32, write_u64};

wire_enum! {
    /// Atomic operation codes (AOpCode). `rfc7306-atomics-immediate.md` §0, §1.2 (Figure 5);
    /// 0x1 (the former Swap) is reserved (I-3).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum AtomicOpcode {
        /// FetchAdd with Add Mask.
        FetchAdd = 0x0,
        /// CmpSwap with Compare Mask and Swap Mask.
        CmpSwap = 0x2,
    }

    impl AtomicOpcode {
        /// The operation named by a 4-bit AOpCode, if assigned.
        pub const fn from_u8(value: u8) -> Option<AtomicOpcode>;
    }
}

/// AOpCode in the first 32-bit word of the request; the other 28 bits are reserved (0 on
/// transmit, ignored on receive). `rfc7306-atomics-immediate.md` §1.2.
pub const AOPCODE_MASK: u32 = 0x0000_000F;

/// Compare Data a FetchAdd request carries (ignored on receive).
/// `rfc7306-atomics-immediate.md` §1.2.
pub const FETCH_ADD_COMPARE_DATA: u64 = 0;
/// Compare Mask a FetchAdd request carries (ignored on receive).
/// `rfc7306-atomics-immediate.md` §1.2.
pub const FETCH_ADD_COMPARE_MASK: u64 = u64::MAX;

/// Octet ranges relative to the start of the Atomic Request header.
/// `rfc7306-atomics-immediate.md` §1.2.
pub mod request_field {
    /// A field's octet range.
    pub type Field = core::ops::Range<usize>;
    /// Reserved (28 bits) | AOpCode (4 bits).
    pub const AOPCODE: Field = 0..4;
    /// Request Identifier.
    pub const REQUEST_ID: Field = 4..8;
    /// Remote STag.
    pub const STAG: Field = 8..12;
    /// Remote Tagged Offset.
    pub const TO: Field = 12..20;
    /// Add or Swap Data.
    pub const ADD_SWAP_DATA: Field = 20..28;
    /// Add or Swap Mask.
    pub const ADD_SWAP_MASK: Field = 28..36;
    /// Compare Data.
    pub const COMPARE_DATA: Field = 36..44;
    /// Compare Mask.
    pub const COMPARE_MASK: Field = 44..52;
}

/// Octet ranges relative to the start of the Atomic Response header.
/// `rfc7306-atomics-immediate.md` §1.3.
pub mod response_field {
    /// A field's octet range.
    pub type Field = core::ops::Range<usize>;
    /// Original Request Identifier.
    pub const REQUEST_ID: Field = 0..4;
    /// Original Remote Data Value.
    pub const ORIGINAL_VALUE: Field = 4..12;
}

/// Atomic Request header length: 52 octets. `rfc7306-atomics-immediate.md` §0.
pub const REQUEST_LEN: usize = request_field::COMPARE_MASK.end;
/// Atomic Response header length: 12 octets (I-1). `rfc7306-atomics-immediate.md` §0, §1.6.
pub const RESPONSE_LEN: usize = response_field::ORIGINAL_VALUE.end;

/// A view of an Atomic Request header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> RequestPacket<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        RequestPacket { buffer }
    }

    /// Wraps a buffer, checking that it holds [`REQUEST_LEN`] octets.
    pub fn new_checked(buffer: T) -> Result<Self, Error> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Checks that the buffer holds the whole header.
    pub fn check_len(&self) -> Result<(), Error> {
        if self.buffer.as_ref().len() < REQUEST_LEN {
            Err(Error::Truncated(Opcode::AtomicRequest))
        } else {
            Ok(())
        }
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// AOpCode (4 bits).
    pub fn aopcode(&self) -> u8 {
        (read_u32(self.buffer.as_ref(), request_field::AOPCODE.start) & AOPCODE_MASK) as u8
    }

    /// The 28 reserved bits before AOpCode (ignored on receive).
    pub fn reserved(&self) -> u32 {
        read_u32(self.buffer.as_ref(), request_field::AOPCODE.start) >> AOPCODE_MASK.count_ones()
    }

    /// Request Identifier.
    pub fn request_id(&self) -> u32 {
        read_u32(self.buffer.as_ref(), request_field::REQUEST_ID.start)
    }

    /// Remote STag.
    pub fn stag(&self) -> u32 {
        read_u32(self.buffer.as_ref(), request_field::STAG.start)
    }

    /// Remote Tagged Offset.
    pub fn to(&self) -> u64 {
        read_u64(self.buffer.as_ref(), request_field::TO.start)
    }

    /// Add or Swap Data.
    pub fn add_swap_data(&self) -> u64 {
        read_u64(self.buffer.as_ref(), request_field::ADD_SWAP_DATA.start)
    }

    /// Add or Swap Mask.
    pub fn add_swap_mask(&self) -> u64 {
        read_u64(self.buffer.as_ref(), request_field::ADD_SWAP_MASK.start)
    }

    /// Compare Data.
    pub fn compare_data(&self) -> u64 {
        read_u64(self.buffer.as_ref(), request_field::COMPARE_DATA.start)
    }

    /// Compare Mask.
    pub fn compare_mask(&self) -> u64 {
        read_u64(self.buffer.as_ref(), request_field::COMPARE_MASK.start)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> RequestPacket<T> {
    /// Sets the first word: reserved bits 0, AOpCode.
    pub fn set_aopcode(&mut self, value: u8) {
        write_u32(
            self.buffer.as_mut(),
            request_field::AOPCODE.start,
            value as u32 & AOPCODE_MASK,
        )
    }

    /// Sets the Request Identifier.
    pub fn set_request_id(&mut self, value: u32) {
        write_u32(self.buffer.as_mut(), request_field::REQUEST_ID.start, value)
    }

    /// Sets the Remote STag.
    pub fn set_stag(&mut self, value: u32) {
        write_u32(self.buffer.as_mut(), request_field::STAG.start, value)
    }

    /// Sets the Remote Tagged Offset.
    pub fn set_to(&mut self, value: u64) {
        write_u64(self.buffer.as_mut(), request_field::TO.start, value)
    }

    /// Sets Add or Swap Data.
    pub fn set_add_swap_data(&mut self, value: u64) {
        write_u64(
            self.buffer.as_mut(),
            request_field::ADD_SWAP_DATA.start,
            value,
        )
    }

    /// Sets Add or Swap Mask.
    pub fn set_add_swap_mask(&mut self, value: u64) {
        write_u64(
            self.buffer.as_mut(),
            request_field::ADD_SWAP_MASK.start,
            value,
        )
    }

    /// Sets Compare Data.
    pub fn set_compare_data(&mut self, value: u64) {
        write_u64(
            self.buffer.as_mut(),
            request_field::COMPARE_DATA.start,
            value,
        )
    }

    /// Sets Compare Mask.
    pub fn set_compare_mask(&mut self, value: u64) {
        write_u64(
            self.buffer.as_mut(),
            request_field::COMPARE_MASK.start,
            value,
        )
    }
}

/// An Atomic Request header. `rfc7306-atomics-immediate.md` §1.2.
///
/// Every field is kept as received (for FetchAdd the compare fields are "ignored on receive":
/// the responder must not use them, but they are not checked).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AtomicRequestRepr {
    /// AOpCode.
    pub op: AtomicOpcode,
    /// Request Identifier, echoed in the response.
    pub request_id: u32,
    /// Remote STag.
    pub stag: u32,
    /// Remote Tagged Offset (must name a 64-bit aligned ULP buffer address).
    pub to: u64,
    /// FetchAdd: Add Data. CmpSwap: Swap Data.
    pub add_swap_data: u64,
    /// FetchAdd: Add Mask (0 = plain 64-bit add). CmpSwap: Swap Mask.
    pub add_swap_mask: u64,
    /// CmpSwap: Compare Data. FetchAdd: [`FETCH_ADD_COMPARE_DATA`] on transmit.
    pub compare_data: u64,
    /// CmpSwap: Compare Mask. FetchAdd: [`FETCH_ADD_COMPARE_MASK`] on transmit.
    pub compare_mask: u64,
}

impl AtomicRequestRepr {
    /// A FetchAdd request with the transmit values of the unused compare fields.
    pub const fn fetch_add(request_id: u32, stag: u32, to: u64, add: u64, add_mask: u64) -> Self {
        AtomicRequestRepr {
            op: AtomicOpcode::FetchAdd,
            request_id,
            stag,
            to,
            add_swap_data: add,
            add_swap_mask: add_mask,
            compare_data: FETCH_ADD_COMPARE_DATA,
            compare_mask: FETCH_ADD_COMPARE_MASK,
        }
    }

    /// A CmpSwap request.
    #[allow(clippy::too_many_arguments)]
    pub const fn cmp_swap(
        request_id: u32,
        stag: u32,
        to: u64,
        swap: u64,
        swap_mask: u64,
        compare: u64,
        compare_mask: u64,
    ) -> Self {
        AtomicRequestRepr {
            op: AtomicOpcode::CmpSwap,
            request_id,
            stag,
            to,
            add_swap_data: swap,
            add_swap_mask: swap_mask,
            compare_data: compare,
            compare_mask,
        }
    }

    /// Parses the header: the reserved bits are ignored; an unassigned AOpCode is
    /// [`Error::UnknownAtomicOpcode`].
    pub fn parse<T: AsRef<[u8]>>(packet: &RequestPacket<T>) -> Result<Self, Error> {
        packet.check_len()?;
        let op = AtomicOpcode::from_u8(packet.aopcode())
            .ok_or(Error::UnknownAtomicOpcode(packet.aopcode()))?;
        Ok(AtomicRequestRepr {
            op,
            request_id: packet.request_id(),
            stag: packet.stag(),
            to: packet.to(),
            add_swap_data: packet.add_swap_data(),
            add_swap_mask: packet.add_swap_mask(),
            compare_data: packet.compare_data(),
            compare_mask: packet.compare_mask(),
        })
    }

    /// [`REQUEST_LEN`].
    pub const fn buffer_len(&self) -> usize {
        REQUEST_LEN
    }

    /// Writes the header into the first [`REQUEST_LEN`] octets.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(
        &self,
        packet: &mut RequestPacket<T>,
    ) -> Result<(), Error> {
        if packet.buffer.as_ref().len() < REQUEST_LEN {
            return Err(Error::BufferTooSmall);
        }
        packet.set_aopcode(self.op as u8);
        packet.set_request_id(self.request_id);
        packet.set_stag(self.stag);
        packet.set_to(self.to);
        packet.set_add_swap_data(self.add_swap_data);
        packet.set_add_swap_mask(self.add_swap_mask);
        packet.set_compare_data(self.compare_data);
        packet.set_compare_mask(self.compare_mask);
        Ok(())
    }
}

/// A view of an Atomic Response header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponsePacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> ResponsePacket<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        ResponsePacket { buffer }
    }

    /// Wraps a buffer, checking that it holds [`RESPONSE_LEN`] octets.
    pub fn new_checked(buffer: T) -> Result<Self, Error> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Checks that the buffer holds the whole header.
    pub fn check_len(&self) -> Result<(), Error> {
        if self.buffer.as_ref().len() < RESPONSE_LEN {
            Err(Error::Truncated(Opcode::AtomicResponse))
        } else {
            Ok(())
        }
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Original Request Identifier.
    pub fn request_id(&self) -> u32 {
        read_u32(self.buffer.as_ref(), response_field::REQUEST_ID.start)
    }

    /// Original Remote Data Value.
    pub fn original_value(&self) -> u64 {
        read_u64(self.buffer.as_ref(), response_field::ORIGINAL_VALUE.start)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> ResponsePacket<T> {
    /// Sets the Original Request Identifier.
    pub fn set_request_id(&mut self, value: u32) {
        write_u32(
            self.buffer.as_mut(),
            response_field::REQUEST_ID.start,
            value,
        )
    }

    /// Sets the Original Remote Data Value.
    pub fn set_original_value(&mut self, value: u64) {
        write_u64(
            self.buffer.as_mut(),
            response_field::ORIGINAL_VALUE.start,
            value,
        )
    }
}

/// An Atomic Response header. `rfc7306-atomics-immediate.md` §1.3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AtomicResponseRepr {
    /// Original Request Identifier.
    pub request_id: u32,
    /// Original Remote Data Value (the value before the operation).
    pub original_value: u64,
}

impl AtomicResponseRepr {
    /// Parses the header.
    pub fn parse<T: AsRef<[u8]>>(packet: &ResponsePacket<T>) -> Result<Self, Error> {
        packet.check_len()?;
        Ok(AtomicResponseRepr {
            request_id: packet.request_id(),
            original_value: packet.original_value(),
        })
    }

    /// [`RESPONSE_LEN`].
    pub const fn buffer_len(&self) -> usize {
        RESPONSE_LEN
    }

    /// Writes the header into the first [`RESPONSE_LEN`] octets.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(
        &self,
        packet: &mut ResponsePacket<T>,
    ) -> Result<(), Error> {
        if packet.buffer.as_ref().len() < RESPONSE_LEN {
            return Err(Error::BufferTooSmall);
        }
        packet.set_request_id(self.request_id);
        packet.set_original_value(self.original_value);
        Ok(())
    }
}
