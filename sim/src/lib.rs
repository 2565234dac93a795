//! `rnic-sim`: simulation back ends, models and testbenches.
//!
//! Two back ends behind one testbench API ([`testbench::Backend`]): rust-hdl's own simulator
//! ([`hdl_backend`]), exact and slow, and Verilator ([`verilator_backend`]) running the Verilog
//! that rust-hdl generates for the same block, about three orders of magnitude faster.
//! [`equivalence::lockstep`] runs both on the same stimulus and compares every output, every
//! cycle.

pub mod dma_port;
pub mod dma_read;
pub mod equivalence;
pub mod hdl_backend;
pub mod host_mem;
pub mod loopback;
pub mod mutate;
pub mod pcap;
pub mod peer;
pub mod rx_model;
pub mod stream;
pub mod tb;
pub mod tcp_bridge;
pub mod testbench;
pub mod verilator;
pub mod verilator_backend;
