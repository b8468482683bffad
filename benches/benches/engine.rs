//! Engine throughput (MB/s, criterion's `Throughput::Bytes`) at 1, 2 and all threads, at
//! `--level scheme --form uri` with the normalizer as the operation (as the command line
//! runs it), over every corpus concatenated (in memory, written to a sink), next to the
//! same run with a plain closure as the operation at 1 thread (no pass-through: every
//! record prepared and normalized), to the other modes users run at 1 thread (the SURT form
//! and the crawler profile in key output; jsonl rows of the `uri` and SURT keys), and to
//! the floor: split lines with `memchr`, validate with `simdutf8`, copy the lines to an
//! output buffer. Printed at the end as a Markdown table, also saved to
//! `<criterion dir>/engine-summary.md`.
//!
//! ```text
//! cargo bench --bench engine
//! ```

mod common;

use std::fmt::Write as _;
use std::hint::black_box;
use std::io;
use std::time::{Duration, SystemTime};

use criterion::{Criterion, Throughput};
use irinorm::stream::{Engine, EngineOptions, Operation, OutputMode};
use irinorm::{Form, Level, Normalizer, Options, Rules};

const GROUP: &str = "engine";

/// The floor's work on one buffer: chunks of about 1 MiB ending on a line boundary,
/// validated as a whole, their lines copied with a newline each.
fn floor(input: &[u8], out: &mut Vec<u8>) -> usize {
    let mut written = 0;
    let mut rest = input;
    while !rest.is_empty() {
        let cut = if rest.len() <= 1 << 20 {
            rest.len()
        } else {
            memchr::memchr(b'\n', &rest[1 << 20..]).map_or(rest.len(), |p| (1 << 20) + p + 1)
        };
        let (chunk, tail) = rest.split_at(cut);
        rest = tail;
        out.clear();
        let valid = simdutf8::basic::from_utf8(chunk).is_ok();
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', chunk)
            .chain((chunk.last() != Some(&b'\n')).then_some(chunk.len()))
        {
            let line = &chunk[start..end];
            if valid || simdutf8::basic::from_utf8(line).is_ok() {
                out.extend_from_slice(line);
            }
            out.push(b'\n');
            start = end + 1;
        }
        written += black_box(&out).len();
    }
    written
}

fn main() {
    let started = SystemTime::now();
    let corpora = common::load();
    let mut input = Vec::new();
    for corpus in &corpora {
        input.extend_from_slice(&corpus.bytes);
        if input.last().is_some_and(|&b| b != b'\n') {
            input.push(b'\n');
        }
    }
    if input.is_empty() {
        println!("engine bench: no corpus; skipped");
        return;
    }
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts = vec![1, 2, all];
    counts.sort_unstable();
    counts.dedup();

    let normalizer = Normalizer::new(
        Options::default()
            .with_level(Level::Scheme)
            .with_form(Form::Uri),
    )
    .expect("options");
    // The command line's operation: the normalizer itself, whose runs of lines let the
    // engine copy a line needing no change without preparing or parsing it.
    let op: &dyn Operation = &normalizer;
    // Any other `Fn` operation: every record prepared and through the whole ladder.
    let closure = |record: &str, out: &mut String| normalizer.normalize_into(record, out);

    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    let mut group = c.benchmark_group(GROUP);
    group.throughput(Throughput::Bytes(input.len() as u64));
    let mut names = Vec::new();
    for &threads in &counts {
        let name = if threads == all {
            format!("threads-{threads}-all")
        } else {
            format!("threads-{threads}")
        };
        group.bench_function(&name, |b| {
            let engine = Engine::new(op, EngineOptions::default().with_threads(threads));
            b.iter(|| engine.run(black_box(&input[..]), io::sink()).expect("run"))
        });
        names.push(name);
    }
    group.bench_function("closure-threads-1", |b| {
        let engine = Engine::new(&closure, EngineOptions::default().with_threads(1));
        b.iter(|| engine.run(black_box(&input[..]), io::sink()).expect("run"))
    });
    names.push("closure-threads-1".to_owned());
    // The other modes, one thread each: (name, normalizer options, output).
    let scheme = Options::default().with_level(Level::Scheme);
    let crawler = Options::default()
        .with_level(Level::Protocol)
        .with_rules(Some(std::sync::Arc::new(
            Rules::profile("crawler").expect("profile"),
        )));
    let modes = [
        (
            "surt-threads-1",
            scheme.clone().with_form(Form::Surt),
            OutputMode::Key,
        ),
        ("crawler-threads-1", crawler, OutputMode::Key),
        (
            "jsonl-threads-1",
            scheme.clone().with_form(Form::Uri),
            OutputMode::Jsonl,
        ),
        (
            "surt-jsonl-threads-1",
            scheme.with_form(Form::Surt),
            OutputMode::Jsonl,
        ),
    ];
    for (name, options, output) in modes {
        let mode = Normalizer::new(options).expect("options");
        group.bench_function(name, |b| {
            let engine_options = EngineOptions::default().with_threads(1).with_output(output);
            let engine = Engine::new(&mode as &dyn Operation, engine_options);
            b.iter(|| engine.run(black_box(&input[..]), io::sink()).expect("run"))
        });
        names.push(name.to_owned());
    }
    group.bench_function("floor", |b| {
        let mut out = Vec::with_capacity(2 << 20);
        b.iter(|| floor(black_box(&input), &mut out))
    });
    names.push("floor".to_owned());
    group.finish();
    c.final_summary();

    if !common::summary_wanted() {
        return;
    }
    let mb = input.len() as f64 / 1e6;
    let floor_ns = common::median_ns(GROUP, "floor", started);
    let mut table = format!(
        "input: every corpus concatenated, {:.2} MB, {} cores\n\n| run | MB/s | wall / floor |\n|---|---:|---:|\n",
        mb, all
    );
    let mut rows = 0;
    for name in &names {
        let Some(ns) = common::median_ns(GROUP, name, started) else {
            continue;
        };
        rows += 1;
        let ratio = floor_ns.map_or("–".to_owned(), |f| format!("{:.2}", ns / f));
        let _ = writeln!(table, "| {name} | {:.1} | {ratio} |", mb / (ns / 1e9));
    }
    if rows > 0 {
        println!("\n{table}");
        let path = common::criterion_dir().join("engine-summary.md");
        if std::fs::write(&path, &table).is_ok() {
            println!("(saved to {})", path.display());
        }
    }
}
