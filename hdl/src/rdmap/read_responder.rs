//! ReadResponder (`docs/core.md`, "ReadResponder"): turns the Read Requests RxPath queued
//! (`irq_*`, pushed by RxControl once the request passed rows 18-20 and its segment was done)
//! into Read Response message jobs (`rr_msg_*`, to the TxArbiter and DdpTx), and reports each
//! finished response back to RxControl (`irq_done irq_done_qp`), which then frees one of the
//! QP's IRD credits (`rfc5040-rdmap.md` §2, "Read Request": IRD counts requests until their
//! response is sent).
//!
//! # Behaviour
//!
//! - A request becomes one message job: opcode 2 (RDMA Read Response), connection `irq_qp`,
//!   STag / TO the request's Data Sink STag / TO (`irq_sink_stag`, `irq_sink_to`), payload
//!   `irq_size` octets from host address `irq_src_addr` (RxControl already checked the Data
//!   Source STag for REMOTE_READ and translated SrcSTag / SrcTO, row 20); `inv_stag`, `src_to`,
//!   `msn` 0 (a tagged message has no MSN). A size of 0 is a message of length 0: one
//!   Read Response segment without payload (`rfc5040-rdmap.md` §2, zero-length Read).
//!   `irq_src_stag` / `irq_src_to` are not needed (kept on the port list of the contract).
//! - **Order** (`rfc5040-rdmap.md` §3, rule 20: Read Responses in the order of their Read
//!   Requests): requests arrive in order, each becomes one job in arrival order, the arbiter
//!   and DdpTx keep whole messages in order. `irq_done` strobes therefore come in request
//!   order too.
//! - **A queue of [`IRQ_DEPTH`] requests** (a FIFO in block RAM, 162 bits an entry): the
//!   receive path must never wait for the transmit side. A Read Response can take as long as
//!   the peer needs to drain its receive side, and the peer may be waiting for this core's
//!   receive side (two RNICs, or the two QPs of one core in loopback, each sending a long
//!   Read Response): if RxControl waited in its Emit state for `irq_ready` until DdpTx took
//!   the response, which DdpTx does at its end, neither receive side would move again. With
//!   the queue, `irq_ready` is 1 whenever the queue has room, and RxControl's IRD credits
//!   (rows 19, `irq_done`) bound the requests queued: the sum of the IRDs of the QPs must not
//!   exceed [`IRQ_DEPTH`] (the driver limits IRD to [`IRD_MAX`] per QP, `docs/decisions.md`).
//! - **Dones.** Each taken response's QP goes into a FIFO of [`RR_INFLIGHT`] entries; at
//!   `rr_msg_done` (routed by the arbiter, in message order) the head is popped and
//!   `irq_done` strobes in the same cycle with `irq_done_qp` = that QP. A done in the cycle of
//!   its own handshake (FIFO empty) names the QP of the request queue's head. With the FIFO
//!   full no job is offered.
//! - `idle`: no request queued, no response taken and not yet done.
//!
//! # Timing
//!
//! `rr_msg_*` come from the request FIFO's output (registered RAM read), `irq_ready` from
//! its `full` flag. Latency: a request is offered two cycles after it was taken.
//!
//! # Other responders (where they plug in)
//!
//! RFC 7306 atomic responses (QN 3) and Flush / Verify responses (draft-talpey-rdma-commit)
//! are responders of the same shape with their own request queues from RxControl: each gets
//! its own port on the TxArbiter (the third input documented there) rather than sharing this
//! block, because their responses are ordered by their own rules (atomic responses in the
//! order of atomic requests; a Flush response only after the placements before it are
//! persistent, `dma_wr_done`), and an untagged response carries its own MSN of QN 3. If one
//! ordering across Read and atomic responses is wanted instead (RFC 7306 §8 orders them as
//! messages of one stream of the responder), this block's FIFO gets a kind bit per entry and
//! its input becomes a mux of the request queues in arrival order.

use crate::config::{CONN_BITS, DMA_ADDR_BITS};
use rnic_proto::rdmap::Opcode;
use rust_hdl::prelude::*;

/// Read Responses taken by the arbiter and not yet done that this block can remember.
pub const RR_INFLIGHT: usize = 4;
/// Bits of a request queue address.
pub const IRQ_ADDR_BITS: usize = 4;
/// Read Requests the queue holds: the sum of the QPs' IRDs must not exceed it.
pub const IRQ_DEPTH: usize = 1 << IRQ_ADDR_BITS;
/// The largest IRD a QP may have ([`IRQ_DEPTH`] shared by every QP).
pub const IRD_MAX: usize = IRQ_DEPTH / crate::config::QPS;
/// Bits of a queued request: QP, sink STag, sink TO, size, source host address.
const IRQ_BITS: usize = CONN_BITS + 32 + 64 + 32 + DMA_ADDR_BITS;
/// Where each field sits in a queued request (LSB first).
const F_STAG: usize = CONN_BITS;
const F_TO: usize = F_STAG + 32;
const F_SIZE: usize = F_TO + 64;
const F_ADDR: usize = F_SIZE + 32;
// The generated Verilog needs literal bit positions: `update` reads the fields at 0 (QP, 2
// bits), 2, 34, 98 and 130 (32 bits of address).
const _: () = assert!(
    CONN_BITS == 2
        && F_STAG == 2
        && F_TO == 34
        && F_SIZE == 98
        && F_ADDR == 130
        && DMA_ADDR_BITS == 32
        && F_ADDR + DMA_ADDR_BITS == IRQ_BITS
);
/// Bits of a QP FIFO pointer.
const PTR_BITS: usize = 2;
/// Bits of the QP FIFO count (0..=RR_INFLIGHT).
const CNT_BITS: usize = 3;
// The count is full when its top bit (2) is set.
const _: () = assert!(RR_INFLIGHT == 1 << (CNT_BITS - 1) && RR_INFLIGHT == 1 << PTR_BITS);

/// The Read Response generator.
#[derive(LogicBlock)]
pub struct ReadResponder {
    pub clock: Signal<In, Clock>,
    // RxPath's queued Read Requests.
    pub irq_valid: Signal<In, Bit>,
    pub irq_ready: Signal<Out, Bit>,
    pub irq_qp: Signal<In, Bits<CONN_BITS>>,
    pub irq_sink_stag: Signal<In, Bits<32>>,
    pub irq_sink_to: Signal<In, Bits<64>>,
    pub irq_size: Signal<In, Bits<32>>,
    pub irq_src_stag: Signal<In, Bits<32>>,
    pub irq_src_to: Signal<In, Bits<64>>,
    pub irq_src_addr: Signal<In, Bits<DMA_ADDR_BITS>>,
    // Read Response jobs to the TxArbiter.
    pub rr_msg_valid: Signal<Out, Bit>,
    pub rr_msg_ready: Signal<In, Bit>,
    pub rr_msg_conn: Signal<Out, Bits<CONN_BITS>>,
    pub rr_msg_opcode: Signal<Out, Bits<4>>,
    pub rr_msg_stag: Signal<Out, Bits<32>>,
    pub rr_msg_to: Signal<Out, Bits<64>>,
    pub rr_msg_inv_stag: Signal<Out, Bits<32>>,
    pub rr_msg_src_to: Signal<Out, Bits<64>>,
    pub rr_msg_msn: Signal<Out, Bits<32>>,
    pub rr_msg_addr: Signal<Out, Bits<DMA_ADDR_BITS>>,
    pub rr_msg_len: Signal<Out, Bits<32>>,
    pub rr_msg_done: Signal<In, Bit>,
    // To RxControl: one Read Request answered.
    pub irq_done: Signal<Out, Bit>,
    pub irq_done_qp: Signal<Out, Bits<CONN_BITS>>,
    /// No response taken and not yet done.
    pub idle: Signal<Out, Bit>,

    /// The request queue.
    irq: SynchronousFIFO<Bits<IRQ_BITS>, IRQ_ADDR_BITS, { IRQ_ADDR_BITS + 1 }, 1>,
    head: Signal<Local, Bits<IRQ_BITS>>,
    /// QP FIFO: the QP of each response taken and not yet done.
    qps: [DFF<Bits<CONN_BITS>>; RR_INFLIGHT],
    q_wr: DFF<Bits<PTR_BITS>>,
    q_rd: DFF<Bits<PTR_BITS>>,
    q_cnt: DFF<Bits<CNT_BITS>>,
    full: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    op_rresp: Constant<Bits<4>>,
    // Field positions in a queued request, as shift amounts.
    sh_stag: Constant<Bits<8>>,
    sh_to: Constant<Bits<8>>,
    sh_size: Constant<Bits<8>>,
    sh_addr: Constant<Bits<8>>,
}

impl Default for ReadResponder {
    fn default() -> Self {
        ReadResponder {
            clock: Default::default(),
            irq_valid: Default::default(),
            irq_ready: Default::default(),
            irq_qp: Default::default(),
            irq_sink_stag: Default::default(),
            irq_sink_to: Default::default(),
            irq_size: Default::default(),
            irq_src_stag: Default::default(),
            irq_src_to: Default::default(),
            irq_src_addr: Default::default(),
            rr_msg_valid: Default::default(),
            rr_msg_ready: Default::default(),
            rr_msg_conn: Default::default(),
            rr_msg_opcode: Default::default(),
            rr_msg_stag: Default::default(),
            rr_msg_to: Default::default(),
            rr_msg_inv_stag: Default::default(),
            rr_msg_src_to: Default::default(),
            rr_msg_msn: Default::default(),
            rr_msg_addr: Default::default(),
            rr_msg_len: Default::default(),
            rr_msg_done: Default::default(),
            irq_done: Default::default(),
            irq_done_qp: Default::default(),
            idle: Default::default(),
            irq: Default::default(),
            head: Default::default(),
            qps: Default::default(),
            q_wr: Default::default(),
            q_rd: Default::default(),
            q_cnt: Default::default(),
            full: Default::default(),
            take: Default::default(),
            op_rresp: Constant::new(u64::from(Opcode::RdmaReadResponse as u8).into()),
            sh_stag: Constant::new((F_STAG as u64).into()),
            sh_to: Constant::new((F_TO as u64).into()),
            sh_size: Constant::new((F_SIZE as u64).into()),
            sh_addr: Constant::new((F_ADDR as u64).into()),
        }
    }
}

impl Logic for ReadResponder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, q_wr, q_rd, q_cnt);
        self.irq.clock.next = self.clock.val();
        for i in 0..RR_INFLIGHT {
            self.qps[i].clock.next = self.clock.val();
            self.qps[i].d.next = self.qps[i].q.val();
        }
        // Requests into the queue.
        self.irq_ready.next = !self.irq.full.val();
        self.irq.write.next = self.irq_valid.val() && !self.irq.full.val();
        self.irq.data_in.next = bit_cast::<IRQ_BITS, CONN_BITS>(self.irq_qp.val())
            | (bit_cast::<IRQ_BITS, 32>(self.irq_sink_stag.val()) << self.sh_stag.val())
            | (bit_cast::<IRQ_BITS, 64>(self.irq_sink_to.val()) << self.sh_to.val())
            | (bit_cast::<IRQ_BITS, 32>(self.irq_size.val()) << self.sh_size.val())
            | (bit_cast::<IRQ_BITS, DMA_ADDR_BITS>(self.irq_src_addr.val()) << self.sh_addr.val());
        // The head of the queue as a message job.
        self.head.next = self.irq.data_out.val();
        self.full.next = self.q_cnt.q.val().get_bit(2);
        self.rr_msg_valid.next = !self.irq.empty.val() && !self.full.val();
        self.rr_msg_conn.next = self.head.val().get_bits::<2>(0);
        self.rr_msg_opcode.next = self.op_rresp.val();
        self.rr_msg_stag.next = self.head.val().get_bits::<32>(2);
        self.rr_msg_to.next = self.head.val().get_bits::<64>(34);
        self.rr_msg_inv_stag.next = 0.into();
        self.rr_msg_src_to.next = 0.into();
        self.rr_msg_msn.next = 0.into();
        self.rr_msg_addr.next = self.head.val().get_bits::<32>(130);
        self.rr_msg_len.next = self.head.val().get_bits::<32>(98);
        self.take.next = self.rr_msg_valid.val() && self.rr_msg_ready.val();
        self.irq.read.next = self.take.val();
        if self.take.val() {
            self.q_wr.d.next = self.q_wr.q.val() + 1;
            for i in 0..RR_INFLIGHT {
                if self.q_wr.q.val().index() == i {
                    self.qps[i].d.next = self.head.val().get_bits::<2>(0);
                }
            }
        }
        self.irq_done.next = self.rr_msg_done.val();
        self.irq_done_qp.next = self.head.val().get_bits::<2>(0);
        for i in 0..RR_INFLIGHT {
            if (self.q_cnt.q.val() != 0) && (self.q_rd.q.val().index() == i) {
                self.irq_done_qp.next = self.qps[i].q.val();
            }
        }
        if self.rr_msg_done.val() {
            self.q_rd.d.next = self.q_rd.q.val() + 1;
        }
        if self.take.val() && !self.rr_msg_done.val() {
            self.q_cnt.d.next = self.q_cnt.q.val() + 1;
        } else if !self.take.val() && self.rr_msg_done.val() {
            self.q_cnt.d.next = self.q_cnt.q.val() - 1;
        }
        self.idle.next = (self.q_cnt.q.val() == 0) && self.irq.empty.val();
    }
}

crate::sim_ports!(impl[] ReadResponder {
    inputs: irq_valid, irq_qp, irq_sink_stag, irq_sink_to, irq_size, irq_src_stag, irq_src_to,
        irq_src_addr, rr_msg_ready, rr_msg_done;
    outputs: irq_ready, rr_msg_valid, rr_msg_conn, rr_msg_opcode, rr_msg_stag, rr_msg_to,
        rr_msg_inv_stag, rr_msg_src_to, rr_msg_msn, rr_msg_addr, rr_msg_len, irq_done,
        irq_done_qp, idle;
});
