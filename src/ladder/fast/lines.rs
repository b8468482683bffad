//! The run-of-lines scan: [`FastPath::accepts_line`](super::FastPath::accepts_line) over as
//! many lines as pass in a row, in one loop, so that a run of canonical lines costs the
//! engine one call ([`crate::ladder::Normalizer::canonical_lines`]). Each line asks the
//! processor for the input [`prefetch::AHEAD`] bytes on ([`prefetch::ahead`]).

use super::blocks::Blocks;
use super::prefetch;
use super::tail::{ends_crlf, look};
use super::{FastPath, Shape, Task};

/// The task of [`FastPath::take_lines_ending`]: the run of lines at the start of `rest`, each
/// also offered to `take` (with the text from its start to the end of `rest`).
pub(super) struct Lines<'a, F, const CRLF: bool> {
    pub(super) fast: &'a FastPath,
    pub(super) rest: &'a str,
    pub(super) max_line: usize,
    pub(super) take: F,
}

impl<F: FnMut(&str, Shape, &[u8]) -> bool, const CRLF: bool> Task for Lines<'_, F, CRLF> {
    type Output = (usize, u64);

    #[inline(always)]
    fn run<L: Blocks>(self, lanes: L) -> (usize, u64) {
        let (fast, rest, max_line, take) = (self.fast, self.rest, self.max_line, self.take);
        match fast.look {
            0 => fast.lines_with::<L, 0, CRLF>(lanes, rest, max_line, take),
            look::LDH_REG => {
                fast.lines_with::<L, { look::LDH_REG }, CRLF>(lanes, rest, max_line, take)
            }
            _ => fast.lines_with::<L, { look::MARKS }, CRLF>(lanes, rest, max_line, take),
        }
    }
}

impl FastPath {
    /// The body of [`FastPath::take_lines_ending`], with the masks of `lanes`.
    #[inline(always)]
    fn lines_with<L: Blocks, const LOOK: u8, const CRLF: bool>(
        &self,
        lanes: L,
        rest: &str,
        max_line: usize,
        mut take: impl FnMut(&str, Shape, &[u8]) -> bool,
    ) -> (usize, u64) {
        let (mut at, mut lines) = (0, 0);
        let b = rest.as_bytes();
        while at < rest.len() {
            debug_assert!(rest.is_char_boundary(at));
            // SAFETY: `at` is 0 or follows a line feed (an ASCII byte), so it is on a char
            // boundary of `rest`, and it is below `rest.len()`.
            let line = unsafe { rest.get_unchecked(at..) };
            prefetch::ahead(b, at);
            let Some(shape) = self.scan_with::<L, LOOK>(lanes, line) else {
                break;
            };
            let end = at + shape.len;
            // A line feed ends the line; with `CRLF`, a carriage return and a line feed too,
            // where the lines' keys are written (not after an empty record: an error).
            let ending = if b.get(end) == Some(&b'\n') {
                1
            } else if CRLF && shape.len > 0 && ends_crlf(b, end) {
                2
            } else {
                break;
            };
            // One call of `take` for a line, whatever ends it.
            debug_assert!(line.is_char_boundary(shape.len));
            // SAFETY: `shape.len` is below `line.len()`, and `line[shape.len]` is a line feed
            // or a carriage return (checked just above): a char boundary.
            let record = unsafe { line.get_unchecked(..shape.len) };
            if shape.len > max_line || !take(record, shape, line.as_bytes()) {
                break;
            }
            at = end + ending;
            lines += 1;
        }
        (at, lines)
    }
}

#[cfg(test)]
mod tests {
    use crate::ladder::fast::{testkit, Backend};

    #[test]
    fn runs_of_lines_are_what_line_by_line_gives() {
        testkit::runs_of_lines_are_what_line_by_line_gives(Backend::detect());
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn runs_of_lines_with_the_portable_backend() {
        testkit::runs_of_lines_are_what_line_by_line_gives(Backend::Scalar);
    }
}
