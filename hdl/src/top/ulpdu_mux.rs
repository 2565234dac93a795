//! UlpduMux (`docs/core.md`): RxPath's Terminate ULPDUs (`term_*`) and DdpTx's segments
//! (`ddp_*`) into MpaTx's `ulpdu_*`, whole packets. Between packets the Terminate goes first
//! when both wait: a Terminate ends the stream (`rfc5040-rdmap.md` §4.3), so nothing of the
//! QP should follow it, and the receive path holds a header slot until it has left.
//!
//! A combinational mux: the choice depends on the `valid`s and on `lock` (a packet in
//! progress and its source), never on `ulpdu_ready`, so the ready path stays one AND.

use crate::config::CONN_BITS;
use rust_hdl::prelude::*;

/// The ULPDU multiplexer in front of MpaTx.
#[derive(LogicBlock, Default)]
pub struct UlpduMux {
    pub clock: Signal<In, Clock>,
    // Terminate ULPDUs (RxPath tx_*).
    pub term_data: Signal<In, Bits<32>>,
    pub term_keep: Signal<In, Bits<4>>,
    pub term_last: Signal<In, Bit>,
    pub term_valid: Signal<In, Bit>,
    pub term_ready: Signal<Out, Bit>,
    pub term_conn: Signal<In, Bits<CONN_BITS>>,
    pub term_len: Signal<In, Bits<16>>,
    // DDP segments (DdpTx ulpdu_*).
    pub ddp_data: Signal<In, Bits<32>>,
    pub ddp_keep: Signal<In, Bits<4>>,
    pub ddp_last: Signal<In, Bit>,
    pub ddp_valid: Signal<In, Bit>,
    pub ddp_ready: Signal<Out, Bit>,
    pub ddp_conn: Signal<In, Bits<CONN_BITS>>,
    pub ddp_len: Signal<In, Bits<16>>,
    // To MpaTx.
    pub ulpdu_data: Signal<Out, Bits<32>>,
    pub ulpdu_keep: Signal<Out, Bits<4>>,
    pub ulpdu_last: Signal<Out, Bit>,
    pub ulpdu_valid: Signal<Out, Bit>,
    pub ulpdu_ready: Signal<In, Bit>,
    pub ulpdu_conn: Signal<Out, Bits<CONN_BITS>>,
    pub ulpdu_len: Signal<Out, Bits<16>>,
    /// No packet in progress.
    pub idle: Signal<Out, Bit>,

    /// A packet is in progress (its first beat left, its last not yet).
    lock: DFF<Bit>,
    /// The source of the packet in progress: 1 = Terminate.
    lock_term: DFF<Bit>,
    pick_term: Signal<Local, Bit>,
}

impl Logic for UlpduMux {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, lock, lock_term);
        if self.lock.q.val() {
            self.pick_term.next = self.lock_term.q.val();
        } else {
            self.pick_term.next = self.term_valid.val();
        }
        if self.pick_term.val() {
            self.ulpdu_data.next = self.term_data.val();
            self.ulpdu_keep.next = self.term_keep.val();
            self.ulpdu_last.next = self.term_last.val();
            self.ulpdu_valid.next = self.term_valid.val();
            self.ulpdu_conn.next = self.term_conn.val();
            self.ulpdu_len.next = self.term_len.val();
        } else {
            self.ulpdu_data.next = self.ddp_data.val();
            self.ulpdu_keep.next = self.ddp_keep.val();
            self.ulpdu_last.next = self.ddp_last.val();
            self.ulpdu_valid.next = self.ddp_valid.val();
            self.ulpdu_conn.next = self.ddp_conn.val();
            self.ulpdu_len.next = self.ddp_len.val();
        }
        self.term_ready.next = self.pick_term.val() && self.ulpdu_ready.val();
        self.ddp_ready.next = !self.pick_term.val() && self.ulpdu_ready.val();
        if self.ulpdu_valid.val() && self.ulpdu_ready.val() {
            self.lock.d.next = !self.ulpdu_last.val();
            self.lock_term.d.next = self.pick_term.val();
        }
        self.idle.next = !self.lock.q.val();
    }
}

crate::sim_ports!(impl[] UlpduMux {
    inputs: term_data, term_keep, term_last, term_valid, term_conn, term_len, ddp_data,
        ddp_keep, ddp_last, ddp_valid, ddp_conn, ddp_len, ulpdu_ready;
    outputs: term_ready, ddp_ready, ulpdu_data, ulpdu_keep, ulpdu_last, ulpdu_valid, ulpdu_conn,
        ulpdu_len, idle;
});
