//! Golden vectors for the DDP and RDMAP wire formats, byte-exact both ways (parse gives the
//! fields, emit gives the octets), plus the receive checks and their Terminate codes.
//!
//! Catalogs: `rfc5040-rdmap.md` §1.8, `rfc7306-atomics-immediate.md` §1.5 and §4.3,
//! `rdma-commit.md` §1.7, `mpa-peer-connect.md` §7 (V2..V6, the DDP part: FPDU octets after the
//! 2-octet ULPDU Length, without PAD and CRC).

use rnic_proto::ddp;
use rnic_proto::rdmap::{
    atomic, commit, terminate, AtomicOpcode, AtomicRequestRepr, AtomicResponseRepr,
    AtomicWriteRequestRepr, Body, DdpFields, Error, Extensions, FlushRequestRepr, HdrCt,
    ImmediateRepr, Layer, Message, Opcode, ReadRequestRepr, RemoteOperationCode,
    RemoteProtectionCode, TerminateCode, TerminatePacket, TerminateRepr, TerminatedDdpHeader,
    VerifyRequestRepr,
};

/// Hex octets; whitespace, `|` and `:`-terminated offset labels ("000:") are skipped.
fn hex(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for tok in s.split_whitespace() {
        if tok == "|" || tok.ends_with(':') {
            continue;
        }
        out.push(u8::from_str_radix(tok, 16).unwrap_or_else(|_| panic!("bad hex {tok:?}")));
    }
    out
}

fn parse(bytes: &[u8], ext: Extensions) -> Result<Message<'_>, Error> {
    Message::parse(&ddp::Packet::new_unchecked(bytes), ext)
}

fn emit(msg: &Message<'_>) -> Vec<u8> {
    let mut buf = vec![0xA5u8; msg.buffer_len()];
    msg.emit(&mut ddp::Packet::new_unchecked(&mut buf[..]))
        .expect("emit");
    buf
}

/// Parses `bytes` to `expected` and emits `expected` back to `bytes`.
fn golden(bytes: &[u8], expected: Message<'_>) {
    assert_eq!(parse(bytes, Extensions::ALL), Ok(expected), "parse");
    assert_eq!(expected.buffer_len(), bytes.len(), "buffer_len");
    assert_eq!(emit(&expected), bytes, "emit");
}

fn untagged(msn: u32) -> DdpFields {
    DdpFields::Untagged { msn, mo: 0 }
}

// ------------------------------------------------------------------------------------------------
// rfc5040-rdmap.md §1.8
// ------------------------------------------------------------------------------------------------

/// `rfc5040-rdmap.md` §1.8: RDMA Write, last, STag 0x12345678, TO 0x1000, 8-octet payload (22 B).
#[test]
fn rfc5040_rdma_write() {
    let bytes = hex("c1 40 12 34 56 78 00 00 00 00 00 00 10 00 | 00 01 02 03 04 05 06 07");
    let payload = [0u8, 1, 2, 3, 4, 5, 6, 7];
    golden(
        &bytes,
        Message {
            last: true,
            ddp: DdpFields::Tagged {
                stag: 0x1234_5678,
                to: 0x1000,
            },
            body: Body::RdmaWrite { payload: &payload },
        },
    );
    // The DDP view gives the same fields.
    let p = ddp::Packet::new_checked(&bytes[..]).unwrap();
    assert!(p.tagged() && p.last());
    assert_eq!(p.ddp_version(), ddp::DDP_VERSION);
    assert_eq!(p.ulp_ctrl(), Opcode::RdmaWrite.control());
    assert_eq!((p.stag(), p.to()), (0x1234_5678, 0x1000));
    assert_eq!(p.payload(), &payload);
}

/// `rfc5040-rdmap.md` §1.8: Send with SE and Invalidate, InvStag 0xAABBCCDD, QN 0, MSN 1, MO 0.
#[test]
fn rfc5040_send_se_invalidate() {
    let bytes = hex("41 46 aa bb cc dd 00 00 00 00 00 00 00 01 00 00 00 00");
    golden(
        &bytes,
        Message {
            last: true,
            ddp: untagged(1),
            body: Body::SendSeInvalidate {
                invalidate_stag: 0xAABB_CCDD,
                payload: &[],
            },
        },
    );
    let p = ddp::Packet::new_checked(&bytes[..]).unwrap();
    assert_eq!(p.rsvd_ulp(), 0xAABB_CCDD);
    assert_eq!((p.qn(), p.msn(), p.mo()), (ddp::QN_SEND, 1, 0));
}

fn rfc5040_read_request() -> ReadRequestRepr {
    ReadRequestRepr {
        sink_stag: 0x1122_3344,
        sink_to: 0x2000,
        read_size: 4096,
        src_stag: 0x5566_7788,
        src_to: 0x8000,
    }
}

const RFC5040_RRQ: &str = "41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00 | 11 22 33 44 | \
     00 00 00 00 00 00 20 00 | 00 00 10 00 | 55 66 77 88 | 00 00 00 00 00 00 80 00";

/// `rfc5040-rdmap.md` §1.8: RDMA Read Request, QN 1, MSN 1 (46 B).
#[test]
fn rfc5040_read_request_vector() {
    let bytes = hex(RFC5040_RRQ);
    assert_eq!(bytes.len(), 46);
    golden(
        &bytes,
        Message {
            last: true,
            ddp: untagged(1),
            body: Body::RdmaReadRequest(rfc5040_read_request()),
        },
    );
}

/// `rfc5040-rdmap.md` §1.8: Terminate for that Read Request, RDMAP / Remote Protection / Invalid
/// STag, M = D = R = 1, segment length 0x2e, both headers copied (70 B).
#[test]
fn rfc5040_terminate_for_read_request() {
    let bytes = hex(
        "41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 | 01 00 e0 00 | 00 2e | \
         41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00 | \
         11 22 33 44 00 00 00 00 00 00 20 00 00 00 10 00 55 66 77 88 00 00 00 00 00 00 80 00",
    );
    assert_eq!(bytes.len(), 70);
    let rrq = hex(RFC5040_RRQ);
    let code = TerminateCode::RdmapRemoteProtection(RemoteProtectionCode::InvalidStag);
    let term = TerminateRepr::new(code)
        .with_segment(&rrq)
        .unwrap()
        .with_rdma_header(rfc5040_read_request());
    assert_eq!(term.ddp_segment_length, 0x2e);
    assert_eq!(term.hdrct(), code.header_control(true));
    golden(
        &bytes,
        Message {
            last: true,
            ddp: untagged(1),
            body: Body::Terminate(term),
        },
    );
    // The view's accessors.
    let t = TerminatePacket::new_checked(&bytes[ddp::UNTAGGED_HEADER_LEN..]).unwrap();
    assert_eq!(t.control_word(), 0x0100_E000);
    assert_eq!((t.layer(), t.error_type(), t.error_code()), (0, 1, 0));
    assert_eq!(t.code(), code);
    assert_eq!(t.ddp_segment_length(), Some(0x2e));
    assert_eq!(t.terminated_ddp_header(), Some(&rrq[..18]));
    assert_eq!(t.terminated_rdma_header(), Some(&rrq[18..]));
    assert_eq!(t.header_len(), terminate::MAX_HEADER_LEN);
    // The copied DDP header parses as the Read Request's DDP header.
    let copied = term.ddp_header.unwrap();
    assert!(!copied.is_tagged());
    assert_eq!(
        copied.repr().unwrap(),
        parse(&rrq, Extensions::NONE).unwrap().ddp_repr()
    );
}

/// `rfc5040-rdmap.md` §1.8 "Other Terminate control words", with the HdrCt bits each class
/// carries (§5.2).
#[test]
fn rfc5040_terminate_control_words() {
    let cases: [(TerminateCode, HdrCt, u32); 4] = [
        (
            TerminateCode::DdpTaggedBuffer(ddp::TaggedBufferCode::InvalidStag),
            HdrCt {
                m: true,
                d: true,
                r: false,
            },
            0x1100_C000,
        ),
        (
            TerminateCode::DdpUntaggedBuffer(ddp::UntaggedBufferCode::MessageTooLong),
            HdrCt {
                m: true,
                d: true,
                r: false,
            },
            0x1205_C000,
        ),
        (
            TerminateCode::RdmapRemoteOperation(RemoteOperationCode::UnexpectedOpcode),
            HdrCt::default(),
            0x0206_0000,
        ),
        (
            TerminateCode::RdmapLocalCatastrophic(terminate::LOCAL_CATASTROPHIC_TX_CODE),
            HdrCt::default(),
            0x00FF_0000,
        ),
    ];
    for (code, hdrct, word) in cases {
        assert_eq!(code.header_control(false), hdrct, "{code:?}");
        let mut buf = [0u8; 4];
        let mut p = TerminatePacket::new_unchecked(&mut buf[..]);
        p.set_code(code);
        p.set_hdrct(hdrct);
        assert_eq!(u32::from_be_bytes(buf), word, "{code:?}");
        let p = TerminatePacket::new_unchecked(&buf[..]);
        assert_eq!(p.code(), code);
        assert_eq!(p.hdrct(), hdrct);
        let raw = (code.layer(), code.error_type(), code.error_code());
        assert_eq!(TerminateCode::from_raw(raw.0, raw.1, raw.2), code);
    }
}

/// `rfc5040-rdmap.md` §1.2: the control words of every RFC 5040 message, L = 1 and L = 0.
#[test]
fn rfc5040_control_words() {
    let table: [(Opcode, u16, u16); 8] = [
        (Opcode::RdmaWrite, 0xC140, 0x8140),
        (Opcode::RdmaReadRequest, 0x4141, 0x0141),
        (Opcode::RdmaReadResponse, 0xC142, 0x8142),
        (Opcode::Send, 0x4143, 0x0143),
        (Opcode::SendInvalidate, 0x4144, 0x0144),
        (Opcode::SendSe, 0x4145, 0x0145),
        (Opcode::SendSeInvalidate, 0x4146, 0x0146),
        (Opcode::Terminate, 0x4147, 0x0147),
    ];
    for (op, last, not_last) in table {
        for (l, word) in [(true, last), (false, not_last)] {
            let model = if op.is_tagged() {
                ddp::Model::Tagged { stag: 0, to: 0 }
            } else {
                ddp::Model::Untagged {
                    rsvd_ulp: 0,
                    qn: op.queue_number().unwrap(),
                    msn: 1,
                    mo: 0,
                }
            };
            let repr = ddp::Repr {
                last: l,
                ulp_ctrl: op.control(),
                model,
            };
            let mut buf = [0u8; ddp::UNTAGGED_HEADER_LEN];
            repr.emit(&mut ddp::Packet::new_unchecked(&mut buf[..]))
                .unwrap();
            assert_eq!(u16::from_be_bytes([buf[0], buf[1]]), word, "{op:?} L={l}");
        }
    }
}

/// `rfc5040-rdmap.md` §1.6: a Read terminated after 2048 octets reports SinkTO + 2048,
/// SrcTO + 2048 and the octets still left.
#[test]
fn rfc5040_terminated_rdma_header_progress() {
    let p = rfc5040_read_request().progressed(2048);
    assert_eq!(p.sink_stag, 0x1122_3344);
    assert_eq!(p.sink_to, 0x2000 + 2048);
    assert_eq!(p.read_size, 4096 - 2048);
    assert_eq!(p.src_stag, 0x5566_7788);
    assert_eq!(p.src_to, 0x8000 + 2048);
}

// ------------------------------------------------------------------------------------------------
// rfc7306-atomics-immediate.md §1.5, §4.3
// ------------------------------------------------------------------------------------------------

/// `rfc7306-atomics-immediate.md` §1.5: CmpSwap request, MSN(QN1) 1, ReqId 1 (70 B).
#[test]
fn rfc7306_cmp_swap_request() {
    let bytes = hex("000: 41 4A 00 00 00 00 00 00 00 01 00 00 00 01 00 00
         016: 00 00 00 00 00 02 00 00 00 01 00 00 12 34 00 00
         032: 00 00 00 00 10 00 AA AA BB BB CC CC DD DD 00 00
         048: 00 00 FF FF FF FF 12 34 00 00 00 00 00 00 FF FF
         064: 00 00 00 00 00 00");
    assert_eq!(bytes.len(), 70);
    let req = AtomicRequestRepr::cmp_swap(
        1,
        0x1234,
        0x1000,
        0xAAAA_BBBB_CCCC_DDDD,
        0x0000_0000_FFFF_FFFF,
        0x1234_0000_0000_0000,
        0xFFFF_0000_0000_0000,
    );
    golden(
        &bytes,
        Message {
            last: true,
            ddp: untagged(1),
            body: Body::AtomicRequest(req),
        },
    );
    let p = atomic::RequestPacket::new_checked(&bytes[18..]).unwrap();
    assert_eq!(p.aopcode(), AtomicOpcode::CmpSwap as u8);
    assert_eq!(p.reserved(), 0);
}

/// `rfc7306-atomics-immediate.md` §1.5: its Atomic Response, MSN(QN3) 1 (30 B).
#[test]
fn rfc7306_atomic_response() {
    let bytes = hex("000: 41 4B 00 00 00 00 00 00 00 03 00 00 00 01 00 00
         016: 00 00 00 00 00 01 12 34 56 78 9A BC DE F0");
    assert_eq!(bytes.len(), 30);
    golden(
        &bytes,
        Message {
            last: true,
            ddp: untagged(1),
            body: Body::AtomicResponse(AtomicResponseRepr {
                request_id: 1,
                original_value: 0x1234_5678_9ABC_DEF0,
            }),
        },
    );
}

/// `rfc7306-atomics-immediate.md` §1.5: FetchAdd request, MSN(QN1) 2, two 32-bit lanes (70 B).
#[test]
fn rfc7306_fetch_add_request() {
    let bytes = hex("000: 41 4A 00 00 00 00 00 00 00 01 00 00 00 02 00 00
         016: 00 00 00 00 00 00 00 00 00 02 00 00 12 34 00 00
         032: 00 00 00 00 10 08 00 00 00 01 00 00 00 01 80 00
         048: 00 00 80 00 00 00 00 00 00 00 00 00 00 00 FF FF
         064: FF FF FF FF FF FF");
    let req = AtomicRequestRepr::fetch_add(
        2,
        0x1234,
        0x1008,
        0x0000_0001_0000_0001,
        0x8000_0000_8000_0000,
    );
    assert_eq!(req.compare_data, atomic::FETCH_ADD_COMPARE_DATA);
    assert_eq!(req.compare_mask, atomic::FETCH_ADD_COMPARE_MASK);
    golden(
        &bytes,
        Message {
            last: true,
            ddp: untagged(2),
            body: Body::AtomicRequest(req),
        },
    );
}

/// `rfc7306-atomics-immediate.md` §1.5: Immediate Data, MSN(QN0) 1 (26 B); and the same with SE
/// (opcode 0x9, `rfc7306-atomics-immediate.md` §1.1).
#[test]
fn rfc7306_immediate_data() {
    let bytes = hex("000: 41 48 00 00 00 00 00 00 00 00 00 00 00 01 00 00
         016: 00 00 01 02 03 04 05 06 07 08");
    let imm = ImmediateRepr {
        data: [1, 2, 3, 4, 5, 6, 7, 8],
    };
    golden(
        &bytes,
        Message {
            last: true,
            ddp: untagged(1),
            body: Body::ImmediateData(imm),
        },
    );
    let mut se = bytes.clone();
    se[1] = 0x49;
    golden(
        &se,
        Message {
            last: true,
            ddp: untagged(1),
            body: Body::ImmediateDataSe(imm),
        },
    );
}

/// `rfc7306-atomics-immediate.md` §4.3: Terminate for a misaligned Atomic Request (MSN 3),
/// 0/2/0x07 with M = D = 1, segment length 0x46, sent as QN 2 MSN 1 (42 B).
#[test]
fn rfc7306_terminate_misaligned_atomic() {
    let bytes = hex("000: 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00
         016: 00 00 02 07 C0 00 00 46 41 4A 00 00 00 00 00 00
         032: 00 01 00 00 00 03 00 00 00 00");
    assert_eq!(bytes.len(), 42);
    let code = TerminateCode::RdmapRemoteOperation(RemoteOperationCode::CatastrophicStream);
    let offending = ddp::Repr {
        last: true,
        ulp_ctrl: Opcode::AtomicRequest.control(),
        model: ddp::Model::Untagged {
            rsvd_ulp: 0,
            qn: ddp::QN_READ_REQUEST,
            msn: 3,
            mo: 0,
        },
    };
    let term = TerminateRepr {
        code,
        m: true,
        r: false,
        ddp_segment_length: 0x46,
        ddp_header: Some(TerminatedDdpHeader::from_repr(&offending)),
        rdma_header: None,
    };
    assert_eq!(term.hdrct(), code.header_control(false));
    golden(
        &bytes,
        Message {
            last: true,
            ddp: untagged(1),
            body: Body::Terminate(term),
        },
    );
}

// ------------------------------------------------------------------------------------------------
// rdma-commit.md §1.7
// ------------------------------------------------------------------------------------------------

/// `rdma-commit.md` §1.7: Flush Request, QN 1 MSN 4, STag 0x5678, Len 0x10000, TO 0, flag P
/// (38 B; MO present, P-3).
#[test]
fn commit_flush_request() {
    let bytes = hex("000: 41 4C 00 00 00 00 00 00 00 01 00 00 00 04 00 00
         016: 00 00 00 00 56 78 00 01 00 00 00 00 00 00 00 00
         032: 00 00 00 00 00 01");
    let flush = FlushRequestRepr {
        stag: 0x5678,
        length: 0x1_0000,
        to: 0,
        flags: commit::FLUSH_PERSISTENCE,
    };
    assert!(flush.persistence() && !flush.global_visibility());
    golden(
        &bytes,
        Message {
            last: true,
            ddp: untagged(4),
            body: Body::FlushRequest(flush),
        },
    );
}

/// `rdma-commit.md` §1.7: Flush Response, QN 3 MSN 2 (18 B).
#[test]
fn commit_flush_response() {
    let bytes = hex("41 4D 00 00 00 00 00 00 00 03 00 00 00 02 00 00 00 00");
    golden(
        &bytes,
        Message {
            last: true,
            ddp: untagged(2),
            body: Body::FlushResponse,
        },
    );
}

/// `rdma-commit.md` §1.7: Verify Request, QN 1 MSN 5, STag 0x5678, Len 0x1000, TO 0, H = 4
/// (expected DEADBEEF) (38 B).
#[test]
fn commit_verify_request() {
    let bytes = hex("000: 41 4E 00 00 00 00 00 00 00 01 00 00 00 05 00 00
         016: 00 00 00 00 56 78 00 00 10 00 00 00 00 00 00 00
         032: 00 00 DE AD BE EF");
    let hash = [0xDE, 0xAD, 0xBE, 0xEF];
    let v = VerifyRequestRepr {
        stag: 0x5678,
        length: 0x1000,
        to: 0,
        hash: &hash,
    };
    assert!(v.compare());
    golden(
        &bytes,
        Message {
            last: true,
            ddp: untagged(5),
            body: Body::VerifyRequest(v),
        },
    );
}

/// `rdma-commit.md` §1.7: Verify Response, QN 3 MSN 3, hash DEADBEEF (22 B).
#[test]
fn commit_verify_response() {
    let bytes = hex("41 4F 00 00 00 00 00 00 00 03 00 00 00 03 00 00 00 00 DE AD BE EF");
    golden(
        &bytes,
        Message {
            last: true,
            ddp: untagged(3),
            body: Body::VerifyResponse {
                hash: &[0xDE, 0xAD, 0xBE, 0xEF],
            },
        },
    );
}

/// `rdma-commit.md` §1.7: Atomic Write Request, QN 1 MSN 6, STag 0x5678, Len 8, TO 0x40, Data
/// 0102030405060708; 5-bit opcode 0x10 in control octet 0x50 (42 B).
#[test]
fn commit_atomic_write_request() {
    let bytes = hex("000: 41 50 00 00 00 00 00 00 00 01 00 00 00 06 00 00
         016: 00 00 00 00 56 78 00 00 00 08 00 00 00 00 00 00
         032: 00 40 01 02 03 04 05 06 07 08");
    golden(
        &bytes,
        Message {
            last: true,
            ddp: untagged(6),
            body: Body::AtomicWriteRequest(AtomicWriteRequestRepr {
                stag: 0x5678,
                to: 0x40,
                data: 0x0102_0304_0506_0708,
            }),
        },
    );
    let p = commit::AtomicWriteRequestPacket::new_checked(&bytes[18..]).unwrap();
    assert_eq!(p.length(), commit::ATOMIC_WRITE_LENGTH);
}

/// `rdma-commit.md` §1.7: Atomic Write Response, QN 3 MSN 4 (18 B; opcode 0x11, P-4).
#[test]
fn commit_atomic_write_response() {
    let bytes = hex("41 51 00 00 00 00 00 00 00 03 00 00 00 04 00 00 00 00");
    golden(
        &bytes,
        Message {
            last: true,
            ddp: untagged(4),
            body: Body::AtomicWriteResponse,
        },
    );
}

/// `rdma-commit.md` §1.8 P-1 and `DESIGN.md`: the 5-bit opcodes exist only on QPs with the
/// commit extension. Without it 0x50 is an RDMA Write (Rsv ignored) in an untagged header, and
/// 0x4C is a reserved opcode.
#[test]
fn commit_opcodes_need_the_extension() {
    let aw = hex("41 50 00 00 00 00 00 00 00 01 00 00 00 06 00 00 00 00");
    let e = parse(&aw, Extensions::RFC7306).unwrap_err();
    assert_eq!(e, Error::WrongModel(Opcode::RdmaWrite));
    let fl = hex("41 4D 00 00 00 00 00 00 00 03 00 00 00 02 00 00 00 00");
    assert_eq!(
        parse(&fl, Extensions::RFC7306),
        Err(Error::UnknownOpcode(0xD))
    );
    // QN 3 itself is invalid with no extension at all (DDP 1/2/0x01).
    assert_eq!(
        parse(&fl, Extensions::NONE),
        Err(Error::Ddp(ddp::Error::InvalidQn(3)))
    );
}

/// `rdma-commit.md` §1 ("Invalidate STag: optional") and §11 Q-12: the commit requests are sent
/// with RsvdULP 0 and a non-zero value is ignored on receive (`docs/decisions.md`).
#[test]
fn commit_invalidate_stag_ignored() {
    let bytes = hex("000: 41 4C 00 00 00 00 00 00 00 01 00 00 00 04 00 00
         016: 00 00 00 00 56 78 00 01 00 00 00 00 00 00 00 00
         032: 00 00 00 00 00 01");
    let mut with_stag = bytes.clone();
    with_stag[2..6].copy_from_slice(&[0x12, 0x34, 0x56, 0x78]);
    let msg = parse(&with_stag, Extensions::ALL).unwrap();
    assert_eq!(msg, parse(&bytes, Extensions::ALL).unwrap());
    assert_eq!(emit(&msg), bytes);
}

// ------------------------------------------------------------------------------------------------
// mpa-peer-connect.md §7 (FPDU = ULPDU_Length ‖ DDP segment ‖ PAD ‖ CRC; CRC left to MPA)
// ------------------------------------------------------------------------------------------------

/// Splits `ULPDU_Length ‖ segment` and checks the length field against the segment.
fn fpdu_segment(fpdu_without_crc: &[u8]) -> &[u8] {
    let len = u16::from_be_bytes([fpdu_without_crc[0], fpdu_without_crc[1]]) as usize;
    let seg = &fpdu_without_crc[2..];
    assert_eq!(seg.len(), len, "ULPDU_Length (PAD is 0 in these vectors)");
    seg
}

/// `mpa-peer-connect.md` §7 V2: zero-length RDMA Write RTR, STag 1, TO 0.
#[test]
fn mpa_v2_zero_length_write_rtr() {
    let fpdu = hex("00 0e c1 40 00 00 00 01 00 00 00 00 00 00 00 00");
    golden(
        fpdu_segment(&fpdu),
        Message {
            last: true,
            ddp: DdpFields::Tagged { stag: 1, to: 0 },
            body: Body::RdmaWrite { payload: &[] },
        },
    );
}

/// `mpa-peer-connect.md` §7 V3: zero-length RDMA Read Request RTR, QN 1 MSN 1, SinkSTag 1,
/// SinkTO 0, size 0, SrcSTag 1, SrcTO 0.
#[test]
fn mpa_v3_zero_length_read_rtr() {
    let fpdu = hex(
        "00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00
         00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00",
    );
    golden(
        fpdu_segment(&fpdu),
        Message {
            last: true,
            ddp: untagged(ddp::MSN_INITIAL),
            body: Body::RdmaReadRequest(ReadRequestRepr {
                sink_stag: 1,
                sink_to: 0,
                read_size: 0,
                src_stag: 1,
                src_to: 0,
            }),
        },
    );
}

/// `mpa-peer-connect.md` §7 V4: zero-length Read Response to V3 (STag = Sink STag, TO = Sink TO).
#[test]
fn mpa_v4_zero_length_read_response() {
    let fpdu = hex("00 0e c1 42 00 00 00 01 00 00 00 00 00 00 00 00");
    golden(
        fpdu_segment(&fpdu),
        Message {
            last: true,
            ddp: DdpFields::Tagged { stag: 1, to: 0 },
            body: Body::RdmaReadResponse { payload: &[] },
        },
    );
}

/// `mpa-peer-connect.md` §7 V5 (Layer 2 / EType 3, the spec) and V6 (EType 0, siw/Wireshark):
/// Terminate QN 2 MSN 1, HdrCt 000, codes 5, 6, 7 (22-octet segments).
#[test]
fn mpa_v5_v6_llp_terminates() {
    for etype in [3u8, 0] {
        for code in [5u8, 6, 7] {
            let mut fpdu =
                hex("00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 23 CC 00 00");
            fpdu[20] = (Layer::Llp as u8) << 4 | etype;
            fpdu[21] = code;
            let tc = TerminateCode::Llp {
                error_type: etype,
                error_code: code,
            };
            assert_eq!(tc.header_control(false), HdrCt::default());
            golden(
                fpdu_segment(&fpdu),
                Message {
                    last: true,
                    ddp: untagged(1),
                    body: Body::Terminate(TerminateRepr::new(tc)),
                },
            );
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Receive checks and their Terminate codes (rfc5040-rdmap.md §5.4, rfc7306 §4.3, rdma-commit §6)
// ------------------------------------------------------------------------------------------------

fn code_of(bytes: &[u8], ext: Extensions) -> (Error, Option<(u8, u8, u8)>) {
    let e = parse(bytes, ext).expect_err("must be rejected");
    let c = e
        .terminate_code()
        .map(|c| (c.layer(), c.error_type(), c.error_code()));
    (e, c)
}

/// `rfc5040-rdmap.md` §5.4 table and `mpa-peer-connect.md` §6.1, §6.3: each malformed header
/// gives one error and the Terminate triple the catalog names.
#[test]
fn receive_checks_map_to_terminate_codes() {
    let send = hex("41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 61 62");
    let rrq = hex(RFC5040_RRQ);
    let write = hex("c1 40 12 34 56 78 00 00 00 00 00 00 10 00");

    // RV = 00b: 0/2/0x05.
    let mut b = send.clone();
    b[1] = 0x03;
    assert_eq!(
        code_of(&b, Extensions::ALL),
        (Error::BadRdmapVersion(0), Some((0, 2, 0x05)))
    );
    // Reserved opcode / extension not enabled: 0/2/0x06.
    let mut b = send.clone();
    b[1] = 0x48;
    assert_eq!(
        code_of(&b, Extensions::NONE),
        (Error::UnknownOpcode(8), Some((0, 2, 0x06)))
    );
    // Send in a tagged header: 0/2/0x06.
    let mut b = write.clone();
    b[1] = 0x43;
    assert_eq!(
        code_of(&b, Extensions::ALL),
        (Error::WrongModel(Opcode::Send), Some((0, 2, 0x06)))
    );
    // Read Request on QN 0: 0/2/0x06.
    let mut b = rrq.clone();
    b[9] = 0;
    assert_eq!(
        code_of(&b, Extensions::ALL),
        (
            Error::WrongQn {
                opcode: Opcode::RdmaReadRequest,
                qn: 0
            },
            Some((0, 2, 0x06))
        )
    );
    // QN 7: DDP 1/2/0x01.
    let mut b = send.clone();
    b[9] = 7;
    assert_eq!(
        code_of(&b, Extensions::ALL),
        (Error::Ddp(ddp::Error::InvalidQn(7)), Some((1, 2, 0x01)))
    );
    // DV = 00b: tagged 1/1/0x04, untagged 1/2/0x06.
    let mut b = write.clone();
    b[0] = 0xC0;
    assert_eq!(
        code_of(&b, Extensions::ALL),
        (
            Error::Ddp(ddp::Error::BadDdpVersion {
                tagged: true,
                version: 0
            }),
            Some((1, 1, 0x04))
        )
    );
    let mut b = send.clone();
    b[0] = 0x42;
    assert_eq!(
        code_of(&b, Extensions::ALL),
        (
            Error::Ddp(ddp::Error::BadDdpVersion {
                tagged: false,
                version: 2
            }),
            Some((1, 2, 0x06))
        )
    );
    // Truncated DDP header: 0/2/0xFF (docs/decisions.md).
    assert_eq!(
        code_of(&write[..13], Extensions::ALL),
        (Error::Ddp(ddp::Error::Truncated), Some((0, 2, 0xFF)))
    );
    assert_eq!(
        code_of(&[], Extensions::ALL),
        (Error::Ddp(ddp::Error::Truncated), Some((0, 2, 0xFF)))
    );
    // Read Request split over segments: 1/2/0x04 (Invalid MO); too long or short: 0/2/0xFF.
    let mut b = rrq.clone();
    b[0] = 0x01;
    assert_eq!(
        code_of(&b, Extensions::ALL),
        (
            Error::Segmented(Opcode::RdmaReadRequest),
            Some((1, 2, 0x04))
        )
    );
    let mut b = rrq.clone();
    b.push(0);
    assert_eq!(
        code_of(&b, Extensions::ALL),
        (
            Error::BadLength {
                opcode: Opcode::RdmaReadRequest,
                len: 29
            },
            Some((0, 2, 0xFF))
        )
    );
    assert_eq!(
        code_of(&rrq[..45], Extensions::ALL),
        (
            Error::Truncated(Opcode::RdmaReadRequest),
            Some((0, 2, 0xFF))
        )
    );
}

/// `rfc7306-atomics-immediate.md` §4.3 T-5, T-7 and `rdma-commit.md` §6 CT-10, CT-11.
#[test]
fn extension_checks_map_to_terminate_codes() {
    // Immediate Data of 9 octets: 0/2/0x07 (T-7).
    let mut imm =
        hex("41 48 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 01 02 03 04 05 06 07 08");
    imm.push(9);
    assert_eq!(
        code_of(&imm, Extensions::ALL),
        (
            Error::BadLength {
                opcode: Opcode::ImmediateData,
                len: 9
            },
            Some((0, 2, 0x07))
        )
    );
    // AOpCode 1 (the former Swap): 0/2/0x06 (T-5).
    let mut req = vec![0u8; 70];
    req[..18].copy_from_slice(&hex(
        "41 4A 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00",
    ));
    req[21] = 0x01;
    assert_eq!(
        code_of(&req, Extensions::ALL),
        (Error::UnknownAtomicOpcode(1), Some((0, 2, 0x06)))
    );
    // AOpCode reserved bits are ignored.
    req[21] = 0x00;
    req[18] = 0xFF;
    assert!(matches!(
        parse(&req, Extensions::ALL).unwrap().body,
        Body::AtomicRequest(AtomicRequestRepr {
            op: AtomicOpcode::FetchAdd,
            ..
        })
    ));
    // Flush with neither P nor G: 0/2/0xFF (CT-11); undefined flag bits alone do not count.
    let mut flush = hex(
        "41 4C 00 00 00 00 00 00 00 01 00 00 00 04 00 00 00 00 00 00 56 78 00 01 00 00 \
         00 00 00 00 00 00 00 00 00 00 00 04",
    );
    assert_eq!(
        code_of(&flush, Extensions::ALL),
        (Error::InvalidFlushFlags(4), Some((0, 2, 0xFF)))
    );
    flush[37] = 0x06;
    assert!(parse(&flush, Extensions::ALL).is_ok());
    // Atomic Write with Data Sink Length 7: 0/2/0x07 (CT-10).
    let mut aw = hex(
        "41 50 00 00 00 00 00 00 00 01 00 00 00 06 00 00 00 00 00 00 56 78 00 00 00 08 \
         00 00 00 00 00 00 00 40 01 02 03 04 05 06 07 08",
    );
    aw[25] = 7;
    assert_eq!(
        code_of(&aw, Extensions::ALL),
        (Error::BadAtomicWriteLength(7), Some((0, 2, 0x07)))
    );
    // Flush Response with a payload: 0/2/0xFF.
    let resp = hex("41 4D 00 00 00 00 00 00 00 03 00 00 00 02 00 00 00 00 00");
    assert_eq!(
        code_of(&resp, Extensions::ALL),
        (
            Error::BadLength {
                opcode: Opcode::FlushResponse,
                len: 1
            },
            Some((0, 2, 0xFF))
        )
    );
}

/// `rfc5040-rdmap.md` §1.2, §1.6, `mpa-peer-connect.md` §6.1: fields "not checked on receive"
/// are ignored, and a received Terminate is parsed leniently.
#[test]
fn lenient_receive() {
    // DDP Rsvd, RDMAP Rsv and the Invalidate STag of a plain Send are ignored; emit writes 0.
    let odd = hex("7D 73 de ad be ef 00 00 00 00 00 00 00 01 00 00 00 00 61");
    let msg = parse(&odd, Extensions::RFC7306).unwrap();
    assert_eq!(
        msg,
        Message {
            last: true,
            ddp: untagged(1),
            body: Body::Send { payload: b"a" },
        }
    );
    assert_eq!(
        emit(&msg),
        hex("41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 61")
    );

    // R = 1 with only the DDP header (siw style), reserved bits set, trailing zero fill.
    let send_inv = hex("41 44 00 00 00 05 00 00 00 00 00 00 00 01 00 00 00 00");
    let mut term = hex("41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 01 09 FF FF 00 12");
    term.extend_from_slice(&send_inv);
    term.extend_from_slice(&[0, 0, 0]);
    let Body::Terminate(t) = parse(&term, Extensions::NONE).unwrap().body else {
        panic!("not a Terminate");
    };
    assert_eq!(
        t.code,
        TerminateCode::RdmapRemoteProtection(RemoteProtectionCode::StagCannotBeInvalidated)
    );
    assert!(t.m && t.r);
    assert_eq!(t.ddp_segment_length, 0x12);
    assert_eq!(t.ddp_header.unwrap().as_bytes(), &send_inv[..]);
    assert_eq!(t.rdma_header, None);

    // M = D = R = 0 followed by zeroed "absent" fields (§7.1 "set to zero").
    let mut zeroed = hex("41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 00 07 00 00");
    zeroed.extend_from_slice(&[0; 48]);
    let Body::Terminate(t) = parse(&zeroed, Extensions::NONE).unwrap().body else {
        panic!("not a Terminate");
    };
    assert_eq!(
        t,
        TerminateRepr::new(TerminateCode::RdmapLocalCatastrophic(7))
    );

    // D = 1 without the DDP header: truncated, and never answered with a Terminate.
    let short = hex("41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 10 00 40 00 00 12 41");
    let e = parse(&short, Extensions::NONE).unwrap_err();
    assert_eq!(e, Error::Truncated(Opcode::Terminate));
    assert_eq!(e.terminate_code(), None);
}

/// `rfc5040-rdmap.md` §1.3, `rfc7306-atomics-immediate.md` §0, `rdma-commit.md` §0: T flag, QN
/// and control octet of every opcode.
#[test]
fn opcode_table() {
    use ddp::{QN_ATOMIC_RESPONSE as Q3, QN_READ_REQUEST as Q1, QN_SEND as Q0, QN_TERMINATE as Q2};
    let table: [(Opcode, u8, Option<u32>); 18] = [
        (Opcode::RdmaWrite, 0x40, None),
        (Opcode::RdmaReadRequest, 0x41, Some(Q1)),
        (Opcode::RdmaReadResponse, 0x42, None),
        (Opcode::Send, 0x43, Some(Q0)),
        (Opcode::SendInvalidate, 0x44, Some(Q0)),
        (Opcode::SendSe, 0x45, Some(Q0)),
        (Opcode::SendSeInvalidate, 0x46, Some(Q0)),
        (Opcode::Terminate, 0x47, Some(Q2)),
        (Opcode::ImmediateData, 0x48, Some(Q0)),
        (Opcode::ImmediateDataSe, 0x49, Some(Q0)),
        (Opcode::AtomicRequest, 0x4A, Some(Q1)),
        (Opcode::AtomicResponse, 0x4B, Some(Q3)),
        (Opcode::FlushRequest, 0x4C, Some(Q1)),
        (Opcode::FlushResponse, 0x4D, Some(Q3)),
        (Opcode::VerifyRequest, 0x4E, Some(Q1)),
        (Opcode::VerifyResponse, 0x4F, Some(Q3)),
        (Opcode::AtomicWriteRequest, 0x50, Some(Q1)),
        (Opcode::AtomicWriteResponse, 0x51, Some(Q3)),
    ];
    assert_eq!(table.map(|t| t.0), Opcode::ALL);
    for (op, ctrl, qn) in table {
        assert_eq!(op.control(), ctrl, "{op:?}");
        assert_eq!(op.queue_number(), qn, "{op:?}");
        assert_eq!(op.is_tagged(), qn.is_none(), "{op:?}");
    }
}
