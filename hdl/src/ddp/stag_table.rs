//! The STag table storage (`rfc5040-rdmap.md` §7.2): [`STAG_ENTRIES`] entries, indexed by the
//! STag's index (STag = index << 8 | key, DESIGN.md "Decisions already taken"), read by the
//! pipeline of [`StagCheck`](super::stag_check::StagCheck).
//!
//! # Layout
//!
//! - **Valid bits** apart from the rest, in a 64-bit register vector: an invalidation writes only
//!   its bit (no read-modify-write of the wide fields), and the clear port needs no RAM port.
//! - **Wide fields** in two block RAMs, one per pipeline stage that needs them, so that no field
//!   is carried in pipeline registers longer than needed:
//!   - part A (read in the request's cycle): base_TO, region length, key, PD, access rights, QP
//!     binding, remote-invalidate flag ([`A_BITS`] = 116 bits: 8 iCE40 block RAMs of 16 bits);
//!   - part B (read one cycle later): the host address ([`B_BITS`] = 32: 2 block RAMs).
//!
//! Both parts and the valid bit are written together (`write`), at the clock edge that ends
//! the write's cycle. Every read is registered: the data of the index presented in cycle `t` is
//! on the output in `t + 1`. A read and a write of the same RAM entry at the same edge return
//! undefined data (`no_rw_check`: iCE40 block RAM gives no guarantee, and no bypass logic is
//! built); the user must not use such data ([`StagCheck`](super::stag_check::StagCheck)
//! answers `INVALID_STAG` for it). The rust-hdl model returns the old entry inverted in that
//! case, so a test catches any use of it.
//!
//! The valid bit is read together with part A (`read_valid` is the bit of `read_a_index`, with
//! the same registered timing). `clear` clears the bit of `clear_index` at the edge; a `write`
//! of the same index at the same edge wins (it is the later, explicit action of the firmware).

use crate::config::{CONN_BITS, DMA_ADDR_BITS, PD_BITS, STAG_ENTRIES, STAG_INDEX_BITS};
use rust_hdl::prelude::*;
use std::fmt::Write;

/// Bit offset of base_TO (64 bits) in part A.
pub const A_BASE_TO: usize = 0;
/// Bit offset of the region length (32 bits) in part A.
pub const A_LEN: usize = 64;
/// Bit offset of the key in part A.
pub const A_KEY: usize = 96;
/// Bit offset of the PD in part A.
pub const A_PD: usize = A_KEY + 8;
/// Bit offset of the access rights (`rnic_proto::verbs::access` bits) in part A.
pub const A_ACCESS: usize = A_PD + PD_BITS;
/// Bit offset of the QP-bound flag in part A.
pub const A_QP_BOUND: usize = A_ACCESS + 4;
/// Bit offset of the bound QP in part A.
pub const A_QP: usize = A_QP_BOUND + 1;
/// Bit offset of the remote-invalidate flag in part A.
pub const A_REMOTE_INV: usize = A_QP + CONN_BITS;
/// Width of part A.
pub const A_BITS: usize = A_REMOTE_INV + 1;
/// Width of part B: the host address.
pub const B_BITS: usize = DMA_ADDR_BITS;

// The packing and the RAM sizes assume the Cu configuration's field widths.
const _: () = assert!(A_BITS == 116 && B_BITS == 32 && STAG_ENTRIES == 64);

/// Simple dual-port RAM (one registered read port, one write port, one clock) of `2^A` words of
/// `W` bits, mapped to iCE40 block RAM. Unlike the MPA context RAM it allows a read and a write
/// of the same entry at one edge; the read data is then undefined (see the module docs).
#[derive(LogicBlock)]
pub struct StagRam<const W: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub read_addr: Signal<In, Bits<A>>,
    pub read_data: Signal<Out, Bits<W>>,
    pub write_enable: Signal<In, Bit>,
    pub write_addr: Signal<In, Bits<A>>,
    pub write_data: Signal<In, Bits<W>>,
    _mem: Vec<Bits<W>>,
}

impl<const W: usize, const A: usize> Default for StagRam<W, A> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            read_addr: Default::default(),
            read_data: Default::default(),
            write_enable: Default::default(),
            write_addr: Default::default(),
            write_data: Default::default(),
            _mem: vec![Bits::default(); 1 << A],
        }
    }
}

impl<const W: usize, const A: usize> Logic for StagRam<W, A> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let r = self.read_addr.val().index();
            let w = self.write_addr.val().index();
            let collide = self.write_enable.val() && r == w;
            // Undefined on the hardware: give data no correct design can depend on.
            self.read_data.next = if collide { !self._mem[r] } else { self._mem[r] };
            if self.write_enable.val() {
                self._mem[w] = self.write_data.val();
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let entries = 1usize << A;
        let mut v = String::new();
        let _ = writeln!(
            v,
            "(* ram_style = \"block\", no_rw_check *) reg [{}:0] mem [0:{}];",
            W - 1,
            entries - 1
        );
        let _ = writeln!(v, "integer i;");
        let _ = writeln!(
            v,
            "initial begin\n   for (i = 0; i < {entries}; i = i + 1) mem[i] = {W}'d0;\nend"
        );
        let _ = writeln!(
            v,
            "always @(posedge clock) begin\n   if (write_enable) mem[write_addr] <= write_data;\n   read_data <= mem[read_addr];\nend"
        );
        Verilog::Custom(v)
    }
}

/// The STag table: valid bits, parts A and B (see the module documentation).
#[derive(LogicBlock)]
pub struct StagTable {
    pub clock: Signal<In, Clock>,
    /// Programming: all parts and the valid bit of `write_index` at once.
    pub write: Signal<In, Bit>,
    pub write_index: Signal<In, Bits<STAG_INDEX_BITS>>,
    pub write_valid: Signal<In, Bit>,
    pub write_a: Signal<In, Bits<A_BITS>>,
    pub write_b: Signal<In, Bits<B_BITS>>,
    /// Clears the valid bit of `clear_index` (a remote invalidation).
    pub clear: Signal<In, Bit>,
    pub clear_index: Signal<In, Bits<STAG_INDEX_BITS>>,
    /// Read port A and the valid bit (registered).
    pub read_a_index: Signal<In, Bits<STAG_INDEX_BITS>>,
    pub read_a_data: Signal<Out, Bits<A_BITS>>,
    pub read_valid: Signal<Out, Bit>,
    /// Read port B (registered).
    pub read_b_index: Signal<In, Bits<STAG_INDEX_BITS>>,
    pub read_b_data: Signal<Out, Bits<B_BITS>>,

    valid: [DFF<Bit>; STAG_ENTRIES],
    valid_rd: DFF<Bit>,
    ram_a: StagRam<A_BITS, STAG_INDEX_BITS>,
    ram_b: StagRam<B_BITS, STAG_INDEX_BITS>,
}

impl Default for StagTable {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            write: Default::default(),
            write_index: Default::default(),
            write_valid: Default::default(),
            write_a: Default::default(),
            write_b: Default::default(),
            clear: Default::default(),
            clear_index: Default::default(),
            read_a_index: Default::default(),
            read_a_data: Default::default(),
            read_valid: Default::default(),
            read_b_index: Default::default(),
            read_b_data: Default::default(),
            valid: std::array::from_fn(|_| Default::default()),
            valid_rd: Default::default(),
            ram_a: Default::default(),
            ram_b: Default::default(),
        }
    }
}

impl Logic for StagTable {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid_rd);
        self.ram_a.clock.next = self.clock.val();
        self.ram_b.clock.next = self.clock.val();
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

        self.ram_a.write_enable.next = self.write.val();
        self.ram_a.write_addr.next = self.write_index.val();
        self.ram_a.write_data.next = self.write_a.val();
        self.ram_a.read_addr.next = self.read_a_index.val();
        self.read_a_data.next = self.ram_a.read_data.val();
        self.ram_b.write_enable.next = self.write.val();
        self.ram_b.write_addr.next = self.write_index.val();
        self.ram_b.write_data.next = self.write_b.val();
        self.ram_b.read_addr.next = self.read_b_index.val();
        self.read_b_data.next = self.ram_b.read_data.val();
    }
}
