//! Percent-encoding (RFC 3986 §2.1, §2.4, §6.2.2.1–§6.2.2.2) and the character mapping
//! between IRIs and URIs (RFC 3987 §3.1 step 2, §3.2 steps 2–5).
//!
//! One routine, [`recode`], walks a component once and writes it out under a [`Recode`]
//! policy: which percent-encodings to decode, whether kept ones get uppercase hex, whether
//! raw non-ASCII characters are percent-encoded (the URI form) or encoded UTF-8 decoded (the
//! IRI form), and whether ASCII letters are lowercased (hosts). Reserved characters and
//! `%25` are never decoded by any policy: decoding them would change what the reference
//! means (RFC 3986 §2.2, §2.4).

use crate::iri::chars::{self, is_bidi_format, is_iprivate, is_ucschar, HEX_UPPER};

/// How [`recode`] treats one component.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recode {
    /// Decode `%XX` of unreserved ASCII (RFC 3986 §6.2.2.2).
    pub decode_unreserved: bool,
    /// Write the hex digits of every percent-encoding that stays in uppercase
    /// (RFC 3986 §6.2.2.1). When false, encodings of ASCII octets keep their case; octets of
    /// non-ASCII encodings that stay encoded are always written in uppercase.
    pub uppercase_hex: bool,
    /// The URI form: percent-encode every raw non-ASCII character as UTF-8 with uppercase
    /// hex (RFC 3987 §3.1 step 2).
    pub encode_non_ascii: bool,
    /// The IRI form: decode runs of `%XX` that are strictly valid UTF-8 for a character the
    /// component allows (RFC 3987 §3.2 steps 2–5).
    pub decode_utf8: bool,
    /// The component is the query, where `iprivate` is allowed (RFC 3987 §2.2).
    pub in_query: bool,
    /// Lowercase ASCII letters, raw or decoded (case-insensitive hosts, RFC 3986 §6.2.2.1).
    pub lowercase: bool,
}

/// Whether `s` holds non-ASCII text, raw or percent-encoded (`%80`–`%FF`).
pub fn has_non_ascii(s: &str) -> bool {
    let b = s.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        c >= 0x80
            || (c == b'%'
                && i + 1 < b.len()
                && matches!(b[i + 1], b'8'..=b'9' | b'A'..=b'F' | b'a'..=b'f'))
    })
}

/// Appends `%XX` for octet `b`, uppercase hex.
#[inline]
pub fn push_pct(out: &mut String, b: u8) {
    out.push('%');
    out.push(HEX_UPPER[(b >> 4) as usize] as char);
    out.push(HEX_UPPER[(b & 15) as usize] as char);
}

/// Appends the UTF-8 octets of `c` as `%XX` triplets, uppercase hex.
#[inline]
pub fn push_char_encoded(out: &mut String, c: char) {
    let mut buf = [0u8; 4];
    for &b in c.encode_utf8(&mut buf).as_bytes() {
        push_pct(out, b);
    }
}

/// The octet of the triplet at `s[i..i + 3]`, if `s[i]` starts a valid `pct-encoded`.
#[inline]
pub fn triplet_at(s: &[u8], i: usize) -> Option<u8> {
    if s.get(i) != Some(&b'%') {
        return None;
    }
    let hi = chars::hex_value(*s.get(i + 1)?)?;
    let lo = chars::hex_value(*s.get(i + 2)?)?;
    Some(hi << 4 | lo)
}

/// Whether a decoded character may appear raw in the IRI form of a component: a `ucschar`
/// (or `iprivate` in the query), never a bidi formatting character (RFC 3987 §3.2 step 4,
/// §4.1).
#[inline]
pub fn iri_allows(c: char, in_query: bool) -> bool {
    !is_bidi_format(c) && (is_ucschar(c) || (in_query && is_iprivate(c)))
}

/// Decodes the run of triplets starting at `s[i]` (whose octet `lead` is ≥ 0x80) as one
/// strictly valid UTF-8 character. Returns the character and the number of bytes of `s` it
/// spans. Overlongs, surrogates, values above U+10FFFF and truncated sequences give `None`
/// (RFC 3629 §3, as RFC 3987 §3.2 step 3 requires).
fn decode_utf8_triplets(s: &[u8], i: usize, lead: u8) -> Option<(char, usize)> {
    let n = match lead {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    let mut buf = [lead, 0, 0, 0];
    for (k, slot) in buf.iter_mut().enumerate().take(n).skip(1) {
        let b = triplet_at(s, i + 3 * k)?;
        if b & 0xC0 != 0x80 {
            return None;
        }
        *slot = b;
    }
    let text = std::str::from_utf8(&buf[..n]).ok()?;
    text.chars().next().map(|c| (c, 3 * n))
}

/// `%`, for [`RECODE_STOP`].
const STOP_PCT: u8 = 1;
/// A byte of a non-ASCII character, for [`RECODE_STOP`].
const STOP_HIGH: u8 = 2;
/// An ASCII uppercase letter, for [`RECODE_STOP`].
const STOP_UPPER: u8 = 4;

const fn build_stop_table() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = if b == b'%' {
            STOP_PCT
        } else if b >= 0x80 {
            STOP_HIGH
        } else if b.is_ascii_uppercase() {
            STOP_UPPER
        } else {
            0
        };
        i += 1;
    }
    t
}

/// The bytes [`recode`] may have to rewrite, by kind.
static RECODE_STOP: [u8; 256] = build_stop_table();

/// Writes component `s` to `out` under `policy`. `s` must hold only valid IRI characters
/// and well-formed percent-encodings (the parser guarantees both).
pub fn recode(s: &str, policy: Recode, out: &mut String) {
    let bytes = s.as_bytes();
    // The bytes that may need a rewrite under this policy (a raw non-ASCII character is
    // copied as it is unless it is encoded).
    let mut stop = STOP_PCT;
    if policy.encode_non_ascii {
        stop |= STOP_HIGH;
    }
    if policy.lowercase {
        stop |= STOP_UPPER;
    }
    let mut i = 0;
    // Copy runs of bytes that need nothing in one go.
    let mut run_start = 0;
    while i < bytes.len() {
        i = skip_quiet(bytes, i, stop);
        if i == bytes.len() {
            break;
        }
        let b = bytes[i];
        if RECODE_STOP[b as usize] & stop == 0 {
            i += 1;
            continue;
        }
        out.push_str(&s[run_start..i]);
        i = if b == b'%' {
            recode_triplet(s, i, policy, out)
        } else if b >= 0x80 {
            let c = s[i..].chars().next().unwrap_or('\u{FFFD}');
            if policy.encode_non_ascii {
                push_char_encoded(out, c);
            } else {
                out.push(c);
            }
            i + c.len_utf8()
        } else {
            out.push(b.to_ascii_lowercase() as char);
            i + 1
        };
        run_start = i;
    }
    out.push_str(&s[run_start..]);
}

/// Skips, from `i`, the bytes that need nothing under `stop`, four at a time: where the
/// first four that may need something start (or near the end, where one at a time goes on).
#[inline(always)]
fn skip_quiet(bytes: &[u8], mut i: usize, stop: u8) -> usize {
    while i + 4 <= bytes.len() {
        let t = RECODE_STOP[bytes[i] as usize]
            | RECODE_STOP[bytes[i + 1] as usize]
            | RECODE_STOP[bytes[i + 2] as usize]
            | RECODE_STOP[bytes[i + 3] as usize];
        if t & stop != 0 {
            break;
        }
        i += 4;
    }
    i
}

/// Writes what the `%` at `s[i]` becomes under `policy`: an unreserved character decoded,
/// the hex uppercased or kept, UTF-8 decoded where the IRI form allows it. Returns where
/// the next byte to look at is.
#[inline(always)]
fn recode_triplet(s: &str, i: usize, policy: Recode, out: &mut String) -> usize {
    let bytes = s.as_bytes();
    let Some(octet) = triplet_at(bytes, i) else {
        // Not reached for parsed input; copy the '%' through unchanged.
        out.push('%');
        return i + 1;
    };
    if octet < 0x80 {
        if policy.decode_unreserved && chars::is_unreserved(octet) {
            let c = if policy.lowercase {
                octet.to_ascii_lowercase()
            } else {
                octet
            };
            out.push(c as char);
        } else if policy.uppercase_hex {
            push_pct(out, octet);
        } else {
            out.push_str(&s[i..i + 3]);
        }
        return i + 3;
    }
    let decoded = if policy.decode_utf8 {
        decode_utf8_triplets(bytes, i, octet).filter(|&(c, _)| iri_allows(c, policy.in_query))
    } else {
        None
    };
    match decoded {
        Some((c, len)) => {
            out.push(c);
            i + len
        }
        None => {
            push_pct(out, octet);
            i + 3
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(s: &str, p: Recode) -> String {
        let mut out = String::new();
        recode(s, p, &mut out);
        out
    }

    const SYNTAX_URI: Recode = Recode {
        decode_unreserved: true,
        uppercase_hex: true,
        encode_non_ascii: true,
        decode_utf8: false,
        in_query: false,
        lowercase: false,
    };

    #[test]
    fn syntax_uri_form() {
        assert_eq!(run("/%7euser/%2f%41é", SYNTAX_URI), "/~user/%2FA%C3%A9");
        assert_eq!(run("%25%26%3d", SYNTAX_URI), "%25%26%3D");
        assert_eq!(run("%c3%a9", SYNTAX_URI), "%C3%A9");
    }

    #[test]
    fn iri_form_decodes_only_strict_utf8_of_allowed_characters() {
        let p = Recode {
            decode_utf8: true,
            ..SYNTAX_URI
        };
        let p = Recode {
            encode_non_ascii: false,
            ..p
        };
        assert_eq!(run("%C3%A9", p), "é");
        assert_eq!(run("%c0%af", p), "%C0%AF"); // overlong
        assert_eq!(run("%ED%A0%80", p), "%ED%A0%80"); // surrogate
        assert_eq!(run("%F4%90%80%80", p), "%F4%90%80%80"); // above U+10FFFF
        assert_eq!(run("%E3%82%E3%82%A4", p), "%E3%82イ"); // truncated, then valid
        assert_eq!(run("%E2%80%AE", p), "%E2%80%AE"); // RLO stays encoded
        assert_eq!(run("%EE%80%80", p), "%EE%80%80"); // iprivate outside the query
        let q = Recode {
            in_query: true,
            ..p
        };
        assert_eq!(run("%EE%80%80", q), "\u{E000}");
    }

    #[test]
    fn lowercase_hosts_keep_encoded_reserved_characters() {
        let p = Recode {
            lowercase: true,
            ..SYNTAX_URI
        };
        assert_eq!(run("ExAmPle%2ecom%2F%41", p), "example.com%2Fa");
    }
}
