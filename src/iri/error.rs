//! Typed errors: what is wrong with a record, and where.
//!
//! Every rejection carries an [`ErrorKind`] (the names of SPEC §3), a 1-based column and a
//! short static message. Columns count characters (Unicode scalar values) of the record as
//! it was read, except for [`ErrorKind::Utf8`], where they count bytes, because the record is
//! not text there.

use std::fmt;

/// The class of a rejected record. The string names (see [`ErrorKind::name`]) are part of the
/// command-line contract and do not change between versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The record is empty (after trimming, in lenient mode).
    Empty,
    /// The record is not valid UTF-8 (only under `--strict`; otherwise stray octets are kept
    /// as `%XX`).
    Utf8,
    /// The record is longer than the configured maximum line length.
    TooLong,
    /// A `%` not followed by two hex digits (only under `--strict`; otherwise it becomes `%25`).
    BadPercent,
    /// A NUL byte (U+0000): what a file cut or padded while it was written holds (the zeros
    /// `logrotate copytruncate` leaves at the start of a log), so it is told apart from the
    /// other control characters. A record that holds one is this error at its first NUL,
    /// whatever else is wrong with it (but for [`ErrorKind::TooLong`], whose rest is not read).
    Nul,
    /// An ASCII control character other than NUL, U+0001–U+001F or U+007F.
    Control,
    /// A non-ASCII code point outside `ucschar`/`iprivate`, or `iprivate` outside the query
    /// (RFC 3987 §2.2).
    DisallowedChar,
    /// A bidirectional formatting character (RFC 3987 §4.1, plus the isolates U+2066–U+2069).
    BidiFormat,
    /// Any other violation of the grammar: a bad scheme, a misplaced `[`, `]` or `#`, a
    /// malformed IP literal, a non-numeric port, or a character URIs forbid under `--strict`.
    Syntax,
    /// A relative reference where an absolute one is required (`--absolute`, or a grammar
    /// that needs a scheme).
    Relative,
    /// A host that IDNA processing rejects, where the operation cannot go on without it
    /// (`to-uri --ascii-host`; RFC 3987 §3.1 says such an IRI cannot be resolved). The
    /// normalizer never fails for this: it keeps the host's syntax form and warns.
    Idna,
    /// A record of a record format (`--csv`, `--json-field`, `--field`, CDX …) that is not
    /// well formed, or lacks the URL's field: a quote never closed on its line, a JSON line
    /// that does not parse, fewer fields than the one asked for.
    Record,
}

impl ErrorKind {
    /// Every kind, in declaration order (for statistics tables).
    pub const ALL: [ErrorKind; 12] = [
        ErrorKind::Empty,
        ErrorKind::Utf8,
        ErrorKind::TooLong,
        ErrorKind::BadPercent,
        ErrorKind::Nul,
        ErrorKind::Control,
        ErrorKind::DisallowedChar,
        ErrorKind::BidiFormat,
        ErrorKind::Syntax,
        ErrorKind::Relative,
        ErrorKind::Idna,
        ErrorKind::Record,
    ];

    /// The stable name of the kind, as printed in diagnostics and JSON output.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Empty => "empty",
            ErrorKind::Utf8 => "utf8",
            ErrorKind::TooLong => "too-long",
            ErrorKind::BadPercent => "bad-percent",
            ErrorKind::Nul => "nul",
            ErrorKind::Control => "control",
            ErrorKind::DisallowedChar => "disallowed-char",
            ErrorKind::BidiFormat => "bidi-format",
            ErrorKind::Syntax => "syntax",
            ErrorKind::Relative => "relative",
            ErrorKind::Idna => "idna",
            ErrorKind::Record => "record",
        }
    }

    /// A dense index for counting tables (`0..ALL.len()`).
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A rejected record: kind, 1-based column, and a short message.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Error {
    /// What is wrong.
    pub kind: ErrorKind,
    /// Where: the 1-based column (characters; bytes for [`ErrorKind::Utf8`]). `0` when the
    /// error concerns the record as a whole (an empty record, a line that is too long).
    pub column: usize,
    /// A short human-readable explanation.
    pub message: &'static str,
}

impl Error {
    /// Builds an error.
    pub fn new(kind: ErrorKind, column: usize, message: &'static str) -> Self {
        Error {
            kind,
            column,
            message,
        }
    }

    /// Builds an error whose position is given as a byte offset into `text`; the column is
    /// converted to a 1-based character column.
    pub fn at_byte(kind: ErrorKind, text: &str, byte_offset: usize, message: &'static str) -> Self {
        let prefix = text.get(..byte_offset).unwrap_or(text);
        Error::new(kind, prefix.chars().count() + 1, message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_diagnostic(f, self.kind, self.column, self.message)
    }
}

impl std::error::Error for Error {}

/// The error of a refused record that holds a NUL byte (SPEC §2): [`ErrorKind::Nul`] at its
/// first NUL, whatever else made the record fail, so that a file cut or padded with zeros
/// reads as such. Otherwise `error` as it is. The column counts the units of the raw record
/// (a character, or one octet that is not part of valid UTF-8), as the columns of the
/// lenient repairs do. A NUL is never valid, so
/// only refused records need this look: it is on the error path only. (A too-long record is
/// not looked at: only its first bytes were read.)
pub fn with_nul_first(raw: &[u8], error: Error) -> Error {
    if error.kind == ErrorKind::TooLong {
        return error;
    }
    match memchr::memchr(0, raw) {
        Some(at) => Error::new(ErrorKind::Nul, unit_column(raw, at), "NUL byte"),
        None => error,
    }
}

/// The 1-based column of byte `at` of a raw record, counting its units: a character, or one
/// octet that is not part of valid UTF-8 (the columns of the lenient repairs).
pub fn unit_column(raw: &[u8], at: usize) -> usize {
    let units: usize = raw[..at.min(raw.len())]
        .utf8_chunks()
        .map(|c| c.valid().chars().count() + c.invalid().len())
        .sum();
    units + 1
}

/// The class of a warning: something worth knowing about a record that is still valid and
/// still has a key. Warnings never turn a record into an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum WarningKind {
    /// A host that IDNA processing rejects kept its syntax-level form in the key (SPEC §4).
    Idna,
    /// A component breaks a bidi rule of RFC 3987 §4.2 (a SHOULD): it mixes right-to-left
    /// and left-to-right characters, or holds right-to-left characters but does not start
    /// and end with one (`iri::bidi`).
    Bidi,
}

impl WarningKind {
    /// Every kind, in declaration order.
    pub const ALL: [WarningKind; 2] = [WarningKind::Idna, WarningKind::Bidi];

    /// The stable name of the kind, as printed in diagnostics and JSON output.
    pub fn name(self) -> &'static str {
        match self {
            WarningKind::Idna => "idna",
            WarningKind::Bidi => "bidi",
        }
    }
}

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A warning about a valid record: kind, 1-based column (as for [`Error`]) and a short
/// message.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Warning {
    /// What is worth knowing.
    pub kind: WarningKind,
    /// Where: the 1-based column of the record as read (`0` for the record as a whole).
    pub column: usize,
    /// A short human-readable explanation.
    pub message: &'static str,
}

impl Warning {
    /// Builds a warning.
    pub fn new(kind: WarningKind, column: usize, message: &'static str) -> Self {
        Warning {
            kind,
            column,
            message,
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_diagnostic(f, self.kind, self.column, self.message)
    }
}

/// How an [`Error`] and a [`Warning`] are displayed: `kind: column N: message`, or
/// `kind: message` for the record as a whole (column `0`).
fn write_diagnostic(
    f: &mut fmt::Formatter<'_>,
    kind: impl fmt::Display,
    column: usize,
    message: &str,
) -> fmt::Result {
    if column > 0 {
        write!(f, "{kind}: column {column}: {message}")
    } else {
        write!(f, "{kind}: {message}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_from_byte_offset_counts_characters() {
        let e = Error::at_byte(ErrorKind::Syntax, "héllo", 3, "x");
        assert_eq!(e.column, 3); // 'h', 'é' before byte 3
    }

    #[test]
    fn names_are_stable() {
        let names: Vec<_> = ErrorKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(
            names,
            [
                "empty",
                "utf8",
                "too-long",
                "bad-percent",
                "nul",
                "control",
                "disallowed-char",
                "bidi-format",
                "syntax",
                "relative",
                "idna",
                "record"
            ]
        );
        for (i, k) in ErrorKind::ALL.iter().enumerate() {
            assert_eq!(k.index(), i);
        }
    }
}
