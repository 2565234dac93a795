//! MPA receive block: the LLP RX byte stream of several connections back to ULPDUs for DDP
//! (RFC 5044). Catalog: `mpa-peer-connect.md` §5.1 (delineation by ULPDU_Length, PAD), §5.2
//! (CRC-32C, wire LSB first), §5.3 (markers, FPDUPTR), §4.2 (error codes). Golden model:
//! [`rnic_proto::mpa::Deframer`]; the port contract is in [`crate::mpa`].
//!
//! # Behaviour
//!
//! - A connection in raw mode (`cfg_fpdu_mode = 0`, the power-up state) passes its segments'
//!   bytes verbatim to the `raw_*` stream (MPA Request/Reply bytes for the firmware).
//! - In FPDU mode, markers are removed and checked (FPDUPTR's two LSBs and RESERVED ignored),
//!   FPDUs are delineated by ULPDU_Length, the CRC is checked (ignored when CRC is off), and each
//!   ULPDU goes out cut-through on `ulpdu_*`: byte 0 in lane 0 of its first beat, only the last
//!   beat partial, a 0-byte ULPDU as one beat with first+last and keep 0. The last beat is held
//!   until the FPDU's CRC field has been checked and carries `ulpdu_good` (CRC good, or off, and
//!   no marker referring to this FPDU disagreed).
//! - Every marker is in a CRC span (`docs/decisions.md`, "Marker CRC coverage"): a marker inside
//!   an FPDU in that FPDU's, and a marker right before a header (FPDUPTR 0: at the start of FPDU
//!   mode, and before any FPDU that starts on the 512-octet grid) begins that FPDU, so its CRC
//!   runs from the marker through PAD. The CRC restarts after each CRC field (and at a restart).
//!   So with CRC on, a corrupted leading marker is a CRC error (0x2), with CRC off a marker error
//!   (0x3).
//! - The first error of a connection pulses `err_valid` with `err_conn` and the LLP error code
//!   of [`rnic_proto::mpa::LlpErrorCode`]: 0x2 CRC error (it wins over a marker error in the same
//!   FPDU), 0x3 marker error (reported at the end of the FPDU the marker refers to), 0x5
//!   ULPDU_Length over the connection's maximum (reported at the header; no ULPDU beat is sent
//!   for that FPDU). After it the connection is dead: its bytes are consumed and dropped until the
//!   firmware writes its configuration again. A CRC or marker error still delivers the ULPDU's
//!   bytes, ending with `ulpdu_good = 0`.
//! - A configuration write (`cfg_write` high for one cycle) stores the mode, markers, CRC and
//!   maximum ULPDU_Length of `cfg_conn` at once, and in the next cycle (the pipeline waits)
//!   restarts the connection: MPA stream offset 0 (the marker grid anchor), no partial word,
//!   between FPDUs, no error. It must not be issued while bytes of that connection are in
//!   flight (the firmware writes it after the last raw byte has come out, before the peer can
//!   send FPDUs; `docs/decisions.md`).
//!
//! - FPDUPTR is compared modulo 2^16 (a 14-bit word count from the header): an FPDU whose
//!   markers would need a larger FPDUPTR cannot be sent (the golden `Framer` refuses it).
//! - Markers are a build-time capability ([`MARKERS`]): built without them (`no-markers`, the
//!   Alchitry Cu profile) the block stores `cfg_markers` as 0 (every connection takes FPDUs
//!   without markers) and synthesis removes the marker removal and check: 998 instead of 1072
//!   logic cells (783 / 385 / 57 instead of 825 / 418 / 64 LUT4 / DFF / carry), 113.6 instead
//!   of 117.9 MHz (`rnic synth --board alchitry-cu --block mpa_rx`, 2026-11-25). With markers
//!   the netlist is the one without the capability (yosys proves the two equivalent).
//!
//! # Architecture (32-bit Cu datapath: 4 byte lanes throughout)
//!
//! Four lanes are assumed by the realigner (a partial word is 0 to 3 octets), by the word FSM (a
//! marker, a header with ULPDU bytes 0-1, a CRC field are each exactly one word; the ULPDU is
//! the word stream shifted by 2 octets) and by the skid payload layout; a const assertion
//! stops a build at another [`DATA_WIDTH`].
//!
//! ```text
//!  llp_* ─► RxRealigner ─► S1 register ─────────────────────────────► raw_*  (raw mode)
//!           (per conn.:     (aligned word; or a raw beat)
//!            partial word,       │
//!            offset mod 512)     ▼
//!                         word FSM: working context of connection `cur` ─► skid ───► ulpdu_*
//!                         (marker / header / data / CRC words, CRC-32C,    └──────► err_*
//!                          2-byte shifter, held last beat)
//!                                ▲ │ swap
//!                                │ ▼
//!                         RxContextRam: one context per connection (block RAM)
//! ```
//!
//! - [`RxRealigner`] turns each connection's byte stream into 4-octet words aligned to MPA
//!   stream offsets, so markers, headers and CRC fields are whole words (§5.3: all of them are
//!   4-aligned). Its small context (3 octets, offset mod 512) is in registers indexed by
//!   `llp_conn` directly, so interleaved segments cost nothing there.
//! - The word FSM works on the context of one connection in registers. When the S1 word is of
//!   another connection it swaps in four cycles, while the pipeline waits: the working registers
//!   go to the [`RxContextRam`] entry of the old connection and the new connection's entry
//!   comes in. The RAM is read every cycle at the connection entering S1, so the entry is ready
//!   when its word reaches the FSM; a read and a write of the same entry never coincide (the
//!   old and the new connection differ). A connection restarted while not `cur` gets a
//!   restart flag, applied at swap-in. 16 of the bits are the FPDU's ULPDU_Length (`ulen`),
//!   which leaves with every ULPDU beat on `ulpdu_len` (so DDP knows the segment length at its
//!   first beat), cheaper than a per-connection length register file with its read multiplexer.
//! - Context storage: the [`CTX_BITS`] = 118 bits are four words of [`CTX_WORD_BITS`] = 32 at
//!   addresses `conn * 4 + word` of one RAM: 2 iCE40 block RAMs (256 x 16 each) instead of the
//!   8 that one 118-bit word per connection needs (a block RAM is at most 16 bits wide, and 4
//!   connections use 16 of its 256 words). Word 0 is `obuf`, word 1 `words_left` and
//!   `since_hdr`, word 2 `crc`, word 3 the flags, `len_lo` and `ulen`. The swap takes four
//!   cycles (`sph`: words already swapped) and rotates the words through the working
//!   registers: each cycle writes word 0's register (`obuf`) to the old connection's entry,
//!   shifts words 1-3's registers down by one word, and loads word 3's from the store, so the
//!   store's write data needs no multiplexer. The bits of a word in transit beyond words 1's
//!   and 3's fields (17 and 7 bits; with markers, where `since_hdr` is a field of word one, 3
//!   and 7) ride in registers that are idle during a swap: the skid's overflow entry and the
//!   raw keep (24 flip-flops less in the Cu profile, each alone in its logic cell). In the
//!   last cycle (`switch_b`) the new connection's four words are in place; `cur` and the
//!   connection's settings change, and a pending restart of the new connection resets its
//!   flags and `crc`. An error is taken only in the swap's first cycle
//!   (its compares come from the last word processed before it) and goes into the flags as
//!   they leave word 3's registers in that cycle. A configuration restart holds the swap for
//!   its cycle (`cfg_v`); once a word of `cur` has left (`sph` != 0), a restart of `cur` sets
//!   its restart flag, applied at its next swap-in, like a restart of any connection not in
//!   the working registers. The cost: four bubbles per change of connection (one with the
//!   8-block-RAM single word, two with 64-bit words in 4 block RAMs).
//! - Timing (100 MHz on the iCE40-HX8K): everything moves on one advance, `llp_ready`, that
//!   depends on registers only (`adv_q`, registered from the next values of what it depends
//!   on, and the swap flag); the ULPDU output is a 2-entry skid buffer, so `ulpdu_ready` reaches
//!   nothing else. The ULPDU_Length maximum and the CRC field are compared in one cycle and
//!   acted on in the next: the word after a header is held back by `too_long`, and the word
//!   after a CRC field is a header or a marker, which sends nothing, so no byte of a bad or
//!   dead FPDU leaves. `ulpdu_good` is formed at the output from the two verdict bits.
//! - Raw beats wait in S1 for `raw_ready` (the pipeline waits meanwhile: raw bytes are the few
//!   hundred of an MPA Request/Reply, at half rate). A raw connection's realigner offset is 0,
//!   so its beats pass the realigner unchanged.
//! - One LLP beat per cycle: a beat gives at most one word and a word at most one ULPDU beat
//!   (the header word carries ULPDU bytes 0-1, so a ULPDU of L bytes arrives in ⌈(L+2)/4⌉ words
//!   and leaves in ⌈L/4⌉ beats; the CRC word releases the held last beat). The only bubbles:
//!   four cycles per change of connection at the word FSM (the context swap), one per
//!   configuration write, one per raw beat.

use crate::config::{CONNECTIONS, CONN_BITS, DATA_WIDTH, KEEP_WIDTH, MARKERS};
use crate::crc::Crc32cUpdate;
use rnic_proto::mpa::LlpErrorCode;
use rust_hdl::prelude::*;

#[path = "rx_context_ram.rs"]
pub mod rx_context_ram;
#[path = "rx_realigner.rs"]
pub mod rx_realigner;
#[path = "rx_skid.rs"]
pub mod rx_skid;

pub use rx_context_ram::RxContextRam;
pub use rx_realigner::RxRealigner;
pub use rx_skid::{RxOutReg, RxSkid};

// The block is written for 4 byte lanes (the Cu build).
const _: () = assert!(DATA_WIDTH == 32 && KEEP_WIDTH == 4);

/// Bits of one connection's word-FSM context (see the packing in `update`).
pub const CTX_BITS: usize = 118;
/// The context is stored as four words of [`CTX_WORD_BITS`] (2 iCE40 block RAMs of 16 bits):
/// word 0 `obuf`; word 1 `words_left`, `since_hdr` (29 bits); word 2 `crc`; word 3 the flags,
/// `len_lo`, `ulen` (25 bits).
pub const CTX_WORD_BITS: usize = 32;
/// Context store address: connection, word (4 words per connection).
const CTX_ADDR_BITS: usize = CONN_BITS + 2;
const _: () = assert!(4 * CTX_WORD_BITS >= CTX_BITS && 15 + 14 <= CTX_WORD_BITS);
/// ULPDU skid payload: data 32, keep 4, first, last, CRC good (or off), marker bad,
/// ULPDU_Length 16, connection. `ulpdu_good` is formed at the output from the two verdict bits.
const ULPDU_BITS: usize = 56 + CONN_BITS;
/// The skid buffer's overflow entry: the data's upper half 16, first, last, CRC good (or
/// off), marker bad.
const OVF_BITS: usize = 20;

/// The MPA receive block for the 32-bit datapath. Ports: see the module documentation and
/// [`crate::mpa`].
#[derive(LogicBlock)]
pub struct MpaRx {
    pub clock: Signal<In, Clock>,
    // LLP RX input: segments of one connection each, starting in lane 0.
    pub llp_data: Signal<In, Bits<32>>,
    pub llp_keep: Signal<In, Bits<4>>,
    pub llp_last: Signal<In, Bit>,
    pub llp_valid: Signal<In, Bit>,
    pub llp_ready: Signal<Out, Bit>,
    pub llp_conn: Signal<In, Bits<CONN_BITS>>,
    // Per-connection configuration.
    pub cfg_write: Signal<In, Bit>,
    pub cfg_conn: Signal<In, Bits<CONN_BITS>>,
    pub cfg_fpdu_mode: Signal<In, Bit>,
    pub cfg_markers: Signal<In, Bit>,
    pub cfg_crc: Signal<In, Bit>,
    pub cfg_max_ulpdu: Signal<In, Bits<16>>,
    // ULPDUs to DDP.
    pub ulpdu_data: Signal<Out, Bits<32>>,
    pub ulpdu_keep: Signal<Out, Bits<4>>,
    pub ulpdu_first: Signal<Out, Bit>,
    pub ulpdu_last: Signal<Out, Bit>,
    pub ulpdu_good: Signal<Out, Bit>,
    pub ulpdu_valid: Signal<Out, Bit>,
    pub ulpdu_ready: Signal<In, Bit>,
    pub ulpdu_conn: Signal<Out, Bits<CONN_BITS>>,
    /// ULPDU_Length of the FPDU the current ULPDU beat belongs to (on every beat).
    pub ulpdu_len: Signal<Out, Bits<16>>,
    // Raw-mode bytes to the firmware.
    pub raw_data: Signal<Out, Bits<32>>,
    pub raw_keep: Signal<Out, Bits<4>>,
    pub raw_last: Signal<Out, Bit>,
    pub raw_valid: Signal<Out, Bit>,
    pub raw_ready: Signal<In, Bit>,
    pub raw_conn: Signal<Out, Bits<CONN_BITS>>,
    // Errors.
    pub err_valid: Signal<Out, Bit>,
    pub err_conn: Signal<Out, Bits<CONN_BITS>>,
    pub err_code: Signal<Out, Bits<8>>,
    /// No word in the pipeline (S1, the ULPDU skid, a pending verdict, length error, error
    /// pulse, configuration restart or raw beat): every byte taken on `llp_*` has left, but
    /// for the partial words and partial FPDUs waiting for more bytes of their connection.
    /// From registers only; for RxPath's `rx_idle`.
    pub idle: Signal<Out, Bit>,

    // Configuration write: the per-connection settings are written at once; the connection's
    // restart (context reset) follows one cycle later (`cfg_v`), while the pipeline waits.
    cfg_v: DFF<Bit>,
    cfg_conn_q: DFF<Bits<CONN_BITS>>,
    // Per-connection configuration.
    fpdu_mode: [DFF<Bit>; CONNECTIONS],
    markers: [DFF<Bit>; CONNECTIONS],
    crc_on: [DFF<Bit>; CONNECTIONS],
    /// Maximum ULPDU_Length of each connection, in block RAM (64 flip-flops, each alone in its
    /// logic cell since it is loaded straight from the port, and their read multiplexer cost
    /// more than the block RAM): written at `cfg_write`, read at `cur`'s next value, so
    /// `max_of` is `cur`'s maximum in every cycle but the one after a configuration write
    /// (when the word FSM waits).
    max_ram: RxContextRam<16, CONN_BITS>,
    /// Restart the connection's context when it is next swapped in (configuration written).
    restart: [DFF<Bit>; CONNECTIONS],

    realigner: RxRealigner,
    // S1: one aligned word.
    s1_v: DFF<Bit>,
    s1_word: DFF<Bits<32>>,
    s1_conn: DFF<Bits<CONN_BITS>>,
    s1_mark: DFF<Bit>,
    /// The S1 word is valid and of a connection other than `cur`: swap contexts.
    s1_switch: DFF<Bit>,
    /// Second cycle of a context swap (word 1), or waiting for it while a configuration
    /// restart takes its cycle.
    sph: DFF<Bits<2>>,
    /// The S1 word is valid and of `cur`: `s1_v && !s1_switch`.
    s1_go: DFF<Bit>,
    /// The outputs can take a beat and no configuration restart is due: the advance, but for
    /// a context swap. Registered from the next values of what it depends on.
    adv_q: DFF<Bit>,

    // Word FSM: the working context of connection `cur`.
    cur: DFF<Bits<CONN_BITS>>,
    /// Inside an FPDU (after its header, up to its CRC field).
    in_fpdu: DFF<Bit>,
    /// The next non-marker word is the CRC field.
    crc_next: DFF<Bit>,
    /// An error was reported: drop everything.
    dead: DFF<Bit>,
    /// Data words (after the header, without markers) still to come before the CRC field,
    /// less one when `len_lo` is 3: counted down from ULPDU_Length / 4.
    words_left: DFF<Bits<15>>,
    /// `words_left == 1`.
    one_left: DFF<Bit>,
    /// ULPDU_Length mod 4 and ULPDU_Length == 0: the keep of the last beat.
    len_lo: DFF<Bits<2>>,
    zero_len: DFF<Bit>,
    /// ULPDU_Length of the current FPDU (for `ulpdu_len`).
    ulen: DFF<Bits<16>>,
    /// Raw CRC-32C register: initial value (0xFFFFFFFF) after each CRC field and at a restart;
    /// a marker right before a header is the first word of that FPDU's CRC span.
    crc: DFF<Bits<32>>,
    /// Words from the header to the next word (FPDUPTR / 4 of a marker there). Built without
    /// markers it is not counted (nothing reads it); its flip-flops only carry context words
    /// through the swap.
    since_hdr: DFF<Bits<14>>,
    /// A marker referring to this FPDU disagreed.
    marker_bad: DFF<Bit>,
    /// Bits 31..16: ULPDU bytes waiting for the next word; with `crc_next`: the held last beat.
    obuf: DFF<Bits<32>>,
    /// The next beat is the ULPDU's first.
    first: DFF<Bit>,
    /// The CRC field processed in the previous cycle: its verdict (CRC good or off, marker
    /// bad), registered; an error is taken in this cycle.
    verdict: DFF<Bit>,
    v_crc_ok: DFF<Bit>,
    v_mbad: DFF<Bit>,
    /// The header processed in the previous cycle has a ULPDU_Length over the maximum: the
    /// error is taken in this cycle (the compare is registered).
    too_long: DFF<Bit>,
    /// Context store of the connections not in the working registers.
    ctx: RxContextRam<CTX_WORD_BITS, CTX_ADDR_BITS>,
    crc_upd: Crc32cUpdate<32, 4>,

    /// ULPDU output skid buffer: the main entry (the `ulpdu_*` outputs) and an overflow
    /// entry for the beat offered while the main one is occupied and not taken. The overflow
    /// entry stores only what the word FSM loses when it moves on (`sk_ovf`: the data's upper
    /// half, first, last, CRC good, marker bad): while it is occupied the word FSM waits (no
    /// `proc`, and no context swap), so the data's lower half (`obuf`'s), the keep (from
    /// `len_lo`, `zero_len`), `ulen` and `cur` are still in the working registers when the
    /// beat moves to the main entry (38 flip-flops less, each alone in its logic cell). In a
    /// context swap (which starts with the entry empty, and no beat is offered before it ends)
    /// `sk_ovf` carries 20 of the context bits in transit.
    sk_main_v: DFF<Bit>,
    sk_main: DFF<Bits<ULPDU_BITS>>,
    sk_ovf_v: DFF<Bit>,
    sk_ovf: DFF<Bits<OVF_BITS>>,
    /// The overflow entry's beat, completed from the working registers.
    sk_resume: Signal<Local, Bits<ULPDU_BITS>>,
    /// The value `sk_ovf_v` takes at the next edge.
    sk_full_next: Signal<Local, Bit>,
    // Raw output register: the pipeline waits while it is occupied (raw bytes are a few
    // hundred per connection setup, so half rate is plenty).
    // The data and connection are `s1_word` and `s1_conn` (a raw connection's realigner offset
    // is 0, so its beats pass the realigner unchanged). No raw beat is pending or taken in a
    // context swap: `raw_keep_q` carries 4 of the context bits in transit then.
    raw_v: DFF<Bit>,
    raw_keep_q: DFF<Bits<4>>,
    raw_last_q: DFF<Bit>,
    err_v: DFF<Bit>,
    err_code_q: DFF<Bits<8>>,

    // Combinational signals.
    adv: Signal<Local, Bit>,
    switch: Signal<Local, Bit>,
    switch_b: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    raw_next: Signal<Local, Bit>,
    proc: Signal<Local, Bit>,
    in_fpdu_mode: Signal<Local, Bit>,
    in_markers: Signal<Local, Bit>,
    max_of: Signal<Local, Bits<16>>,
    cur_next: Signal<Local, Bits<CONN_BITS>>,
    crc_of: Signal<Local, Bit>,
    restart_of: Signal<Local, Bit>,
    ctx_wr1: Signal<Local, Bits<CTX_WORD_BITS>>,
    ctx_wr3: Signal<Local, Bits<CTX_WORD_BITS>>,
    ctx_rd_word: Signal<Local, Bits<2>>,
    length: Signal<Local, Bits<16>>,
    /// `length > max_of` by 2-bit slices: per slice, greater, and greater or equal (in the odd
    /// bits of `cmp_gt`, `cmp_ge`; the 2-bit verdicts in `gt2`, `ge2`); `longer` is the carry
    /// out of `gt2 + ge2`: a slice greater generates, a slice equal propagates.
    cmp_gt: Signal<Local, Bits<16>>,
    cmp_ge: Signal<Local, Bits<16>>,
    gt2: Signal<Local, Bits<9>>,
    ge2: Signal<Local, Bits<9>>,
    cmp_sum: Signal<Local, Bits<9>>,
    longer: Signal<Local, Bit>,
    fpdu_words: Signal<Local, Bits<15>>,
    no_data_words: Signal<Local, Bit>,
    one_data_word: Signal<Local, Bit>,
    rot: Signal<Local, Bits<32>>,
    beat: Signal<Local, Bits<32>>,
    swapped: Signal<Local, Bits<32>>,
    crc_ok: Signal<Local, Bit>,
    ptr_ok: Signal<Local, Bit>,
    bad: Signal<Local, Bit>,
    held_keep: Signal<Local, Bits<4>>,
    ob_v: Signal<Local, Bit>,
    ob_data: Signal<Local, Bits<32>>,
    ob_keep: Signal<Local, Bits<4>>,
    ob_first: Signal<Local, Bit>,
    ob_last: Signal<Local, Bit>,
    ob_crc_ok: Signal<Local, Bit>,
    ob_mbad: Signal<Local, Bit>,
    ob_all: Signal<Local, Bits<ULPDU_BITS>>,
    ovf_keep: Signal<Local, Bits<4>>,

    // Constants.
    code_crc: Constant<Bits<8>>,
    code_marker: Constant<Bits<8>>,
    code_too_long: Constant<Bits<8>>,
    crc_init: Constant<Bits<32>>,
    hi_half: Constant<Bits<32>>,
    byte1: Constant<Bits<32>>,
    byte2: Constant<Bits<32>>,
    /// [`MARKERS`]: the block implements markers. Without them (the `no-markers` build) every
    /// connection's markers bit is stored as a constant 0 and synthesis removes the marker
    /// logic.
    markers_built: Constant<Bit>,
}

impl Default for MpaRx {
    fn default() -> Self {
        let code = |c: LlpErrorCode| Constant::new(u64::from(c.code()).into());
        Self {
            clock: Default::default(),
            llp_data: Default::default(),
            llp_keep: Default::default(),
            llp_last: Default::default(),
            llp_valid: Default::default(),
            llp_ready: Default::default(),
            llp_conn: Default::default(),
            cfg_write: Default::default(),
            cfg_conn: Default::default(),
            cfg_fpdu_mode: Default::default(),
            cfg_markers: Default::default(),
            cfg_crc: Default::default(),
            cfg_max_ulpdu: Default::default(),
            ulpdu_data: Default::default(),
            ulpdu_keep: Default::default(),
            ulpdu_first: Default::default(),
            ulpdu_last: Default::default(),
            ulpdu_good: Default::default(),
            ulpdu_valid: Default::default(),
            ulpdu_ready: Default::default(),
            ulpdu_conn: Default::default(),
            ulpdu_len: Default::default(),
            raw_data: Default::default(),
            raw_keep: Default::default(),
            raw_last: Default::default(),
            raw_valid: Default::default(),
            raw_ready: Default::default(),
            raw_conn: Default::default(),
            err_valid: Default::default(),
            err_conn: Default::default(),
            err_code: Default::default(),
            idle: Default::default(),
            cfg_v: Default::default(),
            cfg_conn_q: Default::default(),
            fpdu_mode: core::array::from_fn(|_| Default::default()),
            markers: core::array::from_fn(|_| Default::default()),
            crc_on: core::array::from_fn(|_| Default::default()),
            max_ram: Default::default(),
            restart: core::array::from_fn(|_| Default::default()),
            realigner: Default::default(),
            s1_v: Default::default(),
            s1_word: Default::default(),
            s1_conn: Default::default(),
            s1_mark: Default::default(),
            s1_switch: Default::default(),
            sph: Default::default(),
            s1_go: Default::default(),
            adv_q: Default::default(),
            cur: Default::default(),
            in_fpdu: Default::default(),
            crc_next: Default::default(),
            dead: Default::default(),
            words_left: Default::default(),
            one_left: Default::default(),
            len_lo: Default::default(),
            zero_len: Default::default(),
            ulen: Default::default(),
            crc: Default::default(),
            since_hdr: Default::default(),
            marker_bad: Default::default(),
            obuf: Default::default(),
            first: Default::default(),
            too_long: Default::default(),
            verdict: Default::default(),
            v_crc_ok: Default::default(),
            v_mbad: Default::default(),
            ctx: Default::default(),
            crc_upd: Default::default(),
            sk_main_v: Default::default(),
            sk_main: Default::default(),
            sk_ovf_v: Default::default(),
            sk_ovf: Default::default(),
            sk_resume: Default::default(),
            sk_full_next: Default::default(),
            raw_v: Default::default(),
            raw_keep_q: Default::default(),
            raw_last_q: Default::default(),
            err_v: Default::default(),
            err_code_q: Default::default(),
            adv: Default::default(),
            switch: Default::default(),
            switch_b: Default::default(),
            take: Default::default(),
            raw_next: Default::default(),
            proc: Default::default(),
            in_fpdu_mode: Default::default(),
            in_markers: Default::default(),
            max_of: Default::default(),
            cur_next: Default::default(),
            crc_of: Default::default(),
            restart_of: Default::default(),
            ctx_wr1: Default::default(),
            ctx_wr3: Default::default(),
            ctx_rd_word: Default::default(),
            length: Default::default(),
            cmp_gt: Default::default(),
            cmp_ge: Default::default(),
            gt2: Default::default(),
            ge2: Default::default(),
            cmp_sum: Default::default(),
            longer: Default::default(),
            fpdu_words: Default::default(),
            no_data_words: Default::default(),
            one_data_word: Default::default(),
            rot: Default::default(),
            beat: Default::default(),
            swapped: Default::default(),
            crc_ok: Default::default(),
            ptr_ok: Default::default(),
            bad: Default::default(),
            held_keep: Default::default(),
            ob_v: Default::default(),
            ob_data: Default::default(),
            ob_keep: Default::default(),
            ob_first: Default::default(),
            ob_last: Default::default(),
            ob_crc_ok: Default::default(),
            ob_mbad: Default::default(),
            ob_all: Default::default(),
            ovf_keep: Default::default(),
            code_crc: code(LlpErrorCode::CrcError),
            code_marker: code(LlpErrorCode::MarkerError),
            code_too_long: code(LlpErrorCode::LocalCatastrophic),
            crc_init: Constant::new(u64::from(rnic_proto::crc32c::INIT).into()),
            hi_half: Constant::new(0xFFFF_0000_u64.into()),
            byte1: Constant::new(0x00FF_0000_u64.into()),
            byte2: Constant::new(0x0000_FF00_u64.into()),
            markers_built: Constant::new(MARKERS),
        }
    }
}

impl Logic for MpaRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, cfg_v, cfg_conn_q, s1_v, s1_word, s1_conn, s1_mark, s1_switch, s1_go, sph,
            adv_q, cur, in_fpdu, crc_next, dead, words_left, one_left, len_lo, zero_len, ulen, crc,
            since_hdr, marker_bad, obuf, first, too_long, verdict, v_crc_ok, v_mbad, raw_v,
            raw_keep_q, raw_last_q, err_v, err_code_q, sk_main_v, sk_main, sk_ovf_v, sk_ovf
        );
        for i in 0..CONNECTIONS {
            self.fpdu_mode[i].clock.next = self.clock.val();
            self.fpdu_mode[i].d.next = self.fpdu_mode[i].q.val();
            self.markers[i].clock.next = self.clock.val();
            self.markers[i].d.next = self.markers[i].q.val();
            self.crc_on[i].clock.next = self.clock.val();
            self.crc_on[i].d.next = self.crc_on[i].q.val();
            self.restart[i].clock.next = self.clock.val();
            self.restart[i].d.next = self.restart[i].q.val();
        }
        self.realigner.clock.next = self.clock.val();
        self.ctx.clock.next = self.clock.val();
        self.max_ram.clock.next = self.clock.val();

        // ---- Configuration write: settings now, the connection's restart in the next cycle.
        self.cfg_v.d.next = self.cfg_write.val();
        self.cfg_conn_q.d.next = self.cfg_conn.val();
        for i in 0..CONNECTIONS {
            if self.cfg_write.val() && (self.cfg_conn.val().index() == i) {
                self.fpdu_mode[i].d.next = self.cfg_fpdu_mode.val();
                self.markers[i].d.next = self.cfg_markers.val() && self.markers_built.val();
                self.crc_on[i].d.next = self.cfg_crc.val();
            }
        }

        // ---- Per-connection look-ups.
        self.in_fpdu_mode.next = self.fpdu_mode[0].q.val();
        self.in_markers.next = self.markers[0].q.val();
        for i in 1..CONNECTIONS {
            if self.llp_conn.val().index() == i {
                self.in_fpdu_mode.next = self.fpdu_mode[i].q.val();
                self.in_markers.next = self.markers[i].q.val();
            }
        }
        // `cur`'s settings (a configuration write of `cur` changes them only while the pipeline
        // waits: the word FSM works neither in the cycle after it nor in a swap), and the
        // restart flag of the connection being swapped in.
        self.max_of.next = self.max_ram.read_data.val();
        self.crc_of.next = self.crc_on[0].q.val();
        self.restart_of.next = self.restart[0].q.val();
        for i in 1..CONNECTIONS {
            if self.cur.q.val().index() == i {
                self.crc_of.next = self.crc_on[i].q.val();
            }
            if self.s1_conn.q.val().index() == i {
                self.restart_of.next = self.restart[i].q.val();
            }
        }

        // ---- Advance: from registers only. The word FSM swaps contexts when the S1 word is of
        // another connection; a configuration write takes a cycle of its own.
        // The swap takes four cycles, one per context word (`sph`: words already swapped), the
        // last one `switch_b`; a configuration restart (`cfg_v`) holds it for its cycle.
        // A swap also waits while the skid's overflow entry is occupied (the entry's beat is
        // completed from the working registers); the pipeline waits then anyway.
        self.switch.next = self.s1_switch.q.val() && !self.cfg_v.q.val() && !self.sk_ovf_v.q.val();
        self.switch_b.next = self.switch.val() && (self.sph.q.val() == 3);
        // The maximum ULPDU_Length store: written by a configuration write, read at `cur`'s
        // next value (the new connection in a swap's last cycle). A write's own cycle reads
        // another entry (the store never reads and writes one entry at one edge); that read is
        // not used: the word FSM waits in the next cycle (`cfg_v`), whose read is `cur`'s.
        self.cur_next.next = self.cur.q.val();
        if self.switch_b.val() {
            self.cur_next.next = self.s1_conn.q.val();
        }
        self.max_ram.write_enable.next = self.cfg_write.val();
        self.max_ram.write_addr.next = self.cfg_conn.val();
        self.max_ram.write_data.next = self.cfg_max_ulpdu.val();
        self.max_ram.read_addr.next = self.cur_next.val();
        if self.cfg_write.val() {
            self.max_ram.read_addr.next = !self.cfg_conn.val();
        }
        if self.switch.val() {
            self.sph.d.next = self.sph.q.val() + 1;
        }
        self.adv.next = self.adv_q.q.val() && !self.s1_switch.q.val();
        self.llp_ready.next = self.adv.val();
        self.take.next = self.adv.val() && self.llp_valid.val();

        // ---- Input: raw bytes to the raw register, FPDU-mode bytes to the realigner.
        self.realigner.data.next = self.llp_data.val();
        self.realigner.keep.next = self.llp_keep.val();
        self.realigner.conn.next = self.llp_conn.val();
        self.realigner.markers.next = self.in_markers.val();
        self.realigner.consume.next = self.take.val() && self.in_fpdu_mode.val();
        self.realigner.reset.next = self.cfg_v.q.val();
        self.realigner.reset_conn.next = self.cfg_conn_q.q.val();
        // `adv` implies the raw register is free.
        self.raw_next.next = self.raw_v.q.val() && !self.raw_ready.val();
        if self.adv.val() {
            self.raw_next.next = self.take.val() && !self.in_fpdu_mode.val();
        }
        self.raw_v.d.next = self.raw_next.val();
        if self.adv.val() {
            self.raw_keep_q.d.next = self.llp_keep.val();
            self.raw_last_q.d.next = self.llp_last.val();
        }
        self.raw_valid.next = self.raw_v.q.val();
        self.raw_data.next = self.s1_word.q.val();
        self.raw_keep.next = self.raw_keep_q.q.val();
        self.raw_last.next = self.raw_last_q.q.val();
        self.raw_conn.next = self.s1_conn.q.val();
        if self.adv.val() {
            self.s1_v.d.next =
                self.take.val() && self.in_fpdu_mode.val() && self.realigner.word_valid.val();
            self.s1_word.d.next = self.realigner.word.val();
            self.s1_conn.d.next = self.llp_conn.val();
            self.s1_mark.d.next = self.realigner.at_marker.val();
            self.s1_switch.d.next = self.take.val()
                && self.in_fpdu_mode.val()
                && self.realigner.word_valid.val()
                && (self.llp_conn.val() != self.cur.q.val());
            self.s1_go.d.next = self.take.val()
                && self.in_fpdu_mode.val()
                && self.realigner.word_valid.val()
                && (self.llp_conn.val() == self.cur.q.val());
        } else if self.switch_b.val() {
            self.s1_switch.d.next = false;
            self.s1_go.d.next = true;
        }
        // The context store reads the entry of the connection entering S1, every cycle, so that
        // it is ready when that connection's word reaches the word FSM.
        // Word 0 outside a swap; in a swap the word loaded in the next one (`sph` while
        // `cfg_v` holds it).
        self.ctx_rd_word.next = self.sph.q.val();
        if self.switch.val() {
            self.ctx_rd_word.next = self.sph.q.val() + 1;
        }
        self.ctx.read_addr.next = (bit_cast::<CTX_ADDR_BITS, CONN_BITS>(self.s1_conn.q.val()) << 2)
            | bit_cast::<CTX_ADDR_BITS, 2>(self.ctx_rd_word.val());
        if self.adv.val() {
            self.ctx.read_addr.next =
                bit_cast::<CTX_ADDR_BITS, CONN_BITS>(self.llp_conn.val()) << 2;
        }

        // ---- Word FSM on the S1 word.
        self.proc.next = self.adv_q.q.val()
            && self.s1_go.q.val()
            && !self.dead.q.val()
            && !self.too_long.q.val();
        self.crc_upd.state.next = self.crc.q.val();
        self.crc_upd.data.next = self.s1_word.q.val();
        self.crc_upd.keep.next = 15.into();
        self.length.next = self.s1_word.q.val().get_bits::<16>(16);
        // `length > max_of` without the 16 inverters that a subtraction's carry chain needs
        // in front of one operand (`max_of` is the store's read data): each 2-bit slice's
        // greater / greater-or-equal in one LUT, then a carry chain of 8 in which a greater
        // slice generates and an equal one propagates (carry = gt | ge & carry-in).
        self.cmp_gt.next = (self.length.val() & !self.max_of.val())
            | (!(self.length.val() ^ self.max_of.val())
                & ((self.length.val() & !self.max_of.val()) << 1));
        self.cmp_ge.next = (self.length.val() & !self.max_of.val())
            | (!(self.length.val() ^ self.max_of.val())
                & ((self.length.val() | !self.max_of.val()) << 1));
        self.gt2.next = bit_cast::<9, 1>(self.cmp_gt.val().get_bit(1).into())
            | (bit_cast::<9, 1>(self.cmp_gt.val().get_bit(3).into()) << 1)
            | (bit_cast::<9, 1>(self.cmp_gt.val().get_bit(5).into()) << 2)
            | (bit_cast::<9, 1>(self.cmp_gt.val().get_bit(7).into()) << 3)
            | (bit_cast::<9, 1>(self.cmp_gt.val().get_bit(9).into()) << 4)
            | (bit_cast::<9, 1>(self.cmp_gt.val().get_bit(11).into()) << 5)
            | (bit_cast::<9, 1>(self.cmp_gt.val().get_bit(13).into()) << 6)
            | (bit_cast::<9, 1>(self.cmp_gt.val().get_bit(15).into()) << 7);
        self.ge2.next = bit_cast::<9, 1>(self.cmp_ge.val().get_bit(1).into())
            | (bit_cast::<9, 1>(self.cmp_ge.val().get_bit(3).into()) << 1)
            | (bit_cast::<9, 1>(self.cmp_ge.val().get_bit(5).into()) << 2)
            | (bit_cast::<9, 1>(self.cmp_ge.val().get_bit(7).into()) << 3)
            | (bit_cast::<9, 1>(self.cmp_ge.val().get_bit(9).into()) << 4)
            | (bit_cast::<9, 1>(self.cmp_ge.val().get_bit(11).into()) << 5)
            | (bit_cast::<9, 1>(self.cmp_ge.val().get_bit(13).into()) << 6)
            | (bit_cast::<9, 1>(self.cmp_ge.val().get_bit(15).into()) << 7);
        self.cmp_sum.next = self.gt2.val() + self.ge2.val();
        self.longer.next = self.cmp_sum.val().get_bit(8);
        // Words after the header: (2 + L + PAD) / 4 - 1 = (L + 1) / 4 = L / 4 + (L % 4 == 3).
        // `words_left` counts L / 4 of them (the +1 of L % 4 == 3 stays in `len_lo`, which
        // `one_left` reads): no 16-bit carry chain after the realigner's word (timing).
        self.fpdu_words.next = bit_cast::<15, 14>(self.length.val().get_bits::<14>(2));
        // (L + 1) / 4 == 0: L <= 2; (L + 1) / 4 == 1: 3 <= L <= 6 (from L directly, no adder).
        self.no_data_words.next =
            (self.length.val().get_bits::<14>(2) == 0) && (self.length.val().get_bits::<2>(0) != 3);
        self.one_data_word.next = ((self.length.val().get_bits::<14>(2) == 0)
            && (self.length.val().get_bits::<2>(0) == 3))
            || ((self.length.val().get_bits::<13>(3) == 0)
                && (self.length.val().get_bits::<3>(0) != 7)
                && self.length.val().get_bit(2));
        // The word with its halves swapped: ULPDU bytes for the next beat's lanes 0-1 on top.
        self.rot.next = (self.s1_word.q.val() << 16) | (self.s1_word.q.val() >> 16);
        // A full beat: the two bytes waiting, then the word's first two.
        self.beat.next = (self.obuf.q.val() & self.hi_half.val()) | (self.s1_word.q.val() >> 16);
        // The CRC field is sent least significant byte first (§5.2).
        self.swapped.next = (self.s1_word.q.val() << 24)
            | ((self.s1_word.q.val() << 8) & self.byte1.val())
            | ((self.s1_word.q.val() >> 8) & self.byte2.val())
            | (self.s1_word.q.val() >> 24);
        self.crc_ok.next = !self.crc_of.val() || (self.crc.q.val() == !self.swapped.val());
        self.bad.next = self.verdict.q.val() && (!self.v_crc_ok.q.val() || self.v_mbad.q.val());
        // FPDUPTR (two LSBs ignored): 0 before a header, else the distance from the header.
        self.ptr_ok.next = self.s1_word.q.val().get_bits::<14>(2) == 0;
        if self.in_fpdu.q.val() {
            self.ptr_ok.next = self.s1_word.q.val().get_bits::<14>(2) == self.since_hdr.q.val();
        }
        self.held_keep.next = 15.into();
        if self.zero_len.q.val() {
            self.held_keep.next = 0.into();
        } else if self.len_lo.q.val() == 1 {
            self.held_keep.next = 8.into();
        } else if self.len_lo.q.val() == 2 {
            self.held_keep.next = 12.into();
        } else if self.len_lo.q.val() == 3 {
            self.held_keep.next = 14.into();
        }
        self.ob_v.next = false;
        self.ob_data.next = self.beat.val();
        self.ob_keep.next = 15.into();
        self.ob_first.next = self.first.q.val();
        self.ob_last.next = false;
        self.ob_crc_ok.next = false;
        self.ob_mbad.next = false;
        self.err_v.d.next = false;
        self.too_long.d.next = false;
        self.verdict.d.next = false;
        // Errors found in the previous cycle (registered compares): a bad CRC field (2; a bad
        // marker 3 when the CRC is good), or a ULPDU_Length over the maximum (5). The word after
        // a CRC field is a header or a marker and sends nothing; a too-long header right after
        // a bad CRC field is not reported (the connection is dead by then).
        if (self.too_long.q.val() && !self.dead.q.val()) || self.bad.val() {
            self.err_v.d.next = true;
            self.dead.d.next = true;
            if self.too_long.q.val() {
                self.err_code_q.d.next = self.code_too_long.val();
            } else if self.v_crc_ok.q.val() {
                self.err_code_q.d.next = self.code_marker.val();
            } else {
                self.err_code_q.d.next = self.code_crc.val();
            }
        }
        if self.proc.val() {
            if self.s1_mark.q.val() {
                // Marker: checked, dropped, always in a CRC span: inside an FPDU in that
                // FPDU's; right before a header (FPDUPTR 0) it begins the next FPDU, whose CRC
                // starts here (the CRC register is at its initial value between FPDUs).
                if !self.ptr_ok.val() {
                    self.marker_bad.d.next = true;
                }
                self.crc.d.next = self.crc_upd.next_state.val();
                if self.in_fpdu.q.val() {
                    self.since_hdr.d.next = self.since_hdr.q.val() + 1;
                }
            } else if !self.in_fpdu.q.val() {
                // Header: ULPDU_Length and ULPDU bytes 0-1. A length over the maximum is
                // taken in the next cycle (`too_long`), before anything of this FPDU leaves.
                self.too_long.d.next = self.longer.val();
                self.in_fpdu.d.next = true;
                self.crc.d.next = self.crc_upd.next_state.val();
                if self.markers_built.val() {
                    self.since_hdr.d.next = 1.into();
                }
                self.len_lo.d.next = self.length.val().get_bits::<2>(0);
                self.zero_len.d.next = self.length.val() == 0;
                self.ulen.d.next = self.length.val();
                self.first.d.next = true;
                self.words_left.d.next = self.fpdu_words.val();
                self.one_left.d.next = self.one_data_word.val();
                self.crc_next.d.next = self.no_data_words.val();
                self.obuf.d.next = self.rot.val();
            } else if !self.crc_next.q.val() {
                // ULPDU (and PAD) word.
                self.crc.d.next = self.crc_upd.next_state.val();
                if self.markers_built.val() {
                    self.since_hdr.d.next = self.since_hdr.q.val() + 1;
                }
                self.words_left.d.next = self.words_left.q.val() - 1;
                // Two words left (this one and one more): (L + 1) / 4 counted down to 2, so
                // `words_left` (L / 4 counted down) at 1 when L % 4 == 3, else at 2.
                self.one_left.d.next = (self.words_left.q.val().get_bits::<13>(2) == 0)
                    && (self.words_left.q.val().get_bit(0) == (self.len_lo.q.val() == 3))
                    && (self.words_left.q.val().get_bit(1) != (self.len_lo.q.val() == 3));
                if self.one_left.q.val() {
                    self.crc_next.d.next = true;
                }
                if self.one_left.q.val()
                    && ((self.len_lo.q.val() == 0) || (self.len_lo.q.val() == 3))
                {
                    // The ULPDU ends in this word's first half: hold the beat.
                    self.obuf.d.next = self.beat.val();
                } else {
                    self.ob_v.next = true;
                    self.first.d.next = false;
                    self.obuf.d.next = self.rot.val();
                }
            } else {
                // CRC field: release the held last beat with the verdict.
                self.ob_v.next = true;
                self.ob_data.next = self.obuf.q.val();
                self.ob_keep.next = self.held_keep.val();
                self.ob_last.next = true;
                self.ob_crc_ok.next = self.crc_ok.val();
                self.ob_mbad.next = self.marker_bad.q.val();
                self.verdict.d.next = true;
                self.v_crc_ok.d.next = self.crc_ok.val();
                self.v_mbad.d.next = self.marker_bad.q.val();
                self.in_fpdu.d.next = false;
                self.crc_next.d.next = false;
                self.marker_bad.d.next = false;
                self.crc.d.next = self.crc_init.val();
            }
        }

        // ---- Context swap (never in the same cycle as `proc`): the working registers to the
        // store, the S1 word's connection from the store (or restarted, after a configuration
        // write while it was not `cur`).
        // The bits of a word in transit beyond word 1's and word 3's fields ride in registers
        // that are idle in a swap, so they cost no flip-flops of their own: the skid's
        // overflow entry (empty when a swap starts, and no beat is offered before it ends) and
        // the raw keep (no raw beat is pending in a swap, and none is taken: `adv` is low).
        // Word 1's bits 15..31 in `sk_ovf`'s bits 0..16 (only 29..31, in bits 14..16, with
        // markers, where `since_hdr` is a field); word 3's bits 25..27 in `sk_ovf`'s bits
        // 17..19, bits 28..31 in `raw_keep_q`.
        self.ctx_wr1.next = bit_cast::<CTX_WORD_BITS, 15>(self.words_left.q.val())
            | (bit_cast::<CTX_WORD_BITS, 17>(self.sk_ovf.q.val().get_bits::<17>(0)) << 15);
        if self.markers_built.val() {
            self.ctx_wr1.next = bit_cast::<CTX_WORD_BITS, 15>(self.words_left.q.val())
                | (bit_cast::<CTX_WORD_BITS, 14>(self.since_hdr.q.val()) << 15)
                | (bit_cast::<CTX_WORD_BITS, 3>(self.sk_ovf.q.val().get_bits::<3>(14)) << 29);
        }
        self.ctx_wr3.next = bit_cast::<CTX_WORD_BITS, 1>(self.in_fpdu.q.val().into())
            | (bit_cast::<CTX_WORD_BITS, 1>(self.crc_next.q.val().into()) << 1)
            | (bit_cast::<CTX_WORD_BITS, 1>(
                (self.dead.q.val() || self.too_long.q.val() || self.bad.val()).into(),
            ) << 2)
            | (bit_cast::<CTX_WORD_BITS, 1>(self.marker_bad.q.val().into()) << 3)
            | (bit_cast::<CTX_WORD_BITS, 1>(self.one_left.q.val().into()) << 4)
            | (bit_cast::<CTX_WORD_BITS, 1>(self.zero_len.q.val().into()) << 5)
            | (bit_cast::<CTX_WORD_BITS, 1>(self.first.q.val().into()) << 6)
            | (bit_cast::<CTX_WORD_BITS, 2>(self.len_lo.q.val()) << 7)
            | (bit_cast::<CTX_WORD_BITS, 16>(self.ulen.q.val()) << 9)
            | (bit_cast::<CTX_WORD_BITS, 3>(self.sk_ovf.q.val().get_bits::<3>(17)) << 25)
            | (bit_cast::<CTX_WORD_BITS, 4>(self.raw_keep_q.q.val()) << 28);
        // The swap rotates the four words through the working registers, word 0 (`obuf`)
        // first: each swap cycle writes `obuf` to the store, shifts word k + 1's registers into
        // word k's, and loads word 3's registers (the flags, with the transit bits above)
        // from the store. After four cycles the new connection's words 0-3
        // are in place and the old one's are in the store, with no write multiplexer.
        self.ctx.write_enable.next = self.switch.val();
        self.ctx.write_addr.next = (bit_cast::<CTX_ADDR_BITS, CONN_BITS>(self.cur.q.val()) << 2)
            | bit_cast::<CTX_ADDR_BITS, 2>(self.sph.q.val());
        self.ctx.write_data.next = self.obuf.q.val();
        if self.switch.val() {
            self.obuf.d.next = self.ctx_wr1.val();
            self.words_left.d.next = self.crc.q.val().get_bits::<15>(0);
            self.since_hdr.d.next = self.crc.q.val().get_bits::<14>(15);
            self.crc.d.next = self.ctx_wr3.val();
            self.in_fpdu.d.next = self.ctx.read_data.val().get_bit(0);
            self.crc_next.d.next = self.ctx.read_data.val().get_bit(1);
            self.dead.d.next = self.ctx.read_data.val().get_bit(2);
            self.marker_bad.d.next = self.ctx.read_data.val().get_bit(3);
            self.one_left.d.next = self.ctx.read_data.val().get_bit(4);
            self.zero_len.d.next = self.ctx.read_data.val().get_bit(5);
            self.first.d.next = self.ctx.read_data.val().get_bit(6);
            self.len_lo.d.next = self.ctx.read_data.val().get_bits::<2>(7);
            self.ulen.d.next = self.ctx.read_data.val().get_bits::<16>(9);
            self.raw_keep_q.d.next = self.ctx.read_data.val().get_bits::<4>(28);
        }
        // The last swap cycle: the connection's settings, and its pending restart.
        if self.switch_b.val() {
            self.cur.d.next = self.s1_conn.q.val();
            if self.restart_of.val() {
                self.in_fpdu.d.next = false;
                self.crc_next.d.next = false;
                self.dead.d.next = false;
                self.marker_bad.d.next = false;
                self.crc.d.next = self.crc_init.val();
            }
            for i in 0..CONNECTIONS {
                if self.s1_conn.q.val().index() == i {
                    self.restart[i].d.next = false;
                }
            }
        }

        // ---- Configuration restart (the pipeline waits this cycle): at once if the connection
        // is `cur`, else when it is next swapped in.
        // In a swap (`sph` != 0) part of `cur`'s context is already in the store: the restart
        // waits for the connection's next swap-in as for any other connection.
        if self.cfg_v.q.val() {
            if (self.cfg_conn_q.q.val() == self.cur.q.val()) && (self.sph.q.val() == 0) {
                self.too_long.d.next = false;
                self.in_fpdu.d.next = false;
                self.crc_next.d.next = false;
                self.dead.d.next = false;
                self.marker_bad.d.next = false;
                self.crc.d.next = self.crc_init.val();
            } else {
                for i in 0..CONNECTIONS {
                    if self.cfg_conn_q.q.val().index() == i {
                        self.restart[i].d.next = true;
                    }
                }
            }
        }

        // ---- Outputs.
        // The skid buffer (as `RxSkid`, with the overflow entry's beat completed from the
        // working registers, unchanged while it is occupied). The entries load whenever they
        // may, valid or not, so that `ob_v` drives only the two valid flags.
        self.ob_all.next = bit_cast::<ULPDU_BITS, 32>(self.ob_data.val())
            | (bit_cast::<ULPDU_BITS, 4>(self.ob_keep.val()) << 32)
            | (bit_cast::<ULPDU_BITS, 1>(self.ob_first.val().into()) << 36)
            | (bit_cast::<ULPDU_BITS, 1>(self.ob_last.val().into()) << 37)
            | (bit_cast::<ULPDU_BITS, 1>(self.ob_crc_ok.val().into()) << 38)
            | (bit_cast::<ULPDU_BITS, 1>(self.ob_mbad.val().into()) << 39)
            | (bit_cast::<ULPDU_BITS, 16>(self.ulen.q.val()) << 40)
            | (bit_cast::<ULPDU_BITS, CONN_BITS>(self.cur.q.val()) << 56);
        // The overflow beat: its upper half, flags from the entry; the lower half is `obuf`'s
        // (a non-last beat's lower half went to `obuf`'s lower half, a last beat is `obuf`);
        // the keep is full but on a last beat.
        self.ovf_keep.next = 15.into();
        if self.sk_ovf.q.val().get_bit(17) {
            self.ovf_keep.next = self.held_keep.val();
        }
        self.sk_resume.next = bit_cast::<ULPDU_BITS, 16>(self.obuf.q.val().get_bits::<16>(0))
            | (bit_cast::<ULPDU_BITS, 16>(self.sk_ovf.q.val().get_bits::<16>(0)) << 16)
            | (bit_cast::<ULPDU_BITS, 4>(self.ovf_keep.val()) << 32)
            | (bit_cast::<ULPDU_BITS, 4>(self.sk_ovf.q.val().get_bits::<4>(16)) << 36)
            | (bit_cast::<ULPDU_BITS, 16>(self.ulen.q.val()) << 40)
            | (bit_cast::<ULPDU_BITS, CONN_BITS>(self.cur.q.val()) << 56);
        self.sk_full_next.next = (self.sk_ovf_v.q.val() && !self.ulpdu_ready.val())
            || (!self.sk_ovf_v.q.val()
                && self.sk_main_v.q.val()
                && !self.ulpdu_ready.val()
                && self.ob_v.val());
        if self.sk_ovf_v.q.val() {
            // The main entry is occupied whenever the overflow entry is.
            if self.ulpdu_ready.val() {
                self.sk_main.d.next = self.sk_resume.val();
                self.sk_ovf_v.d.next = false;
            }
        } else if !self.sk_main_v.q.val() || self.ulpdu_ready.val() {
            self.sk_main.d.next = self.ob_all.val();
            self.sk_main_v.d.next = self.ob_v.val();
        } else {
            self.sk_ovf_v.d.next = self.ob_v.val();
        }
        // The overflow entry's data loads whenever the entry is empty (what it loads is used
        // only if `sk_ovf_v` rises at the same edge), so its enable is of registers only, not
        // `ulpdu_ready` (the consumer's ready chain ended at these 20 enables). Not during a
        // swap (no beat is offered then), where it carries context bits in transit instead,
        // nor while a swap waits for a configuration restart (`s1_switch` without `switch`).
        if self.switch.val() {
            self.sk_ovf.d.next = bit_cast::<OVF_BITS, 17>(self.crc.q.val().get_bits::<17>(15))
                | (bit_cast::<OVF_BITS, 3>(self.ctx.read_data.val().get_bits::<3>(25)) << 17);
        } else if !self.s1_switch.q.val() && !self.sk_ovf_v.q.val() {
            self.sk_ovf.d.next = bit_cast::<OVF_BITS, 16>(self.ob_all.val().get_bits::<16>(16))
                | (bit_cast::<OVF_BITS, 4>(self.ob_all.val().get_bits::<4>(36)) << 16);
        }
        self.adv_q.d.next =
            !self.sk_full_next.val() && !self.raw_next.val() && !self.cfg_write.val();
        self.ulpdu_data.next = self.sk_main.q.val().get_bits::<32>(0);
        self.ulpdu_keep.next = self.sk_main.q.val().get_bits::<4>(32);
        self.ulpdu_first.next = self.sk_main.q.val().get_bit(36);
        self.ulpdu_last.next = self.sk_main.q.val().get_bit(37);
        self.ulpdu_good.next =
            self.sk_main.q.val().get_bit(38) && !self.sk_main.q.val().get_bit(39);
        self.ulpdu_len.next = self.sk_main.q.val().get_bits::<16>(40);
        self.ulpdu_conn.next = self.sk_main.q.val().get_bits::<CONN_BITS>(56);
        self.ulpdu_valid.next = self.sk_main_v.q.val();
        self.err_valid.next = self.err_v.q.val();
        // An error is taken in a cycle after a word was processed (`too_long`, `verdict`), so
        // not in a swap's last cycle: `cur` is the same in the cycle of the pulse.
        self.err_conn.next = self.cur.q.val();
        self.err_code.next = self.err_code_q.q.val();
        self.idle.next = !self.s1_v.q.val()
            && !self.sk_main_v.q.val()
            && !self.verdict.q.val()
            && !self.too_long.q.val()
            && !self.err_v.q.val()
            && !self.cfg_v.q.val()
            && !self.raw_v.q.val();
    }
}

crate::sim_ports!(impl[] MpaRx {
    inputs: llp_data, llp_keep, llp_last, llp_valid, llp_conn, cfg_write, cfg_conn,
        cfg_fpdu_mode, cfg_markers, cfg_crc, cfg_max_ulpdu, ulpdu_ready, raw_ready;
    outputs: llp_ready, ulpdu_data, ulpdu_keep, ulpdu_first, ulpdu_last, ulpdu_good,
        ulpdu_valid, ulpdu_conn, ulpdu_len, raw_data, raw_keep, raw_last, raw_valid, raw_conn, err_valid,
        err_conn, err_code, idle;
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generates_verilog() {
        let v = crate::catalog::top_verilog(MpaRx::default());
        assert!(v.contains("module top"));
    }
}
