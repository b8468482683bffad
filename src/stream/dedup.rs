//! Exact key deduplication for `--unique` (SPEC §8 budget: at most 24 bytes per distinct
//! key). This module owns the key fingerprint ([`fingerprint`], XXH3-128), the set that
//! remembers fingerprints ([`FingerprintSet`]), and [`keep_first`], which squeezes the
//! records of keys seen before out of a chunk's output.
//!
//! # The set
//!
//! [`FingerprintSet`] is an open-addressing hash table of bare 16-byte fingerprints, built
//! for memory per key rather than for generality:
//!
//! - The fingerprints are uniformly distributed already, so their own bits place them: the
//!   top [`SHARD_BITS`] bits pick one of [`SHARDS`] sub-tables, and the next 64 bits pick
//!   the home slot in it by multiply-shift range reduction (those bits as a fraction of 2⁶⁴,
//!   times the capacity), which works for any capacity, not only powers of two.
//! - A sub-table is an array of fingerprints with linear probing, kept in ascending order:
//!   an insert shifts the rest of its run one slot to the right. Within a sub-table the
//!   home slot grows with the fingerprint, so the order is also that of the home slots, for
//!   any capacity. A look-up stops at the first slot that is empty or holds a larger
//!   fingerprint. The array does not wrap around: [`TAIL`] slots past the capacity take the
//!   runs that reach its end (a run longer than that is rare with uniform fingerprints; it
//!   gets a longer tail).
//! - A sub-table fills up to [`MAX_LOAD`] (7/8) of its capacity before it grows by a
//!   quarter, so it stays between 7/10 and 7/8 full: 18.3 to 22.9 bytes of slots per key.
//!   The sub-tables start at capacities spread over one growth step, so they grow at
//!   different sizes and the whole stays near the average, about 20.5 bytes per key at any
//!   number of keys, instead of swinging between the two. Growing is one pass in order,
//!   without probing: each fingerprint goes to its new home slot or, if that is taken,
//!   just after the one before.
//! - Each sub-table grows alone, so growing holds two copies of one sub-table at most (one
//!   [`SHARDS`]th of the whole), where a single table doubling in one step would hold both
//!   the old and the new array: three times the memory of the old one.
//! - The value 0 marks an empty slot. A key whose fingerprint is really 0 is stored as
//!   [`ZERO_STAND_IN`] instead, everywhere (insert and look-up alike), so the two values
//!   are one fingerprint to the set. That adds one colliding pair among 2¹²⁸ values: the
//!   odds that two of n distinct keys are taken for one stay about n²/2¹²⁹.

//!
//! # Its memory cap
//!
//! A set may be given a cap on the bytes of its slots ([`FingerprintSet::with_limit`]). A
//! growth that would pass it (counting both copies of the sub-table that grows, which are
//! held together for a moment) is not made: the insert fails with [`Full`], and the set stays
//! as it was, so a run can stop with a clear error before the system runs out of memory.

use crate::stream::chunk::Span;

/// An insert refused because the set would have grown past its memory cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Full;

/// The fingerprint of a key (XXH3-128).
#[inline]
pub(super) fn fingerprint(key: &[u8]) -> u128 {
    xxhash_rust::xxh3::xxh3_128(key)
}

/// How many top bits of a fingerprint select its sub-table.
const SHARD_BITS: u32 = 6;
/// The number of sub-tables.
const SHARDS: usize = 1 << SHARD_BITS;
/// The most a sub-table is filled before it grows: `MAX_LOAD.0 / MAX_LOAD.1` of its
/// capacity.
const MAX_LOAD: (usize, usize) = (7, 8);
/// The capacity of the first sub-table before its first growth; the others start at up to a
/// quarter more (one growth step), spread evenly.
const FIRST_CAPACITY: usize = 64;
/// The slots past the capacity of a sub-table, for the runs that reach its end.
const TAIL: usize = 32;
/// An empty slot.
const EMPTY: u128 = 0;
/// What a fingerprint of 0 (the empty marker) is stored as.
const ZERO_STAND_IN: u128 = 1;

/// A set of 128-bit key fingerprints (see the [module](self) comment for its layout).
pub(super) struct FingerprintSet {
    shards: Box<[Shard]>,
    len: usize,
    /// The bytes of the slots of all sub-tables.
    bytes: usize,
    /// The most bytes the slots may take, growth included.
    limit: usize,
}

/// One sub-table: `capacity` home slots and a tail of [`TAIL`] or more, in ascending order
/// but for the empty ones.
struct Shard {
    slots: Box<[u128]>,
    capacity: usize,
    len: usize,
}

impl Default for FingerprintSet {
    fn default() -> Self {
        let stagger = |i| FIRST_CAPACITY + FIRST_CAPACITY * i / (4 * SHARDS);
        let shards = (0..SHARDS).map(|i| Shard::with_capacity(stagger(i)));
        let shards: Box<[Shard]> = shards.collect();
        let bytes = shards.iter().map(Shard::bytes).sum();
        FingerprintSet {
            shards,
            len: 0,
            bytes,
            limit: usize::MAX,
        }
    }
}

impl FingerprintSet {
    /// An empty set whose slots may take at most `limit` bytes (see the [module](self)
    /// comment); an empty set takes about 100 KiB.
    pub(super) fn with_limit(limit: usize) -> Self {
        FingerprintSet {
            limit,
            ..FingerprintSet::default()
        }
    }

    /// Adds `fingerprint`; returns whether it was new, or [`Full`] where adding it would
    /// grow the set past its cap (the set is then as it was).
    #[inline]
    pub(super) fn insert(&mut self, fingerprint: u128) -> Result<bool, Full> {
        let f = stored(fingerprint);
        let room = self.limit.saturating_sub(self.bytes);
        let shard = &mut self.shards[shard_of(f)];
        let before = shard.bytes();
        let new = shard.insert(f, room)?;
        self.bytes = self.bytes - before + shard.bytes();
        self.len += usize::from(new);
        Ok(new)
    }

    /// The bytes the slots of the set take.
    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.bytes
    }

    /// Whether `fingerprint` is in the set.
    #[cfg(test)]
    pub(super) fn contains(&self, fingerprint: u128) -> bool {
        let f = stored(fingerprint);
        let shard = &self.shards[shard_of(f)];
        shard.slots.get(shard.search(f)) == Some(&f)
    }

    /// Reads the home slot of each of `fingerprints` and the cache line after it (where a
    /// search or an insert usually ends), so that the cache misses of a batch of inserts
    /// overlap instead of coming one after the other.
    #[inline]
    pub(super) fn prefetch(&self, fingerprints: impl Iterator<Item = u128>) {
        let mut any = EMPTY;
        for f in fingerprints.map(stored) {
            let shard = &self.shards[shard_of(f)];
            let at = home(f, shard.capacity);
            // 4 slots to a 64-byte line; the tail keeps `at + 4` within the slots.
            any ^= shard.slots[at] ^ shard.slots[at + 4];
        }
        std::hint::black_box(any);
    }

    /// The number of fingerprints in the set.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The bytes of the slots of all sub-tables, counted afresh.
    #[cfg(test)]
    fn slot_bytes(&self) -> usize {
        let slots: usize = self.shards.iter().map(|s| s.slots.len()).sum();
        slots * std::mem::size_of::<u128>()
    }
}

/// How `fingerprint` is stored: as itself, except 0, the empty marker.
#[inline]
fn stored(fingerprint: u128) -> u128 {
    if fingerprint == EMPTY {
        ZERO_STAND_IN
    } else {
        fingerprint
    }
}

/// The sub-table of a stored fingerprint: its top bits.
#[inline]
fn shard_of(f: u128) -> usize {
    (f >> (128 - SHARD_BITS)) as usize
}

/// The home slot of a stored fingerprint in a sub-table of `capacity`: the 64 bits after
/// the sub-table's, as a fraction of 2⁶⁴, times the capacity.
#[inline]
fn home(f: u128, capacity: usize) -> usize {
    let bits = (f << SHARD_BITS >> 64) as u64;
    ((u128::from(bits) * capacity as u128) >> 64) as usize
}

impl Shard {
    fn with_capacity(capacity: usize) -> Self {
        Shard {
            slots: vec![EMPTY; capacity + TAIL].into_boxed_slice(),
            capacity,
            len: 0,
        }
    }

    /// The bytes of the slots.
    fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<u128>()
    }

    /// Adds the stored fingerprint `f`; returns whether it was new. A growth may take
    /// `room` more bytes at most, the old slots included (both are held while it is made):
    /// [`Full`] where it would take more.
    #[inline]
    fn insert(&mut self, f: u128, room: usize) -> Result<bool, Full> {
        loop {
            let at = self.search(f);
            if self.slots.get(at) == Some(&f) {
                return Ok(false);
            }
            if (self.len + 1) * MAX_LOAD.1 > self.capacity * MAX_LOAD.0 {
                self.grow(self.capacity + (self.capacity / 4).max(1), room)?;
                continue;
            }
            // Shift the rest of the run, up to the next empty slot, to make room.
            let slots = &mut self.slots[at..];
            match slots.iter().position(|&s| s == EMPTY) {
                Some(end) => {
                    slots.copy_within(..end, 1);
                    slots[0] = f;
                    self.len += 1;
                    return Ok(true);
                }
                // The run reaches the end of the tail: lengthen the tail.
                None => self.grow(self.capacity, room)?,
            }
        }
    }

    /// [`Shard::rebuild`] for `capacity`, where the new slots fit in `room` bytes: counted
    /// as `capacity`, or the slots now, whichever is more, plus a tail, which is what the
    /// rebuild makes (the fingerprints never lie past the slots now). (A run that overflows
    /// the new tail while the slots are rebuilt takes a few slots more: rare with uniform
    /// fingerprints.)
    fn grow(&mut self, capacity: usize, room: usize) -> Result<(), Full> {
        let at_least = capacity.max(self.slots.len()) + TAIL;
        if at_least.saturating_mul(std::mem::size_of::<u128>()) > room {
            return Err(Full);
        }
        self.rebuild(capacity);
        Ok(())
    }

    /// The slot of `f` if it is here, or else where it would go: the first slot from its
    /// home on that is empty or holds a larger fingerprint (possibly the end of `slots`).
    #[inline]
    fn search(&self, f: u128) -> usize {
        let start = home(f, self.capacity);
        let run = self.slots[start..]
            .iter()
            .position(|&s| s == EMPTY || s >= f);
        start + run.unwrap_or(self.slots.len() - start)
    }

    /// Moves the fingerprints into new slots for `capacity`, in one pass in order: each goes
    /// to its home slot, or just after the one before if that is further on. The new slots
    /// end [`TAIL`] empty slots past the capacity or past the last fingerprint, whichever
    /// comes later.
    fn rebuild(&mut self, capacity: usize) {
        let mut slots = vec![EMPTY; capacity + TAIL];
        let mut next = 0;
        // Without a branch on empty slots: an empty slot's home is 0, so it is written to
        // `next`, which is empty, and `next` stays.
        for &f in self.slots.iter() {
            let at = home(f, capacity).max(next);
            if at >= slots.len() {
                // Only when a run overflows the tail: many fingerprints near the end.
                slots.resize(at + 1 + TAIL, EMPTY);
            }
            slots[at] = f;
            next = at + usize::from(f != EMPTY);
        }
        slots.resize(capacity.max(next) + TAIL, EMPTY);
        self.slots = slots.into_boxed_slice();
        self.capacity = capacity;
    }
}

/// How many fingerprints [`keep_first`] hands to [`FingerprintSet::prefetch`] at a time.
const PREFETCH_BATCH: usize = 32;

/// What [`keep_first`] did with a chunk.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Kept {
    /// How many records were squeezed out.
    pub(super) dropped: u64,
    /// Where the set was full: the index in `spans` of the record whose key did not fit.
    /// `out` then ends just before that record.
    pub(super) full_at: Option<usize>,
}

/// Squeezes out of `out` the records whose key is in `seen` already, and adds the others'
/// keys to it. `spans` are the valid records' outputs in `out`, in order; what lies between
/// them (invalid records) stays. Where the set is full ([`Full`]), `out` is cut just before
/// the record whose key did not fit.
pub(super) fn keep_first(out: &mut Vec<u8>, spans: &[Span], seen: &mut FingerprintSet) -> Kept {
    let mut dropped = 0;
    let mut kept = 0;
    let mut from = 0;
    for (b, batch) in spans.chunks(PREFETCH_BATCH).enumerate() {
        seen.prefetch(batch.iter().map(|s| s.fingerprint));
        for (i, span) in batch.iter().enumerate() {
            let Ok(new) = seen.insert(span.fingerprint) else {
                // The records before this one stay, and nothing after.
                out.copy_within(from..span.start, kept);
                out.truncate(kept + (span.start - from));
                let full_at = Some(b * PREFETCH_BATCH + i);
                return Kept { dropped, full_at };
            };
            let to = if new {
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
    }
    let len = out.len();
    if kept != from {
        out.copy_within(from..len, kept);
    }
    out.truncate(kept + (len - from));
    Kept {
        dropped,
        full_at: None,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use proptest::prelude::*;

    use super::*;

    #[test]
    fn fingerprints_tell_keys_apart() {
        let mut set = FingerprintSet::default();
        assert!(set.insert(fingerprint(b"http://a/")).unwrap());
        assert!(!set.insert(fingerprint(b"http://a/")).unwrap());
        assert!(set.insert(fingerprint(b"http://b/")).unwrap());
        assert_eq!(set.len(), 2);
    }

    #[test]
    fn zero_and_its_stand_in_are_one_fingerprint() {
        let mut set = FingerprintSet::default();
        assert!(!set.contains(0));
        assert!(set.insert(0).unwrap());
        assert!(set.contains(0) && set.contains(ZERO_STAND_IN));
        assert!(!set.insert(0).unwrap());
        assert!(!set.insert(ZERO_STAND_IN).unwrap());
        assert_eq!(set.len(), 1);
        // Their neighbours in both halves of the value are other fingerprints.
        for other in [2, 1 << 64, u128::MAX] {
            assert!(!set.contains(other));
            assert!(set.insert(other).unwrap());
        }
        assert_eq!(set.len(), 4);
    }

    /// Deterministic, well-spread fingerprints: XXH3-128 of the numbers.
    fn spread(n: u64) -> impl Iterator<Item = u128> {
        (0..n).map(|i| xxhash_rust::xxh3::xxh3_128(&i.to_le_bytes()))
    }

    #[test]
    fn growth_keeps_every_fingerprint_at_every_size() {
        let mut set = FingerprintSet::default();
        let mut next = 0;
        let small = [0, 1, 7, 8, 9, 100, 2_047, 2_048, 2_049, 10_000];
        for size in small
            .into_iter()
            .chain([50_000, 75_000, 120_000, 150_000, 200_000])
        {
            for f in spread(size).skip(next) {
                assert!(set.insert(f).unwrap());
            }
            next = next.max(size as usize);
            assert_eq!(set.len(), next);
            assert!(spread(next as u64).all(|f| set.contains(f)));
            assert!(spread(next as u64).all(|f| !set.insert(f).unwrap()));
            assert!(!set.contains(xxhash_rust::xxh3::xxh3_128(b"absent")));
            set.shards.iter().for_each(assert_valid);
            // The sub-tables, spread over the growth cycle, take about 20.5 bytes of slots a
            // key at any size (each between 16 × 8/7 and 16 × 8/7 × 5/4), the tails a little
            // more.
            let per_key = set.slot_bytes() as f64 / set.len() as f64;
            if size >= 50_000 {
                assert!(
                    (19.5..=21.5).contains(&per_key),
                    "{size}: {per_key} bytes per key"
                );
            }
        }
    }

    #[test]
    fn runs_past_the_end_get_a_longer_tail_not_more_capacity() {
        // Fingerprints of one sub-table whose home is its last slot, whatever the capacity,
        // and some whose home is the first.
        let last = |i: u128| (u128::from(u64::MAX) << (64 - SHARD_BITS)) | i;
        let mut set = FingerprintSet::default();
        for i in 1..=1000 {
            assert!(set.insert(last(i)).unwrap());
            assert!(set.insert(i << 1).unwrap());
        }
        assert!((1..=1000).all(|i| set.contains(last(i)) && set.contains(i << 1)));
        assert!((1..=1000).all(|i| !set.insert(last(i)).unwrap()));
        assert_eq!(set.len(), 2000);
        let shard = &set.shards[0];
        assert_valid(shard);
        assert!(shard.capacity < 2000 * 8 / 7 * 5 / 4, "{}", shard.capacity);
        assert!(shard.slots.len() >= 1000 + shard.capacity);
    }

    /// Checks the layout of a sub-table: its count, its load, and its fingerprints in
    /// ascending order, each at or after its home slot with no empty slot between.
    fn assert_valid(shard: &Shard) {
        assert!(shard.len * MAX_LOAD.1 <= shard.capacity * MAX_LOAD.0);
        assert!(shard.slots.len() >= shard.capacity + TAIL);
        let mut used = 0;
        let mut last = EMPTY;
        for (at, &f) in shard.slots.iter().enumerate().filter(|(_, &f)| f != EMPTY) {
            assert!(f > last, "out of order at {at}");
            let home = home(f, shard.capacity);
            assert!(
                shard.slots[home..at].iter().all(|&s| s != EMPTY),
                "gap before {at}"
            );
            (used, last) = (used + 1, f);
        }
        assert_eq!(used, shard.len);
    }

    /// A fingerprint other than `f` with its sub-table and home slot (its top 64 +
    /// `SHARD_BITS` bits), the bits below taken from `random`.
    fn same_place(f: u128, random: u128) -> u128 {
        let below = u128::MAX >> (64 + SHARD_BITS);
        f ^ ((random & below) | 1)
    }

    proptest! {
        /// Inserts and look-ups agree with a std `HashSet`, for random fingerprints, some of
        /// them repeated, some sharing a sub-table or a home slot, 0 among them.
        #[test]
        fn agrees_with_a_std_hash_set(
            ops in prop::collection::vec((any::<u128>(), 0u8..8, any::<bool>()), 0..3000),
        ) {
            let mut set = FingerprintSet::default();
            let mut reference = HashSet::new();
            let mut earlier = Vec::new();
            for (random, how, insert) in ops {
                let f = match how {
                    0 => 0,
                    // A fingerprint seen before.
                    1 | 2 if !earlier.is_empty() => earlier[random as usize % earlier.len()],
                    // The same sub-table and home slot as the last one, another value.
                    3 => earlier.last().map_or(random, |&e| same_place(e, random)),
                    _ => random,
                };
                earlier.push(f);
                let f_key = stored(f);
                if insert {
                    prop_assert_eq!(set.insert(f).unwrap(), reference.insert(f_key));
                } else {
                    prop_assert_eq!(set.contains(f), reference.contains(&f_key));
                }
                prop_assert_eq!(set.len(), reference.len());
            }
            for f in earlier {
                prop_assert_eq!(set.contains(f), reference.contains(&stored(f)));
            }
            set.shards.iter().for_each(assert_valid);
        }
    }

    #[test]
    fn keep_first_drops_the_records_of_keys_seen_before() {
        let span = |start, end, key: &str| Span {
            start,
            end,
            line: 0,
            fingerprint: fingerprint(key.as_bytes()),
        };
        // "a" was written by an earlier chunk; "!" is an invalid record between spans.
        let mut seen = FingerprintSet::default();
        seen.insert(fingerprint(b"a")).unwrap();
        let mut out = b"a\nb\n!\na\nc\n".to_vec();
        let spans = [
            span(0, 2, "a"),
            span(2, 4, "b"),
            span(6, 8, "a"),
            span(8, 10, "c"),
        ];
        assert_eq!(keep_first(&mut out, &spans, &mut seen).dropped, 2);
        assert_eq!(out, b"b\n!\nc\n");
        assert!(seen.contains(fingerprint(b"b")) && seen.contains(fingerprint(b"c")));
        let mut again = b"b\nc\n".to_vec();
        let spans = [span(0, 2, "b"), span(2, 4, "c")];
        assert_eq!(keep_first(&mut again, &spans, &mut seen).dropped, 2);
        assert!(again.is_empty());
    }

    #[test]
    fn a_capped_set_refuses_to_grow_past_its_cap_and_stays_as_it_was() {
        let limit = 1 << 20;
        let mut set = FingerprintSet::with_limit(limit);
        let mut added = 0u64;
        let mut refused = None;
        for f in spread(200_000) {
            match set.insert(f) {
                Ok(new) => {
                    assert!(new);
                    added += 1;
                }
                Err(Full) => {
                    refused = Some(f);
                    break;
                }
            }
            assert!(set.bytes() <= limit);
        }
        let refused = refused.expect("1 MiB cannot hold 200,000 fingerprints");
        assert_eq!(set.len() as u64, added);
        assert_eq!(set.bytes(), set.slot_bytes());
        // Near the cap: at least half of it holds fingerprints.
        assert!(added * 16 * 2 > limit as u64, "{added}");
        // Still as it was: every fingerprint in, the refused one out, and refused again.
        assert!(spread(added).all(|f| set.contains(f)));
        assert!(!set.contains(refused));
        assert_eq!(set.insert(refused), Err(Full));
        // A fingerprint already in is still found (no growth needed).
        assert_eq!(set.insert(spread(1).next().unwrap()), Ok(false));
        set.shards.iter().for_each(assert_valid);
    }

    #[test]
    fn keep_first_cuts_the_output_before_the_record_that_did_not_fit() {
        let span = |start, end, f| Span {
            start,
            end,
            line: 0,
            fingerprint: f,
        };
        // A set with no room to grow at all: it takes keys until a sub-table must grow.
        let mut seen = FingerprintSet::with_limit(0);
        let fs: Vec<u128> = spread(10_000).collect();
        let mut out = Vec::new();
        let mut spans = Vec::new();
        for (i, &f) in fs.iter().enumerate() {
            // An invalid record's line ("!") before every tenth record.
            if i % 10 == 0 {
                out.extend_from_slice(b"!\n");
            }
            let start = out.len();
            out.extend_from_slice(format!("{i}\n").as_bytes());
            spans.push(span(start, out.len(), f));
        }
        let kept = keep_first(&mut out, &spans, &mut seen);
        let at = kept.full_at.expect("the set fills up");
        assert_eq!(kept.dropped, 0);
        assert_eq!(seen.len(), at);
        // The output is every record before `at`, the invalid ones among them too.
        let mut want = Vec::new();
        for i in 0..at {
            if i % 10 == 0 {
                want.extend_from_slice(b"!\n");
            }
            want.extend_from_slice(format!("{i}\n").as_bytes());
        }
        if at % 10 == 0 {
            want.extend_from_slice(b"!\n");
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            String::from_utf8(want).unwrap()
        );
    }
}
