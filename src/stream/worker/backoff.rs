//! When a worker asks the fast path about the line at hand: [`Backoff`], which stops asking
//! for a while on input whose lines are mostly not canonical.

/// When a worker asks the fast path about the line at hand. After [`Backoff::REFUSALS`]
/// lines in a row that it did not take, the worker hands lines straight to the operation
/// for a while ([`Backoff::FIRST`] lines, twice as many each time the line tried after
/// them is refused too, up to [`Backoff::MOST`]), so that an input whose lines are mostly
/// not canonical does not pay for a scan of each line that ends in the full ladder anyway.
/// A line the fast path takes starts the count again. Either way a line gets the same
/// result: the fast path takes a line only where the operation would give the line itself.
#[derive(Debug)]
pub(super) struct Backoff {
    /// Lines refused in a row (at most `REFUSALS - 1` once lines have been skipped).
    refused: u32,
    /// Lines still to hand straight to the operation.
    skip: u32,
    /// How many to skip after the next refusal that reaches `REFUSALS`.
    next: u32,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            refused: 0,
            skip: 0,
            next: Backoff::FIRST,
        }
    }
}

impl Backoff {
    /// Refusals in a row before lines are skipped.
    pub(super) const REFUSALS: u32 = 8;
    /// Lines skipped the first time.
    pub(super) const FIRST: u32 = 16;
    /// The most lines skipped at once.
    pub(super) const MOST: u32 = 1024;

    /// Whether to ask the fast path about the line at hand (each `false` skips one line).
    #[inline]
    pub(super) fn tries(&mut self) -> bool {
        if self.skip == 0 {
            return true;
        }
        self.skip -= 1;
        false
    }

    /// The fast path took lines.
    #[inline]
    pub(super) fn taken(&mut self) {
        self.refused = 0;
        self.next = Backoff::FIRST;
    }

    /// The fast path refused a line.
    #[inline]
    pub(super) fn refused(&mut self) {
        self.refused += 1;
        if self.refused >= Backoff::REFUSALS {
            self.skip = self.next;
            self.next = (self.next * 2).min(Backoff::MOST);
            self.refused = Backoff::REFUSALS - 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_path_is_skipped_for_a_while_after_refusals_in_a_row() {
        let mut b = Backoff::default();
        let skipped = |b: &mut Backoff| (0..5000).take_while(|_| !b.tries()).count();
        for _ in 0..Backoff::REFUSALS - 1 {
            assert!(b.tries());
            b.refused();
        }
        assert!(b.tries());
        b.refused();
        assert_eq!(skipped(&mut b), 16);
        // Refused again after the skip: twice as many, up to the most.
        for want in [32, 64, 128, 256, 512, 1024, 1024] {
            b.refused();
            assert_eq!(skipped(&mut b), want);
        }
        // Taken: the count starts again.
        b.taken();
        for _ in 0..Backoff::REFUSALS - 1 {
            b.refused();
            assert!(b.tries());
        }
        b.refused();
        assert_eq!(skipped(&mut b), 16);
    }
}
