//! The comparison ladder of RFC 3987 §5.3 (RFC 3986 §6.2): a configured [`Normalizer`] turns
//! a raw record into its canonical key.
//!
//! - `options`: the rung ([`Level`]), the key's [`Form`] and the other [`Options`];
//! - `settings`: the same options given by name, checked in one place for every front end;
//! - `normalizer`: the record entry point and the rungs, writing the key component by
//!   component (§5.3.1–§5.3.3);
//! - `protocol`: the protocol rung's typed rules and versioned profiles (§5.3.4);
//! - `surt`: the SURT form of a key, for web-archive indexes;
//! - `compare`: the lowest rung at which two records have the same key;
//! - `json`: the JSON text of what the ladder reports, for every front end;
//! - `fast`: the fast path that recognizes a record that already is its own key (SPEC §8),
//!   reading the same scheme table (`crate::iri::scheme`) as the rungs.
//!
//! The ladder depends on the IRI core (`crate::iri`) and on nothing else in the crate.

pub(crate) mod compare;
pub(crate) mod compat;
pub(crate) mod fast;
// The JSON text of explanations and rows, for the front ends (the engine's rows, the
// command line, the bindings through `internals`): unused by the library alone.
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub(crate) mod json;
mod key;
pub(crate) mod migrate;
mod nfc;
pub(crate) mod normalizer;
pub(crate) mod options;
// `protocol` and `settings` are reached by path from the command line (`src/cli/explain.rs`,
// `src/cli/args.rs`), and `surt` by documentation links in `src/ladder/options.rs` and
// `src/ladder/surt.rs`, until those change.
pub(crate) mod protocol;
pub(crate) mod record;
pub(crate) mod settings;
pub(crate) mod surt;
pub(crate) mod trace;

// The crate root re-exports the public names from where they are defined; the names here are
// for the rest of the crate.
pub(crate) use normalizer::Normalizer;
pub(crate) use options::{Form, Level, Options};
// The unit tests of the fast path and of the stream name `Rules` here.
#[cfg(test)]
pub(crate) use protocol::Rules;
