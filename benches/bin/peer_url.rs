//! A peer of `benches/e2e.sh`: `url::Url::parse(line)` and its serialization (`as_str`) for
//! every line, one output line per input line (an empty line for a line that does not
//! parse).
//!
//! ```text
//! cargo run --release -p irinorm-bench --bin peer_url -- [FILE] > OUT
//! ```

#[path = "lines.rs"]
mod lines;

fn main() {
    lines::run(|line, out| {
        if let Some(Ok(url)) = line.map(url::Url::parse) {
            out.extend_from_slice(url.as_str().as_bytes());
        }
    });
}
