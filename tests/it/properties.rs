//! Property tests over generated IRI-like strings and over the shared corpora.
//!
//! The generator mixes schemes (known and unknown, any case), hosts (ASCII, IDN, A-labels,
//! percent-encoded, IPv4, IPv6, IPvFuture, hosts that fail IDNA), ports, paths with dot
//! segments and every kind of percent-encoding (`%2E`, `%2F`, `%25`, lowercase hex,
//! invalid UTF-8 octets, overlongs, surrogates, encoded bidi and private-use characters),
//! non-ASCII characters from several scripts, queries and fragments; plus fully arbitrary
//! strings.
//!
//! Properties:
//! - (a) `to_uri(x, irinorm::HostMapping::PercentEncode)` is idempotent and the identity on URIs;
//! - (b) `to_uri(to_iri(u))` is `u` up to percent-encoding case and percent-encoded
//!   unreserved characters ([`pct_canon`]);
//! - (c) `IriRef::parse` never panics, and a valid reference's components reassemble to it;
//! - (d) normalization is idempotent at every level and form;
//! - (e) the two key forms agree: `to_uri(key_iri) == key_uri`;
//! - (f) keys are valid (`URI-reference` / `IRI-reference`);
//! - (g) keys hold no raw bidi formatting character, never decode `%2F %26 %3D %25 %23 %3F`,
//!   and have no dot segment in an absolute path;
//! - (h) over every line of `../shared/corpora`: idempotence at every level and form (and
//!   the properties above that are cheap to check).

use irinorm::internals::has_dot_segments;
use irinorm::internals::prepare;
use irinorm::Repairs;
use irinorm::{check, Grammar, IriRef};
use irinorm::{to_iri, to_uri, ErrorKind};
use irinorm::{Form, Level, Normalizer, Options};
use proptest::prelude::*;

const LEVELS: [Level; 3] = [Level::String, Level::Syntax, Level::Scheme];
const FORMS: [Form; 2] = [Form::Uri, Form::Iri];

/// One normalizer per (level, form), in `LEVELS` × `FORMS` order.
fn normalizers() -> Vec<(Level, Form, Normalizer)> {
    let mut v = Vec::new();
    for level in LEVELS {
        for form in FORMS {
            let n = Normalizer::new(
                Options::default()
                    .with_strict(true)
                    .with_level(level)
                    .with_form(form),
            )
            .unwrap();
            v.push((level, form, n));
        }
    }
    v
}

thread_local! {
    static NORMALIZERS: Vec<(Level, Form, Normalizer)> = normalizers();
}

/// The key as `Normalizer::explain` reports it (the traced path through the ladder).
fn explained_key(level: Level, form: Form, s: &str) -> Result<String, irinorm::Error> {
    NORMALIZERS.with(|ns| {
        let (_, _, n) = ns
            .iter()
            .find(|(l, f, _)| *l == level && *f == form)
            .unwrap();
        n.explain(s).map(|e| e.key)
    })
}

fn key(level: Level, form: Form, s: &str) -> Result<String, irinorm::Error> {
    NORMALIZERS.with(|ns| {
        let (_, _, n) = ns
            .iter()
            .find(|(l, f, _)| *l == level && *f == form)
            .unwrap();
        n.normalize(s).map(|k| k.into_owned())
    })
}

// ---------------------------------------------------------------------------------------
// Helpers that define the properties precisely.

/// The octets of the percent-encoding triplets of `s`, as (byte offset, octet).
fn triplets(s: &str) -> Vec<(usize, u8)> {
    let b = s.as_bytes();
    let mut v = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("zz");
            if let Ok(o) = u8::from_str_radix(hex, 16) {
                v.push((i, o));
                i += 3;
                continue;
            }
        }
        i += 1;
    }
    v
}

/// The comparison form of property (b): every percent-encoding's hex in uppercase, and
/// percent-encoded unreserved ASCII (`ALPHA DIGIT - . _ ~`, RFC 3986 §2.3) decoded. Two
/// URIs equal after this differ only in what RFC 3987 §3.2 says a round trip may change
/// ("except for potential case differences in percent-encoding and for potential
/// percent-encoded unreserved characters").
fn pct_canon(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for (i, o) in triplets(s) {
        out.push_str(&s[last..i]);
        if o.is_ascii_alphanumeric() || matches!(o, b'-' | b'.' | b'_' | b'~') {
            out.push(o as char);
        } else {
            out.push_str(&format!("%{o:02X}"));
        }
        last = i + 3;
    }
    out.push_str(&s[last..]);
    out
}

/// How many of the reserved-or-`%` encodings `%2F %26 %3D %25 %23 %3F` `s` holds.
fn protected_encodings(s: &str) -> usize {
    triplets(s)
        .iter()
        .filter(|(_, o)| matches!(o, 0x2F | 0x26 | 0x3D | 0x25 | 0x23 | 0x3F))
        .count()
}

fn is_bidi_format(c: char) -> bool {
    matches!(c as u32, 0x200E | 0x200F | 0x202A..=0x202E | 0x2066..=0x2069)
}

/// The URI form of an IRI-form key, as SPEC §5 relates them: RFC 3987 §3.1, with ToASCII
/// for DNS hosts at the scheme rung. A host that fails ToASCII kept its syntax form in both
/// keys (SPEC §4), so for it the plain mapping is the one that applies.
fn key_iri_to_uri(k: &str, level: Level) -> String {
    let host = if level == Level::Scheme {
        irinorm::HostMapping::ToAscii
    } else {
        irinorm::HostMapping::PercentEncode
    };
    match to_uri(k, host) {
        Ok(u) => u.into_owned(),
        Err(e) if e.kind == ErrorKind::Idna => to_uri(k, irinorm::HostMapping::PercentEncode)
            .unwrap()
            .into_owned(),
        Err(e) => panic!("iri key {k:?} does not map to a URI: {e}"),
    }
}

/// Checks everything that holds for one input at one (level, form), given its key.
fn check_key(input: &str, level: Level, form: Form, k: &str) -> Result<(), TestCaseError> {
    // (d) idempotence.
    let again = key(level, form, k)
        .map_err(|e| TestCaseError::fail(format!("key {k:?} of {input:?} rejected: {e}")))?;
    prop_assert_eq!(
        &again,
        k,
        "not idempotent at {:?} {:?} for {:?}",
        level,
        form,
        input
    );
    // (f) validity of the key in its form.
    let g = match (level, form) {
        (Level::String, _) => Grammar::IriReference,
        (_, Form::Uri) => Grammar::UriReference,
        (_, Form::Iri) => Grammar::IriReference,
        // A SURT is an index key, not a reference: tests/surt.rs covers it.
        (_, Form::Surt) => return Ok(()),
        _ => unreachable!("a form this test does not know"),
    };
    prop_assert!(
        check(k, g).is_ok(),
        "key {:?} of {:?} is not {:?}",
        k,
        input,
        g
    );
    // (g) no raw bidi formatting character.
    prop_assert!(!k.chars().any(is_bidi_format), "bidi char in key {:?}", k);
    if level == Level::String {
        prop_assert_eq!(k, input);
        return Ok(());
    }
    let view = IriRef::parse(input).unwrap();
    // (g) reserved encodings and %25 survive, when no dot segment can drop them.
    if view.is_absolute() && !has_dot_segments(&pct_canon(view.path())) {
        prop_assert_eq!(
            protected_encodings(k),
            protected_encodings(input),
            "reserved encodings changed: {:?} -> {:?}",
            input,
            k
        );
    }
    // (g) an absolute path has no dot segment left (except the "/." guard that keeps a
    // path starting with "//" from being read as an authority).
    let kv = IriRef::parse(k).unwrap();
    if view.is_absolute() || view.authority().is_some() || view.path().starts_with('/') {
        let p = kv.path();
        let p = match p.strip_prefix("/.") {
            Some(rest) if kv.authority().is_none() && rest.starts_with("//") => rest,
            _ => p,
        };
        prop_assert!(
            !has_dot_segments(p),
            "dot segment left in {:?} (from {:?})",
            k,
            input
        );
    }
    Ok(())
}

/// Runs every per-input property; `input` may be anything.
fn check_all(input: &str) -> Result<(), TestCaseError> {
    if input.is_empty() {
        // The empty reference is valid, but an empty record is not (SPEC §2).
        for (level, form) in LEVELS.iter().flat_map(|l| FORMS.map(|f| (*l, f))) {
            prop_assert_eq!(key(level, form, input).unwrap_err().kind, ErrorKind::Empty);
        }
        return Ok(());
    }
    // (c) the parser never panics; a valid reference reassembles from its components.
    let parsed = IriRef::parse(input);
    let Ok(view) = parsed else {
        // Invalid: every entry point rejects it, with the parser's error, or the error of
        // the strict record check (a character that only a lenient repair would accept),
        // which the normalizer makes first, as the command line does.
        let mut scratch = String::new();
        let e = prepare(
            input.as_bytes(),
            irinorm::Repair::Strict,
            &mut scratch,
            &mut Repairs::default(),
        )
        .err()
        .unwrap_or_else(|| parsed.unwrap_err());
        // A NUL is the error of its record, before any other (SPEC §2).
        let e = irinorm::internals::with_nul_first(input.as_bytes(), e);
        for (level, form) in LEVELS.iter().flat_map(|l| FORMS.map(|f| (*l, f))) {
            let e2 = key(level, form, input).unwrap_err();
            prop_assert_eq!((e2.kind, e2.column), (e.kind, e.column));
        }
        prop_assert!(to_uri(input, irinorm::HostMapping::PercentEncode).is_err());
        prop_assert!(to_iri(input).is_err());
        return Ok(());
    };
    prop_assert_eq!(view.as_str(), input);
    let mut re = String::new();
    if let Some(s) = view.scheme() {
        re.push_str(s);
        re.push(':');
    }
    if let Some(a) = view.authority() {
        re.push_str("//");
        let mut a2 = String::new();
        if let Some(u) = view.userinfo() {
            a2.push_str(u);
            a2.push('@');
        }
        a2.push_str(view.host().unwrap());
        if let Some(p) = view.port() {
            a2.push(':');
            a2.push_str(p);
        }
        prop_assert_eq!(&a2, a);
        re.push_str(a);
    }
    re.push_str(view.path());
    if let Some(q) = view.query() {
        re.push('?');
        re.push_str(q);
    }
    if let Some(f) = view.fragment() {
        re.push('#');
        re.push_str(f);
    }
    prop_assert_eq!(&re, input);

    // (a) to_uri is idempotent, and the identity on URIs.
    let u = to_uri(input, irinorm::HostMapping::PercentEncode)
        .unwrap()
        .into_owned();
    prop_assert!(u.is_ascii());
    prop_assert_eq!(
        to_uri(&u, irinorm::HostMapping::PercentEncode).unwrap(),
        u.as_str()
    );
    if input.is_ascii() {
        prop_assert_eq!(&u, input);
    }
    prop_assert!(check(&u, Grammar::UriReference).is_ok(), "{:?}", u);
    // (b) URI -> IRI -> URI gives the URI back, up to pct_canon.
    let i = to_iri(&u).unwrap().into_owned();
    prop_assert!(check(&i, Grammar::IriReference).is_ok(), "{:?}", i);
    let back = to_uri(&i, irinorm::HostMapping::PercentEncode)
        .unwrap()
        .into_owned();
    prop_assert_eq!(pct_canon(&back), pct_canon(&u), "round trip of {:?}", u);
    // to_iri is idempotent too.
    prop_assert_eq!(to_iri(&i).unwrap(), i.as_str());

    for level in LEVELS {
        let mut keys = Vec::new();
        for form in FORMS {
            let k = key(level, form, input)
                .map_err(|e| TestCaseError::fail(format!("{input:?} rejected: {e}")))?;
            check_key(input, level, form, &k)?;
            // Tracing the steps does not change the key.
            prop_assert_eq!(explained_key(level, form, input).unwrap(), k.clone());
            keys.push(k);
        }
        // (e) the IRI-form key maps to the URI-form key.
        if level != Level::String {
            prop_assert_eq!(
                key_iri_to_uri(&keys[1], level),
                keys[0].clone(),
                "iri key {:?} vs uri key at {:?} for {:?}",
                &keys[1],
                level,
                input
            );
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Strategies.

/// Every row of the scheme table, in lowercase and in uppercase, and schemes without a row.
fn scheme() -> impl Strategy<Value = String> {
    let rows = irinorm::internals::SCHEMES.iter().map(|r| r.name);
    let mut names: Vec<String> = rows.clone().map(str::to_owned).collect();
    names.extend(rows.map(str::to_ascii_uppercase));
    names.extend(["HtTpS", "foo", "a+b.c-d"].map(str::to_owned));
    prop::sample::select(names)
}

fn host() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "",
        "example.com",
        "Example.COM",
        "www.example.com",
        "a-b.c",
        "localhost",
        "LOCALHOST",
        "example.com.",
        "b\u{FC}cher.example",
        "B\u{DC}CHER.example",
        "xn--bcher-kva.example",
        "XN--BCHER-KVA.EXAMPLE",
        "\u{4F8B}\u{3048}.\u{30C6}\u{30B9}\u{30C8}",
        "\u{4F8B}\u{3048}\u{3002}\u{30C6}\u{30B9}\u{30C8}",
        "r\u{E9}sum\u{E9}.example.org",
        "\u{3A9}\u{3BC}\u{3B5}\u{3B3}\u{3B1}.gr",
        "\u{43F}\u{440}\u{438}\u{43C}\u{435}\u{440}.\u{440}\u{444}",
        "\u{645}\u{62B}\u{627}\u{644}.example",
        "fa\u{DF}.de",
        "%C3%A9xample.com",
        "%c3%a9xample.com",
        "%41b.com",
        "a%2Fb.com",
        "a%25b",
        "a%26b",
        "%FF.com",
        "-b\u{FC}cher.example",
        "ab\u{5D0}.example",
        "a..b",
        "a_b.example",
        "xn--zz",
        "127.0.0.1",
        "1.2.3.256",
        "[::1]",
        "[2001:DB8:0:0:0:0:0:1]",
        "[2001:0db8::0:1]",
        "[::FFFF:192.0.2.1]",
        "[0:0:0:0:0:ffff:1.2.3.4]",
        "[v1.Fx:y]",
        "[V7.a]",
        "!$&'()*+,;=",
    ])
}

fn userinfo() -> impl Strategy<Value = Option<&'static str>> {
    prop::option::of(prop::sample::select(vec![
        "",
        "user",
        "User:Pass",
        "%41%3a",
        "\u{E9}",
        "a@b%40",
    ]))
}

fn port() -> impl Strategy<Value = Option<&'static str>> {
    prop::option::of(prop::sample::select(vec![
        "", "80", "0080", "443", "8080", "0", "000", "21", "65536",
    ]))
}

/// Pieces of paths, queries and fragments.
fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "/",
        "/",
        "/",
        ".",
        "..",
        "%2E",
        "%2e",
        "%2E%2E",
        ".%2e",
        "a",
        "B",
        "x.y",
        "%2F",
        "%2f",
        "%25",
        "%2525",
        "%7e",
        "%7E",
        "%41",
        "%5a",
        "%c3%a9",
        "%C3%A9",
        "%C0%AF",
        "%ED%A0%80",
        "%F4%90%80%80",
        "%E3%82",
        "%FF",
        "%E2%80%AE",
        "%e2%80%8f",
        "%EE%80%80",
        "%F3%B0%80%80",
        "%26",
        "%3D",
        "%3d",
        "%23",
        "%3F",
        "%3f",
        "%20",
        "%00",
        "\u{E9}",
        "e\u{301}",
        "\u{65E5}\u{672C}",
        "\u{3A9}",
        "\u{1F363}",
        "\u{5D0}\u{5D1}",
        "\u{627}\u{644}",
        "\u{A0}",
        "\u{FFEF}",
        "\u{10000}",
        ";x=1",
        ":",
        "@",
        "!$&'()*+,=",
        "~",
        "-_",
    ])
}

fn pieces(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..max).prop_map(|v| v.concat())
}

/// Query and fragment pieces: path pieces plus `?`, `/`, `&`, `=` and (query only) a raw
/// private-use character.
fn query() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => piece(),
            1 => prop::sample::select(vec!["?", "&", "=", "\u{E000}", "\u{10FFFD}", "/?"]),
        ],
        0..8,
    )
    .prop_map(|v| v.concat())
}

fn fragment() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => piece(),
            1 => prop::sample::select(vec!["?", "/", "&"]),
        ],
        0..6,
    )
    .prop_map(|v| v.concat())
}

/// IRI references built from the grammar: absolute with or without authority, and
/// relative references of every shape.
fn iri_like() -> impl Strategy<Value = String> {
    (
        prop::option::of(scheme()),
        prop::option::of((userinfo(), host(), port())),
        pieces(10),
        prop::option::of(query()),
        prop::option::of(fragment()),
    )
        .prop_map(|(scheme, authority, mut path, q, f)| {
            let mut s = String::new();
            if let Some(sc) = &scheme {
                s.push_str(sc);
                s.push(':');
            }
            if let Some((u, h, p)) = authority {
                s.push_str("//");
                if let Some(u) = u {
                    s.push_str(u);
                    s.push('@');
                }
                s.push_str(h);
                if let Some(p) = p {
                    s.push(':');
                    s.push_str(p);
                }
                if !path.is_empty() && !path.starts_with('/') {
                    path.insert(0, '/');
                }
            } else if scheme.is_none() {
                // A relative-path reference cannot have ':' in its first segment.
                let first = path.split('/').next().unwrap_or("");
                if first.contains(':') {
                    path.insert_str(0, "./");
                }
            }
            if authority.is_none() && path.starts_with("//") {
                path.insert_str(0, "/.");
            }
            s.push_str(&path);
            if let Some(q) = q {
                s.push('?');
                s.push_str(&q);
            }
            if let Some(f) = f {
                s.push('#');
                s.push_str(&f);
            }
            s
        })
}

/// Strings over a delimiter-rich alphabet: mostly near-valid, sometimes not.
fn near_iri() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => piece(),
            2 => prop::sample::select(vec![
                "http:", "//", "?", "#", "[", "]", "[::1]", "%", "%4", "%zz", ":", "@", " ",
                "\u{202E}", "\u{E000}", "\u{0}", "\u{7F}", "\u{FFFF}", "\u{FDD0}", "<", "\\",
                "1a:", "A:", ":80", "\u{200E}",
            ]),
        ],
        0..14,
    )
    .prop_map(|v| v.concat())
}

/// Any valid IRI reference of the grammar strategy, or any string at all.
fn any_input() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => iri_like(),
        2 => near_iri(),
        1 => any::<String>(),
        1 => "\\PC{0,40}",
    ]
}

/// The number of cases per property: `default`, or `PROPTEST_CASES` when set (for long
/// runs: `PROPTEST_CASES=200000 cargo test --release --test it properties::`).
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(5000),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// (a)–(g) on generated IRI-like strings and arbitrary strings.
    #[test]
    fn all_properties(s in any_input()) {
        check_all(&s)?;
    }

    /// The grammar strategy yields valid references (so the properties above are not
    /// vacuous), apart from the few host and port shapes meant to be invalid.
    #[test]
    fn generated_references_are_mostly_valid(s in iri_like()) {
        if let Err(e) = IriRef::parse(&s) {
            prop_assert!(
                e.kind == ErrorKind::Syntax || e.kind == ErrorKind::DisallowedChar
                    || e.kind == ErrorKind::BidiFormat,
                "{:?}: {}", s, e
            );
        }
    }

    /// (b) on URIs directly: ASCII strings over the URI alphabet.
    #[test]
    fn uri_round_trip(s in "[a-z]{1,5}:(//[a-zA-Z0-9.%]{0,12})?(/[a-zA-Z0-9._~%!$&'()*+,;=:@-]{0,10}){0,4}(\\?[a-zA-Z0-9%/?=&]{0,12})?(#[a-zA-Z0-9%/?]{0,8})?") {
        if IriRef::parse(&s).is_ok() {
            prop_assert_eq!(to_uri(&s, irinorm::HostMapping::PercentEncode).unwrap(), s.as_str());
            prop_assert_eq!(to_uri(&s, irinorm::HostMapping::ToAscii).unwrap(), s.as_str());
            let i = to_iri(&s).unwrap().into_owned();
            prop_assert_eq!(pct_canon(&to_uri(&i, irinorm::HostMapping::PercentEncode).unwrap()), pct_canon(&s));
        }
    }

    /// Percent-encoded UTF-8 of arbitrary characters round-trips through to_iri.
    #[test]
    fn encoded_text_round_trip(text in "\\PC{0,12}") {
        let mut u = String::from("http://h/p?");
        for b in text.bytes() {
            u.push_str(&format!("%{b:02x}"));
        }
        let i = to_iri(&u).unwrap().into_owned();
        prop_assert!(check(&i, Grammar::IriReference).is_ok());
        prop_assert_eq!(pct_canon(&to_uri(&i, irinorm::HostMapping::PercentEncode).unwrap()), pct_canon(&u));
        check_all(&u)?;
    }
}

fn base() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "http://a/b/c/d;p?q",
        "HTTP://Example.COM:80",
        "http://b\u{FC}cher.example/%7e/./x/",
        "foo:a/b",
        "foo:/.//x/y",
        "urn:ISBN:1",
        "file:///etc/",
        "http://h/%2E%2E/a/",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(2000),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// With a base, the key is the key of the resolved reference (RFC 3986 §5.2 first,
    /// then the ladder), for every level and form.
    #[test]
    fn base_resolution_then_ladder(s in iri_like(), b in base()) {
        if IriRef::parse(&s).is_err() || s.is_empty() {
            return Ok(());
        }
        let target = irinorm::resolve(&s, b, irinorm::Resolution::Strict).unwrap();
        for level in LEVELS {
            for form in FORMS {
                let n = Normalizer::new(Options::default().with_strict(true).with_level(level).with_form(form).with_base(Some(b.to_owned())))
                .unwrap();
                let with_base = n.normalize(&s).unwrap().into_owned();
                let expect = if IriRef::parse(&s).unwrap().is_absolute() {
                    key(level, form, &s).unwrap()
                } else {
                    key(level, form, &target).unwrap()
                };
                prop_assert_eq!(with_base, expect, "{:?} against {:?}", s, b);
            }
        }
    }
}

/// Lenient normalizers: every level × form, and NFC and a base at the scheme rung.
fn lenient_normalizers() -> Vec<Normalizer> {
    let mut v = Vec::new();
    for level in LEVELS {
        for form in [Form::Uri, Form::Iri, Form::Surt] {
            let o = Options::default().with_level(level).with_form(form);
            v.push(Normalizer::new(o).unwrap());
        }
    }
    for form in FORMS {
        let o = Options::default().with_form(form);
        v.push(Normalizer::new(o.clone().with_nfc(true)).unwrap());
        let base = Some("http://a/b/c/d;p?q".to_owned());
        v.push(Normalizer::new(o.with_base(base)).unwrap());
    }
    v
}

thread_local! {
    static LENIENT: Vec<Normalizer> = lenient_normalizers();
}

/// A record with spaces and tabs around it, sometimes.
fn padded_input() -> impl Strategy<Value = String> {
    ("[ \t]{0,2}", any_input(), "[ \t]{0,2}").prop_map(|(a, s, b)| format!("{a}{s}{b}"))
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(3000),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// A lenient record is parsed before it is repaired (and repaired only when that
    /// fails); `explain` repairs first. Both give the same key, error (kind and column)
    /// and warnings, and the repairs counted are those of `prepare`, whether the record is
    /// valid or not.
    #[test]
    fn lenient_parse_first_matches_repair_first(s in padded_input()) {
        let mut scratch = String::new();
        let mut repairs = Repairs::default();
        let _ = prepare(s.as_bytes(), irinorm::Repair::Lenient, &mut scratch, &mut repairs);
        LENIENT.with(|ns| {
            for n in ns {
                let r = n.record(&s);
                prop_assert_eq!(r.repairs, repairs, "repairs of {:?}", s);
                match n.explain(&s) {
                    Ok(e) => {
                        prop_assert_eq!(r.key.as_deref(), Some(e.key.as_str()), "{:?}", s);
                        prop_assert_eq!(&r.warnings, &e.warnings, "{:?}", s);
                    }
                    Err(e) => {
                        prop_assert_eq!(r.key, None, "{:?}", s);
                        prop_assert_eq!(r.error, Some(e), "{:?}", s);
                    }
                }
            }
            Ok(())
        })?;
    }
}

#[test]
fn helper_definitions() {
    assert_eq!(pct_canon("/%7e%2f%c3%a9%41"), "/~%2F%C3%A9A");
    assert_eq!(protected_encodings("%2f%2F%26%3d%25%23%3F%3A%41"), 7);
    assert_eq!(triplets("%"), vec![]);
    assert_eq!(triplets("%4"), vec![]);
    assert_eq!(triplets("a%41"), vec![(1, 0x41)]);
}

// ---------------------------------------------------------------------------------------
// (h) The corpora.

#[test]
fn corpora_keys_are_stable() {
    let Some(files) = crate::common::shared_corpora(&[]) else {
        crate::common::skipped("properties::corpora_keys_are_stable", "../shared is absent");
        return;
    };
    let ns = normalizers();
    let mut failures = Vec::new();
    let (mut lines, mut valid) = (0u64, 0u64);
    for file in files.iter().filter(|p| p.is_file()) {
        let data = std::fs::read(file).unwrap();
        let hosts = {
            let name = file.file_name().unwrap().to_string_lossy();
            name.contains("host") || name.contains("suffix")
        };
        for raw in data.split(|&b| b == b'\n') {
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            lines += 1;
            let mut scratch = String::new();
            let mut repairs = Repairs::default();
            let Ok(text) = prepare(raw, irinorm::Repair::Lenient, &mut scratch, &mut repairs)
            else {
                continue;
            };
            let mut inputs = vec![text.to_owned()];
            if hosts {
                inputs.push(format!("http://{text}/"));
            }
            for input in &inputs {
                if IriRef::parse(input).is_err() {
                    continue;
                }
                valid += 1;
                let mut keys = Vec::new();
                for (level, form, n) in &ns {
                    let k = match n.normalize(input) {
                        Ok(k) => k.into_owned(),
                        Err(e) => {
                            failures.push(format!("{input:?} valid but {level:?} {form:?}: {e}"));
                            continue;
                        }
                    };
                    match n.normalize(&k) {
                        Ok(k2) if k2 == k => {}
                        Ok(k2) => failures.push(format!(
                            "{}: {input:?} {level:?} {form:?}: {k:?} then {k2:?}",
                            file.display()
                        )),
                        Err(e) => failures.push(format!(
                            "{}: {input:?} {level:?} {form:?}: key {k:?} rejected: {e}",
                            file.display()
                        )),
                    }
                    let g = if *level == Level::String || *form == Form::Iri {
                        Grammar::IriReference
                    } else {
                        Grammar::UriReference
                    };
                    if check(&k, g).is_err() {
                        failures.push(format!("{input:?} {level:?} {form:?}: key {k:?} not {g:?}"));
                    }
                    keys.push((*level, k));
                }
                // (e) on the corpus: iri keys map to uri keys.
                for pair in keys.chunks(2) {
                    if let [(level, ku), (_, ki)] = pair {
                        if *level != Level::String && key_iri_to_uri(ki, *level) != *ku {
                            failures.push(format!(
                                "{input:?} {level:?}: iri key {ki:?} does not map to uri key {ku:?}"
                            ));
                        }
                    }
                }
            }
        }
    }
    println!(
        "corpora: {} files, {lines} lines, {valid} valid inputs checked",
        files.len()
    );
    for f in failures.iter().take(200) {
        println!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} corpus failure(s)", failures.len());
}
