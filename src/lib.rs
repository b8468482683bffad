//! irinorm: normalize IRIs and URIs (RFC 3987, RFC 3986) into canonical comparison keys.
//!
//! The modules follow the RFCs' vocabulary, one concept each:
//! - [`chars`]: character classes (RFC 3986 §2, RFC 3987 §2.2, §4.1);
//! - [`repair`]: lenient repairs of raw lines before parsing;
//! - [`parse`]: the zero-copy parser and validator ([`IriRef`]);
//! - [`percent`]: percent-encoding and the IRI/URI character mapping;
//! - [`host`]: IP literals and IDNA;
//! - [`path`] and [`mod@resolve`]: dot segments and reference resolution (RFC 3986 §5);
//! - [`convert`]: [`to_uri`] and [`to_iri`] (RFC 3987 §3.1, §3.2);
//! - [`scheme`] and [`normalize`]: the comparison ladder ([`Normalizer`]);
//! - [`engine`], [`input`], [`output`]: the streaming line filter.
//!
//! ```
//! use irinorm::{Normalizer, Options};
//! let n = Normalizer::new(Options::default()).unwrap();
//! assert_eq!(n.normalize("HTTP://Bücher.Example:80").unwrap(), "http://xn--bcher-kva.example/");
//! ```

pub mod chars;
pub mod cli;
pub mod convert;
pub mod engine;
pub mod error;
mod fast;
pub mod host;
pub mod input;
pub mod normalize;
pub mod output;
pub mod parse;
pub mod path;
pub mod percent;
pub mod protocol;
pub mod repair;
pub mod resolve;
pub mod scheme;
pub mod settings;
pub mod surt;

pub use convert::{to_iri, to_uri};
pub use error::{Error, ErrorKind};
pub use error::{Warning, WarningKind};
pub use normalize::{
    equivalent, Explanation, Form, Level, Normalizer, Notes, Options, Record, Step,
};
pub use protocol::Rules;
pub use repair::{Repair, RepairKind, Repairs};
pub use settings::{RulesText, Settings, SettingsError};

/// The version of the keys: it changes whenever any key, at any level, form or profile,
/// changes (see the CHANGELOG). Keys of different versions must not be compared.
pub const KEY_VERSION: u32 = 1;
pub use parse::{check, Grammar, HostKind, IriRef};
pub use resolve::resolve;

/// The README's Rust examples, compiled and run as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
