//! RFC 3986 §5.2 resolution (RFC 3987 §6.5): no panic; for a valid reference and a valid
//! absolute base the result, strict or not, parses as an absolute IRI (`IRI`: a scheme,
//! maybe a fragment), keeps the reference's fragment, and shows no `.`/`..` segment in its
//! path unless that path is the base's, taken as it is.
//!
//! Input: `base LF reference`; without an LF the whole input is the reference against
//! the base of RFC 3986 §5.4.

#![no_main]

#[path = "common.rs"]
mod common;

use common::*;
use irinorm::{check, Grammar, IriRef};
use irinorm::internals::has_dot_segments;
use irinorm::resolve;
use libfuzzer_sys::fuzz_target;

const RFC_BASE: &str = "http://a/b/c/d;p?q";

fuzz_target!(|data: &[u8]| {
    let (base, reference) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (prepared(&data[..i]), prepared(&data[i + 1..])),
        None => (Some(RFC_BASE.to_owned()), prepared(data)),
    };
    let (Some(base), Some(reference)) = (base, reference) else {
        return;
    };
    for strict in [true, false] {
        let r = resolve(&reference, &base, if strict { irinorm::Resolution::Strict } else { irinorm::Resolution::NonStrict });
        let (Ok(bv), Ok(rv)) = (IriRef::parse(&base), IriRef::parse(&reference)) else {
            assert!(r.is_err(), "invalid input resolved: {base:?} {reference:?}");
            continue;
        };
        if !bv.is_absolute() {
            assert!(r.is_err(), "relative base accepted: {base:?}");
            continue;
        }
        let t = match r {
            Ok(t) => t,
            Err(e) => panic!("{reference:?} against {base:?} (strict={strict}): {e}"),
        };
        let ctx = format!("{reference:?} against {base:?} (strict={strict}) -> {t:?}");
        if let Err(e) = check(&t, Grammar::Iri) {
            panic!("result is not an absolute IRI ({e}): {ctx}");
        }
        let tv = IriRef::parse(&t).unwrap();
        assert!(tv.is_absolute(), "{ctx}");
        assert_eq!(tv.fragment(), rv.fragment(), "fragment: {ctx}");
        // remove_dot_segments ran on the path (RFC 3986 §5.2.2) unless the base's path was
        // taken as it is (an empty reference path, no authority, and a scheme that does not
        // count). The guard "/." before a path starting with "//" without authority stays.
        let base_path_kept =
            rv.path().is_empty() && rv.authority().is_none() && !(strict && rv.scheme().is_some());
        if !base_path_kept {
            let p = tv.path();
            let p = match p.strip_prefix("/.") {
                Some(rest) if tv.authority().is_none() && rest.starts_with("//") => rest,
                _ => p,
            };
            assert!(!has_dot_segments(p), "dot segment left: {ctx}");
        }
    }
});
