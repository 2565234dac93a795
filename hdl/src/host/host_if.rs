//! HostIf (`docs/core.md`): placeholder.
