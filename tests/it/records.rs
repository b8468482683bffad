//! Records, not bare URLs, end to end (`--field`, `--csv`, `--json-field`, `--cdx`,
//! `--cdxj`, `--log`): each format's URLs keyed as the same URLs alone are, every output
//! placement, malformed records mid-file with their neighbours intact, record output that
//! gives the input back once the key is taken off, and the same bytes on one thread and
//! on many.

use std::collections::HashSet;

use crate::cli::{run, stderr, stdout};
use crate::common::repo;

/// URLs of the sample (non-canonical, international), without tabs, spaces or quotes so
/// that every format can hold them as they are.
fn urls() -> Vec<String> {
    let text = std::fs::read_to_string(repo().join("corpora/sample.txt")).unwrap();
    text.lines()
        .filter(|l| !l.is_empty() && !l.contains(['\t', ' ', '"', '\\', ',', ']']))
        .take(400)
        .map(String::from)
        .collect()
}

/// The keys of `urls` as bare lines, under `options` (an empty string for an invalid one).
fn line_keys(urls: &[String], options: &[&str]) -> Vec<String> {
    let input = urls.join("\n") + "\n";
    let mut args = vec!["normalize", "-q"];
    args.extend_from_slice(options);
    let o = run(&args, input.as_bytes());
    stdout(&o).lines().map(String::from).collect()
}

/// `irinorm normalize -q ARGS` over `input`: its standard output.
fn keyed(args: &[&str], input: &str) -> String {
    let mut all = vec!["normalize", "-q"];
    all.extend_from_slice(args);
    let o = run(&all, input.as_bytes());
    assert!(
        o.status.success() || o.status.code() == Some(0),
        "{}",
        stderr(&o)
    );
    stdout(&o)
}

/// The input files of every format for `urls`, with the options that read them and the
/// URL's place, each record followed by a malformed one every 50 records.
struct Format {
    name: &'static str,
    options: Vec<&'static str>,
    /// The header line, if the format has one.
    header: Option<&'static str>,
    record: fn(usize, &str) -> String,
    malformed: &'static str,
}

fn formats() -> Vec<Format> {
    vec![
        Format {
            name: "tsv",
            options: vec!["--field", "url"],
            header: Some("id\turl\tscore"),
            record: |i, u| format!("{i}\t{u}\t0.{i}"),
            malformed: "only-one-field",
        },
        Format {
            name: "csv",
            options: vec!["--csv", "--field", "link"],
            header: Some("name,link,\"a, note\""),
            record: |i, u| format!("\"n{i}, \"\"é\"\"\",\"{u}\",plain"),
            malformed: "x,\"http://never/closed,y",
        },
        Format {
            name: "jsonl",
            options: vec!["--json-field", "req.url"],
            header: None,
            record: |i, u| {
                format!(
                    r#"{{"id":{i},"req":{{"url":"{}","m":"\"é\t"}},"z":[1,{{}}]}}"#,
                    u.replace('/', "\\/")
                )
            },
            malformed: r#"{"id":1,"req":{"url":"#,
        },
        Format {
            name: "cdx",
            options: vec!["--cdx"],
            header: Some(" CDX N b a m s k r M S V g"),
            record: |i, u| {
                format!(
                    "key{i} 2020010100000{} {u} text/html 200 SHA - - 10 20 f.warc.gz",
                    i % 10
                )
            },
            malformed: "short",
        },
        Format {
            name: "cdxj",
            options: vec!["--cdxj"],
            header: None,
            record: |i, u| format!(r#"key{i} 20200101 {{"url": "{u}", "status": "200"}}"#),
            malformed: "key 2020 {\"status\": 1}",
        },
        Format {
            name: "log",
            options: vec!["--log", "combined", "--field", "referer"],
            header: None,
            record: |i, u| {
                format!(
                    r#"10.0.0.{} - - [10/Oct/2000:13:55:36 -0700] "GET /x HTTP/1.1" 200 {i} "{u}" "agent (x; y)""#,
                    i % 250
                )
            },
            malformed: r#"10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET /x"#,
        },
        Format {
            // A proxy's log: request targets in absolute form.
            name: "common-log",
            options: vec!["--log", "common"],
            header: None,
            record: |i, u| {
                format!(
                    r#"10.0.0.{} - bob [10/Oct/2000:13:55:36 -0700] "GET {u} HTTP/1.1" 200 {i}"#,
                    i % 250
                )
            },
            malformed: r#"10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET" 400 0"#,
        },
    ]
}

impl Format {
    /// The file, and the line (0-based, header included) of each URL's record.
    fn file(&self, urls: &[String]) -> (String, Vec<usize>) {
        let mut lines: Vec<String> = self.header.iter().map(|h| h.to_string()).collect();
        let mut at = Vec::new();
        for (i, u) in urls.iter().enumerate() {
            if i % 50 == 25 {
                lines.push(self.malformed.to_string());
            }
            at.push(lines.len());
            lines.push((self.record)(i, u));
        }
        (lines.join("\n") + "\n", at)
    }
}

#[test]
fn each_format_keys_its_urls_as_lines_are_keyed() {
    let urls = urls();
    for options in [&[][..], &["--form", "surt"], &["--profile", "crawler"]] {
        let want = line_keys(&urls, options);
        for f in formats() {
            let (file, _) = f.file(&urls);
            let mut args = f.options.clone();
            args.extend_from_slice(options);
            let got = keyed(&args, &file);
            // Key output: a line per record (the header is no record), the malformed ones
            // empty, their neighbours intact.
            let got: Vec<&str> = got.lines().collect();
            let records = file.lines().count() - usize::from(f.header.is_some());
            assert_eq!(got.len(), records, "{} {options:?}", f.name);
            let mut keys = got.iter();
            for (i, w) in want.iter().enumerate() {
                if i % 50 == 25 {
                    assert_eq!(keys.next(), Some(&""), "{}: the malformed record", f.name);
                }
                assert_eq!(
                    keys.next(),
                    Some(&w.as_str()),
                    "{} {options:?}: record {i}",
                    f.name
                );
            }
        }
    }
}

#[test]
fn malformed_records_are_invalid_records_with_their_place() {
    let urls = urls();
    for f in formats() {
        let (file, _) = f.file(&urls[..30]);
        let mut args = vec!["normalize", "--output", "jsonl"];
        args.extend_from_slice(&f.options);
        let o = run(&args, file.as_bytes());
        assert_eq!(o.status.code(), Some(0), "{}", f.name);
        let rows: Vec<serde_json::Value> = stdout(&o)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let bad: Vec<&serde_json::Value> = rows
            .iter()
            .filter(|r| r["error"]["kind"] == "record")
            .collect();
        assert_eq!(bad.len(), 1, "{}: {bad:?}", f.name);
        let line = 26 + u64::from(f.header.is_some());
        assert_eq!(bad[0]["line"], line, "{}", f.name);
        assert!(bad[0]["error"]["column"].as_u64().unwrap() >= 1);
        assert!(
            stderr(&o).contains(&format!(":{line}:")),
            "{}: {}",
            f.name,
            stderr(&o)
        );
        // The stats count it by its kind.
        let mut args = vec!["normalize", "--stats-format", "json"];
        args.extend_from_slice(&f.options);
        let o = run(&args, file.as_bytes());
        let stats = stderr(&o);
        let json = stats.lines().last().unwrap();
        let stats: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(stats["invalid_by_kind"]["record"], 1, "{}", f.name);
    }
}

/// The record output of `file` under `args`.
fn records(args: &[&str], file: &str) -> String {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--output", "record"]);
    keyed(&all, file)
}

#[test]
fn record_output_gives_the_input_back_without_the_key() {
    let urls = urls();
    let want = line_keys(&urls, &[]);
    for f in formats() {
        let (file, at) = f.file(&urls);
        let out = records(&f.options, &file);
        let (ins, outs): (Vec<&str>, Vec<&str>) = (file.lines().collect(), out.lines().collect());
        assert_eq!(ins.len(), outs.len(), "{}", f.name);
        for (n, (input, output)) in ins.iter().zip(&outs).enumerate() {
            let header = n == 0 && f.header.is_some();
            let json = f.name == "jsonl" || f.name == "cdxj";
            if json && !input.ends_with('}') {
                // A line that is not an object is written as it is.
                assert_eq!(output, input);
                continue;
            }
            let rest = if json {
                // The key is the object's last member.
                let cut = output.rfind(r#","key":"#).expect("a key member");
                assert!(output.ends_with('}'));
                format!("{}}}", &output[..cut])
            } else {
                let d = if f.name == "tsv" {
                    '\t'
                } else if f.name == "csv" {
                    ','
                } else {
                    ' '
                };
                output[..output.rfind(d).unwrap()].to_string()
            };
            assert_eq!(rest, *input, "{} line {n}", f.name);
            if header {
                assert!(output.ends_with("key"), "{}: {output}", f.name);
            }
        }
        for (i, line) in at.iter().enumerate() {
            let k = &want[i];
            let (output, shown) = (
                outs[*line],
                if k.contains(',') {
                    format!("\"{k}\"")
                } else {
                    k.clone()
                },
            );
            if f.name == "jsonl" || f.name == "cdxj" {
                let block = &output[output.find('{').unwrap()..];
                let v: serde_json::Value = serde_json::from_str(block).unwrap();
                let key = v["key"].as_str().unwrap_or("");
                assert_eq!(key, k, "{} record {i}", f.name);
            } else if f.name == "csv" {
                assert!(
                    output.ends_with(&format!(",{shown}")),
                    "{} record {i}: {output}",
                    f.name
                );
            } else {
                assert!(
                    output.ends_with(k.as_str()),
                    "{} record {i}: {output}",
                    f.name
                );
            }
        }
    }
}

#[test]
fn the_key_replaces_a_field_and_errors_get_their_own() {
    // A CDX re-keyed in SURT form: the first field is the key of the third.
    let urls = urls();
    let want = line_keys(&urls, &["--form", "surt"]);
    let cdx = &formats()[3];
    let (file, at) = cdx.file(&urls);
    let out = records(&["--cdx", "--key-field", "N", "--form", "surt"], &file);
    let outs: Vec<&str> = out.lines().collect();
    assert_eq!(outs[0], " CDX N b a m s k r M S V g");
    for (i, line) in at.iter().enumerate() {
        let (input, output) = (file.lines().nth(*line).unwrap(), outs[*line]);
        let fields: Vec<&str> = output.split(' ').collect();
        assert_eq!(fields[0], want[i], "record {i}");
        assert_eq!(fields[1..].join(" "), input.split_once(' ').unwrap().1);
    }
    // CSV: the link column replaced, an error column added.
    let out = records(
        &[
            "--csv",
            "--field",
            "link",
            "--key-field",
            "link",
            "--error-field",
        ],
        "id,link\n1,\"HTTP://A.example:80/x,y\"\n2,http://[x\n",
    );
    assert_eq!(
        out,
        "id,link,error\n1,\"http://a.example/x,y\",\n2,,syntax:10: '[' without a closing ']'\n"
    );
    // JSON: the member replaced; the key of an invalid one is null.
    let out = records(
        &["--json-field", "u", "--key-field", "u", "--error-field"],
        "{\"u\":\"HTTP://A.example/\"}\n{\"u\":\"http://[x\"}\n",
    );
    assert_eq!(out, concat!(
        "{\"u\":\"http://a.example/\",\"error\":null}\n",
        "{\"u\":null,\"error\":{\"kind\":\"syntax\",\"column\":14,\"message\":\"'[' without a closing ']'\"}}\n"
    ));
    // A name the header lacks stops the run before any record, saying what the header has.
    let o = run(
        &["normalize", "--csv", "--field", "url"],
        b"id,link\n1,http://a/\n",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no field named \"url\" in the header (id, link)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn unique_keeps_the_first_record_of_each_key() {
    let file = "id\turl\n1\thttp://a.example/x\n2\tHTTP://A.EXAMPLE:80/x\n3\thttp://b.example/\n4\thttp://[bad\n5\thttp://b.example\n";
    let out = records(&["--field", "url", "--unique"], file);
    assert_eq!(out, "id\turl\tkey\n1\thttp://a.example/x\thttp://a.example/x\n3\thttp://b.example/\thttp://b.example/\n");
}

#[test]
fn many_threads_write_what_one_writes() {
    let urls = urls();
    for f in formats() {
        // Each output mode writes something of its own.
        let mut seen = HashSet::new();
        let (file, _) = f.file(&urls);
        for output in ["key", "tsv", "jsonl", "record"] {
            let mut one = f.options.clone();
            one.extend_from_slice(&["--output", output, "-j", "1"]);
            let mut many = f.options.clone();
            many.extend_from_slice(&["--output", output, "-j", "4", "--chunk-size", "200"]);
            let (a, b) = (keyed(&one, &file), keyed(&many, &file));
            assert_eq!(a, b, "{} --output {output}", f.name);
            assert!(
                seen.insert(a.clone()),
                "{} --output {output}: the same as another:\n{}",
                f.name,
                &a[..a.len().min(300)]
            );
        }
    }
}

#[test]
fn compressed_records_and_bad_options() {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"a,HTTP://X.example/\n").unwrap();
    let o = run(
        &["normalize", "--csv", "--field", "2"],
        &gz.finish().unwrap(),
    );
    assert_eq!(stdout(&o), "http://x.example/\n");
    for (args, says) in [
        (&["--field", "0"][..], "counts fields from 1"),
        (
            &["--key-name", "k", "--csv", "--output", "record"],
            "needs --json-field",
        ),
        (
            &["--key-name", "k", "--json-field", "u"],
            "add --output record",
        ),
        (&["--header", "--cdx"], "--header is for --field and --csv"),
        (
            &["--field", "2", "--delimiter", ",", "--output", "record"],
            "use --csv --delimiter",
        ),
        (
            &["--field", "2", "--delimiter", "\r"],
            "one ASCII character",
        ),
        (&["--log", "common", "--field", "referer"], "no referer"),
        (&["--delimiter", "ab"], "one ASCII character"),
        (
            &["--output", "record", "--key-field", "2"],
            "need a record format",
        ),
        (&["--explain", "--csv"], "does not apply to --explain"),
        (
            &["--explain", "--output", "record"],
            "--explain writes text blocks",
        ),
    ] {
        let mut all = vec!["normalize"];
        all.extend_from_slice(args);
        let o = run(&all, b"x\n");
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn runs_of_records_write_what_records_one_by_one_write() {
    // Canonical URLs (which runs of records take, many in a row) among non-canonical ones,
    // CRLF lines, a line past --max-line-bytes, quoted CSV fields, a last line without a
    // line feed. `--stats` keys each record on its own (runs are off where keys are
    // tracked): the output must be the same.
    let mut urls: Vec<String> = (0..300)
        .map(|i| format!("http://a{i}.example/p/{i}?q={i}"))
        .collect();
    urls.extend(self::urls().into_iter().take(100));
    urls.swap(10, 350);
    let long = format!("http://long.example/{}", "x".repeat(300));
    let cases: [(&[&str], String); 3] = [
        (&["--field", "url"], {
            let mut f = String::from("id\turl\n");
            for (i, u) in urls.iter().enumerate() {
                let end = if i % 37 == 5 { "\r\n" } else { "\n" };
                f.push_str(&format!("{i}\t{u}{end}"));
            }
            f + &format!("x\t{long}\nlast\thttp://last.example/")
        }),
        (&["--csv", "--field", "2"], {
            let mut f = String::new();
            for (i, u) in urls.iter().enumerate() {
                let u = if i % 11 == 3 {
                    format!("\"{u}\"")
                } else {
                    u.clone()
                };
                f.push_str(&format!("{i},{u},z\n"));
            }
            f
        }),
        (&["--cdx"], {
            let mut f = String::new();
            for (i, u) in urls.iter().enumerate() {
                f.push_str(&format!("k{i} 2020 {u} text/html 200\n"));
            }
            f
        }),
    ];
    for (options, file) in &cases {
        for output in ["key", "record"] {
            let mut args = options.to_vec();
            args.extend_from_slice(&[
                "--output",
                output,
                "--max-line-bytes",
                "200",
                "-j",
                "2",
                "--chunk-size",
                "1000",
            ]);
            let runs = keyed(&args, file);
            args.push("--stats");
            let one_by_one = keyed(&args, file);
            assert_eq!(runs, one_by_one, "{options:?} --output {output}");
            // A line per record; the header row only in record output.
            let header = options.get(1) == Some(&"url") && output == "key";
            assert_eq!(
                runs.lines().count(),
                file.lines().count() - usize::from(header)
            );
        }
    }
}
