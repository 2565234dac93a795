//! The PCIe-like DMA port at beat level (DESIGN.md "Interface conventions", `docs/core.md`
//! "DMA read channel" / "DMA write channel"; issue 5 item 1): what a test bench connects to the
//! core's `dma_rd_*` / `dma_wr_*` ports, or to one requester's channel.
//!
//! - Reads: requests (address, length, tag) go to the [`DmaReadModel`] (latency, split at
//!   aligned `max_read_request` boundaries, tags overtaking each other, stalls). Each piece comes
//!   back as **DW-aligned beats**: beat k holds host octets `(addr & !3) + 4k ..`, lowest address
//!   in the most significant lane, `keep` marking the requested octets; the beats of one piece
//!   go out back to back, `last` on the request's final beat. Completions have no ready.
//! - Request back-pressure: `rd_req_ready` is low with probability `req_stall` per cycle.
//! - Writes: beats go to [`HostMemory::dma_write_beat`] (protection monitor, memory, log);
//!   `wr_ready` is low with probability `wr_stall`; each packet (`last`) is answered by one
//!   `wr_done` pulse `wr_done_latency` cycles later (several may queue, one pulse per cycle).

use crate::dma_read::{DmaReadConfig, DmaReadModel, ReadCompletion};
use crate::host_mem::HostMemory;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// Shape of the whole port.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DmaConfig {
    /// The read side (latency, jitter, max read request, completion stalls).
    pub read: DmaReadConfig,
    /// Probability that `rd_req_ready` is low in a cycle.
    pub req_stall: f64,
    /// Probability that `wr_ready` is low in a cycle.
    pub wr_stall: f64,
    /// Cycles from a packet's `last` beat to its `wr_done` pulse.
    pub wr_done_latency: u64,
}

impl Default for DmaConfig {
    /// Latency 50, 512-octet pieces, no back-pressure anywhere, write-done after 20 cycles.
    fn default() -> Self {
        DmaConfig {
            read: DmaReadConfig::default(),
            req_stall: 0.0,
            wr_stall: 0.0,
            wr_done_latency: 20,
        }
    }
}

impl DmaConfig {
    /// Random latency, jitter, piece size and back-pressure on every channel, from `rng`.
    pub fn random(rng: &mut impl Rng) -> Self {
        DmaConfig {
            read: DmaReadConfig {
                latency: rng.gen_range(1..=120),
                jitter: rng.gen_range(0..=60),
                max_read_request: [64, 128, 256, 512, 4096][rng.gen_range(0..5)],
                stall: rng.gen_range(0.0..0.5),
            },
            req_stall: rng.gen_range(0.0..0.6),
            wr_stall: rng.gen_range(0.0..0.6),
            wr_done_latency: rng.gen_range(1..=50),
        }
    }
}

/// One read completion beat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadBeat {
    pub tag: u8,
    /// Octets, the lowest address in the most significant lane.
    pub data: u32,
    /// Lanes holding requested octets, MSB = lane 0.
    pub keep: u8,
    /// The request's final beat.
    pub last: bool,
}

/// The DMA port model.
#[derive(Clone, Debug)]
pub struct DmaPort {
    cfg: DmaConfig,
    rng: StdRng,
    read: DmaReadModel,
    /// Beats of the piece being returned.
    beats: VecDeque<ReadBeat>,
    /// Cycles at which write-done pulses are due.
    done_due: VecDeque<u64>,
    req_ready_at: Option<(u64, bool)>,
    wr_ready_at: Option<(u64, bool)>,
}

impl DmaPort {
    /// A port with `cfg`, seeded.
    pub fn new(cfg: DmaConfig, seed: u64) -> Self {
        DmaPort {
            cfg,
            rng: StdRng::seed_from_u64(seed),
            read: DmaReadModel::new(cfg.read, seed ^ 0x5eed),
            beats: VecDeque::new(),
            done_due: VecDeque::new(),
            req_ready_at: None,
            wr_ready_at: None,
        }
    }

    /// The configuration.
    pub fn config(&self) -> DmaConfig {
        self.cfg
    }

    /// `rd_req_ready` for cycle `now` (decided once per cycle).
    pub fn rd_req_ready(&mut self, now: u64) -> bool {
        match self.req_ready_at {
            Some((t, r)) if t == now => r,
            _ => {
                let r = !(self.cfg.req_stall > 0.0 && self.rng.gen_bool(self.cfg.req_stall));
                self.req_ready_at = Some((now, r));
                r
            }
        }
    }

    /// A read request taken in cycle `now`.
    pub fn rd_request(&mut self, now: u64, addr: u32, len: usize, tag: u8) {
        self.read.request(now, addr, len, tag);
    }

    /// The completion beat presented in cycle `now` (consumed: completions have no ready).
    /// Call once per cycle.
    pub fn rd_beat(&mut self, now: u64, mem: &mut HostMemory) -> Option<ReadBeat> {
        if self.beats.is_empty() {
            let c = self.read.poll(now, mem)?;
            self.beats = piece_beats(&c).into();
        }
        self.beats.pop_front()
    }

    /// `wr_ready` for cycle `now` (decided once per cycle).
    pub fn wr_ready(&mut self, now: u64) -> bool {
        match self.wr_ready_at {
            Some((t, r)) if t == now => r,
            _ => {
                let r = !(self.cfg.wr_stall > 0.0 && self.rng.gen_bool(self.cfg.wr_stall));
                self.wr_ready_at = Some((now, r));
                r
            }
        }
    }

    /// A write beat taken in cycle `now`.
    pub fn wr_beat(
        &mut self,
        now: u64,
        mem: &mut HostMemory,
        addr: u32,
        data: u32,
        keep: u8,
        last: bool,
    ) {
        mem.dma_write_beat(addr, data, keep, last, now);
        if last {
            self.done_due.push_back(now + self.cfg.wr_done_latency);
        }
    }

    /// `dma_wr_done` in cycle `now`: one pulse per written packet, once due.
    pub fn wr_done(&mut self, now: u64) -> bool {
        match self.done_due.front() {
            Some(&t) if t <= now => {
                self.done_due.pop_front();
                true
            }
            _ => false,
        }
    }

    /// Whether reads are still being served or write-dones are pending.
    pub fn busy(&self) -> bool {
        self.read.busy() || !self.beats.is_empty() || !self.done_due.is_empty()
    }
}

/// The DW-aligned beats of one completion piece.
pub fn piece_beats(c: &ReadCompletion) -> Vec<ReadBeat> {
    let start = c.addr & !3;
    let end = c.addr as u64 + c.data.len() as u64;
    let mut beats = Vec::new();
    let mut a = start as u64;
    while a < end.max(start as u64 + 1) {
        let mut data = 0u32;
        let mut keep = 0u8;
        for lane in 0..4u64 {
            let byte_addr = a + lane;
            if byte_addr >= c.addr as u64 && byte_addr < end {
                data |= u32::from(c.data[(byte_addr - c.addr as u64) as usize]) << (8 * (3 - lane));
                keep |= 1 << (3 - lane);
            }
        }
        beats.push(ReadBeat {
            tag: c.tag,
            data,
            keep,
            last: false,
        });
        a += 4;
    }
    if let Some(b) = beats.last_mut() {
        b.last = c.last;
    }
    beats
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host_mem::Region;
    use rnic_proto::verbs::access;

    fn memory() -> HostMemory {
        let mut mem = HostMemory::new();
        let bytes: Vec<u8> = (0..8192u32).map(|i| (i * 13 + 5) as u8).collect();
        mem.write(0x1000, &bytes);
        mem.set_region(
            1,
            Region {
                host_addr: 0x1000,
                len: 8192,
                pd: 1,
                access: access::LOCAL_READ,
                valid: true,
            },
        );
        mem.set_qp_pd(0, Some(1));
        mem
    }

    /// Reassembles requests from beats and checks the DW-aligned format (`docs/core.md`).
    #[test]
    fn read_beats_are_dw_aligned_and_reassemble_each_request() {
        for seed in 0..20u64 {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut cfg = DmaConfig::random(&mut rng);
            cfg.read.max_read_request = [16, 64, 128][seed as usize % 3];
            let mut port = DmaPort::new(cfg, seed);
            let mut mem = memory();
            let reqs: Vec<(u32, usize)> = (0..8)
                .map(|_| {
                    (
                        0x1000 + rng.gen_range(0..4000u32),
                        rng.gen_range(1..=600usize),
                    )
                })
                .collect();
            let mut next = 0;
            let mut got: Vec<Vec<u8>> = vec![Vec::new(); reqs.len()];
            let mut expect_addr: Vec<u32> = reqs.iter().map(|r| r.0 & !3).collect();
            let mut done = vec![false; reqs.len()];
            for now in 0..100_000u64 {
                if next < reqs.len() && port.rd_req_ready(now) {
                    port.rd_request(now, reqs[next].0, reqs[next].1, next as u8);
                    next += 1;
                }
                if let Some(b) = port.rd_beat(now, &mut mem) {
                    let t = b.tag as usize;
                    assert!(!done[t], "seed {seed}: beat after last");
                    let (addr, len) = reqs[t];
                    let beat_addr = expect_addr[t];
                    expect_addr[t] += 4;
                    for lane in 0..4u32 {
                        let a = beat_addr + lane;
                        let inside = a >= addr && (a - addr) < len as u32;
                        assert_eq!(
                            b.keep >> (3 - lane) & 1 == 1,
                            inside,
                            "seed {seed}: keep of beat at {beat_addr:#x}"
                        );
                        if inside {
                            got[t].push((b.data >> (8 * (3 - lane))) as u8);
                        }
                    }
                    if b.last {
                        done[t] = true;
                    }
                }
                if done.iter().all(|&d| d) {
                    break;
                }
            }
            for (t, &(addr, len)) in reqs.iter().enumerate() {
                assert!(done[t], "seed {seed}: request {t} not completed");
                assert_eq!(got[t], mem.read(addr, len), "seed {seed}: request {t} data");
            }
            mem.assert_no_violations();
        }
    }

    #[test]
    fn writes_reach_memory_and_are_answered_once_per_packet() {
        let mut port = DmaPort::new(DmaConfig::default(), 1);
        let mut mem = HostMemory::new();
        mem.allow_device(0x2000, 64, false, true);
        port.wr_beat(10, &mut mem, 0x2000, 0x0102_0304, 0xF, false);
        port.wr_beat(11, &mut mem, 0x2004, 0x0506_0000, 0xC, true);
        assert_eq!(mem.read(0x2000, 6), vec![1, 2, 3, 4, 5, 6]);
        mem.assert_no_violations();
        let pulses: Vec<u64> = (0..100).filter(|&t| port.wr_done(t)).collect();
        assert_eq!(pulses, vec![31]);
        assert!(!port.busy());
    }

    #[test]
    fn device_ranges_allow_only_their_direction() {
        let mut mem = HostMemory::new();
        mem.allow_device(0x3000, 32, true, false);
        assert!(mem.check_read(0x3000, 32, 0));
        assert!(!mem.check_read(0x3020, 1, 0));
        mem.dma_write_beat(0x3000, 0, 0xF, true, 0);
        // One octet read outside, four octets written into a read-only range.
        assert_eq!(mem.violations().len(), 5);
    }
}
