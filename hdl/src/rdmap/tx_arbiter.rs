//! TxArbiter (`docs/core.md`, "TxArbiter", "The message job"): the SendEngine's message jobs
//! (`se_msg_*`) and the ReadResponder's (`rr_msg_*`) into DdpTx's one job port (`msg_*`), and
//! DdpTx's `msg_done` strobes back to the source of each message.
//!
//! # Behaviour
//!
//! - **Whole messages.** A message is one handshake (`msg_valid && msg_ready`); DdpTx
//!   segments it. The arbiter only chooses which source's job is on `msg_*`.
//! - **Round robin, chosen a cycle ahead.** The source shown is a register (`pick_q`), chosen
//!   in the cycle before: the shown one while its job waits, else, when both sources wait, the
//!   one not granted last (`last_rr`, this cycle's handshake counted), when one waits, it.
//!   Neither source starves: after a grant to one, the other is first in line at the next
//!   choice. A source that starts to wait while the other one is chosen is shown a cycle
//!   later (one cycle per message at most; DdpTx works on a message for its whole length).
//! - **Stable offer.** Once a job is shown on `msg_*` (`msg_valid` without `msg_ready`), the
//!   choice is held until it is taken, even if the other source starts to wait: DdpTx sees an
//!   ordinary valid/ready stream whose payload never changes under `valid`.
//! - **Several messages in flight.** DdpTx may take a message before the previous one's
//!   `msg_done` (it reads the next message's payload ahead). Its dones come in message order,
//!   so the arbiter keeps the owner (SendEngine / ReadResponder) of each taken message in a small
//!   FIFO of [`TXA_INFLIGHT`] one-bit entries; `msg_done` pops the head and is routed as
//!   `se_msg_done` or `rr_msg_done` in the same cycle (combinational, no latency). With the FIFO
//!   full no job is offered (`msg_valid` = 0) until a done frees an entry. A `msg_done` in the
//!   cycle of its own handshake (FIFO empty) is routed to the source being taken.
//! - `idle`: no message taken and not yet done, and no job held on `msg_*`.
//! - **First cycle shown.** `rr_msg_first`: a ReadResponder job is shown and was not in the
//!   last cycle (`held`). A message is shown at the earliest the cycle after the previous
//!   one's handshake, when DdpTx is back in Idle, so DdpTx takes it up in that cycle: the
//!   ReadResponder reads the STag and the TO's high half from its queue RAM in the next two
//!   cycles, when DdpTx copies them (`docs/core.md` "The message job").
//! - **The SendEngine the same way**: `se_msg_first` / `se_msg_pick` are the two strobes for
//!   a SendEngine job; it reads its rkey and remote address (`se_msg_stag` / `se_msg_to`)
//!   from its `orq` RAM in those cycles (no registers of them). Both sources' `*_msg_to`
//!   halves and `*_msg_stag` are then one RAM read register each, so in the flat netlist the
//!   STag / TO multiplexers here are one 32-bit multiplexer (`msg_stag` = each half of
//!   `msg_to`).
//! - **`msg_addr` is a register** (`m_addr`): the chosen source's `*_msg_addr`, copied in the
//!   cycle the job is chosen (the cycle before it is shown, while no job is held) and held
//!   while it is shown. `rr_msg_pick` strobes then when the ReadResponder is chosen: its
//!   address is its queue RAM's read register in that cycle, and its port reads the TO's low
//!   half for the first cycle shown (the ReadResponder keeps no address register: 32 lone
//!   flip-flops less, and the arbiter's address multiplexer packs with `m_addr`).
//! - **Take strobe.** DdpTx's `msg_take` (a register: it read `msg_addr` / `msg_len` for the
//!   last time in the cycle before) goes to the source shown, as `se_msg_take` / `rr_msg_take`.
//! - **Read-ahead hint** (`docs/core.md` "DdpTx", "Read-ahead"): `nsel` is the source expected
//!   to be granted next: while a job of one source is shown, the other one if it waits (the
//!   SendEngine only with a message that reads payload: a Read Request between two Read
//!   Responses leaves DdpTx's read-ahead alone, so the hint after it counts), else the same one
//!   if it has a hint, else the other; with nothing shown, the SendEngine if it has a hint,
//!   else the ReadResponder. From the cycle a job is shown until its `msg_take` (`took`), the
//!   choice made before it was shown is held: DdpTx compares the job with the hint at its
//!   take (no copy of the region), so the hint of the shown job must stay up until then.
//!   The hint DdpTx sees is a register (`h_*`), loaded in every cycle with `nsel`'s hint
//!   (its `nxt_valid` / `nxt_len`, and its `*_msg_addr`: a source hints from the register
//!   that drives it), or 0 in the cycle `nsel` changes: it never goes from one source's hint
//!   to the other's without falling, and DdpTx sees a source's hint, and its fall, a cycle
//!   late. While a ReadResponder job is shown and not taken with the ReadResponder's hint
//!   forwarded (`frz`), the forwarded hint is held and only a fall passes: its `rr_msg_addr`
//!   is then the RAM port reading the job's other words (its hint is the shown job's and
//!   stays up until the take). `nxt_shown` (`nsel_q` = the source shown) restricts DdpTx's
//!   compare at a take to the hint of the shown message's own source: a message of the other
//!   source with the same region is read again (a flush, never data read for another source's hint). `nxt_len` is
//!   16 bits (the sources hint no message of 64 KiB or more).
//!
//! # Timing
//!
//! Every output DdpTx decodes starts at flip-flops: `msg_addr` is one, the field
//! multiplexer's select is `pick_q`, `msg_valid` is a register (`mv_q`: the chosen source
//! waits and is not being taken, and the owner FIFO has room next cycle; a source holds its job until its handshake,
//! so it still waits when shown), the hint is registered. A source's next job after its
//! handshake is shown a cycle later than before (one cycle per message). (Before, the choice
//! and the hint select were decoded from the sources' `valid`s and opcode in the same cycle,
//! and the composed transmit side ran at 64 MHz: the SendEngine's registers -> the choice ->
//! `nsel` -> `nxt_valid` -> DdpTx's read-ahead start -> the `rq_addr` enables, and back through `msg_take` into the SendEngine's enables;
//! `docs/decisions.md` "Eleventh session".) The done routing is one mux of the FIFO head.
//! `msg_inv_stag`, `msg_src_to` and `msg_msn` are the SendEngine's, passed through whichever
//! source is shown: the ReadResponder's jobs are Read Responses, tagged, and DdpTx reads none
//! of the three for a tagged message (`docs/core.md` "The message job"), so its port has none
//! of them (issue 5: 128 multiplexer LUTs less).
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
    /// A ReadResponder job is shown for the first cycle (DdpTx takes a message up in the
    /// first cycle it is shown: the ReadResponder reads its STag and TO high half from its
    /// queue RAM in the next two cycles).
    pub rr_msg_first: Signal<Out, Bit>,
    /// The ReadResponder's job is chosen: shown from the next cycle on (its `rr_msg_addr` is
    /// copied now).
    pub rr_msg_pick: Signal<Out, Bit>,
    /// The same two strobes for the SendEngine (it reads its rkey and remote address from its
    /// `orq` RAM in the cycles DdpTx reads `msg_to` / `msg_stag`, as the ReadResponder does).
    pub se_msg_first: Signal<Out, Bit>,
    pub se_msg_pick: Signal<Out, Bit>,
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
    /// The hint is of the source whose job is on `msg_*`.
    pub nxt_shown: Signal<Out, Bit>,
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

    /// The job on `msg_*` was shown and not taken (for `idle`).
    held: DFF<Bit>,
    /// The source on `msg_*`, chosen in the cycle before (a register: the field multiplexer and
    /// everything DdpTx derives from `msg_valid` start at flip-flops): 1 = ReadResponder.
    pick_q: DFF<Bit>,
    /// The source of the last handshake: 1 = ReadResponder.
    last_rr: DFF<Bit>,
    /// Owner FIFO: 1 = ReadResponder, one entry per message taken and not yet done.
    own: [DFF<Bit>; TXA_INFLIGHT],
    own_wr: DFF<Bits<PTR_BITS>>,
    own_rd: DFF<Bits<PTR_BITS>>,
    own_cnt: DFF<Bits<CNT_BITS>>,
    /// The source shown on `msg_*` in this cycle: 1 = ReadResponder.
    pick_rr: Signal<Local, Bit>,
    /// `msg_valid`, chosen in the cycle before.
    mv_q: DFF<Bit>,
    /// The sources wait now and are not being taken.
    se_vn: Signal<Local, Bit>,
    rr_vn: Signal<Local, Bit>,
    /// `own_cnt`'s D (bit 2: the owner FIFO is full next cycle: offer nothing).
    cnt_d: Signal<Local, Bits<CNT_BITS>>,
    /// A handshake in this cycle.
    take: Signal<Local, Bit>,
    /// The owner of the message `msg_done` names: 1 = ReadResponder.
    head_rr: Signal<Local, Bit>,
    /// The source expected to be granted next (its hint is forwarded): 1 = ReadResponder.
    nsel: Signal<Local, Bit>,
    /// `nsel` of the last cycle: the select of `nxt_valid` / `nxt_len` (a register).
    nsel_q: DFF<Bit>,
    /// The choice for the next cycle (`pick_q`'s D): the held one, else round robin.
    pick_d: Signal<Local, Bit>,
    /// The source of the last handshake, this cycle's included (`last_rr`'s D).
    last_d: Signal<Local, Bit>,
    /// The job shown had its `msg_take` (cleared at its handshake).
    took: DFF<Bit>,
    /// The hint forwarded (`nxt_*`): the last cycle's hint of the source chosen then.
    h_valid: DFF<Bit>,
    h_addr: DFF<Bits<DMA_ADDR_BITS>>,
    h_len: DFF<Bits<16>>,
    /// `msg_addr`: the chosen source's address, copied in the cycle before its job is shown
    /// (`pick_d`, while no job is held) and kept until the next choice.
    m_addr: DFF<Bits<DMA_ADDR_BITS>>,
    /// The ReadResponder's hint is forwarded and its job is shown, not taken yet: its
    /// `rr_msg_addr` is its queue RAM's read port, which reads the job's other words
    /// meanwhile; the forwarded hint is held (only a fall passes).
    frz: Signal<Local, Bit>,
}

impl Logic for TxArbiter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, held, pick_q, mv_q, last_rr, own_wr, own_rd, own_cnt, nsel_q, took,
            h_valid, h_addr, h_len, m_addr
        );
        for i in 0..TXA_INFLIGHT {
            self.own[i].clock.next = self.clock.val();
            self.own[i].d.next = self.own[i].q.val();
        }
        // The source shown was chosen in the cycle before (`pick_d` below).
        self.pick_rr.next = self.pick_q.q.val();
        if self.pick_rr.val() {
            self.msg_conn.next = self.rr_msg_conn.val();
            self.msg_opcode.next = self.rr_msg_opcode.val();
            self.msg_stag.next = self.rr_msg_stag.val();
            self.msg_to.next = self.rr_msg_to.val();
            self.msg_len.next = self.rr_msg_len.val();
        } else {
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
        self.msg_valid.next = self.mv_q.q.val();
        self.se_msg_ready.next =
            self.msg_ready.val() && self.msg_valid.val() && !self.pick_rr.val();
        self.rr_msg_ready.next = self.msg_ready.val() && self.msg_valid.val() && self.pick_rr.val();
        self.take.next = self.msg_valid.val() && self.msg_ready.val();
        self.held.d.next = self.msg_valid.val() && !self.msg_ready.val();
        // First cycle shown: not held from the last cycle (a job is shown at the earliest
        // the cycle after the previous one's handshake, when DdpTx is back in Idle).
        self.rr_msg_first.next = self.msg_valid.val() && !self.held.q.val() && self.pick_rr.val();
        self.se_msg_first.next = self.msg_valid.val() && !self.held.q.val() && !self.pick_rr.val();
        // The next cycle's source: the shown one while its job waits, else round robin
        // between the sources waiting now (when both wait, the one not granted last, this
        // cycle's handshake counted; when one waits, it; when none, the SendEngine). A source
        // that starts to wait while the other one is chosen is shown a cycle later.
        self.last_d.next = self.last_rr.q.val();
        if self.take.val() {
            self.last_d.next = self.pick_rr.val();
        }
        if self.msg_valid.val() && !self.msg_ready.val() {
            self.pick_d.next = self.pick_rr.val();
        } else if self.se_msg_valid.val() && self.rr_msg_valid.val() {
            self.pick_d.next = !self.last_d.val();
        } else {
            self.pick_d.next = self.rr_msg_valid.val();
        }
        self.pick_q.d.next = self.pick_d.val();
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
        self.cnt_d.next = self.own_cnt.q.val();
        if self.take.val() && !self.msg_done.val() {
            self.cnt_d.next = self.own_cnt.q.val() + 1;
        } else if !self.take.val() && self.msg_done.val() {
            self.cnt_d.next = self.own_cnt.q.val() - 1;
        }
        self.own_cnt.d.next = self.cnt_d.val();
        // `msg_valid` is a register too: the chosen source waits now and is not being taken
        // (a source holds its job until its handshake), and the FIFO has room next cycle. A
        // source's next job after a handshake is shown a cycle later.
        self.se_vn.next = self.se_msg_valid.val() && (!self.take.val() || self.pick_rr.val());
        self.rr_vn.next = self.rr_msg_valid.val() && (!self.take.val() || !self.pick_rr.val());
        if self.pick_d.val() {
            self.mv_q.d.next = self.rr_vn.val() && !self.cnt_d.val().get_bit(2);
        } else {
            self.mv_q.d.next = self.se_vn.val() && !self.cnt_d.val().get_bit(2);
        }
        self.idle.next = (self.own_cnt.q.val() == 0) && !self.held.q.val();
        // The address of the job shown next, read in the cycle it is chosen (the ReadResponder
        // shows its address on `rr_msg_addr` then, from its queue RAM's read port, and reads
        // the TO's low half for the first cycle shown: `rr_msg_pick`).
        if !self.msg_valid.val() || self.msg_ready.val() {
            if self.pick_d.val() {
                self.m_addr.d.next = self.rr_msg_addr.val();
            } else {
                self.m_addr.d.next = self.se_msg_addr.val();
            }
        }
        self.rr_msg_pick.next = (!self.msg_valid.val() || self.msg_ready.val())
            && self.pick_d.val()
            && self.mv_q.d.val();
        self.se_msg_pick.next = (!self.msg_valid.val() || self.msg_ready.val())
            && !self.pick_d.val()
            && self.mv_q.d.val();
        self.msg_addr.next = self.m_addr.q.val();

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
        // The hint forwarded is a register, loaded in every cycle with the hint of the source
        // chosen (`nsel`), or 0 in the cycle that choice changes (it never goes from one
        // source's hint to the other's without falling): DdpTx sees each source's hint a
        // cycle late, from flip-flops, and the region registered is one the source hinted
        // (a source changes `nxt_*` only while its `nxt_valid` is 0). `nxt_shown`: the hint is
        // of the source shown (`nsel_q` is the hint's source), for DdpTx's compare at a take.
        self.nsel_q.d.next = self.nsel.val();
        if self.nsel.val() {
            self.h_valid.d.next = self.rr_nxt_valid.val();
            self.h_len.d.next = self.rr_nxt_len.val();
            self.h_addr.d.next = self.rr_msg_addr.val();
        } else {
            self.h_valid.d.next = self.se_nxt_valid.val();
            self.h_len.d.next = self.se_nxt_len.val();
            self.h_addr.d.next = self.se_msg_addr.val();
        }
        // (Shown and not taken, `nsel` is `nsel_q`: read from the register, so that the hint
        // registers' enable is one LUT of registers, not the sources' hints -> `nsel` -> `frz`:
        // the routed core's −2.10 ns, 63 endpoints.)
        self.frz.next =
            self.nsel_q.q.val() && self.pick_rr.val() && self.msg_valid.val() && !self.took.q.val();
        if self.frz.val() {
            self.h_valid.d.next = self.h_valid.q.val() && self.rr_nxt_valid.val();
            self.h_len.d.next = self.h_len.q.val();
            self.h_addr.d.next = self.h_addr.q.val();
        }
        if self.nsel.val() != self.nsel_q.q.val() {
            self.h_valid.d.next = false;
        }
        self.nxt_valid.next = self.h_valid.q.val();
        self.nxt_len.next = self.h_len.q.val();
        self.nxt_addr.next = self.h_addr.q.val();
        self.nxt_shown.next = self.nsel_q.q.val() == self.pick_rr.val();
    }
}

crate::sim_ports!(impl[] TxArbiter {
    inputs: se_msg_valid, se_msg_conn, se_msg_opcode, se_msg_stag, se_msg_to, se_msg_inv_stag,
        se_msg_src_to, se_msg_msn, se_msg_addr, se_msg_len, rr_msg_valid, rr_msg_conn,
        rr_msg_opcode, rr_msg_stag, rr_msg_to, rr_msg_addr, rr_msg_len, msg_ready, msg_done,
        se_nxt_valid, se_nxt_len, rr_nxt_valid, rr_nxt_len, msg_take;
    outputs: se_msg_ready, se_msg_done, rr_msg_ready, rr_msg_done, msg_valid, msg_conn,
        msg_opcode, msg_stag, msg_to, msg_inv_stag, msg_src_to, msg_msn, msg_addr, msg_len,
        idle, se_msg_take, rr_msg_take, rr_msg_first, rr_msg_pick, se_msg_first, se_msg_pick, nxt_valid, nxt_addr, nxt_len,
        nxt_shown;
});
