//! Driver and monitor pieces for the message job ports (`docs/core.md`, "The message job") and
//! for [`rnic_hdl::rdmap::tx_arbiter::TxArbiter`], usable on both back ends.
//!
//! - [`MsgJob`]: one message job (every field of `*_msg_*`), random or built by the test.
//! - [`MsgIn`] / [`MsgOut`]: the port ids of a job port seen from the testbench (a job port the
//!   testbench drives, e.g. `se_msg_*` of the arbiter, or one it reads, e.g. `msg_*`).
//! - [`MsgSource`]: a source obeying the valid/ready rules: it shows its next job after a
//!   random gap and holds it (valid and every field) until it is taken.
//! - [`DdpTxSink`]: DdpTx's side of `msg_*`: random `msg_ready`, a random number of messages it
//!   takes ahead (so a block's in-flight limit is exercised), and one `msg_done` strobe per
//!   taken message, in message order, after a random delay (zero: in the cycle of the
//!   handshake itself).

use crate::host_mem::DMA_ADDR_MASK;
use crate::testbench::{Backend, InputId, OutputId};
use rand::Rng;
use std::collections::VecDeque;

/// Field names of a job port after `<prefix>msg_`, in [`MsgJob::fields`] order.
pub const MSG_FIELDS: [&str; 9] = [
    "conn", "opcode", "stag", "to", "inv_stag", "src_to", "msn", "addr", "len",
];

/// One message job, every field of the port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MsgJob {
    pub conn: u8,
    pub opcode: u8,
    pub stag: u32,
    pub to: u64,
    pub inv_stag: u32,
    pub src_to: u64,
    pub msn: u32,
    pub addr: u32,
    pub len: u32,
}

impl MsgJob {
    /// A job with every field random (opcode among the RDMAP message opcodes 0..=6).
    pub fn random(rng: &mut impl Rng) -> Self {
        MsgJob {
            conn: rng.gen_range(0..rnic_hdl::config::CONNECTIONS as u8),
            opcode: rng.gen_range(0..7),
            stag: rng.gen(),
            to: rng.gen(),
            inv_stag: rng.gen(),
            src_to: rng.gen(),
            msn: rng.gen(),
            addr: rng.gen::<u32>() & DMA_ADDR_MASK,
            len: rng.gen(),
        }
    }

    /// The field values in [`MSG_FIELDS`] order.
    pub fn fields(&self) -> [u128; 9] {
        [
            self.conn.into(),
            self.opcode.into(),
            self.stag.into(),
            self.to.into(),
            self.inv_stag.into(),
            self.src_to.into(),
            self.msn.into(),
            self.addr.into(),
            self.len.into(),
        ]
    }

    /// The job as DdpTx reads it: a tagged message (Write 0, Read Response 2) uses no
    /// Invalidate STag, SrcTO or MSN, so those are 0 here (the TxArbiter passes the
    /// SendEngine's values of them through whoever is shown: `docs/core.md` "TxArbiter").
    pub fn used(&self) -> Self {
        let mut j = *self;
        if j.opcode == 0 || j.opcode == 2 {
            j.inv_stag = 0;
            j.src_to = 0;
            j.msn = 0;
        }
        j
    }

    /// A job from values in [`MSG_FIELDS`] order.
    pub fn from_fields(f: [u128; 9]) -> Self {
        MsgJob {
            conn: f[0] as u8,
            opcode: f[1] as u8,
            stag: f[2] as u32,
            to: f[3] as u64,
            inv_stag: f[4] as u32,
            src_to: f[5] as u64,
            msn: f[6] as u32,
            addr: f[7] as u32,
            len: f[8] as u32,
        }
    }
}

/// A job port the testbench drives: `<p>msg_valid`, the fields (inputs); `<p>msg_ready`,
/// `<p>msg_done` (outputs).
#[derive(Clone, Debug)]
pub struct MsgIn {
    pub valid: InputId,
    /// `None` for a field the port does not have (the ReadResponder's port on the
    /// TxArbiter has no `inv_stag`, `src_to`, `msn`).
    pub fields: Vec<Option<InputId>>,
    pub ready: OutputId,
    pub done: OutputId,
}

impl MsgIn {
    pub fn new(sim: &dyn Backend, prefix: &str) -> Self {
        MsgIn {
            valid: sim.input(&format!("{prefix}msg_valid")).unwrap(),
            fields: MSG_FIELDS
                .iter()
                .map(|f| sim.input(&format!("{prefix}msg_{f}")).ok())
                .collect(),
            ready: sim.output(&format!("{prefix}msg_ready")).unwrap(),
            done: sim.output(&format!("{prefix}msg_done")).unwrap(),
        }
    }

    /// Shows `job` (valid) or nothing (valid 0; the fields keep their values).
    pub fn drive(&self, sim: &mut dyn Backend, job: Option<&MsgJob>) {
        sim.set(self.valid, u128::from(job.is_some()));
        if let Some(job) = job {
            for (id, v) in self.fields.iter().zip(job.fields()) {
                if let Some(id) = id {
                    sim.set(*id, v);
                }
            }
        }
    }
}

/// A job port the testbench reads: `<p>msg_valid`, the fields (outputs); `<p>msg_ready`,
/// `<p>msg_done` (inputs).
#[derive(Clone, Debug)]
pub struct MsgOut {
    pub valid: OutputId,
    pub fields: Vec<OutputId>,
    pub ready: InputId,
    pub done: InputId,
}

impl MsgOut {
    pub fn new(sim: &dyn Backend, prefix: &str) -> Self {
        MsgOut {
            valid: sim.output(&format!("{prefix}msg_valid")).unwrap(),
            fields: MSG_FIELDS
                .iter()
                .map(|f| sim.output(&format!("{prefix}msg_{f}")).unwrap())
                .collect(),
            ready: sim.input(&format!("{prefix}msg_ready")).unwrap(),
            done: sim.input(&format!("{prefix}msg_done")).unwrap(),
        }
    }

    /// The job shown on the port, if `valid`.
    pub fn read(&self, sim: &mut dyn Backend) -> Option<MsgJob> {
        if sim.get(self.valid) == 0 {
            return None;
        }
        let mut f = [0u128; 9];
        for (v, id) in f.iter_mut().zip(&self.fields) {
            *v = sim.get(*id);
        }
        Some(MsgJob::from_fields(f))
    }
}

/// A message source: shows its jobs in order with random gaps, holds each until taken.
#[derive(Clone, Debug)]
pub struct MsgSource {
    pub jobs: VecDeque<MsgJob>,
    /// Chance per cycle that a job starts to be shown after a gap.
    pub show: f64,
    showing: bool,
}

impl MsgSource {
    pub fn new(jobs: VecDeque<MsgJob>, show: f64) -> Self {
        MsgSource {
            jobs,
            show,
            showing: false,
        }
    }

    /// The job shown in this cycle (decides the gap).
    pub fn offer(&mut self, rng: &mut impl Rng) -> Option<MsgJob> {
        if !self.showing && !self.jobs.is_empty() && rng.gen_bool(self.show) {
            self.showing = true;
        }
        if self.showing {
            self.jobs.front().copied()
        } else {
            None
        }
    }

    /// The shown job was taken in this cycle.
    pub fn taken(&mut self) -> MsgJob {
        assert!(self.showing, "a job was taken that was not shown");
        self.showing = false;
        self.jobs.pop_front().unwrap()
    }

    /// Nothing shown and nothing left.
    pub fn finished(&self) -> bool {
        self.jobs.is_empty() && !self.showing
    }
}

/// DdpTx's side of a job port: takes messages, finishes them in order.
#[derive(Clone, Debug)]
pub struct DdpTxSink<T> {
    /// Chance of `msg_ready` in a cycle while there is room.
    pub ready: f64,
    /// Messages taken and not yet done, at most this many.
    pub capacity: usize,
    /// Largest done delay in cycles after the handshake (0: in its own cycle).
    pub max_delay: u32,
    /// Taken messages, oldest first, with the cycles left until their done and a tag.
    pub inflight: VecDeque<(u32, T)>,
}

impl<T> DdpTxSink<T> {
    pub fn new(ready: f64, capacity: usize, max_delay: u32) -> Self {
        DdpTxSink {
            ready,
            capacity,
            max_delay,
            inflight: VecDeque::new(),
        }
    }

    /// `msg_ready` for this cycle.
    pub fn ready(&self, rng: &mut impl Rng) -> bool {
        self.inflight.len() < self.capacity && rng.gen_bool(self.ready)
    }

    /// A message was taken in this cycle; returns its done delay.
    pub fn take(&mut self, rng: &mut impl Rng, tag: T) -> u32 {
        let d = rng.gen_range(0..=self.max_delay);
        self.inflight.push_back((d, tag));
        d
    }

    /// Whether `msg_done` strobes in this cycle (the oldest message's delay ran out); the
    /// message is removed by [`DdpTxSink::end_cycle`].
    pub fn done(&self) -> bool {
        self.inflight.front().is_some_and(|(d, _)| *d == 0)
    }

    /// End of the cycle: the done message leaves, the others count down.
    pub fn end_cycle(&mut self) -> Option<T> {
        let out = if self.done() {
            self.inflight.pop_front().map(|(_, t)| t)
        } else {
            None
        };
        for (d, _) in self.inflight.iter_mut() {
            *d = d.saturating_sub(1);
        }
        out
    }
}
