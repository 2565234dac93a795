//! `send_engine` (`docs/core.md`): placeholder.
