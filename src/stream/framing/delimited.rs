//! Fields separated by one byte, with no quoting: TSV, CDX (spaces), and the like.

use std::ops::Range;

use super::{malformed, Located};
use crate::iri::error::Error;

/// The spans of the fields of `record`, in order (an empty record has one empty field).
pub(super) fn fields(record: &[u8], delimiter: u8) -> impl Iterator<Item = Range<usize>> + '_ {
    let ends = memchr::memchr_iter(delimiter, record).chain(std::iter::once(record.len()));
    let mut start = 0;
    ends.map(move |end| {
        let span = start..end;
        start = end + 1;
        span
    })
}

/// The span of field `index` of `record`, found with one `memchr` a delimiter.
#[inline]
pub(super) fn nth(record: &[u8], delimiter: u8, index: usize) -> Option<Range<usize>> {
    let mut start = 0;
    for _ in 0..index {
        start += memchr::memchr(delimiter, &record[start..])? + 1;
    }
    let end = memchr::memchr(delimiter, &record[start..]).map_or(record.len(), |i| start + i);
    Some(start..end)
}

/// The field `index` of `record`: the URL, as it is.
pub(super) fn locate(record: &[u8], delimiter: u8, index: usize) -> Result<Located, Error> {
    match fields(record, delimiter).nth(index) {
        Some(field) => Ok(Located {
            field,
            decoded: false,
        }),
        None => Err(malformed(
            record,
            record.len(),
            "the record has no such field",
        )),
    }
}
