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
//!
//! The kept octets are stored in their word lanes (lane j holds the octet at stream offset
//! j mod 4), one register per lane: a beat rotated by `count` lanes (`rot`) puts each of its
//! octets in its lane, so a consumed beat loads `rot`'s lanes into the lanes it writes (all
//! three when a word completes, the lanes from `count` on when none does) and the others keep
//! theirs. The word is the kept lanes below `count` and `rot`'s from `count` on. So the kept
//! registers load `rot`, not the word: the word's LUTs feed only the S1 register that takes it
//! (a word that was also the next partial word cost its 24 flip-flops a logic cell each).

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
    /// Kept octets of each connection, by word lane (lane 0 = bits 31..24 of the word, lanes 1
    /// and 2): the lanes below `offset mod 4` are the partial word.
    kept0: [DFF<Bits<8>>; CONNECTIONS],
    kept1: [DFF<Bits<8>>; CONNECTIONS],
    kept2: [DFF<Bits<8>>; CONNECTIONS],
    /// Stream offset mod 512 of each connection's next octet; bits 1..0 count the kept octets.
    offset: [DFF<Bits<9>>; CONNECTIONS],
    ck0: Signal<Local, Bits<8>>,
    ck1: Signal<Local, Bits<8>>,
    ck2: Signal<Local, Bits<8>>,
    cur_kept: Signal<Local, Bits<24>>,
    /// The beat rotated right by `count` lanes: its octet k in lane `count + k mod 4`.
    rot: Signal<Local, Bits<32>>,
    cur_offset: Signal<Local, Bits<9>>,
    count: Signal<Local, Bits<2>>,
    beat_len: Signal<Local, Bits<3>>,
    kept32: Signal<Local, Bits<32>>,
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
            kept0: core::array::from_fn(|_| Default::default()),
            kept1: core::array::from_fn(|_| Default::default()),
            kept2: core::array::from_fn(|_| Default::default()),
            offset: core::array::from_fn(|_| Default::default()),
            ck0: Default::default(),
            ck1: Default::default(),
            ck2: Default::default(),
            cur_kept: Default::default(),
            rot: Default::default(),
            cur_offset: Default::default(),
            count: Default::default(),
            beat_len: Default::default(),
            kept32: Default::default(),
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
            self.kept0[i].clock.next = self.clock.val();
            self.kept0[i].d.next = self.kept0[i].q.val();
            self.kept1[i].clock.next = self.clock.val();
            self.kept1[i].d.next = self.kept1[i].q.val();
            self.kept2[i].clock.next = self.clock.val();
            self.kept2[i].d.next = self.kept2[i].q.val();
            self.offset[i].clock.next = self.clock.val();
            self.offset[i].d.next = self.offset[i].q.val();
        }
        // The connection's context.
        self.ck0.next = self.kept0[0].q.val();
        self.ck1.next = self.kept1[0].q.val();
        self.ck2.next = self.kept2[0].q.val();
        self.cur_offset.next = self.offset[0].q.val();
        for i in 1..CONNECTIONS {
            if self.conn.val().index() == i {
                self.ck0.next = self.kept0[i].q.val();
                self.ck1.next = self.kept1[i].q.val();
                self.ck2.next = self.kept2[i].q.val();
                self.cur_offset.next = self.offset[i].q.val();
            }
        }
        self.cur_kept.next = (bit_cast::<24, 8>(self.ck0.val()) << 16)
            | (bit_cast::<24, 8>(self.ck1.val()) << 8)
            | bit_cast::<24, 8>(self.ck2.val());
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
        // The beat's octets in their lanes, and the word: `count` kept octets, then the beat's
        // first 4 - `count` octets.
        self.rot.next = self.data.val();
        self.word.next = self.data.val();
        if self.count.val() == 1 {
            self.rot.next = (self.data.val() >> 8) | (self.data.val() << 24);
            self.word.next = (self.kept32.val() & self.mask1.val()) | (self.data.val() >> 8);
        } else if self.count.val() == 2 {
            self.rot.next = (self.data.val() >> 16) | (self.data.val() << 16);
            self.word.next = (self.kept32.val() & self.mask2.val()) | (self.data.val() >> 16);
        } else if self.count.val() == 3 {
            self.rot.next = (self.data.val() >> 24) | (self.data.val() << 8);
            self.word.next = (self.kept32.val() & self.mask3.val()) | (self.data.val() >> 24);
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
        self.next_offset.next = self.cur_offset.val() + bit_cast::<9, 3>(self.beat_len.val());
        // The word being completed starts at offset & !3; a marker sits at offset 0 mod 512.
        self.at_marker.next = self.markers.val() && (self.cur_offset.val().get_bits::<7>(2) == 0);
        for i in 0..CONNECTIONS {
            // A restart clears the offset, so no octet is kept (the kept lanes are don't-care).
            if self.reset.val() && (self.reset_conn.val().index() == i) {
                self.offset[i].d.next = 0.into();
            } else if self.consume.val() && (self.conn.val().index() == i) {
                self.offset[i].d.next = self.next_offset.val();
                // The lanes this beat writes: all when a word completes (the next partial
                // word's octets are in lanes 0..), else the lanes from `count` on (those
                // past the beat's octets are don't-care: beyond the new `count`).
                if self.word_valid.val() || (self.count.val() == 0) {
                    self.kept0[i].d.next = self.rot.val().get_bits::<8>(24);
                }
                if self.word_valid.val() || (self.count.val() <= 1) {
                    self.kept1[i].d.next = self.rot.val().get_bits::<8>(16);
                }
                if self.word_valid.val() || (self.count.val() <= 2) {
                    self.kept2[i].d.next = self.rot.val().get_bits::<8>(8);
                }
            }
        }
    }
}
