//! Word realigner of the MPA receive block: per connection, the LLP byte stream back to 4-octet
//! words aligned to MPA stream offsets (`mpa-peer-connect.md` §5.1, §5.3: FPDU boundaries,
//! markers and CRC fields are all 4-aligned in stream space).
//!
//! Segments cut the stream at any byte and start in lane 0, so a word can span two segments,
//! possibly with other connections' segments between them. Each connection keeps its partial
//! word (up to 3 octets) and its stream offset modulo 512 (whose two low bits are the number of
//! octets kept); a beat of up to 4 octets plus at most 3 kept octets completes at most one word,
//! so the realigner takes one beat per cycle and gives at most one word per cycle.
//!
//! The context is indexed by the beat's connection directly (no switch cost). The block is
//! combinational from the beat to the word; the connection's context advances on the clock edge
//! when `consume` is high. Written for the 32-bit Cu datapath: 4 lanes.

use crate::config::{CONNECTIONS, CONN_BITS};
use rust_hdl::prelude::*;

/// Per-connection 32-bit word realigner (4 byte lanes, byte 0 in lane 0 = bits 31..24).
#[derive(LogicBlock)]
pub struct RxRealigner {
    pub clock: Signal<In, Clock>,
    /// The LLP beat: data, contiguous keep from lane 0 (keep bit 3 = lane 0), connection.
    pub data: Signal<In, Bits<32>>,
    pub keep: Signal<In, Bits<4>>,
    pub conn: Signal<In, Bits<CONN_BITS>>,
    /// Markers are on for `conn`: flag words at stream offsets ≡ 0 mod 512.
    pub markers: Signal<In, Bit>,
    /// The beat is consumed this cycle: `conn`'s partial word and offset advance.
    pub consume: Signal<In, Bit>,
    /// Restart connection `reset_conn` at stream offset 0 with no partial word (FPDU mode entry).
    pub reset: Signal<In, Bit>,
    pub reset_conn: Signal<In, Bits<CONN_BITS>>,
    /// A word completes with this beat.
    pub word_valid: Signal<Out, Bit>,
    /// The completed word: the kept octets first, then the beat's.
    pub word: Signal<Out, Bits<32>>,
    /// The word is at a marker position (markers on and stream offset ≡ 0 mod 512).
    pub at_marker: Signal<Out, Bit>,
    /// Kept octets of each connection, the first in bits 23..16.
    kept: [DFF<Bits<24>>; CONNECTIONS],
    /// Stream offset mod 512 of each connection's next octet; bits 1..0 count the kept octets.
    offset: [DFF<Bits<9>>; CONNECTIONS],
    cur_kept: Signal<Local, Bits<24>>,
    cur_offset: Signal<Local, Bits<9>>,
    count: Signal<Local, Bits<2>>,
    beat_len: Signal<Local, Bits<3>>,
    kept32: Signal<Local, Bits<32>>,
    next_kept: Signal<Local, Bits<24>>,
    next_offset: Signal<Local, Bits<9>>,
    mask1: Constant<Bits<32>>,
    mask2: Constant<Bits<32>>,
    mask3: Constant<Bits<32>>,
}

impl Default for RxRealigner {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            conn: Default::default(),
            markers: Default::default(),
            consume: Default::default(),
            reset: Default::default(),
            reset_conn: Default::default(),
            word_valid: Default::default(),
            word: Default::default(),
            at_marker: Default::default(),
            kept: core::array::from_fn(|_| Default::default()),
            offset: core::array::from_fn(|_| Default::default()),
            cur_kept: Default::default(),
            cur_offset: Default::default(),
            count: Default::default(),
            beat_len: Default::default(),
            kept32: Default::default(),
            next_kept: Default::default(),
            next_offset: Default::default(),
            // maskN: the lanes taken from the kept octets when N octets are kept.
            mask1: Constant::new(0xFF00_0000_u64.into()),
            mask2: Constant::new(0xFFFF_0000_u64.into()),
            mask3: Constant::new(0xFFFF_FF00_u64.into()),
        }
    }
}

impl Logic for RxRealigner {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..CONNECTIONS {
            self.kept[i].clock.next = self.clock.val();
            self.kept[i].d.next = self.kept[i].q.val();
            self.offset[i].clock.next = self.clock.val();
            self.offset[i].d.next = self.offset[i].q.val();
        }
        // The connection's context.
        self.cur_kept.next = self.kept[0].q.val();
        self.cur_offset.next = self.offset[0].q.val();
        for i in 1..CONNECTIONS {
            if self.conn.val().index() == i {
                self.cur_kept.next = self.kept[i].q.val();
                self.cur_offset.next = self.offset[i].q.val();
            }
        }
        self.count.next = self.cur_offset.val().get_bits::<2>(0);
        // Octets in the beat (keep is contiguous from lane 0).
        self.beat_len.next = 0.into();
        if self.keep.val().get_bit(0) {
            self.beat_len.next = 4.into();
        } else if self.keep.val().get_bit(1) {
            self.beat_len.next = 3.into();
        } else if self.keep.val().get_bit(2) {
            self.beat_len.next = 2.into();
        } else if self.keep.val().get_bit(3) {
            self.beat_len.next = 1.into();
        }
        self.kept32.next = bit_cast::<32, 24>(self.cur_kept.val()) << 8;
        // The word: `count` kept octets, then the beat's first 4 - `count` octets. With fewer
        // than 4 octets in all, its first three lanes are the new partial word.
        self.word.next = self.data.val();
        self.next_kept.next = self.data.val().get_bits::<24>(8);
        if self.count.val() == 1 {
            self.word.next = (self.kept32.val() & self.mask1.val()) | (self.data.val() >> 8);
            self.next_kept.next = self.data.val().get_bits::<24>(0) << 16;
        } else if self.count.val() == 2 {
            self.word.next = (self.kept32.val() & self.mask2.val()) | (self.data.val() >> 16);
            self.next_kept.next = self.data.val().get_bits::<24>(0) << 8;
        } else if self.count.val() == 3 {
            self.word.next = (self.kept32.val() & self.mask3.val()) | (self.data.val() >> 24);
            self.next_kept.next = self.data.val().get_bits::<24>(0);
        }
        // A word completes when the kept and the beat's octets make 4 or more (keep is
        // contiguous: keep bit 3 - n is set when the beat has more than n octets).
        self.word_valid.next = self.keep.val().get_bit(0);
        if self.count.val() == 1 {
            self.word_valid.next = self.keep.val().get_bit(1);
        } else if self.count.val() == 2 {
            self.word_valid.next = self.keep.val().get_bit(2);
        } else if self.count.val() == 3 {
            self.word_valid.next = self.keep.val().get_bit(3);
        }
        if !self.word_valid.val() {
            self.next_kept.next = self.word.val().get_bits::<24>(8);
        }
        self.next_offset.next = self.cur_offset.val() + bit_cast::<9, 3>(self.beat_len.val());
        // The word being completed starts at offset & !3; a marker sits at offset 0 mod 512.
        self.at_marker.next = self.markers.val() && (self.cur_offset.val().get_bits::<7>(2) == 0);
        for i in 0..CONNECTIONS {
            // A restart clears the offset, so no octet is kept (the kept lanes are don't-care).
            if self.reset.val() && (self.reset_conn.val().index() == i) {
                self.offset[i].d.next = 0.into();
            } else if self.consume.val() && (self.conn.val().index() == i) {
                self.kept[i].d.next = self.next_kept.val();
                self.offset[i].d.next = self.next_offset.val();
            }
        }
    }
}
