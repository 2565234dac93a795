//! DdpTx (`docs/core.md` "The message job", "DdpTx"): the DDP / RDMAP segmenter of the
//! transmit side. One message job (`msg_*`) in, its DDP segments out as ULPDUs (`ulpdu_*`, one
//! packet per segment, MpaTx's contract), the payload read from host memory on `pay_rd_*`.
//!
//! # Segments (RFC 5041 §5.2/§5.3, RFC 5040 §4; `mpa-peer-connect.md` §6)
//!
//! - Payload per segment: `floor((MULPDU - H) / 4) * 4` octets at most (H = 14 tagged, 18
//!   untagged; MULPDU = the connection's `qpc_tx_mulpdu`, read as 64 when below 64). Every segment
//!   but the last carries exactly that many octets, so every segment but the last carries a
//!   multiple of 4 and its ULPDU length is 2 mod 4. A message of length 0 is one segment without
//!   payload; a Read Request (opcode 1) is one segment of 18 + 28 octets, no payload read.
//! - Header octets: control `T << 7 | L << 6 | 1`, RDMAP `0x40 | opcode`; tagged (0 Write, 2 Read
//!   Response): STag, TO = `msg_to` + offset of the segment's first payload octet; untagged:
//!   Invalidate STag (`msg_stag` for 4 and 6, else 0), QN (1 for the Read Request, else 0),
//!   MSN `msg_msn`, MO = offset. L = 1 only on the message's last segment. A Read Request's
//!   body: Data Sink STag / TO `msg_inv_stag` / `msg_src_to`, size `msg_len`, Data Source
//!   STag / TO `msg_stag` / `msg_to` (the remote buffer on `msg_stag` / `msg_to` for every
//!   opcode, so the SendEngine needs no opcode mux on them: `docs/core.md`).
//! - The ULPDU stream: byte 0 in the MSB lane, `ulpdu_conn` = `msg_conn`, constant over the
//!   packet, `ulpdu_len` = header + payload octets of the segment, valid while the packet's
//!   first beat is offered (MpaTx reads it there only; it already holds the next segment's
//!   length while a segment's last beats wait); only the last beat is partial. Payload octet 0
//!   of every segment is in lane 2 of beat 3 (tagged) or 4 (untagged).
//!
//! # The hand-over
//!
//! The block works on the message **while it is offered**: it reads `msg_*` directly (no copy
//! of the 290 bits of fields) and raises `msg_ready` in the cycle after the message's last beat
//! is accepted (a register, `done_q`), which is also the `msg_done` strobe. A source must therefore hold `msg_*` stable
//! while `msg_valid` (the ordinary valid / ready rule), except `msg_addr` / `msg_len`, read for
//! the last time in the cycle before the `msg_take` strobe (a register, `take_q`: `msg_len` of
//! a Read Request is read in place): the SendEngine uses those registers for the next WQE's
//! early check meanwhile. `msg_stag` / `msg_to` are read in three cycles only: `msg_to[31:0]`
//! in the cycle the message is taken up (`taking`, T: the first cycle it is shown, into
//! `to_lo`), `msg_stag` at T+1 (into `m_stag`), `msg_to[63:32]` at T+2 (into `to_hi`): the
//! ReadResponder drives the three from its queue RAM, one word a cycle.
//!
//! # Read-ahead (issue 5)
//!
//! Taken only while offered, each message paid one DMA latency (~50 cycles) before its first
//! payload beat: 5 % of a 4 KiB Write. The source therefore gives a hint (`nxt_valid`,
//! `nxt_addr`, `nxt_len`: "the next message will probably read this region, checked for local
//! read access"). When the current message's requests are all issued (`rq_left` = 0) and a hint
//! is up, the requester goes on with the hinted region (`ra`; the hint itself remembers it)
//! into the slots the reader frees. When the next message is taken (`decide`, the cycle after
//! the take, with the compare `m_r` of the message with the hint registered at the take; the
//! contract holds the hint up and unchanged until the hinted message's `msg_take`, so no copy
//! of the region is kept; `nxt_len` is 16 bits, a message of 64 KiB or more gets no hint):
//! - the same address and length, hint not fallen and of the message's own source
//!   (`nxt_shown`): the region's blocks are the message's, its requests go on (`msg_take`
//!   next): no DMA latency before its first payload beat;
//! - a message without payload (Read Request, length 0): the read-ahead is left alone;
//! - anything else: a flush (`fl`) waits until every busy slot's completion is in (`all_in`; tags are
//!   never reused before their last beat), frees the slots (`rd_cnt = rq_cnt`), then loads the
//!   message's own requests (`msg_take` next).
//!
//! `msg_take` is a register (`take_q`), a cycle after the decision. Until the source has seen
//! it, its hint may still be the taken message's own region, so no read-ahead starts in the
//! two cycles after (`take_q`, `take_q2`): the source's fall reaches DdpTx through the
//! arbiter's hint register by then.
//!
//! A hint that falls while a region is read ahead (not at a take) makes it stale
//! (`ra_stale`): no more requests, never used, cancelled at the next message or in `Idle`.
//! So data read for a withdrawn hint is never sent for a later message of the same address
//! after the host changed that memory. Slot bookkeeping for this: blocks are counted across
//! messages (`rq_cnt` / `rd_cnt` are not reset at a take: "the reader's block is requested" is
//! still `rq_cnt != rd_cnt`, as regions are requested in the order they are read), a slot is
//! requested only when not `busy` (requested and not released), and a region's slots are its
//! blocks' address bits `[9:7]` plus a per-region offset `rq_off`, chosen at the read-ahead's
//! start so that its first block takes the slot after the previous region's last one (the
//! first the reader frees; by address alone it could collide with the current message's last
//! block and wait until the end). The reader adds the same offset (`m_wa`).
//!
//! # Payload path
//!
//! - **Requests**: one request per 128-octet-aligned block of host memory
//!   ([`TX_BLK_OCTETS`]; the first and last may be partial), so no request crosses a 4 KiB
//!   boundary (PCIe) and every block lands in a fixed place of the buffer: the buffer (256 words
//!   of block RAM, 1 KiB, 2 iCE40 RAMs) is indexed by host word address bits `[9:2]`, and the
//!   tag of a request is host address bits `[9:7]` (8 tags, one per block slot). Up to 8 blocks
//!   are requested ahead of the reader: room is reserved when a block is requested (completions
//!   have no ready), and a slot (tag) is requested again only after the reader released it, so
//!   a tag is never reused before its `last` beat. The request length is registered (one
//!   request every 2 cycles at most).
//! - **Pacing**: a request is offered only when the previous one's beats (its length / 4, less
//!   the 2 cycles a request takes anyway; `rq_gap`, 6 bits) can have come back at one beat per
//!   cycle. Without it the 8 requests of a message's start went out in 16 cycles, their
//!   completions (the DMA model, like PCIe, returns different tags in any order) came back in
//!   random order, and the reader waited on average ~160 cycles for the block it needed while
//!   the others arrived: 4 KiB Writes took 1409 cycles a message instead of 1039 (issue 5).
//!   Paced, the completions come back in address order with a fixed latency; in steady state
//!   the reader paces the requests anyway (one per block of 32 beats).
//! - **Completions** (DW-aligned beats, tags interleaving freely, one tag in address order) are
//!   written at `{tag, wptr[tag]}`; `wptr[tag]` starts at the request's first word and counts
//!   beats; the tag's `done` flag rises with its `last` beat.
//! - **Reader**: reads the buffer word by word in host order from the word holding
//!   `msg_addr - 2` (so that the realignment shift is one constant per message), waiting for
//!   each word's completion beat (its block complete, or the block's `wptr` past the word).
//!   Words outside the message (the one before it, those after it) are garbage under header
//!   lanes or `keep` = 0 and are not waited for. A word enters a 2-word FIFO (`f0` and the
//!   buffer's read register, which the RAM's read enable holds: see [`TxBufRam`]); a block is
//!   released (`rd_cnt`) with its last message word. The message's last word is the word
//!   `end_w` (host address bits `[6:2]` of its last octet) of a block whose slot is flagged
//!   `lastblk` (set with the region's last request; a slot is requested again only after its
//!   release, so the flag is that of the lap the reader is in).
//! - **Realignment**: output payload window `i` holds message octets `4i - 2 .. 4i + 1` (lanes 0
//!   to 3), i.e. host octets from `msg_addr - 2 + 4i`: the FIFO's first two words shifted by
//!   `s = (msg_addr + 2) mod 4` octets. A segment's first payload beat takes lanes 2, 3 of a
//!   window (lanes 0, 1 are the header's last two octets); a non-final segment's last beat takes
//!   lanes 0, 1 of a window, which then stays for the next segment's first payload beat.
//!
//! Why 128-octet blocks: the DMA model (like PCIe) returns pieces of different tags in any
//! order, and the reader needs them in address order; with 8 tags, small blocks keep the
//! reader's wait for an overtaken block short. Measured (64 KiB Writes, latency 50, MULPDU
//! 1454): 256-octet blocks 0.974 beats / cycle, 512-octet 0.955, 128-octet 0.986, 64-octet
//! 0.992 (but only 512 octets in flight: latency above ~120 cycles would then starve it).
//!
//! # Timing
//!
//! Two cycles to take a message and set up its first segment, then one beat per cycle while
//! payload is there; the next segment's first beat follows the previous one's last in the next
//! cycle. Without a read-ahead the first payload beat waits for the first completion beat (DMA
//! latency, ~50 cycles); with a hinted message (the SendEngine's Writes / Sends) it does not:
//! a 1 KiB message takes its beats + 5 cycles from its offer to its `msg_done` (tested). Steady
//! state: one beat per cycle with a DMA latency of 50. `idle` is 1 when no message is being
//! worked on and no region is read ahead (then no request is outstanding: a message ends only
//! after all its payload was read, a read-ahead only after its completions).
//!
//! **Output stage**: a 2-entry skid buffer (`o_*` drive `ulpdu_*`, `s_*` take the beat made
//! while the output stalls); the inside sees "ready" as `!s_valid` (a register), so
//! `ulpdu_ready` only loads registers and one cycle of latency is added to `ulpdu_*` (the skid
//! entry takes every beat made, and counts only when `s_valid` is set). The message is done
//! (`msg_done` = `msg_ready`, from `done_q`) in the cycle after its final beat leaves the stage;
//! meanwhile the FSM waits in `Drain` (the message is still offered).
//!
//! **Area** (issue 5; `docs/decisions.md` "DdpTx: area and Fmax"): the header beats are an
//! AND-OR of the fields, one select per field and half (a priority chain on `hb` cost ~570
//! LUT4), a Read Request's source TO (`msg_to`) goes out of `to_hi` / `to_lo` like a tagged
//! TO; the reader's end is a per-slot "last block of the region" flag (`lastblk`, set with the
//! region's last request) and the last word's index `end_w`, not a 32-bit word count;
//! `msg_rem` loses `maxpay` per segment (no operand mux), `rq_addr` steps to the next block
//! (an incrementer), the request length is 8 bits, one `seg_rem` subtractor. Third pass
//! (`docs/decisions.md` "DdpTx: third pass, area and Fmax"): the buffer a `no_rw_check`
//! block-RAM leaf with a read enable (no collision bypass; its read register is the FIFO's
//! third word), the skid
//! entry without copies of `ulpdu_conn` / `ulpdu_len` / the final flag, `rq_addr` / `rq_left`
//! loaded once from an AND-OR of their sources, the per-slot look-ups as multiplexer trees,
//! one write-pointer incrementer, `hb` one-hot, the request's slot and gate in registers
//! (`rq_tag`, `rq_ok`): 2062 -> 1743 logic cells. Later (board profile, `rnic synth --board
//! alchitry-cu --block ddp_tx`): the reader's FIFO is `f0` and the buffer's read register, the
//! window's second word read from the RAM's output (no `f1`: 32 flip-flops loaded from the RAM,
//! each alone in a logic cell): 1688 -> 1634 logic cells, 103.9 MHz (critical now: the RAM's
//! output -> the window -> the beat -> `o_data` / `s_data`).
//!
//! Ninth session: no `o_len` copy of `ulen` (`ulpdu_len` is read with a packet's first beat
//! only), `wr` as one expression with the compares last, `all_in_r` and `rq_lz` (the flush's
//! end and the read-ahead's start from registers, off the `rq_addr` / `rq_left` enables): 1639
//! logic cells (abc's LUT count moved +30), 103.1 MHz, seeds 2-4 103.9 / 99.1 / 104.2; the
//! whole core 9 296 -> 9 278 cells (`docs/decisions.md`, ninth session).
//!
//! Fmax in the board profile: 91.4 MHz (1726 logic cells) -> 102.6 MHz (1688) since the reader's
//! `issue` reads `pop_f` (`pop_k`, `Emit`, `!s_valid`: registers) instead of `pop`: it needs the
//! pop only when the FIFO is full, and then the window is there whatever the shift, so the
//! `sh` / FIFO count -> `win_avail` -> `fire` -> `pop` -> `issue` -> the reader's enables path
//! (6 LUT levels, 8 of 10.9 ns routing) is gone.
//!
//! Earlier, Fmax on the iCE40-HX8K (`rnic synth --block ddp_tx`): 103.2 MHz, nextpnr seeds 2-4: 97.7, 96.6,
//! 101.4, 1767 logic cells, since `seg_rem - 2` / `seg_rem - 4` are flip-flops (`sr2`, `sr4`: the
//! next `bl` / `rem_big` decode registers instead of a 16-bit subtractor; before: 95.7, seeds 2-4
//! 86.9, 87.0, 94.2, 1744 cells). The beat's last flag, its "needs the window" and "pops the
//! window" are flip-flops (`bl`, `nw`, `pop_k`), set with the beat's fire from the next kind and
//! the next `seg_rem` (`rem_sub`) and cleared at a segment's start, so that `fire` -> `start_seg`
//! -> the segment's enables starts a few LUTs from registers (it was the kind -> `seg_rem` decodes
//! -> `b_last` / `b_valid` -> `fire`: 83.0 MHz after the third pass, seeds 2-4 86.1, 90.6, 88.8).
//! Left: the kind -> `fire` -> `pop` -> `issue` -> the reader's enables, routing-dominated. Before
//! the third pass: 95.5 MHz, 89.6 to 96.7 over nextpnr seeds (78 before the output stage and the
//! registered decodes: `rem_big`, the message kind `k_*`, the reader's `wr` / `rptr1`, the
//! request's `rq_ok`, the clamped MULPDU; then the wide per-segment updates (`msg_rem`, `to_lo`) a
//! cycle after the segment's start and `to_hi` registered). The critical path changed with the
//! placement, all routing-dominated: the FSM -> `idle` -> `pay_rd_req_valid` -> the request's
//! enables, the reader's look-ahead (`rptr` -> the block's `done` / `wptr` -> compare -> `wr`), the
//! FIFO count -> `fire` -> `pop` -> `issue`.

// `wr_clr` keeps the flush decision's form (`!(m_r && !ra_stale)`): the netlist measured.
#![allow(clippy::nonminimal_bool)]
use crate::config::{
    CONNECTIONS, CONN_BITS, DMA_ADDR_BITS, DMA_LEN_BITS, DMA_SUB_TAG_BITS, LOCAL_LEN_BITS,
};
use rust_hdl::prelude::*;
use std::fmt::Write;

/// Blocks in the payload buffer (= read tags in use).
pub const TX_BLOCKS: usize = 8;
/// Bits of a word index within one block (a block is `4 << TX_BLK_WORD_BITS` octets).
pub const TX_BLK_WORD_BITS: usize = 5;
/// Bits of an octet offset within one block.
pub const TX_BLK_OCT_BITS: usize = TX_BLK_WORD_BITS + 2;
/// Address bits of the payload buffer (words of 32 bits).
pub const TX_BUF_BITS: usize = DMA_SUB_TAG_BITS + TX_BLK_WORD_BITS;
/// Octets of one block (one read request at most).
pub const TX_BLK_OCTETS: u64 = 1 << TX_BLK_OCT_BITS;

const _: () = assert!(TX_BLOCKS == 1 << DMA_SUB_TAG_BITS);
// `#[hdl_gen]` cannot name constants: a block's slot bits are host address bits [9:7].
const _: () = assert!(TX_BLK_OCT_BITS == 7);
// The message kind is decoded from literal RDMAP opcodes (tagged 0 and 2, Read Request 1,
// Invalidate STag carried by 4 and 6).
const _: () = {
    use rnic_proto::rdmap::opcode::Opcode;
    assert!(
        Opcode::RdmaWrite as u8 == 0
            && Opcode::RdmaReadRequest as u8 == 1
            && Opcode::RdmaReadResponse as u8 == 2
            && Opcode::SendInvalidate as u8 == 4
            && Opcode::SendSeInvalidate as u8 == 6
    );
};

/// The FSM of the segmenter.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum DdpTxState {
    /// No message: waiting for `msg_valid`.
    Idle,
    /// Setting up the first segment of the message.
    Seg,
    /// Emitting a segment's beats.
    Emit,
    /// The message's last beat is in the output stage: waiting for it to be taken (the message
    /// is still offered until then).
    Drain,
}

/// The DDP / RDMAP transmit segmenter.
#[derive(LogicBlock)]
pub struct DdpTx {
    pub clock: Signal<In, Clock>,
    // QP context commit.
    pub qpc_write: Signal<In, Bit>,
    pub qpc_qp: Signal<In, Bits<CONN_BITS>>,
    pub qpc_tx_mulpdu: Signal<In, Bits<16>>,
    // The message job.
    pub msg_valid: Signal<In, Bit>,
    pub msg_ready: Signal<Out, Bit>,
    pub msg_conn: Signal<In, Bits<CONN_BITS>>,
    pub msg_opcode: Signal<In, Bits<4>>,
    pub msg_stag: Signal<In, Bits<32>>,
    pub msg_to: Signal<In, Bits<64>>,
    pub msg_inv_stag: Signal<In, Bits<32>>,
    pub msg_src_to: Signal<In, Bits<64>>,
    pub msg_msn: Signal<In, Bits<32>>,
    pub msg_addr: Signal<In, Bits<DMA_ADDR_BITS>>,
    pub msg_len: Signal<In, Bits<32>>,
    pub msg_done: Signal<Out, Bit>,
    /// Strobe, from a flip-flop: `msg_addr` and `msg_len` of the offered message were read for
    /// the last time in the cycle before (the other fields stay read in place until
    /// `msg_done`).
    pub msg_take: Signal<Out, Bit>,
    // Read-ahead hint: the next message will probably read `[nxt_addr, nxt_addr + nxt_len)`.
    pub nxt_valid: Signal<In, Bit>,
    pub nxt_addr: Signal<In, Bits<DMA_ADDR_BITS>>,
    /// 16 bits: a message of 64 KiB or more gets no hint.
    pub nxt_len: Signal<In, Bits<16>>,
    /// The hint is of the source whose message is on `msg_*` (a hint matches only its own
    /// source's message).
    pub nxt_shown: Signal<In, Bit>,
    // Payload DMA reads.
    pub pay_rd_req_valid: Signal<Out, Bit>,
    pub pay_rd_req_ready: Signal<In, Bit>,
    pub pay_rd_req_addr: Signal<Out, Bits<DMA_ADDR_BITS>>,
    pub pay_rd_req_len: Signal<Out, Bits<DMA_LEN_BITS>>,
    pub pay_rd_req_tag: Signal<Out, Bits<DMA_SUB_TAG_BITS>>,
    pub pay_rd_cpl_valid: Signal<In, Bit>,
    pub pay_rd_cpl_tag: Signal<In, Bits<DMA_SUB_TAG_BITS>>,
    pub pay_rd_cpl_data: Signal<In, Bits<32>>,
    pub pay_rd_cpl_keep: Signal<In, Bits<4>>,
    pub pay_rd_cpl_last: Signal<In, Bit>,
    // ULPDUs to UlpduMux / MpaTx.
    pub ulpdu_data: Signal<Out, Bits<32>>,
    pub ulpdu_keep: Signal<Out, Bits<4>>,
    pub ulpdu_last: Signal<Out, Bit>,
    pub ulpdu_valid: Signal<Out, Bit>,
    pub ulpdu_ready: Signal<In, Bit>,
    pub ulpdu_conn: Signal<Out, Bits<CONN_BITS>>,
    pub ulpdu_len: Signal<Out, Bits<16>>,
    /// No message in progress (hence no read outstanding, no beat pending).
    pub idle: Signal<Out, Bit>,

    // ---- Per-connection MULPDU.
    mulpdu: [DFF<Bits<16>>; CONNECTIONS],
    // ---- Segmenter.
    /// The message's kind, registered when it is taken (`msg_opcode` is stable while
    /// offered; registered to keep it off the beat / pop paths): tagged, Read Request.
    k_tagged: DFF<Bit>,
    k_rreq: DFF<Bit>,
    state: DFF<DdpTxState>,
    /// Maximum payload octets per segment of this message.
    maxpay: DFF<Bits<16>>,
    /// Message payload octets not yet given to a segment, inverted (`!msg_rem`): it counts
    /// up by `maxpay` (`!(r - m) = !r + m`) and `msg_rem <= maxpay` is the carry of
    /// `maxpay + msg_rem_n + 1`, so that neither carry chain needs an inverter LUT per bit
    /// in front (an iCE40 carry takes its operands from the cell's LUT inputs as they are).
    /// [`LOCAL_LEN_BITS`] wide: a message is shorter than `1 << LOCAL_LEN_BITS` (the driver
    /// posts none longer; a Read Response's size passed its StagCheck).
    msg_rem_n: DFF<Bits<LOCAL_LEN_BITS>>,
    /// `maxpay + msg_rem_n[15:0] + 1`: its carry is `msg_rem[15:0] <= maxpay`.
    fit_sum: Signal<Local, Bits<17>>,
    /// Payload octets of the current segment not yet emitted.
    seg_rem: DFF<Bits<16>>,
    /// `seg_rem >= 8`, kept with `seg_rem` (from the value it is loaded with), so that the
    /// beat's decodes of `seg_rem` are one LUT deep.
    rem_big: DFF<Bit>,
    /// The beat in `hb` / `p0` / `inpay` / `rr_end` is its segment's last (`b_last` as a
    /// flip-flop: updated with the beat's fire from the next kind and `seg_rem`, cleared at a
    /// segment's start; off the fire -> `start_seg` path).
    bl: DFF<Bit>,
    /// The beat needs the realignment window (a payload beat; a first payload beat with a
    /// non-empty payload), kept like `bl`.
    nw: DFF<Bit>,
    /// `nw && sh != 0`: the beat also needs the buffer's read register (`rv`), kept like
    /// `nw` (`sh` is constant from the take to `Idle`), so that `fire` reads no `sh` decode
    /// (`sh` -> the window's availability -> `fire` -> `start_seg` -> `hb`'s enable was
    /// `tx_path`'s worst path, -0.98 ns).
    nwr: DFF<Bit>,
    /// The next `p0` / `rr_end` after a header beat fires.
    p0n: Signal<Local, Bit>,
    rrn: Signal<Local, Bit>,
    /// `rem_sub >= 8`.
    rs_big: Signal<Local, Bit>,
    /// `rem_sub <= 4`: a payload beat's next `bl`.
    bl_n: Signal<Local, Bit>,
    /// `seg_rem` less the octets of this beat (2 in a segment's first payload beat, else 4):
    /// `sr`, a flip-flop, so that the next `bl` / `rem_big` are decodes of registers (the
    /// `seg_rem` subtractor was the critical path, 95.7 MHz).
    rem_sub: Signal<Local, Bits<16>>,
    /// `seg_rem` less the octets of the next payload beat: loaded at `ss_r` with
    /// `seg_take - 2` (`seg_rem` does not change before the segment's first payload beat,
    /// which takes 2 octets), less 4 at every payload beat (each later one takes 4). One
    /// register and one subtractor for the first and the later beats (an `sr2` / `sr4` pair
    /// and a multiplexer before: 16 flip-flops, a 16-bit subtractor and 16 LUTs more).
    sr: DFF<Bits<16>>,
    /// The current segment is the message's last.
    seg_last: DFF<Bit>,
    /// TO of the current segment (`msg_to + offset`): `to_lo` the lower half, `to_hi` the
    /// upper half, loaded with `msg_to[63:32]` at `tk2` and incremented once where the lower
    /// half carries out (the offset is below 2^32: once at most). `c_nx`: the next segment's
    /// add will carry (from `to_sum`, which is `to_lo + maxpay` in every cycle); the increment
    /// is `ss_e && c_nx` (the cycle `to_lo` takes that add), so that `to_hi` is right from
    /// the segment's beat 1 on, as `to_lo`. Untagged messages carry no TO: there `to_lo` is
    /// the segment's message offset (MO, from 0), so one 32-bit adder serves both.
    /// `to_hi`'s D is `tk2 ? msg_to[63:32] : to_hi + {32{tk2}} + inc`: the load select is
    /// also the adder's second operand (its sum is not used when it is 1), so that the load
    /// multiplexer, the sum's XOR and the carry share one logic cell per bit with the
    /// flip-flop (a separate copy `hi0` and `to_hi = hi0 + to_c` took two: issue 5, −32).
    to_lo: DFF<Bits<32>>,
    to_hi: DFF<Bits<32>>,
    /// `{32{tk2}}`, the incrementer's second operand (see `to_hi`).
    tk2_ones: Signal<Local, Bits<32>>,
    /// `msg_stag`, copied one cycle after the message is taken up (`tk1`; `tk2` two cycles:
    /// `taking` delayed, the cycle `to_hi` is loaded): the ReadResponder drives `msg_stag`
    /// and `msg_to[63:32]` from its queue RAM, each in that cycle only (`docs/core.md` "The
    /// message job"). `m_stag` is ready from T+2 (beat 0 is at T+3 at the soonest), `to_hi`
    /// from T+3.
    m_stag: DFF<Bits<32>>,
    tk1: DFF<Bit>,
    tk2: DFF<Bit>,
    c_nx: DFF<Bit>,
    to_sum: Signal<Local, Bits<33>>,
    /// ULPDU length of the current segment.
    ulen: DFF<Bits<16>>,
    /// Beat within the segment, one-hot (bit `i`: beat `i`; 0 from beat 12 on). It shifts at
    /// every beat, header or payload (its enable is `fire` or the first segment's set-up, not
    /// the beat's kind and `start_seg`: timing): past a tagged or untagged header its bits
    /// select nothing, every field beyond beat 3 being a Read Request's (`h_r`).
    hb: DFF<Bits<12>>,
    /// Past the segment's first payload beat.
    inpay: DFF<Bit>,
    /// The next beat is the segment's first payload beat (beat 3 tagged, 4 untagged, not a Read
    /// Request, not `inpay`), and the next beat is a Read Request's last (`hb == 11`): kept
    /// with `hb` (off the kind -> `fire` -> `pop` -> `issue` path, the Fmax path).
    p0: DFF<Bit>,
    rr_end: DFF<Bit>,
    // ---- Requester.
    /// The next request's host address, bits 6..0 (the offset in its block) kept inverted
    /// (`^ c_lo`): the room left in the block, `128 - offset`, is then `rq_addr[6:0] + 1`, a
    /// carry chain without an inverter LUT per bit in front (the inversions of the port and of
    /// `wptr` fold into the LUTs that read them).
    rq_addr: DFF<Bits<DMA_ADDR_BITS>>,
    /// The request's address (`rq_addr` with its offset bits inverted back).
    rq_a: Signal<Local, Bits<DMA_ADDR_BITS>>,
    /// Octets of the region not yet requested, inverted (`!rq_left`): a request adds its
    /// length (`!(l - n) = !l + n`) and "the rest fits the block" is the carry of
    /// `room + rq_left_n[7:0] + 1`, so that no carry chain has an inverter LUT per bit in
    /// front (as `msg_rem_n`).
    rq_left_n: DFF<Bits<LOCAL_LEN_BITS>>,
    /// `room + rq_left_n[7:0] + 1`: its carry is `rq_left[7:0] <= room`.
    fit_rq: Signal<Local, Bits<9>>,
    /// Blocks requested in this message (mod 16).
    rq_cnt: DFF<Bits<4>>,
    /// Length of the next request (registered), valid when `rq_ok`.
    rq_lenr: DFF<Bits<8>>,
    rq_ok: DFF<Bit>,
    /// The slot (tag) of the next request: `rq_addr[9:7] + rq_off`, kept with them (so
    /// that the request's per-slot enables decode a register).
    rq_tag: DFF<Bits<DMA_SUB_TAG_BITS>>,
    /// Requests may be offered: `(state != Idle && !fl) || (ra && !ra_stale)`.
    rq_g: Signal<Local, Bit>,
    /// The source of `rq_addr`'s load (0 none, 1 the next block, 2 `nxt_addr`, 3
    /// `msg_addr`) and of `rq_left`'s (0 none, 1 less the request, 2 `nxt_len`, 3 `msg_len`,
    /// 4 zero), and their AND-OR masks.
    a_src: Signal<Local, Bits<2>>,
    l_src: Signal<Local, Bits<3>>,
    /// `a_src != 0` / `l_src != 0`, set with them (an OR of the conditions, not a decode of
    /// the sources' priority chain: the load enables' depth).
    a_en: Signal<Local, Bit>,
    l_en: Signal<Local, Bit>,
    rq_inc: Signal<Local, Bits<DMA_ADDR_BITS>>,
    /// `rq_left_n` after the request: `!(rq_left - rq_lenr)`.
    rq_dec_n: Signal<Local, Bits<LOCAL_LEN_BITS>>,
    a_m1: Signal<Local, Bits<DMA_ADDR_BITS>>,
    a_m2: Signal<Local, Bits<DMA_ADDR_BITS>>,
    a_m3: Signal<Local, Bits<DMA_ADDR_BITS>>,
    l_m1: Signal<Local, Bits<LOCAL_LEN_BITS>>,
    l_m2: Signal<Local, Bits<LOCAL_LEN_BITS>>,
    l_m3: Signal<Local, Bits<LOCAL_LEN_BITS>>,
    /// Pacing: cycles (less 1) until the next request may be offered, loaded with the last
    /// request's beats less 2 (see "Payload path").
    rq_gap: DFF<Bits<6>>,
    /// `msg_rem <= maxpay`, registered.
    fits_r: DFF<Bit>,
    /// The first segment's set-up cycle is still to come.
    seg_wait: DFF<Bit>,
    // ---- Read-ahead.
    /// A region is being read ahead (or was) for a message not yet taken: the hint's.
    ra: DFF<Bit>,
    /// The hint fell while reading ahead: the region is never used, only cancelled.
    ra_stale: DFF<Bit>,
    /// `nxt_valid && nxt_shown && msg_addr == nxt_addr && msg_len == nxt_len`, registered
    /// (valid in the cycle after a take: the hint is held, unchanged and up, while its message
    /// is offered, until its `msg_take`).
    m_r: DFF<Bit>,
    /// The message taken reads payload (not a Read Request, length not 0).
    k_pay: DFF<Bit>,
    /// The hint was low in the cycle of a take with a read-ahead.
    fell: DFF<Bit>,
    /// Flush (in `Seg`, `seg_wait` kept): the message taken does not continue the read-ahead;
    /// waiting for the read-ahead's completions, then freeing its slots (the message's
    /// requests start after). A flag, not a state: 4 states keep the state in 2 bits.
    fl: DFF<Bit>,
    /// Per block slot (tag): requested and not yet released by the reader (or freed).
    busy: [DFF<Bit>; TX_BLOCKS],
    /// Slot offset of the region being requested: a block's slot (tag) is its host address
    /// bits `[9:7]` plus this (set when a read-ahead starts, so that its first block takes the
    /// slot after the previous region's last one, the first the reader frees).
    rq_off: DFF<Bits<DMA_SUB_TAG_BITS>>,
    /// The slot of the last request.
    last_slot: DFF<Bits<DMA_SUB_TAG_BITS>>,
    /// The message's first buffer word address: host word address bits `[9:2]`, slot offset
    /// added.
    m_wa: Signal<Local, Bits<TX_BUF_BITS>>,
    m_slot: Signal<Local, Bits<DMA_SUB_TAG_BITS>>,
    /// Every busy slot's completion is in.
    all_in: Signal<Local, Bit>,
    /// `all_in` a cycle late (and 0 after a request): stale only towards "not in" (a slot
    /// becomes busy only with a request), so a flush or a cancel ends a cycle later at most;
    /// keeps the slots' reduction off the `rq_addr` / `rq_left` enables.
    all_in_r: DFF<Bit>,
    /// `rq_left == 0`, registered, 0 after a load of `rq_left` (stale only towards "not
    /// zero": a read-ahead starts a cycle later at most); off the `rq_addr` / `rq_left` enables.
    rq_lz: DFF<Bit>,
    /// The slot of the next request is busy.
    rq_busy: Signal<Local, Bit>,
    /// The reader left slot `bclr_i` in the previous cycle (its last word was issued): the
    /// slot's `busy` clears now.
    bclr: DFF<Bit>,
    bclr_i: DFF<Bits<DMA_SUB_TAG_BITS>>,
    taking: Signal<Local, Bit>,
    /// The offered message reads payload.
    pay: Signal<Local, Bit>,
    ra_start: Signal<Local, Bit>,
    /// The cycle after a take with a read-ahead: continue it, leave it, or cancel it.
    decide: Signal<Local, Bit>,
    /// A flush ends (`all_in_r && !rq_ok && fl`, registers only): the message's requests are
    /// loaded. Written out apart from the cancel between messages (which reads `msg_valid`),
    /// so that the `rq_addr` / `rq_left_n` enables do not wait for the arbiter's valid there.
    fl_end: Signal<Local, Bit>,
    /// DdpTx has read `msg_addr` / `msg_len` for the last time (this cycle): `take_q`'s D.
    take_now: Signal<Local, Bit>,
    /// `msg_take`, a cycle after `take_now` (a register: the strobe does not carry the take's
    /// decode back through the arbiter into the sources' enables). The source holds
    /// `msg_addr` / `msg_len` a cycle longer.
    take_q: DFF<Bit>,
    /// `take_q` of the last cycle. The hint may be the taken message's own until the source
    /// has seen `msg_take` (its hint falls in the next cycle, and the arbiter forwards it a
    /// cycle later): no read-ahead starts in the two cycles after `take_now`.
    take_q2: DFF<Bit>,
    /// The message's final beat left the output stage in the last cycle: `msg_done`.
    done_q: DFF<Bit>,
    // ---- Completions.
    wptr: [DFF<Bits<TX_BLK_WORD_BITS>>; TX_BLOCKS],
    done: [DFF<Bit>; TX_BLOCKS],
    pbuf: TxBufRam,
    // ---- Reader and realigner.
    /// Blocks released by the reader in this message (mod 16).
    rd_cnt: DFF<Bits<4>>,
    /// Buffer address (host word address bits [10:2]) of the next word to read.
    rptr: DFF<Bits<TX_BUF_BITS>>,
    /// The next word read is the one before the message (alignment 0 or 1).
    pre: DFF<Bit>,
    /// The reader has read the message's last word (or the message has no payload).
    m_end: DFF<Bit>,
    /// Word index (host address bits `[6:2]`) of the message's last word in its last block.
    end_w: DFF<Bits<TX_BLK_WORD_BITS>>,
    /// Per block slot: its request was the last of its region (set by the requester, cleared
    /// when the reader releases the slot or a read-ahead is cancelled). With `end_w` this
    /// marks the message's last word: no 32-bit count of the words to read.
    lastblk: [DFF<Bit>; TX_BLOCKS],
    /// The request `rq_lenr` is the last of its region (registered with it).
    rq_fin: DFF<Bit>,
    /// The reader's word is the message's last (its block is the region's last, `end_w`).
    w_last: Signal<Local, Bit>,
    blk_last: Signal<Local, Bit>,
    /// Host address bits `[6:0]` of the message's last octet.
    m_endw: Signal<Local, Bits<TX_BLK_OCT_BITS>>,
    /// Realignment shift (octets).
    sh: DFF<Bits<2>>,
    /// The buffer's read register holds a word issued and not yet moved into `f0` (it is the
    /// FIFO's second entry: the RAM is read only at an issue).
    rv: DFF<Bit>,
    f0: DFF<Bits<32>>,
    /// `f0` holds a word.
    v0: DFF<Bit>,
    // ---- Output stage (2-entry skid buffer): `o_*` drive `ulpdu_*`, `s_*` hold the beat
    // accepted while the output stalled.
    o_valid: DFF<Bit>,
    o_data: DFF<Bits<32>>,
    o_keep: DFF<Bits<4>>,
    o_last: DFF<Bit>,
    o_conn: DFF<Bits<CONN_BITS>>,
    s_valid: DFF<Bit>,
    s_data: DFF<Bits<32>>,
    s_keep: DFF<Bits<4>>,
    s_last: DFF<Bit>,
    /// The beat produced inside (into the output stage).
    b_data: Signal<Local, Bits<32>>,
    b_keep: Signal<Local, Bits<4>>,
    b_last: Signal<Local, Bit>,
    b_valid: Signal<Local, Bit>,
    /// The message's final beat enters the output stage.
    fin: Signal<Local, Bit>,
    /// The output register is free this cycle (empty or being taken).
    out_free: Signal<Local, Bit>,

    // ---- Combinational.
    is_tagged: Signal<Local, Bit>,
    rreq: Signal<Local, Bit>,
    hlen: Signal<Local, Bits<16>>,
    mul_sel: Signal<Local, Bits<16>>,
    win: Signal<Local, Bits<32>>,
    kind_p0: Signal<Local, Bit>,
    kind_pay: Signal<Local, Bit>,
    hdr_hi: Signal<Local, Bits<16>>,
    hdr_lo: Signal<Local, Bits<16>>,
    ctrl16: Signal<Local, Bits<16>>,
    /// The message carries an Invalidate STag (Send with Invalidate, opcode 4 or 6).
    inv_op: Signal<Local, Bit>,
    /// Header beat decodes and the per-field selects of the header AND-OR.
    h_t: Signal<Local, Bit>,
    h_qn: Signal<Local, Bit>,
    h_r: Signal<Local, Bit>,
    h_u: Signal<Local, Bit>,
    h0: Signal<Local, Bit>,
    h1: Signal<Local, Bit>,
    h2: Signal<Local, Bit>,
    h3: Signal<Local, Bit>,
    h4: Signal<Local, Bit>,
    h5: Signal<Local, Bit>,
    h6: Signal<Local, Bit>,
    h7: Signal<Local, Bit>,
    h8: Signal<Local, Bit>,
    h9: Signal<Local, Bit>,
    h10: Signal<Local, Bit>,
    h11: Signal<Local, Bit>,
    m_ctrl: Signal<Local, Bits<16>>,
    m_stag_lo: Signal<Local, Bits<16>>,
    m_tohi_lo: Signal<Local, Bits<16>>,
    m_tolo_lo: Signal<Local, Bits<16>>,
    m_inv_lo: Signal<Local, Bits<16>>,
    m_msn_lo: Signal<Local, Bits<16>>,
    m_len_lo: Signal<Local, Bits<16>>,
    m_src_a: Signal<Local, Bits<16>>,
    m_src_b: Signal<Local, Bits<16>>,
    m_stag_hi: Signal<Local, Bits<16>>,
    m_tohi_hi: Signal<Local, Bits<16>>,
    m_tolo_hi: Signal<Local, Bits<16>>,
    m_inv_hi: Signal<Local, Bits<16>>,
    m_msn_hi: Signal<Local, Bits<16>>,
    m_len_hi: Signal<Local, Bits<16>>,
    m_src_c: Signal<Local, Bits<16>>,
    m_win_hi: Signal<Local, Bits<16>>,
    m_win_lo: Signal<Local, Bits<16>>,
    fire: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    /// The beat pops the window (a first payload beat with payload; a payload beat but a
    /// non-final segment's last), kept like `bl`.
    pop_k: DFF<Bit>,
    /// `pop` when the FIFO is full (the window is there then).
    pop_f: Signal<Local, Bit>,
    rem_hi0: Signal<Local, Bit>,
    rem_lo: Signal<Local, Bits<3>>,
    rem_le2: Signal<Local, Bit>,
    mul_raw: Signal<Local, Bits<16>>,
    push: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    in_msg: Signal<Local, Bit>,
    word_ready: Signal<Local, Bit>,
    /// `word_ready` of the word `rptr` points at, registered (from the previous cycle's
    /// state: conservative, see the reader).
    wr: DFF<Bit>,
    /// The reader's state after an issue: `rptr + 1`, its block, `in_msg`,
    /// `rd_cnt`, and whether that word is ready.
    rptr1: DFF<Bits<TX_BUF_BITS>>,
    rptr1_blk: Signal<Local, Bits<TX_BUF_BITS>>,
    inside1: Signal<Local, Bit>,
    rd_cnt1: Signal<Local, Bits<4>>,
    blk_done1: Signal<Local, Bit>,
    blk_wptr1: Signal<Local, Bits<TX_BLK_WORD_BITS>>,
    word_ready1: Signal<Local, Bit>,
    /// `word_ready1`'s parts: the look-ahead block is requested (`c_ne1`), the word is ready
    /// without the compare (`wr_p`), the compare (`lt1`); `wr`'s clear and its terms.
    c_ne1: Signal<Local, Bit>,
    wr_p: Signal<Local, Bit>,
    lt1: Signal<Local, Bit>,
    wr_clr: Signal<Local, Bit>,
    wr_a: Signal<Local, Bit>,
    wr_g: Signal<Local, Bit>,
    wr_h: Signal<Local, Bit>,
    c_ne0: Signal<Local, Bit>,
    wr0_p: Signal<Local, Bit>,
    lt0: Signal<Local, Bit>,
    blk_done: Signal<Local, Bit>,
    /// The per-slot flags and write pointers as vectors (one per bit of `wptr`), looked up
    /// with a variable bit index: a multiplexer tree (an `if index == i` per slot was a
    /// priority chain, 8 LUTs deep on the reader's Fmax path).
    done_v: Signal<Local, Bits<TX_BLOCKS>>,
    busy_v: Signal<Local, Bits<TX_BLOCKS>>,
    last_v: Signal<Local, Bits<TX_BLOCKS>>,
    wp_v0: Signal<Local, Bits<TX_BLOCKS>>,
    wp_v1: Signal<Local, Bits<TX_BLOCKS>>,
    wp_v2: Signal<Local, Bits<TX_BLOCKS>>,
    wp_v3: Signal<Local, Bits<TX_BLOCKS>>,
    wp_v4: Signal<Local, Bits<TX_BLOCKS>>,
    rb: Signal<Local, Bits<DMA_SUB_TAG_BITS>>,
    rb1: Signal<Local, Bits<DMA_SUB_TAG_BITS>>,
    blk_wptr: Signal<Local, Bits<TX_BLK_WORD_BITS>>,
    start_seg: Signal<Local, Bit>,
    /// `start_seg`'s two halves: the first segment's set-up cycle (`seg_go`), a beat that
    /// ends a segment which is not the message's last (`seg_end`, with `fire`). The beat
    /// flags (`hb`, `p0`, `inpay`, `rr_end`, `bl`, `nw`, `nwr`, `pop_k`) are reset at a
    /// segment's start under `(fire || seg_go) && (seg_go || seg_end)`, so that their enable
    /// is `fire || seg_go`, not `start_seg || fire` (`fire` -> `start_seg` -> the enable was
    /// `tx_path`'s worst path).
    seg_go: Signal<Local, Bit>,
    seg_end: Signal<Local, Bit>,
    /// `start_seg` one cycle later (`ss_e`: of a segment after the first).
    ss_r: DFF<Bit>,
    ss_e: DFF<Bit>,
    seg_take: Signal<Local, Bits<16>>,
    seg_fits: Signal<Local, Bit>,
    room: Signal<Local, Bits<8>>,
    rq_len: Signal<Local, Bits<8>>,
    rq_fire: Signal<Local, Bit>,
    /// `rq_fire` of the last cycle: the request's bookkeeping (the next block's address and
    /// length, the slot's `busy` / `lastblk`, the counts, the pacing) is done a cycle after
    /// the handshake, so that `pay_rd_req_ready` (HostIf's read arbiter) loads two
    /// flip-flops only (`rq_ok`, `rq_fq`), not the requester's wide enables.
    rq_fq: DFF<Bit>,
    cpl_wptr: Signal<Local, Bits<TX_BLK_WORD_BITS>>,
    /// `cpl_wptr + 1`: one incrementer for the 8 write pointers.
    cpl_wp1: Signal<Local, Bits<TX_BLK_WORD_BITS>>,
    c14: Constant<Bits<16>>,
    c18: Constant<Bits<16>>,
    c_ctrl: Constant<Bits<16>>,
    /// The octet offset in a block (bits 6..0), the bits of `rq_addr` kept inverted.
    c_lo: Constant<Bits<DMA_ADDR_BITS>>,
    c_blk32: Constant<Bits<DMA_ADDR_BITS>>,
    /// All ones at the length width (`msg_rem_n`, `rq_left_n`); with bits 15..0 / 7..0 only.
    c_ones: Constant<Bits<LOCAL_LEN_BITS>>,
    c_lo16: Constant<Bits<LOCAL_LEN_BITS>>,
    c_lo8: Constant<Bits<LOCAL_LEN_BITS>>,
    /// All ones at the address width (the address sources' masks).
    c_aones: Constant<Bits<DMA_ADDR_BITS>>,
    c_blkmask: Constant<Bits<DMA_ADDR_BITS>>,
    c_shift: Constant<Bits<4>>,
    rptr_blk: Signal<Local, Bits<TX_BUF_BITS>>,
    c_last: Constant<Bits<TX_BLK_WORD_BITS>>,
}

impl Default for DdpTx {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            qpc_write: Default::default(),
            qpc_qp: Default::default(),
            qpc_tx_mulpdu: Default::default(),
            msg_valid: Default::default(),
            msg_ready: Default::default(),
            msg_conn: Default::default(),
            msg_opcode: Default::default(),
            msg_stag: Default::default(),
            msg_to: Default::default(),
            msg_inv_stag: Default::default(),
            msg_src_to: Default::default(),
            msg_msn: Default::default(),
            msg_addr: Default::default(),
            msg_len: Default::default(),
            msg_done: Default::default(),
            msg_take: Default::default(),
            nxt_valid: Default::default(),
            nxt_addr: Default::default(),
            nxt_len: Default::default(),
            nxt_shown: Default::default(),
            pay_rd_req_valid: Default::default(),
            pay_rd_req_ready: Default::default(),
            pay_rd_req_addr: Default::default(),
            pay_rd_req_len: Default::default(),
            pay_rd_req_tag: Default::default(),
            pay_rd_cpl_valid: Default::default(),
            pay_rd_cpl_tag: Default::default(),
            pay_rd_cpl_data: Default::default(),
            pay_rd_cpl_keep: Default::default(),
            pay_rd_cpl_last: Default::default(),
            ulpdu_data: Default::default(),
            ulpdu_keep: Default::default(),
            ulpdu_last: Default::default(),
            ulpdu_valid: Default::default(),
            ulpdu_ready: Default::default(),
            ulpdu_conn: Default::default(),
            ulpdu_len: Default::default(),
            idle: Default::default(),
            mulpdu: Default::default(),
            state: Default::default(),
            k_tagged: Default::default(),
            k_rreq: Default::default(),
            maxpay: Default::default(),
            msg_rem_n: Default::default(),
            fit_sum: Default::default(),
            seg_rem: Default::default(),
            rem_big: Default::default(),
            bl: Default::default(),
            nw: Default::default(),
            nwr: Default::default(),
            p0n: Default::default(),
            rrn: Default::default(),
            rs_big: Default::default(),
            bl_n: Default::default(),
            rem_sub: Default::default(),
            sr: Default::default(),
            seg_last: Default::default(),
            to_lo: Default::default(),
            to_hi: Default::default(),
            tk2_ones: Default::default(),
            m_stag: Default::default(),
            tk1: Default::default(),
            tk2: Default::default(),
            c_nx: Default::default(),
            to_sum: Default::default(),
            ulen: Default::default(),
            hb: Default::default(),
            inpay: Default::default(),
            p0: Default::default(),
            rr_end: Default::default(),
            rq_addr: Default::default(),
            rq_a: Default::default(),
            rq_left_n: Default::default(),
            fit_rq: Default::default(),
            rq_cnt: Default::default(),
            rq_lenr: Default::default(),
            rq_ok: Default::default(),
            rq_tag: Default::default(),
            rq_g: Default::default(),
            a_src: Default::default(),
            a_en: Default::default(),
            l_en: Default::default(),
            l_src: Default::default(),
            rq_inc: Default::default(),
            rq_dec_n: Default::default(),
            a_m1: Default::default(),
            a_m2: Default::default(),
            a_m3: Default::default(),
            l_m1: Default::default(),
            l_m2: Default::default(),
            l_m3: Default::default(),
            rq_gap: Default::default(),
            fits_r: Default::default(),
            seg_wait: Default::default(),
            ra: Default::default(),
            ra_stale: Default::default(),
            m_r: Default::default(),
            k_pay: Default::default(),
            fell: Default::default(),
            fl: Default::default(),
            busy: Default::default(),
            rq_off: Default::default(),
            last_slot: Default::default(),
            m_wa: Default::default(),
            m_slot: Default::default(),
            all_in: Default::default(),
            all_in_r: Default::default(),
            rq_lz: Default::default(),
            rq_busy: Default::default(),
            bclr: Default::default(),
            bclr_i: Default::default(),
            taking: Default::default(),
            pay: Default::default(),
            ra_start: Default::default(),
            decide: Default::default(),
            fl_end: Default::default(),
            take_now: Default::default(),
            take_q: Default::default(),
            take_q2: Default::default(),
            done_q: Default::default(),
            wptr: Default::default(),
            done: Default::default(),
            pbuf: Default::default(),
            rd_cnt: Default::default(),
            rptr: Default::default(),
            pre: Default::default(),
            m_end: Default::default(),
            end_w: Default::default(),
            lastblk: Default::default(),
            rq_fin: Default::default(),
            w_last: Default::default(),
            blk_last: Default::default(),
            m_endw: Default::default(),
            sh: Default::default(),
            rv: Default::default(),
            f0: Default::default(),
            v0: Default::default(),
            o_valid: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_last: Default::default(),
            o_conn: Default::default(),
            s_valid: Default::default(),
            s_data: Default::default(),
            s_keep: Default::default(),
            s_last: Default::default(),
            b_data: Default::default(),
            b_keep: Default::default(),
            b_last: Default::default(),
            b_valid: Default::default(),
            fin: Default::default(),
            out_free: Default::default(),
            is_tagged: Default::default(),
            rreq: Default::default(),
            hlen: Default::default(),
            mul_sel: Default::default(),
            win: Default::default(),
            kind_p0: Default::default(),
            kind_pay: Default::default(),
            hdr_hi: Default::default(),
            hdr_lo: Default::default(),
            ctrl16: Default::default(),
            inv_op: Default::default(),
            h_t: Default::default(),
            h_qn: Default::default(),
            h_r: Default::default(),
            h_u: Default::default(),
            h0: Default::default(),
            h1: Default::default(),
            h2: Default::default(),
            h3: Default::default(),
            h4: Default::default(),
            h5: Default::default(),
            h6: Default::default(),
            h7: Default::default(),
            h8: Default::default(),
            h9: Default::default(),
            h10: Default::default(),
            h11: Default::default(),
            m_ctrl: Default::default(),
            m_stag_lo: Default::default(),
            m_tohi_lo: Default::default(),
            m_tolo_lo: Default::default(),
            m_inv_lo: Default::default(),
            m_msn_lo: Default::default(),
            m_len_lo: Default::default(),
            m_src_a: Default::default(),
            m_src_b: Default::default(),
            m_stag_hi: Default::default(),
            m_tohi_hi: Default::default(),
            m_tolo_hi: Default::default(),
            m_inv_hi: Default::default(),
            m_msn_hi: Default::default(),
            m_len_hi: Default::default(),
            m_src_c: Default::default(),
            m_win_hi: Default::default(),
            m_win_lo: Default::default(),
            fire: Default::default(),
            pop: Default::default(),
            pop_k: Default::default(),
            pop_f: Default::default(),
            rem_hi0: Default::default(),
            rem_lo: Default::default(),
            rem_le2: Default::default(),
            mul_raw: Default::default(),
            push: Default::default(),
            issue: Default::default(),
            in_msg: Default::default(),
            word_ready: Default::default(),
            wr: Default::default(),
            rptr1: Default::default(),
            rptr1_blk: Default::default(),
            inside1: Default::default(),
            rd_cnt1: Default::default(),
            blk_done1: Default::default(),
            blk_wptr1: Default::default(),
            word_ready1: Default::default(),
            c_ne1: Default::default(),
            wr_p: Default::default(),
            lt1: Default::default(),
            wr_clr: Default::default(),
            wr_a: Default::default(),
            wr_g: Default::default(),
            wr_h: Default::default(),
            c_ne0: Default::default(),
            wr0_p: Default::default(),
            lt0: Default::default(),
            blk_done: Default::default(),
            done_v: Default::default(),
            busy_v: Default::default(),
            last_v: Default::default(),
            wp_v0: Default::default(),
            wp_v1: Default::default(),
            wp_v2: Default::default(),
            wp_v3: Default::default(),
            wp_v4: Default::default(),
            rb: Default::default(),
            rb1: Default::default(),
            blk_wptr: Default::default(),
            start_seg: Default::default(),
            seg_go: Default::default(),
            seg_end: Default::default(),
            ss_r: Default::default(),
            ss_e: Default::default(),
            seg_take: Default::default(),
            seg_fits: Default::default(),
            room: Default::default(),
            rq_len: Default::default(),
            rq_fire: Default::default(),
            rq_fq: Default::default(),
            cpl_wptr: Default::default(),
            cpl_wp1: Default::default(),
            c14: Constant::new(14.into()),
            c18: Constant::new(18.into()),
            c_ctrl: Constant::new(0x0140.into()),
            c_lo: Constant::new((TX_BLK_OCTETS - 1).into()),
            c_blk32: Constant::new(TX_BLK_OCTETS.into()),
            c_ones: Constant::new(((1u64 << LOCAL_LEN_BITS) - 1).into()),
            c_lo16: Constant::new(0xFFFFu64.into()),
            c_lo8: Constant::new(0xFFu64.into()),
            c_aones: Constant::new(((1u64 << DMA_ADDR_BITS) - 1).into()),
            c_blkmask: Constant::new((((1u64 << DMA_ADDR_BITS) - 1) & !(TX_BLK_OCTETS - 1)).into()),
            c_shift: Constant::new((TX_BLK_WORD_BITS as u64).into()),
            rptr_blk: Default::default(),
            c_last: Constant::new(((1u64 << TX_BLK_WORD_BITS) - 1).into()),
        }
    }
}

impl Logic for DdpTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, k_tagged, k_rreq, maxpay, msg_rem_n, seg_rem, sr, rem_big, bl, nw,
            nwr, pop_k, seg_last, to_lo, to_hi, m_stag, tk1, tk2, c_nx, ss_r, ss_e, ulen, hb,
            inpay, p0, rr_end, rq_addr, rq_left_n, rq_cnt, rq_lenr, rq_ok, rq_tag, rq_gap, fits_r,
            seg_wait, rd_cnt, rptr, rptr1, pre, m_end, end_w, rq_fin, wr, sh, rv, f0, v0, o_valid,
            o_data, o_keep, o_last, o_conn, s_valid, s_data, s_keep, s_last, ra, ra_stale, m_r,
            k_pay, rq_off, last_slot, fell, fl, all_in_r, rq_lz, take_q, take_q2, done_q, rq_fq,
            bclr, bclr_i
        );
        for i in 0..CONNECTIONS {
            self.mulpdu[i].clock.next = self.clock.val();
            self.mulpdu[i].d.next = self.mulpdu[i].q.val();
        }
        for i in 0..TX_BLOCKS {
            self.wptr[i].clock.next = self.clock.val();
            self.wptr[i].d.next = self.wptr[i].q.val();
            self.done[i].clock.next = self.clock.val();
            self.done[i].d.next = self.done[i].q.val();
            self.busy[i].clock.next = self.clock.val();
            self.busy[i].d.next = self.busy[i].q.val();
            self.lastblk[i].clock.next = self.clock.val();
            self.lastblk[i].d.next = self.lastblk[i].q.val();
        }
        self.pbuf.clock.next = self.clock.val();
        // A slot whose last word was issued in the previous cycle is freed now: a cycle late,
        // which only delays a request for the slot (`rq_busy`) or `all_in`, towards "busy";
        // keeps the slot decode and the busy multiplexers off the `issue` path (issue 5,
        // -1.35 ns in the routed core). Before the request's set and the flush's clear below.
        self.bclr.d.next = false;
        for i in 0..TX_BLOCKS {
            if self.bclr.q.val() && (self.bclr_i.q.val().index() == i) {
                self.busy[i].d.next = false;
            }
        }
        self.a_src.next = 0.into();
        self.l_src.next = 0.into();
        self.a_en.next = false;
        self.l_en.next = false;
        self.done_v.next = 0.into();
        self.busy_v.next = 0.into();
        self.last_v.next = 0.into();
        self.wp_v0.next = 0.into();
        self.wp_v1.next = 0.into();
        self.wp_v2.next = 0.into();
        self.wp_v3.next = 0.into();
        self.wp_v4.next = 0.into();
        for i in 0..TX_BLOCKS {
            self.done_v.next = self.done_v.val().replace_bit(i, self.done[i].q.val());
            self.busy_v.next = self.busy_v.val().replace_bit(i, self.busy[i].q.val());
            self.last_v.next = self.last_v.val().replace_bit(i, self.lastblk[i].q.val());
            self.wp_v0.next = self
                .wp_v0
                .val()
                .replace_bit(i, self.wptr[i].q.val().get_bit(0));
            self.wp_v1.next = self
                .wp_v1
                .val()
                .replace_bit(i, self.wptr[i].q.val().get_bit(1));
            self.wp_v2.next = self
                .wp_v2
                .val()
                .replace_bit(i, self.wptr[i].q.val().get_bit(2));
            self.wp_v3.next = self
                .wp_v3
                .val()
                .replace_bit(i, self.wptr[i].q.val().get_bit(3));
            self.wp_v4.next = self
                .wp_v4
                .val()
                .replace_bit(i, self.wptr[i].q.val().get_bit(4));
        }

        // ---- MULPDU per connection.
        // Kept already clamped to 64 (off the message set-up path).
        if self.qpc_write.val() {
            for i in 0..CONNECTIONS {
                if self.qpc_qp.val().index() == i {
                    self.mulpdu[i].d.next = self.qpc_tx_mulpdu.val();
                    // (< 64 as the top bits' zero test: a compare is a carry chain with an
                    // inverter LUT per bit.)
                    if self.qpc_tx_mulpdu.val().get_bits::<10>(6) == 0 {
                        self.mulpdu[i].d.next = 64.into();
                    }
                }
            }
        }

        // ---- The message's kind (from the offered job, stable while it is offered).
        self.is_tagged.next = (self.msg_opcode.val() == 0) || (self.msg_opcode.val() == 2);
        self.rreq.next = self.msg_opcode.val() == 1;
        if self.is_tagged.val() {
            self.hlen.next = self.c14.val();
        } else {
            self.hlen.next = self.c18.val();
        }
        self.mul_raw.next = self.mulpdu[0].q.val();
        for i in 1..CONNECTIONS {
            if self.msg_conn.val().index() == i {
                self.mul_raw.next = self.mulpdu[i].q.val();
            }
        }
        self.mul_sel.next = self.mul_raw.val();
        // DDP control `T << 7 | L << 6 | DV`, RDMAP control `RV << 6 | opcode`.
        self.ctrl16.next = bit_cast::<16, 4>(self.msg_opcode.val())
            | self.c_ctrl.val()
            | (bit_cast::<16, 1>(self.k_tagged.q.val().into()) << 15)
            | (bit_cast::<16, 1>(self.seg_last.q.val().into()) << 14);
        self.inv_op.next = (self.msg_opcode.val() == 4) || (self.msg_opcode.val() == 6);

        // ---- Realignment window from the word FIFO.
        // (The word after `f0` is the buffer's read register.)
        // (Whether the window is there is `v0` / `rv` with `nw` / `nwr`: see `b_valid`.)
        self.win.next = self.f0.q.val();
        if self.sh.q.val() == 1 {
            self.win.next = (self.f0.q.val() << 8) | (self.pbuf.read_data.val() >> 24);
        }
        if self.sh.q.val() == 2 {
            self.win.next = (self.f0.q.val() << 16) | (self.pbuf.read_data.val() >> 16);
        }
        if self.sh.q.val() == 3 {
            self.win.next = (self.f0.q.val() << 24) | (self.pbuf.read_data.val() >> 8);
        }

        // ---- The beat on the ULPDU stream.
        // `seg_rem <= 2` / `<= 4` without a carry chain (on the ready -> pop -> read path).
        self.rem_hi0.next = !self.rem_big.q.val();
        self.rem_lo.next = self.seg_rem.q.val().get_bits::<3>(0);
        self.rem_le2.next = self.rem_hi0.val()
            && ((self.rem_lo.val() == 0) || (self.rem_lo.val() == 1) || (self.rem_lo.val() == 2));
        // (`inpay` and `p0` are set only for a message that is not a Read Request, and are
        // cleared at every segment's start.)
        self.kind_p0.next = self.p0.q.val();
        self.kind_pay.next = self.inpay.q.val();
        // Header halves of beat `hb` (tagged / untagged / Read Request body), as an AND-OR
        // of the fields with one select (mask) per field and half: the beats a field appears
        // in (tagged, untagged, Read Request body) share its select, and a Read Request's
        // source TO (`msg_to`) is in `to_hi` / `to_lo` like a tagged message's TO (its MO is
        // the constant 0); its sink STag / TO are `msg_inv_stag` / `msg_src_to`, a Send with
        // Invalidate's STag is `msg_stag` (`docs/core.md` "The message job").
        // (A priority chain on `hb` cost about 570 LUT4.)
        self.h_t.next = self.k_tagged.q.val();
        self.h_r.next = self.k_rreq.q.val();
        self.h_u.next = !self.k_tagged.q.val() && !self.k_rreq.q.val();
        self.h0.next = self.hb.q.val().get_bit(0);
        self.h1.next = self.hb.q.val().get_bit(1);
        self.h2.next = self.hb.q.val().get_bit(2);
        self.h3.next = self.hb.q.val().get_bit(3);
        self.h4.next = self.hb.q.val().get_bit(4);
        self.h5.next = self.hb.q.val().get_bit(5);
        self.h6.next = self.hb.q.val().get_bit(6);
        self.h7.next = self.hb.q.val().get_bit(7);
        self.h8.next = self.hb.q.val().get_bit(8);
        self.h9.next = self.hb.q.val().get_bit(9);
        self.h10.next = self.hb.q.val().get_bit(10);
        self.h11.next = self.hb.q.val().get_bit(11);
        if self.tk1.q.val() {
            self.m_stag.d.next = self.msg_stag.val();
        }
        // `to_hi`: loaded at `tk2`, else incremented where `to_lo` carries out (see its doc).
        self.tk2_ones.next = 0.into();
        if self.tk2.q.val() {
            self.tk2_ones.next = 0xFFFF_FFFFu64.into();
        }
        self.to_hi.d.next = self.to_hi.q.val()
            + self.tk2_ones.val()
            + bit_cast::<32, 1>((self.ss_e.q.val() && self.c_nx.q.val()).into());
        if self.tk2.q.val() {
            self.to_hi.d.next = self.msg_to.val().get_bits::<32>(32);
        }
        // QN of a Read Request (1, untagged beat 2).
        self.h_qn.next = self.h_r.val() && self.h2.val();
        self.m_ctrl.next = 0.into();
        if self.h0.val() {
            self.m_ctrl.next = 0xFFFF.into();
        }
        self.m_stag_lo.next = 0.into();
        if (self.h_t.val() && self.h1.val())
            || (self.h_u.val() && self.h1.val() && self.inv_op.val())
            || (self.h_r.val() && self.h9.val())
        {
            self.m_stag_lo.next = 0xFFFF.into();
        }
        self.m_tohi_lo.next = 0.into();
        if (self.h_t.val() && self.h2.val()) || (self.h_r.val() && self.h10.val()) {
            self.m_tohi_lo.next = 0xFFFF.into();
        }
        self.m_tolo_lo.next = 0.into();
        if self.kind_p0.val() || (self.h_r.val() && self.h11.val()) {
            self.m_tolo_lo.next = 0xFFFF.into();
        }
        self.m_inv_lo.next = 0.into();
        if self.h_r.val() && self.h5.val() {
            self.m_inv_lo.next = 0xFFFF.into();
        }
        self.m_msn_lo.next = 0.into();
        if !self.h_t.val() && self.h3.val() {
            self.m_msn_lo.next = 0xFFFF.into();
        }
        self.m_len_lo.next = 0.into();
        if self.h_r.val() && self.h8.val() {
            self.m_len_lo.next = 0xFFFF.into();
        }
        self.m_src_a.next = 0.into();
        if self.h_r.val() && self.h6.val() {
            self.m_src_a.next = 0xFFFF.into();
        }
        self.m_src_b.next = 0.into();
        if self.h_r.val() && self.h7.val() {
            self.m_src_b.next = 0xFFFF.into();
        }
        self.m_stag_hi.next = 0.into();
        if (self.h_t.val() && self.h0.val())
            || (self.h_u.val() && self.h0.val() && self.inv_op.val())
            || (self.h_r.val() && self.h8.val())
        {
            self.m_stag_hi.next = 0xFFFF.into();
        }
        self.m_tohi_hi.next = 0.into();
        if (self.h_t.val() && self.h1.val()) || (self.h_r.val() && self.h9.val()) {
            self.m_tohi_hi.next = 0xFFFF.into();
        }
        self.m_tolo_hi.next = 0.into();
        if (self.h_t.val() && self.h2.val())
            || (self.h_u.val() && self.h3.val())
            || (self.h_r.val() && self.h10.val())
        {
            self.m_tolo_hi.next = 0xFFFF.into();
        }
        self.m_inv_hi.next = 0.into();
        if self.h_r.val() && self.h4.val() {
            self.m_inv_hi.next = 0xFFFF.into();
        }
        self.m_msn_hi.next = 0.into();
        if !self.h_t.val() && self.h2.val() {
            self.m_msn_hi.next = 0xFFFF.into();
        }
        self.m_len_hi.next = 0.into();
        if self.h_r.val() && self.h7.val() {
            self.m_len_hi.next = 0xFFFF.into();
        }
        self.m_src_c.next = 0.into();
        if self.h_r.val() && self.h5.val() {
            self.m_src_c.next = 0xFFFF.into();
        }
        self.m_win_hi.next = 0.into();
        if self.kind_pay.val() {
            self.m_win_hi.next = 0xFFFF.into();
        }
        self.m_win_lo.next = 0.into();
        if self.kind_p0.val() || self.kind_pay.val() {
            self.m_win_lo.next = 0xFFFF.into();
        }
        self.hdr_hi.next = (self.ctrl16.val() & self.m_ctrl.val())
            | (self.m_stag.q.val().get_bits::<16>(0) & self.m_stag_lo.val())
            | (self.to_hi.q.val().get_bits::<16>(0) & self.m_tohi_lo.val())
            | (self.to_lo.q.val().get_bits::<16>(0) & self.m_tolo_lo.val())
            | (self.msg_inv_stag.val().get_bits::<16>(0) & self.m_inv_lo.val())
            | (self.msg_msn.val().get_bits::<16>(0) & self.m_msn_lo.val())
            | (self.msg_len.val().get_bits::<16>(0) & self.m_len_lo.val())
            | (self.msg_src_to.val().get_bits::<16>(32) & self.m_src_a.val())
            | (self.msg_src_to.val().get_bits::<16>(0) & self.m_src_b.val())
            | (self.win.val().get_bits::<16>(16) & self.m_win_hi.val())
            | bit_cast::<16, 1>(self.h_qn.val().into());
        self.hdr_lo.next = (self.m_stag.q.val().get_bits::<16>(16) & self.m_stag_hi.val())
            | (self.to_hi.q.val().get_bits::<16>(16) & self.m_tohi_hi.val())
            | (self.to_lo.q.val().get_bits::<16>(16) & self.m_tolo_hi.val())
            | (self.msg_inv_stag.val().get_bits::<16>(16) & self.m_inv_hi.val())
            | (self.msg_msn.val().get_bits::<16>(16) & self.m_msn_hi.val())
            | (self.msg_len.val().get_bits::<16>(16) & self.m_len_hi.val())
            | (self.msg_src_to.val().get_bits::<16>(48) & self.m_src_c.val())
            | (self.msg_src_to.val().get_bits::<16>(16) & self.m_src_a.val())
            | (self.win.val().get_bits::<16>(0) & self.m_win_lo.val());
        self.b_data.next =
            (bit_cast::<32, 16>(self.hdr_hi.val()) << 16) | bit_cast::<32, 16>(self.hdr_lo.val());
        self.b_keep.next = 0xF.into();
        // `bl` / `nw`: the kind's decodes of `seg_rem` (`rem_le2`, `rem_le4`, `== 0`) kept in
        // flip-flops, so that `fire` and `start_seg` are a few LUTs from registers.
        self.b_last.next = self.bl.q.val();
        self.b_valid.next = (self.state.q.val() == DdpTxState::Emit)
            && (!self.nw.q.val() || self.v0.q.val())
            && (!self.nwr.q.val() || self.rv.q.val());
        if self.rr_end.q.val() {
            self.b_keep.next = 0xC.into();
        } else if self.kind_p0.val() {
            if self.rem_hi0.val() && (self.rem_lo.val() == 0) {
                self.b_keep.next = 0xC.into();
            } else if self.rem_hi0.val() && (self.rem_lo.val() == 1) {
                self.b_keep.next = 0xE.into();
            }
        } else if self.kind_pay.val() {
            if self.rem_hi0.val() && (self.rem_lo.val() == 3) {
                self.b_keep.next = 0xE.into();
            }
            if self.rem_hi0.val() && (self.rem_lo.val() == 2) {
                self.b_keep.next = 0xC.into();
            }
            if self.rem_hi0.val() && (self.rem_lo.val() == 1) {
                self.b_keep.next = 0x8.into();
            }
        }
        // The beat enters the output stage when the skid register is empty (registered: no
        // path from `ulpdu_ready` to the FIFO and the segmenter).
        self.fire.next = self.b_valid.val() && !self.s_valid.q.val();
        self.pop.next = self.pop_k.q.val() && self.fire.val();
        self.fin.next = self.fire.val() && self.b_last.val() && self.seg_last.q.val();

        // ---- Output stage: a 2-entry skid buffer; `ulpdu_ready` only loads its registers.
        self.ulpdu_data.next = self.o_data.q.val();
        self.ulpdu_keep.next = self.o_keep.q.val();
        self.ulpdu_last.next = self.o_last.q.val();
        self.ulpdu_valid.next = self.o_valid.q.val();
        self.ulpdu_conn.next = self.o_conn.q.val();
        // `ulpdu_len` is read with a packet's first beat only (MpaTx's contract): `ulen`, loaded
        // at the segment's start (its first beat is made a cycle later at the soonest), changes
        // only at the next segment's start, 4 beats later at least, while at most one more beat
        // (into `s_*`) can be made while the first beat waits in `o_*`. (No `o_len` copy: 16
        // flip-flops fed by a flip-flop, each alone in a logic cell.)
        self.ulpdu_len.next = self.ulen.q.val();
        self.out_free.next = !self.o_valid.q.val() || self.ulpdu_ready.val();
        if self.out_free.val() {
            if self.s_valid.q.val() {
                self.o_valid.d.next = true;
                self.o_data.d.next = self.s_data.q.val();
                self.o_keep.d.next = self.s_keep.q.val();
                self.o_last.d.next = self.s_last.q.val();
                self.s_valid.d.next = false;
            } else {
                self.o_valid.d.next = self.fire.val();
                self.o_data.d.next = self.b_data.val();
                self.o_keep.d.next = self.b_keep.val();
                self.o_last.d.next = self.b_last.val();
            }
            // The skid entry's connection is not stored: the message does not change while a
            // beat of it is in the stage.
            self.o_conn.d.next = self.msg_conn.val();
        } else if self.fire.val() {
            self.s_valid.d.next = true;
        }
        // The skid entry takes every beat made (it is empty then: `fire` needs `!s_valid`);
        // it counts only when the output register could not take the beat (`s_valid`). So its
        // 37 enables are `fire`, from registers, not `ulpdu_ready` (timing, composed).
        if self.fire.val() {
            self.s_data.d.next = self.b_data.val();
            self.s_keep.d.next = self.b_keep.val();
            self.s_last.d.next = self.b_last.val();
        }
        // The message is done when its final beat leaves the output stage: in `Drain` (the
        // final beat has entered the stage) a last beat in `o_*` is the final one (the beat
        // before it is of the same segment, segments being 4 beats at least).
        // `msg_done` / `msg_ready` are that cycle's flag registered (`done_q`): the strobe does
        // not carry MpaTx's `ulpdu_ready` through the arbiter into the sources' enables. The
        // block stays in `Drain` for that cycle (one cycle per message).
        self.done_q.d.next = self.o_valid.q.val()
            && self.ulpdu_ready.val()
            && self.o_last.q.val()
            && (self.state.q.val() == DdpTxState::Drain);
        self.msg_done.next = self.done_q.q.val();
        self.msg_ready.next = self.done_q.q.val();
        self.idle.next = (self.state.q.val() == DdpTxState::Idle) && !self.ra.q.val();

        // ---- Segment bookkeeping.
        self.fit_sum.next = bit_cast::<17, 16>(self.maxpay.q.val())
            + bit_cast::<17, 16>(self.msg_rem_n.q.val().get_bits::<16>(0))
            + 1;
        self.seg_fits.next = ((self.msg_rem_n.q.val() | self.c_lo16.val()) == self.c_ones.val())
            && self.fit_sum.val().get_bit(16);
        // Registered (the compare and the subtraction below in separate cycles): `msg_rem`
        // changes at most once per segment, segments are at least 4 beats long, and the
        // first segment waits one cycle in `Seg`.
        self.fits_r.d.next = self.seg_fits.val();
        self.seg_take.next = self.maxpay.q.val();
        if self.fits_r.q.val() {
            self.seg_take.next = !self.msg_rem_n.q.val().get_bits::<16>(0);
        }
        if self.state.q.val() == DdpTxState::Seg {
            self.seg_wait.d.next = false;
        }
        self.seg_go.next = (self.state.q.val() == DdpTxState::Seg) && !self.seg_wait.q.val();
        self.seg_end.next = self.b_last.val() && !self.seg_last.q.val();
        self.start_seg.next = self.seg_go.val() || (self.fire.val() && self.seg_end.val());
        self.rem_sub.next = self.sr.q.val();
        // The next beat is `k_pstart` (3 tagged, 4 untagged) / 11.
        self.p0n.next = !self.k_rreq.q.val()
            && ((self.k_tagged.q.val() && self.hb.q.val().get_bit(2))
                || (!self.k_tagged.q.val() && self.hb.q.val().get_bit(3)));
        self.rrn.next = self.k_rreq.q.val() && self.hb.q.val().get_bit(10);
        self.rs_big.next = self.rem_sub.val().get_bits::<13>(3) != 0;
        self.bl_n.next = !self.rs_big.val()
            && (self.rem_sub.val().get_bits::<3>(0) != 5)
            && (self.rem_sub.val().get_bits::<3>(0) != 6)
            && (self.rem_sub.val().get_bits::<3>(0) != 7);
        if self.fire.val() {
            // `bl` / `nw` for the next beat. `seg_rem` is stable from a segment's beat 2 on
            // (loaded in `ss_r`, while beat 1 is the kind; no decode of it before beat 3), and
            // a payload beat's next `seg_rem` is `rem_sub`; where the beat ends its segment
            // (`rem_sub` negative) the next beat is a new segment's (cleared at `start_seg`)
            // or none (`Drain`).
            self.hb.d.next = self.hb.q.val() << 1;
            if !(self.kind_p0.val() || self.kind_pay.val()) {
                self.p0.d.next = self.p0n.val();
                self.rr_end.d.next = self.rrn.val();
                self.bl.d.next = self.rrn.val() || (self.p0n.val() && self.rem_le2.val());
                self.nw.d.next =
                    self.p0n.val() && !(self.rem_hi0.val() && (self.rem_lo.val() == 0));
                self.nwr.d.next = self.p0n.val()
                    && !(self.rem_hi0.val() && (self.rem_lo.val() == 0))
                    && (self.sh.q.val() != 0);
                self.pop_k.d.next =
                    self.p0n.val() && !(self.rem_hi0.val() && (self.rem_lo.val() == 0));
            }
            if self.kind_p0.val() {
                self.inpay.d.next = true;
                self.p0.d.next = false;
            }
            if self.kind_p0.val() || self.kind_pay.val() {
                self.sr.d.next = self.sr.q.val() - 4;
                self.seg_rem.d.next = self.rem_sub.val();
                self.rem_big.d.next = self.rs_big.val();
                self.bl.d.next = self.bl_n.val();
                self.nw.d.next = true;
                self.nwr.d.next = self.sh.q.val() != 0;
                // A non-final segment's last beat leaves the window for the next segment.
                self.pop_k.d.next = !self.bl_n.val() || self.seg_last.q.val();
            }
            if self.fin.val() {
                self.state.d.next = DdpTxState::Drain;
            }
        }
        // A segment's start (see `seg_go`, `seg_end`): under `fire || seg_go`, so that this
        // and the beat's updates above share one enable.
        if (self.fire.val() || self.seg_go.val()) && (self.seg_go.val() || self.seg_end.val()) {
            self.hb.d.next = 1.into();
            self.inpay.d.next = false;
            self.p0.d.next = false;
            self.rr_end.d.next = false;
            self.bl.d.next = false;
            self.nw.d.next = false;
            self.nwr.d.next = false;
            self.pop_k.d.next = false;
        }
        // A segment's start: its last flag, ULPDU length and first header beat (its payload
        // length, the TO and `msg_rem` follow a cycle later, below).
        if self.start_seg.val() {
            self.seg_last.d.next = self.fits_r.q.val();
            self.ulen.d.next = self.hlen.val() + self.seg_take.val();
            if self.k_rreq.q.val() {
                self.ulen.d.next = 46.into();
            }
            self.state.d.next = DdpTxState::Emit;
        }
        // The wide per-segment updates one cycle after the segment's start (`ss_r`, `ss_e`:
        // off the beat -> `start_seg` path, and fewer enables on it): `to_lo` / `to_hi` are
        // read from the segment's beat 1 on (two cycles after its start), `msg_rem` (through
        // `fits_r`) at the next segment's start, at least 4 beats later.
        self.ss_r.d.next = self.start_seg.val();
        self.ss_e.d.next = self.start_seg.val() && (self.state.q.val() == DdpTxState::Emit);
        if self.ss_r.q.val() {
            // The segment's payload length: first used at its first payload beat (beat 3 at
            // the soonest), `seg_take` unchanged since the start (`msg_rem` changes below).
            self.seg_rem.d.next = self.seg_take.val();
            self.sr.d.next = self.seg_take.val() - 2;
            self.rem_big.d.next = self.seg_take.val().get_bits::<13>(3) != 0;
            // (After the last segment `msg_rem` is not used: it need not reach 0.)
            self.msg_rem_n.d.next =
                self.msg_rem_n.q.val() + bit_cast::<LOCAL_LEN_BITS, 16>(self.maxpay.q.val());
        }
        self.to_sum.next =
            bit_cast::<33, 32>(self.to_lo.q.val()) + bit_cast::<33, 16>(self.maxpay.q.val());
        self.c_nx.d.next = self.to_sum.val().get_bit(32);
        if self.ss_e.q.val() {
            self.to_lo.d.next = self.to_sum.val().get_bits::<32>(0);
        }

        // ---- Requester: one request per 256-octet host block, 8 blocks ahead at most.
        // The request length is registered (`rq_lenr`, valid when `rq_ok`): computed in the
        // cycle after the previous request, offered from the next one.
        // (`128 - offset`, the offset kept inverted in `rq_addr`.)
        self.room.next =
            bit_cast::<8, TX_BLK_OCT_BITS>(self.rq_addr.q.val().get_bits::<TX_BLK_OCT_BITS>(0)) + 1;
        // (A request is one block at most: 8 bits of length.)
        self.rq_len.next = self.room.val();
        self.rq_fin.d.next = false;
        self.fit_rq.next = bit_cast::<9, 8>(self.room.val())
            + bit_cast::<9, 8>(self.rq_left_n.q.val().get_bits::<8>(0))
            + 1;
        if ((self.rq_left_n.q.val() | self.c_lo8.val()) == self.c_ones.val())
            && self.fit_rq.val().get_bit(8)
        {
            self.rq_len.next = !self.rq_left_n.q.val().get_bits::<8>(0);
            self.rq_fin.d.next = true;
        }
        self.rq_lenr.d.next = self.rq_len.val();
        // `rq_ok` also registers "octets left" and "the block's slot is free": a request
        // leaves `rq_ok` 0 in the next cycle, so they are fresh when used, and a slot is only
        // freed otherwise (stale towards "busy"). Keeps the `pay_rd_req_ready` -> enables path
        // short. (Within one region the slots are consecutive, so this is "fewer than 8 blocks
        // ahead of the reader"; a read-ahead region starts anywhere.)
        self.rq_busy.next = self.busy_v.val().get_bit(self.rq_tag.q.val().index());
        // Pacing: a request is offered no sooner than the completion port can have returned
        // the previous one (one beat per cycle), so that completions of a burst of requests
        // (a message's start) do not come back out of order and leave the reader waiting.
        if self.rq_gap.q.val().any() {
            self.rq_gap.d.next = self.rq_gap.q.val() - 1;
        }
        self.rq_a.next = self.rq_addr.q.val() ^ self.c_lo.val();
        self.pay_rd_req_addr.next = self.rq_a.val();
        self.pay_rd_req_len.next = bit_cast::<DMA_LEN_BITS, 8>(self.rq_lenr.q.val());
        self.pay_rd_req_tag.next = self.rq_tag.q.val();
        // No request in a flush (it waits for the read-ahead's completions) nor for a
        // cancelled read-ahead between messages (freed in `Idle`). The gate `rq_g` is in
        // `rq_ok` (`pay_rd_req_valid` is a register): `rq_ok` is cleared where the gate falls
        // (below: a flush starts, the hint falls in `Idle`, `Drain` ends without a live
        // read-ahead), and where it rises `rq_ok` is 0 anyway (a take, a read-ahead's start
        // with `rq_left` = 0, a flush's end).
        self.rq_g.next = ((self.state.q.val() != DdpTxState::Idle) && !self.fl.q.val())
            || (self.ra.q.val() && !self.ra_stale.q.val());
        self.rq_ok.d.next = self.rq_g.val()
            && (self.rq_left_n.q.val() != self.c_ones.val())
            && !self.rq_busy.val()
            && !self.rq_gap.q.val().any();
        if (self.state.q.val() == DdpTxState::Drain)
            && self.msg_done.val()
            && !(self.ra.q.val() && !self.ra_stale.q.val() && self.nxt_valid.val())
        {
            self.rq_ok.d.next = false;
        }
        self.pay_rd_req_valid.next = self.rq_ok.q.val();
        // The handshake loads `rq_ok` (0 next) and `rq_fq` only; the request's bookkeeping is
        // done in the next cycle (`rq_fq`), from the port's registers, which hold the request
        // until then (`rq_addr`, `rq_left_n`, `rq_tag`, `rq_lenr`, `rq_fin`: nothing else
        // loads them in a cycle a request is offered). `rq_ok` stays 0 in that cycle too (its
        // inputs are not updated yet): a request every 3 cycles at most (the pacing below
        // spaces full blocks by 32 anyway).
        self.rq_fire.next = self.rq_ok.q.val() && self.pay_rd_req_ready.val();
        self.rq_fq.d.next = self.rq_fire.val();
        if self.rq_fire.val() || self.rq_fq.q.val() {
            self.rq_ok.d.next = false;
        }
        // The slot's write pointer and `done` are loaded while its request is offered (from
        // registers: the slot is free, no completion of it is due), so that a completion
        // the cycle after the handshake finds them.
        if self.rq_ok.q.val() {
            for i in 0..TX_BLOCKS {
                if self.rq_tag.q.val().index() == i {
                    self.done[i].d.next = false;
                    self.wptr[i].d.next = self.rq_a.val().get_bits::<TX_BLK_WORD_BITS>(2);
                }
            }
        }
        if self.rq_fq.q.val() {
            self.rq_tag.d.next = self.rq_tag.q.val() + 1;
            // A request ends at its block's end unless it is the region's last (then `rq_addr`
            // is not used again before it is loaded): the next block, an incrementer.
            self.a_src.next = 1.into();
            self.a_en.next = true;
            self.l_src.next = 1.into();
            self.l_en.next = true;
            self.rq_cnt.d.next = self.rq_cnt.q.val() + 1;
            self.last_slot.d.next = self.rq_tag.q.val();
            // Beats of the request (one DW-aligned beat per 4 octets, about) less the 3
            // cycles a request takes anyway (the handshake, `rq_fq`, `rq_ok`'s update).
            self.rq_gap.d.next = 0.into();
            // (`> 2` as zero tests: a compare is a carry chain with an inverter LUT per bit.)
            if (self.rq_lenr.q.val().get_bits::<4>(4) != 0)
                || (self.rq_lenr.q.val().get_bits::<2>(2) == 3)
            {
                self.rq_gap.d.next = self.rq_lenr.q.val().get_bits::<6>(2) - 3;
            }
            for i in 0..TX_BLOCKS {
                if self.rq_tag.q.val().index() == i {
                    self.busy[i].d.next = true;
                    self.lastblk[i].d.next = self.rq_fin.q.val();
                }
            }
        }

        // ---- Completions into the buffer.
        self.cpl_wptr.next = bit_cast::<TX_BLK_WORD_BITS, 1>(
            self.wp_v0
                .val()
                .get_bit(self.pay_rd_cpl_tag.val().index())
                .into(),
        ) | (bit_cast::<TX_BLK_WORD_BITS, 1>(
            self.wp_v1
                .val()
                .get_bit(self.pay_rd_cpl_tag.val().index())
                .into(),
        ) << 1)
            | (bit_cast::<TX_BLK_WORD_BITS, 1>(
                self.wp_v2
                    .val()
                    .get_bit(self.pay_rd_cpl_tag.val().index())
                    .into(),
            ) << 2)
            | (bit_cast::<TX_BLK_WORD_BITS, 1>(
                self.wp_v3
                    .val()
                    .get_bit(self.pay_rd_cpl_tag.val().index())
                    .into(),
            ) << 3)
            | (bit_cast::<TX_BLK_WORD_BITS, 1>(
                self.wp_v4
                    .val()
                    .get_bit(self.pay_rd_cpl_tag.val().index())
                    .into(),
            ) << 4);
        self.pbuf.write_enable.next = self.pay_rd_cpl_valid.val();
        self.pbuf.write_address.next =
            (bit_cast::<TX_BUF_BITS, DMA_SUB_TAG_BITS>(self.pay_rd_cpl_tag.val())
                << self.c_shift.val())
                | bit_cast::<TX_BUF_BITS, TX_BLK_WORD_BITS>(self.cpl_wptr.val());
        self.pbuf.write_data.next = self.pay_rd_cpl_data.val();
        self.cpl_wp1.next = self.cpl_wptr.val() + 1;
        if self.pay_rd_cpl_valid.val() {
            for i in 0..TX_BLOCKS {
                if self.pay_rd_cpl_tag.val().index() == i {
                    self.wptr[i].d.next = self.cpl_wp1.val();
                    if self.pay_rd_cpl_last.val() {
                        self.done[i].d.next = true;
                    }
                }
            }
        }

        // ---- Reader: buffer words in host order into the 3-word FIFO.
        self.in_msg.next = !self.pre.q.val() && !self.m_end.q.val();
        self.rptr_blk.next = self.rptr.q.val() >> self.c_shift.val();
        self.rb.next = self.rptr_blk.val().get_bits::<DMA_SUB_TAG_BITS>(0);
        self.blk_done.next = self.done_v.val().get_bit(self.rb.val().index());
        self.blk_last.next = self.last_v.val().get_bit(self.rb.val().index());
        self.blk_wptr.next =
            bit_cast::<TX_BLK_WORD_BITS, 1>(self.wp_v0.val().get_bit(self.rb.val().index()).into())
                | (bit_cast::<TX_BLK_WORD_BITS, 1>(
                    self.wp_v1.val().get_bit(self.rb.val().index()).into(),
                ) << 1)
                | (bit_cast::<TX_BLK_WORD_BITS, 1>(
                    self.wp_v2.val().get_bit(self.rb.val().index()).into(),
                ) << 2)
                | (bit_cast::<TX_BLK_WORD_BITS, 1>(
                    self.wp_v3.val().get_bit(self.rb.val().index()).into(),
                ) << 3)
                | (bit_cast::<TX_BLK_WORD_BITS, 1>(
                    self.wp_v4.val().get_bit(self.rb.val().index()).into(),
                ) << 4);
        // The message's last word: in the region's last block, at `end_w` (the reader is in
        // a block only once it is requested, and a slot's flag is that of its current lap).
        self.w_last.next = self.blk_last.val()
            && (self.rptr.q.val().get_bits::<TX_BLK_WORD_BITS>(0) == self.end_w.q.val());
        // A word of the block is there once its completion beat was written: the block is
        // complete, or the block's write pointer has passed the word.
        // As `wr0_p || (c_ne0 && lt0)`, like `word_ready1` below.
        self.c_ne0.next = self.rq_cnt.q.val() != self.rd_cnt.q.val();
        self.wr0_p.next = !self.in_msg.val() || (self.c_ne0.val() && self.blk_done.val());
        self.lt0.next = self.rptr.q.val().get_bits::<TX_BLK_WORD_BITS>(0) < self.blk_wptr.val();
        self.word_ready.next = self.wr0_p.val() || (self.c_ne0.val() && self.lt0.val());
        // The same for the word after it, the reader's state after an issue of this word.
        self.inside1.next = !self.m_end.q.val();
        self.rd_cnt1.next = self.rd_cnt.q.val();
        if self.in_msg.val() {
            self.inside1.next = !self.w_last.val();
            if (self.rptr.q.val().get_bits::<TX_BLK_WORD_BITS>(0) == self.c_last.val())
                || self.w_last.val()
            {
                self.rd_cnt1.next = self.rd_cnt.q.val() + 1;
            }
        }
        self.rptr1_blk.next = self.rptr1.q.val() >> self.c_shift.val();
        self.rb1.next = self.rptr1_blk.val().get_bits::<DMA_SUB_TAG_BITS>(0);
        self.blk_done1.next = self.done_v.val().get_bit(self.rb1.val().index());
        self.blk_wptr1.next = bit_cast::<TX_BLK_WORD_BITS, 1>(
            self.wp_v0.val().get_bit(self.rb1.val().index()).into(),
        ) | (bit_cast::<TX_BLK_WORD_BITS, 1>(
            self.wp_v1.val().get_bit(self.rb1.val().index()).into(),
        ) << 1)
            | (bit_cast::<TX_BLK_WORD_BITS, 1>(
                self.wp_v2.val().get_bit(self.rb1.val().index()).into(),
            ) << 2)
            | (bit_cast::<TX_BLK_WORD_BITS, 1>(
                self.wp_v3.val().get_bit(self.rb1.val().index()).into(),
            ) << 3)
            | (bit_cast::<TX_BLK_WORD_BITS, 1>(
                self.wp_v4.val().get_bit(self.rb1.val().index()).into(),
            ) << 4);
        // As `wr_p || (c_ne1 && lt1)`, the compare `lt1` (a carry chain after the slot look-up)
        // last, so that `wr`'s next value is one LUT after it (below; the Fmax path).
        self.c_ne1.next = self.rq_cnt.q.val() != self.rd_cnt1.val();
        self.wr_p.next = !self.inside1.val() || (self.c_ne1.val() && self.blk_done1.val());
        self.lt1.next = self.rptr1.q.val().get_bits::<TX_BLK_WORD_BITS>(0) < self.blk_wptr1.val();
        self.word_ready1.next = self.wr_p.val() || (self.c_ne1.val() && self.lt1.val());
        // Issue on `wr`, the readiness computed in the previous cycle (for this word, or for
        // it as the next word when the previous one was issued): it can only be stale towards
        // "not ready" (`done`, `wptr`, `rq_cnt` only grow while a block is the reader's; a tag
        // is requested again only after the reader left its block), and it keeps the block
        // lookup and the compare off the `rptr` -> `issue` -> `rptr` loop (the Fmax path).
        // When the FIFO is full (`f0` and the read register) the window is there whatever the
        // shift: a pop is `pop_k` and the beat's room (`pop_f`, registers only; the full `pop`
        // through `sh` / the FIFO count -> `win_avail` -> `fire` was the Fmax path, 91.4 MHz).
        self.pop_f.next =
            self.pop_k.q.val() && (self.state.q.val() == DdpTxState::Emit) && !self.s_valid.q.val();
        self.issue.next = (self.state.q.val() != DdpTxState::Idle)
            && self.wr.q.val()
            && (!(self.v0.q.val() && self.rv.q.val()) || self.pop_f.val());
        self.pbuf.read_address.next = self.rptr.q.val();
        self.pbuf.read_enable.next = self.issue.val();
        if self.issue.val() {
            self.rptr.d.next = self.rptr1.q.val();
            self.rptr1.d.next = self.rptr1.q.val() + 1;
            self.pre.d.next = false;
            if self.in_msg.val() {
                if self.w_last.val() {
                    self.m_end.d.next = true;
                }
                if (self.rptr.q.val().get_bits::<TX_BLK_WORD_BITS>(0) == self.c_last.val())
                    || self.w_last.val()
                {
                    self.rd_cnt.d.next = self.rd_cnt.q.val() + 1;
                    // The slot is freed in the next cycle (`bclr`).
                    self.bclr.d.next = true;
                    self.bclr_i.d.next = self.rptr_blk.val().get_bits::<DMA_SUB_TAG_BITS>(0);
                    for i in 0..TX_BLOCKS {
                        if self.rptr_blk.val().get_bits::<DMA_SUB_TAG_BITS>(0).index() == i {
                            self.lastblk[i].d.next = false;
                        }
                    }
                }
            }
        }
        // The FIFO is `f0` and the buffer's read register (the window's second word): the
        // read word moves into `f0` when `f0` is empty or popped (an issue implies that the
        // read register is empty or moves now). (No `f1`: 32 flip-flops loaded from the RAM,
        // each alone in its logic cell.)
        self.push.next = self.rv.q.val() && (!self.v0.q.val() || self.pop.val());
        self.rv.d.next = self.issue.val() || (self.rv.q.val() && !self.push.val());
        if self.push.val() {
            self.f0.d.next = self.pbuf.read_data.val();
        }
        self.v0.d.next = self.push.val() || (self.v0.q.val() && !self.pop.val());

        if (self.state.q.val() == DdpTxState::Drain) && self.msg_done.val() {
            self.state.d.next = DdpTxState::Idle;
        }

        // ---- Read-ahead (see "Read-ahead"). The compare is registered: used in the cycle
        // after a take (`decide`), when `msg_*` are still those of the take.
        self.m_r.d.next = self.nxt_valid.val()
            && self.nxt_shown.val()
            && (self.msg_addr.val() == self.nxt_addr.val())
            && (self.msg_len.val().get_bits::<16>(16) == 0)
            && (self.msg_len.val().get_bits::<16>(0) == self.nxt_len.val());
        self.taking.next = (self.state.q.val() == DdpTxState::Idle) && self.msg_valid.val();
        self.tk1.d.next = self.taking.val();
        self.tk2.d.next = self.tk1.q.val();
        self.pay.next = !self.rreq.val() && (self.msg_len.val() != 0);
        // The message's blocks are in the slots of the region requested last (a read-ahead's,
        // or the message's own, `rq_off` unchanged): the slot offset applies to the reader.
        self.m_endw.next = self.msg_addr.val().get_bits::<TX_BLK_OCT_BITS>(0)
            + self.msg_len.val().get_bits::<TX_BLK_OCT_BITS>(0)
            - 1;
        self.m_slot.next =
            self.msg_addr.val().get_bits::<DMA_SUB_TAG_BITS>(7) + self.rq_off.q.val();
        self.m_wa.next = (bit_cast::<TX_BUF_BITS, DMA_SUB_TAG_BITS>(self.m_slot.val())
            << self.c_shift.val())
            | bit_cast::<TX_BUF_BITS, TX_BLK_WORD_BITS>(
                self.msg_addr.val().get_bits::<TX_BLK_WORD_BITS>(2),
            );
        self.decide.next = (self.state.q.val() == DdpTxState::Seg)
            && self.seg_wait.q.val()
            && self.ra.q.val()
            && !self.fl.q.val();
        self.all_in.next = true;
        for i in 0..TX_BLOCKS {
            if self.busy[i].q.val() && !self.done[i].q.val() {
                self.all_in.next = false;
            }
        }
        self.take_now.next = self.taking.val() && !self.ra.q.val();
        // Start: the requests of the message (if any) are all issued, a hint is there. (Not
        // at a take either: there the take's loads below come last and it keeps `ra` and
        // `rq_off`, so that `taking`, from the arbiter's `msg_valid`, is one OR term of the
        // `rq_addr` / `rq_left_n` enables, not under the start's AND: tx_path's Fmax path.)
        self.ra_start.next = !self.ra.q.val()
            && self.nxt_valid.val()
            && (self.nxt_len.val() != 0)
            && self.rq_lz.q.val()
            && !self.fl.q.val()
            && !self.take_q.q.val()
            && !self.take_q2.q.val();
        if self.ra_start.val() {
            self.ra.d.next = true;
            self.ra_stale.d.next = false;
            self.rq_off.d.next =
                self.last_slot.q.val() + 1 - self.nxt_addr.val().get_bits::<DMA_SUB_TAG_BITS>(7);
            self.a_src.next = 2.into();
            self.a_en.next = true;
            self.rq_tag.d.next = self.last_slot.q.val() + 1;
            self.l_src.next = 2.into();
            self.l_en.next = true;
        }
        // The hint fell (not at a take, whose message may be the hinted one): stop
        // requesting; the region is cancelled at the next chance and never used.
        if self.ra.q.val()
            && !self.nxt_valid.val()
            && !self.taking.val()
            && !self.decide.val()
            && !self.fl.q.val()
        {
            self.ra_stale.d.next = true;
            self.l_src.next = 4.into();
            self.l_en.next = true;
            if self.state.q.val() == DdpTxState::Idle {
                self.rq_ok.d.next = false;
            }
        }
        // The cycle after a take with a read-ahead: a message without payload leaves it alone;
        // the hinted message continues it (its blocks are now the message's); any other
        // message cancels it.
        self.fell.d.next = self.taking.val() && !self.nxt_valid.val();
        if self.decide.val() {
            if !self.k_pay.q.val() {
                // The hint may not fall across the take of another message either.
                if self.fell.q.val() || !self.nxt_valid.val() {
                    self.ra_stale.d.next = true;
                    self.l_src.next = 4.into();
                    self.l_en.next = true;
                }
                self.take_now.next = true;
            } else if self.m_r.q.val() && !self.ra_stale.q.val() {
                self.ra.d.next = false;
                self.take_now.next = true;
            } else {
                // (No word is read meanwhile: `wr` stays 0, the slots hold the region's data.)
                self.fl.d.next = true;
                self.rq_ok.d.next = false;
                self.seg_wait.d.next = true;
            }
        }
        if self.fl.q.val() {
            self.seg_wait.d.next = true;
        }
        // Cancel: once every completion of the region is in, free its slots (every busy slot
        // is the region's: no message is being read), in a flush or between messages.
        self.all_in_r.d.next = self.all_in.val() && !self.rq_fire.val() && !self.rq_fq.q.val();
        // (Not while a request is offered: its bookkeeping, a cycle after its handshake,
        // would land on the message's loads below.)
        if self.all_in_r.q.val()
            && !self.rq_ok.q.val()
            && (self.fl.q.val()
                || ((self.state.q.val() == DdpTxState::Idle)
                    && !self.msg_valid.val()
                    && self.ra.q.val()
                    && self.ra_stale.q.val()))
        {
            for i in 0..TX_BLOCKS {
                self.busy[i].d.next = false;
                self.lastblk[i].d.next = false;
            }
            self.rd_cnt.d.next = self.rq_cnt.q.val();
            self.ra.d.next = false;
            self.ra_stale.d.next = false;
        }
        self.fl_end.next = self.all_in_r.q.val() && !self.rq_ok.q.val() && self.fl.q.val();
        if self.fl_end.val() {
            self.a_src.next = 3.into();
            self.a_en.next = true;
            self.rq_tag.d.next = self.m_slot.val();
            self.l_src.next = 3.into();
            self.l_en.next = true;
            // `rq_ok` / `rq_lenr` were computed for the region's address: recompute.
            self.rq_ok.d.next = false;
            self.fl.d.next = false;
            self.seg_wait.d.next = false;
            self.take_now.next = true;
        }

        self.take_q.d.next = self.take_now.val();
        self.take_q2.d.next = self.take_q.q.val();
        self.msg_take.next = self.take_q.q.val();

        // ---- Taking a message: latch what changes per segment, reset the payload path.
        if self.taking.val() {
            self.state.d.next = DdpTxState::Seg;
            self.seg_wait.d.next = true;
            self.k_tagged.d.next = self.is_tagged.val();
            self.k_rreq.d.next = self.rreq.val();
            self.rq_ok.d.next = false;
            self.maxpay.d.next = (self.mul_sel.val() - self.hlen.val()) & 0xFFFC;
            // A Read Request's source TO (`msg_to`) goes out of `to_hi` / `to_lo` (its MO
            // is 0).
            self.to_lo.d.next = 0.into();
            if self.is_tagged.val() || self.rreq.val() {
                self.to_lo.d.next = self.msg_to.val().get_bits::<32>(0);
            }
            self.seg_last.d.next = false;
            if !self.ra.q.val() {
                self.a_src.next = 3.into();
                self.a_en.next = true;
                self.rq_tag.d.next = self.m_slot.val();
                // (A read-ahead's start in this cycle is undone.)
                self.ra.d.next = false;
                self.rq_off.d.next = self.rq_off.q.val();
            }
            self.k_pay.d.next = self.pay.val();
            self.rv.d.next = false;
            self.v0.d.next = false;
            self.sh.d.next = self.msg_addr.val().get_bits::<2>(0) + 2;
            self.pre.d.next = self.msg_addr.val().get_bits::<2>(0) < 2;
            self.rptr.d.next = self.m_wa.val();
            self.rptr1.d.next = self.m_wa.val() + 1;
            if self.msg_addr.val().get_bits::<2>(0) < 2 {
                self.rptr.d.next = self.m_wa.val() - 1;
                self.rptr1.d.next = self.m_wa.val();
            }
            if !self.ra.q.val() {
                self.l_src.next = 3.into();
                self.l_en.next = true;
            }
            if self.rreq.val() {
                self.msg_rem_n.d.next = self.c_ones.val();
                if !self.ra.q.val() {
                    self.l_src.next = 4.into();
                    self.l_en.next = true;
                }
            } else {
                self.msg_rem_n.d.next = !self.msg_len.val().get_bits::<LOCAL_LEN_BITS>(0);
            }
            // No word to read (and no block to release) without payload: the block counts
            // run across messages.
            self.m_end.d.next = !self.pay.val();
            self.end_w.d.next = self.m_endw.val().get_bits::<TX_BLK_WORD_BITS>(2);
        }

        // ---- `wr`: the readiness of the word the reader reads next (`word_ready1` after an
        // issue, else `word_ready`), cleared at a take, in a flush and where the decision after
        // a take starts one (no word is read meanwhile: the slots hold the region's data).
        // One expression, the compares `lt1` / `lt0` in its last LUTs.
        self.wr_clr.next = self.taking.val()
            || self.fl.q.val()
            || (self.decide.val()
                && self.k_pay.q.val()
                && !(self.m_r.q.val() && !self.ra_stale.q.val()));
        self.wr_a.next = self.wr0_p.val();
        self.wr_g.next = self.c_ne0.val();
        self.wr_h.next = self.lt0.val();
        if self.issue.val() {
            self.wr_a.next = self.wr_p.val();
            self.wr_g.next = self.c_ne1.val();
            self.wr_h.next = self.lt1.val();
        }
        self.wr.d.next =
            !self.wr_clr.val() && (self.wr_a.val() || (self.wr_g.val() && self.wr_h.val()));

        // ---- One load of `rq_addr` / `rq_left` (their sources chosen above, later ones
        // first: the take, a flush's end, a cancel to 0, a read-ahead's start, a request):
        // an AND-OR of the sources and an enable, not a chain of multiplexers per bit.
        // (Bits 6..0 are 0 in `rq_inc`, the mask dropping the inverted offset; they are
        // inverted with the AND-OR below.)
        self.rq_inc.next = (self.rq_addr.q.val() + self.c_blk32.val()) & self.c_blkmask.val();
        self.rq_dec_n.next =
            self.rq_left_n.q.val() + bit_cast::<LOCAL_LEN_BITS, 8>(self.rq_lenr.q.val());
        self.a_m1.next = 0.into();
        self.a_m2.next = 0.into();
        self.a_m3.next = 0.into();
        if self.a_src.val() == 1 {
            self.a_m1.next = self.c_aones.val();
        }
        if self.a_src.val() == 2 {
            self.a_m2.next = self.c_aones.val();
        }
        if self.a_src.val() == 3 {
            self.a_m3.next = self.c_aones.val();
        }
        if self.a_en.val() {
            self.rq_addr.d.next = ((self.rq_inc.val() & self.a_m1.val())
                | (self.nxt_addr.val() & self.a_m2.val())
                | (self.msg_addr.val() & self.a_m3.val()))
                ^ self.c_lo.val();
        }
        self.l_m1.next = 0.into();
        self.l_m2.next = 0.into();
        self.l_m3.next = 0.into();
        if self.l_src.val() == 1 {
            self.l_m1.next = self.c_ones.val();
        }
        if self.l_src.val() == 2 {
            self.l_m2.next = 0xFFFF.into();
        }
        if self.l_src.val() == 3 {
            self.l_m3.next = self.c_ones.val();
        }
        self.rq_lz.d.next = (self.rq_left_n.q.val() == self.c_ones.val()) && !self.l_en.val();
        if self.l_en.val() {
            // (The inversions fold into the AND-OR's LUTs.)
            self.rq_left_n.d.next = !((!self.rq_dec_n.val() & self.l_m1.val())
                | (bit_cast::<LOCAL_LEN_BITS, 16>(self.nxt_len.val()) & self.l_m2.val())
                | (self.msg_len.val().get_bits::<LOCAL_LEN_BITS>(0) & self.l_m3.val()));
        }
    }
}

crate::sim_ports!(impl[] DdpTx {
    inputs: qpc_write, qpc_qp, qpc_tx_mulpdu, msg_valid, msg_conn, msg_opcode, msg_stag, msg_to,
        msg_inv_stag, msg_src_to, msg_msn, msg_addr, msg_len, nxt_valid, nxt_addr, nxt_len,
        nxt_shown,
        pay_rd_req_ready, pay_rd_cpl_valid,
        pay_rd_cpl_tag, pay_rd_cpl_data, pay_rd_cpl_keep, pay_rd_cpl_last, ulpdu_ready;
    outputs: msg_ready, msg_done, msg_take, pay_rd_req_valid, pay_rd_req_addr, pay_rd_req_len,
        pay_rd_req_tag, ulpdu_data, ulpdu_keep, ulpdu_last, ulpdu_valid, ulpdu_conn, ulpdu_len,
        idle;
});

/// The payload buffer: 256 words of 32 bits in iCE40 block RAM (2 `SB_RAM40_4K`), one write
/// port (completions) and one read port with a read enable (the reader's issue; the read
/// register holds its word otherwise and is the FIFO's second entry), one clock.
///
/// A leaf with custom Verilog (as [`crate::ram::BlockRam`], which has no read enable): with
/// `no_rw_check` yosys builds no bypass for a read and a write of one word at the same edge
/// (with rust-hdl's `RAM` it registered the write data and address and multiplexed the read
/// data: ~100 logic cells). DdpTx reads a word it uses only after its completion beat was
/// written (`wr` is registered from `wptr` / `done`); the words it reads without waiting
/// (before or after the message) are never used. This model returns a word's complement for
/// a read and a write of it at one edge, so that a used word read so would fail a test.
#[derive(LogicBlock)]
pub struct TxBufRam {
    pub clock: Signal<In, Clock>,
    pub read_enable: Signal<In, Bit>,
    pub read_address: Signal<In, Bits<TX_BUF_BITS>>,
    pub read_data: Signal<Out, Bits<32>>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<TX_BUF_BITS>>,
    pub write_data: Signal<In, Bits<32>>,
    _mem: Vec<Bits<32>>,
}

impl Default for TxBufRam {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            read_enable: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            _mem: vec![Bits::default(); 1 << TX_BUF_BITS],
        }
    }
}

impl Logic for TxBufRam {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let r = self.read_address.val().index();
            let w = self.write_address.val().index();
            let write = self.write_enable.val();
            if self.read_enable.val() {
                self.read_data.next = if write && r == w {
                    !self._mem[r]
                } else {
                    self._mem[r]
                };
            }
            if write {
                self._mem[w] = self.write_data.val();
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let mut v = String::new();
        let _ = writeln!(
            v,
            "(* ram_style = \"block\", no_rw_check *) reg [31:0] words [0:{}];",
            (1usize << TX_BUF_BITS) - 1
        );
        let _ = writeln!(
            v,
            "always @(posedge clock) begin\n   if (write_enable) words[write_address] <= write_data;\n   if (read_enable) read_data <= words[read_address];\nend"
        );
        Verilog::Custom(v)
    }
}
