//! Shared helpers for the benches (none yet).
