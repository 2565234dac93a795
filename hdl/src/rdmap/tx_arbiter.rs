//! `tx_arbiter` (`docs/core.md`): placeholder.
