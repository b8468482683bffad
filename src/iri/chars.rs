//! Character classes of RFC 3986 §2 and RFC 3987 §2.2, and the bidi formatting characters
//! of RFC 3987 §4.1.
//!
//! ASCII classes are answered from one 256-entry table of bit flags, so the hot loops ask one
//! load and one mask per byte. Non-ASCII classes are range checks on code points, written
//! exactly as the ABNF of RFC 3987 §2.2 lists them.

use crate::iri::find::find_non_ascii;

/// `unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"` (RFC 3986 §2.3).
pub const UNRESERVED: u8 = 1 << 0;
/// `sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="` (RFC 3986 §2.2).
pub const SUB_DELIM: u8 = 1 << 1;
/// `gen-delims = ":" / "/" / "?" / "#" / "[" / "]" / "@"` (RFC 3986 §2.2).
pub const GEN_DELIM: u8 = 1 << 2;
/// `HEXDIG` (RFC 5234 B.1), either case.
pub const HEX: u8 = 1 << 3;
/// Printable ASCII that URIs never allow: space `"` `<` `>` `\` `^` backtick `{` `|` `}`
/// (RFC 3987 §3.1 lists these as the ones a lenient mapping may percent-encode).
pub const FORBIDDEN_PRINTABLE: u8 = 1 << 4;
/// ASCII control characters: U+0000–U+001F and U+007F.
pub const CONTROL: u8 = 1 << 5;
/// `scheme` characters after the first: `ALPHA / DIGIT / "+" / "-" / "."` (RFC 3986 §3.1).
pub const SCHEME: u8 = 1 << 6;

const fn build_table() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        let mut f = 0u8;
        let alpha = b.is_ascii_alphabetic();
        let digit = b.is_ascii_digit();
        if alpha || digit || b == b'-' || b == b'.' || b == b'_' || b == b'~' {
            f |= UNRESERVED;
        }
        if matches!(
            b,
            b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
        ) {
            f |= SUB_DELIM;
        }
        if matches!(b, b':' | b'/' | b'?' | b'#' | b'[' | b']' | b'@') {
            f |= GEN_DELIM;
        }
        if b.is_ascii_hexdigit() {
            f |= HEX;
        }
        if matches!(
            b,
            b' ' | b'"' | b'<' | b'>' | b'\\' | b'^' | b'`' | b'{' | b'|' | b'}'
        ) {
            f |= FORBIDDEN_PRINTABLE;
        }
        if b < 0x20 || b == 0x7f {
            f |= CONTROL;
        }
        if alpha || digit || b == b'+' || b == b'-' || b == b'.' {
            f |= SCHEME;
        }
        t[i] = f;
        i += 1;
    }
    t
}

/// The class flags of every byte value; non-ASCII bytes have no flags.
pub static ASCII_CLASS: [u8; 256] = build_table();

/// Whether byte `b` has any of the class flags in `mask`.
#[inline]
pub const fn is(b: u8, mask: u8) -> bool {
    ASCII_CLASS[b as usize] & mask != 0
}

/// `unreserved` (RFC 3986 §2.3).
#[inline]
pub fn is_unreserved(b: u8) -> bool {
    is(b, UNRESERVED)
}

/// `ucschar` of RFC 3987 §2.2, exactly as the ABNF lists it.
#[inline]
pub fn is_ucschar(c: char) -> bool {
    let c = c as u32;
    // The first range holds the letters of most scripts in use: answered first.
    if c <= 0xD7FF {
        return c >= 0xA0;
    }
    matches!(c,
        0xA0..=0xD7FF | 0xF900..=0xFDCF | 0xFDF0..=0xFFEF
        | 0x10000..=0x1FFFD | 0x20000..=0x2FFFD | 0x30000..=0x3FFFD
        | 0x40000..=0x4FFFD | 0x50000..=0x5FFFD | 0x60000..=0x6FFFD
        | 0x70000..=0x7FFFD | 0x80000..=0x8FFFD | 0x90000..=0x9FFFD
        | 0xA0000..=0xAFFFD | 0xB0000..=0xBFFFD | 0xC0000..=0xCFFFD
        | 0xD0000..=0xDFFFD | 0xE1000..=0xEFFFD)
}

/// `iprivate = %xE000-F8FF / %xF0000-FFFFD / %x100000-10FFFD` (RFC 3987 §2.2); allowed only
/// in the query.
pub fn is_iprivate(c: char) -> bool {
    let c = c as u32;
    matches!(c, 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD)
}

/// The bidirectional formatting characters that RFC 3987 §4.1 forbids in IRIs (LRM, RLM,
/// LRE, RLE, PDF, LRO, RLO), plus the isolates U+2066–U+2069, which serve the same purpose
/// and were added to Unicode after RFC 3987 was written.
pub fn is_bidi_format(c: char) -> bool {
    matches!(c as u32, 0x200E | 0x200F | 0x202A..=0x202E | 0x2066..=0x2069)
}

/// In [`HEX_VALUES`], a byte that is not a hex digit.
const NOT_HEX: u8 = 0xFF;

const fn build_hex_values() -> [u8; 256] {
    let mut t = [NOT_HEX; 256];
    let mut i = 0;
    while i < 16 {
        t[HEX_UPPER[i] as usize] = i as u8;
        t[HEX_UPPER[i].to_ascii_lowercase() as usize] = i as u8;
        i += 1;
    }
    t
}

/// The value of every `HEXDIG` (RFC 5234 B.1, either case, as RFC 3986 §2.1 allows),
/// [`NOT_HEX`] for the other bytes.
static HEX_VALUES: [u8; 256] = build_hex_values();

/// The value of one hex digit, or `None`.
#[inline]
pub fn hex_value(b: u8) -> Option<u8> {
    let v = HEX_VALUES[b as usize];
    (v != NOT_HEX).then_some(v)
}

/// The index of the first non-ASCII byte of `bytes` at or after `from`, or `bytes.len()`.
#[inline]
pub fn next_non_ascii(bytes: &[u8], from: usize) -> usize {
    find_non_ascii(&bytes[from..]).map_or(bytes.len(), |k| from + k)
}

/// The index of the first ASCII byte of `bytes` at or after `from`, or `bytes.len()`:
/// eight bytes at a time (a byte is ASCII where its high bit is clear), then one at a time.
#[inline]
pub fn next_ascii(bytes: &[u8], mut from: usize) -> usize {
    while let Some(chunk) = bytes.get(from..from + 8) {
        let ascii = !crate::iri::find::word(chunk) & crate::iri::find::HIGHS;
        if ascii != 0 {
            return from + (ascii.trailing_zeros() / 8) as usize;
        }
        from += 8;
    }
    bytes[from..]
        .iter()
        .position(u8::is_ascii)
        .map_or(bytes.len(), |k| from + k)
}

/// Uppercase hex digits, for writing `%XX`.
pub const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

#[cfg(test)]
mod tests {
    use super::*;

    /// `reserved = gen-delims / sub-delims` (RFC 3986 §2.2).
    fn is_reserved(b: u8) -> bool {
        is(b, GEN_DELIM | SUB_DELIM)
    }

    #[test]
    fn table_agrees_with_the_abnf() {
        let unreserved: Vec<u8> = (0u8..128).filter(|&b| is_unreserved(b)).collect();
        let expect: Vec<u8> =
            b"-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~".to_vec();
        assert_eq!(unreserved, expect);
        let reserved: Vec<u8> = (0u8..128).filter(|&b| is_reserved(b)).collect();
        assert_eq!(reserved, b"!#$&'()*+,/:;=?@[]".to_vec());
        let forbidden: Vec<u8> = (0u8..128).filter(|&b| is(b, FORBIDDEN_PRINTABLE)).collect();
        assert_eq!(forbidden, b" \"<>\\^`{|}".to_vec());
        // Every printable ASCII byte except '%' is exactly one of: unreserved, reserved,
        // forbidden.
        for b in 0x21u8..0x7f {
            let n =
                is_unreserved(b) as u8 + is_reserved(b) as u8 + is(b, FORBIDDEN_PRINTABLE) as u8;
            assert_eq!(n, (b != b'%') as u8, "byte {:?}", b as char);
        }
        for b in 128u16..256 {
            assert_eq!(ASCII_CLASS[b as usize], 0);
        }
    }

    #[test]
    fn next_non_ascii_finds_the_first_high_byte() {
        let text = "abcdefghij\u{e9}klmnopqrstuvw\u{6c34}xyz0123456789日本語のテキストa\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}";
        let bytes = text.as_bytes();
        for from in 0..=bytes.len() {
            let expect = bytes[from..]
                .iter()
                .position(|&b| b >= 0x80)
                .map_or(bytes.len(), |k| from + k);
            assert_eq!(next_non_ascii(bytes, from), expect, "from {from}");
            let expect = bytes[from..]
                .iter()
                .position(u8::is_ascii)
                .map_or(bytes.len(), |k| from + k);
            assert_eq!(next_ascii(bytes, from), expect, "from {from}");
        }
    }

    #[test]
    fn hex_values_agree_with_the_standard_library() {
        for b in 0..=255u8 {
            let expect = char::from(b).to_digit(16).map(|v| v as u8);
            assert_eq!(hex_value(b), expect, "byte {b:#04x}");
        }
    }

    #[test]
    fn ucschar_edges() {
        for (c, yes) in [
            ('\u{9F}', false),
            ('\u{A0}', true),
            ('\u{D7FF}', true),
            ('\u{E000}', false),
            ('\u{F8FF}', false),
            ('\u{F900}', true),
            ('\u{FDCF}', true),
            ('\u{FDD0}', false),
            ('\u{FDEF}', false),
            ('\u{FDF0}', true),
            ('\u{FFEF}', true),
            ('\u{FFF0}', false),
            ('\u{1FFFD}', true),
            ('\u{1FFFE}', false),
            ('\u{E0000}', false),
            ('\u{E0FFF}', false),
            ('\u{E1000}', true),
            ('\u{EFFFD}', true),
            ('\u{F0000}', false),
        ] {
            assert_eq!(is_ucschar(c), yes, "U+{:04X}", c as u32);
        }
        assert!(is_iprivate('\u{E000}'));
        assert!(is_iprivate('\u{10FFFD}'));
        assert!(!is_iprivate('\u{10FFFE}'));
        for c in [
            '\u{200E}', '\u{200F}', '\u{202A}', '\u{202E}', '\u{2066}', '\u{2069}',
        ] {
            assert!(is_bidi_format(c));
        }
        assert!(!is_bidi_format('\u{2065}'));
        assert!(!is_bidi_format('\u{202F}'));
    }
}
