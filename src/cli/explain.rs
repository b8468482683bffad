//! `normalize --explain`: each record with the steps of the ladder that changed it.
//!
//! A step shows only the part of the text that changed. The library reports some steps
//! with the whole record before and after (the lenient repairs, the protocol rules, which
//! rewrite the key as a whole); here a protocol rule shows the component it works on (the
//! query of `drop-params`, the fragment of `drop-fragment`, ...), and then, as for every
//! step, the text both sides share at the start and at the end is cut off: a rule that drops
//! a query parameter shows that parameter, and a repair the characters it encoded. Cuts
//! fall at component boundaries (`/`, `?`, `&`, ...), so a parameter shows whole; repairs
//! are cut to the characters. A protocol rule whose component ends up as it was (another
//! rule of the same pass undid it) is not shown.

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use irinorm::internals::{
    push_explained_json, push_invalid_json, push_json_str, RawRecord, Records,
};
use irinorm::{Component, Error, Explanation, IriRef, Normalizer, RuleKind, Step};

use super::args::{BinaryArg, OnErrorArg, OutputArg, SharedArgs};
use super::lines::{catch_interrupt, input_paths, open_inputs, INTERRUPTED};

/// `normalize --explain`: each record with the steps that changed it, one block each (or
/// one JSON object each with `--output jsonl`). The records are the engine's
/// (decompressed, BOM dropped, `--max-line-bytes` applied).
pub(crate) fn explain(normalizer: &Normalizer, shared: &SharedArgs) -> Result<ExitCode, String> {
    if matches!(shared.output, OutputArg::Tsv | OutputArg::Record) {
        return Err("--explain writes text blocks, or JSON lines with --output jsonl".into());
    }
    // Switches of the engine's runs that --explain cannot honour are refused, not ignored.
    let unsupported = [
        (shared.unique, "--unique"),
        (shared.wants_stats(), "--stats"),
        (shared.with_filename, "--with-filename"),
        (shared.on_error != OnErrorArg::Mark, "--on-error"),
        (
            shared.records.is_set(),
            "a record format (--field, --csv, --json-field, --cdx, --cdxj, --log)",
        ),
    ];
    if let Some((_, name)) = unsupported.iter().find(|(given, _)| *given) {
        return Err(format!("{name} does not apply to --explain"));
    }
    let jsonl = shared.output == OutputArg::Jsonl;
    let paths = input_paths(shared)?;
    let inputs = open_inputs(&paths, shared.binary)?;
    let interrupt = catch_interrupt();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let terminator = if shared.null { b'\0' } else { b'\n' };
    for input in inputs {
        let name = input.name.clone();
        let records = match shared.binary {
            BinaryArg::Refuse => Records::text(input, shared.max_line_bytes),
            BinaryArg::Text => Records::new(input, shared.max_line_bytes),
        };
        let mut records = records.map_err(|e| format!("{name}: {e}"))?;
        let mut line = 0u64;
        while let Some(record) = records.next_record().map_err(|e| format!("{name}: {e}"))? {
            line += 1;
            let written = if jsonl {
                let mut row = Vec::new();
                json_row(normalizer, &name, line, record, &mut row);
                row.push(terminator);
                out.write_all(&row)
            } else if shared.null {
                // With -0, each block is one record, ended by a NUL.
                text_block(normalizer, record, &mut out).and_then(|()| out.write_all(b"\0"))
            } else {
                text_block(normalizer, record, &mut out)
            };
            match written {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
                Err(e) => return Err(format!("writing output: {e}")),
            }
            if interrupt.load(Ordering::Relaxed) {
                let _ = out.flush();
                return Ok(ExitCode::from(INTERRUPTED));
            }
        }
    }
    match out.flush() {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(format!("writing output: {e}")),
    }
}

/// What explaining one record gave.
enum Outcome<'r> {
    Explained(Explanation),
    Invalid(Error),
    TooLong(&'r [u8]),
}

fn explain_record<'r>(normalizer: &Normalizer, record: RawRecord<'r>) -> (&'r [u8], Outcome<'r>) {
    let line = match record {
        RawRecord::Line(line) => line,
        RawRecord::TooLong(prefix) => return (prefix, Outcome::TooLong(prefix)),
    };
    let explained = match std::str::from_utf8(line) {
        Ok(text) => normalizer.explain(text),
        Err(_) => normalizer.explain_bytes(line),
    };
    match explained {
        Ok(e) => (line, Outcome::Explained(e)),
        Err(e) => (line, Outcome::Invalid(e)),
    }
}

/// Writes one record's block: the record, each step, the warnings, then the key or error.
fn text_block(
    normalizer: &Normalizer,
    record: RawRecord<'_>,
    out: &mut impl Write,
) -> io::Result<()> {
    let (line, outcome) = explain_record(normalizer, record);
    match outcome {
        Outcome::TooLong(prefix) => {
            writeln!(out, "{}...", String::from_utf8_lossy(prefix))?;
            writeln!(out, "  ! too-long: line longer than --max-line-bytes")
        }
        Outcome::Invalid(e) => {
            writeln!(out, "{}", String::from_utf8_lossy(line))?;
            writeln!(out, "  ! {e}")
        }
        Outcome::Explained(e) => {
            writeln!(out, "{}", String::from_utf8_lossy(line))?;
            for step in &e.steps {
                let Some((before, after)) = changed_part(step) else {
                    continue;
                };
                writeln!(
                    out,
                    "  {:<9} {:<24} {} -> {}",
                    step.component,
                    step.rule,
                    shown(&before),
                    shown(&after)
                )?;
            }
            for w in &e.warnings {
                writeln!(out, "  ~ {w}")?;
            }
            writeln!(out, "  = {}", e.key)
        }
    }
}

/// A part of a step as shown in a text block: `(none)` when empty, in quotes when it
/// starts or ends with white space.
fn shown(part: &str) -> String {
    if part.is_empty() {
        "(none)".to_owned()
    } else if part.trim() != part {
        format!("\"{part}\"")
    } else {
        part.to_owned()
    }
}

/// One record as a JSON object: `{"file","line",` then the library's explained record
/// ([`push_explained_json`]), its steps cut to the parts that changed.
fn json_row(
    normalizer: &Normalizer,
    file: &str,
    number: u64,
    record: RawRecord<'_>,
    row: &mut Vec<u8>,
) {
    let (line, outcome) = explain_record(normalizer, record);
    row.extend_from_slice(b"{\"file\":\"");
    push_json_str(row, file);
    row.extend_from_slice(b"\",\"line\":");
    row.extend_from_slice(number.to_string().as_bytes());
    row.push(b',');
    let error = match outcome {
        Outcome::Explained(e) => {
            let parts: Vec<_> = e
                .steps
                .iter()
                .filter_map(|s| Some((s, changed_part(s)?)))
                .collect();
            let shown = parts
                .iter()
                .map(|(s, (before, after))| (s.component, s.rule, before.as_str(), after.as_str()));
            push_explained_json(row, line, &e.key, shown, &e.warnings);
            return row.push(b'}');
        }
        Outcome::Invalid(e) => e,
        Outcome::TooLong(_) => Error::new(
            irinorm::ErrorKind::TooLong,
            0,
            "line longer than --max-line-bytes",
        ),
    };
    push_invalid_json(row, line, &error);
    row.push(b'}');
}

/// The part of a step's text that changed: `before` and `after` without the text they
/// share at the start and at the end; `None` when nothing changed. A protocol rule is first
/// narrowed to its component. Repairs are cut to the characters; other steps to component
/// boundaries, so that a changed parameter or segment shows whole.
fn changed_part(step: &Step) -> Option<(String, String)> {
    let (mut before, mut after) = (step.before.as_str(), step.after.as_str());
    let parts;
    if step.component == "protocol" {
        if let Some(kind) = RuleKind::from_name(step.rule) {
            if let (Some(b), Some(a)) = (
                component_text(before, kind.component()),
                component_text(after, kind.component()),
            ) {
                parts = (b, a);
                (before, after) = (parts.0.as_str(), parts.1.as_str());
            }
        }
    }
    if before == after {
        return None;
    }
    let (b, a) = if step.rule == "lenient-repairs" {
        diff(before, after, |_| true)
    } else {
        diff(before, after, is_boundary)
    };
    Some((b.to_owned(), a.to_owned()))
}

/// The text of `component` in the key `text`, with its delimiter (`?` before a query, `#`
/// before a fragment); the scheme with its `:`, and the port after it when there is one,
/// since a scheme rule may change the port too. `None` when the key does not parse.
fn component_text(text: &str, component: Component) -> Option<String> {
    let view = IriRef::parse(text).ok()?;
    let with =
        |mark: char, part: Option<&str>| part.map(|p| format!("{mark}{p}")).unwrap_or_default();
    Some(match component {
        Component::Host => view.host().unwrap_or_default().to_owned(),
        Component::Scheme => {
            let port = view.port().map(|p| format!(" :{p}")).unwrap_or_default();
            format!("{}:{port}", view.scheme().unwrap_or_default())
        }
        Component::Path => view.path().to_owned(),
        Component::Query => with('?', view.query()),
        Component::Fragment => with('#', view.fragment()),
        // A component added to the library later: the whole key.
        #[allow(unreachable_patterns)]
        _ => text.to_owned(),
    })
}

/// The delimiters between the parts of an IRI that a rule adds, drops or rewrites whole.
fn is_boundary(c: char) -> bool {
    matches!(c, '/' | '?' | '#' | '&' | ';' | ':' | '@' | '.' | ',' | ')')
}

/// `before` and `after` with their common prefix and suffix cut off, never inside a
/// character. The prefix ends just after a character for which `cut_after` holds, or
/// before a boundary character (or the end) on both sides, or is empty; the suffix starts with a boundary character, or just after such a character on
/// both sides (or is empty).
fn diff<'a>(
    before: &'a str,
    after: &'a str,
    cut_after: impl Fn(char) -> bool,
) -> (&'a str, &'a str) {
    // The longest common prefix, on char boundaries.
    let mut prefix = 0;
    for ((i, a), b) in before.char_indices().zip(after.chars()) {
        if a != b {
            break;
        }
        prefix = i + a.len_utf8();
    }
    // Back to just after a boundary character (or the start), unless what follows on both
    // sides is a boundary character or the end.
    let at_boundary = |text: &str, at: usize| text[at..].chars().next().map_or(true, is_boundary);
    while prefix > 0 {
        let c = before[..prefix].chars().next_back().unwrap_or('/');
        if cut_after(c) || (at_boundary(before, prefix) && at_boundary(after, prefix)) {
            break;
        }
        prefix -= c.len_utf8();
    }
    let (b_rest, a_rest) = (&before[prefix..], &after[prefix..]);
    // The longest common suffix of what is left, on char boundaries.
    let mut suffix = 0;
    for (a, b) in b_rest.chars().rev().zip(a_rest.chars().rev()) {
        if a != b {
            break;
        }
        suffix += a.len_utf8();
    }
    // Forward to a boundary: the suffix starts with a boundary character, or just after
    // one on both sides (or at the start of a side).
    let after_cut =
        |text: &str, start: usize| text[..start].chars().next_back().map_or(true, &cut_after);
    while suffix > 0 {
        let (start_b, start_a) = (b_rest.len() - suffix, a_rest.len() - suffix);
        let c = b_rest[start_b..].chars().next().unwrap_or('/');
        if cut_after(c) || is_boundary(c) {
            break;
        }
        if after_cut(b_rest, start_b) && after_cut(a_rest, start_a) {
            break;
        }
        suffix -= c.len_utf8();
    }
    (
        &b_rest[..b_rest.len() - suffix],
        &a_rest[..a_rest.len() - suffix],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(rule: &'static str, before: &str, after: &str) -> (String, String) {
        let component = if RuleKind::from_name(rule).is_some() {
            "protocol"
        } else {
            "record"
        };
        let step = Step {
            component,
            rule,
            before: before.into(),
            after: after.into(),
        };
        changed_part(&step).unwrap_or_default()
    }

    #[test]
    fn protocol_rules_that_fired_together_each_show_their_component() {
        let (b, a) = ("http://www.a/?b=1&utm=x&c=2#top", "https://a/?b=1&c=2");
        assert_eq!(step("drop-params", b, a), ("utm=x&".into(), "".into()));
        assert_eq!(step("drop-fragment", b, a), ("#top".into(), "".into()));
        assert_eq!(step("strip-www", b, a), ("www.".into(), "".into()));
        assert_eq!(step("http-to-https", b, a), ("http".into(), "https".into()));
        // A rule whose component did not change in the end is not shown.
        assert_eq!(step("lowercase-path", b, a), ("".into(), "".into()));
    }

    #[test]
    fn a_dropped_parameter_shows_whole() {
        let got = step(
            "resolve",
            "http://a/?b=1&utm_source=x&c=2",
            "http://a/?b=1&c=2",
        );
        assert_eq!(got, ("utm_source=x&".into(), "".into()));
        let got = step("drop-params", "http://a/?utm=x", "http://a/");
        assert_eq!(got, ("?utm=x".into(), "".into()));
        let got = step("drop-params", "http://a/?id=7&utm=x", "http://a/?id=7");
        assert_eq!(got, ("&utm=x".into(), "".into()));
        let got = step("resolve", "http://a/?a=1", "http://a/?a=2");
        assert_eq!(got, ("a=1".into(), "a=2".into()));
        let got = step("sort-params", "http://a/?b=1&a=2", "http://a/?a=2&b=1");
        assert_eq!(got, ("b=1&a=2".into(), "a=2&b=1".into()));
    }

    #[test]
    fn a_repair_shows_the_characters_it_encoded() {
        let got = step("lenient-repairs", "http://a/b c", "http://a/b%20c");
        assert_eq!(got, (" ".into(), "%20".into()));
        let got = step("lenient-repairs", " http://a/ ", "http://a/");
        assert_eq!(got, (" http://a/ ".into(), "http://a/".into()));
        let got = step("lenient-repairs", "http://é/x y", "http://é/x%20y");
        assert_eq!(got, (" ".into(), "%20".into()));
    }

    #[test]
    fn nothing_shared_shows_everything_and_nothing_is_cut_inside_a_character() {
        assert_eq!(step("x", "abc", "xyz"), ("abc".into(), "xyz".into()));
        assert_eq!(step("x", "", "/"), ("".into(), "/".into()));
        assert_eq!(step("x", "a/é", "a/è"), ("é".into(), "è".into()));
        assert_eq!(step("x", "same", "same"), ("".into(), "".into()));
    }
}
