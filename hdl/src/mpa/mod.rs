//! MPA (RFC 5044 with the RFC 6581 changes): FPDU framing between DDP and the LLP byte stream.
//! Catalog: `mpa-peer-connect.md` §5 (FPDU, CRC, markers), §4.2 (error codes). Golden model:
//! `rnic_proto::mpa::{Framer, Deframer}`.
//!
//! - [`mpa_tx`]: ULPDUs in, FPDUs out on the LLP TX port (length, pad, CRC-32C, markers), plus a
//!   raw path for the firmware's MPA Request/Reply bytes.
//! - [`mpa_rx`]: the LLP RX byte stream in (segments of several connections interleaved at any
//!   byte boundary), markers removed and checked, FPDUs delineated, CRC checked, ULPDUs out
//!   cut-through with a good/bad status on their last beat; raw bytes to the firmware before the
//!   switch to FPDU mode.
//!
//! # Port conventions (both blocks)
//!
//! Streams follow DESIGN.md: `*_data`, `*_keep` (one bit per byte, MSB = lane 0 = first byte),
//! `*_last`, `*_valid`, `*_ready`; a beat moves when `valid && ready`; only the last beat of a
//! packet may have a partial `keep`, contiguous from lane 0. Every stream carries the connection
//! index `*_conn` ([`crate::config::CONN_BITS`] bits) on every beat.
//!
//! Per-connection configuration is written through a port `cfg_write` (one-cycle strobe),
//! `cfg_conn`, and the fields of that block; writing `cfg_fpdu_mode = 1` switches the connection
//! from raw mode to FPDU mode and sets its MPA stream offset to 0 (the marker grid is anchored at
//! the first octet of FPDU mode, §5.3); writing `cfg_fpdu_mode = 0` returns it to raw mode and
//! clears its error state. The firmware switches a direction to FPDU mode after the last raw byte
//! of the Request/Reply exchange and before anything that lets the peer send FPDUs (RFC 5044: the
//! Initiator sends FPDUs only after the Reply; the Responder only after the first FPDU received),
//! so no FPDU byte can arrive or leave in raw mode (`docs/decisions.md`).
//!
//! The first build is for the Cu's 32-bit datapath ([`crate::config::DATA_WIDTH`]): MPA puts FPDU
//! boundaries, markers and the CRC on 4-octet boundaries of the stream, so at 32 bits a marker or
//! a CRC is exactly one beat of the aligned stream.

pub mod mpa_rx;
pub mod mpa_tx;
