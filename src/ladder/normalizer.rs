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
//! The key is written in one of two forms ([`Form`]): `uri`, ASCII only, or `iri`, with
//! percent-encoded UTF-8 decoded where RFC 3987 §3.2 allows. Both put the same records
//! together: mapping an `iri` key to a URI (RFC 3987 §3.1, with ToASCII for DNS hosts at the
//! scheme rung) gives the `uri` key.
//!
//! The key is written component by component into one output buffer; the parsed view's
//! offsets always point into the input, never into the rewritten text.

use std::borrow::Cow;
use std::cell::RefCell;

use crate::iri::bidi;
use crate::iri::error::{self, Error, ErrorKind};
use crate::iri::host;
use crate::iri::parse::HostKind;
use crate::iri::parse::{IriRef, Layout};
use crate::iri::percent;
use crate::iri::repair::{self, Repair, RepairKind, Repairs};
use crate::iri::resolve;
use crate::ladder::fast::{FastPath, Shape};
use crate::ladder::key::KeyWriter;
use crate::ladder::nfc::nfc_between_delimiters;
use crate::ladder::options::{Form, Level, Options};
use crate::ladder::protocol::{Glance, RuleKind, Rules};
use crate::ladder::record::{Notes, Record};
use crate::ladder::settings::SettingsError;
use crate::ladder::surt;
use crate::ladder::trace::{note, record_step, Explanation, Tracer};

/// Buffers reused by every record a thread normalizes, so the hot path allocates nothing
/// once they have grown.
#[derive(Default)]
struct Scratch {
    /// The texts a record may be re-read from before its key is written.
    texts: Texts,
    /// The buffers of writing the key.
    key: KeyBuffers,
    /// The record after the lenient repairs.
    repaired: String,
}

/// The texts a record may be re-read from.
#[derive(Default)]
struct Texts {
    /// The record after NFC.
    nfc: String,
    /// The record after resolution against the base.
    resolved: String,
}

/// The buffers of writing a key.
#[derive(Default)]
struct KeyBuffers {
    /// The key writer's scratch ([`KeyWriter::write_key`]): the A-label form of an `iri`
    /// key's host, then a path after percent-encoding normalization, before dot removal.
    path: String,
    /// The scheme-rung key, before protocol rules or the SURT transform.
    key: String,
    /// The key after the protocol rules.
    after: String,
    /// The kinds of the protocol rules that fired.
    fired: Vec<RuleKind>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// A configured normalizer: the ladder of RFC 3987 §5.3 up to one rung, writing one form.
///
/// Every method takes a raw record, as a line of input holds it: unless
/// [`Options::strict`] is set, it is trimmed and the lenient repairs are made first
/// ([`crate::iri::repair`]), exactly as the command line does, so the library, the command line
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
        Ok(Normalizer {
            fast: FastPath::new(&options),
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
        self.options.rewrites_after_scheme_rung()
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
        if !self.rewrites() && self.fast.accepts(raw) {
            return Ok(Cow::Borrowed(raw));
        }
        let mut out = String::new();
        // The fast path said no about `raw`: not asked again unless the repairs change it
        // (or it has not been asked, because its answer is not the key).
        let repair = self.repair();
        self.prepared(
            raw.as_bytes(),
            Some(raw),
            repair,
            &mut out,
            &mut Notes::default(),
            self.rewrites(),
        )?;
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

    /// The record entry point that every other one goes through, the command line's and the
    /// Python package's included: trims and repairs the raw record unless the options are
    /// strict (adding the repairs to `notes`), then runs the ladder, appending the key to
    /// `out` and the warnings to `notes`. On error `out` is left as it was, and the error's
    /// column points into `raw`.
    ///
    /// A record that is already its own key is recognized in one pass and copied as it is
    /// (the fast path, SPEC §8); the others go through the whole ladder. Both give the same
    /// keys, errors and warnings.
    pub fn normalize_record_into(
        &self,
        raw: &str,
        out: &mut String,
        notes: &mut Notes,
    ) -> Result<(), Error> {
        if !self.rewrites() && self.fast.accepts(raw) {
            out.push_str(raw);
            return Ok(());
        }
        let repair = self.repair();
        self.prepared(
            raw.as_bytes(),
            Some(raw),
            repair,
            out,
            notes,
            self.rewrites(),
        )
    }

    /// Whether this normalizer repairs records ([`Options::strict`]).
    fn repair(&self) -> Repair {
        if self.options.strict {
            Repair::Strict
        } else {
            Repair::Lenient
        }
    }

    /// [`Normalizer::normalize_record_into`] for a record that may not be valid UTF-8 (its
    /// stray octets are a repair, or an error when strict), under the engine's `repair`,
    /// without asking the fast path again about a raw record given as text: the engine has
    /// asked it already (through [`Normalizer::canonical_line`]). In the SURT form (whose
    /// keys are never their records) the engine asks it only through
    /// [`Normalizer::own_key_lines`], in key output: there the fast path is asked here, once,
    /// unless `refused_by_key_lines` says that it refused the record already. (Under
    /// protocol rules, a record the engine found canonical but changed by a rule takes the
    /// full ladder rather than a second scan of every record the engine refused.)
    #[cfg(feature = "stream")]
    #[inline]
    pub(crate) fn normalize_raw_into(
        &self,
        raw: &[u8],
        text: Option<&str>,
        repair: Repair,
        out: &mut String,
        notes: &mut Notes,
        refused_by_key_lines: bool,
    ) -> Result<(), Error> {
        let ask_fast = text.is_none() || (!refused_by_key_lines && self.options.writes_surt());
        self.prepared(raw, text, repair, out, notes, ask_fast)
    }

    /// Repairs `raw` (unless strict), then normalizes it: through the fast path when the
    /// repairs changed it or `ask_fast` says the raw record was not asked about yet.
    fn prepared(
        &self,
        raw: &[u8],
        text: Option<&str>,
        repair: Repair,
        out: &mut String,
        notes: &mut Notes,
        ask_fast: bool,
    ) -> Result<(), Error> {
        SCRATCH.with(|s| {
            let mut fresh;
            let mut borrowed;
            let scratch: &mut Scratch = match s.try_borrow_mut() {
                Ok(b) => {
                    borrowed = b;
                    &mut borrowed
                }
                // Re-entered on this thread (not done by the library itself): fresh buffers.
                Err(_) => {
                    fresh = Scratch::default();
                    &mut fresh
                }
            };
            // A raw record the fast path takes needs no repair: the repairs would leave it
            // as it is. Where the engine asked it already, it may have refused the record
            // only for its empty path, which is written `/` here (where no rewrite follows:
            // under one, the engine's runs of keys take such records).
            let taken = match (ask_fast, text) {
                (true, Some(t)) => self.fast.shape(t).map(|shape| (t, shape)),
                (false, Some(t)) if !self.rewrites() => {
                    self.fast.shape_adding_slash(t).map(|shape| (t, shape))
                }
                _ => None,
            };
            let r = match (taken, repair, text) {
                (Some((t, shape)), _, _) => {
                    self.ladder(t, Some(shape), raw, repair, out, notes, scratch)
                }
                (None, Repair::Lenient, Some(t)) => {
                    self.parse_then_repair(raw, t, out, notes, scratch)
                }
                (None, _, _) => self.repair_then_parse(raw, text, repair, out, notes, scratch),
            };
            r.map_err(|mut error| {
                // The ladder saw the repaired record; point into the raw one.
                error.column = repair.raw_column(raw, error.column);
                error::with_nul_first(raw, error)
            })
        })
    }

    /// The lenient path of a record that is valid UTF-8 (`raw` as text), which the fast path
    /// has refused: the ladder runs on the trimmed record first, and the repairs (a scan of
    /// every byte) only when it fails, since a record the parser accepts needs none
    /// ([`repair::needs_no_repair`]). A record the repairs leave as it is keeps its error.
    fn parse_then_repair(
        &self,
        raw: &[u8],
        text: &str,
        out: &mut String,
        notes: &mut Notes,
        scratch: &mut Scratch,
    ) -> Result<(), Error> {
        let body = repair::trim_lenient(text);
        if body.is_empty() {
            return self.repair_then_parse(raw, Some(text), Repair::Lenient, out, notes, scratch);
        }
        let trimmed = body.len() != text.len();
        // The fast path was asked about the raw text already, not about the trimmed one.
        let own = if trimmed { self.fast.shape(body) } else { None };
        let error = match self.ladder(body, own, raw, Repair::Lenient, out, notes, scratch) {
            Ok(()) => {
                debug_assert!(repair::needs_no_repair(body), "accepted {body:?}");
                if trimmed {
                    notes.repairs.add(RepairKind::Trim);
                }
                return Ok(());
            }
            Err(error) => error,
        };
        let mut repaired = std::mem::take(&mut scratch.repaired);
        let r = repair::prepare_str(text, Repair::Lenient, &mut repaired, &mut notes.repairs)
            .and_then(|record| {
                if same_text(record, body) {
                    return Err(error);
                }
                let own = self.fast.shape(record);
                self.ladder(record, own, raw, Repair::Lenient, out, notes, scratch)
            });
        scratch.repaired = repaired;
        r
    }

    /// Repairs `raw` (given as `text` too when it is valid UTF-8) under `repair`, then runs
    /// the ladder on the result, asking the fast path about it unless it is `text` itself.
    fn repair_then_parse(
        &self,
        raw: &[u8],
        text: Option<&str>,
        repair: Repair,
        out: &mut String,
        notes: &mut Notes,
        scratch: &mut Scratch,
    ) -> Result<(), Error> {
        let mut repaired = std::mem::take(&mut scratch.repaired);
        let r = repair::prepare_text(raw, text, repair, &mut repaired, &mut notes.repairs)
            .and_then(|record| {
                let same = text.is_some_and(|t| same_text(t, record));
                let own = if same { None } else { self.fast.shape(record) };
                self.ladder(record, own, raw, repair, out, notes, scratch)
            });
        scratch.repaired = repaired;
        r
    }

    /// The key of one prepared record, `own` when the fast path found it to be its own key
    /// at the scheme rung: appended to `out`, with its warnings in `notes`, their columns in
    /// `raw` (which `repair` made `record` from). On error `out` and `notes` are as they were.
    #[allow(clippy::too_many_arguments)]
    fn ladder(
        &self,
        record: &str,
        own: Option<Shape>,
        raw: &[u8],
        repair: Repair,
        out: &mut String,
        notes: &mut Notes,
        scratch: &mut Scratch,
    ) -> Result<(), Error> {
        if let (Some(shape), false) = (own, self.rewrites()) {
            push_adding_slash(record, shape, out);
            return Ok(());
        }
        let mark = (out.len(), notes.warnings.len());
        let mut trace = Tracer {
            steps: None,
            warnings: &mut notes.warnings,
        };
        let r = match own {
            Some(shape) => self.write_own_key(record, shape, out, scratch, &mut trace),
            None => self.run(record, out, scratch, &mut trace),
        };
        if r.is_err() {
            out.truncate(mark.0);
            notes.warnings.truncate(mark.1);
        } else {
            for w in &mut notes.warnings[mark.1..] {
                w.column = repair.raw_column(raw, w.column);
            }
        }
        r
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

    /// The length of the raw record at the start of `rest` (text up to a line feed, which
    /// more lines may follow) when it already is its own key and the fast path sees it: one
    /// pass, no parsing (SPEC §8); under protocol rules, a record that the rules' sieve shows
    /// no rule changes; in the SURT form, never. `None` says nothing: the record may still be
    /// canonical.
    #[inline]
    pub fn canonical_line(&self, rest: &str) -> Option<usize> {
        if !self.rewrites() {
            return self.fast.accepts_line(rest);
        }
        if self.options.form == Form::Surt {
            // A SURT is never the record itself.
            return None;
        }
        // Its own key at the scheme rung: still its own key if no protocol rule changes it.
        let shape = self.fast.shape_of_line(rest)?;
        let record = &rest[..shape.len];
        self.sieve_passes(record, shape).then_some(shape.len)
    }

    /// What a run of keys asks once rather than for each line.
    #[cfg(feature = "stream")]
    fn run_form(&self) -> RunForm<'_> {
        RunForm {
            rules: self.rules_in_force(),
            surt: self.options.writes_surt(),
            surt_scheme: self.options.surt_scheme,
        }
    }

    /// The protocol rules, when they run (at the protocol rung).
    fn rules_in_force(&self) -> Option<&Rules> {
        match (&self.options.rules, self.options.level) {
            (Some(rules), Level::Protocol) => Some(rules),
            _ => None,
        }
    }

    /// The longest run of whole lines at the start of `rest` that [`Normalizer::canonical_line`]
    /// takes, each at most `max_line` bytes and ended by a line feed alone: its length in
    /// bytes, line feeds included, and its number of lines. (Under protocol rules, the engine
    /// writes the keys of the lines the rules' sieve does not let through in runs of its own,
    /// from the rules' rounds on each record.)
    pub fn canonical_lines(&self, rest: &str, max_line: usize) -> (usize, u64) {
        self.canonical_lines_each::<false>(rest, max_line, |_| true)
    }

    /// [`Normalizer::canonical_lines`], and what is known of the line the run ends at:
    /// `Some(true)` where the fast path takes it but it is not its own key only for the `/`
    /// of its empty path ([`Shape::adds_slash`]) or, under protocol rules, for the rules'
    /// sieve, both of which [`Normalizer::own_key_lines`] writes; `Some(false)` where the
    /// fast path refuses it (or it is too long, or ends the text without a line feed, or in
    /// CRLF), which `own_key_lines` then refuses too (but for CRLF). In the SURT form no
    /// line passes through, and nothing is known (`None`).
    #[cfg(feature = "stream")]
    pub(crate) fn canonical_lines_then_keys(
        &self,
        rest: &str,
        max_line: usize,
    ) -> (usize, u64, Option<bool>) {
        if self.options.form == Form::Surt {
            return (0, 0, None);
        }
        // Set for each line handed out; stays set only for the line the run stops at.
        let mut keyed = false;
        let (n, lines) = if self.rewrites() {
            let rules = self.rules_in_force();
            self.fast.take_lines_ending::<false>(
                rest,
                max_line,
                #[inline(always)]
                |record, shape, _| {
                    keyed = !(shape.is_own_key() && rules_leave(rules, record, shape));
                    !keyed
                },
            )
        } else {
            self.fast
                .take_lines_ending::<false>(rest, max_line, |_, shape, _| {
                    keyed = shape.adds_slash;
                    !keyed
                })
        };
        (n, lines, Some(keyed))
    }

    /// [`Normalizer::canonical_lines`], with each line of the run (without its line
    /// terminator) handed to `each` as it is found, until `each` says `false`; with `CRLF`,
    /// lines that end in CRLF belong to the run too (the engine's rows, which are written
    /// line by line, [`crate::stream::Operation::pass_through_each_line`]).
    #[inline]
    pub(crate) fn canonical_lines_each<const CRLF: bool>(
        &self,
        rest: &str,
        max_line: usize,
        mut each: impl FnMut(&str) -> bool,
    ) -> (usize, u64) {
        let fast = &self.fast;
        if !self.rewrites() {
            return fast.take_lines_ending::<CRLF>(rest, max_line, |line, shape, _| {
                shape.is_own_key() && each(line)
            });
        }
        if self.options.form == Form::Surt {
            return (0, 0);
        }
        let rules = self.rules_in_force();
        fast.take_lines_ending::<CRLF>(
            rest,
            max_line,
            #[inline(always)]
            |record, shape, _| {
                shape.is_own_key() && rules_leave(rules, record, shape) && each(record)
            },
        )
    }

    /// Whether the protocol rules, if any, leave `record`, its own key at the scheme rung
    /// (`shape` from the fast path), as it is, told at a glance by their sieve. `false` also
    /// means "not known": the rules' rounds tell (the engine's runs of keys,
    /// [`Normalizer::own_key_lines`], and [`Normalizer::write_own_key`] run them).
    #[inline]
    fn sieve_passes(&self, record: &str, shape: Shape) -> bool {
        rules_leave(self.rules_in_force(), record, shape)
    }

    /// The keys of the run of lines at the start of `rest` that the fast path takes and
    /// whose keys are written without a parse of the record: each line that is its own key
    /// at the scheme rung, at most `max_line` bytes long and ended by a line feed (alone or
    /// after a carriage return), with, in the SURT form, its SURT; under protocol rules, in
    /// the other forms, the lines that the rules' sieve does not let through, with the
    /// rules' rounds run on the record; and, where a line's key is the line itself, the
    /// lines that end in CRLF (one that ends in a line feed alone is copied through instead,
    /// [`Normalizer::canonical_lines`]). Appends each key and a line feed to `out`; returns
    /// the bytes of `rest` taken, the lines, and how many keys differ from their line. For
    /// the engine ([`crate::stream::Operation::key_lines`]).
    #[cfg(feature = "stream")]
    pub(crate) fn own_key_lines(
        &self,
        rest: &str,
        max_line: usize,
        out: &mut Vec<u8>,
    ) -> (usize, u64, u64) {
        let mut changed = 0;
        let run = self.run_form();
        let (at, lines) = match (run.surt, run.plain_surt()) {
            (true, true) => self.surt_key_lines::<true>(rest, max_line, run, out, &mut changed),
            (true, false) => self.surt_key_lines::<false>(rest, max_line, run, out, &mut changed),
            (false, _) => {
                self.fast
                    .take_lines_ending::<true>(rest, max_line, |record, shape, _| {
                        self.own_key_line(record, shape, run, out, &mut changed)
                    })
            }
        };
        (at, lines, changed)
    }

    /// [`Normalizer::own_key_lines`] in the SURT form. Most lines have an LDH host (and pass
    /// the protocol rules' sieve, where rules run): their SURT is written by a call from the
    /// scan's loop with the record's offsets, and the other lines are scanned again out of
    /// that loop, so that it keeps no line's shape in memory. `PLAIN`: the run has neither
    /// rules nor schemes in its SURTs ([`RunForm::plain_surt`]), so its loop asks about
    /// neither.
    #[cfg(feature = "stream")]
    #[inline(always)]
    fn surt_key_lines<const PLAIN: bool>(
        &self,
        rest: &str,
        max_line: usize,
        run: RunForm<'_>,
        out: &mut Vec<u8>,
        changed: &mut u64,
    ) -> (usize, u64) {
        self.fast.take_lines_ending::<true>(
            rest,
            max_line,
            #[inline(always)]
            |record, shape, line| match ldh_surt_line_authority::<PLAIN>(record, shape, run) {
                Some(authority) => {
                    write_ldh_surt_line::<PLAIN>(line, shape, authority, run, out);
                    // Such a SURT always differs from its record.
                    *changed += 1;
                    true
                }
                None => self.rescanned(record, |shape| {
                    self.own_key_line(record, shape, run, out, changed)
                }),
            },
        )
    }

    /// A line of a run of SURTs that is not for [`surt::write_ldh_surt_line`]: scanned again
    /// for its shape, which `write` then writes the key from, so that the run's loop keeps
    /// no line's shape in memory for it. Out of the loop: few lines come here (under the
    /// crawler profile, the lines with a `?`, `;` or `#` that its sieve cannot judge at a
    /// glance: at most 11 % of the corpora's).
    #[cfg(feature = "stream")]
    #[cold]
    #[inline(never)]
    fn rescanned(&self, record: &str, write: impl FnOnce(Shape) -> bool) -> bool {
        self.fast.rescan(record).is_some_and(write)
    }

    /// One line of [`Normalizer::own_key_lines`].
    #[cfg(feature = "stream")]
    #[inline(always)]
    fn own_key_line(
        &self,
        record: &str,
        shape: Shape,
        run: RunForm<'_>,
        out: &mut Vec<u8>,
        changed: &mut u64,
    ) -> bool {
        let start = out.len();
        match self.write_run_key(record, shape, run, out) {
            RunKey::Refused => return false,
            // Copied through instead.
            RunKey::Record if !shape.crlf => return false,
            // Its own key, without the carriage return: not a line to copy through.
            RunKey::Record => out.extend_from_slice(record.as_bytes()),
            RunKey::Written => {}
        }
        *changed += u64::from(&out[start..] != record.as_bytes());
        out.push(b'\n');
        true
    }

    /// [`Normalizer::own_key_lines`] for rows (and for keys the engine tracks): the same
    /// run, with the lines that are their own key in it too, whatever ends them; each line
    /// (without its line end) is handed to `each` with its key, in order, until `each` says
    /// `false`. A key written here goes into `key` (emptied first); a line that is its own
    /// key is handed out as its own key, the same slice. Returns the bytes of `rest` taken
    /// and the lines. For the engine ([`crate::stream::Operation::key_each_line`]).
    #[cfg(feature = "stream")]
    pub(crate) fn own_keys_each(
        &self,
        rest: &str,
        max_line: usize,
        key: &mut Vec<u8>,
        mut each: impl FnMut(&str, &str) -> bool,
    ) -> (usize, u64) {
        let run = self.run_form();
        match (run.surt, run.plain_surt()) {
            (true, true) => return self.surt_keys_each::<true>(rest, max_line, run, key, each),
            (true, false) => return self.surt_keys_each::<false>(rest, max_line, run, key, each),
            (false, _) => {}
        }
        self.fast
            .take_lines_ending::<true>(rest, max_line, |record, shape, _| {
                self.own_key_each(record, shape, run, key, &mut each)
            })
    }

    /// [`Normalizer::own_keys_each`] in the SURT form: as [`Normalizer::surt_key_lines`],
    /// most SURTs from the scan's loop, with the record's offsets.
    #[cfg(feature = "stream")]
    #[inline(always)]
    fn surt_keys_each<const PLAIN: bool>(
        &self,
        rest: &str,
        max_line: usize,
        run: RunForm<'_>,
        key: &mut Vec<u8>,
        mut each: impl FnMut(&str, &str) -> bool,
    ) -> (usize, u64) {
        self.fast.take_lines_ending::<true>(
            rest,
            max_line,
            #[inline(always)]
            |record, shape, line| match ldh_surt_line_authority::<PLAIN>(record, shape, run) {
                Some(authority) => {
                    key.clear();
                    write_ldh_surt_line::<PLAIN>(line, shape, authority, run, key);
                    // A row holds the key without the line feed.
                    key.pop();
                    key_text(key).is_some_and(|k| each(record, k))
                }
                None => self.rescanned(record, |shape| {
                    self.own_key_each(record, shape, run, key, &mut each)
                }),
            },
        )
    }

    /// One line of [`Normalizer::own_keys_each`].
    #[cfg(feature = "stream")]
    #[inline(always)]
    fn own_key_each(
        &self,
        record: &str,
        shape: Shape,
        run: RunForm<'_>,
        key: &mut Vec<u8>,
        each: &mut impl FnMut(&str, &str) -> bool,
    ) -> bool {
        key.clear();
        match self.write_run_key(record, shape, run, key) {
            RunKey::Refused => false,
            RunKey::Record => each(record, record),
            RunKey::Written => key_text(key).is_some_and(|k| each(record, k)),
        }
    }

    /// The key of `record`, which the fast path took (`shape`), where a run writes it without
    /// a parse: under protocol rules, a record the rules' sieve does not let through gets the
    /// rules' rounds; in the SURT form, its SURT (`run` says which, asked once per run);
    /// otherwise the record is its own key, or the record with a `/` for its empty path
    /// ([`Shape::adds_slash`]).
    #[cfg(feature = "stream")]
    #[inline(always)]
    fn write_run_key(
        &self,
        record: &str,
        shape: Shape,
        run: RunForm<'_>,
        out: &mut Vec<u8>,
    ) -> RunKey {
        // The sieve looks at the path only for a `;`: the `/` that an empty path becomes
        // changes nothing it looks at.
        if let Some(rules) = run.rules {
            if !rules_pass(rules, record, shape) {
                return match self.write_rules_key(record, shape, out) {
                    true => RunKey::Written,
                    false => RunKey::Refused,
                };
            }
        }
        if run.surt {
            return match self.write_own_surt(record, shape, out) {
                true => RunKey::Written,
                false => RunKey::Refused,
            };
        }
        if shape.adds_slash {
            for piece in key_pieces(record, shape) {
                out.extend_from_slice(piece.as_bytes());
            }
            return RunKey::Written;
        }
        RunKey::Record
    }

    /// Writes the key of `record`, which the fast path took (`shape`: its own key at the
    /// scheme rung, or that with a `/` for its empty path), after the protocol rules' rounds
    /// ([`apply_rules`]), in the form of the key, as the full ladder writes it. Returns
    /// `false`, with `out` as it was, should a round warn (the engine then hands the record
    /// to the full ladder, which reports the warning) or the thread's scratch buffers be in
    /// use.
    #[cfg(feature = "stream")]
    fn write_rules_key(&self, record: &str, shape: Shape, out: &mut Vec<u8>) -> bool {
        let Some(rules) = self.rules_in_force() else {
            return false;
        };
        SCRATCH.with(|s| {
            let Ok(mut s) = s.try_borrow_mut() else {
                return false;
            };
            let b = &mut s.key;
            b.key.clear();
            push_adding_slash(record, shape, &mut b.key);
            let mut warnings = Vec::new();
            let mut trace = Tracer {
                steps: None,
                warnings: &mut warnings,
            };
            let layout = apply_rules(&KeyWriter::new(&self.options), rules, b, None, &mut trace);
            if !trace.warnings.is_empty() {
                return false;
            }
            self.write_form_bytes(&b.key, layout, out);
            true
        })
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
        let repair = self.repair();
        let text = std::str::from_utf8(raw).ok();
        let mut steps = Vec::new();
        let mut warnings = Vec::new();
        let mut key = String::new();
        let mut repaired = String::new();
        let mut repairs = Repairs::default();
        let record = repair::prepare_text(raw, text, repair, &mut repaired, &mut repairs)
            .map_err(|error| error::with_nul_first(raw, error))?;
        if record.as_bytes() != raw {
            let shown = String::from_utf8_lossy(raw);
            record_step(&mut steps, "record", "lenient-repairs", &shown, record);
        }
        let mut trace = Tracer {
            steps: Some(&mut steps),
            warnings: &mut warnings,
        };
        self.run(record, &mut key, &mut Scratch::default(), &mut trace)
            .map_err(|mut error| {
                error.column = repair.raw_column(raw, error.column);
                error::with_nul_first(raw, error)
            })?;
        for w in &mut warnings {
            w.column = repair.raw_column(raw, w.column);
        }
        Ok(Explanation {
            key,
            steps,
            warnings,
        })
    }

    /// The ladder over one prepared record: `out` gets the key.
    fn run(
        &self,
        input: &str,
        out: &mut String,
        scratch: &mut Scratch,
        trace: &mut Tracer<'_>,
    ) -> Result<(), Error> {
        let o = &self.options;
        let view = self.view(input, &mut scratch.texts, trace)?;
        if o.level == Level::String {
            write_string_rung(&view, o.drop_fragment, out, trace);
            return Ok(());
        }
        let writer = KeyWriter::new(o);
        let b = &mut scratch.key;
        if !self.rewrites() {
            writer.write_key(&view, out, &mut b.path, trace);
            return Ok(());
        }
        b.key.clear();
        let layout = writer.write_laid_out_key(&view, &mut b.key, &mut b.path, trace);
        self.after_scheme_rung(&writer, b, layout, out, trace);
        Ok(())
    }

    /// The protocol rules and the SURT form over the scheme-rung key in `b.key`, laid out as
    /// `layout` says where its writer returned that; `out` gets the key.
    fn after_scheme_rung(
        &self,
        writer: &KeyWriter<'_>,
        b: &mut KeyBuffers,
        mut layout: Option<Layout>,
        out: &mut String,
        trace: &mut Tracer<'_>,
    ) {
        if let Some(rules) = self.rules_in_force() {
            let view = IriRef::split_written(&b.key, layout);
            if !view.is_ok_and(|v| rules.leave_at_a_glance(&Glance::of_view(&v))) {
                layout = apply_rules(writer, rules, b, layout, trace);
            }
        }
        self.write_form(&b.key, layout, out, trace);
    }

    /// Writes `key`, the key before the form (laid out as `layout` says, where known), in
    /// the form of the key: itself, or its SURT.
    fn write_form(
        &self,
        key: &str,
        layout: Option<Layout>,
        out: &mut String,
        trace: &mut Tracer<'_>,
    ) {
        if self.options.form != Form::Surt {
            out.push_str(key);
            return;
        }
        let start = out.len();
        surt::push_written(out, |bytes| self.write_form_bytes(key, layout, bytes));
        note(trace, "record", "surt", key, &out[start..]);
    }

    /// [`Normalizer::write_form`] into bytes, without a trace.
    fn write_form_bytes(&self, key: &str, layout: Option<Layout>, out: &mut Vec<u8>) {
        if self.options.form == Form::Surt {
            surt::write_surt_of_key(key, layout, self.options.surt_scheme, out);
        } else {
            out.extend_from_slice(key.as_bytes());
        }
    }

    /// The key of `record`, which the fast path found to be its own key at the scheme rung
    /// (`shape` says where its components lie): the record itself, unless the protocol
    /// rules or the SURT form rewrite it. A record that some rule changes takes the rules'
    /// rounds as any other (see [`apply_rules`]); the others need no parse.
    fn write_own_key(
        &self,
        record: &str,
        shape: Shape,
        out: &mut String,
        scratch: &mut Scratch,
        trace: &mut Tracer<'_>,
    ) -> Result<(), Error> {
        // A record the sieve does not let through takes the rules' rounds.
        if let Some(rules) = self.rules_in_force() {
            let b = &mut scratch.key;
            if !rules_pass(rules, record, shape) {
                b.key.clear();
                b.key.push_str(record);
                let layout = apply_rules(&KeyWriter::new(&self.options), rules, b, None, trace);
                self.write_form(&b.key, layout, out, trace);
                return Ok(());
            }
        }
        if self.options.form != Form::Surt {
            out.push_str(record);
            return Ok(());
        }
        let start = out.len();
        surt::push_written(out, |bytes| {
            // A record that is its own key always has its SURT written.
            let written = self.write_own_surt(record, shape, bytes);
            debug_assert!(written && shape.is_own_key());
        });
        note(trace, "record", "surt", record, &out[start..]);
        Ok(())
    }

    /// Writes the SURT of `record`, which the fast path took (`shape`), its key before the
    /// form: most records have a lowercase LDH host, whose SURT [`surt::write_ldh_surt`]
    /// writes inline, with the `/` of an empty path ([`Shape::adds_slash`]). Returns `false`,
    /// having written nothing, for a record that adds a `/` and has another host (the full
    /// ladder writes those).
    #[inline(always)]
    fn write_own_surt(&self, record: &str, shape: Shape, out: &mut Vec<u8>) -> bool {
        let b = record.as_bytes();
        let ldh = ldh_surt_authority(record, shape).filter(|_| !self.options.surt_scheme);
        if let Some((start, end)) = ldh {
            let host = surt::LdhHost {
                text: &b[start..],
                len: shape.host_end - start,
                dots: shape.host_dots,
            };
            let port = b.get(shape.host_end + 1..end).unwrap_or_default();
            let rest = surt::Rest::new(shape.adds_slash, &b[shape.path..shape.len]);
            surt::write_ldh_surt(host, port, rest, out);
            return true;
        }
        if shape.adds_slash {
            return false;
        }
        self.write_own_parts_surt(record, shape, out);
        true
    }

    /// [`Normalizer::write_own_surt`] for any record, from its pieces.
    fn write_own_parts_surt(&self, record: &str, shape: Shape, out: &mut Vec<u8>) {
        let options = surt::SurtOptions {
            include_scheme: self.options.surt_scheme,
            ..surt::SurtOptions::default()
        };
        match surt_parts(record.as_bytes(), shape) {
            Some(parts) => surt::write_surt_of_parts(&parts, options, out),
            None => surt::write_surt_bytes(record, options, out),
        }
    }

    /// The parsed record the rungs read: the record itself (validated as given, so columns
    /// refer to it), after NFC when asked, resolved against the base when it is relative.
    fn view<'s>(
        &self,
        input: &'s str,
        texts: &'s mut Texts,
        trace: &mut Tracer<'_>,
    ) -> Result<IriRef<'s>, Error> {
        let o = &self.options;
        let Texts { nfc, resolved } = texts;
        let mut view = IriRef::parse(input)?;
        // RFC 3987 §4.2 judges the record as written (a SHOULD: warnings only).
        if self.bidi_warnings {
            bidi::warnings(&view, trace.warnings);
        }
        if o.applies_nfc() && percent::has_non_ascii(input) {
            // NFC applies to the characters the record stands for, so percent-encoded UTF-8
            // is decoded first (RFC 3987 §3.2) and normalized with the raw text; otherwise
            // an IRI-form key, which shows those characters raw, would not be stable.
            let decoded = crate::iri::convert::iri_of(&view);
            if !decoded.is_ascii() {
                nfc.clear();
                nfc_between_delimiters(&decoded, nfc);
                note(trace, "record", "nfc", input, nfc);
                // A record that neither step changed is parsed already.
                if *nfc != *input {
                    view = IriRef::parse(nfc)?;
                }
            }
        }
        if view.is_absolute() {
            return Ok(view);
        }
        if let Some(base) = &o.base {
            let base_view = IriRef::parse(base)?;
            resolved.clear();
            resolve::resolve_components(
                &base_view.components(),
                &view.components(),
                resolve::Resolution::Strict,
                resolved,
            );
            note(trace, "record", "resolve", view.as_str(), resolved);
            return IriRef::parse(resolved);
        }
        if o.absolute {
            return Err(Error::new(
                ErrorKind::Relative,
                1,
                "relative reference (no scheme) and --absolute was given",
            ));
        }
        Ok(view)
    }
}

/// Whether `a` and `b` are the same slice of one text (not merely equal strings).
fn same_text(a: &str, b: &str) -> bool {
    a.as_ptr() == b.as_ptr() && a.len() == b.len()
}

/// Whether the protocol rules in force (`rules`, asked once by the caller, not per record)
/// leave `record`, which the fast path took (`shape`), as it is: `true` without rules.
/// `false` also means "not known".
#[inline(always)]
fn rules_leave(rules: Option<&Rules>, record: &str, shape: Shape) -> bool {
    match rules {
        Some(rules) => rules_pass(rules, record, shape),
        None => true,
    }
}

/// Whether `rules` leave `record`, which the fast path took (`shape`), as it is, told at a
/// glance: by the flags of its shape where they tell (most records have no `?`, `;` or
/// fragment), else by the rules' sieve looking at its pieces. `false` also means "not
/// known".
#[inline(always)]
fn rules_pass(rules: &Rules, record: &str, shape: Shape) -> bool {
    // The byte before `host_end` is the host's last; without an authority, or with an
    // empty host, it is the scheme's `:` or a `/` (or there is none), never a `.`.
    let dot = record.as_bytes()[..shape.host_end].ends_with(b".");
    rules.leave_unmarked(shape.marks, shape.fragment, dot)
        || rules.leave_at_a_glance(&glance(record, shape))
}

/// What the protocol rules' sieve needs to see of a record the fast path took. Inline: it
/// runs for every such record, and only cuts it where `shape` says.
#[inline(always)]
fn glance(record: &str, shape: Shape) -> Glance<'_> {
    let b = record.as_bytes();
    Glance {
        scheme: shape.after_scheme.checked_sub(1).map(|end| &b[..end]),
        host: shape.authority.map(|(start, _)| &b[start..shape.host_end]),
        rest: &b[shape.path..shape.len],
        fragment: shape.fragment,
        marks: shape.marks,
    }
}

/// The key of `record` at the scheme rung, which the fast path took (`shape`), as the
/// pieces to write in order: the record, with the `/` of its empty path put in where
/// [`Shape::adds_slash`] says so.
#[inline]
fn key_pieces(record: &str, shape: Shape) -> [&str; 3] {
    if shape.adds_slash {
        [&record[..shape.path], "/", &record[shape.path..]]
    } else {
        [record, "", ""]
    }
}

/// Appends the key of `record` at the scheme rung, which the fast path took (`shape`).
#[inline]
fn push_adding_slash(record: &str, shape: Shape, out: &mut String) {
    for piece in key_pieces(record, shape) {
        out.push_str(piece);
    }
}

/// The pieces of the SURT of a record the fast path took, if it has an authority.
#[inline]
fn surt_parts(record: &[u8], shape: Shape) -> Option<surt::SurtParts<'_>> {
    let (start, end) = shape.authority?;
    let host = &record[start..shape.host_end];
    let ends_in_digit = host.last().is_some_and(u8::is_ascii_digit);
    Some(surt::SurtParts {
        scheme: shape.after_scheme.checked_sub(1).map(|end| &record[..end]),
        host,
        // An IPv4 address ends in a digit: most hosts are told apart by their last byte.
        host_kind: if ends_in_digit && host::is_ipv4address_bytes(host) {
            HostKind::Ipv4
        } else {
            HostKind::RegName
        },
        ldh_dots: shape.ldh_host.then_some(shape.host_dots),
        port: record.get(shape.host_end + 1..end),
        rest: &record[shape.path..shape.len],
    })
}

/// The string rung (RFC 3987 §5.3.1): the record itself, without its fragment when asked.
fn write_string_rung(
    view: &IriRef<'_>,
    drop_fragment: bool,
    out: &mut String,
    trace: &mut Tracer<'_>,
) {
    let text = view.as_str();
    let end = match (drop_fragment, view.fragment()) {
        (true, Some(f)) => text.len() - f.len() - 1,
        _ => text.len(),
    };
    out.push_str(&text[..end]);
    note(trace, "fragment", "drop-fragment", text, &text[..end]);
}

/// The protocol rung (RFC 3987 §5.3.4) over the scheme-rung key in `b.key` (laid out as
/// `layout` says, where known). A host or path rule may leave what the scheme rung rewrites
/// (`/.;jsessionid=1/` becomes the dot segment `/./`; `bücher..` passes IDNA once its dots
/// are gone): the scheme rung and the rules run again until the key is its own key (at most
/// 8 rounds). Returns the layout of the key it leaves in `b.key`, where known.
fn apply_rules(
    writer: &KeyWriter<'_>,
    rules: &Rules,
    b: &mut KeyBuffers,
    mut layout: Option<Layout>,
    trace: &mut Tracer<'_>,
) -> Option<Layout> {
    for _ in 0..8 {
        b.fired.clear();
        b.after.clear();
        match IriRef::split_written(&b.key, layout) {
            Ok(view) => rules.apply_view(&view, &mut b.after, &mut b.fired),
            Err(_) => rules.apply(&b.key, &mut b.after, &mut b.fired),
        }
        for rule in &b.fired {
            note(trace, "protocol", rule.name(), &b.key, &b.after);
        }
        // What the rules wrote is not laid out, unless it is the key as it was.
        if b.after != b.key {
            layout = None;
        }
        std::mem::swap(&mut b.key, &mut b.after);
        if b.fired.iter().all(|k| k.touches_only_query_or_fragment()) {
            break;
        }
        let Ok(again) = IriRef::parse(&b.key) else {
            break;
        };
        b.after.clear();
        // Either way `b.key` ends up with the text the writer wrote.
        layout = writer.write_laid_out_key(&again, &mut b.after, &mut b.path, trace);
        if b.after == b.key {
            break;
        }
        std::mem::swap(&mut b.key, &mut b.after);
    }
    layout
}

/// Whether `a` and `b` are equivalent at `level`: a `bool`, true when their keys (in the URI
/// form, default options otherwise) are the same. For the lowest rung at which two records
/// are equivalent (what `irinorm compare` and Python's `irinorm.lowest_common_rung`, also
/// named `irinorm.equivalent`, return), see [`lowest_common_rung`](crate::lowest_common_rung).
pub fn equivalent(a: &str, b: &str, level: Level) -> Result<bool, Error> {
    let options = Options::default().with_level(level);
    let n = Normalizer {
        fast: FastPath::new(&options),
        options,
        bidi_warnings: false,
    };
    Ok(n.normalize(a)? == n.normalize(b)?)
}

/// The authority of `record` (its start and end), where the fast path took it (`shape`) with
/// a lowercase LDH host that is not an IPv4 address: a record whose SURT
/// [`surt::write_ldh_surt`] writes (in runs of lines, [`surt::write_ldh_surt_line`]).
#[inline(always)]
fn ldh_surt_authority(record: &str, shape: Shape) -> Option<(usize, usize)> {
    let authority = shape.authority.filter(|_| shape.ldh_host)?;
    // An IPv4 address ends in a digit: most hosts are told apart by their last byte.
    let ipv4 = record.as_bytes()[..shape.host_end]
        .last()
        .is_some_and(u8::is_ascii_digit);
    (!ipv4).then_some(authority)
}

/// [`ldh_surt_authority`] for a line of a run of SURTs (`run`), if the protocol rules in
/// force (if any) leave it as it is, told at a glance ([`rules_pass`]): a line for
/// [`write_ldh_surt_line`]. `PLAIN`: the run has no rules ([`RunForm::plain_surt`]).
#[cfg(feature = "stream")]
#[inline(always)]
fn ldh_surt_line_authority<const PLAIN: bool>(
    record: &str,
    shape: Shape,
    run: RunForm<'_>,
) -> Option<(usize, usize)> {
    let authority = ldh_surt_authority(record, shape)?;
    if PLAIN {
        return Some(authority);
    }
    let passes = match run.rules {
        Some(rules) => rules_pass(rules, record, shape),
        None => true,
    };
    passes.then_some(authority)
}

/// [`surt::write_ldh_surt_line`] of the record at the start of `line` (the text of the run
/// from there on), whose authority [`ldh_surt_line_authority`] gave; with its scheme
/// ([`surt::write_ldh_surt_line_with_scheme`]) where the run's SURTs have one (never where
/// `PLAIN`: see [`RunForm::plain_surt`]).
#[cfg(feature = "stream")]
#[inline(always)]
fn write_ldh_surt_line<const PLAIN: bool>(
    line: &[u8],
    shape: Shape,
    authority: (usize, usize),
    run: RunForm<'_>,
    out: &mut Vec<u8>,
) {
    let host = (authority.0, shape.host_end);
    let (dots, slash) = (shape.host_dots, shape.adds_slash);
    // The path starts where the authority ends.
    debug_assert_eq!(shape.path, authority.1);
    let (len, end) = (shape.len, authority.1);
    if !PLAIN && run.surt_scheme {
        let scheme_end = shape.after_scheme;
        surt::write_ldh_surt_line_with_scheme(out, line, len, scheme_end, host, end, dots, slash);
    } else {
        surt::write_ldh_surt_line(out, line, len, host, end, dots, slash);
    }
}

/// `key` as text: checked as ASCII (most keys are, and that check is a fraction of a full
/// UTF-8 check), else as UTF-8.
#[cfg(feature = "stream")]
#[inline]
fn key_text(key: &[u8]) -> Option<&str> {
    if key.is_ascii() {
        // SAFETY: every byte is ASCII (checked on the line above), and ASCII is UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(key) })
    } else {
        std::str::from_utf8(key).ok()
    }
}

/// What the runs of keys write besides the record ([`Normalizer::write_run_key`]), asked
/// once per run.
#[cfg(feature = "stream")]
#[derive(Clone, Copy)]
struct RunForm<'a> {
    /// The protocol rules in force, if any.
    rules: Option<&'a Rules>,
    /// The SURT form ([`Options::writes_surt`]).
    surt: bool,
    /// SURTs with their scheme ([`Options::surt_scheme`]).
    surt_scheme: bool,
}

#[cfg(feature = "stream")]
impl RunForm<'_> {
    /// SURTs without their scheme, and no protocol rules: the run that needs the fewest
    /// questions per line.
    fn plain_surt(&self) -> bool {
        self.surt && self.rules.is_none() && !self.surt_scheme
    }
}

/// What a run of keys does with a record the fast path took
/// ([`Normalizer::write_run_key`]).
#[cfg(feature = "stream")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RunKey {
    /// Its key was written.
    Written,
    /// It is its own key: nothing was written.
    Record,
    /// Not in a run: the rules' rounds warned, or the thread's scratch buffers were in use.
    Refused,
}

#[cfg(test)]
mod tests {
    use super::*;
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
