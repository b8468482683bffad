//! What the engine runs on every record (SPEC §8): the [`Operation`] trait, its
//! implementation for closures, and the ladder as an operation: the implementation for
//! [`Normalizer`], which lets the engine copy canonical lines through (its fast path) and
//! hands every other raw record to the normalizer's own record entry point.

use crate::iri::error::Error;
use crate::iri::repair::{self, Repair};
use crate::ladder::{Normalizer, Notes};

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
            // The operation saw the repaired record; point into the raw one.
            error.column = repair.raw_column(raw, error.column);
            error
        })
    }

    /// [`Operation::apply_raw`] for a record that [`Operation::key_lines`] was just asked
    /// about, as the first line of `rest`, and did not take: an implementation may skip
    /// what `key_lines` found would not help. The default is `apply_raw`.
    fn apply_raw_refused_by_key_lines(
        &self,
        raw: &[u8],
        text: Option<&str>,
        repair: Repair,
        out: &mut String,
        notes: &mut Notes,
    ) -> Result<(), Error> {
        self.apply_raw(raw, text, repair, out, notes)
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

    /// [`Operation::pass_through_lines`], and what is known of the line after the run
    /// ([`NextLine`]): whether [`Operation::key_lines`] takes it. The engine asks
    /// `key_lines` about that line where it is [`NextLine::Keyed`], even where
    /// [`Operation::key_lines_take_lf_lines`] says `false`; not where it is
    /// [`NextLine::NotKeyed`] (but for a line that ends in CRLF), even where that says
    /// `true`. The default, [`NextLine::Unknown`], is always correct.
    fn pass_through_lines_then_keys(&self, rest: &str, max_line: usize) -> (usize, u64, NextLine) {
        let (n, lines) = self.pass_through_lines(rest, max_line);
        (n, lines, NextLine::Unknown)
    }

    /// [`Operation::pass_through_lines`], with each line of the run (without its line feed)
    /// handed to `line`, in order, until it says `false`: for the rows of the tsv and jsonl
    /// outputs, which format each line, without a second search for the line feeds. Returns
    /// the bytes and the lines of the run up to the last line `line` took. Since rows are
    /// written line by line, the run may also hold lines that end in CRLF and pass through
    /// (handed out without the carriage return).
    ///
    /// The default runs [`Operation::pass_through_lines`] and then looks for the line
    /// feeds; an implementation may hand out the lines as it finds them, but must give the
    /// same lines, and the lines that end in CRLF only where [`Operation::pass_through`]
    /// takes them.
    fn pass_through_each_line(
        &self,
        rest: &str,
        max_line: usize,
        line: &mut dyn FnMut(&str) -> bool,
    ) -> (usize, u64) {
        let (n, _) = self.pass_through_lines(rest, max_line);
        let (mut at, mut lines) = (0, 0);
        for end in memchr::memchr_iter(b'\n', &rest.as_bytes()[..n]) {
            // Slicing at a line feed is always on a char boundary.
            if !line(&rest[at..end]) {
                break;
            }
            at = end + 1;
            lines += 1;
        }
        (at, lines)
    }

    /// The results of a run of lines, written at once: for the longest prefix of `rest`
    /// made of whole lines that each are at most `max_line` bytes long, end in a line feed
    /// (alone, or after a carriage return that is not part of the record), and hold a
    /// record that needs no repair, is valid and has a result without a
    /// warning that the operation can write straight away, appends each result and a line
    /// feed to `out`. The engine asks it, in key output, about the lines that do not pass
    /// through ([`Operation::pass_through_lines`]), and handles the lines after the run one
    /// by one. Each result must be exactly what [`Operation::apply_raw`] gives.
    ///
    /// The default takes no line.
    fn key_lines(&self, rest: &str, max_line: usize, out: &mut Vec<u8>) -> KeyRun {
        let _ = (rest, max_line, out);
        KeyRun::default()
    }

    /// [`Operation::key_lines`] for the rows of the tsv and jsonl outputs and for keys the
    /// engine tracks or ends with NUL (where nothing is written in runs): the same run, with
    /// the lines that pass through in it too, each line (without its line end) handed to
    /// `each` with its key, in order, until `each` says `false`. Returns the bytes and the
    /// lines of the run up to the last line `each` took. A key written for the run goes into
    /// `key` (the caller's buffer, reused); a line that passes through is handed out as its
    /// own key, the same slice. The engine asks it, where [`Operation::key_lines_take_lf_lines`]
    /// says `true`, about the lines that do not pass through
    /// ([`Operation::pass_through_each_line`]).
    ///
    /// Each key must be exactly what [`Operation::apply_raw`] gives, without a repair or a
    /// warning; where [`Operation::passes_printable_records`] says `true`, each key holds no
    /// byte the formats escape either. The default takes no line.
    fn key_each_line(
        &self,
        rest: &str,
        max_line: usize,
        key: &mut Vec<u8>,
        each: &mut dyn FnMut(&str, &str) -> bool,
    ) -> (usize, u64) {
        let _ = (rest, max_line, key, each);
        (0, 0)
    }

    /// Whether [`Operation::key_lines`] may take a line that ends in a line feed alone. Where
    /// it says `false` (its runs hold only lines that end in CRLF, which cannot be copied
    /// through as they are), the engine asks it only about a line that ends in CRLF. The
    /// default says `true`: the engine asks about every line that does not pass through.
    fn key_lines_take_lf_lines(&self) -> bool {
        true
    }

    /// Whether every record [`Operation::pass_through`] (or
    /// [`Operation::pass_through_lines`]) takes holds only printable characters: no control
    /// character, no space, no `"` and no `\`, the bytes the tsv and jsonl outputs escape.
    /// The engine then copies such a record into those rows without looking for them. The
    /// default says nothing (`false`).
    fn passes_printable_records(&self) -> bool {
        false
    }
}

/// What [`Operation::pass_through_lines_then_keys`] knows of the line after the lines that
/// pass through: whether [`Operation::key_lines`] takes it, so that the engine asks it
/// about that line only where that may pay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextLine {
    /// Not known: the engine asks where [`Operation::key_lines_take_lf_lines`] says so.
    Unknown,
    /// `key_lines` may take it.
    Keyed,
    /// `key_lines` refuses it, unless it ends in CRLF.
    NotKeyed,
}

/// What [`Operation::key_lines`] wrote: how much of the input it took, and the counts the
/// engine's statistics need.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyRun {
    /// The bytes of input taken, line feeds included.
    pub bytes: usize,
    /// The lines taken (each one record, with one result).
    pub lines: u64,
    /// How many of those results differ from their record.
    pub changed: u64,
}

impl<F> Operation for F
where
    F: Fn(&str, &mut String) -> Result<(), Error> + Sync,
{
    fn apply(&self, record: &str, out: &mut String) -> Result<(), Error> {
        self(record, out)
    }
}

/// The normalizer as an engine operation: records that the fast path accepts are copied
/// through by the engine itself, before any repair or parsing.
impl Operation for Normalizer {
    fn apply(&self, record: &str, out: &mut String) -> Result<(), Error> {
        self.normalize_record_into(record, out, &mut Notes::default())
    }

    /// The normalizer's own record entry point, under the engine's repair policy (the
    /// command line gives both the same `--strict`); the engine has asked `pass_through`
    /// (the fast path) about a raw record given as text, so that one goes straight to the
    /// full ladder unless the repairs changed it.
    fn apply_raw(
        &self,
        raw: &[u8],
        text: Option<&str>,
        repair: Repair,
        out: &mut String,
        notes: &mut Notes,
    ) -> Result<(), Error> {
        self.normalize_raw_into(raw, text, repair, out, notes, false)
    }

    /// Where [`Operation::key_lines`] refused the record, its fast path did too: not asked
    /// again.
    fn apply_raw_refused_by_key_lines(
        &self,
        raw: &[u8],
        text: Option<&str>,
        repair: Repair,
        out: &mut String,
        notes: &mut Notes,
    ) -> Result<(), Error> {
        self.normalize_raw_into(raw, text, repair, out, notes, true)
    }

    #[inline]
    fn pass_through(&self, rest: &str) -> Option<usize> {
        self.canonical_line(rest)
    }

    fn pass_through_lines(&self, rest: &str, max_line: usize) -> (usize, u64) {
        self.canonical_lines(rest, max_line)
    }

    /// A line whose key is the line with a `/` for its empty path ends the run, and so
    /// does, under protocol rules, one the rules' sieve does not let through: the runs of
    /// keys write them. A line the fast path refuses is not asked about again.
    fn pass_through_lines_then_keys(&self, rest: &str, max_line: usize) -> (usize, u64, NextLine) {
        let (n, lines, keyed) = self.canonical_lines_then_keys(rest, max_line);
        let next = match keyed {
            None => NextLine::Unknown,
            Some(true) => NextLine::Keyed,
            Some(false) => NextLine::NotKeyed,
        };
        (n, lines, next)
    }

    fn pass_through_each_line(
        &self,
        rest: &str,
        max_line: usize,
        line: &mut dyn FnMut(&str) -> bool,
    ) -> (usize, u64) {
        self.canonical_lines_each::<true>(rest, max_line, line)
    }

    /// The fast path takes no record holding a control character, a space, `"` or `\`:
    /// no component allows them raw (SPEC §8). The keys of its runs of keys are made of
    /// such a record's bytes and of printable ASCII punctuation.
    fn passes_printable_records(&self) -> bool {
        true
    }

    /// Only where the SURT form or protocol rules rewrite keys; otherwise its runs are the
    /// lines that end in CRLF.
    fn key_lines_take_lf_lines(&self) -> bool {
        self.rewrites()
    }

    fn key_each_line(
        &self,
        rest: &str,
        max_line: usize,
        key: &mut Vec<u8>,
        each: &mut dyn FnMut(&str, &str) -> bool,
    ) -> (usize, u64) {
        self.own_keys_each(rest, max_line, key, each)
    }

    fn key_lines(&self, rest: &str, max_line: usize, out: &mut Vec<u8>) -> KeyRun {
        let (bytes, lines, changed) = self.own_key_lines(rest, max_line, out);
        KeyRun {
            bytes,
            lines,
            changed,
        }
    }
}

/// Operations for the engine's own tests.
#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::iri::error::ErrorKind;

    pub(in crate::stream) fn upper(record: &str, out: &mut String) -> Result<(), Error> {
        if let Some(i) = record.find('x') {
            return Err(Error::at_byte(ErrorKind::Syntax, record, i, "x"));
        }
        out.push_str(&record.to_ascii_uppercase());
        Ok(())
    }

    /// Keeps records of the letters `a`–`w` as they are (and passes them through);
    /// uppercases the others (as `upper`, for which `x` is an error).
    pub(in crate::stream) struct Lowercase;

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
    fn runs_of_keys_take_crlf_lines_and_write_each_key_as_apply_does() {
        use crate::ladder::{Form, Level, Options, Rules};
        let crawler = Options::default()
            .with_level(Level::Protocol)
            .with_rules(Some(std::sync::Arc::new(
                Rules::profile("crawler").unwrap(),
            )));
        let surt = Options::default().with_form(Form::Surt);
        // Under the rules, a run of keys holds the lines whose keys the rules change.
        let cases = [
            (
                surt.clone(),
                "http://a.b/c\r\nhttp://d.e/?X=1\r\nhttp://f.g/\nHTTP://X/\n",
                3,
            ),
            // An empty path is written `/` (RFC 3986 §6.2.3), before a query or fragment
            // too; a host that is not LDH leaves the record to the full ladder.
            (
                surt.clone(),
                "http://a.b\nhttps://www.d.e?Q\r\nhttp://f.g:8080#F\nhttp://1.2.3.4\n",
                3,
            ),
            (
                crawler.clone(),
                "http://a.b?utm_source=x\nhttp://d.e?\nhttp://f.g#x\nhttp://a.b/\n",
                3,
            ),
            (
                crawler.clone(),
                "http://d.e/?utm_source=x\r\nhttp://a.b/?gclid=1\r\nhttp://f.g/\n",
                2,
            ),
            // A line the rules leave as it is joins the run where it ends in CRLF (it cannot
            // be copied through as it is); one that ends in a line feed alone is copied.
            (
                crawler.clone(),
                "http://d.e/?gclid=1\nhttp://a.b/\r\nhttp://f.g/\n",
                2,
            ),
        ];
        // Where no key is rewritten, a run of keys holds the lines that end in CRLF (those
        // that end in a line feed alone are copied through).
        let plain = Normalizer::new(Options::default()).unwrap();
        assert!(!plain.key_lines_take_lf_lines());
        let mut out = Vec::new();
        let run = plain.key_lines("http://a/\r\nhttp://b/\r\nhttp://c/\n", 100, &mut out);
        assert_eq!((run.bytes, run.lines, run.changed), (22, 2, 0));
        assert_eq!(out, b"http://a/\nhttp://b/\n");
        let none = plain.key_lines("http://a/\nhttp://b/\r\n", 100, &mut Vec::new());
        assert_eq!(none, KeyRun::default());
        // A line whose key adds the `/` of its empty path ends the lines that pass through,
        // and the run of keys writes it.
        let text = "http://a/\nhttp://b\nhttps://c?q\nhttp://d/\n";
        let keyed = (10, 1, NextLine::Keyed);
        assert_eq!(plain.pass_through_lines_then_keys(text, 100), keyed);
        let refused = "http://a/\nHTTP://b/\n";
        let not_keyed = (10, 1, NextLine::NotKeyed);
        assert_eq!(plain.pass_through_lines_then_keys(refused, 100), not_keyed);
        // Under protocol rules, a line the sieve does not let through is keyed; one the fast
        // path refuses is not; in the SURT form nothing passes through, and nothing is known.
        let crawler = Normalizer::new(crawler.clone()).unwrap();
        let queried = "http://a/\nhttp://a/?utm_source=x\n";
        assert_eq!(crawler.pass_through_lines_then_keys(queried, 100), keyed);
        assert_eq!(
            crawler.pass_through_lines_then_keys(refused, 100),
            not_keyed
        );
        let surt_form = Normalizer::new(surt.clone()).unwrap();
        let unknown = (0, 0, NextLine::Unknown);
        assert_eq!(surt_form.pass_through_lines_then_keys(text, 100), unknown);
        let mut out = Vec::new();
        let run = plain.key_lines(&text[10..], 100, &mut out);
        assert_eq!((run.bytes, run.lines, run.changed), (21, 2, 2));
        assert_eq!(out, b"http://b/\nhttps://c/?q\n");
        // The string rung keeps records as they are, in the SURT form too.
        let string = Normalizer::new(surt.clone().with_level(Level::String)).unwrap();
        let mut out = Vec::new();
        let run = string.key_lines("HTTP://A.B/x\r\n", 100, &mut out);
        assert_eq!((run.lines, out.as_slice()), (1, &b"HTTP://A.B/x\n"[..]));
        // An empty record is an error, whatever ends it: never in a run.
        let surt_n = Normalizer::new(surt.clone()).unwrap();
        let empty = surt_n.key_lines("\r\nhttp://a/\n", 100, &mut Vec::new());
        assert_eq!(empty, KeyRun::default());
        for (options, text, lines) in cases {
            let n = Normalizer::new(options).unwrap();
            let mut out = Vec::new();
            let run = n.key_lines(text, 10_000, &mut out);
            assert_eq!(run.lines, lines, "{text:?}");
            let taken = text.split_inclusive('\n').take(lines as usize);
            assert_eq!(run.bytes, taken.clone().map(str::len).sum::<usize>());
            let mut want = String::new();
            for line in taken {
                n.apply(line.trim_end(), &mut want).unwrap();
                want.push('\n');
            }
            assert_eq!(String::from_utf8(out).unwrap(), want, "{text:?}");
        }
    }

    #[test]
    fn runs_of_rows_hand_out_each_line_with_the_key_apply_gives() {
        use crate::ladder::{Form, Level, Options, Rules};
        let crawler = Options::default()
            .with_level(Level::Protocol)
            .with_rules(Some(std::sync::Arc::new(
                Rules::profile("crawler").unwrap(),
            )));
        let text = "http://a.b/c\r\nhttp://d.e/?utm_source=x\nhttp://f.g/\nHTTP://X/\nhttp://h/\n";
        for options in [Options::default().with_form(Form::Surt), crawler] {
            let n = Normalizer::new(options).unwrap();
            let (mut seen, mut key) = (Vec::new(), Vec::new());
            let mut own = 0;
            let run = n.key_each_line(text, 100, &mut key, &mut |line, key| {
                own += usize::from(std::ptr::eq(line, key));
                seen.push((line.to_owned(), key.to_owned()));
                true
            });
            // The run stops at the line the fast path refuses, CRLF lines in it.
            assert_eq!(run, (51, 3), "{seen:?}");
            for (line, key) in &seen {
                let mut want = String::new();
                n.apply(line, &mut want).unwrap();
                assert_eq!(key, &want);
            }
            // A line that is its own key is handed out as itself; a SURT never is.
            let surt = n.options().form == Form::Surt;
            assert_eq!(own, if surt { 0 } else { 2 });
            // A callback that stops early ends the run at the last line it took.
            let mut count = 0;
            let run = n.key_each_line(text, 100, &mut key, &mut |_, _| {
                count += 1;
                count < 2
            });
            assert_eq!(run, (14, 1));
        }
        // Where no key is rewritten, the lines of the run are their own keys.
        let plain = Normalizer::new(Options::default()).unwrap();
        let mut own = 0;
        let run = plain.key_each_line(text, 100, &mut Vec::new(), &mut |line, key| {
            own += usize::from(std::ptr::eq(line, key));
            true
        });
        assert_eq!((run, own), ((51, 3), 3));
        // An operation that writes no keys in runs (the default) takes no line.
        let none = upper.key_each_line(text, 100, &mut Vec::new(), &mut |_, _| true);
        assert_eq!(none, (0, 0));
    }

    /// The lines `pass_through_each_line` hands out, and what it returns, when the callback
    /// takes at most `most` lines.
    fn each_line(op: &dyn Operation, rest: &str, most: usize) -> (Vec<String>, (usize, u64)) {
        let mut seen = Vec::new();
        let run = op.pass_through_each_line(rest, 10, &mut |line| {
            seen.push(line.to_owned());
            seen.len() <= most
        });
        seen.truncate(most);
        (seen, run)
    }

    #[test]
    fn the_lines_of_a_run_are_handed_out_one_by_one() {
        let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (seen, run) = each_line(&Lowercase, "aa\nbb\nxx\ncc\n", 9);
        assert_eq!((seen, run), (lines(&["aa", "bb"]), (6, 2)));
        // A callback that stops early ends the run at the last line it took.
        let (seen, run) = each_line(&Lowercase, "aa\nbb\ncc\n", 1);
        assert_eq!((seen, run), (lines(&["aa"]), (3, 1)));
        let (seen, run) = each_line(&upper, "aa\n", 9);
        assert_eq!((seen, run), (vec![], (0, 0)));
        // The normalizer hands out its lines as its fast path finds them: the same lines.
        let n = crate::ladder::Normalizer::new(crate::ladder::Options::default()).unwrap();
        let text = "http://a/\nhttp://b/c\nHTTP://x/\nhttp://d/\n";
        let (seen, run) = each_line(&n, text, 9);
        assert_eq!(run, n.pass_through_lines(text, 10_000));
        assert_eq!((seen, run), (lines(&["http://a/", "http://b/c"]), (21, 2)));
        // Rows are written line by line: lines that end in CRLF are handed out too.
        let (seen, run) = each_line(&n, "http://a/\r\nhttp://b/\nHTTP://c/\r\n", 9);
        assert_eq!((seen, run), (lines(&["http://a/", "http://b/"]), (21, 2)));
    }
}
