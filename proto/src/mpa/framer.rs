//! TX framing: a ULPDU to the octets MPA puts on the LLP stream, markers included (RFC 5044
//! §4, §5). Catalog: `mpa-peer-connect.md` §5.1 (FPDU, PAD, CRC span), §5.3 (markers).

use super::fpdu::{fpdu_len, pad_len, Marker, CRC_ENGINE, FPDU_ALIGN, MARKER_INTERVAL, MARKER_LEN};
use super::Error;
use crate::crc32c::to_wire;
use crc::Digest;

/// Octets the [`Framer`] writes for a ULPDU of `ulpdu_len` octets when the next stream octet
/// is at `stream_offset` (relative to the start of FPDU mode in this direction, modulo 2^32 like
/// a TCP sequence number; only its value mod 512 matters).
///
/// Without markers this is the FPDU length, 2 + ULPDU + PAD + 4 (§5.1). With markers it adds
/// the marker that sits right before the header when `stream_offset` is on the 512-octet grid
/// (it begins this FPDU and is in its CRC span), and every marker that falls inside the FPDU
/// (§5.3). A marker that would fall right after the CRC begins the next FPDU and is not counted.
pub fn fpdu_wire_len(ulpdu_len: u16, markers: bool, stream_offset: u32) -> usize {
    let n = fpdu_len(ulpdu_len);
    if !markers {
        return n;
    }
    let (leading, first_run) = first_run(stream_offset);
    leading + n + MARKER_LEN * embedded_markers(n, first_run)
}

/// With markers: (octets of the marker before the header, octets of FPDU before the first
/// grid point after the header).
fn first_run(stream_offset: u32) -> (usize, usize) {
    let interval = MARKER_INTERVAL as usize;
    match (stream_offset % MARKER_INTERVAL) as usize {
        0 => (MARKER_LEN, interval - MARKER_LEN),
        pos => (0, interval - pos),
    }
}

/// Markers inside an FPDU of `n` octets (without markers) whose first run is `first_run`
/// octets: one before every further run of 508 FPDU octets.
fn embedded_markers(n: usize, first_run: usize) -> usize {
    let run = MARKER_INTERVAL as usize - MARKER_LEN;
    n.saturating_sub(first_run).div_ceil(run)
}

/// Writes FPDUs for one direction of a connection.
///
/// `stream_offset` is the stream offset of the next octet this framer writes, relative to the
/// first octet of FPDU mode in this direction (§5.3); it advances with every FPDU written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Framer {
    /// Insert markers (the peer asked for them with M=1, §3.2).
    pub markers: bool,
    /// Compute the CRC; when off the CRC field is still present and written as 0 (§3.2).
    pub crc: bool,
    /// Stream offset of the next octet, modulo 2^32.
    pub stream_offset: u32,
}

impl Framer {
    /// A framer at the start of FPDU mode (stream offset 0).
    pub const fn new(markers: bool, crc: bool) -> Self {
        Framer {
            markers,
            crc,
            stream_offset: 0,
        }
    }

    /// Octets [`Framer::write_fpdu`] will write for a ULPDU of `ulpdu_len` octets now.
    pub fn wire_len(&self, ulpdu_len: u16) -> usize {
        fpdu_wire_len(ulpdu_len, self.markers, self.stream_offset)
    }

    /// Writes the FPDU of `ulpdu` at the start of `out` (with markers: preceded by the grid
    /// marker, FPDUPTR 0, when the stream offset is on the grid, markers embedded with their
    /// FPDUPTR, and the CRC computed over every marker written, the leading one included, and
    /// header, ULPDU and PAD, §5.1, §5.3, `docs/decisions.md`). Returns the octets written and
    /// advances `stream_offset` by as many. On error nothing is written.
    pub fn write_fpdu(&mut self, ulpdu: &[u8], out: &mut [u8]) -> Result<usize, Error> {
        let len = u16::try_from(ulpdu.len()).map_err(|_| Error::UlpduTooLong)?;
        if self.markers {
            if !self.stream_offset.is_multiple_of(FPDU_ALIGN as u32) {
                return Err(Error::UnalignedStreamOffset);
            }
            // The last embedded marker is the farthest from the header.
            let (_, first) = first_run(self.stream_offset);
            let m = embedded_markers(fpdu_len(len), first);
            if m > 0 && first + (m - 1) * MARKER_INTERVAL as usize > usize::from(u16::MAX) {
                return Err(Error::FpduptrOverflow);
            }
        }
        let total = self.wire_len(len);
        let out = out.get_mut(..total).ok_or(Error::BufferTooSmall)?;
        let mut w = Writer {
            out,
            pos: 0,
            offset: self.stream_offset,
            markers: self.markers,
            header_offset: self.stream_offset,
            digest: CRC_ENGINE.digest(),
        };
        if self.markers && self.stream_offset.is_multiple_of(MARKER_INTERVAL) {
            // Marker right before the header: FPDUPTR 0; it begins this FPDU and is covered by
            // its CRC, as Wireshark checks it (docs/decisions.md; catalog §5.1 [UNCERTAIN]).
            let marker = Marker::new(0).to_wire();
            w.raw(&marker)?;
            w.digest.update(&marker);
        }
        w.header_offset = w.offset;
        w.put(&len.to_be_bytes())?;
        w.put(ulpdu)?;
        w.put(&[0u8; 3][..pad_len(ulpdu.len())])?;
        // A marker due between PAD and CRC is inside the FPDU and covered by the CRC (§5.3).
        w.marker_if_due()?;
        let crc = if self.crc {
            w.digest.clone().finalize()
        } else {
            0
        };
        // The CRC starts 4-aligned right after any due marker, so no grid point falls inside it.
        w.raw(&to_wire(crc))?;
        self.stream_offset = w.offset;
        Ok(w.pos)
    }
}

/// Output cursor that inserts markers on the grid and keeps the CRC running.
struct Writer<'o> {
    out: &'o mut [u8],
    pos: usize,
    offset: u32,
    markers: bool,
    header_offset: u32,
    digest: Digest<'static, u32>,
}

impl Writer<'_> {
    /// Copies octets out, no marker logic, no CRC.
    fn raw(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let end = self.pos + bytes.len();
        let dst = self
            .out
            .get_mut(self.pos..end)
            .ok_or(Error::BufferTooSmall)?;
        dst.copy_from_slice(bytes);
        self.pos = end;
        // Runs are at most 65535 octets long; the offset wraps like a TCP sequence number.
        self.offset = self.offset.wrapping_add(bytes.len() as u32);
        Ok(())
    }

    /// Writes an embedded marker if the next octet is on the grid.
    fn marker_if_due(&mut self) -> Result<(), Error> {
        if self.markers && self.offset.is_multiple_of(MARKER_INTERVAL) {
            let ptr = self.offset.wrapping_sub(self.header_offset);
            let ptr = u16::try_from(ptr).map_err(|_| Error::FpduptrOverflow)?;
            let marker = Marker::new(ptr).to_wire();
            self.raw(&marker)?;
            self.digest.update(&marker);
        }
        Ok(())
    }

    /// Writes FPDU octets (covered by the CRC), inserting markers where due.
    fn put(&mut self, mut data: &[u8]) -> Result<(), Error> {
        while !data.is_empty() {
            self.marker_if_due()?;
            let room = if self.markers {
                (MARKER_INTERVAL - self.offset % MARKER_INTERVAL) as usize
            } else {
                data.len()
            };
            let (run, rest) = data.split_at(room.min(data.len()));
            self.raw(run)?;
            self.digest.update(run);
            data = rest;
        }
        Ok(())
    }
}
