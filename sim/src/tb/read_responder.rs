//! Driver pieces for the ReadResponder (placeholder).
