//! The fast path of the normalizer (SPEC §8): deciding cheaply that a record is already its
//! own key, so it can be copied through without parsing or rewriting.
//!
//! Most records of a crawl or a log are already canonical at the configured rung: a
//! lowercase scheme and host, no default port, uppercase hex in percent-encodings that must
//! stay, no dot segments. [`FastPath::accepts`] recognizes such records with one pass over
//! them, and says `true` only where the full ladder ([`crate::ladder::Normalizer`] with
//! the fast path off) would give back exactly the same bytes, without an error, a repair or
//! a warning. Whenever it is in doubt it says `false`, and the full ladder runs; that is
//! also how every error is produced, so the fast path never has to reproduce one.
//! [`FastPath::accepts_line`] does the same for the record at the start of a chunk of
//! lines, finding where it ends on the way, so the engine needs no separate search for the
//! line feed (SPEC §8).
//!
//! "Its own key" means its key at the scheme rung (or the rung configured below it). Where
//! the protocol rules or the SURT form rewrite that key, the normalizer does that work on
//! the record's components as [`FastPath::shape_of_line`] found them ([`Shape`]), without a
//! parse: the rules' sieve lets through at a glance the records no rule changes, and the
//! SURT is written from the host and the rest.
//!
//! What sends a record to the full ladder:
//! - anything the lenient repairs would change (a space or another character URIs forbid, a
//!   `%` without two hex digits), a control character (a carriage return too, unless it is
//!   the one before the line feed), `[` or `]`, a second `#`, an empty record;
//! - options whose work this path does not do: a fragment with `--drop-fragment`, a
//!   relative reference with `--absolute` or with a base (which resolves it; a record with
//!   a scheme, whose target is itself but for dot segments, RFC 3986 §5.2.2, is given back
//!   by the ladder as it is, and takes this path as without a base);
//!   with `--nfc`, any non-ASCII text, raw or percent-encoded;
//! - in the scheme (from the syntax rung on): an uppercase letter;
//! - in the authority: userinfo, an IP literal, a `%`, non-ASCII, an uppercase letter, an
//!   empty port;
//! - for schemes with a row in the scheme table (scheme rung), what the row says, decided
//!   per row in one place ([`scheme::FastScheme::of`]): a port the row writes otherwise
//!   (the default port, leading zeros), for DNS hosts a host that is not a plain lowercase
//!   LDH name (IDNA could change it, or fail and warn: `xn--` labels and `--` in the third
//!   and fourth position included), `localhost` where the row drops it (`file`), and every
//!   record of a row whose special rule rewrites its path (`mailto:`, `urn:`); an empty
//!   path where the row says it means `/` is not refused but marked ([`Shape::adds_slash`]):
//!   such a record is not its own key, and only the runs that write keys take it, adding
//!   the `/` themselves;
//! - in the path, query and fragment: a percent-encoding the rung rewrites (lowercase hex,
//!   an unreserved octet, and in the `iri` form any octet `%80`–`%FF`), a dot segment in a
//!   path whose dots are removed, and raw non-ASCII in the `uri` form.
//!
//! The scan takes the path, query and fragment (and a DNS host) a block at a time (16 bytes,
//! 32 with AVX2, 64 with AVX-512): a block becomes a few bit masks, one bit per byte (the
//! bytes no component allows raw, `.`, `/`, and the rarer `%`, `#` and non-ASCII together;
//! for hosts, `.`, `-` and the bytes outside `a-z 0-9 - .`), and bit operations on the
//! masks answer the questions: where the record ends (the first disallowed byte must be its
//! line feed), where the host ends (the first byte outside `a-z 0-9 - .` must end the
//! authority or start a port), whether a `.` follows a `/` (a possible dot segment, checked
//! exactly then), whether a host label is empty or starts or ends with a hyphen. On x86_64
//! the masks come from SSE2 compares (part of the x86_64 baseline), or from AVX2 or AVX-512
//! where the processor has them; elsewhere, and as the reference they are tested against,
//! from a plain loop over the bytes. The rarer classes (`%`, `#`, non-ASCII, a dot segment) are
//! looked at again, byte by byte, only when the masks say the record holds them.
//! [`FastPath::take_lines_ending`] runs the scan over many lines in one loop, so that a run of
//! canonical lines costs the engine one call.
//!
//! # Layout
//!
//! The scan is written once, generic over a backend ([`blocks::Blocks`]: a block of bytes
//! as masks); each backend is a module beside the portable one, and the backend is chosen
//! in one place, [`Backend`]:
//! - [`blocks`]: the masks and the trait every backend implements;
//! - [`scalar`]: the portable backend, the reference the others are tested against;
//! - `vector`, `sse2`, `avx2` (x86_64): the SIMD masks written once over a few vector
//!   operations, and the two backends that supply them (AVX2 only behind the token that
//!   runtime detection makes; it classifies the bytes of a path, query or fragment by
//!   nibble table lookups instead, `vpshufb` being AVX2's);
//! - `avx512` (x86_64, where the compiler has the AVX-512 intrinsics: Rust 1.89 on, which
//!   the build script tells): 64 bytes a block, the nibble tables of `avx2`, and masks
//!   straight from the comparisons; behind its own token, and chosen first where the
//!   processor has AVX-512F and AVX-512BW;
//! - [`scheme`]: the record's scheme, and the per-row decision of the scheme table;
//! - [`authority`]: hosts and ports; [`tail`]: the path, query and fragment;
//! - [`lines`]: the run-of-lines scan.
//!
//! The rules come from the ladder's own table and helpers ([`crate::iri::scheme`]: rows and
//! ports; [`crate::iri::chars`], [`crate::iri::percent`]: character classes, triplets,
//! what the iri form may hold raw; [`crate::iri::host`]: LDH hosts; [`crate::iri::path`]:
//! dot segments) and from the conditions on [`Options`] that the ladder asks too
//! (`applies_nfc`, `applies_scheme_rows`, `rewrites_after_scheme_rung`). What is left here
//! is the byte classes the masks are made of, tested against those helpers.

mod authority;
mod blocks;
mod fields;
mod lines;
mod prefetch;
#[cfg(any(test, not(target_arch = "x86_64")))]
mod scalar;
mod scheme;
mod tail;
#[cfg(test)]
mod testkit;

#[cfg(target_arch = "x86_64")]
mod avx2;
// Compiled only by compilers that have the AVX-512 intrinsics (the build script's
// `irinorm_avx512`), whatever the crate's `rust-version` says.
#[cfg(all(target_arch = "x86_64", irinorm_avx512))]
#[clippy::msrv = "1.89"]
mod avx512;
#[cfg(target_arch = "x86_64")]
mod sse2;
#[cfg(target_arch = "x86_64")]
mod vector;

use crate::iri::find;
use crate::iri::scheme::SchemeRule;
use crate::ladder::{Form, Level, Options};
pub(crate) use blocks::Blocks;
use scheme::FastScheme;
pub(crate) use tail::{ends_crlf, look};

/// Work done with the masks of one backend ([`Backend::run`] picks it).
pub(crate) trait Task {
    /// What the work gives.
    type Output;
    /// Does the work with the masks of `lanes`.
    fn run<L: Blocks>(self, lanes: L) -> Self::Output;
}

/// The masks of this processor's backend, for scans of other shapes than the fast path's
/// (the `wayback` profile's, [`crate::ladder::compat`]): a [`Task`] run with [`Lanes::run`]
/// gets the same [`Blocks`] the fast path uses.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lanes(Backend);

impl Default for Lanes {
    fn default() -> Lanes {
        Lanes::detect()
    }
}

impl Lanes {
    /// The fastest backend this processor has.
    pub(crate) fn detect() -> Lanes {
        Lanes(Backend::detect())
    }

    /// Every backend this processor can run, the portable reference first (for tests).
    #[cfg(test)]
    pub(crate) fn every() -> Vec<Lanes> {
        let mut every = vec![Lanes(Backend::Scalar)];
        #[cfg(target_arch = "x86_64")]
        {
            every.push(Lanes(Backend::Sse2));
            every.extend(avx2::Avx2::detect().map(|l| Lanes(Backend::Avx2(l))));
        }
        #[cfg(all(target_arch = "x86_64", irinorm_avx512))]
        every.extend(avx512::Avx512::detect().map(|l| Lanes(Backend::Avx512(l))));
        every
    }

    /// Runs `task` with this backend's masks.
    #[inline(always)]
    pub(crate) fn run<T: Task>(self, task: T) -> T::Output {
        self.0.run(task)
    }
}

/// The name of the backend the fast path runs with on this processor: `avx512`, `avx2`,
/// `sse2` or `scalar`.
pub fn backend_name() -> &'static str {
    Backend::detect().name()
}

/// The backend that computes the masks: the one place it is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backend {
    /// AVX-512, 64 bytes a block, where the processor has it (and the compiler).
    #[cfg(all(target_arch = "x86_64", irinorm_avx512))]
    Avx512(avx512::Avx512),
    /// AVX2, 32 bytes a block, where the processor has it.
    #[cfg(target_arch = "x86_64")]
    Avx2(avx2::Avx2),
    /// SSE2, 16 bytes a block: every x86_64 processor has it.
    #[cfg(target_arch = "x86_64")]
    Sse2,
    /// The portable backend: elsewhere, and as the reference in tests.
    #[cfg(any(test, not(target_arch = "x86_64")))]
    Scalar,
}

impl Backend {
    /// The fastest backend this processor has.
    fn detect() -> Backend {
        #[cfg(all(target_arch = "x86_64", irinorm_avx512))]
        if let Some(lanes) = avx512::Avx512::detect() {
            return Backend::Avx512(lanes);
        }
        #[cfg(target_arch = "x86_64")]
        {
            match avx2::Avx2::detect() {
                Some(lanes) => Backend::Avx2(lanes),
                None => Backend::Sse2,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        Backend::Scalar
    }

    /// The backend's name, as `--version` prints it.
    fn name(self) -> &'static str {
        match self {
            #[cfg(all(target_arch = "x86_64", irinorm_avx512))]
            Backend::Avx512(_) => "avx512",
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(_) => "avx2",
            #[cfg(target_arch = "x86_64")]
            Backend::Sse2 => "sse2",
            #[cfg(any(test, not(target_arch = "x86_64")))]
            Backend::Scalar => "scalar",
        }
    }

    /// Runs `task` with this backend.
    #[inline(always)]
    fn run<T: Task>(self, task: T) -> T::Output {
        match self {
            #[cfg(all(target_arch = "x86_64", irinorm_avx512))]
            Backend::Avx512(lanes) => lanes.run(task),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(lanes) => lanes.run(task),
            #[cfg(target_arch = "x86_64")]
            Backend::Sse2 => task.run(sse2::Sse2),
            #[cfg(any(test, not(target_arch = "x86_64")))]
            Backend::Scalar => task.run(scalar::Scalar),
        }
    }
}

/// The task of [`FastPath::accepts_line`]: the record at the start of `s`.
struct Line<'a> {
    fast: &'a FastPath,
    s: &'a str,
}

impl Task for Line<'_> {
    type Output = Option<Shape>;

    #[inline(always)]
    fn run<L: Blocks>(self, lanes: L) -> Option<Shape> {
        let (fast, s) = (self.fast, self.s);
        match fast.look {
            0 => fast.scan_with::<L, 0>(lanes, s),
            look::LDH_REG => fast.scan_with::<L, { look::LDH_REG }>(lanes, s),
            _ => fast.scan_with::<L, { look::MARKS }>(lanes, s),
        }
    }
}

/// Where the components of a record that the fast path took lie, as its scan found them
/// (byte offsets into the record): enough for the work after the scheme rung (the protocol
/// rules, the SURT form) to need no second parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// The record's length.
    pub(crate) len: usize,
    /// Where the text after the scheme's `:` starts (0 without a scheme).
    pub(crate) after_scheme: usize,
    /// The authority, without its `//`, when there is one: its start and end. It has no
    /// userinfo and no IP literal above the string rung (the full ladder takes those).
    pub(crate) authority: Option<(usize, usize)>,
    /// Where the host ends (the port's `:`, or the end of the authority).
    pub(crate) host_end: usize,
    /// The host is a lowercase LDH name or empty (`a-z 0-9 - .` only).
    pub(crate) ldh_host: bool,
    /// The `.` of an LDH host, bit `k` for byte `k` of the host (hosts are under 64 bytes
    /// here); 0 for other hosts.
    pub(crate) host_dots: u64,
    /// The path, query or fragment holds a `?` or a `;` (always `true` unless the fast path
    /// looks for them: where protocol rules run).
    pub(crate) marks: bool,
    /// Where the path starts (the path, query and fragment run from here to the end).
    pub(crate) path: usize,
    /// Whether the record has a fragment.
    pub(crate) fragment: bool,
    /// Whether the record ends before a carriage return (and a line feed).
    pub(crate) crlf: bool,
    /// The path is empty and the scheme's row writes it `/` (RFC 3986 §6.2.3): the key is
    /// the record with a `/` inserted at `path`, so the record is not its own key. Only
    /// [`FastPath::take_lines_ending`] hands out such shapes, to runs that write keys.
    pub(crate) adds_slash: bool,
}

impl Shape {
    /// Whether the record is its own key at the scheme rung.
    #[inline]
    pub(crate) fn is_own_key(&self) -> bool {
        !self.adds_slash
    }
}

/// The fast path of one configured normalizer: what it may copy through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FastPath {
    /// False when the scheme table sends the records of a common scheme to the full ladder,
    /// and under a compatibility profile (whose key is never the record itself).
    enabled: bool,
    /// Under a compatibility profile: the profile keys runs of lines
    /// ([`crate::ladder::Normalizer::own_key_lines`]), with its own fast path where it has
    /// one.
    compat_runs: bool,
    /// The `string` rung: only validity matters.
    string_level: bool,
    /// The scheme table applies ([`Options::applies_scheme_rows`]).
    scheme_rows: bool,
    /// The `iri` form.
    iri: bool,
    drop_fragment: bool,
    /// NFC is in force ([`Options::applies_nfc`]).
    nfc: bool,
    /// Relative references go to the full ladder: `--absolute` refuses them, a base
    /// resolves them.
    absolute: bool,
    /// The rows of `http`, `https` and `file`, if the table applies, to answer the most
    /// common schemes without a lookup.
    http: Option<&'static SchemeRule>,
    https: Option<&'static SchemeRule>,
    file: Option<&'static SchemeRule>,
    /// The length of the longest scheme whose row writes an empty path `/` (0 where the
    /// table does not apply): where [`FastPath::shape_adding_slash`] looks for the `:`.
    slash_scheme_len: usize,

    /// The bits of the authority's byte classes that a host without a DNS rule must not
    /// have.
    host_mask: u8,
    /// What the scan of the path, query and fragment looks for on the way ([`look`]): `?`
    /// and `;` ([`Shape::marks`]) where protocol rules run.
    look: u8,
    /// The backend of the masks.
    backend: Backend,
}

impl FastPath {
    /// The fast path for a normalizer built with `o`.
    pub(crate) fn new(o: &Options) -> FastPath {
        let scheme_rows = o.applies_scheme_rows();
        let row = |name| FastPath::row_of(scheme_rows, name);
        let (http, https, file) = (row("http"), row("https"), row("file"));
        // The scan takes the records of these three rows without asking for their
        // decisions again: should one of them ever send its records to the full ladder,
        // the fast path is off.
        let shortcuts = [http, https, file]
            .into_iter()
            .flatten()
            .all(|r| FastScheme::of(r) != FastScheme::Ladder);
        FastPath {
            // A compatibility profile's key is never the record as it is.
            enabled: shortcuts && o.compat.is_none(),
            compat_runs: o.compat.is_some(),
            string_level: o.level == Level::String,
            scheme_rows,
            iri: o.form == Form::Iri,
            drop_fragment: o.drop_fragment,
            nfc: o.applies_nfc(),
            absolute: o.absolute || o.base.is_some(),
            http,
            https,
            file,
            slash_scheme_len: scheme::slash_scheme_len(scheme_rows),
            host_mask: if o.level == Level::String {
                authority::H_NOT_STRING
            } else {
                authority::H_NOT_LOWER_REG
            },
            look: FastPath::look_of(o),
            backend: Backend::detect(),
        }
    }

    /// What the scan of the tail looks for under `o` (see [`FastPath::look`]).
    fn look_of(o: &Options) -> u8 {
        if o.level == Level::Protocol && o.rules.is_some() {
            look::MARKS
        } else if !o.applies_scheme_rows() {
            look::LDH_REG
        } else {
            0
        }
    }

    /// The fast path turned off: [`FastPath::accepts`] always says `false`.
    pub(crate) fn off(self) -> FastPath {
        FastPath {
            enabled: false,
            compat_runs: false,
            ..self
        }
    }

    /// Whether a compatibility profile keys runs of lines (off with the fast path).
    #[inline]
    pub(crate) fn takes_compat_runs(&self) -> bool {
        self.compat_runs
    }

    /// Whether `s` is valid and is its own key: the full ladder would append exactly `s`,
    /// with no error and no warning. Also implies that the lenient repairs of a raw line
    /// (trimming, percent-encoding forbidden characters, `%25` for a stray `%`) would leave
    /// `s` as it is. `false` means only "not known", never "invalid".
    #[inline]
    pub(crate) fn accepts(&self, s: &str) -> bool {
        self.accepts_line(s) == Some(s.len())
    }

    /// [`FastPath::accepts`] for the record at the start of `rest`, which ends at the first
    /// line feed (or at the end of `rest`), without one carriage return before the line
    /// feed: its length, if it passes. `rest[len..]` then is empty or starts with `\n` or
    /// `\r\n`.
    #[inline]
    pub(crate) fn accepts_line(&self, rest: &str) -> Option<usize> {
        self.shape_of_line(rest).map(|shape| shape.len)
    }

    /// [`FastPath::accepts_line`] with where the record's components lie.
    #[inline]
    pub(crate) fn shape_of_line(&self, rest: &str) -> Option<Shape> {
        self.scan_line(rest).filter(Shape::is_own_key)
    }

    /// The shape of `record`, a line a run of lines handed out, scanned again (without the
    /// carriage return that may have followed it).
    pub(crate) fn rescan(&self, record: &str) -> Option<Shape> {
        self.scan_line(record)
            .filter(|shape| shape.len == record.len())
    }

    /// [`FastPath::accepts`] with where the record's components lie.
    #[inline]
    pub(crate) fn shape(&self, s: &str) -> Option<Shape> {
        self.shape_of_line(s).filter(|shape| shape.len == s.len())
    }

    /// Where the components of `s`, a whole record, lie, if the fast path takes it but it is
    /// not its own key only because its empty path is written `/` ([`Shape::adds_slash`]).
    /// A cheap look first, since the callers ask about records the fast path has refused
    /// already: such a record has a `//` after its first `:`, and no `/` after that.
    pub(crate) fn shape_adding_slash(&self, s: &str) -> Option<Shape> {
        let b = s.as_bytes();
        // A lowercase scheme (the fast path takes no other) with such a row, and `//`.
        if !b.first().is_some_and(u8::is_ascii_lowercase) {
            return None;
        }
        let head = &b[..b.len().min(self.slash_scheme_len + 1)];
        let colon = head.iter().position(|&c| c == b':')?;
        let authority_on = b[colon + 1..].strip_prefix(b"//")?;
        if find::find(b'/', authority_on).is_some() {
            return None;
        }
        self.scan_line(s)
            .filter(|shape| shape.adds_slash && shape.len == s.len())
    }

    /// The scan of the record at the start of `rest`: where its components lie, if the fast
    /// path takes it (its own key, or that but for the `/` of an empty path).
    #[inline]
    fn scan_line(&self, rest: &str) -> Option<Shape> {
        if !self.enabled {
            return None;
        }
        let shape = self.backend.run(Line {
            fast: self,
            s: rest,
        })?;
        // An empty record (before a CRLF) is an error.
        if shape.len == 0 || shape.len >= u32::MAX as usize {
            return None;
        }
        Some(shape)
    }

    /// [`FastPath::take_lines_ending`] taking every line that passes and ends in a line feed
    /// alone (for the tests).
    #[cfg(test)]
    pub(crate) fn accepts_lines(&self, rest: &str, max_line: usize) -> (usize, u64) {
        self.take_lines_ending::<false>(rest, max_line, |_, shape, _| shape.is_own_key())
    }

    /// [`FastPath::accepts`] asked about one field of each line, for as many lines in a row
    /// as pass and are taken by `take`: lines of at most `max_line` bytes that a line feed
    /// alone ends, whose field `field` finds (a range of the line, without its line feed)
    /// is its own key. `take` gets each such line and its field, in order, until it says
    /// `false`. Returns the bytes of the lines taken (line feeds included) and their
    /// number. One loop, in the backend, for the whole run.
    pub(crate) fn take_fields(
        &self,
        rest: &str,
        max_line: usize,
        field: impl FnMut(&[u8]) -> Option<std::ops::Range<usize>>,
        take: impl FnMut(&str, &str) -> bool,
    ) -> (usize, u64) {
        if !self.enabled {
            return (0, 0);
        }
        self.backend.run(fields::Fields {
            fast: self,
            rest,
            max_line,
            field,
            take,
        })
    }

    /// [`FastPath::accepts_line`] for as many lines as pass in a row and are taken by
    /// `take`: the length of the longest prefix of `rest` made of lines that pass, are at
    /// most `max_line` bytes long and end in a line feed alone (with `CRLF`, or in a
    /// carriage return and a line feed: for runs whose lines are not copied through as they
    /// are), line ends included, and how many lines that is. `take` is called with each line
    /// that passes (without its line end), its [`Shape`], and the text from its start to the
    /// end of `rest` (for writers that read ahead), in order, until it says `false`. One
    /// loop, in the backend, for the whole run (the runs of lines,
    /// [`crate::ladder::Normalizer::canonical_lines`]). Here a line also passes whose key is the line with
    /// a `/` for its empty path ([`Shape::adds_slash`]): `take` decides what to do with it.
    pub(crate) fn take_lines_ending<const CRLF: bool>(
        &self,
        rest: &str,
        max_line: usize,
        take: impl FnMut(&str, Shape, &[u8]) -> bool,
    ) -> (usize, u64) {
        if !self.enabled {
            return (0, 0);
        }
        self.backend.run(lines::Lines::<_, CRLF> {
            fast: self,
            rest,
            max_line,
            take,
        })
    }

    /// Whether the record at the start of `s` passes, with the masks of `lanes`: its length
    /// if so (see [`FastPath::accepts_line`]).
    #[inline(always)]
    fn scan_with<L: Blocks, const LOOK: u8>(&self, lanes: L, s: &str) -> Option<Shape> {
        let b = s.as_bytes();
        if matches!(b.first(), None | Some(b'\n')) {
            // An empty record is an error (one before a CRLF is refused by the callers).
            return None;
        }
        // Scheme, then authority (RFC 3986 §3.2: "//" up to the next / ? #), then path,
        // query and fragment up to the end of the record.
        let head = self.head(s)?;
        let mut pos = head.pos;
        let has_authority = b[pos..].starts_with(b"//");
        let (mut authority, mut host_end, mut ldh_host, mut host_dots) = (None, pos, false, 0);
        let mut adds_slash = false;
        if has_authority {
            let ends = self.authority::<L, LOOK>(lanes, b, pos + 2, head.row)?;
            authority = Some((pos + 2, ends.end));
            (host_end, ldh_host, host_dots) = (ends.host, ends.ldh, ends.dots);
            adds_slash = ends.adds_slash;
            pos = ends.end;
        }
        let tail = tail::scan_tail::<L, LOOK>(lanes, b, pos)?;
        if !self.tail_ok(s, pos, tail, head.absolute, has_authority) {
            return None;
        }
        Some(Shape {
            len: tail.end,
            after_scheme: head.pos,
            authority,
            host_end,
            ldh_host,
            host_dots,
            marks: tail.marks,
            path: pos,
            fragment: tail.hash,
            crlf: b.get(tail.end) == Some(&b'\r'),
            adds_slash,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_path_that_is_written_slash_is_marked_not_taken() {
        let f = FastPath::new(&Options::default());
        for record in [
            "http://a.b",
            "https://a.b:8080?q",
            "http://a.b#f",
            "telnet://a.b",
        ] {
            assert_eq!(f.accepts_line(record), None, "{record}");
            let shape = f.shape_adding_slash(record).unwrap();
            assert_eq!(
                (shape.adds_slash, shape.len),
                (true, record.len()),
                "{record}"
            );
            let line = format!("{record}\n");
            let (n, lines) = f.take_lines_ending::<false>(&line, 100, |_, s, _| s.adds_slash);
            assert_eq!((n, lines), (line.len(), 1), "{record}");
        }
        assert_eq!(f.accepts_lines("http://a.b/\nhttp://c.d\n", 100), (12, 1));
        // Records that are their own keys, or not taken at all, are not asked about here.
        for record in [
            "http://a.b/",
            "file://a.b",
            "foo://a.b",
            "http://A.b",
            "HTTP://a.b",
            "http://a.b?/",
        ] {
            assert_eq!(f.shape_adding_slash(record), None, "{record}");
        }
        assert!(f.shape_adding_slash("http://a.b\r\n").is_none());
        let string = FastPath::new(&Options::default().with_level(Level::String));
        assert!(string.accepts("http://a.b"));
    }

    #[test]
    fn shapes_carry_host_dots_and_marks_where_asked() {
        let record = "http://www.example.com:8080/A?b";
        let plain = FastPath::new(&Options::default()).shape(record).unwrap();
        assert_eq!((plain.host_end, plain.path), (22, 27));
        assert_eq!(plain.host_dots, 1 << 3 | 1 << 11);
        assert!(plain.ldh_host && plain.marks);
        let rules = crate::ladder::protocol::Rules::profile("crawler").map(std::sync::Arc::new);
        let crawler = FastPath::new(&Options {
            level: Level::Protocol,
            rules,
            ..Options::default()
        });
        assert!(crawler.shape(record).unwrap().marks);
        assert!(crawler.shape("http://www.example.com/a;b").unwrap().marks);
        assert!(!crawler.shape("http://www.example.com/a#b").unwrap().marks);
        // At the scheme rung, a host without a DNS rule is not known to be LDH: no dots.
        let other = FastPath::new(&Options::default())
            .shape("foo://a.b/")
            .unwrap();
        assert_eq!((other.ldh_host, other.host_dots), (false, 0));
        // Below it, where no host has a DNS rule, a registered name that is a lowercase LDH
        // name has its dots; one that is not (a sub-delim, an `xn--` label, an empty label,
        // 64 bytes or more) has none, and is taken all the same.
        for level in [Level::Syntax, Level::String] {
            let f = FastPath::new(&Options::default().with_level(level));
            let shape = f.shape(record).unwrap();
            assert_eq!((shape.ldh_host, shape.host_dots), (true, 1 << 3 | 1 << 11));
            let other = f.shape("foo://a.b/").unwrap();
            assert_eq!((other.ldh_host, other.host_dots), (true, 1 << 1));
            let long = format!("foo://{}/", "a".repeat(64));
            for not_ldh in [
                "foo://a!b.c/",
                "foo://xn--a.b/",
                "foo://a..b/",
                long.as_str(),
            ] {
                let shape = f.shape(not_ldh).unwrap();
                assert_eq!((shape.ldh_host, shape.host_dots), (false, 0), "{not_ldh}");
            }
            // An empty host, and a port: where the host and the authority end.
            let empty = f.shape("foo:///x").unwrap();
            assert_eq!((empty.ldh_host, empty.host_end, empty.path), (true, 6, 6));
            let port = f.shape("foo://a.b:8080/x").unwrap();
            assert_eq!((port.ldh_host, port.host_end, port.path), (true, 9, 14));
        }
    }

    #[test]
    fn records_end_at_a_line_feed() {
        let f = FastPath::new(&Options::default());
        assert_eq!(f.accepts_line("http://a/b\nHTTP://x"), Some(10));
        assert_eq!(f.accepts_line("foo://a\nb"), Some(7));
        assert_eq!(f.accepts_line("http://a\n/b"), None);
        assert_eq!(f.accepts_line("http://a/b\r\nx"), Some(10));
        assert_eq!(f.accepts_line("http://a/b\rx"), None);
        assert_eq!(f.accepts_line("http://a/b\r"), None);
        assert_eq!(f.accepts_line("http://a/b\r\r\n"), None);
        assert_eq!(f.accepts_line("a\r\n"), Some(1));
        assert!(!f.accepts("http://a/b\r"));
        assert_eq!(f.accepts_line("\nhttp://a/"), None);
        assert_eq!(f.accepts_line("\r\nhttp://a/"), None);
        assert_eq!(f.accepts_line("\r"), None);
        assert_eq!(f.accepts_line("a/b\nc:d"), Some(3));
        assert_eq!(f.accepts_line("ab\nc:d"), Some(2));
        assert_eq!(
            f.accepts_line("http://a/b/c/d/e/f/g/h/i/j/k/l/m\n/./"),
            Some(32)
        );
        assert!(!f.accepts("http://a/b\n"));
        assert!(f.accepts("http://a/b"));
        assert!(!f.off().accepts("http://a/b"));
    }

    #[test]
    fn every_backend_gives_the_same_answers() {
        let records = [
            "http://example.com/a/b?c#d",
            "https://example.com:8443/%20/\u{e9}",
            "file:///etc/x",
            "foo://Example.com/",
            "http://a/./b",
            "ws://example.com:80/",
        ];
        for options in [
            Options::default(),
            Options::default().with_form(Form::Iri),
            Options::default().with_level(Level::String),
        ] {
            let detected = FastPath::new(&options);
            let scalar = FastPath {
                backend: Backend::Scalar,
                ..detected
            };
            for r in records {
                assert_eq!(detected.accepts_line(r), scalar.accepts_line(r), "{r}");
            }
        }
    }

    #[test]
    fn options_the_fast_path_leaves_to_the_ladder() {
        let on = |o: Options| FastPath::new(&o).accepts("http://example.com/");
        assert!(on(Options::default()));
        // With a base, a record with a scheme is given back as it is (the ladder does not
        // resolve it); a relative reference is resolved by the full ladder.
        let base = || Options::default().with_base(Some("http://a/b/c".into()));
        assert!(on(base()));
        assert!(!FastPath::new(&base()).accepts("//example.com/"));
        assert!(!FastPath::new(&base()).accepts("/x"));
        assert!(!FastPath::new(&base()).accepts("x"));
        // The SURT form and the protocol rules rewrite the scheme-rung key the fast path
        // finds (the normalizer does that work); it still finds it.
        assert!(on(Options::default().with_form(Form::Surt)));
        let rules = crate::ladder::Rules::default();
        let protocol = Options::default()
            .with_level(Level::Protocol)
            .with_rules(Some(std::sync::Arc::new(rules)));
        assert!(on(protocol));
        assert!(on(Options::default().with_level(Level::Protocol)));
    }
}
