//! CqeQueue: the receive path's completions (`cqe_*` of RxPath) queued on their way to
//! HostIf's CQE writer, so that RxControl never waits for the DMA write port.
//!
//! Why (`docs/decisions.md`, "The whole core: integration"): the DMA write arbiter sends whole
//! posted writes, and a placement write of one connection can stay open while the rest of its
//! segment waits in the receive pipeline behind another connection's segment. That segment's
//! job needs RxControl, and RxControl, holding a completion for the CQE writer, waited for
//! `cqe_ready`, which the arbiter gave only after the open write's last beat: a deadlock. A
//! completion is made only when a segment is done, and each connection has 2 header slots, so
//! at most `2 * CONNECTIONS` = 8 completions can be made while a write is open, besides the
//! head one HostIf is writing: the queue holds [`CQE_QUEUE_DEPTH`] = 16 > 8 (the head
//! included) and so never makes RxControl wait for that reason.
//!
//! # Storage: one block RAM, an entry as the CQE's 16-bit half beats
//!
//! An iCE40 block RAM is at most 16 bits wide, so a 100-bit entry read in one cycle would
//! take 7 block RAMs of which a few words are used. Completions are rare (at most one per
//! segment, and RxControl takes about 8 cycles or more per job), so the queue stores an entry
//! as the halves of the CQE's 4 beats (`rnic_proto::host::Cqe`, HostIf's write data) at
//! addresses `slot * 8 + word` of ONE 256 x 16 block RAM ([`BlockRam`]`<16, 7>`), written and
//! read one word per cycle:
//!
//! | word | bits | beat |
//! |---|---|---|
//! | 0 | `status` \[7:0\], `opcode` \[15:8\] | 0 \[15:0\] |
//! | 1 | `index` | 0 \[31:16\] |
//! | 2, 3 | `byte_len` \[15:0\], \[31:16\] | 1 |
//! | 4, 5 | `inv_stag` \[15:0\], \[31:16\] | 2 |
//! | 6 | `with_inv` \[0\], `solicited` \[1\], `qp` \[9:8\] | 3 \[31:16\] |
//! | 7 | (not used: beat 3's low half is 0 but HostIf's owner bit, `lo` cleared) | 3 \[15:0\] |
//!
//! - **In**: the entry is written straight from the `in_*` ports (the producer holds them while
//!   `in_valid && !in_ready`: RxControl's `cqe_*` are output registers), one word (0..6, at the
//!   address `slot * 8 + wc`: no address multiplexer) in each cycle with `in_valid` and a free slot; `in_ready` is high in the cycle of the last
//!   (a register compare: `wc == 6` and not full), so a completion is taken 7 cycles after it
//!   is offered into a queue with room. That is a bounded wait that does not depend on
//!   `out_ready`, so the deadlock above cannot come back; it costs a 16-bit 7:1 multiplexer.
//! - **Out** (issue 5: no holding register, which was 100 flip-flops alone in their logic
//!   cells, and no 4:1 beat multiplexer in HostIf): the head entry stays in its slot until
//!   released (`out_ready`). Two cycles after an entry is queued, word 6 has been read (the
//!   QP into `hqp`, 2 flip-flops) and word 0 sits on the RAM's registered read port:
//!   `out_valid`, with `out_qp` and the opcode and status straight from the read port (the
//!   read address stays put, so they hold), which HostIf needs to route the entry (RdmaRead
//!   completions go to the send engine, the rest to the CQE writer). Once the consumer raises
//!   `out_go`, the beats come as `{read port, lo}`: `lo` (16 flip-flops) takes the low word,
//!   the read port then shows the high word, and the beat is held until taken. Beat 0 comes 2
//!   cycles after `out_go`, beats 1 and 2 three cycles after the previous one was taken, beat
//!   3 two (its low half is `lo` cleared, no read). The CQE writer raises `out_go` when it
//!   takes the entry, 9 cycles before it can write beat 0, so a CQE costs 5 cycles more in
//!   the writer than with the 4 beats in registers, and reaches the writer 7 cycles earlier
//!   (2 cycles from queued to `out_valid` instead of 9).
//! - `idle`: nothing queued, being written or offered.
//!
//! Standalone (`rnic synth --board alchitry-cu --block cqe_queue`): 144 logic cells (120
//! LUT4, 36 DFF, 8 carry), 1 block RAM, 168 MHz (122 LUT4 with word 6 at address 7); 221 cells
//! (111 LUT4, 120 DFF) with the holding register.
//!
//! The read side never reads a word being written: the in side writes only slot `wp`, which
//! is not in the queue, and the read side reads only queued slots.

use crate::config::{CONNECTIONS, CONN_BITS, HDR_SLOTS};
use crate::ram::BlockRam;
use rust_hdl::prelude::*;

/// Bits of a queue address.
pub const CQE_QUEUE_ADDR_BITS: usize = 4;
/// Completions the queue holds (the head one, which HostIf reads in place, included).
pub const CQE_QUEUE_DEPTH: usize = 1 << CQE_QUEUE_ADDR_BITS;
const _: () = assert!(CQE_QUEUE_DEPTH > HDR_SLOTS * CONNECTIONS);
/// 16-bit words written per entry (see the module documentation for the packing).
pub const CQE_WORDS: usize = 7;
/// The packing (word 6) and the word count assume a QP number of at most 2 bits.
const _: () = assert!(CONN_BITS <= 2 && CQE_WORDS * 16 >= 2 + 8 + 8 + 32 + 16 + 32 + 2);
// The literal packing of the beats (words 0..7 above) is `rnic_proto::host::Cqe`'s: 16
// octets, the flags in octet 13 (beat 3 bits 23..16).
const _: () = assert!(
    rnic_proto::host::CQE_LEN == 16
        && rnic_proto::host::cqe_flags::WITH_INV == 1
        && rnic_proto::host::cqe_flags::SOLICITED == 2
);

/// The read side's states (see the module documentation).
#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
pub enum CqOut {
    /// No head entry: word 6 of slot `rp` is on the read address.
    Idle,
    /// Word 6 is being read (its QP goes to `hqp`), word 0 on the read address.
    Ld,
    /// The head entry is offered (`out_valid`); word 0 on the read port (opcode, status).
    Head,
    /// Beat `b`: word `2b + 1` on the read address, word `2b` on the read port (into `lo`).
    Lo,
    /// Beat valid: `{read port, lo}`.
    Beat,
    /// Beat `2b` on the read address (after a taken beat 0 or 1).
    Next,
    /// Word 6 on the read address, `lo` = 0 (after beat 2).
    Last,
    /// All 4 beats taken; waiting for `out_ready`.
    End,
}

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
    /// The head entry is offered; released (the slot freed) by `out_ready`, in any cycle with
    /// `out_valid` (a dropped or forwarded entry needs no beats).
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    /// The head's QP (a register: valid all along `out_valid`).
    pub out_qp: Signal<Out, Bits<CONN_BITS>>,
    /// The head's opcode and status: the RAM's read port, valid while `out_valid && !out_go`
    /// and before the first `out_go`.
    pub out_opcode: Signal<Out, Bits<8>>,
    pub out_status: Signal<Out, Bits<8>>,
    /// The consumer wants the head's beats (level, from some cycle with `out_valid` until the
    /// release; the opcode and status are no longer shown once it is seen).
    pub out_go: Signal<In, Bit>,
    /// The CQE's beats 0..3 (`rnic_proto::host::Cqe` as 4 words, the owner bit 0) in order,
    /// each held until taken (`out_beat_valid && out_beat_ready`).
    pub out_beat_valid: Signal<Out, Bit>,
    pub out_beat_ready: Signal<In, Bit>,
    pub out_beat: Signal<Out, Bits<32>>,
    /// Nothing queued, being written or offered.
    pub idle: Signal<Out, Bit>,

    ram: BlockRam<16, 7>,
    /// Write and read slot pointers with a wrap bit.
    wp: DFF<Bits<5>>,
    rp: DFF<Bits<5>>,
    /// The word of the entry being written.
    wc: DFF<Bits<3>>,
    /// The read side: its state, the word on the read address, the head's QP, the beat's low
    /// half.
    st: DFF<CqOut>,
    rc: DFF<Bits<3>>,
    hqp: DFF<Bits<CONN_BITS>>,
    lo: DFF<Bits<16>>,
    w01: Signal<Local, Bits<16>>,
    w23: Signal<Local, Bits<16>>,
    w45: Signal<Local, Bits<16>>,
    w03: Signal<Local, Bits<16>>,
    w47: Signal<Local, Bits<16>>,
    full: Signal<Local, Bit>,
    empty: Signal<Local, Bit>,
}

impl Logic for CqeQueue {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wp, rp, wc, st, rc, hqp, lo);
        self.ram.clock.next = self.clock.val();
        self.full.next = (self.wp.q.val().get_bits::<4>(0) == self.rp.q.val().get_bits::<4>(0))
            && (self.wp.q.val().get_bit(4) != self.rp.q.val().get_bit(4));
        self.empty.next = self.wp.q.val() == self.rp.q.val();

        // ---- In: word `wc` of the offered entry, straight from the ports, at address `wc` of
        // its slot (word 6 is the beat-3 high half).
        self.in_ready.next = (self.wc.q.val() == 6) && !self.full.val();
        self.ram.write_enable.next = self.in_valid.val() && !self.full.val();
        self.ram.write_addr.next = (bit_cast::<7, 4>(self.wp.q.val().get_bits::<4>(0)) << 3)
            | bit_cast::<7, 3>(self.wc.q.val());
        // A mux tree on the bits of `wc` (word 6 is the flags; 7 is never written).
        self.w01.next = bit_cast::<16, 8>(self.in_status.val())
            | (bit_cast::<16, 8>(self.in_opcode.val()) << 8);
        if self.wc.q.val().get_bit(0) {
            self.w01.next = self.in_index.val();
        }
        self.w23.next = self.in_byte_len.val().get_bits::<16>(0);
        self.w45.next = self.in_inv_stag.val().get_bits::<16>(0);
        if self.wc.q.val().get_bit(0) {
            self.w23.next = self.in_byte_len.val().get_bits::<16>(16);
            self.w45.next = self.in_inv_stag.val().get_bits::<16>(16);
        }
        self.w03.next = self.w01.val();
        self.w47.next = self.w45.val();
        if self.wc.q.val().get_bit(1) {
            self.w03.next = self.w23.val();
            self.w47.next = bit_cast::<16, 1>(self.in_with_inv.val().into())
                | (bit_cast::<16, 1>(self.in_solicited.val().into()) << 1)
                | (bit_cast::<16, CONN_BITS>(self.in_qp.val()) << 8);
        }
        self.ram.write_data.next = self.w03.val();
        if self.wc.q.val().get_bit(2) {
            self.ram.write_data.next = self.w47.val();
        }
        if self.in_valid.val() && !self.full.val() {
            if self.wc.q.val() == 6 {
                self.wc.d.next = 0.into();
                self.wp.d.next = self.wp.q.val() + 1;
            } else {
                self.wc.d.next = self.wc.q.val() + 1;
            }
        }

        // ---- Out: the head entry in place, its beats read word by word.
        self.ram.read_addr.next = (bit_cast::<7, 4>(self.rp.q.val().get_bits::<4>(0)) << 3)
            | bit_cast::<7, 3>(self.rc.q.val());
        match self.st.q.val() {
            CqOut::Idle => {
                // Word 6 on the read address (`rc` = 6 but after the reset: one cycle more).
                self.rc.d.next = 6.into();
                if !self.empty.val() && (self.rc.q.val() == 6) {
                    self.rc.d.next = 0.into();
                    self.st.d.next = CqOut::Ld;
                }
            }
            CqOut::Ld => {
                self.hqp.d.next = self.ram.read_data.val().get_bits::<CONN_BITS>(8);
                self.st.d.next = CqOut::Head;
            }
            CqOut::Head => {
                if self.out_go.val() {
                    self.rc.d.next = 1.into();
                    self.st.d.next = CqOut::Lo;
                }
            }
            CqOut::Lo => {
                self.lo.d.next = self.ram.read_data.val();
                self.st.d.next = CqOut::Beat;
            }
            CqOut::Beat => {
                if self.out_beat_ready.val() {
                    if self.rc.q.val() == 6 {
                        self.st.d.next = CqOut::End;
                    } else if self.rc.q.val() == 5 {
                        self.rc.d.next = 6.into();
                        self.lo.d.next = 0.into();
                        self.st.d.next = CqOut::Last;
                    } else {
                        self.rc.d.next = self.rc.q.val() + 1;
                        self.st.d.next = CqOut::Next;
                    }
                }
            }
            CqOut::Next => {
                self.rc.d.next = self.rc.q.val() + 1;
                self.st.d.next = CqOut::Lo;
            }
            CqOut::Last => {
                self.st.d.next = CqOut::Beat;
            }
            CqOut::End => {}
        }
        self.out_valid.next = (self.st.q.val() != CqOut::Idle) && (self.st.q.val() != CqOut::Ld);
        if self.out_valid.val() && self.out_ready.val() {
            self.rc.d.next = 6.into();
            self.rp.d.next = self.rp.q.val() + 1;
            self.st.d.next = CqOut::Idle;
        }
        self.out_qp.next = self.hqp.q.val();
        self.out_status.next = self.ram.read_data.val().get_bits::<8>(0);
        self.out_opcode.next = self.ram.read_data.val().get_bits::<8>(8);
        self.out_beat_valid.next = self.st.q.val() == CqOut::Beat;
        self.out_beat.next = (bit_cast::<32, 16>(self.ram.read_data.val()) << 16)
            | bit_cast::<32, 16>(self.lo.q.val());
        self.idle.next =
            (self.st.q.val() == CqOut::Idle) && self.empty.val() && (self.wc.q.val() == 0);
    }
}

crate::sim_ports!(impl[] CqeQueue {
    inputs: in_valid, in_qp, in_opcode, in_status, in_byte_len, in_index, in_inv_stag,
        in_with_inv, in_solicited, out_ready, out_go, out_beat_ready;
    outputs: in_ready, out_valid, out_qp, out_opcode, out_status, out_beat_valid, out_beat,
        idle;
});
