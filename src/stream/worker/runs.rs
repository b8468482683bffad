//! The worker's way through the ladder's runs of lines ([`Runs`]): many lines at a time
//! where they are their own keys (copied through, SPEC §8) or have keys the ladder writes
//! without a parse, each handed to the chunk's emitter.

use super::emit::Emitter;
use super::pass::{handed_out_line, terminator, Pass};
use crate::ladder::Normalizer;
use crate::stream::output::Row;

/// The ladder and what the worker asks of its runs of lines.
pub(super) struct Runs<'a> {
    pub(super) ladder: &'a Normalizer,
    /// The longest line a run may take (`--max-line-bytes`).
    pub(super) max_line: usize,
    /// The ladder's runs of keys may hold lines that end in a line feed alone
    /// ([`Normalizer::rewrites_own_keys`]).
    pub(super) key_lf: bool,
    /// The runs' lines and keys hold no byte an output format escapes
    /// ([`Normalizer::runs_are_printable`]).
    pub(super) printable: bool,
}

impl Runs<'_> {
    /// The fast path, many lines at a time: the lines at `start` that are their own keys.
    /// Where the emitter writes verbatim runs, those that end in a line feed alone join the
    /// run; otherwise each, CRLF lines too, is formatted as a record
    /// ([`Runs::write_passed`]). Returns whether they reach the end of the chunk.
    #[inline]
    pub(super) fn pass_lines(&self, text: &str, pass: &mut Pass, emit: &mut Emitter) -> bool {
        if !emit.writes_runs {
            self.write_passed(text, pass, emit);
            return pass.done();
        }
        // Slicing `text` after a line feed is always on a char boundary.
        let rest = &text[pass.start..];
        let max_line = self.max_line;
        let (n, lines) = if emit.sketches() {
            self.sketch_passed(rest, emit)
        } else {
            let (n, lines, next) = self.ladder.canonical_lines_then_keys(rest, max_line);
            pass.next = next;
            (n, lines)
        };
        // The contract, checked: whole lines.
        if n > 0 && rest.as_bytes().get(n - 1) == Some(&b'\n') {
            emit.copied(pass.start..pass.start + n, lines);
            pass.advance(n, lines);
            return pass.done();
        }
        false
    }

    /// Formats each line at `start` that is its own key (and ends in a line feed, alone or
    /// after a carriage return) as a valid record, as the ladder hands them out, and moves
    /// past them.
    pub(super) fn write_passed(&self, text: &str, pass: &mut Pass, emit: &mut Emitter) {
        let rest = &text[pass.start..];
        let mut row = RowOf::new(rest, self, pass.line, emit);
        self.ladder
            .each_canonical_line(rest, self.max_line, |line| row.line(line, line));
        let (bytes, lines) = (row.at, row.lines);
        pass.advance(bytes, lines);
    }

    /// Whether the keys the ladder writes in runs are written as rows, one by one
    /// ([`Runs::write_keyed`]): where it rewrites keys in runs and the chunk's output is
    /// not written in verbatim runs (rows, tracked keys, NUL after each key).
    #[inline]
    pub(super) fn key_rows(&self, emit: &Emitter<'_>) -> bool {
        self.key_lf && !emit.writes_runs
    }

    /// Formats each line at `start` whose key the ladder writes in a run
    /// ([`Normalizer::own_keys_each`]), lines that are their own keys among them, as a valid
    /// record with its key, and moves past them.
    pub(super) fn write_keyed(
        &self,
        text: &str,
        pass: &mut Pass,
        emit: &mut Emitter,
        run_key: &mut Vec<u8>,
    ) {
        let rest = &text[pass.start..];
        let mut row = RowOf::new(rest, self, pass.line, emit);
        self.ladder
            .own_keys_each(rest, self.max_line, run_key, |line, key| {
                row.line(line, key)
            });
        let (bytes, lines) = (row.at, row.lines);
        pass.advance(bytes, lines);
    }

    /// The lines at `start` whose keys the ladder writes at once
    /// ([`Normalizer::own_key_lines`]): written after what the output holds. Returns whether
    /// there were any.
    pub(super) fn key_lines(&self, text: &str, pass: &mut Pass, emit: &mut Emitter) -> bool {
        let rest = &text[pass.start..];
        let max_line = self.max_line;
        match emit.key_run(rest, |out| self.ladder.own_key_lines(rest, max_line, out)) {
            Some(run) => {
                pass.advance(run.bytes, run.lines);
                true
            }
            None => false,
        }
    }

    /// The fast path, one line: if the record at `start` is its own key, it is written as
    /// it is. Returns whether it was.
    #[inline]
    pub(super) fn pass_line(&self, text: &str, pass: &mut Pass, emit: &mut Emitter) -> bool {
        let rest = &text[pass.start..];
        let Some((n, terminator)) = self.passes(rest) else {
            return false;
        };
        let (start, end) = (pass.start, pass.start + n);
        if emit.writes_runs && terminator == 1 {
            if emit.sketches() {
                emit.sketch(&pass.data[start..end]);
            }
            emit.copied(start..end + 1, 1);
            pass.advance(n + 1, 1);
        } else {
            emit.flush_run();
            let (raw, key) = (&pass.data[start..end], &rest[..n]);
            // Its own key.
            emit.valid(Row::valid(pass.line, raw, key, &[], true), false);
            pass.advance(n + terminator.max(1), 1);
        }
        true
    }

    /// Asks the ladder whether the record at the start of `rest` is its own key, and checks
    /// the answer against the contract: a whole record, not empty, without its CR, not too
    /// long. Returns the record's length and its line terminator's.
    #[inline]
    pub(super) fn passes(&self, rest: &str) -> Option<(usize, usize)> {
        let n = self.ladder.canonical_line(rest)?;
        let bytes = rest.as_bytes();
        let ok = n > 0 && n <= self.max_line && bytes[n - 1] != b'\r';
        ok.then(|| terminator(bytes, n)).flatten().map(|t| (n, t))
    }

    /// The lines at the start of `rest` that are their own keys and end in a line feed
    /// alone, each put into the chunk's sketch as the ladder hands it out.
    fn sketch_passed(&self, rest: &str, emit: &mut Emitter) -> (usize, u64) {
        let (max_line, mut at) = (self.max_line, 0);
        self.ladder.each_canonical_line(rest, max_line, |line| {
            // Only a line that ends in a line feed alone joins a run.
            if handed_out_line(rest, at, line, max_line) != Some(1) {
                return false;
            }
            emit.sketch(line.as_bytes());
            at += line.len() + 1;
            true
        })
    }
}

/// The rows of the lines a run of lines hands out, one by one, with their keys.
struct RowOf<'r, 'e, 'c> {
    /// The text the run reads, from its first line on.
    rest: &'r str,
    max_line: usize,
    /// The line number of the run's first line.
    first: u64,
    emit: &'e mut Emitter<'c>,
    /// The lines and their keys are printable ([`Runs::printable`]): their fields are
    /// copied without a scan.
    printable: bool,
    /// Rows of printable lines that no key tracking looks at take the short way.
    fast_rows: bool,
    /// The bytes and the lines taken so far.
    at: usize,
    lines: u64,
}

impl<'r, 'e, 'c> RowOf<'r, 'e, 'c> {
    fn new(rest: &'r str, runs: &Runs<'_>, first: u64, emit: &'e mut Emitter<'c>) -> Self {
        let fast_rows = runs.printable && !emit.tracks_keys();
        RowOf {
            rest,
            max_line: runs.max_line,
            first,
            emit,
            printable: runs.printable,
            fast_rows,
            at: 0,
            lines: 0,
        }
    }

    /// Writes the row of `line`, the next line of the run, with `key` (`line` itself where
    /// it is its own key). Returns `false`, writing nothing, where the line breaks the
    /// contract of a run ([`handed_out_line`]).
    #[inline(always)]
    fn line(&mut self, line: &str, key: &str) -> bool {
        let Some(ending) = handed_out_line(self.rest, self.at, line, self.max_line) else {
            return false;
        };
        let number = self.first + self.lines;
        // A line handed out as its own key is the same slice: not compared.
        let own = std::ptr::eq(key, line);
        if own && self.fast_rows {
            self.emit.passed_row(number, line);
        } else if self.fast_rows {
            // A key written anew (a SURT, a key the rules rewrote): as short a way.
            self.emit.keyed_row(number, line, key);
        } else {
            let row = Row::valid(number, line.as_bytes(), key, &[], self.printable);
            self.emit.valid(row, !own && key != line);
        }
        self.lines += 1;
        self.at += line.len() + ending;
        true
    }
}
