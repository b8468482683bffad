//! The scheme of a record, and what the fast path checks for it: decided per row of the
//! scheme table ([`crate::iri::scheme::SCHEMES`]) by one exhaustive `match` on the row's
//! fields ([`FastScheme::of`]), so a new field or a new [`Special`] rule does not compile
//! until someone has decided what the fast path does with it.

use super::FastPath;
use crate::iri::chars;
use crate::iri::scheme::{self, SchemeRule, Special};

/// What the fast path does with the records of one scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FastScheme {
    /// The scheme rung rewrites something of its records that the scan does not check:
    /// every one goes to the full ladder.
    Ladder,
    /// The scan checks the row's rules as well.
    Row(RowChecks),
}

/// The checks the scan makes for a scheme with a row, beyond the syntax rung's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RowChecks {
    /// The row, whose port rule the scan asks ([`scheme::canonical_port`]).
    pub(crate) row: &'static SchemeRule,
    /// The host is a DNS name (IDNA applies): it must be a lowercase LDH name, which IDNA
    /// leaves as it is.
    pub(crate) dns_host: bool,
    /// An empty path with an authority is written `/`: such a record is not its own key
    /// ([`super::Shape::adds_slash`]).
    pub(crate) empty_path_is_slash: bool,
    /// The host `localhost` is written as no host: such a record is refused.
    pub(crate) no_localhost: bool,
}

impl FastScheme {
    /// The fast path's decision for a row of the scheme table.
    #[inline]
    pub(crate) fn of(row: &'static SchemeRule) -> FastScheme {
        // Every field is named, and the `match` has no wildcard: a new field or a new
        // `Special` rule is a compile error here until the fast path decides about it.
        let SchemeRule {
            name: _,
            // Asked through `scheme::canonical_port` with the row.
            default_port: _,
            empty_path_is_slash,
            dns_host,
            special,
            reference: _,
        } = *row;
        match special {
            Special::None | Special::File => {}
            // The path is rewritten (the domains of the addresses, the NID lowercased),
            // which the scan does not check.
            Special::Mailto | Special::Urn => return FastScheme::Ladder,
        }
        // RFC 8089 §2: `file://localhost/p` is written `file:///p` (`scheme::drops_host`).
        let no_localhost = scheme::may_drop_host(row);
        FastScheme::Row(RowChecks {
            row,
            dns_host,
            empty_path_is_slash,
            no_localhost,
        })
    }

    /// The row's checks, where the scan checks the row's rules.
    #[inline(always)]
    pub(crate) fn row_checks(self) -> Option<RowChecks> {
        match self {
            FastScheme::Ladder => None,
            FastScheme::Row(checks) => Some(checks),
        }
    }
}

/// The start of a record: its scheme, if any, and where the rest begins.
#[derive(Clone, Copy, Debug)]
pub(super) struct Head {
    /// The row of the scheme, if one applies; never one whose decision is
    /// [`FastScheme::Ladder`].
    pub(super) row: Option<&'static SchemeRule>,
    /// The record has a scheme (it is absolute).
    pub(super) absolute: bool,
    /// Where the text after the scheme's `:` starts (0 without a scheme).
    pub(super) pos: usize,
}

/// The length of the longest scheme whose row writes an empty path `/`, where the scheme
/// table applies (`scheme_rows`); 0 elsewhere.
pub(super) fn slash_scheme_len(scheme_rows: bool) -> usize {
    let rows = scheme::SCHEMES
        .iter()
        .filter(|r| scheme_rows && r.empty_path_is_slash);
    rows.map(|r| r.name.len()).max().unwrap_or(0)
}

impl FastPath {
    /// The row of a lowercase scheme, where the scheme table applies.
    #[inline]
    pub(super) fn row_of(scheme_rows: bool, name: &str) -> Option<&'static SchemeRule> {
        if scheme_rows {
            scheme::lookup(name)
        } else {
            None
        }
    }

    /// The scheme of the record `s` (RFC 3986 §3.1: the text before a `:` that comes
    /// before any `/ ? #`), if it is valid and written as the rung writes it, and its row;
    /// `None` to leave the record to the full ladder.
    #[inline(always)]
    pub(super) fn head(&self, s: &str) -> Option<Head> {
        let b = s.as_bytes();
        // The rows of the common schemes, looked up once (their decisions let the scan
        // take their records, or the fast path is off: see `FastPath::new`).
        let (row, pos) = if b.starts_with(b"https://") {
            (self.https, 6)
        } else if b.starts_with(b"http://") {
            (self.http, 5)
        } else if b.starts_with(b"file://") {
            (self.file, 5)
        } else {
            return self.other_head(s);
        };
        Some(Head {
            row,
            absolute: true,
            pos,
        })
    }

    /// [`FastPath::head`] for a record that does not start with a common scheme.
    #[inline(always)]
    fn other_head(&self, s: &str) -> Option<Head> {
        let b = s.as_bytes();
        let i = b
            .iter()
            .position(|&c| !chars::is(c, chars::SCHEME))
            .unwrap_or(b.len());
        if b.get(i) != Some(&b':') {
            // A relative reference, unless a ':' comes first among : / ? # in the record
            // (an invalid scheme: the full ladder reports it).
            let first = b[i..]
                .iter()
                .position(|&c| matches!(c, b':' | b'/' | b'?' | b'#' | b'\n'));
            if first.is_some_and(|k| b[i + k] == b':') || self.absolute {
                return None;
            }
            return Some(Head {
                row: None,
                absolute: false,
                pos: 0,
            });
        }
        if i == 0 || !b[0].is_ascii_alphabetic() {
            return None;
        }
        // From the syntax rung on, the scheme is written in lowercase (RFC 3986 §6.2.2.1).
        if !self.string_level && b[..i].iter().any(u8::is_ascii_uppercase) {
            return None;
        }
        let row = FastPath::row_of(self.scheme_rows, &s[..i]);
        if row.is_some_and(|r| FastScheme::of(r) == FastScheme::Ladder) {
            return None;
        }
        Some(Head {
            row,
            absolute: true,
            pos: i + 1,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iri::scheme::SCHEMES;
    use crate::ladder::{Form, Level, Normalizer, Options};

    /// Canonical records with the scheme `name`, as the scheme rung writes them.
    fn canonical_records(name: &str) -> Vec<String> {
        [
            "{s}://example.com/",
            "{s}://example.com/a/b.html?q=1#f",
            "{s}://a-b.example.org:8080/%20x",
            "{s}:///etc/x",
            "{s}:opaque/path",
            "{s}:x@example.com",
            "{s}:isbn:0-1",
            "{s}://localhost/x",
            "{s}://example.com",
        ]
        .iter()
        .map(|t| t.replace("{s}", name))
        .collect()
    }

    #[test]
    fn every_row_has_a_decision() {
        for row in SCHEMES {
            let d = FastScheme::of(row);
            match (row.special, d) {
                (Special::Mailto | Special::Urn, FastScheme::Ladder) => {}
                (Special::None | Special::File, FastScheme::Row(c)) => {
                    assert_eq!(c.row, row);
                    assert_eq!(c.dns_host, row.dns_host, "{}", row.name);
                    assert_eq!(c.empty_path_is_slash, row.empty_path_is_slash);
                    assert_eq!(c.no_localhost, row.special == Special::File);
                }
                other => panic!("{}: {other:?}", row.name),
            }
            // The row is found at the scheme rung, and only there.
            assert_eq!(FastPath::row_of(true, row.name), Some(row), "{}", row.name);
            assert_eq!(FastPath::row_of(false, row.name), None);
        }
        assert_eq!(FastPath::row_of(true, "foo"), None);
    }

    #[test]
    fn every_row_gets_the_full_ladders_key() {
        let mut taken = 0;
        for options in [
            Options::default(),
            Options::default().with_form(Form::Iri),
            Options::default().with_level(Level::Syntax),
            Options::default().with_level(Level::String),
        ] {
            let fast = Normalizer::new(options.clone()).unwrap();
            let slow = fast.without_fast_path();
            for row in SCHEMES {
                for record in canonical_records(row.name) {
                    let want = slow.normalize(&record).map(|k| k.into_owned());
                    let got = fast.normalize(&record).map(|k| k.into_owned());
                    assert_eq!(got, want, "{record:?} under {options:?}");
                    if fast.is_canonical_fast(&record) {
                        assert_eq!(want.as_deref(), Ok(record.as_str()), "{record:?}");
                        taken += 1;
                    }
                }
                // The row's default port is never taken at the scheme rung.
                if let (Some(port), Level::Scheme) = (row.default_port, options.level) {
                    let r = format!("{}://example.com:{port}/", row.name);
                    assert!(!fast.is_canonical_fast(&r), "{r}");
                }
            }
        }
        assert!(taken > 50, "{taken}");
    }

    #[test]
    fn rows_that_rewrite_what_the_scan_does_not_check_are_refused() {
        let f = FastPath::new(&Options::default());
        for row in SCHEMES {
            let record = format!("{}:x@example.com", row.name);
            let refused = FastScheme::of(row) == FastScheme::Ladder;
            if refused {
                assert!(!f.accepts(&record), "{record}");
            }
        }
    }
}
