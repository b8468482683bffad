//! Mapping between IRIs and URIs: RFC 3987 §3.1 (IRI → URI) and §3.2 (URI → IRI).
//!
//! [`to_uri`] percent-encodes every `ucschar` and `iprivate` as UTF-8 with uppercase hex and
//! changes nothing else (§3.1 step 2); with `ascii_host` it first replaces a non-ASCII
//! `ireg-name` by its ToASCII form for schemes known to use DNS names (the optional step of
//! §3.1). [`to_iri`] follows §3.2 steps 1–5: decode percent-encodings except `%25`,
//! reserved characters and ASCII that URIs forbid; re-encode octets that are not strictly
//! valid UTF-8 and characters an IRI may not hold raw in that component.
//!
//! Both return the input borrowed when nothing changes.

use std::borrow::Cow;

use crate::iri::error::{Error, ErrorKind};
use crate::iri::host;
use crate::iri::parse::{HostKind, IriRef};
use crate::iri::percent::{self, Recode};
use crate::iri::scheme;

/// The §3.1 step 2 policy: raw non-ASCII characters become `%XX`; nothing else changes.
const TO_URI: Recode = Recode {
    decode_unreserved: false,
    uppercase_hex: false,
    encode_non_ascii: true,
    decode_utf8: false,
    in_query: false,
    lowercase: false,
};

/// The §3.2 policy. Step 2 decodes unreserved ASCII too (every ASCII octet that is not `%`,
/// reserved, or forbidden in URIs is unreserved); encodings that stay keep their case.
const TO_IRI: Recode = Recode {
    decode_unreserved: true,
    uppercase_hex: false,
    encode_non_ascii: false,
    decode_utf8: true,
    in_query: false,
    lowercase: false,
};

/// How [`to_uri`] writes a host name that holds non-ASCII characters (RFC 3987 §3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HostMapping {
    /// Percent-encode its UTF-8, as for every other component (the mapping of §3.1 step 2).
    #[default]
    PercentEncode,
    /// Convert it to its ToASCII form (UTS #46, A-labels) when the scheme is known to use
    /// DNS names (the optional step of §3.1); if that fails the IRI "cannot be resolved"
    /// and [`to_uri`] returns an error of kind [`ErrorKind::Idna`].
    ToAscii,
}

/// Maps an IRI reference to a URI reference (RFC 3987 §3.1), writing non-ASCII host names
/// as `host` says.
pub fn to_uri(iri: &str, host: HostMapping) -> Result<Cow<'_, str>, Error> {
    let view = IriRef::parse(iri)?;
    let mut out = String::new();
    if write_uri(&view, host, &mut out)? {
        Ok(Cow::Owned(out))
    } else {
        Ok(Cow::Borrowed(iri))
    }
}

/// Writes the URI form of `view` into `out` and tells whether it differs from the input.
fn write_uri(
    view: &IriRef<'_>,
    host_mapping: HostMapping,
    out: &mut String,
) -> Result<bool, Error> {
    let text = view.as_str();
    if text.is_ascii() {
        return Ok(false);
    }
    out.clear();
    out.reserve(text.len() + 16);
    let dns =
        host_mapping == HostMapping::ToAscii && view.scheme().is_some_and(scheme::uses_dns_host);
    match view.host() {
        Some(h) if dns && view.host_kind() == HostKind::RegName && !h.is_ascii() => {
            let host_start = h.as_ptr() as usize - text.as_ptr() as usize;
            percent::recode(&text[..host_start], TO_URI, out);
            if host::to_ascii_host(h, out).is_err() {
                return Err(Error::at_byte(
                    ErrorKind::Idna,
                    text,
                    host_start,
                    "host fails IDNA ToASCII (RFC 3987 §3.1)",
                ));
            }
            percent::recode(&text[host_start + h.len()..], TO_URI, out);
        }
        _ => percent::recode(text, TO_URI, out),
    }
    Ok(true)
}

/// Converts a URI reference to an IRI reference (RFC 3987 §3.2, steps 1–5).
///
/// The input may already hold non-ASCII characters (every URI is an IRI); they are kept.
pub fn to_iri(uri: &str) -> Result<Cow<'_, str>, Error> {
    let view = IriRef::parse(uri)?;
    Ok(iri_of(&view))
}

/// [`to_iri`] of a reference parsed already.
pub(crate) fn iri_of<'a>(view: &IriRef<'a>) -> Cow<'a, str> {
    let uri = view.as_str();
    if !uri.contains('%') {
        return Cow::Borrowed(uri);
    }
    let mut out = String::with_capacity(uri.len());
    write_iri(view, &mut out);
    if out == uri {
        Cow::Borrowed(uri)
    } else {
        Cow::Owned(out)
    }
}

/// Appends the §3.2 conversion of `view` to `out`, component by component, so that
/// `iprivate` is decoded in the query only and IP literals are copied as they are.
fn write_iri(view: &IriRef<'_>, out: &mut String) {
    if let Some(s) = view.scheme() {
        out.push_str(s);
        out.push(':');
    }
    if view.authority().is_some() {
        out.push_str("//");
        if let Some(u) = view.userinfo() {
            percent::recode(u, TO_IRI, out);
            out.push('@');
        }
        let h = view.host().unwrap_or("");
        if view.host_kind() == HostKind::RegName {
            percent::recode(h, TO_IRI, out);
        } else {
            out.push_str(h);
        }
        if let Some(p) = view.port() {
            out.push(':');
            out.push_str(p);
        }
    }
    percent::recode(view.path(), TO_IRI, out);
    if let Some(q) = view.query() {
        out.push('?');
        percent::recode(
            q,
            Recode {
                in_query: true,
                ..TO_IRI
            },
            out,
        );
    }
    if let Some(f) = view.fragment() {
        out.push('#');
        percent::recode(f, TO_IRI, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3987_section_3_1_example() {
        // §3.1: "http://résumé.example.org" may be converted to
        // "http://xn--rsum-bpad.example.org" instead of "http://r%C3%A9sum%C3%A9.example.org".
        let iri = "http://r\u{e9}sum\u{e9}.example.org";
        assert_eq!(
            to_uri(iri, crate::HostMapping::PercentEncode).unwrap(),
            "http://r%C3%A9sum%C3%A9.example.org"
        );
        assert_eq!(
            to_uri(iri, crate::HostMapping::ToAscii).unwrap(),
            "http://xn--rsum-bpad.example.org"
        );
    }

    #[test]
    fn to_uri_is_the_identity_on_uris_and_borrows() {
        let u = "http://a/%e9?x#y";
        assert!(matches!(
            to_uri(u, crate::HostMapping::ToAscii).unwrap(),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn ascii_host_applies_to_dns_schemes_only_and_never_to_the_query() {
        assert_eq!(
            to_uri("foo://é/", crate::HostMapping::ToAscii).unwrap(),
            "foo://%C3%A9/",
            "not a DNS scheme"
        );
        assert_eq!(
            to_uri("http://é.example:8080/?é", crate::HostMapping::ToAscii).unwrap(),
            "http://xn--9ca.example:8080/?%C3%A9"
        );
    }

    #[test]
    fn ascii_host_keeps_the_case_of_ascii_labels() {
        // RFC 3490 §4.1 step 1: Nameprep (and its case folding) runs only for a label with
        // non-ASCII code points; case is the ladder's business, not the mapping's.
        assert_eq!(
            to_uri("HTTP://É.COM/", crate::HostMapping::ToAscii).unwrap(),
            "HTTP://xn--9ca.COM/"
        );
        assert_eq!(
            to_uri("http://Ex.Bücher.ORG/É", crate::HostMapping::ToAscii).unwrap(),
            "http://Ex.xn--bcher-kva.ORG/%C3%89"
        );
    }

    #[test]
    fn to_iri_follows_section_3_2() {
        assert_eq!(
            to_iri("http://www.example.org/D%C3%BCrst").unwrap(),
            "http://www.example.org/Dürst"
        );
        assert_eq!(
            to_iri("http://www.example.org/r%E9sum%E9.html").unwrap(),
            "http://www.example.org/r%E9sum%E9.html"
        );
        assert_eq!(
            to_iri("http://xn--99zt52a.example.org/%e2%80%ae").unwrap(),
            "http://xn--99zt52a.example.org/%E2%80%AE"
        );
        assert_eq!(to_iri("/a%2fb%25%41").unwrap(), "/a%2fb%25A");
        assert_eq!(to_iri("/%C0%AF").unwrap(), "/%C0%AF");
        assert_eq!(
            to_iri("/?%EE%80%80#%EE%80%80").unwrap(),
            "/?\u{E000}#%EE%80%80"
        );
    }
}
