//! `rnic bench`: the figures of BENCHMARKS.md, measured.

use anyhow::{anyhow, Result};
use rand::SeedableRng;
use rnic_bsp::Board;
use rnic_hdl::catalog::BlockKind;
use rnic_hdl::crc::Crc32c;
use rnic_hdl::ports::SimPorts;
use rnic_sim::tb::crc32c::Crc32cTb;
use rnic_sim::tb::{mpa_loopback, mpa_rx, mpa_tx};
use rnic_sim::testbench::{Backend, BackendKind};
use std::path::PathBuf;
use std::time::Instant;

/// The workspace's target directory (`$CARGO_TARGET_DIR`, else `target` at the workspace root).
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

/// Simulation speed of one back end on the CRC-32C block.
#[derive(Clone, Debug)]
pub struct SimSpeed {
    pub backend: &'static str,
    pub width: usize,
    pub cycles: u64,
    pub seconds: f64,
}

impl SimSpeed {
    pub fn cycles_per_second(&self) -> f64 {
        self.cycles as f64 / self.seconds
    }
}

/// Runs the CRC-32C testbench (packets of 0..2000 bytes, 20% idle cycles; the same seeded
/// stimulus on both back ends) for at least `cycles` cycles and times it, testbench included.
/// The model build (Verilator compile, or reuse from its cache) is not timed; the Verilator
/// model is built without tracing.
pub fn measure_crc32c<B: SimPorts + Default + 'static>(
    kind: BackendKind,
    width: usize,
    cycles: u64,
) -> Result<SimSpeed> {
    let mut sim: Box<dyn Backend> = kind.build_untraced(B::default())?;
    let tb = Crc32cTb::new(sim.as_ref(), width)?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(2024);
    let packets: Vec<Vec<u8>> = (0..64)
        .map(|i| (0..(i * 31 % 2000)).map(|j| (i * 7 + j) as u8).collect())
        .collect();
    let start = Instant::now();
    while sim.cycles() < cycles {
        let crcs = tb.run(sim.as_mut(), &packets, 0.2, &mut rng);
        if crcs.len() != packets.len() {
            return Err(anyhow!("the CRC block lost packets during the benchmark"));
        }
    }
    Ok(SimSpeed {
        backend: kind.name(),
        width,
        cycles: sim.cycles(),
        seconds: start.elapsed().as_secs_f64(),
    })
}

fn measure_width(kind: BackendKind, width: usize, cycles: u64) -> Result<SimSpeed> {
    match width {
        8 => measure_crc32c::<Crc32c<8, 1>>(kind, width, cycles),
        32 => measure_crc32c::<Crc32c<32, 4>>(kind, width, cycles),
        64 => measure_crc32c::<Crc32c<64, 8>>(kind, width, cycles),
        _ => Err(anyhow!("no CRC benchmark at width {width}")),
    }
}

/// Prints the simulation-speed table.
pub fn print_sim_table(verilator_cycles: u64) -> Result<()> {
    println!("## Simulation speed: CRC-32C block, same stimulus on both back ends\n");
    println!("| width | back end | cycles | seconds | cycles/s |");
    println!("|---:|---|---:|---:|---:|");
    for width in [8, 32, 64] {
        let mut speeds = Vec::new();
        for kind in BackendKind::ALL {
            let cycles = match kind {
                BackendKind::RustHdl => (verilator_cycles / 100).max(1000),
                BackendKind::Verilator => verilator_cycles,
            };
            let s = measure_width(kind, width, cycles)?;
            println!(
                "| {} | {} | {} | {:.3} | {:.0} |",
                s.width,
                s.backend,
                s.cycles,
                s.seconds,
                s.cycles_per_second()
            );
            speeds.push(s);
        }
        println!(
            "| {width} | verilator / rust-hdl | | | {:.0}x |",
            speeds[1].cycles_per_second() / speeds[0].cycles_per_second()
        );
    }
    println!();
    Ok(())
}

/// Prints the MPA throughput tables: transmit (LLP and ULPDU beats per cycle, markers off and
/// on) and receive (LLP beats per cycle), at full speed on the Verilator back end. Every run is
/// checked against the golden `Framer` / `Deframer` on the way.
pub fn print_mpa_table() -> Result<()> {
    println!("## MPA transmit: one connection, CRC on, LLP always ready (Verilator)\n");
    println!("| ULPDU bytes | markers | ULPDUs | LLP beats/cycle | ULPDU beats/cycle | LLP beats per ULPDU beat |");
    println!("|---:|---|---:|---:|---:|---:|");
    for t in mpa_tx::measure_throughput_table(BackendKind::Verilator)? {
        println!(
            "| {} | {} | {} | {:.4} | {:.4} | {:.4} |",
            t.ulpdu_len,
            if t.markers { "on" } else { "off" },
            t.ulpdus,
            t.llp_beats_per_cycle,
            t.input_beats_per_cycle,
            t.overhead
        );
    }
    println!();
    println!(
        "## MPA receive: one connection, CRC on, markers off, 9000-byte segments (Verilator)\n"
    );
    println!("| ULPDU bytes | LLP beats | cycles | LLP beats/cycle |");
    println!("|---:|---:|---:|---:|");
    for len in mpa_rx::BENCH_ULPDU_SIZES {
        let t = mpa_rx::measure_beats_per_cycle(BackendKind::Verilator, len, 1 << 20)?;
        println!(
            "| {} | {} | {} | {:.4} |",
            t.ulpdu_len,
            t.beats,
            t.cycles,
            t.beats_per_cycle()
        );
    }
    println!();
    println!("## MPA receive: four connections interleaved, 1 KiB ULPDUs, CRC on (Verilator)\n");
    println!("| segment bytes | LLP beats | cycles | LLP beats/cycle |");
    println!("|---:|---:|---:|---:|");
    for segment in [64, 256, 1460, 9000] {
        let t = mpa_rx::measure_interleaved(BackendKind::Verilator, 1024, 4, segment, 1 << 18)?;
        println!(
            "| {segment} | {} | {} | {:.4} |",
            t.beats,
            t.cycles,
            t.beats_per_cycle()
        );
    }
    println!();
    println!("## MPA transmit and receive at once: TX LLP output into RX LLP input (Verilator)\n");
    println!("| ULPDU bytes | markers | ULPDUs | cycles | TX ULPDU beats/cycle | LLP beats/cycle | RX ULPDU beats/cycle |");
    println!("|---:|---|---:|---:|---:|---:|---:|");
    for markers in [false, true] {
        let max = if markers {
            mpa_tx::max_ulpdu_with_markers()
        } else {
            65535
        };
        for (len, count) in [(64, 2000), (1024, 200), (max, 4)] {
            let t = mpa_loopback::measure_loopback(BackendKind::Verilator, len, markers, count)?;
            println!(
                "| {} | {} | {} | {} | {:.4} | {:.4} | {:.4} |",
                t.ulpdu_len,
                if markers { "on" } else { "off" },
                t.ulpdus,
                t.cycles,
                t.tx_ulpdu_beats_per_cycle,
                t.llp_beats_per_cycle,
                t.rx_ulpdu_beats_per_cycle
            );
        }
    }
    println!();
    Ok(())
}

/// Prints the synthesis table on the Alchitry Cu: the CRC-32C block at 8, 32 and 64 bits and the
/// MPA transmit and receive blocks at 32 bits.
pub fn print_synth_table() -> Result<()> {
    let board = Board::AlchitryCu;
    println!(
        "## Synthesis on {} (yosys + nextpnr-ice40 --freq 100)\n",
        board.name()
    );
    println!("| block | width | logic cells (total, incl. harness) | of which harness (at most) | block RAMs | Fmax MHz | 100 MHz met |");
    println!("|---|---:|---:|---:|---:|---:|---|");
    let builds = [
        (BlockKind::Crc32c, 8),
        (BlockKind::Crc32c, 32),
        (BlockKind::Crc32c, 64),
        (BlockKind::MpaTx, 32),
        (BlockKind::MpaRx, 32),
    ];
    for (block, width) in builds {
        let verilog = block.verilog(width).map_err(|e| anyhow!(e))?;
        let dir = target_dir()
            .join("synth")
            .join(format!("{}_w{width}", block.name()));
        let r = rnic_bsp::synthesize(&verilog, board, &dir)?;
        println!(
            "| {} | {width} | {} / {} | {} | {} / {} | {:.1} | {} |",
            block.name(),
            r.logic_cells_used,
            r.logic_cells_total,
            r.harness_logic_cells,
            r.bram_used,
            r.bram_total,
            r.fmax_mhz,
            if r.timing_met { "yes" } else { "no" }
        );
    }
    println!();
    Ok(())
}
