//! Resource limits: hostile sizes give a clear result, in bounded memory and time.
//!
//! Each test is sized for CI in a debug build (seconds each); `benches/limits.sh` runs the
//! same cases, and a 1 GB line, through the release binary and prints wall time and peak
//! resident memory.
//!
//! - a 100 MB line: one `too-long` record, the child's peak RSS under 64 MiB (SPEC §8);
//! - 64 MB with no line feed at all: the same;
//! - 10^6 empty lines: 10^6 `empty` error records, exactly 10^6 output lines;
//! - 10^5 `../` segments: normalized at once to `http://a/`;
//! - 10^5 labels in a host: the DNS length check rejects it, the syntax form is kept, with
//!   no stack overflow and no quadratic time.
//!
//! The binary's peak RSS is read with `/usr/bin/time` when it is installed, otherwise by
//! polling `VmHWM` in `/proc/PID/status` while the child runs.

use std::io::{self, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use irinorm::stream::{Engine, EngineOptions};
use irinorm::Rules;
use irinorm::{Error, ErrorKind};
use irinorm::{Form, Level, Normalizer, Options};

/// SPEC §8: peak memory under 64 MiB resident at default settings, whatever the input.
const RSS_LIMIT_KIB: u64 = 64 * 1024;

/// What a run of the binary gave.
struct Run {
    stdout: Vec<u8>,
    stderr: String,
    /// Peak resident set of the child, KiB (None where it cannot be measured).
    peak_kib: Option<u64>,
    elapsed: Duration,
}

/// Feeds `total` bytes of `fill` repeated (in blocks of about 64 KiB), then `tail`, to
/// `irinorm ARGS` and measures the child's peak RSS.
fn run_streaming(args: &[&str], fill: &'static [u8], total: u64, tail: &'static [u8]) -> Run {
    let exe = env!("CARGO_BIN_EXE_irinorm");
    let timer = Path::new("/usr/bin/time").exists() && cfg!(target_os = "linux");
    let time_out = std::env::temp_dir().join(format!(
        "irinorm-limits-{}-{}-{total}",
        std::process::id(),
        fill.len()
    ));
    let mut cmd = if timer {
        let mut c = Command::new("/usr/bin/time");
        c.arg("-f").arg("%M").arg("-o").arg(&time_out).arg(exe);
        c
    } else {
        Command::new(exe)
    };
    let started = Instant::now();
    let mut child = cmd
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn irinorm");
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = thread::spawn(move || -> io::Result<()> {
        let block = fill.repeat((64 * 1024) / fill.len() + 1);
        let mut left = total;
        while left > 0 {
            let n = left.min(block.len() as u64) as usize;
            stdin.write_all(&block[..n])?;
            left -= n as u64;
        }
        stdin.write_all(tail)
    });
    // Polls VmHWM while the child runs (the fallback when /usr/bin/time is missing).
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let poller = {
        let done = done.clone();
        thread::spawn(move || {
            let mut peak = None;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                if let Some(kib) = vm_hwm_kib(pid) {
                    peak = Some(peak.map_or(kib, |p: u64| p.max(kib)));
                }
                thread::sleep(Duration::from_millis(5));
            }
            peak
        })
    };
    let mut stdout = Vec::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut stdout)
        .unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    let elapsed = started.elapsed();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let polled = poller.join().unwrap();
    feeder.join().unwrap().expect("feed the input");
    assert!(status.success(), "irinorm {args:?}: {status}: {stderr}");
    let peak_kib = if timer {
        let text = std::fs::read_to_string(&time_out).unwrap_or_default();
        let _ = std::fs::remove_file(&time_out);
        text.lines().last().and_then(|l| l.trim().parse().ok())
    } else {
        polled
    };
    Run {
        stdout,
        stderr,
        peak_kib,
        elapsed,
    }
}

fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn check_rss(what: &str, run: &Run) {
    eprintln!(
        "{what}: wall {:.2?}, peak RSS {}",
        run.elapsed,
        run.peak_kib
            .map_or("not measured".to_owned(), |k| format!("{k} KiB"))
    );
    if let Some(kib) = run.peak_kib {
        assert!(
            kib < RSS_LIMIT_KIB,
            "{what}: peak RSS {kib} KiB, limit {RSS_LIMIT_KIB} KiB"
        );
    }
}

#[test]
fn a_100_mb_line_is_one_too_long_record_in_bounded_memory() {
    let run = run_streaming(
        &["normalize", "--output", "tsv"],
        b"a",
        100_000_000,
        b"\nhttp://a/\n",
    );
    check_rss("100 MB line", &run);
    let out = String::from_utf8(run.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{:?}", &out[..out.len().min(600)]);
    // The tsv input field holds the line's first bytes only; the key is empty.
    let fields: Vec<&str> = lines[0].split('\t').collect();
    assert!(
        fields[0].len() <= 1024,
        "the input field holds the whole line"
    );
    assert_eq!(fields[1], "");
    assert!(fields[2].starts_with("too-long"), "{:?}", fields[2]);
    assert_eq!(lines[1], "http://a/\thttp://a/\t");
    assert!(run.stderr.contains("too-long"), "{}", run.stderr);
}

#[test]
fn input_without_a_line_feed_is_one_too_long_record_in_bounded_memory() {
    // benches/limits.sh runs 1 GB; 64 MB keeps the debug build fast.
    let run = run_streaming(&["normalize"], b"a", 64 << 20, b"");
    check_rss("64 MB, no line feed", &run);
    assert_eq!(run.stdout, b"\n", "one record, an error: one empty line");
    assert!(run.stderr.contains("too-long"), "{}", run.stderr);
}

#[test]
fn a_million_empty_lines_are_a_million_empty_records() {
    const N: u64 = 1_000_000;
    let run = run_streaming(&["normalize", "--stats"], b"\n", N, b"");
    check_rss("10^6 empty lines", &run);
    assert_eq!(
        run.stdout.len() as u64,
        N,
        "exactly one output line per input line"
    );
    assert!(run.stdout.iter().all(|&b| b == b'\n'));
    // `--stats` counts them by kind.
    let empty_line = run
        .stderr
        .lines()
        .find(|l| l.trim_start().starts_with("empty"))
        .unwrap_or_else(|| panic!("no empty count in {}", run.stderr));
    assert!(empty_line.contains(&N.to_string()), "{empty_line:?}");

    // The library agrees, through the engine with small chunks.
    let n = Normalizer::new(Options::default()).unwrap();
    let op = |rec: &str, out: &mut String| -> Result<(), Error> { n.normalize_into(rec, out) };
    let engine = Engine::new(
        &op,
        EngineOptions::default()
            .with_threads(2)
            .with_chunk_size(4096),
    );
    let input = vec![b'\n'; N as usize];
    let mut out = Vec::new();
    let stats = engine.run(&input[..], &mut out).unwrap();
    assert_eq!(stats.records, N);
    assert_eq!(stats.invalid_of(ErrorKind::Empty), N);
    assert_eq!(out, input);
}

/// Every level and form, the protocol rung with the crawler profile.
fn all_normalizers() -> Vec<(String, Normalizer)> {
    let crawler = std::sync::Arc::new(Rules::profile("crawler").unwrap());
    let mut v = Vec::new();
    for level in [Level::String, Level::Syntax, Level::Scheme, Level::Protocol] {
        for form in [Form::Uri, Form::Iri, Form::Surt] {
            let n = Normalizer::new(
                Options::default()
                    .with_level(level)
                    .with_form(form)
                    .with_rules((level == Level::Protocol).then(|| crawler.clone())),
            )
            .unwrap();
            v.push((format!("{level:?}/{form:?}"), n));
        }
    }
    v
}

/// Normalizes `input` with every normalizer whose name passes `pick`, each within `budget`,
/// and returns the keys.
fn timed_keys(
    input: &str,
    budget: Duration,
    pick: fn(&str) -> bool,
) -> Vec<(String, Result<String, Error>)> {
    all_normalizers()
        .into_iter()
        .filter(|(name, _)| pick(name))
        .map(|(name, n)| {
            let t = Instant::now();
            let k = n.normalize(input).map(|k| k.into_owned());
            let took = t.elapsed();
            if std::env::var_os("LIMITS_TIMING").is_some() {
                eprintln!("{name}: {took:?} for {} bytes", input.len());
            }
            assert!(took < budget, "{name}: {took:?} for {} bytes", input.len());
            (name, k)
        })
        .collect()
}

#[test]
fn a_hundred_thousand_dot_dot_segments_normalize_quickly() {
    for seg in ["../", "%2E%2E/", "./", "a/../"] {
        let input = format!("http://a/{}", seg.repeat(100_000));
        for (name, k) in timed_keys(&input, Duration::from_secs(5), |_| true) {
            let k = k.unwrap_or_else(|e| panic!("{name}: {e}"));
            let want = match name.as_str() {
                n if n.starts_with("String") => input.as_str(),
                n if n.ends_with("Surt") => "a)/",
                _ => "http://a/",
            };
            assert_eq!(k, want, "{name}: {seg:?} x 10^5");
        }
    }
    // Resolution too (RFC 3986 §5.2.4 on the merged path).
    let r = "../".repeat(100_000) + "g";
    let t = Instant::now();
    assert_eq!(
        irinorm::resolve(&r, "http://a/b/c/d;p?q", irinorm::Resolution::Strict).unwrap(),
        "http://a/g"
    );
    assert!(t.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_hundred_thousand_host_labels_keep_the_syntax_form() {
    // ASCII labels fail the DNS length check; non-ASCII ones go through UTS #46 first.
    for label in ["a.", "B.", "\u{E9}.", "xn--bcher-kva."] {
        let host = label.repeat(100_000) + "com";
        let input = format!("http://{host}/p");
        // The rungs that touch the host (IDNA is slow in a debug build: a few seconds for
        // 10^5 A-labels; linear, as benches/limits.sh shows with the release build).
        let keys = timed_keys(&input, Duration::from_secs(10), |n| {
            n.starts_with("Syntax")
                || n.starts_with("Scheme/Uri")
                || n.starts_with("Scheme/Iri")
                || n == "Protocol/Uri"
        });
        let syntax = |form: &str| {
            keys.iter()
                .find(|(n, _)| n == &format!("Syntax/{form}"))
                .unwrap()
                .1
                .clone()
                .unwrap()
        };
        for (name, k) in &keys {
            let k = k.as_ref().unwrap_or_else(|e| panic!("{name}: {e}"));
            if name.starts_with("Scheme/Uri") || name.starts_with("Scheme/Iri") {
                // IDNA fails (the host is far over 253 octets): the syntax form is kept.
                let form = &name["Scheme/".len()..];
                assert!(*k == syntax(form), "{name}: the syntax form was not kept");
            }
            if !name.starts_with("String") {
                assert_eq!(
                    k.matches("xn--").count(),
                    input.matches("xn--").count(),
                    "{name}"
                );
            }
        }
    }
}

/// `--unique` keeps about 21 bytes per distinct key (SPEC §6), and `--stats` alone a sketch
/// of fixed size (`tests/stats_memory.rs` streams millions of distinct keys through it):
/// with one distinct key, memory stays within the default budget whatever the number of
/// records. (An earlier engine kept a 48-byte span for every record of every chunk
/// in flight: 10^7 empty lines with `--stats` peaked at ~300 MiB.)
#[test]
fn unique_and_stats_memory_does_not_grow_with_records() {
    for args in [["normalize", "--unique"], ["normalize", "--stats"]] {
        let run = run_streaming(&args, b"\n", 4_000_000, b"");
        check_rss(&format!("4x10^6 empty lines, {}", args[1]), &run);
        let run = run_streaming(&args, b"a:\n", 3 * 2_000_000, b"");
        check_rss(&format!("2x10^6 lines 'a:', {}", args[1]), &run);
        if args[1] == "--unique" {
            assert_eq!(run.stdout, b"a:\n");
        }
    }
}
