//! The floor of `benches/e2e.sh` (SPEC §8): read, split lines with `memchr`, validate with
//! `simdutf8`, write the lines back (a line that is not UTF-8 becomes an empty line).
//!
//! ```text
//! cargo run --release -p irinorm-bench --bin floor -- [FILE] > OUT
//! ```

#[path = "lines.rs"]
mod lines;

fn main() {
    lines::run(|line, out| {
        if let Some(line) = line {
            out.extend_from_slice(line.as_bytes());
        }
    });
}
