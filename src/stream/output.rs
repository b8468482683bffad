//! Output records: key, tsv and jsonl lines; statistics; diagnostics (SPEC §6).
//!
//! Everything here writes into a caller's `Vec<u8>` or `dyn Write`, so the engine's workers
//! can format a whole chunk of records into one reused buffer without allocating per line.
//!
//! The three record forms, one record each, each ended by a line feed (or by a NUL with
//! [`EngineOptions::null_terminated`](crate::stream::EngineOptions::null_terminated)):
//!
//! - [`OutputMode::Key`]: the key. An invalid record gives an empty record, so that output
//!   record N belongs to input line N.
//! - [`OutputMode::Tsv`]: `input<TAB>key<TAB>error`, or, with
//!   [`EngineOptions::with_filename`](crate::stream::EngineOptions::with_filename),
//!   `file<TAB>line<TAB>input<TAB>key<TAB>error`. In the file, input and key fields a
//!   backslash is written `\\`, a tab `\t` and a carriage return `\r`; no other byte is
//!   changed (octets that are not UTF-8 are copied as they are). The key field is empty for
//!   an invalid record; the error field is empty for a valid one and otherwise reads
//!   `kind:column: message`.
//! - [`OutputMode::Jsonl`]: one JSON object,
//!   `{"file":"…","line":N,"input":"…","key":"…","error":null,"warnings":[…]}` or
//!   `{"file":"…","line":N,"input":"…","key":null,"error":{"kind":"…","column":N,"message":"…"},"warnings":[]}`.
//!   Each warning is `{"kind":"…","column":N,"message":"…"}` (`column` is 0 when it concerns
//!   the whole record); the list is empty when there are none, and always for an invalid
//!   record. Strings are escaped as JSON requires (`"`, `\` and the controls
//!   U+0000–U+001F; the controls without a short escape are written `\u00xx`). JSON strings
//!   must be Unicode, so in the `input` field every octet that is not part of valid UTF-8 is
//!   written as `%XX` (uppercase hex), never as U+FFFD: the original bytes stay recoverable,
//!   at the price that a literal `%XX` already in the input reads the same. `file` is the
//!   input's name (`<stdin>` for standard input); `line` counts from 1 within each input.
//!
//! For a record that is too long, the input field holds only its first 256 bytes (the
//! engine never holds such a line whole).

use std::io::{self, Write};
use std::time::Duration;

use crate::iri::error::{Error, ErrorKind, Warning};
use crate::iri::repair::{RepairKind, Repairs};
use crate::ladder::json::{
    escape_table, first_where, json_next, push_decimal, push_escaped, push_json_bytes,
    push_json_note, push_json_str, push_json_warnings, EscapeTable,
};
use crate::stream::hyperloglog::STANDARD_ERROR;

/// The form of each output line (`--output`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OutputMode {
    /// The key alone; an empty line for an invalid record.
    #[default]
    Key,
    /// `input<TAB>key<TAB>error`, with tabs, carriage returns, NULs and backslashes escaped.
    Tsv,
    /// One JSON object per record: `line`, `input`, `key`, `error`.
    Jsonl,
}

/// Counts gathered over a run, returned by [`crate::stream::Engine::run`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Records read (every line, valid or not, written or not).
    pub records: u64,
    /// Invalid records, all kinds together.
    pub invalid: u64,
    /// Invalid records by kind, indexed by [`ErrorKind::index`]; see [`Stats::invalid_of`].
    pub invalid_by_kind: [u64; ErrorKind::ALL.len()],
    /// Repairs made by the lenient preparation of records (`crate::iri::repair`).
    pub repairs: Repairs,
    /// Warnings about valid records (hosts that failed IDNA, ...), all kinds together.
    pub warnings: u64,
    /// Valid records whose key differs from the input line (after the line terminator, and
    /// a byte order mark at the start of the input, were removed).
    pub changed: u64,
    /// Keys written: valid records written to the output (with `unique`, the first record
    /// of each key only). Invalid records are not counted here.
    pub keys_written: u64,
    /// Distinct keys among the valid records, when they were counted: exactly with
    /// `unique` (through 128-bit fingerprints, see [`crate::stream::EngineOptions::unique`]),
    /// estimated with `stats` alone (see [`Stats::unique_estimated`]).
    pub unique: Option<u64>,
    /// Whether [`Stats::unique`] is an estimate: with
    /// [`EngineOptions::stats`](crate::stream::EngineOptions::stats) but not `unique`, the
    /// distinct keys are counted by a HyperLogLog sketch in fixed memory, with a relative
    /// standard error of about 0.8%.
    pub unique_estimated: bool,
    /// Bytes read, after decompression.
    pub input_bytes: u64,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
    /// Whether the run was interrupted before the end of its inputs (see
    /// [`crate::stream::Engine::with_interrupt`]).
    pub interrupted: bool,
}

impl Stats {
    /// The number of invalid records of `kind`.
    pub fn invalid_of(&self, kind: ErrorKind) -> u64 {
        self.invalid_by_kind[kind.index()]
    }

    /// Adds the record counts of `other` (records, invalid, repairs, changed) to these.
    pub(crate) fn merge_counts(&mut self, other: &Stats) {
        self.records += other.records;
        self.invalid += other.invalid;
        for (a, b) in self.invalid_by_kind.iter_mut().zip(other.invalid_by_kind) {
            *a += b;
        }
        self.repairs.merge(&other.repairs);
        self.warnings += other.warnings;
        self.changed += other.changed;
        self.keys_written += other.keys_written;
    }

    /// Counts one invalid record.
    pub(crate) fn count_invalid(&mut self, kind: ErrorKind) {
        self.invalid += 1;
        self.invalid_by_kind[kind.index()] += 1;
    }

    /// Writes a human-readable summary: records, invalid records by kind, repairs by kind,
    /// changed records, unique keys, bytes read, time and throughput (decimal megabytes per
    /// second). Kinds with a zero count are left out.
    pub fn write_report(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "records      {}", self.records)?;
        writeln!(w, "invalid      {}", self.invalid)?;
        for kind in ErrorKind::ALL {
            let n = self.invalid_of(kind);
            if n > 0 {
                writeln!(w, "  {:<18} {n}", kind.name())?;
            }
        }
        writeln!(w, "repairs      {}", self.repairs.total())?;
        for kind in RepairKind::ALL {
            let n = self.repairs.get(kind);
            if n > 0 {
                writeln!(w, "  {:<18} {n}", kind.name())?;
            }
        }
        writeln!(w, "warnings     {}", self.warnings)?;
        writeln!(w, "changed      {}", self.changed)?;
        writeln!(w, "keys written {}", self.keys_written)?;
        match self.unique {
            Some(n) if self.unique_estimated => {
                let error = STANDARD_ERROR * 100.0;
                writeln!(w, "unique       about {n} (estimate, ±{error:.1}%)")?;
            }
            Some(n) => writeln!(w, "unique       {n}")?,
            None => {}
        }
        writeln!(w, "bytes        {}", self.input_bytes)?;
        let secs = self.elapsed.as_secs_f64();
        writeln!(w, "elapsed      {secs:.3} s")?;
        if self.interrupted {
            writeln!(
                w,
                "interrupted  (the counts cover the records read until then)"
            )?;
        }
        if secs > 0.0 {
            let mb_per_s = self.input_bytes as f64 / 1e6 / secs;
            writeln!(w, "throughput   {mb_per_s:.1} MB/s")?;
        }
        Ok(())
    }
}

impl Stats {
    /// Writes the statistics as one JSON object on one line:
    ///
    /// ```text
    /// {"records":N,"keys_written":N,"changed":N,"invalid":N,"invalid_by_kind":{"empty":N,…},
    ///  "repairs":N,"repairs_by_kind":{"trim":N,…},"warnings":N,"distinct_keys":N|null,
    ///  "distinct_keys_estimated":B,"bytes":N,"seconds":F,"interrupted":B}
    /// ```
    ///
    /// Every kind of invalid record and of repair is listed, zero or not; `distinct_keys` is
    /// `null` when keys were not counted, and `distinct_keys_estimated` says whether it is
    /// an estimate ([`Stats::unique_estimated`]); `bytes` are bytes read after decompression;
    /// `seconds` is the wall-clock time of the run; `interrupted` says whether the run was
    /// cut short (Ctrl-C), so that the counts cover only part of the inputs.
    pub fn write_json(&self, w: &mut dyn Write) -> io::Result<()> {
        let mut out = Vec::with_capacity(512);
        let field = |out: &mut Vec<u8>, name: &str, n: u64| {
            out.extend_from_slice(b"\"");
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\":");
            push_decimal(out, n);
        };
        out.push(b'{');
        field(&mut out, "records", self.records);
        out.push(b',');
        field(&mut out, "keys_written", self.keys_written);
        out.push(b',');
        field(&mut out, "changed", self.changed);
        out.push(b',');
        field(&mut out, "invalid", self.invalid);
        out.extend_from_slice(b",\"invalid_by_kind\":{");
        for (i, kind) in ErrorKind::ALL.into_iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            field(&mut out, kind.name(), self.invalid_of(kind));
        }
        out.extend_from_slice(b"},");
        field(&mut out, "repairs", self.repairs.total());
        out.extend_from_slice(b",\"repairs_by_kind\":{");
        for (i, kind) in RepairKind::ALL.into_iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            field(&mut out, kind.name(), self.repairs.get(kind));
        }
        out.extend_from_slice(b"},");
        field(&mut out, "warnings", self.warnings);
        out.extend_from_slice(b",\"distinct_keys\":");
        match self.unique {
            Some(n) => push_decimal(&mut out, n),
            None => out.extend_from_slice(b"null"),
        }
        let estimated: &[u8] = match self.unique_estimated {
            true => b",\"distinct_keys_estimated\":true,",
            false => b",\"distinct_keys_estimated\":false,",
        };
        out.extend_from_slice(estimated);
        field(&mut out, "bytes", self.input_bytes);
        let seconds = format!(
            ",\"seconds\":{:.6},\"interrupted\":{}}}\n",
            self.elapsed.as_secs_f64(),
            self.interrupted
        );
        out.extend_from_slice(seconds.as_bytes());
        w.write_all(&out)
    }
}

/// How records are written: the form, whether tsv rows start with the file name and line,
/// and the byte that ends each record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Format {
    pub(crate) mode: OutputMode,
    pub(crate) with_filename: bool,
    pub(crate) terminator: u8,
}

impl Format {
    /// Whether records are written with their line numbers (which the reader then counts).
    pub(crate) fn needs_lines(&self) -> bool {
        match self.mode {
            OutputMode::Key => false,
            OutputMode::Tsv => self.with_filename,
            OutputMode::Jsonl => true,
        }
    }
}

/// The pieces of a jsonl row between its fields: after the line number, before the key,
/// and, for a valid record, before its warnings.
const JSONL_INPUT: &[u8] = b",\"input\":\"";
const JSONL_KEY: &[u8] = b"\",\"key\":\"";
const JSONL_NO_ERROR: &[u8] = b"\",\"error\":null,\"warnings\":[";

/// One record to write, as [`RowWriter::write`] takes it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Record<'a> {
    /// The record's 1-based line number in its input.
    pub(crate) line: u64,
    /// The record as read, without its line terminator.
    pub(crate) input: &'a [u8],
    /// Its key, or the reason it is invalid.
    pub(crate) result: Result<&'a str, &'a Error>,
    /// The warnings about a valid record (written in jsonl only).
    pub(crate) warnings: &'a [Warning],
    /// The record came from the ladder's runs of lines (its own key, or a key written
    /// there), which take only printable records (SPEC §8): neither it nor its key holds a
    /// byte a format escapes, so its fields are copied without a scan.
    pub(crate) passed: bool,
}

impl<'a> Record<'a> {
    /// A valid record: its line number, its input, its key, the warnings about it, and
    /// whether it and its key are printable, as the operation's fast path promises
    /// ([`Record::passed`]).
    pub(crate) fn valid(
        line: u64,
        input: &'a [u8],
        key: &'a str,
        warnings: &'a [Warning],
        passed: bool,
    ) -> Self {
        Record {
            line,
            input,
            result: Ok(key),
            warnings,
            passed,
        }
    }
}

/// Formats records into a caller's buffer, keeping what repeats from one record to the
/// next: the start of each row, which names the input (escaped once per input, not once per
/// record), and the line number, counted up in decimal rather than converted each time.
///
/// Each worker keeps one; [`RowWriter::start_input`] names the input of the records that
/// follow.
#[derive(Clone, Debug)]
pub(crate) struct RowWriter {
    format: Format,
    /// The input whose name `head` holds, once one was named.
    input: Option<usize>,
    /// The start of each row of that input, with the line number last written.
    head: RowHead,
}

impl RowWriter {
    /// A writer of records in `format`.
    pub(crate) fn new(format: Format) -> Self {
        RowWriter {
            format,
            input: None,
            head: RowHead::default(),
        }
    }

    /// Names the input of the records written next: input number `input`, called `name`.
    /// Its name is escaped only when it is not the input named last.
    pub(crate) fn start_input(&mut self, input: usize, name: &str) {
        if self.input == Some(input) {
            return;
        }
        self.input = Some(input);
        let mode = self.format.mode;
        let with_filename = self.format.with_filename;
        self.head.start(|head| match mode {
            OutputMode::Key => {}
            OutputMode::Tsv if !with_filename => {}
            OutputMode::Tsv => {
                push_tsv_field(head, name.as_bytes());
                head.push(b'\t');
            }
            OutputMode::Jsonl => {
                head.extend_from_slice(b"{\"file\":\"");
                push_json_str(head, name);
                head.extend_from_slice(b"\",\"line\":");
            }
        });
    }

    /// Appends one output record to `out`.
    pub(crate) fn write(&mut self, out: &mut Vec<u8>, record: Record<'_>) {
        match self.format.mode {
            OutputMode::Key => {
                if let Ok(key) = record.result {
                    out.extend_from_slice(key.as_bytes());
                }
            }
            OutputMode::Tsv => self.write_tsv(out, record),
            OutputMode::Jsonl => self.write_jsonl(out, record),
        }
        out.push(self.format.terminator);
    }

    /// [`RowWriter::write`] for a record that passed through ([`Record::passed`]): valid, its
    /// own key, without warnings, holding no byte a format escapes. The same bytes, written
    /// without the questions the other records need.
    #[inline(always)]
    pub(crate) fn write_passed(&mut self, out: &mut Vec<u8>, line: u64, record: &str) {
        let r = record.as_bytes();
        match self.format.mode {
            OutputMode::Key => out.extend_from_slice(r),
            OutputMode::Tsv => {
                if self.format.with_filename {
                    out.extend_from_slice(self.head.of(line));
                    out.push(b'\t');
                }
                out.reserve(2 * r.len() + 2);
                out.extend_from_slice(r);
                out.push(b'\t');
                out.extend_from_slice(r);
                out.push(b'\t');
            }
            OutputMode::Jsonl => {
                let head = self.head.of(line);
                let row = [head, JSONL_INPUT, r, JSONL_KEY, r, JSONL_NO_ERROR, b"]}"];
                push_pieces(out, &row);
            }
        }
        out.push(self.format.terminator);
    }

    /// [`RowWriter::write`] for a valid record without warnings whose bytes, and its key's,
    /// the operation promises printable ([`Record::passed`]): no byte a format escapes
    /// (checked in debug builds), the key other than the record (a SURT, a key the protocol
    /// rules rewrote; [`RowWriter::write_passed`] writes the others). The row's pieces are
    /// copied after one check of `out`'s capacity.
    #[inline(always)]
    pub(crate) fn write_printable(
        &mut self,
        out: &mut Vec<u8>,
        line: u64,
        record: &str,
        key: &str,
    ) {
        let (r, k) = (record.as_bytes(), key.as_bytes());
        match self.format.mode {
            OutputMode::Key => out.extend_from_slice(k),
            OutputMode::Tsv => {
                debug_assert!(tsv_next(r).is_none() && tsv_next(k).is_none());
                let head: &[u8] = if self.format.with_filename {
                    self.head.of(line)
                } else {
                    &[]
                };
                let tab: &[u8] = if self.format.with_filename {
                    b"\t"
                } else {
                    &[]
                };
                push_pieces(out, &[head, tab, r, b"\t", k, b"\t"]);
            }
            OutputMode::Jsonl => {
                debug_assert!(json_next(r).is_none() && json_next(k).is_none());
                let head = self.head.of(line);
                let row = [head, JSONL_INPUT, r, JSONL_KEY, k, JSONL_NO_ERROR, b"]}"];
                push_pieces(out, &row);
            }
        }
        out.push(self.format.terminator);
    }

    /// A tsv row, without its terminator.
    fn write_tsv(&mut self, out: &mut Vec<u8>, record: Record<'_>) {
        let Record {
            line,
            input,
            result,
            passed,
            ..
        } = record;
        if self.format.with_filename {
            out.extend_from_slice(self.head.of(line));
            out.push(b'\t');
        }
        let escaped_input = out.len();
        if passed {
            push_unescaped(out, input, tsv_next);
        } else {
            push_tsv_field(out, input);
        }
        let escaped_input = escaped_input..out.len();
        out.push(b'\t');
        match result {
            // A key that is the input: its field is the input's field again.
            Ok(key) if same_bytes(key.as_bytes(), input) => out.extend_from_within(escaped_input),
            Ok(key) if passed => push_unescaped(out, key.as_bytes(), tsv_next),
            Ok(key) => push_tsv_field(out, key.as_bytes()),
            Err(_) => {}
        }
        out.push(b'\t');
        if let Err(error) = result {
            out.extend_from_slice(error.kind.name().as_bytes());
            out.push(b':');
            push_decimal(out, error.column as u64);
            out.extend_from_slice(b": ");
            push_tsv_field(out, error.message.as_bytes());
        }
    }

    /// A jsonl row, without its terminator.
    fn write_jsonl(&mut self, out: &mut Vec<u8>, record: Record<'_>) {
        let Record {
            line,
            input,
            result,
            warnings,
            passed,
        } = record;
        out.extend_from_slice(self.head.of(line));
        out.extend_from_slice(JSONL_INPUT);
        // A key that is the input (a record that needed no change: most records) shows
        // the input is UTF-8, and its field is the input's field again.
        let same = result.ok().filter(|key| same_bytes(key.as_bytes(), input));
        let escaped_input = out.len();
        match same {
            Some(key) if !passed => push_json_str(out, key),
            None if !passed => push_json_bytes(out, input),
            _ => push_unescaped(out, input, json_next),
        }
        let escaped_input = escaped_input..out.len();
        match result {
            Ok(key) => {
                out.extend_from_slice(JSONL_KEY);
                if same.is_some() {
                    out.extend_from_within(escaped_input);
                } else if passed {
                    push_unescaped(out, key.as_bytes(), json_next);
                } else {
                    push_json_str(out, key);
                }
                out.extend_from_slice(JSONL_NO_ERROR);
            }
            Err(error) => {
                out.extend_from_slice(b"\",\"key\":null,\"error\":");
                push_json_note(out, error.kind.name(), error.column, error.message);
                out.extend_from_slice(b",\"warnings\":[");
            }
        }
        push_json_warnings(out, warnings);
        out.extend_from_slice(b"]}");
    }
}

/// Whether `a` and `b` hold the same bytes; at once when they are the same slice (a record
/// that passed through is its own key).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    std::ptr::eq(a, b) || a == b
}

/// The start of each row of one input up to and with its line number, in one buffer:
/// `{"file":"NAME","line":N` in jsonl, `NAME<TAB>N` in tsv with file names, `N` otherwise
/// (where rows carry no file name, the number is not written). The line number is kept as
/// decimal digits at the end, so that moving on to the next line is an increment of the
/// digits (with a carry now and then), not a conversion, and a row starts with one copy.
#[derive(Clone, Debug)]
struct RowHead {
    /// The text before the number, then the number's digits.
    bytes: Vec<u8>,
    /// Where the digits start.
    digits: usize,
    /// The number the digits spell.
    line: u64,
}

impl Default for RowHead {
    fn default() -> Self {
        let mut head = RowHead {
            bytes: Vec::new(),
            digits: 0,
            line: 0,
        };
        head.start(|_| {});
        head
    }
}

impl RowHead {
    /// Starts again with the text that `write` writes before the number, and the number 0.
    fn start(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        self.bytes.clear();
        write(&mut self.bytes);
        self.digits = self.bytes.len();
        self.bytes.push(b'0');
        self.line = 0;
    }

    /// The start of the row of line `n`: the digits kept, counted up when `n` is the next
    /// number.
    #[inline]
    fn of(&mut self, n: u64) -> &[u8] {
        if self.line.checked_add(1) == Some(n) {
            self.increment();
        } else if n != self.line {
            self.line = n;
            self.bytes.truncate(self.digits);
            push_decimal(&mut self.bytes, n);
        }
        &self.bytes
    }

    /// Adds 1 to `line` and its digits (`line` stays a `u64`: the caller asks for `line + 1`
    /// only where it is one).
    #[inline]
    fn increment(&mut self) {
        self.line += 1;
        for digit in self.bytes[self.digits..].iter_mut().rev() {
            if *digit != b'9' {
                *digit += 1;
                return;
            }
            *digit = b'0';
        }
        // All nines: one digit more.
        self.bytes.insert(self.digits, b'1');
    }
}

/// Writes one diagnostic line, `irinorm: NAME:LINE:COL: kind: message` (COL is 0 when the
/// error concerns the whole record).
pub(crate) fn write_diagnostic(
    w: &mut dyn Write,
    name: &str,
    line: u64,
    error: &Error,
) -> io::Result<()> {
    writeln!(
        w,
        "irinorm: {name}:{line}:{}: {}: {}",
        error.column,
        error.kind.name(),
        error.message
    )
}

/// Appends `pieces`, one after the other, with one check of `out`'s capacity rather than
/// one per piece.
#[inline(always)]
fn push_pieces(out: &mut Vec<u8>, pieces: &[&[u8]]) {
    let total = pieces.iter().map(|p| p.len()).sum::<usize>();
    out.reserve(total);
    let start = out.len();
    let mut at = out.as_mut_ptr().wrapping_add(start);
    for piece in pieces {
        // SAFETY: `reserve` made room for `total` bytes after `start`, the sum of the
        // pieces' lengths: each copy stays inside it, and `piece` (borrowed) cannot overlap
        // `out`'s buffer (borrowed mutably).
        unsafe {
            std::ptr::copy_nonoverlapping(piece.as_ptr(), at, piece.len());
            at = at.add(piece.len());
        }
    }
    // SAFETY: the loop wrote the `total` bytes after `start`.
    unsafe { out.set_len(start + total) };
}

/// Tsv fields: `\`, TAB, CR and NUL (`\0`: with `-0`, a NUL ends a row).
const TSV_ESCAPES: EscapeTable = escape_table(
    &[(b'\\', b'\\'), (b'\t', b't'), (b'\r', b'r'), (0, b'0')],
    false,
);

/// Appends `bytes` as they are: a record, or its key, that the operation promises printable
/// ([`Record::passed`]), which holds none of the bytes `next` finds (checked in debug
/// builds).
#[inline]
fn push_unescaped(out: &mut Vec<u8>, bytes: &[u8], next: impl Fn(&[u8]) -> Option<usize>) {
    debug_assert!(next(bytes).is_none(), "a printable record or key");
    out.extend_from_slice(bytes);
}

/// The index of the first byte of `bytes` that [`TSV_ESCAPES`] escapes.
#[inline]
fn tsv_next(bytes: &[u8]) -> Option<usize> {
    first_where(bytes, |b| {
        (b == b'\\') | (b == b'\t') | (b == b'\r') | (b == 0)
    })
}

/// Appends a tsv field: `\` → `\\`, TAB → `\t`, CR → `\r`, NUL → `\0`, everything else as
/// it is.
fn push_tsv_field(out: &mut Vec<u8>, field: &[u8]) {
    push_escaped(out, field, &TSV_ESCAPES, tsv_next);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ladder::json::JSON_ESCAPES;
    use proptest::prelude::*;

    fn format(mode: OutputMode) -> Format {
        Format {
            mode,
            with_filename: false,
            terminator: b'\n',
        }
    }

    /// The name of the input of the records in these tests.
    const FILE: &str = "in\t\"x\".txt";

    /// Appends the record at line 7 of [`FILE`] to `out`, in `format`.
    fn write_record(
        out: &mut Vec<u8>,
        format: Format,
        input: &[u8],
        result: Result<&str, &Error>,
        warnings: &[Warning],
    ) {
        let mut rows = RowWriter::new(format);
        rows.start_input(0, FILE);
        let record = Record {
            line: 7,
            input,
            result,
            warnings,
            passed: false,
        };
        rows.write(out, record);
    }

    #[test]
    fn a_record_that_passed_through_is_written_as_any_other() {
        let formats = [
            format(OutputMode::Jsonl),
            format(OutputMode::Tsv),
            Format {
                with_filename: true,
                ..format(OutputMode::Tsv)
            },
            format(OutputMode::Key),
            Format {
                terminator: 0,
                ..format(OutputMode::Jsonl)
            },
        ];
        for format in formats {
            for input in [
                "http://a/b?c=d#e",
                "urn:x:y",
                "http://\u{e9}.example/\u{e9}",
            ] {
                // The general way, as any record or as one that passed through, and the
                // short way of `write_passed`, over lines that count up and jump.
                let rows = |how: u8| {
                    let mut rows = RowWriter::new(format);
                    rows.start_input(0, FILE);
                    let mut out = Vec::new();
                    for line in [3, 4, 9, 10, 11, 99, 100] {
                        let record = Record::valid(line, input.as_bytes(), input, &[], how == 1);
                        match how {
                            2 => rows.write_passed(&mut out, line, input),
                            3 => rows.write_printable(&mut out, line, input, input),
                            _ => rows.write(&mut out, record),
                        }
                    }
                    out
                };
                assert_eq!(rows(1), rows(0), "{input} {format:?}");
                assert_eq!(rows(2), rows(0), "{input} {format:?}");
                assert_eq!(rows(3), rows(0), "{input} {format:?}");
                // A key that differs from its record (a SURT), the general way and the short.
                let key = "com,example)/b?c=d";
                let mut general = RowWriter::new(format);
                let mut short = RowWriter::new(format);
                let (mut a, mut b) = (Vec::new(), Vec::new());
                for w in [&mut general, &mut short] {
                    w.start_input(0, FILE);
                }
                for line in [3, 4, 100] {
                    general.write(
                        &mut a,
                        Record::valid(line, input.as_bytes(), key, &[], true),
                    );
                    short.write_printable(&mut b, line, input, key);
                }
                assert_eq!(b, a, "{input} {format:?}");
                assert!(
                    memchr::memmem::find(&b, key.as_bytes()).is_some(),
                    "{format:?}"
                );
            }
        }
    }

    fn record(mode: OutputMode, input: &[u8], result: Result<&str, &Error>) -> String {
        let mut out = Vec::new();
        write_record(&mut out, format(mode), input, result, &[]);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn rows_carry_the_file_and_line_warnings_and_terminator() {
        let warning = Warning::new(crate::iri::error::WarningKind::Idna, 8, "bad \"host\"");
        let mut out = Vec::new();
        let tsv = Format {
            with_filename: true,
            terminator: 0,
            ..format(OutputMode::Tsv)
        };
        write_record(&mut out, tsv, b"a", Ok("A"), &[]);
        assert_eq!(out, b"in\\t\"x\".txt\t7\ta\tA\t\0");
        out.clear();
        let two = [warning.clone(), warning];
        write_record(&mut out, format(OutputMode::Jsonl), b"a", Ok("A"), &two);
        let w = r#"{"kind":"idna","column":8,"message":"bad \"host\""}"#;
        let want = format!(
            r#"{{"file":"in\t\"x\".txt","line":7,"input":"a","key":"A","error":null,"warnings":[{w},{w}]}}"#
        );
        assert_eq!(String::from_utf8(out).unwrap(), want + "\n");
        // Warnings never show in tsv or key output.
        assert_eq!(record(OutputMode::Tsv, b"a", Ok("A")), "a\tA\t\n");
    }

    #[test]
    fn key_lines_keep_line_numbers_aligned() {
        let err = Error::new(ErrorKind::Syntax, 3, "bad");
        assert_eq!(record(OutputMode::Key, b"a", Ok("A")), "A\n");
        assert_eq!(record(OutputMode::Key, b"a", Err(&err)), "\n");
    }

    #[test]
    fn tsv_escapes_tabs_returns_and_backslashes() {
        let err = Error::new(ErrorKind::Control, 2, "control character");
        assert_eq!(
            record(OutputMode::Tsv, b"a\tb\\c\rd", Ok("k")),
            "a\\tb\\\\c\\rd\tk\t\n"
        );
        assert_eq!(
            record(OutputMode::Tsv, b"a\tb", Err(&err)),
            "a\\tb\t\tcontrol:2: control character\n"
        );
        // A NUL too: with `-0` it would end the row.
        let nul = Error::new(ErrorKind::Nul, 2, "NUL byte");
        assert_eq!(
            record(OutputMode::Tsv, b"a\0b\0", Err(&nul)),
            "a\\0b\\0\t\tnul:2: NUL byte\n"
        );
    }

    #[test]
    fn jsonl_escapes_strings_and_keeps_stray_octets_as_percent() {
        let err = Error::new(ErrorKind::TooLong, 0, "line too long");
        assert_eq!(
            record(OutputMode::Jsonl, b"\"a\\\x01\n\xFF\xC3\xA9", Ok("k\u{1f}")),
            concat!(
                r#"{"file":"in\t\"x\".txt","line":7,"input":"\"a\\\u0001\n%FF"#,
                "\u{e9}",
                r#"","key":"k\u001f","error":null,"warnings":[]}"#,
                "\n"
            )
        );
        assert_eq!(
            record(OutputMode::Jsonl, b"x", Err(&err)),
            concat!(
                r#"{"file":"in\t\"x\".txt","line":7,"input":"x","key":null,"#,
                r#""error":{"kind":"too-long","column":0,"message":"line too long"},"#,
                r#""warnings":[]}"#,
                "\n"
            )
        );
    }

    /// The JSON string body of `s` as serde_json writes it (the quotes taken off).
    fn reference_json_str(s: &str) -> String {
        let quoted = serde_json::to_string(s).unwrap();
        quoted[1..quoted.len() - 1].to_owned()
    }

    /// The input field of a jsonl record, spelled out: valid UTF-8 as serde_json escapes it,
    /// every other octet as `%XX`.
    fn reference_json_bytes(raw: &[u8]) -> String {
        let mut out = String::new();
        for piece in raw.utf8_chunks() {
            out.push_str(&reference_json_str(piece.valid()));
            for b in piece.invalid() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
        out
    }

    /// A tsv field escaped by the four replacements the format names, one after the other
    /// (the backslash first, so that the backslashes the others write stay single).
    fn reference_tsv(field: &[u8]) -> Vec<u8> {
        let replace = |bytes: Vec<u8>, from: u8, to: &[u8]| -> Vec<u8> {
            let pieces: Vec<&[u8]> = bytes.split(|&b| b == from).collect();
            pieces.join(to)
        };
        let field = replace(field.to_vec(), b'\\', b"\\\\");
        let field = replace(field, b'\t', b"\\t");
        let field = replace(field, b'\r', b"\\r");
        replace(field, 0, b"\\0")
    }

    /// Characters that the escapers treat apart, often, among any others.
    fn tricky_char() -> impl Strategy<Value = char> {
        prop_oneof![
            3 => prop::sample::select(vec![
                '"', '\\', '\n', '\r', '\t', '\u{8}', '\u{c}', '\0', '\u{1f}', '\u{7f}', ' ',
                '%', '/', 'a', 'Z', 'é', '\u{80}', '\u{2028}', '\u{2029}', '中', '😀',
            ]),
            1 => proptest::char::range('\0', '\u{1f}'),
            2 => any::<char>(),
        ]
    }

    /// Byte strings of tricky characters with stray octets (not UTF-8) among them.
    fn tricky_bytes() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            4 => tricky_char().prop_map(|c| c.to_string().into_bytes()),
            1 => any::<u8>().prop_map(|b| vec![b]),
        ];
        prop::collection::vec(piece, 0..48).prop_map(|p| p.concat())
    }

    proptest! {
        #[test]
        fn json_strings_are_escaped_as_serde_json_does(
            s in prop::collection::vec(tricky_char(), 0..48)
                .prop_map(|c| c.into_iter().collect::<String>()),
        ) {
            let mut out = b"prefix".to_vec();
            push_json_str(&mut out, &s);
            prop_assert_eq!(String::from_utf8(out).unwrap(), format!("prefix{}", reference_json_str(&s)));
        }

        #[test]
        fn json_bytes_and_tsv_fields_match_the_references(raw in tricky_bytes()) {
            let mut out = Vec::new();
            push_json_bytes(&mut out, &raw);
            prop_assert_eq!(String::from_utf8(out).unwrap(), reference_json_bytes(&raw));
            let mut out = Vec::new();
            push_tsv_field(&mut out, &raw);
            prop_assert_eq!(out, reference_tsv(&raw));
        }

        #[test]
        fn records_spell_key_and_input_alike_whether_or_not_they_are_equal(
            raw in tricky_bytes(),
            other in prop::collection::vec(tricky_char(), 0..16)
                .prop_map(|c| c.into_iter().collect::<String>()),
        ) {
            let same = String::from_utf8(raw.clone()).ok();
            for key in same.iter().chain([&other]) {
                let mut out = Vec::new();
                write_record(&mut out, format(OutputMode::Jsonl), &raw, Ok(key), &[]);
                let row: serde_json::Value = serde_json::from_slice(&out).unwrap();
                prop_assert_eq!(row["input"].as_str().unwrap(), serde_json::from_str::<String>(
                    &format!("\"{}\"", reference_json_bytes(&raw))).unwrap());
                prop_assert_eq!(row["key"].as_str().unwrap(), key.as_str());
                let mut out = Vec::new();
                write_record(&mut out, format(OutputMode::Tsv), &raw, Ok(key), &[]);
                let mut want = reference_tsv(&raw);
                want.push(b'\t');
                want.extend(reference_tsv(key.as_bytes()));
                want.extend_from_slice(b"\t\n");
                prop_assert_eq!(out, want);
            }
        }
    }

    #[test]
    fn block_scans_find_what_the_tables_escape() {
        // Every byte value at every place of strings of 1 to 40 bytes, among bytes that are
        // not escaped (ASCII and not), and after another byte that is.
        /// A scan, the table it must agree with, and a byte that table escapes.
        type Scan = (fn(&[u8]) -> Option<usize>, &'static EscapeTable, u8);
        let scans: [Scan; 2] = [
            (json_next, &JSON_ESCAPES, b'"'),
            (tsv_next, &TSV_ESCAPES, b'\t'),
        ];
        for (next, table, escaped) in scans {
            for b in 0..=255u8 {
                for len in 1..=40 {
                    for at in 0..len {
                        for filler in [b'a', 0x9F] {
                            let mut s = vec![filler; len];
                            s[at] = b;
                            let want = (table[usize::from(b)] != 0).then_some(at);
                            assert_eq!(next(&s), want, "{b:#04x} at {at} of {len}");
                            if at + 1 < len {
                                s[at + 1] = escaped;
                                assert_eq!(next(&s), Some(want.unwrap_or(at + 1)));
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn decimals() {
        for n in [
            0u64,
            1,
            9,
            10,
            99,
            100,
            101,
            999,
            1000,
            12345,
            123456,
            u64::MAX - 1,
            u64::MAX,
        ] {
            let mut out = Vec::new();
            push_decimal(&mut out, n);
            assert_eq!(out, n.to_string().as_bytes());
        }
    }

    #[test]
    fn line_numbers_count_up_across_digit_boundaries() {
        let mut head = RowHead::default();
        let big = 9_999_999_999_999_999_999;
        let jumps = [9_999, 10_000, 10_001, 5, 5, 6, big, big + 1, big + 2];
        let ends = [u64::MAX - 2, u64::MAX - 1, u64::MAX, 0, 1, 100];
        for n in (0..=1100).chain(jumps).chain(ends) {
            assert_eq!(head.of(n), n.to_string().as_bytes(), "{n}");
        }
        // After the text before the number, which a new input replaces.
        head.start(|b| b.extend_from_slice(b"x\t"));
        for n in (1..=120).chain([99_999, 100_000, 7]) {
            assert_eq!(head.of(n), format!("x\t{n}").as_bytes(), "{n}");
        }
        head.start(|b| b.push(b'y'));
        assert_eq!(head.of(0), b"y0");
        assert_eq!(head.of(1), b"y1");
    }

    #[test]
    fn each_row_names_its_own_input() {
        let jsonl = format(OutputMode::Jsonl);
        let tsv = Format {
            with_filename: true,
            ..format(OutputMode::Tsv)
        };
        for (format, want) in [
            (jsonl, r#"{"file":"x\\\"","line":1,"#),
            (tsv, "x\\\\\"\t1\t"),
        ] {
            let mut rows = RowWriter::new(format);
            let mut out = Vec::new();
            for (input, name) in [(0, "x\\\""), (1, "y"), (1, "y"), (0, "x\\\"")] {
                rows.start_input(input, name);
                let record = Record {
                    line: 1,
                    input: b"a",
                    result: Ok("a"),
                    warnings: &[],
                    passed: input == 1,
                };
                rows.write(&mut out, record);
            }
            let text = String::from_utf8(out).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            assert!(lines[0].starts_with(want) && lines[3] == lines[0], "{text}");
            assert!(lines[1] == lines[2] && lines[1] != lines[0], "{text}");
        }
    }

    #[test]
    fn diagnostics_and_reports() {
        let mut out = Vec::new();
        let err = Error::new(ErrorKind::Syntax, 4, "bad scheme");
        write_diagnostic(&mut out, "f.txt", 12, &err).unwrap();
        assert_eq!(out, b"irinorm: f.txt:12:4: syntax: bad scheme\n");

        let mut stats = Stats {
            records: 3,
            changed: 1,
            ..Stats::default()
        };
        stats.count_invalid(ErrorKind::Empty);
        stats.repairs.add(RepairKind::Trim);
        let report = report_of(&stats);
        assert!(report.contains("records      3\n"), "{report}");
        assert!(report.contains("  empty"), "{report}");
        assert!(report.contains("  trim"), "{report}");
        assert!(!report.contains("syntax"), "{report}");
        let json = json_of(&stats);
        assert!(json.starts_with(r#"{"records":3,"keys_written":0,"changed":1,"invalid":1,"#));
        assert!(json.contains(r#""empty":1,"#), "{json}");
        assert!(
            json.contains(r#""repairs":1,"repairs_by_kind":{"trim":1,"#),
            "{json}"
        );
        let end = r#""distinct_keys":null,"distinct_keys_estimated":false,"bytes":0,"#;
        assert!(json.contains(end), "{json}");
        assert!(json.ends_with("}\n") && json.lines().count() == 1, "{json}");
        serde_json::from_str::<serde_json::Value>(&json).unwrap();
        // Distinct keys, exact and estimated.
        stats.unique = Some(12);
        let (report, json) = (report_of(&stats), json_of(&stats));
        assert!(report.contains("unique       12\n"), "{report}");
        assert!(json.contains(r#""distinct_keys":12,"distinct_keys_estimated":false,"#));
        stats.unique_estimated = true;
        let (report, json) = (report_of(&stats), json_of(&stats));
        assert!(
            report.contains("unique       about 12 (estimate, ±0.8%)\n"),
            "{report}"
        );
        assert!(json.contains(r#""distinct_keys":12,"distinct_keys_estimated":true,"#));
    }

    fn report_of(stats: &Stats) -> String {
        let mut out = Vec::new();
        stats.write_report(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn json_of(stats: &Stats) -> String {
        let mut out = Vec::new();
        stats.write_json(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }
}
