//! The command line end to end: the built `irinorm` binary driven the way users pipe data
//! through it (SPEC §6): output modes, exit codes, bad-input classes, compressed inputs, a
//! closed stdout, and agreement with the library on the conformance inputs.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub(crate) fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_irinorm"))
}

/// Runs `irinorm ARGS` with `stdin` as standard input.
pub(crate) fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn irinorm");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

/// Starts `irinorm ARGS` with its standard output and error piped, to be read while it runs.
fn spawn(args: &[&str]) -> std::process::Child {
    bin()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn irinorm")
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub(crate) fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("irinorm-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn normalize_writes_one_line_per_record_in_order() {
    let input =
        "HTTP://Example.COM:80/a/./b/../%7Ec\n\nhttp://a/b c\nnot a:valid\nhttp://Bücher.example\n";
    let o = run(&["normalize"], input.as_bytes());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "http://example.com/a/~c\n\nhttp://a/b%20c\n\nhttp://xn--bcher-kva.example/\n"
    );
    let err = stderr(&o);
    assert!(err.contains("<stdin>:2:0: empty:"), "{err}");
    assert!(err.contains("<stdin>:4:4: syntax:"), "{err}");
}

#[test]
fn files_are_mapped_or_with_no_mmap_read_alike() {
    let dir = temp_dir("mmap");
    let file = dir.join("urls.txt");
    let input = "HTTP://Example.COM:80/a/./b\r\nnot a:valid\nhttp://x.example/%7e";
    std::fs::write(&file, input).unwrap();
    let path = file.to_str().unwrap();
    let mapped = run(&["normalize", "--output", "tsv", path], b"");
    let read = run(&["normalize", "--output", "tsv", "--no-mmap", path], b"");
    assert!(mapped.status.success(), "{}", stderr(&mapped));
    assert_eq!(
        stdout(&mapped),
        "HTTP://Example.COM:80/a/./b\thttp://example.com/a/b\t\n\
         not a:valid\t\tsyntax:4: character not allowed in a scheme\n\
         http://x.example/%7e\thttp://x.example/~\t\n"
    );
    assert_eq!(stdout(&read), stdout(&mapped));
    assert_eq!(stderr(&read), stderr(&mapped));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A mapped input that another program truncates during the run: the run ends with a
/// message saying so (not a bare "Bus error") and status 2, the output written so far
/// staying written. A worker that reads the map past the new end gets `SIGBUS`; the writer,
/// handing the system lines of the map to write, gets `EFAULT`; both say the same.
#[cfg(target_os = "linux")]
#[test]
fn a_mapped_file_shortened_during_the_run_ends_it_with_a_clear_error() {
    use std::io::Read;
    let dir = temp_dir("sigbus");
    let file = dir.join("urls.txt");
    let line = "http://example.com/some/path/that/is/canonical?q=1\n";
    std::fs::write(&file, line.repeat(1_000_000)).unwrap();
    let mut child = spawn(&["normalize", "-j", "2", file.to_str().unwrap()]);
    let mut stdout = child.stdout.take().unwrap();
    // Once output comes, the file is mapped; the run then waits on the full pipe, far from
    // the file's end (51 MB; a few MiB in flight).
    let mut first = [0u8; 1];
    stdout.read_exact(&mut first).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(0)
        .unwrap();
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let signal = err.contains("an input file was shortened") && err.contains("(SIGBUS)");
    let write = err.contains("urls.txt: the file was shortened");
    assert!(signal || write, "{err}");
    assert!(err.contains("--no-mmap"), "{err}");
    assert!(rest.len() + 1 < line.len() * 1_000_000);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn strict_turns_repairs_into_errors() {
    let o = run(
        &["normalize", "--strict", "--output", "tsv"],
        b" http://a/\nhttp://a/%zz\n",
    );
    assert!(o.status.success());
    let out = stdout(&o);
    let lines: Vec<_> = out.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0].ends_with("\tsyntax:1: character not allowed in a URI or IRI"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("http://a/%zz\t\tbad-percent:10:"),
        "{}",
        lines[1]
    );
}

#[test]
fn jsonl_carries_input_key_and_error() {
    let o = run(&["normalize", "--output", "jsonl"], b"HTTP://a\n\x01\n");
    assert!(o.status.success());
    let rows: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["line"], 1);
    assert_eq!(rows[0]["input"], "HTTP://a");
    assert_eq!(rows[0]["key"], "http://a/");
    assert!(rows[0]["error"].is_null());
    assert!(rows[1]["key"].is_null());
    assert_eq!(rows[1]["error"]["kind"], "control");
    assert_eq!(rows[1]["error"]["column"], 1);
}

#[test]
fn forms_levels_and_profiles() {
    let o = run(
        &["normalize", "--form", "iri"],
        b"http://xn--bcher-kva.example/%C3%A9\n",
    );
    assert_eq!(stdout(&o), "http://bücher.example/é\n");
    let o = run(&["normalize", "--level", "syntax"], b"HTTP://A:80\n");
    assert_eq!(stdout(&o), "http://a:80\n");
    let o = run(&["normalize", "--level", "string"], b"HTTP://A:80\n");
    assert_eq!(stdout(&o), "HTTP://A:80\n");
    let o = run(
        &["normalize", "--profile", "crawler"],
        b"http://a/?utm_source=x&b=1#top\n",
    );
    assert_eq!(stdout(&o), "http://a/?b=1\n");
    let o = run(
        &["normalize", "--form", "surt"],
        b"http://www.Example.com:8080/a?b\n",
    );
    assert_eq!(stdout(&o), "com,example,www:8080)/a?b\n");
    let o = run(&["normalize", "--base", "http://a/b/c/d;p?q"], b"../g\n");
    assert_eq!(stdout(&o), "http://a/b/g\n");
    let o = run(&["normalize", "--absolute"], b"/a\n");
    assert_eq!(stdout(&o), "\n");
    assert!(stderr(&o).contains("relative"));
}

#[test]
fn explain_lists_the_steps() {
    let o = run(&["normalize", "--explain"], b"HTTP://a:80/./b\n");
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("default-port"), "{out}");
    assert!(out.contains("dot-segments"), "{out}");
    assert!(out.trim_end().ends_with("= http://a/b"), "{out}");
}

/// `--explain` reads the records the engine reads (BOM dropped, gzip decoded,
/// `--max-line-bytes` applied), shows the lenient repairs as a step, and shows a host that
/// fails IDNA as a warning, not as a removal.
#[test]
fn explain_reads_records_as_the_engine_does() {
    let input =
        b"\xEF\xBB\xBFhttp://a/b c\nhttp://-b\xC3\xBCcher.example/\nhttp://a/0123456789abcdef\n";
    let o = run(&["normalize", "--explain", "--max-line-bytes", "24"], input);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let blocks: Vec<&str> = out.split("\nhttp").collect();
    assert_eq!(blocks.len(), 3, "{out}");
    assert!(blocks[0].starts_with("http://a/b c\n"), "BOM kept: {out}");
    assert!(blocks[0].contains("lenient-repairs"), "{out}");
    assert!(blocks[0].contains("= http://a/b%20c"), "{out}");
    assert!(blocks[1].contains("~ idna: column 8"), "{out}");
    assert!(!blocks[1].contains("(removed)"), "{out}");
    assert!(blocks[2].contains("! too-long"), "{out}");
    // The same key as `normalize` gives for the line.
    let o = run(&["normalize"], b"\xEF\xBB\xBFhttp://a/b c\n");
    assert_eq!(stdout(&o), "http://a/b%20c\n");
}

#[test]
fn conversions_and_resolution() {
    let o = run(&["to-uri"], "http://résumé.example.org/é\n".as_bytes());
    assert_eq!(stdout(&o), "http://r%C3%A9sum%C3%A9.example.org/%C3%A9\n");
    let o = run(
        &["to-uri", "--ascii-host"],
        "http://résumé.example.org/é\n".as_bytes(),
    );
    assert_eq!(stdout(&o), "http://xn--rsum-bpad.example.org/%C3%A9\n");
    let o = run(&["to-iri"], b"http://example.org/D%C3%BCrst/%C0%AF\n");
    assert_eq!(stdout(&o), "http://example.org/Dürst/%C0%AF\n");
    let o = run(
        &["resolve", "--base", "http://a/b/c/d;p?q"],
        b"g;x?y#s\nhttp:g\n",
    );
    assert_eq!(stdout(&o), "http://a/b/c/g;x?y#s\nhttp:g\n");
    let o = run(
        &["resolve", "--base", "http://a/b/c/d;p?q", "--non-strict"],
        b"http:g\n",
    );
    assert_eq!(stdout(&o), "http://a/b/c/g\n");
    let o = run(&["resolve", "--base", "/relative"], b"g\n");
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn check_exit_status_and_grammar() {
    let o = run(&["check"], b"http://a/\n/relative\n");
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "http://a/\n/relative\n");
    let o = run(
        &["check", "--grammar", "absolute-uri"],
        b"http://a/\n/relative\nhttp://a/#f\n",
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "http://a/\n\n\n");
    // A validator reports records as written: no repairs.
    let o = run(&["check"], b"http://a/b c\n");
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn compare_prints_the_lowest_rung() {
    let cmp = |a: &str, b: &str| {
        let o = bin().args(["compare", a, b]).output().unwrap();
        (stdout(&o).trim().to_owned(), o.status.code())
    };
    assert_eq!(cmp("http://a/", "http://a/"), ("string".into(), Some(0)));
    assert_eq!(cmp("HTTP://a/", "http://a/"), ("syntax".into(), Some(0)));
    assert_eq!(cmp("http://a", "http://a:80/"), ("scheme".into(), Some(0)));
    assert_eq!(
        cmp("http://a/x", "http://a/y"),
        ("different".into(), Some(1))
    );
    assert_eq!(
        cmp("http://a/%2F", "http://a//"),
        ("different".into(), Some(1))
    );
    assert_eq!(cmp("http://[", "http://a/").1, Some(2));
    // The lenient repairs of `normalize` apply.
    assert_eq!(
        cmp("http://a/b c", "http://a/b%20c"),
        ("string".into(), Some(0))
    );
    // Two addresses whose quoted local parts differ in case (RFC 5321 §2.4).
    assert_eq!(
        cmp("mailto:%22A@B%22@c.com", "mailto:%22A@b%22@c.com"),
        ("different".into(), Some(1))
    );
    assert_eq!(
        cmp("mailto:%22A@B%22@c.com", "mailto:%22A@B%22@C.com"),
        ("scheme".into(), Some(0))
    );
}

/// `compare` takes the key options of `normalize`: the rules' rung is named, a lower
/// `--level` stops the search there, and `--strict` turns the repairs off.
#[test]
fn compare_takes_the_key_options() {
    let cmp = |args: &[&str]| {
        let o = bin().arg("compare").args(args).output().unwrap();
        (stdout(&o).trim().to_owned(), o.status.code())
    };
    let (a, b) = ("http://a/?utm_source=1", "http://a/");
    assert_eq!(cmp(&[a, b]), ("different".into(), Some(1)));
    assert_eq!(
        cmp(&["--profile", "crawler", a, b]),
        ("protocol".into(), Some(0))
    );
    let (a, b) = ("http://a", "http://a:80/");
    assert_eq!(
        cmp(&["--level", "syntax", a, b]),
        ("different".into(), Some(1))
    );
    assert_eq!(
        cmp(&["--strict", "http://a/b c", "http://a/b%20c"]).1,
        Some(2)
    );
    let (a, b) = ("http://a/#x", "http://a/#y");
    assert_eq!(cmp(&["--drop-fragment", a, b]), ("string".into(), Some(0)));
    // Options that make no sense are a usage error.
    assert_eq!(
        cmp(&["--level", "scheme", "--profile", "crawler", a, b]).1,
        Some(2)
    );
}

/// A write error (a full disk) is an exit 2 with a message, never a panic.
#[test]
fn compare_into_a_full_device_exits_2() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        crate::common::skipped("cli::compare_into_a_full_device_exits_2", "no /dev/full");
        return;
    };
    let o = bin()
        .args(["compare", "http://a/", "http://a/"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("writing output"), "{}", stderr(&o));
}

#[test]
fn on_error_modes() {
    let input = b"http://a/1\n\x01\nhttp://a/3\n";
    let o = run(&["normalize", "--on-error", "skip"], input);
    assert_eq!(stdout(&o), "http://a/1\nhttp://a/3\n");
    let o = run(
        &["normalize", "--on-error", "fail", "--threads", "2"],
        input,
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "http://a/1\n");
    assert!(stderr(&o).contains(":2:1: control:"), "{}", stderr(&o));
}

#[test]
fn usage_and_io_errors_exit_2() {
    assert_eq!(
        run(&["normalize", "--no-such-flag"], b"").status.code(),
        Some(2)
    );
    assert_eq!(
        run(&["normalize", "/no/such/file"], b"").status.code(),
        Some(2)
    );
    assert_eq!(
        run(&["normalize", "--level", "protocol"], b"")
            .status
            .code(),
        Some(2)
    );
    let o = run(&["normalize", "--profile", "nope"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("crawler"), "{}", stderr(&o));
    let dir = temp_dir("rules");
    let rules = dir.join("bad.toml");
    std::fs::write(&rules, "version = 1\n\n[[rule]]\nkind = \"no-such-rule\"\n").unwrap();
    let o = run(&["normalize", "--rules", rules.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.toml:4:"), "{}", stderr(&o));
}

#[test]
fn bad_input_classes_end_to_end() {
    // Invalid UTF-8 in the middle of a chunk, NUL, CRLF, a BOM, no final LF.
    let mut input = b"\xEF\xBB\xBFhttp://a/1\r\n".to_vec();
    input.extend_from_slice(b"http://a/\xFF\n");
    input.extend_from_slice(b"http://a/\x01\n");
    input.extend_from_slice(b"http://a/4");
    let o = run(&["normalize", "--chunk-size", "16"], &input);
    assert_eq!(stdout(&o), "http://a/1\nhttp://a/%FF\n\nhttp://a/4\n");
    let o = run(&["normalize", "--strict"], &input);
    assert_eq!(stdout(&o), "http://a/1\n\n\nhttp://a/4\n");
    assert!(stderr(&o).contains(":2:10: utf8:"), "{}", stderr(&o));
    // An empty input gives no output.
    let o = run(&["normalize"], b"");
    assert!(o.status.success());
    assert_eq!(stdout(&o), "");
    // A 5 MiB line is one too-long record; its neighbours are fine.
    let mut big = b"http://a/1\nhttp://a/".to_vec();
    big.extend(std::iter::repeat_n(b'x', 5 << 20));
    big.extend_from_slice(b"\nhttp://a/3\n");
    let o = run(&["normalize"], &big);
    assert_eq!(stdout(&o), "http://a/1\n\nhttp://a/3\n");
    assert!(stderr(&o).contains(":2:0: too-long:"), "{}", stderr(&o));
}

fn write_gzip(path: &Path, data: &[u8]) {
    let f = std::fs::File::create(path).unwrap();
    let mut gz = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
    gz.write_all(data).unwrap();
    gz.finish().unwrap();
}

#[test]
fn compressed_inputs_and_a_truncated_gzip() {
    let dir = temp_dir("gz");
    let lines: String = (0..20000).map(|i| format!("HTTP://A/{i}\n")).collect();
    let gz = dir.join("in.gz");
    write_gzip(&gz, lines.as_bytes());
    let zst = dir.join("in.zst");
    std::fs::write(&zst, zstd::encode_all(lines.as_bytes(), 1).unwrap()).unwrap();
    for f in [&gz, &zst] {
        let o = run(&["normalize", f.to_str().unwrap()], b"");
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(stdout(&o).lines().count(), 20000);
        assert_eq!(stdout(&o).lines().last(), Some("http://a/19999"));
    }
    // Several files are one stream, in order.
    let o = run(&["normalize", gz.to_str().unwrap(), "-"], b"http://b\n");
    assert_eq!(stdout(&o).lines().count(), 20001);
    assert_eq!(stdout(&o).lines().last(), Some("http://b/"));
    // A truncated gzip: what was read is written, then a clear error and exit 2.
    let bytes = std::fs::read(&gz).unwrap();
    let cut = dir.join("cut.gz");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let o = run(
        &["normalize", "--chunk-size", "4096", cut.to_str().unwrap()],
        b"",
    );
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert!(out.lines().count() > 100, "wrote what was read");
    assert!(out.starts_with("http://a/0\nhttp://a/1\n"));
    assert!(stderr(&o).contains("cut.gz"), "{}", stderr(&o));
}

#[test]
fn a_closed_stdout_ends_the_run_quietly() {
    let dir = temp_dir("head");
    let big = dir.join("big.txt");
    let mut f = std::fs::File::create(&big).unwrap();
    for i in 0..400_000 {
        writeln!(f, "http://example.com/{i}").unwrap();
    }
    drop(f);
    let mut child = spawn(&["normalize", big.to_str().unwrap()]);
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 20];
    out.read_exact(&mut first).unwrap();
    drop(out); // like `| head -1`
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "status {status:?}, stderr {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn unique_and_stats() {
    let o = run(
        &["normalize", "--unique", "--stats"],
        b"http://a\nHTTP://A/\nhttp://b\n\nhttp://a:80\n",
    );
    assert_eq!(stdout(&o), "http://a/\nhttp://b/\n");
    let err = stderr(&o);
    assert!(err.contains("records"), "{err}");
    assert!(err.contains("unique"), "{err}");
}

/// `--stats` alone estimates the distinct keys (HyperLogLog, in fixed memory) and says so;
/// with `--unique` they are counted exactly.
#[test]
fn distinct_keys_are_estimated_without_unique_and_exact_with_it() {
    // 20 000 distinct keys, each spelled twice.
    let mut input = String::new();
    for i in 0..20_000 {
        input.push_str(&format!(
            "http://h{}.example/p/{i}\nHTTP://H{}.EXAMPLE/p/{i}\n",
            i % 7,
            i % 7
        ));
    }
    let json = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["normalize", "-q", "--stats-format", "json"];
        args.extend_from_slice(extra);
        let o = run(&args, input.as_bytes());
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str(&stderr(&o)).unwrap()
    };
    let estimated = json(&[]);
    assert_eq!(estimated["distinct_keys_estimated"], true);
    let n = estimated["distinct_keys"].as_f64().unwrap();
    // Three standard errors of 1.04/√(2¹⁴).
    assert!((n - 20_000.0).abs() < 20_000.0 * 3.0 * 0.0082, "{n}");
    let exact = json(&["--unique"]);
    assert_eq!(exact["distinct_keys_estimated"], false);
    assert_eq!(exact["distinct_keys"], 20_000);
    let o = run(&["normalize", "-q", "--stats"], input.as_bytes());
    assert!(stderr(&o).contains("unique       about "), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(" (estimate, ±0.8%)\n"),
        "{}",
        stderr(&o)
    );
    let o = run(
        &["normalize", "-q", "--stats", "--unique"],
        input.as_bytes(),
    );
    assert!(
        stderr(&o).contains("unique       20000\n"),
        "{}",
        stderr(&o)
    );
}

/// The CLI gives the library's answers on the conformance inputs (when ../shared is here).
#[test]
fn cli_agrees_with_the_library_on_conformance_inputs() {
    let Some(text) = crate::common::shared_cases() else {
        crate::common::skipped("cli::cli_agrees_with_the_library", "../shared is absent");
        return;
    };
    let mut to_iri = Vec::new();
    let mut to_uri = Vec::new();
    for line in text.lines() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let input = case["input"].as_str().unwrap().to_owned();
        if input.contains(['\n', '\r']) {
            continue;
        }
        match case["op"].as_str().unwrap() {
            "uri-to-iri" => to_iri.push(input),
            "iri-to-uri" => to_uri.push(input),
            _ => {}
        }
    }
    for (args, inputs, f) in [
        (
            &["to-iri", "--strict"][..],
            &to_iri,
            (|s: &str| irinorm::to_iri(s).map(|c| c.into_owned())) as fn(&str) -> _,
        ),
        (&["to-uri", "--strict"][..], &to_uri, |s: &str| {
            irinorm::to_uri(s, irinorm::HostMapping::PercentEncode).map(|c| c.into_owned())
        }),
    ] {
        let joined: String = inputs.iter().map(|s| format!("{s}\n")).collect();
        let o = run(args, joined.as_bytes());
        let out = stdout(&o);
        let got: Vec<&str> = out.lines().collect();
        assert_eq!(got.len(), inputs.len());
        for (input, line) in inputs.iter().zip(got) {
            let want = f(input).unwrap_or_default();
            assert_eq!(line, want, "{args:?} {input:?}");
        }
    }
}

/// `--profile crawler` is `crawler@2`, which removes empty query pairs; `crawler@1` keeps
/// its keys.
#[test]
fn crawler_profiles_and_empty_query_pairs() {
    let input = b"http://a/?&\nhttp://a/?&utm_source=1\nhttp://a/?x&&y\n";
    let o = run(&["normalize", "--profile", "crawler"], input);
    assert_eq!(stdout(&o), "http://a/\nhttp://a/\nhttp://a/?x&y\n");
    let o = run(&["normalize", "--profile", "crawler@2"], input);
    assert_eq!(stdout(&o), "http://a/\nhttp://a/\nhttp://a/?x&y\n");
    let o = run(&["normalize", "--profile", "crawler@1"], input);
    assert_eq!(stdout(&o), "http://a/?&\nhttp://a/\nhttp://a/?x&&y\n");
}

/// `[` and `]` outside the host are a counted lenient repair (`brackets`); `--strict` keeps
/// them an error; an IP literal keeps its brackets.
#[test]
fn brackets_outside_the_host_are_repaired() {
    let input =
        b"http://a/?p[]=1\nhttp://a/?p%5B%5D=1\nhttp://[2001:DB8::1]/x[0]#[y]\nhttp://a[b]/\n";
    let o = run(&["normalize", "--stats"], input);
    assert_eq!(
        stdout(&o),
        "http://a/?p%5B%5D=1\nhttp://a/?p%5B%5D=1\nhttp://[2001:db8::1]/x%5B0%5D#%5By%5D\n\n"
    );
    let err = stderr(&o);
    assert!(err.contains(":4:9: syntax:"), "{err}");
    assert!(
        err.lines()
            .any(|l| l.split_whitespace().eq(["brackets", "6"])),
        "{err}"
    );
    let o = run(&["normalize", "--strict"], input);
    assert_eq!(stdout(&o), "\nhttp://a/?p%5B%5D=1\n\n\n");
    assert!(stderr(&o).contains(":1:12: syntax: '[' or ']' outside an IP literal"));
    assert!(stderr(&o).contains(":3:23: syntax:"), "{}", stderr(&o));
}

/// `to-uri --ascii-host` converts non-ASCII labels only: RFC 3490 §4.1 ToASCII leaves an
/// all-ASCII label as it is, case included. The ladder's keys still lowercase the host.
#[test]
fn to_uri_ascii_host_keeps_ascii_labels() {
    let o = run(&["to-uri", "--ascii-host"], "HTTP://É.COM/\n".as_bytes());
    assert_eq!(stdout(&o), "HTTP://xn--9ca.COM/\n");
    let o = run(&["to-uri"], "HTTP://É.COM/\n".as_bytes());
    assert_eq!(stdout(&o), "HTTP://%C3%89.COM/\n");
    let o = run(&["normalize"], "HTTP://É.COM/\n".as_bytes());
    assert_eq!(stdout(&o), "http://xn--9ca.com/\n");
}

/// A valid record with an empty key (`#x` with `--drop-fragment`: the empty reference) and
/// an error record both give an empty line in `key` output (README, "Output modes"); `tsv`,
/// `jsonl`, `--on-error skip` and `check` tell them apart.
#[test]
fn empty_keys_and_errors_are_told_apart_outside_key_output() {
    let input = b"#x\n\x01\n";
    let o = run(&["normalize", "--drop-fragment"], input);
    assert_eq!(stdout(&o), "\n\n");
    let o = run(&["normalize", "--drop-fragment", "--output", "tsv"], input);
    let lines: Vec<Vec<String>> = stdout(&o)
        .lines()
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect();
    assert_eq!(lines[0], ["#x", "", ""]);
    assert_eq!(lines[1][1], "");
    assert!(lines[1][2].starts_with("control:1:"), "{lines:?}");
    let o = run(
        &["normalize", "--drop-fragment", "--output", "jsonl"],
        input,
    );
    let rows: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows[0]["key"], "");
    assert!(rows[0]["error"].is_null());
    assert!(rows[1]["key"].is_null());
    assert_eq!(rows[1]["error"]["kind"], "control");
    let o = run(
        &["normalize", "--drop-fragment", "--on-error", "skip"],
        input,
    );
    assert_eq!(stdout(&o), "\n");
    let o = run(&["check"], b"#x\n");
    assert_eq!(o.status.code(), Some(0));
    let o = run(&["check"], input);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains(":2:1: control:"), "{}", stderr(&o));
}

/// Parses jsonl output into its rows.
fn rows(o: &Output) -> Vec<serde_json::Value> {
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Item: every jsonl record carries its warnings (an empty list when none, the fast path
/// included); tsv does not change.
#[test]
fn jsonl_rows_carry_each_records_warnings() {
    let input = "http://a/\nhttp://-bücher.example/\nHTTP://b\n\u{1}\n";
    let o = run(&["normalize", "--output", "jsonl"], input.as_bytes());
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = rows(&o);
    assert_eq!(rows.len(), 4);
    // The fast path (line 1), the full ladder (line 3) and an invalid record: no warnings.
    for i in [0, 2, 3] {
        assert_eq!(rows[i]["warnings"], serde_json::json!([]), "{}", rows[i]);
    }
    let warnings = rows[1]["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{}", rows[1]);
    assert_eq!(warnings[0]["kind"], "idna");
    assert_eq!(warnings[0]["column"], 8);
    assert!(warnings[0]["message"].as_str().unwrap().contains("IDNA"));
    assert_eq!(rows[1]["key"], "http://-b%C3%BCcher.example/");
    assert!(rows[1]["error"].is_null());
    // tsv rows are as they were: three fields, no warnings.
    let o = run(&["normalize", "--output", "tsv"], input.as_bytes());
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[1],
        "http://-bücher.example/\thttp://-b%C3%BCcher.example/\t"
    );
    assert_eq!(lines[0], "http://a/\thttp://a/\t");
}

/// A run that shows warnings (jsonl rows, the statistics) checks the bidi rules of RFC
/// 3987 §4.2 and shows what it finds; one that does not (which leaves the check out) writes
/// the same keys.
#[test]
fn bidi_warnings_are_counted_and_shown_where_a_run_shows_warnings() {
    // A Hebrew letter then a Latin one in one path segment: a bidi warning.
    let input = "http://example.com/\u{5D2}a\nhttp://example.com/a\n";
    let keys = run(&["normalize"], input.as_bytes());
    assert_eq!(
        stdout(&keys),
        "http://example.com/%D7%92a\nhttp://example.com/a\n"
    );
    let stats = run(&["normalize", "--stats"], input.as_bytes());
    assert_eq!(stdout(&stats), stdout(&keys));
    let count = stderr(&stats);
    assert!(count.lines().any(|l| l == "warnings     1"), "{count}");
    let rows = rows(&run(&["normalize", "--output", "jsonl"], input.as_bytes()));
    assert_eq!(rows[0]["warnings"][0]["kind"], "bidi", "{}", rows[0]);
    assert_eq!(rows[1]["warnings"], serde_json::json!([]), "{}", rows[1]);
}

/// Item: with `--unique`, invalid records write nothing, and are still counted and
/// diagnosed.
#[test]
fn unique_writes_no_invalid_records() {
    let input = b"http://a/\n\nhttp://A/\nnot a:uri\nhttp://b\n";
    for output in ["key", "tsv", "jsonl"] {
        let o = run(
            &["normalize", "--unique", "--output", output, "--stats"],
            input,
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert_eq!(out.lines().count(), 2, "{output}: {out}");
        assert!(!out.lines().any(str::is_empty), "{output}: {out}");
        let err = stderr(&o);
        assert!(err.contains("<stdin>:2:0: empty:"), "{err}");
        assert!(err.contains("<stdin>:4:4: syntax:"), "{err}");
        assert!(err.contains("invalid      2\n"), "{err}");
        assert!(err.contains("keys written 2\n"), "{err}");
    }
    let o = run(&["normalize", "--unique"], input);
    assert_eq!(stdout(&o), "http://a/\nhttp://b/\n");
}

/// Item: every input is opened before the first record is written; a directory or a
/// missing file anywhere among them is exit 2 with nothing written.
#[test]
fn every_input_is_checked_before_the_first_record() {
    let dir = temp_dir("upfront");
    let good = dir.join("good.txt");
    std::fs::write(&good, "http://a/\n".repeat(1000)).unwrap();
    let missing = dir.join("missing.txt");
    let sub = dir.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let good = good.to_str().unwrap();
    for bad in [sub.to_str().unwrap(), missing.to_str().unwrap()] {
        for args in [
            vec!["normalize", good, bad],
            vec!["check", good, bad],
            vec!["normalize", "--explain", good, bad],
        ] {
            let o = run(&args, b"");
            assert_eq!(o.status.code(), Some(2), "{args:?}");
            assert_eq!(stdout(&o), "", "{args:?}: wrote before checking");
            let err = stderr(&o);
            assert!(err.contains(bad), "{err}");
            assert!(!err.contains("panicked"), "{err}");
        }
    }
    let o = run(&["normalize", good, sub.to_str().unwrap()], b"");
    assert!(stderr(&o).contains("is a directory"), "{}", stderr(&o));
    // Both bad paths are reported, each on its line.
    let o = run(
        &[
            "normalize",
            missing.to_str().unwrap(),
            good,
            sub.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(stderr(&o).lines().count(), 2, "{}", stderr(&o));
}

/// Item: an output error (a full disk) in every subcommand is exit 2 with a message,
/// never a panic; with standard error full as well, the status still says so.
#[test]
fn every_subcommand_into_a_full_device_exits_2() {
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full");
    if full().is_err() {
        crate::common::skipped("cli::every_subcommand_into_a_full_device", "no /dev/full");
        return;
    }
    let records = "http://a/\n".repeat(20_000);
    let base = "--base=http://a/";
    let cases: [&[&str]; 14] = [
        &["normalize"],
        &["normalize", "--output", "jsonl"],
        &["normalize", "--explain"],
        &["to-uri"],
        &["to-iri"],
        &["resolve", base],
        &["check"],
        &["compare", "http://a/", "http://a/"],
        &["completions", "bash"],
        &["man"],
        &["--help"],
        &["normalize", "--help"],
        &["--version"],
        &["normalize", "--unique", "--stats"],
    ];
    let run_into = |args: &[&str], stderr: Stdio| {
        let mut child = bin()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(full().unwrap())
            .stderr(stderr)
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        let data = records.clone();
        let feeder = std::thread::spawn(move || {
            let _ = input.write_all(data.as_bytes());
        });
        let o = child.wait_with_output().unwrap();
        feeder.join().unwrap();
        o
    };
    for args in cases {
        let o = run_into(args, Stdio::piped());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("No space left"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        // Standard error full too: no panic (status 101), still exit 2.
        let o = run_into(args, Stdio::from(full().unwrap()));
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
}

/// Item: rows can be traced to their file and line: `file` in jsonl, `--with-filename` in
/// tsv; `--files-from` reads the inputs from a list (or from standard input); `-0` ends
/// each output record with NUL.
#[test]
fn rows_trace_back_to_their_file_and_line() {
    let dir = temp_dir("trace");
    let a = dir.join("a.txt");
    let b = dir.join("b.txt");
    std::fs::write(&a, "http://a/1\nHTTP://A/2\n").unwrap();
    std::fs::write(&b, "http://b/1\n\u{1}\n").unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let list = dir.join("list.txt");
    std::fs::write(&list, format!("{a}\n\n{b}\r\n")).unwrap();
    let list = list.to_str().unwrap();

    let o = run(
        &["normalize", "--output", "jsonl", "--files-from", list],
        b"",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let got: Vec<(String, u64)> = rows(&o)
        .iter()
        .map(|r| {
            (
                r["file"].as_str().unwrap().to_owned(),
                r["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let want = [(a, 1), (a, 2), (b, 1), (b, 2)].map(|(f, l)| (f.to_owned(), l));
    assert_eq!(got, want);
    // The diagnostic names the same place.
    assert!(
        stderr(&o).contains(&format!("{b}:2:1: control:")),
        "{}",
        stderr(&o)
    );

    // tsv: the same rows as before unless asked; then file and line first.
    let o = run(&["normalize", "--output", "tsv", a], b"");
    assert_eq!(
        stdout(&o),
        "http://a/1\thttp://a/1\t\nHTTP://A/2\thttp://a/2\t\n"
    );
    let o = run(
        &["normalize", "--output", "tsv", "--with-filename", a, "-"],
        b"x y:\n",
    );
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[1], format!("{a}\t2\tHTTP://A/2\thttp://a/2\t"));
    assert!(
        lines[2].starts_with("<stdin>\t1\tx y:\t\tsyntax:"),
        "{}",
        lines[2]
    );
    let o = run(&["normalize", "--with-filename", a], b"");
    assert_eq!(o.status.code(), Some(2));

    // The list from standard input, FILEs first; NUL-terminated records.
    let o = run(&["normalize", "-0", "--files-from", "-", b], a.as_bytes());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        o.stdout,
        b"http://b/1\0\0http://a/1\0http://a/2\0",
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let o = run(&["check", "--null", a], b"");
    assert_eq!(o.stdout, b"http://a/1\0HTTP://A/2\0");
    // Standard input cannot be both the list and an input.
    let o = run(&["normalize", "--files-from", "-", "-"], b"");
    assert_eq!(o.status.code(), Some(2));
    // A listed path that is missing is reported with its place in the list.
    let bad = dir.join("bad-list.txt");
    std::fs::write(&bad, format!("{a}\n/no/such/file\n")).unwrap();
    let o = run(&["normalize", "--files-from", bad.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "");
    assert!(
        stderr(&o).contains("bad-list.txt:2: /no/such/file:"),
        "{}",
        stderr(&o)
    );
}

/// Item: `-q` silences diagnostics, `-j` sets threads, `--progress` and `--stats-format json`
/// (one object on standard error, with the documented fields).
#[test]
fn quiet_threads_progress_and_json_stats() {
    let input = b"http://a/\n\nHTTP://A/\nhttp://a/b c\nhttp://-b\xC3\xBCcher.example/\n";
    let o = run(&["normalize", "-q", "-j", "2"], input);
    assert!(o.status.success());
    assert_eq!(stderr(&o), "");
    assert_eq!(stdout(&o).lines().count(), 5);
    let o = run(
        &[
            "normalize",
            "--quiet",
            "--progress",
            "never",
            "--stats-format",
            "json",
        ],
        input,
    );
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    let stats: serde_json::Value = serde_json::from_str(&err).unwrap();
    assert_eq!(stats["records"], 5);
    assert_eq!(stats["keys_written"], 4);
    assert_eq!(stats["invalid"], 1);
    assert_eq!(stats["invalid_by_kind"]["empty"], 1);
    assert_eq!(stats["invalid_by_kind"]["syntax"], 0);
    assert_eq!(stats["repairs"], 1);
    assert_eq!(stats["repairs_by_kind"]["forbidden-ascii"], 1);
    assert_eq!(stats["warnings"], 1);
    assert_eq!(stats["distinct_keys"], 3);
    assert_eq!(stats["distinct_keys_estimated"], true);
    assert_eq!(stats["bytes"], input.len());
    assert!(stats["seconds"].as_f64().unwrap() >= 0.0);
    assert_eq!(stats["interrupted"], false);
    // The text report says the same.
    let o = run(&["normalize", "-q", "--stats-format", "text"], input);
    assert!(stderr(&o).contains("records      5\n"), "{}", stderr(&o));
    // A progress display on a pipe does not touch standard output.
    let o = run(&["normalize", "-q", "--progress", "always"], input);
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().count(), 5);
    let o = run(&["normalize", "--progress", "sometimes"], input);
    assert_eq!(o.status.code(), Some(2));
}

/// Item: Ctrl-C stops the run cleanly: what was read is written, in order, nothing lost,
/// the statistics are printed, and the status is 130.
#[cfg(unix)]
#[test]
fn an_interrupt_prints_the_statistics() {
    let mut child = bin()
        .args([
            "normalize",
            "--stats-format",
            "json",
            "--chunk-size",
            "4096",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    // Feed records until the process is gone.
    let feeder = std::thread::spawn(move || {
        for i in 0u64.. {
            if writeln!(input, "HTTP://A/{i}").is_err() || i > 50_000_000 {
                break;
            }
        }
    });
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    out.read_exact(&mut first).unwrap();
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let mut rest = Vec::new();
    out.read_to_end(&mut rest).unwrap();
    let status = child.wait().unwrap();
    feeder.join().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    let stats: serde_json::Value = serde_json::from_str(err.trim()).unwrap();
    assert_eq!(stats["interrupted"], true);
    let mut written = first.to_vec();
    written.extend(rest);
    let written = String::from_utf8(written).unwrap();
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(lines.len() as u64, stats["records"].as_u64().unwrap());
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(*line, format!("http://a/{i}"));
    }
}

/// Item: `--explain` shows only the part each step changed, and speaks jsonl.
#[test]
fn explain_shows_what_each_step_changed() {
    let input = "http://www.a/?b=1&utm_source=x&c=2#top\nhttp://a/b c\n\u{1}\n";
    let o = run(
        &["normalize", "--explain", "--profile", "crawler"],
        input.as_bytes(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let line = |rule: &str| {
        out.lines()
            .find(|l| l.contains(&format!(" {rule} ")))
            .unwrap_or_else(|| panic!("no {rule}: {out}"))
            .to_owned()
    };
    assert!(
        line("drop-params").ends_with(" utm_source=x& -> (none)"),
        "{out}"
    );
    assert!(line("drop-fragment").ends_with(" #top -> (none)"), "{out}");
    assert!(line("lenient-repairs").ends_with(" \" \" -> %20"), "{out}");
    assert!(
        !out.contains("c=2 ->"),
        "a parameter that stayed is not shown: {out}"
    );
    assert!(out.contains("= http://www.a/?b=1&c=2\n"), "{out}");
    assert!(out.contains("  ! control: column 1"), "{out}");

    let o = run(
        &[
            "normalize",
            "--explain",
            "--profile",
            "crawler",
            "--output",
            "jsonl",
        ],
        input.as_bytes(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = rows(&o);
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["file"], "<stdin>");
    assert_eq!(rows[0]["line"], 1);
    assert_eq!(rows[0]["key"], "http://www.a/?b=1&c=2");
    let steps = rows[0]["steps"].as_array().unwrap();
    let step = |rule: &str| steps.iter().find(|s| s["rule"] == rule).unwrap().clone();
    assert_eq!(
        step("drop-params"),
        serde_json::json!({"component": "protocol", "rule": "drop-params",
                           "before": "utm_source=x&", "after": ""})
    );
    assert_eq!(step("drop-fragment")["before"], "#top");
    assert_eq!(rows[1]["steps"][0]["before"], " ");
    assert_eq!(rows[1]["steps"][0]["after"], "%20");
    assert_eq!(rows[1]["warnings"], serde_json::json!([]));
    assert!(rows[0].get("error").is_none());
    assert!(rows[2]["key"].is_null());
    assert_eq!(rows[2]["error"]["kind"], "control");
    assert_eq!(rows[2]["line"], 3);
    // With -0 each block is one NUL-ended record.
    let o = run(&["normalize", "--explain", "-0"], b"http://a/\nHTTP://b/\n");
    let blocks: Vec<&str> = o
        .stdout
        .split(|&b| b == 0)
        .map(|b| std::str::from_utf8(b).unwrap())
        .collect();
    assert_eq!(blocks.len(), 3, "{blocks:?}");
    assert_eq!(blocks[0], "http://a/\n  = http://a/\n");
    assert!(blocks[1].starts_with("HTTP://b/\n") && blocks[1].ends_with("  = http://b/\n"));
    assert_eq!(blocks[2], "");
    // Switches that --explain cannot honour are refused, not ignored.
    for switch in ["--unique", "--stats", "--with-filename"] {
        let o = run(&["normalize", "--explain", switch], b"http://a/\n");
        assert_eq!(o.status.code(), Some(2), "{switch}");
        assert!(stderr(&o).contains(switch), "{}", stderr(&o));
        assert_eq!(stdout(&o), "");
    }
}

/// Item: xz and bzip2 inputs are decoded like gzip and zstd; any other binary input is a
/// clear error, exit 2.
#[test]
fn xz_and_bzip2_inputs_and_binary_input() {
    use std::io::Read as _;
    let dir = temp_dir("xzbz");
    let lines: String = (0..5000).map(|i| format!("HTTP://A/{i}\n")).collect();
    let mut xz = Vec::new();
    liblzma::read::XzEncoder::new(lines.as_bytes(), 1)
        .read_to_end(&mut xz)
        .unwrap();
    let mut bz = Vec::new();
    bzip2::read::BzEncoder::new(lines.as_bytes(), bzip2::Compression::fast())
        .read_to_end(&mut bz)
        .unwrap();
    for (name, bytes) in [("in.xz", &xz), ("in.bz2", &bz)] {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let o = run(&["normalize", path.to_str().unwrap()], b"");
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert_eq!(stdout(&o).lines().count(), 5000, "{name}");
        assert_eq!(stdout(&o).lines().last(), Some("http://a/4999"));
        // From standard input too, and through --explain.
        let o = run(&["normalize"], bytes);
        assert_eq!(stdout(&o).lines().count(), 5000, "{name}");
        let o = run(&["normalize", "--explain", path.to_str().unwrap()], b"");
        assert!(stdout(&o).contains("= http://a/4999\n"), "{name}");
    }
    // Binary input: a PNG image, refused by its magic number, named and given as a file or
    // through standard input; `--binary text` reads it as lines.
    let binary = dir.join("image.bin");
    let png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR";
    std::fs::write(&binary, png).unwrap();
    let path = binary.to_str().unwrap();
    for args in [
        vec!["normalize", path],
        vec!["check", path],
        vec!["normalize", "--explain", path],
        vec!["normalize"],
    ] {
        let o = run(&args, png);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&o), "");
        let err = stderr(&o);
        assert!(
            err.contains("magic number of a binary format, PNG image"),
            "{err}"
        );
    }
    let o = run(&["normalize", "--binary", "text", path], b"");
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o).lines().count(), 3);
}

/// Item: `--version` names the key version, the built-in profiles and the fast-path
/// backend.
#[test]
fn version_names_key_version_profiles_and_backend() {
    let o = bin().arg("--version").output().unwrap();
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(
        out.starts_with(&format!("irinorm {}\n", env!("CARGO_PKG_VERSION"))),
        "{out}"
    );
    assert!(
        out.contains(&format!("key version: {}\n", irinorm::KEY_VERSION)),
        "{out}"
    );
    for name in irinorm::Rules::profile_names() {
        assert!(out.contains(name), "{name}: {out}");
    }
    assert!(out.contains("crawler (= crawler@"), "{out}");
    let backend = out
        .lines()
        .find_map(|l| l.strip_prefix("fast path: "))
        .unwrap();
    assert!(
        ["avx512", "avx2", "sse2", "scalar"].contains(&backend),
        "{out}"
    );
}

/// Item: shell completions and the manual page come from the argument definitions; the
/// page renders with `man -l` when `man` is here.
#[test]
fn completions_and_manual_page() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let o = bin().args(["completions", shell]).output().unwrap();
        assert!(o.status.success(), "{shell}");
        let out = stdout(&o);
        assert!(
            out.contains("normalize") && out.contains("files-from"),
            "{shell}"
        );
    }
    let o = bin().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let o = bin().arg("man").output().unwrap();
    assert!(o.status.success());
    let page = stdout(&o);
    assert!(page.contains(".TH irinorm 1"), "{page}");
    // What is refused and what is a record's error.
    for text in [
        ".SH INPUT",
        "of the kind nul",
        "PDF document",
        "ELF executable",
        "damaged compressed input",
        "\\-\\-unique\\-memory",
        "\\-\\-binary",
    ] {
        assert!(
            page.contains(text) || page.contains(&text.replace("\\-", "-")),
            "{text}"
        );
    }
    for text in ["IRINORM NORMALIZE", "\\-\\-files\\-from", "IRINORM COMPARE"] {
        assert!(
            page.contains(text) || page.contains(&text.replace("\\-", "-")),
            "{text}"
        );
    }
    let dir = temp_dir("man");
    let path = dir.join("irinorm.1");
    std::fs::write(&path, &page).unwrap();
    let rendered = Command::new("man")
        .args(["-l", path.to_str().unwrap()])
        .env("MANWIDTH", "80")
        .env("MANPAGER", "cat")
        .output();
    match rendered {
        Ok(r) if r.status.success() => {
            let text = String::from_utf8_lossy(&r.stdout);
            assert!(text.contains("SYNOPSIS"), "{text}");
            assert!(text.contains("--files-from"), "{text}");
            let widest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
            assert!(widest <= 80, "a line of {widest} columns");
        }
        _ => crate::common::skipped("cli::completions_and_manual_page", "man -l not available"),
    }
}

/// Every `--help` fits an 80-column terminal.
#[test]
fn help_fits_80_columns() {
    let subcommands = [
        "normalize",
        "to-uri",
        "to-iri",
        "resolve",
        "check",
        "compare",
        "completions",
        "man",
    ];
    let mut runs: Vec<Vec<&str>> = subcommands.iter().map(|s| vec![*s, "--help"]).collect();
    runs.push(vec!["--help"]);
    for args in runs {
        let o = bin().args(&args).env("COLUMNS", "80").output().unwrap();
        assert!(o.status.success(), "{args:?}");
        let out = stdout(&o);
        for line in out.lines() {
            assert!(line.chars().count() <= 80, "{args:?}: {line:?}");
        }
    }
}

/// On Linux, standard output that is a pipe gets a 1 MiB buffer (fewer wake-ups of a writer
/// that outruns its reader), where the system's limit allows one.
#[cfg(target_os = "linux")]
#[test]
fn a_pipe_on_stdout_gets_a_larger_buffer() {
    use std::os::fd::AsRawFd;
    let limit = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok());
    if limit.map_or(true, |l| l < 1 << 20) {
        let why = "/proc/sys/fs/pipe-max-size is below 1 MiB";
        crate::common::skipped("cli::a_pipe_on_stdout_gets_a_larger_buffer", why);
        return;
    }
    let mut child = bin()
        .args(["normalize", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"HTTP://a/\n")
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut text = String::new();
    out.read_to_string(&mut text).unwrap();
    assert_eq!(text, "http://a/\n");
    // SAFETY: F_GETPIPE_SZ only reads a property of the open descriptor `out` holds.
    let size = unsafe { libc::fcntl(out.as_raw_fd(), libc::F_GETPIPE_SZ) };
    assert_eq!(size, 1 << 20);
    assert!(child.wait().unwrap().success());
}
