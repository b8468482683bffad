//! The comparison ladder of RFC 3987 §5.3 (RFC 3986 §6.2): a configured [`Normalizer`] turns
//! a raw record into its canonical key.
//!
//! - [`options`]: the rung ([`Level`]), the key's [`Form`] and the other [`Options`];
//! - [`settings`]: the same options given by name, checked in one place for every front end;
//! - [`normalizer`]: the record entry point and the rungs, writing the key component by
//!   component (§5.3.1–§5.3.3);
//! - [`protocol`]: the protocol rung's typed rules and versioned profiles (§5.3.4);
//! - [`surt`]: the SURT form of a key, for web-archive indexes;
//! - [`compare`]: the lowest rung at which two records have the same key;
//! - [`json`]: the JSON text of what the ladder reports, for every front end;
//! - `fast`: the fast path that recognizes a record that already is its own key (SPEC §8),
//!   reading the same scheme table ([`crate::iri::scheme`]) as the rungs.
//!
//! The ladder depends on the IRI core ([`crate::iri`]) and on nothing else in the crate.

pub mod compare;
mod fast;
pub mod json;
mod key;
mod nfc;
pub mod normalizer;
pub mod options;
pub mod protocol;
pub mod record;
pub mod settings;
pub mod surt;
pub mod trace;

pub use compare::{lowest_common_rung, CompareError};
pub use fast::backend_name;
pub use normalizer::{equivalent, Normalizer};
pub use options::{Form, Level, Options};
pub use protocol::Rules;
pub use record::{Notes, Record};
pub use settings::{RulesText, Settings, SettingsError};
pub use trace::{Explanation, Step};
