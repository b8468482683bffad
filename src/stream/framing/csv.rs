//! RFC 4180 CSV records, read with `csv-core`: a field may be quoted (`"a,b"`), a quote
//! inside a quoted field doubled (`""`). A field that opens a quote and never closes it on
//! its line (RFC 4180 §2 allows a line break inside quotes; records here are lines) is a
//! malformed record.

use std::cell::RefCell;
use std::ops::Range;

use csv_core::{ReadFieldResult, Reader, ReaderBuilder};

use super::{malformed, text, Located};
use crate::iri::error::Error;

thread_local! {
    /// This thread's reader and its delimiter: building one builds its automaton (about
    /// as much work as reading a few hundred records), so it is built once and reset.
    static READER: RefCell<Option<(u8, Reader)>> = const { RefCell::new(None) };
}

/// Runs `read` with this thread's reader for `delimiter`, reset.
fn with_reader<T>(delimiter: u8, read: impl FnOnce(&mut Reader) -> T) -> T {
    READER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let (d, rdr) = slot.get_or_insert_with(|| (delimiter, build(delimiter)));
        if *d != delimiter {
            (*d, *rdr) = (delimiter, build(delimiter));
        }
        rdr.reset();
        read(rdr)
    })
}

/// A reader of records with this delimiter. Records are lines (without their line feed):
/// a carriage return inside one is data, not the end of the record.
fn build(delimiter: u8) -> Reader {
    ReaderBuilder::new()
        .delimiter(delimiter)
        .terminator(csv_core::Terminator::Any(b'\n'))
        .build()
}

/// Reads the fields of `record` one by one, decoding each into `buf` (resized to hold any
/// field): `each` gets the field's span as written and its decoded length, and says whether
/// to go on. The error of a quote never closed.
fn read(
    record: &[u8],
    delimiter: u8,
    buf: &mut Vec<u8>,
    each: impl FnMut(Range<usize>, &[u8]) -> bool,
) -> Result<(), Error> {
    with_reader(delimiter, |rdr| read_with(rdr, record, buf, each))
}

/// [`read`] with `rdr`.
fn read_with(
    rdr: &mut Reader,
    record: &[u8],
    buf: &mut Vec<u8>,
    mut each: impl FnMut(Range<usize>, &[u8]) -> bool,
) -> Result<(), Error> {
    // A decoded field is never longer than the record.
    buf.clear();
    buf.resize(record.len() + 1, 0);
    let mut at = 0;
    loop {
        let start = at;
        let mut filled = 0;
        let result = loop {
            let (result, read, written) = rdr.read_field(&record[at..], &mut buf[filled..]);
            at += read;
            filled += written;
            match result {
                // The end of the line is the end of the record.
                ReadFieldResult::InputEmpty if at == record.len() => {
                    let (r, _, w) = rdr.read_field(&[], &mut buf[filled..]);
                    filled += w;
                    break r;
                }
                ReadFieldResult::InputEmpty => continue,
                ReadFieldResult::OutputFull => buf.resize(buf.len() * 2, 0),
                other => break other,
            }
        };
        let record_end = matches!(
            result,
            ReadFieldResult::Field { record_end: true } | ReadFieldResult::End
        );
        // The span without the delimiter that ended the field.
        let end = if record_end { at } else { at - 1 };
        check_quotes(record, start..end)?;
        if !each(start..end, &buf[..filled]) || record_end {
            return Ok(());
        }
    }
}

/// A field that starts with a quote must end with the quote that closes it.
fn check_quotes(record: &[u8], span: Range<usize>) -> Result<(), Error> {
    let field = &record[span.clone()];
    if field.first() != Some(&b'"') {
        return Ok(());
    }
    // Inside the quotes, quotes come in pairs; the field ends with the closing one.
    let mut i = 1;
    while i < field.len() {
        if field[i] == b'"' {
            if field.get(i + 1) == Some(&b'"') {
                i += 2;
                continue;
            }
            return Ok(());
        }
        i += 1;
    }
    Err(malformed(
        record,
        span.start,
        "a quote is opened and not closed on its line",
    ))
}

/// The field `index` of `record`, decoded into `scratch` where it is quoted. The whole
/// record is read first, so that a quote left open after the URL's field makes the record
/// invalid too; a quoted field is then read again up to the URL, decoded.
pub(super) fn locate(
    record: &[u8],
    delimiter: u8,
    index: usize,
    scratch: &mut Vec<u8>,
) -> Result<Located, Error> {
    let mut k = 0;
    let mut found = None;
    read(record, delimiter, scratch, |span, _| {
        if k == index {
            found = Some(span);
        }
        k += 1;
        true
    })?;
    let field =
        found.ok_or_else(|| malformed(record, record.len(), "the record has no such field"))?;
    let quoted = record.get(field.start) == Some(&b'"');
    if quoted {
        let mut k = 0;
        let mut len = 0;
        read(record, delimiter, scratch, |_, decoded| {
            len = decoded.len();
            k += 1;
            k <= index
        })?;
        scratch.truncate(len);
    } else {
        scratch.clear();
    }
    Ok(Located {
        field,
        decoded: quoted,
    })
}

/// The span of field `index` of `record` as written (`buf` is a scratch buffer).
pub(super) fn span_of(
    record: &[u8],
    delimiter: u8,
    index: usize,
    buf: &mut Vec<u8>,
) -> Option<Range<usize>> {
    let mut k = 0;
    let mut found = None;
    read(record, delimiter, buf, |span, _| {
        if k == index {
            found = Some(span);
            return false;
        }
        k += 1;
        true
    })
    .ok()?;
    found
}

/// The decoded fields of a header row.
pub(super) fn names(record: &[u8], delimiter: u8) -> Vec<String> {
    let mut names = Vec::new();
    let _ = read(record, delimiter, &mut Vec::new(), |_, decoded| {
        names.push(text(decoded));
        true
    });
    names
}

/// Writes `field` as a CSV field: quoted, its quotes doubled, where it holds the delimiter,
/// a quote, a carriage return or a line feed (RFC 4180 §2.6, §2.7).
pub(super) fn push_field(field: &[u8], delimiter: u8, out: &mut Vec<u8>) {
    let quote = field
        .iter()
        .any(|&b| b == delimiter || matches!(b, b'"' | b'\r' | b'\n'));
    if !quote {
        out.extend_from_slice(field);
        return;
    }
    out.push(b'"');
    for &b in field {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}
