//! Placeholder (`docs/core.md`).
