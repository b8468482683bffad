//! RFC 3987 §3.1 / §3.2 mapping: `to_uri` gives an ASCII `URI-reference`, is idempotent and
//! the identity on URIs; `to_iri` gives an `IRI-reference` and is idempotent; and
//! `to_uri(to_iri(u))` is `u` up to percent-encoding hex case and percent-encoded
//! unreserved characters (`pct_canon`, the definition of tests/properties.rs). Invalid
//! references are rejected by both.

#![no_main]

#[path = "common.rs"]
mod common;

use common::*;
use irinorm::{check, Grammar, IriRef};
use irinorm::{to_iri, to_uri};
use libfuzzer_sys::fuzz_target;

fn round_trip(input: &str) {
    if IriRef::parse(input).is_err() {
        assert!(
            to_uri(input, irinorm::HostMapping::PercentEncode).is_err(),
            "{input:?}"
        );
        assert!(
            to_uri(input, irinorm::HostMapping::ToAscii).is_err(),
            "{input:?}"
        );
        assert!(to_iri(input).is_err(), "{input:?}");
        return;
    }
    let u = to_uri(input, irinorm::HostMapping::PercentEncode)
        .unwrap()
        .into_owned();
    assert!(u.is_ascii(), "{input:?} -> {u:?}");
    assert!(
        check(&u, Grammar::UriReference).is_ok(),
        "{input:?} -> {u:?}"
    );
    assert_eq!(
        to_uri(&u, irinorm::HostMapping::PercentEncode).unwrap(),
        u.as_str(),
        "to_uri not idempotent"
    );
    if input.is_ascii() {
        assert_eq!(u, input, "to_uri changed a URI");
    }
    // With ToASCII: either an error of kind idna, or an ASCII URI reference.
    if let Ok(ua) = to_uri(input, irinorm::HostMapping::ToAscii) {
        assert!(ua.is_ascii(), "{input:?} -> {ua:?}");
        assert!(
            check(&ua, Grammar::UriReference).is_ok(),
            "{input:?} -> {ua:?}"
        );
    }
    let i = to_iri(&u).unwrap().into_owned();
    assert!(check(&i, Grammar::IriReference).is_ok(), "{u:?} -> {i:?}");
    assert!(!i.chars().any(is_bidi_format), "{u:?} -> {i:?}: raw bidi");
    assert_eq!(
        to_iri(&i).unwrap(),
        i.as_str(),
        "to_iri not idempotent for {u:?}"
    );
    let back = to_uri(&i, irinorm::HostMapping::PercentEncode)
        .unwrap()
        .into_owned();
    assert_eq!(
        pct_canon(&back),
        pct_canon(&u),
        "round trip {u:?} -> {i:?} -> {back:?}"
    );
    // to_iri never decodes a reserved character or %25.
    assert_eq!(
        protected_encodings(&i),
        protected_encodings(&u),
        "{u:?} -> {i:?}"
    );
}

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        round_trip(s);
    }
    if let Some(p) = prepared(data) {
        round_trip(&p);
    }
});
