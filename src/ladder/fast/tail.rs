//! The path, query and fragment of a record: one scan, a block of masks at a time, to the
//! end of the record ([`scan_tail`]), then the checks of what it found (a `%`, non-ASCII, a
//! possible dot segment), byte by byte, only where the masks saw such a byte.

use super::blocks::Blocks;
use super::FastPath;
use crate::iri::bidi;
use crate::iri::path;
use crate::iri::percent::{self, Recode};

/// What the scan of a path, query and fragment found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Tail {
    /// The end of the record: its line feed (or the carriage return before one), or the
    /// end of the text.
    pub(super) end: usize,
    /// It holds a `%`.
    pub(super) pct: bool,
    /// It holds a `#` (just one).
    pub(super) hash: bool,
    /// It holds non-ASCII characters.
    pub(super) high: bool,
    /// A `.` starts a segment: first in the path, or after a `/` (a dot segment may be
    /// there; a `.` in the query after a `/` counts too).
    pub(super) dots: bool,
    /// It holds a `?` or a `;`, or the scan was not asked to tell.
    pub(super) marks: bool,
}

/// What [`scan_tail`] looks for on the way besides the end of the record: the bits of its
/// `LOOK` parameter.
pub(crate) mod look {
    /// `?` and `;` ([`super::Tail::marks`]): where protocol rules run.
    pub(crate) const MARKS: u8 = 1;
    /// Not for the tail, but for the authority: a registered name without a DNS rule is
    /// tried as an LDH name first (`FastPath::authority`), which gives its dots. Where the
    /// scheme table does not apply (below the scheme rung), every host is such a name; at
    /// the scheme rung few are, and the scan is compiled without that try.
    pub(crate) const LDH_REG: u8 = 2;
}

/// Scans the path, query and fragment that start at `from`, to the end of the record, and
/// looks on the way for what `LOOK` says ([`look`]). `None` when a byte that no component
/// allows raw comes before the line feed (a carriage return just before it excepted), or
/// when there is a second `#`.
#[inline(always)]
pub(super) fn scan_tail<L: Blocks, const LOOK: u8>(
    lanes: L,
    b: &[u8],
    from: usize,
) -> Option<Tail> {
    let mut i = from;
    let (mut rare, mut dots, mut marks) = (0u64, 0u64, 0u64);
    let end = loop {
        // One classification of the block answers every question about it.
        let m = lanes.tail_masks::<LOOK>(b, i);
        // The bytes before the first one no component allows raw (the record's end): all
        // of them where the block has none.
        let keep = m.bad.wrapping_sub(1) & !m.bad;
        if LOOK & look::MARKS != 0 {
            marks |= m.marks & keep;
        }
        if m.bad | m.rare | m.dot != 0 {
            // A '/' before the block, or the start of the path (where a '.' starts a
            // segment).
            let carry = u64::from(i == from || b[i - 1] == b'/');
            rare |= m.rare & keep;
            dots |= ((m.slash << 1) | carry) & m.dot & keep;
            if m.bad != 0 {
                break i + m.bad.trailing_zeros() as usize;
            }
        }
        i += L::WIDTH;
    };
    // The record ends at its line feed, or at the carriage return before one (past the end
    // of the text, the block read line feeds).
    if !matches!(b.get(end), None | Some(b'\n')) && !ends_crlf(b, end) {
        return None;
    }
    let mut tail = Tail {
        end,
        pct: false,
        hash: false,
        high: false,
        dots: dots != 0,
        marks: LOOK & look::MARKS == 0 || marks != 0,
    };
    if rare != 0 {
        // '%', '#' or non-ASCII: which ones, and not two '#'.
        let t = &b[from..end];
        let mut hashes = memchr::memchr_iter(b'#', t);
        tail.hash = hashes.next().is_some();
        if hashes.next().is_some() {
            return None;
        }
        tail.pct = memchr::memchr(b'%', t).is_some();
        tail.high = !t.is_ascii();
    }
    Some(tail)
}

/// Whether `b[i..]` starts with a carriage return and a line feed.
#[inline]
pub(crate) fn ends_crlf(b: &[u8], i: usize) -> bool {
    b.get(i..i + 2) == Some(b"\r\n")
}

/// The plain form of [`scan_tail`], kept as the reference it is tested against.
#[cfg(test)]
pub(super) fn scan_tail_reference(b: &[u8], from: usize, looks: u8) -> Option<Tail> {
    let end = b[from..]
        .iter()
        .position(|&c| c < 0x80 && super::scalar::is_bad(c))
        .map_or(b.len(), |k| from + k);
    if end < b.len() && b[end] != b'\n' && !b[end..].starts_with(b"\r\n") {
        return None;
    }
    let t = &b[from..end];
    if t.iter().filter(|&&c| c == b'#').count() > 1 {
        return None;
    }
    Some(Tail {
        end,
        pct: t.contains(&b'%'),
        hash: t.contains(&b'#'),
        high: !t.is_ascii(),
        dots: t.first() == Some(&b'.') || t.windows(2).any(|w| w == b"/."),
        marks: looks & look::MARKS == 0 || t.contains(&b'?') || t.contains(&b';'),
    })
}

impl FastPath {
    /// Whether the path, query and fragment `s[pos..tail.end]` that [`scan_tail`] found are
    /// written as the rung writes them: at once where the scan saw nothing to look at
    /// again (the common case). `absolute` and `has_authority` say whether the rung removes
    /// the path's dot segments ([`path::removes_dot_segments`]).
    #[inline(always)]
    pub(super) fn tail_ok(
        &self,
        s: &str,
        pos: usize,
        tail: Tail,
        absolute: bool,
        has_authority: bool,
    ) -> bool {
        if !(tail.pct || tail.hash || tail.high || tail.dots) {
            return true;
        }
        self.rare_tail_ok(&s[pos..tail.end], tail, absolute, has_authority)
    }

    /// [`FastPath::tail_ok`] for a tail `t` with a `%`, a `#`, non-ASCII or a possible dot
    /// segment.
    #[inline(always)]
    fn rare_tail_ok(&self, t: &str, tail: Tail, absolute: bool, has_authority: bool) -> bool {
        let canon = !self.string_level;
        if tail.hash && self.drop_fragment {
            return false;
        }
        // NFC may change text that stands for non-ASCII characters, raw or encoded.
        if self.nfc && percent::has_non_ascii(t) {
            return false;
        }
        if tail.pct && !self.percent_ok(t.as_bytes()) {
            return false;
        }
        // The uri form encodes raw non-ASCII.
        if tail.high && ((canon && !self.iri) || !non_ascii_ok(t)) {
            return false;
        }
        !(canon && tail.dots && has_dot_segments(t, absolute, has_authority))
    }

    /// Whether every `%` of `tail` starts a valid triplet that the rung keeps as it is: at
    /// the string rung any, above it one the key writer's policy keeps
    /// ([`percent::keeps_triplet`]).
    fn percent_ok(&self, tail: &[u8]) -> bool {
        let mut triplets = memchr::memchr_iter(b'%', tail);
        if self.string_level {
            return triplets.all(|i| percent::triplet_at(tail, i).is_some());
        }
        let policy = Recode::canonical(self.iri);
        triplets.all(|i| percent::keeps_triplet(tail, i, policy))
    }
}

/// Whether the path at the start of `t` (a path, query and fragment) holds a dot segment
/// that the rung removes.
#[inline]
fn has_dot_segments(t: &str, absolute: bool, has_authority: bool) -> bool {
    let path_end = memchr::memchr2(b'?', b'#', t.as_bytes()).unwrap_or(t.len());
    let p = &t[..path_end];
    path::removes_dot_segments(absolute, has_authority, p) && path::has_dot_segments(p)
}

/// Whether every non-ASCII character of `tail` (the path, query and fragment) may stand raw
/// where it stands ([`percent::iri_allows`]: RFC 3987 §2.2, `iprivate` in the query only,
/// never a bidi formatting character), and none is right-to-left (the ladder checks those
/// against RFC 3987 §4.2 and may warn).
fn non_ascii_ok(tail: &str) -> bool {
    let mut in_query = false;
    let mut in_fragment = false;
    for c in tail.chars() {
        match c {
            '?' if !in_fragment => in_query = true,
            '#' => {
                in_query = false;
                in_fragment = true;
            }
            c if c.is_ascii() => {}
            c if !percent::iri_allows(c, in_query) => return false,
            // The ladder may warn about it (RFC 3987 §4.2).
            c if bidi::is_right_to_left(c) => return false,
            _ => {}
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ladder::Options;

    #[test]
    fn non_ascii_is_checked_where_it_stands() {
        assert!(non_ascii_ok("/\u{e9}?\u{E000}#\u{e9}"));
        assert!(!non_ascii_ok("/\u{E000}"));
        assert!(!non_ascii_ok("/a#\u{E000}"));
        assert!(!non_ascii_ok("/\u{202E}"));
    }

    #[test]
    fn percent_encodings_the_rung_keeps() {
        let f = FastPath::new(&Options::default());
        for yes in ["%20", "%2F%3A", "%C3%A9", "a%25b"] {
            assert!(f.percent_ok(yes.as_bytes()), "{yes}");
        }
        for no in ["%2f", "%41", "%7E", "%", "%4", "%zz", "%c3%a9"] {
            assert!(!f.percent_ok(no.as_bytes()), "{no}");
        }
        let iri = FastPath::new(&Options::default().with_form(crate::ladder::Form::Iri));
        assert!(!iri.percent_ok(b"%C3%A9"));
        let string = FastPath::new(&Options::default().with_level(crate::ladder::Level::String));
        assert!(string.percent_ok(b"%7e%41"));
        assert!(!string.percent_ok(b"%zz"));
    }
}
