//! Testbench drivers and monitors, one per hardware block, usable on either back end.

pub mod crc32c;
pub mod ddp_rx_parse;
pub mod ddp_rx_place;
pub mod ddp_tx;
pub mod host_if;
pub mod mpa_loopback;
pub mod mpa_rx;
pub mod mpa_tx;
pub mod peer_link;
pub mod read_responder;
pub mod rnic;
pub mod rx_control;
pub mod rx_path;
pub mod send_engine;
pub mod stag_check;
pub mod terminate_tx;
pub mod tx_arbiter;
