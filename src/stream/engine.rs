//! The streaming engine (SPEC §8).
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
//! A fixed number of chunks exists (about `2 × threads + 2`, see [`chunks_in_flight`]) and
//! every channel is bounded, so at most that many chunks of input and output are in memory
//! at once. A line is never held whole once it is known to be longer than both the chunk
//! size and `max_line_bytes`: the reader keeps its first [`TOO_LONG_PREFIX`] bytes, skips to
//! the next line feed and passes the line on as a `too-long` record.
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
//! Each record goes through [`repair::prepare`] and then the [`Operation`]. Unless the run
//! is strict, the column of an operation's error, which counts in the repaired text, is
//! mapped back to the record as read ([`repair::original_column`]). Line numbers count from
//! 1 in each input.
//!
//! An operation may first say that a record passes through ([`Operation::pass_through`]: it
//! is valid, needs no repair and is its own result; the normalizer's fast path does this,
//! finding the end of the line on the way). Such a record is written as it is, without being
//! prepared or applied; in key output, a run of such lines is copied to the output in one
//! go (SPEC §8).

use std::any::Any;
use std::collections::HashSet;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, IoSlice, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Instant;

use crossbeam_channel::{bounded, Receiver, Sender};

use crate::iri::error::{Error, ErrorKind};
use crate::iri::repair::{self, Repair};
use crate::ladder::Notes;
use crate::stream::input::{self, Input};
use crate::stream::output::{write_diagnostic, write_record};

pub use crate::stream::output::{OutputMode, Stats};

/// What the engine runs on every record: one of the library's operations (normalize, check,
/// to-uri, to-iri, resolve), already configured.
///
/// The engine hands each record that [`Operation::pass_through`] did not take to
/// [`Operation::apply_raw`], which prepares it (trims and repairs it, unless the run is
/// strict: [`crate::iri::repair::prepare`]) and applies [`Operation::apply`] to the result. The
/// normalizer replaces `apply_raw` with its own record entry point
/// ([`Normalizer::normalize_record_into`](crate::ladder::Normalizer::normalize_record_into)),
/// so that the command line and the library give the same key for the same line.
pub trait Operation: Sync {
    /// Appends the result for one prepared record to `out`.
    ///
    /// `record` holds no line terminator, is valid UTF-8, and was trimmed and repaired
    /// unless the run is strict. On success the operation appends the record's result (its
    /// key) to `out` and must not write a newline. On failure it may leave partial output in
    /// `out`; the engine discards it.
    fn apply(&self, record: &str, out: &mut String) -> Result<(), Error>;

    /// Handles one raw record (no line terminator): `text` is the record as text when its
    /// chunk is known to be valid UTF-8, and the engine has then asked
    /// [`Operation::pass_through`] about it already. Repairs go to `notes`, and so do
    /// warnings; an error's column points into `raw`.
    ///
    /// The default prepares the record under `repair`, asks `pass_through` about a record
    /// the repairs changed (or one it has not seen), and otherwise calls
    /// [`Operation::apply`].
    fn apply_raw(
        &self,
        raw: &[u8],
        text: Option<&str>,
        repair: Repair,
        out: &mut String,
        notes: &mut Notes,
    ) -> Result<(), Error> {
        let mut scratch = String::new();
        let record = repair::prepare_text(raw, text, repair, &mut scratch, &mut notes.repairs)?;
        let seen = text.is_some_and(|t| t.as_ptr() == record.as_ptr() && t == record);
        if !seen && self.pass_through(record) == Some(record.len()) {
            out.push_str(record);
            return Ok(());
        }
        self.apply(record, out).map_err(|mut error| {
            if repair == Repair::Lenient {
                // The operation saw the repaired record; point into the raw one.
                error.column = repair::original_column(raw, error.column);
            }
            error
        })
    }

    /// Whether the raw record at the start of `rest` passes through: is valid, needs no
    /// repair, and is its own result. `rest` is valid UTF-8; the record is its text up to the
    /// first line feed, or all of it, and more lines may follow. Returns the record's length
    /// in bytes (without the line feed) when it passes; the engine then writes the record
    /// itself, without preparing it or calling [`Operation::apply`] (SPEC §8: a line that
    /// needs no change is copied through untouched).
    ///
    /// An implementation may return `Some(n)` only where `rest[..n]` is the whole record (it
    /// is not empty and does not end in a carriage return, and `rest[n..]` is empty or starts
    /// with a line feed or with a carriage return and a line feed),
    /// [`crate::iri::repair::prepare`] (strict or not) would return it unchanged and without
    /// repairs, and `apply` would then succeed and append exactly it. `None` is always
    /// correct; it is the default.
    #[inline]
    fn pass_through(&self, rest: &str) -> Option<usize> {
        let _ = rest;
        None
    }

    /// [`Operation::pass_through`] for many lines at once: the length of the longest prefix
    /// of `rest` made of whole lines that each pass through, are at most `max_line` bytes
    /// long and end in a line feed alone (no carriage return), line feeds included; and how
    /// many lines that is. The engine writes these lines as they are, and does not ask
    /// about them again. `rest` is valid UTF-8 and starts a line.
    ///
    /// The default asks [`Operation::pass_through`] line by line; an implementation may
    /// answer in a tighter loop, but must give the same answer.
    fn pass_through_lines(&self, rest: &str, max_line: usize) -> (usize, u64) {
        let b = rest.as_bytes();
        let (mut at, mut lines) = (0, 0);
        while let Some(n) = rest.get(at..).and_then(|r| self.pass_through(r)) {
            let whole = n > 0 && n <= max_line && b.get(at + n) == Some(&b'\n');
            if !whole || b[at + n - 1] == b'\r' {
                break;
            }
            at += n + 1;
            lines += 1;
        }
        (at, lines)
    }
}

impl<F> Operation for F
where
    F: Fn(&str, &mut String) -> Result<(), Error> + Sync,
{
    fn apply(&self, record: &str, out: &mut String) -> Result<(), Error> {
        self(record, out)
    }
}

/// How many bytes of a too-long line are kept for the `input` field of tsv and jsonl output.
pub const TOO_LONG_PREFIX: usize = 256;

/// The message of a `too-long` error.
const TOO_LONG_MESSAGE: &str = "line longer than --max-line-bytes";

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How many bytes the reader asks for at a time while it skips the rest of a too-long line.
const SKIP_READ: usize = 64 * 1024;

/// The least a chunk's input buffer grows to when a line does not fit in it (it starts at the
/// chunk size, and doubles from there as a long line needs).
const FIRST_BUFFER: usize = 64 * 1024;

/// The most bytes of chunk buffers (input and output) the engine aims to keep in flight, as
/// long as each worker still gets a chunk; see [`chunks_in_flight`].
const IN_FLIGHT_BYTES: usize = 48 * 1024 * 1024;

/// What to do with an invalid record (`--on-error`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OnError {
    /// Write it: an empty line in key output, the record with its error in tsv and jsonl.
    #[default]
    Mark,
    /// Leave it out of the output (it is still counted and diagnosed).
    Skip,
    /// Stop at the first invalid record in input order, after writing every record before
    /// it, and return [`RunError::Invalid`].
    Fail,
}

/// The settings of an [`Engine`]. [`Default`] gives the command line's defaults.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct EngineOptions {
    /// Worker threads; 0 means one per available core.
    pub threads: usize,
    /// The target size of a chunk in bytes (default 1 MiB). A chunk ends on a line boundary,
    /// so it is larger when a line is; 0 is taken as 1.
    pub chunk_size: usize,
    /// The form of each output line.
    pub output: OutputMode,
    /// What to do with invalid records.
    pub on_error: OnError,
    /// No trimming and no repairs: the record must be the exact IRI (`--strict`).
    pub strict: bool,
    /// The longest record accepted, in bytes, not counting the line terminator (default
    /// 1 MiB); longer ones are `too-long` errors. The engine holds at most about the larger
    /// of this and `chunk_size` of any one line.
    pub max_line_bytes: usize,
    /// Write only the first record of each key (`--unique`). Invalid records are never
    /// deduplicated.
    ///
    /// Keys are remembered as 128-bit fingerprints (XXH3-128), about 16 bytes each plus the
    /// hash set's overhead, not as text. Two different keys share a fingerprint with
    /// probability about n²/2¹²⁹ for n distinct keys (the birthday bound): about 1.5 × 10⁻²¹
    /// for a billion keys. Such a collision would drop one record wrongly.
    pub unique: bool,
    /// Count distinct keys for [`Stats::unique`] (`--stats`), the same way as `unique` does.
    pub stats: bool,
    /// How many invalid records are reported on the diagnostics writer (default 20), the
    /// first ones in input order; a final line counts the rest. 0 turns diagnostics off.
    pub max_diagnostics: usize,
}

crate::ladder::options::setters!(EngineOptions {
    threads: usize => with_threads,
    chunk_size: usize => with_chunk_size,
    output: OutputMode => with_output,
    on_error: OnError => with_on_error,
    strict: bool => with_strict,
    max_line_bytes: usize => with_max_line_bytes,
    unique: bool => with_unique,
    stats: bool => with_stats,
    max_diagnostics: usize => with_max_diagnostics,
});

impl EngineOptions {
    /// Whether records are repaired before the operation runs (from `strict`).
    pub fn repair(&self) -> Repair {
        if self.strict {
            Repair::Strict
        } else {
            Repair::Lenient
        }
    }
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            threads: 0,
            chunk_size: 1 << 20,
            output: OutputMode::Key,
            on_error: OnError::Mark,
            strict: false,
            max_line_bytes: 1 << 20,
            unique: false,
            stats: false,
            max_diagnostics: 20,
        }
    }
}

/// Why a run stopped before the end of its input.
#[derive(Debug)]
#[non_exhaustive]
pub enum RunError {
    /// An input could not be read or decoded (for example a truncated gzip file). Every
    /// complete line read before the error has been written and the output flushed.
    Input {
        /// The input's name.
        name: String,
        /// The error from reading or decoding it.
        source: io::Error,
    },
    /// The output could not be written.
    Output(io::Error),
    /// The output was closed by its reader (`EPIPE`, as with `irinorm … | head`). Not a
    /// failure: the command line ends quietly with status 0.
    BrokenPipe,
    /// With [`OnError::Fail`]: the first invalid record in input order. Every record before
    /// it has been written and the output flushed.
    Invalid {
        /// The name of the input holding the record.
        name: String,
        /// The record's line number in that input, from 1.
        line: u64,
        /// What is wrong with it.
        error: Error,
    },
    /// The worker threads could not be started.
    Threads(String),
}

impl RunError {
    /// The exit status SPEC §6 gives this outcome: 0 for [`RunError::BrokenPipe`], 1 for
    /// [`RunError::Invalid`], 2 for input, output and thread errors.
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::BrokenPipe => 0,
            RunError::Invalid { .. } => 1,
            _ => 2,
        }
    }

    /// Maps a write error to [`RunError::BrokenPipe`] or [`RunError::Output`].
    fn from_write(error: io::Error) -> RunError {
        if error.kind() == io::ErrorKind::BrokenPipe {
            RunError::BrokenPipe
        } else {
            RunError::Output(error)
        }
    }
}

impl fmt::Display for RunError {
    /// Formats the error without the program name; [`RunError::Invalid`] reads like a
    /// diagnostic: `NAME:LINE:COL: kind: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Input { name, source } => write!(f, "{name}: {source}"),
            RunError::Output(e) => write!(f, "error writing output: {e}"),
            RunError::BrokenPipe => f.write_str("output closed"),
            RunError::Invalid { name, line, error } => write!(
                f,
                "{name}:{line}:{}: {}: {}",
                error.column,
                error.kind.name(),
                error.message
            ),
            RunError::Threads(e) => write!(f, "cannot start worker threads: {e}"),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::Input { source, .. } => Some(source),
            RunError::Output(e) => Some(e),
            RunError::Invalid { error, .. } => Some(error),
            RunError::BrokenPipe | RunError::Threads(_) => None,
        }
    }
}

/// Runs an [`Operation`] over line-oriented input, in parallel, writing results in order.
///
/// ```
/// use irinorm::stream::{Engine, EngineOptions, OutputMode};
/// use irinorm::{Error, ErrorKind};
///
/// // An operation: lowercase ASCII, and reject records that contain a '!'.
/// let op = |record: &str, out: &mut String| -> Result<(), Error> {
///     if let Some(i) = record.find('!') {
///         return Err(Error::at_byte(ErrorKind::Syntax, record, i, "no '!' allowed"));
///     }
///     out.push_str(&record.to_ascii_lowercase());
///     Ok(())
/// };
/// let options = EngineOptions::default().with_output(OutputMode::Key);
/// let engine = Engine::new(&op, options);
///
/// let mut out = Vec::new();
/// let stats = engine.run(&b"HTTP://A/\r\nbad!\n  x:Y \n"[..], &mut out).unwrap();
/// // One output line per input line; the invalid record gives an empty line.
/// assert_eq!(out, b"http://a/\n\nx:y\n");
/// assert_eq!((stats.records, stats.invalid, stats.changed), (3, 1, 2));
/// ```
pub struct Engine<'a> {
    op: &'a dyn Operation,
    options: EngineOptions,
    progress: Option<&'a dyn Progress>,
}

/// Told how far a run has read, for a progress display (the command line draws a bar on a
/// terminal). Counts are of stored bytes, so they end at the inputs' total size even when
/// the inputs are compressed.
pub trait Progress: Sync {
    /// The run starts; `total` is the inputs' stored size when every size is known.
    fn start(&self, total: Option<u64>);
    /// `bytes` more bytes were read.
    fn advance(&self, bytes: u64);
    /// The run has ended.
    fn finish(&self);
}

/// A reader that reports what it reads to a [`Progress`].
struct Counted<'p, R> {
    inner: R,
    progress: &'p dyn Progress,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.advance(n as u64);
        Ok(n)
    }
}

impl<'a> Engine<'a> {
    /// An engine that runs `op` with `options`.
    pub fn new(op: &'a dyn Operation, options: EngineOptions) -> Self {
        Engine {
            op,
            options,
            progress: None,
        }
    }

    /// The same engine, reporting how far it has read to `progress`.
    pub fn with_progress(mut self, progress: &'a dyn Progress) -> Self {
        self.progress = Some(progress);
        self
    }

    /// The engine's settings.
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// Runs over one unnamed input (named `<input>` in errors; gzip and zstd are detected as
    /// for [`Input`]). Diagnostics are not written anywhere; [`Stats`] still counts every
    /// invalid record.
    pub fn run<R: Read + Send, W: Write>(&self, reader: R, writer: W) -> Result<Stats, RunError> {
        let mut reader = reader;
        let source = Source {
            name: "<input>".to_owned(),
            reader: Box::new(&mut reader),
            size: None,
        };
        self.run_sources(vec![source], writer, &mut io::sink())
    }

    /// Runs over several inputs, in order, as one stream, writing diagnostics to
    /// `diagnostics`. Line numbers (in diagnostics, errors and jsonl output) restart at 1
    /// for each input.
    ///
    /// If an input cannot be read, every complete line read before the error is written,
    /// the output is flushed and [`RunError::Input`] is returned; a last line that the error
    /// cut short is dropped.
    pub fn run_inputs<W: Write>(
        &self,
        inputs: Vec<Input>,
        writer: W,
        diagnostics: &mut dyn Write,
    ) -> Result<Stats, RunError> {
        let sources = inputs
            .into_iter()
            .map(|input| {
                let (name, reader, size) = input.into_parts();
                Source { name, reader, size }
            })
            .collect();
        self.run_sources(sources, writer, diagnostics)
    }

    /// The number of worker threads to start.
    fn threads(&self) -> usize {
        match self.options.threads {
            0 => thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }

    /// Sets up the channels and threads of a run, runs the writer on this thread and puts
    /// the outcome together.
    fn run_sources<W: Write>(
        &self,
        sources: Vec<Source<'_>>,
        writer: W,
        diagnostics: &mut dyn Write,
    ) -> Result<Stats, RunError> {
        let started = Instant::now();
        let threads = self.threads();
        let chunk_size = self.options.chunk_size.max(1);
        let in_flight = chunks_in_flight(threads, chunk_size, self.options.output);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("irinorm-worker-{i}"))
            .build()
            .map_err(|e| RunError::Threads(e.to_string()))?;
        let names: Vec<String> = sources.iter().map(|s| s.name.clone()).collect();
        let progress = self.progress;
        if let Some(p) = progress {
            p.start(sources.iter().map(|s| s.size).sum::<Option<u64>>());
        }

        let (work_tx, work_rx) = bounded::<Chunk>(in_flight);
        let (done_tx, done_rx) = bounded::<Chunk>(in_flight);
        let (free_tx, free_rx) = bounded::<Chunk>(in_flight);
        let stop = AtomicBool::new(false);

        let reader = Reader {
            chunk_size,
            max_line: self.options.max_line_bytes,
            in_flight,
            allocated: 0,
            spare: None,
            seq: 0,
            count_lines: self.options.output == OutputMode::Jsonl,
            line: 1,
            bytes: 0,
            work: work_tx,
            free: free_rx,
            stop: &stop,
        };
        let mut writer = Writer {
            out: writer,
            diagnostics,
            names: &names,
            options: &self.options,
            stats: Stats::default(),
            seen: (self.options.unique || self.options.stats).then(FingerprintSet::default),
            shown: 0,
            input: 0,
            line: 1,
        };

        let (read_result, write_result) = thread::scope(|scope| {
            let reading = scope.spawn(move || reader.run(sources, progress));
            let stop = &stop;
            scope.spawn(move || {
                // Every pool thread runs the worker loop until the reader is done.
                pool.broadcast(|_| self.work(&work_rx, &done_tx, stop));
            });
            let write_result = writer.run(in_flight, done_rx, free_tx, stop);
            let read_result = match reading.join() {
                Ok(result) => result,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            (read_result, write_result)
        });
        if let Some(p) = progress {
            p.finish();
        }

        write_result?;
        let input_bytes = read_result?;
        let mut stats = writer.stats;
        stats.unique = writer.seen.map(|seen| seen.len() as u64);
        stats.input_bytes = input_bytes;
        stats.elapsed = started.elapsed();
        Ok(stats)
    }

    /// The worker loop: process chunks until the reader is done or the run stops.
    fn work(&self, work: &Receiver<Chunk>, done: &Sender<Chunk>, stop: &AtomicBool) {
        let mut scratch = Scratch::default();
        for mut chunk in work.iter() {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            // A panic (a bug in the operation) is passed to the writer, which re-raises it
            // on the calling thread; left here, it would leave the other stages waiting.
            let processed = panic::catch_unwind(AssertUnwindSafe(|| {
                self.process(&mut chunk, &mut scratch);
            }));
            if let Err(payload) = processed {
                chunk.report.panic = Some(payload);
                stop.store(true, Ordering::Relaxed);
            }
            if done.send(chunk).is_err() {
                break;
            }
        }
    }

    /// Runs the operation over every record of `chunk`, filling its output and report.
    fn process(&self, chunk: &mut Chunk, scratch: &mut Scratch) {
        let Chunk {
            kind,
            first_line,
            data,
            len,
            out,
            verbatim_runs,
            report,
            ..
        } = chunk;
        out.clear();
        verbatim_runs.clear();
        report.clear();
        scratch.chunk_keys.clear();
        let data = &data[..*len];
        if *kind == ChunkKind::TooLong {
            let error = Error::new(ErrorKind::TooLong, 0, TOO_LONG_MESSAGE);
            let line = first_line.unwrap_or(1);
            self.finish_record(line, data, Err(error), scratch, out, report);
            return;
        }
        // Validate the whole chunk at once; only when that fails is each line checked alone.
        let text = simdutf8::basic::from_utf8(data).ok();
        // In key output without per-record tracking, a record that passes through is written
        // as the line itself: consecutive such lines (each with its line feed and no carriage
        // return) form one range `run` of the input, which is not copied: the writer writes
        // it from `data` (see `VerbatimRun`).
        let verbatim =
            self.options.output == OutputMode::Key && !(self.options.unique || self.options.stats);
        let mut run = 0..0;
        let mut line = first_line.unwrap_or(1);
        let mut start = 0;
        while start < data.len() {
            // The end (line feed) of the line at `start`, once it has been looked for.
            let mut line_end = None;
            if let Some(text) = text {
                // Slicing `text` after a line feed is always on a char boundary.
                let mut rest = &text[start..];
                let mut try_alone = true;
                if verbatim {
                    // The fast path, many lines at a time: they are their own keys.
                    let max_line = self.options.max_line_bytes;
                    let (n, lines) = self.op.pass_through_lines(rest, max_line);
                    // The contract, checked: whole lines.
                    if n > 0 && rest.as_bytes().get(n - 1) == Some(&b'\n') {
                        if run.end != start {
                            flush_run(out, verbatim_runs, &mut run);
                            run.start = start;
                        }
                        run.end = start + n;
                        report.stats.records += lines;
                        line += lines;
                        start += n;
                        if start == data.len() {
                            break;
                        }
                        rest = &text[start..];
                    }
                    // The line at `start` does not pass as a line that ends in a line feed
                    // alone. It may still pass if it ends in CRLF, or is the last line and
                    // has no line feed; any other goes to the operation.
                    let b = rest.as_bytes();
                    let lf = memchr::memchr(b'\n', b);
                    line_end = Some(lf.map_or(data.len(), |i| start + i));
                    try_alone = match lf {
                        Some(i) => i > 0 && b[i - 1] == b'\r',
                        None => true,
                    };
                }
                let passed = try_alone.then(|| self.op.pass_through(rest)).flatten();
                let passed = passed.and_then(|n| {
                    // The contract, checked: a whole record, not empty, without its CR.
                    let bytes = rest.as_bytes();
                    let ok = n > 0 && n <= self.options.max_line_bytes && bytes[n - 1] != b'\r';
                    ok.then(|| terminator(bytes, n)).flatten().map(|t| (n, t))
                });
                if let Some((n, terminator)) = passed {
                    // The fast path: the record is its own key.
                    report.stats.records += 1;
                    let end = start + n;
                    if verbatim && terminator == 1 {
                        if run.end != start {
                            flush_run(out, verbatim_runs, &mut run);
                            run.start = start;
                        }
                        run.end = end + 1;
                    } else {
                        flush_run(out, verbatim_runs, &mut run);
                        let (raw, key) = (&data[start..end], &rest[..n]);
                        self.write_valid(line, raw, key, &mut scratch.chunk_keys, out, report);
                    }
                    line += 1;
                    start = end + terminator.max(1);
                    continue;
                }
            }
            flush_run(out, verbatim_runs, &mut run);
            let end = line_end.unwrap_or_else(|| {
                memchr::memchr(b'\n', &data[start..]).map_or(data.len(), |i| start + i)
            });
            let record_end = if end > start && data[end - 1] == b'\r' {
                end - 1
            } else {
                end
            };
            let raw = &data[start..record_end];
            // Slicing `text` at a line feed or carriage return is always on a char boundary.
            let record = text.map(|t| &t[start..record_end]);
            let ok = self.record(line, raw, record, scratch, out, report);
            if !ok && self.options.on_error == OnError::Fail {
                return;
            }
            line += 1;
            start = end + 1;
        }
        flush_run(out, verbatim_runs, &mut run);
    }

    /// Handles one record that does not pass through: prepare, apply the operation, format.
    /// `text` is the record as `&str` when its chunk is known to be valid UTF-8. Returns
    /// whether it was valid.
    fn record(
        &self,
        line: u64,
        raw: &[u8],
        text: Option<&str>,
        scratch: &mut Scratch,
        out: &mut Vec<u8>,
        report: &mut Report,
    ) -> bool {
        let result = if raw.len() > self.options.max_line_bytes {
            Err(Error::new(ErrorKind::TooLong, 0, TOO_LONG_MESSAGE))
        } else {
            scratch.key.clear();
            let notes = &mut scratch.notes;
            let r = self
                .op
                .apply_raw(raw, text, self.options.repair(), &mut scratch.key, notes);
            report.stats.repairs.merge(&notes.repairs);
            report.stats.warnings += notes.warnings.len() as u64;
            notes.clear();
            r
        };
        self.finish_record(line, raw, result, scratch, out, report)
    }

    /// Counts a record, and formats it unless it is an invalid record that is skipped (or
    /// that stops the run). Returns whether it was valid.
    fn finish_record(
        &self,
        line: u64,
        raw: &[u8],
        result: Result<(), Error>,
        scratch: &mut Scratch,
        out: &mut Vec<u8>,
        report: &mut Report,
    ) -> bool {
        report.stats.records += 1;
        let mode = self.options.output;
        match result {
            Ok(()) => {
                let key = scratch.key.as_str();
                if key.as_bytes() != raw {
                    report.stats.changed += 1;
                }
                self.write_valid(line, raw, key, &mut scratch.chunk_keys, out, report);
                true
            }
            Err(error) => {
                report.stats.count_invalid(error.kind);
                match self.options.on_error {
                    OnError::Fail => {
                        report.failure = Some(Diagnostic { line, error });
                        return false;
                    }
                    OnError::Mark => {
                        let input = if error.kind == ErrorKind::TooLong {
                            &raw[..raw.len().min(TOO_LONG_PREFIX)]
                        } else {
                            raw
                        };
                        write_record(out, mode, line, input, Err(&error));
                    }
                    OnError::Skip => {}
                }
                if report.diagnostics.len() < self.options.max_diagnostics {
                    report.diagnostics.push(Diagnostic { line, error });
                }
                false
            }
        }
    }

    /// Formats a valid record with its key (counted already). When keys are tracked, a key
    /// new to the chunk gets a [`Span`]; with `unique`, a record whose key came earlier in
    /// the chunk is not written at all (`chunk_keys` holds the chunk's keys so far).
    #[inline]
    fn write_valid(
        &self,
        line: u64,
        raw: &[u8],
        key: &str,
        chunk_keys: &mut FingerprintSet,
        out: &mut Vec<u8>,
        report: &mut Report,
    ) {
        let start = out.len();
        write_record(out, self.options.output, line, raw, Ok(key));
        if self.options.unique || self.options.stats {
            let fingerprint = xxhash_rust::xxh3::xxh3_128(key.as_bytes());
            if chunk_keys.insert(fingerprint) {
                report.spans.push(Span {
                    start,
                    end: out.len(),
                    fingerprint,
                });
            } else if self.options.unique {
                out.truncate(start);
            }
        }
    }
}

/// The length of the line terminator at `rest[n..]` (`\n`, `\r\n`, or none at the end of
/// the chunk), if a record ends at `n`.
#[inline]
fn terminator(rest: &[u8], n: usize) -> Option<usize> {
    match rest.get(n..)? {
        [] => Some(0),
        [b'\n', ..] => Some(1),
        [b'\r', b'\n', ..] => Some(2),
        _ => None,
    }
}

/// Records the lines `data[run]` as written next, after what `out` holds now, and empties
/// `run`.
#[inline]
fn flush_run(out: &[u8], runs: &mut Vec<VerbatimRun>, run: &mut std::ops::Range<usize>) {
    if run.start < run.end {
        runs.push(VerbatimRun {
            data: run.clone(),
            at: out.len(),
        });
        *run = 0..0;
    }
}

/// Lines of a chunk's input that are written as they are: `data[self.data]` goes out just
/// before `out[self.at..]`. Records that pass through unchanged (most of them) are written
/// this way, from the input buffer, without being copied into the output buffer first.
#[derive(Clone, Debug, PartialEq, Eq)]
struct VerbatimRun {
    data: std::ops::Range<usize>,
    at: usize,
}

/// The output of a chunk, in order: its `out` with the `runs` of its `data` put in.
fn output_parts<'a>(data: &'a [u8], out: &'a [u8], runs: &[VerbatimRun]) -> Vec<&'a [u8]> {
    let mut parts = Vec::with_capacity(2 * runs.len() + 1);
    let mut from = 0;
    for run in runs {
        if run.at > from {
            parts.push(&out[from..run.at]);
        }
        parts.push(&data[run.data.clone()]);
        from = run.at;
    }
    if from < out.len() {
        parts.push(&out[from..]);
    }
    parts
}

/// Writes all of `parts` (none of them empty), with as few calls as `out` allows
/// (`Write::write_all_vectored` is not stable yet).
fn write_all_vectored(out: &mut impl Write, parts: &[&[u8]]) -> io::Result<()> {
    let mut slices: Vec<IoSlice<'_>> = parts.iter().map(|p| IoSlice::new(p)).collect();
    // `slices[first..]` are still to be written; `slices[first]` may be the rest of its part.
    let mut first = 0;
    let mut skip = 0;
    while first < parts.len() {
        let mut n = match out.write_vectored(&slices[first..]) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        while first < parts.len() && n >= parts[first].len() - skip {
            n -= parts[first].len() - skip;
            first += 1;
            skip = 0;
        }
        if n > 0 {
            skip += n;
            slices[first] = IoSlice::new(&parts[first][skip..]);
        }
    }
    Ok(())
}

/// How many chunks a run keeps in flight: `2 × threads + 2` (one being read, one being
/// written, and for each worker one being processed and one waiting), reduced towards
/// `threads + 2` when that many chunks would take more than 48 MiB.
///
/// A chunk takes its input (`chunk_size`) plus its formatted output, estimated from the
/// output form: about as large as the input for keys, twice for tsv, four times for jsonl.
/// Peak memory is about this number of chunks times that, plus per-thread scratch buffers,
/// whatever the size of the input.
pub fn chunks_in_flight(threads: usize, chunk_size: usize, output: OutputMode) -> usize {
    let threads = threads.max(1);
    let output_factor = match output {
        OutputMode::Key => 1,
        OutputMode::Tsv => 2,
        OutputMode::Jsonl => 4,
    };
    let per_chunk = chunk_size.max(1).saturating_mul(1 + output_factor);
    let by_memory = IN_FLIGHT_BYTES / per_chunk;
    (2 * threads + 2).min(by_memory.max(threads + 2))
}

/// One input as the engine reads it.
struct Source<'a> {
    name: String,
    reader: Box<dyn Read + Send + 'a>,
    size: Option<u64>,
}

/// Buffers each worker reuses from record to record.
#[derive(Default)]
struct Scratch {
    /// The repairs and warnings of the record at hand.
    notes: Notes,
    /// The operation's output for the current record.
    key: String,
    /// The fingerprints of the keys of the current chunk so far (when keys are tracked).
    chunk_keys: FingerprintSet,
}

/// What a chunk's bytes hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ChunkKind {
    /// Whole lines (the last one may lack its line feed at the end of an input).
    Lines,
    /// The first bytes (at most [`TOO_LONG_PREFIX`], without a final carriage return) of
    /// one line that is too long.
    TooLong,
}

/// A block of lines from one input, with everything the stages attach to it. Chunks are
/// recycled: the writer hands each one back to the reader once it has been written.
struct Chunk {
    /// The chunk's place in the run; the writer emits chunks in this order.
    seq: u64,
    /// The input the lines come from (an index into the list of names).
    input: usize,
    /// The line number, within its input, of the chunk's first line, where the reader
    /// counted lines (only the jsonl output needs them while the records are formatted).
    /// Otherwise the worker numbers the chunk's lines from 1 and the writer, which knows how
    /// many lines the chunks before it held, adds the rest.
    first_line: Option<u64>,
    /// What `data` holds.
    kind: ChunkKind,
    /// The bytes read. Only `data[..len]` counts; the rest stays allocated and initialized
    /// so the next read can go straight into it.
    data: Vec<u8>,
    /// How many bytes of `data` are filled.
    len: usize,
    /// The formatted output lines of the chunk's records, but for the verbatim runs.
    out: Vec<u8>,
    /// Lines of `data` written as they are, in between parts of `out`.
    verbatim_runs: Vec<VerbatimRun>,
    /// The chunk's counts and diagnostics.
    report: Report,
}

impl Chunk {
    fn new() -> Chunk {
        Chunk {
            seq: 0,
            input: 0,
            first_line: None,
            kind: ChunkKind::Lines,
            data: Vec::new(),
            len: 0,
            out: Vec::new(),
            verbatim_runs: Vec::new(),
            report: Report::default(),
        }
    }

    /// Empties the chunk for reuse on `input`, giving back memory that an unusually long
    /// line made it take.
    fn reset(&mut self, input: usize, chunk_size: usize) {
        self.input = input;
        self.kind = ChunkKind::Lines;
        self.len = 0;
        let keep = 2 * chunk_size.max(SKIP_READ);
        if self.data.len() > keep {
            self.data.truncate(chunk_size);
            self.data.shrink_to_fit();
        }
        if self.out.capacity() > 4 * keep {
            self.out = Vec::new();
        }
    }

    /// Appends `bytes` after the filled part.
    fn push(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        if self.data.len() < end {
            self.data.resize(end, 0);
        }
        self.data[self.len..end].copy_from_slice(bytes);
        self.len = end;
    }
}

/// What a worker learned about a chunk's records.
#[derive(Default)]
struct Report {
    /// Record counts (records, invalid, repairs, changed).
    stats: Stats,
    /// The output of each valid record whose key is new to the chunk, with the key's
    /// fingerprint, in order; filled only when keys are deduplicated or counted. (With
    /// `unique`, the records whose key came earlier in the chunk are left out of the output
    /// already; the writer leaves out those whose key came in an earlier chunk. Invalid
    /// records have no span: they are always written.)
    spans: Vec<Span>,
    /// The chunk's first invalid records, at most `max_diagnostics`.
    diagnostics: Vec<Diagnostic>,
    /// With [`OnError::Fail`], the first invalid record: the worker stopped there, so the
    /// chunk's output holds exactly the records before it.
    failure: Option<Diagnostic>,
    /// The payload of a panic raised while the chunk was processed.
    panic: Option<Box<dyn Any + Send>>,
}

impl Report {
    fn clear(&mut self) {
        self.stats = Stats::default();
        self.spans.clear();
        self.diagnostics.clear();
        self.failure = None;
        self.panic = None;
    }
}

/// Where a valid record's output lies in its chunk's output buffer, and the fingerprint of
/// its key.
struct Span {
    start: usize,
    end: usize,
    fingerprint: u128,
}

/// An invalid record to report.
struct Diagnostic {
    line: u64,
    error: Error,
}

/// Why the reader stopped before the end of its inputs.
enum Halt {
    /// The run is stopping (the writer gave up); not an error of the reader's.
    Stopped,
    /// Reading failed.
    Failed(io::Error),
}

/// The reader stage: cuts inputs into chunks of whole lines.
struct Reader<'s> {
    chunk_size: usize,
    max_line: usize,
    /// How many chunks may exist in all.
    in_flight: usize,
    /// How many chunks exist so far (they are made on demand, up to `in_flight`).
    allocated: usize,
    /// A chunk left over from an input that ended, ready for the next input.
    spare: Option<Chunk>,
    /// The sequence number of the next chunk to send.
    seq: u64,
    /// Whether chunks are numbered here (see [`Chunk::first_line`]).
    count_lines: bool,
    /// The line number, in the current input, of the next line to send (when counting).
    line: u64,
    /// Bytes read so far (after decompression).
    bytes: u64,
    work: Sender<Chunk>,
    free: Receiver<Chunk>,
    stop: &'s AtomicBool,
}

impl Reader<'_> {
    /// Reads every input in order. Returns the number of bytes read.
    fn run(
        mut self,
        sources: Vec<Source<'_>>,
        progress: Option<&dyn Progress>,
    ) -> Result<u64, RunError> {
        for (index, source) in sources.into_iter().enumerate() {
            let Source { name, reader, .. } = source;
            // Progress counts stored bytes, before decompression.
            let reader: Box<dyn Read + Send + '_> = match progress {
                Some(progress) => Box::new(Counted {
                    inner: reader,
                    progress,
                }),
                None => reader,
            };
            let result = input::decode(reader)
                .map_err(Halt::Failed)
                .and_then(|mut stream| self.read_input(index, &mut *stream));
            match result {
                Ok(()) => {}
                Err(Halt::Stopped) => break,
                Err(Halt::Failed(source)) => return Err(RunError::Input { name, source }),
            }
        }
        Ok(self.bytes)
    }

    /// Cuts one input into chunks and sends them on.
    fn read_input(&mut self, input: usize, src: &mut dyn Read) -> Result<(), Halt> {
        self.line = 1;
        let mut chunk = self.take(input)?;
        // A byte order mark at the very start of an input is not part of the first record.
        let mut at_end = false;
        while chunk.len < BOM.len() && !at_end {
            let want = BOM.len() - chunk.len;
            at_end = self.read(src, &mut chunk, want)? == 0;
        }
        if chunk.data[..chunk.len].starts_with(BOM) {
            chunk.data.copy_within(BOM.len()..chunk.len, 0);
            chunk.len -= BOM.len();
        }
        if at_end {
            // Do not read again after the end: a terminal would wait for another one.
            return self.finish_input(chunk);
        }

        // `data[..scanned]` has been searched for line feeds; the last line begins at
        // `line_start` (0 while the chunk holds no complete line).
        let mut scanned = 0;
        let mut line_start = 0;
        loop {
            if let Some(i) = memchr::memrchr(b'\n', &chunk.data[scanned..chunk.len]) {
                line_start = scanned + i + 1;
            }
            scanned = chunk.len;

            if line_start > 0 && chunk.len >= self.chunk_size {
                // Full: send the whole lines on, carry the unfinished one to a new chunk.
                let mut next = self.take(input)?;
                next.push(&chunk.data[line_start..chunk.len]);
                chunk.len = line_start;
                self.send_lines(chunk)?;
                chunk = next;
                scanned = chunk.len;
                line_start = 0;
                continue;
            }
            if line_start == 0 && chunk.len > self.max_line.saturating_add(1) {
                // One unfinished line, already too long even without a final CR.
                match self.skip_long_line(input, chunk, src)? {
                    Some(next) => {
                        chunk = next;
                        scanned = 0;
                        continue;
                    }
                    None => return Ok(()),
                }
            }

            let want = if chunk.len < self.chunk_size {
                self.chunk_size - chunk.len
            } else {
                // One line longer than a chunk: grow by doubling, but never past the point
                // where it is known to be too long.
                chunk.len.min(self.max_line.saturating_add(2) - chunk.len)
            };
            let n = match self.read(src, &mut chunk, want) {
                Ok(n) => n,
                Err(Halt::Failed(e)) => {
                    // Pass on the complete lines read before the error; drop the cut one.
                    if line_start > 0 {
                        chunk.len = line_start;
                        self.send_lines(chunk)?;
                    }
                    return Err(Halt::Failed(e));
                }
                Err(halt) => return Err(halt),
            };
            if n == 0 {
                return self.finish_input(chunk);
            }
        }
    }

    /// At the end of an input, sends what is left: the last lines, the final one maybe
    /// without a line feed.
    fn finish_input(&mut self, chunk: Chunk) -> Result<(), Halt> {
        if chunk.len > 0 {
            self.send_lines(chunk)
        } else {
            self.spare = Some(chunk);
            Ok(())
        }
    }

    /// Consumes the rest of a too-long line whose first `chunk.len` bytes (with no line feed)
    /// are in `chunk`, keeping at most [`TOO_LONG_PREFIX`] bytes of it, and sends it on as a
    /// [`ChunkKind::TooLong`] chunk. Returns a chunk holding what was read after the line,
    /// or `None` at the end of the input.
    fn skip_long_line(
        &mut self,
        input: usize,
        mut chunk: Chunk,
        src: &mut dyn Read,
    ) -> Result<Option<Chunk>, Halt> {
        chunk.kind = ChunkKind::TooLong;
        let mut line_len = chunk.len;
        chunk.len = chunk.len.min(TOO_LONG_PREFIX);
        loop {
            // New bytes land right after the kept prefix: the ones still wanted for it are
            // then already in place, the others are overwritten by the next read.
            let kept = chunk.len;
            let n = self.read(src, &mut chunk, SKIP_READ)?;
            let found = memchr::memchr(b'\n', &chunk.data[kept..kept + n]);
            let part_of_line = found.unwrap_or(n);
            line_len += part_of_line;
            chunk.len = kept + part_of_line.min(TOO_LONG_PREFIX.saturating_sub(kept));
            if n == 0 || found.is_some() {
                let next = match found {
                    Some(i) => {
                        let mut next = self.take(input)?;
                        next.push(&chunk.data[kept + i + 1..kept + n]);
                        Some(next)
                    }
                    None => None,
                };
                // The record loses one final CR; it is in the prefix only if all of the line is.
                if line_len <= TOO_LONG_PREFIX && chunk.data[..chunk.len].ends_with(b"\r") {
                    chunk.len -= 1;
                }
                self.send(chunk, 1)?;
                return Ok(next);
            }
        }
    }

    /// Reads up to `want` bytes after the filled part of `chunk`. Returns how many were
    /// read (0 at the end of the input).
    fn read(&mut self, src: &mut dyn Read, chunk: &mut Chunk, want: usize) -> Result<usize, Halt> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(Halt::Stopped);
        }
        let mut end = chunk.len + want;
        if chunk.data.len() < end {
            // Grow by doubling, so that one long line does not take more memory than it
            // needs; the caller reads again after a short read anyway.
            let grown = (2 * chunk.data.len()).max(FIRST_BUFFER).max(chunk.len + 1);
            chunk.data.resize(end.min(grown), 0);
            end = end.min(chunk.data.len());
        }
        loop {
            match src.read(&mut chunk.data[chunk.len..end]) {
                Ok(n) => {
                    chunk.len += n;
                    self.bytes += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Halt::Failed(e)),
            }
        }
    }

    /// An empty chunk for `input`: a spare one, a new one while fewer than `in_flight`
    /// exist, or else one the writer hands back (waiting for it).
    fn take(&mut self, input: usize) -> Result<Chunk, Halt> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(Halt::Stopped);
        }
        let mut chunk = if let Some(chunk) = self.spare.take() {
            chunk
        } else if let Ok(chunk) = self.free.try_recv() {
            chunk
        } else if self.allocated < self.in_flight {
            self.allocated += 1;
            Chunk::new()
        } else {
            self.free.recv().map_err(|_| Halt::Stopped)?
        };
        chunk.reset(input, self.chunk_size);
        if chunk.data.is_empty() {
            // A new chunk's buffer, zeroed by the allocator: for a whole chunk that is memory
            // fresh from the system, zero already and not resident until it is read into, so
            // a small input does not touch a whole chunk's worth of memory.
            chunk.data = vec![0; self.chunk_size];
        }
        Ok(chunk)
    }

    /// Sends a chunk of whole lines on.
    fn send_lines(&mut self, chunk: Chunk) -> Result<(), Halt> {
        let lines = if self.count_lines {
            memchr::memchr_iter(b'\n', &chunk.data[..chunk.len]).count() as u64
        } else {
            0
        };
        self.send(chunk, lines)
    }

    /// Numbers a chunk that holds `lines` line feeds (or one too-long line) and sends it to
    /// the workers.
    fn send(&mut self, mut chunk: Chunk, lines: u64) -> Result<(), Halt> {
        chunk.seq = self.seq;
        chunk.first_line = self.count_lines.then_some(self.line);
        self.seq += 1;
        self.line += lines;
        self.work.send(chunk).map_err(|_| Halt::Stopped)
    }
}

/// A hash set of 128-bit key fingerprints. The fingerprints are already uniformly
/// distributed, so hashing one is taking its low 64 bits.
type FingerprintSet = HashSet<u128, BuildHasherDefault<FingerprintHasher>>;

/// The [`Hasher`] of [`FingerprintSet`].
#[derive(Default)]
struct FingerprintHasher(u64);

impl Hasher for FingerprintHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Not used for u128 keys (see `write_u128`); a plain fold keeps it correct anyway.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u128(&mut self, fingerprint: u128) {
        self.0 = fingerprint as u64;
    }
}

/// The writer stage: emits chunks in sequence order, with diagnostics and counts.
struct Writer<'a, W> {
    out: W,
    diagnostics: &'a mut dyn Write,
    names: &'a [String],
    options: &'a EngineOptions,
    /// Counts over the chunks written so far.
    stats: Stats,
    /// Fingerprints of the keys written so far (with `unique` or `stats`).
    seen: Option<FingerprintSet>,
    /// Diagnostics written so far.
    shown: usize,
    /// The input of the chunks written last, and the line number in it of the next line.
    input: usize,
    line: u64,
}

impl<W: Write> Writer<'_, W> {
    /// Writes every chunk that arrives on `done`, in order, and hands each back on `free`.
    /// On an error, tells the other stages to stop; dropping the channels on return wakes
    /// any of them that waits.
    fn run(
        &mut self,
        in_flight: usize,
        done: Receiver<Chunk>,
        free: Sender<Chunk>,
        stop: &AtomicBool,
    ) -> Result<(), RunError> {
        let result = self.drain(in_flight, &done, &free);
        if result.is_err() {
            stop.store(true, Ordering::Relaxed);
        }
        result
    }

    /// The body of [`Writer::run`]: reorders, emits and recycles chunks until the workers
    /// are done, then counts the diagnostics not shown and flushes the output.
    fn drain(
        &mut self,
        in_flight: usize,
        done: &Receiver<Chunk>,
        free: &Sender<Chunk>,
    ) -> Result<(), RunError> {
        // Chunks that arrived early wait here. At most `in_flight` chunks exist and the ones
        // not yet written are numbered `next..next + in_flight`, so `seq % in_flight` gives
        // each its own slot.
        let mut waiting: Vec<Option<Chunk>> = (0..in_flight).map(|_| None).collect();
        let mut next = 0u64;
        for mut chunk in done.iter() {
            if let Some(payload) = chunk.report.panic.take() {
                // Unwinding drops the channels, which lets the other stages end.
                panic::resume_unwind(payload);
            }
            let slot = (chunk.seq % in_flight as u64) as usize;
            debug_assert!(waiting[slot].is_none());
            waiting[slot] = Some(chunk);
            while let Some(mut chunk) = waiting[(next % in_flight as u64) as usize].take() {
                self.emit(&mut chunk)?;
                next += 1;
                // The reader may be done already; then the chunk is simply dropped.
                let _ = free.send(chunk);
            }
        }
        let hidden = self.stats.invalid - self.shown as u64;
        if self.options.max_diagnostics > 0 && hidden > 0 {
            // Diagnostics are best effort: a closed standard error does not stop the run.
            let _ = writeln!(
                self.diagnostics,
                "irinorm: {hidden} more invalid records not shown"
            );
        }
        self.out.flush().map_err(RunError::from_write)
    }

    /// Writes one chunk's output, diagnostics and counts.
    fn emit(&mut self, chunk: &mut Chunk) -> Result<(), RunError> {
        let report = &chunk.report;
        self.stats.merge_counts(&report.stats);
        let name = &self.names[chunk.input];
        if chunk.input != self.input {
            self.input = chunk.input;
            self.line = 1;
        }
        // What turns the worker's line numbers into the input's: each of the chunk's lines
        // is a record, so the records counted so far tell where the chunk starts.
        let offset = match chunk.first_line {
            Some(_) => 0,
            None => self.line - 1,
        };
        self.line += report.stats.records;
        for d in &report.diagnostics {
            if self.shown < self.options.max_diagnostics {
                let line = d.line + offset;
                let _ = write_diagnostic(self.diagnostics, name, line, &d.error);
                self.shown += 1;
            }
        }
        if let Some(seen) = &mut self.seen {
            if self.options.unique {
                // Squeeze out the records whose key was written in an earlier chunk: what lies
                // between spans (invalid records) stays, and each span whose key is new.
                let out = &mut chunk.out;
                let mut kept = 0;
                let mut from = 0;
                for span in &report.spans {
                    let to = if seen.insert(span.fingerprint) {
                        span.end
                    } else {
                        span.start
                    };
                    if kept != from {
                        out.copy_within(from..to, kept);
                    }
                    kept += to - from;
                    from = span.end;
                }
                let len = out.len();
                if kept != from {
                    out.copy_within(from..len, kept);
                }
                out.truncate(kept + (len - from));
            } else {
                seen.extend(report.spans.iter().map(|s| s.fingerprint));
            }
        }
        let written = if chunk.verbatim_runs.is_empty() {
            self.out.write_all(&chunk.out)
        } else {
            let data = &chunk.data[..chunk.len];
            let parts = output_parts(data, &chunk.out, &chunk.verbatim_runs);
            write_all_vectored(&mut self.out, &parts)
        };
        written.map_err(RunError::from_write)?;
        if let Some(failure) = &report.failure {
            self.out.flush().map_err(RunError::from_write)?;
            return Err(RunError::Invalid {
                name: name.clone(),
                line: failure.line + offset,
                error: failure.error.clone(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upper(record: &str, out: &mut String) -> Result<(), Error> {
        if let Some(i) = record.find('x') {
            return Err(Error::at_byte(ErrorKind::Syntax, record, i, "x"));
        }
        out.push_str(&record.to_ascii_uppercase());
        Ok(())
    }

    fn run(input: &[u8], options: EngineOptions) -> (Vec<u8>, Result<Stats, RunError>) {
        let mut out = Vec::new();
        let result = Engine::new(&upper, options).run(input, &mut out);
        (out, result)
    }

    /// Keeps records of the letters `a`–`w` as they are (and passes them through);
    /// uppercases the others (as `upper`, for which `x` is an error).
    struct Lowercase;

    impl Operation for Lowercase {
        fn apply(&self, record: &str, out: &mut String) -> Result<(), Error> {
            if !record.is_empty() && record.chars().all(|c| matches!(c, 'a'..='w')) {
                out.push_str(record);
                return Ok(());
            }
            upper(record, out)
        }

        fn pass_through(&self, rest: &str) -> Option<usize> {
            let n = rest
                .find(|c: char| !matches!(c, 'a'..='w'))
                .unwrap_or(rest.len());
            let ok = n > 0 && (n == rest.len() || rest[n..].starts_with(['\n', '\r']));
            ok.then_some(n)
        }
    }

    /// A writer that takes at most 5 bytes per call, and of a vectored write only the first
    /// slice that is not empty (the default `write_vectored`).
    struct Trickle(Vec<u8>);

    impl Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let n = buf.len().min(5);
            self.0.extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn verbatim_runs_are_written_in_place_through_short_writes() {
        let input = b"aa\nbb\nCc\nxx\ndd\r\nee\nff\n\ngg\nhh";
        let want = b"aa\nbb\nCC\n\ndd\nee\nff\n\ngg\nhh\n";
        for chunk_size in [1, 4, 9, 1 << 20] {
            for threads in [1, 2] {
                let options = EngineOptions {
                    chunk_size,
                    threads,
                    ..EngineOptions::default()
                };
                let mut vec = Vec::new();
                Engine::new(&Lowercase, options.clone())
                    .run(&input[..], &mut vec)
                    .unwrap();
                assert_eq!(vec, want, "{chunk_size} {threads}");
                let mut trickle = Trickle(Vec::new());
                Engine::new(&Lowercase, options)
                    .run(&input[..], &mut trickle)
                    .unwrap();
                assert_eq!(trickle.0, want, "{chunk_size} {threads}");
            }
        }
    }

    #[test]
    fn runs_of_lines_pass_through_by_default_line_by_line() {
        let op = Lowercase;
        assert_eq!(op.pass_through_lines("aa\nbb\ncc\n", 10), (9, 3));
        assert_eq!(op.pass_through_lines("aa\nbb\r\ncc\n", 10), (3, 1));
        assert_eq!(op.pass_through_lines("aa\nbb\ncc", 10), (6, 2));
        assert_eq!(op.pass_through_lines("aa\nxx\nbb\n", 10), (3, 1));
        assert_eq!(op.pass_through_lines("aa\nbbbb\ncc\n", 3), (3, 1));
        assert_eq!(op.pass_through_lines("\naa\n", 10), (0, 0));
        assert_eq!(op.pass_through_lines("", 10), (0, 0));
        assert_eq!(upper.pass_through_lines("aa\n", 10), (0, 0));
    }

    #[test]
    fn output_parts_put_the_runs_in_place() {
        let data = b"0123456789";
        let out = b"abcdef";
        let join = |runs: &[VerbatimRun]| -> Vec<u8> { output_parts(data, out, runs).concat() };
        let run = |data: std::ops::Range<usize>, at| VerbatimRun { data, at };
        assert_eq!(join(&[]), b"abcdef");
        assert_eq!(join(&[run(0..2, 0)]), b"01abcdef");
        assert_eq!(join(&[run(0..2, 0), run(5..6, 0)]), b"015abcdef");
        assert_eq!(join(&[run(1..3, 2), run(7..10, 6)]), b"ab12cdef789");
        assert_eq!(output_parts(data, out, &[run(1..3, 6)]).len(), 2);
    }

    #[test]
    fn records_follow_the_line_rules() {
        for chunk_size in [1, 2, 3, 5, 1 << 20] {
            let options = EngineOptions {
                chunk_size,
                threads: 2,
                ..EngineOptions::default()
            };
            let (out, stats) = run(b"\xEF\xBB\xBFa\r\n\nb c\r\nx\nd", options.clone());
            assert_eq!(out, b"A\n\nB%20C\n\nD\n");
            let stats = stats.unwrap();
            assert_eq!((stats.records, stats.invalid, stats.changed), (5, 2, 3));
            assert_eq!(stats.invalid_of(ErrorKind::Empty), 1);
            assert_eq!(stats.invalid_of(ErrorKind::Syntax), 1);
            assert_eq!(run(b"", options.clone()).0, b"");
            assert_eq!(run(b"\xEF\xBB\xBF", options.clone()).0, b"");
            assert_eq!(run(b"a\n", options.clone()).0, b"A\n");
            assert_eq!(run(b"\n", options.clone()).0, b"\n");
        }
    }

    #[test]
    fn too_long_lines_are_skipped_with_a_prefix() {
        let mut input = b"ab\n".to_vec();
        input.extend(vec![b'y'; 1000]);
        input.extend(b"\r\ncd\n");
        for chunk_size in [1, 4, 100, 5000] {
            let options = EngineOptions {
                chunk_size,
                max_line_bytes: 10,
                output: OutputMode::Tsv,
                ..EngineOptions::default()
            };
            let (out, stats) = run(&input, options);
            let expected = format!(
                "ab\tAB\t\n{}\t\ttoo-long:0: {TOO_LONG_MESSAGE}\ncd\tCD\t\n",
                "y".repeat(TOO_LONG_PREFIX)
            );
            assert_eq!(String::from_utf8(out).unwrap(), expected, "{chunk_size}");
            assert_eq!(stats.unwrap().invalid_of(ErrorKind::TooLong), 1);
        }
    }

    #[test]
    fn chunks_in_flight_stay_bounded() {
        let key = OutputMode::Key;
        assert_eq!(chunks_in_flight(1, 1 << 20, key), 4);
        assert_eq!(chunks_in_flight(4, 1 << 20, key), 10);
        assert_eq!(chunks_in_flight(16, 1 << 20, key), 24);
        assert_eq!(chunks_in_flight(64, 1 << 20, key), 66);
        assert_eq!(chunks_in_flight(4, 1, key), 10);
        assert_eq!(chunks_in_flight(8, 1 << 20, OutputMode::Jsonl), 10);
        assert_eq!(chunks_in_flight(8, 1 << 20, OutputMode::Tsv), 16);
    }

    #[test]
    fn exit_codes() {
        assert_eq!(RunError::BrokenPipe.exit_code(), 0);
        let invalid = RunError::Invalid {
            name: "f".into(),
            line: 3,
            error: Error::new(ErrorKind::Syntax, 2, "bad"),
        };
        assert_eq!(invalid.exit_code(), 1);
        assert_eq!(invalid.to_string(), "f:3:2: syntax: bad");
        assert_eq!(RunError::Output(io::Error::other("x")).exit_code(), 2);
    }
}
