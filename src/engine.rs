//! The streaming engine.
