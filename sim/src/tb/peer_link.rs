//! The software iWARP peer ([`crate::peer::Peer`]) on one connection of the core's LLP port:
//! what the core sends on that connection is fed to the peer, what the peer sends comes back
//! as LLP RX beats, cut into random segments. The peer is shared (`Rc<RefCell<Peer>>`) so a
//! test posts work requests to it and polls it while the device runs.

use crate::peer::Peer;
use crate::stream::{beat_payload, packet_beats, Beat};
use crate::tb::rnic::Llp;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_hdl::config::DATA_WIDTH;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

/// One core connection wired to a software peer.
pub struct PeerLink {
    conn: usize,
    peer: Rc<RefCell<Peer>>,
    rng: StdRng,
    /// Bytes the peer sent, not yet offered.
    out: VecDeque<u8>,
    /// The LLP segment being offered.
    seg: VecDeque<Beat>,
    /// Largest LLP segment offered.
    pub max_segment: usize,
    /// Probability of `llp_tx_ready` low in a cycle.
    pub tx_stall: f64,
    /// Bytes the core sent on other connections (nobody listens there).
    pub stray_bytes: u64,
}

impl PeerLink {
    /// Connection `conn` of the core talks to `peer`.
    pub fn new(conn: usize, peer: Rc<RefCell<Peer>>, seed: u64) -> Self {
        PeerLink {
            conn,
            peer,
            rng: StdRng::seed_from_u64(seed),
            out: VecDeque::new(),
            seg: VecDeque::new(),
            max_segment: 1460,
            tx_stall: 0.0,
            stray_bytes: 0,
        }
    }
}

impl Llp for PeerLink {
    fn tx_ready(&mut self, _now: u64) -> bool {
        !(self.tx_stall > 0.0 && self.rng.gen_bool(self.tx_stall))
    }

    fn tx_beat(&mut self, _now: u64, conn: usize, beat: Beat) {
        let bytes = beat_payload(&beat, DATA_WIDTH);
        if conn == self.conn {
            self.peer.borrow_mut().feed(&bytes);
        } else {
            self.stray_bytes += bytes.len() as u64;
        }
    }

    fn rx_offer(&mut self, _now: u64) -> Option<(usize, Beat)> {
        if self.seg.is_empty() {
            if self.out.is_empty() {
                self.out.extend(self.peer.borrow_mut().take_output());
            }
            if self.out.is_empty() {
                return None;
            }
            let n = self
                .rng
                .gen_range(1..=self.max_segment.max(1))
                .min(self.out.len());
            let bytes: Vec<u8> = self.out.drain(..n).collect();
            self.seg = packet_beats(&bytes, DATA_WIDTH).into();
        }
        self.seg.front().map(|b| (self.conn, *b))
    }

    fn rx_taken(&mut self, _now: u64) {
        self.seg.pop_front();
    }

    fn busy(&self) -> bool {
        !self.out.is_empty() || !self.seg.is_empty()
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
