//! The receive path of the core: the LLP RX byte stream in, placements (DMA writes),
//! completions, queued Read Requests, asynchronous events and the Terminate out.
//! The blocks and their contracts: [`crate::ddp`] and [`crate::rdmap`].
//!
//! ```text
//!  llp_* ─► MpaRx ─ulpdu_*─► DdpRxParse ─pay_*──────────────────────► RxPlace ─► dma_wr_*
//!            │  └─raw_*        │ A  │ B  └─job_*─► RxControl ─vd_*─────┘   │
//!            └─err_*──────────────────────────────►    │  ▲ ◄─done_*───────┘
//!                              │    │                  │  └─ StagCheck (prog_*)
//!                              │    └──── TerminateTx ◄┘ term_*   ─► tx_* (to MpaTx)
//!                              └───────── hdr A: RxControl, hdr B: TerminateTx
//!  RxControl also: qp_cfg_*, rq_* (receive WQEs), orq_push, irq_* / irq_done, cqe_*, aev_*
//! ```
//!
//! The top only wires (every block owns its own registers), but for `rx_idle`.
//!
//! **`rx_idle`** (an output added to the "RxPath" list of [`crate::rdmap`]): 1 when the receive
//! path is drained: MpaRx has no word in its pipeline, DdpRxParse has no header slot taken and
//! no job or payload beat waiting (a slot is taken at a segment's first beat and freed by
//! RxControl only after the segment's done and its events were taken, or after the
//! `term_done` of a Terminate that copies it), RxControl has no job, done, check, latched LLP
//! error or output pending, TerminateTx is idle, RxPlace offers no DMA beat or done, and no
//! LLP beat was taken in the cycle before. It is a register, one cycle behind those states.
//! Bytes of a partial FPDU waiting for the rest of their stream do not count as in flight.
//! The firmware waits for `rx_idle` (with the LLP input of the QP's connection stopped)
//! before a `qp_cfg_write` or `mpa_cfg_write` of a connection that received traffic: segments
//! dropped after a QP's error move nothing out, so silence on the outputs is not enough. Header slots are freed by RxControl
//! alone (after a segment's `done`, or after `term_done` for the slot a Terminate copied).

use crate::config::{
    CHK_TAG_BITS, CONN_BITS, DMA_ADDR_BITS, HDR_ADDR_BITS, HDR_WORD_BITS, PD_BITS, STAG_INDEX_BITS,
};
use crate::ddp::rx_parse::DdpRxParse;
use crate::ddp::rx_place::RxPlace;
use crate::ddp::stag_check::{StagCheck, STAG_CHECK_LATENCY};
use crate::mpa::mpa_rx::MpaRx;
use crate::rdmap::rx_control::RxControl;
use crate::rdmap::terminate_tx::TerminateTx;
use rust_hdl::prelude::*;

/// The receive path top. Ports: the "RxPath" list of [`crate::rdmap`].
#[derive(LogicBlock, Default)]
pub struct RxPath {
    pub clock: Signal<In, Clock>,
    // LLP RX.
    pub llp_data: Signal<In, Bits<32>>,
    pub llp_keep: Signal<In, Bits<4>>,
    pub llp_last: Signal<In, Bit>,
    pub llp_valid: Signal<In, Bit>,
    pub llp_ready: Signal<Out, Bit>,
    pub llp_conn: Signal<In, Bits<CONN_BITS>>,
    // MPA configuration (MpaRx cfg_*).
    pub mpa_cfg_write: Signal<In, Bit>,
    pub mpa_cfg_conn: Signal<In, Bits<CONN_BITS>>,
    pub mpa_cfg_fpdu_mode: Signal<In, Bit>,
    pub mpa_cfg_markers: Signal<In, Bit>,
    pub mpa_cfg_crc: Signal<In, Bit>,
    pub mpa_cfg_max_ulpdu: Signal<In, Bits<16>>,
    // Raw-mode bytes to the firmware.
    pub raw_data: Signal<Out, Bits<32>>,
    pub raw_keep: Signal<Out, Bits<4>>,
    pub raw_last: Signal<Out, Bit>,
    pub raw_valid: Signal<Out, Bit>,
    pub raw_ready: Signal<In, Bit>,
    pub raw_conn: Signal<Out, Bits<CONN_BITS>>,
    // QP configuration.
    pub qp_cfg_write: Signal<In, Bit>,
    pub qp_cfg_qp: Signal<In, Bits<CONN_BITS>>,
    pub qp_cfg_enable: Signal<In, Bit>,
    pub qp_cfg_pd: Signal<In, Bits<PD_BITS>>,
    pub qp_cfg_ird: Signal<In, Bits<4>>,
    // STag table programming.
    pub prog_write: Signal<In, Bit>,
    pub prog_index: Signal<In, Bits<STAG_INDEX_BITS>>,
    pub prog_valid: Signal<In, Bit>,
    pub prog_key: Signal<In, Bits<8>>,
    pub prog_pd: Signal<In, Bits<PD_BITS>>,
    pub prog_access: Signal<In, Bits<4>>,
    pub prog_qp_bound: Signal<In, Bit>,
    pub prog_qp: Signal<In, Bits<CONN_BITS>>,
    pub prog_remote_inv: Signal<In, Bit>,
    pub prog_base_to: Signal<In, Bits<64>>,
    pub prog_len: Signal<In, Bits<32>>,
    pub prog_host_addr: Signal<In, Bits<DMA_ADDR_BITS>>,
    // DMA writes (placement).
    pub dma_wr_addr: Signal<Out, Bits<DMA_ADDR_BITS>>,
    pub dma_wr_data: Signal<Out, Bits<32>>,
    pub dma_wr_keep: Signal<Out, Bits<4>>,
    pub dma_wr_last: Signal<Out, Bit>,
    pub dma_wr_valid: Signal<Out, Bit>,
    pub dma_wr_ready: Signal<In, Bit>,
    // Receive WQEs.
    pub rq_req_valid: Signal<Out, Bit>,
    pub rq_req_ready: Signal<In, Bit>,
    pub rq_req_qp: Signal<Out, Bits<CONN_BITS>>,
    pub rq_req_pop: Signal<Out, Bit>,
    pub rq_rsp_valid: Signal<In, Bit>,
    pub rq_rsp_present: Signal<In, Bit>,
    pub rq_rsp_to: Signal<In, Bits<64>>,
    pub rq_rsp_len_n: Signal<In, Bits<32>>,
    pub rq_rsp_lkey: Signal<In, Bits<32>>,
    pub rq_rsp_index: Signal<In, Bits<16>>,
    // Outstanding outbound Reads (from the send engine) and inbound ones served.
    pub orq_push: Signal<In, Bit>,
    pub orq_push_qp: Signal<In, Bits<CONN_BITS>>,
    pub irq_done: Signal<In, Bit>,
    pub irq_done_qp: Signal<In, Bits<CONN_BITS>>,
    // Queued Read Requests (to the read responder).
    pub irq_valid: Signal<Out, Bit>,
    pub irq_ready: Signal<In, Bit>,
    pub irq_qp: Signal<Out, Bits<CONN_BITS>>,
    pub irq_word: Signal<Out, Bits<32>>,
    // Completions.
    pub cqe_valid: Signal<Out, Bit>,
    pub cqe_ready: Signal<In, Bit>,
    pub cqe_qp: Signal<Out, Bits<CONN_BITS>>,
    pub cqe_opcode: Signal<Out, Bits<8>>,
    pub cqe_status: Signal<Out, Bits<8>>,
    pub cqe_byte_len: Signal<Out, Bits<32>>,
    pub cqe_index: Signal<Out, Bits<16>>,
    pub cqe_inv_stag: Signal<Out, Bits<32>>,
    pub cqe_with_inv: Signal<Out, Bit>,
    pub cqe_solicited: Signal<Out, Bit>,
    // Asynchronous events.
    pub aev_valid: Signal<Out, Bit>,
    pub aev_ready: Signal<In, Bit>,
    pub aev_qp: Signal<Out, Bits<CONN_BITS>>,
    pub aev_kind: Signal<Out, Bits<8>>,
    pub aev_layer: Signal<Out, Bits<4>>,
    pub aev_etype: Signal<Out, Bits<4>>,
    pub aev_code: Signal<Out, Bits<8>>,
    // Terminate ULPDUs (to MpaTx).
    pub tx_data: Signal<Out, Bits<32>>,
    pub tx_keep: Signal<Out, Bits<4>>,
    pub tx_last: Signal<Out, Bit>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_ready: Signal<In, Bit>,
    pub tx_conn: Signal<Out, Bits<CONN_BITS>>,
    pub tx_len: Signal<Out, Bits<16>>,
    /// Drained: no byte, job, check, verdict, done, event or Terminate in flight in any block
    /// (see the module docs). A register.
    pub rx_idle: Signal<Out, Bit>,
    /// Strobe: the last beat of an FPDU that passed MPA's checks (CRC good or off) went to
    /// DdpRxParse; the connection in `fpdu_good_conn`. A register. For the host interface's
    /// `QP_STATUS_FPDU_RECEIVED` (the Responder's send fence, RFC 5044 §7.1.2).
    pub fpdu_good_valid: Signal<Out, Bit>,
    pub fpdu_good_conn: Signal<Out, Bits<CONN_BITS>>,
    // The send engine's local STag checks (a second StagCheck port, `docs/core.md`).
    pub lchk_valid: Signal<In, Bit>,
    pub lchk_ready: Signal<Out, Bit>,
    pub lchk_stag: Signal<In, Bits<32>>,
    pub lchk_to: Signal<In, Bits<64>>,
    pub lchk_len: Signal<In, Bits<32>>,
    pub lchk_pd: Signal<In, Bits<PD_BITS>>,
    pub lchk_qp: Signal<In, Bits<CONN_BITS>>,
    pub lchk_access: Signal<In, Bits<4>>,
    pub lrsp_valid: Signal<Out, Bit>,
    pub lrsp_status: Signal<Out, Bits<3>>,
    pub lrsp_host_addr: Signal<Out, Bits<DMA_ADDR_BITS>>,

    idle_q: DFF<Bit>,
    fpdu_good_q: DFF<Bit>,
    fpdu_conn_q: DFF<Bits<CONN_BITS>>,
    /// `lchk_own[i]`: the StagCheck request of `i + 1` cycles ago was a local check.
    lchk_own: [DFF<Bit>; STAG_CHECK_LATENCY],
    /// A StagCheck request in the previous cycle (StagCheck takes one every 2 cycles).
    chk_prev: DFF<Bit>,
    /// A local check goes to the StagCheck in this cycle.
    lchk_go: Signal<Local, Bit>,
    mpa: MpaRx,
    parse: DdpRxParse,
    check: StagCheck,
    control: RxControl,
    placer: RxPlace,
    term: TerminateTx,
}

impl Logic for RxPath {
    #[hdl_gen]
    fn update(&mut self) {
        self.mpa.clock.next = self.clock.val();
        self.parse.clock.next = self.clock.val();
        self.check.clock.next = self.clock.val();
        self.control.clock.next = self.clock.val();
        self.placer.clock.next = self.clock.val();
        self.term.clock.next = self.clock.val();

        // LLP RX and MPA configuration.
        self.mpa.llp_data.next = self.llp_data.val();
        self.mpa.llp_keep.next = self.llp_keep.val();
        self.mpa.llp_last.next = self.llp_last.val();
        self.mpa.llp_valid.next = self.llp_valid.val();
        self.mpa.llp_conn.next = self.llp_conn.val();
        self.llp_ready.next = self.mpa.llp_ready.val();
        self.mpa.cfg_write.next = self.mpa_cfg_write.val();
        self.mpa.cfg_conn.next = self.mpa_cfg_conn.val();
        self.mpa.cfg_fpdu_mode.next = self.mpa_cfg_fpdu_mode.val();
        self.mpa.cfg_markers.next = self.mpa_cfg_markers.val();
        self.mpa.cfg_crc.next = self.mpa_cfg_crc.val();
        self.mpa.cfg_max_ulpdu.next = self.mpa_cfg_max_ulpdu.val();
        self.raw_data.next = self.mpa.raw_data.val();
        self.raw_keep.next = self.mpa.raw_keep.val();
        self.raw_last.next = self.mpa.raw_last.val();
        self.raw_valid.next = self.mpa.raw_valid.val();
        self.raw_conn.next = self.mpa.raw_conn.val();
        self.mpa.raw_ready.next = self.raw_ready.val();

        // MpaRx → DdpRxParse.
        self.parse.ulpdu_data.next = self.mpa.ulpdu_data.val();
        self.parse.ulpdu_keep.next = self.mpa.ulpdu_keep.val();
        self.parse.ulpdu_first.next = self.mpa.ulpdu_first.val();
        self.parse.ulpdu_last.next = self.mpa.ulpdu_last.val();
        self.parse.ulpdu_good.next = self.mpa.ulpdu_good.val();
        self.parse.ulpdu_valid.next = self.mpa.ulpdu_valid.val();
        self.parse.ulpdu_conn.next = self.mpa.ulpdu_conn.val();
        self.parse.ulpdu_len.next = self.mpa.ulpdu_len.val();
        self.mpa.ulpdu_ready.next = self.parse.ulpdu_ready.val();

        // DdpRxParse → RxControl (jobs, header port A) and → TerminateTx (header port B).
        self.control.job_valid.next = self.parse.job_valid.val();
        self.control.job_conn.next = self.parse.job_conn.val();
        self.control.job_slot.next = self.parse.job_slot.val();
        self.control.job_len.next = self.parse.job_len.val();
        self.parse.job_ready.next = self.control.job_ready.val();
        self.parse.hdr_a_addr.next = self.control.hdr_a_addr.val();
        self.control.hdr_a_data.next = self.parse.hdr_a_data.val();
        self.parse.hdr_b_addr.next = self.term.hdr_b_addr.val();
        self.term.hdr_b_data.next = self.parse.hdr_b_data.val();
        self.parse.free_valid.next = self.control.free_valid.val();
        self.parse.free_conn.next = self.control.free_conn.val();
        self.parse.free_slot.next = self.control.free_slot.val();

        // DdpRxParse → RxPlace (payload runs).
        self.placer.pay_data.next = self.parse.pay_data.val();
        self.placer.pay_keep.next = self.parse.pay_keep.val();
        self.placer.pay_first.next = self.parse.pay_first.val();
        self.placer.pay_last.next = self.parse.pay_last.val();
        self.placer.pay_good.next = self.parse.pay_good.val();
        self.placer.pay_valid.next = self.parse.pay_valid.val();
        self.placer.pay_conn.next = self.parse.pay_conn.val();
        self.parse.pay_ready.next = self.placer.pay_ready.val();

        // RxControl ↔ StagCheck.
        self.check.prog_write.next = self.prog_write.val();
        self.check.prog_index.next = self.prog_index.val();
        self.check.prog_valid.next = self.prog_valid.val();
        self.check.prog_key.next = self.prog_key.val();
        self.check.prog_pd.next = self.prog_pd.val();
        self.check.prog_access.next = self.prog_access.val();
        self.check.prog_qp_bound.next = self.prog_qp_bound.val();
        self.check.prog_qp.next = self.prog_qp.val();
        self.check.prog_remote_inv.next = self.prog_remote_inv.val();
        self.check.prog_base_to.next = self.prog_base_to.val();
        self.check.prog_len.next = self.prog_len.val();
        self.check.prog_host_addr.next = self.prog_host_addr.val();
        // StagCheck's two requesters (`docs/core.md`, "RxPath additions"): RxControl first;
        // the send engine's local check takes the cycles RxControl leaves free. StagCheck takes
        // a request every 2 cycles and a request cancels the one of the previous cycle
        // (`ddp/stag_check.rs`): a local check goes in a cycle after one without a request and
        // is taken from the send engine (`lchk_ready`) in the next cycle unless RxControl
        // (which has no ready) issues one then; a cancelled local check is tried again. The
        // answer comes STAG_CHECK_LATENCY cycles after the request went to StagCheck;
        // `lchk_own` remembers whose it is (a cancelled one has no answer).
        self.chk_prev.clock.next = self.clock.val();
        // Nor while RxControl is to read a response's host address after its response cycle
        // (`chk_hold`: StagCheck holds the address until its next response, RxControl keeps
        // no copy).
        self.lchk_go.next = self.lchk_valid.val()
            && !self.control.chk_valid.val()
            && !self.chk_prev.q.val()
            && !self.control.chk_hold.val();
        self.chk_prev.d.next = self.control.chk_valid.val() || self.lchk_go.val();
        self.lchk_ready.next = self.lchk_own[0].q.val() && !self.control.chk_valid.val();
        self.lchk_own[0].clock.next = self.clock.val();
        self.lchk_own[1].clock.next = self.clock.val();
        self.lchk_own[2].clock.next = self.clock.val();
        self.lchk_own[3].clock.next = self.clock.val();
        self.lchk_own[4].clock.next = self.clock.val();
        self.lchk_own[0].d.next = self.lchk_go.val();
        self.lchk_own[1].d.next = self.lchk_own[0].q.val();
        self.lchk_own[2].d.next = self.lchk_own[1].q.val();
        self.lchk_own[3].d.next = self.lchk_own[2].q.val();
        self.lchk_own[4].d.next = self.lchk_own[3].q.val();
        self.check.chk_valid.next = self.control.chk_valid.val() || self.lchk_go.val();
        self.check.chk_tag.next = self.control.chk_tag.val();
        if self.control.chk_valid.val() {
            self.check.chk_stag.next = self.control.chk_stag.val();
            self.check.chk_to.next = self.control.chk_to.val();
            self.check.chk_len.next = self.control.chk_len.val();
            self.check.chk_pd.next = self.control.chk_pd.val();
            self.check.chk_qp.next = self.control.chk_qp.val();
            self.check.chk_access.next = self.control.chk_access.val();
            self.check.chk_invalidate.next = self.control.chk_invalidate.val();
        } else {
            self.check.chk_stag.next = self.lchk_stag.val();
            self.check.chk_to.next = self.lchk_to.val();
            self.check.chk_len.next = self.lchk_len.val();
            self.check.chk_pd.next = self.lchk_pd.val();
            self.check.chk_qp.next = self.lchk_qp.val();
            self.check.chk_access.next = self.lchk_access.val();
            self.check.chk_invalidate.next = false;
        }
        self.control.rsp_valid.next = self.check.rsp_valid.val() && !self.lchk_own[4].q.val();
        self.control.rsp_tag.next = self.check.rsp_tag.val();
        self.control.rsp_status.next = self.check.rsp_status.val();
        self.control.rsp_host_addr.next = self.check.rsp_host_addr.val();
        self.lrsp_valid.next = self.check.rsp_valid.val() && self.lchk_own[4].q.val();
        self.lrsp_status.next = self.check.rsp_status.val();
        self.lrsp_host_addr.next = self.check.rsp_host_addr.val();

        // RxControl ↔ RxPlace (verdicts, segment ends).
        self.placer.vd_valid.next = self.control.vd_valid.val();
        self.placer.vd_conn.next = self.control.vd_conn.val();
        self.placer.vd_place.next = self.control.vd_place.val();
        self.placer.vd_addr.next = self.control.vd_addr.val();
        self.placer.vd_a10.next = self.control.vd_a10.val();
        self.placer.vd_a20.next = self.control.vd_a20.val();
        self.control.vd_ready.next = self.placer.vd_ready.val();
        self.control.done_valid.next = self.placer.done_valid.val();
        self.control.done_conn.next = self.placer.done_conn.val();
        self.control.done_good.next = self.placer.done_good.val();
        self.placer.done_ready.next = self.control.done_ready.val();

        // RxPlace → DMA.
        self.dma_wr_addr.next = self.placer.dma_wr_addr.val();
        self.dma_wr_data.next = self.placer.dma_wr_data.val();
        self.dma_wr_keep.next = self.placer.dma_wr_keep.val();
        self.dma_wr_last.next = self.placer.dma_wr_last.val();
        self.dma_wr_valid.next = self.placer.dma_wr_valid.val();
        self.placer.dma_wr_ready.next = self.dma_wr_ready.val();

        // RxControl: QP configuration, LLP errors, queues, events.
        self.control.qp_cfg_write.next = self.qp_cfg_write.val();
        self.control.qp_cfg_qp.next = self.qp_cfg_qp.val();
        self.control.qp_cfg_enable.next = self.qp_cfg_enable.val();
        self.control.qp_cfg_pd.next = self.qp_cfg_pd.val();
        self.control.qp_cfg_ird.next = self.qp_cfg_ird.val();
        self.control.llp_err_valid.next = self.mpa.err_valid.val();
        self.control.llp_err_conn.next = self.mpa.err_conn.val();
        self.control.llp_err_code.next = self.mpa.err_code.val();

        self.rq_req_valid.next = self.control.rq_req_valid.val();
        self.rq_req_qp.next = self.control.rq_req_qp.val();
        self.rq_req_pop.next = self.control.rq_req_pop.val();
        self.control.rq_req_ready.next = self.rq_req_ready.val();
        self.control.rq_rsp_valid.next = self.rq_rsp_valid.val();
        self.control.rq_rsp_present.next = self.rq_rsp_present.val();
        self.control.rq_rsp_to.next = self.rq_rsp_to.val();
        self.control.rq_rsp_len_n.next = self.rq_rsp_len_n.val();
        self.control.rq_rsp_lkey.next = self.rq_rsp_lkey.val();
        self.control.rq_rsp_index.next = self.rq_rsp_index.val();

        self.control.orq_push.next = self.orq_push.val();
        self.control.orq_push_qp.next = self.orq_push_qp.val();
        self.control.irq_done.next = self.irq_done.val();
        self.control.irq_done_qp.next = self.irq_done_qp.val();

        self.irq_valid.next = self.control.irq_valid.val();
        self.irq_qp.next = self.control.irq_qp.val();
        self.irq_word.next = self.control.irq_word.val();
        self.control.irq_ready.next = self.irq_ready.val();

        self.cqe_valid.next = self.control.cqe_valid.val();
        self.cqe_qp.next = self.control.cqe_qp.val();
        self.cqe_opcode.next = self.control.cqe_opcode.val();
        self.cqe_status.next = self.control.cqe_status.val();
        self.cqe_byte_len.next = self.control.cqe_byte_len.val();
        self.cqe_index.next = self.control.cqe_index.val();
        self.cqe_inv_stag.next = self.control.cqe_inv_stag.val();
        self.cqe_with_inv.next = self.control.cqe_with_inv.val();
        self.cqe_solicited.next = self.control.cqe_solicited.val();
        self.control.cqe_ready.next = self.cqe_ready.val();

        self.aev_valid.next = self.control.aev_valid.val();
        self.aev_qp.next = self.control.aev_qp.val();
        self.aev_kind.next = self.control.aev_kind.val();
        self.aev_layer.next = self.control.aev_layer.val();
        self.aev_etype.next = self.control.aev_etype.val();
        self.aev_code.next = self.control.aev_code.val();
        self.control.aev_ready.next = self.aev_ready.val();

        // RxControl → TerminateTx → tx_*.
        self.term.term_valid.next = self.control.term_valid.val();
        self.term.term_conn.next = self.control.term_conn.val();
        self.term.term_slot.next = self.control.term_slot.val();
        self.term.term_layer.next = self.control.term_layer.val();
        self.term.term_etype.next = self.control.term_etype.val();
        self.term.term_code.next = self.control.term_code.val();
        self.term.term_m.next = self.control.term_m.val();
        self.term.term_d.next = self.control.term_d.val();
        self.term.term_r.next = self.control.term_r.val();
        self.term.term_seglen.next = self.control.term_seglen.val();
        self.control.term_ready.next = self.term.term_ready.val();
        self.control.term_done.next = self.term.term_done.val();
        self.control.term_done_conn.next = self.term.term_done_conn.val();
        self.control.term_done_slot.next = self.term.term_done_slot.val();
        self.tx_data.next = self.term.tx_data.val();
        self.tx_keep.next = self.term.tx_keep.val();
        self.tx_last.next = self.term.tx_last.val();
        self.tx_valid.next = self.term.tx_valid.val();
        self.tx_conn.next = self.term.tx_conn.val();
        self.tx_len.next = self.term.tx_len.val();
        self.term.tx_ready.next = self.tx_ready.val();

        // Drained indication. Registered from this cycle's block states and the LLP beat taken
        // now (whose word reaches a register only at this edge), so a 1 means that nothing was
        // in flight at the previous edge and nothing entered since.
        self.idle_q.clock.next = self.clock.val();
        self.idle_q.d.next = self.mpa.idle.val()
            && self.parse.idle.val()
            && self.control.idle.val()
            && self.term.term_ready.val()
            && !self.term.tx_valid.val()
            && !self.placer.dma_wr_valid.val()
            && !self.placer.done_valid.val()
            && !(self.llp_valid.val() && self.mpa.llp_ready.val());
        self.rx_idle.next = self.idle_q.q.val();

        // A good FPDU's last ULPDU beat taken by DdpRxParse.
        self.fpdu_good_q.clock.next = self.clock.val();
        self.fpdu_conn_q.clock.next = self.clock.val();
        self.fpdu_good_q.d.next = self.mpa.ulpdu_valid.val()
            && self.parse.ulpdu_ready.val()
            && self.mpa.ulpdu_last.val()
            && self.mpa.ulpdu_good.val();
        self.fpdu_conn_q.d.next = self.mpa.ulpdu_conn.val();
        self.fpdu_good_valid.next = self.fpdu_good_q.q.val();
        self.fpdu_good_conn.next = self.fpdu_conn_q.q.val();
    }
}

// The tag width is part of the RxControl / StagCheck contract; named here so a change of it
// shows in the top.
const _: () = assert!(STAG_CHECK_LATENCY == 5, "lchk_own is wired for 5 stages");
const _: () = assert!(CHK_TAG_BITS >= 2 && HDR_ADDR_BITS == CONN_BITS + 1 + HDR_WORD_BITS);

crate::sim_ports!(impl[] RxPath {
    inputs: llp_data, llp_keep, llp_last, llp_valid, llp_conn, mpa_cfg_write, mpa_cfg_conn,
        mpa_cfg_fpdu_mode, mpa_cfg_markers, mpa_cfg_crc, mpa_cfg_max_ulpdu, raw_ready, qp_cfg_write,
        qp_cfg_qp, qp_cfg_enable, qp_cfg_pd, qp_cfg_ird, prog_write, prog_index, prog_valid,
        prog_key, prog_pd, prog_access, prog_qp_bound, prog_qp, prog_remote_inv, prog_base_to,
        prog_len, prog_host_addr, dma_wr_ready, rq_req_ready, rq_rsp_valid, rq_rsp_present,
        rq_rsp_to, rq_rsp_len_n, rq_rsp_lkey, rq_rsp_index, orq_push, orq_push_qp, irq_done,
        irq_done_qp, irq_ready, cqe_ready, aev_ready, tx_ready, lchk_valid, lchk_stag, lchk_to,
        lchk_len, lchk_pd, lchk_qp, lchk_access;
    outputs: llp_ready, raw_data, raw_keep, raw_last, raw_valid, raw_conn, dma_wr_addr, dma_wr_data,
        dma_wr_keep, dma_wr_last, dma_wr_valid, rq_req_valid, rq_req_qp, rq_req_pop, irq_valid,
        irq_qp, irq_word, cqe_valid, cqe_qp, cqe_opcode, cqe_status, cqe_byte_len, cqe_index,
        cqe_inv_stag, cqe_with_inv, cqe_solicited, aev_valid, aev_qp, aev_kind, aev_layer,
        aev_etype, aev_code, tx_data, tx_keep, tx_last, tx_valid, tx_conn, tx_len, rx_idle,
        fpdu_good_valid, fpdu_good_conn, lchk_ready, lrsp_valid, lrsp_status, lrsp_host_addr;
});
