//! Golden keys: the key of every level and form, pinned for a fixed set of inputs.
//!
//! **Keys are stored by users for years (SPEC §4, "Stability of keys"). A change to any line
//! of these files is a versioned change: keys change only with a new version of the crate
//! (and a changelog entry saying which inputs change and why), never silently.** When this
//! test fails, either the change is a bug, or it is intended and the release that carries it
//! is a new version: then regenerate the files with
//!
//! ```text
//! IRINORM_BLESS=1 cargo test --test it golden::
//! ```
//!
//! and commit them with the version bump.
//!
//! Each input is read as the command line reads a record: lenient repairs first
//! ([`irinorm::internals::prepare`]), then the normalizer. An error record is written `!kind`.
//! The columns are the rungs and forms `string`, `syntax-uri`, `syntax-iri`, `scheme-uri`,
//! `scheme-iri`.
//!
//! - `tests/golden/generated.tsv`: every line of `corpora/sample.txt` (written by
//!   `corpora/gen_corpus.rs`), one row per input:
//!   `input<TAB>string<TAB>syntax-uri<TAB>syntax-iri<TAB>scheme-uri<TAB>scheme-iri`.
//! - `tests/golden/shared.tsv`: a slice of the shared corpora (`../shared/corpora/*.txt`,
//!   about 400 lines of each file, evenly spaced), one row per input and rung:
//!   `file:line<TAB>level-form<TAB>xxh3-64 of the key` (hashes, so the corpora are not copied
//!   into the project). Skipped, with a message, when `../shared` is absent.
//! - `tests/golden/profiles.tsv`: `crawler@1` and the SURT form (see [`profiles_and_surt`]).
//! - `tests/golden/crawler-2.tsv`: `crawler@2` (see [`crawler_2_profile`]).
//! - `tests/golden/compat.tsv`: `wayback@1` and `w3lib@1` (see [`compatibility_profiles`]).
//!
//! On a difference the test prints every input with its old and new key (or hash).

use std::fmt::Write as _;

use irinorm::internals::prepare;
use irinorm::Repairs;
use irinorm::{Form, Level, Normalizer, Options};
use xxhash_rust::xxh3::xxh3_64;

/// The rungs and forms of the columns, in order.
const COLUMNS: [(&str, Level, Form); 5] = [
    ("string", Level::String, Form::Uri),
    ("syntax-uri", Level::Syntax, Form::Uri),
    ("syntax-iri", Level::Syntax, Form::Iri),
    ("scheme-uri", Level::Scheme, Form::Uri),
    ("scheme-iri", Level::Scheme, Form::Iri),
];

/// Lines wanted from each shared corpus file (every Nth line, N = ceil(lines / this)).
const SHARED_PER_FILE: usize = 400;

fn bless() -> bool {
    std::env::var_os("IRINORM_BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

struct Keyer {
    normalizers: Vec<Normalizer>,
}

impl Keyer {
    fn new() -> Keyer {
        Keyer {
            normalizers: COLUMNS
                .iter()
                .map(|&(_, level, form)| {
                    Normalizer::new(Options::default().with_level(level).with_form(form)).unwrap()
                })
                .collect(),
        }
    }

    /// The key of a raw record (no line terminator) in each column, or `!kind`.
    fn keys(&self, raw: &[u8]) -> Vec<String> {
        let mut scratch = String::new();
        let mut repairs = Repairs::default();
        match prepare(raw, irinorm::Repair::Lenient, &mut scratch, &mut repairs) {
            Err(e) => vec![format!("!{}", e.kind.name()); COLUMNS.len()],
            Ok(text) => self
                .normalizers
                .iter()
                .map(|n| match n.normalize(text) {
                    Ok(k) => k.into_owned(),
                    Err(e) => format!("!{}", e.kind.name()),
                })
                .collect(),
        }
    }
}

/// Compares `new` with the golden file `tests/golden/NAME` (or writes it under bless), and
/// fails with what `describe` says of the old text when they differ.
fn check_golden(name: &str, new: &str, describe: impl Fn(&str) -> String) {
    let path = crate::common::repo()
        .join("tests")
        .join("golden")
        .join(name);
    if bless() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, new).unwrap();
        eprintln!("blessed {}", path.display());
        return;
    }
    let Ok(old) = std::fs::read_to_string(&path) else {
        panic!(
            "{} is missing; create it with IRINORM_BLESS=1 cargo test --test it golden::",
            path.display()
        );
    };
    if old != new {
        panic!("{}", describe(&old));
    }
}

/// The first 20 lines that differ between `old` and `new`, after `title`.
fn changed_lines(title: String, old: &str, new: &str) -> String {
    let mut msg = title;
    for (o, n) in old
        .lines()
        .zip(new.lines())
        .filter(|(o, n)| o != n)
        .take(20)
    {
        writeln!(msg, "  old {o}\n  new {n}").unwrap();
    }
    msg
}

#[test]
fn generated_sample() {
    let sample = std::fs::read(crate::common::repo().join("corpora").join("sample.txt"))
        .expect("corpora/sample.txt");
    let keyer = Keyer::new();
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    let mut out = String::new();
    for raw in sample.split(|&b| b == b'\n') {
        if raw.is_empty() {
            continue;
        }
        let input = String::from_utf8(raw.to_vec()).expect("sample.txt is UTF-8");
        assert!(!input.contains('\t'), "a tab in sample input {input:?}");
        let keys = keyer.keys(raw);
        writeln!(out, "{}\t{}", input, keys.join("\t")).unwrap();
        rows.push((input, keys));
    }
    check_golden("generated.tsv", &out, |old| {
        let mut msg = String::new();
        let old_rows: Vec<Vec<&str>> = old.lines().map(|l| l.split('\t').collect()).collect();
        let mut n = 0;
        for (i, (input, keys)) in rows.iter().enumerate() {
            let Some(o) = old_rows.get(i) else {
                writeln!(
                    msg,
                    "row {}: new input {input} (the golden file is shorter)",
                    i + 1
                )
                .unwrap();
                n += 1;
                continue;
            };
            if o.first() != Some(&input.as_str()) {
                writeln!(
                    msg,
                    "row {}: input changed (was {:?}, now {input:?}): corpora/sample.txt \
                     changed; re-bless",
                    i + 1,
                    o.first()
                )
                .unwrap();
                n += 1;
                continue;
            }
            for (c, (name, _, _)) in COLUMNS.iter().enumerate() {
                let was = o.get(c + 1).copied().unwrap_or("<missing>");
                if was != keys[c] {
                    writeln!(
                        msg,
                        "row {}: {input}\n    {name}: old {was}\n    {name}: new {}",
                        i + 1,
                        keys[c]
                    )
                    .unwrap();
                    n += 1;
                }
            }
        }
        if old_rows.len() > rows.len() {
            writeln!(
                msg,
                "the golden file has {} more rows",
                old_rows.len() - rows.len()
            )
            .unwrap();
            n += 1;
        }
        format!("{n} differences in tests/golden/generated.tsv (keys change only with a new version; see the top of tests/golden.rs):\n{msg}")
    });
}

#[test]
fn shared_corpora_slice() {
    let Some(files) = crate::common::shared_corpora(&["txt"]) else {
        crate::common::skipped(
            "golden::shared_corpora_slice",
            "../shared/corpora is absent; the shared-corpora golden keys are not checked",
        );
        return;
    };
    let keyer = Keyer::new();
    // (file:line, column) -> (raw input, key, hash text)
    let mut rows: Vec<(String, &str, String, String, String)> = Vec::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let data = std::fs::read(&path).unwrap();
        let mut lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
        if data.ends_with(b"\n") {
            lines.pop();
        }
        let step = lines.len().div_ceil(SHARED_PER_FILE).max(1);
        for (i, line) in lines.iter().enumerate().step_by(step) {
            // As the command line reads a record: one trailing CR removed.
            let raw = line.strip_suffix(b"\r").unwrap_or(line);
            let keys = keyer.keys(raw);
            for (c, (col, _, _)) in COLUMNS.iter().enumerate() {
                let k = &keys[c];
                let h = if k.starts_with('!') {
                    k.clone()
                } else {
                    format!("{:016x}", xxh3_64(k.as_bytes()))
                };
                rows.push((
                    format!("{name}:{}", i + 1),
                    col,
                    String::from_utf8_lossy(raw).into_owned(),
                    k.clone(),
                    h,
                ));
            }
        }
    }
    let mut out = String::new();
    for (at, col, _, _, h) in &rows {
        writeln!(out, "{at}\t{col}\t{h}").unwrap();
    }
    check_golden("shared.tsv", &out, |old| {
        let old_map: std::collections::HashMap<(&str, &str), &str> = old
            .lines()
            .filter_map(|l| {
                let mut f = l.split('\t');
                Some(((f.next()?, f.next()?), f.next()?))
            })
            .collect();
        let mut msg = String::new();
        let mut n = 0;
        let mut new_keys = std::collections::HashSet::new();
        for (at, col, input, key, h) in &rows {
            new_keys.insert((at.as_str(), *col));
            match old_map.get(&(at.as_str(), *col)) {
                Some(was) if was == h => {}
                was => {
                    writeln!(
                        msg,
                        "{at} {col}: {input:?}\n    old {}\n    new {h}  (key {key})",
                        was.unwrap_or(&"<no row>")
                    )
                    .unwrap();
                    n += 1;
                }
            }
        }
        for (at, col) in old_map.keys() {
            if !new_keys.contains(&(*at, *col)) {
                writeln!(
                    msg,
                    "{at} {col}: row no longer produced (corpus file changed?)"
                )
                .unwrap();
                n += 1;
            }
        }
        format!("{n} differences in tests/golden/shared.tsv (keys change only with a new version; see the top of tests/golden.rs):\n{msg}")
    });
}

/// The protocol rung's built-in profiles and the SURT form, pinned like the rungs below it
/// (SPEC §4 "Stability of keys"): a changed key needs a new profile version.
#[test]
fn profiles_and_surt() {
    use irinorm::Rules;
    use std::sync::Arc;
    let crawler = Arc::new(Rules::profile("crawler@1").expect("crawler@1"));
    let columns: Vec<(&str, Options)> = vec![
        (
            "crawler@1-uri",
            Options::default()
                .with_level(Level::Protocol)
                .with_rules(Some(crawler.clone())),
        ),
        (
            "crawler@1-iri",
            Options::default()
                .with_level(Level::Protocol)
                .with_form(Form::Iri)
                .with_rules(Some(crawler.clone())),
        ),
        ("surt", Options::default().with_form(Form::Surt)),
        (
            "crawler@1-surt",
            Options::default()
                .with_level(Level::Protocol)
                .with_form(Form::Surt)
                .with_rules(Some(crawler)),
        ),
    ];
    let normalizers: Vec<Normalizer> = columns
        .iter()
        .map(|(_, o)| Normalizer::new(o.clone()).unwrap())
        .collect();
    let mut inputs =
        std::fs::read(crate::common::repo().join("tests/golden/protocol_inputs.txt")).unwrap();
    inputs.extend(std::fs::read(crate::common::repo().join("corpora").join("sample.txt")).unwrap());
    let mut out = String::new();
    for raw in inputs.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let mut scratch = String::new();
        let mut repairs = Repairs::default();
        let input = String::from_utf8_lossy(raw);
        out.push_str(&input);
        for n in &normalizers {
            out.push('\t');
            match prepare(raw, irinorm::Repair::Lenient, &mut scratch, &mut repairs)
                .and_then(|t| n.normalize(t).map(|k| k.into_owned()))
            {
                Ok(k) => out.push_str(&k),
                Err(e) => write!(out, "!{}", e.kind.name()).unwrap(),
            }
        }
        out.push('\n');
    }
    check_golden("profiles.tsv", &out, |old| {
        let names: Vec<&str> = columns.iter().map(|(n, _)| *n).collect();
        let title = format!(
            "tests/golden/profiles.tsv differs (columns: input, {}):\n",
            names.join(", ")
        );
        changed_lines(title, old, &out)
    });
}

/// Inputs with empty query pairs, the ones `crawler@2` keys differently from `crawler@1`.
const EMPTY_PAIR_INPUTS: &[&str] = &[
    "http://a/?&",
    "http://a/?&utm_source=1",
    "http://a/?&&",
    "http://a/?a=1&&b=2",
    "http://a/?a=1&&utm_source=1&b=2",
    "http://a/?a=1&",
    "http://a/?&a=1#f",
    "HTTP://A.example./?=&a&&utm_medium=x&",
];

/// `crawler@2` (`tests/golden/crawler-2.tsv`: `input<TAB>crawler@2-uri<TAB>crawler@2-iri
/// <TAB>crawler@2-surt`), over the inputs of `profiles.tsv` and [`EMPTY_PAIR_INPUTS`]. Its
/// keys differ from `crawler@1`'s exactly where the `crawler@1` key's query holds an empty
/// pair (the one rule it adds, `drop-empty-params`); the test checks that too, so
/// `profiles.tsv` (`crawler@1`) pins the rest.
#[test]
fn crawler_2_profile() {
    use irinorm::Rules;
    use std::sync::Arc;
    let profile = |name: &str, form: Form| {
        Normalizer::new(
            Options::default()
                .with_level(Level::Protocol)
                .with_form(form)
                .with_rules(Some(Arc::new(Rules::profile(name).unwrap()))),
        )
        .unwrap()
    };
    let two = [
        profile("crawler@2", Form::Uri),
        profile("crawler@2", Form::Iri),
        profile("crawler@2", Form::Surt),
    ];
    let one = profile("crawler@1", Form::Uri);
    let mut inputs: Vec<Vec<u8>> = EMPTY_PAIR_INPUTS
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    for file in ["tests/golden/protocol_inputs.txt", "corpora/sample.txt"] {
        let text = std::fs::read(crate::common::repo().join(file)).unwrap();
        inputs.extend(
            text.split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(<[u8]>::to_vec),
        );
    }
    let key = |n: &Normalizer, raw: &[u8]| {
        let mut scratch = String::new();
        let mut repairs = Repairs::default();
        match prepare(raw, irinorm::Repair::Lenient, &mut scratch, &mut repairs)
            .and_then(|t| n.normalize(t).map(|k| k.into_owned()))
        {
            Ok(k) => k,
            Err(e) => format!("!{}", e.kind.name()),
        }
    };
    let mut out = String::new();
    let mut differing = 0;
    for raw in &inputs {
        out.push_str(&String::from_utf8_lossy(raw));
        for n in &two {
            out.push('\t');
            out.push_str(&key(n, raw));
        }
        out.push('\n');
        let k1 = key(&one, raw);
        let k2 = key(&two[0], raw);
        let query = k1
            .split_once('?')
            .map(|(_, q)| q.split('#').next().unwrap());
        let has_empty_pair = query.is_some_and(|q| q.split('&').any(str::is_empty));
        if has_empty_pair {
            differing += 1;
            assert_ne!(k1, k2, "{}", String::from_utf8_lossy(raw));
        } else {
            assert_eq!(k1, k2, "{}", String::from_utf8_lossy(raw));
        }
    }
    assert_eq!(
        differing,
        EMPTY_PAIR_INPUTS.len() - 1,
        "`?&utm_source=1` is the same"
    );
    check_golden("crawler-2.tsv", &out, |old| {
        let title = "tests/golden/crawler-2.tsv differs (columns: input, crawler@2-uri, \
                     crawler@2-iri, crawler@2-surt):\n";
        changed_lines(title.to_owned(), old, &out)
    });
}

/// `tests/golden/compat.tsv`: the compatibility profiles (`input<TAB>wayback@1<TAB>w3lib@1`),
/// over the inputs of `profiles.tsv` and the sample, each record as the command line hands
/// it over (its bytes as read: a profile does its peer's own trimming and repairs).
#[test]
fn compatibility_profiles() {
    use irinorm::{Compat, Notes, RawLine, Repair};
    let profiles = [Compat::Wayback1, Compat::W3lib1].map(|c| {
        let o = Options::default()
            .with_level(Level::Protocol)
            .with_form(c.form())
            .with_compat(Some(c));
        Normalizer::new(o).unwrap()
    });
    let mut out = String::new();
    for file in ["tests/golden/protocol_inputs.txt", "corpora/sample.txt"] {
        let text = std::fs::read(crate::common::repo().join(file)).unwrap();
        for raw in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            out.push_str(&String::from_utf8_lossy(raw));
            for n in &profiles {
                let line = RawLine {
                    bytes: raw,
                    text: std::str::from_utf8(raw).ok(),
                    repair: Repair::Lenient,
                };
                let (mut key, mut notes) = (String::new(), Notes::default());
                out.push('\t');
                match n.normalize_raw_into(line, &mut key, &mut notes, false) {
                    Ok(()) => out.push_str(&key),
                    Err(e) => write!(out, "!{}", e.kind.name()).unwrap(),
                }
            }
            out.push('\n');
        }
    }
    check_golden("compat.tsv", &out, |old| {
        let title = "tests/golden/compat.tsv differs (columns: input, wayback@1, w3lib@1):\n";
        changed_lines(title.to_owned(), old, &out)
    });
}
