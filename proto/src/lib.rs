//! `rnic-proto`: the golden software model of every wire format the RNIC speaks.
//!
//! One source of truth for every constant: the hardware (`rnic-hdl`), the firmware, the host
//! driver and every test import the numbers from here.
//!
//! The layout follows the protocol stack, bottom up, and each module follows smoltcp's `wire`
//! style: a typed view over a byte buffer (`Packet<T: AsRef<[u8]>>` with field accessors) and a
//! high-level representation (`Repr`) with `parse` and `emit`. Parsing never panics, whatever the
//! bytes: malformed input is an `Err`.
//!
//! | module | specification | catalog |
//! |---|---|---|
//! | [`crc32c`] | CRC-32C as used by MPA (RFC 5044) | `mpa-peer-connect.md` §5.2 |
//! | [`mpa`] | MPA Request/Reply (RFC 5044 §7.1, RFC 6581), FPDU, markers | `mpa-peer-connect.md` §1, §5 |
//! | [`ddp`] | DDP tagged and untagged headers (RFC 5041) | `mpa-peer-connect.md` §6 |
//! | [`rdmap`] | RDMAP control, Read Request, Terminate (RFC 5040), atomics and immediate data (RFC 7306), Flush / Verify / Atomic Write (draft-talpey-rdma-commit-01) | `rfc5040-rdmap.md`, `rfc7306-atomics-immediate.md`, `rdma-commit.md` |
//! | [`host`] | MMIO register map, SQ / RQ WQE and CQE formats (the driver-hardware contract) | DESIGN.md "Interface conventions" |
//! | [`verbs`] | STag layout, access rights, work-completion values, async events | `rfc5040-rdmap.md` §6, §7 |
#![no_std]
#![forbid(unsafe_code)]

#[cfg(test)]
extern crate std;

#[macro_use]
mod wire_enum;

pub mod crc32c;
pub mod ddp;
pub mod host;
pub mod mpa;
pub mod rdmap;
pub mod verbs;
