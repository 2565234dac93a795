//! `rnic-driver`: the host side of the RNIC.
//!
//! Today it holds the `rnic` command-line tool's commands ([`cli`]); the verbs-style API
//! (device, PD, MR, CQ, QP, work requests, completions) over the simulated device is issue 6.

pub mod bench;
pub mod cli;
pub mod inject;
