//! The comparison ladder (RFC 3987 §5.3, RFC 3986 §6.2): a configured [`Normalizer`] that
//! turns a record into its canonical key.
//!
//! The rungs, each including the ones below it (SPEC §4):
//! - [`Level::String`] (§5.3.1): the record itself, checked for validity.
//! - [`Level::Syntax`] (§5.3.2, RFC 3986 §6.2.2): scheme and ASCII hosts lowercased,
//!   percent-encoding hex uppercased, unreserved characters decoded, dot segments removed,
//!   an empty port dropped. Reserved characters and `%25` are never decoded.
//! - [`Level::Scheme`] (§5.3.3, RFC 3986 §6.2.3): the rows of [`crate::iri::scheme`]: default
//!   ports, empty paths, IDNA for DNS hosts, RFC 5952 IPv6 text, `file://localhost`,
//!   `mailto:` domains and `urn:` NIDs.
//!
//! The key is written in one of two forms ([`Form`](crate::Form)): `uri`, ASCII only, or `iri`, with
//! percent-encoded UTF-8 decoded where RFC 3987 §3.2 allows. Both put the same records
//! together: mapping an `iri` key to a URI (RFC 3987 §3.1, with ToASCII for DNS hosts at the
//! scheme rung) gives the `uri` key.
//!
//! The key is written component by component into one output buffer; the parsed view's
//! offsets always point into the input, never into the rewritten text.

use std::borrow::Cow;

use crate::iri::error::{Error, ErrorKind};
use crate::iri::parse::IriRef;
use crate::iri::repair::Repair;
use crate::ladder::compat::Compat;
use crate::ladder::fast::FastPath;
use crate::ladder::options::{Level, Options};
use crate::ladder::protocol::Rules;
use crate::ladder::record::{Notes, RawLine, Record};
use crate::ladder::settings::SettingsError;
use crate::ladder::trace::Explanation;

mod prepare;
mod rungs;
mod runs;
mod scratch;

pub(crate) use prepare::Entry;
pub use runs::{KeyRun, NextLine};

/// A configured normalizer: the ladder of RFC 3987 §5.3 up to one rung, writing one form.
///
/// Every method takes a raw record, as a line of input holds it: unless
/// [`Options::strict`] is set, it is trimmed and the lenient repairs are made first
/// (SPEC §3), exactly as the command line does, so the library, the command line
/// and the Python package give the same key for the same line.
///
/// ```
/// use irinorm::{Normalizer, Options};
/// let n = Normalizer::new(Options::default()).unwrap();
/// assert_eq!(n.normalize("HTTP://Example.COM:80/a/./b/../%7Ec").unwrap(), "http://example.com/a/~c");
/// // A key that is already normal is borrowed, not copied.
/// assert!(matches!(n.normalize("http://example.com/").unwrap(), std::borrow::Cow::Borrowed(_)));
/// // Lenient repairs, as on the command line: a space is encoded.
/// assert_eq!(n.normalize(" http://a/b c ").unwrap(), "http://a/b%20c");
/// ```
#[derive(Clone, Debug)]
pub struct Normalizer {
    options: Options,
    /// Which records are their own key at the scheme rung, found in one pass (see
    /// [`crate::ladder::fast`]).
    fast: FastPath,
    /// Records are checked against the bidi rules of RFC 3987 §4.2, for warnings.
    bidi_warnings: bool,
    /// [`Options::rewrites_after_scheme_rung`], asked of every record, answered once.
    rewrites: bool,
}

impl Normalizer {
    /// Builds a normalizer. The base, if any, must be an absolute IRI.
    ///
    /// Options that make no sense are an error, never silently ignored: a base that is not
    /// an absolute IRI, or protocol rules below [`Level::Protocol`] (the rules would not
    /// run). The error's text is the command line's message.
    pub fn new(options: Options) -> Result<Normalizer, SettingsError> {
        if let Some(base) = &options.base {
            let view =
                IriRef::parse(base).map_err(|e| SettingsError::new(format!("--base: {e}")))?;
            if !view.is_absolute() {
                let e = Error::new(ErrorKind::Relative, 1, "the base must be an absolute IRI");
                return Err(SettingsError::new(format!("--base: {e}")));
            }
        }
        if options.rules.is_some() && options.level != Level::Protocol {
            return Err(SettingsError::new(
                "--rules and --profile apply only at --level protocol",
            ));
        }
        if let Some(compat) = options.compat {
            check_compat(compat, &options)?;
        }
        Ok(Normalizer {
            fast: FastPath::new(&options),
            rewrites: options.rewrites_after_scheme_rung(),
            options,
            bidi_warnings: true,
        })
    }

    /// Whether the protocol rules or the SURT form rewrite the scheme-rung key
    /// ([`Options::rewrites_after_scheme_rung`]): then a record the fast path takes still
    /// has that work done, on its components split without a second check
    /// ([`Normalizer::write_own_key`]).
    #[inline]
    pub(crate) fn rewrites(&self) -> bool {
        self.rewrites
    }

    /// The options this normalizer was built with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// This normalizer without the check of RFC 3987 §4.2 (the bidi structure of each
    /// component), whose only result is warnings: for a run that neither shows nor counts
    /// warnings, on input with right-to-left characters. Keys and errors are the same either
    /// way, and other warnings (a host IDNA refuses) are still given.
    pub fn without_bidi_warnings(mut self) -> Normalizer {
        self.bidi_warnings = false;
        self
    }

    /// Normalizes one raw record. Returns the input borrowed when it already is its own key.
    pub fn normalize<'a>(&self, raw: &'a str) -> Result<Cow<'a, str>, Error> {
        // Its own key: borrowed, without a buffer.
        if !self.rewrites() && self.fast.accepts(raw) {
            return Ok(Cow::Borrowed(raw));
        }
        let mut out = String::new();
        // Not asked again (where its answer is the key).
        let line = RawLine::of_str(raw, self.repair());
        let notes = &mut Notes::default();
        self.enter(line, &mut out, notes, Entry::keys(self.rewrites()))?;
        if out == raw {
            Ok(Cow::Borrowed(raw))
        } else {
            Ok(Cow::Owned(out))
        }
    }

    /// Normalizes one raw record, appending the key to `out` (which is not cleared, so one
    /// buffer can collect many keys). On error, `out` is left as it was.
    pub fn normalize_into(&self, raw: &str, out: &mut String) -> Result<(), Error> {
        self.normalize_record_into(raw, out, &mut Notes::default())
    }

    /// Normalizes one raw record with all it reports: trims and repairs it unless the
    /// options are strict (adding the repairs to `notes`), then runs the ladder, appending
    /// the key to `out` and the warnings to `notes`. On error `out` is left as it was, and
    /// the error's column points into `raw`.
    ///
    /// A record that is already its own key is recognized in one pass and copied as it is
    /// (the fast path, SPEC §8); the others go through the whole ladder. Both give the same
    /// keys, errors and warnings. Like every entry point (the command line's and the Python
    /// package's included), it goes through the ladder's one entry, `Normalizer::enter`.
    pub fn normalize_record_into(
        &self,
        raw: &str,
        out: &mut String,
        notes: &mut Notes,
    ) -> Result<(), Error> {
        let line = RawLine::of_str(raw, self.repair());
        self.enter(line, out, notes, Entry::keys(true))
    }

    /// Whether this normalizer repairs records ([`Options::strict`]).
    fn repair(&self) -> Repair {
        if self.options.strict {
            Repair::Strict
        } else {
            Repair::Lenient
        }
    }

    /// Everything about one raw record: key or error, repairs and warnings.
    pub fn record(&self, raw: &str) -> Record {
        let mut key = String::new();
        let mut notes = Notes::default();
        let result = self.normalize_record_into(raw, &mut key, &mut notes);
        let Notes { repairs, warnings } = notes;
        match result {
            Ok(()) => Record {
                key: Some(key),
                error: None,
                repairs,
                warnings,
            },
            Err(e) => Record {
                key: None,
                error: Some(e),
                repairs,
                warnings,
            },
        }
    }

    /// The protocol rules, when they run (at the protocol rung).
    fn rules_in_force(&self) -> Option<&Rules> {
        match (&self.options.rules, self.options.level) {
            (Some(rules), Level::Protocol) => Some(rules),
            _ => None,
        }
    }
    /// Whether the fast path copies `input` through as its own key (SPEC §8): `true` only
    /// where the full ladder gives the same bytes, with no error or warning. For tests and
    /// benchmarks; not a stable API.
    #[doc(hidden)]
    pub fn is_canonical_fast(&self, input: &str) -> bool {
        self.canonical_line(input) == Some(input.len())
    }

    /// This normalizer with the fast path turned off: every record takes the full ladder.
    /// The reference that the fast path is tested against; not a stable API.
    #[doc(hidden)]
    pub fn without_fast_path(&self) -> Normalizer {
        Normalizer {
            fast: self.fast.off(),
            ..self.clone()
        }
    }

    /// Normalizes one raw record and reports every step that changed it, and its warnings.
    pub fn explain(&self, raw: &str) -> Result<Explanation, Error> {
        self.explain_bytes(raw.as_bytes())
    }

    /// [`Normalizer::explain`] for a raw record that may not be valid UTF-8 (its stray octets
    /// are a repair, or an error when strict).
    pub fn explain_bytes(&self, raw: &[u8]) -> Result<Explanation, Error> {
        let line = RawLine {
            bytes: raw,
            text: std::str::from_utf8(raw).ok(),
            repair: self.repair(),
        };
        let (mut key, mut notes, mut steps) = (String::new(), Notes::default(), Vec::new());
        let entry = Entry {
            ask_fast: false,
            steps: Some(&mut steps),
        };
        self.enter(line, &mut key, &mut notes, entry)?;
        Ok(Explanation {
            key,
            steps,
            warnings: notes.warnings,
        })
    }
}

/// Whether `a` and `b` are equivalent at `level`: a `bool`, true when their keys (in the URI
/// form, default options otherwise) are the same. For the lowest rung at which two records
/// are equivalent (what `irinorm compare` and Python's `irinorm.lowest_common_rung`, also
/// named `irinorm.equivalent`, return), see [`lowest_common_rung`](crate::lowest_common_rung).
pub fn equivalent(a: &str, b: &str, level: Level) -> Result<bool, Error> {
    let options = Options::default().with_level(level);
    let n = Normalizer {
        fast: FastPath::new(&options),
        rewrites: options.rewrites_after_scheme_rung(),
        options,
        bidi_warnings: false,
    };
    Ok(n.normalize(a)? == n.normalize(b)?)
}

/// Checks that `o`, which selects the compatibility profile `compat`, asks for nothing else: the profile is
/// the peer with its defaults, so any other key option would be silently ignored.
fn check_compat(compat: Compat, o: &Options) -> Result<(), SettingsError> {
    let extra = [
        (o.level != Level::Protocol, "--level below protocol"),
        (o.form != compat.form(), "another --form"),
        (o.rules.is_some(), "--rules"),
        (o.drop_fragment, "--drop-fragment"),
        (o.nfc, "--nfc"),
        (o.absolute, "--absolute"),
        (o.base.is_some(), "--base"),
        (o.surt_scheme, "--surt-scheme"),
        (o.strict, "--strict"),
    ];
    match extra.iter().find(|(set, _)| *set) {
        None => Ok(()),
        Some((_, what)) => Err(SettingsError::new(format!(
            "--profile {} writes the keys of {} with its defaults, in --form {}: {what} does not apply",
            compat.name(),
            compat.peer(),
            compat.form().name(),
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ladder::options::Form;
    use crate::ladder::surt;
    use std::sync::Arc;

    fn key(level: Level, form: Form, s: &str) -> String {
        let n = Normalizer::new(Options {
            level,
            form,
            ..Options::default()
        })
        .unwrap();
        n.normalize(s).unwrap().into_owned()
    }

    /// The SURT of a record under protocol rules is the SURT of its `uri` key under the same
    /// rules (as [`surt::surt`] parses it): the view the SURT form takes of the key, from the
    /// layout its writer recorded and carried through the rules' rounds, is the key's.
    #[test]
    fn surts_under_rules_are_the_surts_of_their_keys() {
        let records = [
            "HTTP://WWW.Example.COM/a/./b?utm_source=x&id=1#frag",
            "http://example.com/a;jsessionid=1/b?x=1",
            "http://example.com/.;jsessionid=1/x",
            "http://example.com/%7Ea/?&&q=1",
            "http://User@Example.com:80/p?sid=2&x=3",
            "https://bücher.example/é?utm_medium=y",
            "http://example.com./x?",
            "http://192.0.2.1:8080/A?B",
            "http://%31.2.3.4/?gclid=1",
            "http://[2001:DB8::1]/x?gclid=1",
            "mailto:Joe@Example.COM",
            "//Example.com/x?utm_campaign=z",
            "http://example.com/a?x=1",
            "http://example.com/a?u=1&x=2",
        ];
        let mut rewritten = 0;
        for profile in ["crawler", "crawler@1"] {
            let rules = Arc::new(Rules::profile(profile).unwrap());
            let with = |form| {
                Normalizer::new(Options {
                    level: Level::Protocol,
                    form,
                    rules: Some(rules.clone()),
                    ..Options::default()
                })
                .unwrap()
            };
            let (uri, surt) = (with(Form::Uri), with(Form::Surt));
            let scheme_rung = Normalizer::new(Options::default()).unwrap();
            for record in records {
                let key = uri.normalize(record).unwrap();
                let want = surt::surt(&key, false);
                assert_eq!(
                    surt.normalize(record).unwrap(),
                    want,
                    "{record} ({profile})"
                );
                rewritten += usize::from(key != scheme_rung.normalize(record).unwrap());
            }
        }
        // The rules rewrote keys (their rounds ran), and not every key.
        assert!(
            rewritten > 4 && rewritten < 2 * records.len(),
            "{rewritten}"
        );
    }

    #[test]
    fn syntax_rung() {
        let k = |s| key(Level::Syntax, Form::Uri, s);
        assert_eq!(
            k("HTTP://Example.COM:/%7euser/a/./b/../c%2f?Q=%3d#F"),
            "http://example.com/~user/a/c%2F?Q=%3D#F"
        );
        assert_eq!(k("http://example.com:80"), "http://example.com:80");
        assert_eq!(k("a:/.//b/./c"), "a:/.//b/c");
        assert_eq!(k("../a/./b"), "../a/./b");
        assert_eq!(k("/a/%2E%2E/b"), "/b");
        assert_eq!(k("http://%C3%A9XAMPLE.com/"), "http://%C3%A9XAMPLE.com/");
        assert_eq!(k("http://é/"), "http://%C3%A9/");
    }

    #[test]
    fn scheme_rung() {
        let k = |s| key(Level::Scheme, Form::Uri, s);
        assert_eq!(k("http://example.com"), "http://example.com/");
        assert_eq!(k("HTTPS://Example.com:0443/"), "https://example.com/");
        assert_eq!(k("http://Bücher.example/"), "http://xn--bcher-kva.example/");
        assert_eq!(
            k("http://[2001:DB8:0:0:0:0:0:1]:80/"),
            "http://[2001:db8::1]/"
        );
        assert_eq!(k("file://localhost/etc/x"), "file:///etc/x");
        assert_eq!(k("mailto:Joe@Example.COM"), "mailto:Joe@example.com");
        assert_eq!(k("URN:ISBN:0-1"), "urn:isbn:0-1");
        assert_eq!(k("foo://Example.com:80"), "foo://example.com:80");
        let i = |s| key(Level::Scheme, Form::Iri, s);
        assert_eq!(
            i("http://xn--bcher-kva.example/%C3%A9"),
            "http://bücher.example/é"
        );
    }

    #[test]
    fn iri_form_host_must_map_back_to_the_uri_form_host() {
        // SPEC §5: to_uri(key_iri(x)) == key_uri(x). `xn--xn---epa` decodes to `xn--é`,
        // which ToASCII rejects (a U-label may not have "--" in positions 3 and 4,
        // RFC 5891 §4.2.3.1), so the iri key keeps the A-label.
        let u = key(Level::Scheme, Form::Uri, "http://xn--xn---epa/");
        let i = key(Level::Scheme, Form::Iri, "http://xn--xn---epa/");
        assert_eq!(u, "http://xn--xn---epa/");
        assert_eq!(i, u);
        assert_eq!(
            key(Level::Scheme, Form::Iri, "http://XN--XN--A--GUA.pt/"),
            "http://xn--xn--a--gua.pt/"
        );
        // An ordinary IDN still gets its U-labels.
        assert_eq!(
            key(Level::Scheme, Form::Iri, "http://XN--BCHER-KVA.example/"),
            "http://bücher.example/"
        );
    }

    #[test]
    fn nfc_is_applied_to_encoded_characters_too_and_is_stable() {
        for form in [Form::Uri, Form::Iri] {
            let n = Normalizer::new(Options {
                nfc: true,
                form,
                ..Options::default()
            })
            .unwrap();
            let a = n.normalize("http://a/e%CC%81").unwrap().into_owned();
            let b = n.normalize("http://a/e\u{301}").unwrap().into_owned();
            let c = n.normalize("http://a/\u{e9}").unwrap().into_owned();
            assert_eq!(a, b);
            assert_eq!(a, c);
            assert_eq!(n.normalize(&a).unwrap(), a, "idempotent");
        }
        // Without --nfc the decomposed spelling stays a different key (RFC 3987 §5.3.2.2).
        let n = Normalizer::new(Options::default()).unwrap();
        assert_ne!(
            n.normalize("http://a/e%CC%81").unwrap(),
            n.normalize("http://a/%C3%A9").unwrap()
        );
    }

    #[test]
    fn explain_names_the_steps() {
        let n = Normalizer::new(Options::default()).unwrap();
        let e = n.explain("HTTP://a:80/./b").unwrap();
        assert_eq!(e.key, "http://a/b");
        let rules: Vec<_> = e.steps.iter().map(|s| s.rule).collect();
        assert_eq!(rules, ["case", "default-port", "dot-segments"]);
    }

    #[test]
    fn equivalence() {
        assert!(equivalent("HTTP://a/", "http://a/", Level::Syntax).unwrap());
        assert!(!equivalent("HTTP://a/", "http://a/", Level::String).unwrap());
        assert!(equivalent("http://a", "http://a:80/", Level::Scheme).unwrap());
        assert!(!equivalent("http://a", "http://a:80/", Level::Syntax).unwrap());
    }
}
