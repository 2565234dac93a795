//! MPA connection setup through the firmware's connection manager
//! ([`rnic_firmware::conn::Connection`]) on the simulated core's raw ports, for one QP
//! (QP n is LLP connection n), then the QP commit with the negotiated parameters.
//!
//! The driver plays the firmware's role: the Request / Reply (RFC 5044 §7.1, RFC 6581 §4)
//! travel in raw mode through `raw_tx_*` / `raw_rx_*` ([`rnic_sim::tb::rnic::SimDevice::raw_send`],
//! [`rnic_sim::tb::rnic::SimDevice::raw_take`]); once the exchange is over the QP context is
//! committed by [`Device::connect`] (the `QP_CTRL` write with FPDU mode, which switches both
//! directions of the connection and restarts its TX stream offset, so the marker grid starts at
//! the first FPDU octet as RFC 5044 §5.1 wants).
//!
//! Decisions (`docs/decisions.md`, "Connection setup through the core"):
//!
//! - **The peer-to-peer model's RTR goes through the send queue** (`mpa-peer-connect.md` §2.3,
//!   §2.5). The driver turns the firmware's raw RTR off (`ConnConfig::rtr_in_output`) and,
//!   right after the commit, posts the negotiated form ([`MpaParams::rtr`]) as an unsignaled
//!   work request: the zero-length RDMA Write (C) to STag
//!   [`rnic_firmware::conn::RTR_STAG`], TO 0, or the zero-length RDMA Read (D) from that STag
//!   into it (sink STag 1, TO 0, as the catalog's V3). So the RTR is the first FPDU of the
//!   core's stream: the marker grid starts at it (RFC 5044 §5.1), the Read RTR takes
//!   read-request MSN 1 and one ORD slot, and its zero-length Read Response retires the WR
//!   without a CQE (ENH-SM-4). The ULP sees [`Established`] only once the RTR is queued
//!   (ENH-SM-3). The empty FPDU (B) is refused ([`CmError::Unsupported`]): the core's receive
//!   path takes it as a DDP short segment, and no deployed stack sends it (catalog §2.5).
//! - **A peer-to-peer Responder waits for the RTR** after its commit, within the setup
//!   deadline: its result comes when `QP_STATUS_FPDU_RECEIVED` is set (the RTR passed MPA's
//!   checks) with no asynchronous event on the QP (a Terminate or a bad RTR fails the setup).
//!   Its LLP hold is released at the commit whatever [`CmConfig::release_hold`] says (the RTR
//!   must come in). Markers off and CRC on are the defaults (DESIGN.md).
//! - **When each side commits.** The Initiator commits as soon as the Reply is in (it sends
//!   nothing itself before the commit). The Responder commits once its Reply has been taken by
//!   the core (`raw_tx_pending` 0: a `QP_CTRL` write affects only packets that start after it,
//!   so the Reply leaves in raw mode). Between the Request and the commit the Responder holds its
//!   RX at the LLP ([`rnic_sim::tb::rnic::Llp::hold_rx`]; the TCP bridge implements it) so that
//!   no FPDU octet of the Initiator reaches the core while the connection is still in raw mode.
//!   On one core with the loopback model the driver runs both sides in turn, and the Initiator
//!   cannot send before it has committed, so the order alone guarantees it.
//! - **The client-server Responder's send fence** (MPA-ST-4: no FPDU before the first valid
//!   one from the Initiator) is the ULP's: [`Established::tx_fenced`] tells it, and
//!   [`Device::fpdu_received`] (`QP_STATUS_FPDU_RECEIVED`) says when it may lift
//!   ([`Endpoint::first_fpdu_received`]). The client may stay silent as long as it likes, so the
//!   setup does not wait for it; [`connect_pair`] can make the Initiator send a probe (a
//!   zero-length RDMA Write) and lift the fence when the bit is set. A passive server that never
//!   posts sends (`rnic serve`) needs nothing.
//! - **Time** is counted in core cycles: `ConnConfig::timeout` is a number of cycles.

use crate::verbs::{AsyncEvent, Sge};
use crate::verbs::{ConnParams, Cq, Device, Qp, SendOp, SendWr, VerbsError};
use rnic_firmware::conn::{
    ConnConfig, ConnError, ConnState, Connection, RequestInfo, Role, RtrForm, RTR_STAG, RTR_WR_ID,
};
use rnic_proto::host::regs;
use rnic_proto::verbs::WcStatus;
use std::fmt;

/// The firmware's negotiated result (re-exported under a name that does not clash with the
/// verbs' [`ConnParams`]).
pub use rnic_firmware::conn::ConnParams as MpaParams;

/// Default setup deadline in core cycles (the catalog's 20 s would be 2 G cycles at 100 MHz;
/// a simulated core runs far slower, so the limit is on simulated work instead).
pub const DEFAULT_TIMEOUT_CYCLES: u64 = 5_000_000;

/// How one side sets up its connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CmConfig {
    /// The firmware's configuration (revision, CRC, markers, IRD / ORD, ...). `timeout` is in
    /// core cycles.
    pub conn: ConnConfig,
    /// The ULP private data of the Request (Initiator) or of the Reply / Reject (Responder).
    pub private_data: Vec<u8>,
    /// Responder: accept the Request (else reject it). Unused by the Initiator.
    pub accept: bool,
    /// Cycles run between two looks at the raw ports.
    pub poll_every: u64,
    /// Responder: release the LLP RX hold at the commit (else the caller releases it with
    /// `Llp::hold_rx(conn, false)`, e.g. after posting its first receives).
    pub release_hold: bool,
    /// The largest MULPDU to send with: the firmware derives the MULPDU from the EMSS (RFC
    /// 5044 §4.1); a smaller one is a local choice (`rnic loopback --mulpdu`).
    pub tx_mulpdu_cap: u16,
}

impl Default for CmConfig {
    /// The firmware's defaults (Rev 2, enhanced, CRC on, markers off, IRD = ORD = 4,
    /// client-server) with the deadline in cycles, no private data, accept.
    fn default() -> Self {
        CmConfig {
            conn: ConnConfig {
                timeout: DEFAULT_TIMEOUT_CYCLES,
                ..ConnConfig::default()
            },
            private_data: Vec::new(),
            accept: true,
            poll_every: 16,
            release_hold: true,
            tx_mulpdu_cap: u16::MAX,
        }
    }
}

/// A connection set up and its QP committed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Established {
    /// What MPA negotiated.
    pub mpa: MpaParams,
    /// What the QP was committed with.
    pub params: ConnParams,
    /// The peer's ULP private data (Initiator: the Reply's; Responder: the Request's).
    pub remote_private_data: Vec<u8>,
    /// Responder: the Request's parameters.
    pub request: Option<RequestInfo>,
    /// Responder: it must not send until the first FPDU from the Initiator has arrived
    /// (MPA-ST-4; see the module documentation).
    pub tx_fenced: bool,
}

/// Why a setup ended without a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CmError {
    /// The firmware's state machine failed (a bad frame, a negotiation failure, the deadline).
    Mpa(ConnError),
    /// The Responder rejected the Request; its private data.
    Rejected { private_data: Vec<u8> },
    /// A verbs call failed (the QP commit).
    Verbs(VerbsError),
    /// Something this version does not do (the text says what).
    Unsupported(&'static str),
    /// Octets after the handshake reached the raw port: they belonged to the FPDU engine.
    FpduOctetsInRawMode(usize),
    /// The QP raised an asynchronous event before the setup ended (a peer-to-peer Responder
    /// received a Terminate or a bad RTR).
    QpError(AsyncEvent),
}

impl fmt::Display for CmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CmError::Mpa(e) => write!(f, "MPA setup failed: {e:?}"),
            CmError::Rejected { private_data } => {
                write!(
                    f,
                    "rejected ({} octets of private data)",
                    private_data.len()
                )
            }
            CmError::Verbs(e) => write!(f, "{e}"),
            CmError::Unsupported(s) => write!(f, "unsupported: {s}"),
            CmError::QpError(ev) => write!(f, "the QP raised {ev:?} during setup"),
            CmError::FpduOctetsInRawMode(n) => {
                write!(
                    f,
                    "{n} FPDU octets reached the raw port before the QP commit"
                )
            }
        }
    }
}

impl std::error::Error for CmError {}

impl From<VerbsError> for CmError {
    fn from(e: VerbsError) -> Self {
        CmError::Verbs(e)
    }
}

/// The verbs parameters of a negotiated connection: MPA's CRC / marker choices per direction,
/// IRD / ORD (at most 15, the `QP_CTRL` fields), the MULPDU to send and the largest ULPDU
/// accepted.
pub fn verbs_params(m: &MpaParams) -> ConnParams {
    ConnParams {
        rx_crc: m.rx_crc,
        tx_crc: m.tx_crc,
        rx_markers: m.rx_markers,
        tx_markers: m.tx_markers,
        ird: m.ird.min(15) as u8,
        ord: m.ord.min(15) as u8,
        rx_max_ulpdu: m.rx_max_ulpdu,
        tx_mulpdu: m.tx_mulpdu,
    }
}

/// The Initiator's and the Responder's configurations that negotiate `p` (as far as MPA can:
/// CRC is on if either side asks, each side's M bit asks for markers on what it receives, IRD
/// and ORD are negotiated down to the smaller of the two), with the firmware's other defaults.
pub fn configs_from_params(p: &ConnParams) -> [CmConfig; 2] {
    let side = |rx_markers: bool| CmConfig {
        conn: ConnConfig {
            crc: p.rx_crc || p.tx_crc,
            rx_markers,
            ird: u16::from(p.ird),
            ord: u16::from(p.ord),
            rx_max_ulpdu: p.rx_max_ulpdu,
            timeout: DEFAULT_TIMEOUT_CYCLES,
            ..ConnConfig::default()
        },
        tx_mulpdu_cap: p.tx_mulpdu,
        ..CmConfig::default()
    };
    [side(p.rx_markers), side(p.tx_markers)]
}

/// One side of a setup in progress, advanced by [`Endpoint::poll`] (so that two sides can run
/// on one device).
pub struct Endpoint {
    qp: Qp,
    cfg: CmConfig,
    conn: Connection,
    held: bool,
    /// A peer-to-peer Responder committed and waiting for the RTR.
    awaiting_rtr: Option<Established>,
    done: Option<Result<Established, CmError>>,
}

/// The RTR as a send work request: a zero-length RDMA Write to STag [`RTR_STAG`], TO 0 (C), or
/// a zero-length RDMA Read from it into it (D); `None` for the forms that are not a work
/// request (no RTR, the ULP's Send).
pub fn rtr_work_request(form: RtrForm) -> Option<SendWr> {
    let op = match form {
        RtrForm::ZeroLengthWrite => SendOp::RdmaWrite {
            remote_addr: 0,
            rkey: RTR_STAG,
        },
        RtrForm::ZeroLengthRead => SendOp::RdmaRead {
            remote_addr: 0,
            rkey: RTR_STAG,
        },
        RtrForm::None | RtrForm::UlpSend | RtrForm::ZeroLengthFpdu => return None,
    };
    Some(SendWr {
        wr_id: RTR_WR_ID,
        op,
        sg_list: vec![Sge {
            addr: 0,
            length: 0,
            lkey: RTR_STAG,
        }],
        signaled: false,
        fence: false,
    })
}

impl Endpoint {
    /// Starts a setup of `qp` as `role` (sends the Request / starts listening).
    pub fn start(dev: &mut Device, qp: Qp, role: Role, cfg: CmConfig) -> Result<Endpoint, CmError> {
        if cfg.conn.rtr.zero_length_fpdu {
            return Err(CmError::Unsupported(
                "the empty-FPDU RTR (B): the core's receive path takes it as a DDP short segment",
            ));
        }
        dev.qp_state(qp)?;
        // The RTR goes through the send queue after the commit (module documentation); markers
        // only if the core has them (FEATURES): without, asking for them is a setup error and a
        // peer that requires them is refused (`ConnError::MarkersUnsupported`,
        // `ConnError::PeerRequiresMarkers`).
        let conn_cfg = ConnConfig {
            rtr_in_output: false,
            markers_supported: cfg.conn.markers_supported && dev.caps().markers,
            ..cfg.conn
        };
        let mut conn = Connection::new(role, conn_cfg);
        let now = dev.sim().cycles();
        match role {
            Role::Initiator => conn.connect(now, &cfg.private_data),
            Role::Responder => conn.listen(now),
        }
        .map_err(CmError::Mpa)?;
        Ok(Endpoint {
            qp,
            cfg,
            conn,
            held: false,
            awaiting_rtr: None,
            done: None,
        })
    }

    /// The firmware's state.
    pub fn state(&self) -> ConnState {
        self.conn.state()
    }

    /// The result, once there is one.
    pub fn result(&self) -> Option<&Result<Established, CmError>> {
        self.done.as_ref()
    }

    fn hold(&mut self, dev: &mut Device, hold: bool) {
        if self.held != hold {
            dev.sim_mut().llp_mut().hold_rx(self.qp.0, hold);
            self.held = hold;
        }
    }

    fn finish(&mut self, dev: &mut Device, r: Result<Established, CmError>) {
        if self.cfg.release_hold || r.is_err() {
            self.hold(dev, false);
        }
        self.done = Some(r);
    }

    /// One look at the raw ports: feeds received raw packets to the firmware, sends its output,
    /// takes the ULP's decision (Responder) and commits the QP when the exchange is over.
    /// Returns whether the setup has ended ([`Endpoint::result`]). Runs no cycles itself.
    pub fn poll(&mut self, dev: &mut Device) -> bool {
        if self.done.is_some() {
            return true;
        }
        let n = self.qp.0;
        let now = dev.sim().cycles();
        self.conn.tick(now);
        if self.awaiting_rtr.is_some() {
            return self.poll_rtr(dev);
        }
        for pkt in dev.sim_mut().raw_take(n) {
            if !self.conn.rx_raw_mode() {
                // After the handshake nothing may come in raw mode (the peer is fenced or we
                // commit first).
                if self.conn.state() == ConnState::Failed {
                    continue;
                }
                let r = Err(CmError::FpduOctetsInRawMode(pkt.len()));
                self.finish(dev, r);
                return true;
            }
            match self.conn.on_raw_bytes(&pkt) {
                Ok(used) if used < pkt.len() => {
                    let r = Err(CmError::FpduOctetsInRawMode(pkt.len() - used));
                    self.finish(dev, r);
                    return true;
                }
                Ok(_) | Err(_) => {}
            }
        }
        if self.conn.state() == ConnState::RequestReceived {
            // The Initiator sends nothing until our Reply; from here on its octets must wait
            // at the LLP until the commit.
            self.hold(dev, true);
            let r = if self.cfg.accept {
                self.conn.accept(&self.cfg.private_data).map(|_| ())
            } else {
                self.conn.reject(&self.cfg.private_data)
            };
            if let Err(e) = r {
                self.finish(dev, Err(CmError::Mpa(e)));
                return true;
            }
        }
        // Output (a frame, or a Terminate after a failed negotiation) leaves whole.
        let out = self.conn.output().to_vec();
        if !out.is_empty() {
            dev.sim_mut().raw_send(n, &out);
            self.conn.consume_output(out.len());
        }
        if dev.sim().raw_tx_pending(n) > 0 {
            return false;
        }
        let state = self.conn.state();
        let r = match state {
            ConnState::Failed => Err(CmError::Mpa(
                self.conn.error().unwrap_or(ConnError::BadState(state)),
            )),
            ConnState::Rejected => Err(CmError::Rejected {
                private_data: match self.conn.role() {
                    Role::Initiator => self.conn.remote_private_data().to_vec(),
                    Role::Responder => self.cfg.private_data.clone(),
                },
            }),
            ConnState::Established | ConnState::AwaitFirstFpdu => {
                let Some(mpa) = self.conn.params() else {
                    return false;
                };
                let mut params = verbs_params(&mpa);
                params.tx_mulpdu = params.tx_mulpdu.min(self.cfg.tx_mulpdu_cap);
                let est = Established {
                    mpa,
                    params,
                    remote_private_data: self.conn.remote_private_data().to_vec(),
                    request: self.conn.request_info(),
                    tx_fenced: self.conn.tx_fenced(),
                };
                // An Initiator's RTR: the first FPDU of the stream, before any WR of the ULP
                // (ENH-SM-3).
                let rtr = match mpa.role {
                    Role::Initiator => rtr_work_request(mpa.rtr),
                    Role::Responder => None,
                };
                let committed = dev.connect(self.qp, params).and_then(|()| match &rtr {
                    Some(wr) => dev.post_send(self.qp, wr),
                    None => Ok(()),
                });
                match committed {
                    Err(e) => Err(CmError::Verbs(e)),
                    Ok(()) if est.tx_fenced && mpa.rtr != RtrForm::None => {
                        // Peer-to-peer Responder: the RTR must come in before it is established.
                        self.hold(dev, false);
                        self.awaiting_rtr = Some(est);
                        return self.poll_rtr(dev);
                    }
                    Ok(()) => Ok(est),
                }
            }
            _ => return false,
        };
        self.finish(dev, r);
        true
    }

    /// A peer-to-peer Responder after its commit: done when the RTR has passed MPA's checks
    /// (`QP_STATUS_FPDU_RECEIVED`) and the QP raised no event, failed at the deadline.
    fn poll_rtr(&mut self, dev: &mut Device) -> bool {
        let r = match dev.query_async_event(self.qp) {
            Err(e) => Err(CmError::Verbs(e)),
            Ok(Some(ev)) => Err(CmError::QpError(ev)),
            Ok(None) => match dev.fpdu_received(self.qp) {
                Err(e) => Err(CmError::Verbs(e)),
                Ok(true) => match self.conn.first_fpdu_received() {
                    Ok(()) => {
                        let mut est = self.awaiting_rtr.take().expect("awaiting the RTR");
                        est.tx_fenced = false;
                        Ok(est)
                    }
                    Err(e) => Err(CmError::Mpa(e)),
                },
                Ok(false) if self.conn.state() == ConnState::Failed => Err(CmError::Mpa(
                    self.conn
                        .error()
                        .unwrap_or(ConnError::BadState(ConnState::Failed)),
                )),
                Ok(false) => return false,
            },
        };
        self.awaiting_rtr = None;
        self.finish(dev, r);
        true
    }

    /// The Responder's fence is lifted: the first FPDU of the Initiator arrived and passed
    /// MPA's checks ([`Device::fpdu_received`] says so).
    pub fn first_fpdu_received(&mut self) -> Result<(), CmError> {
        self.conn.first_fpdu_received().map_err(CmError::Mpa)?;
        if let Some(Ok(e)) = self.done.as_mut() {
            e.tx_fenced = false;
        }
        Ok(())
    }
}

impl Device {
    /// Sets up `qp`'s connection as `role` with MPA through the firmware and commits the QP
    /// with the negotiated parameters (see [`crate::cm`]); runs the device until the setup
    /// ends or `cfg.conn.timeout` cycles have passed.
    pub fn connect_cm(
        &mut self,
        qp: Qp,
        role: Role,
        cfg: CmConfig,
    ) -> Result<Established, CmError> {
        let every = cfg.poll_every.max(1);
        let mut ep = Endpoint::start(self, qp, role, cfg)?;
        while !ep.poll(self) {
            self.run(every);
        }
        ep.done
            .take()
            .unwrap_or(Err(CmError::Unsupported("no result")))
    }
}

/// Both ends of a connection between two QPs of one device (LLP loopback: `qp[0]`'s
/// connection is paired with `qp[1]`'s): `qp[0]` the Initiator, `qp[1]` the Responder, run in
/// turn. With `probe` (the Initiator's CQ and an rkey / address of a region of the Responder
/// that allows remote writes), a client-server Responder's send fence is lifted by a
/// zero-length RDMA Write (see the module documentation); otherwise it stays in
/// [`Established::tx_fenced`]. A peer-to-peer Responder is unfenced by the RTR.
pub fn connect_pair(
    dev: &mut Device,
    qp: [Qp; 2],
    cfg: [CmConfig; 2],
    probe: Option<(Cq, u32, u64)>,
) -> Result<[Established; 2], CmError> {
    let every = cfg[0].poll_every.max(1);
    let [ci, cr] = cfg;
    let mut eps = [
        Endpoint::start(dev, qp[0], Role::Initiator, ci)?,
        Endpoint::start(dev, qp[1], Role::Responder, cr)?,
    ];
    loop {
        let a = eps[0].poll(dev);
        let b = eps[1].poll(dev);
        if a && b {
            break;
        }
        // A failed side ends the setup: the other would only wait for its deadline.
        let failed = eps
            .iter()
            .any(|e| matches!(e.result(), Some(Err(CmError::Mpa(_)))));
        if failed && (a || b) {
            // Let a Terminate or a Reject still reach the other side, then stop.
            for _ in 0..2000 / every.max(1) + 1 {
                dev.run(every);
                if eps.iter_mut().all(|e| e.poll(dev)) {
                    break;
                }
            }
            break;
        }
        dev.run(every);
    }
    let mut res: Vec<Result<Established, CmError>> = eps
        .iter_mut()
        .map(|e| {
            e.done
                .take()
                .unwrap_or(Err(CmError::Unsupported("the other side failed first")))
        })
        .collect();
    let r = res.pop().unwrap_or(Err(CmError::Unsupported("no result")));
    let i = res.pop().unwrap_or(Err(CmError::Unsupported("no result")));
    let (i, mut r) = match (i, r) {
        (Ok(i), Ok(r)) => (i, r),
        (Err(e), _) | (_, Err(e)) => return Err(e),
    };
    // A peer-to-peer Responder is unfenced by the RTR already.
    if let (Some((cq, rkey, addr)), true) = (probe, r.tx_fenced) {
        unfence_probe(dev, qp, cq, rkey, addr)?;
        eps[1].done = Some(Ok(r.clone()));
        eps[1].first_fpdu_received()?;
        r.tx_fenced = false;
    }
    Ok([i, r])
}

/// Posts a zero-length RDMA Write on `qp[0]` to (`rkey`, `addr`), waits for its completion,
/// for `qp[1]`'s `QP_STATUS_FPDU_RECEIVED` and for the receive path to be idle, and checks that
/// `qp[1]` raised no asynchronous event.
fn unfence_probe(
    dev: &mut Device,
    qp: [Qp; 2],
    cq: Cq,
    rkey: u32,
    addr: u64,
) -> Result<(), CmError> {
    const PROBE_WR_ID: u64 = u64::MAX - 0x4D50; // "MP"
    dev.post_send(
        qp[0],
        &SendWr {
            wr_id: PROBE_WR_ID,
            op: SendOp::RdmaWrite {
                remote_addr: addr,
                rkey,
            },
            sg_list: Vec::new(),
            signaled: true,
            fence: false,
        },
    )?;
    let wcs = dev.wait_cq(cq, 1, 200_000)?;
    match wcs.as_slice() {
        [w] if w.wr_id == PROBE_WR_ID && w.status == WcStatus::Success => {}
        other => {
            return Err(CmError::Verbs(VerbsError::Device(format!(
                "the first-FPDU probe completed as {other:?}"
            ))))
        }
    }
    // The Write is complete at the sender once it has left; wait for the Responder's core to
    // report it (QP_STATUS_FPDU_RECEIVED) and for its receive path to be done with it.
    let n = qp[1].0;
    dev.sim_mut()
        .run_until("probe received", 200_000, 8, |d| {
            d.mmio_read(regs::qp_reg(n, regs::QP_STATUS))
                .is_ok_and(|s| s & regs::QP_STATUS_FPDU_RECEIVED != 0)
                && d.mmio_read(regs::STATUS)
                    .is_ok_and(|s| s & regs::STATUS_RX_IDLE != 0)
        })
        .map_err(|e| CmError::Verbs(e.into()))?;
    if let Some(ev) = dev.query_async_event(qp[1])? {
        return Err(CmError::Verbs(VerbsError::Device(format!(
            "QP {} raised {ev:?} on the first FPDU",
            qp[1].0
        ))));
    }
    Ok(())
}
