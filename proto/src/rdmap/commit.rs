//! draft-talpey-rdma-commit-01: RDMA Flush, RDMA Verify and Atomic Write request headers (right
//! after the untagged DDP header, whose MO field is present: P-3). The three responses carry no
//! header (Flush, Atomic Write) or only the computed hash (Verify).
//!
//! Catalog: `rdma-commit.md` §1.1-§1.6 (formats), §1.7 (golden segments), §1.8 (defects),
//! §11 (Q-3 flags, Q-7 hash). The field order is STag, Length, TO — unlike the Read Request.
//!
//! ```text
//! hdr off  DDP off  Flush              Verify              Atomic Write
//! 0..4     18..22   Data Sink STag     Data Sink STag      Data Sink STag
//! 4..8     22..26   Data Sink Length   Data Sink Length    Data Sink Length (= 8)
//! 8..16    26..34   Data Sink TO       Data Sink TO        Data Sink TO
//! 16..     34..     Flags (4)          Hash Value (H >= 0) Data (8)
//! ```

use super::{Error, Opcode};
use crate::ddp::{read_u32, read_u64, write_u32, write_u64};

/// Flush Disposition flag P: flush to persistence. `rdma-commit.md` §0, §1.1.
pub const FLUSH_PERSISTENCE: u32 = 0x0000_0001;
/// Flush Disposition flag G: flush to global visibility. `rdma-commit.md` §0, §1.1.
pub const FLUSH_GLOBAL_VISIBILITY: u32 = 0x0000_0002;
/// The defined Flush Disposition flags; the other bits are sent as 0 and ignored on receive
/// (`rdma-commit.md` §11 Q-3).
pub const FLUSH_FLAGS_DEFINED: u32 = FLUSH_PERSISTENCE | FLUSH_GLOBAL_VISIBILITY;
/// The Data Sink Length an Atomic Write Request MUST carry. `rdma-commit.md` §0, §1.5.
pub const ATOMIC_WRITE_LENGTH: u32 = 8;

/// Octet ranges relative to the start of a Flush / Verify / Atomic Write request header.
/// `rdma-commit.md` §1.1, §1.3, §1.5.
pub mod field {
    /// A field's octet range.
    pub type Field = core::ops::Range<usize>;
    /// Data Sink STag.
    pub const STAG: Field = 0..4;
    /// Data Sink Length.
    pub const LENGTH: Field = 4..8;
    /// Data Sink Tagged Offset.
    pub const TO: Field = 8..16;
    /// Flush: Flush Disposition Flags.
    pub const FLUSH_FLAGS: Field = 16..20;
    /// Verify: start of the (optional, variable) Hash Value.
    pub const VERIFY_HASH: usize = 16;
    /// Atomic Write: the 64-bit Data.
    pub const ATOMIC_WRITE_DATA: Field = 16..24;
}

/// Flush Request header length: 20 octets. `rdma-commit.md` §1.1.
pub const FLUSH_REQUEST_LEN: usize = field::FLUSH_FLAGS.end;
/// Verify Request header length without the Hash Value: 16 octets. `rdma-commit.md` §1.3.
pub const VERIFY_REQUEST_MIN_LEN: usize = field::VERIFY_HASH;
/// Atomic Write Request header length: 24 octets. `rdma-commit.md` §1.5.
pub const ATOMIC_WRITE_REQUEST_LEN: usize = field::ATOMIC_WRITE_DATA.end;

macro_rules! request_packet {
    ($(#[$doc:meta])* $name:ident, $opcode:expr, $min_len:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $name<T: AsRef<[u8]>> {
            buffer: T,
        }

        impl<T: AsRef<[u8]>> $name<T> {
            /// Wraps a buffer without checking its length.
            pub const fn new_unchecked(buffer: T) -> Self {
                $name { buffer }
            }

            /// Wraps a buffer, checking that it holds the fixed part of the header.
            pub fn new_checked(buffer: T) -> Result<Self, Error> {
                let p = Self::new_unchecked(buffer);
                p.check_len()?;
                Ok(p)
            }

            /// Checks that the buffer holds the fixed part of the header.
            pub fn check_len(&self) -> Result<(), Error> {
                if self.buffer.as_ref().len() < $min_len {
                    Err(Error::Truncated($opcode))
                } else {
                    Ok(())
                }
            }

            /// The underlying buffer.
            pub fn into_inner(self) -> T {
                self.buffer
            }

            /// Data Sink STag.
            pub fn stag(&self) -> u32 {
                read_u32(self.buffer.as_ref(), field::STAG.start)
            }

            /// Data Sink Length.
            pub fn length(&self) -> u32 {
                read_u32(self.buffer.as_ref(), field::LENGTH.start)
            }

            /// Data Sink Tagged Offset.
            pub fn to(&self) -> u64 {
                read_u64(self.buffer.as_ref(), field::TO.start)
            }
        }

        impl<T: AsRef<[u8]> + AsMut<[u8]>> $name<T> {
            /// Sets the Data Sink STag.
            pub fn set_stag(&mut self, value: u32) {
                write_u32(self.buffer.as_mut(), field::STAG.start, value)
            }

            /// Sets the Data Sink Length.
            pub fn set_length(&mut self, value: u32) {
                write_u32(self.buffer.as_mut(), field::LENGTH.start, value)
            }

            /// Sets the Data Sink Tagged Offset.
            pub fn set_to(&mut self, value: u64) {
                write_u64(self.buffer.as_mut(), field::TO.start, value)
            }
        }
    };
}

request_packet!(
    /// A view of an RDMA Flush Request header. `rdma-commit.md` §1.1.
    FlushRequestPacket,
    Opcode::FlushRequest,
    FLUSH_REQUEST_LEN
);
request_packet!(
    /// A view of an RDMA Verify Request header (fixed part + Hash Value). `rdma-commit.md` §1.3.
    VerifyRequestPacket,
    Opcode::VerifyRequest,
    VERIFY_REQUEST_MIN_LEN
);
request_packet!(
    /// A view of an Atomic Write Request header. `rdma-commit.md` §1.5.
    AtomicWriteRequestPacket,
    Opcode::AtomicWriteRequest,
    ATOMIC_WRITE_REQUEST_LEN
);

impl<T: AsRef<[u8]>> FlushRequestPacket<T> {
    /// Flush Disposition Flags, all 32 bits.
    pub fn flags(&self) -> u32 {
        read_u32(self.buffer.as_ref(), field::FLUSH_FLAGS.start)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> FlushRequestPacket<T> {
    /// Sets the Flush Disposition Flags.
    pub fn set_flags(&mut self, value: u32) {
        write_u32(self.buffer.as_mut(), field::FLUSH_FLAGS.start, value)
    }
}

impl<'a, T: AsRef<[u8]> + ?Sized> VerifyRequestPacket<&'a T> {
    /// The Hash Value: every octet after the fixed part (H = 0 means "compute and return").
    pub fn hash(&self) -> &'a [u8] {
        self.buffer
            .as_ref()
            .get(VERIFY_REQUEST_MIN_LEN..)
            .unwrap_or(&[])
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> VerifyRequestPacket<T> {
    /// The Hash Value, mutably (every octet after the fixed part).
    pub fn hash_mut(&mut self) -> &mut [u8] {
        self.buffer
            .as_mut()
            .get_mut(VERIFY_REQUEST_MIN_LEN..)
            .unwrap_or(&mut [])
    }
}

impl<T: AsRef<[u8]>> AtomicWriteRequestPacket<T> {
    /// The 64-bit Data, big-endian on the wire.
    pub fn data(&self) -> u64 {
        read_u64(self.buffer.as_ref(), field::ATOMIC_WRITE_DATA.start)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> AtomicWriteRequestPacket<T> {
    /// Sets the 64-bit Data.
    pub fn set_data(&mut self, value: u64) {
        write_u64(self.buffer.as_mut(), field::ATOMIC_WRITE_DATA.start, value)
    }
}

/// An RDMA Flush Request header. `rdma-commit.md` §1.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FlushRequestRepr {
    /// Data Sink STag.
    pub stag: u32,
    /// Data Sink Length: octets to flush.
    pub length: u32,
    /// Data Sink Tagged Offset.
    pub to: u64,
    /// Flush Disposition Flags as received; [`FLUSH_PERSISTENCE`] and/or
    /// [`FLUSH_GLOBAL_VISIBILITY`] (other bits are ignored by the responder).
    pub flags: u32,
}

impl FlushRequestRepr {
    /// Parses the header. Fails with [`Error::InvalidFlushFlags`] if neither P nor G is set
    /// (`rdma-commit.md` §11 Q-3, CT-11); other flag bits are kept but not checked.
    pub fn parse<T: AsRef<[u8]>>(packet: &FlushRequestPacket<T>) -> Result<Self, Error> {
        packet.check_len()?;
        if packet.flags() & FLUSH_FLAGS_DEFINED == 0 {
            return Err(Error::InvalidFlushFlags(packet.flags()));
        }
        Ok(FlushRequestRepr {
            stag: packet.stag(),
            length: packet.length(),
            to: packet.to(),
            flags: packet.flags(),
        })
    }

    /// Flush to persistence requested.
    pub const fn persistence(&self) -> bool {
        self.flags & FLUSH_PERSISTENCE != 0
    }

    /// Flush to global visibility requested.
    pub const fn global_visibility(&self) -> bool {
        self.flags & FLUSH_GLOBAL_VISIBILITY != 0
    }

    /// [`FLUSH_REQUEST_LEN`].
    pub const fn buffer_len(&self) -> usize {
        FLUSH_REQUEST_LEN
    }

    /// Writes the header into the first [`FLUSH_REQUEST_LEN`] octets.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(
        &self,
        packet: &mut FlushRequestPacket<T>,
    ) -> Result<(), Error> {
        if packet.buffer.as_ref().len() < FLUSH_REQUEST_LEN {
            return Err(Error::BufferTooSmall);
        }
        packet.set_stag(self.stag);
        packet.set_length(self.length);
        packet.set_to(self.to);
        packet.set_flags(self.flags);
        Ok(())
    }
}

/// An RDMA Verify Request header with its Hash Value. `rdma-commit.md` §1.3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VerifyRequestRepr<'a> {
    /// Data Sink STag.
    pub stag: u32,
    /// Data Sink Length: octets to hash.
    pub length: u32,
    /// Data Sink Tagged Offset.
    pub to: u64,
    /// Expected hash (empty: compute and return only; P-6 / Q-7).
    pub hash: &'a [u8],
}

impl<'a> VerifyRequestRepr<'a> {
    /// Parses the header; the Hash Value is every octet after the fixed part.
    pub fn parse<T: AsRef<[u8]> + ?Sized>(
        packet: &VerifyRequestPacket<&'a T>,
    ) -> Result<Self, Error> {
        packet.check_len()?;
        Ok(VerifyRequestRepr {
            stag: packet.stag(),
            length: packet.length(),
            to: packet.to(),
            hash: packet.hash(),
        })
    }

    /// Whether the responder compares (H > 0; the draft's "Compare Flag", P-6).
    pub const fn compare(&self) -> bool {
        !self.hash.is_empty()
    }

    /// 16 + H.
    pub const fn buffer_len(&self) -> usize {
        VERIFY_REQUEST_MIN_LEN + self.hash.len()
    }

    /// Writes the header and the Hash Value into the first `buffer_len()` octets.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(
        &self,
        packet: &mut VerifyRequestPacket<T>,
    ) -> Result<(), Error> {
        if packet.buffer.as_ref().len() < self.buffer_len() {
            return Err(Error::BufferTooSmall);
        }
        packet.set_stag(self.stag);
        packet.set_length(self.length);
        packet.set_to(self.to);
        packet.hash_mut()[..self.hash.len()].copy_from_slice(self.hash);
        Ok(())
    }
}

/// An Atomic Write Request header. `rdma-commit.md` §1.5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AtomicWriteRequestRepr {
    /// Data Sink STag.
    pub stag: u32,
    /// Data Sink Tagged Offset (must name a 64-bit aligned address).
    pub to: u64,
    /// The 64-bit value, big-endian on the wire (target byte order: `rdma-commit.md` §11 Q-9).
    pub data: u64,
}

impl AtomicWriteRequestRepr {
    /// Parses the header; a Data Sink Length other than [`ATOMIC_WRITE_LENGTH`] is
    /// [`Error::BadAtomicWriteLength`] (`rdma-commit.md` §1.5, CT-10).
    pub fn parse<T: AsRef<[u8]>>(packet: &AtomicWriteRequestPacket<T>) -> Result<Self, Error> {
        packet.check_len()?;
        if packet.length() != ATOMIC_WRITE_LENGTH {
            return Err(Error::BadAtomicWriteLength(packet.length()));
        }
        Ok(AtomicWriteRequestRepr {
            stag: packet.stag(),
            to: packet.to(),
            data: packet.data(),
        })
    }

    /// [`ATOMIC_WRITE_REQUEST_LEN`].
    pub const fn buffer_len(&self) -> usize {
        ATOMIC_WRITE_REQUEST_LEN
    }

    /// Writes the header (Data Sink Length = 8) into the first [`ATOMIC_WRITE_REQUEST_LEN`]
    /// octets.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(
        &self,
        packet: &mut AtomicWriteRequestPacket<T>,
    ) -> Result<(), Error> {
        if packet.buffer.as_ref().len() < ATOMIC_WRITE_REQUEST_LEN {
            return Err(Error::BufferTooSmall);
        }
        packet.set_stag(self.stag);
        packet.set_length(ATOMIC_WRITE_LENGTH);
        packet.set_to(self.to);
        packet.set_data(self.data);
        Ok(())
    }
}
