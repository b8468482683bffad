//! Hostile inputs, each with its exact error kind and column, through every entry point of
//! the library; and the regressions users remember.

use irinorm::internals::prepare;
use irinorm::{check, Grammar, IriRef};
use irinorm::{to_iri, to_uri, ErrorKind};
use irinorm::{Form, Level, Normalizer, Options};
use irinorm::{RepairKind, Repairs};

const LEVELS: [Level; 3] = [Level::String, Level::Syntax, Level::Scheme];
const FORMS: [Form; 2] = [Form::Uri, Form::Iri];

fn normalizer(level: Level, form: Form) -> Normalizer {
    Normalizer::new(
        Options::default()
            .with_strict(true)
            .with_level(level)
            .with_form(form),
    )
    .unwrap()
}

fn key(level: Level, form: Form, s: &str) -> String {
    normalizer(level, form)
        .normalize(s)
        .unwrap_or_else(|e| panic!("{s:?}: {e}"))
        .into_owned()
}

/// Asserts that `input` is rejected with `kind` at `column` by the parser, the validator,
/// both conversions and the normalizer at every level and form.
fn rejected(input: &str, kind: ErrorKind, column: usize) {
    let mut errors = vec![
        (
            "IriRef::parse",
            IriRef::parse(input).map(|_| ()).unwrap_err(),
        ),
        ("check", check(input, Grammar::IriReference).unwrap_err()),
        (
            "to_uri",
            to_uri(input, irinorm::HostMapping::PercentEncode)
                .map(|_| ())
                .unwrap_err(),
        ),
        (
            "to_uri ascii",
            to_uri(input, irinorm::HostMapping::ToAscii)
                .map(|_| ())
                .unwrap_err(),
        ),
        ("to_iri", to_iri(input).map(|_| ()).unwrap_err()),
    ];
    for level in LEVELS {
        for form in FORMS {
            errors.push((
                "normalize",
                normalizer(level, form)
                    .normalize(input)
                    .map(|_| ())
                    .unwrap_err(),
            ));
        }
    }
    for (what, e) in errors {
        assert_eq!(
            (e.kind, e.column),
            (kind, column),
            "{what} on {input:?}: {e}"
        );
    }
}

fn prepared(raw: &[u8], strict: bool) -> Result<(String, Repairs), irinorm::Error> {
    let mut scratch = String::new();
    let mut repairs = Repairs::default();
    let s = prepare(
        raw,
        if strict {
            irinorm::Repair::Strict
        } else {
            irinorm::Repair::Lenient
        },
        &mut scratch,
        &mut repairs,
    )?
    .to_owned();
    Ok((s, repairs))
}

#[test]
fn overlong_and_surrogate_encodings_stay_encoded() {
    for (input, want) in [
        ("http://a/%C0%AF", "http://a/%C0%AF"),
        ("http://a/%c0%af", "http://a/%C0%AF"),
        ("http://a/%ED%A0%80", "http://a/%ED%A0%80"),
        ("http://a/?%ED%A0%80#%C0%AF", "http://a/?%ED%A0%80#%C0%AF"),
    ] {
        let iri = to_iri(input).unwrap();
        assert!(
            iri.eq_ignore_ascii_case(input),
            "to_iri must keep {input:?}, got {iri:?}"
        );
        assert!(!iri.contains('\u{FFFD}') && iri.is_ascii());
        for level in [Level::Syntax, Level::Scheme] {
            for form in FORMS {
                assert_eq!(key(level, form, input), want, "{level:?} {form:?}");
            }
        }
    }
    // The overlong '/' never becomes a path separator.
    assert_ne!(
        key(Level::Scheme, Form::Iri, "http://a/b%C0%AF..%C0%AF"),
        key(Level::Scheme, Form::Iri, "http://a/b/../")
    );
}

#[test]
fn bidi_formatting_characters() {
    rejected("http://a/\u{202E}x", ErrorKind::BidiFormat, 10);
    rejected("http://\u{E9}/\u{202E}", ErrorKind::BidiFormat, 10);
    rejected("http://a/?q=\u{200F}", ErrorKind::BidiFormat, 13);
    rejected("http://a/#\u{2066}", ErrorKind::BidiFormat, 11);
    rejected("http://\u{202A}a/", ErrorKind::BidiFormat, 8);
    // Encoded, it is valid and stays encoded in every form (RFC 3987 §3.2.1 example 3).
    for form in FORMS {
        assert_eq!(
            key(Level::Scheme, form, "http://a/%e2%80%ae"),
            "http://a/%E2%80%AE"
        );
    }
}

#[test]
fn private_use_only_in_the_query() {
    rejected("http://a/\u{E000}", ErrorKind::DisallowedChar, 10);
    rejected("http://a/#\u{E000}", ErrorKind::DisallowedChar, 11);
    rejected("http://\u{E000}/", ErrorKind::DisallowedChar, 8);
    assert!(check("http://a/?\u{E000}", Grammar::Iri).is_ok());
    assert_eq!(
        to_uri("http://a/?\u{E000}", irinorm::HostMapping::PercentEncode).unwrap(),
        "http://a/?%EE%80%80"
    );
    assert_eq!(
        key(Level::Scheme, Form::Uri, "http://a/?\u{E000}"),
        "http://a/?%EE%80%80"
    );
    // Noncharacters are neither ucschar nor iprivate.
    rejected("http://a/?\u{FFFF}", ErrorKind::DisallowedChar, 11);
    rejected("http://a/\u{FDD0}", ErrorKind::DisallowedChar, 10);
}

#[test]
fn control_characters() {
    rejected("http://a/\u{0}", ErrorKind::Nul, 10);
    rejected("http://a/b\tc", ErrorKind::Control, 11);
    rejected("http://a/\u{7F}", ErrorKind::Control, 10);
    rejected("\u{0}", ErrorKind::Nul, 1);
    // A NUL is the error of its record wherever it is, before any other.
    rejected("http://a/\u{1}b\u{0}", ErrorKind::Nul, 12);
    rejected("http://a b[/\u{0}", ErrorKind::Nul, 13);
    // C1 controls are not ucschar.
    rejected("http://a/\u{85}", ErrorKind::DisallowedChar, 10);
}

#[test]
fn lone_percent() {
    rejected("http://a/%", ErrorKind::BadPercent, 10);
    rejected("http://a/%4", ErrorKind::BadPercent, 10);
    rejected("http://a/%zz", ErrorKind::BadPercent, 10);
    rejected("http://%/", ErrorKind::BadPercent, 8);
    // Strict preparation rejects it at the same column; lenient makes it %25.
    let e = prepared(b"http://a/%", true).unwrap_err();
    assert_eq!((e.kind, e.column), (ErrorKind::BadPercent, 10));
    let (s, r) = prepared(b"http://a/%", false).unwrap();
    assert_eq!(s, "http://a/%25");
    assert_eq!(r.get(RepairKind::StrayPercent), 1);
    let (s, _) = prepared(b"http://a/%4g%41%", false).unwrap();
    assert_eq!(s, "http://a/%254g%41%25");
    assert_eq!(key(Level::Scheme, Form::Uri, &s), "http://a/%254gA%25");
}

#[test]
fn malformed_authorities_and_schemes() {
    rejected("http://[::1", ErrorKind::Syntax, 8);
    rejected("http://[::1/", ErrorKind::Syntax, 8);
    rejected("http://[::g]/", ErrorKind::Syntax, 9);
    rejected("http://[::1]x/", ErrorKind::Syntax, 13);
    rejected("http://a:8x/", ErrorKind::Syntax, 11);
    rejected("http://a:port/", ErrorKind::Syntax, 10);
    rejected("1http://a/", ErrorKind::Syntax, 1);
    rejected("+a:b", ErrorKind::Syntax, 1);
    rejected("ht_tp://a/", ErrorKind::Syntax, 3);
    rejected("http://a/b#c#d", ErrorKind::Syntax, 13);
    rejected("http://a/[", ErrorKind::Syntax, 10);
    rejected("http://a b/", ErrorKind::Syntax, 9);
}

#[test]
fn invalid_utf8_under_strict_has_a_byte_column() {
    let e = prepared(b"http://a/\xE9", true).unwrap_err();
    assert_eq!((e.kind, e.column), (ErrorKind::Utf8, 10));
    // Columns count bytes here: 'é' before the bad byte takes two.
    let e = prepared(b"http://\xC3\xA9/\xFF", true).unwrap_err();
    assert_eq!((e.kind, e.column), (ErrorKind::Utf8, 11));
    let e = prepared(b"\xE2\x82", true).unwrap_err();
    assert_eq!((e.kind, e.column), (ErrorKind::Utf8, 1));
}

#[test]
fn invalid_bytes_never_become_replacement_characters() {
    let (s, r) = prepared(b"http://a/\xE9", false).unwrap();
    assert_eq!(s, "http://a/%E9");
    assert_eq!(r.get(RepairKind::NonUtf8), 1);
    let (s, _) = prepared(b"http://a/r\xE9sum\xE9?\xC0\xAF#\xFF", false).unwrap();
    assert_eq!(s, "http://a/r%E9sum%E9?%C0%AF#%FF");
    for level in [Level::Syntax, Level::Scheme] {
        for form in FORMS {
            let k = key(level, form, &s);
            assert!(!k.contains('\u{FFFD}'), "{k:?}");
            assert_eq!(k, "http://a/r%E9sum%E9?%C0%AF#%FF");
        }
    }
    // A truncated sequence followed by a valid one: the bad octet alone is encoded.
    let (s, _) = prepared(b"http://a/\xE2\x82\xC3\xA9", false).unwrap();
    assert_eq!(s, "http://a/%E2%82\u{E9}");
}

#[test]
fn reserved_encodings_are_never_decoded() {
    for level in [Level::Syntax, Level::Scheme] {
        for form in FORMS {
            let k = key(level, form, "http://a/x%2fy?a%26b=c%3dd%23%3F%25#%2F");
            assert_eq!(k, "http://a/x%2Fy?a%26b=c%3Dd%23%3F%25#%2F");
            assert_ne!(
                key(level, form, "http://a/x%2Fy"),
                key(level, form, "http://a/x/y")
            );
            assert_ne!(
                key(level, form, "http://a/?a%26b"),
                key(level, form, "http://a/?a&b")
            );
            // An encoded slash is not a segment boundary for dot removal.
            assert_eq!(
                key(level, form, "http://a/b%2F..%2Fc"),
                "http://a/b%2F..%2Fc"
            );
        }
    }
}

#[test]
fn www_is_not_stripped() {
    for level in LEVELS {
        for form in FORMS {
            assert_ne!(
                key(level, form, "http://www.example.com/"),
                key(level, form, "http://example.com/")
            );
        }
    }
}

#[test]
fn normalizing_twice_gives_the_same_key() {
    for input in [
        "HTTP://User@WWW.Example.COM:0080/a/./b/../%7Ec/%2e%2E/d?Q=%3d%e9#F%41",
        "http://B\u{FC}cher.example:8080/\u{E9}?\u{E9}#\u{E9}",
        "http://xn--bcher-kva.example/%C3%A9",
        "a:/.//b/../c",
        "//h/../x",
        "../a/./b",
        "http://[2001:DB8::0:1]:80",
        "file://localhost/etc/x",
        "mailto:Joe@Example.COM",
        "http://-b\u{FC}cher.example/",
    ] {
        for level in LEVELS {
            for form in FORMS {
                let once = key(level, form, input);
                let twice = key(level, form, &once);
                assert_eq!(once, twice, "{input:?} at {level:?} {form:?}");
            }
        }
    }
}

#[test]
fn offsets_after_a_rewrite() {
    for level in [Level::Syntax, Level::Scheme] {
        for form in FORMS {
            assert_eq!(key(level, form, "/p%2d1/?q"), "/p-1/?q");
            assert_eq!(key(level, form, "/p%2d1/%2e/x?q#f"), "/p-1/x?q#f");
            assert_eq!(
                key(level, form, "http://h/%41%42%43/../d?%41#%41"),
                "http://h/d?A#A"
            );
        }
    }
}

#[test]
fn idna_never_touches_the_port() {
    assert_eq!(
        key(Level::Scheme, Form::Uri, "http://b\u{FC}cher.example:8080/"),
        "http://xn--bcher-kva.example:8080/"
    );
    assert_eq!(
        key(Level::Scheme, Form::Iri, "http://b\u{FC}cher.example:8080/"),
        "http://b\u{FC}cher.example:8080/"
    );
    assert_eq!(
        to_uri(
            "http://b\u{FC}cher.example:8080/",
            irinorm::HostMapping::ToAscii
        )
        .unwrap(),
        "http://xn--bcher-kva.example:8080/"
    );
    assert_eq!(
        key(
            Level::Scheme,
            Form::Uri,
            "http://u@b\u{FC}cher.example:0080/"
        ),
        "http://u@xn--bcher-kva.example/"
    );
}

#[test]
fn idna_failure_keeps_the_syntax_form_and_warns() {
    // Lenient, as the command line is by default.
    let n = Normalizer::new(Options::default()).unwrap();
    let r = n.record("http://-B\u{FC}cher.example/");
    assert_eq!(r.key.as_deref(), Some("http://-B%C3%BCcher.example/"));
    assert_eq!(r.warnings.len(), 1, "{r:?}");
    assert_eq!(
        (r.warnings[0].kind, r.warnings[0].column),
        (irinorm::WarningKind::Idna, 8)
    );
    // Trimmed on the left: the column still points into the raw record.
    let r = n.record("  http://-B\u{FC}cher.example/");
    assert_eq!(r.warnings[0].column, 10, "{r:?}");
    assert_eq!(r.repairs.total(), 1);
    assert!(n.record("http://b\u{FC}cher.example/").warnings.is_empty());
    let e = to_uri(
        "http://-b\u{FC}cher.example/",
        irinorm::HostMapping::ToAscii,
    )
    .unwrap_err();
    assert_eq!((e.kind, e.column), (ErrorKind::Idna, 8));
}

#[test]
fn huge_inputs_do_not_blow_up() {
    let deep = format!("http://a/{}x", "../".repeat(100_000));
    assert_eq!(key(Level::Syntax, Form::Uri, &deep), "http://a/x");
    let encoded = format!("http://a/{}", "%41".repeat(100_000));
    assert_eq!(key(Level::Syntax, Form::Uri, &encoded).len(), 9 + 100_000);
    let long_host = format!("http://{}.example/", "a".repeat(100_000));
    let k = key(Level::Scheme, Form::Uri, &long_host);
    assert_eq!(k, long_host);
}
