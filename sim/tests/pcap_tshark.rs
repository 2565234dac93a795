//! The pcap writer checked by an independent decoder: an MPA session built with `rnic-proto`
//! (Request / Reply, then FPDUs carrying real DDP / RDMAP messages both ways) is written with
//! `rnic_sim::pcap` and decoded by tshark, which must see every FPDU with a good CRC, the
//! opcodes that were sent, and nothing malformed.

use rnic_proto::crc32c::crc32c;
use rnic_proto::ddp;
use rnic_proto::mpa::{
    fpdu_len, mulpdu, EnhancedData, Frame, FrameKind, FrameRepr, Framer, RtrOptions,
    MARKER_INTERVAL, MARKER_LEN,
};
use rnic_proto::rdmap::{
    Body, DdpFields, Message, Opcode, ReadRequestRepr, RemoteOperationCode, TerminateCode,
    TerminateRepr,
};
use rnic_sim::pcap::mpa::MpaCapture;
use rnic_sim::pcap::tshark::{tshark_check, CrcVerdict, TsharkSummary};
use rnic_sim::pcap::{Direction, PcapWriter, TcpConnection};
use rnic_sim::tb::mpa_tx::{ConnConfig, MpaTxTb, Step, TrafficOptions};
use rnic_sim::testbench::BackendKind;
use std::path::PathBuf;

const I2R: Direction = Direction::InitiatorToResponder;
const R2I: Direction = Direction::ResponderToInitiator;

fn capture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// One FPDU as written.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Sent {
    dir: Direction,
    opcode: Opcode,
    tagged: bool,
    last: bool,
    ulpdu_len: u16,
    /// Starts with a marker (FPDUPTR 0) before its header.
    leading_marker: bool,
    /// Markers in the wire octets, the leading one included.
    markers: usize,
    /// The wire octets: markers, ULPDU_Length, ULPDU, PAD, CRC.
    bytes: Vec<u8>,
    /// The ULPDU (DDP segment) it carries.
    ulpdu: Vec<u8>,
}

/// What a session wrote to its capture.
struct Written {
    /// The LLP stream of each direction (frame, then FPDUs), for re-capturing.
    streams: [Vec<u8>; 2],
    /// Each direction's LLP octets in the order they were sent: (direction, PDU).
    pdus: Vec<(Direction, Vec<u8>)>,
    fpdus: Vec<Sent>,
}

/// Builds an MPA session: both frames, then FPDUs both ways, each one TCP segment.
struct Session {
    markers: bool,
    framers: [Framer; 2],
    written: Written,
    msn: [[u32; 3]; 2],
}

impl Session {
    fn new(markers: bool) -> Session {
        Session {
            markers,
            framers: [Framer::new(markers, true), Framer::new(markers, true)],
            written: Written {
                streams: [Vec::new(), Vec::new()],
                pdus: Vec::new(),
                fpdus: Vec::new(),
            },
            msn: [[ddp::MSN_INITIAL; 3]; 2],
        }
    }

    fn raw(&mut self, dir: Direction, bytes: Vec<u8>) {
        self.written.streams[dir.index()].extend_from_slice(&bytes);
        self.written.pdus.push((dir, bytes));
    }

    /// MPA Request (Initiator) or Reply (Responder): rev 2, enhanced IRD/ORD, peer-to-peer with
    /// the zero-length RDMA Write RTR, CRC on, M as configured, some ULP private data.
    fn frame(&mut self, dir: Direction) {
        let kind = match dir {
            I2R => FrameKind::Request,
            R2I => FrameKind::Reply,
        };
        let repr = FrameRepr {
            kind,
            markers: self.markers,
            crc: true,
            reject: false,
            revision: 2,
            enhanced: Some(EnhancedData {
                ird: 16,
                ord: 8,
                peer_to_peer: Some(RtrOptions {
                    zero_length_fpdu: false,
                    zero_length_write: true,
                    zero_length_read: kind == FrameKind::Request,
                }),
            }),
            private_data: b"rnic pcap test",
        };
        let mut buf = vec![0; repr.buffer_len()];
        repr.emit(&mut Frame::new_unchecked(&mut buf[..])).unwrap();
        self.raw(dir, buf);
    }

    /// One DDP segment framed as one FPDU.
    fn fpdu(&mut self, dir: Direction, msg: &Message<'_>) {
        let mut ulpdu = vec![0; msg.buffer_len()];
        msg.emit(&mut ddp::Packet::new_unchecked(&mut ulpdu[..]))
            .unwrap();
        let framer = &mut self.framers[dir.index()];
        let ulpdu_len = ulpdu.len() as u16;
        let leading_marker = framer.markers && framer.stream_offset.is_multiple_of(MARKER_INTERVAL);
        let mut out = vec![0; framer.wire_len(ulpdu_len)];
        let n = framer.write_fpdu(&ulpdu, &mut out).unwrap();
        assert_eq!(n, out.len());
        self.written.fpdus.push(Sent {
            dir,
            opcode: msg.opcode(),
            tagged: matches!(msg.ddp, DdpFields::Tagged { .. }),
            last: msg.last,
            ulpdu_len,
            leading_marker,
            markers: (out.len() - fpdu_len(ulpdu_len)) / MARKER_LEN,
            bytes: out.clone(),
            ulpdu: ulpdu.clone(),
        });
        self.raw(dir, out);
    }

    /// Largest DDP payload of one FPDU that still fits one TCP segment of the default MSS.
    fn max_payload(&self, header: usize) -> usize {
        usize::from(mulpdu(rnic_sim::pcap::DEFAULT_MSS as u16, self.markers)) - header
    }

    /// A tagged message (RDMA Write or Read Response) cut into as many FPDUs as it needs.
    fn tagged(&mut self, dir: Direction, opcode: Opcode, stag: u32, to: u64, payload: &[u8]) {
        let max = self.max_payload(ddp::TAGGED_HEADER_LEN);
        let mut chunks: Vec<&[u8]> = payload.chunks(max).collect();
        if chunks.is_empty() {
            chunks.push(&[]);
        }
        let n = chunks.len();
        let mut off = 0u64;
        for (i, chunk) in chunks.into_iter().enumerate() {
            let body = match opcode {
                Opcode::RdmaWrite => Body::RdmaWrite { payload: chunk },
                Opcode::RdmaReadResponse => Body::RdmaReadResponse { payload: chunk },
                _ => unreachable!("not a tagged opcode"),
            };
            let msg = Message {
                last: i + 1 == n,
                ddp: DdpFields::Tagged { stag, to: to + off },
                body,
            };
            self.fpdu(dir, &msg);
            off += chunk.len() as u64;
        }
    }

    fn next_msn(&mut self, dir: Direction, qn: u32) -> u32 {
        let m = &mut self.msn[dir.index()][qn as usize];
        let v = *m;
        *m += 1;
        v
    }

    /// A Send cut into as many FPDUs as it needs (MO advancing, L on the last).
    fn send(&mut self, dir: Direction, payload: &[u8]) {
        let msn = self.next_msn(dir, ddp::QN_SEND);
        let max = self.max_payload(ddp::UNTAGGED_HEADER_LEN);
        let chunks: Vec<&[u8]> = payload.chunks(max).collect();
        let n = chunks.len();
        let mut mo = 0u32;
        for (i, chunk) in chunks.into_iter().enumerate() {
            let msg = Message {
                last: i + 1 == n,
                ddp: DdpFields::Untagged { msn, mo },
                body: Body::Send { payload: chunk },
            };
            self.fpdu(dir, &msg);
            mo += chunk.len() as u32;
        }
    }

    fn read_request(&mut self, dir: Direction, rr: ReadRequestRepr) {
        let msn = self.next_msn(dir, ddp::QN_READ_REQUEST);
        let msg = Message {
            last: true,
            ddp: DdpFields::Untagged { msn, mo: 0 },
            body: Body::RdmaReadRequest(rr),
        };
        self.fpdu(dir, &msg);
    }

    fn terminate(&mut self, dir: Direction, t: TerminateRepr) {
        let msn = self.next_msn(dir, ddp::QN_TERMINATE);
        let msg = Message {
            last: true,
            ddp: DdpFields::Untagged { msn, mo: 0 },
            body: Body::Terminate(t),
        };
        self.fpdu(dir, &msg);
    }
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

/// The traffic of every capture: frames, RTR, Writes of several sizes (one over several FPDUs),
/// Sends, a Read Request and its Response over several FPDUs, and a Terminate, both ways.
fn session(markers: bool) -> Written {
    let mut s = Session::new(markers);
    s.frame(I2R);
    s.frame(R2I);
    // Peer-to-peer RTR: zero-length RDMA Write (never STag 0 on the wire).
    s.tagged(I2R, Opcode::RdmaWrite, 0x0000_0142, 0, &[]);
    for (i, len) in [468usize, 1, 2, 3, 4, 100, 509, 1000, 1436, 5000]
        .into_iter()
        .enumerate()
    {
        let dir = if i % 3 == 2 { R2I } else { I2R };
        s.tagged(
            dir,
            Opcode::RdmaWrite,
            0x0001_2300 | i as u32,
            0x1000 * i as u64,
            &pattern(len, i as u8),
        );
    }
    s.send(I2R, &pattern(200, 7));
    s.send(R2I, &pattern(3000, 9));
    s.send(R2I, &pattern(17, 3));
    let rr = ReadRequestRepr {
        sink_stag: 0x0000_5501,
        sink_to: 0x2000,
        read_size: 2500,
        src_stag: 0x0000_6602,
        src_to: 0x10_0000,
    };
    s.read_request(I2R, rr);
    s.tagged(
        R2I,
        Opcode::RdmaReadResponse,
        rr.sink_stag,
        rr.sink_to,
        &pattern(rr.read_size as usize, 5),
    );
    s.send(I2R, &pattern(64, 1));
    s.terminate(
        R2I,
        TerminateRepr::new(TerminateCode::RdmapRemoteOperation(
            RemoteOperationCode::Unspecified,
        )),
    );
    s.written
}

/// Writes `w` as one PDU per segment on a connection whose sequence numbers wrap.
fn write_capture(name: &str, w: &Written, corrupt: Option<(usize, usize)>) -> PathBuf {
    let path = capture_path(name);
    let mut pcap = PcapWriter::create(&path).unwrap();
    let mut conn = TcpConnection::simulated(0).with_isns(0xFFFF_F800, 0x7000_0000);
    let mut t = 1_700_000_000_000_000u64;
    pcap.open(&mut conn, t).unwrap();
    let mut fpdu_index = 0;
    for (dir, bytes) in &w.pdus {
        t += 10;
        let mut bytes = bytes.clone();
        let is_fpdu = !bytes.starts_with(b"MPA ID R");
        if is_fpdu {
            if let Some((which, at)) = corrupt {
                if which == fpdu_index {
                    bytes[at] ^= 0x01;
                }
            }
            fpdu_index += 1;
        }
        pcap.send(&mut conn, *dir, &bytes, t).unwrap();
    }
    pcap.close(&mut conn, I2R, t + 100).unwrap();
    pcap.flush().unwrap();
    path
}

fn check_tshark(path: &std::path::Path) -> TsharkSummary {
    match tshark_check(path) {
        Ok(s) => s,
        Err(e) => panic!("tshark on {}: {e:#}", path.display()),
    }
}

/// What every capture of [`session`] must decode to, whatever its segmentation: both MPA frames
/// as sent, then each direction's FPDUs in order with the DDP / RDMAP header sent, no malformed
/// packet, no expert warning or error, no bad checksum. Returns, per FPDU of the summary, the
/// FPDU written (matched per direction, in order).
fn assert_decodes_as_sent<'w>(s: &TsharkSummary, w: &'w Written, markers: bool) -> Vec<&'w Sent> {
    assert!(s.malformed.is_empty(), "malformed: {:?}", s.malformed);
    let bad: Vec<_> = s.unexpected_expert().collect();
    assert!(bad.is_empty(), "expert warnings/errors: {bad:#?}");
    assert!(
        s.bad_checksums.is_empty(),
        "bad checksums: {:?}",
        s.bad_checksums
    );

    assert_eq!(s.mpa_frames.len(), 2, "{:#?}", s.mpa_frames);
    for (f, request) in s.mpa_frames.iter().zip([true, false]) {
        assert_eq!(f.request, request);
        assert_eq!(
            (f.revision, f.crc, f.markers, f.reject),
            (2, true, markers, false)
        );
    }

    assert_eq!(
        s.fpdus.len(),
        w.fpdus.len(),
        "tshark saw {} FPDUs, {} were written",
        s.fpdus.len(),
        w.fpdus.len()
    );
    let mut matched = Vec::new();
    for dir in Direction::BOTH {
        let sent: Vec<&Sent> = w.fpdus.iter().filter(|f| f.dir == dir).collect();
        let seen: Vec<_> = s.fpdus_in(dir).collect();
        assert_eq!(seen.len(), sent.len(), "{dir:?}");
        for (got, want) in seen.iter().zip(&sent) {
            let at = format!("frame {} ({dir:?})", got.frame);
            assert_eq!(got.ulpdu_len, want.ulpdu_len, "{at}");
            assert_eq!(got.opcode, Some(want.opcode.value()), "{at}");
            assert_eq!(got.tagged, Some(want.tagged), "{at}");
            assert_eq!(got.last, Some(want.last), "{at}");
            let name = match want.opcode {
                Opcode::RdmaWrite => "Write",
                Opcode::RdmaReadRequest => "Read Request",
                Opcode::RdmaReadResponse => "Read Response",
                Opcode::Send => "Send",
                Opcode::Terminate => "Terminate",
                other => panic!("{other:?} not in the session"),
            };
            assert_eq!(got.opcode_name.as_deref(), Some(name), "{at}");
            assert_eq!(got.markers, want.markers, "{at}: markers");
            assert_eq!(got.leading_marker, want.leading_marker, "{at}");
        }
    }
    // In summary order, for the caller.
    let mut next = [0usize; 2];
    for f in &s.fpdus {
        let dir = f.direction.expect("direction known");
        let sent = w
            .fpdus
            .iter()
            .filter(|x| x.dir == dir)
            .nth(next[dir.index()])
            .unwrap();
        next[dir.index()] += 1;
        matched.push(sent);
    }
    matched
}

/// Every FPDU "Good CRC32". The CRC sent covers every octet written before it, markers
/// included, the one before the header too (docs/decisions.md "Marker CRC coverage"), which is
/// the span Wireshark checks.
fn assert_crcs(s: &TsharkSummary, matched: &[&Sent]) {
    for (got, sent) in s.fpdus.iter().zip(matched) {
        let at = format!("frame {}", got.frame);
        let body = &sent.bytes[..sent.bytes.len() - 4];
        let wire_crc = u32::from_be_bytes(sent.bytes[sent.bytes.len() - 4..].try_into().unwrap());
        assert_eq!(crc32c(body).swap_bytes(), wire_crc, "{at}: sent CRC span");
        assert_eq!(got.crc, CrcVerdict::Good, "{at}");
    }
}

#[test]
fn markers_off_every_fpdu_decodes_with_good_crc() {
    let w = session(false);
    let path = write_capture("mpa-crc-nomarkers.pcap", &w, None);
    let s = check_tshark(&path);
    let matched = assert_decodes_as_sent(&s, &w, false);
    assert!(matched.iter().all(|f| !f.leading_marker && f.markers == 0));
    assert_crcs(&s, &matched);
    s.check().unwrap();
    // The session covers every opcode it should, several FPDUs over one MSS of payload.
    let count = |op| w.fpdus.iter().filter(|f| f.opcode == op).count();
    assert!(count(Opcode::RdmaWrite) >= 14);
    assert_eq!(count(Opcode::RdmaReadRequest), 1);
    assert_eq!(count(Opcode::RdmaReadResponse), 2);
    assert_eq!(count(Opcode::Terminate), 1);
    assert!(w.fpdus.iter().filter(|f| f.dir == R2I).count() >= 8);
    eprintln!(
        "{}: {} FPDUs, {} frames",
        path.display(),
        s.fpdus.len(),
        s.frames
    );
}

#[test]
fn markers_on_both_ways_decode_with_markers_and_crc() {
    let w = session(true);
    let path = write_capture("mpa-crc-markers.pcap", &w, None);
    let s = check_tshark(&path);
    let matched = assert_decodes_as_sent(&s, &w, true);
    assert_crcs(&s, &matched);
    // Every FPDU good (above), among them FPDUs with markers inside and FPDUs after a leading
    // marker both at the start of FPDU mode and in mid-stream (the 468-octet Write ends exactly
    // on the grid).
    let leading: Vec<_> = matched.iter().filter(|f| f.leading_marker).collect();
    assert!(leading.len() >= 3, "{} leading-marker FPDUs", leading.len());
    assert!(matched.iter().any(|f| !f.leading_marker && f.markers > 0));
    assert!(matched.iter().any(|f| f.markers >= 3));
    s.check().unwrap();
    eprintln!(
        "{}: {} FPDUs, {} frames",
        path.display(),
        s.fpdus.len(),
        s.frames
    );
}

/// The check can fail: one octet flipped in one FPDU (the TCP checksum is computed over the
/// flipped octet, so only the MPA CRC can catch it): a payload octet of a Write not after a
/// leading marker, markers off and on, and (markers on) the RESERVED octet of the leading marker
/// of an FPDU in mid-stream, which is in that FPDU's CRC span. tshark shows exactly the victim
/// as "Bad CRC32", expecting the CRC of its octets as corrupted.
#[test]
fn corrupted_fpdu_is_reported_with_bad_crc() {
    for (markers, in_leading_marker) in [(false, false), (true, false), (true, true)] {
        let w = session(markers);
        let (victim, sent) = w
            .fpdus
            .iter()
            .enumerate()
            .find(|(i, f)| {
                if in_leading_marker {
                    *i > 0 && f.leading_marker
                } else {
                    f.opcode == Opcode::RdmaWrite && f.ulpdu_len > 900 && !f.leading_marker
                }
            })
            .unwrap();
        let at = if in_leading_marker {
            0
        } else {
            sent.bytes.len() / 2
        };
        let path = write_capture(
            &format!(
                "mpa-crc-corrupt-m{}{}.pcap",
                u8::from(markers),
                if in_leading_marker { "-marker" } else { "" }
            ),
            &w,
            Some((victim, at)),
        );
        let mut corrupted = sent.bytes.clone();
        corrupted[at] ^= 0x01;
        let body = &corrupted[..corrupted.len() - 4];
        let s = check_tshark(&path);
        assert!(
            s.bad_checksums.is_empty(),
            "TCP checksums must still be good"
        );
        assert!(s.malformed.is_empty());
        assert_eq!(s.fpdus.len(), w.fpdus.len());
        let matched = assert_decodes_as_sent(&s, &w, markers);
        let mut bad = 0;
        for (got, sent) in s.fpdus.iter().zip(&matched) {
            let is_victim = std::ptr::eq(*sent, &w.fpdus[victim]);
            match got.crc {
                CrcVerdict::Bad {
                    sent: shown,
                    expected,
                } if is_victim => {
                    let wire = &sent.bytes[sent.bytes.len() - 4..];
                    assert_eq!(shown, u32::from_be_bytes(wire.try_into().unwrap()));
                    assert_eq!(expected, crc32c(body).swap_bytes(), "frame {}", got.frame);
                    bad += 1;
                }
                CrcVerdict::Good => assert!(!is_victim, "frame {}: corruption missed", got.frame),
                other => panic!("frame {}: {other:?}", got.frame),
            }
        }
        assert_eq!(bad, 1);
        let problems = s.problems();
        assert_eq!(problems.len(), 1, "{problems:#?}");
        assert!(s.check().is_err());
    }
}

/// A tiny deterministic generator for chunk sizes.
fn lcg(state: &mut u64) -> usize {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*state >> 33) as usize
}

/// Raw LLP output cut into arbitrary chunks (as a hardware TX stream arrives) is written one
/// MPA PDU per segment by `MpaCapture`, which learns each direction's marker setting from the
/// frames; tshark decodes it exactly like the hand-segmented capture. Two orders: chunks of
/// both directions interleaved in wire order, and the whole Initiator stream before the
/// Responder's (its FPDUs wait for the Reply).
#[test]
fn mpa_capture_of_chunked_llp_streams() {
    for markers in [false, true] {
        let w = session(markers);
        for interleaved in [true, false] {
            let name = format!(
                "mpa-capture-m{}-{}.pcap",
                u8::from(markers),
                if interleaved {
                    "interleaved"
                } else {
                    "sequential"
                }
            );
            let path = capture_path(&name);
            let mut pcap = PcapWriter::create(&path).unwrap();
            let mut cap = MpaCapture::new(TcpConnection::simulated(3).with_isns(7, 0xFFFF_FFF0));
            let mut rng = 0x5eed_u64 + u64::from(markers);
            let mut t = 1_700_000_000_000_000u64;
            let mut push = |dir: Direction, bytes: &[u8], cap: &mut MpaCapture| {
                let mut rest = bytes;
                while !rest.is_empty() {
                    let n = (1 + lcg(&mut rng) % 700).min(rest.len());
                    t += 1;
                    cap.push(&mut pcap, dir, &rest[..n], t).unwrap();
                    rest = &rest[n..];
                }
            };
            if interleaved {
                for (dir, bytes) in &w.pdus {
                    push(*dir, bytes, &mut cap);
                }
            } else {
                for dir in Direction::BOTH {
                    push(dir, &w.streams[dir.index()], &mut cap);
                }
            }
            for dir in Direction::BOTH {
                assert_eq!(cap.pending(dir), 0, "{dir:?}");
                let n = w.fpdus.iter().filter(|f| f.dir == dir).count();
                assert_eq!(cap.fpdus(dir), n, "{dir:?}");
            }
            cap.finish(&mut pcap, t + 1000).unwrap();
            pcap.flush().unwrap();
            let s = check_tshark(&path);
            let matched = assert_decodes_as_sent(&s, &w, markers);
            assert_crcs(&s, &matched);
            s.check().unwrap_or_else(|e| panic!("{name}: {e:#}"));
        }
    }
}

#[test]
fn tshark_version_is_known() {
    let v = rnic_sim::pcap::tshark::tshark_version().unwrap();
    assert!(v.contains("TShark"), "{v}");
    eprintln!("{v}");
}

/// The checksum check can fail too: a frame whose TCP payload changed after the checksum was
/// computed is reported, and so is the MPA CRC of the FPDU in it.
#[test]
fn bad_tcp_checksum_is_reported() {
    let w = session(false);
    let mut pcap = PcapWriter::new(Vec::new()).unwrap();
    let mut conn = TcpConnection::simulated(1);
    pcap.open(&mut conn, 1_000_000).unwrap();
    let mut victim = None;
    for (i, (dir, bytes)) in w.pdus.iter().enumerate() {
        let frames = pcap
            .send(&mut conn, *dir, bytes, 1_000_000 + i as u64)
            .unwrap();
        if i == 5 {
            victim = frames.first().copied();
        }
    }
    pcap.close(&mut conn, R2I, 2_000_000).unwrap();
    let victim = victim.unwrap();
    let mut file = pcap.into_inner().unwrap();
    // Walk the records to the victim frame and flip its last octet (inside the FPDU's CRC).
    let mut at = 24;
    for _ in 1..victim {
        let len = u32::from_le_bytes(file[at + 8..at + 12].try_into().unwrap()) as usize;
        at += 16 + len;
    }
    let len = u32::from_le_bytes(file[at + 8..at + 12].try_into().unwrap()) as usize;
    file[at + 16 + len - 1] ^= 0x80;
    let path = capture_path("mpa-bad-tcp-checksum.pcap");
    std::fs::write(&path, &file).unwrap();
    let s = check_tshark(&path);
    assert_eq!(s.bad_checksums, vec![victim]);
    let problems = s.problems();
    assert!(
        problems
            .iter()
            .any(|p| p.contains("bad IPv4 or TCP checksum")),
        "{problems:#?}"
    );
    assert!(s.check().is_err());
}

/// The capture of the hardware's own output (issue 3): the same session sent through the MPA
/// transmit block on Verilator, the Initiator on connection 0 and the Responder on connection 1
/// (raw Request / Reply, then the switch to FPDU mode, then every ULPDU), with random LLP
/// back-pressure. The block's LLP bytes must equal the golden session byte for byte, and tshark
/// must decode every FPDU of the capture with a good CRC, markers off and on.
#[test]
fn hardware_tx_output_decodes_in_tshark() {
    use rand::SeedableRng;
    for markers in [false, true] {
        let w = session(markers);
        let frame = |dir: Direction| w.pdus.iter().find(|(d, _)| *d == dir).unwrap().1.clone();
        let config = |conn| {
            Step::Config(ConnConfig {
                conn,
                fpdu_mode: true,
                markers,
                crc: true,
            })
        };
        let script = [
            Step::Traffic {
                ulpdus: Vec::new(),
                raws: vec![(0, frame(I2R)), (1, frame(R2I))],
            },
            config(0),
            config(1),
            Step::Traffic {
                ulpdus: w
                    .fpdus
                    .iter()
                    .map(|f| (f.dir.index(), f.ulpdu.clone()))
                    .collect(),
                raws: Vec::new(),
            },
        ];
        let mut sim = BackendKind::Verilator
            .build(rnic_hdl::mpa::mpa_tx::MpaTx::default())
            .unwrap();
        let tb = MpaTxTb::new(sim.as_ref()).unwrap();
        let options = TrafficOptions {
            backpressure: 0.3,
            gaps: 0.1,
        };
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let run = tb.run(sim.as_mut(), &script, &options, &mut rng);
        assert!(run.errors.is_empty(), "{:?}", run.errors);
        for dir in Direction::BOTH {
            let (got, want) = (run.bytes(dir.index()), &w.streams[dir.index()]);
            let first_diff = got.iter().zip(want).position(|(a, b)| a != b);
            assert!(
                got == *want,
                "hardware LLP stream of {dir:?}, markers {markers}: {} octets, golden {}, first \
                 difference at {first_diff:?}",
                got.len(),
                want.len()
            );
        }
        let path = capture_path(&format!("hardware-tx-m{}.pcap", u8::from(markers)));
        let mut pcap = PcapWriter::create(&path).unwrap();
        let mut cap = MpaCapture::new(TcpConnection::simulated(0));
        let mut t = 1_700_000_000_000_000u64;
        for dir in Direction::BOTH {
            // One LLP packet of the block at a time, as it would be handed to TCP.
            for packet in &run.packets[dir.index()] {
                t += 1;
                cap.push(&mut pcap, dir, packet, t).unwrap();
            }
        }
        cap.finish(&mut pcap, t + 1000).unwrap();
        pcap.flush().unwrap();
        let s = check_tshark(&path);
        let matched = assert_decodes_as_sent(&s, &w, markers);
        assert_crcs(&s, &matched);
        s.check()
            .unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
    }
}
