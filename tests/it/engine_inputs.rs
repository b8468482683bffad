//! The engine on awkward input and output: invalid UTF-8, over-long lines, NUL, CRLF, BOM,
//! missing final line feed, empty input, compressed and truncated input, `--on-error fail`,
//! `--unique`, capped diagnostics, and an output that closes early.

use std::io::{self, Cursor, Read, Write};
use std::sync::mpsc;
use std::time::Duration;

use crate::engine_common::{assert_same, check, describe, reference, run_engine, upper};
use irinorm::stream::Input;
use irinorm::stream::{Engine, EngineOptions, OnError, OutputMode, RunError, Stats};
use irinorm::ErrorKind;

fn options(threads: usize, chunk_size: usize) -> EngineOptions {
    EngineOptions::default()
        .with_threads(threads)
        .with_chunk_size(chunk_size)
}

/// Runs the engine over one in-memory input in key mode; returns output and stats.
fn run_key(data: &[u8], options: &EngineOptions) -> (String, Stats) {
    let actual = run_engine(options, &[("t", data)]);
    let stats = actual.result.unwrap();
    (String::from_utf8(actual.output).unwrap(), stats)
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// Many lines, with an invalid one now and then.
fn many_lines(n: usize) -> Vec<u8> {
    let mut data = Vec::new();
    for i in 0..n {
        if i % 97 == 13 {
            data.extend(format!("http://bad/x{i}\n").bytes());
        } else {
            data.extend(format!("http://example.com/{i}?q=%41 b\n").bytes());
        }
    }
    data
}

#[test]
fn invalid_utf8_affects_only_its_own_line() {
    let data = b"http://a/\n b\xFF c\nhttp://\xC3\xA9/\nd";
    for chunk_size in [1, 8, 1 << 20] {
        let (out, stats) = run_key(data, &options(2, chunk_size));
        assert_eq!(out, "HTTP://A/\nB%FF%20C\nHTTP://\u{e9}/\nD\n");
        assert_eq!(stats.repairs.total(), 3, "trim, stray octet, space");

        let strict = options(2, chunk_size)
            .with_strict(true)
            .with_output(OutputMode::Tsv);
        let out = run_engine(&strict, &[("t", data)]).output;
        assert_eq!(
            String::from_utf8_lossy(&out),
            "http://a/\tHTTP://A/\t\n\
             \u{20}b\u{fffd} c\t\tutf8:3: octet that is not part of valid UTF-8\n\
             http://\u{e9}/\tHTTP://\u{e9}/\t\n\
             d\tD\t\n"
        );
        assert_same(&strict, &[("t", data)], &describe(&strict));
    }
}

#[test]
fn a_five_mib_line_is_one_too_long_record() {
    let mut data = b"first\n".to_vec();
    data.extend(vec![b'a'; 5 << 20]);
    data.extend(b"\nsecond\nthird");
    for chunk_size in [1000, 1 << 20, 4 << 20, 8 << 20] {
        let options = options(3, chunk_size);
        let (out, stats) = run_key(&data, &options);
        assert_eq!(out, "FIRST\n\nSECOND\nTHIRD\n");
        assert_eq!(stats.records, 4);
        assert_eq!(stats.invalid_of(ErrorKind::TooLong), 1);
        for output in [OutputMode::Tsv, OutputMode::Jsonl] {
            let options = options.clone().with_output(output);
            assert_same(&options, &[("t", &data)], &describe(&options));
        }
    }
}

#[test]
fn line_length_limit_does_not_count_the_terminator() {
    let data = b"abcd\r\nabcde\r\nabcd\nabcd\r";
    for chunk_size in [1, 2, 3, 5, 64] {
        let options = options(2, chunk_size).with_max_line_bytes(4);
        let (out, stats) = run_key(data, &options);
        assert_eq!(out, "ABCD\n\nABCD\nABCD\n", "chunk {chunk_size}");
        assert_eq!(stats.invalid_of(ErrorKind::TooLong), 1);
    }
}

#[test]
fn nul_crlf_bom_and_missing_final_newline() {
    let cases: [(&[u8], &str); 7] = [
        (b"", ""),
        (b"\n", "\n"),
        (b"\xEF\xBB\xBF", ""),
        (b"\xEF\xBB\xBFa\r\nb\r\n", "A\nB\n"),
        (b"a\r\n\r\nb", "A\n\nB\n"),
        (b"a\0b\nc", "\nC\n"),
        (b"a\n\xEF\xBB\xBFb\n", "A\n\u{feff}B\n"),
    ];
    for (data, expected) in cases {
        for chunk_size in [1, 2, 4096] {
            let options = options(2, chunk_size);
            let (out, _) = run_key(data, &options);
            assert_eq!(out, expected, "{data:?} chunk {chunk_size}");
            for output in [OutputMode::Tsv, OutputMode::Jsonl] {
                let options = options.clone().with_output(output);
                assert_same(&options, &[("t", data)], &describe(&options));
            }
        }
    }
    let actual = run_engine(&options(1, 64), &[("t", b"a\0b")]);
    let stats = actual.result.unwrap();
    assert_eq!(stats.invalid_of(ErrorKind::Nul), 1);
}

#[test]
fn gzip_and_zstd_inputs_are_decoded() {
    let data = many_lines(5000);
    let mut two_members = gzip(&data[..1000]);
    two_members.extend(gzip(&data[1000..]));
    let zstd = zstd::encode_all(&data[..], 3).unwrap();
    let expected = reference(&options(4, 4096), &[("t", &data)]).output;
    for compressed in [gzip(&data), two_members, zstd] {
        let mut out = Vec::new();
        let input = Input::from_reader("t", Cursor::new(compressed.clone()));
        let stats = Engine::new(&upper, options(4, 4096))
            .run_inputs(vec![input], &mut out, &mut io::sink())
            .unwrap();
        assert_eq!(out, expected);
        assert_eq!(stats.input_bytes, data.len() as u64);

        // `run` detects compression too.
        let mut out = Vec::new();
        Engine::new(&upper, options(2, 1 << 20))
            .run(&compressed[..], &mut out)
            .unwrap();
        assert_eq!(out, expected);
    }
}

#[test]
fn files_are_read_in_order_with_line_numbers_per_file() {
    let dir = std::env::temp_dir().join(format!("irinorm-engine-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = dir.join("a.txt");
    let b = dir.join("b.data");
    std::fs::write(&a, b"a1\nx\n").unwrap();
    std::fs::write(&b, gzip(b"x\nb2\n")).unwrap();
    let inputs = vec![Input::open(&a).unwrap(), Input::open(&b).unwrap()];
    assert_eq!(inputs[0].size(), Some(5));
    let options = options(2, 3).with_output(OutputMode::Jsonl);
    let mut out = Vec::new();
    let mut diagnostics = Vec::new();
    Engine::new(&upper, options)
        .run_inputs(inputs, &mut out, &mut diagnostics)
        .unwrap();
    let lines: Vec<serde_json::Value> = out
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let numbers: Vec<u64> = lines.iter().map(|v| v["line"].as_u64().unwrap()).collect();
    assert_eq!(numbers, [1, 2, 1, 2]);
    assert_eq!(lines[3]["key"], "B2");
    assert!(lines[2]["key"].is_null());
    let a_name = a.display().to_string();
    let b_name = b.display().to_string();
    assert_eq!(
        String::from_utf8(diagnostics).unwrap(),
        format!(
            "irinorm: {a_name}:2:1: syntax: no x allowed\n\
             irinorm: {b_name}:1:1: syntax: no x allowed\n"
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Regular files are mapped with `mmap` on and read with it off; either way they give the
/// same records: a BOM, CRLF, a missing final line feed, a too-long line, a compressed file
/// (which is decoded, never mapped), an empty file; and a binary file is refused alike.
#[test]
fn files_mapped_or_read_give_the_same_records() {
    let files = crate::engine_common::Files::new(&[
        ("plain", b"\xEF\xBB\xBFa1\r\nx\n\nlong-line-here\nlast"),
        ("gzip", &gzip(b"g1\ng2\n")),
        ("empty", b""),
        ("bom-only", b"\xEF\xBB\xBF"),
    ]);
    let run = |mmap: bool, chunk_size: usize| {
        // SAFETY: the files are the test's own; nothing else changes them during the run.
        let options = unsafe { options(2, chunk_size).with_mmap(mmap) }
            .with_max_line_bytes(10)
            .with_output(OutputMode::Jsonl);
        let actual = crate::engine_common::run_engine_files(&options, &files);
        (actual.output, actual.diagnostics, actual.result.unwrap())
    };
    let (read, read_diagnostics, read_stats) = run(false, 1 << 20);
    let read = String::from_utf8(read).unwrap();
    assert!(
        read.contains(r#""input":"long-line-here","key":null,"error":{"kind":"too-long""#),
        "{read}"
    );
    assert!(read.contains(r#""key":"G2""#), "{read}");
    assert_eq!(read.lines().count(), 7, "{read}");
    for chunk_size in [1, 3, 1 << 20] {
        let (mapped, diagnostics, stats) = run(true, chunk_size);
        assert_eq!(
            String::from_utf8(mapped).unwrap(),
            read,
            "chunk {chunk_size}"
        );
        assert_eq!(diagnostics, read_diagnostics);
        assert_eq!(stats.input_bytes, read_stats.input_bytes);
        assert_eq!(stats.records, read_stats.records);
    }

    // A NUL is a character of a record; only a binary container's magic number is refused,
    // mapped or read.
    for mmap in [true, false] {
        // SAFETY: as above.
        let options = unsafe { options(2, 4096).with_mmap(mmap) }.with_refuse_containers(true);
        let nul = crate::engine_common::Files::new(&[("nul", b"a\n\0b\n")]);
        let actual = crate::engine_common::run_engine_files(&options, &nul);
        assert_eq!(actual.output, b"A\n\n", "mmap={mmap}");
        let stats = actual.result.unwrap();
        assert_eq!(stats.invalid_of(irinorm::ErrorKind::Nul), 1);
        let pdf = crate::engine_common::Files::new(&[("pdf", b"%PDF-1.7\nhttp://a/\n")]);
        let actual = crate::engine_common::run_engine_files(&options, &pdf);
        assert!(actual.output.is_empty());
        match actual.result {
            Err(RunError::Input { source, .. }) => {
                assert!(source.to_string().contains("PDF document"), "{source}")
            }
            other => panic!("mmap={mmap}: {other:?}"),
        }
        // Read as lines when not refused.
        let options = options.with_refuse_containers(false);
        let actual = crate::engine_common::run_engine_files(&options, &pdf);
        assert_eq!(actual.output, b"%25PDF-1.7\nHTTP://A/\n", "mmap={mmap}");
    }
}

/// A writer that remembers how much of what it was given had been flushed.
#[derive(Default)]
struct FlushTracker {
    data: Vec<u8>,
    flushed: usize,
}

impl Write for &mut FlushTracker {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.data.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.flushed = self.data.len();
        Ok(())
    }
}

#[test]
fn truncated_gzip_is_an_input_error_after_what_was_read() {
    let data = many_lines(100_000);
    let compressed = gzip(&data);
    let truncated = compressed[..compressed.len() / 2].to_vec();
    let expected = reference(&options(1, 1 << 20), &[("t", &data)]).output;
    for chunk_size in [4096, 1 << 20] {
        let mut out = FlushTracker::default();
        let input = Input::from_reader("cut.gz", Cursor::new(truncated.clone()));
        let result = Engine::new(&upper, options(4, chunk_size)).run_inputs(
            vec![input],
            &mut out,
            &mut io::sink(),
        );
        match result {
            Err(RunError::Input { name, .. }) => assert_eq!(name, "cut.gz"),
            other => panic!("expected an input error, got {other:?}"),
        }
        let written = &out.data;
        assert!(written.len() > expected.len() / 4, "{}", written.len());
        assert!(written.ends_with(b"\n"));
        assert!(expected.starts_with(written));
        assert_eq!(out.flushed, written.len(), "everything written is flushed");
    }
}

/// A reader that fails after handing out some bytes.
struct FailingReader(Cursor<Vec<u8>>);

impl Read for FailingReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.0.read(buf)? {
            0 => Err(io::Error::other("disk on fire")),
            n => Ok(n),
        }
    }
}

#[test]
fn read_errors_keep_the_complete_lines_before_them() {
    for chunk_size in [1, 3, 4096] {
        let reader = FailingReader(Cursor::new(b"a\nb\nc".to_vec()));
        let mut out = Vec::new();
        let result = Engine::new(&upper, options(2, chunk_size)).run(reader, &mut out);
        match result {
            Err(e @ RunError::Input { .. }) => {
                assert_eq!(e.to_string(), "<input>: disk on fire");
                assert_eq!(e.exit_code(), 2);
            }
            other => panic!("expected an input error, got {other:?}"),
        }
        assert_eq!(out, b"A\nB\n", "chunk {chunk_size}");
    }
}

#[test]
fn fail_stops_at_the_first_invalid_record_in_input_order() {
    // Records holding "slow" take a while, so later chunks (with later invalid records)
    // finish first; the engine must still stop at the first invalid record in input order.
    let slow = |record: &str, out: &mut String| {
        if record.contains("slow") {
            std::thread::sleep(Duration::from_millis(2));
        }
        upper(record, out)
    };
    let mut data = Vec::new();
    for i in 0..2000 {
        match i {
            0..=49 => data.extend(format!("slow{i}\n").bytes()),
            1500 | 1700 | 1900 => data.extend(format!("bad x {i}\n").bytes()),
            _ => data.extend(format!("ok{i}\n").bytes()),
        }
    }
    data.extend(b"x\n");
    for (threads, chunk_size) in [(8, 16), (4, 64), (2, 4096), (1, 1 << 20)] {
        let options = options(threads, chunk_size).with_on_error(OnError::Fail);
        let mut out = FlushTracker::default();
        let mut diagnostics = Vec::new();
        let input = Input::from_reader("in", Cursor::new(data.clone()));
        let result =
            Engine::new(&slow, options).run_inputs(vec![input], &mut out, &mut diagnostics);
        match result {
            Err(e @ RunError::Invalid { .. }) => {
                assert_eq!(e.to_string(), "in:1501:5: syntax: no x allowed");
                assert_eq!(e.exit_code(), 1);
            }
            other => panic!("expected an invalid record, got {other:?}"),
        }
        let lines = out.data.split(|&b| b == b'\n').count() - 1;
        assert_eq!(lines, 1500, "threads {threads} chunk {chunk_size}");
        assert!(out.data.ends_with(b"OK1499\n"));
        assert_eq!(out.flushed, out.data.len());
        assert!(diagnostics.is_empty());
    }
}

#[test]
fn unique_writes_the_first_record_of_each_key() {
    let data = b"a\nA\n b\nx\na\nx\nB\nc";
    for (threads, chunk_size) in [(1, 1), (3, 2), (2, 4096)] {
        for output in [OutputMode::Key, OutputMode::Tsv, OutputMode::Jsonl] {
            for on_error in [OnError::Mark, OnError::Skip] {
                let options = options(threads, chunk_size)
                    .with_unique(true)
                    .with_output(output)
                    .with_on_error(on_error);
                assert_same(&options, &[("t", data)], &describe(&options));
                if output == OutputMode::Key && on_error == OnError::Mark {
                    let (out, stats) = run_key(data, &options);
                    // Invalid records are not written: the output is the distinct keys.
                    assert_eq!(out, "A\nB\nC\n");
                    assert_eq!(stats.invalid, 2);
                    assert_eq!(stats.keys_written, 3);
                    assert_eq!(stats.unique, Some(3));
                    assert!(!stats.unique_estimated);
                    assert_eq!(stats.records, 8);
                }
            }
        }
    }
    // Without `unique` or `stats`, distinct keys are not counted; with `stats` alone they
    // are estimated (exactly, for so few keys in so many registers).
    let (_, stats) = run_key(data, &options(2, 4096));
    assert_eq!(stats.unique, None);
    let stats_only = options(2, 4096).with_stats(true);
    let (out, stats) = run_key(data, &stats_only);
    assert_eq!(out.lines().count(), 8);
    assert_eq!(stats.unique, Some(3));
    assert!(stats.unique_estimated);
}

#[test]
fn diagnostics_are_capped_with_a_count_of_the_rest() {
    let data = "x\nok\n".repeat(30);
    for (threads, chunk_size) in [(1, 1), (4, 5), (2, 4096)] {
        let options = options(threads, chunk_size).with_max_diagnostics(20);
        let actual = run_engine(&options, &[("f", data.as_bytes())]);
        let text = String::from_utf8(actual.diagnostics).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 21);
        assert_eq!(lines[0], "irinorm: f:1:1: syntax: no x allowed");
        assert_eq!(lines[19], "irinorm: f:39:1: syntax: no x allowed");
        assert_eq!(lines[20], "irinorm: 10 more invalid records not shown");
        let stats = actual.result.unwrap();
        assert_eq!(stats.invalid, 30);
        let mut report = Vec::new();
        stats.write_report(&mut report).unwrap();
        let report = String::from_utf8(report).unwrap();
        assert!(report.contains("invalid      30\n"), "{report}");
    }
    let off = options(2, 64).with_max_diagnostics(0);
    assert!(run_engine(&off, &[("f", data.as_bytes())])
        .diagnostics
        .is_empty());
}

/// An endless supply of lines, `http://example.com/N`, handed out in pieces of whatever
/// size is asked for.
struct Endless {
    next: u64,
    line: Vec<u8>,
    offset: usize,
}

impl Endless {
    fn new() -> Self {
        Endless {
            next: 0,
            line: Vec::new(),
            offset: 0,
        }
    }
}

impl Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.offset == self.line.len() {
            self.line = format!("http://example.com/{}\n", self.next).into_bytes();
            self.next += 1;
            self.offset = 0;
        }
        let n = (self.line.len() - self.offset).min(buf.len());
        buf[..n].copy_from_slice(&self.line[self.offset..self.offset + n]);
        self.offset += n;
        Ok(n)
    }
}

/// A writer whose reader goes away after `limit` bytes.
struct ClosingPipe {
    written: usize,
    limit: usize,
}

impl Write for ClosingPipe {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.written >= self.limit {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        self.written += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Runs `f` on another thread and fails if it takes longer than `secs`.
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .expect("the run did not end in time")
}

#[test]
fn a_closed_output_ends_the_run_quietly() {
    for (threads, chunk_size) in [(1, 1), (4, 64), (2, 1 << 20)] {
        let result = within(60, move || {
            let out = ClosingPipe {
                written: 0,
                limit: 1000,
            };
            Engine::new(&upper, options(threads, chunk_size)).run(Endless::new(), out)
        });
        match result {
            Err(e @ RunError::BrokenPipe) => assert_eq!(e.exit_code(), 0),
            other => panic!("expected a broken pipe, got {other:?}"),
        }
    }
}

/// A writer that fails with something other than a broken pipe.
struct FullDisk;

impl Write for FullDisk {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::other("no space left"))
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn other_output_errors_are_reported() {
    let result = within(60, || {
        Engine::new(&upper, options(2, 4096)).run(Endless::new(), FullDisk)
    });
    match result {
        Err(e @ RunError::Output(_)) => assert_eq!(e.exit_code(), 2),
        other => panic!("expected an output error, got {other:?}"),
    }
}

#[test]
fn a_panicking_operation_panics_the_run_instead_of_hanging() {
    for (threads, chunk_size) in [(1, 1), (4, 16), (2, 1 << 20)] {
        let result = within(60, move || {
            let op = |record: &str, out: &mut String| {
                if record == "http://example.com/500" {
                    panic!("operation bug");
                }
                upper(record, out)
            };
            std::panic::catch_unwind(|| {
                Engine::new(&op, options(threads, chunk_size)).run(Endless::new(), io::sink())
            })
        });
        let payload = result.expect_err("the run should panic");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"operation bug"));
    }
}

#[test]
fn too_long_prefixes_at_the_prefix_boundary() {
    // Lines around 256 bytes (the kept prefix), with and without CR, over a limit of 100.
    let mut data = Vec::new();
    for len in [101, 102, 255, 256, 257, 258] {
        for ending in [&b"\n"[..], b"\r\n"] {
            data.extend(vec![b'a'; len - 1]);
            data.push(b'z');
            data.extend(ending);
        }
    }
    data.extend(vec![b'b'; 256]);
    data.push(b'\r');
    // Short reads keep the reader skipping line after line (a long read would bring the
    // following lines in whole, for the workers to judge).
    for chop in [&[][..], &[1], &[3, 50], &[300]] {
        for (threads, chunk_size) in [(1, 1), (2, 7), (2, 100), (3, 4096)] {
            for output in [OutputMode::Tsv, OutputMode::Jsonl] {
                let options = options(threads, chunk_size)
                    .with_max_line_bytes(100)
                    .with_output(output);
                let inputs = [("t", &data[..])];
                let label = format!("{} reads {chop:?}", describe(&options));
                check(
                    &options,
                    &inputs,
                    chop,
                    &reference(&options, &inputs),
                    &label,
                );
            }
        }
    }
}

/// A source that hands out one line, then waits for the test to let it finish.
struct Gate {
    first: Cursor<Vec<u8>>,
    release: mpsc::Receiver<()>,
}

impl Read for Gate {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.first.read(buf)? {
            0 => {
                let _ = self.release.recv();
                Ok(0)
            }
            n => Ok(n),
        }
    }
}

/// A writer that passes on everything written to it.
struct Tap(mpsc::Sender<Vec<u8>>);

impl Write for Tap {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let _ = self.0.send(buf.to_vec());
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn with_one_byte_chunks_a_line_goes_through_before_the_next_arrives() {
    let (release_tx, release_rx) = mpsc::channel();
    let (out_tx, out_rx) = mpsc::channel();
    let run = std::thread::spawn(move || {
        let gate = Gate {
            first: Cursor::new(b"http://a/\n".to_vec()),
            release: release_rx,
        };
        Engine::new(&upper, options(2, 1)).run(gate, Tap(out_tx))
    });
    let written = out_rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the first line should be written while the source waits");
    assert_eq!(written, b"HTTP://A/\n");
    release_tx.send(()).unwrap();
    let stats = run.join().unwrap().unwrap();
    assert_eq!(stats.records, 1);
}
