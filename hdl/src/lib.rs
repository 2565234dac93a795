//! `rnic-hdl`: the RNIC hardware, as rust-hdl `LogicBlock`s.
//!
//! One hardware block per file, grouped by protocol layer, each with its own tests beside it.
//! Stream convention (DESIGN.md "Interface conventions"): `data`, `keep` (one bit per byte),
//! `last`, `valid`; byte 0 of a stream travels in the most significant byte lane, so header
//! fields read as big-endian slices; only the last beat of a packet may have a partial `keep`,
//! and its valid bytes are contiguous from the most significant lane.
//!
//! | module | layer |
//! |---|---|
//! | [`config`] | the only place that names the datapath width |
//! | [`crc`] | CRC-32C, the MPA FPDU CRC |
//! | [`mpa`] | MPA FPDU framing and delineation (RFC 5044) |
//! | [`ddp`] | DDP receive: header capture, STag table and protection check, placement (RFC 5041) |
//! | [`rdmap`] | RDMAP receive: per-opcode checks, completions, the Terminate (RFC 5040) |
//! | [`catalog`] | every block the tools (`rnic verilog`, `rnic synth`, back ends) can build by name |

pub mod catalog;
pub mod config;
pub mod crc;
pub mod ddp;
pub mod host;
pub mod mpa;
pub mod ports;
pub mod ram;
pub mod rdmap;
pub mod top;
