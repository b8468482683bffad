//! Reference resolution (RFC 3986 §5.2, RFC 3987 §6.5) and recomposition (RFC 3986 §5.3).

use crate::iri::components::{write_query_fragment, Components};
use crate::iri::error::{Error, ErrorKind};
use crate::iri::parse::IriRef;

/// What resolution does with a reference whose scheme is the base's (RFC 3986 §5.2.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Resolution {
    /// A strict parser keeps the scheme: `http:g` stays `http:g` (the default).
    #[default]
    Strict,
    /// A non-strict parser ignores it, for backward compatibility: against `http://a/b/c/d`,
    /// `http:g` is `g` and resolves to `http://a/b/c/g` (compared ASCII case-insensitively).
    NonStrict,
}

/// Resolves `reference` against `base` (RFC 3986 §5.2, which RFC 3987 §6.5 applies to IRIs
/// unchanged) and appends the target reference, recomposed as in RFC 3986 §5.3, to `out`.
///
/// * §5.2.2 (transform references): with [`Resolution::NonStrict`], a reference scheme equal to the
///   base scheme (compared ASCII case-insensitively) is ignored, as that section allows for
///   backward compatibility (`http:g` against `http://a/b/c/d;p?q` gives
///   `http://a/b/c/g`); with [`Resolution::Strict`] it is kept (`http:g`).
/// * §5.2.3 (merge paths), including the base with an authority and an empty path, whose
///   merge is `/` followed by the reference path.
/// * §5.2.4 (remove dot segments) via `iri::path::remove_dot_segments`. Only segments
///   that are exactly `.` or `..` count; percent-encoded dots (`%2E`) are not dot segments.
/// * §5.3 (recomposition), with the extra rule of [`Components::write`]: with no authority,
///   a path starting with `//` is written after `/.`.
///
/// The caller must pass a base that has a scheme (an absolute URI/IRI, §5.2.1); with no
/// base scheme the result is written without a scheme and nothing else changes. The base is
/// used as given: it is not normalized, and when the reference path is empty the base path
/// is copied without dot removal, as §5.2.2 says. The base's fragment is ignored; the
/// target's fragment is the reference's. The scheme is written as spelled by whichever
/// reference it comes from.
///
/// Nothing is allocated except by growing `out`: the merged path of §5.2.3 is not built,
/// its dot segments are removed while reading the base directory and the reference path in
/// turn.
pub fn resolve_components(
    base: &Components<'_>,
    reference: &Components<'_>,
    mode: Resolution,
    out: &mut String,
) {
    let ref_scheme = match (reference.scheme, base.scheme) {
        (Some(r), Some(b)) if mode == Resolution::NonStrict && r.eq_ignore_ascii_case(b) => None,
        (r, _) => r,
    };

    let scheme;
    let authority;
    let query;
    let path: TargetPath<'_>;
    if ref_scheme.is_some() {
        scheme = ref_scheme;
        authority = reference.authority;
        path = TargetPath::RemoveDots(reference.path);
        query = reference.query;
    } else {
        scheme = base.scheme;
        if reference.authority.is_some() {
            authority = reference.authority;
            path = TargetPath::RemoveDots(reference.path);
            query = reference.query;
        } else {
            authority = base.authority;
            if reference.path.is_empty() {
                path = TargetPath::Verbatim(base.path);
                query = reference.query.or(base.query);
            } else {
                path = if reference.path.starts_with('/') {
                    TargetPath::RemoveDots(reference.path)
                } else {
                    TargetPath::Merge(merge_dir(base), reference.path)
                };
                query = reference.query;
            }
        }
    }

    if let Some(scheme) = scheme {
        out.push_str(scheme);
        out.push(':');
    }
    if let Some(authority) = authority {
        out.push_str("//");
        out.push_str(authority);
    }
    let path_start = out.len();
    match path {
        TargetPath::Verbatim(p) => out.push_str(p),
        TargetPath::RemoveDots(p) => crate::iri::path::remove_dot_segments(p, out),
        TargetPath::Merge(dir, p) => crate::iri::path::remove_dot_segments_merged(dir, p, out),
    }
    if authority.is_none() && out[path_start..].starts_with("//") {
        out.insert_str(path_start, "/.");
    }
    write_query_fragment(query, reference.fragment, out);
}

/// How the target path of RFC 3986 §5.2.2 is obtained.
enum TargetPath<'a> {
    /// Copied as is (the base path, when the reference path is empty).
    Verbatim(&'a str),
    /// `remove_dot_segments` of the given path.
    RemoveDots(&'a str),
    /// `remove_dot_segments(merge(base, reference))`, the merge being `dir` followed by the
    /// reference path (RFC 3986 §5.2.3).
    Merge(&'a str, &'a str),
}

/// The part of the base path that RFC 3986 §5.2.3 keeps in a merge: `/` when the base has
/// an authority and an empty path, otherwise everything up to and including the last `/`
/// (empty when there is none). The result is empty or ends with `/`.
fn merge_dir<'b>(base: &Components<'b>) -> &'b str {
    if base.authority.is_some() && base.path.is_empty() {
        "/"
    } else {
        match memchr::memrchr(b'/', base.path.as_bytes()) {
            Some(i) => &base.path[..=i],
            None => "",
        }
    }
}

/// Resolves `reference` against the absolute IRI `base` (RFC 3986 §5.2.2, as `mode` says),
/// returning the target. Both are checked against the IRI grammar
/// first; a base without a scheme is an error of kind [`ErrorKind::Relative`]. The result is
/// not normalized.
///
/// ```
/// use irinorm::{resolve, Resolution};
/// assert_eq!(resolve("../g?y", "http://a/b/c/d;p?q", Resolution::Strict).unwrap(), "http://a/b/g?y");
/// assert_eq!(resolve("http:g", "http://a/b/c/d;p?q", Resolution::NonStrict).unwrap(), "http://a/b/c/g");
/// ```
pub fn resolve(reference: &str, base: &str, mode: Resolution) -> Result<String, Error> {
    let base_view = IriRef::parse(base)?;
    if !base_view.is_absolute() {
        return Err(Error::new(
            ErrorKind::Relative,
            1,
            "the base must be an absolute IRI",
        ));
    }
    let reference = IriRef::parse(reference)?;
    let mut out = String::with_capacity(base.len() + reference.as_str().len());
    resolve_components(
        &base_view.components(),
        &reference.components(),
        mode,
        &mut out,
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Splits a reference into components the way the regular expression of RFC 3986
    /// Appendix B does (`^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?`), by hand.
    fn split(s: &str) -> Components<'_> {
        let mut c = Components::default();
        let mut rest = s;
        if let Some(i) = rest.find([':', '/', '?', '#']) {
            if i > 0 && rest.as_bytes()[i] == b':' {
                c.scheme = Some(&rest[..i]);
                rest = &rest[i + 1..];
            }
        }
        if let Some(r) = rest.strip_prefix("//") {
            let end = r.find(['/', '?', '#']).unwrap_or(r.len());
            c.authority = Some(&r[..end]);
            rest = &r[end..];
        }
        let end = rest.find(['?', '#']).unwrap_or(rest.len());
        c.path = &rest[..end];
        rest = &rest[end..];
        if let Some(r) = rest.strip_prefix('?') {
            let end = r.find('#').unwrap_or(r.len());
            c.query = Some(&r[..end]);
            rest = &r[end..];
        }
        if let Some(r) = rest.strip_prefix('#') {
            c.fragment = Some(r);
        }
        c
    }

    fn resolve(base: &str, reference: &str, strict: bool) -> String {
        let strict = if strict {
            Resolution::Strict
        } else {
            Resolution::NonStrict
        };
        let mut out = String::new();
        resolve_components(&split(base), &split(reference), strict, &mut out);
        out
    }

    fn write(c: &Components<'_>) -> String {
        let mut out = String::new();
        c.write(&mut out);
        out
    }

    const BASE: &str = "http://a/b/c/d;p?q";

    #[test]
    fn split_helper() {
        let c = split("http://a/b/c/d;p?q#f");
        assert_eq!(
            c,
            Components {
                scheme: Some("http"),
                authority: Some("a"),
                path: "/b/c/d;p",
                query: Some("q"),
                fragment: Some("f"),
            }
        );
        assert_eq!(split("g:h").scheme, Some("g"));
        assert_eq!(split("./g:h").scheme, None);
        assert_eq!(split(":x").scheme, None);
        assert_eq!(split("//g").authority, Some("g"));
        assert_eq!(split("").path, "");
        assert_eq!(split("?").query, Some(""));
        assert_eq!(split("#").fragment, Some(""));
        assert_eq!(split("g?y#s/./x").query, Some("y"));
    }

    // The RFC 3986 §5.4.1 and §5.4.2 examples, in both modes, are in tests/rfc_vectors.rs.

    /// RFC 3986 §5.2.2: the non-strict transform ignores a reference scheme equal to the
    /// base's, compared case-insensitively; the base's spelling is kept.
    #[test]
    fn non_strict_scheme_comparison() {
        assert_eq!(resolve(BASE, "http:g", true), "http:g");
        assert_eq!(resolve(BASE, "http:g", false), "http://a/b/c/g");
        assert_eq!(resolve(BASE, "HTTP:g", false), "http://a/b/c/g");
        assert_eq!(resolve(BASE, "HTTP:g", true), "HTTP:g");
        assert_eq!(resolve(BASE, "https:g", false), "https:g");
    }

    #[test]
    fn percent_encoded_dots_are_not_dot_segments() {
        assert_eq!(resolve(BASE, "%2E%2E/g", false), "http://a/b/c/%2E%2E/g");
        assert_eq!(resolve(BASE, "%2e/g", false), "http://a/b/c/%2e/g");
        assert_eq!(resolve(BASE, "/%2E%2E/g", false), "http://a/%2E%2E/g");
    }

    #[test]
    fn base_without_authority() {
        assert_eq!(resolve("foo:bar", "baz", true), "foo:baz");
        assert_eq!(resolve("foo:a/b", "c", true), "foo:a/c");
        assert_eq!(resolve("foo:a/b", "../c", true), "foo:/c");
        assert_eq!(resolve("foo:bar", "", true), "foo:bar");
        assert_eq!(resolve("foo:bar?q", "#f", true), "foo:bar?q#f");
        assert_eq!(
            resolve("mailto:x@y", "?subject=hi", true),
            "mailto:x@y?subject=hi"
        );
    }

    #[test]
    fn base_with_authority_and_empty_path() {
        assert_eq!(resolve("http://a", "g", true), "http://a/g");
        assert_eq!(resolve("http://a", "../g", true), "http://a/g");
        assert_eq!(resolve("http://a?q", "", true), "http://a?q");
        assert_eq!(resolve("http://a?q", "?r", true), "http://a?r");
        assert_eq!(resolve("http://a", ".", true), "http://a/");
    }

    #[test]
    fn base_fragment_ignored_and_base_used_as_given() {
        assert_eq!(resolve("http://a/b#f", "", true), "http://a/b");
        assert_eq!(resolve("http://a/b#f", "?x", true), "http://a/b?x");
        // An empty reference path copies the base path without dot removal (§5.2.2).
        assert_eq!(
            resolve("http://A/./b/../c?q", "", true),
            "http://A/./b/../c?q"
        );
        // Otherwise the whole merged path, base part included, loses its dot segments.
        assert_eq!(resolve("http://a/./b/../c/d", "e", true), "http://a/c/e");
    }

    #[test]
    fn authority_cannot_appear_from_path() {
        // merge("/b/c", "..//x") = "/b/..//x", dot removal gives "//x".
        assert_eq!(resolve("a:/b/c", "..//x", true), "a:/.//x");
        assert_eq!(resolve("a:/b/c", "..//x?q#f", true), "a:/.//x?q#f");
        assert_eq!(resolve("a:/", ".//x", true), "a:/.//x");
        assert_eq!(resolve("a:/b", "/.//x", true), "a:/.//x");
        assert_eq!(resolve("http://h/b", "a:/.//x", true), "a:/.//x");
        // With an authority no prefix is needed.
        assert_eq!(resolve("http://h/b/c", "..//x", true), "http://h//x");
        // A base path kept verbatim gets the prefix too.
        let base = Components {
            scheme: Some("a"),
            path: "//x",
            ..Components::default()
        };
        let mut out = String::new();
        resolve_components(&base, &split("?q"), Resolution::Strict, &mut out);
        assert_eq!(out, "a:/.//x?q");
    }

    #[test]
    fn write_recomposes() {
        for s in [
            "http://a/b/c/d;p?q#f",
            "g:h",
            "//g",
            "",
            "?",
            "#",
            "a:",
            "a://",
            "a:?#",
            "../g",
            "/.//x",
            "foo:bar?baz#qux",
        ] {
            assert_eq!(write(&split(s)), s, "{s:?}");
        }
        let c = Components {
            scheme: Some("a"),
            path: "//x",
            ..Components::default()
        };
        assert_eq!(write(&c), "a:/.//x");
        let c = Components {
            path: "//x",
            query: Some("q"),
            ..Components::default()
        };
        assert_eq!(write(&c), "/.//x?q");
        let c = Components {
            scheme: Some("a"),
            authority: Some(""),
            path: "//x",
            ..Default::default()
        };
        assert_eq!(write(&c), "a:////x");
        let mut out = String::from("prefix ");
        split("http://a/b").write(&mut out);
        assert_eq!(out, "prefix http://a/b");
    }

    #[test]
    fn appends_to_out() {
        let mut out = String::from("<");
        resolve_components(&split(BASE), &split("../g"), Resolution::Strict, &mut out);
        assert_eq!(out, "<http://a/b/g");
        let mut out = String::from("x//");
        resolve_components(
            &split("a:/b/c"),
            &split("..//x"),
            Resolution::Strict,
            &mut out,
        );
        assert_eq!(out, "x//a:/.//x");
    }

    proptest::proptest! {
        /// Whatever the reference path, a target without an authority never re-reads as
        /// having one, and re-reading the target gives back the same target.
        #[test]
        fn no_spurious_authority(
            base in "a:(/?[a-z.]{1,3}(/[a-z.]{0,3}){0,3})?",
            r in "[a-z./]{0,12}",
        ) {
            // A network-path reference legitimately brings an authority.
            proptest::prop_assume!(!r.starts_with("//"));
            let out = resolve(&base, &r, true);
            proptest::prop_assert!(out.starts_with("a:"));
            proptest::prop_assert_eq!(split(&out).authority, None);
            let again = write(&split(&out));
            proptest::prop_assert_eq!(&again, &out);
        }
    }

    #[test]
    fn many_parent_segments_are_fast() {
        let n = 100_000;
        let reference = format!("{}g", "../".repeat(n));
        let t = std::time::Instant::now();
        assert_eq!(resolve(BASE, &reference, true), "http://a/g");
        let reference = format!("{}g", "./".repeat(n));
        assert_eq!(resolve(BASE, &reference, true), "http://a/b/c/g");
        let reference = format!("/{}", "x/../".repeat(n));
        assert_eq!(resolve(BASE, &reference, true), "http://a/");
        assert!(
            t.elapsed() < std::time::Duration::from_secs(30), // a quadratic walk would take far longer; not a speed claim
            "{:?}",
            t.elapsed()
        );
    }
}
