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
//! # Storage: one block RAM, an entry as 7 words of 16 bits
//!
//! An iCE40 block RAM is at most 16 bits wide, so a 100-bit entry read in one cycle would
//! take 7 block RAMs of which 8 of 256 words are used. Completions are rare (at most one per
//! segment, and RxControl takes about 8 cycles or more per job), so the queue stores an entry
//! as [`CQE_WORDS`] = 7 words of 16 bits at addresses `slot * 8 + word` of ONE 256 x 16 block
//! RAM ([`BlockRam`]`<16, 6>`), written and read one word per cycle:
//!
//! | word | bits |
//! |---|---|
//! | 0, 1 | `byte_len` \[15:0\], \[31:16\] |
//! | 2 | `index` |
//! | 3, 4 | `inv_stag` \[15:0\], \[31:16\] |
//! | 5 | `opcode` \[7:0\], `status` \[15:8\] |
//! | 6 | `qp` \[1:0\], `with_inv` \[2\], `solicited` \[3\] |
//!
//! - **In**: the entry is written straight from the `in_*` ports (the producer holds them while
//!   `in_valid && !in_ready`: RxControl's `cqe_*` are output registers), word `wc` in each
//!   cycle with `in_valid` and a free slot; `in_ready` is high in the cycle of word 6 (a register
//!   compare: `wc == 6` and not full), so a completion is taken 7 cycles after it is offered
//!   into a queue with room. That is a bounded wait that does not depend on `out_ready`, so the
//!   deadlock above cannot come back; it costs a 16-bit 7:1 multiplexer.
//! - **Out**: a holding register (7 registers of 16 bits) is the `out_*` side. When it is empty
//!   and a whole entry is queued, the 7 words are read in 7 cycles, each loaded into its
//!   register one cycle later (the RAM read is registered), and `out_valid` rises in the cycle
//!   after the last: 9 cycles from an empty register to `out_valid`, the next entry starts
//!   loading one cycle after the handshake. The slot is freed (read pointer advanced) at the
//!   edge that reads word 6, so a write never hits a word being read.
//! - `idle`: nothing queued, being written, loaded or held.

use crate::config::{CONNECTIONS, CONN_BITS, HDR_SLOTS};
use crate::ram::BlockRam;
use rust_hdl::prelude::*;

/// Bits of a queue address.
pub const CQE_QUEUE_ADDR_BITS: usize = 3;
/// Completions the queue holds.
pub const CQE_QUEUE_DEPTH: usize = 1 << CQE_QUEUE_ADDR_BITS;
const _: () = assert!(CQE_QUEUE_DEPTH >= HDR_SLOTS * CONNECTIONS);
/// 16-bit words of an entry (see the module documentation for the packing).
pub const CQE_WORDS: usize = 7;
/// The packing (word 6) and the word count assume a 2-bit QP number.
const _: () = assert!(CONN_BITS == 2 && CQE_WORDS * 16 >= 2 + 8 + 8 + 32 + 16 + 32 + 2);

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

    ram: BlockRam<16, 6>,
    /// Write and read slot pointers with a wrap bit.
    wp: DFF<Bits<4>>,
    rp: DFF<Bits<4>>,
    /// The word of the entry being written.
    wc: DFF<Bits<3>>,
    /// Loading the holding register: `rc` the word read at this edge.
    ld: DFF<Bit>,
    rc: DFF<Bits<3>>,
    /// The RAM's read data is word `rd_w` of the entry being loaded.
    rd_v: DFF<Bit>,
    rd_w: DFF<Bits<3>>,
    h_valid: DFF<Bit>,
    h0: DFF<Bits<16>>,
    h1: DFF<Bits<16>>,
    h2: DFF<Bits<16>>,
    h3: DFF<Bits<16>>,
    h4: DFF<Bits<16>>,
    h5: DFF<Bits<16>>,
    h6: DFF<Bits<4>>,
    full: Signal<Local, Bit>,
    empty: Signal<Local, Bit>,
}

impl Logic for CqeQueue {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, wp, rp, wc, ld, rc, rd_v, rd_w, h_valid, h0, h1, h2, h3, h4, h5, h6
        );
        self.ram.clock.next = self.clock.val();
        self.full.next = (self.wp.q.val().get_bits::<3>(0) == self.rp.q.val().get_bits::<3>(0))
            && (self.wp.q.val().get_bit(3) != self.rp.q.val().get_bit(3));
        self.empty.next = self.wp.q.val() == self.rp.q.val();

        // ---- In: word `wc` of the offered entry, straight from the ports.
        self.in_ready.next = (self.wc.q.val() == 6) && !self.full.val();
        self.ram.write_enable.next = self.in_valid.val() && !self.full.val();
        self.ram.write_addr.next = (bit_cast::<6, 3>(self.wp.q.val().get_bits::<3>(0)) << 3)
            | bit_cast::<6, 3>(self.wc.q.val());
        self.ram.write_data.next = bit_cast::<16, 4>(
            bit_cast::<4, 2>(self.in_qp.val())
                | (bit_cast::<4, 1>(self.in_with_inv.val().into()) << 2)
                | (bit_cast::<4, 1>(self.in_solicited.val().into()) << 3),
        );
        if self.wc.q.val() == 0 {
            self.ram.write_data.next = self.in_byte_len.val().get_bits::<16>(0);
        }
        if self.wc.q.val() == 1 {
            self.ram.write_data.next = self.in_byte_len.val().get_bits::<16>(16);
        }
        if self.wc.q.val() == 2 {
            self.ram.write_data.next = self.in_index.val();
        }
        if self.wc.q.val() == 3 {
            self.ram.write_data.next = self.in_inv_stag.val().get_bits::<16>(0);
        }
        if self.wc.q.val() == 4 {
            self.ram.write_data.next = self.in_inv_stag.val().get_bits::<16>(16);
        }
        if self.wc.q.val() == 5 {
            self.ram.write_data.next = bit_cast::<16, 8>(self.in_opcode.val())
                | (bit_cast::<16, 8>(self.in_status.val()) << 8);
        }
        if self.in_valid.val() && !self.full.val() {
            if self.wc.q.val() == 6 {
                self.wc.d.next = 0.into();
                self.wp.d.next = self.wp.q.val() + 1;
            } else {
                self.wc.d.next = self.wc.q.val() + 1;
            }
        }

        // ---- Out: load the holding register word by word when it is empty.
        self.ram.read_addr.next = (bit_cast::<6, 3>(self.rp.q.val().get_bits::<3>(0)) << 3)
            | bit_cast::<6, 3>(self.rc.q.val());
        self.rd_v.d.next = self.ld.q.val();
        self.rd_w.d.next = self.rc.q.val();
        if self.ld.q.val() {
            if self.rc.q.val() == 6 {
                self.ld.d.next = false;
                self.rc.d.next = 0.into();
                self.rp.d.next = self.rp.q.val() + 1;
            } else {
                self.rc.d.next = self.rc.q.val() + 1;
            }
        } else if !self.h_valid.q.val() && !self.rd_v.q.val() && !self.empty.val() {
            self.ld.d.next = true;
        }
        if self.rd_v.q.val() {
            if self.rd_w.q.val() == 0 {
                self.h0.d.next = self.ram.read_data.val();
            }
            if self.rd_w.q.val() == 1 {
                self.h1.d.next = self.ram.read_data.val();
            }
            if self.rd_w.q.val() == 2 {
                self.h2.d.next = self.ram.read_data.val();
            }
            if self.rd_w.q.val() == 3 {
                self.h3.d.next = self.ram.read_data.val();
            }
            if self.rd_w.q.val() == 4 {
                self.h4.d.next = self.ram.read_data.val();
            }
            if self.rd_w.q.val() == 5 {
                self.h5.d.next = self.ram.read_data.val();
            }
            if self.rd_w.q.val() == 6 {
                self.h6.d.next = self.ram.read_data.val().get_bits::<4>(0);
                self.h_valid.d.next = true;
            }
        }
        if self.h_valid.q.val() && self.out_ready.val() {
            self.h_valid.d.next = false;
        }
        self.out_valid.next = self.h_valid.q.val();
        self.out_byte_len.next =
            bit_cast::<32, 16>(self.h0.q.val()) | (bit_cast::<32, 16>(self.h1.q.val()) << 16);
        self.out_index.next = self.h2.q.val();
        self.out_inv_stag.next =
            bit_cast::<32, 16>(self.h3.q.val()) | (bit_cast::<32, 16>(self.h4.q.val()) << 16);
        self.out_opcode.next = self.h5.q.val().get_bits::<8>(0);
        self.out_status.next = self.h5.q.val().get_bits::<8>(8);
        self.out_qp.next = self.h6.q.val().get_bits::<2>(0);
        self.out_with_inv.next = self.h6.q.val().get_bit(2);
        self.out_solicited.next = self.h6.q.val().get_bit(3);
        self.idle.next = !self.h_valid.q.val()
            && self.empty.val()
            && (self.wc.q.val() == 0)
            && !self.ld.q.val()
            && !self.rd_v.q.val();
    }
}

crate::sim_ports!(impl[] CqeQueue {
    inputs: in_valid, in_qp, in_opcode, in_status, in_byte_len, in_index, in_inv_stag,
        in_with_inv, in_solicited, out_ready;
    outputs: in_ready, out_valid, out_qp, out_opcode, out_status, out_byte_len, out_index,
        out_inv_stag, out_with_inv, out_solicited, idle;
});
