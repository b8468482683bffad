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
/// at byte `from`.
fn value_span(record: &[u8], from: usize, path: &str) -> Result<Range<usize>, Error> {
    let block = &record[from..];
    let text = std::str::from_utf8(block).map_err(|e| {
        malformed(
            record,
            from + e.valid_up_to(),
            "a JSON record must be UTF-8",
        )
    })?;
    let mut value = text;
    for name in path.split('.') {
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
/// decoded into `scratch` where it has escapes.
pub(super) fn locate(
    record: &[u8],
    from: usize,
    path: &str,
    scratch: &mut Vec<u8>,
) -> Result<Located, Error> {
    let span = value_span(record, from, path)?;
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
    // Escapes: decoded (they were checked when the line was parsed).
    let text = std::str::from_utf8(raw).unwrap_or_default();
    let decoded: String = serde_json::from_str(text)
        .map_err(|_| malformed(record, span.start, "the member is not a JSON string"))?;
    scratch.extend_from_slice(decoded.as_bytes());
    Ok(Located {
        field: span,
        decoded: true,
    })
}

/// Writes `record` with its key (`null` for an invalid record): in place of the value at
/// the path [`KeyPlacement::Replace`] names, or as a new member (`key`, or the name of
/// [`KeyPlacement::Member`]) at the end of the object; then the `error` member where asked.
/// A line that is not a JSON object is written as it is.
pub(super) fn write_record(
    record: &[u8],
    framing: &Framing,
    key: Option<&str>,
    error: Option<&Error>,
    out: &mut Vec<u8>,
) {
    let Some(close) = object_end(record) else {
        out.extend_from_slice(record);
        return;
    };
    let start = out.len();
    let replaced = match &framing.key {
        KeyPlacement::Replace(super::Field::Name(path)) => value_span(record, 0, path).ok(),
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
