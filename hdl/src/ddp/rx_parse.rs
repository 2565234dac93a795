//! DDP receive parser: ULPDUs from [`MpaRx`](crate::mpa::mpa_rx::MpaRx) in, one job and one
//! payload run per segment out, the first [`HDR_WORDS`] beats of every segment kept in a
//! header slot for [`RxControl`](crate::rdmap) to read. The contract (job beat, payload run,
//! header slots, port list) is in [`crate::ddp`]; catalog: `mpa-peer-connect.md` §6.1 (T flag,
//! opcode in octet 1), §6.2 / §6.3 (tagged header 14 octets, untagged 18), `rfc5040-rdmap.md`
//! §1.3 (which opcodes are tagged and carry payload).
//!
//! # Architecture (32-bit Cu datapath)
//!
//! ```text
//!  ulpdu_* ─► per-connection beat index, class, slot ─┬─► job register ─► job_*
//!             (registers indexed by ulpdu_conn)        ├─► pay register ─► gate ─► pay_*
//!                                                      └─► header RAM A ─► hdr_a_data
//!                                                          header RAM B ─► hdr_b_data
//! ```
//!
//! - Per connection: the index of the next beat (saturating at 16), the segment's class taken
//!   at beat 0 (tagged Write / Read Response: job at beat 3; untagged Send variants: job at
//!   beat 4; anything else: job at the last beat) and the next slot. A beat needs no state of
//!   its own connection beyond these, so connections interleave at beat granularity for free.
//! - The header RAM is written straight from the input beat (not from a register), so the
//!   words up to the job beat are in the RAM at the edge that issues the job: a read presented
//!   in the cycle the job first shows on `job_*` returns them. Two copies (A and B), written
//!   identically, give the two registered read ports (2 block RAMs each on the iCE40). A
//!   beat is written in every cycle it is offered, taken or not (the same word again while it
//!   waits), except a first beat whose slot is busy: the write enable does not wait for
//!   `pay_ready` / `job_ready` (timing: that chain ended at the RAMs' enables, 91.5 MHz for
//!   the composed receive path).
//! - Only beats 0..15 of a segment are written (words 0..11 are all that RxControl and
//!   TerminateTx read); words 16..31 of every slot are never written, so they read 0. Both
//!   read ports are the RAMs' outputs with no gate: a word past a segment's end is what an
//!   earlier segment left. RxControl uses no such word unless a length row fails first;
//!   TerminateTx, which copies the header into a Terminate with zeros past the segment's end,
//!   reads word `w + 16` instead of a word `w` at or past its request's `term_seglen`. (Before,
//!   each (connection, slot) kept the index of its last written word, and port B compared the
//!   word index with it and forced 0 above it: 20 flip-flops alone in their logic cells, a
//!   multiplexer, a compare and a 32-bit AND gate on TerminateTx's data, about 60 logic cells.)
//!   A word at or below the job beat is readable from the cycle the job shows; words after the
//!   job beat as their beats arrive.
//! - Slots: a segment takes slot `nxt` of its connection at its first beat (`nxt` toggles, 0
//!   first after power-up) and marks it busy; `free_valid` clears a busy bit at the next edge. A
//!   first beat whose slot is busy waits (`ulpdu_ready` low): the whole input waits, as the
//!   ULPDU stream is in arrival order.
//! - Outputs: a job goes through a one-entry output register ([`RxOutReg`]) that it enters
//!   when the register is empty or taken in this cycle. The payload run is not registered
//!   here: `pay_*` is the input beat itself (MpaRx's output skid is a register), shown while
//!   it may go, so a payload beat is taken from the input in the cycle `pay_ready` takes it.
//!   A run's first beat (the job beat) goes only together with its job's entry into the job
//!   register: job k shows on `job_*` in the cycle after run k's first beat left at the
//!   latest, and jobs and first beats stay in one order. A payload beat needs no room for a
//!   job, so a run's payload goes on while its job waits. (A one-entry payload register
//!   before: 41 flip-flops, 32 of them alone in their logic cells as copies of MpaRx's
//!   output, and a counter that held a first beat until its job showed.)
//!
//! # Timing and throughput
//!
//! - One ULPDU beat per cycle when the slots are free and the outputs take their beats.
//! - A beat accepted in cycle t is on `pay_*` in t (it is the input beat) and its job on
//!   `job_*` in t + 1; its header word is readable with an address presented in t + 1 (data in
//!   t + 2).
//! - `ulpdu_ready` = `pay_ready` for a payload beat, room in the job register for a job beat
//!   and, on a first beat, its slot not busy (4:1 multiplexers of registers by the
//!   input's connection): combinational from `pay_ready` and `job_ready`; `pay_valid` from
//!   `ulpdu_valid` and `job_ready`.

use crate::config::{
    CONNECTIONS, CONN_BITS, DATA_WIDTH, HDR_ADDR_BITS, HDR_SLOTS, HDR_WORDS, HDR_WORDS_WRITTEN,
    HDR_WORD_BITS,
};
use crate::mpa::mpa_rx::RxOutReg;
use crate::ram::BlockRam;
use rust_hdl::prelude::*;

// Written for 4 byte lanes, two slots and 32 words of 5 index bits, of which the first 16 are
// written (`update` tests bit 4 of the beat index).
const _: () = assert!(
    DATA_WIDTH == 32
        && HDR_SLOTS == 2
        && HDR_WORDS == 1 << HDR_WORD_BITS
        && HDR_WORD_BITS == 5
        && HDR_WORDS_WRITTEN == 16
);

/// (connection, slot) pairs.
const SLOT_COUNT: usize = CONNECTIONS * HDR_SLOTS;
/// Job skid payload: ULPDU_Length 16, slot, connection.
const JOB_BITS: usize = 17 + CONN_BITS;

/// The DDP receive parser. Ports: see [`crate::ddp`].
#[derive(LogicBlock)]
pub struct DdpRxParse {
    pub clock: Signal<In, Clock>,
    // ULPDUs from MpaRx.
    pub ulpdu_data: Signal<In, Bits<32>>,
    pub ulpdu_keep: Signal<In, Bits<4>>,
    pub ulpdu_first: Signal<In, Bit>,
    pub ulpdu_last: Signal<In, Bit>,
    pub ulpdu_good: Signal<In, Bit>,
    pub ulpdu_valid: Signal<In, Bit>,
    pub ulpdu_ready: Signal<Out, Bit>,
    pub ulpdu_conn: Signal<In, Bits<CONN_BITS>>,
    pub ulpdu_len: Signal<In, Bits<16>>,
    // One job per segment.
    pub job_valid: Signal<Out, Bit>,
    pub job_ready: Signal<In, Bit>,
    pub job_conn: Signal<Out, Bits<CONN_BITS>>,
    pub job_slot: Signal<Out, Bit>,
    pub job_len: Signal<Out, Bits<16>>,
    // One payload run per segment.
    pub pay_data: Signal<Out, Bits<32>>,
    pub pay_keep: Signal<Out, Bits<4>>,
    pub pay_first: Signal<Out, Bit>,
    pub pay_last: Signal<Out, Bit>,
    pub pay_good: Signal<Out, Bit>,
    pub pay_valid: Signal<Out, Bit>,
    pub pay_ready: Signal<In, Bit>,
    pub pay_conn: Signal<Out, Bits<CONN_BITS>>,
    // Header RAM read ports (registered: data in the cycle after the address).
    pub hdr_a_addr: Signal<In, Bits<HDR_ADDR_BITS>>,
    pub hdr_a_data: Signal<Out, Bits<32>>,
    pub hdr_b_addr: Signal<In, Bits<HDR_ADDR_BITS>>,
    pub hdr_b_data: Signal<Out, Bits<32>>,
    // Slot release.
    pub free_valid: Signal<In, Bit>,
    pub free_conn: Signal<In, Bits<CONN_BITS>>,
    pub free_slot: Signal<In, Bit>,
    /// No header slot taken (every segment that entered has been freed by RxControl) and no
    /// job waiting (a payload beat is never held here): nothing of a segment is in flight here
    /// or downstream. From
    /// registers only; for RxPath's `rx_idle`.
    pub idle: Signal<Out, Bit>,

    /// Per connection: index of the next beat of the current segment (saturates at 16: no
    /// beat after 15 is written).
    idx: [DFF<Bits<5>>; CONNECTIONS],
    /// Per connection: the segment is tagged Write / Read Response (job at beat 3).
    is_t: [DFF<Bit>; CONNECTIONS],
    /// Per connection: the segment is an untagged Send variant (job at beat 4).
    is_u: [DFF<Bit>; CONNECTIONS],
    /// Per connection: the slot the next segment takes (the current one is its complement).
    nxt: [DFF<Bit>; CONNECTIONS],
    /// Per connection: the next beat is the job beat at the header's end (beat 3 of a tagged,
    /// beat 4 of an untagged segment), or after it. Registered, so the input beat's job-beat
    /// decision is a 4:1 multiplexer of flags rather than compares of the beat index.
    at_jb: [DFF<Bit>; CONNECTIONS],
    past_jb: [DFF<Bit>; CONNECTIONS],
    /// Per (connection, slot): taken and not yet freed.
    busy: [DFF<Bit>; SLOT_COUNT],
    /// Per connection: `busy` of its slot `nxt` (the one its next first beat takes), kept
    /// from the next values of both (timing: a first beat's wait is a 4:1 multiplexer of
    /// these by the input's connection, not an 8:1 of `busy` by connection and `nxt`; the
    /// routed core's MpaRx `sk_main` group began at `busy` -> `c_busy` -> `ulpdu_ready`).
    nbusy: [DFF<Bit>; CONNECTIONS],
    /// The header RAM copies: block RAM without read-during-write logic (a port reads only
    /// slots whose segment is in, never the slot being written).
    hdr_a: BlockRam<32, HDR_ADDR_BITS>,
    hdr_b: BlockRam<32, HDR_ADDR_BITS>,
    job_skid: RxOutReg<JOB_BITS>,

    // Combinational signals.
    c_idx: Signal<Local, Bits<5>>,
    c_t: Signal<Local, Bit>,
    c_u: Signal<Local, Bit>,
    c_nxt: Signal<Local, Bit>,
    c_at_jb: Signal<Local, Bit>,
    c_past_jb: Signal<Local, Bit>,
    c_busy: Signal<Local, Bit>,
    cur_idx: Signal<Local, Bits<5>>,
    cur_slot: Signal<Local, Bit>,
    new_t: Signal<Local, Bit>,
    new_u: Signal<Local, Bit>,
    opcode: Signal<Local, Bits<4>>,
    ready: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    jb_idx: Signal<Local, Bit>,
    past: Signal<Local, Bit>,
    job_beat: Signal<Local, Bit>,
    pkeep: Signal<Local, Bits<4>>,
    kmask: Signal<Local, Bits<32>>,
    wr_en: Signal<Local, Bit>,
    wr_addr: Signal<Local, Bits<HDR_ADDR_BITS>>,
    slot_in: Signal<Local, Bits<3>>,
    slot_new: Signal<Local, Bits<3>>,
    slot_free: Signal<Local, Bits<3>>,
    pay_beat: Signal<Local, Bit>,
    job_ok: Signal<Local, Bit>,

    // Constants: the byte of each lane (lane 0 in the most significant byte).
    lane0: Constant<Bits<32>>,
    lane1: Constant<Bits<32>>,
    lane2: Constant<Bits<32>>,
    lane3: Constant<Bits<32>>,
}

impl Default for DdpRxParse {
    fn default() -> Self {
        // The header RAMs start at zero on both back ends, though a word is only ever read
        // after its segment wrote it or as 0 past the segment's end.
        Self {
            clock: Default::default(),
            ulpdu_data: Default::default(),
            ulpdu_keep: Default::default(),
            ulpdu_first: Default::default(),
            ulpdu_last: Default::default(),
            ulpdu_good: Default::default(),
            ulpdu_valid: Default::default(),
            ulpdu_ready: Default::default(),
            ulpdu_conn: Default::default(),
            ulpdu_len: Default::default(),
            job_valid: Default::default(),
            job_ready: Default::default(),
            job_conn: Default::default(),
            job_slot: Default::default(),
            job_len: Default::default(),
            pay_data: Default::default(),
            pay_keep: Default::default(),
            pay_first: Default::default(),
            pay_last: Default::default(),
            pay_good: Default::default(),
            pay_valid: Default::default(),
            pay_ready: Default::default(),
            pay_conn: Default::default(),
            hdr_a_addr: Default::default(),
            hdr_a_data: Default::default(),
            hdr_b_addr: Default::default(),
            hdr_b_data: Default::default(),
            free_valid: Default::default(),
            free_conn: Default::default(),
            free_slot: Default::default(),
            idle: Default::default(),
            idx: core::array::from_fn(|_| Default::default()),
            is_t: core::array::from_fn(|_| Default::default()),
            is_u: core::array::from_fn(|_| Default::default()),
            nxt: core::array::from_fn(|_| Default::default()),
            at_jb: core::array::from_fn(|_| Default::default()),
            past_jb: core::array::from_fn(|_| Default::default()),
            busy: core::array::from_fn(|_| Default::default()),
            nbusy: core::array::from_fn(|_| Default::default()),
            hdr_a: Default::default(),
            hdr_b: Default::default(),
            job_skid: Default::default(),
            c_idx: Default::default(),
            c_t: Default::default(),
            c_u: Default::default(),
            c_nxt: Default::default(),
            c_at_jb: Default::default(),
            c_past_jb: Default::default(),
            c_busy: Default::default(),
            cur_idx: Default::default(),
            cur_slot: Default::default(),
            new_t: Default::default(),
            new_u: Default::default(),
            opcode: Default::default(),
            ready: Default::default(),
            take: Default::default(),
            jb_idx: Default::default(),
            past: Default::default(),
            job_beat: Default::default(),
            pkeep: Default::default(),
            kmask: Default::default(),
            wr_en: Default::default(),
            wr_addr: Default::default(),
            slot_in: Default::default(),
            slot_new: Default::default(),
            slot_free: Default::default(),
            pay_beat: Default::default(),
            job_ok: Default::default(),
            lane0: Constant::new(0xFF00_0000_u64.into()),
            lane1: Constant::new(0x00FF_0000_u64.into()),
            lane2: Constant::new(0x0000_FF00_u64.into()),
            lane3: Constant::new(0x0000_00FF_u64.into()),
        }
    }
}

impl Logic for DdpRxParse {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..CONNECTIONS {
            self.idx[i].clock.next = self.clock.val();
            self.idx[i].d.next = self.idx[i].q.val();
            self.is_t[i].clock.next = self.clock.val();
            self.is_t[i].d.next = self.is_t[i].q.val();
            self.is_u[i].clock.next = self.clock.val();
            self.is_u[i].d.next = self.is_u[i].q.val();
            self.nxt[i].clock.next = self.clock.val();
            self.nxt[i].d.next = self.nxt[i].q.val();
            self.at_jb[i].clock.next = self.clock.val();
            self.at_jb[i].d.next = self.at_jb[i].q.val();
            self.past_jb[i].clock.next = self.clock.val();
            self.past_jb[i].d.next = self.past_jb[i].q.val();
            self.nbusy[i].clock.next = self.clock.val();
        }
        for j in 0..SLOT_COUNT {
            self.busy[j].clock.next = self.clock.val();
            self.busy[j].d.next = self.busy[j].q.val();
        }
        self.hdr_a.clock.next = self.clock.val();
        self.hdr_b.clock.next = self.clock.val();
        self.job_skid.clock.next = self.clock.val();

        // ---- The input beat's connection state.
        self.c_idx.next = self.idx[0].q.val();
        self.c_t.next = self.is_t[0].q.val();
        self.c_u.next = self.is_u[0].q.val();
        self.c_nxt.next = self.nxt[0].q.val();
        self.c_at_jb.next = self.at_jb[0].q.val();
        self.c_past_jb.next = self.past_jb[0].q.val();
        for i in 1..CONNECTIONS {
            if self.ulpdu_conn.val().index() == i {
                self.c_at_jb.next = self.at_jb[i].q.val();
                self.c_past_jb.next = self.past_jb[i].q.val();
                self.c_idx.next = self.idx[i].q.val();
                self.c_t.next = self.is_t[i].q.val();
                self.c_u.next = self.is_u[i].q.val();
                self.c_nxt.next = self.nxt[i].q.val();
            }
        }
        // (connection, slot) of a first beat: the slot it takes.
        self.slot_new.next = (bit_cast::<3, CONN_BITS>(self.ulpdu_conn.val()) << 1)
            | bit_cast::<3, 1>(self.c_nxt.val().into());
        self.c_busy.next = self.nbusy[0].q.val();
        for i in 1..CONNECTIONS {
            if self.ulpdu_conn.val().index() == i {
                self.c_busy.next = self.nbusy[i].q.val();
            }
        }
        self.cur_idx.next = self.c_idx.val();
        self.cur_slot.next = !self.c_nxt.val();
        if self.ulpdu_first.val() {
            self.cur_idx.next = 0.into();
            self.cur_slot.next = self.c_nxt.val();
        }
        self.slot_in.next = (bit_cast::<3, CONN_BITS>(self.ulpdu_conn.val()) << 1)
            | bit_cast::<3, 1>(self.cur_slot.val().into());

        // ---- Class of a segment, from its beat 0: T flag (octet 0 bit 7) and opcode (octet 1
        // low nibble), `mpa-peer-connect.md` §6.1.
        self.opcode.next = self.ulpdu_data.val().get_bits::<4>(16);
        self.new_t.next = self.ulpdu_data.val().get_bit(31)
            && ((self.opcode.val() == 0) || (self.opcode.val() == 2));
        self.new_u.next = !self.ulpdu_data.val().get_bit(31)
            && (self.opcode.val() >= 3)
            && (self.opcode.val() <= 6);

        // ---- Job beat and payload run. At beat 0 the stored flags (of the connection's
        // previous segment) decide nothing.
        self.jb_idx.next = !self.ulpdu_first.val() && self.c_at_jb.val();
        self.past.next = !self.ulpdu_first.val() && self.c_past_jb.val();
        self.job_beat.next = !self.past.val() && (self.jb_idx.val() || self.ulpdu_last.val());
        // Payload lanes: all of `keep` after the job beat; lanes 2-3 (octets 14-15 / 18-19) on
        // a job beat at its header's end; none on a job beat at the segment's end.
        self.pkeep.next = 0.into();
        if self.past.val() {
            self.pkeep.next = self.ulpdu_keep.val();
        } else if self.jb_idx.val() {
            self.pkeep.next = self.ulpdu_keep.val() & 3;
        }

        // ---- Handshake. A payload beat (the job beat and those after it) goes straight out on
        // `pay_*` and needs `pay_ready`; the job beat also needs room on `job_*` (so job k
        // enters its register at the edge run k's first beat leaves); a first beat needs its
        // slot free. A payload beat needs no room on `job_*`, so a run's payload goes on
        // while its job waits there.
        self.pay_beat.next = self.job_beat.val() || self.past.val();
        self.job_ok.next = (self.job_skid.room.val() || !self.job_beat.val())
            && (!self.ulpdu_first.val() || !self.c_busy.val());
        self.ready.next = (self.pay_ready.val() || !self.pay_beat.val()) && self.job_ok.val();
        self.ulpdu_ready.next = self.ready.val();
        self.take.next = self.ready.val() && self.ulpdu_valid.val();

        // ---- Per-connection state.
        for i in 0..CONNECTIONS {
            if self.take.val() && (self.ulpdu_conn.val().index() == i) {
                if self.ulpdu_first.val() {
                    self.idx[i].d.next = 1.into();
                    self.is_t[i].d.next = self.new_t.val();
                    self.is_u[i].d.next = self.new_u.val();
                    self.nxt[i].d.next = !self.c_nxt.val();
                    self.at_jb[i].d.next = false;
                    self.past_jb[i].d.next = false;
                } else {
                    if !self.c_idx.val().get_bit(4) {
                        self.idx[i].d.next = self.c_idx.val() + 1;
                    }
                    // The next beat (index c_idx + 1) is the job beat, or after it.
                    self.at_jb[i].d.next = (self.c_t.val() && (self.c_idx.val() == 2))
                        || (self.c_u.val() && (self.c_idx.val() == 3));
                    self.past_jb[i].d.next = self.c_past_jb.val() || self.c_at_jb.val();
                }
            }
        }
        // Beats 0..15 only: words 16..31 of every slot are never written, so they read 0
        // (TerminateTx addresses one for a word past its segment's end).
        // Written while the beat is offered, taken or not (timing: `pay_ready` / `job_ready`
        // stay off the RAMs' write enables). A beat that waits is written again, the same data
        // at the same word; only a first beat whose slot is still busy must not write.
        self.wr_en.next = self.ulpdu_valid.val()
            && !self.cur_idx.val().get_bit(4)
            && (!self.ulpdu_first.val() || !self.c_busy.val());
        self.slot_free.next = (bit_cast::<3, CONN_BITS>(self.free_conn.val()) << 1)
            | bit_cast::<3, 1>(self.free_slot.val().into());
        for j in 0..SLOT_COUNT {
            if self.free_valid.val() && (self.slot_free.val().index() == j) {
                self.busy[j].d.next = false;
            }
            if self.take.val() && self.ulpdu_first.val() && (self.slot_new.val().index() == j) {
                self.busy[j].d.next = true;
            }
        }

        // ---- Header RAM: beat i of the segment to word i, lanes outside `keep` as 0.
        self.kmask.next = 0.into();
        if self.ulpdu_keep.val().get_bit(3) {
            self.kmask.next = self.kmask.val() | self.lane0.val();
        }
        if self.ulpdu_keep.val().get_bit(2) {
            self.kmask.next = self.kmask.val() | self.lane1.val();
        }
        if self.ulpdu_keep.val().get_bit(1) {
            self.kmask.next = self.kmask.val() | self.lane2.val();
        }
        if self.ulpdu_keep.val().get_bit(0) {
            self.kmask.next = self.kmask.val() | self.lane3.val();
        }
        self.wr_addr.next = (bit_cast::<HDR_ADDR_BITS, 3>(self.slot_in.val()) << 5)
            | bit_cast::<HDR_ADDR_BITS, HDR_WORD_BITS>(self.cur_idx.val());
        self.hdr_a.write_enable.next = self.wr_en.val();
        self.hdr_a.write_addr.next = self.wr_addr.val();
        self.hdr_a.write_data.next = self.ulpdu_data.val() & self.kmask.val();
        self.hdr_b.write_enable.next = self.wr_en.val();
        self.hdr_b.write_addr.next = self.wr_addr.val();
        self.hdr_b.write_data.next = self.ulpdu_data.val() & self.kmask.val();

        // ---- Header RAM reads: both ports are the RAMs' outputs (see the module doc).
        self.hdr_a.read_addr.next = self.hdr_a_addr.val();
        self.hdr_b.read_addr.next = self.hdr_b_addr.val();
        self.hdr_a_data.next = self.hdr_a.read_data.val();
        self.hdr_b_data.next = self.hdr_b.read_data.val();

        // ---- Job register.
        self.job_skid.in_valid.next = self.take.val() && self.job_beat.val();
        self.job_skid.in_data.next = bit_cast::<JOB_BITS, 16>(self.ulpdu_len.val())
            | (bit_cast::<JOB_BITS, 1>(self.cur_slot.val().into()) << 16)
            | (bit_cast::<JOB_BITS, CONN_BITS>(self.ulpdu_conn.val()) << 17);

        // ---- Outputs. The payload run is the input beat itself (MpaRx's output register),
        // shown while the beat may go: a run's first beat (the job beat) only together with
        // its job's entry into `job_*`.
        self.job_valid.next = self.job_skid.out_valid.val();
        self.job_skid.out_ready.next = self.job_ready.val();
        self.job_len.next = self.job_skid.out_data.val().get_bits::<16>(0);
        self.job_slot.next = self.job_skid.out_data.val().get_bit(16);
        self.job_conn.next = self.job_skid.out_data.val().get_bits::<CONN_BITS>(17);
        self.pay_valid.next = self.ulpdu_valid.val() && self.pay_beat.val() && self.job_ok.val();
        self.pay_data.next = self.ulpdu_data.val();
        self.pay_keep.next = self.pkeep.val();
        self.pay_first.next = self.job_beat.val();
        self.pay_last.next = self.ulpdu_last.val();
        self.pay_good.next = self.ulpdu_good.val();
        self.pay_conn.next = self.ulpdu_conn.val();
        self.idle.next = !self.job_skid.out_valid.val();
        for j in 0..SLOT_COUNT {
            if self.busy[j].q.val() {
                self.idle.next = false;
            }
        }

        // `nbusy` from the next values of `nxt` and `busy` (written above).
        for i in 0..CONNECTIONS {
            self.nbusy[i].d.next = self.busy[2 * i].d.val();
            if self.nxt[i].d.val() {
                self.nbusy[i].d.next = self.busy[2 * i + 1].d.val();
            }
        }
    }
}

crate::sim_ports!(impl[] DdpRxParse {
    inputs: ulpdu_data, ulpdu_keep, ulpdu_first, ulpdu_last, ulpdu_good, ulpdu_valid, ulpdu_conn,
        ulpdu_len, job_ready, pay_ready, hdr_a_addr, hdr_b_addr, free_valid, free_conn, free_slot;
    outputs: ulpdu_ready, job_valid, job_conn, job_slot, job_len, pay_data, pay_keep, pay_first,
        pay_last, pay_good, pay_valid, pay_conn, hdr_a_data, hdr_b_data, idle;
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generates_verilog() {
        let v = crate::catalog::top_verilog(DdpRxParse::default());
        assert!(v.contains("module top"));
    }
}
