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
//!   payload from host memory; `ulpdu_conn` constant over the packet and equal to the
//!   connection, `ulpdu_len` with the packet's first beat equal to the segment's length (it is
//!   read there only); `keep` contiguous from the MSB lane, full on
//!   every beat but the last;
//! - every read request: 1..=4096 octets, not crossing a 4 KiB boundary, inside
//!   `[msg_addr, msg_addr + len)` of the message being worked on, its tag not outstanding; the
//!   DMA model's protection monitor sees no read outside the allowed ranges;
//! - `msg_done`: exactly one per message, in the cycle after its last segment's last beat is
//!   taken (a register);
//!   `msg_ready` only then; `idle` at the end.
//! - `msg_take`: exactly one per message, while it is offered; after it the driver puts junk on
//!   `msg_addr` / `msg_len` (a source may change them then), except for a Read Request.
//!
//! Read-ahead hints (`nxt_*`, [`TxHint`]): per message a plan (hint a later message's region,
//! hint a region no message reads, hint a later message and withdraw the hint, then change
//! that message's host memory before it is offered, so that stale read-ahead data would be
//! sent and caught). A request may also read the last hinted region; expected segments are
//! built when a message is offered, from host memory as it is then.

use crate::dma_port::{DmaConfig, DmaPort};
use crate::host_mem::{in_window, HostMemory};
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
            sink_stag: msg.inv_stag,
            sink_to: msg.src_to,
            read_size: msg.len,
            src_stag: msg.stag,
            src_to: msg.to,
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
                    msg.stag
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

/// A read-ahead hint plan, attached to a message: it starts `delay` cycles after that message
/// is offered (kept while another hint is presented: hints never change without a gap).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxHint {
    /// No hint.
    None,
    /// Hint message `target`'s region (a later message) until it is offered.
    Next { target: usize, delay: u64 },
    /// Hint `[addr, addr + len)`, read by no message, until the next message is offered.
    Other { addr: u32, len: u32, delay: u64 },
    /// Hint message `target`'s region for `hold` cycles, then withdraw it and rewrite that
    /// message's host memory (it must be sent with the new octets).
    Withdraw {
        target: usize,
        delay: u64,
        hold: u64,
    },
}

/// Random hint plans for `msgs`: most hint the next message with payload (after a random
/// delay), some another region, some are withdrawn, some none.
pub fn random_hints(rng: &mut impl Rng, msgs: &[TxMsg]) -> Vec<TxHint> {
    (0..msgs.len())
        .map(|i| {
            let target = (i + 1..msgs.len()).find(|&j| msgs[j].opcode != 1 && msgs[j].len > 0);
            let delay = if rng.gen_bool(0.5) {
                0
            } else {
                rng.gen_range(0..400)
            };
            match (rng.gen_range(0..10), target) {
                (0..=5, Some(t)) => TxHint::Next { target: t, delay },
                (6, Some(t)) => TxHint::Withdraw {
                    target: t,
                    delay,
                    hold: rng.gen_range(1..300),
                },
                (7, _) => TxHint::Other {
                    addr: in_window(0x7000_0000) + rng.gen_range(0..1 << 20),
                    len: rng.gen_range(1..3000),
                    delay,
                },
                _ => TxHint::None,
            }
        })
        .collect()
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
    /// Per message: cycles from its offer to its `msg_done` (inclusive), and its beats.
    pub msg_cycles: Vec<u64>,
    pub msg_beats: Vec<u64>,
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
    /// `nxt_shown` while a hint is up: the hint is of the offered message's source (true by
    /// default; false models the other source's hint, which DdpTx must not match).
    pub hint_shown: bool,
}

const INS: [&str; 24] = [
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
    "nxt_valid",
    "nxt_addr",
    "nxt_len",
    "nxt_shown",
];
const OUTS: [&str; 14] = [
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
    "msg_take",
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
const NXT_VALID: usize = 20;
const NXT_ADDR: usize = 21;
const NXT_LEN: usize = 22;
const NXT_SHOWN: usize = 23;
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
const MSG_TAKE: usize = 13;

impl DdpTxTb {
    /// Looks the ports up.
    pub fn new(sim: &dyn Backend) -> Result<Self> {
        Ok(DdpTxTb {
            i: INS.iter().map(|n| sim.input(n)).collect::<Result<_>>()?,
            o: OUTS.iter().map(|n| sim.output(n)).collect::<Result<_>>()?,
            hint_shown: true,
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
        self.run_hinted(sim, mulpdu, msgs, &[], mem, traffic, seed, max_cycles)
    }

    /// [`Self::run`] with a read-ahead hint plan per message (`hints[i]` for message `i`; a
    /// shorter slice means no hint for the rest).
    #[allow(clippy::too_many_arguments)]
    pub fn run_hinted(
        &self,
        sim: &mut dyn Backend,
        mulpdu: [u16; CONNECTIONS],
        msgs: &[TxMsg],
        hints: &[TxHint],
        mem: &mut HostMemory,
        traffic: &TxTraffic,
        seed: u64,
        max_cycles: u64,
    ) -> Result<TxReport> {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut port = DmaPort::new(traffic.dma, seed ^ 0xd7);
        // One source: every hint is the offered message's source's (unless told otherwise).
        sim.set(self.i[NXT_SHOWN], u128::from(self.hint_shown));
        for m in msgs {
            if m.len > 0 && m.opcode != 1 {
                mem.allow_device(m.addr, m.len, true, false);
            }
        }
        for h in hints {
            if let TxHint::Other { addr, len, .. } = *h {
                mem.allow_device(addr, len, true, false);
            }
        }
        // The hint presented: (addr, len, from cycle, until cycle (withdraw), target message).
        let mut hint: Option<(u32, u32, u64, u64, Option<usize>)> = None;
        // The regions hinted so far (requests may read them).
        let mut hinted: Vec<(u32, u32)> = Vec::new();
        let mut taken = false;
        let mut replan = false;
        let mut offered_at = 0u64;
        let mut msg_beats = 0u64;
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
        // Expected segments of the message offered, from the golden model (built at the offer).
        let mut expect: Vec<TxSegment> = Vec::new();
        let mut report = TxReport::default();
        let mut next_msg = 0usize; // message offered / being worked on
        let mut offered = false;
        // The message's final beat was taken in the last cycle (`msg_done` is due now).
        let mut final_prev = false;
        let mut seg_idx = 0usize; // segment of the current message
        let mut cur: Option<TxSegment> = None;
        // `ulpdu_len` while a packet's first beat is offered (it must not change until taken:
        // MpaTx may read it in an earlier cycle, with a leading marker).
        let mut first_len: Option<usize> = None;
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
                taken = false;
                offered_at = now;
                msg_beats = 0;
                start.get_or_insert(now);
                let m = &msgs[next_msg];
                expect = expected_segments(m, mulpdu[m.conn], mem);
                replan = true;
                // A hint of this message is not withdrawn any more once it is offered.
                if let Some((a, l, from, _, t)) = hint {
                    if t == Some(next_msg) {
                        hint = Some((a, l, from, u64::MAX, t));
                    }
                }
            }
            // A hint of a region no message reads ends at the offer; a hint of this message
            // stays up (unchanged) until its take (the contract); then this message's plan.
            if replan {
                if let Some((.., t)) = hint {
                    if t.is_none() || (t == Some(next_msg) && taken) {
                        hint = None;
                    }
                }
                if hint.is_none_or(|(.., t)| t != Some(next_msg)) {
                    replan = false;
                }
                if !replan && hint.is_none() {
                    // Low for a cycle at least between two hints (the contract).
                    let h = match hints.get(next_msg).copied().unwrap_or(TxHint::None) {
                        TxHint::Next { target, delay } => TxHint::Next {
                            target,
                            delay: delay.max(1),
                        },
                        TxHint::Other { addr, len, delay } => TxHint::Other {
                            addr,
                            len,
                            delay: delay.max(1),
                        },
                        TxHint::Withdraw {
                            target,
                            delay,
                            hold,
                        } => TxHint::Withdraw {
                            target,
                            delay: delay.max(1),
                            hold,
                        },
                        TxHint::None => TxHint::None,
                    };
                    hint = match h {
                        TxHint::None => None,
                        TxHint::Next { target, delay } => Some((
                            msgs[target].addr,
                            msgs[target].len,
                            now + delay,
                            u64::MAX,
                            Some(target),
                        )),
                        TxHint::Other { addr, len, delay } => {
                            Some((addr, len, now + delay, u64::MAX, None))
                        }
                        TxHint::Withdraw {
                            target,
                            delay,
                            hold,
                        } => Some((
                            msgs[target].addr,
                            msgs[target].len,
                            now + delay,
                            now + delay + hold,
                            Some(target),
                        )),
                    };
                    // `nxt_len` is 16 bits: no hint of 64 KiB or more (the sources' rule).
                    if hint.is_some_and(|(_, l, ..)| l >= 1 << 16) {
                        hint = None;
                    }
                }
            }
            if offered {
                self.set_msg(sim, &msgs[next_msg]);
                if taken && msgs[next_msg].opcode != 1 {
                    // Read for the last time at the take: a source may change them now.
                    sim.set(self.i[4 + 7], u128::from(rng.gen::<u32>()));
                    sim.set(self.i[4 + 8], u128::from(rng.gen::<u32>()));
                }
            }
            sim.set(self.i[MSG_VALID], u128::from(offered));
            // The hint.
            let mut nxt = false;
            if let Some((a, l, from, until, target)) = hint {
                if now >= until {
                    // Withdrawn: the target's memory changes before it is offered.
                    hint = None;
                    if let Some(t) = target {
                        let m = &msgs[t];
                        let bytes: Vec<u8> = (0..m.len).map(|_| rng.gen()).collect();
                        mem.write(m.addr, &bytes);
                    }
                } else if now >= from {
                    nxt = true;
                    sim.set(self.i[NXT_ADDR], u128::from(a));
                    sim.set(self.i[NXT_LEN], u128::from(l));
                    if hinted.last() != Some(&(a, l)) {
                        hinted.push((a, l));
                    }
                }
            }
            if !nxt {
                sim.set(self.i[NXT_ADDR], u128::from(rng.gen::<u32>()));
                sim.set(self.i[NXT_LEN], u128::from(rng.gen::<u16>()));
            }
            sim.set(self.i[NXT_VALID], u128::from(nxt));
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
                let m = &msgs[next_msg];
                ensure!(
                    (1..=4096).contains(&len),
                    "request of {len} octets at {addr:#x}"
                );
                ensure!(
                    (addr as u64 & 0xFFF) + len as u64 <= 4096,
                    "request at {addr:#x} of {len} crosses a 4 KiB boundary"
                );
                let inside = |a: u32, l: u32| {
                    addr >= a && u64::from(addr) + len as u64 <= u64::from(a) + u64::from(l)
                };
                ensure!(
                    (offered && m.opcode != 1 && inside(m.addr, m.len))
                        || hinted.iter().any(|&(a, l)| inside(a, l)),
                    "request {addr:#x}+{len} outside message {next_msg} {m:x?} (offered \
                     {offered}) and every hint"
                );
                ensure!(!outstanding[tag], "tag {tag} reused while outstanding");
                outstanding[tag] = true;
                port.rd_request(now, addr, len, tag as u8);
                report.requests += 1;
            }
            // The take.
            if sim.get(self.o[MSG_TAKE]) == 1 {
                ensure!(
                    offered && !taken,
                    "msg_take with no message offered or a second time (message {next_msg})"
                );
                taken = true;
            }
            // ULPDU beats.
            let done = sim.get(self.o[MSG_DONE]) == 1;
            let ready_out = sim.get(self.o[MSG_READY]) == 1;
            let mut took_last = false;
            if sim.get(self.o[U_VALID]) == 1 && cur.is_none() {
                let len = sim.get(self.o[U_LEN]) as usize;
                let l0 = *first_len.get_or_insert(len);
                ensure!(
                    l0 == len,
                    "ulpdu_len changed while a first beat was offered ({l0} then {len})"
                );
                if u_ready {
                    first_len = None;
                }
            }
            if sim.get(self.o[U_VALID]) == 1 && u_ready {
                report.beats += 1;
                msg_beats += 1;
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
                // `ulpdu_len` is read with the packet's first beat only (MpaTx's contract):
                // DdpTx loads the next segment's length when this one's last beat is made.
                ensure!(
                    s.conn == conn,
                    "conn changed within a packet ({} then {conn}, len {len})",
                    s.conn
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
                    let want = expect.get(seg_idx);
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
            let final_beat = took_last && seg_idx == expect.len();
            ensure!(
                done == final_prev,
                "msg_done = {done} but the message's final beat taken in the last cycle = \
                 {final_prev} (message {next_msg}, segment {seg_idx})"
            );
            final_prev = final_beat;
            ensure!(ready_out == done, "msg_ready differs from msg_done");
            ensure!(!done || taken, "msg_done before msg_take");
            sim.tick();
            now += 1;
            if done {
                report.msg_cycles.push(now - offered_at);
                report.msg_beats.push(msg_beats);
                next_msg += 1;
                seg_idx = 0;
                offered = false;
                report.cycles = now - start.unwrap_or(0);
            }
        }
        // No hint any more: a read-ahead left over is cancelled once its completions are in.
        sim.set(self.i[MSG_VALID], 0);
        sim.set(self.i[NXT_VALID], 0);
        sim.set(self.i[REQ_READY], 1);
        let mut left = 0;
        while left < 3 {
            ensure!(now < max_cycles + 5000, "not idle after the last message");
            // A request the cycle the hint fell is still allowed (inside the hint).
            if sim.get(self.o[REQ_VALID]) == 1 {
                let addr = sim.get(self.o[REQ_ADDR]) as u32;
                let len = sim.get(self.o[REQ_LEN]) as usize;
                let tag = sim.get(self.o[REQ_TAG]) as u8;
                ensure!(
                    left == 0
                        && hinted.iter().any(|&(a, l)| addr >= a
                            && u64::from(addr) + len as u64 <= u64::from(a) + u64::from(l)),
                    "read request {addr:#x}+{len} after the last message"
                );
                port.rd_request(now, addr, len, tag);
            }
            match port.rd_beat(now, mem) {
                Some(b) => {
                    sim.set(self.i[CPL_VALID], 1);
                    sim.set(self.i[CPL_TAG], u128::from(b.tag));
                    sim.set(self.i[CPL_DATA], u128::from(b.data));
                    sim.set(self.i[CPL_KEEP], u128::from(b.keep));
                    sim.set(self.i[CPL_LAST], u128::from(b.last));
                }
                None => sim.set(self.i[CPL_VALID], 0),
            }
            ensure!(
                sim.get(self.o[U_VALID]) == 0 && sim.get(self.o[MSG_TAKE]) == 0,
                "output after the last message"
            );
            if sim.get(self.o[IDLE]) == 1 && !port.busy() {
                left += 1;
            } else {
                left = 0;
            }
            sim.tick();
            now += 1;
        }
        sim.set(self.i[CPL_VALID], 0);
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
    let mut addr = in_window(0x1000_0000) + rng.gen_range(0..4096);
    (0..count)
        .map(|_| {
            let len = match rng.gen_range(0..10) {
                0 => [0u32, 1, 2, 3, 4, 5, 6, 7][rng.gen_range(0..8)],
                1 if big && rng.gen_bool(0.2) => 65536 + rng.gen_range(0..300),
                2..=4 => rng.gen_range(0..=64),
                _ => rng.gen_range(0..=max_len),
            };
            // A quarter of the TOs with a lower half that wraps within the message.
            let to = if rng.gen_bool(0.25) {
                (rng.gen::<u64>() & !0xFFFF_FFFF)
                    | (0xFFFF_FFFF - u64::from(rng.gen_range(0..=len)))
            } else {
                rng.gen()
            };
            let m = TxMsg {
                conn: rng.gen_range(0..CONNECTIONS),
                opcode: rng.gen_range(0..7),
                stag: rng.gen(),
                to,
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
            addr: in_window(0x2000_0000) + i as u32 * ((len + 8192) & !4095) + align,
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
