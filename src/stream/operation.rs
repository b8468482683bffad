//! What the engine runs on every record (SPEC §8): the [`Operation`] trait, its
//! implementation for closures, and the ladder as an operation: the implementation for
//! [`Normalizer`], whose runs of lines (its fast path, [`crate::ladder::Normalizer`]'s
//! `canonical_lines` and `own_key_lines`) the engine reads lines through.

use crate::iri::error::Error;
use crate::ladder::normalizer::Entry;
use crate::ladder::record::{Notes, RawLine};
use crate::ladder::Normalizer;

/// What the engine runs on every record: one of the library's operations (normalize, check,
/// to-uri, to-iri, resolve), already configured.
///
/// The engine hands each raw record to [`Operation::apply_raw`], which prepares it (trims
/// and repairs it, unless the run is strict: [`crate::iri::repair::prepare`]) and applies
/// [`Operation::apply`] to the result. An operation that is the ladder says so
/// ([`Operation::ladder`]): the engine then reads the lines through the ladder's runs of
/// lines, which copy canonical lines through and write the keys they can without a parse,
/// and hands it only the other records.
pub trait Operation: Sync {
    /// Appends the result for one prepared record to `out`.
    ///
    /// `record` holds no line terminator, is valid UTF-8, and was trimmed and repaired
    /// unless the run is strict. On success the operation appends the record's result (its
    /// key) to `out` and must not write a newline. On failure it may leave partial output in
    /// `out`; the engine discards it.
    fn apply(&self, record: &str, out: &mut String) -> Result<(), Error>;

    /// Handles one raw record (no line terminator; given as text too when its chunk is known
    /// to be valid UTF-8). Repairs go to `notes`, and so do warnings; an error's column
    /// points into the raw record.
    ///
    /// The default prepares the record under its repair policy and calls
    /// [`Operation::apply`].
    fn apply_raw(&self, line: RawLine, out: &mut String, notes: &mut Notes) -> Result<(), Error> {
        let mut scratch = String::new();
        let record = line.prepare(&mut scratch, &mut notes.repairs)?;
        self.apply(record, out).map_err(|mut error| {
            // The operation saw the repaired record; point into the raw one.
            error.column = line.repair.raw_column(line.bytes, error.column);
            error
        })
    }

    /// The ladder, where this operation is the ladder: the engine then reads lines through
    /// its runs of lines (SPEC §8: a line that needs no change is copied through untouched)
    /// and hands it the other records itself. The default says `None`: every record goes to
    /// [`Operation::apply_raw`].
    fn ladder(&self) -> Option<&Normalizer> {
        None
    }
}

impl<F> Operation for F
where
    F: Fn(&str, &mut String) -> Result<(), Error> + Sync,
{
    fn apply(&self, record: &str, out: &mut String) -> Result<(), Error> {
        self(record, out)
    }
}

/// The normalizer as an engine operation: the ladder's one entry for each record
/// ([`Normalizer::normalize_raw_into`]), and its runs of lines for the engine.
impl Operation for Normalizer {
    fn apply(&self, record: &str, out: &mut String) -> Result<(), Error> {
        self.normalize_record_into(record, out, &mut Notes::default())
    }

    fn apply_raw(&self, line: RawLine, out: &mut String, notes: &mut Notes) -> Result<(), Error> {
        // A record its runs of lines were not asked about: the fast path is asked here.
        self.enter(line, out, notes, Entry::keys(true))
    }

    fn ladder(&self) -> Option<&Normalizer> {
        Some(self)
    }
}

/// Operations for the engine's own tests.
#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::iri::error::ErrorKind;

    /// Uppercases the record; `x` is an error.
    pub(in crate::stream) fn upper(record: &str, out: &mut String) -> Result<(), Error> {
        if let Some(i) = record.find('x') {
            return Err(Error::at_byte(ErrorKind::Syntax, record, i, "x"));
        }
        out.push_str(&record.to_ascii_uppercase());
        Ok(())
    }

    /// Keeps records of the letters `a`–`w` as they are; uppercases the others (as `upper`,
    /// for which `x` is an error).
    pub(in crate::stream) struct Lowercase;

    impl Operation for Lowercase {
        fn apply(&self, record: &str, out: &mut String) -> Result<(), Error> {
            if !record.is_empty() && record.chars().all(|c| matches!(c, 'a'..='w')) {
                out.push_str(record);
                return Ok(());
            }
            upper(record, out)
        }
    }

    #[test]
    fn the_normalizer_as_an_operation_gives_the_ladders_keys() {
        let n = Normalizer::new(crate::ladder::Options::default()).unwrap();
        assert!(n.ladder().is_some() && Lowercase.ladder().is_none());
        for raw in ["http://a/", "HTTP://A", " http://a/b c ", "http://a/%zz"] {
            let mut want = String::new();
            let want = n.normalize_into(raw, &mut want).map(|()| want);
            let mut key = String::new();
            let line = RawLine {
                bytes: raw.as_bytes(),
                text: None,
                repair: crate::iri::repair::Repair::Lenient,
            };
            let got = n.apply_raw(line, &mut key, &mut Notes::default());
            assert_eq!(got.map(|()| key), want, "{raw}");
        }
    }
}
