//! Driver and monitor for [`rnic_hdl::ddp::stag_check::StagCheck`], usable on both back ends.
//!
//! The block takes at most one table write and one request per cycle (a request cancels the one of
//! the previous cycle, and table writes must be 2 cycles apart unless they repeat the same fields;
//! the fields and index of a write are held in the next cycle) and answers each request that was
//! not cancelled a fixed [`STAG_CHECK_LATENCY`] cycles later, so the driver is a per-cycle
//! function: set this cycle's write and request ([`StagCheckTb::drive`]), read this cycle's
//! response ([`StagCheckTb::response`]), tick. Idle ports carry random values, so a block that
//! looks at a port without its strobe fails the test.

use crate::testbench::{Backend, InputId, OutputId};
use anyhow::Result;
use rand::Rng;
pub use rnic_hdl::ddp::stag_check::STAG_CHECK_LATENCY;
use std::cell::Cell;

/// One STag table entry as programmed through the `prog_*` port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    pub valid: bool,
    pub key: u8,
    pub pd: u8,
    /// `rnic_proto::verbs::access` bits.
    pub access: u8,
    pub qp_bound: bool,
    pub qp: u8,
    pub remote_inv: bool,
    pub base_to: u64,
    /// Region length (< 2^32).
    pub len: u32,
    pub host_addr: u32,
}

/// A `prog_write` of one entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prog {
    pub index: usize,
    pub entry: Entry,
}

/// One check or invalidate request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Request {
    pub tag: u8,
    pub stag: u32,
    pub to: u64,
    pub len: u32,
    pub pd: u8,
    pub qp: u8,
    pub access: u8,
    pub invalidate: bool,
}

/// One response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Response {
    pub tag: u8,
    /// A [`rnic_hdl::ddp::check_status`] value.
    pub status: u8,
    pub host_addr: u32,
}

/// Ports of the block, resolved once.
pub struct StagCheckTb {
    prog: [InputId; 12],
    /// The fields of a write in the previous cycle: held in this one (the block writes the
    /// entry's second word from them, as HostIf's staging registers allow).
    held: Cell<Option<[u128; 12]>>,
    chk: [InputId; 9],
    rsp_valid: OutputId,
    rsp_tag: OutputId,
    rsp_status: OutputId,
    rsp_host_addr: OutputId,
}

const PROG_PORTS: [&str; 12] = [
    "prog_write",
    "prog_index",
    "prog_valid",
    "prog_key",
    "prog_pd",
    "prog_access",
    "prog_qp_bound",
    "prog_qp",
    "prog_remote_inv",
    "prog_base_to",
    "prog_len",
    "prog_host_addr",
];
const CHK_PORTS: [&str; 9] = [
    "chk_valid",
    "chk_tag",
    "chk_stag",
    "chk_to",
    "chk_len",
    "chk_pd",
    "chk_qp",
    "chk_access",
    "chk_invalidate",
];

impl StagCheckTb {
    /// Resolves the ports of a [`StagCheck`](rnic_hdl::ddp::stag_check::StagCheck) on `sim`.
    pub fn new(sim: &dyn Backend) -> Result<Self> {
        let mut prog = [InputId(0); 12];
        for (p, name) in prog.iter_mut().zip(PROG_PORTS) {
            *p = sim.input(name)?;
        }
        let mut chk = [InputId(0); 9];
        for (p, name) in chk.iter_mut().zip(CHK_PORTS) {
            *p = sim.input(name)?;
        }
        Ok(StagCheckTb {
            prog,
            held: Cell::new(None),
            chk,
            rsp_valid: sim.output("rsp_valid")?,
            rsp_tag: sim.output("rsp_tag")?,
            rsp_status: sim.output("rsp_status")?,
            rsp_host_addr: sim.output("rsp_host_addr")?,
        })
    }

    /// Sets this cycle's table write and request (`None`: strobe low, random values on the
    /// other wires of that port).
    pub fn drive(
        &self,
        sim: &mut dyn Backend,
        prog: Option<&Prog>,
        req: Option<&Request>,
        rng: &mut impl Rng,
    ) {
        let p = match prog {
            Some(p) => {
                let e = &p.entry;
                [
                    1,
                    p.index as u128,
                    u128::from(e.valid),
                    u128::from(e.key),
                    u128::from(e.pd),
                    u128::from(e.access),
                    u128::from(e.qp_bound),
                    u128::from(e.qp),
                    u128::from(e.remote_inv),
                    u128::from(e.base_to),
                    u128::from(e.len),
                    u128::from(e.host_addr),
                ]
            }
            None => {
                let mut v: [u128; 12] = self
                    .held
                    .get()
                    .unwrap_or_else(|| std::array::from_fn(|_| rng.gen()));
                v[0] = 0;
                v
            }
        };
        self.held.set(prog.is_some().then_some(p));
        for (port, value) in self.prog.iter().zip(p) {
            sim.set(*port, value);
        }
        let c = match req {
            Some(r) => [
                1,
                u128::from(r.tag),
                u128::from(r.stag),
                u128::from(r.to),
                u128::from(r.len),
                u128::from(r.pd),
                u128::from(r.qp),
                u128::from(r.access),
                u128::from(r.invalidate),
            ],
            None => {
                let mut v: [u128; 9] = std::array::from_fn(|_| rng.gen());
                v[0] = 0;
                v
            }
        };
        for (port, value) in self.chk.iter().zip(c) {
            sim.set(*port, value);
        }
    }

    /// `rsp_host_addr` this cycle, whether `rsp_valid` or not (it holds the last response's
    /// address until the next response: RxControl reads it there).
    pub fn host_addr(&self, sim: &mut dyn Backend) -> u32 {
        sim.get(self.rsp_host_addr) as u32
    }

    /// The response on the outputs this cycle, if `rsp_valid`.
    pub fn response(&self, sim: &mut dyn Backend) -> Option<Response> {
        (sim.get(self.rsp_valid) == 1).then(|| Response {
            tag: sim.get(self.rsp_tag) as u8,
            status: sim.get(self.rsp_status) as u8,
            host_addr: self.host_addr(sim),
        })
    }
}
