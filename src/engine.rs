//! The streaming engine (SPEC §8).

use crate::error::Error;

/// What the engine runs on every record: one of the library's operations (normalize, check,
/// to-uri, to-iri, resolve), already configured.
///
/// `record` has been through [`crate::repair::prepare`]: it holds no line terminator, is
/// valid UTF-8, and was trimmed and repaired unless the run is strict. On success the
/// operation appends the record's result (its key) to `out` and must not write a newline.
/// On failure it may leave partial output in `out`; the engine discards it.
pub trait Operation: Sync {
    /// Appends the result for one record to `out`.
    fn apply(&self, record: &str, out: &mut String) -> Result<(), Error>;
}

impl<F> Operation for F
where
    F: Fn(&str, &mut String) -> Result<(), Error> + Sync,
{
    fn apply(&self, record: &str, out: &mut String) -> Result<(), Error> {
        self(record, out)
    }
}
