//! Record framing: the stage between a line and its key where the input holds records, not
//! bare URLs. [`Framing`] says which field of each record is its URL, in the formats users
//! hold (delimited text such as TSV, RFC 4180 CSV, JSON Lines, CDX and CDXJ indexes, web
//! server access logs), and
//! where `--output record` puts the key when it writes the record back.
//!
//! A record is one line, as everywhere in the engine: the reader still cuts chunks on line
//! feeds, so a CSV field quoted across a line feed is not supported (the first line's field
//! ends unterminated, an invalid record, and the next line is a record of its own). A
//! record that is not well formed (a quote never closed, a JSON line that does not parse, a
//! field missing) is an invalid record of kind [`ErrorKind::Record`] at the column where the
//! trouble is, never the end of the run.
//!
//! The flow of one record: [`Framing::locate`] finds its URL (decoded into a scratch
//! buffer where the format quotes or escapes it), the operation keys the URL, and
//! [`Framing::write_record`] writes the record byte for byte with the key added.

mod csv;
mod delimited;
mod json;
mod log;

pub use log::LogPart;

use std::ops::Range;

use crate::iri::error::{Error, ErrorKind};

/// The format of the records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordFormat {
    /// Each line is one URL (record output of bare lines: the key after a tab).
    Line,
    /// Fields separated by one byte, no quoting (TSV with a tab).
    Delimited(u8),
    /// RFC 4180 CSV with this delimiter: fields may be quoted, a quote inside doubled.
    Csv(u8),
    /// One JSON object per line.
    JsonLines,
    /// A CDX index: fields separated by spaces, described by a legend line
    /// ` CDX N b a m s k r M S V g` at the start of the file; the URL is field `a`.
    Cdx,
    /// A CDXJ index: `urlkey timestamp {json}`; the URL is the block's `url` member.
    Cdxj,
    /// An access log in the Common or Combined Log Format: the URL is the request's target
    /// or the referer.
    Log(LogPart),
}

/// A field of a record: by position (0-based), or by name (a header row's column, a CDX
/// legend letter, a JSON member or a dotted path of members).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field {
    /// The field at this 0-based position.
    Index(usize),
    /// The field of this name.
    Name(String),
}

/// Where `--output record` puts the key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum KeyPlacement {
    /// As a new last field (a new `key` member of a JSON object).
    #[default]
    Append,
    /// In place of this field (a JSON member's value).
    Replace(Field),
    /// As a new member of this name (JSON).
    Member(String),
}

/// Which field of each record is its URL, and where the key goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Framing {
    /// The format of the records.
    pub format: RecordFormat,
    /// The URL's field; `None` for the format's own (`a` of a CDX, `url` of a CDXJ block,
    /// the first field of delimited text and CSV).
    pub url: Option<Field>,
    /// Where the key goes in record output.
    pub key: KeyPlacement,
    /// The first line of each input is a header row (delimited text and CSV; implied where
    /// a field is named). A CDX legend line is found without it.
    pub header: bool,
    /// Record output also writes the error of an invalid record, in a field of its own
    /// (an `error` member), empty (`null`) for a valid one.
    pub error_field: bool,
}

/// The CDX legend assumed where a file has none (the common 11-field layout).
const CDX_DEFAULT_LEGEND: &str = "N b a m s k r M S V g";

/// The name of the key's column in a header row, and of its JSON member.
const KEY_NAME: &str = "key";
/// The name of the error's column and member.
const ERROR_NAME: &str = "error";

/// What [`Framing::write_record`] adds to a record: its key (`None` for an invalid record),
/// its error, and whether its URL was located (the record then was read as its format: a
/// JSON line is known to be one object, not parsed again).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Keyed<'a> {
    pub(crate) key: Option<&'a str>,
    pub(crate) error: Option<&'a Error>,
    pub(crate) located: bool,
}

/// The fields of an input as its header says, or as the format has them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The URL's field (delimited text, CSV, CDX).
    url: usize,
    /// The field the key replaces, where it replaces one.
    key: Option<usize>,
    /// The input's first line is its header (written as one, not a record).
    pub(crate) header: bool,
}

/// Where a record's URL is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Located {
    /// The URL's field as written in the record: with its quotes where it is decoded,
    /// else exactly the URL's bytes.
    pub(crate) field: Range<usize>,
    /// The URL: `record[field]` as it is, or, where the format quoted or escaped it, the
    /// scratch buffer.
    pub(crate) decoded: bool,
}

impl Located {
    /// The URL's bytes.
    pub(crate) fn url<'a>(&self, record: &'a [u8], scratch: &'a [u8]) -> &'a [u8] {
        if self.decoded {
            scratch
        } else {
            &record[self.field.clone()]
        }
    }

    /// The column in the record of a column of the URL (1-based; 0, the record as a whole,
    /// stays 0): exact where the URL is the field as written, else the field's start.
    pub(crate) fn record_column(&self, record: &[u8], url_column: usize, kind: ErrorKind) -> usize {
        if url_column == 0 {
            return 0;
        }
        let before = &record[..self.field.start];
        let start = if kind == ErrorKind::Utf8 {
            before.len()
        } else {
            units(before)
        };
        if self.decoded {
            start + 1
        } else {
            start + url_column
        }
    }
}

/// The characters of `bytes` (each octet that is not part of valid UTF-8 counting as one).
fn units(bytes: &[u8]) -> usize {
    bytes
        .utf8_chunks()
        .map(|c| c.valid().chars().count() + c.invalid().len())
        .sum()
}

/// An invalid record of kind [`ErrorKind::Record`] at the byte `at` of `record`.
fn malformed(record: &[u8], at: usize, message: &'static str) -> Error {
    Error::new(
        ErrorKind::Record,
        units(&record[..at.min(record.len())]) + 1,
        message,
    )
}

impl Framing {
    /// Lines of one field each, the key appended after a tab: record output of bare URLs.
    pub fn lines() -> Framing {
        Framing {
            format: RecordFormat::Line,
            url: None,
            key: KeyPlacement::Append,
            header: false,
            error_field: false,
        }
    }

    /// Checks the framing's settings: a message for a combination that cannot work.
    pub fn check(&self) -> Result<(), String> {
        let json = matches!(self.format, RecordFormat::JsonLines);
        if let KeyPlacement::Member(_) = self.key {
            if !json {
                return Err("--key-name names a JSON member: it needs --json-field".into());
            }
        }
        if let (RecordFormat::Log(_), KeyPlacement::Replace(_)) = (self.format, &self.key) {
            return Err("the key of a log line is appended: --key-field does not apply".into());
        }
        if json {
            if let Some(Field::Index(_)) = self.url {
                return Err("--json-field takes a member name, not a number".into());
            }
            if let KeyPlacement::Replace(Field::Index(_)) = self.key {
                return Err("with --json-field, --key-field takes a member name".into());
            }
        }
        Ok(())
    }

    /// Whether the input's first line may be a header (the reader then gives it to
    /// [`Framing::layout`] before any of the input's records is handed out).
    pub(crate) fn reads_header(&self) -> bool {
        self.names_header() || self.format == RecordFormat::Cdx
    }

    /// Whether the first line of each input is a header row.
    fn names_header(&self) -> bool {
        let named = |f: &Field| matches!(f, Field::Name(_));
        let delimited = matches!(
            self.format,
            RecordFormat::Delimited(_) | RecordFormat::Csv(_)
        );
        let key_named = matches!(&self.key, KeyPlacement::Replace(f) if named(f));
        delimited && (self.header || self.url.as_ref().is_some_and(named) || key_named)
    }

    /// The layout of an input whose first line is `first` (without its line end), or a
    /// message saying which name its header lacks.
    pub(crate) fn layout(&self, first: &[u8]) -> Result<Layout, String> {
        let mut header = self.names_header();
        let names: Vec<String> = match self.format {
            RecordFormat::Delimited(d) if header => delimited::fields(first, d)
                .map(|f| text(&first[f]))
                .collect(),
            RecordFormat::Csv(d) if header => csv::names(first, d),
            RecordFormat::Cdx => {
                let legend = first.strip_prefix(b" CDX ").map(|l| l.trim_ascii());
                header = legend.is_some();
                let legend = legend.map_or(CDX_DEFAULT_LEGEND.into(), text);
                legend
                    .split(' ')
                    .filter(|n| !n.is_empty())
                    .map(String::from)
                    .collect()
            }
            _ => Vec::new(),
        };
        let resolve = |field: &Field| -> Result<usize, String> {
            match field {
                Field::Index(i) => Ok(*i),
                Field::Name(n) => names.iter().position(|m| m == n).ok_or_else(|| {
                    format!("no field named {n:?} in the header ({})", names.join(", "))
                }),
            }
        };
        // A JSON member is found by its name in each record.
        let json = self.format == RecordFormat::JsonLines;
        let url = match (&self.url, self.format) {
            (_, RecordFormat::JsonLines | RecordFormat::Cdxj | RecordFormat::Log(_)) => 0,
            (Some(field), _) => resolve(field)?,
            (None, RecordFormat::Cdx) => resolve(&Field::Name("a".into()))?,
            (None, _) => 0,
        };
        let key = match &self.key {
            KeyPlacement::Replace(field) if !json => Some(resolve(field)?),
            _ => None,
        };
        Ok(Layout { url, key, header })
    }

    /// The layout of an input without a header (where [`Framing::reads_header`] is false,
    /// or the input is empty).
    pub(crate) fn plain_layout(&self) -> Result<Layout, String> {
        self.layout(b"")
    }

    /// Where the URL of `record` is; where the format quotes or escapes it, it is decoded
    /// into `scratch`. An invalid record ([`ErrorKind::Record`]) where the record is not
    /// well formed or lacks the field. `text` is the record as text where its chunk is
    /// known to be UTF-8 (not validated again).
    pub(crate) fn locate(
        &self,
        layout: &Layout,
        record: &[u8],
        text: Option<&str>,
        scratch: &mut Vec<u8>,
    ) -> Result<Located, Error> {
        scratch.clear();
        match self.format {
            RecordFormat::Line => Ok(Located {
                field: 0..record.len(),
                decoded: false,
            }),
            RecordFormat::Delimited(d) => delimited::locate(record, d, layout.url),
            RecordFormat::Cdx => delimited::locate(record, b' ', layout.url),
            RecordFormat::Csv(d) => csv::locate(record, d, layout.url, scratch),
            RecordFormat::JsonLines => json::locate(record, text, 0, self.json_url(), scratch),
            RecordFormat::Cdxj => {
                let block = cdxj_block(record)?;
                json::locate(record, text, block, self.json_url(), scratch)
            }
            RecordFormat::Log(part) => log::locate(record, part, scratch),
        }
    }

    /// Where the URL of the line `record` is when it is the field as written, found
    /// cheaply, for runs of records ([`crate::ladder::Normalizer::canonical_fields`]);
    /// `None` where that takes the full look of [`Framing::locate`] (a quoted CSV line, JSON,
    /// a log line) or the record lacks the field.
    #[inline]
    pub(crate) fn plain_field(&self, layout: &Layout, record: &[u8]) -> Option<Range<usize>> {
        match self.format {
            RecordFormat::Line => Some(0..record.len()),
            RecordFormat::Delimited(d) => delimited::nth(record, d, layout.url),
            RecordFormat::Cdx => delimited::nth(record, b' ', layout.url),
            // Without quotes a CSV line is split as delimited text is.
            RecordFormat::Csv(d) if memchr::memchr(b'"', record).is_none() => {
                delimited::nth(record, d, layout.url)
            }
            _ => None,
        }
    }

    /// Whether [`Framing::plain_field`] may find a URL: runs of records are tried only then.
    pub(crate) fn has_plain_fields(&self) -> bool {
        !matches!(
            self.format,
            RecordFormat::JsonLines | RecordFormat::Cdxj | RecordFormat::Log(_)
        )
    }

    /// The member path of the URL of a JSON record.
    fn json_url(&self) -> &str {
        match &self.url {
            Some(Field::Name(path)) => path,
            _ => "url",
        }
    }

    /// Writes the header line `first` with the columns record output adds (the key's, and
    /// the error's where asked), without its line end.
    pub(crate) fn write_header(&self, layout: &Layout, first: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(first);
        if layout.key.is_none() {
            if let Some(d) = self.delimiter() {
                out.push(d);
                out.extend_from_slice(KEY_NAME.as_bytes());
            }
        }
        if self.error_field {
            if let Some(d) = self.delimiter() {
                out.push(d);
                out.extend_from_slice(ERROR_NAME.as_bytes());
            }
        }
    }

    /// The byte between fields, for the formats whose added fields go at the end of the line.
    fn delimiter(&self) -> Option<u8> {
        match self.format {
            RecordFormat::Line => Some(b'\t'),
            RecordFormat::Delimited(d) | RecordFormat::Csv(d) => Some(d),
            RecordFormat::Cdx | RecordFormat::Cdxj | RecordFormat::Log(_) => Some(b' '),
            RecordFormat::JsonLines => None,
        }
    }

    /// Writes `record` byte for byte with its key (`None` for an invalid record: an empty
    /// field, a JSON `null`) where [`Framing::key`] says, and its error where asked. A record
    /// too malformed to find a field in keeps its fields as they are, the key appended.
    pub(crate) fn write_record(
        &self,
        layout: &Layout,
        record: &[u8],
        keyed: Keyed<'_>,
        out: &mut Vec<u8>,
        scratch: &mut Vec<u8>,
    ) {
        let Keyed {
            key,
            error,
            located,
        } = keyed;
        if self.format == RecordFormat::JsonLines {
            return json::write_record(record, self, key, error, located, out);
        }
        if self.format == RecordFormat::Cdxj && !matches!(self.key, KeyPlacement::Replace(_)) {
            // A member of the record's JSON block, which stays the line's last field.
            let block = cdxj_block(record).unwrap_or(record.len());
            out.extend_from_slice(&record[..block]);
            return json::write_record(&record[block..], self, key, error, located, out);
        }
        let d = self.delimiter().unwrap_or(b'\t');
        let replaced = layout.key.and_then(|i| self.field_span(record, i, scratch));
        match replaced {
            Some(span) => {
                out.extend_from_slice(&record[..span.start]);
                self.push_field(key.unwrap_or(""), out);
                out.extend_from_slice(&record[span.end..]);
            }
            None => {
                out.extend_from_slice(record);
                out.push(d);
                self.push_field(key.unwrap_or(""), out);
            }
        }
        if self.error_field {
            out.push(d);
            if let Some(e) = error {
                self.push_error(e, out);
            }
        }
    }

    /// The span of field `i` of a delimited record, if it has one.
    fn field_span(&self, record: &[u8], i: usize, scratch: &mut Vec<u8>) -> Option<Range<usize>> {
        match self.format {
            RecordFormat::Delimited(d) => delimited::fields(record, d).nth(i),
            RecordFormat::Cdx | RecordFormat::Cdxj => delimited::fields(record, b' ').nth(i),
            RecordFormat::Csv(d) => csv::span_of(record, d, i, scratch),
            RecordFormat::Line | RecordFormat::JsonLines | RecordFormat::Log(_) => None,
        }
    }

    /// Writes the error field: `kind:column: message` (CSV-quoted where the message needs
    /// it), or `kind:column` where fields are separated by spaces (CDX, CDXJ, logs), which
    /// a message holds.
    fn push_error(&self, e: &Error, out: &mut Vec<u8>) {
        let spaced = self.delimiter() == Some(b' ');
        let message = e.message.as_bytes();
        // Kind names and digits need no quotes; a message may.
        let quote = match self.format {
            RecordFormat::Csv(d) => message.iter().any(|&b| b == d || b == b'"'),
            _ => false,
        };
        if quote {
            out.push(b'"');
        }
        out.extend_from_slice(e.kind.name().as_bytes());
        out.push(b':');
        crate::ladder::json::push_decimal(out, e.column as u64);
        if !spaced {
            out.extend_from_slice(b": ");
            for &b in message {
                if quote && b == b'"' {
                    out.push(b'"');
                }
                out.push(b);
            }
        }
        if quote {
            out.push(b'"');
        }
    }

    /// Writes `text` as a field of the format (quoted where CSV needs it).
    fn push_field(&self, text: &str, out: &mut Vec<u8>) {
        match self.format {
            RecordFormat::Csv(d) => csv::push_field(text.as_bytes(), d, out),
            _ => out.extend_from_slice(text.as_bytes()),
        }
    }
}

/// Text of a header's field (lossy where it is not UTF-8).
fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Where the JSON block of a CDXJ record starts: after its second space.
fn cdxj_block(record: &[u8]) -> Result<usize, Error> {
    let mut spaces = memchr::memchr_iter(b' ', record);
    match (spaces.next(), spaces.next()) {
        (Some(_), Some(second)) => Ok(second + 1),
        _ => Err(malformed(
            record,
            record.len(),
            "a CDXJ record is `urlkey timestamp {json}`",
        )),
    }
}

#[cfg(test)]
mod tests;
