//! CRC-32C (Castagnoli), the MPA FPDU CRC (`mpa-peer-connect.md` §5.2).
//!
//! - [`lfsr`]: the GF(2) algebra: which state and data bits feed each next-state bit. Computed
//!   once in Rust from the polynomial in `rnic-proto`, like the `lfsr` module of
//!   `verilog-ethernet` computes its matrix at elaboration.
//! - [`crc32c_update`]: the combinational next-state network (one tap per byte count), a leaf
//!   block whose Verilog is emitted from that matrix.
//! - [`crc32c`]: the stream block: one beat per cycle, `keep` on the last beat, restart per packet.

pub mod crc32c;
pub mod crc32c_update;
pub mod lfsr;

pub use crc32c::Crc32c;
pub use crc32c_update::Crc32cUpdate;
