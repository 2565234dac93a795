//! `rnic serve` and `rnic connect` as two processes over real TCP on 127.0.0.1 (rust-hdl back
//! end, small sizes): each runs its own simulated core with a TCP bridge, MPA is set up through
//! the firmware, and both sides verify every byte against the seed (`rnic_driver::tcp`).

use std::io::{BufRead, BufReader, Read};
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

/// Runs one serve / connect pair for `op` and returns both stdouts.
fn run_pair(op: &str, size: &str, count: &str, seed: &str) -> (String, String) {
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
    let (c, s) = run_pair("write", "300", "5", "77");
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

    let (c, s) = run_pair("read", "257", "3", "5");
    assert!(c.contains("connect: RDMA Read"), "{c}");
    assert!(c.contains("bytes           771"), "{c}");
    assert!(s.contains("serve: RDMA Read"), "{s}");
    assert!(s.contains("bytes           771"), "{s}");

    let (c, s) = run_pair("send", "64", "4", "9");
    assert!(c.contains("connect: Send"), "{c}");
    assert!(s.contains("verified bytes  256"), "{s}");
}
