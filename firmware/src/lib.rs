//! `rnic-firmware`: the `no_std` control plane of the NIC, the RFC 5040 "privileged resource
//! manager": MPA connection setup and negotiation (RFC 6581), the QP state machine and teardown,
//! STag allocation with unpredictable keys, Terminate reporting. Runs beside the simulated core.
//!
//! Not written yet: the connection manager is issue 7 ("Firmware: MPA connection setup").
#![no_std]
#![forbid(unsafe_code)]
