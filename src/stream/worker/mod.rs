//! The worker stage (SPEC §2 records, §8 engine): runs the operation over every record of a
//! chunk, through the ladder's runs of lines where the operation is the ladder, and hands
//! every result to the chunk's [`Emitter`]. The chunk is validated as UTF-8 a piece at a
//! time ([`pass::PIECE`]), just before its lines are gone through; lines that are their own
//! key are written as they are, in key output as verbatim runs of the input that are not
//! even copied; every other line is prepared and handed to the operation.

mod backoff;
mod emit;
mod pass;
mod runs;

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};

use crossbeam_channel::{Receiver, Sender};

use crate::iri::error::{self, Error, ErrorKind};
use crate::ladder::normalizer::{KeyRun, NextLine};
use crate::ladder::record::without_cr;
use crate::ladder::record::{Notes, RawLine};
use crate::ladder::Normalizer;
use crate::stream::chunk::{lines_of, Chunk, ChunkKind};
use crate::stream::framing::{Framing, Keyed, Layout};
use crate::stream::operation::Operation;
use crate::stream::options::{EngineOptions, OnError};
use crate::stream::output::{OutputMode, RowWriter};

use backoff::Backoff;
use emit::{Emitter, Framed};
use pass::Pass;
use runs::Runs;

/// The message of a `too-long` error.
const TOO_LONG_MESSAGE: &str = "line longer than --max-line-bytes";

/// The operation and the settings the workers of a run share.
pub(super) struct Worker<'a> {
    op: &'a dyn Operation,
    /// The ladder, where the operation is the ladder: lines are read through its runs of
    /// lines ([`Operation::ladder`]).
    ladder: Option<&'a Normalizer>,
    options: EngineOptions,
    /// The names of the inputs, for the rows that carry them.
    names: &'a [String],
}

/// Buffers each worker reuses from record to record.
struct Scratch {
    /// The repairs and warnings of the record at hand.
    notes: Notes,
    /// The operation's output for the current record.
    key: String,
    /// When the fast path is tried.
    backoff: Backoff,
    /// The ladder's runs of keys refused the record at hand.
    refused_by_key_lines: bool,
    /// The key of a line in a run of rows ([`Normalizer::own_keys_each`]).
    run_key: Vec<u8>,
    /// The layout of the chunk's records, where the run has a framing.
    layout: Layout,
    /// A record's URL where its format quoted or escaped it.
    field: Vec<u8>,
    /// The framing's scratch space while a record is written back.
    framing_scratch: Vec<u8>,
    /// The runs of records stopped at the record at hand (its URL is not its own key, or
    /// its line is not one they take): the fast path is not asked about it again.
    field_run_refused: bool,
}

impl Scratch {
    /// Empty buffers.
    fn new() -> Self {
        Scratch {
            notes: Notes::default(),
            key: String::new(),
            backoff: Backoff::default(),
            refused_by_key_lines: false,
            run_key: Vec::new(),
            layout: Layout::default(),
            field: Vec::new(),
            framing_scratch: Vec::new(),
            field_run_refused: false,
        }
    }
}

impl<'a> Worker<'a> {
    /// The workers' part of a run of `op` under `options` over the inputs `names`.
    pub(super) fn new(op: &'a dyn Operation, options: &EngineOptions, names: &'a [String]) -> Self {
        let ladder = op.ladder();
        Worker {
            op,
            ladder,
            options: options.clone(),
            names,
        }
    }

    /// The worker loop: process chunks until the reader is done or the run stops.
    pub(super) fn work(&self, work: &Receiver<Chunk>, done: &Sender<Chunk>, stop: &AtomicBool) {
        let mut scratch = Scratch::new();
        let mut rows = RowWriter::new(self.options.format());
        for mut chunk in work.iter() {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            // A panic (a bug in the operation) is passed to the writer, which re-raises it
            // on the calling thread; left here, it would leave the other stages waiting.
            let processed = panic::catch_unwind(AssertUnwindSafe(|| {
                self.process(&mut chunk, &mut rows, &mut scratch);
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
    fn process(&self, chunk: &mut Chunk, rows: &mut RowWriter, scratch: &mut Scratch) {
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
            layout,
            ..
        } = chunk;
        let data = lines_of(&data[..*len], *kind, mapped);
        let line = first_line.unwrap_or(1);
        let file = self.names.get(*input).map_or("", String::as_str);
        rows.start_input(*input, file);
        let mut emit = Emitter::new(out, verbatim_runs, report, rows, &self.options);
        scratch.layout = *layout;
        if *kind == ChunkKind::TooLong {
            // Only the line's first bytes were kept.
            self.too_long(line, data, &mut emit, scratch);
            return;
        }
        if let Some(lines) = mapped.as_ref().filter(|_| *kind == ChunkKind::Lines) {
            lines.populate();
        }
        let mut pass = Pass::new(data, line);
        match self.ladder {
            // Records of a format: runs of records, or one at a time ([`Worker::records`]).
            Some(ladder) if self.options.framing.is_none() => {
                self.lines(ladder, &mut pass, &mut emit, scratch)
            }
            _ => self.records(&mut pass, &mut emit, scratch),
        }
        emit.flush_run();
    }

    /// Goes through a chunk of lines one record at a time, until its end or a record that
    /// stops the run ([`OnError::Fail`]).
    fn records(&self, pass: &mut Pass<'_>, emit: &mut Emitter<'_>, scratch: &mut Scratch) {
        let runs = self.framed_runs(emit);
        while !pass.done() {
            pass.validate_to_start();
            scratch.field_run_refused = false;
            if let (Some((ladder, framing)), Some(text)) = (runs, pass.text) {
                if scratch.backoff.tries() && !(pass.line == 1 && scratch.layout.header) {
                    let max_line = self.options.max_line_bytes;
                    if Self::field_run(ladder, framing, text, max_line, pass, emit, scratch) {
                        scratch.backoff.taken();
                        continue;
                    }
                    scratch.backoff.refused();
                    scratch.field_run_refused = true;
                }
            }
            if !self.record_at(pass.line_end(), pass, emit, scratch) {
                return;
            }
        }
    }

    /// The ladder and the framing where records go through runs of records whose URLs are
    /// their own keys ([`Normalizer::canonical_fields`]): key and record output, keys not
    /// tracked (their rows are written in bulk).
    fn framed_runs(&self, emit: &Emitter<'_>) -> Option<(&Normalizer, &Framing)> {
        let framing = self
            .options
            .framing
            .as_ref()
            .filter(|f| f.has_plain_fields())?;
        let plain_output = matches!(self.options.output, OutputMode::Key | OutputMode::Record);
        (plain_output && !emit.tracks_keys()).then_some((self.ladder?, framing))
    }

    /// Writes the run of records at `start` whose URLs are their own keys, and moves past
    /// it. Returns whether it took a record.
    fn field_run(
        ladder: &Normalizer,
        framing: &Framing,
        text: &str,
        max_line: usize,
        pass: &mut Pass<'_>,
        emit: &mut Emitter<'_>,
        scratch: &mut Scratch,
    ) -> bool {
        // Slicing `text` after a line feed is always on a char boundary.
        let rest = &text[pass.start..];
        let (layout, spare) = (&scratch.layout, &mut scratch.framing_scratch);
        let record_output = emit.writes_records();
        let terminator = emit.terminator();
        let run = emit.key_run(rest, |out| {
            let field = |line: &[u8]| framing.plain_field(layout, line);
            let (bytes, lines) = ladder.canonical_fields(rest, max_line, field, |line, url| {
                if record_output {
                    let keyed = Keyed {
                        key: Some(url),
                        error: None,
                        located: true,
                    };
                    framing.write_record(layout, line.as_bytes(), keyed, out, spare);
                } else {
                    out.extend_from_slice(url.as_bytes());
                }
                out.push(terminator);
                true
            });
            KeyRun {
                bytes,
                lines,
                changed: 0,
            }
        });
        match run {
            Some(run) => {
                pass.advance(run.bytes, run.lines);
                true
            }
            None => false,
        }
    }

    /// Goes through a chunk of lines through the ladder's runs of lines, many lines at a
    /// time where they are their own keys or have keys written without a parse, until its
    /// end or a record that stops the run ([`OnError::Fail`]).
    fn lines(
        &self,
        ladder: &Normalizer,
        pass: &mut Pass<'_>,
        emit: &mut Emitter<'_>,
        scratch: &mut Scratch,
    ) {
        let runs = Runs {
            ladder,
            max_line: self.options.max_line_bytes,
            key_lf: ladder.rewrites_own_keys(),
            printable: ladder.runs_are_printable(),
        };
        while !pass.done() {
            pass.validate_to_start();
            // The end (line feed) of the line at `start`, once it has been looked for.
            let mut line_end = None;
            // Whether the ladder's runs of keys refused the line at `start`.
            let mut refused_by_key_lines = false;
            let text = pass.text.filter(|_| scratch.backoff.tries());
            if let Some(text) = text {
                let before = pass.start;
                if runs.pass_lines(text, pass, emit) {
                    break;
                }
                if pass.start != before {
                    scratch.backoff.taken();
                }
                if pass.start == pass.valid_to() {
                    // The end of the piece: the next one is validated first.
                    continue;
                }
                let key_rows = runs.key_rows(emit);
                if key_rows {
                    // Rows of the keys the ladder writes in runs: the line they stop at is
                    // refused by them, and goes on as below.
                    let before = pass.start;
                    runs.write_keyed(text, pass, emit, &mut scratch.run_key);
                    if pass.start != before {
                        scratch.backoff.taken();
                    }
                    if pass.start == pass.valid_to() {
                        continue;
                    }
                }
                // The line at `start` is not its own key as a line that ends in a line feed
                // alone. Its key may be written in a run of keys; it may still be its own key
                // if it ends in CRLF, or is the last line and has no line feed; any other
                // goes to the full ladder.
                let end = pass.line_end();
                line_end = Some(end);
                let crlf = end > pass.start && pass.data[end - 1] == b'\r';
                let keyed = match pass.next {
                    NextLine::Unknown => runs.key_lf,
                    NextLine::Keyed => true,
                    NextLine::NotKeyed => false,
                };
                let keys = emit.writes_runs && (crlf || keyed);
                pass.next = NextLine::Unknown;
                if keys && runs.key_lines(text, pass, emit) {
                    scratch.backoff.taken();
                    continue;
                }
                refused_by_key_lines = keys || key_rows;
                let try_alone = end == pass.data.len() || crlf;
                if try_alone && runs.pass_line(text, pass, emit) {
                    scratch.backoff.taken();
                    continue;
                }
                scratch.backoff.refused();
            }
            emit.flush_run();
            let end = line_end.unwrap_or_else(|| pass.line_end());
            scratch.refused_by_key_lines = refused_by_key_lines;
            if !self.record_at(end, pass, emit, scratch) {
                return;
            }
        }
    }

    /// Hands the line at `start`, which ends at `end` (its line feed, or the end of the
    /// chunk), to the operation, and moves past it. Returns false when the record stops the
    /// run.
    #[inline]
    fn record_at(
        &self,
        end: usize,
        pass: &mut Pass<'_>,
        emit: &mut Emitter<'_>,
        scratch: &mut Scratch,
    ) -> bool {
        let (start, data) = (pass.start, pass.data);
        let raw = without_cr(&data[start..end]);
        let record_end = start + raw.len();
        // Slicing `text` at a line feed or carriage return is always on a char boundary.
        let record = pass.text.map(|t| &t[start..record_end]);
        let ok = self.record(pass.line, raw, record, emit, scratch);
        if !ok && self.options.on_error == OnError::Fail {
            return false;
        }
        pass.line += 1;
        pass.start = end + 1;
        true
    }

    /// Handles one record that is not its own key: prepare, apply the operation, emit.
    /// `text` is the record as `&str` when its chunk is known to be valid UTF-8. Returns
    /// whether it was valid.
    fn record(
        &self,
        line: u64,
        raw: &[u8],
        text: Option<&str>,
        emit: &mut Emitter<'_>,
        scratch: &mut Scratch,
    ) -> bool {
        if raw.len() > self.options.max_line_bytes {
            self.too_long(line, raw, emit, scratch);
            return false;
        }
        if let Some(framing) = &self.options.framing {
            return self.framed_record(framing, line, raw, text, emit, scratch);
        }
        let Scratch { notes, key, .. } = scratch;
        key.clear();
        let record = RawLine {
            bytes: raw,
            text,
            repair: self.options.repair(),
        };
        let result = match self.ladder {
            // The ladder reports a NUL itself (its one entry, `Normalizer::enter`).
            Some(ladder) => {
                let refused = scratch.refused_by_key_lines;
                ladder.normalize_raw_into(record, key, notes, refused)
            }
            // Whatever the operation, a record that holds a NUL is refused for it (SPEC §2).
            None => {
                (self.op.apply_raw(record, key, notes)).map_err(|e| error::with_nul_first(raw, e))
            }
        };
        let ok = emit.record(line, raw, result.map(|()| key.as_str()), notes);
        notes.clear();
        ok
    }
}

impl Worker<'_> {
    /// A line longer than `--max-line-bytes` (`raw`: the line, or its first bytes): an
    /// invalid record; in record output the record (as much of it as was kept) with an
    /// empty key and its error, as any invalid record.
    fn too_long(&self, line: u64, raw: &[u8], emit: &mut Emitter<'_>, scratch: &mut Scratch) {
        match &self.options.framing {
            Some(framing) if emit.writes_records() => {
                let framed = Framed {
                    framing,
                    layout: &scratch.layout,
                    record: raw,
                    located: false,
                    scratch: &mut scratch.framing_scratch,
                };
                emit.framed(line, raw, framed, Err(too_long()), &scratch.notes);
            }
            _ => emit.invalid(line, raw, too_long()),
        }
    }

    /// Handles one record of a record format: its header line, or its URL located, keyed
    /// and emitted with the record. Returns whether it was valid.
    fn framed_record(
        &self,
        framing: &Framing,
        line: u64,
        raw: &[u8],
        text: Option<&str>,
        emit: &mut Emitter<'_>,
        scratch: &mut Scratch,
    ) -> bool {
        let Scratch {
            notes,
            key,
            layout,
            field,
            framing_scratch,
            field_run_refused,
            ..
        } = scratch;
        if line == 1 && layout.header {
            emit.header(framing, layout, raw);
            return true;
        }
        key.clear();
        let located = framing.locate(layout, raw, text, field);
        // `Ok(Some(url))`: the URL is its own key; `Ok(None)`: the key is in `key`.
        let result = located.as_ref().map_err(Clone::clone).and_then(|at| {
            let url = at.url(raw, field);
            // The field of a record known as text is text (cut at ASCII bytes).
            let url_text = match text {
                Some(t) if !at.decoded => t.get(at.field.clone()),
                _ => std::str::from_utf8(url).ok(),
            };
            // Where the runs of records looked at the URL already, not again.
            let ask_fast = !*field_run_refused;
            self.key_url(url, url_text, ask_fast, key, notes)
                .map_err(|e| {
                    let e = error::with_nul_first(url, e);
                    let column = at.record_column(raw, e.column, e.kind);
                    Error { column, ..e }
                })
        });
        let url = match &located {
            Ok(at) => at.url(raw, field),
            Err(_) => raw,
        };
        let framed = Framed {
            framing,
            layout,
            record: raw,
            located: located.is_ok(),
            scratch: framing_scratch,
        };
        let ok = match result {
            Ok(Some(own)) => {
                emit.framed_own_key(line, own, framed);
                true
            }
            keyed => emit.framed(line, url, framed, keyed.map(|_| key.as_str()), notes),
        };
        notes.clear();
        ok
    }

    /// The key of a record's URL `url` (`text` where it is UTF-8): where the operation is
    /// the ladder and `ask_fast`, the URL itself (`Some`) where the fast path alone tells
    /// it is its own key, or else keyed into `key` without asking the fast path that again;
    /// otherwise keyed into `key` through the operation's one entry.
    fn key_url<'t>(
        &self,
        url: &[u8],
        text: Option<&'t str>,
        ask_fast: bool,
        key: &mut String,
        notes: &mut Notes,
    ) -> Result<Option<&'t str>, Error> {
        let record = RawLine {
            bytes: url,
            text,
            repair: self.options.repair(),
        };
        match (self.ladder, text) {
            (Some(ladder), Some(t)) if ask_fast && !t.is_empty() => {
                if ladder.canonical_line(t) == Some(t.len()) {
                    return Ok(Some(t));
                }
                ladder
                    .normalize_raw_into(record, key, notes, false)
                    .map(|()| None)
            }
            _ => self.op.apply_raw(record, key, notes).map(|()| None),
        }
    }
}

/// The error of a line longer than `--max-line-bytes`.
fn too_long() -> Error {
    Error::new(ErrorKind::TooLong, 0, TOO_LONG_MESSAGE)
}

#[cfg(test)]
mod tests {
    use super::pass::{piece_end, PIECE};
    use super::*;
    use crate::ladder::Options;
    use crate::stream::chunk::{output_parts, VerbatimRun};
    use crate::stream::operation::tests::Lowercase;
    use crate::stream::output::OutputMode;

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
        let mut rows = RowWriter::new(options.format());
        Worker::new(op, options, &names).process(&mut chunk, &mut rows, &mut Scratch::new());
        chunk
    }

    /// Runs `options` with the default ladder over one chunk of lines.
    fn process(data: &[u8], options: &EngineOptions) -> Chunk {
        let ladder = Normalizer::new(Options::default()).unwrap();
        process_with(&ladder, data, ChunkKind::Lines, options)
    }

    #[test]
    fn lines_that_are_their_own_keys_become_verbatim_runs() {
        let data = b"http://a/\nhttp://b/\nHTTP://c/\nhttp://d/\r\nhttp://e/\nhttp://f/";
        let chunk = process(data, &EngineOptions::default());
        // Lines with a CRLF or without a line feed are their own keys, but are written as
        // keys.
        assert_eq!(chunk.out, b"http://c/\nhttp://d/\nhttp://f/\n");
        let run = |data, at| VerbatimRun { data, at };
        assert_eq!(chunk.verbatim_runs, [run(0..20, 0), run(41..51, 20)]);
        let parts = output_parts(data, &chunk.out, &chunk.verbatim_runs);
        let want = "http://a/\nhttp://b/\nhttp://c/\nhttp://d/\nhttp://e/\nhttp://f/\n";
        assert_eq!(String::from_utf8(parts.concat()).unwrap(), want);
        let stats = &chunk.report.stats;
        assert_eq!((stats.records, stats.changed, stats.invalid), (6, 1, 0));
    }

    #[test]
    fn rows_of_lines_that_are_their_own_keys_carry_their_line_numbers() {
        // Runs of lines that are their own keys, broken by a changed record, a line that
        // ends in CRLF, an invalid record, and a last line without a line feed.
        let data = b"http://a/\nhttp://b/\nHTTP://c/\nhttp://d/\r\nhttp://e/\nhttp://[x/\nhttp://f/\nhttp://g/";
        let tsv = EngineOptions::default()
            .with_output(OutputMode::Tsv)
            .with_with_filename(true);
        let chunk = process(data, &tsv);
        let text = String::from_utf8(chunk.out).unwrap();
        let rows: Vec<&str> = text.lines().collect();
        let valid = [(1, "a"), (2, "b"), (4, "d"), (5, "e"), (7, "f"), (8, "g")];
        for (line, host) in valid {
            let want = format!("t\t{line}\thttp://{host}/\thttp://{host}/\t");
            assert_eq!(rows[line - 1], want);
        }
        assert_eq!(rows[2], "t\t3\tHTTP://c/\thttp://c/\t");
        assert!(rows[5].starts_with("t\t6\thttp://[x/\t\t"), "{}", rows[5]);
        assert_eq!(rows.len(), 8);
        let jsonl = EngineOptions::default().with_output(OutputMode::Jsonl);
        let chunk = process(data, &jsonl);
        let text = String::from_utf8(chunk.out).unwrap();
        for (i, row) in text.lines().enumerate() {
            let row: serde_json::Value = serde_json::from_str(row).unwrap();
            let fields: Vec<&str> = rows[i].split('\t').collect();
            assert_eq!(row["line"].to_string(), fields[1]);
            assert_eq!(row["input"], fields[2]);
            assert_eq!(row["key"].as_str().unwrap_or(""), fields[3]);
        }
        assert_eq!(text.lines().count(), rows.len());
    }

    #[test]
    fn unique_keys_get_a_span_each_for_the_writer_to_drop_repeats() {
        let options = EngineOptions::default().with_unique(true);
        let data = b"http://a/\nhttp://b/\nhttp://a/\nHTTP://c/\nhttp://C/\n";
        let mut chunk = process(data, &options);
        assert!(chunk.verbatim_runs.is_empty());
        let keys = "http://a/\nhttp://b/\nhttp://a/\nhttp://c/\nhttp://c/\n";
        assert_eq!(String::from_utf8_lossy(&chunk.out), keys);
        let spans: Vec<_> = chunk.report.spans.iter().map(|s| s.start..s.end).collect();
        assert_eq!(spans, [0..10, 10..20, 20..30, 30..40, 40..50]);
        let fingerprints: Vec<_> = chunk.report.spans.iter().map(|s| s.fingerprint).collect();
        assert_eq!(fingerprints[0], fingerprints[2]);
        assert_eq!(fingerprints[3], fingerprints[4]);
        assert_ne!(fingerprints[0], fingerprints[1]);
        assert_eq!(chunk.report.stats.records, 5);
        // The writer keeps the first record of each key.
        let mut seen = crate::stream::dedup::FingerprintSet::default();
        let kept = crate::stream::dedup::keep_first(&mut chunk.out, &chunk.report.spans, &mut seen);
        let out = String::from_utf8_lossy(&chunk.out);
        assert_eq!(
            (&*out, kept.dropped),
            ("http://a/\nhttp://b/\nhttp://c/\n", 2)
        );
        let lines: Vec<_> = chunk.report.spans.iter().map(|s| s.line).collect();
        assert_eq!(lines, [1, 2, 3, 4, 5]);
    }

    #[test]
    fn keys_counted_alone_go_into_a_sketch_not_spans() {
        let options = EngineOptions::default().with_stats(true);
        let data = b"http://a/\nhttp://b/\nhttp://a/\nHTTP://c/\nhttp://C/\nhttp://d/\r\nhttp://e/\nhttp://b/";
        let chunk = process(data, &options);
        // Lines that are their own keys are still written as verbatim runs; every key,
        // theirs too, goes into the sketch.
        let run = |data, at| VerbatimRun { data, at };
        assert_eq!(chunk.verbatim_runs, [run(0..30, 0), run(61..71, 30)]);
        assert!(chunk.report.spans.is_empty());
        assert_eq!(chunk.report.sketch.as_ref().unwrap().estimate(), 5);
        assert_eq!(chunk.report.stats.keys_written, 8);
    }

    #[test]
    fn a_failing_record_stops_the_chunk() {
        let options = EngineOptions::default()
            .with_output(OutputMode::Tsv)
            .with_on_error(OnError::Fail);
        let chunk = process(b"http://a/\nhttp://[x/\nhttp://b/\n", &options);
        assert_eq!(chunk.out, b"http://a/\thttp://a/\t\n");
        let failure = chunk.report.failure.as_ref().unwrap();
        let n = Normalizer::new(Options::default()).unwrap();
        let kind = n.normalize("http://[x/").unwrap_err().kind;
        assert_eq!((failure.line, failure.error.kind), (2, kind));
    }

    #[test]
    fn a_too_long_chunk_is_one_invalid_record() {
        let options = EngineOptions::default().with_output(OutputMode::Tsv);
        let chunk = process_with(&Lowercase, b"abc", ChunkKind::TooLong, &options);
        let want = format!("abc\t\ttoo-long:0: {TOO_LONG_MESSAGE}\n");
        assert_eq!(String::from_utf8_lossy(&chunk.out), want);
        assert_eq!(chunk.report.stats.invalid_of(ErrorKind::TooLong), 1);
        assert_eq!(chunk.report.diagnostics.len(), 1);
    }

    #[test]
    fn skipping_the_fast_path_changes_no_output() {
        // Refused lines, enough in a row for the worker to skip the fast path, then lines
        // that are their own keys, some of them handed to the ladder while it is skipped;
        // and the same again.
        let (mut data, mut want) = (Vec::new(), Vec::new());
        for _ in 0..2 {
            for _ in 0..20 {
                data.extend_from_slice(b"HTTP://c/\n");
                want.extend_from_slice(b"http://c/\n");
            }
            for _ in 0..100 {
                data.extend_from_slice(b"http://b/\n");
                want.extend_from_slice(b"http://b/\n");
            }
        }
        let chunk = process(&data, &EngineOptions::default());
        let parts = output_parts(&data, &chunk.out, &chunk.verbatim_runs);
        assert_eq!(parts.concat(), want);
        let stats = &chunk.report.stats;
        assert_eq!((stats.records, stats.changed), (240, 40));
        // Some lines that are their own keys were written by the ladder, not as runs.
        let in_runs: usize = chunk.verbatim_runs.iter().map(|r| r.data.len()).sum();
        assert!(in_runs < 200 * 10, "{in_runs}");
        assert!(in_runs > 100 * 10, "{in_runs}");
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

    /// A line of `prefix` and then letters, twice as long as a piece.
    fn longer_than_a_piece(prefix: &[u8]) -> Vec<u8> {
        let mut long = prefix.to_vec();
        long.resize(2 * PIECE, b'b');
        long.push(b'\n');
        long
    }

    /// Key output, tsv rows, and keys with `--unique`.
    fn outputs() -> [EngineOptions; 3] {
        [
            EngineOptions::default(),
            EngineOptions::default().with_output(OutputMode::Tsv),
            EngineOptions::default().with_unique(true),
        ]
    }

    #[test]
    fn a_chunk_of_many_pieces_gives_what_its_lines_give_alone() {
        // Lines that are their own keys, one that is not and one that ends in CRLF every
        // ninth.
        let lines: [&[u8]; 9] = [
            b"HTTP://c/\n",
            b"http://abcdefghij/\n",
            b"http://bbb/\n",
            b"http://abc/\r\n",
            b"http://ddddd/\n",
            b"http://eeee/\n",
            b"http://ff/\n",
            b"http://g.h/i\n",
            b"http://jk/\n",
        ];
        let long = longer_than_a_piece(b"http://b/");
        let data = lines_over_pieces(&lines, &long, b"http://last/");
        let ladder = Normalizer::new(Options::default()).unwrap();
        for options in outputs() {
            pieces_give_what_lines_give(&Lowercase, &data, &options);
            pieces_give_what_lines_give(&ladder, &data, &options);
        }
        // A run of lines that are their own keys goes on across the end of a piece.
        let own: [&[u8]; 2] = [b"http://a/\n", b"http://b.c/d\n"];
        let data = lines_over_pieces(&own, &long, b"http://last/");
        let chunk = pieces_give_what_lines_give(&ladder, &data, &EngineOptions::default());
        let end = piece_end(&data, 0);
        let across = |r: &VerbatimRun| r.data.start < end && r.data.end > end;
        let runs = &chunk.verbatim_runs;
        assert!(runs.iter().any(across), "{runs:?}");
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
        let long = longer_than_a_piece(b"http://f.example/");
        let data = lines_over_pieces(&lines, &long, b"http://g.example/last");
        let surt = Options::default().with_form(Form::Surt);
        let crawler = Options::default()
            .with_level(crate::ladder::Level::Protocol)
            .with_rules(Some(std::sync::Arc::new(
                crate::ladder::Rules::profile("crawler").unwrap(),
            )));
        for ladder in [surt, crawler] {
            let op = Normalizer::new(ladder).unwrap();
            for options in outputs() {
                pieces_give_what_lines_give(&op, &data, &options);
            }
        }
    }
}
