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
            for (i, (xm, dm)) in m.folded(D).into_iter().enumerate() {
                // Masked reduction XORs: the same logic for synthesis, and word-wide
                // AND + parity for Verilator instead of one bit select per term.
                let mut terms = Vec::new();
                if xm != 0 {
                    terms.push(format!("(^(x{k} & 32'h{xm:08x}))"));
                }
                if dm != 0 {
                    terms.push(format!("(^(data & {D}'h{dm:0w$x}))", w = D / 4));
                }
                let expr = if terms.is_empty() {
                    "1'b0".to_string()
                } else {
                    terms.join(" ^ ")
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
