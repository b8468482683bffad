//! Differential tests of the normalizer's fast path (SPEC §8: "A fast path may copy a line
//! through only where the full ladder would give the same bytes, and a differential test
//! runs both paths over the corpora and over generated inputs to prove it").
//!
//! For every line of the shared corpora (`../shared/corpora`, skipped with a message when
//! absent), of `corpora/sample.txt` and of the third column of `corpora/groups.tsv`, and for
//! generated URLs that are canonical or nearly so, at every level and form, with
//! `drop_fragment` and `nfc` toggled: the normalizer with its fast path gives exactly what
//! the full ladder alone gives (the key, or the error with its kind, column and message),
//! and counts the same IDNA warnings. The engine, which copies lines that pass through
//! without preparing them, gives the same output and counts as with the full ladder.
//!
//! Other tests check that the fast path really runs (so these cannot pass vacuously) and
//! that it takes the common canonical lines.

use irinorm::internals::SCHEMES;
use irinorm::stream::{Engine, EngineOptions, OutputMode, Stats};
use irinorm::Error;
use irinorm::{Form, Level, Normalizer, Options, Rules};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use std::sync::Arc;

const LEVELS: [Level; 4] = [Level::String, Level::Syntax, Level::Scheme, Level::Protocol];
const FORMS: [Form; 3] = [Form::Uri, Form::Iri, Form::Surt];

/// Every configuration the fast path must agree under: each level and form, with
/// `drop_fragment` and `nfc` each on and off, `absolute` for the default rung, and a base.
fn configurations() -> Vec<Options> {
    let mut all = Vec::new();
    for level in LEVELS {
        for form in FORMS {
            for drop_fragment in [false, true] {
                for nfc in [false, true] {
                    all.push(
                        Options::default()
                            .with_level(level)
                            .with_form(form)
                            .with_drop_fragment(drop_fragment)
                            .with_nfc(nfc),
                    );
                }
            }
        }
    }
    for form in [Form::Uri, Form::Iri] {
        all.push(Options::default().with_form(form).with_absolute(true));
    }
    // A base: the records with a scheme take the fast path as without one, the others are
    // resolved by the full ladder; at the scheme and syntax rungs, and under the crawler
    // profile.
    let base = || Options::default().with_base(Some("http://a.example/b/c?q#f".into()));
    for form in FORMS {
        all.push(base().with_form(form));
        all.push(base().with_form(form).with_level(Level::Syntax));
    }
    all.push(
        base()
            .with_level(Level::Protocol)
            .with_form(Form::Surt)
            .with_rules(Some(Arc::new(Rules::profile("crawler").unwrap()))),
    );
    // The protocol rules and the SURT form rewrite what the fast path takes: the crawler
    // profiles, a rule set whose every kind has a cheap sieve or none, and the SURT with
    // its scheme.
    let sets = [
        Rules::profile("crawler").unwrap(),
        Rules::profile("crawler@1").unwrap(),
        Rules::from_toml(
            "version = 1\n[[rule]]\nkind = \"strip-www\"\n[[rule]]\nkind = \"http-to-https\"\n\
             [[rule]]\nkind = \"drop-params\"\nnames = [\"*_ref\", \"a\"]\nhosts = [\"*.example.com\"]\n\
             [[rule]]\nkind = \"sort-params\"\n",
        )
        .unwrap(),
    ];
    for rules in sets {
        for form in FORMS {
            all.push(
                Options::default()
                    .with_level(Level::Protocol)
                    .with_form(form)
                    .with_rules(Some(Arc::new(rules.clone()))),
            );
        }
    }
    // The SURT with its scheme, alone and under the crawler profile.
    all.push(
        Options::default()
            .with_form(Form::Surt)
            .with_surt_scheme(true),
    );
    all.push(
        Options::default()
            .with_level(Level::Protocol)
            .with_form(Form::Surt)
            .with_surt_scheme(true)
            .with_rules(Some(Arc::new(Rules::profile("crawler").unwrap()))),
    );
    all
}

/// A normalizer with its fast path and the same one without it (and a third, for the
/// borrowing API, so that each counts IDNA warnings once per record).
struct Pair {
    fast: Normalizer,
    slow: Normalizer,
    borrowing: Normalizer,
}

impl Pair {
    fn new(options: Options) -> Pair {
        let fast = Normalizer::new(options).unwrap();
        let slow = fast.without_fast_path();
        let borrowing = fast.clone();
        Pair {
            fast,
            slow,
            borrowing,
        }
    }

    /// Checks one record; returns whether the fast path took it.
    fn check(&self, input: &str) -> bool {
        let mut a = String::from("prefix:");
        let mut notes_a = irinorm::Notes::default();
        let ra = self.fast.normalize_record_into(input, &mut a, &mut notes_a);
        let mut b = String::from("prefix:");
        let mut notes_b = irinorm::Notes::default();
        let rb = self.slow.normalize_record_into(input, &mut b, &mut notes_b);
        assert_eq!(notes_a, notes_b, "repairs and warnings of {input:?}");
        let taken = self.fast.is_canonical_fast(input);
        assert!(
            !self.slow.is_canonical_fast(input),
            "the slow normalizer must not take the fast path"
        );
        assert_eq!(
            (&ra, &a),
            (&rb, &b),
            "input {input:?} under {:?} (fast path taken: {taken})",
            self.fast.options()
        );
        if taken {
            assert_eq!(rb, Ok(()), "fast path took an invalid record {input:?}");
            assert_eq!(&b["prefix:".len()..], input, "fast path took {input:?}");
        }
        // The borrowing form agrees too.
        let c: Result<String, Error> = self.borrowing.normalize(input).map(|k| k.into_owned());
        let d: Result<String, Error> = rb.map(|()| b["prefix:".len()..].to_owned());
        assert_eq!(c, d, "normalize({input:?}) under {:?}", self.fast.options());
        taken
    }
}

/// The lines of a file that are UTF-8, without their terminators (the normalizer takes
/// text; the engine test below feeds raw bytes).
fn text_lines(bytes: &[u8]) -> Vec<String> {
    bytes
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter_map(|l| std::str::from_utf8(l).ok())
        .map(str::to_owned)
        .collect()
}

/// Every record the corpus tests use: the shared corpora (when present), the sample, and
/// the IRIs of the groups file; trimmed copies too, as the engine would hand them over.
fn corpus_lines() -> Vec<String> {
    let mut lines = Vec::new();
    match crate::common::shared_corpora(&[]) {
        Some(files) => {
            for f in files {
                lines.extend(text_lines(&std::fs::read(f).unwrap()));
            }
        }
        None => eprintln!("fast_path: ../shared/corpora is absent; only the crate's corpora"),
    }
    let root = crate::common::repo().join("corpora");
    lines.extend(text_lines(&std::fs::read(root.join("sample.txt")).unwrap()));
    let groups = std::fs::read_to_string(root.join("groups.tsv")).unwrap();
    lines.extend(
        groups
            .lines()
            .filter_map(|l| l.split('\t').nth(2))
            .map(str::to_owned),
    );
    let trimmed: Vec<String> = lines
        .iter()
        .map(|l| l.trim_matches([' ', '\t']))
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect();
    lines.extend(trimmed);
    lines.sort();
    lines.dedup();
    lines
}

#[test]
fn corpora_agree_at_every_level_and_form() {
    let all = corpus_lines();
    assert!(all.len() > 5000, "{}", all.len());
    // Every line at the plain configurations of the default rung and form and the ones next
    // to it; every sixteenth line at all of them (the whole corpus at every configuration is
    // millions of records, too slow for a debug build).
    let plain: Vec<Options> = configurations()
        .into_iter()
        .filter(|o| !o.drop_fragment && !o.nfc && !o.absolute)
        .filter(|o| {
            matches!(
                (o.level, o.form),
                (Level::String, Form::Uri)
                    | (Level::Syntax, Form::Uri)
                    | (Level::Scheme, Form::Uri)
                    | (Level::Scheme, Form::Iri)
            )
        })
        .collect();
    let sample: Vec<String> = all.iter().step_by(16).cloned().collect();
    let runs: Vec<(Options, &[String])> = plain
        .into_iter()
        .map(|o| (o, &all[..]))
        .chain(configurations().into_iter().map(|o| (o, &sample[..])))
        .collect();
    let (left, right) = runs.split_at(runs.len() / 2);
    std::thread::scope(|s| {
        for part in [left, right] {
            s.spawn(move || {
                for (options, lines) in part {
                    let pair = Pair::new(options.clone());
                    let taken = lines.iter().filter(|l| pair.check(l)).count();
                    eprintln!(
                        "fast_path: {taken} of {} records taken under {:?} {:?} drop={} nfc={} absolute={}",
                        lines.len(),
                        options.level,
                        options.form,
                        options.drop_fragment,
                        options.nfc,
                        options.absolute,
                    );
                }
            });
        }
    });
}

#[test]
fn the_fast_path_takes_most_of_the_shared_corpora() {
    let Some(files) = crate::common::shared_corpora(&[]) else {
        crate::common::skipped("fast_path", "../shared/corpora is absent");
        return;
    };
    let n = Normalizer::new(Options::default()).unwrap();
    let slow = n.without_fast_path();
    let (mut lines, mut taken, mut unchanged) = (0usize, 0usize, 0usize);
    for f in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "txt"))
    {
        for line in text_lines(&std::fs::read(f).unwrap()) {
            lines += 1;
            taken += usize::from(n.is_canonical_fast(&line));
            unchanged += usize::from(slow.normalize(&line).is_ok_and(|k| k == line.as_str()));
        }
    }
    eprintln!("fast_path: {taken} taken, {unchanged} unchanged, of {lines} lines");
    // Nearly every line that is its own key is recognized as such.
    assert!(taken * 100 >= unchanged * 95, "{taken} of {unchanged}");
}

#[test]
fn the_fast_path_runs_and_refuses_what_it_must() {
    let n = Normalizer::new(Options::default()).unwrap();
    for yes in [
        "http://example.com/",
        "https://www.example.org/a/b.html?q=1&r=%2F#top",
        "http://example.com:8080/%C3%A9",
        "file:///etc/passwd",
        "file://deps/openssl/x.c",
        "ftp://ftp.example.net/pub/",
        "foo://example/x",
        "/a/b?c",
        "a/./b",
        "//example.com/x",
        "http://1.2.3.4/",
        "http://example.com.:81/",
    ] {
        assert!(n.is_canonical_fast(yes), "{yes}");
    }
    for no in [
        "",
        "HTTP://example.com/",
        "http://Example.com/",
        "http://example.com",
        "http://example.com:80/",
        "http://example.com:/",
        "http://example.com:080/",
        "http://xn--bcher-kva.example/",
        "http://b\u{fc}cher.example/",
        "http://[::1]/",
        "http://user@example.com/",
        "http://ex%41mple.com/",
        "http://a..b/",
        "http://a_b.example/",
        "http://example.com/%7e",
        "http://example.com/%2f",
        "http://example.com/%41",
        "http://example.com/a/../b",
        "http://example.com/a/./b",
        "http://example.com/a/%2E/b",
        "http://example.com/\u{e9}",
        "http://example.com/a b",
        " http://example.com/",
        "http://example.com/#a#b",
        "http://example.com/%",
        "http://example.com/[x]",
        "file://localhost/etc",
        "mailto:Joe@Example.com",
        "urn:ISBN:1",
        "/a/../b",
        "1a:b",
        "foo://example/a\u{0}",
    ] {
        assert!(!n.is_canonical_fast(no), "{no:?}");
    }
    // With a base, a record with a scheme is given back as it is (the ladder does not
    // resolve it) and takes the fast path; only the full ladder resolves a relative
    // reference.
    let base =
        Normalizer::new(Options::default().with_base(Some("http://example.com/".into()))).unwrap();
    assert!(base.is_canonical_fast("http://example.com/"));
    assert!(!base.is_canonical_fast("//example.com/"));
    assert!(!base.is_canonical_fast("/a"));
    // Options that only the full ladder handles.
    let surt = Normalizer::new(Options::default().with_form(Form::Surt)).unwrap();
    assert!(!surt.is_canonical_fast("http://example.com/"));
    let drop = Normalizer::new(Options::default().with_drop_fragment(true)).unwrap();
    assert!(drop.is_canonical_fast("http://example.com/"));
    assert!(!drop.is_canonical_fast("http://example.com/#f"));
    // The iri form keeps raw non-ASCII but decodes encoded UTF-8.
    let iri = Normalizer::new(Options::default().with_form(Form::Iri)).unwrap();
    assert!(iri.is_canonical_fast("http://example.com/\u{e9}?\u{E000}"));
    assert!(!iri.is_canonical_fast("http://example.com/%C3%A9"));
    assert!(!iri.is_canonical_fast("http://example.com/\u{E000}"));
    assert!(!iri.is_canonical_fast("http://example.com/\u{202E}"));
    // The string rung only checks validity.
    let string = Normalizer::new(Options::default().with_level(Level::String)).unwrap();
    assert!(string.is_canonical_fast("HTTP://Example.COM:80/a/./b/%7e"));
    assert!(!string.is_canonical_fast("http://example.com/%zz"));
    assert!(!string.without_fast_path().is_canonical_fast("http://a/"));
}

/// Runs the engine over `input` with `op`.
fn engine_run(
    op: &dyn irinorm::stream::Operation,
    input: &[u8],
    options: EngineOptions,
) -> (Vec<u8>, Stats) {
    let mut out = Vec::new();
    let stats = Engine::new(op, options).run(input, &mut out).unwrap();
    (out, stats)
}

fn same_counts(a: &Stats, b: &Stats) -> bool {
    a.records == b.records
        && a.invalid == b.invalid
        && a.invalid_by_kind == b.invalid_by_kind
        && a.repairs == b.repairs
        && a.changed == b.changed
        && a.unique == b.unique
}

/// The whole lines of `all` up to the first line feed after its `part`th part.
fn whole_lines(all: &[u8], part: usize) -> &[u8] {
    let cut = all.len() / part;
    let end = all[cut..].iter().position(|&b| b == b'\n');
    &all[..cut + end.map_or(0, |i| i + 1)]
}

/// One run of [`check_engine`]: an output form and the settings beside it.
#[derive(Clone, Copy)]
struct Run {
    output: OutputMode,
    strict: bool,
    stats: bool,
    unique: bool,
    null: bool,
    chunk_size: usize,
}

impl Run {
    fn of(output: OutputMode) -> Run {
        Run {
            output,
            strict: false,
            stats: false,
            unique: false,
            null: false,
            chunk_size: 1 << 20,
        }
    }
}

/// The engine copies lines that pass through itself (without repairs, without `apply`);
/// its output and counts match an operation that always takes the full ladder: over
/// `input` in key output, over `rows` (if any) in jsonl rows, and over `small` in every
/// output form and with other settings (strict, statistics, distinct keys, NUL after each
/// key, tiny chunks).
fn check_engine(input: &[u8], small: &[u8], options: &Options, rows: Option<&[u8]>) {
    let fast = Normalizer::new(options.clone()).unwrap();
    let slow = fast.without_fast_path();
    // The normalizer without its fast path, as an operation: every record takes the full
    // ladder, and its warnings reach the output (jsonl) as the fast one's do.
    let reference = slow;
    let mut runs = vec![(input, Run::of(OutputMode::Key))];
    if let Some(rows) = rows {
        runs.push((rows, Run::of(OutputMode::Jsonl)));
    }
    for output in [OutputMode::Key, OutputMode::Tsv, OutputMode::Jsonl] {
        let run = Run::of(output);
        runs.push((
            small,
            Run {
                strict: true,
                ..run
            },
        ));
        runs.push((small, Run { stats: true, ..run }));
        runs.push((
            small,
            Run {
                unique: true,
                ..run
            },
        ));
        runs.push((
            small,
            Run {
                chunk_size: 7,
                ..run
            },
        ));
    }
    runs.push((
        small,
        Run {
            null: true,
            ..Run::of(OutputMode::Key)
        },
    ));
    for (input, run) in runs {
        {
            let Run {
                output,
                strict,
                stats,
                unique,
                null,
                chunk_size,
            } = run;
            let eo = EngineOptions::default()
                .with_threads(1)
                .with_output(output)
                .with_strict(strict)
                .with_stats(stats)
                .with_unique(unique)
                .with_null_terminated(null)
                .with_chunk_size(chunk_size)
                .with_max_line_bytes(300);
            let (a, sa) = engine_run(&fast, input, eo.clone());
            // The normalizer as an operation takes the engine's repair policy, strict or
            // not, as the fast one does.
            let (b, sb) = engine_run(&reference, input, eo);
            assert!(
                a == b,
                "engine output differs under {options:?}, {output:?}, strict={strict}, \
                 stats={stats}, unique={unique}, null={null}, chunk size {chunk_size}"
            );
            assert!(same_counts(&sa, &sb), "{sa:?} {sb:?}");
        }
    }
}

#[test]
fn the_engine_agrees_over_the_corpora() {
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    if let Some(files) = crate::common::shared_corpora(&[]) {
        inputs.extend(files.iter().map(|f| std::fs::read(f).unwrap()));
    }
    let root = crate::common::repo().join("corpora");
    inputs.push(std::fs::read(root.join("sample.txt")).unwrap());
    // Raw lines with blanks, CRLF, invalid UTF-8, a long line and no final line feed.
    inputs.push(
        b"http://a/\r\n  http://b/ \nhttp://c/\xff\n\nhttp://d/%zz\nHTTP://E/\n"
            .iter()
            .copied()
            .chain(std::iter::repeat(b'a').take(400))
            .chain(*b"\nhttp://f/")
            .collect(),
    );
    let all: Vec<u8> = inputs.concat();
    // A slice of whole lines, for the slower output forms.
    let slice = whole_lines(&all, 16);
    for options in [
        Options::default(),
        Options::default().with_form(Form::Iri),
        Options::default().with_level(Level::String),
        Options::default()
            .with_level(Level::Syntax)
            .with_drop_fragment(true),
    ] {
        check_engine(&all, slice, &options, None);
    }
}

/// Lines that the rules of [`configurations`] change, or that their sieves cannot tell
/// apart from ones they change, next to lines they leave as they are: in runs of one kind,
/// alternating, and after a CRLF line; with IPv4 and IPv6 hosts, ports, userinfo, trailing
/// dots, `www`, empty hosts, one-label hosts, queries with and without parameters, `;`
/// parameters and fragments.
const RULE_LINES: &str = "http://example.com/a?utm_source=x\n\
    http://example.com/a?utm_source=x&utm_medium=y\n\
    http://example.com./a\n\
    http://example.com/a#f\n\
    http://example.com/a\n\
    http://www.example.com/a?id=1\n\
    http://example.com/a;jsessionid=1/b\n\
    http://example.com/a;b=1\n\
    https://example.com/?\n\
    https://example.com/a?&\n\
    https://example.com/a?a=1&b=2\n\
    https://example.com/a?as_q=x&search=y\n\
    https://example.com/a?sid=0123456789abcdef0123456789abcdef\n\
    https://example.com/a?sessionid=short\n\
    http://192.0.2.1:8080/a?gclid=1#x\n\
    http://192.0.2.1./a\n\
    http://[2001:db8::1]/a?fbclid=1\n\
    http://u:p@example.com/a?utm_x=1\n\
    http://localhost/a?_ga=1\n\
    http://a/?x\n\
    file:///etc/x?utm_source=1\n\
    http://example.com:81/a?utm_source=1\r\n\
    http://www.example.com./?_gl=1#top\n\
    http://www1.example.com/a;jsessionid=1?a=1\n\
    http://ex.example.com/p?x_ref=1&a=2\n\
    mailto:a@example.com?subject=x\n\
    urn:isbn:1?utm_source=x\n\
    HTTP://Example.com/A?utm_source=x\n\
    http://example.com/%7e?utm_source=x\n\
    http://example.com/a?utm_source=x";

/// The engine writes the keys of lines that protocol rules change (or that their sieve
/// cannot judge) in runs, as the SURT form writes the SURTs of lines it takes, in key output
/// and in rows: its output and counts match the full ladder's, under every rule set and
/// form of [`configurations`], over [`RULE_LINES`] and over the corpora.
#[test]
fn the_engine_agrees_under_protocol_rules_and_the_surt_form() {
    let mut all: Vec<u8> = RULE_LINES.as_bytes().to_vec();
    all.push(b'\n');
    // The lines again, each after itself and in reverse order.
    for line in RULE_LINES.lines() {
        all.extend_from_slice(format!("{line}\n{line}\n").as_bytes());
    }
    for line in RULE_LINES.lines().rev() {
        all.extend_from_slice(format!("{line}\n").as_bytes());
    }
    if let Some(files) = crate::common::shared_corpora(&[]) {
        for f in files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "txt"))
        {
            all.extend(std::fs::read(f).unwrap());
        }
    }
    // The rows over the rule lines and the first quarter of the corpora.
    let rows = whole_lines(&all, 4);
    let rules_or_surt = configurations()
        .into_iter()
        .filter(|o| o.rules.is_some() || o.form == Form::Surt)
        .filter(|o| !o.drop_fragment && !o.nfc);
    for options in rules_or_surt {
        check_engine(&all, RULE_LINES.as_bytes(), &options, Some(rows));
    }
}

/// Under a compatibility profile the engine keys runs of lines, any line the profile keys
/// (not only printable ones): its output and counts match keying each record alone, in every
/// output form, over the corpora, the rule lines and lines that rows must escape.
#[test]
fn the_engine_agrees_under_the_compatibility_profiles() {
    let mut all: Vec<u8> = RULE_LINES.as_bytes().to_vec();
    all.extend_from_slice(b"\nhttp://a/\\'\nhttp://a/\"q\"\thttp://a/b\x01\nfiledesc://x\n\n");
    all.extend_from_slice("http://www.a.example/\u{e9}?q=%C3%A9&b\n".as_bytes());
    if let Some(files) = crate::common::shared_corpora(&[]) {
        for f in files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "txt"))
        {
            all.extend(std::fs::read(f).unwrap());
        }
    }
    all.extend_from_slice(
        &std::fs::read(crate::common::repo().join("corpora/sample.txt")).unwrap(),
    );
    let rows = whole_lines(&all, 4);
    let small = whole_lines(&all, 64);
    for compat in [irinorm::Compat::Wayback1, irinorm::Compat::W3lib1] {
        let options = Options::default()
            .with_level(Level::Protocol)
            .with_form(compat.form())
            .with_compat(Some(compat));
        check_engine(&all, small, &options, Some(rows));
    }
}

/// A run of SURTs with their scheme writes them from the scan's loop: it takes a root URL
/// without its `/` (which the general way of writing a SURT refuses and leaves to the full
/// ladder), with the same keys and count of changed keys as the full ladder.
#[test]
fn runs_of_surts_with_their_scheme_take_lines_whose_path_is_added() {
    let options = Options::default()
        .with_form(Form::Surt)
        .with_surt_scheme(true);
    let fast = Normalizer::new(options).unwrap();
    let lines = "http://a.example\nhttps://www.b.example:8443?q=1\nhttp://c.example/X\n";
    let mut out = Vec::new();
    let run = fast.own_key_lines(lines, 1 << 20, &mut out);
    assert_eq!((run.bytes, run.lines, run.changed), (lines.len(), 3, 3));
    let slow = fast.without_fast_path();
    let keys: String = lines
        .lines()
        .map(|l| format!("{}\n", slow.normalize(l).unwrap()))
        .collect();
    assert_eq!(String::from_utf8(out).unwrap(), keys);
    assert!(keys.starts_with("http://(example,a)/\nhttps://(example,b,www:8443)/?q=1\n"));
}

// ---------------------------------------------------------------------------------------
// Generated inputs: canonical URLs and near misses.
// ---------------------------------------------------------------------------------------

/// The names of the scheme table's rows, so that a new row is tested as soon as it exists.
fn table_schemes() -> Vec<&'static str> {
    SCHEMES.iter().map(|r| r.name).collect()
}

fn scheme() -> impl Strategy<Value = String> {
    let mut valid = table_schemes();
    valid.extend(["foo", "git+ssh", "a.b-c"]);
    let mut other: Vec<String> = table_schemes()
        .iter()
        .map(|s| s.to_ascii_uppercase())
        .collect();
    other.extend(["Https", "Foo", "1a", "a_b", ""].map(str::to_owned));
    prop_oneof![
        6 => prop::sample::select(valid).prop_map(str::to_owned),
        2 => prop::sample::select(other),
    ]
}

fn host() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::sample::select(vec![
            "example.com", "www.example.org", "a", "a-b.c", "1.2.3.4", "1.2.3.400", "localhost",
            "example.com.", "", "r4---sn.x", "xn--bcher-kva.example", "a_b.example",
            "deps",
        ])
        .prop_map(str::to_owned),
        2 => prop::sample::select(vec![
            "Example.COM", "LOCALHOST", "XN--BCHER-KVA.example", "a..b", ".a", "a.", "-a.b",
            "ex%41mple.com", "b\u{fc}cher.example", "[::1]", "[2001:DB8::1]", "[v7.x]", "a!$&'()*+,;=~",
            "a b", "a%zz", "xn--xn---epa",
        ])
        .prop_map(str::to_owned),
        1 => "[a-z0-9.-]{1,70}",
    ]
}

fn port() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "", "", "", "", ":", ":80", ":080", ":0", ":00", ":443", ":8080", ":21", ":x", ":1:2",
    ])
    .prop_map(str::to_owned)
}

/// Pieces of paths, queries and fragments.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => "[a-z0-9_~!$&'()*+,;=:@-]{1,6}",
        2 => prop::sample::select(vec![
            "/", "/", "/", ".", "..", "./", "../", "/.", "/..", "a.b", ".a", "..a", "B", "%2e",
            "%2E", "%2E%2E", "%41", "%7e", "%7E", "%20", "%2F", "%2f", "%25", "%C3%A9",
            "%c3%a9", "%E2%80%AE", "%EE%80%80", "%F0%9F%98%80", "%80", "%FF", "\u{e9}",
            "\u{202E}", "\u{E000}", "\u{10348}", "\u{FFFD}", "?", "#", "%", "%4", "%zz", " ",
            "\t", "[", "]", "<", "\\", "^", "|", "\u{7f}", "\u{0}", "\r",
        ])
        .prop_map(str::to_owned),
    ]
}

fn pieces(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..max).prop_map(|v| v.concat())
}

/// A URL or reference that is canonical or a few changes away from it.
fn reference() -> impl Strategy<Value = String> {
    (
        prop::option::weighted(0.85, scheme()),
        prop::option::weighted(
            0.8,
            (
                prop::option::weighted(0.1, "[a-zA-Z0-9:%]{0,5}"),
                host(),
                port(),
            ),
        ),
        pieces(8),
        prop::option::weighted(0.3, pieces(4)),
        prop::option::weighted(0.2, pieces(3)),
    )
        .prop_map(|(scheme, authority, path, query, fragment)| {
            let mut s = String::new();
            if let Some(scheme) = scheme {
                s.push_str(&scheme);
                s.push(':');
            }
            if let Some((userinfo, host, port)) = authority {
                s.push_str("//");
                if let Some(u) = userinfo {
                    s.push_str(&u);
                    s.push('@');
                }
                s.push_str(&host);
                s.push_str(&port);
                if !path.is_empty() && !path.starts_with('/') {
                    s.push('/');
                }
            }
            s.push_str(&path);
            if let Some(q) = query {
                s.push('?');
                s.push_str(&q);
            }
            if let Some(f) = fragment {
                s.push('#');
                s.push_str(&f);
            }
            s
        })
}

/// A canonical URL of the common kind, so generated inputs take the fast path often.
fn canonical() -> impl Strategy<Value = String> {
    let mut schemes = table_schemes();
    schemes.push("foo");
    (
        prop::sample::select(schemes),
        prop::sample::select(vec![
            "example.com",
            "www.example.org",
            "a-b.c",
            "1.2.3.4",
            "",
        ]),
        prop::sample::select(vec!["", ":8080", ":1"]),
        "(/[a-z0-9._~-]{0,8}){1,5}",
        prop::option::of("[a-z0-9=&%/?]{0,10}"),
    )
        .prop_map(|(s, h, p, path, q)| {
            let mut u = format!("{s}://{h}{p}{path}");
            if let Some(q) = q {
                u.push('?');
                u.push_str(&q);
            }
            u
        })
}

#[test]
fn every_table_row_agrees_under_every_configuration() {
    // Canonical records and near misses of every row of the scheme table: a new row is
    // checked here without a change to this test.
    let templates = [
        "{s}://example.com/",
        "{s}://example.com",
        "{s}://example.com/a/b.html?q=1#f",
        "{s}://example.com:{port}/",
        "{s}://example.com:0{port}/",
        "{s}://example.com:8080/%20x",
        "{s}://localhost/x",
        "{s}:///etc/x",
        "{s}:x@example.com",
        "{s}:isbn:0-1",
        "{s}://example.com/a/./b",
    ];
    let mut taken = 0;
    for options in configurations() {
        let pair = Pair::new(options);
        for row in SCHEMES {
            let port = row.default_port.unwrap_or("80");
            for t in templates {
                let record = t.replace("{s}", row.name).replace("{port}", port);
                taken += usize::from(pair.check(&record));
            }
        }
    }
    assert!(taken > 100, "{taken}");
}

proptest! {
    // IRINORM_FAST_PATH_CASES=N runs more cases (say a million, in release mode).
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("IRINORM_FAST_PATH_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(2000)
    ))]

    #[test]
    fn generated_references_agree(input in prop_oneof![3 => reference(), 1 => canonical()]) {
        for options in configurations() {
            Pair::new(options).check(&input);
        }
    }
}

#[test]
fn generated_inputs_take_the_fast_path_often() {
    // Not vacuous: a good share of the generated inputs take the fast path.
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let n = Normalizer::new(Options::default()).unwrap();
    let strategy = prop_oneof![3 => reference(), 1 => canonical()];
    let mut taken = 0;
    for _ in 0..2000 {
        let input = strategy.new_tree(&mut runner).unwrap().current();
        taken += usize::from(n.is_canonical_fast(&input));
    }
    assert!(taken > 300, "{taken}");
}

#[test]
fn engine_agrees_on_generated_inputs() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = prop_oneof![3 => reference(), 1 => canonical()];
    let mut input = Vec::new();
    for i in 0..3000 {
        input.extend(
            strategy
                .new_tree(&mut runner)
                .unwrap()
                .current()
                .into_bytes(),
        );
        input.extend_from_slice(if i % 17 == 0 { b"\r\n" } else { b"\n" });
    }
    // Every fifth configuration, and every one with SURTs and protocol rules or SURTs with
    // their scheme (each a run of SURTs of its own).
    let surt_runs = |o: &Options| o.form == Form::Surt && (o.rules.is_some() || o.surt_scheme);
    let chosen = configurations()
        .into_iter()
        .enumerate()
        .filter(|(i, o)| i % 5 == 0 || surt_runs(o));
    for (_, options) in chosen {
        check_engine(&input, whole_lines(&input, 10), &options, Some(&input));
    }
}
