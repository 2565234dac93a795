//! SendEngine (`docs/core.md` "SendEngine", "The message job"): the send queues of the
//! `QPS` QPs. It fetches SQ WQEs (`rnic_proto::host::SqWqe`, 32 octets) by DMA on `sq_rd_*`,
//! checks the local key on `lchk_*` (RxPath's second StagCheck port), hands the message job
//! over on `msg_*` (to the TxArbiter), keeps the outstanding RDMA Reads per QP and writes the
//! send-side CQEs on `scqe_*`.
//!
//! # Behaviour
//!
//! One sequential engine, one WQE at a time (plus a prefetch of the next, below). In `Idle` it
//! first takes a waiting `rdc_*` (the
//! receive side finished the oldest outstanding Read of a QP: CQE RdmaRead with `rdc_status`,
//! `byte_len = length` on success, 0 otherwise; written when SIGNALED or on error; an `rdc` of a
//! QP without outstanding Read, e.g. one already flushed, is dropped). Else it picks, round
//! robin after the QP served last, a QP that is enabled and has work: not in error,
//! `ci != pi` and not *blocked*; or in error with `ci != pi` or outstanding Reads (flush).
//! For a QP not in error it fetches the WQE at `sq_base + (ci mod 2^log2) * 32` (one 32-octet
//! request, tag 0, 8 DW-aligned beats), then:
//!
//! - hold (RFC 5040 rules 15b and 19, `docs/decisions.md` "The whole core"): a Read while the
//!   QP's outstanding Reads = ORD, any other WQE and any FENCE WQE while it has an outstanding
//!   Read. A held WQE is dropped again (ci stays) and the QP is *blocked* until its next Read
//!   completes (`rdc`) or it goes to error: no QP stalls the others, at the price of fetching
//!   the held WQE again.
//! - unknown opcode, or `length > 0` and the lkey check (LOCAL_READ for Write / Send sources,
//!   LOCAL_WRITE for a Read sink, the QP's PD and number) failing: the QP goes to error with the
//!   WQE's status latched (LocQpOpErr / LocProtErr). Its CQE (opcode of the WQE, Send for an
//!   unknown opcode, `byte_len` 0) is written by the flush below, after the CQEs of the earlier
//!   outstanding Reads, so that completions stay in submission order.
//! - otherwise the message goes out on `msg_*`. A Read Request is outstanding from then on
//!   (`orq_push` strobe, MSN of QN 1 + 1). The engine waits for every message's `msg_done`,
//!   the Read Request's too (the TxArbiter strobes it for every message), so that a done is
//!   never taken for the wrong message. A Write or Send completes at `msg_done` (CQE
//!   RdmaWrite / Send, Success, `byte_len = length`, written when SIGNALED; a Send adds 1 to
//!   the MSN of QN 0).
//!
//! **Prefetch** (issue 5: a 4 KiB Write paid ~70 cycles between messages for the WQE's DMA
//! round trip): while a Write / Send is offered on `msg_*` (`Msg`, `WriteBack`, `DoneWait`;
//! DdpTx works on it until its end) and the QP (enabled, not in error) has a further posted
//! WQE (`ci != pi`: a WQE's ci moves on as the engine goes to `Msg` with it, so only the
//! per-QP `ci != pi` the round robin has anyway is needed, no pi mux and compare), that WQE
//! is fetched (`sq_rd_*` tag 1) into the upper half of the
//! outstanding-Read RAM (8 words; no block RAM added). `Idle` picks no QP while the prefetch
//! is under way (it still takes `rdc`). The next `Load2` takes it if it decides to fetch for
//! that QP (its ci has moved on by exactly the WQE being sent: nothing else changes a QP's ci
//! without a `Load2` of it or a context write), reading the 8 words in 8 cycles instead of a
//! DMA round trip; any other `Load2`, and a `qpc_write`, drop it. A prefetched WQE then goes
//! through `Decide`, the check and every rule above exactly as a fetched one, so ordering,
//! holds, flushes and the round robin (the pick is not changed, only the fetch is faster) are
//! untouched. Not for a Read (short).
//!
//! **Early check and read-ahead hint** (issue 5): once DdpTx took the Write / Send being sent
//! (`msg_take`: `msg_addr` / `msg_len` are not read any more, so `w_len`, `w_lkey`,
//! `w_addr_*`, `host_addr` are free) and the prefetched WQE is in `orq`, its words 0..=5 are
//! read from there (`ec_*`, 7 cycles; words 1, 2, 4, 5 load their registers through the same
//! one load enable per register as a fetch's, `f_ld`) and, for a Write / Send with payload below 64 KiB
//! (`nxt_len` is 16 bits; a longer one is checked in `Decide` as before), its local check is
//! made on the `lchk_*` port (idle then). If it passes, `nxt_*` = (`host_addr`, `w_len`) is the
//! hint for DdpTx's read-ahead (`e_ok`), up until that WQE's message is taken (`msg_take`) or
//! the engine drops it: a `Load2` that does not take the prefetched WQE, a hold or an unknown
//! opcode in its `Decide`, a `qpc_write`. Its `Decide` goes straight to `Msg` (the check was
//! made; a failed early check leaves `e_ok` 0 and the normal check fails again, same error
//! path). `DoneWait` is not left while the early check reads `orq` or presents its check, and
//! the early check does not start in the cycle `DoneWait` is left (from then on `orq`'s read
//! port is the engine's). Holds, fences, flushes, round robin and CQE order are untouched: the
//! WQE still goes through `Load2` and `Decide` like any other.
//!
//! **CQE holding register**: a CQE moves from `c_*` into `h_*` (driving `scqe_*`) in one cycle
//! when `h_*` is free; the engine goes on while HostIf waits for the DMA write port (in the
//! loopback bench it waited ~60 cycles behind the peer's placement writes). One holding slot
//! keeps the CQEs in the order the engine makes them. Only the opcode and status wait in `c_*`:
//! the length is read from `orq` in `Cqe` (a Read's entry; a Write / Send writes its length
//! into its QP's free slot after `Decide`, `r_lw`, where the early check cannot overwrite it
//! as it does `w_len`), the index is ci - count - 1 of the served QP there (issue 5: no
//! `c_len` / `c_idx` copies).
//!
//! A QP in error (local error above, or the `qp_err` strobe) completes, one per visit, its
//! outstanding Reads (oldest first, CQE RdmaRead WrFlushErr), then the WQE whose local error
//! put it in error (its latched status), then every WQE up to the producer index, also later
//! doorbells, with CQE Send WrFlushErr `byte_len` 0 (they are not fetched), without sending.
//! A WQE already past its fetch when `qp_err` comes finishes normally.
//!
//! # Message fields
//!
//! `msg_conn` = QP, `msg_len` = length, `msg_addr` = the host address from the check
//! (unspecified when `length` = 0). Every opcode: `msg_stag` = rkey, `msg_to` = remote_addr
//! (read from `orq`, below),
//! `msg_inv_stag` = lkey, `msg_src_to` = addr's low half, upper half 0 (one register each,
//! no opcode mux; a local TO that passed the check is below 2^32: regions end at or below
//! 2^32, so only whether addr's upper half is 0 is kept, as bit 32 of `lchk_to`, and a Read
//! of length 0, not checked, carries its sink TO's low half). Write:
//! opcode 0. Read Request: opcode 1 (`msg_stag` / `msg_to` the Data Source's, `msg_inv_stag`
//! / `msg_src_to` the Data Sink's), `msg_msn` = MSN of QN 1. Sends: opcode 3..=6 (the WQE's
//! opcode plus 1), `msg_msn` = MSN of QN 0, the Invalidate STag of 4 and 6 is `msg_stag`.
//! Fields an opcode does not use carry unspecified values (no muxes spent on zeroing them).
//!
//! **The rkey and remote address have no register** (issue 5: 96 flip-flops, each alone in a
//! logic cell or with its 2:1 load mux): every WQE's words are in `orq`'s WQE region, the
//! fetched one's beats written there as they arrive (`f_wr`), and `msg_stag` / `msg_to` are
//! `orq`'s read register, valid in the cycles DdpTx reads them, as the ReadResponder's
//! (`docs/core.md` "The message job"): the TxArbiter strobes `msg_pick` the cycle before the
//! job is shown (T-1: word 7, the TO's low half, is read for T), `msg_first` in its first
//! cycle shown (T: word 3, the STag, for T+1; then word 6, the TO's high half, for T+2).
//! Both words of `msg_to` and `msg_stag` are that one register (the arbiter's STag / TO
//! multiplexers of the two sources are then one 32-bit multiplexer in the flat netlist).
//! The region has two halves, `{1, b, word}`: the prefetch writes, and the early check reads,
//! half `pfb`; the WQE being sent is in the other one (a fetched WQE is written there, and
//! `Load2`'s take of a prefetched WQE flips `pfb`), so the next WQE's prefetch never
//! overwrites the words of the message on `msg_*`. Nothing else reads `orq` from T-1 to T+1:
//! the early check starts two cycles after `msg_take` (T+1 at the soonest), `Cqe` after
//! `msg_done` (DdpTx strobes it after T+2; the reads are not in `orq_ra_q`, `Cqe`'s address).
//!
//! # State
//!
//! Registers per QP: enable, error, blocked, the latched local error, ci, pi
//! ([`RING_INDEX_BITS`] each: 16, or 12 in the Alchitry Cu profile), PD,
//! ORD (stored capped at [`ORQ_DEPTH`], 3 bits), the outstanding-Read FIFO's head and count, two
//! *fresh* flags (MSN of QN 0 / QN 1 is 1 whatever the RAM holds) and the signaled bit of each
//! outstanding Read (16). In the Alchitry Cu profile (24-bit DMA addresses and local lengths)
//! the PD and ORD are in the context word 0 (bits 31..28, 26..24, above `sq_base`) and the
//! signaled bit in the outstanding Read's `orq` entry (bit 31, above the length), not in
//! flip-flops (`CTX_HI`, `SIG_IN_ORQ`; issue 5): `lchk_pd` is the context RAM's output
//! (word 0 of the served QP is on it whenever a check is presented) and the ORD is compared
//! in `Load2` (`l_ordf`). A CQE status is kept in 5 bits (every WcStatus is below 32). Block RAM (issue 5: 5 blocks, were 10 for these two): the context in
//! 32-bit words at `{qp, word}` (word 0 sq_base with the SQ's log2 in its bits 3..0: `sq_base` is
//! 32-octet aligned, so no per-QP log2 register, issue 5; 1 MSN of QN 0, 2 MSN of QN 1; 2 blocks;
//! log2 is used from the RAM's output in `Load2` and the prefetch's start, `l_log2`), sq_base of the served QP read at
//! every edge outside `Fetch` and used from the RAM's output in `Addr` and the prefetch's address
//! step (no register copy), the MSN of the WQE's queue (QN 1 for a Read, else QN 0: one `msn`
//! register) addressed while the WQE's words arrive (its opcode is known from the first) and taken
//! in `Decide`, the write-back writing only that word; and the outstanding Reads' lengths (32 bits,
//! 2 blocks) at `{0, qp, slot}` (a Write / Send's length too, in the QP's free slot, for its
//! CQE), the prefetched WQE at `{1, pfb, word}`, the WQE being sent at `{1, !pfb, word}`. An
//! outstanding Read's ring
//! index is not kept: only Reads pass the hold rules while Reads are outstanding and each moves ci
//! on, so a QP's outstanding Reads are the WQEs ci - count .. ci - 1, and the oldest one's index is
//! ci - count (a flush completes them before it moves ci). The hardware FIFO holds [`ORQ_DEPTH`] =
//! 4 Reads per QP: an ORD above 4 acts as 4 (`docs/decisions.md` "SendEngine"). ORD 0 holds every
//! Read for ever (the driver refuses Reads with ORD 0).
//!
//! A `qpc_write` resets the QP's SQ state (ci = pi = 0, MSNs 1, no outstanding Read, no error):
//! one RAM write (word 0, sq_base) and both fresh flags set; a flag is cleared when its MSN is
//! written back. The write-back (`WriteBack`) is at least one cycle (`DoneWait`) before the
//! next read of the context in `Idle`, so there is no read-after-write hazard and no bypass.
//! Rewriting the context of a QP while the engine serves it, or while Reads of its previous
//! life can still complete on `rdc_*`, is not supported (the driver resets a QP only when it
//! is idle).
//!
//! # Timing
//!
//! A WQE with a check takes `Idle` 1 (+1 while a per-QP update is pending), `Load` 1,
//! `Load2` 1, `Addr` 1, the fetch request >= 1, the DMA latency + 8 beats, `Decide` 1, the
//! check >= 1 + `STAG_CHECK_LATENCY`, the hand-over >= 1, the write-back 1, then the wait for
//! `msg_done` and the CQE >= 1: about 24 cycles + DMA latency + transmit time. With the WQE
//! prefetched: `msg_done` to the next `msg_valid` in about 23 cycles (`WriteBack`, `DoneWait`,
//! `Cqe`, `Idle` 2, `Load`, `Load2`, 8 words, `Decide`, the check); measured on the whole core
//! (4 KiB Writes, DMA latency 50): 1121 cycles a message, was 1409 (bound 1039). With the early
//! check the check leaves that path (about 16 cycles) and DdpTx's read-ahead the DMA latency:
//! 1057 cycles a message (`core_probe write 4096 8`). For 100 MHz on
//! the iCE40 the state is one-hot (`st`; the binary state's load enable, decoded from every
//! transition condition, was the critical path), the round-robin pick works on the
//! eligibility registered (two cycles old: `Load` registers the picked QP's flags again and
//! `Load2` gives up when it has no work any more), `Load2`'s take of the prefetched WQE is
//! registered in `Load`, the per-QP updates (ci, FIFO pointers, flags) are applied one cycle
//! after their strobe (the FIFO write address registered at the strobe), the hold decision
//! and the opcode decodes (Read, unknown) are registered while the WQE beats arrive, and the
//! ring mask is decoded from a registered log2. Every output is a register or a mux of
//! registers by state, except the strobes `orq_push` and `rdc_ready`, and `lchk_*` / `msg_*`
//! fields are registers.
//!
//! Area (issue 5): each WQE word register has one load enable (`f_ld`; two enables on one
//! register made yosys build a feedback mux per bit), and registers loaded in several states
//! (`msn`) have one assignment each with their constant loads last (flip-flop
//! resets, not a mux level). Each WQE word register above word 0 chooses between the DMA
//! beat and `orq` by its own select (`f_orq`), so its 2:1 multiplexer packs with its
//! flip-flops (a shared `f_data` multiplexer left 192 of them alone: 1056 -> 1037 cells). The
//! read-completion queue (`rdcq`, 16 x 10 bits) is a
//! `crate::ram::BlockRam` with its own pointers whose output register is the head (no
//! read-during-write bypass, no fill counters, no separate head register). `Idle` takes the
//! head from the cycle after it appears (`rq_h`), with its QP from a copy (`rq_qp`) of the
//! RAM's QP bits: the QP select then starts at a flip-flop (composed in
//! TxPath, the RAM -> `sel` -> `orq` read address path missed 100 MHz). One cycle per Read
//! completion.
//!
//! `idle`: in `Idle` with no QP to serve, no `rdc` waiting, no CQE held and no prefetch under
//! way. Outstanding Reads alone do not
//! count: they wait for the receive side.

use crate::config::{
    CONN_BITS, DMA_ADDR_BITS, DMA_SUB_TAG_BITS, LOCAL_LEN_BITS, PD_BITS, QPS, RING_INDEX_BITS,
    RING_LOG2_BITS,
};
use crate::mpa::mpa_rx::RxContextRam;
use crate::ram::BlockRam;
use rust_hdl::prelude::*;

/// Outstanding Reads the hardware keeps per QP (ORD above it acts as this).
pub const ORQ_DEPTH: usize = 4;
/// Bits of an outstanding-Read RAM entry: its length (the index is ci - count, the signaled
/// bit is in flip-flops, `orq_sig`, or bit 31 in the Cu profile, `SIG_IN_ORQ`: 32 bits are 2
/// block RAMs; `{length, index}` were 3).
const ORQ_W: usize = 32;
/// Bits of a context word: words `{qp, 0}` sq_base, `{qp, 1}` MSN of QN 0, `{qp, 2}` MSN of
/// QN 1 (`{qp, 3}` unused: the read port's idle address).
const CTX_W: usize = 32;
/// Bits of the CQE index sum `c_isum`: a ring index shifted up one bit.
const ISUM_BITS: usize = RING_INDEX_BITS + 1;
/// 1 when an outstanding Read's signaled bit is kept in its `orq` entry, at bit 31 above the
/// length (lengths of [`LOCAL_LEN_BITS`] < 32: the Alchitry Cu profile; issue 5, no `orq_sig`
/// flip-flops and read mux), else 0 (the flip-flops `orq_sig`). `update` generates either by
/// a loop of one or no iteration (`0..SIG_IN_ORQ` / `SIG_IN_ORQ..1`).
const SIG_IN_ORQ: usize = if LOCAL_LEN_BITS < ORQ_W { 1 } else { 0 };
/// 1 when a QP's PD and capped ORD are kept in its context word 0 above `sq_base`, the PD
/// at bits 31..28 and the ORD at bits 26..24 (DMA addresses of at most 24 bits: the Alchitry
/// Cu profile; issue 5, no `q_pd` / `q_ord` flip-flops and muxes: `lchk_pd` is the context
/// RAM's output, which shows word 0 of the served QP whenever a check is presented, and the
/// ORD is compared in `Load2`, where the output shows it too), else 0 (the flip-flops).
const CTX_HI: usize = if DMA_ADDR_BITS <= 24 { 1 } else { 0 };
const _: () = assert!(PD_BITS == 4 && CTX_W == 32 && ORQ_W == 32);
/// Bits of a CQE status kept (`c_st`, `h_st`, `scqe_status[4:0]`; the upper bits are 0): every
/// `rnic_proto::verbs::WcStatus` is below 32 (asserted below; issue 5).
const ST_BITS: usize = 5;

/// Engine states, in the order of their bit in the one-hot state register (`st`: bit k is
/// state k, bit 0 stored inverted; `#[hdl_gen]` cannot name constants, so the update
/// function uses the bit numbers, with the state's name beside each).
#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
pub enum SeState {
    /// Waiting for work; takes an `rdc` or picks a QP.
    Idle,
    /// Context and FIFO RAM read; the QP's flags registered.
    Load,
    /// Decides flush or fetch.
    Load2,
    /// Flushing the oldest outstanding Read (FIFO entry on the RAM output).
    FlushRead,
    /// Computing the WQE address.
    Addr,
    /// Presenting the WQE fetch request.
    FetchReq,
    /// Collecting the 8 WQE beats.
    Fetch,
    /// Hold / opcode rules on the fetched WQE.
    Decide,
    /// Presenting the local check.
    Check,
    /// Waiting for the check's answer.
    CheckWait,
    /// Presenting the message job.
    Msg,
    /// Writing the MSNs back to the context RAM.
    WriteBack,
    /// Waiting for a Write / Send's `msg_done`.
    DoneWait,
    /// An `rdc` was taken: the FIFO entry is on the RAM output.
    Rdc,
    /// Presenting a CQE.
    Cqe,
}

/// Bits of the one-hot state register: one per [`SeState`].
const SE_STATES: usize = SeState::Cqe as usize + 1;

/// The send queue engine.
#[derive(LogicBlock, Default)]
pub struct SendEngine {
    pub clock: Signal<In, Clock>,
    // QP context commit.
    pub qpc_write: Signal<In, Bit>,
    pub qpc_qp: Signal<In, Bits<CONN_BITS>>,
    pub qpc_enable: Signal<In, Bit>,
    pub qpc_pd: Signal<In, Bits<PD_BITS>>,
    pub qpc_ord: Signal<In, Bits<4>>,
    pub qpc_sq_base: Signal<In, Bits<32>>,
    pub qpc_sq_log2: Signal<In, Bits<RING_LOG2_BITS>>,
    // Doorbell.
    pub sq_db_valid: Signal<In, Bit>,
    pub sq_db_qp: Signal<In, Bits<CONN_BITS>>,
    pub sq_db_pi: Signal<In, Bits<RING_INDEX_BITS>>,
    // Asynchronous error of a QP.
    pub qp_err_valid: Signal<In, Bit>,
    pub qp_err_qp: Signal<In, Bits<CONN_BITS>>,
    // WQE fetch.
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
    // Local key check.
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
    // Message job.
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
    /// DdpTx read `msg_addr` / `msg_len` for the last time (through the TxArbiter).
    pub msg_take: Signal<In, Bit>,
    /// The TxArbiter shows this block's job from the next cycle on (T-1): `orq`'s port reads
    /// the remote address's low half for T.
    pub msg_pick: Signal<In, Bit>,
    /// The job is shown for the first cycle (T): DdpTx takes it up now and reads
    /// `msg_to[31:0]` now, `msg_stag` at T+1, `msg_to[63:32]` at T+2.
    pub msg_first: Signal<In, Bit>,
    /// Read-ahead hint: the prefetched WQE's payload, checked (`docs/core.md` "DdpTx").
    /// The hinted region starts at `msg_addr` (one register, `host_addr`; the TxArbiter takes
    /// the hint's address from there).
    pub nxt_valid: Signal<Out, Bit>,
    pub nxt_len: Signal<Out, Bits<16>>,
    pub orq_push: Signal<Out, Bit>,
    pub orq_push_qp: Signal<Out, Bits<CONN_BITS>>,
    // Read completions from the receive side.
    pub rdc_valid: Signal<In, Bit>,
    pub rdc_qp: Signal<In, Bits<CONN_BITS>>,
    pub rdc_status: Signal<In, Bits<8>>,
    pub rdc_ready: Signal<Out, Bit>,
    // Send-side CQEs.
    pub scqe_valid: Signal<Out, Bit>,
    pub scqe_qp: Signal<Out, Bits<CONN_BITS>>,
    pub scqe_opcode: Signal<Out, Bits<8>>,
    pub scqe_status: Signal<Out, Bits<8>>,
    pub scqe_byte_len: Signal<Out, Bits<32>>,
    pub scqe_index: Signal<Out, Bits<16>>,
    pub scqe_ready: Signal<In, Bit>,
    pub idle: Signal<Out, Bit>,

    /// One-hot state: bit k is state k of [`SeState`], bit 0 (`Idle`) stored inverted.
    st: DFF<Bits<SE_STATES>>,
    /// The state decoded (`st` with bit 0 flipped): one bit set.
    s: Signal<Local, Bits<SE_STATES>>,
    /// The state entered / left at the next edge (bit per state).
    nx: Signal<Local, Bits<SE_STATES>>,
    lv: Signal<Local, Bits<SE_STATES>>,
    // Per-QP registers.
    q_en: [DFF<Bit>; QPS],
    q_err: [DFF<Bit>; QPS],
    q_blk: [DFF<Bit>; QPS],
    /// Latched local error of the WQE at ci: 0 none, else the WcStatus.
    q_lst: [DFF<Bits<3>>; QPS],
    /// WcOpcode of that WQE.
    q_lop: [DFF<Bits<2>>; QPS],
    q_ci: [DFF<Bits<RING_INDEX_BITS>>; QPS],
    q_pi: [DFF<Bits<RING_INDEX_BITS>>; QPS],
    q_pd: [DFF<Bits<PD_BITS>>; QPS],
    /// ORD capped at [`ORQ_DEPTH`] (0..=4).
    q_ord: [DFF<Bits<3>>; QPS],
    q_oh: [DFF<Bits<2>>; QPS],
    q_oc: [DFF<Bits<3>>; QPS],
    /// MSN of QN 0 / QN 1 is 1 whatever the context RAM holds (set by `qpc_write`, cleared
    /// when the MSN is written back).
    q_f0: [DFF<Bit>; QPS],
    q_f1: [DFF<Bit>; QPS],
    /// The signaled bit of each outstanding Read, at `{qp, slot}` like its `orq` entry.
    orq_sig: [DFF<Bit>; 16],
    /// `orq`'s read address of the last edge (its `{qp, slot}` part).
    orq_ra_q: DFF<Bits<4>>,
    /// `orq_sig` at `orq_ra_q`, beside `orq.read_data` (the mux after the register: timing).
    sig_rd: Signal<Local, Bit>,
    /// The QP served last (round robin).
    rr: DFF<Bits<CONN_BITS>>,
    /// The QP being served.
    cur: DFF<Bits<CONN_BITS>>,
    /// The MSN the WQE's message uses (QN 1 for a Read, else QN 0), read from the context
    /// RAM while the WQE's beats arrive (its opcode is known from the first beat).
    msn: DFF<Bits<32>>,
    beat: DFF<Bits<3>>,
    /// The WQE's RDMAP opcode (`msg_opcode`): the WQE opcode, plus 1 for a Send (2..=5), 7
    /// for an unknown opcode (decoded as the first word arrives: the LUTs pack with the
    /// flip-flops, no `+ 1` after them).
    w_mop: DFF<Bits<3>>,
    w_rd: DFF<Bit>,
    w_unk: DFF<Bit>,
    w_sig: DFF<Bit>,
    w_fence: DFF<Bit>,
    /// The WQE's length, [`LOCAL_LEN_BITS`] (the driver posts none longer, FEATURES `[31:24]`).
    w_len: DFF<Bits<LOCAL_LEN_BITS>>,
    w_lkey: DFF<Bits<32>>,
    /// The local address's upper half is not 0 (board profile: a local TO that passes the
    /// check is below 2^32, so only this flag of it is kept).
    w_ahi: DFF<Bit>,
    /// The prefetched WQE's `w_ahi` (its word 4 not 0), written with the word (which `orq`
    /// keeps as it is) and read where the word would be: valid from the prefetch's beat 4
    /// until the next `pf_start`, after the prefetched WQE was used or dropped.
    pf_ahi: DFF<Bit>,
    w_addr_lo: DFF<Bits<32>>,
    /// The half of `orq`'s WQE region (`{1, b, word}`) the prefetch writes and the early check
    /// reads; the WQE being sent (fetched or prefetched) is in the other half, where
    /// `msg_stag` / `msg_to` are read from (no rkey / remote address registers).
    pfb: DFF<Bit>,
    /// `msg_first` of the last cycle: the port reads the remote address's high half.
    f1: DFF<Bit>,
    /// A fetch's DMA beat is written into `orq` (the WQE being sent's half).
    f_wr: Signal<Local, Bit>,
    /// `orq` address of word 0 of the prefetch's half (`{1, pfb, 0}`) and of the sent WQE's
    /// half (`{1, !pfb, 0}`).
    o_pf: Signal<Local, Bits<5>>,
    o_cur: Signal<Local, Bits<5>>,
    host_addr: DFF<Bits<DMA_ADDR_BITS>>,
    done_seen: DFF<Bit>,
    /// Read completions (`rdc_*`) waiting for the engine: {status, QP} at `rq_wp` (issue 5:
    /// a `BlockRam` with its own pointers instead of rust-hdl's `SynchronousFIFO`, whose
    /// read-during-write bypass and fill logic cost ~60 logic cells).
    rdcq: BlockRam<10, 4>,
    /// Write / read pointers of `rdcq` (one bit above its address: 16 entries tell full).
    rq_wp: DFF<Bits<5>>,
    rq_rp: DFF<Bits<5>>,
    /// `rq_rp` after this cycle's take: the RAM's read address.
    rq_rn: Signal<Local, Bits<5>>,
    /// `rdcq.read_data` is the entry at `rq_rp` (written at an earlier edge).
    rq_v: DFF<Bit>,
    /// The head's QP, a copy of the RAM's output a cycle later, and "the head was there in
    /// the last cycle and not taken" (so `rq_qp` is its QP): `Idle` takes a completion only
    /// then, and its QP select starts at a flip-flop, not at the RAM's output (timing: the
    /// RAM -> `sel` -> `orq`'s read address path, composed in TxPath).
    rq_qp: DFF<Bits<CONN_BITS>>,
    rq_h: DFF<Bit>,
    rdcq_valid: Signal<Local, Bit>,
    rdcq_qp: Signal<Local, Bits<CONN_BITS>>,
    rdcq_status: Signal<Local, Bits<ST_BITS>>,
    rdcq_take: Signal<Local, Bit>,
    c_op: DFF<Bits<2>>,
    c_st: DFF<Bits<ST_BITS>>,
    /// The CQE on `scqe_*` (taken from `c_*` in `Cqe`): the engine goes on while HostIf
    /// waits for the DMA write port.
    h_valid: DFF<Bit>,
    h_qp: DFF<Bits<CONN_BITS>>,
    h_op: DFF<Bits<2>>,
    h_st: DFF<Bits<ST_BITS>>,
    h_len: DFF<Bits<LOCAL_LEN_BITS>>,
    h_idx: DFF<Bits<RING_INDEX_BITS>>,
    /// Per QP 3 words (`CTX_W`) at `{qp, word}`.
    ctx: RxContextRam<CTX_W, 4>,
    /// The outstanding Reads at `{0, qp, slot}`; the prefetched WQE's 8 words at `{1, 0, beat}`.
    orq: RxContextRam<ORQ_W, 5>,
    /// WQE prefetch: 0 none, 1 address, 2 request, 3 beats, 4 ready (in `orq`).
    pf_st: DFF<Bits<3>>,
    /// The QP of the prefetched WQE (its next WQE after the one being sent).
    pf_qp: DFF<Bits<CONN_BITS>>,
    /// This fetch takes the prefetched WQE from `orq`.
    pf_use: DFF<Bit>,
    pf_busy: Signal<Local, Bit>,
    /// The served QP is enabled, not in error, and has a WQE after the one at ci (registered).
    pf_ok: DFF<Bit>,
    /// In `Msg`, `WriteBack` or `DoneWait`.
    in_msg: Signal<Local, Bit>,
    /// Early check of the prefetched WQE (the hint): 0 none, 1 reading its words 0..=5 from
    /// `orq`, 2 presenting the check, 3 waiting for the answer, 4 done.
    ec_st: DFF<Bits<3>>,
    /// The prefetched WQE is a Write or a Send (its word 0).
    ec_ws: DFF<Bit>,
    /// The early check passed: `host_addr` and `w_len` are the prefetched WQE's (`nxt_*`),
    /// and its `Decide` skips the check.
    e_ok: DFF<Bit>,
    /// DdpTx took the message offered: `w_len`, `w_lkey`, `w_addr_*`, `host_addr` are free
    /// (they feed `msg_*` fields read only at the take).
    tk: DFF<Bit>,
    ec_busy: Signal<Local, Bit>,
    ec_drop: Signal<Local, Bit>,
    /// `Load2` takes the prefetched WQE.
    pf_take: Signal<Local, Bit>,
    pf_start: Signal<Local, Bit>,
    pf_wr: Signal<Local, Bit>,
    k_pi: Signal<Local, Bits<RING_INDEX_BITS>>,
    f_valid: Signal<Local, Bit>,
    f_data: Signal<Local, Bits<32>>,
    f_last: Signal<Local, Bit>,
    /// Load WQE word k into its register (bit k).
    f_ld: Signal<Local, Bits<8>>,
    /// Word 0's WQE opcode is unknown (above 5): one decode for `w_unk` and `w_mop`.
    f_unk: Signal<Local, Bit>,
    /// Word k's register loads from `orq` (else from the DMA), one select per register
    /// (bit k), each a different function, so that each register bit's 2:1 multiplexer is
    /// its own LUT and packs with its flip-flop (one shared multiplexer, `f_data`, left all
    /// of them alone in their logic cells).
    f_orq: Signal<Local, Bits<8>>,
    /// The DMA beat is not 0 (word 4, the local address's upper half; the prefetch keeps
    /// it in `pf_ahi`).
    cpl_nz: Signal<Local, Bit>,
    // Combinational helpers.
    el: [Signal<Local, Bit>; QPS],
    /// Per QP: ci != pi.
    ne: [Signal<Local, Bit>; QPS],
    k_ne: Signal<Local, Bit>,
    elig: Signal<Local, Bits<QPS>>,
    elig_q: DFF<Bits<QPS>>,
    elig2: Signal<Local, Bits<{ 2 * QPS }>>,
    rot: Signal<Local, Bits<{ 2 * QPS }>>,
    off: Signal<Local, Bits<CONN_BITS>>,
    pick: Signal<Local, Bits<CONN_BITS>>,
    any: Signal<Local, Bit>,
    // Values of the QP `sel` (pick in Idle, else cur / rdc_qp).
    sel: Signal<Local, Bits<CONN_BITS>>,
    s_oh: Signal<Local, Bits<2>>,
    s_oc: Signal<Local, Bits<3>>,
    // Values of the QP being served (`cur`).
    k_err: Signal<Local, Bit>,
    k_lst: Signal<Local, Bits<3>>,
    k_lop: Signal<Local, Bits<2>>,
    k_ci: Signal<Local, Bits<RING_INDEX_BITS>>,
    k_en: Signal<Local, Bit>,
    k_blk: Signal<Local, Bit>,
    k_pd: Signal<Local, Bits<PD_BITS>>,
    k_ord: Signal<Local, Bits<3>>,
    k_oh: Signal<Local, Bits<2>>,
    k_oc: Signal<Local, Bits<3>>,
    // The per-QP strobes, applied one cycle late (timing); `Idle` waits while one is pending.
    r_pop: DFF<Bit>,
    r_push: DFF<Bit>,
    /// A Write / Send passed `Decide`: its length is written into the QP's free `orq` slot
    /// (the CQE's length, read there in `Cqe`).
    r_lw: DFF<Bit>,
    r_ci_inc: DFF<Bit>,
    r_set_err: DFF<Bit>,
    r_set_blk: DFF<Bit>,
    hold_q: DFF<Bit>,
    l_en: DFF<Bit>,
    l_err: DFF<Bit>,
    l_oc: DFF<Bit>,
    l_ne: DFF<Bit>,
    l_blk: DFF<Bit>,
    l_pf: DFF<Bit>,
    /// The round-robin pick, registered (one cycle old: re-checked in `Load`).
    pick_q: DFF<Bits<CONN_BITS>>,
    any_q: DFF<Bit>,
    foff: DFF<Bits<21>>,
    f_ci: Signal<Local, Bits<RING_INDEX_BITS>>,
    /// The served QP's SQ log2: bits 3..0 of the context RAM's output, which shows word 0 of
    /// `cur` wherever it is used (`Load2`, and while a Write / Send is offered).
    l_log2: Signal<Local, Bits<RING_LOG2_BITS>>,
    f_mask: Signal<Local, Bits<RING_INDEX_BITS>>,
    foff_n: Signal<Local, Bits<21>>,
    faddr: DFF<Bits<DMA_ADDR_BITS>>,
    is_read: Signal<Local, Bit>,
    hold: Signal<Local, Bit>,
    ord_full: Signal<Local, Bit>,
    /// `ord_full` registered in `Load2` (the served QP's outstanding Reads reach its ORD).
    l_ordf: DFF<Bit>,
    /// `qpc_ord` capped at [`ORQ_DEPTH`].
    qpc_ordc: Signal<Local, Bits<3>>,
    wc_op: Signal<Local, Bits<2>>,
    ctx_rw: Signal<Local, Bits<2>>,
    ctx_waddr: Signal<Local, Bits<4>>,
    orq_ra: Signal<Local, Bits<5>>,
    k_f0: Signal<Local, Bit>,
    k_f1: Signal<Local, Bit>,
    ctx_we: Signal<Local, Bit>,
    orq_waddr: Signal<Local, Bits<4>>,
    orq_wa_q: DFF<Bits<4>>,
    orq_slot: Signal<Local, Bits<2>>,
    /// The CQE's ring index at `Cqe`, shifted up one bit: `{ci, 1} + {!count, cin}`
    /// (`h_idx` is bits `RING_INDEX_BITS`..1).
    c_isum: Signal<Local, Bits<ISUM_BITS>>,
    orq_raddr: Signal<Local, Bits<4>>,
    /// `orq`'s read address from everything but `orq_raddr` (0 where that is used), and
    /// whether `orq_raddr` is used for `orq_ra` / for the port (`ra_def` / `rd_def`, from
    /// registers): `orq_raddr` (`sel` -> `s_oh`) is late, so it enters last, one
    /// multiplexer before the RAM (through the whole chain it was `tx_path`'s worst path).
    orq_ra_c: Signal<Local, Bits<5>>,
    ra_def: Signal<Local, Bit>,
    rd_def: Signal<Local, Bit>,
    // Per-QP strobes of the cycle.
    pop: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    ci_inc: Signal<Local, Bit>,
    set_err: Signal<Local, Bit>,
    set_blk: Signal<Local, Bit>,
}

// `#[hdl_gen]` cannot name constants: the CQE values are literals below, with the
// `rnic_proto::verbs` name beside each (WcOpcode Send 0, RdmaWrite 1, RdmaRead 2; WcStatus
// LocQpOpErr 2, LocProtErr 4, WrFlushErr 5); the testbench checks them against that crate.

// The pick is generated for 4 or 2 QPs by loops of one or no iteration (`CONN_BITS..2`; the
// allow covers the Verilog generator `#[hdl_gen]` adds to the impl).
#[allow(clippy::reversed_empty_ranges)]
impl Logic for SendEngine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, st, r_pop, r_push, r_lw, r_ci_inc, r_set_err, r_set_blk, hold_q, l_en,
            l_err, l_oc, l_ne, l_blk, l_pf, elig_q, pick_q, any_q, foff, faddr, rr, cur, msn, beat,
            w_mop, w_rd, w_unk, w_sig, w_fence, w_len, w_lkey, w_ahi, pf_ahi, w_addr_lo, pfb, f1,
            host_addr, done_seen, c_op, c_st, h_valid, h_qp, h_op, h_st, h_len, h_idx, rq_wp,
            rq_rp, rq_v, rq_qp, rq_h, pf_st, pf_qp, pf_use, orq_ra_q, orq_wa_q, ec_st, ec_ws, e_ok,
            tk, pf_ok, l_ordf
        );
        self.s.next = self.st.q.val() ^ 1;
        // Read completions wait in a queue (`rdcq`, one entry per outstanding Read of every
        // QP, so it never fills): the receive side must never wait for the engine, which may
        // itself wait for the transmit side (`docs/decisions.md`, "The whole core:
        // integration").
        // The RAM's output register is the head: read at `rq_rn` at every edge (the next
        // head after this cycle's take), valid when that entry was written at an earlier edge
        // (a read of the word being written is undefined; then `rq_rn` = `rq_wp`, empty).
        self.rdcq.clock.next = self.clock.val();
        self.rdc_ready.next = (self.rq_wp.q.val() ^ self.rq_rp.q.val()) != 16;
        self.rdcq.write_enable.next = self.rdc_valid.val() && self.rdc_ready.val();
        self.rdcq.write_addr.next = self.rq_wp.q.val().get_bits::<4>(0);
        self.rdcq.write_data.next = (bit_cast::<10, 8>(self.rdc_status.val()) << 2)
            | bit_cast::<10, CONN_BITS>(self.rdc_qp.val());
        if self.rdcq.write_enable.val() {
            self.rq_wp.d.next = self.rq_wp.q.val() + 1;
        }
        self.rdcq_valid.next = self.rq_v.q.val();
        self.rq_qp.d.next = self.rdcq.read_data.val().get_bits::<CONN_BITS>(0);
        self.rdcq_qp.next = self.rq_qp.q.val();
        self.rdcq_status.next = self.rdcq.read_data.val().get_bits::<ST_BITS>(2);
        self.ctx.clock.next = self.clock.val();
        self.orq.clock.next = self.clock.val();

        // Eligible QPs and the round-robin pick after `rr`.
        self.elig.next = 0.into();
        for i in 0..QPS {
            self.ne[i].next = self.q_ci[i].q.val() != self.q_pi[i].q.val();
            self.el[i].next = false;
            if self.q_en[i].q.val()
                && ((self.q_err[i].q.val()
                    && ((self.q_ci[i].q.val() != self.q_pi[i].q.val())
                        || self.q_oc[i].q.val().any()))
                    || (!self.q_err[i].q.val()
                        && !self.q_blk[i].q.val()
                        && (self.q_ci[i].q.val() != self.q_pi[i].q.val())))
            {
                self.el[i].next = true;
            }
        }
        for i in 0..QPS {
            if self.el[i].val() {
                self.elig.next = self.elig.val().replace_bit(i, true);
            }
        }
        // The pick works on `elig` registered (`elig_q`, timing: the ci / pi compares and the
        // pick were one path): two cycles old, re-checked in `Load` / `Load2` as before.
        // `rot` is `elig_q` rotated right by `rr + 1`; `off` is its first set bit (QPS - 1 when
        // none below). hdl_gen cannot name QPS in an expression: the chain is generated for
        // 4 QPs (the first loop runs once at CONN_BITS 2) or for 2 (the second, at 1).
        self.elig_q.d.next = self.elig.val();
        for _k in 1..CONN_BITS {
            self.elig2.next = (bit_cast::<{ 2 * QPS }, QPS>(self.elig_q.q.val()) << 4)
                | bit_cast::<{ 2 * QPS }, QPS>(self.elig_q.q.val());
            self.rot.next = self.elig2.val() >> (bit_cast::<8, CONN_BITS>(self.rr.q.val()) + 1);
            self.off.next = 3.into();
            if self.rot.val().get_bit(2) {
                self.off.next = 2.into();
            }
            if self.rot.val().get_bit(1) {
                self.off.next = 1.into();
            }
            if self.rot.val().get_bit(0) {
                self.off.next = 0.into();
            }
        }
        for _k in CONN_BITS..2 {
            self.elig2.next = (bit_cast::<{ 2 * QPS }, QPS>(self.elig_q.q.val()) << 2)
                | bit_cast::<{ 2 * QPS }, QPS>(self.elig_q.q.val());
            self.rot.next = self.elig2.val() >> (bit_cast::<8, CONN_BITS>(self.rr.q.val()) + 1);
            self.off.next = 1.into();
            if self.rot.val().get_bit(0) {
                self.off.next = 0.into();
            }
        }
        self.pick.next = self.rr.q.val() + self.off.val() + 1;
        self.any.next = self.elig.val().any();
        self.pick_q.d.next = self.pick.val();
        self.any_q.d.next = self.elig_q.q.val().any();

        // The QP whose registers the state looks at.
        if self.s.val().get_bit(0) {
            if self.rdcq_valid.val() {
                self.sel.next = self.rdcq_qp.val();
            } else {
                self.sel.next = self.pick_q.q.val();
            }
        } else {
            self.sel.next = self.cur.q.val();
        }
        self.s_oh.next = self.q_oh[0].q.val();
        self.s_oc.next = self.q_oc[0].q.val();
        self.k_err.next = self.q_err[0].q.val();
        self.k_lst.next = self.q_lst[0].q.val();
        self.k_lop.next = self.q_lop[0].q.val();
        self.k_ci.next = self.q_ci[0].q.val();
        self.k_pi.next = self.q_pi[0].q.val();
        self.k_ne.next = self.ne[0].val();
        self.k_en.next = self.q_en[0].q.val();
        self.k_blk.next = self.q_blk[0].q.val();
        self.k_pd.next = self.q_pd[0].q.val();
        self.k_ord.next = self.q_ord[0].q.val();
        self.k_oh.next = self.q_oh[0].q.val();
        self.k_oc.next = self.q_oc[0].q.val();
        self.k_f0.next = self.q_f0[0].q.val();
        self.k_f1.next = self.q_f1[0].q.val();
        for i in 1..QPS {
            if self.sel.val().index() == i {
                self.s_oh.next = self.q_oh[i].q.val();
                self.s_oc.next = self.q_oc[i].q.val();
            }
            if self.cur.q.val().index() == i {
                self.k_err.next = self.q_err[i].q.val();
                self.k_lst.next = self.q_lst[i].q.val();
                self.k_lop.next = self.q_lop[i].q.val();
                self.k_ci.next = self.q_ci[i].q.val();
                self.k_pi.next = self.q_pi[i].q.val();
                self.k_ne.next = self.ne[i].val();
                self.k_en.next = self.q_en[i].q.val();
                self.k_blk.next = self.q_blk[i].q.val();
                self.k_pd.next = self.q_pd[i].q.val();
                self.k_ord.next = self.q_ord[i].q.val();
                self.k_oh.next = self.q_oh[i].q.val();
                self.k_oc.next = self.q_oc[i].q.val();
                self.k_f0.next = self.q_f0[i].q.val();
                self.k_f1.next = self.q_f1[i].q.val();
            }
        }

        // WQE decode.
        self.is_read.next = self.w_rd.q.val();
        if self.w_mop.q.val() == 0 {
            self.wc_op.next = 1.into();
        } else if self.w_mop.q.val() == 1 {
            self.wc_op.next = 2.into();
        } else {
            self.wc_op.next = 0.into();
        }
        // ORD capped at ORQ_DEPTH. The outstanding Reads reach the ORD: compared in `Load2`
        // (`l_ordf`; the count changes only with a pop or a push, in `Rdc`, `FlushRead` or
        // `Msg`, none of which comes between `Load2` and the WQE's `Decide`, and `Idle` left
        // with no pop pending). (In the Cu profile, `CTX_HI`, the ORD is word 0's bits 26..24 on
        // the context RAM's output, read at the QP `cur` at the edge entering `Load2`.)
        for _k in 0..CTX_HI {
            self.k_ord.next = self.ctx.read_data.val().get_bits::<3>(24);
        }
        self.ord_full.next = self.k_oc.val() >= self.k_ord.val();
        if self.s.val().get_bit(2) {
            self.l_ordf.d.next = self.ord_full.val();
        }
        self.hold.next = (self.k_oc.val().any() && (!self.is_read.val() || self.w_fence.q.val()))
            || (self.is_read.val() && self.l_ordf.q.val());

        // Outputs, registers muxed by state.
        self.sq_rd_req_valid.next = self.s.val().get_bit(5) || (self.pf_st.q.val() == 2);
        self.sq_rd_req_addr.next = self.faddr.q.val();
        self.sq_rd_req_len.next = 32.into();
        self.sq_rd_req_tag.next = 0.into();
        if self.pf_st.q.val() == 2 {
            self.sq_rd_req_tag.next = 1.into();
        }

        // WQE prefetch: while a Write / Send of the QP is offered (DdpTx works on it until
        // its end), the QP's next posted WQE is fetched into `orq`'s upper half, so that the
        // next fetch of that QP (if it is the next one picked) reads it from there in 8 cycles
        // instead of a DMA round trip. It uses the fetch registers `foff` / `faddr`, free
        // then: `Idle` picks no QP while it is under way. Every rule stays with the fetch:
        // a prefetched WQE goes through `Decide` like a fetched one, and any other `Load2`
        // drops it.
        // A message's ci moves on as it goes to `Msg` (so that from then on the prefetch
        // needs only the QP's `ci != pi`, `ne`). Each QP's ci + 1 is written at `r_ci_inc`.
        self.pf_busy.next = (self.pf_st.q.val() != 0) && (self.pf_st.q.val() != 4);
        // The QP's part registered (`pf_ok`, timing): 0 until the ci update (strobed as the
        // engine goes to `Msg`) is applied and seen (pi only grows; a QP gone to error
        // meanwhile gets a prefetch that its next `Load2` drops).
        self.in_msg.next =
            self.s.val().get_bit(10) || self.s.val().get_bit(11) || self.s.val().get_bit(12);
        self.pf_ok.d.next = self.k_en.val()
            && !self.k_err.val()
            && self.k_ne.val()
            && self.in_msg.val()
            && !self.r_ci_inc.q.val();
        self.pf_start.next = self.in_msg.val()
            && !self.is_read.val()
            && (self.pf_st.q.val() == 0)
            && self.pf_ok.q.val();
        // The ring offset of the WQE to fetch: ci (`Load2`, or the prefetch: ci moved on).
        self.f_ci.next = self.k_ci.val();
        // The ring mask `2^log2 - 1` decoded bit by bit from `l_log2` (no per-QP mux and no
        // carry chain in front of `foff`: those were the critical path).
        // log2 is kept in the low bits of the context's sq_base word (`sq_base` is 32-octet
        // aligned: bits 4..0 are free; issue 5, no per-QP register), taken from the RAM's
        // output where `foff` loads: in `Load2` (`{cur, 0}` read at the edge leaving `Load`)
        // and at `pf_start` (`Msg`, `WriteBack`, `DoneWait`: word 0 of `cur`, read at every
        // edge outside `Fetch`, as the prefetch's address step uses it). Issue 5: no `l_log2`
        // register (4 flip-flops, D straight from the RAM: alone in their logic cells).
        self.l_log2.next = self.ctx.read_data.val().get_bits::<RING_LOG2_BITS>(0);
        self.f_mask.next = 0.into();
        for j in 0..RING_INDEX_BITS {
            if self.l_log2.val().index() > j {
                self.f_mask.next = self.f_mask.val().replace_bit(j, true);
            }
        }
        self.foff_n.next =
            bit_cast::<21, RING_INDEX_BITS>(self.f_ci.val() & self.f_mask.val()) << 5;
        self.pf_wr.next = (self.pf_st.q.val() == 3) && self.sq_rd_cpl_valid.val();
        self.pf_take.next = self.s.val().get_bit(2) && self.l_pf.q.val();
        if self.pf_start.val() {
            self.pf_st.d.next = 1.into();
            self.pf_qp.d.next = self.cur.q.val();
            self.beat.d.next = 0.into();
            self.foff.d.next = self.foff_n.val();
        }
        if self.pf_st.q.val() == 1 {
            // sq_base: the context RAM's word `{cur, 0}`, read at every edge outside `Idle`
            // and `Fetch` (no copy in flip-flops).
            self.faddr.d.next = ((self.ctx.read_data.val().get_bits::<DMA_ADDR_BITS>(0) >> 5) << 5)
                + bit_cast::<DMA_ADDR_BITS, 21>(self.foff.q.val());
            self.pf_st.d.next = 2.into();
        }
        if (self.pf_st.q.val() == 2) && self.sq_rd_req_ready.val() {
            self.pf_st.d.next = 3.into();
        }
        if self.pf_wr.val() {
            self.beat.d.next = self.beat.q.val() + 1;
            if self.sq_rd_cpl_last.val() {
                self.pf_st.d.next = 4.into();
            }
        }
        if self.qpc_write.val() && (self.pf_st.q.val() == 4) {
            self.pf_st.d.next = 0.into();
        }
        // The beats of a fetch: from the DMA, or one a cycle from the prefetch buffer.
        self.f_valid.next = self.sq_rd_cpl_valid.val();
        self.f_data.next = self.sq_rd_cpl_data.val();
        self.f_last.next = self.sq_rd_cpl_last.val();
        if self.pf_use.q.val() {
            self.f_valid.next = true;
            self.f_data.next = self.orq.read_data.val();
            self.f_last.next = self.beat.q.val() == 7;
        }
        // The early check's words come the same way (no second input on the `w_*` registers).
        if self.ec_st.q.val() == 1 {
            self.f_data.next = self.orq.read_data.val();
        }
        self.lchk_valid.next = self.s.val().get_bit(8);
        self.lchk_stag.next = self.w_lkey.q.val();
        // The local TO: its low half and, at bit 32, whether its upper half is 0. Regions end
        // at or below 2^32 (the STag table keeps base_TO[31:0], the driver refuses a region
        // that ends above 2^32), so a check of a TO at or above 2^32 fails (BOUNDS) either way.
        self.lchk_to.next = (bit_cast::<64, 1>(self.w_ahi.q.val().into()) << 32)
            | bit_cast::<64, 32>(self.w_addr_lo.q.val());
        self.lchk_len.next = bit_cast::<32, LOCAL_LEN_BITS>(self.w_len.q.val());
        self.lchk_pd.next = self.k_pd.val();
        for _k in 0..CTX_HI {
            // Word 0 of the served QP is on the context RAM's output in `Check` and while the
            // early check presents its check (read outside `Fetch`, at the QP `cur`).
            self.lchk_pd.next = self.ctx.read_data.val().get_bits::<PD_BITS>(28);
        }
        self.lchk_qp.next = self.cur.q.val();
        if self.is_read.val() {
            self.lchk_access.next = 2.into();
        } else {
            self.lchk_access.next = 1.into();
        }
        self.msg_valid.next = self.s.val().get_bit(10);
        self.msg_conn.next = self.cur.q.val();
        self.msg_opcode.next = bit_cast::<4, 3>(self.w_mop.q.val());
        // One register per field, no opcode mux (issue 5): the remote STag / TO for every
        // opcode (a Read Request's Data Source, a Send's Invalidate STag), the local ones
        // (a Read Request's Data Sink) on `msg_inv_stag` / `msg_src_to`.
        // The rkey and remote address straight from `orq`'s read register (the WQE's words 3,
        // 6, 7 in the sent WQE's half), each valid in the cycle DdpTx reads it (`msg_pick`).
        self.msg_stag.next = self.orq.read_data.val();
        self.msg_to.next = (bit_cast::<64, 32>(self.orq.read_data.val()) << 32)
            | bit_cast::<64, 32>(self.orq.read_data.val());
        self.msg_msn.next = self.msn.q.val();
        self.msg_inv_stag.next = self.w_lkey.q.val();
        // A Read's sink TO passed the local check (length > 0), so it is below 2^32: its low
        // half, the upper half 0 (a Read of length 0 is not checked and carries its sink TO's
        // low half).
        self.msg_src_to.next = bit_cast::<64, 32>(self.w_addr_lo.q.val());
        self.msg_addr.next = self.host_addr.q.val();
        self.msg_len.next = bit_cast::<32, LOCAL_LEN_BITS>(self.w_len.q.val());
        self.orq_push.next = false;
        self.orq_push_qp.next = self.cur.q.val();
        self.rdcq_take.next = false;
        self.scqe_valid.next = self.h_valid.q.val();
        self.scqe_qp.next = self.h_qp.q.val();
        self.scqe_opcode.next = bit_cast::<8, 2>(self.h_op.q.val());
        self.scqe_status.next = bit_cast::<8, ST_BITS>(self.h_st.q.val());
        self.scqe_byte_len.next = bit_cast::<32, LOCAL_LEN_BITS>(self.h_len.q.val());
        self.scqe_index.next = bit_cast::<16, RING_INDEX_BITS>(self.h_idx.q.val());
        if self.h_valid.q.val() && self.scqe_ready.val() {
            self.h_valid.d.next = false;
        }
        self.idle.next = self.s.val().get_bit(0)
            && !self.pf_busy.val()
            && !self.any.val()
            && !self.rdcq_valid.val()
            && !self.h_valid.q.val();

        if self.qpc_ord.val() >= 4 {
            self.qpc_ordc.next = 4.into();
        } else {
            self.qpc_ordc.next = self.qpc_ord.val().get_bits::<3>(0);
        }
        // RAM ports. Reads matter only at the edge leaving Idle; elsewhere the read address is
        // kept away from the written entry (block RAM gives undefined data there).
        self.ctx_we.next = false;
        // The write-back writes the MSN a message can change: QN 1 for a Read, else QN 0.
        self.ctx.write_data.next = self.msn.q.val();
        self.orq.write_enable.next = false;
        // The 2-bit slot is summed on its own: inside a wider expression Verilog would carry
        // into the QP bits.
        self.orq_slot.next = self.k_oh.val() + self.k_oc.val().get_bits::<2>(0);
        // Registered (timing): used only with `r_push` / `r_lw`, a cycle after their strobe,
        // when the QP and its FIFO pointers are still those of the strobe's cycle.
        self.orq_wa_q.d.next = (bit_cast::<4, CONN_BITS>(self.cur.q.val()) << 2)
            | bit_cast::<4, 2>(self.orq_slot.val());
        self.orq_waddr.next = self.orq_wa_q.q.val();
        self.orq.write_addr.next = bit_cast::<5, 4>(self.orq_waddr.val());
        self.orq.write_data.next = bit_cast::<32, LOCAL_LEN_BITS>(self.w_len.q.val());
        for _k in 0..SIG_IN_ORQ {
            // The signaled bit above the length (used only with a Read's entry, `r_push`).
            self.orq.write_data.next = bit_cast::<32, LOCAL_LEN_BITS>(self.w_len.q.val())
                | (bit_cast::<32, 1>(self.w_sig.q.val().into()) << 31);
        }
        // The CQE's ring index, computed in `Cqe` from the served QP's ci and count of
        // outstanding Reads (no `c_idx` register). Only Reads pass the hold rules while Reads
        // are outstanding, and each moves ci on at its hand-over, so a QP's outstanding Reads
        // are the WQEs ci - count .. ci - 1 (a flush completes them before it moves ci): the
        // entry needs no index. Every CQE's WQE is then the one at ci - count - 1 once the
        // strobe of the state that led to `Cqe` is applied: a flushed WQE (`Load2`, ci moved
        // on, count 0), the oldest Read (`Rdc`, `FlushRead`: count one less), a Write / Send
        // (ci moved on at its hand-over, count 0). That strobe (`r_ci_inc` / `r_pop`) is still
        // pending in `Cqe`'s first cycle, so it enters as the carry in: ci + !count + cin, one
        // carry chain (`{ci, 1} + {!count, cin}`, the low bit only makes the carry; issue 5,
        // no wait for the strobe: an ORD-bound Read stream would lose a cycle per Read).
        self.c_isum.next = ((bit_cast::<ISUM_BITS, RING_INDEX_BITS>(self.k_ci.val()) << 1) | 1)
            + ((bit_cast::<ISUM_BITS, RING_INDEX_BITS>(!bit_cast::<RING_INDEX_BITS, 3>(
                self.k_oc.val(),
            )) << 1)
                | bit_cast::<ISUM_BITS, 1>((self.r_ci_inc.q.val() || self.r_pop.q.val()).into()));

        self.pop.next = false;
        self.push.next = false;
        self.ci_inc.next = false;
        self.set_err.next = false;
        self.set_blk.next = false;

        // One-hot state (timing: the binary state's enable was the critical path): `st` bit
        // k is state k of [`SeState`], except bit 0, stored inverted (`st` = 0 is `Idle`, the
        // flip-flops' initial value); `s` is the decoded state. Each state's branch sets the
        // state it goes to in `nx` and itself in `lv` (leaving).
        self.nx.next = 0.into();
        self.lv.next = 0.into();
        if self.s.val().get_bit(0) {
            // Idle
            if self.qpc_write.val()
                || self.r_pop.q.val()
                || self.r_ci_inc.q.val()
                || self.r_set_err.q.val()
                || self.r_set_blk.q.val()
            {
                // The context RAM is being written, or a QP update is pending.
            } else if self.rdcq_valid.val() {
                // (A head that just arrived waits a cycle: its QP is then in `rq_qp`.)
                if self.rq_h.q.val() {
                    self.rdcq_take.next = true;
                    self.cur.d.next = self.rdcq_qp.val();
                    // The CQE's status (`c_*` is free in `Idle`).
                    self.c_st.d.next = self.rdcq_status.val();
                    if self.s_oc.val().any() {
                        self.nx.next = self.nx.val() | 8192; // Rdc
                        self.lv.next = self.lv.val() | 1;
                    }
                }
            } else if self.any_q.q.val() && !self.pf_busy.val() {
                self.cur.d.next = self.pick_q.q.val();
                self.rr.d.next = self.pick_q.q.val();
                self.nx.next = self.nx.val() | 2; // Load
                self.lv.next = self.lv.val() | 1;
            }
        }
        if self.s.val().get_bit(13) {
            // Rdc
            // The oldest Read's length is on the RAM output (its signaled bit in `orq_sig`,
            // its index ci - count).
            self.pop.next = true;
            self.c_op.d.next = 2.into();
            // (The length and the index are taken in `Cqe`.)
            if self.sig_rd.val() || self.c_st.q.val().any() {
                self.nx.next = self.nx.val() | 16384; // Cqe
                self.lv.next = self.lv.val() | 8192;
            } else {
                self.nx.next = self.nx.val() | 1; // Idle
                self.lv.next = self.lv.val() | 8192;
            }
        }
        if self.s.val().get_bit(1) {
            // Load
            // Register the served QP's flags: the decision is taken in `Load2`.
            self.l_en.d.next = self.k_en.val();
            self.l_err.d.next = self.k_err.val();
            self.l_oc.d.next = self.k_oc.val().any();
            self.l_ne.d.next = self.k_ne.val();
            self.l_blk.d.next = self.k_blk.val();
            // `Load2` takes the prefetched WQE (registered here: it addresses `orq`).
            self.l_pf.d.next = self.k_en.val()
                && !self.k_err.val()
                && self.k_ne.val()
                && !self.k_blk.val()
                && (self.pf_st.q.val() == 4)
                && !self.qpc_write.val()
                && (self.pf_qp.q.val() == self.cur.q.val());
            self.nx.next = self.nx.val() | 4; // Load2
            self.lv.next = self.lv.val() | 2;
        }
        if self.s.val().get_bit(2) {
            // Load2
            self.foff.d.next = self.foff_n.val();
            self.c_st.d.next = 5.into();
            if !self.l_en.q.val() {
                // The pick is a cycle old: the QP may have no work any more.
                self.nx.next = self.nx.val() | 1; // Idle
                self.lv.next = self.lv.val() | 4;
            } else if self.l_err.q.val() && self.l_oc.q.val() {
                // Flush the oldest outstanding Read (its entry is on the RAM output).
                self.nx.next = self.nx.val() | 8; // FlushRead
                self.lv.next = self.lv.val() | 4;
            } else if !self.l_ne.q.val() {
                self.nx.next = self.nx.val() | 1; // Idle
                self.lv.next = self.lv.val() | 4;
            } else if self.l_err.q.val() {
                self.ci_inc.next = true;
                if self.k_lst.val().any() {
                    self.c_op.d.next = self.k_lop.val();
                    self.c_st.d.next = bit_cast::<ST_BITS, 3>(self.k_lst.val());
                } else {
                    self.c_op.d.next = 0.into();
                }
                self.nx.next = self.nx.val() | 16384; // Cqe
                self.lv.next = self.lv.val() | 4;
            } else if self.l_blk.q.val() {
                self.nx.next = self.nx.val() | 1; // Idle
                self.lv.next = self.lv.val() | 4;
            } else if self.pf_take.val() {
                // The prefetched WQE is this one (the QP's ci moved on by exactly the one
                // WQE sent meanwhile): its word 0 is read at this edge.
                self.beat.d.next = 0.into();
                self.pf_use.d.next = true;
                self.nx.next = self.nx.val() | 64; // Fetch
                self.lv.next = self.lv.val() | 4;
            } else {
                self.beat.d.next = 0.into();
                self.pf_use.d.next = false;
                self.nx.next = self.nx.val() | 16; // Addr
                self.lv.next = self.lv.val() | 4;
            }
            // A prefetched WQE is taken or dropped at every `Load2`.
            if self.pf_st.q.val() == 4 {
                self.pf_st.d.next = 0.into();
            }
        }
        if self.s.val().get_bit(4) {
            // Addr (sq_base on the context RAM's output: `{cur, 0}` read at the last edge)
            self.faddr.d.next = ((self.ctx.read_data.val().get_bits::<DMA_ADDR_BITS>(0) >> 5) << 5)
                + bit_cast::<DMA_ADDR_BITS, 21>(self.foff.q.val());
            self.nx.next = self.nx.val() | 32; // FetchReq
            self.lv.next = self.lv.val() | 16;
        }
        if self.s.val().get_bit(3) {
            // FlushRead
            self.pop.next = true;
            self.c_op.d.next = 2.into();
            self.nx.next = self.nx.val() | 16384; // Cqe
            self.lv.next = self.lv.val() | 8;
        }
        if self.s.val().get_bit(5) {
            // FetchReq
            self.pf_use.d.next = false;
            if self.sq_rd_req_ready.val() {
                self.nx.next = self.nx.val() | 64; // Fetch
                self.lv.next = self.lv.val() | 32;
            }
        }
        if self.s.val().get_bit(6) {
            // Fetch
            if self.f_valid.val() {
                // (The words load their registers below, `f_ld`.)
                self.beat.d.next = self.beat.q.val() + 1;
                if self.f_last.val() {
                    self.pf_use.d.next = false;
                    self.nx.next = self.nx.val() | 128; // Decide
                    self.lv.next = self.lv.val() | 64;
                }
            }
        }
        if self.s.val().get_bit(7) {
            // Decide
            // (`msn`: below; `r_lw`, the length for the CQE.)
            self.c_op.d.next = self.wc_op.val();
            self.c_st.d.next = 0.into();
            self.done_seen.d.next = false;
            if self.w_unk.q.val() {
                if self.k_oc.val().any() {
                    self.set_blk.next = true;
                } else {
                    self.set_err.next = true;
                }
                self.nx.next = self.nx.val() | 1; // Idle
                self.lv.next = self.lv.val() | 128;
            } else if self.hold_q.q.val() {
                self.set_blk.next = true;
                self.nx.next = self.nx.val() | 1; // Idle
                self.lv.next = self.lv.val() | 128;
            } else if self.w_len.q.val().any() && !self.e_ok.q.val() {
                self.nx.next = self.nx.val() | 256; // Check
                self.lv.next = self.lv.val() | 128;
            } else {
                // No payload, or checked early (the prefetched WQE, `host_addr` set).
                // The WQE is sent: ci moves on (its CQE index is ci - 1 in `Cqe`).
                self.ci_inc.next = true;
                self.nx.next = self.nx.val() | 1024; // Msg
                self.lv.next = self.lv.val() | 128;
            }
        }
        if self.s.val().get_bit(8) {
            // Check
            if self.lchk_ready.val() {
                self.nx.next = self.nx.val() | 512; // CheckWait
                self.lv.next = self.lv.val() | 256;
            }
        }
        if self.s.val().get_bit(9) {
            // CheckWait
            if self.lrsp_valid.val() {
                self.host_addr.d.next = self.lrsp_host_addr.val();
                if self.lrsp_status.val().any() {
                    self.set_err.next = true;
                    self.nx.next = self.nx.val() | 1; // Idle
                    self.lv.next = self.lv.val() | 512;
                } else {
                    self.ci_inc.next = true;
                    self.nx.next = self.nx.val() | 1024; // Msg
                    self.lv.next = self.lv.val() | 512;
                }
            }
        }
        if self.s.val().get_bit(10) {
            // Msg
            if self.msg_ready.val() {
                // DdpTx takes a message at its end: its `msg_done` may come in the
                // cycle of the hand-over (`docs/core.md`, "The message job").
                if self.msg_done.val() {
                    self.done_seen.d.next = true;
                }
                if self.is_read.val() {
                    self.orq_push.next = true;
                    self.push.next = true;
                }
                self.nx.next = self.nx.val() | 2048; // WriteBack
                self.lv.next = self.lv.val() | 1024;
            }
        }
        if self.s.val().get_bit(11) {
            // WriteBack
            if self.msg_done.val() {
                self.done_seen.d.next = true;
            }
            if !self.qpc_write.val() {
                // The changed MSN's word (an RDMA Write rewrites MSN 0 unchanged).
                self.ctx_we.next = true;
                self.nx.next = self.nx.val() | 4096; // DoneWait
                self.lv.next = self.lv.val() | 2048;
            }
        }
        if self.s.val().get_bit(12) {
            // DoneWait
            // Not while the early check reads `orq` or presents its check (a done
            // meanwhile is kept).
            if self.msg_done.val() {
                self.done_seen.d.next = true;
            }
            if (self.msg_done.val() || self.done_seen.q.val()) && !self.ec_busy.val() {
                if self.is_read.val() {
                    // Outstanding since the hand-over; its CQE comes with `rdc`.
                    self.nx.next = self.nx.val() | 1; // Idle
                    self.lv.next = self.lv.val() | 4096;
                } else if self.w_sig.q.val() {
                    self.nx.next = self.nx.val() | 16384; // Cqe
                    self.lv.next = self.lv.val() | 4096;
                } else {
                    self.nx.next = self.nx.val() | 1; // Idle
                    self.lv.next = self.lv.val() | 4096;
                }
            }
        }
        if self.s.val().get_bit(14) {
            // Cqe
            // Into the holding register when it is free (one CQE at a time keeps them in
            // order).
            if !self.h_valid.q.val() {
                self.h_valid.d.next = true;
                // (The CQE's QP is the one served: `cur` changes only in `Idle`.)
                self.h_qp.d.next = self.cur.q.val();
                self.h_op.d.next = self.c_op.q.val();
                self.h_st.d.next = self.c_st.q.val();
                // The length from `orq`'s output (the entry at `orq_ra_q`, held in `Cqe`):
                // the Read's, or the Write / Send's (written at `r_lw`); 0 for an error or a
                // flush (every such CQE has a status other than 0).
                self.h_len.d.next = self.orq.read_data.val().get_bits::<LOCAL_LEN_BITS>(0);
                if self.c_st.q.val().any() {
                    self.h_len.d.next = 0.into();
                }
                self.h_idx.d.next = self.c_isum.val().get_bits::<RING_INDEX_BITS>(1);
                self.nx.next = self.nx.val() | 1; // Idle
                self.lv.next = self.lv.val() | 16384;
            }
        }

        self.st.d.next = ((self.s.val() & !self.lv.val()) | self.nx.val()) ^ 1;
        // Registers loaded in several states, one assignment each with the constant loads
        // last (yosys then makes them flip-flop resets / sets, not a mux level).
        // The MSN: counted at the hand-over (a Read counts QN 1, a Send QN 0: `msn` is that
        // one's); read in `Decide` from the word addressed at the edge leaving `Fetch`
        // (`w_mop` is known from the first beat on), 1 when fresh.
        if self.s.val().get_bit(10) && self.msg_ready.val() && (self.w_mop.q.val() != 0) {
            self.msn.d.next = self.msn.q.val() + 1;
        }
        if self.s.val().get_bit(7) {
            self.msn.d.next = self.ctx.read_data.val();
        }
        if self.s.val().get_bit(7)
            && ((self.is_read.val() && self.k_f1.val()) || (!self.is_read.val() && self.k_f0.val()))
        {
            self.msn.d.next = 1.into();
        }
        self.r_pop.d.next = self.pop.val();
        self.r_push.d.next = self.push.val();
        // (Not held, known opcode: the message goes out, and the QP has no outstanding Read,
        // so its slot `oh` is free and is the one `Cqe` reads.)
        self.r_lw.d.next = self.s.val().get_bit(7)
            && !self.w_unk.q.val()
            && !self.hold_q.q.val()
            && !self.is_read.val();
        self.r_ci_inc.d.next = self.ci_inc.val();
        self.r_set_err.d.next = self.set_err.val();
        self.r_set_blk.d.next = self.set_blk.val();
        self.hold_q.d.next = self.hold.val();

        // FIFO RAM: read the oldest entry of `sel` (used at the edge leaving Idle / Load);
        // while writing an entry, read another one; in `Cqe` keep reading the entry the state
        // before it addressed (the CQE's length: the Read's, or the Write / Send's written
        // at `r_lw`; a pop applied meanwhile moves `oh`).
        // The prefetch writes its beats at `{1, pfb, beat}` (never with a push or `r_lw`: the
        // prefetch runs only while a Write / Send is offered, from the third cycle after its
        // `Decide` on; a push follows a Read's hand-over).
        // A fetch's beats go into the sent WQE's half `{1, !pfb, beat}` too (words 3, 6, 7 are
        // read from there as `msg_stag` / `msg_to`; never with a push or `r_lw` either).
        self.o_pf.next = bits::<5>(16) | (bit_cast::<5, 1>(self.pfb.q.val().into()) << 3);
        self.o_cur.next = self.o_pf.val() ^ 8;
        self.f_wr.next =
            self.s.val().get_bit(6) && self.sq_rd_cpl_valid.val() && !self.pf_use.q.val();
        self.orq.write_enable.next =
            self.r_push.q.val() || self.r_lw.q.val() || self.pf_wr.val() || self.f_wr.val();
        self.orq_raddr.next =
            (bit_cast::<4, CONN_BITS>(self.sel.val()) << 2) | bit_cast::<4, 2>(self.s_oh.val());
        self.ra_def.next = !(self.r_push.q.val()
            || self.r_lw.q.val()
            || self.s.val().get_bit(14)
            || (self.ec_st.q.val() == 1)
            || self.pf_take.val()
            || self.pf_use.q.val());
        self.rd_def.next =
            self.ra_def.val() && !self.msg_pick.val() && !self.msg_first.val() && !self.f1.q.val();
        self.orq_ra_c.next = 0.into();
        if self.r_push.q.val() || self.r_lw.q.val() {
            self.orq_ra_c.next = bit_cast::<5, 4>(self.orq_waddr.val() ^ 1);
        } else if self.s.val().get_bit(14) {
            self.orq_ra_c.next = bit_cast::<5, 4>(self.orq_ra_q.q.val());
        }
        self.cpl_nz.next = self.sq_rd_cpl_data.val().any();
        if self.f_wr.val() {
            self.orq.write_addr.next = self.o_cur.val() | bit_cast::<5, 3>(self.beat.q.val());
            self.orq.write_data.next = self.sq_rd_cpl_data.val();
        }
        if self.pf_wr.val() {
            self.orq.write_addr.next = self.o_pf.val() | bit_cast::<5, 3>(self.beat.q.val());
            self.orq.write_data.next = self.sq_rd_cpl_data.val();
            // Word 4 (the local address's upper half) is kept as "not 0" in `pf_ahi`, not in
            // the RAM: the 32-input OR stays off the RAM's write data (timing).
            if self.beat.q.val() == 4 {
                self.pf_ahi.d.next = self.cpl_nz.val();
            }
        }
        // The early check reads words 0..=5 of the prefetched WQE (below; never with
        // `pf_take` / `pf_use`, which stay last in this mux: timing).
        if self.ec_st.q.val() == 1 {
            self.orq_ra_c.next = self.o_pf.val() | bit_cast::<5, 3>(self.beat.q.val());
        }
        // A prefetched WQE is read word by word: word 0 at the edge leaving `Load2`, word
        // `beat + 1` in `Fetch`. Taking it makes its half the sent WQE's (`pfb` flips).
        if self.pf_take.val() {
            self.orq_ra_c.next = self.o_pf.val();
            self.pfb.d.next = !self.pfb.q.val();
        }
        if self.pf_use.q.val() {
            self.orq_ra_c.next = self.o_cur.val() | bit_cast::<5, 3>(self.beat.q.val() + 1);
        }
        self.orq_ra.next = self.orq_ra_c.val();
        if self.ra_def.val() {
            self.orq_ra.next = bit_cast::<5, 4>(self.orq_raddr.val());
        }
        self.orq.read_addr.next = self.orq_ra_c.val();
        // The message's rkey and remote address (`msg_stag` / `msg_to`), each read in the
        // cycle before DdpTx reads it: word 7 (TO low) at T-1 (`msg_pick`), word 3 (STag) at
        // T (`msg_first`), word 6 (TO high) at T+1 (`f1`). Nothing else reads `orq` then (the
        // early check starts after `msg_take`, `Cqe` after `msg_done`, which DdpTx strobes
        // after T+2); not in `orq_ra_q` (`Cqe`'s address).
        self.f1.d.next = self.msg_first.val();
        if self.msg_pick.val() {
            self.orq.read_addr.next = self.o_cur.val() | bits::<5>(7);
        }
        if self.msg_first.val() {
            self.orq.read_addr.next = self.o_cur.val() | bits::<5>(3);
        }
        if self.f1.q.val() {
            self.orq.read_addr.next = self.o_cur.val() | bits::<5>(6);
        }
        if self.rd_def.val() {
            self.orq.read_addr.next = bit_cast::<5, 4>(self.orq_raddr.val());
        }
        // The signaled bits: written with the entry, read beside it through the registered
        // read address, like the RAM (the upper half has none).
        self.orq_ra_q.d.next = self.orq_ra.val().get_bits::<4>(0);
        // (In the Cu profile, `SIG_IN_ORQ`, the bit is the entry's bit 31: written with the
        // length at `r_push`, read on the RAM's output.)
        self.sig_rd.next = false;
        for i in 0..16 {
            self.orq_sig[i].clock.next = self.clock.val();
            self.orq_sig[i].d.next = self.orq_sig[i].q.val();
            for _k in SIG_IN_ORQ..1 {
                if self.r_push.q.val() && (self.orq_waddr.val().index() == i) {
                    self.orq_sig[i].d.next = self.w_sig.q.val();
                }
                if self.orq_ra_q.q.val().index() == i {
                    self.sig_rd.next = self.orq_sig[i].q.val();
                }
            }
        }
        for _k in 0..SIG_IN_ORQ {
            self.sig_rd.next = self.orq.read_data.val().get_bit(31);
        }
        // Context RAM, one word a cycle. A context commit writes the base word only and sets
        // both fresh flags (MSNs 1). The write-back writes `{cur, 2}` (Read) or `{cur, 1}`.
        self.ctx.write_enable.next = self.ctx_we.val() || self.qpc_write.val();
        if self.is_read.val() {
            self.ctx_waddr.next = (bit_cast::<4, CONN_BITS>(self.cur.q.val()) << 2) | 2;
        } else {
            self.ctx_waddr.next = (bit_cast::<4, CONN_BITS>(self.cur.q.val()) << 2) | 1;
        }
        if self.qpc_write.val() {
            self.ctx_waddr.next = bit_cast::<4, CONN_BITS>(self.qpc_qp.val()) << 2;
            self.ctx.write_data.next = ((self.qpc_sq_base.val() >> 5) << 5)
                | bit_cast::<32, RING_LOG2_BITS>(self.qpc_sq_log2.val());
            for _k in 0..CTX_HI {
                // The PD at bits 31..28, the ORD at 26..24 (the DMA address is bits 23..0).
                self.ctx.write_data.next = (((self.qpc_sq_base.val() << 8) >> 13) << 5)
                    | (bit_cast::<32, PD_BITS>(self.qpc_pd.val()) << 28)
                    | (bit_cast::<32, 3>(self.qpc_ordc.val()) << 24)
                    | bit_cast::<32, RING_LOG2_BITS>(self.qpc_sq_log2.val());
            }
        }
        self.ctx.write_addr.next = self.ctx_waddr.val();
        // Reads: the MSN of the WQE's queue in `Fetch` (word 1 or 2); elsewhere sq_base (word
        // 0) of `sel` (the served QP outside `Idle`), so that `Addr` and the prefetch's
        // address step find it on the RAM's output (issue 5: no `base` register; the
        // write-back writes word 1 or 2). A commit of `sel`'s QP moves the read to word 3
        // (never written: no read meets the write; in `Idle` the engine stays there, and
        // outside it that is the unsupported reset of a busy QP). The write-back (`WriteBack`)
        // is at least a cycle (`DoneWait`) before the next `Idle`: no read-after-write hazard.
        self.ctx_rw.next = 0.into();
        if self.qpc_write.val() && (self.qpc_qp.val() == self.sel.val()) {
            self.ctx_rw.next = 3.into();
        }
        if self.s.val().get_bit(6) && self.is_read.val() {
            self.ctx_rw.next = 2.into();
        }
        if self.s.val().get_bit(6) && !self.is_read.val() {
            self.ctx_rw.next = 1.into();
        }
        self.ctx.read_addr.next =
            (bit_cast::<4, CONN_BITS>(self.sel.val()) << 2) | bit_cast::<4, 2>(self.ctx_rw.val());

        // Per-QP registers.
        for i in 0..QPS {
            self.q_en[i].clock.next = self.clock.val();
            self.q_en[i].d.next = self.q_en[i].q.val();
            self.q_err[i].clock.next = self.clock.val();
            self.q_err[i].d.next = self.q_err[i].q.val();
            self.q_blk[i].clock.next = self.clock.val();
            self.q_blk[i].d.next = self.q_blk[i].q.val();
            self.q_lst[i].clock.next = self.clock.val();
            self.q_lst[i].d.next = self.q_lst[i].q.val();
            self.q_lop[i].clock.next = self.clock.val();
            self.q_lop[i].d.next = self.q_lop[i].q.val();
            self.q_ci[i].clock.next = self.clock.val();
            self.q_ci[i].d.next = self.q_ci[i].q.val();
            self.q_pi[i].clock.next = self.clock.val();
            self.q_pi[i].d.next = self.q_pi[i].q.val();
            self.q_pd[i].clock.next = self.clock.val();
            self.q_pd[i].d.next = self.q_pd[i].q.val();
            self.q_ord[i].clock.next = self.clock.val();
            self.q_ord[i].d.next = self.q_ord[i].q.val();
            self.q_oh[i].clock.next = self.clock.val();
            self.q_oh[i].d.next = self.q_oh[i].q.val();
            self.q_oc[i].clock.next = self.clock.val();
            self.q_oc[i].d.next = self.q_oc[i].q.val();
            self.q_f0[i].clock.next = self.clock.val();
            self.q_f0[i].d.next = self.q_f0[i].q.val();
            self.q_f1[i].clock.next = self.clock.val();
            self.q_f1[i].d.next = self.q_f1[i].q.val();
            if self.cur.q.val().index() == i {
                if self.ctx_we.val() {
                    if self.is_read.val() {
                        self.q_f1[i].d.next = false;
                    } else {
                        self.q_f0[i].d.next = false;
                    }
                }
                if self.r_ci_inc.q.val() {
                    // An incrementer per QP: its sum LUTs pack with the QP's ci flip-flops
                    // (one shared incrementer left them alone in their logic cells).
                    self.q_ci[i].d.next = self.q_ci[i].q.val() + 1;
                }
                if self.r_pop.q.val() {
                    self.q_oh[i].d.next = self.q_oh[i].q.val() + 1;
                    self.q_oc[i].d.next = self.q_oc[i].q.val() - 1;
                }
                if self.r_push.q.val() {
                    self.q_oc[i].d.next = self.q_oc[i].q.val() + 1;
                }
                // A pop unblocks the QP (a Read completed, `Rdc`; at a `FlushRead` the QP is
                // in error, where `q_blk` is never read, and `qpc_write` clears it): no
                // `r_unblock` strobe of its own (issue 5).
                if self.r_pop.q.val() {
                    self.q_blk[i].d.next = false;
                }
                if self.r_set_blk.q.val() {
                    self.q_blk[i].d.next = true;
                }
                if self.r_set_err.q.val() {
                    self.q_err[i].d.next = true;
                    self.q_lop[i].d.next = self.wc_op.val();
                    if self.w_unk.q.val() {
                        self.q_lst[i].d.next = 2.into();
                    } else {
                        self.q_lst[i].d.next = 4.into();
                    }
                }
                // The latched local error is cleared when ci moves past its WQE (the flush
                // in `Load2`; every other ci step is of a QP whose `q_lst` is 0: it is set
                // only with the QP's error, whose next ci step is that flush): no
                // `r_clr_lst` strobe of its own (issue 5).
                if self.r_ci_inc.q.val() {
                    self.q_lst[i].d.next = 0.into();
                }
            }
            if self.sq_db_valid.val() && (self.sq_db_qp.val().index() == i) {
                self.q_pi[i].d.next = self.sq_db_pi.val();
            }
            if self.qp_err_valid.val() && (self.qp_err_qp.val().index() == i) {
                self.q_err[i].d.next = true;
            }
            if self.qpc_write.val() && (self.qpc_qp.val().index() == i) {
                self.q_en[i].d.next = self.qpc_enable.val();
                self.q_err[i].d.next = false;
                self.q_blk[i].d.next = false;
                self.q_lst[i].d.next = 0.into();
                self.q_ci[i].d.next = 0.into();
                self.q_pi[i].d.next = 0.into();
                self.q_pd[i].d.next = self.qpc_pd.val();
                self.q_ord[i].d.next = self.qpc_ordc.val();
                self.q_oh[i].d.next = 0.into();
                self.q_oc[i].d.next = 0.into();
                self.q_f0[i].d.next = true;
                self.q_f1[i].d.next = true;
            }
        }
        // ---- Early check of the prefetched WQE: once DdpTx took the Write / Send being
        // sent (`tk`), its words 0..=5 are read from `orq` into the fields the message no
        // longer needs, the local check is made, and on success the payload region is the
        // read-ahead hint (`e_ok`), kept until that WQE's message is taken, or dropped when
        // the engine does anything else with it (another `Load2`, a hold or an error in
        // `Decide`, a context write). `Decide` then skips the check.
        self.ec_busy.next = (self.ec_st.q.val() == 1) || (self.ec_st.q.val() == 2);
        if self.s.val().get_bit(7) {
            self.tk.d.next = false;
        }
        if (self.ec_st.q.val() == 0)
            && self.tk.q.val()
            && !self.is_read.val()
            && (self.pf_st.q.val() == 4)
            && (self.s.val().get_bit(10)
                || self.s.val().get_bit(11)
                || (self.s.val().get_bit(12) && !self.msg_done.val() && !self.done_seen.q.val()))
        {
            // (Not in the cycle `DoneWait` is left: `orq` is the engine's from then on.)
            self.ec_st.d.next = 1.into();
            self.beat.d.next = 0.into();
        }
        if self.ec_st.q.val() == 1 {
            // Word `beat` is addressed (`orq_ra`); word `beat - 1` is on the RAM output.
            self.beat.d.next = self.beat.q.val() + 1;
            if self.beat.q.val() == 1 {
                // Opcode 0 or 2..=5: octet 0 below 8 and its low 3 bits neither 1, 6 nor 7
                // (from the RAM's output, no compare chain: timing).
                self.ec_ws.d.next = (self.orq.read_data.val().get_bits::<5>(27) == 0)
                    && (self.orq.read_data.val().get_bits::<3>(24) != 1)
                    && (self.orq.read_data.val().get_bits::<3>(24) < 6);
            }
            if self.beat.q.val() == 6 {
                // A hint only for a Write / Send with payload.
                // (Below 64 KiB: `nxt_len` is 16 bits.)
                if self.ec_ws.q.val()
                    && self.w_len.q.val().any()
                    && ((self.w_len.q.val() >> 16) == 0)
                {
                    self.ec_st.d.next = 2.into();
                } else {
                    self.ec_st.d.next = 4.into();
                }
            }
        }
        // The WQE word registers, one load enable each (`f_ld` bit = word; two enables on one
        // register made yosys build a mux per bit instead of a flip-flop enable): word `beat`
        // of a fetch, and the early check's words 1, 2, 4, 5 (word `beat - 1` on the RAM
        // output) into the registers the message no longer needs.
        self.f_ld.next = 0.into();
        if self.s.val().get_bit(6) && self.f_valid.val() {
            self.f_ld.next = bits::<8>(1) << bit_cast::<8, 3>(self.beat.q.val());
        }
        if self.ec_st.q.val() == 1 {
            if self.beat.q.val() == 2 {
                self.f_ld.next = 2.into();
            }
            if self.beat.q.val() == 3 {
                self.f_ld.next = 4.into();
            }
            if self.beat.q.val() == 5 {
                self.f_ld.next = 16.into();
            }
            if self.beat.q.val() == 6 {
                self.f_ld.next = 32.into();
            }
        }
        // The WQE opcode (word 0 bits 31..24) above 5: unknown (`w_unk`, and 7 in `w_mop`).
        self.f_unk.next = (self.f_data.val().get_bits::<5>(27) != 0)
            || (self.f_data.val().get_bit(26) && self.f_data.val().get_bit(25));
        if self.f_ld.val().get_bit(0) {
            if self.f_data.val().get_bits::<3>(24) < 2 {
                self.w_mop.d.next = self.f_data.val().get_bits::<3>(24);
            } else {
                self.w_mop.d.next = self.f_data.val().get_bits::<3>(24) + 1;
            }
            if self.f_unk.val() {
                self.w_mop.d.next = 7.into();
            }
            // Opcode decodes registered (timing): Read (1), unknown (above 5).
            self.w_rd.d.next = self.f_data.val().get_bits::<8>(24) == 1;
            self.w_unk.d.next = self.f_unk.val();
            self.w_sig.d.next = self.f_data.val().get_bit(16);
            self.w_fence.d.next = self.f_data.val().get_bit(17);
        }
        // Words 1..=7 choose their source by their own select (`f_orq`: the same shape as
        // `f_ld`, but only the `orq` loads) rather than from `f_data`.
        self.f_orq.next = 0.into();
        if self.pf_use.q.val() {
            self.f_orq.next = bits::<8>(1) << bit_cast::<8, 3>(self.beat.q.val());
        }
        if self.ec_st.q.val() == 1 {
            if self.beat.q.val() == 2 {
                self.f_orq.next = 2.into();
            }
            if self.beat.q.val() == 3 {
                self.f_orq.next = 4.into();
            }
            if self.beat.q.val() == 5 {
                self.f_orq.next = 16.into();
            }
            if self.beat.q.val() == 6 {
                self.f_orq.next = 32.into();
            }
        }
        if self.f_ld.val().get_bit(1) {
            if self.f_orq.val().get_bit(1) {
                self.w_len.d.next = self.orq.read_data.val().get_bits::<LOCAL_LEN_BITS>(0);
            } else {
                self.w_len.d.next = self.sq_rd_cpl_data.val().get_bits::<LOCAL_LEN_BITS>(0);
            }
        }
        if self.f_ld.val().get_bit(2) {
            if self.f_orq.val().get_bit(2) {
                self.w_lkey.d.next = self.orq.read_data.val();
            } else {
                self.w_lkey.d.next = self.sq_rd_cpl_data.val();
            }
        }
        if self.f_ld.val().get_bit(4) {
            // (The prefetched WQE's flag is `pf_ahi`.)
            if self.f_orq.val().get_bit(4) {
                self.w_ahi.d.next = self.pf_ahi.q.val();
            } else {
                self.w_ahi.d.next = self.cpl_nz.val();
            }
        }
        if self.f_ld.val().get_bit(5) {
            if self.f_orq.val().get_bit(5) {
                self.w_addr_lo.d.next = self.orq.read_data.val();
            } else {
                self.w_addr_lo.d.next = self.sq_rd_cpl_data.val();
            }
        }
        if (self.ec_st.q.val() == 2) && self.lchk_ready.val() {
            self.ec_st.d.next = 3.into();
        }
        if (self.ec_st.q.val() == 3) && self.lrsp_valid.val() {
            self.host_addr.d.next = self.lrsp_host_addr.val();
            self.e_ok.d.next = !self.lrsp_status.val().any();
            self.ec_st.d.next = 4.into();
        }
        self.ec_drop.next = self.qpc_write.val()
            || (self.s.val().get_bit(2) && !self.pf_take.val())
            || (self.s.val().get_bit(7) && (self.w_unk.q.val() || self.hold_q.q.val()));
        if self.msg_take.val() || self.ec_drop.val() {
            self.ec_st.d.next = 0.into();
            self.e_ok.d.next = false;
        }
        if self.msg_take.val() {
            self.tk.d.next = true;
        }
        self.nxt_valid.next = self.e_ok.q.val();
        self.nxt_len.next = self.w_len.q.val().get_bits::<16>(0);
        self.lchk_valid.next = self.s.val().get_bit(8) || (self.ec_st.q.val() == 2);

        // The engine took the head of `rdcq`.
        self.rq_rn.next = self.rq_rp.q.val();
        if self.rdcq_take.val() {
            self.rq_rn.next = self.rq_rp.q.val() + 1;
        }
        self.rq_rp.d.next = self.rq_rn.val();
        self.rdcq.read_addr.next = self.rq_rn.val().get_bits::<4>(0);
        self.rq_v.d.next = self.rq_rn.val() != self.rq_wp.q.val();
        self.rq_h.d.next = self.rq_v.q.val() && !self.rdcq_take.val();
    }
}

crate::sim_ports!(impl[] SendEngine {
    inputs: qpc_write, qpc_qp, qpc_enable, qpc_pd, qpc_ord, qpc_sq_base, qpc_sq_log2,
        sq_db_valid, sq_db_qp, sq_db_pi, qp_err_valid, qp_err_qp, sq_rd_req_ready,
        sq_rd_cpl_valid, sq_rd_cpl_tag, sq_rd_cpl_data, sq_rd_cpl_keep, sq_rd_cpl_last,
        lchk_ready, lrsp_valid, lrsp_status, lrsp_host_addr, msg_ready, msg_done, msg_take,
        msg_pick, msg_first, rdc_valid, rdc_qp, rdc_status, scqe_ready;
    outputs: sq_rd_req_valid, sq_rd_req_addr, sq_rd_req_len, sq_rd_req_tag, lchk_valid,
        lchk_stag, lchk_to, lchk_len, lchk_pd, lchk_qp, lchk_access, msg_valid, msg_conn,
        msg_opcode, msg_stag, msg_to, msg_inv_stag, msg_src_to, msg_msn, msg_addr, msg_len,
        orq_push, orq_push_qp, rdc_ready, scqe_valid, scqe_qp, scqe_opcode, scqe_status,
        scqe_byte_len, scqe_index, idle, nxt_valid, nxt_len;
});

// `rdcq` entries are {status[8], QP[2]} (a QP number of at most 2 bits), read at literal bit
// positions; the pick (`update`) is generated for 2 or 4 QPs.
const _: () = assert!(CONN_BITS == 1 || CONN_BITS == 2);
// The one-hot state register `st` has a bit per state, and `update` names the states by their
// bit numbers (`s.get_bit(k)`, `nx | 1 << k`): they are the enum's discriminants.
const _: () = assert!(
    SeState::Idle as u32 == 0
        && SeState::Load as u32 == 1
        && SeState::Load2 as u32 == 2
        && SeState::FlushRead as u32 == 3
        && SeState::Addr as u32 == 4
        && SeState::FetchReq as u32 == 5
        && SeState::Fetch as u32 == 6
        && SeState::Decide as u32 == 7
        && SeState::Check as u32 == 8
        && SeState::CheckWait as u32 == 9
        && SeState::Msg as u32 == 10
        && SeState::WriteBack as u32 == 11
        && SeState::DoneWait as u32 == 12
        && SeState::Rdc as u32 == 13
        && SeState::Cqe as u32 == 14
);
// `#[hdl_gen]` cannot name constants: the WQE opcode is decoded from literals (Write 0, Read
// 1, the Sends 2..=5, above 5 unknown; the early check's Write / Send test reads the same
// values from the WQE's octet 0), and a Send's RDMAP opcode is the WQE opcode + 1.
const _: () = {
    use rnic_proto::host::WqeOpcode;
    assert!(
        WqeOpcode::RdmaWrite as u8 == 0
            && WqeOpcode::RdmaRead as u8 == 1
            && WqeOpcode::Send as u8 == 2
            && WqeOpcode::SendSeInv as u8 == 5
            && WqeOpcode::ALL.len() == 6
            && WqeOpcode::RdmaWrite.rdmap_opcode() == 0
            && WqeOpcode::RdmaRead.rdmap_opcode() == 1
            && WqeOpcode::Send.rdmap_opcode() == WqeOpcode::Send as u8 + 1
            && WqeOpcode::SendInv.rdmap_opcode() == WqeOpcode::SendInv as u8 + 1
            && WqeOpcode::SendSe.rdmap_opcode() == WqeOpcode::SendSe as u8 + 1
            && WqeOpcode::SendSeInv.rdmap_opcode() == WqeOpcode::SendSeInv as u8 + 1
    );
};
// A CQE status is kept in `ST_BITS` bits (`c_st`, `h_st`, and `rdc_status[4:0]` in `rdcq`):
// every work-completion status is below `1 << ST_BITS`.
const _: () = {
    use rnic_proto::verbs::WcStatus;
    let mut i = 0;
    while i < WcStatus::ALL.len() {
        assert!((WcStatus::ALL[i] as u32) < (1 << ST_BITS));
        i += 1;
    }
};
