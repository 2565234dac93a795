//! The independent software iWARP peer (`rnic_sim::peer`): two peers back to back over a
//! randomly re-segmented byte stream, every operation at the sizes of issue 6, memory and
//! completions compared with a reference model kept here; the error cases against the exact
//! Terminates built with `rnic_proto::rdmap::terminate` constructors and the catalog's control
//! words (`rfc5040-rdmap.md` §1.8, §5.1, §5.4; `mpa-peer-connect.md` §6.4, §7); the golden
//! FPDUs of `mpa-peer-connect.md` §7.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_proto::ddp::{self, TaggedBufferCode, UntaggedBufferCode};
use rnic_proto::mpa::{Deframer, DeframerConfig, Framer, TERMINATE_ETYPE_LLP};
use rnic_proto::rdmap::{
    Body, DdpFields, Extensions, Message, ReadRequestRepr, RemoteOperationCode,
    RemoteProtectionCode, TerminateCode, TerminateRepr,
};
use rnic_proto::verbs::{access, WcOpcode, WcStatus};
use rnic_sim::peer::{Completion, Event, Peer, PeerConfig, Queue, SendKind, State};

const SIZES: [u64; 7] = [0, 1, 3, 4, 1023, 4096, 65536];
const MEM: usize = 2 << 20;

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .filter(|t| *t != "|")
        .map(|t| u8::from_str_radix(t, 16).unwrap())
        .collect()
}

/// Moves everything `from` has to send into `to`, cut at random points.
fn deliver(rng: &mut StdRng, from: &mut Peer, to: &mut Peer) -> bool {
    let bytes = from.take_output();
    feed_cut(rng, to, &bytes);
    !bytes.is_empty()
}

fn feed_cut(rng: &mut StdRng, to: &mut Peer, bytes: &[u8]) {
    let mut rest = bytes;
    while !rest.is_empty() {
        let max = if rng.gen_bool(0.5) { 7 } else { 3000 };
        let n = rng.gen_range(1..=max).min(rest.len());
        to.feed(&rest[..n]);
        rest = &rest[n..];
    }
}

/// Runs both directions until neither has anything to send.
fn settle(rng: &mut StdRng, a: &mut Peer, b: &mut Peer) {
    for _ in 0..10_000 {
        let x = deliver(rng, a, b);
        let y = deliver(rng, b, a);
        if !x && !y {
            return;
        }
    }
    panic!("peers never settled");
}

/// The ULPDUs of a stream, via the golden deframer.
fn ulpdus(bytes: &[u8], markers: bool, crc: bool) -> Vec<Vec<u8>> {
    let mut d = Deframer::new(vec![0u8; 65535], DeframerConfig::new(markers, crc)).unwrap();
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let (n, delivery) = d.feed(rest);
        rest = &rest[n..];
        if let Some(del) = delivery {
            assert!(del.status.is_good(), "{:?}", del.status);
            out.push(del.ulpdu.to_vec());
        }
    }
    assert!(d.at_fpdu_boundary());
    out
}

fn terminate_of(ulpdu: &[u8]) -> TerminateRepr {
    let msg = Message::parse(&ddp::Packet::new_unchecked(ulpdu), Extensions::NONE).unwrap();
    assert_eq!(msg.ddp, DdpFields::Untagged { msn: 1, mo: 0 });
    match msg.body {
        Body::Terminate(t) => t,
        other => panic!("not a Terminate: {other:?}"),
    }
}

/// One direction's reference memory plus a bump allocator with random alignment.
struct Side {
    model: Vec<u8>,
    next: u64,
}

impl Side {
    fn alloc(&mut self, rng: &mut StdRng, len: u64) -> u64 {
        let addr = self.next + rng.gen_range(0..8u64);
        self.next = addr + len;
        assert!(self.next as usize <= MEM, "test memory exhausted");
        addr
    }
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Write,
    Read,
    Send(SendKind),
}

const OPS: [Op; 6] = [
    Op::Write,
    Op::Read,
    Op::Send(SendKind::Send),
    Op::Send(SendKind::SendInv),
    Op::Send(SendKind::SendSe),
    Op::Send(SendKind::SendSeInv),
];

/// What the test expects one peer to report.
#[derive(Default)]
struct Expect {
    completions: Vec<Completion>,
    /// STags the other side must have invalidated.
    invalidated: Vec<u32>,
}

/// Posts `op` of `len` bytes from `x` (the initiator) to `y`; updates the models.
#[allow(clippy::too_many_arguments)]
fn post(
    rng: &mut StdRng,
    op: Op,
    len: u64,
    wr_id: u64,
    x: &mut Peer,
    xs: &mut Side,
    y: &mut Peer,
    ys: &mut Side,
    ex: &mut Expect,
    ey: &mut Expect,
) {
    let sq = |opcode| Completion {
        wr_id,
        queue: Queue::Send,
        opcode,
        status: WcStatus::Success,
        byte_len: len as u32,
        invalidated_stag: None,
        solicited: false,
    };
    match op {
        Op::Write => {
            let src = xs.alloc(rng, len);
            let dst = ys.alloc(rng, len);
            let rkey = y.register(dst, len, access::REMOTE_WRITE | access::LOCAL_READ);
            x.post_write(wr_id, src, len, rkey, dst).unwrap();
            let (s, d) = (src as usize, dst as usize);
            ys.model[d..d + len as usize].copy_from_slice(&xs.model[s..s + len as usize]);
            ex.completions.push(sq(WcOpcode::RdmaWrite));
        }
        Op::Read => {
            let src = ys.alloc(rng, len);
            let dst = xs.alloc(rng, len);
            let rkey = y.register(src, len, access::REMOTE_READ);
            let lkey = x.register(dst, len, access::LOCAL_WRITE);
            x.post_read(wr_id, lkey, dst, len, rkey, src).unwrap();
            let (s, d) = (src as usize, dst as usize);
            xs.model[d..d + len as usize].copy_from_slice(&ys.model[s..s + len as usize]);
            ex.completions.push(sq(WcOpcode::RdmaRead));
        }
        Op::Send(kind) => {
            let src = xs.alloc(rng, len);
            // Receive buffers up to 16 bytes longer than the message.
            let room = len + rng.gen_range(0..16u64);
            let dst = ys.alloc(rng, room);
            y.post_recv(wr_id + 1_000_000, dst, room as u32).unwrap();
            let inv = if kind.invalidates() {
                let at = ys.alloc(rng, 16);
                let stag = y.register(at, 16, access::REMOTE_WRITE);
                ex.invalidated.push(stag);
                stag
            } else {
                0
            };
            x.post_send(wr_id, kind, src, len, inv).unwrap();
            let (s, d) = (src as usize, dst as usize);
            ys.model[d..d + len as usize].copy_from_slice(&xs.model[s..s + len as usize]);
            ex.completions.push(sq(WcOpcode::Send));
            ey.completions.push(Completion {
                wr_id: wr_id + 1_000_000,
                queue: Queue::Recv,
                opcode: WcOpcode::Recv,
                status: WcStatus::Success,
                byte_len: len as u32,
                invalidated_stag: kind.invalidates().then_some(inv),
                solicited: kind.solicited(),
            });
        }
    }
}

/// Every operation, both directions at once, every size, for one connection configuration.
fn back_to_back(seed: u64, a_cfg: PeerConfig) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut a = Peer::new(a_cfg);
    let mut b = Peer::new(a_cfg.mirrored());
    let mut sa = Side {
        model: (0..MEM).map(|_| rng.gen()).collect(),
        next: 0,
    };
    let mut sb = Side {
        model: (0..MEM).map(|_| rng.gen()).collect(),
        next: 0,
    };
    a.memory_mut().bytes_mut().copy_from_slice(&sa.model);
    b.memory_mut().bytes_mut().copy_from_slice(&sb.model);
    let mut wr_id = 0;
    for len in SIZES {
        sa.next = 0;
        sb.next = 0;
        let (mut ea, mut eb) = (Expect::default(), Expect::default());
        let mut order: Vec<(bool, Op)> = OPS
            .iter()
            .flat_map(|&op| [(true, op), (false, op)])
            .collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.gen_range(0..=i));
        }
        for (a_starts, op) in order {
            wr_id += 1;
            if a_starts {
                post(
                    &mut rng, op, len, wr_id, &mut a, &mut sa, &mut b, &mut sb, &mut ea, &mut eb,
                );
            } else {
                post(
                    &mut rng, op, len, wr_id, &mut b, &mut sb, &mut a, &mut sa, &mut eb, &mut ea,
                );
            }
        }
        settle(&mut rng, &mut a, &mut b);
        let ctx = format!("seed {seed} len {len} cfg {a_cfg:?}");
        for stag in &ea.invalidated {
            assert!(b.memory().region(*stag).is_none(), "{stag:#x} {ctx}");
        }
        for stag in &eb.invalidated {
            assert!(a.memory().region(*stag).is_none(), "{stag:#x} {ctx}");
        }
        for (p, e, s) in [(&mut a, &ea, &sa), (&mut b, &eb, &sb)] {
            assert_eq!(p.violations(), &[], "{ctx}");
            assert_eq!(p.events(), vec![], "{ctx}");
            assert_eq!(p.state(), State::Rts, "{ctx}");
            assert!(p.idle(), "{ctx}");
            let mut got = p.poll();
            let mut want = e.completions.clone();
            // Send-queue completions in posting order; receive completions in Send order.
            got.sort_by_key(|c| (c.queue == Queue::Recv, c.wr_id));
            want.sort_by_key(|c| (c.queue == Queue::Recv, c.wr_id));
            assert_eq!(got, want, "{ctx}");
            assert!(p.memory().bytes() == &s.model[..], "memory differs, {ctx}");
        }
    }
}

fn cfg(tx_crc: bool, rx_crc: bool, tx_markers: bool, rx_markers: bool, mulpdu: u16) -> PeerConfig {
    PeerConfig {
        tx_crc,
        rx_crc,
        tx_markers,
        rx_markers,
        mulpdu,
        // The receiver refuses anything over the MULPDU (MPA Terminate): segmentation check.
        max_rx_ulpdu: mulpdu,
        memory_size: MEM,
        ird: 16,
        ord: 16,
        ..PeerConfig::default()
    }
}

#[test]
fn every_operation_crc_no_markers() {
    for (i, mulpdu) in [1460u16, 64, 9000, 65535].into_iter().enumerate() {
        back_to_back(100 + i as u64, cfg(true, true, false, false, mulpdu));
    }
}

#[test]
fn every_operation_markers() {
    for (i, mulpdu) in [1460u16, 100, 65535].into_iter().enumerate() {
        back_to_back(200 + i as u64, cfg(true, true, true, true, mulpdu));
    }
}

#[test]
fn every_operation_crc_off_and_mixed_directions() {
    back_to_back(300, cfg(false, false, false, false, 1460));
    back_to_back(301, cfg(false, false, true, true, 536));
    back_to_back(302, cfg(true, false, true, false, 2000));
    back_to_back(303, cfg(false, true, false, true, 777));
}

/// Completions come out in posting order even when a Read is slower than later Writes, and a
/// Read waits for ORD.
#[test]
fn completion_order_and_ord() {
    let mut rng = StdRng::seed_from_u64(7);
    let c = PeerConfig {
        ord: 1,
        ..cfg(true, true, false, false, 1460)
    };
    let mut a = Peer::new(c);
    let mut b = Peer::new(c.mirrored());
    let rkey = b.register(0, 4096, access::REMOTE_READ | access::REMOTE_WRITE);
    let lkey = a.register(0x1000, 4096, access::LOCAL_WRITE);
    a.post_read(1, lkey, 0x1000, 100, rkey, 0).unwrap();
    a.post_read(2, lkey, 0x2000 - 100, 100, rkey, 100).unwrap();
    a.post_write(3, 0x3000, 10, rkey, 200).unwrap();
    let first = a.take_output();
    // ORD 1: only the first Read goes out; the second and the Write wait behind it.
    assert_eq!(ulpdus(&first, false, true).len(), 1);
    assert_eq!(a.orq_len(), 1);
    assert!(a.poll().is_empty());
    feed_cut(&mut rng, &mut b, &first);
    settle(&mut rng, &mut a, &mut b);
    let ids: Vec<u64> = a.poll().iter().map(|c| c.wr_id).collect();
    assert_eq!(ids, vec![1, 2, 3]);
    assert!(a.violations().is_empty() && b.violations().is_empty());
}

// ------------------------------------------------------------------------------------------
// Error cases: the exact Terminate.

/// A pair with A's output taken and fed to B; returns B's Terminate ULPDU and A's ULPDUs.
struct ErrCase {
    a: Peer,
    b: Peer,
    rng: StdRng,
}

impl ErrCase {
    fn new(seed: u64, c: PeerConfig) -> ErrCase {
        ErrCase {
            a: Peer::new(c),
            b: Peer::new(c.mirrored()),
            rng: StdRng::seed_from_u64(seed),
        }
    }

    /// A sends everything to B; B answers. Returns (A's ULPDUs, B's Terminate ULPDU).
    fn run(&mut self) -> (Vec<Vec<u8>>, Vec<u8>) {
        let c = *self.a.config();
        let out = self.a.take_output();
        let segs = ulpdus(&out, c.tx_markers, c.tx_crc);
        feed_cut(&mut self.rng, &mut self.b, &out);
        let back = self.b.take_output();
        let mut b_segs = ulpdus(&back, c.rx_markers, c.rx_crc);
        assert_eq!(b_segs.len(), 1, "B sends exactly one Terminate");
        // After the Terminate B sends nothing more, even if asked.
        self.b.post_write(99, 0, 0, 0, 0).unwrap_err();
        assert!(self.b.take_output().is_empty());
        assert_eq!(self.b.state(), State::Error);
        feed_cut(&mut self.rng, &mut self.a, &back);
        (segs, b_segs.remove(0))
    }

    /// Checks both sides' view of the Terminate `want`.
    fn check(&mut self, term_ulpdu: &[u8], want: TerminateRepr) {
        assert_eq!(terminate_of(term_ulpdu), want);
        assert_eq!(self.b.events(), vec![Event::TerminateSent(want)]);
        assert_eq!(self.a.events(), vec![Event::TerminateReceived(want)]);
        assert_eq!(self.a.state(), State::Error);
        assert!(self.a.violations().is_empty(), "{:?}", self.a.violations());
        let v = self.b.violations();
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].code, Some(want.code));
    }
}

fn plain() -> PeerConfig {
    cfg(true, true, false, false, 1460)
}

/// Control word octets of the Terminate in a Terminate ULPDU (DDP offset 18).
fn control_word(term_ulpdu: &[u8]) -> u32 {
    u32::from_be_bytes(term_ulpdu[18..22].try_into().unwrap())
}

#[test]
fn write_bad_stag() {
    for (i, (crc, markers)) in [(true, false), (false, false), (true, true), (false, true)]
        .into_iter()
        .enumerate()
    {
        write_bad_stag_with(i as u64, cfg(crc, !crc, markers, !markers, 1460));
    }
}

fn write_bad_stag_with(seed: u64, c: PeerConfig) {
    let mut t = ErrCase::new(1 + seed, c);
    t.a.post_write(1, 0, 100, 0x1234_5600, 0).unwrap();
    let (segs, term) = t.run();
    let want = TerminateRepr::new(TerminateCode::DdpTaggedBuffer(
        TaggedBufferCode::InvalidStag,
    ))
    .with_segment(&segs[0])
    .unwrap();
    assert_eq!(control_word(&term), 0x1100_C000); // rfc5040-rdmap.md §1.8
    assert_eq!(&term[22..24], &[0, 114]); // DDP Segment Length: the whole segment
    assert_eq!(&term[24..38], &segs[0][..14]);
    t.check(&term, want);
    // A's Write had completed when sent; nothing else was outstanding.
    let c = t.a.poll();
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].status, WcStatus::Success);
}

#[test]
fn write_out_of_bounds() {
    let mut t = ErrCase::new(2, plain());
    let rkey = t.b.register(0x100, 2000, access::REMOTE_WRITE);
    // The first segment is in bounds, the second overruns the region by 1 octet.
    t.a.post_write(1, 0, 2001, rkey, 0x100).unwrap();
    let (segs, term) = t.run();
    assert_eq!(segs.len(), 2);
    let want = TerminateRepr::new(TerminateCode::DdpTaggedBuffer(
        TaggedBufferCode::BaseOrBounds,
    ))
    .with_segment(&segs[1])
    .unwrap();
    t.check(&term, want);
    assert_eq!(t.b.stats().bytes_placed, 1446);

    let mut t = ErrCase::new(3, plain());
    let rkey = t.b.register(0x100, 64, access::REMOTE_WRITE);
    t.a.post_write(1, 0, 65, rkey, 0x100).unwrap();
    let (segs, term) = t.run();
    let want = TerminateRepr::new(TerminateCode::DdpTaggedBuffer(
        TaggedBufferCode::BaseOrBounds,
    ))
    .with_segment(&segs[0])
    .unwrap();
    assert_eq!(control_word(&term), 0x1101_C000);
    t.check(&term, want);
    // Nothing was placed.
    assert!(t.b.memory().bytes()[0x100..0x141].iter().all(|&x| x == 0));
}

#[test]
fn write_without_rights() {
    let mut t = ErrCase::new(4, plain());
    let rkey =
        t.b.register(0, 64, access::REMOTE_READ | access::LOCAL_WRITE);
    t.a.post_write(1, 0, 8, rkey, 0).unwrap();
    let (segs, term) = t.run();
    let want = TerminateRepr::new(TerminateCode::RdmapRemoteProtection(
        RemoteProtectionCode::AccessRights,
    ))
    .with_segment(&segs[0])
    .unwrap();
    assert_eq!(control_word(&term), 0x0102_C000);
    t.check(&term, want);
}

#[test]
fn read_bad_stag_without_rights_out_of_bounds() {
    let cases: [(u8, u64, u64, RemoteProtectionCode); 3] = [
        (0, 0, 64, RemoteProtectionCode::InvalidStag),
        (
            access::REMOTE_WRITE,
            0,
            64,
            RemoteProtectionCode::AccessRights,
        ),
        (
            access::REMOTE_READ,
            8,
            64,
            RemoteProtectionCode::BaseOrBounds,
        ),
    ];
    for (i, (rights, off, len, code)) in cases.into_iter().enumerate() {
        let mut t = ErrCase::new(10 + i as u64, plain());
        let rkey = if rights == 0 {
            0x55667788
        } else {
            t.b.register(0x200, 64, rights)
        };
        let lkey = t.a.register(0, 64, access::LOCAL_WRITE);
        t.a.post_read(7, lkey, 0, len, rkey, 0x200 + off).unwrap();
        let (segs, term) = t.run();
        let rrq = ReadRequestRepr {
            sink_stag: lkey,
            sink_to: 0,
            read_size: len as u32,
            src_stag: rkey,
            src_to: 0x200 + off,
        };
        let want = TerminateRepr::new(TerminateCode::RdmapRemoteProtection(code))
            .with_segment(&segs[0])
            .unwrap()
            .with_rdma_header(rrq);
        assert_eq!(term.len(), 70);
        assert_eq!(control_word(&term) & 0xFFFF, 0xE000); // M D R
        t.check(&term, want);
        // The Read is flushed at A.
        let c = t.a.poll();
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].wr_id, c[0].status), (7, WcStatus::WrFlushErr));
    }
}

/// A Send with MSN 2 as the first Send: Invalid MSN, range not valid.
#[test]
fn send_wrong_msn() {
    let mut t = ErrCase::new(20, plain());
    t.b.post_recv(1, 0, 64).unwrap();
    let msg = Message {
        last: true,
        ddp: DdpFields::Untagged { msn: 2, mo: 0 },
        body: Body::Send { payload: b"abc" },
    };
    let mut buf = vec![0u8; msg.buffer_len()];
    msg.emit(&mut ddp::Packet::new_unchecked(&mut buf[..]))
        .unwrap();
    t.a.emit_ulpdu(&buf);
    let (segs, term) = t.run();
    let want = TerminateRepr::new(TerminateCode::DdpUntaggedBuffer(
        UntaggedBufferCode::MsnRange,
    ))
    .with_segment(&segs[0])
    .unwrap();
    assert_eq!(control_word(&term), 0x1203_C000);
    t.check(&term, want);
    // The posted receive buffer is flushed.
    let c = t.b.poll();
    assert_eq!(
        (c[0].queue, c[0].status),
        (Queue::Recv, WcStatus::WrFlushErr)
    );
}

#[test]
fn send_without_receive_buffer() {
    let mut t = ErrCase::new(21, plain());
    t.a.post_send(1, SendKind::SendSe, 0, 5, 0).unwrap();
    let (segs, term) = t.run();
    let want = TerminateRepr::new(TerminateCode::DdpUntaggedBuffer(
        UntaggedBufferCode::MsnNoBuffer,
    ))
    .with_segment(&segs[0])
    .unwrap();
    assert_eq!(control_word(&term), 0x1202_C000);
    t.check(&term, want);
}

#[test]
fn send_too_long_for_buffer() {
    let mut t = ErrCase::new(22, plain());
    t.b.post_recv(5, 0, 10).unwrap();
    t.a.post_send(1, SendKind::Send, 0, 11, 0).unwrap();
    let (segs, term) = t.run();
    let want = TerminateRepr::new(TerminateCode::DdpUntaggedBuffer(
        UntaggedBufferCode::MessageTooLong,
    ))
    .with_segment(&segs[0])
    .unwrap();
    assert_eq!(control_word(&term), 0x1205_C000); // rfc5040-rdmap.md §1.8
    t.check(&term, want);
    let c = t.b.poll();
    assert_eq!((c[0].wr_id, c[0].status), (5, WcStatus::LocLenErr));
}

#[test]
fn send_invalidate_unknown_and_forbidden_stag() {
    let mut t = ErrCase::new(23, plain());
    t.b.post_recv(5, 0, 10).unwrap();
    t.a.post_send(1, SendKind::SendInv, 0, 4, 0x4242_4200)
        .unwrap();
    let (segs, term) = t.run();
    let want = TerminateRepr::new(TerminateCode::RdmapRemoteOperation(
        RemoteOperationCode::StagCannotBeInvalidated,
    ))
    .with_segment(&segs[0])
    .unwrap();
    t.check(&term, want);
    let c = t.b.poll();
    assert_eq!((c[0].wr_id, c[0].status), (5, WcStatus::GeneralErr));

    // Registered without remote invalidation: Remote Protection 0/1/0x09, M D only.
    let mut t = ErrCase::new(24, plain());
    let pd = t.b.config().pd;
    let stag =
        t.b.memory_mut()
            .register(0x100, 8, access::REMOTE_WRITE, pd, false)
            .unwrap();
    t.b.post_recv(5, 0, 10).unwrap();
    t.a.post_send(1, SendKind::SendSeInv, 0, 4, stag).unwrap();
    let (segs, term) = t.run();
    let want = TerminateRepr::new(TerminateCode::RdmapRemoteProtection(
        RemoteProtectionCode::StagCannotBeInvalidated,
    ))
    .with_segment(&segs[0])
    .unwrap();
    assert_eq!(control_word(&term), 0x0109_C000);
    t.check(&term, want);
    assert!(t.b.memory().region(stag).is_some());
}

#[test]
fn ird_exceeded() {
    let c = PeerConfig {
        ird: 1,
        ord: 4,
        ..plain()
    };
    let mut t = ErrCase::new(30, c);
    let rkey = t.b.register(0, 64, access::REMOTE_READ);
    let lkey = t.a.register(0, 64, access::LOCAL_WRITE);
    t.a.post_read(1, lkey, 0, 8, rkey, 0).unwrap();
    t.a.post_read(2, lkey, 8, 8, rkey, 8).unwrap();
    let (segs, term) = t.run();
    assert_eq!(segs.len(), 2);
    let want = TerminateRepr::new(TerminateCode::RdmapRemoteOperation(
        RemoteOperationCode::CatastrophicStream,
    ))
    .with_segment(&segs[1])
    .unwrap();
    assert_eq!(control_word(&term), 0x0207_C000);
    t.check(&term, want);
    // The first Read was queued but is never answered: the Terminate comes first and last.
    let c = t.a.poll();
    assert_eq!(c.len(), 2);
    assert!(c.iter().all(|c| c.status == WcStatus::WrFlushErr));
}

#[test]
fn read_response_without_read() {
    let mut t = ErrCase::new(31, plain());
    let msg = Message {
        last: true,
        ddp: DdpFields::Tagged { stag: 1, to: 0 },
        body: Body::RdmaReadResponse { payload: b"xy" },
    };
    let mut buf = vec![0u8; msg.buffer_len()];
    msg.emit(&mut ddp::Packet::new_unchecked(&mut buf[..]))
        .unwrap();
    t.a.emit_ulpdu(&buf);
    let (_, term) = t.run();
    let want = TerminateRepr::new(TerminateCode::RdmapRemoteOperation(
        RemoteOperationCode::UnexpectedOpcode,
    ));
    assert_eq!(control_word(&term), 0x0206_0000);
    t.check(&term, want);
}

#[test]
fn corrupted_crc_and_bad_marker() {
    for markers in [false, true] {
        let c = cfg(true, true, markers, markers, 1460);
        let mut a = Peer::new(c);
        let mut b = Peer::new(c.mirrored());
        let mut rng = StdRng::seed_from_u64(40);
        let rkey = b.register(0, 4096, access::REMOTE_WRITE);
        a.post_write(1, 0, 3000, rkey, 0).unwrap();
        let mut out = a.take_output();
        // A payload octet of the second FPDU.
        let first = Framer::new(markers, true).wire_len(1460);
        out[first + 100] ^= 0x10;
        feed_cut(&mut rng, &mut b, &out);
        let back = b.take_output();
        let segs = ulpdus(&back, markers, true);
        assert_eq!(segs.len(), 1);
        let want = TerminateRepr::new(TerminateCode::Llp {
            error_type: TERMINATE_ETYPE_LLP,
            error_code: 0x02,
        });
        assert_eq!(terminate_of(&segs[0]), want);
        assert_eq!(control_word(&segs[0]), 0x2302_0000);
        assert_eq!(segs[0].len(), 22);
        assert_eq!(b.events(), vec![Event::TerminateSent(want)]);
        // The first, good FPDU was placed.
        assert_eq!(b.stats().bytes_placed, 1446);
        feed_cut(&mut rng, &mut a, &back);
        assert_eq!(a.events(), vec![Event::TerminateReceived(want)]);
    }
    // CRC off, markers on: a corrupted marker is a marker error (0x03).
    let c = cfg(false, false, true, true, 1460);
    let mut a = Peer::new(c);
    let mut b = Peer::new(c.mirrored());
    let rkey = b.register(0, 4096, access::REMOTE_WRITE);
    a.post_write(1, 0, 3000, rkey, 0).unwrap();
    let mut out = a.take_output();
    out[515] ^= 0x04; // the marker at stream offset 512: FPDUPTR low octet, bit 2
    b.feed(&out);
    let back = b.take_output();
    let t = terminate_of(&ulpdus(&back, true, false)[0]);
    assert_eq!(
        t.code,
        TerminateCode::Llp {
            error_type: TERMINATE_ETYPE_LLP,
            error_code: 0x03
        }
    );
}

#[test]
fn short_segment_and_bad_versions() {
    // A 1-octet ULPDU: 0/2/0xFF, no headers (the DDP header is incomplete).
    let cases: [(Vec<u8>, TerminateCode); 4] = [
        (
            vec![0x41],
            TerminateCode::RdmapRemoteOperation(RemoteOperationCode::Unspecified),
        ),
        (
            hex("c2 40 00 00 00 01 00 00 00 00 00 00 00 00"),
            TerminateCode::DdpTaggedBuffer(TaggedBufferCode::InvalidDdpVersion),
        ),
        (
            hex("c1 80 00 00 00 01 00 00 00 00 00 00 00 00"),
            TerminateCode::RdmapRemoteOperation(RemoteOperationCode::InvalidRdmapVersion),
        ),
        (
            hex("41 48 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00"),
            TerminateCode::RdmapRemoteOperation(RemoteOperationCode::UnexpectedOpcode),
        ),
    ];
    for (i, (ulpdu, code)) in cases.into_iter().enumerate() {
        let mut t = ErrCase::new(50 + i as u64, plain());
        t.a.emit_ulpdu(&ulpdu);
        let (_, term) = t.run();
        t.check(&term, TerminateRepr::new(code));
    }
    // Invalid QN: M D.
    let mut t = ErrCase::new(60, plain());
    t.a.emit_ulpdu(&hex(
        "41 43 00 00 00 00 00 00 00 05 00 00 00 01 00 00 00 00",
    ));
    let (segs, term) = t.run();
    let want = TerminateRepr::new(TerminateCode::DdpUntaggedBuffer(
        UntaggedBufferCode::InvalidQn,
    ))
    .with_segment(&segs[0])
    .unwrap();
    t.check(&term, want);
}

// ------------------------------------------------------------------------------------------
// Golden vectors (`mpa-peer-connect.md` §7, `rfc5040-rdmap.md` §1.8).

fn golden_peer() -> Peer {
    Peer::new(plain())
}

#[test]
fn golden_zero_length_write_and_read() {
    // V2: zero-length RDMA Write, STag 1: accepted, nothing checked or placed.
    let mut p = golden_peer();
    p.feed(&hex(
        "00 0e c1 40 00 00 00 01 00 00 00 00 00 00 00 00 eb d3 4c 5f",
    ));
    assert!(p.take_output().is_empty());
    assert!(p.violations().is_empty() && p.events().is_empty());
    assert_eq!(p.stats().messages_rx, 1);
    // V3: zero-length Read Request; the answer is exactly V4.
    p.feed(&hex(
        "00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00 00 00 00 01 00 00 00 00 \
         00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00 27 db d7 e7",
    ));
    assert_eq!(
        p.take_output(),
        hex("00 0e c1 42 00 00 00 01 00 00 00 00 00 00 00 00 21 a3 e8 3e")
    );
    assert!(p.violations().is_empty() && p.events().is_empty());
}

#[test]
fn golden_zero_length_fpdu_is_a_short_segment() {
    // V1 is an RTR, legal only before RDMA mode; in RDMA mode it is a segment shorter than
    // its DDP header.
    let mut p = golden_peer();
    p.feed(&hex("00 00 00 00 c7 4b 67 48"));
    let t = terminate_of(&ulpdus(&p.take_output(), false, true)[0]);
    assert_eq!(
        t,
        TerminateRepr::new(TerminateCode::RdmapRemoteOperation(
            RemoteOperationCode::Unspecified
        ))
    );
}

#[test]
fn golden_llp_terminates_received() {
    let head = "00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00";
    let vectors = [
        (0x23u8, 5u8, "2f 09 f7 93"),
        (0x23, 6, "5c c9 d9 79"),
        (0x23, 7, "22 5b 98 dc"),
        (0x20, 5, "16 80 d5 f1"),
        (0x20, 6, "65 40 fb 1b"),
        (0x20, 7, "1b d2 ba be"),
    ];
    for (b20, code, crc) in vectors {
        let mut p = golden_peer();
        p.feed(&hex(&format!("{head} {b20:02x} {code:02x} 00 00 {crc}")));
        let want = TerminateRepr::new(TerminateCode::Llp {
            error_type: b20 & 0xF,
            error_code: code,
        });
        assert_eq!(p.events(), vec![Event::TerminateReceived(want)]);
        assert!(p.take_output().is_empty(), "a Terminate is never answered");
        assert_eq!(p.state(), State::Error);
        assert!(p.violations().is_empty());
    }
}

#[test]
fn golden_rfc5040_vectors() {
    // Write: STag 0x12345678, TO 0x1000, 8 octets.
    let mut p = golden_peer();
    let pd = p.config().pd;
    p.memory_mut()
        .register_stag(0x1234_5678, 0x1000, 8, access::REMOTE_WRITE, pd, true)
        .unwrap();
    let mut f = Framer::new(false, true);
    let frame = |f: &mut Framer, u: &[u8]| {
        let mut out = vec![0u8; f.wire_len(u.len() as u16)];
        f.write_fpdu(u, &mut out).unwrap();
        out
    };
    p.feed(&frame(
        &mut f,
        &hex("c1 40 12 34 56 78 00 00 00 00 00 00 10 00 | 00 01 02 03 04 05 06 07"),
    ));
    assert_eq!(
        &p.memory().bytes()[0x1000..0x1008],
        &[0, 1, 2, 3, 4, 5, 6, 7]
    );
    // Send w/ SE & Inv of 0xAABBCCDD, MSN 1, no payload.
    p.memory_mut()
        .register_stag(0xAABB_CCDD, 0x2000, 8, access::REMOTE_WRITE, pd, true)
        .unwrap();
    p.post_recv(9, 0x3000, 0).unwrap();
    p.feed(&frame(
        &mut f,
        &hex("41 46 aa bb cc dd 00 00 00 00 00 00 00 01 00 00 00 00"),
    ));
    assert_eq!(
        p.poll(),
        vec![Completion {
            wr_id: 9,
            queue: Queue::Recv,
            opcode: WcOpcode::Recv,
            status: WcStatus::Success,
            byte_len: 0,
            invalidated_stag: Some(0xAABB_CCDD),
            solicited: true,
        }]
    );
    assert!(p.memory().region(0xAABB_CCDD).is_none());
    assert!(p.violations().is_empty());
    // Read Request for the unregistered SrcSTag 0x55667788: the 70-octet Terminate of §1.8.
    let rrq = "41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00 | 11 22 33 44 | \
               00 00 00 00 00 00 20 00 | 00 00 10 00 | 55 66 77 88 | 00 00 00 00 00 00 80 00";
    p.feed(&frame(&mut f, &hex(rrq)));
    let out = ulpdus(&p.take_output(), false, true);
    assert_eq!(
        out,
        vec![hex(
            "41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 | 01 00 e0 00 | 00 2e | \
             41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00 | 11 22 33 44 00 00 00 00 \
             00 00 20 00 00 00 10 00 55 66 77 88 00 00 00 00 00 00 80 00"
        )]
    );
}

// ------------------------------------------------------------------------------------------
// More receive checks: PD, TO wrap, MSN and MO of the other queues, segmented Read Request,
// the sink's own Read Response check, malformed Terminate.

fn build(msg: &Message) -> Vec<u8> {
    let mut buf = vec![0u8; msg.buffer_len()];
    msg.emit(&mut ddp::Packet::new_unchecked(&mut buf[..]))
        .unwrap();
    buf
}

#[test]
fn other_protection_domain_and_to_wrap() {
    // Write: PD 1/1/0x02, wrap 1/1/0x03. Read: PD 0/1/0x03, wrap 0/1/0x04 (with R).
    for (i, wrap) in [false, true].into_iter().enumerate() {
        let mut t = ErrCase::new(70 + i as u64, plain());
        let pd = t.b.config().pd;
        let (rkey, to) = if wrap {
            (t.b.register(0, 64, access::REMOTE_WRITE), u64::MAX - 3)
        } else {
            let k =
                t.b.memory_mut()
                    .register(0, 64, access::REMOTE_WRITE, pd + 1, true)
                    .unwrap();
            (k, 0)
        };
        t.a.post_write(1, 0, 8, rkey, to).unwrap();
        let (segs, term) = t.run();
        let code = if wrap {
            TaggedBufferCode::ToWrap
        } else {
            TaggedBufferCode::StagNotAssociated
        };
        let want = TerminateRepr::new(TerminateCode::DdpTaggedBuffer(code))
            .with_segment(&segs[0])
            .unwrap();
        t.check(&term, want);

        let mut t = ErrCase::new(80 + i as u64, plain());
        let (rkey, to) = if wrap {
            (t.b.register(0, 64, access::REMOTE_READ), u64::MAX - 3)
        } else {
            let k =
                t.b.memory_mut()
                    .register(0, 64, access::REMOTE_READ, pd + 1, true)
                    .unwrap();
            (k, 0)
        };
        let lkey = t.a.register(0, 64, access::LOCAL_WRITE);
        t.a.post_read(1, lkey, 0, 8, rkey, to).unwrap();
        let (segs, term) = t.run();
        let code = if wrap {
            RemoteProtectionCode::ToWrap
        } else {
            RemoteProtectionCode::StagNotAssociated
        };
        let rrq = ReadRequestRepr {
            sink_stag: lkey,
            sink_to: 0,
            read_size: 8,
            src_stag: rkey,
            src_to: to,
        };
        let want = TerminateRepr::new(TerminateCode::RdmapRemoteProtection(code))
            .with_segment(&segs[0])
            .unwrap()
            .with_rdma_header(rrq);
        t.check(&term, want);
    }
}

#[test]
fn read_request_msn_and_segmentation() {
    let rrq = ReadRequestRepr {
        sink_stag: 1,
        sink_to: 0,
        read_size: 0,
        src_stag: 2,
        src_to: 0,
    };
    let cases = [
        (
            true,
            DdpFields::Untagged { msn: 3, mo: 0 },
            TerminateCode::DdpUntaggedBuffer(UntaggedBufferCode::MsnRange),
        ),
        (
            false,
            DdpFields::Untagged { msn: 1, mo: 0 },
            TerminateCode::DdpUntaggedBuffer(UntaggedBufferCode::InvalidMo),
        ),
        (
            true,
            DdpFields::Untagged { msn: 1, mo: 4 },
            TerminateCode::DdpUntaggedBuffer(UntaggedBufferCode::InvalidMo),
        ),
    ];
    for (i, (last, ddp_fields, code)) in cases.into_iter().enumerate() {
        let mut t = ErrCase::new(90 + i as u64, plain());
        t.a.emit_ulpdu(&build(&Message {
            last,
            ddp: ddp_fields,
            body: Body::RdmaReadRequest(rrq),
        }));
        let (segs, term) = t.run();
        // Not R: these are DDP errors, found before the Read Request header is looked at.
        let want = TerminateRepr::new(code).with_segment(&segs[0]).unwrap();
        t.check(&term, want);
    }
}

#[test]
fn send_wrong_mo() {
    let mut t = ErrCase::new(100, plain());
    t.b.post_recv(1, 0, 64).unwrap();
    t.a.emit_ulpdu(&build(&Message {
        last: false,
        ddp: DdpFields::Untagged { msn: 1, mo: 0 },
        body: Body::Send { payload: b"abcd" },
    }));
    t.a.emit_ulpdu(&build(&Message {
        last: true,
        ddp: DdpFields::Untagged { msn: 1, mo: 5 },
        body: Body::Send { payload: b"efgh" },
    }));
    let (segs, term) = t.run();
    let want = TerminateRepr::new(TerminateCode::DdpUntaggedBuffer(
        UntaggedBufferCode::InvalidMo,
    ))
    .with_segment(&segs[1])
    .unwrap();
    assert_eq!(control_word(&term), 0x1204_C000);
    t.check(&term, want);
}

/// The requester's own check of a Read Response: its sink STag was invalidated meanwhile.
#[test]
fn read_response_to_invalidated_sink() {
    let mut rng = StdRng::seed_from_u64(110);
    let c = PeerConfig { ord: 1, ..plain() };
    let mut a = Peer::new(c);
    let mut b = Peer::new(c.mirrored());
    let rkey = b.register(0, 64, access::REMOTE_READ);
    let lkey = a.register(0, 64, access::LOCAL_WRITE);
    a.post_read(1, lkey, 0, 16, rkey, 0).unwrap();
    // ORD 1: the second Read waits behind the first.
    a.post_read(2, lkey, 32, 16, rkey, 16).unwrap();
    let out = a.take_output();
    feed_cut(&mut rng, &mut b, &out);
    assert!(a.invalidate(lkey));
    let resp = b.take_output();
    let resp_segs = ulpdus(&resp, false, true);
    feed_cut(&mut rng, &mut a, &resp);
    let term = a.take_output();
    let want = TerminateRepr::new(TerminateCode::DdpTaggedBuffer(
        TaggedBufferCode::InvalidStag,
    ))
    .with_segment(&resp_segs[0])
    .unwrap();
    assert_eq!(terminate_of(&ulpdus(&term, false, true)[0]), want);
    let c = a.poll();
    // The Read fails with a local protection error, the unsent Read behind it is flushed.
    assert_eq!(c.len(), 2);
    assert_eq!((c[0].wr_id, c[0].status), (1, WcStatus::LocProtErr));
    assert_eq!((c[1].wr_id, c[1].status), (2, WcStatus::WrFlushErr));
    feed_cut(&mut rng, &mut b, &term);
    assert_eq!(b.events(), vec![Event::TerminateReceived(want)]);
    assert!(b.violations().is_empty());
}

#[test]
fn malformed_terminate_is_not_answered() {
    let mut a = Peer::new(plain());
    let mut b = Peer::new(plain().mirrored());
    // D = 1 but no DDP header follows: too short.
    a.emit_ulpdu(&hex(
        "41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 | 01 00 40 00 | 00 10",
    ));
    b.feed(&a.take_output());
    assert_eq!(b.events(), vec![Event::BadTerminateReceived]);
    assert!(b.take_output().is_empty());
    assert_eq!(b.state(), State::Error);
    // Anything after the peer's Terminate is a violation.
    a.emit_ulpdu(&hex("c1 40 00 00 00 01 00 00 00 00 00 00 00 00"));
    b.feed(&a.take_output());
    assert_eq!(b.violations().len(), 2, "{:?}", b.violations());
    assert_eq!(b.stats().dropped, 1);
}

/// Random operation mixes, random sizes, random configurations: many seeds.
#[test]
fn random_mixes() {
    for seed in 0..24u64 {
        let mut rng = StdRng::seed_from_u64(1000 + seed);
        let markers = (rng.gen_bool(0.5), rng.gen_bool(0.5));
        let crc = (rng.gen_bool(0.5), rng.gen_bool(0.5));
        let mulpdu = rng.gen_range(64..=9000u16);
        let mut c = cfg(crc.0, crc.1, markers.0, markers.1, mulpdu);
        c.ord = rng.gen_range(1..=4);
        c.ird = c.ord;
        let mut a = Peer::new(c);
        let mut b = Peer::new(c.mirrored());
        let mut sa = Side {
            model: (0..MEM).map(|_| rng.gen()).collect(),
            next: 0,
        };
        let mut sb = Side {
            model: (0..MEM).map(|_| rng.gen()).collect(),
            next: 0,
        };
        a.memory_mut().bytes_mut().copy_from_slice(&sa.model);
        b.memory_mut().bytes_mut().copy_from_slice(&sb.model);
        let (mut ea, mut eb) = (Expect::default(), Expect::default());
        for wr_id in 0..40u64 {
            let op = OPS[rng.gen_range(0..OPS.len())];
            let len = if rng.gen_bool(0.3) {
                rng.gen_range(0..8)
            } else {
                rng.gen_range(0..20_000)
            };
            if rng.gen_bool(0.5) {
                post(
                    &mut rng, op, len, wr_id, &mut a, &mut sa, &mut b, &mut sb, &mut ea, &mut eb,
                );
            } else {
                post(
                    &mut rng, op, len, wr_id, &mut b, &mut sb, &mut a, &mut sa, &mut eb, &mut ea,
                );
            }
            if rng.gen_bool(0.3) {
                deliver(&mut rng, &mut a, &mut b);
                deliver(&mut rng, &mut b, &mut a);
            }
        }
        settle(&mut rng, &mut a, &mut b);
        for (p, e, s) in [(&mut a, &ea, &sa), (&mut b, &eb, &sb)] {
            assert_eq!(p.violations(), &[], "seed {seed}");
            assert_eq!(p.events(), vec![], "seed {seed}");
            let mut got = p.poll();
            // Send-queue completions must already be in posting order.
            let sq: Vec<u64> = got
                .iter()
                .filter(|c| c.queue == Queue::Send)
                .map(|c| c.wr_id)
                .collect();
            assert!(sq.windows(2).all(|w| w[0] < w[1]), "seed {seed}");
            let mut want = e.completions.clone();
            got.sort_by_key(|c| (c.queue == Queue::Recv, c.wr_id));
            want.sort_by_key(|c| (c.queue == Queue::Recv, c.wr_id));
            assert_eq!(got, want, "seed {seed}");
            assert!(p.memory().bytes() == &s.model[..], "seed {seed}");
        }
    }
}
