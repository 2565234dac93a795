//! StagCheck: the STag protection check of DDP placement (`rfc5040-rdmap.md` §5.4, §6.1 items
//! 1-3 and 7, §7.2), pipelined over the [`StagTable`]: one request every 2 cycles, no `ready`,
//! a response exactly [`STAG_CHECK_LATENCY`] cycles after each request. Port list and status
//! semantics: [`crate::ddp`] ("StagCheck", [`check_status`]).
//!
//! # Semantics
//!
//! - index = `chk_stag[31:8]`, key = `chk_stag[7:0]`; an index not below
//!   [`STAG_ENTRIES`](crate::config::STAG_ENTRIES) (bits 31..14 not all zero) is `INVALID_STAG`.
//! - Check order (the first failing check decides): `INVALID_STAG` (index, valid bit, key),
//!   `NOT_ASSOCIATED` (PD, QP binding), `ACCESS` (every right of `chk_access` granted), `WRAP`,
//!   `BOUNDS`, else `OK`. An invalidate request (`chk_invalidate = 1`) runs the first two, then
//!   `NOT_INVALIDATABLE` unless the entry's `remote_inv` flag is set; `chk_access`, `chk_to` and
//!   `chk_len` are ignored for it.
//! - `WRAP` when `TO + len > 2^64` (`TO + len == 2^64` is not a wrap: the last octet is
//!   `2^64 - 1`). `BOUNDS` when `TO < base_to` or `TO + len > base_to + region_len`, in exact
//!   (65-bit) arithmetic. On `OK` of a check, `rsp_host_addr = host_addr + (TO - base_to)`
//!   modulo 2^`DMA_ADDR_BITS` (2^24 in the Alchitry Cu profile); for every other status,
//!   and for an invalidate, `rsp_host_addr` is 0. It holds its value from a response to the
//!   next one (a cancelled request changes nothing): RxControl reads it there after the
//!   response cycle, with no copy.
//! - Lengths of [`LOCAL_LEN_BITS`] (24 on the Alchitry Cu): a `chk_len` of `1 << LOCAL_LEN_BITS`
//!   or more (a Read Request's size from the wire) is `BOUNDS` once the entry checks pass (no
//!   region is that long; it is never `WRAP`, where the exact sum would say so for a TO within
//!   2^32 of 2^64); a region's length is its low `LOCAL_LEN_BITS` (the driver registers none
//!   longer).
//! - The table keeps base_TO\[31:0\] (Cu build, [`StagTable`]): a `prog_write` with
//!   `prog_base_to[63:32] != 0` writes the entry invalid (its STag answers `INVALID_STAG`). The
//!   driver never programs one: it registers a region at its DMA address as base TO, and
//!   refuses a region that ends above 2^32.
//!
//! # Timing: [`STAG_CHECK_LATENCY`] = 5, one request every 2 cycles
//!
//! A request with `chk_valid` high in cycle `t` is answered with `rsp_valid` high in cycle
//! `t + 5`, in request order (the tag is carried through).
//!
//! The table reads an entry over two cycles (word 0 in `t`, word 1 in `t + 1`: the entry is
//! two words of one 4-block-RAM memory instead of one word of 8 block RAMs, see
//! [`StagTable`]), so a request in cycle `t + 1` **cancels** the request of `t`: it takes the
//! read port, and the request of `t` gets no response (`rsp_valid` stays low in `t + 5`) and,
//! for an invalidate, no valid-bit clear. Users: RxControl issues at most one check per job
//! (jobs are 7 or more cycles apart; a Send's second check waits for the first's response), and
//! RxPath issues a send-engine check only when neither RxControl nor anybody issued one in the
//! previous cycle, and confirms it (`lchk_ready`) in the next cycle only if RxControl did not
//! cancel it then (RxControl has no `ready`). With `off = TO - base_to` and
//! `q = region_len - len`, `BOUNDS` is `off` outside `[0, 2^32)` or `off > q` (or `q < 0`).
//! The table keeps `~base_to` and `~region_len` ([`StagTable`]), so that every carry chain takes
//! its operands as they come, with no inverter: `off = TO + ~base_to + 1` (its halves' carry is
//! NOT the borrow), `~q = len + ~region_len` (its halves' carry is the borrow of `q`, its bits
//! `~q`), and `off > q` is the carry of `off + ~q` (issue 5: 448 -> 310 LUT4 for the block, the
//! carries unchanged):
//!
//! ```text
//!  t    S0  read table word 0 (base_TO[15:0], region length[15:0], key, PD, rights, QP,
//!           remote_inv, valid bit); register the request, TO[63:32] as flags (all
//!           ones; TO[32] and TO[63:33] == 0).
//!  t+1  S1  entry compares (key, PD, QP, rights) to flags; 16-bit halves from the RAM:
//!           off[15:0], ~q[15:0] with their carries; TO[31:0] + len (32-bit add, registered).
//!           Read word 1 (base_TO[31:16], region length[31:16], host address).
//!  t+2  S2  status of the entry checks; an invalidate that passes clears the valid bit (a
//!           write of word 0: at the end of this cycle, or up to 2 cycles later). Upper
//!           16-bit halves from the RAM (word 1): off[31:16], ~q[31:16]; host address low
//!           half (16-bit add); WRAP from the registered sum.
//!  t+3  S3  BOUNDS: TO[63:32] (base_to[63:32] is 0) must equal the borrow of off[31:0] (so
//!           that 0 <= off < 2^32): TO[63:33] == 0 and TO[32] == borrow; and off[31:0] <= q
//!           with q >= 0: off[31:L] == 0 and the carry of off[L-1:0] + ~q is 0 (L =
//!           LOCAL_LEN_BITS, 24 on the Cu: q is below 2^L; the low halves still in the S2
//!           registers).
//!  t+4  S4  the status is chosen and registered; host address high half (16-bit add).
//!  t+5      rsp_valid, rsp_tag, rsp_status, rsp_host_addr (registers; rsp_host_addr
//!           holds until the next response).
//! ```
//!
//! A request that is answered has no request in the cycle after it, so the request's S1
//! registers load only with a request and hold it through S2, the S2 registers (`s2_off_l`,
//! `s2_q_l`, `s2_sum`) load only with a request in S1 and hold it through S3, and the S3
//! registers that S4 needs load only with an answered request and hold it through S4: no
//! copies per stage.
//!
//! Timing rules of the iCE40 at 100 MHz (DESIGN.md "Budgets"): no carry chain longer than 17
//! bits starts at a block RAM output (whose clock-to-out is long), no chain is longer than 33
//! bits, and the entry compares are registered before the status and the valid-bit clear use
//! them. The 64-bit WRAP test reduces to `L = LOCAL_LEN_BITS` bits: `TO + len > 2^64` (with
//! `len < 2^L`) iff `TO[63:L]` is all ones and `TO[L-1:0] + len > 2^L`: the (L+1)-bit sum is
//! registered in S1 (its bits share the adder's logic cells) and S2 tests its carry and its low
//! L bits for not 0 (24 + 1 bits on the Cu, 33 before session 19).
//!
//! Measured on the iCE40-HX8K (yosys + nextpnr-ice40 `--freq 100`, the block alone in the
//! `rnic-bsp` synthesis harness): before the two-word table 1169 logic cells, 10 block RAMs,
//! 108 MHz; with it: see `docs/decisions.md` ("StagTable: two words per entry"); without the
//! table's copy of word 0 and with BOUNDS on 33 bits: 961 cells, 111.3 MHz (`docs/decisions.md`,
//! "HostIf, CqeQueue, StagCheck: area"); with the valid bits in the table RAM: see
//! `docs/decisions.md` ("StagCheck: the valid bits in the table RAM"); with the S2 registers
//! held through S3 and WRAP from the registered sum: 614 logic cells (LUT4 / DFF / carry
//! 447 / 310 / 159), 103.2 MHz (`rnic synth --board alchitry-cu --block stag_check`; 732,
//! 502 / 310 / 159, 110.5 MHz before); with `~base_to` / `~region_len` in the table (no
//! inverter in front of a carry): 518 logic cells (310 / 310 / 159), 108.4 MHz.
//!
//! # Programming and invalidation: exact rules (decisions)
//!
//! - `prog_write` in cycle `p` (a `prog_valid = 0` write invalidates the entry) writes the valid
//!   bit and table word 1 at the end of cycle `p`, word 0 at the end of `p + 1`, from the
//!   `prog_*` ports in `p + 1`: the programmer holds `prog_index` and the fields unchanged in
//!   the cycle after `prog_write` (HostIf's staging registers, `docs/core.md`). A request
//!   issued in cycle `t >= p + 2` sees the new entry. A **check** request of the same index
//!   issued in cycle `p - 1`, `p` or `p + 1` (its entry changes while the pipeline reads it:
//!   word 0 is read in cycle `t`, word 1 in `t + 1`) is answered `INVALID_STAG`, and so is an
//!   **invalidate** request issued in cycle `p` or `p + 1` (it reads only word 0); earlier
//!   requests see the old entry. This is the brief's "takes effect for requests issued 2 or
//!   more cycles later"; the in-flight refusal is a fail-safe that costs three 6-bit
//!   comparators instead of a delay line on the write side, and it refuses nothing legitimate
//!   in practice: the firmware reprograms an entry only while it is invalid, or to invalidate
//!   it.
//! - An invalidate request issued in cycle `t` that answers `OK` clears the entry's valid bit
//!   (in word 0 of the table RAM) with a write of word 0 that is due in cycle `t + 2` and is
//!   done at the end of `t + 2`, `t + 3` or `t + 4` (the table's write port, shared with
//!   programming: [`StagTable`] "Writes"); every request issued in cycle `t + 1` or later sees
//!   the STag invalid (`INVALID_STAG`; a request whose word 0 is read before the clear is
//!   written, or at its edge, through forwarding compares in the request's cycle: the clear of
//!   that cycle, and the waiting one, `pend_*`). This is `rfc5040-rdmap.md` row 21: "it takes
//!   effect at the check". A `prog_write` of the same index in cycle `t + 1` or later comes
//!   after the invalidation: the entry ends up as programmed (the clear is dropped, or, when it
//!   waits, dropped by the write).
//! - **Collision rule** (decision, issue 5): a clear that had to wait takes the write port from
//!   a *new* commit's word 1 (`prog_write` in `p`, none in `p - 1`); that commit then writes
//!   word 0 with the valid bit 0: the entry ends **invalid** (a STag of it answers
//!   `INVALID_STAG`), never half programmed. This bounds the clear's wait to 2 cycles with one
//!   pending register, whatever HostIf's MMIO writes do (HostIf's `mmio_ready` holds no
//!   commit back for a clear, so a programming cannot be made to wait without a copy of its
//!   fields); it happens only to a commit 2 or 3 cycles after the previous new commit, with a
//!   clear due in between. The driver writes 6 MMIO registers per programming: its commits are
//!   never displaced. A
//!   repeated commit (`prog_write` in `p - 1` too, the same staging registers) writes nothing
//!   and is never displaced; its in-flight refusal rules above are unchanged.

use super::check_status;
use super::stag_table::{StagTable, W0_BITS, W0_VALID, W_BITS};
use crate::config::{
    CHK_TAG_BITS, CONN_BITS, DMA_ADDR_BITS, LOCAL_LEN_BITS, LOCAL_LEN_BITS1, LOCAL_LEN_HI_MASK,
    PD_BITS, STAG_BASE_TO_BITS, STAG_INDEX_BITS,
};
use rust_hdl::prelude::*;

/// Cycles from a request (`chk_valid` high in cycle `t`) to its response (`rsp_valid` high in
/// cycle `t + STAG_CHECK_LATENCY`).
pub const STAG_CHECK_LATENCY: usize = 5;

/// Bits of the host address above its low half (word 1 keeps the address from bit 48 on).
const HOST_H_BITS: usize = DMA_ADDR_BITS - 16;
/// Bits of a local length above its low half (8 on the Cu), and with the borrow above them:
/// `q = region_len - len` is computed on [`LOCAL_LEN_BITS`] only (both operands are below
/// `1 << LOCAL_LEN_BITS`), its upper part in `q_h`.
const QH_BITS: usize = LOCAL_LEN_BITS - 16;
const QH_BITS1: usize = QH_BITS + 1;

// The literal bit offsets in `update` (hdl_gen takes literals) follow the Cu configuration and
// the word packing of `stag_table`.
const _: () = assert!(
    STAG_INDEX_BITS == 6
        && PD_BITS == 4
        && CONN_BITS <= super::stag_table::W0_QP_FIELD_BITS
        && DMA_ADDR_BITS > 16
        && DMA_ADDR_BITS <= 32
        && super::stag_table::W1_HOST == 32
        && STAG_BASE_TO_BITS == 32
        && super::stag_table::W0_BASE_0 == 0
        && super::stag_table::W0_LEN_L == 16
        && super::stag_table::W0_KEY == 32
        && super::stag_table::W0_PD == 40
        && super::stag_table::W0_ACCESS == 44
        && super::stag_table::W0_QP_BOUND == 48
        && super::stag_table::W0_QP == 49
        && super::stag_table::W0_REMOTE_INV == 51
        && W0_VALID == 52
        && super::stag_table::W1_BASE_1 == 0
        && super::stag_table::W1_LEN_H == 16
        && super::stag_table::W1_HOST == 32
        && W_BITS == 32 + DMA_ADDR_BITS
);

/// The STag check pipeline with its table. Ports: [`crate::ddp`] ("StagCheck").
#[derive(LogicBlock)]
pub struct StagCheck {
    pub clock: Signal<In, Clock>,
    // Programming (the firmware's STag table writes).
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
    // Requests.
    pub chk_valid: Signal<In, Bit>,
    pub chk_tag: Signal<In, Bits<CHK_TAG_BITS>>,
    pub chk_stag: Signal<In, Bits<32>>,
    pub chk_to: Signal<In, Bits<64>>,
    pub chk_len: Signal<In, Bits<32>>,
    pub chk_pd: Signal<In, Bits<PD_BITS>>,
    pub chk_qp: Signal<In, Bits<CONN_BITS>>,
    pub chk_access: Signal<In, Bits<4>>,
    pub chk_invalidate: Signal<In, Bit>,
    // Responses.
    pub rsp_valid: Signal<Out, Bit>,
    pub rsp_tag: Signal<Out, Bits<CHK_TAG_BITS>>,
    pub rsp_status: Signal<Out, Bits<3>>,
    pub rsp_host_addr: Signal<Out, Bits<DMA_ADDR_BITS>>,

    stags: StagTable,

    // S1: the request, registered in cycle t.
    s1_v: DFF<Bit>,
    s1_tag: DFF<Bits<CHK_TAG_BITS>>,
    /// TO\[31:0\]; TO\[63:32\] as flags: TO\[63:32\] all ones (for WRAP, with TO\[31:L\]
    /// tested in S2 from `s1_to`, so that the request's TO\[31:L\] loads only `s1_to`: its
    /// flip-flops share their logic cells with RxPath's request multiplexer); for BOUNDS
    /// TO\[32\] and
    /// TO\[63:33\] == 0 (a TO that passes BOUNDS is below 2^33: base_to < 2^32 and the
    /// region length < 2^32).
    s1_to: DFF<Bits<32>>,
    s1_hi_ones: DFF<Bit>,
    s1_to32: DFF<Bit>,
    s1_hiz: DFF<Bit>,
    /// The length's low [`LOCAL_LEN_BITS`]; a length of `1 << LOCAL_LEN_BITS` or more (only a
    /// Read Request's size from the wire can be one) clears `s1_hiz` and `s1_hi_ones` instead,
    /// so that it answers BOUNDS after the entry checks (no region is that long) and never
    /// WRAP.
    s1_len: DFF<Bits<LOCAL_LEN_BITS>>,
    s1_pd: DFF<Bits<PD_BITS>>,
    s1_qp: DFF<Bits<CONN_BITS>>,
    s1_access: DFF<Bits<4>>,
    s1_inv: DFF<Bit>,
    s1_key: DFF<Bits<8>>,
    s1_idx: DFF<Bits<STAG_INDEX_BITS>>,
    /// The 24-bit index is below the table size.
    s1_idx_ok: DFF<Bit>,
    /// Word 0 of this index written in the request's cycle (its read collided, or the entry is
    /// half written), or its valid bit cleared then (by the invalidation in S2: see S0).
    s1_coll: DFF<Bit>,

    // S2: entry compares as flags, low 16-bit halves, the upper halves' operands.
    s2_v: DFF<Bit>,
    /// Index in range, no collision, valid bit set, key equal.
    s2_ent_ok: DFF<Bit>,
    /// PD equal and (not QP-bound or bound to this QP).
    s2_assoc: DFF<Bit>,
    s2_acc_ok: DFF<Bit>,
    s2_rinv: DFF<Bit>,
    /// A `prog_write` of this index in cycle t+1: a check read word 1 while it changed; an
    /// invalidate's clear is dropped (the new entry comes after it).
    s2_reprog: DFF<Bit>,
    /// `TO[LOCAL_LEN_BITS-1:0] + len` (with its carry) for WRAP.
    s2_sum: DFF<Bits<LOCAL_LEN_BITS1>>,
    /// `TO[15:0] - base_to[15:0]` with its carry (NOT the borrow) in bit 16;
    /// `~(len_of_region[15:0] - len[15:0])` with the borrow in bit 16.
    s2_off_l: DFF<Bits<17>>,
    s2_q_l: DFF<Bits<17>>,

    // S3.
    s3_v: DFF<Bit>,
    s3_tag: DFF<Bits<CHK_TAG_BITS>>,
    /// Status of the entry checks (0: passed).
    s3_early: DFF<Bits<3>>,
    s3_inv: DFF<Bit>,
    s3_wrap: DFF<Bit>,
    /// `off[31:16]` of `off = TO[31:0] - base_to[31:0]`, bit 16 its carry, NOT the borrow
    /// (`off[15:0]` is
    /// `s2_off_l`, which holds the request through S3).
    s3_off_h: DFF<Bits<17>>,
    /// `TO[32]`, `TO[63:33] == 0` (base_to\[63:32\] is 0).
    s3_to32: DFF<Bit>,
    s3_hiz: DFF<Bit>,
    /// `~q[L-1:16]` of `q = len_of_region - len` (L = [`LOCAL_LEN_BITS`]; both are below
    /// `2^L`), the top bit its borrow (q < 0; `~q[15:0]` is `s2_q_l`).
    s3_q_h: DFF<Bits<QH_BITS1>>,
    /// `host_addr[15:0] + off[15:0]` with its carry; `host_addr[31:16]`.
    s3_host_l: DFF<Bits<17>>,
    s3_host_h: DFF<Bits<HOST_H_BITS>>,

    // S4.
    s4_v: DFF<Bit>,
    s4_bounds: DFF<Bit>,

    // Response registers.
    r_v: DFF<Bit>,
    r_tag: DFF<Bits<CHK_TAG_BITS>>,
    r_status: DFF<Bits<3>>,
    r_host: DFF<Bits<DMA_ADDR_BITS>>,

    // Combinational.
    e_a: Signal<Local, Bits<W0_BITS>>,
    invalid: Signal<Local, Bit>,
    early: Signal<Local, Bits<3>>,
    off_h: Signal<Local, Bits<17>>,
    q_h: Signal<Local, Bits<QH_BITS1>>,
    host_l: Signal<Local, Bits<17>>,
    host: Signal<Local, Bits<DMA_ADDR_BITS>>,
    hi_ok: Signal<Local, Bit>,
    /// `off[L-1:0]` and `~q` (L = [`LOCAL_LEN_BITS`]).
    off_l: Signal<Local, Bits<LOCAL_LEN_BITS>>,
    nq_l: Signal<Local, Bits<LOCAL_LEN_BITS>>,
    /// `off[L-1:0] + ~q`: its carry is `off[L-1:0] > q` (`off > q` with `off[31:L]` zero).
    oq: Signal<Local, Bits<LOCAL_LEN_BITS1>>,
    /// `~prog_base_to[31:0]`, `~prog_len` (the table's polarity; a signal of their width, so
    /// that the Verilog inverts before it widens).
    p_nbase: Signal<Local, Bits<32>>,
    p_nlen: Signal<Local, Bits<32>>,
    status: Signal<Local, Bits<3>>,

    st_invalid: Constant<Bits<3>>,
    st_not_assoc: Constant<Bits<3>>,
    st_access: Constant<Bits<3>>,
    st_wrap: Constant<Bits<3>>,
    st_bounds: Constant<Bits<3>>,
    st_not_inv: Constant<Bits<3>>,
    /// A 32-bit length's bits above `LOCAL_LEN_BITS` (`chk_len` of `1 << LOCAL_LEN_BITS` or
    /// more when any is set).
    c_len_hi: Constant<Bits<32>>,
    /// TO's bits below 32 (as ones: WRAP's "the bits above are all ones").
    c_to_lo: Constant<Bits<64>>,
    /// TO\[31:0\]'s bits below `LOCAL_LEN_BITS` (as ones: WRAP's TO\[31:L\] all ones).
    c_to_mid: Constant<Bits<32>>,
    /// `s2_sum`'s carry bit, and its bits below it.
    c_sum_c: Constant<Bits<LOCAL_LEN_BITS1>>,
    c_sum_lo: Constant<Bits<LOCAL_LEN_BITS1>>,
    /// A 32-bit value's upper half's bits above `LOCAL_LEN_BITS`: `off[31:L]`, which must be
    /// 0 for `off <= q`. (`q` is computed from the region length's low `LOCAL_LEN_BITS`: the
    /// driver registers none longer; the table keeps 32 bits, and a longer one programmed
    /// anyway checks as its length modulo `1 << LOCAL_LEN_BITS`: a smaller region, never a
    /// larger one.)
    c_nlen_hi: Constant<Bits<16>>,
    /// `q_h`'s top bit (the borrow).
    c_qh_c: Constant<Bits<QH_BITS1>>,
}

impl Default for StagCheck {
    fn default() -> Self {
        let st = |s: u8| Constant::new(u64::from(s).into());
        Self {
            clock: Default::default(),
            prog_write: Default::default(),
            prog_index: Default::default(),
            prog_valid: Default::default(),
            prog_key: Default::default(),
            prog_pd: Default::default(),
            prog_access: Default::default(),
            prog_qp_bound: Default::default(),
            prog_qp: Default::default(),
            prog_remote_inv: Default::default(),
            prog_base_to: Default::default(),
            prog_len: Default::default(),
            prog_host_addr: Default::default(),
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
            stags: Default::default(),
            s1_v: Default::default(),
            s1_tag: Default::default(),
            s1_to: Default::default(),
            s1_hi_ones: Default::default(),
            s1_to32: Default::default(),
            s1_hiz: Default::default(),
            s1_len: Default::default(),
            s1_pd: Default::default(),
            s1_qp: Default::default(),
            s1_access: Default::default(),
            s1_inv: Default::default(),
            s1_key: Default::default(),
            s1_idx: Default::default(),
            s1_idx_ok: Default::default(),
            s1_coll: Default::default(),
            s2_v: Default::default(),
            s2_ent_ok: Default::default(),
            s2_assoc: Default::default(),
            s2_acc_ok: Default::default(),
            s2_rinv: Default::default(),
            s2_reprog: Default::default(),
            s2_sum: Default::default(),
            s2_off_l: Default::default(),
            s2_q_l: Default::default(),
            s3_v: Default::default(),
            s3_tag: Default::default(),
            s3_early: Default::default(),
            s3_inv: Default::default(),
            s3_wrap: Default::default(),
            s3_off_h: Default::default(),
            s3_to32: Default::default(),
            s3_hiz: Default::default(),
            s3_q_h: Default::default(),
            off_l: Default::default(),
            nq_l: Default::default(),
            oq: Default::default(),
            p_nbase: Default::default(),
            p_nlen: Default::default(),
            s3_host_l: Default::default(),
            s3_host_h: Default::default(),
            s4_v: Default::default(),
            s4_bounds: Default::default(),
            host: Default::default(),
            r_v: Default::default(),
            r_tag: Default::default(),
            r_status: Default::default(),
            r_host: Default::default(),
            e_a: Default::default(),
            invalid: Default::default(),
            early: Default::default(),
            off_h: Default::default(),
            q_h: Default::default(),
            host_l: Default::default(),
            hi_ok: Default::default(),
            status: Default::default(),
            st_invalid: st(check_status::INVALID_STAG),
            st_not_assoc: st(check_status::NOT_ASSOCIATED),
            st_access: st(check_status::ACCESS),
            st_wrap: st(check_status::WRAP),
            st_bounds: st(check_status::BOUNDS),
            st_not_inv: st(check_status::NOT_INVALIDATABLE),
            c_len_hi: Constant::new(LOCAL_LEN_HI_MASK.into()),
            c_to_lo: Constant::new(0xFFFF_FFFFu64.into()),
            c_to_mid: Constant::new(((1u64 << LOCAL_LEN_BITS) - 1).into()),
            c_sum_c: Constant::new((1u64 << LOCAL_LEN_BITS).into()),
            c_sum_lo: Constant::new(((1u64 << LOCAL_LEN_BITS) - 1).into()),
            c_nlen_hi: Constant::new((LOCAL_LEN_HI_MASK >> 16).into()),
            c_qh_c: Constant::new((1u64 << QH_BITS).into()),
        }
    }
}

impl Logic for StagCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s1_v, s1_tag, s1_to, s1_hi_ones, s1_to32, s1_hiz, s1_len, s1_pd, s1_qp,
            s1_access, s1_inv, s1_key, s1_idx, s1_idx_ok, s1_coll, s2_v, s2_ent_ok, s2_assoc,
            s2_acc_ok, s2_rinv, s2_reprog, s2_sum, s2_off_l, s2_q_l, s3_v, s3_tag, s3_early,
            s3_inv, s3_wrap, s3_off_h, s3_to32, s3_hiz, s3_q_h, s3_host_l, s3_host_h, s4_v,
            s4_bounds, r_v, r_tag, r_status, r_host
        );
        self.stags.clock.next = self.clock.val();

        // ---- Programming: the valid bit and word 1 now, word 0 in the next cycle (packing:
        // see `stag_table`).
        self.stags.write.next = self.prog_write.val();
        self.stags.write_index.next = self.prog_index.val();
        // The table keeps base_TO[31:0]: an entry with a larger base is written invalid.
        self.stags.write_valid.next =
            self.prog_valid.val() && (self.prog_base_to.val().get_bits::<32>(32) == 0);
        // base_TO and the region length are kept inverted (see `stag_table`): every compare
        // and subtraction of the check then has its operands in the polarity its carry chain
        // takes (no inverter LUT in front of a carry).
        self.p_nbase.next = !self.prog_base_to.val().get_bits::<32>(0);
        self.p_nlen.next = !self.prog_len.val();
        self.stags.write_w0.next = bit_cast::<W0_VALID, 16>(self.p_nbase.val().get_bits::<16>(0))
            | (bit_cast::<W0_VALID, 16>(self.p_nlen.val().get_bits::<16>(0)) << 16)
            | (bit_cast::<W0_VALID, 8>(self.prog_key.val()) << 32)
            | (bit_cast::<W0_VALID, PD_BITS>(self.prog_pd.val()) << 40)
            | (bit_cast::<W0_VALID, 4>(self.prog_access.val()) << 44)
            | (bit_cast::<W0_VALID, 1>(self.prog_qp_bound.val().into()) << 48)
            | (bit_cast::<W0_VALID, CONN_BITS>(self.prog_qp.val()) << 49)
            | (bit_cast::<W0_VALID, 1>(self.prog_remote_inv.val().into()) << 51);
        self.stags.write_w1.next = bit_cast::<W_BITS, 16>(self.p_nbase.val().get_bits::<16>(16))
            | (bit_cast::<W_BITS, 16>(self.p_nlen.val().get_bits::<16>(16)) << 16)
            | (bit_cast::<W_BITS, DMA_ADDR_BITS>(self.prog_host_addr.val()) << 32);

        // ---- S0 (cycle t): read word 0 and the valid bit; register the request. A request
        // takes the read port from the previous request's word 1 (which is then cancelled).
        self.stags.read_a.next = self.chk_valid.val();
        self.stags.read_a_index.next = self.chk_stag.val().get_bits::<STAG_INDEX_BITS>(8);
        // The request's registers load only with a request, so they hold it through S2 (a
        // request that is answered has none after it in t + 1): S2 reads them directly.
        self.s1_v.d.next = self.chk_valid.val();
        if self.chk_valid.val() {
            self.s1_tag.d.next = self.chk_tag.val();
            self.s1_to.d.next = self.chk_to.val().get_bits::<32>(0);
            // TO[63:32] all ones (see S1's WRAP; TO[31:L] in S2).
            self.s1_hi_ones.d.next = (self.chk_to.val() | self.c_to_lo.val()).all()
                && ((self.chk_len.val() & self.c_len_hi.val()) == 0);
            self.s1_to32.d.next = self.chk_to.val().get_bit(32);
            self.s1_hiz.d.next = (self.chk_to.val().get_bits::<31>(33) == 0)
                && ((self.chk_len.val() & self.c_len_hi.val()) == 0);
            self.s1_len.d.next = self.chk_len.val().get_bits::<LOCAL_LEN_BITS>(0);
            self.s1_pd.d.next = self.chk_pd.val();
            self.s1_qp.d.next = self.chk_qp.val();
            self.s1_access.d.next = self.chk_access.val();
            self.s1_inv.d.next = self.chk_invalidate.val();
            self.s1_key.d.next = self.chk_stag.val().get_bits::<8>(0);
            self.s1_idx.d.next = self.chk_stag.val().get_bits::<STAG_INDEX_BITS>(8);
            self.s1_idx_ok.d.next = self.chk_stag.val().get_bits::<18>(14) == 0;
        }
        // Word 0 written in this cycle (a `prog_write` now or in the previous cycle: `prog_index`
        // is held in the cycle after a `prog_write`), or cleared but not written yet (a pending
        // clear: written now or later, so this read is old or undefined), or cleared by the
        // invalidation now in S2 (its valid-bit clear is due at this edge, after this read;
        // `s1_idx` still holds its index, it loads this request's at the edge). The last was
        // a registered copy of the cleared index (`fw1_idx`) compared in S1: 7 flip-flops.
        self.s1_coll.d.next = ((self.prog_write.val() || self.stags.w0_pending.val())
            && (self.prog_index.val() == self.chk_stag.val().get_bits::<STAG_INDEX_BITS>(8)))
            || (self.stags.pend_v.val()
                && (self.stags.pend_index.val()
                    == self.chk_stag.val().get_bits::<STAG_INDEX_BITS>(8)))
            || (self.stags.clear.val()
                && (self.s1_idx.q.val() == self.chk_stag.val().get_bits::<STAG_INDEX_BITS>(8)));

        // ---- S1 (cycle t+1): word 0 and the valid bit are here. A new request now cancels
        // this one (it takes the read port: no word 1 for this one).
        self.e_a.next = self.stags.read_data.val().get_bits::<W0_BITS>(0);
        self.s2_v.d.next = self.s1_v.q.val() && !self.chk_valid.val();
        self.s2_ent_ok.d.next = self.s1_idx_ok.q.val()
            && !self.s1_coll.q.val()
            && self.e_a.val().get_bit(52)
            && (self.e_a.val().get_bits::<8>(32) == self.s1_key.q.val());
        self.s2_assoc.d.next = (self.e_a.val().get_bits::<PD_BITS>(40) == self.s1_pd.q.val())
            && (!self.e_a.val().get_bit(48)
                || (self.e_a.val().get_bits::<CONN_BITS>(49) == self.s1_qp.q.val()));
        self.s2_acc_ok.d.next = (self.s1_access.q.val() & !self.e_a.val().get_bits::<4>(44)) == 0;
        self.s2_rinv.d.next = self.e_a.val().get_bit(51);
        self.s2_reprog.d.next =
            self.prog_write.val() && (self.prog_index.val() == self.s1_idx.q.val());
        // WRAP from the request alone: `TO[31:0] + len` registered (the sum bits pack with the
        // adder's carry cells), its carry and "not 0 mod 2^32" tested in S2.
        // With `len < 2^L` (L = LOCAL_LEN_BITS; a longer one is BOUNDS, `s1_hi_ones` is 0),
        // `TO[31:0] + len > 2^32` iff TO[31:L] is all ones (tested in S2) and
        // `TO[L-1:0] + len > 2^L`: an (L+1)-bit sum (session 19: 33 bits before, 8 carries,
        // LUTs and flip-flops more on the Cu).
        if self.s1_v.q.val() {
            self.s2_sum.d.next =
                bit_cast::<LOCAL_LEN_BITS1, LOCAL_LEN_BITS>(
                    self.s1_to.q.val().get_bits::<LOCAL_LEN_BITS>(0),
                ) + bit_cast::<LOCAL_LEN_BITS1, LOCAL_LEN_BITS>(self.s1_len.q.val());
        }
        // Low 16-bit halves straight from the RAM (word 0); the request's upper halves
        // registered for S2, where word 1 brings the entry's.
        // Loaded only with a request in S1, so they hold it through S3 (the next request's S1
        // is the answered one's S3 at the earliest): S3 reads their low halves directly.
        // (The table keeps ~base_TO and ~region length: `TO - base` is `TO + ~base + 1`, its
        // bit 16 the carry, i.e. NOT the borrow; `~q = len + ~region_len`, bit 16 the borrow
        // of `q`, bits 15..0 `~q`.)
        if self.s1_v.q.val() {
            self.s2_off_l.d.next = bit_cast::<17, 16>(self.s1_to.q.val().get_bits::<16>(0))
                + bit_cast::<17, 16>(self.e_a.val().get_bits::<16>(0))
                + 1;
            self.s2_q_l.d.next = bit_cast::<17, 16>(self.s1_len.q.val().get_bits::<16>(0))
                + bit_cast::<17, 16>(self.e_a.val().get_bits::<16>(16));
        }
        // Word 1 of this request (unless a new request takes the port: see S0).
        self.stags.read_b_index.next = self.s1_idx.q.val();

        // ---- S2 (cycle t+2): the entry checks' status, the invalidation; upper halves.
        self.invalid.next =
            !self.s2_ent_ok.q.val() || (!self.s1_inv.q.val() && self.s2_reprog.q.val());
        self.early.next = 0.into();
        if self.invalid.val() {
            self.early.next = self.st_invalid.val();
        } else if !self.s2_assoc.q.val() {
            self.early.next = self.st_not_assoc.val();
        } else if self.s1_inv.q.val() {
            if !self.s2_rinv.q.val() {
                self.early.next = self.st_not_inv.val();
            }
        } else if !self.s2_acc_ok.q.val() {
            self.early.next = self.st_access.val();
        }
        // (`!invalid` written out for an invalidate: `s2_ent_ok`, so that the clear is two LUT
        // levels from the S2 registers, not behind `invalid`'s decode.)
        self.stags.clear.next = self.s2_v.q.val()
            && self.s1_inv.q.val()
            && self.s2_ent_ok.q.val()
            && self.s2_assoc.q.val()
            && self.s2_rinv.q.val()
            && !self.s2_reprog.q.val();
        self.stags.clear_index.next = self.s1_idx.q.val();
        self.off_h.next = bit_cast::<17, 16>(self.s1_to.q.val().get_bits::<16>(16))
            + bit_cast::<17, 16>(self.stags.read_data.val().get_bits::<16>(0))
            + bit_cast::<17, 1>(self.s2_off_l.q.val().get_bits::<1>(16));
        self.s3_to32.d.next = self.s1_to32.q.val();
        self.s3_hiz.d.next = self.s1_hiz.q.val();
        // `~q`'s upper part on the length's bits only (the region length's bits above
        // `LOCAL_LEN_BITS` are read as the ones of their inverse, see `c_nlen_hi`, and the
        // request's as 0: the 32-bit chain had a carry out of bit L-1 equal to this one's).
        self.q_h.next = bit_cast::<QH_BITS1, QH_BITS>(self.s1_len.q.val().get_bits::<QH_BITS>(16))
            + bit_cast::<QH_BITS1, QH_BITS>(self.stags.read_data.val().get_bits::<QH_BITS>(16))
            + bit_cast::<QH_BITS1, 1>(self.s2_q_l.q.val().get_bits::<1>(16));
        self.s3_q_h.d.next = self.q_h.val();
        self.host_l.next = bit_cast::<17, 16>(self.stags.read_data.val().get_bits::<16>(32))
            + bit_cast::<17, 16>(self.s2_off_l.q.val().get_bits::<16>(0));
        self.s3_v.d.next = self.s2_v.q.val();
        // Loaded only with a request, so they hold it through S4 (the next answered request
        // reaches S2 two cycles later).
        if self.s2_v.q.val() {
            self.s3_tag.d.next = self.s1_tag.q.val();
            self.s3_early.d.next = self.early.val();
            self.s3_inv.d.next = self.s1_inv.q.val();
            self.s3_wrap.d.next = self.s1_hi_ones.q.val()
                && (self.s1_to.q.val() | self.c_to_mid.val()).all()
                && ((self.s2_sum.q.val() & self.c_sum_c.val()) != 0)
                && ((self.s2_sum.q.val() & self.c_sum_lo.val()) != 0);
            self.s3_off_h.d.next = self.off_h.val();
            self.s3_host_l.d.next = self.host_l.val();
            self.s3_host_h.d.next = self.stags.read_data.val().get_bits::<HOST_H_BITS>(48);
        }

        // ---- S3 (cycle t+3): bounds; the host address's upper half.
        // TO[63:32] (base_to[63:32] is 0) equals the low borrow (0 or 1): 0 <= off < 2^32
        // (`s3_off_h[16]` is the carry, NOT the borrow).
        self.hi_ok.next =
            self.s3_hiz.q.val() && (self.s3_to32.q.val() != self.s3_off_h.q.val().get_bit(16));
        // `off > q` with `0 <= q < 2^L` (L = LOCAL_LEN_BITS): `off[31:L]` not 0, or
        // `off[L-1:0] > q`, the carry of `off[L-1:0] + ~q` (`nq_l` holds `~q`): a bare carry
        // chain of L + 1 bits (33 before, with `~q[31:L]` all ones).
        self.off_l.next =
            (bit_cast::<LOCAL_LEN_BITS, QH_BITS>(self.s3_off_h.q.val().get_bits::<QH_BITS>(0))
                << 16)
                | bit_cast::<LOCAL_LEN_BITS, 16>(self.s2_off_l.q.val().get_bits::<16>(0));
        self.nq_l.next =
            (bit_cast::<LOCAL_LEN_BITS, QH_BITS>(self.s3_q_h.q.val().get_bits::<QH_BITS>(0)) << 16)
                | bit_cast::<LOCAL_LEN_BITS, 16>(self.s2_q_l.q.val().get_bits::<16>(0));
        self.oq.next = bit_cast::<LOCAL_LEN_BITS1, LOCAL_LEN_BITS>(self.off_l.val())
            + bit_cast::<LOCAL_LEN_BITS1, LOCAL_LEN_BITS>(self.nq_l.val());
        self.s4_bounds.d.next = !self.hi_ok.val()
            || ((self.s3_q_h.q.val() & self.c_qh_c.val()) != 0)
            || ((self.s3_off_h.q.val().get_bits::<16>(0) & self.c_nlen_hi.val()) != 0)
            || ((self.oq.val() & self.c_sum_c.val()) != 0);
        self.s4_v.d.next = self.s3_v.q.val();

        // ---- S4 (cycle t+4): the status, in check order.
        self.status.next = 0.into();
        if self.s3_inv.q.val() || (self.s3_early.q.val() != 0) {
            self.status.next = self.s3_early.q.val();
        } else if self.s3_wrap.q.val() {
            self.status.next = self.st_wrap.val();
        } else if self.s4_bounds.q.val() {
            self.status.next = self.st_bounds.val();
        }
        self.r_v.d.next = self.s4_v.q.val();
        self.r_tag.d.next = self.s3_tag.q.val();
        self.r_status.d.next = self.status.val();
        // The host address's upper half (the S3 registers still hold this request).
        self.host.next = (bit_cast::<DMA_ADDR_BITS, HOST_H_BITS>(
            self.s3_host_h.q.val()
                + self.s3_off_h.q.val().get_bits::<HOST_H_BITS>(0)
                + bit_cast::<HOST_H_BITS, 1>(self.s3_host_l.q.val().get_bits::<1>(16)),
        ) << 16)
            | bit_cast::<DMA_ADDR_BITS, 16>(self.s3_host_l.q.val().get_bits::<16>(0));
        // Loaded only with a response, so `rsp_host_addr` holds it until the next response:
        // RxControl reads it there (its check queue's pop, a Send's verdict) with no copy.
        if self.s4_v.q.val() {
            self.r_host.d.next = 0.into();
            if (self.status.val() == 0) && !self.s3_inv.q.val() {
                self.r_host.d.next = self.host.val();
            }
        }

        self.rsp_valid.next = self.r_v.q.val();
        self.rsp_tag.next = self.r_tag.q.val();
        self.rsp_status.next = self.r_status.q.val();
        self.rsp_host_addr.next = self.r_host.q.val();
    }
}

crate::sim_ports!(impl[] StagCheck {
    inputs: prog_write, prog_index, prog_valid, prog_key, prog_pd, prog_access, prog_qp_bound,
        prog_qp, prog_remote_inv, prog_base_to, prog_len, prog_host_addr, chk_valid, chk_tag,
        chk_stag, chk_to, chk_len, chk_pd, chk_qp, chk_access, chk_invalidate;
    outputs: rsp_valid, rsp_tag, rsp_status, rsp_host_addr;
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generates_verilog() {
        let v = crate::catalog::top_verilog(StagCheck::default());
        assert!(v.contains("module top"));
    }
}
