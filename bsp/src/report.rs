//! Figures from nextpnr (its `--report` JSON, or its log as a fall-back) and the synthesis
//! report built from them.

use std::fmt;
use std::path::PathBuf;

use anyhow::{anyhow, bail, Context, Result};
use serde::Serialize;
use serde_json::Value;

use crate::board::Board;
use crate::harness::{Harness, HARNESS_TOP};

/// Used / available count of one resource.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Utilisation {
    pub used: u32,
    pub total: u32,
}

impl Utilisation {
    /// Percentage used (0 when the device has none).
    pub fn percent(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            100.0 * f64::from(self.used) / f64::from(self.total)
        }
    }
}

/// Achieved frequency of one clock domain.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClockFmax {
    /// Clock net name as nextpnr reports it (e.g. `clk$SB_IO_IN_$glb_clk`).
    pub net: String,
    pub achieved_mhz: f64,
    /// Target nextpnr checked against, when it says.
    pub constraint_mhz: Option<f64>,
}

/// What nextpnr reports after routing.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct NextpnrFigures {
    pub logic_cells: Utilisation,
    pub bram: Utilisation,
    pub io: Utilisation,
    pub global_buffers: Utilisation,
    pub clocks: Vec<ClockFmax>,
    /// The longest path that starts or ends at an I/O tile (nextpnr reports it as from or to
    /// `<async>`), in ns. nextpnr 0.4 times the iCE40 I/O tiles' registers as asynchronous
    /// start and end points, so its clock Fmax leaves out the paths from the harness's pin
    /// input registers through the block's logic and into its I/O-tile output registers; the
    /// clocks' `achieved_mhz` here are therefore at most `1000 / io_path_ns` (see
    /// `with_io_paths`).
    pub io_path_ns: Option<f64>,
}

/// Caps every clock's Fmax of `figures` at what its I/O paths allow (`1000 / io_path_ns`):
/// a path from an I/O register's output to a flip-flop, or from a flip-flop to an I/O
/// register, must fit in one period too. Harness-only paths (the fold into the pins, `sin`
/// into the shift register, `hoe` to the output enables) count as well, which can only make
/// the figure lower.
fn with_io_paths(mut figures: NextpnrFigures) -> NextpnrFigures {
    if let Some(ns) = figures.io_path_ns.filter(|ns| *ns > 0.0) {
        for c in &mut figures.clocks {
            c.achieved_mhz = c.achieved_mhz.min(1000.0 / ns);
        }
    }
    figures
}

impl NextpnrFigures {
    /// Fmax of the clock driven by the pin `pin` (nextpnr names the net `pin`, `pin$...`); or
    /// of the only clock when there is just one.
    pub fn clock(&self, pin: &str) -> Result<&ClockFmax> {
        let on_pin = |c: &&ClockFmax| c.net == pin || c.net.starts_with(&format!("{pin}$"));
        if let Some(c) = self.clocks.iter().find(on_pin) {
            return Ok(c);
        }
        match self.clocks.as_slice() {
            [only] => Ok(only),
            [] => bail!("nextpnr reported no clock (does the design have registers?)"),
            many => bail!(
                "nextpnr reported no clock on pin `{pin}` among {}",
                many.iter()
                    .map(|c| c.net.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// Parses nextpnr's `--report` JSON (`utilization` and `fmax` objects).
pub fn parse_nextpnr_report(json: &str) -> Result<NextpnrFigures> {
    let v: Value = serde_json::from_str(json).context("nextpnr report is not valid JSON")?;
    let util = v
        .get("utilization")
        .and_then(Value::as_object)
        .ok_or_else(|| anyhow!("nextpnr report has no `utilization` object"))?;
    let get = |kind: &str| -> Result<Utilisation> {
        match util.get(kind) {
            None => Ok(Utilisation::default()),
            Some(u) => {
                let field = |f: &str| {
                    u.get(f)
                        .and_then(Value::as_u64)
                        .and_then(|n| u32::try_from(n).ok())
                        .ok_or_else(|| anyhow!("nextpnr report: `{kind}.{f}` is not a count"))
                };
                Ok(Utilisation {
                    used: field("used")?,
                    total: field("available")?,
                })
            }
        }
    };
    let mut figures = NextpnrFigures {
        logic_cells: get("ICESTORM_LC")?,
        bram: get("ICESTORM_RAM")?,
        io: get("SB_IO")?,
        global_buffers: get("SB_GB")?,
        clocks: Vec::new(),
        io_path_ns: None,
    };
    if !util.contains_key("ICESTORM_LC") {
        bail!("nextpnr report has no ICESTORM_LC utilisation (not an iCE40 design?)");
    }
    if let Some(fmax) = v.get("fmax").and_then(Value::as_object) {
        for (net, f) in fmax {
            let achieved_mhz = f
                .get("achieved")
                .and_then(Value::as_f64)
                .ok_or_else(|| anyhow!("nextpnr report: fmax of `{net}` has no `achieved`"))?;
            figures.clocks.push(ClockFmax {
                net: net.clone(),
                achieved_mhz,
                constraint_mhz: f.get("constraint").and_then(Value::as_f64),
            });
        }
    }
    for cp in v
        .get("critical_paths")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if cp["from"] != "<async>" && cp["to"] != "<async>" {
            continue;
        }
        let ns: f64 = cp["path"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|seg| seg["delay"].as_f64())
            .sum();
        figures.io_path_ns = Some(figures.io_path_ns.map_or(ns, |m: f64| m.max(ns)));
    }
    Ok(with_io_paths(figures))
}

/// Parses nextpnr's log: the last `Device utilisation:` block and, per clock, the last
/// `Max frequency for clock '...': N MHz` line (the post-route figure).
pub fn parse_nextpnr_log(log: &str) -> Result<NextpnrFigures> {
    let lines: Vec<&str> = log.lines().map(strip_info).collect();
    let start = lines
        .iter()
        .rposition(|l| l.trim() == "Device utilisation:")
        .ok_or_else(|| anyhow!("nextpnr log has no `Device utilisation:` block"))?;
    let mut figures = NextpnrFigures::default();
    let mut seen_lc = false;
    for l in &lines[start + 1..] {
        let Some((kind, rest)) = l.trim().split_once(':') else {
            break;
        };
        let Some((used, rest)) = rest.split_once('/') else {
            break;
        };
        let total = rest.split_whitespace().next().unwrap_or("");
        let (Ok(used), Ok(total)) = (used.trim().parse::<u32>(), total.parse::<u32>()) else {
            break;
        };
        let u = Utilisation { used, total };
        match kind.trim() {
            "ICESTORM_LC" => {
                figures.logic_cells = u;
                seen_lc = true;
            }
            "ICESTORM_RAM" => figures.bram = u,
            "SB_IO" => figures.io = u,
            "SB_GB" => figures.global_buffers = u,
            _ => {}
        }
    }
    if !seen_lc {
        bail!("nextpnr log: no ICESTORM_LC line in the `Device utilisation:` block");
    }
    for l in &lines {
        let Some(rest) = l.trim().strip_prefix("Max frequency for clock") else {
            continue;
        };
        let parsed = (|| {
            let rest = rest.trim().strip_prefix('\'')?;
            let (net, rest) = rest.split_once("':")?;
            let mut words = rest.split_whitespace();
            let achieved_mhz: f64 = words.next()?.parse().ok()?;
            // "(PASS at 100.00 MHz)" / "(FAIL at 100.00 MHz)"
            let constraint_mhz = rest
                .split_once(" at ")
                .and_then(|(_, c)| c.split_whitespace().next())
                .and_then(|c| c.parse().ok());
            Some(ClockFmax {
                net: net.to_string(),
                achieved_mhz,
                constraint_mhz,
            })
        })()
        .ok_or_else(|| anyhow!("nextpnr log: cannot parse `{}`", l.trim()))?;
        match figures.clocks.iter_mut().find(|c| c.net == parsed.net) {
            Some(c) => *c = parsed,
            None => figures.clocks.push(parsed),
        }
    }
    // "Max delay <async> -> posedge clk: 1.88 ns", of the last block (post-route): each
    // block starts with its "Max frequency" lines.
    let mut io: Vec<f64> = Vec::new();
    for l in &lines {
        if l.trim().starts_with("Max frequency for clock") {
            io.clear();
        }
        let Some(rest) = l.trim().strip_prefix("Max delay") else {
            continue;
        };
        let Some((pair, delay)) = rest.rsplit_once(':') else {
            continue;
        };
        if !pair.contains("<async>") {
            continue;
        }
        if let Some(ns) = delay
            .trim()
            .strip_suffix("ns")
            .and_then(|d| d.trim().parse::<f64>().ok())
        {
            io.push(ns);
        }
    }
    figures.io_path_ns = io.into_iter().reduce(f64::max);
    Ok(with_io_paths(figures))
}

/// Cells of one module after `synth_ice40`, before packing into logic cells.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CellCounts {
    /// `SB_LUT4`.
    pub luts: u32,
    /// `SB_DFF*` (all flip-flop flavours).
    pub flip_flops: u32,
    /// `SB_CARRY`.
    pub carries: u32,
    /// `SB_RAM40_4K`.
    pub brams: u32,
    /// Any other primitive (`SB_IO`, `SB_PLL40_*`, ...); instances of user modules are not
    /// counted.
    pub other: u32,
}

/// Parses `stat -json` output of yosys: cell counts per module, keyed by module name
/// (without yosys's leading `\`).
pub fn parse_yosys_stat(json: &str) -> Result<Vec<(String, CellCounts)>> {
    let v: Value = serde_json::from_str(json).context("yosys stat is not valid JSON")?;
    let modules = v
        .get("modules")
        .and_then(Value::as_object)
        .ok_or_else(|| anyhow!("yosys stat has no `modules` object"))?;
    let mut out = Vec::new();
    for (name, m) in modules {
        let mut c = CellCounts::default();
        if let Some(types) = m.get("num_cells_by_type").and_then(Value::as_object) {
            for (ty, n) in types {
                let n = n
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| anyhow!("yosys stat: count of `{ty}` is not a number"))?;
                match ty.as_str() {
                    "SB_LUT4" => c.luts += n,
                    "SB_CARRY" => c.carries += n,
                    "SB_RAM40_4K" => c.brams += n,
                    t if t.starts_with("SB_DFF") => c.flip_flops += n,
                    t if t.starts_with("SB_") => c.other += n,
                    _ => {}
                }
            }
        }
        out.push((name.trim_start_matches('\\').to_string(), c));
    }
    Ok(out)
}

fn strip_info(line: &str) -> &str {
    line.strip_prefix("Info:").unwrap_or(line)
}

/// Result of one run of the synthesis flow.
///
/// Logic cells: `logic_cells_used` is nextpnr's count for the whole placed design, which
/// includes the synthesis harness (see [`crate::harness`]). `harness_logic_cells` is what the
/// harness occupies: its flip-flops plus its LUTs from yosys (no harness LUT drives a harness
/// flip-flop: the fold's XORs drive pins), or the planned count when yosys's statistics are
/// unavailable, less the harness output registers nextpnr packs into the cells of the block's
/// LUTs ([`SynthReport::credit_packed_registers`]). `dut_logic_cells` =
/// `logic_cells_used − harness_logic_cells` is the block's own figure. `dut_cells` is the block's exact
/// yosys cell count (before packing). Fmax is that of the board clock; every path it covers
/// starts and ends at a flip-flop, at the block's boundary at the latest, and it includes the
/// paths from and to the I/O tiles' registers (`io_path_ns`), which nextpnr 0.4 reports apart.
#[derive(Clone, Debug, Serialize)]
pub struct SynthReport {
    pub board: Board,
    pub logic_cells_used: u32,
    pub logic_cells_total: u32,
    pub bram_used: u32,
    pub bram_total: u32,
    pub io_used: u32,
    pub io_total: u32,
    pub global_buffers_used: u32,
    /// Post-route Fmax of the board clock, in MHz (capped by `io_path_ns`).
    pub fmax_mhz: f64,
    /// The longest post-route path from or to an I/O tile, in ns
    /// ([`NextpnrFigures::io_path_ns`]).
    pub io_path_ns: Option<f64>,
    /// The board clock frequency, in MHz.
    pub target_mhz: f64,
    /// `fmax_mhz >= target_mhz`.
    pub timing_met: bool,
    /// nextpnr's name of the clock net.
    pub clock_net: String,
    pub harness: Harness,
    pub harness_logic_cells: u32,
    /// Harness output registers packed into the cells of the block's LUTs (not counted in
    /// `harness_logic_cells`).
    pub harness_packed_registers: u32,
    pub dut_logic_cells: u32,
    /// The block's cells from yosys (module `top` and everything inside it).
    pub dut_cells: Option<CellCounts>,
    /// `Warning:` lines of the yosys log (deduplicated).
    pub yosys_warnings: Vec<String>,
    /// Where the nextpnr figures came from: `report.json` or `nextpnr.log`.
    pub figures_source: String,
    pub work_dir: PathBuf,
    pub bitstream: PathBuf,
}

impl SynthReport {
    /// Builds the report from nextpnr's figures, the harness shape and, when available,
    /// yosys's per-module cell counts (`stat`, with the harness module [`HARNESS_TOP`] and the
    /// block `top` kept apart).
    pub fn new(
        board: Board,
        figures: &NextpnrFigures,
        harness: Harness,
        yosys_stat: Option<&[(String, CellCounts)]>,
        clock_pin: &str,
    ) -> Result<Self> {
        let clock = figures.clock(clock_pin)?;
        let target_mhz = board.clock_mhz();
        let module = |name: &str| {
            yosys_stat.and_then(|s| s.iter().find(|(n, _)| n == name).map(|(_, c)| *c))
        };
        let harness_logic_cells = match module(HARNESS_TOP) {
            Some(c) => c.flip_flops + c.luts,
            None => u32::try_from(harness.logic_cells()).unwrap_or(u32::MAX),
        };
        Ok(SynthReport {
            board,
            logic_cells_used: figures.logic_cells.used,
            logic_cells_total: figures.logic_cells.total,
            bram_used: figures.bram.used,
            bram_total: figures.bram.total,
            io_used: figures.io.used,
            io_total: figures.io.total,
            global_buffers_used: figures.global_buffers.used,
            fmax_mhz: clock.achieved_mhz,
            io_path_ns: figures.io_path_ns,
            target_mhz,
            timing_met: clock.achieved_mhz >= target_mhz,
            clock_net: clock.net.clone(),
            harness,
            harness_logic_cells,
            harness_packed_registers: 0,
            dut_logic_cells: figures.logic_cells.used.saturating_sub(harness_logic_cells),
            dut_cells: module("top"),
            yosys_warnings: Vec::new(),
            figures_source: String::new(),
            work_dir: PathBuf::new(),
            bitstream: PathBuf::new(),
        })
    }

    /// Moves `packed` harness output registers, which nextpnr packed into the logic cells of
    /// the block's LUTs that drive them ([`crate::harness::packed_output_registers`]), from the
    /// harness's logic cells to the block's.
    pub fn credit_packed_registers(&mut self, packed: usize) {
        let packed = u32::try_from(packed)
            .unwrap_or(u32::MAX)
            .min(self.harness_logic_cells);
        self.harness_logic_cells -= packed;
        self.harness_packed_registers += packed;
        self.dut_logic_cells = self
            .logic_cells_used
            .saturating_sub(self.harness_logic_cells);
    }

    /// The report as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("SynthReport serializes")
    }
}

/// `name[lo:hi]` runs of port bits, e.g. `a[0], b[7:4]`.
fn bit_ranges(bits: &[(String, usize)]) -> String {
    let mut runs: Vec<(String, usize, usize)> = Vec::new();
    for (name, b) in bits {
        match runs.last_mut() {
            Some((n, _, hi)) if n == name && *hi + 1 == *b => *hi = *b,
            _ => runs.push((name.clone(), *b, *b)),
        }
    }
    runs.iter()
        .map(|(n, lo, hi)| {
            if lo == hi {
                format!("{n}[{lo}]")
            } else {
                format!("{n}[{hi}:{lo}]")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn pct(used: u32, total: u32) -> String {
    format!("{:5.1}%", Utilisation { used, total }.percent())
}

impl fmt::Display for SynthReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let h = &self.harness;
        let rule = format!("+{}+{}+{}+", "-".repeat(34), "-".repeat(17), "-".repeat(9));
        let row = |f: &mut fmt::Formatter<'_>, a: &str, b: &str, c: &str| {
            writeln!(f, "| {a:<32} | {b:>15} | {c:>7} |")
        };
        writeln!(f, "Synthesis report: {}", self.board.description())?;
        writeln!(f, "{rule}")?;
        row(f, "resource", "used / total", "util")?;
        writeln!(f, "{rule}")?;
        let lc = |used: u32| format!("{used} / {}", self.logic_cells_total);
        row(
            f,
            "logic cells, total",
            &lc(self.logic_cells_used),
            &pct(self.logic_cells_used, self.logic_cells_total),
        )?;
        row(
            f,
            "  harness (pins wrapper)",
            &self.harness_logic_cells.to_string(),
            "",
        )?;
        row(
            f,
            "  block",
            &lc(self.dut_logic_cells),
            &pct(self.dut_logic_cells, self.logic_cells_total),
        )?;
        if let Some(c) = &self.dut_cells {
            row(
                f,
                "block LUT4 / DFF / carry (yosys)",
                &format!("{} / {} / {}", c.luts, c.flip_flops, c.carries),
                "",
            )?;
        }
        row(
            f,
            "block RAM (4 kbit)",
            &format!("{} / {}", self.bram_used, self.bram_total),
            &pct(self.bram_used, self.bram_total),
        )?;
        row(
            f,
            "I/O pins (harness)",
            &format!("{} / {}", self.io_used, self.io_total),
            "",
        )?;
        row(
            f,
            "global buffers",
            &self.global_buffers_used.to_string(),
            "",
        )?;
        writeln!(f, "{rule}")?;
        row(
            f,
            "Fmax (post-route)",
            &format!("{:.2} MHz", self.fmax_mhz),
            "",
        )?;
        if let Some(ns) = self.io_path_ns {
            row(f, "  longest I/O-tile path", &format!("{ns:.2} ns"), "")?;
        }
        row(
            f,
            "target",
            &format!("{:.2} MHz", self.target_mhz),
            if self.timing_met { "MET" } else { "FAILED" },
        )?;
        writeln!(f, "{rule}")?;
        writeln!(
            f,
            "Harness: {} block input bits ({} from pin input registers, {} from flip-flops of block \
             outputs, {} from the shift register, {} unread and tied to 0), {} block output bits ({} combinational, registered; {} of them in I/O-tile registers, {} \
             of the others on pins' falling-edge registers) XOR-folded by {} LUTs into {} pins{}.",
            h.input_bits,
            h.input_pins,
            h.looped_inputs,
            h.input_bits - h.input_pins - h.looped_inputs - h.unused_input_bits,
            h.unused_input_bits,
            h.output_bits,
            h.output_register_bits() + h.io_registered_outputs.len(),
            h.io_registered_outputs.len(),
            h.ddr_outputs,
            h.fold_luts(),
            h.output_pins,
            if h.has_clock {
                "; `clock` on the board clock"
            } else {
                "; no `clock` input"
            }
        )?;
        if !h.registered_outputs.is_empty() {
            writeln!(
                f,
                "Combinational block outputs (registered by the harness; {} of these registers \
                 packed with the block's LUTs): {}.",
                self.harness_packed_registers,
                bit_ranges(&h.registered_outputs)
            )?;
        }
        if !self.yosys_warnings.is_empty() {
            writeln!(f, "yosys warnings ({}):", self.yosys_warnings.len())?;
            for w in self.yosys_warnings.iter().take(10) {
                writeln!(f, "  {w}")?;
            }
        }
        if !self.bitstream.as_os_str().is_empty() {
            writeln!(f, "Bitstream: {}", self.bitstream.display())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = r#"{"critical_paths": [], "fmax": {"clk$SB_IO_IN_$glb_clk": {"achieved": 244.20025634765625, "constraint": 100}}, "utilization": {"ICESTORM_LC": {"available": 7680, "used": 40}, "ICESTORM_PLL": {"available": 2, "used": 0}, "ICESTORM_RAM": {"available": 32, "used": 3}, "SB_GB": {"available": 8, "used": 1}, "SB_IO": {"available": 256, "used": 3}, "SB_WARMBOOT": {"available": 1, "used": 0}}}"#;

    const LOG: &str = "Info: Packing constants..
Info: Device utilisation:
Info: \t         ICESTORM_LC:    40/ 7680     0%
Info: \t        ICESTORM_RAM:     3/   32     9%
Info: \t               SB_IO:     3/  256     1%
Info: \t               SB_GB:     1/    8    12%
Info: \t        ICESTORM_PLL:     0/    2     0%
Info: \t         SB_WARMBOOT:     0/    1     0%
Info: 
Info: Placed 3 cells based on constraints.
Info: Max frequency for clock 'clk$SB_IO_IN_$glb_clk': 257.07 MHz (PASS at 100.00 MHz)
Info: Max frequency for clock 'clk$SB_IO_IN_$glb_clk': 87.50 MHz (FAIL at 100.00 MHz)
Info: Program finished normally.
";

    const STAT: &str = r#"{
   "creator": "Yosys 0.23 (git sha1 7ce5011c24b)",
   "invocation": "stat -json ",
   "modules": {
      "\\rnic_synth_top": {
         "num_cells": 35,
         "num_cells_by_type": { "SB_DFF": 30, "SB_LUT4": 4, "top": 1 }
      },
      "\\top": {
         "num_cells": 29,
         "num_cells_by_type": {
            "SB_CARRY": 7, "SB_DFF": 8, "SB_DFFE": 1, "SB_LUT4": 9, "SB_RAM40_4K": 2,
            "SB_PLL40_CORE": 1
         }
      }
   }
}"#;

    #[test]
    fn parses_yosys_stat() {
        let stat = parse_yosys_stat(STAT).unwrap();
        assert_eq!(stat.len(), 2);
        let (name, h) = &stat[0];
        assert_eq!(name, "rnic_synth_top");
        assert_eq!((h.flip_flops, h.luts), (30, 4));
        let (name, t) = &stat[1];
        assert_eq!(name, "top");
        assert_eq!(
            *t,
            CellCounts {
                luts: 9,
                flip_flops: 9,
                carries: 7,
                brams: 2,
                other: 1
            }
        );
        assert!(parse_yosys_stat("{}").is_err());
    }

    #[test]
    fn parses_report_json() {
        let f = parse_nextpnr_report(REPORT).unwrap();
        assert_eq!(
            f.logic_cells,
            Utilisation {
                used: 40,
                total: 7680
            }
        );
        assert_eq!(f.bram, Utilisation { used: 3, total: 32 });
        assert_eq!(
            f.io,
            Utilisation {
                used: 3,
                total: 256
            }
        );
        assert_eq!(f.global_buffers.used, 1);
        let c = f.clock("clk").unwrap();
        assert!((c.achieved_mhz - 244.2).abs() < 0.01);
        assert_eq!(c.constraint_mhz, Some(100.0));
    }

    #[test]
    fn io_paths_cap_the_fmax() {
        // nextpnr 0.4 times I/O-tile registers as `<async>`: a 12.5 ns path from a pin's input
        // register into the block caps the clock at 80 MHz; a 4 ns one does not.
        let path = |from: &str, to: &str, d: &[f64]| {
            let segs: Vec<String> = d
                .iter()
                .map(|x| format!(r#"{{"delay": {x}, "type": "routing"}}"#))
                .collect();
            format!(
                r#"{{"from": "{from}", "to": "{to}", "path": [{}]}}"#,
                segs.join(", ")
            )
        };
        let with = |paths: &[String]| {
            REPORT.replace(
                r#""critical_paths": []"#,
                &format!(r#""critical_paths": [{}]"#, paths.join(", ")),
            )
        };
        let clk = "posedge clk$SB_IO_IN_$glb_clk";
        let f = parse_nextpnr_report(&with(&[
            path(clk, clk, &[1.0, 3.0]),
            path("<async>", clk, &[0.5, 12.0]),
            path(clk, "<async>", &[4.0]),
        ]))
        .unwrap();
        assert_eq!(f.io_path_ns, Some(12.5));
        assert!((f.clock("clk").unwrap().achieved_mhz - 80.0).abs() < 1e-9);
        let f = parse_nextpnr_report(&with(&[path(clk, "<async>", &[1.5, 2.5])])).unwrap();
        assert_eq!(f.io_path_ns, Some(4.0));
        assert!((f.clock("clk").unwrap().achieved_mhz - 244.2).abs() < 0.01);
        // The log: the post-route block's "Max delay" lines.
        let log = LOG.replace(
            "Info: Max frequency for clock 'clk$SB_IO_IN_$glb_clk': 87.50 MHz (FAIL at 100.00 MHz)\n",
            "Info: Max delay posedge clk$SB_IO_IN_$glb_clk -> <async>: 30.00 ns\n\
             Info: Max frequency for clock 'clk$SB_IO_IN_$glb_clk': 87.50 MHz (FAIL at 100.00 MHz)\n\
             Info: Max delay <async> -> <async>: 5.00 ns\n\
             Info: Max delay <async> -> posedge clk$SB_IO_IN_$glb_clk: 12.50 ns\n",
        );
        assert_ne!(log, LOG);
        let f = parse_nextpnr_log(&log).unwrap();
        assert_eq!(f.io_path_ns, Some(12.5));
        assert!((f.clock("clk").unwrap().achieved_mhz - 80.0).abs() < 1e-9);
    }

    #[test]
    fn parses_log_taking_last_fmax() {
        let f = parse_nextpnr_log(LOG).unwrap();
        assert_eq!(
            f.logic_cells,
            Utilisation {
                used: 40,
                total: 7680
            }
        );
        assert_eq!(f.bram, Utilisation { used: 3, total: 32 });
        assert_eq!(f.io.used, 3);
        assert_eq!(f.clocks.len(), 1);
        let c = f.clock("clk").unwrap();
        assert_eq!(c.net, "clk$SB_IO_IN_$glb_clk");
        assert!((c.achieved_mhz - 87.5).abs() < 1e-9);
        assert_eq!(c.constraint_mhz, Some(100.0));
    }

    #[test]
    fn rejects_bad_inputs() {
        assert!(parse_nextpnr_report("{").is_err());
        assert!(parse_nextpnr_report(r#"{"fmax": {}}"#).is_err());
        assert!(parse_nextpnr_log("Info: nothing here\n").is_err());
        let f = NextpnrFigures::default();
        assert!(f.clock("clk").is_err());
    }

    #[test]
    fn report_table_and_json() {
        let f = parse_nextpnr_log(LOG).unwrap();
        let harness = crate::harness::plan_harness(
            "module top(clock, a, y); input clock; input [7:0] a; output reg [7:0] y; endmodule",
        )
        .unwrap();
        // Without yosys statistics: the planned (conservative) harness, 8 shift + 8 output
        // registers + 3 fold LUTs (9 bits into `sout`).
        let r = SynthReport::new(Board::AlchitryCu, &f, harness.clone(), None, "clk").unwrap();
        assert_eq!(r.harness_logic_cells, 19);
        assert_eq!(r.dut_logic_cells, 21);
        assert_eq!(r.dut_cells, None);
        // With them: the harness module's flip-flops and LUTs.
        let stat = parse_yosys_stat(STAT).unwrap();
        let r = SynthReport::new(Board::AlchitryCu, &f, harness, Some(&stat), "clk").unwrap();
        assert!(!r.timing_met);
        assert_eq!(r.harness_logic_cells, 34);
        assert_eq!(r.dut_logic_cells, 6);
        assert_eq!(r.dut_cells.unwrap().luts, 9);
        let table = r.to_string();
        assert!(table.contains("40 / 7680"), "{table}");
        assert!(table.contains("87.50 MHz"), "{table}");
        assert!(
            table.contains("packed with the block's LUTs): y[7:0]."),
            "{table}"
        );
        assert!(table.contains("FAILED"), "{table}");
        let json: Value = serde_json::from_str(&r.to_json()).unwrap();
        assert_eq!(json["board"], "alchitry-cu");
        assert_eq!(json["logic_cells_used"], 40);
        assert_eq!(json["timing_met"], false);
    }
}
