//! The AVX2 backend: the masks 32 bytes at a time, for processors that have AVX2 (and BMI1,
//! BMI2, LZCNT and POPCNT, which the code around them is compiled to use).
//!
//! The only way to run it is through an [`Avx2`] token, which only [`Avx2::detect`] makes,
//! after asking the processor (`is_x86_feature_detected!`): holding one is the permission
//! to run AVX2 code, and [`Avx2::run`] is where that permission is used.

use std::arch::x86_64::{
    __m256i, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_loadu_si256, _mm256_min_epu8,
    _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm256_sub_epi8,
};

use super::blocks::{padded, Blocks, HostMasks, TailMasks};
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

// SAFETY, for every `unsafe` block below: the intrinsics need AVX2, which the processor
// has wherever a `V256` is used (see `V256`); the one load, `_mm256_loadu_si256`, reads 32
// bytes (of `b` or of a padded copy) and needs no alignment. Nothing else is unsafe about
// them. These functions are inlined into `run_with_avx2`, compiled with AVX2 enabled,
// where they become single instructions.

impl Vector for V256 {
    const WIDTH: usize = 32;

    #[inline(always)]
    fn load(b: &[u8], i: usize) -> V256 {
        let load = |c: &[u8]| {
            // SAFETY: see the comment above; `c` holds 32 bytes.
            V256(unsafe { _mm256_loadu_si256(c.as_ptr().cast()) })
        };
        match b.get(i..i + 32) {
            Some(c) => load(c),
            None => load(&padded::<32>(b, i)),
        }
    }

    #[inline(always)]
    fn splat(x: u8) -> V256 {
        // SAFETY: see the comment above.
        V256(unsafe { _mm256_set1_epi8(x as i8) })
    }

    #[inline(always)]
    fn eq(self, o: V256) -> V256 {
        // SAFETY: see the comment above.
        V256(unsafe { _mm256_cmpeq_epi8(self.0, o.0) })
    }

    #[inline(always)]
    fn or(self, o: V256) -> V256 {
        // SAFETY: see the comment above.
        V256(unsafe { _mm256_or_si256(self.0, o.0) })
    }

    #[inline(always)]
    fn sub(self, o: V256) -> V256 {
        // SAFETY: see the comment above.
        V256(unsafe { _mm256_sub_epi8(self.0, o.0) })
    }

    #[inline(always)]
    fn min(self, o: V256) -> V256 {
        // SAFETY: see the comment above.
        V256(unsafe { _mm256_min_epu8(self.0, o.0) })
    }

    #[inline(always)]
    fn lt(self, o: V256) -> V256 {
        // `o > self`, signed (AVX2 has only the one order).
        // SAFETY: see the comment above.
        V256(unsafe { _mm256_cmpgt_epi8(o.0, self.0) })
    }

    #[inline(always)]
    fn bits(self) -> u32 {
        // SAFETY: see the comment above.
        unsafe { _mm256_movemask_epi8(self.0) as u32 }
    }
}

impl Blocks for Avx2 {
    const WIDTH: usize = 32;

    #[inline(always)]
    fn tail_special(self, b: &[u8], i: usize) -> u32 {
        vector::tail_special::<V256>(b, i)
    }

    #[inline(always)]
    fn tail_masks(self, b: &[u8], i: usize) -> TailMasks {
        vector::tail_masks::<V256>(b, i)
    }

    #[inline(always)]
    fn host_masks(self, b: &[u8], i: usize) -> HostMasks {
        vector::host_masks::<V256>(b, i)
    }

    #[inline(always)]
    fn marks(self, b: &[u8], i: usize) -> u32 {
        vector::marks::<V256>(b, i)
    }

    #[inline(always)]
    fn upper(self, b: &[u8], i: usize) -> u32 {
        vector::upper::<V256>(b, i)
    }
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
