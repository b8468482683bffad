//! Vectors taken from the RFC texts themselves, so that a checkout without `../shared`
//! still tests them: RFC 3986 §5.4.1, §5.4.2, §6.2.2, §6.2.3; RFC 3987 §3.1, §3.2.1,
//! §5.3.2.x, §5.3.3; RFC 5952 §4 and §5 through the normalizer.

use irinorm::{to_iri, to_uri};
use irinorm::{Form, Level, Normalizer, Options};

/// RFC 3986 §5.2 resolution of `reference` against `base`, nothing normalized.
fn resolve(reference: &str, base: &str, strict: bool) -> String {
    irinorm::resolve(
        reference,
        base,
        if strict {
            irinorm::Resolution::Strict
        } else {
            irinorm::Resolution::NonStrict
        },
    )
    .unwrap()
}

fn key(level: Level, form: Form, s: &str) -> String {
    Normalizer::new(Options::default().with_level(level).with_form(form))
        .unwrap()
        .normalize(s)
        .unwrap_or_else(|e| panic!("{s:?}: {e}"))
        .into_owned()
}

fn syntax(s: &str) -> String {
    key(Level::Syntax, Form::Uri, s)
}

fn scheme(s: &str) -> String {
    key(Level::Scheme, Form::Uri, s)
}

const BASE: &str = "http://a/b/c/d;p?q";

/// RFC 3986 §5.4.1 "Normal Examples", all of them.
#[test]
fn rfc3986_5_4_1_normal_examples() {
    let cases = [
        ("g:h", "g:h"),
        ("g", "http://a/b/c/g"),
        ("./g", "http://a/b/c/g"),
        ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"),
        ("//g", "http://g"),
        ("?y", "http://a/b/c/d;p?y"),
        ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"),
        ("g#s", "http://a/b/c/g#s"),
        ("g?y#s", "http://a/b/c/g?y#s"),
        (";x", "http://a/b/c/;x"),
        ("g;x", "http://a/b/c/g;x"),
        ("g;x?y#s", "http://a/b/c/g;x?y#s"),
        ("", "http://a/b/c/d;p?q"),
        (".", "http://a/b/c/"),
        ("./", "http://a/b/c/"),
        ("..", "http://a/b/"),
        ("../", "http://a/b/"),
        ("../g", "http://a/b/g"),
        ("../..", "http://a/"),
        ("../../", "http://a/"),
        ("../../g", "http://a/g"),
    ];
    for (r, want) in cases {
        assert_eq!(resolve(r, BASE, true), want, "strict, reference {r:?}");
        assert_eq!(resolve(r, BASE, false), want, "non-strict, reference {r:?}");
    }
}

/// RFC 3986 §5.4.2 "Abnormal Examples", all of them, including `http:g` both ways.
#[test]
fn rfc3986_5_4_2_abnormal_examples() {
    let cases = [
        // "more ".." segments than there are hierarchical levels in the base URI's path"
        ("../../../g", "http://a/g"),
        ("../../../../g", "http://a/g"),
        // "dot-segments ... when they are not part of the complete path segment"
        ("/./g", "http://a/g"),
        ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."),
        (".g", "http://a/b/c/.g"),
        ("g..", "http://a/b/c/g.."),
        ("..g", "http://a/b/c/..g"),
        // "unnecessary or nonsensical forms of "." and ".."
        ("./../g", "http://a/b/g"),
        ("./g/.", "http://a/b/c/g/"),
        ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"),
        ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
        ("g;x=1/../y", "http://a/b/c/y"),
        // "separate the reference's query and/or fragment components from the path"
        ("g?y/./x", "http://a/b/c/g?y/./x"),
        ("g?y/../x", "http://a/b/c/g?y/../x"),
        ("g#s/./x", "http://a/b/c/g#s/./x"),
        ("g#s/../x", "http://a/b/c/g#s/../x"),
    ];
    for (r, want) in cases {
        assert_eq!(resolve(r, BASE, true), want, "strict, reference {r:?}");
        assert_eq!(resolve(r, BASE, false), want, "non-strict, reference {r:?}");
    }
    // "http:g" -> "http:g" ; for strict parsers
    //          / "http://a/b/c/g" ; for backward compatibility
    assert_eq!(resolve("http:g", BASE, true), "http:g");
    assert_eq!(resolve("http:g", BASE, false), "http://a/b/c/g");
}

/// Resolution inside the normalizer (`--base`) gives the §5.4 targets, then normalizes.
#[test]
fn rfc3986_5_4_through_the_normalizer_base() {
    let n = Normalizer::new(
        Options::default()
            .with_level(Level::Syntax)
            .with_base(Some(BASE.to_owned())),
    )
    .unwrap();
    for (r, want) in [
        ("g", "http://a/b/c/g"),
        ("../../../g", "http://a/g"),
        ("g;x=1/../y", "http://a/b/c/y"),
        ("#s", "http://a/b/c/d;p?q#s"),
        ("//G", "http://g"),
    ] {
        assert_eq!(n.normalize(r).unwrap(), want, "reference {r:?}");
    }
}

/// RFC 3986 §6.2.2: "example://a/b/c/%7Bfoo%7D" and "eXAMPLE://a/./b/../b/%63/%7bfoo%7d"
/// are equivalent under syntax-based normalization.
#[test]
fn rfc3986_6_2_2_example() {
    let a = "example://a/b/c/%7Bfoo%7D";
    let b = "eXAMPLE://a/./b/../b/%63/%7bfoo%7d";
    assert_eq!(syntax(a), a);
    assert_eq!(syntax(b), a);
    assert_ne!(key(Level::String, Form::Uri, b), a);
}

/// RFC 3986 §6.2.2.1: hex digits to uppercase ("%3a" versus "%3A"); scheme and host to
/// lowercase: "<HTTP://www.EXAMPLE.com/> is equivalent to <http://www.example.com/>"; other
/// components keep their case.
#[test]
fn rfc3986_6_2_2_1_case() {
    assert_eq!(syntax("HTTP://www.EXAMPLE.com/"), "http://www.example.com/");
    assert_eq!(syntax("http://a/%3a"), "http://a/%3A");
    assert_eq!(syntax("http://a/%3A"), "http://a/%3A");
    assert_eq!(
        syntax("http://a/Path?Query#Frag"),
        "http://a/Path?Query#Frag"
    );
    assert_eq!(syntax("http://User@a/"), "http://User@a/");
}

/// RFC 3986 §6.2.2.2: "decoding any percent-encoded octet that corresponds to an
/// unreserved character", and nothing else.
#[test]
fn rfc3986_6_2_2_2_percent_encoding() {
    assert_eq!(
        syntax("http://a/%41%5A%61%7A%30%39%2D%2E%5F%7E"),
        "http://a/AZaz09-._~"
    );
    // Reserved characters and '%' itself stay encoded (RFC 3986 §2.2, §2.4).
    assert_eq!(
        syntax("http://a/%2f%3f%23%5b%5d%40%21%24%26%27%28%29%2a%2b%2c%3b%3d%3a%25"),
        "http://a/%2F%3F%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D%3A%25"
    );
}

/// RFC 3986 §6.2.2.3: "URI normalizers should remove dot-segments by applying the
/// remove_dot_segments algorithm to the path" (the two worked examples of §5.2.4).
#[test]
fn rfc3986_6_2_2_3_path_segments() {
    assert_eq!(syntax("http://h/a/b/c/./../../g"), "http://h/a/g");
    assert_eq!(syntax("s:mid/content=5/../6"), "s:mid/6");
}

/// RFC 3986 §6.2.3 (and RFC 3987 §5.3.3, word for word): the four equivalent http URIs,
/// "the second URI above is the normal form"; "http://example.com/?" differs; a trailing
/// "#" differs.
#[test]
fn rfc3986_6_2_3_scheme_based() {
    for u in [
        "http://example.com",
        "http://example.com/",
        "http://example.com:/",
        "http://example.com:80/",
    ] {
        assert_eq!(scheme(u), "http://example.com/", "{u:?}");
        assert_eq!(
            key(Level::Scheme, Form::Iri, u),
            "http://example.com/",
            "{u:?}"
        );
    }
    assert_eq!(scheme("http://example.com/?"), "http://example.com/?");
    assert_eq!(scheme("http://example.com/#"), "http://example.com/#");
    assert_eq!(scheme("http://example.com#"), "http://example.com/#");
    // The fragment "is not subject to any scheme-based normalization".
    assert_eq!(
        scheme("http://example.com/#%7e%41"),
        "http://example.com/#~A"
    );
}

/// RFC 3987 §3.1, the ToASCII example: "http://résumé.example.org" may be converted to
/// "http://xn--rsum-bpad.example.org" instead of "http://r%C3%A9sum%C3%A9.example.org".
#[test]
fn rfc3987_3_1_resume() {
    let iri = "http://r\u{E9}sum\u{E9}.example.org";
    assert_eq!(
        to_uri(iri, irinorm::HostMapping::ToAscii).unwrap(),
        "http://xn--rsum-bpad.example.org"
    );
    assert_eq!(
        to_uri(iri, irinorm::HostMapping::PercentEncode).unwrap(),
        "http://r%C3%A9sum%C3%A9.example.org"
    );
    assert_eq!(scheme(iri), "http://xn--rsum-bpad.example.org/");
}

/// RFC 3987 §3.1 note: an IDN in the query is the server's business; ToASCII applies to
/// ireg-name only, so the validator.w3.org IRI converts to
/// "http://validator.w3.org/check?uri=http%3A%2F%2Fr%C3%A9sum%C3%A9.example.org".
#[test]
fn rfc3987_3_1_validator_query_untouched() {
    let iri = "http://validator.w3.org/check?uri=http%3A%2F%2Fr\u{E9}sum\u{E9}.example.org";
    let want = "http://validator.w3.org/check?uri=http%3A%2F%2Fr%C3%A9sum%C3%A9.example.org";
    assert_eq!(
        to_uri(iri, irinorm::HostMapping::PercentEncode).unwrap(),
        want
    );
    assert_eq!(to_uri(iri, irinorm::HostMapping::ToAscii).unwrap(), want);
    assert_eq!(scheme(iri), want);
}

/// RFC 3987 §3.1 notes: existing percent-encodings are not encoded further
/// ("http://www.example.org/red%09rosé#red" → "http://www.example.org/red%09ros%C3%A9#red"),
/// and non-BMP characters are four octets each (the Old Italic example).
#[test]
fn rfc3987_3_1_notes() {
    assert_eq!(
        to_uri(
            "http://www.example.org/red%09ros\u{E9}#red",
            irinorm::HostMapping::PercentEncode
        )
        .unwrap(),
        "http://www.example.org/red%09ros%C3%A9#red"
    );
    assert_eq!(
        to_uri(
            "http://example.com/\u{10300}\u{10301}\u{10302}",
            irinorm::HostMapping::PercentEncode
        )
        .unwrap(),
        "http://example.com/%F0%90%8C%80%F0%90%8C%81%F0%90%8C%82"
    );
    // "The mapping is also an identity transformation for URIs and is idempotent".
    let u = "http://www.example.org/red%09ros%C3%A9#red";
    assert_eq!(to_uri(u, irinorm::HostMapping::PercentEncode).unwrap(), u);
    assert_eq!(to_uri(u, irinorm::HostMapping::ToAscii).unwrap(), u);
}

/// RFC 3987 §3.1: '"#", "%", "[", "]" ... MUST NOT be converted'; the printable ASCII
/// characters URIs forbid MAY be (the lenient repair does it, and counts it).
#[test]
fn rfc3987_3_1_lenient_mapping_of_forbidden_ascii() {
    let mut scratch = String::new();
    let mut repairs = irinorm::Repairs::default();
    let got = irinorm::internals::prepare(
        b"http://a/<b> c{|}\\^`\"?x#y",
        irinorm::Repair::Lenient,
        &mut scratch,
        &mut repairs,
    )
    .unwrap();
    assert_eq!(got, "http://a/%3Cb%3E%20c%7B%7C%7D%5C%5E%60%22?x#y");
    let mut scratch = String::new();
    let got = irinorm::internals::prepare(
        b"http://[::1]/%41#f",
        irinorm::Repair::Lenient,
        &mut scratch,
        &mut repairs,
    )
    .unwrap();
    assert_eq!(got, "http://[::1]/%41#f");
}

/// RFC 3987 §3.2.1, all three examples.
#[test]
fn rfc3987_3_2_1_examples() {
    assert_eq!(
        to_iri("http://www.example.org/D%C3%BCrst").unwrap(),
        "http://www.example.org/D\u{FC}rst"
    );
    assert_eq!(
        to_iri("http://www.example.org/D%FCrst").unwrap(),
        "http://www.example.org/D%FCrst"
    );
    // The RLO stays encoded (§4.1) and its hex case may change; the punycode label is not
    // converted by the generic conversion.
    assert_eq!(
        to_iri("http://xn--99zt52a.example.org/%e2%80%ae").unwrap(),
        "http://xn--99zt52a.example.org/%E2%80%AE"
    );
    // "Implementations with scheme-specific knowledge MAY convert punycode-encoded domain
    // name labels ... leading to ... http://納豆.example.org/%E2%80%AE".
    assert_eq!(
        key(
            Level::Scheme,
            Form::Iri,
            "http://xn--99zt52a.example.org/%e2%80%ae"
        ),
        "http://\u{7D0D}\u{8C46}.example.org/%E2%80%AE"
    );
    // §3.2: "http://www.example.org/r%E9sum%E9.html" must not become e-acute characters.
    assert_eq!(
        to_iri("http://www.example.org/r%E9sum%E9.html").unwrap(),
        "http://www.example.org/r%E9sum%E9.html"
    );
}

/// RFC 3987 §5.3.2: "example://a/b/c/%7Bfoo%7D/rosé" and
/// "eXAMPLE://a/./b/../b/%63/%7bfoo%7d/ros%C3%A9" are equivalent, in either key form.
#[test]
fn rfc3987_5_3_2_example() {
    let a = "example://a/b/c/%7Bfoo%7D/ros\u{E9}";
    let b = "eXAMPLE://a/./b/../b/%63/%7bfoo%7d/ros%C3%A9";
    assert_eq!(key(Level::Syntax, Form::Iri, a), a);
    assert_eq!(key(Level::Syntax, Form::Iri, b), a);
    let uri = "example://a/b/c/%7Bfoo%7D/ros%C3%A9";
    assert_eq!(syntax(a), uri);
    assert_eq!(syntax(b), uri);
}

/// RFC 3987 §5.3.2.1: hex digits uppercase; "the scheme and US-ASCII only host are case
/// insensitive and therefore should be normalized to lowercase"; other components keep
/// their case, and a non-ASCII host waits for the scheme rung (§5.3.3).
#[test]
fn rfc3987_5_3_2_1_case() {
    assert_eq!(
        key(Level::Syntax, Form::Iri, "HTTP://www.EXAMPLE.com/"),
        "http://www.example.com/"
    );
    assert_eq!(
        key(Level::Syntax, Form::Iri, "http://a/%3a%c3%a9"),
        "http://a/%3A\u{E9}"
    );
    assert_eq!(
        key(
            Level::Syntax,
            Form::Iri,
            "http://R\u{C9}SUM\u{C9}.example/\u{C9}t\u{C9}"
        ),
        "http://R\u{C9}SUM\u{C9}.example/\u{C9}t\u{C9}"
    );
    assert_eq!(
        syntax("http://R\u{C9}SUM\u{C9}.example/"),
        "http://R%C3%89SUM%C3%89.example/"
    );
    // At the scheme rung the IDN's case folds through IDNA mapping.
    assert_eq!(
        scheme("http://R\u{C9}SUM\u{C9}.example.org/"),
        "http://xn--rsum-bpad.example.org/"
    );
    assert_eq!(
        key(
            Level::Scheme,
            Form::Iri,
            "http://R\u{C9}SUM\u{C9}.example.org/"
        ),
        "http://r\u{E9}sum\u{E9}.example.org/"
    );
}

/// RFC 3987 §5.3.2.2: "Equivalence of IRIs MUST rely on the assumption that IRIs are
/// appropriately pre-character-normalized rather than apply character normalization": the
/// NFC and decomposed résumé stay different, unless NFC is asked for (§3.1 step 1).
#[test]
fn rfc3987_5_3_2_2_character_normalization() {
    let nfc = "http://www.example.org/r\u{E9}sum\u{E9}.html";
    let nfd = "http://www.example.org/re\u{301}sume\u{301}.html";
    for level in [Level::Syntax, Level::Scheme] {
        for form in [Form::Uri, Form::Iri] {
            assert_ne!(key(level, form, nfc), key(level, form, nfd));
        }
    }
    let with_nfc = Normalizer::new(Options::default().with_nfc(true)).unwrap();
    assert_eq!(
        with_nfc.normalize(nfd).unwrap(),
        with_nfc.normalize(nfc).unwrap()
    );
    assert_eq!(
        with_nfc.normalize(nfd).unwrap(),
        "http://www.example.org/r%C3%A9sum%C3%A9.html"
    );
}

/// RFC 3987 §5.3.2.3: "http://example.org/~user", "http://example.org/%7euser" and
/// "http://example.org/%7Euser" must resolve to the same resource.
#[test]
fn rfc3987_5_3_2_3_percent_encoding() {
    for form in [Form::Uri, Form::Iri] {
        for u in [
            "http://example.org/~user",
            "http://example.org/%7euser",
            "http://example.org/%7Euser",
        ] {
            assert_eq!(key(Level::Syntax, form, u), "http://example.org/~user");
        }
    }
    // Percent-encoded UTF-8 and the raw character align in either form.
    assert_eq!(
        syntax("http://example.org/%c3%a9"),
        syntax("http://example.org/\u{E9}")
    );
    assert_eq!(
        key(Level::Syntax, Form::Iri, "http://example.org/%c3%a9"),
        key(Level::Syntax, Form::Iri, "http://example.org/\u{E9}")
    );
}

/// RFC 3987 §5.3.2.4: dot segments removed with remove_dot_segments (RFC 3986 §5.2.4).
#[test]
fn rfc3987_5_3_2_4_path_segments() {
    for form in [Form::Uri, Form::Iri] {
        assert_eq!(
            key(Level::Syntax, form, "http://h/\u{E9}/./a/../b"),
            key(Level::Syntax, form, "http://h/\u{E9}/b")
        );
        assert_eq!(
            key(Level::Syntax, form, "http://h/a/%2E%2E/b"),
            "http://h/b"
        );
    }
}

/// RFC 3987 §5.3.3: the four equivalent http IRIs; the empty query and the "#" suffix are
/// significant.
#[test]
fn rfc3987_5_3_3_scheme_based() {
    for form in [Form::Uri, Form::Iri] {
        for u in [
            "http://example.com",
            "http://example.com/",
            "http://example.com:/",
            "http://example.com:80/",
        ] {
            assert_eq!(key(Level::Scheme, form, u), "http://example.com/");
        }
        assert_ne!(
            key(Level::Scheme, form, "http://example.com/?"),
            "http://example.com/"
        );
        assert_ne!(
            key(Level::Scheme, form, "http://example.com/#"),
            "http://example.com/"
        );
    }
}

/// RFC 5952 §4 (and §5) through the normalizer, inside `http://[...]/`.
#[test]
fn rfc5952_4_through_the_normalizer() {
    let cases = [
        // §4.1: "2001:0db8::0001 ... must be represented as 2001:db8::1"
        ("2001:0db8::0001", "2001:db8::1"),
        // §4.1: "A single 16-bit 0000 field MUST be represented as 0."
        ("2001:db8:0000:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
        // §4.2.1: "2001:db8:0:0:0:0:2:1 must be shortened to 2001:db8::2:1"
        ("2001:db8:0:0:0:0:2:1", "2001:db8::2:1"),
        // §4.2.1: "2001:db8::0:1 is not acceptable ... 2001:db8::1"
        ("2001:db8::0:1", "2001:db8::1"),
        // §4.2.2: "2001:db8:0:1:1:1:1:1 is correct, but 2001:db8::1:1:1:1:1 is not correct"
        ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
        ("2001:db8::1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
        // §4.2.3: the longest run is shortened
        ("2001:0:0:1:0:0:0:1", "2001:0:0:1::1"),
        // §4.2.3: on a tie the first run is shortened: "2001:db8::1:0:0:1"
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        // §4.3: lowercase
        ("2001:DB8::ABCD:EF01", "2001:db8::abcd:ef01"),
        // §5: "::ffff:192.0.2.1 instead of 0:0:0:0:0:ffff:192.0.2.1"
        ("0:0:0:0:0:ffff:192.0.2.1", "::ffff:192.0.2.1"),
        ("::", "::"),
        ("0:0:0:0:0:0:0:1", "::1"),
    ];
    for form in [Form::Uri, Form::Iri] {
        for (addr, want) in cases {
            let input = format!("http://[{addr}]:80/");
            assert_eq!(
                key(Level::Scheme, form, &input),
                format!("http://[{want}]/"),
                "{input:?}"
            );
        }
    }
    // The syntax rung lowercases an IP literal but does not compress it.
    assert_eq!(
        syntax("http://[2001:0DB8:0:0:0:0:0:1]/"),
        "http://[2001:0db8:0:0:0:0:0:1]/"
    );
}

/// RFC 6068 §2 with RFC 5321 §2.4: in `mailto:` only the domain of each address is
/// case-insensitive. A quoted local part may hold `@` (and `,`), so the domain is what
/// follows the address's last `@`; the local part keeps its case ("The local-part of a
/// mailbox MUST BE treated as case sensitive").
#[test]
fn rfc6068_2_mailto_domains_only() {
    assert_eq!(scheme("mailto:%22A@B%22@C.COM"), "mailto:%22A@B%22@c.com");
    assert_ne!(
        scheme("mailto:%22A@B%22@c.com"),
        scheme("mailto:%22A@b%22@c.com")
    );
    assert_eq!(
        scheme("mailto:Joe@Example.COM,%22a,B%22@X.Org"),
        "mailto:Joe@example.com,%22a,B%22@x.org"
    );
    // Not an addr-spec (an unquoted "@" in the local part): left as written.
    assert_eq!(scheme("mailto:A@B@C.COM"), "mailto:A@B@C.COM");
}

/// RFC 3986 §6.2.3: the default port of every scheme in the table goes, whatever the
/// scheme: RFC 2384 §3 (pop, 110), RFC 7252 §6.1–§6.3 (coap 5683, coaps 5684, and an
/// empty path is "/" for both), next to the older rows.
#[test]
fn rfc3986_6_2_3_default_ports_of_every_row() {
    assert_eq!(scheme("pop://u@Mail.Example:110"), "pop://u@mail.example");
    assert_eq!(scheme("pop://mail.example:995"), "pop://mail.example:995");
    assert_eq!(scheme("coap://Example.COM:5683"), "coap://example.com/");
    assert_eq!(
        scheme("coap://[2001:DB8::1]:05683/a?b"),
        "coap://[2001:db8::1]/a?b"
    );
    assert_eq!(scheme("coaps://h:5684/x"), "coaps://h/x");
    assert_eq!(scheme("coaps://h:5683/x"), "coaps://h:5683/x");
    assert_eq!(scheme("gopher://h:70"), "gopher://h/");
    // Every row's default port goes, and only its own.
    for row in irinorm::internals::SCHEMES {
        if let Some(p) = row.default_port {
            let k = scheme(&format!("{}://h:{p}/x", row.name));
            assert!(!k.contains(&format!(":{p}")), "{}: {k}", row.name);
            let k = scheme(&format!("{}://h:1/x", row.name));
            assert!(k.contains(":1/"), "{}: {k}", row.name);
        }
    }
}

/// The README's table of scheme rules, written from the table in the code.
fn scheme_table() -> String {
    let mut t = String::from(
        "| scheme | default port | empty path is `/` | IDNA host | other rule | reference |\n\
         |---|---|---|---|---|---|\n",
    );
    for r in irinorm::internals::SCHEMES {
        use irinorm::internals::Special;
        let yes = |b: bool| if b { "yes" } else { "" };
        let other = match r.special {
            Special::File => "`file://localhost/` is `file:///`",
            Special::Mailto => "domains lowercased",
            Special::Urn => "NID lowercased",
            _ => "",
        };
        t.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            r.name,
            r.default_port.unwrap_or(""),
            yes(r.empty_path_is_slash),
            yes(r.dns_host),
            other,
            r.reference
        ));
    }
    t
}

/// The README lists exactly the scheme table's rows, each with its RFC.
#[test]
fn readme_lists_every_scheme_row() {
    let readme = std::fs::read_to_string(crate::common::repo().join("README.md")).unwrap();
    let table = scheme_table();
    assert!(
        readme.contains(&table),
        "README.md should hold this table of scheme rules:\n{table}"
    );
    for r in irinorm::internals::SCHEMES {
        assert!(r.reference.starts_with("RFC "), "{}", r.name);
    }
}

/// RFC 3987 §4.2: a component with right-to-left characters SHOULD NOT hold left-to-right
/// ones, and SHOULD start and end with a right-to-left one. A violation is a warning of kind
/// `bidi`, with the component's column; the record keeps its key; and the fast path never
/// copies through a record the ladder would warn about.
#[test]
fn rfc3987_4_2_bidi_components_warn() {
    use irinorm::{Form, Normalizer, Options, WarningKind};
    // Hebrew letters U+05D2 and U+05D3.
    let (gimel, dalet) = ('\u{05D2}', '\u{05D3}');
    for form in [Form::Uri, Form::Iri] {
        let n = Normalizer::new(Options::default().with_form(form)).unwrap();
        let bidi = |s: &str| -> Vec<usize> {
            let r = n.record(s);
            assert!(r.key.is_some(), "{s:?}: warnings never make an error");
            r.warnings
                .iter()
                .filter(|w| w.kind == WarningKind::Bidi)
                .map(|w| w.column)
                .collect()
        };
        // Mixed directions in one path segment: column of the segment.
        assert_eq!(bidi(&format!("http://example.com/{gimel}a")), [20]);
        // Right-to-left throughout: nothing to say.
        assert!(bidi(&format!("http://example.com/{gimel}{dalet}")).is_empty());
        // Starts with a number: rule 2 (RFC 3987 §4.4 example 8 reads "not allowed").
        assert_eq!(bidi(&format!("http://example.com/1{gimel}")), [20]);
        // Each query name and value is a component; the extension is one too.
        assert!(bidi(&format!("http://example.com/{gimel}.html?{gimel}={dalet}")).is_empty());
        // Lenient repairs: the column points into the raw record.
        assert_eq!(bidi(&format!("  http://example.com/{gimel}a")), [22]);
        // ASCII records have nothing to judge.
        assert!(bidi("http://example.com/a").is_empty());
        // The fast path refuses what the ladder would warn about.
        assert!(!n.is_canonical_fast(&format!("http://example.com/{gimel}a")));
        // Without the check: the same key, no bidi warning.
        let quiet = Normalizer::new(Options::default().with_form(form))
            .unwrap()
            .without_bidi_warnings();
        for s in [
            format!("http://example.com/{gimel}a"),
            format!("  http://x/1{gimel}"),
        ] {
            let (r, q) = (n.record(&s), quiet.record(&s));
            assert_eq!((&r.key, &r.error), (&q.key, &q.error), "{s}");
            assert!(!r.warnings.is_empty() && q.warnings.is_empty(), "{s}");
        }
    }
}

/// RFC 3986 §6.2.3 for the schemes whose RFCs name a default port (RFC 4516, RFC 5092,
/// RFC 5538, RFC 7826): the default port goes at the scheme rung, any other port stays, and
/// an empty path stays empty (these schemes do not say it means `/`).
#[test]
fn rfc3986_6_2_3_default_ports_of_more_schemes() {
    let n = irinorm::Normalizer::new(irinorm::Options::default()).unwrap();
    for (input, key) in [
        (
            "LDAP://Dir.Example:389/dc=example",
            "ldap://dir.example/dc=example",
        ),
        (
            "ldap://dir.example:636/dc=example",
            "ldap://dir.example:636/dc=example",
        ),
        ("imap://mail.example:143/INBOX", "imap://mail.example/INBOX"),
        (
            "nntp://news.example:119/comp.lang",
            "nntp://news.example/comp.lang",
        ),
        (
            "news://news.example:119/comp.lang",
            "news://news.example/comp.lang",
        ),
        ("rtsp://media.example:554/a", "rtsp://media.example/a"),
        ("rtsps://media.example:322/a", "rtsps://media.example/a"),
        ("rtsps://media.example:554/a", "rtsps://media.example:554/a"),
        ("ldap://dir.example:389", "ldap://dir.example"),
    ] {
        assert_eq!(n.normalize(input).unwrap(), key, "{input}");
    }
}
