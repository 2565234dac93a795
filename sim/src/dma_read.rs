//! The read side of the PCIe-like DMA port (DESIGN.md "Interface conventions"; issue 5 item 1):
//! read requests (address, length, tag) answered from [`HostMemory`] after a configurable
//! latency, split at the maximum read request size (at addresses aligned to it), with completions of different tags free to
//! come back out of order (completions of one tag stay in order, as PCIe's do), and random
//! back-pressure. Every read goes through the protection monitor ([`HostMemory::check_read`]).
//!
//! The hardware side (the host interface's DMA arbiter) is issue 5; this model is what its test
//! benches answer reads with.

use crate::host_mem::HostMemory;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Shape of the read side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DmaReadConfig {
    /// Cycles from a request to the first completion of each of its pieces (at least).
    pub latency: u64,
    /// Extra random latency per piece, 0..=jitter cycles.
    pub jitter: u64,
    /// Maximum read request size: a request is served as pieces of at most this many octets,
    /// each with its own completion (`last` on the request's final piece).
    pub max_read_request: usize,
    /// Probability that a due completion is held back in a given cycle.
    pub stall: f64,
}

impl Default for DmaReadConfig {
    /// 50 cycles (issue 5's default), no jitter, 512-octet pieces, no back-pressure.
    fn default() -> Self {
        DmaReadConfig {
            latency: 50,
            jitter: 0,
            max_read_request: 512,
            stall: 0.0,
        }
    }
}

/// One read completion: `data` from `addr`, for request `tag`; `last` ends the request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadCompletion {
    pub tag: u8,
    pub addr: u32,
    pub data: Vec<u8>,
    pub last: bool,
}

#[derive(Clone, Debug)]
struct Piece {
    due: u64,
    tag: u8,
    addr: u32,
    len: usize,
    last: bool,
}

/// The read side of the DMA model.
#[derive(Clone, Debug)]
pub struct DmaReadModel {
    cfg: DmaReadConfig,
    rng: StdRng,
    pending: Vec<Piece>,
}

impl DmaReadModel {
    /// A read model with `cfg`, seeded.
    pub fn new(cfg: DmaReadConfig, seed: u64) -> Self {
        assert!(
            cfg.max_read_request > 0,
            "max_read_request must be positive"
        );
        DmaReadModel {
            cfg,
            rng: StdRng::seed_from_u64(seed),
            pending: Vec::new(),
        }
    }

    /// Takes a read request in cycle `now`. A zero-length request gets one empty completion.
    pub fn request(&mut self, now: u64, addr: u32, len: usize, tag: u8) {
        let mut offset = 0;
        loop {
            // Pieces end on `max_read_request`-aligned host addresses (as PCIe completions end
            // on RCB boundaries), so every piece but the first starts aligned.
            let at = addr.wrapping_add(offset as u32) as usize;
            let room = self.cfg.max_read_request - at % self.cfg.max_read_request;
            let n = (len - offset).min(room);
            let due = now + self.cfg.latency + self.rng.gen_range(0..=self.cfg.jitter);
            // A later piece of one tag is never due before an earlier one.
            let due = self
                .pending
                .iter()
                .filter(|p| p.tag == tag)
                .map(|p| p.due)
                .max()
                .map_or(due, |d| d.max(due));
            self.pending.push(Piece {
                due,
                tag,
                addr: addr.wrapping_add(offset as u32),
                len: n,
                last: offset + n == len,
            });
            offset += n;
            if offset >= len {
                break;
            }
        }
    }

    /// Whether requests are still being served.
    pub fn busy(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The completion to present in cycle `now`, if any: one of the due pieces that is the
    /// oldest of its tag, chosen at random (so tags overtake each other), read from `mem`
    /// through the protection monitor.
    pub fn poll(&mut self, now: u64, mem: &mut HostMemory) -> Option<ReadCompletion> {
        if self.cfg.stall > 0.0 && self.rng.gen_bool(self.cfg.stall) {
            return None;
        }
        let heads: Vec<usize> = (0..self.pending.len())
            .filter(|&i| {
                let p = &self.pending[i];
                p.due <= now && !self.pending[..i].iter().any(|q| q.tag == p.tag)
            })
            .collect();
        if heads.is_empty() {
            return None;
        }
        let p = self
            .pending
            .remove(heads[self.rng.gen_range(0..heads.len())]);
        mem.check_read(p.addr, p.len, now);
        Some(ReadCompletion {
            tag: p.tag,
            addr: p.addr,
            data: mem.read(p.addr, p.len),
            last: p.last,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host_mem::Region;
    use rnic_proto::verbs::access;

    fn memory() -> HostMemory {
        let mut mem = HostMemory::new();
        let bytes: Vec<u8> = (0..8192u32).map(|i| (i * 7 + 1) as u8).collect();
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

    #[test]
    fn requests_are_split_delayed_and_complete_in_order_per_tag() {
        let cfg = DmaReadConfig {
            latency: 50,
            jitter: 30,
            max_read_request: 128,
            stall: 0.3,
        };
        let mut dma = DmaReadModel::new(cfg, 3);
        let mut mem = memory();
        let reqs = [
            (0x1000u32, 1000usize, 0u8),
            (0x1400, 300, 1),
            (0x1800, 0, 2),
            (0x1900, 129, 3),
        ];
        for (i, &(a, l, t)) in reqs.iter().enumerate() {
            dma.request(i as u64, a, l, t);
        }
        let mut got: Vec<Vec<u8>> = vec![Vec::new(); 4];
        let mut done = [false; 4];
        let mut order = Vec::new();
        for now in 0..10_000 {
            if let Some(c) = dma.poll(now, &mut mem) {
                assert!(now >= 50, "a completion before the latency");
                assert!(
                    c.data.len() <= 128,
                    "a piece above the maximum read request"
                );
                assert!(
                    !done[c.tag as usize],
                    "a completion after its request's last"
                );
                let t = c.tag as usize;
                assert_eq!(
                    c.addr,
                    reqs[t].0 + got[t].len() as u32,
                    "pieces of a tag in order"
                );
                got[t].extend(&c.data);
                done[t] = c.last;
                order.push(c.tag);
            }
        }
        assert!(!dma.busy());
        for (t, &(a, l, _)) in reqs.iter().enumerate() {
            assert!(done[t]);
            assert_eq!(got[t], mem.read(a, l), "tag {t}");
        }
        // Tags overtake each other: tag 0's pieces do not all come first.
        let first_other = order.iter().position(|&t| t != 0).unwrap();
        assert!(first_other < 8, "no reordering across tags: {order:?}");
        mem.assert_no_violations();
    }

    #[test]
    fn reads_outside_a_readable_region_are_violations() {
        let mut dma = DmaReadModel::new(DmaReadConfig::default(), 1);
        let mut mem = memory();
        dma.request(0, 0x0ff0, 32, 0);
        while dma.busy() {
            let _ = dma.poll(100, &mut mem);
        }
        assert_eq!(mem.violations().len(), 16, "the 16 octets below the region");
    }
}
