//! A software stand-in for the `RxPath` block behind the [`Backend`] trait, with the same port
//! names, built on `rnic_proto`'s deframer and [`RxModel`]. It exists to test
//! [`super::RxPathBench`] before the hardware does: the LLP feeder, the configuration strobes,
//! the RQ responder protocol, the DMA sink, the collectors and the comparison. Outputs are
//! registered (they change only at `tick`), `llp_ready` toggles pseudo-randomly, and every
//! output queue waits for its ready, so the bench's handshakes are exercised.
//!
//! Its RQ use follows the bench's protocol: before a Send segment it reads the head WQE
//! (`rq_req_pop = 0`) and waits for the answer; after a Send that consumed it, it pops
//! (`rq_req_pop = 1`) and, when the bench answers pops, waits for that answer too.

use crate::rx_model::{MrEntry, QpConfig, RecvWqe, RxEvent, RxModel, QPS};
use crate::stream::{beat_payload, packet_beats, Beat};
use crate::testbench::{Backend, InputId, OutputId};
use anyhow::Result;
use rnic_proto::mpa::{Deframer, DeframerConfig};
use std::collections::VecDeque;
use std::path::Path;

const INPUTS: &[&str] = &[
    "llp_data",
    "llp_keep",
    "llp_last",
    "llp_valid",
    "llp_conn",
    "mpa_cfg_write",
    "mpa_cfg_conn",
    "mpa_cfg_fpdu_mode",
    "mpa_cfg_markers",
    "mpa_cfg_crc",
    "mpa_cfg_max_ulpdu",
    "raw_ready",
    "qp_cfg_write",
    "qp_cfg_qp",
    "qp_cfg_enable",
    "qp_cfg_pd",
    "qp_cfg_ird",
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
    "dma_wr_ready",
    "rq_req_ready",
    "rq_rsp_valid",
    "rq_rsp_present",
    "rq_rsp_to",
    "rq_rsp_len_n",
    "rq_rsp_lkey",
    "rq_rsp_index",
    "orq_push",
    "orq_push_qp",
    "irq_done",
    "irq_done_qp",
    "irq_ready",
    "cqe_ready",
    "aev_ready",
    "tx_ready",
];

const OUTPUTS: &[&str] = &[
    "llp_ready",
    "raw_data",
    "raw_keep",
    "raw_last",
    "raw_valid",
    "raw_conn",
    "dma_wr_addr",
    "dma_wr_data",
    "dma_wr_keep",
    "dma_wr_last",
    "dma_wr_valid",
    "rq_req_valid",
    "rq_req_qp",
    "rq_req_pop",
    "irq_valid",
    "irq_qp",
    "irq_word",
    "cqe_valid",
    "cqe_qp",
    "cqe_opcode",
    "cqe_status",
    "cqe_byte_len",
    "cqe_index",
    "cqe_inv_stag",
    "cqe_with_inv",
    "cqe_solicited",
    "aev_valid",
    "aev_qp",
    "aev_kind",
    "aev_layer",
    "aev_etype",
    "aev_code",
    "tx_data",
    "tx_keep",
    "tx_last",
    "tx_valid",
    "tx_conn",
    "tx_len",
    "rx_idle",
    // Not modelled (always 0): the fake has no MPA verdict.
    "fpdu_good_valid",
    "fpdu_good_conn",
];

/// Where the segment at the head of the work queue stands with the RQ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rq {
    Idle,
    /// Head read requested (`pending` = presented and not yet taken).
    Reading {
        presented: bool,
    },
    /// Pop presented or waiting for its answer.
    Popping {
        presented: bool,
    },
}

pub struct FakeRxPath {
    inputs: Vec<u128>,
    cycles: u64,
    lfsr: u32,
    llp_ready: bool,
    answer_pops: bool,
    /// Flip a bit of every 50th DMA beat (to show the comparison fails).
    pub corrupt_dma: bool,
    dma_count: u64,
    deframers: Vec<Option<Deframer<Vec<u8>>>>,
    model: RxModel,
    work: VecDeque<(usize, Vec<u8>, bool)>,
    rq: Rq,
    /// Events of the segment waiting for its pop.
    held: Vec<RxEvent>,
    dma: VecDeque<(u32, u32, u8, bool)>,
    cqe: VecDeque<crate::rx_model::Cqe>,
    aev: VecDeque<crate::rx_model::AsyncEvent>,
    irq: VecDeque<crate::rx_model::Irq>,
    /// The front IRQ entry is being sent (started at `irq_ready`), its next word.
    irq_go: bool,
    irq_pos: usize,
    tx: VecDeque<(usize, Beat, u16)>,
}

impl FakeRxPath {
    pub fn new(answer_pops: bool) -> Self {
        FakeRxPath {
            inputs: vec![0; INPUTS.len()],
            cycles: 0,
            lfsr: 0xACE1,
            llp_ready: false,
            answer_pops,
            corrupt_dma: false,
            dma_count: 0,
            deframers: (0..QPS).map(|_| None).collect(),
            model: RxModel::new(),
            work: VecDeque::new(),
            rq: Rq::Idle,
            held: Vec::new(),
            dma: VecDeque::new(),
            cqe: VecDeque::new(),
            aev: VecDeque::new(),
            irq: VecDeque::new(),
            irq_go: false,
            irq_pos: 0,
            tx: VecDeque::new(),
        }
    }

    fn i(&self, name: &str) -> u128 {
        self.inputs[INPUTS.iter().position(|n| *n == name).expect("input")]
    }

    fn emit(&mut self, events: Vec<RxEvent>) {
        for e in events {
            match e {
                RxEvent::Place { addr, bytes, .. } => {
                    let mut a = addr;
                    let mut rest = &bytes[..];
                    while !rest.is_empty() {
                        let lane = (a % 4) as usize;
                        let n = (4 - lane).min(rest.len());
                        let (mut data, mut keep) = (0u32, 0u8);
                        for (k, &b) in rest[..n].iter().enumerate() {
                            data |= u32::from(b) << (8 * (3 - lane - k));
                            keep |= 1 << (3 - lane - k);
                        }
                        rest = &rest[n..];
                        self.dma_count += 1;
                        if self.corrupt_dma && self.dma_count.is_multiple_of(50) {
                            data ^= u32::from(keep) << 24;
                        }
                        self.dma.push_back((a & !3, data, keep, rest.is_empty()));
                        a = (a & !3).wrapping_add(4);
                    }
                }
                RxEvent::Cqe(c) => self.cqe.push_back(c),
                RxEvent::Irq(i) => self.irq.push_back(i),
                RxEvent::Async(a) => self.aev.push_back(a),
                RxEvent::Terminate { qp, ulpdu } => {
                    let len = ulpdu.len() as u16;
                    for b in packet_beats(&ulpdu, 32) {
                        self.tx.push_back((usize::from(qp), b, len));
                    }
                }
            }
        }
    }

    /// Advances the head segment of the work queue as far as the RQ allows.
    fn work(&mut self) {
        loop {
            if self.rq != Rq::Idle {
                return;
            }
            let Some((q, seg, good)) = self.work.front().cloned() else {
                return;
            };
            let is_send =
                seg.len() >= 18 && seg[0] & 0x80 == 0 && (3..=6).contains(&(seg[1] & 0xF));
            if is_send && !self.model.in_error(q) {
                self.rq = Rq::Reading { presented: true };
                return;
            }
            self.work.pop_front();
            let ev = self.model.receive(q, &seg, good);
            self.emit(ev);
        }
    }

    /// The RQ answer for the head segment arrived.
    fn answered(&mut self, wqe: Option<RecvWqe>) {
        match self.rq {
            Rq::Reading { presented: false } => {
                let (q, seg, good) = self.work.pop_front().expect("segment");
                self.model.clear_rq(q);
                if let Some(w) = wqe {
                    self.model.post_recv(q, w);
                }
                let ev = self.model.receive(q, &seg, good);
                if wqe.is_some() && self.model.rq(q).is_empty() {
                    self.held = ev;
                    self.rq = Rq::Popping { presented: true };
                    self.work.push_front((q, Vec::new(), good));
                } else {
                    self.model.clear_rq(q);
                    self.emit(ev);
                    self.rq = Rq::Idle;
                }
            }
            Rq::Popping { presented: false } => self.popped(),
            _ => panic!("fake RxPath: RQ answer while none is awaited"),
        }
    }

    fn popped(&mut self) {
        self.work.pop_front();
        let ev = std::mem::take(&mut self.held);
        self.emit(ev);
        self.rq = Rq::Idle;
    }

    fn rq_qp(&self) -> usize {
        self.work.front().map_or(0, |w| w.0)
    }
}

impl Backend for FakeRxPath {
    fn name(&self) -> &'static str {
        "fake"
    }
    fn input_names(&self) -> &'static [&'static str] {
        INPUTS
    }
    fn output_names(&self) -> &'static [&'static str] {
        OUTPUTS
    }
    fn set(&mut self, port: InputId, value: u128) {
        self.inputs[port.0] = value;
    }
    fn get(&mut self, port: OutputId) -> u128 {
        let d = self.dma.front();
        let c = self.cqe.front();
        let a = self.aev.front();
        let r = self.irq.front();
        let t = self.tx.front();
        let (rq_valid, pop) = match self.rq {
            Rq::Reading { presented: true } => (true, false),
            Rq::Popping { presented: true } => (true, true),
            _ => (false, false),
        };
        let b = |x: bool| u128::from(x);
        match OUTPUTS[port.0] {
            "llp_ready" => b(self.llp_ready),
            "dma_wr_valid" => b(d.is_some()),
            "dma_wr_addr" => d.map_or(0, |x| u128::from(x.0)),
            "dma_wr_data" => d.map_or(0, |x| u128::from(x.1)),
            "dma_wr_keep" => d.map_or(0, |x| u128::from(x.2)),
            "dma_wr_last" => d.map_or(0, |x| b(x.3)),
            "rq_req_valid" => b(rq_valid),
            "rq_req_qp" => self.rq_qp() as u128,
            "rq_req_pop" => b(pop),
            "cqe_valid" => b(c.is_some()),
            "cqe_qp" => c.map_or(0, |x| u128::from(x.qp)),
            "cqe_opcode" => c.map_or(0, |x| u128::from(x.opcode)),
            "cqe_status" => c.map_or(0, |x| u128::from(x.status)),
            "cqe_byte_len" => c.map_or(0, |x| u128::from(x.byte_len)),
            "cqe_index" => c.map_or(0, |x| u128::from(x.index)),
            "cqe_inv_stag" => c.map_or(0, |x| u128::from(x.inv_stag)),
            "cqe_with_inv" => c.map_or(0, |x| b(x.with_inv)),
            "cqe_solicited" => c.map_or(0, |x| b(x.solicited)),
            "aev_valid" => b(a.is_some()),
            "aev_qp" => a.map_or(0, |x| u128::from(x.qp)),
            "aev_kind" => a.map_or(0, |x| u128::from(x.kind)),
            "aev_layer" => a.map_or(0, |x| u128::from(x.layer)),
            "aev_etype" => a.map_or(0, |x| u128::from(x.etype)),
            "aev_code" => a.map_or(0, |x| u128::from(x.code)),
            "irq_valid" => b(self.irq_go),
            "irq_qp" => r.map_or(0, |x| u128::from(x.qp)),
            // Source address, sink STag, sink TO high, low, size.
            "irq_word" => r.map_or(0, |x| {
                u128::from(match self.irq_pos {
                    0 => x.src_addr,
                    1 => x.sink_stag,
                    2 => (x.sink_to >> 32) as u32,
                    3 => x.sink_to as u32,
                    _ => x.size,
                })
            }),
            "tx_valid" => b(t.is_some()),
            "tx_conn" => t.map_or(0, |x| x.0 as u128),
            "tx_data" => t.map_or(0, |x| x.1.data),
            "tx_keep" => t.map_or(0, |x| x.1.keep),
            "tx_last" => t.map_or(0, |x| b(x.1.last)),
            "tx_len" => t.map_or(0, |x| u128::from(x.2)),
            "rx_idle" => b(self.work.is_empty()
                && self.rq == Rq::Idle
                && self.held.is_empty()
                && self.dma.is_empty()
                && self.cqe.is_empty()
                && self.aev.is_empty()
                && self.irq.is_empty()
                && self.tx.is_empty()),
            _ => 0,
        }
    }
    fn tick(&mut self) {
        // Configuration strobes.
        if self.i("mpa_cfg_write") == 1 {
            let c = self.i("mpa_cfg_conn") as usize;
            let cfg = DeframerConfig {
                markers: self.i("mpa_cfg_markers") == 1,
                crc: self.i("mpa_cfg_crc") == 1,
                max_ulpdu: self.i("mpa_cfg_max_ulpdu") as u16,
                stream_offset: 0,
            };
            self.deframers[c] = (self.i("mpa_cfg_fpdu_mode") == 1).then(|| {
                Deframer::new(vec![0u8; usize::from(cfg.max_ulpdu)], cfg).expect("config")
            });
        }
        if self.i("qp_cfg_write") == 1 {
            let cfg = QpConfig {
                enable: self.i("qp_cfg_enable") == 1,
                pd: self.i("qp_cfg_pd") as u8,
                ird: self.i("qp_cfg_ird") as u8,
            };
            self.model.configure_qp(self.i("qp_cfg_qp") as usize, cfg);
        }
        if self.i("prog_write") == 1 {
            let e = MrEntry {
                valid: self.i("prog_valid") == 1,
                key: self.i("prog_key") as u8,
                pd: self.i("prog_pd") as u8,
                access: self.i("prog_access") as u8,
                qp_bound: (self.i("prog_qp_bound") == 1).then_some(self.i("prog_qp") as u8),
                remote_inv: self.i("prog_remote_inv") == 1,
                base_to: self.i("prog_base_to") as u64,
                len: self.i("prog_len") as u32,
                host_addr: self.i("prog_host_addr") as u32,
            };
            self.model.program_stag(self.i("prog_index") as u32, e);
        }
        if self.i("orq_push") == 1 {
            self.model.orq_push(self.i("orq_push_qp") as usize);
        }
        if self.i("irq_done") == 1 {
            self.model.irq_done(self.i("irq_done_qp") as usize);
        }
        // Output handshakes (outputs are the queue fronts).
        if self.i("dma_wr_ready") == 1 {
            self.dma.pop_front();
        }
        if self.i("cqe_ready") == 1 {
            self.cqe.pop_front();
        }
        if self.i("aev_ready") == 1 {
            self.aev.pop_front();
        }
        // An IRQ entry's five words go out one a cycle once `irq_ready` was seen.
        if self.irq_go {
            self.irq_pos += 1;
            if self.irq_pos == 5 {
                self.irq.pop_front();
                self.irq_go = false;
                self.irq_pos = 0;
            }
        } else if self.i("irq_ready") == 1 && !self.irq.is_empty() {
            self.irq_go = true;
        }
        if self.i("tx_ready") == 1 {
            self.tx.pop_front();
        }
        // RQ protocol.
        if self.i("rq_req_ready") == 1 {
            match &mut self.rq {
                Rq::Reading { presented } | Rq::Popping { presented } if *presented => {
                    *presented = false;
                    if matches!(self.rq, Rq::Popping { .. }) && !self.answer_pops {
                        self.popped();
                    }
                }
                _ => {}
            }
        }
        if self.i("rq_rsp_valid") == 1 {
            let wqe = (self.i("rq_rsp_present") == 1).then(|| RecvWqe {
                to: self.i("rq_rsp_to") as u64,
                len: !(self.i("rq_rsp_len_n") as u32),
                lkey: self.i("rq_rsp_lkey") as u32,
                index: self.i("rq_rsp_index") as u16,
            });
            self.answered(wqe);
        }
        // LLP input.
        if self.llp_ready && self.i("llp_valid") == 1 {
            let c = self.i("llp_conn") as usize;
            let beat = Beat {
                data: self.i("llp_data"),
                keep: self.i("llp_keep"),
                last: self.i("llp_last") == 1,
            };
            let bytes = beat_payload(&beat, 32);
            let d = self.deframers[c]
                .as_mut()
                .expect("LLP bytes on a connection not in FPDU mode");
            let mut rest = &bytes[..];
            while !rest.is_empty() {
                let (used, delivery) = d.feed(rest);
                if let Some(del) = delivery {
                    self.work
                        .push_back((c, del.ulpdu.to_vec(), del.status.is_good()));
                }
                rest = &rest[used..];
            }
        }
        self.work();
        // Pseudo-random llp_ready (about 3 in 4).
        self.lfsr ^= self.lfsr << 13;
        self.lfsr ^= self.lfsr >> 17;
        self.lfsr ^= self.lfsr << 5;
        self.llp_ready = self.lfsr & 3 != 0;
        self.cycles += 1;
    }
    fn cycles(&self) -> u64 {
        self.cycles
    }
    fn trace_to(&mut self, _path: &Path) -> Result<()> {
        Ok(())
    }
}
