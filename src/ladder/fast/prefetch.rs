//! Reading the input ahead of the scan: a hint to the processor to fetch the bytes some
//! way past the line at hand into its cache while the scan works on that line, so that they
//! are there by the time the engine validates and scans them (the input's first reads wait
//! on memory otherwise: see docs/performance.md).

/// How far past the line at hand the input is fetched: about one piece of the worker's
/// validation (`stream::worker`), so that a piece is in the cache when it is validated and
/// the prefetched bytes stay well within the first- and second-level caches.
pub(super) const AHEAD: usize = 16 * 1024;

/// Asks the processor to fetch the cache line at `at + AHEAD` bytes from the start of `b`
/// (which may lie past the end of `b`: only the address is made, nothing is read).
#[inline(always)]
pub(super) fn ahead(b: &[u8], at: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = b.as_ptr().wrapping_add(at.wrapping_add(AHEAD));
        // SAFETY: a prefetch is a hint: it changes nothing the program can see and never
        // faults, whatever the address (past `b`, or not mapped at all); the pointer is
        // made with wrapping arithmetic and never read through. It needs SSE, which every
        // x86_64 processor has.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (b, at);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_position_may_be_asked_for() {
        // Past the end, and far past it: the offset and the address wrap (an addition that
        // overflowed would panic in a debug build), and nothing is read.
        let b = b"http://example.com/\n";
        for at in [0, b.len(), usize::MAX - 1, usize::MAX] {
            ahead(b, at);
        }
        ahead(&[], 0);
    }
}
