//! SURT keys (`irinorm::surt`): unit cases, the `crawler-surt` conformance cases whose
//! canonicalization irinorm shares, and properties over `../shared/corpora`.
//!
//! With `IRINORM_SURT_DUMP=DIR` set, `surts_over_the_corpora` also writes one JSON line per
//! corpus line to `DIR/<corpus>.jsonl` (`input`, `key`, `surt`, `crawler_surt`,
//! `crawler_www_surt`, `ia_like_surt`), which `benches/surt_compare.py` compares with the `surt` Python
//! package. See `docs/surt.md`.

use std::io::Write;
use std::path::PathBuf;

use irinorm::internals::prepare_str;
use irinorm::Repairs;
use irinorm::Rules;
use irinorm::{surt, write_surt, write_surt_with, SurtOptions};
use irinorm::{Action, Rule};
use irinorm::{Form, Level, Normalizer, Options};

fn with(key: &str, options: SurtOptions) -> String {
    let mut out = String::new();
    write_surt_with(key, options, &mut out);
    out
}

#[test]
fn hosts_are_reversed_and_joined_with_commas() {
    assert_eq!(surt("http://example.com/", false), "com,example)/");
    assert_eq!(surt("http://www.example.com/", false), "com,example,www)/");
    assert_eq!(
        surt("http://a.b.example.co.uk/x", false),
        "uk,co,example,b,a)/x"
    );
    assert_eq!(surt("http://localhost/", false), "localhost)/");
    // Sub-delims that would break the host part are encoded, and so is "%", so that a
    // percent-encoded "," of the key stays apart from a raw one.
    assert_eq!(surt("http://a,b.c(d)/", false), "c%28d%29,a%2cb)/");
    assert_eq!(surt("http://b,a/", false), "b%2ca)/");
    assert_eq!(surt("http://b%2Ca/", false), "b%252ca)/");
    assert_eq!(surt("http://a%28.b%29/", false), "b%2529,a%2528)/");
    // A host that is not ASCII once decoded keeps its case, as in the key.
    assert_eq!(surt("foo://A%C3%A9.com/", false), "com,A%25C3%25A9)/");
    assert_eq!(surt("foo://a%C3%A9.com/", false), "com,a%25C3%25A9)/");
    // The scheme rung keeps a trailing root dot; so does the SURT, as an empty label.
    assert_eq!(surt("http://example.com./", false), ",com,example)/");
    // IDN hosts: A-labels in uri keys, U-labels (left as they are) in iri keys.
    assert_eq!(
        surt("http://xn--bcher-kva.de/", false),
        "de,xn--bcher-kva)/"
    );
    assert_eq!(surt("http://bücher.de/", false), "de,bücher)/");
}

#[test]
fn scheme_prefix() {
    assert_eq!(surt("http://example.com/a", true), "http://(com,example)/a");
    assert_eq!(
        surt("https://example.com/a", true),
        "https://(com,example)/a"
    );
    assert_eq!(
        surt("ftp://example.com:2121/", true),
        "ftp://(com,example:2121)/"
    );
    // A network-path reference has no scheme to write.
    assert_eq!(surt("//example.com/a", true), "//(com,example)/a");
    assert_eq!(surt("//example.com/a", false), "com,example)/a");
}

#[test]
fn ports_ip_addresses_and_userinfo() {
    assert_eq!(
        surt("http://example.com:8080/", false),
        "com,example:8080)/"
    );
    // IPv4 addresses are not reversed.
    assert_eq!(surt("http://192.0.2.1/x", false), "192.0.2.1)/x");
    assert_eq!(
        surt("http://192.0.2.1:81/x", true),
        "http://(192.0.2.1:81)/x"
    );
    // IP literals keep their brackets, so a port stays readable.
    assert_eq!(
        surt("http://[2001:db8::1]:8080/", false),
        "[2001:db8::1]:8080)/"
    );
    assert_eq!(surt("http://[v1.x]/", false), "[v1.x])/");
    // A dotted name that is not an IPv4address is a name.
    assert_eq!(surt("http://1.2.3.400/", false), "400,3,2,1)/");
    // Userinfo is dropped.
    assert_eq!(surt("http://user:pw@example.com/", false), "com,example)/");
    assert_eq!(
        surt("ftp://anonymous@example.com/", true),
        "ftp://(com,example)/"
    );
}

#[test]
fn path_query_and_fragment_are_kept_and_lowercased() {
    assert_eq!(
        surt("http://example.com/A/B.html?Q=Z&b=Y", false),
        "com,example)/a/b.html?q=z&b=y"
    );
    // Percent-encodings are lowercased, never decoded.
    assert_eq!(
        surt("http://example.com/%C3%A9%2F?a=%26%3D", false),
        "com,example)/%c3%a9%2f?a=%26%3d"
    );
    // Non-ASCII characters of an iri key are left alone.
    assert_eq!(surt("http://example.com/É", false), "com,example)/É");
    // Nothing is sorted, collapsed or removed: that is the protocol rung's job.
    assert_eq!(
        surt("http://example.com//a?b=1&a=2", false),
        "com,example)//a?b=1&a=2"
    );
    assert_eq!(surt("http://example.com/?", false), "com,example)/?");
    assert_eq!(
        surt("http://example.com/a#Frag", false),
        "com,example)/a#frag"
    );
    // An empty path (unknown scheme) stays empty.
    assert_eq!(surt("foo://h", false), "h)");
}

#[test]
fn references_without_an_authority_are_written_as_they_are() {
    assert_eq!(
        surt("mailto:Joe@Example.COM", false),
        "mailto:joe@example.com"
    );
    assert_eq!(surt("urn:isbn:0451450523", true), "urn:isbn:0451450523");
    assert_eq!(surt("/a/B?c", false), "/a/b?c");
    // An empty authority: the host is empty.
    assert_eq!(surt("file:///etc/hosts", false), ")/etc/hosts");
    assert_eq!(surt("file:///etc/hosts", true), "file://()/etc/hosts");
}

#[test]
fn options() {
    let all = SurtOptions {
        include_scheme: true,
        trailing_comma: true,
        keep_case: true,
    };
    assert_eq!(
        with("http://Example.com:81/A?B#C", all),
        "http://(com,example,:81)/A?B#C"
    );
    assert_eq!(
        with(
            "http://example.com/A",
            SurtOptions {
                trailing_comma: true,
                ..SurtOptions::default()
            }
        ),
        "com,example,)/a"
    );
    assert_eq!(
        with(
            "mailto:A@B",
            SurtOptions {
                keep_case: true,
                ..SurtOptions::default()
            }
        ),
        "mailto:A@B"
    );
    // write_surt appends.
    let mut out = String::from("x ");
    write_surt("http://a.b/", false, &mut out);
    assert_eq!(out, "x b,a)/");
}

/// The `crawler-surt` cases of the shared conformance file whose canonicalization irinorm
/// shares once `strip-www` is asked for (the `surt` package always strips `www`): the SURT
/// of irinorm's key equals what `surt.surt(input)` (surt 0.3.1) gives. The other
/// `crawler-surt` cases rest on canonicalizations irinorm does not make (repeated
/// unescaping, numeric hosts, slash collapsing, a second `#`): see docs/surt.md.
#[test]
fn crawler_surt_cases_with_the_same_canonicalization() {
    let n = Normalizer::new(Options::default()).unwrap();
    let mut rules = Rules::profile("crawler").unwrap().rules().to_vec();
    rules.push(Rule::new(Action::StripWww { numbered: true }));
    let rules = Rules::new(rules);
    let cases = [
        // (id, input, surt.surt(input), surt.surt(input, with_scheme=True))
        (
            "surt-normalize-scheme-009",
            "http://www.GOOgle.com/",
            "com,google)/",
            "http://(com,google)/",
        ),
        (
            "surt-normalize-scheme-010",
            "http://www.google.com.../",
            "com,google)/",
            "http://(com,google)/",
        ),
        (
            "surt-normalize-scheme-012",
            "http://www.google.com/q?r?s",
            "com,google)/q?r?s",
            "http://(com,google)/q?r?s",
        ),
        (
            "surt-normalize-scheme-014",
            "http://www.archive.org:8080/index.html?#foo",
            "org,archive:8080)/index.html",
            "http://(org,archive:8080)/index.html",
        ),
    ];
    for (id, input, want, want_scheme) in cases {
        let key = rules.apply_to_string(&n.normalize(input).unwrap());
        assert_eq!(surt(&key, false), want, "{id}");
        assert_eq!(surt(&key, true), want_scheme, "{id}");
    }
}

/// Every corpus line through the scheme rung and `write_surt`: the SURT of a key with an
/// authority has exactly the host part before the first `)`, is lowercase, and is ASCII
/// for a uri key. With `IRINORM_SURT_DUMP` set, also writes the comparison files.
#[test]
fn surts_over_the_corpora() {
    let Some(files) = crate::common::shared_corpora(&["txt"]) else {
        crate::common::skipped(
            "surt::surts_over_the_corpora",
            "../shared/corpora is absent",
        );
        return;
    };
    let dump = std::env::var_os("IRINORM_SURT_DUMP").map(PathBuf::from);
    if let Some(d) = &dump {
        std::fs::create_dir_all(d).expect("create the dump directory");
    }
    let n = Normalizer::new(
        Options::default()
            .with_level(Level::Scheme)
            .with_form(Form::Uri),
    )
    .unwrap();
    let crawler = Rules::profile("crawler").unwrap();
    let mut www = crawler.rules().to_vec();
    www.push(Rule::new(Action::StripWww { numbered: true }));
    let crawler_www = Rules::new(www);
    // The rules file of docs/surt.md that comes closest to the `surt` package.
    let ia_like = Rules::from_toml(IA_LIKE_RULES).unwrap();

    let mut lines_seen = 0usize;
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let mut writer = dump.as_ref().map(|d| {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            std::io::BufWriter::new(
                std::fs::File::create(d.join(format!("{name}.jsonl"))).expect("create dump file"),
            )
        });
        for line in text.split('\n') {
            let line = line.strip_suffix('\r').unwrap_or(line);
            lines_seen += 1;
            let mut scratch = String::new();
            let key = prepare_str(
                line,
                irinorm::Repair::Lenient,
                &mut scratch,
                &mut Repairs::default(),
            )
            .ok()
            .and_then(|p| n.normalize(p).ok().map(|k| k.into_owned()));
            let (s, cs, cws, ias) = match &key {
                Some(k) => {
                    let s = surt(k, false);
                    check_surt(k, &s);
                    let ck = crawler.apply_to_string(k);
                    let cwk = crawler_www.apply_to_string(k);
                    let iak = ia_like.apply_to_string(k);
                    (
                        Some(s),
                        Some(surt(&ck, false)),
                        Some(surt(&cwk, false)),
                        Some(surt(&iak, false)),
                    )
                }
                None => (None, None, None, None),
            };
            if let Some(w) = writer.as_mut() {
                let row = serde_json::json!({
                    "input": line,
                    "key": key,
                    "surt": s,
                    "crawler_surt": cs,
                    "crawler_www_surt": cws,
                    "ia_like_surt": ias,
                });
                writeln!(w, "{row}").expect("write dump");
            }
        }
    }
    assert!(lines_seen > 0);
}

/// crawler@1 plus the opt-in rules that bring irinorm's SURTs closest to the `surt`
/// package (the example of docs/surt.md).
const IA_LIKE_RULES: &str = r#"
version = 1
[[rule]]
kind = "drop-params"
names = ["utm_*", "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "_ga", "_gl", "fbclid",
         "msclkid", "yclid", "ttclid", "twclid", "igshid", "mc_cid", "mc_eid", "_hsenc",
         "_hsmi", "__hstc", "__hssc", "__hsfp", "mkt_tok", "jsessionid", "phpsessid",
         "aspsessionid*"]
[[rule]]
kind = "drop-params"
names = ["sid"]
value-hex-length = 32
[[rule]]
kind = "drop-path-params"
names = ["jsessionid", "phpsessid"]
[[rule]]
kind = "drop-empty-query"
[[rule]]
kind = "drop-fragment"
[[rule]]
kind = "strip-trailing-dot"
[[rule]]
kind = "strip-www"
numbered = true
[[rule]]
kind = "trailing-slash"
policy = "remove"
[[rule]]
kind = "sort-params"
"#;

/// A label of a key's host as the SURT writes it: `%`, `,`, `(` and `)` percent-encoded in
/// lowercase hex, lowercased unless the whole host is not ASCII once decoded.
fn surt_label(label: &str, non_ascii_host: bool) -> String {
    let escaped = label
        .replace('%', "%25")
        .replace(',', "%2c")
        .replace('(', "%28")
        .replace(')', "%29");
    if non_ascii_host {
        escaped
    } else {
        escaped.to_ascii_lowercase()
    }
}

/// The key's host read back from the host part of its SURT (labels reversed back, the four
/// escapes decoded; the case as the SURT has it).
fn read_back_host(hostpart: &str) -> String {
    let mut labels: Vec<&str> = hostpart.split(',').collect();
    labels.reverse();
    labels
        .join(".")
        .replace("%2c", ",")
        .replace("%28", "(")
        .replace("%29", ")")
        .replace("%25", "%")
}

fn check_surt(key: &str, s: &str) {
    let v = irinorm::IriRef::parse(key).unwrap();
    if let Some(host) = v.host() {
        let non_ascii_host = irinorm::internals::has_non_ascii(host);
        assert!(s.is_ascii() || non_ascii_host, "{key} -> {s}");
        let close = s
            .find(')')
            .unwrap_or_else(|| panic!("{key} -> {s}: no ')'"));
        let hostpart = &s[..close];
        let after = &s[close + 1..];
        assert_eq!(after, after.to_ascii_lowercase(), "{key}");
        if !non_ascii_host {
            assert_eq!(hostpart, hostpart.to_ascii_lowercase(), "{key}");
        }
        // The labels of the host part, reversed back, give the host (and port).
        let name = hostpart.split(':').next().unwrap();
        if v.host_kind() == irinorm::HostKind::RegName {
            let mut back: Vec<&str> = name.split(',').collect();
            back.reverse();
            let want: Vec<String> = host
                .split('.')
                .map(|l| surt_label(l, non_ascii_host))
                .collect();
            assert_eq!(back, want, "{key} -> {s}");
            let host_as_written = if non_ascii_host {
                host.to_owned()
            } else {
                host.to_ascii_lowercase()
            };
            assert_eq!(read_back_host(name), host_as_written, "{key} -> {s}");
        }
        assert_eq!(
            &s[close + 1..],
            key[key.len() - (s.len() - close - 1)..].to_ascii_lowercase()
        );
    } else {
        assert_eq!(s, key.to_ascii_lowercase());
    }
}

/// Distinct keys of the scheme rung never share a SURT: the host part (before `)`) of two
/// keys with different hosts or ports differs, and with the scheme written and the case
/// kept, two different keys without userinfo (the one part a SURT drops) never share one.
/// The default SURT merges only what docs/surt.md says: the scheme (unless written),
/// userinfo, and the case of the path, query and fragment.
fn check_injective(keys: &std::collections::BTreeSet<String>) {
    use std::collections::HashMap;
    let full = SurtOptions {
        include_scheme: true,
        keep_case: true,
        ..SurtOptions::default()
    };
    let mut by_full: HashMap<String, &str> = HashMap::new();
    let mut by_host: HashMap<String, (String, String)> = HashMap::new();
    for k in keys {
        let v = irinorm::IriRef::parse(k).unwrap();
        if v.userinfo().is_none() {
            let s = with(k, full);
            if let Some(other) = by_full.insert(s.clone(), k) {
                panic!("{other:?} and {k:?} share the SURT {s:?}");
            }
        }
        if let Some(host) = v.host() {
            let s = surt(k, false);
            let hostpart = s[..s.find(')').unwrap()].to_owned();
            let hp = (host.to_owned(), v.port().unwrap_or("").to_owned());
            if let Some(other) = by_host.insert(hostpart.clone(), hp.clone()) {
                assert_eq!(other, hp, "two hosts share the SURT host part {hostpart:?}");
            }
        }
    }
}

/// The scheme rung's `uri` key of a record read as the command line reads it, if valid.
fn scheme_key(n: &Normalizer, line: &str) -> Option<String> {
    let mut scratch = String::new();
    let p = prepare_str(
        line,
        irinorm::Repair::Lenient,
        &mut scratch,
        &mut Repairs::default(),
    )
    .ok()?;
    n.normalize(p).ok().map(|k| k.into_owned())
}

fn scheme_uri() -> Normalizer {
    Normalizer::new(
        Options::default()
            .with_level(Level::Scheme)
            .with_form(Form::Uri),
    )
    .unwrap()
}

#[test]
fn distinct_keys_have_distinct_surts_hand_written() {
    let n = scheme_uri();
    let inputs = [
        "http://b%2Ca/",
        "http://b,a/",
        "http://a,b/",
        "http://b.a/",
        "http://a%2E/",
        "http://a./",
        "http://a(b)/",
        "http://a%28b%29/",
        "http://a%25/",
        "foo://A%C3%A9.com/",
        "foo://a%C3%A9.com/",
        "foo://a%c3%a9.COM/",
        "http://a:81/",
        "http://a%3A81/",
        "http://[v1.a,b]/",
        "http://[v1.a%2Cb]/",
        "http://1.2.3.4/",
        "http://4.3.2.1/",
    ];
    let keys: std::collections::BTreeSet<String> =
        inputs.iter().filter_map(|i| scheme_key(&n, i)).collect();
    assert!(keys.len() >= 15, "{keys:?}");
    check_injective(&keys);
}

#[test]
fn distinct_keys_have_distinct_surts_over_the_corpora() {
    let Some(files) = crate::common::shared_corpora(&["txt"]) else {
        crate::common::skipped(
            "surt::distinct_keys_have_distinct_surts_over_the_corpora",
            "../shared/corpora is absent",
        );
        return;
    };
    let n = scheme_uri();
    let mut keys = std::collections::BTreeSet::new();
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for line in text.split('\n') {
            let line = line.strip_suffix('\r').unwrap_or(line);
            keys.extend(scheme_key(&n, line));
        }
    }
    assert!(keys.len() > 1000);
    check_injective(&keys);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, ..Default::default() })]
    /// Hosts made of the characters that matter to the SURT host part: labels, the
    /// sub-delims it escapes, percent-encodings in either case, non-ASCII, ports.
    #[test]
    fn distinct_keys_have_distinct_surts_generated(
        inputs in proptest::collection::vec(
            "(http|foo|HTTP)://[aAb.,()%2CcéÉ]{0,3}(%2[cC]|%25|%28|%C3%A9|%c3%a9)?[a.,()]{0,2}(:[0-9]{0,2})?/[aA]{0,1}",
            1..12,
        )
    ) {
        let n = scheme_uri();
        let keys: std::collections::BTreeSet<String> =
            inputs.iter().filter_map(|i| scheme_key(&n, i)).collect();
        for k in &keys {
            check_surt(k, &surt(k, false));
        }
        check_injective(&keys);
    }
}
