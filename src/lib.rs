//! irinorm: normalize IRIs and URIs (RFC 3987, RFC 3986) into canonical comparison keys.
//!
//! The crate is three layers, each a folder, each depending only on the ones below it:
//!
//! | layer | what it owns |
//! |---|---|
//! | [`stream`] | the line engine: chunked reader, workers, ordered writer, output records (SPEC §8) |
//! | `ladder` | the comparison ladder of RFC 3987 §5.3: rungs, key forms, protocol rules, SURT, fast path |
//! | `iri` | RFC 3987 / RFC 3986 themselves: characters, parsing, percent-encoding, hosts, resolution, the IRI↔URI mappings |
//!
//! The command line is a fourth layer on top, in the binary only (feature `cli`). See
//! `docs/architecture.md` for how a record flows through them.
//!
//! The API is the names here at the root and, with feature `stream`, the engine in
//! [`stream`]:
//!
//! ```
//! use irinorm::{Normalizer, Options};
//! let n = Normalizer::new(Options::default()).unwrap();
//! assert_eq!(n.normalize("HTTP://Bücher.Example:80").unwrap(), "http://xn--bcher-kva.example/");
//! ```

#[macro_use]
mod setters;

// `iri` and `ladder` are not part of the API: their names that are public are re-exported
// below (and, for this package's command line, tests and bindings, in `internals`).
mod iri;
mod ladder;
#[cfg(feature = "stream")]
pub mod stream;

/// What this package's command line, tests and fuzz targets use beyond the API: feature
/// `internals` (which `cli` turns on, and the tests and fuzz targets ask for). Not part of the API: anything here may change in any release.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals {
    pub use crate::iri::bidi::warnings as bidi_warnings;
    pub use crate::iri::components::Components;
    pub use crate::iri::error::with_nul_first;
    pub use crate::iri::host::{is_ipv4address, parse_ipv6};
    pub use crate::iri::path::has_dot_segments;
    pub use crate::iri::percent::has_non_ascii;
    pub use crate::iri::repair::{
        octets_as_text, original_column, prepare, prepare_str, prepare_text,
    };
    pub use crate::iri::resolve::resolve_components;
    pub use crate::iri::scheme::{SchemeRule, Special, SCHEMES};
    pub use crate::ladder::json::{
        explained_record_json, push_explained_json, push_invalid_json, push_json_bytes,
        push_json_str,
    };
    pub use crate::ladder::options::{FORM_NAMES, LEVEL_NAMES};
    pub use crate::ladder::record::records_of;
    pub use crate::ladder::settings::{KeyOption, OptionKind, KEY_OPTIONS};
    #[cfg(feature = "stream")]
    pub use crate::stream::{
        error::SHORTENED_MAP,
        framing::{Field, Framing, KeyPlacement, LogPart, RecordFormat},
        input::{Container, CONTAINERS},
        records::{RawRecord, Records},
    };
}

pub use iri::convert::{to_iri, to_uri, HostMapping};
pub use iri::error::{Error, ErrorKind, Warning, WarningKind};
pub use iri::parse::{check, Grammar, HostKind, IriRef};
pub use iri::repair::{Repair, RepairKind, Repairs};
pub use iri::resolve::{resolve, Resolution};
pub use ladder::compare::{lowest_common_rung, CompareError};
pub use ladder::compat::Compat;
pub use ladder::fast::backend_name;
pub use ladder::migrate::{Migration, MigrationReport, MigrationSummary, Observation, RuleCount};
pub use ladder::normalizer::{equivalent, KeyRun, NextLine, Normalizer};
pub use ladder::options::{Form, Level, Options};
pub use ladder::protocol::{
    Action, Component, Fired, HostPattern, HostScope, HostScopeError, ParamFilter,
    ParamFilterError, Rule, RuleKind, Rules, RulesError, SlashPolicy, ValueCondition,
};
pub use ladder::record::{Notes, RawLine, Record};
pub use ladder::settings::{RulesText, Settings, SettingsError};
pub use ladder::surt::{surt, write_surt, write_surt_with, SurtOptions};
pub use ladder::trace::{Explanation, Step};

/// The version of the keys: it changes whenever any key, at any level, form or profile,
/// changes (see the CHANGELOG). Keys of different versions must not be compared.
pub const KEY_VERSION: u32 = 2;

/// The README's Rust examples, compiled and run as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
