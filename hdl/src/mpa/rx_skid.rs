//! Two-entry output register (skid buffer) of the MPA receive block.
//!
//! The receive pipeline moves on a global advance that depends only on registers: it may offer a
//! beat whenever `full` is low. The consumer's `ready` therefore reaches only this block: when
//! the main entry is occupied and not taken, the offered beat goes to the overflow entry and
//! `full` rises for the next cycle, stopping the pipeline. With `ready` high every cycle the
//! overflow entry is never used and a beat passes every cycle.

use rust_hdl::prelude::*;

/// Skid buffer for an `N`-bit payload (data, keep, flags and connection packed by the user).
#[derive(LogicBlock, Default)]
pub struct RxSkid<const N: usize> {
    pub clock: Signal<In, Clock>,
    /// A beat is offered this cycle (only allowed while `full` is low).
    pub in_valid: Signal<In, Bit>,
    pub in_data: Signal<In, Bits<N>>,
    /// The output stream.
    pub out_valid: Signal<Out, Bit>,
    pub out_data: Signal<Out, Bits<N>>,
    pub out_ready: Signal<In, Bit>,
    /// Both entries are occupied: nothing may be offered this cycle. A register output.
    pub full: Signal<Out, Bit>,
    /// The value `full` takes at the next edge (for a user that registers its own advance).
    pub full_next: Signal<Out, Bit>,
    main_v: DFF<Bit>,
    main: DFF<Bits<N>>,
    ovf_v: DFF<Bit>,
    ovf: DFF<Bits<N>>,
}

impl<const N: usize> Logic for RxSkid<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, main_v, main, ovf_v, ovf);
        self.out_valid.next = self.main_v.q.val();
        self.out_data.next = self.main.q.val();
        self.full.next = self.ovf_v.q.val();
        self.full_next.next = (self.ovf_v.q.val() && !self.out_ready.val())
            || (!self.ovf_v.q.val()
                && self.main_v.q.val()
                && !self.out_ready.val()
                && self.in_valid.val());
        // The entries load `in_data` whenever they may, valid or not, so that `in_valid` (the
        // end of the user's longest path) drives only the two valid flags.
        if self.ovf_v.q.val() {
            // The main entry is occupied whenever the overflow entry is.
            if self.out_ready.val() {
                self.main.d.next = self.ovf.q.val();
                self.ovf_v.d.next = false;
            }
        } else if !self.main_v.q.val() || self.out_ready.val() {
            self.main.d.next = self.in_data.val();
            self.main_v.d.next = self.in_valid.val();
        } else {
            self.ovf.d.next = self.in_data.val();
            self.ovf_v.d.next = self.in_valid.val();
        }
    }
}

/// One-entry output register: the cheaper alternative to [`RxSkid`] where the user may let the
/// consumer's `out_ready` reach its own advance (`room` is combinational: the entry is empty
/// or taken in this cycle). A beat passes every cycle while `out_ready` is high; `N` flip-flops
/// fewer than the skid (no overflow entry).
#[derive(LogicBlock, Default)]
pub struct RxOutReg<const N: usize> {
    pub clock: Signal<In, Clock>,
    /// A beat is offered this cycle (only allowed while `room` is high).
    pub in_valid: Signal<In, Bit>,
    pub in_data: Signal<In, Bits<N>>,
    /// The output stream.
    pub out_valid: Signal<Out, Bit>,
    pub out_data: Signal<Out, Bits<N>>,
    pub out_ready: Signal<In, Bit>,
    /// The entry can take a beat at this edge (empty, or its beat is taken now).
    pub room: Signal<Out, Bit>,
    main_v: DFF<Bit>,
    main: DFF<Bits<N>>,
}

impl<const N: usize> Logic for RxOutReg<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, main_v, main);
        self.out_valid.next = self.main_v.q.val();
        self.out_data.next = self.main.q.val();
        self.room.next = !self.main_v.q.val() || self.out_ready.val();
        // The entry loads `in_data` whenever it has room, valid or not, so that `in_valid`
        // drives only the valid flag.
        if self.room.val() {
            self.main.d.next = self.in_data.val();
            self.main_v.d.next = self.in_valid.val();
        }
    }
}
