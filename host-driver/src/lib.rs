//! `rnic-driver`: the host side of the RNIC.
//!
//! - [`verbs`]: the verbs-style API (device, PD, MR, CQ, QP, work requests, completions) over
//!   the simulated device, reaching the core through MMIO and host memory only.
//! - [`cli`]: the `rnic` command-line tool's commands; [`mod@bench`], [`core_bench`], [`loopback`], [`inject`] behind them.

pub mod bench;
pub mod cli;
pub mod cm;
pub mod core_bench;
pub mod inject;
pub mod loopback;
pub mod tcp;
pub mod traffic;
pub mod verbs;
