//! CqeQueue: the receive path's completions (`cqe_*` of RxPath) queued on their way to
//! HostIf's CQE writer, so that RxControl never waits for the DMA write port.
//!
//! Why (`docs/decisions.md`, "The whole core: integration"): the DMA write arbiter sends whole
//! posted writes, and a placement write of one connection can stay open while the rest of its
//! segment waits in the receive pipeline behind another connection's segment. That segment's
//! job needs RxControl, and RxControl, holding a completion for the CQE writer, waited for
//! `cqe_ready`, which the arbiter gave only after the open write's last beat: a deadlock. A
//! completion is made only when a segment is done, and each connection has 2 header slots, so
//! at most `2 * CONNECTIONS` = 8 completions can be made while a write is open: the queue holds
//! [`CQE_QUEUE_DEPTH`] and so never makes RxControl wait for that reason.
//!
//! A FIFO in block RAM (100 bits an entry), then a holding register whose output is the
//! `out_*` side (the FIFO's read does not depend on `out_ready` in the same cycle: one idle
//! cycle per completion when the register empties, far below the rate of completions).

use crate::config::{CONNECTIONS, CONN_BITS, HDR_SLOTS};
use rust_hdl::prelude::*;

/// Bits of a queue address.
pub const CQE_QUEUE_ADDR_BITS: usize = 3;
/// Completions the queue holds.
pub const CQE_QUEUE_DEPTH: usize = 1 << CQE_QUEUE_ADDR_BITS;
const _: () = assert!(CQE_QUEUE_DEPTH >= HDR_SLOTS * CONNECTIONS);
/// Bits of an entry: qp 2, opcode 8, status 8, byte_len 32, index 16, inv_stag 32, with_inv,
/// solicited (LSB first, at the literal positions `update` uses).
const ENTRY_BITS: usize = 100;
const _: () = assert!(CONN_BITS == 2 && CONN_BITS + 8 + 8 + 32 + 16 + 32 + 2 == ENTRY_BITS);

/// The completion queue between RxPath and HostIf.
#[derive(LogicBlock, Default)]
pub struct CqeQueue {
    pub clock: Signal<In, Clock>,
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub in_qp: Signal<In, Bits<CONN_BITS>>,
    pub in_opcode: Signal<In, Bits<8>>,
    pub in_status: Signal<In, Bits<8>>,
    pub in_byte_len: Signal<In, Bits<32>>,
    pub in_index: Signal<In, Bits<16>>,
    pub in_inv_stag: Signal<In, Bits<32>>,
    pub in_with_inv: Signal<In, Bit>,
    pub in_solicited: Signal<In, Bit>,
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_qp: Signal<Out, Bits<CONN_BITS>>,
    pub out_opcode: Signal<Out, Bits<8>>,
    pub out_status: Signal<Out, Bits<8>>,
    pub out_byte_len: Signal<Out, Bits<32>>,
    pub out_index: Signal<Out, Bits<16>>,
    pub out_inv_stag: Signal<Out, Bits<32>>,
    pub out_with_inv: Signal<Out, Bit>,
    pub out_solicited: Signal<Out, Bit>,
    /// Nothing queued or held.
    pub idle: Signal<Out, Bit>,

    fifo: SynchronousFIFO<Bits<ENTRY_BITS>, CQE_QUEUE_ADDR_BITS, { CQE_QUEUE_ADDR_BITS + 1 }, 1>,
    h_valid: DFF<Bit>,
    h_data: DFF<Bits<ENTRY_BITS>>,
    packed: Signal<Local, Bits<ENTRY_BITS>>,
    packed_inv: Signal<Local, Bits<ENTRY_BITS>>,
}

impl Logic for CqeQueue {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, h_valid, h_data);
        self.fifo.clock.next = self.clock.val();
        self.in_ready.next = !self.fifo.full.val();
        self.fifo.write.next = self.in_valid.val() && !self.fifo.full.val();
        self.packed.next = bit_cast::<ENTRY_BITS, 2>(self.in_qp.val())
            | (bit_cast::<ENTRY_BITS, 8>(self.in_opcode.val()) << 2)
            | (bit_cast::<ENTRY_BITS, 8>(self.in_status.val()) << 10)
            | (bit_cast::<ENTRY_BITS, 32>(self.in_byte_len.val()) << 18)
            | (bit_cast::<ENTRY_BITS, 16>(self.in_index.val()) << 50)
            | (bit_cast::<ENTRY_BITS, 32>(self.in_inv_stag.val()) << 66);
        self.packed_inv.next = self.packed.val().replace_bit(98, self.in_with_inv.val());
        self.fifo.data_in.next = self
            .packed_inv
            .val()
            .replace_bit(99, self.in_solicited.val());
        // The holding register: loaded from the FIFO when empty, emptied by the handshake.
        self.fifo.read.next = !self.h_valid.q.val() && !self.fifo.empty.val();
        if !self.h_valid.q.val() && !self.fifo.empty.val() {
            self.h_valid.d.next = true;
            self.h_data.d.next = self.fifo.data_out.val();
        }
        if self.h_valid.q.val() && self.out_ready.val() {
            self.h_valid.d.next = false;
        }
        self.out_valid.next = self.h_valid.q.val();
        self.out_qp.next = self.h_data.q.val().get_bits::<2>(0);
        self.out_opcode.next = self.h_data.q.val().get_bits::<8>(2);
        self.out_status.next = self.h_data.q.val().get_bits::<8>(10);
        self.out_byte_len.next = self.h_data.q.val().get_bits::<32>(18);
        self.out_index.next = self.h_data.q.val().get_bits::<16>(50);
        self.out_inv_stag.next = self.h_data.q.val().get_bits::<32>(66);
        self.out_with_inv.next = self.h_data.q.val().get_bit(98);
        self.out_solicited.next = self.h_data.q.val().get_bit(99);
        self.idle.next = !self.h_valid.q.val() && self.fifo.empty.val();
    }
}

crate::sim_ports!(impl[] CqeQueue {
    inputs: in_valid, in_qp, in_opcode, in_status, in_byte_len, in_index, in_inv_stag,
        in_with_inv, in_solicited, out_ready;
    outputs: in_ready, out_valid, out_qp, out_opcode, out_status, out_byte_len, out_index,
        out_inv_stag, out_with_inv, out_solicited, idle;
});
