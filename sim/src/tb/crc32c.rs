//! Driver and monitor for [`rnic_hdl::crc::Crc32c`].

use crate::stream::packet_beats;
use crate::testbench::{Backend, InputId, OutputId};
use anyhow::Result;
use rand::Rng;

/// Drives packets into a CRC-32C block and collects the CRCs it reports.
pub struct Crc32cTb {
    width: usize,
    data: InputId,
    keep: InputId,
    last: InputId,
    valid: InputId,
    crc: OutputId,
    crc_valid: OutputId,
}

impl Crc32cTb {
    /// Resolves the block's ports on `sim`, a `width`-bit CRC-32C block.
    pub fn new(sim: &dyn Backend, width: usize) -> Result<Self> {
        Ok(Crc32cTb {
            width,
            data: sim.input("data")?,
            keep: sim.input("keep")?,
            last: sim.input("last")?,
            valid: sim.input("valid")?,
            crc: sim.output("crc")?,
            crc_valid: sim.output("crc_valid")?,
        })
    }

    /// Sends `packets` back to back; before each beat, an idle cycle (valid low, random data on
    /// the bus) is inserted with probability `idle`. Returns every CRC the block reported, in order.
    pub fn run(
        &self,
        sim: &mut dyn Backend,
        packets: &[Vec<u8>],
        idle: f64,
        rng: &mut impl Rng,
    ) -> Vec<u32> {
        let mut crcs = Vec::with_capacity(packets.len());
        let sample = |sim: &mut dyn Backend, crcs: &mut Vec<u32>| {
            if sim.get(self.crc_valid) == 1 {
                crcs.push(sim.get(self.crc) as u32);
            }
        };
        for packet in packets {
            for beat in packet_beats(packet, self.width) {
                while idle > 0.0 && rng.gen_bool(idle) {
                    sim.set(self.valid, 0);
                    sim.set(self.data, rng.gen());
                    sim.set(self.last, u128::from(rng.gen::<bool>()));
                    sim.tick();
                    sample(sim, &mut crcs);
                }
                sim.set(self.data, beat.data);
                sim.set(self.keep, beat.keep);
                sim.set(self.last, u128::from(beat.last));
                sim.set(self.valid, 1);
                sim.tick();
                sample(sim, &mut crcs);
            }
        }
        sim.set(self.valid, 0);
        for _ in 0..2 {
            sim.tick();
            sample(sim, &mut crcs);
        }
        crcs
    }
}
