//! TerminateTx: the one Terminate of an RDMAP stream, as a ULPDU for MpaTx
//! (`rfc5040-rdmap.md` §1.6 layout, §1.7 QN 2, §5.2 what it carries, §1.8 golden vector).
//! Port list: [`crate::rdmap`] ("TerminateTx").
//!
//! # The ULPDU
//!
//! | ULPDU octets | content |
//! |---|---|
//! | 0..18 | untagged DDP header: `41 47`, RsvdULP 0, QN 2, MSN 1, MO 0 (one Terminate per stream; MSNs start at 1) |
//! | 18..22 | control word: Layer << 28 \| EType << 24 \| Code << 16 \| M << 15 \| D << 14 \| R << 13 |
//! | 22..24 | DDP Segment Length (`term_seglen`), only if M or D |
//! | 24.. | if D: the offending segment's DDP header, 14 octets if its T flag (octet 0 bit 7) is set, else 18, copied from its header slot from word 0 on |
//! | then | if R: the 28 octets at ULPDU octets 18..46 of the slot (the Read Request header) |
//!
//! Lengths: 22 (neither M nor D), 24 (M only), 38 / 42 (D, tagged / untagged), 70 (D and R on
//! an untagged header). M and D are sent as given (`term_m`, `term_d`). **R is honoured only
//! with D on an untagged header** (the slot's T flag clear): the one case RxControl sends
//! (row 20 of its check table, a Read Request: HdrCt MDR; every other row sends none or MD).
//! Otherwise the Terminate goes out with R = 0 and no RDMA header, a well-formed Terminate of
//! the other bits. So the RDMA header copy is always slot octets 18..46 right after the
//! untagged DDP header, contiguous and lane-aligned with the slot (issue 5, area: R without D
//! and R after a tagged header needed beats built from halves of two slot words;
//! `docs/decisions.md`, "Twentieth session").
//!
//! # Stream and timing
//!
//! `tx_*` follows the stream conventions (byte 0 in the MSB lane, 4-octet beats, only the last
//! beat partial: `keep` 1100 for the lengths that are 2 mod 4); `tx_conn` and `tx_len` (the
//! ULPDU length) are valid on every beat. A request is taken when `term_valid && term_ready`
//! (`term_ready`: idle and not the cycle of `term_done`, from registers). The source holds
//! `term_valid` and the request's fields until `term_done`: the block reads them in place
//! (`tx_conn`, the control word but R, the slot address, `term_done_conn` / `term_done_slot`
//! are `term_*`), so it keeps no copy of them (issue 5, area: 39 flip-flops). With `tx_ready`
//! always high, a request taken in cycle `t` gives its first beat (`tx_valid`) in `t + 4` and
//! its `n` beats (6 to 18) one every other cycle, in `t + 4, t + 6, .., t + 2n + 2`;
//! `term_done` pulses in the cycle after the last beat moved, and the next request is taken in
//! the cycle after that, so back-to-back requests take `2n + 4` cycles each. Back-pressure on
//! `tx_ready` only stretches this; every output but those read from `term_*` is driven from
//! registers.
//!
//! Measured on the iCE40-HX8K (yosys + nextpnr-ice40 `--freq 100`, the block alone in the
//! `rnic-bsp` synthesis harness): 275 logic cells, no block RAM, 128.6 MHz (357 and 108.8 MHz
//! with the two-entry skid buffer of before).
//!
//! # How the slot is copied
//!
//! The header slot is read through `hdr_b_addr` / `hdr_b_data` (registered read: the word of the
//! address presented in cycle `c` is on `hdr_b_data` in `c + 1`), one word per beat, at
//! consecutive word addresses. Beats 0 to 5 are built from the request; from beat 6 on, beat
//! `b` is slot word `b - 6`: the copy at octet 24 is lane-aligned with the slot, and an
//! untagged header plus the Read Request header are slot octets 0..46, contiguous.
//!
//! The generator hands beats to one output register (`o_*`), and only when it is empty: while
//! it holds a beat, taken or not, the generator stalls (it presents the same slot word again,
//! so `hdr_b_data` holds too). So a beat leaves every other cycle at best, and `tx_ready`
//! reaches only `o_v` and the end of the drain, never the generator's advance, the state or
//! the slot address. (With the advance on `o_v || tx_ready`, MpaTx's LLP ready ran through
//! UlpduMux into the state and the parser's RAM address: −2.5 ns in the routed core, issue 5.
//! A stream has one Terminate, so its rate does not matter.) There is no second (overflow)
//! entry, which the two-entry skid buffer used before needed for 37 flip-flops (issue 5, area).
//!
//! The copy must read 0 at and past the segment's end (`term_seglen`, the slot's segment
//! length whenever a header is copied: RxControl's contract), but the parser's port B is its
//! RAM's output, where a word past the end is what an earlier segment left. The parser never
//! writes words 16..31 of a slot, so a word `w` (0..15) with `4 w >= term_seglen` is read at
//! `w + 16` instead: bit 4 of the word address. Both candidates (`beat`, `beat + 1`, counted
//! as words) and their bit 4 are registers (`beat`, `beat1`, `a4_0`, `a4_1`), the next
//! candidate's increment and compare done a word ahead, so the address is one multiplexer by
//! `offer` between flip-flops (the incrementer and the compare were on the path to the
//! parser's RAM address).
//! (The parser's zero gate before: about 60 logic cells.) Word 0 is always written (every
//! segment has a beat 0, a 0-octet ULPDU one with no lane kept, written 0).
//!
//! The slot's word 0 (its T flag) is read before the first beat, because `tx_len` depends on
//! it: state A presents the address, state B computes the length, the last beat and the case.

use crate::config::{CONN_BITS, HDR_ADDR_BITS, HDR_WORDS_WRITTEN, HDR_WORD_BITS};
use rust_hdl::prelude::*;

// The literal shifts in `update` (hdl_gen takes literals) follow the Cu configuration: the
// header address is `{conn, slot, word}` with the connection at bit 6.
// `update` spells the slot's unwritten half (`HDR_WORDS_WRITTEN`) as bit 4 of the word.
const _: () =
    assert!(HDR_WORD_BITS == 5 && HDR_ADDR_BITS == CONN_BITS + 6 && HDR_WORDS_WRITTEN == 16);

/// Cycles from taking a request (`term_valid && term_ready`) to its first beat on `tx_*`.
pub const TERMINATE_FIRST_BEAT_LATENCY: usize = 4;

/// The Terminate transmitter. Ports: see the module documentation and [`crate::rdmap`].
#[derive(LogicBlock)]
pub struct TerminateTx {
    pub clock: Signal<In, Clock>,
    // The request (from RxControl).
    pub term_valid: Signal<In, Bit>,
    pub term_ready: Signal<Out, Bit>,
    pub term_conn: Signal<In, Bits<CONN_BITS>>,
    pub term_slot: Signal<In, Bit>,
    pub term_layer: Signal<In, Bits<4>>,
    pub term_etype: Signal<In, Bits<4>>,
    pub term_code: Signal<In, Bits<8>>,
    pub term_m: Signal<In, Bit>,
    pub term_d: Signal<In, Bit>,
    pub term_r: Signal<In, Bit>,
    pub term_seglen: Signal<In, Bits<16>>,
    // Header RAM read port B (DdpRxParse).
    pub hdr_b_addr: Signal<Out, Bits<HDR_ADDR_BITS>>,
    pub hdr_b_data: Signal<In, Bits<32>>,
    // The Terminate ULPDU (to MpaTx).
    pub tx_data: Signal<Out, Bits<32>>,
    pub tx_keep: Signal<Out, Bits<4>>,
    pub tx_last: Signal<Out, Bit>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_ready: Signal<In, Bit>,
    pub tx_conn: Signal<Out, Bits<CONN_BITS>>,
    pub tx_len: Signal<Out, Bits<16>>,
    // Done strobe (to RxControl: the slot can be freed).
    pub term_done: Signal<Out, Bit>,
    pub term_done_conn: Signal<Out, Bits<CONN_BITS>>,
    pub term_done_slot: Signal<Out, Bit>,

    /// 0 idle, 1 A (slot word 0 addressed), 2 B (word 0 read: T flag), 3 sending, 4 draining.
    state: DFF<Bits<3>>,
    /// ULPDU length (22 to 70).
    len_q: DFF<Bits<7>>,
    /// The last beat (as `beat` counts it), and whether it carries 2 octets (else 4).
    last_b: DFF<Bits<5>>,
    last_half: DFF<Bit>,
    /// The R bit sent: `term_r` with D on an untagged header (set in state B).
    r_sent: DFF<Bit>,
    /// The next beat to hand to the output register, counted as the slot word it reads (its
    /// address was presented in the previous cycle): beat `b` is word `b - 6` mod 32, so beats
    /// 0 to 5 are 26 to 31 and beat 6 is word 0 (one counter for both: no `word` register
    /// and incrementer beside `beat`, issue 5).
    beat: DFF<Bits<HDR_WORD_BITS>>,
    /// `beat + 1`, kept in step with `beat`, and bit 4 of the slot address for `beat` /
    /// `beat + 1` (the word's bit 4, or the word at or past the segment's end: see "How the
    /// slot is copied"), so that the slot address is one multiplexer by `offer` between
    /// registers (the incrementer and the compares were on the header RAM's address path).
    beat1: DFF<Bits<HDR_WORD_BITS>>,
    a4_0: DFF<Bit>,
    a4_1: DFF<Bit>,
    done_q: DFF<Bit>,
    /// The output register: a beat, its keep and last flag.
    o_v: DFF<Bit>,
    o_data: DFF<Bits<32>>,
    o_keep: DFF<Bits<4>>,
    o_last: DFF<Bit>,

    offer: Signal<Local, Bit>,
    /// The output register is empty (from registers only: see "Stream and timing").
    room: Signal<Local, Bit>,
    is_last: Signal<Local, Bit>,
    any_hdr: Signal<Local, Bit>,
    // (Not `tagged`: a SystemVerilog reserved word, which Verilator refuses in the generated Verilog.)
    hdr_tagged: Signal<Local, Bit>,
    seglen_v: Signal<Local, Bits<16>>,
    rd_word: Signal<Local, Bits<HDR_WORD_BITS>>,
    /// `beat1 + 1`, and whether it is at or past the segment's end (`4 w >= term_seglen`).
    w2: Signal<Local, Bits<HDR_WORD_BITS>>,
    pe2: Signal<Local, Bit>,
    rd_a4: Signal<Local, Bit>,
    ob_data: Signal<Local, Bits<32>>,
    ob_keep: Signal<Local, Bits<4>>,
    ddp_w0: Constant<Bits<32>>,
    ddp_qn: Constant<Bits<32>>,
    ddp_msn: Constant<Bits<32>>,
}

impl Default for TerminateTx {
    fn default() -> Self {
        let c = |v: u64| Constant::new(v.into());
        Self {
            clock: Default::default(),
            term_valid: Default::default(),
            term_ready: Default::default(),
            term_conn: Default::default(),
            term_slot: Default::default(),
            term_layer: Default::default(),
            term_etype: Default::default(),
            term_code: Default::default(),
            term_m: Default::default(),
            term_d: Default::default(),
            term_r: Default::default(),
            term_seglen: Default::default(),
            hdr_b_addr: Default::default(),
            hdr_b_data: Default::default(),
            tx_data: Default::default(),
            tx_keep: Default::default(),
            tx_last: Default::default(),
            tx_valid: Default::default(),
            tx_ready: Default::default(),
            tx_conn: Default::default(),
            tx_len: Default::default(),
            term_done: Default::default(),
            term_done_conn: Default::default(),
            term_done_slot: Default::default(),
            state: Default::default(),
            len_q: Default::default(),
            last_b: Default::default(),
            last_half: Default::default(),
            r_sent: Default::default(),
            beat: Default::default(),
            beat1: Default::default(),
            a4_0: Default::default(),
            a4_1: Default::default(),
            done_q: Default::default(),
            o_v: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_last: Default::default(),
            offer: Default::default(),
            room: Default::default(),
            is_last: Default::default(),
            any_hdr: Default::default(),
            hdr_tagged: Default::default(),
            seglen_v: Default::default(),
            rd_word: Default::default(),
            w2: Default::default(),
            pe2: Default::default(),
            rd_a4: Default::default(),
            ob_data: Default::default(),
            ob_keep: Default::default(),
            // DDP untagged header of a Terminate (`rfc5040-rdmap.md` §1.8): T=0 L=1 DV=1,
            // RV=1 opcode 7, RsvdULP 0, QN 2, MSN 1, MO 0.
            ddp_w0: c(0x4147_0000),
            ddp_qn: c(0x0002_0000),
            ddp_msn: c(0x0001_0000),
        }
    }
}

impl Logic for TerminateTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, len_q, last_b, last_half, r_sent, beat, beat1, a4_0, a4_1, done_q,
            o_v, o_data, o_keep, o_last
        );
        // Not in the cycle of `term_done`: the source clears `term_valid` only at its end.
        self.term_ready.next = (self.state.q.val() == 0) && !self.done_q.q.val();
        self.done_q.d.next = false;

        // ---- Idle: take a request (its fields stay on `term_*` until `term_done`).
        if self.term_ready.val() && self.term_valid.val() {
            self.state.d.next = 1.into();
        }
        // ---- A: slot word 0 is addressed (below); B: its T flag decides the layout.
        if self.state.q.val() == 1 {
            self.state.d.next = 2.into();
        }
        // R is sent only with D (on an untagged header), so M or D is any HdrCt bit.
        self.any_hdr.next = self.term_m.val() || self.term_d.val();
        // The DDP Segment Length is sent only with a HdrCt bit; else lanes 2, 3 are not kept.
        self.seglen_v.next = 0.into();
        if self.any_hdr.val() {
            self.seglen_v.next = self.term_seglen.val();
        }
        self.hdr_tagged.next = self.hdr_b_data.val().get_bit(31);
        if self.state.q.val() == 2 {
            self.state.d.next = 3.into();
            // Beat 0 = word (0 - 6) mod 32: see `beat`. (Words 26, 27: bit 4 set.)
            self.beat.d.next = 26.into();
            self.beat1.d.next = 27.into();
            self.a4_0.d.next = true;
            self.a4_1.d.next = true;
            self.r_sent.d.next = false;
            self.last_half.d.next = true;
            if !self.any_hdr.val() {
                self.len_q.d.next = 22.into();
                self.last_b.d.next = 31.into();
            } else if !self.term_d.val() {
                self.len_q.d.next = 24.into();
                self.last_b.d.next = 31.into();
                self.last_half.d.next = false;
            } else if self.term_r.val() && !self.hdr_tagged.val() {
                self.len_q.d.next = 70.into();
                self.last_b.d.next = 11.into();
                self.r_sent.d.next = true;
            } else if self.hdr_tagged.val() {
                self.len_q.d.next = 38.into();
                self.last_b.d.next = 3.into();
            } else {
                self.len_q.d.next = 42.into();
                self.last_b.d.next = 4.into();
            }
        }

        // ---- Sending: one beat to the output register whenever it is empty (not when its
        // beat is taken in the same cycle: `tx_ready` then reaches only `o_v`, see "Stream
        // and timing").
        self.room.next = !self.o_v.q.val();
        self.offer.next = (self.state.q.val() == 3) && self.room.val();
        self.is_last.next = self.beat.q.val() == self.last_b.q.val();
        self.ob_data.next = self.hdr_b_data.val();
        if self.beat.q.val() == 26 {
            self.ob_data.next = self.ddp_w0.val();
        } else if self.beat.q.val() == 27 {
            self.ob_data.next = 0.into();
        } else if self.beat.q.val() == 28 {
            self.ob_data.next = self.ddp_qn.val();
        } else if self.beat.q.val() == 29 {
            self.ob_data.next = self.ddp_msn.val();
        } else if self.beat.q.val() == 30 {
            self.ob_data.next = (bit_cast::<32, 4>(self.term_layer.val()) << 12)
                | (bit_cast::<32, 4>(self.term_etype.val()) << 8)
                | bit_cast::<32, 8>(self.term_code.val());
        } else if self.beat.q.val() == 31 {
            self.ob_data.next = (bit_cast::<32, 1>(self.term_m.val().into()) << 31)
                | (bit_cast::<32, 1>(self.term_d.val().into()) << 30)
                | (bit_cast::<32, 1>(self.r_sent.q.val().into()) << 29)
                | bit_cast::<32, 16>(self.seglen_v.val());
        }
        self.ob_keep.next = 15.into();
        if self.is_last.val() && self.last_half.q.val() {
            self.ob_keep.next = 12.into();
        }
        // A slot word at or past the segment's end (`4 w >= term_seglen`, for words 0..15;
        // words 16..31 are never written) is read from word `w + 16` of the slot, which the
        // parser never writes: it reads 0. Computed a word ahead (`w2`, `pe2`, for the word
        // after `beat1`) into registers, so the address is one multiplexer by `offer`.
        self.w2.next = self.beat1.q.val() + 1;
        self.pe2.next = (self.term_seglen.val().get_bits::<10>(6) == 0)
            && ((bit_cast::<6, 4>(self.w2.val().get_bits::<4>(0)) << 2)
                >= self.term_seglen.val().get_bits::<6>(0));
        self.rd_word.next = self.beat.q.val();
        self.rd_a4.next = self.a4_0.q.val();
        if self.offer.val() {
            self.beat.d.next = self.beat1.q.val();
            self.beat1.d.next = self.w2.val();
            self.a4_0.d.next = self.a4_1.q.val();
            self.a4_1.d.next = self.w2.val().get_bit(4) || self.pe2.val();
            self.rd_word.next = self.beat1.q.val();
            self.rd_a4.next = self.a4_1.q.val();
            if self.is_last.val() {
                self.state.d.next = 4.into();
            }
        }
        // Idle: word 0 (with bit 4 clear), which A presents (no multiplexer for A's address).
        if self.state.q.val() == 0 {
            self.beat.d.next = 0.into();
            self.a4_0.d.next = false;
        }
        // Slot address: word 0 in A (`beat` = 0 from Idle, no offer before sending), then
        // the word of the beat handed over next.
        self.hdr_b_addr.next = (bit_cast::<HDR_ADDR_BITS, CONN_BITS>(self.term_conn.val()) << 6)
            | (bit_cast::<HDR_ADDR_BITS, 1>(self.term_slot.val().into()) << 5)
            | bit_cast::<HDR_ADDR_BITS, 4>(self.rd_word.val().get_bits::<4>(0))
            | (bit_cast::<HDR_ADDR_BITS, 1>(self.rd_a4.val().into()) << 4);

        // ---- Draining: done when the last beat has left.
        if (self.state.q.val() == 4)
            && self.o_v.q.val()
            && self.tx_ready.val()
            && self.o_last.q.val()
        {
            self.state.d.next = 0.into();
            self.done_q.d.next = true;
        }

        // ---- Outputs.
        // The register loads whenever it has room, offered or not, so that the state reaches
        // only `o_v`; a beat taken empties it.
        if self.o_v.q.val() && self.tx_ready.val() {
            self.o_v.d.next = false;
        }
        if self.room.val() {
            self.o_data.d.next = self.ob_data.val();
            self.o_keep.d.next = self.ob_keep.val();
            self.o_last.d.next = self.is_last.val();
            self.o_v.d.next = self.offer.val();
        }
        self.tx_data.next = self.o_data.q.val();
        self.tx_keep.next = self.o_keep.q.val();
        self.tx_last.next = self.o_last.q.val();
        self.tx_valid.next = self.o_v.q.val();
        self.tx_conn.next = self.term_conn.val();
        self.tx_len.next = bit_cast::<16, 7>(self.len_q.q.val());
        self.term_done.next = self.done_q.q.val();
        self.term_done_conn.next = self.term_conn.val();
        self.term_done_slot.next = self.term_slot.val();
    }
}

crate::sim_ports!(impl[] TerminateTx {
    inputs: term_valid, term_conn, term_slot, term_layer, term_etype, term_code, term_m, term_d,
        term_r, term_seglen, hdr_b_data, tx_ready;
    outputs: term_ready, hdr_b_addr, tx_data, tx_keep, tx_last, tx_valid, tx_conn, tx_len,
        term_done, term_done_conn, term_done_slot;
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generates_verilog() {
        let v = crate::catalog::top_verilog(TerminateTx::default());
        assert!(v.contains("module top"));
    }
}
