//! The MPA connection manager: Initiator and Responder state machines of the MPA Request /
//! Reply exchange (RFC 5044 §7.1) with the enhanced connection setup of RFC 6581.
//! Catalog: `mpa-peer-connect.md` §1 (frames, §1.4 receive checks), §2 (state machines),
//! §3 (negotiation), §4 (Terminate codes 5/6/7), §5.6 (timeout).
//!
//! The manager runs in raw mode: received LLP octets come in through
//! [`Connection::on_raw_bytes`] cut anywhere, octets to send are read with
//! [`Connection::output`] and released with [`Connection::consume_output`]. Frames travel in
//! TCP streaming mode (no CRC, no markers). Its result is a [`ConnParams`] and the switch of
//! each direction to FPDU mode:
//!
//! - **Initiator**: `connect` sends the Request (state [`ConnState::RequestSent`]). A valid
//!   accepting Reply is negotiated (§3.2 CRC/markers, §3.3 IRD/ORD, §3.4 RTR); in the
//!   peer-to-peer model the RTR FPDU (zero-length RDMA Write, RDMA Read or FPDU; built with
//!   `rnic-proto`) is queued as the first FPDU-mode octets and only then is the connection
//!   [`ConnState::Established`] (ENH-SM-3: no later FPDU before the RTR). If IRD cannot be
//!   raised to the Responder's ORD, or no RTR form is common, a Terminate (Layer 2, code 6 or
//!   7) is queued instead and the connection fails (ENH-IRD-8, ENH-SM-6).
//! - **Responder**: `listen` waits for a Request; a valid one gives
//!   [`ConnState::RequestReceived`] with the remote parameters ([`RequestInfo`]) for the ULP,
//!   which calls `accept` or `reject`. `accept` queues the Reply and enters
//!   [`ConnState::AwaitFirstFpdu`]: RX is in FPDU mode (MPA-ST-5) while TX is **fenced**
//!   ([`Connection::tx_fenced`], MPA-ST-4) until the first valid FPDU arrives. The firmware
//!   learns that either from the core ([`Connection::first_fpdu_received`]) or, in raw mode,
//!   by inspecting the FPDU-mode octets itself (not consuming them: `on_raw_bytes` returns how
//!   many octets were handshake octets, the rest belongs to the FPDU engine).
//!
//! Markers (§3.2) are a capability of the device ([`ConnConfig::markers_supported`], from the
//! core's FEATURES register): without them this side never asks for markers (`rx_markers` is
//! [`ConnError::MarkersUnsupported`]) and refuses a peer that requires them (M = 1): a Request
//! gets a Reply with R = 1, a Reply ends the setup with nothing sent
//! ([`ConnError::PeerRequiresMarkers`]), so no FPDU is ever framed without the markers the peer
//! expects.
//!
//! Every malformed input is a typed [`ConnError`] and the state becomes
//! [`ConnState::Failed`]; a peer's Reject is [`ConnState::Rejected`]. Nothing panics and
//! nothing waits forever: [`Connection::tick`] enforces the setup deadline.

use rnic_proto::ddp;
use rnic_proto::mpa::frame::{
    ENHANCED_DATA_LEN, HEADER_LEN, IRD_ORD_MAX, IRD_ORD_NO_VALUE, MAX_PRIVATE_DATA, REVISION_1,
    REVISION_2,
};
use rnic_proto::mpa::{
    self, mulpdu, Deframer, DeframerConfig, EnhancedData, Frame, FrameKind, FrameRepr, Framer,
    LlpErrorCode, RtrOptions, Status, TERMINATE_ETYPE_LLP,
};
use rnic_proto::rdmap::{
    Body, DdpFields, Extensions, Message, ReadRequestRepr, TerminateCode, TerminateRepr,
};

/// Largest MPA frame: header and 512 octets of PD (§1.1).
pub const MAX_FRAME_LEN: usize = HEADER_LEN + MAX_PRIVATE_DATA;
/// Largest ULP private data this side sends: 512 minus the 4 enhanced octets (§1.1). Linux
/// peers accept only 256 in all (§1.4 interop note); keeping to that is the ULP's choice.
pub const MAX_ULP_PRIVATE_DATA: usize = MAX_PRIVATE_DATA - ENHANCED_DATA_LEN;
/// Output buffer: a frame plus the first FPDU (Read RTR 52 octets, a leading marker, slack).
pub const OUTPUT_CAP: usize = MAX_FRAME_LEN + 96;
/// Largest first FPDU the Responder inspects in raw mode; a larger one is reported by the
/// core instead ([`Connection::first_fpdu_received`]).
pub const PEEK_MAX_ULPDU: usize = 256;
/// STag put on the wire by the RTR forms: never 0 (DESIGN.md; siw uses 1, §2.5).
pub const RTR_STAG: u32 = 1;
/// `wr_id` of the RTR when it is sent as a work request ([`ConnConfig::rtr_in_output`] off):
/// unsignaled, it never shows in a CQ (ENH-SM-4). The octets spell "RT".
pub const RTR_WR_ID: u64 = u64::MAX - 0x5254;
/// IRD/ORD the QP context can hold (`QP_CTRL` has 4-bit fields).
pub const HW_MAX_IRD_ORD: u16 = 15;

/// Which side of the MPA exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// Active side: sends the Request.
    Initiator,
    /// Passive side: answers with the Reply.
    Responder,
}

/// The first message of the peer-to-peer model (§2.5, §3.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RtrForm {
    /// Client-server model (A=0), or no enhanced data: no RTR.
    None,
    /// B: an empty FPDU (ULPDU_Length 0).
    ZeroLengthFpdu,
    /// C: a zero-length RDMA Write (tagged, L=1, STag [`RTR_STAG`], TO 0).
    ZeroLengthWrite,
    /// D: a zero-length RDMA Read Request (QN 1, MSN 1); answered by a zero-length Read
    /// Response. It uses read-request MSN 1 and one ORD/IRD slot.
    ZeroLengthRead,
    /// A=1 with B=C=D=0: the Initiator's ULP must send an RDMAP Send first (ENH-SM-7).
    UlpSend,
}

/// Connection setup configuration of one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnConfig {
    /// Highest MPA revision used (1 or 2). A Responder with 1 answers every Request with a
    /// revision-1, unenhanced Reply (it reads S as a reserved bit, RFC 5044).
    pub max_revision: u8,
    /// Initiator: send enhanced frames (S=1, RFC 6581). Responder: understand them.
    pub enhanced: bool,
    /// Initiator: accept a Reply of a lower revision (falling back to RFC 5044 behaviour:
    /// unenhanced, IRD/ORD left to the ULP, no RTR). Otherwise such a Reply is an error.
    pub allow_revision_fallback: bool,
    /// Responder: treat a Request of revision 0 (RDMAC-era peers) as revision 1 (§3.1).
    pub accept_rev0: bool,
    /// C bit sent: this side wants CRCs (§3.2).
    pub crc: bool,
    /// M bit sent: this side wants markers on what it receives (§3.2).
    pub rx_markers: bool,
    /// The device implements markers (`FEATURES_MARKERS`, [`crate::device::markers_supported`]).
    /// Without them `rx_markers` is a setup error ([`ConnError::MarkersUnsupported`]) and a
    /// peer that requires markers (M = 1) is refused ([`ConnError::PeerRequiresMarkers`]).
    pub markers_supported: bool,
    /// Initiator: IRD it advertises (the most it supports for now). Responder: the most IRD
    /// it gives. 0x3FFF in either IRD or ORD turns automatic negotiation off (§3.3).
    pub ird: u16,
    /// Initiator: its ORD (the IRD it asks of the Responder). Responder: its ULP's ORD.
    pub ord: u16,
    /// The most IRD the QP can be raised to (at most [`HW_MAX_IRD_ORD`]) (ENH-IRD-6/8).
    pub max_ird: u16,
    /// Initiator: ask for the peer-to-peer model (A=1). Responder: unused (A is echoed).
    pub peer_to_peer: bool,
    /// Initiator: RTR forms it can send. Responder: forms it accepts as RTR.
    pub rtr: RtrOptions,
    /// Initiator: put the RTR's FPDU octets in [`Connection::output`] (raw path). Off when the
    /// caller sends the zero-length Write or Read RTR as the first work request of the FPDU
    /// engine's send queue instead ([`ConnParams::rtr`] says which), so that the engine's
    /// marker grid, MSNs and ORD count it (the core: `host-driver/src/cm.rs`). The empty-FPDU
    /// form (B) is no work request: it is always in the output.
    pub rtr_in_output: bool,
    /// Effective MSS of the TCP connection, for the MULPDU of sent FPDUs (§5.4).
    pub emss: u16,
    /// Largest ULPDU accepted on receive (`QP_ULPDU[15:0]`).
    pub rx_max_ulpdu: u16,
    /// Setup deadline, in `tick` units, from `connect` / `listen` to established (§5.6; the
    /// catalog recommends 20 s as the default of a register).
    pub timeout: u64,
    /// Error Type of the Terminate sent for codes 5/6/7 (§4.4: 0x3 per the spec).
    pub term_error_type: u8,
}

impl Default for ConnConfig {
    fn default() -> Self {
        ConnConfig {
            max_revision: REVISION_2,
            enhanced: true,
            allow_revision_fallback: true,
            accept_rev0: true,
            crc: true,
            rx_markers: false,
            markers_supported: true,
            ird: 4,
            ord: 4,
            max_ird: HW_MAX_IRD_ORD,
            peer_to_peer: false,
            rtr: RtrOptions {
                zero_length_fpdu: false,
                zero_length_write: true,
                zero_length_read: true,
            },
            rtr_in_output: true,
            emss: 1460,
            rx_max_ulpdu: 1454,
            timeout: 20_000,
            term_error_type: TERMINATE_ETYPE_LLP,
        }
    }
}

/// The negotiated result: what `commit_qp` programs (`QP_CTRL`, `QP_ULPDU`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnParams {
    /// This side's role.
    pub role: Role,
    /// Revision of the Reply (the one in use).
    pub revision: u8,
    /// Both frames were enhanced (S=1).
    pub enhanced: bool,
    /// Check CRCs of received FPDUs (Req.C | Rep.C, §3.2).
    pub rx_crc: bool,
    /// Generate CRCs (Req.C | Rep.C, §3.2).
    pub tx_crc: bool,
    /// Received FPDUs carry markers (the M bit this side sent).
    pub rx_markers: bool,
    /// Insert markers (the M bit the peer sent).
    pub tx_markers: bool,
    /// Local IRD after negotiation.
    pub ird: u16,
    /// Local ORD after negotiation.
    pub ord: u16,
    /// The peer's IRD and ORD as it advertised them (enhanced frames only; ENH-IRD-1).
    pub remote_ird_ord: Option<(u16, u16)>,
    /// Largest ULPDU sent: MULPDU of the EMSS with `tx_markers` (§5.4).
    pub tx_mulpdu: u16,
    /// Largest ULPDU accepted.
    pub rx_max_ulpdu: u16,
    /// The RTR: the form the Initiator sent, or the one the Responder received first.
    pub rtr: RtrForm,
    /// FPDU-mode octets this side already sent through the raw path (the RTR; 0 otherwise).
    pub tx_fpdu_octets: usize,
}

/// What the Responder's ULP learns from a valid Request (ENH-IRD-1, §2.4 R_REQ_RCVD).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestInfo {
    /// Rev of the Request (0 is reported as received).
    pub revision: u8,
    /// M of the Request.
    pub markers: bool,
    /// C of the Request.
    pub crc: bool,
    /// The Initiator's enhanced data (S=1 and understood).
    pub enhanced: Option<EnhancedData>,
}

/// Connection state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConnState {
    /// Nothing started.
    Idle,
    /// Initiator: Request sent, waiting for the Reply.
    RequestSent,
    /// Responder: waiting for the Request.
    AwaitRequest,
    /// Responder: a valid Request is waiting for the ULP's accept / reject.
    RequestReceived,
    /// Responder: Reply sent; RX in FPDU mode, TX fenced until the first valid FPDU.
    AwaitFirstFpdu,
    /// FPDU mode both ways; [`Connection::params`] is set.
    Established,
    /// Rejected (R=1): by the peer (Initiator) or by the ULP (Responder). Close the LLP.
    Rejected,
    /// Failed; [`Connection::error`] says why. Close the LLP.
    Failed,
}

/// Why a setup failed. `Copy`, no payload beyond numbers: cheap to keep and report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnError {
    /// The key is neither MPA key (ENH-RX-KEY).
    BadKey,
    /// The other role's key: Initiator/Initiator or Responder/Responder pairing (ENH-RX-KEY).
    WrongKey,
    /// A revision this side cannot use (> 2, or 0 when not accepted) (ENH-RX-REV).
    BadRevision(u8),
    /// PD_Length over 512 (ENH-RX-PDLEN); detected as soon as the header is in.
    PrivateDataTooLong(u16),
    /// Any other invalid frame (R in a Request, S without Rev 2 or without 4 PD octets).
    InvalidFrame(mpa::Error),
    /// Octets after the frame before this side has sent its next message (ENH-RX-EXTRA).
    TrailingBytes,
    /// The LLP closed with a frame half received.
    Truncated {
        /// Octets of the frame received.
        received: usize,
    },
    /// The LLP closed (or was reset) before setup completed (LLP code 0x01).
    ConnectionLost,
    /// The setup deadline passed in `state`.
    Timeout {
        /// The state that waited.
        state: ConnState,
        /// Octets of a partial frame received by then (0 if none).
        partial: usize,
    },
    /// The Reply's revision is higher than the Request's, or lower without fallback allowed.
    RevisionMismatch {
        /// Rev sent.
        sent: u8,
        /// Rev received.
        received: u8,
    },
    /// S of the Reply does not match S of the Request (§3.1 Initiator checks).
    EnhancedMismatch,
    /// A of the Reply differs from A of the Request (ENH-RTR-2).
    PeerToPeerMismatch,
    /// The Responder's ORD exceeds the IRD this side can give; Terminate 2/3/6 was queued
    /// (ENH-IRD-8).
    InsufficientIrd {
        /// The peer's IRD.
        remote_ird: u16,
        /// The peer's ORD.
        remote_ord: u16,
    },
    /// No RTR form the Responder accepts can be sent; Terminate 2/3/7 was queued (ENH-SM-6).
    NoMatchingRtr,
    /// The first FPDU failed its check (CRC, marker, length); no Terminate (TX still fenced,
    /// catalog §8 item 6).
    BadFirstFpdu(mpa::Error),
    /// The first FPDU was a Terminate from the peer.
    PeerTerminated(TerminateCode),
    /// Local private data over [`MAX_ULP_PRIVATE_DATA`] (or 512 unenhanced).
    LocalPrivateDataTooLong(usize),
    /// A configuration value out of range (IRD/ORD over 14 bits, revision not 1 or 2).
    BadConfig,
    /// This side asks for markers (`rx_markers`) on a device without them
    /// (`markers_supported` false): `connect` / `listen` refuse to start, nothing is sent.
    MarkersUnsupported,
    /// The peer requires markers (M = 1 in its Request or Reply, §3.2: this side would have to
    /// insert them) and the device has none. A Responder has queued a Reply with R = 1 (the
    /// RFC 5044 §7.1 refusal of a Request); an Initiator queues nothing (every FPDU, a
    /// Terminate included, would need markers) and closes the LLP.
    PeerRequiresMarkers,
    /// The call does not fit the state (e.g. `accept` without a Request).
    BadState(ConnState),
    /// The output buffer is full: the caller did not drain [`Connection::output`].
    OutputFull,
}

impl ConnError {
    /// The LLP (Layer 2) error code that describes this failure (§4.1, §4.2), if any.
    pub fn llp_error_code(self) -> Option<LlpErrorCode> {
        match self {
            ConnError::BadKey
            | ConnError::WrongKey
            | ConnError::BadRevision(_)
            | ConnError::PrivateDataTooLong(_)
            | ConnError::InvalidFrame(_)
            | ConnError::TrailingBytes
            | ConnError::Truncated { .. }
            | ConnError::RevisionMismatch { .. }
            | ConnError::EnhancedMismatch
            | ConnError::PeerToPeerMismatch => Some(LlpErrorCode::InvalidRequestOrReply),
            ConnError::ConnectionLost | ConnError::Timeout { .. } => {
                Some(LlpErrorCode::TcpConnectionLost)
            }
            // A local limitation with no specific code (§4.1 code 0x5); reported, not sent.
            ConnError::PeerRequiresMarkers => Some(LlpErrorCode::LocalCatastrophic),
            ConnError::InsufficientIrd { .. } => Some(LlpErrorCode::InsufficientIrdResources),
            ConnError::NoMatchingRtr => Some(LlpErrorCode::NoMatchingRtrOption),
            ConnError::BadFirstFpdu(e) => e.llp_error_code(),
            ConnError::PeerTerminated(_)
            | ConnError::LocalPrivateDataTooLong(_)
            | ConnError::BadConfig
            | ConnError::MarkersUnsupported
            | ConnError::BadState(_)
            | ConnError::OutputFull => None,
        }
    }
}

impl From<mpa::Error> for ConnError {
    fn from(e: mpa::Error) -> Self {
        match e {
            mpa::Error::BadKey => ConnError::BadKey,
            mpa::Error::WrongKey => ConnError::WrongKey,
            mpa::Error::TrailingBytes => ConnError::TrailingBytes,
            other => ConnError::InvalidFrame(other),
        }
    }
}

/// The FPDU octets of an RTR form (no markers, stream offset 0 unless `markers`), written at
/// the start of `out`; returns the length. `Ok(0)` for forms that send nothing.
pub fn build_rtr(
    form: RtrForm,
    markers: bool,
    crc: bool,
    out: &mut [u8],
) -> Result<usize, mpa::Error> {
    let msg = match form {
        RtrForm::None | RtrForm::UlpSend => return Ok(0),
        RtrForm::ZeroLengthFpdu => None,
        RtrForm::ZeroLengthWrite => Some(Message {
            last: true,
            ddp: DdpFields::Tagged {
                stag: RTR_STAG,
                to: 0,
            },
            body: Body::RdmaWrite { payload: &[] },
        }),
        RtrForm::ZeroLengthRead => Some(Message {
            last: true,
            ddp: DdpFields::Untagged { msn: 1, mo: 0 },
            body: Body::RdmaReadRequest(ReadRequestRepr {
                sink_stag: RTR_STAG,
                sink_to: 0,
                read_size: 0,
                src_stag: RTR_STAG,
                src_to: 0,
            }),
        }),
    };
    frame_message(msg.as_ref(), markers, crc, out)
}

/// The zero-length RDMA Read Response that answers a Read RTR (tagged, L=1, STag and TO the
/// request's Data Sink; §2.5, golden vector V4). The core's read responder sends it; this
/// builder is the reference.
pub fn build_read_rtr_response(
    request: &ReadRequestRepr,
    markers: bool,
    crc: bool,
    out: &mut [u8],
) -> Result<usize, mpa::Error> {
    let msg = Message {
        last: true,
        ddp: DdpFields::Tagged {
            stag: request.sink_stag,
            to: request.sink_to,
        },
        body: Body::RdmaReadResponse { payload: &[] },
    };
    frame_message(Some(&msg), markers, crc, out)
}

/// A Terminate (QN 2, MSN 1, no headers) with an LLP code, as the first FPDU (§4.3, V5/V6).
pub fn build_llp_terminate(
    error_type: u8,
    code: LlpErrorCode,
    markers: bool,
    crc: bool,
    out: &mut [u8],
) -> Result<usize, mpa::Error> {
    let msg = Message {
        last: true,
        ddp: DdpFields::Untagged { msn: 1, mo: 0 },
        body: Body::Terminate(TerminateRepr::new(TerminateCode::Llp {
            error_type,
            error_code: code.code(),
        })),
    };
    frame_message(Some(&msg), markers, crc, out)
}

fn frame_message(
    msg: Option<&Message<'_>>,
    markers: bool,
    crc: bool,
    out: &mut [u8],
) -> Result<usize, mpa::Error> {
    let mut ulpdu = [0u8; 64];
    let len = match msg {
        None => 0,
        Some(m) => {
            let n = m.buffer_len();
            let buf = ulpdu.get_mut(..n).ok_or(mpa::Error::BufferTooSmall)?;
            m.emit(&mut ddp::Packet::new_unchecked(buf))
                .map_err(|_| mpa::Error::BufferTooSmall)?;
            n
        }
    };
    Framer::new(markers, crc).write_fpdu(&ulpdu[..len], out)
}

/// One MPA connection's setup.
#[derive(Debug)]
pub struct Connection {
    role: Role,
    cfg: ConnConfig,
    state: ConnState,
    error: Option<ConnError>,
    deadline: u64,
    /// Frame being received.
    rx: [u8; MAX_FRAME_LEN],
    rx_len: usize,
    /// Queued output.
    out: [u8; OUTPUT_CAP],
    out_len: usize,
    /// Our frame's M, C, Rev, S, A (as sent).
    sent_rev: u8,
    sent_enhanced: bool,
    /// Peer's private data (ULP part) of the last frame received.
    remote_pd: [u8; MAX_PRIVATE_DATA],
    remote_pd_len: usize,
    request: Option<RequestInfo>,
    /// Responder: the Request had S=1 but this side does not do RFC 6581; it answers as an
    /// RFC 5044 Responder would (Rev 1), so that the Initiator can fall back.
    s_ignored: bool,
    /// Responder: negotiated parameters waiting for the first FPDU.
    params: Option<ConnParams>,
    /// Responder, raw mode: the first FPDU's inspector.
    peek: Option<Deframer<[u8; PEEK_MAX_ULPDU]>>,
    /// Remote enhanced data of the Reject (Initiator) for the ULP (ENH-IRD-1).
    reject_ird_ord: Option<(u16, u16)>,
}

impl Connection {
    /// A connection of `role`, idle.
    pub fn new(role: Role, cfg: ConnConfig) -> Self {
        Connection {
            role,
            cfg,
            state: ConnState::Idle,
            error: None,
            deadline: 0,
            rx: [0; MAX_FRAME_LEN],
            rx_len: 0,
            out: [0; OUTPUT_CAP],
            out_len: 0,
            sent_rev: 0,
            sent_enhanced: false,
            remote_pd: [0; MAX_PRIVATE_DATA],
            remote_pd_len: 0,
            request: None,
            s_ignored: false,
            params: None,
            peek: None,
            reject_ird_ord: None,
        }
    }

    /// The role.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The state.
    pub fn state(&self) -> ConnState {
        self.state
    }

    /// Why the connection failed ([`ConnState::Failed`]).
    pub fn error(&self) -> Option<ConnError> {
        self.error
    }

    /// The negotiated parameters, once established (Responder: also while awaiting the
    /// first FPDU, for `commit_qp` with TX fenced).
    pub fn params(&self) -> Option<ConnParams> {
        match self.state {
            ConnState::Established | ConnState::AwaitFirstFpdu => self.params,
            _ => None,
        }
    }

    /// Responder: the Request's parameters (from [`ConnState::RequestReceived`] on).
    pub fn request_info(&self) -> Option<RequestInfo> {
        self.request
    }

    /// The peer's ULP private data from its last frame (Request, Reply or Reject).
    pub fn remote_private_data(&self) -> &[u8] {
        &self.remote_pd[..self.remote_pd_len]
    }

    /// Initiator: the Responder's IRD / ORD carried in an enhanced Reject (ENH-IRD-1, -5).
    pub fn reject_ird_ord(&self) -> Option<(u16, u16)> {
        self.reject_ird_ord
    }

    /// Received octets are MPA frames (raw mode); false once RX is in FPDU mode.
    pub fn rx_raw_mode(&self) -> bool {
        matches!(
            self.state,
            ConnState::Idle
                | ConnState::RequestSent
                | ConnState::AwaitRequest
                | ConnState::RequestReceived
        )
    }

    /// The send fence: no FPDU (nor marker) may be sent by the core. True until the
    /// Responder has received a valid FPDU (MPA-ST-4), and always before establishment.
    pub fn tx_fenced(&self) -> bool {
        self.state != ConnState::Established
    }

    /// Octets waiting to be sent on the LLP (frames, then the RTR or a Terminate).
    pub fn output(&self) -> &[u8] {
        &self.out[..self.out_len]
    }

    /// Releases the first `n` octets of [`Connection::output`] (sent).
    pub fn consume_output(&mut self, n: usize) {
        let n = n.min(self.out_len);
        self.out.copy_within(n..self.out_len, 0);
        self.out_len -= n;
    }

    /// Initiator: sends the Request with `private_data` (the ULP part) at time `now`.
    pub fn connect(&mut self, now: u64, private_data: &[u8]) -> Result<(), ConnError> {
        if self.role != Role::Initiator || self.state != ConnState::Idle {
            return Err(ConnError::BadState(self.state));
        }
        self.check_config()?;
        let enhanced = self.cfg.enhanced && self.cfg.max_revision >= REVISION_2;
        let enh = enhanced.then_some(EnhancedData {
            ird: self.cfg.ird,
            ord: self.cfg.ord,
            peer_to_peer: self.cfg.peer_to_peer.then_some(self.cfg.rtr),
        });
        self.sent_rev = self.cfg.max_revision;
        self.sent_enhanced = enhanced;
        let repr = FrameRepr {
            kind: FrameKind::Request,
            markers: self.cfg.rx_markers,
            crc: self.cfg.crc,
            reject: false,
            revision: self.cfg.max_revision,
            enhanced: enh,
            private_data,
        };
        self.push_frame(&repr)?;
        self.deadline = now.saturating_add(self.cfg.timeout);
        self.state = ConnState::RequestSent;
        Ok(())
    }

    /// Responder: starts waiting for the Request at time `now`.
    pub fn listen(&mut self, now: u64) -> Result<(), ConnError> {
        if self.role != Role::Responder || self.state != ConnState::Idle {
            return Err(ConnError::BadState(self.state));
        }
        self.check_config()?;
        self.deadline = now.saturating_add(self.cfg.timeout);
        self.state = ConnState::AwaitRequest;
        Ok(())
    }

    fn check_config(&self) -> Result<(), ConnError> {
        let c = &self.cfg;
        let ok = (REVISION_1..=REVISION_2).contains(&c.max_revision)
            && c.ird <= IRD_ORD_NO_VALUE
            && c.ord <= IRD_ORD_NO_VALUE
            && c.max_ird <= HW_MAX_IRD_ORD
            && c.term_error_type <= 0xF;
        if !ok {
            Err(ConnError::BadConfig)
        } else if c.rx_markers && !c.markers_supported {
            Err(ConnError::MarkersUnsupported)
        } else {
            Ok(())
        }
    }

    /// Advances time: past the deadline, a setup still in progress fails with
    /// [`ConnError::Timeout`]. The Responder's wait for the first FPDU is timed only in the
    /// peer-to-peer model (a client may stay silent as long as it likes, §2.4).
    pub fn tick(&mut self, now: u64) {
        if now < self.deadline {
            return;
        }
        let timed = match self.state {
            ConnState::RequestSent | ConnState::AwaitRequest | ConnState::RequestReceived => true,
            ConnState::AwaitFirstFpdu => {
                matches!(self.params, Some(p) if p.rtr != RtrForm::None)
            }
            _ => false,
        };
        if timed {
            let partial = self.rx_len;
            self.fail(ConnError::Timeout {
                state: self.state,
                partial,
            });
        }
    }

    /// The LLP closed or was reset by the peer.
    pub fn on_llp_closed(&mut self) {
        match self.state {
            ConnState::RequestSent | ConnState::AwaitRequest if self.rx_len > 0 => {
                let received = self.rx_len;
                self.fail(ConnError::Truncated { received });
            }
            ConnState::RequestSent
            | ConnState::AwaitRequest
            | ConnState::RequestReceived
            | ConnState::AwaitFirstFpdu => self.fail(ConnError::ConnectionLost),
            _ => {}
        }
    }

    /// The core reports that the first valid FPDU arrived (hardware path): the Responder
    /// lifts the send fence.
    pub fn first_fpdu_received(&mut self) -> Result<(), ConnError> {
        if self.state != ConnState::AwaitFirstFpdu {
            return Err(ConnError::BadState(self.state));
        }
        self.establish();
        Ok(())
    }

    fn establish(&mut self) {
        self.state = ConnState::Established;
        self.peek = None;
    }

    fn fail(&mut self, e: ConnError) {
        self.error = Some(e);
        self.state = ConnState::Failed;
        self.peek = None;
    }

    fn push(&mut self, bytes: &[u8]) -> Result<(), ConnError> {
        let end = self.out_len + bytes.len();
        let dst = self
            .out
            .get_mut(self.out_len..end)
            .ok_or(ConnError::OutputFull)?;
        dst.copy_from_slice(bytes);
        self.out_len = end;
        Ok(())
    }

    fn push_frame(&mut self, repr: &FrameRepr<'_>) -> Result<(), ConnError> {
        let limit = if repr.enhanced.is_some() {
            MAX_ULP_PRIVATE_DATA
        } else {
            MAX_PRIVATE_DATA
        };
        if repr.private_data.len() > limit {
            return Err(ConnError::LocalPrivateDataTooLong(repr.private_data.len()));
        }
        let mut buf = [0u8; MAX_FRAME_LEN];
        let n = repr.buffer_len();
        repr.emit(&mut Frame::new_unchecked(&mut buf[..]))
            .map_err(|e| match e {
                mpa::Error::IrdOrdOutOfRange => ConnError::BadConfig,
                other => ConnError::InvalidFrame(other),
            })?;
        self.push(&buf[..n])
    }

    /// Received LLP octets. Returns how many were handshake octets; the rest (FPDU mode)
    /// belong to the FPDU engine. The Responder awaiting its first FPDU inspects them without
    /// consuming them. After a failure everything is refused (`Ok(0)`).
    pub fn on_raw_bytes(&mut self, data: &[u8]) -> Result<usize, ConnError> {
        match self.state {
            ConnState::RequestSent | ConnState::AwaitRequest => {
                let r = self.take_frame(data);
                if let Err(e) = r {
                    self.fail(e);
                }
                r
            }
            ConnState::RequestReceived => {
                // The Initiator cannot send before our Reply (ENH-RX-EXTRA).
                if data.is_empty() {
                    return Ok(0);
                }
                self.fail(ConnError::TrailingBytes);
                Err(ConnError::TrailingBytes)
            }
            ConnState::AwaitFirstFpdu => {
                if let Err(e) = self.peek_first_fpdu(data) {
                    self.fail(e);
                    return Err(e);
                }
                Ok(0)
            }
            _ => Ok(0),
        }
    }

    /// Accumulates a frame; on the last octet, handles it.
    fn take_frame(&mut self, data: &[u8]) -> Result<usize, ConnError> {
        let mut used = 0;
        // Header first: its checks happen before any PD is waited for.
        if self.rx_len < HEADER_LEN {
            let n = (HEADER_LEN - self.rx_len).min(data.len());
            self.rx[self.rx_len..self.rx_len + n].copy_from_slice(&data[..n]);
            self.rx_len += n;
            used += n;
            if self.rx_len < HEADER_LEN {
                return Ok(used);
            }
            self.check_header()?;
        }
        let total = HEADER_LEN + usize::from(Frame::new_unchecked(&self.rx[..]).pd_length());
        let n = (total - self.rx_len).min(data.len() - used);
        self.rx[self.rx_len..self.rx_len + n].copy_from_slice(&data[used..used + n]);
        self.rx_len += n;
        used += n;
        if self.rx_len < total {
            return Ok(used);
        }
        // A complete frame; anything after it in this call is an error (ENH-RX-EXTRA): the
        // peer cannot have seen our next message yet.
        if used < data.len() {
            return Err(ConnError::TrailingBytes);
        }
        let r = match self.role {
            Role::Responder => self.on_request(),
            Role::Initiator => self.on_reply(),
        };
        self.rx_len = 0;
        r.map(|()| used)
    }

    fn expected_kind(&self) -> FrameKind {
        match self.role {
            Role::Responder => FrameKind::Request,
            Role::Initiator => FrameKind::Reply,
        }
    }

    /// Key, revision and PD_Length checks on the 20 header octets.
    fn check_header(&self) -> Result<(), ConnError> {
        let f = Frame::new_unchecked(&self.rx[..HEADER_LEN]);
        match f.kind() {
            None => return Err(ConnError::BadKey),
            Some(k) if k != self.expected_kind() => return Err(ConnError::WrongKey),
            Some(_) => {}
        }
        let rev = f.revision();
        if rev > REVISION_2 || (rev == 0 && !(self.role == Role::Responder && self.cfg.accept_rev0))
        {
            return Err(ConnError::BadRevision(rev));
        }
        if usize::from(f.pd_length()) > MAX_PRIVATE_DATA {
            return Err(ConnError::PrivateDataTooLong(f.pd_length()));
        }
        Ok(())
    }

    fn store_remote_pd(&mut self, pd: &[u8]) {
        let n = pd.len().min(MAX_PRIVATE_DATA);
        self.remote_pd[..n].copy_from_slice(&pd[..n]);
        self.remote_pd_len = n;
    }

    /// Responder: a complete Request.
    fn on_request(&mut self) -> Result<(), ConnError> {
        let rx = self.rx;
        let len = self.rx_len;
        let frame = Frame::new_unchecked(&rx[..len]);
        let repr = FrameRepr::parse(&frame, FrameKind::Request)?;
        // A revision-1 Responder reads S as a reserved bit: the whole PD is the ULP's.
        let understood = self.cfg.enhanced && self.cfg.max_revision >= REVISION_2;
        let (enhanced, pd) = match repr.enhanced {
            Some(e) if understood => (Some(e), repr.private_data),
            Some(_) => (None, frame.private_data()),
            None => (None, repr.private_data),
        };
        self.s_ignored = repr.enhanced.is_some() && !understood;
        self.store_remote_pd(pd);
        let req = RequestInfo {
            revision: repr.revision,
            markers: repr.markers,
            crc: repr.crc,
            enhanced,
        };
        self.request = Some(req);
        if req.markers && !self.cfg.markers_supported {
            // This side would have to insert markers (§3.2) and cannot: refused with a Reject
            // (no private data), before the ULP is asked.
            self.push_reject(&req, &[])?;
            return Err(ConnError::PeerRequiresMarkers);
        }
        self.state = ConnState::RequestReceived;
        Ok(())
    }

    /// The Reply revision / S of the Responder, from the Request (§3.1 policy table).
    fn reply_revision(&self, req: &RequestInfo) -> u8 {
        match req.revision {
            _ if self.s_ignored => REVISION_1,
            0 | 1 => REVISION_1,
            _ => self.cfg.max_revision.min(REVISION_2),
        }
    }

    /// Responder: accepts the Request, queues the Reply with `private_data`; RX switches to
    /// FPDU mode at the octet after the Request, TX stays fenced.
    pub fn accept(&mut self, private_data: &[u8]) -> Result<ConnParams, ConnError> {
        let req = match (self.state, self.request) {
            (ConnState::RequestReceived, Some(r)) => r,
            _ => return Err(ConnError::BadState(self.state)),
        };
        let c = self.cfg;
        let (reply_enh, ird, ord, remote, rtr) = match req.enhanced {
            None => (
                None,
                c.ird.min(c.max_ird),
                c.ord.min(HW_MAX_IRD_ORD),
                None,
                RtrForm::None,
            ),
            Some(e) => {
                let (ird_r, ord_r, local_ird, local_ord) = if e.auto_negotiation() {
                    let mut ird_r = e.ord.min(c.ird).min(c.max_ird);
                    let read_rtr = matches!(e.peer_to_peer, Some(o) if o.zero_length_read)
                        && c.rtr.zero_length_read;
                    if e.ord == 0 && read_rtr && c.max_ird >= 1 {
                        ird_r = ird_r.max(1); // ENH-IRD-3 exception
                    }
                    let ord_r = c.ord.min(e.ird).min(HW_MAX_IRD_ORD); // ENH-IRD-4
                    (ird_r, ord_r, ird_r, ord_r)
                } else {
                    // No automatic negotiation: echo the ULP's values (§3.3).
                    (
                        c.ird,
                        c.ord,
                        c.ird.min(c.max_ird),
                        c.ord.min(HW_MAX_IRD_ORD),
                    )
                };
                let p2p = e.peer_to_peer.map(|_| RtrOptions {
                    zero_length_fpdu: c.rtr.zero_length_fpdu,
                    zero_length_write: c.rtr.zero_length_write,
                    // D needs an IRD slot (ENH-RTR-5).
                    zero_length_read: c.rtr.zero_length_read && local_ird >= 1,
                });
                let rtr = match p2p {
                    None => RtrForm::None,
                    Some(_) => RtrForm::UlpSend, // refined by the first FPDU
                };
                let reply = EnhancedData {
                    ird: ird_r,
                    ord: ord_r,
                    peer_to_peer: p2p,
                };
                (Some(reply), local_ird, local_ord, Some((e.ird, e.ord)), rtr)
            }
        };
        let revision = self.reply_revision(&req);
        let reply_enh = if revision >= REVISION_2 {
            reply_enh
        } else {
            None
        };
        let repr = FrameRepr {
            kind: FrameKind::Reply,
            markers: c.rx_markers,
            crc: c.crc,
            reject: false,
            revision,
            enhanced: reply_enh,
            private_data,
        };
        self.push_frame(&repr)?;
        let crc = req.crc || c.crc;
        let params = ConnParams {
            role: Role::Responder,
            revision,
            enhanced: reply_enh.is_some(),
            rx_crc: crc,
            tx_crc: crc,
            rx_markers: c.rx_markers,
            tx_markers: req.markers,
            ird,
            ord,
            remote_ird_ord: remote,
            tx_mulpdu: mulpdu(c.emss, req.markers),
            rx_max_ulpdu: c.rx_max_ulpdu,
            rtr,
            tx_fpdu_octets: 0,
        };
        self.params = Some(params);
        self.peek = Deframer::new(
            [0u8; PEEK_MAX_ULPDU],
            DeframerConfig {
                markers: c.rx_markers,
                crc,
                max_ulpdu: PEEK_MAX_ULPDU as u16,
                stream_offset: 0,
            },
        )
        .ok();
        self.state = ConnState::AwaitFirstFpdu;
        Ok(params)
    }

    /// Responder: rejects the Request with `private_data` (R=1). An enhanced Request gets an
    /// enhanced Reject carrying this side's IRD and ORD (the ORD its ULP requires, ENH-IRD-5).
    pub fn reject(&mut self, private_data: &[u8]) -> Result<(), ConnError> {
        let req = match (self.state, self.request) {
            (ConnState::RequestReceived, Some(r)) => r,
            _ => return Err(ConnError::BadState(self.state)),
        };
        self.push_reject(&req, private_data)?;
        self.state = ConnState::Rejected;
        Ok(())
    }

    /// Queues the Reply with R = 1 to `req` (see [`Connection::reject`]).
    fn push_reject(&mut self, req: &RequestInfo, private_data: &[u8]) -> Result<(), ConnError> {
        let revision = self.reply_revision(req);
        let enhanced = match req.enhanced {
            Some(_) if revision >= REVISION_2 => Some(EnhancedData {
                ird: self.cfg.ird,
                ord: self.cfg.ord,
                peer_to_peer: None,
            }),
            _ => None,
        };
        let repr = FrameRepr {
            kind: FrameKind::Reply,
            markers: self.cfg.rx_markers,
            crc: self.cfg.crc,
            reject: true,
            revision,
            enhanced,
            private_data,
        };
        self.push_frame(&repr)
    }

    /// Initiator: a complete Reply.
    fn on_reply(&mut self) -> Result<(), ConnError> {
        let rx = self.rx;
        let len = self.rx_len;
        let repr = FrameRepr::parse(&Frame::new_unchecked(&rx[..len]), FrameKind::Reply)?;
        self.store_remote_pd(repr.private_data);
        let c = self.cfg;
        let fallback = repr.revision < self.sent_rev;
        if repr.revision > self.sent_rev || (fallback && !c.allow_revision_fallback) {
            return Err(ConnError::RevisionMismatch {
                sent: self.sent_rev,
                received: repr.revision,
            });
        }
        // Enhanced on both sides, or on neither; a revision-1 Reply falls back to unenhanced.
        let enhanced = match (self.sent_enhanced, repr.enhanced) {
            (true, Some(e)) => Some(e),
            (true, None) if fallback => None,
            (false, None) => None,
            _ => return Err(ConnError::EnhancedMismatch),
        };
        if repr.reject {
            self.reject_ird_ord = enhanced.map(|e| (e.ird, e.ord));
            self.state = ConnState::Rejected;
            return Ok(());
        }
        if repr.markers && !c.markers_supported {
            // This side would have to insert markers (§3.2) and cannot; any FPDU (a Terminate
            // too) would need them, so nothing is sent: the LLP is closed.
            return Err(ConnError::PeerRequiresMarkers);
        }
        let crc = c.crc || repr.crc;
        let tx_markers = repr.markers;
        let (ird, ord, remote, rtr) = match enhanced {
            None => (
                c.ird.min(c.max_ird),
                c.ord.min(HW_MAX_IRD_ORD),
                None,
                RtrForm::None,
            ),
            Some(e) => {
                let remote = Some((e.ird, e.ord));
                if e.peer_to_peer.is_some() != c.peer_to_peer {
                    return Err(ConnError::PeerToPeerMismatch);
                }
                let ours = EnhancedData {
                    ird: c.ird,
                    ord: c.ord,
                    peer_to_peer: None,
                };
                let (ird, ord) = if e.auto_negotiation() && ours.auto_negotiation() {
                    if e.ord > c.max_ird {
                        self.queue_terminate(
                            LlpErrorCode::InsufficientIrdResources,
                            tx_markers,
                            crc,
                        )?;
                        return Err(ConnError::InsufficientIrd {
                            remote_ird: e.ird,
                            remote_ord: e.ord,
                        });
                    }
                    // IRD exactly the peer's ORD (ENH-IRD-6: >=; more would be unused),
                    // ORD down to the peer's IRD (ENH-IRD-7).
                    (e.ord, c.ord.min(e.ird).min(HW_MAX_IRD_ORD))
                } else {
                    (c.ird.min(c.max_ird), c.ord.min(HW_MAX_IRD_ORD))
                };
                let rtr = match e.peer_to_peer {
                    None => RtrForm::None,
                    Some(o) => {
                        let (w, r, f) = (
                            o.zero_length_write && c.rtr.zero_length_write,
                            o.zero_length_read && c.rtr.zero_length_read && ord >= 1,
                            o.zero_length_fpdu && c.rtr.zero_length_fpdu,
                        );
                        if w {
                            RtrForm::ZeroLengthWrite
                        } else if r {
                            RtrForm::ZeroLengthRead
                        } else if f {
                            RtrForm::ZeroLengthFpdu
                        } else if !(o.zero_length_write || o.zero_length_read || o.zero_length_fpdu)
                        {
                            RtrForm::UlpSend
                        } else {
                            self.queue_terminate(
                                LlpErrorCode::NoMatchingRtrOption,
                                tx_markers,
                                crc,
                            )?;
                            return Err(ConnError::NoMatchingRtr);
                        }
                    }
                };
                (ird, ord, remote, rtr)
            }
        };
        let mut rtr_buf = [0u8; 96];
        let n = if c.rtr_in_output || rtr == RtrForm::ZeroLengthFpdu {
            build_rtr(rtr, tx_markers, crc, &mut rtr_buf).map_err(ConnError::BadFirstFpdu)?
        } else {
            0
        };
        self.push(&rtr_buf[..n])?;
        self.params = Some(ConnParams {
            role: Role::Initiator,
            revision: repr.revision,
            enhanced: enhanced.is_some(),
            rx_crc: crc,
            tx_crc: crc,
            rx_markers: c.rx_markers,
            tx_markers,
            ird,
            ord,
            remote_ird_ord: remote,
            tx_mulpdu: mulpdu(c.emss, tx_markers),
            rx_max_ulpdu: c.rx_max_ulpdu,
            rtr,
            tx_fpdu_octets: n,
        });
        self.establish();
        Ok(())
    }

    fn queue_terminate(
        &mut self,
        code: LlpErrorCode,
        markers: bool,
        crc: bool,
    ) -> Result<(), ConnError> {
        let mut buf = [0u8; 96];
        let n = build_llp_terminate(self.cfg.term_error_type, code, markers, crc, &mut buf)
            .map_err(ConnError::BadFirstFpdu)?;
        self.push(&buf[..n])
    }

    /// Responder, raw mode: inspects FPDU-mode octets until the first FPDU is complete.
    fn peek_first_fpdu(&mut self, data: &[u8]) -> Result<(), ConnError> {
        let Some(de) = self.peek.as_mut() else {
            return Ok(());
        };
        let mut rest = data;
        while !rest.is_empty() {
            let (n, d) = de.feed(rest);
            rest = &rest[n..];
            if let Some(d) = d {
                if d.status != Status::Good {
                    return Err(ConnError::BadFirstFpdu(
                        d.status.error().unwrap_or(mpa::Error::BadCrc),
                    ));
                }
                let form = classify_first_ulpdu(d.ulpdu)?;
                if let Some(p) = self.params.as_mut() {
                    if p.rtr != RtrForm::None {
                        p.rtr = form;
                    }
                }
                self.establish();
                return Ok(());
            }
            if n == 0 {
                break;
            }
        }
        if let Some(e) = self.peek.as_ref().and_then(|d| d.error()) {
            return Err(ConnError::BadFirstFpdu(e));
        }
        Ok(())
    }
}

/// What the first FPDU is: an RTR form, a ULP message (`UlpSend`), or a Terminate (error).
fn classify_first_ulpdu(ulpdu: &[u8]) -> Result<RtrForm, ConnError> {
    if ulpdu.is_empty() {
        return Ok(RtrForm::ZeroLengthFpdu);
    }
    match Message::parse(&ddp::Packet::new_unchecked(ulpdu), Extensions::NONE) {
        Ok(m) => match m.body {
            Body::RdmaWrite { payload } if payload.is_empty() && m.last => {
                Ok(RtrForm::ZeroLengthWrite)
            }
            Body::RdmaReadRequest(r) if r.read_size == 0 => Ok(RtrForm::ZeroLengthRead),
            Body::Terminate(t) => Err(ConnError::PeerTerminated(t.code)),
            _ => Ok(RtrForm::UlpSend),
        },
        // A malformed first message is the core's to report (a Terminate); the fence is
        // lifted by any FPDU that passed MPA's checks (§2.4).
        Err(_) => Ok(RtrForm::UlpSend),
    }
}

/// `true` if `v` can be sent as IRD/ORD (0..=0x3FFE, or 0x3FFF for "no negotiation").
pub const fn ird_ord_encodable(v: u16) -> bool {
    v <= IRD_ORD_MAX || v == IRD_ORD_NO_VALUE
}
