//! The stream engine (SPEC §8): every line of huge inputs through one operation, on all
//! cores, in input order, in bounded memory.
//!
//! [`Engine`] runs one [`Operation`] over every line of one or more inputs and writes one
//! result per line, in input order, on all cores, in memory bounded by the chunk size and
//! the number of threads, whatever the size of the input.
//!
//! # How a run is organised
//!
//! ```text
//!   reader thread ──work──▶ workers (rayon pool) ──done──▶ writer (the calling thread)
//!        ▲                                                        │
//!        └───────────────────── free chunks ◀─────────────────────┘
//! ```
//!
//! 1. The **reader** fills a chunk (a reused buffer) with about `chunk_size` bytes that end
//!    on a line boundary (the unfinished last line moves on to the next chunk) and numbers
//!    it.
//! 2. A **worker** validates the whole chunk as UTF-8 at once (falling back to one line at a
//!    time only when that fails, so a bad line never affects its neighbours), prepares and
//!    runs the operation on every record, and formats all the results into the chunk's one
//!    output buffer, with the chunk's counts and first diagnostics.
//! 3. The **writer** puts chunks back in sequence order, writes them, and hands each chunk
//!    back to the reader for reuse.
//!
//! A fixed number of chunks exists (about `2 × threads + 2`, see `chunks_in_flight`) and
//! every channel is bounded, so at most that many chunks of input and output are in memory
//! at once. A line is never held whole once it is known to be longer than both the chunk
//! size and `max_line_bytes`: the reader keeps its first [`TOO_LONG_PREFIX`] bytes, skips to
//! the next line feed and passes the line on as a `too-long` record. A plain regular file is
//! mapped rather than read where asked ([`EngineOptions::with_mmap`]): its chunks are
//! ranges of the map, and the pages of chunks already written are released, so the same
//! bound holds.
//!
//! Output appears a chunk at a time. For a live, line-at-a-time source (a terminal), a
//! `chunk_size` of 1 makes every line go through as soon as its line feed is read.
//!
//! If any stage stops early (the output is closed, a record fails with [`OnError::Fail`],
//! the operation panics), the others notice through their channels and a shared flag, and
//! every thread ends before [`Engine::run`] returns. A reader blocked on a source that sends
//! nothing is the one exception: it ends when its read returns.
//!
//! # Records (SPEC §2)
//!
//! A record is a line: the bytes up to a line feed, without it, and without one carriage
//! return before it. The last line needs no line feed, and a final line feed does not start
//! an empty record; an empty input has no records. A UTF-8 byte order mark at the start of
//! each input is dropped. An empty line is a record (an invalid one: `empty`). A record of
//! more than `max_line_bytes` bytes is invalid (`too-long`, column 0).
//!
//! Each raw record goes to [`Operation::apply_raw`]: by default it is prepared
//! ([`crate::iri::repair::prepare`]: trimmed and repaired unless the run is strict), the
//! operation applied, and the column of an error mapped back to the record as read
//! ([`crate::iri::repair::Repair::raw_column`]), so the engine itself knows nothing of
//! repairs. Line numbers count from 1 in each input.
//!
//! Where the operation is the ladder ([`Operation::ladder`]), the worker reads the lines
//! through the ladder's runs of lines ([`crate::ladder::Normalizer::canonical_lines`] and
//! [`crate::ladder::Normalizer::own_key_lines`]): a line that is its own key (valid, needs no
//! repair) is written as it is, in key output a run of such lines copied to the output in
//! one go (SPEC §8); keys the runs write without a parse (SURTs, keys under protocol rules)
//! go out as they are written; every other record goes to the ladder's one entry
//! ([`crate::ladder::Normalizer::normalize_raw_into`]).
//!
//! # Files, one concept each
//!
//! The layers point one way: `engine` uses the stages, the stages use the chunk and the
//! settings, and nothing here is used by the ladder or the IRI core.
//!
//! - `engine`: [`Engine`], which sets up the channels and threads of a run and joins them;
//! - `options`: [`EngineOptions`], [`OnError`], `run_chunk_size` and `chunks_in_flight`;
//! - `error`: [`RunError`], why a run stopped;
//! - `operation`: the [`Operation`] trait, for closures and for
//!   [`crate::ladder::Normalizer`];
//! - `progress`: [`Progress`], and the reader wrapper that reports to it;
//! - `chunk`: the chunk that travels between the stages, and what a worker reports on it;
//! - `reader`: cutting inputs into chunks of whole lines, and skipping too-long lines;
//! - `mapping`: regular files read through a memory map, released behind the run;
//! - `worker`: the records of a chunk through the operation (and the ladder's runs of
//!   lines), each result handed to the chunk's emitter, which alone writes its output,
//!   rows and statistics;
//! - `writer`: chunks back in order, written with vectored writes;
//! - `dedup`: key fingerprints, and the set of them that `unique` keeps;
//! - `hyperloglog`: the sketch that estimates the number of distinct keys for `stats`
//!   without `unique`;
//! - `input`: opening inputs ([`Input`]), with gzip, zstd, xz and bzip2 detected by their magic
//!   bytes, and binary input refused when asked;
//! - `output`: the output records (`key`, `tsv`, `jsonl`), diagnostics and statistics: the
//!   format settings in `output` itself, the rows in `output::rows`, the tsv escapes in
//!   `output::escape`, the statistics in `output::stats`;
//! - `records`: the same records one at a time, for consumers that do not need the engine.

mod chunk;
mod dedup;
mod engine;
pub(crate) mod error;
pub(crate) mod framing;
mod hyperloglog;
pub(crate) mod input;
mod mapping;
mod operation;
mod options;
pub(crate) mod output;
mod progress;
mod reader;
pub(crate) mod records;
mod worker;
mod writer;

pub use chunk::TOO_LONG_PREFIX;
pub use engine::Engine;
pub use error::RunError;
pub use input::Input;
pub use operation::Operation;
pub use options::{EngineOptions, OnError};
pub use output::{OutputMode, Stats};
pub use progress::Progress;
