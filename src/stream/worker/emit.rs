//! Where a chunk's results go ([`Emitter`]): the one owner of the chunk's output buffer,
//! its verbatim runs, the row writer and the chunk's report. Every count of the statistics
//! is made in one place, [`Emitter::tally`].

use std::ops::Range;

use crate::iri::error::{Error, ErrorKind, Warning};
use crate::ladder::normalizer::KeyRun;
use crate::ladder::record::Notes;
use crate::stream::chunk::{Diagnostic, Report, Span, VerbatimRun, TOO_LONG_PREFIX};
use crate::stream::dedup;
use crate::stream::framing::{Framing, Keyed, Layout};
use crate::stream::hyperloglog::HyperLogLog;
use crate::stream::options::{EngineOptions, OnError};
use crate::stream::output::{OutputMode, Row, RowWriter};

/// What one step through a chunk adds to its statistics ([`Emitter::tally`]).
#[derive(Clone, Copy, Default)]
struct Tally<'n> {
    /// Records gone through.
    records: u64,
    /// Keys written.
    written: u64,
    /// Keys that differ from their record.
    changed: u64,
    /// The kind of an invalid record.
    invalid: Option<ErrorKind>,
    /// A record's repairs and warnings.
    notes: Option<&'n Notes>,
}

/// Where a chunk's results go, and how.
pub(super) struct Emitter<'c> {
    out: &'c mut Vec<u8>,
    runs: &'c mut Vec<VerbatimRun>,
    report: &'c mut Report,
    rows: &'c mut RowWriter,
    options: &'c EngineOptions,
    /// Lines copied through just before the input at hand, not yet recorded as a
    /// [`VerbatimRun`].
    run: Range<usize>,
    /// Whether lines copied through are written as [`VerbatimRun`]s: in key output without
    /// deduplication, consecutive such lines (each with its line feed and no carriage
    /// return) form one range of the input, which is not copied: the writer writes it from
    /// the chunk's data. With `stats`, each key still goes into the chunk's sketch.
    pub(super) writes_runs: bool,
}

impl<'c> Emitter<'c> {
    /// The emitter of a chunk whose output, verbatim runs and report are emptied here.
    pub(super) fn new(
        out: &'c mut Vec<u8>,
        runs: &'c mut Vec<VerbatimRun>,
        report: &'c mut Report,
        rows: &'c mut RowWriter,
        options: &'c EngineOptions,
    ) -> Self {
        out.clear();
        runs.clear();
        report.clear();
        let writes_runs =
            options.output == OutputMode::Key && !options.unique && !options.null_terminated;
        Emitter {
            out,
            runs,
            report,
            rows,
            options,
            run: 0..0,
            writes_runs,
        }
    }

    /// The one place the chunk's statistics are counted.
    #[inline]
    fn tally(&mut self, t: Tally<'_>) {
        let stats = &mut self.report.stats;
        stats.records += t.records;
        stats.keys_written += t.written;
        stats.changed += t.changed;
        if let Some(kind) = t.invalid {
            stats.count_invalid(kind);
        }
        if let Some(notes) = t.notes {
            stats.repairs.merge(&notes.repairs);
            stats.warnings += notes.warnings.len() as u64;
        }
    }

    /// Whether keys are fingerprinted (`unique` or `stats`).
    #[inline]
    pub(super) fn tracks_keys(&self) -> bool {
        self.options.unique || self.options.stats
    }

    /// Whether keys are counted into a sketch (`stats` without `unique`).
    #[inline]
    pub(super) fn sketches(&self) -> bool {
        self.options.stats && !self.options.unique
    }

    /// Puts `key` into the chunk's sketch of distinct keys (`stats` without `unique`).
    #[inline]
    pub(super) fn sketch(&mut self, key: &[u8]) {
        sketch_into(self.report, key);
    }

    /// The lines at `range` of the chunk (`lines` of them, each its own key, ended by a line
    /// feed alone) are written as they are: they join the run, or start a new one if the
    /// run does not end where they start.
    #[inline]
    pub(super) fn copied(&mut self, range: Range<usize>, lines: u64) {
        if self.run.end != range.start {
            self.flush_run();
            self.run.start = range.start;
        }
        self.run.end = range.end;
        self.tally(Tally {
            records: lines,
            written: lines,
            ..Tally::default()
        });
    }

    /// Records the run as written next, after what the output holds now, and empties it.
    #[inline]
    pub(super) fn flush_run(&mut self) {
        if self.run.start < self.run.end {
            self.runs.push(VerbatimRun {
                data: self.run.clone(),
                at: self.out.len(),
            });
            self.run = 0..0;
        }
    }

    /// The keys `write` appends to the output for a run of whole lines of `rest` (each key
    /// and a line feed, [`crate::ladder::Normalizer::own_key_lines`]; or, for runs of
    /// records, each key or record and the output's terminator), after what the output
    /// holds. Returns what the run took, or `None` (and nothing written) where it took no
    /// whole line. (Keys are sketched from the output's lines: runs of records are not
    /// taken where keys are tracked.)
    pub(super) fn key_run(
        &mut self,
        rest: &str,
        write: impl FnOnce(&mut Vec<u8>) -> KeyRun,
    ) -> Option<KeyRun> {
        // The keys go after the lines before them.
        self.flush_run();
        let mark = self.out.len();
        let run = write(self.out);
        // The contract, checked: whole lines.
        if run.lines == 0 || run.bytes == 0 || rest.as_bytes().get(run.bytes - 1) != Some(&b'\n') {
            self.out.truncate(mark);
            return None;
        }
        if self.sketches() {
            // The keys are the run's lines of output.
            let keys = &self.out[mark..];
            let mut from = 0;
            for end in memchr::memchr_iter(b'\n', keys) {
                sketch_into(self.report, &keys[from..end]);
                from = end + 1;
            }
        }
        self.tally(Tally {
            records: run.lines,
            written: run.lines,
            changed: run.changed,
            ..Tally::default()
        });
        Some(run)
    }

    /// A row for `line`, a printable record that is its own key, where no key is tracked.
    #[inline]
    pub(super) fn passed_row(&mut self, number: u64, line: &str) {
        self.rows.write_passed(self.out, number, line);
        self.tally(Tally {
            records: 1,
            written: 1,
            ..Tally::default()
        });
    }

    /// A row for `line`, a printable record, with `key`, printable too, where no key is
    /// tracked.
    #[inline]
    pub(super) fn keyed_row(&mut self, number: u64, line: &str, key: &str) {
        self.rows.write_printable(self.out, number, line, key);
        self.tally(Tally {
            records: 1,
            written: 1,
            changed: u64::from(key != line),
            ..Tally::default()
        });
    }

    /// Formats a valid record with its key (`changed`: the key is not the record). With `unique`, the record gets a [`Span`], with
    /// which the writer drops it if its key came before, in this chunk or an earlier one
    /// ([`dedup::keep_first`]); with `stats` alone, the key goes into the chunk's sketch.
    #[inline]
    pub(super) fn valid(&mut self, record: Row<'_>, changed: bool) {
        let key = record.result.unwrap_or_default();
        self.valid_written(record.line, key, changed, |rows, out| {
            rows.write(out, record)
        });
    }

    /// [`Emitter::valid`] for a record of `line` with `key` that `write` formats.
    #[inline]
    fn valid_written(
        &mut self,
        line: u64,
        key: &str,
        changed: bool,
        write: impl FnOnce(&mut RowWriter, &mut Vec<u8>),
    ) {
        let start = self.out.len();
        self.tally(Tally {
            records: 1,
            written: 1,
            changed: u64::from(changed),
            ..Tally::default()
        });
        write(self.rows, self.out);
        if self.options.unique {
            self.report.spans.push(Span {
                start,
                end: self.out.len(),
                line,
                fingerprint: dedup::fingerprint(key.as_bytes()),
            });
        } else if self.options.stats {
            self.sketch(key.as_bytes());
        }
    }

    /// A record the operation handled: `key` with its `notes`, or its error. Returns whether
    /// it was valid.
    #[inline]
    pub(super) fn record(
        &mut self,
        line: u64,
        raw: &[u8],
        result: Result<&str, Error>,
        notes: &Notes,
    ) -> bool {
        self.tally(Tally {
            notes: Some(notes),
            ..Tally::default()
        });
        match result {
            Ok(key) => {
                let changed = key.as_bytes() != raw;
                self.valid(Row::valid(line, raw, key, &notes.warnings, false), changed);
                true
            }
            Err(error) => {
                self.invalid(line, raw, error);
                false
            }
        }
    }

    /// Counts an invalid record, and formats it unless it is skipped (or stops the run).
    pub(super) fn invalid(&mut self, line: u64, raw: &[u8], error: Error) {
        self.invalid_marked(line, error, |rows, out, error| {
            mark(rows, out, line, raw, error)
        });
    }

    /// [`Emitter::invalid`], with `mark` formatting the record where it is written.
    fn invalid_marked(
        &mut self,
        line: u64,
        error: Error,
        mark: impl FnOnce(&mut RowWriter, &mut Vec<u8>, &Error),
    ) {
        self.tally(Tally {
            records: 1,
            invalid: Some(error.kind),
            ..Tally::default()
        });
        match self.options.on_error {
            OnError::Fail => {
                self.report.failure = Some(Diagnostic { line, error });
                return;
            }
            // With `unique` the output is the distinct keys: an invalid record has none, so
            // it is left out (still counted and diagnosed).
            OnError::Mark if !self.options.unique => mark(self.rows, self.out, &error),
            OnError::Mark | OnError::Skip => {}
        }
        if self.report.diagnostics.len() < self.options.max_diagnostics {
            self.report.diagnostics.push(Diagnostic { line, error });
        }
    }

    /// The header line of an input of records: in record output, written with the columns
    /// the output adds; in the others, not a record, and not written.
    pub(super) fn header(&mut self, framing: &Framing, layout: &Layout, first: &[u8]) {
        if self.options.output == OutputMode::Record {
            framing.write_header(layout, first, self.out);
            self.out.push(self.terminator());
        }
    }

    /// A record of a record format, keyed from the URL `url` (or its error): in record
    /// output the record written back with its key ([`Framing::write_record`]), in the
    /// others the row of its URL. Returns whether it was valid.
    pub(super) fn framed(
        &mut self,
        line: u64,
        url: &[u8],
        framed: Framed<'_>,
        result: Result<&str, Error>,
        notes: &Notes,
    ) -> bool {
        if self.options.output != OutputMode::Record {
            return self.record(line, url, result, notes);
        }
        self.tally(Tally {
            notes: Some(notes),
            ..Tally::default()
        });
        let terminator = self.terminator();
        match result {
            Ok(key) => {
                let changed = key.as_bytes() != url;
                self.valid_written(line, key, changed, |_, out| {
                    framed.write(Some(key), None, terminator, out);
                });
                true
            }
            Err(error) => {
                self.invalid_marked(line, error, |_, out, error| {
                    framed.write(None, Some(error), terminator, out);
                });
                false
            }
        }
    }

    /// [`Emitter::framed`] for a record whose URL `url` is its own key, with no notes: no
    /// key to compare with the URL, no repairs or warnings to count.
    pub(super) fn framed_own_key(&mut self, line: u64, url: &str, framed: Framed<'_>) {
        if self.options.output != OutputMode::Record {
            let row = Row::valid(line, url.as_bytes(), url, &[], false);
            return self.valid(row, false);
        }
        let terminator = self.terminator();
        self.valid_written(line, url, false, |_, out| {
            framed.write(Some(url), None, terminator, out);
        });
    }

    /// Whether records are written back whole (record output).
    pub(super) fn writes_records(&self) -> bool {
        self.options.output == OutputMode::Record
    }

    /// The byte that ends an output record.
    pub(super) fn terminator(&self) -> u8 {
        self.options.format().terminator
    }
}

impl Framed<'_> {
    /// Writes the record back with its key or error ([`Framing::write_record`]), then
    /// `terminator`.
    fn write(self, key: Option<&str>, error: Option<&Error>, terminator: u8, out: &mut Vec<u8>) {
        let Framed {
            framing,
            layout,
            record,
            located,
            scratch,
        } = self;
        let keyed = Keyed {
            key,
            error,
            located,
        };
        framing.write_record(layout, record, keyed, out, scratch);
        out.push(terminator);
    }
}

/// A record of a record format, with what writing it back needs.
pub(super) struct Framed<'f> {
    pub(super) framing: &'f Framing,
    pub(super) layout: &'f Layout,
    /// The record as read.
    pub(super) record: &'f [u8],
    /// Its URL was located ([`Keyed::located`]).
    pub(super) located: bool,
    /// Scratch space for the framing.
    pub(super) scratch: &'f mut Vec<u8>,
}

/// The row of an invalid record ([`OnError::Mark`]).
fn mark(rows: &mut RowWriter, out: &mut Vec<u8>, line: u64, raw: &[u8], error: &Error) {
    let input = if error.kind == ErrorKind::TooLong {
        &raw[..raw.len().min(TOO_LONG_PREFIX)]
    } else {
        raw
    };
    let record = Row {
        line,
        input,
        result: Err(error),
        warnings: &[] as &[Warning],
        passed: false,
    };
    rows.write(out, record);
}

/// Puts `key` into `report`'s sketch of distinct keys.
#[inline]
fn sketch_into(report: &mut Report, key: &[u8]) {
    let sketch = report.sketch.get_or_insert_with(HyperLogLog::default);
    sketch.insert(dedup::fingerprint(key));
}
