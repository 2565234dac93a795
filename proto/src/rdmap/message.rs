//! A whole RDMAP message segment: DDP header + RDMAP header + payload, dispatched by opcode.
//!
//! This is the Repr the hardware is tested against: [`Message::parse`] takes one DDP segment (the
//! MPA ULPDU, i.e. the FPDU octets after the 2-octet ULPDU Length, without PAD and CRC) and runs
//! the receive checks in a fixed order, so every malformed segment maps to one deterministic
//! [`Error`] and, through [`Error::terminate_code`], one Terminate triple:
//!
//! 1. DDP: length of the header the T flag names, then DV (`mpa-peer-connect.md` §6.1);
//! 2. DDP: QN valid for the enabled extensions (`rfc5040-rdmap.md` §1.7, §5.4 row 3);
//! 3. RDMAP: RV, then opcode known and enabled (`rfc5040-rdmap.md` §5.4 rows 1, 2);
//! 4. opcode consistent with T and with QN (`rfc5040-rdmap.md` §5.4 row 3);
//! 5. messages with an RDMAP header must be one segment: L = 1 and MO = 0
//!    (`rfc7306-atomics-immediate.md` §6 Q-3, `rdma-commit.md` §11 Q-14);
//! 6. RDMAP header length (`rfc5040-rdmap.md` §1.3-§1.6, `rfc7306-atomics-immediate.md` §1,
//!    `rdma-commit.md` §1);
//! 7. header contents (AOpCode, Flush flags, Atomic Write length).
//!
//! Fields "not checked on receive" (DDP and RDMAP reserved bits, the Invalidate STag of
//! opcodes that do not invalidate, the atomic reserved bits, Terminate reserved bits) are ignored.

use super::atomic::{self, AtomicRequestRepr, AtomicResponseRepr};
use super::commit::{self, AtomicWriteRequestRepr, FlushRequestRepr, VerifyRequestRepr};
use super::immediate::{self, ImmediateRepr};
use super::read_request::{self, Repr as ReadRequestRepr};
use super::terminate::{self, Repr as TerminateRepr};
use super::{Error, Extensions, Opcode};
use crate::ddp;

/// The DDP fields of a message segment that RDMAP does not derive from the opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DdpFields {
    /// Tagged buffer model (RDMA Write, RDMA Read Response).
    Tagged {
        /// Data Sink STag.
        stag: u32,
        /// Tagged Offset of the segment's first payload octet.
        to: u64,
    },
    /// Untagged buffer model (every other opcode); the QN is the opcode's.
    Untagged {
        /// Message Sequence Number.
        msn: u32,
        /// Message Offset of the segment's first payload octet.
        mo: u32,
    },
}

/// The RDMAP part of a segment, by opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Body<'a> {
    /// RDMA Write (0x0).
    RdmaWrite {
        /// ULP payload of this segment.
        payload: &'a [u8],
    },
    /// RDMA Read Request (0x1).
    RdmaReadRequest(ReadRequestRepr),
    /// RDMA Read Response (0x2).
    RdmaReadResponse {
        /// ULP payload of this segment.
        payload: &'a [u8],
    },
    /// Send (0x3).
    Send {
        /// ULP payload of this segment.
        payload: &'a [u8],
    },
    /// Send with Invalidate (0x4).
    SendInvalidate {
        /// The STag to invalidate (untagged `RsvdULP[8:39]`).
        invalidate_stag: u32,
        /// ULP payload of this segment.
        payload: &'a [u8],
    },
    /// Send with Solicited Event (0x5).
    SendSe {
        /// ULP payload of this segment.
        payload: &'a [u8],
    },
    /// Send with Solicited Event and Invalidate (0x6).
    SendSeInvalidate {
        /// The STag to invalidate (untagged `RsvdULP[8:39]`).
        invalidate_stag: u32,
        /// ULP payload of this segment.
        payload: &'a [u8],
    },
    /// Terminate (0x7).
    Terminate(TerminateRepr),
    /// Immediate Data (0x8).
    ImmediateData(ImmediateRepr),
    /// Immediate Data with Solicited Event (0x9).
    ImmediateDataSe(ImmediateRepr),
    /// Atomic Request (0xA).
    AtomicRequest(AtomicRequestRepr),
    /// Atomic Response (0xB).
    AtomicResponse(AtomicResponseRepr),
    /// RDMA Flush Request (0xC).
    FlushRequest(FlushRequestRepr),
    /// RDMA Flush Response (0xD): no payload.
    FlushResponse,
    /// RDMA Verify Request (0xE).
    VerifyRequest(VerifyRequestRepr<'a>),
    /// RDMA Verify Response (0xF).
    VerifyResponse {
        /// The computed hash (H' octets).
        hash: &'a [u8],
    },
    /// Atomic Write Request (0x10).
    AtomicWriteRequest(AtomicWriteRequestRepr),
    /// Atomic Write Response (0x11): no payload.
    AtomicWriteResponse,
}

impl<'a> Body<'a> {
    /// The opcode of this body.
    pub const fn opcode(&self) -> Opcode {
        match self {
            Body::RdmaWrite { .. } => Opcode::RdmaWrite,
            Body::RdmaReadRequest(_) => Opcode::RdmaReadRequest,
            Body::RdmaReadResponse { .. } => Opcode::RdmaReadResponse,
            Body::Send { .. } => Opcode::Send,
            Body::SendInvalidate { .. } => Opcode::SendInvalidate,
            Body::SendSe { .. } => Opcode::SendSe,
            Body::SendSeInvalidate { .. } => Opcode::SendSeInvalidate,
            Body::Terminate(_) => Opcode::Terminate,
            Body::ImmediateData(_) => Opcode::ImmediateData,
            Body::ImmediateDataSe(_) => Opcode::ImmediateDataSe,
            Body::AtomicRequest(_) => Opcode::AtomicRequest,
            Body::AtomicResponse(_) => Opcode::AtomicResponse,
            Body::FlushRequest(_) => Opcode::FlushRequest,
            Body::FlushResponse => Opcode::FlushResponse,
            Body::VerifyRequest(_) => Opcode::VerifyRequest,
            Body::VerifyResponse { .. } => Opcode::VerifyResponse,
            Body::AtomicWriteRequest(_) => Opcode::AtomicWriteRequest,
            Body::AtomicWriteResponse => Opcode::AtomicWriteResponse,
        }
    }

    /// The ULP payload of a Write, Read Response or Send segment; empty for the others.
    pub const fn payload(&self) -> &'a [u8] {
        match *self {
            Body::RdmaWrite { payload }
            | Body::RdmaReadResponse { payload }
            | Body::Send { payload }
            | Body::SendInvalidate { payload, .. }
            | Body::SendSe { payload }
            | Body::SendSeInvalidate { payload, .. } => payload,
            _ => &[],
        }
    }

    /// The value of the untagged `RsvdULP[8:39]`: the Invalidate STag, or 0.
    pub const fn invalidate_stag(&self) -> u32 {
        match *self {
            Body::SendInvalidate {
                invalidate_stag, ..
            }
            | Body::SendSeInvalidate {
                invalidate_stag, ..
            } => invalidate_stag,
            _ => 0,
        }
    }

    /// Octets after the DDP header: RDMAP header + payload.
    pub fn buffer_len(&self) -> usize {
        match self {
            Body::RdmaWrite { payload }
            | Body::RdmaReadResponse { payload }
            | Body::Send { payload }
            | Body::SendInvalidate { payload, .. }
            | Body::SendSe { payload }
            | Body::SendSeInvalidate { payload, .. } => payload.len(),
            Body::RdmaReadRequest(r) => r.buffer_len(),
            Body::Terminate(t) => t.buffer_len(),
            Body::ImmediateData(i) | Body::ImmediateDataSe(i) => i.buffer_len(),
            Body::AtomicRequest(a) => a.buffer_len(),
            Body::AtomicResponse(a) => a.buffer_len(),
            Body::FlushRequest(f) => f.buffer_len(),
            Body::VerifyRequest(v) => v.buffer_len(),
            Body::VerifyResponse { hash } => hash.len(),
            Body::AtomicWriteRequest(a) => a.buffer_len(),
            Body::FlushResponse | Body::AtomicWriteResponse => 0,
        }
    }

    fn emit(&self, buf: &mut [u8]) -> Result<(), Error> {
        if buf.len() < self.buffer_len() {
            return Err(Error::BufferTooSmall);
        }
        match self {
            Body::RdmaWrite { payload }
            | Body::RdmaReadResponse { payload }
            | Body::Send { payload }
            | Body::SendInvalidate { payload, .. }
            | Body::SendSe { payload }
            | Body::SendSeInvalidate { payload, .. } => {
                buf[..payload.len()].copy_from_slice(payload);
                Ok(())
            }
            Body::VerifyResponse { hash } => {
                buf[..hash.len()].copy_from_slice(hash);
                Ok(())
            }
            Body::RdmaReadRequest(r) => r.emit(&mut read_request::Packet::new_unchecked(buf)),
            Body::Terminate(t) => t.emit(&mut terminate::Packet::new_unchecked(buf)),
            Body::ImmediateData(i) | Body::ImmediateDataSe(i) => {
                i.emit(&mut immediate::Packet::new_unchecked(buf))
            }
            Body::AtomicRequest(a) => a.emit(&mut atomic::RequestPacket::new_unchecked(buf)),
            Body::AtomicResponse(a) => a.emit(&mut atomic::ResponsePacket::new_unchecked(buf)),
            Body::FlushRequest(f) => f.emit(&mut commit::FlushRequestPacket::new_unchecked(buf)),
            Body::VerifyRequest(v) => v.emit(&mut commit::VerifyRequestPacket::new_unchecked(buf)),
            Body::AtomicWriteRequest(a) => {
                a.emit(&mut commit::AtomicWriteRequestPacket::new_unchecked(buf))
            }
            Body::FlushResponse | Body::AtomicWriteResponse => Ok(()),
        }
    }
}

/// One DDP segment of an RDMAP message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Message<'a> {
    /// DDP L flag: last segment of the message.
    pub last: bool,
    /// STag/TO (tagged) or MSN/MO (untagged).
    pub ddp: DdpFields,
    /// Opcode-specific RDMAP header and payload.
    pub body: Body<'a>,
}

/// `payload` must be exactly `len` octets long for `opcode`.
fn exact(opcode: Opcode, payload: &[u8], len: usize) -> Result<&[u8], Error> {
    use core::cmp::Ordering;
    match payload.len().cmp(&len) {
        Ordering::Less => Err(Error::Truncated(opcode)),
        Ordering::Equal => Ok(payload),
        Ordering::Greater => Err(Error::BadLength {
            opcode,
            len: payload.len(),
        }),
    }
}

impl<'a> Message<'a> {
    /// Parses one DDP segment on a QP with the given extensions (see the module documentation
    /// for the order of the checks).
    pub fn parse<T: AsRef<[u8]> + ?Sized>(
        packet: &ddp::Packet<&'a T>,
        ext: Extensions,
    ) -> Result<Message<'a>, Error> {
        let hdr = ddp::Repr::parse(packet).map_err(Error::Ddp)?;
        if let ddp::Model::Untagged { qn, .. } = hdr.model {
            if !ext.qn_valid(qn) {
                return Err(Error::Ddp(ddp::Error::InvalidQn(qn)));
            }
        }
        let opcode = Opcode::from_control(hdr.ulp_ctrl, ext)?;
        let (ddp_fields, rsvd_ulp) = match hdr.model {
            ddp::Model::Tagged { stag, to } => {
                if !opcode.is_tagged() {
                    return Err(Error::WrongModel(opcode));
                }
                (DdpFields::Tagged { stag, to }, 0)
            }
            ddp::Model::Untagged {
                rsvd_ulp,
                qn,
                msn,
                mo,
            } => {
                if opcode.is_tagged() {
                    return Err(Error::WrongModel(opcode));
                }
                if opcode.queue_number() != Some(qn) {
                    return Err(Error::WrongQn { opcode, qn });
                }
                (DdpFields::Untagged { msn, mo }, rsvd_ulp)
            }
        };
        if !opcode.carries_ulp_payload() {
            let first = matches!(ddp_fields, DdpFields::Untagged { mo: 0, .. });
            if !(hdr.last && first) {
                return Err(Error::Segmented(opcode));
            }
        }
        let payload = packet.payload();
        let body = match opcode {
            Opcode::RdmaWrite => Body::RdmaWrite { payload },
            Opcode::RdmaReadResponse => Body::RdmaReadResponse { payload },
            Opcode::Send => Body::Send { payload },
            Opcode::SendInvalidate => Body::SendInvalidate {
                invalidate_stag: rsvd_ulp,
                payload,
            },
            Opcode::SendSe => Body::SendSe { payload },
            Opcode::SendSeInvalidate => Body::SendSeInvalidate {
                invalidate_stag: rsvd_ulp,
                payload,
            },
            Opcode::RdmaReadRequest => {
                let b = exact(opcode, payload, read_request::HEADER_LEN)?;
                Body::RdmaReadRequest(ReadRequestRepr::parse(
                    &read_request::Packet::new_unchecked(b),
                )?)
            }
            Opcode::Terminate => Body::Terminate(TerminateRepr::parse(
                &terminate::Packet::new_unchecked(payload),
            )?),
            Opcode::ImmediateData | Opcode::ImmediateDataSe => {
                let b = exact(opcode, payload, immediate::HEADER_LEN)?;
                let repr = ImmediateRepr::parse(&immediate::Packet::new_unchecked(b))?;
                if opcode == Opcode::ImmediateData {
                    Body::ImmediateData(repr)
                } else {
                    Body::ImmediateDataSe(repr)
                }
            }
            Opcode::AtomicRequest => {
                let b = exact(opcode, payload, atomic::REQUEST_LEN)?;
                Body::AtomicRequest(AtomicRequestRepr::parse(
                    &atomic::RequestPacket::new_unchecked(b),
                )?)
            }
            Opcode::AtomicResponse => {
                let b = exact(opcode, payload, atomic::RESPONSE_LEN)?;
                Body::AtomicResponse(AtomicResponseRepr::parse(
                    &atomic::ResponsePacket::new_unchecked(b),
                )?)
            }
            Opcode::FlushRequest => {
                let b = exact(opcode, payload, commit::FLUSH_REQUEST_LEN)?;
                Body::FlushRequest(FlushRequestRepr::parse(
                    &commit::FlushRequestPacket::new_unchecked(b),
                )?)
            }
            Opcode::FlushResponse => {
                exact(opcode, payload, 0)?;
                Body::FlushResponse
            }
            Opcode::VerifyRequest => Body::VerifyRequest(VerifyRequestRepr::parse(
                &commit::VerifyRequestPacket::new_unchecked(payload),
            )?),
            Opcode::VerifyResponse => Body::VerifyResponse { hash: payload },
            Opcode::AtomicWriteRequest => {
                let b = exact(opcode, payload, commit::ATOMIC_WRITE_REQUEST_LEN)?;
                Body::AtomicWriteRequest(AtomicWriteRequestRepr::parse(
                    &commit::AtomicWriteRequestPacket::new_unchecked(b),
                )?)
            }
            Opcode::AtomicWriteResponse => {
                exact(opcode, payload, 0)?;
                Body::AtomicWriteResponse
            }
        };
        Ok(Message {
            last: hdr.last,
            ddp: ddp_fields,
            body,
        })
    }

    /// The opcode.
    pub const fn opcode(&self) -> Opcode {
        self.body.opcode()
    }

    /// The DDP header this message is sent with: `RsvdULP[0:7]` = the RDMAP control octet, the
    /// opcode's QN, `RsvdULP[8:39]` = the Invalidate STag or 0.
    pub const fn ddp_repr(&self) -> ddp::Repr {
        let model = match self.ddp {
            DdpFields::Tagged { stag, to } => ddp::Model::Tagged { stag, to },
            DdpFields::Untagged { msn, mo } => ddp::Model::Untagged {
                rsvd_ulp: self.body.invalidate_stag(),
                qn: match self.opcode().queue_number() {
                    Some(qn) => qn,
                    None => ddp::QN_SEND,
                },
                msn,
                mo,
            },
        };
        ddp::Repr {
            last: self.last,
            ulp_ctrl: self.opcode().control(),
            model,
        }
    }

    /// Length of the whole segment: DDP header + RDMAP header + payload (the MPA ULPDU Length).
    pub fn buffer_len(&self) -> usize {
        self.ddp_repr().buffer_len() + self.body.buffer_len()
    }

    /// Writes the segment into the first `buffer_len()` octets of the view. Fails with
    /// [`Error::WrongModel`] if `ddp` does not match the opcode's buffer model.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(
        &self,
        packet: &mut ddp::Packet<T>,
    ) -> Result<(), Error> {
        let opcode = self.opcode();
        if opcode.is_tagged() != matches!(self.ddp, DdpFields::Tagged { .. }) {
            return Err(Error::WrongModel(opcode));
        }
        if packet.as_ref().len() < self.buffer_len() {
            return Err(Error::BufferTooSmall);
        }
        self.ddp_repr().emit(packet).map_err(Error::Ddp)?;
        self.body.emit(packet.payload_mut())
    }
}
