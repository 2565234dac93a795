//! `rnic-firmware`: the `no_std` control plane of the NIC, the RFC 5040 "privileged resource
//! manager": MPA connection setup and negotiation (RFC 6581), the QP state machine and teardown,
//! STag allocation with unpredictable keys, Terminate reporting. Runs beside the simulated core.
//!
//! | module | concern | catalog |
//! |---|---|---|
//! | [`conn`] | MPA Request/Reply exchange, negotiation, RTR, send fence, setup timeout | `mpa-peer-connect.md` §1–§4 |
//! | [`qp`] | QP state machine: idle, connecting, RTS, closing, terminate, error | `rfc5040-rdmap.md` §4 |
//! | [`resources`] | STag (unpredictable keys), PD, CQ, QP allocation | `rfc5040-rdmap.md` §6 |
//! | [`device`] | programming the core through its MMIO registers (`rnic_proto::host::regs`) | `proto/src/host.rs` |
//!
//! No heap: every buffer is a fixed-size array.
#![no_std]
#![forbid(unsafe_code)]

pub mod conn;
pub mod device;
pub mod qp;
pub mod resources;

pub use conn::{
    ConnConfig, ConnError, ConnParams, ConnState, Connection, RequestInfo, Role, RtrForm,
};
