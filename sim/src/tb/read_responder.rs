//! Driver pieces for [`rnic_hdl::rdmap::read_responder::ReadResponder`], usable on both back
//! ends: the queued Read Request as RxControl pushes it on `irq_*` ([`ReadReq`], [`IrqIn`]),
//! and the Read Response job the responder must make of it ([`ReadReq::response`]). The
//! DdpTx side is [`super::tx_arbiter::DdpTxSink`] on `rr_msg_*` ([`super::tx_arbiter::MsgOut`]).

use super::tx_arbiter::MsgJob;
use crate::host_mem::DMA_ADDR_MASK;
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
    pub src_addr: u32,
}

/// Words of a request on `irq_word`, in order (`docs/core.md`, "ReadResponder").
pub const IRQ_PORT_WORDS: usize = 5;

impl ReadReq {
    /// Every field random; one request in eight has size 0 (`rfc5040-rdmap.md` §2); sizes below
    /// `1 << LOCAL_LEN_BITS` (24 bits in the Cu profile: a larger Read fails its StagCheck,
    /// BOUNDS, and is never queued).
    pub fn random(rng: &mut impl Rng) -> Self {
        ReadReq {
            qp: rng.gen_range(0..rnic_hdl::config::CONNECTIONS as u8),
            sink_stag: rng.gen(),
            sink_to: rng.gen(),
            // Some below 64 KiB: only those get a read-ahead hint (`rr_nxt_len` is 16 bits).
            size: match rng.gen_range(0..8) {
                0 => 0,
                1..=3 => rng.gen_range(1..1 << 16),
                _ => rng.gen::<u32>() >> (32 - rnic_hdl::config::LOCAL_LEN_BITS),
            },
            src_addr: rng.gen::<u32>() & DMA_ADDR_MASK,
        }
    }

    /// The words on `irq_word`: source address, sink STag, sink TO high, sink TO low, size.
    pub fn words(&self) -> [u32; IRQ_PORT_WORDS] {
        [
            self.src_addr,
            self.sink_stag,
            (self.sink_to >> 32) as u32,
            self.sink_to as u32,
            self.size,
        ]
    }

    /// The request whose words are `w` (as [`ReadReq::words`]).
    pub fn from_words(qp: u8, w: &[u32]) -> Self {
        ReadReq {
            qp,
            src_addr: w[0],
            sink_stag: w[1],
            sink_to: (u64::from(w[2]) << 32) | u64::from(w[3]),
            size: w[4],
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

/// The `irq_*` port, driven by the testbench as RxControl does: a request is started only
/// while `irq_ready` is 1, then its words follow one per `irq_valid` strobe, with gaps.
#[derive(Clone, Debug)]
pub struct IrqIn {
    pub valid: InputId,
    pub qp: InputId,
    pub word: InputId,
    pub ready: OutputId,
    /// The request being sent and its next word.
    cur: Option<(ReadReq, usize)>,
}

impl IrqIn {
    pub fn new(sim: &dyn Backend) -> Self {
        let i = |n: &str| sim.input(n).unwrap();
        IrqIn {
            valid: i("irq_valid"),
            qp: i("irq_qp"),
            word: i("irq_word"),
            ready: sim.output("irq_ready").unwrap(),
            cur: None,
        }
    }

    /// A request is being sent (started, last word not yet driven).
    pub fn busy(&self) -> bool {
        self.cur.is_some()
    }

    /// One cycle: with `go`, the next word of the request under way, or the first word of
    /// `next` if none is and `irq_ready` is 1. Returns (`next` was started, the request whose
    /// last word is driven now).
    pub fn cycle(
        &mut self,
        sim: &mut dyn Backend,
        next: Option<&ReadReq>,
        go: bool,
    ) -> (bool, Option<ReadReq>) {
        let mut started = false;
        let mut word = None;
        if go {
            if let Some((r, k)) = self.cur {
                word = Some((r.qp, r.words()[k]));
                self.cur = Some((r, k + 1));
            } else if let (Some(r), true) = (next, sim.get(self.ready) == 1) {
                started = true;
                word = Some((r.qp, r.words()[0]));
                self.cur = Some((*r, 1));
            }
        }
        let mut finished = None;
        if let Some((r, IRQ_PORT_WORDS)) = self.cur {
            finished = Some(r);
            self.cur = None;
        }
        sim.set(self.valid, u128::from(word.is_some()));
        if let Some((qp, w)) = word {
            sim.set(self.qp, qp.into());
            sim.set(self.word, w.into());
        }
        (started, finished)
    }
}
