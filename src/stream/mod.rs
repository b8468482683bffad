//! The stream engine (SPEC §8): every line of huge inputs through one operation, on all
//! cores, in input order, in bounded memory.
//!
//! - [`engine`]: the reader, the workers and the ordered writer, and the [`Operation`] they
//!   run;
//! - [`input`]: opening inputs, with gzip and zstd detected by their magic bytes;
//! - [`output`]: the output records (`key`, `tsv`, `jsonl`), diagnostics and statistics;
//! - [`records`]: the same records one at a time, for consumers that do not need the engine.
//!
//! The engine knows nothing of IRIs but the errors it reports; the ladder becomes an
//! operation through the [`Operation`] implementation of [`crate::ladder::Normalizer`]
//! (in the private module `operation`).

pub mod engine;
pub mod input;
mod operation;
pub mod output;
pub mod records;

pub use engine::{Engine, EngineOptions, OnError, Operation, Progress, RunError};
pub use output::{OutputMode, Stats};
