//! The parser never panics; a valid reference's components, put back together, give the
//! input; the repairs of a raw line never panic and give text the parser accepts or
//! rejects with an error (never a panic).

#![no_main]

use irinorm::{check, Grammar, IriRef};
use irinorm::internals::prepare;
use irinorm::Repairs;
use libfuzzer_sys::fuzz_target;

const GRAMMARS: [Grammar; 6] = [
    Grammar::IriReference,
    Grammar::Iri,
    Grammar::AbsoluteIri,
    Grammar::UriReference,
    Grammar::Uri,
    Grammar::AbsoluteUri,
];

fn reassembles(input: &str) {
    let Ok(view) = IriRef::parse(input) else {
        for g in GRAMMARS {
            assert!(
                check(input, g).is_err(),
                "{input:?} invalid but passes {g:?}"
            );
        }
        return;
    };
    assert_eq!(view.as_str(), input);
    let mut re = String::new();
    if let Some(s) = view.scheme() {
        re.push_str(s);
        re.push(':');
    }
    if let Some(a) = view.authority() {
        let mut a2 = String::new();
        if let Some(u) = view.userinfo() {
            a2.push_str(u);
            a2.push('@');
        }
        a2.push_str(view.host().expect("an authority has a host"));
        if let Some(p) = view.port() {
            a2.push(':');
            a2.push_str(p);
        }
        assert_eq!(a2, a, "authority of {input:?}");
        re.push_str("//");
        re.push_str(a);
    } else {
        assert!(view.host().is_none(), "{input:?}: host without authority");
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
    assert_eq!(re, input, "components of {input:?} do not reassemble");
    assert_eq!(view.is_absolute(), view.scheme().is_some());
    // The other grammars agree with what the view shows.
    for g in GRAMMARS {
        let ok = check(input, g).is_ok();
        let expect = (!g.ascii_only() || input.is_ascii())
            && (!g.needs_scheme() || view.scheme().is_some())
            && (!g.forbids_fragment() || view.fragment().is_none());
        assert_eq!(ok, expect, "{input:?} against {g:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        reassembles(s);
    }
    for strict in [false, true] {
        let mut scratch = String::new();
        let mut repairs = Repairs::default();
        if let Ok(text) = prepare(
            data,
            if strict {
                irinorm::Repair::Strict
            } else {
                irinorm::Repair::Lenient
            },
            &mut scratch,
            &mut repairs,
        ) {
            if strict {
                assert_eq!(text.as_bytes(), data, "strict prepare changed the record");
            }
            reassembles(text);
        }
    }
});
