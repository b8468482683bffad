//! The engine (SPEC §8): [`Engine`] sets up a run, a reader thread, a pool of workers and
//! the writer on the calling thread, joined by bounded channels (see the module
//! documentation of [`crate::stream`] for the picture), and puts the outcome together.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Instant;

use crossbeam_channel::bounded;

use crate::stream::chunk::Chunk;
use crate::stream::error::RunError;
use crate::stream::framing::Framing;
use crate::stream::input::{Input, Source};
use crate::stream::operation::Operation;
use crate::stream::options::{chunks_in_flight, run_chunk_size, EngineOptions};
use crate::stream::output::{OutputMode, Stats};
use crate::stream::progress::Progress;
use crate::stream::reader::Reader;
use crate::stream::worker::Worker;
use crate::stream::writer::Writer;

/// Runs an [`Operation`] over line-oriented input, in parallel, writing results in order.
///
/// ```
/// use irinorm::stream::{Engine, EngineOptions, OutputMode};
/// use irinorm::{Error, ErrorKind};
///
/// // An operation: lowercase ASCII, and reject records that contain a '!'.
/// let op = |record: &str, out: &mut String| -> Result<(), Error> {
///     if let Some(i) = record.find('!') {
///         return Err(Error::at_byte(ErrorKind::Syntax, record, i, "no '!' allowed"));
///     }
///     out.push_str(&record.to_ascii_lowercase());
///     Ok(())
/// };
/// let options = EngineOptions::default().with_output(OutputMode::Key);
/// let engine = Engine::new(&op, options);
///
/// let mut out = Vec::new();
/// let stats = engine.run(&b"HTTP://A/\r\nbad!\n  x:Y \n"[..], &mut out).unwrap();
/// // One output line per input line; the invalid record gives an empty line.
/// assert_eq!(out, b"http://a/\n\nx:y\n");
/// assert_eq!((stats.records, stats.invalid, stats.changed), (3, 1, 2));
/// ```
pub struct Engine<'a> {
    op: &'a dyn Operation,
    options: EngineOptions,
    progress: Option<&'a dyn Progress>,
    interrupt: Option<&'a AtomicBool>,
}

impl<'a> Engine<'a> {
    /// An engine that runs `op` with `options`.
    pub fn new(op: &'a dyn Operation, mut options: EngineOptions) -> Self {
        if options.output == OutputMode::Record && options.framing.is_none() {
            // Each line is a record of one field: the key goes after a tab.
            options.framing = Some(Framing::lines());
        }
        Engine {
            op,
            options,
            progress: None,
            interrupt: None,
        }
    }

    /// The same engine, stopping early once `interrupt` is set (by a signal handler, say).
    ///
    /// The reader looks at the flag before each read; once it is set, it reads nothing more,
    /// the chunks already read are processed and written, and the run returns its [`Stats`]
    /// as usual, with [`Stats::interrupted`] set. The lines of the chunk being filled when the
    /// flag was seen are neither written nor counted, and neither is anything after them.
    pub fn with_interrupt(mut self, interrupt: &'a AtomicBool) -> Self {
        self.interrupt = Some(interrupt);
        self
    }

    /// The same engine, reporting how far it has read to `progress`.
    pub fn with_progress(mut self, progress: &'a dyn Progress) -> Self {
        self.progress = Some(progress);
        self
    }

    /// The engine's settings.
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// Runs over one unnamed input (named `<input>` in errors and jsonl rows; compressed
    /// input is detected as for [`Input`]). Diagnostics are not written anywhere; [`Stats`] still counts every
    /// invalid record.
    pub fn run<R: Read + Send, W: Write>(&self, reader: R, writer: W) -> Result<Stats, RunError> {
        let mut reader = reader;
        let source = Source {
            name: "<input>".to_owned(),
            reader: Box::new(&mut reader),
            size: None,
            path: None,
        };
        self.run_sources(vec![source], writer, &mut io::sink())
    }

    /// Runs over several inputs, in order, as one stream, writing diagnostics to
    /// `diagnostics`. Line numbers (in diagnostics, errors and jsonl output) restart at 1
    /// for each input.
    ///
    /// If an input cannot be read, every complete line read before the error is written,
    /// the output is flushed and [`RunError::Input`] is returned; a last line that the error
    /// cut short is dropped.
    pub fn run_inputs<W: Write>(
        &self,
        inputs: Vec<Input>,
        writer: W,
        diagnostics: &mut dyn Write,
    ) -> Result<Stats, RunError> {
        let sources = inputs.into_iter().map(Input::into_source).collect();
        self.run_sources(sources, writer, diagnostics)
    }

    /// The number of worker threads to start.
    fn threads(&self) -> usize {
        match self.options.threads {
            0 => thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }

    /// Sets up the channels and threads of a run, runs the writer on this thread and puts
    /// the outcome together.
    fn run_sources<W: Write>(
        &self,
        sources: Vec<Source<'_>>,
        writer: W,
        diagnostics: &mut dyn Write,
    ) -> Result<Stats, RunError> {
        let started = Instant::now();
        let threads = self.threads();
        let output = self.options.output;
        let chunk_size = run_chunk_size(threads, self.options.chunk_size, output);
        let options = self.options.clone().with_chunk_size(chunk_size);
        let in_flight = chunks_in_flight(threads, chunk_size, output);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("irinorm-worker-{i}"))
            .build()
            .map_err(|e| RunError::Threads(e.to_string()))?;
        let names: Vec<String> = sources.iter().map(|s| s.name.clone()).collect();
        let progress = self.progress;
        if let Some(p) = progress {
            p.start(sources.iter().map(|s| s.size).sum::<Option<u64>>());
        }

        let (work_tx, work_rx) = bounded::<Chunk>(in_flight);
        let (done_tx, done_rx) = bounded::<Chunk>(in_flight);
        let (free_tx, free_rx) = bounded::<Chunk>(in_flight);
        let stop = AtomicBool::new(false);
        let never = AtomicBool::new(false);
        let interrupt = self.interrupt.unwrap_or(&never);
        let reader =
            Reader::new(&options, in_flight, work_tx, free_rx, &stop).with_interrupt(interrupt);
        let worker = Worker::new(self.op, &options, &names);
        let mut writer = Writer::new(writer, diagnostics, &names, &options);

        let (read_result, write_result) = thread::scope(|scope| {
            let reading = scope.spawn(move || reader.run(sources, progress));
            let (stop, worker) = (&stop, &worker);
            scope.spawn(move || {
                // Every pool thread runs the worker loop until the reader is done.
                pool.broadcast(|_| worker.work(&work_rx, &done_tx, stop));
            });
            let write_result = writer.run(in_flight, done_rx, free_tx, stop);
            let read_result = match reading.join() {
                Ok(result) => result,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            (read_result, write_result)
        });
        if let Some(p) = progress {
            p.finish();
        }

        write_result?;
        let input_bytes = read_result?;
        let mut stats = writer.stats(input_bytes, started.elapsed());
        stats.interrupted = interrupt.load(Ordering::Relaxed);
        Ok(stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iri::error::ErrorKind;
    use crate::stream::chunk::TOO_LONG_PREFIX;
    use crate::stream::operation::tests::{upper, Lowercase};
    use crate::stream::output::OutputMode;
    use crate::stream::writer::tests::Trickle;

    fn run(input: &[u8], options: EngineOptions) -> (Vec<u8>, Result<Stats, RunError>) {
        let mut out = Vec::new();
        let result = Engine::new(&upper, options).run(input, &mut out);
        (out, result)
    }

    #[test]
    fn verbatim_runs_are_written_in_place_through_short_writes() {
        let input = b"aa\nbb\nCc\nxx\ndd\r\nee\nff\n\ngg\nhh";
        let want = b"aa\nbb\nCC\n\ndd\nee\nff\n\ngg\nhh\n";
        for chunk_size in [1, 4, 9, 1 << 20] {
            for threads in [1, 2] {
                let options = EngineOptions {
                    chunk_size,
                    threads,
                    ..EngineOptions::default()
                };
                let mut vec = Vec::new();
                Engine::new(&Lowercase, options.clone())
                    .run(&input[..], &mut vec)
                    .unwrap();
                assert_eq!(vec, want, "{chunk_size} {threads}");
                let mut trickle = Trickle(Vec::new());
                Engine::new(&Lowercase, options)
                    .run(&input[..], &mut trickle)
                    .unwrap();
                assert_eq!(trickle.0, want, "{chunk_size} {threads}");
            }
        }
    }

    #[test]
    fn an_interrupted_run_ends_cleanly_with_its_counts() {
        let input = "http://a/\n".repeat(10_000);
        let interrupt = AtomicBool::new(true);
        let options = EngineOptions::default().with_chunk_size(64).with_threads(2);
        let mut out = Vec::new();
        let stats = Engine::new(&upper, options.clone())
            .with_interrupt(&interrupt)
            .run(input.as_bytes(), &mut out)
            .unwrap();
        assert!(stats.interrupted);
        assert!(stats.records < 10_000, "{}", stats.records);
        assert_eq!(out.len() as u64, stats.records * 10);
        interrupt.store(false, Ordering::Relaxed);
        let stats = Engine::new(&upper, options)
            .with_interrupt(&interrupt)
            .run(input.as_bytes(), &mut out)
            .unwrap();
        assert!(!stats.interrupted);
        assert_eq!(stats.records, 10_000);
    }

    #[test]
    fn records_follow_the_line_rules() {
        for chunk_size in [1, 2, 3, 5, 1 << 20] {
            let options = EngineOptions {
                chunk_size,
                threads: 2,
                ..EngineOptions::default()
            };
            let (out, stats) = run(b"\xEF\xBB\xBFa\r\n\nb c\r\nx\nd", options.clone());
            assert_eq!(out, b"A\n\nB%20C\n\nD\n");
            let stats = stats.unwrap();
            assert_eq!((stats.records, stats.invalid, stats.changed), (5, 2, 3));
            assert_eq!(stats.invalid_of(ErrorKind::Empty), 1);
            assert_eq!(stats.invalid_of(ErrorKind::Syntax), 1);
            assert_eq!(run(b"", options.clone()).0, b"");
            assert_eq!(run(b"\xEF\xBB\xBF", options.clone()).0, b"");
            assert_eq!(run(b"a\n", options.clone()).0, b"A\n");
            assert_eq!(run(b"\n", options.clone()).0, b"\n");
        }
    }

    #[test]
    fn too_long_lines_are_skipped_with_a_prefix() {
        let mut input = b"ab\n".to_vec();
        input.extend(vec![b'y'; 1000]);
        input.extend(b"\r\ncd\n");
        for chunk_size in [1, 4, 100, 5000] {
            let options = EngineOptions {
                chunk_size,
                max_line_bytes: 10,
                output: OutputMode::Tsv,
                ..EngineOptions::default()
            };
            let (out, stats) = run(&input, options);
            let expected = format!(
                "ab\tAB\t\n{}\t\ttoo-long:0: line longer than --max-line-bytes\ncd\tCD\t\n",
                "y".repeat(TOO_LONG_PREFIX)
            );
            assert_eq!(String::from_utf8(out).unwrap(), expected, "{chunk_size}");
            assert_eq!(stats.unwrap().invalid_of(ErrorKind::TooLong), 1);
        }
    }
}
