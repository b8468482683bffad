//! SURT keys (Sort-friendly URI Reordering Transform) for web-archive indexes.
//!
//! A SURT writes the host with its labels reversed, so that sorting keys groups a domain
//! with its subdomains (`com,example)/`, `com,example,www)/`), the form the Internet
//! Archive's CDX indexes use. [`write_surt`] rewrites a key of the ladder (normally the
//! `uri` form at the scheme or protocol rung) as a SURT:
//!
//! * **host**: a registered name has its labels reversed and joined with `,`
//!   (`www.example.com` → `com,example,www`). A trailing root dot becomes an empty first
//!   label (`example.com.` → `,com,example`): the scheme rung keeps that dot, so the SURT
//!   keeps the two hosts apart (the protocol rule `strip-trailing-dot` merges them). An
//!   IPv4 address is **not** reversed (`192.0.2.1`): its octets are not a hierarchy of
//!   names. An IP literal keeps its brackets (`[2001:db8::1]`) so that its colons cannot be
//!   mistaken for a port. An empty host (`file:///p`) is written as nothing (`)/p`).
//!   A registered name may contain `,`, `(` and `)` (RFC 3986 sub-delims; never in a DNS
//!   name) and percent-encodings: in the SURT `%`, `,`, `(` and `)` are written `%25`,
//!   `%2c`, `%28`, `%29`, so that the host part always reads back to the key's host
//!   (`b%2Ca` gives `b%252ca`, `b,a` gives `b%2ca`; the `surt` package writes them raw:
//!   `a,b.com` gives the same `com,a,b)` as `a.b.com`). A host that is not ASCII once
//!   decoded keeps its case, as it does in the key (the rungs lowercase only ASCII hosts,
//!   RFC 3987 §5.3.2.1). Two keys with different hosts or ports therefore never share the
//!   host part of their SURTs.
//! * **port**: kept when the key has one (`com,example:8080)`); the scheme rung has
//!   already dropped a default port.
//! * **userinfo**: dropped, as the Internet Archive does: credentials do not belong in an
//!   index, and the archived resource does not depend on them. This merges keys that differ
//!   only in userinfo.
//! * **`)`** closes the host, then the path, `?query` and `#fragment` exactly as the key has
//!   them. Nothing is decoded, re-encoded, sorted or removed here: a fragment or an empty
//!   `?` is in the SURT when it is in the key (drop them with `--drop-fragment` or a
//!   protocol rule, as `crawler@1` does).
//! * **case**: the SURT is ASCII-lowercased throughout (but for a host that is not ASCII
//!   once decoded, above), as Internet Archive SURTs are, including the path, the query and the hex digits of percent-encodings (`%C3%A9` →
//!   `%c3%a9`). Non-ASCII characters (an `iri` key) are left as they are. This lowercasing
//!   merges keys that differ in the case of the path or query (`/A` and `/a`), which a
//!   case-sensitive server treats as different resources; [`SurtOptions::keep_case`] turns
//!   it off.
//! * **scheme**: left out by default (`com,example)/a`); with `include_scheme` it is written
//!   before the host in parentheses, `http://(com,example)/a`, the form of the `surt`
//!   package's `with_scheme=True`. A network-path reference (no scheme) gets `//(`.
//! * A key **without an authority** (`mailto:`, `urn:`, a relative path) has no host to
//!   reverse: it is written as it is (lowercased unless `keep_case`), whatever
//!   `include_scheme` says.
//!
//! No `www` stripping, no repeated unescaping, no query sorting, no slash collapsing:
//! those are crawler heuristics and belong to the protocol rung, where each is a named rule.
//! `docs/surt.md` lists where the result differs from the `surt` Python package and why.
//!
//! ```
//! use irinorm::ladder::surt::write_surt;
//! let mut out = String::new();
//! write_surt("http://www.example.com:8080/A/b?Q=1", false, &mut out);
//! assert_eq!(out, "com,example,www:8080)/a/b?q=1");
//! out.clear();
//! write_surt("https://192.0.2.1/x", true, &mut out);
//! assert_eq!(out, "https://(192.0.2.1)/x");
//! ```

use crate::iri::find::rfind;
use crate::iri::parse::{HostKind, IriRef};
use crate::iri::percent;

/// How [`write_surt_with`] writes a SURT.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SurtOptions {
    /// Write `scheme://(` before the host (`http://(com,example)/`).
    pub include_scheme: bool,
    /// Write a `,` after the last host label (`com,example,)/`), the form of Heritrix SURT
    /// prefixes and of the `surt` package's `trailing_comma=True` (which puts it after the
    /// port instead: irinorm always writes it before the port, `com,example,:8080)`).
    pub trailing_comma: bool,
    /// Keep the case of the path, query and fragment instead of lowercasing them.
    pub keep_case: bool,
}

/// Appends the SURT of `key` to `out`, with the scheme when `include_scheme` is set, in the
/// Internet Archive's lowercased form (see the [module documentation](self)).
pub fn write_surt(key: &str, include_scheme: bool, out: &mut String) {
    write_surt_with(
        key,
        SurtOptions {
            include_scheme,
            ..SurtOptions::default()
        },
        out,
    );
}

/// [`write_surt`] into a new string.
pub fn surt(key: &str, include_scheme: bool) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    write_surt(key, include_scheme, &mut out);
    out
}

/// Appends the SURT of `key` to `out`, as `options` say.
pub fn write_surt_with(key: &str, options: SurtOptions, out: &mut String) {
    match IriRef::parse(key) {
        Ok(view) => write_surt_of_view(&view, options, out),
        // Not a reference at all: nothing to reverse.
        Err(_) => push_cased(key, options, out),
    }
}

/// [`write_surt`] for a key the ladder wrote, valid by construction: split into its
/// components without checking them again.
pub(crate) fn write_surt_of_key(key: &str, include_scheme: bool, out: &mut String) {
    let options = SurtOptions {
        include_scheme,
        ..SurtOptions::default()
    };
    match IriRef::split_valid(key) {
        Ok(view) => write_surt_of_view(&view, options, out),
        Err(_) => push_cased(key, options, out),
    }
}

/// [`write_surt_with`] for a key already split into its components.
fn write_surt_of_view(view: &IriRef<'_>, options: SurtOptions, out: &mut String) {
    if view.authority().is_none() {
        // No authority: no host to reverse.
        push_cased(view.as_str(), options, out);
        return;
    }
    let parts = SurtParts {
        scheme: view.scheme(),
        host: view.host().unwrap_or(""),
        host_kind: view.host_kind(),
        plain_host: false,
        port: view.port(),
        rest: view.path_query_fragment(),
    };
    write_surt_of_parts(&parts, options, out);
}

/// The pieces of a key with an authority that its SURT is written from.
pub(crate) struct SurtParts<'a> {
    /// The scheme, if any.
    pub(crate) scheme: Option<&'a str>,
    /// The host (empty for `file:///p`), and what kind it is.
    pub(crate) host: &'a str,
    pub(crate) host_kind: HostKind,
    /// The host is known to hold only `a-z 0-9 - .` (nothing to escape or lowercase).
    pub(crate) plain_host: bool,
    /// The port without its `:`, if any (possibly empty).
    pub(crate) port: Option<&'a str>,
    /// The path, query and fragment, as the key writes them.
    pub(crate) rest: &'a str,
}

/// Appends the SURT of a key with an authority, from its pieces (the ladder's fast path has
/// them for a record that is its own key, without parsing it).
pub(crate) fn write_surt_of_parts(parts: &SurtParts<'_>, options: SurtOptions, out: &mut String) {
    if options.include_scheme {
        let start = out.len();
        if let Some(s) = parts.scheme {
            out.push_str(s);
            out.push(':');
        }
        out.push_str("//(");
        // The scheme is lowercase in keys already; lowercase it anyway, so the result does
        // not depend on the rung the key came from.
        out[start..].make_ascii_lowercase();
    }
    let host_start = out.len();
    let host = parts.host;
    match parts.host_kind {
        HostKind::RegName if parts.plain_host => push_reversed_labels(host, true, out),
        HostKind::RegName if !host.is_empty() => {
            push_reversed_labels(host, false, out);
            // RFC 3987 §5.3.2.1: the rungs lowercase only a host that is ASCII once decoded;
            // one that is not keeps its case in the key, and so in the SURT, or two hosts
            // the ladder keeps apart (`A%C3%A9`, `a%C3%A9`) would share a SURT.
            let lower = host.bytes().all(|b| !b.is_ascii_uppercase());
            if !lower && !percent::has_non_ascii(host) {
                out[host_start..].make_ascii_lowercase();
            }
        }
        // IPv4 addresses, IP literals (with their brackets) and the empty host as they are
        // (lowercase: the rungs lowercase IP literals).
        _ => {
            out.push_str(host);
            out[host_start..].make_ascii_lowercase();
        }
    }
    if options.trailing_comma && !host.is_empty() {
        out.push(',');
    }
    if let Some(port) = parts.port {
        if !port.is_empty() {
            out.push(':');
            out.push_str(port);
        }
    }
    out.push(')');
    let rest = out.len();
    out.push_str(parts.rest);
    if !options.keep_case {
        out[rest..].make_ascii_lowercase();
    }
}

/// Appends `key` as it is, lowercased unless `keep_case`.
fn push_cased(key: &str, options: SurtOptions, out: &mut String) {
    let start = out.len();
    out.push_str(key);
    if !options.keep_case {
        out[start..].make_ascii_lowercase();
    }
}

/// Writes the labels of `host` last to first, joined with `,`, each as [`push_label`] writes
/// it (`plain`: the host is known to need no escapes). Each label is found by a search
/// back from the end of what is left ([`rfind`]): `.` is ASCII, so every cut is on a
/// character boundary.
fn push_reversed_labels(host: &str, plain: bool, out: &mut String) {
    let plain = plain || !host.bytes().any(|b| matches!(b, b'%' | b',' | b'(' | b')'));
    let mut left = host;
    while let Some(dot) = rfind(b'.', left.as_bytes()) {
        push_label(&left[dot + 1..], plain, out);
        out.push(',');
        left = &left[..dot];
    }
    push_label(left, plain, out);
}

/// Writes a host label with `%` and the characters that delimit the SURT host part (`,`
/// `(` `)`, sub-delims a `reg-name` may hold) percent-encoded (`plain`: it has none of
/// them), in lowercase hex (`%25`, `%2c`, `%28`, `%29`), so that the host part reads back
/// to exactly the key's host: decoding those four gives it back, and a `%2C` of the key
/// (written `%252C`) never meets a `,` (written `%2c`). Inline for the common plain label;
/// the escapes are [`push_escaped_label`]'s.
#[inline(always)]
fn push_label(label: &str, plain: bool, out: &mut String) {
    if plain {
        out.push_str(label);
    } else {
        push_escaped_label(label, out);
    }
}

/// [`push_label`] for a label that may hold `%`, `,`, `(` or `)`.
fn push_escaped_label(label: &str, out: &mut String) {
    for c in label.chars() {
        match c {
            '%' => out.push_str("%25"),
            ',' => out.push_str("%2c"),
            '(' => out.push_str("%28"),
            ')' => out.push_str("%29"),
            _ => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_forms() {
        assert_eq!(surt("http://example.com/", false), "com,example)/");
        assert_eq!(surt("http://example.com/", true), "http://(com,example)/");
        assert_eq!(surt("http://[::1]:8080/a", false), "[::1]:8080)/a");
        assert_eq!(surt("http://1.2.3.4/", false), "1.2.3.4)/");
        assert_eq!(surt("http://u:p@example.com/", false), "com,example)/");
        assert_eq!(surt("http://example.com./", false), ",com,example)/");
        assert_eq!(surt("file:///etc/x", true), "file://()/etc/x");
        assert_eq!(surt("mailto:A@B.com", true), "mailto:a@b.com");
        assert_eq!(surt("//example.com/a", true), "//(com,example)/a");
        let mut out = String::new();
        write_surt_with(
            "http://example.com:81/A",
            SurtOptions {
                include_scheme: true,
                trailing_comma: true,
                keep_case: true,
            },
            &mut out,
        );
        assert_eq!(out, "http://(com,example,:81)/A");
    }
}
