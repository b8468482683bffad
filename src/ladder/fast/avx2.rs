//! The AVX2 backend: the masks 32 bytes at a time, for processors that have AVX2 (and BMI1,
//! BMI2, LZCNT and POPCNT, which the code around them is compiled to use). The masks of a
//! path, query or fragment come from nibble table lookups (`vpshufb`); the others from the
//! vector operations the SSE2 backend uses too ([`super::vector`]).
//!
//! The only way to run it is through an [`Avx2`] token, which only [`Avx2::detect`] makes,
//! after asking the processor (`is_x86_feature_detected!`): holding one is the permission
//! to run AVX2 code, and [`Avx2::run`] is where that permission is used.

use std::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_loadu_si256,
    _mm256_min_epu8, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm256_setzero_si256,
    _mm256_shuffle_epi8, _mm256_slli_epi16, _mm256_srli_epi16, _mm256_sub_epi8,
};

use super::blocks::{Blocks, TailMasks};
use super::tail::look;
use super::vector::{self, Vector};
use super::Task;

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

    /// Runs `task` with this backend, compiled with AVX2 and BMI enabled: 32-byte blocks,
    /// and the shorter encodings and bit instructions they bring to the code around them.
    #[inline]
    pub(super) fn run<T: Task>(self, task: T) -> T::Output {
        // SAFETY: an `Avx2` exists only where `detect` found the processor's features,
        // which is all `run_with_avx2` needs.
        unsafe { run_with_avx2(self, task) }
    }
}

/// [`Task::run`] compiled with AVX2 and BMI enabled (the task's code is inlined here).
///
/// # Safety
/// The processor must have AVX2, BMI1, BMI2, LZCNT and POPCNT (`lanes` says it does).
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn run_with_avx2<T: Task>(lanes: Avx2, task: T) -> T::Output {
    task.run(lanes)
}

/// An AVX2 register. Private to this module, and only made by the `Blocks` methods of
/// [`Avx2`], which take one: so a `V256` exists only where the processor has AVX2.
#[derive(Clone, Copy)]
struct V256(__m256i);

// SAFETY, for the `unsafe` blocks of `impl_vector` and every one below: the intrinsics
// need AVX2, which the processor has wherever a `V256` is used (see `V256`); the one load,
// `_mm256_loadu_si256`, reads 32 bytes (of `b` or of a padded copy) and needs no
// alignment. Nothing else is unsafe about them. These functions are inlined into
// `run_with_avx2`, compiled with AVX2 enabled, where they become single instructions.

vector::impl_vector!(V256, 32,
    load: _mm256_loadu_si256, splat: _mm256_set1_epi8, eq: _mm256_cmpeq_epi8,
    or: _mm256_or_si256, sub: _mm256_sub_epi8, min: _mm256_min_epu8,
    // `b > a`, signed (AVX2 has only the one order).
    lt(a, b) => _mm256_cmpgt_epi8(b, a), bits: _mm256_movemask_epi8);

// The classes and tables below are the AVX-512 backend's too (`super::avx512`), whose
// `vpshufb` looks up the same sixteen entries in each of its four lanes.
//
// The bytes of a path, query or fragment by table lookup (AVX2 has `vpshufb`, a lookup of
// sixteen entries in each 128-bit lane): a byte's class is `LOW[low nibble] & HIGH[high
// nibble]`, each bit of it a class of the bytes whose high nibble is among the ones it
// lists and whose low nibble is too (a rectangle in the table of ASCII). The bytes below
// 0x21, and the non-ASCII ones, are told apart by one signed comparison (as in
// `vector::tail_masks`); the high nibbles 0, 1 and 8-F have no class bit. Over the
// corpora, one thread, the default mode went from 66.3 M to 61.9 M instructions with it
// (docs/performance.md); the reference is the same (`scalar::tail_masks`), tested for every
// byte value at every position.

/// `"` (0x22).
pub(super) const QUOTE: u8 = 1 << 0;
/// `<` `>` `\` `^` (0x3C 0x3E 0x5C 0x5E).
pub(super) const ANGLE_CARET: u8 = 1 << 1;
/// `[` `\` `]` `{` `|` `}` (0x5B-0x5D, 0x7B-0x7D).
pub(super) const BRACKET: u8 = 1 << 2;
/// Backtick (0x60), and space (0x20, below 0x21 anyway).
pub(super) const BACKTICK: u8 = 1 << 3;
/// DEL (0x7F).
pub(super) const DEL: u8 = 1 << 4;
/// The bytes the tail never allows raw (with those below 0x21): `TailMasks::bad`.
pub(super) const BAD: u8 = QUOTE | ANGLE_CARET | BRACKET | BACKTICK | DEL;
/// `#` `%` (0x23 0x25): with the non-ASCII bytes, `TailMasks::rare`.
pub(super) const HASH_PERCENT: u8 = 1 << 5;
/// `.` (0x2E): `TailMasks::dot`.
pub(super) const DOT: u8 = 1 << 6;
/// `/` (0x2F): `TailMasks::slash`.
pub(super) const SLASH: u8 = 1 << 7;

/// The classes, each as the high nibbles and low nibbles of its bytes.
const RECTANGLES: [(u8, &[u8], &[u8]); 8] = [
    (QUOTE, &[0x2], &[0x2]),
    (ANGLE_CARET, &[0x3, 0x5], &[0xC, 0xE]),
    (BRACKET, &[0x5, 0x7], &[0xB, 0xC, 0xD]),
    (BACKTICK, &[0x2, 0x6], &[0x0]),
    (DEL, &[0x7], &[0xF]),
    (HASH_PERCENT, &[0x2], &[0x3, 0x5]),
    (DOT, &[0x2], &[0xE]),
    (SLASH, &[0x2], &[0xF]),
];

/// The lookup table of the high nibbles (`high`) or the low ones, repeated for each lane of
/// sixteen bytes of a register of `N` bytes.
pub(super) const fn nibble_table<const N: usize>(high: bool) -> [u8; N] {
    let mut t = [0u8; N];
    let mut r = 0;
    while r < RECTANGLES.len() {
        let (class, highs, lows) = RECTANGLES[r];
        let nibbles = if high { highs } else { lows };
        let mut k = 0;
        while k < nibbles.len() {
            let mut lane = 0;
            while lane < N {
                t[lane + nibbles[k] as usize] |= class;
                lane += 16;
            }
            k += 1;
        }
        r += 1;
    }
    t
}

static HIGH_NIBBLES: [u8; 32] = nibble_table(true);
static LOW_NIBBLES: [u8; 32] = nibble_table(false);

/// The class of each byte of `v` (see [`RECTANGLES`]).
#[inline(always)]
fn classes(v: V256) -> V256 {
    // SAFETY: see the comment above `impl_vector!(V256, …)`; the tables hold 32 bytes.
    unsafe {
        let low_table = _mm256_loadu_si256(LOW_NIBBLES.as_ptr().cast());
        let high_table = _mm256_loadu_si256(HIGH_NIBBLES.as_ptr().cast());
        let nibble = _mm256_set1_epi8(0x0F);
        // Each index is below 16, so no lookup reads zero for a set top bit.
        let low = _mm256_and_si256(v.0, nibble);
        let high = _mm256_and_si256(_mm256_srli_epi16(v.0, 4), nibble);
        V256(_mm256_and_si256(
            _mm256_shuffle_epi8(low_table, low),
            _mm256_shuffle_epi8(high_table, high),
        ))
    }
}

/// The bytes of `classes` that have a bit of `mask`.
#[inline(always)]
fn any_of(classes: V256, mask: u8) -> u32 {
    // SAFETY: see the comment above `impl_vector!(V256, …)`.
    unsafe {
        let masked = _mm256_and_si256(classes.0, _mm256_set1_epi8(mask as i8));
        !(_mm256_movemask_epi8(_mm256_cmpeq_epi8(masked, _mm256_setzero_si256())) as u32)
    }
}

/// How far left a class of one bit is shifted to reach the top of its byte: `bit_of`'s
/// `BY` for that class.
const fn top(class: u8) -> i32 {
    class.leading_zeros() as i32
}

/// The bytes of `classes` that have the class bit which a shift left by `BY` ([`top`] of
/// it) brings to the top of the byte (the bits shifted into the next byte are not looked
/// at).
#[inline(always)]
fn bit_of<const BY: i32>(classes: V256) -> u32 {
    // SAFETY: see the comment above `impl_vector!(V256, …)`.
    unsafe { _mm256_movemask_epi8(_mm256_slli_epi16::<BY>(classes.0)) as u32 }
}

impl Blocks for Avx2 {
    const WIDTH: usize = 32;

    #[inline(always)]
    fn tail_masks<const LOOK: u8>(self, b: &[u8], i: usize) -> TailMasks {
        let v = V256::load(b, i);
        let c = classes(v);
        let high = v.bits();
        let low_or_high = v.lt(V256::splat(0x21)).bits();
        TailMasks {
            marks: if LOOK & look::MARKS != 0 {
                u64::from(vector::marks(v))
            } else {
                0
            },
            bad: u64::from((low_or_high & !high) | any_of(c, BAD)),
            rare: u64::from(bit_of::<{ top(HASH_PERCENT) }>(c) | high),
            dot: u64::from(bit_of::<{ top(DOT) }>(c)),
            slash: u64::from(bit_of::<{ top(SLASH) }>(c)),
        }
    }

    vector::vector_blocks!(V256);
}

#[cfg(test)]
mod tests {
    use super::Avx2;
    use crate::ladder::fast::{testkit, Backend};

    /// Runs `check` with the AVX2 backend, where the processor has it.
    fn with_avx2(check: impl FnOnce(Avx2)) {
        match Avx2::detect() {
            Some(lanes) => check(lanes),
            None => eprintln!("avx2: the processor lacks AVX2; skipped"),
        }
    }

    #[test]
    fn masks_agree_with_the_scalar_reference() {
        with_avx2(testkit::blocks_agree_with_the_scalar_reference);
    }

    #[test]
    fn tail_scan_agrees_with_the_reference() {
        with_avx2(testkit::tail_scans_agree_with_the_reference);
    }

    #[test]
    fn dns_authorities_agree_with_the_scalar_backend() {
        with_avx2(testkit::dns_authorities_agree_with_the_full_host_check);
    }

    #[test]
    fn runs_of_lines_agree_with_line_by_line() {
        with_avx2(|lanes| testkit::runs_of_lines_are_what_line_by_line_gives(Backend::Avx2(lanes)));
    }
}
