//! `Rnic`: the whole core (issue 5). Contract: `docs/core.md` (block diagram, port lists);
//! register map and descriptors: `rnic_proto::host`.
//!
//! ```text
//!  MMIO ─► HostIf ──qpc_* ─► RxPath (qp_cfg_*, mpa_cfg_*), TxPath (SendEngine, DdpTx, MpaTx)
//!            │ prog_* ─► RxPath        sq_db_* ─► TxPath             rq_* ◄─► RxPath
//!            │ ◄─ cqe_* / aev_* RxPath (CqeQueue)  rdc_* / qp_err_* ─► TxPath ◄─ scqe_*
//!            └ DMA arbiter: sq_rd_*, pay_rd_* (TxPath), place_wr_* (RxPath)
//!  RxPath ─irq_*, lrsp_*, Terminates (tx_*)─► TxPath ─lchk_*, orq_push─► RxPath
//!  raw_tx_* ─► TxPath ─► llp_tx_*;  llp_rx_* ─► RxPath ─► raw_rx_*
//! ```
//!
//! TxPath (`rdmap/tx_path.rs`): SendEngine, ReadResponder, TxArbiter, DdpTx, UlpduMux, MpaTx;
//! RxPath (`rdmap/rx_path.rs`): MpaRx, DdpRxParse, StagCheck, RxControl, RxPlace, TerminateTx.
//! The top only wires: every block owns its registers. One QP per LLP connection (QP n is
//! connection n, `docs/decisions.md`). `tx_idle` (HostIf's STATUS bit) is TxPath's.

use crate::config::{CONN_BITS, DMA_ADDR_BITS, DMA_LEN_BITS, DMA_TAG_BITS};
use crate::host::host_if::HostIf;
use crate::rdmap::rx_path::RxPath;
use crate::rdmap::tx_path::TxPath;
use crate::top::cqe_queue::CqeQueue;
use rnic_proto::host::regs::MMIO_ADDR_BITS;
use rust_hdl::prelude::*;

/// The core: LLP, raw (firmware), MMIO and DMA ports (`docs/core.md`, "The core's ports").

#[derive(LogicBlock, Default)]
pub struct Rnic {
    pub clock: Signal<In, Clock>,
    // LLP RX.
    pub llp_rx_data: Signal<In, Bits<32>>,
    pub llp_rx_keep: Signal<In, Bits<4>>,
    pub llp_rx_last: Signal<In, Bit>,
    pub llp_rx_valid: Signal<In, Bit>,
    pub llp_rx_conn: Signal<In, Bits<CONN_BITS>>,
    pub llp_rx_ready: Signal<Out, Bit>,
    // LLP TX.
    pub llp_tx_data: Signal<Out, Bits<32>>,
    pub llp_tx_keep: Signal<Out, Bits<4>>,
    pub llp_tx_last: Signal<Out, Bit>,
    pub llp_tx_valid: Signal<Out, Bit>,
    pub llp_tx_conn: Signal<Out, Bits<CONN_BITS>>,
    pub llp_tx_ready: Signal<In, Bit>,
    // Raw MPA bytes received (to the firmware).
    pub raw_rx_data: Signal<Out, Bits<32>>,
    pub raw_rx_keep: Signal<Out, Bits<4>>,
    pub raw_rx_last: Signal<Out, Bit>,
    pub raw_rx_valid: Signal<Out, Bit>,
    pub raw_rx_conn: Signal<Out, Bits<CONN_BITS>>,
    pub raw_rx_ready: Signal<In, Bit>,
    // Raw MPA bytes to send (from the firmware).
    pub raw_tx_data: Signal<In, Bits<32>>,
    pub raw_tx_keep: Signal<In, Bits<4>>,
    pub raw_tx_last: Signal<In, Bit>,
    pub raw_tx_valid: Signal<In, Bit>,
    pub raw_tx_conn: Signal<In, Bits<CONN_BITS>>,
    pub raw_tx_ready: Signal<Out, Bit>,
    // MMIO.
    pub mmio_valid: Signal<In, Bit>,
    pub mmio_write: Signal<In, Bit>,
    pub mmio_addr: Signal<In, Bits<MMIO_ADDR_BITS>>,
    pub mmio_wdata: Signal<In, Bits<32>>,
    /// The access is taken in this cycle (`docs/core.md` "MMIO": the master holds it until).
    pub mmio_ready: Signal<Out, Bit>,
    pub mmio_rvalid: Signal<Out, Bit>,
    pub mmio_rdata: Signal<Out, Bits<32>>,
    // DMA read.
    pub dma_rd_req_valid: Signal<Out, Bit>,
    pub dma_rd_req_addr: Signal<Out, Bits<32>>,
    pub dma_rd_req_len: Signal<Out, Bits<DMA_LEN_BITS>>,
    pub dma_rd_req_tag: Signal<Out, Bits<DMA_TAG_BITS>>,
    pub dma_rd_req_ready: Signal<In, Bit>,
    pub dma_rd_cpl_valid: Signal<In, Bit>,
    pub dma_rd_cpl_tag: Signal<In, Bits<DMA_TAG_BITS>>,
    pub dma_rd_cpl_data: Signal<In, Bits<32>>,
    pub dma_rd_cpl_keep: Signal<In, Bits<4>>,
    pub dma_rd_cpl_last: Signal<In, Bit>,
    // DMA write.
    pub dma_wr_valid: Signal<Out, Bit>,
    pub dma_wr_addr: Signal<Out, Bits<32>>,
    pub dma_wr_data: Signal<Out, Bits<32>>,
    pub dma_wr_keep: Signal<Out, Bits<4>>,
    pub dma_wr_last: Signal<Out, Bit>,
    pub dma_wr_ready: Signal<In, Bit>,
    pub dma_wr_done: Signal<In, Bit>,

    host: HostIf,
    rx: RxPath,
    tx: TxPath,
    cq: CqeQueue,
}

impl Logic for Rnic {
    #[hdl_gen]
    fn update(&mut self) {
        self.host.clock.next = self.clock.val();
        self.rx.clock.next = self.clock.val();
        self.tx.clock.next = self.clock.val();

        // MMIO and the STATUS inputs.
        self.host.mmio_valid.next = self.mmio_valid.val();
        self.host.mmio_write.next = self.mmio_write.val();
        self.host.mmio_addr.next = self.mmio_addr.val();
        self.host.mmio_wdata.next = self.mmio_wdata.val();
        self.mmio_ready.next = self.host.mmio_ready.val();
        self.mmio_rvalid.next = self.host.mmio_rvalid.val();
        self.mmio_rdata.next = self.host.mmio_rdata.val();
        self.host.rx_idle.next = self.rx.rx_idle.val() && self.cq.idle.val();
        self.host.fpdu_good_valid.next = self.rx.fpdu_good_valid.val();
        self.host.fpdu_good_conn.next = self.rx.fpdu_good_conn.val();
        self.host.tx_idle.next = self.tx.tx_idle.val();

        // The QP context commit, to every block that keeps per-QP state.
        self.rx.qp_cfg_write.next = self.host.qpc_write.val();
        self.rx.qp_cfg_qp.next = self.host.qpc_qp.val();
        self.rx.qp_cfg_enable.next = self.host.qpc_enable.val();
        self.rx.qp_cfg_pd.next = self.host.qpc_pd.val();
        self.rx.qp_cfg_ird.next = self.host.qpc_ird.val();
        self.rx.mpa_cfg_write.next = self.host.qpc_write.val();
        self.rx.mpa_cfg_conn.next = self.host.qpc_qp.val();
        self.rx.mpa_cfg_fpdu_mode.next = self.host.qpc_fpdu_mode.val();
        self.rx.mpa_cfg_markers.next = self.host.qpc_rx_markers.val();
        self.rx.mpa_cfg_crc.next = self.host.qpc_rx_crc.val();
        self.rx.mpa_cfg_max_ulpdu.next = self.host.qpc_rx_max_ulpdu.val();
        self.tx.qpc_write.next = self.host.qpc_write.val();
        self.tx.qpc_qp.next = self.host.qpc_qp.val();
        self.tx.qpc_fpdu_mode.next = self.host.qpc_fpdu_mode.val();
        self.tx.qpc_tx_markers.next = self.host.qpc_tx_markers.val();
        self.tx.qpc_tx_crc.next = self.host.qpc_tx_crc.val();
        self.tx.qpc_tx_mulpdu.next = self.host.qpc_tx_mulpdu.val();
        self.tx.qpc_enable.next = self.host.qpc_enable.val();
        self.tx.qpc_pd.next = self.host.qpc_pd.val();
        self.tx.qpc_ord.next = self.host.qpc_ord.val();
        self.tx.qpc_sq_base.next = self.host.qpc_sq_base.val();
        self.tx.qpc_sq_log2.next = self.host.qpc_sq_log2.val();

        // STag programming.
        self.rx.prog_write.next = self.host.prog_write.val();
        self.rx.prog_index.next = self.host.prog_index.val();
        self.rx.prog_valid.next = self.host.prog_valid.val();
        self.rx.prog_key.next = self.host.prog_key.val();
        self.rx.prog_pd.next = self.host.prog_pd.val();
        self.rx.prog_access.next = self.host.prog_access.val();
        self.rx.prog_qp_bound.next = self.host.prog_qp_bound.val();
        self.rx.prog_qp.next = self.host.prog_qp.val();
        self.rx.prog_remote_inv.next = self.host.prog_remote_inv.val();
        self.rx.prog_base_to.next = self.host.prog_base_to.val();
        self.rx.prog_len.next = self.host.prog_len.val();
        self.rx.prog_host_addr.next = self.host.prog_host_addr.val();

        // SQ doorbells, QP errors, Read completions, send-side CQEs.
        self.tx.sq_db_valid.next = self.host.sq_db_valid.val();
        self.tx.sq_db_qp.next = self.host.sq_db_qp.val();
        self.tx.sq_db_pi.next = self.host.sq_db_pi.val();
        self.tx.qp_err_valid.next = self.host.qp_err_valid.val();
        self.tx.qp_err_qp.next = self.host.qp_err_qp.val();
        self.tx.rdc_valid.next = self.host.rdc_valid.val();
        self.tx.rdc_qp.next = self.host.rdc_qp.val();
        self.tx.rdc_status.next = self.host.rdc_status.val();
        self.host.rdc_ready.next = self.tx.rdc_ready.val();
        self.host.scqe_valid.next = self.tx.scqe_valid.val();
        self.host.scqe_qp.next = self.tx.scqe_qp.val();
        self.host.scqe_opcode.next = self.tx.scqe_opcode.val();
        self.host.scqe_status.next = self.tx.scqe_status.val();
        self.host.scqe_byte_len.next = self.tx.scqe_byte_len.val();
        self.host.scqe_index.next = self.tx.scqe_index.val();
        self.tx.scqe_ready.next = self.host.scqe_ready.val();

        // Receive WQEs, receive CQEs and asynchronous events.
        self.host.rq_req_valid.next = self.rx.rq_req_valid.val();
        self.host.rq_req_qp.next = self.rx.rq_req_qp.val();
        self.host.rq_req_pop.next = self.rx.rq_req_pop.val();
        self.rx.rq_req_ready.next = self.host.rq_req_ready.val();
        self.rx.rq_rsp_valid.next = self.host.rq_rsp_valid.val();
        self.rx.rq_rsp_present.next = self.host.rq_rsp_present.val();
        self.rx.rq_rsp_to.next = self.host.rq_rsp_to.val();
        self.rx.rq_rsp_len_n.next = self.host.rq_rsp_len_n.val();
        self.rx.rq_rsp_lkey.next = self.host.rq_rsp_lkey.val();
        self.rx.rq_rsp_index.next = self.host.rq_rsp_index.val();
        // Receive completions through the CqeQueue (`top/cqe_queue.rs`: RxControl never waits
        // for the DMA write port).
        self.cq.clock.next = self.clock.val();
        self.cq.in_valid.next = self.rx.cqe_valid.val();
        self.cq.in_qp.next = self.rx.cqe_qp.val();
        self.cq.in_opcode.next = self.rx.cqe_opcode.val();
        self.cq.in_status.next = self.rx.cqe_status.val();
        self.cq.in_byte_len.next = self.rx.cqe_byte_len.val();
        self.cq.in_index.next = self.rx.cqe_index.val();
        self.cq.in_inv_stag.next = self.rx.cqe_inv_stag.val();
        self.cq.in_with_inv.next = self.rx.cqe_with_inv.val();
        self.cq.in_solicited.next = self.rx.cqe_solicited.val();
        self.rx.cqe_ready.next = self.cq.in_ready.val();
        self.host.cqe_valid.next = self.cq.out_valid.val();
        self.host.cqe_qp.next = self.cq.out_qp.val();
        self.host.cqe_opcode.next = self.cq.out_opcode.val();
        self.host.cqe_status.next = self.cq.out_status.val();
        self.cq.out_go.next = self.host.cqe_go.val();
        self.host.cqe_beat_valid.next = self.cq.out_beat_valid.val();
        self.host.cqe_beat.next = self.cq.out_beat.val();
        self.cq.out_beat_ready.next = self.host.cqe_beat_ready.val();
        self.cq.out_ready.next = self.host.cqe_ready.val();
        self.host.aev_valid.next = self.rx.aev_valid.val();
        self.host.aev_qp.next = self.rx.aev_qp.val();
        self.host.aev_kind.next = self.rx.aev_kind.val();
        self.host.aev_layer.next = self.rx.aev_layer.val();
        self.host.aev_etype.next = self.rx.aev_etype.val();
        self.host.aev_code.next = self.rx.aev_code.val();
        self.rx.aev_ready.next = self.host.aev_ready.val();

        // DMA: the requesters into HostIf's arbiter, the arbiter to the core's port.
        self.host.sq_rd_req_valid.next = self.tx.sq_rd_req_valid.val();
        self.host.sq_rd_req_addr.next = self.tx.sq_rd_req_addr.val();
        self.host.sq_rd_req_len.next = self.tx.sq_rd_req_len.val();
        self.host.sq_rd_req_tag.next = self.tx.sq_rd_req_tag.val();
        self.tx.sq_rd_req_ready.next = self.host.sq_rd_req_ready.val();
        self.tx.sq_rd_cpl_valid.next = self.host.sq_rd_cpl_valid.val();
        self.tx.sq_rd_cpl_tag.next = self.host.sq_rd_cpl_tag.val();
        self.tx.sq_rd_cpl_data.next = self.host.sq_rd_cpl_data.val();
        self.tx.sq_rd_cpl_keep.next = self.host.sq_rd_cpl_keep.val();
        self.tx.sq_rd_cpl_last.next = self.host.sq_rd_cpl_last.val();
        self.host.pay_rd_req_valid.next = self.tx.pay_rd_req_valid.val();
        self.host.pay_rd_req_addr.next = self.tx.pay_rd_req_addr.val();
        self.host.pay_rd_req_len.next = self.tx.pay_rd_req_len.val();
        self.host.pay_rd_req_tag.next = self.tx.pay_rd_req_tag.val();
        self.tx.pay_rd_req_ready.next = self.host.pay_rd_req_ready.val();
        self.tx.pay_rd_cpl_valid.next = self.host.pay_rd_cpl_valid.val();
        self.tx.pay_rd_cpl_tag.next = self.host.pay_rd_cpl_tag.val();
        self.tx.pay_rd_cpl_data.next = self.host.pay_rd_cpl_data.val();
        self.tx.pay_rd_cpl_keep.next = self.host.pay_rd_cpl_keep.val();
        self.tx.pay_rd_cpl_last.next = self.host.pay_rd_cpl_last.val();
        self.host.place_wr_valid.next = self.rx.dma_wr_valid.val();
        self.host.place_wr_addr.next = self.rx.dma_wr_addr.val();
        self.host.place_wr_data.next = self.rx.dma_wr_data.val();
        self.host.place_wr_keep.next = self.rx.dma_wr_keep.val();
        self.host.place_wr_last.next = self.rx.dma_wr_last.val();
        self.rx.dma_wr_ready.next = self.host.place_wr_ready.val();
        self.dma_rd_req_valid.next = self.host.dma_rd_req_valid.val();
        self.dma_rd_req_addr.next = bit_cast::<32, DMA_ADDR_BITS>(self.host.dma_rd_req_addr.val());
        self.dma_rd_req_len.next = self.host.dma_rd_req_len.val();
        self.dma_rd_req_tag.next = self.host.dma_rd_req_tag.val();
        self.dma_wr_valid.next = self.host.dma_wr_valid.val();
        self.dma_wr_addr.next = bit_cast::<32, DMA_ADDR_BITS>(self.host.dma_wr_addr.val());
        self.dma_wr_data.next = self.host.dma_wr_data.val();
        self.dma_wr_keep.next = self.host.dma_wr_keep.val();
        self.dma_wr_last.next = self.host.dma_wr_last.val();
        self.host.dma_rd_req_ready.next = self.dma_rd_req_ready.val();
        self.host.dma_rd_cpl_valid.next = self.dma_rd_cpl_valid.val();
        self.host.dma_rd_cpl_tag.next = self.dma_rd_cpl_tag.val();
        self.host.dma_rd_cpl_data.next = self.dma_rd_cpl_data.val();
        self.host.dma_rd_cpl_keep.next = self.dma_rd_cpl_keep.val();
        self.host.dma_rd_cpl_last.next = self.dma_rd_cpl_last.val();
        self.host.dma_wr_ready.next = self.dma_wr_ready.val();
        self.host.dma_wr_done.next = self.dma_wr_done.val();

        // The send engine's local STag checks (RxPath's second StagCheck port), Reads out.
        self.rx.lchk_valid.next = self.tx.lchk_valid.val();
        self.rx.lchk_stag.next = self.tx.lchk_stag.val();
        self.rx.lchk_to.next = self.tx.lchk_to.val();
        self.rx.lchk_len.next = self.tx.lchk_len.val();
        self.rx.lchk_pd.next = self.tx.lchk_pd.val();
        self.rx.lchk_qp.next = self.tx.lchk_qp.val();
        self.rx.lchk_access.next = self.tx.lchk_access.val();
        self.rx.orq_push.next = self.tx.orq_push.val();
        self.rx.orq_push_qp.next = self.tx.orq_push_qp.val();
        self.tx.lchk_ready.next = self.rx.lchk_ready.val();
        self.tx.lrsp_valid.next = self.rx.lrsp_valid.val();
        self.tx.lrsp_status.next = self.rx.lrsp_status.val();
        self.tx.lrsp_host_addr.next = self.rx.lrsp_host_addr.val();

        // Queued Read Requests to the ReadResponder.
        self.tx.irq_valid.next = self.rx.irq_valid.val();
        self.tx.irq_qp.next = self.rx.irq_qp.val();
        self.tx.irq_word.next = self.rx.irq_word.val();
        self.rx.irq_ready.next = self.tx.irq_ready.val();
        self.rx.irq_done.next = self.tx.irq_done.val();
        self.rx.irq_done_qp.next = self.tx.irq_done_qp.val();

        // RxPath's Terminates into the transmit path (its UlpduMux).
        self.tx.term_data.next = self.rx.tx_data.val();
        self.tx.term_keep.next = self.rx.tx_keep.val();
        self.tx.term_last.next = self.rx.tx_last.val();
        self.tx.term_valid.next = self.rx.tx_valid.val();
        self.tx.term_conn.next = self.rx.tx_conn.val();
        self.tx.term_len.next = self.rx.tx_len.val();
        self.rx.tx_ready.next = self.tx.term_ready.val();

        // LLP and raw ports.
        self.tx.raw_data.next = self.raw_tx_data.val();
        self.tx.raw_keep.next = self.raw_tx_keep.val();
        self.tx.raw_last.next = self.raw_tx_last.val();
        self.tx.raw_valid.next = self.raw_tx_valid.val();
        self.tx.raw_conn.next = self.raw_tx_conn.val();
        self.raw_tx_ready.next = self.tx.raw_ready.val();
        self.llp_tx_data.next = self.tx.llp_data.val();
        self.llp_tx_keep.next = self.tx.llp_keep.val();
        self.llp_tx_last.next = self.tx.llp_last.val();
        self.llp_tx_valid.next = self.tx.llp_valid.val();
        self.llp_tx_conn.next = self.tx.llp_conn.val();
        self.tx.llp_ready.next = self.llp_tx_ready.val();
        self.rx.llp_data.next = self.llp_rx_data.val();
        self.rx.llp_keep.next = self.llp_rx_keep.val();
        self.rx.llp_last.next = self.llp_rx_last.val();
        self.rx.llp_valid.next = self.llp_rx_valid.val();
        self.rx.llp_conn.next = self.llp_rx_conn.val();
        self.llp_rx_ready.next = self.rx.llp_ready.val();
        self.raw_rx_data.next = self.rx.raw_data.val();
        self.raw_rx_keep.next = self.rx.raw_keep.val();
        self.raw_rx_last.next = self.rx.raw_last.val();
        self.raw_rx_valid.next = self.rx.raw_valid.val();
        self.raw_rx_conn.next = self.rx.raw_conn.val();
        self.rx.raw_ready.next = self.raw_rx_ready.val();
    }
}

crate::sim_ports!(impl[] Rnic {
    inputs: llp_rx_data, llp_rx_keep, llp_rx_last, llp_rx_valid, llp_rx_conn, llp_tx_ready,
        raw_rx_ready, raw_tx_data, raw_tx_keep, raw_tx_last, raw_tx_valid, raw_tx_conn,
        mmio_valid, mmio_write, mmio_addr, mmio_wdata, dma_rd_req_ready, dma_rd_cpl_valid,
        dma_rd_cpl_tag, dma_rd_cpl_data, dma_rd_cpl_keep, dma_rd_cpl_last, dma_wr_ready,
        dma_wr_done;
    outputs: llp_rx_ready, llp_tx_data, llp_tx_keep, llp_tx_last, llp_tx_valid, llp_tx_conn,
        raw_rx_data, raw_rx_keep, raw_rx_last, raw_rx_valid, raw_rx_conn, raw_tx_ready,
        mmio_ready, mmio_rvalid, mmio_rdata, dma_rd_req_valid, dma_rd_req_addr, dma_rd_req_len,
        dma_rd_req_tag, dma_wr_valid, dma_wr_addr, dma_wr_data, dma_wr_keep, dma_wr_last;
});
