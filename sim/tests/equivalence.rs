//! The two back ends agree: the CRC-32C block driven with the same random stimulus on rust-hdl's
//! simulator and on Verilator (running the Verilog rust-hdl generates), every output compared
//! every cycle (DESIGN.md "Verification").

use rand::{Rng, SeedableRng};
use rnic_hdl::crc::Crc32c;
use rnic_hdl::ports::SimPorts;
use rnic_sim::equivalence::{lockstep, Mismatch};
use rnic_sim::testbench::{BackendKind, InputId};

/// Fully random inputs every cycle: data, any `keep` pattern (legal or not), `last`, `valid`.
fn random_lockstep<B: SimPorts + Default + 'static>(
    cycles: u64,
    seed: u64,
) -> Result<(), Mismatch> {
    let mut a = BackendKind::RustHdl.build(B::default()).unwrap();
    let mut b = BackendKind::Verilator.build(B::default()).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    lockstep(a.as_mut(), b.as_mut(), cycles, |_, _| rng.gen())
}

#[test]
fn crc32c_w8_backends_agree_every_cycle() {
    random_lockstep::<Crc32c<8, 1>>(20_000, 1).unwrap();
}

#[test]
fn crc32c_w32_backends_agree_every_cycle() {
    random_lockstep::<Crc32c<32, 4>>(20_000, 2).unwrap();
}

#[test]
fn crc32c_w64_backends_agree_every_cycle() {
    random_lockstep::<Crc32c<64, 8>>(20_000, 3).unwrap();
}

#[test]
fn crc32c_w128_backends_agree_every_cycle() {
    random_lockstep::<Crc32c<128, 16>>(5_000, 4).unwrap();
}

/// The comparison can fail: two CRC blocks fed different streams disagree, and the mismatch
/// names the cycle and the port.
#[test]
fn lockstep_reports_the_first_difference() {
    let mut a = BackendKind::RustHdl
        .build(Crc32c::<32, 4>::default())
        .unwrap();
    let mut b = BackendKind::Verilator
        .build(Crc32c::<32, 4>::default())
        .unwrap();
    // Make `b` diverge: one extra packet before the comparison starts.
    let (data, keep, last, valid) = (
        b.input("data").unwrap(),
        b.input("keep").unwrap(),
        b.input("last").unwrap(),
        b.input("valid").unwrap(),
    );
    b.set(data, 0x1234_5678);
    b.set(keep, 0xf);
    b.set(last, 1);
    b.set(valid, 1);
    b.tick();
    let m = lockstep(a.as_mut(), b.as_mut(), 10, |_, i| {
        if i == InputId(3).0 {
            0
        } else {
            1
        }
    })
    .unwrap_err();
    assert_eq!(m.cycle, 0);
    assert!(m.port == "crc" || m.port == "crc_valid", "{m:?}");
}
