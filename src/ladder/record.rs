//! What the record entry point reports about one raw record (SPEC §2–§4): the lenient
//! repairs made and the warnings ([`Notes`]), and, in owned form, its key or error
//! ([`Record`]).

use crate::iri::error::{Error, Warning};
use crate::iri::repair::Repairs;

/// What a record produced besides its key: the repairs made and the warnings (SPEC §2, §4).
/// One value can serve many records: call [`Notes::clear`] between them, or let the counts
/// add up.
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
