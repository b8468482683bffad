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
//! What sends a record to the full ladder:
//! - anything the lenient repairs would change (a space or another character URIs forbid, a
//!   `%` without two hex digits), a control character (a carriage return too, unless it is
//!   the one before the line feed), `[` or `]`, a second `#`, an empty record;
//! - options whose work this path does not do: a base, protocol rules, the SURT form, a
//!   fragment with `--drop-fragment`, a relative reference with `--absolute`; with `--nfc`,
//!   any non-ASCII text, raw or percent-encoded;
//! - in the scheme (from the syntax rung on): an uppercase letter;
//! - in the authority: userinfo, an IP literal, a `%`, non-ASCII, an uppercase letter, an
//!   empty port; for schemes with a table row (scheme rung), a default port, a port with
//!   leading zeros, a host that is not a plain lowercase LDH name (IDNA could change it,
//!   or fail and warn: `xn--` labels and `--` in the third and fourth position included),
//!   `file://localhost`, an empty path where the row says it means `/`, and every `mailto:`
//!   and `urn:` record;
//! - in the path, query and fragment: a percent-encoding the rung rewrites (lowercase hex,
//!   an unreserved octet, and in the `iri` form any octet `%80`–`%FF`), a dot segment in a
//!   path whose dots are removed, and raw non-ASCII in the `uri` form.
//!
//! The scan takes the path, query and fragment (and a DNS host) a block at a time (16 bytes,
//! or 32 with AVX2): a block becomes a few bit masks, one bit per byte (the bytes no component allows raw, `.`,
//! `/`, and the rarer `%`, `#` and non-ASCII together; for hosts, `.`, `-` and the bytes
//! outside `a-z 0-9 - .`), and bit operations on the masks answer the questions: where the
//! record ends (the first disallowed byte must be its line feed), where the host ends (the
//! first byte outside `a-z 0-9 - .` must end the authority or start a port), whether a `.`
//! follows a `/` (a possible dot segment, checked exactly then), whether a host label is
//! empty or starts or ends with a hyphen. On x86_64 the masks come from SSE2 compares (part
//! of the x86_64 baseline); elsewhere, and as the reference they are tested against, from
//! a plain loop over the bytes. The rarer classes (`%`, `#`, non-ASCII, a dot segment) are
//! looked at again, byte by byte, only when the masks say the record holds them.
//! [`FastPath::accepts_lines`] runs the scan over many lines in one loop, so that a run of
//! canonical lines costs the engine one call.

use crate::iri::chars::{self, is_bidi_format, is_iprivate, is_ucschar};
use crate::iri::path;
use crate::iri::scheme::{SchemeRule, Special, SCHEMES};
use crate::ladder::{Form, Level, Options};

// ---------------------------------------------------------------------------------------
// Blocks of 16 or 32 bytes as bit masks
// ---------------------------------------------------------------------------------------

/// What each byte of a block (16 or 32 bytes) of a path, query or fragment is: bit `k` of
/// a field describes byte `k`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct TailMasks {
    /// Bytes that no component allows raw: controls (the line feed too), space, the
    /// printable characters URIs forbid, `[`, `]`, DEL.
    bad: u32,
    /// `%`, `#` and the bytes of non-ASCII characters: less common, looked at again one by
    /// one when a record holds them.
    rare: u32,
    /// `.`.
    dot: u32,
    /// `/`.
    slash: u32,
}

/// What each byte of a block (16 or 32 bytes) of an authority is (bit `k` for byte `k`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct HostMasks {
    /// `.`.
    dot: u32,
    /// `-`.
    hyphen: u32,
    /// Bytes other than `a-z`, `0-9`, `-` and `.`.
    not_ldh: u32,
}

/// Whether byte `b` is one that no path, query or fragment allows raw.
#[cfg(any(test, not(target_arch = "x86_64")))]
const fn is_bad(b: u8) -> bool {
    b < 0x21
        || matches!(
            b,
            b'"' | b'<' | b'>' | b'[' | b'\\' | b']' | b'^' | b'`' | b'{' | b'|' | b'}' | 0x7f
        )
}

/// [`TailMasks`] one byte at a time (a block of up to 32 bytes): the reference for the SIMD
/// forms, and the form used where there is none.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn tail_masks_scalar(c: &[u8]) -> TailMasks {
    let mut m = TailMasks::default();
    for (k, &b) in c.iter().enumerate() {
        let bit = |yes: bool| u32::from(yes) << k;
        m.bad |= bit(b < 0x80 && is_bad(b));
        m.rare |= bit(b == b'%' || b == b'#' || b >= 0x80);
        m.dot |= bit(b == b'.');
        m.slash |= bit(b == b'/');
    }
    m
}

/// The bytes of a block of a path, query or fragment that are more than ordinary
/// characters: `bad | rare | dot` of its [`TailMasks`]. Most blocks have none.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn tail_special_scalar(c: &[u8]) -> u32 {
    let m = tail_masks_scalar(c);
    m.bad | m.rare | m.dot
}

/// [`HostMasks`] one byte at a time (a block of up to 32 bytes): the reference for the SIMD
/// forms, and the form used where there is none.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn host_masks_scalar(c: &[u8]) -> HostMasks {
    let mut m = HostMasks::default();
    for (k, &b) in c.iter().enumerate() {
        let bit = |yes: bool| u32::from(yes) << k;
        m.dot |= bit(b == b'.');
        m.hyphen |= bit(b == b'-');
        m.not_ldh |= bit(!(b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.'));
    }
    m
}

/// How blocks of a record become masks: the width of a block, and the code that computes
/// its masks. Every form gives the masks of its scalar reference ([`tail_masks_scalar`],
/// [`tail_special_scalar`], [`host_masks_scalar`]) for the same bytes. A value of the type
/// is the permission to run its code (see [`avx2::Avx2`]).
trait Blocks: Copy {
    /// Bytes per block: 16 or 32 (the masks are `u32`).
    const WIDTH: usize;
    /// [`tail_special_scalar`] of the block of `b` at `i` (see [`block`]).
    fn tail_special(self, b: &[u8], i: usize) -> u32;
    /// [`tail_masks_scalar`] of the block of `b` at `i`.
    fn tail_masks(self, b: &[u8], i: usize) -> TailMasks;
    /// [`host_masks_scalar`] of the block of `b` at `i`.
    fn host_masks(self, b: &[u8], i: usize) -> HostMasks;
}

/// The `N` bytes of `b` from `i`; past the end of `b`, line feeds (which end any record).
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
fn block<const N: usize>(b: &[u8], i: usize) -> [u8; N] {
    match b.get(i..i + N) {
        Some(c) => c.try_into().expect("N bytes"),
        None => padded(b, i),
    }
}

/// The `N` bytes of `b` from `i` where the text runs out before their end: the rest of the
/// text, then line feeds (which end any record).
#[inline(always)]
fn padded<const N: usize>(b: &[u8], i: usize) -> [u8; N] {
    let mut c = [b'\n'; N];
    let rest = &b[i.min(b.len())..];
    c[..rest.len()].copy_from_slice(rest);
    c
}

/// The scalar references as [`Blocks`] of 16 bytes: for processors without a SIMD form.
#[cfg(any(test, not(target_arch = "x86_64")))]
#[derive(Clone, Copy, Debug)]
struct Scalar;

#[cfg(any(test, not(target_arch = "x86_64")))]
impl Blocks for Scalar {
    const WIDTH: usize = 16;

    fn tail_special(self, b: &[u8], i: usize) -> u32 {
        tail_special_scalar(&block::<16>(b, i))
    }

    fn tail_masks(self, b: &[u8], i: usize) -> TailMasks {
        tail_masks_scalar(&block::<16>(b, i))
    }

    fn host_masks(self, b: &[u8], i: usize) -> HostMasks {
        host_masks_scalar(&block::<16>(b, i))
    }
}

/// The few vector operations the SIMD masks are made of, on the 16 bytes of an SSE2 register
/// or the 32 of an AVX2 one: the masks are computed once, in [`simd_tail_special`],
/// [`simd_tail_masks`] and [`simd_host_masks`], for either.
#[cfg(target_arch = "x86_64")]
trait Vector: Copy {
    /// Bytes per vector.
    const WIDTH: usize;
    /// The block of `b` at `i` (see [`padded`] for the end of the text).
    fn load(b: &[u8], i: usize) -> Self;
    /// `x` in every byte.
    fn splat(x: u8) -> Self;
    /// Bytes equal in `self` and `o`: all ones, else all zeros.
    fn eq(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    /// Bytewise wrapping subtraction.
    fn sub(self, o: Self) -> Self;
    /// Bytewise unsigned minimum.
    fn min(self, o: Self) -> Self;
    /// Bytes of `self` below those of `o`, as signed bytes.
    fn lt(self, o: Self) -> Self;
    /// The top bit of each byte, bit `k` for byte `k`.
    fn bits(self) -> u32;
}

/// Bytes equal to `x`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn eq_byte<V: Vector>(v: V, x: u8) -> V {
    v.eq(V::splat(x))
}

/// Bytes in `lo..lo + n`, unsigned: `v - lo` (wrapping) is at most `n - 1`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn within<V: Vector>(v: V, lo: u8, n: u8) -> V {
    let d = v.sub(V::splat(lo));
    d.min(V::splat(n - 1)).eq(d)
}

/// Controls, space, and non-ASCII bytes: below 0x21 as signed bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn low_or_high<V: Vector>(v: V) -> V {
    v.lt(V::splat(0x21))
}

/// The printable ASCII characters that no component allows raw, and DEL.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn forbidden<V: Vector>(v: V) -> V {
    // '<' and '>' are 0x3C and 0x3E: with bit 1 set, both read 0x3E.
    let angle = eq_byte(v.or(V::splat(2)), b'>');
    let quotes = eq_byte(v, b'"').or(eq_byte(v, b'`'));
    // '[' '\' ']' '^', and '{' '|' '}'.
    let brackets = within(v, b'[', 4).or(within(v, b'{', 3));
    quotes.or(eq_byte(v, 0x7f).or(angle)).or(brackets)
}

/// [`tail_special_scalar`] of the block of `b` at `i`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn simd_tail_special<V: Vector>(b: &[u8], i: usize) -> u32 {
    let v = V::load(b, i);
    let flags = eq_byte(v, b'%').or(eq_byte(v, b'#')).or(eq_byte(v, b'.'));
    low_or_high(v).or(forbidden(v)).or(flags).bits()
}

/// [`tail_masks_scalar`] of the block of `b` at `i`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn simd_tail_masks<V: Vector>(b: &[u8], i: usize) -> TailMasks {
    let v = V::load(b, i);
    let high = v.bits();
    TailMasks {
        // The non-ASCII bytes are taken out of `low_or_high` again.
        bad: low_or_high(v).or(forbidden(v)).bits() & !high,
        // The top bit of a non-ASCII byte is set already.
        rare: eq_byte(v, b'%').or(eq_byte(v, b'#')).or(v).bits(),
        dot: eq_byte(v, b'.').bits(),
        slash: eq_byte(v, b'/').bits(),
    }
}

/// [`host_masks_scalar`] of the block of `b` at `i`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn simd_host_masks<V: Vector>(b: &[u8], i: usize) -> HostMasks {
    let v = V::load(b, i);
    let dot = eq_byte(v, b'.');
    let hyphen = eq_byte(v, b'-');
    let ldh = within(v, b'a', 26)
        .or(within(v, b'0', 10))
        .or(dot.or(hyphen));
    HostMasks {
        dot: dot.bits(),
        hyphen: hyphen.bits(),
        not_ldh: !ldh.bits() & (u32::MAX >> (32 - V::WIDTH)),
    }
}

/// The masks with SSE2, sixteen bytes at a time in a handful of instructions.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use super::{Blocks, HostMasks, TailMasks, Vector};
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8,
        _mm_or_si128, _mm_set1_epi8, _mm_sub_epi8,
    };

    // SAFETY, for every `unsafe` block of this module: the intrinsics need SSE2, which every
    // x86_64 processor has (it is part of the x86_64 baseline, enabled on every x86_64
    // target); the one load, `_mm_loadu_si128`, reads 16 bytes (of `b` or of a padded copy)
    // and needs no alignment. Nothing else is unsafe about them: they compute on values.

    /// SSE2 (every x86_64 processor has it).
    #[derive(Clone, Copy, Debug)]
    pub(super) struct Sse2;

    /// An SSE2 register.
    #[derive(Clone, Copy)]
    struct V128(__m128i);

    impl Vector for V128 {
        const WIDTH: usize = 16;

        #[inline(always)]
        fn load(b: &[u8], i: usize) -> V128 {
            let load = |c: &[u8]| {
                // SAFETY: see the module comment; `c` holds 16 bytes.
                V128(unsafe { _mm_loadu_si128(c.as_ptr().cast()) })
            };
            match b.get(i..i + 16) {
                Some(c) => load(c),
                None => load(&super::padded::<16>(b, i)),
            }
        }

        #[inline(always)]
        fn splat(x: u8) -> V128 {
            // SAFETY: see the module comment.
            V128(unsafe { _mm_set1_epi8(x as i8) })
        }

        #[inline(always)]
        fn eq(self, o: V128) -> V128 {
            // SAFETY: see the module comment.
            V128(unsafe { _mm_cmpeq_epi8(self.0, o.0) })
        }

        #[inline(always)]
        fn or(self, o: V128) -> V128 {
            // SAFETY: see the module comment.
            V128(unsafe { _mm_or_si128(self.0, o.0) })
        }

        #[inline(always)]
        fn sub(self, o: V128) -> V128 {
            // SAFETY: see the module comment.
            V128(unsafe { _mm_sub_epi8(self.0, o.0) })
        }

        #[inline(always)]
        fn min(self, o: V128) -> V128 {
            // SAFETY: see the module comment.
            V128(unsafe { _mm_min_epu8(self.0, o.0) })
        }

        #[inline(always)]
        fn lt(self, o: V128) -> V128 {
            // SAFETY: see the module comment.
            V128(unsafe { _mm_cmplt_epi8(self.0, o.0) })
        }

        #[inline(always)]
        fn bits(self) -> u32 {
            // SAFETY: see the module comment.
            unsafe { _mm_movemask_epi8(self.0) as u32 }
        }
    }

    impl Blocks for Sse2 {
        const WIDTH: usize = 16;

        #[inline(always)]
        fn tail_special(self, b: &[u8], i: usize) -> u32 {
            super::simd_tail_special::<V128>(b, i)
        }

        #[inline(always)]
        fn tail_masks(self, b: &[u8], i: usize) -> TailMasks {
            super::simd_tail_masks::<V128>(b, i)
        }

        #[inline(always)]
        fn host_masks(self, b: &[u8], i: usize) -> HostMasks {
            super::simd_host_masks::<V128>(b, i)
        }
    }
}

/// The masks with AVX2, 32 bytes at a time, for processors that have AVX2 (and BMI1, BMI2,
/// LZCNT and POPCNT, which the code around them is compiled to use).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Blocks, HostMasks, TailMasks, Vector};
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_loadu_si256, _mm256_min_epu8,
        _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm256_sub_epi8,
    };

    /// The processor has AVX2, BMI1, BMI2, LZCNT and POPCNT: only [`Avx2::detect`] makes
    /// one, after asking the processor, so holding one is the permission to run AVX2 code.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(super) struct Avx2 {
        _private: (),
    }

    impl Avx2 {
        /// `Some` where the processor has the features.
        pub(super) fn detect() -> Option<Avx2> {
            let yes = std::is_x86_feature_detected!("avx2")
                && std::is_x86_feature_detected!("bmi1")
                && std::is_x86_feature_detected!("bmi2")
                && std::is_x86_feature_detected!("lzcnt")
                && std::is_x86_feature_detected!("popcnt");
            yes.then_some(Avx2 { _private: () })
        }
    }

    /// An AVX2 register. Private to this module, and only made by the `Blocks` methods of
    /// [`Avx2`], which take one: so a `V256` exists only where the processor has AVX2.
    #[derive(Clone, Copy)]
    struct V256(__m256i);

    // SAFETY, for every `unsafe` block of this module: the intrinsics need AVX2, which the
    // processor has wherever a `V256` is used (see `V256`); the one load,
    // `_mm256_loadu_si256`, reads 32 bytes (of `b` or of a padded copy) and needs no
    // alignment. Nothing else is unsafe about them. These functions are inlined into the
    // ones compiled with AVX2 enabled (`FastPath::accepts_lines_avx2`,
    // `FastPath::scan_avx2`), where they become single instructions.

    impl Vector for V256 {
        const WIDTH: usize = 32;

        #[inline(always)]
        fn load(b: &[u8], i: usize) -> V256 {
            let load = |c: &[u8]| {
                // SAFETY: see the module comment; `c` holds 32 bytes.
                V256(unsafe { _mm256_loadu_si256(c.as_ptr().cast()) })
            };
            match b.get(i..i + 32) {
                Some(c) => load(c),
                None => load(&super::padded::<32>(b, i)),
            }
        }

        #[inline(always)]
        fn splat(x: u8) -> V256 {
            // SAFETY: see the module comment.
            V256(unsafe { _mm256_set1_epi8(x as i8) })
        }

        #[inline(always)]
        fn eq(self, o: V256) -> V256 {
            // SAFETY: see the module comment.
            V256(unsafe { _mm256_cmpeq_epi8(self.0, o.0) })
        }

        #[inline(always)]
        fn or(self, o: V256) -> V256 {
            // SAFETY: see the module comment.
            V256(unsafe { _mm256_or_si256(self.0, o.0) })
        }

        #[inline(always)]
        fn sub(self, o: V256) -> V256 {
            // SAFETY: see the module comment.
            V256(unsafe { _mm256_sub_epi8(self.0, o.0) })
        }

        #[inline(always)]
        fn min(self, o: V256) -> V256 {
            // SAFETY: see the module comment.
            V256(unsafe { _mm256_min_epu8(self.0, o.0) })
        }

        #[inline(always)]
        fn lt(self, o: V256) -> V256 {
            // `o > self`, signed (AVX2 has only the one order).
            // SAFETY: see the module comment.
            V256(unsafe { _mm256_cmpgt_epi8(o.0, self.0) })
        }

        #[inline(always)]
        fn bits(self) -> u32 {
            // SAFETY: see the module comment.
            unsafe { _mm256_movemask_epi8(self.0) as u32 }
        }
    }

    impl Blocks for Avx2 {
        const WIDTH: usize = 32;

        #[inline(always)]
        fn tail_special(self, b: &[u8], i: usize) -> u32 {
            super::simd_tail_special::<V256>(b, i)
        }

        #[inline(always)]
        fn tail_masks(self, b: &[u8], i: usize) -> TailMasks {
            super::simd_tail_masks::<V256>(b, i)
        }

        #[inline(always)]
        fn host_masks(self, b: &[u8], i: usize) -> HostMasks {
            super::simd_host_masks::<V256>(b, i)
        }
    }
}

/// The bits below bit `n` (`n <= 64`).
#[inline(always)]
fn low_bits(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// What the scan of a path, query and fragment found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tail {
    /// The end of the record: its line feed (or the carriage return before one), or the
    /// end of the text.
    end: usize,
    /// It holds a `%`.
    pct: bool,
    /// It holds a `#` (just one).
    hash: bool,
    /// It holds non-ASCII characters.
    high: bool,
    /// A `.` starts a segment: first in the path, or after a `/` (a dot segment may be
    /// there; a `.` in the query after a `/` counts too).
    dots: bool,
}

/// Scans the path, query and fragment that start at `from`, to the end of the record.
/// `None` when a byte that no component allows raw comes before the line feed (a carriage
/// return just before it excepted), or when there is a second `#`.
#[inline(always)]
fn scan_tail<L: Blocks>(lanes: L, b: &[u8], from: usize) -> Option<Tail> {
    let mut i = from;
    let (mut rare, mut dots) = (0u32, 0u32);
    let end = loop {
        if lanes.tail_special(b, i) == 0 {
            // Ordinary characters only (the common case).
            i += L::WIDTH;
            continue;
        }
        let m = lanes.tail_masks(b, i);
        // A '/' before the block, or the start of the path (where a '.' starts a segment).
        let carry = u32::from(i == from || b[i - 1] == b'/');
        let keep = if m.bad != 0 {
            (1u32 << m.bad.trailing_zeros()) - 1
        } else {
            u32::MAX
        };
        rare |= m.rare & keep;
        dots |= ((m.slash << 1) | carry) & m.dot & keep;
        if m.bad != 0 {
            break i + m.bad.trailing_zeros() as usize;
        }
        i += L::WIDTH;
    };
    // The record ends at its line feed, or at the carriage return before one (past the end
    // of the text, the block read line feeds).
    if !matches!(b.get(end), None | Some(b'\n')) && !ends_crlf(b, end) {
        return None;
    }
    let mut tail = Tail {
        end,
        pct: false,
        hash: false,
        high: false,
        dots: dots != 0,
    };
    if rare != 0 {
        // '%', '#' or non-ASCII: which ones, and not two '#'.
        let t = &b[from..end];
        let mut hashes = memchr::memchr_iter(b'#', t);
        tail.hash = hashes.next().is_some();
        if hashes.next().is_some() {
            return None;
        }
        tail.pct = memchr::memchr(b'%', t).is_some();
        tail.high = !t.is_ascii();
    }
    Some(tail)
}

/// Whether `b[i..]` starts with a carriage return and a line feed.
#[inline]
fn ends_crlf(b: &[u8], i: usize) -> bool {
    b.get(i..i + 2) == Some(b"\r\n")
}

/// The plain form of [`scan_tail`], kept as the reference it is tested against.
#[cfg(test)]
fn scan_tail_reference(b: &[u8], from: usize) -> Option<Tail> {
    let end = b[from..]
        .iter()
        .position(|&c| c < 0x80 && is_bad(c))
        .map_or(b.len(), |k| from + k);
    if end < b.len() && b[end] != b'\n' && !b[end..].starts_with(b"\r\n") {
        return None;
    }
    let t = &b[from..end];
    if t.iter().filter(|&&c| c == b'#').count() > 1 {
        return None;
    }
    Some(Tail {
        end,
        pct: t.contains(&b'%'),
        hash: t.contains(&b'#'),
        high: !t.is_ascii(),
        dots: t.first() == Some(&b'.') || t.windows(2).any(|w| w == b"/."),
    })
}

// ---------------------------------------------------------------------------------------
// Byte classes for the other authorities
// ---------------------------------------------------------------------------------------

/// A byte that the syntax rung would change or reject in an ASCII `reg-name`: anything but
/// lowercase `unreserved` and `sub-delims` (`:` and the authority's end excepted).
const H_NOT_LOWER_REG: u8 = 1 << 0;
/// A byte that a `reg-name` cannot hold raw: anything but `unreserved` and `sub-delims`
/// (`:` and the authority's end excepted).
const H_NOT_STRING: u8 = 1 << 1;
/// `:`.
const H_COLON: u8 = 1 << 2;
/// A byte that ends the authority: `/`, `?`, `#`, or the line feed that ends the record.
const H_END: u8 = 1 << 3;

const fn build_host_table() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        let mut f = 0u8;
        if b == b':' {
            f |= H_COLON;
        } else if matches!(b, b'/' | b'?' | b'#' | b'\n') {
            f |= H_END;
        } else {
            let reg = chars::ASCII_CLASS[i] & (chars::UNRESERVED | chars::SUB_DELIM) != 0;
            if !reg {
                f |= H_NOT_STRING;
            }
            if !reg || b.is_ascii_uppercase() {
                f |= H_NOT_LOWER_REG;
            }
        }
        t[i] = f;
        i += 1;
    }
    t
}

/// The class of every byte value, for authorities without a DNS rule.
static HOST_CLASS: [u8; 256] = build_host_table();

/// Scans `b` from `from` to the first byte whose class (in `table`) has a bit of `stop`.
/// Returns its index (or `b.len()`) and the OR of the classes of the bytes before it.
#[inline]
fn scan_to_stop(b: &[u8], from: usize, table: &[u8; 256], stop: u8) -> (usize, u8) {
    let mut acc = 0u8;
    for (k, &c) in b[from..].iter().enumerate() {
        let class = table[c as usize];
        if class & stop != 0 {
            return (from + k, acc);
        }
        acc |= class;
    }
    (b.len(), acc)
}

// ---------------------------------------------------------------------------------------
// The fast path
// ---------------------------------------------------------------------------------------

/// The fast path of one configured normalizer: what it may copy through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FastPath {
    /// False when an option needs work the fast path does not do (base, rules, SURT).
    enabled: bool,
    /// The `string` rung: only validity matters.
    string_level: bool,
    /// The `scheme` rung or above: the scheme table applies.
    scheme_rules: bool,
    /// The `iri` form.
    iri: bool,
    drop_fragment: bool,
    /// `--nfc` at the syntax rung or above.
    nfc: bool,
    absolute: bool,
    /// The table rows of `http`, `https` and `file` at the scheme rung (none below it), to
    /// answer the most common schemes without a lookup.
    http: Option<&'static SchemeRule>,
    https: Option<&'static SchemeRule>,
    file: Option<&'static SchemeRule>,
    /// The bits of [`HOST_CLASS`] that a host without a DNS rule must not have.
    host_mask: u8,
    /// The AVX2 form of the masks, where the processor has it.
    #[cfg(target_arch = "x86_64")]
    avx2: Option<avx2::Avx2>,
}

impl FastPath {
    /// The fast path for a normalizer built with `o`.
    pub(crate) fn new(o: &Options) -> FastPath {
        let protocol_rules = o.level == Level::Protocol && o.rules.is_some();
        let scheme_rules = o.level >= Level::Scheme;
        let row = |name: &str| {
            if scheme_rules {
                lookup(name.as_bytes())
            } else {
                None
            }
        };
        FastPath {
            enabled: o.base.is_none() && !protocol_rules && o.form != Form::Surt,
            string_level: o.level == Level::String,
            scheme_rules,
            iri: o.form == Form::Iri,
            drop_fragment: o.drop_fragment,
            nfc: o.nfc && o.level >= Level::Syntax,
            absolute: o.absolute,
            http: row("http"),
            https: row("https"),
            file: row("file"),
            host_mask: if o.level == Level::String {
                H_NOT_STRING
            } else {
                H_NOT_LOWER_REG
            },
            #[cfg(target_arch = "x86_64")]
            avx2: avx2::Avx2::detect(),
        }
    }

    /// The fast path turned off: [`FastPath::accepts`] always says `false`.
    pub(crate) fn off(self) -> FastPath {
        FastPath {
            enabled: false,
            ..self
        }
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
        if !self.enabled {
            return None;
        }
        let len = self.scan(rest)?;
        if len >= u32::MAX as usize {
            return None;
        }
        Some(len)
    }

    /// [`FastPath::accepts_line`] for as many lines as pass in a row: the length of the
    /// longest prefix of `rest` made of lines that pass, are at most `max_line` bytes long
    /// and end in a line feed alone (not CRLF), line feeds included, and how many lines
    /// that is (the engine's [`crate::stream::Operation::pass_through_lines`]). One call for
    /// a run of lines keeps the per-line work to the scan itself.
    pub(crate) fn accepts_lines(&self, rest: &str, max_line: usize) -> (usize, u64) {
        if !self.enabled {
            return (0, 0);
        }
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(lanes) = self.avx2 {
                // SAFETY: an `Avx2` exists only where the processor has its features.
                return unsafe { self.accepts_lines_avx2(lanes, rest, max_line) };
            }
            self.accepts_lines_with(sse2::Sse2, rest, max_line)
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.accepts_lines_with(Scalar, rest, max_line)
    }

    /// [`FastPath::accepts_lines_with`] compiled with AVX2 and BMI enabled: 32-byte blocks,
    /// and the shorter encodings and bit instructions they bring to the code around them.
    ///
    /// # Safety
    /// The processor must have AVX2, BMI1, BMI2, LZCNT and POPCNT (`lanes` says it does).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    unsafe fn accepts_lines_avx2(
        &self,
        lanes: avx2::Avx2,
        rest: &str,
        max_line: usize,
    ) -> (usize, u64) {
        self.accepts_lines_with(lanes, rest, max_line)
    }

    /// The body of [`FastPath::accepts_lines`], with the masks of `lanes`.
    #[inline(always)]
    fn accepts_lines_with<L: Blocks>(&self, lanes: L, rest: &str, max_line: usize) -> (usize, u64) {
        let (mut at, mut lines) = (0, 0);
        let b = rest.as_bytes();
        // `at` follows a line feed, so slicing there is on a char boundary.
        while let Some(line) = rest.get(at..) {
            match self.scan_with(lanes, line) {
                Some(n) if n <= max_line && b.get(at + n) == Some(&b'\n') => {
                    at += n + 1;
                    lines += 1;
                }
                _ => break,
            }
        }
        (at, lines)
    }

    /// The body of [`FastPath::accepts_line`], with the fastest masks this processor has.
    #[inline]
    fn scan(&self, s: &str) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(lanes) = self.avx2 {
                // SAFETY: an `Avx2` exists only where the processor has its features.
                return unsafe { self.scan_avx2(lanes, s) };
            }
            self.scan_with(sse2::Sse2, s)
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.scan_with(Scalar, s)
    }

    /// [`FastPath::scan_with`] compiled with AVX2 and BMI enabled.
    ///
    /// # Safety
    /// The processor must have AVX2, BMI1, BMI2, LZCNT and POPCNT (`lanes` says it does).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    unsafe fn scan_avx2(&self, lanes: avx2::Avx2, s: &str) -> Option<usize> {
        self.scan_with(lanes, s)
    }

    /// Whether the record at the start of `s` passes, with the masks of `lanes`: its length
    /// if so (see [`FastPath::accepts_line`]).
    #[inline(always)]
    fn scan_with<L: Blocks>(&self, lanes: L, s: &str) -> Option<usize> {
        let b = s.as_bytes();
        if matches!(b.first(), None | Some(b'\n')) {
            // An empty record is an error.
            return None;
        }
        let canon = !self.string_level;

        // Scheme (RFC 3986 §3.1): the text before a ':' that comes before any / ? #.
        let rule: Option<&'static SchemeRule>;
        let has_scheme;
        let mut pos;
        if b.starts_with(b"https://") {
            (rule, has_scheme, pos) = (self.https, true, 6);
        } else if b.starts_with(b"http://") {
            (rule, has_scheme, pos) = (self.http, true, 5);
        } else if b.starts_with(b"file://") {
            (rule, has_scheme, pos) = (self.file, true, 5);
        } else {
            let mut i = 0;
            while i < b.len() && chars::is(b[i], chars::SCHEME) {
                i += 1;
            }
            if i < b.len() && b[i] == b':' {
                let scheme = &b[..i];
                if i == 0 || !scheme[0].is_ascii_alphabetic() {
                    return None;
                }
                if canon && scheme.iter().any(u8::is_ascii_uppercase) {
                    return None;
                }
                rule = if self.scheme_rules {
                    lookup(scheme)
                } else {
                    None
                };
                if rule.is_some_and(|r| matches!(r.special, Special::Mailto | Special::Urn)) {
                    return None;
                }
                has_scheme = true;
                pos = i + 1;
            } else {
                // A relative reference, unless a ':' comes first among : / ? # in the
                // record (an invalid scheme: the full ladder reports it).
                let first = b[i..]
                    .iter()
                    .position(|&c| matches!(c, b':' | b'/' | b'?' | b'#' | b'\n'));
                if first.is_some_and(|k| b[i + k] == b':') || self.absolute {
                    return None;
                }
                (rule, has_scheme, pos) = (None, false, 0);
            }
        }

        // Authority (RFC 3986 §3.2): "//" up to the next / ? # (or the end of the record).
        let has_authority = b[pos..].starts_with(b"//");
        if has_authority {
            let start = pos + 2;
            pos = match rule {
                Some(r) if r.dns_host => self.dns_authority(lanes, b, start, r)?,
                _ => {
                    let (end, acc) = scan_to_stop(b, start, &HOST_CLASS, H_END);
                    if !self.reg_authority_ok(&b[start..end], acc) {
                        return None;
                    }
                    end
                }
            };
            if rule.is_some_and(|r| r.empty_path_is_slash)
                && matches!(b.get(pos), None | Some(b'?' | b'#' | b'\n'))
            {
                return None;
            }
        }

        // Path, query and fragment, up to the end of the record.
        let tail = scan_tail(lanes, b, pos)?;
        let end = tail.end;
        let t = &b[pos..end];
        if tail.hash && self.drop_fragment {
            return None;
        }
        if tail.pct && !self.percent_ok(t) {
            return None;
        }
        if tail.high {
            // The uri form encodes raw non-ASCII; NFC may change it.
            if (canon && !self.iri) || self.nfc {
                return None;
            }
            if !non_ascii_ok(s.get(pos..end)?) {
                return None;
            }
        }
        if canon && tail.dots {
            // Dot segments go from any path but a relative-path reference's (SPEC §3).
            let path_end = memchr::memchr2(b'?', b'#', t).unwrap_or(t.len());
            let path = s.get(pos..pos + path_end)?;
            let remove_dots = has_scheme || has_authority || path.starts_with('/');
            if remove_dots && path::has_dot_segments(path) {
                return None;
            }
        }
        Some(end)
    }

    /// For a scheme whose hosts are DNS names (scheme rung): the end of the authority that
    /// starts at `start`, if it is valid and already canonical. The host must be empty or
    /// a lowercase LDH name, exactly what the fast path of [`crate::iri::host::dns_host`] takes
    /// (labels of letters, digits and hyphens, 1–63 octets, no hyphen first or last, no
    /// `--` in the third and fourth position, so no `xn--` label; one trailing root dot
    /// allowed), which is its own A-label and U-label form; not `localhost` for `file`; no
    /// userinfo (nor anything else outside `a-z 0-9 - . :`); a canonical port if any.
    #[inline(always)]
    fn dns_authority<L: Blocks>(
        &self,
        lanes: L,
        b: &[u8],
        start: usize,
        rule: &SchemeRule,
    ) -> Option<usize> {
        // The host: the bytes of `a-z 0-9 - .` from `start`, up to 64 of them, one block of
        // masks at a time.
        let (mut not_ldh, mut dot, mut hyphen) = (0u64, 0u64, 0u64);
        for k in 0..64 / L::WIDTH {
            let at = L::WIDTH * k;
            let m = lanes.host_masks(b, start + at);
            not_ldh |= u64::from(m.not_ldh) << at;
            dot |= u64::from(m.dot) << at;
            hyphen |= u64::from(m.hyphen) << at;
            if m.not_ldh != 0 {
                break;
            }
        }
        if not_ldh == 0 {
            // A host of 64 bytes or more: the full ladder.
            return None;
        }
        let host_len = not_ldh.trailing_zeros() as usize;
        // What follows the host: the end of the authority, or a port and then the end.
        let is_end = |at: usize| matches!(b.get(at), None | Some(b'/' | b'?' | b'#' | b'\n'));
        let mut end = start + host_len;
        if b.get(end) == Some(&b':') {
            let port = end + 1;
            end = b[port..]
                .iter()
                .position(|c| !c.is_ascii_digit())
                .map_or(b.len(), |k| port + k);
            if !is_end(end) || !self.port_ok(&b[port..end], Some(rule)) {
                return None;
            }
        } else if !is_end(end) {
            // Userinfo, an IP literal, or anything else: the full ladder.
            return None;
        }
        if host_len > 0 {
            // One trailing root dot is allowed; the labels before it must be LDH labels
            // (each at most 63 octets, as the whole host is).
            let body = host_len - ((dot >> (host_len - 1)) & 1) as usize;
            if body == 0 {
                return None;
            }
            let (d, h) = (dot & low_bits(body), hyphen & low_bits(body));
            let last = 1u64 << (body - 1);
            // No empty label: no '.' first or last, no "..".
            if d & 1 != 0 || d & last != 0 || d & (d >> 1) != 0 {
                return None;
            }
            if h != 0 {
                let host = &b[start..start + host_len];
                if h & (h >> 1) != 0 {
                    // "--" may stand in the third and fourth position of a label.
                    if !is_lowercase_ldh_host(host) {
                        return None;
                    }
                } else if h & 1 != 0 || h & last != 0 || d & (h >> 1) != 0 || h & (d >> 1) != 0 {
                    // A label starts or ends with '-'.
                    return None;
                }
            }
            if rule.special == Special::File && &b[start..start + host_len] == b"localhost" {
                return None;
            }
        }
        Some(end)
    }

    /// Whether the authority `a` (without its `//`) of a scheme without a DNS rule is valid
    /// and written as the rung writes it: no userinfo, no IP literal, no `%`, an ASCII host
    /// that is lowercase from the syntax rung on, a port in canonical form. `acc` is the OR
    /// of the [`HOST_CLASS`] classes of its bytes.
    #[inline]
    fn reg_authority_ok(&self, a: &[u8], acc: u8) -> bool {
        // RFC 3987 §5.3.2.1: an ASCII host is lowercased.
        if acc & self.host_mask != 0 {
            return false;
        }
        if acc & H_COLON == 0 {
            return true;
        }
        let colon = memchr::memchr(b':', a).unwrap_or(a.len());
        self.port_ok(&a[colon + 1..], None)
    }

    /// Whether the port `p` (without its `:`) is valid and written as the rung writes it.
    #[inline]
    fn port_ok(&self, p: &[u8], rule: Option<&SchemeRule>) -> bool {
        if !p.iter().all(u8::is_ascii_digit) {
            return false;
        }
        if self.string_level {
            return true;
        }
        if p.is_empty() {
            return false;
        }
        match rule {
            Some(r) => {
                !(p.len() > 1 && p[0] == b'0') && r.default_port.map(str::as_bytes) != Some(p)
            }
            None => true,
        }
    }

    /// Whether every `%` of `tail` starts a valid triplet that the rung keeps as it is.
    fn percent_ok(&self, tail: &[u8]) -> bool {
        for i in memchr::memchr_iter(b'%', tail) {
            let (Some(&hi), Some(&lo)) = (tail.get(i + 1), tail.get(i + 2)) else {
                return false;
            };
            if self.string_level {
                if !(chars::is(hi, chars::HEX) && chars::is(lo, chars::HEX)) {
                    return false;
                }
                continue;
            }
            // Canonical: uppercase hex digits (RFC 3986 §6.2.2.1)...
            let (Some(h), Some(l)) = (upper_hex(hi), upper_hex(lo)) else {
                return false;
            };
            let octet = h << 4 | l;
            // ... of an octet that is not decoded: not unreserved (§6.2.2.2), and not part
            // of UTF-8 that the iri form (RFC 3987 §3.2) or NFC may decode.
            if chars::is_unreserved(octet) || (octet >= 0x80 && (self.iri || self.nfc)) {
                return false;
            }
        }
        true
    }
}

/// The value of an uppercase hex digit.
#[inline]
fn upper_hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The table row of a lowercase scheme.
#[inline]
fn lookup(scheme: &[u8]) -> Option<&'static SchemeRule> {
    SCHEMES
        .iter()
        .find(|r| r.name.len() == scheme.len() && r.name.as_bytes() == scheme)
}

/// Whether a host is a valid LDH name in lowercase: what the fast path of
/// [`crate::iri::host::dns_host`] takes as it is ([`crate::iri::host::is_valid_ldh_host`]: labels of
/// letters, digits and hyphens, 1–63 octets, no hyphen first or last, no `--` in the third
/// and fourth position, so no `xn--` label; at most 253 octets; one trailing root dot
/// allowed), with no uppercase letter: such a host is its own A-label and U-label form.
fn is_lowercase_ldh_host(b: &[u8]) -> bool {
    crate::iri::host::is_valid_ldh_host(b) && !b.iter().any(u8::is_ascii_uppercase)
}

/// Whether every non-ASCII character of `tail` (the path, query and fragment) is allowed
/// where it stands (RFC 3987 §2.2: `ucschar`, `iprivate` in the query only; never a bidi
/// formatting character, §4.1).
fn non_ascii_ok(tail: &str) -> bool {
    let mut in_query = false;
    let mut in_fragment = false;
    for c in tail.chars() {
        match c {
            '?' if !in_fragment => in_query = true,
            '#' => {
                in_query = false;
                in_fragment = true;
            }
            c if c.is_ascii() => {}
            c => {
                if is_bidi_format(c) || !(is_ucschar(c) || (in_query && is_iprivate(c))) {
                    return false;
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic xorshift generator.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        /// `len` bytes, mostly from `alphabet`, sometimes any byte at all.
        fn bytes(&mut self, len: usize, alphabet: &[u8]) -> Vec<u8> {
            self.bytes_from(len, alphabet, true)
        }

        /// `len` bytes from `alphabet`, and with `wild` sometimes any byte at all.
        fn bytes_from(&mut self, len: usize, alphabet: &[u8], wild: bool) -> Vec<u8> {
            (0..len)
                .map(|_| {
                    let r = self.next();
                    if wild && r % 13 == 0 {
                        (r >> 8) as u8
                    } else {
                        alphabet[(r >> 8) as usize % alphabet.len()]
                    }
                })
                .collect()
        }
    }

    /// Runs `check!(lanes)` with every form of the masks this processor has.
    macro_rules! for_each_form {
        ($check:ident) => {{
            $check(Scalar);
            #[cfg(target_arch = "x86_64")]
            {
                $check(sse2::Sse2);
                if let Some(lanes) = avx2::Avx2::detect() {
                    $check(lanes);
                }
            }
        }};
    }

    fn blocks_agree_with_the_scalar_reference<L: Blocks + std::fmt::Debug>(lanes: L) {
        let w = L::WIDTH;
        let check = |c: &[u8]| {
            // The block at the start of a text, further on, and at its end (where line feeds
            // follow the text).
            let mut text = b"0123456789".to_vec();
            text.extend_from_slice(c);
            let mut end = c[w / 2..].to_vec();
            end.resize(w, b'\n');
            for (b, i, bytes) in [
                (c, 0, c),
                (&text[..], 10, c),
                (&text[..], 10 + w / 2, &end[..]),
            ] {
                let at = format!("{lanes:?} {bytes:?}");
                assert_eq!(lanes.tail_masks(b, i), tail_masks_scalar(bytes), "{at}");
                assert_eq!(lanes.tail_special(b, i), tail_special_scalar(bytes), "{at}");
                assert_eq!(lanes.host_masks(b, i), host_masks_scalar(bytes), "{at}");
            }
        };
        // Every byte value in every position.
        for x in 0..=255u8 {
            for k in 0..w {
                let mut c = vec![b'a'; w];
                c[k] = x;
                check(&c);
            }
        }
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        for _ in 0..20_000 {
            check(&rng.bytes(w, b"az09-._~/?#%:@[]\n\r\t \\\"<>{|}^`\x7f\xc3\xa9"));
        }
    }

    #[test]
    fn block_masks_agree_with_the_scalar_reference() {
        for_each_form!(blocks_agree_with_the_scalar_reference);
    }

    #[test]
    fn bad_bytes_are_those_no_component_allows() {
        for b in 0..0x80u8 {
            let allowed = chars::is(b, chars::UNRESERVED | chars::SUB_DELIM)
                || matches!(b, b':' | b'@' | b'/' | b'?' | b'%' | b'#');
            assert_eq!(is_bad(b), !allowed, "{b:#x}");
        }
    }

    fn tail_scans_agree_with_the_reference<L: Blocks + std::fmt::Debug>(lanes: L) {
        let mut rng = Rng(0x0DDB_1A5E_5BAD_5EED);
        for len in 0..150 {
            for _ in 0..200 {
                // Often a stop early, or (mostly) none before the end: tails over many blocks.
                let bytes = if len % 2 == 0 {
                    rng.bytes(len, b"ab/./a.\n%#/?x\xc3\xa9 \r\n")
                } else {
                    rng.bytes_from(len, b"ab/./a.%/?x_-~:@!$&'()*+,;=ABCDEFG", len % 4 == 1)
                };
                for from in [0, len / 4, len / 2, len] {
                    assert_eq!(
                        scan_tail(lanes, &bytes, from),
                        scan_tail_reference(&bytes, from),
                        "{lanes:?} {bytes:?} from {from}"
                    );
                }
            }
        }
    }

    #[test]
    fn tail_scan_agrees_with_the_reference() {
        for_each_form!(tail_scans_agree_with_the_reference);
    }

    #[test]
    fn dns_authorities() {
        let f = FastPath::new(&Options::default());
        let http = lookup(b"http").unwrap();
        let file = lookup(b"file").unwrap();
        // Every form of the masks, with the authority at the start and after a prefix.
        let end = |a: &str, rule| {
            let mut answers = vec![];
            let mut ask = |got: Option<usize>| answers.push(got);
            for prefix in [
                "",
                "http://",
                "http://a-long-prefix-to-move-the-host-along/",
            ] {
                let b = format!("{prefix}{a}");
                let (b, at) = (b.as_bytes(), prefix.len());
                let minus = |e: Option<usize>| e.map(|e| e - at);
                ask(minus(f.dns_authority(Scalar, b, at, rule)));
                #[cfg(target_arch = "x86_64")]
                {
                    ask(minus(f.dns_authority(sse2::Sse2, b, at, rule)));
                    if let Some(lanes) = avx2::Avx2::detect() {
                        ask(minus(f.dns_authority(lanes, b, at, rule)));
                    }
                }
            }
            assert!(
                answers.windows(2).all(|p| p[0] == p[1]),
                "{a:?}: {answers:?}"
            );
            answers[0]
        };
        for (a, want) in [
            ("example.com/x", Some(11)),
            ("example.com", Some(11)),
            ("example.com.:8080?", Some(17)),
            ("a-b.c-d#", Some(7)),
            ("/", Some(0)),
            (":81/", Some(3)),
            ("1.2.3.4\n", Some(7)),
            ("Example.com/", None),
            ("example.com:80/", None),
            ("example.com:080/", None),
            ("example.com:/", None),
            ("example.com:8x/", None),
            ("user@example.com/", None),
            ("[::1]/", None),
            ("a..b/", None),
            (".a/", None),
            ("a../", None),
            ("./", None),
            ("-a.b/", None),
            ("a-.b/", None),
            ("a.-b/", None),
            ("a.b-/", None),
            ("xn--bcher-kva.example/", None),
            ("r4---sn.example/", None),
            ("ab--c/", None),
            ("a_b/", None),
            ("a%41/", None),
            ("\u{e9}/", None),
        ] {
            assert_eq!(end(a, http), want, "{a:?}");
        }
        assert_eq!(end("abc--d.example/", http), Some(14));
        assert_eq!(end("localhost/", http), Some(9));
        assert_eq!(end("localhost/", file), None);
        assert_eq!(end("localhost./", file), Some(10));
        let long = format!("{}.com/", "a".repeat(59));
        assert_eq!(end(&long, http), Some(63));
        let longer = format!("{}.com/", "a".repeat(60));
        assert_eq!(end(&longer, http), None);
    }

    #[test]
    fn dns_authorities_agree_with_the_full_host_check() {
        let f = FastPath::new(&Options::default());
        let http = lookup(b"http").unwrap();
        let mut rng = Rng(0x1234_5678_9ABC_DEF1);
        for len in 0..70 {
            for _ in 0..200 {
                let mut a = rng.bytes_from(len, b"ab0.-x-n.", false);
                a.push(b'/');
                let fast = f.dns_authority(Scalar, &a, 0, http);
                #[cfg(target_arch = "x86_64")]
                {
                    assert_eq!(f.dns_authority(sse2::Sse2, &a, 0, http), fast);
                    if let Some(lanes) = avx2::Avx2::detect() {
                        assert_eq!(f.dns_authority(lanes, &a, 0, http), fast);
                    }
                }
                let host = &a[..len];
                let want = host.is_empty() || is_lowercase_ldh_host(host);
                // Authorities of 64 bytes or more are left to the full ladder.
                let expect = (want && len < 64).then_some(len);
                assert_eq!(fast, expect, "{:?}", String::from_utf8_lossy(&a));
            }
        }
    }

    #[test]
    fn runs_of_lines_are_what_line_by_line_gives() {
        // The reference: `accepts_line` one line at a time, stopping at the first line that
        // fails, is too long, or does not end in a line feed alone.
        let reference = |f: &FastPath, rest: &str, max_line: usize| {
            let (mut at, mut lines) = (0, 0u64);
            while let Some(n) = f.accepts_line(&rest[at..]) {
                if n > max_line || rest.as_bytes().get(at + n) != Some(&b'\n') {
                    break;
                }
                at += n + 1;
                lines += 1;
            }
            (at, lines)
        };
        let pieces = [
            "http://a.example/b\n",
            "https://example.com/x?y=1#z\n",
            "http://a.example/\r\n",
            "HTTP://A/\n",
            "http://a/b\n",
            "\n",
            "a/b\n",
            "http://a.example/a-rather-long-path/that/goes/on/and/on/for/a/while.html\n",
            "http://a.example/no-line-feed",
            "x y\n",
        ];
        let mut rng = Rng(0x5EED_0F11_E5E5);
        for options in [
            Options::default(),
            Options {
                level: Level::String,
                ..Options::default()
            },
        ] {
            let f = FastPath::new(&options);
            for _ in 0..3000 {
                let count = (rng.next() % 12) as usize;
                let text: String = (0..count)
                    .map(|_| pieces[(rng.next() % pieces.len() as u64) as usize])
                    .collect();
                for max_line in [10, 40, 1 << 20] {
                    let want = reference(&f, &text, max_line);
                    assert_eq!(
                        f.accepts_lines(&text, max_line),
                        want,
                        "{text:?} {max_line}"
                    );
                    #[cfg(target_arch = "x86_64")]
                    {
                        let sse2_only = FastPath { avx2: None, ..f };
                        let got = sse2_only.accepts_lines(&text, max_line);
                        assert_eq!(got, want, "{text:?} {max_line}");
                    }
                }
            }
            assert_eq!(f.off().accepts_lines("http://a/b\n", 100), (0, 0));
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
    fn ldh_hosts() {
        for h in [
            "a",
            "example.com",
            "example.com.",
            "a-b.c",
            "r4-s.x",
            "1.2.3.4",
        ] {
            assert!(is_lowercase_ldh_host(h.as_bytes()), "{h}");
        }
        for h in [
            "", ".", "a..b", ".a", "A.com", "-a", "a-", "xn--a", "ab--c", "r4---sn", "a_b",
            "a.com..",
        ] {
            assert!(!is_lowercase_ldh_host(h.as_bytes()), "{h}");
        }
        assert!(is_lowercase_ldh_host("a".repeat(63).as_bytes()));
        assert!(!is_lowercase_ldh_host("a".repeat(64).as_bytes()));
        assert!(!is_lowercase_ldh_host(
            format!("{}.b", "a".repeat(64)).as_bytes()
        ));
        let long = vec!["c".repeat(63); 4].join(".");
        assert!(!is_lowercase_ldh_host(long.as_bytes()));
    }
}
