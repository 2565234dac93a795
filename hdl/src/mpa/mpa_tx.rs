//! MPA transmit: ULPDUs in, FPDUs out on the LLP TX port (`mpa-peer-connect.md` §5.1–§5.3),
//! plus the raw path for the firmware's MPA Request/Reply bytes. Golden model:
//! [`rnic_proto::mpa::Framer`]; port conventions in [`crate::mpa`].
//!
//! # Behaviour
//!
//! For each ULPDU (one packet on `ulpdu_*`; the sidebands `ulpdu_conn` and `ulpdu_len` are
//! read only while the packet's first beat is offered, so a source need hold them only then) of
//! a connection in FPDU mode, one LLP packet carries exactly the octets
//! `Framer::write_fpdu` writes for that connection's state: the marker before the header when
//! the stream offset is on the 512-octet grid (FPDUPTR 0; it begins the FPDU and is its first
//! CRC-span word), ULPDU_Length (`ulpdu_len`, big-endian), the ULPDU, zero PAD to a 4-octet
//! multiple, the embedded markers (`00 00 | FPDUPTR`, inside the CRC span, also the one between
//! PAD and CRC), and the CRC-32C over the whole span, leading marker through PAD (least
//! significant octet first; 0 when CRC is off for the connection). Every FPDU-mode beat
//! is one full 4-octet word of MPA stream space. A raw packet (`raw_*`) of a connection in raw
//! mode is copied verbatim, `keep` included, as one LLP packet.
//!
//! Packets are taken whole, one at a time, from the two inputs, alternating when both wait
//! (round robin at packet granularity, so neither starves). `llp_conn` names the connection of
//! every output beat.
//!
//! Firmware and caller errors never hang the block: the offending packet is consumed without
//! output (its first word enters the output register like any other but is not sent; the rest
//! goes at one beat per cycle, whatever `llp_ready`), and `err` pulses for one cycle, the cycle
//! after that first word, with the connection in `err_conn`:
//! - a ULPDU for a connection in raw mode, or raw bytes for a connection in FPDU mode;
//! - with markers, a ULPDU so long that an embedded marker would need an FPDUPTR over 0xFFFF
//!   (only ULPDUs of 65023 octets and more; the `Framer` refuses them with `FpduptrOverflow` and
//!   writes nothing, so the stream offset does not move either). See [`fpduptr_overflows`].
//!
//! `ulpdu_len` is trusted for the ULPDU_Length field and the overflow check; the packet's beats
//! are trusted for the octets. A mismatch (an upstream bug) gives a malformed FPDU that the
//! peer's CRC and length checks reject, never a hang.
//!
//! Configuration (`cfg_write` strobe with `cfg_conn`, `cfg_fpdu_mode`, `cfg_markers`,
//! `cfg_crc`) sets the connection's mode and options and its stream offset to 0. It applies to
//! packets whose first beat is taken after the write cycle; a packet of that connection already
//! in progress finishes with the settings it started with, and its stream offset update is
//! discarded (the write's offset 0 wins). All state powers up as 0: every connection in raw mode.
//!
//! Markers are a build-time capability ([`MARKERS`]): built without them (`no-markers`, the
//! Alchitry Cu profile) the block stores `cfg_markers` as 0, so every connection frames without
//! markers whatever the bit says, and synthesis removes the marker logic (the grid offsets, the
//! FPDUPTR counter and overflow check, the marker words): 343 instead of 588 logic cells
//! (364 / 110 / 0 instead of 493 / 206 / 64 LUT4 / DFF / carry), 115.9 instead of 109.6 MHz
//! (`rnic synth --board alchitry-cu --block mpa_tx`, 2026-11-25). With markers the netlist is
//! the one without the capability (yosys proves the two equivalent). The firmware never asks a
//! core without markers to insert them (`docs/decisions.md` "Markers as a build-time capability
//! (no-markers)").
//!
//! # Timing and throughput
//!
//! One output beat per cycle while input is available and `llp_ready` is high: every cycle moves
//! one word of the FPDU (marker, header + ULPDU, PAD, CRC), and a new packet starts in the cycle
//! after the previous one's last word, so the only beats beyond the input beats are the ones the
//! protocol adds. The LLP outputs come from a register stage (`llp_data` through one AND-OR for
//! the CRC word, `llp_valid` straight from a flip-flop); `ulpdu_ready`
//! and `raw_ready` are combinational from `llp_ready` and the input `valid`s (`ulpdu_ready`
//! from `raw_valid` only: it may be up without a ULPDU beat offered). Decisions a
//! packet's first cycle needs are kept per connection in registers (`conn_lead`, `conn_wrap`,
//! `conn_room`), and the word to load does not depend on `llp_ready`, which only enables it.
//! The CRC-32C block watches the beats leaving the output register (its `keep` tied to all
//! ones: every FPDU word is full), from the FPDU's first word (the leading marker, if any) to
//! the last word of the CRC span, and its result, in its register from the cycle after that
//! last word left until the next FPDU's first word leaves, is muxed into the CRC beat that
//! leaves next (after a marker or back-pressure, if any).
//!
//! # Datapath width
//!
//! Built on [`DATA_WIDTH`] / [`KEEP_WIDTH`]; the design assumes **4 lanes** (checked when the
//! block is built), because MPA puts FPDUs, markers and the CRC on 4-octet boundaries of the
//! stream (`FPDU_ALIGN`): at 4 lanes one beat is one stream word. Where it relies on that:
//! the 2-octet ULPDU_Length shifts the ULPDU by half a beat (`hold` keeps the low half of the
//! previous beat); a last beat with lane 2 kept (3 or 4 octets) leaves half a word for one more
//! beat (`flush`); a marker and the CRC are one beat each (the CRC byte order in `crc_wire`).

use crate::config::{check_widths, CONNECTIONS, CONN_BITS, DATA_WIDTH, KEEP_WIDTH, MARKERS};
use crate::crc::Crc32c;
use rnic_proto::mpa::fpdu::FPDU_ALIGN;
use rnic_proto::mpa::{MARKER_INTERVAL, MARKER_LEN, MAX_ULPDU, ULPDU_LENGTH_LEN};
use rust_hdl::prelude::*;

/// Bits of the stream offset the block keeps: the offset in 4-octet words modulo the marker
/// interval (512 / 4 = 128 words, 7 bits). Only the offset mod 512 matters (§5.3).
pub const GRID_BITS: usize = (MARKER_INTERVAL as usize / FPDU_ALIGN).trailing_zeros() as usize;
/// Bits of FPDUPTR (the low half of a marker, §5.3).
pub const FPDUPTR_BITS: usize = MARKER_LEN * 8 / 2;
/// FPDUPTR counted in words (its two LSBs are always 0 on TX).
pub const PTR_WORD_BITS: usize = FPDUPTR_BITS - FPDU_ALIGN.trailing_zeros() as usize;
/// Bits of the ULPDU_Length field and of `ulpdu_len`.
pub const LEN_BITS: usize = ULPDU_LENGTH_LEN * 8;
/// Bits of the FPDUPTR headroom `4 * (p + 1)`, `p` the header position (at most 512).
pub const ROOM_BITS: usize = GRID_BITS + 1 + FPDU_ALIGN.trailing_zeros() as usize;
/// Bits of `ulpdu_len` above the headroom's width.
const SLACK_HI_BITS: usize = LEN_BITS - ROOM_BITS;
/// Half a beat: the part of a beat the 2-octet ULPDU_Length shifts the ULPDU by.
const HALF: usize = DATA_WIDTH / 2;

const _: () = assert!(MARKER_INTERVAL.is_power_of_two());
const _: () = assert!(MAX_ULPDU == (1 << LEN_BITS) - 1);

/// Whether the `Framer` refuses (`FpduptrOverflow`) a ULPDU of `ulpdu_len` octets with markers
/// on when the next stream word is at `offset_words` (mod 128): the check the hardware makes.
///
/// Derivation (§5.3): let the header sit at word `p` of the grid (`p = 1` when a marker
/// precedes it, else the current offset, `1..=127`). The embedded markers are at `f = 128 - p`,
/// `f + 128`, ... words after the header; marker `k` (from 1) exists when fewer than the FPDU's
/// words without markers, `W = ceil((L + 2) / 4) + 1`, precede it: `f + 127 (k - 1) < W`. Its
/// FPDUPTR is `4 (f + 128 (k - 1))`, over 0xFFFF from `k = 129` on for every `f` in `1..=127`.
/// So the FPDU overflows iff `f + 127 * 128 < W`, which works out to
/// `0xFFFF - L <= 4 (p + 1)`: a 16-bit complement compared with the header position.
/// Checked against the `Framer` for every offset and every length from 60000 up in the tests.
pub fn fpduptr_overflows(ulpdu_len: u16, offset_words: u32) -> bool {
    u64::from(u16::MAX - ulpdu_len) <= header_room(offset_words) << FPDU_ALIGN.trailing_zeros()
}

/// `p + 1` for the header position `p` of the next FPDU when the stream offset is
/// `offset_words` (mod 128) with markers: the per-connection `room` register.
pub fn header_room(offset_words: u32) -> u64 {
    let grid = MARKER_INTERVAL / FPDU_ALIGN as u32;
    let p = match offset_words % grid {
        0 => 1,
        p => p,
    };
    u64::from(p) + 1
}

/// Where the packet in progress is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum TxState {
    /// Between packets: the next packet's first beat (or its leading marker) goes out now.
    Idle,
    /// ULPDU beats (the header word already out, or the leading marker out and the header next).
    Body,
    /// The ULPDU's last beat left half a word in `hold`: one more word (with PAD) to go.
    Flush,
    /// PAD done: the CRC word (after a marker, if one is due).
    Tail,
    /// Copying a raw packet.
    Raw,
    /// Consuming refused raw bytes.
    DropRaw,
}

/// The MPA transmit block of the Cu's 32-bit datapath.
#[derive(LogicBlock)]
pub struct MpaTx {
    pub clock: Signal<In, Clock>,

    /// ULPDU (DDP segment) beats, byte 0 in the most significant lane.
    pub ulpdu_data: Signal<In, Bits<DATA_WIDTH>>,
    pub ulpdu_keep: Signal<In, Bits<KEEP_WIDTH>>,
    pub ulpdu_last: Signal<In, Bit>,
    pub ulpdu_valid: Signal<In, Bit>,
    pub ulpdu_ready: Signal<Out, Bit>,
    /// Connection of the ULPDU, read while the packet's first beat is offered.
    pub ulpdu_conn: Signal<In, Bits<CONN_BITS>>,
    /// ULPDU length in octets (the packet's byte count), read while the packet's first beat is
    /// offered (DdpTx changes it to the next segment's while a segment's last beats wait).
    pub ulpdu_len: Signal<In, Bits<LEN_BITS>>,

    /// Raw bytes (MPA Request/Reply) of a connection in raw mode, copied verbatim.
    pub raw_data: Signal<In, Bits<DATA_WIDTH>>,
    pub raw_keep: Signal<In, Bits<KEEP_WIDTH>>,
    pub raw_last: Signal<In, Bit>,
    pub raw_valid: Signal<In, Bit>,
    pub raw_ready: Signal<Out, Bit>,
    pub raw_conn: Signal<In, Bits<CONN_BITS>>,

    /// One-cycle strobe: write the configuration of `cfg_conn` (and set its offset to 0).
    pub cfg_write: Signal<In, Bit>,
    pub cfg_conn: Signal<In, Bits<CONN_BITS>>,
    /// 1: FPDU mode; 0: raw mode.
    pub cfg_fpdu_mode: Signal<In, Bit>,
    /// Insert markers (the peer asked for them, §3.2).
    pub cfg_markers: Signal<In, Bit>,
    /// Compute the CRC; when 0 the CRC field is sent as 0 (§3.2).
    pub cfg_crc: Signal<In, Bit>,

    /// LLP TX stream: one packet per FPDU (with the marker before its header) or raw packet.
    pub llp_data: Signal<Out, Bits<DATA_WIDTH>>,
    pub llp_keep: Signal<Out, Bits<KEEP_WIDTH>>,
    pub llp_last: Signal<Out, Bit>,
    pub llp_valid: Signal<Out, Bit>,
    pub llp_ready: Signal<In, Bit>,
    pub llp_conn: Signal<Out, Bits<CONN_BITS>>,

    /// One-cycle pulse: a packet was refused and dropped (see the module documentation).
    pub err: Signal<Out, Bit>,
    /// Connection of the refused packet, valid with `err`.
    pub err_conn: Signal<Out, Bits<CONN_BITS>>,

    // Constants from the protocol and the datapath.
    max_ulpdu: Constant<Bits<LEN_BITS>>,
    half_shift: Constant<Bits<8>>,
    word_shift: Constant<Bits<8>>,
    keep_all: Constant<Bits<KEEP_WIDTH>>,
    grid_last: Constant<Bits<GRID_BITS>>,
    room_at_start: Constant<Bits<ROOM_BITS>>,
    room_bits: Constant<Bits<8>>,
    byte_ones: Constant<Bits<DATA_WIDTH>>,
    lane_shift: [Constant<Bits<8>>; KEEP_WIDTH],
    /// [`MARKERS`]: the block implements markers. Without them (the `no-markers` build) the
    /// markers bit is stored as a constant 0 and synthesis removes the marker logic.
    markers_built: Constant<Bit>,

    // Per-connection state.
    conn_fpdu: [DFF<Bit>; CONNECTIONS],
    conn_markers: [DFF<Bit>; CONNECTIONS],
    conn_crc: [DFF<Bit>; CONNECTIONS],
    /// Stream offset of the next word, in words mod 128.
    conn_offset: [DFF<Bits<GRID_BITS>>; CONNECTIONS],
    // Derived from the offset and the markers bit when they are written, so that a packet's
    // first cycle decides from registers: a marker precedes the next header (`lead`); the word
    // after the next header is on the grid (`wrap`); `room` is the FPDUPTR headroom of the next
    // header in octets (`4 * (header position + 1)`, see `fpduptr_overflows`).
    conn_lead: [DFF<Bit>; CONNECTIONS],
    conn_wrap: [DFF<Bit>; CONNECTIONS],
    conn_room: [DFF<Bits<ROOM_BITS>>; CONNECTIONS],

    // The packet in progress.
    state: DFF<TxState>,
    cur_conn: DFF<Bits<CONN_BITS>>,
    cur_markers: DFF<Bit>,
    cur_crc: DFF<Bit>,
    /// The ULPDU in progress is refused: consume it, send nothing.
    dropping: DFF<Bit>,
    /// A configuration write hit the connection of the packet in progress.
    cfg_hit: DFF<Bit>,
    /// Round robin: take a raw packet first when both inputs wait.
    prefer_raw: DFF<Bit>,
    /// Stream offset of the next word (words mod 128).
    offset: DFF<Bits<GRID_BITS>>,
    /// The next word is on the marker grid of a connection with markers (registered form of
    /// `cur_markers && offset == 0`, which keeps the compare off the `llp_ready` paths).
    marker_due: DFF<Bit>,
    /// Words from the FPDU header to the next word: FPDUPTR of a marker there, in words.
    ptr: DFF<Bits<PTR_WORD_BITS>>,
    /// ULPDU_Length (after a leading marker) or the low half of the previous ULPDU beat.
    hold: DFF<Bits<HALF>>,

    // Output register.
    out_valid: DFF<Bit>,
    out_data: DFF<Bits<DATA_WIDTH>>,
    out_keep: DFF<Bits<KEEP_WIDTH>>,
    out_last: DFF<Bit>,
    out_conn: DFF<Bits<CONN_BITS>>,
    /// The word is in the CRC span.
    out_span: DFF<Bit>,
    /// The word is the last of the CRC span.
    out_span_last: DFF<Bit>,
    /// The word is the CRC of a connection with CRC on: send the computed CRC.
    out_crc: DFF<Bit>,
    err_q: DFF<Bit>,
    err_conn_q: DFF<Bits<CONN_BITS>>,

    crc32c: Crc32c<DATA_WIDTH, KEEP_WIDTH>,

    // Combinational signals.
    load: Signal<Local, Bit>,
    grant_raw: Signal<Local, Bit>,
    sel_fpdu: Signal<Local, Bit>,
    sel_markers: Signal<Local, Bit>,
    sel_crc: Signal<Local, Bit>,
    sel_offset: Signal<Local, Bits<GRID_BITS>>,
    sel_offset_inc: Signal<Local, Bits<GRID_BITS>>,
    sel_lead: Signal<Local, Bit>,
    sel_wrap: Signal<Local, Bit>,
    sel_refuse: Signal<Local, Bit>,
    raw_fpdu: Signal<Local, Bit>,
    slack: Signal<Local, Bits<LEN_BITS>>,
    wb_wrap: Signal<Local, Bit>,
    wb_room: Signal<Local, Bits<ROOM_BITS>>,
    slack_lo: Signal<Local, Bits<ROOM_BITS>>,
    slack_small: Signal<Local, Bit>,
    kill: Signal<Local, Bit>,
    keep_mask: Signal<Local, Bits<DATA_WIDTH>>,
    masked: Signal<Local, Bits<DATA_WIDTH>>,
    in_hi: Signal<Local, Bits<HALF>>,
    in_lo: Signal<Local, Bits<HALF>>,
    flush: Signal<Local, Bit>,
    offset_inc: Signal<Local, Bits<GRID_BITS>>,
    ptr_inc: Signal<Local, Bits<PTR_WORD_BITS>>,
    ptr_bytes: Signal<Local, Bits<HALF>>,
    crc_wire: Signal<Local, Bits<DATA_WIDTH>>,
    emit: Signal<Local, Bit>,
    emit_hi: Signal<Local, Bits<HALF>>,
    emit_lo: Signal<Local, Bits<HALF>>,
    emit_keep: Signal<Local, Bits<KEEP_WIDTH>>,
    emit_last: Signal<Local, Bit>,
    emit_conn: Signal<Local, Bits<CONN_BITS>>,
    emit_span: Signal<Local, Bit>,
    emit_span_last: Signal<Local, Bit>,
    emit_crc: Signal<Local, Bit>,
    write_back: Signal<Local, Bit>,
    take_ulpdu: Signal<Local, Bit>,
    take_raw: Signal<Local, Bit>,
    drain_ulpdu: Signal<Local, Bit>,
    drain_raw: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    wrap_next: Signal<Local, Bit>,
    cfg_hits_cur: Signal<Local, Bit>,
}

impl Default for MpaTx {
    fn default() -> Self {
        check_widths(DATA_WIDTH, KEEP_WIDTH);
        assert_eq!(
            KEEP_WIDTH, FPDU_ALIGN,
            "MpaTx is written for one 4-octet MPA word per beat"
        );
        Self {
            clock: Default::default(),
            ulpdu_data: Default::default(),
            ulpdu_keep: Default::default(),
            ulpdu_last: Default::default(),
            ulpdu_valid: Default::default(),
            ulpdu_ready: Default::default(),
            ulpdu_conn: Default::default(),
            ulpdu_len: Default::default(),
            raw_data: Default::default(),
            raw_keep: Default::default(),
            raw_last: Default::default(),
            raw_valid: Default::default(),
            raw_ready: Default::default(),
            raw_conn: Default::default(),
            cfg_write: Default::default(),
            cfg_conn: Default::default(),
            cfg_fpdu_mode: Default::default(),
            cfg_markers: Default::default(),
            cfg_crc: Default::default(),
            llp_data: Default::default(),
            llp_keep: Default::default(),
            llp_last: Default::default(),
            llp_valid: Default::default(),
            llp_ready: Default::default(),
            llp_conn: Default::default(),
            err: Default::default(),
            err_conn: Default::default(),
            max_ulpdu: Constant::new((MAX_ULPDU as u64).into()),
            half_shift: Constant::new((HALF as u64).into()),
            word_shift: Constant::new(u64::from(FPDU_ALIGN.trailing_zeros()).into()),
            keep_all: Constant::new(Bits::<KEEP_WIDTH>::mask()),
            grid_last: Constant::new(Bits::<GRID_BITS>::mask()),
            room_at_start: Constant::new((header_room(0) << FPDU_ALIGN.trailing_zeros()).into()),
            room_bits: Constant::new((ROOM_BITS as u64).into()),
            byte_ones: Constant::new(0xFF_u64.into()),
            lane_shift: core::array::from_fn(|lane| Constant::new((8 * lane as u64).into())),
            markers_built: Constant::new(MARKERS),
            conn_fpdu: Default::default(),
            conn_markers: Default::default(),
            conn_crc: Default::default(),
            conn_offset: Default::default(),
            conn_lead: Default::default(),
            conn_wrap: Default::default(),
            conn_room: Default::default(),
            state: Default::default(),
            cur_conn: Default::default(),
            cur_markers: Default::default(),
            cur_crc: Default::default(),
            cfg_hit: Default::default(),
            dropping: Default::default(),
            prefer_raw: Default::default(),
            offset: Default::default(),
            ptr: Default::default(),
            hold: Default::default(),
            marker_due: Default::default(),
            out_valid: Default::default(),
            out_data: Default::default(),
            out_keep: Default::default(),
            out_last: Default::default(),
            out_conn: Default::default(),
            out_span: Default::default(),
            out_span_last: Default::default(),
            out_crc: Default::default(),
            err_q: Default::default(),
            err_conn_q: Default::default(),
            crc32c: Default::default(),
            load: Default::default(),
            grant_raw: Default::default(),
            sel_fpdu: Default::default(),
            sel_markers: Default::default(),
            sel_crc: Default::default(),
            sel_offset: Default::default(),
            sel_offset_inc: Default::default(),
            sel_lead: Default::default(),
            sel_wrap: Default::default(),
            sel_refuse: Default::default(),
            raw_fpdu: Default::default(),
            slack: Default::default(),
            wb_wrap: Default::default(),
            wb_room: Default::default(),
            slack_lo: Default::default(),
            slack_small: Default::default(),
            kill: Default::default(),
            keep_mask: Default::default(),
            masked: Default::default(),
            in_hi: Default::default(),
            in_lo: Default::default(),
            flush: Default::default(),
            offset_inc: Default::default(),
            ptr_inc: Default::default(),
            ptr_bytes: Default::default(),
            crc_wire: Default::default(),
            emit: Default::default(),
            emit_hi: Default::default(),
            emit_lo: Default::default(),
            emit_keep: Default::default(),
            emit_last: Default::default(),
            emit_conn: Default::default(),
            emit_span: Default::default(),
            emit_span_last: Default::default(),
            emit_crc: Default::default(),
            write_back: Default::default(),
            take_ulpdu: Default::default(),
            take_raw: Default::default(),
            drain_ulpdu: Default::default(),
            drain_raw: Default::default(),
            fire: Default::default(),
            wrap_next: Default::default(),
            cfg_hits_cur: Default::default(),
        }
    }
}

impl Logic for MpaTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            cur_conn,
            cur_markers,
            cur_crc,
            cfg_hit,
            dropping,
            prefer_raw,
            offset,
            ptr,
            hold,
            marker_due,
            out_valid,
            out_data,
            out_keep,
            out_last,
            out_conn,
            out_span,
            out_span_last,
            out_crc,
            err_q,
            err_conn_q
        );
        for i in 0..CONNECTIONS {
            self.conn_fpdu[i].clock.next = self.clock.val();
            self.conn_markers[i].clock.next = self.clock.val();
            self.conn_crc[i].clock.next = self.clock.val();
            self.conn_offset[i].clock.next = self.clock.val();
            self.conn_fpdu[i].d.next = self.conn_fpdu[i].q.val();
            self.conn_markers[i].d.next = self.conn_markers[i].q.val();
            self.conn_crc[i].d.next = self.conn_crc[i].q.val();
            self.conn_offset[i].d.next = self.conn_offset[i].q.val();
            self.conn_lead[i].clock.next = self.clock.val();
            self.conn_wrap[i].clock.next = self.clock.val();
            self.conn_room[i].clock.next = self.clock.val();
            self.conn_lead[i].d.next = self.conn_lead[i].q.val();
            self.conn_wrap[i].d.next = self.conn_wrap[i].q.val();
            self.conn_room[i].d.next = self.conn_room[i].q.val();
        }

        // CRC-32C over the CRC-span words leaving the output register (all full words).
        self.crc32c.clock.next = self.clock.val();
        self.crc32c.data.next = self.out_data.q.val();
        self.crc32c.keep.next = self.keep_all.val();
        self.crc32c.last.next = self.out_span_last.q.val();
        self.crc32c.valid.next =
            self.out_valid.q.val() && self.llp_ready.val() && self.out_span.q.val();
        // The CRC in wire order: least significant octet in lane 0 (§5.2; 4 lanes).
        self.crc_wire.next = (bit_cast::<DATA_WIDTH, 8>(self.crc32c.crc.val().get_bits::<8>(0))
            << 24)
            | (bit_cast::<DATA_WIDTH, 8>(self.crc32c.crc.val().get_bits::<8>(8)) << 16)
            | (bit_cast::<DATA_WIDTH, 8>(self.crc32c.crc.val().get_bits::<8>(16)) << 8)
            | bit_cast::<DATA_WIDTH, 8>(self.crc32c.crc.val().get_bits::<8>(24));

        // LLP outputs from the output register.
        self.llp_valid.next = self.out_valid.q.val();
        self.llp_data.next = self.out_data.q.val();
        if self.out_crc.q.val() {
            self.llp_data.next = self.out_data.q.val() | self.crc_wire.val();
        }
        self.llp_keep.next = self.out_keep.q.val();
        self.llp_last.next = self.out_last.q.val();
        self.llp_conn.next = self.out_conn.q.val();
        self.err.next = self.err_q.q.val();
        self.err_conn.next = self.err_conn_q.q.val();

        // The output register takes a word when it is empty or its word leaves.
        self.load.next = !self.out_valid.q.val() || self.llp_ready.val();

        // Per-connection state of the connections at the inputs. `slack` = 0xFFFF - ulpdu_len
        // (MAX_ULPDU is all ones): a ULPDU is refused when its connection is in raw mode or,
        // with markers, when an FPDUPTR would overflow (`fpduptr_overflows`).
        self.slack.next = self.ulpdu_len.val() ^ self.max_ulpdu.val();
        // slack <= room, split at the room's width: a short compare and an all-zero check.
        self.slack_lo.next = self.slack.val().get_bits::<ROOM_BITS>(0);
        self.slack_small.next = !self
            .slack
            .val()
            .get_bits::<SLACK_HI_BITS>(self.room_bits.val().index())
            .any();
        self.sel_fpdu.next = false;
        self.sel_markers.next = false;
        self.sel_crc.next = false;
        self.sel_offset.next = 0.into();
        self.sel_lead.next = false;
        self.sel_wrap.next = false;
        self.sel_refuse.next = false;
        self.raw_fpdu.next = false;
        for i in 0..CONNECTIONS {
            if self.ulpdu_conn.val().index() == i {
                self.sel_fpdu.next = self.conn_fpdu[i].q.val();
                self.sel_markers.next = self.conn_markers[i].q.val();
                self.sel_crc.next = self.conn_crc[i].q.val();
                self.sel_offset.next = self.conn_offset[i].q.val();
                self.sel_lead.next = self.conn_lead[i].q.val();
                self.sel_wrap.next = self.conn_wrap[i].q.val();
                self.sel_refuse.next = !self.conn_fpdu[i].q.val()
                    || (self.conn_markers[i].q.val()
                        && self.slack_small.val()
                        && (self.slack_lo.val() <= self.conn_room[i].q.val()));
            }
            if self.raw_conn.val().index() == i {
                self.raw_fpdu.next = self.conn_fpdu[i].q.val();
            }
        }
        self.sel_offset_inc.next = self.sel_offset.val() + 1;
        self.grant_raw.next =
            self.raw_valid.val() && (!self.ulpdu_valid.val() || self.prefer_raw.q.val());

        // The ULPDU beat with the lanes `keep` leaves out zeroed (they become PAD).
        self.keep_mask.next = 0.into();
        for lane in 0..KEEP_WIDTH {
            if self.ulpdu_keep.val().get_bit(lane) {
                self.keep_mask.next =
                    self.keep_mask.val() | (self.byte_ones.val() << self.lane_shift[lane].val());
            }
        }
        self.masked.next = self.ulpdu_data.val() & self.keep_mask.val();
        self.in_hi.next = self
            .masked
            .val()
            .get_bits::<HALF>(self.half_shift.val().index());
        self.in_lo.next = self.masked.val().get_bits::<HALF>(0);
        // Octets in lanes 2..3 of a last beat: they need one more word (4 lanes).
        self.flush.next = self.ulpdu_keep.val().get_bit(1);

        // Word counters of the FPDU in progress.
        self.offset_inc.next = self.offset.q.val() + 1;
        // The word after this one is on the grid: a marker follows, not the CRC (and after the
        // CRC word: the next FPDU of the connection starts with a marker).
        self.wrap_next.next = self.cur_markers.q.val() && (self.offset_inc.val() == 0);
        self.wb_wrap.next =
            self.cur_markers.q.val() && (self.offset_inc.val() == self.grid_last.val());
        self.wb_room.next =
            (bit_cast::<ROOM_BITS, GRID_BITS>(self.offset_inc.val()) + 1) << self.word_shift.val();
        if self.offset_inc.val() == 0 {
            self.wb_room.next = self.room_at_start.val();
        }
        self.ptr_inc.next = self.ptr.q.val() + 1;
        self.ptr_bytes.next =
            bit_cast::<HALF, PTR_WORD_BITS>(self.ptr.q.val()) << self.word_shift.val();
        self.cfg_hits_cur.next =
            self.cfg_write.val() && (self.cfg_conn.val() == self.cur_conn.q.val());
        self.cfg_hit.d.next = self.cfg_hit.q.val() || self.cfg_hits_cur.val();

        // The word the output register takes if `load` (`emit`: there is one), decided from
        // the state and the inputs only, so the wide data path does not wait for `llp_ready`;
        // `take_ulpdu` / `take_raw`: it consumes the input beat.
        self.emit.next = false;
        self.kill.next = false;
        self.emit_hi.next = 0.into();
        self.emit_lo.next = 0.into();
        self.emit_keep.next = self.keep_all.val();
        self.emit_last.next = false;
        self.emit_conn.next = self.cur_conn.q.val();
        self.emit_span.next = false;
        self.emit_span_last.next = false;
        self.emit_crc.next = false;
        self.take_ulpdu.next = false;
        self.take_raw.next = false;
        self.drain_ulpdu.next = false;
        self.drain_raw.next = false;
        match self.state.q.val() {
            TxState::Idle => {
                // Ready for a ULPDU's first beat whether or not one is offered (so `ulpdu_ready`
                // does not wait for `ulpdu_valid`, which comes through UlpduMux's choice): where
                // one is offered this is `!grant_raw && !sel_lead`, as below.
                self.take_ulpdu.next =
                    !(self.sel_lead.val() || (self.raw_valid.val() && self.prefer_raw.q.val()));
                if self.grant_raw.val() {
                    // A raw beat; raw bytes in FPDU mode are refused (`kill`).
                    self.emit.next = true;
                    self.take_raw.next = true;
                    self.kill.next = self.raw_fpdu.val();
                    self.emit_hi.next = self
                        .raw_data
                        .val()
                        .get_bits::<HALF>(self.half_shift.val().index());
                    self.emit_lo.next = self.raw_data.val().get_bits::<HALF>(0);
                    self.emit_keep.next = self.raw_keep.val();
                    self.emit_last.next = self.raw_last.val();
                    self.emit_conn.next = self.raw_conn.val();
                } else if self.ulpdu_valid.val() {
                    // A ULPDU in raw mode, or one whose FPDUPTR would overflow, is refused.
                    self.emit.next = true;
                    self.kill.next = self.sel_refuse.val();
                    self.emit_conn.next = self.ulpdu_conn.val();
                    // The FPDU's first word, in the CRC span either way: the header word, or
                    // the marker right before the header (FPDUPTR 0, all zeros), which begins
                    // the FPDU and is its first CRC word.
                    self.emit_span.next = true;
                    if !self.sel_lead.val() {
                        // Header word: ULPDU_Length and the first two ULPDU octets.
                        self.emit_hi.next = self.ulpdu_len.val();
                        self.emit_lo.next = self.in_hi.val();
                        self.emit_span_last.next =
                            self.ulpdu_last.val() && !self.flush.val() && !self.sel_wrap.val();
                    }
                }
            }
            TxState::Body => {
                if self.dropping.q.val() {
                    self.drain_ulpdu.next = true;
                } else if self.marker_due.q.val() {
                    self.emit.next = true;
                    self.emit_lo.next = self.ptr_bytes.val();
                    self.emit_span.next = true;
                } else {
                    self.emit.next = self.ulpdu_valid.val();
                    self.take_ulpdu.next = true;
                    self.emit_hi.next = self.hold.q.val();
                    self.emit_lo.next = self.in_hi.val();
                    self.emit_span.next = true;
                    self.emit_span_last.next =
                        self.ulpdu_last.val() && !self.flush.val() && !self.wrap_next.val();
                }
            }
            TxState::Flush => {
                self.emit.next = !self.dropping.q.val();
                self.emit_span.next = true;
                if self.marker_due.q.val() {
                    self.emit_lo.next = self.ptr_bytes.val();
                } else {
                    // The last ULPDU octets and PAD.
                    self.emit_hi.next = self.hold.q.val();
                    self.emit_span_last.next = !self.wrap_next.val();
                }
            }
            TxState::Tail => {
                self.emit.next = !self.dropping.q.val();
                if self.marker_due.q.val() {
                    // Marker between PAD and CRC: in the CRC span, and its last word.
                    self.emit_lo.next = self.ptr_bytes.val();
                    self.emit_span.next = true;
                    self.emit_span_last.next = true;
                } else {
                    // The CRC word: 0 here, the CRC ORed in at the output when enabled.
                    self.emit_crc.next = self.cur_crc.q.val();
                    self.emit_last.next = true;
                }
            }
            TxState::Raw => {
                self.emit.next = self.raw_valid.val();
                self.take_raw.next = true;
                self.emit_hi.next = self
                    .raw_data
                    .val()
                    .get_bits::<HALF>(self.half_shift.val().index());
                self.emit_lo.next = self.raw_data.val().get_bits::<HALF>(0);
                self.emit_keep.next = self.raw_keep.val();
                self.emit_last.next = self.raw_last.val();
            }
            TxState::DropRaw => {
                self.drain_raw.next = true;
            }
        }
        self.fire.next = self.emit.val() && self.load.val();
        self.ulpdu_ready.next =
            (self.take_ulpdu.val() && self.load.val()) || self.drain_ulpdu.val();
        self.raw_ready.next = (self.take_raw.val() && self.load.val()) || self.drain_raw.val();

        // The CRC word goes in: the connection's offset is written back (unless a configuration
        // write hit it). Spelled out from registers and `load` for a short enable path.
        self.write_back.next = (self.state.q.val() == TxState::Tail)
            && !self.dropping.q.val()
            && !self.marker_due.q.val()
            && self.load.val()
            && !self.cfg_hit.q.val()
            && !self.cfg_hits_cur.val();

        // State, counters and per-packet registers advance when the word goes in.
        self.err_q.d.next = false;
        match self.state.q.val() {
            TxState::Idle => {
                if self.fire.val() {
                    if self.grant_raw.val() {
                        self.prefer_raw.d.next = false;
                        self.cur_conn.d.next = self.raw_conn.val();
                        self.err_q.d.next = self.raw_fpdu.val();
                        self.err_conn_q.d.next = self.raw_conn.val();
                        if !self.raw_last.val() {
                            if self.raw_fpdu.val() {
                                self.state.d.next = TxState::DropRaw;
                            } else {
                                self.state.d.next = TxState::Raw;
                            }
                        }
                    } else {
                        // A refused ULPDU goes on with `dropping`, so the late refusal feeds
                        // registers directly.
                        self.prefer_raw.d.next = true;
                        self.cur_conn.d.next = self.ulpdu_conn.val();
                        self.cur_markers.d.next = self.sel_markers.val();
                        self.cur_crc.d.next = self.sel_crc.val();
                        self.cfg_hit.d.next =
                            self.cfg_write.val() && (self.cfg_conn.val() == self.ulpdu_conn.val());
                        self.dropping.d.next = self.sel_refuse.val();
                        self.err_q.d.next = self.sel_refuse.val();
                        self.err_conn_q.d.next = self.ulpdu_conn.val();
                        self.offset.d.next = self.sel_offset_inc.val();
                        self.marker_due.d.next = self.sel_wrap.val();
                        if self.sel_lead.val() {
                            self.hold.d.next = self.ulpdu_len.val();
                            self.ptr.d.next = 0.into();
                            self.state.d.next = TxState::Body;
                        } else {
                            self.hold.d.next = self.in_lo.val();
                            self.ptr.d.next = 1.into();
                            if !self.ulpdu_last.val() {
                                self.state.d.next = TxState::Body;
                            } else if self.flush.val() {
                                self.state.d.next = TxState::Flush;
                            } else {
                                self.state.d.next = TxState::Tail;
                            }
                        }
                    }
                }
            }
            TxState::Body => {
                if self.dropping.q.val() {
                    if self.ulpdu_valid.val() && self.ulpdu_last.val() {
                        self.state.d.next = TxState::Idle;
                    }
                } else if self.fire.val() {
                    self.offset.d.next = self.offset_inc.val();
                    self.marker_due.d.next = self.wrap_next.val();
                    self.ptr.d.next = self.ptr_inc.val();
                    if !self.marker_due.q.val() {
                        self.hold.d.next = self.in_lo.val();
                        if self.ulpdu_last.val() {
                            if self.flush.val() {
                                self.state.d.next = TxState::Flush;
                            } else {
                                self.state.d.next = TxState::Tail;
                            }
                        }
                    }
                }
            }
            TxState::Flush => {
                if self.dropping.q.val() {
                    self.state.d.next = TxState::Idle;
                } else if self.fire.val() {
                    self.offset.d.next = self.offset_inc.val();
                    self.marker_due.d.next = self.wrap_next.val();
                    self.ptr.d.next = self.ptr_inc.val();
                    if !self.marker_due.q.val() {
                        self.state.d.next = TxState::Tail;
                    }
                }
            }
            TxState::Tail => {
                if self.dropping.q.val() {
                    self.state.d.next = TxState::Idle;
                } else if self.fire.val() {
                    self.offset.d.next = self.offset_inc.val();
                    self.marker_due.d.next = self.wrap_next.val();
                    self.ptr.d.next = self.ptr_inc.val();
                    if !self.marker_due.q.val() {
                        self.state.d.next = TxState::Idle;
                    }
                }
            }
            TxState::Raw => {
                if self.fire.val() && self.raw_last.val() {
                    self.state.d.next = TxState::Idle;
                }
            }
            TxState::DropRaw => {
                if self.raw_valid.val() && self.raw_last.val() {
                    self.state.d.next = TxState::Idle;
                }
            }
        }

        // Output register.
        if self.load.val() {
            // A refused packet's first word is not sent (`kill`). (It gated `llp_valid`
            // after the register, `out_kill`, which put a LUT between the output register
            // and `llp_valid` / `load`: -2.5 ns from `llp_ready` to UlpduMux's sources in the
            // routed core, issue 5.)
            self.out_valid.d.next = self.emit.val() && !self.kill.val();
            self.out_data.d.next = (bit_cast::<DATA_WIDTH, HALF>(self.emit_hi.val())
                << self.half_shift.val())
                | bit_cast::<DATA_WIDTH, HALF>(self.emit_lo.val());
            self.out_keep.d.next = self.emit_keep.val();
            self.out_last.d.next = self.emit_last.val();
            self.out_conn.d.next = self.emit_conn.val();
            self.out_span.d.next = self.emit_span.val();
            self.out_span_last.d.next = self.emit_span_last.val();
            self.out_crc.d.next = self.emit_crc.val();
        }

        // Per-connection state: the offset after the FPDU, then configuration writes.
        for i in 0..CONNECTIONS {
            if self.write_back.val() && (self.cur_conn.q.val().index() == i) {
                self.conn_offset[i].d.next = self.offset_inc.val();
                self.conn_lead[i].d.next = self.wrap_next.val();
                self.conn_wrap[i].d.next = self.wb_wrap.val();
                self.conn_room[i].d.next = self.wb_room.val();
            }
            if self.cfg_write.val() && (self.cfg_conn.val().index() == i) {
                self.conn_fpdu[i].d.next = self.cfg_fpdu_mode.val();
                self.conn_markers[i].d.next = self.cfg_markers.val() && self.markers_built.val();
                self.conn_crc[i].d.next = self.cfg_crc.val();
                self.conn_offset[i].d.next = 0.into();
                self.conn_lead[i].d.next = self.cfg_markers.val() && self.markers_built.val();
                self.conn_wrap[i].d.next = false;
                self.conn_room[i].d.next = self.room_at_start.val();
            }
        }
    }
}

crate::sim_ports!(impl[] MpaTx {
    inputs: ulpdu_data, ulpdu_keep, ulpdu_last, ulpdu_valid, ulpdu_conn, ulpdu_len,
        raw_data, raw_keep, raw_last, raw_valid, raw_conn,
        cfg_write, cfg_conn, cfg_fpdu_mode, cfg_markers, cfg_crc,
        llp_ready;
    outputs: ulpdu_ready, raw_ready, llp_data, llp_keep, llp_last, llp_valid, llp_conn,
        err, err_conn;
});

#[cfg(test)]
mod tests {
    use super::*;
    use rnic_proto::mpa::{Error, Framer};

    /// The hardware's overflow rule is exactly where the `Framer` refuses a ULPDU: for every
    /// grid offset, every length within 16 octets of the boundary, and a sample below it.
    #[test]
    fn overflow_rule_matches_the_framer() {
        let mut out = vec![0u8; 70_000];
        let ulpdu = vec![0u8; usize::from(u16::MAX)];
        let grid = MARKER_INTERVAL / FPDU_ALIGN as u32;
        for offset_words in 0..grid {
            let boundary = 65_531 - 4 * offset_words.max(1);
            let near = (boundary - 16..=(boundary + 16).min(65_535)).map(|l| l as u16);
            let far = [0u16, 1, 1448, 60_000, 65_000, 65_535];
            for len in near.chain(far) {
                let mut f = Framer {
                    markers: true,
                    crc: false,
                    stream_offset: offset_words * FPDU_ALIGN as u32,
                };
                let refused = matches!(
                    f.write_fpdu(&ulpdu[..usize::from(len)], &mut out),
                    Err(Error::FpduptrOverflow)
                );
                assert_eq!(
                    fpduptr_overflows(len, offset_words),
                    refused,
                    "len {len} at word offset {offset_words}"
                );
            }
        }
    }

    #[test]
    fn generates_verilog() {
        let v = crate::catalog::top_verilog(MpaTx::default());
        assert!(v.contains("module top"));
    }
}
