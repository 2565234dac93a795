//! Placeholder: the beat-level DMA port model (lands next).
