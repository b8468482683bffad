//! The SSE2 backend: the masks sixteen bytes at a time in a handful of instructions. SSE2
//! is part of the x86_64 baseline, so this backend needs no detection: it is the one every
//! x86_64 processor without AVX2 uses.

use std::arch::x86_64::{
    __m128i, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8,
    _mm_or_si128, _mm_set1_epi8, _mm_sub_epi8,
};

use super::blocks::{Blocks, TailMasks};
use super::vector;

// SAFETY, for the `unsafe` blocks of `impl_vector!(V128, …)`: the intrinsics need SSE2, which every
// x86_64 processor has (it is part of the x86_64 baseline, enabled on every x86_64
// target); the one load, `_mm_loadu_si128`, reads 16 bytes (of `b` or of a padded copy)
// and needs no alignment. Nothing else is unsafe about them: they compute on values.

/// SSE2 (every x86_64 processor has it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Sse2;

/// An SSE2 register.
#[derive(Clone, Copy)]
struct V128(__m128i);

vector::impl_vector!(V128, 16,
    load: _mm_loadu_si128, splat: _mm_set1_epi8, eq: _mm_cmpeq_epi8,
    or: _mm_or_si128, sub: _mm_sub_epi8, min: _mm_min_epu8,
    lt(a, b) => _mm_cmplt_epi8(a, b), bits: _mm_movemask_epi8);

impl Blocks for Sse2 {
    const WIDTH: usize = 16;

    #[inline(always)]
    fn tail_masks<const LOOK: u8>(self, b: &[u8], i: usize) -> TailMasks {
        vector::tail_masks::<V128, LOOK>(b, i)
    }

    vector::vector_blocks!(V128);
}

#[cfg(test)]
mod tests {
    use super::Sse2;
    use crate::ladder::fast::testkit;

    #[test]
    fn masks_agree_with_the_scalar_reference() {
        testkit::blocks_agree_with_the_scalar_reference(Sse2);
    }

    #[test]
    fn tail_scan_agrees_with_the_reference() {
        testkit::tail_scans_agree_with_the_reference(Sse2);
    }

    #[test]
    fn dns_authorities_agree_with_the_scalar_backend() {
        testkit::dns_authorities_agree_with_the_full_host_check(Sse2);
    }

    #[test]
    fn runs_of_lines_agree_with_line_by_line() {
        testkit::runs_of_lines_are_what_line_by_line_gives(crate::ladder::fast::Backend::Sse2);
    }
}
