//! DDP receive placement: payload runs from [`DdpRxParse`](super::rx_parse::DdpRxParse) and
//! one verdict per run (from RxControl) in, posted DMA writes of the payload octets to host
//! memory and one `done` per run out. The contract (payload run, DMA write convention, port
//! list) is in [`crate::ddp`]; catalog: `rfc5040-rdmap.md` §3 (placement; a completion never
//! overtakes its data), `mpa-peer-connect.md` §6.2 / §6.3 (payload after 14 / 18 octets).
//!
//! # Architecture (32-bit Cu datapath)
//!
//! ```text
//!  pay_* ─► input FIFO (64 beats, block RAM) ─► head ─► place: realign, carry ─► hold ─► out ─► dma_wr_*
//!                                                 ▲ vd_* (taken as a run's           └─► done_*
//!                                                 │      first beat is placed)
//!                                  per connection: next host address, place/drop
//! ```
//!
//! - The input FIFO (64 beats, 3 block RAMs) lets the payload stream run on while a verdict
//!   comes later than its job: about 60 cycles of slack at one beat per cycle.
//! - Placement: a run's first beat takes its verdict from the `vd_*` port in the cycle it is placed
//!   (acknowledged by `vd_ready` in the next cycle, a register; the beat waits for `vd_valid`,
//!   which is ignored in the cycle of an acknowledgement); the run
//!   is placed at `vd_addr` or dropped. Per connection the block keeps the host address of the
//!   run's next payload octet and the place/drop flag. Payload octet 0 is in lane 2 of the first
//!   beat, later beats start in lane 0, so a beat is rotated by `(addr - start lane) mod 4` lanes
//!   and merged with the *carry* (the octets of the current host word that are not written yet). A
//!   full host word leaves as a DMA beat, the rest stays in the carry.
//! - One carry only, for the connection of the last placed beat: when a beat of another
//!   connection comes while the carry holds octets, the carry leaves first as a partial beat
//!   (one extra cycle) and that connection's run continues later in a partial first word. This
//!   costs a cycle per change of connection only when the carry is not empty, i.e. when the
//!   run's host address is not 2 mod 4 (with `vd_addr` = 2 mod 4 the payload is already in its
//!   lanes and there is never a carry).
//! - A run's end: its last octets leave with the run's last DMA beat. When the last beat
//!   completes a host word and leaves octets over (possible only with a carry), the rest leaves
//!   in the next cycle (one extra cycle at that run's end).
//! - Write requests: a *hold* register keeps the newest DMA beat until the next one is known,
//!   then sets `dma_wr_last` when the request ends there: at the run's end, before a beat of
//!   another connection, or at the last word of a 4 KiB page (a request never crosses one). So
//!   a run interrupted by another connection is written in several requests.
//! - `done_*`: the run's last DMA beat (or, for a run that writes nothing, an empty token in the
//!   same ordered path) carries the run's completion through the hold register and the output
//!   register; the completion moves to the `done_*` register only once that DMA beat was
//!   accepted (`dma_wr_valid && dma_wr_ready`), so `done_valid` rises in the cycle after,
//!   never before, and completions keep run order. While `done_*` is occupied, a beat that
//!   carries the next completion waits.
//!
//! # Timing and throughput
//!
//! - One payload beat per cycle sustained (`pay_ready`, a flip-flop: low from the cycle after
//!   the FIFO held 63 or 64 entries, so a beat written meanwhile still has room), outputs
//!   ready.
//!   Extra cycles: one per change of connection with a non-empty carry, one at the end of a run
//!   whose last beat overflows a host word.
//! - Latency: a payload beat taken in cycle t is the block RAM's read data in t + 2, in the
//!   head register (the beat being placed) in t + 3, placed in t + 3, in the hold register in
//!   t + 4, in the output register in t + 5 (once the next DMA beat is known or at once for a
//!   run's end), on `dma_wr_*` from t + 5.
//! - Back-pressure: one output register ([`RxOutReg`]), no skid buffer. Everything from the
//!   head register to the hold register moves when the output register has room (empty, or its
//!   beat is taken in this cycle), so `dma_wr_ready` (and the output gate of a completion while
//!   `done_*` is occupied) reaches the placement enables in the same cycle (but not `vd_ready`,
//!   a register, so not RxControl's enables: the composed receive path's Fmax); the
//!   outputs (`dma_wr_*`, `done_*`) are registers. A skid buffer's overflow entry (72
//!   flip-flops and a multiplexer in front of its main entry) kept that path registered.
//! - The address arithmetic is 32 bits: the host word address (30 bits) increments by one, the
//!   two low bits add the octet count.
//! - 100 MHz on the iCE40: the beat is placed from the head register, not from the block RAM's
//!   read data (late in the cycle); the head beat's address mod 4 and its address source
//!   (connection 0-3 or, for a run's first beat, the verdict port; one-hot, so the address
//!   is an AND-OR of two LUT levels) are looked up as it enters the head register. The
//!   head beat's host word (`na + adv`, see below) is the selected word plus an increment:
//!   three 10-bit parts side by side whose carries in are flags kept with each address (word
//!   bits 9..0 all ones, 19..0 all ones; for the verdict's address, the `vd_a10` / `vd_a20`
//!   ports; for a connection's, computed from the placed word as it is written), so no
//!   30-bit carry chain and no all-ones tree follows the address selection. The increment is
//!   made once per connection, from the shared selected word (`wu[i]`, carry in `adv[i]` and
//!   that connection's flags): each chain's sum LUTs feed only `na[i]`, so its flip-flops
//!   share their logic cells (one shared incrementer feeding both connections' `na` left all
//!   of them alone in a cell, issue 5). The head register costs one cycle of
//!   latency, no throughput (it loads in the cycle its beat is placed).
//! - Area: the input FIFO is a block RAM without a read-during-write bypass ([`BlockRam`]), and
//!   the per-connection state is a host word (`na`, 30 bits), the next octet's lane, `adv`,
//!   two increment flags and the place flag (and the incrementer that loads `na`).
//! - The write address is registered once, in the output register: `na[c]` is the host word
//!   of connection c's last DMA beat (or of its run's first beat), and `adv[c]` says the next
//!   octet is in the word after it (the last DMA beat was a full word), so the head beat's
//!   word is `na + adv` (the incrementer) and `na` changes only when a DMA beat of c is
//!   emitted (or a run's first beat is placed). While the hold register keeps a beat, no
//!   other beat of its connection is emitted, so `na[hold_conn]` is its word: the output
//!   register takes it from there (`o_addr`, a multiplexer that shares the flip-flops' logic
//!   cells) and the 4 KiB page end from `na_a10[hold_conn]`. Before, `na` was the next
//!   octet's address and the hold register kept a copy of the word (issue 5: 22 flip-flops of
//!   the hold register and the 22 of the output register each alone in a logic cell).
//! - No verdict buffer: the verdict is used straight from the `vd_*` port (RxControl's output
//!   register), taken in the cycle its run's first beat is placed, so a run's first beat is
//!   placed in the cycle its verdict is offered at the earliest (as with the one-verdict buffer
//!   before, which took it a cycle ahead), and RxControl holds the verdict until then. The
//!   address's carry-select flags come with it (`vd_a10`, `vd_a20`, registers in RxControl:
//!   all-ones trees on `vd_addr` here were two LUT levels and a long route on the composed
//!   receive path's critical path, `vd_addr` -> `w_hi1` -> the carry's address register).
//! - The carry's host word is not copied: it is always `na[cur] + adv[cur]`. When the carry
//!   leaves (`fin`, or a flush before another connection's beat), the address source `hr_oh`
//!   selects `cur`, so its address is the placement's `wu[cur]`. Which cycle that is, is
//!   registered a cycle ahead (`ovr`, with `hr_oh` set to `cur` then), so neither the address
//!   selection nor `proc` starts with the flush compare (`h_conn != cur`, the carry not empty):
//!   30 flip-flops (each alone in its logic cell) and the output address multiplexer fewer.

use crate::config::{CONNECTIONS, CONN_BITS, DATA_WIDTH, DMA_ADDR_BITS};
use crate::mpa::mpa_rx::RxOutReg;
use crate::ram::BlockRam;
use rust_hdl::prelude::*;

// Written for 4 byte lanes and host addresses of 23 to 32 bits (the word address's top part,
// above its two 10-bit parts, is 1 to 10 bits); `hr_oh` has a bit for each of at most 4
// connections (bits 0-3) and the verdict port (bit 4); the output register's fields below the
// address end at bit 42 (at most 2 connection bits).
const _: () = assert!(
    DATA_WIDTH == 32
        && DMA_ADDR_BITS > 22
        && DMA_ADDR_BITS <= 32
        && CONNECTIONS <= 4
        && CONN_BITS <= 2
);
/// Bits of a host word (4-octet) address.
const WA_BITS: usize = DMA_ADDR_BITS - 2;
/// Bits of the word address above its two 10-bit parts.
const WH_BITS: usize = WA_BITS - 20;

/// Input FIFO entry: data 32, keep 4, first, last, good, connection.
const FIFO_BITS: usize = 39 + CONN_BITS;
/// Input FIFO depth: 2^FIFO_ABITS beats.
const FIFO_ABITS: usize = 6;
/// Output register entry: data 32, keep 4, last, write, done, good, connection (bits 40..41),
/// word address (from bit 42).
const OUT_BITS: usize = 42 + WA_BITS;

/// The DDP receive placement block. Ports: see [`crate::ddp`].
#[derive(LogicBlock)]
pub struct RxPlace {
    pub clock: Signal<In, Clock>,
    // Payload runs.
    pub pay_data: Signal<In, Bits<32>>,
    pub pay_keep: Signal<In, Bits<4>>,
    pub pay_first: Signal<In, Bit>,
    pub pay_last: Signal<In, Bit>,
    pub pay_good: Signal<In, Bit>,
    pub pay_valid: Signal<In, Bit>,
    pub pay_ready: Signal<Out, Bit>,
    pub pay_conn: Signal<In, Bits<CONN_BITS>>,
    // Verdicts, one per run in run order.
    pub vd_valid: Signal<In, Bit>,
    pub vd_ready: Signal<Out, Bit>,
    pub vd_conn: Signal<In, Bits<CONN_BITS>>,
    pub vd_place: Signal<In, Bit>,
    pub vd_addr: Signal<In, Bits<DMA_ADDR_BITS>>,
    /// `vd_addr`'s carry-select flags: word bits 9..0 (address bits 11..2) all ones, word
    /// bits 19..0 all ones (RxControl registers them with the address).
    pub vd_a10: Signal<In, Bit>,
    pub vd_a20: Signal<In, Bit>,
    // Posted DMA writes.
    pub dma_wr_addr: Signal<Out, Bits<DMA_ADDR_BITS>>,
    pub dma_wr_data: Signal<Out, Bits<32>>,
    pub dma_wr_keep: Signal<Out, Bits<4>>,
    pub dma_wr_last: Signal<Out, Bit>,
    pub dma_wr_valid: Signal<Out, Bit>,
    pub dma_wr_ready: Signal<In, Bit>,
    // Run completions.
    pub done_valid: Signal<Out, Bit>,
    pub done_ready: Signal<In, Bit>,
    pub done_conn: Signal<Out, Bits<CONN_BITS>>,
    pub done_good: Signal<Out, Bit>,

    // Input FIFO: write and read pointers with a wrap bit; `hv`: the RAM's read data is the
    // entry at `rp` (not yet in the head register).
    /// The input FIFO's block RAM, without read-during-write logic (rust-hdl's `RAM` made yosys
    /// add a 41-bit register of the written data, an address comparator and a multiplexer per
    /// bit, ~85 logic cells): the entry at the write pointer is read only while the FIFO is
    /// empty, and that data is not used (`hv` is low; the entry is read again once written).
    fifo: BlockRam<FIFO_BITS, FIFO_ABITS>,
    wp: DFF<Bits<7>>,
    rp: DFF<Bits<7>>,
    hv: DFF<Bit>,
    /// `pay_ready` registered, one entry conservative: set when `wp - rp >= 63` at the
    /// previous edge (a beat written in that cycle leaves at most 64 now), so `pay_ready` is a
    /// flip-flop (timing: the 7-bit compare ended MpaRx's skid enable through RxParse's ready).
    /// Kept inverted so that it powers up ready.
    pay_nr: DFF<Bit>,
    fill: Signal<Local, Bits<7>>,
    // Head register: the beat being placed, registered out of the block RAM (its read data
    // comes late in the cycle; placing straight from it missed 100 MHz).
    hr: DFF<Bits<FIFO_BITS>>,
    hr_v: DFF<Bit>,
    /// The head beat's host address mod 4 for a beat that is not a run's first: `na` of its
    /// connection, looked up (with the placed beat's update forwarded) as it enters the head
    /// register, so that placement does not start with the connection selection.
    hr_alo: DFF<Bits<2>>,
    /// The address source, one-hot: bit i for a later beat of connection i, bit 4 for a run's
    /// first beat (the verdict port, `vd_addr`); while `ovr`, bit `cur` (the carry's host word
    /// is `na[cur] + adv[cur]`: the carry leaves this cycle with that address).
    hr_oh: DFF<Bits<5>>,
    /// The carry leaves next (`fin`, or a flush: a head beat of another connection while the
    /// carry holds octets), registered: `hr_oh` selects the carry's connection then, so the
    /// carry's address is `word` (no copy of it), and `proc` starts at a flip-flop.
    ovr: DFF<Bit>,
    /// Per connection: the host word of the run's last DMA beat (or, before one, of its first
    /// placed beat); the next payload octet is in word `na + adv`. `na` changes only with a
    /// DMA beat of the connection (or a run's first beat), so while the hold register keeps a
    /// beat, `na[hold_conn]` is that beat's word: the hold register keeps no address.
    na: [DFF<Bits<WA_BITS>>; CONNECTIONS],
    /// Per connection: the next payload octet's lane (its host address mod 4).
    nlo: [DFF<Bits<2>>; CONNECTIONS],
    /// Per connection: the next payload octet is in the word after `na` (the last DMA beat was
    /// a full word).
    adv: [DFF<Bit>; CONNECTIONS],
    // Per connection: run placed (else dropped).
    pl: [DFF<Bit>; CONNECTIONS],
    /// Per connection: `na`'s bits 9..0 all ones, bits 19..0 all ones (the carry-select flags
    /// of its increment; `na_a10` is also the hold beat's "last word of a 4 KiB page").
    na_a10: [DFF<Bit>; CONNECTIONS],
    na_a20: [DFF<Bit>; CONNECTIONS],
    // The carry: connection, host word address, octets (lanes `ck`).
    cur: DFF<Bits<CONN_BITS>>,
    /// The carry's octets. The carry never holds lane 3 (`ck` bit 0 is always 0: a full word
    /// leaves lanes 0..e-5 with e <= 7, a partial one lanes below e <= 3), so lane 3 (bits
    /// 7..0) loads 0 and yosys removes its 8 flip-flops (they were alone in their logic cells,
    /// fed by the rotation's LUTs that also feed `em_data`); the carry leaves with lane 3 zero
    /// and its keep bit clear.
    cw: DFF<Bits<32>>,
    ck: DFF<Bits<4>>,
    /// The carry is the tail of a run that has ended: it leaves next, with the completion.
    fin: DFF<Bit>,
    /// A verdict was taken in the previous cycle: `vd_ready` (registered), and `vd_valid` is
    /// ignored for this cycle (the source still offers the verdict just taken).
    vtook: DFF<Bit>,
    // Hold register: the newest DMA beat (or completion token), `last` not decided yet.
    hold_v: DFF<Bit>,
    hold_wr: DFF<Bit>,
    hold_dn: DFF<Bit>,
    hold_end: DFF<Bit>,
    hold_good: DFF<Bit>,
    hold_conn: DFF<Bits<CONN_BITS>>,
    hold_data: DFF<Bits<32>>,
    hold_keep: DFF<Bits<4>>,
    /// The output register (named `skid` after the buffer it replaced; the name is kept:
    /// nextpnr places the renamed netlist differently, 92.9 instead of 102.4 MHz).
    skid: RxOutReg<OUT_BITS>,
    done_v: DFF<Bit>,
    done_conn_q: DFF<Bits<CONN_BITS>>,
    done_good_q: DFF<Bit>,

    // Combinational signals.
    can: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    ld: Signal<Local, Bit>,
    ld_conn: Signal<Local, Bits<CONN_BITS>>,
    ld_alo: Signal<Local, Bits<2>>,
    ld_oh: Signal<Local, Bits<5>>,
    // Octet count of the head beat and the carry out of alo + n, as plain logic (no carry
    // chain).
    k01: Signal<Local, Bit>,
    k23: Signal<Local, Bit>,
    n0: Signal<Local, Bit>,
    n1: Signal<Local, Bit>,
    n2: Signal<Local, Bit>,
    c0: Signal<Local, Bit>,
    c1: Signal<Local, Bit>,
    e0: Signal<Local, Bit>,
    e1: Signal<Local, Bit>,
    rp_next: Signal<Local, Bits<7>>,
    h_data: Signal<Local, Bits<32>>,
    h_keep: Signal<Local, Bits<4>>,
    h_first: Signal<Local, Bit>,
    h_last: Signal<Local, Bit>,
    h_good: Signal<Local, Bit>,
    h_conn: Signal<Local, Bits<CONN_BITS>>,
    m: [Signal<Local, Bits<WA_BITS>>; CONNECTIONS],
    mv: Signal<Local, Bits<WA_BITS>>,
    ones: Constant<Bits<WA_BITS>>,
    place: Signal<Local, Bit>,
    carry_on: Signal<Local, Bit>,
    flush: Signal<Local, Bit>,
    /// `ovr`'s and `cur`'s next values, the head beat's own address source (from `hr`).
    ovr_nx: Signal<Local, Bit>,
    ovr_p: Signal<Local, Bit>,
    cur_nx: Signal<Local, Bits<CONN_BITS>>,
    hd_oh: Signal<Local, Bits<5>>,
    proc: Signal<Local, Bit>,
    alo: Signal<Local, Bits<2>>,
    rot_by: Signal<Local, Bits<2>>,
    rot: Signal<Local, Bits<32>>,
    low: Signal<Local, Bits<32>>,
    merged: Signal<Local, Bits<32>>,
    n: Signal<Local, Bits<3>>,
    e: Signal<Local, Bits<3>>,
    full: Signal<Local, Bit>,
    word: Signal<Local, Bits<WA_BITS>>,
    sa10: Signal<Local, Bit>,
    sa20: Signal<Local, Bit>,
    new_a10: Signal<Local, Bit>,
    new_a20: Signal<Local, Bit>,
    /// Per connection: the head beat's host word, `word + adv`, if its address source is
    /// that connection or the verdict port (the value `na[i]` loads; see `wu_adv`).
    wu: [Signal<Local, Bits<WA_BITS>>; CONNECTIONS],
    /// Per connection: `adv[i]` and the address source is connection i (the increment's
    /// select for `wu[i]`), and with it `na_a10[i]` / `na_a20[i]` (the upper parts' selects).
    wu_adv: Signal<Local, Bit>,
    wu_a10: Signal<Local, Bit>,
    wu_a20: Signal<Local, Bit>,
    wl: Signal<Local, Bits<10>>,
    wm: Signal<Local, Bits<10>>,
    wh: Signal<Local, Bits<WH_BITS>>,
    sadv: Signal<Local, Bit>,
    /// Connection i's `na` update with `wu` (a DMA beat of the head beat's connection, or a
    /// run's first beat), and `adv`'s new value then: assigned per connection in the loop
    /// that uses it (from `hr_oh`, see there).
    upd: Signal<Local, Bit>,
    adv_nx: Signal<Local, Bit>,
    /// `full` for a head beat that is not a run's first (from `hr_alo`, no `vd_addr`): the
    /// `na` load enables use it where the address source is a connection.
    full_l: Signal<Local, Bit>,
    /// The hold beat's word (`na[hold_conn]`) and its "last word of a 4 KiB page" flag.
    o_addr: Signal<Local, Bits<WA_BITS>>,
    o_pe: Signal<Local, Bit>,
    w_lo: Signal<Local, Bits<10>>,
    w_mid: Signal<Local, Bits<10>>,
    w_hi: Signal<Local, Bits<WH_BITS>>,
    /// A run's first beat is placed: its verdict is taken (`vd_ready`).
    vpop: Signal<Local, Bit>,
    word_keep: Signal<Local, Bits<4>>,
    ck_next: Signal<Local, Bits<4>>,
    /// `ck_next != 0`, written out shallow (it gates the run's end).
    rest: Signal<Local, Bit>,
    em: Signal<Local, Bit>,
    em_wr: Signal<Local, Bit>,
    em_dn: Signal<Local, Bit>,
    em_end: Signal<Local, Bit>,
    em_good: Signal<Local, Bit>,
    em_conn: Signal<Local, Bits<CONN_BITS>>,
    em_data: Signal<Local, Bits<32>>,
    em_keep: Signal<Local, Bits<4>>,
    push: Signal<Local, Bit>,
    push_last: Signal<Local, Bit>,
    o_wr: Signal<Local, Bit>,
    o_dn: Signal<Local, Bit>,
    gate: Signal<Local, Bit>,
    o_pop: Signal<Local, Bit>,

    f4: Constant<Bits<4>>,
    // Lanes 0, 0-1, 0-2 of a word.
    low1: Constant<Bits<32>>,
    low2: Constant<Bits<32>>,
    low3: Constant<Bits<32>>,
}

impl Default for RxPlace {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            pay_data: Default::default(),
            pay_keep: Default::default(),
            pay_first: Default::default(),
            pay_last: Default::default(),
            pay_good: Default::default(),
            pay_valid: Default::default(),
            pay_ready: Default::default(),
            pay_conn: Default::default(),
            vd_valid: Default::default(),
            vd_ready: Default::default(),
            vd_conn: Default::default(),
            vd_place: Default::default(),
            vd_addr: Default::default(),
            dma_wr_addr: Default::default(),
            dma_wr_data: Default::default(),
            dma_wr_keep: Default::default(),
            dma_wr_last: Default::default(),
            dma_wr_valid: Default::default(),
            dma_wr_ready: Default::default(),
            done_valid: Default::default(),
            done_ready: Default::default(),
            done_conn: Default::default(),
            done_good: Default::default(),
            fifo: Default::default(),
            wp: Default::default(),
            rp: Default::default(),
            hv: Default::default(),
            pay_nr: Default::default(),
            fill: Default::default(),
            hr: Default::default(),
            hr_v: Default::default(),
            hr_alo: Default::default(),
            hr_oh: Default::default(),
            na: core::array::from_fn(|_| Default::default()),
            nlo: core::array::from_fn(|_| Default::default()),
            adv: core::array::from_fn(|_| Default::default()),
            pl: core::array::from_fn(|_| Default::default()),
            na_a10: core::array::from_fn(|_| Default::default()),
            na_a20: core::array::from_fn(|_| Default::default()),
            cur: Default::default(),
            ovr: Default::default(),
            cw: Default::default(),
            ck: Default::default(),
            fin: Default::default(),
            vtook: Default::default(),
            hold_v: Default::default(),
            hold_wr: Default::default(),
            hold_dn: Default::default(),
            hold_end: Default::default(),
            hold_good: Default::default(),
            hold_conn: Default::default(),
            hold_data: Default::default(),
            hold_keep: Default::default(),
            skid: Default::default(),
            done_v: Default::default(),
            done_conn_q: Default::default(),
            done_good_q: Default::default(),
            can: Default::default(),
            pop: Default::default(),
            ld: Default::default(),
            ld_conn: Default::default(),
            ld_alo: Default::default(),
            ld_oh: Default::default(),
            k01: Default::default(),
            k23: Default::default(),
            n0: Default::default(),
            n1: Default::default(),
            n2: Default::default(),
            c0: Default::default(),
            c1: Default::default(),
            e0: Default::default(),
            e1: Default::default(),
            rp_next: Default::default(),
            h_data: Default::default(),
            h_keep: Default::default(),
            h_first: Default::default(),
            h_last: Default::default(),
            h_good: Default::default(),
            h_conn: Default::default(),
            m: Default::default(),
            mv: Default::default(),
            ones: Constant::new(((1u64 << WA_BITS) - 1).into()),
            place: Default::default(),
            carry_on: Default::default(),
            flush: Default::default(),
            ovr_nx: Default::default(),
            ovr_p: Default::default(),
            cur_nx: Default::default(),
            hd_oh: Default::default(),
            proc: Default::default(),
            alo: Default::default(),
            rot_by: Default::default(),
            rot: Default::default(),
            low: Default::default(),
            merged: Default::default(),
            n: Default::default(),
            e: Default::default(),
            full: Default::default(),
            word: Default::default(),
            sa10: Default::default(),
            sa20: Default::default(),
            new_a10: Default::default(),
            new_a20: Default::default(),
            wu: Default::default(),
            wu_adv: Default::default(),
            wu_a10: Default::default(),
            wu_a20: Default::default(),
            wl: Default::default(),
            wm: Default::default(),
            wh: Default::default(),
            sadv: Default::default(),
            upd: Default::default(),
            adv_nx: Default::default(),
            full_l: Default::default(),
            o_addr: Default::default(),
            o_pe: Default::default(),
            w_lo: Default::default(),
            w_mid: Default::default(),
            w_hi: Default::default(),
            vd_a10: Default::default(),
            vd_a20: Default::default(),
            vpop: Default::default(),
            word_keep: Default::default(),
            ck_next: Default::default(),
            rest: Default::default(),
            em: Default::default(),
            em_wr: Default::default(),
            em_dn: Default::default(),
            em_end: Default::default(),
            em_good: Default::default(),
            em_conn: Default::default(),
            em_data: Default::default(),
            em_keep: Default::default(),
            push: Default::default(),
            push_last: Default::default(),
            o_wr: Default::default(),
            o_dn: Default::default(),
            gate: Default::default(),
            o_pop: Default::default(),
            f4: Constant::new(15.into()),
            low1: Constant::new(0xFF00_0000_u64.into()),
            low2: Constant::new(0xFFFF_0000_u64.into()),
            low3: Constant::new(0xFFFF_FF00_u64.into()),
        }
    }
}

impl Logic for RxPlace {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            wp,
            rp,
            hv,
            pay_nr,
            hr,
            hr_v,
            hr_alo,
            hr_oh,
            cur,
            ovr,
            cw,
            ck,
            fin,
            vtook,
            hold_v,
            hold_wr,
            hold_dn,
            hold_end,
            hold_good,
            hold_conn,
            hold_data,
            hold_keep,
            done_v,
            done_conn_q,
            done_good_q
        );
        for i in 0..CONNECTIONS {
            self.na[i].clock.next = self.clock.val();
            self.na[i].d.next = self.na[i].q.val();
            self.nlo[i].clock.next = self.clock.val();
            self.nlo[i].d.next = self.nlo[i].q.val();
            self.adv[i].clock.next = self.clock.val();
            self.adv[i].d.next = self.adv[i].q.val();
            self.pl[i].clock.next = self.clock.val();
            self.pl[i].d.next = self.pl[i].q.val();
            self.na_a10[i].clock.next = self.clock.val();
            self.na_a10[i].d.next = self.na_a10[i].q.val();
            self.na_a20[i].clock.next = self.clock.val();
            self.na_a20[i].d.next = self.na_a20[i].q.val();
        }
        self.fifo.clock.next = self.clock.val();
        self.skid.clock.next = self.clock.val();

        // ---- Input FIFO write side.
        // Entries written and not yet read: 0..=64; no room in the next cycle from 63 (a beat
        // may be written in this one).
        self.fill.next = self.wp.q.val() - self.rp.q.val();
        self.pay_nr.d.next = (self.fill.val() == 63) || self.fill.val().get_bit(6);
        self.pay_ready.next = !self.pay_nr.q.val();
        self.fifo.write_enable.next = self.pay_valid.val() && self.pay_ready.val();
        self.fifo.write_addr.next = self.wp.q.val().get_bits::<FIFO_ABITS>(0);
        self.fifo.write_data.next = bit_cast::<FIFO_BITS, 32>(self.pay_data.val())
            | (bit_cast::<FIFO_BITS, 4>(self.pay_keep.val()) << 32)
            | (bit_cast::<FIFO_BITS, 1>(self.pay_first.val().into()) << 36)
            | (bit_cast::<FIFO_BITS, 1>(self.pay_last.val().into()) << 37)
            | (bit_cast::<FIFO_BITS, 1>(self.pay_good.val().into()) << 38)
            | (bit_cast::<FIFO_BITS, CONN_BITS>(self.pay_conn.val()) << 39);
        if self.pay_valid.val() && self.pay_ready.val() {
            self.wp.d.next = self.wp.q.val() + 1;
        }

        // ---- The head beat (the head register while `hr_v`).
        self.h_data.next = self.hr.q.val().get_bits::<32>(0);
        self.h_keep.next = self.hr.q.val().get_bits::<4>(32);
        self.h_first.next = self.hr.q.val().get_bit(36);
        self.h_last.next = self.hr.q.val().get_bit(37);
        self.h_good.next = self.hr.q.val().get_bit(38);
        self.h_conn.next = self.hr.q.val().get_bits::<CONN_BITS>(39);

        // Everything from here to the output register moves when it can take a beat.
        self.can.next = self.skid.room.val();

        // ---- Placement of the head beat.
        // The head beat's address source, one-hot (`hr_oh`: a connection or the verdict
        // port): an AND-OR of two LUT levels, not a multiplexer tree.
        self.mv.next = 0.into();
        for i in 0..CONNECTIONS {
            self.m[i].next = 0.into();
            if self.hr_oh.q.val().get_bit(i) {
                self.m[i].next = self.ones.val();
            }
        }
        if self.hr_oh.q.val().get_bit(4) {
            self.mv.next = self.ones.val();
        }
        self.word.next = self.vd_addr.val().get_bits::<WA_BITS>(2) & self.mv.val();
        self.place.next = self.vd_place.val() && self.hr_oh.q.val().get_bit(4);
        for i in 0..CONNECTIONS {
            self.word.next = self.word.val() | (self.na[i].q.val() & self.m[i].val());
            self.place.next =
                self.place.val() || (self.pl[i].q.val() && self.hr_oh.q.val().get_bit(i));
        }
        self.carry_on.next = self.ck.q.val() != 0;
        // A beat of another connection while the carry holds octets: the carry leaves first.
        // `ovr` = `fin` || (`hr_v` && `carry_on` && `h_conn != cur`), kept as a register.
        self.flush.next = self.ovr.q.val() && !self.fin.q.val();
        self.proc.next = self.can.val()
            && self.hr_v.q.val()
            && !self.ovr.q.val()
            && (!self.h_first.val() || (self.vd_valid.val() && !self.vtook.q.val()));
        self.vpop.next = self.proc.val() && self.h_first.val();
        // `vd_ready` a cycle after the take, from a register: RxControl's verdict and
        // check-queue enables then start at flip-flops, not at `dma_wr_ready` through the
        // placement's `can` (the composed receive path's critical path at 78 MHz).
        self.vtook.d.next = self.vpop.val();
        self.vd_ready.next = self.vtook.q.val();
        self.pop.next = self.proc.val();

        self.alo.next = self.hr_alo.q.val();
        if self.h_first.val() {
            self.alo.next = self.vd_addr.val().get_bits::<2>(0);
        }
        // The first octet is in lane 2 of a first beat, lane 0 of any other: it goes to lane
        // `alo`, so rotate by alo - 2 (alo with bit 1 flipped) or alo lanes.
        self.rot_by.next = self.alo.val();
        if self.h_first.val() {
            self.rot_by.next = self.alo.val() ^ 2;
        }
        self.rot.next = self.h_data.val();
        if self.rot_by.val() == 1 {
            self.rot.next = (self.h_data.val() >> 8) | (self.h_data.val() << 24);
        } else if self.rot_by.val() == 2 {
            self.rot.next = (self.h_data.val() >> 16) | (self.h_data.val() << 16);
        } else if self.rot_by.val() == 3 {
            self.rot.next = (self.h_data.val() >> 24) | (self.h_data.val() << 8);
        }
        // Lanes below `alo` come from the carry.
        self.low.next = 0.into();
        if self.alo.val() == 1 {
            self.low.next = self.low1.val();
        } else if self.alo.val() == 2 {
            self.low.next = self.low2.val();
        } else if self.alo.val() == 3 {
            self.low.next = self.low3.val();
        }
        self.merged.next = (self.cw.q.val() & self.low.val()) | (self.rot.val() & !self.low.val());
        // n = popcount(keep) = (k0 + k1) + (k2 + k3); e = alo + n.
        self.k01.next = self.h_keep.val().get_bit(0) != self.h_keep.val().get_bit(1);
        self.k23.next = self.h_keep.val().get_bit(2) != self.h_keep.val().get_bit(3);
        self.n0.next = self.k01.val() != self.k23.val();
        self.n1.next = ((self.h_keep.val().get_bit(0) && self.h_keep.val().get_bit(1))
            != (self.h_keep.val().get_bit(2) && self.h_keep.val().get_bit(3)))
            != (self.k01.val() && self.k23.val());
        self.n2.next = self.h_keep.val().all();
        self.n.next = bit_cast::<3, 1>(self.n0.val().into())
            | (bit_cast::<3, 1>(self.n1.val().into()) << 1)
            | (bit_cast::<3, 1>(self.n2.val().into()) << 2);
        self.e0.next = self.alo.val().get_bit(0) != self.n0.val();
        self.c0.next = self.alo.val().get_bit(0) && self.n0.val();
        self.e1.next = (self.alo.val().get_bit(1) != self.n1.val()) != self.c0.val();
        self.c1.next = (self.alo.val().get_bit(1) && self.n1.val())
            || (self.c0.val() && (self.alo.val().get_bit(1) != self.n1.val()));
        self.e.next = bit_cast::<3, 1>(self.e0.val().into())
            | (bit_cast::<3, 1>(self.e1.val().into()) << 1)
            | (bit_cast::<3, 1>((self.n2.val() || self.c1.val()).into()) << 2);
        self.full.next = self.e.val().get_bit(2);
        // The head beat's host word: `word + adv` (the word after the last DMA beat's when that
        // was a full word; the verdict's word as it is). word + 1 as three 10-bit
        // incrementers side by side (carry select), the selects from flags kept with each
        // address (`a10`: word bits 9..0 all ones, `a20`: bits 19..0): one 30-bit carry chain
        // after the address selection missed 100 MHz (79), the all-ones trees too (94).
        self.sa10.next = self.vd_a10.val() && self.hr_oh.q.val().get_bit(4);
        self.sa20.next = self.vd_a20.val() && self.hr_oh.q.val().get_bit(4);
        self.sadv.next = false;
        for i in 0..CONNECTIONS {
            self.sa10.next =
                self.sa10.val() || (self.na_a10[i].q.val() && self.hr_oh.q.val().get_bit(i));
            self.sa20.next =
                self.sa20.val() || (self.na_a20[i].q.val() && self.hr_oh.q.val().get_bit(i));
            self.sadv.next =
                self.sadv.val() || (self.adv[i].q.val() && self.hr_oh.q.val().get_bit(i));
        }
        self.w_lo.next = self.word.val().get_bits::<10>(0);
        self.w_mid.next = self.word.val().get_bits::<10>(10);
        self.w_hi.next = self.word.val().get_bits::<WH_BITS>(20);
        self.new_a10.next = self.sa10.val();
        self.new_a20.next = self.sa20.val();
        if self.sadv.val() {
            self.new_a10.next = self.w_lo.val() == 0x3FE;
            self.new_a20.next = (self.w_lo.val() == 0x3FE) && self.w_mid.val().all();
        }
        // `word + adv` per connection (`wu[i]`: the three parts' increments, each a carry
        // chain whose carry in is that connection's own `adv` and flags), so that each `na[i]`
        // flip-flop shares its logic cell with the chain's sum LUT that feeds it. One shared
        // `word + adv` feeding both connections' `na` left all of them alone in a cell
        // (issue 5). When `na[i]` loads (`upd` for connection i), the address source
        // `hr_oh` is connection i (a later beat, or the carry of `cur` while `ovr`) or the
        // verdict port (a run's first beat: no increment), so `wu[i]` is `word + adv` then.
        for i in 0..CONNECTIONS {
            self.wu_adv.next = self.adv[i].q.val() && self.hr_oh.q.val().get_bit(i);
            self.wu_a10.next = self.wu_adv.val() && self.na_a10[i].q.val();
            self.wu_a20.next = self.wu_adv.val() && self.na_a20[i].q.val();
            self.wl.next = self.w_lo.val() + bit_cast::<10, 1>(self.wu_adv.val().into());
            self.wm.next = self.w_mid.val() + bit_cast::<10, 1>(self.wu_a10.val().into());
            self.wh.next = self.w_hi.val() + bit_cast::<WH_BITS, 1>(self.wu_a20.val().into());
            self.wu[i].next = bit_cast::<WA_BITS, 10>(self.wl.val())
                | (bit_cast::<WA_BITS, 10>(self.wm.val()) << 10)
                | (bit_cast::<WA_BITS, WH_BITS>(self.wh.val()) << 20);
        }
        // The beat's lanes in this host word: alo..min(e, 4) - 1. A full word: the carry's lanes
        // and lanes alo..3; the rest (lanes 0..e-4) is the new carry. Otherwise the carry grows
        // by lanes alo..e-1 (and a run's tail leaves with the same lanes).
        self.word_keep.next = self.ck.q.val()
            | ((self.f4.val() >> self.alo.val()) & !(self.f4.val() >> self.e.val()));
        if self.full.val() {
            self.ck_next.next = !(self.f4.val() >> self.e.val().get_bits::<2>(0)) & self.f4.val();
        } else {
            self.ck_next.next = self.word_keep.val();
        }
        if !self.place.val() {
            self.ck_next.next = 0.into();
        }
        // Octets left in the carry: after a full word, lanes 0..e-4; otherwise the carry's and
        // this beat's (lanes alo..e-1, some when n > 0).
        if self.full.val() {
            self.rest.next = self.place.val() && (self.e.val().get_bits::<2>(0) != 0);
        } else {
            self.rest.next =
                self.place.val() && ((self.ck.q.val() != 0) || (self.h_keep.val() != 0));
        }

        // What the placement sends to the hold register this cycle (at most one beat).
        self.em.next = false;
        self.em_wr.next = true;
        self.em_dn.next = false;
        self.em_end.next = false;
        self.em_good.next = self.h_good.val();
        self.em_conn.next = self.h_conn.val();
        self.em_data.next = self.merged.val();
        self.em_keep.next = self.word_keep.val();
        if self.can.val() && self.fin.q.val() {
            // The tail of a run that ended: its last DMA beat, with the completion.
            self.em.next = true;
            self.em_dn.next = true;
            self.em_end.next = true;
            // The run's good flag: the hold register keeps the run's last full word, emitted
            // with it in the cycle that set `fin` (the hold register loads only with `em`).
            self.em_good.next = self.hold_good.q.val();
            // Its word is `wu[cur]`: `na[cur] + adv[cur]` while `ovr`.
            self.em_conn.next = self.cur.q.val();
            self.em_data.next = self.cw.q.val();
            self.em_keep.next = self.ck.q.val();
            self.ck.d.next = 0.into();
            self.fin.d.next = false;
        } else if self.can.val() && self.flush.val() {
            // Another connection's beat: the carry leaves as a partial beat that ends its
            // write request (the run resumes in the same host word later).
            self.em.next = true;
            self.em_end.next = true;
            self.em_conn.next = self.cur.q.val();
            self.em_data.next = self.cw.q.val();
            self.em_keep.next = self.ck.q.val();
            self.ck.d.next = 0.into();
        } else if self.proc.val() {
            self.ck.d.next = self.ck_next.val();
            // Lanes 0-2 only (`low3`): lane 3 is never in the carry (see `cw`).
            if self.full.val() {
                self.cw.d.next = self.rot.val() & self.low3.val();
            } else {
                self.cw.d.next = self.merged.val() & self.low3.val();
            }
            for i in 0..CONNECTIONS {
                if self.h_conn.val().index() == i {
                    self.pl[i].d.next = self.place.val();
                    self.nlo[i].d.next = self.e.val().get_bits::<2>(0);
                }
            }
            if self.place.val() && self.full.val() {
                // A full host word.
                self.em.next = true;
                if self.h_last.val() {
                    if self.rest.val() {
                        // Octets left over: they leave next cycle with the completion.
                        self.fin.d.next = true;
                    } else {
                        self.em_dn.next = true;
                        self.em_end.next = true;
                    }
                }
            } else if self.h_last.val() {
                self.em.next = true;
                self.em_dn.next = true;
                self.em_end.next = true;
                if self.rest.val() {
                    // The run's tail, a partial word (`word_keep`).
                    self.ck.d.next = 0.into();
                } else {
                    // Nothing (more) to write: a completion token.
                    self.em_wr.next = false;
                }
            }
        }

        // `na` takes the word of a DMA beat (the carry leaving, a full word, a run's tail or
        // token) and of a run's first beat, for the beat's connection (`em_conn`); not of a
        // later beat that only adds to the carry (its word is `na + adv` already). So
        // `na[hold_conn]` is the hold beat's word until the hold register pushes it: a beat
        // that changes it is emitted (the hold beat leaves at that edge), or is a run's first
        // beat (the connection's previous run ended: its last beat leaves at the first `can`).
        // The enable of connection i, `upd` && `em_conn == i`, written from the address source
        // `hr_oh` rather than from `em_conn` (a multiplexer after `fin` / `flush` / `proc`): while
        // `ovr`, `hr_oh` is `cur` (`em_conn` then); otherwise, with a head beat, it is the head
        // beat's source: connection `h_conn` for a later beat (placed with `proc`: `hr_v`, not
        // `ovr`, not a first beat), the verdict port for a run's first beat (placed when the
        // verdict is offered). So every term but `can` (from `dma_wr_ready`) is of registers,
        // and a later beat's `full` needs no `vd_addr` (`full_l`).
        self.full_l.next = self.h_keep.val().all()
            || (self.hr_alo.q.val().get_bit(1) && self.n1.val())
            || (self.hr_alo.q.val().get_bit(0)
                && self.n0.val()
                && (self.hr_alo.q.val().get_bit(1) != self.n1.val()));
        self.adv_nx.next = self.full.val() && !self.ovr.q.val();
        for i in 0..CONNECTIONS {
            self.upd.next = self.can.val()
                && ((self.hr_oh.q.val().get_bit(i)
                    && (self.ovr.q.val()
                        || (self.hr_v.q.val() && (self.full_l.val() || self.h_last.val()))))
                    || (self.hr_oh.q.val().get_bit(4)
                        && (self.h_conn.val().index() == i)
                        && self.hr_v.q.val()
                        && self.vd_valid.val()
                        && !self.vtook.q.val()));
            if self.upd.val() {
                self.na[i].d.next = self.wu[i].val();
                self.adv[i].d.next = self.adv_nx.val();
                self.na_a10[i].d.next = self.new_a10.val();
                self.na_a20[i].d.next = self.new_a20.val();
            }
        }

        // ---- Head register: takes the RAM's read data when empty or placed this cycle.
        self.ld.next = self.hv.q.val() && (!self.hr_v.q.val() || self.pop.val());
        // The loaded beat's connection's next address mod 4, after this cycle's placement.
        self.ld_conn.next = self.fifo.read_data.val().get_bits::<CONN_BITS>(39);
        self.ld_alo.next = self.nlo[0].q.val();
        for i in 1..CONNECTIONS {
            if self.ld_conn.val().index() == i {
                self.ld_alo.next = self.nlo[i].q.val();
            }
        }
        if self.hr_v.q.val() && (self.h_conn.val() == self.ld_conn.val()) {
            self.ld_alo.next = self.e.val().get_bits::<2>(0);
        }
        self.ld_oh.next = 16.into();
        if !self.fifo.read_data.val().get_bit(36) {
            self.ld_oh.next =
                bit_cast::<5, 4>(1.into()) << bit_cast::<5, CONN_BITS>(self.ld_conn.val());
        }
        if self.ld.val() {
            self.hr.d.next = self.fifo.read_data.val();
            self.hr_alo.d.next = self.ld_alo.val();
            self.hr_v.d.next = true;
        } else if self.pop.val() {
            self.hr_v.d.next = false;
        }

        // ---- `ovr`, `cur` and the address source for the next cycle. The carry leaves next
        // (`ovr`) when: after a placement, the carry keeps octets and the run ended with a full
        // word (`fin`) or the next head beat (the RAM's read data) is of another connection (a
        // run's last beat that is not a full word takes the carry with it); with the head
        // register empty, `fin`, or the next head beat of another connection than the carry's;
        // with a head beat waiting, unchanged; not after the carry left.
        self.cur_nx.next = self.cur.q.val();
        if self.proc.val() {
            self.cur_nx.next = self.h_conn.val();
        }
        self.cur.d.next = self.cur_nx.val();
        self.ovr_p.next = self.rest.val()
            && ((self.place.val() && self.full.val() && self.h_last.val())
                || (self.hv.q.val()
                    && (!self.h_last.val() || (self.place.val() && self.full.val()))
                    && (self.ld_conn.val() != self.h_conn.val())));
        self.ovr_nx.next = self.ovr.q.val();
        if !self.hr_v.q.val() {
            self.ovr_nx.next = self.fin.q.val()
                || (self.hv.q.val()
                    && self.carry_on.val()
                    && (self.ld_conn.val() != self.cur.q.val()));
        }
        if self.proc.val() {
            self.ovr_nx.next = self.ovr_p.val();
        }
        if self.can.val() && self.ovr.q.val() {
            self.ovr_nx.next = false;
        }
        self.ovr.d.next = self.ovr_nx.val();
        // The head beat's own source (as `ld_oh` when it was loaded), or the loaded beat's;
        // while `ovr`, the carry's connection.
        self.hd_oh.next = 16.into();
        if !self.h_first.val() {
            self.hd_oh.next =
                bit_cast::<5, 4>(1.into()) << bit_cast::<5, CONN_BITS>(self.h_conn.val());
        }
        self.hr_oh.d.next = self.hd_oh.val();
        if self.ld.val() {
            self.hr_oh.d.next = self.ld_oh.val();
        }
        if self.ovr_nx.val() {
            self.hr_oh.d.next =
                bit_cast::<5, 4>(1.into()) << bit_cast::<5, CONN_BITS>(self.cur_nx.val());
        }

        // ---- Input FIFO read side: the RAM reads the entry at `rp` after this edge; it is
        // valid from then on if it was written before this edge.
        self.rp_next.next = self.rp.q.val();
        if self.ld.val() {
            self.rp_next.next = self.rp.q.val() + 1;
        }
        self.rp.d.next = self.rp_next.val();
        self.fifo.read_addr.next = self.rp_next.val().get_bits::<FIFO_ABITS>(0);
        self.hv.d.next = self.rp_next.val() != self.wp.q.val();

        // ---- Hold register: a DMA beat leaves it when the next one is known (or at once at a
        // run's end); `last` when the request ends there.
        self.push.next =
            self.can.val() && self.hold_v.q.val() && (self.hold_end.q.val() || self.em.val());
        self.o_addr.next = self.na[0].q.val();
        self.o_pe.next = self.na_a10[0].q.val();
        for i in 1..CONNECTIONS {
            if self.hold_conn.q.val().index() == i {
                self.o_addr.next = self.na[i].q.val();
                self.o_pe.next = self.na_a10[i].q.val();
            }
        }
        self.push_last.next = self.hold_end.q.val()
            || !self.em_wr.val()
            || (self.em_conn.val() != self.hold_conn.q.val())
            || self.o_pe.val();
        if self.em.val() {
            self.hold_v.d.next = true;
            self.hold_wr.d.next = self.em_wr.val();
            self.hold_dn.d.next = self.em_dn.val();
            self.hold_end.d.next = self.em_end.val();
            self.hold_good.d.next = self.em_good.val();
            self.hold_conn.d.next = self.em_conn.val();
            self.hold_data.d.next = self.em_data.val();
            self.hold_keep.d.next = self.em_keep.val();
        } else if self.push.val() {
            self.hold_v.d.next = false;
        }
        self.skid.in_valid.next = self.push.val();
        self.skid.in_data.next = bit_cast::<OUT_BITS, 32>(self.hold_data.q.val())
            | (bit_cast::<OUT_BITS, 4>(self.hold_keep.q.val()) << 32)
            | (bit_cast::<OUT_BITS, 1>(self.push_last.val().into()) << 36)
            | (bit_cast::<OUT_BITS, 1>(self.hold_wr.q.val().into()) << 37)
            | (bit_cast::<OUT_BITS, 1>(self.hold_dn.q.val().into()) << 38)
            | (bit_cast::<OUT_BITS, 1>(self.hold_good.q.val().into()) << 39)
            | (bit_cast::<OUT_BITS, CONN_BITS>(self.hold_conn.q.val()) << 40)
            | (bit_cast::<OUT_BITS, WA_BITS>(self.o_addr.val()) << 42);

        // ---- Outputs: a beat carrying a completion waits while `done_*` is occupied; the
        // completion moves there once the beat was accepted (a token: at once).
        self.o_wr.next = self.skid.out_data.val().get_bit(37);
        self.o_dn.next = self.skid.out_data.val().get_bit(38);
        self.gate.next = !self.o_dn.val() || !self.done_v.q.val();
        self.dma_wr_valid.next = self.skid.out_valid.val() && self.o_wr.val() && self.gate.val();
        self.skid.out_ready.next = self.gate.val() && (!self.o_wr.val() || self.dma_wr_ready.val());
        self.o_pop.next = self.skid.out_valid.val() && self.skid.out_ready.val();
        self.dma_wr_data.next = self.skid.out_data.val().get_bits::<32>(0);
        self.dma_wr_keep.next = self.skid.out_data.val().get_bits::<4>(32);
        self.dma_wr_addr.next =
            bit_cast::<DMA_ADDR_BITS, WA_BITS>(self.skid.out_data.val().get_bits::<WA_BITS>(42))
                << 2;
        self.dma_wr_last.next = self.skid.out_data.val().get_bit(36);
        if self.done_v.q.val() {
            self.done_v.d.next = !self.done_ready.val();
        } else if self.o_pop.val() && self.o_dn.val() {
            self.done_v.d.next = true;
            self.done_good_q.d.next = self.skid.out_data.val().get_bit(39);
            self.done_conn_q.d.next = self.skid.out_data.val().get_bits::<CONN_BITS>(40);
        }
        self.done_valid.next = self.done_v.q.val();
        self.done_conn.next = self.done_conn_q.q.val();
        self.done_good.next = self.done_good_q.q.val();
    }
}

crate::sim_ports!(impl[] RxPlace {
    inputs: pay_data, pay_keep, pay_first, pay_last, pay_good, pay_valid, pay_conn, vd_valid,
        vd_conn, vd_place, vd_addr, vd_a10, vd_a20, dma_wr_ready, done_ready;
    outputs: pay_ready, vd_ready, dma_wr_addr, dma_wr_data, dma_wr_keep, dma_wr_last,
        dma_wr_valid, done_valid, done_conn, done_good;
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generates_verilog() {
        let v = crate::catalog::top_verilog(RxPlace::default());
        assert!(v.contains("module top"));
    }
}
