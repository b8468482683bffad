//! Host scopes (RFC 3987 §5.3.4; SPEC §4, "protocol"): the hosts a rule is limited to
//! ([`HostScope`]), the patterns that name them (`example.com`, `*.example.com`, IP
//! literals), and why a pattern is refused ([`HostScopeError`]).
//!
//! Scopes compare hosts in one form, whatever the key's form: ASCII lowercase, IDNs as
//! A-labels (RFC 3987 §3.1, RFC 5891), no trailing root dot, IPv6 literals as RFC 5952 writes
//! them.

use std::fmt;

use crate::iri::host::{self, HostForm};

/// A host pattern that a [`HostScope`] cannot use. Its `Display` is the message a rules file
/// reports.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HostScopeError {
    /// A pattern without a host (``, `.`, `*.`).
    EmptyHost {
        /// The pattern.
        pattern: String,
    },
    /// `*.` before an IP literal (`*.[::1]`).
    WildcardIpLiteral {
        /// The pattern.
        pattern: String,
    },
    /// A character that cannot occur in a host pattern: `*` (but in a leading `*.`), `/`,
    /// `?`, `#`, `@`, `:`, a bracket outside an IP literal, a space or a control character.
    ForbiddenChar {
        /// The pattern.
        pattern: String,
        /// The character.
        found: char,
    },
    /// A non-ASCII host name that IDNA (UTS #46) refuses.
    BadIdn {
        /// The pattern.
        pattern: String,
    },
}

impl fmt::Display for HostScopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostScopeError::EmptyHost { pattern } => write!(f, "`{pattern}`: an empty host"),
            HostScopeError::WildcardIpLiteral { pattern } => {
                write!(f, "`{pattern}`: `*.` cannot precede an IP literal")
            }
            HostScopeError::ForbiddenChar { pattern, found } => write!(
                f,
                "`{pattern}`: {found:?} cannot occur in a host pattern (write `example.com` or `*.example.com`)"
            ),
            HostScopeError::BadIdn { pattern } => {
                write!(f, "`{pattern}`: not a valid internationalized host name")
            }
        }
    }
}

impl std::error::Error for HostScopeError {}

/// One host pattern of a [`HostScope`], in matching form (lowercase, A-labels, no trailing
/// dot).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostPattern {
    /// Exactly this host.
    Exact(String),
    /// Any strict subdomain of this host (`*.example.com`).
    Subdomains(String),
}

/// The hosts a rule applies to: all hosts when empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostScope {
    patterns: Vec<HostPattern>,
}

impl HostScope {
    /// Every reference, with or without a host.
    pub fn all() -> HostScope {
        HostScope::default()
    }

    /// The hosts matching any of `patterns` (`example.com`, `*.example.com`, an IPv4
    /// address or an IP literal in brackets). IDNs may be given in either form. No pattern
    /// means every host ([`HostScope::all`]); a malformed one gives a [`HostScopeError`].
    pub fn new<S: AsRef<str>>(patterns: &[S]) -> Result<HostScope, HostScopeError> {
        let mut out = Vec::with_capacity(patterns.len());
        for p in patterns {
            out.push(compile_host_pattern(p.as_ref())?);
        }
        Ok(HostScope { patterns: out })
    }

    /// The hosts matching any of `patterns`, already compiled ([`compile_host_pattern`]).
    pub(super) fn from_patterns(patterns: Vec<HostPattern>) -> HostScope {
        HostScope { patterns }
    }

    /// Whether the scope is unrestricted.
    pub fn is_all(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Whether the scope admits `host` (in matching form: see [`scope_form`]); `None` for a
    /// reference without an authority.
    pub(super) fn admits(&self, host: Option<&str>) -> bool {
        if self.patterns.is_empty() {
            return true;
        }
        let Some(h) = host else { return false };
        self.patterns.iter().any(|p| match p {
            HostPattern::Exact(e) => h == e,
            HostPattern::Subdomains(s) => {
                h.len() > s.len() + 1
                    && h.ends_with(s.as_str())
                    && h.as_bytes()[h.len() - s.len() - 1] == b'.'
            }
        })
    }

    /// Whether `host` (as written in a key) is in the scope.
    pub fn matches(&self, host: Option<&str>) -> bool {
        if self.patterns.is_empty() {
            return true;
        }
        let form = host.map(scope_form);
        self.admits(form.as_deref())
    }
}

/// Checks a host pattern and puts it in matching form.
pub(super) fn compile_host_pattern(p: &str) -> Result<HostPattern, HostScopeError> {
    let pattern = || p.to_owned();
    let (sub, body) = match p.strip_prefix("*.") {
        Some(rest) => (true, rest),
        None => (false, p),
    };
    let body = body.strip_suffix('.').unwrap_or(body);
    if body.is_empty() {
        return Err(HostScopeError::EmptyHost { pattern: pattern() });
    }
    if let Some(inner) = body.strip_prefix('[').and_then(|b| b.strip_suffix(']')) {
        if sub {
            return Err(HostScopeError::WildcardIpLiteral { pattern: pattern() });
        }
        let mut s = String::from("[");
        match host::parse_ipv6(inner) {
            Some(a) => host::write_ipv6_rfc5952(&a, &mut s),
            None => s.push_str(&inner.to_ascii_lowercase()),
        }
        s.push(']');
        return Ok(HostPattern::Exact(s));
    }
    if let Some(c) = body
        .chars()
        .find(|&c| matches!(c, '*' | '/' | '?' | '#' | '@' | ':' | '[' | ']') || c <= ' ')
    {
        return Err(HostScopeError::ForbiddenChar {
            pattern: pattern(),
            found: c,
        });
    }
    let mut s = String::new();
    if body.is_ascii() {
        s.push_str(&body.to_ascii_lowercase());
    } else if host::dns_host(body, HostForm::Ascii, &mut s).is_err() {
        return Err(HostScopeError::BadIdn { pattern: pattern() });
    }
    Ok(if sub {
        HostPattern::Subdomains(s)
    } else {
        HostPattern::Exact(s)
    })
}

/// A host in the form scopes compare: ASCII lowercase, IDNs as A-labels, no trailing dot.
pub(super) fn scope_form(host: &str) -> String {
    let h = host.strip_suffix('.').unwrap_or(host);
    if h.is_ascii() {
        return h.to_ascii_lowercase();
    }
    let mut s = String::new();
    if host::dns_host(h, HostForm::Ascii, &mut s).is_err() {
        s.clear();
        s.push_str(h);
    }
    let t = s.strip_suffix('.').map(str::len).unwrap_or(s.len());
    s.truncate(t);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_typed_and_say_why() {
        let cases = [
            (
                "*.",
                HostScopeError::EmptyHost {
                    pattern: "*.".into(),
                },
                "`*.`: an empty host",
            ),
            (
                "*.[::1]",
                HostScopeError::WildcardIpLiteral {
                    pattern: "*.[::1]".into(),
                },
                "`*.[::1]`: `*.` cannot precede an IP literal",
            ),
            (
                "a/b",
                HostScopeError::ForbiddenChar {
                    pattern: "a/b".into(),
                    found: '/',
                },
                "`a/b`: '/' cannot occur in a host pattern (write `example.com` or `*.example.com`)",
            ),
            (
                "a\u{2028}b",
                HostScopeError::BadIdn {
                    pattern: "a\u{2028}b".into(),
                },
                "`a\u{2028}b`: not a valid internationalized host name",
            ),
        ];
        for (pattern, error, message) in cases {
            let e = HostScope::new(&["ok.example", pattern]).unwrap_err();
            assert_eq!(e, error);
            assert_eq!(e.to_string(), message);
        }
    }

    #[test]
    fn patterns_and_hosts_meet_in_one_form() {
        let s = HostScope::new(&["Bücher.example.", "*.Example.COM", "[2001:DB8:0::1]"]).unwrap();
        assert!(s.matches(Some("xn--bcher-kva.example")));
        assert!(s.matches(Some("bücher.example.")));
        assert!(s.matches(Some("a.b.example.com")));
        assert!(!s.matches(Some("example.com")));
        assert!(!s.matches(Some("badexample.com")));
        assert!(s.matches(Some("[2001:db8::1]")));
        assert!(!s.matches(None));
        assert!(HostScope::new::<&str>(&[]).unwrap().is_all());
        assert!(HostScope::all().matches(None));
    }
}
