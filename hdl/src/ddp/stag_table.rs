//! The STag table storage (`rfc5040-rdmap.md` §7.2): [`STAG_ENTRIES`] entries, indexed by the
//! STag's index (STag = index << 8 | key, DESIGN.md "Decisions already taken"), read by the
//! pipeline of [`StagCheck`](super::stag_check::StagCheck).
//!
//! # Layout
//!
//! Each entry is two words of [`W_BITS`] = 64 at addresses `index * 2 + word` of ONE block RAM
//! of 128 x 64 bits: 4 iCE40 block RAMs (256 x 16 each). One word per entry (117 bits in 64
//! words) would take 8 of them, each 3/4 empty: a block RAM is at most 16 bits wide. The words
//! follow the pipeline stage that needs them, so the table is read over two cycles without
//! delaying any check:
//! - word 0 (read in the request's cycle, used in S1): base_TO\[15:0\], region
//!   length\[15:0\], key, PD, access rights, QP binding, remote-invalidate flag, **valid bit**
//!   ([`W0_BITS`] = 53 bits, offsets `W0_*`; the valid bit last, [`W0_VALID`]);
//! - word 1 (read one cycle later, used in S2): base_TO\[31:16\], region length\[31:16\], host
//!   address (64 bits, offsets `W1_*`).
//!
//! **base_TO and the region length are stored inverted** (`~base_TO`, `~len` in their fields of
//! both words; the host address, the key and the flags as they are): StagCheck's subtractions
//! and its BOUNDS compare then take every operand in the polarity its carry chain needs, with
//! no inverter LUT in front of a carry (issue 5: about 100 LUT4; the inversion is free in the
//! write-data multiplexer's LUTs). Word 0's spare bits 63..53 are written with word 1's
//! (host address \[31:21\]) in both words: no multiplexer for them.
//!
//! The valid bit lives in word 0's spare bits (issue 5: 64 flip-flops, two 64-way decoders and
//! a 64:1 read multiplexer less, `docs/decisions.md` "StagCheck: the valid bits in the table
//! RAM"). A remote invalidation's clear is then a write of word 0 (all of it: the other fields
//! of an invalid entry are never looked at, and a programming writes both words), which shares
//! the RAM's one write port with programming (see "Writes").
//!
//! **base_TO is 32 bits** on the Cu build (bits 63..32 are 0): the driver registers a region
//! at its host (DMA) address as base TO, and refuses one that ends above 2^DMA_ADDR_BITS (2^32,
//! or 2^24 in the Alchitry Cu profile, `docs/decisions.md`), so no registered region has a
//! larger base. 32 bits saved per
//! entry are one block RAM (5 before). [`StagCheck`](super::stag_check::StagCheck) makes an
//! entry programmed with base_TO\[63:32\] != 0 invalid.
//!
//! # Timing
//!
//! - **Reads**: one read port. In a cycle with `read_a` the RAM reads word 0 of `read_a_index`,
//!   else word 1 of `read_b_index`; the data is on `read_data` in the next cycle (registered).
//!   So an entry takes two consecutive cycles of the port: a request in the cycle after another
//!   one takes the port from the first one's word 1 (see
//!   [`StagCheck`](super::stag_check::StagCheck)).
//! - **Writes** (one port; exact rules, decisions):
//!   - A *new* commit (`write` in cycle `p`, not in `p - 1`) writes word 1 at the end of `p`
//!     and word 0 with the valid bit at the end of `p + 1` (`w0_pending` high in `p + 1`), both
//!     from the ports as they are then: the writer holds `write_index` and the fields unchanged
//!     in `p + 1` (`prog_*` are HostIf's staging registers and `prog_write` comes in the cycle
//!     of the commit write, so no MMIO write can change them before the end of `p + 1`; no copy
//!     of word 0 is kept here, issue 5). A *repeated* commit (`write` in `p - 1` too: the same
//!     staging registers, which the commit write does not change) writes nothing: its words are
//!     those of the commit before it.
//!   - A clear (`clear`) writes word 0 of `clear_index` with the valid bit 0 (its other bits
//!     are word 1's write data: an invalid entry's other fields are never looked at, so the
//!     write data is word 0's only for a commit's word 0). Priority at the
//!     port: a new commit's word 0, then a **pending** clear, then a new commit's word 1, then
//!     the clear of this cycle. A clear that does not get the port waits in a one-entry pending
//!     register (`pend_v`, `pend_index`: the user forwards it to its reads) and is written in
//!     the next cycle without a commit's word 0: at the end of cycle `c`, `c + 1` or `c + 2`
//!     for a clear of cycle `c` (never more, and one pending entry suffices: clears come at
//!     least 2 cycles apart, a new commit's word 0 at most every other cycle).
//!   - A pending clear takes the port from a new commit's word 1 (the bound above): that
//!     commit's word 0 is then written with the valid bit 0 (the entry ends **invalid**, never
//!     half programmed; `w0_pending` is high as for any commit). This happens only when that
//!     commit comes 2 or 3 cycles after the previous new commit (with a clear in between); the
//!     driver writes 6 MMIO registers per programming, so its commits are never displaced.
//!   - A `write` of the clear's index in the clear's cycle, or a `write` or word-0 write of the
//!     pending clear's index, drops the clear (the programming is the later, explicit action
//!     of the firmware).
//! - **Timing of `write`** (issue 5): `write` is HostIf's decode of the STAG_COMMIT MMIO write,
//!   a path from the MMIO port that crosses the die to this RAM (the whole core's critical
//!   path in session 20, ending at this RAM's write enable). The write data's select is `nw`
//!   (a register), not the new commit's word-1 select: `write` drives the write enable, the
//!   address and the valid bit only, not 64 data multiplexers (`docs/decisions.md`
//!   "StagTable: the write data selected by a register").
//! - A read and a write of the same RAM word at the same edge return undefined data
//!   (`no_rw_check`: iCE40 block RAM gives no guarantee, and no bypass logic is built); the
//!   user must not use such data ([`StagCheck`](super::stag_check::StagCheck) answers
//!   `INVALID_STAG` for it). The rust-hdl model returns the old word inverted in that case, so a
//!   test catches any use of it.

use crate::config::{CONN_BITS, DMA_ADDR_BITS, PD_BITS, STAG_ENTRIES, STAG_INDEX_BITS};
use crate::ram::BlockRam;
use rust_hdl::prelude::*;

/// Word 0: base_TO\[15:0\], inverted.
pub const W0_BASE_0: usize = 0;
/// Word 0: region length\[15:0\], inverted.
pub const W0_LEN_L: usize = 16;
/// Word 0: the key.
pub const W0_KEY: usize = 32;
/// Word 0: the PD.
pub const W0_PD: usize = W0_KEY + 8;
/// Word 0: the access rights (`rnic_proto::verbs::access` bits).
pub const W0_ACCESS: usize = W0_PD + PD_BITS;
/// Word 0: the QP-bound flag.
pub const W0_QP_BOUND: usize = W0_ACCESS + 4;
/// Word 0: the bound QP.
pub const W0_QP: usize = W0_QP_BOUND + 1;
/// Bits word 0 keeps for the bound QP: room for 4 QPs whatever the QP count, so that the
/// word's layout (and StagCheck's literal offsets) does not change with `CONN_BITS`.
pub const W0_QP_FIELD_BITS: usize = 2;
/// Word 0: the remote-invalidate flag.
pub const W0_REMOTE_INV: usize = W0_QP + W0_QP_FIELD_BITS;
/// Word 0: the valid bit (last, in word 0's spare bits; a clear writes it 0).
pub const W0_VALID: usize = W0_REMOTE_INV + 1;
/// Width of word 0.
pub const W0_BITS: usize = W0_VALID + 1;
/// Word 1: base_TO\[31:16\], inverted.
pub const W1_BASE_1: usize = 0;
/// Word 1: region length\[31:16\], inverted.
pub const W1_LEN_H: usize = 16;
/// Word 1: the host address.
pub const W1_HOST: usize = 32;
/// Width of a RAM word (word 1).
pub const W_BITS: usize = W1_HOST + DMA_ADDR_BITS;

// The packing and the RAM sizes assume the Cu configuration's field widths.
const _: () = assert!(
    W0_BITS == 53 && W_BITS >= W0_BITS && STAG_ENTRIES == 64 && CONN_BITS <= W0_QP_FIELD_BITS
);

/// The STag table: the two-word RAM and its write-port arbitration (see the module
/// documentation).
#[derive(LogicBlock, Default)]
pub struct StagTable {
    pub clock: Signal<In, Clock>,
    /// Programming (a commit): word 1 of `write_index` now, word 0 (with the valid bit
    /// `write_valid`) in the next cycle, from `write_index` / `write_w0` as they are then: the
    /// writer holds them (and `write_w1`) unchanged in the cycle after `write`.
    pub write: Signal<In, Bit>,
    pub write_index: Signal<In, Bits<STAG_INDEX_BITS>>,
    pub write_valid: Signal<In, Bit>,
    /// Word 0 below the valid bit.
    pub write_w0: Signal<In, Bits<W0_VALID>>,
    pub write_w1: Signal<In, Bits<W_BITS>>,
    /// A `write` in the previous cycle (word 0 of `write_index` is written now, unless that
    /// `write` repeated the one before it, which wrote it then).
    pub w0_pending: Signal<Out, Bit>,
    /// Clears the valid bit of `clear_index` (a remote invalidation): now, or as soon as the
    /// write port allows (`pend_*`).
    pub clear: Signal<In, Bit>,
    pub clear_index: Signal<In, Bits<STAG_INDEX_BITS>>,
    /// A clear not written yet (a register): its entry reads as before the clear.
    pub pend_v: Signal<Out, Bit>,
    pub pend_index: Signal<Out, Bits<STAG_INDEX_BITS>>,
    /// Read word 0 of `read_a_index` (else word 1 of `read_b_index`).
    pub read_a: Signal<In, Bit>,
    pub read_a_index: Signal<In, Bits<STAG_INDEX_BITS>>,
    pub read_b_index: Signal<In, Bits<STAG_INDEX_BITS>>,
    /// The word read at the previous edge (registered).
    pub read_data: Signal<Out, Bits<W_BITS>>,

    /// `write` in the previous cycle.
    w_d: DFF<Bit>,
    /// A new commit in the previous cycle: its word 0 is written now.
    nw: DFF<Bit>,
    /// That commit's word 1 was displaced by a pending clear: its word 0 is written invalid.
    kill: DFF<Bit>,
    pend: DFF<Bit>,
    pend_idx: DFF<Bits<STAG_INDEX_BITS>>,
    ram: BlockRam<W_BITS, RAM_ABITS>,

    new_commit: Signal<Local, Bit>,
    pend_live: Signal<Local, Bit>,
    clear_ok: Signal<Local, Bit>,
    sel_w1: Signal<Local, Bit>,
    w_index: Signal<Local, Bits<STAG_INDEX_BITS>>,
    w0_valid: Signal<Local, Bit>,
    /// Word 1's bit 52 when a new commit's word 1 takes the port, else 0 (a clear's valid bit).
    w1_52: Signal<Local, Bit>,
}

/// RAM address bits: the index and the word.
const RAM_ABITS: usize = STAG_INDEX_BITS + 1;

// The literal bit offsets in `update` (hdl_gen takes literals).
const _: () = assert!(W0_VALID == 52);

impl Logic for StagTable {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, w_d, nw, kill, pend, pend_idx);
        self.ram.clock.next = self.clock.val();

        // Writes, in priority order: a new commit's word 0 (`nw`), the pending clear, a new
        // commit's word 1, this cycle's clear. `nw` and `new_commit` never come together.
        self.w_d.d.next = self.write.val();
        self.w0_pending.next = self.w_d.q.val();
        self.new_commit.next = self.write.val() && !self.w_d.q.val();
        self.nw.d.next = self.new_commit.val();
        // A programming of the pending clear's index (a write now, or its word 0) drops it, and
        // so does a write of this cycle's clear's index.
        self.pend_live.next = self.pend.q.val()
            && !((self.write.val() || self.w_d.q.val())
                && (self.write_index.val() == self.pend_idx.q.val()));
        self.clear_ok.next = self.clear.val()
            && !(self.write.val() && (self.write_index.val() == self.clear_index.val()));
        self.sel_w1.next = self.new_commit.val() && !self.pend_live.val();
        self.kill.d.next = self.new_commit.val() && self.pend_live.val();
        // The clear of this cycle waits unless the port is free; the pending one is written
        // unless a word 0 takes the port (then this cycle has no clear: see the module docs).
        self.pend.d.next = (self.nw.q.val() && self.pend_live.val())
            || (self.clear_ok.val()
                && (self.nw.q.val() || self.pend_live.val() || self.new_commit.val()));
        self.pend_idx.d.next = self.clear_index.val();
        if self.nw.q.val() && self.pend_live.val() {
            self.pend_idx.d.next = self.pend_idx.q.val();
        }
        self.pend_v.next = self.pend.q.val();
        self.pend_index.next = self.pend_idx.q.val();

        self.w_index.next = self.clear_index.val();
        if self.nw.q.val() || self.sel_w1.val() {
            self.w_index.next = self.write_index.val();
        } else if self.pend_live.val() {
            self.w_index.next = self.pend_idx.q.val();
        }
        self.ram.write_enable.next =
            self.nw.q.val() || self.pend_live.val() || self.new_commit.val() || self.clear_ok.val();
        self.ram.write_addr.next = (bit_cast::<RAM_ABITS, STAG_INDEX_BITS>(self.w_index.val())
            << 1)
            | bit_cast::<RAM_ABITS, 1>(self.sel_w1.val().into());
        self.w0_valid.next = self.nw.q.val() && self.write_valid.val() && !self.kill.q.val();
        // The data: word 0 for a commit's word 0 (`nw`: the fields and the valid bit, 0 for a
        // displaced commit), else word 1. A clear's word 0 needs only its valid bit 0: the
        // other fields of an invalid entry are never looked at, so a clear writes word 1's
        // bits there with bit 52 (the valid bit) 0, and only that bit looks at `write`.
        // Bits 63..53 (word 0's spare bits, never read) are word 1's in both words: no
        // multiplexer for them.
        self.w1_52.next = self.sel_w1.val() && self.write_w1.val().get_bit(52);
        self.ram.write_data.next = ((self.write_w1.val() >> 53) << 53)
            | (bit_cast::<W_BITS, 1>(self.w1_52.val().into()) << 52)
            | bit_cast::<W_BITS, 52>(self.write_w1.val().get_bits::<52>(0));
        if self.nw.q.val() {
            self.ram.write_data.next = ((self.write_w1.val() >> 53) << 53)
                | (bit_cast::<W_BITS, 1>(self.w0_valid.val().into()) << 52)
                | bit_cast::<W_BITS, W0_VALID>(self.write_w0.val());
        }

        // Reads: word 0 for a new request, else word 1 of the previous one.
        self.ram.read_addr.next =
            (bit_cast::<RAM_ABITS, STAG_INDEX_BITS>(self.read_b_index.val()) << 1) | 1;
        if self.read_a.val() {
            self.ram.read_addr.next =
                bit_cast::<RAM_ABITS, STAG_INDEX_BITS>(self.read_a_index.val()) << 1;
        }
        self.read_data.next = self.ram.read_data.val();
    }
}
