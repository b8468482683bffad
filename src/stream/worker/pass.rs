//! A worker's way through one chunk of lines ([`Pass`]): where it is, and how much of the
//! chunk is validated as UTF-8, a piece at a time ([`PIECE`]); and the checks of the line
//! ends a run of lines hands out.

use crate::ladder::normalizer::NextLine;

/// The chunk is validated as UTF-8 this many bytes at a time (cut after a line feed; a
/// longer line is a piece of its own), each piece just before its lines are gone through:
/// the scan then reads bytes that are in the cache, and, as it prefetches the input ahead
/// of the line at hand, the processor fetches the next piece while the scan works on this
/// one. Validated at once, a chunk's bytes came from memory in one stretch in which the
/// processor did nothing else: one thread took 4-12 % more CPU time in the modes whose lines
/// mostly pass through (docs/performance.md, "2026-11-27, fifth").
pub(super) const PIECE: usize = 16 * 1024;

/// A worker's way through one chunk of lines: where it is.
pub(super) struct Pass<'c> {
    /// The chunk's bytes.
    pub(super) data: &'c [u8],
    /// The pieces of `data` validated so far, as text, while every one is valid UTF-8
    /// ([`Pass::validate_piece`]): they end after a line feed, or at the end of `data`.
    /// `None` once a piece is not: from that piece to the end of the chunk, each line is
    /// checked alone.
    pub(super) text: Option<&'c str>,
    /// The start of the next line, and its line number.
    pub(super) start: usize,
    pub(super) line: u64,
    /// What the ladder said of the line at `start`: whether its runs of keys take it
    /// ([`crate::ladder::Normalizer::canonical_lines_then_keys`]).
    pub(super) next: NextLine,
}

impl<'c> Pass<'c> {
    /// The way through `data`, whose first line is numbered `line`.
    pub(super) fn new(data: &'c [u8], line: u64) -> Self {
        Pass {
            data,
            // Validated a piece at a time as the lines are gone through.
            text: Some(""),
            start: 0,
            line,
            next: NextLine::Unknown,
        }
    }

    /// Whether the whole chunk is gone through (past its end after a last line without a
    /// line feed).
    #[inline]
    pub(super) fn done(&self) -> bool {
        self.start >= self.data.len()
    }

    /// Where the text validated so far ends (see [`Pass::text`]): the end of `data` once a
    /// piece is not valid UTF-8, as nothing more is validated.
    #[inline]
    pub(super) fn valid_to(&self) -> usize {
        self.text.map_or(self.data.len(), str::len)
    }

    /// Validates pieces until the line at `start` is in the text validated (or a piece is
    /// not valid UTF-8).
    #[inline]
    pub(super) fn validate_to_start(&mut self) {
        while self.start >= self.valid_to() {
            self.validate_piece();
        }
    }

    /// Validates the next piece of the chunk, from the end of `text` to the last line feed
    /// within [`PIECE`] bytes (or the first after them, or the end of the chunk), and extends
    /// `text` over it; where it is not valid UTF-8, `text` is `None` for the rest of the
    /// chunk.
    fn validate_piece(&mut self) {
        // After a piece that is not valid UTF-8, nothing more is validated.
        let Some(valid) = self.text else { return };
        let (data, from) = (self.data, valid.len());
        let end = piece_end(data, from);
        if simdutf8::basic::from_utf8(&data[from..end]).is_ok() {
            // SAFETY: `data[..from]` is valid UTF-8 (it is `valid`, a `&str`), and so is
            // `data[from..end]` (just validated); valid UTF-8 followed by valid UTF-8 is
            // valid UTF-8.
            self.text = Some(unsafe { std::str::from_utf8_unchecked(&data[..end]) });
        } else {
            self.text = None;
        }
    }

    /// Moves past `bytes` bytes of whole lines, `lines` of them.
    #[inline]
    pub(super) fn advance(&mut self, bytes: usize, lines: u64) {
        self.start += bytes;
        self.line += lines;
    }

    /// The end of the line at `start`: its line feed, or the end of the chunk.
    #[inline]
    pub(super) fn line_end(&self) -> usize {
        let rest = &self.data[self.start..];
        memchr::memchr(b'\n', rest).map_or(self.data.len(), |i| self.start + i)
    }
}

/// The end of the piece of `data` that starts at `from` ([`PIECE`]): just after the last
/// line feed within `PIECE` bytes, else after the first line feed past them, else the end
/// of `data`.
pub(super) fn piece_end(data: &[u8], from: usize) -> usize {
    let end = from.saturating_add(PIECE);
    if end >= data.len() {
        return data.len();
    }
    match memchr::memrchr(b'\n', &data[from..end]) {
        Some(k) => from + k + 1,
        None => memchr::memchr(b'\n', &data[end..]).map_or(data.len(), |k| end + k + 1),
    }
}

/// The contract of the lines a run of lines hands out, checked: `line` starts at
/// `rest[at..]` (where the line before ended), is not empty, is at most `max_line` bytes
/// long, and is ended by a line feed or a CRLF (not by the end of the chunk). Returns the
/// length of that line end (1 or 2).
#[inline]
pub(super) fn handed_out_line(rest: &str, at: usize, line: &str, max_line: usize) -> Option<usize> {
    let whole = std::ptr::eq(line.as_ptr(), rest.as_ptr().wrapping_add(at))
        && !line.is_empty()
        && line.len() <= max_line;
    match rest.as_bytes().get(at + line.len()) {
        _ if !whole => None,
        Some(b'\n') => Some(1),
        _ => terminator(&rest.as_bytes()[at..], line.len()).filter(|&n| n == 2),
    }
}

/// The length of the line terminator at `rest[n..]` (`\n`, `\r\n`, or none at the end of
/// the chunk), if a record ends at `n`.
#[inline]
pub(super) fn terminator(rest: &[u8], n: usize) -> Option<usize> {
    match rest.get(n..)? {
        [] => Some(0),
        [b'\n', ..] => Some(1),
        [b'\r', b'\n', ..] => Some(2),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_end_after_a_line_feed() {
        let mut data = vec![b'a'; PIECE - 1];
        data.extend_from_slice(b"\nbb\n");
        assert_eq!(piece_end(&data, 0), PIECE);
        assert_eq!(piece_end(&data, PIECE), data.len());
        // No line feed within a piece: the first after it.
        let mut long = vec![b'a'; PIECE + 10];
        long.extend_from_slice(b"\nb");
        assert_eq!(piece_end(&long, 0), PIECE + 11);
        assert_eq!(piece_end(&long[..PIECE + 5], 0), PIECE + 5);
        assert_eq!(piece_end(b"", 0), 0);
    }

    #[test]
    fn terminators() {
        assert_eq!(terminator(b"ab", 2), Some(0));
        assert_eq!(terminator(b"ab\ncd", 2), Some(1));
        assert_eq!(terminator(b"ab\r\ncd", 2), Some(2));
        assert_eq!(terminator(b"ab\rcd", 2), None);
        assert_eq!(terminator(b"abcd", 2), None);
        assert_eq!(terminator(b"ab", 3), None);
    }
}
