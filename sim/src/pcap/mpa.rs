//! MPA-aware capture of raw LLP streams: the MPA Request / Reply and then every FPDU (its
//! markers included) go out as one TCP segment each.
//!
//! Wireshark's MPA dissector (4.0) reassembles FPDUs across TCP segments only when markers are
//! off. With markers it places them from the sequence number of the segment and assumes exactly
//! one FPDU per segment, starting with the FPDU (or the marker before it). RFC 5044 recommends
//! that alignment to senders anyway (`mpa-peer-connect.md` §5.1), so that is what
//! [`MpaCapture`] writes, whatever chunks the LLP output arrives in.
//!
//! Markers in a direction follow the M bit of the frame the *receiver* sent (RFC 5044 §7.1,
//! `mpa-peer-connect.md` §3.2): Initiator-to-Responder FPDUs carry markers iff the Reply has
//! M = 1, Responder-to-Initiator FPDUs iff the Request has. The grid starts at the first octet
//! after the frame (§5.3).

use super::{Direction, PcapWriter, TcpConnection, TcpState};
use rnic_proto::mpa::{fpdu_wire_len, Frame, FrameKind, MARKER_INTERVAL, MARKER_LEN};
use std::io::{self, Write};

/// Octets of an MPA Request / Reply header (key, flags, Rev, PD_Length).
const FRAME_HEADER_LEN: usize = rnic_proto::mpa::frame::HEADER_LEN;

/// What the splitter found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pdu {
    /// An MPA Request or Reply, header and private data.
    Frame {
        /// Request or Reply.
        kind: FrameKind,
        /// M: the sender of this frame wants markers on what it receives.
        markers: bool,
        /// R: the Reply rejects the connection.
        reject: bool,
        /// The frame's octets.
        bytes: Vec<u8>,
    },
    /// One FPDU with any markers inside it or right before its header.
    Fpdu(Vec<u8>),
    /// Octets that are neither (a stream that does not start with an MPA key, or follows a
    /// rejecting Reply), or the unfinished tail handed out by [`MpaSplitter::finish`].
    Raw(Vec<u8>),
}

impl Pdu {
    /// The octets.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Pdu::Frame { bytes, .. } | Pdu::Fpdu(bytes) | Pdu::Raw(bytes) => bytes,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for the MPA Request / Reply.
    Startup,
    /// FPDU mode, `offset` octets into it.
    Fpdu { offset: u32 },
    /// Not MPA (any more): octets pass through as they come.
    Raw,
}

/// Cuts one direction's LLP byte stream into MPA frames and FPDUs.
#[derive(Debug, Clone)]
pub struct MpaSplitter {
    phase: Phase,
    /// Whether this direction's FPDUs carry markers; `None` until the peer's frame says.
    markers: Option<bool>,
    buf: Vec<u8>,
}

impl Default for MpaSplitter {
    fn default() -> Self {
        Self::new()
    }
}

impl MpaSplitter {
    /// A splitter at the start of a stream (expecting an MPA Request or Reply).
    pub fn new() -> MpaSplitter {
        MpaSplitter {
            phase: Phase::Startup,
            markers: None,
            buf: Vec::new(),
        }
    }

    /// A splitter already in FPDU mode at stream offset 0 (no frame before the FPDUs).
    pub fn fpdu_mode(markers: bool) -> MpaSplitter {
        MpaSplitter {
            phase: Phase::Fpdu { offset: 0 },
            markers: Some(markers),
            buf: Vec::new(),
        }
    }

    /// Says whether this direction's FPDUs carry markers (learnt from the peer's frame); only
    /// the first call counts. FPDUs wait for it.
    pub fn set_markers(&mut self, on: bool) {
        self.markers.get_or_insert(on);
    }

    /// Octets received but not yet handed out.
    pub fn pending(&self) -> usize {
        self.buf.len()
    }

    /// Appends `bytes` and returns every PDU now complete, in stream order.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Pdu> {
        self.buf.extend_from_slice(bytes);
        self.drain()
    }

    /// Returns every PDU complete in the buffered octets (after [`set_markers`](Self::set_markers)
    /// may have unblocked some).
    pub fn drain(&mut self) -> Vec<Pdu> {
        let mut out = Vec::new();
        while let Some(pdu) = self.next_pdu() {
            out.push(pdu);
        }
        out
    }

    /// Hands out the unfinished tail, if any, as [`Pdu::Raw`].
    pub fn finish(&mut self) -> Option<Pdu> {
        (!self.buf.is_empty()).then(|| Pdu::Raw(std::mem::take(&mut self.buf)))
    }

    fn take(&mut self, n: usize) -> Vec<u8> {
        let rest = self.buf.split_off(n);
        std::mem::replace(&mut self.buf, rest)
    }

    fn next_pdu(&mut self) -> Option<Pdu> {
        if self.buf.is_empty() {
            return None;
        }
        match self.phase {
            Phase::Raw => Some(Pdu::Raw(std::mem::take(&mut self.buf))),
            Phase::Startup => {
                let key = self.buf.get(..rnic_proto::mpa::frame::KEY_LEN);
                let kind = match key {
                    // Not enough octets yet to tell; a stream that can no longer start with a
                    // key is not MPA.
                    None if FrameKind::Request.key().starts_with(&self.buf)
                        || FrameKind::Reply.key().starts_with(&self.buf) =>
                    {
                        return None
                    }
                    None => None,
                    Some(k) => FrameKind::from_key(k),
                };
                let Some(kind) = kind else {
                    self.phase = Phase::Raw;
                    return self.next_pdu();
                };
                if self.buf.len() < FRAME_HEADER_LEN {
                    return None;
                }
                let view = Frame::new_unchecked(&self.buf[..]);
                let (len, markers, reject) = (view.frame_len(), view.markers(), view.reject());
                if self.buf.len() < len {
                    return None;
                }
                let bytes = self.take(len);
                self.phase = if reject {
                    Phase::Raw
                } else {
                    Phase::Fpdu { offset: 0 }
                };
                Some(Pdu::Frame {
                    kind,
                    markers,
                    reject,
                    bytes,
                })
            }
            Phase::Fpdu { offset } => {
                let markers = self.markers?;
                let header = if markers && offset.is_multiple_of(MARKER_INTERVAL) {
                    MARKER_LEN
                } else {
                    0
                };
                let len = self.buf.get(header..header + 2)?;
                let ulpdu_len = u16::from_be_bytes([len[0], len[1]]);
                let total = fpdu_wire_len(ulpdu_len, markers, offset);
                if self.buf.len() < total {
                    return None;
                }
                self.phase = Phase::Fpdu {
                    offset: offset.wrapping_add(total as u32),
                };
                Some(Pdu::Fpdu(self.take(total)))
            }
        }
    }
}

/// One TCP connection's LLP streams written to a capture one MPA PDU per segment.
///
/// Feed it the octets each side puts on its LLP TX stream, in any chunks and in the order they
/// would cross the wire; it opens the TCP connection on the first octets, learns the marker
/// setting of each direction from the Request / Reply, and writes each frame and FPDU with
/// [`PcapWriter::send`] (so a PDU longer than the MSS is still cut at the MSS).
#[derive(Debug, Clone)]
pub struct MpaCapture {
    /// The TCP connection the streams travel on.
    pub conn: TcpConnection,
    split: [MpaSplitter; 2],
    fpdus: [usize; 2],
}

impl MpaCapture {
    /// A capture of `conn`, both streams starting with their MPA frame.
    pub fn new(conn: TcpConnection) -> MpaCapture {
        MpaCapture {
            conn,
            split: [MpaSplitter::new(), MpaSplitter::new()],
            fpdus: [0, 0],
        }
    }

    /// FPDUs written so far in `dir`.
    pub fn fpdus(&self, dir: Direction) -> usize {
        self.fpdus[dir.index()]
    }

    /// Octets of `dir` buffered because they do not yet make a whole PDU.
    pub fn pending(&self, dir: Direction) -> usize {
        self.split[dir.index()].pending()
    }

    /// Adds `bytes` sent in `dir` at `time_us` and writes every PDU they complete (and any of the
    /// other direction that the marker setting learnt here unblocks). Returns the frame number
    /// of the first data segment of each PDU written.
    pub fn push<W: Write>(
        &mut self,
        w: &mut PcapWriter<W>,
        dir: Direction,
        bytes: &[u8],
        time_us: u64,
    ) -> io::Result<Vec<u64>> {
        if self.conn.state() == TcpState::Closed {
            w.open(&mut self.conn, time_us)?;
        }
        let mut frames = Vec::new();
        let pdus = self.split[dir.index()].push(bytes);
        self.write(w, dir, pdus, time_us, &mut frames)?;
        Ok(frames)
    }

    /// Writes what is left (an unfinished PDU goes out as it is) and closes the connection, the
    /// Initiator's FIN first. Nothing is written for a connection that never carried an octet.
    pub fn finish<W: Write>(&mut self, w: &mut PcapWriter<W>, time_us: u64) -> io::Result<()> {
        if self.conn.state() != TcpState::Established {
            return Ok(());
        }
        let mut frames = Vec::new();
        for dir in Direction::BOTH {
            // Markers never learnt (no peer frame): write the FPDUs as if markers were off.
            self.split[dir.index()].set_markers(false);
            let mut pdus = self.split[dir.index()].drain();
            pdus.extend(self.split[dir.index()].finish());
            self.write(w, dir, pdus, time_us, &mut frames)?;
        }
        w.close(&mut self.conn, Direction::InitiatorToResponder, time_us)
    }

    fn write<W: Write>(
        &mut self,
        w: &mut PcapWriter<W>,
        dir: Direction,
        pdus: Vec<Pdu>,
        time_us: u64,
        frames: &mut Vec<u64>,
    ) -> io::Result<()> {
        for pdu in pdus {
            let sent = w.send(&mut self.conn, dir, pdu.bytes(), time_us)?;
            frames.extend(sent.first());
            match pdu {
                Pdu::Fpdu(_) => self.fpdus[dir.index()] += 1,
                Pdu::Frame {
                    markers, reject, ..
                } => {
                    // The peer's direction now knows its marker setting; FPDUs it buffered
                    // waiting for this frame can go out.
                    let other = dir.reverse();
                    self.split[other.index()].set_markers(markers);
                    let unblocked = self.split[other.index()].drain();
                    if reject {
                        // Nothing after a rejecting Reply is FPDUs.
                        self.split[other.index()].phase = Phase::Raw;
                    }
                    self.write(w, other, unblocked, time_us, frames)?;
                }
                Pdu::Raw(_) => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rnic_proto::mpa::{FrameRepr, Framer};

    fn frame(kind: FrameKind, markers: bool) -> Vec<u8> {
        let repr = FrameRepr {
            kind,
            markers,
            crc: true,
            reject: false,
            revision: 1,
            enhanced: None,
            private_data: b"pd",
        };
        let mut buf = vec![0; repr.buffer_len()];
        repr.emit(&mut Frame::new_unchecked(&mut buf[..])).unwrap();
        buf
    }

    #[test]
    fn splits_frame_and_fpdus_cut_anywhere() {
        for markers in [false, true] {
            let mut stream = frame(FrameKind::Request, false);
            let mut framer = Framer::new(markers, true);
            let mut expected = Vec::new();
            for len in [14usize, 600, 1000, 3, 510, 1200] {
                let ulpdu: Vec<u8> = (0..len).map(|i| i as u8).collect();
                let mut out = vec![0; framer.wire_len(len as u16)];
                let n = framer.write_fpdu(&ulpdu, &mut out).unwrap();
                expected.push(out[..n].to_vec());
                stream.extend_from_slice(&out[..n]);
            }
            let mut s = MpaSplitter::new();
            let mut got = Vec::new();
            for chunk in stream.chunks(7) {
                got.extend(s.push(chunk));
                if matches!(got.first(), Some(Pdu::Frame { .. })) {
                    s.set_markers(markers);
                }
            }
            assert!(matches!(
                &got[0],
                Pdu::Frame {
                    kind: FrameKind::Request,
                    ..
                }
            ));
            let fpdus: Vec<Vec<u8>> = got[1..].iter().map(|p| p.bytes().to_vec()).collect();
            assert_eq!(fpdus, expected, "markers {markers}");
            assert_eq!(s.pending(), 0);
        }
    }

    #[test]
    fn non_mpa_stream_passes_through() {
        let mut s = MpaSplitter::new();
        assert_eq!(s.push(b"MPA"), vec![]);
        assert_eq!(s.push(b" nope"), vec![Pdu::Raw(b"MPA nope".to_vec())]);
    }
}
