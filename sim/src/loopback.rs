//! LLP loopback: a model of the wire (and of the TCP stacks on both sides) for the whole core's
//! LLP port, so one core talks to itself: the byte stream the core sends on connection `a`
//! (`llp_tx_*` beats with `llp_tx_conn = a`) comes back on `llp_rx_*` as the byte stream
//! received on connection `pair(a)`. With the pairs (0, 1) and (2, 3), QP 0 and QP 1 are the
//! two ends of one iWARP connection, as are QP 2 and QP 3.
//!
//! What the model does to the streams, all random from its seed and configurable
//! ([`LoopbackConfig`]):
//!
//! - **Re-segmenting.** TCP keeps only the byte order of a stream, not the sender's packet
//!   boundaries: delivered segments (`llp_rx_last` ends one) start and end at any byte, have
//!   random lengths up to `max_segment`, and segments of different connections interleave. A
//!   segment starts in lane 0 (byte 0 in the MSB lane); every beat but its last carries 4 bytes
//!   (MpaRx's `llp_*` convention).
//! - **Gaps**: a cycle offers nothing with probability `rx_gap` (between and inside segments);
//!   an offered beat is held until taken (`llp_rx_ready`, reported with
//!   [`LlpLoopback::rx_taken`]).
//! - **Wire delay** (`latency`): a byte can be delivered `1 + latency` cycles after the cycle
//!   it was transmitted in, at the earliest.
//! - **Back-pressure on the sender**: `llp_tx_ready` is 0 with probability `tx_stall`, and
//!   always while `max_buffered` bytes wait for delivery (the receiver's window).
//! - **Capture** (optional): every transmitted packet (the bytes of `llp_tx_*` up to `last`),
//!   with its connection and the cycle of its last beat, in wire order. That is what
//!   [`crate::pcap::mpa::MpaCapture`] needs to write a pcap (one TCP connection per pair, each
//!   direction's bytes in order, PDUs found again from the MPA framing);
//!   [`LlpLoopback::write_pcap`] does it.
//!
//! Use, once per cycle: `tx_ready()` (drive `llp_tx_ready`; it also counts the cycle),
//! `tx_beat(..)` if `llp_tx_valid && llp_tx_ready`; `rx_beat()` (drive `llp_rx_*`, valid if
//! `Some`), `rx_taken()` if it was `Some` and `llp_rx_ready` was 1. Bytes given in a cycle are
//! never offered in that cycle (no combinational path from `llp_tx_*` to `llp_rx_*`).
//! `busy()`: bytes still to deliver.

use crate::pcap::mpa::MpaCapture;
use crate::pcap::{Direction, PcapWriter, TcpConnection};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_hdl::config::CONNECTIONS;
use std::collections::VecDeque;
use std::io::{self, Write};

/// Lanes of the LLP port (32-bit beats).
const LANES: usize = 4;

/// How the loopback treats the streams.
#[derive(Clone, Debug)]
pub struct LoopbackConfig {
    /// Connection pairs `(initiator, responder)`: the bytes of one come out on the other, both
    /// ways. The initiator is the side that sends the MPA Request (for the capture only).
    pub pairs: Vec<(usize, usize)>,
    /// Number of connections of the port (`llp_*_conn` values `0..connections`).
    pub connections: usize,
    /// Longest delivered segment, in bytes (at least 1).
    pub max_segment: usize,
    /// Probability that a cycle offers no beat on `llp_rx_*`.
    pub rx_gap: f64,
    /// Probability that `llp_tx_ready` is 0 in a cycle.
    pub tx_stall: f64,
    /// `llp_tx_ready` is 0 while this many bytes wait for delivery (all connections).
    pub max_buffered: usize,
    /// Wire delay: a byte transmitted in cycle `c` can be offered from cycle `c + 1 + latency`.
    pub latency: u64,
    /// Keep every transmitted packet for a capture.
    pub capture: bool,
    /// Seed of the model's random choices.
    pub seed: u64,
}

impl Default for LoopbackConfig {
    /// The core's connections (`rnic_hdl::config::CONNECTIONS`: 4, or 2 with `two-qps`) in
    /// pairs (0, 1), (2, 3), segments of 1..=64 bytes, 20 % gaps, no transmit stalls, 4096
    /// bytes of window, no wire delay, no capture.
    fn default() -> Self {
        LoopbackConfig {
            pairs: (0..CONNECTIONS / 2).map(|p| (2 * p, 2 * p + 1)).collect(),
            connections: CONNECTIONS,
            max_segment: 64,
            rx_gap: 0.2,
            tx_stall: 0.0,
            max_buffered: 4096,
            latency: 0,
            capture: false,
            seed: 0,
        }
    }
}

/// One packet the core transmitted, as captured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxPacket {
    /// Cycle (of [`LlpLoopback::cycles`]) of its last beat.
    pub cycle: u64,
    /// The sending connection (`llp_tx_conn`).
    pub conn: usize,
    pub bytes: Vec<u8>,
}

/// A segment being delivered on `llp_rx_*`.
#[derive(Clone, Debug)]
struct RxSegment {
    conn: usize,
    bytes: Vec<u8>,
    pos: usize,
}

/// The LLP loopback model (see the module documentation).
#[derive(Clone, Debug)]
pub struct LlpLoopback {
    cfg: LoopbackConfig,
    rng: StdRng,
    /// `peer[a]`: the connection `a`'s bytes are delivered on.
    peer: Vec<Option<usize>>,
    /// Bytes waiting for delivery, per receiving connection, with the cycle they were sent in.
    queue: Vec<VecDeque<(u64, u8)>>,
    buffered: usize,
    seg: Option<RxSegment>,
    /// The beat offered and not yet taken (held until taken).
    offer: Option<(u32, u8, bool, usize)>,
    /// Per sending connection: the packet being transmitted (bytes since the last `last`).
    tx_packet: Vec<Vec<u8>>,
    captured: Vec<TxPacket>,
    cycle: u64,
    sent: Vec<u64>,
    delivered: Vec<u64>,
}

impl LlpLoopback {
    /// A loopback with `cfg`. Panics if a connection is in two pairs or out of range.
    pub fn new(cfg: LoopbackConfig) -> Self {
        assert!(cfg.max_segment >= 1, "segments of at least one byte");
        let n = cfg.connections;
        let mut peer = vec![None; n];
        for &(a, b) in &cfg.pairs {
            assert!(a < n && b < n && a != b, "pair ({a}, {b}) out of range");
            assert!(
                peer[a].is_none() && peer[b].is_none(),
                "connection in two pairs"
            );
            peer[a] = Some(b);
            peer[b] = Some(a);
        }
        LlpLoopback {
            rng: StdRng::seed_from_u64(cfg.seed),
            peer,
            queue: vec![VecDeque::new(); n],
            buffered: 0,
            seg: None,
            offer: None,
            tx_packet: vec![Vec::new(); n],
            captured: Vec::new(),
            cycle: 0,
            sent: vec![0; n],
            delivered: vec![0; n],
            cfg,
        }
    }

    /// The connection whose bytes come out on `conn` (and the other way round).
    pub fn pair(&self, conn: usize) -> Option<usize> {
        self.peer.get(conn).copied().flatten()
    }

    /// `llp_tx_ready` for this cycle; call once per cycle (it counts the cycles).
    pub fn tx_ready(&mut self) -> bool {
        self.cycle += 1;
        self.buffered < self.cfg.max_buffered && !self.rng.gen_bool(self.cfg.tx_stall)
    }

    /// A beat the core transmitted in this cycle (`llp_tx_valid && llp_tx_ready`): the bytes of
    /// the lanes `keep` marks (lane 0 = `keep` bit 3 = `data` bits 31..24) join the stream of
    /// `pair(conn)`. Panics on a connection without a pair.
    pub fn tx_beat(&mut self, data: u32, keep: u8, last: bool, conn: usize) {
        let to = self
            .pair(conn)
            .unwrap_or_else(|| panic!("llp_tx on connection {conn}, which has no pair"));
        let bytes = data.to_be_bytes();
        for (lane, byte) in bytes.iter().enumerate() {
            if keep >> (LANES - 1 - lane) & 1 == 1 {
                self.queue[to].push_back((self.cycle, *byte));
                self.buffered += 1;
                self.sent[conn] += 1;
                if self.cfg.capture {
                    self.tx_packet[conn].push(*byte);
                }
            }
        }
        if last && self.cfg.capture {
            let bytes = std::mem::take(&mut self.tx_packet[conn]);
            self.captured.push(TxPacket {
                cycle: self.cycle,
                conn,
                bytes,
            });
        }
    }

    /// The beat offered on `llp_rx_*` in this cycle: `(data, keep, last, conn)`, or `None`
    /// (valid 0). A beat once offered is offered again until [`LlpLoopback::rx_taken`].
    pub fn rx_beat(&mut self) -> Option<(u32, u8, bool, usize)> {
        if self.offer.is_some() {
            return self.offer;
        }
        if self.rng.gen_bool(self.cfg.rx_gap) {
            return None;
        }
        if self.seg.is_none() {
            self.seg = self.start_segment();
        }
        let seg = self.seg.as_ref()?;
        let end = (seg.pos + LANES).min(seg.bytes.len());
        let mut data = 0u32;
        let mut keep = 0u8;
        for (lane, byte) in seg.bytes[seg.pos..end].iter().enumerate() {
            data |= u32::from(*byte) << (8 * (LANES - 1 - lane));
            keep |= 1 << (LANES - 1 - lane);
        }
        self.offer = Some((data, keep, end == seg.bytes.len(), seg.conn));
        self.offer
    }

    /// The offered beat was taken (`llp_rx_valid && llp_rx_ready`) in this cycle.
    pub fn rx_taken(&mut self) {
        let (_, keep, last, conn) = self.offer.take().expect("rx_taken without an offer");
        let n = keep.count_ones() as usize;
        self.delivered[conn] += n as u64;
        let seg = self.seg.as_mut().expect("an offer belongs to a segment");
        seg.pos += n;
        if last {
            self.seg = None;
        }
    }

    /// Bytes transmitted and not yet delivered (or a segment under way).
    pub fn busy(&self) -> bool {
        self.buffered > 0 || self.seg.is_some() || self.offer.is_some()
    }

    /// Cycles counted so far (calls of [`LlpLoopback::tx_ready`]).
    pub fn cycles(&self) -> u64 {
        self.cycle
    }

    /// Bytes transmitted on `conn` so far.
    pub fn sent(&self, conn: usize) -> u64 {
        self.sent[conn]
    }

    /// Bytes delivered on `conn` so far.
    pub fn delivered(&self, conn: usize) -> u64 {
        self.delivered[conn]
    }

    /// The captured packets, in wire order (empty unless `capture`).
    pub fn captured(&self) -> &[TxPacket] {
        &self.captured
    }

    /// Writes the captured packets to `w`, one TCP connection per pair
    /// ([`TcpConnection::simulated`] of the pair's initiator; its bytes go Initiator to
    /// Responder), at `start_us` plus one microsecond per 100 cycles (100 MHz), and closes
    /// the connections. Each packet is one push, as it would be handed to TCP.
    pub fn write_pcap<W: Write>(&self, w: &mut PcapWriter<W>, start_us: u64) -> io::Result<()> {
        let mut caps: Vec<(usize, usize, MpaCapture)> = self
            .cfg
            .pairs
            .iter()
            .map(|&(i, r)| (i, r, MpaCapture::new(TcpConnection::simulated(i as u16))))
            .collect();
        let mut t = start_us;
        for p in &self.captured {
            t = t.max(start_us + p.cycle / 100);
            for (i, r, cap) in caps.iter_mut() {
                let dir = if p.conn == *i {
                    Direction::InitiatorToResponder
                } else if p.conn == *r {
                    Direction::ResponderToInitiator
                } else {
                    continue;
                };
                cap.push(w, dir, &p.bytes, t)?;
            }
        }
        for (_, _, cap) in caps.iter_mut() {
            t += 1;
            cap.finish(w, t)?;
        }
        w.flush()
    }

    /// Whether a byte sent in cycle `sent` has crossed the wire by this cycle.
    fn arrived(&self, sent: u64) -> bool {
        sent + self.cfg.latency < self.cycle
    }

    /// Starts a segment: a random connection among those with bytes arrived, a random length
    /// up to `max_segment`; when fewer bytes have arrived than drawn, it either waits for more
    /// (half of the time) or delivers what is there.
    fn start_segment(&mut self) -> Option<RxSegment> {
        let waiting: Vec<usize> = (0..self.queue.len())
            .filter(|&c| self.queue[c].front().is_some_and(|(t, _)| self.arrived(*t)))
            .collect();
        if waiting.is_empty() {
            return None;
        }
        let conn = waiting[self.rng.gen_range(0..waiting.len())];
        let want = self.rng.gen_range(1..=self.cfg.max_segment);
        let have = self.queue[conn]
            .iter()
            .take(want)
            .take_while(|(t, _)| self.arrived(*t))
            .count();
        if have < want && self.rng.gen_bool(0.5) {
            return None;
        }
        let n = want.min(have);
        let bytes: Vec<u8> = self.queue[conn].drain(..n).map(|(_, b)| b).collect();
        self.buffered -= n;
        Some(RxSegment {
            conn,
            bytes,
            pos: 0,
        })
    }
}

impl LoopbackConfig {
    /// Full speed: LLP segments of up to 1460 bytes (one TCP MSS), no gaps, no stalls, a
    /// 64 KiB window: the wire is never the bottleneck (benchmarks, the main job).
    pub fn full_speed(seed: u64) -> Self {
        LoopbackConfig {
            max_segment: 1460,
            rx_gap: 0.0,
            max_buffered: 1 << 16,
            seed,
            ..LoopbackConfig::default()
        }
    }

    /// Random segmenting (1..=2000 bytes at most), gaps, transmit stalls, buffer and wire
    /// delay, from `rng`.
    pub fn random(rng: &mut impl Rng) -> Self {
        LoopbackConfig {
            max_segment: rng.gen_range(1..=2000),
            rx_gap: rng.gen_range(0.0..0.5),
            tx_stall: rng.gen_range(0.0..0.5),
            max_buffered: rng.gen_range(64..=8192),
            latency: rng.gen_range(0..200),
            seed: rng.gen(),
            ..LoopbackConfig::default()
        }
    }
}

impl crate::tb::rnic::Llp for LlpLoopback {
    fn tx_ready(&mut self, _now: u64) -> bool {
        LlpLoopback::tx_ready(self)
    }

    fn tx_beat(&mut self, _now: u64, conn: usize, beat: crate::stream::Beat) {
        LlpLoopback::tx_beat(self, beat.data as u32, beat.keep as u8, beat.last, conn);
    }

    fn rx_offer(&mut self, _now: u64) -> Option<(usize, crate::stream::Beat)> {
        self.rx_beat().map(|(data, keep, last, conn)| {
            (
                conn,
                crate::stream::Beat {
                    data: u128::from(data),
                    keep: u128::from(keep),
                    last,
                },
            )
        })
    }

    fn rx_taken(&mut self, _now: u64) {
        LlpLoopback::rx_taken(self);
    }

    fn busy(&self) -> bool {
        LlpLoopback::busy(self)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random packets on every connection into the loopback under random `llp_tx_ready`, taken
    /// out under random `llp_rx_ready`; returns the streams sent per connection, received per
    /// connection, and the delivered segments' (conn, length).
    fn run(cfg: LoopbackConfig, seed: u64, bytes_per_conn: usize) -> Run {
        let mut rng = StdRng::seed_from_u64(seed);
        let n = cfg.connections;
        let mut lb = LlpLoopback::new(cfg);
        // Packets of random length per connection, sent one connection's packet at a time.
        let streams: Vec<Vec<u8>> = (0..n)
            .map(|_| (0..bytes_per_conn).map(|_| rng.gen()).collect())
            .collect();
        let mut pos = vec![0usize; n];
        let mut cur: Option<(usize, usize)> = None; // (conn, bytes left in the packet)
        let mut got: Vec<Vec<u8>> = vec![Vec::new(); n];
        let mut segs: Vec<(usize, usize)> = Vec::new();
        let mut seg_conn: Option<(usize, usize)> = None;
        let mut cycles = 0;
        loop {
            cycles += 1;
            assert!(cycles < 1_000_000, "stuck");
            let ready = lb.tx_ready();
            if cur.is_none() {
                let open: Vec<usize> = (0..n).filter(|&c| pos[c] < bytes_per_conn).collect();
                if !open.is_empty() {
                    let c = open[rng.gen_range(0..open.len())];
                    let len = rng.gen_range(1..200).min(bytes_per_conn - pos[c]);
                    cur = Some((c, len));
                }
            }
            if let Some((c, left)) = cur {
                if ready && rng.gen_bool(0.8) {
                    let k = left.min(LANES);
                    let mut data = 0u32;
                    let mut keep = 0u8;
                    for lane in 0..k {
                        data |= u32::from(streams[c][pos[c] + lane]) << (8 * (3 - lane));
                        keep |= 1 << (3 - lane);
                    }
                    pos[c] += k;
                    lb.tx_beat(data, keep, k == left, c);
                    cur = if k == left { None } else { Some((c, left - k)) };
                }
            }
            if let Some((data, keep, last, conn)) = lb.rx_beat() {
                // Stream rules: lane 0 first, full beats but the last, one connection per
                // segment.
                assert!(
                    keep == 0xF || (last && [0x8, 0xC, 0xE].contains(&keep)),
                    "keep {keep:#x}"
                );
                if rng.gen_bool(0.7) {
                    let (sc, len) = seg_conn.get_or_insert((conn, 0));
                    assert_eq!(*sc, conn, "connection changed inside a segment");
                    for lane in 0..keep.count_ones() as usize {
                        got[conn].push((data >> (8 * (3 - lane))) as u8);
                    }
                    *len += keep.count_ones() as usize;
                    lb.rx_taken();
                    if last {
                        segs.push(seg_conn.take().unwrap());
                    }
                }
            }
            if cur.is_none() && pos.iter().all(|&p| p == bytes_per_conn) && !lb.busy() {
                break;
            }
        }
        Run {
            streams,
            got,
            segs,
            lb,
        }
    }

    struct Run {
        streams: Vec<Vec<u8>>,
        got: Vec<Vec<u8>>,
        segs: Vec<(usize, usize)>,
        lb: LlpLoopback,
    }

    #[test]
    fn bytes_preserved_in_order_per_connection() {
        for seed in 0..8 {
            let cfg = LoopbackConfig {
                max_segment: [1, 7, 64, 300][seed as usize % 4],
                rx_gap: 0.3,
                tx_stall: 0.2,
                max_buffered: 256,
                seed,
                ..LoopbackConfig::default()
            };
            let r = run(cfg, seed, 3000);
            for c in 0..CONNECTIONS {
                let from = r.lb.pair(c).unwrap();
                assert_eq!(r.got[c], r.streams[from], "seed {seed}: stream into {c}");
                assert_eq!(r.lb.delivered(c), 3000);
                assert_eq!(r.lb.sent(c), 3000);
            }
            // Re-segmented: lengths other than multiples of 4 and connections interleaved.
            assert!(r.segs.iter().any(|s| s.1 % 4 != 0) || seed % 4 == 0);
            assert!(r.segs.windows(2).any(|w| w[0].0 != w[1].0));
            assert!(r
                .segs
                .iter()
                .all(|s| s.1 >= 1 && s.1 <= [1, 7, 64, 300][seed as usize % 4]));
        }
    }

    #[test]
    fn wire_delay_keeps_the_streams() {
        let cfg = LoopbackConfig {
            latency: 50,
            max_buffered: 1024,
            seed: 11,
            ..LoopbackConfig::default()
        };
        let r = run(cfg, 11, 2000);
        for c in 0..CONNECTIONS {
            assert_eq!(r.got[c], r.streams[r.lb.pair(c).unwrap()]);
        }
    }

    #[test]
    fn nothing_before_the_wire_delay() {
        let mut lb = LlpLoopback::new(LoopbackConfig {
            latency: 3,
            rx_gap: 0.0,
            max_segment: 4,
            ..LoopbackConfig::default()
        });
        assert!(lb.tx_ready());
        lb.tx_beat(0x0102_0304, 0xF, true, 0);
        let mut first = None;
        for cycle in 1..20u64 {
            if cycle > 1 {
                lb.tx_ready();
            }
            if let Some(beat) = lb.rx_beat() {
                first.get_or_insert((cycle, beat));
                lb.rx_taken();
            }
        }
        // Sent in cycle 1: offered from cycle 1 + 1 + 3, in one segment of up to 4 bytes.
        let (cycle, (data, _, _, conn)) = first.unwrap();
        assert_eq!((cycle, conn), (5, 1));
        assert_eq!(data >> 24, 1);
        assert!(!lb.busy());
    }

    #[test]
    fn other_mapping_and_back_pressure_from_the_window() {
        let cfg = LoopbackConfig {
            pairs: vec![(0, 3), (1, 2)],
            max_buffered: 16,
            rx_gap: 0.6,
            seed: 9,
            ..LoopbackConfig::default()
        };
        let r = run(cfg, 9, 1000);
        for (a, b) in [(0, 3), (1, 2)] {
            assert_eq!(r.got[a], r.streams[b]);
            assert_eq!(r.got[b], r.streams[a]);
        }
    }

    #[test]
    fn capture_keeps_packets_and_writes_a_pcap() {
        let cfg = LoopbackConfig {
            capture: true,
            seed: 3,
            ..LoopbackConfig::default()
        };
        let r = run(cfg, 3, 500);
        let cap = r.lb.captured();
        for c in 0..CONNECTIONS {
            let bytes: Vec<u8> = cap
                .iter()
                .filter(|p| p.conn == c)
                .flat_map(|p| p.bytes.clone())
                .collect();
            assert_eq!(bytes, r.streams[c], "captured stream of {c}");
        }
        assert!(cap.windows(2).all(|w| w[0].cycle <= w[1].cycle));
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        r.lb.write_pcap(&mut w, 1_700_000_000_000_000).unwrap();
        assert!(w.frames() > 10);
    }

    #[test]
    #[should_panic(expected = "no pair")]
    fn unpaired_connection_is_an_error() {
        let mut lb = LlpLoopback::new(LoopbackConfig {
            pairs: vec![(0, 1)],
            ..LoopbackConfig::default()
        });
        lb.tx_beat(0, 0xF, true, 2);
    }
}
