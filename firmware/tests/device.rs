//! MMIO programming against a recording fake device: the exact register writes.

use rnic_firmware::conn::{ConnParams, Role, RtrForm};
use rnic_firmware::device::{
    commit_cq, commit_qp, invalidate_stag, markers_supported, probe, program_stag, qp_ctrl_value,
    read_async_event, Device, DeviceError, QpResources, StagEntry, RX_IDLE_POLLS,
};
use rnic_firmware::qp::AsyncEvent;
use rnic_proto::host::regs;
use rnic_proto::verbs::{access, make_stag, AsyncEventKind};

#[derive(Default)]
struct Fake {
    writes: Vec<(u16, u32)>,
    reads: Vec<u16>,
    /// Reads of STATUS that return busy before idle.
    busy_reads: usize,
    aev: u32,
    features: u32,
}

impl Device for Fake {
    fn mmio_write(&mut self, addr: u16, v: u32) {
        self.writes.push((addr, v));
    }
    fn mmio_read(&mut self, addr: u16) -> u32 {
        self.reads.push(addr);
        match addr {
            regs::ID => regs::ID_VALUE,
            regs::VERSION => regs::VERSION_VALUE,
            regs::CAPS => 0x0406_0404,
            regs::FEATURES => self.features,
            regs::STATUS => {
                if self.busy_reads > 0 {
                    self.busy_reads -= 1;
                    0
                } else {
                    regs::STATUS_RX_IDLE | regs::STATUS_TX_IDLE
                }
            }
            a if a == regs::qp_reg(2, regs::QP_AEV) => self.aev,
            _ => 0,
        }
    }
}

fn params() -> ConnParams {
    ConnParams {
        role: Role::Initiator,
        revision: 2,
        enhanced: true,
        rx_crc: true,
        tx_crc: true,
        rx_markers: false,
        tx_markers: true,
        ird: 3,
        ord: 7,
        remote_ird_ord: Some((7, 3)),
        tx_mulpdu: 1442,
        rx_max_ulpdu: 1454,
        rtr: RtrForm::ZeroLengthWrite,
        tx_fpdu_octets: 24,
    }
}

fn res() -> QpResources {
    QpResources {
        pd: 5,
        send_cq: 1,
        recv_cq: 2,
        sq_base: 0x0001_0000,
        sq_log2: 6,
        rq_base: 0x0002_0010,
        rq_log2: 4,
    }
}

#[test]
fn probe_checks_id() {
    let mut d = Fake::default();
    assert_eq!(probe(&mut d), Ok(0x0406_0404));
    assert_eq!(d.reads, vec![regs::ID, regs::VERSION, regs::CAPS]);
}

/// FEATURES bit 0 says whether the core has markers; the other bits do not matter.
#[test]
fn markers_supported_reads_features() {
    for (features, markers) in [
        (0, false),
        (regs::FEATURES_MARKERS, true),
        (!regs::FEATURES_MARKERS, false),
        (u32::MAX, true),
    ] {
        let mut d = Fake {
            features,
            ..Fake::default()
        };
        assert_eq!(markers_supported(&mut d), markers, "FEATURES {features:#x}");
        assert_eq!(d.reads, vec![regs::FEATURES]);
    }
}

#[test]
fn program_stag_writes() {
    let mut d = Fake::default();
    let e = StagEntry {
        stag: make_stag(0x2A, 0xC3),
        pd: 5,
        access: access::REMOTE_WRITE | access::LOCAL_READ,
        base_to: 0x1122_3344_5566_7788,
        len: 4096,
        host_addr: 0x8000_0000,
        qp: Some(3),
        remote_invalidate: true,
    };
    program_stag(&mut d, &e).unwrap();
    let flags = 0xC3 | 5 << 8 | 0x9 << 12 | 1 << 16 | 1 << 17 | 1 << 18 | 3 << 24;
    assert_eq!(
        d.writes,
        vec![
            (0x040, 0x2A),
            (0x044, flags),
            (0x048, 0x1000_7788),
            (0x04C, 0x1122_3344),
            (0x050, 0x5566),
            (0x058, 0x8000_0000),
        ]
    );
    let mut d = Fake::default();
    invalidate_stag(&mut d, make_stag(0x2A, 0xC3)).unwrap();
    assert_eq!(d.writes, vec![(0x040, 0x2A), (0x044, 0xC3), (0x058, 0)]);
    let mut d = Fake::default();
    assert_eq!(
        program_stag(&mut d, &StagEntry { pd: 16, ..e }),
        Err(DeviceError::OutOfRange("pd"))
    );
    assert!(d.writes.is_empty());
}

#[test]
fn commit_qp_writes() {
    let mut d = Fake {
        busy_reads: 3,
        ..Fake::default()
    };
    commit_qp(&mut d, 2, Some(&params()), &res()).unwrap();
    let base = 0x100 + 2 * 0x40;
    let ctrl = 1 | 2 | 4 | 16 | 32 | 5 << 8 | 3 << 12 | 7 << 16 | 1 << 20 | 2 << 22;
    assert_eq!(
        d.writes,
        vec![
            (base + 0x04, 1442 << 16 | 1454),
            (base + 0x08, 0x0001_0006),
            (base + 0x14, 0x0002_0010),
            (base + 0x18, 4),
            (base, ctrl),
        ]
    );
    // FEATURES for the ring size limit, then STATUS polled until idle: 3 busy reads, then
    // idle.
    assert_eq!(
        d.reads,
        [&[regs::FEATURES][..], &[regs::STATUS; 4]].concat()
    );
    // Raw mode (during setup): not enabled, not FPDU mode.
    assert_eq!(qp_ctrl_value(None, &res()), Ok(5 << 8 | 1 << 20 | 2 << 22));
}

#[test]
fn commit_qp_errors_write_nothing() {
    let mut d = Fake {
        busy_reads: RX_IDLE_POLLS,
        ..Fake::default()
    };
    assert_eq!(
        commit_qp(&mut d, 0, Some(&params()), &res()),
        Err(DeviceError::RxBusy)
    );
    assert!(d.writes.is_empty());
    let mut d = Fake::default();
    let big = ConnParams {
        ird: 16,
        ..params()
    };
    assert_eq!(
        commit_qp(&mut d, 0, Some(&big), &res()),
        Err(DeviceError::OutOfRange("ird"))
    );
    assert_eq!(
        commit_qp(
            &mut d,
            0,
            None,
            &QpResources {
                sq_base: 0x10,
                ..res()
            }
        ),
        Err(DeviceError::Misaligned("sq base"))
    );
    assert_eq!(
        commit_qp(&mut d, 4, None, &res()),
        Err(DeviceError::OutOfRange("qp"))
    );
    assert!(d.writes.is_empty());
}

/// The ring size limit comes from the core's ring index bits (FEATURES `[23:16]`): 16 bits
/// (or a core before the field, 0) allow 2^15 entries, the Alchitry Cu build's 12 bits 2^11.
#[test]
fn ring_sizes_follow_features() {
    let cu = 12 << regs::FEATURES_RING_INDEX_SHIFT;
    let mut d = Fake {
        features: cu,
        ..Fake::default()
    };
    assert_eq!(rnic_firmware::device::max_ring_log2(&mut d), 11);
    let big = |sq_log2, rq_log2| QpResources {
        sq_log2,
        rq_log2,
        ..res()
    };
    for (sq, rq) in [(12, 4), (4, 12)] {
        assert_eq!(
            commit_qp(&mut d, 0, None, &big(sq, rq)),
            Err(DeviceError::OutOfRange("ring log2"))
        );
    }
    assert_eq!(
        commit_cq(&mut d, 0, 0x4000, 12),
        Err(DeviceError::OutOfRange("cq log2"))
    );
    assert!(d.writes.is_empty());
    commit_qp(&mut d, 0, None, &big(11, 11)).unwrap();
    commit_cq(&mut d, 0, 0x4000, 11).unwrap();
    assert_eq!(d.writes.len(), 5 + 2);
    // 16-bit indexes: up to the register field's 15.
    let mut d = Fake {
        features: 16 << regs::FEATURES_RING_INDEX_SHIFT,
        ..Fake::default()
    };
    assert_eq!(rnic_firmware::device::max_ring_log2(&mut d), 15);
    commit_cq(&mut d, 0, 0x4000, 15).unwrap();
    let mut d = Fake::default();
    assert_eq!(rnic_firmware::device::max_ring_log2(&mut d), 15);
}

#[test]
fn commit_cq_writes() {
    let mut d = Fake::default();
    commit_cq(&mut d, 3, 0x4000, 8).unwrap();
    assert_eq!(
        d.writes,
        vec![(0x200 + 3 * 0x20, 0x4000), (0x200 + 3 * 0x20 + 4, 8)]
    );
    assert_eq!(
        commit_cq(&mut d, 4, 0, 1),
        Err(DeviceError::OutOfRange("cq"))
    );
    assert_eq!(
        commit_cq(&mut d, 0, 8, 1),
        Err(DeviceError::Misaligned("cq base"))
    );
}

#[test]
fn async_event_read() {
    let mut d = Fake::default();
    assert_eq!(read_async_event(&mut d, 2), None);
    d.aev = regs::QP_AEV_VALID | 1 << 16 | 0x1 << 12 | 0x1 << 8;
    assert_eq!(
        read_async_event(&mut d, 2),
        Some(AsyncEvent {
            kind: AsyncEventKind::TerminateSent,
            layer: 1,
            error_type: 1,
            code: 0
        })
    );
}
