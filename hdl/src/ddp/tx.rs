//! DdpTx (`docs/core.md`): placeholder.
