//! Lenient repairs of a raw record before it is parsed (SPEC §2–§3, RFC 3987 §3.1).
//!
//! Logs and crawl dumps hold lines that are almost IRIs. By default [`prepare`] makes the
//! repairs that keep the record's meaning and counts each one:
//! - leading and trailing spaces and tabs are trimmed;
//! - the printable ASCII characters that URIs never allow (space `"` `<` `>` `\` `^`
//!   backtick `{` `|` `}`) are percent-encoded, as RFC 3987 §3.1 permits;
//! - a `%` not followed by two hex digits becomes `%25`;
//! - an octet that is not part of valid UTF-8 is kept exactly, as `%XX` (never U+FFFD);
//! - `[` and `]` outside the host are percent-encoded (`%5B`, `%5D`): RFC 3986 §3.2.2 allows
//!   them only around an IP literal, yet real URLs carry them in queries (`?p[]=1`, the
//!   array parameters of PHP and Rails) and paths. RFC 3987 §3.1 lets the mapping to a URI
//!   percent-encode characters a URI cannot hold; these two are counted as their own repair,
//!   [`RepairKind::Brackets`]. The host (an IP literal, with its brackets) and the port are
//!   left exactly as written, so `http://[::1]/` is untouched and `http://a[b]/` stays an
//!   error. The repair gives `?p[]=1` and `?p%5B%5D=1` the same key.
//!
//! Under `strict` each of these is an error instead, and nothing is trimmed. Nothing else
//! is touched here: controls, bidi formatting characters and grammar errors are the parser's
//! to report. A record that needs no repair is returned borrowed.

use crate::iri::chars::{self, FORBIDDEN_PRINTABLE, HEX_UPPER};
use crate::iri::error::{Error, ErrorKind};

/// Whether a raw record is repaired before it is parsed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Repair {
    /// Trim spaces and tabs and make the lenient repairs, counting each (the default).
    #[default]
    Lenient,
    /// No trimming and no repairs: what would need one is an error (`--strict`).
    Strict,
}

impl Repair {
    /// The column in `raw` of a 1-based character column of the record this policy made from
    /// it ([`original_column`]: the lenient repairs move characters; `Strict` moves none).
    /// The columns of errors and warnings are given in the raw record.
    pub fn raw_column(self, raw: &[u8], column: usize) -> usize {
        match self {
            Repair::Lenient => original_column(raw, column),
            Repair::Strict => column,
        }
    }
}

/// The kinds of repair, for counting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RepairKind {
    /// Leading or trailing spaces or tabs removed.
    Trim,
    /// A printable ASCII character URIs forbid, percent-encoded.
    ForbiddenAscii,
    /// A `%` not followed by two hex digits, written `%25`.
    StrayPercent,
    /// An octet that is not part of valid UTF-8, written `%XX`.
    NonUtf8,
    /// A `[` or `]` outside the host (in the userinfo, path, query or fragment), written
    /// `%5B` or `%5D`.
    Brackets,
}

impl RepairKind {
    /// Every kind, in declaration order.
    pub const ALL: [RepairKind; 5] = [
        RepairKind::Trim,
        RepairKind::ForbiddenAscii,
        RepairKind::StrayPercent,
        RepairKind::NonUtf8,
        RepairKind::Brackets,
    ];

    /// The stable name printed by `--stats` and `--explain`.
    pub fn name(self) -> &'static str {
        match self {
            RepairKind::Trim => "trim",
            RepairKind::ForbiddenAscii => "forbidden-ascii",
            RepairKind::StrayPercent => "stray-percent",
            RepairKind::NonUtf8 => "non-utf8",
            RepairKind::Brackets => "brackets",
        }
    }
}

/// Counts of repairs made, by kind (each repaired character or octet counts once; a trim
/// counts once per record).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Repairs {
    counts: [u64; RepairKind::ALL.len()],
}

impl Repairs {
    /// Adds one repair of `kind`.
    pub fn add(&mut self, kind: RepairKind) {
        self.counts[kind as usize] += 1;
    }

    /// The number of repairs of `kind`.
    pub fn get(&self, kind: RepairKind) -> u64 {
        self.counts[kind as usize]
    }

    /// The number of repairs of every kind.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Adds the counts of `other` to these.
    pub fn merge(&mut self, other: &Repairs) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
    }
}

#[inline]
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Trims spaces and tabs at both ends (lenient mode only).
fn trim_blanks(raw: &[u8]) -> &[u8] {
    let start = raw.iter().position(|&b| !is_blank(b)).unwrap_or(raw.len());
    let end = raw
        .iter()
        .rposition(|&b| !is_blank(b))
        .map_or(start, |i| i + 1);
    &raw[start..end]
}

/// The bytes of `s` where `[` and `]` are left as they are: the host and port of the
/// authority, from just after the last `@` of the authority (or its start) to its end
/// (RFC 3986 §3.2: the authority follows `//` and ends at the next `/`, `?` or `#`; the
/// `//` comes first in a network-path reference or right after `scheme:`, §3.1, §4.2).
/// An IP literal is the only place a URI may hold them (§3.2.2); anywhere else in the host
/// they stay for the parser to reject. Empty when there is no authority.
fn bracket_host_range(s: &[u8]) -> std::ops::Range<usize> {
    let scheme_len = match s.first() {
        Some(b) if b.is_ascii_alphabetic() => s
            .iter()
            .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))
            .filter(|&i| s[i] == b':')
            .map_or(0, |i| i + 1),
        _ => 0,
    };
    let Some(rest) = s[scheme_len..].strip_prefix(b"//") else {
        return 0..0;
    };
    let start = scheme_len + 2;
    let end = rest
        .iter()
        .position(|&b| matches!(b, b'/' | b'?' | b'#'))
        .map_or(s.len(), |i| start + i);
    let host = s[start..end]
        .iter()
        .rposition(|&b| b == b'@')
        .map_or(start, |i| start + i + 1);
    host..end
}

/// Whether `b`, at index `i`, is a bracket that the lenient repairs encode.
#[inline]
fn is_stray_bracket(b: u8, i: usize, host: &std::ops::Range<usize>) -> bool {
    (b == b'[' || b == b']') && !host.contains(&i)
}

/// Whether `s[i]` (a `%`) starts a well-formed `pct-encoded` triplet.
#[inline]
fn is_pct_triplet(s: &[u8], i: usize) -> bool {
    i + 2 < s.len() && chars::is(s[i + 1], chars::HEX) && chars::is(s[i + 2], chars::HEX)
}

/// Prepares a raw record (no line terminator) for parsing.
///
/// Returns the text to parse: borrowed from `raw` when nothing was repaired, otherwise
/// written into `scratch`. Repairs made are added to `repairs`. Under `strict`, a record
/// that would need a repair is an error with its column.
pub fn prepare<'a>(
    raw: &'a [u8],
    repair: Repair,
    scratch: &'a mut String,
    repairs: &mut Repairs,
) -> Result<&'a str, Error> {
    match simdutf8::basic::from_utf8(raw) {
        Ok(text) => prepare_str(text, repair, scratch, repairs),
        Err(_) => prepare_invalid_utf8(raw, repair == Repair::Strict, scratch, repairs),
    }
}

/// [`prepare`], given the record as text too when it is known to be valid UTF-8 (`text`
/// must then be `raw` itself).
pub fn prepare_text<'a>(
    raw: &'a [u8],
    text: Option<&'a str>,
    repair: Repair,
    scratch: &'a mut String,
    repairs: &mut Repairs,
) -> Result<&'a str, Error> {
    match text {
        Some(text) => prepare_str(text, repair, scratch, repairs),
        None => prepare(raw, repair, scratch, repairs),
    }
}

/// The record the lenient repairs start from: `text` without leading and trailing spaces
/// and tabs.
pub(crate) fn trim_lenient(text: &str) -> &str {
    text.trim_matches(|c| c == ' ' || c == '\t')
}

/// Whether the lenient repairs would leave `body` (already trimmed) exactly as it is.
///
/// Every byte they rewrite is one that no production of RFC 3987 §2.2 allows where it
/// stands, so a record the parser accepts needs none: the ladder parses first and repairs
/// only a record the parser refused. This is the check of that claim, for debug builds.
pub(crate) fn needs_no_repair(body: &str) -> bool {
    first_needing_repair(body.as_bytes(), true).is_none()
}

/// [`prepare`] for a record already known to be valid UTF-8.
pub fn prepare_str<'a>(
    text: &'a str,
    repair: Repair,
    scratch: &'a mut String,
    repairs: &mut Repairs,
) -> Result<&'a str, Error> {
    let bytes = text.as_bytes();
    let strict = repair == Repair::Strict;
    let body = if strict { bytes } else { trim_blanks(bytes) };
    if body.is_empty() {
        return Err(Error::new(ErrorKind::Empty, 0, "empty record"));
    }
    // Under strict, brackets are the parser's to report, in its order (a control character
    // before them is reported as one).
    let first = first_needing_repair(body, !strict);
    let trimmed = body.len() != bytes.len();
    let Some(first) = first else {
        if trimmed {
            repairs.add(RepairKind::Trim);
        }
        let start = body.as_ptr() as usize - bytes.as_ptr() as usize;
        return Ok(&text[start..start + body.len()]);
    };
    if strict {
        let kind = if body[first] == b'%' {
            ErrorKind::BadPercent
        } else {
            ErrorKind::Syntax
        };
        let msg = if kind == ErrorKind::BadPercent {
            "'%' not followed by two hex digits"
        } else {
            "character not allowed in a URI or IRI"
        };
        return Err(Error::at_byte(kind, text, first, msg));
    }
    if trimmed {
        repairs.add(RepairKind::Trim);
    }
    scratch.clear();
    repair_into(body, first, scratch, repairs);
    Ok(scratch.as_str())
}

/// The bytes [`first_needing_repair`] looks at: forbidden printable characters, `%`, `[`
/// and `]`.
static MAY_NEED_REPAIR: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 128 {
        t[b] = chars::is(b as u8, FORBIDDEN_PRINTABLE) || matches!(b as u8, b'%' | b'[' | b']');
        b += 1;
    }
    t
};

/// The index of the first byte of `s` that needs a repair (a forbidden printable ASCII
/// character, a stray `%`, or with `brackets` a `[` or `]` outside the host), if any. Valid
/// UTF-8 is assumed.
#[inline]
fn first_needing_repair(s: &[u8], brackets: bool) -> Option<usize> {
    let mut i = 0;
    let mut host = None;
    while i < s.len() {
        // Runs of bytes that need no second look, four at a time.
        while i + 4 <= s.len()
            && !(MAY_NEED_REPAIR[usize::from(s[i])]
                | MAY_NEED_REPAIR[usize::from(s[i + 1])]
                | MAY_NEED_REPAIR[usize::from(s[i + 2])]
                | MAY_NEED_REPAIR[usize::from(s[i + 3])])
        {
            i += 4;
        }
        let Some(&b) = s.get(i) else { break };
        if !MAY_NEED_REPAIR[usize::from(b)] {
            i += 1;
            continue;
        }
        if b == b'%' {
            if !is_pct_triplet(s, i) {
                return Some(i);
            }
            // Past its two hex digits.
            i += 3;
            continue;
        }
        if chars::is(b, FORBIDDEN_PRINTABLE) {
            return Some(i);
        }
        if brackets && (b == b'[' || b == b']') {
            let host = host.get_or_insert_with(|| bracket_host_range(s));
            if !host.contains(&i) {
                return Some(i);
            }
        }
        i += 1;
    }
    None
}

/// Copies `s` into `out`, repairing from index `first` on (valid UTF-8 assumed).
fn repair_into(s: &[u8], first: usize, out: &mut String, repairs: &mut Repairs) {
    let mut buf = std::mem::take(out).into_bytes();
    buf.extend_from_slice(&s[..first]);
    let host = bracket_host_range(s);
    for i in first..s.len() {
        let b = s[i];
        if chars::is(b, FORBIDDEN_PRINTABLE) {
            push_pct(&mut buf, b);
            repairs.add(RepairKind::ForbiddenAscii);
        } else if is_stray_bracket(b, i, &host) {
            push_pct(&mut buf, b);
            repairs.add(RepairKind::Brackets);
        } else if b == b'%' && !is_pct_triplet(s, i) {
            buf.extend_from_slice(b"%25");
            repairs.add(RepairKind::StrayPercent);
        } else {
            buf.push(b);
        }
    }
    // Only ASCII was replaced by ASCII; the rest was copied whole from valid UTF-8.
    *out = String::from_utf8(buf).expect("repairs keep UTF-8 valid");
}

fn push_pct(buf: &mut Vec<u8>, b: u8) {
    buf.push(b'%');
    buf.push(HEX_UPPER[(b >> 4) as usize]);
    buf.push(HEX_UPPER[(b & 15) as usize]);
}

/// Appends `raw` as text: its valid UTF-8 as it is, each octet that is not part of valid
/// UTF-8 as `%XX` (never U+FFFD, which would give different records one key), calling
/// `on_octet` for each such octet.
fn push_octets_as_text(raw: &[u8], text: &mut String, mut on_octet: impl FnMut()) {
    for piece in raw.utf8_chunks() {
        text.push_str(piece.valid());
        for &b in piece.invalid() {
            text.push('%');
            text.push(char::from(HEX_UPPER[usize::from(b >> 4)]));
            text.push(char::from(HEX_UPPER[usize::from(b & 15)]));
            on_octet();
        }
    }
}

/// `raw` as text, each octet that is not part of valid UTF-8 written `%XX`, as the lenient
/// repair writes it; borrowed when `raw` is valid UTF-8.
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn octets_as_text(raw: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(raw) {
        Ok(text) => text.into(),
        Err(_) => {
            let mut text = String::with_capacity(raw.len() + 8);
            push_octets_as_text(raw, &mut text, || {});
            text.into()
        }
    }
}

fn prepare_invalid_utf8<'a>(
    raw: &'a [u8],
    strict: bool,
    scratch: &'a mut String,
    repairs: &mut Repairs,
) -> Result<&'a str, Error> {
    if strict {
        let valid_up_to = match std::str::from_utf8(raw) {
            Err(e) => e.valid_up_to(),
            Ok(_) => raw.len(),
        };
        return Err(Error::new(
            ErrorKind::Utf8,
            valid_up_to + 1,
            "octet that is not part of valid UTF-8",
        ));
    }
    let body = trim_blanks(raw);
    if body.len() != raw.len() {
        repairs.add(RepairKind::Trim);
    }
    // Write the valid runs as they are and every invalid octet as %XX; then run the text
    // repairs over the result.
    let mut text = String::with_capacity(body.len() + 8);
    push_octets_as_text(body, &mut text, || repairs.add(RepairKind::NonUtf8));
    let bytes = text.as_bytes();
    match first_needing_repair(bytes, true) {
        None => *scratch = text,
        Some(first) => {
            scratch.clear();
            repair_into(bytes, first, scratch, repairs);
        }
    }
    Ok(scratch.as_str())
}

/// Maps a 1-based character column of the repaired text back to the column of the raw
/// record it came from, by replaying the lenient repairs. (Under `strict` nothing is
/// repaired and columns need no mapping.) Only called on the error path.
pub fn original_column(raw: &[u8], repaired_column: usize) -> usize {
    if repaired_column == 0 {
        return 0;
    }
    let lead = raw.iter().take_while(|&&b| is_blank(b)).count();
    let body = trim_blanks(raw);
    // Walk the raw record one unit (a character, or one invalid octet) at a time, counting
    // how many characters of repaired text each unit became.
    let mut produced = 0usize;
    let mut column = lead;
    let mut i = 0;
    // Invalid octets become `%XX` without moving the ASCII delimiters, so the host found in
    // the raw record is the one the repairs saw.
    let host = bracket_host_range(body);
    while i < body.len() {
        let b = body[i];
        let (unit_len, out_chars) = if b < 0x80 {
            let expands = chars::is(b, FORBIDDEN_PRINTABLE)
                || (b == b'%' && !is_pct_triplet(body, i))
                || is_stray_bracket(b, i, &host);
            (1, if expands { 3 } else { 1 })
        } else {
            match utf8_char_len(&body[i..]) {
                Some(n) => (n, 1),
                None => (1, 3),
            }
        };
        column += 1;
        produced += out_chars;
        if produced >= repaired_column {
            return column;
        }
        i += unit_len;
    }
    column + 1
}

/// The length of the valid UTF-8 sequence at the start of `s`, if there is one.
fn utf8_char_len(s: &[u8]) -> Option<usize> {
    let n = match s[0] {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    let head = s.get(..n)?;
    std::str::from_utf8(head).ok().map(|_| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lenient(raw: &[u8]) -> (Result<String, Error>, Repairs) {
        let mut scratch = String::new();
        let mut r = Repairs::default();
        let out = prepare(raw, Repair::Lenient, &mut scratch, &mut r).map(str::to_owned);
        (out, r)
    }

    fn strict(raw: &[u8]) -> Result<String, Error> {
        let mut scratch = String::new();
        let mut r = Repairs::default();
        prepare(raw, Repair::Strict, &mut scratch, &mut r).map(str::to_owned)
    }

    #[test]
    fn clean_record_is_borrowed() {
        let mut scratch = String::new();
        let mut r = Repairs::default();
        let raw = b"http://example.com/a%20b";
        let out = prepare(raw, Repair::Lenient, &mut scratch, &mut r).unwrap();
        assert_eq!(out.as_ptr(), raw.as_ptr());
        assert_eq!(r.total(), 0);
    }

    #[test]
    fn lenient_repairs_are_made_and_counted() {
        let (out, r) = lenient(b" \thttp://a/b c<d>%zz%4\t ");
        assert_eq!(out.unwrap(), "http://a/b%20c%3Cd%3E%25zz%254");
        assert_eq!(r.get(RepairKind::Trim), 1);
        assert_eq!(r.get(RepairKind::ForbiddenAscii), 3);
        assert_eq!(r.get(RepairKind::StrayPercent), 2);
    }

    #[test]
    fn stray_octets_are_kept_as_percent_encodings_never_u_fffd() {
        let (out, r) = lenient(b"http://a/\xE9t\xC3\xA9\xFF%");
        assert_eq!(out.unwrap(), "http://a/%E9t\u{e9}%FF%25");
        assert_eq!(r.get(RepairKind::NonUtf8), 2);
        assert_eq!(r.get(RepairKind::StrayPercent), 1);
    }

    #[test]
    fn strict_rejects_what_lenient_repairs() {
        assert_eq!(strict(b" http://a/").unwrap_err().kind, ErrorKind::Syntax);
        let e = strict(b"http://a/%4g").unwrap_err();
        assert_eq!((e.kind, e.column), (ErrorKind::BadPercent, 10));
        let e = strict(b"http://a/\xC3\xA9\xFF").unwrap_err();
        assert_eq!((e.kind, e.column), (ErrorKind::Utf8, 12));
        let e = strict("http://é/<".as_bytes()).unwrap_err();
        assert_eq!((e.kind, e.column), (ErrorKind::Syntax, 10));
    }

    #[test]
    fn empty_records_are_errors() {
        assert_eq!(lenient(b"").0.unwrap_err().kind, ErrorKind::Empty);
        assert_eq!(lenient(b" \t ").0.unwrap_err().kind, ErrorKind::Empty);
        assert_eq!(strict(b"").unwrap_err().kind, ErrorKind::Empty);
    }

    #[test]
    fn brackets_outside_the_host_are_encoded_and_counted() {
        // RFC 3986 §3.2.2: "[" and "]" belong around an IP literal only.
        let (out, r) = lenient(b"http://a/?p[]=1&q[x]=2");
        assert_eq!(out.unwrap(), "http://a/?p%5B%5D=1&q%5Bx%5D=2");
        assert_eq!(r.get(RepairKind::Brackets), 4);
        assert_eq!(r.total(), 4);
        let (out, r) = lenient(b"http://[2001:db8::1]:8080/a[1]#b]");
        assert_eq!(out.unwrap(), "http://[2001:db8::1]:8080/a%5B1%5D#b%5D");
        assert_eq!(r.get(RepairKind::Brackets), 3);
        // Userinfo is outside the host; the IP literal after the last "@" is kept.
        let (out, _) = lenient(b"//u[1]@[v1.x]/[");
        assert_eq!(out.unwrap(), "//u%5B1%5D@[v1.x]/%5B");
        // No authority: every bracket is outside a host.
        let (out, _) = lenient(b"mailto:a[1]@b.c");
        assert_eq!(out.unwrap(), "mailto:a%5B1%5D@b.c");
        let (out, _) = lenient(b"a[b]/c");
        assert_eq!(out.unwrap(), "a%5Bb%5D/c");
        // Brackets in the host or port that are no IP literal stay, for the parser.
        for raw in [
            "http://[::1]/",
            "http://a[b]/",
            "http://[::1]]/",
            "http://h:8]/x",
        ] {
            let (out, r) = lenient(raw.as_bytes());
            assert_eq!(out.unwrap(), raw);
            assert_eq!(r.total(), 0);
        }
        // With other repairs in the same record: a space, a backslash, invalid UTF-8.
        let (out, r) = lenient(b" http://a/ [\\\xFF]");
        assert_eq!(out.unwrap(), "http://a/%20%5B%5C%FF%5D");
        assert_eq!(r.get(RepairKind::Brackets), 2);
        assert_eq!(r.get(RepairKind::ForbiddenAscii), 2);
        assert_eq!(r.get(RepairKind::NonUtf8), 1);
        assert_eq!(r.get(RepairKind::Trim), 1);
        let (out, r) = lenient(b"http://[::1]/\xE9[");
        assert_eq!(out.unwrap(), "http://[::1]/%E9%5B");
        assert_eq!(r.get(RepairKind::Brackets), 1);
    }

    #[test]
    fn strict_leaves_brackets_to_the_parser() {
        // Nothing is repaired; the parser rejects them (`--strict` keeps them an error).
        assert_eq!(strict(b"http://a/?p[]=1").unwrap(), "http://a/?p[]=1");
        assert_eq!(strict(b"http://[::1]/").unwrap(), "http://[::1]/");
    }

    #[test]
    fn columns_map_back_through_bracket_repairs() {
        // After an IP literal (kept), two brackets (3 characters each) and an invalid octet
        // (3 characters), the control character is at raw column 19.
        let raw: &[u8] = b"  http://[::1]/[\xFF]\x07";
        let (out, _) = lenient(raw);
        let out = out.unwrap();
        assert_eq!(out, "http://[::1]/%5B%FF%5D\u{7}");
        let col = out.chars().position(|c| c == '\u{7}').unwrap() + 1;
        assert_eq!(col, 23);
        assert_eq!(original_column(raw, col), 19);
        // A column inside the IP literal does not move.
        assert_eq!(original_column(raw, 9), 11);
        let raw = "a[é]\u{7}".as_bytes();
        let (out, _) = lenient(raw);
        let out = out.unwrap();
        let col = out.chars().position(|c| c == '\u{7}').unwrap() + 1;
        assert_eq!(col, 9);
        assert_eq!(original_column(raw, col), 5);
    }

    #[test]
    fn columns_map_back_through_repairs() {
        let raw = "  a<b>é\u{7}".as_bytes();
        let (out, _) = lenient(raw);
        let out = out.unwrap();
        assert_eq!(out, "a%3Cb%3Eé\u{7}");
        // The control character is at repaired column 10 and raw column 8.
        let col = out.chars().position(|c| c == '\u{7}').unwrap() + 1;
        assert_eq!(col, 10);
        assert_eq!(original_column(raw, col), 8);
        let raw = b"a\xFFb\x07";
        assert_eq!(original_column(raw, 6), 4);
    }

    #[test]
    fn a_nul_byte_is_its_own_error_at_its_first_column() {
        let other = Error::new(ErrorKind::Syntax, 1, "x");
        let nul = |raw: &[u8]| {
            let e = crate::iri::error::with_nul_first(raw, other.clone());
            (e.kind, e.column)
        };
        assert_eq!(nul(b"\0"), (ErrorKind::Nul, 1));
        assert_eq!(nul(b"http://a/\x01\0\0"), (ErrorKind::Nul, 11));
        // Characters and stray octets count one column each.
        assert_eq!(nul("h\u{e9}\u{1F600}\0".as_bytes()), (ErrorKind::Nul, 4));
        assert_eq!(nul(b"a\xFF\xFEb\0"), (ErrorKind::Nul, 5));
        // No NUL: the error as it was; a too-long record is not looked at.
        assert_eq!(
            crate::iri::error::with_nul_first(b"http://a/", other.clone()),
            other
        );
        let long = Error::new(ErrorKind::TooLong, 0, "too long");
        assert_eq!(crate::iri::error::with_nul_first(b"\0", long.clone()), long);
        // Through the lenient and the strict preparation alike.
        for repair in [crate::Repair::Lenient, crate::Repair::Strict] {
            let mut scratch = String::new();
            let raw = b" a b\xFF\0";
            let mut repairs = crate::Repairs::default();
            let e = prepare(raw, repair, &mut scratch, &mut repairs)
                .and_then(|t| crate::iri::parse::check(t, crate::Grammar::IriReference))
                .map_err(|e| crate::iri::error::with_nul_first(raw, e))
                .unwrap_err();
            assert_eq!((e.kind, e.column), (ErrorKind::Nul, 6), "{repair:?}");
        }
    }
}
