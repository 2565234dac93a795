//! Block RAM leaves with custom Verilog, so that yosys maps them onto iCE40 `SB_RAM40_4K`.
//!
//! rust-hdl's own `RAM` lets a read see the word written at the same edge; yosys 0.23 emulates
//! that on iCE40 block RAM with a register of the write data, an address comparator and a
//! multiplexer per bit (`emulate_transparency` in its log; ~85 logic cells for a 41-bit FIFO).
//! [`BlockRam`] tells yosys `no_rw_check`: no bypass is built, and a read of a word being
//! written returns undefined data, which its users never use (`docs/decisions.md` "Block RAM
//! without read-during-write logic"). See also `crate::mpa::rx_context_ram::RxContextRam`
//! (which asserts that such a read never happens) and DdpTx's `TxBufRam` (a read enable).

use rust_hdl::prelude::*;
use std::fmt::Write;

/// Simple dual-port RAM (one registered read port, one write port, one clock) of `2^A` words of
/// `W` bits, mapped to iCE40 block RAM (`W / 16` rounded up of them). A read and a write of the
/// same word at one edge are allowed; the read data is then undefined, and the model returns
/// the old word inverted, so that a test catches any use of it.
#[derive(LogicBlock)]
pub struct BlockRam<const W: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub read_addr: Signal<In, Bits<A>>,
    pub read_data: Signal<Out, Bits<W>>,
    pub write_enable: Signal<In, Bit>,
    pub write_addr: Signal<In, Bits<A>>,
    pub write_data: Signal<In, Bits<W>>,
    _mem: Vec<Bits<W>>,
}

impl<const W: usize, const A: usize> Default for BlockRam<W, A> {
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

impl<const W: usize, const A: usize> BlockRam<W, A> {
    /// A RAM whose words start as `contents` (missing words 0), e.g. constant registers read
    /// through the read port with no multiplexer (HostIf's ID / VERSION / CAPS).
    pub fn with_contents(contents: &[Bits<W>]) -> Self {
        assert!(
            W <= 64 && contents.len() <= 1 << A,
            "initial contents of a RAM of 2^{A} x {W}"
        );
        let mut ram = Self::default();
        ram._mem[..contents.len()].copy_from_slice(contents);
        ram
    }
}

impl<const W: usize, const A: usize> Logic for BlockRam<W, A> {
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
        no_rw_check_verilog(&self._mem)
    }
}

/// The Verilog of a `no_rw_check` block RAM (its array `words`, not `mem`: a block's RAM
/// instance is often named `mem`, and Verilator's lint warns when a name hides another) whose
/// words start as `mem` (the body of
/// [`BlockRam`] and of `crate::mpa::rx_context_ram::RxContextRam`, whose models differ only in
/// what a read of a word being written returns).
pub(crate) fn no_rw_check_verilog<const W: usize>(mem: &[Bits<W>]) -> Verilog {
    let entries = mem.len();
    let mut v = String::new();
    let _ = writeln!(
        v,
        "(* ram_style = \"block\", no_rw_check *) reg [{}:0] words [0:{}];",
        W - 1,
        entries - 1
    );
    let _ = writeln!(v, "integer i;");
    let _ = writeln!(
        v,
        "initial begin\n   for (i = 0; i < {entries}; i = i + 1) words[i] = {W}'d0;"
    );
    for (i, w) in mem.iter().enumerate().filter(|(_, w)| w.any()) {
        let _ = writeln!(v, "   words[{i}] = {W}'h{:x};", w.index());
    }
    let _ = writeln!(v, "end");
    let _ = writeln!(
        v,
        "always @(posedge clock) begin\n   if (write_enable) words[write_addr] <= write_data;\n   read_data <= words[read_addr];\nend"
    );
    Verilog::Custom(v)
}
