//! Byte searches sized for the components of one record (RFC 3986 §3: the delimiters
//! `/`, `?`, `#`, `@`, `:` that split a reference).
//!
//! A component is a few dozen bytes, where the set-up of a vectorised search costs more
//! than the search: below [`SHORT`] bytes these look eight bytes at a time in a `u64`
//! (the "has a zero byte" test), and hand longer slices to `memchr`.

/// The length from which a slice goes to `memchr`.
const SHORT: usize = 64;

/// One in every byte of a `u64`.
const ONES: u64 = 0x0101_0101_0101_0101;
/// The high bit of every byte of a `u64`.
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The bytes of `word` (little-endian) equal to `needle`, as a mask: the high bit of the
/// first such byte is set, and nothing below it is. Bytes above the first may show false
/// matches (the subtraction borrows), so only the lowest set bit may be read.
#[inline(always)]
fn matches(word: u64, needle: u64) -> u64 {
    let x = word ^ needle;
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// The eight bytes at the start of `chunk` (which has at least eight) as a little-endian
/// word.
#[inline(always)]
fn word(chunk: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&chunk[..8]);
    u64::from_le_bytes(w)
}

/// The index of the first `a` in `haystack`.
#[inline]
pub(crate) fn find(a: u8, haystack: &[u8]) -> Option<usize> {
    if haystack.len() >= SHORT {
        return memchr::memchr(a, haystack);
    }
    let pa = ONES * u64::from(a);
    let mut chunks = haystack.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let m = matches(word(chunk), pa);
        if m != 0 {
            return Some(base + (m.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    let tail = chunks.remainder();
    tail.iter().position(|&b| b == a).map(|i| base + i)
}

/// The index of the first `a` or `b` in `haystack`.
#[inline]
pub(crate) fn find2(a: u8, b: u8, haystack: &[u8]) -> Option<usize> {
    if haystack.len() >= SHORT {
        return memchr::memchr2(a, b, haystack);
    }
    let (pa, pb) = (ONES * u64::from(a), ONES * u64::from(b));
    let mut chunks = haystack.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let w = word(chunk);
        // Each mask is exact up to its own first match, so the lower of the two first
        // matches is exact.
        let m = matches(w, pa) | matches(w, pb);
        if m != 0 {
            return Some(base + (m.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    let tail = chunks.remainder();
    tail.iter()
        .position(|&c| c == a || c == b)
        .map(|i| base + i)
}

/// The index of the first `a`, `b` or `c` in `haystack`.
#[inline]
pub(crate) fn find3(a: u8, b: u8, c: u8, haystack: &[u8]) -> Option<usize> {
    if haystack.len() >= SHORT {
        return memchr::memchr3(a, b, c, haystack);
    }
    let (pa, pb, pc) = (
        ONES * u64::from(a),
        ONES * u64::from(b),
        ONES * u64::from(c),
    );
    let mut chunks = haystack.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let w = word(chunk);
        // As in `find2`: the lowest of the first matches is exact.
        let m = matches(w, pa) | matches(w, pb) | matches(w, pc);
        if m != 0 {
            return Some(base + (m.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    let tail = chunks.remainder();
    tail.iter()
        .position(|&x| x == a || x == b || x == c)
        .map(|i| base + i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn find_is_the_first_match(hay in proptest::collection::vec(any::<u8>(), 0..150), a: u8) {
            prop_assert_eq!(find(a, &hay), hay.iter().position(|&c| c == a));
        }

        #[test]
        fn find3_is_the_first_of_any(
            hay in proptest::collection::vec(prop_oneof![Just(b'?'), Just(b'#'), Just(b';'), Just(0x80u8), any::<u8>()], 0..150),
        ) {
            let expected = hay.iter().position(|c| b"?#;".contains(c));
            prop_assert_eq!(find3(b'?', b'#', b';', &hay), expected);
        }

        #[test]
        fn find2_is_the_first_of_either(
            hay in proptest::collection::vec(prop_oneof![Just(b'/'), Just(b'?'), Just(b'#'), Just(0u8), Just(0xFF), any::<u8>()], 0..150),
            a in prop_oneof![Just(b'?'), any::<u8>()],
            b in prop_oneof![Just(b'#'), any::<u8>()],
        ) {
            prop_assert_eq!(find2(a, b, &hay), hay.iter().position(|&c| c == a || c == b));
        }
    }

    #[test]
    fn a_match_after_bytes_that_borrow_is_not_reported_early() {
        // 0x01 and 0x00 after the needle's byte: the borrow of the zero-byte test must not
        // make the byte below the first match look like a match.
        let hay = [b'a', 0x01, b'/', 0x00, b'/', 0x2F, 0x30, 0x2E, 0x2F];
        assert_eq!(find(b'/', &hay), Some(2));
        assert_eq!(find(0x01, &hay), Some(1));
        assert_eq!(find2(b'?', b'/', &hay), Some(2));
    }
}
