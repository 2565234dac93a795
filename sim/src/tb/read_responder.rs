//! Driver pieces for [`rnic_hdl::rdmap::read_responder::ReadResponder`], usable on both back
//! ends: the queued Read Request as RxControl pushes it on `irq_*` ([`ReadReq`], [`IrqIn`]),
//! and the Read Response job the responder must make of it ([`ReadReq::response`]). The
//! DdpTx side is [`super::tx_arbiter::DdpTxSink`] on `rr_msg_*` ([`super::tx_arbiter::MsgOut`]).

use super::tx_arbiter::MsgJob;
use crate::testbench::{Backend, InputId, OutputId};
use rand::Rng;
use rnic_proto::rdmap::Opcode;

/// One Read Request on `irq_*` (after RxControl's checks; `src_addr` already translated).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadReq {
    pub qp: u8,
    pub sink_stag: u32,
    pub sink_to: u64,
    pub size: u32,
    pub src_stag: u32,
    pub src_to: u64,
    pub src_addr: u32,
}

impl ReadReq {
    /// Every field random; one request in eight has size 0 (`rfc5040-rdmap.md` §2).
    pub fn random(rng: &mut impl Rng) -> Self {
        ReadReq {
            qp: rng.gen_range(0..4),
            sink_stag: rng.gen(),
            sink_to: rng.gen(),
            // Some below 64 KiB: only those get a read-ahead hint (`rr_nxt_len` is 16 bits).
            size: match rng.gen_range(0..8) {
                0 => 0,
                1..=3 => rng.gen_range(1..1 << 16),
                _ => rng.gen(),
            },
            src_stag: rng.gen(),
            src_to: rng.gen(),
            src_addr: rng.gen(),
        }
    }

    /// The Read Response job (`docs/core.md`, "ReadResponder"): opcode 2, the request's QP,
    /// Data Sink STag / TO, `size` octets from `src_addr`, other fields 0.
    pub fn response(&self) -> MsgJob {
        MsgJob {
            conn: self.qp,
            opcode: Opcode::RdmaReadResponse as u8,
            stag: self.sink_stag,
            to: self.sink_to,
            inv_stag: 0,
            src_to: 0,
            msn: 0,
            addr: self.src_addr,
            len: self.size,
        }
    }
}

/// The `irq_*` port, driven by the testbench.
#[derive(Clone, Debug)]
pub struct IrqIn {
    pub valid: InputId,
    pub fields: [InputId; 7],
    pub ready: OutputId,
}

impl IrqIn {
    pub fn new(sim: &dyn Backend) -> Self {
        let i = |n: &str| sim.input(n).unwrap();
        IrqIn {
            valid: i("irq_valid"),
            fields: [
                i("irq_qp"),
                i("irq_sink_stag"),
                i("irq_sink_to"),
                i("irq_size"),
                i("irq_src_stag"),
                i("irq_src_to"),
                i("irq_src_addr"),
            ],
            ready: sim.output("irq_ready").unwrap(),
        }
    }

    /// Shows `req` (valid) or nothing.
    pub fn drive(&self, sim: &mut dyn Backend, req: Option<&ReadReq>) {
        sim.set(self.valid, u128::from(req.is_some()));
        if let Some(r) = req {
            let v: [u128; 7] = [
                r.qp.into(),
                r.sink_stag.into(),
                r.sink_to.into(),
                r.size.into(),
                r.src_stag.into(),
                r.src_to.into(),
                r.src_addr.into(),
            ];
            for (id, v) in self.fields.iter().zip(v) {
                sim.set(*id, v);
            }
        }
    }
}
