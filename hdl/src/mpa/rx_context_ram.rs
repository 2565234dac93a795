//! Context store of the MPA receive block's word FSM: one `W`-bit word per connection in a
//! simple dual-port RAM with a registered read (one read and one write port, one clock).
//!
//! A leaf block with custom Verilog so that yosys maps it onto iCE40 block RAM
//! (`SB_RAM40_4K`, 256 x 16: `W / 16` rounded up of them) instead of flip-flops and read
//! multiplexers: `ram_style = "block"`. `no_rw_check` tells yosys that a read and a write of the
//! same entry at the same edge never happen, so it adds no bypass logic; the user guarantees it
//! (see `MpaRx`). The contents start at zero; `read_data` has no initial value (yosys would
//! emulate one with a LUT per bit): it is defined from the first clock edge on.

use rust_hdl::prelude::*;

/// `2^A` entries of `W` bits; `read_data` is the entry at `read_addr` of the previous edge.
#[derive(LogicBlock)]
pub struct RxContextRam<const W: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub read_addr: Signal<In, Bits<A>>,
    pub read_data: Signal<Out, Bits<W>>,
    pub write_enable: Signal<In, Bit>,
    pub write_addr: Signal<In, Bits<A>>,
    pub write_data: Signal<In, Bits<W>>,
    _mem: Vec<Bits<W>>,
}

impl<const W: usize, const A: usize> Default for RxContextRam<W, A> {
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

impl<const W: usize, const A: usize> Logic for RxContextRam<W, A> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let r = self.read_addr.val().index();
            self.read_data.next = self._mem[r];
            if self.write_enable.val() {
                let w = self.write_addr.val().index();
                // The Verilog promises yosys (`no_rw_check`) that this never happens; block RAM
                // would return undefined data.
                assert_ne!(
                    r, w,
                    "context RAM: read and write of entry {r} at the same edge"
                );
                self._mem[w] = self.write_data.val();
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        crate::ram::no_rw_check_verilog(&self._mem)
    }
}
