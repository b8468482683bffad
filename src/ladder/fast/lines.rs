//! The run-of-lines scan: [`FastPath::accepts_line`](super::FastPath::accepts_line) over as
//! many lines as pass in a row, in one loop, so that a run of canonical lines costs the
//! engine one call ([`crate::stream::Operation::pass_through_lines`]).

use super::blocks::Blocks;
use super::tail::{ends_crlf, look};
use super::{FastPath, Shape, Task};

/// The task of [`FastPath::take_lines_ending`]: the run of lines at the start of `rest`, each
/// also offered to `take`.
pub(super) struct Lines<'a, F, const CRLF: bool> {
    pub(super) fast: &'a FastPath,
    pub(super) rest: &'a str,
    pub(super) max_line: usize,
    pub(super) take: F,
}

impl<F: FnMut(&str, Shape) -> bool, const CRLF: bool> Task for Lines<'_, F, CRLF> {
    type Output = (usize, u64);

    #[inline(always)]
    fn run<L: Blocks>(self, lanes: L) -> (usize, u64) {
        let (fast, rest, max_line, take) = (self.fast, self.rest, self.max_line, self.take);
        match fast.look {
            0 => fast.lines_with::<L, 0, CRLF>(lanes, rest, max_line, take),
            look::MARKS => fast.lines_with::<L, { look::MARKS }, CRLF>(lanes, rest, max_line, take),
            look::UPPER => fast.lines_with::<L, { look::UPPER }, CRLF>(lanes, rest, max_line, take),
            _ => fast
                .lines_with::<L, { look::MARKS | look::UPPER }, CRLF>(lanes, rest, max_line, take),
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
        mut take: impl FnMut(&str, Shape) -> bool,
    ) -> (usize, u64) {
        let (mut at, mut lines) = (0, 0);
        let b = rest.as_bytes();
        // `at` follows a line feed, so slicing there is on a char boundary.
        while let Some(line) = rest.get(at..) {
            match self.scan_with::<L, LOOK>(lanes, line) {
                Some(shape)
                    if shape.len <= max_line
                        && b.get(at + shape.len) == Some(&b'\n')
                        && take(&line[..shape.len], shape) =>
                {
                    at += shape.len + 1;
                    lines += 1;
                }
                // Or before a carriage return and a line feed, where the lines' keys are
                // written (not empty: an empty record is an error).
                Some(shape)
                    if CRLF
                        && (1..=max_line).contains(&shape.len)
                        && ends_crlf(b, at + shape.len)
                        && take(&line[..shape.len], shape) =>
                {
                    at += shape.len + 2;
                    lines += 1;
                }
                _ => break,
            }
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
