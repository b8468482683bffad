//! The rows of the output: [`RowWriter`] formats each [`Row`] as a key, tsv or jsonl row
//! into a caller's buffer, with the start of each row (the input's name, the line number)
//! kept from one row to the next.

use crate::iri::error::{Error, Warning};
use crate::ladder::json::{
    json_next, push_decimal, push_json_bytes, push_json_note, push_json_str, push_json_warnings,
};

use super::escape::{push_tsv_field, push_unescaped, tsv_next};
use super::{Format, OutputMode};

/// The pieces of a jsonl row between its fields: after the line number, before the key,
/// and, for a valid record, before its warnings.
const JSONL_INPUT: &[u8] = b",\"input\":\"";
const JSONL_KEY: &[u8] = b"\",\"key\":\"";
const JSONL_NO_ERROR: &[u8] = b"\",\"error\":null,\"warnings\":[";

/// One row to write, as [`RowWriter::write`] takes it: a record's line, input and result
/// (the crate's `Record` is the result alone: key, error, repairs, warnings).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Row<'a> {
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

impl<'a> Row<'a> {
    /// The row of a valid record: its line number, its input, its key, the warnings about
    /// it, and whether it and its key are printable, as the operation's fast path promises
    /// ([`Row::passed`]).
    pub(crate) fn valid(
        line: u64,
        input: &'a [u8],
        key: &'a str,
        warnings: &'a [Warning],
        passed: bool,
    ) -> Self {
        Row {
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
            // Record output is written by the framing (`Framing::write_record`).
            OutputMode::Key | OutputMode::Record => {}
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
    pub(crate) fn write(&mut self, out: &mut Vec<u8>, row: Row<'_>) {
        match self.format.mode {
            OutputMode::Key | OutputMode::Record => {
                if let Ok(key) = row.result {
                    out.extend_from_slice(key.as_bytes());
                }
            }
            OutputMode::Tsv => self.write_tsv(out, row),
            OutputMode::Jsonl => self.write_jsonl(out, row),
        }
        out.push(self.format.terminator);
    }

    /// [`RowWriter::write`] for a record that passed through ([`Row::passed`]): valid, its
    /// own key, without warnings, holding no byte a format escapes. The same bytes, written
    /// without the questions the other records need.
    #[inline(always)]
    pub(crate) fn write_passed(&mut self, out: &mut Vec<u8>, line: u64, record: &str) {
        let r = record.as_bytes();
        match self.format.mode {
            OutputMode::Key | OutputMode::Record => out.extend_from_slice(r),
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
    /// the operation promises printable ([`Row::passed`]): no byte a format escapes
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
            OutputMode::Key | OutputMode::Record => out.extend_from_slice(k),
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
    fn write_tsv(&mut self, out: &mut Vec<u8>, row: Row<'_>) {
        let Row {
            line,
            input,
            result,
            passed,
            ..
        } = row;
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
    fn write_jsonl(&mut self, out: &mut Vec<u8>, row: Row<'_>) {
        let Row {
            line,
            input,
            result,
            warnings,
            passed,
        } = row;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iri::error::ErrorKind;
    use crate::stream::output::escape::tests::{
        reference_json_bytes, reference_tsv, tricky_bytes, tricky_char,
    };
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
        let row = Row {
            line: 7,
            input,
            result,
            warnings,
            passed: false,
        };
        rows.write(out, row);
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
                        let row = Row::valid(line, input.as_bytes(), input, &[], how == 1);
                        match how {
                            2 => rows.write_passed(&mut out, line, input),
                            3 => rows.write_printable(&mut out, line, input, input),
                            _ => rows.write(&mut out, row),
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
                    general.write(&mut a, Row::valid(line, input.as_bytes(), key, &[], true));
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

    proptest! {
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
                let row = Row {
                    line: 1,
                    input: b"a",
                    result: Ok("a"),
                    warnings: &[],
                    passed: input == 1,
                };
                rows.write(&mut out, row);
            }
            let text = String::from_utf8(out).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            assert!(lines[0].starts_with(want) && lines[3] == lines[0], "{text}");
            assert!(lines[1] == lines[2] && lines[1] != lines[0], "{text}");
        }
    }
}
