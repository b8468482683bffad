//! Nanoseconds per record in each mode users run, one thread, as the engine runs a record
//! (the normalizer's `Normalizer::canonical_line` check, then `apply` only for a record that
//! needs a change), next to `ada-url` (`Url::parse` + `href`) on the same records:
//!
//! - `uri`: `--level scheme --form uri` (the default);
//! - `iri`: `--level scheme --form iri`;
//! - `crawler`: `--level protocol --profile crawler`;
//! - `surt`: `--level scheme --form surt`.
//!
//! Two samples, one criterion group each: `modes-canonical`, the `uri` keys of the records
//! of every corpus (each record its own key in the default mode), and `modes-noncanonical`,
//! the same keys with an uppercase scheme and host, the scheme's default port and a `/./`
//! wherever the key is http(s) without userinfo or port (as
//! `../shared/bench/make_noncanonical.py` rewrites lines), so that the whole ladder runs on
//! those. An iteration runs every record of the sample once, reusing one output buffer. At the end a
//! Markdown table of ns/record and of each mode's ratio to ada-url is printed (from
//! criterion's medians) and written to `<criterion dir>/modes-summary.md`.
//!
//! ```text
//! cargo bench -p irinorm-bench --bench modes
//! cargo bench -p irinorm-bench --bench modes -- noncanonical   # one sample
//! ```

mod common;

use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use criterion::{Criterion, Throughput};
use irinorm::stream::Operation;
use irinorm::{Form, Level, Normalizer, Options, Rules};

const MODES: [&str; 4] = ["uri", "iri", "crawler", "surt"];
const PEER: &str = "ada-url";
const SAMPLES: [&str; 2] = ["canonical", "noncanonical"];

/// The normalizer of a mode.
fn normalizer(mode: &str) -> Normalizer {
    let scheme = Options::default().with_level(Level::Scheme);
    let options = match mode {
        "uri" => scheme.with_form(Form::Uri),
        "iri" => scheme.with_form(Form::Iri),
        "surt" => scheme.with_form(Form::Surt),
        "crawler" => Options::default()
            .with_level(Level::Protocol)
            .with_rules(Some(Arc::new(Rules::profile("crawler").expect("profile")))),
        _ => unreachable!("mode {mode}"),
    };
    Normalizer::new(options).expect("options")
}

/// A key rewritten so that it is no longer its own key: an http(s) key without userinfo or
/// port gets an uppercase scheme and host, its scheme's default port and a `/./`; any other
/// key is kept.
fn noncanonical(key: &str) -> String {
    let Some((scheme, rest)) = key.split_once("://") else {
        return key.to_owned();
    };
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let port = match scheme {
        "http" => ":80",
        "https" => ":443",
        _ => return key.to_owned(),
    };
    if host.contains([':', '@']) {
        return key.to_owned();
    }
    format!(
        "{}://{}{port}/./{path}",
        scheme.to_ascii_uppercase(),
        host.to_ascii_uppercase()
    )
}

fn main() {
    let started = SystemTime::now();
    let corpora = common::load();
    let uri = normalizer("uri");
    let canonical: Vec<String> = corpora
        .iter()
        .flat_map(|c| c.records())
        .filter_map(|r| uri.normalize(r).ok().map(|k| k.into_owned()))
        .collect();
    if canonical.is_empty() {
        println!("bench: no records; nothing to measure");
        return;
    }
    let rewritten: Vec<String> = canonical.iter().map(|k| noncanonical(k)).collect();
    let samples: [(&str, &[String]); 2] = [(SAMPLES[0], &canonical), (SAMPLES[1], &rewritten)];

    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    let normalizers: Vec<(&str, Normalizer)> = MODES.iter().map(|&m| (m, normalizer(m))).collect();
    for (sample, records) in samples {
        let mut group = c.benchmark_group(format!("modes-{sample}"));
        group.throughput(Throughput::Elements(records.len() as u64));
        for (mode, normalizer) in &normalizers {
            let op: &dyn Operation = normalizer;
            group.bench_function(*mode, |b| {
                let mut out = String::with_capacity(4096);
                b.iter(|| {
                    for record in records {
                        out.clear();
                        let record = black_box(record.as_str());
                        if normalizer.canonical_line(record) == Some(record.len()) {
                            out.push_str(record);
                        } else {
                            let _ = black_box(op.apply(record, &mut out));
                        }
                        black_box(&out);
                    }
                })
            });
        }
        group.bench_function(PEER, |b| {
            let mut out = String::with_capacity(4096);
            b.iter(|| {
                for record in records {
                    out.clear();
                    common::peer_ada(black_box(record), &mut out);
                    black_box(&out);
                }
            })
        });
        group.finish();
    }
    c.final_summary();

    if common::summary_wanted() {
        summary(&samples, started);
    }
}

/// Prints (and saves) ns/record per sample and mode, with each mode's ratio to ada-url
/// (below 1: irinorm is faster).
fn summary(samples: &[(&str, &[String])], since: SystemTime) {
    let mut table = String::from("| sample | records | avg bytes |");
    for name in MODES.iter().chain([&PEER]) {
        let _ = write!(table, " {name} |");
    }
    for mode in MODES {
        let _ = write!(table, " {mode}/{PEER} |");
    }
    table.push_str("\n|---|---:|---:|");
    table.push_str(&"---:|".repeat(2 * MODES.len() + 1));
    table.push('\n');
    let mut rows = 0;
    for (sample, records) in samples {
        let n = records.len() as f64;
        let group = format!("modes-{sample}");
        let per_record = |f: &str| common::median_ns(&group, f, since).map(|t| t / n);
        let times: Vec<Option<f64>> = MODES.iter().chain([&PEER]).map(|f| per_record(f)).collect();
        if times.iter().all(Option::is_none) {
            continue;
        }
        rows += 1;
        let bytes: usize = records.iter().map(String::len).sum();
        let _ = write!(
            table,
            "| {sample} | {} | {:.1} |",
            records.len(),
            bytes as f64 / n
        );
        let cell =
            |v: Option<f64>, digits: usize| v.map_or("–".to_owned(), |v| format!("{v:.digits$}"));
        for &t in &times {
            let _ = write!(table, " {} |", cell(t, 0));
        }
        let peer = times[MODES.len()];
        for &t in &times[..MODES.len()] {
            let ratio = t.zip(peer).map(|(ours, theirs)| ours / theirs);
            let _ = write!(table, " {} |", cell(ratio, 2));
        }
        table.push('\n');
    }
    if rows > 0 {
        let heading = "ns per record (criterion median / records; one thread):";
        common::print_summary("modes", heading, &table);
    }
}
