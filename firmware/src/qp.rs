//! The QP state machine (RFC 5040 §6; catalog `rfc5040-rdmap.md` §4.1–§4.3, §5.3):
//!
//! ```text
//! Idle ──Connect──► Connecting ──Established──► Rts ──Close / PeerClosed──► Closing ──LlpClosed──► Closed
//!                       │                        │                            │
//!                  ConnFailed               TerminateSent / TerminateReceived / BadTerminate / CqOverflow
//!                       ▼                        ▼                            ▼
//!                     Error ◄──LlpClosed── Terminate ◄──────────────────────────┘
//! any active state ──LlpReset──► Error          Closed / Error ──Reset──► Idle
//! ```
//!
//! - **Graceful close** (ULP Graceful Termination, §6.2 case 1): `Close` (local) or
//!   `PeerClosed` (FIN) from RTS → Closing; the LLP finishing its teardown → Closed.
//! - **Abortive termination** (RDMAP, §6.2.1): a Terminate sent or received → Terminate; the
//!   QP sends at most one Terminate, then the LLP is closed gracefully so that it arrives
//!   (§4.3 "send the Terminate, then FIN") → Error. The Terminate is surfaced once as an
//!   [`AsyncEvent`] with its layer / error type / code ([`AsyncEventKind`]).
//! - **LLP abortive termination** (RST) → Error with no Terminate.
//! - Every other (state, event) pair is a typed [`QpError::InvalidTransition`]; the state is
//!   left unchanged.

use crate::conn::{ConnError, ConnParams};
use rnic_proto::host::regs;
use rnic_proto::rdmap::TerminateCode;
use rnic_proto::verbs::AsyncEventKind;

/// QP states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QpState {
    /// No connection.
    Idle,
    /// MPA setup in progress (`conn`).
    Connecting,
    /// Ready to send: RDMA mode, FPDUs only (§4.1).
    Rts,
    /// Graceful teardown in progress.
    Closing,
    /// A Terminate was sent or received; the LLP is being closed.
    Terminate,
    /// Closed gracefully.
    Closed,
    /// In error: every WQE is flushed.
    Error,
}

/// What happens to a QP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QpEvent {
    /// The ULP connects (or a Request is being answered).
    Connect,
    /// MPA setup finished; the QP context is committed with these parameters.
    Established(ConnParams),
    /// MPA setup failed.
    ConnFailed(ConnError),
    /// The local ULP closes gracefully.
    Close,
    /// The peer closed its direction (FIN).
    PeerClosed,
    /// The LLP finished closing.
    LlpClosed,
    /// The LLP was reset (abortive, no Terminate possible).
    LlpReset,
    /// This side sent (queued) a Terminate.
    TerminateSent(TerminateCode),
    /// A Terminate arrived.
    TerminateReceived(TerminateCode),
    /// A malformed Terminate arrived (never answered).
    BadTerminateReceived,
    /// A CQ of the QP overflowed (RFC 5040 §8.1 item 10).
    CqOverflow,
    /// Returns a closed or failed QP to Idle for reuse.
    Reset,
}

/// An asynchronous event for the ULP (the `QP_AEV` register's content).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AsyncEvent {
    /// Which event.
    pub kind: AsyncEventKind,
    /// Terminate layer (4 bits).
    pub layer: u8,
    /// Terminate error type (4 bits).
    pub error_type: u8,
    /// Terminate error code.
    pub code: u8,
}

impl AsyncEvent {
    /// The event of a Terminate code.
    pub const fn terminate(kind: AsyncEventKind, code: TerminateCode) -> Self {
        AsyncEvent {
            kind,
            layer: code.layer(),
            error_type: code.error_type(),
            code: code.error_code(),
        }
    }

    /// Decodes `QP_AEV`: `[31]` valid, `[23:16]` kind, `[15:12]` layer, `[11:8]` type,
    /// `[7:0]` code. `None` when not valid or the kind is unknown.
    pub fn from_register(v: u32) -> Option<Self> {
        if v & regs::QP_AEV_VALID == 0 {
            return None;
        }
        Some(AsyncEvent {
            kind: AsyncEventKind::from_u8((v >> 16) as u8)?,
            layer: ((v >> 12) & 0xF) as u8,
            error_type: ((v >> 8) & 0xF) as u8,
            code: v as u8,
        })
    }

    /// The `QP_AEV` encoding.
    pub fn to_register(self) -> u32 {
        regs::QP_AEV_VALID
            | (u32::from(self.kind as u8) << 16)
            | (u32::from(self.layer & 0xF) << 12)
            | (u32::from(self.error_type & 0xF) << 8)
            | u32::from(self.code)
    }

    /// The Terminate code carried (for the Terminate kinds).
    pub const fn terminate_code(&self) -> TerminateCode {
        TerminateCode::from_raw(self.layer, self.error_type, self.code)
    }
}

/// A refused QP transition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QpError {
    /// `event` is not allowed in `from`.
    InvalidTransition {
        /// The state.
        from: QpState,
        /// The event refused.
        event: QpEvent,
    },
}

/// One QP's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Qp {
    state: QpState,
    params: Option<ConnParams>,
    conn_error: Option<ConnError>,
    /// The first asynchronous event, kept until read.
    event: Option<AsyncEvent>,
    /// A Terminate was already sent: never a second (§4.3).
    terminate_sent: bool,
}

impl Default for Qp {
    fn default() -> Self {
        Self::new()
    }
}

impl Qp {
    /// An idle QP.
    pub const fn new() -> Self {
        Qp {
            state: QpState::Idle,
            params: None,
            conn_error: None,
            event: None,
            terminate_sent: false,
        }
    }

    /// The state.
    pub fn state(&self) -> QpState {
        self.state
    }

    /// The connection parameters, once established.
    pub fn params(&self) -> Option<ConnParams> {
        self.params
    }

    /// Why the connection setup failed.
    pub fn conn_error(&self) -> Option<ConnError> {
        self.conn_error
    }

    /// Takes the pending asynchronous event (reported once).
    pub fn take_event(&mut self) -> Option<AsyncEvent> {
        self.event.take()
    }

    /// Whether a Terminate may still be sent (RTS or Closing, none sent yet).
    pub fn may_send_terminate(&self) -> bool {
        matches!(self.state, QpState::Rts | QpState::Closing) && !self.terminate_sent
    }

    fn raise(&mut self, ev: AsyncEvent) {
        // Only the first event is kept, as the core's QP_AEV does.
        if self.event.is_none() {
            self.event = Some(ev);
        }
    }

    /// Applies `event`; returns the new state or refuses the transition.
    pub fn handle(&mut self, event: QpEvent) -> Result<QpState, QpError> {
        use QpEvent as E;
        use QpState as S;
        let next = match (self.state, event) {
            (S::Idle, E::Connect) => S::Connecting,
            (S::Connecting, E::Established(p)) => {
                self.params = Some(p);
                S::Rts
            }
            (S::Connecting, E::ConnFailed(e)) => {
                self.conn_error = Some(e);
                S::Error
            }
            (S::Rts, E::Close | E::PeerClosed) => S::Closing,
            (S::Closing, E::Close | E::PeerClosed) => S::Closing,
            (S::Closing, E::LlpClosed) => S::Closed,
            (S::Rts | S::Closing, E::TerminateSent(code)) if !self.terminate_sent => {
                self.terminate_sent = true;
                self.raise(AsyncEvent::terminate(AsyncEventKind::TerminateSent, code));
                S::Terminate
            }
            (S::Rts | S::Closing | S::Terminate, E::TerminateReceived(code)) => {
                self.raise(AsyncEvent::terminate(
                    AsyncEventKind::TerminateReceived,
                    code,
                ));
                S::Terminate
            }
            (S::Rts | S::Closing | S::Terminate, E::BadTerminateReceived) => {
                self.raise(AsyncEvent {
                    kind: AsyncEventKind::BadTerminateReceived,
                    layer: 0,
                    error_type: 0,
                    code: 0,
                });
                S::Terminate
            }
            (S::Rts | S::Closing, E::CqOverflow) => {
                self.raise(AsyncEvent {
                    kind: AsyncEventKind::CqOverflow,
                    layer: 0,
                    error_type: 0,
                    code: 0,
                });
                S::Error
            }
            (S::Terminate, E::LlpClosed | E::LlpReset | E::Close | E::PeerClosed) => S::Error,
            (S::Connecting | S::Rts | S::Closing, E::LlpReset) => S::Error,
            (S::Closed | S::Error, E::Reset) => {
                *self = Qp::new();
                S::Idle
            }
            (from, event) => return Err(QpError::InvalidTransition { from, event }),
        };
        self.state = next;
        Ok(next)
    }

    /// Applies the event the core latched in `QP_AEV` (see [`AsyncEvent::from_register`]).
    pub fn on_hw_event(&mut self, aev: u32) -> Result<Option<QpState>, QpError> {
        let Some(ev) = AsyncEvent::from_register(aev) else {
            return Ok(None);
        };
        let code = ev.terminate_code();
        let event = match ev.kind {
            AsyncEventKind::TerminateSent => QpEvent::TerminateSent(code),
            AsyncEventKind::TerminateReceived => QpEvent::TerminateReceived(code),
            AsyncEventKind::BadTerminateReceived => QpEvent::BadTerminateReceived,
            AsyncEventKind::CqOverflow => QpEvent::CqOverflow,
        };
        self.handle(event).map(Some)
    }
}
