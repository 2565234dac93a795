//! The `rnic` command line. Every bad argument is reported in one line with a non-zero exit.

use crate::bench;
use crate::inject;
use crate::loopback;
use crate::tcp;
use crate::traffic::Mix;
use crate::verbs::ConnParams;
use anyhow::{anyhow, bail, Context, Result};
use clap::{Parser, Subcommand};
use rnic_bsp::Board;
use rnic_hdl::catalog::BlockKind;
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "rnic",
    version,
    about = "iWARP RDMA NIC in Rust HDL: generate, synthesize and simulate its hardware"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Write the Verilog that rust-hdl generates for a block (top module `top`).
    Verilog {
        /// Block name (e.g. crc32c).
        #[arg(long, value_parser = parse_block)]
        block: BlockKind,
        /// Datapath width in bits.
        #[arg(long, default_value_t = 32)]
        width: usize,
        /// Output directory; the file is `DIR/<block>_w<width>.v`.
        #[arg(long)]
        out: PathBuf,
    },
    /// Synthesize, place and route a block for a board; print logic cells, block RAMs and Fmax.
    /// Exits non-zero when timing at the board clock is not met.
    Synth {
        /// Board (alchitry-cu).
        #[arg(long, value_parser = parse_board)]
        board: Board,
        /// Block name (e.g. crc32c).
        #[arg(long, value_parser = parse_block)]
        block: BlockKind,
        /// Datapath width in bits.
        #[arg(long, default_value_t = 32)]
        width: usize,
        /// Where the tools' inputs, outputs and logs go (default: `target/synth/<block>_w<width>`).
        #[arg(long)]
        work_dir: Option<PathBuf>,
        /// Also place and route the same netlist with these nextpnr seeds (comma separated, e.g.
        /// `2,3,4`) and print each one's Fmax: how much of the margin one placement owes to luck.
        /// The exit status still follows the default placement (the bitstream's).
        #[arg(long, value_delimiter = ',')]
        seeds: Vec<u64>,
        /// Stop nextpnr (each run, `--seeds` included) after this many minutes and report what
        /// its placement gave (logic cells, block RAMs, the Fmax estimated after placement): a
        /// design that fills the device can keep its router busy for hours.
        #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
        nextpnr_limit: u64,
    },
    /// Print the benchmark tables of BENCHMARKS.md.
    Bench {
        /// Which tables: sim (cycles per second of each back end), mpa (MPA beats per cycle),
        /// rx (receive path: RDMA Write throughput and latency), core (the whole core: goodput
        /// and latency through the verbs API), synth (cells and Fmax), all.
        #[arg(long, default_value = "all", value_parser = ["all", "sim", "mpa", "rx", "core", "synth"])]
        only: String,
        /// Cycles to run on the Verilator back end (rust-hdl runs 1/100 of it).
        #[arg(long, default_value_t = 2_000_000)]
        cycles: u64,
        /// Message sizes of the core's goodput table, comma separated (default: 64 to 256 KiB).
        #[arg(long, value_delimiter = ',')]
        sizes: Vec<u32>,
    },
    /// Feed a raw LLP byte stream (FPDUs of QP 0, after connection setup) from a file into the
    /// receive path of a simulated core; print one JSON line per event (placement, completion,
    /// queued Read Request, asynchronous event, Terminate with its codes) and, last, a summary
    /// saying whether any byte outside the regions that grant the access was touched.
    Inject {
        /// The LLP byte stream.
        file: PathBuf,
        /// A memory region: stag=S,addr=A,len=N,access=lr+lw+rr+rw,pd=P, optionally followed by
        /// ,to=T (base Tagged Offset) ,qp=Q (bound to one QP) ,inv (remotely invalidatable).
        /// Repeatable.
        #[arg(long = "mr", value_parser = inject::spec::parse_mr)]
        mrs: Vec<inject::spec::MrSpec>,
        /// The QP the stream is for: pd=P, optionally ,ird=N (default 4).
        #[arg(long, value_parser = inject::spec::parse_qp)]
        qp: inject::spec::QpSpec,
        /// A receive WQE: to=T,len=N,lkey=K (repeatable, in posting order).
        #[arg(long = "recv", value_parser = inject::spec::parse_recv)]
        recvs: Vec<inject::spec::RecvSpec>,
        /// RDMA Reads outstanding on the QP (Read Responses it may accept).
        #[arg(long, default_value_t = 0)]
        orq: u8,
        /// MPA CRC negotiated: on or off.
        #[arg(long, default_value = "on", value_parser = ["on", "off"])]
        crc: String,
        /// MPA markers negotiated: on or off.
        #[arg(long, default_value = "off", value_parser = ["on", "off"])]
        markers: String,
        /// Simulation back end: verilator or rust-hdl.
        #[arg(long, default_value = "verilator", value_parser = ["verilator", "rust-hdl"])]
        backend: String,
        /// Give up when the core has not gone idle after this many cycles.
        #[arg(long, default_value_t = 50_000_000)]
        max_cycles: u64,
    },
    /// The main job: two QPs of one simulated core connected through the LLP loopback model,
    /// a traffic mix posted through the verbs API (doorbells, WQEs and CQEs in host memory),
    /// every byte and completion verified; prints operations, bytes, cycles, bytes per cycle,
    /// Gbit/s at 100 MHz, simulated cycles per second and the error count.
    Loopback {
        /// write, read, send, send-inv, send-se, send-se-inv, or mixed.
        #[arg(long, default_value = "mixed", value_parser = loopback::parse_mix)]
        op: Mix,
        /// Bytes per operation (0..=16 MiB).
        #[arg(long, default_value_t = 4096)]
        size: u32,
        /// Operations in all.
        #[arg(long, default_value_t = 400)]
        count: usize,
        /// Operations in flight at most.
        #[arg(long, default_value_t = 4)]
        window: usize,
        /// The MULPDU each side sends with (DDP segment size), 64..=65535.
        #[arg(long, default_value_t = 1454, value_parser = clap::value_parser!(u16).range(64..))]
        mulpdu: u16,
        /// MPA CRC: on or off.
        #[arg(long, default_value = "on", value_parser = ["on", "off"])]
        crc: String,
        /// MPA markers: on or off.
        #[arg(long, default_value = "off", value_parser = ["on", "off"])]
        markers: String,
        /// Simulation back end: verilator or rust-hdl (slow: small runs only).
        #[arg(long, default_value = "verilator", value_parser = ["verilator", "rust-hdl"])]
        backend: String,
        /// Seed of the data, alignments and models.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write a VCD waveform of the whole run.
        #[arg(long)]
        vcd: Option<PathBuf>,
        /// Write the wire traffic as a pcap file for Wireshark.
        #[arg(long)]
        pcap: Option<PathBuf>,
    },
    /// Serve one `rnic connect` run over real TCP: a simulated core whose LLP connection 0 is
    /// the accepted TCP connection, MPA set up through the firmware (Responder), its region
    /// advertised in the Reply; prints `listening on ADDR` first and a summary at the end.
    Serve {
        /// Address to listen on (port 0: any free port, printed).
        #[arg(long)]
        listen: std::net::SocketAddr,
        /// Bytes of each half of the served region (Write / Send sink, Read source).
        #[arg(long, default_value_t = 1 << 20)]
        max_bytes: u64,
        #[command(flatten)]
        common: TcpOpts,
    },
    /// Connect to an `rnic serve` over real TCP, set up MPA through the firmware (Initiator)
    /// and run RDMA Writes, Reads or Sends against it; both sides verify every byte against
    /// data derived from the seed (passed in the MPA Request's private data).
    Connect {
        /// The serve side's address.
        addr: std::net::SocketAddr,
        /// write, read or send.
        #[arg(long, default_value = "write", value_parser = tcp::TcpOp::parse)]
        op: tcp::TcpOp,
        /// Bytes per operation (1..=65536).
        #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..=65536))]
        size: u32,
        /// Operations (1..=256).
        #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=256))]
        count: u32,
        /// Operations in flight at most.
        #[arg(long, default_value_t = 4)]
        window: usize,
        /// Seed of the data.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        common: TcpOpts,
    },
}

/// The options `serve` and `connect` share.
#[derive(clap::Args, Debug)]
pub struct TcpOpts {
    /// Simulation back end: verilator or rust-hdl (slow: small runs only).
    #[arg(long, default_value = "verilator", value_parser = ["verilator", "rust-hdl"])]
    backend: String,
    /// Wall-clock limit of the whole run, in seconds.
    #[arg(long, default_value_t = 300)]
    timeout: u64,
    /// Write the connection's traffic as a pcap file for Wireshark.
    #[arg(long)]
    pcap: Option<PathBuf>,
}

impl From<TcpOpts> for tcp::TcpArgs {
    fn from(o: TcpOpts) -> Self {
        tcp::TcpArgs {
            backend: backend_kind(&o.backend),
            timeout: std::time::Duration::from_secs(o.timeout),
            pcap: o.pcap,
        }
    }
}

fn backend_kind(s: &str) -> rnic_sim::testbench::BackendKind {
    if s == "rust-hdl" {
        rnic_sim::testbench::BackendKind::RustHdl
    } else {
        rnic_sim::testbench::BackendKind::Verilator
    }
}

fn parse_block(s: &str) -> Result<BlockKind, String> {
    BlockKind::from_name(s)
}

fn parse_board(s: &str) -> Result<Board, String> {
    s.parse::<Board>().map_err(|e| e.to_string())
}

/// Parses the arguments; a usage error becomes a one-line message (exit 2), help and version
/// print as usual (exit 0).
pub fn parse_args<I, T>(args: I) -> Result<Cli, (String, i32)>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    Cli::try_parse_from(args).map_err(|e| {
        use clap::error::ErrorKind;
        match e.kind() {
            ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => (e.to_string(), 0),
            _ => {
                // clap's message runs over several lines (missing arguments are listed below
                // it, then the usage); keep what comes before the usage, on one line.
                let text = e.to_string();
                let message: Vec<&str> = text
                    .lines()
                    .map(str::trim)
                    .take_while(|l| {
                        !l.starts_with("Usage:") && !l.starts_with("For more information")
                    })
                    .filter(|l| !l.is_empty())
                    .collect();
                let message = message.join(" ");
                let message = message.strip_prefix("error: ").unwrap_or(&message);
                (format!("rnic: {message} (see rnic --help)"), 2)
            }
        }
    })
}

/// Runs a parsed command.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Verilog { block, width, out } => {
            let verilog = block.verilog(width).map_err(|e| anyhow!(e))?;
            std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
            let path = out.join(format!("{}_w{width}.v", block.name()));
            std::fs::write(&path, verilog)
                .with_context(|| format!("writing {}", path.display()))?;
            println!("{}", path.display());
            Ok(())
        }
        Command::Synth {
            board,
            block,
            width,
            work_dir,
            seeds,
            nextpnr_limit,
        } => {
            let verilog = block.verilog(width).map_err(|e| anyhow!(e))?;
            let dir = work_dir.unwrap_or_else(|| {
                bench::target_dir()
                    .join("synth")
                    .join(format!("{}_w{width}", block.name()))
            });
            let limit = std::time::Duration::from_secs(60 * nextpnr_limit);
            let report = rnic_bsp::synthesize_within(&verilog, board, &dir, limit)?;
            println!("{} at {width} bits on {}", block.name(), board.name());
            println!("{report}");
            if !seeds.is_empty() {
                let fmax = rnic_bsp::replace_with_seeds(board, &dir, &seeds, limit)?;
                let mut all = vec![report.fmax_mhz];
                let mut line = format!("Fmax by nextpnr seed: default {:.1} MHz", report.fmax_mhz);
                for (seed, f) in &fmax {
                    line.push_str(&format!(", {seed}: {f:.1}"));
                    all.push(*f);
                }
                let min = all.iter().cloned().fold(f64::INFINITY, f64::min);
                let mean = all.iter().sum::<f64>() / all.len() as f64;
                println!("{line} (min {min:.1}, mean {mean:.1})");
            }
            if !report.timing_met {
                bail!(
                    "timing not met: {:.1} MHz achieved, {:.0} MHz required",
                    report.fmax_mhz,
                    report.target_mhz
                );
            }
            Ok(())
        }
        Command::Bench {
            only,
            cycles,
            sizes,
        } => {
            if only == "all" || only == "sim" {
                bench::print_sim_table(cycles)?;
            }
            if only == "all" || only == "mpa" {
                bench::print_mpa_table()?;
            }
            if only == "all" || only == "rx" {
                bench::print_rx_table()?;
            }
            if only == "all" || only == "core" {
                crate::core_bench::print_core_table(&sizes)?;
            }
            if only == "all" || only == "synth" {
                bench::print_synth_table()?;
            }
            Ok(())
        }
        Command::Inject {
            file,
            mrs,
            qp,
            recvs,
            orq,
            crc,
            markers,
            backend,
            max_cycles,
        } => {
            let setup = inject::InjectSetup {
                mrs,
                qp,
                recvs,
                orq,
                crc: crc == "on",
                markers: markers == "on",
                backend: if backend == "rust-hdl" {
                    rnic_sim::testbench::BackendKind::RustHdl
                } else {
                    rnic_sim::testbench::BackendKind::Verilator
                },
                max_cycles,
            };
            let report = inject::run_file(&file, &setup)?;
            for line in &report.lines {
                println!("{line}");
            }
            if report.outside_access {
                bail!("the receive path touched memory outside the granted regions");
            }
            Ok(())
        }
        Command::Loopback {
            op,
            size,
            count,
            window,
            mulpdu,
            crc,
            markers,
            backend,
            seed,
            vcd,
            pcap,
        } => {
            let params = ConnParams {
                rx_crc: crc == "on",
                tx_crc: crc == "on",
                rx_markers: markers == "on",
                tx_markers: markers == "on",
                tx_mulpdu: mulpdu,
                ..ConnParams::default()
            };
            let args = loopback::LoopbackArgs {
                mix: op,
                size,
                count,
                window,
                params,
                backend: if backend == "rust-hdl" {
                    rnic_sim::testbench::BackendKind::RustHdl
                } else {
                    rnic_sim::testbench::BackendKind::Verilator
                },
                seed,
                vcd,
                pcap,
                mpa_setup: true,
            };
            let summary = loopback::run(&args)?;
            println!("{}", loopback::format_summary(&args, &summary));
            Ok(())
        }
        Command::Serve {
            listen,
            max_bytes,
            common,
        } => {
            let a = tcp::TcpArgs::from(common);
            let s = tcp::serve(listen, max_bytes, &a)?;
            println!("{}", tcp::format_serve(&s));
            Ok(())
        }
        Command::Connect {
            addr,
            op,
            size,
            count,
            window,
            seed,
            common,
        } => {
            let a = tcp::TcpArgs::from(common);
            let req = tcp::RequestPd {
                seed,
                op,
                size,
                count,
            };
            let s = tcp::connect(addr, req, window, &a)?;
            println!("{}", tcp::format_connect(&req, &s));
            Ok(())
        }
    }
}
