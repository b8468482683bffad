//! A peer of `benches/e2e.sh`: `ada_url::Url::parse(line, None)` and `href()` for every
//! line, one output line per input line (an empty line for a line that does not parse).
//!
//! ```text
//! cargo run --release -p irinorm-bench --bin peer_ada -- [FILE] > OUT
//! ```

#[path = "lines.rs"]
mod lines;

fn main() {
    lines::run(|line, out| {
        if let Some(Ok(url)) = line.map(|l| ada_url::Url::parse(l, None)) {
            out.extend_from_slice(url.href().as_bytes());
        }
    });
}
