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
    println!("| block | width | logic cells (total, incl. harness) | of which harness (at most) | the block's LUT4 / DFF (yosys) | block RAMs | Fmax MHz | 100 MHz met |");
    println!("|---|---:|---:|---:|---:|---:|---:|---|");
    let builds = [
        (BlockKind::Crc32c, 8),
        (BlockKind::Crc32c, 32),
        (BlockKind::Crc32c, 64),
        (BlockKind::MpaTx, 32),
        (BlockKind::MpaRx, 32),
        (BlockKind::DdpRxParse, 32),
        (BlockKind::StagCheck, 32),
        (BlockKind::RxControl, 32),
        (BlockKind::RxPlace, 32),
        (BlockKind::TerminateTx, 32),
        (BlockKind::RxPath, 32),
        (BlockKind::UlpduMux, 32),
        (BlockKind::TxArbiter, 32),
        (BlockKind::ReadResponder, 32),
        (BlockKind::HostIf, 32),
        (BlockKind::SendEngine, 32),
        (BlockKind::DdpTx, 32),
        (BlockKind::TxPath, 32),
        (BlockKind::CqeQueue, 32),
        (BlockKind::Rnic, 32),
    ];
    for (block, width) in builds {
        let verilog = block.verilog(width).map_err(|e| anyhow!(e))?;
        let dir = target_dir()
            .join("synth")
            .join(format!("{}_w{width}", block.name()));
        let r = match rnic_bsp::synthesize(&verilog, board, &dir) {
            Ok(r) => r,
            Err(e) => {
                // A block too big for the device: nextpnr's utilisation says by how much.
                let log = std::fs::read_to_string(dir.join("nextpnr.log")).unwrap_or_default();
                let used = |what: &str| {
                    log.lines()
                        .find(|l| l.contains(what))
                        .map(|l| l.split(':').nth(2).unwrap_or("").trim().to_string())
                        .unwrap_or_else(|| "?".into())
                };
                let own = std::fs::read_to_string(dir.join("stat.json"))
                    .ok()
                    .and_then(|j| rnic_bsp::parse_yosys_stat(&j).ok())
                    .and_then(|m| m.into_iter().find(|(n, _)| n == "top"))
                    .map_or_else(
                        || "?".into(),
                        |(_, c)| format!("{} / {}", c.luts, c.flip_flops),
                    );
                println!(
                    "| {} | {width} | {} (does not fit) | - | {own} | {} | - | no: {} |",
                    block.name(),
                    used("ICESTORM_LC:"),
                    used("ICESTORM_RAM:"),
                    e.to_string().split(':').next().unwrap_or("")
                );
                continue;
            }
        };
        let own = r
            .dut_cells
            .map_or_else(|| "?".into(), |c| format!("{} / {}", c.luts, c.flip_flops));
        println!(
            "| {} | {width} | {} / {} | {} | {own} | {} / {} | {:.1} | {} |",
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

/// Receive-path throughput of RDMA Writes of one message size, and the FPDU-to-DMA latency.
#[derive(Clone, Debug)]
pub struct RxWriteFigures {
    /// Message size (octets).
    pub size: usize,
    /// DDP segments per message (ULPDUs of at most MULPDU octets).
    pub segments: usize,
    /// LLP beats accepted per cycle, first to last accepted beat (the wire limit is 1).
    pub llp_beats_per_cycle: f64,
    /// Payload octets placed per cycle over the same span.
    pub placed_bytes_per_cycle: f64,
}

/// The RDMA Write ULPDUs of one `size`-octet message at `to`, cut at `mulpdu` octets.
fn write_message(stag: u32, to: u64, size: usize, mulpdu: usize) -> Vec<Vec<u8>> {
    use rnic_proto::rdmap::{Body, DdpFields, Message};
    let max_payload = mulpdu - rnic_proto::ddp::TAGGED_HEADER_LEN;
    let data: Vec<u8> = (0..size).map(|i| (i * 13 + 5) as u8).collect();
    let chunks: Vec<&[u8]> = if size == 0 {
        vec![&[]]
    } else {
        data.chunks(max_payload).collect()
    };
    let n = chunks.len();
    chunks
        .iter()
        .enumerate()
        .map(|(i, chunk)| {
            let m = Message {
                last: i + 1 == n,
                ddp: DdpFields::Tagged {
                    stag,
                    to: to + (i * max_payload) as u64,
                },
                body: Body::RdmaWrite { payload: chunk },
            };
            let mut out = vec![0u8; m.buffer_len()];
            m.emit(&mut rnic_proto::ddp::Packet::new_unchecked(&mut out[..]))
                .expect("a Write message always emits");
            out
        })
        .collect()
}

/// A receive-path bench on Verilator with QP 0 and one 1 MiB REMOTE_WRITE region; returns the
/// bench and the region's STag and base TO.
fn rx_bench() -> Result<(rnic_sim::tb::rx_path::RxPathBench, u32, u64)> {
    use rnic_hdl::rdmap::rx_path::RxPath;
    use rnic_proto::verbs::{access, make_stag};
    use rnic_sim::rx_model::{MrEntry, QpConfig};
    use rnic_sim::tb::rx_path::{Knobs, RxPathBench};
    let sim = BackendKind::Verilator.build_untraced(RxPath::default())?;
    let mut bench = RxPathBench::new(sim, 7, Knobs::FULL_SPEED)?;
    let base_to = 0x7000_0000_0000;
    bench.program_stag(
        1,
        MrEntry {
            valid: true,
            key: 0x5A,
            pd: 1,
            access: access::REMOTE_WRITE,
            qp_bound: None,
            remote_inv: false,
            base_to,
            len: 1 << 20,
            host_addr: 0x10_0000,
        },
    );
    bench.qp_cfg(
        0,
        QpConfig {
            enable: true,
            pd: 1,
            ird: 1,
        },
    );
    bench.mpa_cfg(0, true, false, true, u16::MAX);
    Ok((bench, make_stag(1, 0x5A), base_to))
}

/// MULPDU of the receive benchmarks: Ethernet's 1460-octet MSS, markers off (RFC 5044 §7).
pub const BENCH_MSS: u16 = 1460;

/// Streams `messages` RDMA Writes of `size` octets (CRC on, markers off, segments of at most
/// MULPDU) into the receive path at full speed (every ready high, LLP input always valid) and
/// measures the LLP input rate.
pub fn measure_rx_writes(size: usize, messages: usize) -> Result<RxWriteFigures> {
    let (mut bench, stag, base_to) = rx_bench()?;
    let mulpdu = usize::from(rnic_proto::mpa::mulpdu(BENCH_MSS, false));
    let mut ulpdus = Vec::new();
    let mut segments = 0;
    for m in 0..messages {
        let to = base_to + ((m * size) % (1 << 19)) as u64;
        let msg = write_message(stag, to, size, mulpdu);
        segments = msg.len();
        ulpdus.extend(msg);
    }
    bench.reset_stats();
    bench.send_ulpdus(0, &ulpdus);
    bench.run_until_idle(100_000_000);
    if !bench.terms[0].is_empty() || !bench.mem.violations().is_empty() {
        return Err(anyhow!(
            "the benchmark traffic was refused by the receive path"
        ));
    }
    let s = bench.stats();
    let span = match (s.first_llp_cycle, s.last_llp_cycle) {
        (Some(a), Some(b)) => (b - a + 1) as f64,
        _ => return Err(anyhow!("no LLP beat was accepted")),
    };
    if s.dma_bytes != (size * messages) as u64 {
        return Err(anyhow!(
            "placed {} octets of {}",
            s.dma_bytes,
            size * messages
        ));
    }
    Ok(RxWriteFigures {
        size,
        segments,
        llp_beats_per_cycle: s.llp_beats_per_cycle(),
        placed_bytes_per_cycle: s.dma_bytes as f64 / span,
    })
}

/// Cycles from the first octet of an RDMA Write FPDU (its first LLP beat accepted, the core
/// idle) to its first DMA write beat, for a `size`-octet Write.
pub fn measure_rx_latency(size: usize) -> Result<u64> {
    use rnic_sim::tb::rx_path::Logged;
    let (mut bench, stag, base_to) = rx_bench()?;
    let mulpdu = usize::from(rnic_proto::mpa::mulpdu(BENCH_MSS, false));
    bench.reset_stats();
    bench.log.clear();
    bench.send_ulpdus(0, &write_message(stag, base_to, size, mulpdu));
    bench.run_until_idle(1_000_000);
    let first = bench
        .stats()
        .first_llp_cycle
        .ok_or_else(|| anyhow!("no LLP beat was accepted"))?;
    let dma = bench
        .log
        .iter()
        .find_map(|(c, e)| matches!(e, Logged::Write { .. }).then_some(*c))
        .ok_or_else(|| anyhow!("nothing was placed"))?;
    Ok(dma - first)
}

/// Message sizes of the receive table.
pub const RX_SIZES: [usize; 6] = [64, 256, 1024, 4096, 16384, 65536];

/// Prints the receive-path table: RDMA Write throughput against message size, and latency.
pub fn print_rx_table() -> Result<()> {
    let mulpdu = rnic_proto::mpa::mulpdu(BENCH_MSS, false);
    println!(
        "## Receive path: RDMA Writes into one QP (Verilator, 32-bit datapath, CRC on, \
         markers off, MULPDU {mulpdu} for a {BENCH_MSS}-octet MSS, every ready high)\n"
    );
    println!("| message | DDP segments | LLP beats/cycle (wire limit 1) | placed octets/cycle |");
    println!("|---:|---:|---:|---:|");
    for size in RX_SIZES {
        let messages = (262_144 / size).clamp(8, 512);
        let f = measure_rx_writes(size, messages)?;
        println!(
            "| {} B | {} | {:.4} | {:.3} |",
            f.size, f.segments, f.llp_beats_per_cycle, f.placed_bytes_per_cycle
        );
    }
    println!();
    for size in [4, 1024] {
        println!(
            "Latency, first LLP beat of a {size}-octet RDMA Write FPDU to its first DMA write: {} cycles",
            measure_rx_latency(size)?
        );
    }
    println!();
    Ok(())
}
