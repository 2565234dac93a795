//! [`TcpBridge`]: the core's LLP port carried over real kernel TCP sockets.
//!
//! The core has no TCP (DESIGN.md "Block diagram"): its LLP port is one in-order byte stream
//! per connection and direction (4 connections, `width`-bit beats, byte 0 in the most
//! significant lane, `keep` one bit per lane with the most significant bit for lane 0, see
//! [`crate::stream`]). A TCP connection is exactly such a stream (RFC 5044 §4: MPA sits on a
//! TCP byte stream and makes no assumption on its segmentation), so the bridge maps connection
//! index `c` of the port onto an optional [`TcpStream`]:
//!
//! * **TX** (core to wire): the kept octets of every beat the core sends ([`Llp::tx_beat`]) are
//!   appended to the connection's buffer; the buffer is written to the socket, non-blocking,
//!   once per cycle (in [`Llp::tx_ready`]); what the kernel does not take (`WouldBlock`) stays
//!   buffered. `llp_tx_ready` is a single signal for all connections (the core does not say in
//!   advance which connection its next beat is for), so it is low while ANY connection's
//!   buffer holds [`BridgeConfig::tx_limit`] octets or more: that is the back-pressure, and it
//!   lasts only as long as the peer does not read (TCP flow control does the rest). The `last`
//!   flag of TX beats carries no meaning on a byte stream and is ignored.
//! * **RX** (wire to core): a connection's socket is read (non-blocking, at most
//!   [`BridgeConfig::read_chunk`] octets) when its queue is empty, so at most one chunk is
//!   queued per connection and the kernel's receive window back-pressures the peer while the
//!   core is slow. A chunk is offered as beats of up to `width / 8` octets, full beats except
//!   the last of the chunk, which has `last` set (any segmentation is legal for the core; this
//!   one keeps one `read` per "packet", which makes captures readable). A beat never mixes
//!   connections; connections with data are served round robin, one beat each. The offered
//!   beat stays the same until [`Llp::rx_taken`].
//! * **Close**: EOF (the peer's FIN) and any socket error (reset, broken pipe) are recorded per
//!   connection ([`TcpBridge::closed`]), never a panic. After EOF the queued octets are still
//!   offered and the TX side still works (TCP half-close); after an error the connection is
//!   dead: its buffered TX octets and anything the core still sends on it are dropped (and
//!   counted in [`BridgeStats::tx_dropped`]). [`TcpBridge::finish`] half-closes our side once
//!   every buffered octet has been written.
//! * **RX gate**: [`TcpBridge::hold_rx`] stops reading and offering one connection (for the
//!   connection manager's switch to FPDU mode, see there).
//! * **Observation**: [`BridgeStats`] counts octets per connection and direction at both ends
//!   of the bridge; with [`BridgeConfig::capture`] every octet each way is kept, as the chunks
//!   the sockets actually took / gave with their cycle ([`Capture`]), so a pcap can be written
//!   later ([`crate::pcap::PcapWriter::send_segments`] one chunk per segment).
//!
//! Nothing blocks: sockets are non-blocking, [`TcpBridge::connect`] and
//! [`TcpBridge::accept`] take a timeout, and every loop is bounded. Idle sockets cost one
//! `read` system call per cycle; [`BridgeConfig::poll_every`] thins that out for long runs.

use crate::stream::{beat_payload, packet_beats, Beat};
use crate::tb::rnic::Llp;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;
use std::io::{self, ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// Connections of the LLP port (`llp_*_conn` is 2 bits wide).
pub const CONNS: usize = 4;

/// Most `write` calls per connection and cycle (each one either makes progress or ends the
/// loop; the bound only guards against endless `Interrupted`).
const MAX_WRITES_PER_CYCLE: usize = 16;

/// How the bridge behaves.
#[derive(Clone, Copy, Debug)]
pub struct BridgeConfig {
    /// Datapath width of the LLP port in bits (32 on the Cu build; a multiple of 8, <= 128).
    pub width: usize,
    /// `tx_ready` is low while any connection has at least this many octets not yet taken by
    /// its socket (octets sent on a connection with no stream attached wait for one).
    pub tx_limit: usize,
    /// Most octets read from a socket at once (and so queued per connection).
    pub read_chunk: usize,
    /// Sockets whose queue is empty are read at most once every `poll_every` cycles (1: every
    /// cycle).
    pub poll_every: u64,
    /// Percentage of cycles with `tx_ready` forced low (random back-pressure towards the core).
    pub tx_stall_percent: u8,
    /// Seed of the back-pressure choices.
    pub seed: u64,
    /// Keep a copy of every octet each way ([`TcpBridge::capture`]).
    pub capture: bool,
}

impl Default for BridgeConfig {
    /// 32-bit port, 64 KiB TX limit, 16 KiB reads, poll every cycle, no random stalls, no
    /// capture.
    fn default() -> Self {
        BridgeConfig {
            width: 32,
            tx_limit: 64 * 1024,
            read_chunk: 16 * 1024,
            poll_every: 1,
            tx_stall_percent: 0,
            seed: 1,
            capture: false,
        }
    }
}

/// Why a connection ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloseReason {
    /// The peer closed its side (a `read` returned 0): no more RX octets; TX still works.
    Eof,
    /// A socket error (`ConnectionReset`, `BrokenPipe`, ...): the connection is dead.
    Error(ErrorKind),
}

/// Octet counters per connection.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BridgeStats {
    /// Octets the core sent (kept lanes of TX beats).
    pub from_core: [u64; CONNS],
    /// Octets the sockets took (`write`).
    pub to_socket: [u64; CONNS],
    /// Octets the core sent that were dropped because the connection had died.
    pub tx_dropped: [u64; CONNS],
    /// Octets read from the sockets.
    pub from_socket: [u64; CONNS],
    /// Octets the core took (kept lanes of RX beats taken).
    pub to_core: [u64; CONNS],
}

/// Which way captured octets went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// Core TX, as written to the socket.
    ToSocket,
    /// Read from the socket, towards the core's RX.
    FromSocket,
}

/// One `write` / `read` of a socket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureChunk {
    /// Cycle of the system call.
    pub cycle: u64,
    pub conn: usize,
    pub way: Way,
    pub bytes: Vec<u8>,
}

/// Every octet that went through the sockets, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Capture {
    pub chunks: Vec<CaptureChunk>,
}

impl Capture {
    /// The whole byte stream of `conn` one way.
    pub fn stream(&self, conn: usize, way: Way) -> Vec<u8> {
        self.chunks
            .iter()
            .filter(|c| c.conn == conn && c.way == way)
            .flat_map(|c| c.bytes.iter().copied())
            .collect()
    }
}

/// State of one connection.
#[derive(Default)]
struct Conn {
    stream: Option<TcpStream>,
    /// Octets from the core not yet taken by the socket.
    tx: VecDeque<u8>,
    /// The chunk being offered to the core and how far it has been offered.
    rx: Vec<u8>,
    rx_pos: usize,
    /// Cycle of the last read attempt.
    last_poll: Option<u64>,
    closed: Option<CloseReason>,
    /// [`TcpBridge::hold_rx`]: neither read nor offered.
    held: bool,
    /// [`TcpBridge::finish`] was called; `shut` once the write side is shut down.
    finish: bool,
    shut: bool,
}

impl Conn {
    fn dead(&self) -> bool {
        matches!(self.closed, Some(CloseReason::Error(_)))
    }

    fn rx_pending(&self) -> usize {
        self.rx.len() - self.rx_pos
    }
}

/// The LLP port over kernel TCP sockets (see the module documentation).
pub struct TcpBridge {
    cfg: BridgeConfig,
    conns: [Conn; CONNS],
    listener: Option<TcpListener>,
    /// The beat on offer (connection, beat, octets), until taken.
    offer: Option<(usize, Beat, usize)>,
    /// Next connection to consider for an RX beat (round robin).
    rr: usize,
    stats: BridgeStats,
    capture: Option<Capture>,
    rng: StdRng,
    /// Read buffer (`read_chunk` octets).
    scratch: Vec<u8>,
}

impl Default for TcpBridge {
    fn default() -> Self {
        TcpBridge::new(BridgeConfig::default())
    }
}

impl TcpBridge {
    /// A bridge with no connection attached.
    pub fn new(cfg: BridgeConfig) -> TcpBridge {
        assert!(cfg.width.is_multiple_of(8) && (8..=128).contains(&cfg.width));
        assert!(cfg.tx_limit > 0 && cfg.read_chunk > 0);
        TcpBridge {
            cfg,
            conns: Default::default(),
            listener: None,
            offer: None,
            rr: 0,
            stats: BridgeStats::default(),
            capture: cfg.capture.then(Capture::default),
            rng: StdRng::seed_from_u64(cfg.seed),
            scratch: vec![0; cfg.read_chunk],
        }
    }

    /// Carries connection `conn` over `stream` (made non-blocking, Nagle off). Octets the core
    /// sent on `conn` before are kept and written to it; a stream attached before is dropped,
    /// and the connection's close record cleared.
    pub fn attach(&mut self, conn: usize, stream: TcpStream) -> io::Result<()> {
        stream.set_nonblocking(true)?;
        stream.set_nodelay(true)?;
        let c = &mut self.conns[conn];
        c.stream = Some(stream);
        c.closed = None;
        c.finish = false;
        c.shut = false;
        c.last_poll = None;
        Ok(())
    }

    /// Takes connection `conn`'s stream away (queued octets stay).
    pub fn detach(&mut self, conn: usize) -> Option<TcpStream> {
        self.conns[conn].stream.take()
    }

    /// Connects `conn` to `addr`, waiting at most `timeout`; returns the local address.
    pub fn connect(
        &mut self,
        conn: usize,
        addr: SocketAddr,
        timeout: Duration,
    ) -> io::Result<SocketAddr> {
        let stream = TcpStream::connect_timeout(&addr, timeout)?;
        let local = stream.local_addr()?;
        self.attach(conn, stream)?;
        Ok(local)
    }

    /// Listens on `addr` (port 0: any free port); returns the address bound.
    pub fn listen(&mut self, addr: SocketAddr) -> io::Result<SocketAddr> {
        let l = TcpListener::bind(addr)?;
        l.set_nonblocking(true)?;
        let local = l.local_addr()?;
        self.listener = Some(l);
        Ok(local)
    }

    /// Attaches the next pending connection of the listener to `conn`, if there is one now.
    pub fn try_accept(&mut self, conn: usize) -> io::Result<Option<SocketAddr>> {
        let l = self
            .listener
            .as_ref()
            .ok_or_else(|| io::Error::new(ErrorKind::NotConnected, "no listener"))?;
        match l.accept() {
            Ok((s, peer)) => {
                self.attach(conn, s)?;
                Ok(Some(peer))
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// As [`TcpBridge::try_accept`], waiting at most `timeout` (`TimedOut` after).
    pub fn accept(&mut self, conn: usize, timeout: Duration) -> io::Result<SocketAddr> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(peer) = self.try_accept(conn)? {
                return Ok(peer);
            }
            if Instant::now() >= deadline {
                return Err(io::Error::new(ErrorKind::TimedOut, "accept timed out"));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Half-closes `conn` (TCP FIN) once every octet buffered for it has been written.
    pub fn finish(&mut self, conn: usize) {
        self.conns[conn].finish = true;
        self.flush(conn, None);
    }

    /// Holds (`true`) or releases `conn`'s RX: while held its socket is not read and no new
    /// beat of it is offered (a beat already on offer stays until taken), so the peer's octets
    /// wait in the kernel (TCP flow control). This is the LLP-side gate a connection manager
    /// needs around the switch to FPDU mode: hold before sending the last raw message (the
    /// MPA Reply, the RTR), commit `QP_CTRL` with FPDU mode once that message has left, release;
    /// so no FPDU octet can reach the core in raw mode (RFC 5044 §7.1, MPA-ST-5).
    pub fn hold_rx(&mut self, conn: usize, hold: bool) {
        self.conns[conn].held = hold;
    }

    /// Whether `conn`'s RX is held.
    pub fn rx_held(&self, conn: usize) -> bool {
        self.conns[conn].held
    }

    /// Whether a stream is attached to `conn`.
    pub fn attached(&self, conn: usize) -> bool {
        self.conns[conn].stream.is_some()
    }

    /// How `conn` ended, if it did (the first EOF or error seen).
    pub fn closed(&self, conn: usize) -> Option<CloseReason> {
        self.conns[conn].closed
    }

    /// Whether `conn`'s write side has been shut down after [`TcpBridge::finish`].
    pub fn finished(&self, conn: usize) -> bool {
        self.conns[conn].shut
    }

    /// Octets of `conn` from the core that its socket has not taken yet.
    pub fn tx_pending(&self, conn: usize) -> usize {
        self.conns[conn].tx.len()
    }

    /// Octets of `conn` read from its socket and not yet offered to the core.
    pub fn rx_pending(&self, conn: usize) -> usize {
        self.conns[conn].rx_pending()
    }

    /// The counters.
    pub fn stats(&self) -> &BridgeStats {
        &self.stats
    }

    /// The capture, when enabled.
    pub fn capture(&self) -> Option<&Capture> {
        self.capture.as_ref()
    }

    /// Takes the capture so far (a fresh one keeps recording).
    pub fn take_capture(&mut self) -> Option<Capture> {
        self.capture.as_mut().map(std::mem::take)
    }

    /// Writes what the sockets take now and reads every socket whose queue is empty, without
    /// waiting for the core (e.g. to drain at the end of a run). `now` stamps the capture.
    pub fn pump(&mut self, now: u64) {
        for c in 0..CONNS {
            self.flush(c, Some(now));
            self.poll(c, now, true);
        }
    }

    /// Writes `conn`'s buffer until the socket would block; records errors; shuts the write
    /// side down after [`TcpBridge::finish`] once the buffer is empty.
    fn flush(&mut self, conn: usize, now: Option<u64>) {
        let c = &mut self.conns[conn];
        if c.dead() {
            return;
        }
        let Some(stream) = c.stream.as_mut() else {
            return;
        };
        for _ in 0..MAX_WRITES_PER_CYCLE {
            if c.tx.is_empty() {
                break;
            }
            let (front, _) = c.tx.as_slices();
            match stream.write(front) {
                Ok(0) => {
                    c.closed = Some(CloseReason::Error(ErrorKind::WriteZero));
                    break;
                }
                Ok(n) => {
                    self.stats.to_socket[conn] += n as u64;
                    let written = c.tx.drain(..n);
                    match self.capture.as_mut() {
                        Some(cap) => cap.chunks.push(CaptureChunk {
                            cycle: now.unwrap_or(0),
                            conn,
                            way: Way::ToSocket,
                            bytes: written.collect(),
                        }),
                        None => drop(written),
                    }
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) => {
                    c.closed = Some(CloseReason::Error(e.kind()));
                    break;
                }
            }
        }
        if matches!(c.closed, Some(CloseReason::Error(_))) {
            self.stats.tx_dropped[conn] += c.tx.len() as u64;
            c.tx.clear();
        } else if c.finish && !c.shut && c.tx.is_empty() {
            // An error here (the peer is gone) shows up on the next read.
            let _ = stream.shutdown(Shutdown::Write);
            c.shut = true;
        }
    }

    /// Reads one chunk from `conn`'s socket if its queue is empty (and polling is due, unless
    /// `force`).
    fn poll(&mut self, conn: usize, now: u64, force: bool) {
        let every = self.cfg.poll_every.max(1);
        let c = &mut self.conns[conn];
        if c.held || c.closed.is_some() || c.rx_pending() > 0 {
            return;
        }
        if !force && c.last_poll.is_some_and(|t| now < t + every) {
            return;
        }
        let Some(stream) = c.stream.as_mut() else {
            return;
        };
        c.last_poll = Some(now);
        let n = loop {
            match stream.read(&mut self.scratch) {
                Ok(0) => {
                    c.closed = Some(CloseReason::Eof);
                    break 0;
                }
                Ok(n) => break n,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break 0,
                Err(e) => {
                    c.closed = Some(CloseReason::Error(e.kind()));
                    break 0;
                }
            }
        };
        c.rx.clear();
        c.rx.extend_from_slice(&self.scratch[..n]);
        c.rx_pos = 0;
        if c.dead() {
            self.stats.tx_dropped[conn] += c.tx.len() as u64;
            c.tx.clear();
        }
        if n > 0 {
            self.stats.from_socket[conn] += n as u64;
            if let Some(cap) = self.capture.as_mut() {
                cap.chunks.push(CaptureChunk {
                    cycle: now,
                    conn,
                    way: Way::FromSocket,
                    bytes: c.rx.clone(),
                });
            }
        }
    }
}

impl Llp for TcpBridge {
    fn tx_ready(&mut self, now: u64) -> bool {
        for c in 0..CONNS {
            self.flush(c, Some(now));
        }
        let stall = self.cfg.tx_stall_percent > 0
            && self.rng.gen_range(0..100u8) < self.cfg.tx_stall_percent;
        !stall && self.conns.iter().all(|c| c.tx.len() < self.cfg.tx_limit)
    }

    fn tx_beat(&mut self, _now: u64, conn: usize, beat: Beat) {
        let bytes = beat_payload(&beat, self.cfg.width);
        let conn = conn % CONNS;
        self.stats.from_core[conn] += bytes.len() as u64;
        let c = &mut self.conns[conn];
        if c.dead() || c.shut {
            self.stats.tx_dropped[conn] += bytes.len() as u64;
        } else {
            c.tx.extend(bytes);
        }
    }

    fn rx_offer(&mut self, now: u64) -> Option<(usize, Beat)> {
        if self.offer.is_none() {
            for c in 0..CONNS {
                self.poll(c, now, false);
            }
            let lanes = self.cfg.width / 8;
            for i in 0..CONNS {
                let conn = (self.rr + i) % CONNS;
                let c = &mut self.conns[conn];
                let n = c.rx_pending().min(lanes);
                if n == 0 || c.held {
                    continue;
                }
                let mut beat = packet_beats(&c.rx[c.rx_pos..c.rx_pos + n], self.cfg.width)[0];
                c.rx_pos += n;
                beat.last = c.rx_pending() == 0;
                self.offer = Some((conn, beat, n));
                self.rr = (conn + 1) % CONNS;
                break;
            }
        }
        self.offer.map(|(conn, beat, _)| (conn, beat))
    }

    fn rx_taken(&mut self, _now: u64) {
        if let Some((conn, _, n)) = self.offer.take() {
            self.stats.to_core[conn] += n as u64;
        }
    }

    fn busy(&self) -> bool {
        self.offer.is_some()
            || self
                .conns
                .iter()
                .any(|c| !c.tx.is_empty() || c.rx_pending() > 0)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn hold_rx(&mut self, conn: usize, hold: bool) {
        TcpBridge::hold_rx(self, conn % CONNS, hold);
    }

    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }
}
