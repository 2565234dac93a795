//! CRC-32C of a packet stream, one beat per cycle (`mpa-peer-connect.md` §5.2).
//!
//! Observes a stream: a beat counts when `valid` is high (the user ANDs the stream's
//! `valid && ready`). After the beat with `last`, `crc` holds the packet's CRC-32C (after
//! xor-out; on the wire least significant byte first) until the next beat counts, and
//! `crc_valid` pulses for one cycle; the next packet may begin on the very next cycle. A packet
//! of zero bytes is a single `last` beat with `keep` all zero; its CRC is 0.
//!
//! The CRC register itself is the output: after a `last` beat it holds the final value, and
//! the next beat starts from the init value instead of the register (`started` low). A separate
//! output register would take the update network's output to two flip-flops, so neither could
//! share a logic cell with its LUT (`docs/decisions.md`, "CRC-32C: the state folded into the
//! data").

use super::crc32c_update::Crc32cUpdate;
use rust_hdl::prelude::*;

/// CRC-32C stream block for a `D`-bit datapath with `K = D / 8` keep bits.
#[derive(LogicBlock)]
pub struct Crc32c<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Beat data, byte 0 in the most significant lane.
    pub data: Signal<In, Bits<D>>,
    /// Bytes of the beat that count (all on every beat but the last).
    pub keep: Signal<In, Bits<K>>,
    /// Last beat of the packet.
    pub last: Signal<In, Bit>,
    /// The beat moves this cycle.
    pub valid: Signal<In, Bit>,
    /// CRC-32C of the packet whose last beat moved in the previous cycle.
    pub crc: Signal<Out, Bits<32>>,
    /// High for one cycle when `crc` is new.
    pub crc_valid: Signal<Out, Bit>,
    update: Crc32cUpdate<D, K>,
    /// The CRC register, stored inverted so that it reads as the CRC (xor-out is all ones).
    state_inv: DFF<Bits<32>>,
    /// A packet is under way: the next beat continues from `state_inv`, not from the init
    /// value (low at power-up and after a `last` beat).
    started: DFF<Bit>,
    done: DFF<Bit>,
    init: Constant<Bits<32>>,
}

impl<const D: usize, const K: usize> Default for Crc32c<D, K> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            last: Default::default(),
            valid: Default::default(),
            crc: Default::default(),
            crc_valid: Default::default(),
            update: Default::default(),
            state_inv: Default::default(),
            started: Default::default(),
            init: Constant::new(u64::from(rnic_proto::crc32c::INIT).into()),
            done: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize> Logic for Crc32c<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state_inv, started, done);
        // a packet's first beat starts from the init value (mpa-peer-connect.md §5.2)
        self.update.state.next = self.init.val();
        if self.started.q.val() {
            self.update.state.next = !self.state_inv.q.val();
        }
        self.update.data.next = self.data.val();
        self.update.keep.next = self.keep.val();
        self.done.d.next = false;
        if self.valid.val() {
            self.state_inv.d.next = !self.update.next_state.val();
            self.started.d.next = !self.last.val();
            self.done.d.next = self.last.val();
        }
        self.crc.next = self.state_inv.q.val();
        self.crc_valid.next = self.done.q.val();
    }
}

crate::sim_ports!(impl[const D: usize, const K: usize] Crc32c<D, K> {
    inputs: data, keep, last, valid;
    outputs: crc, crc_valid;
});
