//! Web-server access logs in the Common and Combined Log Formats (Apache's `common` and
//! `combined`, nginx's default `combined`):
//!
//! ```text
//! host ident authuser [date] "request" status bytes                          (common)
//! host ident authuser [date] "request" status bytes "referer" "user-agent"   (combined)
//! ```
//!
//! The URL is the request's target (`GET /a?b HTTP/1.1` gives `/a?b`, a relative
//! reference, which `--base` resolves) or the referer. Fields are separated by spaces; a
//! field in brackets or quotes is one field, and inside quotes the server escapes `"` and
//! `\` with a backslash and other bytes as `\xHH`, which are decoded.

use std::ops::Range;

use super::{malformed, Located};
use crate::iri::error::Error;

/// Which URL of a log line is keyed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogPart {
    /// The target of the request line (the field `"%r"`).
    Request,
    /// The `Referer` header (Combined Log Format).
    Referer,
}

/// The position of the request among a line's fields, and of the referer.
const REQUEST: usize = 4;
const REFERER: usize = 7;

/// The spans of the fields of a log line: within brackets or quotes (without them) as one
/// field, else up to the next space. The error of a bracket or quote never closed.
fn fields(record: &[u8], mut each: impl FnMut(usize, Range<usize>) -> bool) -> Result<(), Error> {
    let (mut at, mut k) = (0, 0);
    while at < record.len() {
        if record[at] == b' ' {
            at += 1;
            continue;
        }
        let span = match record[at] {
            b'"' => {
                let end = closing_quote(record, at + 1)
                    .ok_or_else(|| malformed(record, at, "a quote is opened and not closed"))?;
                at + 1..end
            }
            b'[' => {
                let end = memchr::memchr(b']', &record[at..])
                    .map(|i| at + i)
                    .ok_or_else(|| malformed(record, at, "a bracket is opened and not closed"))?;
                at + 1..end
            }
            _ => at..memchr::memchr(b' ', &record[at..]).map_or(record.len(), |i| at + i),
        };
        // Past a closing quote or bracket.
        let quoted = matches!(record[at], b'"' | b'[');
        at = span.end + usize::from(quoted);
        if !each(k, span) {
            return Ok(());
        }
        k += 1;
    }
    Ok(())
}

/// The index of the quote that closes a quoted field whose text starts at `from` (a
/// backslash escapes the byte after it).
fn closing_quote(record: &[u8], mut from: usize) -> Option<usize> {
    loop {
        let i = from + memchr::memchr2(b'"', b'\\', &record[from..])?;
        if record[i] == b'"' {
            return Some(i);
        }
        from = i + 2;
        if from > record.len() {
            return None;
        }
    }
}

/// The URL of a log line: the request's target or the referer, decoded into `scratch`
/// where the server escaped bytes in it.
pub(super) fn locate(
    record: &[u8],
    part: LogPart,
    scratch: &mut Vec<u8>,
) -> Result<Located, Error> {
    let want = match part {
        LogPart::Request => REQUEST,
        LogPart::Referer => REFERER,
    };
    let mut found = None;
    fields(record, |k, span| {
        if k == want {
            found = Some(span);
            return false;
        }
        true
    })?;
    let field =
        found.ok_or_else(|| malformed(record, record.len(), "the line has no such field"))?;
    let field = match part {
        LogPart::Request => request_target(record, field)?,
        LogPart::Referer if &record[field.clone()] == b"-" => {
            return Err(malformed(
                record,
                field.start,
                "the line has no referer (-)",
            ));
        }
        LogPart::Referer => field,
    };
    if !record[field.clone()].contains(&b'\\') {
        return Ok(Located {
            field,
            decoded: false,
        });
    }
    unescape(&record[field.clone()], scratch);
    Ok(Located {
        field,
        decoded: true,
    })
}

/// The target of the request line `record[line]` (`METHOD target PROTOCOL`).
fn request_target(record: &[u8], line: Range<usize>) -> Result<Range<usize>, Error> {
    let text = &record[line.clone()];
    let start = memchr::memchr(b' ', text).map(|i| i + 1);
    let Some(start) = start.filter(|&s| s < text.len() && text[s] != b' ') else {
        return Err(malformed(
            record,
            line.start,
            "the request line has no target",
        ));
    };
    let end = memchr::memchr(b' ', &text[start..]).map_or(text.len(), |i| start + i);
    Ok(line.start + start..line.start + end)
}

/// Decodes a logged field's escapes: `\"`, `\\` and `\xHH` (other pairs are kept).
fn unescape(field: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < field.len() {
        let b = field[i];
        let hex = |k: usize| field.get(k).and_then(|c| (*c as char).to_digit(16));
        match (b, field.get(i + 1)) {
            (b'\\', Some(b'"' | b'\\')) => {
                out.push(field[i + 1]);
                i += 2;
            }
            (b'\\', Some(b'x')) if hex(i + 2).is_some() && hex(i + 3).is_some() => {
                let (h, l) = (hex(i + 2).unwrap_or(0), hex(i + 3).unwrap_or(0));
                out.push((h * 16 + l) as u8);
                i += 4;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
}
