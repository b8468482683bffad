//! No record lost, whatever the bytes (SPEC §2), end to end through the binary: a NUL byte is
//! its record's error wherever it is, under every `--on-error` mode and output form and in
//! `check`; only a binary container is refused, before any output; a damaged compressed
//! input of each codec writes every record decoded before the damage, then names the file
//! and the offset; `--unique` under a memory cap stops with a clear error. And a property:
//! a NUL put into any one line of an input changes that line's output row alone.

use std::io::{Read, Write};
use std::path::Path;

use proptest::prelude::*;

use irinorm::stream::{Engine, EngineOptions, OutputMode};
use irinorm::Error;
use irinorm::{Normalizer, Options};

use crate::cli::{run, stderr, stdout, temp_dir};

/// How many records the inputs below hold.
const RECORDS: usize = 100_000;

/// `RECORDS` lines: the lines of `corpora/sample.txt` (real-looking, heavily non-canonical,
/// international) taken in turn, each with its number so that every line is its own.
fn lines() -> Vec<Vec<u8>> {
    let sample = std::fs::read_to_string(crate::common::repo().join("corpora/sample.txt"))
        .expect("corpora/sample.txt");
    let sample: Vec<&str> = sample.lines().filter(|l| !l.is_empty()).collect();
    (0..RECORDS)
        .map(|i| format!("http://n{i}.example/{}", sample[i % sample.len()]).into_bytes())
        .collect()
}

/// The lines of the standard output of a run.
fn out_lines(o: &std::process::Output) -> Vec<String> {
    stdout(o).lines().map(str::to_owned).collect()
}

fn joined(lines: &[Vec<u8>]) -> Vec<u8> {
    let mut data = lines.join(&b'\n');
    data.push(b'\n');
    data
}

/// The keys of `lines`, one per line, as the command line writes them with nothing wrong.
fn keys(path: &Path) -> Vec<String> {
    let o = run(&["normalize", path.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    stdout(&o).lines().map(str::to_owned).collect()
}

#[test]
fn a_nul_inside_a_line_is_that_records_error_in_every_mode() {
    let dir = temp_dir("nul-rows");
    let clean = lines();
    let clean_path = dir.join("clean.txt");
    std::fs::write(&clean_path, joined(&clean)).unwrap();
    let want = keys(&clean_path);
    assert_eq!(want.len(), RECORDS);
    // A NUL inside line 3, and inside line 90,000 (1-based), at column 6.
    for line in [3, 90_000] {
        let mut with_nul = clean.clone();
        with_nul[line - 1].insert(5, 0);
        let path = dir.join(format!("nul-{line}.txt"));
        std::fs::write(&path, joined(&with_nul)).unwrap();
        let path = path.to_str().unwrap();
        let diagnostic = format!("{path}:{line}:6: nul: NUL byte");

        // Marked: every record written, in order, the NUL line an empty key.
        let o = run(&["normalize", path], b"");
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let got = out_lines(&o);
        assert_eq!(got.len(), RECORDS);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let w = if i == line - 1 { "" } else { w.as_str() };
            assert_eq!(g, w, "line {}", i + 1);
        }
        assert!(stderr(&o).contains(&diagnostic), "{}", stderr(&o));
        // Skipped: the others, in order.
        let o = run(&["normalize", "--on-error", "skip", path], b"");
        assert_eq!(o.status.code(), Some(0));
        let mut others = want.clone();
        others.remove(line - 1);
        assert_eq!(out_lines(&o), others);
        // Failing: the records before it, then exit 1 naming it.
        let o = run(&["normalize", "--on-error", "fail", path], b"");
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(out_lines(&o), want[..line - 1]);
        assert!(stderr(&o).contains(&diagnostic), "{}", stderr(&o));
        // Rows: the error with its kind and column, in tsv and jsonl.
        let o = run(&["normalize", "--output", "tsv", path], b"");
        let rows = out_lines(&o);
        assert_eq!(rows.len(), RECORDS);
        assert!(
            rows[line - 1].ends_with("\t\tnul:6: NUL byte"),
            "{}",
            rows[line - 1]
        );
        let o = run(&["normalize", "--output", "jsonl", path], b"");
        let rows: Vec<serde_json::Value> = stdout(&o)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(rows.len(), RECORDS);
        assert_eq!(rows[line - 1]["error"]["kind"], "nul");
        assert_eq!(rows[line - 1]["error"]["column"], 6);
        assert_eq!(rows[line]["key"], want[line].as_str());

        // `check` (strict: the sample's lines that need a repair are invalid too): that
        // line invalid for its NUL (exit 1), every other row as without it.
        let o = run(&["check", "--output", "tsv", path], b"");
        assert_eq!(o.status.code(), Some(1));
        let rows = out_lines(&o);
        let clean_rows = out_lines(&run(
            &["check", "--output", "tsv", clean_path.to_str().unwrap()],
            b"",
        ));
        assert_eq!((rows.len(), clean_rows.len()), (RECORDS, RECORDS));
        for (i, (row, clean_row)) in rows.iter().zip(&clean_rows).enumerate() {
            if i != line - 1 {
                assert_eq!(row, clean_row, "line {}", i + 1);
            }
        }
        assert!(
            rows[line - 1].ends_with("\tnul:6: NUL byte"),
            "{}",
            rows[line - 1]
        );
        if line == 3 {
            // Among the first diagnostics, which are the ones shown.
            assert!(stderr(&o).contains(&diagnostic), "{}", stderr(&o));
        }
    }
}

#[test]
fn nuls_before_the_first_line_are_one_invalid_record() {
    // What `logrotate copytruncate` leaves: the zeros of the part of the file that was cut,
    // then the lines written since, the first of them after the zeros on the same line.
    let dir = temp_dir("nul-lead");
    let clean = lines();
    let clean_path = dir.join("clean.txt");
    std::fs::write(&clean_path, joined(&clean)).unwrap();
    let want = keys(&clean_path);
    let mut data = vec![0u8; 4096];
    data.extend(joined(&clean));
    let path = dir.join("rotated.log");
    std::fs::write(&path, &data).unwrap();
    let named = run(&["normalize", path.to_str().unwrap()], b"");
    let piped = run(&["normalize"], &data);
    for (o, name) in [(named, path.to_str().unwrap()), (piped, "<stdin>")] {
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let got = out_lines(&o);
        assert_eq!(got.len(), RECORDS);
        assert_eq!(
            got[0], "",
            "the zeros and the first line are one invalid record"
        );
        assert_eq!(got[1..], want[1..]);
        let diagnostic = format!("{name}:1:1: nul: NUL byte");
        assert!(stderr(&o).contains(&diagnostic), "{}", stderr(&o));
    }
    // A file of nothing but zeros is one invalid record too, not a refused input.
    let o = run(&["normalize", "--output", "tsv"], &[0u8; 10_000]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o).lines().count(), 1);
}

#[test]
fn a_binary_container_is_refused_before_any_output_and_read_as_lines_when_asked() {
    let dir = temp_dir("containers");
    let good = dir.join("good.txt");
    std::fs::write(&good, b"http://a.example/\n").unwrap();
    let pdf = dir.join("report.pdf");
    std::fs::write(
        &pdf,
        b"%PDF-1.7\n%\xE2\xE3\xCF\xD3\n1 0 obj\n<< /Type /Catalog >>\n",
    )
    .unwrap();
    let elf = dir.join("a.out");
    let mut elf_bytes = b"\x7FELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0".to_vec();
    elf_bytes.extend_from_slice(b"\nhttp://b.example/\n");
    std::fs::write(&elf, &elf_bytes).unwrap();
    for (path, format) in [(&pdf, "PDF document"), (&elf, "ELF executable")] {
        let path = path.to_str().unwrap();
        // Named after a good file: nothing of the good file is written either.
        for args in [
            vec!["normalize", good.to_str().unwrap(), path],
            vec!["check", path],
            vec!["to-uri", path],
        ] {
            let o = run(&args, b"");
            assert_eq!(o.status.code(), Some(2), "{args:?}");
            assert_eq!(stdout(&o), "", "{args:?}");
            let err = stderr(&o);
            assert!(err.contains(path) && err.contains(format), "{err}");
            assert!(err.contains("--binary text"), "{err}");
        }
        // Through standard input too.
        let o = run(&["normalize"], &std::fs::read(path).unwrap());
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains(format));
        // `--binary text`: each line a record.
        let o = run(&["normalize", "--binary", "text", path], b"");
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let lines = std::fs::read(path).unwrap().split(|&b| b == b'\n').count() - 1;
        assert_eq!(stdout(&o).lines().count(), lines);
    }
    let o = run(
        &["normalize", "--binary", "text", elf.to_str().unwrap()],
        b"",
    );
    assert!(stdout(&o).ends_with("\nhttp://b.example/\n"));
}

#[test]
fn every_subcommand_reports_a_nul_at_its_first_column() {
    // After stray octets (a column each), after leading blanks, and after a character the
    // lenient repairs encode: the NUL is the record's error, at its column in the raw line.
    let input = b"http://a/\n\xFF\xFEab\0x\n   http://a/\0\nhttp://a b/\0\n";
    let want = ["2:5: nul", "3:13: nul", "4:12: nul"];
    for args in [
        &["check"][..],
        &["normalize"],
        &["normalize", "--strict"],
        &["to-uri"],
        &["to-iri"],
        &["resolve", "--base", "http://b/"],
    ] {
        let o = run(args, input);
        let err = stderr(&o);
        for w in want {
            assert!(err.contains(&format!("<stdin>:{w}")), "{args:?}: {err}");
        }
    }
    // `--explain` says it in its block of each record.
    let o = run(&["normalize", "--explain"], input);
    let explained = stdout(&o);
    for column in [5, 13, 12] {
        let said = format!("  ! nul: column {column}: NUL byte\n");
        assert!(explained.contains(&said), "{explained}");
    }
}

#[test]
fn containers_are_told_by_their_bytes_not_by_a_line_feed_among_them() {
    let dir = temp_dir("containers-lf");
    // A GIF 10 pixels wide: its width's low byte is a line feed, before any NUL.
    let gif = b"GIF89a\x0A\x00\x0A\x00\x80\x00\x00\xFF\xFF\xFF\x00\x00\x00,".to_vec();
    // Text in UTF-16, with its byte order mark.
    let utf16: Vec<u8> = "\u{FEFF}http://a/\nhttp://b/\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    for (name, bytes, format) in [
        ("w10.gif", gif, "GIF image"),
        ("utf16.txt", utf16, "UTF-16"),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, &bytes).unwrap();
        let o = run(&["normalize", path.to_str().unwrap()], b"");
        assert_eq!(o.status.code(), Some(2), "{name}");
        assert!(stderr(&o).contains(format), "{}", stderr(&o));
        let o = run(&["normalize"], &bytes);
        assert_eq!(o.status.code(), Some(2), "{name} through a pipe");
    }
    // Lines that start as some magic numbers do, without the rest, are lines.
    let text = b"GIF89a\nMZ is a path\nPAR1\nPK\n%PDF\nhttp://a/\n";
    let o = run(&["normalize", "--output", "tsv"], text);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(out_lines(&o).len(), 6);
}

#[test]
fn a_compressed_container_is_refused_before_any_record_of_any_input() {
    let dir = temp_dir("containers-gz");
    let good = dir.join("good.txt");
    std::fs::write(&good, b"http://a.example/\n".repeat(1000)).unwrap();
    let pdf = dir.join("report.pdf.gz");
    std::fs::write(&pdf, gzip(b"%PDF-1.7\n%\xE2\xE3\xCF\xD3\n")).unwrap();
    let o = run(
        &["normalize", good.to_str().unwrap(), pdf.to_str().unwrap()],
        b"",
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "");
    assert!(
        stderr(&o).contains("once decompressed (gzip)"),
        "{}",
        stderr(&o)
    );
    // A damaged compressed file is not refused: its records before the damage are written.
    let whole = gzip(&b"http://b.example/\n".repeat(100_000));
    let cut = dir.join("cut.gz");
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    let o = run(
        &["normalize", good.to_str().unwrap(), cut.to_str().unwrap()],
        b"",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(out_lines(&o).len() > 1000);
}

/// The compressed forms of `data` by each codec: its name and a function making it.
type Codec = (&'static str, fn(&[u8]) -> Vec<u8>);

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(data).unwrap();
    gz.finish().unwrap()
}

fn zstd(data: &[u8]) -> Vec<u8> {
    zstd::encode_all(data, 1).unwrap()
}

fn xz(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    liblzma::read::XzEncoder::new(data, 1)
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn bzip2(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    // Blocks of 100 kB: a cut or a flipped byte in a later block leaves the earlier ones.
    bzip2::read::BzEncoder::new(data, bzip2::Compression::fast())
        .read_to_end(&mut out)
        .unwrap();
    out
}

const CODECS: [Codec; 4] = [("gzip", gzip), ("zstd", zstd), ("xz", xz), ("bzip2", bzip2)];

/// The offset the error of a damaged input names.
fn offset_in(err: &str) -> u64 {
    let after = err.split("it stopped after byte ").nth(1).expect(err);
    after.split(' ').next().unwrap().parse().unwrap()
}

#[test]
fn damaged_compressed_input_writes_what_came_before_and_says_where() {
    let dir = temp_dir("damaged");
    let text: Vec<u8> = (0..RECORDS)
        .flat_map(|i| format!("http://n{i}.example/p\n").into_bytes())
        .collect();
    let want: Vec<String> = (0..RECORDS)
        .map(|i| format!("http://n{i}.example/p"))
        .collect();
    for (name, compress) in CODECS {
        let whole = compress(&text);
        // Truncated: a prefix of the keys, then the error naming file and offset, exit 2.
        let cut = dir.join(format!("cut.{name}"));
        std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
        let o = run(&["normalize", cut.to_str().unwrap()], b"");
        assert_eq!(o.status.code(), Some(2), "{name}");
        let got = out_lines(&o);
        assert!(
            got.len() > 1000 && got.len() < RECORDS,
            "{name}: {}",
            got.len()
        );
        assert_eq!(got, want[..got.len()], "{name}: a prefix, in order");
        let err = stderr(&o);
        assert!(err.contains(cut.to_str().unwrap()), "{err}");
        assert!(
            err.contains(&format!("decoding {name} data failed")),
            "{err}"
        );
        assert_eq!(offset_in(&err), whole.len() as u64 / 2, "{name}: {err}");
        // One byte flipped past the middle: the records before the damage as they were,
        // then the error; the offset is within the file.
        let mut flipped = whole.clone();
        flipped[whole.len() * 3 / 4] ^= 0x55;
        let path = dir.join(format!("flipped.{name}"));
        std::fs::write(&path, &flipped).unwrap();
        let o = run(
            &["normalize", "--on-error", "skip", path.to_str().unwrap()],
            b"",
        );
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains(&format!("decoding {name} data failed")),
            "{err}"
        );
        assert!(offset_in(&err) <= whole.len() as u64, "{err}");
        let got = out_lines(&o);
        let intact = got.iter().zip(&want).take_while(|(g, w)| g == w).count();
        assert!(intact > 1000, "{name}: {intact} records before the damage");
        // Empty members and several members: one stream, every record.
        let empty = compress(b"");
        let mut members = empty.clone();
        members.extend(compress(&text[..text.len() / 2]));
        members.extend(&empty);
        members.extend(compress(&text[text.len() / 2..]));
        members.extend(&empty);
        let path = dir.join(format!("members.{name}"));
        std::fs::write(&path, &members).unwrap();
        let o = run(&["normalize", path.to_str().unwrap()], b"");
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        assert_eq!(out_lines(&o), want, "{name}");
        let path = dir.join(format!("empty.{name}"));
        std::fs::write(&path, &empty).unwrap();
        let o = run(&["normalize", path.to_str().unwrap()], b"");
        assert_eq!((o.status.code(), stdout(&o)), (Some(0), String::new()));
    }
}

#[test]
fn unique_under_a_small_cap_stops_with_a_clear_error() {
    // 1 MiB holds about 50,000 keys: the run stops at the first new key that does not fit,
    // having written every record before it, each key once.
    let mut data: Vec<u8> = (0..RECORDS)
        .flat_map(|i| format!("http://n{}.example/{i}\n", i % 100).into_bytes())
        .collect();
    // An invalid record after the stop: its diagnostic is not shown.
    data.extend_from_slice(b"http://[bad\n");
    let o = run(&["normalize", "--unique", "--unique-memory", "1M"], &data);
    assert_eq!(o.status.code(), Some(2));
    let written = out_lines(&o);
    assert!(
        written.len() > 20_000 && written.len() < RECORDS,
        "{}",
        written.len()
    );
    for (i, key) in written.iter().enumerate() {
        assert_eq!(*key, format!("http://n{}.example/{i}", i % 100));
    }
    let err = stderr(&o);
    let line = written.len() + 1;
    // No diagnostic of a record past the stop.
    assert!(!err.contains("syntax"), "{err}");
    assert!(
        err.contains(&format!("<stdin>:{line}: --unique stopped here")),
        "{err}"
    );
    assert!(
        err.contains(&format!("set of {} distinct keys", written.len())),
        "{err}"
    );
    assert!(err.contains("--unique-memory SIZE"), "{err}");
    // With room, the same run ends well.
    let o = run(&["normalize", "--unique", "--unique-memory", "64M"], &data);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o).lines().count(), RECORDS);
    assert!(stderr(&o).contains(&format!("<stdin>:{}:8: syntax", RECORDS + 1)));
    let o = run(&["normalize", "--unique", "--unique-memory", "lots"], &data);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is not a size"), "{}", stderr(&o));
    // The cap without --unique is a usage error.
    let o = run(&["normalize", "--unique-memory", "1M"], &data);
    assert_eq!(o.status.code(), Some(2));
}

/// The output of a run of the default normalizer over `data`, the command line's way
/// (binary containers refused, 2 threads, small chunks), split into rows.
fn rows(data: &[u8], output: OutputMode) -> Vec<Vec<u8>> {
    let n = Normalizer::new(Options::default()).unwrap();
    let op = |rec: &str, out: &mut String| -> Result<(), Error> { n.normalize_into(rec, out) };
    let options = EngineOptions::default()
        .with_threads(2)
        .with_chunk_size(256)
        .with_output(output)
        .with_refuse_containers(true)
        .with_max_diagnostics(0);
    let mut out = Vec::new();
    Engine::new(&op, options).run(data, &mut out).unwrap();
    let mut rows: Vec<Vec<u8>> = out.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    assert_eq!(rows.pop(), Some(Vec::new()));
    rows
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A NUL put into any one line changes that line's row alone, into a `nul` error at the
    /// NUL's column, in every output form.
    #[test]
    fn a_nul_changes_only_its_own_row(
        lines in prop::collection::vec(
            "(https?|ftp)://[a-zA-Z0-9.-]{1,12}(/[a-zA-Z0-9%._~!$&'()*+,;=:@ é-]{0,8}){0,3}(\\?[a-z=&%0-9]{0,10})?",
            1..40,
        ),
        which in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
    ) {
        let line = which.index(lines.len());
        let mut with_nul: Vec<Vec<u8>> = lines.iter().map(|l| l.clone().into_bytes()).collect();
        let column = at.index(lines[line].chars().count() + 1);
        let byte = lines[line].char_indices().nth(column).map_or(lines[line].len(), |(i, _)| i);
        with_nul[line].insert(byte, 0);
        let clean: Vec<Vec<u8>> = lines.iter().map(|l| l.clone().into_bytes()).collect();
        for output in [OutputMode::Key, OutputMode::Tsv, OutputMode::Jsonl] {
            let before = rows(&joined(&clean), output);
            let after = rows(&joined(&with_nul), output);
            prop_assert_eq!(before.len(), lines.len());
            prop_assert_eq!(after.len(), lines.len());
            for (i, (b, a)) in before.iter().zip(&after).enumerate() {
                if i != line {
                    prop_assert_eq!(a, b, "row {} changed", i + 1);
                }
            }
            let row = String::from_utf8_lossy(&after[line]).into_owned();
            let kind = match output {
                OutputMode::Key => row.is_empty(),
                OutputMode::Tsv => row.ends_with(&format!("\t\tnul:{}: NUL byte", column + 1)),
                _ => row.contains(&format!(
                    "\"error\":{{\"kind\":\"nul\",\"column\":{}",
                    column + 1
                )),
            };
            prop_assert!(kind, "{:?}: {}", output, row);
        }
    }
}
