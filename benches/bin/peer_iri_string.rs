//! A peer of `benches/e2e.sh`: `iri-string` for every line, one output line per input line.
//! An IRI (`IriStr::new`) is written normalized (`normalize()`, RFC 3986 §6.2.2); a relative
//! reference (`IriReferenceStr::new`) as it is, since iri-string does not normalize one
//! alone; anything else as an empty line.
//!
//! ```text
//! cargo run --release -p irinorm-bench --bin peer_iri_string -- [FILE] > OUT
//! ```

use std::io::Write as _;

use iri_string::types::{IriReferenceStr, IriStr};

#[path = "lines.rs"]
mod lines;

fn main() {
    lines::run(|line, out| {
        let Some(line) = line else { return };
        if let Ok(iri) = IriStr::new(line) {
            let _ = write!(out, "{}", iri.normalize());
        } else if let Ok(reference) = IriReferenceStr::new(line) {
            out.extend_from_slice(reference.as_str().as_bytes());
        }
    });
}
