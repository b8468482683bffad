//! The ladder as an engine operation: the [`Operation`] implementation of [`Normalizer`],
//! which lets the engine copy canonical lines through (its fast path) and hands every other
//! raw record to the normalizer's own record entry point.

use crate::iri::error::Error;
use crate::iri::repair::Repair;
use crate::ladder::{Normalizer, Notes};
use crate::stream::Operation;

/// The normalizer as an engine operation: records that the fast path accepts are copied
/// through by the engine itself, before any repair or parsing.
impl Operation for Normalizer {
    fn apply(&self, record: &str, out: &mut String) -> Result<(), Error> {
        self.normalize_record_into(record, out, &mut Notes::default())
    }

    /// The normalizer's own record entry point, under the engine's repair policy (the
    /// command line gives both the same `--strict`); the engine has asked `pass_through`
    /// (the fast path) about a raw record given as text, so that one goes straight to the
    /// full ladder unless the repairs changed it.
    fn apply_raw(
        &self,
        raw: &[u8],
        text: Option<&str>,
        repair: Repair,
        out: &mut String,
        notes: &mut Notes,
    ) -> Result<(), Error> {
        self.normalize_raw_into(raw, text, repair, out, notes)
    }

    #[inline]
    fn pass_through(&self, rest: &str) -> Option<usize> {
        self.canonical_line(rest)
    }

    fn pass_through_lines(&self, rest: &str, max_line: usize) -> (usize, u64) {
        self.canonical_lines(rest, max_line)
    }
}
