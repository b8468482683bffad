//! Peak memory of the engine over a mapped file does not grow with the file (SPEC §8: under
//! 64 MiB resident at default settings): the pages of chunks already written are handed
//! back as the run goes, so a file larger than the budget stays within it.
//!
//! Writes a file of generated lines (200 MB in an optimized build, 64 MB in a debug build,
//! where the engine is slower), 50 lines of 1.5 MB (too long) and then one line of 100 MB
//! with no line feed, runs
//! [`Engine::run_inputs`] over it at default settings (regular files mapped) into
//! `io::sink()`, and checks the process's peak resident set: neither the lines nor the long
//! line stay resident.
//! This file holds that one test alone, since the peak is the whole process's.

use std::io::{self, Write};

use irinorm::stream::Input;
use irinorm::stream::{Engine, EngineOptions};

mod peak_rss;

#[test]
fn peak_memory_over_a_mapped_file_does_not_grow_with_it() {
    let bytes: usize = if cfg!(debug_assertions) {
        64_000_000
    } else {
        200_000_000
    };
    let path = std::env::temp_dir().join(format!("irinorm-mapped-{}.txt", std::process::id()));
    let mut block = Vec::new();
    let mut i = 0;
    while block.len() < 1 << 16 {
        block.extend(format!("http://example.com/a/{i}/b?q={i}\n").bytes());
        i += 1;
    }
    let mut file = io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut written = 0;
    while written < bytes {
        file.write_all(&block).unwrap();
        written += block.len();
    }
    // Lines a little too long (1.5 MB against the 1 MiB limit), each its own chunk: their
    // pages go back when their chunks are written.
    let mut over = vec![b'o'; 1_500_000];
    over.push(b'\n');
    for _ in 0..50 {
        file.write_all(&over).unwrap();
    }
    written += 50 * over.len();
    let long_line = 100_000_000;
    let part = vec![b'a'; 1 << 20];
    let mut long_written = 0;
    while long_written < long_line {
        let n = part.len().min(long_line - long_written);
        file.write_all(&part[..n]).unwrap();
        long_written += n;
    }
    file.flush().unwrap();
    drop(file);

    // SAFETY: the file is this test's own; nothing else changes it during the run.
    let options = unsafe { EngineOptions::default().with_mmap(true) };
    assert!(options.mmap());
    let input = Input::open(&path).unwrap();
    let result =
        Engine::new(&peak_rss::copy, options).run_inputs(vec![input], io::sink(), &mut io::sink());
    std::fs::remove_file(&path).unwrap();
    let stats = result.unwrap();
    assert_eq!(stats.input_bytes, (written + long_line) as u64);
    assert_eq!(stats.invalid, 51, "the long lines are too long");
    let what = format!(
        "{} MB mapped in {:.2?}",
        stats.input_bytes / 1_000_000,
        stats.elapsed
    );
    peak_rss::assert_peak_rss_within_budget(&what);
}
