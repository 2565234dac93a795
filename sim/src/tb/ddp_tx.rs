//! Driver and monitor for [`rnic_hdl::ddp::tx::DdpTx`], usable on both back ends.
//!
//! The driver programs each connection's MULPDU with `qpc_write`, offers message jobs on
//! `msg_*` (holding each until `msg_ready`, with random gaps), answers payload reads with the
//! beat-level DMA model [`DmaPort`] (latency, jitter, pieces of different tags overtaking each
//! other, request back-pressure) reading [`HostMemory`], where each message's payload range is
//! the only memory the device may read, and applies random back-pressure on `ulpdu_ready`.
//!
//! The monitor checks:
//! - every ULPDU (one packet per segment) octet by octet against the segments built with
//!   `rnic-proto` ([`expected_segments`]): DDP header, RDMAP control, Read Request header,
//!   payload from host memory; `ulpdu_conn` and `ulpdu_len` constant over the packet and equal
//!   to the connection and the segment's length; `keep` contiguous from the MSB lane, full on
//!   every beat but the last;
//! - every read request: 1..=4096 octets, not crossing a 4 KiB boundary, inside
//!   `[msg_addr, msg_addr + len)` of the message being worked on, its tag not outstanding; the
//!   DMA model's protection monitor sees no read outside the allowed ranges;
//! - `msg_done`: exactly one per message, in the cycle its last segment's last beat is taken;
//!   `msg_ready` only then; `idle` at the end.

use crate::dma_port::{DmaConfig, DmaPort};
use crate::host_mem::HostMemory;
use crate::testbench::{Backend, BackendKind, InputId, OutputId};
use anyhow::{bail, ensure, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_hdl::config::CONNECTIONS;
use rnic_hdl::ddp::tx::DdpTx;
use rnic_proto::ddp;
use rnic_proto::rdmap::opcode::Opcode;
use rnic_proto::rdmap::read_request;

/// One message job (`docs/core.md` "The message job").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxMsg {
    pub conn: usize,
    pub opcode: u8,
    pub stag: u32,
    pub to: u64,
    pub inv_stag: u32,
    pub src_to: u64,
    pub msn: u32,
    pub addr: u32,
    pub len: u32,
}

/// One ULPDU as seen on the stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxSegment {
    pub conn: usize,
    pub len: usize,
    pub bytes: Vec<u8>,
}

/// Payload octets per segment for a connection's MULPDU (`docs/core.md`).
pub fn max_payload(mulpdu: u16, tagged: bool) -> usize {
    let m = usize::from(mulpdu.max(64));
    let h = if tagged {
        ddp::TAGGED_HEADER_LEN
    } else {
        ddp::UNTAGGED_HEADER_LEN
    };
    (m - h) / 4 * 4
}

/// The segments of `msg` built with `rnic-proto` (the golden model), payload from `mem`.
pub fn expected_segments(msg: &TxMsg, mulpdu: u16, mem: &HostMemory) -> Vec<TxSegment> {
    let op = Opcode::from_u8(msg.opcode).expect("a known opcode");
    let ulp_ctrl = op.control();
    if msg.opcode == 1 {
        let mut bytes = vec![0u8; ddp::UNTAGGED_HEADER_LEN + read_request::HEADER_LEN];
        let hdr = ddp::Repr {
            last: true,
            ulp_ctrl,
            model: ddp::Model::Untagged {
                rsvd_ulp: 0,
                qn: ddp::QN_READ_REQUEST,
                msn: msg.msn,
                mo: 0,
            },
        };
        hdr.emit(&mut ddp::Packet::new_unchecked(&mut bytes[..]))
            .unwrap();
        let rr = read_request::Repr {
            sink_stag: msg.stag,
            sink_to: msg.to,
            read_size: msg.len,
            src_stag: msg.inv_stag,
            src_to: msg.src_to,
        };
        rr.emit(&mut read_request::Packet::new_unchecked(
            &mut bytes[ddp::UNTAGGED_HEADER_LEN..],
        ))
        .unwrap();
        return vec![TxSegment {
            conn: msg.conn,
            len: bytes.len(),
            bytes,
        }];
    }
    let tagged = msg.opcode == 0 || msg.opcode == 2;
    let maxpay = max_payload(mulpdu, tagged);
    let len = msg.len as usize;
    let mut segs = Vec::new();
    let mut off = 0usize;
    loop {
        let n = (len - off).min(maxpay);
        let last = off + n == len;
        let model = if tagged {
            ddp::Model::Tagged {
                stag: msg.stag,
                to: msg.to.wrapping_add(off as u64),
            }
        } else {
            ddp::Model::Untagged {
                rsvd_ulp: if msg.opcode == 4 || msg.opcode == 6 {
                    msg.inv_stag
                } else {
                    0
                },
                qn: ddp::QN_SEND,
                msn: msg.msn,
                mo: off as u32,
            }
        };
        let hdr = ddp::Repr {
            last,
            ulp_ctrl,
            model,
        };
        let h = hdr.buffer_len();
        let mut bytes = vec![0u8; h + n];
        hdr.emit(&mut ddp::Packet::new_unchecked(&mut bytes[..]))
            .unwrap();
        bytes[h..].copy_from_slice(&mem.read(msg.addr.wrapping_add(off as u32), n));
        segs.push(TxSegment {
            conn: msg.conn,
            len: bytes.len(),
            bytes,
        });
        off += n;
        if last {
            return segs;
        }
    }
}

/// Shape of the traffic around the block.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TxTraffic {
    pub dma: DmaConfig,
    /// Probability that `ulpdu_ready` is 1 in a cycle.
    pub ready: f64,
    /// Probability that a waiting message is offered in a cycle (between messages).
    pub offer: f64,
}

impl TxTraffic {
    /// Latency 50, no back-pressure, messages back to back.
    pub const FULL_SPEED: TxTraffic = TxTraffic {
        dma: DmaConfig {
            read: crate::dma_read::DmaReadConfig {
                latency: 50,
                jitter: 0,
                max_read_request: 512,
                stall: 0.0,
            },
            req_stall: 0.0,
            wr_stall: 0.0,
            wr_done_latency: 20,
        },
        ready: 1.0,
        offer: 1.0,
    };

    /// Random DMA shape and back-pressure.
    pub fn random(rng: &mut impl Rng) -> Self {
        TxTraffic {
            dma: DmaConfig::random(rng),
            ready: rng.gen_range(0.3..=1.0),
            offer: rng.gen_range(0.2..=1.0),
        }
    }
}

/// What a run produced.
#[derive(Clone, Debug, Default)]
pub struct TxReport {
    /// Cycles from the first message offered to the last `msg_done`.
    pub cycles: u64,
    /// ULPDU beats taken.
    pub beats: u64,
    /// Segments seen.
    pub segments: usize,
    /// Read requests made.
    pub requests: usize,
}

impl TxReport {
    /// ULPDU beats per cycle.
    pub fn beats_per_cycle(&self) -> f64 {
        self.beats as f64 / self.cycles.max(1) as f64
    }
}

/// Port handles of [`DdpTx`].
pub struct DdpTxTb {
    i: Vec<InputId>,
    o: Vec<OutputId>,
}

const INS: [&str; 20] = [
    "qpc_write",
    "qpc_qp",
    "qpc_tx_mulpdu",
    "msg_valid",
    "msg_conn",
    "msg_opcode",
    "msg_stag",
    "msg_to",
    "msg_inv_stag",
    "msg_src_to",
    "msg_msn",
    "msg_addr",
    "msg_len",
    "pay_rd_req_ready",
    "pay_rd_cpl_valid",
    "pay_rd_cpl_tag",
    "pay_rd_cpl_data",
    "pay_rd_cpl_keep",
    "pay_rd_cpl_last",
    "ulpdu_ready",
];
const OUTS: [&str; 13] = [
    "msg_ready",
    "msg_done",
    "pay_rd_req_valid",
    "pay_rd_req_addr",
    "pay_rd_req_len",
    "pay_rd_req_tag",
    "ulpdu_data",
    "ulpdu_keep",
    "ulpdu_last",
    "ulpdu_valid",
    "ulpdu_conn",
    "ulpdu_len",
    "idle",
];

// Input indexes.
const QPC_WRITE: usize = 0;
const QPC_QP: usize = 1;
const QPC_MULPDU: usize = 2;
const MSG_VALID: usize = 3;
const REQ_READY: usize = 13;
const CPL_VALID: usize = 14;
const CPL_TAG: usize = 15;
const CPL_DATA: usize = 16;
const CPL_KEEP: usize = 17;
const CPL_LAST: usize = 18;
const U_READY: usize = 19;
// Output indexes.
const MSG_READY: usize = 0;
const MSG_DONE: usize = 1;
const REQ_VALID: usize = 2;
const REQ_ADDR: usize = 3;
const REQ_LEN: usize = 4;
const REQ_TAG: usize = 5;
const U_DATA: usize = 6;
const U_KEEP: usize = 7;
const U_LAST: usize = 8;
const U_VALID: usize = 9;
const U_CONN: usize = 10;
const U_LEN: usize = 11;
const IDLE: usize = 12;

impl DdpTxTb {
    /// Looks the ports up.
    pub fn new(sim: &dyn Backend) -> Result<Self> {
        Ok(DdpTxTb {
            i: INS.iter().map(|n| sim.input(n)).collect::<Result<_>>()?,
            o: OUTS.iter().map(|n| sim.output(n)).collect::<Result<_>>()?,
        })
    }

    fn set_msg(&self, sim: &mut dyn Backend, m: &TxMsg) {
        let v: [u128; 9] = [
            m.conn as u128,
            u128::from(m.opcode),
            u128::from(m.stag),
            u128::from(m.to),
            u128::from(m.inv_stag),
            u128::from(m.src_to),
            u128::from(m.msn),
            u128::from(m.addr),
            u128::from(m.len),
        ];
        for (k, &x) in v.iter().enumerate() {
            sim.set(self.i[4 + k], x);
        }
    }

    /// Runs `msgs` through the block with `mulpdu` per connection and checks everything (see
    /// the module documentation). `mem` holds the payloads. Returns an error on any mismatch.
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &self,
        sim: &mut dyn Backend,
        mulpdu: [u16; CONNECTIONS],
        msgs: &[TxMsg],
        mem: &mut HostMemory,
        traffic: &TxTraffic,
        seed: u64,
        max_cycles: u64,
    ) -> Result<TxReport> {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut port = DmaPort::new(traffic.dma, seed ^ 0xd7);
        for m in msgs {
            if m.len > 0 && m.opcode != 1 {
                mem.allow_device(m.addr, m.len, true, false);
            }
        }
        // Program the MULPDUs.
        sim.set(self.i[MSG_VALID], 0);
        sim.set(self.i[U_READY], 0);
        sim.set(self.i[REQ_READY], 0);
        sim.set(self.i[CPL_VALID], 0);
        for (c, &m) in mulpdu.iter().enumerate() {
            sim.set(self.i[QPC_WRITE], 1);
            sim.set(self.i[QPC_QP], c as u128);
            sim.set(self.i[QPC_MULPDU], u128::from(m));
            sim.tick();
        }
        sim.set(self.i[QPC_WRITE], 0);
        // Expected segments per message, from the golden model.
        let expect: Vec<Vec<TxSegment>> = msgs
            .iter()
            .map(|m| expected_segments(m, mulpdu[m.conn], mem))
            .collect();
        let mut report = TxReport::default();
        let mut next_msg = 0usize; // message offered / being worked on
        let mut offered = false;
        let mut seg_idx = 0usize; // segment of the current message
        let mut cur: Option<TxSegment> = None;
        let mut outstanding = [false; 8];
        let mut start: Option<u64> = None;
        let mut now = 0u64;
        while next_msg < msgs.len() {
            ensure!(
                now < max_cycles,
                "timeout after {now} cycles: message {next_msg} of {}, segment {seg_idx}",
                msgs.len()
            );
            // Offer the message (held until msg_ready).
            if !offered && rng.gen_bool(traffic.offer) {
                offered = true;
                start.get_or_insert(now);
            }
            if offered {
                self.set_msg(sim, &msgs[next_msg]);
            }
            sim.set(self.i[MSG_VALID], u128::from(offered));
            // Completion beat.
            match port.rd_beat(now, mem) {
                Some(b) => {
                    ensure!(
                        outstanding[b.tag as usize],
                        "completion for tag {} not outstanding",
                        b.tag
                    );
                    if b.last {
                        outstanding[b.tag as usize] = false;
                    }
                    sim.set(self.i[CPL_VALID], 1);
                    sim.set(self.i[CPL_TAG], u128::from(b.tag));
                    sim.set(self.i[CPL_DATA], u128::from(b.data));
                    sim.set(self.i[CPL_KEEP], u128::from(b.keep));
                    sim.set(self.i[CPL_LAST], u128::from(b.last));
                }
                None => {
                    sim.set(self.i[CPL_VALID], 0);
                    // Junk on the other lines.
                    sim.set(self.i[CPL_DATA], u128::from(rng.gen::<u32>()));
                    sim.set(self.i[CPL_TAG], rng.gen_range(0..8));
                    sim.set(self.i[CPL_LAST], rng.gen_range(0..2));
                }
            }
            let req_ready = port.rd_req_ready(now);
            sim.set(self.i[REQ_READY], u128::from(req_ready));
            let u_ready = traffic.ready >= 1.0 || rng.gen_bool(traffic.ready);
            sim.set(self.i[U_READY], u128::from(u_ready));

            // Read requests.
            if sim.get(self.o[REQ_VALID]) == 1 && req_ready {
                let addr = sim.get(self.o[REQ_ADDR]) as u32;
                let len = sim.get(self.o[REQ_LEN]) as usize;
                let tag = sim.get(self.o[REQ_TAG]) as usize;
                ensure!(offered, "read request with no message offered");
                let m = &msgs[next_msg];
                ensure!(
                    (1..=4096).contains(&len),
                    "request of {len} octets at {addr:#x}"
                );
                ensure!(
                    (addr as u64 & 0xFFF) + len as u64 <= 4096,
                    "request at {addr:#x} of {len} crosses a 4 KiB boundary"
                );
                ensure!(
                    m.opcode != 1
                        && addr >= m.addr
                        && u64::from(addr) + len as u64 <= u64::from(m.addr) + u64::from(m.len),
                    "request {addr:#x}+{len} outside message {next_msg} {m:x?}"
                );
                ensure!(!outstanding[tag], "tag {tag} reused while outstanding");
                outstanding[tag] = true;
                port.rd_request(now, addr, len, tag as u8);
                report.requests += 1;
            }
            // ULPDU beats.
            let done = sim.get(self.o[MSG_DONE]) == 1;
            let ready_out = sim.get(self.o[MSG_READY]) == 1;
            let mut took_last = false;
            if sim.get(self.o[U_VALID]) == 1 && u_ready {
                report.beats += 1;
                let data = sim.get(self.o[U_DATA]) as u32;
                let keep = sim.get(self.o[U_KEEP]) as u8;
                let last = sim.get(self.o[U_LAST]) == 1;
                let conn = sim.get(self.o[U_CONN]) as usize;
                let len = sim.get(self.o[U_LEN]) as usize;
                ensure!(offered, "a beat with no message offered");
                let s = cur.get_or_insert_with(|| TxSegment {
                    conn,
                    len,
                    bytes: Vec::new(),
                });
                ensure!(
                    s.conn == conn && s.len == len,
                    "conn/len changed within a packet ({}/{} then {conn}/{len})",
                    s.conn,
                    s.len
                );
                let n = (keep << 4).leading_ones() as usize;
                ensure!(
                    keep != 0 && u32::from(keep) == (0xF0u32 >> n) & 0xF,
                    "keep {keep:#x} not contiguous from the MSB lane"
                );
                ensure!(
                    last || keep == 0xF,
                    "partial beat {keep:#x} before the last"
                );
                for lane in 0..n {
                    s.bytes.push((data >> (8 * (3 - lane))) as u8);
                }
                if last {
                    let s = cur.take().unwrap();
                    let want = expect[next_msg].get(seg_idx);
                    if want != Some(&s) {
                        bail!(
                            "message {next_msg} {:x?} segment {seg_idx}: got {:02x?} (conn {} len {}), want {:02x?}",
                            msgs[next_msg],
                            &s.bytes[..s.bytes.len().min(64)],
                            s.conn,
                            s.len,
                            want.map(|w| &w.bytes[..w.bytes.len().min(64)])
                        );
                    }
                    report.segments += 1;
                    seg_idx += 1;
                    took_last = true;
                }
            }
            let final_beat = took_last && seg_idx == expect[next_msg].len();
            ensure!(
                done == final_beat,
                "msg_done = {done} but the message's final beat taken = {final_beat} \
                 (message {next_msg}, segment {seg_idx})"
            );
            ensure!(ready_out == done, "msg_ready differs from msg_done");
            sim.tick();
            now += 1;
            if done {
                next_msg += 1;
                seg_idx = 0;
                offered = false;
                report.cycles = now - start.unwrap_or(0);
            }
        }
        sim.set(self.i[MSG_VALID], 0);
        sim.set(self.i[CPL_VALID], 0);
        for _ in 0..3 {
            sim.tick();
        }
        ensure!(sim.get(self.o[IDLE]) == 1, "not idle at the end");
        ensure!(
            sim.get(self.o[REQ_VALID]) == 0,
            "read request after the last message"
        );
        ensure!(!port.busy(), "reads still outstanding at the end");
        ensure!(
            mem.violations().is_empty(),
            "protection violations: {:?}",
            &mem.violations()[..mem.violations().len().min(4)]
        );
        Ok(report)
    }
}

/// Random messages: every opcode (0-6), lengths 0..=several KiB with 1, 3, 4, 5 and a few of
/// 64 Ki and more when `big`, random host alignment, each message's payload in its own range.
pub fn random_messages(rng: &mut impl Rng, count: usize, max_len: u32, big: bool) -> Vec<TxMsg> {
    let mut addr = 0x1000_0000u32 + rng.gen_range(0..4096);
    (0..count)
        .map(|_| {
            let len = match rng.gen_range(0..10) {
                0 => [0u32, 1, 2, 3, 4, 5, 6, 7][rng.gen_range(0..8)],
                1 if big && rng.gen_bool(0.2) => 65536 + rng.gen_range(0..300),
                2..=4 => rng.gen_range(0..=64),
                _ => rng.gen_range(0..=max_len),
            };
            let m = TxMsg {
                conn: rng.gen_range(0..CONNECTIONS),
                opcode: rng.gen_range(0..7),
                stag: rng.gen(),
                to: rng.gen(),
                inv_stag: rng.gen(),
                src_to: rng.gen(),
                msn: rng.gen(),
                addr: addr + rng.gen_range(0..4),
                len,
            };
            addr = (addr + len + 4 + rng.gen_range(0..600)) & !3;
            m
        })
        .collect()
}

/// Host memory with random octets over every message's payload.
pub fn memory_for(msgs: &[TxMsg], rng: &mut impl Rng) -> HostMemory {
    let mut mem = HostMemory::new();
    for m in msgs {
        let bytes: Vec<u8> = (0..m.len).map(|_| rng.gen()).collect();
        mem.write(m.addr, &bytes);
    }
    mem
}

/// Benchmark: ULPDU beats per cycle for `count` RDMA Writes of `len` octets (MULPDU `mulpdu`,
/// host alignment `align`), DMA latency `latency` (no jitter, 512-octet pieces), `ulpdu_ready`
/// always 1, messages back to back. Checked like any run.
pub fn measure_beats_per_cycle(
    kind: BackendKind,
    len: u32,
    count: usize,
    mulpdu: u16,
    align: u32,
    latency: u64,
) -> Result<TxReport> {
    let mut sim = kind.build_untraced(DdpTx::default())?;
    let tb = DdpTxTb::new(sim.as_ref())?;
    let msgs: Vec<TxMsg> = (0..count)
        .map(|i| TxMsg {
            conn: i % CONNECTIONS,
            opcode: 0,
            stag: 0x1234_5600 + i as u32,
            to: 0x10_0000 * i as u64,
            inv_stag: 0,
            src_to: 0,
            msn: 1,
            addr: 0x2000_0000 + i as u32 * ((len + 8192) & !4095) + align,
            len,
        })
        .collect();
    let mut rng = StdRng::seed_from_u64(7);
    let mut mem = memory_for(&msgs, &mut rng);
    let mut traffic = TxTraffic::FULL_SPEED;
    traffic.dma.read.latency = latency;
    tb.run(
        sim.as_mut(),
        [mulpdu; CONNECTIONS],
        &msgs,
        &mut mem,
        &traffic,
        1,
        100 * u64::from(len) * count as u64 + 10_000,
    )
}
