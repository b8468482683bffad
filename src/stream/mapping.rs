//! Regular files read through a memory map (SPEC §8 engine): the reader cuts chunks of whole
//! lines as ranges of the map and the workers read them in place, so the bytes are not
//! copied out of the page cache by `read(2)` first, and the one reader thread does not have
//! to touch every byte of the input before the workers can start on it.
//!
//! Pages are handed back to the kernel behind the run: once the writer has written a chunk
//! and it comes back to the reader, the pages before its end are released
//! ([`Mapping::release_through`]), at least [`RELEASE_STEP`] bytes at a time, so the memory a
//! run holds of a mapped file stays about the chunks in flight and one step, as it is for a
//! file that is read.
//!
//! A file is mapped at the size it has when the run reaches it: lines appended afterwards
//! are not read (a file that is read is read to the end it has when the reader gets there).
//! A file of size 0 is never mapped: files such as those of `/proc` say 0 and still have
//! bytes to read.

use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use memmap2::Mmap;

/// Pages are released in multiples of this, a multiple of the page size of every system
/// irinorm runs on (4 KiB, 16 KiB or 64 KiB), so no page that a later chunk still reads
/// is released.
const RELEASE_ALIGN: usize = 64 * 1024;

/// Pages are released at least this many bytes at a time: each release makes the kernel
/// flush the page translations of every processor the run's threads are on, which
/// interrupts the workers. Released a chunk (1 MiB) at a time, one thread spent 2 to 6 % more
/// CPU time than it does with this step (docs/performance.md); the step adds at most this
/// much to the memory a run holds.
const RELEASE_STEP: usize = 64 * RELEASE_ALIGN;

/// A regular file, mapped read-only.
pub(super) struct Mapping {
    map: Mmap,
    /// How far pages have been released: a multiple of [`RELEASE_ALIGN`].
    released: AtomicUsize,
}

impl Mapping {
    /// Maps the file at `path`, read-only. `Ok(None)` for a file of size 0 (to be read
    /// instead).
    ///
    /// The map is sound only while no other program changes the file's bytes before its
    /// end (appending is fine: the map ends where the file did). A page past a new end of a
    /// truncated file cannot be read: the system then raises `SIGBUS` (the command line
    /// says what happened and exits with status 2). That is the contract of every
    /// memory-mapped reader, which
    /// [`EngineOptions::with_mmap`](crate::stream::EngineOptions::with_mmap) asks its caller
    /// to take on; `--no-mmap` reads files that may be rewritten or truncated instead.
    pub(super) fn open(path: &Path) -> io::Result<Option<Mapping>> {
        let file = File::open(path)?;
        if file.metadata()?.len() == 0 {
            return Ok(None);
        }
        // SAFETY: the map is only ever read, through `bytes`. Its bytes are taken to stay
        // as they are for the run (the contract above, which the options and the README
        // state): the workers validate them as UTF-8 once and then read them as `&str`.
        // A truncation is answered by the system with SIGBUS, never with a read of memory
        // that is not the file's.
        let map = unsafe { Mmap::map(&file)? };
        // Advice only: a failure changes nothing but speed.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        Ok(Some(Mapping {
            map,
            released: AtomicUsize::new(0),
        }))
    }

    /// The file's bytes.
    pub(super) fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Has the kernel map the pages of `range` into the process at once
    /// (`MADV_POPULATE_READ`, Linux 5.14 and later), before a worker reads them: one call
    /// instead of a page fault each time the reads reach pages not yet mapped (the kernel
    /// maps some sixteen pages per fault), and the scan's prefetches ahead of the line at
    /// hand then find their pages mapped (a prefetch of a page that is not mapped is
    /// dropped). Advice only: where it fails (an older kernel, a file cut short), the reads
    /// fault the pages in as before.
    pub(super) fn populate(&self, range: std::ops::Range<usize>) {
        debug_assert!(range.start <= range.end && range.end <= self.map.len());
        #[cfg(target_os = "linux")]
        let _ = self
            .map
            .advise_range(memmap2::Advice::PopulateRead, range.start, range.len());
        #[cfg(not(target_os = "linux"))]
        let _ = range;
    }

    /// Gives the kernel back the pages before `end` (rounded down to [`RELEASE_ALIGN`])
    /// that are not released yet, once they are [`RELEASE_STEP`] bytes or more: the bytes
    /// before `end` have been written and are not read again. (Those left at the end go
    /// with the map.) Called by the reader only.
    pub(super) fn release_through(&self, end: usize) {
        let end = end.min(self.map.len()) / RELEASE_ALIGN * RELEASE_ALIGN;
        let from = self.released.load(Ordering::Relaxed);
        if end < from + RELEASE_STEP {
            return;
        }
        self.released.store(end, Ordering::Relaxed);
        self.drop_pages(from, end);
    }

    /// Gives the kernel back the whole pages within `from..to` without moving the point
    /// [`Mapping::release_through`] has reached: for the inside of a too-long line, whose
    /// bytes past its first ones are never read again, while chunks before it are still
    /// being read. Returns where the pages given back end (`to` rounded down to
    /// [`RELEASE_ALIGN`], or `from` if none was), where a later call goes on from.
    pub(super) fn release_inside(&self, from: usize, to: usize) -> usize {
        let start = from.div_ceil(RELEASE_ALIGN) * RELEASE_ALIGN;
        let end = to.min(self.map.len()) / RELEASE_ALIGN * RELEASE_ALIGN;
        if start < end {
            self.drop_pages(start, end);
            return end;
        }
        from
    }

    /// `MADV_DONTNEED` over `from..to`, both multiples of [`RELEASE_ALIGN`] within the map.
    fn drop_pages(&self, from: usize, to: usize) {
        #[cfg(unix)]
        {
            // SAFETY: `MADV_DONTNEED` on a shared read-only map of a file drops the pages
            // from this process only: a later read of them would fault them in again from
            // the file, with the same bytes (the callers release only what is not read
            // again, or else pay that read). `from..to` lies within the map, and `from` is
            // a multiple of the page size, as the map's start is.
            let _ = unsafe {
                self.map
                    .unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, from, to - from)
            };
        }
        #[cfg(not(unix))]
        let _ = (from, to);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_with(bytes: &[u8], name: &str) -> std::path::PathBuf {
        let path =
            std::env::temp_dir().join(format!("irinorm-mapping-{}-{name}", std::process::id()));
        std::fs::File::create(&path)
            .unwrap()
            .write_all(bytes)
            .unwrap();
        path
    }

    #[test]
    fn a_map_holds_the_file_and_survives_releases() {
        let len = 2 * RELEASE_STEP + 300_000;
        let bytes: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
        let path = file_with(&bytes, "whole");
        let map = Mapping::open(&path).unwrap().unwrap();
        assert_eq!(map.bytes(), &bytes[..]);
        let released = || map.released.load(Ordering::Relaxed);
        map.release_through(RELEASE_STEP - 1);
        assert_eq!(released(), 0, "less than a step: kept");
        map.release_through(RELEASE_STEP + 100_000);
        assert_eq!(released(), RELEASE_STEP + 65_536);
        map.release_through(10);
        assert_eq!(released(), RELEASE_STEP + 65_536);
        map.release_through(2 * RELEASE_STEP);
        assert_eq!(released(), RELEASE_STEP + 65_536, "less than a step since");
        let inside = RELEASE_STEP + 70_000;
        let (to, whole) = (inside + 130_000, RELEASE_STEP + 196_608);
        assert_eq!(map.release_inside(inside, to), whole);
        assert_eq!(map.release_inside(whole, to), whole, "nothing new");
        assert_eq!(released(), RELEASE_STEP + 65_536, "inside: not moved");
        map.release_through(usize::MAX);
        assert_eq!(released(), 2 * RELEASE_STEP + 262_144);
        // Released pages read the same bytes again.
        assert_eq!(map.bytes(), &bytes[..]);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn an_empty_file_is_not_mapped() {
        let path = file_with(b"", "empty");
        assert!(Mapping::open(&path).unwrap().is_none());
        std::fs::remove_file(&path).unwrap();
        assert!(Mapping::open(&path).is_err());
    }
}
