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

/// Lowercases the ASCII letters of the domain part of each address of a `mailto:` path,
/// leaving percent-encodings (whose hex must stay uppercase) and everything else alone.
/// `path` is the path as written so far, starting at byte `start` of `out`.
pub fn lowercase_mailto_domains(out: &mut String, start: usize) {
    // Safe on UTF-8: only ASCII letters are changed, in place.
    let mut bytes = std::mem::take(out).into_bytes();
    let mut in_domain = false;
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'@' => in_domain = true,
            b',' => in_domain = false,
            b'?' | b'#' => break,
            b'%' => {
                i += 3;
                continue;
            }
            b if in_domain => bytes[i] = b.to_ascii_lowercase(),
            _ => {}
        }
        i += 1;
    }
    *out = String::from_utf8(bytes).unwrap_or_default();
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
