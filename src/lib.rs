//! irinorm: normalize IRIs and URIs (RFC 3987, RFC 3986) into canonical comparison keys.
//!
//! The crate is three layers, each a folder, each depending only on the ones below it:
//!
//! | layer | what it owns |
//! |---|---|
//! | [`stream`] | the line engine: chunked reader, workers, ordered writer, output records (SPEC §8) |
//! | [`ladder`] | the comparison ladder of RFC 3987 §5.3: rungs, key forms, protocol rules, SURT, fast path |
//! | [`iri`] | RFC 3987 / RFC 3986 themselves: characters, parsing, percent-encoding, hosts, resolution, the IRI↔URI mappings |
//!
//! The command line is a fourth layer on top, in the binary only (feature `cli`). See
//! `docs/architecture.md` for how a record flows through them.
//!
//! The names most programs need are here at the root:
//!
//! ```
//! use irinorm::{Normalizer, Options};
//! let n = Normalizer::new(Options::default()).unwrap();
//! assert_eq!(n.normalize("HTTP://Bücher.Example:80").unwrap(), "http://xn--bcher-kva.example/");
//! ```

#[macro_use]
mod setters;

pub mod iri;
pub mod ladder;
#[cfg(feature = "stream")]
pub mod stream;

pub use iri::convert::{to_iri, to_uri, HostMapping};
pub use iri::error::{Error, ErrorKind, Warning, WarningKind};
pub use iri::parse::{check, Grammar, HostKind, IriRef};
pub use iri::repair::{Repair, RepairKind, Repairs};
pub use iri::resolve::{resolve, Resolution};
pub use ladder::{
    equivalent, lowest_common_rung, CompareError, Explanation, Form, Level, Normalizer, Notes,
    Options, Record, Rules, RulesText, Settings, SettingsError, Step,
};

/// The version of the keys: it changes whenever any key, at any level, form or profile,
/// changes (see the CHANGELOG). Keys of different versions must not be compared.
pub const KEY_VERSION: u32 = 2;

/// The README's Rust examples, compiled and run as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
