//! `rnic serve` and `rnic connect` as two processes over real TCP on 127.0.0.1 (rust-hdl back
//! end, small sizes): each runs its own simulated core with a TCP bridge, MPA is set up through
//! the firmware, and both sides verify every byte against the seed (`rnic_driver::tcp`).

use rnic_sim::pcap::tshark::{tshark_check, CrcVerdict};
use rnic_sim::pcap::Direction;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Kills the serve process if the test fails before it exits.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs one serve / connect pair for `op` and returns both stdouts; with `pcap`, each side
/// writes its capture (`serve.pcap`, `connect.pcap` in that directory).
fn run_pair(
    op: &str,
    size: &str,
    count: &str,
    seed: &str,
    pcap: Option<&Path>,
) -> (String, String) {
    let pcap_arg = |name: &str| -> Vec<String> {
        pcap.map(|d| {
            vec![
                "--pcap".to_string(),
                d.join(name).to_string_lossy().into_owned(),
            ]
        })
        .unwrap_or_default()
    };
    let serve = Command::new(env!("CARGO_BIN_EXE_rnic"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--backend",
            "rust-hdl",
            "--max-bytes",
            "65536",
            "--timeout",
            "60",
        ])
        .args(pcap_arg("serve.pcap"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn rnic serve");
    let mut g = Guard(serve);
    let mut out = BufReader::new(g.0.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let addr = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("serve printed {first:?}"))
        .to_string();
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    let c = Command::new(env!("CARGO_BIN_EXE_rnic"))
        .args([
            "connect",
            &addr,
            "--op",
            op,
            "--size",
            size,
            "--count",
            count,
            "--seed",
            seed,
            "--window",
            "2",
            "--backend",
            "rust-hdl",
            "--timeout",
            "60",
        ])
        .args(pcap_arg("connect.pcap"))
        .output()
        .expect("run rnic connect");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = g.0.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "serve did not exit"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut serve_out = String::new();
    out.read_to_string(&mut serve_out).unwrap();
    let mut serve_err = String::new();
    g.0.stderr
        .take()
        .unwrap()
        .read_to_string(&mut serve_err)
        .unwrap();
    assert!(
        c.status.success(),
        "connect: {}",
        String::from_utf8_lossy(&c.stderr)
    );
    assert!(status.success(), "serve: {serve_err}");
    (String::from_utf8_lossy(&c.stdout).into_owned(), serve_out)
}

/// Write, Read and Send runs: both exit 0, and both summaries report the negotiated MPA
/// parameters and the exact byte counts (the serve side checked every Written and Sent byte,
/// the connect side every Read byte).
#[test]
fn serve_and_connect_over_tcp() {
    let (c, s) = run_pair("write", "300", "5", "77", None);
    assert!(
        c.contains("connect: RDMA Write (MPA rev 2, CRC on, markers off, IRD 4 ORD 4)"),
        "{c}"
    );
    assert!(c.contains("operations      5 x 300 bytes"), "{c}");
    assert!(c.contains("bytes           1500"), "{c}");
    assert!(
        c.contains("errors          0 (every completion and every byte verified against seed 77)"),
        "{c}"
    );
    assert!(s.contains("serve: RDMA Write from 127.0.0.1:"), "{s}");
    assert!(s.contains("verified bytes  1500"), "{s}");
    assert!(s.contains("errors          0"), "{s}");

    let (c, s) = run_pair("read", "257", "3", "5", None);
    assert!(c.contains("connect: RDMA Read"), "{c}");
    assert!(c.contains("bytes           771"), "{c}");
    assert!(s.contains("serve: RDMA Read"), "{s}");
    assert!(s.contains("bytes           771"), "{s}");

    let (c, s) = run_pair("send", "64", "4", "9", None);
    assert!(c.contains("connect: Send"), "{c}");
    assert!(s.contains("verified bytes  256"), "{s}");
}

/// `--pcap` on both sides of a Read run (Read Requests one way, Read Responses back): each
/// capture decodes in tshark with the MPA Request and Reply, good CRCs on every FPDU (RFC 5044
/// §6) and no malformed packet or checksum error; the two sides' captures agree.
#[test]
fn serve_and_connect_captures_decode_in_tshark() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tcp_cli_pcap");
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["serve.pcap", "connect.pcap"] {
        let _ = std::fs::remove_file(dir.join(f));
    }
    let (c, s) = run_pair("read", "1000", "3", "21", Some(&dir));
    // 3 Read Requests out; 3 x 1000 octets back at the EMSS-derived MULPDU (1 segment each).
    let line = "pcap            ";
    assert!(
        c.contains(line) && c.contains("(3 FPDUs Initiator to Responder, 3 back)"),
        "{c}"
    );
    assert!(
        s.contains("(3 FPDUs Initiator to Responder, 3 back)"),
        "{s}"
    );
    let mut seen = Vec::new();
    for f in ["serve.pcap", "connect.pcap"] {
        let sum = tshark_check(&dir.join(f)).unwrap();
        sum.check().unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_eq!(sum.mpa_frames.len(), 2, "{f}: {:#?}", sum.mpa_frames);
        assert!(sum.mpa_frames[0].request && !sum.mpa_frames[1].request);
        assert!(sum.mpa_frames.iter().all(|m| m.revision == 2 && m.crc));
        assert!(sum.fpdus.iter().all(|x| x.crc == CrcVerdict::Good));
        let ops = |d| {
            sum.fpdus_in(d)
                .map(|x| x.opcode.unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            ops(Direction::InitiatorToResponder),
            [1, 1, 1],
            "{f}: Read Requests"
        );
        assert_eq!(
            ops(Direction::ResponderToInitiator),
            [2, 2, 2],
            "{f}: Read Responses"
        );
        seen.push(sum.fpdus.iter().map(|x| x.ulpdu_len).collect::<Vec<_>>());
    }
    assert_eq!(seen[0], seen[1], "both sides captured the same FPDUs");
}
