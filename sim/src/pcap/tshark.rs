//! An independent decoder for the captures: tshark (Wireshark 4.x) run over a pcap file, its
//! PDML output boiled down to what the tests check: every MPA Request / Reply, every FPDU with
//! its CRC verdict and DDP / RDMAP header, every malformed packet, expert item and bad IP / TCP
//! checksum.
//!
//! Invocation: `tshark -r FILE -n -T pdml --enable-heuristic iwarp_mpa_tcp
//! -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE`. The MPA heuristic (`iwarp_mpa_tcp`,
//! on by default) is enabled explicitly; checksum validation is off by default in tshark, so
//! it is turned on to let a bad checksum show (`ip.checksum.status`, `tcp.checksum.status`,
//! 0 = bad, 1 = good).
//!
//! Fields used (`tshark -G fields`, Wireshark 4.0):
//!
//! | field | what |
//! |---|---|
//! | `frame.number`, `ip.src`, `tcp.srcport`, `tcp.stream` | where an FPDU is, which way it went |
//! | `iwarp_mpa.req`, `iwarp_mpa.rep`, `iwarp_mpa.marker_flag`, `iwarp_mpa.crc_flag`, `iwarp_mpa.rej_flag`, `iwarp_mpa.rev` | MPA Request / Reply |
//! | `iwarp_mpa.fpdu`, `iwarp_mpa.ulpdulength` | one FPDU |
//! | `iwarp_mpa.crc_check` | CRC checked: `showname` ends in `(Good CRC32)` or `(Bad CRC32, should be 0x…)` |
//! | `iwarp_mpa.crc` | CRC present but not checked (CRC not negotiated) |
//! | `iwarp_mpa.marker_fpduptr` | one marker the dissector found in the FPDU's segment |
//! | `iwarp_ddp.tagged_flag`, `iwarp_ddp.last_flag`, `iwarp_rdma.opcode` | DDP / RDMAP header |
//! | `_ws.malformed` | malformed packet (an exception in a dissector) |
//! | `_ws.expert`, `_ws.expert.severity`, `_ws.expert.message` | expert info |
//! | `ip.checksum.status`, `tcp.checksum.status` | checksum verdicts |
//!
//! Wireshark 4.0's MPA dissector and markers (read from its source, `packet-iwarp-mpa.c`, and
//! seen in the tests):
//! * it places markers from the TCP sequence number of the segment and assumes one FPDU per
//!   segment when markers are on ([`super::mpa::MpaCapture`] writes captures that way);
//! * it treats both directions as marked when either M bit is set;
//! * it computes the CRC from the first octet of the segment, so a marker right before the
//!   FPDU header (FPDUPTR 0, at the start of FPDU mode and wherever an FPDU starts on the
//!   512-octet grid) is inside its CRC span. `rnic_proto::mpa` covers that marker by the CRC of
//!   the FPDU it begins too (`docs/decisions.md`, "Marker CRC coverage"), so every FPDU of a
//!   good capture must show "Good CRC32", markers on or off.

use super::Direction;
use anyhow::{anyhow, bail, Context, Result};
use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where tshark is expected.
pub const TSHARK: &str = "/usr/bin/tshark";

/// Options every decode uses (see the module documentation).
pub const TSHARK_OPTIONS: [&str; 7] = [
    "-n",
    "--enable-heuristic",
    "iwarp_mpa_tcp",
    "-o",
    "ip.check_checksum:TRUE",
    "-o",
    "tcp.check_checksum:TRUE",
];

/// Expert messages of Warning severity that are Wireshark's limits, not faults of the traffic:
/// Wireshark's MPA dissector knows RFC 5044 only and may flag every Rev 2 (RFC 6581) Request.
/// (4.0.17 does not show it in its output; newer versions might.)
pub const BENIGN_EXPERT_MESSAGES: [&str; 1] =
    ["Rev field is NOT set to one as required by RFC 5044"];

/// Expert info severities (`_ws.expert.severity`, Wireshark's `PI_*` values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// `PI_COMMENT`.
    Comment,
    /// `PI_CHAT`: e.g. "Connection establish request (SYN)".
    Chat,
    /// `PI_NOTE`: e.g. "This frame initiates the connection closing".
    Note,
    /// `PI_WARN`.
    Warning,
    /// `PI_ERROR`: malformed packets, bad checksums, bad lengths.
    Error,
}

impl Severity {
    fn from_pi(v: u32) -> Severity {
        match v {
            0x0080_0000.. => Severity::Error,
            0x0060_0000.. => Severity::Warning,
            0x0040_0000.. => Severity::Note,
            0x0020_0000.. => Severity::Chat,
            _ => Severity::Comment,
        }
    }
}

/// One expert info item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpertItem {
    /// Frame number.
    pub frame: u64,
    /// Severity.
    pub severity: Severity,
    /// The message.
    pub message: String,
}

/// Wireshark's verdict on an FPDU's CRC. Values are as Wireshark shows them: the four CRC
/// octets read big-endian (so the CRC value of `rnic_proto::crc32c`, byte-swapped).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrcVerdict {
    /// "Good CRC32".
    Good,
    /// "Bad CRC32, should be `expected`".
    Bad {
        /// The CRC field received.
        sent: u32,
        /// What Wireshark computed.
        expected: u32,
    },
    /// CRC not negotiated: the field is shown, not checked.
    NotChecked,
    /// No CRC item at all (the FPDU was not fully dissected).
    Missing,
}

/// An MPA Request or Reply as tshark decoded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MpaFrameInfo {
    /// Frame number.
    pub frame: u64,
    /// TCP stream index.
    pub stream: u32,
    /// `true` for a Request, `false` for a Reply.
    pub request: bool,
    /// M.
    pub markers: bool,
    /// C.
    pub crc: bool,
    /// R.
    pub reject: bool,
    /// Rev.
    pub revision: u8,
}

/// One FPDU as tshark decoded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FpduInfo {
    /// Frame number (of the last segment, when TCP reassembled the FPDU).
    pub frame: u64,
    /// TCP stream index.
    pub stream: u32,
    /// Which way it went, from the stream's MPA Request (`None` if none was seen).
    pub direction: Option<Direction>,
    /// ULPDU_Length.
    pub ulpdu_len: u16,
    /// CRC verdict.
    pub crc: CrcVerdict,
    /// Markers the dissector found in the FPDU's segment, a leading one included.
    pub markers: usize,
    /// The segment starts with a marker (FPDUPTR 0) before the FPDU header.
    pub leading_marker: bool,
    /// DDP T flag, if the DDP header was dissected.
    pub tagged: Option<bool>,
    /// DDP L flag, if the DDP header was dissected.
    pub last: Option<bool>,
    /// RDMAP opcode (`iwarp_rdma.opcode`), if dissected.
    pub opcode: Option<u8>,
    /// Wireshark's name of the opcode, e.g. "Write", "Read Request".
    pub opcode_name: Option<String>,
}

/// What tshark made of a capture.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TsharkSummary {
    /// Frames in the file.
    pub frames: u64,
    /// MPA Requests and Replies, in frame order.
    pub mpa_frames: Vec<MpaFrameInfo>,
    /// FPDUs, in the order tshark dissected them.
    pub fpdus: Vec<FpduInfo>,
    /// Frames with a malformed-packet item.
    pub malformed: Vec<u64>,
    /// Every expert info item.
    pub expert: Vec<ExpertItem>,
    /// Frames whose IPv4 header checksum or TCP checksum is bad.
    pub bad_checksums: Vec<u64>,
}

impl TsharkSummary {
    /// FPDUs that went in `dir`.
    pub fn fpdus_in(&self, dir: Direction) -> impl Iterator<Item = &FpduInfo> {
        self.fpdus.iter().filter(move |f| f.direction == Some(dir))
    }

    /// Expert items of at least `severity`.
    pub fn expert_at_least(&self, severity: Severity) -> impl Iterator<Item = &ExpertItem> {
        self.expert.iter().filter(move |e| e.severity >= severity)
    }

    /// Expert items of Warning or Error severity, except [`BENIGN_EXPERT_MESSAGES`].
    pub fn unexpected_expert(&self) -> impl Iterator<Item = &ExpertItem> {
        self.expert_at_least(Severity::Warning)
            .filter(|e| !BENIGN_EXPERT_MESSAGES.contains(&e.message.as_str()))
    }

    /// Everything wrong with the capture, one line each: malformed packets, expert items of
    /// Warning or Error severity (but [`BENIGN_EXPERT_MESSAGES`]), bad checksums, FPDUs whose
    /// CRC is not "Good CRC32" (a leading marker is in the CRC span, see the module
    /// documentation) or whose DDP / RDMAP header was not dissected, FPDUs of unknown direction.
    pub fn problems(&self) -> Vec<String> {
        let mut p = Vec::new();
        for f in &self.malformed {
            p.push(format!("frame {f}: malformed packet"));
        }
        for e in self.unexpected_expert() {
            p.push(format!(
                "frame {}: expert {:?}: {}",
                e.frame, e.severity, e.message
            ));
        }
        for f in &self.bad_checksums {
            p.push(format!("frame {f}: bad IPv4 or TCP checksum"));
        }
        for f in &self.fpdus {
            if f.crc != CrcVerdict::Good {
                p.push(format!("frame {}: FPDU CRC {:?}", f.frame, f.crc));
            }
            if f.opcode.is_none() || f.tagged.is_none() {
                p.push(format!(
                    "frame {}: FPDU without a DDP/RDMAP header",
                    f.frame
                ));
            }
            if f.direction.is_none() {
                p.push(format!(
                    "frame {}: FPDU on a stream with no MPA Request",
                    f.frame
                ));
            }
        }
        p
    }

    /// `Ok` if [`problems`](Self::problems) finds none, else an error listing them.
    pub fn check(&self) -> Result<()> {
        let p = self.problems();
        if p.is_empty() {
            Ok(())
        } else {
            bail!("tshark found {} problem(s):\n  {}", p.len(), p.join("\n  "))
        }
    }
}

/// The tshark binary, or an error that says how to install it.
pub fn tshark_path() -> Result<PathBuf> {
    let p = PathBuf::from(TSHARK);
    if p.exists() {
        return Ok(p);
    }
    // Elsewhere on PATH?
    if let Ok(out) = Command::new("tshark").arg("--version").output() {
        if out.status.success() {
            return Ok(PathBuf::from("tshark"));
        }
    }
    bail!("tshark not found ({TSHARK}, PATH): run scripts/install-deps.sh (installs the Debian package `tshark`)")
}

/// tshark's version line, e.g. "TShark (Wireshark) 4.0.17 ...".
pub fn tshark_version() -> Result<String> {
    let out = Command::new(tshark_path()?).arg("--version").output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text.lines().next().unwrap_or_default().to_string())
}

/// Decodes `path` with tshark and summarises it (see [`TsharkSummary`]). Fails if tshark is
/// missing, exits with an error, or prints no PDML; the summary itself says what tshark
/// thought of the traffic.
pub fn tshark_check(path: &Path) -> Result<TsharkSummary> {
    let tshark = tshark_path()?;
    let out = Command::new(&tshark)
        .arg("-r")
        .arg(path)
        .args(TSHARK_OPTIONS)
        .args(["-T", "pdml"])
        .output()
        .with_context(|| format!("running {}", tshark.display()))?;
    if !out.status.success() {
        bail!(
            "tshark -r {} failed ({}): {}",
            path.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let pdml = String::from_utf8(out.stdout).context("tshark PDML is not UTF-8")?;
    if !pdml.contains("<pdml") {
        bail!("tshark printed no PDML for {}", path.display());
    }
    parse_pdml(&pdml)
}

/// The value of attribute `name` in one PDML line, unescaped.
fn attr<'a>(line: &'a str, name: &str) -> Option<std::borrow::Cow<'a, str>> {
    let key = format!(" {name}=\"");
    let start = line.find(&key)? + key.len();
    let len = line[start..].find('"')?;
    let raw = &line[start..start + len];
    Some(if raw.contains('&') {
        std::borrow::Cow::Owned(
            raw.replace("&quot;", "\"")
                .replace("&apos;", "'")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&"),
        )
    } else {
        std::borrow::Cow::Borrowed(raw)
    })
}

fn parse_u32(s: &str) -> Option<u32> {
    match s.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

fn parse_bool(s: &str) -> bool {
    matches!(s, "1" | "True" | "true")
}

/// Per-packet parser state.
#[derive(Default)]
struct Packet {
    frame: u64,
    stream: u32,
    src: Option<(Ipv4Addr, u16)>,
    /// `pos` of the current `iwarp_mpa` proto element.
    mpa_pos: Option<u64>,
    /// Expert item being read: (severity, message).
    expert: Option<(Option<u32>, Option<String>)>,
}

/// Builds a summary from tshark's PDML (one element per line, as tshark writes it).
pub fn parse_pdml(pdml: &str) -> Result<TsharkSummary> {
    let mut s = TsharkSummary::default();
    let mut pkt = Packet::default();
    // FPDUs whose direction is resolved once their stream's Request is known.
    let mut initiators: HashMap<u32, (Ipv4Addr, u16)> = HashMap::new();
    let mut fpdu_src: Vec<Option<(Ipv4Addr, u16)>> = Vec::new();
    let mut cur_fpdu: Option<usize> = None;
    let mut cur_frame: Option<usize> = None;

    let flush_expert = |pkt: &mut Packet, s: &mut TsharkSummary| {
        if let Some((sev, msg)) = pkt.expert.take() {
            s.expert.push(ExpertItem {
                frame: pkt.frame,
                severity: Severity::from_pi(sev.unwrap_or(0)),
                message: msg.unwrap_or_default(),
            });
        }
    };

    for line in pdml.lines() {
        let line = line.trim_start();
        if line.starts_with("<packet") {
            pkt = Packet::default();
            cur_fpdu = None;
            cur_frame = None;
            s.frames += 1;
            continue;
        }
        if line.starts_with("</packet") {
            flush_expert(&mut pkt, &mut s);
            continue;
        }
        let is_proto = line.starts_with("<proto ");
        if !(is_proto || line.starts_with("<field ")) {
            continue;
        }
        let Some(name) = attr(line, "name") else {
            continue;
        };
        let name = name.as_ref();
        if !name.starts_with("_ws.expert") {
            flush_expert(&mut pkt, &mut s);
        }
        let show = attr(line, "show");
        let show = show.as_deref().unwrap_or("");
        let pos = attr(line, "pos").and_then(|p| p.parse::<u64>().ok());
        if name.starts_with("_ws.malformed") {
            if s.malformed.last() != Some(&pkt.frame) {
                s.malformed.push(pkt.frame);
            }
            continue;
        }
        match name {
            "frame.number" => pkt.frame = show.parse().unwrap_or(0),
            "ip.src" => {
                let ip = show.parse().ok();
                pkt.src = ip.map(|ip| (ip, pkt.src.map_or(0, |s| s.1)));
            }
            "tcp.srcport" => {
                if let (Some((ip, _)), Ok(port)) = (pkt.src, show.parse()) {
                    pkt.src = Some((ip, port));
                }
            }
            "tcp.stream" => pkt.stream = show.parse().unwrap_or(0),
            "ip.checksum.status" | "tcp.checksum.status" => {
                if show == "0" && s.bad_checksums.last() != Some(&pkt.frame) {
                    s.bad_checksums.push(pkt.frame);
                }
            }
            "_ws.expert" => {
                flush_expert(&mut pkt, &mut s);
                pkt.expert = Some((None, None));
            }
            "_ws.expert.severity" => {
                if let Some(e) = pkt.expert.as_mut() {
                    e.0 = parse_u32(show);
                }
            }
            "_ws.expert.message" => {
                if let Some(e) = pkt.expert.as_mut() {
                    e.1 = Some(show.to_string());
                }
            }
            "iwarp_mpa" if is_proto => {
                pkt.mpa_pos = pos;
                cur_fpdu = None;
                cur_frame = None;
            }
            "iwarp_mpa.req" | "iwarp_mpa.rep" => {
                let request = name == "iwarp_mpa.req";
                if request {
                    if let Some(src) = pkt.src {
                        initiators.entry(pkt.stream).or_insert(src);
                    }
                }
                s.mpa_frames.push(MpaFrameInfo {
                    frame: pkt.frame,
                    stream: pkt.stream,
                    request,
                    markers: false,
                    crc: false,
                    reject: false,
                    revision: 0,
                });
                cur_frame = Some(s.mpa_frames.len() - 1);
            }
            "iwarp_mpa.marker_flag"
            | "iwarp_mpa.crc_flag"
            | "iwarp_mpa.rej_flag"
            | "iwarp_mpa.rev" => {
                if let Some(f) = cur_frame.map(|i| &mut s.mpa_frames[i]) {
                    match name {
                        "iwarp_mpa.marker_flag" => f.markers = parse_bool(show),
                        "iwarp_mpa.crc_flag" => f.crc = parse_bool(show),
                        "iwarp_mpa.rej_flag" => f.reject = parse_bool(show),
                        _ => f.revision = show.parse().unwrap_or(0),
                    }
                }
            }
            "iwarp_mpa.fpdu" => {
                s.fpdus.push(FpduInfo {
                    frame: pkt.frame,
                    stream: pkt.stream,
                    direction: None,
                    ulpdu_len: 0,
                    crc: CrcVerdict::Missing,
                    markers: 0,
                    leading_marker: matches!((pos, pkt.mpa_pos), (Some(a), Some(b)) if a != b),
                    tagged: None,
                    last: None,
                    opcode: None,
                    opcode_name: None,
                });
                fpdu_src.push(pkt.src);
                cur_fpdu = Some(s.fpdus.len() - 1);
            }
            _ => {
                let Some(f) = cur_fpdu.map(|i| &mut s.fpdus[i]) else {
                    continue;
                };
                match name {
                    "iwarp_mpa.ulpdulength" => f.ulpdu_len = show.parse().unwrap_or(0),
                    "iwarp_mpa.crc_check" => {
                        let showname = attr(line, "showname").unwrap_or_default();
                        let sent = parse_u32(show).unwrap_or(0);
                        f.crc = if showname.contains("Good CRC32") {
                            CrcVerdict::Good
                        } else {
                            let expected = showname
                                .split("should be ")
                                .nth(1)
                                .and_then(|t| parse_u32(t.trim_end_matches(')')))
                                .ok_or_else(|| anyhow!("unexpected CRC item: {showname}"))?;
                            CrcVerdict::Bad { sent, expected }
                        };
                    }
                    "iwarp_mpa.crc" => f.crc = CrcVerdict::NotChecked,
                    "iwarp_mpa.marker_fpduptr" => f.markers += 1,
                    "iwarp_ddp.tagged_flag" => f.tagged = Some(parse_bool(show)),
                    "iwarp_ddp.last_flag" => f.last = Some(parse_bool(show)),
                    "iwarp_rdma.opcode" => {
                        f.opcode = parse_u32(show).and_then(|v| u8::try_from(v).ok());
                        let showname = attr(line, "showname").unwrap_or_default();
                        f.opcode_name = showname
                            .split("OpCode: ")
                            .nth(1)
                            .map(|t| t.rsplit_once(" (").map_or(t, |(n, _)| n).to_string());
                    }
                    _ => {}
                }
            }
        }
    }
    for (f, src) in s.fpdus.iter_mut().zip(fpdu_src) {
        f.direction = initiators.get(&f.stream).map(|ini| {
            if Some(*ini) == src {
                Direction::InitiatorToResponder
            } else {
                Direction::ResponderToInitiator
            }
        });
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severities() {
        assert_eq!(Severity::from_pi(0x0020_0000), Severity::Chat);
        assert_eq!(Severity::from_pi(0x0060_0000), Severity::Warning);
        assert_eq!(Severity::from_pi(0x0080_0000), Severity::Error);
    }
}
