//! Scheme-based normalization (RFC 3986 §6.2.3, RFC 3987 §5.3.3): one table row per
//! scheme, each citing the specification that licenses its rules.
//!
//! A row says what the scheme's default port is, whether an empty path with an authority
//! means `/`, whether its hosts are DNS names (and so go through IDNA), and which special
//! rule, if any, applies to its path or host. Schemes not in the table get the syntax rung
//! only (SPEC §4).

/// A scheme-specific rule beyond ports, empty paths and DNS hosts.
///
/// A new variant (or a new field of [`SchemeRule`]) does not compile until the normalizer's
/// fast path has said what it does with it: the fast path decides per row with an
/// exhaustive `match`, so a row with new behaviour never passes through it unchecked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// Nothing more.
    None,
    /// RFC 8089 §2: the authority `localhost` means "no authority", so
    /// `file://localhost/p` is written `file:///p`.
    File,
    /// RFC 6068 §2, §6.1 with RFC 5321 §2.4: the domain part of each address is
    /// case-insensitive and written in lowercase.
    Mailto,
    /// RFC 8141 §3.1: the namespace identifier (NID) is case-insensitive and written in
    /// lowercase.
    Urn,
}

/// One row of the scheme table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchemeRule {
    /// The scheme name, lowercase.
    pub name: &'static str,
    /// The default port, written without leading zeros, if the scheme has one.
    pub default_port: Option<&'static str>,
    /// An empty path with an authority is equivalent to `/`.
    pub empty_path_is_slash: bool,
    /// The host is a DNS name: IDNA applies (RFC 3987 §3.1, §5.3.3).
    pub dns_host: bool,
    /// A further scheme-specific rule.
    pub special: Special,
    /// The specification sections behind the row.
    pub reference: &'static str,
}

const fn row(
    name: &'static str,
    default_port: Option<&'static str>,
    empty_path_is_slash: bool,
    dns_host: bool,
    special: Special,
    reference: &'static str,
) -> SchemeRule {
    SchemeRule {
        name,
        default_port,
        empty_path_is_slash,
        dns_host,
        special,
        reference,
    }
}

/// The scheme table.
pub static SCHEMES: &[SchemeRule] = &[
    // RFC 9110 §4.2.1: "If the port subcomponent is empty or not given, TCP port 80 (the
    // reserved port for WWW services) is the default." §4.2.3: "an empty path component
    // is equivalent to an absolute path of "/"". RFC 3986 §6.2.3 gives the same example.
    row(
        "http",
        Some("80"),
        true,
        true,
        Special::None,
        "RFC 9110 §4.2.1, §4.2.3",
    ),
    // RFC 9110 §4.2.2: "If the port subcomponent is empty or not given, TCP port 443 is
    // the default." §4.2.3 applies to https too.
    row(
        "https",
        Some("443"),
        true,
        true,
        Special::None,
        "RFC 9110 §4.2.2, §4.2.3",
    ),
    // RFC 6455 §3: "The port component is OPTIONAL; the default for "ws" is port 80, while
    // the default port for "wss" is port 443." The resource name is "/" if the path is
    // empty.
    row("ws", Some("80"), true, true, Special::None, "RFC 6455 §3"),
    row("wss", Some("443"), true, true, Special::None, "RFC 6455 §3"),
    // RFC 1738 §3.2: "The default port is 21." An ftp URL names the directory or file
    // after the host; an empty url-path and "/" both name the login directory.
    row(
        "ftp",
        Some("21"),
        true,
        true,
        Special::None,
        "RFC 1738 §3.1, §3.2",
    ),
    // RFC 4266 §2.1: "If :<port> is omitted, the port defaults to 70", and "the "/" may
    // be omitted" when the gopher-path is empty.
    row(
        "gopher",
        Some("70"),
        true,
        true,
        Special::None,
        "RFC 4266 §2.1",
    ),
    // RFC 4248 §2: "If :<port> is omitted, the port defaults to 23"; "the final "/" may be
    // omitted".
    row(
        "telnet",
        Some("23"),
        true,
        true,
        Special::None,
        "RFC 4248 §2",
    ),
    // RFC 2384 §3: "If :<port> is omitted, the port defaults to 110." A POP URL names a
    // server and mailbox, with no path: an empty path stays empty.
    row(
        "pop",
        Some("110"),
        false,
        true,
        Special::None,
        "RFC 2384 §3",
    ),
    // RFC 4516 (LDAP URLs): the server's port defaults to 389, the LDAP port. An LDAP URL
    // with no DN has an empty path, which stays empty.
    row("ldap", Some("389"), false, true, Special::None, "RFC 4516"),
    // RFC 5092 (IMAP URLs): the port defaults to 143, the IMAP port; the path names a
    // mailbox, so an empty one stays empty.
    row("imap", Some("143"), false, true, Special::None, "RFC 5092"),
    // RFC 5538 (news and nntp URIs): the server's port defaults to 119, the NNTP port.
    row("nntp", Some("119"), false, true, Special::None, "RFC 5538"),
    row("news", Some("119"), false, true, Special::None, "RFC 5538"),
    // RFC 7826 (RTSP 2.0): the default port of `rtsp` is 554 and of `rtsps` 322.
    row("rtsp", Some("554"), false, true, Special::None, "RFC 7826"),
    row("rtsps", Some("322"), false, true, Special::None, "RFC 7826"),
    // RFC 7252 §6.1: the port "indicates the UDP port at which the CoAP server is located.
    // If it is empty or not given, then the default port 5683 is assumed"; §6.2, the same
    // with 5684 for coaps. §6.3: "If the port is equal to the default port for a scheme,
    // the normal form is to elide the port subcomponent. Likewise, an empty path component
    // is equivalent to an absolute path of "/"".
    row(
        "coap",
        Some("5683"),
        true,
        true,
        Special::None,
        "RFC 7252 §6.1, §6.3",
    ),
    row(
        "coaps",
        Some("5684"),
        true,
        true,
        Special::None,
        "RFC 7252 §6.2, §6.3",
    ),
    // RFC 8089 §2: file-auth = "localhost" / host; "localhost" is interpreted "exactly as
    // if no authority were present".
    row("file", None, false, true, Special::File, "RFC 8089 §2"),
    // RFC 6068 §2: mailto:addr-spec *("," addr-spec); domains are case-insensitive
    // (RFC 5321 §2.4).
    row(
        "mailto",
        None,
        false,
        false,
        Special::Mailto,
        "RFC 6068 §2, RFC 5321 §2.4",
    ),
    // RFC 8141 §3.1: "the NID is case insensitive".
    row("urn", None, false, false, Special::Urn, "RFC 8141 §3.1"),
];

/// The row of a scheme given in lowercase, if the table has one.
#[inline]
pub fn lookup(lowercase_scheme: &str) -> Option<&'static SchemeRule> {
    SCHEMES.iter().find(|r| r.name == lowercase_scheme)
}

/// Whether the scheme (any case) is known to use DNS names in its host (RFC 3987 §3.1).
pub fn uses_dns_host(scheme: &str) -> bool {
    SCHEMES
        .iter()
        .any(|r| r.dns_host && r.name.eq_ignore_ascii_case(scheme))
}

/// Whether the row writes an authority of host `host` (as the key spells it, lowercase),
/// with no userinfo and port `port` (as written, without its `:`), as no host at all: the
/// one place this rule lives, for the key writer and the fast path alike.
///
/// RFC 8089 §2: for `file`, the host "localhost" is interpreted "exactly as if no authority
/// were present", so `file://localhost/p` is written `file:///p`. A port keeps the host;
/// an empty one does not count, as RFC 3986 §6.2.3 drops it ("a URI with an empty port
/// ... should be normalized to a form where the port and its `:` are omitted").
#[inline]
pub(crate) fn drops_host(rule: &SchemeRule, host: &[u8], port: Option<&[u8]>) -> bool {
    host == DROPPED_HOST && may_drop_host(rule) && port.map_or(true, <[u8]>::is_empty)
}

/// The host a row may drop ([`drops_host`]).
pub(crate) const DROPPED_HOST: &[u8] = b"localhost";

/// Whether the row drops the host [`DROPPED_HOST`] ([`drops_host`]): asked once per row by
/// the fast path, which then refuses any record with that host.
#[inline]
pub(crate) fn may_drop_host(rule: &SchemeRule) -> bool {
    rule.special == Special::File
}

/// A port as the row writes it: leading zeros dropped, and `None` for the default port,
/// which is dropped with its `:`. `port` is `*DIGIT` and not empty.
pub fn canonical_port<'p>(rule: &SchemeRule, port: &'p str) -> Option<&'p str> {
    let trimmed = port.trim_start_matches('0');
    let digits = if trimmed.is_empty() { "0" } else { trimmed };
    (rule.default_port != Some(digits)).then_some(digits)
}

/// Writes a port under the row's rules ([`canonical_port`]), with its `:` when it stays.
/// `port` is `*DIGIT` and not empty.
pub fn write_port(rule: &SchemeRule, port: &str, out: &mut String) {
    if let Some(digits) = canonical_port(rule, port) {
        out.push(':');
        out.push_str(digits);
    }
}

/// Lowercases the ASCII letters of the domain of each address of a `mailto:` path, leaving
/// local parts, percent-encodings (whose hex must stay uppercase) and everything else alone.
/// `path` is the path as written so far, starting at byte `start` of `out`; it ends at the
/// first `?` or `#` (the header fields are not addresses).
///
/// RFC 6068 §2: `to = addr-spec *("," addr-spec)` and `addr-spec = local-part "@" domain`,
/// where a local part may be a `quoted-string` that holds `@` and `,`
/// (`qtext-no-obs = %d33 / %d35-91 / %d93-126`), written percent-encoded in the URI
/// (`"` as `%22`, `\` as `%5C`). RFC 5321 §2.4: "The local-part of a mailbox MUST BE
/// treated as case sensitive", while "Mailbox domains follow normal DNS rules and are hence
/// not case sensitive". So the path is cut into addresses at each `,` outside a quoted
/// string, and in each address only the text after its last `@` is lowercased, and only
/// when the address reads as an `addr-spec`: a `dot-atom-text` or `quoted-string` local
/// part, then a `dot-atom-text` or `[...]` domain (RFC 5322 §3.2.3, §3.4.1, with the
/// non-ASCII octets RFC 6532 §3.2 allows). An address that does not read as one is left
/// exactly as it is.
pub fn lowercase_mailto_domains(out: &mut String, start: usize) {
    let end = out[start..]
        .find(['?', '#'])
        .map_or(out.len(), |i| start + i);
    // Safe on UTF-8: only ASCII letters are changed, in place.
    let mut bytes = std::mem::take(out).into_bytes();
    let mut from = start;
    while from <= end {
        let to = mailto_address_end(&bytes[..end], from);
        if let Some(at) = mailto_domain_start(&bytes[from..to]) {
            let mut i = from + at;
            while i < to {
                if bytes[i] == b'%' {
                    i += 3;
                    continue;
                }
                bytes[i] = bytes[i].to_ascii_lowercase();
                i += 1;
            }
        }
        from = to + 1;
    }
    *out = String::from_utf8(bytes).unwrap_or_default();
}

/// The octet at `i` of a `mailto:` path, percent-decoded, and the index after it.
fn mailto_octet(b: &[u8], i: usize) -> (u8, usize) {
    if b[i] == b'%' && i + 2 < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
            return ((h * 16 + l) as u8, i + 3);
        }
    }
    (b[i], i + 1)
}

/// The end (exclusive) of the address of a `mailto:` path starting at `from`: the next `,`
/// outside a quoted string (a raw `,`; `%2C` is text), or the end of `b`.
fn mailto_address_end(b: &[u8], from: usize) -> usize {
    let mut quoted = false;
    let mut i = from;
    while i < b.len() {
        if b[i] == b',' && !quoted {
            return i;
        }
        let (c, next) = mailto_octet(b, i);
        i = next;
        match c {
            b'"' => quoted = !quoted,
            // A quoted-pair: the next octet is taken as it is.
            b'\\' if quoted && i < b.len() => i = mailto_octet(b, i).1,
            _ => {}
        }
    }
    b.len()
}

/// Where the domain of one `mailto:` address starts (after its `@`), if the address reads
/// as an `addr-spec` (see [`lowercase_mailto_domains`]).
fn mailto_domain_start(a: &[u8]) -> Option<usize> {
    let at = a.iter().rposition(|&c| c == b'@')?;
    let (local, domain) = (&a[..at], &a[at + 1..]);
    let decoded = |s: &[u8]| {
        let mut v = Vec::with_capacity(s.len());
        let mut i = 0;
        while i < s.len() {
            let (c, next) = mailto_octet(s, i);
            v.push(c);
            i = next;
        }
        v
    };
    let (local, domain) = (decoded(local), decoded(domain));
    let local_ok = is_dot_atom_text(&local) || is_quoted_string(&local);
    let domain_ok = is_dot_atom_text(&domain) || is_domain_literal(&domain);
    (local_ok && domain_ok).then_some(at + 1)
}

/// RFC 5322 §3.2.3 `atext`, with the non-ASCII octets of RFC 6532 §3.2.
fn is_atext(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~".contains(&c) || c >= 0x80
}

/// RFC 5322 §3.2.3: `dot-atom-text = 1*atext *("." 1*atext)`.
fn is_dot_atom_text(s: &[u8]) -> bool {
    !s.is_empty()
        && s.split(|&c| c == b'.')
            .all(|p| !p.is_empty() && p.iter().all(|&c| is_atext(c)))
}

/// RFC 6068 §2 / RFC 5322 §3.2.4: a `quoted-string` of `qtext-no-obs`, white space and
/// quoted pairs (`\` followed by `VCHAR` or `WSP`), with the non-ASCII octets of
/// RFC 6532 §3.2.
fn is_quoted_string(s: &[u8]) -> bool {
    let [b'"', inner @ .., b'"'] = s else {
        return false;
    };
    let mut i = 0;
    while i < inner.len() {
        match inner[i] {
            b'\\' => {
                match inner.get(i + 1) {
                    Some(&c)
                        if (0x21..=0x7e).contains(&c) || c == b' ' || c == b'\t' || c >= 0x80 => {}
                    _ => return false,
                }
                i += 2;
            }
            b'"' => return false,
            // qtext-no-obs, the WSP of FWS, and UTF-8.
            c if c == 0x21
                || (0x23..=0x7e).contains(&c)
                || c == b' '
                || c == b'\t'
                || c >= 0x80 =>
            {
                i += 1
            }
            _ => return false,
        }
    }
    true
}

/// RFC 6068 §2: `"[" *dtext-no-obs "]"`, `dtext-no-obs = %d33-90 / %d94-126`.
fn is_domain_literal(s: &[u8]) -> bool {
    let [b'[', inner @ .., b']'] = s else {
        return false;
    };
    inner
        .iter()
        .all(|&c| (33..=90).contains(&c) || (94..=126).contains(&c))
}

/// Lowercases the NID of a `urn:` path (`NID:NSS`) written in `out` from byte `start`.
///
/// Only a real NID is touched: the text before the first `:` must match RFC 8141 §2,
/// `NID = (alphanum) 0*30(ldh) (alphanum)`. A path with no `:`, or whose first part is not
/// an NID (it holds a percent-encoding, say), is not a URN name and is left alone; in
/// particular the hex digits of a percent-encoding stay uppercase (RFC 3986 §6.2.2.1).
pub fn lowercase_urn_nid(out: &mut String, start: usize) {
    let Some(len) = out[start..].find(':') else {
        return;
    };
    let nid = &out.as_bytes()[start..start + len];
    let is_nid = (2..=32).contains(&nid.len())
        && nid[0].is_ascii_alphanumeric()
        && nid[len - 1].is_ascii_alphanumeric()
        && nid.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'-');
    if is_nid {
        out[start..start + len].make_ascii_lowercase();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(scheme: &str, p: &str) -> String {
        let mut out = String::new();
        write_port(lookup(scheme).unwrap(), p, &mut out);
        out
    }

    #[test]
    fn http_default_port_and_empty_path() {
        // RFC 9110 §4.2.1: "If the port subcomponent is empty or not given, TCP port 80 ...
        // is the default."
        assert_eq!(port("http", "80"), "");
        assert_eq!(port("http", "0080"), "");
        assert_eq!(port("http", "8080"), ":8080");
        assert_eq!(port("http", "443"), ":443");
        // §4.2.3: "an empty path component is equivalent to an absolute path of "/"".
        assert!(lookup("http").unwrap().empty_path_is_slash);
        assert!(lookup("http").unwrap().dns_host);
    }

    #[test]
    fn canonical_ports() {
        let http = lookup("http").unwrap();
        assert_eq!(canonical_port(http, "80"), None);
        assert_eq!(canonical_port(http, "0080"), None);
        assert_eq!(canonical_port(http, "0"), Some("0"));
        assert_eq!(canonical_port(http, "000"), Some("0"));
        assert_eq!(canonical_port(http, "08080"), Some("8080"));
        assert_eq!(canonical_port(lookup("file").unwrap(), "80"), Some("80"));
    }

    #[test]
    fn https_default_port() {
        // RFC 9110 §4.2.2: "If the port subcomponent is empty or not given, TCP port 443
        // is the default."
        assert_eq!(port("https", "443"), "");
        assert_eq!(port("https", "80"), ":80");
        assert!(lookup("https").unwrap().empty_path_is_slash);
    }

    #[test]
    fn ws_and_wss_default_ports() {
        // RFC 6455 §3: "the default for "ws" is port 80, while the default port for "wss"
        // is port 443."
        assert_eq!(port("ws", "80"), "");
        assert_eq!(port("wss", "443"), "");
        assert_eq!(port("wss", "80"), ":80");
    }

    #[test]
    fn ftp_default_port() {
        // RFC 1738 §3.2: "The default port is 21."
        assert_eq!(port("ftp", "21"), "");
        assert_eq!(port("ftp", "00021"), "");
        assert_eq!(port("ftp", "2121"), ":2121");
    }

    #[test]
    fn gopher_and_telnet_default_ports() {
        // RFC 4266 §2.1: "If :<port> is omitted, the port defaults to 70."
        assert_eq!(port("gopher", "70"), "");
        // RFC 4248 §2: "If :<port> is omitted, the port defaults to 23."
        assert_eq!(port("telnet", "23"), "");
        assert_eq!(port("telnet", "0"), ":0");
        assert_eq!(port("telnet", "000"), ":0");
    }

    #[test]
    fn file_localhost() {
        // RFC 8089 §2: "localhost" is interpreted "exactly as if no authority were present".
        assert_eq!(lookup("file").unwrap().special, Special::File);
        assert_eq!(lookup("file").unwrap().default_port, None);
    }

    #[test]
    fn mailto_domains() {
        // RFC 5321 §2.4: domain names are case-insensitive.
        let mut s = String::from("mailto:Joe@Example.COM,Ann@B.org?subject=Hi%2C");
        lowercase_mailto_domains(&mut s, 7);
        assert_eq!(s, "mailto:Joe@example.com,Ann@b.org?subject=Hi%2C");
        let mut s = String::from("Joe@Ex%C3%A9.COM");
        lowercase_mailto_domains(&mut s, 0);
        assert_eq!(s, "Joe@ex%C3%A9.com");
    }

    #[test]
    fn mailto_quoted_local_parts_keep_their_case() {
        // RFC 6068 §2 lets a quoted local part hold "@" (qtext-no-obs takes %d35-91), and
        // RFC 5321 §2.4: "The local-part of a mailbox MUST BE treated as case sensitive".
        // Only the text after the last "@" is the domain.
        let k = |s: &str| {
            let mut out = String::from(s);
            lowercase_mailto_domains(&mut out, 0);
            out
        };
        assert_eq!(k("%22A@B%22@C.com"), "%22A@B%22@c.com");
        assert_ne!(k("%22A@B%22@c.com"), k("%22A@b%22@c.com"));
        // A "," inside quotes is part of the local part, not a separator between addresses.
        assert_eq!(k("%22X,Y@Z%22@D.ORG,Q@E.NET"), "%22X,Y@Z%22@d.org,Q@e.net");
        // A quoted pair (%5C) escapes the quote after it.
        assert_eq!(k("%22A%5C%22@B%22@C.com"), "%22A%5C%22@B%22@c.com");
        // Each address on its own: the first reads as an addr-spec, the second does not
        // (unquoted "@" in the local part), the third does.
        assert_eq!(k("A@B.C,X@Y@Z.W,M@N.O"), "A@b.c,X@Y@Z.W,M@n.o");
        // Not an addr-spec: an unterminated quote, an empty local part or domain, a dot at
        // the end of a dot-atom, no "@" at all: left exactly as written.
        for s in [
            "%22A@B.COM",
            "@B.COM",
            "A@",
            "A.@B.COM",
            "A@B..COM",
            "JOE",
            "A@%22B%22",
        ] {
            assert_eq!(k(s), s);
        }
        // A domain literal (RFC 6068 §2: "[" *dtext-no-obs "]", percent-encoded in a URI).
        assert_eq!(k("A@%5BIPv6:2001:DB8::1%5D"), "A@%5Bipv6:2001:db8::1%5D");
        // The header fields after "?" are not addresses.
        assert_eq!(k("A@B.COM?To=X@Y.COM"), "A@b.com?To=X@Y.COM");
    }

    #[test]
    fn urn_nid() {
        // RFC 8141 §3.1: "the NID is case insensitive".
        let mut s = String::from("urn:ISBN:0-395-36341-1");
        lowercase_urn_nid(&mut s, 4);
        assert_eq!(s, "urn:isbn:0-395-36341-1");
        assert_eq!(lookup("urn").unwrap().special, Special::Urn);
    }

    #[test]
    fn urn_without_an_nid_is_left_alone() {
        // RFC 8141 §2: NID = (alphanum) 0*30(ldh) (alphanum). Without one there is nothing
        // case-insensitive to fold, and percent-encoding hex stays uppercase
        // (RFC 3986 §6.2.2.1).
        for s in ["%C3%A9", "ISBN", "%41B:x", "-AB:x", "A:x", ""] {
            let mut out = String::from(s);
            lowercase_urn_nid(&mut out, 0);
            assert_eq!(out, s);
        }
        let mut s = String::from("urn:X-Y2:%C3%A9");
        lowercase_urn_nid(&mut s, 4);
        assert_eq!(s, "urn:x-y2:%C3%A9");
    }

    #[test]
    fn unknown_schemes_have_no_row() {
        assert!(lookup("foo").is_none());
        assert!(uses_dns_host("HTTP"));
        assert!(!uses_dns_host("mailto"));
        assert!(!uses_dns_host("http+unix"));
    }
}
