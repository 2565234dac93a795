//! One FPDU (Framed Protocol Data Unit) and the marker format (RFC 5044 §4, §5).
//! Catalog: `mpa-peer-connect.md` §5.1 (FPDU), §5.2 (CRC), §5.3 (markers), §5.4 (MULPDU).
//!
//! ```text
//! ULPDU_Length (16, BE) | ULPDU (ULPDU_Length octets) | PAD (0-3 zero octets) | CRC (32, LSB first)
//! ```
//!
//! [`Fpdu`] and [`FpduRepr`] see an FPDU *without* markers. When markers are on, markers sit in
//! the stream on a 512-octet grid, also inside FPDUs, and every one is in a CRC span: a marker
//! inside an FPDU in that FPDU's, a marker right before an FPDU header (FPDUPTR 0) in the span
//! of the FPDU it begins. The [`Framer`](super::Framer) and [`Deframer`](super::Deframer) handle
//! that.

use super::Error;
use crate::crc32c::{crc32c, from_wire, to_wire, CRC32C};
use crc::Crc;

/// The CRC-32C engine as a `static`, so running digests (`Digest<'static, u32>`) can live in the
/// [`Framer`](super::Framer) and [`Deframer`](super::Deframer) (§5.2).
pub(crate) static CRC_ENGINE: Crc<u32> = CRC32C;

/// Length of the ULPDU_Length field (§5.1).
pub const ULPDU_LENGTH_LEN: usize = 2;
/// Length of the CRC field; it is always present, even when CRC is not negotiated (§5.1, §3.2).
pub const CRC_LEN: usize = 4;
/// Largest ULPDU_Length the 16-bit field can express (§5.1).
pub const MAX_ULPDU: usize = 0xFFFF;
/// Smallest FPDU: empty ULPDU, 2 PAD octets, CRC (§2.5, §5.1).
pub const MIN_FPDU_LEN: usize = 8;
/// FPDUs (and markers) are multiples of this length, so both stay aligned in stream space (§5.1).
pub const FPDU_ALIGN: usize = 4;
/// Markers sit at every stream offset ≡ 0 mod 512, counted from the first octet of FPDU mode
/// in that direction (§5.3).
pub const MARKER_INTERVAL: u32 = 512;
/// Length of a marker: RESERVED (16) ‖ FPDUPTR (16) (§5.3).
pub const MARKER_LEN: usize = 4;
/// FPDUPTR bits that MUST be 0 on TX and are treated as 0 on RX (§5.3).
pub const FPDUPTR_IGNORED_BITS: u16 = 0x0003;

/// PAD octets after a ULPDU of `ulpdu_len` octets: `(2 - len) & 3`, so that
/// 2 + ULPDU_Length + PAD ≡ 0 (mod 4) (§5.1).
pub const fn pad_len(ulpdu_len: usize) -> usize {
    2usize.wrapping_sub(ulpdu_len) & 3
}

/// Octets of an FPDU without markers: 2 + ULPDU + PAD + 4 (§5.1).
pub const fn fpdu_len(ulpdu_len: u16) -> usize {
    let l = ulpdu_len as usize;
    ULPDU_LENGTH_LEN + l + pad_len(l) + CRC_LEN
}

/// MULPDU: the largest ULPDU whose FPDU fits one TCP segment of `emss` payload octets (§5.4):
/// `EMSS − (6 + 4·⌈EMSS/512⌉ + EMSS mod 4)` with markers, `EMSS − (6 + EMSS mod 4)` without.
/// 0 when the EMSS is too small for any ULPDU.
pub fn mulpdu(emss: u16, markers: bool) -> u16 {
    let emss = u32::from(emss);
    let marker_octets = if markers {
        MARKER_LEN as u32 * emss.div_ceil(MARKER_INTERVAL)
    } else {
        0
    };
    let overhead = (ULPDU_LENGTH_LEN + CRC_LEN) as u32 + marker_octets + emss % 4;
    // emss <= 0xFFFF, so the difference fits.
    emss.saturating_sub(overhead) as u16
}

/// A marker: `RESERVED (16 bits, 0) ‖ FPDUPTR (16 bits, BE)` (§5.3).
///
/// FPDUPTR = stream offset of the marker − stream offset of the ULPDU_Length field of the FPDU
/// it sits in; 0 for a marker right before an FPDU header (it begins that FPDU, whose
/// ULPDU_Length is at marker + 4, and is covered by that FPDU's CRC).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Marker {
    /// RESERVED: 0 on TX; not checked on RX (decision in `docs/decisions.md`).
    pub reserved: u16,
    /// FPDUPTR as received.
    pub fpduptr: u16,
}

impl Marker {
    /// A marker to transmit (RESERVED = 0).
    pub const fn new(fpduptr: u16) -> Self {
        Marker {
            reserved: 0,
            fpduptr,
        }
    }

    /// Decodes the four marker octets.
    pub const fn from_wire(bytes: [u8; MARKER_LEN]) -> Self {
        Marker {
            reserved: u16::from_be_bytes([bytes[0], bytes[1]]),
            fpduptr: u16::from_be_bytes([bytes[2], bytes[3]]),
        }
    }

    /// The four marker octets.
    pub const fn to_wire(self) -> [u8; MARKER_LEN] {
        let r = self.reserved.to_be_bytes();
        let p = self.fpduptr.to_be_bytes();
        [r[0], r[1], p[0], p[1]]
    }

    /// FPDUPTR as a receiver uses it: its two LSBs treated as 0 (§5.3).
    pub const fn pointer(self) -> u16 {
        self.fpduptr & !FPDUPTR_IGNORED_BITS
    }
}

/// A view of one FPDU without markers.
///
/// Getters index the buffer directly: use [`Fpdu::new_checked`] on untrusted input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fpdu<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Fpdu<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Fpdu<T> {
        Fpdu { buffer }
    }

    /// Wraps a buffer, checking that it holds the whole FPDU its ULPDU_Length announces.
    pub fn new_checked(buffer: T) -> Result<Fpdu<T>, Error> {
        let fpdu = Self::new_unchecked(buffer);
        fpdu.check_len()?;
        Ok(fpdu)
    }

    /// [`Error::Truncated`] unless the buffer holds ULPDU_Length, ULPDU, PAD and CRC.
    /// Longer buffers pass: the next FPDU may follow.
    pub fn check_len(&self) -> Result<(), Error> {
        let data = self.buffer.as_ref();
        match data.get(..ULPDU_LENGTH_LEN) {
            Some(h) if data.len() >= fpdu_len(u16::from_be_bytes([h[0], h[1]])) => Ok(()),
            _ => Err(Error::Truncated),
        }
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// ULPDU_Length.
    pub fn ulpdu_length(&self) -> u16 {
        let d = self.buffer.as_ref();
        u16::from_be_bytes([d[0], d[1]])
    }

    /// Octets of this FPDU on the wire (without markers).
    pub fn fpdu_len(&self) -> usize {
        fpdu_len(self.ulpdu_length())
    }

    /// The ULPDU.
    pub fn ulpdu(&self) -> &[u8] {
        let end = ULPDU_LENGTH_LEN + usize::from(self.ulpdu_length());
        &self.buffer.as_ref()[ULPDU_LENGTH_LEN..end]
    }

    /// The PAD octets.
    pub fn pad(&self) -> &[u8] {
        let start = ULPDU_LENGTH_LEN + usize::from(self.ulpdu_length());
        &self.buffer.as_ref()[start..self.fpdu_len() - CRC_LEN]
    }

    /// The CRC field's value (wire octets are least significant first, §5.2).
    pub fn crc(&self) -> u32 {
        let end = self.fpdu_len();
        let d = &self.buffer.as_ref()[end - CRC_LEN..end];
        from_wire([d[0], d[1], d[2], d[3]])
    }

    /// CRC-32C over ULPDU_Length, ULPDU and PAD (§5.1).
    pub fn compute_crc(&self) -> u32 {
        crc32c(&self.buffer.as_ref()[..self.fpdu_len() - CRC_LEN])
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Fpdu<T> {
    /// Writes ULPDU_Length.
    pub fn set_ulpdu_length(&mut self, len: u16) {
        self.buffer.as_mut()[..ULPDU_LENGTH_LEN].copy_from_slice(&len.to_be_bytes());
    }

    /// The ULPDU, mutable.
    pub fn ulpdu_mut(&mut self) -> &mut [u8] {
        let end = ULPDU_LENGTH_LEN + usize::from(self.ulpdu_length());
        &mut self.buffer.as_mut()[ULPDU_LENGTH_LEN..end]
    }

    /// Writes the PAD octets as 0x00 (§5.1).
    pub fn clear_pad(&mut self) {
        let start = ULPDU_LENGTH_LEN + usize::from(self.ulpdu_length());
        let end = self.fpdu_len() - CRC_LEN;
        self.buffer.as_mut()[start..end].fill(0);
    }

    /// Writes the CRC field.
    pub fn set_crc(&mut self, crc: u32) {
        let end = self.fpdu_len();
        self.buffer.as_mut()[end - CRC_LEN..end].copy_from_slice(&to_wire(crc));
    }

    /// Computes the CRC and writes it.
    pub fn fill_crc(&mut self) {
        let crc = self.compute_crc();
        self.set_crc(crc);
    }
}

/// One FPDU, parsed: its ULPDU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FpduRepr<'a> {
    /// The ULPDU (a DDP segment).
    pub ulpdu: &'a [u8],
}

impl<'a> FpduRepr<'a> {
    /// Parses an FPDU without markers at the start of the buffer and, when CRC was negotiated,
    /// checks it ([`Error::BadCrc`]). With CRC off the field is "don't care" (§3.2). PAD
    /// contents are not checked: they are covered by the CRC. Never panics.
    pub fn parse<T: AsRef<[u8]> + ?Sized>(
        fpdu: &Fpdu<&'a T>,
        crc: bool,
    ) -> Result<FpduRepr<'a>, Error> {
        let data: &'a [u8] = fpdu.buffer.as_ref();
        let view = Fpdu::new_checked(data)?;
        if crc && view.crc() != view.compute_crc() {
            return Err(Error::BadCrc);
        }
        let end = ULPDU_LENGTH_LEN + usize::from(view.ulpdu_length());
        Ok(FpduRepr {
            ulpdu: &data[ULPDU_LENGTH_LEN..end],
        })
    }

    /// Octets needed to emit this FPDU (without markers).
    pub fn buffer_len(&self) -> usize {
        ULPDU_LENGTH_LEN + self.ulpdu.len() + pad_len(self.ulpdu.len()) + CRC_LEN
    }

    /// Writes the FPDU (zero PAD; CRC, or 0 in the CRC field when CRC is off, §3.2) at the
    /// start of `fpdu`'s buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(
        &self,
        fpdu: &mut Fpdu<T>,
        crc: bool,
    ) -> Result<(), Error> {
        let len = u16::try_from(self.ulpdu.len()).map_err(|_| Error::UlpduTooLong)?;
        let out = fpdu
            .buffer
            .as_mut()
            .get_mut(..fpdu_len(len))
            .ok_or(Error::BufferTooSmall)?;
        let mut view = Fpdu::new_unchecked(out);
        view.set_ulpdu_length(len);
        view.ulpdu_mut().copy_from_slice(self.ulpdu);
        view.clear_pad();
        if crc {
            view.fill_crc();
        } else {
            view.set_crc(0);
        }
        Ok(())
    }
}
