//! The settings of a run (SPEC §6 options, §8 budgets): [`EngineOptions`], what to do with
//! invalid records ([`OnError`]), the size of its chunks ([`run_chunk_size`]) and how many
//! it keeps in flight ([`chunks_in_flight`]), which bound its memory.

use crate::iri::repair::Repair;
use crate::stream::framing::Framing;
use crate::stream::output::{Format, OutputMode};

/// The most bytes of chunk buffers (input and output) the engine aims to keep in flight, as
/// long as each worker still gets a chunk; see [`chunks_in_flight`].
const IN_FLIGHT_BYTES: usize = 48 * 1024 * 1024;

/// The smallest chunk [`run_chunk_size`] makes a larger one into: on a 16-core machine,
/// tsv and jsonl rows at 8 threads took 0.42–0.48 s per GB with 300 KB chunks against
/// 0.29–0.39 s with 512 KiB to 1 MiB ones.
const SMALLEST_FITTED_CHUNK: usize = 512 * 1024;

/// What to do with an invalid record (`--on-error`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OnError {
    /// Write it: an empty line in key output, the record with its error in tsv and jsonl.
    #[default]
    Mark,
    /// Leave it out of the output (it is still counted and diagnosed).
    Skip,
    /// Stop at the first invalid record in input order, after writing every record before
    /// it, and return [`RunError::Invalid`](crate::stream::RunError::Invalid).
    Fail,
}

/// The settings of an [`Engine`](crate::stream::Engine). [`Default`] gives the command
/// line's defaults.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct EngineOptions {
    /// Worker threads; 0 means one per available core.
    pub threads: usize,
    /// The target size of a chunk in bytes (default 1 MiB). A chunk ends on a line boundary,
    /// so it is larger when a line is; 0 is taken as 1. With many threads and a wide output
    /// form a run uses smaller chunks, down to 512 KiB, so that each worker keeps one
    /// waiting within the memory budget (`run_chunk_size`).
    pub chunk_size: usize,
    /// The form of each output line.
    pub output: OutputMode,
    /// What to do with invalid records.
    pub on_error: OnError,
    /// No trimming and no repairs: the record must be the exact IRI (`--strict`).
    pub strict: bool,
    /// The longest record accepted, in bytes, not counting the line terminator (default
    /// 1 MiB); longer ones are `too-long` errors. The engine holds at most about the larger
    /// of this and `chunk_size` of any one line.
    pub max_line_bytes: usize,
    /// Write only the first record of each key (`--unique`). Invalid records are not
    /// written at all (whatever [`OnError`] says; they are still counted and diagnosed):
    /// the output is the set of distinct keys, in order of first appearance.
    ///
    /// Keys are remembered as 128-bit fingerprints (XXH3-128), not as text, in a hash table
    /// of 16-byte slots kept 70% to 87.5% full: about 21 bytes of memory per distinct key.
    /// Two different keys share a fingerprint with probability about n²/2¹²⁹ for n distinct
    /// keys (the birthday bound): about 1.5 × 10⁻²¹ for a billion keys. Such a collision
    /// would drop one record wrongly. The distinct keys are counted exactly
    /// ([`Stats::unique`](crate::stream::Stats::unique)).
    pub unique: bool,
    /// Count distinct keys for [`Stats::unique`](crate::stream::Stats::unique) (`--stats`).
    /// With `unique` the count is exact; without it, it is estimated by a HyperLogLog sketch
    /// in fixed memory (16 KiB, relative standard error about 0.8%), and
    /// [`Stats::unique_estimated`](crate::stream::Stats::unique_estimated) says so.
    pub stats: bool,
    /// How many invalid records are reported on the diagnostics writer (default 20), the
    /// first ones in input order; a final line counts the rest. 0 turns diagnostics off.
    pub max_diagnostics: usize,
    /// In tsv output, start every row with the input's name and the line number
    /// (`--with-filename`). Jsonl rows always carry both.
    pub with_filename: bool,
    /// End each output record with a NUL byte instead of a line feed (`--null`).
    pub null_terminated: bool,
    /// With `unique`: the most bytes the set of the keys written may take (about 20 bytes
    /// a distinct key). A run whose set would pass it stops with
    /// [`RunError::UniqueFull`](crate::stream::RunError::UniqueFull) at the first record
    /// whose key does not fit, every record before it written. No cap by default
    /// (`usize::MAX`); the command line sets a share of the machine's memory
    /// (`--unique-memory`).
    pub unique_memory: usize,
    /// Refuse an input whose first bytes (after decompression) are the magic number of a
    /// known binary container ([`crate::stream::input::CONTAINERS`]: an executable, a PDF,
    /// a ZIP archive, an image, a database, a columnar file): an input error,
    /// [`RunError::Input`](crate::stream::RunError::Input), before any of its records is
    /// read. Off by default (the command line turns it on unless `--binary text`). Any other
    /// input is read as lines whatever its bytes: a NUL is a character of a record, which
    /// makes that record invalid ([`crate::ErrorKind::Nul`]), never the input.
    pub refuse_containers: bool,
    /// Records, not bare URLs: which field of each line is its URL, and where
    /// [`OutputMode::Record`] puts the key (`--field`, `--csv`, `--json-field`, `--cdx`,
    /// `--cdxj`, `--log`). `None`: each line is one URL. With a framing the records go
    /// through runs of records whose URLs are their own keys, or one at a time. Not yet part
    /// of the API: the command line's, through `irinorm::internals`.
    #[doc(hidden)]
    pub framing: Option<Framing>,
    /// Whether regular files are read through a memory map (off by default; on only through
    /// the `unsafe` [`EngineOptions::with_mmap`], whose contract it needs; the command line
    /// turns it on unless `--no-mmap`).
    pub(crate) mmap: bool,
}

setters!(EngineOptions {
    threads: usize => with_threads,
    chunk_size: usize => with_chunk_size,
    output: OutputMode => with_output,
    on_error: OnError => with_on_error,
    strict: bool => with_strict,
    max_line_bytes: usize => with_max_line_bytes,
    unique: bool => with_unique,
    stats: bool => with_stats,
    max_diagnostics: usize => with_max_diagnostics,
    with_filename: bool => with_with_filename,
    null_terminated: bool => with_null_terminated,
    unique_memory: usize => with_unique_memory,
    refuse_containers: bool => with_refuse_containers,
});

impl EngineOptions {
    /// These options with `framing` ([`EngineOptions::framing`]).
    #[doc(hidden)]
    pub fn with_framing(self, framing: Option<Framing>) -> Self {
        EngineOptions { framing, ..self }
    }

    /// These options with `mmap` set: with it, regular files are read through a memory
    /// map, and the engine cuts chunks out of the map instead of copying the file into
    /// buffers (compressed files, files of size 0 and other inputs are read either way).
    /// Pages are handed back as chunks are written (at least 4 MiB at a time), so memory
    /// stays bounded.
    ///
    /// # Safety
    ///
    /// With `mmap` set, no other program may change or truncate an input file while the run
    /// reads it (appending is fine: the map ends where the file did). The engine validates a
    /// chunk's bytes once and then reads them as `&str`; bytes changed under it would break
    /// that, and a truncated file ends the process with `SIGBUS`. Setting it off is always
    /// sound.
    #[must_use]
    pub unsafe fn with_mmap(mut self, mmap: bool) -> Self {
        self.mmap = mmap;
        self
    }

    /// Whether regular files are read through a memory map ([`EngineOptions::with_mmap`]).
    pub fn mmap(&self) -> bool {
        self.mmap
    }

    /// How records are written under these options.
    pub(crate) fn format(&self) -> Format {
        Format {
            mode: self.output,
            with_filename: self.with_filename,
            terminator: if self.null_terminated { 0 } else { b'\n' },
        }
    }

    /// Whether records are repaired before the operation runs (from `strict`).
    pub fn repair(&self) -> Repair {
        if self.strict {
            Repair::Strict
        } else {
            Repair::Lenient
        }
    }
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            threads: 0,
            chunk_size: 1 << 20,
            output: OutputMode::Key,
            on_error: OnError::Mark,
            strict: false,
            max_line_bytes: 1 << 20,
            unique: false,
            stats: false,
            max_diagnostics: 20,
            with_filename: false,
            null_terminated: false,
            unique_memory: usize::MAX,
            refuse_containers: false,
            framing: None,
            mmap: false,
        }
    }
}

/// The chunk size a run with `threads` workers uses for a target of `chunk_size` (taken as at
/// least 1): the target, or less where `2 × threads + 2` chunks of it, with their output
/// (see [`chunks_in_flight`]), would take more than 48 MiB: the largest size that fits, but
/// not below 512 KiB on that account. With fewer chunks in flight than that, a worker whose
/// next chunk would come after one that is slow to finish waits for the writer instead of
/// working: jsonl output with 1 MiB chunks kept 10 chunks for 8 threads.
pub fn run_chunk_size(threads: usize, chunk_size: usize, output: OutputMode) -> usize {
    let chunk_size = chunk_size.max(1);
    let wanted = 2 * threads.max(1) + 2;
    let fits = IN_FLIGHT_BYTES / (wanted * (1 + output_factor(output)));
    chunk_size.min(fits.max(SMALLEST_FITTED_CHUNK))
}

/// About how many times its input a chunk's formatted output is.
fn output_factor(output: OutputMode) -> usize {
    match output {
        OutputMode::Key => 1,
        OutputMode::Tsv | OutputMode::Record => 2,
        OutputMode::Jsonl => 4,
    }
}

/// How many chunks a run keeps in flight: `2 × threads + 2` (one being read, one being
/// written, and for each worker one being processed and one waiting), reduced towards
/// `threads + 2` when that many chunks would take more than 48 MiB.
///
/// A chunk takes its input (`chunk_size`) plus its formatted output, estimated from the
/// output form: about as large as the input for keys, twice for tsv, four times for jsonl.
/// Peak memory is about this number of chunks times that, plus per-thread scratch buffers,
/// whatever the size of the input.
pub fn chunks_in_flight(threads: usize, chunk_size: usize, output: OutputMode) -> usize {
    let threads = threads.max(1);
    let per_chunk = chunk_size.max(1).saturating_mul(1 + output_factor(output));
    let by_memory = IN_FLIGHT_BYTES / per_chunk;
    (2 * threads + 2).min(by_memory.max(threads + 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_in_flight_stay_bounded() {
        let key = OutputMode::Key;
        assert_eq!(chunks_in_flight(1, 1 << 20, key), 4);
        assert_eq!(chunks_in_flight(4, 1 << 20, key), 10);
        assert_eq!(chunks_in_flight(16, 1 << 20, key), 24);
        assert_eq!(chunks_in_flight(64, 1 << 20, key), 66);
        assert_eq!(chunks_in_flight(4, 1, key), 10);
        assert_eq!(chunks_in_flight(8, 1 << 20, OutputMode::Jsonl), 10);
        assert_eq!(chunks_in_flight(8, 1 << 20, OutputMode::Tsv), 16);
    }

    #[test]
    fn chunks_shrink_for_many_threads_and_wide_output() {
        let (key, jsonl) = (OutputMode::Key, OutputMode::Jsonl);
        // Small targets and runs with room for every chunk keep theirs.
        assert_eq!(run_chunk_size(16, 1, jsonl), 1);
        assert_eq!(run_chunk_size(2, 1 << 20, jsonl), 1 << 20);
        assert_eq!(run_chunk_size(8, 1 << 20, key), 1 << 20);
        // 8 threads, jsonl: 18 chunks of five times their size in 48 MiB.
        let size = run_chunk_size(8, 1 << 20, jsonl);
        assert_eq!(size, (48 << 20) / (18 * 5));
        assert_eq!(chunks_in_flight(8, size, jsonl), 18);
        // Never below 512 KiB on that account.
        assert_eq!(run_chunk_size(16, 1 << 20, jsonl), 512 << 10);
        assert_eq!(run_chunk_size(64, 1 << 20, jsonl), 512 << 10);
        assert_eq!(run_chunk_size(64, 100 << 10, jsonl), 100 << 10);
    }
}
