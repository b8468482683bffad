//! Hosts whose labels UTS #46 keeps exactly as they are: told by a lookup per character, so
//! that such a host gets its two forms (RFC 3987 §3.1, §5.3.3) without running UTS #46.
//!
//! UTS #46 processing (§4: map, normalize, break into labels, convert and validate) leaves
//! a label unchanged when every character is _valid_ (mapped to itself), it is in NFC, and
//! it passes the validity criteria (§4.1): no hyphen first or last (the `CheckFirstLast`
//! policy of [`crate::iri::host`]), no combining mark first (V5), no joiner needing context
//! (V7), and no right-to-left character, so that the host is not a Bidi domain name and
//! the bidi rule of RFC 5893 (V8) does not apply. A label that starts with `xn--` is
//! Punycode (RFC 3492): UTS #46 decodes it and holds the result to the same criteria.
//! [`write_kept_forms`] checks exactly that, label by label:
//!
//! * each non-ASCII character is in [`KEPT`](super::ulabel_table::KEPT), the code points
//!   that UTS #46 (in the `idna` crate, with the settings of [`crate::iri::host`]) keeps as
//!   they are between two letters, minus those of Bidi_Class R, AL or AN and the two
//!   joiners; the table is written from the `idna` crate by a test, and checked against it
//!   for every code point by another;
//! * each ASCII character is a lowercase letter, a digit or a hyphen (STD3 rules, and no
//!   case to fold);
//! * a label is not empty, has no hyphen first or last, and does not start with a
//!   combining mark (General_Category M); one that is not ASCII does not start with `xn--`,
//!   and passes the NFC quick check (UAX #15 §9) with the answer _yes_;
//! * an ASCII label that starts with `xn--` decodes, as lowercase Punycode, to such a label
//!   that is not ASCII (lowercase Punycode decodes one to one, so the A-label is that
//!   label's own).
//!
//! Such a host is its own U-label form but for its A-labels, which are written decoded; its
//! A-label form has each non-ASCII label as `xn--` and its Punycode. Every other host (an
//! uppercase letter, a mapped or right-to-left character, the root label, anything in
//! doubt) runs UTS #46.

use super::find::find;
use super::punycode;
use super::ulabel_table::KEPT;
use unicode_normalization::{is_nfc_quick, IsNormalized};

/// The most code points an A-label decodes to here: an A-label is at most 63 octets, `xn--`
/// and at least one Punycode digit per code point.
const MAX_DECODED: usize = 63;

/// Writes the two forms of `host` (non-empty, percent-decoded) if UTS #46 keeps its labels
/// as they are (see the [module documentation](self)): the ToUnicode form to `unicode`,
/// when given, and the ToASCII form to `ascii`. Returns `false`, with both as they were,
/// otherwise: `false` means "not known", and UTS #46 is to run.
pub(crate) fn write_kept_forms(
    host: &str,
    mut unicode: Option<&mut String>,
    ascii: &mut String,
) -> bool {
    let marks = (unicode.as_deref().map(String::len), ascii.len());
    let adapter = idna_adapter::Adapter::new();
    let mut rest = host;
    let ok = loop {
        // `.` is ASCII: the cuts are character boundaries.
        let dot = find(b'.', rest.as_bytes());
        let label = &rest[..dot.unwrap_or(rest.len())];
        if !write_label(label, &adapter, unicode.as_deref_mut(), ascii) {
            break false;
        }
        let Some(dot) = dot else { break true };
        if let Some(u) = unicode.as_deref_mut() {
            u.push('.');
        }
        ascii.push('.');
        rest = &rest[dot + 1..];
    };
    if !ok {
        if let (Some(u), Some(len)) = (unicode, marks.0) {
            u.truncate(len);
        }
        ascii.truncate(marks.1);
    }
    ok
}

/// [`write_kept_forms`] for one label.
fn write_label(
    label: &str,
    adapter: &idna_adapter::Adapter,
    unicode: Option<&mut String>,
    ascii: &mut String,
) -> bool {
    if label.is_ascii() {
        let b = label.as_bytes();
        if let Some(payload) = b.strip_prefix(b"xn--") {
            return write_a_label(label, payload, adapter, unicode, ascii);
        }
        if !is_ldh_label(b) {
            return false;
        }
        if let Some(u) = unicode {
            u.push_str(label);
        }
        ascii.push_str(label);
        return true;
    }
    let mut buf = ['\0'; MAX_DECODED];
    let mut n = 0;
    for c in label.chars() {
        if n == MAX_DECODED {
            return false;
        }
        buf[n] = c;
        n += 1;
    }
    let chars = &buf[..n];
    if !is_kept_u_label(chars, adapter) {
        return false;
    }
    if let Some(u) = unicode {
        u.push_str(label);
    }
    ascii.push_str("xn--");
    punycode::encode(chars, ascii)
}

/// [`write_label`] for an A-label (`xn--` and `payload`): kept if it decodes to a kept
/// label that is not ASCII (whose Punycode is then `payload` itself).
fn write_a_label(
    label: &str,
    payload: &[u8],
    adapter: &idna_adapter::Adapter,
    unicode: Option<&mut String>,
    ascii: &mut String,
) -> bool {
    let mut buf = ['\0'; MAX_DECODED];
    let Some(n) = punycode::decode(payload, &mut buf) else {
        return false;
    };
    let chars = &buf[..n];
    if chars.iter().all(char::is_ascii) || !is_kept_u_label(chars, adapter) {
        return false;
    }
    // The payload is the label's own Punycode: decoding lowercase Punycode is one to one
    // (see `punycode::decode`), so encoding the label gives it back.
    debug_assert!({
        let mut again = String::new();
        punycode::encode(chars, &mut again) && again.as_bytes() == payload
    });
    if let Some(u) = unicode {
        u.extend(chars);
    }
    ascii.push_str(label);
    true
}

/// Whether `b`, an ASCII label that does not start with `xn--`, is one UTS #46 keeps: `a-z`,
/// `0-9` and `-`, not empty, no hyphen first or last.
fn is_ldh_label(b: &[u8]) -> bool {
    matches!((b.first(), b.last()), (Some(&f), Some(&l)) if f != b'-' && l != b'-')
        && b.iter()
            .all(|&c| matches!(c, b'a'..=b'z' | b'0'..=b'9' | b'-'))
}

/// Whether a label that is not ASCII is one UTS #46 keeps: not starting with `xn--`, no
/// hyphen first or last, no combining mark first, every character kept ([`kept_char`]),
/// and in NFC (told by the table where every character is simple, else by the NFC quick
/// check).
fn is_kept_u_label(chars: &[char], adapter: &idna_adapter::Adapter) -> bool {
    let (Some(&first), Some(&last)) = (chars.first(), chars.last()) else {
        return false;
    };
    if first == '-' || last == '-' || chars.starts_with(&['x', 'n', '-', '-']) {
        return false;
    }
    if adapter.is_mark(first) {
        return false;
    }
    let mut simple = true;
    for &c in chars {
        match kept_char(c) {
            Some(s) => simple &= s,
            None => return false,
        }
    }
    simple || is_nfc_quick(chars.iter().copied()) == IsNormalized::Yes
}

/// Whether `c` may stand in a kept label (`a-z`, `0-9`, `-`, or a code point of
/// [`KEPT`]), and if so whether it is simple (see [`KEPT`]). The Basic Multilingual Plane,
/// where nearly every label lives, is answered from two bitmaps made of [`KEPT`] at compile
/// time; the other planes by a binary search of it.
#[inline]
fn kept_char(c: char) -> Option<bool> {
    let u = c as u32;
    if u < 0x80 {
        return matches!(c, 'a'..='z' | '0'..='9' | '-').then_some(true);
    }
    if u < 0x10000 {
        let (word, bit) = ((u / 64) as usize, u % 64);
        let kept = BMP_KEPT[word] >> bit & 1 != 0;
        return kept.then_some(BMP_SIMPLE[word] >> bit & 1 != 0);
    }
    // The last range that starts at or before `c`.
    let i = KEPT.partition_point(|&(first, _, _)| first <= u);
    let (_, last, simple) = *KEPT.get(i.checked_sub(1)?)?;
    (u <= last).then_some(simple)
}

/// The code points below U+10000 of [`KEPT`] (`simple`: only its simple ones), one bit
/// each, bit `c % 64` of word `c / 64`.
const fn bmp_bitmap(simple: bool) -> [u64; 1024] {
    let mut map = [0u64; 1024];
    let mut i = 0;
    while i < KEPT.len() {
        let (first, last, is_simple) = KEPT[i];
        let mut c = first;
        while c <= last && c < 0x10000 {
            if is_simple || !simple {
                map[(c / 64) as usize] |= 1 << (c % 64);
            }
            c += 1;
        }
        i += 1;
    }
    map
}

/// [`bmp_bitmap`] of every kept code point.
static BMP_KEPT: [u64; 1024] = bmp_bitmap(false);
/// [`bmp_bitmap`] of the simple ones.
static BMP_SIMPLE: [u64; 1024] = bmp_bitmap(true);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iri::test_rng::Rng;
    use idna::uts46::{AsciiDenyList, ErrorPolicy, Hyphens, Uts46};

    /// Whether UTS #46 (with the settings of [`crate::iri::host`]) keeps `c` as it is between
    /// two letters, and `c` is neither right-to-left (R, AL, AN) nor a joiner: membership in
    /// [`KEPT`].
    fn kept_by_uts46(c: char) -> bool {
        if c.is_ascii() || matches!(c, '\u{200C}' | '\u{200D}') {
            return false;
        }
        let adapter = idna_adapter::Adapter::new();
        if adapter
            .bidi_class(c)
            .to_mask()
            .intersects(idna_adapter::RTL_MASK)
        {
            return false;
        }
        let text = format!("a{c}a");
        uts46(&text, true).is_some_and(|unicode| unicode == text)
    }

    /// Whether a kept code point is simple: Canonical_Combining_Class 0 and NFC_Quick_Check
    /// _yes_, so that a label of such code points is in NFC whatever their order.
    fn simple(c: char) -> bool {
        unicode_normalization::char::canonical_combining_class(c) == 0
            && is_nfc_quick(std::iter::once(c)) == IsNormalized::Yes
    }

    /// The ranges of [`KEPT`], from [`kept_by_uts46`] and [`simple`] over every code point.
    fn kept_ranges() -> Vec<(u32, u32, bool)> {
        let mut ranges: Vec<(u32, u32, bool)> = Vec::new();
        for c in (0x80..=0x10FFFF).filter_map(char::from_u32) {
            if kept_by_uts46(c) {
                let (u, simple) = (c as u32, simple(c));
                match ranges.last_mut() {
                    Some(r) if r.1 + 1 == u && r.2 == simple => r.1 = u,
                    _ => ranges.push((u, u, simple)),
                }
            }
        }
        ranges
    }

    /// The text of `ulabel_table.rs` for `ranges`.
    fn table_source(ranges: &[(u32, u32, bool)]) -> String {
        let mut s = String::from(
            "//! The code points UTS #46 keeps as they are in a label, none right-to-left and \
             no joiner\n//! ([`super::ulabel`]): ranges, first and last, in order, each with \
             whether its code points\n//! are simple (Canonical_Combining_Class 0, \
             NFC_Quick_Check yes). Written by the test\n//! `ulabel::tests::write_the_table` \
             from the `idna` and `unicode-normalization` crates, which\n//! \
             `the_table_is_what_uts46_says` checks every code point against.\n\n\
             /// The ranges of [`super::ulabel`]'s kept code points.\n",
        );
        s.push_str(&format!(
            "#[rustfmt::skip]\npub(super) static KEPT: [(u32, u32, bool); {}] = [\n",
            ranges.len()
        ));
        for chunk in ranges.chunks(3) {
            let parts: Vec<String> = chunk
                .iter()
                .map(|(a, b, simple)| format!("(0x{a:05X}, 0x{b:05X}, {simple})"))
                .collect();
            s.push_str(&format!("    {},\n", parts.join(", ")));
        }
        s.push_str("];\n");
        s
    }

    const TABLE_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/iri/ulabel_table.rs");

    /// A new version of the `idna` crate may keep other code points: this test fails, and
    /// `cargo test -- --ignored write_the_table` writes the table again (a change of keys,
    /// to be pinned and written in the CHANGELOG like any other).
    #[test]
    fn the_table_is_what_uts46_says() {
        assert!(
            KEPT[..] == kept_ranges()[..],
            "src/iri/ulabel_table.rs is not what the idna crate says: run \
             `cargo test --lib -- --ignored write_the_table`"
        );
    }

    #[test]
    #[ignore = "writes src/iri/ulabel_table.rs"]
    fn write_the_table() {
        std::fs::write(TABLE_PATH, table_source(&kept_ranges())).unwrap();
    }

    /// `host` as UTS #46 (with the settings of [`crate::iri::host`]) writes it, in its
    /// ToUnicode form or its ToASCII form, or `None` where it fails.
    fn uts46(host: &str, unicode: bool) -> Option<String> {
        let mut out = String::new();
        let result = Uts46::new().process(
            host.as_bytes(),
            AsciiDenyList::STD3,
            Hyphens::CheckFirstLast,
            ErrorPolicy::FailFast,
            |_, _, _| unicode,
            &mut out,
            None,
        );
        match result {
            Ok(idna::uts46::ProcessingSuccess::Passthrough) => Some(host.to_owned()),
            Ok(idna::uts46::ProcessingSuccess::WroteToSink) => Some(out),
            Err(_) => None,
        }
    }

    /// Both forms of `host` as UTS #46 gives them, or `None` where it fails.
    fn uts46_forms(host: &str) -> Option<(String, String)> {
        Some((uts46(host, true)?, uts46(host, false)?))
    }

    /// Checks `host` against UTS #46: kept only with the forms it gives. Returns whether
    /// it was kept.
    fn assert_kept_as_uts46_keeps(host: &str) -> bool {
        let (mut unicode, mut ascii) = (String::from("u:"), String::from("a:"));
        let kept = write_kept_forms(host, Some(&mut unicode), &mut ascii);
        let mut alone = String::from("a:");
        assert_eq!(write_kept_forms(host, None, &mut alone), kept, "{host}");
        assert_eq!(alone, ascii, "{host}");
        if kept {
            let forms = (unicode[2..].to_owned(), ascii[2..].to_owned());
            assert_eq!(uts46_forms(host), Some(forms), "{host}");
        } else {
            assert_eq!((unicode.as_str(), ascii.as_str()), ("u:", "a:"), "{host}");
        }
        kept
    }

    #[test]
    fn kept_hosts_are_what_uts46_gives_back() {
        let kept = [
            "bücher.example",
            "例え.テスト",
            "мойдомен.рф",
            "ไทย.com",
            "한국어.kr",
            "αβγ-δ.gr",
            "a1.b2-c.中文",
            "straße.de",
            "xn--bcher-kva.example",
            "xn--r8jz45g.xn--zckzah",
        ];
        for host in kept {
            assert!(assert_kept_as_uts46_keeps(host), "{host}");
        }
        let not_kept = [
            "Bücher.example",    // uppercase: mapped
            "bu\u{308}cher.de",  // not NFC
            "\u{301}a.de",       // a combining mark first
            "XN--bcher-kva.de",  // uppercase: mapped
            "xn--bcher-KVA.de",  // uppercase Punycode
            "xn--abc.de",        // decodes to ASCII
            "xn--.de",           // decodes to nothing
            "xn--zz.de",         // not Punycode
            "xn--bcher-kva-.de", // hyphen last
            "-bücher.de",        // hyphen first
            "bücher-.de",        // hyphen last
            "bücher..de",        // an empty label
            "bücher.de.",        // the root label
            "מילון.il",          // right-to-left
            "a\u{200D}b.de",     // a joiner
            "ｂücher.de",        // fullwidth: mapped
            "bücher。de",        // an ideographic full stop: mapped
            "a_b.de",            // STD3
            "\u{FFFD}.de",       // disallowed
        ];
        for host in not_kept {
            assert!(!assert_kept_as_uts46_keeps(host), "{host}");
        }
        // Right-to-left, or a mark first, once decoded.
        for label in ["מילון", "\u{301}a"] {
            let host = format!("xn--{}.de", idna::punycode::encode_str(label).unwrap());
            assert!(!assert_kept_as_uts46_keeps(&host), "{host}");
        }
    }

    #[test]
    fn generated_hosts_are_kept_only_where_uts46_keeps_them() {
        let alphabet: Vec<char> = "ab-09.éüßαжя中文한ไทยאء\u{301}\u{93E}\u{94D}\u{200C}Ａ。"
            .chars()
            .collect();
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut kept = 0;
        for _ in 0..20_000 {
            let state = rng.next();
            let len = 1 + (state % 12) as usize;
            let host: String = (0..len)
                .map(|i| alphabet[((state >> (i % 12 * 5)) as usize + i * 7) % alphabet.len()])
                .collect();
            kept += usize::from(assert_kept_as_uts46_keeps(&host));
            // And the host with each label that is not ASCII as an A-label.
            let a_labels: Vec<String> = host
                .split('.')
                .map(|l| match idna::punycode::encode_str(l) {
                    Some(p) if !l.is_ascii() => format!("xn--{p}"),
                    _ => l.to_owned(),
                })
                .collect();
            kept += usize::from(assert_kept_as_uts46_keeps(&a_labels.join(".")));
        }
        // Not vacuous.
        assert!(kept > 2000, "{kept}");
    }
}
