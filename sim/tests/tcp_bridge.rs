//! [`TcpBridge`] against itself over 127.0.0.1: two bridges connected by kernel TCP sockets,
//! each driven as the core drives its LLP port (one `tx_ready` and one `rx_offer` per cycle,
//! handshakes at the edge), by a fake core that sends random beats (random `keep`, sparse lanes
//! included) with random valid / ready, echoes, or checks every octet against the reference
//! streams. Every loop is bounded in cycles and wall-clock time.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_sim::stream::{beat_payload, Beat};
use rnic_sim::tb::rnic::Llp;
use rnic_sim::tcp_bridge::{BridgeConfig, CloseReason, TcpBridge, Way, CONNS};
use std::io::ErrorKind;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(5);
/// Wall-clock bound of every run.
const WALL: Duration = Duration::from_secs(120);

/// Two bridges with `conns` connected pairwise (A's `c` to B's `c`) over 127.0.0.1.
fn pair(a: BridgeConfig, b: BridgeConfig, conns: &[usize]) -> (TcpBridge, TcpBridge) {
    let mut a = TcpBridge::new(a);
    let mut b = TcpBridge::new(b);
    let addr = b
        .listen(SocketAddr::from(([127, 0, 0, 1], 0)))
        .expect("listen");
    for &c in conns {
        let local = a.connect(c, addr, TIMEOUT).expect("connect");
        let peer = b.accept(c, TIMEOUT).expect("accept");
        assert_eq!(
            local, peer,
            "accepted connection {c} is not the one connected"
        );
    }
    (a, b)
}

fn random_stream(rng: &mut StdRng, len: usize) -> Vec<u8> {
    (0..len).map(|_| rng.gen()).collect()
}

/// Core TX side: sends the reference streams as random beats.
struct Source {
    streams: Vec<(usize, Vec<u8>)>,
    pos: Vec<usize>,
    /// Probability of `valid` in a cycle.
    valid: f64,
    /// Whether beats may carry fewer than 4 octets / sparse lanes.
    sparse: bool,
}

impl Source {
    fn new(streams: Vec<(usize, Vec<u8>)>, valid: f64, sparse: bool) -> Source {
        let pos = vec![0; streams.len()];
        Source {
            streams,
            pos,
            valid,
            sparse,
        }
    }

    fn done(&self) -> bool {
        self.streams
            .iter()
            .zip(&self.pos)
            .all(|((_, s), &p)| p == s.len())
    }

    /// One cycle: offers a beat when `tx_ready` says so.
    fn cycle(&mut self, rng: &mut StdRng, llp: &mut TcpBridge, now: u64, tx_ready: bool) {
        if !tx_ready || self.done() || !rng.gen_bool(self.valid) {
            return;
        }
        let open: Vec<usize> = (0..self.streams.len())
            .filter(|&i| self.pos[i] < self.streams[i].1.len())
            .collect();
        let i = open[rng.gen_range(0..open.len())];
        let (conn, stream) = &self.streams[i];
        let keep: u128 = if self.sparse && rng.gen_bool(0.3) {
            rng.gen_range(0..16)
        } else {
            0b1111
        };
        let mut data: u128 = rng.gen::<u32>().into();
        let mut p = self.pos[i];
        for lane in 0..4 {
            let bit = 3 - lane;
            if keep >> bit & 1 == 1 {
                if p == stream.len() {
                    // Nothing left: drop the lane.
                    let beat = Beat {
                        data,
                        keep: keep & !((1 << (bit + 1)) - 1),
                        last: true,
                    };
                    self.pos[i] = p;
                    llp.tx_beat(now, *conn, beat);
                    return;
                }
                data = data & !(0xff << (8 * bit)) | u128::from(stream[p]) << (8 * bit);
                p += 1;
            }
        }
        self.pos[i] = p;
        llp.tx_beat(
            now,
            *conn,
            Beat {
                data,
                keep,
                last: rng.gen_bool(0.1),
            },
        );
    }
}

/// Core RX side: takes beats with probability `ready` and checks them against the streams.
struct Sink {
    expect: [Vec<u8>; CONNS],
    got: [usize; CONNS],
    ready: f64,
}

impl Sink {
    fn new(streams: &[(usize, Vec<u8>)], ready: f64) -> Sink {
        let mut expect: [Vec<u8>; CONNS] = Default::default();
        for (c, s) in streams {
            expect[*c].clone_from(s);
        }
        Sink {
            expect,
            got: [0; CONNS],
            ready,
        }
    }

    fn done(&self) -> bool {
        (0..CONNS).all(|c| self.got[c] == self.expect[c].len())
    }

    fn cycle(&mut self, rng: &mut StdRng, llp: &mut TcpBridge, now: u64) {
        let Some((conn, beat)) = llp.rx_offer(now) else {
            return;
        };
        if !rng.gen_bool(self.ready) {
            return;
        }
        check_rx_beat(&beat);
        let bytes = beat_payload(&beat, 32);
        let at = self.got[conn];
        let want = &self.expect[conn];
        assert!(
            at + bytes.len() <= want.len(),
            "conn {conn}: {} octets beyond the stream's {}",
            at + bytes.len() - want.len(),
            want.len()
        );
        assert_eq!(
            bytes,
            want[at..at + bytes.len()],
            "conn {conn}: octets {at}.. differ"
        );
        self.got[conn] += bytes.len();
        llp.rx_taken(now);
    }
}

/// Bridge RX beats: 1 to 4 octets in the leading lanes, full unless `last`.
fn check_rx_beat(beat: &Beat) {
    assert!(
        [0b1000, 0b1100, 0b1110, 0b1111].contains(&beat.keep),
        "keep {:04b}",
        beat.keep
    );
    assert!(beat.last || beat.keep == 0b1111, "partial beat not last");
    assert_eq!(beat.data >> 32, 0);
}

/// Core that echoes every RX beat back on the same connection (ready and valid at random).
fn echo_cycle(rng: &mut StdRng, llp: &mut TcpBridge, now: u64, tx_ready: bool, ready: f64) {
    if let Some((conn, beat)) = llp.rx_offer(now) {
        if tx_ready && rng.gen_bool(ready) {
            check_rx_beat(&beat);
            llp.tx_beat(now, conn, beat);
            llp.rx_taken(now);
        }
    }
}

fn check_time(start: Instant, now: u64, what: &str) {
    assert!(
        start.elapsed() < WALL,
        "{what}: wall-clock bound hit at cycle {now}"
    );
}

/// Streams on connections 0 and 2 from A, echoed by B's fake core, checked back at A; random
/// valid / ready and random `tx_ready` stalls on both bridges; B captures.
#[test]
fn echo_two_connections_random_backpressure() {
    let mut rng = StdRng::seed_from_u64(7);
    let cfg_a = BridgeConfig {
        tx_stall_percent: 20,
        tx_limit: 1024,
        seed: 11,
        ..BridgeConfig::default()
    };
    let cfg_b = BridgeConfig {
        tx_stall_percent: 30,
        tx_limit: 512,
        read_chunk: 700,
        seed: 12,
        capture: true,
        ..BridgeConfig::default()
    };
    let (mut a, mut b) = pair(cfg_a, cfg_b, &[0, 2]);
    let streams = vec![
        (0, random_stream(&mut rng, 65_536 + 3)),
        (2, random_stream(&mut rng, 50_001)),
    ];
    let mut src = Source::new(streams.clone(), 0.7, true);
    let mut sink = Sink::new(&streams, 0.6);
    let start = Instant::now();
    let mut now = 0u64;
    while !(src.done() && sink.done()) {
        assert!(now < 5_000_000, "not done after {now} cycles");
        if now.is_multiple_of(4096) {
            check_time(start, now, "echo");
        }
        let ra = a.tx_ready(now);
        let rb = b.tx_ready(now);
        src.cycle(&mut rng, &mut a, now, ra);
        sink.cycle(&mut rng, &mut a, now);
        echo_cycle(&mut rng, &mut b, now, rb, 0.8);
        now += 1;
    }
    for (c, s) in &streams {
        let n = s.len() as u64;
        for st in [a.stats(), b.stats()] {
            assert_eq!(
                [st.from_core[*c], st.to_socket[*c], st.from_socket[*c]],
                [n; 3]
            );
            assert_eq!(st.to_core[*c], n);
            assert_eq!(st.tx_dropped[*c], 0);
        }
        let cap = b.capture().expect("capture on");
        assert_eq!(cap.stream(*c, Way::FromSocket), *s);
        assert_eq!(cap.stream(*c, Way::ToSocket), *s);
        assert!(cap
            .chunks
            .iter()
            .all(|ch| ch.way == Way::ToSocket || ch.bytes.len() <= 700));
    }
    assert!(!a.busy() && !b.busy());
    assert!(a.capture().is_none());
    assert_eq!(a.closed(0), None);
    eprintln!("echo: {now} cycles");
}

/// 1 MiB each way on connections 1 and 3 at once (4 MiB in all), full and sparse beats,
/// random back-pressure, both ends checking every octet.
#[test]
fn one_mib_each_way_on_two_connections() {
    const MIB: usize = 1 << 20;
    let mut rng = StdRng::seed_from_u64(21);
    let cfg = |seed| BridgeConfig {
        tx_stall_percent: 10,
        poll_every: 4,
        seed,
        ..BridgeConfig::default()
    };
    let (mut a, mut b) = pair(cfg(1), cfg(2), &[1, 3]);
    let ab = vec![
        (1, random_stream(&mut rng, MIB)),
        (3, random_stream(&mut rng, MIB)),
    ];
    let ba = vec![
        (1, random_stream(&mut rng, MIB)),
        (3, random_stream(&mut rng, MIB)),
    ];
    let mut src_a = Source::new(ab.clone(), 0.95, true);
    let mut src_b = Source::new(ba.clone(), 0.9, false);
    let mut sink_a = Sink::new(&ba, 0.9);
    let mut sink_b = Sink::new(&ab, 0.95);
    let start = Instant::now();
    let mut now = 0u64;
    while !(src_a.done() && src_b.done() && sink_a.done() && sink_b.done()) {
        assert!(now < 10_000_000, "not done after {now} cycles");
        if now.is_multiple_of(4096) {
            check_time(start, now, "1 MiB");
        }
        let ra = a.tx_ready(now);
        let rb = b.tx_ready(now);
        src_a.cycle(&mut rng, &mut a, now, ra);
        src_b.cycle(&mut rng, &mut b, now, rb);
        sink_a.cycle(&mut rng, &mut a, now);
        sink_b.cycle(&mut rng, &mut b, now);
        now += 1;
    }
    assert!(!a.busy() && !b.busy());
    for c in [1, 3] {
        assert_eq!(a.stats().to_core[c], MIB as u64);
        assert_eq!(b.stats().to_core[c], MIB as u64);
    }
    eprintln!(
        "1 MiB x 4: {now} cycles, {:.2} s",
        start.elapsed().as_secs_f64()
    );
}

/// Two connections with data are served round robin, one beat each, `last` at the end of
/// every chunk read.
#[test]
fn rx_round_robin_and_last() {
    let (mut a, mut b) = pair(BridgeConfig::default(), BridgeConfig::default(), &[0, 1]);
    let s0: Vec<u8> = (0..40).collect();
    let s1: Vec<u8> = (100..140).collect();
    for (c, s) in [(0, &s0), (1, &s1)] {
        for chunk in s.chunks(4) {
            a.tx_beat(0, c, rnic_sim::stream::packet_beats(chunk, 32)[0]);
        }
    }
    assert!(a.busy());
    let start = Instant::now();
    while a.busy() || b.rx_pending(0) == 0 || b.rx_pending(1) == 0 {
        assert!(start.elapsed() < TIMEOUT, "bytes never arrived");
        a.pump(0);
        b.pump(0);
        std::thread::sleep(Duration::from_micros(100));
    }
    let mut got: [Vec<u8>; 2] = Default::default();
    let mut conns = vec![];
    for now in 0..1000 {
        if got[0].len() == 40 && got[1].len() == 40 {
            break;
        }
        let both = b.rx_pending(0) > 0 && b.rx_pending(1) > 0;
        let Some((c, beat)) = b.rx_offer(now) else {
            continue;
        };
        // The offer stays until taken.
        assert_eq!(b.rx_offer(now), Some((c, beat)));
        if both {
            conns.push(c);
        }
        check_rx_beat(&beat);
        assert_eq!(beat.last, b.rx_pending(c) == 0);
        got[c].extend(beat_payload(&beat, 32));
        b.rx_taken(now);
    }
    assert_eq!(got[0], s0);
    assert_eq!(got[1], s1);
    assert!(conns.len() >= 2);
    assert!(
        conns.windows(2).all(|w| w[0] != w[1]),
        "not round robin: {conns:?}"
    );
}

/// A half-closes connection 0 after its stream: B gets every octet, then EOF, and can still
/// answer on it; connection 1 keeps working; then B closes too.
#[test]
fn eof_after_the_stream_and_half_close() {
    let mut rng = StdRng::seed_from_u64(3);
    let (mut a, mut b) = pair(BridgeConfig::default(), BridgeConfig::default(), &[0, 1]);
    let s0 = random_stream(&mut rng, 10_000);
    let mut src = Source::new(vec![(0, s0.clone())], 0.8, true);
    let mut sink = Sink::new(&[(0, s0.clone())], 0.7);
    let start = Instant::now();
    let mut now = 0u64;
    while !(sink.done() && b.closed(0).is_some()) {
        assert!(now < 1_000_000 && start.elapsed() < WALL, "EOF not seen");
        let ra = a.tx_ready(now);
        b.tx_ready(now);
        src.cycle(&mut rng, &mut a, now, ra);
        if src.done() && !a.busy() {
            a.finish(0);
        }
        sink.cycle(&mut rng, &mut b, now);
        now += 1;
    }
    assert!(a.finished(0));
    assert_eq!(b.closed(0), Some(CloseReason::Eof));
    assert_eq!(b.closed(1), None);
    assert_eq!(a.closed(0), None);
    assert!(!b.busy());
    // A beat after finish is dropped (the write side is shut).
    a.tx_beat(now, 0, rnic_sim::stream::packet_beats(&[1, 2], 32)[0]);
    assert_eq!(a.stats().tx_dropped[0], 2);
    assert!(!a.busy());

    // Half-close: B still sends on 0, and on 1; then B finishes both.
    let back0 = random_stream(&mut rng, 3_000);
    let back1 = random_stream(&mut rng, 5_000);
    let back = vec![(0, back0), (1, back1)];
    let mut src = Source::new(back.clone(), 0.9, false);
    let mut sink = Sink::new(&back, 0.9);
    while !(sink.done() && a.closed(0).is_some() && a.closed(1).is_some()) {
        assert!(
            now < 2_000_000 && start.elapsed() < WALL,
            "B's EOF not seen"
        );
        a.tx_ready(now);
        let rb = b.tx_ready(now);
        src.cycle(&mut rng, &mut b, now, rb);
        if src.done() && !b.busy() {
            b.finish(0);
            b.finish(1);
        }
        sink.cycle(&mut rng, &mut a, now);
        now += 1;
    }
    assert_eq!(a.closed(0), Some(CloseReason::Eof));
    assert_eq!(a.closed(1), Some(CloseReason::Eof));
    // Further polling of closed connections is harmless.
    for t in now..now + 100 {
        assert!(a.rx_offer(t).is_none() && b.rx_offer(t).is_none());
        a.pump(t);
    }
}

/// B drops connection 0 with unread octets (the kernel answers with a reset): A records the
/// error, drops what the core still sends on it, keeps `tx_ready` up; connection 1 unaffected.
#[test]
fn reset_is_recorded_not_a_panic() {
    let mut rng = StdRng::seed_from_u64(5);
    let (mut a, mut b) = pair(BridgeConfig::default(), BridgeConfig::default(), &[0, 1]);
    for b4 in rnic_sim::stream::packet_beats(&random_stream(&mut rng, 1000), 32) {
        a.tx_beat(0, 0, b4);
    }
    let start = Instant::now();
    while a.busy() {
        assert!(start.elapsed() < TIMEOUT);
        a.pump(0);
    }
    std::thread::sleep(Duration::from_millis(20));
    drop(b.detach(0).expect("attached"));
    let mut now = 0u64;
    while a.closed(0).is_none() {
        assert!(start.elapsed() < TIMEOUT, "reset not seen");
        assert!(a.tx_ready(now));
        a.tx_beat(now, 0, rnic_sim::stream::packet_beats(&[9; 4], 32)[0]);
        assert!(a.rx_offer(now).is_none());
        now += 1;
        std::thread::sleep(Duration::from_micros(200));
    }
    match a.closed(0) {
        Some(CloseReason::Error(k)) => assert!(
            matches!(k, ErrorKind::ConnectionReset | ErrorKind::BrokenPipe),
            "{k:?}"
        ),
        other => panic!("{other:?}"),
    }
    assert!(a.tx_ready(now));
    let dropped = a.stats().tx_dropped[0];
    a.tx_beat(now, 0, rnic_sim::stream::packet_beats(&[9; 4], 32)[0]);
    assert_eq!(a.stats().tx_dropped[0], dropped + 4);
    assert!(!a.busy());
    // Connection 1 still carries octets.
    let s = random_stream(&mut rng, 777);
    let mut src = Source::new(vec![(1, s.clone())], 1.0, true);
    let mut sink = Sink::new(&[(1, s)], 1.0);
    while !sink.done() {
        assert!(start.elapsed() < WALL && now < 1_000_000);
        let ra = a.tx_ready(now);
        src.cycle(&mut rng, &mut a, now, ra);
        sink.cycle(&mut rng, &mut b, now);
        now += 1;
    }
    assert_eq!(a.closed(1), None);
    assert_eq!(b.closed(1), None);
}

/// The peer does not read: A's socket fills up, its buffer reaches `tx_limit` and `tx_ready`
/// drops (without blocking); once the peer reads, everything arrives in order.
#[test]
fn tx_backpressure_when_the_peer_does_not_read() {
    let mut rng = StdRng::seed_from_u64(9);
    let cfg_a = BridgeConfig {
        tx_limit: 4096,
        ..BridgeConfig::default()
    };
    let (mut a, mut b) = pair(cfg_a, BridgeConfig::default(), &[2]);
    let s = random_stream(&mut rng, 24 << 20);
    let mut src = Source::new(vec![(2, s.clone())], 1.0, false);
    let start = Instant::now();
    let mut now = 0u64;
    let mut low = 0u64;
    // Phase 1: nobody reads on B; stop after 1000 cycles of tx_ready low in a row.
    while low < 1000 {
        assert!(!src.done(), "the socket took 24 MiB without back-pressure");
        check_time(start, now, "fill");
        let ra = a.tx_ready(now);
        low = if ra { 0 } else { low + 1 };
        src.cycle(&mut rng, &mut a, now, ra);
        now += 1;
    }
    assert!(a.busy());
    assert!(a.tx_pending(2) >= 4096);
    let sent = a.stats().to_socket[2];
    eprintln!("back-pressure after {sent} octets in the sockets, cycle {now}");
    // Phase 2: B reads; A finishes the (truncated) stream.
    let total = src.pos[0];
    let mut sink = Sink::new(&[(2, s[..total].to_vec())], 1.0);
    while !sink.done() {
        assert!(now < 50_000_000);
        if now.is_multiple_of(4096) {
            check_time(start, now, "drain");
        }
        a.tx_ready(now);
        sink.cycle(&mut rng, &mut b, now);
        now += 1;
    }
    assert!(!a.busy() && !b.busy());
    assert!(a.tx_ready(now));
}

/// A held connection is neither read nor offered (its octets wait in the kernel) while the
/// other one flows; on release every octet arrives in order.
#[test]
fn hold_rx_gates_one_connection() {
    let mut rng = StdRng::seed_from_u64(13);
    let (mut a, mut b) = pair(BridgeConfig::default(), BridgeConfig::default(), &[0, 3]);
    let streams = vec![
        (0, random_stream(&mut rng, 20_000)),
        (3, random_stream(&mut rng, 20_000)),
    ];
    b.hold_rx(0, true);
    assert!(b.rx_held(0));
    let mut src = Source::new(streams.clone(), 1.0, true);
    let mut sink = Sink::new(&streams, 0.8);
    let start = Instant::now();
    let mut now = 0u64;
    while sink.got[3] < 20_000 || !src.done() {
        assert!(now < 1_000_000 && start.elapsed() < WALL, "conn 3 stuck");
        let ra = a.tx_ready(now);
        src.cycle(&mut rng, &mut a, now, ra);
        sink.cycle(&mut rng, &mut b, now);
        now += 1;
    }
    // Let conn 0's octets reach B's kernel; none may come out while held.
    let t = Instant::now();
    while a.busy() || t.elapsed() < Duration::from_millis(20) {
        assert!(start.elapsed() < WALL);
        a.tx_ready(now);
        sink.cycle(&mut rng, &mut b, now);
        now += 1;
    }
    assert_eq!(sink.got[0], 0);
    assert_eq!(b.stats().from_socket[0], 0);
    assert_eq!(b.rx_pending(0), 0);
    b.hold_rx(0, false);
    while !sink.done() {
        assert!(now < 3_000_000 && start.elapsed() < WALL, "conn 0 stuck");
        a.tx_ready(now);
        sink.cycle(&mut rng, &mut b, now);
        now += 1;
    }
}
