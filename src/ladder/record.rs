//! What the record entry point reports about one raw record (SPEC §2–§4): the lenient
//! repairs made and the warnings ([`Notes`]), and, in owned form, its key or error
//! ([`Record`]). Also where the records of a text are (SPEC §2): [`records_of`], by the
//! rules every reader of records follows ([`BOM`], [`without_cr`]).

use crate::iri::error::{Error, Warning};
use crate::iri::repair::{Repair, Repairs};

/// What a record produced besides its key: the repairs made and the warnings (SPEC §2, §4).
/// One value can serve many records: call [`Notes::clear`] between them, or let the counts
/// add up.
/// A raw record on its way into the ladder: its bytes as read (without the line
/// terminator), the same bytes as text where they are valid UTF-8, and the repair policy it
/// is prepared under (SPEC §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawLine<'a> {
    /// The bytes as read.
    pub bytes: &'a [u8],
    /// `bytes` as text, where the caller knows them to be valid UTF-8.
    pub text: Option<&'a str>,
    /// Trimmed and repaired leniently, or taken as it is.
    pub repair: Repair,
}

impl<'a> RawLine<'a> {
    /// The record prepared under its repair policy (trimmed and repaired unless strict:
    /// [`crate::iri::repair::prepare`]), in `scratch` where the repairs changed it; the
    /// repairs are added to `repairs`.
    pub fn prepare<'s>(
        self,
        scratch: &'s mut String,
        repairs: &mut Repairs,
    ) -> Result<&'s str, Error>
    where
        'a: 's,
    {
        crate::iri::repair::prepare_text(self.bytes, self.text, self.repair, scratch, repairs)
    }

    /// `text`, under `repair`.
    pub fn of_str(text: &'a str, repair: Repair) -> Self {
        RawLine {
            bytes: text.as_bytes(),
            text: Some(text),
            repair,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Notes {
    /// The lenient repairs made, by kind.
    pub repairs: Repairs,
    /// The warnings, in the order they were found.
    pub warnings: Vec<Warning>,
}

impl Notes {
    /// Forgets the repairs and warnings noted so far.
    pub fn clear(&mut self) {
        self.repairs = Repairs::default();
        self.warnings.clear();
    }
}

/// Everything a normalizer says about one record ([`Normalizer::record`](crate::ladder::Normalizer::record)).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Record {
    /// The key, or `None` when the record is invalid.
    pub key: Option<String>,
    /// Why the record is invalid, when it is.
    pub error: Option<Error>,
    /// The lenient repairs made.
    pub repairs: Repairs,
    /// The warnings (a record with warnings is still valid).
    pub warnings: Vec<Warning>,
}

/// The UTF-8 byte order mark, dropped at the start of an input: it is not part of the first
/// record (SPEC §2).
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A line without the carriage return that ends it, if one does: a CRLF line ends where an
/// LF line does (SPEC §2).
#[inline]
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn without_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The records of a whole input `data` (SPEC §2): the lines between line feeds, a `BOM` at
/// the start dropped, each `without_cr`; a final line feed starts no record.
///
/// ```
/// use irinorm::internals::records_of;
/// let records: Vec<&[u8]> = records_of(b"\xEF\xBB\xBFa\r\n\nb\n").collect();
/// assert_eq!(records, [&b"a"[..], b"", b"b"]);
/// ```
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn records_of(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    let data = data.strip_prefix(BOM).unwrap_or(data);
    let lines = data.strip_suffix(b"\n").unwrap_or(data);
    let lines = (!data.is_empty()).then(|| lines.split(|&b| b == b'\n'));
    lines.into_iter().flatten().map(without_cr)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iri::repair::octets_as_text;

    fn records(data: &[u8]) -> Vec<String> {
        records_of(data)
            .map(|r| octets_as_text(r).into_owned())
            .collect()
    }

    #[test]
    fn a_final_line_feed_starts_no_record_and_a_bom_only_at_the_start() {
        assert!(records(b"").is_empty());
        assert!(records(BOM).is_empty());
        assert_eq!(records(b"\n"), [""]);
        assert_eq!(records(b"\n\n"), ["", ""]);
        assert_eq!(records(b"a"), ["a"]);
        assert_eq!(records(b"a\rb\n\r\n"), ["a\rb", ""]);
        assert_eq!(records(b"\xEF\xBB\xBFa\r\nb\r\r\n"), ["a", "b\r"]);
        assert_eq!(records(b"a\n\xEF\xBB\xBFb"), ["a", "\u{feff}b"]);
    }

    #[test]
    fn octets_that_are_not_utf8_are_written_as_percent() {
        assert_eq!(records(b"x\xff\xfey\n\xe2\x82\n"), ["x%FF%FEy", "%E2%82"]);
    }
}
