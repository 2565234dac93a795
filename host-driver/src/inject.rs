//! `rnic inject`: a raw LLP byte stream from a file into the receive path of a simulated core,
//! one JSON line per event, and last whether any byte outside the granted regions was touched.

pub mod spec;

use anyhow::{bail, Context, Result};
use rnic_hdl::rdmap::rx_path::RxPath;
use rnic_proto::ddp::UNTAGGED_HEADER_LEN;
use rnic_proto::rdmap::terminate::Packet as TerminatePacket;
use rnic_proto::verbs::{stag_index, stag_key, AsyncEventKind, WcOpcode, WcStatus};
use rnic_sim::rx_model::{MrEntry, QpConfig, RecvWqe};
use rnic_sim::tb::rx_path::{Knobs, Logged, RxPathBench};
use rnic_sim::testbench::BackendKind;
use spec::{MrSpec, QpSpec, RecvSpec};
use std::fmt::Write as _;
use std::path::Path;

/// The QP (and LLP connection) the stream is fed to.
pub const INJECT_QP: usize = 0;

/// What `rnic inject` runs.
#[derive(Clone, Debug)]
pub struct InjectSetup {
    pub mrs: Vec<MrSpec>,
    pub qp: QpSpec,
    pub recvs: Vec<RecvSpec>,
    /// RDMA Reads outstanding on the QP (Read Responses it may accept).
    pub orq: u8,
    pub crc: bool,
    pub markers: bool,
    pub backend: BackendKind,
    pub max_cycles: u64,
}

/// What a run found: the JSON lines (events, then the summary) and whether memory outside
/// the granted regions was touched.
#[derive(Clone, Debug)]
pub struct InjectReport {
    pub lines: Vec<String>,
    pub outside_access: bool,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn wc_opcode(v: u8) -> String {
    match WcOpcode::from_u8(v) {
        Some(WcOpcode::Send) => "send".into(),
        Some(WcOpcode::RdmaWrite) => "rdma_write".into(),
        Some(WcOpcode::RdmaRead) => "rdma_read".into(),
        Some(WcOpcode::Recv) => "recv".into(),
        None => format!("{v:#x}"),
    }
}

fn wc_status(v: u8) -> String {
    match WcStatus::from_u8(v) {
        Some(s) => format!("{s:?}"),
        None => format!("{v:#x}"),
    }
}

fn event_line(cycle: u64, ev: &Logged) -> String {
    match ev {
        Logged::Write { addr, bytes } => {
            let data = if bytes.len() <= 64 {
                format!(",\"data\":\"{}\"", hex(bytes))
            } else {
                String::new()
            };
            format!(
                "{{\"cycle\":{cycle},\"event\":\"place\",\"addr\":\"{addr:#x}\",\"len\":{}{data}}}",
                bytes.len()
            )
        }
        Logged::Cqe(c) => format!(
            "{{\"cycle\":{cycle},\"event\":\"completion\",\"qp\":{},\"opcode\":\"{}\",\
             \"status\":\"{}\",\"byte_len\":{},\"index\":{},\"with_inv\":{},\"inv_stag\":\"{:#x}\",\
             \"solicited\":{}}}",
            c.qp,
            wc_opcode(c.opcode),
            wc_status(c.status),
            c.byte_len,
            c.index,
            c.with_inv,
            c.inv_stag,
            c.solicited
        ),
        Logged::Async(a) => {
            let kind = match AsyncEventKind::from_u8(a.kind) {
                Some(AsyncEventKind::TerminateSent) => "terminate_sent".to_string(),
                Some(AsyncEventKind::TerminateReceived) => "terminate_received".to_string(),
                Some(AsyncEventKind::BadTerminateReceived) => "bad_terminate_received".to_string(),
                Some(AsyncEventKind::CqOverflow) => "cq_overflow".to_string(),
                None => format!("{:#x}", a.kind),
            };
            format!(
                "{{\"cycle\":{cycle},\"event\":\"async\",\"qp\":{},\"kind\":\"{kind}\",\
                 \"layer\":{},\"etype\":{},\"code\":\"{:#04x}\"}}",
                a.qp, a.layer, a.etype, a.code
            )
        }
        Logged::Irq(i) => format!(
            "{{\"cycle\":{cycle},\"event\":\"read_request\",\"qp\":{},\"sink_stag\":\"{:#x}\",\
             \"sink_to\":\"{:#x}\",\"size\":{},\"src_stag\":\"{:#x}\",\"src_to\":\"{:#x}\",\
             \"src_addr\":\"{:#x}\"}}",
            i.qp, i.sink_stag, i.sink_to, i.size, i.src_stag, i.src_to, i.src_addr
        ),
        Logged::Terminate { conn, ulpdu } => {
            let codes = ulpdu
                .get(UNTAGGED_HEADER_LEN..)
                .and_then(|t| TerminatePacket::new_checked(t).ok())
                .map(|t| {
                    format!(
                        ",\"layer\":{},\"etype\":{},\"code\":\"{:#04x}\",\"m\":{},\"d\":{},\"r\":{}",
                        t.layer(),
                        t.error_type(),
                        t.error_code(),
                        t.m(),
                        t.d(),
                        t.r()
                    )
                })
                .unwrap_or_default();
            format!(
                "{{\"cycle\":{cycle},\"event\":\"terminate\",\"qp\":{conn}{codes},\"ulpdu\":\"{}\"}}",
                hex(ulpdu)
            )
        }
    }
}

/// Feeds `stream` (LLP bytes of connection 0 in FPDU mode) into a simulated receive path set
/// up as `setup` says.
pub fn run(stream: &[u8], setup: &InjectSetup) -> Result<InjectReport> {
    let sim = setup.backend.build_untraced(RxPath::default())?;
    let mut bench = RxPathBench::new(sim, 1, Knobs::FULL_SPEED)?;
    bench.knobs.seg_min = 1460;
    bench.knobs.seg_max = 1460;
    bench.mpa_cfg(INJECT_QP, true, setup.markers, setup.crc, u16::MAX);
    bench.qp_cfg(
        INJECT_QP,
        QpConfig {
            enable: true,
            pd: setup.qp.pd,
            ird: setup.qp.ird,
        },
    );
    for mr in &setup.mrs {
        bench.program_stag(
            stag_index(mr.stag),
            MrEntry {
                valid: true,
                key: stag_key(mr.stag),
                pd: mr.pd,
                access: mr.access,
                qp_bound: mr.qp,
                remote_inv: mr.remote_inv,
                base_to: mr.base_to,
                len: mr.len,
                host_addr: mr.addr,
            },
        );
    }
    for (index, r) in setup.recvs.iter().enumerate() {
        bench.post_recv(
            INJECT_QP,
            RecvWqe {
                to: r.to,
                len: r.len,
                lkey: r.lkey,
                index: index as u16,
            },
        );
    }
    for _ in 0..setup.orq {
        bench.orq_push(INJECT_QP);
    }
    let start = bench.cycles();
    bench.send_llp(INJECT_QP, stream);
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        bench.run_until_idle(setup.max_cycles);
    }));
    if run.is_err() {
        bail!(
            "the receive path did not go idle within {} cycles",
            setup.max_cycles
        );
    }
    let mut lines: Vec<String> = bench
        .log
        .iter()
        .map(|(cycle, ev)| event_line(cycle - start, ev))
        .collect();
    let violations = bench.mem.violations();
    for v in violations {
        lines.push(format!(
            "{{\"event\":\"violation\",\"addr\":\"{:#x}\",\"kind\":\"{:?}\",\"reason\":\"{}\"}}",
            v.addr,
            v.kind,
            v.reason.replace('"', "'")
        ));
    }
    let stats = bench.stats();
    lines.push(format!(
        "{{\"event\":\"summary\",\"llp_bytes\":{},\"placed_bytes\":{},\"cycles\":{},\
         \"outside_access\":{}}}",
        stats.llp_bytes,
        stats.dma_bytes,
        bench.cycles() - start,
        !violations.is_empty()
    ));
    Ok(InjectReport {
        lines,
        outside_access: !violations.is_empty(),
    })
}

/// Reads the stream file and runs it.
pub fn run_file(path: &Path, setup: &InjectSetup) -> Result<InjectReport> {
    let stream = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    if stream.is_empty() {
        bail!("{} is empty: nothing to inject", path.display());
    }
    run(&stream, setup)
}
