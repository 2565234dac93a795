//! The whole core's figures (`rnic bench --only core`): RDMA Write, Read and Send goodput
//! against message size with the MPA/DDP framing bound beside it, and the latencies from a
//! doorbell to the first LLP byte and from the last LLP byte to the CQE. Everything runs
//! through the verbs API on the Verilator back end, over the full-speed loopback (the wire is
//! never the bottleneck) with the default DMA model (latency 50 cycles).

use crate::traffic::{Mix, OpKind, Session, Sizes, TrafficConfig};
use crate::verbs::{ConnParams, Device, SendOp, SendWr, Sge};
use anyhow::Result;
use rnic_proto::ddp::{TAGGED_HEADER_LEN, UNTAGGED_HEADER_LEN};
use rnic_proto::mpa::fpdu_wire_len;
use rnic_sim::dma_port::DmaConfig;
use rnic_sim::loopback::{LlpLoopback, LoopbackConfig};
use rnic_sim::tb::rnic::{DeviceConfig, SimDevice};
use rnic_sim::testbench::BackendKind;

/// MULPDU of the benchmarks (a 1500-octet MTU's).
pub const MULPDU: u32 = 1454;

/// Octets on the wire (MPA FPDUs, CRC on, markers off) for a message of `size` payload octets
/// sent as DDP segments with `header` octets of DDP/RDMAP header each, cut as the core cuts
/// them (`docs/core.md` "The message job": every segment but the last carries
/// `floor((MULPDU - header) / 4) * 4`).
pub fn wire_octets(size: u32, header: u32) -> u64 {
    let per = u64::from((MULPDU - header) / 4 * 4);
    let size = u64::from(size);
    let segments = size.div_ceil(per).max(1);
    let mut total = 0;
    for k in 0..segments {
        let payload = per.min(size - k * per.min(size));
        let ulpdu = u16::try_from(u64::from(header) + payload).expect("a segment fits MULPDU");
        // ULPDU_Length + ULPDU + PAD + CRC, markers off (RFC 5044 §4).
        total += fpdu_wire_len(ulpdu, false, 0) as u64;
    }
    total
}

/// The framing bound in payload octets per cycle at 4 octets per cycle on the wire.
pub fn framing_bound(size: u32, header: u32) -> f64 {
    if size == 0 {
        return 0.0;
    }
    f64::from(size) / (wire_octets(size, header) as f64 / 4.0)
}

fn device(seed: u64) -> Result<Device> {
    let cfg = DeviceConfig {
        backend: BackendKind::Verilator,
        dma: DmaConfig::default(),
        seed,
    };
    let llp = LlpLoopback::new(LoopbackConfig::full_speed(seed));
    Ok(Device::attach(SimDevice::new(cfg, Box::new(llp))?, seed)?)
}

/// One goodput figure.
#[derive(Clone, Debug)]
pub struct Goodput {
    pub op: OpKind,
    pub size: u32,
    pub messages: usize,
    /// Payload octets per cycle on the data direction, first to last LLP beat.
    pub bytes_per_cycle: f64,
    /// The framing bound beside it.
    pub bound: f64,
}

/// The goodput set-up: one QP pair on a fresh device (QP 0 to QP 1), `count` messages of
/// `size` octets posted up to 16 at a time, one slot each (`--example core_probe` uses it too).
pub fn goodput_session(op: OpKind, size: u32, count: usize) -> Result<(Session, TrafficConfig)> {
    let dev = device(11)?;
    let slots = count.max(16);
    let s = Session::new(
        dev,
        1,
        slots,
        u64::from(size) + 128,
        ConnParams {
            tx_mulpdu: MULPDU as u16,
            ..ConnParams::default()
        },
    )?;
    let cfg = TrafficConfig {
        mix: Mix::Only(op),
        sizes: Sizes::Fixed(size),
        count,
        window: 16,
        slots,
        random_alignment: false,
        both_directions: false,
        seed: 3,
        stall_cycles: 2_000_000,
    };
    Ok((s, cfg))
}

/// Goodput of `count` messages of `size` octets, QP 0 to QP 1 (for a Read, the data flows
/// from QP 1 back to QP 0), up to 16 in flight.
pub fn measure_goodput(op: OpKind, size: u32, count: usize) -> Result<Goodput> {
    let (mut s, cfg) = goodput_session(op, size, count)?;
    s.dev.sim_mut().reset_stats();
    s.run(&cfg, |_| {})?;
    let data_conn = if op == OpKind::Read { 1 } else { 0 };
    let st = s.dev.sim().stats();
    let cycles = match (st.llp_tx_first[data_conn], st.llp_tx_last[data_conn]) {
        (Some(a), Some(b)) => b - a + 1,
        _ => 1,
    };
    let header = if op == OpKind::Read || op == OpKind::Write {
        TAGGED_HEADER_LEN as u32
    } else {
        UNTAGGED_HEADER_LEN as u32
    };
    Ok(Goodput {
        op,
        size,
        messages: count,
        bytes_per_cycle: (u64::from(size) * count as u64) as f64 / cycles as f64,
        bound: framing_bound(size, header),
    })
}

/// Cycles from the SQ doorbell of a 64-octet RDMA Write on an idle core to its first LLP
/// byte; and from the last LLP byte of a 64-octet Send into QP 1 to QP 1's receive CQE
/// (the last DMA write of the run).
pub fn measure_latency() -> Result<(u64, u64)> {
    let dev = device(12)?;
    let mut s = Session::new(dev, 1, 2, 4096, ConnParams::default())?;
    let p = s.pairs[0].clone();
    s.drain()?;
    s.dev.sim_mut().reset_stats();
    let wr = SendWr {
        wr_id: 1,
        op: SendOp::RdmaWrite {
            remote_addr: p.remote_mr[1].addr,
            rkey: p.remote_mr[1].rkey,
        },
        sg_list: vec![Sge {
            addr: p.local_mr[0].addr,
            length: 64,
            lkey: p.local_mr[0].lkey,
        }],
        signaled: true,
        fence: false,
    };
    s.dev.post_send(p.qp[0], &wr)?;
    // The doorbell write was the last cycle of post_send.
    let doorbell = s.dev.sim().cycles() - 1;
    s.dev.wait_cq(p.cq[0], 1, 100_000)?;
    s.drain()?;
    let first = s.dev.sim().stats().llp_tx_first[0].unwrap_or(doorbell);
    let to_wire = first - doorbell;
    // Send: last LLP byte into QP 1 to its Recv CQE.
    let cfg = TrafficConfig {
        mix: Mix::Only(OpKind::Send),
        sizes: Sizes::Fixed(64),
        count: 1,
        window: 1,
        slots: 2,
        random_alignment: false,
        both_directions: false,
        seed: 5,
        stall_cycles: 2_000_000,
    };
    s.dev.sim_mut().reset_stats();
    s.run(&cfg, |_| {})?;
    let st = s.dev.sim().stats();
    let last_rx = st.llp_rx_last[1].unwrap_or(0);
    let cqe = st
        .dma_wr_packets
        .iter()
        .map(|(c, _)| *c)
        .filter(|&c| c >= last_rx)
        .max()
        .unwrap_or(last_rx);
    Ok((to_wire, cqe - last_rx))
}

/// Message sizes of the goodput table.
pub const SIZES: [u32; 7] = [64, 256, 1024, 4096, 16384, 65536, 262144];

/// Prints the core's tables: goodput of the message sizes `sizes` ([`SIZES`] when empty).
pub fn print_core_table(sizes: &[u32]) -> Result<()> {
    let sizes = if sizes.is_empty() { &SIZES[..] } else { sizes };
    println!("## The whole core: goodput through the verbs API (QP 0 to QP 1, loopback)\n");
    println!(
        "MULPDU {MULPDU}, CRC on, markers off, DMA latency 50 cycles, up to 16 messages in \
         flight; payload octets per cycle between the first and the last LLP beat of the data \
         direction; the bound is 4 octets per cycle less the MPA/DDP/RDMAP framing.\n"
    );
    println!("| operation | size | messages | bytes/cycle | framing bound | of bound |");
    println!("|---|---:|---:|---:|---:|---:|");
    for op in [OpKind::Write, OpKind::Read, OpKind::Send] {
        for &size in sizes {
            let count = ((2 << 20) / size as usize).clamp(8, 256);
            let g = measure_goodput(op, size, count)?;
            println!(
                "| {:?} | {} | {} | {:.3} | {:.3} | {:.3} |",
                g.op,
                g.size,
                g.messages,
                g.bytes_per_cycle,
                g.bound,
                g.bytes_per_cycle / g.bound
            );
        }
    }
    let (to_wire, to_cqe) = measure_latency()?;
    println!("\n| latency | cycles |\n|---|---:|");
    println!("| SQ doorbell to the first LLP byte (64 B RDMA Write, idle core) | {to_wire} |");
    println!("| last LLP byte of a 64 B Send to its receive CQE write | {to_cqe} |");
    println!();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_bound_counts_every_fpdu() {
        // One segment of 64 payload octets, tagged: 2 + 14 + 64 = 80, PAD 0, CRC 4 = 84.
        assert_eq!(wire_octets(64, 14), 84);
        // 1440 = floor((1454 - 14) / 4) * 4 per segment; 4096 = 1440 + 1440 + 1216.
        assert_eq!(wire_octets(4096, 14), 1460 + 1460 + (2 + 14 + 1216 + 4));
        assert!((framing_bound(1 << 20, 14) - 4.0 * 1440.0 / 1460.0).abs() < 0.01);
        assert_eq!(framing_bound(0, 18), 0.0);
    }
}
