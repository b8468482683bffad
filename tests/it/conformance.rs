//! The shared conformance vectors (`../shared/conformance/cases.jsonl`) run through the
//! library.
//!
//! Every RFC case (semantics `rfc3986` / `rfc3987`) must give `expected` or one of
//! `also_acceptable` (`null`: the library rejects the input). Every whatwg/crawler case must
//! give its `rfc_expected` through resolution (when it has a base) followed by scheme-based
//! normalization in URI form. All failures are collected and printed before the test fails.
//!
//! Cases we believe are wrong are listed, each with the sentence of the RFC or SPEC that
//! shows why, in `tests/data/known_disputed.txt`; they are skipped, but the test fails if a
//! listed id does not exist or now passes, so the list cannot rot.

use std::collections::{BTreeMap, BTreeSet};

use irinorm::internals::{is_ipv4address, parse_ipv6};
use irinorm::resolve;
use irinorm::{check, Grammar};
use irinorm::{to_iri, to_uri};
use irinorm::{Form, Level, Normalizer, Options};
use serde_json::Value;

fn disputed() -> BTreeMap<String, String> {
    let path = crate::common::repo()
        .join("tests")
        .join("data")
        .join("known_disputed.txt");
    let Ok(text) = std::fs::read_to_string(path) else {
        return BTreeMap::new();
    };
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (id, why) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            (id.to_owned(), why.trim().to_owned())
        })
        .collect()
}

fn normalize(input: &str, level: Level, form: Form, base: Option<&str>) -> Option<String> {
    let n = Normalizer::new(
        Options::default()
            .with_strict(true)
            .with_level(level)
            .with_form(form)
            .with_base(base.map(str::to_owned)),
    )
    .ok()?;
    n.normalize(input).ok().map(|k| k.into_owned())
}

fn grammar(name: &str) -> Option<Grammar> {
    Some(match name {
        "IRI-reference" => Grammar::IriReference,
        "IRI" => Grammar::Iri,
        "absolute-IRI" => Grammar::AbsoluteIri,
        "URI-reference" => Grammar::UriReference,
        "URI" => Grammar::Uri,
        "absolute-URI" => Grammar::AbsoluteUri,
        _ => return None,
    })
}

fn opt_str(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::to_owned)
}

/// What the library gives for a case, in the case's terms: `Some(output)` or `None` for a
/// rejection. For `validate` the output is `"valid"` / `"invalid"`. `Err` for a case this
/// test does not know how to run.
fn run_rfc_case(case: &Value) -> Result<Option<String>, String> {
    let op = case["op"].as_str().unwrap_or("");
    let semantics = case["semantics"].as_str().unwrap_or("");
    let input = case["input"].as_str().ok_or("no input")?;
    let options = &case["options"];
    let iri = semantics == "rfc3987";
    Ok(match op {
        "validate" => {
            let g = case["grammar"].as_str().ok_or("no grammar")?;
            let ok = match g {
                "IPv4address" => is_ipv4address(input),
                "IPv6address" => parse_ipv6(input).is_some(),
                _ => {
                    let g = grammar(g).ok_or_else(|| format!("unknown grammar {g}"))?;
                    check(input, g).is_ok()
                }
            };
            Some(if ok { "valid" } else { "invalid" }.to_owned())
        }
        "iri-to-uri" => {
            let host = match options["reg_name_to_ascii"].as_bool() {
                Some(true) => irinorm::HostMapping::ToAscii,
                _ => irinorm::HostMapping::PercentEncode,
            };
            to_uri(input, host).ok().map(|c| c.into_owned())
        }
        "uri-to-iri" => to_iri(input).ok().map(|c| c.into_owned()),
        "resolve" => {
            let base = case["base"].as_str().ok_or("no base")?;
            let strict = options["strict"].as_bool().unwrap_or(true);
            resolve(
                input,
                base,
                if strict {
                    irinorm::Resolution::Strict
                } else {
                    irinorm::Resolution::NonStrict
                },
            )
            .ok()
        }
        "normalize-syntax" => {
            let form = if iri { Form::Iri } else { Form::Uri };
            normalize(input, Level::Syntax, form, None)
        }
        "normalize-scheme" => {
            let form = if options["idn"].as_str() == Some("unicode") {
                Form::Iri
            } else {
                Form::Uri
            };
            normalize(input, Level::Scheme, form, None)
        }
        _ => return Err(format!("unknown op {op}")),
    })
}

/// The outputs that conform for an RFC case.
fn acceptable(case: &Value) -> Vec<Option<String>> {
    if case["op"] == "validate" {
        let valid = case["valid"].as_bool().unwrap_or(false);
        let mut v = vec![Some(if valid { "valid" } else { "invalid" }.to_owned())];
        if let Some(also) = case["also_acceptable"].as_array() {
            // In a validate case, `null` in also_acceptable means rejecting conforms too.
            if also.iter().any(Value::is_null) {
                v.push(Some("invalid".to_owned()));
            }
        }
        return v;
    }
    let mut v = vec![opt_str(Some(&case["expected"]))];
    if let Some(also) = case["also_acceptable"].as_array() {
        v.extend(also.iter().map(|a| opt_str(Some(a))));
    }
    v
}

fn show(v: &Option<String>) -> String {
    match v {
        Some(s) => format!("{s:?}"),
        None => "null".to_owned(),
    }
}

#[test]
fn shared_conformance_cases() {
    let Some(text) = crate::common::shared_cases() else {
        crate::common::skipped("conformance", "../shared/conformance/cases.jsonl is absent");
        return;
    };
    let disputed = disputed();
    let mut seen_ids = BTreeSet::new();
    let mut failures = Vec::new();
    let mut disputed_now_passing = Vec::new();
    let mut via_alternative = Vec::new();
    // (op, semantics) -> (passed, of which through also_acceptable, failed, disputed)
    let mut tally: BTreeMap<(String, String), (u32, u32, u32, u32)> = BTreeMap::new();

    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("cases.jsonl line {}: {e}", n + 1));
        let id = case["id"].as_str().unwrap_or("?").to_owned();
        seen_ids.insert(id.clone());
        let op = case["op"].as_str().unwrap_or("?").to_owned();
        let semantics = case["semantics"].as_str().unwrap_or("?").to_owned();
        let input = case["input"].as_str().unwrap_or("").to_owned();
        let note = case["note"].as_str().unwrap_or("").to_owned();

        let (got, want): (Option<String>, Vec<Option<String>>) = match semantics.as_str() {
            "rfc3986" | "rfc3987" => match run_rfc_case(&case) {
                Ok(got) => (got, acceptable(&case)),
                Err(e) => {
                    failures.push(format!("{id}: cannot run: {e}"));
                    continue;
                }
            },
            _ => {
                // whatwg / crawler-*: the nearest RFC ladder output.
                let base = case["base"].as_str();
                let got = normalize(&input, Level::Scheme, Form::Uri, base);
                (got, vec![opt_str(case.get("rfc_expected"))])
            }
        };
        let pass = want.contains(&got);
        let entry = tally.entry((op.clone(), semantics.clone())).or_default();
        if disputed.contains_key(&id) {
            entry.3 += 1;
            if pass {
                disputed_now_passing.push(id.clone());
            }
            continue;
        }
        if pass {
            entry.0 += 1;
            if want.first() != Some(&got) {
                entry.1 += 1;
                via_alternative.push(format!("{id}: {input:?} -> {}", show(&got)));
            }
        } else {
            entry.2 += 1;
            let base = case["base"]
                .as_str()
                .map(|b| format!("\n    base:     {b:?}"))
                .unwrap_or_default();
            let want: Vec<String> = want.iter().map(show).collect();
            failures.push(format!(
                "{id} [{op} {semantics}]\n    input:    {input:?}{base}\n    expected: {}\n    got:      {}\n    note:     {note}",
                want.join(" | "),
                show(&got),
            ));
        }
    }

    println!(
        "conformance: op, semantics: passed (of which through also_acceptable), failed, disputed"
    );
    for ((op, sem), (p, a, f, d)) in &tally {
        println!("  {op:17} {sem:17} {p:4} ({a:3}) {f:4} {d:4}");
    }
    for line in &via_alternative {
        println!("also_acceptable: {line}");
    }
    let stale: Vec<&String> = disputed.keys().filter(|k| !seen_ids.contains(*k)).collect();
    for f in &failures {
        println!("FAIL {f}");
    }
    for id in &stale {
        println!("STALE known_disputed.txt lists {id}, which is not in cases.jsonl");
    }
    for id in &disputed_now_passing {
        println!("STALE known_disputed.txt lists {id}, which now passes");
    }
    assert!(
        failures.is_empty() && stale.is_empty() && disputed_now_passing.is_empty(),
        "{} failing case(s), {} stale dispute(s), {} disputed case(s) now passing",
        failures.len(),
        stale.len(),
        disputed_now_passing.len()
    );
}
