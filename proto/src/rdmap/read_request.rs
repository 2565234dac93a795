//! RDMA Read Request header (RFC 5040 §4.4, Figure 6): 28 octets right after the untagged DDP
//! header (DDP offsets 18..46). Catalog: `rfc5040-rdmap.md` §1.5.
//!
//! ```text
//! hdr off  DDP off  field
//! 0..4     18..22   Data Sink STag
//! 4..12    22..30   Data Sink Tagged Offset
//! 12..16   30..34   RDMA Read Message Size (RDMARDSZ)
//! 16..20   34..38   Data Source STag
//! 20..28   38..46   Data Source Tagged Offset
//! ```
//!
//! The same 28 octets are the "Terminated RDMA Header" of a Terminate with R = 1.

use super::{Error, Opcode};
use crate::ddp::{read_u32, read_u64, write_u32, write_u64};

/// Octet ranges of the fields, relative to the start of the Read Request header.
/// `rfc5040-rdmap.md` §1.5.
pub mod field {
    /// A field's octet range.
    pub type Field = core::ops::Range<usize>;
    /// Data Sink STag.
    pub const SINK_STAG: Field = 0..4;
    /// Data Sink Tagged Offset.
    pub const SINK_TO: Field = 4..12;
    /// RDMA Read Message Size.
    pub const READ_SIZE: Field = 12..16;
    /// Data Source STag.
    pub const SRC_STAG: Field = 16..20;
    /// Data Source Tagged Offset.
    pub const SRC_TO: Field = 20..28;
}

/// Length of the RDMA Read Request header: 28 octets. `rfc5040-rdmap.md` §1.5.
pub const HEADER_LEN: usize = field::SRC_TO.end;

/// A view of an RDMA Read Request header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Packet<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Packet<T> {
        Packet { buffer }
    }

    /// Wraps a buffer, checking that it holds [`HEADER_LEN`] octets.
    pub fn new_checked(buffer: T) -> Result<Packet<T>, Error> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Checks that the buffer holds the whole header.
    pub fn check_len(&self) -> Result<(), Error> {
        if self.buffer.as_ref().len() < HEADER_LEN {
            Err(Error::Truncated(Opcode::RdmaReadRequest))
        } else {
            Ok(())
        }
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Data Sink STag (copied into the Read Response's STag).
    pub fn sink_stag(&self) -> u32 {
        read_u32(self.buffer.as_ref(), field::SINK_STAG.start)
    }

    /// Data Sink Tagged Offset (copied into the Read Response's TO).
    pub fn sink_to(&self) -> u64 {
        read_u64(self.buffer.as_ref(), field::SINK_TO.start)
    }

    /// RDMA Read Message Size (RDMARDSZ), 0 ..= 2^32 - 1 octets.
    pub fn read_size(&self) -> u32 {
        read_u32(self.buffer.as_ref(), field::READ_SIZE.start)
    }

    /// Data Source STag.
    pub fn src_stag(&self) -> u32 {
        read_u32(self.buffer.as_ref(), field::SRC_STAG.start)
    }

    /// Data Source Tagged Offset.
    pub fn src_to(&self) -> u64 {
        read_u64(self.buffer.as_ref(), field::SRC_TO.start)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the Data Sink STag.
    pub fn set_sink_stag(&mut self, value: u32) {
        write_u32(self.buffer.as_mut(), field::SINK_STAG.start, value)
    }

    /// Sets the Data Sink Tagged Offset.
    pub fn set_sink_to(&mut self, value: u64) {
        write_u64(self.buffer.as_mut(), field::SINK_TO.start, value)
    }

    /// Sets the RDMA Read Message Size.
    pub fn set_read_size(&mut self, value: u32) {
        write_u32(self.buffer.as_mut(), field::READ_SIZE.start, value)
    }

    /// Sets the Data Source STag.
    pub fn set_src_stag(&mut self, value: u32) {
        write_u32(self.buffer.as_mut(), field::SRC_STAG.start, value)
    }

    /// Sets the Data Source Tagged Offset.
    pub fn set_src_to(&mut self, value: u64) {
        write_u64(self.buffer.as_mut(), field::SRC_TO.start, value)
    }
}

/// An RDMA Read Request header. `rfc5040-rdmap.md` §1.5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Repr {
    /// Data Sink STag.
    pub sink_stag: u32,
    /// Data Sink Tagged Offset.
    pub sink_to: u64,
    /// RDMA Read Message Size (RDMARDSZ).
    pub read_size: u32,
    /// Data Source STag.
    pub src_stag: u32,
    /// Data Source Tagged Offset.
    pub src_to: u64,
}

impl Repr {
    /// Parses the header (every value is legal on the wire).
    pub fn parse<T: AsRef<[u8]>>(packet: &Packet<T>) -> Result<Repr, Error> {
        packet.check_len()?;
        Ok(Repr {
            sink_stag: packet.sink_stag(),
            sink_to: packet.sink_to(),
            read_size: packet.read_size(),
            src_stag: packet.src_stag(),
            src_to: packet.src_to(),
        })
    }

    /// [`HEADER_LEN`].
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header into the first [`HEADER_LEN`] octets of the view.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, packet: &mut Packet<T>) -> Result<(), Error> {
        if packet.buffer.as_ref().len() < HEADER_LEN {
            return Err(Error::BufferTooSmall);
        }
        packet.set_sink_stag(self.sink_stag);
        packet.set_sink_to(self.sink_to);
        packet.set_read_size(self.read_size);
        packet.set_src_stag(self.src_stag);
        packet.set_src_to(self.src_to);
        Ok(())
    }

    /// The header a Terminate carries back when the Read was terminated after `octets` were
    /// sent: SinkTO and SrcTO advance by `octets`, RDMARDSZ becomes the octets still left.
    /// `rfc5040-rdmap.md` §1.6 ("Terminated RDMA Header when a Read Request is terminated").
    /// TOs wrap modulo 2^64; the size saturates at 0.
    pub const fn progressed(&self, octets: u32) -> Repr {
        Repr {
            sink_stag: self.sink_stag,
            sink_to: self.sink_to.wrapping_add(octets as u64),
            read_size: self.read_size.saturating_sub(octets),
            src_stag: self.src_stag,
            src_to: self.src_to.wrapping_add(octets as u64),
        }
    }
}
