//! The protocol rung (`irinorm::Rules`): one test per rule, the traps named in
//! `docs/protocol.md`, rules-file errors, idempotence, and the `crawler` profile measured
//! against the crawler and WHATWG cases of `../shared/conformance/cases.jsonl`.

use std::collections::BTreeSet;

use irinorm::internals::prepare_str;
use irinorm::internals::resolve_components;
use irinorm::IriRef;
use irinorm::Repairs;
use irinorm::Rules;
use irinorm::{Action, HostScope, ParamFilter, Rule, SlashPolicy, ValueCondition};
use irinorm::{Form, Level, Normalizer, Options};
use proptest::prelude::*;

fn toml(text: &str) -> Rules {
    Rules::from_toml(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn one(kind_and_keys: &str) -> Rules {
    toml(&format!("version = 1\n[[rule]]\n{kind_and_keys}\n"))
}

fn apply(rules: &Rules, key: &str) -> (String, Vec<&'static str>) {
    let mut out = String::new();
    let mut fired = Vec::new();
    rules.apply(key, &mut out, &mut fired);
    (out, fired)
}

fn ap(rules: &Rules, key: &str) -> String {
    apply(rules, key).0
}

fn crawler() -> Rules {
    Rules::profile("crawler").expect("built-in profile")
}

// ---------------------------------------------------------------------------------------
// drop-params
// ---------------------------------------------------------------------------------------

#[test]
fn drop_params_by_name_and_glob() {
    let r = one("kind = \"drop-params\"\nnames = [\"utm_*\", \"gclid\"]");
    assert_eq!(
        apply(&r, "http://h/p?utm_source=a&x=1&gclid=Z&utm_medium=b&y"),
        ("http://h/p?x=1&y".to_owned(), vec!["drop-params"])
    );
    // Case-insensitive by default.
    assert_eq!(
        ap(&r, "http://h/?UTM_Source=a&GCLID=1&b=2"),
        "http://h/?b=2"
    );
    // Only the name counts, not a value that looks like one.
    assert_eq!(ap(&r, "http://h/?x=utm_source"), "http://h/?x=utm_source");
    // `utm_*` needs the underscore.
    assert_eq!(ap(&r, "http://h/?utm=1"), "http://h/?utm=1");
    // Nothing fired when nothing changed.
    assert_eq!(
        apply(&r, "http://h/?a=1"),
        ("http://h/?a=1".to_owned(), vec![])
    );
}

#[test]
fn drop_params_match_case() {
    let r = one("kind = \"drop-params\"\nnames = [\"Sid\"]\nmatch-case = true");
    assert_eq!(
        ap(&r, "http://h/?Sid=1&sid=2&SID=3"),
        "http://h/?sid=2&SID=3"
    );
}

#[test]
fn drop_params_value_conditions() {
    let r = one("kind = \"drop-params\"\nnames = [\"sid\"]\nvalue-hex-length = 32");
    let hex = "0123456789abcdefABCDEF0123456789";
    assert_eq!(ap(&r, &format!("http://h/?sid={hex}&a=1")), "http://h/?a=1");
    // A story id, a 31-digit value, a non-hex value and no value at all survive.
    for q in [
        "sid=12",
        "sid=0123456789abcdef0123456789abcde",
        "sid=0123456789abcdef0123456789abcdeg",
        "sid",
        "sid=",
    ] {
        let k = format!("http://h/?{q}");
        assert_eq!(ap(&r, &k), k);
    }
    let r = one("kind = \"drop-params\"\nnames = [\"sessionid\"]\nvalue-min-length = 16");
    assert_eq!(ap(&r, "http://h/?sessionid=42"), "http://h/?sessionid=42");
    // The query is left empty: dropping `?` is the separate `drop-empty-query` rule.
    assert_eq!(ap(&r, "http://h/?sessionid=a1b2c3d4e5f6g7h8"), "http://h/?");
}

#[test]
fn reserved_characters_stay_where_they_are() {
    let r = one("kind = \"drop-params\"\nnames = [\"b\", \"utm_*\"]");
    // `%26` is inside the value of `a`: it is not a separator.
    assert_eq!(ap(&r, "http://h/?a=1%26b=2&c=3"), "http://h/?a=1%26b=2&c=3");
    // `%3D` is inside the name: the name is `b%3Dx`, not `b`.
    assert_eq!(ap(&r, "http://h/?b%3Dx=1"), "http://h/?b%3Dx=1");
    // `%2F` is never decoded, in the path or the query.
    assert_eq!(
        ap(&r, "http://h/a%2Fb?x=%2F&utm_id=1"),
        "http://h/a%2Fb?x=%2F"
    );
    // `;` is not a separator.
    assert_eq!(ap(&r, "http://h/?a=1;b=2"), "http://h/?a=1;b=2");
}

#[test]
fn percent_encoded_names_are_matched_as_written() {
    // An encoded reserved character is part of the name; a pattern may spell it (any hex
    // case), and matches only that spelling.
    let r = one("kind = \"drop-params\"\nnames = [\"a%2fb\"]");
    assert_eq!(ap(&r, "http://h/?a%2Fb=1&a/b=2"), "http://h/?a/b=2");
    // Non-ASCII names match in both the uri and the iri form of a key.
    let r = one("kind = \"drop-params\"\nnames = [\"réf\"]");
    assert_eq!(ap(&r, "http://h/?r%C3%A9f=1&x=1"), "http://h/?x=1");
    assert_eq!(ap(&r, "http://h/?réf=1&x=1"), "http://h/?x=1");
}

#[test]
fn question_a_and_a_equals_stay_different() {
    let r = toml(
        "version = 1\n[[rule]]\nkind = \"drop-params\"\nnames = [\"x\"]\n\
         [[rule]]\nkind = \"sort-params\"\n[[rule]]\nkind = \"drop-empty-query\"",
    );
    assert_eq!(ap(&r, "http://h/?a"), "http://h/?a");
    assert_eq!(ap(&r, "http://h/?a="), "http://h/?a=");
    assert_eq!(ap(&r, "http://h/?b=&a"), "http://h/?a&b=");
    // Both are dropped by name.
    assert_eq!(ap(&r, "http://h/?x&x=&y"), "http://h/?y");
    // `--explain` names follow the stage order: filters, then sorting, then the empty query.
    assert_eq!(
        apply(&r, "http://h/?x=1&b&a"),
        (
            "http://h/?a&b".to_owned(),
            vec!["drop-params", "sort-params"]
        )
    );
    assert_eq!(
        apply(&r, "http://h/?x=1"),
        (
            "http://h/".to_owned(),
            vec!["drop-params", "drop-empty-query"]
        )
    );
}

#[test]
fn fragment_is_not_a_query() {
    let r = one("kind = \"drop-params\"\nnames = [\"utm_*\"]");
    assert_eq!(
        ap(&r, "http://h/p?utm_a=1#utm_source=x"),
        "http://h/p?#utm_source=x"
    );
    assert_eq!(
        ap(&r, "http://h/p#?utm_source=x"),
        "http://h/p#?utm_source=x"
    );
}

// ---------------------------------------------------------------------------------------
// keep-params, sort-params, drop-empty-query
// ---------------------------------------------------------------------------------------

#[test]
fn keep_list() {
    let r = one("kind = \"keep-params\"\nnames = [\"id\", \"page\"]\nhosts = [\"shop.example\"]");
    assert_eq!(
        apply(&r, "http://shop.example/item?ref=x&id=7&&page=2&ID=8"),
        (
            "http://shop.example/item?id=7&page=2&ID=8".to_owned(),
            vec!["keep-params"]
        )
    );
    // Out of scope: untouched.
    assert_eq!(
        ap(&r, "http://other.example/?ref=x"),
        "http://other.example/?ref=x"
    );
    // Everything dropped leaves `?` (no drop-empty-query rule here).
    assert_eq!(ap(&r, "http://shop.example/?a=1"), "http://shop.example/?");
}

#[test]
fn sort_is_stable_by_name() {
    let r = one("kind = \"sort-params\"");
    assert_eq!(
        apply(&r, "http://h/?b=1&a=2&a=1&c&b=0"),
        (
            "http://h/?a=2&a=1&b=1&b=0&c".to_owned(),
            vec!["sort-params"]
        )
    );
    // Repeated names keep their order even when already grouped.
    assert_eq!(
        apply(&r, "http://h/?a=2&a=1"),
        ("http://h/?a=2&a=1".to_owned(), vec![])
    );
    // Byte order of the name as written: uppercase before lowercase, `%` before letters.
    assert_eq!(
        ap(&r, "http://h/?a=1&B=2&%C3%A9=3"),
        "http://h/?%C3%A9=3&B=2&a=1"
    );
    // Empty parameters have the empty name and come first.
    assert_eq!(ap(&r, "http://h/?b&&a"), "http://h/?&a&b");
    // The value is never compared.
    assert_eq!(ap(&r, "http://h/?a=z&a=b"), "http://h/?a=z&a=b");
}

#[test]
fn empty_query() {
    let r = one("kind = \"drop-empty-query\"");
    assert_eq!(
        apply(&r, "http://h/a?"),
        ("http://h/a".to_owned(), vec!["drop-empty-query"])
    );
    assert_eq!(ap(&r, "http://h/a?#f"), "http://h/a#f");
    // `&` alone is not empty.
    assert_eq!(ap(&r, "http://h/a?&"), "http://h/a?&");
    assert_eq!(ap(&r, "http://h/a?="), "http://h/a?=");
    // Emptied by another rule.
    let r = toml(
        "version = 1\n[[rule]]\nkind = \"drop-empty-query\"\n\
         [[rule]]\nkind = \"drop-params\"\nnames = [\"utm_*\"]",
    );
    assert_eq!(
        apply(&r, "http://h/a?utm_source=1&utm_medium=2"),
        (
            "http://h/a".to_owned(),
            vec!["drop-params", "drop-empty-query"]
        )
    );
}

// ---------------------------------------------------------------------------------------
// Path parameters
// ---------------------------------------------------------------------------------------

#[test]
fn jsessionid_path_parameter() {
    let r = crawler();
    assert_eq!(
        apply(&r, "http://h/shop/cart.do;jsessionid=0A1B2C3D4E.node1?x=1"),
        (
            "http://h/shop/cart.do?x=1".to_owned(),
            vec!["drop-path-params"]
        )
    );
    // Case variants and a route suffix with a hyphen.
    assert_eq!(ap(&r, "http://h/a;JSESSIONID=ABC-route.x"), "http://h/a");
    assert_eq!(ap(&r, "http://h/a;JSessionId=abc"), "http://h/a");
    // Any segment; other matrix parameters stay, in order.
    assert_eq!(
        ap(&r, "http://h/x;v=1;jsessionid=2;w=3/y;phpsessid=9"),
        "http://h/x;v=1;w=3/y"
    );
    // Root segment.
    assert_eq!(ap(&r, "http://h/;jsessionid=1"), "http://h/");
    // An encoded `;` is not a parameter separator.
    assert_eq!(
        ap(&r, "http://h/a%3Bjsessionid=1"),
        "http://h/a%3Bjsessionid=1"
    );
    // A query named like it is dropped by the query rule.
    assert_eq!(ap(&r, "http://h/a?JSESSIONID=1&b=2"), "http://h/a?b=2");
    // Without an authority, the path never starts with "//".
    assert_eq!(ap(&r, "x:/;jsessionid=1//y"), "x:/.///y");
    assert_eq!(ap(&r, "x:/.///y"), "x:/.///y");
}

// ---------------------------------------------------------------------------------------
// Host rules
// ---------------------------------------------------------------------------------------

#[test]
fn trailing_dot() {
    let r = one("kind = \"strip-trailing-dot\"");
    assert_eq!(
        apply(&r, "http://example.com.:8080/"),
        (
            "http://example.com:8080/".to_owned(),
            vec!["strip-trailing-dot"]
        )
    );
    assert_eq!(ap(&r, "http://a../"), "http://a/");
    // Never down to an empty host.
    assert_eq!(ap(&r, "http://./"), "http://./");
    assert_eq!(ap(&r, "http://../"), "http://../");
    // IP literals and references without a host are untouched.
    assert_eq!(ap(&r, "http://[::1]/"), "http://[::1]/");
    assert_eq!(ap(&r, "/a./b."), "/a./b.");
}

#[test]
fn www_stripping_and_its_guards() {
    let r = one("kind = \"strip-www\"");
    assert_eq!(
        apply(&r, "http://www.example.com/"),
        ("http://example.com/".to_owned(), vec!["strip-www"])
    );
    // `www.com` and the like keep their `www`.
    for host in [
        "www.com",
        "www.example",
        "www.co.uk",
        "www.com.au",
        "www",
        "www.1.2.3.4",
    ] {
        let k = format!("http://{host}/");
        assert_eq!(ap(&r, &k), k, "{host}");
    }
    assert_eq!(ap(&r, "http://www.example.co.uk/"), "http://example.co.uk/");
    // `www2` is not `www` by default ...
    assert_eq!(
        ap(&r, "http://www2.example.com/"),
        "http://www2.example.com/"
    );
    // ... but is with `numbered = true`.
    let n = one("kind = \"strip-www\"\nnumbered = true");
    assert_eq!(ap(&n, "http://www2.example.com/"), "http://example.com/");
    assert_eq!(ap(&n, "http://www10.example.com/"), "http://example.com/");
    assert_eq!(
        ap(&n, "http://wwwx.example.com/"),
        "http://wwwx.example.com/"
    );
    assert_eq!(ap(&n, "http://www2.com/"), "http://www2.com/");
    // Repeated labels go in one application (idempotence), the trailing dot stays.
    assert_eq!(
        ap(&r, "http://www.www.example.com./"),
        "http://example.com./"
    );
    // Userinfo and port are kept.
    assert_eq!(
        ap(&r, "http://u@www.example.com:81/"),
        "http://u@example.com:81/"
    );
    // IDN hosts in either form.
    assert_eq!(ap(&r, "http://www.bücher.de/"), "http://bücher.de/");
}

#[test]
fn http_to_https() {
    let r = one("kind = \"http-to-https\"");
    assert_eq!(
        apply(&r, "http://h/a"),
        ("https://h/a".to_owned(), vec!["http-to-https"])
    );
    assert_eq!(ap(&r, "http://h:443/a"), "https://h/a");
    assert_eq!(ap(&r, "http://h:8080/a"), "https://h:8080/a");
    assert_eq!(ap(&r, "https://h/a"), "https://h/a");
    assert_eq!(ap(&r, "ftp://h/a"), "ftp://h/a");
}

// ---------------------------------------------------------------------------------------
// Path rules
// ---------------------------------------------------------------------------------------

#[test]
fn trailing_slash_policies() {
    let add = one("kind = \"trailing-slash\"\npolicy = \"add\"");
    assert_eq!(ap(&add, "http://h/a/b?x"), "http://h/a/b/?x");
    assert_eq!(ap(&add, "http://h/a/b/"), "http://h/a/b/");
    assert_eq!(ap(&add, "http://h/a/index.html"), "http://h/a/index.html");
    assert_eq!(ap(&add, "http://h/"), "http://h/");
    assert_eq!(ap(&add, "rel/path"), "rel/path");
    let remove = one("kind = \"trailing-slash\"\npolicy = \"remove\"");
    assert_eq!(ap(&remove, "http://h/a/b/?x"), "http://h/a/b?x");
    assert_eq!(ap(&remove, "http://h/a//"), "http://h/a");
    assert_eq!(ap(&remove, "http://h/"), "http://h/");
    assert_eq!(ap(&remove, "http://h//"), "http://h/");
    // The first rule in scope decides: a scoped `keep` before a general `remove`.
    let both = toml(
        "version = 1\n[[rule]]\nkind = \"trailing-slash\"\npolicy = \"keep\"\nhosts = [\"keep.example\"]\n\
         [[rule]]\nkind = \"trailing-slash\"\npolicy = \"remove\"",
    );
    assert_eq!(
        ap(&both, "http://keep.example/a/"),
        "http://keep.example/a/"
    );
    assert_eq!(
        ap(&both, "http://other.example/a/"),
        "http://other.example/a"
    );
}

#[test]
fn lowercase_path_for_listed_hosts() {
    let r = one("kind = \"lowercase-path\"\nhosts = [\"iis.example\"]");
    assert_eq!(
        apply(&r, "http://iis.example/Docs/ReadMe%C3%A9.HTM?Q=A#F"),
        (
            "http://iis.example/docs/readme%C3%A9.htm?Q=A#F".to_owned(),
            vec!["lowercase-path"]
        )
    );
    assert_eq!(
        ap(&r, "http://other.example/Docs"),
        "http://other.example/Docs"
    );
    // Without hosts it is an error.
    let e = Rules::from_toml("version = 1\n[[rule]]\nkind = \"lowercase-path\"\n").unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.message.contains("hosts"), "{e}");
}

#[test]
fn drop_fragment() {
    let r = one("kind = \"drop-fragment\"");
    assert_eq!(
        apply(&r, "http://h/a?b#c"),
        ("http://h/a?b".to_owned(), vec!["drop-fragment"])
    );
    assert_eq!(ap(&r, "http://h/a#"), "http://h/a");
    assert_eq!(ap(&r, "urn:x:y#z"), "urn:x:y");
}

// ---------------------------------------------------------------------------------------
// Scopes
// ---------------------------------------------------------------------------------------

#[test]
fn host_scopes() {
    let r = one(
        "kind = \"drop-params\"\nnames = [\"ref\"]\nhosts = [\"example.com\", \"*.example.org\"]",
    );
    assert_eq!(ap(&r, "http://example.com/?ref=1"), "http://example.com/?");
    assert_eq!(
        ap(&r, "http://example.com./?ref=1"),
        "http://example.com./?"
    );
    assert_eq!(
        ap(&r, "http://www.example.com/?ref=1"),
        "http://www.example.com/?ref=1"
    );
    assert_eq!(
        ap(&r, "http://a.example.org/?ref=1"),
        "http://a.example.org/?"
    );
    assert_eq!(
        ap(&r, "http://a.b.example.org/?ref=1"),
        "http://a.b.example.org/?"
    );
    // `*.example.org` does not match `example.org` itself, nor a look-alike suffix.
    assert_eq!(
        ap(&r, "http://example.org/?ref=1"),
        "http://example.org/?ref=1"
    );
    assert_eq!(
        ap(&r, "http://badexample.org/?ref=1"),
        "http://badexample.org/?ref=1"
    );
    // No host, no scoped rule.
    assert_eq!(ap(&r, "/a?ref=1"), "/a?ref=1");
    // IDN scopes match both forms of the host.
    let r = one("kind = \"drop-fragment\"\nhosts = [\"bücher.de\"]");
    assert_eq!(
        ap(&r, "http://xn--bcher-kva.de/#x"),
        "http://xn--bcher-kva.de/"
    );
    assert_eq!(ap(&r, "http://bücher.de/#x"), "http://bücher.de/");
    // IP literals in any spelling of the pattern.
    let r = one("kind = \"drop-fragment\"\nhosts = [\"[2001:DB8:0::1]\", \"192.0.2.1\"]");
    assert_eq!(ap(&r, "http://[2001:db8::1]/#x"), "http://[2001:db8::1]/");
    assert_eq!(ap(&r, "http://192.0.2.1/#x"), "http://192.0.2.1/");
    // Scopes of later stages see the host after stage 1.
    let r = toml(
        "version = 1\n[[rule]]\nkind = \"strip-www\"\n\
         [[rule]]\nkind = \"drop-fragment\"\nhosts = [\"example.com\"]",
    );
    assert_eq!(ap(&r, "http://www.example.com/#x"), "http://example.com/");
}

#[test]
fn rules_built_in_code() {
    let r = Rules::new(vec![
        Rule::new(Action::DropParams(
            ParamFilter::with(
                &["sid"],
                false,
                ValueCondition {
                    hex_length: Some(4),
                    min_length: None,
                },
            )
            .unwrap(),
        )),
        Rule::new(Action::TrailingSlash(SlashPolicy::Remove))
            .scoped(HostScope::new(&["*.example.com"]).unwrap()),
    ]);
    assert_eq!(
        ap(&r, "http://a.example.com/x/?sid=abcd"),
        "http://a.example.com/x?"
    );
    assert!(ParamFilter::new(&["a=b"]).is_err());
    assert!(ParamFilter::new::<&str>(&[]).is_err());
    assert!(HostScope::new(&["*"]).is_err());
}

// ---------------------------------------------------------------------------------------
// Rules files
// ---------------------------------------------------------------------------------------

fn err_line(text: &str) -> (usize, String) {
    let e = Rules::from_toml(text).expect_err(text);
    (e.line, e.message)
}

#[test]
fn rules_file_errors_have_line_numbers() {
    // TOML syntax.
    assert_eq!(err_line("version = 1\n[[rule]\n").0, 2);
    // Unknown top-level key.
    assert_eq!(err_line("version = 1\n\nfoo = 2\n").0, 3);
    // Missing and unsupported versions.
    assert!(err_line("[[rule]]\nkind = \"sort-params\"\n")
        .1
        .contains("version"));
    assert_eq!(err_line("\nversion = 7\n").0, 2);
    // Unknown kind.
    let (line, msg) = err_line("version = 1\n[[rule]]\nkind = \"sort-param\"\n");
    assert_eq!(line, 3);
    assert!(msg.contains("sort-param"), "{msg}");
    // Unknown key in a rule.
    assert_eq!(
        err_line("version = 1\n[[rule]]\nkind = \"sort-params\"\n\nnmaes = []\n").0,
        5
    );
    // A key of another kind.
    let (line, msg) = err_line("version = 1\n[[rule]]\nkind = \"sort-params\"\npolicy = \"add\"\n");
    assert_eq!(line, 4);
    assert!(msg.contains("policy"), "{msg}");
    // Missing names (reported at the rule), empty names, a bad name, a bad host.
    assert_eq!(
        err_line("version = 1\n[[rule]]\nkind = \"drop-params\"\n").0,
        2
    );
    assert_eq!(
        err_line("version = 1\n[[rule]]\nkind = \"drop-params\"\nnames = []\n").0,
        4
    );
    assert_eq!(
        err_line(
            "version = 1\n[[rule]]\nkind = \"drop-params\"\nnames = [\n  \"ok\",\n  \"a&b\",\n]\n"
        )
        .0,
        6
    );
    assert_eq!(
        err_line("version = 1\n[[rule]]\nkind = \"drop-path-params\"\nnames = [\"a;b\"]\n").0,
        4
    );
    assert_eq!(
        err_line("version = 1\n[[rule]]\nkind = \"drop-fragment\"\nhosts = [\"a/b\"]\n").0,
        4
    );
    // Wrong types and values.
    assert_eq!(
        err_line("version = 1\n[[rule]]\nkind = \"strip-www\"\nnumbered = \"yes\"\n").0,
        4
    );
    assert_eq!(
        err_line("version = 1\n[[rule]]\nkind = \"trailing-slash\"\npolicy = \"sometimes\"\n").0,
        4
    );
    assert_eq!(
        err_line("version = 1\n[[rule]]\nkind = \"trailing-slash\"\n").0,
        2
    );
    // The Display form names the line.
    let e = Rules::from_toml("version = 1\n[[rule]]\nkind = 3\n").unwrap_err();
    assert!(e.to_string().starts_with("line 3"), "{e}");
}

#[test]
fn empty_rules_file_changes_nothing() {
    let r = toml("version = 1\n");
    assert!(r.is_empty());
    assert_eq!(
        ap(&r, "http://www.example.com./?#"),
        "http://www.example.com./?#"
    );
}

// ---------------------------------------------------------------------------------------
// Profiles
// ---------------------------------------------------------------------------------------

#[test]
fn crawler_is_crawler_2() {
    let newest = crawler();
    let v1 = Rules::profile("crawler@1").unwrap();
    let v2 = Rules::profile("crawler@2").unwrap();
    assert_eq!(newest.rules(), v2.rules());
    assert_ne!(newest.rules(), v1.rules());
    assert_eq!(newest.profile_name(), Some("crawler@2"));
    assert_eq!(v1.profile_name(), Some("crawler@1"));
    assert_eq!(v2.profile_name(), Some("crawler@2"));
    assert!(Rules::profile("crawler@3").is_none());
    assert!(Rules::profile_names().any(|n| n == "crawler"));
    assert!(Rules::profile_names().any(|n| n == "crawler@2"));
}

/// Issue: `crawler@1` kept `http://a/?&` but turned `http://a/?&utm_source=1` into
/// `http://a/`: dropping a parameter changed what happened to the empty pair beside it.
/// `crawler@2` removes empty pairs wherever they are; `crawler@1` keeps its old keys.
#[test]
fn crawler_2_removes_empty_pairs_whatever_their_neighbours() {
    let v1 = Rules::profile("crawler@1").unwrap();
    let v2 = Rules::profile("crawler@2").unwrap();
    let cases = [
        // (key, crawler@1, crawler@2)
        ("http://a/?&", "http://a/?&", "http://a/"),
        ("http://a/?&utm_source=1", "http://a/", "http://a/"),
        ("http://a/?&&", "http://a/?&&", "http://a/"),
        (
            "http://a/?a=1&&b=2",
            "http://a/?a=1&&b=2",
            "http://a/?a=1&b=2",
        ),
        (
            "http://a/?a=1&&utm_source=1&b=2",
            "http://a/?a=1&&b=2",
            "http://a/?a=1&b=2",
        ),
        ("http://a/?a=1&", "http://a/?a=1&", "http://a/?a=1"),
        ("http://a/?&a=1", "http://a/?&a=1", "http://a/?a=1"),
        (
            "http://a/?a=1&utm_source=1&",
            "http://a/?a=1&",
            "http://a/?a=1",
        ),
        // `=` is a pair with an empty name, not an empty pair.
        ("http://a/?=&a", "http://a/?=&a", "http://a/?=&a"),
        (
            "http://a/?a=1&b=2",
            "http://a/?a=1&b=2",
            "http://a/?a=1&b=2",
        ),
    ];
    for (key, one, two) in cases {
        assert_eq!(ap(&v1, key), one, "crawler@1 {key}");
        assert_eq!(ap(&v2, key), two, "crawler@2 {key}");
    }
    // A dropped parameter never changes what happens to the others: for any mix of empty
    // pairs, kept parameters and dropped ones, the key is the key of the kept ones alone.
    let pieces = ["", "a=1", "utm_source=2", "b", "gclid=3"];
    for x in pieces {
        for y in pieces {
            for z in pieces {
                let key = format!("http://a/?{x}&{y}&{z}");
                let kept: Vec<&str> = [x, y, z]
                    .into_iter()
                    .filter(|p| !p.is_empty() && !p.starts_with("utm_") && !p.starts_with("gclid"))
                    .collect();
                let want = if kept.is_empty() {
                    "http://a/".to_owned()
                } else {
                    format!("http://a/?{}", kept.join("&"))
                };
                assert_eq!(ap(&v2, &key), want, "{key}");
            }
        }
    }
    for rule in v2.rules() {
        assert!(
            matches!(
                rule.action,
                Action::DropParams(_)
                    | Action::DropPathParams(_)
                    | Action::DropEmptyParams
                    | Action::DropEmptyQuery
                    | Action::DropFragment
                    | Action::StripTrailingDot
            ),
            "{:?} is not fetch-safe",
            rule.action
        );
    }
}

#[test]
fn crawler_1_is_fetch_safe_only() {
    let r = Rules::profile("crawler@1").unwrap();
    // Pinned outputs: a change here is a new profile version, never an edit.
    let cases = [
        (
            "http://www.example.com./a/;jsessionid=ABC.node1?utm_source=x&b=2&a=1&gclid=1#top",
            "http://www.example.com/a/?b=2&a=1",
        ),
        ("http://example.com/?", "http://example.com/"),
        (
            "http://example.com/?fbclid=1&msclkid=2",
            "http://example.com/",
        ),
        (
            "http://example.com/A/?b=1&a=2",
            "http://example.com/A/?b=1&a=2",
        ),
        ("http://example.com/a/", "http://example.com/a/"),
        ("http://www2.example.com/", "http://www2.example.com/"),
        (
            "http://example.com/?sid=0123456789abcdef0123456789ABCDEF&sid=12",
            "http://example.com/?sid=12",
        ),
        (
            "http://example.com/?PHPSESSID=x&ASPSESSIONIDQQ=y&jsessionid=z",
            "http://example.com/",
        ),
        (
            "http://example.com/?sessionid=42",
            "http://example.com/?sessionid=42",
        ),
        (
            "http://example.com/?session_id=0123456789abcdefXYZ",
            "http://example.com/",
        ),
        ("http://example.com/#utm_source=x", "http://example.com/"),
    ];
    for (key, want) in cases {
        assert_eq!(ap(&r, key), want, "{key}");
    }
    for rule in r.rules() {
        assert!(
            matches!(
                rule.action,
                Action::DropParams(_)
                    | Action::DropPathParams(_)
                    | Action::DropEmptyQuery
                    | Action::DropFragment
                    | Action::StripTrailingDot
            ),
            "{:?} is not in crawler@1",
            rule.action
        );
        assert!(rule.scope.is_all());
    }
}

// ---------------------------------------------------------------------------------------
// Idempotence
// ---------------------------------------------------------------------------------------

/// Every kind at once, some scoped, for the property tests.
const EVERYTHING: &str = r#"
version = 1
[[rule]]
kind = "trailing-slash"
policy = "keep"
hosts = ["keep.example"]
[[rule]]
kind = "trailing-slash"
policy = "add"
hosts = ["*.example"]
[[rule]]
kind = "trailing-slash"
policy = "remove"
[[rule]]
kind = "strip-trailing-dot"
hosts = ["example.com"]
[[rule]]
kind = "strip-www"
numbered = true
hosts = ["*.example.com"]
[[rule]]
kind = "http-to-https"
hosts = ["example.com"]
[[rule]]
kind = "lowercase-path"
hosts = ["example.com", "*.example"]
[[rule]]
kind = "drop-path-params"
names = ["jsessionid", "x*"]
match-case = true
[[rule]]
kind = "drop-params"
names = ["utm_*", "b"]
[[rule]]
kind = "keep-params"
names = ["a", "b", "c", "utm_*", "A", "*%26*"]
hosts = ["*.example"]
[[rule]]
kind = "sort-params"
[[rule]]
kind = "drop-empty-query"
[[rule]]
kind = "drop-empty-params"
hosts = ["*.example", "example.com"]
[[rule]]
kind = "drop-fragment"
hosts = ["*.example"]
"#;

fn key_strategy() -> impl Strategy<Value = String> {
    let scheme = prop::sample::select(vec!["http:", "https:", "ftp:", "x:", ""]);
    let host = prop::sample::select(vec![
        "//example.com",
        "//example.com.",
        "//www.example.com.",
        "//www.www2.example.com",
        "//WWW.Example.COM:443",
        "//keep.example",
        "//a.example",
        "//www.com",
        "//u@www.a.example.:8080",
        "//[::1]",
        "//1.2.3.4",
        "//bücher.de",
        "",
    ]);
    let seg = prop::sample::select(vec![
        "a",
        "B",
        "",
        ".",
        "c;jsessionid=1.n",
        ";JSESSIONID=2",
        ";x=1;y=2",
        "d.html",
        "%2F",
        "é",
        "E;xa",
    ]);
    let path = prop::collection::vec(seg, 0..4).prop_map(|v| {
        if v.is_empty() {
            String::new()
        } else {
            format!("/{}", v.join("/"))
        }
    });
    let param = prop::sample::select(vec![
        "a=1",
        "a",
        "a=",
        "b=2",
        "B=3",
        "c",
        "",
        "utm_source=x",
        "UTM_X",
        "A=%26",
        "d%26e=1",
        "x=%3D",
        "é=1",
    ]);
    let query = prop::option::of(prop::collection::vec(param, 0..5).prop_map(|v| v.join("&")));
    let frag = prop::option::of(prop::sample::select(vec!["", "f", "utm_source=1", "A?b"]));
    (scheme, host, path, query, frag).prop_map(|(s, h, p, q, f)| {
        let mut k = format!("{s}{h}{p}");
        if let Some(q) = q {
            k.push('?');
            k.push_str(&q);
        }
        if let Some(f) = f {
            k.push('#');
            k.push_str(f);
        }
        k
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn apply_is_idempotent_and_keeps_keys_valid(raw in key_strategy()) {
        let everything = toml(EVERYTHING);
        for form in [Form::Uri, Form::Iri] {
            let n = Normalizer::new(Options::default().with_level(Level::Scheme).with_form(form).with_strict(true)).unwrap();
            let Ok(key) = n.normalize(&raw) else { continue };
            for rules in [&everything, &crawler()] {
                let once = ap(rules, &key);
                prop_assert!(IriRef::parse(&once).is_ok(), "{} -> {} invalid", key, once);
                let twice = ap(rules, &once);
                prop_assert_eq!(&twice, &once, "not idempotent on {}", key);
                // The result of a rule set on a scheme-rung key is still a scheme-rung key (an
                // empty one is an empty record, invalid as a record though a valid reference).
                if once.is_empty() {
                    continue;
                }
                let renormalized = n.normalize(&once).unwrap().into_owned();
                prop_assert_eq!(&renormalized, &once, "{} -> {} is not normal", key, once);
            }
        }
    }

    #[test]
    fn apply_never_panics_on_arbitrary_references(raw in "[a-z:/?#&=;.%0-9A-F@\\[\\]wé]{0,40}") {
        if IriRef::parse(&raw).is_ok() {
            let everything = toml(EVERYTHING);
            let once = ap(&everything, &raw);
            let twice = ap(&everything, &once);
            prop_assert_eq!(twice, once);
        }
    }
}

// ---------------------------------------------------------------------------------------
// The crawler and WHATWG conformance cases
// ---------------------------------------------------------------------------------------

/// The ids of the `crawler-*` and `whatwg` cases whose `expected` the pipeline
/// scheme rung + `crawler` profile reproduces (see `docs/protocol.md` for the others and
/// why they differ). A change in this set is a change in keys: update the table in the
/// docs and, if a profile changed, its version.
const REPRODUCED: &[&str] = &[
    "surt-normalize-scheme-009",
    "surt-normalize-scheme-010",
    "surt-normalize-scheme-012",
    "urlcanon-normalize-scheme-003",
    "urlcanon-normalize-scheme-008",
    "urlcanon-normalize-scheme-016",
    "urlcanon-normalize-scheme-021",
    "urlcanon-normalize-scheme-022",
    "urlcanon-normalize-scheme-032",
    "urlcanon-normalize-syntax-002",
    "urlcanon-normalize-syntax-005",
    "urlcanon-normalize-syntax-006",
    "w3lib-normalize-scheme-001",
    "w3lib-normalize-scheme-004",
    "w3lib-normalize-scheme-010",
    "w3lib-normalize-scheme-011",
    "w3lib-normalize-scheme-012",
    "w3lib-normalize-scheme-013",
    "w3lib-normalize-scheme-015",
    "w3lib-normalize-scheme-016",
    "w3lib-normalize-scheme-018",
    "w3lib-normalize-scheme-021",
    "w3lib-normalize-scheme-026",
    "w3lib-normalize-scheme-031",
    "wpt-via-rust-url-normalize-scheme-001",
    "wpt-via-rust-url-normalize-scheme-004",
    "wpt-via-rust-url-normalize-scheme-007",
    "wpt-via-rust-url-normalize-scheme-015",
    "wpt-via-rust-url-normalize-scheme-016",
    "wpt-via-rust-url-normalize-scheme-019",
    "wpt-via-rust-url-resolve-001",
    "wpt-via-rust-url-resolve-008",
    "wpt-via-rust-url-resolve-022",
];

/// What `irinorm normalize --level protocol --profile crawler` gives for an input (lenient
/// repairs, resolution against the base, scheme rung in uri form, then the profile).
fn crawler_key(input: &str, base: Option<&str>, strict: bool, rules: &Rules) -> Option<String> {
    let mut scratch = String::new();
    let input = prepare_str(
        input,
        irinorm::Repair::Lenient,
        &mut scratch,
        &mut Repairs::default(),
    )
    .ok()?;
    let resolved;
    let input = match base {
        Some(b) => {
            let b = IriRef::parse(b).ok()?;
            let r = IriRef::parse(input).ok()?;
            let mut out = String::new();
            resolve_components(
                &b.components(),
                &r.components(),
                if strict {
                    irinorm::Resolution::Strict
                } else {
                    irinorm::Resolution::NonStrict
                },
                &mut out,
            );
            resolved = out;
            resolved.as_str()
        }
        None => input,
    };
    let n = Normalizer::new(
        Options::default()
            .with_strict(true)
            .with_level(Level::Scheme)
            .with_form(Form::Uri),
    )
    .ok()?;
    let key = n.normalize(input).ok()?;
    Some(rules.apply_to_string(&key))
}

#[test]
fn crawler_profile_against_crawler_and_whatwg_cases() {
    let Some(text) = crate::common::shared_cases() else {
        crate::common::skipped("protocol", "../shared/conformance/cases.jsonl is absent");
        return;
    };
    let rules = crawler();
    let empty = Rules::default();
    let mut without_profile = BTreeSet::new();
    let mut reproduced = BTreeSet::new();
    let mut table = Vec::new();
    let mut total = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).expect("valid JSON line");
        let semantics = case["semantics"].as_str().unwrap_or("");
        if !(semantics.starts_with("crawler-") || semantics == "whatwg") {
            continue;
        }
        total += 1;
        let id = case["id"].as_str().unwrap_or("").to_owned();
        let input = case["input"].as_str().unwrap_or("");
        let base = case["base"].as_str();
        let strict = case["options"]["strict"].as_bool().unwrap_or(true);
        let expected = case["expected"].as_str().map(str::to_owned);
        let ours = crawler_key(input, base, strict, &rules);
        if crawler_key(input, base, strict, &empty) == expected {
            without_profile.insert(id.clone());
        }
        if ours == expected {
            reproduced.insert(id);
        } else {
            table.push(format!(
                "| `{id}` | `{}` | `{}` | `{}` |",
                input.escape_debug(),
                expected.as_deref().unwrap_or("(rejected)").escape_debug(),
                ours.as_deref().unwrap_or("(rejected)").escape_debug(),
            ));
        }
    }
    println!(
        "crawler profile reproduces {} of {} crawler-*/whatwg cases",
        reproduced.len(),
        total
    );
    println!("reproduced: {reproduced:?}");
    println!(
        "the scheme rung alone reproduces {}; the profile adds {:?} and loses {:?}",
        without_profile.len(),
        reproduced.difference(&without_profile).collect::<Vec<_>>(),
        without_profile.difference(&reproduced).collect::<Vec<_>>(),
    );
    for row in &table {
        println!("{row}");
    }
    let want: BTreeSet<String> = REPRODUCED.iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(
        reproduced, want,
        "the set of reproduced cases changed: update REPRODUCED and docs/protocol.md"
    );
}
