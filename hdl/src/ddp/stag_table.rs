//! The STag table storage (`rfc5040-rdmap.md` §7.2): [`STAG_ENTRIES`] entries, indexed by the
//! STag's index (STag = index << 8 | key, DESIGN.md "Decisions already taken"), read by the
//! pipeline of [`StagCheck`](super::stag_check::StagCheck).
//!
//! # Layout
//!
//! - **Valid bits** apart from the rest, in a 64-bit register vector: an invalidation writes only
//!   its bit (no read-modify-write of the wide fields), and the clear port needs no RAM port.
//! - **The 116 other bits** as two words of [`W_BITS`] = 64 at addresses `index * 2 + word` of
//!   ONE block RAM of 128 x 64 bits: 4 iCE40 block RAMs (256 x 16 each). One word per entry
//!   (116 bits in 64 words) would take 8 of them, each 3/4 empty: a block RAM is at most 16
//!   bits wide. The words follow the pipeline stage that needs them, so the table is read over
//!   two cycles without delaying any check:
//!   - word 0 (read in the request's cycle, used in S1): base_TO\[15:0\], region
//!     length\[15:0\], key, PD, access rights, QP binding, remote-invalidate flag ([`W0_BITS`] =
//!     52 bits, offsets `W0_*`);
//!   - word 1 (read one cycle later, used in S2): base_TO\[31:16\], region length\[31:16\], host
//!     address (64 bits, offsets `W1_*`).
//! - **base_TO is 32 bits** on the Cu build (bits 63..32 are 0): the driver registers a region
//!   at its host (DMA) address as base TO, and refuses one that ends above 2^32 (the 32-bit DMA
//!   address, `docs/decisions.md`), so no registered region has a larger base. 32 bits saved
//!   per entry are one block RAM (5 before). [`StagCheck`](super::stag_check::StagCheck) makes
//!   an entry programmed with base_TO\[63:32\] != 0 invalid.
//!
//! # Timing
//!
//! - **Reads**: one read port. In a cycle with `read_a` the RAM reads word 0 of `read_a_index`,
//!   else word 1 of `read_b_index`; the data is on `read_data` in the next cycle (registered).
//!   The valid bit of `read_a_index` is read every cycle (`read_valid`, same timing). So an
//!   entry takes two consecutive cycles of the port: a request in the cycle after another one
//!   takes the port from the first one's word 1 (see [`StagCheck`](super::stag_check::StagCheck)).
//! - **Writes**: `write` in cycle `p` writes the valid bit and word 1 (`write_w1`) at the end of
//!   `p`, and word 0 (`write_w0`) at the end of `p + 1` (`w0_pending` high in `p + 1`), taken
//!   from the ports in `p + 1`: the writer holds `write_index` and the fields unchanged in
//!   `p + 1` (`prog_*` are HostIf's staging registers and `prog_write` comes in the cycle of
//!   the commit write, so no MMIO write can change them before the end of `p + 1`; no copy of
//!   word 0 is kept here, issue 5). A `write` in `p + 1` as well (only a repeated commit of the
//!   same staging registers) takes the port; its own word 0 follows in `p + 2`.
//! - A read and a write of the same RAM word at the same edge return undefined data
//!   (`no_rw_check`: iCE40 block RAM gives no guarantee, and no bypass logic is built); the
//!   user must not use such data ([`StagCheck`](super::stag_check::StagCheck) answers
//!   `INVALID_STAG` for it). The rust-hdl model returns the old word inverted in that case, so a
//!   test catches any use of it.
//! - `clear` clears the valid bit of `clear_index` at the edge; a `write` of the same index at
//!   the same edge wins (it is the later, explicit action of the firmware).

use crate::config::{CONN_BITS, DMA_ADDR_BITS, PD_BITS, STAG_ENTRIES, STAG_INDEX_BITS};
use crate::ram::BlockRam;
use rust_hdl::prelude::*;

/// Word 0: base_TO\[15:0\].
pub const W0_BASE_0: usize = 0;
/// Word 0: region length\[15:0\].
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
/// Width of word 0.
pub const W0_BITS: usize = W0_REMOTE_INV + 1;
/// Word 1: base_TO\[31:16\].
pub const W1_BASE_1: usize = 0;
/// Word 1: region length\[31:16\].
pub const W1_LEN_H: usize = 16;
/// Word 1: the host address.
pub const W1_HOST: usize = 32;
/// Width of a RAM word (word 1).
pub const W_BITS: usize = W1_HOST + DMA_ADDR_BITS;

// The packing and the RAM sizes assume the Cu configuration's field widths.
const _: () =
    assert!(W0_BITS == 52 && W_BITS == 64 && STAG_ENTRIES == 64 && CONN_BITS <= W0_QP_FIELD_BITS);

/// The STag table: valid bits and the two-word RAM (see the module documentation).
#[derive(LogicBlock)]
pub struct StagTable {
    pub clock: Signal<In, Clock>,
    /// Programming: the valid bit and word 1 of `write_index` now, word 0 in the next cycle,
    /// from `write_index` / `write_w0` as they are then: the writer holds them (and
    /// `write_w1`) unchanged in the cycle after `write`.
    pub write: Signal<In, Bit>,
    pub write_index: Signal<In, Bits<STAG_INDEX_BITS>>,
    pub write_valid: Signal<In, Bit>,
    pub write_w0: Signal<In, Bits<W0_BITS>>,
    pub write_w1: Signal<In, Bits<W_BITS>>,
    /// Word 0 of `write_index` (held by the writer since the `write` of the previous cycle)
    /// is written at the end of this cycle.
    pub w0_pending: Signal<Out, Bit>,
    /// Clears the valid bit of `clear_index` (a remote invalidation).
    pub clear: Signal<In, Bit>,
    pub clear_index: Signal<In, Bits<STAG_INDEX_BITS>>,
    /// Read word 0 of `read_a_index` (else word 1 of `read_b_index`).
    pub read_a: Signal<In, Bit>,
    pub read_a_index: Signal<In, Bits<STAG_INDEX_BITS>>,
    pub read_b_index: Signal<In, Bits<STAG_INDEX_BITS>>,
    /// The word read at the previous edge (registered).
    pub read_data: Signal<Out, Bits<W_BITS>>,
    /// The valid bit of `read_a_index` at the previous edge (registered).
    pub read_valid: Signal<Out, Bit>,

    valid: [DFF<Bit>; STAG_ENTRIES],
    valid_rd: DFF<Bit>,
    w0_v: DFF<Bit>,
    ram: BlockRam<W_BITS, RAM_ABITS>,
}

impl Default for StagTable {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            write: Default::default(),
            write_index: Default::default(),
            write_valid: Default::default(),
            write_w0: Default::default(),
            write_w1: Default::default(),
            w0_pending: Default::default(),
            clear: Default::default(),
            clear_index: Default::default(),
            read_a: Default::default(),
            read_a_index: Default::default(),
            read_b_index: Default::default(),
            read_data: Default::default(),
            read_valid: Default::default(),
            valid: std::array::from_fn(|_| Default::default()),
            valid_rd: Default::default(),
            w0_v: Default::default(),
            ram: Default::default(),
        }
    }
}

/// RAM address bits: the index and the word.
const RAM_ABITS: usize = STAG_INDEX_BITS + 1;

impl Logic for StagTable {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid_rd, w0_v);
        self.ram.clock.next = self.clock.val();
        // One decoder compare per bit and port (a shifted mask would build a barrel shifter).
        for i in 0..STAG_ENTRIES {
            self.valid[i].clock.next = self.clock.val();
            self.valid[i].d.next = self.valid[i].q.val();
            if self.clear.val() && (self.clear_index.val().index() == i) {
                self.valid[i].d.next = false;
            }
            if self.write.val() && (self.write_index.val().index() == i) {
                self.valid[i].d.next = self.write_valid.val();
            }
        }
        self.valid_rd.d.next = false;
        for i in 0..STAG_ENTRIES {
            if self.read_a_index.val().index() == i {
                self.valid_rd.d.next = self.valid[i].q.val();
            }
        }
        self.read_valid.next = self.valid_rd.q.val();

        // Writes: word 1 from the ports at `write`, word 0 from the same ports one cycle later
        // (the writer holds them: HostIf's staging registers).
        self.w0_v.d.next = self.write.val();
        self.w0_pending.next = self.w0_v.q.val();
        self.ram.write_enable.next = self.write.val() || self.w0_v.q.val();
        self.ram.write_addr.next = (bit_cast::<RAM_ABITS, STAG_INDEX_BITS>(self.write_index.val())
            << 1)
            | bit_cast::<RAM_ABITS, 1>(self.write.val().into());
        self.ram.write_data.next = bit_cast::<W_BITS, W0_BITS>(self.write_w0.val());
        if self.write.val() {
            self.ram.write_data.next = self.write_w1.val();
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
