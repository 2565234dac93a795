//! Golden vectors and fixed cases for MPA, each citing its section of
//! `spec/notes/mpa-peer-connect.md` (the catalog).

use rnic_proto::crc32c::{crc32c, to_wire, RESIDUE};
use rnic_proto::mpa::frame::{
    FLAGS_RESERVED, FLAG_CRC, FLAG_ENHANCED, FLAG_MARKERS, FLAG_REJECT, HEADER_LEN,
    IRD_ORD_NO_VALUE, MAX_PRIVATE_DATA, REPLY_KEY, REQUEST_KEY,
};
use rnic_proto::mpa::{
    fpdu_len, fpdu_wire_len, mulpdu, pad_len, Deframer, DeframerConfig, EnhancedData, Error, Fpdu,
    FpduRepr, Frame, FrameKind, FrameRepr, Framer, LlpErrorCode, Marker, RtrOptions, Status,
    MARKER_INTERVAL, MAX_ULPDU, TERMINATE_ETYPE_LLP, TERMINATE_ETYPE_MPA, TERMINATE_LAYER_LLP,
};

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

fn req_key() -> Vec<u8> {
    hex("4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65")
}

fn rep_key() -> Vec<u8> {
    hex("4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65")
}

fn cat(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut v = a.to_vec();
    v.extend_from_slice(b);
    v
}

fn parse(bytes: &[u8], kind: FrameKind) -> Result<FrameRepr<'_>, Error> {
    FrameRepr::parse(&Frame::new_unchecked(bytes), kind)
}

fn emit(repr: &FrameRepr) -> Vec<u8> {
    let mut buf = vec![0u8; repr.buffer_len()];
    repr.emit(&mut Frame::new_unchecked(&mut buf[..])).unwrap();
    buf
}

/// Frames all `ulpdus` back to back; returns the stream and each FPDU's span in it (leading
/// marker included).
fn frame_all(framer: &mut Framer, ulpdus: &[Vec<u8>]) -> (Vec<u8>, Vec<std::ops::Range<usize>>) {
    let mut out = Vec::new();
    let mut spans = Vec::new();
    for u in ulpdus {
        let n = framer.wire_len(u.len() as u16);
        let start = out.len();
        out.resize(start + n, 0xEE);
        assert_eq!(framer.write_fpdu(u, &mut out[start..]).unwrap(), n);
        spans.push(start..start + n);
    }
    (out, spans)
}

type Deliveries = Vec<(Vec<u8>, Status)>;

/// Feeds `stream` in pieces of `piece` octets; returns every delivery and the deframer.
fn deframe(stream: &[u8], config: DeframerConfig, piece: usize) -> (Deliveries, Deframer<Vec<u8>>) {
    let mut de = Deframer::new(vec![0u8; usize::from(config.max_ulpdu)], config).unwrap();
    let mut got = Vec::new();
    for chunk in stream.chunks(piece.max(1)) {
        let mut rest = chunk;
        while !rest.is_empty() {
            let (n, d) = de.feed(rest);
            if let Some(d) = d {
                got.push((d.ulpdu.to_vec(), d.status));
            }
            rest = &rest[n..];
        }
    }
    (got, de)
}

/// Independent byte-at-a-time model of §5.1 + §5.3: markers on the 512 grid from stream
/// offset `start`, FPDUPTR 0 right before a header, otherwise marker − header; CRC over the
/// FPDU octets and every marker of the FPDU, the one right before its header included
/// (docs/decisions.md "Marker CRC coverage").
fn reference_stream(ulpdus: &[Vec<u8>], start: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut o = start;
    for u in ulpdus {
        let mut covered = Vec::new();
        if o.is_multiple_of(512) {
            covered.extend_from_slice(&[0, 0, 0, 0]);
            out.extend_from_slice(&[0, 0, 0, 0]);
            o = o.wrapping_add(4);
        }
        let h = o;
        let mut content = (u.len() as u16).to_be_bytes().to_vec();
        content.extend_from_slice(u);
        while !content.len().is_multiple_of(4) {
            content.push(0);
        }
        // One more iteration after the last octet: a marker due before the CRC.
        for b in content.into_iter().map(Some).chain([None]) {
            if o.is_multiple_of(512) {
                let p = o.wrapping_sub(h) as u16;
                let marker = [0, 0, (p >> 8) as u8, p as u8];
                covered.extend_from_slice(&marker);
                out.extend_from_slice(&marker);
                o = o.wrapping_add(4);
            }
            if let Some(b) = b {
                covered.push(b);
                out.push(b);
                o = o.wrapping_add(1);
            }
        }
        assert_eq!(o % 4, 0);
        out.extend_from_slice(&to_wire(crc32c(&covered)));
        o = o.wrapping_add(4);
    }
    out
}

// ---------------------------------------------------------------- §1 Request / Reply frames

/// §1.3 A: RFC 5044 v1 Request, CRC wanted, no markers, no PD.
#[test]
fn frame_a_v1_request() {
    let bytes = cat(&req_key(), &hex("40 01 00 00"));
    assert_eq!(REQUEST_KEY.to_vec(), req_key());
    let repr = parse(&bytes, FrameKind::Request).unwrap();
    assert_eq!(
        repr,
        FrameRepr {
            kind: FrameKind::Request,
            markers: false,
            crc: true,
            reject: false,
            revision: 1,
            enhanced: None,
            private_data: &[],
        }
    );
    assert_eq!(emit(&repr), bytes);
}

/// §1.3 B: Enhanced Request, C|S, Rev 2, A=1, IRD=16, C+D offered, ORD=16, ULP PD "ABCD".
#[test]
fn frame_b_enhanced_request() {
    let bytes = cat(&req_key(), &hex("50 02 00 08 80 10 c0 10 41 42 43 44"));
    let repr = parse(&bytes, FrameKind::Request).unwrap();
    let enh = EnhancedData {
        ird: 16,
        ord: 16,
        peer_to_peer: Some(RtrOptions {
            zero_length_fpdu: false,
            zero_length_write: true,
            zero_length_read: true,
        }),
    };
    assert_eq!(repr.enhanced, Some(enh));
    assert_eq!(repr.private_data, b"ABCD");
    assert_eq!(
        (repr.crc, repr.markers, repr.reject, repr.revision),
        (true, false, false, 2)
    );
    assert_eq!(repr.pd_length(), 8);
    assert_eq!(emit(&repr), bytes);
    let view = Frame::new_checked(&bytes[..]).unwrap();
    assert_eq!(view.kind(), Some(FrameKind::Request));
    assert_eq!((view.ird_word(), view.ord_word()), (0x8010, 0xc010));
    assert_eq!(view.private_data(), &hex("80 10 c0 10 41 42 43 44")[..]);
}

/// §1.3 C: Enhanced accept Reply, A=1 echoed, IRD=16, only C (Write RTR), ORD=16.
#[test]
fn frame_c_enhanced_accept_reply() {
    let bytes = cat(&rep_key(), &hex("50 02 00 04 80 10 80 10"));
    assert_eq!(REPLY_KEY.to_vec(), rep_key());
    let repr = parse(&bytes, FrameKind::Reply).unwrap();
    let rtr = RtrOptions {
        zero_length_write: true,
        ..RtrOptions::default()
    };
    assert_eq!(
        repr.enhanced,
        Some(EnhancedData {
            ird: 16,
            ord: 16,
            peer_to_peer: Some(rtr)
        })
    );
    assert!(repr.private_data.is_empty());
    assert_eq!(emit(&repr), bytes);
}

/// §1.3 D: Enhanced reject Reply, C|R|S, A=0, IRD=0, ORD=8.
#[test]
fn frame_d_enhanced_reject_reply() {
    let bytes = cat(&rep_key(), &hex("70 02 00 04 00 00 00 08"));
    let repr = parse(&bytes, FrameKind::Reply).unwrap();
    assert!(repr.reject && repr.crc);
    assert_eq!(
        repr.enhanced,
        Some(EnhancedData {
            ird: 0,
            ord: 8,
            peer_to_peer: None
        })
    );
    assert_eq!(emit(&repr), bytes);
}

/// §1.3 E: Enhanced Request, client-server, IRD=ORD=0x3FFF (no auto-negotiation, §1.2, §8.9).
#[test]
fn frame_e_no_auto_negotiation() {
    let bytes = cat(&req_key(), &hex("50 02 00 04 3f ff 3f ff"));
    let repr = parse(&bytes, FrameKind::Request).unwrap();
    let enh = repr.enhanced.unwrap();
    assert_eq!((enh.ird, enh.ord), (IRD_ORD_NO_VALUE, IRD_ORD_NO_VALUE));
    assert_eq!(enh.peer_to_peer, None);
    assert!(!enh.auto_negotiation());
    let one = EnhancedData { ird: 5, ..enh };
    assert!(
        !one.auto_negotiation(),
        "either field 0x3FFF skips negotiation"
    );
    assert!(EnhancedData {
        ird: 5,
        ord: 7,
        peer_to_peer: None
    }
    .auto_negotiation());
    assert_eq!(emit(&repr), bytes);
}

/// §1.3 deployed example: flags 0x50, Rev 2, PD_Length 12, enhanced `00 01 00 00`, 8 ULP octets.
#[test]
fn frame_deployed_example() {
    let bytes = cat(
        &req_key(),
        &hex("50 02 00 0c 00 01 00 00 01 02 03 04 05 06 07 08"),
    );
    let repr = parse(&bytes, FrameKind::Request).unwrap();
    assert_eq!(
        repr.enhanced,
        Some(EnhancedData {
            ird: 1,
            ord: 0,
            peer_to_peer: None
        })
    );
    assert_eq!(repr.private_data, &[1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(emit(&repr), bytes);
}

/// §1.4 ENH-RX-KEY: a key that is no MPA key is BadKey; the other role's key is WrongKey
/// (Initiator/Initiator or Responder/Responder pairing), in both directions.
#[test]
fn rx_key_checks() {
    let req = cat(&req_key(), &hex("40 01 00 00"));
    let rep = cat(&rep_key(), &hex("40 01 00 00"));
    assert_eq!(parse(&req, FrameKind::Reply), Err(Error::WrongKey));
    assert_eq!(parse(&rep, FrameKind::Request), Err(Error::WrongKey));
    assert!(parse(&rep, FrameKind::Reply).is_ok());
    let mut bad = req.clone();
    bad[10] = b'x';
    assert_eq!(parse(&bad, FrameKind::Request), Err(Error::BadKey));
    assert_eq!(parse(&bad, FrameKind::Reply), Err(Error::BadKey));
    assert_eq!(Frame::new_unchecked(&bad[..]).kind(), None);
}

/// §1.4 ENH-RX-R0: R=1 in a Request is invalid; in a Reply it is a reject.
#[test]
fn rx_reject_bit_only_in_reply() {
    let req = cat(&req_key(), &[FLAG_CRC | FLAG_REJECT, 1, 0, 0]);
    assert_eq!(parse(&req, FrameKind::Request), Err(Error::RejectInRequest));
    let rep = cat(&rep_key(), &[FLAG_CRC | FLAG_REJECT, 1, 0, 0]);
    assert!(parse(&rep, FrameKind::Reply).unwrap().reject);
    let base = cat(&req_key(), &hex("40 01 00 00"));
    let repr = FrameRepr {
        kind: FrameKind::Request,
        reject: true,
        ..parse(&base, FrameKind::Request).unwrap()
    };
    let mut buf = [0u8; 64];
    assert_eq!(
        repr.emit(&mut Frame::new_unchecked(&mut buf[..])),
        Err(Error::RejectInRequest)
    );
}

/// §1.4 ENH-RX-PDLEN: PD_Length ≤ 512 (512 itself is fine), and exactly PD_Length octets follow.
#[test]
fn rx_private_data_length() {
    let mut ok = cat(&req_key(), &hex("00 01 02 00"));
    ok.resize(HEADER_LEN + MAX_PRIVATE_DATA, 0x5A);
    assert_eq!(
        parse(&ok, FrameKind::Request).unwrap().private_data.len(),
        512
    );

    let mut long = cat(&req_key(), &hex("00 01 02 01"));
    long.resize(HEADER_LEN + 513, 0);
    assert_eq!(
        parse(&long, FrameKind::Request),
        Err(Error::PrivateDataTooLong)
    );
    // Even when the buffer is short, the length itself is what is wrong.
    assert_eq!(
        parse(&long[..HEADER_LEN], FrameKind::Request),
        Err(Error::PrivateDataTooLong)
    );

    let short = cat(&req_key(), &hex("00 01 00 05 01 02 03 04"));
    assert_eq!(parse(&short, FrameKind::Request), Err(Error::Truncated));
    assert_eq!(Frame::new_checked(&short[..]).err(), Some(Error::Truncated));
    for n in 0..HEADER_LEN {
        assert_eq!(
            parse(&short[..n], FrameKind::Request),
            Err(Error::Truncated)
        );
    }
}

/// §1.4 ENH-RX-EXTRA: no octets may follow Header + PD.
#[test]
fn rx_trailing_bytes() {
    let mut bytes = cat(&rep_key(), &hex("40 01 00 02 aa bb"));
    assert!(parse(&bytes, FrameKind::Reply).is_ok());
    bytes.push(0);
    assert_eq!(parse(&bytes, FrameKind::Reply), Err(Error::TrailingBytes));
    // The view alone accepts a longer buffer and says how long the frame is.
    assert_eq!(Frame::new_checked(&bytes[..]).unwrap().frame_len(), 22);
}

/// §1.4 ENH-RX-S: S=1 needs Rev ≥ 2 and PD_Length ≥ 4.
#[test]
fn rx_enhanced_needs_rev2_and_data() {
    let rev1 = cat(&req_key(), &hex("50 01 00 04 00 00 00 00"));
    assert_eq!(
        parse(&rev1, FrameKind::Request),
        Err(Error::EnhancedNeedsRev2)
    );
    for pd in 0..4u8 {
        let mut b = cat(&req_key(), &[0x50, 2, 0, pd]);
        b.resize(HEADER_LEN + usize::from(pd), 0);
        assert_eq!(
            parse(&b, FrameKind::Request),
            Err(Error::EnhancedDataMissing),
            "PD_Length {pd}"
        );
    }
    let base = cat(&req_key(), &hex("50 02 00 04 00 00 00 00"));
    let repr = FrameRepr {
        revision: 1,
        ..parse(&base, FrameKind::Request).unwrap()
    };
    let mut buf = [0u8; 64];
    assert_eq!(
        repr.emit(&mut Frame::new_unchecked(&mut buf[..])),
        Err(Error::EnhancedNeedsRev2)
    );
}

/// §1.4 ENH-RX-REV / §3.1: Rev 1 and 2 are accepted, Rev 0 parses (legacy, policy is the
/// firmware's `accept_rev0`), Rev > 2 is BadRevision.
#[test]
fn rx_revision() {
    for rev in 0..=255u8 {
        let b = cat(&req_key(), &[FLAG_CRC, rev, 0, 0]);
        let r = parse(&b, FrameKind::Request);
        if rev <= 2 {
            assert_eq!(r.unwrap().revision, rev);
        } else {
            assert_eq!(r, Err(Error::BadRevision), "rev {rev}");
        }
    }
}

/// §1.4 ENH-RX-RES: the four Res bits are not checked on RX; TX writes them as 0 (§1.1).
#[test]
fn rx_reserved_flags_ignored() {
    let clean = cat(&req_key(), &hex("c0 01 00 00"));
    let dirty = cat(&req_key(), &[0xc0 | FLAGS_RESERVED, 1, 0, 0]);
    let repr = parse(&dirty, FrameKind::Request).unwrap();
    assert_eq!(repr, parse(&clean, FrameKind::Request).unwrap());
    assert!(repr.markers && repr.crc);
    assert_eq!(Frame::new_unchecked(&dirty[..]).reserved(), FLAGS_RESERVED);
    assert_eq!(emit(&repr), clean);
}

/// §1.2: with A=0 the B, C, D bits are ignored on RX and written 0 on TX.
#[test]
fn rx_a0_ignores_rtr_bits() {
    let bytes = cat(&rep_key(), &hex("50 02 00 04 40 07 c0 09"));
    let repr = parse(&bytes, FrameKind::Reply).unwrap();
    assert_eq!(
        repr.enhanced,
        Some(EnhancedData {
            ird: 7,
            ord: 9,
            peer_to_peer: None
        })
    );
    assert_eq!(
        emit(&repr),
        cat(&rep_key(), &hex("50 02 00 04 00 07 00 09"))
    );
}

/// §1.2: IRD/ORD are 14 bits; larger values are refused on TX; B alone encodes as 0xC000.
#[test]
fn enhanced_data_encoding() {
    let e = EnhancedData {
        ird: 0x3FFF,
        ord: 0,
        peer_to_peer: Some(RtrOptions {
            zero_length_fpdu: true,
            ..RtrOptions::default()
        }),
    };
    assert_eq!(e.to_words(), Ok((0xFFFF, 0)));
    assert_eq!(EnhancedData::from_words(0xFFFF, 0), e);
    let too_big = EnhancedData { ord: 0x4000, ..e };
    assert_eq!(too_big.to_words(), Err(Error::IrdOrdOutOfRange));
}

/// §1.1: frame flag masks and the emit side of the frame view.
#[test]
fn frame_view_setters() {
    let mut buf = [0u8; 24];
    let mut f = Frame::new_unchecked(&mut buf[..]);
    f.set_key(FrameKind::Reply);
    f.set_flags(FLAG_MARKERS | FLAG_CRC | FLAG_REJECT | FLAG_ENHANCED);
    f.set_revision(2);
    f.set_pd_length(4);
    f.set_ird_word(0x8001);
    f.set_ord_word(0x4002);
    let f = Frame::new_checked(&buf[..]).unwrap();
    assert!(f.markers() && f.crc() && f.reject() && f.enhanced());
    assert_eq!((f.revision(), f.pd_length(), f.frame_len()), (2, 4, 24));
    let repr = FrameRepr::parse(&f, FrameKind::Reply).unwrap();
    let enh = repr.enhanced.unwrap();
    assert_eq!((enh.ird, enh.ord), (1, 2));
    assert_eq!(
        enh.peer_to_peer,
        Some(RtrOptions {
            zero_length_fpdu: false,
            zero_length_write: false,
            zero_length_read: true
        })
    );
}

/// Emit refuses a buffer that is too small, and PD over 512 (enhanced octets included, §1.1).
#[test]
fn frame_emit_errors() {
    let pd = [0u8; 509];
    let repr = FrameRepr {
        kind: FrameKind::Request,
        markers: false,
        crc: true,
        reject: false,
        revision: 2,
        enhanced: Some(EnhancedData {
            ird: 1,
            ord: 1,
            peer_to_peer: None,
        }),
        private_data: &pd,
    };
    let mut buf = vec![0u8; 1024];
    assert_eq!(
        repr.emit(&mut Frame::new_unchecked(&mut buf[..])),
        Err(Error::PrivateDataTooLong)
    );
    let repr = FrameRepr {
        private_data: &pd[..508],
        ..repr
    };
    assert_eq!(repr.buffer_len(), 532);
    assert!(repr.emit(&mut Frame::new_unchecked(&mut buf[..])).is_ok());
    assert_eq!(
        repr.emit(&mut Frame::new_unchecked(&mut buf[..531])),
        Err(Error::BufferTooSmall)
    );
}

// ---------------------------------------------------------------- §5 / §7 FPDUs

/// The §7 golden vectors: (ULPDU, CRC value, CRC wire octets).
fn v_vectors() -> Vec<(&'static str, Vec<u8>, u32, [u8; 4])> {
    let term = |etype_byte: u8, code: u8| {
        let mut v = hex("41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00");
        v.extend_from_slice(&[etype_byte, code, 0, 0]);
        v
    };
    vec![
        ("V1", vec![], 0x48674BC7, [0xc7, 0x4b, 0x67, 0x48]),
        (
            "V2",
            hex("c1 40 00 00 00 01 00 00 00 00 00 00 00 00"),
            0x5F4CD3EB,
            [0xeb, 0xd3, 0x4c, 0x5f],
        ),
        (
            "V3",
            hex(
                "41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00 00 00 00 01 00 00 00 00
                 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00",
            ),
            0xE7D7DB27,
            [0x27, 0xdb, 0xd7, 0xe7],
        ),
        (
            "V4",
            hex("c1 42 00 00 00 01 00 00 00 00 00 00 00 00"),
            0x3EE8A321,
            [0x21, 0xa3, 0xe8, 0x3e],
        ),
        ("V5/5", term(0x23, 5), 0x93F7092F, [0x2f, 0x09, 0xf7, 0x93]),
        ("V5/6", term(0x23, 6), 0x79D9C95C, [0x5c, 0xc9, 0xd9, 0x79]),
        ("V5/7", term(0x23, 7), 0xDC985B22, [0x22, 0x5b, 0x98, 0xdc]),
        ("V6/5", term(0x20, 5), 0xF1D58016, [0x16, 0x80, 0xd5, 0xf1]),
        ("V6/6", term(0x20, 6), 0x1BFB4065, [0x65, 0x40, 0xfb, 0x1b]),
        ("V6/7", term(0x20, 7), 0xBEBAD21B, [0x1b, 0xd2, 0xba, 0xbe]),
    ]
}

/// §7 V1–V6: the Framer (no markers, CRC on) produces the catalog's FPDUs byte for byte, with
/// the catalog's sizes (8, 20, 52, 20, 28); FpduRepr emits the same; parse and the Deframer
/// give back the ULPDU; every FPDU leaves the CRC-32C residue 0x48674BC7 (§5.2).
#[test]
fn golden_fpdus_v1_to_v6() {
    let sizes = [8, 20, 52, 20, 28, 28, 28, 28, 28, 28];
    for ((name, ulpdu, crc, wire), size) in v_vectors().into_iter().zip(sizes) {
        let mut expected = (ulpdu.len() as u16).to_be_bytes().to_vec();
        expected.extend_from_slice(&ulpdu);
        expected.resize(expected.len() + pad_len(ulpdu.len()), 0);
        expected.extend_from_slice(&wire);
        assert_eq!(expected.len(), size, "{name}");
        assert_eq!(to_wire(crc), wire, "{name}");

        let mut framer = Framer::new(false, true);
        let mut out = vec![0u8; 64];
        let n = framer.write_fpdu(&ulpdu, &mut out).unwrap();
        assert_eq!(&out[..n], &expected[..], "{name}: framer");
        assert_eq!(framer.stream_offset as usize, size);

        let mut out2 = vec![0u8; size];
        FpduRepr { ulpdu: &ulpdu }
            .emit(&mut Fpdu::new_unchecked(&mut out2[..]), true)
            .unwrap();
        assert_eq!(out2, expected, "{name}: FpduRepr::emit");

        let view = Fpdu::new_checked(&expected[..]).unwrap();
        assert_eq!((view.crc(), view.compute_crc()), (crc, crc), "{name}");
        assert_eq!(crc32c(&expected), RESIDUE, "{name}: residue");
        assert_eq!(FpduRepr::parse(&view, true).unwrap().ulpdu, &ulpdu[..]);

        let (got, de) = deframe(&expected, DeframerConfig::new(false, true), 1);
        assert_eq!(got, vec![(ulpdu.clone(), Status::Good)], "{name}");
        assert!(de.at_fpdu_boundary());
    }
}

/// §7 / §4.3: V5's ULPDU_Length is 22 and the Layer/EType octet is 0x23 = layer 2, type 3.
#[test]
fn terminate_codes_4_1_4_2() {
    assert_eq!((TERMINATE_LAYER_LLP << 4) | TERMINATE_ETYPE_LLP, 0x23);
    assert_eq!((TERMINATE_LAYER_LLP << 4) | TERMINATE_ETYPE_MPA, 0x20);
    let codes: Vec<u8> = LlpErrorCode::ALL.iter().map(|c| c.code()).collect();
    assert_eq!(codes, [1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(LlpErrorCode::CrcError.code(), 0x02);
    assert_eq!(LlpErrorCode::MarkerError.code(), 0x03);
    assert_eq!(LlpErrorCode::InvalidRequestOrReply.code(), 0x04);
    assert_eq!(LlpErrorCode::InsufficientIrdResources.code(), 0x06);
    assert_eq!(
        LlpErrorCode::from_code(7),
        Some(LlpErrorCode::NoMatchingRtrOption)
    );
    assert_eq!(LlpErrorCode::from_code(0), None);
    assert_eq!(LlpErrorCode::from_code(8), None);
    assert_eq!(Error::BadCrc.llp_error_code(), Some(LlpErrorCode::CrcError));
    assert_eq!(
        Error::BadMarker.llp_error_code(),
        Some(LlpErrorCode::MarkerError)
    );
    assert_eq!(
        Error::BadKey.llp_error_code(),
        Some(LlpErrorCode::InvalidRequestOrReply)
    );
    assert_eq!(
        Error::UlpduTooLong.llp_error_code(),
        Some(LlpErrorCode::LocalCatastrophic)
    );
    assert_eq!(Error::BufferTooSmall.llp_error_code(), None);
}

/// §5.1: PAD = (2 − L) & 3 and the FPDU sizes of the examples (L=14 → 20, 18 → 24, 46 → 52,
/// 0 → 8).
#[test]
fn pad_and_fpdu_sizes_5_1() {
    for (l, pad, size) in [
        (0, 2, 8),
        (1, 1, 8),
        (2, 0, 8),
        (3, 3, 12),
        (14, 0, 20),
        (18, 0, 24),
        (46, 0, 52),
    ] {
        assert_eq!(pad_len(l), pad, "L={l}");
        assert_eq!(fpdu_len(l as u16), size, "L={l}");
        assert_eq!(fpdu_wire_len(l as u16, false, 12345), size);
    }
    assert_eq!(fpdu_len(u16::MAX), 2 + 65535 + 3 + 4);
}

/// §3.2: with CRC off the CRC field is present, written as 0, and ignored on RX.
#[test]
fn crc_off_field_zero_and_ignored() {
    let mut framer = Framer::new(false, false);
    let mut out = [0xEEu8; 16];
    let n = framer.write_fpdu(b"hello", &mut out).unwrap();
    assert_eq!(&out[..n], &hex("00 05 68 65 6c 6c 6f 00 00 00 00 00")[..]);
    let mut garbage = out[..n].to_vec();
    garbage[8..12].copy_from_slice(&[1, 2, 3, 4]);
    let (got, _) = deframe(&garbage, DeframerConfig::new(false, false), 3);
    assert_eq!(got, vec![(b"hello".to_vec(), Status::Good)]);
    assert_eq!(
        FpduRepr::parse(&Fpdu::new_unchecked(&garbage[..]), false)
            .unwrap()
            .ulpdu,
        b"hello"
    );
    assert_eq!(
        FpduRepr::parse(&Fpdu::new_unchecked(&garbage[..]), true),
        Err(Error::BadCrc)
    );
    let (got, de) = deframe(&garbage, DeframerConfig::new(false, true), 3);
    assert_eq!(got, vec![(b"hello".to_vec(), Status::BadCrc)]);
    assert_eq!(de.error(), Some(Error::BadCrc));
}

/// §5.1: PAD octets are written as 0 but not checked on RX (they are inside the CRC span).
#[test]
fn pad_contents_not_checked() {
    let mut framer = Framer::new(false, true);
    let mut out = [0u8; 8];
    assert_eq!(framer.write_fpdu(b"z", &mut out), Ok(8));
    assert_eq!(&out[..4], &[0, 1, b'z', 0]);
    out[3] = 0x55;
    let tail = to_wire(crc32c(&out[..4]));
    out[4..].copy_from_slice(&tail);
    let (got, _) = deframe(&out, DeframerConfig::new(false, true), 1);
    assert_eq!(got, vec![(b"z".to_vec(), Status::Good)]);
    let view = Fpdu::new_checked(&out[..]).unwrap();
    assert_eq!(view.pad(), &[0x55]);
    assert_eq!(FpduRepr::parse(&view, true).unwrap().ulpdu, b"z");
}

/// §5.3 example: ULPDU 600 at stream start. Offset 0 holds marker 00000000, the header is at 4,
/// the marker at 512 has FPDUPTR 508 (0x01FC), the FPDU after the leading marker is 612 octets
/// (offsets 4..615) and the next FPDU starts at 616. The CRC covers both markers: the embedded
/// one (§5.1) and the leading one, which begins the FPDU (docs/decisions.md, §5.1 [UNCERTAIN]).
#[test]
fn marker_example_5_3() {
    let ulpdu: Vec<u8> = (0..600).map(|i| (i * 7 + 3) as u8).collect();
    let mut framer = Framer::new(true, true);
    assert_eq!(fpdu_wire_len(600, true, 0), 616);
    let mut out = vec![0u8; 700];
    let n = framer.write_fpdu(&ulpdu, &mut out).unwrap();
    let out = &out[..n];
    assert_eq!(n, 616);
    assert_eq!(framer.stream_offset, 616);
    assert_eq!(&out[0..4], &[0, 0, 0, 0]);
    assert_eq!(&out[4..6], &[0x02, 0x58]);
    assert_eq!(&out[512..516], &[0x00, 0x00, 0x01, 0xfc]);
    assert_eq!(
        Marker::from_wire(out[512..516].try_into().unwrap()).fpduptr,
        508
    );
    let fpdu = &out[4..616];
    assert_eq!(fpdu.len(), 612);
    // ULPDU octets are split around the marker: 506 before it, 94 after it.
    assert_eq!(&out[6..512], &ulpdu[..506]);
    assert_eq!(&out[516..610], &ulpdu[506..]);
    assert_eq!(&out[610..612], &[0, 0], "PAD");
    assert_eq!(
        &out[612..616],
        &to_wire(crc32c(&out[0..612])),
        "CRC over both markers"
    );
    assert_ne!(&out[612..616], &to_wire(crc32c(&out[4..612])));
    assert_eq!(out, &reference_stream(std::slice::from_ref(&ulpdu), 0)[..]);
    for piece in [1, 2, 3, 5, 511, 616] {
        let (got, de) = deframe(out, DeframerConfig::new(true, true), piece);
        assert_eq!(got, vec![(ulpdu.clone(), Status::Good)], "piece {piece}");
        assert!(de.at_fpdu_boundary());
        assert_eq!(de.stream_offset(), 616);
    }
}

/// §5.3: a marker can fall between PAD and CRC (4-aligned, it never splits the CRC). It is
/// inside the FPDU: FPDUPTR = 508 and the CRC covers it (and the leading marker at 0).
#[test]
fn marker_between_pad_and_crc() {
    // Header at 4; 2 + 506 + 0 PAD = 508 octets end at 512, where the marker goes.
    let ulpdu = vec![0xA5u8; 506];
    let mut framer = Framer::new(true, true);
    let mut out = vec![0u8; 600];
    let n = framer.write_fpdu(&ulpdu, &mut out).unwrap();
    assert_eq!(n, 4 + 508 + 4 + 4);
    assert_eq!(n, fpdu_wire_len(506, true, 0));
    assert_eq!(&out[512..516], &[0, 0, 0x01, 0xfc]);
    assert_eq!(&out[516..520], &to_wire(crc32c(&out[0..516])));
    assert_eq!(
        &out[..n],
        &reference_stream(std::slice::from_ref(&ulpdu), 0)[..]
    );
    let (got, _) = deframe(&out[..n], DeframerConfig::new(true, true), 1);
    assert_eq!(got, vec![(ulpdu, Status::Good)]);
}

/// §5.3: an FPDU whose CRC ends exactly on the grid: the marker there belongs to the next FPDU
/// (FPDUPTR 0): it is written with the next FPDU and is in the next FPDU's CRC span, not in the
/// first one's.
#[test]
fn marker_right_after_crc_belongs_to_next_fpdu() {
    let a = vec![1u8; 502]; // 4 + 2 + 502 + 0 + 4 = 512
    let b = vec![2u8; 10];
    let mut framer = Framer::new(true, true);
    let (stream, spans) = frame_all(&mut framer, &[a.clone(), b.clone()]);
    assert_eq!(spans, vec![0..512, 512..512 + 4 + 16]);
    assert_eq!(&stream[508..512], &to_wire(crc32c(&stream[0..508])));
    assert_eq!(&stream[512..516], &[0, 0, 0, 0]);
    assert_eq!(&stream[516..518], &[0, 10]);
    assert_eq!(&stream[528..532], &to_wire(crc32c(&stream[512..528])));
    let (got, _) = deframe(&stream, DeframerConfig::new(true, true), 7);
    assert_eq!(got, vec![(a, Status::Good), (b, Status::Good)]);
}

/// §5.3: several FPDUs back to back with markers, from several start offsets, against the
/// independent byte-at-a-time reference model; the Deframer returns every ULPDU whatever the
/// cut; fpdu_wire_len matches each FPDU's span.
#[test]
fn markers_back_to_back_match_reference() {
    let lens = [100usize, 600, 0, 1000, 14, 3, 2000, 1, 507, 508, 509, 46];
    let ulpdus: Vec<Vec<u8>> = lens
        .iter()
        .enumerate()
        .map(|(k, &l)| (0..l).map(|i| (i * 31 + k * 17) as u8).collect())
        .collect();
    for start in [0u32, 4, 8, 500, 504, 508, 512, 1020, u32::MAX - 3] {
        let mut framer = Framer {
            markers: true,
            crc: true,
            stream_offset: start,
        };
        let (stream, spans) = frame_all(&mut framer, &ulpdus);
        assert_eq!(stream, reference_stream(&ulpdus, start), "start {start}");
        let mut off = start;
        for (span, u) in spans.iter().zip(&ulpdus) {
            assert_eq!(span.len(), fpdu_wire_len(u.len() as u16, true, off));
            off = off.wrapping_add(span.len() as u32);
        }
        // Every grid point in the stream holds a marker with RESERVED 0.
        let first = ((512 - start % 512) % 512) as usize;
        for m in (first..stream.len()).step_by(512) {
            assert_eq!(&stream[m..m + 2], &[0, 0], "start {start} marker at {m}");
        }
        let config = DeframerConfig {
            stream_offset: start,
            ..DeframerConfig::new(true, true)
        };
        for piece in [1, 4, 13, 512, 9000] {
            let (got, de) = deframe(&stream, config, piece);
            let want: Vec<_> = ulpdus.iter().map(|u| (u.clone(), Status::Good)).collect();
            assert_eq!(got, want, "start {start} piece {piece}");
            assert!(de.at_fpdu_boundary());
            assert_eq!(de.delivered(), ulpdus.len() as u64);
        }
    }
}

/// §5.3: RX ignores the two LSBs of FPDUPTR and the RESERVED field as marker checks (decision
/// in docs/decisions.md). The marker before the header is in the FPDU's CRC span, so changing
/// those bits is a CRC error unless the CRC is off or recomputed over them.
#[test]
fn marker_ignored_bits() {
    let ulpdu = vec![9u8; 20];
    for crc in [false, true] {
        let mut framer = Framer::new(true, crc);
        let (mut stream, spans) = frame_all(&mut framer, std::slice::from_ref(&ulpdu));
        assert_eq!(spans, vec![0..4 + 28]);
        stream[0] = 0xFF;
        stream[1] = 0x01;
        stream[3] = 0x03;
        let config = DeframerConfig::new(true, crc);
        let (got, _) = deframe(&stream, config, 1);
        let want = if crc { Status::BadCrc } else { Status::Good };
        assert_eq!(got, vec![(ulpdu.clone(), want)], "crc {crc}");
        if crc {
            // The same marker bits with the CRC computed over them: good.
            let tail = to_wire(crc32c(&stream[..28]));
            stream[28..32].copy_from_slice(&tail);
            let (got, _) = deframe(&stream, config, 1);
            assert_eq!(got, vec![(ulpdu.clone(), Status::Good)]);
        }
    }
    assert_eq!(
        Marker::from_wire([0xFF, 0x01, 0x01, 0xFF]).pointer(),
        0x01FC
    );
}

/// §4.2: a wrong FPDUPTR in the marker before a header is reported at the end of the FPDU it
/// begins; nothing after it is delivered (MPA-ERR-STOP). That marker is in the FPDU's CRC span,
/// so with CRC on it is BadCrc (a bad CRC wins), with CRC off BadMarker (code 0x03), and with
/// CRC on and the CRC recomputed over the wrong marker BadMarker too.
#[test]
fn bad_marker_between_fpdus() {
    let ulpdus = vec![vec![1u8; 18], vec![2u8; 40], vec![3u8; 5]];
    for (crc, fix_crc, want) in [
        (false, false, Status::BadMarker),
        (true, false, Status::BadCrc),
        (true, true, Status::BadMarker),
    ] {
        let mut framer = Framer {
            markers: true,
            crc,
            stream_offset: 512 - 24,
        };
        let (mut stream, spans) = frame_all(&mut framer, &ulpdus);
        assert_eq!(spans[1], 24..24 + 4 + 48);
        assert_eq!(&stream[24..28], &[0, 0, 0, 0]);
        stream[27] = 0x04;
        if fix_crc {
            let end = spans[1].end - 4;
            let tail = to_wire(crc32c(&stream[spans[1].start..end]));
            stream[end..spans[1].end].copy_from_slice(&tail);
        }
        let config = DeframerConfig {
            stream_offset: 512 - 24,
            ..DeframerConfig::new(true, crc)
        };
        let (got, de) = deframe(&stream, config, 1);
        assert_eq!(
            got,
            vec![(ulpdus[0].clone(), Status::Good), (ulpdus[1].clone(), want)],
            "crc {crc} fix {fix_crc}"
        );
        assert_eq!(de.error(), want.error());
    }
}

/// §4.2: a marker inside an FPDU that disagrees is BadMarker with CRC off; with CRC on the
/// same corruption is a CRC error (the marker is in the CRC span) and CRC wins.
#[test]
fn bad_marker_inside_fpdu() {
    let ulpdu: Vec<u8> = (0..600).map(|i| i as u8).collect();
    for crc in [false, true] {
        let mut framer = Framer::new(true, crc);
        let (mut stream, _) = frame_all(&mut framer, &[ulpdu.clone(), vec![7; 4]]);
        stream[515] ^= 0x10; // FPDUPTR 0x01FC -> 0x01EC
        let (got, de) = deframe(&stream, DeframerConfig::new(true, crc), 100);
        let want = if crc {
            Status::BadCrc
        } else {
            Status::BadMarker
        };
        assert_eq!(got, vec![(ulpdu.clone(), want)]);
        assert_eq!(de.error(), want.error());
    }
}

/// §4.2 code 0x02 and MPA-ERR-STOP: the first bad CRC is delivered flagged (with the ULPDU as
/// received) and nothing after it, whatever follows.
#[test]
fn bad_crc_stops_stream() {
    let ulpdus = vec![vec![1u8; 30], vec![2u8; 31], vec![3u8; 32]];
    let mut framer = Framer::new(false, true);
    let (mut stream, spans) = frame_all(&mut framer, &ulpdus);
    stream[spans[1].start + 5] ^= 0x80;
    let mut corrupted = ulpdus[1].clone();
    corrupted[3] ^= 0x80;
    let (got, mut de) = deframe(&stream, DeframerConfig::new(false, true), 1);
    assert_eq!(
        got,
        vec![
            (ulpdus[0].clone(), Status::Good),
            (corrupted, Status::BadCrc)
        ]
    );
    assert_eq!(de.feed(&stream), (stream.len(), None));
    assert_eq!(de.delivered(), 1);
    assert!(!de.at_fpdu_boundary());
}

/// §5.1: a ULPDU_Length over the configured maximum ends the stream at once (status
/// UlpduTooLong, empty ULPDU); one at the maximum passes.
#[test]
fn ulpdu_too_long() {
    let mut framer = Framer::new(false, true);
    let (stream, _) = frame_all(&mut framer, &[vec![5u8; 100], vec![6u8; 101]]);
    let config = DeframerConfig {
        max_ulpdu: 100,
        ..DeframerConfig::new(false, true)
    };
    let (got, de) = deframe(&stream, config, 1);
    assert_eq!(
        got,
        vec![
            (vec![5u8; 100], Status::Good),
            (vec![], Status::UlpduTooLong)
        ]
    );
    assert_eq!(de.error(), Some(Error::UlpduTooLong));
    assert_eq!(
        Deframer::new(vec![0u8; 99], config).err(),
        Some(Error::BufferTooSmall)
    );
    let unaligned = DeframerConfig {
        stream_offset: 2,
        ..DeframerConfig::new(true, true)
    };
    assert_eq!(
        Deframer::new(vec![0u8; 65535], unaligned).err(),
        Some(Error::UnalignedStreamOffset)
    );
}

/// §5.1, §5.3: Framer argument checks, and nothing is written when it refuses.
#[test]
fn framer_errors() {
    let big = vec![0u8; MAX_ULPDU + 1];
    let mut out = vec![0xEEu8; 70000];
    let mut f = Framer::new(false, true);
    assert_eq!(f.write_fpdu(&big, &mut out), Err(Error::UlpduTooLong));
    let mut f = Framer {
        markers: true,
        crc: true,
        stream_offset: 2,
    };
    assert_eq!(
        f.write_fpdu(b"x", &mut out),
        Err(Error::UnalignedStreamOffset)
    );
    let mut f = Framer::new(false, true);
    assert_eq!(
        f.write_fpdu(b"abc", &mut out[..11]),
        Err(Error::BufferTooSmall)
    );
    assert_eq!(f.stream_offset, 0);
    // A 65535-octet ULPDU with markers would need FPDUPTR > 0xFFFF for its last marker.
    let mut f = Framer::new(true, true);
    assert_eq!(
        f.write_fpdu(&big[..MAX_ULPDU], &mut out),
        Err(Error::FpduptrOverflow)
    );
    assert!(out.iter().all(|&b| b == 0xEE));
    // Without markers it frames and deframes.
    let ulpdu: Vec<u8> = (0..MAX_ULPDU).map(|i| (i % 251) as u8).collect();
    let mut f = Framer::new(false, true);
    let n = f.write_fpdu(&ulpdu, &mut out).unwrap();
    assert_eq!(n, 65544);
    let (got, _) = deframe(&out[..n], DeframerConfig::new(false, true), 4096);
    assert_eq!(got, vec![(ulpdu.clone(), Status::Good)]);
    // The largest ULPDU that fits FPDUPTR with markers frames and deframes too.
    let mut largest = 0;
    for l in (60000..=MAX_ULPDU).rev() {
        if Framer::new(true, true)
            .write_fpdu(&ulpdu[..l], &mut out)
            .is_ok()
        {
            largest = l;
            break;
        }
    }
    assert!(largest > 64000);
    let n = Framer::new(true, true)
        .write_fpdu(&ulpdu[..largest], &mut out)
        .unwrap();
    let (got, _) = deframe(&out[..n], DeframerConfig::new(true, true), 4096);
    assert_eq!(got, vec![(ulpdu[..largest].to_vec(), Status::Good)]);
}

/// §5.4: the MULPDU table.
#[test]
fn mulpdu_table_5_4() {
    for (emss, with, without) in [
        (536, 522, 530),
        (1448, 1430, 1442),
        (1460, 1442, 1454),
        (8948, 8870, 8942),
        (8960, 8882, 8954),
    ] {
        assert_eq!(mulpdu(emss, true), with, "EMSS {emss} markers");
        assert_eq!(mulpdu(emss, false), without, "EMSS {emss}");
    }
    assert_eq!(mulpdu(4, true), 0);
    assert_eq!(mulpdu(0, false), 0);
    assert_eq!(MARKER_INTERVAL, 512);
}

/// §5.1–§5.3, §4.2: every single-bit flip in a small stream of FPDUs with CRC and markers on
/// is detected: the FPDU it hits is not delivered good and nothing after it is delivered. Every
/// marker is in a CRC span, so there is no exception: a flip in the marker before a header,
/// even in its RX-ignored bits (RESERVED, the two FPDUPTR LSBs), is BadCrc on the FPDU it begins.
#[test]
fn every_single_bit_flip_detected() {
    let ulpdus = vec![
        vec![0x11u8; 14],
        vec![0x22u8; 500],
        vec![],
        vec![0x33u8; 45],
    ];
    let start = 512 - 20;
    let mut framer = Framer {
        markers: true,
        crc: true,
        stream_offset: start,
    };
    let (stream, spans) = frame_all(&mut framer, &ulpdus);
    let config = DeframerConfig {
        stream_offset: start,
        ..DeframerConfig::new(true, true)
    };
    let good: Vec<_> = ulpdus.iter().map(|u| (u.clone(), Status::Good)).collect();
    let mut in_leading_markers = 0;
    for bit in 0..stream.len() * 8 {
        let byte = bit / 8;
        let mut s = stream.clone();
        s[byte] ^= 1 << (bit % 8);
        let k = spans.iter().position(|r| r.contains(&byte)).unwrap();
        let (got, _) = deframe(&s, config, 64);
        let leading = (start as usize + spans[k].start).is_multiple_of(512);
        if leading && byte < spans[k].start + 4 {
            in_leading_markers += 1;
            let mut want = good[..=k].to_vec();
            want[k].1 = Status::BadCrc;
            assert_eq!(got, want, "bit {bit}");
            continue;
        }
        assert!(
            got.len() <= k + 1,
            "bit {bit}: delivered past the corrupted FPDU"
        );
        assert_eq!(
            &got[..k.min(got.len())],
            &good[..k.min(got.len())],
            "bit {bit}"
        );
        if got.len() == k + 1 {
            assert_ne!(
                got[k].1,
                Status::Good,
                "bit {bit}: corrupted FPDU delivered good"
            );
        }
    }
    assert_eq!(in_leading_markers, 2 * 32, "two leading markers");
}
