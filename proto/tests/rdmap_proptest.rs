//! Property tests for the DDP and RDMAP wire formats: emit-then-parse is the identity for every
//! header type and for the whole-segment [`Message`]; parse never panics, whatever the octets.
//!
//! Catalogs: `mpa-peer-connect.md` §6 (DDP), `rfc5040-rdmap.md` §1 (RDMAP headers),
//! `rfc7306-atomics-immediate.md` §1, `rdma-commit.md` §1.

use proptest::prelude::*;
use rnic_proto::ddp;
use rnic_proto::rdmap::{
    atomic, commit, immediate, read_request, terminate, AtomicOpcode, AtomicRequestRepr,
    AtomicResponseRepr, AtomicWriteRequestRepr, Body, DdpFields, Extensions, FlushRequestRepr,
    ImmediateRepr, Message, Opcode, ReadRequestRepr, TerminateCode, TerminateRepr,
    TerminatedDdpHeader, VerifyRequestRepr,
};

const EXTS: [Extensions; 4] = [
    Extensions::NONE,
    Extensions::RFC7306,
    Extensions {
        atomics_immediate: false,
        commit: true,
    },
    Extensions::ALL,
];

// ---------------------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------------------

fn arb_ddp_repr() -> impl Strategy<Value = ddp::Repr> {
    let model = prop_oneof![
        (any::<u32>(), any::<u64>()).prop_map(|(stag, to)| ddp::Model::Tagged { stag, to }),
        (any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>()).prop_map(
            |(rsvd_ulp, qn, msn, mo)| ddp::Model::Untagged {
                rsvd_ulp,
                qn,
                msn,
                mo
            }
        ),
    ];
    (any::<bool>(), any::<u8>(), model).prop_map(|(last, ulp_ctrl, model)| ddp::Repr {
        last,
        ulp_ctrl,
        model,
    })
}

fn arb_read_request() -> impl Strategy<Value = ReadRequestRepr> {
    (
        any::<u32>(),
        any::<u64>(),
        any::<u32>(),
        any::<u32>(),
        any::<u64>(),
    )
        .prop_map(
            |(sink_stag, sink_to, read_size, src_stag, src_to)| ReadRequestRepr {
                sink_stag,
                sink_to,
                read_size,
                src_stag,
                src_to,
            },
        )
}

fn arb_terminated_ddp_header() -> impl Strategy<Value = TerminatedDdpHeader> {
    (any::<bool>(), any::<[u8; ddp::UNTAGGED_HEADER_LEN]>()).prop_map(|(tagged, mut b)| {
        if tagged {
            b[0] |= ddp::T_FLAG;
        } else {
            b[0] &= !ddp::T_FLAG;
        }
        TerminatedDdpHeader::from_bytes(&b).unwrap()
    })
}

fn arb_terminate_code() -> impl Strategy<Value = TerminateCode> {
    (0u8..16, 0u8..16, any::<u8>()).prop_map(|(l, t, c)| TerminateCode::from_raw(l, t, c))
}

fn arb_terminate() -> impl Strategy<Value = TerminateRepr> {
    (
        arb_terminate_code(),
        any::<bool>(),
        any::<bool>(),
        any::<u16>(),
        proptest::option::of(arb_terminated_ddp_header()),
        proptest::option::of(arb_read_request()),
    )
        .prop_map(|(code, m, r, len, ddp_header, rdma_header)| {
            let r = r || rdma_header.is_some();
            let any_bit = m || r || ddp_header.is_some();
            TerminateRepr {
                code,
                m,
                r,
                ddp_segment_length: if any_bit { len } else { 0 },
                ddp_header,
                rdma_header,
            }
        })
}

fn arb_atomic_request() -> impl Strategy<Value = AtomicRequestRepr> {
    (
        prop_oneof![Just(AtomicOpcode::FetchAdd), Just(AtomicOpcode::CmpSwap)],
        any::<u32>(),
        any::<u32>(),
        any::<u64>(),
        any::<[u64; 4]>(),
    )
        .prop_map(|(op, request_id, stag, to, d)| AtomicRequestRepr {
            op,
            request_id,
            stag,
            to,
            add_swap_data: d[0],
            add_swap_mask: d[1],
            compare_data: d[2],
            compare_mask: d[3],
        })
}

fn arb_atomic_response() -> impl Strategy<Value = AtomicResponseRepr> {
    (any::<u32>(), any::<u64>()).prop_map(|(request_id, original_value)| AtomicResponseRepr {
        request_id,
        original_value,
    })
}

fn arb_immediate() -> impl Strategy<Value = ImmediateRepr> {
    any::<[u8; 8]>().prop_map(|data| ImmediateRepr { data })
}

fn arb_flush() -> impl Strategy<Value = FlushRequestRepr> {
    (
        any::<u32>(),
        any::<u32>(),
        any::<u64>(),
        any::<u32>().prop_filter("P or G", |f| f & commit::FLUSH_FLAGS_DEFINED != 0),
    )
        .prop_map(|(stag, length, to, flags)| FlushRequestRepr {
            stag,
            length,
            to,
            flags,
        })
}

fn arb_atomic_write() -> impl Strategy<Value = AtomicWriteRequestRepr> {
    (any::<u32>(), any::<u64>(), any::<u64>()).prop_map(|(stag, to, data)| AtomicWriteRequestRepr {
        stag,
        to,
        data,
    })
}

/// An owned body: the payload slices of [`Body`] live in the `Vec`s.
#[derive(Debug, Clone)]
enum OwnedBody {
    Payload(Opcode, u32, Vec<u8>),
    ReadRequest(ReadRequestRepr),
    Terminate(TerminateRepr),
    Immediate(bool, ImmediateRepr),
    AtomicRequest(AtomicRequestRepr),
    AtomicResponse(AtomicResponseRepr),
    Flush(FlushRequestRepr),
    FlushResponse,
    Verify(u32, u32, u64, Vec<u8>),
    VerifyResponse(Vec<u8>),
    AtomicWrite(AtomicWriteRequestRepr),
    AtomicWriteResponse,
}

impl OwnedBody {
    fn body(&self) -> Body<'_> {
        match self {
            OwnedBody::Payload(op, inv, p) => match op {
                Opcode::RdmaWrite => Body::RdmaWrite { payload: p },
                Opcode::RdmaReadResponse => Body::RdmaReadResponse { payload: p },
                Opcode::Send => Body::Send { payload: p },
                Opcode::SendInvalidate => Body::SendInvalidate {
                    invalidate_stag: *inv,
                    payload: p,
                },
                Opcode::SendSe => Body::SendSe { payload: p },
                Opcode::SendSeInvalidate => Body::SendSeInvalidate {
                    invalidate_stag: *inv,
                    payload: p,
                },
                _ => unreachable!(),
            },
            OwnedBody::ReadRequest(r) => Body::RdmaReadRequest(*r),
            OwnedBody::Terminate(t) => Body::Terminate(*t),
            OwnedBody::Immediate(false, i) => Body::ImmediateData(*i),
            OwnedBody::Immediate(true, i) => Body::ImmediateDataSe(*i),
            OwnedBody::AtomicRequest(a) => Body::AtomicRequest(*a),
            OwnedBody::AtomicResponse(a) => Body::AtomicResponse(*a),
            OwnedBody::Flush(f) => Body::FlushRequest(*f),
            OwnedBody::FlushResponse => Body::FlushResponse,
            OwnedBody::Verify(stag, length, to, hash) => Body::VerifyRequest(VerifyRequestRepr {
                stag: *stag,
                length: *length,
                to: *to,
                hash,
            }),
            OwnedBody::VerifyResponse(h) => Body::VerifyResponse { hash: h },
            OwnedBody::AtomicWrite(a) => Body::AtomicWriteRequest(*a),
            OwnedBody::AtomicWriteResponse => Body::AtomicWriteResponse,
        }
    }
}

fn arb_body() -> impl Strategy<Value = OwnedBody> {
    let payload_ops = prop_oneof![
        Just(Opcode::RdmaWrite),
        Just(Opcode::RdmaReadResponse),
        Just(Opcode::Send),
        Just(Opcode::SendInvalidate),
        Just(Opcode::SendSe),
        Just(Opcode::SendSeInvalidate),
    ];
    prop_oneof![
        (
            payload_ops,
            any::<u32>(),
            proptest::collection::vec(any::<u8>(), 0..64)
        )
            .prop_map(|(op, inv, p)| OwnedBody::Payload(op, inv, p)),
        arb_read_request().prop_map(OwnedBody::ReadRequest),
        arb_terminate().prop_map(OwnedBody::Terminate),
        (any::<bool>(), arb_immediate()).prop_map(|(se, i)| OwnedBody::Immediate(se, i)),
        arb_atomic_request().prop_map(OwnedBody::AtomicRequest),
        arb_atomic_response().prop_map(OwnedBody::AtomicResponse),
        arb_flush().prop_map(OwnedBody::Flush),
        Just(OwnedBody::FlushResponse),
        (
            any::<u32>(),
            any::<u32>(),
            any::<u64>(),
            proptest::collection::vec(any::<u8>(), 0..40)
        )
            .prop_map(|(s, l, t, h)| OwnedBody::Verify(s, l, t, h)),
        proptest::collection::vec(any::<u8>(), 0..40).prop_map(OwnedBody::VerifyResponse),
        arb_atomic_write().prop_map(OwnedBody::AtomicWrite),
        Just(OwnedBody::AtomicWriteResponse),
    ]
}

/// A consistent message: the buffer model of its opcode; L = 1, MO = 0 for opcodes with an
/// RDMAP header.
#[derive(Debug, Clone)]
struct OwnedMessage {
    last: bool,
    stag: u32,
    to: u64,
    msn: u32,
    mo: u32,
    body: OwnedBody,
}

impl OwnedMessage {
    fn message(&self) -> Message<'_> {
        let body = self.body.body();
        let op = body.opcode();
        let ddp = if op.is_tagged() {
            DdpFields::Tagged {
                stag: self.stag,
                to: self.to,
            }
        } else if op.carries_ulp_payload() {
            DdpFields::Untagged {
                msn: self.msn,
                mo: self.mo,
            }
        } else {
            DdpFields::Untagged {
                msn: self.msn,
                mo: 0,
            }
        };
        Message {
            last: self.last || !op.carries_ulp_payload(),
            ddp,
            body,
        }
    }
}

fn arb_message() -> impl Strategy<Value = OwnedMessage> {
    (
        any::<bool>(),
        any::<u32>(),
        any::<u64>(),
        any::<u32>(),
        any::<u32>(),
        arb_body(),
    )
        .prop_map(|(last, stag, to, msn, mo, body)| OwnedMessage {
            last,
            stag,
            to,
            msn,
            mo,
            body,
        })
}

fn emit(msg: &Message<'_>) -> Vec<u8> {
    let mut buf = vec![0u8; msg.buffer_len()];
    msg.emit(&mut ddp::Packet::new_unchecked(&mut buf[..]))
        .unwrap();
    buf
}

fn parse(bytes: &[u8], ext: Extensions) -> Result<Message<'_>, rnic_proto::rdmap::Error> {
    Message::parse(&ddp::Packet::new_unchecked(bytes), ext)
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

proptest! {
    /// `mpa-peer-connect.md` §6.2, §6.3: DDP header emit → parse identity, emitted length.
    #[test]
    fn ddp_header_roundtrip(repr in arb_ddp_repr(), extra in 0usize..8) {
        let mut buf = vec![0u8; repr.buffer_len() + extra];
        repr.emit(&mut ddp::Packet::new_unchecked(&mut buf[..])).unwrap();
        let p = ddp::Packet::new_checked(&buf[..]).unwrap();
        prop_assert_eq!(p.header_len(), repr.buffer_len());
        prop_assert_eq!(p.payload().len(), extra);
        prop_assert_eq!(ddp::Repr::parse(&p), Ok(repr));
        // A buffer one octet short is refused by emit.
        let mut short = vec![0u8; repr.buffer_len() - 1];
        prop_assert_eq!(
            repr.emit(&mut ddp::Packet::new_unchecked(&mut short[..])),
            Err(ddp::Error::BufferTooSmall)
        );
    }

    /// `rfc5040-rdmap.md` §1.5: Read Request header emit → parse identity.
    #[test]
    fn read_request_roundtrip(repr in arb_read_request()) {
        let mut buf = [0u8; read_request::HEADER_LEN];
        repr.emit(&mut read_request::Packet::new_unchecked(&mut buf[..])).unwrap();
        let p = read_request::Packet::new_checked(&buf[..]).unwrap();
        prop_assert_eq!(ReadRequestRepr::parse(&p), Ok(repr));
    }

    /// `rfc5040-rdmap.md` §1.6: Terminate header emit → parse identity; length 4..=52.
    #[test]
    fn terminate_roundtrip(repr in arb_terminate()) {
        let len = repr.buffer_len();
        prop_assert!((terminate::MIN_HEADER_LEN..=terminate::MAX_HEADER_LEN).contains(&len));
        let mut buf = vec![0u8; len];
        repr.emit(&mut terminate::Packet::new_unchecked(&mut buf[..])).unwrap();
        let p = terminate::Packet::new_checked(&buf[..]).unwrap();
        prop_assert_eq!(p.header_len(), len);
        prop_assert_eq!(p.hdrct(), repr.hdrct());
        prop_assert_eq!(p.reserved(), 0);
        prop_assert_eq!(TerminateRepr::parse(&p), Ok(repr));
    }

    /// `rfc5040-rdmap.md` §5.1: the (layer, type, code) triple survives decoding.
    #[test]
    fn terminate_code_raw_roundtrip(l in 0u8..16, t in 0u8..16, c in any::<u8>()) {
        let code = TerminateCode::from_raw(l, t, c);
        prop_assert_eq!((code.layer(), code.error_type(), code.error_code()), (l, t, c));
    }

    /// `rfc7306-atomics-immediate.md` §1.2-§1.4: atomic and immediate headers emit → parse.
    #[test]
    fn rfc7306_headers_roundtrip(
        req in arb_atomic_request(),
        resp in arb_atomic_response(),
        imm in arb_immediate(),
    ) {
        let mut b = [0u8; atomic::REQUEST_LEN];
        req.emit(&mut atomic::RequestPacket::new_unchecked(&mut b[..])).unwrap();
        prop_assert_eq!(
            AtomicRequestRepr::parse(&atomic::RequestPacket::new_checked(&b[..]).unwrap()),
            Ok(req)
        );
        let mut b = [0u8; atomic::RESPONSE_LEN];
        resp.emit(&mut atomic::ResponsePacket::new_unchecked(&mut b[..])).unwrap();
        prop_assert_eq!(
            AtomicResponseRepr::parse(&atomic::ResponsePacket::new_checked(&b[..]).unwrap()),
            Ok(resp)
        );
        let mut b = [0u8; immediate::HEADER_LEN];
        imm.emit(&mut immediate::Packet::new_unchecked(&mut b[..])).unwrap();
        prop_assert_eq!(
            ImmediateRepr::parse(&immediate::Packet::new_checked(&b[..]).unwrap()),
            Ok(imm)
        );
    }

    /// `rdma-commit.md` §1.1, §1.3, §1.5: Flush / Verify / Atomic Write headers emit → parse.
    #[test]
    fn commit_headers_roundtrip(
        flush in arb_flush(),
        aw in arb_atomic_write(),
        hash in proptest::collection::vec(any::<u8>(), 0..40),
        stag in any::<u32>(),
        length in any::<u32>(),
        to in any::<u64>(),
    ) {
        let mut b = [0u8; commit::FLUSH_REQUEST_LEN];
        flush.emit(&mut commit::FlushRequestPacket::new_unchecked(&mut b[..])).unwrap();
        prop_assert_eq!(
            FlushRequestRepr::parse(&commit::FlushRequestPacket::new_checked(&b[..]).unwrap()),
            Ok(flush)
        );
        let mut b = [0u8; commit::ATOMIC_WRITE_REQUEST_LEN];
        aw.emit(&mut commit::AtomicWriteRequestPacket::new_unchecked(&mut b[..])).unwrap();
        prop_assert_eq!(
            AtomicWriteRequestRepr::parse(
                &commit::AtomicWriteRequestPacket::new_checked(&b[..]).unwrap()
            ),
            Ok(aw)
        );
        let v = VerifyRequestRepr { stag, length, to, hash: &hash };
        let mut b = vec![0u8; v.buffer_len()];
        v.emit(&mut commit::VerifyRequestPacket::new_unchecked(&mut b[..])).unwrap();
        prop_assert_eq!(
            VerifyRequestRepr::parse(&commit::VerifyRequestPacket::new_checked(&b[..]).unwrap()),
            Ok(v)
        );
    }

    /// Whole segment: emit → parse identity with every extension; the DDP view agrees; a QP
    /// without the opcode's extension rejects it.
    #[test]
    fn message_roundtrip(owned in arb_message()) {
        let msg = owned.message();
        let bytes = emit(&msg);
        prop_assert_eq!(bytes.len(), msg.buffer_len());
        prop_assert_eq!(parse(&bytes, Extensions::ALL), Ok(msg));
        let p = ddp::Packet::new_checked(&bytes[..]).unwrap();
        prop_assert_eq!(ddp::Repr::parse(&p), Ok(msg.ddp_repr()));
        let op = msg.opcode();
        for ext in EXTS {
            let r = parse(&bytes, ext);
            if op.enabled(ext) {
                prop_assert_eq!(r, Ok(msg));
            } else {
                prop_assert!(r.is_err());
            }
        }
    }

    /// Arbitrary octets never panic any parser, and every error has a defined Terminate mapping.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..96)) {
        for ext in EXTS {
            check_any(&bytes, ext);
        }
        // Every view and header parser, on unchecked views too.
        let _ = ddp::Repr::parse(&ddp::Packet::new_unchecked(&bytes[..]));
        let _ = ReadRequestRepr::parse(&read_request::Packet::new_unchecked(&bytes[..]));
        let _ = TerminateRepr::parse(&terminate::Packet::new_unchecked(&bytes[..]));
        let _ = AtomicRequestRepr::parse(&atomic::RequestPacket::new_unchecked(&bytes[..]));
        let _ = AtomicResponseRepr::parse(&atomic::ResponsePacket::new_unchecked(&bytes[..]));
        let _ = ImmediateRepr::parse(&immediate::Packet::new_unchecked(&bytes[..]));
        let _ = FlushRequestRepr::parse(&commit::FlushRequestPacket::new_unchecked(&bytes[..]));
        let _ = VerifyRequestRepr::parse(&commit::VerifyRequestPacket::new_unchecked(&bytes[..]));
        let _ = AtomicWriteRequestRepr::parse(
            &commit::AtomicWriteRequestPacket::new_unchecked(&bytes[..]),
        );
        let _ = TerminatedDdpHeader::from_bytes(&bytes);
        if let Ok(p) = terminate::Packet::new_checked(&bytes[..]) {
            let _ = (p.code(), p.hdrct(), p.reserved(), p.ddp_segment_length());
            let _ = (p.terminated_ddp_header(), p.terminated_rdma_header(), p.header_len());
        }
        if let Ok(p) = ddp::Packet::new_checked(&bytes[..]) {
            let _ = (p.reserved(), p.payload(), p.header_len(), p.segment_len());
            if p.tagged() {
                let _ = (p.stag(), p.to());
            } else {
                let _ = (p.rsvd_ulp(), p.qn(), p.msn(), p.mo());
            }
        }
    }

    /// Mutations of valid segments (deeper than random octets): never panic, and whatever parses
    /// is re-emitted to something that parses to the same message.
    #[test]
    fn mutated_segments_never_panic(
        owned in arb_message(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut bytes = emit(&owned.message());
        for (i, v) in edits {
            let i = i.index(bytes.len());
            bytes[i] = v;
        }
        if truncate {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        for ext in EXTS {
            check_any(&bytes, ext);
        }
    }
}

/// Parse under `ext`; on success the canonical re-emission parses to the same message; on error
/// the Terminate mapping is defined (and only a malformed Terminate has none).
fn check_any(bytes: &[u8], ext: Extensions) {
    match parse(bytes, ext) {
        Ok(msg) => {
            let again = emit(&msg);
            assert_eq!(parse(&again, ext), Ok(msg));
        }
        Err(e) => {
            let code = e.terminate_code();
            let about_terminate = matches!(
                e,
                rnic_proto::rdmap::Error::Truncated(Opcode::Terminate)
                    | rnic_proto::rdmap::Error::Segmented(Opcode::Terminate)
                    | rnic_proto::rdmap::Error::BadLength {
                        opcode: Opcode::Terminate,
                        ..
                    }
            );
            assert_eq!(code.is_none(), about_terminate, "{e:?}");
        }
    }
}
