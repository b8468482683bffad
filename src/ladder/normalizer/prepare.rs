//! How a record enters the ladder: [`Normalizer::enter`], the one entry that every caller
//! goes through (the library's `normalize` methods, the engine's records, `explain`, the
//! Python package), with the lenient repairs (SPEC §3) and the fast path (SPEC §8) in one
//! order everywhere.

use crate::iri::error::{self, Error, ErrorKind};
use crate::iri::repair::{self, Repair, RepairKind};
use crate::ladder::compat::Compat;
use crate::ladder::fast::Shape;
use crate::ladder::normalizer::rungs::push_adding_slash;
use crate::ladder::normalizer::scratch::{with_scratch, Scratch};
use crate::ladder::normalizer::Normalizer;
use crate::ladder::record::{Notes, RawLine};
use crate::ladder::trace::{record_step, Step, Tracer};

/// How a record enters the ladder ([`Normalizer::enter`]).
pub(crate) struct Entry<'t> {
    /// Whether to ask the fast path about the raw record given as text: `false` where the
    /// caller asked it already (the engine's runs of lines); it may then have refused the
    /// record only for its empty path, which is written `/` here (where no rewrite follows:
    /// under one, the engine's runs of keys take such records).
    pub(crate) ask_fast: bool,
    /// The steps that change the record, when explaining: the fast path (which records no
    /// step) is then not taken.
    pub(crate) steps: Option<&'t mut Vec<Step>>,
}

impl Entry<'_> {
    /// A record's way in, not explained: asking the fast path or not ([`Entry::ask_fast`]).
    pub(crate) fn keys(ask_fast: bool) -> Self {
        Entry {
            ask_fast,
            steps: None,
        }
    }
}

/// Where one record's results go: its key, its repairs and warnings, and its steps.
struct Outcome<'o> {
    out: &'o mut String,
    notes: &'o mut Notes,
    steps: Option<&'o mut Vec<Step>>,
}

impl Normalizer {
    /// The one entry into the ladder: repairs the raw record `line` under its repair policy,
    /// then runs the rungs on it, appending the key to `out` and the
    /// repairs and warnings to `notes` (and the steps to `entry.steps`). On error `out` is
    /// left as it was, and the error's column points into the raw record; a record that holds a NUL
    /// is reported at its first NUL (SPEC §2).
    ///
    /// A raw record the fast path takes needs no repair (the repairs would leave it as it
    /// is): it is copied through. The others are repaired leniently after a first try on the
    /// trimmed record ([`Normalizer::parse_then_repair`]), or first where strict or not
    /// UTF-8.
    pub(crate) fn enter(
        &self,
        line: RawLine<'_>,
        out: &mut String,
        notes: &mut Notes,
        entry: Entry<'_>,
    ) -> Result<(), Error> {
        let RawLine {
            bytes: raw,
            text,
            repair,
        } = line;
        let Entry {
            mut ask_fast,
            steps,
        } = entry;
        let tracing = steps.is_some();
        if self.rewrites() {
            // A compatibility profile rewrites every record, in its own way.
            if let Some(compat) = self.options.compat {
                return enter_compat(compat, raw, out, notes, steps);
            }
        } else if ask_fast && !tracing {
            // Its own key, told without the thread's buffers; else not asked again.
            if let Some(t) = text.filter(|t| self.fast.accepts(t)) {
                out.push_str(t);
                return Ok(());
            }
            ask_fast = false;
        }
        let mut to = Outcome { out, notes, steps };
        with_scratch(|scratch| {
            let taken = match (ask_fast, text) {
                _ if tracing => None,
                (true, Some(t)) => self.fast.shape(t).map(|shape| (t, shape)),
                (false, Some(t)) if !self.rewrites() => {
                    self.fast.shape_adding_slash(t).map(|shape| (t, shape))
                }
                _ => None,
            };
            let r = match (taken, repair, text) {
                (Some((t, shape)), _, _) => {
                    self.ladder(t, Some(shape), raw, repair, &mut to, scratch)
                }
                (None, Repair::Lenient, Some(t)) => {
                    self.parse_then_repair(raw, t, &mut to, scratch)
                }
                (None, _, _) => self.repair_then_parse(raw, text, repair, &mut to, scratch),
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
        to: &mut Outcome<'_>,
        scratch: &mut Scratch,
    ) -> Result<(), Error> {
        let body = repair::trim_lenient(text);
        if body.is_empty() {
            return self.repair_then_parse(raw, Some(text), Repair::Lenient, to, scratch);
        }
        let trimmed = body.len() != text.len();
        // The fast path was asked about the raw text already, not about the trimmed one.
        let own = if trimmed { self.own(body, to) } else { None };
        let error = match self.ladder(body, own, raw, Repair::Lenient, to, scratch) {
            Ok(()) => {
                debug_assert!(repair::needs_no_repair(body), "accepted {body:?}");
                if trimmed {
                    to.notes.repairs.add(RepairKind::Trim);
                }
                return Ok(());
            }
            Err(error) => error,
        };
        let mut repaired = std::mem::take(&mut scratch.repaired);
        let r = repair::prepare_str(text, Repair::Lenient, &mut repaired, &mut to.notes.repairs)
            .and_then(|record| {
                if same_text(record, body) {
                    return Err(error);
                }
                let own = self.own(record, to);
                self.ladder(record, own, raw, Repair::Lenient, to, scratch)
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
        to: &mut Outcome<'_>,
        scratch: &mut Scratch,
    ) -> Result<(), Error> {
        let mut repaired = std::mem::take(&mut scratch.repaired);
        let r = repair::prepare_text(raw, text, repair, &mut repaired, &mut to.notes.repairs)
            .and_then(|record| {
                let same = text.is_some_and(|t| same_text(t, record));
                let own = if same { None } else { self.own(record, to) };
                self.ladder(record, own, raw, repair, to, scratch)
            });
        scratch.repaired = repaired;
        r
    }

    /// The fast path's shape of a prepared `record` that is its own key at the scheme rung;
    /// never asked when explaining.
    fn own(&self, record: &str, to: &Outcome<'_>) -> Option<Shape> {
        to.steps
            .is_none()
            .then(|| self.fast.shape(record))
            .flatten()
    }

    /// The key of one prepared record, `own` when the fast path found it to be its own key
    /// at the scheme rung: appended to `to`, with its warnings (their columns in `raw`,
    /// which `repair` made `record` from), and its steps, the repairs first. On error `to`
    /// is as it was.
    fn ladder(
        &self,
        record: &str,
        own: Option<Shape>,
        raw: &[u8],
        repair: Repair,
        to: &mut Outcome<'_>,
        scratch: &mut Scratch,
    ) -> Result<(), Error> {
        if let (Some(shape), false) = (own, self.rewrites()) {
            push_adding_slash(record, shape, to.out);
            return Ok(());
        }
        let marks = (to.out.len(), to.notes.warnings.len());
        let steps_mark = to.steps.as_deref().map_or(0, Vec::len);
        if let Some(steps) = to.steps.as_deref_mut().filter(|_| record.as_bytes() != raw) {
            let shown = String::from_utf8_lossy(raw);
            record_step(steps, "record", "lenient-repairs", &shown, record);
        }
        let mut trace = Tracer {
            steps: to.steps.as_deref_mut(),
            warnings: &mut to.notes.warnings,
        };
        let r = match own {
            Some(shape) => self.write_own_key(record, shape, to.out, scratch, &mut trace),
            None => self.run(record, to.out, scratch, &mut trace),
        };
        if r.is_err() {
            to.out.truncate(marks.0);
            to.notes.warnings.truncate(marks.1);
            if let Some(steps) = to.steps.as_deref_mut() {
                steps.truncate(steps_mark);
            }
        } else {
            for w in &mut to.notes.warnings[marks.1..] {
                w.column = repair.raw_column(raw, w.column);
            }
        }
        r
    }
}

/// The key of a raw record under a compatibility profile: the peer's own handling of the
/// record as read (it trims and repairs in its own way), but for a NUL, which is an error
/// everywhere (SPEC §2). A record the peer refuses is a syntax error carrying the peer's
/// reason, at the column where the refused part starts.
fn enter_compat(
    compat: Compat,
    raw: &[u8],
    out: &mut String,
    notes: &mut Notes,
    steps: Option<&mut Vec<Step>>,
) -> Result<(), Error> {
    if memchr::memchr(0, raw).is_some() {
        return Err(error::with_nul_first(
            raw,
            Error::new(ErrorKind::Nul, 0, "NUL byte"),
        ));
    }
    let mut trace = Tracer {
        steps,
        warnings: &mut notes.warnings,
    };
    with_scratch(|scratch| compat.write_key(raw, out, &mut scratch.compat, &mut trace)).map_err(
        |refusal| {
            let column = error::unit_column(raw, refusal.at);
            Error::new(ErrorKind::Syntax, column, refusal.message)
        },
    )
}

/// Whether `a` and `b` are the same slice of one text (not merely equal strings).
fn same_text(a: &str, b: &str) -> bool {
    a.as_ptr() == b.as_ptr() && a.len() == b.len()
}
