//! The core's top level (issue 5): [`rnic::Rnic`] wires the host interface ([`crate::host`]),
//! the receive path ([`crate::rdmap::rx_path`]) and the transmit side (send engine, read
//! responder, TX arbiter, DDP TX, MPA TX). Contract: `docs/core.md`.

pub mod cqe_queue;
pub mod rnic;
pub mod ulpdu_mux;
