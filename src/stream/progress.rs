//! How far a run has read (SPEC §6: the progress bar): the [`Progress`] trait a display
//! implements, and [`Counted`], the reader wrapper through which the reader stage reports
//! to it.

use std::io::{self, Read};

/// Told how far a run has read, for a progress display (the command line draws a bar on a
/// terminal). Counts are of stored bytes, so they end at the inputs' total size even when
/// the inputs are compressed.
pub trait Progress: Sync {
    /// The run starts; `total` is the inputs' stored size when every size is known.
    fn start(&self, total: Option<u64>);
    /// `bytes` more bytes were read.
    fn advance(&self, bytes: u64);
    /// The run has ended.
    fn finish(&self);
}

/// A reader that reports what it reads to a [`Progress`].
pub(super) struct Counted<'p, R> {
    pub(super) inner: R,
    pub(super) progress: &'p dyn Progress,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.advance(n as u64);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Adds up what it is told.
    #[derive(Default)]
    struct Total(AtomicU64);

    impl Progress for Total {
        fn start(&self, _: Option<u64>) {}
        fn advance(&self, bytes: u64) {
            self.0.fetch_add(bytes, Ordering::Relaxed);
        }
        fn finish(&self) {}
    }

    #[test]
    fn counted_reports_every_byte_read() {
        let total = Total::default();
        let mut counted = Counted {
            inner: &b"0123456789"[..],
            progress: &total,
        };
        let mut buf = [0; 4];
        assert_eq!(counted.read(&mut buf).unwrap(), 4);
        assert_eq!(total.0.load(Ordering::Relaxed), 4);
        let mut rest = Vec::new();
        counted.read_to_end(&mut rest).unwrap();
        assert_eq!(rest, b"456789");
        assert_eq!(total.0.load(Ordering::Relaxed), 10);
    }
}
