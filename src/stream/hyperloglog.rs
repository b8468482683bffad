//! Estimated distinct-key counts for `--stats` without `--unique`, in fixed memory: this
//! module owns [`HyperLogLog`], a sketch of 2¹⁴ one-byte registers (16 KiB whatever the
//! number of keys) fed by the keys' 128-bit fingerprints.
//!
//! The sketch is the HyperLogLog of Flajolet, Fusy, Gandouet and Meunier ("HyperLogLog:
//! the analysis of a near-optimal cardinality estimation algorithm", AofA 2007): the top
//! [`INDEX_BITS`] bits of a fingerprint pick a register, which keeps the largest rank seen
//! (the position of the first 1 bit in the low 64 bits, counted from the top and from 1).
//! Its relative standard error is about 1.04/√m for m registers: 1.04/128 ≈ 0.81% here
//! ([`STANDARD_ERROR`]).
//!
//! The count is read with Ertl's improved estimator ("New cardinality estimation algorithms
//! for HyperLogLog sketches", 2017, arXiv:1702.01284, §4): the harmonic mean of the
//! original paper, with the registers still at 0 and those at the highest rank weighted by
//! the functions σ and τ. It needs neither the switch to linear counting for small counts
//! of the original nor empirical bias tables, and is close to unbiased from 0 keys up.

/// How many top bits of a fingerprint pick its register.
const INDEX_BITS: u32 = 14;
/// The number of registers, m.
const REGISTERS: usize = 1 << INDEX_BITS;
/// The bits that give the rank: the low 64 of the fingerprint. Ranks run from 1 to
/// `RANK_BITS + 1`.
const RANK_BITS: usize = 64;
/// The relative standard error of the estimate, 1.04/√m.
pub(super) const STANDARD_ERROR: f64 = 1.04 / 128.0;

/// A HyperLogLog sketch of a set of 128-bit fingerprints.
pub(super) struct HyperLogLog {
    /// The largest rank seen per register (0: none seen).
    registers: Box<[u8]>,
}

impl Default for HyperLogLog {
    fn default() -> Self {
        HyperLogLog {
            registers: vec![0; REGISTERS].into_boxed_slice(),
        }
    }
}

impl HyperLogLog {
    /// Adds `fingerprint` (uniformly distributed bits, such as XXH3-128's).
    #[inline]
    pub(super) fn insert(&mut self, fingerprint: u128) {
        let index = (fingerprint >> (128 - INDEX_BITS)) as usize;
        let rank = (fingerprint as u64).leading_zeros() as u8 + 1;
        let register = &mut self.registers[index];
        *register = (*register).max(rank);
    }

    /// Adds the fingerprints added to `other`: the sketch of the union of the two sets.
    pub(super) fn merge(&mut self, other: &HyperLogLog) {
        for (mine, &theirs) in self.registers.iter_mut().zip(other.registers.iter()) {
            *mine = (*mine).max(theirs);
        }
    }

    /// Forgets every fingerprint added.
    pub(super) fn clear(&mut self) {
        self.registers.fill(0);
    }

    /// The estimated number of distinct fingerprints added (0 when none was).
    pub(super) fn estimate(&self) -> u64 {
        // counts[k]: how many registers hold rank k.
        let mut counts = [0usize; RANK_BITS + 2];
        for &r in self.registers.iter() {
            counts[usize::from(r)] += 1;
        }
        let m = REGISTERS as f64;
        if counts[0] == REGISTERS {
            return 0;
        }
        // Ertl's Algorithm 6, with q = RANK_BITS.
        let mut z = m * tau(1.0 - counts[RANK_BITS + 1] as f64 / m);
        for &c in counts[1..=RANK_BITS].iter().rev() {
            z = 0.5 * (z + c as f64);
        }
        z += m * sigma(counts[0] as f64 / m);
        let alpha = 0.5 / std::f64::consts::LN_2;
        (alpha * m * m / z).round() as u64
    }
}

/// σ(x) = x + Σ_{k≥1} x^(2^k) · 2^(k−1), for 0 ≤ x < 1, summed until the terms vanish.
fn sigma(mut x: f64) -> f64 {
    let mut y = 1.0;
    let mut z = x;
    loop {
        x *= x;
        let before = z;
        z += x * y;
        y += y;
        if z == before {
            return z;
        }
    }
}

/// τ(x) = (1 − x − Σ_{k≥1} (1 − x^(2^−k))² · 2^−k) / 3, for 0 ≤ x ≤ 1, summed until the
/// terms vanish.
fn tau(mut x: f64) -> f64 {
    if x == 0.0 || x == 1.0 {
        return 0.0;
    }
    let mut y = 1.0;
    let mut z = 1.0 - x;
    loop {
        x = x.sqrt();
        let before = z;
        y *= 0.5;
        z -= (1.0 - x) * (1.0 - x) * y;
        if z == before {
            return z / 3.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The estimate after `n` distinct fingerprints, each added twice: XXH3-128 of the
    /// numbers from `from`, so that each size is one fixed draw.
    fn estimate(from: u64, n: u64) -> u64 {
        let mut sketch = HyperLogLog::default();
        for _ in 0..2 {
            for i in from..from + n {
                sketch.insert(xxhash_rust::xxh3::xxh3_128(&i.to_le_bytes()));
            }
        }
        sketch.estimate()
    }

    #[test]
    fn small_counts_are_exact() {
        assert_eq!(HyperLogLog::default().estimate(), 0);
        assert_eq!(estimate(0, 1), 1);
        assert_eq!(estimate(1 << 40, 1), 1);
        assert_eq!(estimate(0, 10), 10);
    }

    #[test]
    fn estimates_are_within_three_standard_errors() {
        // Across the range where the original estimator switches to linear counting
        // (2.5 m ≈ 41 000) and well past it.
        for n in [1_000, 10_000, 30_000, 41_000, 60_000, 100_000, 1_000_000] {
            for from in [0, 1 << 32] {
                let got = estimate(from, n) as f64;
                let error = (got - n as f64).abs() / n as f64;
                assert!(error < 3.0 * STANDARD_ERROR, "{n}: {got} ({error:.4})");
            }
        }
    }

    #[test]
    fn merged_sketches_are_the_sketch_of_the_union() {
        let sketch = |range: std::ops::Range<u64>| {
            let mut sketch = HyperLogLog::default();
            range.for_each(|i| sketch.insert(xxhash_rust::xxh3::xxh3_128(&i.to_le_bytes())));
            sketch
        };
        let mut merged = sketch(0..30_000);
        merged.merge(&sketch(20_000..50_000));
        assert_eq!(merged.registers, sketch(0..50_000).registers);
        merged.clear();
        assert_eq!(merged.estimate(), 0);
    }

    #[test]
    fn rank_saturates_at_the_top() {
        // A fingerprint with its low 64 bits all zero has the highest rank, 65.
        let mut sketch = HyperLogLog::default();
        sketch.insert(5 << 120);
        assert_eq!(sketch.registers[5 << 6], 65);
        assert_eq!(sketch.estimate(), 1);
    }

    #[test]
    fn sigma_and_tau_at_their_ends() {
        assert_eq!(sigma(0.0), 0.0);
        // 0.5 + 0.25 + 0.0625 × 2 + 0.0039 × 4 + …
        assert!((sigma(0.5) - 0.890_747).abs() < 1e-6, "{}", sigma(0.5));
        assert_eq!(tau(0.0), 0.0);
        assert_eq!(tau(1.0), 0.0);
    }
}
