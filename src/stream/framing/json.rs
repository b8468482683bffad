//! JSON Lines records (one object a line, RFC 8259), read with `serde_json`: the URL is a
//! string member, named by a path of member names joined by dots (`request.url`). Only the
//! members on the path are kept (as raw text borrowed from the line); the others are
//! parsed and skipped. The first member of a name counts where an object repeats it.

use std::fmt;
use std::ops::Range;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::{malformed, Framing, KeyPlacement, Located, ERROR_NAME, KEY_NAME};
use crate::iri::error::Error;
use crate::ladder::json::{push_json_note, push_json_str};

/// The member `name` of the JSON object `text`, as raw text (`None` without one); the
/// error of a text that is not one object.
fn member<'a>(text: &'a str, name: &str) -> Result<Option<&'a RawValue>, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let found = (&mut de).deserialize_map(Member(name))?;
    de.end()?;
    Ok(found)
}

/// Looks for one member of an object.
struct Member<'n>(&'n str);

impl<'de> Visitor<'de> for Member<'_> {
    type Value = Option<&'de RawValue>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(is) = map.next_key_seed(NameIs(self.0))? {
            if is && found.is_none() {
                found = Some(map.next_value::<&'de RawValue>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// Whether a member's name (escaped or not) is the one looked for.
struct NameIs<'n>(&'n str);

impl<'de> DeserializeSeed<'de> for NameIs<'_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for NameIs<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E>(self, name: &str) -> Result<bool, E> {
        Ok(name == self.0)
    }
}

/// The span, in `record`, of the value of the member at `path` in the object that starts
/// at byte `from`. `text` is the record as text where it is known to be UTF-8.
fn value_span(
    record: &[u8],
    text: Option<&str>,
    from: usize,
    path: &str,
) -> Result<Range<usize>, Error> {
    // `from` is 0 or the byte of a `{`: a char boundary.
    let text = match text.and_then(|t| t.get(from..)) {
        Some(t) => t,
        None => std::str::from_utf8(&record[from..]).map_err(|e| {
            malformed(
                record,
                from + e.valid_up_to(),
                "a JSON record must be UTF-8",
            )
        })?,
    };
    let mut value = text;
    // A closure, not a `char`: with `'.'` a searcher was set up for every record
    // (`CharSearcher::next_match`, 9.3M instructions over 130,704 records under callgrind),
    // for a path of a few bytes; the closure's loop is inlined.
    #[allow(clippy::manual_pattern_char_comparison)]
    for name in path.split(|c: char| c == '.') {
        let found = member(value, name).map_err(|e| parse_error(record, from, text, value, &e))?;
        match found {
            Some(raw) => value = raw.get(),
            None => {
                return Err(malformed(
                    record,
                    record.len(),
                    "the record has no such member",
                ))
            }
        }
    }
    let start = from + (value.as_ptr() as usize - text.as_ptr() as usize);
    Ok(start..start + value.len())
}

/// The error of a JSON text `value` (a part of `text`, which starts at byte `from` of
/// `record`) that does not parse as an object.
fn parse_error(
    record: &[u8],
    from: usize,
    text: &str,
    value: &str,
    e: &serde_json::Error,
) -> Error {
    let offset = from + (value.as_ptr() as usize - text.as_ptr() as usize);
    let message = if e.classify() == serde_json::error::Category::Data {
        "a member on the path is not a JSON object"
    } else {
        "a JSON record that does not parse"
    };
    // serde_json counts lines and columns (1-based) within the text it read.
    let at = if e.line() <= 1 {
        offset + e.column().saturating_sub(1)
    } else {
        offset
    };
    malformed(record, at.min(record.len()), message)
}

/// The URL of the record: the string at `path` in the object that starts at byte `from`,
/// decoded into `scratch` where it has escapes. `text` is the record as text where it is
/// known to be UTF-8.
pub(super) fn locate(
    record: &[u8],
    text: Option<&str>,
    from: usize,
    path: &str,
    scratch: &mut Vec<u8>,
) -> Result<Located, Error> {
    let span = value_span(record, text, from, path)?;
    let raw = &record[span.clone()];
    if raw.first() != Some(&b'"') {
        return Err(malformed(
            record,
            span.start,
            "the member is not a JSON string",
        ));
    }
    let inner = span.start + 1..span.end - 1;
    if !record[inner.clone()].contains(&b'\\') {
        return Ok(Located {
            field: inner,
            decoded: false,
        });
    }
    // Escapes: decoded into the scratch buffer.
    unescape(&record[inner], scratch)
        .ok_or_else(|| malformed(record, span.start, "the member is not a JSON string"))?;
    Ok(Located {
        field: span,
        decoded: true,
    })
}

/// Appends the JSON string body `body` (between its quotes) to `out` with its escapes
/// decoded (RFC 8259 §7); `None` for an escape that is not one, or a UTF-16 surrogate
/// without its pair.
fn unescape(body: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let mut i = 0;
    while i < body.len() {
        let Some(k) = memchr::memchr(b'\\', &body[i..]) else {
            out.extend_from_slice(&body[i..]);
            return Some(());
        };
        out.extend_from_slice(&body[i..i + k]);
        i += k + 1;
        let simple = match *body.get(i)? {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 8,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let (c, used) = code_point(&body[i + 1..])?;
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                i += 1 + used;
                continue;
            }
            _ => return None,
        };
        out.push(simple);
        i += 1;
    }
    Some(())
}

/// The code point of a `\u` escape whose four hex digits start `at` (with the low half of a
/// surrogate pair after a high one), and how many bytes it took.
fn code_point(at: &[u8]) -> Option<(char, usize)> {
    let hex4 = |b: &[u8]| -> Option<u32> {
        let digits = std::str::from_utf8(b.get(..4)?).ok()?;
        u32::from_str_radix(digits, 16).ok()
    };
    let first = hex4(at)?;
    if !(0xD800..0xDC00).contains(&first) {
        return Some((char::from_u32(first)?, 4));
    }
    // A high surrogate: `\uDC00`–`\uDFFF` must follow.
    let low = hex4(at.get(6..)?).filter(|_| at.get(4..6) == Some(&b"\\u"[..]))?;
    if !(0xDC00..0xE000).contains(&low) {
        return None;
    }
    let c = 0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00);
    Some((char::from_u32(c)?, 10))
}

/// Writes `record` with its key (`null` for an invalid record): in place of the value at
/// the path [`KeyPlacement::Replace`] names, or as a new member (`key`, or the name of
/// [`KeyPlacement::Member`]) at the end of the object; then the `error` member where asked.
/// A line that is not a JSON object is written as it is. `located`: the record is known to
/// be one object (its URL was located), so it is not parsed again.
pub(super) fn write_record(
    record: &[u8],
    framing: &Framing,
    key: Option<&str>,
    error: Option<&Error>,
    located: bool,
    out: &mut Vec<u8>,
) {
    // A record whose URL was located parsed as one object already.
    let close = if located {
        record.iter().rposition(|&b| b == b'}')
    } else {
        object_end(record)
    };
    let Some(close) = close else {
        out.extend_from_slice(record);
        return;
    };
    let start = out.len();
    let replaced = match &framing.key {
        KeyPlacement::Replace(super::Field::Name(path)) => value_span(record, None, 0, path).ok(),
        _ => None,
    };
    let last = record[..close]
        .iter()
        .rposition(|b| !b.is_ascii_whitespace());
    let mut empty = last == Some(first_brace(record));
    match replaced {
        Some(span) => {
            out.extend_from_slice(&record[..span.start]);
            push_key(key, out);
            out.extend_from_slice(&record[span.end..close]);
        }
        None => {
            out.extend_from_slice(&record[..close]);
            let name = match &framing.key {
                KeyPlacement::Member(name) => name.as_str(),
                _ => KEY_NAME,
            };
            push_member_name(name, empty, out);
            push_key(key, out);
            empty = false;
        }
    }
    if framing.error_field {
        push_member_name(ERROR_NAME, empty, out);
        match error {
            Some(e) => push_json_note(out, e.kind.name(), e.column, e.message),
            None => out.extend_from_slice(b"null"),
        }
    }
    out.extend_from_slice(&record[close..]);
    debug_assert!(out.len() > start);
}

/// Where the closing brace of a record's object is, if the record is one object.
fn object_end(record: &[u8]) -> Option<usize> {
    let text = std::str::from_utf8(record).ok()?;
    let mut de = serde_json::Deserializer::from_str(text);
    (&mut de).deserialize_map(IgnoredAny).ok()?;
    de.end().ok()?;
    let end = record.iter().rposition(|b| !b.is_ascii_whitespace())?;
    (record[end] == b'}').then_some(end)
}

/// The index of the record's opening brace.
fn first_brace(record: &[u8]) -> usize {
    record.iter().position(|&b| b == b'{').unwrap_or(0)
}

/// `,"name":` (without the comma in an empty object).
fn push_member_name(name: &str, empty: bool, out: &mut Vec<u8>) {
    if !empty {
        out.push(b',');
    }
    out.push(b'"');
    push_json_str(out, name);
    out.extend_from_slice(b"\":");
}

/// The key as a JSON string, or `null`.
fn push_key(key: Option<&str>, out: &mut Vec<u8>) {
    match key {
        Some(k) => {
            out.push(b'"');
            push_json_str(out, k);
            out.push(b'"');
        }
        None => out.extend_from_slice(b"null"),
    }
}
