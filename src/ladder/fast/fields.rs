//! The run-of-records scan: [`FastPath::accepts`](super::FastPath::accepts) asked about one
//! field of each line (the URL of a record of TSV, CSV, CDX …) over as many lines as pass
//! in a row, in one loop in the backend, as [`lines`](super::lines) does for lines that are
//! URLs: so that a run of records whose URLs are their own keys costs one call
//! ([`crate::ladder::Normalizer::canonical_fields`]).

use std::ops::Range;

use super::blocks::Blocks;
use super::tail::look;
use super::{FastPath, Task};

pub(super) struct Fields<'a, F, T> {
    pub(super) fast: &'a FastPath,
    pub(super) rest: &'a str,
    pub(super) max_line: usize,
    pub(super) field: F,
    pub(super) take: T,
}

impl<F, T> Task for Fields<'_, F, T>
where
    F: FnMut(&[u8]) -> Option<Range<usize>>,
    T: FnMut(&str, &str) -> bool,
{
    type Output = (usize, u64);

    #[inline(always)]
    fn run<L: Blocks>(self, lanes: L) -> (usize, u64) {
        match self.fast.look {
            0 => self.fields_with::<L, 0>(lanes),
            look::LDH_REG => self.fields_with::<L, { look::LDH_REG }>(lanes),
            _ => self.fields_with::<L, { look::MARKS }>(lanes),
        }
    }
}

impl<F, T> Fields<'_, F, T>
where
    F: FnMut(&[u8]) -> Option<Range<usize>>,
    T: FnMut(&str, &str) -> bool,
{
    #[inline(always)]
    fn fields_with<L: Blocks, const LOOK: u8>(self, lanes: L) -> (usize, u64) {
        let Fields {
            fast,
            rest,
            max_line,
            mut field,
            mut take,
        } = self;
        let b = rest.as_bytes();
        let (mut at, mut lines) = (0, 0);
        while let Some(len) = memchr::memchr(b'\n', &b[at..]) {
            // Whole lines that a line feed alone ends.
            if len > max_line || (len > 0 && b[at + len - 1] == b'\r') {
                break;
            }
            let end = at + len;
            let Some(f) = field(&b[at..end]) else { break };
            // A field ends at an ASCII byte: a char boundary (checked, not assumed).
            let (Some(line), Some(url)) = (rest.get(at..end), rest.get(at + f.start..at + f.end))
            else {
                break;
            };
            let own = !url.is_empty()
                && fast
                    .scan_with::<L, LOOK>(lanes, url)
                    .is_some_and(|shape| shape.len == url.len() && shape.is_own_key());
            if !own || !take(line, url) {
                break;
            }
            at = end + 1;
            lines += 1;
        }
        (at, lines)
    }
}
