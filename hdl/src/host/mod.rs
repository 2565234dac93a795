//! The host interface (issue 5): MMIO register file, doorbells, RQ WQE fetch, CQE writer, DMA
//! arbiter. Contract: `docs/core.md` ("HostIf"); register map and descriptors:
//! `rnic_proto::host`.

pub mod host_if;
