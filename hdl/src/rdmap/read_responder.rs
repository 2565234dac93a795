//! `read_responder` (`docs/core.md`): placeholder.
