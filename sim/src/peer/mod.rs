//! An independent software iWARP peer: MPA FPDUs (RFC 5044), DDP (RFC 5041) and RDMAP
//! (RFC 5040) over one in-order byte stream, after MPA setup.
//!
//! It is built only on `rnic-proto` (the golden wire model: [`rnic_proto::mpa::Framer`] /
//! [`rnic_proto::mpa::Deframer`], [`rnic_proto::ddp`], [`rnic_proto::rdmap`]) and std. It shares
//! nothing with the hardware or with [`crate::rx_model`]: the point is a second, separately
//! written implementation that catches a mistake made the same way in the core's TX and RX.
//!
//! # Model
//!
//! - One connection, FPDU mode from stream offset 0 in both directions. The negotiated
//!   parameters come in a [`PeerConfig`] (CRC and markers per direction, MULPDU, IRD, ORD).
//! - **Memory**: a byte-addressed [`Memory`] with an STag table; TOs are memory addresses.
//! - **Send side**: work requests queue in the SQ; [`Peer::take_output`] turns them into FPDUs
//!   in posting order (RDMAP ordering rule 14), Reads only while fewer than ORD are outstanding,
//!   Read Responses for queued inbound Read Requests first. Write and Send complete when they
//!   are handed to the wire, a Read when its last Read Response segment arrives; completions
//!   are released strictly in posting order (rules 15b, 19).
//! - **Receive side**: [`Peer::feed`] takes stream bytes cut anywhere; each ULPDU the deframer
//!   delivers is checked in the order of `rfc5040-rdmap.md` §5.4 (the check table written out in
//!   `rx.rs`), placed, delivered.
//! - **Errors**: the first error builds the Terminate of `rfc5040-rdmap.md` §5.1-§5.3 (exact
//!   Layer/EType/Code, HdrCt of Figure 10 via [`TerminateCode::header_control`], the offending
//!   segment's DDP header and length, the Read Request header for Read Request errors). It is
//!   the next (and last) thing sent; the stream goes to error, every outstanding work request
//!   completes with `WrFlushErr`, further input is dropped. A received Terminate is surfaced as
//!   an [`Event`] and also ends the stream (it is never answered, §2.2).
//! - **Strict mode** records every protocol violation seen in [`Peer::violations`], including
//!   the tolerated ones (reserved bits set, a Read Response that does not match its request,
//!   anything sent after the sender's own Terminate).

pub mod memory;
mod rx;
mod tx;

use std::collections::VecDeque;

use rnic_proto::mpa::{Deframer, DeframerConfig, Framer};
use rnic_proto::rdmap::{ReadRequestRepr, TerminateCode, TerminateRepr};
use rnic_proto::verbs::{WcOpcode, WcStatus};

pub use memory::{InvalidateError, Memory, Region, StagError};

/// What MPA negotiation and the ULP decided for this connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerConfig {
    /// This peer writes CRCs (the CRC is on in the direction this peer sends).
    pub tx_crc: bool,
    /// This peer checks CRCs on what it receives.
    pub rx_crc: bool,
    /// This peer inserts markers (the remote asked for them).
    pub tx_markers: bool,
    /// The received stream carries markers.
    pub rx_markers: bool,
    /// The remote peer's MULPDU: the largest ULPDU (DDP header + payload) this peer sends.
    pub mulpdu: u16,
    /// Largest ULPDU accepted on receive (larger: MPA Terminate, Local Catastrophic).
    pub max_rx_ulpdu: u16,
    /// Inbound Read Requests this peer queues (IRD).
    pub ird: u32,
    /// Outbound Read Requests this peer has outstanding at most (ORD).
    pub ord: u32,
    /// The stream's protection domain.
    pub pd: u32,
    /// Bytes of memory.
    pub memory_size: usize,
    /// Record every protocol violation in [`Peer::violations`].
    pub strict: bool,
}

impl Default for PeerConfig {
    fn default() -> Self {
        PeerConfig {
            tx_crc: true,
            rx_crc: true,
            tx_markers: false,
            rx_markers: false,
            mulpdu: 1460,
            max_rx_ulpdu: u16::MAX,
            ird: 8,
            ord: 8,
            pd: 1,
            memory_size: 1 << 20,
            strict: true,
        }
    }
}

impl PeerConfig {
    /// The configuration of the other end of the same connection: directions swapped.
    pub fn mirrored(&self) -> PeerConfig {
        PeerConfig {
            tx_crc: self.rx_crc,
            rx_crc: self.tx_crc,
            tx_markers: self.rx_markers,
            rx_markers: self.tx_markers,
            ..*self
        }
    }
}

/// The Send variants (`rfc5040-rdmap.md` §2.2 "Send types").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SendKind {
    /// Send (opcode 0x3).
    Send,
    /// Send with Invalidate (0x4).
    SendInv,
    /// Send with Solicited Event (0x5).
    SendSe,
    /// Send with Solicited Event and Invalidate (0x6).
    SendSeInv,
}

impl SendKind {
    /// All four.
    pub const ALL: [SendKind; 4] = [
        SendKind::Send,
        SendKind::SendInv,
        SendKind::SendSe,
        SendKind::SendSeInv,
    ];

    /// Carries an Invalidate STag.
    pub fn invalidates(self) -> bool {
        matches!(self, SendKind::SendInv | SendKind::SendSeInv)
    }

    /// Solicited Event.
    pub fn solicited(self) -> bool {
        matches!(self, SendKind::SendSe | SendKind::SendSeInv)
    }
}

/// Which queue a completion is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Queue {
    /// Send queue (Write, Read, Send).
    Send,
    /// Receive queue (inbound Sends).
    Recv,
}

/// A work completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Completion {
    /// The work request's id.
    pub wr_id: u64,
    /// Send or receive queue.
    pub queue: Queue,
    /// Send, RdmaWrite, RdmaRead or Recv.
    pub opcode: WcOpcode,
    /// Success or the error.
    pub status: WcStatus,
    /// Bytes transferred (Recv: the Send's length; 0 on error).
    pub byte_len: u32,
    /// Recv of a Send with Invalidate: the STag invalidated.
    pub invalidated_stag: Option<u32>,
    /// Recv of a Send with Solicited Event.
    pub solicited: bool,
}

/// Asynchronous events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// This peer sent a Terminate.
    TerminateSent(TerminateRepr),
    /// A well-formed Terminate arrived.
    TerminateReceived(TerminateRepr),
    /// A Terminate arrived that cannot be parsed (never answered).
    BadTerminateReceived,
}

impl Event {
    /// The Terminate code of a sent or received Terminate.
    pub fn code(&self) -> Option<TerminateCode> {
        match self {
            Event::TerminateSent(t) | Event::TerminateReceived(t) => Some(t.code),
            Event::BadTerminateReceived => None,
        }
    }
}

/// One protocol violation seen on receive (strict mode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Index of the received FPDU it was found in (counting from 0).
    pub fpdu: u64,
    /// The Terminate it caused, if it was fatal.
    pub code: Option<TerminateCode>,
    /// What was wrong.
    pub text: String,
}

/// The stream's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum State {
    /// RDMA mode, working.
    Rts,
    /// After an error or a Terminate (sent or received): nothing more is sent or accepted.
    Error,
}

/// Counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// FPDUs written.
    pub fpdus_tx: u64,
    /// Octets written to the stream.
    pub bytes_tx: u64,
    /// FPDUs delivered by the deframer (good or not).
    pub fpdus_rx: u64,
    /// Octets fed.
    pub bytes_rx: u64,
    /// Payload octets placed into memory (Write, Read Response, Send).
    pub bytes_placed: u64,
    /// Messages (last segments) accepted on receive.
    pub messages_rx: u64,
    /// Messages sent (last segments).
    pub messages_tx: u64,
    /// Read Responses sent.
    pub read_responses_tx: u64,
    /// ULPDUs dropped because the stream was in error.
    pub dropped: u64,
}

/// Errors of a work request post (local checks, nothing is sent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PostError {
    /// The local buffer is not inside the memory (or the local STag check failed).
    LocalProtection,
    /// The stream is in error.
    NotConnected,
    /// A length over 2^32 - 1.
    TooLong,
}

/// A posted send-queue work request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SendWr {
    Write {
        local_addr: u64,
        len: u32,
        rkey: u32,
        remote_to: u64,
    },
    Read {
        local_stag: u32,
        local_to: u64,
        len: u32,
        rkey: u32,
        remote_to: u64,
    },
    Send {
        kind: SendKind,
        addr: u64,
        len: u32,
        inv_stag: u32,
    },
}

/// A send-queue entry waiting for its (in-order) completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SqEntry {
    seq: u64,
    wr_id: u64,
    wr: SendWr,
    /// Handed to the wire.
    emitted: bool,
    /// Its completion status, once known.
    done: Option<WcStatus>,
}

/// An outbound Read waiting for its Read Response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OutstandingRead {
    seq: u64,
    request: ReadRequestRepr,
    /// Response octets received so far.
    got: u64,
}

/// A posted receive buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RecvWr {
    wr_id: u64,
    addr: u64,
    len: u32,
}

/// The peer. See the module documentation.
pub struct Peer {
    cfg: PeerConfig,
    mem: Memory,
    framer: Framer,
    deframer: Deframer<Vec<u8>>,
    out: Vec<u8>,
    state: State,
    next_seq: u64,
    sq: VecDeque<SqEntry>,
    orq: VecDeque<OutstandingRead>,
    /// Next MSN to send on QN 0, 1, 2.
    tx_msn: [u32; 3],
    rq: VecDeque<RecvWr>,
    /// Expected MSN on QN 0, 1, 2.
    rx_msn: [u32; 3],
    /// Expected MO of the next Send segment.
    rx_mo: u32,
    irq: VecDeque<ReadRequestRepr>,
    pending_terminate: Option<TerminateRepr>,
    terminate_sent: bool,
    terminate_received: bool,
    cq: Vec<Completion>,
    events: Vec<Event>,
    violations: Vec<Violation>,
    stats: Stats,
}

impl Peer {
    /// A peer in RDMA mode at stream offset 0 both ways.
    pub fn new(cfg: PeerConfig) -> Peer {
        let deframer = Deframer::new(
            vec![0u8; usize::from(cfg.max_rx_ulpdu)],
            DeframerConfig {
                markers: cfg.rx_markers,
                crc: cfg.rx_crc,
                max_ulpdu: cfg.max_rx_ulpdu,
                stream_offset: 0,
            },
        )
        .expect("a buffer of max_rx_ulpdu octets at offset 0 is always accepted");
        let init = rnic_proto::ddp::MSN_INITIAL;
        Peer {
            cfg,
            mem: Memory::new(cfg.memory_size),
            framer: Framer::new(cfg.tx_markers, cfg.tx_crc),
            deframer,
            out: Vec::new(),
            state: State::Rts,
            next_seq: 0,
            sq: VecDeque::new(),
            orq: VecDeque::new(),
            tx_msn: [init; 3],
            rq: VecDeque::new(),
            rx_msn: [init; 3],
            rx_mo: 0,
            irq: VecDeque::new(),
            pending_terminate: None,
            terminate_sent: false,
            terminate_received: false,
            cq: Vec::new(),
            events: Vec::new(),
            violations: Vec::new(),
            stats: Stats::default(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &PeerConfig {
        &self.cfg
    }

    /// The memory and STag table.
    pub fn memory(&self) -> &Memory {
        &self.mem
    }

    /// The memory, mutably (to fill buffers).
    pub fn memory_mut(&mut self) -> &mut Memory {
        &mut self.mem
    }

    /// Registers `[addr, addr + len)` in this stream's PD with `access` rights
    /// (`rnic_proto::verbs::access`), invalidatable by the peer. Panics outside the memory.
    pub fn register(&mut self, addr: u64, len: u64, access: u8) -> u32 {
        let pd = self.cfg.pd;
        self.mem
            .register(addr, len, access, pd, true)
            .expect("region inside the peer's memory")
    }

    /// Invalidates an STag locally; `false` if it was not valid.
    pub fn invalidate(&mut self, stag: u32) -> bool {
        self.mem.invalidate(stag)
    }

    /// Stream state.
    pub fn state(&self) -> State {
        self.state
    }

    /// Counters.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Every violation recorded (strict mode).
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// Drains the completions.
    pub fn poll(&mut self) -> Vec<Completion> {
        std::mem::take(&mut self.cq)
    }

    /// Drains the events.
    pub fn events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    /// Read Requests queued and not yet answered.
    pub fn irq_len(&self) -> usize {
        self.irq.len()
    }

    /// Reads sent and not yet answered.
    pub fn orq_len(&self) -> usize {
        self.orq.len()
    }

    /// Whether there is nothing left to send and no Read outstanding.
    pub fn idle(&self) -> bool {
        self.out.is_empty()
            && self.irq.is_empty()
            && self.orq.is_empty()
            && self.pending_terminate.is_none()
            && self.sq.iter().all(|e| e.emitted)
    }

    fn violation(&mut self, code: Option<TerminateCode>, text: String) {
        if self.cfg.strict {
            let fpdu = self.stats.fpdus_rx.saturating_sub(1);
            self.violations.push(Violation { fpdu, code, text });
        }
    }

    /// Releases send-queue completions in posting order.
    fn retire(&mut self) {
        while let Some(e) = self.sq.front() {
            let Some(status) = e.done else { break };
            let e = self.sq.pop_front().expect("front exists");
            let (opcode, len) = match e.wr {
                SendWr::Write { len, .. } => (WcOpcode::RdmaWrite, len),
                SendWr::Read { len, .. } => (WcOpcode::RdmaRead, len),
                SendWr::Send { len, .. } => (WcOpcode::Send, len),
            };
            self.cq.push(Completion {
                wr_id: e.wr_id,
                queue: Queue::Send,
                opcode,
                status,
                byte_len: if status == WcStatus::Success { len } else { 0 },
                invalidated_stag: None,
                solicited: false,
            });
        }
    }

    /// Enters the error state: every outstanding work request completes with `WrFlushErr`.
    fn enter_error(&mut self) {
        if self.state == State::Error {
            return;
        }
        self.state = State::Error;
        for e in self.sq.iter_mut() {
            if e.done.is_none() {
                e.done = Some(WcStatus::WrFlushErr);
            }
        }
        self.orq.clear();
        self.irq.clear();
        self.retire();
        while let Some(r) = self.rq.pop_front() {
            self.cq.push(Completion {
                wr_id: r.wr_id,
                queue: Queue::Recv,
                opcode: WcOpcode::Recv,
                status: WcStatus::WrFlushErr,
                byte_len: 0,
                invalidated_stag: None,
                solicited: false,
            });
        }
    }
}
