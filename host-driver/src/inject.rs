//! `rnic inject`: a raw LLP byte stream from a file into the receive path of a simulated core,
//! one JSON line per event, and last whether any byte outside the granted regions was touched.

pub mod spec;
