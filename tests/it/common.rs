//! What the integration tests share: where the crate's own files are, and the shared
//! conformance vectors and corpora beside the checkout (`../shared`), which tests use when
//! present and skip, saying so, when not.

use std::path::{Path, PathBuf};

/// The crate's root folder.
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared` beside the checkout, when present.
pub fn shared() -> Option<PathBuf> {
    let dir = repo().join("..").join("shared");
    dir.is_dir().then_some(dir)
}

/// The shared corpus files (`../shared/corpora`), sorted by name: those whose extension is
/// one of `extensions`, or every file when `extensions` is empty.
pub fn shared_corpora(extensions: &[&str]) -> Option<Vec<PathBuf>> {
    let dir = shared()?.join("corpora");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| {
            extensions.is_empty()
                || p.extension()
                    .is_some_and(|e| extensions.iter().any(|x| e == *x))
        })
        .collect();
    files.sort();
    Some(files)
}

/// The shared conformance vectors (`../shared/conformance/cases.jsonl`), when present.
pub fn shared_cases() -> Option<String> {
    let path = shared()?.join("conformance").join("cases.jsonl");
    std::fs::read_to_string(path).ok()
}

/// Says that a test, or part of one, was skipped and why, in the normal output of
/// `cargo test` (no `--nocapture` needed): the test harness captures what the `print!`
/// macros write, so the line is written to standard error directly, past the capture. It
/// shows among the test results as `skipped: TEST: WHY`, while the test itself passes.
pub fn skipped(test: &str, why: &str) {
    use std::io::Write;
    let line = format!("skipped: {test}: {why}\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}
