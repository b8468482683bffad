//! Shared pieces of the engine tests: a test operation, and a reference implementation of
//! the record rules and output forms, written independently of the engine and as plainly as
//! possible (split the bytes on LF, one record at a time, `format!`, `serde_json` for JSON
//! strings, a `HashSet<String>` for `unique`), so that the tests compare two implementations.

#![allow(dead_code)]

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use irinorm::internals as repair;
use irinorm::stream::{Engine, EngineOptions, OnError, OutputMode, RunError, Stats};
use irinorm::Repairs;
use irinorm::{Error, ErrorKind};

/// The test operation: uppercases ASCII letters; rejects a record holding `x` (a syntax
/// error at the x's column) or a NUL (a control error at its column, which the engine
/// makes a `nul` error at the first NUL of the raw record). So records get repaired,
/// changed and rejected, with columns to map back.
pub fn upper(record: &str, out: &mut String) -> Result<(), Error> {
    for (i, c) in record.chars().enumerate() {
        if c == 'x' {
            return Err(Error::new(ErrorKind::Syntax, i + 1, "no x allowed"));
        }
        if c == '\0' {
            return Err(Error::new(ErrorKind::Control, i + 1, "no NUL allowed"));
        }
    }
    out.extend(record.chars().map(|c| c.to_ascii_uppercase()));
    Ok(())
}

/// What the reference computes for a run.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Expected {
    pub output: Vec<u8>,
    pub diagnostics: Vec<u8>,
    pub records: u64,
    pub invalid: u64,
    pub invalid_by_kind: Vec<(ErrorKind, u64)>,
    pub repairs: Repairs,
    pub changed: u64,
    pub unique: u64,
    /// Valid records written.
    pub keys_written: u64,
    /// With `OnError::Fail`: the first invalid record (input name, line, error).
    pub failure: Option<(String, u64, Error)>,
}

/// Runs the reference over named inputs, as one stream.
pub fn reference(options: &EngineOptions, inputs: &[(&str, &[u8])]) -> Expected {
    let mut e = Expected::default();
    let mut seen: HashSet<String> = HashSet::new();
    let mut kinds: Vec<(ErrorKind, u64)> = ErrorKind::ALL.iter().map(|&k| (k, 0)).collect();
    let mut shown = 0;
    'inputs: for (name, bytes) in inputs {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        // A final LF ends the last line; it does not start another.
        if lines.last() == Some(&&b""[..]) {
            lines.pop();
        }
        for (i, line) in lines.iter().enumerate() {
            let number = i as u64 + 1;
            let record = line.strip_suffix(b"\r").unwrap_or(line);
            e.records += 1;
            let result = one_record(options, record, &mut e.repairs);
            match result {
                Ok(key) => {
                    if key.as_bytes() != record {
                        e.changed += 1;
                    }
                    let first = seen.insert(key.clone());
                    if first || !options.unique {
                        e.keys_written += 1;
                        let row = format_record(options.output, name, number, record, Ok(&key));
                        e.output.extend(row);
                    }
                }
                Err(error) => {
                    e.invalid += 1;
                    kinds.iter_mut().find(|(k, _)| *k == error.kind).unwrap().1 += 1;
                    match options.on_error {
                        OnError::Fail => {
                            e.failure = Some((name.to_string(), number, error));
                            break 'inputs;
                        }
                        // With `unique`, invalid records are not written.
                        OnError::Mark if options.unique => {}
                        OnError::Mark => {
                            let input = if error.kind == ErrorKind::TooLong {
                                &record[..record.len().min(256)]
                            } else {
                                record
                            };
                            e.output.extend(format_record(
                                options.output,
                                name,
                                number,
                                input,
                                Err(&error),
                            ));
                        }
                        OnError::Skip => {}
                    }
                    if shown < options.max_diagnostics {
                        shown += 1;
                        e.diagnostics.extend(
                            format!(
                                "irinorm: {name}:{number}:{}: {}: {}\n",
                                error.column,
                                error.kind.name(),
                                error.message
                            )
                            .into_bytes(),
                        );
                    }
                }
            }
        }
    }
    if e.failure.is_none() && options.max_diagnostics > 0 && e.invalid > shown as u64 {
        e.diagnostics.extend(
            format!(
                "irinorm: {} more invalid records not shown\n",
                e.invalid - shown as u64
            )
            .into_bytes(),
        );
    }
    e.unique = seen.len() as u64;
    e.invalid_by_kind = kinds.into_iter().filter(|(_, n)| *n > 0).collect();
    e
}

/// The key of one record, or why it is invalid.
fn one_record(
    options: &EngineOptions,
    record: &[u8],
    repairs: &mut Repairs,
) -> Result<String, Error> {
    if record.len() > options.max_line_bytes {
        return Err(Error::new(
            ErrorKind::TooLong,
            0,
            "line longer than --max-line-bytes",
        ));
    }
    let mut scratch = String::new();
    let mut key = String::new();
    let result =
        repair::prepare(record, options.repair(), &mut scratch, repairs).and_then(|prepared| {
            match upper(prepared, &mut key) {
                Ok(()) => Ok(()),
                Err(mut error) => {
                    if !options.strict {
                        error.column = repair::original_column(record, error.column);
                    }
                    Err(error)
                }
            }
        });
    // A record with a NUL is refused for its first NUL, whatever else is wrong with it; its
    // column counts characters, and each octet that is not UTF-8 as one.
    match (result, record.iter().position(|&b| b == 0)) {
        (Ok(()), _) => Ok(key),
        (Err(_), Some(at)) => Err(Error::new(
            ErrorKind::Nul,
            units(&record[..at]) + 1,
            "NUL byte",
        )),
        (Err(error), None) => Err(error),
    }
}

/// The characters of `bytes`, where each octet that is not part of valid UTF-8 counts one.
fn units(mut bytes: &[u8]) -> usize {
    let mut n = 0;
    loop {
        match std::str::from_utf8(bytes) {
            Ok(text) => return n + text.chars().count(),
            Err(e) => {
                let valid = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap();
                n += valid.chars().count() + 1;
                bytes = &bytes[e.valid_up_to() + 1..];
            }
        }
    }
}

/// One output line, formatted the plain way.
fn format_record(
    mode: OutputMode,
    file: &str,
    line: u64,
    input: &[u8],
    result: Result<&str, &Error>,
) -> Vec<u8> {
    match mode {
        OutputMode::Key => format!("{}\n", result.unwrap_or("")).into_bytes(),
        OutputMode::Tsv => {
            let mut out = tsv_escape(input);
            out.push(b'\t');
            if let Ok(key) = result {
                out.extend(tsv_escape(key.as_bytes()));
            }
            out.push(b'\t');
            if let Err(error) = result {
                out.extend(
                    format!("{}:{}: {}", error.kind.name(), error.column, error.message).bytes(),
                );
            }
            out.push(b'\n');
            out
        }
        OutputMode::Jsonl => {
            let input = json_string(&percent_invalid(input));
            let (key, error) = match result {
                Ok(key) => (json_string(key), "null".to_string()),
                Err(error) => (
                    "null".to_string(),
                    format!(
                        "{{\"kind\":{},\"column\":{},\"message\":{}}}",
                        json_string(error.kind.name()),
                        error.column,
                        json_string(error.message)
                    ),
                ),
            };
            let file = json_string(file);
            format!(
                "{{\"file\":{file},\"line\":{line},\"input\":{input},\"key\":{key},\"error\":{error},\"warnings\":[]}}\n"
            )
            .into_bytes()
        }
        // Without a framing, each line a record of one field: the key after a tab.
        OutputMode::Record => [input, b"\t", result.unwrap_or("").as_bytes(), b"\n"].concat(),
        _ => unreachable!("an output mode the reference does not know"),
    }
}

fn tsv_escape(field: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for &b in field {
        match b {
            b'\\' => out.extend(b"\\\\"),
            b'\t' => out.extend(b"\\t"),
            b'\r' => out.extend(b"\\r"),
            0 => out.extend(b"\\0"),
            _ => out.push(b),
        }
    }
    out
}

/// The bytes as text, with each octet that is not part of valid UTF-8 written `%XX`.
fn percent_invalid(bytes: &[u8]) -> String {
    let mut s = String::new();
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                s.push_str(valid);
                return s;
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                s.push_str(std::str::from_utf8(valid).unwrap());
                let bad = e.error_len().unwrap_or(after.len());
                for b in &after[..bad] {
                    s.push_str(&format!("%{b:02X}"));
                }
                rest = &after[bad..];
            }
        }
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// The outcome of one engine run.
pub struct Actual {
    pub output: Vec<u8>,
    pub diagnostics: Vec<u8>,
    pub result: Result<Stats, RunError>,
}

/// Runs the engine over named in-memory inputs.
pub fn run_engine(options: &EngineOptions, inputs: &[(&str, &[u8])]) -> Actual {
    run_engine_chopped(options, inputs, &[])
}

/// Runs the engine over named in-memory inputs whose reads return at most `chop[i]` bytes
/// (cycling through `chop`; empty means reads as large as asked for).
pub fn run_engine_chopped(
    options: &EngineOptions,
    inputs: &[(&str, &[u8])],
    chop: &[usize],
) -> Actual {
    let inputs = inputs
        .iter()
        .map(|(name, bytes)| {
            let reader = Chopped {
                data: bytes.to_vec(),
                offset: 0,
                sizes: chop.to_vec(),
                turn: 0,
            };
            irinorm::stream::Input::from_reader(*name, reader)
        })
        .collect();
    run_inputs(options, inputs)
}

/// Runs the engine with the test operation over `inputs`.
fn run_inputs(options: &EngineOptions, inputs: Vec<irinorm::stream::Input>) -> Actual {
    let mut output = Vec::new();
    let mut diagnostics = Vec::new();
    let result =
        Engine::new(&upper, options.clone()).run_inputs(inputs, &mut output, &mut diagnostics);
    Actual {
        output,
        diagnostics,
        result,
    }
}

/// A reader that returns short reads of the given sizes in turn.
struct Chopped {
    data: Vec<u8>,
    offset: usize,
    sizes: Vec<usize>,
    turn: usize,
}

impl std::io::Read for Chopped {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut n = buf.len().min(self.data.len() - self.offset);
        if !self.sizes.is_empty() {
            n = n.min(self.sizes[self.turn % self.sizes.len()].max(1));
            self.turn += 1;
        }
        buf[..n].copy_from_slice(&self.data[self.offset..self.offset + n]);
        self.offset += n;
        Ok(n)
    }
}

/// Checks an engine run against the reference, with a label for failure messages.
pub fn assert_same(options: &EngineOptions, inputs: &[(&str, &[u8])], label: &str) {
    let expected = reference(options, inputs);
    check(options, inputs, &[], &expected, label);
}

/// Checks an engine run against an already computed reference result.
/// Reads return at most `chop[i]` bytes in turn (see [`run_engine_chopped`]).
pub fn check(
    options: &EngineOptions,
    inputs: &[(&str, &[u8])],
    chop: &[usize],
    expected: &Expected,
    label: &str,
) {
    let actual = run_engine_chopped(options, inputs, chop);
    let total: usize = inputs.iter().map(|(_, b)| b.len()).sum();
    compare(options, actual, total, expected, label);
}

/// Inputs written to the files of a new directory, which is removed on drop.
pub struct Files {
    dir: PathBuf,
    /// Each file's path as text (its name in the engine's output), with its bytes.
    pub named: Vec<(String, Vec<u8>)>,
}

impl Files {
    pub fn new(inputs: &[(&str, &[u8])]) -> Files {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("irinorm-files-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let named = inputs
            .iter()
            .enumerate()
            .map(|(i, (_, bytes))| {
                let path = dir.join(format!("{i}.txt"));
                std::fs::write(&path, bytes).unwrap();
                (path.to_str().unwrap().to_owned(), bytes.to_vec())
            })
            .collect();
        Files { dir, named }
    }

    /// The inputs as [`reference`] takes them.
    pub fn inputs(&self) -> Vec<(&str, &[u8])> {
        self.named
            .iter()
            .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
            .collect()
    }
}

impl Drop for Files {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Runs the engine over the files of `files`, opened as the command line opens them (so
/// mapped where [`EngineOptions::mmap`] is on).
pub fn run_engine_files(options: &EngineOptions, files: &Files) -> Actual {
    let inputs = files
        .named
        .iter()
        .map(|(path, _)| irinorm::stream::Input::open(path).unwrap())
        .collect();
    run_inputs(options, inputs)
}

/// Checks an engine run over `inputs` written to files, mapped and read, against the
/// reference.
pub fn check_files(options: &EngineOptions, inputs: &[(&str, &[u8])], label: &str) {
    let files = Files::new(inputs);
    let named = files.inputs();
    let expected = reference(options, &named);
    let total: usize = inputs.iter().map(|(_, b)| b.len()).sum();
    for mmap in [true, false] {
        // SAFETY: the files are the test's own; nothing else changes them during the run.
        let options = unsafe { options.clone().with_mmap(mmap) };
        let actual = run_engine_files(&options, &files);
        compare(
            &options,
            actual,
            total,
            &expected,
            &format!("{label} mmap={mmap}"),
        );
    }
}

/// Checks the outcome of an engine run over `total` bytes against the reference's.
fn compare(
    options: &EngineOptions,
    actual: Actual,
    total: usize,
    expected: &Expected,
    label: &str,
) {
    if actual.output != expected.output {
        let at = actual
            .output
            .iter()
            .zip(&expected.output)
            .position(|(a, b)| a != b)
            .unwrap_or(actual.output.len().min(expected.output.len()));
        let from = at.saturating_sub(80);
        panic!(
            "{label}: output differs at byte {at} (lengths {} vs {} expected)\n  \
             got:      {:?}\n  expected: {:?}",
            actual.output.len(),
            expected.output.len(),
            String::from_utf8_lossy(&actual.output[from..(at + 80).min(actual.output.len())]),
            String::from_utf8_lossy(&expected.output[from..(at + 80).min(expected.output.len())]),
        );
    }
    assert_eq!(
        String::from_utf8_lossy(&actual.diagnostics),
        String::from_utf8_lossy(&expected.diagnostics),
        "{label}: diagnostics"
    );
    match (&actual.result, &expected.failure) {
        (Ok(stats), None) => {
            assert_eq!(stats.records, expected.records, "{label}: records");
            assert_eq!(stats.invalid, expected.invalid, "{label}: invalid");
            let kinds: Vec<(ErrorKind, u64)> = ErrorKind::ALL
                .iter()
                .map(|&k| (k, stats.invalid_of(k)))
                .filter(|(_, n)| *n > 0)
                .collect();
            assert_eq!(kinds, expected.invalid_by_kind, "{label}: invalid by kind");
            assert_eq!(stats.repairs, expected.repairs, "{label}: repairs");
            assert_eq!(stats.changed, expected.changed, "{label}: changed");
            let written = stats.keys_written;
            assert_eq!(written, expected.keys_written, "{label}: keys written");
            if options.unique {
                assert_eq!(stats.unique, Some(expected.unique), "{label}: unique");
                assert!(!stats.unique_estimated, "{label}: unique is exact");
            } else if options.stats {
                // Estimated (HyperLogLog): exact but for the rare keys that share a register
                // among few, within a few standard errors (0.8% each) among many.
                let got = stats.unique.expect("stats count distinct keys") as f64;
                let want = expected.unique as f64;
                assert!(
                    (got - want).abs() <= 2.0 + 0.03 * want,
                    "{label}: unique {got} ~ {want}"
                );
                assert!(stats.unique_estimated, "{label}: unique is an estimate");
            }
            assert_eq!(stats.input_bytes, total as u64, "{label}: input bytes");
        }
        (Err(RunError::Invalid { name, line, error }), Some((n, l, e))) => {
            assert_eq!((name, line, error), (n, l, e), "{label}: failure");
        }
        (got, expected) => panic!("{label}: got {got:?}, expected failure {expected:?}"),
    }
}

/// Every combination the differential tests cover.
pub fn option_grid(base: &EngineOptions) -> Vec<EngineOptions> {
    let mut grid = Vec::new();
    for threads in [1, 2, 4] {
        for chunk_size in [1, 7, 64, 4096, 1 << 20, 4 << 20] {
            for output in [OutputMode::Key, OutputMode::Tsv, OutputMode::Jsonl] {
                for on_error in [OnError::Mark, OnError::Skip] {
                    grid.push(
                        base.clone()
                            .with_threads(threads)
                            .with_chunk_size(chunk_size)
                            .with_output(output)
                            .with_on_error(on_error),
                    );
                }
            }
        }
    }
    grid
}

/// A short description of options for failure messages.
pub fn describe(o: &EngineOptions) -> String {
    format!(
        "threads={} chunk={} output={:?} on_error={:?} strict={} max_line={} unique={}",
        o.threads, o.chunk_size, o.output, o.on_error, o.strict, o.max_line_bytes, o.unique
    )
}
