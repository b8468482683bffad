//! The IRI core: RFC 3987 and RFC 3986 themselves, with no notion of keys, ladders or
//! streams.
//!
//! - `chars`: the character classes (RFC 3986 §2, RFC 3987 §2.2, §4.1), and `find`, the
//!   byte searches sized for one component;
//! - `error`: typed errors and warnings, with their columns;
//! - `repair`: the lenient repairs of a raw record before it is parsed (RFC 3987 §3.1);
//! - `parse`: the zero-copy parser and validator ([`IriRef`](crate::IriRef), RFC 3987 §2.2,
//!   RFC 3986 §3, §4) and `components`, the five components it splits a reference into;
//! - `percent`: percent-encoding and the IRI/URI character mapping (RFC 3986 §2.1, §6.2.2.2;
//!   RFC 3987 §3.1, §3.2);
//! - `host`: IP literals (RFC 3986 §3.2.2, RFC 5952) and IDNA (RFC 3987 §3.1 ToASCII),
//!   with `ulabel` (hosts UTS #46 keeps as they are) and `punycode` (RFC 3492) beside it;
//! - `path` and `resolve`: dot segments and reference resolution (RFC 3986 §5.2);
//! - `convert`: the IRI → URI mapping and URI → IRI conversion (RFC 3987 §3.1, §3.2);
//! - `scheme`: what each scheme's RFC defines (default port, DNS hosts, empty path), the
//!   one table the ladder and the fast path both read (RFC 3986 §6.2.3);
//! - `bidi`: the bidi structure of components (RFC 3987 §4.2), for warnings (not used by
//!   the ladder yet).
//!
//! Nothing here depends on the other layers of the crate.

pub(crate) mod bidi;
pub(crate) mod chars;
pub(crate) mod components;
pub(crate) mod convert;
pub(crate) mod error;
pub(crate) mod find;
pub(crate) mod host;
// Reached by path from the command line (`src/cli/args.rs`: `Grammar`) until it imports it
// from the crate root.
pub(crate) mod parse;
pub(crate) mod path;
pub(crate) mod percent;
pub(crate) mod punycode;
// `repair` and `parse` are named by path in documentation links of `src/ladder/normalizer.rs`
// and by `src/cli/args.rs` respectively, until those change.
pub(crate) mod repair;
pub(crate) mod resolve;
pub(crate) mod scheme;
#[cfg(test)]
pub(crate) mod test_rng;
pub(crate) mod ulabel;
mod ulabel_table;
