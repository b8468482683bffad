//! The portable backend: the masks of [`super::blocks`] one byte at a time. It is the
//! reference every SIMD backend is tested against, and the backend of processors without
//! one.

use super::blocks::{Blocks, HostMasks, TailMasks};
use super::tail::look;

/// Whether byte `b` is one that no path, query or fragment allows raw.
pub(super) const fn is_bad(b: u8) -> bool {
    b < 0x21
        || matches!(
            b,
            b'"' | b'<' | b'>' | b'[' | b'\\' | b']' | b'^' | b'`' | b'{' | b'|' | b'}' | 0x7f
        )
}

/// [`TailMasks`] of a block of up to 64 bytes, with the classes of [`look`] that `looks`
/// asks for.
pub(super) fn tail_masks(c: &[u8], looks: u8) -> TailMasks {
    let mut m = TailMasks::default();
    for (k, &b) in c.iter().enumerate() {
        let bit = |yes: bool| u64::from(yes) << k;
        m.bad |= bit(b < 0x80 && is_bad(b));
        m.rare |= bit(b == b'%' || b == b'#' || b >= 0x80);
        m.dot |= bit(b == b'.');
        m.slash |= bit(b == b'/');
        m.marks |= bit(looks & look::MARKS != 0 && (b == b'?' || b == b';'));
    }
    m
}

/// [`HostMasks`] of a block of up to 64 bytes.
pub(super) fn host_masks(c: &[u8]) -> HostMasks {
    let mut m = HostMasks::default();
    for (k, &b) in c.iter().enumerate() {
        let bit = |yes: bool| u64::from(yes) << k;
        m.dot |= bit(b == b'.');
        m.hyphen |= bit(b == b'-');
        m.not_ldh |= bit(!(b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.'));
    }
    m
}

/// The bytes of a block of up to 64 bytes for which `class` holds.
pub(super) fn mask_of(c: &[u8], class: impl Fn(u8) -> bool) -> u64 {
    let bits = c.iter().enumerate().filter(|&(_, &b)| class(b));
    bits.fold(0, |m, (k, _)| m | 1 << k)
}

/// The `N` bytes of `b` from `i`; past the end of `b`, line feeds (which end any record).
#[inline(always)]
fn block<const N: usize>(b: &[u8], i: usize) -> [u8; N] {
    match b.get(i..i + N) {
        Some(c) => c.try_into().expect("N bytes"),
        None => super::blocks::padded(b, i),
    }
}

/// The portable backend, 16 bytes a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Scalar;

impl Blocks for Scalar {
    const WIDTH: usize = 16;

    fn tail_masks<const LOOK: u8>(self, b: &[u8], i: usize) -> TailMasks {
        tail_masks(&block::<16>(b, i), LOOK)
    }

    fn host_masks(self, b: &[u8], i: usize) -> HostMasks {
        host_masks(&block::<16>(b, i))
    }

    fn eq_mask(self, b: &[u8], i: usize, x: u8) -> u64 {
        mask_of(&block::<16>(b, i), |c| c == x)
    }

    fn capitals(self, b: &[u8], i: usize) -> u64 {
        mask_of(&block::<16>(b, i), |c| c.is_ascii_uppercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iri::chars;
    use crate::ladder::fast::testkit;

    #[test]
    fn bad_bytes_are_those_no_component_allows() {
        for b in 0..0x80u8 {
            let allowed = chars::is(b, chars::UNRESERVED | chars::SUB_DELIM)
                || matches!(b, b':' | b'@' | b'/' | b'?' | b'%' | b'#');
            assert_eq!(is_bad(b), !allowed, "{b:#x}");
        }
    }

    #[test]
    fn padded_blocks_are_the_reference_at_the_end_of_the_text() {
        testkit::blocks_agree_with_the_scalar_reference(Scalar);
        testkit::tail_scans_agree_with_the_reference(Scalar);
        testkit::dns_authorities_agree_with_the_full_host_check(Scalar);
    }
}
