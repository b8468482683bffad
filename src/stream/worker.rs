//! The worker stage (SPEC §2 records, §8 engine): runs the operation over every record of a
//! chunk and formats the results into the chunk's one output buffer, with its counts and
//! first diagnostics. The chunk is validated as UTF-8 a piece at a time ([`PIECE`]), just
//! before its lines are gone through; lines that pass through (the fast path) are written as
//! they are, in key output as [`VerbatimRun`]s of the input that are not even copied; every
//! other line is prepared and handed to the operation.

use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};

use crossbeam_channel::{Receiver, Sender};

use crate::iri::error::{self, Error, ErrorKind, Warning};
use crate::ladder::record::without_cr;
use crate::ladder::Notes;
use crate::stream::chunk::{
    lines_of, Chunk, ChunkKind, Diagnostic, Report, Span, VerbatimRun, TOO_LONG_PREFIX,
};
use crate::stream::dedup;
use crate::stream::hyperloglog::HyperLogLog;
use crate::stream::operation::{NextLine, Operation};
use crate::stream::options::{EngineOptions, OnError};
use crate::stream::output::{OutputMode, Record, RowWriter};

/// The chunk is validated as UTF-8 this many bytes at a time (cut after a line feed; a
/// longer line is a piece of its own), each piece just before its lines are gone through:
/// the scan then reads bytes that are in the cache, and, as it prefetches the input ahead
/// of the line at hand, the processor fetches the next piece while the scan works on this
/// one. Validated at once, a chunk's bytes came from memory in one stretch in which the
/// processor did nothing else: one thread took 4-12 % more CPU time in the modes whose lines
/// mostly pass through (docs/performance.md, "2026-11-27, fifth").
const PIECE: usize = 16 * 1024;

/// The message of a `too-long` error.
const TOO_LONG_MESSAGE: &str = "line longer than --max-line-bytes";

/// The operation and the settings the workers of a run share.
pub(super) struct Worker<'a> {
    op: &'a dyn Operation,
    options: EngineOptions,
    /// The names of the inputs, for the rows that carry them.
    names: &'a [String],
    /// The records that pass through are printable
    /// ([`Operation::passes_printable_records`]).
    printable: bool,
    /// The operation's runs of keys may hold lines that end in a line feed alone
    /// ([`Operation::key_lines_take_lf_lines`]).
    key_lf: bool,
}

/// Buffers each worker reuses from record to record.
struct Scratch {
    /// The repairs and warnings of the record at hand.
    notes: Notes,
    /// The operation's output for the current record.
    key: String,
    /// The formatter of the output records.
    rows: RowWriter,
    /// When the fast path is tried.
    backoff: Backoff,
    /// The operation's runs of keys refused the record at hand.
    refused_by_key_lines: bool,
    /// The key of a line in a run of rows ([`Operation::key_each_line`]).
    run_key: Vec<u8>,
}

impl Scratch {
    /// Empty buffers for a run under `options`.
    fn new(options: &EngineOptions) -> Self {
        Scratch {
            notes: Notes::default(),
            key: String::new(),
            rows: RowWriter::new(options.format()),
            backoff: Backoff::default(),
            refused_by_key_lines: false,
            run_key: Vec::new(),
        }
    }
}

/// When a worker asks the fast path about the line at hand. After [`Backoff::REFUSALS`]
/// lines in a row that it did not take, the worker hands lines straight to the operation
/// for a while ([`Backoff::FIRST`] lines, twice as many each time the line tried after
/// them is refused too, up to [`Backoff::MOST`]), so that an input whose lines are mostly
/// not canonical does not pay for a scan of each line that ends in the full ladder anyway.
/// A line the fast path takes starts the count again. Either way a line gets the same
/// result: the fast path takes a line only where the operation would give the line itself.
#[derive(Debug)]
struct Backoff {
    /// Lines refused in a row (at most `REFUSALS - 1` once lines have been skipped).
    refused: u32,
    /// Lines still to hand straight to the operation.
    skip: u32,
    /// How many to skip after the next refusal that reaches `REFUSALS`.
    next: u32,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            refused: 0,
            skip: 0,
            next: Backoff::FIRST,
        }
    }
}

impl Backoff {
    /// Refusals in a row before lines are skipped.
    const REFUSALS: u32 = 8;
    /// Lines skipped the first time.
    const FIRST: u32 = 16;
    /// The most lines skipped at once.
    const MOST: u32 = 1024;

    /// Whether to ask the fast path about the line at hand (each `false` skips one line).
    #[inline]
    fn tries(&mut self) -> bool {
        if self.skip == 0 {
            return true;
        }
        self.skip -= 1;
        false
    }

    /// The fast path took lines.
    #[inline]
    fn taken(&mut self) {
        self.refused = 0;
        self.next = Backoff::FIRST;
    }

    /// The fast path refused a line.
    #[inline]
    fn refused(&mut self) {
        self.refused += 1;
        if self.refused >= Backoff::REFUSALS {
            self.skip = self.next;
            self.next = (self.next * 2).min(Backoff::MOST);
            self.refused = Backoff::REFUSALS - 1;
        }
    }
}

/// A worker's way through one chunk of lines: where it is, and where the results go.
struct Pass<'c> {
    /// The chunk's bytes.
    data: &'c [u8],
    /// The pieces of `data` validated so far, as text, while every one is valid UTF-8
    /// ([`Pass::validate_piece`]): they end after a line feed, or at the end of `data`.
    /// `None` once a piece is not: from that piece to the end of the chunk, each line is
    /// checked alone.
    text: Option<&'c str>,
    /// Whether lines that pass through are written as [`VerbatimRun`]s (see
    /// [`Worker::verbatim`]).
    writes_runs: bool,
    /// The start of the next line, and its line number.
    start: usize,
    line: u64,
    /// Lines that pass through, just before `start`, not yet recorded as a [`VerbatimRun`].
    run: Range<usize>,
    /// What the operation said of the line at `start`: whether its runs of keys take it
    /// ([`Operation::pass_through_lines_then_keys`]).
    next: NextLine,
    /// The chunk's output, its verbatim runs and its report.
    out: &'c mut Vec<u8>,
    runs: &'c mut Vec<VerbatimRun>,
    report: &'c mut Report,
}

impl<'c> Pass<'c> {
    /// Where the text validated so far ends (see [`Pass::text`]): the end of `data` once a
    /// piece is not valid UTF-8, as nothing more is validated.
    #[inline]
    fn valid_to(&self) -> usize {
        self.text.map_or(self.data.len(), str::len)
    }

    /// Validates the next piece of the chunk, from the end of `text` to the last line feed
    /// within [`PIECE`] bytes (or the first after them, or the end of the chunk), and extends
    /// `text` over it; where it is not valid UTF-8, `text` is `None` for the rest of the
    /// chunk.
    fn validate_piece(&mut self) {
        // After a piece that is not valid UTF-8, nothing more is validated.
        let Some(valid) = self.text else { return };
        let (data, from) = (self.data, valid.len());
        let end = piece_end(data, from);
        if simdutf8::basic::from_utf8(&data[from..end]).is_ok() {
            // SAFETY: `data[..from]` is valid UTF-8 (it is `valid`, a `&str`), and so is
            // `data[from..end]` (just validated); valid UTF-8 followed by valid UTF-8 is
            // valid UTF-8.
            self.text = Some(unsafe { std::str::from_utf8_unchecked(&data[..end]) });
        } else {
            self.text = None;
        }
    }

    /// Moves past the lines up to `to`, which pass through and are written as they are:
    /// they join the run, or start a new one if the run does not end where they start.
    #[inline]
    fn verbatim(&mut self, to: usize, lines: u64) {
        if self.run.end != self.start {
            self.flush_run();
            self.run.start = self.start;
        }
        self.run.end = to;
        self.line += lines;
        self.start = to;
    }

    /// Records the run as written next, after what `out` holds now, and empties it.
    #[inline]
    fn flush_run(&mut self) {
        if self.run.start < self.run.end {
            self.runs.push(VerbatimRun {
                data: self.run.clone(),
                at: self.out.len(),
            });
            self.run = 0..0;
        }
    }

    /// The end of the line at `start`: its line feed, or the end of the chunk.
    #[inline]
    fn line_end(&self) -> usize {
        let rest = &self.data[self.start..];
        memchr::memchr(b'\n', rest).map_or(self.data.len(), |i| self.start + i)
    }
}

impl<'a> Worker<'a> {
    /// The workers' part of a run of `op` under `options` over the inputs `names`.
    pub(super) fn new(op: &'a dyn Operation, options: &EngineOptions, names: &'a [String]) -> Self {
        Worker {
            op,
            options: options.clone(),
            names,
            printable: op.passes_printable_records(),
            key_lf: op.key_lines_take_lf_lines(),
        }
    }

    /// The worker loop: process chunks until the reader is done or the run stops.
    pub(super) fn work(&self, work: &Receiver<Chunk>, done: &Sender<Chunk>, stop: &AtomicBool) {
        let mut scratch = Scratch::new(&self.options);
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

    /// Whether keys are fingerprinted (`unique` or `stats`).
    #[inline]
    fn tracks_keys(&self) -> bool {
        self.options.unique || self.options.stats
    }

    /// Whether a record that passes through is written as the line itself: in key output
    /// without deduplication, consecutive such lines (each with its line feed and no
    /// carriage return) form one range of the input, which is not copied: the writer writes
    /// it from the chunk's data (see [`VerbatimRun`]). With `stats`, each key still goes into
    /// the chunk's sketch as it is found ([`Worker::sketches`]).
    fn verbatim(&self) -> bool {
        self.options.output == OutputMode::Key
            && !self.options.unique
            && !self.options.null_terminated
    }

    /// Whether keys are counted into a sketch (`stats` without `unique`).
    #[inline]
    fn sketches(&self) -> bool {
        self.options.stats && !self.options.unique
    }

    /// Runs the operation over every record of `chunk`, filling its output and report.
    fn process(&self, chunk: &mut Chunk, scratch: &mut Scratch) {
        let Chunk {
            input,
            kind,
            first_line,
            data,
            len,
            mapped,
            out,
            verbatim_runs,
            report,
            ..
        } = chunk;
        out.clear();
        verbatim_runs.clear();
        report.clear();
        let data = lines_of(&data[..*len], *kind, mapped);
        let line = first_line.unwrap_or(1);
        let file = self.names.get(*input).map_or("", String::as_str);
        scratch.rows.start_input(*input, file);
        if *kind == ChunkKind::TooLong {
            let error = Error::new(ErrorKind::TooLong, 0, TOO_LONG_MESSAGE);
            self.finish_record(line, data, Err(error), &[], scratch, out, report);
            return;
        }
        if let Some(lines) = mapped.as_ref().filter(|_| *kind == ChunkKind::Lines) {
            lines.populate();
        }
        let mut pass = Pass {
            data,
            // Validated a piece at a time as the lines are gone through.
            text: Some(""),
            writes_runs: self.verbatim(),
            start: 0,
            line,
            run: 0..0,
            next: NextLine::Unknown,
            out,
            runs: verbatim_runs,
            report,
        };
        self.records(&mut pass, scratch);
    }

    /// Goes through a chunk of lines, line by line or many at a time, until its end or a
    /// record that stops the run ([`OnError::Fail`]).
    fn records(&self, pass: &mut Pass<'_>, scratch: &mut Scratch) {
        while pass.start < pass.data.len() {
            while pass.start >= pass.valid_to() {
                pass.validate_piece();
            }
            // The end (line feed) of the line at `start`, once it has been looked for.
            let mut line_end = None;
            // Whether the operation's runs of keys refused the line at `start`.
            let mut refused_by_key_lines = false;
            let text = pass.text.filter(|_| scratch.backoff.tries());
            if let Some(text) = text {
                let before = pass.start;
                if self.pass_lines(text, pass, scratch) {
                    break;
                }
                if pass.start != before {
                    scratch.backoff.taken();
                }
                if pass.start == pass.valid_to() {
                    // The end of the piece: the next one is validated first.
                    continue;
                }
                let key_rows = self.key_rows(pass);
                if key_rows {
                    // Rows of the keys the operation writes in runs: the line they stop at
                    // is refused by them, and goes on as below.
                    let before = pass.start;
                    self.write_keyed(text, pass, scratch);
                    if pass.start != before {
                        scratch.backoff.taken();
                    }
                    if pass.start == pass.valid_to() {
                        continue;
                    }
                }
                // The line at `start` does not pass as a line that ends in a line feed alone.
                // Its key may be written in a run of keys; it may still pass if it ends in
                // CRLF, or is the last line and has no line feed; any other goes to the
                // operation.
                let end = pass.line_end();
                line_end = Some(end);
                let crlf = end > pass.start && pass.data[end - 1] == b'\r';
                let keyed = match pass.next {
                    NextLine::Unknown => self.key_lf,
                    NextLine::Keyed => true,
                    NextLine::NotKeyed => false,
                };
                let keys = pass.writes_runs && (crlf || keyed);
                pass.next = NextLine::Unknown;
                if keys && self.key_lines(text, pass) {
                    scratch.backoff.taken();
                    continue;
                }
                refused_by_key_lines = keys || key_rows;
                let try_alone = end == pass.data.len() || crlf;
                if try_alone && self.pass_line(text, pass, scratch) {
                    scratch.backoff.taken();
                    continue;
                }
                scratch.backoff.refused();
            }
            pass.flush_run();
            let end = line_end.unwrap_or_else(|| pass.line_end());
            scratch.refused_by_key_lines = refused_by_key_lines;
            if !self.record_at(end, pass, scratch) {
                return;
            }
        }
        pass.flush_run();
    }

    /// The fast path, many lines at a time: the lines at `start` that pass through are their
    /// own keys. In [`Pass::writes_runs`] those that end in a line feed alone join the run;
    /// otherwise each, CRLF lines too, is formatted as a record ([`Worker::write_passed`]).
    /// Returns whether they reach the end of the chunk.
    #[inline]
    fn pass_lines(&self, text: &str, pass: &mut Pass<'_>, scratch: &mut Scratch) -> bool {
        if !pass.writes_runs {
            self.write_passed(text, pass, scratch);
            return pass.start == pass.data.len();
        }
        // Slicing `text` after a line feed is always on a char boundary.
        let rest = &text[pass.start..];
        let max_line = self.options.max_line_bytes;
        let (n, lines) = if self.sketches() {
            self.sketch_passed(rest, pass.report)
        } else {
            let (n, lines, next) = self.op.pass_through_lines_then_keys(rest, max_line);
            pass.next = next;
            (n, lines)
        };
        // The contract, checked: whole lines.
        if n > 0 && rest.as_bytes().get(n - 1) == Some(&b'\n') {
            pass.report.stats.records += lines;
            pass.report.stats.keys_written += lines;
            pass.verbatim(pass.start + n, lines);
            return pass.start == pass.data.len();
        }
        false
    }

    /// [`Operation::pass_through_lines`] over `rest` with each line's key (the line) put into
    /// the chunk's sketch as the operation hands the lines out: the lines that end in a line
    /// feed alone, up to the first that does not.
    fn sketch_passed(&self, rest: &str, report: &mut Report) -> (usize, u64) {
        let max_line = self.options.max_line_bytes;
        let mut at = 0;
        self.op.pass_through_each_line(rest, max_line, &mut |line| {
            // Only a line that ends in a line feed alone joins a run.
            if handed_out_line(rest, at, line, max_line) != Some(1) {
                return false;
            }
            sketch_key(report, line.as_bytes());
            at += line.len() + 1;
            true
        })
    }

    /// Formats each line at `start` that passes through (and ends in a line feed, alone or
    /// after a carriage return) as a valid record that is its own key, as the operation
    /// hands them out, and moves past them.
    fn write_passed(&self, text: &str, pass: &mut Pass<'_>, scratch: &mut Scratch) {
        let rest = &text[pass.start..];
        let rows = &mut scratch.rows;
        let max_line = self.options.max_line_bytes;
        let mut at = 0;
        let (line_number, out, report) = (&mut pass.line, &mut *pass.out, &mut *pass.report);
        // Rows of printable records that no key tracking looks at take the short way.
        let fast_rows = self.printable && !self.tracks_keys();
        self.op.pass_through_each_line(rest, max_line, &mut |line| {
            let Some(ending) = handed_out_line(rest, at, line, max_line) else {
                return false;
            };
            report.stats.records += 1;
            if fast_rows {
                rows.write_passed(out, *line_number, line);
                report.stats.keys_written += 1;
            } else {
                let record =
                    Record::valid(*line_number, line.as_bytes(), line, &[], self.printable);
                self.write_valid(record, rows, out, report);
            }
            *line_number += 1;
            at += line.len() + ending;
            true
        });
        pass.start += at;
    }

    /// Whether the keys the operation writes in runs are written as rows, one by one
    /// ([`Worker::write_keyed`]): where it rewrites keys in runs and the chunk's output is
    /// not written in runs of keys (rows, tracked keys, NUL after each key).
    #[inline]
    fn key_rows(&self, pass: &Pass<'_>) -> bool {
        self.key_lf && !pass.writes_runs
    }

    /// Formats each line at `start` whose key the operation writes in a run
    /// ([`Operation::key_each_line`]), lines that pass through among them, as a valid record
    /// with its key, and moves past them.
    fn write_keyed(&self, text: &str, pass: &mut Pass<'_>, scratch: &mut Scratch) {
        let rest = &text[pass.start..];
        let max_line = self.options.max_line_bytes;
        let fast_rows = self.printable && !self.tracks_keys();
        let (line_number, out, report) = (&mut pass.line, &mut *pass.out, &mut *pass.report);
        let rows = &mut scratch.rows;
        let mut at = 0;
        let each = &mut |line: &str, key: &str| {
            let Some(ending) = handed_out_line(rest, at, line, max_line) else {
                return false;
            };
            report.stats.records += 1;
            if std::ptr::eq(key, line) && fast_rows {
                rows.write_passed(out, *line_number, line);
                report.stats.keys_written += 1;
            } else if fast_rows {
                // A key written anew (a SURT, a key the rules rewrote): as short a way.
                report.stats.changed += u64::from(key != line);
                rows.write_printable(out, *line_number, line, key);
                report.stats.keys_written += 1;
            } else {
                report.stats.changed += u64::from(key != line);
                let record = Record::valid(*line_number, line.as_bytes(), key, &[], self.printable);
                self.write_valid(record, rows, out, report);
            }
            *line_number += 1;
            at += line.len() + ending;
            true
        };
        self.op
            .key_each_line(rest, max_line, &mut scratch.run_key, each);
        pass.start += at;
    }

    /// The lines at `start` whose keys the operation writes at once ([`Operation::key_lines`]):
    /// written after what `out` holds. Returns whether there were any.
    fn key_lines(&self, text: &str, pass: &mut Pass<'_>) -> bool {
        let rest = &text[pass.start..];
        // The keys go after the lines before them.
        pass.flush_run();
        let mark = pass.out.len();
        let run = self
            .op
            .key_lines(rest, self.options.max_line_bytes, pass.out);
        // The contract, checked: whole lines.
        if run.lines == 0 || run.bytes == 0 || rest.as_bytes().get(run.bytes - 1) != Some(&b'\n') {
            pass.out.truncate(mark);
            return false;
        }
        if self.sketches() {
            // The keys are the run's lines of output.
            let keys = &pass.out[mark..];
            let mut from = 0;
            for end in memchr::memchr_iter(b'\n', keys) {
                sketch_key(pass.report, &keys[from..end]);
                from = end + 1;
            }
        }
        let stats = &mut pass.report.stats;
        stats.records += run.lines;
        stats.keys_written += run.lines;
        stats.changed += run.changed;
        pass.line += run.lines;
        pass.start += run.bytes;
        true
    }

    /// The fast path, one line: if the record at `start` passes through, it is its own key,
    /// written as it is. Returns whether it passed.
    #[inline]
    fn pass_line(&self, text: &str, pass: &mut Pass<'_>, scratch: &mut Scratch) -> bool {
        let rest = &text[pass.start..];
        let Some((n, terminator)) = self.passes(rest) else {
            return false;
        };
        pass.report.stats.records += 1;
        let end = pass.start + n;
        if pass.writes_runs && terminator == 1 {
            if self.sketches() {
                sketch_key(pass.report, &pass.data[pass.start..end]);
            }
            pass.report.stats.keys_written += 1;
            pass.verbatim(end + 1, 1);
        } else {
            pass.flush_run();
            let (raw, key) = (&pass.data[pass.start..end], &rest[..n]);
            let (rows, out, report) = (&mut scratch.rows, &mut *pass.out, &mut *pass.report);
            let record = Record::valid(pass.line, raw, key, &[], self.printable);
            self.write_valid(record, rows, out, report);
            pass.line += 1;
            pass.start = end + terminator.max(1);
        }
        true
    }

    /// Asks the operation whether the record at the start of `rest` passes through, and
    /// checks the answer against the contract: a whole record, not empty, without its CR,
    /// not too long. Returns the record's length and its line terminator's.
    #[inline]
    fn passes(&self, rest: &str) -> Option<(usize, usize)> {
        let n = self.op.pass_through(rest)?;
        let bytes = rest.as_bytes();
        let ok = n > 0 && n <= self.options.max_line_bytes && bytes[n - 1] != b'\r';
        ok.then(|| terminator(bytes, n)).flatten().map(|t| (n, t))
    }

    /// Hands the line at `start`, which ends at `end` (its line feed, or the end of the
    /// chunk), to the operation, and moves past it. Returns false when the record stops the
    /// run.
    fn record_at(&self, end: usize, pass: &mut Pass<'_>, scratch: &mut Scratch) -> bool {
        let (start, data) = (pass.start, pass.data);
        let raw = without_cr(&data[start..end]);
        let record_end = start + raw.len();
        // Slicing `text` at a line feed or carriage return is always on a char boundary.
        let record = pass.text.map(|t| &t[start..record_end]);
        let ok = self.record(pass.line, raw, record, scratch, pass.out, pass.report);
        if !ok && self.options.on_error == OnError::Fail {
            return false;
        }
        pass.line += 1;
        pass.start = end + 1;
        true
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
        if raw.len() > self.options.max_line_bytes {
            let error = Error::new(ErrorKind::TooLong, 0, TOO_LONG_MESSAGE);
            return self.finish_record(line, raw, Err(error), &[], scratch, out, report);
        }
        scratch.key.clear();
        let notes = &mut scratch.notes;
        let (repair, key) = (self.options.repair(), &mut scratch.key);
        let result = if scratch.refused_by_key_lines {
            self.op
                .apply_raw_refused_by_key_lines(raw, text, repair, key, notes)
        } else {
            self.op.apply_raw(raw, text, repair, key, notes)
        };
        // Whatever the operation, a record that holds a NUL is refused for it (SPEC §2).
        let result = result.map_err(|e| error::with_nul_first(raw, e));
        report.stats.repairs.merge(&notes.repairs);
        report.stats.warnings += notes.warnings.len() as u64;
        // The record's warnings go with it to the output (jsonl writes them); the buffer is
        // put back afterwards, so it keeps its allocation.
        let mut warnings = std::mem::take(&mut notes.warnings);
        notes.clear();
        let ok = self.finish_record(line, raw, result, &warnings, scratch, out, report);
        warnings.clear();
        scratch.notes.warnings = warnings;
        ok
    }

    /// Counts a record, and formats it unless it is an invalid record that is skipped (or
    /// that stops the run). Returns whether it was valid.
    #[allow(clippy::too_many_arguments)]
    fn finish_record(
        &self,
        line: u64,
        raw: &[u8],
        result: Result<(), Error>,
        warnings: &[Warning],
        scratch: &mut Scratch,
        out: &mut Vec<u8>,
        report: &mut Report,
    ) -> bool {
        report.stats.records += 1;
        match result {
            Ok(()) => {
                let key = scratch.key.as_str();
                if key.as_bytes() != raw {
                    report.stats.changed += 1;
                }
                let rows = &mut scratch.rows;
                let record = Record::valid(line, raw, key, warnings, false);
                self.write_valid(record, rows, out, report);
                true
            }
            Err(error) => {
                report.stats.count_invalid(error.kind);
                match self.options.on_error {
                    OnError::Fail => {
                        report.failure = Some(Diagnostic { line, error });
                        return false;
                    }
                    // With `unique` the output is the distinct keys: an invalid record has
                    // none, so it is left out (still counted and diagnosed).
                    OnError::Mark if !self.options.unique => {
                        let input = if error.kind == ErrorKind::TooLong {
                            &raw[..raw.len().min(TOO_LONG_PREFIX)]
                        } else {
                            raw
                        };
                        let record = Record {
                            line,
                            input,
                            result: Err(&error),
                            warnings: &[],
                            passed: false,
                        };
                        scratch.rows.write(out, record);
                    }
                    OnError::Mark => {}
                    OnError::Skip => {}
                }
                if report.diagnostics.len() < self.options.max_diagnostics {
                    report.diagnostics.push(Diagnostic { line, error });
                }
                false
            }
        }
    }

    /// Formats a valid record with its key (counted already). With `unique`, the record gets
    /// a [`Span`], with which the writer drops it if its key came before, in this chunk or
    /// an earlier one ([`dedup::keep_first`]); with `stats` alone, the key goes into the
    /// chunk's sketch.
    #[inline]
    fn write_valid(
        &self,
        record: Record<'_>,
        rows: &mut RowWriter,
        out: &mut Vec<u8>,
        report: &mut Report,
    ) {
        let start = out.len();
        let key = record.result.unwrap_or_default();
        let line = record.line;
        rows.write(out, record);
        report.stats.keys_written += 1;
        if self.options.unique {
            report.spans.push(Span {
                start,
                end: out.len(),
                line,
                fingerprint: dedup::fingerprint(key.as_bytes()),
            });
        } else if self.options.stats {
            sketch_key(report, key.as_bytes());
        }
    }
}

/// The end of the piece of `data` that starts at `from` ([`PIECE`]): just after the last
/// line feed within `PIECE` bytes, else after the first line feed past them, else the end
/// of `data`.
fn piece_end(data: &[u8], from: usize) -> usize {
    let end = from.saturating_add(PIECE);
    if end >= data.len() {
        return data.len();
    }
    match memchr::memrchr(b'\n', &data[from..end]) {
        Some(k) => from + k + 1,
        None => memchr::memchr(b'\n', &data[end..]).map_or(data.len(), |k| end + k + 1),
    }
}

/// Puts `key` into the chunk's sketch of distinct keys (`stats` without `unique`).
#[inline]
fn sketch_key(report: &mut Report, key: &[u8]) {
    let sketch = report.sketch.get_or_insert_with(HyperLogLog::default);
    sketch.insert(dedup::fingerprint(key));
}

/// The contract of the lines an operation hands out of a run, checked: `line` starts at
/// `rest[at..]` (where the line before ended), is not empty, is at most `max_line` bytes
/// long, and is ended by a line feed or a CRLF (not by the end of the chunk). Returns the
/// length of that line end (1 or 2).
#[inline]
fn handed_out_line(rest: &str, at: usize, line: &str, max_line: usize) -> Option<usize> {
    let whole = std::ptr::eq(line.as_ptr(), rest.as_ptr().wrapping_add(at))
        && !line.is_empty()
        && line.len() <= max_line;
    match rest.as_bytes().get(at + line.len()) {
        _ if !whole => None,
        Some(b'\n') => Some(1),
        _ => terminator(&rest.as_bytes()[at..], line.len()).filter(|&n| n == 2),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::chunk::output_parts;
    use crate::stream::operation::tests::Lowercase;

    /// Runs `options` with [`Lowercase`] over one chunk of `data`, of `kind`.
    fn process(data: &[u8], kind: ChunkKind, options: &EngineOptions) -> Chunk {
        process_with(&Lowercase, data, kind, options)
    }

    /// Runs `options` with `op` over one chunk of `data`, of `kind`.
    fn process_with(
        op: &dyn Operation,
        data: &[u8],
        kind: ChunkKind,
        options: &EngineOptions,
    ) -> Chunk {
        let mut chunk = Chunk::new();
        chunk.kind = kind;
        chunk.push(data);
        let names = ["t".to_owned()];
        let mut scratch = Scratch::new(options);
        Worker::new(op, options, &names).process(&mut chunk, &mut scratch);
        chunk
    }

    /// [`Lowercase`], counting the records handed to `apply`; it writes no runs of keys.
    #[derive(Default)]
    struct Counted(std::sync::atomic::AtomicUsize);

    impl Operation for Counted {
        fn apply(&self, record: &str, out: &mut String) -> Result<(), Error> {
            self.0.fetch_add(1, Ordering::Relaxed);
            Lowercase.apply(record, out)
        }

        fn pass_through(&self, rest: &str) -> Option<usize> {
            Lowercase.pass_through(rest)
        }
    }

    #[test]
    fn lines_that_end_in_crlf_pass_alone_where_no_runs_of_keys_are_written() {
        let data = b"aa\r\nbb\r\nCc\r\ndd\n";
        for options in [
            EngineOptions::default().with_output(OutputMode::Tsv),
            EngineOptions::default().with_output(OutputMode::Jsonl),
            EngineOptions::default().with_unique(true),
            EngineOptions::default().with_null_terminated(true),
        ] {
            let op = Counted::default();
            let chunk = process_with(&op, data, ChunkKind::Lines, &options);
            // Only the record that does not pass through goes to `apply`.
            assert_eq!(op.0.load(Ordering::Relaxed), 1, "{options:?}");
            assert_eq!(chunk.report.stats.records, 4);
        }
    }

    #[test]
    fn lines_that_pass_through_become_verbatim_runs() {
        let data = b"aa\nbb\nCc\ndd\r\nee\nff";
        let chunk = process(data, ChunkKind::Lines, &EngineOptions::default());
        // Lines with a CRLF or without a line feed pass through, but are written as keys.
        assert_eq!(chunk.out, b"CC\ndd\nff\n");
        let run = |data, at| VerbatimRun { data, at };
        assert_eq!(chunk.verbatim_runs, [run(0..6, 0), run(13..16, 6)]);
        let parts = output_parts(data, &chunk.out, &chunk.verbatim_runs);
        assert_eq!(parts.concat(), b"aa\nbb\nCC\ndd\nee\nff\n");
        let stats = &chunk.report.stats;
        assert_eq!((stats.records, stats.changed, stats.invalid), (6, 1, 0));
    }

    #[test]
    fn rows_of_lines_that_pass_through_carry_their_line_numbers() {
        // Runs of lines that pass through, broken by a changed record, a line that ends in
        // CRLF, an invalid record, and a last line without a line feed.
        let data = b"aa\nbb\nCc\ndd\r\nee\nxx\nff\ngg";
        let tsv = EngineOptions::default()
            .with_output(OutputMode::Tsv)
            .with_with_filename(true);
        let chunk = process(data, ChunkKind::Lines, &tsv);
        let rows = [
            "t\t1\taa\taa\t",
            "t\t2\tbb\tbb\t",
            "t\t3\tCc\tCC\t",
            "t\t4\tdd\tdd\t",
            "t\t5\tee\tee\t",
            "t\t6\txx\t\tsyntax:1: x",
            "t\t7\tff\tff\t",
            "t\t8\tgg\tgg\t",
        ];
        assert_eq!(String::from_utf8_lossy(&chunk.out), rows.join("\n") + "\n");
        let jsonl = EngineOptions::default().with_output(OutputMode::Jsonl);
        let chunk = process(data, ChunkKind::Lines, &jsonl);
        let text = String::from_utf8(chunk.out).unwrap();
        for (row, want) in text.lines().zip(rows) {
            let row: serde_json::Value = serde_json::from_str(row).unwrap();
            let fields: Vec<&str> = want.split('\t').collect();
            assert_eq!(row["line"].to_string(), fields[1]);
            assert_eq!(row["input"], fields[2]);
            assert_eq!(row["key"].as_str().unwrap_or(""), fields[3]);
        }
        assert_eq!(text.lines().count(), rows.len());
    }

    #[test]
    fn unique_keys_get_a_span_each_for_the_writer_to_drop_repeats() {
        let options = EngineOptions::default().with_unique(true);
        let mut chunk = process(b"aa\nbb\naa\nCc\ncC\n", ChunkKind::Lines, &options);
        assert!(chunk.verbatim_runs.is_empty());
        assert_eq!(chunk.out, b"aa\nbb\naa\nCC\nCC\n");
        let spans: Vec<_> = chunk.report.spans.iter().map(|s| s.start..s.end).collect();
        assert_eq!(spans, [0..3, 3..6, 6..9, 9..12, 12..15]);
        let fingerprints: Vec<_> = chunk.report.spans.iter().map(|s| s.fingerprint).collect();
        assert_eq!(fingerprints[0], fingerprints[2]);
        assert_eq!(fingerprints[3], fingerprints[4]);
        assert_ne!(fingerprints[0], fingerprints[1]);
        assert_eq!(chunk.report.stats.records, 5);
        // The writer keeps the first record of each key.
        let mut seen = dedup::FingerprintSet::default();
        let kept = dedup::keep_first(&mut chunk.out, &chunk.report.spans, &mut seen);
        assert_eq!(
            (chunk.out.as_slice(), kept.dropped),
            (&b"aa\nbb\nCC\n"[..], 2)
        );
        let lines: Vec<_> = chunk.report.spans.iter().map(|s| s.line).collect();
        assert_eq!(lines, [1, 2, 3, 4, 5]);
    }

    #[test]
    fn keys_counted_alone_go_into_a_sketch_not_spans() {
        let options = EngineOptions::default().with_stats(true);
        let data = b"aa\nbb\naa\nCc\ncC\ndd\r\nee\nbb";
        let chunk = process(data, ChunkKind::Lines, &options);
        // Lines that pass through are still written as verbatim runs; every key, theirs
        // too, goes into the sketch.
        let run = |data, at| VerbatimRun { data, at };
        assert_eq!(chunk.verbatim_runs, [run(0..9, 0), run(19..22, 9)]);
        let parts = output_parts(data, &chunk.out, &chunk.verbatim_runs);
        assert_eq!(parts.concat(), b"aa\nbb\naa\nCC\nCC\ndd\nee\nbb\n");
        assert!(chunk.report.spans.is_empty());
        assert_eq!(chunk.report.sketch.as_ref().unwrap().estimate(), 5);
        assert_eq!(chunk.report.stats.keys_written, 8);
    }

    #[test]
    fn a_failing_record_stops_the_chunk() {
        let options = EngineOptions::default()
            .with_output(OutputMode::Tsv)
            .with_on_error(OnError::Fail);
        let chunk = process(b"aa\nxx\nbb\n", ChunkKind::Lines, &options);
        assert_eq!(chunk.out, b"aa\taa\t\n");
        let failure = chunk.report.failure.as_ref().unwrap();
        assert_eq!((failure.line, failure.error.kind), (2, ErrorKind::Syntax));
    }

    #[test]
    fn a_too_long_chunk_is_one_invalid_record() {
        let options = EngineOptions::default().with_output(OutputMode::Tsv);
        let chunk = process(b"abc", ChunkKind::TooLong, &options);
        let want = format!("abc\t\ttoo-long:0: {TOO_LONG_MESSAGE}\n");
        assert_eq!(String::from_utf8_lossy(&chunk.out), want);
        assert_eq!(chunk.report.stats.invalid_of(ErrorKind::TooLong), 1);
        assert_eq!(chunk.report.diagnostics.len(), 1);
    }

    #[test]
    fn the_fast_path_is_skipped_for_a_while_after_refusals_in_a_row() {
        let mut b = Backoff::default();
        let skipped = |b: &mut Backoff| (0..5000).take_while(|_| !b.tries()).count();
        for _ in 0..Backoff::REFUSALS - 1 {
            assert!(b.tries());
            b.refused();
        }
        assert!(b.tries());
        b.refused();
        assert_eq!(skipped(&mut b), 16);
        // Refused again after the skip: twice as many, up to the most.
        for want in [32, 64, 128, 256, 512, 1024, 1024] {
            b.refused();
            assert_eq!(skipped(&mut b), want);
        }
        // Taken: the count starts again.
        b.taken();
        for _ in 0..Backoff::REFUSALS - 1 {
            b.refused();
            assert!(b.tries());
        }
        b.refused();
        assert_eq!(skipped(&mut b), 16);
    }

    #[test]
    fn skipping_the_fast_path_changes_no_output() {
        // Refused lines, enough in a row for the worker to skip the fast path, then lines
        // that pass through, some of them handed to the operation while it is skipped; and
        // the same again.
        let (mut data, mut want) = (Vec::new(), Vec::new());
        for _ in 0..2 {
            for _ in 0..20 {
                data.extend_from_slice(b"Cc\n");
                want.extend_from_slice(b"CC\n");
            }
            for _ in 0..100 {
                data.extend_from_slice(b"bb\n");
                want.extend_from_slice(b"bb\n");
            }
        }
        let chunk = process(&data, ChunkKind::Lines, &EngineOptions::default());
        let parts = output_parts(&data, &chunk.out, &chunk.verbatim_runs);
        assert_eq!(parts.concat(), want);
        let stats = &chunk.report.stats;
        assert_eq!((stats.records, stats.changed), (240, 40));
        // Some lines that pass through were written by the operation, not as runs.
        let in_runs: usize = chunk.verbatim_runs.iter().map(|r| r.data.len()).sum();
        assert!(in_runs < 200 * 3, "{in_runs}");
        assert!(in_runs > 100 * 3, "{in_runs}");
    }

    /// A chunk of `data` (several pieces) gives what its lines give each alone, under
    /// `op` and `options`; returns the chunk.
    fn pieces_give_what_lines_give(
        op: &dyn Operation,
        data: &[u8],
        options: &EngineOptions,
    ) -> Chunk {
        assert!(piece_end(data, 0) < data.len(), "more than one piece");
        let chunk = process_with(op, data, ChunkKind::Lines, options);
        let whole = output_parts(data, &chunk.out, &chunk.verbatim_runs).concat();
        let (mut alone, mut from, mut lines) = (Vec::new(), 0, 0);
        while from < data.len() {
            let end = memchr::memchr(b'\n', &data[from..]).map_or(data.len(), |k| from + k + 1);
            let line = &data[from..end];
            let c = process_with(op, line, ChunkKind::Lines, options);
            alone.extend(output_parts(line, &c.out, &c.verbatim_runs).concat());
            lines += 1;
            from = end;
        }
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        assert_eq!(text(&whole), text(&alone), "{options:?}");
        assert_eq!(chunk.report.stats.records, lines, "{options:?}");
        chunk
    }

    /// Lines made of `lines` over about four pieces: a piece of them, a line longer than a
    /// piece (`long`), a piece of them, a line that is not UTF-8, a piece of them, and
    /// `last` without a line feed.
    fn lines_over_pieces(lines: &[&[u8]], long: &[u8], last: &[u8]) -> Vec<u8> {
        let mut data = Vec::new();
        let piece = |data: &mut Vec<u8>| {
            let to = data.len() + PIECE;
            for line in lines.iter().cycle() {
                if data.len() >= to {
                    break;
                }
                data.extend_from_slice(line);
            }
        };
        piece(&mut data);
        data.extend_from_slice(long);
        piece(&mut data);
        data.extend_from_slice(b"http://x/b\xffb\n");
        piece(&mut data);
        data.extend_from_slice(last);
        assert!(std::str::from_utf8(&data).is_err());
        data
    }

    #[test]
    fn a_chunk_of_many_pieces_gives_what_its_lines_give_alone() {
        // Lines that pass through (a-w), one that does not every seventh, CRLF lines.
        let lines: [&[u8]; 7] = [
            b"Cc\n",
            b"abcdefghij\n",
            b"bbb\n",
            b"abc\r\n",
            b"ddddd\n",
            b"eeee\n",
            b"ff\n",
        ];
        let mut long = vec![b'b'; 2 * PIECE];
        long.push(b'\n');
        let data = lines_over_pieces(&lines, &long, b"last");
        for options in [
            EngineOptions::default(),
            EngineOptions::default().with_output(OutputMode::Tsv),
            EngineOptions::default().with_unique(true),
        ] {
            let chunk = pieces_give_what_lines_give(&Lowercase, &data, &options);
            if options.output == OutputMode::Key && !options.unique {
                // A run of lines that pass through goes on across the end of a piece.
                let end = piece_end(&data, 0);
                let across = |r: &VerbatimRun| r.data.start < end && r.data.end > end;
                assert!(
                    chunk.verbatim_runs.iter().any(across),
                    "{:?}",
                    chunk.verbatim_runs
                );
            }
        }
    }

    #[test]
    fn runs_of_keys_go_on_across_pieces() {
        use crate::ladder::{Form, Normalizer, Options};
        // SURTs and the crawler's keys are written in runs of keys (rows, or keys with
        // `--unique`, one by one): the runs meet the ends of pieces too.
        let lines: [&[u8]; 6] = [
            b"http://a.example/p/q\n",
            b"HTTP://X.example/\n",
            b"http://b.example/?utm_source=x\r\n",
            b"http://c.example\n",
            b"http://d.example/r?s=1\n",
            b"http://e.example/t#u\n",
        ];
        let mut long = b"http://f.example/".to_vec();
        long.resize(2 * PIECE, b'v');
        long.push(b'\n');
        let data = lines_over_pieces(&lines, &long, b"http://g.example/last");
        let surt = Options::default().with_form(Form::Surt);
        let crawler = Options::default()
            .with_level(crate::ladder::Level::Protocol)
            .with_rules(Some(std::sync::Arc::new(
                crate::ladder::Rules::profile("crawler").unwrap(),
            )));
        for ladder in [surt, crawler] {
            let op = Normalizer::new(ladder).unwrap();
            for options in [
                EngineOptions::default(),
                EngineOptions::default().with_output(OutputMode::Tsv),
                EngineOptions::default().with_unique(true),
            ] {
                pieces_give_what_lines_give(&op, &data, &options);
            }
        }
    }

    #[test]
    fn pieces_end_after_a_line_feed() {
        let mut data = vec![b'a'; PIECE - 1];
        data.extend_from_slice(b"\nbb\n");
        assert_eq!(piece_end(&data, 0), PIECE);
        assert_eq!(piece_end(&data, PIECE), data.len());
        // No line feed within a piece: the first after it.
        let mut long = vec![b'a'; PIECE + 10];
        long.extend_from_slice(b"\nb");
        assert_eq!(piece_end(&long, 0), PIECE + 11);
        assert_eq!(piece_end(&long[..PIECE + 5], 0), PIECE + 5);
        assert_eq!(piece_end(b"", 0), 0);
    }

    #[test]
    fn terminators() {
        assert_eq!(terminator(b"ab", 2), Some(0));
        assert_eq!(terminator(b"ab\ncd", 2), Some(1));
        assert_eq!(terminator(b"ab\r\ncd", 2), Some(2));
        assert_eq!(terminator(b"ab\rcd", 2), None);
        assert_eq!(terminator(b"abcd", 2), None);
        assert_eq!(terminator(b"ab", 3), None);
    }
}
