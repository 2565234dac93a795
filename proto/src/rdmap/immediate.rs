//! RFC 7306 Immediate Data / Immediate Data with SE header: 8 opaque octets right after the
//! untagged DDP header (QN 0). Catalog: `rfc7306-atomics-immediate.md` §1.4, §1.5.

use super::{Error, Opcode};

/// Octet ranges relative to the start of the Immediate Data header.
/// `rfc7306-atomics-immediate.md` §1.4.
pub mod field {
    /// A field's octet range.
    pub type Field = core::ops::Range<usize>;
    /// Immediate Data.
    pub const DATA: Field = 0..8;
}

/// Immediate Data header length: exactly 8 octets. `rfc7306-atomics-immediate.md` §0.
pub const HEADER_LEN: usize = field::DATA.end;

/// A view of an Immediate Data header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Packet<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        Packet { buffer }
    }

    /// Wraps a buffer, checking that it holds [`HEADER_LEN`] octets.
    pub fn new_checked(buffer: T) -> Result<Self, Error> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Checks that the buffer holds the whole header.
    pub fn check_len(&self) -> Result<(), Error> {
        if self.buffer.as_ref().len() < HEADER_LEN {
            Err(Error::Truncated(Opcode::ImmediateData))
        } else {
            Ok(())
        }
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The 8 octets of Immediate Data, as sent (no byte-order conversion).
    pub fn data(&self) -> [u8; HEADER_LEN] {
        let mut d = [0u8; HEADER_LEN];
        d.copy_from_slice(&self.buffer.as_ref()[field::DATA]);
        d
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the Immediate Data.
    pub fn set_data(&mut self, value: [u8; HEADER_LEN]) {
        self.buffer.as_mut()[field::DATA].copy_from_slice(&value);
    }
}

/// An Immediate Data header. `rfc7306-atomics-immediate.md` §1.4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImmediateRepr {
    /// Opaque ULP octets.
    pub data: [u8; HEADER_LEN],
}

impl ImmediateRepr {
    /// Parses the header.
    pub fn parse<T: AsRef<[u8]>>(packet: &Packet<T>) -> Result<Self, Error> {
        packet.check_len()?;
        Ok(ImmediateRepr {
            data: packet.data(),
        })
    }

    /// [`HEADER_LEN`].
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header into the first [`HEADER_LEN`] octets.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, packet: &mut Packet<T>) -> Result<(), Error> {
        if packet.buffer.as_ref().len() < HEADER_LEN {
            return Err(Error::BufferTooSmall);
        }
        packet.set_data(self.data);
        Ok(())
    }
}
