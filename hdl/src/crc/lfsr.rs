//! GF(2) model of the reflected CRC-32C shift register.
//!
//! The register update over `n` bytes is linear in (state, data): every next-state bit is the
//! XOR of some state bits and some data bits. [`UpdateMatrix::new`] finds those bits by
//! superposition, feeding unit vectors through the byte-serial reference [`update_bytes`].
//! Both the hardware (through the emitted Verilog) and its simulation model depend on this file,
//! and the byte-serial model checks the matrix in the tests below.

use rnic_proto::crc32c::POLYNOMIAL_REFLECTED;

/// Raw (no init, no xor-out) reflected CRC-32C register update over `bytes`, byte 0 first,
/// each byte least significant bit first (`mpa-peer-connect.md` §5.2).
pub fn update_bytes(mut state: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        state ^= u32::from(b);
        for _ in 0..8 {
            state = (state >> 1) ^ (POLYNOMIAL_REFLECTED & 0u32.wrapping_sub(state & 1));
        }
    }
    state
}

/// The bytes of a `data_bits`-wide beat, byte 0 from the most significant lane.
pub fn beat_bytes(data: u128, data_bits: usize) -> impl Iterator<Item = u8> {
    let lanes = data_bits / 8;
    (0..lanes).map(move |i| (data >> (8 * (lanes - 1 - i))) as u8)
}

/// For one next-state bit: the state bits and the data-bus bits whose XOR it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Taps {
    /// Bit `j` set: state bit `j` is a term.
    pub state: u32,
    /// Bit `p` set: data-bus bit `p` (Verilog numbering of the `data` port) is a term.
    pub data: u128,
}

/// Next-state taps of a CRC update over the first `bytes` byte lanes of a `data_bits` bus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpdateMatrix {
    /// Number of bytes consumed (counted from byte 0, the most significant lane).
    pub bytes: usize,
    /// `rows[i]`: the terms of next-state bit `i`.
    pub rows: [Taps; 32],
}

impl UpdateMatrix {
    /// Matrix of the update over the first `bytes` lanes of a `data_bits`-wide data bus.
    pub fn new(data_bits: usize, bytes: usize) -> Self {
        assert!(data_bits.is_multiple_of(8) && data_bits <= 128 && bytes * 8 <= data_bits);
        let mut rows = [Taps { state: 0, data: 0 }; 32];
        let zeros = [0u8; 16];
        for j in 0..32 {
            let out = update_bytes(1 << j, &zeros[..bytes]);
            for (i, row) in rows.iter_mut().enumerate() {
                if out >> i & 1 == 1 {
                    row.state |= 1 << j;
                }
            }
        }
        for p in 0..data_bits {
            let lane = data_bits / 8 - 1 - p / 8; // byte index within the beat
            if lane >= bytes {
                continue;
            }
            let mut msg = [0u8; 16];
            msg[lane] = 1 << (p % 8);
            let out = update_bytes(0, &msg[..bytes]);
            for (i, row) in rows.iter_mut().enumerate() {
                if out >> i & 1 == 1 {
                    row.data |= 1 << p;
                }
            }
        }
        UpdateMatrix { bytes, rows }
    }

    /// The data-bus bit XORed into state bit `s` before any shift, if one is: bit `b` of byte
    /// `i` lands on state bit `8 i + b` (`update_bytes` XORs each byte into the low byte and
    /// shifts it down by 8 per byte, so byte `i` meets what was state byte `i`), for the bytes
    /// the update consumes.
    pub fn paired_data_bit(&self, data_bits: usize, s: usize) -> Option<usize> {
        let (lane, bit) = (s / 8, s % 8);
        (lane < self.bytes).then(|| data_bits - 8 * (lane + 1) + bit)
    }

    /// The same update as XORs over `x = state ^ paired data` (see [`Self::paired_data_bit`])
    /// and the data bits without a pair: each pair costs one XOR, shared by every row, instead
    /// of a term in each of about half the rows (`rnic synth --board alchitry-cu --block
    /// crc32c`: 730 → 444 LUT4 at 32 bits; `docs/decisions.md`, "CRC-32C: the state folded
    /// into the data"). Returns `(x_mask, data_mask)` per row.
    pub fn folded(&self, data_bits: usize) -> [(u32, u128); 32] {
        let mut paired = 0u128;
        for s in 0..32 {
            if let Some(p) = self.paired_data_bit(data_bits, s) {
                paired |= 1 << p;
                for t in &self.rows {
                    // the pair's columns are equal, so one term stands for both
                    assert_eq!(t.state >> s & 1, (t.data >> p & 1) as u32);
                }
            }
        }
        self.rows.map(|t| (t.state, t.data & !paired))
    }

    /// Evaluates the folded form of [`Self::folded`]: the model of the emitted XOR network.
    pub fn apply_folded(&self, data_bits: usize, state: u32, data: u128) -> u32 {
        let x = (0..32).fold(state, |x, s| match self.paired_data_bit(data_bits, s) {
            Some(p) => x ^ ((data >> p & 1) as u32) << s,
            None => x,
        });
        self.folded(data_bits)
            .iter()
            .enumerate()
            .fold(0, |acc, (i, &(xm, dm))| {
                let bit = ((x & xm).count_ones() + (data & dm).count_ones()) & 1;
                acc | bit << i
            })
    }

    /// Evaluates the matrix: the model of the emitted XOR network.
    pub fn apply(&self, state: u32, data: u128) -> u32 {
        self.rows.iter().enumerate().fold(0, |acc, (i, t)| {
            let bit = ((state & t.state).count_ones() + (data & t.data).count_ones()) & 1;
            acc | bit << i
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rnic_proto::crc32c::{crc32c, INIT, XOR_OUT};

    #[test]
    fn byte_serial_model_matches_golden_crc() {
        // mpa-peer-connect.md §5.2: init 0xFFFFFFFF, xor-out 0xFFFFFFFF.
        assert_eq!(
            update_bytes(INIT, b"123456789") ^ XOR_OUT,
            crc32c(b"123456789")
        );
    }

    #[test]
    fn matrix_equals_byte_serial_update_for_every_width_and_count() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for data_bits in [8, 32, 64, 128] {
            for bytes in 0..=data_bits / 8 {
                let m = UpdateMatrix::new(data_bits, bytes);
                for _ in 0..200 {
                    let state: u32 = rng.gen();
                    let data: u128 = rng.gen::<u128>() >> (128 - data_bits);
                    let lanes: std::vec::Vec<u8> = beat_bytes(data, data_bits).collect();
                    let want = update_bytes(state, &lanes[..bytes]);
                    assert_eq!(m.apply(state, data), want, "W={data_bits} bytes={bytes}");
                    assert_eq!(
                        m.apply_folded(data_bits, state, data),
                        want,
                        "folded, W={data_bits} bytes={bytes}"
                    );
                }
            }
        }
    }

    #[test]
    fn folding_removes_the_paired_terms() {
        // The full 32-bit beat: every data bit pairs with a state bit, so the rows read only
        // `x`, each with as many terms as it had state terms.
        let m = UpdateMatrix::new(32, 4);
        let folded = m.folded(32);
        for (t, &(xm, dm)) in m.rows.iter().zip(folded.iter()) {
            assert_eq!((xm, dm), (t.state, 0));
        }
        let terms = |m: &UpdateMatrix| -> u32 {
            m.rows
                .iter()
                .map(|t| t.state.count_ones() + t.data.count_ones())
                .sum()
        };
        let folded_terms: u32 = folded
            .iter()
            .map(|(x, d)| x.count_ones() + d.count_ones())
            .sum();
        assert_eq!(2 * folded_terms, terms(&m));
    }
}
