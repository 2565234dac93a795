//! Wire captures: the LLP byte streams of the core written as a classic libpcap file of
//! Ethernet / IPv4 / TCP frames, so that Wireshark / tshark decode the iWARP stack on top (its
//! MPA dissector is heuristic on TCP: it recognises the MPA Request / Reply keys at the start of
//! the streams, then delineates the FPDUs with the negotiated markers and CRC).
//!
//! The core has no TCP (DESIGN.md "Block diagram"): its LLP port carries one in-order byte
//! stream per connection and direction. [`TcpConnection`] makes up a plausible TCP connection
//! around those streams (endpoints, ISNs, sequence and acknowledgement numbers, IP IDs) and
//! [`PcapWriter`] writes its frames:
//!
//! * [`PcapWriter::open`]: SYN, SYN-ACK, ACK (the SYNs carry the MSS option);
//! * [`PcapWriter::send`]: a run of bytes in one direction, cut into segments of at most the MSS
//!   (one segment when it fits, so a caller that wants its own segmentation calls `send` once
//!   per segment), PSH on the last, then a pure ACK back;
//! * [`PcapWriter::close`]: FIN, FIN, ACK.
//!
//! Checksums (IPv4 header, TCP with the pseudo-header) are correct, IP IDs count up per
//! sender, the window is fixed. Frames carry no Ethernet padding or FCS, as on a sending host.
//!
//! [`mpa::MpaCapture`] sits on top for raw LLP output (e.g. the hardware's TX stream cut into
//! arbitrary chunks): it finds the MPA Request / Reply and the FPDU boundaries (markers
//! included) and writes one PDU per TCP segment, which is what Wireshark's MPA dissector needs
//! when markers are on. [`tshark::tshark_check`] decodes a capture with tshark and summarises
//! every FPDU (CRC verdict, DDP / RDMAP opcode) and every malformed / expert item.
//!
//! Format: <https://wiki.wireshark.org/Development/LibpcapFileFormat> (magic `0xa1b2c3d4`,
//! version 2.4, microsecond timestamps, `LINKTYPE_ETHERNET` = 1), written little-endian.

pub mod mpa;
pub mod tshark;

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::net::Ipv4Addr;
use std::path::Path;

/// Magic number of a classic pcap file with microsecond timestamps.
pub const PCAP_MAGIC: u32 = 0xa1b2_c3d4;
/// `LINKTYPE_ETHERNET`: frames start with the Ethernet II header.
pub const LINKTYPE_ETHERNET: u32 = 1;
/// Snap length written in the file header; frames are never truncated.
pub const SNAPLEN: u32 = 262_144;
/// TCP maximum segment size used unless the connection says otherwise: a 1500-octet MTU minus
/// the IPv4 and TCP headers (no TCP options on data segments).
pub const DEFAULT_MSS: usize = 1460;
/// Receive window advertised by both ends (no window scaling).
pub const DEFAULT_WINDOW: u16 = 65_535;

const ETH_HEADER_LEN: usize = 14;
const ETHERTYPE_IPV4: u16 = 0x0800;
const IPV4_HEADER_LEN: usize = 20;
const IP_PROTO_TCP: u8 = 6;
const IP_TTL: u8 = 64;
const IP_FLAG_DF: u16 = 0x4000;
const TCP_HEADER_LEN: usize = 20;
/// Largest TCP payload of one frame: the 16-bit IPv4 Total Length minus both headers.
const MAX_TCP_PAYLOAD: usize = 65_535 - IPV4_HEADER_LEN - TCP_HEADER_LEN - 4;

/// TCP flag bits (low octet of the flags word).
pub mod tcp_flags {
    /// No more data from the sender.
    pub const FIN: u8 = 0x01;
    /// Synchronise sequence numbers.
    pub const SYN: u8 = 0x02;
    /// Reset the connection.
    pub const RST: u8 = 0x04;
    /// Push.
    pub const PSH: u8 = 0x08;
    /// The acknowledgement number is valid.
    pub const ACK: u8 = 0x10;
}

/// Which way bytes travel on a connection. The Initiator sends the MPA Request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Initiator (active side, MPA Request) to Responder.
    InitiatorToResponder,
    /// Responder (passive side, MPA Reply) to Initiator.
    ResponderToInitiator,
}

impl Direction {
    /// Both directions, Initiator to Responder first.
    pub const BOTH: [Direction; 2] = [
        Direction::InitiatorToResponder,
        Direction::ResponderToInitiator,
    ];

    /// The other direction.
    pub const fn reverse(self) -> Direction {
        match self {
            Direction::InitiatorToResponder => Direction::ResponderToInitiator,
            Direction::ResponderToInitiator => Direction::InitiatorToResponder,
        }
    }

    /// 0 for Initiator to Responder, 1 for the other way (an index into per-direction arrays).
    pub const fn index(self) -> usize {
        match self {
            Direction::InitiatorToResponder => 0,
            Direction::ResponderToInitiator => 1,
        }
    }
}

/// One end of a TCP connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Endpoint {
    /// Ethernet address.
    pub mac: [u8; 6],
    /// IPv4 address.
    pub ip: Ipv4Addr,
    /// TCP port.
    pub port: u16,
}

/// Where a [`TcpConnection`] stands; `send` is only legal while established.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TcpState {
    /// Nothing written yet.
    Closed,
    /// Handshake written; data may flow.
    Established,
    /// FINs written; nothing more may be sent.
    Finished,
}

/// The TCP connection a pair of LLP byte streams is dressed in: endpoints, initial sequence
/// numbers, the next sequence number each way, and the next IP ID of each sender.
///
/// Sequence numbers wrap modulo 2^32 like real ones; an ISN near the top exercises that.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TcpConnection {
    /// The active side: sends the SYN and the MPA Request.
    pub initiator: Endpoint,
    /// The passive side: sends the SYN-ACK and the MPA Reply.
    pub responder: Endpoint,
    /// Largest TCP payload of one segment (also announced in the SYN options).
    pub mss: usize,
    /// Window both sides advertise.
    pub window: u16,
    isn: [u32; 2],
    next_seq: [u32; 2],
    ip_id: [u16; 2],
    state: TcpState,
}

impl TcpConnection {
    /// A connection between two endpoints, with fixed, distinct ISNs and the default MSS and
    /// window.
    pub fn new(initiator: Endpoint, responder: Endpoint) -> TcpConnection {
        TcpConnection {
            initiator,
            responder,
            mss: DEFAULT_MSS,
            window: DEFAULT_WINDOW,
            isn: [0x1000_0000, 0x2000_0000],
            next_seq: [0x1000_0000, 0x2000_0000],
            ip_id: [0x0100, 0x0200],
            state: TcpState::Closed,
        }
    }

    /// The connection that stands for LLP connection index `conn` of a simulated core: the
    /// initiator is 10.0.0.1 (MAC 02:00:00:00:00:01), TCP port 49152 + `conn`; the responder is
    /// 10.0.0.2 (MAC 02:00:00:00:00:02), TCP port 20000 + `conn` (no well-known service sits on
    /// either range, so Wireshark leaves the payload to the MPA heuristic).
    pub fn simulated(conn: u16) -> TcpConnection {
        TcpConnection::new(
            Endpoint {
                mac: [0x02, 0, 0, 0, 0, 0x01],
                ip: Ipv4Addr::new(10, 0, 0, 1),
                port: 49152u16.wrapping_add(conn),
            },
            Endpoint {
                mac: [0x02, 0, 0, 0, 0, 0x02],
                ip: Ipv4Addr::new(10, 0, 0, 2),
                port: 20000u16.wrapping_add(conn),
            },
        )
    }

    /// Sets the initial sequence numbers (only before [`PcapWriter::open`]).
    pub fn with_isns(mut self, initiator: u32, responder: u32) -> TcpConnection {
        assert_eq!(
            self.state,
            TcpState::Closed,
            "ISNs are set before the handshake"
        );
        self.isn = [initiator, responder];
        self.next_seq = self.isn;
        self
    }

    /// Sets the MSS (1..=65495).
    pub fn with_mss(mut self, mss: usize) -> TcpConnection {
        assert!(
            (1..=MAX_TCP_PAYLOAD).contains(&mss),
            "MSS {mss} out of range"
        );
        self.mss = mss;
        self
    }

    /// The endpoint that sends in `dir`.
    pub fn sender(&self, dir: Direction) -> &Endpoint {
        match dir {
            Direction::InitiatorToResponder => &self.initiator,
            Direction::ResponderToInitiator => &self.responder,
        }
    }

    /// The endpoint that receives in `dir`.
    pub fn receiver(&self, dir: Direction) -> &Endpoint {
        self.sender(dir.reverse())
    }

    /// Initial sequence number of the sender in `dir`.
    pub fn isn(&self, dir: Direction) -> u32 {
        self.isn[dir.index()]
    }

    /// Sequence number of the next octet the sender in `dir` sends.
    pub fn next_seq(&self, dir: Direction) -> u32 {
        self.next_seq[dir.index()]
    }

    /// Payload octets sent so far in `dir` (modulo 2^32): the LLP stream offset of the next
    /// octet, counted from the first octet after the SYN.
    pub fn stream_offset(&self, dir: Direction) -> u32 {
        let syn = u32::from(self.state != TcpState::Closed);
        self.next_seq(dir)
            .wrapping_sub(self.isn(dir))
            .wrapping_sub(syn)
    }

    /// Where the connection stands.
    pub fn state(&self) -> TcpState {
        self.state
    }

    fn advance(&mut self, dir: Direction, by: u32) {
        let s = &mut self.next_seq[dir.index()];
        *s = s.wrapping_add(by);
    }

    fn take_ip_id(&mut self, dir: Direction) -> u16 {
        let id = &mut self.ip_id[dir.index()];
        let v = *id;
        *id = id.wrapping_add(1);
        v
    }
}

/// One TCP segment to put in a frame.
struct Segment<'a> {
    dir: Direction,
    seq: u32,
    ack: u32,
    flags: u8,
    options: &'a [u8],
    payload: &'a [u8],
}

/// Writes a classic libpcap file of Ethernet / IPv4 / TCP frames.
///
/// Frame numbers returned by the methods count from 1 like Wireshark's `frame.number`.
#[derive(Debug)]
pub struct PcapWriter<W: Write> {
    out: W,
    frames: u64,
    last_time_us: u64,
    frame: Vec<u8>,
}

impl PcapWriter<BufWriter<File>> {
    /// Creates (or truncates) the file at `path` and writes the file header.
    pub fn create(path: &Path) -> io::Result<PcapWriter<BufWriter<File>>> {
        PcapWriter::new(BufWriter::new(File::create(path)?))
    }
}

impl<W: Write> PcapWriter<W> {
    /// Writes the file header to `out`.
    pub fn new(mut out: W) -> io::Result<PcapWriter<W>> {
        let mut hdr = Vec::with_capacity(24);
        hdr.extend_from_slice(&PCAP_MAGIC.to_le_bytes());
        hdr.extend_from_slice(&2u16.to_le_bytes()); // version major
        hdr.extend_from_slice(&4u16.to_le_bytes()); // version minor
        hdr.extend_from_slice(&0i32.to_le_bytes()); // thiszone: UTC
        hdr.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        hdr.extend_from_slice(&SNAPLEN.to_le_bytes());
        hdr.extend_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        out.write_all(&hdr)?;
        Ok(PcapWriter {
            out,
            frames: 0,
            last_time_us: 0,
            frame: Vec::with_capacity(ETH_HEADER_LEN + IPV4_HEADER_LEN + TCP_HEADER_LEN + 1500),
        })
    }

    /// Frames written so far (the number of the last one).
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// Flushes and returns the underlying writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }

    /// Writes one record holding `frame` (an Ethernet frame) at `time_us` microseconds since
    /// the epoch. Timestamps never go backwards: an earlier time is raised to the last one.
    /// Returns the frame number.
    pub fn write_record(&mut self, time_us: u64, frame: &[u8]) -> io::Result<u64> {
        let t = time_us.max(self.last_time_us);
        self.last_time_us = t;
        let len = u32::try_from(frame.len())
            .ok()
            .filter(|&l| l <= SNAPLEN)
            .ok_or_else(|| invalid("frame longer than the snap length"))?;
        let secs = u32::try_from(t / 1_000_000)
            .map_err(|_| invalid("timestamp past the 32-bit seconds of classic pcap"))?;
        let mut rec = [0u8; 16];
        rec[0..4].copy_from_slice(&secs.to_le_bytes());
        rec[4..8].copy_from_slice(&((t % 1_000_000) as u32).to_le_bytes());
        rec[8..12].copy_from_slice(&len.to_le_bytes());
        rec[12..16].copy_from_slice(&len.to_le_bytes());
        self.out.write_all(&rec)?;
        self.out.write_all(frame)?;
        self.frames += 1;
        Ok(self.frames)
    }

    /// Writes the three-way handshake (SYN, SYN-ACK, ACK; the SYNs announce the MSS).
    pub fn open(&mut self, conn: &mut TcpConnection, time_us: u64) -> io::Result<()> {
        if conn.state != TcpState::Closed {
            return Err(invalid("handshake on a connection already opened"));
        }
        let mss = u16::try_from(conn.mss).unwrap_or(u16::MAX).to_be_bytes();
        let mss_option = [2, 4, mss[0], mss[1]];
        let (i2r, r2i) = (
            Direction::InitiatorToResponder,
            Direction::ResponderToInitiator,
        );
        self.segment(
            conn,
            time_us,
            Segment {
                dir: i2r,
                seq: conn.next_seq(i2r),
                ack: 0,
                flags: tcp_flags::SYN,
                options: &mss_option,
                payload: &[],
            },
        )?;
        conn.advance(i2r, 1);
        self.segment(
            conn,
            time_us,
            Segment {
                dir: r2i,
                seq: conn.next_seq(r2i),
                ack: conn.next_seq(i2r),
                flags: tcp_flags::SYN | tcp_flags::ACK,
                options: &mss_option,
                payload: &[],
            },
        )?;
        conn.advance(r2i, 1);
        self.ack(conn, i2r, time_us)?;
        conn.state = TcpState::Established;
        Ok(())
    }

    /// Sends `bytes` in `dir`: segments of at most `conn.mss` octets (a single segment when
    /// `bytes` fits), PSH on the last, a pure ACK back after every second segment and after the
    /// last. Returns the frame numbers of the data segments (none for empty `bytes`).
    pub fn send(
        &mut self,
        conn: &mut TcpConnection,
        dir: Direction,
        bytes: &[u8],
        time_us: u64,
    ) -> io::Result<Vec<u64>> {
        if conn.state != TcpState::Established {
            return Err(invalid("send on a connection that is not established"));
        }
        let n = bytes.len().div_ceil(conn.mss);
        let mut data_frames = Vec::with_capacity(n);
        for (i, chunk) in bytes.chunks(conn.mss).enumerate() {
            let last = i + 1 == n;
            let flags = tcp_flags::ACK | if last { tcp_flags::PSH } else { 0 };
            let frame = self.segment(
                conn,
                time_us,
                Segment {
                    dir,
                    seq: conn.next_seq(dir),
                    ack: conn.next_seq(dir.reverse()),
                    flags,
                    options: &[],
                    payload: chunk,
                },
            )?;
            data_frames.push(frame);
            conn.advance(dir, chunk.len() as u32);
            if last || i % 2 == 1 {
                self.ack(conn, dir.reverse(), time_us)?;
            }
        }
        Ok(data_frames)
    }

    /// Sends each of `segments` as one [`send`](PcapWriter::send) (so one TCP segment each when
    /// it fits the MSS). Returns the frame number of each segment's first data frame.
    pub fn send_segments<'s>(
        &mut self,
        conn: &mut TcpConnection,
        dir: Direction,
        segments: impl IntoIterator<Item = &'s [u8]>,
        time_us: u64,
    ) -> io::Result<Vec<u64>> {
        segments
            .into_iter()
            .map(|s| {
                let frames = self.send(conn, dir, s, time_us)?;
                frames
                    .first()
                    .copied()
                    .ok_or_else(|| invalid("empty segment"))
            })
            .collect()
    }

    /// Closes the connection: FIN from the side sending in `first`, FIN from the other side
    /// (acknowledging the first), and the last ACK.
    pub fn close(
        &mut self,
        conn: &mut TcpConnection,
        first: Direction,
        time_us: u64,
    ) -> io::Result<()> {
        if conn.state != TcpState::Established {
            return Err(invalid("close on a connection that is not established"));
        }
        for dir in [first, first.reverse()] {
            self.segment(
                conn,
                time_us,
                Segment {
                    dir,
                    seq: conn.next_seq(dir),
                    ack: conn.next_seq(dir.reverse()),
                    flags: tcp_flags::FIN | tcp_flags::ACK,
                    options: &[],
                    payload: &[],
                },
            )?;
            conn.advance(dir, 1);
        }
        self.ack(conn, first, time_us)?;
        conn.state = TcpState::Finished;
        Ok(())
    }

    /// A pure ACK from the sender in `dir` of everything the other side sent.
    fn ack(&mut self, conn: &mut TcpConnection, dir: Direction, time_us: u64) -> io::Result<u64> {
        self.segment(
            conn,
            time_us,
            Segment {
                dir,
                seq: conn.next_seq(dir),
                ack: conn.next_seq(dir.reverse()),
                flags: tcp_flags::ACK,
                options: &[],
                payload: &[],
            },
        )
    }

    /// Builds the Ethernet / IPv4 / TCP frame of `seg` and writes it.
    fn segment(
        &mut self,
        conn: &mut TcpConnection,
        time_us: u64,
        seg: Segment<'_>,
    ) -> io::Result<u64> {
        assert!(seg.options.len().is_multiple_of(4) && seg.options.len() <= 40);
        if seg.payload.len() > MAX_TCP_PAYLOAD {
            return Err(invalid("TCP payload larger than an IPv4 packet holds"));
        }
        let ip_id = conn.take_ip_id(seg.dir);
        let (src, dst) = (*conn.sender(seg.dir), *conn.receiver(seg.dir));
        let tcp_len = TCP_HEADER_LEN + seg.options.len() + seg.payload.len();
        let ip_len = IPV4_HEADER_LEN + tcp_len;

        let f = &mut self.frame;
        f.clear();
        // Ethernet II.
        f.extend_from_slice(&dst.mac);
        f.extend_from_slice(&src.mac);
        f.extend_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
        // IPv4, no options.
        let ip_start = f.len();
        f.push(0x45);
        f.push(0);
        f.extend_from_slice(&(ip_len as u16).to_be_bytes());
        f.extend_from_slice(&ip_id.to_be_bytes());
        f.extend_from_slice(&IP_FLAG_DF.to_be_bytes());
        f.push(IP_TTL);
        f.push(IP_PROTO_TCP);
        f.extend_from_slice(&[0, 0]);
        f.extend_from_slice(&src.ip.octets());
        f.extend_from_slice(&dst.ip.octets());
        let ip_sum = internet_checksum(&f[ip_start..ip_start + IPV4_HEADER_LEN], 0);
        f[ip_start + 10..ip_start + 12].copy_from_slice(&ip_sum.to_be_bytes());
        // TCP.
        let tcp_start = f.len();
        f.extend_from_slice(&src.port.to_be_bytes());
        f.extend_from_slice(&dst.port.to_be_bytes());
        f.extend_from_slice(&seg.seq.to_be_bytes());
        f.extend_from_slice(&seg.ack.to_be_bytes());
        let data_offset = ((TCP_HEADER_LEN + seg.options.len()) / 4) as u8;
        f.push(data_offset << 4);
        f.push(seg.flags);
        f.extend_from_slice(&conn.window.to_be_bytes());
        f.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
        f.extend_from_slice(seg.options);
        f.extend_from_slice(seg.payload);
        let mut pseudo = [0u8; 12];
        pseudo[0..4].copy_from_slice(&src.ip.octets());
        pseudo[4..8].copy_from_slice(&dst.ip.octets());
        pseudo[9] = IP_PROTO_TCP;
        pseudo[10..12].copy_from_slice(&(tcp_len as u16).to_be_bytes());
        let tcp_sum = internet_checksum(&f[tcp_start..], ones_complement_sum(&pseudo, 0));
        f[tcp_start + 16..tcp_start + 18].copy_from_slice(&tcp_sum.to_be_bytes());

        let frame = std::mem::take(&mut self.frame);
        let n = self.write_record(time_us, &frame);
        self.frame = frame;
        n
    }
}

/// The 16-bit ones' complement sum of `data` (big-endian words, an odd last octet padded with
/// zero) added to `initial`, folded.
fn ones_complement_sum(data: &[u8], initial: u32) -> u32 {
    let mut sum = u64::from(initial);
    let mut words = data.chunks_exact(2);
    for w in &mut words {
        sum += u64::from(u16::from_be_bytes([w[0], w[1]]));
    }
    if let [last] = words.remainder() {
        sum += u64::from(*last) << 8;
    }
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    sum as u32
}

/// The Internet checksum (RFC 1071) of `data`, with `initial` (a folded partial sum, e.g. of a
/// pseudo-header) added in.
pub fn internet_checksum(data: &[u8], initial: u32) -> u16 {
    !(ones_complement_sum(data, initial) as u16)
}

fn invalid(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_rfc1071_example() {
        // RFC 1071 §3: 00 01 f2 03 f4 f5 f6 f7 sums to 0xddf2 (checksum 0x220d).
        let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(ones_complement_sum(&data, 0), 0xddf2);
        assert_eq!(internet_checksum(&data, 0), 0x220d);
    }

    #[test]
    fn file_header_and_handshake_layout() {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        let mut c = TcpConnection::simulated(0).with_isns(0xFFFF_FFFF, 7);
        w.open(&mut c, 1_500_000).unwrap();
        let frames = w.send(
            &mut c,
            Direction::InitiatorToResponder,
            &[1, 2, 3],
            2_000_000,
        );
        assert_eq!(frames.unwrap(), vec![4]);
        let out = w.into_inner().unwrap();
        assert_eq!(&out[0..4], &[0xd4, 0xc3, 0xb2, 0xa1]);
        assert_eq!(u32::from_le_bytes(out[20..24].try_into().unwrap()), 1);
        // First record: SYN at 1.5 s, 14 + 20 + 24 octets.
        let rec = &out[24..];
        assert_eq!(u32::from_le_bytes(rec[0..4].try_into().unwrap()), 1);
        assert_eq!(u32::from_le_bytes(rec[4..8].try_into().unwrap()), 500_000);
        assert_eq!(u32::from_le_bytes(rec[8..12].try_into().unwrap()), 58);
        let frame = &rec[16..16 + 58];
        let ip = &frame[14..34];
        assert_eq!(internet_checksum(ip, 0), 0, "IPv4 header checksum verifies");
        let tcp = &frame[34..];
        assert_eq!(&tcp[4..8], &0xFFFF_FFFFu32.to_be_bytes());
        assert_eq!(tcp[13], tcp_flags::SYN);
        // The data segment's sequence number wrapped past 2^32 (ISN + 1 = 0).
        assert_eq!(c.stream_offset(Direction::InitiatorToResponder), 3);
        assert_eq!(c.next_seq(Direction::InitiatorToResponder), 3);
    }
}
