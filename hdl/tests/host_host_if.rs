//! Tests of HostIf (`hdl/src/host/host_if.rs`) on both back ends, against reference models
//! built on `rnic_proto::host`:
//!
//! - `registers_and_strobes`: ID / VERSION / CAPS / STATUS / FEATURES, read-back of every writable
//!   register, the exact `prog_*` strobe of STAG_COMMIT, the exact `qpc_*` strobe of QP_CTRL
//!   (and its reset of the QP's RQ indexes), the SQ doorbell, CQ_LOG2's commit.
//! - `held_access_once`: the MMIO wait state (`mmio_ready` in an access's second cycle): a held
//!   write takes effect once (one strobe, the register written when taken), a held read gives
//!   one `mmio_rvalid`, back-to-back accesses one per two cycles.
//! - `random_traffic`: everything at once under a random DMA port (latency, pieces, stalls):
//!   an RQ requester like RxControl (reads answered with the WQE bytes and `present`, pops
//!   advancing CI, rings wrapping, QP_RQ_CI read back), receive and send CQEs written
//!   byte-exact with the owner bit across wraps (CQ_PI read back), one CQ overflowing
//!   (CQ_STATUS, QP_AEV = CqOverflow, one `qp_err`, later CQEs dropped, other CQs fine),
//!   RdmaRead CQEs routed to `rdc_*`, async events latched first only, SQ / payload reads with
//!   interleaved completions routed by tag, placement packets never interleaved with CQEs.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rnic_hdl::config::{CQS, LOCAL_LEN_BITS, QPS};
use rnic_hdl::host::host_if::{HostIf, RQ_LKEY_BITS};
use rnic_proto::host::{cqe_owner, regs, Cqe, RqWqe, CQE_LEN, RQ_WQE_LEN};
use rnic_proto::verbs::{AsyncEventKind, WcOpcode};
use rnic_sim::dma_port::{DmaConfig, DmaPort};
use rnic_sim::host_mem::{HostMemory, DMA_ADDR_MASK};
use rnic_sim::tb::host_if::{beat_bytes, DmaSide, Mmio};
use rnic_sim::testbench::{run_with_waveform_on_failure, Backend, BackendKind};
use std::collections::{HashMap, VecDeque};

fn set(sim: &mut dyn Backend, name: &str, v: u128) {
    let id = sim.input(name).unwrap();
    sim.set(id, v);
}

fn get(sim: &mut dyn Backend, name: &str) -> u128 {
    let id = sim.output(name).unwrap();
    sim.get(id)
}

/// `rq_rsp_to` for a WQE TO: bits 32..0 exact, bits 63..33 rebuilt from their class (all
/// ones, all ones but bit 33, other non-zero, zero), which is all RxControl looks at.
fn rebuilt_to(to: u64) -> u64 {
    let hi = to >> 33;
    let rebuilt = if hi == (1 << 31) - 1 {
        (1 << 31) - 1
    } else if hi == (1 << 31) - 2 {
        (1 << 31) - 2
    } else if hi != 0 {
        1
    } else {
        0
    };
    (rebuilt << 33) | (to & ((1 << 33) - 1))
}

/// `rq_rsp_lkey` for a WQE lkey: bits 13..0 (key and STag index) exact, bits 31..14 rebuilt
/// from their class (all ones when not all zero), which is all the StagCheck looks at (such an
/// index is `INVALID_STAG`).
fn rebuilt_lkey(lkey: u32) -> u32 {
    if lkey >> RQ_LKEY_BITS != 0 {
        lkey | !LKEY_MASK
    } else {
        lkey
    }
}

/// The lkey's key and STag index bits (HostIf's `RQ_LKEY_BITS`).
const LKEY_MASK: u32 = (1 << RQ_LKEY_BITS) - 1;

/// A WQE TO whose bits 63..33 are in each class now and then.
fn random_to(rng: &mut impl Rng) -> u64 {
    let lo: u64 = rng.gen::<u64>() & ((1 << 33) - 1);
    let hi: u64 = match rng.gen_range(0..6) {
        0 => 0,
        1 => (1 << 31) - 1,
        2 => (1 << 31) - 2,
        3 => 1 << rng.gen_range(0..31),
        _ => rng.gen::<u64>() >> 33,
    };
    (hi << 33) | lo
}

/// The CQ registers `registers` programmed (CQ `c`: BASE `0x6000_0000 + 0x40 c`, LOG2 `2 + c`,
/// CI `7 + c`), no CQE written yet.
fn check_cq_regs(sim: &mut dyn Backend) {
    for cq in 0..CQS {
        let c = cq as u32;
        assert_eq!(
            Mmio::read(sim, regs::cq_reg(cq, regs::CQ_BASE)),
            0x6000_0000 + c * 0x40
        );
        assert_eq!(Mmio::read(sim, regs::cq_reg(cq, regs::CQ_LOG2)), 2 + c);
        assert_eq!(Mmio::read(sim, regs::cq_reg(cq, regs::CQ_CI)), 7 + c);
        assert_eq!(Mmio::read(sim, regs::cq_reg(cq, regs::CQ_PI)), 0);
        assert_eq!(Mmio::read(sim, regs::cq_reg(cq, regs::CQ_STATUS)), 0);
    }
}

fn registers(sim: &mut dyn Backend) {
    sim.tick();
    assert_eq!(Mmio::read(sim, regs::ID), regs::ID_VALUE);
    assert_eq!(Mmio::read(sim, regs::VERSION), regs::VERSION_VALUE);
    // CAPS: QPs [7:0], CQs [15:8] (one per QP), STag index bits, the datapath's octets.
    assert_eq!(
        Mmio::read(sim, regs::CAPS),
        0x0406_0000 | (CQS as u32) << 8 | QPS as u32
    );
    // FEATURES: the build's capabilities (markers unless `no-markers`, the host address bits
    // and the local length bits: 24 in the Cu profile, 32 otherwise; the ring index bits: 12
    // in the Cu profile, 16 otherwise), read only; the other constant words of the global
    // block read 0.
    let features = if rnic_hdl::config::MARKERS {
        regs::FEATURES_MARKERS
    } else {
        0
    } | (rnic_hdl::config::DMA_ADDR_BITS as u32) << regs::FEATURES_DMA_ADDR_SHIFT
        | (rnic_hdl::config::RING_INDEX_BITS as u32) << regs::FEATURES_RING_INDEX_SHIFT
        | (LOCAL_LEN_BITS as u32) << regs::FEATURES_LEN_SHIFT;
    assert_eq!(
        regs::features_dma_addr_bits(features),
        rnic_hdl::config::DMA_ADDR_BITS as u32
    );
    assert_eq!(
        regs::features_ring_index_bits(features),
        if cfg!(feature = "two-qps") { 12 } else { 16 }
    );
    assert_eq!(regs::features_len_bits(features), LOCAL_LEN_BITS as u32);
    assert_eq!(Mmio::read(sim, regs::FEATURES), features);
    Mmio::write(sim, regs::FEATURES, !features);
    assert_eq!(Mmio::read(sim, regs::FEATURES), features);
    for a in [0x14, 0x18, 0x1C] {
        assert_eq!(Mmio::read(sim, a), 0, "global word {a:#x}");
    }
    for (rx, tx) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
        set(sim, "rx_idle", rx);
        set(sim, "tx_idle", tx);
        // STATUS shows the idle inputs of the cycle before the read's first (HostIf
        // `idle_q`, registered for timing).
        sim.tick();
        assert_eq!(Mmio::read(sim, regs::STATUS), (rx | tx << 1) as u32);
    }
    assert_eq!(get(sim, "idle"), 1);

    // STag staging and commit: exactly one prog_write, in the commit write's cycle, with the
    // index and the fields of the table's word 1 (base TO [31:16], length [31:16], and the host
    // address: the commit's own data); in the next cycle (StagCheck writes word 0 then) the
    // index and all fields but the host address. The base TO's and the length's halves are
    // paired (STAG_TO_LEN_LO / _HI, register map 2.0); 0x054 (STAG_HOST_ADDR in 1.0) is
    // unmapped.
    let flags = 0xA5
        | 3 << 8
        | 0xB << 12
        | regs::STAG_FLAGS_VALID
        | regs::STAG_FLAGS_REMOTE_INV
        | (QPS as u32 / 2) << regs::STAG_FLAGS_QP_SHIFT;
    let (to, len) = (0x5566_7788_1122_3344u64, 0x0001_0203u32);
    Mmio::write(sim, regs::STAG_INDEX, 0x2B);
    Mmio::write(sim, regs::STAG_FLAGS, flags);
    Mmio::write(sim, regs::STAG_TO_LEN_LO, regs::stag_to_len_lo(to, len));
    Mmio::write(sim, regs::STAG_BASE_TO_HI, (to >> 32) as u32);
    Mmio::write(sim, regs::STAG_TO_LEN_HI, regs::stag_to_len_hi(to, len));
    Mmio::write(sim, 0x054, 0x8000_1000);
    assert_eq!(get(sim, "prog_write"), 0);
    assert_eq!(Mmio::read(sim, regs::STAG_INDEX), 0x2B);
    assert_eq!(Mmio::read(sim, regs::STAG_FLAGS), flags);
    assert_eq!(Mmio::read(sim, regs::STAG_TO_LEN_LO), 0x0203_3344);
    assert_eq!(Mmio::read(sim, regs::STAG_BASE_TO_HI), 0x5566_7788);
    assert_eq!(Mmio::read(sim, regs::STAG_TO_LEN_HI), 0x0001_1122);
    assert_eq!(Mmio::read(sim, 0x054), 0);
    // The commit's wait cycle: nothing yet.
    Mmio::set_write(sim, regs::STAG_COMMIT, 0x8000_1000);
    assert!(!Mmio::ready(sim));
    assert_eq!(get(sim, "prog_write"), 0);
    sim.tick();
    assert!(Mmio::ready(sim));
    let want = [
        ("prog_write", 1),
        ("prog_index", 0x2B),
        ("prog_valid", 1),
        ("prog_key", 0xA5),
        ("prog_pd", 3),
        ("prog_access", 0xB),
        ("prog_qp_bound", 0),
        ("prog_qp", QPS as u128 / 2),
        ("prog_remote_inv", 1),
        // STAG_BASE_TO_HI != 0 as bit 32 (the Cu table programs such an entry invalid).
        ("prog_base_to", 0x1_1122_3344),
        ("prog_len", 0x0001_0203),
        // The host address at the core's width (24 bits in the Cu profile).
        ("prog_host_addr", u128::from(0x8000_1000 & DMA_ADDR_MASK)),
    ];
    for (n, v) in want {
        match n {
            "prog_write" | "prog_index" | "prog_host_addr" => assert_eq!(get(sim, n), v, "{n}"),
            "prog_base_to" | "prog_len" => assert_eq!(get(sim, n) >> 16, v >> 16, "{n}"),
            _ => {}
        }
    }
    sim.tick();
    // The next MMIO write (a staging register) takes effect only at the end of the cycle it is
    // taken in (the next: this is its wait cycle).
    Mmio::set_write(sim, regs::STAG_TO_LEN_HI, 0x1234_5678);
    for (n, v) in want {
        let v = if n == "prog_write" { 0 } else { v };
        if n != "prog_host_addr" {
            assert_eq!(get(sim, n), v, "{n} in the cycle after the commit");
        }
    }
    Mmio::hold(sim);
    assert_eq!(get(sim, "prog_write"), 0);
    assert_eq!(get(sim, "prog_len") >> 16, 0x1234);
    assert_eq!(get(sim, "prog_base_to") >> 16 & 0xFFFF, 0x5678);
    assert_eq!(get(sim, "idle"), 1);

    // Per-QP registers and the commit.
    for qp in 0..QPS {
        let q = qp as u32;
        Mmio::write(
            sim,
            regs::qp_reg(qp, regs::QP_ULPDU),
            (0x1000 + q) | ((0x2000 + q) << 16),
        );
        // QP_SQ_BASE: the base [31:5] and the log2 [3:0] (register map 2.0; 0x0C unmapped).
        Mmio::write(
            sim,
            regs::qp_reg(qp, regs::QP_SQ_BASE),
            regs::qp_sq_base(0x4000_0000 + q * 0x1000, 3 + q),
        );
        Mmio::write(sim, regs::qp_reg(qp, 0x0C), 0xA);
        Mmio::write(
            sim,
            regs::qp_reg(qp, regs::QP_RQ_BASE),
            0x5000_0000 + q * 0x100,
        );
        Mmio::write(sim, regs::qp_reg(qp, regs::QP_RQ_LOG2), 9 + q);
        Mmio::write(sim, regs::qp_reg(qp, regs::QP_RQ_PI), 0x100 + q);
    }
    for qp in 0..QPS {
        let q = qp as u32;
        assert_eq!(
            Mmio::read(sim, regs::qp_reg(qp, regs::QP_ULPDU)),
            (0x1000 + q) | ((0x2000 + q) << 16)
        );
        assert_eq!(
            Mmio::read(sim, regs::qp_reg(qp, regs::QP_SQ_BASE)),
            0x4000_0000 + q * 0x1000 + 3 + q
        );
        assert_eq!(Mmio::read(sim, regs::qp_reg(qp, 0x0C)), 0);
        assert_eq!(
            Mmio::read(sim, regs::qp_reg(qp, regs::QP_RQ_BASE)),
            0x5000_0000 + q * 0x100
        );
        assert_eq!(Mmio::read(sim, regs::qp_reg(qp, regs::QP_RQ_LOG2)), 9 + q);
        assert_eq!(Mmio::read(sim, regs::qp_reg(qp, regs::QP_RQ_PI)), 0x100 + q);
        assert_eq!(Mmio::read(sim, regs::qp_reg(qp, regs::QP_RQ_CI)), 0);
        assert_eq!(Mmio::read(sim, regs::qp_reg(qp, regs::QP_AEV)), 0);
        assert_eq!(Mmio::read(sim, regs::qp_reg(qp, regs::QP_STATUS)), 0);
    }
    for qp in [2usize, 0, 3, 1].into_iter().filter(|&qp| qp < QPS) {
        let q = qp as u32;
        let ctrl = regs::QP_CTRL_ENABLE
            | if qp & 1 == 1 {
                regs::QP_CTRL_FPDU_MODE | regs::QP_CTRL_RX_CRC
            } else {
                0
            }
            | if qp >= 2 {
                regs::QP_CTRL_RX_MARKERS | regs::QP_CTRL_TX_CRC
            } else {
                0
            }
            | if qp == 3 { regs::QP_CTRL_TX_MARKERS } else { 0 }
            | (5 + q) << regs::QP_CTRL_PD_SHIFT
            | (q + 1) << regs::QP_CTRL_IRD_SHIFT
            | (8 - q) << regs::QP_CTRL_ORD_SHIFT
            | q << regs::QP_CTRL_SEND_CQ_SHIFT
            | (3 - q) << regs::QP_CTRL_RECV_CQ_SHIFT;
        Mmio::write(sim, regs::qp_reg(qp, regs::QP_CTRL), ctrl);
        let want = [
            ("qpc_write", 1),
            ("qpc_qp", qp as u128),
            ("qpc_enable", 1),
            ("qpc_fpdu_mode", (qp & 1) as u128),
            ("qpc_rx_crc", (qp & 1) as u128),
            ("qpc_rx_markers", u128::from(qp >= 2)),
            ("qpc_tx_crc", u128::from(qp >= 2)),
            ("qpc_tx_markers", u128::from(qp == 3)),
            ("qpc_pd", 5 + qp as u128),
            ("qpc_ird", qp as u128 + 1),
            ("qpc_ord", 8 - qp as u128),
            ("qpc_rx_max_ulpdu", 0x1000 + qp as u128),
            ("qpc_tx_mulpdu", 0x2000 + qp as u128),
            ("qpc_sq_base", 0x4000_0000 + qp as u128 * 0x1000),
            ("qpc_sq_log2", 3 + qp as u128),
        ];
        for (n, v) in want {
            assert_eq!(get(sim, n), v, "QP {qp}: {n}");
        }
        sim.tick();
        assert_eq!(get(sim, "qpc_write"), 0);
        assert_eq!(Mmio::read(sim, regs::qp_reg(qp, regs::QP_CTRL)), ctrl);
        // The commit reset the QP's RQ producer index.
        assert_eq!(Mmio::read(sim, regs::qp_reg(qp, regs::QP_RQ_PI)), 0);
    }
    assert_eq!(Mmio::read(sim, regs::qp_reg(1, regs::QP_RQ_PI)), 0);

    // QP `qa`: 2 (1 with 2 QPs).
    let qa = QPS / 2;
    // SQ doorbell: one cycle, then a QP_CTRL write right after it keeps the order. The index
    // has the ring index width (12 bits in the Cu profile): the bits above are ignored.
    let ring_mask = (1u32 << rnic_hdl::config::RING_INDEX_BITS) - 1;
    Mmio::write(sim, regs::qp_reg(qa, regs::QP_SQ_PI), 0x1_ABCD);
    assert_eq!(
        (
            get(sim, "sq_db_valid"),
            get(sim, "sq_db_qp"),
            get(sim, "sq_db_pi")
        ),
        (1, qa as u128, u128::from(0xABCD & ring_mask))
    );
    assert_eq!(get(sim, "qpc_write"), 0);
    Mmio::write(sim, regs::qp_reg(1, regs::QP_CTRL), 0);
    assert_eq!((get(sim, "sq_db_valid"), get(sim, "qpc_write")), (0, 1));
    sim.tick();
    assert_eq!((get(sim, "sq_db_valid"), get(sim, "qpc_write")), (0, 0));

    // QP_STATUS_FPDU_RECEIVED (the Responder's send fence, RFC 5044 §7.1.2): set by RxPath's
    // strobe for its connection only, kept, cleared by that QP's QP_CTRL write.
    set(sim, "fpdu_good_valid", 1);
    set(sim, "fpdu_good_conn", qa as u128);
    sim.tick();
    set(sim, "fpdu_good_valid", 0);
    set(sim, "fpdu_good_conn", 0);
    sim.tick();
    for qp in 0..QPS {
        let want = if qp == qa {
            regs::QP_STATUS_FPDU_RECEIVED
        } else {
            0
        };
        assert_eq!(
            Mmio::read(sim, regs::qp_reg(qp, regs::QP_STATUS)),
            want,
            "QP {qp}"
        );
    }
    // A strobe of another connection in the cycle of QP qa's commit: QP qa clears, QP 0 sets.
    set(sim, "fpdu_good_valid", 1);
    Mmio::write(sim, regs::qp_reg(qa, regs::QP_CTRL), 0);
    set(sim, "fpdu_good_valid", 0);
    sim.tick();
    assert_eq!(Mmio::read(sim, regs::qp_reg(qa, regs::QP_STATUS)), 0);
    assert_eq!(
        Mmio::read(sim, regs::qp_reg(0, regs::QP_STATUS)),
        regs::QP_STATUS_FPDU_RECEIVED
    );
    // The same connection's strobe in the cycle of its commit belongs to the old context.
    set(sim, "fpdu_good_valid", 1);
    Mmio::write(sim, regs::qp_reg(0, regs::QP_CTRL), 0);
    set(sim, "fpdu_good_valid", 0);
    sim.tick();
    assert_eq!(Mmio::read(sim, regs::qp_reg(0, regs::QP_STATUS)), 0);

    // CQ registers.
    for cq in 0..CQS {
        let c = cq as u32;
        Mmio::write(sim, regs::cq_reg(cq, regs::CQ_BASE), 0x6000_0000 + c * 0x40);
        Mmio::write(sim, regs::cq_reg(cq, regs::CQ_LOG2), 2 + c);
        Mmio::write(sim, regs::cq_reg(cq, regs::CQ_CI), 7 + c);
    }
    check_cq_regs(sim);
    // The register windows of CQs the core does not have (CQ_REGS holds `rnic_proto::host::CQS`;
    // 2 CQs with 2 QPs)
    // decode as nothing: they read 0 and a write changes no CQ's register.
    #[allow(clippy::reversed_empty_ranges)] // no absent CQ windows at 4 CQs
    for cq in CQS..rnic_proto::host::CQS {
        for (off, v) in [
            (regs::CQ_BASE, 0x7000_0000),
            (regs::CQ_LOG2, 9),
            (regs::CQ_CI, 0x55),
        ] {
            Mmio::write(sim, regs::cq_reg(cq, off), v);
            assert_eq!(
                Mmio::read(sim, regs::cq_reg(cq, off)),
                0,
                "CQ {cq} {off:#x}"
            );
        }
        for off in [regs::CQ_PI, regs::CQ_STATUS] {
            assert_eq!(
                Mmio::read(sim, regs::cq_reg(cq, off)),
                0,
                "CQ {cq} {off:#x}"
            );
        }
    }
    check_cq_regs(sim);
    Mmio::write(sim, regs::cq_reg(1, regs::CQ_LOG2), 4);
    assert_eq!(Mmio::read(sim, regs::cq_reg(1, regs::CQ_CI)), 0);
    // The SQ base is still there (one RAM holds every base).
    assert_eq!(
        Mmio::read(sim, regs::qp_reg(QPS - 1, regs::QP_SQ_BASE)),
        0x4000_0000 + (QPS as u32 - 1) * 0x1000 + 2 + QPS as u32
    );
    // Only the implemented bits are kept (masked at the write into the register RAM: the RQ PI
    // and the CQ CI at the ring index width, 12 bits in the Cu profile); QP_RQ_CI and CQ_PI (in
    // the RAM too, written by the engines) ignore MMIO writes.
    for (addr, want) in [
        (regs::STAG_INDEX, 0x3F),
        (
            regs::STAG_FLAGS,
            0x0007_FFFF | (QPS as u32 - 1) << regs::STAG_FLAGS_QP_SHIFT,
        ),
        (regs::qp_reg(1, regs::QP_CTRL), 0x00FF_FFFF),
        (regs::qp_reg(1, regs::QP_RQ_LOG2), 0xF),
        (regs::qp_reg(1, 0x0C), 0),
        (regs::qp_reg(1, regs::QP_RQ_PI), ring_mask),
        (regs::qp_reg(1, regs::QP_RQ_CI), 0),
        (regs::qp_reg(1, regs::QP_SQ_PI), 0),
        (regs::cq_reg(CQS - 2, regs::CQ_PI), 0),
        (regs::cq_reg(CQS - 2, regs::CQ_CI), ring_mask),
        (regs::cq_reg(CQS - 1, regs::CQ_LOG2), 0xF),
        (0x054, 0),
        (regs::STAG_COMMIT, 0),
    ] {
        Mmio::write(sim, addr, 0xFFFF_FFFF);
        assert_eq!(Mmio::read(sim, addr), want, "register {addr:#x}");
    }
    // Unmapped addresses read 0.
    assert_eq!(Mmio::read(sim, 0x3F0), 0);
    assert_eq!(Mmio::read(sim, 0x05C), 0);
    assert_eq!(get(sim, "idle"), 1);
}

#[test]
fn registers_and_strobes() {
    for kind in BackendKind::ALL {
        run_with_waveform_on_failure(
            "host_if_registers",
            || kind.build(HostIf::default()),
            registers,
        );
    }
}

/// Presents the access for `cycles` cycles from now (ticking), recording per cycle
/// (`mmio_ready`, `sq_db_valid`, `qpc_write`, `prog_write`, `mmio_rvalid`) after each edge, then
/// drops it and records `tail` more cycles.
fn held(sim: &mut dyn Backend, cycles: usize, tail: usize) -> Vec<[u128; 5]> {
    let mut log = Vec::new();
    for c in 0..cycles + tail {
        if c == cycles {
            Mmio::clear(sim);
        }
        let ready = get(sim, "mmio_ready");
        sim.tick();
        log.push([
            ready,
            get(sim, "sq_db_valid"),
            get(sim, "qpc_write"),
            get(sim, "prog_write"),
            get(sim, "mmio_rvalid"),
        ]);
    }
    log
}

fn held_access(sim: &mut dyn Backend) {
    sim.tick();
    // Idle: no wait state pending, ready low.
    assert_eq!(get(sim, "mmio_ready"), 0);
    // A doorbell held two cycles: ready low in the first (the wait state), high in the second,
    // where it is taken; one strobe, in the cycle after.
    Mmio::set_write(sim, regs::qp_reg(0, regs::QP_SQ_PI), 5);
    let log = held(sim, 2, 3);
    let ready: Vec<u128> = log.iter().map(|l| l[0]).collect();
    let db: Vec<u128> = log.iter().map(|l| l[1]).collect();
    assert_eq!(ready, [0, 1, 0, 0, 0], "mmio_ready of a held write");
    assert_eq!(db, [0, 1, 0, 0, 0], "sq_db_valid of a held write");
    assert_eq!(get(sim, "sq_db_pi"), 5);
    // Held four cycles (the master keeps `mmio_valid`): two accesses, two strobes, one per two
    // cycles.
    Mmio::set_write(sim, regs::qp_reg(0, regs::QP_SQ_PI), 6);
    let log = held(sim, 4, 3);
    let ready: Vec<u128> = log.iter().map(|l| l[0]).collect();
    let db: Vec<u128> = log.iter().map(|l| l[1]).collect();
    assert_eq!(ready, [0, 1, 0, 1, 0, 0, 0], "mmio_ready, back to back");
    assert_eq!(db, [0, 1, 0, 1, 0, 0, 0], "sq_db_valid, back to back");
    // QP_CTRL and STAG_COMMIT: one strobe each (`prog_write` in the cycle the commit is taken,
    // `qpc_write` in the next).
    Mmio::set_write(sim, regs::qp_reg(0, regs::QP_CTRL), 1);
    let log = held(sim, 2, 3);
    let qpc: Vec<u128> = log.iter().map(|l| l[2]).collect();
    assert_eq!(qpc, [0, 1, 0, 0, 0], "qpc_write of a held QP_CTRL write");
    Mmio::set_write(sim, regs::STAG_COMMIT, 0x1000);
    assert_eq!(get(sim, "prog_write"), 0);
    let mut prog = Vec::new();
    for c in 0..5 {
        if c == 2 {
            Mmio::clear(sim);
        }
        prog.push(get(sim, "prog_write"));
        sim.tick();
    }
    assert_eq!(prog, [0, 1, 0, 0, 0], "prog_write of a held STAG_COMMIT");
    // A register write under ready low has not taken effect: STAG_INDEX (`prog_index`) changes
    // only at the edge where the write is taken.
    Mmio::write(sim, regs::STAG_INDEX, 0x11);
    assert_eq!(get(sim, "prog_index"), 0x11);
    Mmio::set_write(sim, regs::STAG_INDEX, 0x22);
    assert!(!Mmio::ready(sim));
    sim.tick();
    assert_eq!(get(sim, "prog_index"), 0x11, "a write in its wait cycle");
    assert!(Mmio::ready(sim));
    sim.tick();
    assert_eq!(get(sim, "prog_index"), 0x22);
    Mmio::clear(sim);
    // A held read: one `mmio_rvalid`, in the cycle after it is taken, with the data.
    Mmio::set_read(sim, regs::STAG_INDEX);
    let mut rv = Vec::new();
    for c in 0..5 {
        if c == 2 {
            Mmio::clear(sim);
        }
        let ready = get(sim, "mmio_ready");
        sim.tick();
        rv.push((ready, get(sim, "mmio_rvalid")));
        if get(sim, "mmio_rvalid") == 1 {
            assert_eq!(get(sim, "mmio_rdata"), 0x22);
        }
    }
    assert_eq!(rv, [(0, 0), (1, 1), (0, 0), (0, 0), (0, 0)], "a held read");
    // Two reads back to back (held four cycles): two `mmio_rvalid`s.
    Mmio::set_read(sim, regs::ID);
    let log = held(sim, 4, 2);
    let rvalid: Vec<u128> = log.iter().map(|l| l[4]).collect();
    assert_eq!(rvalid, [0, 1, 0, 1, 0, 0], "mmio_rvalid, back to back");
}

#[test]
fn held_access_once() {
    for kind in BackendKind::ALL {
        run_with_waveform_on_failure(
            "host_if_held_access",
            || kind.build(HostIf::default()),
            held_access,
        );
    }
}

// ---------------------------------------------------------------------------------------
// Random traffic.

const RQ_BASE: u32 = 0x0010_0000;
const CQ_BASE: u32 = 0x0020_0000;
const RD_AREA: u32 = 0x0030_0000;
const PLACE_AREA: u32 = 0x0040_0000;
const RQ_LOG2: u32 = 3;

/// A CQE source's pending entry.
#[derive(Clone, Debug)]
struct PendCqe {
    qp: usize,
    cqe: Cqe,
}

struct ReqModel {
    name: &'static str,
    sub: u128,
    pending: Option<(u32, usize, u8)>,
    free_tags: Vec<u8>,
    inflight: HashMap<u8, (u32, usize, Vec<u8>)>,
    done: usize,
}

impl ReqModel {
    fn new(name: &'static str, sub: u128) -> Self {
        ReqModel {
            name,
            sub,
            pending: None,
            free_tags: (0..8).collect(),
            inflight: HashMap::new(),
            done: 0,
        }
    }
}

struct Cfg {
    cycles: u64,
    dma: DmaConfig,
}

/// Presents the traffic's MMIO access `(address, write, data)` (held until taken).
fn present(sim: &mut dyn Backend, (a, w, d): (u16, bool, u32)) {
    if w {
        Mmio::set_write(sim, a, d);
    } else {
        Mmio::set_read(sim, a);
    }
}

fn traffic(sim: &mut dyn Backend, seed: u64, cfg: &Cfg) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut mem = HostMemory::new();
    mem.allow_device(RQ_BASE, 0x1000, true, false);
    mem.allow_device(RD_AREA, 0x10000, true, false);
    mem.allow_device(CQ_BASE, 0x1000, false, true);
    mem.allow_device(PLACE_AREA, 0x10000, false, true);
    let rd_bytes: Vec<u8> = (0..0x10000u32).map(|i| (i * 7 + (i >> 8)) as u8).collect();
    mem.write(RD_AREA, &rd_bytes);
    let mut dma = DmaSide::new(DmaPort::new(cfg.dma, seed), mem);
    let cq_log2 = [5u32, 6, 5, 2];
    // QP q: send CQ, recv CQ. The last CQ (the last QP's only) is never consumed and
    // overflows. With 2 CQs (2 QPs) QP 0 has CQ 0 for both.
    let mut send_cq = [0usize, 1, 2, 3];
    let mut recv_cq = [1usize, 0, 2, 3];
    if CQS == 2 {
        recv_cq[0] = 0;
    }
    send_cq[QPS - 1] = CQS - 1;
    recv_cq[QPS - 1] = CQS - 1;
    sim.tick();
    for (cq, &log2) in cq_log2.iter().enumerate().take(CQS) {
        Mmio::write(
            sim,
            regs::cq_reg(cq, regs::CQ_BASE),
            CQ_BASE + cq as u32 * 0x400,
        );
        Mmio::write(sim, regs::cq_reg(cq, regs::CQ_LOG2), log2);
    }
    for qp in 0..QPS {
        Mmio::write(
            sim,
            regs::qp_reg(qp, regs::QP_RQ_BASE),
            RQ_BASE + qp as u32 * 0x100,
        );
        Mmio::write(sim, regs::qp_reg(qp, regs::QP_RQ_LOG2), RQ_LOG2);
        let ctrl = regs::QP_CTRL_ENABLE
            | (send_cq[qp] as u32) << regs::QP_CTRL_SEND_CQ_SHIFT
            | (recv_cq[qp] as u32) << regs::QP_CTRL_RECV_CQ_SHIFT;
        Mmio::write(sim, regs::qp_reg(qp, regs::QP_CTRL), ctrl);
    }
    sim.tick();
    assert_eq!(get(sim, "idle"), 1);

    // Models.
    let rq_size = 1u16 << RQ_LOG2;
    let mut rq_pi = [0u16; 4];
    let mut rq_ci = [0u16; 4];
    let mut rq_wqes: [HashMap<u16, RqWqe>; 4] = Default::default();
    // qp, ci, present, cycle issued, the QP's previous request was a pop.
    let mut rq_wait: Option<(usize, u16, bool, u64, bool)> = None;
    let mut rq_must_pop = [false; 4];
    let mut rq_popped = [false; 4];
    let (mut rq_answers, mut rq_present, mut rq_pops, mut rq_hits) = (0, 0, 0, 0);
    // Every QP's RQ read once while empty: answered with `present = 0` (not from the answer
    // registers), whether or not the random reads below find an empty RQ.
    for qp in 0..QPS {
        assert_eq!(get(sim, "rq_req_ready"), 1);
        set(sim, "rq_req_valid", 1);
        set(sim, "rq_req_qp", qp as u128);
        set(sim, "rq_req_pop", 0);
        sim.tick();
        set(sim, "rq_req_valid", 0);
        let mut waited = 0;
        while get(sim, "rq_rsp_valid") == 0 {
            assert!(waited < 20, "QP {qp}: no answer to an empty RQ's read");
            sim.tick();
            waited += 1;
        }
        assert!(
            waited > 0,
            "QP {qp}: an empty RQ answered from the registers"
        );
        assert_eq!(get(sim, "rq_rsp_present"), 0, "QP {qp}: empty RQ");
        rq_answers += 1;
        sim.tick();
    }
    // Reads right after a pop answered in one cycle: the head WQE prefetched after the pop.
    let mut rq_pf_hits = 0;
    let mut cq_pi = [0u16; 4];
    let mut cq_ci = [0u16; 4];
    let mut cq_ovf = [false; 4];
    let mut aev: [Option<u32>; 4] = [None; 4];
    // RxPath's event on offer (held until `aev_ready`: taken in a cycle without MMIO access).
    let mut aev_pend: Option<(usize, u32)> = None;
    let mut aev_waits = 0usize;
    let mut qp_errs: Vec<usize> = Vec::new();
    let mut rx_src: Option<PendCqe> = None;
    let mut tx_src: Option<PendCqe> = None;
    // The receive CQE's beats as the CqeQueue gives them: the next beat, and whether it is
    // offered (held until taken).
    let mut rx_beat = 0usize;
    let mut rx_bv = false;
    let mut rx_beats_taken = 0usize;
    let mut written = [0usize; 4];
    let mut dropped = 0;
    let mut rdc_seen = 0;
    let mut reqs = [ReqModel::new("sq", 1), ReqModel::new("pay", 2)];
    let mut place: VecDeque<Vec<(u32, u32, u8)>> = VecDeque::new();
    let mut place_sent: Vec<Vec<(u32, u32, u8)>> = Vec::new();
    let mut place_beat = 0usize;
    let mut place_addr = PLACE_AREA;
    let mut next_idx = 0u16;
    let mut mmio_reads: VecDeque<(u16, u32)> = VecDeque::new();
    // The MMIO access on the port (address, write, data), held until taken (`mmio_ready`).
    let mut mmio_pend: Option<(u16, bool, u32)> = None;
    let mut read_checks = 0;

    for cyc in 0..cfg.cycles {
        let winding_down = cyc + 3000 > cfg.cycles;
        // ---- CQE sources.
        // Quiet windows (no new CQEs) let the driver consume the CQs.
        let quiet = cyc % 128 >= 96;
        if rx_src.is_none() && !winding_down && !quiet && rng.gen_bool(0.3) {
            let qp = rng.gen_range(0..QPS);
            let read = rng.gen_bool(0.2);
            let with_inv = rng.gen_bool(0.3);
            next_idx = next_idx.wrapping_add(1);
            rx_src = Some(PendCqe {
                qp,
                cqe: Cqe {
                    wqe_index: if read { 0 } else { next_idx },
                    opcode: if read {
                        WcOpcode::RdmaRead as u8
                    } else {
                        WcOpcode::Recv as u8
                    },
                    status: rng.gen_range(0..3),
                    byte_len: rng.gen(),
                    inv_stag: if with_inv { rng.gen() } else { 0 },
                    qp: qp as u8,
                    flags: u8::from(with_inv) | u8::from(rng.gen_bool(0.3)) << 1,
                    owner: false,
                },
            });
        }
        if tx_src.is_none() && !winding_down && !quiet && rng.gen_bool(0.3) {
            let qp = rng.gen_range(0..QPS);
            next_idx = next_idx.wrapping_add(1);
            tx_src = Some(PendCqe {
                qp,
                cqe: Cqe {
                    wqe_index: next_idx,
                    opcode: [WcOpcode::Send, WcOpcode::RdmaWrite, WcOpcode::RdmaRead]
                        [rng.gen_range(0..3)] as u8,
                    status: rng.gen_range(0..3),
                    byte_len: rng.gen(),
                    inv_stag: 0,
                    qp: qp as u8,
                    flags: 0,
                    owner: false,
                },
            });
        }
        match &rx_src {
            Some(p) => {
                let go = get(sim, "cqe_go") == 1;
                set(sim, "cqe_valid", 1);
                set(sim, "cqe_qp", p.qp as u128);
                // After `cqe_go` the CqeQueue's read port shows the beats: any opcode.
                set(
                    sim,
                    "cqe_opcode",
                    if go {
                        WcOpcode::RdmaRead as u128
                    } else {
                        u128::from(p.cqe.opcode)
                    },
                );
                set(sim, "cqe_status", u128::from(p.cqe.status));
                if go && rx_beat < 4 && !rx_bv {
                    rx_bv = rng.gen_bool(0.5);
                }
                let c = &p.cqe;
                let beat = match rx_beat {
                    0 => {
                        u32::from(c.wqe_index) << 16
                            | u32::from(c.opcode) << 8
                            | u32::from(c.status)
                    }
                    1 => c.byte_len,
                    2 => c.inv_stag,
                    _ => {
                        u32::from(c.flags & 1) << 16
                            | u32::from(c.flags >> 1 & 1) << 17
                            | (p.qp as u32) << 24
                    }
                };
                set(sim, "cqe_beat_valid", u128::from(rx_bv));
                set(sim, "cqe_beat", u128::from(beat));
            }
            None => {
                set(sim, "cqe_valid", 0);
                set(sim, "cqe_beat_valid", 0);
            }
        }
        match &tx_src {
            Some(p) => {
                set(sim, "scqe_valid", 1);
                set(sim, "scqe_qp", p.qp as u128);
                set(sim, "scqe_opcode", u128::from(p.cqe.opcode));
                set(sim, "scqe_status", u128::from(p.cqe.status));
                set(sim, "scqe_byte_len", u128::from(p.cqe.byte_len));
                set(sim, "scqe_index", u128::from(p.cqe.wqe_index));
            }
            None => set(sim, "scqe_valid", 0),
        }
        let rdc_ready = rng.gen_bool(0.5);
        set(sim, "rdc_ready", u128::from(rdc_ready));

        // ---- Async events (all QPs but the last, whose event is its CQ overflow).
        if aev_pend.is_none() && !winding_down && rng.gen_bool(0.004) {
            let qp = rng.gen_range(0..QPS - 1);
            let v = (rng.gen_range(1..4u32) << 16) | rng.gen_range(0..0x10000u32);
            aev_pend = Some((qp, v));
        }
        let aev_now = if let Some((qp, v)) = aev_pend {
            set(sim, "aev_valid", 1);
            set(sim, "aev_qp", qp as u128);
            set(sim, "aev_kind", u128::from(v >> 16));
            set(sim, "aev_layer", u128::from(v >> 12 & 0xF));
            set(sim, "aev_etype", u128::from(v >> 8 & 0xF));
            set(sim, "aev_code", u128::from(v & 0xFF));
            Some((qp, v))
        } else {
            set(sim, "aev_valid", 0);
            None
        };

        // ---- MMIO: RQ doorbells, CQ consumption, read-backs.
        Mmio::clear(sim);

        let mut mmio_busy = false;
        if let Some(p) = mmio_pend {
            present(sim, p);
            mmio_busy = true;
        }
        if rng.gen_bool(0.05) && !mmio_busy {
            let qp = rng.gen_range(0..QPS);
            let room = rq_size - (rq_pi[qp].wrapping_sub(rq_ci[qp]));
            if room > 0 && rq_wait.is_none() && !winding_down {
                let n = rng.gen_range(1..=room);
                for _ in 0..n {
                    let w = RqWqe {
                        // Below `1 << LOCAL_LEN_BITS` (24 bits in the Cu profile: the driver
                        // posts none longer, FEATURES [31:24]).
                        length: rng.gen::<u32>() >> (32 - LOCAL_LEN_BITS),
                        // An lkey of the table (bits 31..14 zero) half the time, chosen by
                        // the drawn word's bit 31 (one draw, as before the choice: the rest of
                        // the random stream, which is tuned to overflow only the last CQ,
                        // stays as it was).
                        lkey: {
                            let k: u32 = rng.gen();
                            if k >> 31 == 0 {
                                k & LKEY_MASK
                            } else {
                                k
                            }
                        },
                        addr: random_to(&mut rng),
                    };
                    let slot = u32::from(rq_pi[qp] % rq_size);
                    dma.mem.write(
                        RQ_BASE + qp as u32 * 0x100 + slot * RQ_WQE_LEN as u32,
                        &w.emit(),
                    );
                    rq_wqes[qp].insert(rq_pi[qp], w);
                    rq_pi[qp] = rq_pi[qp].wrapping_add(1);
                }
                let a = regs::qp_reg(qp, regs::QP_RQ_PI);
                Mmio::set_write(sim, a, u32::from(rq_pi[qp]));
                mmio_pend = Some((a, true, u32::from(rq_pi[qp])));
                mmio_busy = true;
            }
        }
        let sources_busy = rx_src.is_some() || tx_src.is_some();
        if !mmio_busy && !sources_busy && rng.gen_bool(0.5) {
            // Consume a CQ (not the last): the driver takes everything written.
            let cq = rng.gen_range(0..CQS - 1);
            cq_ci[cq] = cq_pi[cq];
            let a = regs::cq_reg(cq, regs::CQ_CI);
            Mmio::set_write(sim, a, u32::from(cq_ci[cq]));
            mmio_pend = Some((a, true, u32::from(cq_ci[cq])));
            mmio_busy = true;
        }
        // RQ_CI is read with the RQ service idle: a pop's new index reaches the register (in the
        // RAM) a few cycles after the pop is taken (in the first cycles without MMIO access).
        let rq_service_idle = get(sim, "rq_req_ready") == 1;
        if !mmio_busy && !sources_busy && rq_wait.is_none() && rq_service_idle && rng.gen_bool(0.1)
        {
            let qp = rng.gen_range(0..QPS);
            if rng.gen_bool(0.5) {
                Mmio::set_read(sim, regs::qp_reg(qp, regs::QP_RQ_CI));
                mmio_pend = Some((regs::qp_reg(qp, regs::QP_RQ_CI), false, 0));
                mmio_reads.push_back((regs::qp_reg(qp, regs::QP_RQ_CI), u32::from(rq_ci[qp])));
            } else {
                Mmio::set_read(sim, regs::cq_reg(qp, regs::CQ_PI));
                mmio_pend = Some((regs::cq_reg(qp, regs::CQ_PI), false, 0));
                mmio_reads.push_back((regs::cq_reg(qp, regs::CQ_PI), u32::from(cq_pi[qp])));
            }
        }

        // ---- RQ requester (RxControl's rules: one read at a time, then its pop).
        let rq_ready = get(sim, "rq_req_ready") == 1;
        let mut rq_issued = None;
        if rq_wait.is_none() && rng.gen_bool(0.3) && !winding_down {
            let qp = rng.gen_range(0..QPS);
            // As RxControl does for the segments of one Send: the head WQE may be read again
            // before its pop.
            let pop = rq_must_pop[qp] && rng.gen_bool(0.6);
            set(sim, "rq_req_valid", 1);
            set(sim, "rq_req_qp", qp as u128);
            set(sim, "rq_req_pop", u128::from(pop));
            if rq_ready {
                rq_issued = Some((qp, pop));
            }
        } else {
            set(sim, "rq_req_valid", 0);
        }

        // ---- Placement packets.
        if place.is_empty() && !winding_down && rng.gen_bool(0.05) {
            let beats = rng.gen_range(1..8);
            let pkt: Vec<(u32, u32, u8)> = (0..beats)
                .map(|b| {
                    let keep = if b + 1 == beats {
                        [0xF, 0xE, 0xC, 0x8][rng.gen_range(0..4)]
                    } else {
                        0xF
                    };
                    (place_addr + 4 * b, rng.gen(), keep)
                })
                .collect();
            place_addr += 4 * beats + 4;
            if place_addr > PLACE_AREA + 0xF000 {
                place_addr = PLACE_AREA;
            }
            place.push_back(pkt);
        }
        let place_show = place_beat > 0 || rng.gen_bool(0.7);
        match place.front() {
            Some(p) if place_show => {
                let (a, d, k) = p[place_beat];
                set(sim, "place_wr_valid", 1);
                set(sim, "place_wr_addr", u128::from(a));
                set(sim, "place_wr_data", u128::from(d));
                set(sim, "place_wr_keep", u128::from(k));
                set(sim, "place_wr_last", u128::from(place_beat + 1 == p.len()));
            }
            _ => set(sim, "place_wr_valid", 0),
        }

        // ---- SQ / payload requesters.
        for r in reqs.iter_mut() {
            // About half the completion channel's beats.
            if r.pending.is_none() && !winding_down && rng.gen_bool(0.02) {
                if let Some(tag) = r.free_tags.pop() {
                    let len = rng.gen_range(1..=100usize);
                    let addr = RD_AREA + rng.gen_range(0..0xF000u32);
                    r.pending = Some((addr, len, tag));
                }
            }
            let n = r.name;
            match r.pending {
                Some((a, l, t)) => {
                    set(sim, &format!("{n}_rd_req_valid"), 1);
                    set(sim, &format!("{n}_rd_req_addr"), u128::from(a));
                    set(sim, &format!("{n}_rd_req_len"), l as u128);
                    set(sim, &format!("{n}_rd_req_tag"), u128::from(t));
                }
                None => set(sim, &format!("{n}_rd_req_valid"), 0),
            }
        }

        // ---- DMA port (after every input the DMA outputs depend on).
        let beat = dma.cycle(sim);

        // ---- Observe what moves at this edge.
        for r in reqs.iter_mut() {
            let n = r.name;
            if r.pending.is_some() && get(sim, &format!("{n}_rd_req_ready")) == 1 {
                let (a, l, t) = r.pending.take().unwrap();
                let (_, addr, len, tag) = *dma.requests.last().unwrap();
                assert_eq!(
                    (addr, len, u128::from(tag)),
                    (a, l, r.sub << 3 | u128::from(t))
                );
                r.inflight.insert(t, (a, l, Vec::new()));
            }
            let v = get(sim, &format!("{n}_rd_cpl_valid")) == 1;
            let b = beat.filter(|b| u128::from(b.tag >> 3) == r.sub);
            assert_eq!(v, b.is_some(), "{n}_rd_cpl_valid routing");
            if let Some(b) = b {
                assert_eq!(get(sim, &format!("{n}_rd_cpl_tag")), u128::from(b.tag & 7));
                assert_eq!(get(sim, &format!("{n}_rd_cpl_data")), u128::from(b.data));
                assert_eq!(get(sim, &format!("{n}_rd_cpl_keep")), u128::from(b.keep));
                assert_eq!(get(sim, &format!("{n}_rd_cpl_last")), u128::from(b.last));
                let t = b.tag & 7;
                let e = r
                    .inflight
                    .get_mut(&t)
                    .expect("completion of a tag in flight");
                e.2.extend(beat_bytes(b.data, b.keep));
                if b.last {
                    let (a, l, got) = r.inflight.remove(&t).unwrap();
                    assert_eq!(got, dma.mem.read(a, l), "{n} read {a:#x}+{l}");
                    r.free_tags.push(t);
                    r.done += 1;
                }
            }
        }
        if place.front().is_some() && place_show && get(sim, "place_wr_ready") == 1 {
            place_beat += 1;
            if place_beat == place.front().unwrap().len() {
                place_sent.push(place.pop_front().unwrap());
                place_beat = 0;
            }
        }
        // The receive CQE's beats.
        if rx_bv && get(sim, "cqe_beat_ready") == 1 {
            rx_beat += 1;
            rx_bv = false;
            rx_beats_taken += 1;
        }
        // rdc routing.
        if let Some(p) = &rx_src {
            let is_read = p.cqe.opcode == WcOpcode::RdmaRead as u8;
            assert_eq!(get(sim, "rdc_valid"), u128::from(is_read));
            if is_read {
                assert_eq!(get(sim, "rdc_qp"), p.qp as u128);
                assert_eq!(get(sim, "rdc_status"), u128::from(p.cqe.status));
                assert_eq!(get(sim, "cqe_ready"), u128::from(rdc_ready));
            }
        } else {
            assert_eq!(get(sim, "rdc_valid"), 0);
        }
        // CQE completion (ready): the model writes or drops it.
        let mut finish = |src: &mut Option<PendCqe>,
                          ready: bool,
                          recv: bool,
                          mem: &HostMemory,
                          aev: &mut [Option<u32>; 4],
                          qp_errs: &mut Vec<usize>| {
            let Some(p) = src.as_ref() else {
                assert!(!ready, "ready without valid");
                return;
            };
            if !ready {
                return;
            }
            if recv && p.cqe.opcode == WcOpcode::RdmaRead as u8 {
                rdc_seen += 1;
                *src = None;
                return;
            }
            let cq = if recv { recv_cq[p.qp] } else { send_cq[p.qp] };
            let size = 1u16 << cq_log2[cq];
            if cq_ovf[cq] || cq_pi[cq].wrapping_sub(cq_ci[cq]) == size {
                cq_ovf[cq] = true;
                dropped += 1;
                if aev[p.qp].is_none() {
                    aev[p.qp] = Some((AsyncEventKind::CqOverflow as u32) << 16);
                    qp_errs.push(p.qp);
                }
            } else {
                let mut c = p.cqe;
                c.owner = cqe_owner(cq_pi[cq], cq_log2[cq]);
                let at = CQ_BASE + cq as u32 * 0x400 + u32::from(cq_pi[cq] % size) * CQE_LEN as u32;
                assert_eq!(
                    mem.read(at, CQE_LEN),
                    c.emit().to_vec(),
                    "CQE at {at:#x} (CQ {cq}, pi {})",
                    cq_pi[cq]
                );
                cq_pi[cq] = cq_pi[cq].wrapping_add(1);
                written[cq] += 1;
            }
            *src = None;
        };
        let rx_ready = get(sim, "cqe_ready") == 1;
        if rx_ready {
            rx_beat = 0;
            rx_bv = false;
        }
        let tx_ready = get(sim, "scqe_ready") == 1;
        assert!(
            !(rx_ready
                && tx_ready
                && rx_src
                    .as_ref()
                    .is_some_and(|p| p.cqe.opcode != WcOpcode::RdmaRead as u8))
        );
        finish(
            &mut rx_src,
            rx_ready,
            true,
            &dma.mem,
            &mut aev,
            &mut qp_errs,
        );
        finish(
            &mut tx_src,
            tx_ready,
            false,
            &dma.mem,
            &mut aev,
            &mut qp_errs,
        );
        if let Some((qp, v)) = aev_now {
            if get(sim, "aev_ready") == 1 {
                if aev[qp].is_none() {
                    aev[qp] = Some(v);
                    qp_errs.push(qp);
                }
                aev_pend = None;
            } else {
                aev_waits += 1;
            }
        }
        // RQ request taken.
        if let Some((qp, pop)) = rq_issued {
            if pop {
                rq_ci[qp] = rq_ci[qp].wrapping_add(1);
                rq_must_pop[qp] = false;
                rq_popped[qp] = true;
                rq_pops += 1;
            } else {
                rq_wait = Some((
                    qp,
                    rq_ci[qp],
                    rq_ci[qp] != rq_pi[qp],
                    sim.cycles(),
                    rq_popped[qp],
                ));
                rq_popped[qp] = false;
            }
        }

        let mmio_taken = mmio_pend.is_some() && Mmio::ready(sim);
        sim.tick();

        // ---- After the edge: strobes and answers.
        if get(sim, "qp_err_valid") == 1 {
            let qp = get(sim, "qp_err_qp") as usize;
            assert!(!qp_errs.is_empty(), "unexpected qp_err for QP {qp}");
            assert_eq!(qp, qp_errs.remove(0), "qp_err order");
        } else {
            // The strobe comes the cycle after the event.
            assert!(qp_errs.is_empty(), "missing qp_err for {qp_errs:?}");
        }
        if mmio_taken {
            if !mmio_pend.take().unwrap().1 {
                let (r, v) = mmio_reads.pop_front().unwrap();
                assert_eq!(Mmio::rdata(sim), v, "MMIO read of {r:#x}");
                read_checks += 1;
            }
        } else {
            assert_eq!(
                get(sim, "mmio_rvalid"),
                0,
                "mmio_rvalid without a read taken"
            );
        }
        if get(sim, "rq_rsp_valid") == 1 {
            let (qp, ci, present, at, after_pop) = rq_wait.take().expect("rq_rsp without a read");
            // At the earliest in the cycle after it was taken; only a repeated read of a QP's
            // head WQE (answered from the answer registers) can be that fast.
            assert!(sim.cycles() > at);
            if sim.cycles() == at + 1 {
                assert!(present, "QP {qp}: an empty RQ answered from the registers");
                rq_hits += 1;
                rq_pf_hits += usize::from(after_pop);
            }
            assert_eq!(
                get(sim, "rq_rsp_present"),
                u128::from(present),
                "QP {qp} ci {ci}"
            );
            rq_answers += 1;
            if present {
                let w = rq_wqes[qp][&ci];
                assert_eq!(get(sim, "rq_rsp_index"), u128::from(ci));
                assert_eq!(get(sim, "rq_rsp_len_n"), u128::from(!w.length));
                assert_eq!(get(sim, "rq_rsp_lkey"), u128::from(rebuilt_lkey(w.lkey)));
                assert_eq!(get(sim, "rq_rsp_to"), u128::from(rebuilt_to(w.addr)));
                rq_must_pop[qp] = true;
                rq_present += 1;
            }
        }
    }
    Mmio::clear(sim);
    set(sim, "rq_req_valid", 0);
    set(sim, "cqe_valid", 0);
    set(sim, "scqe_valid", 0);
    set(sim, "place_wr_valid", 0);
    assert!(
        rx_src.is_none() && tx_src.is_none(),
        "CQEs left in the sources"
    );
    assert!(rq_wait.is_none() && place.is_empty());
    // An access still in its wait cycle is held until taken: a master does not withdraw one
    // (`Mmio`'s contract; withdrawn, HostIf's decode registers would answer the next read
    // with this one's register).
    if let Some(p) = mmio_pend.take() {
        present(sim, p);
        Mmio::hold(sim);
        if !p.1 {
            let (r, v) = mmio_reads.pop_front().unwrap();
            assert_eq!(Mmio::rdata(sim), v, "MMIO read of {r:#x}");
            read_checks += 1;
        }
    }
    assert_eq!(get(sim, "idle"), 1);

    // Final register state.
    for qp in 0..QPS {
        assert_eq!(
            Mmio::read(sim, regs::qp_reg(qp, regs::QP_RQ_CI)),
            u32::from(rq_ci[qp])
        );
        let want = aev[qp].map_or(0, |v| v | regs::QP_AEV_VALID);
        assert_eq!(
            Mmio::read(sim, regs::qp_reg(qp, regs::QP_AEV)),
            want,
            "QP {qp} AEV"
        );
        assert_eq!(
            Mmio::read(sim, regs::qp_reg(qp, regs::QP_STATUS)),
            u32::from(aev[qp].is_some())
        );
    }
    for cq in 0..CQS {
        assert_eq!(
            Mmio::read(sim, regs::cq_reg(cq, regs::CQ_PI)),
            u32::from(cq_pi[cq])
        );
        assert_eq!(
            Mmio::read(sim, regs::cq_reg(cq, regs::CQ_STATUS)),
            u32::from(cq_ovf[cq]),
            "CQ {cq} status"
        );
    }
    assert!(
        cq_ovf[CQS - 1] && (0..CQS - 1).all(|cq| !cq_ovf[cq]),
        "overflows {cq_ovf:?}, written {written:?}, pi {cq_pi:?} ci {cq_ci:?}"
    );
    assert_eq!(
        aev[QPS - 1],
        Some((AsyncEventKind::CqOverflow as u32) << 16)
    );

    // Write log: packets whole; placement packets in order and byte-exact; every other packet
    // a 4-beat CQE in a CQ ring.
    let log = dma.mem.write_log().to_vec();
    let mut pkts: Vec<Vec<(u32, u32, u8)>> = vec![Vec::new()];
    for b in &log {
        pkts.last_mut().unwrap().push((b.addr, b.data, b.keep));
        if b.last {
            pkts.push(Vec::new());
        }
    }
    assert!(pkts.pop().unwrap().is_empty());
    let mut places = place_sent.iter();
    let mut cqes = 0;
    for p in &pkts {
        if p[0].0 >= PLACE_AREA {
            assert_eq!(Some(p), places.next(), "placement packet");
        } else {
            assert_eq!(p.len(), 4, "CQE packet {p:x?}");
            assert!(p[0].0 >= CQ_BASE && p[0].0 < CQ_BASE + 0x1000 && p[0].0 % 16 == 0);
            for (k, b) in p.iter().enumerate() {
                assert_eq!((b.0, b.2), (p[0].0 + 4 * k as u32, 0xF));
            }
            cqes += 1;
        }
    }
    assert!(places.next().is_none());
    assert_eq!(cqes, written.iter().sum::<usize>());
    dma.mem.assert_no_violations();
    // Coverage.
    // The CQs of every QP but the last: 0..3 (CQ 0 with 2 QPs).
    let used = CQS - 1;
    assert!(
        written.iter().take(used).all(|&w| w > 8),
        "written {written:?}"
    );
    assert!(
        (0..used).any(|cq| written[cq] > (1 << cq_log2[cq]) + 1),
        "no CQ wrapped (owner bit 0 never written): {written:?}"
    );
    assert!(rx_beats_taken > 32, "receive beats {rx_beats_taken}");
    assert!(
        dropped > 2 && rdc_seen > 2,
        "dropped {dropped} rdc {rdc_seen}"
    );
    assert!(
        rq_present > 10 && rq_answers > rq_present && rq_pops > 10 && rq_hits > 1,
        "rq answers {rq_answers} present {rq_present} pops {rq_pops} hits {rq_hits}"
    );
    assert!(
        rq_pf_hits > 1,
        "no read after a pop answered from the prefetch: {rq_pf_hits}"
    );
    assert!(reqs.iter().all(|r| r.done > 5), "reads done");
    println!("events held over an MMIO access: {aev_waits} cycles");
    assert!(
        aev_waits > 0,
        "no event waited for a cycle without MMIO access"
    );
    assert!(place_sent.len() > 5 && read_checks > 3);
    assert!(aev.iter().take(3).any(|a| a.is_some()));
}

#[test]
fn random_traffic_rust_hdl() {
    run_with_waveform_on_failure(
        "host_if_traffic",
        || BackendKind::RustHdl.build(HostIf::default()),
        |sim| {
            traffic(
                sim,
                1,
                &Cfg {
                    cycles: 8_000,
                    dma: DmaConfig {
                        req_stall: 0.3,
                        wr_stall: 0.3,
                        ..DmaConfig::default()
                    },
                },
            )
        },
    );
}

#[test]
fn random_traffic_verilator() {
    for seed in 0..6u64 {
        run_with_waveform_on_failure(
            "host_if_traffic",
            || BackendKind::Verilator.build(HostIf::default()),
            |sim| {
                let mut rng = StdRng::seed_from_u64(seed + 100);
                let dma = DmaConfig::random(&mut rng);
                traffic(
                    sim,
                    seed,
                    &Cfg {
                        cycles: 40_000,
                        dma,
                    },
                )
            },
        );
    }
}
