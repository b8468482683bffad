//! The AVX-512 backend: the masks 64 bytes at a time, for processors that have AVX-512F and
//! AVX-512BW (and the AVX2, BMI1, BMI2, LZCNT and POPCNT of the AVX2 backend, which the code
//! around them is compiled to use). A block of 64 bytes holds most records' path, query and
//! fragment whole, and the comparisons give their bit masks directly (`k` registers), without
//! the step from a vector to a mask. The bytes of a path, query or fragment are classified by
//! the nibble tables of the AVX2 backend ([`super::avx2::nibble_table`]), one lookup per
//! lane of sixteen bytes as there.
//!
//! The intrinsics are stable from Rust 1.89: the build script turns this module on
//! (`irinorm_avx512`) only for a compiler that has them, so older compilers build the crate
//! with the AVX2 backend as the fastest.
//!
//! The only way to run it is through an [`Avx512`] token, which only [`Avx512::detect`]
//! makes, after asking the processor: holding one is the permission to run AVX-512 code,
//! and [`Avx512::run`] is where that permission is used.

use std::arch::x86_64::{
    __m512i, _mm512_and_si512, _mm512_cmpeq_epi8_mask, _mm512_cmple_epu8_mask,
    _mm512_cmplt_epi8_mask, _mm512_loadu_si512, _mm512_mask_loadu_epi8, _mm512_movepi8_mask,
    _mm512_set1_epi8, _mm512_shuffle_epi8, _mm512_srli_epi16, _mm512_sub_epi8,
    _mm512_test_epi8_mask,
};

use super::avx2::{nibble_table, Avx2, BAD, DOT, HASH_PERCENT, SLASH};
#[cfg(doc)]
use super::blocks::padded;
use super::blocks::{Blocks, HostMasks, TailMasks};
use super::tail::look;
use super::Task;

/// The processor has AVX-512F, AVX-512BW, AVX2, BMI1, BMI2, LZCNT and POPCNT: only
/// [`Avx512::detect`] makes one, after asking the processor, so holding one is the
/// permission to run AVX-512 code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Avx512 {
    _private: (),
}

impl Avx512 {
    /// `Some` where the processor has the features: those of the AVX2 backend
    /// ([`Avx2::detect`]), and AVX-512F and AVX-512BW.
    pub(super) fn detect() -> Option<Avx512> {
        let yes = Avx2::detect().is_some()
            && std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw");
        yes.then_some(Avx512 { _private: () })
    }

    /// Runs `task` with this backend, compiled with AVX-512 enabled.
    #[inline]
    pub(super) fn run<T: Task>(self, task: T) -> T::Output {
        // SAFETY: an `Avx512` exists only where `detect` found the processor's features,
        // which is all `run_with_avx512` needs.
        unsafe { run_with_avx512(self, task) }
    }
}

/// [`Task::run`] compiled with AVX-512 enabled (the task's code is inlined here).
///
/// # Safety
/// The processor must have the features [`Avx512::detect`] asks for (`lanes` says it does).
#[target_feature(enable = "avx512f,avx512bw,avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn run_with_avx512<T: Task>(lanes: Avx512, task: T) -> T::Output {
    task.run(lanes)
}

// SAFETY, for every `unsafe` block below: the intrinsics need AVX-512F and AVX-512BW, which
// the processor has wherever these functions run: they are called only from the `Blocks`
// methods of `Avx512`, which take the token that `Avx512::detect` makes (in a run, inlined
// into `run_with_avx512`, compiled with the features enabled; in the tests, called on a
// detected token); the loads read 64 bytes of `b`, or fewer under a mask (in `load`), and
// need no alignment. Nothing else is unsafe about them.

/// The block of `b` at `i`; past the end of `b`, line feeds, as [`padded`] gives them.
/// There, one load with a mask reads the bytes left in `b` and puts line feeds in the other
/// lanes: no copy to the stack, whose stores a load of 64 bytes would wait for (a record
/// scanned alone, without its line feed, ends in such a block).
#[inline(always)]
fn load(_: Avx512, b: &[u8], i: usize) -> __m512i {
    match b.get(i..i + 64) {
        // SAFETY: see the comment above; `c` holds 64 bytes.
        Some(c) => unsafe { _mm512_loadu_si512(c.as_ptr().cast()) },
        None => {
            // Fewer than 64 bytes are left from `i` (none past the end).
            let rest = &b[i.min(b.len())..];
            let lanes = (1u64 << rest.len()) - 1;
            // SAFETY: see the comment above; the masked load reads only the lanes whose
            // bit is set, the `rest.len()` bytes of `rest` (a masked-off lane is not read,
            // and cannot fault).
            unsafe { _mm512_mask_loadu_epi8(splat(b'\n'), lanes, rest.as_ptr().cast()) }
        }
    }
}

/// `x` in every byte.
#[inline(always)]
fn splat(x: u8) -> __m512i {
    // SAFETY: see the comment above.
    unsafe { _mm512_set1_epi8(x as i8) }
}

/// The bytes of `v` equal to `x`.
#[inline(always)]
fn eq(v: __m512i, x: u8) -> u64 {
    // SAFETY: see the comment above.
    unsafe { _mm512_cmpeq_epi8_mask(v, splat(x)) }
}

/// The bytes of `v` in `lo..lo + n`, unsigned.
#[inline(always)]
fn within(v: __m512i, lo: u8, n: u8) -> u64 {
    // SAFETY: see the comment above.
    unsafe { _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, splat(lo)), splat(n - 1)) }
}

static HIGH_NIBBLES: [u8; 64] = nibble_table(true);
static LOW_NIBBLES: [u8; 64] = nibble_table(false);

/// The class of each byte of `v` (the rectangles of the AVX2 backend's table).
#[inline(always)]
fn classes(v: __m512i) -> __m512i {
    // SAFETY: see the comment above; the tables hold 64 bytes.
    unsafe {
        let low_table = _mm512_loadu_si512(LOW_NIBBLES.as_ptr().cast());
        let high_table = _mm512_loadu_si512(HIGH_NIBBLES.as_ptr().cast());
        let nibble = splat(0x0F);
        // Each index is below 16, so no lookup reads zero for a set top bit.
        let low = _mm512_and_si512(v, nibble);
        let high = _mm512_and_si512(_mm512_srli_epi16(v, 4), nibble);
        _mm512_and_si512(
            _mm512_shuffle_epi8(low_table, low),
            _mm512_shuffle_epi8(high_table, high),
        )
    }
}

/// The bytes of `classes` that have a bit of `class`.
#[inline(always)]
fn any_of(classes: __m512i, class: u8) -> u64 {
    // SAFETY: see the comment above.
    unsafe { _mm512_test_epi8_mask(classes, splat(class)) }
}

impl Blocks for Avx512 {
    const WIDTH: usize = 64;

    #[inline(always)]
    fn tail_masks<const LOOK: u8>(self, b: &[u8], i: usize) -> TailMasks {
        let v = load(self, b, i);
        let c = classes(v);
        // SAFETY: see the comment above.
        let (high, low_or_high) = unsafe {
            (
                _mm512_movepi8_mask(v),
                _mm512_cmplt_epi8_mask(v, splat(0x21)),
            )
        };
        TailMasks {
            marks: if LOOK & look::MARKS != 0 {
                eq(v, b'?') | eq(v, b';')
            } else {
                0
            },
            bad: (low_or_high & !high) | any_of(c, BAD),
            rare: any_of(c, HASH_PERCENT) | high,
            dot: any_of(c, DOT),
            slash: any_of(c, SLASH),
        }
    }

    #[inline(always)]
    fn host_masks(self, b: &[u8], i: usize) -> HostMasks {
        let v = load(self, b, i);
        let (dot, hyphen) = (eq(v, b'.'), eq(v, b'-'));
        let ldh = within(v, b'a', 26) | within(v, b'0', 10) | dot | hyphen;
        HostMasks {
            dot,
            hyphen,
            not_ldh: !ldh,
        }
    }

    #[inline(always)]
    fn eq_mask(self, b: &[u8], i: usize, x: u8) -> u64 {
        eq(load(self, b, i), x)
    }

    #[inline(always)]
    fn capitals(self, b: &[u8], i: usize) -> u64 {
        within(load(self, b, i), b'A', 26)
    }
}

#[cfg(test)]
mod tests {
    use super::Avx512;
    use crate::ladder::fast::{testkit, Backend};

    /// Runs `check` with the AVX-512 backend, where the processor has it.
    fn with_avx512(check: impl FnOnce(Avx512)) {
        match Avx512::detect() {
            Some(lanes) => check(lanes),
            None => eprintln!("avx512: the processor lacks AVX-512; skipped"),
        }
    }

    #[test]
    fn masks_agree_with_the_scalar_reference() {
        with_avx512(testkit::blocks_agree_with_the_scalar_reference);
    }

    #[test]
    fn tail_scan_agrees_with_the_reference() {
        with_avx512(testkit::tail_scans_agree_with_the_reference);
    }

    #[test]
    fn dns_authorities_agree_with_the_scalar_backend() {
        with_avx512(testkit::dns_authorities_agree_with_the_full_host_check);
    }

    #[test]
    fn runs_of_lines_agree_with_line_by_line() {
        with_avx512(|lanes| {
            testkit::runs_of_lines_are_what_line_by_line_gives(Backend::Avx512(lanes))
        });
    }
}
