//! Combinational CRC-32C next-state network over one beat, honouring `keep`.
//!
//! A leaf block: its Verilog is the XOR matrix of [`super::lfsr::UpdateMatrix`] in its folded form
//! (the state XORed with the data bits that meet it first, then one XOR tree per bit over that and
//! the remaining data), one tap per byte count 0..=K, selected by a one-hot decode of the
//! contiguous `keep` (byte 0 in the most significant lane). Its simulation model is the independent
//! byte-serial update, so the two-back-end equivalence test checks the emitted matrix against it
//! every cycle.

use super::lfsr::{beat_bytes, update_bytes, UpdateMatrix};
use crate::config::check_widths;
use rust_hdl::prelude::*;
use std::fmt::Write;

/// Next CRC register (raw, no init or xor-out) after the bytes of `data` that `keep` marks.
#[derive(LogicBlock)]
pub struct Crc32cUpdate<const D: usize, const K: usize> {
    /// Current raw register.
    pub state: Signal<In, Bits<32>>,
    /// The beat, byte 0 in bits `D-1..D-8`.
    pub data: Signal<In, Bits<D>>,
    /// One bit per lane, contiguous from the most significant lane.
    pub keep: Signal<In, Bits<K>>,
    /// Raw register after the kept bytes.
    pub next_state: Signal<Out, Bits<32>>,
}

impl<const D: usize, const K: usize> Default for Crc32cUpdate<D, K> {
    fn default() -> Self {
        check_widths(D, K);
        Self {
            state: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            next_state: Default::default(),
        }
    }
}

/// One-hot select of tap `k` (k kept bytes) from a contiguous keep: lane `k-1` kept and
/// lane `k` not (lane `i` is keep bit `K-1-i`).
fn tap_selected(keep: u128, lanes: usize, k: usize) -> bool {
    let kept = |lane: usize| lane < lanes && keep >> (lanes - 1 - lane) & 1 == 1;
    (k == 0 || kept(k - 1)) && !kept(k)
}

/// The folded matrix's rows as lists of terms: `x` bit `s` is term `s` (0..32), data bit `p`
/// is term `32 + p`.
fn term_rows(folded: &[(u32, u128)], data_bits: usize) -> Vec<Vec<usize>> {
    folded
        .iter()
        .map(|&(xm, dm)| {
            let xs = (0..32).filter(move |&s| xm >> s & 1 == 1);
            let ds = (0..data_bits)
                .filter(move |&p| dm >> p & 1 == 1)
                .map(|p| 32 + p);
            xs.chain(ds).collect()
        })
        .collect()
}

/// Shares XOR pairs among the rows (Paar's greedy heuristic): while some pair of terms occurs in
/// two rows or more, the most frequent one (the lowest pair on a tie) becomes a new term `next`,
/// `next + 1`, ... in every row that has both. Returns the pairs, in order, and the rows over the
/// remaining terms. The 32-bit full-beat matrix (534 terms over `x`) goes from 502 two-input
/// XORs to 74 shared ones plus 150 in the rows; yosys / abc does not find that sharing itself
/// (`docs/decisions.md`, "CRC-32C: shared XOR pairs").
fn shared_pairs(
    mut rows: Vec<Vec<usize>>,
    mut next: usize,
) -> (Vec<(usize, usize)>, Vec<Vec<usize>>) {
    let mut pairs = Vec::new();
    loop {
        let mut count: std::collections::BTreeMap<(usize, usize), usize> = Default::default();
        for row in &rows {
            let mut r = row.clone();
            r.sort_unstable();
            for i in 0..r.len() {
                for j in i + 1..r.len() {
                    *count.entry((r[i], r[j])).or_default() += 1;
                }
            }
        }
        // the most frequent pair, the lowest one on a tie (BTreeMap order)
        let mut best: Option<((usize, usize), usize)> = None;
        for (&pair, &c) in &count {
            if c >= 2 && best.is_none_or(|(_, bc)| c > bc) {
                best = Some((pair, c));
            }
        }
        let Some(((a, b), _)) = best else {
            return (pairs, rows);
        };
        for row in rows.iter_mut() {
            if row.contains(&a) && row.contains(&b) {
                row.retain(|&t| t != a && t != b);
                row.push(next);
            }
        }
        pairs.push((a, b));
        next += 1;
    }
}

impl<const D: usize, const K: usize> Logic for Crc32cUpdate<D, K> {
    fn update(&mut self) {
        let keep = self.keep.val().to_u128();
        let data = self.data.val().to_u128();
        let lanes: Vec<u8> = beat_bytes(data, D).collect();
        let state = self.state.val().to_u32();
        let next = (0..=K)
            .filter(|&k| tap_selected(keep, K, k))
            .fold(0, |acc, k| acc | update_bytes(state, &lanes[..k]));
        self.next_state.next = (next as u64).into();
    }

    fn connect(&mut self) {
        self.next_state.connect();
    }

    fn hdl(&self) -> Verilog {
        let mut v = String::new();
        let _ = writeln!(
            v,
            "// CRC-32C (reflected 0x82F63B78) over the first k bytes, k = 0..{K}."
        );
        for k in 0..=K {
            let m = UpdateMatrix::new(D, k);
            // x = state ^ the data bits XORed into it before any shift (`UpdateMatrix::folded`)
            let _ = writeln!(v, "wire [31:0] x{k};");
            for s in 0..32 {
                let pair = match m.paired_data_bit(D, s) {
                    Some(p) => format!(" ^ data[{p}]"),
                    None => String::new(),
                };
                let _ = writeln!(v, "assign x{k}[{s}] = state[{s}]{pair};");
            }
            let _ = writeln!(v, "wire [31:0] tap{k};");
            // Terms: x bit s is 0..32, data bit p is 32 + p, shared pairs 32 + D + n.
            let (pairs, rows) = shared_pairs(term_rows(&m.folded(D), D), 32 + D);
            let name = |t: usize| match t {
                t if t < 32 => format!("x{k}[{t}]"),
                t if t < 32 + D => format!("data[{}]", t - 32),
                t => format!("c{k}_{}", t - 32 - D),
            };
            for (n, &(a, b)) in pairs.iter().enumerate() {
                let _ = writeln!(v, "wire c{k}_{n} = {} ^ {};", name(a), name(b));
            }
            for (i, row) in rows.iter().enumerate() {
                let expr = if row.is_empty() {
                    "1'b0".to_string()
                } else {
                    row.iter().map(|&t| name(t)).collect::<Vec<_>>().join(" ^ ")
                };
                let _ = writeln!(v, "assign tap{k}[{i}] = {expr};");
            }
            // keep bit of lane i is keep[K-1-i]; a one-bit port has no range to select from
            let kept = |lane: usize| match K {
                1 => "keep".to_string(),
                _ => format!("keep[{}]", K - 1 - lane),
            };
            let sel = match k {
                0 => format!("~{}", kept(0)),
                k if k == K => kept(K - 1),
                k => format!("{} & ~{}", kept(k - 1), kept(k)),
            };
            let _ = writeln!(v, "wire sel{k} = {sel};");
        }
        let mux: Vec<String> = (0..=K)
            .map(|k| format!("({{32{{sel{k}}}}} & tap{k})"))
            .collect();
        let _ = writeln!(
            v,
            "always @(*) begin\n   next_state = {};\nend",
            mux.join(" | ")
        );
        Verilog::Custom(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shared pairs and the rows over them compute the folded matrix's rows, for every
    /// byte count of the 32-bit beat (evaluated on random `x` and data).
    #[test]
    fn shared_pairs_keep_every_row() {
        let mut seed = 0x1234_5678_9abc_def0_u64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for k in 0..=4 {
            let m = UpdateMatrix::new(32, k);
            let folded = m.folded(32);
            let (pairs, shared) = shared_pairs(term_rows(&folded, 32), 64);
            for _ in 0..64 {
                let (x, data) = (rnd() as u32, u128::from(rnd() as u32));
                let mut val: Vec<bool> = (0..32).map(|s| x >> s & 1 == 1).collect();
                val.extend((0..32).map(|p| data >> p & 1 == 1));
                for &(a, b) in &pairs {
                    val.push(val[a] ^ val[b]);
                }
                for (i, &(xm, dm)) in folded.iter().enumerate() {
                    let want = ((x & xm).count_ones() + (data & dm).count_ones()) & 1 == 1;
                    let got = shared[i].iter().fold(false, |acc, &t| acc ^ val[t]);
                    assert_eq!(got, want, "k {k} row {i}");
                }
            }
        }
    }
}
