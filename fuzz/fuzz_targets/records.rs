//! Records (`--field`, `--csv`, `--json-field`, `--cdx`, `--cdxj`, `--log`): whatever the
//! bytes, the engine never panics, and it writes the same bytes one record at a time
//! (with `stats`, which keeps records out of the runs of records) as through those runs,
//! on one thread with large chunks as on several with small ones.
//!
//! Input: 2 bytes of settings (the format, where the key goes, the output, the chunk
//! size, the threads), then the bytes the engine reads.

#![no_main]

use std::sync::OnceLock;

use irinorm::internals::{Field, Framing, KeyPlacement, LogPart, RecordFormat};
use irinorm::stream::{Engine, EngineOptions, OutputMode};
use irinorm::{Normalizer, Options};
use libfuzzer_sys::fuzz_target;

fn normalizer() -> &'static Normalizer {
    static N: OnceLock<Normalizer> = OnceLock::new();
    N.get_or_init(|| Normalizer::new(Options::default()).unwrap())
}

/// The framing the settings byte `s` names.
fn framing(s: u8) -> Framing {
    let (format, url) = match s & 7 {
        0 => (RecordFormat::Delimited(b'\t'), Some(Field::Index(1))),
        1 => (RecordFormat::Delimited(b','), Some(Field::Name("url".into()))),
        2 => (RecordFormat::Csv(b','), Some(Field::Index(1))),
        3 => (RecordFormat::JsonLines, Some(Field::Name("a.url".into()))),
        4 => (RecordFormat::Cdx, None),
        5 => (RecordFormat::Cdxj, None),
        6 => (RecordFormat::Log(LogPart::Request), None),
        _ => (RecordFormat::Log(LogPart::Referer), None),
    };
    let json = format == RecordFormat::JsonLines;
    let key = match (s >> 3) & 3 {
        1 if json => KeyPlacement::Replace(Field::Name("a.url".into())),
        1 if !matches!(format, RecordFormat::Log(_)) => KeyPlacement::Replace(Field::Index(0)),
        2 if json => KeyPlacement::Member("k".into()),
        _ => KeyPlacement::Append,
    };
    Framing {
        format,
        url,
        key,
        header: (s >> 5) & 1 == 1,
        error_field: (s >> 6) & 1 == 1,
    }
}

/// The output of a run of `options` over `input`.
fn run(options: EngineOptions, input: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    // A name a header lacks stops the run: the same for every run of these settings.
    let _ = Engine::new(normalizer(), options).run(input, &mut out);
    out
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let (s, t) = (data[0], data[1]);
    let input = &data[2..];
    let framing = framing(s);
    if framing.check().is_err() {
        return;
    }
    let output = [OutputMode::Key, OutputMode::Record, OutputMode::Tsv, OutputMode::Jsonl]
        [usize::from(t & 3)];
    let chunk_size = 1 + usize::from(t >> 2) * 16;
    let threads = 1 + usize::from((s >> 7) & 1) * 2;
    let base = EngineOptions::default()
        .with_framing(Some(framing))
        .with_output(output)
        .with_max_diagnostics(0)
        .with_max_line_bytes(200);
    let want = run(base.clone().with_threads(1).with_chunk_size(1 << 20), input);
    let one_by_one = run(base.clone().with_threads(1).with_stats(true), input);
    assert!(want == one_by_one, "runs of records differ from records one by one");
    let got = run(base.with_threads(threads).with_chunk_size(chunk_size), input);
    assert!(got == want, "threads={threads} chunk={chunk_size}");
});
