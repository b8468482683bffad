//! Compatibility profiles: keys equal, byte for byte, to the keys another canonicalizer
//! gives, so that an index or a cache already keyed by it can be read and extended with
//! irinorm (docs/compat-wayback.md, docs/compat-w3lib.md).
//!
//! Each profile reproduces one peer at one pinned version, input for input, including its
//! lossy merges (a `www` label stripped, a path lowercased, parameters sorted): these are
//! protocol-based normalization in the sense of RFC 3987 §5.3.4, chosen by the peer, never
//! the default. A released profile version never changes; a changed peer is a new version.
//!
//! - [`Compat::Wayback1`] (`wayback@1`): the SURT of the `surt` Python package 0.3.1,
//!   `surt.surt(url)` with its defaults, the key of CDX indexes ([`wayback`]).
//! - [`Compat::W3lib1`] (`w3lib@1`): `w3lib.url.canonicalize_url(url)` of `w3lib` 2.5.0 with
//!   its defaults, the input of Scrapy's request fingerprints ([`w3lib`]).
//!
//! Both peers run on Python 3.11, whose `idna` codec (IDNA 2003, [`pyidna`]) and Unicode
//! data they use; what this module cannot reproduce is listed with its reason on the
//! profile's page.

use crate::ladder::trace::{record_step, Tracer};

mod pyidna;
mod urlsplit;
pub(crate) mod w3lib;
mod w3lib_ip;
mod w3lib_tables;
mod w3lib_unicode;
pub(crate) mod wayback;
mod wayback_fast;

/// A compatibility profile: the canonicalizer whose keys it reproduces, at a pinned version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Compat {
    /// `wayback@1`: `surt.surt(url)` of the `surt` package 0.3.1 (Python 3.11).
    Wayback1,
    /// `w3lib@1`: `w3lib.url.canonicalize_url(url)` of `w3lib` 2.5.0 (Python 3.11).
    W3lib1,
}

/// Why a peer refuses a record: where it raises an exception, the profile gives an invalid
/// record with this message ([`crate::ErrorKind::Syntax`] at `at`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// The byte offset in the record where the refused part starts (0: the whole record).
    pub(crate) at: usize,
    /// What the peer says, in a few words (e.g. "port out of range 0-65535").
    pub(crate) message: &'static str,
}

/// Where a profile reports the steps that changed a record, for `--explain`: one call per
/// step that ran, with the text before and after it (a step that changed nothing is dropped
/// by the recorder). A run that does not explain pays one test per step.
pub(crate) trait Steps {
    /// Whether steps are recorded (the profile may skip building `before`/`after` when not).
    fn on(&self) -> bool;
    /// Records that `rule` turned `before` into `after` in `component` (`scheme`, `host`,
    /// `path`, `query`, `fragment`, `userinfo`, `port`, `record`).
    fn step(&mut self, component: &'static str, rule: &'static str, before: &[u8], after: &[u8]);
}

/// No steps recorded (tests, and runs that do not explain).
impl Steps for () {
    #[inline(always)]
    fn on(&self) -> bool {
        false
    }
    #[inline(always)]
    fn step(&mut self, _: &'static str, _: &'static str, _: &[u8], _: &[u8]) {}
}

/// The ladder's tracer records a profile's steps as it records the rungs'.
impl Steps for Tracer<'_> {
    #[inline(always)]
    fn on(&self) -> bool {
        self.is_some()
    }
    #[inline(always)]
    fn step(&mut self, component: &'static str, rule: &'static str, before: &[u8], after: &[u8]) {
        if let Some(steps) = self.steps.as_deref_mut() {
            let (b, a) = (
                String::from_utf8_lossy(before),
                String::from_utf8_lossy(after),
            );
            record_step(steps, component, rule, &b, &a);
        }
    }
}

/// The names (`component/rule`) of the steps a profile reports, for tests; a step that
/// changed nothing is counted apart, as the ladder's recorder drops it.
#[cfg(test)]
#[derive(Default)]
pub(crate) struct StepNames {
    pub(crate) names: Vec<String>,
    pub(crate) unchanged: usize,
}

#[cfg(test)]
impl Steps for StepNames {
    fn on(&self) -> bool {
        true
    }
    fn step(&mut self, component: &'static str, rule: &'static str, before: &[u8], after: &[u8]) {
        match before == after {
            true => self.unchanged += 1,
            false => self.names.push(format!("{component}/{rule}")),
        }
    }
}

/// The buffers one thread reuses for every record a profile keys, so that keying allocates
/// nothing once they have grown.
#[derive(Default)]
pub(crate) struct CompatScratch {
    pub(crate) wayback: wayback::Scratch,
    pub(crate) w3lib: w3lib::Scratch,
    /// A key, for a run of lines, before it is appended to the run's output.
    key: String,
}

/// The names `--profile` takes for the compatibility profiles, and the profile each names:
/// the unversioned name stands for the newest version.
const NAMES: &[(&str, Compat)] = &[
    ("wayback", Compat::Wayback1),
    ("wayback@1", Compat::Wayback1),
    ("w3lib", Compat::W3lib1),
    ("w3lib@1", Compat::W3lib1),
];

impl Compat {
    /// The profile `--profile NAME` names, if it is a compatibility profile.
    pub fn from_name(name: &str) -> Option<Compat> {
        NAMES.iter().find(|(n, _)| *n == name).map(|&(_, c)| c)
    }

    /// Every name `--profile` takes for a compatibility profile.
    pub fn names() -> impl Iterator<Item = &'static str> {
        NAMES.iter().map(|&(n, _)| n)
    }

    /// The versioned name (`wayback@1`).
    pub fn name(self) -> &'static str {
        match self {
            Compat::Wayback1 => "wayback@1",
            Compat::W3lib1 => "w3lib@1",
        }
    }

    /// The call of the peer whose keys the profile reproduces, for messages and docs.
    pub fn peer(self) -> &'static str {
        match self {
            Compat::Wayback1 => "surt.surt(url) of surt 0.3.1",
            Compat::W3lib1 => "w3lib.url.canonicalize_url(url) of w3lib 2.5.0",
        }
    }

    /// Appends the key of the record `record` (its bytes as read, without the line
    /// terminator) to `out`; on refusal `out` is left as it was.
    pub(crate) fn write_key(
        self,
        record: &[u8],
        out: &mut String,
        scratch: &mut CompatScratch,
        steps: &mut impl Steps,
    ) -> Result<(), Refusal> {
        self.write_key_asking(record, out, scratch, steps, true)
    }

    /// [`Compat::write_key`], asking the profile's fast path or not (`ask_fast`: false where
    /// the caller asked it already).
    fn write_key_asking(
        self,
        record: &[u8],
        out: &mut String,
        scratch: &mut CompatScratch,
        steps: &mut impl Steps,
        ask_fast: bool,
    ) -> Result<(), Refusal> {
        let mark = out.len();
        let wayback = &mut scratch.wayback;
        let r = match self {
            Compat::Wayback1 if ask_fast => wayback::write_key(record, out, wayback, steps),
            Compat::Wayback1 => wayback::write_key_without_fast(record, out, wayback, steps),
            Compat::W3lib1 => w3lib::write_key(record, out, &mut scratch.w3lib, steps),
        };
        if r.is_err() {
            out.truncate(mark);
        }
        r
    }

    /// The key of the line at the start of `text` (a record, then a line feed, alone or
    /// after a carriage return), appended to `out`, for a run of lines: the record's length
    /// and its line end's (1 or 2). `None`, with `out` as it was, where the line is not
    /// keyed here: it has no line feed, it is longer than `max_line` bytes, it holds a NUL,
    /// or the peer refuses it (the ladder's one entry reports each of those). A profile
    /// never warns, so any other line's key is the one that entry gives.
    #[inline]
    pub(crate) fn write_line_key(
        self,
        text: &str,
        max_line: usize,
        out: &mut Vec<u8>,
        scratch: &mut CompatScratch,
    ) -> Option<(usize, usize)> {
        if self == Compat::Wayback1 {
            let mark = out.len();
            match wayback::write_line_key_fast(text.as_bytes(), out, &mut scratch.wayback) {
                Some(t) if t.ending > 0 && t.len <= max_line => return Some((t.len, t.ending)),
                Some(_) => out.truncate(mark),
                None => {}
            }
        }
        let line = memchr::memchr(b'\n', text.as_bytes())?;
        let len = line - usize::from(line > 0 && text.as_bytes()[line - 1] == b'\r');
        let record = &text.as_bytes()[..len];
        if len > max_line || memchr::memchr(0, record).is_some() {
            return None;
        }
        let mut key = std::mem::take(&mut scratch.key);
        key.clear();
        // The fast path, if the profile has one, refused the line already.
        let asked = self == Compat::Wayback1;
        let keyed = (self.write_key_asking(record, &mut key, scratch, &mut (), !asked)).is_ok();
        if keyed {
            out.extend_from_slice(key.as_bytes());
        }
        scratch.key = key;
        keyed.then_some((len, line + 1 - len))
    }
}
