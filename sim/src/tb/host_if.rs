//! Testbench helpers for HostIf (`hdl/src/host/host_if.rs`) and every bench that holds it (the
//! whole core): an MMIO driver over the core's port names (`mmio_valid mmio_write mmio_addr
//! mmio_wdata` in, `mmio_rvalid mmio_rdata` out) and the DMA side (`dma_rd_*`, `dma_wr_*`)
//! served by a [`DmaPort`] and [`HostMemory`], both generic over `&mut dyn Backend`.

use crate::dma_port::DmaPort;
use crate::host_mem::HostMemory;
use crate::testbench::Backend;

fn set(sim: &mut dyn Backend, name: &str, v: u128) {
    let id = sim.input(name).unwrap();
    sim.set(id, v);
}

fn get(sim: &mut dyn Backend, name: &str) -> u128 {
    let id = sim.output(name).unwrap();
    sim.get(id)
}

/// The MMIO port (`docs/core.md` "MMIO"): an access is taken in a cycle with `mmio_valid` and
/// `mmio_ready`, and the master holds it until then (HostIf's wait state: the second cycle of
/// an access). A write takes effect at the end of the cycle it is taken in; a read's data comes
/// with `mmio_rvalid` in the next cycle.
pub struct Mmio;

/// Cycles an MMIO master waits for `mmio_ready` before it calls the core hung (HostIf takes
/// every access in its second cycle); used by this block's testbench and the core's.
pub const MMIO_READY_LIMIT: usize = 4;

impl Mmio {
    /// Whether an access presented now is taken at the coming edge (`mmio_ready`).
    pub fn ready(sim: &mut dyn Backend) -> bool {
        get(sim, "mmio_ready") == 1
    }

    /// Ticks until the access presented is taken (at most [`MMIO_READY_LIMIT`] cycles), then
    /// drops it.
    pub fn hold(sim: &mut dyn Backend) {
        for _ in 0..MMIO_READY_LIMIT {
            let taken = Self::ready(sim);
            sim.tick();
            if taken {
                Self::clear(sim);
                return;
            }
        }
        panic!("MMIO access: no mmio_ready within {MMIO_READY_LIMIT} cycles");
    }

    /// Presents a write (held until the caller sees it taken, [`Mmio::ready`]).
    pub fn set_write(sim: &mut dyn Backend, addr: u16, data: u32) {
        set(sim, "mmio_valid", 1);
        set(sim, "mmio_write", 1);
        set(sim, "mmio_addr", u128::from(addr));
        set(sim, "mmio_wdata", u128::from(data));
    }

    /// Presents a read (held until taken; the caller then takes [`Mmio::rdata`]).
    pub fn set_read(sim: &mut dyn Backend, addr: u16) {
        set(sim, "mmio_valid", 1);
        set(sim, "mmio_write", 0);
        set(sim, "mmio_addr", u128::from(addr));
    }

    /// No access in the coming cycle.
    pub fn clear(sim: &mut dyn Backend) {
        set(sim, "mmio_valid", 0);
    }

    /// The read data of the access taken at the last tick; panics unless `mmio_rvalid`.
    pub fn rdata(sim: &mut dyn Backend) -> u32 {
        assert_eq!(get(sim, "mmio_rvalid"), 1, "mmio_rvalid after a read");
        get(sim, "mmio_rdata") as u32
    }

    /// One write (held until taken: two cycles).
    pub fn write(sim: &mut dyn Backend, addr: u16, data: u32) {
        Self::set_write(sim, addr, data);
        Self::hold(sim);
    }

    /// One read (held until taken: two cycles); returns the data.
    pub fn read(sim: &mut dyn Backend, addr: u16) -> u32 {
        Self::set_read(sim, addr);
        Self::hold(sim);
        Self::rdata(sim)
    }
}

/// A read completion beat as the bench presented it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CplBeat {
    pub tag: u8,
    pub data: u32,
    pub keep: u8,
    pub last: bool,
}

/// The host side of the core's DMA port.
pub struct DmaSide {
    pub port: DmaPort,
    pub mem: HostMemory,
    /// Read requests taken (cycle, addr, len, tag).
    pub requests: Vec<(u64, u32, usize, u8)>,
}

impl DmaSide {
    pub fn new(port: DmaPort, mem: HostMemory) -> Self {
        DmaSide {
            port,
            mem,
            requests: Vec::new(),
        }
    }

    /// Drives the DMA inputs for the coming edge and takes what moves at it: call once per
    /// cycle, after every other input that the DMA outputs depend on (`place_wr_*`, the
    /// requesters' channels) is set, then tick. Returns the completion beat presented.
    pub fn cycle(&mut self, sim: &mut dyn Backend) -> Option<CplBeat> {
        let now = sim.cycles();
        let rr = self.port.rd_req_ready(now);
        set(sim, "dma_rd_req_ready", u128::from(rr));
        let beat = self.port.rd_beat(now, &mut self.mem).map(|b| CplBeat {
            tag: b.tag,
            data: b.data,
            keep: b.keep,
            last: b.last,
        });
        match beat {
            Some(b) => {
                set(sim, "dma_rd_cpl_valid", 1);
                set(sim, "dma_rd_cpl_tag", u128::from(b.tag));
                set(sim, "dma_rd_cpl_data", u128::from(b.data));
                set(sim, "dma_rd_cpl_keep", u128::from(b.keep));
                set(sim, "dma_rd_cpl_last", u128::from(b.last));
            }
            None => set(sim, "dma_rd_cpl_valid", 0),
        }
        if rr && get(sim, "dma_rd_req_valid") == 1 {
            let addr = get(sim, "dma_rd_req_addr") as u32;
            let len = get(sim, "dma_rd_req_len") as usize;
            let tag = get(sim, "dma_rd_req_tag") as u8;
            assert!((1..=4096).contains(&len), "dma_rd_req_len {len}");
            self.port.rd_request(now, addr, len, tag);
            self.requests.push((now, addr, len, tag));
        }
        let wr = self.port.wr_ready(now);
        set(sim, "dma_wr_ready", u128::from(wr));
        if wr && get(sim, "dma_wr_valid") == 1 {
            let addr = get(sim, "dma_wr_addr") as u32;
            let data = get(sim, "dma_wr_data") as u32;
            let keep = get(sim, "dma_wr_keep") as u8;
            let last = get(sim, "dma_wr_last") == 1;
            self.port
                .wr_beat(now, &mut self.mem, addr, data, keep, last);
        }
        set(sim, "dma_wr_done", u128::from(self.port.wr_done(now)));
        beat
    }
}

/// The octets a DW-aligned completion beat carries, in address order.
pub fn beat_bytes(data: u32, keep: u8) -> Vec<u8> {
    (0..4)
        .filter(|lane| keep >> (3 - lane) & 1 == 1)
        .map(|lane| (data >> (8 * (3 - lane))) as u8)
        .collect()
}
