//! Build-time datapath configuration. Nothing outside this module names a width
//! (DESIGN.md "Interface conventions").
//!
//! rust-hdl widths are const generics, and stable Rust cannot compute `W / 8` in a type, so a
//! block generic over the datapath takes both the data width `D` (bits) and the keep width `K`
//! (bytes) and checks `D == 8 * K` when it is built ([`check_widths`]).

/// Data width of the Alchitry Cu build (iCE40-HX8K), in bits.
pub const DATA_WIDTH: usize = 32;
/// Keep width of the Alchitry Cu build: one bit per byte lane.
pub const KEEP_WIDTH: usize = DATA_WIDTH / 8;

/// The datapath widths the same source builds at (32 for the Cu; 64 and 128 for the larger-FPGA
/// report; 8 for the narrowest CRC).
pub const SUPPORTED_WIDTHS: [usize; 4] = [8, 32, 64, 128];

/// Panics at elaboration (block construction) when a block is instantiated with inconsistent
/// widths: a programming error, never a run-time condition.
pub fn check_widths(data_bits: usize, keep_bits: usize) {
    assert!(
        data_bits == 8 * keep_bits && SUPPORTED_WIDTHS.contains(&data_bits),
        "datapath of {data_bits} data bits with {keep_bits} keep bits is not a supported width \
         (supported: {SUPPORTED_WIDTHS:?} with one keep bit per byte)"
    );
}

/// Connection index width of the LLP port: the core keeps per-connection state for
/// `1 << CONN_BITS` connections (4 on the Cu).
pub const CONN_BITS: usize = 2;
/// Number of connections the LLP-side blocks keep state for.
pub const CONNECTIONS: usize = 1 << CONN_BITS;
