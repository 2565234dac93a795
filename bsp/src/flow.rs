//! The tool flow: yosys → nextpnr-ice40 → icepack, and Verilator lint.

use std::fs::{self, File};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::board::Board;
use crate::harness::{
    analyse_dut, analysis_script, harness_pcf, packed_output_registers, plan_harness_io,
    plan_harness_with, render_harness, unpacked_output_registers, HARNESS_TOP,
};
use crate::report::{parse_nextpnr_log, parse_nextpnr_report, parse_yosys_stat, SynthReport};

/// The external tools the flow needs (all from Debian packages).
pub const TOOLS: [(&str, &str, &str); 4] = [
    ("yosys", "-V", "yosys"),
    ("nextpnr-ice40", "--version", "nextpnr-ice40"),
    ("icepack", "-h", "fpga-icestorm"),
    ("verilator", "--version", "verilator"),
];

/// How many lines of a failing tool's log an error shows.
const LOG_TAIL_LINES: usize = 20;

/// How long nextpnr may run before [`synthesize`] stops it. Every block of the core places and
/// routes in a few minutes; a design that fills the device can keep the router busy for hours
/// without converging (the whole core at 97 %: router1 still had about 15 700 overused arcs
/// after 63 000 iterations, `docs/decisions.md` "Eighteenth session"), so the flow stops it and
/// reports what the placement gave ([`synthesize_within`]).
pub const NEXTPNR_TIME_LIMIT: Duration = Duration::from_secs(30 * 60);

/// A tool stopped by the flow because it ran past its time limit.
#[derive(Debug)]
struct TimedOut {
    tool: String,
    limit: Duration,
}

impl std::fmt::Display for TimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} did not finish within {} s and was stopped",
            self.tool,
            self.limit.as_secs()
        )
    }
}

impl std::error::Error for TimedOut {}

/// Verilator warnings [`lint_verilog`] turns off on top of `-Wall`, with the reason. All are
/// produced by rust-hdl's code generator for correct designs:
pub const LINT_SUPPRESSED: [(&str, &str); 4] = [
    (
        "DECLFILENAME",
        "style: the file name does not match the module name (rust-hdl emits one file)",
    ),
    (
        "UNUSED",
        "rust-hdl declares a stub for every port of every sub-block, used or not \
         (e.g. a FIFO's almost_full), and enum localparams that a block may not use",
    ),
    (
        "WIDTH",
        "rust-hdl writes literals as 32-bit (`x + 32'h1`) and lets assignment truncate, \
         which is the Bits<N> wrap-around it simulates",
    ),
    (
        "UNOPTFLAT",
        "Verilator performance note: signals of one sub-block feed back through a \
         parent's combinational block (e.g. FIFO read/empty) without a real loop; \
         true combinational loops are caught by nextpnr's timing analysis",
    ),
];

/// Checks that every tool of the flow can be started. The error names the missing tool and
/// the Debian packages the project's install step provides.
pub fn check_tools() -> Result<()> {
    for (tool, version_arg, _package) in TOOLS {
        match Command::new(tool)
            .arg(version_arg)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
        {
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => bail!(missing_tool_message(tool)),
            Err(e) => return Err(e).with_context(|| format!("cannot start `{tool}`")),
        }
    }
    Ok(())
}

fn missing_tool_message(tool: &str) -> String {
    let packages: Vec<&str> = TOOLS.iter().map(|t| t.2).collect();
    format!(
        "`{tool}` not found on PATH: run the project's install step \
         `scripts/install-deps.sh` (Debian packages: {})",
        packages.join(" ")
    )
}

/// Runs `tool args...` in `dir` with stdout and stderr both written to `dir/log_name`.
/// Fails, naming the tool, its exit status and the end of its log, unless it exits with 0.
fn run_tool(tool: &str, args: &[&str], dir: &Path, log_name: &str) -> Result<PathBuf> {
    run_tool_within(tool, args, dir, log_name, None)
}

/// [`run_tool`], stopping the tool (a [`TimedOut`] error) when it runs longer than `limit`.
fn run_tool_within(
    tool: &str,
    args: &[&str],
    dir: &Path,
    log_name: &str,
    limit: Option<Duration>,
) -> Result<PathBuf> {
    let log_path = dir.join(log_name);
    let log =
        File::create(&log_path).with_context(|| format!("cannot create {}", log_path.display()))?;
    let child = Command::new(tool)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log)
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) if e.kind() == ErrorKind::NotFound => bail!(missing_tool_message(tool)),
        Err(e) => return Err(e).with_context(|| format!("cannot start `{tool}`")),
    };
    let status = match limit {
        None => child.wait().map(Some),
        Some(limit) => wait_within(&mut child, limit),
    }
    .with_context(|| format!("cannot wait for `{tool}`"))?;
    let Some(status) = status else {
        // Past the limit: stop it (an error here means it has just exited by itself).
        let _ = child.kill();
        let _ = child.wait();
        return Err(TimedOut {
            tool: tool.to_string(),
            limit: limit.unwrap_or_default(),
        }
        .into());
    };
    if !status.success() {
        let text = fs::read_to_string(&log_path).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(LOG_TAIL_LINES)..].join("\n");
        bail!(
            "{tool} failed ({status}); last {} lines of {}:\n{tail}",
            LOG_TAIL_LINES.min(lines.len()),
            log_path.display()
        );
    }
    Ok(log_path)
}

/// Waits for `child` at most `limit`: its exit status, or `None` when it is still running.
fn wait_within(
    child: &mut std::process::Child,
    limit: Duration,
) -> std::io::Result<Option<ExitStatus>> {
    let start = Instant::now();
    loop {
        match child.try_wait()? {
            None if start.elapsed() < limit => thread::sleep(Duration::from_millis(100)),
            done => return Ok(done),
        }
    }
}

/// Synthesizes `dut_verilog` (rust-hdl output whose top module is `top`, clock input `clock`)
/// inside the synthesis harness (see [`crate::harness`]) for `board`, in `work_dir`:
///
/// 1. writes `dut.v`; analyses it with yosys ([`crate::harness::analysis_script`], log
///    `yosys_analysis.log`) and writes `harness.v` ([`plan_harness_with`] on the board's pins)
///    and the board's pin constraints with the harness's further pins;
/// 2. writes `abc.script` ([`abc_script`]) and runs `yosys -p` [`yosys_script`]:
///    `synth_ice40 -dffe_min_ce_use 8 -top rnic_synth_top` with its LUT mapping done by that
///    ABC script, `out.json` and `stat.json`; when the netlist shows harness output registers that cannot pack
///    with a DUT LUT ([`crate::harness::unpacked_output_registers`]), the harness is planned
///    again with those in I/O-tile registers ([`plan_harness_io`]) and yosys runs again;
/// 3. `nextpnr-ice40 <device> --freq <board MHz> --timing-allow-fail --pcf <board>.pcf
///    --json out.json --asc out.asc --report report.json --sdf out.sdf` (the SDF carries every
///    net's and cell's delay: `scripts/sdf_sta.py` lists every failing endpoint from it, where
///    nextpnr reports only the worst path);
/// 4. `icepack out.asc out.bin`.
///
/// Each tool's output goes to `<tool>.log` in `work_dir`; a non-zero exit status is an error
/// naming the tool, the status and the end of the log. nextpnr is stopped after
/// [`NEXTPNR_TIME_LIMIT`] (an error with the placement's figures, [`synthesize_within`]).
/// Missing the timing target is not an error: the report says whether it was met.
pub fn synthesize(dut_verilog: &str, board: Board, work_dir: &Path) -> Result<SynthReport> {
    synthesize_within(dut_verilog, board, work_dir, NEXTPNR_TIME_LIMIT)
}

/// [`synthesize`] with nextpnr stopped after `nextpnr_limit` instead of
/// [`NEXTPNR_TIME_LIMIT`]. A stopped run is an error that gives what nextpnr had found by then:
/// the logic cells and block RAMs of its placement and its Fmax estimate after placement, or
/// that it had not placed the design yet.
pub fn synthesize_within(
    dut_verilog: &str,
    board: Board,
    work_dir: &Path,
    nextpnr_limit: Duration,
) -> Result<SynthReport> {
    fs::create_dir_all(work_dir)
        .with_context(|| format!("cannot create work directory {}", work_dir.display()))?;
    // Remove outputs of an earlier run so that a stale file is never read.
    for stale in [
        "dut_analysis.json",
        "out.json",
        "out.asc",
        "out.bin",
        "report.json",
        "out.sdf",
        "stat.json",
    ] {
        let p = work_dir.join(stale);
        if p.exists() {
            fs::remove_file(&p).with_context(|| format!("cannot remove {}", p.display()))?;
        }
    }
    let write = |name: &str, text: &str| -> Result<()> {
        let p = work_dir.join(name);
        fs::write(&p, text).with_context(|| format!("cannot write {}", p.display()))
    };
    write("dut.v", dut_verilog)?;
    // Pre-pass: which inputs feed only flip-flops, which outputs are combinational.
    run_tool(
        "yosys",
        &["-p", &analysis_script("dut.v", "dut_analysis.json")],
        work_dir,
        "yosys_analysis.log",
    )?;
    let analysis_path = work_dir.join("dut_analysis.json");
    let analysis = analyse_dut(
        &fs::read_to_string(&analysis_path)
            .with_context(|| format!("yosys wrote no {}", analysis_path.display()))?,
    )
    .with_context(|| format!("in {}", analysis_path.display()))?;
    let spare = board.harness_spare_pins();
    let mut harness = plan_harness_with(dut_verilog, &analysis, 2 + spare.len())
        .context("cannot build the synthesis harness")?;
    let mut yosys_log = PathBuf::new();
    // ABC runs in a directory of its own: it gets the script's absolute path.
    write("abc.script", &abc_script())?;
    let abc_script = fs::canonicalize(work_dir.join("abc.script"))
        .with_context(|| format!("cannot find {}", work_dir.join("abc.script").display()))?;
    // Pass 1 finds the output registers that cannot pack with a DUT LUT; pass 2 (only if there
    // are any and pins for them) registers those in I/O tiles instead. `top` is synthesized
    // apart from the harness (`keep_hierarchy`), so its netlist is the same in both passes.
    for pass in 1..=2 {
        write("harness.v", &render_harness(&harness))?;
        let pcf = format!("{}{}", board.pcf(), harness_pcf(&harness, spare)?);
        write(board.pcf_file_name(), &pcf)?;
        yosys_log = run_tool(
            "yosys",
            &["-p", &yosys_script(&abc_script)],
            work_dir,
            "yosys.log",
        )?;
        if pass == 2 || harness.bidir_pins < 2 {
            break;
        }
        let unpacked = fs::read_to_string(work_dir.join("out.json"))
            .ok()
            .and_then(|s| unpacked_output_registers(&harness, &s).ok())
            .unwrap_or_default();
        if unpacked.is_empty() {
            break;
        }
        harness = plan_harness_io(dut_verilog, &analysis, 2 + spare.len(), &unpacked)
            .context("cannot build the synthesis harness")?;
    }

    let args = nextpnr_args(board, "out.asc", "report.json", "out.sdf");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let nextpnr_log = run_tool_within(
        "nextpnr-ice40",
        &args,
        work_dir,
        "nextpnr.log",
        Some(nextpnr_limit),
    )
    .map_err(|e| match e.downcast_ref::<TimedOut>() {
        Some(t) => did_not_finish(board, work_dir, "nextpnr.log", t),
        None => does_not_fit(board, work_dir).unwrap_or(e),
    })?;
    run_tool("icepack", &["out.asc", "out.bin"], work_dir, "icepack.log")?;
    let bitstream = work_dir.join("out.bin");
    if !bitstream.is_file() {
        bail!("icepack exited with 0 but wrote no {}", bitstream.display());
    }

    let report_json = work_dir.join("report.json");
    let (figures, source) = if report_json.is_file() {
        let text = fs::read_to_string(&report_json)?;
        (
            parse_nextpnr_report(&text).with_context(|| format!("in {}", report_json.display()))?,
            "report.json",
        )
    } else {
        let text = fs::read_to_string(&nextpnr_log)?;
        (
            parse_nextpnr_log(&text).with_context(|| format!("in {}", nextpnr_log.display()))?,
            "nextpnr.log",
        )
    };
    // The statistics only refine the harness / block split: a yosys whose `stat -json` differs
    // still yields a report, with the planned harness size.
    let stat = fs::read_to_string(work_dir.join("stat.json"))
        .ok()
        .and_then(|s| parse_yosys_stat(&s).ok());
    let packed = fs::read_to_string(work_dir.join("out.json"))
        .ok()
        .and_then(|s| packed_output_registers(&harness, &s).ok())
        .unwrap_or(0);
    let mut report = SynthReport::new(board, &figures, harness, stat.as_deref(), "clk")?;
    if stat.is_some() {
        report.credit_packed_registers(packed);
    }
    report.figures_source = source.to_string();
    report.yosys_warnings = yosys_warnings(&fs::read_to_string(&yosys_log)?);
    report.work_dir = work_dir.to_path_buf();
    report.bitstream = bitstream;
    Ok(report)
}

/// nextpnr's arguments for `board` at its clock, placing `out.json` (written by yosys), with
/// the bitstream text `asc`, the JSON report `report` and the delay annotation `sdf`.
fn nextpnr_args(board: Board, asc: &str, report: &str, sdf: &str) -> Vec<String> {
    let mut args: Vec<String> = board
        .nextpnr_device_args()
        .iter()
        .map(|a| a.to_string())
        .collect();
    for a in [
        "--freq",
        &format!("{}", board.clock_mhz()),
        "--timing-allow-fail",
        "--top",
        HARNESS_TOP,
        "--pcf",
        board.pcf_file_name(),
        "--json",
        "out.json",
        "--asc",
        asc,
        "--report",
        report,
        "--sdf",
        sdf,
    ] {
        args.push(a.to_string());
    }
    args
}

/// Places and routes the netlist of an earlier [`synthesize`] in `work_dir` again with each of
/// nextpnr's `seeds` (`--seed N`; logs `nextpnr_seed<N>.log`, reports `report_seed<N>.json`)
/// and returns the Fmax of the board clock for each: how much a block's Fmax owes to one
/// placement. The bitstream of [`synthesize`] is left as it is. Each run is stopped after
/// `nextpnr_limit`, as in [`synthesize_within`] (the error names the seed's log).
pub fn replace_with_seeds(
    board: Board,
    work_dir: &Path,
    seeds: &[u64],
    nextpnr_limit: Duration,
) -> Result<Vec<(u64, f64)>> {
    let mut fmax = Vec::new();
    for &seed in seeds {
        let asc = format!("seed{seed}.asc");
        let report = format!("report_seed{seed}.json");
        let sdf = format!("seed{seed}.sdf");
        let mut args = nextpnr_args(board, &asc, &report, &sdf);
        args.extend(["--seed".to_string(), seed.to_string()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let log = format!("nextpnr_seed{seed}.log");
        run_tool_within("nextpnr-ice40", &args, work_dir, &log, Some(nextpnr_limit)).map_err(
            |e| match e.downcast_ref::<TimedOut>() {
                Some(t) => did_not_finish(board, work_dir, &log, t),
                None => e,
            },
        )?;
        let path = work_dir.join(&report);
        let text = fs::read_to_string(&path)
            .with_context(|| format!("nextpnr wrote no {}", path.display()))?;
        let figures =
            parse_nextpnr_report(&text).with_context(|| format!("in {}", path.display()))?;
        fmax.push((seed, figures.clock("clk")?.achieved_mhz));
        // The bitstream text of a re-placement is not kept (about 1 MB each).
        let _ = fs::remove_file(work_dir.join(&asc));
    }
    Ok(fmax)
}

/// When nextpnr failed because the design needs more of a resource than `board` has: an error
/// that says so, with nextpnr's utilisation, the block's own yosys cells and nextpnr's error
/// line (`None` when the failure was something else).
fn does_not_fit(board: Board, work_dir: &Path) -> Option<anyhow::Error> {
    let log = fs::read_to_string(work_dir.join("nextpnr.log")).ok()?;
    let figures = parse_nextpnr_log(&log).ok()?;
    let over = [
        ("logic cells", figures.logic_cells),
        ("block RAMs", figures.bram),
    ];
    // Under the device's count, nextpnr's placer can still fail to legalise: the 8 logic cells
    // of a tile share one clock, clock enable and set / reset, so flip-flops of different
    // control sets cannot fill one tile.
    let unplaceable = log.contains("Unable to find legal placement");
    let within = over.iter().all(|(_, u)| u.used <= u.total);
    if within && !unplaceable {
        return None;
    }
    let verb = if within {
        "does not place on"
    } else {
        "does not fit"
    };
    let used = over
        .iter()
        .map(|(what, u)| format!("{what} {}/{} ({:.0} %)", u.used, u.total, u.percent()))
        .collect::<Vec<_>>()
        .join(", ");
    let stat = fs::read_to_string(work_dir.join("stat.json"))
        .ok()
        .and_then(|s| parse_yosys_stat(&s).ok())
        .unwrap_or_default();
    let module = |name: &str| stat.iter().find(|(n, _)| n == name).map(|(_, c)| *c);
    let harness = module(HARNESS_TOP)
        .map(|c| {
            format!(
                " (the harness: {} LUT4, {} flip-flops)",
                c.luts, c.flip_flops
            )
        })
        .unwrap_or_default();
    let dut = module("top")
        .map(|c| {
            format!(
                "; the block alone (yosys): {} LUT4, {} flip-flops, {} carries, {} block RAMs",
                c.luts, c.flip_flops, c.carries, c.brams
            )
        })
        .unwrap_or_default();
    let error = log
        .lines()
        .rev()
        .find(|l| l.starts_with("ERROR:"))
        .unwrap_or("")
        .to_string();
    Some(anyhow::anyhow!(
        "the design {verb} the {} ({}): nextpnr needs {used}, harness included{harness}{dut}; \
         nextpnr: {error} (log: {})",
        board.name(),
        board.description(),
        work_dir.join("nextpnr.log").display()
    ))
}

/// The error of a nextpnr run stopped at its time limit: what its log says so far (the
/// placement's logic cells and block RAMs, the Fmax estimated after placement, the router's
/// last progress line), or that it had not placed the design yet.
fn did_not_finish(
    board: Board,
    work_dir: &Path,
    log_name: &str,
    stopped: &TimedOut,
) -> anyhow::Error {
    let log_path = work_dir.join(log_name);
    let log = fs::read_to_string(&log_path).unwrap_or_default();
    let placed = match parse_nextpnr_log(&log) {
        Ok(f) => {
            let estimate = f
                .clocks
                .first()
                .map(|c| format!("; Fmax estimated after placement {:.1} MHz", c.achieved_mhz))
                .unwrap_or_default();
            let routing = if log.contains("Routing..") {
                let last = log
                    .lines()
                    .rev()
                    .map(|l| l.trim_start_matches("Info:").trim())
                    .find(|l| !l.is_empty())
                    .unwrap_or("");
                let last = last.split_whitespace().collect::<Vec<_>>().join(" ");
                format!("; it was routing (last line: `{last}`)")
            } else {
                String::new()
            };
            format!(
                "it placed the design in logic cells {}/{} ({:.0} %), block RAMs {}/{}, \
                 harness included{estimate}{routing}",
                f.logic_cells.used,
                f.logic_cells.total,
                f.logic_cells.percent(),
                f.bram.used,
                f.bram.total
            )
        }
        Err(_) => "it had not placed the design yet".to_string(),
    };
    anyhow::anyhow!(
        "{stopped} on the {} ({}): {placed} (log: {})",
        board.name(),
        board.description(),
        log_path.display()
    )
}

/// The yosys script of the flow. `keep_hierarchy` on `top` keeps the block's boundary (the
/// block's own sub-modules are still flattened into it), so that yosys neither optimises the
/// block against the harness nor mixes their cells; `stat -json` then counts both apart.
///
/// `-dffe_min_ce_use` ([`DFFE_MIN_CE_USE`]): a clock enable that fewer flip-flops share becomes
/// a multiplexer in the flip-flop's LUT. The 8 logic cells of an iCE40 tile share one clock
/// enable and one set / reset, so every such small group of flip-flops would block a tile of
/// its own. The whole core at 7 522 logic cells (98 %) had 394 control sets, 295 of them
/// smaller than 8, and nextpnr's placer could not legalise it; with the option, 208 and 107,
/// for 5 cells more, and it places (`docs/decisions.md`, "Seventeenth session").
///
/// The LUT mapping (`synth_ice40`'s `map_luts` step) is spelled out so that ABC runs
/// [`abc_script`] (the file `abc_script`, an absolute path: ABC runs in a directory of its
/// own) instead of yosys's default; the other commands are `map_luts`'s own (yosys 0.23).
pub fn yosys_script(abc_script: &Path) -> String {
    let abc = abc_script.display();
    format!(
        "read_verilog dut.v harness.v; \
         setattr -mod -set keep_hierarchy 1 top; \
         synth_ice40 -dffe_min_ce_use {DFFE_MIN_CE_USE} -top {HARNESS_TOP} -run :map_luts; \
         techmap -map +/ice40/latches_map.v; \
         abc -dress -lut 4 -script {abc}; \
         ice40_wrapcarry -unwrap; \
         techmap -map +/ice40/ff_map.v; \
         clean; \
         opt_lut -dlogic SB_CARRY:I0=1:I1=2:CI=3 -dlogic SB_CARRY:CO=3; \
         synth_ice40 -dffe_min_ce_use {DFFE_MIN_CE_USE} -top {HARNESS_TOP} -run map_cells: \
         -json out.json; \
         tee -q -o stat.json stat -json"
    )
}

/// yosys 0.23's default ABC script for `abc -lut 4`, less its closing `lutpack -S 1`.
pub const ABC_DEFAULT_MAPPING: &str =
    "strash; &get -n; &fraig -x; &put; scorr; dc2; dretime; strash; dch -f; if; mfs2; ";

/// One more round of ABC's LUT mapping on the mapped netlist: back to an AIG (`strash`),
/// choices (`dch -f`), delay-oriented cut mapping (`if`), don't-care resubstitution (`mfs2`).
pub const ABC_ROUND: &str = "strash; dch -f; if; mfs2; ";

/// Rounds of [`ABC_ROUND`] the flow adds to yosys's default mapping.
pub const ABC_EXTRA_ROUNDS: usize = 5;

/// The ABC script of the LUT mapping: [`ABC_DEFAULT_MAPPING`], [`ABC_EXTRA_ROUNDS`] more
/// mapping rounds, then `lutpack -S 1` as in yosys's default. Each round maps the previous
/// mapping's logic again and keeps finding LUTs to merge. On the whole core (Cu profile, same
/// netlist): 6 290 -> 6 190 LUT4, 7 426 -> 7 327 logic cells after packing; more rounds add
/// little (10: 7 356, 20: 7 355, ABC's noise), `if -a` (area-only) rounds, `&satlut` and
/// wider `mfs2` windows did no better (`docs/decisions.md`, "Twentieth session").
pub fn abc_script() -> String {
    format!(
        "{ABC_DEFAULT_MAPPING}{}lutpack -S 1\n",
        ABC_ROUND.repeat(ABC_EXTRA_ROUNDS)
    )
}

/// Smallest group of flip-flops that keeps a shared clock enable (`synth_ice40
/// -dffe_min_ce_use`): a tile's 8 logic cells.
pub const DFFE_MIN_CE_USE: usize = 8;

/// `Warning:` lines of a yosys log, without repeats.
pub fn yosys_warnings(log: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in log.lines() {
        if l.starts_with("Warning:") && !out.iter().any(|w| w == l) {
            out.push(l.to_string());
        }
    }
    out
}

/// Lints rust-hdl Verilog (top module `top`) with `verilator --lint-only -Wall`, minus the
/// warnings listed in [`LINT_SUPPRESSED`]. Writes `lint.v` and `verilator-lint.log` to
/// `work_dir`.
pub fn lint_verilog(verilog: &str, work_dir: &Path) -> Result<()> {
    lint_verilog_top(verilog, "top", work_dir)
}

/// [`lint_verilog`] with another top module.
pub fn lint_verilog_top(verilog: &str, top: &str, work_dir: &Path) -> Result<()> {
    fs::create_dir_all(work_dir)
        .with_context(|| format!("cannot create work directory {}", work_dir.display()))?;
    let file = "lint.v";
    fs::write(work_dir.join(file), verilog)
        .with_context(|| format!("cannot write {}", work_dir.join(file).display()))?;
    let suppress: Vec<String> = LINT_SUPPRESSED
        .iter()
        .map(|(w, _)| format!("-Wno-{w}"))
        .collect();
    let mut args: Vec<&str> = vec!["--lint-only", "-Wall"];
    args.extend(suppress.iter().map(String::as_str));
    args.extend(["--top-module", top, file]);
    run_tool("verilator", &args, work_dir, "verilator-lint.log")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_with(lc: &str, error: &str) -> String {
        format!(
            "Info: Device utilisation:\nInfo: \t         ICESTORM_LC:  {lc}/ 7680    99%\n\
             Info: \t        ICESTORM_RAM:    32/   32   100%\nInfo: Running main analytical \
             placer.\n{error}\n0 warnings, 1 error\n"
        )
    }

    #[test]
    fn yosys_keeps_clock_enables_of_a_tile_or_more() {
        let script = yosys_script(Path::new("/w/abc.script"));
        assert!(
            script.contains("synth_ice40 -dffe_min_ce_use 8 -top rnic_synth_top -run :map_luts")
                && script.contains(
                    "synth_ice40 -dffe_min_ce_use 8 -top rnic_synth_top -run map_cells: \
                     -json out.json"
                ),
            "{script}"
        );
    }

    #[test]
    fn lut_mapping_runs_the_flow_abc_script() {
        let script = yosys_script(Path::new("/w/abc.script"));
        assert!(
            script.contains("abc -dress -lut 4 -script /w/abc.script;"),
            "{script}"
        );
        // yosys's default mapping, the extra rounds, then lutpack.
        let abc = abc_script();
        let rounds = abc
            .strip_prefix(ABC_DEFAULT_MAPPING)
            .expect("starts with the default");
        let rounds = rounds
            .strip_suffix("lutpack -S 1\n")
            .expect("ends with lutpack");
        assert_eq!(rounds, ABC_ROUND.repeat(5), "{abc}");
    }

    #[test]
    fn says_whether_the_design_does_not_fit_or_does_not_place() {
        let dir = std::env::temp_dir().join(format!("rnic-bsp-fit-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let board = Board::AlchitryCu;
        let write = |log: &str| fs::write(dir.join("nextpnr.log"), log).unwrap();
        write(&log_with(
            "7764",
            "ERROR: Failed to expand region (0, 0) |_> (33, 33) of 7764 ICESTORM_LCs",
        ));
        let e = format!("{:#}", does_not_fit(board, &dir).unwrap());
        assert!(
            e.starts_with("the design does not fit the alchitry-cu"),
            "{e}"
        );
        assert!(e.contains("logic cells 7764/7680 (101 %)"), "{e}");
        // Under the device's count, but the placer cannot legalise.
        write(&log_with(
            "7522",
            "ERROR: Unable to find legal placement for all cells, design is probably at \
             utilisation limit.",
        ));
        let e = format!("{:#}", does_not_fit(board, &dir).unwrap());
        assert!(
            e.starts_with("the design does not place on the alchitry-cu"),
            "{e}"
        );
        assert!(e.contains("logic cells 7522/7680 (98 %)"), "{e}");
        assert!(e.contains("Unable to find legal placement"), "{e}");
        // Another nextpnr failure is not about size.
        write(&log_with("40", "ERROR: something else"));
        assert!(does_not_fit(board, &dir).is_none());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_run_stopped_at_its_limit_says_what_placement_gave() {
        let dir = std::env::temp_dir().join(format!("rnic-bsp-limit-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let board = Board::AlchitryCu;
        let stopped = TimedOut {
            tool: "nextpnr-ice40".to_string(),
            limit: Duration::from_secs(1800),
        };
        // Stopped while routing: the lines of the whole core's run (eighteenth session).
        let routing = "Info: Device utilisation:\n\
             Info: \t         ICESTORM_LC:  7475/ 7680    97%\n\
             Info: \t        ICESTORM_RAM:    32/   32   100%\n\n\
             Info: Max frequency for clock 'clk$SB_IO_IN_$glb_clk': 68.76 MHz (FAIL at 100.00 MHz)\n\n\
             Info: Routing..\nInfo: Routing 25871 arcs.\n\
             Info:      40000 |    18499      21500 |  514   486 |     16687|       2.25      90.67|\n";
        fs::write(dir.join("nextpnr.log"), routing).unwrap();
        let e = format!("{:#}", did_not_finish(board, &dir, "nextpnr.log", &stopped));
        assert!(
            e.starts_with(
                "nextpnr-ice40 did not finish within 1800 s and was stopped on the alchitry-cu"
            ),
            "{e}"
        );
        assert!(
            e.contains("logic cells 7475/7680 (97 %), block RAMs 32/32"),
            "{e}"
        );
        assert!(e.contains("Fmax estimated after placement 68.8 MHz"), "{e}");
        assert!(
            e.contains("it was routing (last line: `40000 | 18499 21500 | 514 486 | 16687|"),
            "{e}"
        );
        // Stopped before the placement's utilisation was written.
        fs::write(dir.join("nextpnr.log"), "Info: Packing constraints..\n").unwrap();
        let e = format!("{:#}", did_not_finish(board, &dir, "nextpnr.log", &stopped));
        assert!(e.contains("it had not placed the design yet"), "{e}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_tool_past_its_limit_is_stopped() {
        let dir = std::env::temp_dir().join(format!("rnic-bsp-stop-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let start = Instant::now();
        let e =
            run_tool_within("sleep", &["30"], &dir, "sleep.log", Some(Duration::ZERO)).unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(10), "not stopped");
        let t = e.downcast_ref::<TimedOut>().expect("a TimedOut error");
        assert_eq!(t.tool, "sleep");
        // Within its limit, a tool's exit status is the result as before.
        run_tool_within("true", &[], &dir, "true.log", Some(Duration::from_secs(60))).unwrap();
        assert!(run_tool_within(
            "false",
            &[],
            &dir,
            "false.log",
            Some(Duration::from_secs(60))
        )
        .is_err());
        fs::remove_dir_all(&dir).unwrap();
    }

    /// `scripts/flat_core.sh` spells out the flow's ABC script and yosys commands (a shell
    /// script cannot call `abc_script`): it must run the same mapping as the flow, or its
    /// figures stop predicting the flow's.
    #[test]
    fn flat_core_script_follows_the_flow() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/flat_core.sh");
        let sh = fs::read_to_string(path).unwrap();
        // The printf line's arguments: the default mapping, then the rounds.
        assert!(sh.contains(&format!("\"{ABC_DEFAULT_MAPPING}\"")), "{path}");
        assert!(sh.contains(&format!("round=\"{ABC_ROUND}\"")), "{path}");
        let rounds = sh.matches("\"$round\"").count();
        assert_eq!(rounds, ABC_EXTRA_ROUNDS, "{path}: rounds of ABC_ROUND");
        assert!(abc_script().ends_with("lutpack -S 1\n") && sh.contains("lutpack -S 1\\n"));
        // The yosys commands, less the harness: every command of the flow's script but
        // `read_verilog` and `setattr`, with `top` for the harness's top (and but the
        // statistics' `tee`: the script prints them as text for its own parsing).
        let flow = yosys_script(Path::new("$dir/abc.script")).replace(HARNESS_TOP, "top");
        for cmd in flow.split(';').map(str::trim) {
            if ["read_verilog", "setattr", "tee"]
                .iter()
                .any(|c| cmd.starts_with(c))
                || cmd.is_empty()
            {
                continue;
            }
            let cmd = cmd.split_whitespace().collect::<Vec<_>>().join(" ");
            let flat = sh.split_whitespace().collect::<Vec<_>>().join(" ");
            let first = cmd.split(" -json").next().unwrap();
            assert!(flat.contains(first), "{path} lacks `{first}`");
        }
    }
}
