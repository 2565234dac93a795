//! MPA transmit and receive at once: [`MpaTx`]'s LLP output wired to [`MpaRx`]'s LLP input, both
//! blocks stepped together cycle by cycle, so both directions of the MPA datapath are busy in
//! the same cycles. The ULPDUs that come out of the receiver must be the ones given to the
//! transmitter, each with a good status.

use crate::stream::{beat_payload, packet_beats};
use crate::testbench::{Backend, BackendKind};
use anyhow::{anyhow, bail, Result};
use rnic_hdl::mpa::{mpa_rx::MpaRx, mpa_tx::MpaTx};
use rnic_proto::mpa::MAX_ULPDU;

/// What a loopback run measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoopbackThroughput {
    pub ulpdu_len: usize,
    pub markers: bool,
    pub ulpdus: usize,
    /// Cycles from the first ULPDU beat into the transmitter to the last ULPDU beat out of the
    /// receiver.
    pub cycles: u64,
    /// ULPDU beats taken by the transmitter, per cycle.
    pub tx_ulpdu_beats_per_cycle: f64,
    /// LLP beats from transmitter to receiver, per cycle (1.0 is the wire limit).
    pub llp_beats_per_cycle: f64,
    /// ULPDU beats delivered by the receiver, per cycle.
    pub rx_ulpdu_beats_per_cycle: f64,
}

fn set(sim: &mut dyn Backend, port: &str, value: u128) -> Result<()> {
    let id = sim.input(port)?;
    sim.set(id, value);
    Ok(())
}

fn get(sim: &mut dyn Backend, port: &str) -> Result<u128> {
    let id = sim.output(port)?;
    Ok(sim.get(id))
}

/// Sends `ulpdus` ULPDUs of `ulpdu_len` octets on connection 0 through the transmitter into the
/// receiver (CRC on, markers as asked, LLP and output always ready) and measures both at once.
pub fn measure_loopback(
    kind: BackendKind,
    ulpdu_len: usize,
    markers: bool,
    ulpdus: usize,
) -> Result<LoopbackThroughput> {
    let mut tx = kind.build_untraced(MpaTx::default())?;
    let mut rx = kind.build_untraced(MpaRx::default())?;
    let (tx, rx) = (tx.as_mut(), rx.as_mut());
    let sent: Vec<Vec<u8>> = (0..ulpdus)
        .map(|i| (0..ulpdu_len).map(|j| (i * 37 + j * 11) as u8).collect())
        .collect();
    // Both directions of connection 0 into FPDU mode.
    for (sim, max) in [(&mut *tx, None), (&mut *rx, Some(MAX_ULPDU as u128))] {
        set(sim, "cfg_write", 1)?;
        set(sim, "cfg_conn", 0)?;
        set(sim, "cfg_fpdu_mode", 1)?;
        set(sim, "cfg_markers", u128::from(markers))?;
        set(sim, "cfg_crc", 1)?;
        if let Some(max) = max {
            set(sim, "cfg_max_ulpdu", max)?;
        }
        sim.tick();
        set(sim, "cfg_write", 0)?;
    }
    set(tx, "raw_valid", 0)?;
    set(rx, "ulpdu_ready", 1)?;
    set(rx, "raw_ready", 1)?;
    let beats: Vec<_> = sent.iter().map(|u| packet_beats(u, 32)).collect();
    let (mut packet, mut beat) = (0usize, 0usize);
    let mut received: Vec<Vec<u8>> = Vec::new();
    let mut current: Vec<u8> = Vec::new();
    let (mut tx_beats, mut llp_beats, mut rx_beats) = (0u64, 0u64, 0u64);
    let (mut first, mut last) = (None, 0u64);
    let limit = 100 + 4 * (ulpdus as u64) * (ulpdu_len as u64 / 4 + 8);
    for cycle in 0..limit {
        // Transmitter input: the next ULPDU beat, if any.
        let offering = packet < beats.len();
        if offering {
            let b = beats[packet][beat];
            set(tx, "ulpdu_data", b.data)?;
            set(tx, "ulpdu_keep", b.keep)?;
            set(tx, "ulpdu_last", u128::from(b.last))?;
            set(tx, "ulpdu_conn", 0)?;
            set(tx, "ulpdu_len", sent[packet].len() as u128)?;
        }
        set(tx, "ulpdu_valid", u128::from(offering))?;
        // The link: the receiver's ready back to the transmitter, its beat forward.
        let ready = get(rx, "llp_ready")?;
        set(tx, "llp_ready", ready)?;
        let valid = get(tx, "llp_valid")?;
        for port in ["llp_data", "llp_keep", "llp_last", "llp_conn"] {
            let v = get(tx, port)?;
            set(rx, port, v)?;
        }
        set(rx, "llp_valid", valid)?;
        let tx_took = offering && get(tx, "ulpdu_ready")? == 1;
        let link_moved = valid == 1 && ready == 1;
        // The receiver's output, always ready.
        if get(rx, "err_valid")? == 1 {
            bail!(
                "the receiver raised error code {:#x} in the loopback",
                get(rx, "err_code")?
            );
        }
        if get(rx, "ulpdu_valid")? == 1 {
            let b = crate::stream::Beat {
                data: get(rx, "ulpdu_data")?,
                keep: get(rx, "ulpdu_keep")?,
                last: get(rx, "ulpdu_last")? == 1,
            };
            current.extend(beat_payload(&b, 32));
            rx_beats += 1;
            last = cycle;
            if b.last {
                if get(rx, "ulpdu_good")? != 1 {
                    bail!("ULPDU {} came out with a bad status", received.len());
                }
                received.push(std::mem::take(&mut current));
            }
        }
        tx.tick();
        rx.tick();
        if tx_took {
            first.get_or_insert(cycle);
            tx_beats += 1;
            beat += 1;
            if beat == beats[packet].len() {
                packet += 1;
                beat = 0;
            }
        }
        llp_beats += u64::from(link_moved);
        if received.len() == sent.len() {
            break;
        }
    }
    if received != sent {
        return Err(anyhow!(
            "the loopback delivered {} of {} ULPDUs, or different octets",
            received.len(),
            sent.len()
        ));
    }
    let cycles = last + 1 - first.unwrap_or(0);
    let per = |n: u64| n as f64 / cycles as f64;
    Ok(LoopbackThroughput {
        ulpdu_len,
        markers,
        ulpdus,
        cycles,
        tx_ulpdu_beats_per_cycle: per(tx_beats),
        llp_beats_per_cycle: per(llp_beats),
        rx_ulpdu_beats_per_cycle: per(rx_beats),
    })
}
