//! Helpers shared by the fuzz targets (included with `#[path]`, one copy per target).
//!
//! The definitions mirror `tests/properties.rs`, so a fuzz finding and a property test
//! failure mean the same thing.

#![allow(dead_code)]

use irinorm::internals::prepare;
use irinorm::Repairs;
use irinorm::Level;
use irinorm::{to_uri, ErrorKind};

/// The record the command line would parse for the raw bytes `data` (lenient mode):
/// trimmed, forbidden ASCII and stray `%` encoded, non-UTF-8 octets kept as `%XX`.
pub fn prepared(data: &[u8]) -> Option<String> {
    let mut scratch = String::new();
    let mut repairs = Repairs::default();
    prepare(data, irinorm::Repair::Lenient, &mut scratch, &mut repairs)
        .ok()
        .map(str::to_owned)
}

/// The octets of the percent-encoding triplets of `s`, as (byte offset, octet).
pub fn triplets(s: &str) -> Vec<(usize, u8)> {
    let b = s.as_bytes();
    let mut v = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hi = (b[i + 1] as char).to_digit(16);
            let lo = (b[i + 2] as char).to_digit(16);
            if let (Some(hi), Some(lo)) = (hi, lo) {
                v.push((i, (hi * 16 + lo) as u8));
                i += 3;
                continue;
            }
        }
        i += 1;
    }
    v
}

/// Every percent-encoding's hex in uppercase, and percent-encoded unreserved ASCII
/// decoded: what RFC 3987 §3.2 says a URI -> IRI -> URI round trip may change.
pub fn pct_canon(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for (i, o) in triplets(s) {
        out.push_str(&s[last..i]);
        if o.is_ascii_alphanumeric() || matches!(o, b'-' | b'.' | b'_' | b'~') {
            out.push(o as char);
        } else {
            out.push_str(&format!("%{o:02X}"));
        }
        last = i + 3;
    }
    out.push_str(&s[last..]);
    out
}

/// How many of the reserved-or-`%` encodings `%2F %26 %3D %25 %23 %3F` `s` holds.
pub fn protected_encodings(s: &str) -> usize {
    triplets(s)
        .iter()
        .filter(|(_, o)| matches!(o, 0x2F | 0x26 | 0x3D | 0x25 | 0x23 | 0x3F))
        .count()
}

pub fn is_bidi_format(c: char) -> bool {
    matches!(c as u32, 0x200E | 0x200F | 0x202A..=0x202E | 0x2066..=0x2069)
}

/// The URI form of an IRI-form key (SPEC §5): RFC 3987 §3.1, with ToASCII for DNS hosts
/// from the scheme rung up. A host that fails ToASCII kept its syntax form in both keys
/// (SPEC §4), so for it the plain mapping applies (as in tests/properties.rs).
pub fn key_iri_to_uri(k: &str, level: Level) -> String {
    let host = if level >= Level::Scheme {
        irinorm::HostMapping::ToAscii
    } else {
        irinorm::HostMapping::PercentEncode
    };
    match to_uri(k, host) {
        Ok(u) => u.into_owned(),
        Err(e) if e.kind == ErrorKind::Idna => to_uri(k, irinorm::HostMapping::PercentEncode)
            .unwrap()
            .into_owned(),
        Err(e) => panic!("iri key {k:?} does not map to a URI: {e}"),
    }
}
