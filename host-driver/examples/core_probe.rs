//! Where the cycles of a message go: runs `count` messages of `size` octets (QP 0 to QP 1,
//! all posted at once, as `rnic bench --only core` does) on the Verilator back end and prints
//! the core's port events in order, runs of the same kind folded into one line.
//!
//! `cargo run --release -p rnic-driver --example core_probe -- write 4096 8`

use anyhow::{bail, Result};
use rnic_driver::core_bench::goodput_session;
use rnic_driver::traffic::OpKind;
use rnic_proto::host::regs;
use rnic_sim::tb::rnic::DevEvent;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let op = match args.get(1).map(String::as_str).unwrap_or("write") {
        "write" => OpKind::Write,
        "read" => OpKind::Read,
        "send" => OpKind::Send,
        o => bail!("unknown op {o}"),
    };
    let size: u32 = args.get(2).map_or(Ok(4096), |s| s.parse())?;
    let count: usize = args.get(3).map_or(Ok(8), |s| s.parse())?;
    let (mut s, tcfg) = goodput_session(op, size, count)?;
    let p = s.pairs[0].clone();
    let mrs: Vec<(u64, u64, &str)> = vec![
        (p.local_mr[0].addr, p.local_mr[0].len, "mr L0"),
        (p.local_mr[1].addr, p.local_mr[1].len, "mr L1"),
        (p.remote_mr[0].addr, p.remote_mr[0].len, "mr R0"),
        (p.remote_mr[1].addr, p.remote_mr[1].len, "mr R1"),
    ];
    let region = |a: u32| {
        mrs.iter()
            .find(|(b, l, _)| u64::from(a) >= *b && u64::from(a) < b + l)
            .map(|m| m.2)
    };
    s.dev.sim_mut().record_events(true);
    s.run(&tcfg, |_| {})?;
    let ev = s.dev.sim().events().to_vec();
    let t0 = ev.first().map_or(0, |e| e.0);
    let mut last_label = String::new();
    let mut run_first = 0;
    let mut run_n = 0;
    let mut lines = Vec::new();
    let flush = |label: &str, first: u64, last: u64, n: usize, lines: &mut Vec<String>| {
        if n > 0 {
            lines.push(format!(
                "{:>7} {:>7}  {:>3} x {label}",
                first - t0,
                last - t0,
                n
            ));
        }
    };
    let mut prev = 0;
    for (c, e) in &ev {
        let label = match *e {
            DevEvent::Mmio { addr, value } => {
                let mut l = format!("mmio {addr:#05x} = {value}");
                for q in 0..2 {
                    if addr == regs::qp_reg(q, regs::QP_SQ_PI) {
                        l = format!("SQ doorbell QP{q} pi={value}");
                    }
                    if addr == regs::qp_reg(q, regs::QP_RQ_PI) {
                        l = format!("RQ doorbell QP{q}");
                    }
                }
                l
            }
            DevEvent::DmaRd { addr, len, tag } => match region(addr) {
                Some(r) if std::env::var("PROBE_ALL").is_ok() => {
                    format!("payload read {r} @{addr:#x} len {len} tag {tag}")
                }
                Some(r) => format!("payload read {r}"),
                None => format!("read len {len} @{addr:#x}"),
            },
            DevEvent::DmaWr { addr } => match region(addr) {
                Some(r) => format!("place write {r}"),
                None => format!("write @{addr:#x}"),
            },
            DevEvent::LlpTxFirst { conn } => format!("LLP TX first conn {conn}"),
            DevEvent::LlpTxLast { conn } => format!("LLP TX last conn {conn}"),
        };
        if label != last_label || std::env::var("PROBE_ALL").is_ok() {
            flush(&last_label, run_first, prev, run_n, &mut lines);
            last_label = label;
            run_first = *c;
            run_n = 0;
        }
        run_n += 1;
        prev = *c;
    }
    flush(&last_label, run_first, prev, run_n, &mut lines);
    for l in lines {
        println!("{l}");
    }
    Ok(())
}
