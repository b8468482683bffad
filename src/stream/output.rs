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
use crate::stream::hyperloglog::STANDARD_ERROR;

/// The form of each output line (`--output`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OutputMode {
    /// The key alone; an empty line for an invalid record.
    #[default]
    Key,
    /// `input<TAB>key<TAB>error`, with tabs, carriage returns and backslashes escaped.
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

/// Where a record comes from: its input's name and its 1-based line number in it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Origin<'a> {
    pub(crate) file: &'a str,
    pub(crate) line: u64,
}

/// Appends one output record to `out`.
///
/// `origin` says where the record comes from, `input` is the record as read (without its
/// line terminator), `result` its key or the reason it is invalid, and `warnings` the
/// warnings about a valid record (written in jsonl only).
pub(crate) fn write_record(
    out: &mut Vec<u8>,
    format: Format,
    origin: Origin<'_>,
    input: &[u8],
    result: Result<&str, &Error>,
    warnings: &[Warning],
) {
    match format.mode {
        OutputMode::Key => {
            if let Ok(key) = result {
                out.extend_from_slice(key.as_bytes());
            }
        }
        OutputMode::Tsv => {
            if format.with_filename {
                push_tsv_field(out, origin.file.as_bytes());
                out.push(b'\t');
                push_decimal(out, origin.line);
                out.push(b'\t');
            }
            push_tsv_field(out, input);
            out.push(b'\t');
            if let Ok(key) = result {
                push_tsv_field(out, key.as_bytes());
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
        OutputMode::Jsonl => {
            out.extend_from_slice(b"{\"file\":\"");
            push_json_str(out, origin.file);
            out.extend_from_slice(b"\",\"line\":");
            push_decimal(out, origin.line);
            out.extend_from_slice(b",\"input\":\"");
            push_json_bytes(out, input);
            out.extend_from_slice(b"\",\"key\":");
            match result {
                Ok(key) => {
                    out.push(b'"');
                    push_json_str(out, key);
                    out.extend_from_slice(b"\",\"error\":null");
                }
                Err(error) => {
                    out.extend_from_slice(b"null,\"error\":");
                    push_json_note(out, error.kind.name(), error.column, error.message);
                }
            }
            out.extend_from_slice(b",\"warnings\":[");
            for (i, w) in warnings.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                push_json_note(out, w.kind.name(), w.column, w.message);
            }
            out.extend_from_slice(b"]}");
        }
    }
    out.push(format.terminator);
}

/// Appends `{"kind":"…","column":N,"message":"…"}`, an error or a warning.
pub(crate) fn push_json_note(out: &mut Vec<u8>, kind: &str, column: usize, message: &str) {
    out.extend_from_slice(b"{\"kind\":\"");
    push_json_str(out, kind);
    out.extend_from_slice(b"\",\"column\":");
    push_decimal(out, column as u64);
    out.extend_from_slice(b",\"message\":\"");
    push_json_str(out, message);
    out.extend_from_slice(b"\"}");
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

/// Appends `n` in decimal without going through the formatting machinery.
pub(crate) fn push_decimal(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// Appends a tsv field: `\` → `\\`, TAB → `\t`, CR → `\r`, everything else as it is.
fn push_tsv_field(out: &mut Vec<u8>, field: &[u8]) {
    let mut copied = 0;
    for i in memchr::memchr3_iter(b'\\', b'\t', b'\r', field) {
        out.extend_from_slice(&field[copied..i]);
        out.extend_from_slice(match field[i] {
            b'\\' => b"\\\\",
            b'\t' => b"\\t",
            _ => b"\\r",
        });
        copied = i + 1;
    }
    out.extend_from_slice(&field[copied..]);
}

/// Appends the body of a JSON string (without quotes) holding `s`: `"`, `\\` and the
/// controls U+0000–U+001F escaped, everything else as it is.
pub fn push_json_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let mut copied = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let short: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0C => b"\\f",
            0x00..=0x1F => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[copied..i]);
        if short.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX_LOWER[usize::from(b >> 4)]);
            out.push(HEX_LOWER[usize::from(b & 15)]);
        } else {
            out.extend_from_slice(short);
        }
        copied = i + 1;
    }
    out.extend_from_slice(&bytes[copied..]);
}

/// Appends the body of a JSON string holding the bytes `raw`: valid UTF-8 is escaped as by
/// [`push_json_str`], every other octet is written `%XX`.
pub fn push_json_bytes(out: &mut Vec<u8>, raw: &[u8]) {
    for piece in raw.utf8_chunks() {
        push_json_str(out, piece.valid());
        for &b in piece.invalid() {
            out.push(b'%');
            out.push(HEX_UPPER[usize::from(b >> 4)]);
            out.push(HEX_UPPER[usize::from(b & 15)]);
        }
    }
}

const HEX_LOWER: &[u8; 16] = b"0123456789abcdef";
const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

#[cfg(test)]
mod tests {
    use super::*;

    fn format(mode: OutputMode) -> Format {
        Format {
            mode,
            with_filename: false,
            terminator: b'\n',
        }
    }

    const ORIGIN: Origin<'static> = Origin {
        file: "in\t\"x\".txt",
        line: 7,
    };

    fn record(mode: OutputMode, input: &[u8], result: Result<&str, &Error>) -> String {
        let mut out = Vec::new();
        write_record(&mut out, format(mode), ORIGIN, input, result, &[]);
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
        write_record(&mut out, tsv, ORIGIN, b"a", Ok("A"), &[]);
        assert_eq!(out, b"in\\t\"x\".txt\t7\ta\tA\t\0");
        out.clear();
        let two = [warning.clone(), warning];
        write_record(
            &mut out,
            format(OutputMode::Jsonl),
            ORIGIN,
            b"a",
            Ok("A"),
            &two,
        );
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

    #[test]
    fn decimals() {
        for n in [0u64, 9, 10, 12345, u64::MAX] {
            let mut out = Vec::new();
            push_decimal(&mut out, n);
            assert_eq!(out, n.to_string().as_bytes());
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
