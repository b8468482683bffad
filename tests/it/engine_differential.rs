//! Differential tests of the engine: for generated inputs and for every corpus file, the
//! engine's output with 1, 2 and 4 threads and chunk sizes from 1 byte to 4 MiB, in all
//! three output forms, with invalid records marked or skipped, is byte-identical to the
//! plain sequential reference of `engine_common`, and so are its counts and diagnostics.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::engine_common::{
    assert_same, check, check_files, describe, option_grid, reference, run_engine,
};
use irinorm::stream::{EngineOptions, OnError, OutputMode};
use proptest::prelude::*;

/// Pieces that lines are made of: plain text, blanks, stray and valid percent signs,
/// non-ASCII, invalid UTF-8, controls, the test operation's `x`, and the odd BOM and CR.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => "[a-w/:.?#=&]{1,12}".prop_map(String::into_bytes),
        1 => Just(b" ".to_vec()),
        1 => Just(b"\t".to_vec()),
        1 => Just(b"%".to_vec()),
        1 => Just(b"%4".to_vec()),
        1 => Just(b"%41".to_vec()),
        1 => Just("é".as_bytes().to_vec()),
        1 => Just("\u{10348}".as_bytes().to_vec()),
        1 => Just(b"\xFF".to_vec()),
        1 => Just(b"\xC3".to_vec()),
        1 => Just(b"\xE2\x82".to_vec()),
        1 => Just(b"x".to_vec()),
        1 => Just(b"\0".to_vec()),
        1 => Just(b"\r".to_vec()),
        1 => Just(b"\\\"<>".to_vec()),
        1 => Just(b"\xEF\xBB\xBF".to_vec()),
        1 => (1usize..400).prop_map(|n| vec![b'a'; n]),
    ]
}

fn line() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(piece(), 0..6).prop_map(|pieces| pieces.concat())
}

/// A whole input: maybe a BOM, lines ended by LF or CRLF, maybe no final line feed.
fn input() -> impl Strategy<Value = Vec<u8>> {
    (
        any::<bool>(),
        prop::collection::vec((line(), any::<bool>()), 0..40),
        any::<bool>(),
    )
        .prop_map(|(bom, lines, final_lf)| {
            let mut out = Vec::new();
            if bom {
                out.extend(b"\xEF\xBB\xBF");
            }
            let count = lines.len();
            for (i, (line, crlf)) in lines.into_iter().enumerate() {
                out.extend(line);
                if i + 1 < count || final_lf {
                    out.extend(if crlf { &b"\r\n"[..] } else { b"\n" });
                }
            }
            out
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn generated_inputs_match_the_reference(
        data in input(),
        strict in any::<bool>(),
        small_max in any::<bool>(),
        unique in any::<bool>(),
        chop in prop::collection::vec(1usize..300, 0..4),
    ) {
        let base = EngineOptions::default().with_strict(strict).with_max_line_bytes(if small_max { 100 } else { 1 << 20 }).with_unique(unique).with_stats(true).with_max_diagnostics(5);
        // Reads may come back short, in the sizes of `chop` (whole when it is empty).
        let inputs = [("gen", &data[..])];
        let mut expected = HashMap::new();
        for options in option_grid(&base) {
            let expected = expected
                .entry((options.output, options.on_error))
                .or_insert_with(|| reference(&options, &inputs));
            check(&options, &inputs, &chop, expected, &describe(&options));
        }
    }

    #[test]
    fn files_mapped_or_read_match_the_reference(
        a in input(),
        b in input(),
        small_max in any::<bool>(),
        unique in any::<bool>(),
    ) {
        // Mapped files are cut into chunks by the reader's own rules for maps (too-long
        // lines included), read ones as any stream is.
        let base = EngineOptions::default().with_max_line_bytes(if small_max { 100 } else { 1 << 20 }).with_unique(unique).with_stats(true).with_max_diagnostics(5);
        let inputs = [("a", &a[..]), ("b", &b[..])];
        for chunk_size in [1, 7, 64, 4096, 1 << 20] {
            for output in [OutputMode::Key, OutputMode::Tsv, OutputMode::Jsonl] {
                let options = base.clone().with_threads(2).with_chunk_size(chunk_size).with_output(output);
                check_files(&options, &inputs, &describe(&options));
            }
        }
    }

    #[test]
    fn several_inputs_match_the_reference(
        a in input(),
        b in input(),
        c in input(),
    ) {
        let options = EngineOptions::default().with_threads(3).with_chunk_size(5).with_max_diagnostics(3);
        let inputs = [("a", &a[..]), ("b", &b[..]), ("c", &c[..])];
        for output in [OutputMode::Key, OutputMode::Tsv, OutputMode::Jsonl] {
            for on_error in [OnError::Mark, OnError::Skip, OnError::Fail] {
                let options = options.clone().with_output(output).with_on_error(on_error);
                assert_same(&options, &inputs, &describe(&options));
            }
        }
    }
}

/// How much of each corpus file the grid runs over: all of it in an optimized build
/// (`cargo test --release`); in a debug build, where the engine runs at a few MB/s, the
/// first 128 KiB (16 KiB for the one- and seven-byte chunks), which holds most small files
/// whole. One more run per file covers the whole file in any build.
fn corpus_prefix(chunk_size: usize) -> usize {
    if !cfg!(debug_assertions) {
        usize::MAX
    } else if chunk_size < 64 {
        16 << 10
    } else {
        128 << 10
    }
}

/// Runs the whole grid over one corpus file.
fn check_corpus_file(file: &Path) {
    let data = std::fs::read(file).unwrap();
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    let whole = EngineOptions::default()
        .with_threads(4)
        .with_chunk_size(4096)
        .with_output(OutputMode::Jsonl);
    assert_same(
        &whole,
        &[(name.as_str(), &data)],
        &format!("{name}: whole file"),
    );

    // The reference depends only on the output form and the error policy (and the data):
    // compute it once for each, then compare every thread count and chunk size against it.
    let mut expected = HashMap::new();
    for options in option_grid(&EngineOptions::default()) {
        let data = &data[..data.len().min(corpus_prefix(options.chunk_size))];
        let inputs = [(name.as_str(), data)];
        let key = (options.output, options.on_error, data.len());
        let expected = expected
            .entry(key)
            .or_insert_with(|| reference(&options, &inputs));
        let label = format!("{name}: {}", describe(&options));
        check(&options, &inputs, &[], expected, &label);
    }
}

#[test]
fn corpora_match_the_reference() {
    let Some(files) = crate::common::shared_corpora(&["txt", "jsonl"]) else {
        crate::common::skipped(
            "engine_differential::corpora",
            "../shared/corpora is absent",
        );
        return;
    };
    // Four files at a time: each run is small, so this keeps the cores busy.
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(file) = files.get(i) else { break };
                check_corpus_file(file);
            });
        }
    });
}

#[test]
fn key_output_has_one_line_per_record() {
    let data = b"a\n\nx\n\xFF\n b \r\nlast".to_vec();
    for options in option_grid(&EngineOptions::default()) {
        if options.output != OutputMode::Key || options.on_error != OnError::Mark {
            continue;
        }
        let actual = run_engine(&options, &[("t", &data)]);
        let lines = actual.output.iter().filter(|&&b| b == b'\n').count();
        assert_eq!(lines, 6, "{}", describe(&options));
        assert_eq!(actual.output, reference(&options, &[("t", &data)]).output);
    }
}
