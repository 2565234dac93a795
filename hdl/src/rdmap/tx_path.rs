//! The transmit path of the core: doorbells and queued Read Requests in, the LLP TX byte
//! stream out. The blocks and their contracts: [`crate::rdmap`], [`crate::ddp::tx`],
//! [`crate::mpa::mpa_tx`]; `docs/core.md` ("The message job", "TxArbiter", "DdpTx").
//!
//! ```text
//!  sq_db_*, qpc_* ─► SendEngine ─se_msg_*─► TxArbiter ◄─rr_msg_*─ ReadResponder ◄─ irq_*
//!    sq_rd_* ◄──────┘ │ lchk_* / lrsp_*        │ msg_*, nxt_*
//!    scqe_*, rdc_* ◄──┘ orq_push               ▼
//!                                  DdpTx ─ulpdu_*─► UlpduMux ◄─ term_* (RxPath's Terminates)
//!    pay_rd_* ◄──────────────────────┘                 │
//!                                  raw_* ─► MpaTx ◄────┘ ─► llp_*
//! ```
//!
//! The top only wires (every block owns its own registers), but for `tx_idle`: the AND of the
//! blocks' `idle` outputs and no beat waiting in MpaTx's output register (HostIf's STATUS
//! bit). The mirror of [`crate::rdmap::rx_path::RxPath`]; it exists as a block of its own so
//! that the transmit side can be synthesized composed (`rnic synth --block tx_path`): the
//! paths between its blocks (the TxArbiter is combinational from the sources' registers into
//! DdpTx) show only there, as the receive path's did in `rx_path`.

use crate::config::{
    CONN_BITS, DMA_ADDR_BITS, DMA_LEN_BITS, DMA_SUB_TAG_BITS, PD_BITS, RING_INDEX_BITS,
    RING_LOG2_BITS,
};
use crate::ddp::tx::DdpTx;
use crate::mpa::mpa_tx::MpaTx;
use crate::rdmap::read_responder::ReadResponder;
use crate::rdmap::send_engine::SendEngine;
use crate::rdmap::tx_arbiter::TxArbiter;
use crate::top::ulpdu_mux::UlpduMux;
use rust_hdl::prelude::*;

/// The transmit path top. Ports: those of its blocks that leave it, under the same names
/// (`llp_*` / `raw_*` are MpaTx's, `term_*` UlpduMux's).
#[derive(LogicBlock, Default)]
pub struct TxPath {
    pub clock: Signal<In, Clock>,
    // The QP context commit (HostIf's qpc_*).
    pub qpc_write: Signal<In, Bit>,
    pub qpc_qp: Signal<In, Bits<CONN_BITS>>,
    pub qpc_enable: Signal<In, Bit>,
    pub qpc_pd: Signal<In, Bits<PD_BITS>>,
    pub qpc_ord: Signal<In, Bits<4>>,
    pub qpc_sq_base: Signal<In, Bits<32>>,
    pub qpc_sq_log2: Signal<In, Bits<RING_LOG2_BITS>>,
    pub qpc_tx_mulpdu: Signal<In, Bits<16>>,
    pub qpc_fpdu_mode: Signal<In, Bit>,
    pub qpc_tx_markers: Signal<In, Bit>,
    pub qpc_tx_crc: Signal<In, Bit>,
    // SQ doorbells, QP errors, Read completions, send-side CQEs.
    pub sq_db_valid: Signal<In, Bit>,
    pub sq_db_qp: Signal<In, Bits<CONN_BITS>>,
    pub sq_db_pi: Signal<In, Bits<RING_INDEX_BITS>>,
    pub qp_err_valid: Signal<In, Bit>,
    pub qp_err_qp: Signal<In, Bits<CONN_BITS>>,
    pub rdc_valid: Signal<In, Bit>,
    pub rdc_qp: Signal<In, Bits<CONN_BITS>>,
    pub rdc_status: Signal<In, Bits<8>>,
    pub rdc_ready: Signal<Out, Bit>,
    pub scqe_valid: Signal<Out, Bit>,
    pub scqe_qp: Signal<Out, Bits<CONN_BITS>>,
    pub scqe_opcode: Signal<Out, Bits<8>>,
    pub scqe_status: Signal<Out, Bits<8>>,
    pub scqe_byte_len: Signal<Out, Bits<32>>,
    pub scqe_index: Signal<Out, Bits<16>>,
    pub scqe_ready: Signal<In, Bit>,
    // DMA reads: the SendEngine's WQEs, DdpTx's payload (HostIf's arbiter ports).
    pub sq_rd_req_valid: Signal<Out, Bit>,
    pub sq_rd_req_addr: Signal<Out, Bits<DMA_ADDR_BITS>>,
    pub sq_rd_req_len: Signal<Out, Bits<16>>,
    pub sq_rd_req_tag: Signal<Out, Bits<DMA_SUB_TAG_BITS>>,
    pub sq_rd_req_ready: Signal<In, Bit>,
    pub sq_rd_cpl_valid: Signal<In, Bit>,
    pub sq_rd_cpl_tag: Signal<In, Bits<DMA_SUB_TAG_BITS>>,
    pub sq_rd_cpl_data: Signal<In, Bits<32>>,
    pub sq_rd_cpl_keep: Signal<In, Bits<4>>,
    pub sq_rd_cpl_last: Signal<In, Bit>,
    pub pay_rd_req_valid: Signal<Out, Bit>,
    pub pay_rd_req_addr: Signal<Out, Bits<DMA_ADDR_BITS>>,
    pub pay_rd_req_len: Signal<Out, Bits<DMA_LEN_BITS>>,
    pub pay_rd_req_tag: Signal<Out, Bits<DMA_SUB_TAG_BITS>>,
    pub pay_rd_req_ready: Signal<In, Bit>,
    pub pay_rd_cpl_valid: Signal<In, Bit>,
    pub pay_rd_cpl_tag: Signal<In, Bits<DMA_SUB_TAG_BITS>>,
    pub pay_rd_cpl_data: Signal<In, Bits<32>>,
    pub pay_rd_cpl_keep: Signal<In, Bits<4>>,
    pub pay_rd_cpl_last: Signal<In, Bit>,
    // The SendEngine's local STag checks (RxPath's second StagCheck port), Reads out.
    pub lchk_valid: Signal<Out, Bit>,
    pub lchk_stag: Signal<Out, Bits<32>>,
    pub lchk_to: Signal<Out, Bits<64>>,
    pub lchk_len: Signal<Out, Bits<32>>,
    pub lchk_pd: Signal<Out, Bits<PD_BITS>>,
    pub lchk_qp: Signal<Out, Bits<CONN_BITS>>,
    pub lchk_access: Signal<Out, Bits<4>>,
    pub lchk_ready: Signal<In, Bit>,
    pub lrsp_valid: Signal<In, Bit>,
    pub lrsp_status: Signal<In, Bits<3>>,
    pub lrsp_host_addr: Signal<In, Bits<DMA_ADDR_BITS>>,
    pub orq_push: Signal<Out, Bit>,
    pub orq_push_qp: Signal<Out, Bits<CONN_BITS>>,
    // Queued Read Requests from RxPath (the ReadResponder's irq_*).
    pub irq_valid: Signal<In, Bit>,
    pub irq_ready: Signal<Out, Bit>,
    pub irq_qp: Signal<In, Bits<CONN_BITS>>,
    pub irq_word: Signal<In, Bits<32>>,
    pub irq_done: Signal<Out, Bit>,
    pub irq_done_qp: Signal<Out, Bits<CONN_BITS>>,
    // RxPath's Terminates (UlpduMux's term_*).
    pub term_data: Signal<In, Bits<32>>,
    pub term_keep: Signal<In, Bits<4>>,
    pub term_last: Signal<In, Bit>,
    pub term_valid: Signal<In, Bit>,
    pub term_ready: Signal<Out, Bit>,
    pub term_conn: Signal<In, Bits<CONN_BITS>>,
    pub term_len: Signal<In, Bits<16>>,
    // Raw-mode bytes from the firmware, and the LLP TX stream (MpaTx's).
    pub raw_data: Signal<In, Bits<32>>,
    pub raw_keep: Signal<In, Bits<4>>,
    pub raw_last: Signal<In, Bit>,
    pub raw_valid: Signal<In, Bit>,
    pub raw_ready: Signal<Out, Bit>,
    pub raw_conn: Signal<In, Bits<CONN_BITS>>,
    pub llp_data: Signal<Out, Bits<32>>,
    pub llp_keep: Signal<Out, Bits<4>>,
    pub llp_last: Signal<Out, Bit>,
    pub llp_valid: Signal<Out, Bit>,
    pub llp_ready: Signal<In, Bit>,
    pub llp_conn: Signal<Out, Bits<CONN_BITS>>,
    /// Nothing in flight on the transmit side (HostIf's STATUS `TX_IDLE`).
    pub tx_idle: Signal<Out, Bit>,

    se: SendEngine,
    rr: ReadResponder,
    arb: TxArbiter,
    ddp: DdpTx,
    mux: UlpduMux,
    mpa: MpaTx,
}

impl Logic for TxPath {
    #[hdl_gen]
    fn update(&mut self) {
        self.se.clock.next = self.clock.val();
        self.rr.clock.next = self.clock.val();
        self.arb.clock.next = self.clock.val();
        self.ddp.clock.next = self.clock.val();
        self.mux.clock.next = self.clock.val();
        self.mpa.clock.next = self.clock.val();
        self.tx_idle.next = self.se.idle.val()
            && self.rr.idle.val()
            && self.arb.idle.val()
            && self.ddp.idle.val()
            && self.mux.idle.val()
            && !self.mpa.llp_valid.val();

        // The QP context commit.
        self.mpa.cfg_write.next = self.qpc_write.val();
        self.mpa.cfg_conn.next = self.qpc_qp.val();
        self.mpa.cfg_fpdu_mode.next = self.qpc_fpdu_mode.val();
        self.mpa.cfg_markers.next = self.qpc_tx_markers.val();
        self.mpa.cfg_crc.next = self.qpc_tx_crc.val();
        self.ddp.qpc_write.next = self.qpc_write.val();
        self.ddp.qpc_qp.next = self.qpc_qp.val();
        self.ddp.qpc_tx_mulpdu.next = self.qpc_tx_mulpdu.val();
        self.se.qpc_write.next = self.qpc_write.val();
        self.se.qpc_qp.next = self.qpc_qp.val();
        self.se.qpc_enable.next = self.qpc_enable.val();
        self.se.qpc_pd.next = self.qpc_pd.val();
        self.se.qpc_ord.next = self.qpc_ord.val();
        self.se.qpc_sq_base.next = self.qpc_sq_base.val();
        self.se.qpc_sq_log2.next = self.qpc_sq_log2.val();

        // SQ doorbells, QP errors, Read completions, send-side CQEs.
        self.se.sq_db_valid.next = self.sq_db_valid.val();
        self.se.sq_db_qp.next = self.sq_db_qp.val();
        self.se.sq_db_pi.next = self.sq_db_pi.val();
        self.se.qp_err_valid.next = self.qp_err_valid.val();
        self.se.qp_err_qp.next = self.qp_err_qp.val();
        self.se.rdc_valid.next = self.rdc_valid.val();
        self.se.rdc_qp.next = self.rdc_qp.val();
        self.se.rdc_status.next = self.rdc_status.val();
        self.rdc_ready.next = self.se.rdc_ready.val();
        self.scqe_valid.next = self.se.scqe_valid.val();
        self.scqe_qp.next = self.se.scqe_qp.val();
        self.scqe_opcode.next = self.se.scqe_opcode.val();
        self.scqe_status.next = self.se.scqe_status.val();
        self.scqe_byte_len.next = self.se.scqe_byte_len.val();
        self.scqe_index.next = self.se.scqe_index.val();
        self.se.scqe_ready.next = self.scqe_ready.val();

        // DMA reads.
        self.sq_rd_req_valid.next = self.se.sq_rd_req_valid.val();
        self.sq_rd_req_addr.next = self.se.sq_rd_req_addr.val();
        self.sq_rd_req_len.next = self.se.sq_rd_req_len.val();
        self.sq_rd_req_tag.next = self.se.sq_rd_req_tag.val();
        self.se.sq_rd_req_ready.next = self.sq_rd_req_ready.val();
        self.se.sq_rd_cpl_valid.next = self.sq_rd_cpl_valid.val();
        self.se.sq_rd_cpl_tag.next = self.sq_rd_cpl_tag.val();
        self.se.sq_rd_cpl_data.next = self.sq_rd_cpl_data.val();
        self.se.sq_rd_cpl_keep.next = self.sq_rd_cpl_keep.val();
        self.se.sq_rd_cpl_last.next = self.sq_rd_cpl_last.val();
        self.pay_rd_req_valid.next = self.ddp.pay_rd_req_valid.val();
        self.pay_rd_req_addr.next = self.ddp.pay_rd_req_addr.val();
        self.pay_rd_req_len.next = self.ddp.pay_rd_req_len.val();
        self.pay_rd_req_tag.next = self.ddp.pay_rd_req_tag.val();
        self.ddp.pay_rd_req_ready.next = self.pay_rd_req_ready.val();
        self.ddp.pay_rd_cpl_valid.next = self.pay_rd_cpl_valid.val();
        self.ddp.pay_rd_cpl_tag.next = self.pay_rd_cpl_tag.val();
        self.ddp.pay_rd_cpl_data.next = self.pay_rd_cpl_data.val();
        self.ddp.pay_rd_cpl_keep.next = self.pay_rd_cpl_keep.val();
        self.ddp.pay_rd_cpl_last.next = self.pay_rd_cpl_last.val();

        // Local STag checks and the ORQ.
        self.lchk_valid.next = self.se.lchk_valid.val();
        self.lchk_stag.next = self.se.lchk_stag.val();
        self.lchk_to.next = self.se.lchk_to.val();
        self.lchk_len.next = self.se.lchk_len.val();
        self.lchk_pd.next = self.se.lchk_pd.val();
        self.lchk_qp.next = self.se.lchk_qp.val();
        self.lchk_access.next = self.se.lchk_access.val();
        self.se.lchk_ready.next = self.lchk_ready.val();
        self.se.lrsp_valid.next = self.lrsp_valid.val();
        self.se.lrsp_status.next = self.lrsp_status.val();
        self.se.lrsp_host_addr.next = self.lrsp_host_addr.val();
        self.orq_push.next = self.se.orq_push.val();
        self.orq_push_qp.next = self.se.orq_push_qp.val();

        // Messages: SendEngine and ReadResponder into the TxArbiter, the TxArbiter into DdpTx.
        self.arb.se_msg_valid.next = self.se.msg_valid.val();
        self.arb.se_msg_conn.next = self.se.msg_conn.val();
        self.arb.se_msg_opcode.next = self.se.msg_opcode.val();
        self.arb.se_msg_stag.next = self.se.msg_stag.val();
        self.arb.se_msg_to.next = self.se.msg_to.val();
        self.arb.se_msg_inv_stag.next = self.se.msg_inv_stag.val();
        self.arb.se_msg_src_to.next = self.se.msg_src_to.val();
        self.arb.se_msg_msn.next = self.se.msg_msn.val();
        self.arb.se_msg_addr.next = self.se.msg_addr.val();
        self.arb.se_msg_len.next = self.se.msg_len.val();
        self.se.msg_ready.next = self.arb.se_msg_ready.val();
        self.se.msg_done.next = self.arb.se_msg_done.val();
        self.rr.irq_valid.next = self.irq_valid.val();
        self.rr.irq_qp.next = self.irq_qp.val();
        self.rr.irq_word.next = self.irq_word.val();
        self.irq_ready.next = self.rr.irq_ready.val();
        self.irq_done.next = self.rr.irq_done.val();
        self.irq_done_qp.next = self.rr.irq_done_qp.val();
        self.arb.rr_msg_valid.next = self.rr.rr_msg_valid.val();
        self.arb.rr_msg_conn.next = self.rr.rr_msg_conn.val();
        self.arb.rr_msg_opcode.next = self.rr.rr_msg_opcode.val();
        self.arb.rr_msg_stag.next = self.rr.rr_msg_stag.val();
        self.arb.rr_msg_to.next = self.rr.rr_msg_to.val();
        self.rr.rr_msg_first.next = self.arb.rr_msg_first.val();
        self.rr.rr_msg_pick.next = self.arb.rr_msg_pick.val();
        self.arb.rr_msg_addr.next = self.rr.rr_msg_addr.val();
        self.arb.rr_msg_len.next = self.rr.rr_msg_len.val();
        self.rr.rr_msg_ready.next = self.arb.rr_msg_ready.val();
        self.rr.rr_msg_done.next = self.arb.rr_msg_done.val();
        self.ddp.msg_valid.next = self.arb.msg_valid.val();
        self.ddp.msg_conn.next = self.arb.msg_conn.val();
        self.ddp.msg_opcode.next = self.arb.msg_opcode.val();
        self.ddp.msg_stag.next = self.arb.msg_stag.val();
        self.ddp.msg_to.next = self.arb.msg_to.val();
        self.ddp.msg_inv_stag.next = self.arb.msg_inv_stag.val();
        self.ddp.msg_src_to.next = self.arb.msg_src_to.val();
        self.ddp.msg_msn.next = self.arb.msg_msn.val();
        self.ddp.msg_addr.next = self.arb.msg_addr.val();
        self.ddp.msg_len.next = self.arb.msg_len.val();
        self.arb.msg_ready.next = self.ddp.msg_ready.val();
        self.arb.msg_done.next = self.ddp.msg_done.val();
        // Take strobes and read-ahead hints (`docs/core.md` "DdpTx", "Read-ahead").
        self.arb.msg_take.next = self.ddp.msg_take.val();
        self.se.msg_take.next = self.arb.se_msg_take.val();
        self.se.msg_pick.next = self.arb.se_msg_pick.val();
        self.se.msg_first.next = self.arb.se_msg_first.val();
        self.arb.se_nxt_valid.next = self.se.nxt_valid.val();
        self.arb.se_nxt_len.next = self.se.nxt_len.val();
        self.rr.rr_msg_take.next = self.arb.rr_msg_take.val();
        self.arb.rr_nxt_valid.next = self.rr.rr_nxt_valid.val();
        self.arb.rr_nxt_len.next = self.rr.rr_nxt_len.val();
        self.ddp.nxt_valid.next = self.arb.nxt_valid.val();
        self.ddp.nxt_addr.next = self.arb.nxt_addr.val();
        self.ddp.nxt_len.next = self.arb.nxt_len.val();
        self.ddp.nxt_shown.next = self.arb.nxt_shown.val();

        // ULPDUs: DdpTx's segments and RxPath's Terminates into MpaTx.
        self.mux.ddp_data.next = self.ddp.ulpdu_data.val();
        self.mux.ddp_keep.next = self.ddp.ulpdu_keep.val();
        self.mux.ddp_last.next = self.ddp.ulpdu_last.val();
        self.mux.ddp_valid.next = self.ddp.ulpdu_valid.val();
        self.mux.ddp_conn.next = self.ddp.ulpdu_conn.val();
        self.mux.ddp_len.next = self.ddp.ulpdu_len.val();
        self.ddp.ulpdu_ready.next = self.mux.ddp_ready.val();
        self.mux.term_data.next = self.term_data.val();
        self.mux.term_keep.next = self.term_keep.val();
        self.mux.term_last.next = self.term_last.val();
        self.mux.term_valid.next = self.term_valid.val();
        self.mux.term_conn.next = self.term_conn.val();
        self.mux.term_len.next = self.term_len.val();
        self.term_ready.next = self.mux.term_ready.val();
        self.mpa.ulpdu_data.next = self.mux.ulpdu_data.val();
        self.mpa.ulpdu_keep.next = self.mux.ulpdu_keep.val();
        self.mpa.ulpdu_last.next = self.mux.ulpdu_last.val();
        self.mpa.ulpdu_valid.next = self.mux.ulpdu_valid.val();
        self.mpa.ulpdu_conn.next = self.mux.ulpdu_conn.val();
        self.mpa.ulpdu_len.next = self.mux.ulpdu_len.val();
        self.mux.ulpdu_ready.next = self.mpa.ulpdu_ready.val();

        // Raw bytes in, the LLP stream out.
        self.mpa.raw_data.next = self.raw_data.val();
        self.mpa.raw_keep.next = self.raw_keep.val();
        self.mpa.raw_last.next = self.raw_last.val();
        self.mpa.raw_valid.next = self.raw_valid.val();
        self.mpa.raw_conn.next = self.raw_conn.val();
        self.raw_ready.next = self.mpa.raw_ready.val();
        self.llp_data.next = self.mpa.llp_data.val();
        self.llp_keep.next = self.mpa.llp_keep.val();
        self.llp_last.next = self.mpa.llp_last.val();
        self.llp_valid.next = self.mpa.llp_valid.val();
        self.llp_conn.next = self.mpa.llp_conn.val();
        self.mpa.llp_ready.next = self.llp_ready.val();
    }
}
