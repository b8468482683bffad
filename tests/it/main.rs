//! The integration tests, in one binary (one build, one link): one module per subject,
//! helpers in [`common`]. The memory test has its own binary (`tests/engine_memory.rs`),
//! since it measures its process.
//!
//! Run one subject with a filter: `cargo test --test it golden::`.

mod common;
mod engine_common;

mod architecture;
mod cli;
mod compat;
mod conformance;
mod engine_differential;
mod engine_inputs;
mod fast_path;
mod generated_groups;
mod golden;
mod hostile;
mod key_options;
mod limits;
mod migrate;
mod no_record_lost;
mod properties;
mod protocol;
mod records;
mod rfc_vectors;
mod security;
mod surt;
