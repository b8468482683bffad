//! Byte searches sized for the components of one record (RFC 3986 §3: the delimiters
//! `/`, `?`, `#`, `@`, `:` that split a reference), and for the non-ASCII bytes of one.
//!
//! A component is a few dozen bytes, where the set-up of a vectorised search costs more
//! than the search: below [`SHORT`] bytes these look eight bytes at a time in a `u64`
//! (the "has a zero byte" test), and hand longer slices to `memchr`.

/// The length from which a slice goes to `memchr`.
const SHORT: usize = 64;

/// One in every byte of a `u64`.
pub(crate) const ONES: u64 = 0x0101_0101_0101_0101;
/// The high bit of every byte of a `u64`.
pub(crate) const HIGHS: u64 = 0x8080_8080_8080_8080;
/// The low seven bits of every byte of a `u64`.
const LOWS: u64 = !HIGHS;

/// The bytes of `word` (little-endian) equal to `needle` (repeated in every byte), as a
/// mask: the high bit of the first such byte is set, and nothing below it is. Bytes above
/// the first may show false matches (the subtraction borrows), so only the lowest set bit
/// may be read.
#[inline(always)]
pub(crate) fn matches(word: u64, needle: u64) -> u64 {
    let x = word ^ needle;
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// [`matches`] with no false match anywhere, for the searches from the end: adding `LOWS`
/// to the low seven bits of a byte (which never carries into the next) sets its high bit
/// exactly where those bits, or the byte's own high bit, are not zero.
#[inline(always)]
fn matches_exactly(word: u64, needle: u64) -> u64 {
    let x = word ^ needle;
    !(((x & LOWS) + LOWS) | x) & HIGHS
}

/// The ASCII bytes of `word` from `low` to `high` (both ASCII, `low` not zero), as a mask of
/// their high bits, exactly: on the low seven bits of a byte, adding `0x80 - low` sets the
/// high bit from `low` up, adding `0x7F - high` from past `high` up, and neither carries
/// into the next byte.
#[inline(always)]
pub(crate) fn ascii_in_range(word: u64, low: u8, high: u8) -> u64 {
    let bits = word & LOWS;
    let from_low = bits + ONES * u64::from(0x80 - low);
    let past_high = bits + ONES * u64::from(0x7F - high);
    from_low & !past_high & !word & HIGHS
}

/// The eight bytes at the start of `chunk` (which has at least eight) as a little-endian
/// word.
#[inline(always)]
pub(crate) fn word(chunk: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&chunk[..8]);
    u64::from_le_bytes(w)
}

/// The index of the first byte of a short `haystack` that is one of `needles`, eight bytes at
/// a time (also for sets larger than [`find3`] takes).
#[inline(always)]
pub(crate) fn first_of<const N: usize>(needles: [u8; N], haystack: &[u8]) -> Option<usize> {
    let repeated = needles.map(|n| ONES * u64::from(n));
    // Each mask is exact up to its own first match, so the lowest of the first matches is
    // exact.
    let any = |w: u64| repeated.iter().fold(0, |m, &r| m | matches(w, r));
    let mut chunks = haystack.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let m = any(word(chunk));
        if m != 0 {
            return Some(base + (m.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    let n = haystack.len();
    if base == n || n < 8 {
        let tail = chunks.remainder();
        return tail
            .iter()
            .position(|c| needles.contains(c))
            .map(|i| base + i);
    }
    // The last eight bytes, overlapping bytes already looked at: those hold no needle, so
    // they neither match nor borrow, and the first match among the eight is the first of
    // the few bytes left.
    let last = n - 8;
    let m = any(word(&haystack[last..]));
    (m != 0).then(|| last + (m.trailing_zeros() / 8) as usize)
}

/// The index of the first `a` in `haystack`.
#[inline]
pub(crate) fn find(a: u8, haystack: &[u8]) -> Option<usize> {
    if haystack.len() >= SHORT {
        return memchr::memchr(a, haystack);
    }
    first_of([a], haystack)
}

/// The index of the first `a` or `b` in `haystack`.
#[inline]
pub(crate) fn find2(a: u8, b: u8, haystack: &[u8]) -> Option<usize> {
    if haystack.len() >= SHORT {
        return memchr::memchr2(a, b, haystack);
    }
    first_of([a, b], haystack)
}

/// The index of the first `a`, `b` or `c` in `haystack`.
#[inline]
pub(crate) fn find3(a: u8, b: u8, c: u8, haystack: &[u8]) -> Option<usize> {
    if haystack.len() >= SHORT {
        return memchr::memchr3(a, b, c, haystack);
    }
    first_of([a, b, c], haystack)
}

/// The index of the last `a` in `haystack`.
#[inline]
pub(crate) fn rfind(a: u8, haystack: &[u8]) -> Option<usize> {
    if haystack.len() >= SHORT {
        return memchr::memrchr(a, haystack);
    }
    let repeated = ONES * u64::from(a);
    let mut chunks = haystack.rchunks_exact(8);
    let mut end = haystack.len();
    for chunk in &mut chunks {
        let m = matches_exactly(word(chunk), repeated);
        if m != 0 {
            return Some(end - 1 - (m.leading_zeros() / 8) as usize);
        }
        end -= 8;
    }
    if end == 0 || haystack.len() < 8 {
        return chunks.remainder().iter().rposition(|&c| c == a);
    }
    // The first eight bytes, overlapping bytes already looked at, which hold no `a`: the
    // last match among the eight is the last of the few bytes left.
    let m = matches_exactly(word(haystack), repeated);
    (m != 0).then(|| 7 - (m.leading_zeros() / 8) as usize)
}

/// Whether `haystack` holds an ASCII byte from `low` to `high` (`low` at least 1), eight
/// bytes at a time ([`ascii_in_range`]).
#[inline]
pub(crate) fn has_ascii_in_range(haystack: &[u8], low: u8, high: u8) -> bool {
    let mut chunks = haystack.chunks_exact(8);
    let found = chunks.any(|c| ascii_in_range(word(c), low, high) != 0);
    found || chunks.remainder().iter().any(|c| (low..=high).contains(c))
}

/// The index of the first byte of `haystack` that is not ASCII.
#[inline]
pub(crate) fn find_non_ascii(haystack: &[u8]) -> Option<usize> {
    let mut chunks = haystack.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let high = word(chunk) & HIGHS;
        if high != 0 {
            return Some(base + (high.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    let n = haystack.len();
    if base == n || n < 8 {
        return chunks
            .remainder()
            .iter()
            .position(|&c| c >= 0x80)
            .map(|i| base + i);
    }
    // The last eight bytes, overlapping ASCII bytes already looked at.
    let last = n - 8;
    let high = word(&haystack[last..]) & HIGHS;
    (high != 0).then(|| last + (high.trailing_zeros() / 8) as usize)
}

/// Where `a` and `b` stand in `haystack` (at most 64 bytes): bit `k` of the first mask is set
/// when byte `k` is `a`, of the second when it is `b`.
#[inline]
pub(crate) fn positions2(a: u8, b: u8, haystack: &[u8]) -> (u64, u64) {
    debug_assert!(haystack.len() <= 64);
    let (ra, rb) = (ONES * u64::from(a), ONES * u64::from(b));
    let n = haystack.len();
    if n < 8 {
        let (mut ma, mut mb) = (0, 0);
        for (k, &c) in haystack.iter().enumerate() {
            ma |= u64::from(c == a) << k;
            mb |= u64::from(c == b) << k;
        }
        return (ma, mb);
    }
    let (mut ma, mut mb) = (0, 0);
    let mut at = 0;
    loop {
        // The last word overlaps the one before it: its bits are set twice.
        let from = at.min(n - 8);
        let w = word(&haystack[from..]);
        ma |= byte_bits(matches_exactly(w, ra)) << from;
        mb |= byte_bits(matches_exactly(w, rb)) << from;
        at += 8;
        if at >= n {
            return (ma, mb);
        }
    }
}

/// The high bits of the bytes of `high` (a mask of [`matches_exactly`]) as the low eight
/// bits, bit `k` for byte `k`: each byte's bit, moved to the bottom of its byte, is carried
/// to bit `56 + k` by the multiplication, with nothing else reaching the top byte.
#[inline(always)]
fn byte_bits(high: u64) -> u64 {
    ((high >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The high bit of each byte of `w` that is ASCII and from `low` to `high`.
    fn in_range_reference(w: [u8; 8], low: u8, high: u8) -> u64 {
        (0..8)
            .filter(|&k| (low..=high).contains(&w[k]))
            .fold(0, |m, k| m | 0x80 << (8 * k))
    }

    proptest! {
        #[test]
        fn ascii_in_range_is_exact(w: [u8; 8], low in 1u8..0x80, span in 0u8..0x80) {
            let high = low.saturating_add(span).min(0x7F);
            let found = ascii_in_range(u64::from_le_bytes(w), low, high);
            prop_assert_eq!(found, in_range_reference(w, low, high));
        }

        #[test]
        fn first_of_is_the_first_of_its_needles(
            hay in proptest::collection::vec(prop_oneof![Just(b'%'), Just(b','), Just(b')'), Just(0xA5u8), any::<u8>()], 0..100),
        ) {
            let needles = [b'%', b',', b'(', b')'];
            prop_assert_eq!(first_of(needles, &hay), hay.iter().position(|c| needles.contains(c)));
        }

        #[test]
        fn has_ascii_in_range_is_any_byte_in_it(
            hay in proptest::collection::vec(prop_oneof![Just(b'A'), Just(b'Z'), Just(b'@'), Just(b'['), Just(0xC1u8), any::<u8>()], 0..40),
        ) {
            prop_assert_eq!(has_ascii_in_range(&hay, b'A', b'Z'), hay.iter().any(u8::is_ascii_uppercase));
        }

        #[test]
        fn find_is_the_first_match(hay in proptest::collection::vec(any::<u8>(), 0..150), a: u8) {
            prop_assert_eq!(find(a, &hay), hay.iter().position(|&c| c == a));
        }

        #[test]
        fn rfind_is_the_last_match(
            hay in proptest::collection::vec(prop_oneof![Just(b'.'), Just(0x2Eu8 ^ 0x80), Just(0u8), any::<u8>()], 0..150),
        ) {
            prop_assert_eq!(rfind(b'.', &hay), hay.iter().rposition(|&c| c == b'.'));
        }

        #[test]
        fn find_non_ascii_is_the_first_high_byte(
            hay in proptest::collection::vec(prop_oneof![Just(0x7Fu8), Just(0x80u8), any::<u8>()], 0..150),
        ) {
            prop_assert_eq!(find_non_ascii(&hay), hay.iter().position(|&c| c >= 0x80));
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

    proptest! {
        #[test]
        fn positions2_are_where_each_byte_stands(
            hay in proptest::collection::vec(prop_oneof![Just(b'.'), Just(b'-'), Just(0xAEu8), Just(0u8), any::<u8>()], 0..=64),
        ) {
            let mask = |x: u8| hay.iter().enumerate().fold(0u64, |m, (k, &c)| m | u64::from(c == x) << k);
            prop_assert_eq!(positions2(b'.', b'-', &hay), (mask(b'.'), mask(b'-')));
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
        // From the end: a byte below a match must not hide it, nor look like one.
        assert_eq!(rfind(b'/', &hay), Some(8));
        assert_eq!(rfind(0x01, &hay), Some(1));
    }

    #[test]
    fn rfind_agrees_with_a_byte_loop_on_every_slice() {
        let texts: [&[u8]; 5] = [
            b"a.b.c",
            b"www.example.com",
            b"abcdefgh.ijklmnopqrstuvwxyz.ABCDEFGHIJKLMNOPQRSTUVWXYZ",
            b"\xae\xaeN\xce\x2e\xaf\x2f\x2d\xc3\x8e\x2e\x00\x01\xff",
            b"no-dots-in-this-one-at-all-0123456789",
        ];
        for text in texts {
            for start in 0..=text.len() {
                for end in start..=text.len() {
                    let t = &text[start..end];
                    assert_eq!(rfind(b'.', t), t.iter().rposition(|&c| c == b'.'), "{t:?}");
                }
            }
        }
    }
}
