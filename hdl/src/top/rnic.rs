//! `Rnic`: the whole core (issue 5). Contract: `docs/core.md`.
//!
//! STUB: the port list is final; the wiring of the blocks lands with them (outputs are 0 until
//! then).

use crate::config::{CONN_BITS, DMA_LEN_BITS, DMA_TAG_BITS};
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

    hold: DFF<Bit>,
}

impl Logic for Rnic {
    #[hdl_gen]
    fn update(&mut self) {
        self.hold.clock.next = self.clock.val();
        self.hold.d.next = self.hold.q.val();
        self.llp_rx_ready.next = false;
        self.llp_tx_data.next = 0.into();
        self.llp_tx_keep.next = 0.into();
        self.llp_tx_last.next = false;
        self.llp_tx_valid.next = false;
        self.llp_tx_conn.next = 0.into();
        self.raw_rx_data.next = 0.into();
        self.raw_rx_keep.next = 0.into();
        self.raw_rx_last.next = false;
        self.raw_rx_valid.next = false;
        self.raw_rx_conn.next = 0.into();
        self.raw_tx_ready.next = false;
        self.mmio_rvalid.next = false;
        self.mmio_rdata.next = 0.into();
        self.dma_rd_req_valid.next = false;
        self.dma_rd_req_addr.next = 0.into();
        self.dma_rd_req_len.next = 0.into();
        self.dma_rd_req_tag.next = 0.into();
        self.dma_wr_valid.next = false;
        self.dma_wr_addr.next = 0.into();
        self.dma_wr_data.next = 0.into();
        self.dma_wr_keep.next = 0.into();
        self.dma_wr_last.next = false;
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
        mmio_rvalid, mmio_rdata, dma_rd_req_valid, dma_rd_req_addr, dma_rd_req_len,
        dma_rd_req_tag, dma_wr_valid, dma_wr_addr, dma_wr_data, dma_wr_keep, dma_wr_last;
});
