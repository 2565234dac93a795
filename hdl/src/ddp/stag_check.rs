//! StagCheck: the STag protection check of DDP placement (`rfc5040-rdmap.md` §5.4, §6.1 items
//! 1-3 and 7, §7.2), fully pipelined over the [`StagTable`]: one request per cycle, no `ready`,
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
//!   modulo 2^32; for every other status, and for an invalidate, `rsp_host_addr` is 0.
//!
//! # Timing: [`STAG_CHECK_LATENCY`] = 4
//!
//! A request with `chk_valid` high in cycle `t` is answered with `rsp_valid` high in cycle
//! `t + 4`, in request order (the tag is carried through).
//!
//! ```text
//!  t    S0  table read A (key, PD, rights, QP, remote_inv, base_TO[31:0]) + valid bit
//!  t+1  S1  INVALID_STAG / NOT_ASSOCIATED / ACCESS / NOT_INVALIDATABLE; an invalidate that
//!           passes clears the valid bit at the end of this cycle.
//!           32-bit: TO_lo - base_lo (borrow), TO_lo + len (carry; == 2^32 carry-free), WRAP.
//!           Table read B (base_TO[63:32], host address).
//!  t+2  S2  32-bit: TO_hi - base_hi - borrow, (TO - base_to)[31:0] + len, host address sum.
//!           Table read C (region length).
//!  t+3  S3  BOUNDS: the high difference nonzero (TO < base_to or TO - base_to >= 2^32) or the
//!           33-bit end offset above the region length; the status is chosen and registered.
//!  t+4      rsp_valid, rsp_tag, rsp_status, rsp_host_addr (registers).
//! ```
//!
//! No adder or comparator is wider than 33 bits, and each stage has at most one carry chain
//! on its path (100 MHz on the iCE40-HX8K, DESIGN.md "Budgets"). The 64-bit WRAP test reduces
//! to 32 bits: `TO + len > 2^64` iff `TO[63:32]` is all ones and `TO[31:0] + len > 2^32`, and
//! `TO[31:0] + len == 2^32 (mod 2^32)` is tested without a carry chain as
//! `(a ^ b) == ((a | b) << 1)` beside the adder that gives the carry.
//!
//! # Programming and invalidation: exact rules (decisions)
//!
//! - `prog_write` in cycle `p` (a `prog_valid = 0` write invalidates the entry) writes the valid
//!   bit and all three table parts at the end of cycle `p`. A request issued in cycle `t >= p + 1`
//!   sees the new entry; one issued in `t <= p - 3` the old one. A **check** request of the same
//!   index issued in `p - 2 <= t <= p` (its entry changes while the pipeline reads it: parts A,
//!   B, C are read in cycles `t`, `t + 1`, `t + 2`) is answered `INVALID_STAG`; so is an
//!   **invalidate** request issued in cycle `p` (it reads only part A). This is the brief's
//!   "takes effect for requests issued 2 or more cycles later" with one cycle to spare; the
//!   in-flight refusal is a fail-safe that costs three 6-bit comparators instead of a 96-bit
//!   delay line on the write side, and it refuses nothing legitimate in practice: the firmware
//!   reprograms an entry only while it is invalid, or to invalidate it.
//! - An invalidate request issued in cycle `t` that answers `OK` clears the valid bit at the end
//!   of cycle `t + 1`; every request issued in cycle `t + 1` or later sees the STag invalid
//!   (`INVALID_STAG`; the request of cycle `t + 1`, whose valid bit was read before the clear,
//!   through a forwarding register). This is `rfc5040-rdmap.md` row 21: "it takes effect at the
//!   check". A `prog_write` of the same index in cycle `t + 1` is applied after the clear
//!   (the entry ends up as programmed).

use super::check_status;
use super::stag_table::{StagTable, A_BITS, B_BITS, C_BITS};
use crate::config::{CHK_TAG_BITS, CONN_BITS, DMA_ADDR_BITS, PD_BITS, STAG_INDEX_BITS};
use rust_hdl::prelude::*;

/// Cycles from a request (`chk_valid` high in cycle `t`) to its response (`rsp_valid` high in
/// cycle `t + STAG_CHECK_LATENCY`).
pub const STAG_CHECK_LATENCY: usize = 4;

// The literal bit offsets in `update` (hdl_gen takes literals) follow the Cu configuration and
// the part A packing of `stag_table`.
const _: () = assert!(
    STAG_INDEX_BITS == 6
        && PD_BITS == 4
        && CONN_BITS == 2
        && DMA_ADDR_BITS == 32
        && super::stag_table::A_KEY == 32
        && super::stag_table::A_PD == 40
        && super::stag_table::A_ACCESS == 44
        && super::stag_table::A_QP_BOUND == 48
        && super::stag_table::A_QP == 49
        && super::stag_table::A_REMOTE_INV == 51
        && B_BITS == 64
        && C_BITS == 32
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
    s1_to: DFF<Bits<64>>,
    s1_len: DFF<Bits<32>>,
    s1_pd: DFF<Bits<PD_BITS>>,
    s1_qp: DFF<Bits<CONN_BITS>>,
    s1_access: DFF<Bits<4>>,
    s1_inv: DFF<Bit>,
    s1_key: DFF<Bits<8>>,
    s1_idx: DFF<Bits<STAG_INDEX_BITS>>,
    /// The 24-bit index is below the table size.
    s1_idx_ok: DFF<Bit>,
    /// A `prog_write` of this index in the request's cycle (part A read collided).
    s1_coll: DFF<Bit>,
    /// An invalidate passed in S1 in the previous cycle, clearing `fw_idx` (its clear is not yet
    /// in the valid bit read by the request now in S1).
    fw_v: DFF<Bit>,
    fw_idx: DFF<Bits<STAG_INDEX_BITS>>,

    // S2.
    s2_v: DFF<Bit>,
    s2_tag: DFF<Bits<CHK_TAG_BITS>>,
    /// Status of the entry checks (0: passed).
    s2_early: DFF<Bits<3>>,
    s2_inv: DFF<Bit>,
    s2_wrap: DFF<Bit>,
    /// `TO[31:0] - base_to[31:0]`, bit 32 the borrow.
    s2_dlo: DFF<Bits<33>>,
    s2_to_hi: DFF<Bits<32>>,
    s2_len: DFF<Bits<32>>,
    s2_idx: DFF<Bits<STAG_INDEX_BITS>>,
    /// A check whose entry was written while it was read: answered `INVALID_STAG`.
    s2_dist: DFF<Bit>,

    // S3.
    s3_v: DFF<Bit>,
    s3_tag: DFF<Bits<CHK_TAG_BITS>>,
    s3_early: DFF<Bits<3>>,
    s3_inv: DFF<Bit>,
    s3_wrap: DFF<Bit>,
    s3_dist: DFF<Bit>,
    /// `TO[63:32] - base_to[63:32] - borrow`, bit 32 the borrow: zero iff
    /// `0 <= TO - base_to < 2^32`.
    s3_dhi: DFF<Bits<33>>,
    /// `(TO - base_to)[31:0] + len`: the end offset (when `s3_dhi` is zero).
    s3_end: DFF<Bits<33>>,
    s3_host: DFF<Bits<DMA_ADDR_BITS>>,

    // Response registers.
    r_v: DFF<Bit>,
    r_tag: DFF<Bits<CHK_TAG_BITS>>,
    r_status: DFF<Bits<3>>,
    r_host: DFF<Bits<DMA_ADDR_BITS>>,

    // Combinational.
    e_a: Signal<Local, Bits<A_BITS>>,
    invalid: Signal<Local, Bit>,
    not_assoc: Signal<Local, Bit>,
    early: Signal<Local, Bits<3>>,
    to_lo: Signal<Local, Bits<32>>,
    to_hi: Signal<Local, Bits<32>>,
    sum_lo: Signal<Local, Bits<33>>,
    sum_lo_zero: Signal<Local, Bit>,
    bounds: Signal<Local, Bit>,
    status: Signal<Local, Bits<3>>,

    st_invalid: Constant<Bits<3>>,
    st_not_assoc: Constant<Bits<3>>,
    st_access: Constant<Bits<3>>,
    st_wrap: Constant<Bits<3>>,
    st_bounds: Constant<Bits<3>>,
    st_not_inv: Constant<Bits<3>>,
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
            s1_len: Default::default(),
            s1_pd: Default::default(),
            s1_qp: Default::default(),
            s1_access: Default::default(),
            s1_inv: Default::default(),
            s1_key: Default::default(),
            s1_idx: Default::default(),
            s1_idx_ok: Default::default(),
            s1_coll: Default::default(),
            fw_v: Default::default(),
            fw_idx: Default::default(),
            s2_v: Default::default(),
            s2_tag: Default::default(),
            s2_early: Default::default(),
            s2_inv: Default::default(),
            s2_wrap: Default::default(),
            s2_dlo: Default::default(),
            s2_to_hi: Default::default(),
            s2_len: Default::default(),
            s2_idx: Default::default(),
            s2_dist: Default::default(),
            s3_v: Default::default(),
            s3_tag: Default::default(),
            s3_early: Default::default(),
            s3_inv: Default::default(),
            s3_wrap: Default::default(),
            s3_dist: Default::default(),
            s3_dhi: Default::default(),
            s3_end: Default::default(),
            s3_host: Default::default(),
            r_v: Default::default(),
            r_tag: Default::default(),
            r_status: Default::default(),
            r_host: Default::default(),
            e_a: Default::default(),
            invalid: Default::default(),
            not_assoc: Default::default(),
            early: Default::default(),
            to_lo: Default::default(),
            to_hi: Default::default(),
            sum_lo: Default::default(),
            sum_lo_zero: Default::default(),
            bounds: Default::default(),
            status: Default::default(),
            st_invalid: st(check_status::INVALID_STAG),
            st_not_assoc: st(check_status::NOT_ASSOCIATED),
            st_access: st(check_status::ACCESS),
            st_wrap: st(check_status::WRAP),
            st_bounds: st(check_status::BOUNDS),
            st_not_inv: st(check_status::NOT_INVALIDATABLE),
        }
    }
}

impl Logic for StagCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s1_v, s1_tag, s1_to, s1_len, s1_pd, s1_qp, s1_access, s1_inv, s1_key,
            s1_idx, s1_idx_ok, s1_coll, fw_v, fw_idx, s2_v, s2_tag, s2_early, s2_inv, s2_wrap,
            s2_dlo, s2_to_hi, s2_len, s2_idx, s2_dist, s3_v, s3_tag, s3_early, s3_inv, s3_wrap,
            s3_dist, s3_dhi, s3_end, s3_host, r_v, r_tag, r_status, r_host
        );
        self.stags.clock.next = self.clock.val();

        // ---- Programming: all parts at once (part A packing: see `stag_table`).
        self.stags.write.next = self.prog_write.val();
        self.stags.write_index.next = self.prog_index.val();
        self.stags.write_valid.next = self.prog_valid.val();
        self.stags.write_a.next = bit_cast::<A_BITS, 32>(self.prog_base_to.val().get_bits::<32>(0))
            | (bit_cast::<A_BITS, 8>(self.prog_key.val()) << 32)
            | (bit_cast::<A_BITS, PD_BITS>(self.prog_pd.val()) << 40)
            | (bit_cast::<A_BITS, 4>(self.prog_access.val()) << 44)
            | (bit_cast::<A_BITS, 1>(self.prog_qp_bound.val().into()) << 48)
            | (bit_cast::<A_BITS, CONN_BITS>(self.prog_qp.val()) << 49)
            | (bit_cast::<A_BITS, 1>(self.prog_remote_inv.val().into()) << 51);
        self.stags.write_b.next =
            bit_cast::<B_BITS, 32>(self.prog_base_to.val().get_bits::<32>(32))
                | (bit_cast::<B_BITS, DMA_ADDR_BITS>(self.prog_host_addr.val()) << 32);
        self.stags.write_c.next = self.prog_len.val();

        // ---- S0 (cycle t): read part A and the valid bit; register the request.
        self.stags.read_a_index.next = self.chk_stag.val().get_bits::<STAG_INDEX_BITS>(8);
        self.s1_v.d.next = self.chk_valid.val();
        self.s1_tag.d.next = self.chk_tag.val();
        self.s1_to.d.next = self.chk_to.val();
        self.s1_len.d.next = self.chk_len.val();
        self.s1_pd.d.next = self.chk_pd.val();
        self.s1_qp.d.next = self.chk_qp.val();
        self.s1_access.d.next = self.chk_access.val();
        self.s1_inv.d.next = self.chk_invalidate.val();
        self.s1_key.d.next = self.chk_stag.val().get_bits::<8>(0);
        self.s1_idx.d.next = self.chk_stag.val().get_bits::<STAG_INDEX_BITS>(8);
        self.s1_idx_ok.d.next = self.chk_stag.val().get_bits::<18>(14) == 0;
        self.s1_coll.d.next = self.prog_write.val()
            && (self.prog_index.val() == self.chk_stag.val().get_bits::<STAG_INDEX_BITS>(8));

        // ---- S1 (cycle t+1): the entry checks and the low halves.
        self.e_a.next = self.stags.read_a_data.val();
        self.invalid.next = !self.s1_idx_ok.q.val()
            || self.s1_coll.q.val()
            || !self.stags.read_valid.val()
            || (self.fw_v.q.val() && (self.fw_idx.q.val() == self.s1_idx.q.val()))
            || (self.e_a.val().get_bits::<8>(32) != self.s1_key.q.val());
        self.not_assoc.next = (self.e_a.val().get_bits::<PD_BITS>(40) != self.s1_pd.q.val())
            || (self.e_a.val().get_bit(48)
                && (self.e_a.val().get_bits::<CONN_BITS>(49) != self.s1_qp.q.val()));
        self.early.next = 0.into();
        if self.invalid.val() {
            self.early.next = self.st_invalid.val();
        } else if self.not_assoc.val() {
            self.early.next = self.st_not_assoc.val();
        } else if self.s1_inv.q.val() {
            if !self.e_a.val().get_bit(51) {
                self.early.next = self.st_not_inv.val();
            }
        } else if (self.s1_access.q.val() & !self.e_a.val().get_bits::<4>(44)) != 0 {
            self.early.next = self.st_access.val();
        }
        // An invalidate that passed clears the valid bit at the end of this cycle, and the
        // request now in S0 (whose valid bit is read at this same edge) is told so next cycle.
        self.stags.clear.next = self.s1_v.q.val()
            && self.s1_inv.q.val()
            && !self.invalid.val()
            && !self.not_assoc.val()
            && self.e_a.val().get_bit(51);
        self.stags.clear_index.next = self.s1_idx.q.val();
        self.fw_v.d.next = self.stags.clear.val();
        self.fw_idx.d.next = self.s1_idx.q.val();
        self.to_lo.next = self.s1_to.q.val().get_bits::<32>(0);
        self.to_hi.next = self.s1_to.q.val().get_bits::<32>(32);
        self.sum_lo.next =
            bit_cast::<33, 32>(self.to_lo.val()) + bit_cast::<33, 32>(self.s1_len.q.val());
        // TO[31:0] + len == 0 (mod 2^32), without waiting for the carry chain.
        self.sum_lo_zero.next = (self.to_lo.val() ^ self.s1_len.q.val())
            == ((self.to_lo.val() | self.s1_len.q.val()) << 1);
        self.stags.read_b_index.next = self.s1_idx.q.val();
        self.s2_v.d.next = self.s1_v.q.val();
        self.s2_tag.d.next = self.s1_tag.q.val();
        self.s2_early.d.next = self.early.val();
        self.s2_inv.d.next = self.s1_inv.q.val();
        self.s2_wrap.d.next =
            self.to_hi.val().all() && self.sum_lo.val().get_bit(32) && !self.sum_lo_zero.val();
        self.s2_dlo.d.next = bit_cast::<33, 32>(self.to_lo.val())
            - bit_cast::<33, 32>(self.e_a.val().get_bits::<32>(0));
        self.s2_to_hi.d.next = self.to_hi.val();
        self.s2_len.d.next = self.s1_len.q.val();
        self.s2_idx.d.next = self.s1_idx.q.val();
        self.s2_dist.d.next =
            self.prog_write.val() && (self.prog_index.val() == self.s1_idx.q.val());

        // ---- S2 (cycle t+2): part B; the high half, the end offset, the host address.
        self.stags.read_c_index.next = self.s2_idx.q.val();
        self.s3_v.d.next = self.s2_v.q.val();
        self.s3_tag.d.next = self.s2_tag.q.val();
        self.s3_early.d.next = self.s2_early.q.val();
        self.s3_inv.d.next = self.s2_inv.q.val();
        self.s3_wrap.d.next = self.s2_wrap.q.val();
        self.s3_dist.d.next = self.s2_dist.q.val()
            || (self.prog_write.val() && (self.prog_index.val() == self.s2_idx.q.val()));
        self.s3_dhi.d.next = bit_cast::<33, 32>(self.s2_to_hi.q.val())
            - bit_cast::<33, 32>(self.stags.read_b_data.val().get_bits::<32>(0))
            - bit_cast::<33, 1>(self.s2_dlo.q.val().get_bits::<1>(32));
        self.s3_end.d.next = bit_cast::<33, 32>(self.s2_dlo.q.val().get_bits::<32>(0))
            + bit_cast::<33, 32>(self.s2_len.q.val());
        self.s3_host.d.next =
            self.stags.read_b_data.val().get_bits::<32>(32) + self.s2_dlo.q.val().get_bits::<32>(0);

        // ---- S3 (cycle t+3): part C; bounds; the status.
        self.bounds.next = self.s3_dhi.q.val().any()
            || (self.s3_end.q.val() > bit_cast::<33, 32>(self.stags.read_c_data.val()));
        self.status.next = 0.into();
        if self.s3_dist.q.val() && !self.s3_inv.q.val() {
            self.status.next = self.st_invalid.val();
        } else if self.s3_inv.q.val() || (self.s3_early.q.val() != 0) {
            self.status.next = self.s3_early.q.val();
        } else if self.s3_wrap.q.val() {
            self.status.next = self.st_wrap.val();
        } else if self.bounds.val() {
            self.status.next = self.st_bounds.val();
        }
        self.r_v.d.next = self.s3_v.q.val();
        self.r_tag.d.next = self.s3_tag.q.val();
        self.r_status.d.next = self.status.val();
        self.r_host.d.next = 0.into();
        if (self.status.val() == 0) && !self.s3_inv.q.val() {
            self.r_host.d.next = self.s3_host.q.val();
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
