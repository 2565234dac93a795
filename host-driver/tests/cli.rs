//! End-to-end tests of the `rnic` command line: Verilog generation, the real synthesis run on the
//! Alchitry Cu, and one-line errors for bad arguments.

use std::path::PathBuf;
use std::process::{Command, Output};

fn rnic(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rnic"))
        .args(args)
        .output()
        .expect("running rnic")
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `rnic verilog` writes the block's Verilog, which passes `verilator --lint-only -Wall` (with
/// the documented suppressions of `rnic_bsp::LINT_SUPPRESSED`), at every width.
#[test]
fn verilog_is_written_and_lints_clean() {
    let out = scratch("verilog");
    for width in ["8", "32", "64", "128"] {
        let o = rnic(&[
            "verilog",
            "--block",
            "crc32c",
            "--width",
            width,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let path = out.join(format!("crc32c_w{width}.v"));
        assert_eq!(
            String::from_utf8_lossy(&o.stdout).trim(),
            path.to_str().unwrap()
        );
        let verilog = std::fs::read_to_string(&path).unwrap();
        assert!(verilog.contains("module top(clock,data,keep,last,valid,crc,crc_valid);"));
        rnic_bsp::lint_verilog(&verilog, &out.join(format!("lint{width}"))).unwrap();
    }
    for block in [
        "mpa_tx",
        "mpa_rx",
        "ddp_rx_parse",
        "stag_check",
        "rx_control",
        "rx_place",
        "terminate_tx",
        "rx_path",
        "ulpdu_mux",
        "tx_arbiter",
        "read_responder",
        "host_if",
        "send_engine",
        "ddp_tx",
        "tx_path",
        "cqe_queue",
        "rnic",
    ] {
        let o = rnic(&[
            "verilog",
            "--block",
            block,
            "--width",
            "32",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let verilog = std::fs::read_to_string(out.join(format!("{block}_w32.v"))).unwrap();
        assert!(verilog.contains("module top("), "{block}");
        rnic_bsp::lint_verilog(&verilog, &out.join(format!("lint_{block}"))).unwrap();
    }
}

/// The must-show of the spine: the CRC-32C block at 32 bits meets 100 MHz on the HX8K, from the
/// real yosys + nextpnr-ice40 run (`--freq 100`), and the bitstream is written.
#[test]
fn synth_crc32c_w32_meets_100_mhz_on_alchitry_cu() {
    let dir = scratch("synth_crc32c_w32");
    let o = rnic(&[
        "synth",
        "--board",
        "alchitry-cu",
        "--block",
        "crc32c",
        "--width",
        "32",
        "--work-dir",
        dir.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let fmax: f64 = stdout
        .lines()
        .find(|l| l.contains("Fmax (post-route)"))
        .and_then(|l| l.split('|').nth(2))
        .and_then(|cell| cell.trim().strip_suffix("MHz"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no Fmax line in:\n{stdout}"));
    assert!(fmax >= 100.0, "Fmax {fmax} MHz");
    assert!(stdout.contains("MET"), "{stdout}");
    assert!(dir.join("out.bin").metadata().unwrap().len() > 0);
}

/// Bad arguments: one line on stderr, starting `rnic:`, and a non-zero exit.
#[test]
fn bad_arguments_are_one_line_errors() {
    let out = scratch("bad_args");
    let out = out.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["verilog", "--block", "nosuch", "--out", out],
            "unknown block 'nosuch'",
        ),
        (
            &[
                "verilog", "--block", "crc32c", "--width", "12", "--out", out,
            ],
            "does not build at width 12",
        ),
        (
            &[
                "verilog", "--block", "crc32c", "--width", "wide", "--out", out,
            ],
            "invalid value 'wide'",
        ),
        (
            &["synth", "--board", "arty", "--block", "crc32c"],
            "unknown board",
        ),
        (
            &[
                "synth",
                "--board",
                "alchitry-cu",
                "--block",
                "crc32c",
                "--width",
                "48",
            ],
            "does not build at width 48",
        ),
        (
            &[
                "synth",
                "--board",
                "alchitry-cu",
                "--block",
                "crc32c",
                "--nextpnr-limit",
                "0",
            ],
            "--nextpnr-limit",
        ),
        (&["frobnicate"], "unrecognized subcommand"),
        (
            &[
                "inject",
                "x.bin",
                "--qp",
                "pd=1",
                "--mr",
                "stag=zz,addr=0,len=1,access=rw,pd=1",
            ],
            "'stag=zz' is not a number",
        ),
        (
            &[
                "inject",
                "x.bin",
                "--qp",
                "pd=1",
                "--mr",
                "stag=1,addr=0,len=1,access=rx,pd=1",
            ],
            "unknown access right 'rx'",
        ),
        (&["inject", "x.bin", "--qp", "ird=2"], "missing 'pd='"),
        (&["inject", "x.bin"], "--qp"),
        (
            &["inject", "/nonexistent/stream.bin", "--qp", "pd=1"],
            "reading /nonexistent",
        ),
        (&["verilog", "--block", "crc32c"], "--out"),
    ];
    for (args, needle) in cases {
        let o = rnic(args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} should fail");
        assert_eq!(
            stderr.lines().count(),
            1,
            "{args:?}: not one line:\n{stderr}"
        );
        assert!(stderr.starts_with("rnic: "), "{args:?}: {stderr}");
        assert!(
            stderr.contains(needle),
            "{args:?}: expected '{needle}' in: {stderr}"
        );
    }
}

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// `rnic inject` (issue 4): a stream of two RDMA Writes, the first inside the region the MR
/// grants, the second one octet past its end. The first is placed, the second is Terminated
/// with DDP 1/1/0x01 (base or bounds, `mpa-peer-connect.md` §6.4) with M and D and its header
/// copied, and the summary says nothing outside the region was touched.
#[test]
fn inject_places_and_terminates() {
    // RDMA Write, L = 1, STag 0x0142 (index 1, key 0x42), TO 0x2000, 8 octets.
    let inside = hex("c140 00000142 0000000000002000 0001020304050607");
    // The same STag, TO 0x20fc: 8 octets reach 0x2104, one past the 0x100-octet region.
    let outside = hex("c140 00000142 00000000000020f9 0001020304050607");
    let stream = rnic_sim::tb::rx_path::frame(&[inside, outside.clone()], false, true);
    let dir = scratch("inject");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("stream.bin");
    std::fs::write(&file, &stream).unwrap();
    let o = rnic(&[
        "inject",
        file.to_str().unwrap(),
        "--qp",
        "pd=3,ird=2",
        "--mr",
        "stag=0x142,addr=0x10000,len=0x100,access=lw+rw,pd=3,to=0x2000",
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{}\n{stdout}",
        String::from_utf8_lossy(&o.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    let place: Vec<&&str> = lines.iter().filter(|l| l.contains("\"place\"")).collect();
    assert_eq!(place.len(), 1, "{stdout}");
    assert!(
        place[0].contains("\"addr\":\"0x10000\",\"len\":8,\"data\":\"0001020304050607\""),
        "{stdout}"
    );
    let term: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("\"terminate\""))
        .collect();
    assert_eq!(term.len(), 1, "{stdout}");
    assert!(
        term[0].contains(
            "\"layer\":1,\"etype\":1,\"code\":\"0x01\",\"m\":true,\"d\":true,\"r\":false"
        ),
        "{stdout}"
    );
    // The Terminate copies the offending segment's 14-octet tagged header after its length.
    let copied: String = outside[..14].iter().map(|b| format!("{b:02x}")).collect();
    assert!(term[0].contains(&format!("0016{copied}")), "{stdout}");
    assert!(
        lines.iter().any(|l| l.contains("\"terminate_sent\"")),
        "{stdout}"
    );
    let summary = lines.last().unwrap();
    assert!(summary.contains("\"summary\""), "{stdout}");
    assert!(summary.contains("\"placed_bytes\":8"), "{stdout}");
    assert!(summary.contains("\"outside_access\":false"), "{stdout}");
}
