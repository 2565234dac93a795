//! DDP receive (RFC 5041): header capture, the STag table and its protection check, and
//! placement. Catalogs: `mpa-peer-connect.md` §6 (headers, DDP codes), `rfc5040-rdmap.md` §5.4
//! (check order), §6.1 (security), §7.2 (STag entry). The RDMAP side (which checks run for which
//! opcode, per-QP state, completions, Terminate) is [`crate::rdmap`].
//!
//! # The receive path (32-bit Cu datapath)
//!
//! ```text
//!  MpaRx ulpdu_* (+ ulpdu_len) ─► DdpRxParse ──pay_*──────────────────────────► RxPlace ─► dma_wr_*
//!                                   │  header RAM (conn, slot, word)              ▲  │
//!                                   │    ▲ read port A        ▲ read port B       │  └─► done_*
//!                                   └─job_*─► RxControl ──vd_* (one verdict per job, in job order)
//!                                              │  ▲ chk_* / StagCheck (StagTable)    │
//!                                              │  └── done_* (segment ends, from RxPlace)
//!                                              └─term_*─► TerminateTx ─► tx_* (ULPDU to MpaTx)
//! ```
//!
//! # Shared conventions
//!
//! - One QP per connection: QP n is LLP connection n ([`crate::config::QPS`]).
//! - A *segment* is one ULPDU (DDP header + payload). Every segment makes exactly **one job**
//!   (`job_*`) and exactly **one payload run** (`pay_*`: its first beat has `seg_first`, its
//!   last `last`). The job enters `job_*` at the edge its run's first beat is taken at the latest
//!   (it shows in the cycle after), so jobs, verdicts and `seg_first` beats are in the same
//!   order. Runs of different connections interleave at beat
//!   granularity; runs of one connection never do.
//! - **Header slots**: [`DdpRxParse`](rx_parse::DdpRxParse) writes beat `i` (`i < 16`) of a
//!   segment's ULPDU into word `i` of slot `s` of its connection, byte 0 in the MSB lane as on
//!   the stream. Lanes outside `keep` are written 0. Words 16..31 of a slot
//!   (`HDR_WORDS_WRITTEN` = 16 of `HDR_WORDS` = 32) are never written and read 0. A word after the segment's last beat is unspecified on both
//!   ports (a word an earlier segment left): RxControl (port A, `hdr_a_*`) uses no field past
//!   the segment's end unless the length rows (`f_short`, the Read Request's length) fail
//!   first; TerminateTx (port B, `hdr_b_*`) addresses word `w + 16` (0) for a word `w` at or
//!   past its request's `term_seglen` (the slot's segment length whenever a header is
//!   copied). Each connection has [`HDR_SLOTS`](crate::config::HDR_SLOTS) = 2 slots used
//!   alternately (slot 0 first after power-up); a segment may start only when its slot is free, else the parser stalls. A slot is
//!   taken at the segment's first beat and stays busy until a `free_*` strobe names it.
//!   Header RAM address = `{conn, slot, word}` (CONN_BITS + 1 + HDR_WORD_BITS bits); read data
//!   is registered: the word of the address presented in cycle t is on `*_rd_data` in t+1.
//! - **The job beat** of a segment: beat 3 (octets 12-15, the tagged header ends at 14) when T = 1
//!   and the opcode (`octet1 & 0x0F`) is 0 or 2; beat 4 (octets 16-19, untagged header ends at
//!   18) when T = 0 and the opcode is 3, 4, 5 or 6; otherwise (any other opcode: Read Request,
//!   Terminate, reserved) the segment's last beat. If the segment ends before its job beat, the
//!   job beat is its last beat. The T flag and opcode are taken from beat 0.
//! - **The payload run** starts at the job beat: its `pay_keep` marks payload octets only (on
//!   the job beat, lanes at ULPDU octet ≥ 14 / 18 for Write / Read Response / Send; keep 0 when
//!   the job beat is the last beat of a segment whose job is at its end); later beats pass their
//!   `keep`. Payload octet 0 is therefore always in lane 2 of the `seg_first` beat (14 and 18 are
//!   2 mod 4) or the run has no payload octets on that beat. `pay_good` on the `last` beat is
//!   MpaRx's `ulpdu_good` (CRC good or off, markers good).
//! - **DMA write** (`dma_wr_*`): every beat carries its own address: `dma_wr_addr` is the host
//!   address of lane 0 (a multiple of 4), `dma_wr_keep` the lanes written (contiguous), and
//!   `dma_wr_last` ends one posted write request (the host model answers one write-done per
//!   `last`). [`DMA_ADDR_BITS`](crate::config::DMA_ADDR_BITS): 24 in the Alchitry Cu profile,
//!   32 otherwise.
//! - **Verdicts** (`vd_*`, RxControl to RxPlace): RxPlace takes the offered verdict in the cycle
//!   its run's first beat is placed (`vd_valid` high then) and acknowledges it with `vd_ready`
//!   in the **next** cycle, from a register; in that cycle it ignores `vd_valid`. A source holds
//!   `vd_*` until `vd_ready` (so it still offers the taken verdict then) and may offer the next
//!   one from the cycle after; one verdict every 2 cycles at most. `vd_addr` (and its flags)
//!   means something only with `vd_place`: a dropped run writes nothing, whatever the address. Registered so that RxControl's
//!   enables do not start at `dma_wr_ready` (`docs/decisions.md` "RxPlace: `vd_ready` from a
//!   register"). `vd_a10` / `vd_a20` come with `vd_addr`: its carry-select flags, address bits
//!   11..2 all ones and 21..2 all ones (RxControl registers them with the address, so RxPlace
//!   has no all-ones tree on the port).
//! - Addresses and lengths: `TO` is 64 bits, segment lengths 16 bits (ULPDU_Length), message
//!   and region lengths 32 bits.

pub mod rx_parse;
pub mod rx_place;
pub mod stag_check;
pub mod stag_table;
pub mod tx;

// # Port lists (the contract between the blocks; names are exact)
//
// DdpRxParse (rx_parse.rs)
//   in : clock; ulpdu_data[32] ulpdu_keep[4] ulpdu_first ulpdu_last ulpdu_good ulpdu_valid
//        ulpdu_conn[CONN_BITS] ulpdu_len[16] (MpaRx outputs); job_ready; pay_ready;
//        hdr_a_addr[CONN_BITS+1+HDR_WORD_BITS] hdr_b_addr[..]; free_valid free_conn free_slot
//   out: ulpdu_ready; job_valid job_conn job_slot job_len[16]; pay_data[32] pay_keep[4]
//        pay_first pay_last pay_good pay_valid pay_conn; hdr_a_data[32] hdr_b_data[32]
//
// RxPlace (rx_place.rs)
//   in : clock; pay_* (as above) ; vd_valid vd_conn vd_place vd_addr[DMA_ADDR_BITS] vd_a10
//        vd_a20; dma_wr_ready; done_ready
//   out: pay_ready; vd_ready; dma_wr_addr[32] dma_wr_data[32] dma_wr_keep[4] dma_wr_last
//        dma_wr_valid; done_valid done_conn done_good
//
// StagCheck (stag_check.rs, owns the StagTable RAMs of stag_table.rs)
//   in : clock; prog_write prog_index[STAG_INDEX_BITS] prog_valid prog_key[8] prog_pd[PD_BITS]
//        prog_access[4] prog_qp_bound prog_qp[CONN_BITS] prog_remote_inv prog_base_to[64]
//        prog_len[32] prog_host_addr[DMA_ADDR_BITS];
//        chk_valid chk_tag[CHK_TAG_BITS] chk_stag[32] chk_to[64] chk_len[32] chk_pd[PD_BITS]
//        chk_qp[CONN_BITS] chk_access[4] chk_invalidate
//   out: rsp_valid rsp_tag[CHK_TAG_BITS] rsp_status[3] rsp_host_addr[DMA_ADDR_BITS]
//   timing: a response STAG_CHECK_LATENCY cycles after each request; a request in the cycle
//        after another cancels that one (no response; the table is read over 2 cycles);
//        prog_write at most every 2 cycles unless repeating the same fields; prog_index and
//        the fields held unchanged in the cycle after prog_write (word 0 is written then);
//        a new commit 2 or 3 cycles after the previous one, with an invalidation's clear
//        waiting for the table's write port, is written invalid (stag_check.rs, "Collision
//        rule"; the driver's commits are 7 MMIO writes apart and never meet it).
//   width: the Cu table keeps base_TO[31:0]; a prog_write with prog_base_to[63:32] != 0
//        writes the entry invalid (the driver registers no region above 2^32).

/// `rsp_status` values of [`stag_check::StagCheck`]. A check request (`chk_invalidate = 0`)
/// runs, in this order (`rfc5040-rdmap.md` §5.4: wrap before bounds, so a wrapped sum is never
/// range-compared): index below [`STAG_ENTRIES`](crate::config::STAG_ENTRIES), entry valid and
/// key equal, else `INVALID_STAG`; entry PD = `chk_pd` and (entry not QP-bound or bound to
/// `chk_qp`), else `NOT_ASSOCIATED`; every right of `chk_access` granted, else `ACCESS`;
/// `TO + len` not above 2^64, else `WRAP`; `base_to <= TO` and `TO + len <= base_to + len_of_region`,
/// else `BOUNDS`; otherwise `OK` with `rsp_host_addr = host_addr + (TO - base_to)`. An invalidate
/// request (`chk_invalidate = 1`, `rfc5040-rdmap.md` §6.1 item 7) runs the first two checks,
/// then `NOT_INVALIDATABLE` unless the entry's `remote_inv` flag is set, and on `OK` clears the
/// entry's valid bit (a request issued after that response sees the STag invalid).
pub mod check_status {
    /// Every check passed (and an invalidate took effect).
    pub const OK: u8 = 0;
    /// Index out of the table, entry not valid, or key mismatch.
    pub const INVALID_STAG: u8 = 1;
    /// Entry of another PD, or bound to another QP.
    pub const NOT_ASSOCIATED: u8 = 2;
    /// A required access right is missing.
    pub const ACCESS: u8 = 3;
    /// `TO + len` wraps past 2^64.
    pub const WRAP: u8 = 4;
    /// `[TO, TO + len)` is not inside the region.
    pub const BOUNDS: u8 = 5;
    /// Invalidate request on an entry without `remote_inv`.
    pub const NOT_INVALIDATABLE: u8 = 6;
}
