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
/// `1 << CONN_BITS` connections: 4, or 2 with the `two-qps` feature (the Alchitry Cu profile,
/// `docs/decisions.md` "The Alchitry Cu profile").
pub const CONN_BITS: usize = if cfg!(feature = "two-qps") { 1 } else { 2 };
/// Number of connections the LLP-side blocks keep state for.
pub const CONNECTIONS: usize = 1 << CONN_BITS;

/// Whether the MPA blocks implement markers (RFC 5044 §5): false with the `no-markers` feature
/// (the Alchitry Cu profile), and the core then refuses a connection that asks for them.
pub const MARKERS: bool = !cfg!(feature = "no-markers");

/// Queue pairs of the core: one per LLP connection (QP n is connection n).
pub const QPS: usize = CONNECTIONS;

/// Bits of the STag table index the Cu build keeps (64 entries). An STag whose 24-bit index is
/// not below `1 << STAG_INDEX_BITS` is an invalid STag.
pub const STAG_INDEX_BITS: usize = 6;
/// Entries of the STag table.
pub const STAG_ENTRIES: usize = 1 << STAG_INDEX_BITS;

/// Bits of a region's base TO the STag table keeps on the Cu build: an entry programmed with a
/// base TO of `1 << STAG_BASE_TO_BITS` or more is written invalid (`docs/decisions.md`,
/// "Receive data path: area and block RAMs").
pub const STAG_BASE_TO_BITS: usize = 32;

/// Bits of a protection-domain number in the hardware (16 PDs on the Cu).
pub const PD_BITS: usize = 4;

/// Width of a DMA (host) address: 24 (a 16 MiB host window) in the Alchitry Cu profile (the
/// `two-qps` feature), 32 otherwise. The core reports it in FEATURES and the driver refuses a
/// ring, a CQ, a registration or a WQE address the core cannot reach (`docs/decisions.md`,
/// "Receive path" and "Host addresses of 24 bits in the Alchitry Cu profile").
pub const DMA_ADDR_BITS: usize = if cfg!(feature = "two-qps") { 24 } else { 32 };

/// Width of a local length: 24 (below 16 MiB) in the Alchitry Cu profile (the `two-qps`
/// feature), 32 otherwise. Every register that holds a length the host wrote (an SQ or RQ WQE's
/// length, a registered region's length) or one derived from it (a message's remainder, a Read
/// Response's length, a Recv's byte count) is at this width. The core reports it in FEATURES
/// `[31:24]` and the driver refuses a WQE or a registration of `1 << LOCAL_LEN_BITS` octets or
/// more; a length from the wire (a Read Request's size, an untagged Send's MO + length) keeps
/// its full-width meaning through a flag for "`1 << LOCAL_LEN_BITS` or more"
/// (`docs/decisions.md`, "Local lengths of 24 bits in the Alchitry Cu profile").
pub const LOCAL_LEN_BITS: usize = if cfg!(feature = "two-qps") { 24 } else { 32 };
/// [`LOCAL_LEN_BITS`] plus the flag bit above it ("the value is `1 << LOCAL_LEN_BITS` or more").
pub const LOCAL_LEN_BITS1: usize = LOCAL_LEN_BITS + 1;
/// [`LOCAL_LEN_BITS`] plus 2: a difference of a flagged value and a length, with its sign.
pub const LOCAL_LEN_BITS2: usize = LOCAL_LEN_BITS + 2;
/// The bits of a 32-bit value above [`LOCAL_LEN_BITS`] (0 when it is 32).
pub const LOCAL_LEN_HI_MASK: u64 = 0xFFFF_FFFF & !((1u64 << LOCAL_LEN_BITS) - 1);

/// 32-bit words of a header slot's address space (128 octets). The receive path writes the
/// first [`HDR_WORDS_WRITTEN`] of them per segment; the other half reads 0.
pub const HDR_WORDS: usize = 32;
/// Bits of a word index into one header slot.
pub const HDR_WORD_BITS: usize = 5;
/// Header words DdpRxParse writes per slot: beats 0..15 (64 octets; the longest header anyone
/// reads, a Read Request's 2 + 18 + 28 octets, is 12 words). Words `HDR_WORDS_WRITTEN..HDR_WORDS`
/// are never written, so they read 0: TerminateTx reads a word past its segment's end there (bit
/// 4 of the word index; `docs/decisions.md` "Twelfth session").
pub const HDR_WORDS_WRITTEN: usize = HDR_WORDS / 2;
const _: () = assert!(HDR_WORDS_WRITTEN == 1 << (HDR_WORD_BITS - 1));
/// Header slots per connection (ping-pong: one being received while the previous one is still
/// checked, placed or copied into a Terminate).
pub const HDR_SLOTS: usize = 2;
/// Address bits of the header RAM, `{conn, slot, word}` (DdpRxParse writes it; RxControl,
/// RxPath and TerminateTx read it).
pub const HDR_ADDR_BITS: usize = CONN_BITS + 1 + HDR_WORD_BITS;
const _: () = assert!(HDR_SLOTS == 2);

/// Bits of the caller's tag carried through a StagCheck request to its response.
pub const CHK_TAG_BITS: usize = 4;

/// Bits of a tag on the core's DMA read port: `{requester[2], requester's tag[3]}`
/// (`crate::host`, "DMA arbiter").
pub const DMA_TAG_BITS: usize = 5;
/// Bits of a requester's own DMA read tag.
pub const DMA_SUB_TAG_BITS: usize = 3;
/// Bits of a DMA read request length (octets, 1..=4096 in practice).
pub const DMA_LEN_BITS: usize = 16;
/// Bits of a CQ number: the core has one CQ per QP (4, or 2 with the `two-qps` feature: the
/// Alchitry Cu profile, where each QP's send and receive CQEs share its CQ). The register map
/// has `rnic_proto::host::CQS` CQ windows; the core reports its own count in CAPS \[15:8\] and
/// the windows of CQs it does not have read 0 and ignore writes (as the QP windows).
pub const CQ_BITS: usize = CONN_BITS;
/// Completion queues of the core.
pub const CQS: usize = 1 << CQ_BITS;
/// Bits of a free-running ring index (SQ, RQ, CQ producer / consumer): 12 in the Alchitry Cu
/// profile (the `two-qps` feature), 16 otherwise. A ring then has at most `2^(RING_INDEX_BITS-1)`
/// entries (full must differ from empty). The core reports it in FEATURES \[23:16\] and the
/// driver refuses a larger ring; the register map's index fields and the CQE's `wqe_index` stay
/// 16 bits wide, the upper bits ignored on write and 0 on read (`docs/decisions.md`, "Ring
/// indexes of 12 bits in the Alchitry Cu profile").
pub const RING_INDEX_BITS: usize = if cfg!(feature = "two-qps") { 12 } else { 16 };
const _: () = assert!(RING_INDEX_BITS <= 16);
/// Bits of a ring's log2 size register.
pub const RING_LOG2_BITS: usize = 4;
