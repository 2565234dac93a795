//! The software iWARP peer ([`crate::peer::Peer`]) on one connection of the core's LLP port:
//! what the core sends on that connection is fed to the peer, what the peer sends comes back
//! as LLP RX beats, cut into random segments. The peer is shared (`Rc<RefCell<Peer>>`) so a
//! test posts work requests to it and polls it while the device runs.
//!
//! With [`PeerLink::with_mpa`] the connection starts in raw mode and the peer's side of MPA
//! is the firmware's connection manager ([`Connection`]): the core's octets go to it until it
//! leaves raw mode (the rest to the peer), its frames go out before anything of the peer's,
//! and the peer's output waits while the firmware says the send fence is up (a Responder
//! before the first FPDU, MPA-ST-4). A peer-to-peer Initiator's RTR is posted to the peer as
//! its first work request (`rnic_firmware::conn::RTR_WR_ID`: a zero-length RDMA Write to
//! STag 1, TO 0, or a zero-length RDMA Read from it; the firmware's raw RTR is off), so the
//! peer's MSNs and ORD count it, as the driver does for the core (`host-driver/src/cm.rs`).

use crate::peer::Peer;
use crate::stream::{beat_payload, packet_beats, Beat};
use crate::tb::rnic::Llp;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_firmware::conn::{
    ConnConfig, ConnError, ConnParams, ConnState, Connection, Role, RtrForm, RTR_STAG, RTR_WR_ID,
};
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
    /// The peer's MPA connection manager, with [`PeerLink::with_mpa`].
    mpa: Option<Connection>,
    /// A Responder's private data: it accepts every valid Request with it.
    accept_pd: Vec<u8>,
    /// A peer-to-peer Initiator's RTR was posted to the peer.
    rtr_posted: bool,
    /// `Llp::hold_rx` of the peer's connection.
    held: bool,
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
            mpa: None,
            accept_pd: Vec::new(),
            rtr_posted: false,
            held: false,
        }
    }

    /// The same, with MPA set up first in raw mode by the firmware's connection manager as
    /// `role` with `cfg` and the ULP's `private_data` (the Request's, or the Reply's: a
    /// Responder accepts every valid Request) (see the module documentation). The peer's
    /// [`crate::peer::PeerConfig`] must be what the negotiation gives ([`PeerLink::mpa_params`]
    /// tells).
    pub fn with_mpa(
        conn: usize,
        peer: Rc<RefCell<Peer>>,
        seed: u64,
        role: Role,
        cfg: ConnConfig,
        private_data: &[u8],
    ) -> Result<Self, ConnError> {
        // The RTR is the peer's first work request, not raw octets (module documentation).
        let cfg = ConnConfig {
            rtr_in_output: false,
            ..cfg
        };
        let mut c = Connection::new(role, cfg);
        match role {
            Role::Initiator => c.connect(0, private_data)?,
            Role::Responder => c.listen(0)?,
        }
        let mut link = PeerLink::new(conn, peer, seed);
        link.mpa = Some(c);
        link.accept_pd = private_data.to_vec();
        Ok(link)
    }

    /// The firmware's state of the peer's side of MPA (`None` without [`PeerLink::with_mpa`]).
    pub fn mpa_state(&self) -> Option<ConnState> {
        self.mpa.as_ref().map(Connection::state)
    }

    /// What the peer's side negotiated, once it has.
    pub fn mpa_params(&self) -> Option<ConnParams> {
        self.mpa.as_ref().and_then(Connection::params)
    }

    /// Why the peer's side of MPA failed, if it did.
    pub fn mpa_error(&self) -> Option<ConnError> {
        self.mpa.as_ref().and_then(Connection::error)
    }

    /// Moves the firmware's output to the wire; a peer-to-peer Initiator's RTR octets become
    /// the peer's first work request instead.
    fn mpa_output(&mut self) {
        let Some(c) = self.mpa.as_mut() else {
            return;
        };
        let out = c.output().to_vec();
        c.consume_output(out.len());
        self.out.extend(out);
        // A peer-to-peer Initiator's RTR: the peer's first work request, once.
        if self.rtr_posted || c.state() != ConnState::Established {
            return;
        }
        let Some(p) = c.params().filter(|p| p.role == Role::Initiator) else {
            return;
        };
        self.rtr_posted = true;
        let mut peer = self.peer.borrow_mut();
        match p.rtr {
            RtrForm::ZeroLengthWrite => peer.post_write(RTR_WR_ID, 0, 0, RTR_STAG, 0),
            RtrForm::ZeroLengthRead => peer.post_read(RTR_WR_ID, RTR_STAG, 0, 0, RTR_STAG, 0),
            _ => Ok(()),
        }
        .expect("the peer takes its RTR work request");
    }

    /// The peer may send FPDUs: no MPA phase, or the firmware established and unfenced.
    fn peer_may_send(&self) -> bool {
        self.mpa
            .as_ref()
            .is_none_or(|c| c.state() == ConnState::Established && !c.tx_fenced())
    }
}

impl Llp for PeerLink {
    fn tx_ready(&mut self, _now: u64) -> bool {
        !(self.tx_stall > 0.0 && self.rng.gen_bool(self.tx_stall))
    }

    fn tx_beat(&mut self, _now: u64, conn: usize, beat: Beat) {
        let bytes = beat_payload(&beat, DATA_WIDTH);
        if conn == self.conn {
            let mut rest = &bytes[..];
            if let Some(c) = self.mpa.as_mut() {
                if c.rx_raw_mode() || c.state() == ConnState::AwaitFirstFpdu {
                    // Handshake octets; a Responder awaiting its first FPDU only inspects them.
                    let used = c.on_raw_bytes(rest).unwrap_or(rest.len());
                    rest = &rest[used.min(rest.len())..];
                }
                if c.state() == ConnState::RequestReceived {
                    // The peer's ULP accepts; a failure leaves the state Failed.
                    let _ = c.accept(&self.accept_pd);
                }
                if c.state() == ConnState::Failed {
                    rest = &[];
                }
            }
            self.peer.borrow_mut().feed(rest);
        } else {
            self.stray_bytes += bytes.len() as u64;
        }
    }

    fn rx_offer(&mut self, now: u64) -> Option<(usize, Beat)> {
        if self.held {
            return None;
        }
        if let Some(c) = self.mpa.as_mut() {
            c.tick(now);
        }
        self.mpa_output();
        if self.seg.is_empty() {
            if self.out.is_empty() && self.peer_may_send() {
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

    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }

    fn hold_rx(&mut self, conn: usize, hold: bool) {
        if conn == self.conn {
            self.held = hold;
        }
    }
}
