//! ReadResponder (`docs/core.md`, "ReadResponder"): turns the Read Requests RxPath queued
//! (`irq_*`, pushed by RxControl once the request passed rows 18-20 and its segment was done)
//! into Read Response message jobs (`rr_msg_*`, to the TxArbiter and DdpTx), and reports each
//! finished response back to RxControl (`irq_done irq_done_qp`), which then frees one of the
//! QP's IRD credits (`rfc5040-rdmap.md` §2, "Read Request": IRD counts requests until their
//! response is sent).
//!
//! # Behaviour
//!
//! - A request comes as five 32-bit words on `irq_word`, one per `irq_valid` strobe (gaps
//!   allowed, no back-pressure): source address, Data Sink STag, Data Sink TO high, low,
//!   size; `irq_qp` with the first word. It becomes one message job: opcode 2 (RDMA Read
//!   Response), connection `irq_qp`, STag / TO the Data Sink STag / TO, payload `size` octets
//!   from the source address (RxControl already checked the Data Source STag for REMOTE_READ
//!   and translated SrcSTag / SrcTO, row 20, so they do not cross); `inv_stag`, `src_to`, `msn`
//!   0 (a tagged message has no MSN). A size of 0 is a message of length 0: one Read Response
//!   segment without payload (`rfc5040-rdmap.md` §2, zero-length Read).
//! - **Order** (`rfc5040-rdmap.md` §3, rule 20: Read Responses in the order of their Read
//!   Requests): requests arrive in order, each becomes one job in arrival order, the arbiter
//!   and DdpTx keep whole messages in order. `irq_done` strobes therefore come in request
//!   order too.
//! - **A queue of [`IRQ_DEPTH`] requests** (in block RAM, [`IRQ_WORDS`] words of 32 bits an
//!   entry): the receive path must never wait for the transmit side. A Read Response can take
//!   as long as the peer needs to drain its receive side, and the peer may be waiting for this
//!   core's receive side (two RNICs, or the two QPs of one core in loopback, each sending a
//!   long Read Response): if RxControl waited in its Emit state for `irq_ready` until DdpTx
//!   took the response, which DdpTx does at its end, neither receive side would move again.
//!   With the queue, `irq_ready` (a level) is 1 whenever the queue has room and no request is
//!   being written, never waiting for the transmit side, and RxControl's IRD credits (rows 19,
//!   `irq_done`) bound the requests queued: the sum of the IRDs of the QPs must not exceed
//!   [`IRQ_DEPTH`] (the driver limits IRD to [`IRD_MAX`] per QP, `docs/decisions.md`). A
//!   request counts in the queue from its commit (the cycle after its fifth word) until its
//!   job is taken on `rr_msg_*`.
//! - **Dones.** Each taken response's QP goes into a FIFO of [`RR_INFLIGHT`] entries; at
//!   `rr_msg_done` (routed by the arbiter, in message order) the head is popped and
//!   `irq_done` strobes in the same cycle with `irq_done_qp` = that QP. A done in the cycle of
//!   its own handshake (FIFO empty) names the QP of the request queue's head. With the FIFO
//!   full no job is offered.
//! - `idle`: no request queued, no response taken and not yet done.
//! - **Read-ahead hint** (`rr_nxt_*`, `docs/core.md` "The message job"): once DdpTx took the
//!   response being sent (`rr_msg_take`: `rr_msg_addr` / `rr_msg_len` / `rr_msg_to[31:0]` are
//!   not read any more; `rd_ptr` moves to the next entry) and a further request is queued, its
//!   size and QP are read from the queue into `o_len` / `h_conn` (words 4 and 5, 3 cycles;
//!   the read port is free while a job is in the output register), and the port rests on its
//!   source address (word 0): the hint (`h_st` = 4), up until that request's job is taken
//!   (Read Responses go in request order: it is always the next job). DdpTx reads its payload
//!   meanwhile, so the next response does not wait for a DMA latency. Only a size below
//!   64 KiB is hinted (`rr_nxt_len` is 16 bits). At the handshake of the job shown the hinted
//!   request is offered in the next cycle (its size and QP are read: no load steps).
//!   The hinted region starts at `rr_msg_addr` (the RAM's read register, on the next
//!   request's word 0 while the hint is up, except from the cycle that job is shown to the
//!   cycle after its take, when the port reads its other words and the TxArbiter holds the
//!   hint it copied): the TxArbiter takes the hint's address from there, so there is no
//!   `rr_nxt_addr`.
//!
//! # Timing
//!
//! The queue is one 32-bit block RAM (two iCE40 BRAMs of 256 x 16) of [`IRQ_DEPTH`] entries of
//! 8 words, [`IRQ_WORDS`] of them used: source address, sink STag, sink TO high, sink TO low,
//! size, QP. A 162-bit-wide FIFO would take 11 BRAMs (a W-bit RAM costs ceil(W/16) of them
//! whatever its depth) for one BRAM's worth of bits.
//!
//! - **Write.** Each `irq_valid` writes `irq_word` as the entry's next word (words 0-4; the
//!   QP is latched with word 0) and the cycle after word 4 writes the QP as word 5: the
//!   commit. RxControl sends a request's first word only after it saw `irq_ready` (room, no
//!   request being written, so 0 from the first word to the commit cycle), and only a commit
//!   fills the queue, so the room lasts. RxControl reads the words from the slot's header RAM
//!   one a cycle into a single register, so the request is never held 162 bits wide, and this
//!   block has no multiplexer of six 32-bit inputs before its RAM (`docs/decisions.md`,
//!   "RxControl -> ReadResponder as words"). Read Requests come at most one per 14-beat FPDU,
//!   so the cycles cost nothing.
//! - **Read.** When the output register is empty and a request is queued, its size and QP
//!   are read (steps `rword` 0, 1: words 4, 5) into the output register (34 flip-flops, loaded
//!   with enables); `rr_msg_valid` rises the cycle after the last word arrived. The source
//!   address and the Data Sink STag and TO have no register (160 flip-flops less, each was
//!   alone in a logic cell: D straight from the RAM): they are the RAM's read register, each
//!   in the cycle it is read (`docs/core.md` "The message job"). The TxArbiter copies the
//!   address in the cycle it chooses the job (`rr_msg_pick`, T-1, into its `msg_addr`
//!   register); DdpTx takes a message up in the first cycle it is shown (T; the TxArbiter
//!   strobes `rr_msg_first` then) and reads the TO's low half at T (into `to_lo`), the STag at
//!   T+1 (into its copy `m_stag`) and the TO's high half at T+2 (loaded into its `to_hi`
//!   counter). So the read port rests on word 0 of the head entry (`rd_ptr`, which moves on at
//!   `rr_msg_take`), reads word 3 at T-1 (`rr_msg_pick`), word 1 at T (`rr_msg_first`) and
//!   word 2 at T+1 (`f1`). `rr_msg_take` comes at T+1 at the soonest, so the hint's reads
//!   (from the cycle after it, on the next entry) do not collide. `rr_msg_len` stays stable until `rr_msg_take`.
//! - Latency: a request is offered 4 cycles after its last word (queue empty, output register
//!   free); the next job 4 cycles after the previous one was taken, or in the cycle after its
//!   handshake when it was hinted. A Read Response is at least one segment on the link, so
//!   this never limits the link.
//! - Standalone on the HX8K (`rnic synth --board alchitry-cu --block read_responder`): 149
//!   logic cells (93 LUT4, 73 flip-flops, 13 carries), 2 block RAMs, 155.7 MHz (180 cells,
//!   89 / 107, 144.4 MHz with the source address in the output register and 4 load steps;
//!   183 cells, 90 / 109, 151.3 MHz with 6 load steps; 247 cells, 91 / 172, 142.3 MHz with
//!   the STag and TO high half in the output register; 280 cells, 95 / 204, 149.0 MHz with the whole TO there); earlier 295
//!   logic cells (104 LUT4, 208 flip-flops, 17 carries), 2 block RAMs, 136.8 MHz; 452 cells
//!   (233 LUT4) when the request came 162 bits wide and a 6-to-1 multiplexer of 32-bit inputs
//!   chose the word to write.

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

use crate::config::{CONN_BITS, DMA_ADDR_BITS, LOCAL_LEN_BITS};
use crate::ram::BlockRam;
use rnic_proto::rdmap::Opcode;
use rust_hdl::prelude::*;

/// Read Responses taken by the arbiter and not yet done that this block can remember.
pub const RR_INFLIGHT: usize = 4;
/// Bits of a request queue entry number.
pub const IRQ_ADDR_BITS: usize = 4;
/// Read Requests the queue holds: the sum of the QPs' IRDs must not exceed it.
pub const IRQ_DEPTH: usize = 1 << IRQ_ADDR_BITS;
/// The largest IRD a QP may have ([`IRQ_DEPTH`] shared by every QP).
pub const IRD_MAX: usize = IRQ_DEPTH / crate::config::QPS;
/// 32-bit words of a queued request (source address, sink STag, sink TO high and low, size,
/// QP). Two of them are read into the output register (`STEP_BITS`).
pub const IRQ_WORDS: usize = 6;
/// Bits of a word's number within an entry (entries are 8 words apart in the RAM).
const WORD_BITS: usize = 3;
/// Bits of a load step (`rword`: 2 steps read words 4, 5; the port rests on word 0, the
/// source address; the sink TO, STag, words 3, 1, 2, are read only while the job is picked
/// and taken up).
const STEP_BITS: usize = 1;
/// Bits of a queue RAM address: entry, word.
const MEM_BITS: usize = IRQ_ADDR_BITS + WORD_BITS;
/// Bits of the queue count (0..=IRQ_DEPTH).
const QCNT_BITS: usize = IRQ_ADDR_BITS + 1;
// The generated Verilog needs literal numbers: `update` takes the last word as 5, the entry
// number shifted by 3, the full queue as count bit 4, the address as 32 (the QP, `CONN_BITS`
// wide, sits in the low bits of the last word).
const _: () = assert!(
    IRQ_WORDS == 6
        && IRQ_WORDS <= 1 << WORD_BITS
        && WORD_BITS == 3
        && QCNT_BITS == 5
        && CONN_BITS <= 32
        && DMA_ADDR_BITS <= 32
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
    /// One word of the request a cycle (`irq_valid`): source address, sink STag, sink TO
    /// high, sink TO low, size.
    pub irq_word: Signal<In, Bits<32>>,
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
    /// DdpTx read `rr_msg_addr` / `rr_msg_len` for the last time (through the TxArbiter).
    pub rr_msg_take: Signal<In, Bit>,
    /// The job is shown for the first cycle: DdpTx takes it up now (`taking`, cycle T) and
    /// reads `rr_msg_to[31:0]` now, `rr_msg_stag` at T+1, `rr_msg_to[63:32]` at T+2.
    pub rr_msg_first: Signal<In, Bit>,
    /// The TxArbiter shows this block's job from the next cycle on (its `rr_msg_addr` is
    /// read now): the port reads the TO's low half for the first cycle shown.
    pub rr_msg_pick: Signal<In, Bit>,
    /// Read-ahead hint: the next queued request's payload.
    pub rr_nxt_valid: Signal<Out, Bit>,
    pub rr_nxt_len: Signal<Out, Bits<16>>,
    // To RxControl: one Read Request answered.
    pub irq_done: Signal<Out, Bit>,
    pub irq_done_qp: Signal<Out, Bits<CONN_BITS>>,
    /// No response taken and not yet done.
    pub idle: Signal<Out, Bit>,

    /// The request queue: entry `e` word `w` at address `8 e + w`.
    /// Block RAM without read-during-write logic: a read names a queued entry, never the
    /// one being written.
    mem: BlockRam<32, MEM_BITS>,
    /// Next entry to write, its next word.
    wr_ptr: DFF<Bits<IRQ_ADDR_BITS>>,
    wword: DFF<Bits<WORD_BITS>>,
    /// The QP of the request being written (taken with its first word), word 5.
    w_qp: DFF<Bits<CONN_BITS>>,
    /// Requests queued (handshake done, job not yet taken).
    qcnt: DFF<Bits<QCNT_BITS>>,
    room: Signal<Local, Bit>,
    wen: Signal<Local, Bit>,
    /// The request's QP written (the cycle after its fifth word): it counts as queued.
    commit: Signal<Local, Bit>,
    /// The head entry (being read into the output register, or shown: it moves on at
    /// `rr_msg_take`), the read step next (`rword` 0, 1 read words 4, 5; the port rests on
    /// word 0, the source address).
    rd_ptr: DFF<Bits<IRQ_ADDR_BITS>>,
    rword: DFF<Bits<STEP_BITS>>,
    /// Reading words (after the first).
    fetch: DFF<Bit>,
    go: Signal<Local, Bit>,
    /// A word arrives from the RAM this cycle, and its read step.
    lat: DFF<Bit>,
    lword: DFF<Bits<STEP_BITS>>,
    /// The output register: the head request's size and QP.
    o_v: DFF<Bit>,
    o_conn: DFF<Bits<CONN_BITS>>,
    /// `rr_msg_first` of the last cycle: the port reads the TO's high half.
    f1: DFF<Bit>,
    /// The Read's size, its low [`LOCAL_LEN_BITS`]: a queued Read passed its StagCheck, which
    /// answers BOUNDS for a size of `1 << LOCAL_LEN_BITS` or more.
    o_len: DFF<Bits<LOCAL_LEN_BITS>>,
    /// The hinted request's QP (word 5, read by the hint): the next job's `o_conn`.
    h_conn: DFF<Bits<CONN_BITS>>,
    /// QP FIFO: the QP of each response taken and not yet done.
    qps: [DFF<Bits<CONN_BITS>>; RR_INFLIGHT],
    q_wr: DFF<Bits<PTR_BITS>>,
    q_rd: DFF<Bits<PTR_BITS>>,
    q_cnt: DFF<Bits<CNT_BITS>>,
    full: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    op_rresp: Constant<Bits<4>>,
    /// DdpTx took the job in the output register: its `o_len` is free.
    tk: DFF<Bit>,
    /// Hint: 0 none, 1..=3 reading the next request's words 4 and 5, 4 up.
    h_st: DFF<Bits<3>>,
    /// `rr_nxt_valid`, a register: `h_st` = 4 and a size below 64 KiB (`o_small`), as they
    /// are in the next cycle (the TxArbiter's hint choice starts at flip-flops).
    nv: DFF<Bit>,
    /// `o_len` is below 64 KiB, loaded with it (`rd_small`: the queue RAM's word).
    o_small: DFF<Bit>,
    rd_small: Signal<Local, Bit>,
    /// The RAM address of the head entry's word 0 (`rd_ptr`'s entry; its words are `head | w`).
    head: Signal<Local, Bits<MEM_BITS>>,
}

impl Default for ReadResponder {
    fn default() -> Self {
        ReadResponder {
            clock: Default::default(),
            irq_valid: Default::default(),
            irq_ready: Default::default(),
            irq_qp: Default::default(),
            irq_word: Default::default(),
            w_qp: Default::default(),
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
            rr_msg_take: Default::default(),
            rr_msg_first: Default::default(),
            rr_msg_pick: Default::default(),
            rr_nxt_valid: Default::default(),
            rr_nxt_len: Default::default(),
            tk: Default::default(),
            h_st: Default::default(),
            nv: Default::default(),
            o_small: Default::default(),
            rd_small: Default::default(),
            head: Default::default(),
            irq_done: Default::default(),
            irq_done_qp: Default::default(),
            idle: Default::default(),
            mem: Default::default(),
            wr_ptr: Default::default(),
            wword: Default::default(),
            qcnt: Default::default(),
            room: Default::default(),
            wen: Default::default(),
            commit: Default::default(),
            rd_ptr: Default::default(),
            rword: Default::default(),
            fetch: Default::default(),
            go: Default::default(),
            lat: Default::default(),
            lword: Default::default(),
            o_v: Default::default(),
            o_conn: Default::default(),
            f1: Default::default(),
            o_len: Default::default(),
            h_conn: Default::default(),
            qps: Default::default(),
            q_wr: Default::default(),
            q_rd: Default::default(),
            q_cnt: Default::default(),
            full: Default::default(),
            take: Default::default(),
            op_rresp: Constant::new(u64::from(Opcode::RdmaReadResponse as u8).into()),
        }
    }
}

impl Logic for ReadResponder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, wr_ptr, wword, w_qp, qcnt, rd_ptr, rword, fetch, lat, lword, o_v, o_conn,
            f1, o_len, h_conn, q_wr, q_rd, q_cnt, tk, h_st, nv, o_small
        );
        self.mem.clock.next = self.clock.val();
        self.rd_small.next = self.mem.read_data.val().get_bits::<16>(16) == 0;
        for i in 0..RR_INFLIGHT {
            self.qps[i].clock.next = self.clock.val();
            self.qps[i].d.next = self.qps[i].q.val();
        }
        // Requests into the queue, a word at each `irq_valid` straight from `irq_word`, then
        // the QP (word 5, latched with word 0) in the cycle after the fifth word, the commit.
        self.room.next = !self.qcnt.q.val().get_bit(4);
        self.irq_ready.next = self.room.val() && (self.wword.q.val() == 0);
        self.wen.next = self.irq_valid.val() || (self.wword.q.val() == 5);
        self.mem.write_enable.next = self.wen.val();
        self.mem.write_addr.next = (bit_cast::<MEM_BITS, IRQ_ADDR_BITS>(self.wr_ptr.q.val()) << 3)
            | bit_cast::<MEM_BITS, WORD_BITS>(self.wword.q.val());
        // (Word 5's bits 31..2 are whatever `irq_word` shows: only the QP is read.)
        self.mem.write_data.next = self.irq_word.val();
        if self.wword.q.val() == 5 {
            self.mem.write_data.next = (bit_cast::<32, 30>(self.irq_word.val().get_bits::<30>(2))
                << 2)
                | bit_cast::<32, CONN_BITS>(self.w_qp.q.val());
        }
        if self.wen.val() {
            if self.wword.q.val() == 5 {
                self.wword.d.next = 0.into();
                self.wr_ptr.d.next = self.wr_ptr.q.val() + 1;
            } else {
                self.wword.d.next = self.wword.q.val() + 1;
            }
        }
        if self.irq_valid.val() && (self.wword.q.val() == 0) {
            self.w_qp.d.next = self.irq_qp.val();
        }
        // The head request out of the queue into the output register, one word a cycle.
        self.go.next = self.fetch.q.val()
            || (!self.o_v.q.val()
                && !self.lat.q.val()
                && (self.h_st.q.val() == 0)
                && (self.qcnt.q.val() != 0));
        // The port rests on word 0 of the head entry, the source address (`rr_msg_addr`,
        // straight from the RAM's read register); read steps `rword` 0, 1 read words 4, 5
        // (size, QP).
        self.head.next = bit_cast::<MEM_BITS, IRQ_ADDR_BITS>(self.rd_ptr.q.val()) << 3;
        self.mem.read_addr.next = self.head.val();
        if self.go.val() {
            self.mem.read_addr.next =
                self.head.val() | 4 | bit_cast::<MEM_BITS, STEP_BITS>(self.rword.q.val());
        }
        self.lat.d.next = self.go.val();
        self.lword.d.next = self.rword.q.val();
        if self.go.val() {
            if self.rword.q.val() == 1 {
                self.rword.d.next = 0.into();
                self.fetch.d.next = false;
            } else {
                self.rword.d.next = 1.into();
                self.fetch.d.next = true;
            }
        }
        if self.lat.q.val() {
            if self.lword.q.val() == 0 {
                self.o_len.d.next = self.mem.read_data.val().get_bits::<LOCAL_LEN_BITS>(0);
                self.o_small.d.next = self.rd_small.val();
            } else {
                self.o_conn.d.next = self.mem.read_data.val().get_bits::<CONN_BITS>(0);
                self.o_v.d.next = true;
            }
        }
        // The head of the queue as a message job.
        self.full.next = self.q_cnt.q.val().get_bit(2);
        self.rr_msg_valid.next = self.o_v.q.val() && !self.full.val();
        self.rr_msg_conn.next = self.o_conn.q.val();
        self.rr_msg_opcode.next = self.op_rresp.val();
        // STag and TO straight from the RAM's read register, each valid in the cycle DdpTx
        // reads it (see `rr_msg_first`).
        self.rr_msg_stag.next = self.mem.read_data.val();
        self.rr_msg_to.next = (bit_cast::<64, 32>(self.mem.read_data.val()) << 32)
            | bit_cast::<64, 32>(self.mem.read_data.val());
        // Picked at T-1 (the port rested on word 0, the address the arbiter copies): word 3
        // (TO low) for T; taken up at T: word 1 (STag) for T+1, word 2 (TO high) for T+2.
        // `rr_msg_take` comes at T+1 at the soonest, the hint's reads from T+2 on.
        self.f1.d.next = self.rr_msg_first.val();
        if self.rr_msg_pick.val() {
            self.mem.read_addr.next = self.head.val() | 3;
        }
        if self.rr_msg_first.val() {
            self.mem.read_addr.next = self.head.val() | 1;
        }
        if self.f1.q.val() {
            self.mem.read_addr.next = self.head.val() | 2;
        }
        self.rr_msg_inv_stag.next = 0.into();
        self.rr_msg_src_to.next = 0.into();
        self.rr_msg_msn.next = 0.into();
        self.rr_msg_addr.next = self.mem.read_data.val().get_bits::<DMA_ADDR_BITS>(0);
        self.rr_msg_len.next = bit_cast::<32, LOCAL_LEN_BITS>(self.o_len.q.val());
        self.take.next = self.rr_msg_valid.val() && self.rr_msg_ready.val();
        if self.take.val() {
            self.o_v.d.next = false;
            // The next request's size and QP were read by the hint (its address is on the
            // port): it is offered in the next cycle, without the load steps.
            if self.tk.q.val() && (self.h_st.q.val() == 4) {
                self.o_v.d.next = true;
                self.o_conn.d.next = self.h_conn.q.val();
            }
        }
        // (The same when the hint's reads end after the handshake: the port stays on the
        // address while the hint is up, no load steps.)
        if !self.o_v.q.val() && (self.h_st.q.val() == 4) {
            self.o_v.d.next = true;
            self.o_conn.d.next = self.h_conn.q.val();
        }
        self.commit.next = self.wword.q.val() == 5;
        if self.commit.val() && !self.take.val() {
            self.qcnt.d.next = self.qcnt.q.val() + 1;
        } else if !self.commit.val() && self.take.val() {
            self.qcnt.d.next = self.qcnt.q.val() - 1;
        }
        if self.take.val() {
            self.q_wr.d.next = self.q_wr.q.val() + 1;
            for i in 0..RR_INFLIGHT {
                if self.q_wr.q.val().index() == i {
                    self.qps[i].d.next = self.o_conn.q.val();
                }
            }
        }
        self.irq_done.next = self.rr_msg_done.val();
        self.irq_done_qp.next = self.o_conn.q.val();
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
        self.idle.next =
            (self.q_cnt.q.val() == 0) && (self.qcnt.q.val() == 0) && (self.wword.q.val() == 0);

        // ---- Read-ahead hint: the next queued request's size and QP (words 4, 5 of the entry
        // at `rd_ptr`) into `o_len` / `h_conn` once the job shown was taken; its address is on
        // the port (word 0) from then on.
        if self.rr_msg_take.val() {
            self.tk.d.next = true;
            // The head entry is read no more (its sink TO's low half was read at the offer):
            // the port rests on the next one, whose words the hint reads.
            self.rd_ptr.d.next = self.rd_ptr.q.val() + 1;
        }
        if self.take.val() {
            self.tk.d.next = false;
        }
        if (self.h_st.q.val() == 0)
            && self.tk.q.val()
            && self.o_v.q.val()
            && (self.qcnt.q.val().get_bits::<4>(1) != 0)
        {
            self.h_st.d.next = 1.into();
        }
        if self.h_st.q.val() == 1 {
            self.mem.read_addr.next = self.head.val() | 4;
            self.h_st.d.next = 2.into();
        }
        if self.h_st.q.val() == 2 {
            self.mem.read_addr.next = self.head.val() | 5;
            self.o_len.d.next = self.mem.read_data.val().get_bits::<LOCAL_LEN_BITS>(0);
            self.o_small.d.next = self.rd_small.val();
            self.h_st.d.next = 3.into();
        }
        if self.h_st.q.val() == 3 {
            self.h_conn.d.next = self.mem.read_data.val().get_bits::<CONN_BITS>(0);
            self.h_st.d.next = 4.into();
        }
        if self.rr_msg_take.val() {
            self.h_st.d.next = 0.into();
        }
        // (No hint for a response of 64 KiB or more: `nxt_len` is 16 bits.)
        self.nv.d.next = (self.h_st.d.val() == 4) && self.o_small.d.val();
        self.rr_nxt_valid.next = self.nv.q.val();
        self.rr_nxt_len.next = self.o_len.q.val().get_bits::<16>(0);
    }
}

crate::sim_ports!(impl[] ReadResponder {
    inputs: irq_valid, irq_qp, irq_word, rr_msg_ready, rr_msg_done, rr_msg_take, rr_msg_first,
        rr_msg_pick;
    outputs: irq_ready, rr_msg_valid, rr_msg_conn, rr_msg_opcode, rr_msg_stag, rr_msg_to,
        rr_msg_inv_stag, rr_msg_src_to, rr_msg_msn, rr_msg_addr, rr_msg_len, irq_done,
        irq_done_qp, idle, rr_nxt_valid, rr_nxt_len;
});
