//! The tsv escapes (SPEC §6): the table of the bytes a tsv field escapes, the scan that
//! finds them and the writer of an escaped field; and the copy of a field that the
//! operation promises needs no escape, in tsv or JSON. (JSON escaping is the ladder's:
//! `crate::ladder::json`.)

use crate::ladder::json::{escape_table, first_where, push_escaped, EscapeTable};

/// Tsv fields: `\`, TAB, CR and NUL (`\0`: with `-0`, a NUL ends a row).
pub(super) const TSV_ESCAPES: EscapeTable = escape_table(
    &[(b'\\', b'\\'), (b'\t', b't'), (b'\r', b'r'), (0, b'0')],
    false,
);

/// Appends `bytes` as they are: a record, or its key, that the operation promises printable
/// ([`Row::passed`](super::Row::passed)), which holds none of the bytes `next` finds
/// (checked in debug builds).
#[inline]
pub(super) fn push_unescaped(
    out: &mut Vec<u8>,
    bytes: &[u8],
    next: impl Fn(&[u8]) -> Option<usize>,
) {
    debug_assert!(next(bytes).is_none(), "a printable record or key");
    out.extend_from_slice(bytes);
}

/// The index of the first byte of `bytes` that [`TSV_ESCAPES`] escapes.
#[inline]
pub(super) fn tsv_next(bytes: &[u8]) -> Option<usize> {
    first_where(bytes, |b| {
        (b == b'\\') | (b == b'\t') | (b == b'\r') | (b == 0)
    })
}

/// Appends a tsv field: `\` → `\\`, TAB → `\t`, CR → `\r`, NUL → `\0`, everything else as
/// it is.
pub(super) fn push_tsv_field(out: &mut Vec<u8>, field: &[u8]) {
    push_escaped(out, field, &TSV_ESCAPES, tsv_next);
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::ladder::json::{json_next, push_json_bytes, push_json_str, JSON_ESCAPES};
    use proptest::prelude::*;

    /// The JSON string body of `s` as serde_json writes it (the quotes taken off).
    fn reference_json_str(s: &str) -> String {
        let quoted = serde_json::to_string(s).unwrap();
        quoted[1..quoted.len() - 1].to_owned()
    }

    /// The input field of a jsonl record, spelled out: valid UTF-8 as serde_json escapes it,
    /// every other octet as `%XX`.
    pub(in crate::stream::output) fn reference_json_bytes(raw: &[u8]) -> String {
        let mut out = String::new();
        for piece in raw.utf8_chunks() {
            out.push_str(&reference_json_str(piece.valid()));
            for b in piece.invalid() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
        out
    }

    /// A tsv field escaped by the four replacements the format names, one after the other
    /// (the backslash first, so that the backslashes the others write stay single).
    pub(in crate::stream::output) fn reference_tsv(field: &[u8]) -> Vec<u8> {
        let replace = |bytes: Vec<u8>, from: u8, to: &[u8]| -> Vec<u8> {
            let pieces: Vec<&[u8]> = bytes.split(|&b| b == from).collect();
            pieces.join(to)
        };
        let field = replace(field.to_vec(), b'\\', b"\\\\");
        let field = replace(field, b'\t', b"\\t");
        let field = replace(field, b'\r', b"\\r");
        replace(field, 0, b"\\0")
    }

    /// Characters that the escapers treat apart, often, among any others.
    pub(in crate::stream::output) fn tricky_char() -> impl Strategy<Value = char> {
        prop_oneof![
            3 => prop::sample::select(vec![
                '"', '\\', '\n', '\r', '\t', '\u{8}', '\u{c}', '\0', '\u{1f}', '\u{7f}', ' ',
                '%', '/', 'a', 'Z', 'é', '\u{80}', '\u{2028}', '\u{2029}', '中', '😀',
            ]),
            1 => proptest::char::range('\0', '\u{1f}'),
            2 => any::<char>(),
        ]
    }

    /// Byte strings of tricky characters with stray octets (not UTF-8) among them.
    pub(in crate::stream::output) fn tricky_bytes() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            4 => tricky_char().prop_map(|c| c.to_string().into_bytes()),
            1 => any::<u8>().prop_map(|b| vec![b]),
        ];
        prop::collection::vec(piece, 0..48).prop_map(|p| p.concat())
    }

    proptest! {
        #[test]
        fn json_strings_are_escaped_as_serde_json_does(
            s in prop::collection::vec(tricky_char(), 0..48)
                .prop_map(|c| c.into_iter().collect::<String>()),
        ) {
            let mut out = b"prefix".to_vec();
            push_json_str(&mut out, &s);
            prop_assert_eq!(String::from_utf8(out).unwrap(), format!("prefix{}", reference_json_str(&s)));
        }

        #[test]
        fn json_bytes_and_tsv_fields_match_the_references(raw in tricky_bytes()) {
            let mut out = Vec::new();
            push_json_bytes(&mut out, &raw);
            prop_assert_eq!(String::from_utf8(out).unwrap(), reference_json_bytes(&raw));
            let mut out = Vec::new();
            push_tsv_field(&mut out, &raw);
            prop_assert_eq!(out, reference_tsv(&raw));
        }
    }

    #[test]
    fn block_scans_find_what_the_tables_escape() {
        // Every byte value at every place of strings of 1 to 40 bytes, among bytes that are
        // not escaped (ASCII and not), and after another byte that is.
        /// A scan, the table it must agree with, and a byte that table escapes.
        type Scan = (fn(&[u8]) -> Option<usize>, &'static EscapeTable, u8);
        let scans: [Scan; 2] = [
            (json_next, &JSON_ESCAPES, b'"'),
            (tsv_next, &TSV_ESCAPES, b'\t'),
        ];
        for (next, table, escaped) in scans {
            for b in 0..=255u8 {
                for len in 1..=40 {
                    for at in 0..len {
                        for filler in [b'a', 0x9F] {
                            let mut s = vec![filler; len];
                            s[at] = b;
                            let want = (table[usize::from(b)] != 0).then_some(at);
                            assert_eq!(next(&s), want, "{b:#04x} at {at} of {len}");
                            if at + 1 < len {
                                s[at + 1] = escaped;
                                assert_eq!(next(&s), Some(want.unwrap_or(at + 1)));
                            }
                        }
                    }
                }
            }
        }
    }
}
