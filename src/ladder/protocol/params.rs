//! Which query and path parameters a rule matches (RFC 3987 §5.3.4; SPEC §4, "protocol"):
//! name patterns with `*` globs, case sensitivity and a condition on the value
//! ([`ParamFilter`], [`ValueCondition`]), and why a pattern is refused
//! ([`ParamFilterError`]).
//!
//! Names are compared as a key writes them (RFC 3986 §2.2: reserved characters stay
//! encoded), with non-ASCII characters in their percent-encoded UTF-8 form, so that a filter
//! gives the same answer on a `uri` key and on an `iri` key.

use std::fmt;

/// A name pattern that a [`ParamFilter`] cannot use. Its `Display` is the message a rules
/// file reports.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParamFilterError {
    /// No pattern at all.
    NoNames,
    /// An empty pattern.
    EmptyName,
    /// A character that cannot occur in a parameter name: `&`, `=`, `#`, a space or a
    /// control character.
    ForbiddenChar {
        /// The pattern.
        pattern: String,
        /// The character.
        found: char,
    },
    /// A `%` that does not start a `%XX` triplet.
    BadPercent {
        /// The pattern.
        pattern: String,
    },
    /// A `;`, `/` or `?` in the name of a path parameter
    /// ([`Action::DropPathParams`](super::Action::DropPathParams)).
    PathSeparator {
        /// The pattern.
        pattern: String,
    },
}

impl fmt::Display for ParamFilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamFilterError::NoNames => f.write_str("`names` must list at least one name"),
            ParamFilterError::EmptyName => f.write_str("an empty parameter name"),
            ParamFilterError::ForbiddenChar { pattern, found } => {
                write!(f, "`{pattern}`: {found:?} cannot occur in a parameter name")
            }
            ParamFilterError::BadPercent { pattern } => {
                write!(f, "`{pattern}`: '%' must start a %XX triplet")
            }
            ParamFilterError::PathSeparator { pattern } => write!(
                f,
                "`{pattern}`: a path parameter name cannot contain ';', '/' or '?'"
            ),
        }
    }
}

impl std::error::Error for ParamFilterError {}

/// A condition on a parameter's value, for generic names. All given conditions must hold;
/// a parameter without `=` has no value and fails any condition.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ValueCondition {
    /// The value is exactly this many hex digits (either case): `sid` with a PHP session
    /// id, not `sid=12` (a story id).
    pub hex_length: Option<u32>,
    /// The value stands for at least this many octets: its bytes in the key, a `%XX`
    /// counting once, so that `uri` and `iri` keys (`%F0%9F%8D%A3` or `🍣`) agree.
    pub min_length: Option<u32>,
}

impl ValueCondition {
    /// Whether no condition is set, so that any value, or none, is accepted.
    pub fn is_any(&self) -> bool {
        self.hex_length.is_none() && self.min_length.is_none()
    }

    fn holds(&self, value: Option<&str>) -> bool {
        if self.is_any() {
            return true;
        }
        let Some(v) = value else { return false };
        if let Some(n) = self.hex_length {
            if v.len() != n as usize || !v.bytes().all(|b| b.is_ascii_hexdigit()) {
                return false;
            }
        }
        if let Some(n) = self.min_length {
            // Every '%' of a key starts a triplet.
            let pct = v.bytes().filter(|&b| b == b'%').count();
            if v.len().saturating_sub(2 * pct) < n as usize {
                return false;
            }
        }
        true
    }
}

/// Which parameters a parameter rule matches: name globs, case sensitivity, and a value
/// condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamFilter {
    /// The patterns, in their matching form (non-ASCII percent-encoded, hex uppercase,
    /// lowercased unless `match_case`).
    names: Vec<String>,
    match_case: bool,
    value: ValueCondition,
    /// The bytes a matching name can start with (lowercase unless `match_case`), one bit
    /// each: a quick "certainly not" for most names before the patterns are tried. All
    /// ones when a pattern starts with `*`.
    first_bytes: [u64; 4],
}

impl ParamFilter {
    /// A filter for these names or globs, ASCII case-insensitive, any value.
    ///
    /// There must be at least one pattern. A pattern must be non-empty and may not contain
    /// `&`, `=`, `#`, spaces or control characters (they cannot occur in a parameter name);
    /// a `%` must start a `%XX` triplet. The [`ParamFilterError`] says which rule a pattern
    /// breaks.
    pub fn new<S: AsRef<str>>(names: &[S]) -> Result<ParamFilter, ParamFilterError> {
        Self::with(names, false, ValueCondition::default())
    }

    /// A filter with explicit case sensitivity and value condition.
    pub fn with<S: AsRef<str>>(
        names: &[S],
        match_case: bool,
        value: ValueCondition,
    ) -> Result<ParamFilter, ParamFilterError> {
        let mut out = Vec::with_capacity(names.len());
        for n in names {
            out.push(compile_pattern(n.as_ref(), match_case)?);
        }
        ParamFilter::compiled(out, match_case, value)
    }

    /// A filter from patterns already in matching form ([`compile_pattern`]).
    pub(super) fn compiled(
        names: Vec<String>,
        match_case: bool,
        value: ValueCondition,
    ) -> Result<ParamFilter, ParamFilterError> {
        if names.is_empty() {
            return Err(ParamFilterError::NoNames);
        }
        let mut first_bytes = [0u64; 4];
        for n in &names {
            match n.as_bytes().first() {
                Some(b'*') | None => first_bytes = [u64::MAX; 4],
                Some(&b) => first_bytes[usize::from(b >> 6)] |= 1 << (b & 63),
            }
        }
        Ok(ParamFilter {
            names,
            match_case,
            value,
            first_bytes,
        })
    }

    /// Refuses a pattern that cannot name a path parameter: `;`, `/` and `?` end one.
    pub(super) fn check_path_name(raw: &str, compiled: &str) -> Result<(), ParamFilterError> {
        if compiled.contains([';', '/', '?']) {
            return Err(ParamFilterError::PathSeparator {
                pattern: raw.to_owned(),
            });
        }
        Ok(())
    }

    /// The patterns, in matching form, in the order given.
    pub(super) fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }

    /// Whether the filter matches `param` (`name`, `name=` or `name=value`).
    pub fn matches(&self, param: &str) -> bool {
        // Most names are told apart by their first byte, before the name is cut out (an
        // ASCII byte other than `=` starts the name as the patterns see it).
        if let Some(&b) = param.as_bytes().first() {
            if b.is_ascii() && b != b'=' && !self.may_start_with(b) {
                return false;
            }
        }
        // Names are short: a plain search for the `=`.
        let (name, value) = match param.bytes().position(|b| b == b'=') {
            Some(i) => (&param[..i], Some(&param[i + 1..])),
            None => (param, None),
        };
        self.matches_name(name) && self.value.holds(value)
    }

    /// Whether some pattern starts with `b` (or a `*`), or may match a name that does.
    #[inline]
    fn may_start_with(&self, b: u8) -> bool {
        let b = if self.match_case {
            b
        } else {
            b.to_ascii_lowercase()
        };
        self.first_bytes[usize::from(b >> 6)] >> (b & 63) & 1 != 0
    }

    fn matches_name(&self, name: &str) -> bool {
        let encoded;
        let name = if name.is_ascii() {
            name.as_bytes()
        } else {
            let mut s = String::with_capacity(name.len() * 3);
            push_ascii_form(name, &mut s);
            encoded = s;
            encoded.as_bytes()
        };
        // Patterns are lowercase unless `match_case`, and only `*` matches more than itself:
        // a name whose first byte no pattern starts with matches none.
        if name.first().is_some_and(|&b| !self.may_start_with(b)) {
            return false;
        }
        let ci = !self.match_case;
        self.names
            .iter()
            .any(|p| glob_match(p.as_bytes(), name, ci))
    }
}

/// The first two bytes (ASCII lowercased) that the names some filters match can start
/// with: a quick "certainly not" before their patterns are tried, one table lookup per
/// name. A name of one byte is looked up with a second byte 0 (no name holds a NUL).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct NamePrefixes {
    /// One bit per pair of bytes.
    bits: Box<[u64; 1024]>,
    /// A pattern that starts with `*`: any name may match.
    any: bool,
}

impl Default for NamePrefixes {
    fn default() -> NamePrefixes {
        NamePrefixes {
            bits: Box::new([0; 1024]),
            any: false,
        }
    }
}

impl NamePrefixes {
    /// Adds what the patterns of `filter` can match.
    pub(super) fn add(&mut self, filter: &ParamFilter) {
        for p in filter.names() {
            match *p.as_bytes() {
                [] | [b'*', ..] => self.any = true,
                [a] => self.set(a, 0),
                [a, b'*', ..] => (0..=255).for_each(|b| self.set(a, b)),
                [a, b, ..] => self.set(a, b),
            }
        }
    }

    fn set(&mut self, a: u8, b: u8) {
        let k = Self::index(a, b);
        self.bits[k / 64] |= 1 << (k % 64);
    }

    fn index(a: u8, b: u8) -> usize {
        usize::from(a.to_ascii_lowercase()) << 8 | usize::from(b.to_ascii_lowercase())
    }

    /// Whether some pattern may match `name` (as a key writes it). `false` is certain.
    pub(super) fn may_match(&self, name: &[u8]) -> bool {
        let a = name.first().copied().unwrap_or(0);
        let b = name.get(1).copied().unwrap_or(0);
        if self.any || a >= 0x80 || b >= 0x80 {
            // Non-ASCII names are matched in their percent-encoded form.
            return true;
        }
        let k = Self::index(a, b);
        self.bits[k / 64] & (1 << (k % 64)) != 0
    }
}

/// Writes `s` with every non-ASCII character as percent-encoded UTF-8 (uppercase hex).
fn push_ascii_form(s: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for c in s.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for &b in c.encode_utf8(&mut buf).as_bytes() {
                out.push('%');
                out.push(HEX[usize::from(b >> 4)] as char);
                out.push(HEX[usize::from(b & 15)] as char);
            }
        }
    }
}

/// Checks a name pattern and puts it in matching form.
pub(super) fn compile_pattern(p: &str, match_case: bool) -> Result<String, ParamFilterError> {
    if p.is_empty() {
        return Err(ParamFilterError::EmptyName);
    }
    let b = p.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if matches!(c, b'&' | b'=' | b'#') || c <= b' ' || c == 0x7F {
            return Err(ParamFilterError::ForbiddenChar {
                pattern: p.to_owned(),
                found: c as char,
            });
        }
        if c == b'%'
            && !(i + 2 < b.len() && b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit())
        {
            return Err(ParamFilterError::BadPercent {
                pattern: p.to_owned(),
            });
        }
    }
    let mut s = String::with_capacity(p.len());
    push_ascii_form(p, &mut s);
    // Hex digits of percent-encodings in uppercase, as keys write them.
    let mut bytes = s.into_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            bytes[i + 1] = bytes[i + 1].to_ascii_uppercase();
            bytes[i + 2] = bytes[i + 2].to_ascii_uppercase();
            i += 3;
        } else {
            i += 1;
        }
    }
    if !match_case {
        bytes.make_ascii_lowercase();
    }
    Ok(String::from_utf8(bytes).unwrap_or_default())
}

/// `*`-glob match of `s` against pattern `p`; with `ci`, `p` is lowercase and `s` is
/// compared ASCII case-insensitively. Linear in practice (single-star backtracking).
fn glob_match(p: &[u8], s: &[u8], ci: bool) -> bool {
    let eq = |a: u8, b: u8| {
        if ci {
            a == b.to_ascii_lowercase()
        } else {
            a == b
        }
    };
    let (mut pi, mut si) = (0usize, 0usize);
    let mut star: Option<usize> = None;
    let mut mark = 0usize;
    while si < s.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some(pi);
            pi += 1;
            mark = si;
        } else if pi < p.len() && eq(p[pi], s[si]) {
            pi += 1;
            si += 1;
        } else if let Some(st) = star {
            pi = st + 1;
            mark += 1;
            si = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == b'*' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod prefix_tests {
    use super::*;

    #[test]
    fn prefixes_never_miss_a_name_the_patterns_match() {
        let f = ParamFilter::new(&["utm_*", "gclid", "a", "x*", "%C3%A9t%C3%A9"]).unwrap();
        let mut p = NamePrefixes::default();
        p.add(&f);
        for name in [
            "utm_source",
            "UTM_x",
            "gclid",
            "GCLID",
            "a",
            "A",
            "x",
            "xy",
            "été",
        ] {
            assert!(f.matches(name), "{name}");
            assert!(p.may_match(name.as_bytes()), "{name}");
        }
        for name in ["id", "page", "q", "ab", "", "gz", "b"] {
            assert!(!f.matches(name), "{name}");
            assert!(!p.may_match(name.as_bytes()), "{name}");
        }
        // Only a prefix test: a name that merely starts like a pattern may match.
        assert!(p.may_match(b"gc") && !f.matches("gc"));
        let mut any = NamePrefixes::default();
        any.add(&ParamFilter::new(&["*_ref"]).unwrap());
        assert!(any.may_match(b"id"));
    }

    #[test]
    fn the_first_byte_test_never_changes_a_match() {
        let names = [
            "",
            "a",
            "A",
            "utm_source",
            "UTM_x",
            "Utm",
            "gclid",
            "_ga",
            "x_ref",
            "%C3%A9t%C3%A9",
            "été",
            "sid",
            "SID",
            "s",
            "zz",
            "__hstc",
            "1",
            "~a",
        ];
        let filters = [
            ParamFilter::new(&["utm_*", "gclid", "_ga"]).unwrap(),
            ParamFilter::new(&["*_ref", "sid"]).unwrap(),
            ParamFilter::new(&["été", "__hs*"]).unwrap(),
            ParamFilter::with(&["Utm*", "sid"], true, ValueCondition::default()).unwrap(),
        ];
        for f in &filters {
            for name in names {
                let mut encoded = String::new();
                push_ascii_form(name, &mut encoded);
                let globbed = f
                    .names()
                    .any(|p| glob_match(p.as_bytes(), encoded.as_bytes(), !f.match_case));
                assert_eq!(f.matches_name(name), globbed, "{name} {f:?}");
                // The whole pair too (the first byte is looked at before the `=` is found).
                assert_eq!(f.matches(name), globbed, "{name} {f:?}");
                assert_eq!(f.matches(&format!("{name}=v")), globbed, "{name} {f:?}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob() {
        assert!(glob_match(b"utm_*", b"utm_source", false));
        assert!(glob_match(b"utm_*", b"UTM_x", true));
        assert!(!glob_match(b"utm_*", b"utm", true));
        assert!(glob_match(b"*", b"", true));
        assert!(glob_match(b"a*b*c", b"axxbyyc", false));
        assert!(!glob_match(b"a*b*c", b"axxbyy", false));
        assert!(glob_match(b"*id", b"gclid", false));
    }

    #[test]
    fn non_ascii_names_match_in_both_forms() {
        let f = ParamFilter::new(&["café"]).unwrap();
        assert!(f.matches("café=1"));
        assert!(f.matches("caf%C3%A9=1"));
        assert!(f.matches("CAF%C3%A9"));
    }

    #[test]
    fn is_any_means_no_condition() {
        assert!(ValueCondition::default().is_any());
        let hex = ValueCondition {
            hex_length: Some(4),
            ..ValueCondition::default()
        };
        assert!(!hex.is_any());
        assert!(ValueCondition::default().holds(None));
        assert!(ValueCondition::default().holds(Some("")));
        assert!(hex.holds(Some("a0F9")));
        assert!(!hex.holds(Some("a0F")));
        assert!(!hex.holds(None));
        let long = ValueCondition {
            min_length: Some(2),
            ..ValueCondition::default()
        };
        assert!(!long.is_any());
        assert!(long.holds(Some("%C3%A9")));
        assert!(!long.holds(Some("%41")));
    }

    #[test]
    fn errors_are_typed_and_say_why() {
        let cases: [(&[&str], ParamFilterError, &str); 4] = [
            (
                &[],
                ParamFilterError::NoNames,
                "`names` must list at least one name",
            ),
            (
                &["a", ""],
                ParamFilterError::EmptyName,
                "an empty parameter name",
            ),
            (
                &["a=b"],
                ParamFilterError::ForbiddenChar {
                    pattern: "a=b".into(),
                    found: '=',
                },
                "`a=b`: '=' cannot occur in a parameter name",
            ),
            (
                &["a%4"],
                ParamFilterError::BadPercent {
                    pattern: "a%4".into(),
                },
                "`a%4`: '%' must start a %XX triplet",
            ),
        ];
        for (names, error, message) in cases {
            let e = ParamFilter::new(names).unwrap_err();
            assert_eq!(e, error);
            assert_eq!(e.to_string(), message);
        }
        let e = ParamFilter::check_path_name("a;b", "a;b").unwrap_err();
        assert_eq!(
            e.to_string(),
            "`a;b`: a path parameter name cannot contain ';', '/' or '?'"
        );
        assert!(ParamFilter::check_path_name("a%3Bb", "a%3bb").is_ok());
    }
}
