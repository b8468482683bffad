//! Key fingerprints for `--unique` and `--stats` (SPEC §8 budgets: `--unique` at most 24
//! bytes per distinct key): keys are remembered as 128-bit XXH3 fingerprints in a
//! [`FingerprintSet`], and [`keep_first`] squeezes the records of keys seen before out of a
//! chunk's output.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use crate::stream::chunk::Span;

/// A hash set of 128-bit key fingerprints. The fingerprints are already uniformly
/// distributed, so hashing one is taking its low 64 bits.
pub(super) type FingerprintSet = HashSet<u128, BuildHasherDefault<FingerprintHasher>>;

/// The fingerprint of a key (XXH3-128).
#[inline]
pub(super) fn fingerprint(key: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(key.as_bytes())
}

/// The [`Hasher`] of [`FingerprintSet`].
#[derive(Default)]
pub(super) struct FingerprintHasher(u64);

impl Hasher for FingerprintHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Not used for u128 keys (see `write_u128`); a plain fold keeps it correct anyway.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u128(&mut self, fingerprint: u128) {
        self.0 = fingerprint as u64;
    }
}

/// Squeezes out of `out` the records whose key is in `seen` already, and adds the others'
/// keys to it. `spans` are the valid records' outputs in `out`, in order; what lies between
/// them (invalid records) stays. Returns how many records were squeezed out.
pub(super) fn keep_first(out: &mut Vec<u8>, spans: &[Span], seen: &mut FingerprintSet) -> u64 {
    let mut dropped = 0;
    let mut kept = 0;
    let mut from = 0;
    for span in spans {
        let to = if seen.insert(span.fingerprint) {
            span.end
        } else {
            dropped += 1;
            span.start
        };
        if kept != from {
            out.copy_within(from..to, kept);
        }
        kept += to - from;
        from = span.end;
    }
    let len = out.len();
    if kept != from {
        out.copy_within(from..len, kept);
    }
    out.truncate(kept + (len - from));
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_tell_keys_apart() {
        let mut set = FingerprintSet::default();
        assert!(set.insert(fingerprint("http://a/")));
        assert!(!set.insert(fingerprint("http://a/")));
        assert!(set.insert(fingerprint("http://b/")));
        assert_eq!(set.len(), 2);
    }

    #[test]
    fn keep_first_drops_the_records_of_keys_seen_before() {
        let span = |start, end, key| Span {
            start,
            end,
            fingerprint: fingerprint(key),
        };
        // "a" was written by an earlier chunk; "!" is an invalid record between spans.
        let mut seen = FingerprintSet::default();
        seen.insert(fingerprint("a"));
        let mut out = b"a\nb\n!\na\nc\n".to_vec();
        let spans = [
            span(0, 2, "a"),
            span(2, 4, "b"),
            span(6, 8, "a"),
            span(8, 10, "c"),
        ];
        assert_eq!(keep_first(&mut out, &spans, &mut seen), 2);
        assert_eq!(out, b"b\n!\nc\n");
        assert!(seen.contains(&fingerprint("b")) && seen.contains(&fingerprint("c")));
        let mut again = b"b\nc\n".to_vec();
        let spans = [span(0, 2, "b"), span(2, 4, "c")];
        assert_eq!(keep_first(&mut again, &spans, &mut seen), 2);
        assert!(again.is_empty());
    }
}
