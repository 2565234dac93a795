//! HostIf (`docs/core.md` "HostIf", "DMA read channel", "DMA write channel"): the MMIO register
//! file (`rnic_proto::host::regs`), the QP context commit (`qpc_*`), STag programming
//! (`prog_*`), the SQ doorbell (`sq_db_*`), the RQ service for RxPath (`rq_req_*` /
//! `rq_rsp_*`), the CQE writer (receive `cqe_*`, send `scqe_*`; RdmaRead receive completions go
//! on to the send engine as `rdc_*`), the asynchronous events (`aev_*`, `qp_err_*`) and the DMA
//! arbiter (reads of the RQ fetch, `sq_rd_*`, `pay_rd_*`; writes of `place_wr_*` and the CQE
//! writer).
//!
//! # MMIO
//!
//! An access takes two cycles (`docs/core.md`: the master holds it until `mmio_ready`): in the
//! first (`ph` low, `mmio_ready` low: the wait state) the address decode is computed from the
//! port and registered (`we_q`, `mask_q`, `uwe_q`, `uwa_q`, `rz_q`, `qc_q`, `stc_q`,
//! `gw_q`); in the second (`ph` high, `mmio_ready` high) the access is performed from those
//! registers and the port's held address and data, so no decode reaches a RAM's write port (or `prog_write`,
//! StagCheck's commit strobe, now a register) from the port. A write takes effect at the end of
//! the second cycle, a read's data is on `mmio_rdata` with `mmio_rvalid` in the cycle after it
//! (a register, or the register RAM's registered read port). The status bits a read returns
//! (`rdata_q`) are taken in the wait cycle. "A cycle without MMIO access" below means a cycle
//! without an access taken (`ph` low): the engines and the event latch use the RAMs' ports in
//! the wait cycles too (the MMIO access uses them only in its second cycle). Every access
//! waits (not only those whose decode feeds a RAM): one flip-flop and no decode on the ready
//! path, and a PCIe core delivers an MMIO TLP only every several cycles anyway.
//! Registers keep only their implemented bits (STAG_INDEX `[5:0]`, STAG_FLAGS key / PD /
//! access / valid / bound / remote-invalidate / QP `[25:24]`, QP_CTRL `[23:0]`, log2 `[3:0]`);
//! reads return those, 0 elsewhere. QP_SQ_PI reads 0 (the send engine owns the SQ indexes);
//! QP_RQ_PI and CQ_CI read the last value written (reset by the commit / CQ_LOG2); QP_RQ_CI
//! shows a pop once its new value is written back (the first cycle without MMIO access after
//! the pop's two RAM cycles); unmapped addresses read 0 and ignore writes, and so do the
//! register windows of the QPs and CQs the core does not have: it has one CQ per QP (4, or 2
//! with `two-qps`: CAPS `[7:0]` and `[15:8]`), and QP_CTRL's SEND_CQ / RECV_CQ keep only the
//! bits of a CQ number it has (a driver takes the CQ count from CAPS and never names another).
//!
//! Strobes (`qpc_write`, `sq_db_valid`, `qp_err_valid`) are registers: they come in the cycle after
//! the MMIO write, all with the same one-cycle delay, so a QP_CTRL write followed by a QP_SQ_PI
//! write reaches the send engine in that order. Their fields (QP_CTRL `[19:0]` and the QP for
//! `qpc_*`, QP_SQ_PI `[15:0]` and the QP for `sq_db_*`) are valid with the strobe only
//! (`docs/core.md`): one register (`wd_q`, `wqp_q`) takes the write data and QP in every cycle and
//! serves both (16 + 2 flip-flops fewer than a copy per strobe). `prog_write` is the STAG_COMMIT
//! write's decode (`stc_q`, registered in its wait cycle), high in the cycle the write is
//! taken: the staging registers are then unchanged in that cycle and the next (an MMIO write
//! takes effect at the end of the cycle it is taken in), and StagCheck writes the entry's
//! second table word from them in the next cycle instead of keeping a 52-bit copy
//! (`docs/decisions.md`, "HostIf, CqeQueue, StagCheck: area"). The fields of the table's word 1
//! (`prog_index`, base TO `[31:16]`, length `[31:16]`, host address) are valid in the commit's
//! cycle: the index and STAG_TO_LEN_HI (base TO and length `[31:16]`, register map 2.0) are staging
//! flip-flops (valid in the next cycle too), and the host address is the STAG_COMMIT write's own
//! data (`prog_host_addr` = `mmio_wdata`, valid in that cycle only: StagCheck writes word 1 then,
//! and word 0's spare bits, which take it too, are never read). Those only word 0 needs (key, PD,
//! access, valid, bound, QP, remote invalidate: STAG_FLAGS; base TO and length `[15:0]`:
//! STAG_TO_LEN_LO) are valid only in the cycle after the commit: the commit write reads STAG_FLAGS
//! from the register RAM and STAG_TO_LEN_LO from the auxiliary RAM (word 12), whose read ports MMIO
//! does not use in a write's cycle, and `prog_*` are those read ports (issue 5: ~37 flip-flops
//! alone in their cells; StagCheck reads nothing else then, `hdl/src/ddp/stag_table.rs`; the paired
//! halves and the address as the commit's data: 48 more, `docs/decisions.md` "HostIf: the STag
//! registers paired"). For `prog_base_to`'s upper half: the Cu STag table keeps base TO bits 31..0
//! and programs an entry invalid when `prog_base_to[63:32] != 0` (`hdl/src/ddp/mod.rs`), so one
//! flip-flop keeps `STAG_BASE_TO_HI != 0` as `prog_base_to[32]` (`[63:33]` are 0; the register
//! reads back whole from the RAM). The `qpc_*` fields are QP_CTRL `[19:0]` registered from the
//! write, QP_ULPDU the auxiliary RAM's read port and `qpc_sq_base` / `qpc_sq_log2` the register
//! RAM's (QP_SQ_BASE `[31:5]` and `[3:0]`, register map 2.0), both of which the QP_CTRL write
//! addressed (an MMIO write never needs the read port).
//!
//! # Area choices (iCE40-HX8K, nearly full)
//!
//! - One register RAM of 256 x 32 bits ([`BlockRam`] with initial contents, 2 iCE40 block RAMs, word
//!   `mmio_addr[9:2]`: global registers 0x00.., QP registers 0x40 + 16 qp.., CQ registers
//!   0x80 + 8 cq..). Every register only MMIO writes is written there too (its implemented
//!   bits, masked at the write) and read back from there: the STag staging registers, QP_CTRL,
//!   QP_ULPDU, the ring bases and log2s, QP_RQ_PI, CQ_CI; the constants ID, VERSION, CAPS are
//!   its initial contents (never written). The latched event words (QP_AEV) are written there
//!   by the event latch (in a cycle without MMIO access) and read back from there. The MMIO
//!   read mux keeps only STATUS and the status words: a read of any other register that is not
//!   in the RAM (or reads 0, below) reads word 3 (STATUS's, never written: 0), so `mmio_rdata`
//!   is the RAM's read port ORed with the 2-bit status word, no gating. Flip-flops are kept where a value is
//!   needed continuously or in the commit's cycle: the STag staging registers (they are
//!   `prog_*`), QP_CTRL's CQ numbers (per CQE). The SQ's log2 is QP_SQ_BASE `[3:0]` (map 2.0),
//!   on the read port with the base at the commit.
//! - An auxiliary RAM ([`BlockRam`]`<32, 4>`, 2 block RAMs, MMIO-written only) is a second read
//!   port: QP_ULPDU (word qp: read at every MMIO address's QP, so the commit finds it next to
//!   SQ_BASE without 4 x 32 flip-flops and a 4:1 mux), QP_RQ_LOG2 (4 + qp) and CQ_LOG2
//!   (8 + cq), STAG_TO_LEN_LO (12, read by the STag commit), which the engines read together
//!   with their register-RAM reads (the RQ service's producer-index read, the CQE writer's
//!   index reads). A CQ_LOG2 rewrite in the middle of
//!   that CQ's CQE (never done: it resets the CQ) would be seen from the CQE writer's next read.
//! - The ring indexes live only in the RAM: QP_RQ_PI and CQ_CI (host-written), QP_RQ_CI and
//!   CQ_PI (written back by the RQ service's pop and the CQE writer, read-modify-write). A
//!   per-QP / per-CQ bit says "written since the reset" (QP_CTRL, CQ_LOG2); without it the
//!   index is 0. So there are no per-QP 16-bit index registers, incrementers or 4:1 muxes.
//!   An engine's read of an index not written since its reset reads word 3 (0) instead, so the
//!   read port is the index (`ix`) for all four with no mask; MMIO reads of such an index too. The CQ fill check compares the producer index with `ci + size`
//!   (computed at the CQ_CI read), so no size register.
//! - Port use: the read port serves an MMIO read, else the QP_CTRL write's SQ_BASE (commit);
//!   the write port an MMIO write. In a cycle without MMIO access the read port serves the RQ
//!   service, else the CQE writer (indexes, ring bases), and the write port the RQ service's
//!   new consumer index, else the CQE writer's new producer index: no MMIO read ever reads a
//!   word being written (undefined on the iCE40) and no engine reads a word the host writes.
//!   An engine waits in its state until it gets the port.
//! - The CQE writer holds no copy of the CQE: the source (`cqe_*` or `scqe_*`) keeps its valid
//!   and fields until the writer's one-cycle ready after the CQE's last beat (or its drop).
//!   A receive CQE comes from the CqeQueue as its 4 beats (`cqe_beat*`, each held until
//!   taken; beat 3 without the owner bit), which the writer asks for with `cqe_go` once it
//!   took the CQE (its states after Idle): the write data is then `cqe_beat` as it is, and only
//!   the send CQE's fields (beats 0 and 1) and beat 3's QP and owner are multiplexed
//!   (issue 5: the CqeQueue's 100-bit holding register and this block's 4:1 beat multiplexer
//!   are gone, `docs/decisions.md` "CqeQueue and HostIf: the receive CQE as beats"). From
//!   `cqe_go` on, the source's opcode and status are not looked at (`rdc_valid` is low): the
//!   CqeQueue's read port shows the beats then. The write's valid drops between the receive
//!   beats that are not ready yet (the arbiter stays locked on the CQE's write).
//! - The DMA arbiters are combinational muxes without buffers; completions are routed by
//!   `dma_rd_cpl_tag[4:3]` with no register (requesters have no ready).
//!
//! # RQ service
//!
//! One request at a time (`rq_req_ready` = the service is idle). A pop (no answer) reads the
//! QP's consumer index from the RAM and writes it back + 1 (busy at least 3 cycles). A read
//! reads the consumer, then the producer index (one RAM cycle each) and is answered with
//! `present = 0` six cycles after it was taken (with no MMIO access meanwhile) when consumer =
//! producer; else the 16-octet WQE at `base + (ci mod 2^log2) *
//! 16` is read by DMA (requester 0, sub tag 0; 16-octet aligned, so 4 full DW-aligned beats;
//! QP_RQ_BASE `[3:0]` are ignored, the address is kept in 16-octet units, `rq_addr`),
//! and the answer (`present = 1`, the WQE, `rq_rsp_index = ci`) comes in the cycle after its
//! last beat. The answer registers keep that WQE: a read of the same QP before any pop or
//! QP_CTRL write is answered from them in the next cycle (`rq_hit`), so the segments of one
//! Send after its first cost no DMA read (RxControl asks for the head WQE per segment).
//! The TO's bits 63..33 are kept as their class only (issue 5: 2 flip-flops, not 31;
//! `docs/core.md`): `rq_rsp_to` rebuilds them as all ones, all ones but bit 33, 1 (other
//! non-zero) or 0, and RxControl, the only reader, looks at nothing else of them (its
//! `to_hz` / `to_ho` / `to_hm1`, for the StagCheck's WRAP / BOUNDS classes). Likewise the
//! lkey's bits 31..14 (issue 5: 1 flip-flop, not 18): `rq_rsp_lkey` rebuilds them as all ones
//! when they were not all zero, else 0. Its only reader is the StagCheck (through RxControl's
//! `chk_stag_q`), for which any STag with those bits not all zero is `INVALID_STAG` (an index
//! not below [`STAG_ENTRIES`](crate::config::STAG_ENTRIES)).
//!
//! **Prefetch after a pop** (issue 5: a 4 KiB Send took ~1125 cycles to place against 1060 on
//! the wire, the first segment of each Send waiting a DMA round trip for its WQE, so the
//! receiver fell behind the sender): a pop goes on to read the producer index and, when the RQ
//! is not empty, fetches the new head WQE into the answer registers (`rq_pf`: no answer at the
//! end, `rq_hit` set), exactly as a read would. The next Send's first read is then answered in
//! the next cycle. Requests wait meanwhile (`rq_req_ready` = idle). A QP_CTRL write of the QP
//! during the prefetch is not supported (as for a read: the driver resets only idle QPs).
//!
//! # Ring address
//!
//! The RQ service's WQE address and the CQE writer's CQE address are one register, `ring_q`
//! (bits 31..4), loaded from the one ring adder (`ring_sum`) in either engine's `Addr` state
//! (issue 5: two registers loaded from the adder each took a logic cell per flip-flop, 40
//! cells). The RQ reads it in `Req` (the DMA read request), the CQE writer in `Write` (every
//! beat's address). The RQ comes first, so that it never waits for the CQE writer while that
//! waits for the DMA write arbiter (which can stay locked on a placement write whose segment
//! waits behind the RQ's answer: the deadlock of `cqe_queue.rs`'s header):
//! - the RQ's `Base` waits only while the CQE writer *holds* `ring_q`: beat 0 taken, beat 3
//!   not yet (the arbiter is then locked on the CQE, whose beats wait for nothing but the DMA
//!   write port and the CqeQueue);
//! - the CQE writer's beat 0 waits while the RQ is in `Base` or `Addr`, and a writer still in
//!   `Write` with no beat taken when the RQ loads `ring_q` (`Addr`) goes back to `Base` and
//!   reloads its address;
//! - the CQE writer's `Base` is not granted while the RQ is in `Addr` or `Req` (a bounded wait:
//!   the RQ's request has the DMA read port's first priority).
//!
//! # CQE writer
//!
//! Round robin between receive and send CQEs. Per CQE: the CQ (QP_CTRL RECV_CQ / SEND_CQ),
//! its CQ_CI and CQ_PI (RAM), then its state: when full (`pi - ci == 2^log2`) or already
//! overflowed, the CQE is dropped, the CQ latches overflow and the CQE's QP gets the async
//! event CqOverflow (if it has none latched) with a `qp_err` strobe (RFC 5040 §8.1 item 10;
//! other CQs go on). Else one posted write of 4 beats at `base + (pi mod 2^log2) * 16`
//! (`rnic_proto::host::Cqe`, owner bit `cqe_owner(pi, log2)`), then `pi + 1` is written back
//! to the RAM before the CQE's ready. The write arbiter gives placement writes priority at
//! packet boundaries and switches only after a `last` beat, so a segment's placement reaches
//! the host before the CQE it causes.
//!
//! # Events
//!
//! An event is taken (`aev_ready`) in the second of two cycles without MMIO access (the first
//! looks at it: registered decisions), the second also without an engine's index write-back
//! pending (RQ `PopW`, CQE `Pw`): the event word goes into
//! the register RAM through its write port, which an MMIO write owns and an MMIO read must not
//! find writing (RxPath holds an event until it is taken). An event of a QP with none latched
//! is latched (QP_AEV in the RAM, the per-QP valid bit for QP_STATUS and the read-back) and
//! strobes `qp_err` in the next cycle; later events of that QP are dropped. A CQ overflow event
//! waits for a cycle without `aev_valid` and without MMIO access, so the two sources never
//! strobe in one cycle. The engines' index write-backs go first (`aev_ready` is also low in
//! their write cycle: the write-port grant does not wait for the event logic).
//!
//! # Size and timing
//!
//! With the harness of the seventeenth session on (loop-backs, I/O-tile registers), the block
//! alone measures 77-84 MHz over nextpnr seeds (helper host2, `docs/decisions.md` "Seventeenth
//! session"): the failing path runs from a harness input through the CQE writer's hand-off, a
//! path the composed core drives from registers. With one ring-address register (`ring_q`,
//! 2026-11-30, twentieth session): 873 logic cells for the block (765 LUT4, 267 DFF, 50
//! carry), 79.9 MHz post-route, the path from the harness's `aev_valid` through `ev_ld` to the
//! register RAM's write enable. The figures below are from older harnesses.
//!
//! Standalone on the HX8K (`rnic synth --board alchitry-cu --block host_if`, `--freq 100`, the
//! profile): 874 logic cells for the block (856 LUT4, 346 DFF, 97 carry), 106.6 MHz since the
//! strobes' fields share one register (2026-11-29, fourteenth session). Before: 884 logic cells
//! (851 LUT4, 361 DFF, 97 carry), 103.3 MHz since register map 2.0 (2026-11-29: the STag halves
//! paired and the host address as the commit's data, the SQ log2 in QP_SQ_BASE, the RQ address in
//! 16-octet units; `docs/decisions.md` "HostIf: the STag registers paired"). Before: 963 logic
//! cells (874 LUT4, 421 DFF, 97 carry), 107.7 MHz (103.0 in the same session's baseline; seeds 2,
//! 3: 99.5 / 98.4) since the profile has one CQ per QP (2026-11-29; 1003 cells, 908 LUT4, 432 DFF,
//! 105.0 MHz with 4 CQs). Before: 997 logic cells for the block (870 LUT4, 432 DFF, 97 carry),
//! 100.9 MHz (2026-11-28: the CQE address in 16-octet units with the beat in `[3:2]`, STag word 0's
//! fields from the RAMs' read ports, zero reads from word 3, the `cw_w` flag). Before: 1071 cells
//! (938 LUT4, 475 DFF, 99 carry), 104.5 MHz; 1149 logic cells (993 LUT4, 505 DFF, 99 carry), 102.9
//! MHz, since the receive CQE comes as beats (2026-11-25). Before: 1208 logic cells (1051 LUT4, 505
//! DFF, 99 carry), 107.1 MHz, since the RQ answer keeps the TO's bits 63..33 as their class. Before
//! that: 1238 logic cells for the block (1051 LUT4, 534 DFF, 99 carry) and 4 block RAMs; 105.3 MHz
//! (2026-11-25, after QP_AEV went into the register RAM and the CQE address adder moved behind a
//! register, `docs/decisions.md` "HostIf, CqeQueue, StagCheck: area"; nextpnr's placement moves it
//! by several MHz from build to build: seeds 1..3 106.6 / 98.6 / 104.8). Before those: 1344 cells
//! (1057 LUT4, 655 DFF, 125 carry), 103.5 MHz. Before the auxiliary RAM and the other steps of
//! `docs/decisions.md` "HostIf:
//! area (issue 5)": 1684 cells (1222 LUT4, 859 DFF, 125 carry), 2 block RAMs, 100.4 MHz. (1295 LUT4
//! and 101.4 / 105.8 MHz before each QP's event word got one load, `ev_*`: its two loads, RxPath's
//! event and the CQE writer's CqOverflow, made yosys build a feedback mux per bit instead of using
//! the flip-flops' enables.) Issue 5; before the register RAM: 2615 cells, 2058 LUT4, 1147 DFF, 209
//! carry, 99.1 MHz, the path then the MMIO read mux (`mmio_addr` → the per-QP / per-CQ muxes →
//! `rdata_q`), which the read-back of the RAM-held registers removed. The path at 1684 cells: the
//! RAM's output → the 32-bit address adder (`base + offset`, the engines' `Addr` states) →
//! `cw_addr` / `rq_addr`, 9.9 ns (6.5 of it logic); at 1344 cells: the RAM's output → `ix` → the
//! RQ's empty compare → `rq_empty`, 9.7 ns (4.1 logic). Registering the base first (adding the
//! offset from registers) was tried: 1360 LUT4 (the address register's third source is not shared
//! with the `+ 4` adder) and 98.9 MHz with another path, so not kept then; it was later, with one
//! adder for `+ offset` and `+ 4` (a state `Add`). Now CQ_BASE's 16-octet alignment
//! (`rnic_proto::host::regs::CQ_BASE`) gives the beats' offsets as `cw_beat` in address bits
//! `[3:2]`: `cw_addr` is bits 31..4, `base + (pi mod size)` straight from the RAM in `Addr` (as
//! the RQ's `rq_addr`), with no `+ 4` adder and no `Add` state. The CQ fill check,
//! the ring offsets and the owner bit are registered (the CQE writer's `Sel` / `Full` states, the
//! RQ's `Check` / `Empty`).
//!
//! `idle`: no RQ request or answer, no CQE in the writer, no write packet in progress and no
//! strobe pending.

use crate::config::{
    CONN_BITS, CQS, CQ_BITS, DMA_ADDR_BITS, DMA_LEN_BITS, DMA_SUB_TAG_BITS, DMA_TAG_BITS,
    LOCAL_LEN_BITS, PD_BITS, QPS, RING_INDEX_BITS, RING_LOG2_BITS, STAG_INDEX_BITS,
};
use crate::ram::BlockRam;
use rnic_proto::host::{regs, CQS as CQ_WINDOWS, QP_WINDOWS};
use rust_hdl::prelude::*;

/// The bits of a WQE's lkey that the answer keeps (`rsp_lkey`): the key (7..0,
/// [`STAG_KEY_BITS`](rnic_proto::verbs::STAG_KEY_BITS)) and the STag index (13..8,
/// [`STAG_INDEX_BITS`]). The StagCheck answers `INVALID_STAG` to any STag with bits 31..14 not
/// all zero, so those are kept as one flag (`rsp_lkey_hi`).
pub const RQ_LKEY_BITS: usize = rnic_proto::verbs::STAG_KEY_BITS as usize + STAG_INDEX_BITS;
/// Bits of a ring address in 16-octet units (`ring_q`).
const RING_ADDR_BITS: usize = DMA_ADDR_BITS - 4;

/// The register RAM's initial contents: the constant registers ID, VERSION, CAPS and FEATURES
/// (never written), so that their reads need no multiplexer.
fn reg_ram_contents() -> Vec<Bits<32>> {
    use crate::config::{MARKERS, STAG_ENTRIES};
    let caps = (QPS as u64)
        | ((CQS as u64) << 8)
        | ((STAG_ENTRIES.trailing_zeros() as u64) << 16)
        | (4u64 << 24);
    let features = if MARKERS { regs::FEATURES_MARKERS } else { 0 }
        | (DMA_ADDR_BITS as u32) << regs::FEATURES_DMA_ADDR_SHIFT
        | (RING_INDEX_BITS as u32) << regs::FEATURES_RING_INDEX_SHIFT
        | (LOCAL_LEN_BITS as u32) << regs::FEATURES_LEN_SHIFT;
    let mut mem = vec![Bits::default(); 256];
    mem[(regs::ID >> 2) as usize] = u64::from(regs::ID_VALUE).into();
    mem[(regs::VERSION >> 2) as usize] = u64::from(regs::VERSION_VALUE).into();
    mem[(regs::CAPS >> 2) as usize] = caps.into();
    mem[(regs::FEATURES >> 2) as usize] = u64::from(features).into();
    mem
}

/// RQ service states.
#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
pub enum RqState {
    Idle,
    Ci,
    CiD,
    Pi,
    Check,
    Empty,
    Base,
    Addr,
    Req,
    Data,
    Pop,
    PopC,
    PopW,
}

/// CQE writer states.
#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
pub enum CwState {
    Idle,
    Cq,
    Ci,
    CiD,
    Pi,
    Sel,
    Full,
    Base,
    Addr,
    Write,
    Ovf,
    Pw,
    Done,
}

/// The host interface.
#[derive(LogicBlock)]
pub struct HostIf {
    pub clock: Signal<In, Clock>,
    // MMIO.
    pub mmio_valid: Signal<In, Bit>,
    pub mmio_write: Signal<In, Bit>,
    pub mmio_addr: Signal<In, Bits<12>>,
    pub mmio_wdata: Signal<In, Bits<32>>,
    /// The access on the port is taken in this cycle (with `mmio_valid`): high in the second
    /// cycle of every access (the first is a wait state, see "MMIO").
    pub mmio_ready: Signal<Out, Bit>,
    pub mmio_rvalid: Signal<Out, Bit>,
    pub mmio_rdata: Signal<Out, Bits<32>>,
    pub rx_idle: Signal<In, Bit>,
    pub tx_idle: Signal<In, Bit>,
    /// RxPath's strobe: a good FPDU of connection `fpdu_good_conn` arrived (`QP_STATUS[1]`).
    pub fpdu_good_valid: Signal<In, Bit>,
    pub fpdu_good_conn: Signal<In, Bits<CONN_BITS>>,
    // QP context commit.
    pub qpc_write: Signal<Out, Bit>,
    pub qpc_qp: Signal<Out, Bits<CONN_BITS>>,
    pub qpc_enable: Signal<Out, Bit>,
    pub qpc_fpdu_mode: Signal<Out, Bit>,
    pub qpc_rx_crc: Signal<Out, Bit>,
    pub qpc_rx_markers: Signal<Out, Bit>,
    pub qpc_tx_crc: Signal<Out, Bit>,
    pub qpc_tx_markers: Signal<Out, Bit>,
    pub qpc_pd: Signal<Out, Bits<PD_BITS>>,
    pub qpc_ird: Signal<Out, Bits<4>>,
    pub qpc_ord: Signal<Out, Bits<4>>,
    pub qpc_rx_max_ulpdu: Signal<Out, Bits<16>>,
    pub qpc_tx_mulpdu: Signal<Out, Bits<16>>,
    pub qpc_sq_base: Signal<Out, Bits<32>>,
    pub qpc_sq_log2: Signal<Out, Bits<RING_LOG2_BITS>>,
    // STag programming.
    pub prog_write: Signal<Out, Bit>,
    pub prog_index: Signal<Out, Bits<STAG_INDEX_BITS>>,
    pub prog_valid: Signal<Out, Bit>,
    pub prog_key: Signal<Out, Bits<8>>,
    pub prog_pd: Signal<Out, Bits<PD_BITS>>,
    pub prog_access: Signal<Out, Bits<4>>,
    pub prog_qp_bound: Signal<Out, Bit>,
    pub prog_qp: Signal<Out, Bits<CONN_BITS>>,
    pub prog_remote_inv: Signal<Out, Bit>,
    pub prog_base_to: Signal<Out, Bits<64>>,
    pub prog_len: Signal<Out, Bits<32>>,
    pub prog_host_addr: Signal<Out, Bits<DMA_ADDR_BITS>>,
    // SQ doorbell.
    pub sq_db_valid: Signal<Out, Bit>,
    pub sq_db_qp: Signal<Out, Bits<CONN_BITS>>,
    pub sq_db_pi: Signal<Out, Bits<RING_INDEX_BITS>>,
    // RQ service.
    pub rq_req_valid: Signal<In, Bit>,
    pub rq_req_qp: Signal<In, Bits<CONN_BITS>>,
    pub rq_req_pop: Signal<In, Bit>,
    pub rq_req_ready: Signal<Out, Bit>,
    pub rq_rsp_valid: Signal<Out, Bit>,
    pub rq_rsp_present: Signal<Out, Bit>,
    pub rq_rsp_to: Signal<Out, Bits<64>>,
    /// The WQE's length, inverted (`!length`): kept so in its flip-flops (the inverter packs
    /// with them), so that RxControl's length compare is a bare carry chain (`docs/core.md`).
    pub rq_rsp_len_n: Signal<Out, Bits<32>>,
    pub rq_rsp_lkey: Signal<Out, Bits<32>>,
    pub rq_rsp_index: Signal<Out, Bits<16>>,
    // Receive CQEs.
    pub cqe_valid: Signal<In, Bit>,
    pub cqe_ready: Signal<Out, Bit>,
    pub cqe_qp: Signal<In, Bits<CONN_BITS>>,
    pub cqe_opcode: Signal<In, Bits<8>>,
    pub cqe_status: Signal<In, Bits<8>>,
    /// The CQE writer took the receive CQE and wants its beats (CqeQueue's `out_go`; the
    /// source's opcode and status are not looked at from then on).
    pub cqe_go: Signal<Out, Bit>,
    /// The receive CQE's 4 beats in order (CqeQueue's `out_beat*`; beat 3 without the owner).
    pub cqe_beat_valid: Signal<In, Bit>,
    pub cqe_beat_ready: Signal<Out, Bit>,
    pub cqe_beat: Signal<In, Bits<32>>,
    // RdmaRead completions to the send engine.
    pub rdc_valid: Signal<Out, Bit>,
    pub rdc_qp: Signal<Out, Bits<CONN_BITS>>,
    pub rdc_status: Signal<Out, Bits<8>>,
    pub rdc_ready: Signal<In, Bit>,
    // Send CQEs.
    pub scqe_valid: Signal<In, Bit>,
    pub scqe_ready: Signal<Out, Bit>,
    pub scqe_qp: Signal<In, Bits<CONN_BITS>>,
    pub scqe_opcode: Signal<In, Bits<8>>,
    pub scqe_status: Signal<In, Bits<8>>,
    pub scqe_byte_len: Signal<In, Bits<32>>,
    pub scqe_index: Signal<In, Bits<16>>,
    // Asynchronous events.
    pub aev_valid: Signal<In, Bit>,
    pub aev_ready: Signal<Out, Bit>,
    pub aev_qp: Signal<In, Bits<CONN_BITS>>,
    pub aev_kind: Signal<In, Bits<8>>,
    pub aev_layer: Signal<In, Bits<4>>,
    pub aev_etype: Signal<In, Bits<4>>,
    pub aev_code: Signal<In, Bits<8>>,
    pub qp_err_valid: Signal<Out, Bit>,
    pub qp_err_qp: Signal<Out, Bits<CONN_BITS>>,
    // DMA read requesters.
    pub sq_rd_req_valid: Signal<In, Bit>,
    pub sq_rd_req_addr: Signal<In, Bits<DMA_ADDR_BITS>>,
    pub sq_rd_req_len: Signal<In, Bits<DMA_LEN_BITS>>,
    pub sq_rd_req_tag: Signal<In, Bits<DMA_SUB_TAG_BITS>>,
    pub sq_rd_req_ready: Signal<Out, Bit>,
    pub sq_rd_cpl_valid: Signal<Out, Bit>,
    pub sq_rd_cpl_tag: Signal<Out, Bits<DMA_SUB_TAG_BITS>>,
    pub sq_rd_cpl_data: Signal<Out, Bits<32>>,
    pub sq_rd_cpl_keep: Signal<Out, Bits<4>>,
    pub sq_rd_cpl_last: Signal<Out, Bit>,
    pub pay_rd_req_valid: Signal<In, Bit>,
    pub pay_rd_req_addr: Signal<In, Bits<DMA_ADDR_BITS>>,
    pub pay_rd_req_len: Signal<In, Bits<DMA_LEN_BITS>>,
    pub pay_rd_req_tag: Signal<In, Bits<DMA_SUB_TAG_BITS>>,
    pub pay_rd_req_ready: Signal<Out, Bit>,
    pub pay_rd_cpl_valid: Signal<Out, Bit>,
    pub pay_rd_cpl_tag: Signal<Out, Bits<DMA_SUB_TAG_BITS>>,
    pub pay_rd_cpl_data: Signal<Out, Bits<32>>,
    pub pay_rd_cpl_keep: Signal<Out, Bits<4>>,
    pub pay_rd_cpl_last: Signal<Out, Bit>,
    // The core's DMA read port.
    pub dma_rd_req_valid: Signal<Out, Bit>,
    pub dma_rd_req_addr: Signal<Out, Bits<DMA_ADDR_BITS>>,
    pub dma_rd_req_len: Signal<Out, Bits<DMA_LEN_BITS>>,
    pub dma_rd_req_tag: Signal<Out, Bits<DMA_TAG_BITS>>,
    pub dma_rd_req_ready: Signal<In, Bit>,
    pub dma_rd_cpl_valid: Signal<In, Bit>,
    pub dma_rd_cpl_tag: Signal<In, Bits<DMA_TAG_BITS>>,
    pub dma_rd_cpl_data: Signal<In, Bits<32>>,
    pub dma_rd_cpl_keep: Signal<In, Bits<4>>,
    pub dma_rd_cpl_last: Signal<In, Bit>,
    // Placement writes (RxPath dma_wr_*).
    pub place_wr_valid: Signal<In, Bit>,
    pub place_wr_addr: Signal<In, Bits<DMA_ADDR_BITS>>,
    pub place_wr_data: Signal<In, Bits<32>>,
    pub place_wr_keep: Signal<In, Bits<4>>,
    pub place_wr_last: Signal<In, Bit>,
    pub place_wr_ready: Signal<Out, Bit>,
    // The core's DMA write port.
    pub dma_wr_valid: Signal<Out, Bit>,
    pub dma_wr_addr: Signal<Out, Bits<DMA_ADDR_BITS>>,
    pub dma_wr_data: Signal<Out, Bits<32>>,
    pub dma_wr_keep: Signal<Out, Bits<4>>,
    pub dma_wr_last: Signal<Out, Bit>,
    pub dma_wr_ready: Signal<In, Bit>,
    pub dma_wr_done: Signal<In, Bit>,
    pub idle: Signal<Out, Bit>,

    // ---- Constants.
    c_ones: Constant<Bits<RING_INDEX_BITS>>,
    /// TO bits 63..34 (the rebuilt TO's high bits when `rsp_to_hb`).
    c_to_hb: Constant<Bits<64>>,
    /// The lkey's bits 31..14 (`rsp_lkey_hi`, and `rq_rsp_lkey`'s when it is set).
    c_lkey_hi: Constant<Bits<32>>,
    c_one: Constant<Bits<RING_INDEX_BITS>>,
    c_rdma_read: Constant<Bits<8>>,
    c_cq_overflow: Constant<Bits<8>>,
    /// QP_AEV's valid bit.
    c_aev_valid: Constant<Bits<32>>,
    c_m_all: Constant<Bits<32>>,
    c_m_index: Constant<Bits<32>>,
    c_m_flags: Constant<Bits<32>>,
    c_m_ctrl: Constant<Bits<32>>,
    /// The RQ PI / CQ CI write mask: a ring index (`RING_INDEX_BITS`, the upper bits read 0).
    c_m_ring: Constant<Bits<32>>,
    c_m_log2: Constant<Bits<32>>,

    // ---- The register RAM, word `mmio_addr[9:2]`: every register only MMIO writes (its
    // implemented bits), read back from here; the engines read the ring bases, RQ_PI, CQ_CI.
    base: BlockRam<32, 8>,
    /// The auxiliary RAM (2 block RAMs, 16 words), a second read port for registers the MMIO
    /// writes: QP_ULPDU (word qp), QP_RQ_LOG2 (4 + qp), CQ_LOG2 (8 + cq; `[3:0]` used). It
    /// reads QP `mmio_addr[7:6]`'s ULPDU in every cycle, so that in the cycle after a QP_CTRL
    /// write it holds that QP's ULPDU while the register RAM holds its SQ_BASE (the commit);
    /// the engines read a log2 with their register-RAM reads (cycles without MMIO access).
    ulp: BlockRam<32, 4>,

    // ---- MMIO read.
    rvalid_q: DFF<Bit>,
    rdata_q: DFF<Bits<32>>,

    // ---- The MMIO wait state: the decode of the access on the port, registered in its first
    // cycle (`ph` low), used in its second (`ph` high, `mmio_ready`: the access is taken).
    ph: DFF<Bit>,
    /// The register RAM's MMIO write enable (`a_we`).
    we_q: DFF<Bit>,
    /// The register RAM's write mask (`a_mask`).
    mask_q: DFF<Bits<32>>,
    /// The auxiliary RAM's MMIO write enable and address.
    uwe_q: DFF<Bit>,
    uwa_q: DFF<Bits<4>>,
    /// A read of a register that reads 0 (the read port reads word 3).
    rz_q: DFF<Bit>,
    /// A QP_CTRL write (the read port reads the QP's SQ_BASE for the commit).
    qc_q: DFF<Bit>,
    /// A STAG_COMMIT write (`prog_write`; the read ports read STAG_FLAGS and STAG_TO_LEN_LO).
    stc_q: DFF<Bit>,
    /// A write of STAG_INDEX (bit 0), STAG_BASE_TO_HI (bit 1) or STAG_TO_LEN_HI (bit 2),
    /// decoded in its wait cycle (timing: the held address's decode stays off the staging
    /// registers' 39 enables).
    gw_q: DFF<Bits<3>>,

    // ---- STag staging.
    st_index: DFF<Bits<STAG_INDEX_BITS>>,
    /// STAG_TO_LEN_HI: base TO `[31:16]` and the length `[31:16]` (the table's word 1, written
    /// in the commit's cycle; the host address is the commit's data). The fields of word 0
    /// (written in the next cycle) are not kept in flip-flops: STAG_FLAGS and STAG_TO_LEN_LO
    /// (base TO and length `[15:0]`) are read from the register RAM and the auxiliary RAM in
    /// the commit's cycle and are on their read ports in the next.
    st_hi: DFF<Bits<32>>,
    /// STAG_BASE_TO_HI != 0 (the Cu STag table keeps base TO bits 31..0 and programs an entry
    /// with a nonzero upper half invalid: `prog_base_to[32]` carries this flag, `[63:33]` are 0).
    st_to_hi_nz: DFF<Bit>,

    // ---- Per QP.
    /// QP_CTRL's CQ numbers (their implemented bits): SEND_CQ, RECV_CQ.
    q_scq: [DFF<Bits<CQ_BITS>>; QPS],
    q_rcq: [DFF<Bits<CQ_BITS>>; QPS],
    /// QP_RQ_PI was written since the QP_CTRL write (else it reads 0; the value is in the RAM).
    q_pi_v: [DFF<Bit>; QPS],
    /// The RQ service wrote QP_RQ_CI since the QP_CTRL write (else it is 0).
    q_ci_v: [DFF<Bit>; QPS],
    q_aev_v: [DFF<Bit>; QPS],
    /// An FPDU arrived since the QP_CTRL write (QP_STATUS[1]).
    q_fpdu: [DFF<Bit>; QPS],
    qpc_q: DFF<Bit>,
    db_q: DFF<Bit>,
    /// The previous cycle's MMIO write data `[19:0]` and QP (loaded in every cycle): the fields
    /// of both strobes, which come in the cycle after their write (QP_CTRL `[19:0]` for
    /// `qpc_*`, QP_SQ_PI `[15:0]` for `sq_db_pi`), so one register serves both.
    wd_q: DFF<Bits<20>>,
    wqp_q: DFF<Bits<CONN_BITS>>,
    qe_q: DFF<Bit>,
    /// RxPath's event was looked at in the previous cycle (free, no MMIO access): `ev_new`,
    /// its QP had none latched.
    ev_go: DFF<Bit>,
    ev_new: DFF<Bit>,
    qe_qp_q: DFF<Bits<CONN_BITS>>,

    // ---- Per CQ.
    /// The CQE writer wrote CQ_PI since the CQ_LOG2 write (else it is 0).
    c_pi_v: [DFF<Bit>; CQS],
    /// CQ_CI was written since the CQ_LOG2 write (else it reads 0; the value is in the RAM).
    c_ci_v: [DFF<Bit>; CQS],
    c_ovf: [DFF<Bit>; CQS],

    // ---- RQ service.
    rq_state: DFF<RqState>,
    rq_qp: DFF<Bits<CONN_BITS>>,
    rq_beat: DFF<Bits<2>>,
    rq_empty: DFF<Bit>,
    /// The answer registers hold the head WQE of QP `rq_qp` (no pop nor commit since).
    rq_hit: DFF<Bit>,
    /// The service is prefetching the head WQE after a pop (no answer at its end).
    rq_pf: DFF<Bit>,
    rsp_v: DFF<Bit>,
    rsp_present: DFF<Bit>,
    rsp_index: DFF<Bits<RING_INDEX_BITS>>,
    /// The WQE's length inverted (`rq_rsp_len_n`), its low [`LOCAL_LEN_BITS`] (the driver
    /// posts none longer, FEATURES `[31:24]`).
    rsp_len_n: DFF<Bits<LOCAL_LEN_BITS>>,
    /// `rsp_len_n` back to the length, and zero-extended (so that `rq_rsp_len_n`'s upper bits
    /// are ones: inverted through signals of their own widths).
    rsp_len: Signal<Local, Bits<LOCAL_LEN_BITS>>,
    rsp_len32: Signal<Local, Bits<32>>,
    /// The WQE's lkey, bits 13..0 (key and STag index, [`RQ_LKEY_BITS`]); bits 31..14 only as
    /// their class (`rsp_lkey_hi` = not all zero: an index the StagCheck answers with
    /// `INVALID_STAG`, whatever its value; see "RQ service").
    rsp_lkey: DFF<Bits<RQ_LKEY_BITS>>,
    rsp_lkey_hi: DFF<Bit>,
    /// The WQE TO, bits 31..0 and 32; bits 63..33 only as their class for RxControl (see "RQ
    /// service"): `rsp_to_hb` = bits 63..34 all ones, `rsp_to_b33` = bit 33 if so, else
    /// bits 63..33 not all zero.
    rsp_to_b32: DFF<Bit>,
    rsp_to_b33: DFF<Bit>,
    rsp_to_hb: DFF<Bit>,
    rsp_to_lo: DFF<Bits<32>>,

    // ---- CQE writer.
    cw_state: DFF<CwState>,
    cw_send: DFF<Bit>,
    cw_last_send: DFF<Bit>,
    cw_qp: DFF<Bits<CONN_BITS>>,
    cw_cq: DFF<Bits<CQ_BITS>>,
    /// The ring address bits 31..4 of the engine that last was in `Addr` (`ring_sum`): the
    /// RQ's WQE (QP_RQ_BASE is 16-octet aligned, `[3:0]` ignored), read in `Req`, or the CQE
    /// (CQ_BASE is 16-octet aligned; the beat's `[3:2]` are `cw_beat`), read in `Write`. One
    /// register for both (see "Ring address"); it packs with the adder's cells.
    ring_q: DFF<Bits<RING_ADDR_BITS>>,
    /// The CQE writer has had beat 0 taken and not yet beat 3: it holds `ring_q` (the RQ's
    /// `Base` waits), and its beats wait for nothing but the DMA write port and the CqeQueue.
    cw_hold: Signal<Local, Bit>,
    /// The RQ service is in `Base` or `Addr` (about to load `ring_q`): the CQE writer's beat 0
    /// waits.
    rq_ld: Signal<Local, Bit>,
    cw_beat: DFF<Bits<2>>,
    /// The CQE writer is in state Write (a flag, not the state's decode: the beat handshake
    /// to the state's enable is the block's longest path).
    cw_w: DFF<Bit>,
    cw_owner: DFF<Bit>,
    cw_full: DFF<Bit>,
    /// CQ_CI + the CQ size: the producer index of a full CQ (`pi - ci == size`).
    cw_diff: DFF<Bits<RING_INDEX_BITS>>,
    cw_pi: DFF<Bits<RING_INDEX_BITS>>,
    /// The producer index mod the CQ size (the CQE's ring offset in 16-octet units).
    cw_off: DFF<Bits<RING_INDEX_BITS>>,
    /// The RQ's consumer index mod its size (the WQE's ring offset in 16-octet units).
    rq_off: DFF<Bits<RING_INDEX_BITS>>,
    /// The ring base on the register RAM's read port plus the ring offset of the engine in
    /// state `Addr` (`rq_off` or `cw_off`): one adder for both (the read port was granted to
    /// one engine in the cycle before, so at most one is in `Addr` with its base there).
    ring_sum: Signal<Local, Bits<RING_ADDR_BITS>>,
    ring_off: Signal<Local, Bits<RING_INDEX_BITS>>,

    // ---- Write arbiter.
    wr_lock: DFF<Bit>,
    wr_lock_cw: DFF<Bit>,
    /// STATUS's idle bits (`rx_idle`, `tx_idle`) at the previous edge: their sources run
    /// through the blocks' state and MpaTx's output (timing).
    idle_q: DFF<Bits<2>>,
    wr_pick_q: DFF<Bit>,
    /// The write arbiter's choice in this cycle (the CQE writer has the DMA write port),
    /// computed at the edge before from the next values of its sources (`wr_lock`,
    /// `wr_lock_cw`, `cw_w`, `wr_pick_q`): `place_wr_ready` is one LUT
    /// after a register and the DMA port's ready (timing: the routed core's RxPlace groups
    /// `em_data` / `hr_oh` / `hold_v` began with `cw_w` -> `pick_cw` -> `place_wr_ready`).
    pick_cw_q: DFF<Bit>,
    /// The CQE writer may take a receive CQE's beat in this cycle but for the DMA port's
    /// ready and the beat's valid (`cw_w`, beat 0 not held for `ring_q`, not a send CQE,
    /// `pick_cw_q`), from the next values at the edge before: `cqe_beat_ready` is one LUT
    /// after a register and the DMA port's ready (timing: the routed core's CqeQueue `lo`
    /// group began at `rq_state` -> `rq_ld` -> `cw_wv` -> `cqe_beat_ready`).
    cw_go_q: DFF<Bit>,

    // ---- Combinational.
    /// A read / write taken in this cycle (`ph` high).
    rd: Signal<Local, Bit>,
    wr: Signal<Local, Bit>,
    /// A read / write in its wait cycle (decoded for the registers `*_q` above).
    pr: Signal<Local, Bit>,
    pw: Signal<Local, Bit>,
    ulp_we: Signal<Local, Bit>,
    ulp_wa: Signal<Local, Bits<4>>,
    a_glob: Signal<Local, Bit>,
    a_qp: Signal<Local, Bit>,
    a_cq: Signal<Local, Bit>,
    a_q: Signal<Local, Bits<CONN_BITS>>,
    a_c: Signal<Local, Bits<CQ_BITS>>,
    /// The MMIO address's CQ window is one of a CQ the core has.
    a_cqx: Signal<Local, Bit>,
    a_goff: Signal<Local, Bits<8>>,
    a_qoff: Signal<Local, Bits<6>>,
    a_coff: Signal<Local, Bits<5>>,
    a_ram: Signal<Local, Bit>,
    a_ram_addr: Signal<Local, Bits<8>>,
    a_we: Signal<Local, Bit>,
    a_mask: Signal<Local, Bits<32>>,
    /// `{mmio_addr[9:8], mmio_addr[4:2]}`: selects the write mask (`a_mask`).
    a_msel: Signal<Local, Bits<5>>,
    a_zero: Signal<Local, Bit>,
    rv: Signal<Local, Bits<32>>,
    m_pi_v: Signal<Local, Bit>,
    m_qci_v: Signal<Local, Bit>,
    m_aev_v: Signal<Local, Bit>,
    m_fpdu: Signal<Local, Bit>,
    m_cpi_v: Signal<Local, Bit>,
    m_ci_v: Signal<Local, Bit>,
    m_c_ovf: Signal<Local, Bit>,
    r_pi_v: Signal<Local, Bit>,
    r_ci_v: Signal<Local, Bit>,
    /// The ring index an engine read from the RAM (QP_RQ_CI, QP_RQ_PI, CQ_CI or CQ_PI), 0 if
    /// not written since its reset (then word 3 was read): the read port for all four.
    ix: Signal<Local, Bits<RING_INDEX_BITS>>,
    /// The log2 on the auxiliary RAM's read port (QP_RQ_LOG2 for the RQ service, CQ_LOG2 for
    /// the CQE writer).
    x_log2: Signal<Local, Bits<RING_LOG2_BITS>>,
    w_scq: Signal<Local, Bits<CQ_BITS>>,
    w_rcq: Signal<Local, Bits<CQ_BITS>>,
    w_aev_v: Signal<Local, Bit>,
    w_pi_v: Signal<Local, Bit>,
    w_ci_v: Signal<Local, Bit>,
    w_ovf: Signal<Local, Bit>,
    rq_gnt: Signal<Local, Bit>,
    cw_gnt: Signal<Local, Bit>,
    rq_wgnt: Signal<Local, Bit>,
    cw_wgnt: Signal<Local, Bit>,
    rq_rd_v: Signal<Local, Bit>,
    cqe_rdc: Signal<Local, Bit>,
    cqe_rx_ok: Signal<Local, Bit>,
    /// The CQE writer has a receive CQE.
    cw_rx: Signal<Local, Bit>,
    cw_take_send: Signal<Local, Bit>,
    cw_wv: Signal<Local, Bit>,
    cw_wdata: Signal<Local, Bits<32>>,
    cw_rel: Signal<Local, Bit>,
    /// The CQ's producer index over its size: bit 0 is the pass parity (owner bit).
    w_pass: Signal<Local, Bits<RING_INDEX_BITS>>,
    aev_new: Signal<Local, Bit>,
    /// An event is latched this cycle (`ev_ld`, only in a cycle without MMIO access) for QP
    /// `ev_qp`: RxPath's or (`ev_ovf`) the CQE writer's CqOverflow. Its QP_AEV word (`ev_data`,
    /// with the valid bit) is written into the register RAM then.
    ev_ld: Signal<Local, Bit>,
    /// The register RAM's write port is free for an event (no MMIO access, no engine
    /// write-back).
    ev_free: Signal<Local, Bit>,
    ev_qp: Signal<Local, Bits<CONN_BITS>>,
    ev_ovf: Signal<Local, Bit>,
    ev_data: Signal<Local, Bits<32>>,
}

impl Default for HostIf {
    fn default() -> Self {
        use rnic_proto::verbs::{AsyncEventKind, WcOpcode};
        Self {
            clock: Default::default(),
            mmio_valid: Default::default(),
            mmio_write: Default::default(),
            mmio_addr: Default::default(),
            mmio_wdata: Default::default(),
            mmio_ready: Default::default(),
            mmio_rvalid: Default::default(),
            mmio_rdata: Default::default(),
            rx_idle: Default::default(),
            tx_idle: Default::default(),
            fpdu_good_valid: Default::default(),
            fpdu_good_conn: Default::default(),
            qpc_write: Default::default(),
            qpc_qp: Default::default(),
            qpc_enable: Default::default(),
            qpc_fpdu_mode: Default::default(),
            qpc_rx_crc: Default::default(),
            qpc_rx_markers: Default::default(),
            qpc_tx_crc: Default::default(),
            qpc_tx_markers: Default::default(),
            qpc_pd: Default::default(),
            qpc_ird: Default::default(),
            qpc_ord: Default::default(),
            qpc_rx_max_ulpdu: Default::default(),
            qpc_tx_mulpdu: Default::default(),
            qpc_sq_base: Default::default(),
            qpc_sq_log2: Default::default(),
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
            sq_db_valid: Default::default(),
            sq_db_qp: Default::default(),
            sq_db_pi: Default::default(),
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
            cqe_valid: Default::default(),
            cqe_ready: Default::default(),
            cqe_qp: Default::default(),
            cqe_opcode: Default::default(),
            cqe_status: Default::default(),
            cqe_go: Default::default(),
            cqe_beat_valid: Default::default(),
            cqe_beat_ready: Default::default(),
            cqe_beat: Default::default(),
            rdc_valid: Default::default(),
            rdc_qp: Default::default(),
            rdc_status: Default::default(),
            rdc_ready: Default::default(),
            scqe_valid: Default::default(),
            scqe_ready: Default::default(),
            scqe_qp: Default::default(),
            scqe_opcode: Default::default(),
            scqe_status: Default::default(),
            scqe_byte_len: Default::default(),
            scqe_index: Default::default(),
            aev_valid: Default::default(),
            aev_ready: Default::default(),
            aev_qp: Default::default(),
            aev_kind: Default::default(),
            aev_layer: Default::default(),
            aev_etype: Default::default(),
            aev_code: Default::default(),
            qp_err_valid: Default::default(),
            qp_err_qp: Default::default(),
            sq_rd_req_valid: Default::default(),
            sq_rd_req_addr: Default::default(),
            sq_rd_req_len: Default::default(),
            sq_rd_req_tag: Default::default(),
            sq_rd_req_ready: Default::default(),
            sq_rd_cpl_valid: Default::default(),
            sq_rd_cpl_tag: Default::default(),
            sq_rd_cpl_data: Default::default(),
            sq_rd_cpl_keep: Default::default(),
            sq_rd_cpl_last: Default::default(),
            pay_rd_req_valid: Default::default(),
            pay_rd_req_addr: Default::default(),
            pay_rd_req_len: Default::default(),
            pay_rd_req_tag: Default::default(),
            pay_rd_req_ready: Default::default(),
            pay_rd_cpl_valid: Default::default(),
            pay_rd_cpl_tag: Default::default(),
            pay_rd_cpl_data: Default::default(),
            pay_rd_cpl_keep: Default::default(),
            pay_rd_cpl_last: Default::default(),
            dma_rd_req_valid: Default::default(),
            dma_rd_req_addr: Default::default(),
            dma_rd_req_len: Default::default(),
            dma_rd_req_tag: Default::default(),
            dma_rd_req_ready: Default::default(),
            dma_rd_cpl_valid: Default::default(),
            dma_rd_cpl_tag: Default::default(),
            dma_rd_cpl_data: Default::default(),
            dma_rd_cpl_keep: Default::default(),
            dma_rd_cpl_last: Default::default(),
            place_wr_valid: Default::default(),
            place_wr_addr: Default::default(),
            place_wr_data: Default::default(),
            place_wr_keep: Default::default(),
            place_wr_last: Default::default(),
            place_wr_ready: Default::default(),
            dma_wr_valid: Default::default(),
            dma_wr_addr: Default::default(),
            dma_wr_data: Default::default(),
            dma_wr_keep: Default::default(),
            dma_wr_last: Default::default(),
            dma_wr_ready: Default::default(),
            dma_wr_done: Default::default(),
            idle: Default::default(),
            c_ones: Constant::new(((1u64 << RING_INDEX_BITS) - 1).into()),
            c_to_hb: Constant::new(0xFFFF_FFFC_0000_0000u64.into()),
            c_lkey_hi: Constant::new((0xFFFF_FFFFu64 & !((1u64 << RQ_LKEY_BITS) - 1)).into()),
            c_one: Constant::new(1u64.into()),
            c_rdma_read: Constant::new(u64::from(WcOpcode::RdmaRead as u8).into()),
            c_cq_overflow: Constant::new(u64::from(AsyncEventKind::CqOverflow as u8).into()),
            c_aev_valid: Constant::new(u64::from(regs::QP_AEV_VALID).into()),
            c_m_all: Constant::new(0xFFFF_FFFFu64.into()),
            c_m_index: Constant::new(((1u64 << STAG_INDEX_BITS) - 1).into()),
            c_m_flags: Constant::new(
                (0xFFu64
                    | (((1u64 << PD_BITS) - 1) << regs::STAG_FLAGS_PD_SHIFT)
                    | (0xFu64 << regs::STAG_FLAGS_ACCESS_SHIFT)
                    | u64::from(regs::STAG_FLAGS_VALID)
                    | u64::from(regs::STAG_FLAGS_QP_BOUND)
                    | u64::from(regs::STAG_FLAGS_REMOTE_INV)
                    | (((1u64 << CONN_BITS) - 1) << regs::STAG_FLAGS_QP_SHIFT))
                    .into(),
            ),
            c_m_ctrl: Constant::new(0x00FF_FFFFu64.into()),
            c_m_ring: Constant::new(((1u64 << RING_INDEX_BITS) - 1).into()),
            c_m_log2: Constant::new(((1u64 << RING_LOG2_BITS) - 1).into()),
            base: BlockRam::with_contents(&reg_ram_contents()),
            ulp: Default::default(),
            rvalid_q: Default::default(),
            rdata_q: Default::default(),
            ph: Default::default(),
            we_q: Default::default(),
            mask_q: Default::default(),
            uwe_q: Default::default(),
            uwa_q: Default::default(),
            rz_q: Default::default(),
            qc_q: Default::default(),
            stc_q: Default::default(),
            gw_q: Default::default(),
            st_index: Default::default(),
            st_hi: Default::default(),
            st_to_hi_nz: Default::default(),
            q_scq: Default::default(),
            q_rcq: Default::default(),
            q_pi_v: Default::default(),
            q_ci_v: Default::default(),
            q_aev_v: Default::default(),
            q_fpdu: Default::default(),
            qpc_q: Default::default(),
            db_q: Default::default(),
            wd_q: Default::default(),
            wqp_q: Default::default(),
            qe_q: Default::default(),
            ev_go: Default::default(),
            ev_new: Default::default(),
            qe_qp_q: Default::default(),
            c_pi_v: Default::default(),
            c_ci_v: Default::default(),
            c_ovf: Default::default(),
            rq_state: Default::default(),
            rq_qp: Default::default(),
            rq_beat: Default::default(),
            rq_empty: Default::default(),
            rq_hit: Default::default(),
            rq_pf: Default::default(),
            rsp_v: Default::default(),
            rsp_present: Default::default(),
            rsp_index: Default::default(),
            rsp_len_n: Default::default(),
            rsp_len: Default::default(),
            rsp_len32: Default::default(),
            rsp_lkey: Default::default(),
            rsp_lkey_hi: Default::default(),
            rsp_to_b32: Default::default(),
            rsp_to_b33: Default::default(),
            rsp_to_hb: Default::default(),
            rsp_to_lo: Default::default(),
            cw_state: Default::default(),
            cw_send: Default::default(),
            cw_last_send: Default::default(),
            cw_qp: Default::default(),
            cw_cq: Default::default(),
            ring_q: Default::default(),
            cw_hold: Default::default(),
            rq_ld: Default::default(),
            cw_beat: Default::default(),
            cw_w: Default::default(),
            cw_owner: Default::default(),
            cw_full: Default::default(),
            cw_diff: Default::default(),
            cw_pi: Default::default(),
            cw_off: Default::default(),
            rq_off: Default::default(),
            ring_sum: Default::default(),
            ring_off: Default::default(),
            wr_lock: Default::default(),
            wr_lock_cw: Default::default(),
            idle_q: Default::default(),
            wr_pick_q: Default::default(),
            pick_cw_q: Default::default(),
            cw_go_q: Default::default(),
            rd: Default::default(),
            wr: Default::default(),
            pr: Default::default(),
            pw: Default::default(),
            ulp_we: Default::default(),
            ulp_wa: Default::default(),
            a_glob: Default::default(),
            a_qp: Default::default(),
            a_cq: Default::default(),
            a_q: Default::default(),
            a_c: Default::default(),
            a_cqx: Default::default(),
            a_goff: Default::default(),
            a_qoff: Default::default(),
            a_coff: Default::default(),
            a_ram: Default::default(),
            a_ram_addr: Default::default(),
            a_we: Default::default(),
            a_mask: Default::default(),
            a_msel: Default::default(),
            a_zero: Default::default(),
            rv: Default::default(),
            m_pi_v: Default::default(),
            m_qci_v: Default::default(),
            m_aev_v: Default::default(),
            m_fpdu: Default::default(),
            m_cpi_v: Default::default(),
            m_ci_v: Default::default(),
            m_c_ovf: Default::default(),
            r_pi_v: Default::default(),
            r_ci_v: Default::default(),
            ix: Default::default(),
            x_log2: Default::default(),
            w_scq: Default::default(),
            w_rcq: Default::default(),
            w_aev_v: Default::default(),
            w_pi_v: Default::default(),
            w_ci_v: Default::default(),
            w_ovf: Default::default(),
            rq_gnt: Default::default(),
            cw_gnt: Default::default(),
            rq_wgnt: Default::default(),
            cw_wgnt: Default::default(),
            rq_rd_v: Default::default(),
            cqe_rdc: Default::default(),
            cqe_rx_ok: Default::default(),
            cw_rx: Default::default(),
            cw_take_send: Default::default(),
            cw_wv: Default::default(),
            cw_wdata: Default::default(),
            cw_rel: Default::default(),
            w_pass: Default::default(),
            aev_new: Default::default(),
            ev_ld: Default::default(),
            ev_qp: Default::default(),
            ev_data: Default::default(),
            ev_free: Default::default(),
            ev_ovf: Default::default(),
        }
    }
}

// Register offsets used by the update function (hdl_gen compares against literals, so the
// offsets are checked here against the register map once).
const _: () = {
    assert!(regs::STAG_INDEX == 0x40 && regs::STAG_FLAGS == 0x44);
    assert!(regs::STAG_TO_LEN_LO == 0x48 && regs::STAG_BASE_TO_HI == 0x4C);
    assert!(regs::STAG_TO_LEN_HI == 0x50 && regs::STAG_COMMIT == 0x58);
    assert!(regs::ID == 0 && regs::VERSION == 4 && regs::CAPS == 8 && regs::STATUS == 0xC);
    assert!(regs::FEATURES == 0x10);
    assert!(regs::QP_REGS == 0x100 && regs::QP_STRIDE == 0x40 && regs::CQ_REGS == 0x200);
    assert!(regs::CQ_STRIDE == 0x20);
    assert!(regs::QP_CTRL == 0 && regs::QP_ULPDU == 4 && regs::QP_SQ_BASE == 8);
    assert!(regs::QP_SQ_PI == 0x10 && regs::QP_RQ_BASE == 0x14);
    assert!(regs::QP_RQ_LOG2 == 0x18 && regs::QP_RQ_PI == 0x1C && regs::QP_RQ_CI == 0x20);
    assert!(regs::QP_AEV == 0x24 && regs::QP_STATUS == 0x28);
    assert!(regs::QP_STATUS_ERROR == 1 && regs::QP_STATUS_FPDU_RECEIVED == 2);
    assert!(regs::CQ_BASE == 0 && regs::CQ_LOG2 == 4 && regs::CQ_PI == 8);
    assert!(regs::CQ_CI == 0xC && regs::CQ_STATUS == 0x10);
    assert!(regs::STAG_FLAGS_PD_SHIFT == 8 && regs::STAG_FLAGS_ACCESS_SHIFT == 12);
    assert!(regs::STAG_FLAGS_VALID == 1 << 16 && regs::STAG_FLAGS_QP_BOUND == 1 << 17);
    assert!(regs::STAG_FLAGS_REMOTE_INV == 1 << 18 && regs::STAG_FLAGS_QP_SHIFT == 24);
    assert!(regs::QP_CTRL_SEND_CQ_SHIFT == 20 && regs::QP_CTRL_RECV_CQ_SHIFT == 22);
    assert!(regs::QP_CTRL_PD_SHIFT == 8 && regs::QP_CTRL_IRD_SHIFT == 12);
    assert!(regs::QP_CTRL_ORD_SHIFT == 16 && regs::QP_CTRL_TX_MARKERS == 1 << 5);
    assert!(QPS <= QP_WINDOWS && CQS <= CQ_WINDOWS && regs::MMIO_ADDR_BITS == 12);
    // Both windows are selected by 2 address bits (`mmio_addr[7:6]`, `[6:5]`).
    assert!(QP_WINDOWS == 4 && CQ_WINDOWS == 4);
    // The write mask's selector `a_msel` (`{mmio_addr[9:8], mmio_addr[4:2]}`) of each masked
    // register, as `update` compares it.
    assert!(mask_sel(regs::STAG_INDEX) == 0x00 && mask_sel(regs::STAG_FLAGS) == 0x01);
    assert!(mask_sel(regs::QP_REGS + regs::QP_CTRL) == 0x08);
    assert!(mask_sel(regs::QP_REGS + regs::QP_RQ_LOG2) == 0x0E);
    assert!(mask_sel(regs::QP_REGS + regs::QP_RQ_PI) == 0x0F);
    assert!(mask_sel(regs::CQ_REGS + regs::CQ_LOG2) == 0x11);
    assert!(mask_sel(regs::CQ_REGS + regs::CQ_CI) == 0x13);
};

/// `a_msel` of an MMIO offset (see `update`'s write mask).
const fn mask_sel(offset: u16) -> u16 {
    ((offset >> 8) & 3) << 3 | ((offset >> 2) & 7)
}

// The windows of absent QPs and CQs: loops that are empty at 4 QPs (`QPS..QP_WINDOWS`,
// `CQS..CQ_WINDOWS`; the allow covers the Verilog generator `#[hdl_gen]` adds to the impl).
#[allow(clippy::reversed_empty_ranges)]
impl Logic for HostIf {
    // The nested `if` of the STATUS read is kept: its collapsed form gives yosys 12 more LUT4
    // (1069 against 1057, measured).
    #[allow(clippy::collapsible_if)]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            rvalid_q,
            rdata_q,
            ph,
            we_q,
            mask_q,
            uwe_q,
            uwa_q,
            rz_q,
            qc_q,
            stc_q,
            gw_q,
            st_index,
            st_hi,
            st_to_hi_nz,
            qpc_q,
            db_q,
            wd_q,
            wqp_q,
            qe_q,
            ev_go,
            ev_new,
            qe_qp_q,
            rq_state,
            rq_qp,
            rq_beat,
            rq_empty,
            rq_hit,
            rq_pf,
            rsp_v,
            rsp_present,
            rsp_index,
            rsp_len_n,
            rsp_lkey,
            rsp_lkey_hi,
            rsp_to_b32,
            rsp_to_b33,
            rsp_to_hb,
            rsp_to_lo,
            cw_state,
            cw_send,
            cw_last_send,
            cw_qp,
            cw_cq,
            ring_q,
            cw_beat,
            cw_w,
            cw_owner,
            cw_full,
            cw_diff,
            cw_pi,
            cw_off,
            rq_off,
            wr_lock,
            wr_lock_cw,
            idle_q,
            wr_pick_q,
            pick_cw_q,
            cw_go_q
        );
        self.base.clock.next = self.clock.val();
        self.ulp.clock.next = self.clock.val();
        for i in 0..QPS {
            self.q_scq[i].clock.next = self.clock.val();
            self.q_scq[i].d.next = self.q_scq[i].q.val();
            self.q_rcq[i].clock.next = self.clock.val();
            self.q_rcq[i].d.next = self.q_rcq[i].q.val();
            self.q_pi_v[i].clock.next = self.clock.val();
            self.q_pi_v[i].d.next = self.q_pi_v[i].q.val();
            self.q_ci_v[i].clock.next = self.clock.val();
            self.q_ci_v[i].d.next = self.q_ci_v[i].q.val();
            self.q_aev_v[i].clock.next = self.clock.val();
            self.q_aev_v[i].d.next = self.q_aev_v[i].q.val();
            self.q_fpdu[i].clock.next = self.clock.val();
            self.q_fpdu[i].d.next = self.q_fpdu[i].q.val();
            if self.fpdu_good_valid.val() && (self.fpdu_good_conn.val().index() == i) {
                self.q_fpdu[i].d.next = true;
            }
        }
        for i in 0..CQS {
            self.c_pi_v[i].clock.next = self.clock.val();
            self.c_pi_v[i].d.next = self.c_pi_v[i].q.val();
            self.c_ci_v[i].clock.next = self.clock.val();
            self.c_ci_v[i].d.next = self.c_ci_v[i].q.val();
            self.c_ovf[i].clock.next = self.clock.val();
            self.c_ovf[i].d.next = self.c_ovf[i].q.val();
        }
        // One-cycle strobes.
        self.qpc_q.d.next = false;
        self.db_q.d.next = false;
        self.qe_q.d.next = false;
        self.rsp_v.d.next = false;

        // ---- The wait state: every access takes two cycles, the master holding it; the first
        // (`ph` low) decodes it into the registers `*_q`, the second (`ph` high, `mmio_ready`)
        // performs it from them and the port's held address and data.
        self.ph.d.next = self.mmio_valid.val() && !self.ph.q.val();
        self.mmio_ready.next = self.ph.q.val();
        self.rd.next = self.ph.q.val() && !self.mmio_write.val();
        self.wr.next = self.ph.q.val() && self.mmio_write.val();
        self.pr.next = self.mmio_valid.val() && !self.ph.q.val() && !self.mmio_write.val();
        self.pw.next = self.mmio_valid.val() && !self.ph.q.val() && self.mmio_write.val();

        // ---- Address decode.
        self.a_glob.next = self.mmio_addr.val().get_bits::<4>(8) == 0;
        self.a_qp.next = self.mmio_addr.val().get_bits::<4>(8) == 1;
        // The QP window holds `QP_WINDOWS` QPs' registers (`regs::QP_STRIDE`); with fewer QPs the
        // windows of the QPs the core does not have decode as nothing (read 0, writes ignored).
        // The loop is empty at 4 QPs.
        for i in QPS..QP_WINDOWS {
            if self.mmio_addr.val().get_bits::<2>(6).index() == i {
                self.a_qp.next = false;
            }
        }
        // The CQ windows likewise (`CQ_WINDOWS` of them, `mmio_addr[6:5]`): those of the CQs
        // the core does not have decode as nothing (`a_cqx` low; the loop is empty at 4 CQs).
        self.a_cqx.next = true;
        for i in CQS..CQ_WINDOWS {
            if self.mmio_addr.val().get_bits::<2>(5).index() == i {
                self.a_cqx.next = false;
            }
        }
        self.a_cq.next = (self.mmio_addr.val().get_bits::<4>(8) == 2)
            && !self.mmio_addr.val().get_bit(7)
            && self.a_cqx.val();
        self.a_q.next = self.mmio_addr.val().get_bits::<CONN_BITS>(6);
        self.a_c.next = self.mmio_addr.val().get_bits::<CQ_BITS>(5);
        self.a_goff.next = self.mmio_addr.val().get_bits::<8>(0);
        self.a_qoff.next = self.mmio_addr.val().get_bits::<6>(0);
        self.a_coff.next = self.mmio_addr.val().get_bits::<5>(0);
        // The strobes' fields: the write's data and QP, whatever the access (see `wd_q`).
        self.wd_q.d.next = self.mmio_wdata.val().get_bits::<20>(0);
        self.wqp_q.d.next = self.a_q.val();
        // Registers in the RAM (every one only MMIO writes), with their implemented bits: a flat
        // decode (it drives the RAM's write enable, a path from the MMIO port): the constant
        // words 0x00 .. 0x1C but STATUS (0x0C: ID, VERSION, CAPS, FEATURES; the others read
        // their initial 0), STAG_INDEX .. STAG_TO_LEN_HI (0x40 .. 0x50), QP words 0 .. 9 but
        // 3 (unmapped since map 2.0) and QP_SQ_PI (4), CQ words 0 .. 3 (QP_RQ_CI, QP_AEV and
        // CQ_PI only read: the engines write them).
        self.a_ram.next = (self.a_glob.val()
            && (self.a_goff.val().get_bits::<3>(5) == 0)
            && (self.a_goff.val().get_bits::<2>(0) == 0)
            && (self.a_goff.val().get_bits::<3>(2) != 3))
            || (self.a_glob.val()
                && (self.a_goff.val().get_bits::<3>(5) == 2)
                && (self.a_goff.val().get_bits::<2>(0) == 0)
                && !(self.a_goff.val().get_bit(4)
                    && (self.a_goff.val().get_bit(3) || self.a_goff.val().get_bit(2))))
            || (self.a_qp.val()
                && (self.a_qoff.val().get_bits::<2>(0) == 0)
                && (self.a_qoff.val().get_bits::<4>(2) <= 9)
                && (self.a_qoff.val().get_bits::<4>(2) != 3)
                && (self.a_qoff.val().get_bits::<4>(2) != 4))
            || (self.a_cq.val()
                && (self.a_coff.val().get_bits::<2>(0) == 0)
                && !self.a_coff.val().get_bit(4));
        self.a_ram_addr.next = self.mmio_addr.val().get_bits::<8>(2);
        // The RAM's MMIO write enable, decoded from the port in the wait cycle into `we_q`
        // (the RAM's clock enable is then a register): a_ram without QP_RQ_CI (QP word 8) and
        // CQ_PI (CQ word 2), which the engines write.
        self.a_we.next = self.pw.val()
            && (self.a_goff.val().get_bits::<2>(0) == 0)
            && (((self.mmio_addr.val().get_bits::<7>(5) == 2)
                && !(self.a_goff.val().get_bit(4)
                    && (self.a_goff.val().get_bit(3) || self.a_goff.val().get_bit(2))))
                || (self.a_qp.val()
                    && !self.a_qoff.val().get_bit(5)
                    && (self.a_qoff.val().get_bits::<3>(2) != 3)
                    && (self.a_qoff.val().get_bits::<3>(2) != 4))
                || ((self.mmio_addr.val().get_bits::<5>(7) == 4)
                    && self.a_cqx.val()
                    && !self.a_coff.val().get_bit(4)
                    && (self.a_coff.val().get_bits::<2>(2) != 2)));
        // The write mask: only the registers the RAM's MMIO write enable (`a_we`) takes matter,
        // so the region (`mmio_addr[9:8]`: global, QP or CQ window) and the word's place in its
        // group of 8 (`[4:2]`) tell them apart (issue 5: no full offset compares).
        self.a_msel.next = (bit_cast::<5, 2>(self.mmio_addr.val().get_bits::<2>(8)) << 3)
            | bit_cast::<5, 3>(self.mmio_addr.val().get_bits::<3>(2));
        self.a_mask.next = self.c_m_all.val();
        if self.a_msel.val() == 0x00 {
            // STAG_INDEX (0x40).
            self.a_mask.next = self.c_m_index.val();
        }
        if self.a_msel.val() == 0x01 {
            // STAG_FLAGS (0x44).
            self.a_mask.next = self.c_m_flags.val();
        }
        if self.a_msel.val() == 0x08 {
            // QP_CTRL.
            self.a_mask.next = self.c_m_ctrl.val();
        }
        if (self.a_msel.val() == 0x0E) || (self.a_msel.val() == 0x11) {
            // QP_RQ_LOG2, CQ_LOG2.
            self.a_mask.next = self.c_m_log2.val();
        }
        if (self.a_msel.val() == 0x0F) || (self.a_msel.val() == 0x13) {
            // QP_RQ_PI, CQ_CI.
            self.a_mask.next = self.c_m_ring.val();
        }
        self.we_q.d.next = self.a_we.val();
        self.mask_q.d.next = self.a_mask.val();

        // ---- Per-QP / per-CQ selections: m_* by the MMIO address, k_* by the commit strobe,
        // r_* by the RQ service, w_* by the CQE writer.
        self.m_pi_v.next = self.q_pi_v[0].q.val();
        self.m_qci_v.next = self.q_ci_v[0].q.val();
        self.m_aev_v.next = self.q_aev_v[0].q.val();
        self.m_fpdu.next = self.q_fpdu[0].q.val();
        self.r_pi_v.next = self.q_pi_v[0].q.val();
        self.r_ci_v.next = self.q_ci_v[0].q.val();
        self.w_scq.next = self.q_scq[0].q.val();
        self.w_rcq.next = self.q_rcq[0].q.val();
        self.w_aev_v.next = self.q_aev_v[0].q.val();
        self.aev_new.next = false;
        for i in 1..QPS {
            if self.a_q.val().index() == i {
                self.m_pi_v.next = self.q_pi_v[i].q.val();
                self.m_qci_v.next = self.q_ci_v[i].q.val();
                self.m_aev_v.next = self.q_aev_v[i].q.val();
                self.m_fpdu.next = self.q_fpdu[i].q.val();
            }
            if self.rq_qp.q.val().index() == i {
                self.r_pi_v.next = self.q_pi_v[i].q.val();
                self.r_ci_v.next = self.q_ci_v[i].q.val();
            }
            if self.cw_qp.q.val().index() == i {
                self.w_scq.next = self.q_scq[i].q.val();
                self.w_rcq.next = self.q_rcq[i].q.val();
                self.w_aev_v.next = self.q_aev_v[i].q.val();
            }
        }
        // An index not written since its reset was read from word 3 (STATUS: never written,
        // 0), so the read port is the index as it is.
        self.ix.next = self.base.read_data.val().get_bits::<RING_INDEX_BITS>(0);
        self.m_cpi_v.next = self.c_pi_v[0].q.val();
        self.m_ci_v.next = self.c_ci_v[0].q.val();
        self.m_c_ovf.next = self.c_ovf[0].q.val();
        self.w_pi_v.next = self.c_pi_v[0].q.val();
        self.w_ci_v.next = self.c_ci_v[0].q.val();
        self.w_ovf.next = self.c_ovf[0].q.val();
        for i in 1..CQS {
            if self.a_c.val().index() == i {
                self.m_cpi_v.next = self.c_pi_v[i].q.val();
                self.m_ci_v.next = self.c_ci_v[i].q.val();
                self.m_c_ovf.next = self.c_ovf[i].q.val();
            }
            if self.cw_cq.q.val().index() == i {
                self.w_pi_v.next = self.c_pi_v[i].q.val();
                self.w_ci_v.next = self.c_ci_v[i].q.val();
                self.w_ovf.next = self.c_ovf[i].q.val();
            }
        }
        // Reads of 0: registers not in the RAM (the status words and unmapped addresses: their
        // bits come from `rdata_q`), RQ_PI / CQ_CI / RQ_CI / CQ_PI / QP_AEV until written
        // after their reset. Such a read reads word 3 (STATUS), which is never written and 0.
        self.a_zero.next = !self.a_ram.val();
        if self.a_qp.val() && (self.a_qoff.val() == 0x1C) {
            self.a_zero.next = !self.m_pi_v.val();
        }
        if self.a_cq.val() && (self.a_coff.val() == 0x0C) {
            self.a_zero.next = !self.m_ci_v.val();
        }
        if self.a_qp.val() && (self.a_qoff.val() == 0x20) {
            self.a_zero.next = !self.m_qci_v.val();
        }
        // QP_AEV: the word in the RAM counts only while latched (the QP_CTRL write clears the
        // latch, not the word).
        if self.a_qp.val() && (self.a_qoff.val() == 0x24) {
            self.a_zero.next = !self.m_aev_v.val();
        }
        if self.a_cq.val() && (self.a_coff.val() == 0x08) {
            self.a_zero.next = !self.m_cpi_v.val();
        }
        self.rz_q.d.next = self.pr.val() && self.a_zero.val();
        self.qc_q.d.next = self.pw.val() && self.a_qp.val() && (self.a_qoff.val() == 0);
        self.stc_q.d.next = self.pw.val() && self.a_glob.val() && (self.a_goff.val() == 0x58);
        // (Offsets as `regs::STAG_INDEX`, `STAG_BASE_TO_HI`, `STAG_TO_LEN_HI`: asserted above.)
        self.gw_q.d.next = 0.into();
        if self.pw.val() && self.a_glob.val() {
            if self.a_goff.val() == 0x40 {
                self.gw_q.d.next = 1.into();
            }
            if self.a_goff.val() == 0x4C {
                self.gw_q.d.next = 2.into();
            }
            if self.a_goff.val() == 0x50 {
                self.gw_q.d.next = 4.into();
            }
        }

        // ---- Asynchronous events: the event word goes into the register RAM's write port in
        // a cycle without MMIO access or an engine's write-back (`ev_free`); the first per QP
        // is latched. RxPath's event is looked at in one such cycle (`ev_go`, `ev_new`: its QP
        // has none latched) and taken in the next if that is one too (registered decisions:
        // no path from `aev_*` to the RAM's write enable); the CQE writer's CqOverflow is taken
        // in a free cycle without one of RxPath's offered.
        self.ev_free.next = !self.ph.q.val()
            && (self.rq_state.q.val() != RqState::PopW)
            && (self.cw_state.q.val() != CwState::Pw);
        self.aev_ready.next = self.ev_go.q.val() && self.ev_free.val();
        self.ev_go.d.next = self.aev_valid.val() && !self.aev_ready.val() && !self.ph.q.val();
        self.ev_new.d.next = false;
        for i in 0..QPS {
            if (self.aev_qp.val().index() == i) && !self.q_aev_v[i].q.val() {
                self.ev_new.d.next = true;
            }
        }
        self.aev_new.next = self.aev_ready.val() && self.ev_new.q.val();
        self.ev_qp.next = self.aev_qp.val();
        self.ev_ovf.next = false;
        self.ev_ld.next = self.aev_new.val();
        if (self.cw_state.q.val() == CwState::Ovf)
            && !self.aev_valid.val()
            && self.ev_free.val()
            && !self.w_aev_v.val()
        {
            self.ev_ld.next = true;
            self.ev_qp.next = self.cw_qp.q.val();
            self.ev_ovf.next = true;
        }
        self.ev_data.next = (bit_cast::<32, 8>(self.aev_kind.val()) << 16)
            | (bit_cast::<32, 4>(self.aev_layer.val()) << 12)
            | (bit_cast::<32, 4>(self.aev_etype.val()) << 8)
            | bit_cast::<32, 8>(self.aev_code.val())
            | self.c_aev_valid.val();
        if self.ev_ovf.val() {
            self.ev_data.next =
                (bit_cast::<32, 8>(self.c_cq_overflow.val()) << 16) | self.c_aev_valid.val();
        }
        if self.ev_ld.val() {
            self.qe_q.d.next = true;
            self.qe_qp_q.d.next = self.ev_qp.val();
        }

        // ---- The RAM's read port: an MMIO access first (a read reads its register; QP_CTRL's
        // write reads the QP's SQ_BASE for the commit), then the RQ service, then the CQE
        // writer. An engine reads only in a cycle without MMIO access, so it never reads a word
        // being written (undefined data on the iCE40).
        self.rq_gnt.next = false;
        self.cw_gnt.next = false;
        self.base.read_addr.next = self.a_ram_addr.val();
        // The auxiliary RAM's read port: the MMIO address's QP's ULPDU (the commit's), else
        // with an engine's register-RAM read the log2 it needs next.
        self.ulp.read_addr.next = bit_cast::<4, CONN_BITS>(self.a_q.val());
        if self.ph.q.val() {
            if self.rz_q.q.val() {
                self.base.read_addr.next = 3.into();
            }
            if self.qc_q.q.val() {
                // The commit's SQ base: word {01, qp, 0010}.
                self.base.read_addr.next = (bit_cast::<8, CONN_BITS>(self.a_q.val()) << 4) | 0x42;
            }
            if self.stc_q.q.val() {
                // The STag commit: STAG_FLAGS (word 0x11) and (auxiliary RAM word 12)
                // STAG_TO_LEN_LO for the STag table's word 0 in the next cycle.
                self.base.read_addr.next = 0x11.into();
                self.ulp.read_addr.next = 12.into();
            }
        } else if (self.rq_state.q.val() == RqState::Ci)
            || (self.rq_state.q.val() == RqState::Pop)
            || (self.rq_state.q.val() == RqState::Pi)
            || (self.rq_state.q.val() == RqState::Base)
        {
            self.rq_gnt.next = true;
            if (self.rq_state.q.val() == RqState::Ci) || (self.rq_state.q.val() == RqState::Pop) {
                // QP_RQ_CI: {01, qp, 1000}.
                self.base.read_addr.next =
                    (bit_cast::<8, CONN_BITS>(self.rq_qp.q.val()) << 4) | 0x48;
                if !self.r_ci_v.val() {
                    self.base.read_addr.next = 3.into();
                }
            } else if self.rq_state.q.val() == RqState::Pi {
                // QP_RQ_PI: {01, qp, 0111}.
                self.base.read_addr.next =
                    (bit_cast::<8, CONN_BITS>(self.rq_qp.q.val()) << 4) | 0x47;
                if !self.r_pi_v.val() {
                    self.base.read_addr.next = 3.into();
                }
                // QP_RQ_LOG2 (Check).
                self.ulp.read_addr.next = bit_cast::<4, CONN_BITS>(self.rq_qp.q.val()) | 4;
            } else {
                // QP_RQ_BASE: {01, qp, 0101}.
                self.base.read_addr.next =
                    (bit_cast::<8, CONN_BITS>(self.rq_qp.q.val()) << 4) | 0x45;
            }
        } else if (self.cw_state.q.val() == CwState::Ci)
            || (self.cw_state.q.val() == CwState::Pi)
            || (self.cw_state.q.val() == CwState::Base)
        {
            self.cw_gnt.next = true;
            // CQ_LOG2 (CiD: the size; Sel: the ring offset and owner bit).
            self.ulp.read_addr.next = bit_cast::<4, CQ_BITS>(self.cw_cq.q.val()) | 8;
            if self.cw_state.q.val() == CwState::Pi {
                // CQ_PI: {10, 0, cq, 010}.
                self.base.read_addr.next = (bit_cast::<8, CQ_BITS>(self.cw_cq.q.val()) << 3) | 0x82;
                if !self.w_pi_v.val() {
                    self.base.read_addr.next = 3.into();
                }
            } else if self.cw_state.q.val() == CwState::Ci {
                // CQ_CI: {10, 0, cq, 011}.
                self.base.read_addr.next = (bit_cast::<8, CQ_BITS>(self.cw_cq.q.val()) << 3) | 0x83;
                if !self.w_ci_v.val() {
                    self.base.read_addr.next = 3.into();
                }
            } else {
                // CQ_BASE: {10, 0, cq, 000}.
                self.base.read_addr.next = (bit_cast::<8, CQ_BITS>(self.cw_cq.q.val()) << 3) | 0x80;
            }
        }
        // The auxiliary RAM's writes: QP_ULPDU, QP_RQ_LOG2, CQ_LOG2.
        self.ulp.write_data.next = self.mmio_wdata.val();
        self.ulp_wa.next = bit_cast::<4, CONN_BITS>(self.a_q.val());
        if self.a_qoff.val().get_bit(4) {
            self.ulp_wa.next = bit_cast::<4, CONN_BITS>(self.a_q.val()) | 4;
        }
        if !self.a_qp.val() {
            self.ulp_wa.next = bit_cast::<4, CQ_BITS>(self.a_c.val()) | 8;
        }
        if self.a_glob.val() {
            self.ulp_wa.next = 12.into();
        }
        self.uwa_q.d.next = self.ulp_wa.val();
        self.ulp.write_addr.next = self.uwa_q.q.val();
        self.ulp_we.next = self.pw.val()
            && ((self.a_qp.val() && ((self.a_qoff.val() == 0x04) || (self.a_qoff.val() == 0x18)))
                || (self.a_cq.val() && (self.a_coff.val() == 0x04))
                || (self.a_glob.val() && (self.a_goff.val() == 0x48)));
        self.uwe_q.d.next = self.ulp_we.val();
        self.ulp.write_enable.next = self.uwe_q.q.val();
        self.x_log2.next = self.ulp.read_data.val().get_bits::<RING_LOG2_BITS>(0);
        // The write port: an MMIO write, else (in a cycle without MMIO access, so that no
        // MMIO read reads the word being written) the RQ service's new consumer index, else
        // the CQE writer's new producer index.
        self.rq_wgnt.next = false;
        self.cw_wgnt.next = false;
        self.base.write_enable.next = self.we_q.q.val();
        self.base.write_addr.next = self.a_ram_addr.val();
        self.base.write_data.next = self.mmio_wdata.val() & self.mask_q.q.val();
        if !self.ph.q.val() {
            // QP_AEV: {01, qp, 1001} (an event is taken only when the engines do not write,
            // `aev_ready`). The event's address and word are on the write port in every cycle
            // without MMIO access and without an engine's write-back, whether or not an event
            // is latched (the write enable is then low): no `ev_ld` in the data multiplexer
            // (issue 5: 34 LUT4 fewer standalone).
            self.base.write_addr.next = (bit_cast::<8, CONN_BITS>(self.ev_qp.val()) << 4) | 0x49;
            self.base.write_data.next = self.ev_data.val();
            if self.rq_state.q.val() == RqState::PopW {
                self.rq_wgnt.next = true;
                self.base.write_enable.next = true;
                self.base.write_addr.next =
                    (bit_cast::<8, CONN_BITS>(self.rq_qp.q.val()) << 4) | 0x48;
                self.base.write_data.next = bit_cast::<32, RING_INDEX_BITS>(self.rsp_index.q.val());
            } else if self.cw_state.q.val() == CwState::Pw {
                self.cw_wgnt.next = true;
                self.base.write_enable.next = true;
                self.base.write_addr.next =
                    (bit_cast::<8, CQ_BITS>(self.cw_cq.q.val()) << 3) | 0x82;
                self.base.write_data.next = bit_cast::<32, RING_INDEX_BITS>(self.cw_pi.q.val());
            } else if self.ev_ld.val() {
                self.base.write_enable.next = true;
            }
        }

        // ---- MMIO reads.
        self.idle_q.d.next = bit_cast::<2, 1>(self.rx_idle.val().into())
            | (bit_cast::<2, 1>(self.tx_idle.val().into()) << 1);
        self.rv.next = 0.into();
        if self.a_glob.val() {
            if self.a_goff.val() == 0x0C {
                self.rv.next = bit_cast::<32, 2>(self.idle_q.q.val());
            }
        }
        if self.a_qp.val() {
            if self.a_qoff.val() == 0x28 {
                self.rv.next = bit_cast::<32, 1>(self.m_aev_v.val().into())
                    | (bit_cast::<32, 1>(self.m_fpdu.val().into()) << 1);
            }
        }
        if self.a_cq.val() && (self.a_coff.val() == 0x10) {
            self.rv.next = bit_cast::<32, 1>(self.m_c_ovf.val().into());
        }
        // The status bits are taken in the wait cycle (`rdata_q` holds them through the access
        // cycle into the next, where they are read).
        self.rvalid_q.d.next = self.rd.val();
        if !self.ph.q.val() {
            self.rdata_q.d.next = self.rv.val();
        }
        self.mmio_rvalid.next = self.rvalid_q.q.val();
        // A read of a register not in the RAM, or of one that reads 0, read word 3 (0); the
        // status words' bits are in `rdata_q` (0 for the RAM-held registers).
        self.mmio_rdata.next = self.base.read_data.val() | self.rdata_q.q.val();

        // ---- STag programming.
        // In the commit write's cycle (the staging registers hold in it and in the next cycle,
        // where StagCheck writes the entry's second word from them).
        self.prog_write.next = self.stc_q.q.val();
        self.prog_index.next = self.st_index.q.val();
        // Word 0's fields, valid in the cycle after the commit write only: STAG_FLAGS on the
        // register RAM's read port, STAG_TO_LEN_LO (base TO and length [15:0]) on the
        // auxiliary RAM's (both read in the commit write's cycle, when MMIO does not use the
        // read ports). Word 1's: STAG_TO_LEN_HI in `st_hi`, the host address the commit
        // write's data (valid in its cycle only: StagCheck writes word 1 then).
        self.prog_valid.next = self.base.read_data.val().get_bit(16);
        self.prog_key.next = self.base.read_data.val().get_bits::<8>(0);
        self.prog_pd.next = self.base.read_data.val().get_bits::<PD_BITS>(8);
        self.prog_access.next = self.base.read_data.val().get_bits::<4>(12);
        self.prog_qp_bound.next = self.base.read_data.val().get_bit(17);
        self.prog_qp.next = self.base.read_data.val().get_bits::<CONN_BITS>(24);
        self.prog_remote_inv.next = self.base.read_data.val().get_bit(18);
        self.prog_base_to.next = (bit_cast::<64, 1>(self.st_to_hi_nz.q.val().into()) << 32)
            | (bit_cast::<64, 16>(self.st_hi.q.val().get_bits::<16>(0)) << 16)
            | bit_cast::<64, 16>(self.ulp.read_data.val().get_bits::<16>(0));
        self.prog_len.next = (bit_cast::<32, 16>(self.st_hi.q.val().get_bits::<16>(16)) << 16)
            | bit_cast::<32, 16>(self.ulp.read_data.val().get_bits::<16>(16));
        self.prog_host_addr.next = self.mmio_wdata.val().get_bits::<DMA_ADDR_BITS>(0);

        // ---- QP context commit and SQ doorbell.
        self.qpc_write.next = self.qpc_q.q.val();
        self.qpc_qp.next = self.wqp_q.q.val();
        self.qpc_enable.next = self.wd_q.q.val().get_bit(0);
        self.qpc_fpdu_mode.next = self.wd_q.q.val().get_bit(1);
        self.qpc_rx_crc.next = self.wd_q.q.val().get_bit(2);
        self.qpc_rx_markers.next = self.wd_q.q.val().get_bit(3);
        self.qpc_tx_crc.next = self.wd_q.q.val().get_bit(4);
        self.qpc_tx_markers.next = self.wd_q.q.val().get_bit(5);
        self.qpc_pd.next = self.wd_q.q.val().get_bits::<PD_BITS>(8);
        self.qpc_ird.next = self.wd_q.q.val().get_bits::<4>(12);
        self.qpc_ord.next = self.wd_q.q.val().get_bits::<4>(16);
        self.qpc_rx_max_ulpdu.next = self.ulp.read_data.val().get_bits::<16>(0);
        self.qpc_tx_mulpdu.next = self.ulp.read_data.val().get_bits::<16>(16);
        // QP_SQ_BASE: the base `[31:5]`, the log2 `[3:0]` (register map 2.0).
        self.qpc_sq_base.next = (self.base.read_data.val() >> 5) << 5;
        self.qpc_sq_log2.next = self.base.read_data.val().get_bits::<RING_LOG2_BITS>(0);
        self.sq_db_valid.next = self.db_q.q.val();
        self.sq_db_qp.next = self.wqp_q.q.val();
        self.sq_db_pi.next = self.wd_q.q.val().get_bits::<RING_INDEX_BITS>(0);
        self.qp_err_valid.next = self.qe_q.q.val();
        self.qp_err_qp.next = self.qe_qp_q.q.val();

        // ---- RQ service.
        self.rq_req_ready.next = self.rq_state.q.val() == RqState::Idle;
        self.rq_rsp_valid.next = self.rsp_v.q.val();
        self.rq_rsp_present.next = self.rsp_present.q.val();
        self.rq_rsp_index.next = bit_cast::<16, RING_INDEX_BITS>(self.rsp_index.q.val());
        self.rsp_len.next = !self.rsp_len_n.q.val();
        self.rsp_len32.next = bit_cast::<32, LOCAL_LEN_BITS>(self.rsp_len.val());
        self.rq_rsp_len_n.next = !self.rsp_len32.val();
        // The rebuilt lkey: bits 31..14 all `rsp_lkey_hi` (see "RQ service").
        self.rq_rsp_lkey.next = bit_cast::<32, RQ_LKEY_BITS>(self.rsp_lkey.q.val());
        if self.rsp_lkey_hi.q.val() {
            self.rq_rsp_lkey.next = self.rq_rsp_lkey.val() | self.c_lkey_hi.val();
        }
        // The rebuilt TO: bits 63..34 all `rsp_to_hb`, bit 33 `rsp_to_b33` (see "RQ service").
        self.rq_rsp_to.next = bit_cast::<64, 32>(self.rsp_to_lo.q.val())
            | (bit_cast::<64, 1>(self.rsp_to_b32.q.val().into()) << 32)
            | (bit_cast::<64, 1>(self.rsp_to_b33.q.val().into()) << 33);
        if self.rsp_to_hb.q.val() {
            self.rq_rsp_to.next = self.rq_rsp_to.val() | self.c_to_hb.val();
        }
        self.rq_rd_v.next = self.rq_state.q.val() == RqState::Req;
        // The ring base plus the offset of the engine in `Addr` (the RAM's read port was
        // granted to it in the cycle before: one engine at a time), in 16-octet units.
        self.ring_off.next = self.cw_off.q.val();
        if self.rq_state.q.val() == RqState::Addr {
            self.ring_off.next = self.rq_off.q.val();
        }
        self.ring_sum.next = self.base.read_data.val().get_bits::<RING_ADDR_BITS>(4)
            + bit_cast::<RING_ADDR_BITS, RING_INDEX_BITS>(self.ring_off.val());
        // One load of the shared ring address (see "Ring address").
        if (self.rq_state.q.val() == RqState::Addr) || (self.cw_state.q.val() == CwState::Addr) {
            self.ring_q.d.next = self.ring_sum.val();
        }
        self.rq_ld.next =
            (self.rq_state.q.val() == RqState::Base) || (self.rq_state.q.val() == RqState::Addr);
        self.cw_hold.next = self.cw_w.q.val() && (self.cw_beat.q.val() != 0);
        match self.rq_state.q.val() {
            RqState::Idle => {
                if self.rq_req_valid.val() {
                    if self.rq_req_pop.val() {
                        self.rq_qp.d.next = self.rq_req_qp.val();
                        self.rq_state.d.next = RqState::Pop;
                        self.rq_hit.d.next = false;
                    } else if self.rq_hit.q.val() && (self.rq_req_qp.val() == self.rq_qp.q.val()) {
                        // The head WQE is still in the answer registers.
                        self.rsp_v.d.next = true;
                    } else {
                        self.rq_hit.d.next = false;
                        self.rq_qp.d.next = self.rq_req_qp.val();
                        self.rq_state.d.next = RqState::Ci;
                    }
                }
            }
            RqState::Ci => {
                if self.rq_gnt.val() {
                    self.rq_state.d.next = RqState::CiD;
                }
            }
            RqState::CiD => {
                // QP_RQ_CI is on the RAM's read port (ix).
                self.rsp_index.d.next = self.ix.val();
                self.rq_state.d.next = RqState::Pi;
            }
            RqState::Pop => {
                if self.rq_gnt.val() {
                    self.rq_state.d.next = RqState::PopC;
                }
            }
            RqState::PopC => {
                // The answer registers are free (no hit after a pop): the new index waits in
                // rsp_index for the write port.
                self.rsp_index.d.next = self.ix.val() + 1;
                self.rq_state.d.next = RqState::PopW;
            }
            RqState::PopW => {
                if self.rq_wgnt.val() {
                    for i in 0..QPS {
                        if self.rq_qp.q.val().index() == i {
                            self.q_ci_v[i].d.next = true;
                        }
                    }
                    // Prefetch the new head WQE (rsp_index holds the new consumer index).
                    self.rq_pf.d.next = true;
                    self.rq_state.d.next = RqState::Pi;
                }
            }
            RqState::Pi => {
                if self.rq_gnt.val() {
                    self.rq_state.d.next = RqState::Check;
                }
            }
            RqState::Check => {
                // RQ_PI is on the RAM's read port (ix).
                self.rq_off.d.next =
                    self.rsp_index.q.val() & !(self.c_ones.val() << self.x_log2.val());
                self.rq_empty.d.next = self.rsp_index.q.val() == self.ix.val();
                self.rq_state.d.next = RqState::Empty;
            }
            RqState::Empty => {
                if self.rq_empty.q.val() {
                    if !self.rq_pf.q.val() {
                        self.rsp_v.d.next = true;
                        self.rsp_present.d.next = false;
                    }
                    self.rq_pf.d.next = false;
                    self.rq_state.d.next = RqState::Idle;
                } else {
                    self.rq_state.d.next = RqState::Base;
                }
            }
            RqState::Base => {
                // Not while the CQE writer holds `ring_q` (a bounded wait: its beats then wait
                // only for the DMA write port and the CqeQueue).
                if self.rq_gnt.val() && !self.cw_hold.val() {
                    self.rq_state.d.next = RqState::Addr;
                }
            }
            RqState::Addr => {
                // `ring_q` takes the WQE's address, in 16-octet units (QP_RQ_BASE is 16-octet
                // aligned: its `[3:0]` are ignored).
                self.rq_state.d.next = RqState::Req;
            }
            RqState::Req => {
                if self.dma_rd_req_ready.val() {
                    self.rq_beat.d.next = 0.into();
                    self.rq_state.d.next = RqState::Data;
                }
            }
            RqState::Data => {
                if self.dma_rd_cpl_valid.val() && (self.dma_rd_cpl_tag.val().get_bits::<2>(3) == 0)
                {
                    self.rq_beat.d.next = self.rq_beat.q.val() + 1;
                    if self.rq_beat.q.val() == 0 {
                        self.rsp_len_n.d.next =
                            !self.dma_rd_cpl_data.val().get_bits::<LOCAL_LEN_BITS>(0);
                    }
                    if self.rq_beat.q.val() == 1 {
                        self.rsp_lkey.d.next =
                            self.dma_rd_cpl_data.val().get_bits::<RQ_LKEY_BITS>(0);
                        self.rsp_lkey_hi.d.next =
                            (self.dma_rd_cpl_data.val() & self.c_lkey_hi.val()) != 0;
                    }
                    if self.rq_beat.q.val() == 2 {
                        // TO bits 63..32: bit 32, and the class of bits 63..33.
                        self.rsp_to_b32.d.next = self.dma_rd_cpl_data.val().get_bit(0);
                        self.rsp_to_hb.d.next = self.dma_rd_cpl_data.val().get_bits::<30>(2).all();
                        self.rsp_to_b33.d.next = self.dma_rd_cpl_data.val().get_bits::<31>(1) != 0;
                        if self.dma_rd_cpl_data.val().get_bits::<30>(2).all() {
                            self.rsp_to_b33.d.next = self.dma_rd_cpl_data.val().get_bit(1);
                        }
                    }
                    if self.rq_beat.q.val() == 3 {
                        self.rsp_to_lo.d.next = self.dma_rd_cpl_data.val();
                    }
                    if self.dma_rd_cpl_last.val() {
                        self.rsp_v.d.next = !self.rq_pf.q.val();
                        self.rsp_present.d.next = true;
                        self.rq_hit.d.next = true;
                        self.rq_pf.d.next = false;
                        self.rq_state.d.next = RqState::Idle;
                    }
                }
            }
        }

        // ---- Receive-side RdmaRead completions go to the send engine.
        // Not once the CQE writer took the receive CQE: its source then shows its beats.
        self.cw_rx.next = (self.cw_state.q.val() != CwState::Idle) && !self.cw_send.q.val();
        self.cqe_go.next = self.cw_rx.val();
        self.cqe_rdc.next = self.cqe_opcode.val() == self.c_rdma_read.val();
        self.rdc_valid.next = self.cqe_valid.val() && self.cqe_rdc.val() && !self.cw_rx.val();
        self.rdc_qp.next = self.cqe_qp.val();
        self.rdc_status.next = self.cqe_status.val();
        self.cqe_rx_ok.next = self.cqe_valid.val() && !self.cqe_rdc.val();
        self.cw_take_send.next =
            self.scqe_valid.val() && (!self.cqe_rx_ok.val() || !self.cw_last_send.q.val());

        // ---- CQE writer.
        // A CQE is released in Done (written) or in Ovf once its event is latched (dropped).
        self.cw_rel.next = (self.cw_state.q.val() == CwState::Done)
            || ((self.cw_state.q.val() == CwState::Ovf)
                && !self.aev_valid.val()
                && self.ev_free.val());
        self.cqe_ready.next = (self.rdc_valid.val() && self.rdc_ready.val())
            || (self.cw_rel.val() && !self.cw_send.q.val());
        self.scqe_ready.next = self.cw_rel.val() && self.cw_send.q.val();
        // Beat 0 waits while the RQ service is about to load `ring_q` (see "Ring address").
        self.cw_wv.next = self.cw_w.q.val()
            && (self.cw_send.q.val() || self.cqe_beat_valid.val())
            && (self.cw_hold.val() || !self.rq_ld.val());
        self.w_pass.next = self.ix.val() >> self.x_log2.val();
        match self.cw_state.q.val() {
            CwState::Idle => {
                if self.cw_take_send.val() {
                    self.cw_send.d.next = true;
                    self.cw_last_send.d.next = true;
                    self.cw_qp.d.next = self.scqe_qp.val();
                    self.cw_state.d.next = CwState::Cq;
                } else if self.cqe_rx_ok.val() {
                    self.cw_send.d.next = false;
                    self.cw_last_send.d.next = false;
                    self.cw_qp.d.next = self.cqe_qp.val();
                    self.cw_state.d.next = CwState::Cq;
                }
            }
            CwState::Cq => {
                if self.cw_send.q.val() {
                    self.cw_cq.d.next = self.w_scq.val();
                } else {
                    self.cw_cq.d.next = self.w_rcq.val();
                }
                self.cw_state.d.next = CwState::Ci;
            }
            CwState::Ci => {
                if self.cw_gnt.val() {
                    self.cw_state.d.next = CwState::CiD;
                }
            }
            CwState::CiD => {
                // CQ_CI is on the RAM's read port (ix): ci + size, the producer index of a full
                // CQ, kept in cw_diff until Sel.
                self.cw_diff.d.next = self.ix.val() + (self.c_one.val() << self.x_log2.val());
                self.cw_state.d.next = CwState::Pi;
            }
            CwState::Pi => {
                if self.cw_gnt.val() {
                    self.cw_state.d.next = CwState::Sel;
                }
            }
            CwState::Sel => {
                // CQ_PI is on the RAM's read port (ix).
                // Registered, for 100 MHz: full (`pi - ci == size`, i.e. pi = ci + size) or
                // already overflowed.
                self.cw_full.d.next = self.w_ovf.val() || (self.ix.val() == self.cw_diff.q.val());
                self.cw_pi.d.next = self.ix.val();
                // The ring offset and owner bit of the producer index (used from Addr on).
                self.cw_off.d.next = self.ix.val() & !(self.c_ones.val() << self.x_log2.val());
                self.cw_owner.d.next = !self.w_pass.val().get_bit(0);
                self.cw_state.d.next = CwState::Full;
            }
            CwState::Full => {
                if self.cw_full.q.val() {
                    for i in 0..CQS {
                        if self.cw_cq.q.val().index() == i {
                            self.c_ovf[i].d.next = true;
                        }
                    }
                    self.cw_state.d.next = CwState::Ovf;
                } else {
                    self.cw_state.d.next = CwState::Base;
                }
            }
            CwState::Ovf => {
                // The QP's CqOverflow event (if it has none latched) was latched in this cycle
                // (the events above).
                if !self.aev_valid.val() && self.ev_free.val() {
                    self.cw_state.d.next = CwState::Idle;
                }
            }
            CwState::Base => {
                // Not while the RQ service loads or uses `ring_q` (`Addr`, `Req`: a bounded
                // wait, the DMA read port).
                if self.cw_gnt.val()
                    && (self.rq_state.q.val() != RqState::Addr)
                    && (self.rq_state.q.val() != RqState::Req)
                {
                    self.cw_state.d.next = CwState::Addr;
                }
            }
            CwState::Addr => {
                // `ring_q` takes the ring base from the RAM plus the ring offset, in 16-octet
                // units (the base is 16-octet aligned; the beats' offsets are `cw_beat`, no
                // adder).
                self.cw_beat.d.next = 0.into();
                self.cw_state.d.next = CwState::Write;
                self.cw_w.d.next = true;
            }
            CwState::Write => {
                if self.cw_wv.val() && self.pick_cw_q.q.val() && self.dma_wr_ready.val() {
                    self.cw_beat.d.next = self.cw_beat.q.val() + 1;
                    if self.cw_beat.q.val() == 3 {
                        self.cw_pi.d.next = self.cw_pi.q.val() + 1;
                        self.cw_state.d.next = CwState::Pw;
                        self.cw_w.d.next = false;
                    }
                }
            }
            CwState::Pw => {
                // The new producer index goes to the RAM before the CQE is released.
                if self.cw_wgnt.val() {
                    for i in 0..CQS {
                        if self.cw_cq.q.val().index() == i {
                            self.c_pi_v[i].d.next = true;
                        }
                    }
                    self.cw_state.d.next = CwState::Done;
                }
            }
            CwState::Done => {
                self.cw_state.d.next = CwState::Idle;
            }
        }
        // The RQ service takes `ring_q` from a CQE writer that has had no beat taken (its beat
        // 0 waited in the RQ's `Base` and `Addr`): the writer reloads its address.
        if (self.rq_state.q.val() == RqState::Addr) && self.cw_w.q.val() {
            self.cw_state.d.next = CwState::Base;
            self.cw_w.d.next = false;
        }
        // The CQE's beats: a send CQE's read from its source (which holds them until its
        // ready), a receive CQE's as they come from the CqeQueue.
        self.cw_wdata.next = self.cqe_beat.val();
        if self.cw_send.q.val() {
            self.cw_wdata.next = 0.into();
            if self.cw_beat.q.val() == 0 {
                self.cw_wdata.next = (bit_cast::<32, 16>(self.scqe_index.val()) << 16)
                    | (bit_cast::<32, 8>(self.scqe_opcode.val()) << 8)
                    | bit_cast::<32, 8>(self.scqe_status.val());
            }
            if self.cw_beat.q.val() == 1 {
                self.cw_wdata.next = self.scqe_byte_len.val();
            }
        }
        if self.cw_beat.q.val() == 3 {
            self.cw_wdata.next = self.cw_wdata.val()
                | (bit_cast::<32, CONN_BITS>(self.cw_qp.q.val()) << 24)
                | bit_cast::<32, 1>(self.cw_owner.q.val().into());
        }

        // ---- DMA read arbiter: RQ fetch, then SQ WQE fetch, then payload (fixed priority;
        // requests are single beats, so no lock). Completions by tag[4:3].
        self.sq_rd_req_ready.next = false;
        self.pay_rd_req_ready.next = false;
        if self.rq_rd_v.val() {
            self.dma_rd_req_valid.next = true;
            self.dma_rd_req_addr.next =
                bit_cast::<DMA_ADDR_BITS, RING_ADDR_BITS>(self.ring_q.q.val()) << 4;
            self.dma_rd_req_len.next = 16.into();
            self.dma_rd_req_tag.next = 0.into();
        } else if self.sq_rd_req_valid.val() {
            self.dma_rd_req_valid.next = true;
            self.dma_rd_req_addr.next = self.sq_rd_req_addr.val();
            self.dma_rd_req_len.next = self.sq_rd_req_len.val();
            self.dma_rd_req_tag.next =
                bit_cast::<DMA_TAG_BITS, DMA_SUB_TAG_BITS>(self.sq_rd_req_tag.val()) | 0x08;
            self.sq_rd_req_ready.next = self.dma_rd_req_ready.val();
        } else {
            self.dma_rd_req_valid.next = self.pay_rd_req_valid.val();
            self.dma_rd_req_addr.next = self.pay_rd_req_addr.val();
            self.dma_rd_req_len.next = self.pay_rd_req_len.val();
            self.dma_rd_req_tag.next =
                bit_cast::<DMA_TAG_BITS, DMA_SUB_TAG_BITS>(self.pay_rd_req_tag.val()) | 0x10;
            self.pay_rd_req_ready.next = self.dma_rd_req_ready.val();
        }
        self.sq_rd_cpl_valid.next =
            self.dma_rd_cpl_valid.val() && (self.dma_rd_cpl_tag.val().get_bits::<2>(3) == 1);
        self.pay_rd_cpl_valid.next =
            self.dma_rd_cpl_valid.val() && (self.dma_rd_cpl_tag.val().get_bits::<2>(3) == 2);
        self.sq_rd_cpl_tag.next = self.dma_rd_cpl_tag.val().get_bits::<DMA_SUB_TAG_BITS>(0);
        self.pay_rd_cpl_tag.next = self.dma_rd_cpl_tag.val().get_bits::<DMA_SUB_TAG_BITS>(0);
        self.sq_rd_cpl_data.next = self.dma_rd_cpl_data.val();
        self.pay_rd_cpl_data.next = self.dma_rd_cpl_data.val();
        self.sq_rd_cpl_keep.next = self.dma_rd_cpl_keep.val();
        self.pay_rd_cpl_keep.next = self.dma_rd_cpl_keep.val();
        self.sq_rd_cpl_last.next = self.dma_rd_cpl_last.val();
        self.pay_rd_cpl_last.next = self.dma_rd_cpl_last.val();

        // ---- DMA write arbiter: whole packets, placement first at a packet boundary.
        self.wr_pick_q.d.next = !self.place_wr_valid.val();
        if self.pick_cw_q.q.val() {
            self.dma_wr_valid.next = self.cw_wv.val();
            self.dma_wr_addr.next =
                (bit_cast::<DMA_ADDR_BITS, RING_ADDR_BITS>(self.ring_q.q.val()) << 4)
                    | (bit_cast::<DMA_ADDR_BITS, 2>(self.cw_beat.q.val()) << 2);
            self.dma_wr_data.next = self.cw_wdata.val();
            self.dma_wr_keep.next = 0xF.into();
            self.dma_wr_last.next = self.cw_beat.q.val() == 3;
        } else {
            self.dma_wr_valid.next = self.place_wr_valid.val();
            self.dma_wr_addr.next = self.place_wr_addr.val();
            self.dma_wr_data.next = self.place_wr_data.val();
            self.dma_wr_keep.next = self.place_wr_keep.val();
            self.dma_wr_last.next = self.place_wr_last.val();
        }
        self.place_wr_ready.next = !self.pick_cw_q.q.val() && self.dma_wr_ready.val();
        // `cw_wv && !cw_send && pick_cw_q && dma_wr_ready` without the beat's valid (the
        // CqeQueue looks at the ready only with a beat offered).
        self.cqe_beat_ready.next = self.cw_go_q.q.val() && self.dma_wr_ready.val();
        if self.dma_wr_valid.val() && self.dma_wr_ready.val() {
            self.wr_lock.d.next = !self.dma_wr_last.val();
            self.wr_lock_cw.d.next = self.pick_cw_q.q.val();
        }
        // The next cycle's choice, from the next values written above (`cw_w`'s last write is
        // the CQE writer's, before): a locked packet keeps its owner; at a packet boundary the
        // CQE writer takes the port when it is writing and the placement offered nothing in
        // the cycle before.
        if self.wr_lock.d.val() {
            self.pick_cw_q.d.next = self.wr_lock_cw.d.val();
        } else {
            self.pick_cw_q.d.next = self.cw_w.d.val() && self.wr_pick_q.d.val();
        }

        // ---- The QP's event latch (QP_AEV / QP_STATUS), before the MMIO writes: a QP_CTRL
        // write clears it.
        for i in 0..QPS {
            if self.ev_ld.val() && (self.ev_qp.val().index() == i) {
                self.q_aev_v[i].d.next = true;
            }
        }

        // ---- MMIO writes (after the engines: a write wins over an engine's update).
        // (The staging registers' decode is `gw_q`, from the wait cycle: the write is
        // performed in the cycle after, `wr`, the master holding the access.)
        if self.gw_q.q.val().get_bit(0) {
            self.st_index.d.next = self.mmio_wdata.val().get_bits::<STAG_INDEX_BITS>(0);
        }
        if self.gw_q.q.val().get_bit(1) {
            self.st_to_hi_nz.d.next = self.mmio_wdata.val().any();
        }
        if self.gw_q.q.val().get_bit(2) {
            self.st_hi.d.next = self.mmio_wdata.val();
        }
        if self.wr.val() {
            if self.a_qp.val() {
                for i in 0..QPS {
                    if self.a_q.val().index() == i {
                        if self.a_qoff.val() == 0x00 {
                            // SEND_CQ (`[21:20]`) and RECV_CQ (`[23:22]`), their
                            // implemented bits.
                            self.q_scq[i].d.next = self.mmio_wdata.val().get_bits::<CQ_BITS>(20);
                            self.q_rcq[i].d.next = self.mmio_wdata.val().get_bits::<CQ_BITS>(22);
                            self.q_pi_v[i].d.next = false;
                            self.q_ci_v[i].d.next = false;
                            self.q_aev_v[i].d.next = false;
                            self.q_fpdu[i].d.next = false;
                        }
                        if self.a_qoff.val() == 0x1C {
                            self.q_pi_v[i].d.next = true;
                        }
                    }
                }
                if self.a_qoff.val() == 0x00 {
                    self.qpc_q.d.next = true;
                    self.rq_hit.d.next = false;
                }
                if self.a_qoff.val() == 0x10 {
                    self.db_q.d.next = true;
                }
            }
            if self.a_cq.val() {
                for i in 0..CQS {
                    if self.a_c.val().index() == i {
                        if self.a_coff.val() == 0x04 {
                            self.c_pi_v[i].d.next = false;
                            self.c_ci_v[i].d.next = false;
                            self.c_ovf[i].d.next = false;
                        }
                        if self.a_coff.val() == 0x0C {
                            self.c_ci_v[i].d.next = true;
                        }
                    }
                }
            }
        }

        self.idle.next = (self.rq_state.q.val() == RqState::Idle)
            && !self.rsp_v.q.val()
            && (self.cw_state.q.val() == CwState::Idle)
            && !self.wr_lock.q.val()
            && !self.qpc_q.q.val()
            && !self.db_q.q.val()
            && !self.qe_q.q.val();

        // `cw_go_q` for the next cycle, from the next values written above (last: no write
        // of its sources follows).
        self.cw_go_q.d.next = self.cw_w.d.val()
            && ((self.cw_beat.d.val() != 0)
                || !((self.rq_state.d.val() == RqState::Base)
                    || (self.rq_state.d.val() == RqState::Addr)))
            && !self.cw_send.d.val()
            && self.pick_cw_q.d.val();
    }
}

crate::sim_ports!(impl[] HostIf {
    inputs: mmio_valid, mmio_write, mmio_addr, mmio_wdata, rx_idle, tx_idle, fpdu_good_valid,
        fpdu_good_conn, rq_req_valid, rq_req_qp, rq_req_pop, cqe_valid, cqe_qp, cqe_opcode,
        cqe_status, cqe_beat_valid, cqe_beat, rdc_ready, scqe_valid, scqe_qp, scqe_opcode,
        scqe_status, scqe_byte_len, scqe_index, aev_valid, aev_qp, aev_kind, aev_layer, aev_etype,
        aev_code, sq_rd_req_valid, sq_rd_req_addr, sq_rd_req_len, sq_rd_req_tag, pay_rd_req_valid,
        pay_rd_req_addr, pay_rd_req_len, pay_rd_req_tag, dma_rd_req_ready, dma_rd_cpl_valid,
        dma_rd_cpl_tag, dma_rd_cpl_data, dma_rd_cpl_keep, dma_rd_cpl_last, place_wr_valid,
        place_wr_addr, place_wr_data, place_wr_keep, place_wr_last, dma_wr_ready, dma_wr_done;
    outputs: mmio_ready, mmio_rvalid, mmio_rdata, qpc_write, qpc_qp, qpc_enable, qpc_fpdu_mode, qpc_rx_crc,
        qpc_rx_markers, qpc_tx_crc, qpc_tx_markers, qpc_pd, qpc_ird, qpc_ord, qpc_rx_max_ulpdu,
        qpc_tx_mulpdu, qpc_sq_base, qpc_sq_log2, prog_write, prog_index, prog_valid, prog_key,
        prog_pd, prog_access, prog_qp_bound, prog_qp, prog_remote_inv, prog_base_to, prog_len,
        prog_host_addr, sq_db_valid, sq_db_qp, sq_db_pi, rq_req_ready, rq_rsp_valid, rq_rsp_present,
        rq_rsp_to, rq_rsp_len_n, rq_rsp_lkey, rq_rsp_index, cqe_ready, cqe_go, cqe_beat_ready,
        rdc_valid, rdc_qp, rdc_status, scqe_ready, aev_ready, qp_err_valid, qp_err_qp,
        sq_rd_req_ready, sq_rd_cpl_valid, sq_rd_cpl_tag, sq_rd_cpl_data, sq_rd_cpl_keep,
        sq_rd_cpl_last, pay_rd_req_ready, pay_rd_cpl_valid, pay_rd_cpl_tag, pay_rd_cpl_data,
        pay_rd_cpl_keep, pay_rd_cpl_last, dma_rd_req_valid, dma_rd_req_addr, dma_rd_req_len,
        dma_rd_req_tag, place_wr_ready, dma_wr_valid, dma_wr_addr, dma_wr_data, dma_wr_keep,
        dma_wr_last, idle;
});
