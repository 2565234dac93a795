//! RDMAP receive control (RFC 5040): the receive-check table, per-QP state, completions and the
//! one error path. Port contract, check table (rows 0-21) and completion rules: [`crate::rdmap`];
//! job / slot / verdict conventions: [`crate::ddp`]. Catalogs: `rfc5040-rdmap.md` §1.2-§1.6
//! (headers), §2.2 (per-message rules), §5.1-§5.4 (codes, check order), §7.1 (per-QP state);
//! `mpa-peer-connect.md` §6 (DDP codes).
//!
//! # Behaviour
//!
//! ```text
//!  job_* ─► front FSM ──(Write / Read Response / Read Request with a StagCheck)──► check queue ─┐
//!   hdr_a ◄─┘ │ rows 0-21, per-QP state, RQ, a Send's StagChecks        (CQ_DEPTH entries,   │
//!             │                                                           chk responses)   │
//!             └──── every other verdict (queue empty) ─────────────────────────► vd_* ◄──────┘
//!                                                   pending record (conn, slot) ─► block RAM
//!  done_* ─► done lane: record read; no events ─► free_*; events ─► front FSM (DoneGet, Emit)
//! ```
//!
//! - **Job** (front FSM): reads header words 0-3 of the job's slot (tagged), 0-5 (untagged),
//!   0-11 (Read Request) or 0-5 (Terminate), starting in the cycle the job is taken; runs the
//!   rows in order with the QP's state; advances the QP's expectations (MSNs, expected MO, IRQ
//!   count at row 19, ORQ count at a Read Response L = 1); then
//!   - a Write, Read Response or Read Request that needs a StagCheck is pushed into the check
//!     queue with the request and the front FSM takes the next job at once: the StagCheck
//!     latency overlaps the next jobs' rows. The queue sends their verdicts in job order as
//!     the responses come back (a failed check gives the error record, and the QP dies then;
//!     a job of a QP that died after its rows ran is dropped);
//!   - anything else (drops, failed rows, Terminates, zero-length payloads, Sends) waits until
//!     the queue is empty, so that it sees the QP state left by every earlier job, and sends
//!     its verdict itself. A Send asks the RQ for the head WQE, runs rows 15-16, then its lkey
//!     check (row 17) and the invalidate (row 21) one after the other. A Send L = 1 that
//!     passed them all pops its WQE (`rq_req_pop = 1`) before its verdict goes out.
//!
//!   With the verdict, the segment's *pending record* (what to do at its `done_*`) is written
//!   into a small block RAM indexed by (conn, slot).
//! - **Done** (done lane): takes `done_*` (slots alternate per connection, as the parser uses
//!   them), reads the record; a record without events (nothing to do, `done_good = 0`, QP in error
//!   or disabled) frees the slot right there, in parallel with the jobs. Otherwise the front FSM,
//!   between jobs, emits: Recv CQE (the WQE was popped at the check); RdmaRead CQE; the Read
//!   Request on `irq_*`, five words (the record's source address, then the sink STag, sink TO high
//!   / low and size as the header is read again from the still-held slot, so the record keeps only
//!   the source address; served only once the ReadResponder's `irq_ready` level is seen,
//!   `docs/core.md` "ReadResponder"); async TerminateReceived / BadTerminateReceived; or the error:
//!   `term_*`, `aev_*` TerminateSent and, for rows 12/16/17/21, the error CQE (and WQE pop). Then
//!   the slot is freed, except after a Terminate request (freed after its `term_done`).
//! - The front FSM takes, in this priority: a done with events, a latched LLP error
//!   (`llp_err_*`, latched per connection), a slot to free after `term_done`, a job. A Read
//!   Request's done waits for `irq_ready` holding the FSM (as it waited for the handshake of a
//!   whole-request output register before).
//!
//! # Decisions (not fixed by the contract)
//!
//! - A failing row marks the QP *dying* at the check: every later job of that QP gets
//!   `vd_place = 0` and produces no events (as after the error). The error itself (QP in error,
//!   Terminate, events) is committed at the offending segment's `done_*` with `done_good = 1`,
//!   or by an LLP error. A received Terminate also marks the QP dying at its check.
//! - A segment that fails any row, row 21 included, is not placed (`vd_place = 0`).
//! - A Send's receive WQE is popped when its L = 1 segment passes its checks (rows 13-17 and
//!   21, state SendOk), not at its `done_*`, which then writes only the Recv CQE: the RQ's
//!   prefetch of the next head WQE (HostIf, a DMA round trip) then runs while this segment is
//!   placed, and the next Send's head read, issued after this done, is answered at once
//!   (4 KiB Sends in the loopback: 0.969 to 0.983 of the framing bound). The pop is taken
//!   before the verdict goes out (`Direct` waits for `rq_req_*`), so the next Send's read
//!   comes after it (the RQ serves requests in order). Such a segment that then ends with
//!   `done_good = 0` (CRC or marker error) has had its WQE popped without a CQE: MpaRx reports
//!   the LLP error, the QP goes to error, and the driver, which counts RQ slots by their CQEs
//!   and never reads the hardware's consumer index, does not reuse the slot. A Send that fails
//!   a row keeps the pop at its done, with its error CQE (rows 16, 17, 21).
//! - A Send waits (its job is held; dones, LLP errors and frees go on) while a Send L = 1 of
//!   the same QP is checked but not yet done: the done's CQE takes that Send's WQE index from
//!   field 3 of the context RAM, which the next Send's head read would overwrite (see
//!   "State"). Jobs stay in order, so the jobs behind it wait too.
//! - A verdict sent from `Direct` is applied (Eval2) only when the check queue is empty and the
//!   verdict register is free, so `Direct` never waits for `vd_ready`. While a job waits in
//!   Eval2 (for the queue, the verdict register or an `orq_push` / `irq_done`, both registered
//!   on entry), a done with events takes the FSM first and the job runs again from its first
//!   header word: RxPlace takes a verdict only once its previous `done_*` was taken, so a job
//!   holding the FSM while that done waits for it is a deadlock (seen with small LLP segments
//!   and heavy back-pressure; `sim/tests/rx_path.rs`, `campaign_harsh_no_deadlock_verilator`).
//! - The RQ answers (`rq_rsp_valid`) only reads (`rq_req_pop = 0`), at the earliest in the
//!   cycle after the read was taken; a pop has no answer.
//! - Error CQEs have `cqe_byte_len = 0`; RdmaRead CQEs carry `cqe_index = 0` and
//!   `cqe_byte_len = 0` (the SQ side knows the Read's WQE and length). A Recv CQE without
//!   Invalidate has `cqe_inv_stag = 0`.
//! - LLP errors: Terminate with seglen 0, slot 0, M = D = R = 0; no slot is freed at its
//!   `term_done`. A BadTerminateReceived event carries layer / etype / code 0.
//! - `chk_to` / `chk_len` of an invalidate request are don't-care (not zeroed).
//! - `qp_cfg_write` must not be issued for a QP with segments in flight: a segment whose job
//!   is checked after the write is checked against the reset QP (a dropped Read Response of
//!   before the reset would take a Read pushed after it). The firmware waits for RxPath's
//!   `rx_idle`, which includes this block's `idle` output (an addition to the contract's port
//!   list): no job taken or held, no done, no check in the queue, no latched LLP error, no
//!   Terminate slot held or to free, and every output register (`chk_*`, `vd_*`, `free_*`,
//!   `rq_req_*`, `irq_*`, `cqe_*`, `aev_*`, `term_*`) empty.
//! - The StagCheck answers in request order (a fixed-latency pipeline), at the earliest in the
//!   cycle after `chk_valid`. Responses are matched by that order, not by `rsp_tag` (see
//!   "State").
//!
//! # State
//!
//! - Per-QP flags and small counters (enable, PD, IRD, error / dying, IRQ / ORQ counts, the
//!   latched LLP error, Terminate hold, pending segments, done slot) are flip-flops: the done
//!   lane, the check queue and the LLP priority read them in parallel with the job.
//! - The expected MSNs of QN 0 and QN 1 and the expected MO (3 x 32 bits per QP) live in one
//!   block RAM (`qctx`, 16 bits wide, `{conn, field, half}`; words 8 and 9 of a connection
//!   are its slots' segment lengths, see the check queue), read while the header words
//!   arrive: each half's address goes out one cycle before the word it is compared with (MSN
//!   high half with word 2's low half, MO high half with word 3's low half; MSN low half with
//!   word 4 against `chk_to_q`'s low half, loaded with octets 10-13 at word 3; MO low half with
//!   word 5 against `chk_to_q`'s low half, loaded with octets 14-17 at word 4: so each compare
//!   has one operand, and an untagged job reads one word more, word 5). The header's MSN is
//!   kept plus 1 (`h_b`, incremented as it is captured, from `chk_to_q` at word 4: a
//!   register's chain, not the header RAM's) and MO + P is summed as word 4 arrives
//!   (`s_sum`); the header's MO goes whole into `chk_to_q` at word 4 (an untagged job uses `chk_to` only from RqWait on): a
//!   Send's TO + MO in RqWait adds it to the WQE's TO (it is the expected MO since row 14
//!   passed), and `chk_to_q` loads the sum only with the RQ's answer. A
//!   QP configuration write sets the QP's three *fresh* flags (the field has its reset value,
//!   MSN 1 / MO 0, whatever the RAM holds); an update writes the new value (the header's
//!   MSN plus 1, MO plus P) in two halves, the low one in the update cycle (`ap_*`), the high one in the
//!   next, and clears the flag; MO back to 0 after L = 1 only sets the flag. The next job's
//!   first context read is at least one cycle after the high half was written (it is taken in
//!   the update cycle at the earliest, and addresses the MSN with its word 1), so there is no
//!   read-after-write hazard and no bypass. Field 3's low half is the WQE index of the QP's
//!   Send (written in RqWait, when no update is written): `cqe_index` is the read port itself,
//!   addressed from the Idle cycle before DoneGet until the CQE is taken (Emit), at field 3's
//!   high half for an RdmaRead CQE (index 0): a QP has at most one Send whose index a done needs (a Send L = 1 checked
//!   and not done blocks the QP's next Send; a failed one kills the QP). The read port's idle
//!   address (field 3, high half) is never written, so a read never meets a write of the same
//!   entry.
//! - The pending record (44 bits, 3 block RAMs, `rec`): kind (3), Invalidate, solicited, a
//!   32-bit value (a Recv's byte count, a Read Request's `irq_src_addr`, a received
//!   Terminate's triple, or a failure's triple in its low half), M / D / R, the error CQE
//!   (none, Recv WQE popped, RdmaRead) and its status (LocLen, LocProt, General). A front
//!   failure carries a 4-bit code (`ec_*`, not the 16-bit triple) through `f_code` / `e_code`
//!   / `pf_code`, decoded by a 4-input table (`pc_*`) into `o_*` one cycle after the failure;
//!   a queued check's failure builds its triple from (context, status) at the pop.
//! - The check queue has two entries (conn, slot, context, L; the response's status): that covers
//!   the StagCheck latency at the job rate (the throughput below is that of four entries). A
//!   response goes to the oldest entry without one (`cq_gp`), and a Send's response in `ChkWait` is
//!   the next one: the StagCheck answers in request order and a Send's checks are issued only with
//!   the queue empty, so tags are not compared. The response's host address has no register
//!   here: StagCheck's response register holds it until its next response (`rsp_host_addr`;
//!   session 19: the copy `cq_addr` was 24 flip-flops alone in their logic cells), and
//!   `chk_hold` keeps the send engine's local checks out of the StagCheck while an address is
//!   to be read (the queue not empty, or `ChkWait`); a Send's response comes only with the
//!   queue empty. A check is queued behind another one only while the verdict register is free or being
//!   taken (a push waits in Eval2 while `cq_full_q`, also set when the queue was not empty and
//!   `vd_v && !vd_ready` in the previous cycle; then the verdict register is free from this cycle
//!   on or was loaded by the older entry's pop), so the older entry pops in the cycle after its
//!   response (only its pop can load the verdict register meanwhile) and never holds the register
//!   when the younger one's response comes. Under RxPlace's back-pressure a second check then waits
//!   until the verdict register is taken; with every output ready (the throughput below) nothing
//!   changes. An error's Terminate needs its segment's length (`term_seglen`): every job
//!   writes `j_len` into `qctx` word 8 + slot of its connection in each Eval cycle (no update is
//!   written then), and the Idle cycle before a DoneGet reads that word of the done's slot
//!   (DoneGet addresses the WQE index for the CQE then). The word is rewritten only by a later job
//!   of the same slot, i.e. after this done; so the record keeps no length.
//! - Registers shared by exclusive uses: `irq_word` is `o_addr`, loaded in DoneGet with the
//!   record's source address (the request's first word) and then with each of header words 5-8 as
//!   the done's read brings them (`irq_valid` strobes each), so the request is never held whole (no
//!   copy of the sink STag / TO, which are in the header RAM); `cqe_inv_stag` is `chk_stag_q`
//!   (octets 2-5, zeroed by DoneGet unless the header read loads it) and `cqe_byte_len` is
//!   `o_addr` (zeroed by DoneGet but for a Recv or a Read Request): while the front FSM emits
//!   a done's events it reads no job, and the StagCheck takes `chk_*` only in the cycle of
//!   `chk_valid`. One triple
//!   register serves `term_*` and `aev_*`. The STag of a tagged segment (octets 2-5) and a Read
//!   Request's SrcSTag go into `chk_stag_q` as their words arrive; no copy of a Send's Invalidate
//!   STag is kept (`chk_stag_q` takes the lkey in RqWait): from RqReq on the header RAM reads
//!   word 1 again, with word 0's low half in `prev_lo` (loaded in Eval2), so `sh` is the
//!   Invalidate STag in SendRows and ChkWait, which load it into `chk_stag_q` (every ChkWait
//!   cycle: the enable is the state); a tagged segment's TO goes into `chk_to`
//!   as its words arrive, a WQE's TO high half in RqWait (the carry of TO + MO is added in
//!   SendRows); a placed Send's host address goes from `rsp_host_addr` into `vd_addr` (with
//!   its carry-select flags `vd_a10` / `vd_a20`) in ChkWait while the lkey check waits (the
//!   verdict register is empty from Eval2 to Direct); a
//!   Terminate's triple straight into the record value. The header word being read is one-hot
//!   (`rk`), so each capture enable is one flag.
//! - `chk_to` keeps TO bits 32..0 and two flags for bits 63..33 (not all zero, all ones; a
//!   third, "all ones but bit 33", for a WQE TO whose TO + MO carry may make them all ones):
//!   the StagCheck classifies bits 63..32 only as all ones (WRAP), 0 or 1 (BOUNDS), so the
//!   rebuilt TO (bits 63..33 all ones, 1 or 0) decides every check as the full TO would; on
//!   the Cu, whose STag table holds 32-bit base TOs, a TO at or above 2^33 fails its bounds
//!   check either way.
//!
//! # Timing and throughput
//!
//! Outputs are registers, except `hdr_a_addr` (from `job_conn` / `job_slot` in the cycle a job is
//! taken, so word 0 is read at once) and the two readies (from registers only). The widest
//! arithmetic in one cycle is a 32-bit add or compare (WQE TO + MO in two 32-bit halves over two
//! cycles). For 100 MHz the row conditions are compared into flags while the header words arrive
//! (`f_*`), the rows run in `Eval` and their outcome is applied in `Eval2`, the per-QP counters are
//! updated one cycle after the decision (`ap_*`), and the done lane classifies a record one cycle
//! before acting on it; DoneGet decides from the record's control fields registered by the lane
//! (`dl_*_q`), not from the block RAM's output; a failed row's error record is written into `o_*`
//! one cycle after the failure from registered codes (`pf_*`, `Direct` waits for it); the header
//! word being read is one-hot (`rk`); a failed queued check marks its QP dying whether or not the
//! QP was dead already (no `h_dead` in that path: `dying` only drops later jobs, as `!en || err`
//! does); the LLP error to serve is picked one cycle ahead (`llp_sel_q`, `llp_any_q`) and committed
//! from its own state (`LlpErr`); whether a done has effects is decided in the Idle cycle before
//! DoneGet, from the lane's look-up; the header captures are enabled by an `rk` bit (no `rvld`:
//! `rk` is non-zero only while a word is valid); rows 1-8 (the header alone) are decided into
//! `h_bad` / `h_bad_code` as the read ends, so Eval's priority chain starts from one flag; a fresh
//! field (MSN 1, MO 0) is read from field 3's high half (never written, so 0; bit 0 set for the
//! MSN's low half), so the compares and the Send's TO + MO take the context RAM's output with no
//! 16-bit multiplexer, and each compare has one operand (the header RAM's low half, or
//! `chk_to_q`'s low half: `c_eq_a` / `c_eq_b`), no multiplexer; `ra` / `rlast` load in every
//! Idle cycle; `job_ready` is a flip-flop (`jr_n`, the next cycle's `state != Idle || held`:
//! the parser's skid uses it combinationally). Standalone on the HX8K (`rnic synth --board
//! alchitry-cu --block rx_control`: yosys + nextpnr-ice40 `--freq 100`, inputs from a shift
//! register, outputs XOR-reduced), board profile (2 QPs, no markers): 1491 logic cells (1159 LUT4,
//! 727 flip-flops, 160 carries), 104.2 MHz with nextpnr's default seed (96.7 / 95.0 with seeds 2,
//! 3; 2026-11-29, with the verdict's carry-select flags `vd_a10` / `vd_a20` and ChkWait's loads by
//! state; before: 1491 cells, 725 flip-flops, 100.25 MHz; 102.5 / 104.0 with seeds 2, 3 and before
//! that 1571 cells, 1240 LUT4, 720 flip-flops, 91.3 MHz, 98.5 / 101.6 before, the paths the `state`
//! decodes into the capture enables, the RAM-to-compare multiplexers and Eval's row chain). Earlier
//! (default build): 1564 logic cells (1269 LUT4, 720 flip-flops, 175 carries), 100.4 MHz with
//! nextpnr's default seed, since the check queue keeps one host address and the MSN + 1 is a
//! carry-select (`sh1`: no 32-bit carry chain from the header RAM's output, which only the
//! composed `rx_path` shows; 2026-11-28; 1626 cells, 1301 LUT4, 752 flip-flops, 103.4 MHz
//! just before). Before: 1621 logic cells (1297 LUT4, 752
//! flip-flops, 176 carries) and 4 block RAMs (3 for
//! the pending records, 1 for the MSN / MO / WQE-index / segment-length context), 106.1 MHz with
//! nextpnr's default seed, since the MSN is kept plus 1, `cqe_index` is the context RAM's read
//! port, the MO's high half and a failed queued check's segment length are read from that RAM
//! (`docs/decisions.md`, 2026-11-28); 1707 cells (1291 LUT4, 815 flip-flops), 99.5 MHz before;
//! 1945 logic cells (1456 LUT4, 910 flip-flops, 188 carries), 102.2 MHz with nextpnr's default
//! seed (95.4 / 97.4 / 99.8 with seeds 2-4), since the Read Request crosses to the ReadResponder as
//! words on `irq_word` (no `h_a`; `docs/decisions.md`, "RxControl -> ReadResponder as words"); 1969
//! cells (1417 LUT4, 942 flip-flops), 104.2 MHz (102.5 / 100.6 / 97.9 with seeds 2-4: the RQ
//! answer's registers load in every RqWait cycle and a drop's record kind in every Eval2 cycle, so
//! their enables are the state alone; the paths left are the FSM's wide capture enables, mostly
//! routing); 1988 cells and 93.8 MHz before that (98.3 MHz once, the same logic: placement noise);
//! before this pass 2236 cells (1610 LUT4, 1090 flip-flops), 5 block RAMs, 98.5 MHz; before the
//! issue 5 rework 3389 cells (2193 LUT4, 1852 flip-flops), 4 block RAMs, 86.1 MHz.
//!
//! With every output ready, a job taken in cycle 0 has its rows run in cycle 5 (tagged; 7
//! untagged, 13 Read Request) and applied in cycle 6 (tagged); a Write with payload then has
//! `chk_valid` in cycle 7 and `vd_valid` in cycle 9 + the StagCheck latency, and the next job
//! is taken in cycle 7; a verdict without check is out in cycle 8. Measured (Verilator,
//! `throughput_verilator`, StagCheck latency 6): 7.6 cycles per job for 4-octet Writes, 8.2
//! for zero-length Writes, about 30 for Read Requests (the done reads the header again),
//! about 40 (39.7-40.7 over seeds 0-15) for back-to-back single-segment Sends on one QP
//! (each waits for the previous Send's done; RQ latency 1-7 and done delay 1-11 cycles in
//! that bench). A done without events takes the done lane 4 cycles, in parallel with the
//! jobs.

use crate::config::{
    CHK_TAG_BITS, CONNECTIONS, CONN_BITS, DMA_ADDR_BITS, HDR_ADDR_BITS, HDR_WORD_BITS,
    LOCAL_LEN_BITS, LOCAL_LEN_BITS1, LOCAL_LEN_BITS2, LOCAL_LEN_HI_MASK, PD_BITS,
};
use crate::ddp::check_status;
use crate::mpa::mpa_rx::RxContextRam;
use rnic_proto::ddp::{
    ErrorType as DdpEType, TaggedBufferCode, UntaggedBufferCode, LOCAL_CATASTROPHIC_CODE,
    QN_READ_REQUEST, QN_SEND, QN_TERMINATE,
};
use rnic_proto::mpa::{LlpErrorCode, TERMINATE_ETYPE_LLP};
use rnic_proto::rdmap::terminate::{
    ErrorType as RdmapEType, Layer, RemoteOperationCode, RemoteProtectionCode,
};
use rnic_proto::rdmap::Opcode;
use rnic_proto::verbs::{access, AsyncEventKind, WcOpcode, WcStatus};
use rust_hdl::prelude::*;

// The header address `{conn, slot, word}` is built with literal shifts (6, 5) in `update`.
const _: () = assert!(HDR_WORD_BITS == 5 && HDR_ADDR_BITS == CONN_BITS + 6);

/// Context-RAM address width: `{conn, word}`, words 0-7 `{field (0 MSN QN 0, 1 MSN QN 1, 2 MO,
/// 3 WQE index / never written), half}`, 8 + slot the segment length of the slot's job.
const QCTX_ADDR_BITS: usize = CONN_BITS + 4;

/// Bits kept of a latched LLP error's code (`llp_err_code`): every MPA Terminate code
/// ([`LlpErrorCode`]: 0x1-0x4 of RFC 5044, 0x5-0x7 of RFC 6581) is below 8, so the upper five
/// bits are 0 and are not stored (5 flip-flops per QP, alone in their logic cells).
const LLP_CODE_BITS: usize = 3;
const _: () = {
    let mut i = 0;
    while i < LlpErrorCode::ALL.len() {
        assert!((LlpErrorCode::ALL[i].code() as usize) < (1 << LLP_CODE_BITS));
        i += 1;
    }
};

/// Width of one pending record (see [`RxControl`]'s packing in `update`).
const REC_BITS: usize = 44;

/// FSM states.
#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
pub enum RxState {
    /// Waiting for work.
    Idle,
    /// Reading header words (of a job, or of a done's slot).
    Read,
    /// A latched LLP error was taken: commit it (Terminate, TerminateSent) unless the QP is
    /// disabled or in error already.
    LlpErr,
    /// Running rows 0-15/18-19 on the captured header.
    Eval,
    /// Applying the outcome of the rows (or waiting for the check queue).
    Eval2,
    /// Waiting for the StagCheck response.
    ChkWait,
    /// Waiting for the RQ to take the head request.
    RqReq,
    /// Waiting for the RQ's answer.
    RqWait,
    /// Rows 15-16, WQE TO + MO high half, issue of row 17 / 21.
    SendRows,
    /// A Send passed every row: advance MO / MSN, record the completion.
    SendOk,
    /// A verdict decided here waits for the verdict register (and an empty check queue).
    Direct,
    /// A done's record has been read: decide its events.
    DoneGet,
    /// Events are offered; wait until all were taken, then free the slot.
    Emit,
}

/// What a StagCheck request of a Send was for (the others are in the check queue).
#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
pub enum ChkCtx {
    SendPay,
    SendInv,
}

/// Check-queue pointer width.
const CQ_PTR: usize = 1;
/// Check-queue count width.
const CQ_CNT: usize = CQ_PTR + 1;
/// Entries of the check queue (two cover the StagCheck latency at the job rate: see "Timing").
pub const CQ_DEPTH: usize = 1 << CQ_PTR;

/// RDMAP receive control. Ports: the "RxControl" list of [`crate::rdmap`].
#[derive(LogicBlock)]
pub struct RxControl {
    pub clock: Signal<In, Clock>,
    // QP configuration.
    pub qp_cfg_write: Signal<In, Bit>,
    pub qp_cfg_qp: Signal<In, Bits<CONN_BITS>>,
    pub qp_cfg_enable: Signal<In, Bit>,
    pub qp_cfg_pd: Signal<In, Bits<PD_BITS>>,
    pub qp_cfg_ird: Signal<In, Bits<4>>,
    // Jobs and the header RAM (read port A).
    pub job_valid: Signal<In, Bit>,
    pub job_conn: Signal<In, Bits<CONN_BITS>>,
    pub job_slot: Signal<In, Bit>,
    pub job_len: Signal<In, Bits<16>>,
    pub job_ready: Signal<Out, Bit>,
    pub hdr_a_addr: Signal<Out, Bits<HDR_ADDR_BITS>>,
    pub hdr_a_data: Signal<In, Bits<32>>,
    // StagCheck.
    pub chk_valid: Signal<Out, Bit>,
    pub chk_tag: Signal<Out, Bits<CHK_TAG_BITS>>,
    pub chk_stag: Signal<Out, Bits<32>>,
    pub chk_to: Signal<Out, Bits<64>>,
    pub chk_len: Signal<Out, Bits<32>>,
    pub chk_pd: Signal<Out, Bits<PD_BITS>>,
    pub chk_qp: Signal<Out, Bits<CONN_BITS>>,
    pub chk_access: Signal<Out, Bits<4>>,
    pub chk_invalidate: Signal<Out, Bit>,
    pub rsp_valid: Signal<In, Bit>,
    pub rsp_tag: Signal<In, Bits<CHK_TAG_BITS>>,
    pub rsp_status: Signal<In, Bits<3>>,
    /// Held from a response to the next one (StagCheck's `rsp_host_addr`): the check queue
    /// and a Send's lkey check read it there, with no copy (`chk_hold`).
    pub rsp_host_addr: Signal<In, Bits<DMA_ADDR_BITS>>,
    /// A response's host address is (or will be) read from `rsp_host_addr` after its
    /// response cycle: no other requester's check may be answered meanwhile (RxPath holds
    /// the send engine's local checks). From registers: the check queue was not empty in the
    /// previous cycle, or `ChkWait` (a Send's checks). With `chk_valid` and RxPath's
    /// `chk_prev` it covers every cycle from a check's request to its address's last read.
    pub chk_hold: Signal<Out, Bit>,
    // Verdicts, segment ends, slot frees.
    pub vd_valid: Signal<Out, Bit>,
    pub vd_conn: Signal<Out, Bits<CONN_BITS>>,
    pub vd_place: Signal<Out, Bit>,
    /// The run's host address; meaningful only with `vd_place` (a dropped run's verdict
    /// carries whatever the register holds).
    pub vd_addr: Signal<Out, Bits<DMA_ADDR_BITS>>,
    /// `vd_addr`'s carry-select flags for RxPlace: word bits 9..0 (address bits 11..2) all
    /// ones, word bits 19..0 all ones (registered with `vd_addr`).
    pub vd_a10: Signal<Out, Bit>,
    pub vd_a20: Signal<Out, Bit>,
    pub vd_ready: Signal<In, Bit>,
    pub done_valid: Signal<In, Bit>,
    pub done_conn: Signal<In, Bits<CONN_BITS>>,
    pub done_good: Signal<In, Bit>,
    pub done_ready: Signal<Out, Bit>,
    pub free_valid: Signal<Out, Bit>,
    pub free_conn: Signal<Out, Bits<CONN_BITS>>,
    pub free_slot: Signal<Out, Bit>,
    // Receive queue.
    pub rq_req_valid: Signal<Out, Bit>,
    pub rq_req_qp: Signal<Out, Bits<CONN_BITS>>,
    pub rq_req_pop: Signal<Out, Bit>,
    pub rq_req_ready: Signal<In, Bit>,
    pub rq_rsp_valid: Signal<In, Bit>,
    pub rq_rsp_present: Signal<In, Bit>,
    pub rq_rsp_to: Signal<In, Bits<64>>,
    /// The WQE's length inverted (HostIf keeps it so): row 16 is then one carry chain.
    pub rq_rsp_len_n: Signal<In, Bits<32>>,
    pub rq_rsp_lkey: Signal<In, Bits<32>>,
    pub rq_rsp_index: Signal<In, Bits<16>>,
    // ORQ / IRQ counts.
    pub orq_push: Signal<In, Bit>,
    pub orq_push_qp: Signal<In, Bits<CONN_BITS>>,
    pub irq_done: Signal<In, Bit>,
    pub irq_done_qp: Signal<In, Bits<CONN_BITS>>,
    // Inbound Read Requests.
    pub irq_valid: Signal<Out, Bit>,
    pub irq_qp: Signal<Out, Bits<CONN_BITS>>,
    /// A word of the request at each `irq_valid`: source address, sink STag, sink TO high,
    /// sink TO low, size.
    pub irq_word: Signal<Out, Bits<32>>,
    /// Level: the ReadResponder can take a request (its first word waits for it).
    pub irq_ready: Signal<In, Bit>,
    // Completions.
    pub cqe_valid: Signal<Out, Bit>,
    pub cqe_qp: Signal<Out, Bits<CONN_BITS>>,
    pub cqe_opcode: Signal<Out, Bits<8>>,
    pub cqe_status: Signal<Out, Bits<8>>,
    pub cqe_byte_len: Signal<Out, Bits<32>>,
    pub cqe_index: Signal<Out, Bits<16>>,
    pub cqe_inv_stag: Signal<Out, Bits<32>>,
    pub cqe_with_inv: Signal<Out, Bit>,
    pub cqe_solicited: Signal<Out, Bit>,
    pub cqe_ready: Signal<In, Bit>,
    // Asynchronous events.
    pub aev_valid: Signal<Out, Bit>,
    pub aev_qp: Signal<Out, Bits<CONN_BITS>>,
    pub aev_kind: Signal<Out, Bits<8>>,
    pub aev_layer: Signal<Out, Bits<4>>,
    pub aev_etype: Signal<Out, Bits<4>>,
    pub aev_code: Signal<Out, Bits<8>>,
    pub aev_ready: Signal<In, Bit>,
    // Terminate requests.
    pub term_valid: Signal<Out, Bit>,
    pub term_conn: Signal<Out, Bits<CONN_BITS>>,
    pub term_slot: Signal<Out, Bit>,
    pub term_layer: Signal<Out, Bits<4>>,
    pub term_etype: Signal<Out, Bits<4>>,
    pub term_code: Signal<Out, Bits<8>>,
    pub term_m: Signal<Out, Bit>,
    pub term_d: Signal<Out, Bit>,
    pub term_r: Signal<Out, Bit>,
    pub term_seglen: Signal<Out, Bits<16>>,
    pub term_ready: Signal<In, Bit>,
    pub term_done: Signal<In, Bit>,
    pub term_done_conn: Signal<In, Bits<CONN_BITS>>,
    pub term_done_slot: Signal<In, Bit>,
    // LLP errors (MpaRx err_*).
    pub llp_err_valid: Signal<In, Bit>,
    pub llp_err_conn: Signal<In, Bits<CONN_BITS>>,
    pub llp_err_code: Signal<In, Bits<8>>,
    /// Nothing in flight here (see "Idle" in the module docs).
    pub idle: Signal<Out, Bit>,

    // ---- Per-QP state (rfc5040-rdmap.md §7.1).
    q_en: [DFF<Bit>; CONNECTIONS],
    q_pd: [DFF<Bits<PD_BITS>>; CONNECTIONS],
    q_ird: [DFF<Bits<4>>; CONNECTIONS],
    /// The error is committed (Terminate sent or received, or LLP error).
    q_err: [DFF<Bit>; CONNECTIONS],
    /// A row failed (or a Terminate arrived): later jobs are dropped.
    q_dying: [DFF<Bit>; CONNECTIONS],
    /// Expected MSN of QN 0 / QN 1 and expected MO: in block RAM (`qctx`); these flags say
    /// the field still has its reset value (MSN 1, MO 0) and the RAM word is stale.
    q_fr_msn0: [DFF<Bit>; CONNECTIONS],
    q_fr_msn1: [DFF<Bit>; CONNECTIONS],
    q_fr_mo: [DFF<Bit>; CONNECTIONS],
    q_irq: [DFF<Bits<5>>; CONNECTIONS],
    q_orq: [DFF<Bits<5>>; CONNECTIONS],
    /// A Send L = 1 was checked (its WQE popped) and is not yet done: its WQE index in field 3
    /// of `qctx` is the done's `cqe_index`.
    q_popp: [DFF<Bit>; CONNECTIONS],
    q_llp: [DFF<Bit>; CONNECTIONS],
    /// The latched LLP error's code, its low [`LLP_CODE_BITS`] bits (every MPA code is below 8).
    q_llp_code: [DFF<Bits<LLP_CODE_BITS>>; CONNECTIONS],
    /// A Terminate copying a slot's header is out; free `q_hold_slot` at its `term_done`.
    q_hold: [DFF<Bit>; CONNECTIONS],
    q_hold_slot: [DFF<Bit>; CONNECTIONS],
    q_tfree: [DFF<Bit>; CONNECTIONS],
    /// Segments of the connection taken as jobs and not yet freed (at most the two header
    /// slots): a latched LLP error is committed only when it is 0, so every segment that
    /// arrived before the bad FPDU completes first (a good message before a bad CRC is not
    /// lost; `docs/decisions.md`).
    q_pend: [DFF<Bits<2>>; CONNECTIONS],
    /// Slot of the connection's next `done_*`.
    q_dslot: [DFF<Bit>; CONNECTIONS],

    state: DFF<RxState>,
    /// The connection whose latched LLP error is served next (see `llp_any`).
    llp_sel_q: DFF<Bits<CONN_BITS>>,
    llp_any_q: DFF<Bit>,
    ctx: DFF<ChkCtx>,
    // The job.
    held: DFF<Bit>,
    /// `job_ready` low, registered: the next cycle's `state != Idle || held` (timing: the
    /// parser's skid takes `job_ready` combinationally; a flip-flop, not a decode of `state`).
    jr_n: DFF<Bit>,
    blocked: DFF<Bit>,
    j_conn: DFF<Bits<CONN_BITS>>,
    j_slot: DFF<Bit>,
    j_len: DFF<Bits<16>>,
    // Header fields (octet offsets of `rfc5040-rdmap.md` §1.4).
    h_t: DFF<Bit>,
    h_l: DFF<Bit>,
    h_dv: DFF<Bits<2>>,
    h_rv: DFF<Bits<2>>,
    h_opc: DFF<Bits<4>>,
    /// The header's MSN plus 1 (the next expected MSN, written into `qctx` at the update):
    /// incremented as it is captured, so each flip-flop shares its cell with its adder LUT.
    h_b: DFF<Bits<32>>,
    p_len: DFF<Bits<16>>,
    // Row conditions, compared while the header words arrive (so that the rows of `Eval` are
    // a short priority chain on registered flags).
    f_short: DFF<Bit>,
    f_size_zero: DFF<Bit>,
    // Registered decisions and counts (timing): see the per-QP updates in `update`.
    ap_msn0: DFF<Bit>,
    // The outcome of `Eval`, applied in `Eval2`.
    e_fail: DFF<Bit>,
    e_drop: DFF<Bit>,
    e_code: DFF<Bits<4>>,
    /// Rows 1-8 (the header alone) failed, decided as the read ends (timing: Eval's priority
    /// chain starts from one flag), and the first failing row's code.
    h_bad: DFF<Bit>,
    h_bad_code: DFF<Bits<4>>,
    e_go_vd: DFF<Bit>,
    e_dying: DFF<Bit>,
    e_push: DFF<Bit>,
    e_ctx: DFF<Bits<2>>,
    e_orq: DFF<Bit>,
    e_rreq: DFF<Bit>,
    e_block: DFF<Bit>,
    e_send: DFF<Bit>,
    cq_busy_q: DFF<Bit>,
    cq_full_q: DFF<Bit>,
    o_write: DFF<Bit>,
    o_rresp: DFF<Bit>,
    o_rreq: DFF<Bit>,
    o_term: DFF<Bit>,
    ap_dying: DFF<Bit>,
    ap_dying_qp: DFF<Bits<CONN_BITS>>,
    ap_msn1: DFF<Bit>,
    ap_mo: DFF<Bit>,
    ap_popp: DFF<Bit>,
    ap_irq: DFF<Bit>,
    ap_orq: DFF<Bit>,
    irq_full_q: DFF<Bit>,
    orq_zero_q: DFF<Bit>,
    xdone_q: DFF<Bit>,
    /// The job's QP is disabled, in error or dying (row 0), registered from the per-QP flags
    /// (timing: the QP multiplexer is off the rows' path; see the Eval2 wait for its lag).
    jq_dead_q: DFF<Bit>,
    /// The check queue was not empty in either of the two previous cycles (the Eval2 wait of a
    /// job that is not pushed: one cycle more than `cq_busy_q`, for `jq_dead_q`'s lag).
    cq_busy2_q: DFF<Bit>,
    /// `irq_done` / `irq_done_qp` registered (timing: the transmit side's done strobe is
    /// combinational from the arbiter's handshake; the IRQ credit comes back a cycle later).
    irq_done_q: DFF<Bit>,
    irq_done_qp_q: DFF<Bits<CONN_BITS>>,
    /// `orq_push` / `orq_push_qp` registered (timing: SendEngine's strobe is combinational from
    /// DdpTx's `msg_ready`; the ORQ count goes up a cycle later, long before a Read Response).
    orq_push_q: DFF<Bit>,
    orq_push_qp_q: DFF<Bits<CONN_BITS>>,
    f_zpay: DFF<Bit>,
    f_rrlen_bad: DFF<Bit>,
    f_term_short: DFF<Bit>,
    f_qn_gt2: DFF<Bit>,
    f_qn0: DFF<Bit>,
    f_qn1: DFF<Bit>,
    f_qn2: DFF<Bit>,
    /// The MSN equals the expected one of its QN (QN 1 for a Read Request, else QN 0).
    f_msn_eq: DFF<Bit>,
    f_mo_eq: DFF<Bit>,
    // The per-QP context RAM: 16-bit halves at `{conn, field, half}` (see "State").
    qctx: RxContextRam<16, QCTX_ADDR_BITS>,
    c_fresh: DFF<Bit>,
    w2_v: DFF<Bit>,
    w2_addr: DFF<Bits<QCTX_ADDR_BITS>>,
    w2_data: DFF<Bits<16>>,
    f_mo_zero: DFF<Bit>,
    // Send: WQE and sums.
    w_present: DFF<Bit>,
    w_too_long: DFF<Bit>,
    w_carry: DFF<Bit>,
    /// MO + P: its low [`LOCAL_LEN_BITS`], and above them one flag bit for "`1 <<
    /// LOCAL_LEN_BITS` or more" (a WQE is shorter: row 16 fails; the expected MO written back
    /// and the Recv's byte count are the low bits of a sum that passed row 16).
    s_sum: DFF<Bits<LOCAL_LEN_BITS1>>,
    // Header reads.
    rd_done_mode: DFF<Bit>,
    ra: DFF<Bits<4>>,
    rvld: DFF<Bit>,
    /// The header word on `hdr_a_data`, one-hot (0: none).
    rk: DFF<Bits<12>>,
    rk_last: DFF<Bit>,
    rlast: DFF<Bits<4>>,
    prev_lo: DFF<Bits<16>>,
    // Pending record of the job.
    o_kind: DFF<Bits<3>>,
    o_val: DFF<Bits<32>>,
    o_inv: DFF<Bit>,
    o_sol: DFF<Bit>,
    o_mdr: DFF<Bits<3>>,
    o_cqesel: DFF<Bits<2>>,
    o_stsel: DFF<Bits<2>>,
    rec: RxContextRam<REC_BITS, 3>,
    // The done.
    dl_v: DFF<Bit>,
    dl_ph: DFF<Bits<2>>,
    dl_triv_q: DFF<Bit>,
    dl_recv_q: DFF<Bit>,
    dl_kind_q: DFF<Bits<3>>,
    dl_cqesel_q: DFF<Bits<2>>,
    dl_stsel_q: DFF<Bits<2>>,
    dl_inv_q: DFF<Bit>,
    dl_conn: DFF<Bits<CONN_BITS>>,
    dl_slot: DFF<Bit>,
    dl_good: DFF<Bit>,
    d_conn: DFF<Bits<CONN_BITS>>,
    d_slot: DFF<Bit>,
    d_good: DFF<Bit>,
    d_kind: DFF<Bits<3>>,
    d_free: DFF<Bit>,
    // The verdict decided by the front FSM (`Direct`).
    o_place: DFF<Bit>,
    pf_v: DFF<Bit>,
    pf_code: DFF<Bits<4>>,
    o_addr: DFF<Bits<32>>,
    // The check queue: Writes, Read Responses and Read Requests whose StagCheck is in flight,
    // in job order (see the module documentation).
    cq_busy: [DFF<Bit>; CQ_DEPTH],
    cq_got: [DFF<Bit>; CQ_DEPTH],
    cq_conn: [DFF<Bits<CONN_BITS>>; CQ_DEPTH],
    cq_slot: [DFF<Bit>; CQ_DEPTH],
    /// 0 Write, 1 Read Response, 2 Read Request.
    cq_ctx: [DFF<Bits<2>>; CQ_DEPTH],
    /// The L flag (a Read Response L = 1 completes the Read at its done).
    cq_l: [DFF<Bit>; CQ_DEPTH],
    cq_st: [DFF<Bits<3>>; CQ_DEPTH],
    cq_head: DFF<Bits<CQ_PTR>>,
    cq_tail: DFF<Bits<CQ_PTR>>,
    /// The oldest entry without its response: the StagCheck answers in request order, and a
    /// Send's checks are issued only with the queue empty, so the next response is this one's.
    cq_gp: DFF<Bits<CQ_PTR>>,
    cq_count: DFF<Bits<CQ_CNT>>,
    // Output registers.
    chk_v: DFF<Bit>,
    chk_qp_q: DFF<Bits<CONN_BITS>>,
    vd_conn_q: DFF<Bits<CONN_BITS>>,
    chk_tag_q: DFF<Bits<CHK_TAG_BITS>>,
    chk_stag_q: DFF<Bits<32>>,
    /// TO bits 32..0 of the check request (and of `irq_src_to`); bits 63..33 as two flags
    /// (see `to_hi`): not all zero, all ones. `to_hm1`: a WQE TO's bits 63..33 are all ones
    /// but bit 33 (so that the carry of TO + MO makes them all ones).
    chk_to_q: DFF<Bits<33>>,
    to_hz: DFF<Bit>,
    to_ho: DFF<Bit>,
    to_hm1: DFF<Bit>,
    /// The check's length: [`LOCAL_LEN_BITS`] and, above them, a flag for a Read Request's
    /// size of `1 << LOCAL_LEN_BITS` or more (StagCheck answers it BOUNDS).
    chk_len_q: DFF<Bits<LOCAL_LEN_BITS1>>,
    chk_pd_q: DFF<Bits<PD_BITS>>,
    chk_acc_q: DFF<Bits<4>>,
    chk_inv_q: DFF<Bit>,
    vd_v: DFF<Bit>,
    vd_place_q: DFF<Bit>,
    vd_addr_q: DFF<Bits<DMA_ADDR_BITS>>,
    vd_a10_q: DFF<Bit>,
    vd_a20_q: DFF<Bit>,
    free_v: DFF<Bit>,
    free_conn_q: DFF<Bits<CONN_BITS>>,
    free_slot_q: DFF<Bit>,
    rq_v: DFF<Bit>,
    rq_qp_q: DFF<Bits<CONN_BITS>>,
    rq_pop_q: DFF<Bit>,
    irq_v: DFF<Bit>,
    cqe_v: DFF<Bit>,
    cqe_qp_q: DFF<Bits<CONN_BITS>>,
    cqe_opcode_q: DFF<Bits<8>>,
    cqe_status_q: DFF<Bits<8>>,
    cqe_with_inv_q: DFF<Bit>,
    cqe_sol_q: DFF<Bit>,
    aev_v: DFF<Bit>,
    aev_qp_q: DFF<Bits<CONN_BITS>>,
    aev_kind_q: DFF<Bits<8>>,
    ev_triple_q: DFF<Bits<16>>,
    term_v: DFF<Bit>,
    term_conn_q: DFF<Bits<CONN_BITS>>,
    term_slot_q: DFF<Bit>,
    term_mdr_q: DFF<Bits<3>>,
    term_seglen_q: DFF<Bits<16>>,

    // ---- Combinational signals.
    sh: Signal<Local, Bits<32>>,
    /// `prev_lo + 1` (17 bits), the high half of the carry-select MO + P.
    pl1: Signal<Local, Bits<17>>,
    /// MO + P's low half and its carry: the header word's high half + `p_len` (17 bits).
    ss_lo: Signal<Local, Bits<17>>,
    msn_next: Signal<Local, Bits<32>>,
    jq_en: Signal<Local, Bit>,
    jq_pd: Signal<Local, Bits<PD_BITS>>,
    jq_ird: Signal<Local, Bits<4>>,
    jq_err: Signal<Local, Bit>,
    jq_dying: Signal<Local, Bit>,
    jq_fr_msn0: Signal<Local, Bit>,
    jq_fr_msn1: Signal<Local, Bit>,
    jq_fr_mo: Signal<Local, Bit>,
    qc_v: Signal<Local, Bits<16>>,
    /// `qc_v` against the header RAM's low half (words 2 and 3: the MSN's and the MO's high
    /// halves) and against `chk_to_q`'s low half (words 4 and 5: their low halves, kept from
    /// words 3 and 4): one operand each, no multiplexer.
    c_eq_a: Signal<Local, Bit>,
    c_eq_b: Signal<Local, Bit>,
    qc_conn: Signal<Local, Bits<QCTX_ADDR_BITS>>,
    /// The done's WQE-index word in `qctx` (field 3, low half; `| 1`: the high half, never
    /// written, index 0 for an RdmaRead CQE): `cqe_index` is the read port at this address.
    qc_d_ix: Signal<Local, Bits<QCTX_ADDR_BITS>>,
    qc_wval: Signal<Local, Bits<32>>,
    qc_wf: Signal<Local, Bits<QCTX_ADDR_BITS>>,
    jq_irq: Signal<Local, Bits<5>>,
    jq_orq: Signal<Local, Bits<5>>,
    jq_popp: Signal<Local, Bit>,
    in_dslot: Signal<Local, Bit>,
    llp_any: Signal<Local, Bit>,
    lp_found: Signal<Local, Bit>,
    lp_pick: Signal<Local, Bits<CONN_BITS>>,
    llp_qp: Signal<Local, Bits<CONN_BITS>>,
    llp_code: Signal<Local, Bits<LLP_CODE_BITS>>,
    llp_en: Signal<Local, Bit>,
    llp_err: Signal<Local, Bit>,
    tf_any: Signal<Local, Bit>,
    tf_qp: Signal<Local, Bits<CONN_BITS>>,
    tf_slot: Signal<Local, Bit>,
    op_ok_t: Signal<Local, Bit>,
    // Actions decided this cycle (applied at the end of `update`).
    fail: Signal<Local, Bit>,
    f_code: Signal<Local, Bits<4>>,
    go_vd: Signal<Local, Bit>,
    go_place: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    msn0_inc: Signal<Local, Bit>,
    msn1_inc: Signal<Local, Bit>,
    mo_set: Signal<Local, Bit>,
    irq_inc: Signal<Local, Bit>,
    orq_dec: Signal<Local, Bit>,
    popp_set: Signal<Local, Bit>,
    popp_clr: Signal<Local, Bit>,
    err_set: Signal<Local, Bit>,
    err_qp: Signal<Local, Bits<CONN_BITS>>,
    dying_set: Signal<Local, Bit>,
    dying_qp: Signal<Local, Bits<CONN_BITS>>,
    start_read: Signal<Local, Bit>,
    direct_read: Signal<Local, Bit>,
    cq_push: Signal<Local, Bit>,
    cq_pop: Signal<Local, Bit>,
    cq_ctx_n: Signal<Local, Bits<2>>,
    h_busy: Signal<Local, Bit>,
    h_got: Signal<Local, Bit>,
    h_conn: Signal<Local, Bits<CONN_BITS>>,
    h_slot: Signal<Local, Bit>,
    h_ctx: Signal<Local, Bits<2>>,
    h_kind: Signal<Local, Bits<3>>,
    h_lf: Signal<Local, Bit>,
    h_st: Signal<Local, Bits<3>>,
    h_addr: Signal<Local, Bits<DMA_ADDR_BITS>>,
    /// `h_addr` zero-extended to a record value.
    h_addr32: Signal<Local, Bits<32>>,
    /// `rsp_host_addr`'s carry-select flags (see `vd_a10`), loaded with it into the verdict
    /// register.
    cq_a10: Signal<Local, Bit>,
    cq_a20: Signal<Local, Bit>,
    h_dead: Signal<Local, Bit>,
    bdying_set: Signal<Local, Bit>,
    w_kind_n: Signal<Local, Bits<3>>,
    w_val_n: Signal<Local, Bits<32>>,
    w_triple_n: Signal<Local, Bits<16>>,
    w_mdr_n: Signal<Local, Bits<3>>,
    w_cqesel_n: Signal<Local, Bits<2>>,
    w_stsel_n: Signal<Local, Bits<2>>,
    // A front failure's code decoded (`pf_code`): Terminate triple, M / D / R, CQE and status.
    pc_triple: Signal<Local, Bits<16>>,
    pc_mdr: Signal<Local, Bits<3>>,
    pc_cqesel: Signal<Local, Bits<2>>,
    pc_stsel: Signal<Local, Bits<2>>,
    rec_we: Signal<Local, Bit>,
    hlen: Signal<Local, Bits<16>>,
    /// `2^16 - hlen` by T, and `j_len + 2^16 - hlen`: P in its low half, `j_len >= hlen` its
    /// carry (row 1). Lengths against constants as additions of `2^16 - C`: a compare with the
    /// constant first is a carry chain with an inverter LUT per bit of `j_len` in front.
    h_neg: Signal<Local, Bits<17>>,
    p_sum: Signal<Local, Bits<17>>,
    /// `j_len + 2^16 - term_min_len`: its carry is `j_len >= term_min_len` (row 9).
    t_sum: Signal<Local, Bits<17>>,
    to_sum: Signal<Local, Bits<33>>,
    /// `s_sum - len - 1` in `LOCAL_LEN_BITS + 2` bits, `s_sum + {11, rq_rsp_len_n}` (row 16:
    /// the WQE is too short when it is not negative).
    len_sum: Signal<Local, Bits<LOCAL_LEN_BITS2>>,
    /// The WQE's length (`!rq_rsp_len_n`, below `1 << LOCAL_LEN_BITS`), for `len_sum`'s
    /// operand only.
    len_p: Signal<Local, Bits<LOCAL_LEN_BITS>>,
    /// MO + P in 33 bits (carry-select, see `ss_lo`), and "it is `1 << LOCAL_LEN_BITS` or
    /// more" (`s_big`: the high half's upper bits, of `pl1` or of `prev_lo` by the low
    /// half's carry), the two as `s_sum` loads them (`s_ld`).
    s_full: Signal<Local, Bits<33>>,
    s_big: Signal<Local, Bit>,
    s_ld: Signal<Local, Bits<LOCAL_LEN_BITS1>>,
    /// A Read Request's size as `chk_len_q` loads it (`sh` with the flag).
    sz_ld: Signal<Local, Bits<LOCAL_LEN_BITS1>>,
    /// TO bits 63..33 rebuilt from `to_hz` / `to_ho` (all ones, 1 or 0).
    to_hi: Signal<Local, Bits<31>>,
    sh_hz: Signal<Local, Bit>,
    sh_ho: Signal<Local, Bit>,
    irq_dn: Signal<Local, Bits<CONNECTIONS>>,
    /// Per QP (5 bits each) the step of its IRQ / ORQ count: +1, or 31 (-1).
    irq_st: Signal<Local, Bits<{ 5 * CONNECTIONS }>>,
    orq_st: Signal<Local, Bits<{ 5 * CONNECTIONS }>>,
    orq_dn: Signal<Local, Bits<CONNECTIONS>>,
    qc_idx_we: Signal<Local, Bit>,
    dl_en: Signal<Local, Bit>,
    dl_err: Signal<Local, Bit>,
    dl_trivial: Signal<Local, Bit>,
    /// The done to serve is a Read Request's and the ReadResponder cannot take it yet.
    irq_wait: Signal<Local, Bit>,
    lane_free: Signal<Local, Bit>,
    popp_clr_lane: Signal<Local, Bit>,
    rec_wa: Signal<Local, Bits<3>>,
    rec_wr: Signal<Local, Bits<REC_BITS>>,
    rec_rd: Signal<Local, Bits<REC_BITS>>,

    // ---- Constants (all from rnic-proto).
    op_write: Constant<Bits<4>>,
    op_rreq: Constant<Bits<4>>,
    op_rresp: Constant<Bits<4>>,
    op_send: Constant<Bits<4>>,
    op_send_inv: Constant<Bits<4>>,
    op_send_se: Constant<Bits<4>>,
    op_send_se_inv: Constant<Bits<4>>,
    op_term: Constant<Bits<4>>,
    qn_send: Constant<Bits<32>>,
    qn_rreq: Constant<Bits<32>>,
    qn_term: Constant<Bits<32>>,
    hdr_tagged: Constant<Bits<16>>,
    hdr_untagged: Constant<Bits<16>>,
    neg_tagged: Constant<Bits<17>>,
    neg_untagged: Constant<Bits<17>>,
    rreq_len: Constant<Bits<16>>,
    neg_term_min: Constant<Bits<17>>,
    acc_rw: Constant<Bits<4>>,
    acc_lw: Constant<Bits<4>>,
    acc_rr: Constant<Bits<4>>,
    st_ok: Constant<Bits<3>>,
    st_invalid: Constant<Bits<3>>,
    st_not_assoc: Constant<Bits<3>>,
    st_access: Constant<Bits<3>>,
    st_wrap: Constant<Bits<3>>,
    st_bounds: Constant<Bits<3>>,
    t_trunc: Constant<Bits<16>>,
    t_dv_tagged: Constant<Bits<16>>,
    t_dv_untagged: Constant<Bits<16>>,
    t_qn: Constant<Bits<16>>,
    t_rv: Constant<Bits<16>>,
    t_opcode: Constant<Bits<16>>,
    t_mo: Constant<Bits<16>>,
    t_msn: Constant<Bits<16>>,
    t_no_buf: Constant<Bits<16>>,
    t_too_long: Constant<Bits<16>>,
    t_send_prot: Constant<Bits<16>>,
    t_ird: Constant<Bits<16>>,
    t_access: Constant<Bits<16>>,
    t_tg_invalid: Constant<Bits<16>>,
    t_tg_not_assoc: Constant<Bits<16>>,
    t_tg_wrap: Constant<Bits<16>>,
    t_tg_bounds: Constant<Bits<16>>,
    t_rr_invalid: Constant<Bits<16>>,
    t_rr_not_assoc: Constant<Bits<16>>,
    t_rr_wrap: Constant<Bits<16>>,
    t_rr_bounds: Constant<Bits<16>>,
    t_inv_op: Constant<Bits<16>>,
    t_inv_prot: Constant<Bits<16>>,
    t_llp: Constant<Bits<8>>,
    wc_recv: Constant<Bits<8>>,
    wc_rdma_read: Constant<Bits<8>>,
    wc_success: Constant<Bits<8>>,
    wc_loc_len: Constant<Bits<8>>,
    wc_loc_prot: Constant<Bits<8>>,
    wc_general: Constant<Bits<8>>,
    ev_term_sent: Constant<Bits<8>>,
    ev_term_rcvd: Constant<Bits<8>>,
    ev_term_bad: Constant<Bits<8>>,
    // Error codes of the front FSM's failures (a queued check's is 32 | ctx << 3 | status):
    // carried instead of the Terminate triple, decoded once at the done (`dc_*`).
    ec_trunc: Constant<Bits<4>>,
    ec_dv_tg: Constant<Bits<4>>,
    ec_dv_ut: Constant<Bits<4>>,
    ec_qn: Constant<Bits<4>>,
    ec_rv: Constant<Bits<4>>,
    ec_opcode: Constant<Bits<4>>,
    ec_mo: Constant<Bits<4>>,
    ec_rrlen: Constant<Bits<4>>,
    ec_msn: Constant<Bits<4>>,
    ec_ird: Constant<Bits<4>>,
    ec_no_buf: Constant<Bits<4>>,
    ec_too_long: Constant<Bits<4>>,
    ec_send_prot: Constant<Bits<4>>,
    ec_inv_op: Constant<Bits<4>>,
    ec_inv_prot: Constant<Bits<4>>,
    // Record kinds (local encoding of the pending record).
    cq_full: Constant<Bits<CQ_CNT>>,
    c_steps: Constant<Bits<{ 5 * CONNECTIONS }>>,
    k_none: Constant<Bits<3>>,
    k_recv: Constant<Bits<3>>,
    k_read: Constant<Bits<3>>,
    k_irq: Constant<Bits<3>>,
    k_trcv: Constant<Bits<3>>,
    k_tbad: Constant<Bits<3>>,
    k_err: Constant<Bits<3>>,
    /// Bits above `LOCAL_LEN_BITS`: of a 32-bit value, of its high half, of `pl1` (17 bits);
    /// the flag bit of `s_sum` / `chk_len_q`; `len_sum`'s sign bit.
    c_len_hi: Constant<Bits<32>>,
    c_len_hi16: Constant<Bits<16>>,
    c_len_hi17: Constant<Bits<17>>,
    c_len_top: Constant<Bits<LOCAL_LEN_BITS1>>,
    c_len_sign: Constant<Bits<LOCAL_LEN_BITS2>>,
}

/// Layer / EType / Code as one 16-bit constant: Layer << 12 | EType << 8 | Code.
fn triple(layer: Layer, etype: u8, code: u8) -> Constant<Bits<16>> {
    Constant::new(
        ((u64::from(layer as u8) << 12) | (u64::from(etype) << 8) | u64::from(code)).into(),
    )
}

fn c4(v: u8) -> Constant<Bits<4>> {
    Constant::new(u64::from(v).into())
}

fn c8(v: u8) -> Constant<Bits<8>> {
    Constant::new(u64::from(v).into())
}

fn c3(v: u8) -> Constant<Bits<3>> {
    Constant::new(u64::from(v).into())
}

fn c16(v: usize) -> Constant<Bits<16>> {
    Constant::new((v as u64).into())
}

/// `2^16 - v` in 17 bits: `x + c17_neg(v)` carries out exactly when `x >= v`.
fn c17_neg(v: usize) -> Constant<Bits<17>> {
    Constant::new(((1u64 << 16) - v as u64).into())
}

fn c32(v: u32) -> Constant<Bits<32>> {
    Constant::new(u64::from(v).into())
}

impl Default for RxControl {
    fn default() -> Self {
        use rnic_proto::ddp::{TAGGED_HEADER_LEN, UNTAGGED_HEADER_LEN};
        use rnic_proto::rdmap::read_request::HEADER_LEN as RREQ_HEADER_LEN;
        use rnic_proto::rdmap::terminate::MIN_HEADER_LEN as TERM_HEADER_MIN_LEN;
        let ddp = Layer::Ddp;
        let rdmap = Layer::Rdmap;
        let tg = DdpEType::TaggedBuffer as u8;
        let ut = DdpEType::UntaggedBuffer as u8;
        let prot = RdmapEType::RemoteProtection as u8;
        let oper = RdmapEType::RemoteOperation as u8;
        Self {
            clock: Default::default(),
            qp_cfg_write: Default::default(),
            qp_cfg_qp: Default::default(),
            qp_cfg_enable: Default::default(),
            qp_cfg_pd: Default::default(),
            qp_cfg_ird: Default::default(),
            job_valid: Default::default(),
            job_conn: Default::default(),
            job_slot: Default::default(),
            job_len: Default::default(),
            job_ready: Default::default(),
            hdr_a_addr: Default::default(),
            hdr_a_data: Default::default(),
            chk_valid: Default::default(),
            chk_tag: Default::default(),
            chk_stag: Default::default(),
            chk_to: Default::default(),
            chk_len: Default::default(),
            chk_pd: Default::default(),
            chk_qp: Default::default(),
            chk_access: Default::default(),
            chk_invalidate: Default::default(),
            rsp_valid: Default::default(),
            rsp_tag: Default::default(),
            rsp_status: Default::default(),
            rsp_host_addr: Default::default(),
            chk_hold: Default::default(),
            vd_valid: Default::default(),
            vd_conn: Default::default(),
            vd_place: Default::default(),
            vd_addr: Default::default(),
            vd_a10: Default::default(),
            vd_a20: Default::default(),
            vd_ready: Default::default(),
            done_valid: Default::default(),
            done_conn: Default::default(),
            done_good: Default::default(),
            done_ready: Default::default(),
            free_valid: Default::default(),
            free_conn: Default::default(),
            free_slot: Default::default(),
            rq_req_valid: Default::default(),
            rq_req_qp: Default::default(),
            rq_req_pop: Default::default(),
            rq_req_ready: Default::default(),
            rq_rsp_valid: Default::default(),
            rq_rsp_present: Default::default(),
            rq_rsp_to: Default::default(),
            rq_rsp_len_n: Default::default(),
            rq_rsp_lkey: Default::default(),
            rq_rsp_index: Default::default(),
            orq_push: Default::default(),
            orq_push_qp: Default::default(),
            irq_done: Default::default(),
            irq_done_qp: Default::default(),
            irq_valid: Default::default(),
            irq_qp: Default::default(),
            irq_word: Default::default(),
            irq_ready: Default::default(),
            cqe_valid: Default::default(),
            cqe_qp: Default::default(),
            cqe_opcode: Default::default(),
            cqe_status: Default::default(),
            cqe_byte_len: Default::default(),
            cqe_index: Default::default(),
            cqe_inv_stag: Default::default(),
            cqe_with_inv: Default::default(),
            cqe_solicited: Default::default(),
            cqe_ready: Default::default(),
            aev_valid: Default::default(),
            aev_qp: Default::default(),
            aev_kind: Default::default(),
            aev_layer: Default::default(),
            aev_etype: Default::default(),
            aev_code: Default::default(),
            aev_ready: Default::default(),
            term_valid: Default::default(),
            term_conn: Default::default(),
            term_slot: Default::default(),
            term_layer: Default::default(),
            term_etype: Default::default(),
            term_code: Default::default(),
            term_m: Default::default(),
            term_d: Default::default(),
            term_r: Default::default(),
            term_seglen: Default::default(),
            term_ready: Default::default(),
            term_done: Default::default(),
            term_done_conn: Default::default(),
            term_done_slot: Default::default(),
            llp_err_valid: Default::default(),
            llp_err_conn: Default::default(),
            llp_err_code: Default::default(),
            q_en: Default::default(),
            q_pd: Default::default(),
            q_ird: Default::default(),
            q_err: Default::default(),
            q_dying: Default::default(),
            q_fr_msn0: Default::default(),
            q_fr_msn1: Default::default(),
            q_fr_mo: Default::default(),
            q_irq: Default::default(),
            q_orq: Default::default(),
            q_popp: Default::default(),
            q_llp: Default::default(),
            q_llp_code: Default::default(),
            idle: Default::default(),
            q_hold: Default::default(),
            q_hold_slot: Default::default(),
            q_tfree: Default::default(),
            q_pend: Default::default(),
            q_dslot: Default::default(),
            state: Default::default(),
            ctx: Default::default(),
            held: Default::default(),
            jr_n: Default::default(),
            blocked: Default::default(),
            j_conn: Default::default(),
            j_slot: Default::default(),
            j_len: Default::default(),
            h_t: Default::default(),
            h_l: Default::default(),
            h_dv: Default::default(),
            h_rv: Default::default(),
            h_opc: Default::default(),
            h_b: Default::default(),
            p_len: Default::default(),
            f_short: Default::default(),
            f_size_zero: Default::default(),
            ap_msn0: Default::default(),
            e_fail: Default::default(),
            e_drop: Default::default(),
            e_code: Default::default(),
            h_bad: Default::default(),
            h_bad_code: Default::default(),
            e_go_vd: Default::default(),
            e_dying: Default::default(),
            e_push: Default::default(),
            e_ctx: Default::default(),
            e_orq: Default::default(),
            e_rreq: Default::default(),
            e_block: Default::default(),
            e_send: Default::default(),
            cq_busy_q: Default::default(),
            cq_full_q: Default::default(),
            o_write: Default::default(),
            o_rresp: Default::default(),
            o_rreq: Default::default(),
            o_term: Default::default(),
            ap_dying: Default::default(),
            ap_dying_qp: Default::default(),
            ap_msn1: Default::default(),
            ap_mo: Default::default(),
            ap_popp: Default::default(),
            ap_irq: Default::default(),
            ap_orq: Default::default(),
            irq_full_q: Default::default(),
            orq_zero_q: Default::default(),
            xdone_q: Default::default(),
            jq_dead_q: Default::default(),
            cq_busy2_q: Default::default(),
            irq_done_q: Default::default(),
            irq_done_qp_q: Default::default(),
            orq_push_q: Default::default(),
            orq_push_qp_q: Default::default(),
            f_zpay: Default::default(),
            f_rrlen_bad: Default::default(),
            f_term_short: Default::default(),
            f_qn_gt2: Default::default(),
            f_qn0: Default::default(),
            f_qn1: Default::default(),
            f_qn2: Default::default(),
            f_msn_eq: Default::default(),
            f_mo_eq: Default::default(),
            qctx: Default::default(),
            c_fresh: Default::default(),
            w2_v: Default::default(),
            w2_addr: Default::default(),
            w2_data: Default::default(),
            f_mo_zero: Default::default(),
            w_present: Default::default(),
            w_too_long: Default::default(),
            w_carry: Default::default(),
            s_sum: Default::default(),
            rd_done_mode: Default::default(),
            ra: Default::default(),
            rvld: Default::default(),
            rk: Default::default(),
            rk_last: Default::default(),
            rlast: Default::default(),
            prev_lo: Default::default(),
            o_kind: Default::default(),
            o_val: Default::default(),
            o_inv: Default::default(),
            o_sol: Default::default(),
            o_mdr: Default::default(),
            o_cqesel: Default::default(),
            o_stsel: Default::default(),
            rec: Default::default(),
            dl_v: Default::default(),
            dl_ph: Default::default(),
            dl_triv_q: Default::default(),
            dl_recv_q: Default::default(),
            dl_kind_q: Default::default(),
            dl_cqesel_q: Default::default(),
            dl_stsel_q: Default::default(),
            dl_inv_q: Default::default(),
            dl_conn: Default::default(),
            dl_slot: Default::default(),
            dl_good: Default::default(),
            d_conn: Default::default(),
            d_slot: Default::default(),
            d_good: Default::default(),
            d_kind: Default::default(),
            d_free: Default::default(),
            o_place: Default::default(),
            pf_v: Default::default(),
            pf_code: Default::default(),
            o_addr: Default::default(),
            cq_busy: Default::default(),
            cq_got: Default::default(),
            cq_conn: Default::default(),
            cq_slot: Default::default(),
            cq_ctx: Default::default(),
            cq_l: Default::default(),
            cq_st: Default::default(),
            cq_head: Default::default(),
            cq_tail: Default::default(),
            cq_gp: Default::default(),
            cq_count: Default::default(),
            chk_v: Default::default(),
            chk_qp_q: Default::default(),
            vd_conn_q: Default::default(),
            chk_tag_q: Default::default(),
            chk_stag_q: Default::default(),
            chk_to_q: Default::default(),
            to_hz: Default::default(),
            to_ho: Default::default(),
            to_hm1: Default::default(),
            chk_len_q: Default::default(),
            chk_pd_q: Default::default(),
            chk_acc_q: Default::default(),
            chk_inv_q: Default::default(),
            vd_v: Default::default(),
            vd_place_q: Default::default(),
            vd_addr_q: Default::default(),
            vd_a10_q: Default::default(),
            vd_a20_q: Default::default(),
            free_v: Default::default(),
            free_conn_q: Default::default(),
            free_slot_q: Default::default(),
            rq_v: Default::default(),
            rq_qp_q: Default::default(),
            rq_pop_q: Default::default(),
            irq_v: Default::default(),
            cqe_v: Default::default(),
            cqe_qp_q: Default::default(),
            cqe_opcode_q: Default::default(),
            cqe_status_q: Default::default(),
            cqe_with_inv_q: Default::default(),
            cqe_sol_q: Default::default(),
            aev_v: Default::default(),
            aev_qp_q: Default::default(),
            aev_kind_q: Default::default(),
            ev_triple_q: Default::default(),
            term_v: Default::default(),
            term_conn_q: Default::default(),
            term_slot_q: Default::default(),
            term_mdr_q: Default::default(),
            term_seglen_q: Default::default(),
            sh: Default::default(),
            pl1: Default::default(),
            ss_lo: Default::default(),
            msn_next: Default::default(),
            jq_en: Default::default(),
            jq_pd: Default::default(),
            jq_ird: Default::default(),
            jq_err: Default::default(),
            jq_dying: Default::default(),
            jq_fr_msn0: Default::default(),
            jq_fr_msn1: Default::default(),
            jq_fr_mo: Default::default(),
            qc_v: Default::default(),
            c_eq_a: Default::default(),
            c_eq_b: Default::default(),
            qc_conn: Default::default(),
            qc_d_ix: Default::default(),
            qc_wval: Default::default(),
            qc_wf: Default::default(),
            jq_irq: Default::default(),
            jq_orq: Default::default(),
            jq_popp: Default::default(),
            in_dslot: Default::default(),
            llp_any: Default::default(),
            lp_found: Default::default(),
            lp_pick: Default::default(),
            llp_sel_q: Default::default(),
            llp_any_q: Default::default(),
            llp_qp: Default::default(),
            llp_code: Default::default(),
            llp_en: Default::default(),
            llp_err: Default::default(),
            tf_any: Default::default(),
            tf_qp: Default::default(),
            tf_slot: Default::default(),
            op_ok_t: Default::default(),
            fail: Default::default(),
            f_code: Default::default(),
            go_vd: Default::default(),
            go_place: Default::default(),
            issue: Default::default(),
            msn0_inc: Default::default(),
            msn1_inc: Default::default(),
            mo_set: Default::default(),
            irq_inc: Default::default(),
            orq_dec: Default::default(),
            popp_set: Default::default(),
            popp_clr: Default::default(),
            err_set: Default::default(),
            err_qp: Default::default(),
            dying_set: Default::default(),
            dying_qp: Default::default(),
            start_read: Default::default(),
            direct_read: Default::default(),
            cq_push: Default::default(),
            cq_pop: Default::default(),
            cq_ctx_n: Default::default(),
            h_busy: Default::default(),
            h_got: Default::default(),
            h_conn: Default::default(),
            h_slot: Default::default(),
            h_ctx: Default::default(),
            h_kind: Default::default(),
            h_lf: Default::default(),
            h_st: Default::default(),
            h_addr: Default::default(),
            h_addr32: Default::default(),
            cq_a10: Default::default(),
            cq_a20: Default::default(),
            h_dead: Default::default(),
            bdying_set: Default::default(),
            w_kind_n: Default::default(),
            w_val_n: Default::default(),
            w_triple_n: Default::default(),
            w_mdr_n: Default::default(),
            w_cqesel_n: Default::default(),
            w_stsel_n: Default::default(),
            pc_triple: Default::default(),
            pc_mdr: Default::default(),
            pc_cqesel: Default::default(),
            pc_stsel: Default::default(),
            rec_we: Default::default(),
            hlen: Default::default(),
            h_neg: Default::default(),
            p_sum: Default::default(),
            t_sum: Default::default(),
            to_sum: Default::default(),
            len_sum: Default::default(),
            len_p: Default::default(),
            s_full: Default::default(),
            s_big: Default::default(),
            s_ld: Default::default(),
            sz_ld: Default::default(),
            to_hi: Default::default(),
            sh_hz: Default::default(),
            sh_ho: Default::default(),
            irq_dn: Default::default(),
            irq_st: Default::default(),
            orq_st: Default::default(),
            orq_dn: Default::default(),
            qc_idx_we: Default::default(),
            dl_en: Default::default(),
            dl_err: Default::default(),
            dl_trivial: Default::default(),
            irq_wait: Default::default(),
            lane_free: Default::default(),
            popp_clr_lane: Default::default(),
            rec_wa: Default::default(),
            rec_wr: Default::default(),
            rec_rd: Default::default(),
            op_write: c4(Opcode::RdmaWrite as u8),
            op_rreq: c4(Opcode::RdmaReadRequest as u8),
            op_rresp: c4(Opcode::RdmaReadResponse as u8),
            op_send: c4(Opcode::Send as u8),
            op_send_inv: c4(Opcode::SendInvalidate as u8),
            op_send_se: c4(Opcode::SendSe as u8),
            op_send_se_inv: c4(Opcode::SendSeInvalidate as u8),
            op_term: c4(Opcode::Terminate as u8),
            qn_send: c32(QN_SEND),
            qn_rreq: c32(QN_READ_REQUEST),
            qn_term: c32(QN_TERMINATE),
            hdr_tagged: c16(TAGGED_HEADER_LEN),
            hdr_untagged: c16(UNTAGGED_HEADER_LEN),
            neg_tagged: c17_neg(TAGGED_HEADER_LEN),
            neg_untagged: c17_neg(UNTAGGED_HEADER_LEN),
            rreq_len: c16(UNTAGGED_HEADER_LEN + RREQ_HEADER_LEN),
            neg_term_min: c17_neg(UNTAGGED_HEADER_LEN + TERM_HEADER_MIN_LEN),
            acc_rw: c4(access::REMOTE_WRITE),
            acc_lw: c4(access::LOCAL_WRITE),
            acc_rr: c4(access::REMOTE_READ),
            st_ok: c3(check_status::OK),
            st_invalid: c3(check_status::INVALID_STAG),
            st_not_assoc: c3(check_status::NOT_ASSOCIATED),
            st_access: c3(check_status::ACCESS),
            st_wrap: c3(check_status::WRAP),
            st_bounds: c3(check_status::BOUNDS),
            t_trunc: triple(rdmap, oper, RemoteOperationCode::Unspecified as u8),
            t_dv_tagged: triple(ddp, tg, TaggedBufferCode::InvalidDdpVersion as u8),
            t_dv_untagged: triple(ddp, ut, UntaggedBufferCode::InvalidDdpVersion as u8),
            t_qn: triple(ddp, ut, UntaggedBufferCode::InvalidQn as u8),
            t_rv: triple(rdmap, oper, RemoteOperationCode::InvalidRdmapVersion as u8),
            t_opcode: triple(rdmap, oper, RemoteOperationCode::UnexpectedOpcode as u8),
            t_mo: triple(ddp, ut, UntaggedBufferCode::InvalidMo as u8),
            t_msn: triple(ddp, ut, UntaggedBufferCode::MsnRange as u8),
            t_no_buf: triple(ddp, ut, UntaggedBufferCode::MsnNoBuffer as u8),
            t_too_long: triple(ddp, ut, UntaggedBufferCode::MessageTooLong as u8),
            t_send_prot: triple(
                ddp,
                DdpEType::LocalCatastrophic as u8,
                LOCAL_CATASTROPHIC_CODE,
            ),
            t_ird: triple(rdmap, oper, RemoteOperationCode::CatastrophicStream as u8),
            t_access: triple(rdmap, prot, RemoteProtectionCode::AccessRights as u8),
            t_tg_invalid: triple(ddp, tg, TaggedBufferCode::InvalidStag as u8),
            t_tg_not_assoc: triple(ddp, tg, TaggedBufferCode::StagNotAssociated as u8),
            t_tg_wrap: triple(ddp, tg, TaggedBufferCode::ToWrap as u8),
            t_tg_bounds: triple(ddp, tg, TaggedBufferCode::BaseOrBounds as u8),
            t_rr_invalid: triple(rdmap, prot, RemoteProtectionCode::InvalidStag as u8),
            t_rr_not_assoc: triple(rdmap, prot, RemoteProtectionCode::StagNotAssociated as u8),
            t_rr_wrap: triple(rdmap, prot, RemoteProtectionCode::ToWrap as u8),
            t_rr_bounds: triple(rdmap, prot, RemoteProtectionCode::BaseOrBounds as u8),
            t_inv_op: triple(
                rdmap,
                oper,
                RemoteOperationCode::StagCannotBeInvalidated as u8,
            ),
            t_inv_prot: triple(
                rdmap,
                prot,
                RemoteProtectionCode::StagCannotBeInvalidated as u8,
            ),
            t_llp: c8(((Layer::Llp as u8) << 4) | TERMINATE_ETYPE_LLP),
            wc_recv: c8(WcOpcode::Recv as u8),
            wc_rdma_read: c8(WcOpcode::RdmaRead as u8),
            wc_success: c8(WcStatus::Success as u8),
            wc_loc_len: c8(WcStatus::LocLenErr as u8),
            wc_loc_prot: c8(WcStatus::LocProtErr as u8),
            wc_general: c8(WcStatus::GeneralErr as u8),
            ev_term_sent: c8(AsyncEventKind::TerminateSent as u8),
            ev_term_rcvd: c8(AsyncEventKind::TerminateReceived as u8),
            ev_term_bad: c8(AsyncEventKind::BadTerminateReceived as u8),
            ec_trunc: c4(0),
            ec_dv_tg: c4(1),
            ec_dv_ut: c4(2),
            ec_qn: c4(3),
            ec_rv: c4(4),
            ec_opcode: c4(5),
            ec_mo: c4(6),
            ec_rrlen: c4(7),
            ec_msn: c4(8),
            ec_ird: c4(9),
            ec_no_buf: c4(10),
            ec_too_long: c4(11),
            ec_send_prot: c4(12),
            ec_inv_op: c4(13),
            ec_inv_prot: c4(14),
            cq_full: Constant::new((CQ_DEPTH as u64).into()),
            c_steps: Constant::new(
                (0..CONNECTIONS)
                    .map(|i| 1u64 << (5 * i))
                    .sum::<u64>()
                    .into(),
            ),
            k_none: c3(0),
            k_recv: c3(1),
            c_len_hi: Constant::new(LOCAL_LEN_HI_MASK.into()),
            c_len_hi16: Constant::new((LOCAL_LEN_HI_MASK >> 16).into()),
            c_len_hi17: Constant::new(((LOCAL_LEN_HI_MASK >> 16) | 1 << 16).into()),
            c_len_top: Constant::new((1u64 << LOCAL_LEN_BITS).into()),
            c_len_sign: Constant::new((1u64 << (LOCAL_LEN_BITS + 1)).into()),
            k_read: c3(2),
            k_irq: c3(3),
            k_trcv: c3(4),
            k_tbad: c3(5),
            k_err: c3(6),
        }
    }
}

impl Logic for RxControl {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            llp_sel_q,
            llp_any_q,
            ctx,
            held,
            jr_n,
            blocked,
            j_conn,
            j_slot,
            j_len,
            h_t,
            h_l,
            h_dv,
            h_rv,
            h_opc,
            h_b,
            p_len,
            f_short,
            f_size_zero,
            ap_msn0,
            e_fail,
            e_drop,
            e_code,
            h_bad,
            h_bad_code,
            e_go_vd,
            e_dying,
            e_push,
            e_ctx,
            e_orq,
            e_rreq,
            e_block,
            e_send,
            cq_busy_q,
            cq_full_q,
            o_write,
            o_rresp,
            o_rreq,
            o_term,
            ap_msn1,
            ap_mo,
            ap_popp,
            ap_irq,
            ap_orq,
            irq_full_q,
            orq_zero_q,
            xdone_q,
            jq_dead_q,
            cq_busy2_q,
            irq_done_q,
            irq_done_qp_q,
            orq_push_q,
            orq_push_qp_q,
            f_zpay,
            f_rrlen_bad,
            f_term_short,
            f_qn_gt2,
            f_qn0,
            f_qn1,
            f_qn2,
            f_msn_eq,
            f_mo_eq,
            c_fresh,
            w2_v,
            w2_addr,
            w2_data,
            f_mo_zero,
            w_present,
            w_too_long,
            ap_dying,
            ap_dying_qp,
            w_carry,
            s_sum,
            rd_done_mode,
            ra,
            rvld,
            rk,
            rk_last,
            rlast,
            prev_lo,
            o_kind,
            o_val,
            o_inv,
            o_sol,
            o_mdr,
            o_cqesel,
            o_stsel,
            o_place,
            pf_v,
            pf_code,
            o_addr,
            cq_head,
            cq_tail,
            cq_gp,
            cq_count,
            chk_qp_q,
            vd_conn_q,
            dl_v,
            dl_ph,
            dl_triv_q,
            dl_recv_q,
            dl_kind_q,
            dl_cqesel_q,
            dl_stsel_q,
            dl_inv_q,
            dl_conn,
            dl_slot,
            dl_good,
            d_conn,
            d_slot,
            d_good,
            d_kind,
            d_free,
            chk_v,
            chk_tag_q,
            chk_stag_q,
            chk_to_q,
            to_hz,
            to_ho,
            to_hm1,
            chk_len_q,
            chk_pd_q,
            chk_acc_q,
            chk_inv_q,
            vd_v,
            vd_place_q,
            vd_addr_q,
            vd_a10_q,
            vd_a20_q,
            free_v,
            free_conn_q,
            free_slot_q,
            rq_v,
            rq_qp_q,
            rq_pop_q,
            irq_v,
            cqe_v,
            cqe_qp_q,
            cqe_opcode_q,
            cqe_status_q,
            cqe_with_inv_q,
            cqe_sol_q,
            aev_v,
            aev_qp_q,
            aev_kind_q,
            ev_triple_q,
            term_v,
            term_conn_q,
            term_slot_q,
            term_mdr_q,
            term_seglen_q
        );
        for i in 0..CONNECTIONS {
            self.q_en[i].clock.next = self.clock.val();
            self.q_en[i].d.next = self.q_en[i].q.val();
            self.q_pd[i].clock.next = self.clock.val();
            self.q_pd[i].d.next = self.q_pd[i].q.val();
            self.q_ird[i].clock.next = self.clock.val();
            self.q_ird[i].d.next = self.q_ird[i].q.val();
            self.q_err[i].clock.next = self.clock.val();
            self.q_err[i].d.next = self.q_err[i].q.val();
            self.q_dying[i].clock.next = self.clock.val();
            self.q_dying[i].d.next = self.q_dying[i].q.val();
            self.q_fr_msn0[i].clock.next = self.clock.val();
            self.q_fr_msn0[i].d.next = self.q_fr_msn0[i].q.val();
            self.q_fr_msn1[i].clock.next = self.clock.val();
            self.q_fr_msn1[i].d.next = self.q_fr_msn1[i].q.val();
            self.q_fr_mo[i].clock.next = self.clock.val();
            self.q_fr_mo[i].d.next = self.q_fr_mo[i].q.val();
            self.q_irq[i].clock.next = self.clock.val();
            self.q_irq[i].d.next = self.q_irq[i].q.val();
            self.q_orq[i].clock.next = self.clock.val();
            self.q_orq[i].d.next = self.q_orq[i].q.val();
            self.q_popp[i].clock.next = self.clock.val();
            self.q_popp[i].d.next = self.q_popp[i].q.val();
            self.q_llp[i].clock.next = self.clock.val();
            self.q_llp[i].d.next = self.q_llp[i].q.val();
            self.q_llp_code[i].clock.next = self.clock.val();
            self.q_llp_code[i].d.next = self.q_llp_code[i].q.val();
            self.q_hold[i].clock.next = self.clock.val();
            self.q_hold[i].d.next = self.q_hold[i].q.val();
            self.q_hold_slot[i].clock.next = self.clock.val();
            self.q_hold_slot[i].d.next = self.q_hold_slot[i].q.val();
            self.q_tfree[i].clock.next = self.clock.val();
            self.q_tfree[i].d.next = self.q_tfree[i].q.val();
            self.q_pend[i].clock.next = self.clock.val();
            self.q_pend[i].d.next = self.q_pend[i].q.val();
            // +1 when a job of the connection is taken, -1 when one of its slots is freed.
            if self.job_valid.val()
                && (self.state.q.val() == RxState::Idle)
                && !self.held.q.val()
                && (self.job_conn.val().index() == i)
            {
                if !(self.free_v.q.val() && (self.free_conn_q.q.val().index() == i)) {
                    self.q_pend[i].d.next = self.q_pend[i].q.val() + 1;
                }
            } else if self.free_v.q.val() && (self.free_conn_q.q.val().index() == i) {
                self.q_pend[i].d.next = self.q_pend[i].q.val() - 1;
            }
            self.q_dslot[i].clock.next = self.clock.val();
            self.q_dslot[i].d.next = self.q_dslot[i].q.val();
        }
        for i in 0..CQ_DEPTH {
            self.cq_busy[i].clock.next = self.clock.val();
            self.cq_busy[i].d.next = self.cq_busy[i].q.val();
            self.cq_got[i].clock.next = self.clock.val();
            self.cq_got[i].d.next = self.cq_got[i].q.val();
            self.cq_conn[i].clock.next = self.clock.val();
            self.cq_conn[i].d.next = self.cq_conn[i].q.val();
            self.cq_slot[i].clock.next = self.clock.val();
            self.cq_slot[i].d.next = self.cq_slot[i].q.val();
            self.cq_ctx[i].clock.next = self.clock.val();
            self.cq_ctx[i].d.next = self.cq_ctx[i].q.val();
            self.cq_l[i].clock.next = self.clock.val();
            self.cq_l[i].d.next = self.cq_l[i].q.val();
            self.cq_st[i].clock.next = self.clock.val();
            self.cq_st[i].d.next = self.cq_st[i].q.val();
        }
        self.rec.clock.next = self.clock.val();

        // ---- Per-QP look-ups: the job's QP, the done's QP, the LLP error to report (lowest
        // connection first), the slot to free after a Terminate.
        self.jq_en.next = self.q_en[0].q.val();
        self.jq_pd.next = self.q_pd[0].q.val();
        self.jq_ird.next = self.q_ird[0].q.val();
        self.jq_err.next = self.q_err[0].q.val();
        self.jq_dying.next = self.q_dying[0].q.val();
        self.jq_fr_msn0.next = self.q_fr_msn0[0].q.val();
        self.jq_fr_msn1.next = self.q_fr_msn1[0].q.val();
        self.jq_fr_mo.next = self.q_fr_mo[0].q.val();
        self.jq_irq.next = self.q_irq[0].q.val();
        self.jq_orq.next = self.q_orq[0].q.val();
        self.jq_popp.next = self.q_popp[0].q.val();
        self.in_dslot.next = self.q_dslot[0].q.val();
        for i in 1..CONNECTIONS {
            if self.j_conn.q.val().index() == i {
                self.jq_en.next = self.q_en[i].q.val();
                self.jq_pd.next = self.q_pd[i].q.val();
                self.jq_ird.next = self.q_ird[i].q.val();
                self.jq_err.next = self.q_err[i].q.val();
                self.jq_dying.next = self.q_dying[i].q.val();
                self.jq_fr_msn0.next = self.q_fr_msn0[i].q.val();
                self.jq_fr_msn1.next = self.q_fr_msn1[i].q.val();
                self.jq_fr_mo.next = self.q_fr_mo[i].q.val();
                self.jq_irq.next = self.q_irq[i].q.val();
                self.jq_orq.next = self.q_orq[i].q.val();
                self.jq_popp.next = self.q_popp[i].q.val();
            }
            if self.done_conn.val().index() == i {
                self.in_dslot.next = self.q_dslot[i].q.val();
            }
        }
        self.lp_found.next = false;
        self.lp_pick.next = 0.into();
        self.tf_any.next = false;
        self.tf_qp.next = 0.into();
        self.tf_slot.next = self.q_hold_slot[0].q.val();
        // The lowest pending connection: count the connections before the first pending one.
        for i in 0..CONNECTIONS {
            if !self.lp_found.val() {
                // Wait for the connection's earlier segments (or take it at once when the QP
                // already erred: it only clears the latch then).
                if self.q_llp[i].q.val() && ((self.q_pend[i].q.val() == 0) || self.q_err[i].q.val())
                {
                    self.lp_found.next = true;
                } else {
                    self.lp_pick.next = self.lp_pick.val() + 1;
                }
            }
            if !self.tf_any.val() {
                if self.q_tfree[i].q.val() {
                    self.tf_any.next = true;
                } else {
                    self.tf_qp.next = self.tf_qp.val() + 1;
                }
            }
        }
        // Timing: the pick is registered (`llp_sel_q`) and taken only if that connection's
        // condition still holds (a connection becoming eligible waits one cycle; one just
        // served is not served again).
        self.llp_sel_q.d.next = self.lp_pick.val();
        self.llp_qp.next = self.llp_sel_q.q.val();
        self.llp_any.next = false;
        self.llp_code.next = self.q_llp_code[0].q.val();
        self.llp_en.next = self.q_en[0].q.val();
        self.llp_err.next = self.q_err[0].q.val();
        for i in 0..CONNECTIONS {
            if self.llp_sel_q.q.val().index() == i {
                self.llp_any.next = self.q_llp[i].q.val()
                    && ((self.q_pend[i].q.val() == 0) || self.q_err[i].q.val());
                self.llp_code.next = self.q_llp_code[i].q.val();
                self.llp_en.next = self.q_en[i].q.val();
                self.llp_err.next = self.q_err[i].q.val();
            }
        }
        self.llp_any_q.d.next = self.llp_any.val();
        for i in 1..CONNECTIONS {
            if self.tf_qp.val().index() == i {
                self.tf_slot.next = self.q_hold_slot[i].q.val();
            }
        }

        // ---- The context RAM's read port: by default field 3, never written (so a read never
        // meets a write of the same entry); the value read, or the reset value while fresh
        // (MSN 1: low half 1 in the cycle of word 3; MO 0): a fresh field's halves are read
        // from field 3's high half, never written, so 0 (timing: no 16-bit multiplexer between
        // the RAM and the compares), and bit 0 is set for the MSN's low half.
        self.qctx.clock.next = self.clock.val();
        self.qc_conn.next = bit_cast::<QCTX_ADDR_BITS, CONN_BITS>(self.j_conn.q.val()) << 4;
        self.qc_d_ix.next = (bit_cast::<QCTX_ADDR_BITS, CONN_BITS>(self.d_conn.q.val()) << 4) | 6;
        self.qctx.read_addr.next = self.qc_conn.val() + 7;
        self.qc_v.next = self.qctx.read_data.val();
        if self.c_fresh.q.val() && self.rk.q.val().get_bit(4) {
            self.qc_v.next = self.qctx.read_data.val() | 1;
        }
        // The two compares, each with one operand (no multiplexer): octets 4k-2 .. 4k-1 of word
        // k (the header RAM's low half: the MSN's high half at word 2, the MO's at word 3), and
        // `chk_to_q`'s low half (loaded with `sh` at words 3 and 4: the MSN's low half at word
        // 4, the MO's at word 5).
        self.c_eq_a.next = self.hdr_a_data.val().get_bits::<16>(0) == self.qc_v.val();
        self.c_eq_b.next = self.chk_to_q.q.val().get_bits::<16>(0) == self.qc_v.val();

        // ---- Header words: the field at octets 4k-2 .. 4k+1 when word k is on `hdr_a_data`.
        self.sh.next = (bit_cast::<32, 16>(self.prev_lo.q.val()) << 16)
            | bit_cast::<32, 16>(self.hdr_a_data.val().get_bits::<16>(16));
        // A Read Request's size (word 8) with the flag of "`1 << LOCAL_LEN_BITS` or more": its
        // upper bits are in the high half (`prev_lo`, a register).
        self.sz_ld.next = bit_cast::<LOCAL_LEN_BITS1, LOCAL_LEN_BITS>(
            self.sh.val().get_bits::<LOCAL_LEN_BITS>(0),
        );
        if (self.prev_lo.q.val() & self.c_len_hi16.val()) != 0 {
            self.sz_ld.next = self.sz_ld.val() | self.c_len_top.val();
        }
        self.pl1.next = bit_cast::<17, 16>(self.prev_lo.q.val()) + 1;
        // MO + P the same way (`s_sum`): a 17-bit chain from the header RAM, the high half
        // chosen by its carry (a 33-bit chain from the RAM was the composed receive path's
        // critical path, 85.4 MHz, once `vd_ready` was registered).
        self.ss_lo.next = bit_cast::<17, 16>(self.hdr_a_data.val().get_bits::<16>(16))
            + bit_cast::<17, 16>(self.p_len.q.val());
        self.s_full.next = (bit_cast::<33, 16>(self.prev_lo.q.val()) << 16)
            | bit_cast::<33, 16>(self.ss_lo.val().get_bits::<16>(0));
        self.s_big.next = (self.prev_lo.q.val() & self.c_len_hi16.val()) != 0;
        if self.ss_lo.val().get_bit(16) {
            self.s_full.next = (bit_cast::<33, 17>(self.pl1.val()) << 16)
                | bit_cast::<33, 16>(self.ss_lo.val().get_bits::<16>(0));
            self.s_big.next = (self.pl1.val() & self.c_len_hi17.val()) != 0;
        }
        self.s_ld.next = bit_cast::<LOCAL_LEN_BITS1, LOCAL_LEN_BITS>(
            self.s_full.val().get_bits::<LOCAL_LEN_BITS>(0),
        );
        if self.s_big.val() {
            self.s_ld.next = self.s_ld.val() | self.c_len_top.val();
        }
        // A TO high half's bits 63..33 as flags (see `chk_to_q`).
        self.sh_hz.next = self.sh.val().get_bits::<31>(1) != 0;
        self.sh_ho.next = self.sh.val().get_bits::<31>(1).all();
        // Row 6: T and QN as the opcode needs them.
        self.op_ok_t.next = false;
        if self.o_write.q.val() || self.o_rresp.q.val() {
            self.op_ok_t.next = self.h_t.q.val();
        } else if self.o_rreq.q.val() {
            self.op_ok_t.next = !self.h_t.q.val() && self.f_qn1.q.val();
        } else if self.o_term.q.val() {
            self.op_ok_t.next = !self.h_t.q.val() && self.f_qn2.q.val();
        } else {
            self.op_ok_t.next = !self.h_t.q.val() && self.f_qn0.q.val();
        }

        // `rsp_host_addr`'s carry-select flags (see `vd_a10`).
        self.cq_a10.next = self.rsp_host_addr.val().get_bits::<10>(2).all();
        self.cq_a20.next = self.rsp_host_addr.val().get_bits::<20>(2).all();

        // ---- Defaults.
        self.fail.next = false;
        self.f_code.next = self.ec_trunc.val();
        self.go_vd.next = false;
        self.go_place.next = false;
        self.issue.next = false;
        self.msn0_inc.next = false;
        self.msn1_inc.next = false;
        self.mo_set.next = false;
        self.irq_inc.next = false;
        self.orq_dec.next = false;
        self.popp_set.next = false;
        self.popp_clr.next = false;
        self.err_set.next = false;
        self.err_qp.next = self.d_conn.q.val();
        self.dying_set.next = false;
        self.dying_qp.next = self.j_conn.q.val();
        self.start_read.next = false;
        self.direct_read.next = false;
        self.cq_push.next = false;
        self.cq_ctx_n.next = 0.into();
        self.chk_v.d.next = false;
        self.free_v.d.next = false;
        self.rk.d.next = 0.into();
        self.rk_last.d.next = false;
        self.rec_we.next = false;
        self.hlen.next = self.hdr_untagged.val();
        self.h_neg.next = self.neg_untagged.val();
        self.p_sum.next = 0.into();
        self.t_sum.next = 0.into();
        // `{11, len_n}` as `!{00, len}` (the inversions cancel in synthesis; through a signal, so
        // that the Verilog widens `len` before inverting it).
        self.len_p.next = !self.rq_rsp_len_n.val().get_bits::<LOCAL_LEN_BITS>(0);
        self.len_sum.next = bit_cast::<LOCAL_LEN_BITS2, LOCAL_LEN_BITS1>(self.s_sum.q.val())
            + !bit_cast::<LOCAL_LEN_BITS2, LOCAL_LEN_BITS>(self.len_p.val());
        self.to_sum.next = bit_cast::<33, 32>(self.rq_rsp_to.val().get_bits::<32>(0))
            + bit_cast::<33, 32>(self.chk_to_q.q.val().get_bits::<32>(0));
        self.qc_idx_we.next = false;
        self.rec_wa.next = (bit_cast::<3, CONN_BITS>(self.j_conn.q.val()) << 1)
            | bit_cast::<3, 1>(self.j_slot.q.val().into());
        self.rec_rd.next = self.rec.read_data.val();
        self.hdr_a_addr.next = (bit_cast::<HDR_ADDR_BITS, CONN_BITS>(self.j_conn.q.val()) << 6)
            | (bit_cast::<HDR_ADDR_BITS, 1>(self.j_slot.q.val().into()) << 5)
            | bit_cast::<HDR_ADDR_BITS, 4>(self.ra.q.val());
        if self.rd_done_mode.q.val() {
            self.hdr_a_addr.next = (bit_cast::<HDR_ADDR_BITS, CONN_BITS>(self.d_conn.q.val()) << 6)
                | (bit_cast::<HDR_ADDR_BITS, 1>(self.d_slot.q.val().into()) << 5)
                | bit_cast::<HDR_ADDR_BITS, 4>(self.ra.q.val());
        }

        // ---- Handshakes of the output registers.
        if self.vd_v.q.val() && self.vd_ready.val() {
            self.vd_v.d.next = false;
        }
        if self.rq_v.q.val() && self.rq_req_ready.val() {
            self.rq_v.d.next = false;
        }
        // `irq_valid` is a strobe per word (no back-pressure once a request started).
        self.irq_v.d.next = false;
        if self.cqe_v.q.val() && self.cqe_ready.val() {
            self.cqe_v.d.next = false;
        }
        if self.aev_v.q.val() && self.aev_ready.val() {
            self.aev_v.d.next = false;
        }
        // TerminateTx reads the request in place: it stays on `term_*` until `term_done`
        // (`crate::rdmap` "TerminateTx"; Emit waits for it, so nothing else changes it).
        if self.term_v.q.val() && self.term_done.val() {
            self.term_v.d.next = false;
        }

        // ---- The done lane: a segment end is taken, its record read (`dl_ph` 0: address
        // presented, 1: record on `rec_rd`); a done without events frees its slot here, in
        // parallel with the jobs; one with events goes to the FSM (DoneGet).
        self.dl_en.next = self.q_en[0].q.val();
        self.dl_err.next = self.q_err[0].q.val();
        for i in 1..CONNECTIONS {
            if self.dl_conn.q.val().index() == i {
                self.dl_en.next = self.q_en[i].q.val();
                self.dl_err.next = self.q_err[i].q.val();
            }
        }
        self.dl_trivial.next = (self.rec_rd.val().get_bits::<3>(0) == self.k_none.val())
            || !self.dl_good.q.val()
            || self.dl_err.val()
            || !self.dl_en.val();
        self.irq_wait.next = (self.dl_kind_q.q.val() == self.k_irq.val()) && !self.irq_ready.val();
        self.lane_free.next = false;
        self.popp_clr_lane.next = false;
        // Phases: 0 address presented, 1 record on `rec_rd` (classified into `dl_triv_q`),
        // 2 acted on (the record stays on `rec_rd` while the address is held).
        if self.dl_v.q.val() && (self.dl_ph.q.val() != 2) {
            self.dl_ph.d.next = self.dl_ph.q.val() + 1;
        }
        self.dl_triv_q.d.next = self.dl_trivial.val();
        // The record is a Recv (registered like `dl_triv_q`: the record stays on the read port
        // from phase 1 to DoneGet).
        self.dl_recv_q.d.next = self.rec_rd.val().get_bits::<3>(0) == self.k_recv.val();
        // Likewise the record's control fields, for DoneGet (timing: block RAM output).
        self.dl_kind_q.d.next = self.rec_rd.val().get_bits::<3>(0);
        self.dl_inv_q.d.next = self.rec_rd.val().get_bit(3);
        self.dl_cqesel_q.d.next = self.rec_rd.val().get_bits::<2>(40);
        self.dl_stsel_q.d.next = self.rec_rd.val().get_bits::<2>(42);
        if self.dl_v.q.val() && (self.dl_ph.q.val() == 2) && self.dl_triv_q.q.val() {
            self.lane_free.next = true;
            self.free_v.d.next = true;
            self.free_conn_q.d.next = self.dl_conn.q.val();
            self.free_slot_q.d.next = self.dl_slot.q.val();
            self.dl_v.d.next = false;
            self.popp_clr_lane.next = self.dl_recv_q.q.val();
        }
        if self.done_valid.val() && !self.dl_v.q.val() {
            self.dl_v.d.next = true;
            self.dl_ph.d.next = 0.into();
            self.dl_conn.d.next = self.done_conn.val();
            self.dl_slot.d.next = self.in_dslot.val();
            self.dl_good.d.next = self.done_good.val();
            for i in 0..CONNECTIONS {
                if self.done_conn.val().index() == i {
                    self.q_dslot[i].d.next = !self.q_dslot[i].q.val();
                }
            }
        }

        // ---- The FSM.
        match self.state.q.val() {
            RxState::Idle => {
                // A job's read, if one starts now (timing: loaded in every Idle cycle, so their
                // enables are the state alone; nothing reads them in Idle, and DoneGet sets them
                // again for a done's read): word 0 is read at once for a new job, so Read
                // starts at word 1; a held job's read starts at word 0.
                self.ra.d.next = 0.into();
                if !self.held.q.val() {
                    self.ra.d.next = 1.into();
                }
                self.rlast.d.next = 5.into();
                // The done's segment length (word 8 + slot), for an error's Terminate in
                // DoneGet (which then addresses the CQE's WQE index).
                self.qctx.read_addr.next =
                    (bit_cast::<QCTX_ADDR_BITS, CONN_BITS>(self.dl_conn.q.val()) << 4)
                        | 8
                        | bit_cast::<QCTX_ADDR_BITS, 1>(self.dl_slot.q.val().into());
                if self.job_valid.val() && !self.held.q.val() {
                    self.held.d.next = true;
                    self.blocked.d.next = false;
                    self.j_conn.d.next = self.job_conn.val();
                    self.j_slot.d.next = self.job_slot.val();
                    self.j_len.d.next = self.job_len.val();
                }
                if self.dl_v.q.val() && (self.dl_ph.q.val() == 2) && !self.dl_triv_q.q.val() {
                    // A done with events: its record stays on the read port until DoneGet.
                    // A Read Request's waits here, holding the FSM (as an `irq_*` output
                    // register not taken would), until the ReadResponder can take it.
                    if !self.irq_wait.val() {
                        self.d_conn.d.next = self.dl_conn.q.val();
                        self.d_slot.d.next = self.dl_slot.q.val();
                        // The done has effects only if good and the QP enabled and not in
                        // error: decided here from the lane's look-up (timing; only DoneGet and
                        // LlpErr set `err`, and the configuration waits for `idle`).
                        self.d_good.d.next =
                            self.dl_good.q.val() && !self.dl_err.val() && self.dl_en.val();
                        self.state.d.next = RxState::DoneGet;
                    }
                } else if self.llp_any_q.q.val() {
                    // A latched LLP error: cleared now, committed in LlpErr (timing: the
                    // Terminate's and event's registers are loaded from that state). Timing:
                    // the priority over the rest is by the previous cycle's `llp_any` (a cycle
                    // without action if it no longer holds; one for a job or a free first if
                    // it newly holds).
                    if self.llp_any.val() {
                        for i in 0..CONNECTIONS {
                            if self.llp_qp.val().index() == i {
                                self.q_llp[i].d.next = false;
                            }
                        }
                        self.llp_sel_q.d.next = self.llp_sel_q.q.val();
                        self.state.d.next = RxState::LlpErr;
                    }
                } else if self.tf_any.val() && !self.lane_free.val() {
                    self.free_v.d.next = true;
                    self.free_conn_q.d.next = self.tf_qp.val();
                    self.free_slot_q.d.next = self.tf_slot.val();
                    for i in 0..CONNECTIONS {
                        if self.tf_qp.val().index() == i {
                            self.q_tfree[i].d.next = false;
                        }
                    }
                } else if (self.held.q.val() && !(self.blocked.q.val() && self.jq_popp.val()))
                    || (self.job_valid.val() && !self.held.q.val())
                {
                    // A held job, or a new one at once: word 0 of its slot is read now
                    // (`hdr_a_addr` from the job inputs), so Read starts at word 1.
                    self.start_read.next = true;
                    self.rd_done_mode.d.next = false;
                    if !self.held.q.val() {
                        self.direct_read.next = true;
                    }
                }
            }
            RxState::LlpErr => {
                self.llp_sel_q.d.next = self.llp_sel_q.q.val();
                self.state.d.next = RxState::Idle;
                if self.llp_en.val() && !self.llp_err.val() {
                    // The first error of the QP: Terminate 2/LLP/code, no headers.
                    self.err_set.next = true;
                    self.err_qp.next = self.llp_qp.val();
                    self.dying_set.next = true;
                    self.dying_qp.next = self.llp_qp.val();
                    self.term_v.d.next = true;
                    self.term_conn_q.d.next = self.llp_qp.val();
                    self.term_slot_q.d.next = false;
                    self.term_mdr_q.d.next = 0.into();
                    self.term_seglen_q.d.next = 0.into();
                    self.aev_v.d.next = true;
                    self.aev_qp_q.d.next = self.llp_qp.val();
                    self.aev_kind_q.d.next = self.ev_term_sent.val();
                    self.ev_triple_q.d.next = (bit_cast::<16, 8>(self.t_llp.val()) << 8)
                        | bit_cast::<16, LLP_CODE_BITS>(self.llp_code.val());
                    self.d_free.d.next = false;
                    self.state.d.next = RxState::Emit;
                }
            }
            RxState::Read => {
                if self.rd_done_mode.q.val() {
                    // The CQE's index on the context RAM's read port (see DoneGet).
                    self.qctx.read_addr.next = self.qc_d_ix.val();
                    if self.cqe_opcode_q.q.val() == self.wc_rdma_read.val() {
                        self.qctx.read_addr.next = self.qc_d_ix.val() | 1;
                    }
                }
                // Address `ra` now, its word on `hdr_a_data` in the next cycle (`rk`).
                if self.ra.q.val() <= self.rlast.q.val() {
                    self.ra.d.next = self.ra.q.val() + 1;
                }
                self.rvld.d.next = self.ra.q.val() <= self.rlast.q.val();
                // `rk` one-hot: the first word of a read that did not start at once (word 0 or
                // 4), then a shift per word; `rk_last` when the last word is addressed.
                if self.ra.q.val() <= self.rlast.q.val() {
                    if !self.rvld.q.val() {
                        self.rk.d.next = 1.into();
                        if self.ra.q.val().get_bit(2) {
                            self.rk.d.next = 16.into();
                        }
                    } else {
                        self.rk.d.next = self.rk.q.val() << 1;
                    }
                }
                self.rk_last.d.next = self.ra.q.val() == self.rlast.q.val();
                // Word k is on `hdr_a_data` when `rk` bit k is set.
                self.prev_lo.d.next = self.hdr_a_data.val().get_bits::<16>(0);
                if !self.rd_done_mode.q.val() {
                    if self.rk.q.val().get_bit(0) {
                        // Octet 0: T, L, DV; octet 1: RV, opcode.
                        self.h_t.d.next = self.hdr_a_data.val().get_bit(31);
                        self.h_l.d.next = self.hdr_a_data.val().get_bit(30);
                        self.h_dv.d.next = self.hdr_a_data.val().get_bits::<2>(24);
                        self.h_rv.d.next = self.hdr_a_data.val().get_bits::<2>(22);
                        self.h_opc.d.next = self.hdr_a_data.val().get_bits::<4>(16);
                        self.o_write.d.next =
                            self.hdr_a_data.val().get_bits::<4>(16) == self.op_write.val();
                        self.o_rresp.d.next =
                            self.hdr_a_data.val().get_bits::<4>(16) == self.op_rresp.val();
                        self.o_rreq.d.next =
                            self.hdr_a_data.val().get_bits::<4>(16) == self.op_rreq.val();
                        self.o_term.d.next =
                            self.hdr_a_data.val().get_bits::<4>(16) == self.op_term.val();
                        // Lengths against the header of this T: rows 1, 8, 9, P.
                        self.f_rrlen_bad.d.next = self.j_len.q.val() != self.rreq_len.val();
                        self.t_sum.next =
                            bit_cast::<17, 16>(self.j_len.q.val()) + self.neg_term_min.val();
                        self.f_term_short.d.next = !self.t_sum.val().get_bit(16);
                        // One adder for P and row 1 (the header length by T, then subtracted).
                        self.hlen.next = self.hdr_untagged.val();
                        self.h_neg.next = self.neg_untagged.val();
                        if self.hdr_a_data.val().get_bit(31) {
                            self.hlen.next = self.hdr_tagged.val();
                            self.h_neg.next = self.neg_tagged.val();
                        }
                        self.p_sum.next = bit_cast::<17, 16>(self.j_len.q.val()) + self.h_neg.val();
                        self.f_short.d.next = !self.p_sum.val().get_bit(16);
                        self.f_zpay.d.next = self.j_len.q.val() == self.hlen.val();
                        self.p_len.d.next = self.p_sum.val().get_bits::<16>(0);
                    }
                    if self.rk.q.val().get_bit(1) {
                        // The last word by T / opcode, from word 0's registered flags (timing:
                        // not from the RAM's output; `ra` is 2 here, so the new value is in
                        // time for word 3's address): tagged, the TO ends in word 3; a Read
                        // Request's SrcTO in word 11; else word 5 (Idle's value: a Terminate's
                        // octets 18-19, a Send's MO).
                        if self.h_t.q.val() {
                            self.rlast.d.next = 3.into();
                        } else if self.o_rreq.q.val() {
                            self.rlast.d.next = 11.into();
                        }
                    }
                    if self.rk.q.val().get_bit(2) {
                        if self.h_t.q.val() {
                            // Tagged: the TO straight into the check (high half here, low in word 3).
                            self.chk_to_q.d.next =
                                (bit_cast::<33, 1>(self.sh.val().get_bits::<1>(0)) << 32)
                                    | bit_cast::<33, 32>(self.chk_to_q.q.val().get_bits::<32>(0));
                            self.to_hz.d.next = self.sh_hz.val();
                            self.to_ho.d.next = self.sh_ho.val();
                        }
                        // QN > 2: any bit above bit 1, or QN = 3.
                        self.f_qn_gt2.d.next = (self.sh.val().get_bits::<30>(2) != 0)
                            || (self.sh.val().get_bits::<2>(0) == 3);
                        self.f_qn0.d.next = self.sh.val() == self.qn_send.val();
                        self.f_qn1.d.next = self.sh.val() == self.qn_rreq.val();
                        self.f_qn2.d.next = self.sh.val() == self.qn_term.val();
                    }
                    // The expected MSN and MO from `qctx`, a 16-bit half per cycle (the
                    // address in the cycle before its word): MSN high half against octets
                    // 10-11 (word 2's low half), MO high half against octets 14-15 (word 3's
                    // low half), MSN low half against octets 12-13 (word 4, kept in
                    // `chk_to_q` from word 3), MO low half against octets 16-17 (word 5, kept
                    // in `chk_to_q` from word 4). `f_msn_eq` / `f_mo_eq` hold the high half's
                    // result until the low half's.
                    // (A fresh field's addresses stay at the default, field 3's high half.)
                    if self.rk.q.val().get_bit(1) {
                        if self.o_rreq.q.val() {
                            if !self.jq_fr_msn1.val() {
                                self.qctx.read_addr.next = self.qc_conn.val() + 3;
                            }
                            self.c_fresh.d.next = self.jq_fr_msn1.val();
                        } else {
                            if !self.jq_fr_msn0.val() {
                                self.qctx.read_addr.next = self.qc_conn.val() + 1;
                            }
                            self.c_fresh.d.next = self.jq_fr_msn0.val();
                        }
                    }
                    if self.rk.q.val().get_bit(2) {
                        if !self.jq_fr_mo.val() {
                            self.qctx.read_addr.next = self.qc_conn.val() + 5;
                        }
                        self.f_msn_eq.d.next = self.c_eq_a.val();
                    }
                    if self.rk.q.val().get_bit(3) {
                        // Octets 10-13: a tagged segment's TO low half (for its check), an
                        // untagged one's MSN (its low half compared at word 4).
                        self.chk_to_q.d.next =
                            (bit_cast::<33, 1>(self.chk_to_q.q.val().get_bits::<1>(32)) << 32)
                                | bit_cast::<33, 32>(self.sh.val());
                        if !self.c_fresh.q.val() {
                            self.qctx.read_addr.next = self.qc_conn.val();
                            if self.o_rreq.q.val() {
                                self.qctx.read_addr.next = self.qc_conn.val() + 2;
                            }
                        }
                        self.f_mo_eq.d.next = self.c_eq_a.val();
                    }
                    if self.rk.q.val().get_bit(4) {
                        // The header's MSN + 1 from `chk_to_q` (octets 10-13, loaded at word
                        // 3): a 32-bit chain from a register, not from the header RAM's output.
                        // (A tagged job's read ends at word 3: it has no MSN.)
                        self.h_b.d.next = self.chk_to_q.q.val().get_bits::<32>(0) + 1;
                        // The MO whole (octets 14-17) into `chk_to_q`, which an untagged job
                        // does not use before RqWait: its low half for row 14 (word 5), the
                        // whole for a Send's WQE TO + MO (a tagged job's read ends at word 3;
                        // a Read Request's SrcTO overwrites it at words 10-11).
                        self.chk_to_q.d.next =
                            (bit_cast::<33, 1>(self.chk_to_q.q.val().get_bits::<1>(32)) << 32)
                                | bit_cast::<33, 32>(self.sh.val());
                        // MO + P (row 16, the Recv byte count, the next expected MO).
                        self.s_sum.d.next = self.s_ld.val();
                        self.f_mo_zero.d.next = self.sh.val() == 0;
                        if !self.jq_fr_mo.val() {
                            self.qctx.read_addr.next = self.qc_conn.val() + 4;
                        }
                        self.f_msn_eq.d.next = self.f_msn_eq.q.val() && self.c_eq_b.val();
                    }
                    if self.rk.q.val().get_bit(5) {
                        // A Terminate's octets 18-19 (Layer / EType, Code) straight into
                        // the record value (nothing else uses `o_val` during a read).
                        self.o_val.d.next = bit_cast::<32, 16>(self.sh.val().get_bits::<16>(16));
                        self.f_mo_eq.d.next = self.f_mo_eq.q.val() && self.c_eq_b.val();
                    }
                    if self.rk.q.val().get_bit(8) {
                        self.f_size_zero.d.next = self.sh.val() == 0;
                    }
                } else if self.rk.q.val().get_bits::<4>(5) != 0 {
                    // A done: the Read Request's sink STag, sink TO (high, low) and size
                    // (words 5-8), each straight out on `irq_word` (`o_addr`, which held
                    // the source address, the request's first word, see "State").
                    self.o_addr.d.next = self.sh.val();
                    self.irq_v.d.next = true;
                }
                // Octets 2-5 (both modes) straight into `chk_stag_q`: the STag of a tagged
                // segment (for its check), a Send's Invalidate STag (`cqe_inv_stag` at the done;
                // at the job, a Send's requests take it from the header again, see RqReq).
                if self.rk.q.val().get_bit(1) {
                    self.chk_stag_q.d.next = self.sh.val();
                }
                // Read Request (both modes): RDMARDSZ, SrcSTag, SrcTO straight into the
                // check registers (for the StagCheck at the job, for `irq_*` at the done).
                if self.rk.q.val().get_bit(8) {
                    self.chk_len_q.d.next = self.sz_ld.val();
                }
                if self.rk.q.val().get_bit(9) {
                    // SrcSTag (octets 2-5 of a Read Request are not used).
                    self.chk_stag_q.d.next = self.sh.val();
                }
                if self.rk.q.val().get_bit(10) {
                    self.chk_to_q.d.next = (bit_cast::<33, 1>(self.sh.val().get_bits::<1>(0))
                        << 32)
                        | bit_cast::<33, 32>(self.chk_to_q.q.val().get_bits::<32>(0));
                    self.to_hz.d.next = self.sh_hz.val();
                    self.to_ho.d.next = self.sh_ho.val();
                }
                if self.rk.q.val().get_bit(11) {
                    self.chk_to_q.d.next =
                        (bit_cast::<33, 1>(self.chk_to_q.q.val().get_bits::<1>(32)) << 32)
                            | bit_cast::<33, 32>(self.sh.val());
                }
                if self.rk_last.q.val() {
                    self.ra.d.next = 0.into();
                    self.rvld.d.next = false;
                    if self.rd_done_mode.q.val() {
                        if self.d_kind.q.val() != self.k_irq.val() {
                            self.cqe_v.d.next = true;
                        }
                        self.state.d.next = RxState::Emit;
                    } else {
                        self.state.d.next = RxState::Eval;
                    }
                    // Rows 1-8 from the header flags, all registered by now (the last word,
                    // on `hdr_a_data` in this cycle, is word 3 or later; rows 1-8 use words 0,
                    // 2 and 4, and word 4 only for a Read Request, whose last word is 11).
                    self.h_bad.d.next = true;
                    if self.f_short.q.val() {
                        self.h_bad_code.d.next = self.ec_trunc.val();
                    } else if self.h_dv.q.val() != 1 {
                        if self.h_t.q.val() {
                            self.h_bad_code.d.next = self.ec_dv_tg.val();
                        } else {
                            self.h_bad_code.d.next = self.ec_dv_ut.val();
                        }
                    } else if !self.h_t.q.val() && self.f_qn_gt2.q.val() {
                        self.h_bad_code.d.next = self.ec_qn.val();
                    } else if self.h_rv.q.val() != 1 {
                        self.h_bad_code.d.next = self.ec_rv.val();
                    } else if self.h_opc.q.val().get_bit(3) || !self.op_ok_t.val() {
                        // Rows 5 and 6.
                        self.h_bad_code.d.next = self.ec_opcode.val();
                    } else if self.o_rreq.q.val() && (!self.h_l.q.val() || !self.f_mo_zero.q.val())
                    {
                        self.h_bad_code.d.next = self.ec_mo.val();
                    } else if self.o_rreq.q.val() && self.f_rrlen_bad.q.val() {
                        self.h_bad_code.d.next = self.ec_rrlen.val();
                    } else {
                        self.h_bad.d.next = false;
                    }
                }
            }
            RxState::Eval => {
                // The check's length P, but for a Read Request (its size came with word 8): a
                // Write's, a Read Response's and a Send's lkey check's (only RqWait and SendRows
                // lie between this Eval and a Send's check; a done read between a waiting job's
                // Eval cycles runs the job's Eval again). (The STag of a Write / Read Response,
                // the SrcSTag of a Read Request and a tagged TO went into `chk_stag` / `chk_to` as
                // their words arrived.)
                if !self.o_rreq.q.val() {
                    self.chk_len_q.d.next = bit_cast::<LOCAL_LEN_BITS1, 16>(self.p_len.q.val());
                }
                // The pending record by opcode alone (a drop or a failure overrides it in
                // Eval2; a Send's is set in SendOk).
                self.o_kind.d.next = self.k_none.val();
                // (0 is the `irq_src_addr` of a zero-length Read Request; the received triple
                // of a Terminate.)
                if !self.o_term.q.val() {
                    self.o_val.d.next = 0.into();
                }
                self.o_inv.d.next = false;
                self.o_sol.d.next = false;
                if self.o_term.q.val() {
                    self.o_kind.d.next = self.k_trcv.val();
                    if self.f_term_short.q.val() || !self.h_l.q.val() || !self.f_mo_zero.q.val() {
                        self.o_kind.d.next = self.k_tbad.val();
                    }
                } else if self.o_rresp.q.val() && self.h_l.q.val() {
                    self.o_kind.d.next = self.k_read.val();
                } else if self.o_rreq.q.val() {
                    self.o_kind.d.next = self.k_irq.val();
                }
                // The access right of a queued check (rows 10-12, 18-20) by opcode alone, in
                // every Eval cycle: the request goes out in Eval2 only with `e_push`, so the
                // register's load enable is the state, not the rows' outcome (timing).
                if self.o_write.q.val() {
                    self.chk_acc_q.d.next = self.acc_rw.val();
                } else if self.o_rresp.q.val() {
                    self.chk_acc_q.d.next = self.acc_lw.val();
                } else {
                    self.chk_acc_q.d.next = self.acc_rr.val();
                }
                self.e_drop.d.next = false;
                if self.jq_dead_q.q.val() {
                    // Row 0: dropped silently.
                    self.e_drop.d.next = true;
                    self.go_vd.next = true;
                } else if self.h_bad.q.val() {
                    // Rows 1-8 (decided as the read ended).
                    self.fail.next = true;
                    self.f_code.next = self.h_bad_code.q.val();
                } else if self.o_term.q.val() {
                    // Row 9: never answered; the QP goes to error at the done.
                    self.dying_set.next = true;
                    self.go_vd.next = true;
                } else if self.o_write.q.val() {
                    // Row 10.
                    if !self.f_zpay.q.val() {
                        self.cq_push.next = true;
                        self.cq_ctx_n.next = 0.into();
                    } else {
                        self.go_vd.next = true;
                    }
                } else if self.o_rresp.q.val() {
                    // Rows 11-12.
                    if self.orq_zero_q.q.val() {
                        self.fail.next = true;
                        self.f_code.next = self.ec_opcode.val();
                    } else {
                        if self.h_l.q.val() {
                            self.orq_dec.next = true;
                        }
                        if !self.f_zpay.q.val() {
                            self.cq_push.next = true;
                            self.cq_ctx_n.next = 1.into();
                        } else {
                            self.go_vd.next = true;
                        }
                    }
                } else if self.o_rreq.q.val() {
                    // Rows 18-20 (the check operands were read into chk_*).
                    if !self.f_msn_eq.q.val() {
                        self.fail.next = true;
                        self.f_code.next = self.ec_msn.val();
                    } else if self.irq_full_q.q.val() {
                        self.fail.next = true;
                        self.f_code.next = self.ec_ird.val();
                    } else {
                        self.msn1_inc.next = true;
                        self.irq_inc.next = true;
                        if !self.f_size_zero.q.val() {
                            self.cq_push.next = true;
                            self.cq_ctx_n.next = 2.into();
                        } else {
                            self.go_vd.next = true;
                        }
                    }
                } else {
                    // Sends: rows 13-15.
                    if !self.f_msn_eq.q.val() {
                        self.fail.next = true;
                        self.f_code.next = self.ec_msn.val();
                    } else if !self.f_mo_eq.q.val() {
                        self.fail.next = true;
                        self.f_code.next = self.ec_mo.val();
                    } else if self.jq_popp.val() {
                        // The previous Send's done needs its WQE index (field 3): retry after it.
                        self.e_block.d.next = true;
                    } else {
                        self.e_send.d.next = true;
                    }
                }
                // The outcome of the rows is registered and applied in Eval2.
                self.e_fail.d.next = self.fail.val();
                self.e_code.d.next = self.f_code.val();
                self.e_go_vd.d.next = self.go_vd.val();
                self.e_dying.d.next = self.dying_set.val();
                self.e_push.d.next = self.cq_push.val();
                self.e_ctx.d.next = self.cq_ctx_n.val();
                self.e_orq.d.next = self.orq_dec.val();
                self.e_rreq.d.next = self.msn1_inc.val();
                // (Back to the defaults, `cq_ctx_n` and `f_code` too: timing, the queue's
                // context and `pf_code` then load only Eval2's registered outcome.)
                self.fail.next = false;
                self.f_code.next = self.ec_trunc.val();
                self.go_vd.next = false;
                self.dying_set.next = false;
                self.cq_push.next = false;
                self.cq_ctx_n.next = 0.into();
                self.orq_dec.next = false;
                self.msn1_inc.next = false;
                self.irq_inc.next = false;
                self.state.d.next = RxState::Eval2;
            }
            RxState::Eval2 => {
                // Word 0 of the job's slot is on `hdr_a_data` (`ra` is 0 from Eval on): its low
                // half for a Send's Invalidate STag (see RqReq).
                self.prev_lo.d.next = self.hdr_a_data.val().get_bits::<16>(0);
                self.e_block.d.next = false;
                self.e_send.d.next = false;
                // A drop's record has no events. Also while waiting (timing: the enable is the
                // state and `e_drop` alone): Eval runs again before the record is written, and
                // sets `o_kind` by opcode.
                if self.e_drop.q.val() {
                    self.o_kind.d.next = self.k_none.val();
                }
                // Only a check of a Write, Read Response or Read Request may be queued behind
                // checks in flight; anything else decides with the QP state of every earlier
                // job, so it waits until the queue is empty (and a push until there is room).
                // (Also one cycle after an `irq_done` / `orq_push`, whose count the registered
                // flags do not show yet.) Waiting runs the rows again: the QP may have died.
                // A verdict decided here goes out from Direct: it also waits until the verdict
                // register is free, so that Direct never waits for `vd_ready` (no other verdict
                // can come while the queue is empty). While waiting, a done with events yields
                // the FSM to it (the job stays held and runs again from its first word):
                // RxPlace takes the next verdict only after its done was taken, so waiting here
                // for the queue or the verdict register with a done pending is a deadlock.
                if self.xdone_q.q.val()
                    || (self.e_push.q.val() && self.cq_full_q.q.val())
                    || (!self.e_push.q.val() && self.cq_busy2_q.q.val())
                    || (!self.e_push.q.val() && !self.e_block.q.val() && self.vd_v.q.val())
                {
                    self.state.d.next = RxState::Eval;
                    if self.dl_v.q.val() && (self.dl_ph.q.val() == 2) && !self.dl_triv_q.q.val() {
                        self.state.d.next = RxState::Idle;
                    }
                } else {
                    self.fail.next = self.e_fail.q.val();
                    self.f_code.next = self.e_code.q.val();
                    self.go_vd.next = self.e_go_vd.q.val();
                    self.dying_set.next = self.e_dying.q.val();
                    self.cq_push.next = self.e_push.q.val();
                    self.cq_ctx_n.next = self.e_ctx.q.val();
                    self.orq_dec.next = self.e_orq.q.val();
                    self.msn1_inc.next = self.e_rreq.q.val();
                    self.irq_inc.next = self.e_rreq.q.val();
                    if self.e_block.q.val() {
                        self.blocked.d.next = true;
                        self.state.d.next = RxState::Idle;
                    }
                    if self.e_send.q.val() {
                        self.rq_v.d.next = true;
                        self.rq_qp_q.d.next = self.j_conn.q.val();
                        self.rq_pop_q.d.next = false;
                        self.state.d.next = RxState::RqReq;
                    }
                    if self.e_push.q.val() {
                        self.issue.next = true;
                        self.held.d.next = false;
                        self.state.d.next = RxState::Idle;
                    }
                }
            }
            RxState::RqReq => {
                // The Invalidate STag (octets 2-5) for SendRows / ChkWait, on `sh` again (no
                // copy of it is kept: `chk_stag_q` takes the lkey in RqWait): the header RAM
                // addresses word 1 from the next cycle on (`ra` is 0 since the read ended, so
                // word 0 is on `hdr_a_data` in Eval2, where `prev_lo` takes its low half), so
                // `sh` is octets 2-5 in SendRows and ChkWait (RqWait lasts at least a cycle).
                self.ra.d.next = 1.into();
                // The answer may come in the cycle after the request is taken.
                if self.rq_req_ready.val() {
                    self.state.d.next = RxState::RqWait;
                }
            }
            RxState::RqWait => {
                // The WQE index (only a Send's record uses it: Recv CQE, or its error CQE) goes
                // into the context RAM (field 3, see "State") in every RqWait cycle, the last
                // one with the answer (timing: the write enable is the state alone; no done
                // reads the entry while the FSM is here).
                self.qc_idx_we.next = true;
                // The answer's fields load in every RqWait cycle, the last one with the answer
                // (timing: the load enables are the state alone, not `rq_rsp_valid`; nothing
                // reads these registers while the FSM waits here).
                self.w_present.d.next = self.rq_rsp_present.val();
                // Row 16, compared here and acted on in SendRows: `s_sum > len` is
                // `s_sum - len - 1 >= 0` (a bare carry chain, the length comes inverted).
                self.w_too_long.d.next = (self.len_sum.val() & self.c_len_sign.val()) == 0;
                // WQE TO + MO, bits 31..0 now (their carry into `w_carry`), the carry into
                // bit 32 and up in SendRows. The MO is `chk_to_q`'s (loaded with the header's
                // at word 4, equal to the expected one since row 14 passed), so `chk_to_q`
                // loads only with the answer (every earlier RqWait cycle sees the MO there).
                self.chk_stag_q.d.next = self.rq_rsp_lkey.val();
                self.w_carry.d.next = self.to_sum.val().get_bit(32);
                if self.rq_rsp_valid.val() {
                    self.chk_to_q.d.next =
                        (bit_cast::<33, 1>(self.rq_rsp_to.val().get_bits::<1>(32)) << 32)
                            | bit_cast::<33, 32>(self.to_sum.val().get_bits::<32>(0));
                }
                self.to_hz.d.next = self.rq_rsp_to.val().get_bits::<31>(33) != 0;
                self.to_ho.d.next = self.rq_rsp_to.val().get_bits::<31>(33).all();
                self.to_hm1.d.next = self.rq_rsp_to.val().get_bits::<31>(33) == 0x7FFF_FFFE;
                if self.rq_rsp_valid.val() {
                    self.state.d.next = RxState::SendRows;
                }
            }
            RxState::SendRows => {
                self.o_inv.d.next = (self.h_opc.q.val() == self.op_send_inv.val())
                    || (self.h_opc.q.val() == self.op_send_se_inv.val());
                self.o_sol.d.next = (self.h_opc.q.val() == self.op_send_se.val())
                    || (self.h_opc.q.val() == self.op_send_se_inv.val());
                // The carry of TO + MO into bit 32, and on into bits 63..33 (as flags: all
                // ones become 0, all ones but bit 33 become all ones) when bit 32 was set.
                if self.w_carry.q.val() {
                    self.chk_to_q.d.next =
                        (bit_cast::<33, 1>((!self.chk_to_q.q.val().get_bit(32)).into()) << 32)
                            | bit_cast::<33, 32>(self.chk_to_q.q.val().get_bits::<32>(0));
                    if self.chk_to_q.q.val().get_bit(32) {
                        self.to_hz.d.next = !self.to_ho.q.val();
                        self.to_ho.d.next = self.to_hm1.q.val();
                    }
                }
                // The request of row 17 (with payload: the lkey from RqWait) or of row 21
                // (without: the invalidate), chosen by `f_zpay` alone in every SendRows cycle:
                // it goes out only with `issue`, so the load enables are the state and one
                // flag, not the rows' outcome (timing).
                if self.f_zpay.q.val() {
                    self.chk_acc_q.d.next = 0.into();
                    self.chk_inv_q.d.next = true;
                    // The Invalidate STag, octets 2-5, on `sh` again (see RqReq).
                    self.chk_stag_q.d.next = self.sh.val();
                    self.ctx.d.next = ChkCtx::SendInv;
                } else {
                    self.chk_acc_q.d.next = self.acc_lw.val();
                    self.chk_inv_q.d.next = false;
                    self.ctx.d.next = ChkCtx::SendPay;
                }
                if !self.w_present.q.val() {
                    // Row 15.
                    self.fail.next = true;
                    self.f_code.next = self.ec_no_buf.val();
                } else if self.w_too_long.q.val() {
                    // Row 16.
                    self.fail.next = true;
                    self.f_code.next = self.ec_too_long.val();
                } else if !self.f_zpay.q.val() {
                    // Row 17.
                    self.issue.next = true;
                } else if self.h_l.q.val()
                    && ((self.h_opc.q.val() == self.op_send_inv.val())
                        || (self.h_opc.q.val() == self.op_send_se_inv.val()))
                {
                    // Row 21.
                    self.issue.next = true;
                } else {
                    self.state.d.next = RxState::SendOk;
                }
            }
            RxState::ChkWait => {
                // A Send's lkey check (row 17) or invalidate (row 21); the queue is empty, so the
                // next response (in request order) is this request's.
                // Timing: the loads below have the state (and `ctx`) as enables, not the
                // response. The invalidate's request (row 21 after row 17) loads in every
                // ChkWait cycle (the lkey request left in the first one: `chk_valid` is
                // `chk_v`, and the StagCheck registers it at that edge; while the invalidate
                // waits the values are its own); it goes out only with `issue`.
                // The lkey check's host address is on `rsp_host_addr` from its response cycle
                // (StagCheck holds it to the next response; `chk_hold` keeps the send
                // engine's checks out): into the verdict register in every cycle while the
                // lkey check waits (`ctx` SendPay), the last load in its response's cycle
                // (then `ctx` is SendInv or the state SendOk). The verdict register is empty
                // from Eval2 (which waits for it) to Direct, and the queue is too.
                self.chk_acc_q.d.next = 0.into();
                self.chk_inv_q.d.next = true;
                self.chk_stag_q.d.next = self.sh.val();
                if self.ctx.q.val() == ChkCtx::SendPay {
                    self.vd_addr_q.d.next = self.rsp_host_addr.val();
                    self.vd_a10_q.d.next = self.cq_a10.val();
                    self.vd_a20_q.d.next = self.cq_a20.val();
                }
                if self.rsp_valid.val() {
                    if self.rsp_status.val() == self.st_ok.val() {
                        match self.ctx.q.val() {
                            ChkCtx::SendPay => {
                                if self.h_l.q.val() && self.o_inv.q.val() {
                                    self.issue.next = true;
                                    self.ctx.d.next = ChkCtx::SendInv;
                                } else {
                                    self.state.d.next = RxState::SendOk;
                                }
                            }
                            ChkCtx::SendInv => {
                                self.state.d.next = RxState::SendOk;
                            }
                        }
                    } else {
                        self.fail.next = true;
                        match self.ctx.q.val() {
                            ChkCtx::SendPay => {
                                self.f_code.next = self.ec_send_prot.val();
                            }
                            ChkCtx::SendInv => {
                                self.f_code.next = self.ec_inv_prot.val();
                                if self.rsp_status.val() == self.st_invalid.val() {
                                    self.f_code.next = self.ec_inv_op.val();
                                }
                            }
                        }
                    }
                }
            }
            RxState::SendOk => {
                // Rows 13-17 (and 21) passed: advance MO and MSN, record the completion.
                // (The lkey check's host address was loaded in ChkWait.)
                self.mo_set.next = true;
                self.go_vd.next = true;
                self.go_place.next = !self.f_zpay.q.val();
                if self.h_l.q.val() {
                    self.msn0_inc.next = true;
                    self.popp_set.next = true;
                    self.o_kind.d.next = self.k_recv.val();
                    self.o_val.d.next = bit_cast::<32, LOCAL_LEN_BITS>(
                        self.s_sum.q.val().get_bits::<LOCAL_LEN_BITS>(0),
                    );
                    // The WQE is popped now, at the check (the done only writes the CQE), so
                    // that the RQ's prefetch of the next head WQE runs while this segment is
                    // placed. `rq_v` is free: this Send's read was taken in RqReq, a done's
                    // requests leave before Emit ends, and Direct waits for this pop.
                    self.rq_v.d.next = true;
                    self.rq_qp_q.d.next = self.j_conn.q.val();
                    self.rq_pop_q.d.next = true;
                }
            }
            RxState::Direct => {
                if (!self.vd_v.q.val() || self.vd_ready.val())
                    && (self.cq_count.q.val() == 0)
                    && !self.pf_v.q.val()
                    && !self.rq_v.q.val()
                {
                    self.vd_v.d.next = true;
                    self.vd_conn_q.d.next = self.j_conn.q.val();
                    // A placed Send's address was loaded in ChkWait or SendOk; without
                    // placement `vd_addr` is whatever it holds (it means nothing then).
                    self.vd_place_q.d.next = self.o_place.q.val();
                    self.rec_we.next = true;
                    self.held.d.next = false;
                    self.state.d.next = RxState::Idle;
                }
            }
            RxState::DoneGet => {
                self.dl_v.d.next = false;
                self.d_kind.d.next = self.dl_kind_q.q.val();
                self.d_free.d.next = true;
                self.state.d.next = RxState::Emit;
                // Shared fields of the events.
                self.cqe_qp_q.d.next = self.d_conn.q.val();
                // `o_addr` is `cqe_byte_len` (a Recv's) and `irq_src_addr` (a Read Request's),
                // else 0; `chk_stag_q` is `cqe_inv_stag`, loaded by the header read of a Recv with
                // Invalidate, else 0. Nothing else uses either while the FSM emits.
                self.chk_stag_q.d.next = 0.into();
                self.o_addr.d.next = 0.into();
                if (self.dl_kind_q.q.val() == self.k_recv.val())
                    || (self.dl_kind_q.q.val() == self.k_irq.val())
                {
                    self.o_addr.d.next = self.rec_rd.val().get_bits::<32>(5);
                }
                // `cqe_index` is the context RAM's read port (see "State"): the QP's WQE index
                // (field 3, low half, addressed in Idle), or 0 for an RdmaRead CQE (field 3,
                // high half, never written), addressed from here until the CQE is taken.
                self.qctx.read_addr.next = self.qc_d_ix.val();
                if (self.dl_kind_q.q.val() == self.k_read.val())
                    || ((self.dl_kind_q.q.val() == self.k_err.val())
                        && (self.dl_cqesel_q.q.val() == 2))
                {
                    self.qctx.read_addr.next = self.qc_d_ix.val() | 1;
                }
                self.cqe_with_inv_q.d.next = false;
                self.cqe_sol_q.d.next = false;
                self.cqe_status_q.d.next = self.wc_success.val();
                self.cqe_opcode_q.d.next = self.wc_recv.val();
                self.aev_qp_q.d.next = self.d_conn.q.val();
                self.ev_triple_q.d.next = 0.into();
                if self.dl_recv_q.q.val() {
                    self.popp_clr.next = true;
                }
                if !self.d_good.q.val() || (self.dl_kind_q.q.val() == self.k_none.val()) {
                    // No effect: free the slot only.
                } else if self.dl_kind_q.q.val() == self.k_recv.val() {
                    // The WQE was popped at the check (SendOk): the CQE only.
                    self.cqe_with_inv_q.d.next = self.dl_inv_q.q.val();
                    self.cqe_sol_q.d.next = self.rec_rd.val().get_bit(4);
                    if self.dl_inv_q.q.val() {
                        // The Invalidate STag from the slot's octets 2-5.
                        self.rd_done_mode.d.next = true;
                        self.ra.d.next = 0.into();
                        self.rvld.d.next = false;
                        self.rlast.d.next = 1.into();
                        self.state.d.next = RxState::Read;
                    } else {
                        self.cqe_v.d.next = true;
                    }
                } else if self.dl_kind_q.q.val() == self.k_read.val() {
                    self.cqe_v.d.next = true;
                    self.cqe_opcode_q.d.next = self.wc_rdma_read.val();
                } else if self.dl_kind_q.q.val() == self.k_irq.val() {
                    // The request's first word (the source address, `o_addr` now) goes out
                    // next cycle, then the Read Request header again: words 4-8 (Idle
                    // waited for `irq_ready`).
                    self.irq_v.d.next = true;
                    self.rd_done_mode.d.next = true;
                    self.ra.d.next = 4.into();
                    self.rvld.d.next = false;
                    self.rlast.d.next = 8.into();
                    self.state.d.next = RxState::Read;
                } else if (self.dl_kind_q.q.val() == self.k_trcv.val())
                    || (self.dl_kind_q.q.val() == self.k_tbad.val())
                {
                    self.err_set.next = true;
                    self.aev_v.d.next = true;
                    if self.dl_kind_q.q.val() == self.k_trcv.val() {
                        self.aev_kind_q.d.next = self.ev_term_rcvd.val();
                        // Octet 18: Layer << 4 | EType; octet 19: Code.
                        self.ev_triple_q.d.next = self.rec_rd.val().get_bits::<16>(5);
                    } else {
                        self.aev_kind_q.d.next = self.ev_term_bad.val();
                    }
                } else {
                    // The error of a failed row: Terminate, TerminateSent, maybe the CQE.
                    self.err_set.next = true;
                    self.d_free.d.next = false;
                    for i in 0..CONNECTIONS {
                        if self.d_conn.q.val().index() == i {
                            self.q_hold[i].d.next = true;
                            self.q_hold_slot[i].d.next = self.d_slot.q.val();
                        }
                    }
                    self.term_v.d.next = true;
                    self.term_conn_q.d.next = self.d_conn.q.val();
                    self.term_slot_q.d.next = self.d_slot.q.val();
                    // The job's length, read from `qctx` in Idle.
                    self.term_seglen_q.d.next = self.qctx.read_data.val();
                    self.term_mdr_q.d.next = self.rec_rd.val().get_bits::<3>(37);
                    self.aev_v.d.next = true;
                    self.aev_kind_q.d.next = self.ev_term_sent.val();
                    // One triple register for `term_*` and `aev_*` (both carry it here).
                    self.ev_triple_q.d.next = self.rec_rd.val().get_bits::<16>(5);
                    if self.dl_cqesel_q.q.val() != 0 {
                        self.cqe_v.d.next = true;
                    }
                    if self.dl_cqesel_q.q.val() == 1 {
                        self.rq_v.d.next = true;
                        self.rq_qp_q.d.next = self.d_conn.q.val();
                        self.rq_pop_q.d.next = true;
                    }
                    if self.dl_cqesel_q.q.val() == 2 {
                        self.cqe_opcode_q.d.next = self.wc_rdma_read.val();
                    }
                    if self.dl_stsel_q.q.val() == 1 {
                        self.cqe_status_q.d.next = self.wc_loc_len.val();
                    } else if self.dl_stsel_q.q.val() == 2 {
                        self.cqe_status_q.d.next = self.wc_loc_prot.val();
                    } else {
                        self.cqe_status_q.d.next = self.wc_general.val();
                    }
                }
            }
            RxState::Emit => {
                // The CQE's index on the context RAM's read port (see DoneGet).
                self.qctx.read_addr.next = self.qc_d_ix.val();
                if self.cqe_opcode_q.q.val() == self.wc_rdma_read.val() {
                    self.qctx.read_addr.next = self.qc_d_ix.val() | 1;
                }
                if !self.rq_v.q.val()
                    && !self.irq_v.q.val()
                    && !self.cqe_v.q.val()
                    && !self.aev_v.q.val()
                    && !self.term_v.q.val()
                    && !self.lane_free.val()
                {
                    self.rd_done_mode.d.next = false;
                    self.state.d.next = RxState::Idle;
                    if self.d_free.q.val() {
                        self.free_v.d.next = true;
                        self.free_conn_q.d.next = self.d_conn.q.val();
                        self.free_slot_q.d.next = self.d_slot.q.val();
                    }
                }
            }
        }

        // ---- Common actions.
        if self.start_read.val() {
            self.rvld.d.next = false;
            self.state.d.next = RxState::Read;
            if self.direct_read.val() {
                self.rvld.d.next = true;
                self.rk.d.next = 1.into();
                self.hdr_a_addr.next = (bit_cast::<HDR_ADDR_BITS, CONN_BITS>(self.job_conn.val())
                    << 6)
                    | (bit_cast::<HDR_ADDR_BITS, 1>(self.job_slot.val().into()) << 5);
            }
        }
        // A failed row: the QP dies now, the error is committed at the done. The error record
        // is written into `o_*` one cycle later, from registers (timing: `fail` comes from
        // three states' conditions; `Direct` waits for `pf_v`).
        self.pf_v.d.next = self.fail.val();
        self.pf_code.d.next = self.f_code.val();
        if self.fail.val() {
            self.dying_set.next = true;
            self.go_vd.next = true;
            self.go_place.next = false;
        }
        // The front failure's code (`pf_code`, one of `ec_*`) decoded, a 4-input table: the
        // Terminate triple (Layer << 12 | EType << 8 | Code, RFC 5040 §7 / `rfc5040-rdmap.md`
        // §5), M / D / R (6: the DDP header is copied), the CQE (1: error CQE, WQE popped) and
        // its status (1 LocLenErr, 2 LocProtErr, 3 GeneralErr).
        self.pc_triple.next = self.t_trunc.val();
        self.pc_mdr.next = 6.into();
        self.pc_cqesel.next = 0.into();
        self.pc_stsel.next = 0.into();
        if self.pf_code.q.val() == self.ec_trunc.val() {
            self.pc_mdr.next = 0.into();
        } else if self.pf_code.q.val() == self.ec_dv_tg.val() {
            self.pc_triple.next = self.t_dv_tagged.val();
            self.pc_mdr.next = 0.into();
        } else if self.pf_code.q.val() == self.ec_dv_ut.val() {
            self.pc_triple.next = self.t_dv_untagged.val();
            self.pc_mdr.next = 0.into();
        } else if self.pf_code.q.val() == self.ec_qn.val() {
            self.pc_triple.next = self.t_qn.val();
        } else if self.pf_code.q.val() == self.ec_rv.val() {
            self.pc_triple.next = self.t_rv.val();
            self.pc_mdr.next = 0.into();
        } else if self.pf_code.q.val() == self.ec_opcode.val() {
            self.pc_triple.next = self.t_opcode.val();
            self.pc_mdr.next = 0.into();
        } else if self.pf_code.q.val() == self.ec_mo.val() {
            self.pc_triple.next = self.t_mo.val();
        } else if self.pf_code.q.val() == self.ec_rrlen.val() {
            self.pc_triple.next = self.t_trunc.val();
        } else if self.pf_code.q.val() == self.ec_msn.val() {
            self.pc_triple.next = self.t_msn.val();
        } else if self.pf_code.q.val() == self.ec_ird.val() {
            self.pc_triple.next = self.t_ird.val();
        } else if self.pf_code.q.val() == self.ec_no_buf.val() {
            self.pc_triple.next = self.t_no_buf.val();
        } else if self.pf_code.q.val() == self.ec_too_long.val() {
            self.pc_triple.next = self.t_too_long.val();
            self.pc_cqesel.next = 1.into();
            self.pc_stsel.next = 1.into();
        } else if self.pf_code.q.val() == self.ec_send_prot.val() {
            self.pc_triple.next = self.t_send_prot.val();
            self.pc_mdr.next = 0.into();
            self.pc_cqesel.next = 1.into();
            self.pc_stsel.next = 2.into();
        } else if self.pf_code.q.val() == self.ec_inv_op.val() {
            self.pc_triple.next = self.t_inv_op.val();
            self.pc_cqesel.next = 1.into();
            self.pc_stsel.next = 3.into();
        } else {
            // `ec_inv_prot`.
            self.pc_triple.next = self.t_inv_prot.val();
            self.pc_cqesel.next = 1.into();
            self.pc_stsel.next = 3.into();
        }
        if self.pf_v.q.val() {
            self.o_kind.d.next = self.k_err.val();
            // (The segment length is in `qctx`, see "State".)
            self.o_val.d.next = bit_cast::<32, 16>(self.pc_triple.val());
            self.o_mdr.d.next = self.pc_mdr.val();
            self.o_cqesel.d.next = self.pc_cqesel.val();
            self.o_stsel.d.next = self.pc_stsel.val();
        }
        if self.issue.val() {
            self.chk_v.d.next = true;
            self.chk_tag_q.d.next = self.chk_tag_q.q.val() + 1;
            self.chk_pd_q.d.next = self.jq_pd.val();
            self.chk_qp_q.d.next = self.j_conn.q.val();
            if self.cq_push.val() {
                self.chk_inv_q.d.next = false;
            } else {
                self.state.d.next = RxState::ChkWait;
            }
        }
        if self.go_vd.val() {
            // The verdict leaves from `Direct` (a placed Send's address is in `vd_addr_q`).
            self.o_place.d.next = self.go_place.val();
            self.state.d.next = RxState::Direct;
        }

        // ---- The check queue: a Write, Read Response or Read Request whose StagCheck was
        // issued waits here for its response; verdicts leave in job order (the queue is
        // empty whenever the front FSM sends one itself).
        self.h_busy.next = self.cq_busy[0].q.val();
        self.h_got.next = self.cq_got[0].q.val();
        self.h_conn.next = self.cq_conn[0].q.val();
        self.h_slot.next = self.cq_slot[0].q.val();
        self.h_ctx.next = self.cq_ctx[0].q.val();
        self.h_lf.next = self.cq_l[0].q.val();
        self.h_st.next = self.cq_st[0].q.val();
        // The head's address where StagCheck holds it (see `chk_hold`).
        self.h_addr.next = self.rsp_host_addr.val();
        self.h_addr32.next = bit_cast::<32, DMA_ADDR_BITS>(self.h_addr.val());
        for i in 1..CQ_DEPTH {
            if self.cq_head.q.val().index() == i {
                self.h_busy.next = self.cq_busy[i].q.val();
                self.h_got.next = self.cq_got[i].q.val();
                self.h_conn.next = self.cq_conn[i].q.val();
                self.h_slot.next = self.cq_slot[i].q.val();
                self.h_ctx.next = self.cq_ctx[i].q.val();
                self.h_lf.next = self.cq_l[i].q.val();
                self.h_st.next = self.cq_st[i].q.val();
            }
        }
        // A QP that failed (or went to error) after this job's rows were run drops it.
        self.h_dead.next =
            !self.q_en[0].q.val() || self.q_err[0].q.val() || self.q_dying[0].q.val();
        for i in 1..CONNECTIONS {
            if self.h_conn.val().index() == i {
                self.h_dead.next =
                    !self.q_en[i].q.val() || self.q_err[i].q.val() || self.q_dying[i].q.val();
            }
        }
        // Kind of the head's pending record: RdmaRead for a Read Response L = 1, the push
        // on `irq_*` for a Read Request.
        self.h_kind.next = self.k_none.val();
        if self.h_ctx.val() == 2 {
            self.h_kind.next = self.k_irq.val();
        } else if (self.h_ctx.val() == 1) && self.h_lf.val() {
            self.h_kind.next = self.k_read.val();
        }
        for i in 0..CQ_DEPTH {
            if (self.cq_gp.q.val().index() == i)
                && self.cq_busy[i].q.val()
                && !self.cq_got[i].q.val()
                && self.rsp_valid.val()
            {
                self.cq_got[i].d.next = true;
                self.cq_st[i].d.next = self.rsp_status.val();
                self.cq_gp.d.next = self.cq_gp.q.val() + 1;
            }
        }
        // No copy of the response's host address: StagCheck holds it until its next response
        // (`rsp_host_addr`), the entry that reads it pops before the next response of
        // RxControl's comes (in the cycle after its own), a Send's response (`ChkWait`) comes
        // only with the queue empty, and `chk_hold` keeps the send engine's checks out.
        self.chk_hold.next = self.cq_busy_q.q.val() || (self.state.q.val() == RxState::ChkWait);
        self.w_kind_n.next = self.o_kind.q.val();
        self.w_val_n.next = self.o_val.q.val();
        self.w_mdr_n.next = self.o_mdr.q.val();
        self.w_cqesel_n.next = self.o_cqesel.q.val();
        self.w_stsel_n.next = self.o_stsel.q.val();
        self.w_triple_n.next = self.t_tg_bounds.val();
        self.bdying_set.next = false;
        self.cq_pop.next =
            self.h_busy.val() && self.h_got.val() && (!self.vd_v.q.val() || self.vd_ready.val());
        if self.cq_pop.val() {
            self.vd_v.d.next = true;
            self.vd_conn_q.d.next = self.h_conn.val();
            self.vd_place_q.d.next = false;
            // The address whatever the verdict (`vd_addr` means nothing without `vd_place`):
            // timing, the head's QP state and status stay off its 24 enables.
            self.vd_addr_q.d.next = self.h_addr.val();
            self.vd_a10_q.d.next = self.cq_a10.val();
            self.vd_a20_q.d.next = self.cq_a20.val();
            self.rec_we.next = true;
            self.rec_wa.next = (bit_cast::<3, CONN_BITS>(self.h_conn.val()) << 1)
                | bit_cast::<3, 1>(self.h_slot.val().into());
            self.w_kind_n.next = self.h_kind.val();
            self.w_val_n.next = self.h_addr32.val();
            self.w_mdr_n.next = 6.into();
            self.w_cqesel_n.next = 0.into();
            self.w_stsel_n.next = 0.into();
            // Rows 10, 12, 20 failed: the QP dies now, the error is committed at the done.
            // (Also when the QP was dead already, which changes nothing: `dying` only drops
            // the QP's later jobs, as `!en || err` does. Timing: `h_dead` is not in the path
            // to the per-QP `dying` enables.)
            self.bdying_set.next = self.h_st.val() != self.st_ok.val();
            if self.h_dead.val() {
                self.w_kind_n.next = self.k_none.val();
            } else if self.h_st.val() == self.st_ok.val() {
                if self.h_ctx.val() != 2 {
                    self.vd_place_q.d.next = true;
                }
            } else {
                self.w_kind_n.next = self.k_err.val();
                if self.h_ctx.val() == 2 {
                    self.w_mdr_n.next = 7.into();
                    self.w_triple_n.next = self.t_rr_bounds.val();
                    if self.h_st.val() == self.st_invalid.val() {
                        self.w_triple_n.next = self.t_rr_invalid.val();
                    } else if self.h_st.val() == self.st_not_assoc.val() {
                        self.w_triple_n.next = self.t_rr_not_assoc.val();
                    } else if self.h_st.val() == self.st_access.val() {
                        self.w_triple_n.next = self.t_access.val();
                    } else if self.h_st.val() == self.st_wrap.val() {
                        self.w_triple_n.next = self.t_rr_wrap.val();
                    }
                } else {
                    if self.h_ctx.val() == 1 {
                        self.w_cqesel_n.next = 2.into();
                        self.w_stsel_n.next = 2.into();
                    }
                    if self.h_st.val() == self.st_invalid.val() {
                        self.w_triple_n.next = self.t_tg_invalid.val();
                    } else if self.h_st.val() == self.st_not_assoc.val() {
                        self.w_triple_n.next = self.t_tg_not_assoc.val();
                    } else if self.h_st.val() == self.st_access.val() {
                        self.w_triple_n.next = self.t_access.val();
                    } else if self.h_st.val() == self.st_wrap.val() {
                        self.w_triple_n.next = self.t_tg_wrap.val();
                    }
                }
                // The error record's value: the triple (the segment length, `term_seglen`, is in
                // `qctx`, written in Eval; the high half is don't-care).
                self.w_val_n.next = (bit_cast::<32, 16>(self.h_addr32.val().get_bits::<16>(16))
                    << 16)
                    | bit_cast::<32, 16>(self.w_triple_n.val());
            }
            for i in 0..CQ_DEPTH {
                if self.cq_head.q.val().index() == i {
                    self.cq_busy[i].d.next = false;
                }
            }
            self.cq_head.d.next = self.cq_head.q.val() + 1;
        }
        if self.cq_push.val() {
            for i in 0..CQ_DEPTH {
                if self.cq_tail.q.val().index() == i {
                    self.cq_busy[i].d.next = true;
                    self.cq_got[i].d.next = false;
                    self.cq_conn[i].d.next = self.j_conn.q.val();
                    self.cq_slot[i].d.next = self.j_slot.q.val();
                    self.cq_ctx[i].d.next = self.cq_ctx_n.val();
                    self.cq_l[i].d.next = self.h_l.q.val();
                }
            }
            self.cq_tail.d.next = self.cq_tail.q.val() + 1;
        }
        if self.cq_push.val() && !self.cq_pop.val() {
            self.cq_count.d.next = self.cq_count.q.val() + 1;
        } else if self.cq_pop.val() && !self.cq_push.val() {
            self.cq_count.d.next = self.cq_count.q.val() - 1;
        }
        // The pending record: from the front FSM (`Direct`) or the check queue.
        self.rec.write_enable.next = self.rec_we.val();
        self.rec_wr.next = bit_cast::<REC_BITS, 3>(self.w_kind_n.val())
            | (bit_cast::<REC_BITS, 1>(self.o_inv.q.val().into()) << 3)
            | (bit_cast::<REC_BITS, 1>(self.o_sol.q.val().into()) << 4)
            | (bit_cast::<REC_BITS, 32>(self.w_val_n.val()) << 5)
            | (bit_cast::<REC_BITS, 3>(self.w_mdr_n.val()) << 37)
            | (bit_cast::<REC_BITS, 2>(self.w_cqesel_n.val()) << 40)
            | (bit_cast::<REC_BITS, 2>(self.w_stsel_n.val()) << 42);
        if self.cq_pop.val() {
            // Only a Send sets `with_inv` / `solicited`; a queued job has neither.
            self.rec_wr.next = bit_cast::<REC_BITS, 3>(self.w_kind_n.val())
                | (bit_cast::<REC_BITS, 32>(self.w_val_n.val()) << 5)
                | (bit_cast::<REC_BITS, 3>(self.w_mdr_n.val()) << 37)
                | (bit_cast::<REC_BITS, 2>(self.w_cqesel_n.val()) << 40)
                | (bit_cast::<REC_BITS, 2>(self.w_stsel_n.val()) << 42);
        }
        self.rec.write_data.next = self.rec_wr.val();
        // The read port: the done's record in `DoneRd`, else never the entry being written.
        self.rec.write_addr.next = self.rec_wa.val();
        self.rec.read_addr.next = self.rec_wa.val() ^ 1;
        if self.dl_v.q.val() {
            // Never the entry being written: its done comes after its verdict, and the slot
            // is reused only after this done.
            self.rec.read_addr.next = (bit_cast::<3, CONN_BITS>(self.dl_conn.q.val()) << 1)
                | bit_cast::<3, 1>(self.dl_slot.q.val().into());
        }

        // ---- Per-QP updates: the FSM's (applied one cycle after the decision, from
        // registered strobes: the job's QP, `h_l` and `s_sum` are still those of the job
        // then, and no job is checked in that cycle), the strobes', then a configuration write.
        self.ap_msn0.d.next = self.msn0_inc.val();
        self.ap_dying.d.next = self.dying_set.val();
        self.ap_dying_qp.d.next = self.dying_qp.val();
        self.ap_msn1.d.next = self.msn1_inc.val();
        self.ap_mo.d.next = self.mo_set.val();
        self.ap_popp.d.next = self.popp_set.val();
        self.ap_irq.d.next = self.irq_inc.val();
        self.ap_orq.d.next = self.orq_dec.val();
        self.irq_full_q.d.next = self.jq_irq.val() == bit_cast::<5, 4>(self.jq_ird.val());
        self.orq_zero_q.d.next = self.jq_orq.val() == 0;
        self.xdone_q.d.next = self.irq_done_q.q.val() || self.orq_push_q.q.val();
        self.orq_push_q.d.next = self.orq_push.val();
        self.orq_push_qp_q.d.next = self.orq_push_qp.val();
        self.irq_done_q.d.next = self.irq_done.val();
        self.irq_done_qp_q.d.next = self.irq_done_qp.val();
        // Row 0's flag a cycle late (the job's QP is chosen in Idle, at least three cycles
        // before its Eval). A QP changes state in a cycle before an Eval only by a queue pop
        // (`bdying_set`) or a configuration write: a job that is pushed is checked again at
        // the queue's head (`h_dead`); one that is not waits in Eval2 for `cq_busy2_q`, i.e.
        // until its Eval ran two cycles after the last pop.
        self.jq_dead_q.d.next = !self.jq_en.val() || self.jq_err.val() || self.jq_dying.val();
        // The queue as it was in the previous cycle: only `Eval` pushes, and it does not push
        // in two cycles in a row, so these are exact or err on the side of waiting.
        self.cq_busy_q.d.next = self.cq_count.q.val() != 0;
        self.cq_busy2_q.d.next = (self.cq_count.q.val() != 0) || self.cq_busy_q.q.val();
        // A push also waits while the queue is not empty and the verdict register is held
        // (one host address for the queue, StagCheck's, see "State"; registered for timing).
        self.cq_full_q.d.next = (self.cq_count.q.val() == self.cq_full.val())
            || ((self.cq_count.q.val() != 0) && self.vd_v.q.val() && !self.vd_ready.val());
        self.msn_next.next = self.h_b.q.val();
        // The context RAM's writes: the low half in the cycle of the update, the high half in
        // the next (no job reads the context before then: see "Timing"). (The writers are
        // exclusive; an AND-OR of the data on one-hot enables measured no smaller than this
        // priority multiplexer.)
        self.qctx.write_enable.next = self.w2_v.q.val();
        self.qctx.write_addr.next = self.w2_addr.q.val();
        self.qctx.write_data.next = self.w2_data.q.val();
        self.w2_v.d.next = false;
        self.qc_wval.next =
            bit_cast::<32, LOCAL_LEN_BITS>(self.s_sum.q.val().get_bits::<LOCAL_LEN_BITS>(0));
        self.qc_wf.next = 4.into();
        if self.ap_msn0.q.val() {
            self.qc_wval.next = self.msn_next.val();
            self.qc_wf.next = 0.into();
        }
        if self.ap_msn1.q.val() {
            self.qc_wval.next = self.msn_next.val();
            self.qc_wf.next = 2.into();
        }
        if self.ap_msn0.q.val() || self.ap_msn1.q.val() || (self.ap_mo.q.val() && !self.h_l.q.val())
        {
            self.qctx.write_enable.next = true;
            self.qctx.write_addr.next = self.qc_conn.val() | self.qc_wf.val();
            self.qctx.write_data.next = self.qc_wval.val().get_bits::<16>(0);
            self.w2_v.d.next = true;
            self.w2_addr.d.next = (self.qc_conn.val() | self.qc_wf.val()) + 1;
            self.w2_data.d.next = self.qc_wval.val().get_bits::<16>(16);
        }
        if self.state.q.val() == RxState::Eval {
            // The job's segment length, for an error's Terminate (see "State"): no update is
            // written in an Eval cycle.
            self.qctx.write_enable.next = true;
            self.qctx.write_addr.next =
                self.qc_conn.val() | 8 | bit_cast::<QCTX_ADDR_BITS, 1>(self.j_slot.q.val().into());
            self.qctx.write_data.next = self.j_len.q.val();
        }
        if self.qc_idx_we.val() {
            // A Send's WQE index (RqWait: no update is written then, see "State").
            self.qctx.write_enable.next = true;
            self.qctx.write_addr.next = self.qc_conn.val() | 6;
            self.qctx.write_data.next = self.rq_rsp_index.val();
        }
        // The decrements of the IRQ / ORQ counts, one bit per QP.
        self.irq_dn.next = 0.into();
        self.orq_dn.next = 0.into();
        self.irq_st.next = self.c_steps.val();
        self.orq_st.next = self.c_steps.val();
        for i in 0..CONNECTIONS {
            if self.irq_done_q.q.val() && (self.irq_done_qp_q.q.val().index() == i) {
                self.irq_dn.next = self.irq_dn.val().replace_bit(i, true);
                self.irq_st.next = self.irq_st.val().replace_bit(5 * i + 1, true);
                self.irq_st.next = self.irq_st.val().replace_bit(5 * i + 2, true);
                self.irq_st.next = self.irq_st.val().replace_bit(5 * i + 3, true);
                self.irq_st.next = self.irq_st.val().replace_bit(5 * i + 4, true);
            }
            if self.ap_orq.q.val() && (self.j_conn.q.val().index() == i) {
                self.orq_dn.next = self.orq_dn.val().replace_bit(i, true);
                self.orq_st.next = self.orq_st.val().replace_bit(5 * i + 1, true);
                self.orq_st.next = self.orq_st.val().replace_bit(5 * i + 2, true);
                self.orq_st.next = self.orq_st.val().replace_bit(5 * i + 3, true);
                self.orq_st.next = self.orq_st.val().replace_bit(5 * i + 4, true);
            }
        }
        for i in 0..CONNECTIONS {
            if self.j_conn.q.val().index() == i {
                // The header's MSN (`h_b`) equals the expected one (rows 13 / 18 passed):
                // one shared incrementer instead of one per QP and QN.
                if self.ap_msn0.q.val() {
                    self.q_fr_msn0[i].d.next = false;
                }
                if self.ap_msn1.q.val() {
                    self.q_fr_msn1[i].d.next = false;
                }
                if self.ap_mo.q.val() {
                    // MO back to 0 after L = 1: the reset value, no RAM write.
                    self.q_fr_mo[i].d.next = self.h_l.q.val();
                }
                if self.ap_popp.q.val() {
                    self.q_popp[i].d.next = true;
                }
            }
            if self.popp_clr.val() && (self.d_conn.q.val().index() == i) {
                self.q_popp[i].d.next = false;
            }
            if self.popp_clr_lane.val() && (self.dl_conn.q.val().index() == i) {
                self.q_popp[i].d.next = false;
            }
            if self.err_set.val() && (self.err_qp.val().index() == i) {
                self.q_err[i].d.next = true;
            }
            if self.ap_dying.q.val() && (self.ap_dying_qp.q.val().index() == i) {
                self.q_dying[i].d.next = true;
            }
            if self.bdying_set.val() && (self.h_conn.val().index() == i) {
                self.q_dying[i].d.next = true;
            }
            // Increment and decrement in the same cycle cancel. One adder per counter: the
            // step is +1, or 31 (-1) when decrementing (`irq_dn` / `orq_dn` bit i).
            if (self.ap_irq.q.val() && (self.j_conn.q.val().index() == i))
                != self.irq_dn.val().get_bit(i)
            {
                self.q_irq[i].d.next =
                    self.q_irq[i].q.val() + self.irq_st.val().get_bits::<5>(5 * i);
            }
            if (self.orq_push_q.q.val() && (self.orq_push_qp_q.q.val().index() == i))
                != self.orq_dn.val().get_bit(i)
            {
                self.q_orq[i].d.next =
                    self.q_orq[i].q.val() + self.orq_st.val().get_bits::<5>(5 * i);
            }
            if self.llp_err_valid.val() && (self.llp_err_conn.val().index() == i) {
                self.q_llp[i].d.next = true;
                self.q_llp_code[i].d.next = self.llp_err_code.val().get_bits::<LLP_CODE_BITS>(0);
            }
            if self.term_done.val()
                && (self.term_done_conn.val().index() == i)
                && self.q_hold[i].q.val()
            {
                self.q_hold[i].d.next = false;
                self.q_tfree[i].d.next = true;
            }
            if self.qp_cfg_write.val() && (self.qp_cfg_qp.val().index() == i) {
                self.q_en[i].d.next = self.qp_cfg_enable.val();
                self.q_pd[i].d.next = self.qp_cfg_pd.val();
                self.q_ird[i].d.next = self.qp_cfg_ird.val();
                self.q_err[i].d.next = false;
                self.q_dying[i].d.next = false;
                self.q_fr_msn0[i].d.next = true;
                self.q_fr_msn1[i].d.next = true;
                self.q_fr_mo[i].d.next = true;
                self.q_irq[i].d.next = 0.into();
                self.q_orq[i].d.next = 0.into();
                self.q_popp[i].d.next = false;
                self.q_llp[i].d.next = false;
            }
        }

        // ---- Outputs (all registers, but the two readies, which depend on the state only).
        // `state == Idle && !held`, one cycle ahead from the registers' next values.
        self.jr_n.d.next = (self.state.d.val() != RxState::Idle) || self.held.d.val();
        self.job_ready.next = !self.jr_n.q.val();
        self.done_ready.next = !self.dl_v.q.val();
        self.chk_valid.next = self.chk_v.q.val();
        self.chk_tag.next = self.chk_tag_q.q.val();
        // (An invalidate request names the Invalidate STag, octets 2-5 of the Send: loaded
        // from `sh`, the header read again, when it is issued.)
        self.chk_stag.next = self.chk_stag_q.q.val();
        // TO bits 63..33 from the flags: exact for the StagCheck (it looks only at whether
        // bits 63..32 are all ones, 0 or 1) and for `irq_src_to` (a Read Request reaches
        // `irq_*` only after its check passed, so bits 63..33 were 0).
        self.to_hi.next = 0.into();
        if self.to_ho.q.val() {
            self.to_hi.next = 0x7FFF_FFFF.into();
        } else if self.to_hz.q.val() {
            self.to_hi.next = 1.into();
        }
        self.chk_to.next = (bit_cast::<64, 31>(self.to_hi.val()) << 33)
            | bit_cast::<64, 33>(self.chk_to_q.q.val());
        self.chk_len.next = bit_cast::<32, LOCAL_LEN_BITS1>(self.chk_len_q.q.val());
        self.chk_pd.next = self.chk_pd_q.q.val();
        self.chk_qp.next = self.chk_qp_q.q.val();
        self.chk_access.next = self.chk_acc_q.q.val();
        self.chk_invalidate.next = self.chk_inv_q.q.val();
        self.vd_valid.next = self.vd_v.q.val();
        self.vd_conn.next = self.vd_conn_q.q.val();
        self.vd_place.next = self.vd_place_q.q.val();
        self.vd_addr.next = self.vd_addr_q.q.val();
        self.vd_a10.next = self.vd_a10_q.q.val();
        self.vd_a20.next = self.vd_a20_q.q.val();
        self.free_valid.next = self.free_v.q.val();
        self.free_conn.next = self.free_conn_q.q.val();
        self.free_slot.next = self.free_slot_q.q.val();
        self.rq_req_valid.next = self.rq_v.q.val();
        self.rq_req_qp.next = self.rq_qp_q.q.val();
        self.rq_req_pop.next = self.rq_pop_q.q.val();
        self.irq_valid.next = self.irq_v.q.val();
        self.irq_qp.next = self.d_conn.q.val();
        self.irq_word.next = self.o_addr.q.val();
        self.cqe_valid.next = self.cqe_v.q.val();
        self.cqe_qp.next = self.cqe_qp_q.q.val();
        self.cqe_opcode.next = self.cqe_opcode_q.q.val();
        self.cqe_status.next = self.cqe_status_q.q.val();
        self.cqe_byte_len.next = self.o_addr.q.val();
        self.cqe_index.next = self.qctx.read_data.val();
        // A Recv CQE without Invalidate has `cqe_inv_stag = 0` (see DoneGet).
        self.cqe_inv_stag.next = self.chk_stag_q.q.val();
        self.cqe_with_inv.next = self.cqe_with_inv_q.q.val();
        self.cqe_solicited.next = self.cqe_sol_q.q.val();
        self.aev_valid.next = self.aev_v.q.val();
        self.aev_qp.next = self.aev_qp_q.q.val();
        self.aev_kind.next = self.aev_kind_q.q.val();
        self.aev_layer.next = self.ev_triple_q.q.val().get_bits::<4>(12);
        self.aev_etype.next = self.ev_triple_q.q.val().get_bits::<4>(8);
        self.aev_code.next = self.ev_triple_q.q.val().get_bits::<8>(0);
        self.term_valid.next = self.term_v.q.val();
        self.term_conn.next = self.term_conn_q.q.val();
        self.term_slot.next = self.term_slot_q.q.val();
        self.term_layer.next = self.ev_triple_q.q.val().get_bits::<4>(12);
        self.term_etype.next = self.ev_triple_q.q.val().get_bits::<4>(8);
        self.term_code.next = self.ev_triple_q.q.val().get_bits::<8>(0);
        self.term_m.next = self.term_mdr_q.q.val().get_bit(2);
        self.term_d.next = self.term_mdr_q.q.val().get_bit(1);
        self.term_r.next = self.term_mdr_q.q.val().get_bit(0);
        self.term_seglen.next = self.term_seglen_q.q.val();

        // Idle: no job, done, check, latched LLP error, Terminate or slot free pending, and
        // every output register empty. From registers only.
        self.idle.next = (self.state.q.val() == RxState::Idle)
            && !self.held.q.val()
            && !self.dl_v.q.val()
            && (self.cq_count.q.val() == 0)
            && !self.chk_v.q.val()
            && !self.vd_v.q.val()
            && !self.free_v.q.val()
            && !self.rq_v.q.val()
            && !self.irq_v.q.val()
            && !self.cqe_v.q.val()
            && !self.aev_v.q.val()
            && !self.term_v.q.val();
        for i in 0..CONNECTIONS {
            if self.q_llp[i].q.val() || self.q_hold[i].q.val() || self.q_tfree[i].q.val() {
                self.idle.next = false;
            }
        }
    }
}

crate::sim_ports!(impl[] RxControl {
    inputs: qp_cfg_write, qp_cfg_qp, qp_cfg_enable, qp_cfg_pd, qp_cfg_ird, job_valid, job_conn,
        job_slot, job_len, hdr_a_data, rsp_valid, rsp_tag, rsp_status, rsp_host_addr, vd_ready,
        done_valid, done_conn, done_good, rq_req_ready, rq_rsp_valid, rq_rsp_present, rq_rsp_to,
        rq_rsp_len_n, rq_rsp_lkey, rq_rsp_index, orq_push, orq_push_qp, irq_done, irq_done_qp,
        irq_ready, cqe_ready, aev_ready, term_ready, term_done, term_done_conn, term_done_slot,
        llp_err_valid, llp_err_conn, llp_err_code;
    outputs: job_ready, hdr_a_addr, chk_valid, chk_tag, chk_stag, chk_to, chk_len, chk_pd,
        chk_qp, chk_access, chk_invalidate, chk_hold, vd_valid, vd_conn, vd_place, vd_addr, vd_a10, vd_a20,
        done_ready,
        free_valid, free_conn, free_slot, rq_req_valid, rq_req_qp, rq_req_pop, irq_valid, irq_qp,
        irq_word, cqe_valid,
        cqe_qp, cqe_opcode, cqe_status, cqe_byte_len, cqe_index, cqe_inv_stag, cqe_with_inv,
        cqe_solicited, aev_valid, aev_qp, aev_kind, aev_layer, aev_etype, aev_code, term_valid,
        term_conn, term_slot, term_layer, term_etype, term_code, term_m, term_d, term_r,
        term_seglen, idle;
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generates_verilog() {
        let v = crate::catalog::top_verilog(RxControl::default());
        assert!(v.contains("module top"));
    }
}
