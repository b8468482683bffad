//! Nanoseconds per record for `Normalizer::normalize_into` at each rung of the ladder
//! (string, syntax, scheme; form `uri`), next to the peers doing their own (lesser) work on
//! the same records: `url` (`Url::parse` + `as_str`), `ada-url` (`Url::parse` + `href`) and
//! `iri-string` (`IriStr::new` + `normalize()`, relative references through
//! `IriReferenceStr::new` as they are).
//!
//! `irinorm-scheme-op` is the scheme rung as the engine runs a record: the normalizer's
//! `Normalizer::canonical_line` check, then `apply` only for a record that needs a change.
//!
//! One criterion group per corpus (`ladder-<corpus>`), one benchmark per function; an
//! iteration runs every record of the corpus once on one thread, reusing one output buffer.
//! At the end a Markdown table of ns/record and ratios is printed (from criterion's medians)
//! and written to `<criterion dir>/ladder-summary.md`.
//!
//! ```text
//! cargo bench --bench ladder                 # every corpus
//! cargo bench --bench ladder -- top100       # criterion's filter: one corpus
//! ```

mod common;

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, SystemTime};

use criterion::{Criterion, Throughput};
use iri_string::types::{IriReferenceStr, IriStr};
use irinorm::stream::Operation;
use irinorm::{Form, Level, Normalizer, Options};

const RUNGS: [(&str, Level); 3] = [
    ("irinorm-string", Level::String),
    ("irinorm-syntax", Level::Syntax),
    ("irinorm-scheme", Level::Scheme),
];
/// The scheme rung as the engine runs it (pass-through check first).
const OP: &str = "irinorm-scheme-op";
const PEERS: [&str; 3] = ["url", "ada-url", "iri-string"];

/// A peer's work on one record, appending its result to the buffer.
type Peer = fn(&str, &mut String);

fn peer_url(record: &str, out: &mut String) {
    if let Ok(u) = url::Url::parse(record) {
        out.push_str(u.as_str());
    }
}

fn peer_iri_string(record: &str, out: &mut String) {
    if let Ok(iri) = IriStr::new(record) {
        let _ = write!(out, "{}", iri.normalize());
    } else if let Ok(reference) = IriReferenceStr::new(record) {
        // A relative reference: iri-string has no normalization for it alone.
        out.push_str(reference.as_str());
    }
}

fn main() {
    let started = SystemTime::now();
    let corpora = common::load();
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();

    let normalizers: Vec<(&str, Normalizer)> = RUNGS
        .iter()
        .map(|&(name, level)| {
            let options = Options::default().with_level(level).with_form(Form::Uri);
            (name, Normalizer::new(options).expect("options"))
        })
        .collect();
    let scheme = Normalizer::new(
        Options::default()
            .with_level(Level::Scheme)
            .with_form(Form::Uri),
    )
    .expect("options");
    let peers: [(&str, Peer); 3] = [
        (PEERS[0], peer_url),
        (PEERS[1], common::peer_ada),
        (PEERS[2], peer_iri_string),
    ];

    for corpus in &corpora {
        let records = corpus.records();
        if records.is_empty() {
            continue;
        }
        let mut group = c.benchmark_group(format!("ladder-{}", corpus.name));
        group.throughput(Throughput::Elements(records.len() as u64));
        for (name, normalizer) in &normalizers {
            group.bench_function(*name, |b| {
                let mut out = String::with_capacity(4096);
                b.iter(|| {
                    for record in &records {
                        out.clear();
                        let _ = black_box(normalizer.normalize_into(black_box(record), &mut out));
                        black_box(&out);
                    }
                })
            });
        }
        // What the command line pays per record at the scheme rung: the engine operation's
        // pass-through check, then the whole ladder only for a record that needs a change
        // (without the engine's repair step).
        group.bench_function(OP, |b| {
            let op: &dyn Operation = &scheme;
            let mut out = String::with_capacity(4096);
            b.iter(|| {
                for record in &records {
                    out.clear();
                    let record = black_box(*record);
                    if scheme.canonical_line(record) == Some(record.len()) {
                        out.push_str(record);
                    } else {
                        let _ = black_box(op.apply(record, &mut out));
                    }
                    black_box(&out);
                }
            })
        });
        for (name, peer) in peers {
            group.bench_function(name, |b| {
                let mut out = String::with_capacity(4096);
                b.iter(|| {
                    for record in &records {
                        out.clear();
                        peer(black_box(record), &mut out);
                        black_box(&out);
                    }
                })
            });
        }
        group.finish();
    }
    c.final_summary();

    if common::summary_wanted() {
        summary(&corpora, started);
    }
}

/// Prints (and saves) ns/record per corpus and function, with irinorm-scheme's ratio to
/// each peer (below 1: irinorm is faster).
fn summary(corpora: &[common::Corpus], since: SystemTime) {
    let mut table = String::new();
    table.push_str("| corpus | records | avg bytes |");
    for (name, _) in RUNGS {
        let _ = write!(table, " {} |", name.trim_start_matches("irinorm-"));
    }
    table.push_str(" scheme-op |");
    for name in PEERS {
        let _ = write!(table, " {name} |");
    }
    for name in PEERS {
        let _ = write!(table, " scheme/{name} |");
    }
    table.push_str(" scheme-op/ada-url |");
    table.push_str("\n|---|---:|---:|");
    for _ in 0..RUNGS.len() + 2 * PEERS.len() + 2 {
        table.push_str("---:|");
    }
    table.push('\n');
    let mut rows = 0;
    for corpus in corpora {
        let records = corpus.records();
        if records.is_empty() {
            continue;
        }
        let n = records.len() as f64;
        let group = format!("ladder-{}", corpus.name);
        let per_record = |function: &str| common::median_ns(&group, function, since).map(|t| t / n);
        let mut rungs: Vec<Option<f64>> = RUNGS.iter().map(|(f, _)| per_record(f)).collect();
        let op = per_record(OP);
        rungs.push(op);
        let peers: Vec<Option<f64>> = PEERS.iter().map(|f| per_record(f)).collect();
        if rungs.iter().chain(&peers).all(Option::is_none) {
            continue;
        }
        rows += 1;
        let bytes: usize = records.iter().map(|r| r.len()).sum();
        let _ = write!(
            table,
            "| {} | {} | {:.1} |",
            corpus.name,
            records.len(),
            bytes as f64 / n
        );
        for v in rungs.iter().chain(&peers) {
            match v {
                Some(ns) => {
                    let _ = write!(table, " {ns:.0} |");
                }
                None => table.push_str(" – |"),
            }
        }
        for (ours, theirs) in peers.iter().map(|p| (rungs[2], p)).chain([(op, &peers[1])]) {
            match (ours, theirs) {
                (Some(ours), Some(theirs)) => {
                    let _ = write!(table, " {:.2} |", ours / theirs);
                }
                _ => table.push_str(" – |"),
            }
        }
        table.push('\n');
    }
    if rows > 0 {
        let heading = "ns per record (criterion median / records; one thread; form uri):";
        common::print_summary("ladder", heading, &table);
    }
}
