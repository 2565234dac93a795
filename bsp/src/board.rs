//! Boards the flow can target.

use std::fmt;
use std::str::FromStr;

use anyhow::{bail, Result};
use serde::{Serialize, Serializer};

/// A target board: its FPGA, package, clock and pin constraints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Board {
    /// Alchitry Cu: Lattice iCE40-HX8K in the cb132 package, 100 MHz oscillator on pad P7.
    AlchitryCu,
}

impl Board {
    /// Every board, in the order error messages list them.
    pub const ALL: [Board; 1] = [Board::AlchitryCu];

    /// The name used on the command line (`--board alchitry-cu`).
    pub fn name(self) -> &'static str {
        match self {
            Board::AlchitryCu => "alchitry-cu",
        }
    }

    /// Human-readable description of the board and its device.
    pub fn description(self) -> &'static str {
        match self {
            Board::AlchitryCu => "Alchitry Cu (Lattice iCE40-HX8K, cb132)",
        }
    }

    /// Device selection arguments for `nextpnr-ice40`.
    pub fn nextpnr_device_args(self) -> &'static [&'static str] {
        match self {
            Board::AlchitryCu => &["--hx8k", "--package", "cb132"],
        }
    }

    /// Package pad of the board's clock oscillator.
    pub fn clock_pin(self) -> &'static str {
        match self {
            Board::AlchitryCu => "P7",
        }
    }

    /// Frequency of the board's clock, in MHz (the timing target of the flow).
    pub fn clock_mhz(self) -> f64 {
        match self {
            Board::AlchitryCu => 100.0,
        }
    }

    /// Logic cells (LUT4 + DFF) in the device.
    pub fn logic_cells(self) -> u32 {
        match self {
            Board::AlchitryCu => 7680,
        }
    }

    /// Block RAMs (4 kbit each) in the device.
    pub fn block_rams(self) -> u32 {
        match self {
            Board::AlchitryCu => 32,
        }
    }

    /// File name of the pin constraints (in the repository's `constraints/` folder).
    pub fn pcf_file_name(self) -> &'static str {
        match self {
            Board::AlchitryCu => "alchitry-cu.pcf",
        }
    }

    /// Contents of the pin constraints file, embedded at build time from `constraints/`.
    pub fn pcf(self) -> &'static str {
        match self {
            Board::AlchitryCu => include_str!("../../constraints/alchitry-cu.pcf"),
        }
    }

    /// The package's other user I/O pins, besides the clock pin and the harness's `sin` and
    /// `sout` (which [`Board::pcf`] places): the synthesis harness's further pins (see
    /// [`crate::harness`]). For the cb132 package of the HX8K, the 95 I/O pins of icestorm's
    /// pin database (`icebox.pinloc_db["8k-cb132"]`) less P7 (clock), M1 (`sin`) and L1
    /// (`sout`).
    pub fn harness_spare_pins(self) -> &'static [&'static str] {
        match self {
            Board::AlchitryCu => &[
                "A1", "A2", "A3", "A4", "A5", "A6", "A7", "A10", "A11", "A12", "B1", "B14", "C1",
                "C3", "C4", "C5", "C6", "C7", "C9", "C10", "C11", "C12", "C14", "D1", "D3", "D4",
                "D5", "D6", "D7", "D9", "D10", "D11", "D12", "D14", "E1", "E4", "E11", "E12",
                "E14", "F3", "F4", "F11", "F12", "F14", "G1", "G3", "G4", "G11", "G12", "G14",
                "H1", "H3", "H4", "H11", "H12", "J1", "J3", "J11", "J12", "K3", "K4", "K11", "K12",
                "K14", "L4", "L5", "L6", "L8", "L9", "L12", "L14", "M3", "M4", "M6", "M7", "M9",
                "M11", "M12", "N1", "N14", "P1", "P2", "P3", "P4", "P5", "P8", "P9", "P10", "P11",
                "P12", "P13", "P14",
            ],
        }
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Board {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> Result<Self> {
        let wanted = s.trim().to_ascii_lowercase();
        if let Some(board) = Board::ALL.iter().find(|b| b.name() == wanted) {
            return Ok(*board);
        }
        let known: Vec<&str> = Board::ALL.iter().map(|b| b.name()).collect();
        bail!("unknown board `{s}` (known boards: {})", known.join(", "))
    }
}

impl Serialize for Board {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_known_board() {
        assert_eq!("alchitry-cu".parse::<Board>().unwrap(), Board::AlchitryCu);
        assert_eq!(" Alchitry-Cu ".parse::<Board>().unwrap(), Board::AlchitryCu);
    }

    #[test]
    fn unknown_board_lists_known_ones() {
        let err = "icebreaker".parse::<Board>().unwrap_err().to_string();
        assert_eq!(
            err,
            "unknown board `icebreaker` (known boards: alchitry-cu)"
        );
        assert!(!err.contains('\n'));
    }

    #[test]
    fn pcf_has_harness_pins_and_clock() {
        let pcf = Board::AlchitryCu.pcf();
        assert!(pcf.contains("set_io clk P7"));
        assert!(pcf.contains("set_io sin "));
        assert!(pcf.contains("set_io sout "));
        let spare = Board::AlchitryCu.harness_spare_pins();
        assert_eq!(spare.len(), 95 - 3);
        for used in ["P7", "M1", "L1"] {
            assert!(!spare.contains(&used), "{used}");
        }
        assert_eq!(Board::AlchitryCu.clock_pin(), "P7");
        assert_eq!(Board::AlchitryCu.clock_mhz(), 100.0);
    }
}
