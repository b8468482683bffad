//! Output records: key, tsv and jsonl lines; statistics; diagnostics (SPEC §6).
//!
//! Everything here writes into a caller's `Vec<u8>` or `dyn Write`, so the engine's workers
//! can format a whole chunk of records into one reused buffer without allocating per line.
//!
//! The three record forms, one record each, each ended by a line feed (or by a NUL with
//! [`EngineOptions::null_terminated`](crate::stream::EngineOptions::null_terminated)):
//!
//! - [`OutputMode::Key`]: the key. An invalid record gives an empty record, so that output
//!   record N belongs to input line N.
//! - [`OutputMode::Tsv`]: `input<TAB>key<TAB>error`, or, with
//!   [`EngineOptions::with_filename`](crate::stream::EngineOptions::with_filename),
//!   `file<TAB>line<TAB>input<TAB>key<TAB>error`. In the file, input and key fields a
//!   backslash is written `\\`, a tab `\t` and a carriage return `\r`; no other byte is
//!   changed (octets that are not UTF-8 are copied as they are). The key field is empty for
//!   an invalid record; the error field is empty for a valid one and otherwise reads
//!   `kind:column: message`.
//! - [`OutputMode::Jsonl`]: one JSON object,
//!   `{"file":"…","line":N,"input":"…","key":"…","error":null,"warnings":[…]}` or
//!   `{"file":"…","line":N,"input":"…","key":null,"error":{"kind":"…","column":N,"message":"…"},"warnings":[]}`.
//!   Each warning is `{"kind":"…","column":N,"message":"…"}` (`column` is 0 when it concerns
//!   the whole record); the list is empty when there are none, and always for an invalid
//!   record. Strings are escaped as JSON requires (`"`, `\` and the controls
//!   U+0000–U+001F; the controls without a short escape are written `\u00xx`). JSON strings
//!   must be Unicode, so in the `input` field every octet that is not part of valid UTF-8 is
//!   written as `%XX` (uppercase hex), never as U+FFFD: the original bytes stay recoverable,
//!   at the price that a literal `%XX` already in the input reads the same. `file` is the
//!   input's name (`<stdin>` for standard input); `line` counts from 1 within each input.
//!
//! For a record that is too long, the input field holds only its first 256 bytes (the
//! engine never holds such a line whole).
//!
//! This module holds the format settings ([`OutputMode`] and the rest of `Format`) and the
//! diagnostic line; `rows` formats the rows, `escape` holds the tsv escapes (JSON escaping
//! is the ladder's, `crate::ladder::json`), and `stats` the counts of a run ([`Stats`]) and
//! their reports.

use std::io::{self, Write};

use crate::iri::error::Error;

mod escape;
mod rows;
mod stats;

pub(crate) use rows::{Row, RowWriter};
pub use stats::Stats;

/// The form of each output line (`--output`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OutputMode {
    /// The key alone; an empty line for an invalid record.
    #[default]
    Key,
    /// `input<TAB>key<TAB>error`, with tabs, carriage returns, NULs and backslashes escaped.
    Tsv,
    /// One JSON object per record: `line`, `input`, `key`, `error`.
    Jsonl,
    /// The record as read with its key added where the framing says
    /// ([`crate::stream::EngineOptions::framing`]; without one, each line is a record of one
    /// field, and the key a second, tab-separated).
    Record,
}

/// How records are written: the form, whether tsv rows start with the file name and line,
/// and the byte that ends each record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Format {
    pub(crate) mode: OutputMode,
    pub(crate) with_filename: bool,
    pub(crate) terminator: u8,
}

impl Format {
    /// Whether records are written with their line numbers (which the reader then counts).
    pub(crate) fn needs_lines(&self) -> bool {
        match self.mode {
            OutputMode::Key => false,
            OutputMode::Tsv => self.with_filename,
            OutputMode::Jsonl | OutputMode::Record => true,
        }
    }
}

/// Writes one diagnostic line, `irinorm: NAME:LINE:COL: kind: message` (COL is 0 when the
/// error concerns the whole record).
pub(crate) fn write_diagnostic(
    w: &mut dyn Write,
    name: &str,
    line: u64,
    error: &Error,
) -> io::Result<()> {
    writeln!(
        w,
        "irinorm: {name}:{line}:{}: {}: {}",
        error.column,
        error.kind.name(),
        error.message
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iri::error::ErrorKind;

    #[test]
    fn diagnostics() {
        let mut out = Vec::new();
        let err = Error::new(ErrorKind::Syntax, 4, "bad scheme");
        write_diagnostic(&mut out, "f.txt", 12, &err).unwrap();
        assert_eq!(out, b"irinorm: f.txt:12:4: syntax: bad scheme\n");
    }
}
