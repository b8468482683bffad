//! Hosts whose labels UTS #46 keeps exactly as they are: told by a lookup per character, so
//! that such a host gets its two forms (RFC 3987 §3.1, §5.3.3) without running UTS #46.
//!
//! UTS #46 processing (§4: map, normalize, break into labels, convert and validate) leaves
//! a label unchanged when every character is _valid_ (mapped to itself), it is in NFC, and
//! it passes the validity criteria (§4.1): no hyphen first or last (the `CheckFirstLast`
//! policy of [`crate::iri::host`]), no combining mark first (V5), no joiner needing context
//! (V7), and, in a Bidi domain name (one with a right-to-left character: Bidi_Class R, AL
//! or AN), the Bidi rule of RFC 5893 §2 in every label (V8). A label that starts with
//! `xn--` is Punycode (RFC 3492): UTS #46 decodes it and holds the result to the same
//! criteria. [`write_kept_forms`] checks exactly that, label by label:
//!
//! * each non-ASCII character is in [`KEPT`](super::ulabel_table::KEPT), the code points
//!   that UTS #46 (in the `idna` crate, with the settings of [`crate::iri::host`]) keeps as
//!   they are between two letters of their direction, minus the two joiners; the table is
//!   written from the `idna` crate by a test, and checked against it for every code point
//!   by another;
//! * each ASCII character is a lowercase letter, a digit or a hyphen (STD3 rules, and no
//!   case to fold);
//! * a label is not empty, has no hyphen first or last, and does not start with a
//!   combining mark (General_Category M); one that is not ASCII does not start with `xn--`,
//!   and passes the NFC quick check (UAX #15 §9) with the answer _yes_;
//! * an ASCII label that starts with `xn--` decodes, as lowercase Punycode, to such a label
//!   that is not ASCII (lowercase Punycode decodes one to one, so the A-label is that
//!   label's own);
//! * where a label (decoded) holds a right-to-left character, every label of the host
//!   passes the Bidi rule ([`bidi_rule`]).
//!
//! Such a host is its own U-label form but for its A-labels, which are written decoded; its
//! A-label form has each non-ASCII label as `xn--` and its Punycode. Every other host (an
//! uppercase letter, a mapped character, the root label, anything in doubt) runs UTS #46.

use super::find::find;
use super::punycode;
use super::ulabel_table::KEPT;
use idna_adapter::{
    Adapter, FIRST_BC_MASK, LAST_LTR_MASK, LAST_RTL_MASK, MIDDLE_LTR_MASK, MIDDLE_RTL_MASK,
    RTL_MASK,
};
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
    let adapter = Adapter::new();
    // `bidi` from the label whose index is `first_bidi` on (a right-to-left one seen).
    let (mut index, mut bidi, mut first_bidi, mut a_labels_hold) = (0, false, 0, true);
    let ok = every_label(host, |label| {
        if index > 0 {
            if let Some(u) = unicode.as_deref_mut() {
                u.push('.');
            }
            ascii.push('.');
        }
        let kept = write_label(label, &adapter, bidi, unicode.as_deref_mut(), ascii);
        let Some(kept) = kept else {
            return false;
        };
        if kept.right_to_left && !bidi {
            (bidi, first_bidi) = (true, index);
        }
        a_labels_hold &= kept.bidi_rule != Some(false);
        index += 1;
        true
    });
    // UTS #46 §4.1 V8: in a Bidi domain name, every label holds to the Bidi rule. The
    // A-labels from the first right-to-left label on were held to it as they were decoded;
    // those before it are decoded again.
    let ok = ok
        && (!bidi
            || a_labels_hold && {
                let mut index = 0;
                every_label(host, |label| {
                    index += 1;
                    match label.strip_prefix("xn--") {
                        Some(_) if index > first_bidi => true,
                        Some(payload) => a_label_holds_bidi_rule(payload, &adapter),
                        None => bidi_rule(label.chars(), &adapter),
                    }
                })
            });
    if !ok {
        if let (Some(u), Some(len)) = (unicode, marks.0) {
            u.truncate(len);
        }
        ascii.truncate(marks.1);
    }
    ok
}

/// Whether `f` holds for every label of `host` (the text between its dots).
fn every_label(host: &str, mut f: impl FnMut(&str) -> bool) -> bool {
    let mut rest = host;
    loop {
        // `.` is ASCII: the cuts are character boundaries.
        let dot = find(b'.', rest.as_bytes());
        if !f(&rest[..dot.unwrap_or(rest.len())]) {
            return false;
        }
        let Some(dot) = dot else { return true };
        rest = &rest[dot + 1..];
    }
}

/// What [`write_label`] found of a label UTS #46 keeps as it is (up to the Bidi rule).
struct KeptLabel {
    /// It holds a right-to-left character: the host is a Bidi domain name.
    right_to_left: bool,
    /// For an A-label decoded once the host was known to be a Bidi domain name (by it or by
    /// a label before it), whether its characters hold to the Bidi rule, told while they
    /// are at hand; `None` for every other label (where the rule does not matter, or is
    /// told later).
    bidi_rule: Option<bool>,
}

impl KeptLabel {
    /// A label whose Bidi rule is not told here.
    fn untold(right_to_left: bool) -> KeptLabel {
        KeptLabel {
            right_to_left,
            bidi_rule: None,
        }
    }
}

/// [`write_kept_forms`] for one label: `Some` if UTS #46 keeps it as it is (up to the Bidi
/// rule); `None` otherwise. `bidi`: a label before it holds a right-to-left character.
fn write_label(
    label: &str,
    adapter: &Adapter,
    bidi: bool,
    unicode: Option<&mut String>,
    ascii: &mut String,
) -> Option<KeptLabel> {
    if label.is_ascii() {
        let b = label.as_bytes();
        if let Some(payload) = b.strip_prefix(b"xn--") {
            return write_a_label(label, payload, adapter, bidi, unicode, ascii);
        }
        if !is_ldh_label(b) {
            return None;
        }
        if let Some(u) = unicode {
            u.push_str(label);
        }
        ascii.push_str(label);
        return Some(KeptLabel::untold(false));
    }
    let mut buf = ['\0'; MAX_DECODED];
    let mut n = 0;
    for c in label.chars() {
        if n == MAX_DECODED {
            return None;
        }
        buf[n] = c;
        n += 1;
    }
    let chars = &buf[..n];
    let right_to_left = kept_u_label(chars, adapter)?;
    if let Some(u) = unicode {
        u.push_str(label);
    }
    ascii.push_str("xn--");
    punycode::encode(chars, ascii).then_some(KeptLabel::untold(right_to_left))
}

/// [`write_label`] for an A-label (`xn--` and `payload`): kept if it decodes to a kept
/// label that is not ASCII (whose Punycode is then `payload` itself).
fn write_a_label(
    label: &str,
    payload: &[u8],
    adapter: &Adapter,
    bidi: bool,
    unicode: Option<&mut String>,
    ascii: &mut String,
) -> Option<KeptLabel> {
    let mut buf = ['\0'; MAX_DECODED];
    let n = punycode::decode(payload, &mut buf)?;
    let chars = &buf[..n];
    if chars.iter().all(char::is_ascii) {
        return None;
    }
    let right_to_left = kept_u_label(chars, adapter)?;
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
    Some(KeptLabel {
        right_to_left,
        bidi_rule: (bidi || right_to_left).then(|| bidi_rule(chars.iter().copied(), adapter)),
    })
}

/// Whether an A-label of a kept host (`xn--` and `payload`, which decodes: it was kept by
/// [`write_a_label`]) holds to the Bidi rule once decoded.
fn a_label_holds_bidi_rule(payload: &str, adapter: &Adapter) -> bool {
    let mut buf = ['\0'; MAX_DECODED];
    punycode::decode(payload.as_bytes(), &mut buf)
        .is_some_and(|n| bidi_rule(buf[..n].iter().copied(), adapter))
}

/// Whether `b`, an ASCII label that does not start with `xn--`, is one UTS #46 keeps: `a-z`,
/// `0-9` and `-`, not empty, no hyphen first or last.
fn is_ldh_label(b: &[u8]) -> bool {
    matches!((b.first(), b.last()), (Some(&f), Some(&l)) if f != b'-' && l != b'-')
        && b.iter()
            .all(|&c| matches!(c, b'a'..=b'z' | b'0'..=b'9' | b'-'))
}

/// Whether a label that is not ASCII is one UTS #46 keeps (up to the Bidi rule): not
/// starting with `xn--`, no hyphen first or last, no combining mark first, every character
/// kept ([`kept_char`]), and in NFC (told by the table where every character is simple,
/// else by the NFC quick check). `Some` if so, telling whether it holds a right-to-left
/// character.
fn kept_u_label(chars: &[char], adapter: &Adapter) -> Option<bool> {
    let (&first, &last) = (chars.first()?, chars.last()?);
    if first == '-' || last == '-' || chars.starts_with(&['x', 'n', '-', '-']) {
        return None;
    }
    if adapter.is_mark(first) {
        return None;
    }
    let (mut simple, mut right_to_left) = (true, false);
    for &c in chars {
        simple &= kept_char(c)?;
        right_to_left |= is_right_to_left(c, adapter);
    }
    (simple || is_nfc_quick(chars.iter().copied()) == IsNormalized::Yes).then_some(right_to_left)
}

/// Whether `c` is of Bidi_Class R, AL or AN, which makes a domain name a Bidi domain name
/// (RFC 5893 §1.4). The ranges where no such character lies (checked by a test for every
/// code point) are told without a lookup: below Hebrew, from Devanagari to just before the
/// Hebrew presentation forms (but for the right-to-left mark, U+200F), and the
/// supplementary blocks between the right-to-left ones.
#[inline]
fn is_right_to_left(c: char, adapter: &Adapter) -> bool {
    let u = c as u32;
    if u < 0x0590
        || (0x0900..=0xFB1C).contains(&u) && u != 0x200F
        || (0x11000..=0x1E7FF).contains(&u)
    {
        return false;
    }
    adapter.bidi_class(c).to_mask().intersects(RTL_MASK)
}

/// Whether a label of a kept host, as its characters (an A-label's decoded), holds to the
/// Bidi rule of RFC 5893 §2: it starts with a character of Bidi_Class L (a left-to-right
/// label) or R or AL (a right-to-left one); its other characters are of the classes its
/// direction allows; its last character that is not a non-spacing mark ends it as its
/// direction allows; and a right-to-left label does not hold both European (EN) and Arabic
/// (AN) digits.
fn bidi_rule(mut chars: impl DoubleEndedIterator<Item = char>, adapter: &Adapter) -> bool {
    let Some(first) = chars.next().map(|c| adapter.bidi_class(c)) else {
        return false;
    };
    if !first.to_mask().intersects(FIRST_BC_MASK) {
        return false;
    }
    let ltr = first.is_ltr();
    let (last_mask, middle_mask) = if ltr {
        (LAST_LTR_MASK, MIDDLE_LTR_MASK)
    } else {
        (LAST_RTL_MASK, MIDDLE_RTL_MASK)
    };
    // From the end: non-spacing marks, then the last character, then the middle.
    let mut back = chars
        .rev()
        .map(|c| adapter.bidi_class(c))
        .skip_while(|class| class.is_nonspacing_mark());
    let Some(last) = back.next() else {
        return true;
    };
    if !last.to_mask().intersects(last_mask) {
        return false;
    }
    let (mut european, mut arabic) = (last.is_european_number(), last.is_arabic_number());
    for class in back {
        if !class.to_mask().intersects(middle_mask) {
            return false;
        }
        european |= class.is_european_number();
        arabic |= class.is_arabic_number();
    }
    ltr || !(european && arabic)
}

/// Whether `c` is known to be _simple_ (Canonical_Combining_Class 0 and NFC_Quick_Check
/// _yes_): ASCII, or a simple code point of [`KEPT`]. A text of such characters is in NFC
/// (UAX #15 §9), whatever their order; `false` says nothing.
#[inline]
pub(crate) fn is_simple(c: char) -> bool {
    c.is_ascii() || kept_char(c) == Some(true)
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
    /// two letters of its direction (`a`, or the Hebrew alef where `c` is right-to-left),
    /// and `c` is not a joiner: membership in [`KEPT`].
    fn kept_by_uts46(c: char) -> bool {
        if c.is_ascii() || matches!(c, '\u{200C}' | '\u{200D}') {
            return false;
        }
        let rtl = Adapter::new().bidi_class(c).to_mask().intersects(RTL_MASK);
        let letter = if rtl { '\u{5D0}' } else { 'a' };
        let text = format!("{letter}{c}{letter}");
        uts46(&text, true).is_some_and(|unicode| unicode == text)
    }

    #[test]
    fn simple_characters_have_class_0_and_nfc_quick_check_yes() {
        for c in (0..=0x10FFFF)
            .filter_map(char::from_u32)
            .filter(|&c| is_simple(c))
        {
            assert!(simple(c), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn right_to_left_is_told_as_the_bidi_class_tells_it() {
        let adapter = Adapter::new();
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let rtl = adapter.bidi_class(c).to_mask().intersects(RTL_MASK);
            assert_eq!(is_right_to_left(c, &adapter), rtl, "U+{:04X}", c as u32);
        }
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
            "//! The code points UTS #46 keeps as they are in a label, no joiner among them\n\
             //! ([`super::ulabel`]): ranges, first and last, in order, each with \
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
            // Bidi domain names whose labels hold to the Bidi rule.
            "מילון.il",
            "مصر.xn--wgbh1c",
            "www.בית.org",
            "מ1.il",
            "ספר\u{5B0}.il",
            "كتاب٣.com",
            "xn--4dbrk0ce.a1",
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
            "1מילון.il",         // Bidi rule: a digit first
            "מילון.1a",          // Bidi rule: a digit first, in a Bidi domain name
            "מילוןa.il",         // Bidi rule: left-to-right in a right-to-left label
            "a٣b.com",           // Bidi rule: an Arabic digit in a left-to-right label
            "م1٣.com",           // Bidi rule: European and Arabic digits together
            "מ-.il",             // hyphen last
            "a\u{200D}b.de",     // a joiner
            "ｂücher.de",        // fullwidth: mapped
            "bücher。de",        // an ideographic full stop: mapped
            "a_b.de",            // STD3
            "\u{FFFD}.de",       // disallowed
        ];
        for host in not_kept {
            assert!(!assert_kept_as_uts46_keeps(host), "{host}");
        }
        // A mark first, or against the Bidi rule, once decoded.
        for label in ["מילוןa", "\u{301}a"] {
            let host = format!("xn--{}.de", idna::punycode::encode_str(label).unwrap());
            assert!(!assert_kept_as_uts46_keeps(&host), "{host}");
        }
        // A-labels before, at and after the first right-to-left label of a Bidi domain
        // name (told in the second pass, or as they are decoded): kept where they hold to
        // the Bidi rule. `1ü` holds to it only outside a Bidi domain name (a digit first).
        let a = |label: &str| format!("xn--{}", idna::punycode::encode_str(label).unwrap());
        for (host, keeps) in [
            (format!("{}.מילון", a("bücher")), true),
            (format!("מילון.{}", a("bücher")), true),
            (
                format!("{}.{}.{}", a("bücher"), a("מילון"), a("bücher")),
                true,
            ),
            (format!("{}.de", a("1ü")), true),
            (format!("{}.מילון", a("1ü")), false),
            (format!("מילון.{}", a("1ü")), false),
            (format!("{}.{}", a("1ü"), a("מילון")), false),
            (format!("{}.{}", a("מילון"), a("1ü")), false),
            (format!("{}.{}.il", a("bücher"), a("1מילון")), false),
        ] {
            assert_eq!(assert_kept_as_uts46_keeps(&host), keeps, "{host}");
        }
    }

    /// Checks 20,000 hosts made of `alphabet` (and each again with A-labels) against UTS
    /// #46; returns how many were kept, and how many of those are Bidi domain names.
    fn check_generated_hosts(alphabet: &str, seed: u64) -> (usize, usize) {
        let alphabet: Vec<char> = alphabet.chars().collect();
        let adapter = Adapter::new();
        let mut rng = Rng(seed);
        let (mut kept, mut bidi) = (0, 0);
        for _ in 0..20_000 {
            let state = rng.next();
            let len = 1 + (state % 12) as usize;
            let host: String = (0..len)
                .map(|i| alphabet[((state >> (i % 12 * 5)) as usize + i * 7) % alphabet.len()])
                .collect();
            // And the host with each label that is not ASCII as an A-label.
            let a_labels: Vec<String> = host
                .split('.')
                .map(|l| match idna::punycode::encode_str(l) {
                    Some(p) if !l.is_ascii() => format!("xn--{p}"),
                    _ => l.to_owned(),
                })
                .collect();
            let is_bidi = host.chars().any(|c| is_right_to_left(c, &adapter));
            for host in [host.clone(), a_labels.join(".")] {
                if assert_kept_as_uts46_keeps(&host) {
                    kept += 1;
                    bidi += usize::from(is_bidi);
                }
            }
        }
        (kept, bidi)
    }

    #[test]
    fn generated_hosts_are_kept_only_where_uts46_keeps_them() {
        let (kept, _) = check_generated_hosts(
            "ab-09.éüßαжя中文한ไทยאבء٣\u{5B0}\u{301}\u{93E}\u{94D}\u{200C}Ａ。",
            0x9E37_79B9_7F4A_7C15,
        );
        // Not vacuous.
        assert!(kept > 2000, "{kept}");
    }

    /// Bidi domain names: right-to-left letters (R and AL), Arabic (AN) and European (EN)
    /// digits, a non-spacing mark, a hyphen, and a few left-to-right letters.
    #[test]
    fn generated_bidi_hosts_are_kept_only_where_uts46_keeps_them() {
        let (kept, bidi) =
            check_generated_hosts("אבגمصر٣٤\u{5B0}\u{64B}-1.ab", 0x2545_F491_4F6C_DD1D);
        // Not vacuous: some kept, some not.
        assert!(bidi > 2000 && kept < 30_000, "{kept} {bidi}");
    }
}
