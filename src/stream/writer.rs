//! The writer stage (SPEC §8 engine, §6 diagnostics): puts the chunks back in input order,
//! writes each one's output (the verbatim runs from the input buffer, with vectored
//! writes), its diagnostics and counts, drops repeated keys for `--unique`
//! (or, for `--stats` alone, sketches them to estimate their number), and hands each chunk
//! back to the reader.

use std::io::{self, IoSlice, Write};
use std::panic;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};

use crate::stream::chunk::{output_parts, Chunk};
use crate::stream::dedup::{self, FingerprintSet};
use crate::stream::error::{RunError, SHORTENED_MAP};
use crate::stream::hyperloglog::HyperLogLog;
use crate::stream::options::EngineOptions;
use crate::stream::output::{write_diagnostic, Stats};

/// `EFAULT` ("bad address"), the error a write returns where the system cannot read the
/// bytes it was handed: on Linux, macOS and the BSDs alike (elsewhere 14 is another error,
/// and is not read as this one).
const EFAULT: i32 = 14;

/// The writer stage: emits chunks in sequence order, with diagnostics and counts.
pub(super) struct Writer<'a, W> {
    out: W,
    diagnostics: &'a mut dyn Write,
    names: &'a [String],
    options: &'a EngineOptions,
    /// Counts over the chunks written so far.
    stats: Stats,
    /// The keys written so far, as far as they are tracked.
    seen: Seen,
    /// Diagnostics written so far.
    shown: usize,
    /// The input of the chunks written last, and the line number in it of the next line.
    input: usize,
    line: u64,
}

impl<'a, W: Write> Writer<'a, W> {
    /// A writer of `out` and `diagnostics` for a run over the inputs `names`.
    pub(super) fn new(
        out: W,
        diagnostics: &'a mut dyn Write,
        names: &'a [String],
        options: &'a EngineOptions,
    ) -> Self {
        Writer {
            out,
            diagnostics,
            names,
            options,
            stats: Stats::default(),
            seen: Seen::new(options),
            shown: 0,
            input: 0,
            line: 1,
        }
    }

    /// The counts of a run that has ended, which read `input_bytes` bytes in `elapsed`.
    pub(super) fn stats(self, input_bytes: u64, elapsed: Duration) -> Stats {
        let mut stats = self.stats;
        match self.seen {
            Seen::Untracked => {}
            Seen::Exact(set) => stats.unique = Some(set.len() as u64),
            Seen::Estimated(sketch) => {
                stats.unique = Some(sketch.estimate());
                stats.unique_estimated = true;
            }
        }
        stats.input_bytes = input_bytes;
        stats.elapsed = elapsed;
        stats
    }

    /// Writes every chunk that arrives on `done`, in order, and hands each back on `free`.
    /// On an error, tells the other stages to stop; dropping the channels on return wakes
    /// any of them that waits.
    pub(super) fn run(
        &mut self,
        in_flight: usize,
        done: Receiver<Chunk>,
        free: Sender<Chunk>,
        stop: &AtomicBool,
    ) -> Result<(), RunError> {
        let result = self.drain(in_flight, &done, &free);
        if result.is_err() {
            stop.store(true, Ordering::Relaxed);
        }
        result
    }

    /// The body of [`Writer::run`]: reorders, emits and recycles chunks until the workers
    /// are done, then counts the diagnostics not shown and flushes the output.
    fn drain(
        &mut self,
        in_flight: usize,
        done: &Receiver<Chunk>,
        free: &Sender<Chunk>,
    ) -> Result<(), RunError> {
        // Chunks that arrived early wait here. At most `in_flight` chunks exist and the ones
        // not yet written are numbered `next..next + in_flight`, so `seq % in_flight` gives
        // each its own slot.
        let mut waiting: Vec<Option<Chunk>> = (0..in_flight).map(|_| None).collect();
        let mut next = 0u64;
        for mut chunk in done.iter() {
            if let Some(payload) = chunk.report.panic.take() {
                // Unwinding drops the channels, which lets the other stages end.
                panic::resume_unwind(payload);
            }
            let slot = (chunk.seq % in_flight as u64) as usize;
            debug_assert!(waiting[slot].is_none());
            waiting[slot] = Some(chunk);
            while let Some(mut chunk) = waiting[(next % in_flight as u64) as usize].take() {
                self.emit(&mut chunk)?;
                next += 1;
                // The reader may be done already; then the chunk is simply dropped.
                let _ = free.send(chunk);
            }
        }
        let hidden = self.stats.invalid - self.shown as u64;
        if self.options.max_diagnostics > 0 && hidden > 0 {
            // Diagnostics are best effort: a closed standard error does not stop the run.
            let _ = writeln!(
                self.diagnostics,
                "irinorm: {hidden} more invalid records not shown"
            );
        }
        self.out.flush().map_err(RunError::from_write)
    }

    /// Writes one chunk's output, diagnostics and counts.
    fn emit(&mut self, chunk: &mut Chunk) -> Result<(), RunError> {
        self.stats.merge_counts(&chunk.report.stats);
        let offset = self.line_offset(chunk);
        let mut full = None;
        match &mut self.seen {
            Seen::Untracked => {}
            Seen::Exact(set) => {
                // Squeeze out the records whose key was written in an earlier chunk.
                let kept = dedup::keep_first(&mut chunk.out, &chunk.report.spans, set);
                self.stats.keys_written -= kept.dropped;
                if let Some(at) = kept.full_at {
                    let line = chunk.report.spans[at].line;
                    // Nothing from the record that did not fit on.
                    chunk.report.diagnostics.retain(|d| d.line < line);
                    full = Some(RunError::UniqueFull {
                        name: self.names[chunk.input].clone(),
                        line: line + offset,
                        keys: set.len() as u64,
                        limit: self.options.unique_memory,
                    });
                }
            }
            Seen::Estimated(sketch) => {
                if let Some(chunk_sketch) = &chunk.report.sketch {
                    sketch.merge(chunk_sketch);
                }
            }
        }
        self.show_diagnostics(chunk, offset);
        let written = self.write_output(chunk);
        written.map_err(|error| self.write_error(chunk, error))?;
        if let Some(full) = full {
            self.out.flush().map_err(RunError::from_write)?;
            return Err(full);
        }
        if let Some(failure) = &chunk.report.failure {
            self.out.flush().map_err(RunError::from_write)?;
            return Err(RunError::Invalid {
                name: self.names[chunk.input].clone(),
                line: failure.line + offset,
                error: failure.error.clone(),
            });
        }
        Ok(())
    }

    /// What turns the line numbers of `chunk` into its input's (see
    /// [`Chunk::first_line`]); counts the chunk's lines as written.
    fn line_offset(&mut self, chunk: &Chunk) -> u64 {
        if chunk.input != self.input {
            self.input = chunk.input;
            self.line = 1;
        }
        // Each of the chunk's lines is a record, so the records counted so far tell where
        // the chunk starts.
        let offset = match chunk.first_line {
            Some(_) => 0,
            None => self.line - 1,
        };
        self.line += chunk.report.stats.records;
        offset
    }

    /// Writes the chunk's diagnostics while fewer than `max_diagnostics` have been shown.
    fn show_diagnostics(&mut self, chunk: &Chunk, offset: u64) {
        let name = &self.names[chunk.input];
        for d in &chunk.report.diagnostics {
            if self.shown < self.options.max_diagnostics {
                let line = d.line + offset;
                let _ = write_diagnostic(self.diagnostics, name, line, &d.error);
                self.shown += 1;
            }
        }
    }

    /// What a failed write of `chunk`'s output means. Where its verbatim runs are read from
    /// a mapped file and the system could not read them (`EFAULT`), the file was shortened
    /// during the run, as a read of the map itself would have said with `SIGBUS`: an input
    /// error saying so. Otherwise an output error ([`RunError::from_write`]).
    fn write_error(&self, chunk: &Chunk, error: io::Error) -> RunError {
        let from_map = chunk.mapped.is_some() && !chunk.verbatim_runs.is_empty();
        let bad_address = cfg!(unix) && error.raw_os_error() == Some(EFAULT);
        if from_map && bad_address {
            return RunError::Input {
                name: self.names[chunk.input].clone(),
                source: io::Error::other(format!("the file {SHORTENED_MAP}")),
            };
        }
        RunError::from_write(error)
    }

    /// Writes the chunk's output, with its verbatim runs in place.
    fn write_output(&mut self, chunk: &Chunk) -> io::Result<()> {
        if chunk.verbatim_runs.is_empty() {
            self.out.write_all(&chunk.out)
        } else {
            let data = chunk.lines();
            let parts = output_parts(data, &chunk.out, &chunk.verbatim_runs);
            write_all_vectored(&mut self.out, &parts)
        }
    }
}

/// What the writer remembers of the keys written.
enum Seen {
    /// Nothing: neither `unique` nor `stats`.
    Untracked,
    /// Every key's fingerprint (`unique`): the records of keys written before are left
    /// out, and the distinct keys are counted exactly.
    Exact(FingerprintSet),
    /// A sketch of the keys (`stats` alone), in fixed memory: the distinct keys are
    /// estimated.
    Estimated(HyperLogLog),
}

impl Seen {
    fn new(options: &EngineOptions) -> Self {
        if options.unique {
            Seen::Exact(FingerprintSet::with_limit(options.unique_memory))
        } else if options.stats {
            Seen::Estimated(HyperLogLog::default())
        } else {
            Seen::Untracked
        }
    }
}

/// Writes all of `parts` (none of them empty), with as few calls as `out` allows
/// (`Write::write_all_vectored` is not stable yet).
fn write_all_vectored(out: &mut impl Write, parts: &[&[u8]]) -> io::Result<()> {
    let mut slices: Vec<IoSlice<'_>> = parts.iter().map(|p| IoSlice::new(p)).collect();
    // `slices[first..]` are still to be written; `slices[first]` may be the rest of its part.
    let mut first = 0;
    let mut skip = 0;
    while first < parts.len() {
        let mut n = match out.write_vectored(&slices[first..]) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        while first < parts.len() && n >= parts[first].len() - skip {
            n -= parts[first].len() - skip;
            first += 1;
            skip = 0;
        }
        if n > 0 {
            skip += n;
            slices[first] = IoSlice::new(&parts[first][skip..]);
        }
    }
    Ok(())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A writer that takes at most 5 bytes per call, and of a vectored write only the first
    /// slice that is not empty (the default `write_vectored`).
    pub(in crate::stream) struct Trickle(pub(in crate::stream) Vec<u8>);

    impl Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let n = buf.len().min(5);
            self.0.extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// An output that cannot read what it is handed (`EFAULT`).
    #[cfg(unix)]
    struct BadAddress;

    #[cfg(unix)]
    impl Write for BadAddress {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from_raw_os_error(EFAULT))
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[cfg(unix)]
    #[test]
    fn lines_of_a_map_that_cannot_be_written_are_an_input_error() {
        use crate::stream::chunk::{MappedLines, VerbatimRun};
        use crate::stream::mapping::Mapping;
        let path = std::env::temp_dir().join(format!("irinorm-efault-{}", std::process::id()));
        std::fs::write(&path, b"http://a/\nhttp://b/\n").unwrap();
        let map = std::sync::Arc::new(Mapping::open(&path).unwrap().unwrap());
        std::fs::remove_file(&path).unwrap();
        let (names, options) = (["urls.txt".to_owned()], EngineOptions::default());
        let mut diagnostics = Vec::new();
        let mut writer = Writer::new(BadAddress, &mut diagnostics, &names, &options);
        let mut chunk = Chunk::new();
        chunk.verbatim_runs.push(VerbatimRun { data: 0..20, at: 0 });
        // Read from memory: an output error.
        chunk.push(b"http://a/\nhttp://b/\n");
        let error = writer.emit(&mut chunk).unwrap_err();
        assert!(matches!(error, RunError::Output(_)), "{error}");
        // Read from the map: the file was shortened.
        chunk.mapped = Some(MappedLines { map, range: 0..20 });
        let error = writer.emit(&mut chunk).unwrap_err();
        assert_eq!(error.exit_code(), 2);
        let message = error.to_string();
        assert!(
            message.starts_with("urls.txt: the file was shortened"),
            "{message}"
        );
        assert!(message.contains("--no-mmap"), "{message}");
    }

    #[test]
    fn vectored_writes_survive_short_writes() {
        let parts: [&[u8]; 4] = [b"abc", b"defghijk", b"l", b"mnopqrstuvwxyz"];
        let mut trickle = Trickle(Vec::new());
        write_all_vectored(&mut trickle, &parts).unwrap();
        assert_eq!(trickle.0, b"abcdefghijklmnopqrstuvwxyz");
        let mut vec = Vec::new();
        write_all_vectored(&mut vec, &parts).unwrap();
        assert_eq!(vec, trickle.0);
        let mut full = [0u8; 4];
        let error = write_all_vectored(&mut &mut full[..], &parts).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::WriteZero);
    }
}
