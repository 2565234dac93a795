//! How a testbench reaches a block's ports without knowing the block: [`SimPorts`] lists the
//! input and output port names (as they appear in the generated Verilog) and sets or reads them
//! by index, with values as `u128`. Each block implements it beside its definition with
//! [`sim_ports!`](crate::sim_ports), and the simulation back ends in `rnic-sim` drive any block through it.

use rust_hdl::prelude::*;

/// A port value that converts to and from `u128` (ports of up to 128 bits).
pub trait PortValue {
    fn from_u128(value: u128) -> Self;
    fn to_u128(&self) -> u128;
}

impl PortValue for bool {
    fn from_u128(value: u128) -> Self {
        value & 1 == 1
    }
    fn to_u128(&self) -> u128 {
        u128::from(*self)
    }
}

impl<const N: usize> PortValue for Bits<N> {
    fn from_u128(value: u128) -> Self {
        if N <= 64 {
            let v = if N == 64 {
                value as u64
            } else {
                value as u64 & ((1u64 << N) - 1)
            };
            v.into()
        } else {
            // Bits of more than 64 bits convert through two 64-bit halves.
            let mut b = Bits::<N>::default();
            b.set_bits::<64>(0, (value as u64).into());
            let hi = (value >> 64) as u64;
            let hi = if N >= 128 {
                hi
            } else {
                hi & ((1u64 << (N - 64)) - 1)
            };
            for i in 0..N.saturating_sub(64).min(64) {
                b = b.replace_bit(64 + i, hi >> i & 1 == 1);
            }
            b
        }
    }
    fn to_u128(&self) -> u128 {
        Bits::<N>::to_u128(*self)
    }
}

/// Port access by index for a clocked block with one clock input named `clock`.
pub trait SimPorts: Block {
    /// Input port names (Verilog spelling), the clock excluded.
    fn inputs() -> &'static [&'static str];
    /// Output port names (Verilog spelling).
    fn outputs() -> &'static [&'static str];
    /// Sets input `index` (of [`SimPorts::inputs`]) to `value` from the next settle on.
    fn set_input(&mut self, index: usize, value: u128);
    /// Current value of output `index` (of [`SimPorts::outputs`]).
    fn get_output(&self, index: usize) -> u128;
    /// The clock input.
    fn clock_input(&mut self) -> &mut Signal<In, Clock>;
}

/// Implements [`SimPorts`] for a block from the names of its port fields.
///
/// ```ignore
/// sim_ports!(impl[const D: usize, const K: usize] Crc32c<D, K> {
///     inputs: data, keep, last, valid;
///     outputs: crc, crc_valid;
/// });
/// ```
#[macro_export]
macro_rules! sim_ports {
    (impl[$($generics:tt)*] $block:ty { inputs: $($i:ident),* ; outputs: $($o:ident),* $(;)? }) => {
        impl<$($generics)*> $crate::ports::SimPorts for $block {
            fn inputs() -> &'static [&'static str] {
                &[$(stringify!($i)),*]
            }
            fn outputs() -> &'static [&'static str] {
                &[$(stringify!($o)),*]
            }
            #[allow(unused_assignments)]
            fn set_input(&mut self, index: usize, value: u128) {
                let mut n = 0;
                $(
                    if index == n {
                        self.$i.next = $crate::ports::PortValue::from_u128(value);
                        return;
                    }
                    n += 1;
                )*
                panic!("input index {index} out of range");
            }
            #[allow(unused_assignments)]
            fn get_output(&self, index: usize) -> u128 {
                let mut n = 0;
                $(
                    if index == n {
                        return $crate::ports::PortValue::to_u128(&self.$o.val());
                    }
                    n += 1;
                )*
                panic!("output index {index} out of range");
            }
            fn clock_input(&mut self) -> &mut Signal<In, Clock> {
                &mut self.clock
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_values_round_trip() {
        let v: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
        assert_eq!(Bits::<128>::from_u128(v).to_u128(), v);
        assert_eq!(Bits::<64>::from_u128(v).to_u128(), v as u64 as u128);
        assert_eq!(Bits::<8>::from_u128(0x1ff).to_u128(), 0xff);
        assert_eq!(Bits::<96>::from_u128(v).to_u128(), v & ((1u128 << 96) - 1));
        assert!(bool::from_u128(3));
    }
}
