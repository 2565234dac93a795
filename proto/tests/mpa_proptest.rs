//! Property tests for MPA, each citing its section of `spec/notes/mpa-peer-connect.md`.

use proptest::collection::vec;
use proptest::prelude::*;
use rnic_proto::mpa::frame::{MAX_PRIVATE_DATA, REPLY_KEY, REQUEST_KEY};
use rnic_proto::mpa::{
    fpdu_wire_len, mulpdu, Deframer, DeframerConfig, EnhancedData, Fpdu, FpduRepr, Frame,
    FrameKind, FrameRepr, Framer, RtrOptions, Status,
};

fn kind() -> impl Strategy<Value = FrameKind> {
    prop_oneof![Just(FrameKind::Request), Just(FrameKind::Reply)]
}

fn enhanced() -> impl Strategy<Value = EnhancedData> {
    (
        0u16..=0x3FFF,
        0u16..=0x3FFF,
        proptest::option::of(any::<(bool, bool, bool)>()),
    )
        .prop_map(|(ird, ord, p2p)| EnhancedData {
            ird,
            ord,
            peer_to_peer: p2p.map(|(b, c, d)| RtrOptions {
                zero_length_fpdu: b,
                zero_length_write: c,
                zero_length_read: d,
            }),
        })
}

/// Frames `ulpdus` back to back from `start`; returns the stream and each FPDU's span.
fn frame_all(
    markers: bool,
    crc: bool,
    start: u32,
    ulpdus: &[Vec<u8>],
) -> (Vec<u8>, Vec<std::ops::Range<usize>>) {
    let mut framer = Framer {
        markers,
        crc,
        stream_offset: start,
    };
    let mut out = Vec::new();
    let mut spans = Vec::new();
    for u in ulpdus {
        let n = fpdu_wire_len(u.len() as u16, markers, framer.stream_offset);
        let s = out.len();
        out.resize(s + n, 0);
        assert_eq!(framer.write_fpdu(u, &mut out[s..]).unwrap(), n);
        spans.push(s..s + n);
    }
    (out, spans)
}

type Deliveries = Vec<(Vec<u8>, Status)>;

/// A 4-aligned stream offset below 2048, on the 512-octet grid a quarter of the time (so the
/// first FPDU often starts with a marker).
fn small_offset() -> impl Strategy<Value = u32> {
    prop_oneof![
        3 => (0u32..2048).prop_map(|o| o & !3),
        1 => (0u32..4).prop_map(|k| k * 512),
    ]
}

/// Feeds `stream` cut after each length in `cuts` (cycled); returns the deliveries.
fn deframe(
    stream: &[u8],
    config: DeframerConfig,
    cuts: &[usize],
) -> (Deliveries, Deframer<Vec<u8>>) {
    let mut de = Deframer::new(vec![0u8; usize::from(config.max_ulpdu)], config).unwrap();
    let mut got = Vec::new();
    let mut pos = 0;
    let mut k = 0;
    while pos < stream.len() {
        let piece = cuts.get(k % cuts.len().max(1)).copied().unwrap_or(1).max(1);
        k += 1;
        let end = (pos + piece).min(stream.len());
        let mut rest = &stream[pos..end];
        while !rest.is_empty() {
            let (n, d) = de.feed(rest);
            assert!(n > 0 || d.is_some(), "feed made no progress");
            if let Some(d) = d {
                got.push((d.ulpdu.to_vec(), d.status));
            }
            rest = &rest[n..];
        }
        pos = end;
    }
    (got, de)
}

proptest! {
    /// §1.1–§1.2: emit then parse is the identity for every valid Request and Reply, and the
    /// emitted length is `buffer_len`.
    #[test]
    fn frame_emit_parse_identity(
        kind in kind(),
        markers: bool,
        crc: bool,
        reject: bool,
        rev in 0u8..=2,
        enh in proptest::option::of(enhanced()),
        pd in vec(any::<u8>(), 0..=MAX_PRIVATE_DATA),
    ) {
        let pd_max = MAX_PRIVATE_DATA - if enh.is_some() { 4 } else { 0 };
        let repr = FrameRepr {
            kind,
            markers,
            crc,
            reject: reject && kind == FrameKind::Reply,
            revision: if enh.is_some() { 2 } else { rev },
            enhanced: enh,
            private_data: &pd[..pd.len().min(pd_max)],
        };
        let mut buf = vec![0u8; repr.buffer_len()];
        repr.emit(&mut Frame::new_unchecked(&mut buf[..])).unwrap();
        let parsed = FrameRepr::parse(&Frame::new_checked(&buf[..]).unwrap(), kind).unwrap();
        prop_assert_eq!(parsed, repr);
    }

    /// §1.4: parse never panics on arbitrary bytes, with or without a valid key in front, and
    /// accepts only frames that re-emit to the same octets up to the ignored bits.
    #[test]
    fn frame_parse_never_panics(
        kind in kind(),
        key in 0u8..3,
        tail in vec(any::<u8>(), 0..600),
    ) {
        let mut bytes = match key {
            0 => REQUEST_KEY.to_vec(),
            1 => REPLY_KEY.to_vec(),
            _ => Vec::new(),
        };
        bytes.extend_from_slice(&tail);
        if let Ok(repr) = FrameRepr::parse(&Frame::new_unchecked(&bytes[..]), kind) {
            prop_assert_eq!(repr.buffer_len(), bytes.len());
            let mut again = vec![0u8; repr.buffer_len()];
            repr.emit(&mut Frame::new_unchecked(&mut again[..])).unwrap();
            prop_assert_eq!(&again[..16], &bytes[..16]);
            prop_assert_eq!(&again[17..20], &bytes[17..20]);
        }
    }

    /// §5.1: FpduRepr emit then parse is the identity (no markers), CRC on or off.
    #[test]
    fn fpdu_repr_identity(ulpdu in vec(any::<u8>(), 0..3000), crc: bool) {
        let repr = FpduRepr { ulpdu: &ulpdu };
        let mut buf = vec![0u8; repr.buffer_len()];
        repr.emit(&mut Fpdu::new_unchecked(&mut buf[..]), crc).unwrap();
        prop_assert_eq!(buf.len() % 4, 0);
        let parsed = FpduRepr::parse(&Fpdu::new_unchecked(&buf[..]), crc).unwrap();
        prop_assert_eq!(parsed, repr);
        // The Framer writes the same octets when markers are off.
        let mut out = vec![0u8; buf.len()];
        let n = Framer { markers: false, crc, stream_offset: 0 }
            .write_fpdu(&ulpdu, &mut out)
            .unwrap();
        prop_assert_eq!(&out[..n], &buf[..]);
    }

    /// §5.1, §5.3: Framer then Deframer is the identity for one FPDU, with and without markers
    /// and CRC, at any 4-aligned stream offset; the length is `fpdu_wire_len` and the deframer
    /// ends on an FPDU boundary at the framer's offset.
    #[test]
    fn framer_deframer_identity(
        ulpdu in vec(any::<u8>(), 0..5000),
        markers: bool,
        crc: bool,
        offset in any::<u32>().prop_map(|o| o & !3),
    ) {
        let (stream, _) = frame_all(markers, crc, offset, std::slice::from_ref(&ulpdu));
        prop_assert_eq!(stream.len(), fpdu_wire_len(ulpdu.len() as u16, markers, offset));
        let config = DeframerConfig { stream_offset: offset, ..DeframerConfig::new(markers, crc) };
        let (got, de) = deframe(&stream, config, &[stream.len()]);
        prop_assert_eq!(got, vec![(ulpdu, Status::Good)]);
        prop_assert!(de.at_fpdu_boundary());
        prop_assert_eq!(de.stream_offset(), offset.wrapping_add(stream.len() as u32));
    }

    /// §5.4: an FPDU carrying MULPDU octets fits the EMSS wherever it starts (4-aligned).
    #[test]
    fn mulpdu_fits_emss(emss in 16u16..=9000, markers: bool, offset in any::<u32>()) {
        let offset = offset & !3;
        let m = mulpdu(emss, markers);
        prop_assert!(fpdu_wire_len(m, markers, offset) <= usize::from(emss));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// §5, §4.2: the Deframer never panics and always progresses on arbitrary bytes, whatever
    /// the configuration and the cuts; after its first non-good delivery it delivers nothing.
    #[test]
    fn deframer_never_panics(
        bytes in vec(any::<u8>(), 0..4000),
        markers: bool,
        crc: bool,
        max_ulpdu in 0u16..=u16::MAX,
        offset in any::<u32>().prop_map(|o| o & !3),
        cuts in vec(1usize..600, 1..8),
    ) {
        let config = DeframerConfig { markers, crc, max_ulpdu, stream_offset: offset };
        let (got, _) = deframe(&bytes, config, &cuts);
        if let Some(bad) = got.iter().position(|(_, s)| *s != Status::Good) {
            prop_assert_eq!(bad, got.len() - 1);
        }
    }

    /// §5.1, §5.3: the Deframer gives the same ULPDUs (all good, in order) whatever the
    /// segmentation of the stream, pieces of 1..9000 octets.
    #[test]
    fn deframer_segmentation_invariant(
        ulpdus in vec(vec(any::<u8>(), 0..3000), 1..7),
        markers: bool,
        crc: bool,
        offset in any::<u32>().prop_map(|o| o & !3),
        cuts in vec(1usize..9000, 1..12),
        small_cuts in vec(1usize..9, 1..5),
    ) {
        let (stream, _) = frame_all(markers, crc, offset, &ulpdus);
        let config = DeframerConfig { stream_offset: offset, ..DeframerConfig::new(markers, crc) };
        let want: Vec<_> = ulpdus.iter().map(|u| (u.clone(), Status::Good)).collect();
        for c in [&cuts[..], &small_cuts[..]] {
            let (got, de) = deframe(&stream, config, c);
            prop_assert_eq!(&got, &want);
            prop_assert!(de.at_fpdu_boundary());
        }
    }

    /// §5.2, §5.3, §4.2 (MPA-ERR-STOP): with CRC on, any single-bit flip in an FPDU (embedded
    /// markers included) is caught: FPDUs before it are delivered intact, the FPDU it hits is
    /// never delivered good (BadCrc, BadMarker, UlpduTooLong, or withheld because a corrupted
    /// length runs past the stream), and nothing after it is delivered. A flip in the marker
    /// before an FPDU header is BadCrc on the FPDU it begins, even in the bits the marker check
    /// ignores (RESERVED, the two FPDUPTR LSBs): that marker is in the FPDU's CRC span.
    #[test]
    fn single_bit_flip_detected(
        ulpdus in vec(vec(any::<u8>(), 0..1500), 1..5),
        markers: bool,
        offset in small_offset(),
        bit in any::<proptest::sample::Index>(),
        near_start: bool,
        max_small: bool,
    ) {
        let (stream, spans) = frame_all(markers, true, offset, &ulpdus);
        // Half the time in the first 8 octets: the leading marker (if any) and the header.
        let bit = bit.index(if near_start { 64 } else { stream.len() * 8 });
        let byte = bit / 8;
        let mut s = stream.clone();
        s[byte] ^= 1 << (bit % 8);
        let k = spans.iter().position(|r| r.contains(&byte)).unwrap();
        let max_ulpdu = if max_small { 1500 } else { u16::MAX };
        let config = DeframerConfig { markers, crc: true, max_ulpdu, stream_offset: offset };
        let (got, _) = deframe(&s, config, &[97, 1, 4096]);
        let good: Vec<_> = ulpdus.iter().map(|u| (u.clone(), Status::Good)).collect();
        let leading = markers && (offset as usize + spans[k].start).is_multiple_of(512);
        let in_marker = leading && byte < spans[k].start + 4;
        if in_marker {
            let mut want = good[..=k].to_vec();
            want[k].1 = Status::BadCrc;
            prop_assert_eq!(got, want);
        } else {
            prop_assert!(got.len() <= k + 1);
            prop_assert_eq!(&got[..got.len().min(k)], &good[..got.len().min(k)]);
            if got.len() == k + 1 {
                prop_assert_ne!(got[k].1, Status::Good);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// §5.3, §4.2: corrupting the FPDUPTR of any marker in the stream (its checked bits) is
    /// caught at the FPDU the marker refers to: BadCrc when CRC is on (every marker, the one
    /// before a header included, is in that FPDU's CRC span), else BadMarker. Earlier FPDUs
    /// are intact and nothing follows.
    #[test]
    fn marker_corruption_detected(
        ulpdus in vec(vec(any::<u8>(), 0..1500), 1..6),
        crc: bool,
        offset in small_offset(),
        which in any::<proptest::sample::Index>(),
        xor in 1u16..0x4000,
    ) {
        let (stream, spans) = frame_all(true, crc, offset, &ulpdus);
        let first = ((512 - offset % 512) % 512) as usize;
        let markers: Vec<usize> = (first..stream.len()).step_by(512).collect();
        prop_assume!(!markers.is_empty());
        let m = markers[which.index(markers.len())];
        let mut s = stream.clone();
        let ptr = u16::from_be_bytes([s[m + 2], s[m + 3]]) ^ (xor << 2);
        s[m + 2..m + 4].copy_from_slice(&ptr.to_be_bytes());
        let k = spans.iter().position(|r| r.contains(&m)).unwrap();
        let config = DeframerConfig { stream_offset: offset, ..DeframerConfig::new(true, crc) };
        let (got, de) = deframe(&s, config, &[1, 7, 300]);
        let want = if crc { Status::BadCrc } else { Status::BadMarker };
        prop_assert_eq!(got.len(), k + 1);
        for (g, u) in got.iter().zip(&ulpdus).take(k) {
            prop_assert_eq!(g, &(u.clone(), Status::Good));
        }
        prop_assert_eq!(&got[k], &(ulpdus[k].clone(), want));
        prop_assert_eq!(de.error(), want.error());
    }
}
