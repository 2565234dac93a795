//! Testbench drivers and monitors, one per hardware block, usable on either back end.

pub mod crc32c;
pub mod mpa_loopback;
pub mod mpa_rx;
pub mod mpa_tx;
pub mod rx_control;
