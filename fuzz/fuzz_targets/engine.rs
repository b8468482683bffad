//! The streaming engine gives the same bytes and counts whatever its chunk size, thread
//! count and read sizes: random input bytes, a random chunk size (1..=4096), 1..=4 threads
//! and short reads against one thread with 1 MiB chunks, for every output mode, error
//! policy, `unique`, small `max_line_bytes` (the too-long path), and with binary
//! containers refused or not (the refusal depends on the bytes, not on the reads).
//!
//! Input: 4 bytes of settings, then the bytes the engine reads. The distinct-key sketch of
//! `stats` (16 KiB a chunk, merged by the writer) is on for a quarter of the inputs only:
//! with chunks of a few bytes it was most of a run's work, and its path is the same for
//! every input.

#![no_main]

use std::io::{self, Read};
use std::sync::OnceLock;

use irinorm::{Normalizer, Options};
use irinorm::stream::{Engine, EngineOptions, OnError, OutputMode, RunError};
use irinorm::Error;
use libfuzzer_sys::fuzz_target;

fn normalizer() -> &'static Normalizer {
    static N: OnceLock<Normalizer> = OnceLock::new();
    N.get_or_init(|| Normalizer::new(Options::default()).unwrap())
}

/// A reader that hands out at most `step` bytes per call.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.step).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// The parts of an outcome that must not depend on chunking and threads.
fn outcome(r: Result<irinorm::stream::Stats, RunError>, fail: bool) -> String {
    match r {
        // With `fail`, records after the failing one may or may not have been counted.
        Ok(s) if !fail => format!(
            "ok records={} invalid={} kinds={:?} repairs={:?} changed={} unique={:?} bytes={}",
            s.records, s.invalid, s.invalid_by_kind, s.repairs, s.changed, s.unique, s.input_bytes
        ),
        Ok(_) => "ok".to_owned(),
        Err(RunError::Invalid { name, line, error }) => format!("invalid {name}:{line}: {error}"),
        Err(e) => format!("error {e}"),
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let cfg = u32::from(data[0]) | u32::from(data[1]) << 8 | u32::from(data[2]) << 16;
    let more = data[3];
    let input = &data[4..];
    let chunk_size = 1 + (cfg & 0xFFF) as usize; // 1..=4096
    let threads = 1 + ((cfg >> 12) & 3) as usize; // 1..=4
    let output = [
        OutputMode::Key,
        OutputMode::Tsv,
        OutputMode::Jsonl,
        OutputMode::Key,
    ][((cfg >> 14) & 3) as usize];
    let unique = (cfg >> 16) & 1 == 1;
    let on_error =
        [OnError::Mark, OnError::Skip, OnError::Fail, OnError::Mark][((cfg >> 17) & 3) as usize];
    let max_line_bytes = if (cfg >> 19) & 1 == 1 {
        1 + ((cfg >> 20) & 15) as usize * 8
    } else {
        1 << 20
    };
    let step = if (cfg >> 23) & 1 == 1 {
        1 + (cfg & 31) as usize
    } else {
        usize::MAX
    };
    let refuse_containers = more & 1 == 1;
    let sketch = (more >> 1) & 3 == 3;

    let base = EngineOptions::default()
        .with_output(output)
        .with_unique(unique)
        .with_on_error(on_error)
        .with_max_line_bytes(max_line_bytes)
        .with_stats(sketch)
        .with_refuse_containers(refuse_containers)
        .with_max_diagnostics(0);
    let n = normalizer();
    let op = |rec: &str, out: &mut String| -> Result<(), Error> { n.normalize_into(rec, out) };

    let reference = Engine::new(&op, base.clone().with_threads(1).with_chunk_size(1 << 20));
    let mut want = Vec::new();
    let want_r = outcome(reference.run(input, &mut want), on_error == OnError::Fail);

    let engine = Engine::new(&op, base.with_threads(threads).with_chunk_size(chunk_size));
    let mut got = Vec::new();
    let got_r = outcome(
        engine.run(Trickle { data: input, step }, &mut got),
        on_error == OnError::Fail,
    );
    assert_eq!(
        got_r, want_r,
        "threads={threads} chunk={chunk_size} step={step}"
    );
    assert!(
        got == want,
        "output differs: threads={threads} chunk={chunk_size} step={step}\n got={:?}\nwant={:?}",
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want)
    );
});
