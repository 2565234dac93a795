//! TxArbiter (`docs/core.md`, "TxArbiter", "The message job"): the SendEngine's message jobs
//! (`se_msg_*`) and the ReadResponder's (`rr_msg_*`) into DdpTx's one job port (`msg_*`), and
//! DdpTx's `msg_done` strobes back to the source of each message.
//!
//! # Behaviour
//!
//! - **Whole messages.** A message is one handshake (`msg_valid && msg_ready`); DdpTx
//!   segments it. The arbiter only chooses which source's job is on `msg_*`.
//! - **Round robin.** When both sources wait, the one not granted last goes (`last_rr`, updated
//!   at every handshake); when one waits, it goes. Neither source starves: after a grant to one,
//!   the other is first in line at the next choice.
//! - **Stable offer.** Once a job is shown on `msg_*` (`msg_valid` without `msg_ready`), the
//!   choice is held (`held`, `cur_rr`) until it is taken, even if the other source starts to
//!   wait: DdpTx sees an ordinary valid/ready stream whose payload never changes under `valid`.
//! - **Several messages in flight.** DdpTx may take a message before the previous one's
//!   `msg_done` (it reads the next message's payload ahead). Its dones come in message order,
//!   so the arbiter keeps the owner (SendEngine / ReadResponder) of each taken message in a small
//!   FIFO of [`TXA_INFLIGHT`] one-bit entries; `msg_done` pops the head and is routed as
//!   `se_msg_done` or `rr_msg_done` in the same cycle (combinational, no latency). With the FIFO
//!   full no job is offered (`msg_valid` = 0) until a done frees an entry. A `msg_done` in the
//!   cycle of its own handshake (FIFO empty) is routed to the source being taken.
//! - `idle`: no message taken and not yet done, and no job held on `msg_*`.
//! - **Take strobe.** DdpTx's `msg_take` (it has read `msg_addr` / `msg_len` for the last time)
//!   goes to the source shown, as `se_msg_take` / `rr_msg_take`.
//! - **Read-ahead hint** (`docs/core.md` "DdpTx", "Read-ahead"): `nxt_*` is the hint of the
//!   source expected to be granted next (`nsel`): while a job of one source is shown, the other
//!   one if it waits (the SendEngine only with a message that reads payload: a Read Request
//!   between two Read Responses leaves DdpTx's read-ahead alone, so the hint after it counts),
//!   else the same one if it has a hint, else the other; with nothing shown, the SendEngine if
//!   it has a hint, else the ReadResponder. From the cycle a job is shown until its
//!   `msg_take` (`took`), the choice made before it was shown is held: DdpTx compares the job
//!   with the hint at its take (no copy of the region), so the hint of the shown job must stay
//!   up until then. `nxt_len` is 16 bits (the sources hint no message of 64 KiB or more).
//!   When `nsel` changes, `nxt_valid`
//!   is 0 for a cycle (`nsel_q`): the hint never changes from one source's to the other's
//!   without falling, so DdpTx drops a read-ahead of the source not chosen any more.
//! - **One address multiplexer** for `msg_addr` and `nxt_addr`: both sources hint from the
//!   register on their `*_msg_addr` (the SendEngine's `host_addr`, the ReadResponder's
//!   `o_addr`), so there is no `*_nxt_addr` port. Its select `asel` is the source shown from the
//!   cycle a job is shown until its `msg_take` (inclusive; DdpTx reads `msg_addr` for the last
//!   time then), the hint's otherwise (`nsel_q`: it is `nsel` whenever `nxt_valid` is 1), and
//!   also while the SendEngine's Read Request is shown (DdpTx reads no `msg_addr` of a message
//!   without payload, and a read-ahead of the ReadResponder's next response goes on across
//!   it). While a job is shown before its take,
//!   `nxt_addr` is therefore the job's own address, and the hint is up only if it is that
//!   source's (`nsel_q` = the source shown; else `nxt_valid` = 0, the other source's hint is
//!   not the next message): DdpTx's compare at the take then holds exactly when the hint is the
//!   shown message's, as before (a message of the other source with the same region as the
//!   hint, which DdpTx used to match, is now read again: a flush, never wrong data). A
//!   zero-length Write / Send / Read Response shown while the other source's region is read
//!   ahead now makes that read-ahead stale (only a Read Request kept it before).
//!
//! # Timing
//!
//! Combinational from the sources to `msg_*` (a 2:1 mux per field bit, the select from
//! registers and the two `valid`s; never from `msg_ready`, so `se_msg_ready` / `rr_msg_ready`
//! are one AND of `msg_ready`). `msg_addr` / `nxt_addr` share one mux (above; standalone
//! 255 -> 226 LUT4, 133.9 -> 124.2 MHz; the whole core 7120 -> 7041 LUT4). The done routing
//! is one mux of the FIFO head. No added cycle on either path; the mux (about 140 bits wide)
//! is the cost. `msg_inv_stag`, `msg_src_to` and
//! `msg_msn` are the SendEngine's, passed through whichever source is shown: the ReadResponder's
//! jobs are Read Responses, tagged, and DdpTx reads none of the three for a tagged message
//! (`docs/core.md` "The message job"), so its port has none of them (issue 5: 128 multiplexer
//! LUTs less).
//!
//! # A third source (RFC 7306 atomic responses, Flush / Verify responses, QN 3)
//!
//! A later addition of the same shape (`docs/core.md`): a third port `xr_msg_*` with its
//! `xr_msg_done`. The owner FIFO entries become 2-bit source numbers, `last_rr` becomes the
//! number of the last granted source, and the choice is a rotating priority over three
//! `valid`s (the first waiting source after the last granted one); the output mux becomes 3:1.
//! Nothing else changes: the ready and done routing are per-source decodes of the same select.

use crate::config::{CONN_BITS, DMA_ADDR_BITS};
use rust_hdl::prelude::*;

/// Messages the arbiter lets DdpTx hold between its handshake and its `msg_done` (the depth of
/// the owner FIFO).
pub const TXA_INFLIGHT: usize = 4;
/// Bits of an owner FIFO pointer.
const PTR_BITS: usize = 2;
/// Bits of the owner FIFO count (0..=TXA_INFLIGHT).
const CNT_BITS: usize = 3;
// The count is full when its top bit (2) is set.
const _: () = assert!(TXA_INFLIGHT == 1 << (CNT_BITS - 1) && TXA_INFLIGHT == 1 << PTR_BITS);
// `#[hdl_gen]` cannot name constants: the hint choice tests the Read Request opcode as 1.
const _: () = assert!(rnic_proto::rdmap::opcode::Opcode::RdmaReadRequest as u8 == 1);

/// The transmit message arbiter in front of DdpTx.
#[derive(LogicBlock, Default)]
pub struct TxArbiter {
    pub clock: Signal<In, Clock>,
    // SendEngine's message jobs.
    pub se_msg_valid: Signal<In, Bit>,
    pub se_msg_ready: Signal<Out, Bit>,
    pub se_msg_conn: Signal<In, Bits<CONN_BITS>>,
    pub se_msg_opcode: Signal<In, Bits<4>>,
    pub se_msg_stag: Signal<In, Bits<32>>,
    pub se_msg_to: Signal<In, Bits<64>>,
    pub se_msg_inv_stag: Signal<In, Bits<32>>,
    pub se_msg_src_to: Signal<In, Bits<64>>,
    pub se_msg_msn: Signal<In, Bits<32>>,
    pub se_msg_addr: Signal<In, Bits<DMA_ADDR_BITS>>,
    pub se_msg_len: Signal<In, Bits<32>>,
    pub se_msg_done: Signal<Out, Bit>,
    // ReadResponder's message jobs.
    pub rr_msg_valid: Signal<In, Bit>,
    pub rr_msg_ready: Signal<Out, Bit>,
    pub rr_msg_conn: Signal<In, Bits<CONN_BITS>>,
    pub rr_msg_opcode: Signal<In, Bits<4>>,
    pub rr_msg_stag: Signal<In, Bits<32>>,
    pub rr_msg_to: Signal<In, Bits<64>>,
    pub rr_msg_addr: Signal<In, Bits<DMA_ADDR_BITS>>,
    pub rr_msg_len: Signal<In, Bits<32>>,
    pub rr_msg_done: Signal<Out, Bit>,
    // Take strobes and read-ahead hints of the sources.
    pub se_msg_take: Signal<Out, Bit>,
    pub rr_msg_take: Signal<Out, Bit>,
    // A source's hint address is its `*_msg_addr` (both sources hint from the register that
    // drives it): no `*_nxt_addr` port.
    pub se_nxt_valid: Signal<In, Bit>,
    pub se_nxt_len: Signal<In, Bits<16>>,
    pub rr_nxt_valid: Signal<In, Bit>,
    pub rr_nxt_len: Signal<In, Bits<16>>,
    // To DdpTx.
    pub msg_take: Signal<In, Bit>,
    pub nxt_valid: Signal<Out, Bit>,
    pub nxt_addr: Signal<Out, Bits<DMA_ADDR_BITS>>,
    pub nxt_len: Signal<Out, Bits<16>>,
    pub msg_valid: Signal<Out, Bit>,
    pub msg_ready: Signal<In, Bit>,
    pub msg_conn: Signal<Out, Bits<CONN_BITS>>,
    pub msg_opcode: Signal<Out, Bits<4>>,
    pub msg_stag: Signal<Out, Bits<32>>,
    pub msg_to: Signal<Out, Bits<64>>,
    pub msg_inv_stag: Signal<Out, Bits<32>>,
    pub msg_src_to: Signal<Out, Bits<64>>,
    pub msg_msn: Signal<Out, Bits<32>>,
    pub msg_addr: Signal<Out, Bits<DMA_ADDR_BITS>>,
    pub msg_len: Signal<Out, Bits<32>>,
    pub msg_done: Signal<In, Bit>,
    /// No message in flight (taken, not done) and none held on `msg_*`.
    pub idle: Signal<Out, Bit>,

    /// The job on `msg_*` was shown and not taken: keep the choice.
    held: DFF<Bit>,
    /// The source of the held job: 1 = ReadResponder.
    cur_rr: DFF<Bit>,
    /// The source of the last handshake: 1 = ReadResponder.
    last_rr: DFF<Bit>,
    /// Owner FIFO: 1 = ReadResponder, one entry per message taken and not yet done.
    own: [DFF<Bit>; TXA_INFLIGHT],
    own_wr: DFF<Bits<PTR_BITS>>,
    own_rd: DFF<Bits<PTR_BITS>>,
    own_cnt: DFF<Bits<CNT_BITS>>,
    /// The source shown on `msg_*` in this cycle: 1 = ReadResponder.
    pick_rr: Signal<Local, Bit>,
    /// The owner FIFO is full: offer nothing.
    full: Signal<Local, Bit>,
    /// A handshake in this cycle.
    take: Signal<Local, Bit>,
    /// The owner of the message `msg_done` names: 1 = ReadResponder.
    head_rr: Signal<Local, Bit>,
    /// The source expected to be granted next (its hint is forwarded): 1 = ReadResponder.
    nsel: Signal<Local, Bit>,
    nsel_q: DFF<Bit>,
    /// The job shown had its `msg_take` (cleared at its handshake).
    took: DFF<Bit>,
    /// The job shown is the SendEngine's Read Request (no payload: its `msg_addr` is not
    /// read, so `msg_addr` shows the hint's source).
    rq_shown: Signal<Local, Bit>,
    /// The source on `msg_addr` / `nxt_addr` (one multiplexer): the shown one until its
    /// `msg_take`, else the hint's (`nsel_q`). 1 = ReadResponder.
    asel: Signal<Local, Bit>,
}

impl Logic for TxArbiter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, held, cur_rr, last_rr, own_wr, own_rd, own_cnt, nsel_q, took);
        for i in 0..TXA_INFLIGHT {
            self.own[i].clock.next = self.clock.val();
            self.own[i].d.next = self.own[i].q.val();
        }
        // The choice: the held one, else round robin between the waiting sources.
        if self.held.q.val() {
            self.pick_rr.next = self.cur_rr.q.val();
        } else if self.se_msg_valid.val() && self.rr_msg_valid.val() {
            self.pick_rr.next = !self.last_rr.q.val();
        } else {
            self.pick_rr.next = self.rr_msg_valid.val();
        }
        self.full.next = self.own_cnt.q.val().get_bit(2);
        if self.pick_rr.val() {
            self.msg_valid.next = self.rr_msg_valid.val() && !self.full.val();
            self.msg_conn.next = self.rr_msg_conn.val();
            self.msg_opcode.next = self.rr_msg_opcode.val();
            self.msg_stag.next = self.rr_msg_stag.val();
            self.msg_to.next = self.rr_msg_to.val();
            self.msg_len.next = self.rr_msg_len.val();
        } else {
            self.msg_valid.next = self.se_msg_valid.val() && !self.full.val();
            self.msg_conn.next = self.se_msg_conn.val();
            self.msg_opcode.next = self.se_msg_opcode.val();
            self.msg_stag.next = self.se_msg_stag.val();
            self.msg_to.next = self.se_msg_to.val();
            self.msg_len.next = self.se_msg_len.val();
        }
        // Fields only the SendEngine's opcodes use (the ReadResponder's Read Responses are
        // tagged: DdpTx reads no Invalidate STag, SrcTO or MSN for them): no mux.
        self.msg_inv_stag.next = self.se_msg_inv_stag.val();
        self.msg_src_to.next = self.se_msg_src_to.val();
        self.msg_msn.next = self.se_msg_msn.val();
        self.se_msg_ready.next = self.msg_ready.val() && !self.full.val() && !self.pick_rr.val();
        self.rr_msg_ready.next = self.msg_ready.val() && !self.full.val() && self.pick_rr.val();
        self.take.next = self.msg_valid.val() && self.msg_ready.val();
        self.held.d.next = self.msg_valid.val() && !self.msg_ready.val();
        self.cur_rr.d.next = self.pick_rr.val();
        if self.take.val() {
            self.last_rr.d.next = self.pick_rr.val();
            self.own_wr.d.next = self.own_wr.q.val() + 1;
            for i in 0..TXA_INFLIGHT {
                if self.own_wr.q.val().index() == i {
                    self.own[i].d.next = self.pick_rr.val();
                }
            }
        }
        // Done routing: the FIFO head (the message being taken when the FIFO is empty).
        self.head_rr.next = self.pick_rr.val();
        for i in 0..TXA_INFLIGHT {
            if (self.own_cnt.q.val() != 0) && (self.own_rd.q.val().index() == i) {
                self.head_rr.next = self.own[i].q.val();
            }
        }
        self.se_msg_done.next = self.msg_done.val() && !self.head_rr.val();
        self.rr_msg_done.next = self.msg_done.val() && self.head_rr.val();
        if self.msg_done.val() {
            self.own_rd.d.next = self.own_rd.q.val() + 1;
        }
        if self.take.val() && !self.msg_done.val() {
            self.own_cnt.d.next = self.own_cnt.q.val() + 1;
        } else if !self.take.val() && self.msg_done.val() {
            self.own_cnt.d.next = self.own_cnt.q.val() - 1;
        }
        self.idle.next = (self.own_cnt.q.val() == 0) && !self.held.q.val();

        // Take strobe and the read-ahead hint of the source expected next.
        self.se_msg_take.next = self.msg_take.val() && !self.pick_rr.val();
        self.rr_msg_take.next = self.msg_take.val() && self.pick_rr.val();
        if self.take.val() {
            self.took.d.next = false;
        } else if self.msg_take.val() {
            self.took.d.next = true;
        }
        if self.msg_valid.val() && !self.took.q.val() {
            // Shown, not taken yet: the choice made before it was shown is held (DdpTx
            // compares the message with the hint at its take).
            self.nsel.next = self.nsel_q.q.val();
        } else if self.msg_valid.val() {
            if self.pick_rr.val() {
                self.nsel.next = !(self.se_msg_valid.val() && (self.se_msg_opcode.val() != 1))
                    && self.rr_nxt_valid.val();
            } else {
                self.nsel.next = self.rr_msg_valid.val() || !self.se_nxt_valid.val();
            }
        } else {
            self.nsel.next = !self.se_nxt_valid.val();
        }
        self.nsel_q.d.next = self.nsel.val();
        if self.nsel.val() {
            self.nxt_valid.next = self.rr_nxt_valid.val();
            self.nxt_len.next = self.rr_nxt_len.val();
        } else {
            self.nxt_valid.next = self.se_nxt_valid.val();
            self.nxt_len.next = self.se_nxt_len.val();
        }
        if self.nsel.val() != self.nsel_q.q.val() {
            self.nxt_valid.next = false;
        }
        // One address multiplexer for `msg_addr` and `nxt_addr` (a source hints from the
        // register on its `msg_addr`): the shown source's until its `msg_take` (DdpTx reads
        // `msg_addr` for the last time then), the hint's (`nsel`) otherwise and for the
        // SendEngine's Read Request (DdpTx reads no `msg_addr` of it). While the shown job is
        // before its take, `nxt_addr` is thus its own address: the hint is up only if it is
        // that source's (`nsel` = the source shown), so DdpTx's compare at the take holds
        // exactly for the hinted message.
        self.rq_shown.next = !self.pick_rr.val() && (self.se_msg_opcode.val() == 1);
        // (`nsel_q` rather than `nsel`: equal whenever `nxt_valid` is 1, one cycle of 0 follows
        // every change of `nsel`; timing.)
        self.asel.next = self.nsel_q.q.val();
        if self.msg_valid.val() && !self.took.q.val() && !self.rq_shown.val() {
            self.asel.next = self.pick_rr.val();
            if self.nsel.val() != self.pick_rr.val() {
                self.nxt_valid.next = false;
            }
        }
        if self.asel.val() {
            self.msg_addr.next = self.rr_msg_addr.val();
        } else {
            self.msg_addr.next = self.se_msg_addr.val();
        }
        self.nxt_addr.next = self.msg_addr.val();
    }
}

crate::sim_ports!(impl[] TxArbiter {
    inputs: se_msg_valid, se_msg_conn, se_msg_opcode, se_msg_stag, se_msg_to, se_msg_inv_stag,
        se_msg_src_to, se_msg_msn, se_msg_addr, se_msg_len, rr_msg_valid, rr_msg_conn,
        rr_msg_opcode, rr_msg_stag, rr_msg_to, rr_msg_addr, rr_msg_len, msg_ready, msg_done,
        se_nxt_valid, se_nxt_len, rr_nxt_valid, rr_nxt_len, msg_take;
    outputs: se_msg_ready, se_msg_done, rr_msg_ready, rr_msg_done, msg_valid, msg_conn,
        msg_opcode, msg_stag, msg_to, msg_inv_stag, msg_src_to, msg_msn, msg_addr, msg_len,
        idle, se_msg_take, rr_msg_take, nxt_valid, nxt_addr, nxt_len;
});
