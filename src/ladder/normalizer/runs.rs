//! Runs of lines: what an engine that reads a buffer of lines needs from the ladder, as
//! plain functions over the text at hand (SPEC §8). The fast path's verdict on many lines
//! at once ([`Normalizer::canonical_lines`]: lines that are their own key, copied through
//! as they are), and the keys of the lines it takes that are written without a parse
//! ([`Normalizer::own_key_lines`]: SURTs, keys under protocol rules, lines that end in
//! CRLF), each also line by line for an engine that formats rows. Every key is the one
//! [`Normalizer::normalize_raw_into`] gives.

use crate::iri::error::Error;
use crate::ladder::compat::Compat;
use crate::ladder::fast::Shape;
use crate::ladder::key::KeyWriter;
use crate::ladder::normalizer::rungs::{
    apply_rules, key_pieces, ldh_surt_authority, push_adding_slash, rules_leave, rules_pass,
};
use crate::ladder::normalizer::scratch::SCRATCH;
use crate::ladder::normalizer::{Entry, Normalizer};
use crate::ladder::options::Form;
use crate::ladder::protocol::Rules;
use crate::ladder::record::{Notes, RawLine};
use crate::ladder::surt;
use crate::ladder::trace::Tracer;

/// What is known of the line after a run of canonical lines
/// ([`Normalizer::canonical_lines_then_keys`]): whether [`Normalizer::own_key_lines`] takes
/// it, so that an engine asks about that line only where that may pay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextLine {
    /// Not known.
    Unknown,
    /// `own_key_lines` may take it.
    Keyed,
    /// `own_key_lines` refuses it, unless it ends in CRLF.
    NotKeyed,
}

/// What [`Normalizer::own_key_lines`] took and wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyRun {
    /// The bytes of input taken, line feeds included.
    pub bytes: usize,
    /// The lines taken (each one record, with one key).
    pub lines: u64,
    /// How many of those keys differ from their record.
    pub changed: u64,
}

impl Normalizer {
    /// [`Normalizer::normalize_record_into`] for a raw record of a buffer of lines, which may
    /// not be valid UTF-8 (its stray octets are a repair, or an error when strict), where the caller asked the runs of lines about it already: the
    /// fast path is not asked again about a record given as text. In the SURT form (whose
    /// keys are never their records) an engine asks it only through
    /// [`Normalizer::own_key_lines`], in key output: there the fast path is asked here,
    /// once, unless `refused_by_key_lines` says that it refused the record already. (Under
    /// protocol rules, a record found canonical but changed by a rule takes the full ladder
    /// rather than a second scan of every record the runs refused.)
    #[inline]
    pub fn normalize_raw_into(
        &self,
        line: RawLine<'_>,
        out: &mut String,
        notes: &mut Notes,
        refused_by_key_lines: bool,
    ) -> Result<(), Error> {
        let asked = line.text.is_some() && (refused_by_key_lines || !self.options.writes_surt());
        self.enter(line, out, notes, Entry::keys(!asked))
    }

    /// Whether the keys of the lines the fast path takes are rewritten after the scheme
    /// rung (by protocol rules or into SURTs): then [`Normalizer::own_key_lines`] takes lines
    /// that end in a line feed alone too; otherwise only those that end in CRLF.
    #[inline]
    pub fn rewrites_own_keys(&self) -> bool {
        self.rewrites()
    }
    /// Whether the lines the runs of lines hand out, and their keys, hold no byte an output
    /// format escapes (SPEC §8: the fast path takes only printable records): so, but under
    /// a compatibility profile, whose runs of keys take any line the profile keys.
    #[inline]
    pub fn runs_are_printable(&self) -> bool {
        self.options.compat.is_none()
    }

    /// [`Normalizer::canonical_lines`] for records whose URL is one field of their line:
    /// `field` finds it in a line (a range of the line, without its line feed), and `take`
    /// gets each line whose field is its own key, with that field, until it says `false`.
    /// Returns the bytes (line feeds included) and the lines taken: lines that a line feed
    /// alone ends. Nothing where keys are rewritten after the scheme rung (protocol rules,
    /// SURTs, a compatibility profile): there every record takes the full path.
    #[inline]
    pub fn canonical_fields<F, T>(
        &self,
        rest: &str,
        max_line: usize,
        field: F,
        take: T,
    ) -> (usize, u64)
    where
        F: FnMut(&[u8]) -> Option<std::ops::Range<usize>>,
        T: FnMut(&str, &str) -> bool,
    {
        if self.rewrites() {
            return (0, 0);
        }
        self.fast.take_fields(rest, max_line, field, take)
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
    fn run_form(&self) -> RunForm<'_> {
        RunForm {
            rules: self.rules_in_force(),
            surt: self.options.writes_surt(),
            surt_scheme: self.options.surt_scheme,
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

    /// [`Normalizer::canonical_lines`], and what is known of the line the run ends at
    /// ([`NextLine`]): [`NextLine::Keyed`] where the fast path takes it but it is not its own
    /// key only for the `/` of its empty path or, under protocol rules, for the rules' sieve,
    /// both of which [`Normalizer::own_key_lines`] writes; [`NextLine::NotKeyed`] where the
    /// fast path refuses it (or it is too long, or ends the text without a line feed, or in
    /// CRLF), which `own_key_lines` then refuses too (but for CRLF). In the SURT form no
    /// line passes through, and nothing is known ([`NextLine::Unknown`]).
    pub fn canonical_lines_then_keys(&self, rest: &str, max_line: usize) -> (usize, u64, NextLine) {
        if self.options.form == Form::Surt || self.options.compat.is_some() {
            return (0, 0, NextLine::Unknown);
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
        let next = if keyed {
            NextLine::Keyed
        } else {
            NextLine::NotKeyed
        };
        (n, lines, next)
    }

    /// [`Normalizer::canonical_lines`], with each line of the run (without its line end)
    /// handed to `each` as it is found, until `each` says `false`; the lines that end in
    /// CRLF and are their own key belong to the run too (for rows, which are written line
    /// by line). Returns the bytes and the lines of the run up to the last line `each` took.
    #[inline]
    pub fn each_canonical_line(
        &self,
        rest: &str,
        max_line: usize,
        each: impl FnMut(&str) -> bool,
    ) -> (usize, u64) {
        self.canonical_lines_each::<true>(rest, max_line, each)
    }

    /// [`Normalizer::canonical_lines`] with each line handed to `each`; with `CRLF`, lines
    /// that end in CRLF belong to the run too ([`Normalizer::each_canonical_line`]).
    #[inline]
    fn canonical_lines_each<const CRLF: bool>(
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
    /// [`Normalizer::own_key_lines`], and the full ladder runs them).
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
    /// what it took ([`KeyRun`]). Each key is the one [`Normalizer::normalize_raw_into`]
    /// gives, with no repair or warning.
    pub fn own_key_lines(&self, rest: &str, max_line: usize, out: &mut Vec<u8>) -> KeyRun {
        let mut sink = Lines { out, changed: 0 };
        let (bytes, lines) = self.key_run(rest, max_line, &mut sink);
        KeyRun {
            bytes,
            lines,
            changed: sink.changed,
        }
    }

    /// [`Normalizer::own_key_lines`] for rows (and for keys the engine tracks): the same
    /// run, with the lines that are their own key in it too, whatever ends them; each line
    /// (without its line end) is handed to `each` with its key, in order, until `each` says
    /// `false`. A key written here goes into `key` (emptied first); a line that is its own
    /// key is handed out as its own key, the same slice. Returns the bytes of `rest` taken
    /// and the lines.
    pub fn own_keys_each(
        &self,
        rest: &str,
        max_line: usize,
        key: &mut Vec<u8>,
        each: impl FnMut(&str, &str) -> bool,
    ) -> (usize, u64) {
        self.key_run(rest, max_line, &mut Each { key, each })
    }

    /// The run of keys of [`Normalizer::own_key_lines`], each key handed to `sink`.
    #[inline(always)]
    fn key_run(&self, rest: &str, max_line: usize, sink: &mut impl KeySink) -> (usize, u64) {
        if let Some(compat) = self.options.compat {
            if !self.fast.takes_compat_runs() {
                return (0, 0);
            }
            return compat_run(compat, rest, max_line, sink);
        }
        let run = self.run_form();
        match (run.surt, run.plain_surt()) {
            (true, true) => self.surt_run::<true>(rest, max_line, run, sink),
            (true, false) => self.surt_run::<false>(rest, max_line, run, sink),
            (false, _) => {
                self.fast
                    .take_lines_ending::<true>(rest, max_line, |record, shape, _| {
                        self.key_line(record, shape, run, sink)
                    })
            }
        }
    }

    /// [`Normalizer::key_run`] in the SURT form. Most lines have an LDH host (and pass the
    /// protocol rules' sieve, where rules run): their SURT is written by a call from the
    /// scan's loop with the record's offsets, and the other lines are scanned again out of
    /// that loop, so that it keeps no line's shape in memory. `PLAIN`: the run has neither
    /// rules nor schemes in its SURTs ([`RunForm::plain_surt`]), so its loop asks about
    /// neither.
    #[inline(always)]
    fn surt_run<const PLAIN: bool>(
        &self,
        rest: &str,
        max_line: usize,
        run: RunForm<'_>,
        sink: &mut impl KeySink,
    ) -> (usize, u64) {
        self.fast.take_lines_ending::<true>(
            rest,
            max_line,
            #[inline(always)]
            |record, shape, line| match ldh_surt_line_authority::<PLAIN>(record, shape, run) {
                Some(authority) => {
                    let start = sink.begin();
                    write_ldh_surt_line::<PLAIN>(line, shape, authority, run, sink.buffer());
                    sink.surt_line(record, start)
                }
                None => self.rescanned(record, |shape| self.key_line(record, shape, run, sink)),
            },
        )
    }

    /// A line of a run of SURTs that is not for [`surt::write_ldh_surt_line`]: scanned again
    /// for its shape, which `write` then writes the key from, so that the run's loop keeps
    /// no line's shape in memory for it. Out of the loop: few lines come here (under the
    /// crawler profile, the lines with a `?`, `;` or `#` that its sieve cannot judge at a
    /// glance: at most 11 % of the corpora's).
    #[cold]
    #[inline(never)]
    fn rescanned(&self, record: &str, write: impl FnOnce(Shape) -> bool) -> bool {
        self.fast.rescan(record).is_some_and(write)
    }

    /// One line of a run of keys: its key written into the sink, or the line refused.
    #[inline(always)]
    fn key_line(
        &self,
        record: &str,
        shape: Shape,
        run: RunForm<'_>,
        sink: &mut impl KeySink,
    ) -> bool {
        let start = sink.begin();
        let key = self.write_run_key(record, shape, run, sink.buffer());
        sink.line(record, start, key, shape.crlf)
    }

    /// The key of `record`, which the fast path took (`shape`), where a run writes it without
    /// a parse: under protocol rules, a record the rules' sieve does not let through gets the
    /// rules' rounds; in the SURT form, its SURT (`run` says which, asked once per run);
    /// otherwise the record is its own key, or the record with a `/` for its empty path
    /// ([`Shape::adds_slash`]).
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
}

/// [`Normalizer::key_run`] under a compatibility profile, whose keys are never their
/// records: every line the profile keys in a run ([`Compat::write_line_key`]), up to one
/// it leaves to the ladder's one entry (no line feed, too long, a NUL, a refusal).
fn compat_run(
    compat: Compat,
    rest: &str,
    max_line: usize,
    sink: &mut impl KeySink,
) -> (usize, u64) {
    SCRATCH.with(|s| {
        let Ok(mut s) = s.try_borrow_mut() else {
            return (0, 0);
        };
        let (mut at, mut lines) = (0, 0);
        while at < rest.len() {
            // `at` is 0 or follows a line feed: a char boundary.
            let line = &rest[at..];
            let start = sink.begin();
            let Some((len, ending)) =
                compat.write_line_key(line, max_line, sink.buffer(), &mut s.compat)
            else {
                break;
            };
            // A line feed, or CRLF, follows the record: char boundaries.
            if !sink.line(&line[..len], start, RunKey::Written, ending == 2) {
                break;
            }
            at += len + ending;
            lines += 1;
        }
        (at, lines)
    })
}

/// [`ldh_surt_authority`] for a line of a run of SURTs (`run`), if the protocol rules in
/// force (if any) leave it as it is, told at a glance ([`rules_pass`]): a line for
/// [`write_ldh_surt_line`]. `PLAIN`: the run has no rules ([`RunForm::plain_surt`]).
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
#[derive(Clone, Copy)]
struct RunForm<'a> {
    /// The protocol rules in force, if any.
    rules: Option<&'a Rules>,
    /// The SURT form ([`crate::Options::writes_surt`]).
    surt: bool,
    /// SURTs with their scheme ([`crate::Options::surt_scheme`]).
    surt_scheme: bool,
}

impl RunForm<'_> {
    /// SURTs without their scheme, and no protocol rules: the run that needs the fewest
    /// questions per line.
    fn plain_surt(&self) -> bool {
        self.surt && self.rules.is_none() && !self.surt_scheme
    }
}

/// What a run of keys does with a record the fast path took
/// ([`Normalizer::write_run_key`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RunKey {
    /// Its key was written.
    Written,
    /// It is its own key: nothing was written.
    Record,
    /// Not in a run: the rules' rounds warned, or the thread's scratch buffers were in use.
    Refused,
}

/// Where a run of keys puts each line's key: the chunk's output, a line each ([`Lines`]), or
/// a callback, a line and its key at a time ([`Each`]).
trait KeySink {
    /// Readies the buffer for the next key: returns where it starts.
    fn begin(&mut self) -> usize;
    /// The buffer keys are written into.
    fn buffer(&mut self) -> &mut Vec<u8>;
    /// The line `record`, whose key was written from `start` (`RunKey::Written`), or is the
    /// record itself (`RunKey::Record`; `crlf`: the line ended in CRLF), or not known
    /// (`RunKey::Refused`). Returns whether the run goes on.
    fn line(&mut self, record: &str, start: usize, key: RunKey, crlf: bool) -> bool;
    /// The line `record`, whose SURT and a line feed were written from `start`.
    fn surt_line(&mut self, record: &str, start: usize) -> bool;
}

/// The keys of [`Normalizer::own_key_lines`]: each key and a line feed appended to `out`.
struct Lines<'o> {
    out: &'o mut Vec<u8>,
    /// The keys that differ from their record.
    changed: u64,
}

impl KeySink for Lines<'_> {
    #[inline(always)]
    fn begin(&mut self) -> usize {
        self.out.len()
    }

    #[inline(always)]
    fn buffer(&mut self) -> &mut Vec<u8> {
        self.out
    }

    #[inline(always)]
    fn line(&mut self, record: &str, start: usize, key: RunKey, crlf: bool) -> bool {
        match key {
            RunKey::Refused => return false,
            // Copied through instead.
            RunKey::Record if !crlf => return false,
            // Its own key, without the carriage return: not a line to copy through.
            RunKey::Record => self.out.extend_from_slice(record.as_bytes()),
            RunKey::Written => {}
        }
        self.changed += u64::from(&self.out[start..] != record.as_bytes());
        self.out.push(b'\n');
        true
    }

    #[inline(always)]
    fn surt_line(&mut self, _: &str, _: usize) -> bool {
        // Such a SURT always differs from its record.
        self.changed += 1;
        true
    }
}

/// The keys of [`Normalizer::own_keys_each`]: each line handed to `each` with its key.
struct Each<'k, F> {
    key: &'k mut Vec<u8>,
    each: F,
}

impl<F: FnMut(&str, &str) -> bool> KeySink for Each<'_, F> {
    #[inline(always)]
    fn begin(&mut self) -> usize {
        self.key.clear();
        0
    }

    #[inline(always)]
    fn buffer(&mut self) -> &mut Vec<u8> {
        self.key
    }

    #[inline(always)]
    fn line(&mut self, record: &str, _: usize, key: RunKey, _: bool) -> bool {
        match key {
            RunKey::Refused => false,
            RunKey::Record => (self.each)(record, record),
            RunKey::Written => key_text(self.key).is_some_and(|k| (self.each)(record, k)),
        }
    }

    #[inline(always)]
    fn surt_line(&mut self, record: &str, _: usize) -> bool {
        // A row holds the key without the line feed.
        self.key.pop();
        key_text(self.key).is_some_and(|k| (self.each)(record, k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ladder::Options;

    #[test]
    fn runs_of_keys_take_crlf_lines_and_write_each_key_as_the_ladder_does() {
        use crate::ladder::{Form, Level, Options, Rules};
        let crawler = Options::default()
            .with_level(Level::Protocol)
            .with_rules(Some(std::sync::Arc::new(
                Rules::profile("crawler").unwrap(),
            )));
        let surt = Options::default().with_form(Form::Surt);
        // Under the rules, a run of keys holds the lines whose keys the rules change.
        let cases = [
            (
                surt.clone(),
                "http://a.b/c\r\nhttp://d.e/?X=1\r\nhttp://f.g/\nHTTP://X/\n",
                3,
            ),
            // An empty path is written `/` (RFC 3986 §6.2.3), before a query or fragment
            // too; a host that is not LDH leaves the record to the full ladder.
            (
                surt.clone(),
                "http://a.b\nhttps://www.d.e?Q\r\nhttp://f.g:8080#F\nhttp://1.2.3.4\n",
                3,
            ),
            (
                crawler.clone(),
                "http://a.b?utm_source=x\nhttp://d.e?\nhttp://f.g#x\nhttp://a.b/\n",
                3,
            ),
            (
                crawler.clone(),
                "http://d.e/?utm_source=x\r\nhttp://a.b/?gclid=1\r\nhttp://f.g/\n",
                2,
            ),
            // A line the rules leave as it is joins the run where it ends in CRLF (it cannot
            // be copied through as it is); one that ends in a line feed alone is copied.
            (
                crawler.clone(),
                "http://d.e/?gclid=1\nhttp://a.b/\r\nhttp://f.g/\n",
                2,
            ),
        ];
        // Where no key is rewritten, a run of keys holds the lines that end in CRLF (those
        // that end in a line feed alone are copied through).
        let plain = Normalizer::new(Options::default()).unwrap();
        assert!(!plain.rewrites_own_keys());
        let mut out = Vec::new();
        let run = plain.own_key_lines("http://a/\r\nhttp://b/\r\nhttp://c/\n", 100, &mut out);
        assert_eq!((run.bytes, run.lines, run.changed), (22, 2, 0));
        assert_eq!(out, b"http://a/\nhttp://b/\n");
        let none = plain.own_key_lines("http://a/\nhttp://b/\r\n", 100, &mut Vec::new());
        assert_eq!(none, KeyRun::default());
        // A line whose key adds the `/` of its empty path ends the lines that pass through,
        // and the run of keys writes it.
        let text = "http://a/\nhttp://b\nhttps://c?q\nhttp://d/\n";
        let keyed = (10, 1, NextLine::Keyed);
        assert_eq!(plain.canonical_lines_then_keys(text, 100), keyed);
        let refused = "http://a/\nHTTP://b/\n";
        let not_keyed = (10, 1, NextLine::NotKeyed);
        assert_eq!(plain.canonical_lines_then_keys(refused, 100), not_keyed);
        // Under protocol rules, a line the sieve does not let through is keyed; one the fast
        // path refuses is not; in the SURT form nothing passes through, and nothing is known.
        let crawler = Normalizer::new(crawler.clone()).unwrap();
        let queried = "http://a/\nhttp://a/?utm_source=x\n";
        assert_eq!(crawler.canonical_lines_then_keys(queried, 100), keyed);
        assert_eq!(crawler.canonical_lines_then_keys(refused, 100), not_keyed);
        let surt_form = Normalizer::new(surt.clone()).unwrap();
        let unknown = (0, 0, NextLine::Unknown);
        assert_eq!(surt_form.canonical_lines_then_keys(text, 100), unknown);
        let mut out = Vec::new();
        let run = plain.own_key_lines(&text[10..], 100, &mut out);
        assert_eq!((run.bytes, run.lines, run.changed), (21, 2, 2));
        assert_eq!(out, b"http://b/\nhttps://c/?q\n");
        // The string rung keeps records as they are, in the SURT form too.
        let string = Normalizer::new(surt.clone().with_level(Level::String)).unwrap();
        let mut out = Vec::new();
        let run = string.own_key_lines("HTTP://A.B/x\r\n", 100, &mut out);
        assert_eq!((run.lines, out.as_slice()), (1, &b"HTTP://A.B/x\n"[..]));
        // An empty record is an error, whatever ends it: never in a run.
        let surt_n = Normalizer::new(surt.clone()).unwrap();
        let empty = surt_n.own_key_lines("\r\nhttp://a/\n", 100, &mut Vec::new());
        assert_eq!(empty, KeyRun::default());
        for (options, text, lines) in cases {
            let n = Normalizer::new(options).unwrap();
            let mut out = Vec::new();
            let run = n.own_key_lines(text, 10_000, &mut out);
            assert_eq!(run.lines, lines, "{text:?}");
            let taken = text.split_inclusive('\n').take(lines as usize);
            assert_eq!(run.bytes, taken.clone().map(str::len).sum::<usize>());
            let mut want = String::new();
            for line in taken {
                n.normalize_into(line.trim_end(), &mut want).unwrap();
                want.push('\n');
            }
            assert_eq!(String::from_utf8(out).unwrap(), want, "{text:?}");
        }
    }

    #[test]
    fn runs_of_compat_keys_are_the_keys_of_the_one_entry() {
        use crate::ladder::compat::Compat;
        use crate::ladder::record::RawLine;
        // Each line once keyed alone and once in a run: the run stops at a line it leaves
        // to the one entry (a NUL, too long, a refusal, no line feed), and goes on after it.
        let lines = [
            "http://www.Example.com:80/A/b/?b=2&a=1#f",
            "https://a.b/c\r",
            "",
            "filedesc://x.arc.gz",
            "http://a.b/%41?x",
            "http://a.b/\u{e9}",
            "http://a.b:99999/",
            "http://a\0b/",
            "HTTP://A.B/./c/../d//",
            "mailto:Someone@Example.com",
            "http://xn--bcher-kva.example/?q=%2F&r",
            "//a.b/c",
            "http://a.b/x\x7f",
            "https://a.b/c?d=e&f=g",
        ];
        let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        text.push_str("http://last.line/no-line-feed");
        let long = "http://a.b/".to_owned() + &"c".repeat(70);
        text = format!("{long}\n{text}");
        for compat in [Compat::Wayback1, Compat::W3lib1] {
            let o = Options::default()
                .with_level(crate::ladder::Level::Protocol)
                .with_form(compat.form())
                .with_compat(Some(compat));
            let n = Normalizer::new(o).unwrap();
            assert_eq!(n.canonical_lines_then_keys(&text, 100).1, 0);
            let (mut at, mut keys) = (0, Vec::new());
            while at < text.len() {
                let mut out = Vec::new();
                let run = n.own_key_lines(&text[at..], 64, &mut out);
                keys.extend(
                    out.split(|&b| b == b'\n')
                        .take(run.lines as usize)
                        .map(|k| Some(String::from_utf8(k.to_vec()).unwrap())),
                );
                at += run.bytes;
                if at < text.len() && run.lines == 0 {
                    // Left to the one entry: the next line alone.
                    let end = text[at..].find('\n').map_or(text.len(), |k| at + k + 1);
                    let raw = text[at..end].trim_end_matches('\n').trim_end_matches('\r');
                    let mut key = String::new();
                    let line = RawLine::of_str(raw, n.repair());
                    let long = raw.len() > 64;
                    let r = n.normalize_raw_into(line, &mut key, &mut Default::default(), true);
                    keys.push((r.is_ok() && !long).then_some(key));
                    at = end;
                }
            }
            let all: Vec<&str> = text.split('\n').collect();
            assert_eq!(keys.len(), all.len(), "{compat:?}: {keys:?}");
            for (raw, got) in all.iter().zip(&keys) {
                let Some(got) = got else { continue };
                let raw = raw.trim_end_matches('\r');
                let mut want = String::new();
                n.normalize_raw_into(
                    RawLine::of_str(raw, n.repair()),
                    &mut want,
                    &mut Default::default(),
                    true,
                )
                .unwrap();
                assert_eq!(got, &want, "{compat:?}: {raw:?}");
            }
            // Most lines are keyed in runs; the long one, the NUL and the refused port are not.
            let mut out = Vec::new();
            let run = n.own_key_lines(&text, 10_000, &mut out);
            assert_eq!(run.lines, 7, "{compat:?}");
        }
    }

    #[test]
    fn runs_of_rows_hand_out_each_line_with_its_key() {
        use crate::ladder::{Form, Level, Options, Rules};
        let crawler = Options::default()
            .with_level(Level::Protocol)
            .with_rules(Some(std::sync::Arc::new(
                Rules::profile("crawler").unwrap(),
            )));
        let text = "http://a.b/c\r\nhttp://d.e/?utm_source=x\nhttp://f.g/\nHTTP://X/\nhttp://h/\n";
        for options in [Options::default().with_form(Form::Surt), crawler] {
            let n = Normalizer::new(options).unwrap();
            let (mut seen, mut key) = (Vec::new(), Vec::new());
            let mut own = 0;
            let run = n.own_keys_each(text, 100, &mut key, |line, key| {
                own += usize::from(std::ptr::eq(line, key));
                seen.push((line.to_owned(), key.to_owned()));
                true
            });
            // The run stops at the line the fast path refuses, CRLF lines in it.
            assert_eq!(run, (51, 3), "{seen:?}");
            for (line, key) in &seen {
                let mut want = String::new();
                n.normalize_into(line, &mut want).unwrap();
                assert_eq!(key, &want);
            }
            // A line that is its own key is handed out as itself; a SURT never is.
            let surt = n.options().form == Form::Surt;
            assert_eq!(own, if surt { 0 } else { 2 });
            // A callback that stops early ends the run at the last line it took.
            let mut count = 0;
            let run = n.own_keys_each(text, 100, &mut key, |_, _| {
                count += 1;
                count < 2
            });
            assert_eq!(run, (14, 1));
        }
        // Where no key is rewritten, the lines of the run are their own keys.
        let plain = Normalizer::new(Options::default()).unwrap();
        let mut own = 0;
        let run = plain.own_keys_each(text, 100, &mut Vec::new(), |line, key| {
            own += usize::from(std::ptr::eq(line, key));
            true
        });
        assert_eq!((run, own), ((51, 3), 3));
    }

    #[test]
    fn the_lines_of_a_run_are_handed_out_one_by_one() {
        let n = Normalizer::new(Options::default()).unwrap();
        let each = |rest: &str, most: usize| {
            let mut seen = Vec::new();
            let run = n.each_canonical_line(rest, 10_000, |line| {
                seen.push(line.to_owned());
                seen.len() <= most
            });
            seen.truncate(most);
            (seen, run)
        };
        let text = "http://a/\nhttp://b/c\nHTTP://x/\nhttp://d/\n";
        let (seen, run) = each(text, 9);
        assert_eq!(run, n.canonical_lines(text, 10_000));
        assert_eq!(
            (seen, run),
            (
                vec!["http://a/".to_owned(), "http://b/c".to_owned()],
                (21, 2)
            )
        );
        // A callback that stops early ends the run at the last line it took.
        assert_eq!(each(text, 1), (vec!["http://a/".to_owned()], (10, 1)));
        // Rows are written line by line: lines that end in CRLF are handed out too.
        let (seen, run) = each("http://a/\r\nhttp://b/\nHTTP://c/\r\n", 9);
        assert_eq!(
            (seen, run),
            (
                vec!["http://a/".to_owned(), "http://b/".to_owned()],
                (21, 2)
            )
        );
    }
}
