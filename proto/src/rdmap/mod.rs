//! RDMAP (RFC 5040) with the RFC 7306 extensions (atomics, immediate data) and the
//! draft-talpey-rdma-commit-01 extensions (Flush, Verify, Atomic Write).
//!
//! | item | module | catalog |
//! |---|---|---|
//! | control field (RV, Rsv, OpCode), every opcode, QN per opcode | [`opcode`] | `rfc5040-rdmap.md` §1.2, §1.3, §1.7; `rfc7306-atomics-immediate.md` §0; `rdma-commit.md` §0, §1.8 |
//! | RDMA Read Request header | [`read_request`] | `rfc5040-rdmap.md` §1.5 |
//! | Terminate header and code catalog | [`terminate`] | `rfc5040-rdmap.md` §1.6, §5.1, §5.2; `mpa-peer-connect.md` §4.3, §6.4 |
//! | Atomic Request / Response | [`atomic`] | `rfc7306-atomics-immediate.md` §1.2, §1.3 |
//! | Immediate Data (with SE) | [`immediate`] | `rfc7306-atomics-immediate.md` §1.4 |
//! | Flush / Verify / Atomic Write | [`commit`] | `rdma-commit.md` §1 |
//! | whole segment, dispatched by opcode | [`message`] | all of the above |
//!
//! RDMAP headers sit right after the DDP header ([`crate::ddp`]); the views in the submodules
//! start at the first RDMAP header octet (DDP offset 18 for every untagged message).

pub mod atomic;
pub mod commit;
pub mod immediate;
pub mod message;
pub mod opcode;
pub mod read_request;
pub mod terminate;

pub use atomic::{AtomicOpcode, AtomicRequestRepr, AtomicResponseRepr};
pub use commit::{AtomicWriteRequestRepr, FlushRequestRepr, VerifyRequestRepr};
pub use immediate::ImmediateRepr;
pub use message::{Body, DdpFields, Message};
pub use opcode::{Extensions, Opcode, Spec, RDMAP_VERSION};
pub use read_request::{Packet as ReadRequestPacket, Repr as ReadRequestRepr};
pub use terminate::{
    ErrorType, HdrCt, Layer, Packet as TerminatePacket, RemoteOperationCode, RemoteProtectionCode,
    Repr as TerminateRepr, TerminateCode, TerminatedDdpHeader,
};

use crate::ddp;

/// What is wrong with an RDMAP message (or with a buffer handed to `emit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// The DDP header is malformed (truncated, bad DV, invalid QN).
    Ddp(ddp::Error),
    /// RV is not [`RDMAP_VERSION`] (the value received).
    BadRdmapVersion(u8),
    /// The opcode is reserved or its extension is not enabled on this QP (the value received).
    UnknownOpcode(u8),
    /// The T flag does not match the opcode (e.g. a tagged opcode in an untagged header).
    WrongModel(Opcode),
    /// The QN is valid but not the one this opcode uses.
    WrongQn {
        /// The opcode received.
        opcode: Opcode,
        /// The QN received.
        qn: u32,
    },
    /// A message with an RDMAP header is not a single segment (L = 0 or MO != 0).
    Segmented(Opcode),
    /// The segment is too short for this opcode's RDMAP header.
    Truncated(Opcode),
    /// The segment is longer than this opcode allows (no ULP payload allowed).
    BadLength {
        /// The opcode received.
        opcode: Opcode,
        /// Octets after the DDP header.
        len: usize,
    },
    /// Atomic Request with an unassigned AOpCode (the value received).
    UnknownAtomicOpcode(u8),
    /// Flush Request with neither the P nor the G flag (the flags received).
    InvalidFlushFlags(u32),
    /// Atomic Write Request whose Data Sink Length is not 8 (the length received).
    BadAtomicWriteLength(u32),
    /// `emit` was given a buffer shorter than `buffer_len()`.
    BufferTooSmall,
}

impl Error {
    /// The Terminate (layer, type, code) that reports this error to the peer, in the fixed
    /// mapping of `rfc5040-rdmap.md` §5.4 and the catalog recommendations:
    ///
    /// | error | Terminate | source |
    /// |---|---|---|
    /// | [`Error::Ddp`] | see [`ddp::Error::terminate_code`] | `mpa-peer-connect.md` §6.4 |
    /// | [`Error::BadRdmapVersion`] | 0/2/0x05 | `rfc5040-rdmap.md` §5.4 row 1 |
    /// | [`Error::UnknownOpcode`], [`Error::WrongModel`], [`Error::WrongQn`] | 0/2/0x06 | `rfc5040-rdmap.md` §5.4 rows 2, 3 |
    /// | [`Error::UnknownAtomicOpcode`] | 0/2/0x06 | `rfc7306-atomics-immediate.md` §4.3 T-5 |
    /// | [`Error::Segmented`] | 1/2/0x04 (Invalid MO) | `rfc7306-atomics-immediate.md` §6 Q-3 |
    /// | [`Error::Truncated`], [`Error::BadLength`] of Immediate Data | 0/2/0x07 | `rfc7306-atomics-immediate.md` §4.3 T-7 |
    /// | [`Error::Truncated`], [`Error::BadLength`] of other opcodes | 0/2/0xFF | `rdma-commit.md` §6 CT-11, `rfc7306-atomics-immediate.md` §4.3 T-6 |
    /// | [`Error::InvalidFlushFlags`] | 0/2/0xFF | `rdma-commit.md` §6 CT-11 |
    /// | [`Error::BadAtomicWriteLength`] | 0/2/0x07 | `rdma-commit.md` §6 CT-10 |
    ///
    /// `None` for [`Error::BufferTooSmall`] (not about a received message) and for a malformed
    /// Terminate, which is never answered with a Terminate (`rfc5040-rdmap.md` §2.2).
    pub const fn terminate_code(&self) -> Option<TerminateCode> {
        use RemoteOperationCode as Op;
        const fn op(code: RemoteOperationCode) -> Option<TerminateCode> {
            Some(TerminateCode::RdmapRemoteOperation(code))
        }
        match *self {
            Error::Ddp(e) => e.terminate_code(),
            Error::BadRdmapVersion(_) => op(Op::InvalidRdmapVersion),
            Error::UnknownOpcode(_)
            | Error::WrongModel(_)
            | Error::WrongQn { .. }
            | Error::UnknownAtomicOpcode(_) => op(Op::UnexpectedOpcode),
            Error::Segmented(Opcode::Terminate)
            | Error::Truncated(Opcode::Terminate)
            | Error::BadLength {
                opcode: Opcode::Terminate,
                ..
            } => None,
            Error::Segmented(_) => Some(TerminateCode::DdpUntaggedBuffer(
                ddp::UntaggedBufferCode::InvalidMo,
            )),
            Error::Truncated(Opcode::ImmediateData | Opcode::ImmediateDataSe)
            | Error::BadLength {
                opcode: Opcode::ImmediateData | Opcode::ImmediateDataSe,
                ..
            } => op(Op::CatastrophicStream),
            Error::Truncated(_) | Error::BadLength { .. } | Error::InvalidFlushFlags(_) => {
                op(Op::Unspecified)
            }
            Error::BadAtomicWriteLength(_) => op(Op::CatastrophicStream),
            Error::BufferTooSmall => None,
        }
    }
}

impl From<ddp::Error> for Error {
    fn from(e: ddp::Error) -> Error {
        Error::Ddp(e)
    }
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::Ddp(e) => write!(f, "DDP: {e}"),
            Error::BadRdmapVersion(v) => write!(f, "invalid RDMAP version {v}"),
            Error::UnknownOpcode(op) => write!(f, "unknown or disabled opcode {op:#x}"),
            Error::WrongModel(op) => write!(f, "{op:?} with the wrong DDP buffer model"),
            Error::WrongQn { opcode, qn } => write!(f, "{opcode:?} on QN {qn}"),
            Error::Segmented(op) => write!(f, "{op:?} split over several DDP segments"),
            Error::Truncated(op) => write!(f, "{op:?} truncated"),
            Error::BadLength { opcode, len } => write!(f, "{opcode:?} of {len} octets"),
            Error::UnknownAtomicOpcode(a) => write!(f, "unknown AOpCode {a:#x}"),
            Error::InvalidFlushFlags(fl) => write!(f, "Flush flags {fl:#x} name no flush type"),
            Error::BadAtomicWriteLength(l) => write!(f, "Atomic Write length {l} (not 8)"),
            Error::BufferTooSmall => write!(f, "buffer too small"),
        }
    }
}
