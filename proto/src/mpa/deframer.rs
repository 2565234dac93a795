//! RX deframing: the LLP byte stream of one direction back to ULPDUs (RFC 5044 §4, §5).
//! Catalog: `mpa-peer-connect.md` §5.1 (delineation by ULPDU_Length), §5.2 (CRC), §5.3
//! (markers), §4.2 (error codes, MPA-ERR-STOP).
//!
//! This is the golden model of the hardware MPA receive block. It is written as a plain state
//! machine that consumes the stream in runs and never looks ahead, so it gives the same result
//! however the stream is cut:
//!
//! 1. With markers on, the 4 octets at every stream offset ≡ 0 mod 512 are a marker, and every
//!    marker is covered by a CRC. A marker right before an FPDU header must have FPDUPTR 0: it
//!    begins the FPDU that follows and is the first thing in that FPDU's CRC span. A marker
//!    inside an FPDU must have FPDUPTR = marker offset − ULPDU_Length offset and is covered by
//!    that FPDU's CRC. FPDUPTR's two LSBs and RESERVED are ignored (with CRC on, a change to
//!    them is still a CRC error). Decision in `docs/decisions.md`.
//! 2. Everything else is FPDUs back to back: ULPDU_Length (2), ULPDU, PAD `(2 - len) & 3`,
//!    CRC (4). A ULPDU_Length over the configured maximum ends the stream at once.
//! 3. At the end of each FPDU the ULPDU is delivered with a [`Status`]. A bad marker is
//!    reported there too, at the end of the FPDU it refers to (for a marker right before a
//!    header: the FPDU that follows it). A bad CRC wins over a bad marker: RFC 5044 code 0x03
//!    applies "in the event that the CRC is valid" (§4.2). So with CRC on a corrupted marker
//!    shows as [`Status::BadCrc`]; [`Status::BadMarker`] needs a CRC that is good or off.
//! 4. After a delivery that is not [`Status::Good`] the stream is dead: all further input is
//!    consumed and nothing more is delivered (MPA-ERR-STOP, §4.2).

use core::fmt;

use super::fpdu::{pad_len, Marker, CRC_ENGINE, CRC_LEN, FPDU_ALIGN, MARKER_INTERVAL, MARKER_LEN};
use super::Error;
use crate::crc32c::from_wire;
use crc::Digest;

/// How a [`Deframer`] reads its stream: what was negotiated for this direction (§3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DeframerConfig {
    /// Markers are present (this side sent M=1).
    pub markers: bool,
    /// CRCs are checked (C=1 in the Request or the Reply); when off the CRC field is ignored.
    pub crc: bool,
    /// Largest ULPDU_Length accepted; larger ones give [`Status::UlpduTooLong`].
    pub max_ulpdu: u16,
    /// Stream offset of the first octet fed, relative to the start of FPDU mode (normally 0).
    pub stream_offset: u32,
}

impl DeframerConfig {
    /// Starting at stream offset 0, accepting ULPDUs up to 65535 octets.
    pub const fn new(markers: bool, crc: bool) -> Self {
        DeframerConfig {
            markers,
            crc,
            max_ulpdu: u16::MAX,
            stream_offset: 0,
        }
    }
}

/// The verdict on one FPDU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// CRC (if on) and every marker that refers to this FPDU agree.
    Good,
    /// The CRC differs (code 0x02, §4.2); the ULPDU is delivered as received, untrusted.
    BadCrc,
    /// The CRC is fine but a marker disagrees with the FPDU start (code 0x03, §4.2).
    BadMarker,
    /// ULPDU_Length is over the maximum; the ULPDU delivered is empty.
    UlpduTooLong,
}

impl Status {
    /// `true` for [`Status::Good`].
    pub fn is_good(self) -> bool {
        self == Status::Good
    }

    /// The matching [`Error`], `None` for [`Status::Good`].
    pub fn error(self) -> Option<Error> {
        match self {
            Status::Good => None,
            Status::BadCrc => Some(Error::BadCrc),
            Status::BadMarker => Some(Error::BadMarker),
            Status::UlpduTooLong => Some(Error::UlpduTooLong),
        }
    }
}

/// One FPDU's ULPDU and its verdict, borrowed from the deframer's buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivery<'a> {
    /// The ULPDU (empty for [`Status::UlpduTooLong`]).
    pub ulpdu: &'a [u8],
    /// Whether it may be used.
    pub status: Status,
}

/// Where in an FPDU the next non-marker octet goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Header,
    Ulpdu,
    Pad,
    Crc,
}

/// Streaming FPDU receiver for one direction of one connection. See the module documentation.
///
/// `B` is the ULPDU buffer (e.g. `[u8; 65535]`, a `&mut [u8]`, or a `Vec<u8>` in tests); it must
/// hold `max_ulpdu` octets.
pub struct Deframer<B: AsRef<[u8]> + AsMut<[u8]>> {
    config: DeframerConfig,
    buffer: B,
    /// Stream offset of the next octet to consume.
    offset: u32,
    phase: Phase,
    /// Octets of `phase` consumed so far.
    got: usize,
    header: [u8; 2],
    ulpdu_len: usize,
    /// Stream offset of the current FPDU's ULPDU_Length field.
    fpdu_offset: u32,
    marker: [u8; MARKER_LEN],
    /// Octets of the current marker consumed so far (0 = not inside a marker).
    marker_got: usize,
    marker_offset: u32,
    /// A marker referring to the current (or next) FPDU disagreed.
    marker_bad: bool,
    crc_field: [u8; CRC_LEN],
    digest: Digest<'static, u32>,
    failed: Option<Error>,
    delivered: u64,
}

impl<B: AsRef<[u8]> + AsMut<[u8]>> Deframer<B> {
    /// A deframer with `buffer` for the ULPDUs. [`Error::BufferTooSmall`] if the buffer cannot
    /// hold `max_ulpdu` octets; [`Error::UnalignedStreamOffset`] if markers are on and the start
    /// offset is not a multiple of 4 (FPDUs and markers are 4-aligned, §5.3).
    pub fn new(buffer: B, config: DeframerConfig) -> Result<Self, Error> {
        if buffer.as_ref().len() < usize::from(config.max_ulpdu) {
            return Err(Error::BufferTooSmall);
        }
        if config.markers && !config.stream_offset.is_multiple_of(FPDU_ALIGN as u32) {
            return Err(Error::UnalignedStreamOffset);
        }
        Ok(Deframer {
            config,
            buffer,
            offset: config.stream_offset,
            phase: Phase::Header,
            got: 0,
            header: [0; 2],
            ulpdu_len: 0,
            fpdu_offset: config.stream_offset,
            marker: [0; MARKER_LEN],
            marker_got: 0,
            marker_offset: 0,
            marker_bad: false,
            crc_field: [0; CRC_LEN],
            digest: CRC_ENGINE.digest(),
            failed: None,
            delivered: 0,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &DeframerConfig {
        &self.config
    }

    /// Stream offset of the next octet to feed.
    pub fn stream_offset(&self) -> u32 {
        self.offset
    }

    /// The error that stopped this stream, if any.
    pub fn error(&self) -> Option<Error> {
        self.failed
    }

    /// Good ULPDUs delivered so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// `true` when the stream fed so far ends exactly after a whole FPDU (or is empty), markers
    /// included: nothing is half-received.
    pub fn at_fpdu_boundary(&self) -> bool {
        self.failed.is_none()
            && self.phase == Phase::Header
            && self.got == 0
            && self.marker_got == 0
    }

    /// Consumes stream octets from `input` up to the end of the next FPDU, if it ends inside
    /// `input`. Returns how many octets were consumed and, when an FPDU ended, its delivery;
    /// call again with the rest. Any cut of the stream gives the same deliveries. After an
    /// error everything is consumed and nothing delivered.
    pub fn feed(&mut self, input: &[u8]) -> (usize, Option<Delivery<'_>>) {
        let mut used = 0;
        while self.failed.is_none() {
            let rest = match input.get(used..) {
                Some(rest) if !rest.is_empty() => rest,
                _ => break,
            };
            let (n, status) = self.step(rest);
            used += n;
            if let Some(status) = status {
                return (used, Some(self.deliver(status)));
            }
        }
        if self.failed.is_some() {
            used = input.len();
        }
        (used, None)
    }

    /// Consumes one run of octets (at least one) of the same kind. Returns the status when an
    /// FPDU ends.
    fn step(&mut self, rest: &[u8]) -> (usize, Option<Status>) {
        let markers = self.config.markers;
        if markers && (self.marker_got > 0 || self.offset.is_multiple_of(MARKER_INTERVAL)) {
            if self.marker_got == 0 {
                self.marker_offset = self.offset;
            }
            let take = take_into(&mut self.marker, self.marker_got, rest);
            self.marker_got += take;
            self.advance(take);
            if self.marker_got == MARKER_LEN {
                self.marker_got = 0;
                self.check_marker();
            }
            return (take, None);
        }
        // Octets up to the next grid point, where a marker interrupts.
        let room = if markers {
            (MARKER_INTERVAL - self.offset % MARKER_INTERVAL) as usize
        } else {
            usize::MAX
        };
        let avail = rest.get(..room.min(rest.len())).unwrap_or(rest);
        match self.phase {
            Phase::Header => {
                if self.got == 0 {
                    self.fpdu_offset = self.offset;
                }
                let take = take_into(&mut self.header, self.got, avail);
                self.consume_covered(avail, take);
                if self.got == self.header.len() {
                    let len = usize::from(u16::from_be_bytes(self.header));
                    if len > usize::from(self.config.max_ulpdu) {
                        return (take, Some(Status::UlpduTooLong));
                    }
                    self.ulpdu_len = len;
                    self.enter(Phase::Ulpdu);
                }
                (take, None)
            }
            Phase::Ulpdu => {
                let want = self.ulpdu_len - self.got;
                let buf = self.buffer.as_mut();
                let take = match buf.get_mut(self.got..) {
                    Some(dst) => take_into(dst, 0, &avail[..want.min(avail.len())]),
                    None => 0,
                };
                if take == 0 {
                    // Unreachable: `new` checked the buffer holds `max_ulpdu` octets.
                    return (0, Some(Status::UlpduTooLong));
                }
                self.consume_covered(avail, take);
                if self.got == self.ulpdu_len {
                    self.enter(Phase::Pad);
                }
                (take, None)
            }
            Phase::Pad => {
                let take = (pad_len(self.ulpdu_len) - self.got).min(avail.len());
                self.consume_covered(avail, take);
                if self.got == pad_len(self.ulpdu_len) {
                    self.enter(Phase::Crc);
                }
                (take, None)
            }
            Phase::Crc => {
                let take = take_into(&mut self.crc_field, self.got, avail);
                self.got += take;
                self.advance(take);
                if self.got == CRC_LEN {
                    return (take, Some(self.verdict()));
                }
                (take, None)
            }
        }
    }

    /// Counts `take` octets of `avail` as FPDU octets covered by the CRC.
    fn consume_covered(&mut self, avail: &[u8], take: usize) {
        self.digest.update(&avail[..take]);
        self.got += take;
        self.advance(take);
    }

    fn advance(&mut self, n: usize) {
        // Runs are at most 65535 octets; the offset wraps like a TCP sequence number.
        self.offset = self.offset.wrapping_add(n as u32);
    }

    /// Moves to `phase`, skipping phases that are empty for this FPDU.
    fn enter(&mut self, mut phase: Phase) {
        if phase == Phase::Ulpdu && self.ulpdu_len == 0 {
            phase = Phase::Pad;
        }
        if phase == Phase::Pad && pad_len(self.ulpdu_len) == 0 {
            phase = Phase::Crc;
        }
        self.phase = phase;
        self.got = 0;
    }

    /// Checks a complete marker against the FPDU it refers to (§5.3).
    fn check_marker(&mut self) {
        let marker = Marker::from_wire(self.marker);
        let between_fpdus = self.phase == Phase::Header && self.got == 0;
        // Every marker is in a CRC span: a marker right before a header begins the FPDU that
        // follows it (FPDUPTR 0; `deliver` restarted the digest), any other is inside the
        // current FPDU (docs/decisions.md).
        self.digest.update(&self.marker);
        let expected = if between_fpdus {
            0
        } else {
            self.marker_offset.wrapping_sub(self.fpdu_offset)
        };
        if u32::from(marker.pointer()) != expected {
            self.marker_bad = true;
        }
    }

    /// Status of the FPDU whose CRC field just completed.
    fn verdict(&self) -> Status {
        let computed = self.digest.clone().finalize();
        if self.config.crc && computed != from_wire(self.crc_field) {
            Status::BadCrc
        } else if self.marker_bad {
            Status::BadMarker
        } else {
            Status::Good
        }
    }

    /// Ends the current FPDU: records the outcome and lends out its ULPDU.
    fn deliver(&mut self, status: Status) -> Delivery<'_> {
        let len = match status {
            Status::UlpduTooLong => 0,
            _ => self.ulpdu_len,
        };
        match status.error() {
            Some(error) => self.failed = Some(error),
            None => self.delivered += 1,
        }
        self.marker_bad = false;
        // The next CRC span starts right after this CRC: with any marker before the next header.
        self.digest = CRC_ENGINE.digest();
        self.enter(Phase::Header);
        Delivery {
            ulpdu: self.buffer.as_ref().get(..len).unwrap_or(&[]),
            status,
        }
    }
}

/// Copies as much of `src` as fits into `dst[from..]`; returns the count.
fn take_into(dst: &mut [u8], from: usize, src: &[u8]) -> usize {
    let dst = dst.get_mut(from..).unwrap_or(&mut []);
    let n = dst.len().min(src.len());
    dst[..n].copy_from_slice(&src[..n]);
    n
}

impl<B: AsRef<[u8]> + AsMut<[u8]>> fmt::Debug for Deframer<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Deframer")
            .field("config", &self.config)
            .field("offset", &self.offset)
            .field("phase", &self.phase)
            .field("got", &self.got)
            .field("ulpdu_len", &self.ulpdu_len)
            .field("fpdu_offset", &self.fpdu_offset)
            .field("marker_got", &self.marker_got)
            .field("marker_bad", &self.marker_bad)
            .field("failed", &self.failed)
            .field("delivered", &self.delivered)
            .finish()
    }
}
