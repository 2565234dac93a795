//! UlpduMux (`docs/core.md`): placeholder, lands with the top.
