//! Lock-step comparison of two back ends: the same inputs every cycle, every output compared
//! after every cycle.

use crate::testbench::{Backend, InputId, OutputId};

/// The first difference found between two back ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub cycle: u64,
    pub port: &'static str,
    pub values: [u128; 2],
}

/// Runs `cycles` cycles on `a` and `b`, with every input set each cycle from
/// `stimulus(cycle, input_index)`, and compares every output after reset and after every tick.
pub fn lockstep(
    a: &mut dyn Backend,
    b: &mut dyn Backend,
    cycles: u64,
    mut stimulus: impl FnMut(u64, usize) -> u128,
) -> Result<(), Mismatch> {
    assert_eq!(
        a.input_names(),
        b.input_names(),
        "both back ends must simulate the same block"
    );
    let outputs = a.output_names();
    let compare = |a: &mut dyn Backend, b: &mut dyn Backend, cycle: u64| {
        for (i, &port) in outputs.iter().enumerate() {
            let values = [a.get(OutputId(i)), b.get(OutputId(i))];
            if values[0] != values[1] {
                return Err(Mismatch {
                    cycle,
                    port,
                    values,
                });
            }
        }
        Ok(())
    };
    compare(a, b, 0)?;
    for cycle in 0..cycles {
        for i in 0..a.input_names().len() {
            let v = stimulus(cycle, i);
            a.set(InputId(i), v);
            b.set(InputId(i), v);
        }
        // Combinational outputs first, then the state after the edge.
        compare(a, b, cycle)?;
        a.tick();
        b.tick();
        compare(a, b, cycle + 1)?;
    }
    Ok(())
}
