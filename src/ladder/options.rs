//! What a [`crate::ladder::Normalizer`] does: the rung of the ladder ([`Level`], RFC 3987
//! §5.3), the form of the key ([`Form`], SPEC §5), and the other [`Options`].

use std::sync::Arc;

use crate::ladder::compat::Compat;
use crate::ladder::protocol::Rules;

/// The rung of the comparison ladder (RFC 3987 §5.3).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Level {
    /// Simple string comparison (§5.3.1).
    String,
    /// Syntax-based normalization (§5.3.2).
    Syntax,
    /// Scheme-based normalization (§5.3.3), the default.
    #[default]
    Scheme,
    /// Protocol-based normalization (§5.3.4): the scheme rung, then the configured
    /// [`Rules`] (crawler heuristics; docs/protocol.md).
    Protocol,
}

/// The names of the rungs (RFC 3987 §5.3), lowest first, in the order of [`Level`]'s
/// variants ([`Level::name`]).
pub const LEVEL_NAMES: &[&str] = &["string", "syntax", "scheme", "protocol"];

impl Level {
    /// Every rung, lowest first, in the order of [`LEVEL_NAMES`].
    const ALL: [Level; 4] = [Level::String, Level::Syntax, Level::Scheme, Level::Protocol];

    /// The command-line name of the level.
    pub fn name(self) -> &'static str {
        LEVEL_NAMES[self as usize]
    }
}

/// The form in which keys are written (SPEC §5).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Form {
    /// ASCII only: non-ASCII characters percent-encoded, DNS hosts as A-labels.
    #[default]
    Uri,
    /// Percent-encoded UTF-8 decoded where RFC 3987 §3.2 allows; DNS hosts as U-labels.
    Iri,
    /// The SURT of the `uri` key (host labels reversed and comma-joined, `)` before the
    /// path, lowercased), as web-archive indexes sort by; see [`crate::write_surt`].
    Surt,
}

/// The names of the forms of a key (SPEC §5), in the order of [`Form`]'s variants
/// ([`Form::name`]).
pub const FORM_NAMES: &[&str] = &["uri", "iri", "surt"];

impl Form {
    /// Every form, in the order of [`FORM_NAMES`].
    const ALL: [Form; 3] = [Form::Uri, Form::Iri, Form::Surt];

    /// The command-line name of the form.
    pub fn name(self) -> &'static str {
        FORM_NAMES[self as usize]
    }
}

/// What a [`Normalizer`](crate::ladder::Normalizer) does. Build it from
/// [`Options::default`] with the `with_` setters (new options may come in later versions):
///
/// ```
/// use irinorm::{Form, Level, Options};
/// let o = Options::default().with_level(Level::Syntax).with_form(Form::Iri);
/// assert_eq!((o.level, o.form, o.nfc), (Level::Syntax, Form::Iri, false));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// The rung of the ladder.
    pub level: Level,
    /// The form of the key.
    pub form: Form,
    /// Remove the fragment (RFC 3987 §5.1: comparisons that select a network action
    /// exclude fragments).
    pub drop_fragment: bool,
    /// Apply Unicode NFC to the record first (RFC 3987 §3.1 step 1, for text converted from
    /// non-Unicode or non-digital sources; §5.3.2.2 says not to apply it otherwise).
    pub nfc: bool,
    /// Reject relative references (kind `relative`) instead of normalizing them alone.
    pub absolute: bool,
    /// Resolve relative references against this absolute IRI first (RFC 3986 §5.2).
    pub base: Option<String>,
    /// The rules of the protocol rung (used at [`Level::Protocol`]; none means no rule).
    pub rules: Option<Arc<Rules>>,
    /// With [`Form::Surt`], write the scheme too (`http://(com,example,)/`).
    pub surt_scheme: bool,
    /// No trimming and no lenient repairs: each record must be the exact IRI (`--strict`).
    pub strict: bool,
    /// A compatibility profile (`--profile wayback`, `--profile w3lib`): the key is the one
    /// that canonicalizer gives, in its own form, at [`Level::Protocol`] (RFC 3987 §5.3.4),
    /// and no other option applies ([`Compat`]).
    pub compat: Option<Compat>,
}

/// The conditions the ladder and its fast path both follow, stated once.
impl Options {
    /// Whether `--nfc` is in force: from the syntax rung on (the string rung compares the
    /// record as given, RFC 3987 §5.3.1). It can change only a record that stands for
    /// non-ASCII text, raw or percent-encoded ([`crate::iri::percent::has_non_ascii`]).
    #[inline]
    pub(crate) fn applies_nfc(&self) -> bool {
        self.nfc && self.level >= Level::Syntax
    }

    /// Whether the scheme table ([`crate::iri::scheme::SCHEMES`]) applies: from the scheme
    /// rung on (RFC 3987 §5.3.3).
    #[inline]
    pub(crate) fn applies_scheme_rows(&self) -> bool {
        self.level >= Level::Scheme
    }

    /// Whether the key of the scheme rung is rewritten once more: by the protocol rules, or
    /// into the SURT form (above the string rung, whose key is the record itself).
    #[inline]
    pub(crate) fn rewrites_after_scheme_rung(&self) -> bool {
        self.compat.is_some()
            || (self.level == Level::Protocol && self.rules.is_some())
            || self.writes_surt()
    }

    /// Whether keys are written in the SURT form: asked for, above the `string` rung (which
    /// keeps records as they are).
    #[inline]
    pub(crate) fn writes_surt(&self) -> bool {
        self.form == Form::Surt && self.level != Level::String
    }
}

impl Compat {
    /// The form of the profile's keys: the peer's own ([`Form::Surt`] for `wayback`,
    /// [`Form::Uri`] for `w3lib`).
    pub fn form(self) -> Form {
        match self {
            Compat::Wayback1 => Form::Surt,
            Compat::W3lib1 => Form::Uri,
        }
    }
}

impl Level {
    /// The level of a command-line name ([`Level::name`]).
    pub fn from_name(name: &str) -> Option<Level> {
        let at = LEVEL_NAMES.iter().position(|&n| n == name)?;
        Some(Level::ALL[at])
    }
}

impl Form {
    /// The form of a command-line name ([`Form::name`]).
    pub fn from_name(name: &str) -> Option<Form> {
        let at = FORM_NAMES.iter().position(|&n| n == name)?;
        Some(Form::ALL[at])
    }
}

setters!(Options {
    level: Level => with_level,
    form: Form => with_form,
    drop_fragment: bool => with_drop_fragment,
    nfc: bool => with_nfc,
    absolute: bool => with_absolute,
    base: Option<String> => with_base,
    rules: Option<Arc<Rules>> => with_rules,
    surt_scheme: bool => with_surt_scheme,
    strict: bool => with_strict,
    compat: Option<Compat> => with_compat,
});
