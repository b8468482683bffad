//! Corpus loading shared by the criterion benches (`ladder`, `engine`, `modes`), and the
//! ada-url peer of `ladder` and `modes`.
//!
//! The corpora are every `*.txt` file of `../shared/corpora` (resolved against the parent of
//! the crate's directory, or taken from `$IRINORM_CORPORA`) and the checked-in generated
//! corpus `corpora/sample.txt`. A missing directory or file is skipped with a message.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// One corpus: its short name (the file stem) and its bytes.
pub struct Corpus {
    pub name: String,
    pub bytes: Vec<u8>,
}

impl Corpus {
    /// The records: the lines split on LF only, as the engine splits them; lines that are
    /// not UTF-8 are left out.
    pub fn records(&self) -> Vec<&str> {
        let mut body = &self.bytes[..];
        if body.last() == Some(&b'\n') {
            body = &body[..body.len() - 1];
        }
        if body.is_empty() {
            return Vec::new();
        }
        body.split(|&b| b == b'\n')
            .filter_map(|line| std::str::from_utf8(line).ok())
            .collect()
    }
}

/// The directory of the shared corpora.
pub fn shared_dir() -> PathBuf {
    match std::env::var_os("IRINORM_CORPORA") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora"),
    }
}

/// Every corpus that can be read: the shared `*.txt` files in name order, then `sample`.
pub fn load() -> Vec<Corpus> {
    let mut out = Vec::new();
    let dir = shared_dir();
    match std::fs::read_dir(&dir) {
        Ok(entries) => {
            let mut paths: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "txt"))
                .collect();
            paths.sort();
            if paths.is_empty() {
                println!("bench: no *.txt corpus in {}; skipped", dir.display());
            }
            for path in paths {
                push(&mut out, &path);
            }
        }
        Err(e) => println!(
            "bench: corpora {} not readable ({e}); skipped",
            dir.display()
        ),
    }
    push(
        &mut out,
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpora/sample.txt"),
    );
    out
}

fn push(out: &mut Vec<Corpus>, path: &Path) {
    match std::fs::read(path) {
        Ok(bytes) => out.push(Corpus {
            name: path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            bytes,
        }),
        Err(e) => println!(
            "bench: corpus {} not readable ({e}); skipped",
            path.display()
        ),
    }
}

/// Where criterion writes its results: `$CRITERION_HOME`, `$CARGO_TARGET_DIR/criterion`, or
/// the target directory holding this bench binary (`<target>/<profile>/deps/<bench>`).
pub fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(target).join("criterion");
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.parent()?.join("criterion")))
        .unwrap_or_else(|| PathBuf::from("target/criterion"))
}

/// The median time per iteration in nanoseconds that criterion recorded for a benchmark
/// (`<criterion>/<group>/<function>/new/estimates.json`), if it ran after `since` (so that a
/// result left by an earlier, differently filtered run is not reported).
pub fn median_ns(group: &str, function: &str, since: std::time::SystemTime) -> Option<f64> {
    let path = criterion_dir()
        .join(group)
        .join(function)
        .join("new/estimates.json");
    if std::fs::metadata(&path).ok()?.modified().ok()? < since {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json.get("median")?.get("point_estimate")?.as_f64()
}

/// Whether the binary measures (`cargo bench` passes `--bench`), so that a summary is
/// printed: not as a test (`cargo test --benches`, `cargo bench -- --test`) nor to list or
/// profile benchmarks.
pub fn summary_wanted() -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.iter().any(|a| a == "--bench")
        && !args
            .iter()
            .any(|a| a == "--test" || a == "--list" || a == "--profile-time")
}

/// Prints a summary table under its heading and saves the table as
/// `<criterion dir>/<bench>-summary.md`.
pub fn print_summary(bench: &str, heading: &str, table: &str) {
    println!("\n{heading}\n");
    println!("{table}");
    let path = criterion_dir().join(format!("{bench}-summary.md"));
    if std::fs::write(&path, table).is_ok() {
        println!("(saved to {})", path.display());
    }
}

/// ada-url's work on one record (`Url::parse` + `href`), appending its result to the buffer.
pub fn peer_ada(record: &str, out: &mut String) {
    if let Ok(u) = ada_url::Url::parse(record, None) {
        out.push_str(u.href());
    }
}
