//! Every rung × every form (the protocol rung with the built-in `crawler` profile), and
//! NFC at the scheme rung: no panic; an invalid record is rejected with the parser's error
//! at every rung; keys are idempotent and valid in their form (`URI-reference` /
//! `IRI-reference`); the two forms agree (`to_uri(key_iri) == key_uri`, SPEC §5); the SURT
//! form is the SURT of the uri key; keys hold no raw bidi formatting character, keep
//! `%2F %26 %3D %25 %23 %3F` encoded, and have no dot segment left in an absolute path.
//! `explain` runs the full ladder without the fast path, so comparing its key with
//! `normalize`'s checks the fast path against the ladder too (SPEC §8).

#![no_main]

#[path = "common.rs"]
mod common;

use std::sync::{Arc, OnceLock};

use common::*;
use irinorm::{check, Grammar, IriRef};
use irinorm::internals::has_dot_segments;
use irinorm::Rules;
use irinorm::surt;
use irinorm::{Form, Level, Normalizer, Options};
use libfuzzer_sys::fuzz_target;

const LEVELS: [Level; 4] = [Level::String, Level::Syntax, Level::Scheme, Level::Protocol];
const FORMS: [Form; 3] = [Form::Uri, Form::Iri, Form::Surt];

struct Set {
    /// (level, nfc, [uri, iri, surt]).
    rows: Vec<(Level, bool, [Normalizer; 3])>,
}

fn set() -> &'static Set {
    static SET: OnceLock<Set> = OnceLock::new();
    SET.get_or_init(|| {
        let crawler = Arc::new(Rules::profile("crawler").expect("the crawler profile"));
        let make = |level, nfc| {
            FORMS.map(|form| {
                Normalizer::new(
                    Options::default()
                        .with_level(level)
                        .with_form(form)
                        .with_nfc(nfc)
                        .with_rules((level == Level::Protocol).then(|| crawler.clone())),
                )
                .unwrap()
            })
        };
        let mut rows: Vec<_> = LEVELS.iter().map(|&l| (l, false, make(l, false))).collect();
        rows.push((Level::Scheme, true, make(Level::Scheme, true)));
        Set { rows }
    })
}

fn check_key(input: &str, level: Level, nfc: bool, form: Form, n: &Normalizer, k: &str) {
    let ctx = format!("{level:?} {form:?} nfc={nfc} input={input:?} key={k:?}");
    if level == Level::String {
        // §5.3.1: the record itself, whatever the form.
        assert_eq!(k, input, "string rung changed the record: {ctx}");
        return;
    }
    if form == Form::Surt {
        assert!(k.is_ascii(), "surt not ASCII: {ctx}");
        // Lowercase, but for a host that is not ASCII once decoded, which keeps its case
        // (docs/surt.md), and whose `%` is written `%25`.
        let (host, rest) = k.split_once(')').unwrap_or(("", k));
        let host = if host.contains("%25") { "" } else { host };
        assert_eq!(host, host.to_ascii_lowercase(), "surt host not lowercase: {ctx}");
        assert_eq!(rest, rest.to_ascii_lowercase(), "surt not lowercase: {ctx}");
        return;
    }
    // An empty key (`#x` with its fragment dropped) is a valid reference but an empty record,
    // which the record entry point rejects as the command line does (SPEC §2).
    if k.is_empty() {
        return;
    }
    // Idempotence.
    match n.normalize(k) {
        Ok(again) => assert_eq!(again, k, "not idempotent: {ctx}"),
        Err(e) => panic!("key rejected ({e}): {ctx}"),
    }
    // Validity in its form.
    let g = match form {
        Form::Iri => Grammar::IriReference,
        _ => Grammar::UriReference,
    };
    if let Err(e) = check(k, g) {
        panic!("key is not {g:?} ({e}): {ctx}");
    }
    assert!(!k.chars().any(is_bidi_format), "raw bidi char: {ctx}");
    let view = IriRef::parse(input).unwrap();
    let kv = IriRef::parse(k).unwrap();
    // Reserved encodings and %25 survive (the protocol rung may drop whole parameters,
    // and a dot segment may drop a whole segment holding one).
    if level != Level::Protocol
        && !nfc
        && view.is_absolute()
        && !has_dot_segments(&pct_canon(view.path()))
    {
        assert_eq!(
            protected_encodings(k),
            protected_encodings(input),
            "reserved encodings changed: {ctx}"
        );
    }
    // No dot segment in an absolute path (but for the "/." guard that keeps a path
    // starting with "//" from being read as an authority).
    if view.is_absolute() || view.authority().is_some() || view.path().starts_with('/') {
        let p = kv.path();
        let p = match p.strip_prefix("/.") {
            Some(rest) if kv.authority().is_none() && rest.starts_with("//") => rest,
            _ => p,
        };
        assert!(!has_dot_segments(p), "dot segment left: {ctx}");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(input) = prepared(data) else {
        return;
    };
    let input = input.as_str();
    let parsed = IriRef::parse(input);
    for (level, nfc, ns) in &set().rows {
        let (level, nfc) = (*level, *nfc);
        if let Err(e) = &parsed {
            for n in ns {
                match n.normalize(input) {
                    Ok(k) => panic!("{input:?} invalid ({e}) but {level:?} gives {k:?}"),
                    Err(e2) => assert_eq!(
                        (e2.kind, e2.column),
                        (e.kind, e.column),
                        "{input:?} at {level:?}"
                    ),
                }
            }
            continue;
        }
        let mut keys: Vec<String> = Vec::with_capacity(3);
        for (form, n) in FORMS.iter().zip(ns) {
            let k = match n.normalize(input) {
                Ok(k) => k.into_owned(),
                Err(e) => panic!("valid {input:?} rejected at {level:?} {form:?}: {e}"),
            };
            let mut into = String::from("x");
            n.normalize_into(input, &mut into).unwrap();
            assert_eq!(&into[1..], k, "normalize_into vs normalize for {input:?}");
            assert_eq!(
                n.explain(input).unwrap().key,
                k,
                "explain vs normalize for {input:?}"
            );
            check_key(input, level, nfc, *form, n, &k);
            keys.push(k);
        }
        if level == Level::String {
            continue;
        }
        // The two forms agree.
        let (ku, ki, ks) = (&keys[0], &keys[1], &keys[2]);
        assert_eq!(
            &key_iri_to_uri(ki, level),
            ku,
            "iri key {ki:?} does not map to uri key {ku:?} at {level:?} nfc={nfc} for {input:?}"
        );
        // The SURT form is the SURT of the uri key.
        assert_eq!(&surt(ku, false), ks, "surt of {ku:?} for {input:?}");
    }
});
