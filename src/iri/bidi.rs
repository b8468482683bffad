//! The bidi structure of an IRI (RFC 3987 §4.2): checks, for warnings, that each component
//! that holds right-to-left characters reads unambiguously when displayed.
//!
//! RFC 3987 §4.2 gives two rules "for each component":
//!
//! 1. "A component SHOULD NOT use both right-to-left and left-to-right characters."
//! 2. "A component using right-to-left characters SHOULD start and end with right-to-left
//!    characters."
//!
//! They are SHOULDs, so a violation is a warning, never an error; nothing here changes a
//! key. [`check`] returns every violation of a parsed IRI reference, [`check_component`]
//! judges one component's text.
//!
//! # The reading chosen
//!
//! * **Characters** are classed by their Unicode `Bidi_Class` (the data the IDNA code uses):
//!   `R` and `AL` are right-to-left, `L` is left-to-right, `EN` and `AN` are numbers, and
//!   every other class (separators, punctuation, `%`, marks) is neutral.
//! * **Numbers and neutrals** may appear inside a right-to-left component (§4.4 example 7,
//!   `CDE123FGH`, is allowed; example 3 has `MN=OP;QR=ST` as a query), but not at its start
//!   or end: §4.4 example 8 (`GH1`, `2IJ`) is "not allowed", and so the first and last
//!   characters must be right-to-left (`R` or `AL`), an Arabic number (`AN`) included in the
//!   exclusion. Non-spacing marks (`NSM`) at the end are skipped, since they take the
//!   direction of the character they follow (a Hebrew letter with a vowel point).
//! * **Components without right-to-left characters** are not judged: §4.4 example 10 (a
//!   component `123`) is "allowed", and rule 2 only concerns components "using right-to-left
//!   characters".
//! * **Text as written**: the rules are about display, so a component is checked as it is
//!   written, percent-encodings included: the hex letters of `%D7` are left-to-right
//!   characters and its digits numbers. That is why §4.4 example 9 (`GH%31`, `%32IJ`) is
//!   "not allowed", like example 8.
//! * **Components**: the syntax rules §4.2 names (`iuserinfo`, `ireg-name`, `isegment`,
//!   `iquery`, `ifragment`), divided further where §4.2 says a specification or usage may:
//!   each label of a registered name (the RFC 3490 reading of host names; without it §4.4
//!   example 1, `ab.CDEFGH.ij`, would mix directions in one component), each `.`-separated
//!   part of a path segment (§4.2: "the extensions in a resource name can be treated as
//!   separate components"; without it the allowed example 4, `KL.html`, would not be), and
//!   each name and each value of an `&`-separated query (§4.2: "it is convenient to treat
//!   each name and each value as a component"). The userinfo and the fragment are one
//!   component each. The scheme and IP literals are ASCII by grammar and are not checked.
//!
//! The ladder reports violations as warnings of kind `bidi` ([`warnings`]) for every record
//! with non-ASCII text, and `check` does too; the fast path never copies through a record
//! with a right-to-left character ([`is_right_to_left`]), so it never hides one.
//!
//! Most non-ASCII text has no right-to-left character, so a byte walk first looks for the
//! first two UTF-8 bytes of one (the blocks Unicode reserves for right-to-left scripts); only
//! the components where it finds one are judged character by character.

use crate::iri::chars;
use crate::iri::error::{Warning, WarningKind};
use crate::iri::parse::{HostKind, IriRef};

/// The rule of RFC 3987 §4.2 that a component breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BidiRule {
    /// Rule 1: right-to-left and left-to-right characters in the same component.
    MixedDirections,
    /// Rule 2: a component with right-to-left characters that does not start or does not
    /// end with one.
    RtlEdges,
}

/// Which part of the IRI a component belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Part {
    /// The userinfo.
    Userinfo,
    /// A label of the host.
    Host,
    /// A part of a path segment.
    Path,
    /// A name or value of the query.
    Query,
    /// The fragment.
    Fragment,
}

/// One component that breaks a rule of RFC 3987 §4.2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BidiViolation {
    /// The part of the IRI the component is in.
    pub part: Part,
    /// The byte range of the component in the text the IRI was parsed from.
    pub range: std::ops::Range<usize>,
    /// The rule it breaks (rule 1 when it breaks both).
    pub rule: BidiRule,
}

/// The direction class of a character, for these rules.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Rtl,
    Ltr,
    Number,
    Mark,
    Neutral,
}

/// Code points outside these ranges are never right-to-left: the blocks where Unicode gives
/// `R` or `AL` as the default `Bidi_Class` (Hebrew to Arabic Extended-A, the Hebrew and
/// Arabic presentation forms, and the two supplementary right-to-left areas), which hold
/// every right-to-left character assigned so far and any assigned there later, and U+200F
/// RIGHT-TO-LEFT MARK. A test checks every code point against [`class`].
const RTL_RANGES: [(u32, u32); 6] = [
    (0x0590, 0x08FF),
    (0x200F, 0x200F),
    (0xFB1D, 0xFDFF),
    (0xFE70, 0xFEFF),
    (0x1_0800, 0x1_0FFF),
    (0x1_E800, 0x1_EFFF),
];

/// The first two bytes of the UTF-8 encoding of code point `cp` (at least U+0080).
const fn utf8_prefix(cp: u32) -> (u8, u8) {
    if cp < 0x800 {
        (0xC0 | (cp >> 6) as u8, 0x80 | (cp & 0x3F) as u8)
    } else if cp < 0x1_0000 {
        (0xE0 | (cp >> 12) as u8, 0x80 | ((cp >> 6) & 0x3F) as u8)
    } else {
        (0xF0 | (cp >> 18) as u8, 0x80 | ((cp >> 12) & 0x3F) as u8)
    }
}

/// For each UTF-8 lead byte (`0xC0 | i` at index `i`), a bit for each second byte
/// (`0x80 | bit`) that starts the encoding of a code point in [`RTL_RANGES`].
const fn build_rtl_prefixes() -> [u64; 64] {
    let mut t = [0u64; 64];
    let mut r = 0;
    while r < RTL_RANGES.len() {
        let (mut cp, last) = RTL_RANGES[r];
        while cp <= last {
            let (lead, second) = utf8_prefix(cp);
            t[(lead & 0x3F) as usize] |= 1 << (second & 0x3F);
            cp += 1;
        }
        r += 1;
    }
    t
}

/// The two-byte UTF-8 prefixes of the code points in [`RTL_RANGES`], by lead byte.
static RTL_PREFIXES: [u64; 64] = build_rtl_prefixes();

/// Whether a character whose UTF-8 encoding starts with the lead byte `lead` (at least
/// 0xC0) and the byte `next` may be right-to-left.
#[inline(always)]
fn starts_rtl_prefix(lead: u8, next: u8) -> bool {
    RTL_PREFIXES[(lead & 0x3F) as usize] >> (next & 0x3F) & 1 != 0
}

/// Whether `text` may hold a right-to-left character; `false` proves it holds none, and
/// so that no component in it breaks a rule of RFC 3987 §4.2. A byte walk, no decoding: a
/// right-to-left character is never ASCII, and the first two bytes of each other character
/// are looked up in [`RTL_PREFIXES`].
fn may_hold_rtl(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let lead = bytes[i];
        if lead < 0x80 {
            i = chars::next_non_ascii(bytes, i);
            continue;
        }
        // `lead` leads a character of two to four bytes, as many as its leading ones.
        if starts_rtl_prefix(lead, bytes[i + 1]) {
            return true;
        }
        i += lead.leading_ones() as usize;
    }
    false
}

fn class(adapter: &idna_adapter::Adapter, c: char) -> Class {
    if c.is_ascii() {
        return if c.is_ascii_alphabetic() {
            Class::Ltr
        } else if c.is_ascii_digit() {
            Class::Number
        } else {
            Class::Neutral
        };
    }
    let bc = adapter.bidi_class(c);
    if bc.is_ltr() {
        Class::Ltr
    } else if bc.is_european_number() || bc.is_arabic_number() {
        Class::Number
    } else if bc.to_mask().intersects(idna_adapter::RTL_MASK) {
        // RTL_MASK is R, AL and AN; AN was taken above.
        Class::Rtl
    } else if bc.is_nonspacing_mark() {
        Class::Mark
    } else {
        Class::Neutral
    }
}

/// Judges one component's text under RFC 3987 §4.2 (see the [module documentation](self)
/// for the reading): `None` when it keeps both rules.
pub fn check_component(text: &str) -> Option<BidiRule> {
    let adapter = idna_adapter::Adapter::new();
    // One pass, no allocation: whether the component has each direction, its first class,
    // and its last class that is not a non-spacing mark.
    let (mut rtl, mut ltr) = (false, false);
    let (mut first, mut last) = (None, None);
    for c in text.chars() {
        let class = class(&adapter, c);
        rtl |= class == Class::Rtl;
        ltr |= class == Class::Ltr;
        first.get_or_insert(class);
        if class != Class::Mark {
            last = Some(class);
        }
    }
    if !rtl {
        return None;
    }
    if ltr {
        return Some(BidiRule::MixedDirections);
    }
    if first == Some(Class::Rtl) && last == Some(Class::Rtl) {
        None
    } else {
        Some(BidiRule::RtlEdges)
    }
}

/// Every component of `iri` that breaks a rule of RFC 3987 §4.2, in order.
pub fn check(iri: &IriRef<'_>) -> Vec<BidiViolation> {
    let text = iri.as_str();
    let mut found = Vec::new();
    if !may_hold_rtl(text) {
        return found;
    }
    let mut judge = |part: Part, piece: &str| found.extend(violation(text, part, piece));
    let whole = |_| false;
    if let Some(u) = iri.userinfo() {
        for_each_rtl_piece(u, whole, |u| judge(Part::Userinfo, u));
    }
    if let (Some(h), HostKind::RegName) = (iri.host(), iri.host_kind()) {
        for_each_rtl_piece(h, |b| b == b'.', |label| judge(Part::Host, label));
    }
    let path_separator = |b| b == b'/' || b == b'.';
    for_each_rtl_piece(iri.path(), path_separator, |piece| judge(Part::Path, piece));
    if let Some(q) = iri.query() {
        let query_separator = |b| b == b'&' || b == b'=';
        for_each_rtl_piece(q, query_separator, |piece| judge(Part::Query, piece));
    }
    if let Some(f) = iri.fragment() {
        for_each_rtl_piece(f, whole, |f| judge(Part::Fragment, f));
    }
    found
}

/// The violation of `piece`, a component in `part` of `text`, if it breaks a rule.
fn violation(text: &str, part: Part, piece: &str) -> Option<BidiViolation> {
    let rule = check_component(piece)?;
    let start = piece.as_ptr() as usize - text.as_ptr() as usize;
    Some(BidiViolation {
        part,
        range: start..start + piece.len(),
        rule,
    })
}

/// Calls `f` on each piece of `part` between the ASCII bytes that `is_separator` accepts
/// (what splitting at each separator in turn gives) that may hold a right-to-left
/// character, in order: the others keep both rules of RFC 3987 §4.2. One byte walk, the
/// test of [`may_hold_rtl`] made on the way.
fn for_each_rtl_piece(part: &str, is_separator: impl Fn(u8) -> bool, mut f: impl FnMut(&str)) {
    let bytes = part.as_bytes();
    let (mut start, mut rtl) = (0, false);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b >= 0x80 {
            rtl |= starts_rtl_prefix(b, bytes[i + 1]);
            i += b.leading_ones() as usize;
            continue;
        }
        if is_separator(b) {
            if rtl {
                f(&part[start..i]);
            }
            (start, rtl) = (i + 1, false);
        }
        i += 1;
    }
    if rtl {
        f(&part[start..]);
    }
}

/// Whether `c` is a right-to-left character (`Bidi_Class` R or AL): a record without one
/// has no component these rules judge.
pub fn is_right_to_left(c: char) -> bool {
    if c.is_ascii() {
        return false;
    }
    let (lead, next) = utf8_prefix(c as u32);
    starts_rtl_prefix(lead, next) && class(&idna_adapter::Adapter::new(), c) == Class::Rtl
}

/// Appends a warning of kind [`WarningKind::Bidi`] for every component of `iri` that breaks
/// a rule, its column the 1-based character column of the component in the text `iri` was
/// parsed from. Nothing is done for an ASCII text.
pub fn warnings(iri: &IriRef<'_>, out: &mut Vec<Warning>) {
    let text = iri.as_str();
    if iri.is_known_ascii() || text.is_ascii() {
        return;
    }
    for v in check(iri) {
        let column = text[..v.range.start].chars().count() + 1;
        let message = match v.rule {
            BidiRule::MixedDirections => {
                "a component mixes right-to-left and left-to-right characters (RFC 3987 §4.2)"
            }
            BidiRule::RtlEdges => {
                "a component with right-to-left characters does not start and end with one \
                 (RFC 3987 §4.2)"
            }
        };
        out.push(Warning::new(WarningKind::Bidi, column, message));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An IRI from the Bidi Notation of RFC 3987 §4.4, where uppercase letters stand for
    /// right-to-left characters: here the Hebrew letters U+05D0 (A) to U+05E9 (Z).
    fn notation(s: &str) -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_uppercase() {
                    char::from_u32(0x05D0 + (c as u32 - 'A' as u32)).unwrap()
                } else {
                    c
                }
            })
            .collect()
    }

    fn violations(s: &str) -> Vec<(Part, String, BidiRule)> {
        let text = notation(s);
        let iri = IriRef::parse(&text).unwrap_or_else(|e| panic!("{s}: {e}"));
        check(&iri)
            .into_iter()
            .map(|v| (v.part, text[v.range].to_owned(), v.rule))
            .collect()
    }

    #[test]
    fn rfc3987_4_4_allowed_examples() {
        for s in [
            // Example 1: a single component with rtl characters.
            "http://ab.CDEFGH.ij/kl/mn/op.html",
            // Example 2: consecutive rtl components.
            "http://ab.CDE.FGH/ij/kl/mn/op.html",
            // Example 3: every component but the scheme is rtl.
            "http://AB.CD.EF/GH/IJ/KL?MN=OP;QR=ST#UV",
            // Example 4: several sequences of rtl components.
            "http://AB.CD.ef/gh/IJ/KL.html",
            // Example 5 and 6: rtl components of different kinds.
            "http://ab.cd.EF/GH/ij/kl.html",
            "http://ab.CD.EF/GH/IJ/kl.html",
            // Example 7: digits inside an rtl component.
            "http://ab.CDE123FGH.ij/kl/mn/op.html",
            // Example 10 ("allowed but not recommended"): a component of numbers only.
            "http://ab.CDEFGH.123/kl/mn/op.html",
        ] {
            assert_eq!(violations(s), [], "{s}");
        }
    }

    #[test]
    fn rfc3987_4_4_examples_not_allowed() {
        // Example 8: numbers at the start or end of an rtl component.
        let gh1 = notation("GH1");
        let ij2 = notation("2IJ");
        assert_eq!(
            violations("http://ab.cd.ef/GH1/2IJ/KL.html"),
            [
                (Part::Path, gh1, BidiRule::RtlEdges),
                (Part::Path, ij2, BidiRule::RtlEdges)
            ]
        );
        // Example 9: the same numbers percent-encoded; checked as written, the components
        // still end or start with a number.
        let gh = notation("GH%31");
        let ij = notation("%32IJ");
        assert_eq!(
            violations("http://ab.cd.ef/GH%31/%32IJ/KL.html"),
            [
                (Part::Path, gh, BidiRule::RtlEdges),
                (Part::Path, ij, BidiRule::RtlEdges)
            ]
        );
    }

    #[test]
    fn rule_1_mixed_directions() {
        // "A component SHOULD NOT use both right-to-left and left-to-right characters."
        assert_eq!(
            check_component(&notation("ABcD")),
            Some(BidiRule::MixedDirections)
        );
        assert_eq!(check_component(&notation("abc")), None);
        assert_eq!(check_component("123"), None);
        assert_eq!(check_component(""), None);
        let v = violations("http://u:ABc@ab.cdE.fg/?a=Bc&D=E#Fg");
        let parts: Vec<(Part, BidiRule)> = v.iter().map(|(p, _, r)| (*p, *r)).collect();
        assert_eq!(
            parts,
            [
                (Part::Userinfo, BidiRule::MixedDirections),
                (Part::Host, BidiRule::MixedDirections),
                (Part::Query, BidiRule::MixedDirections),
                (Part::Fragment, BidiRule::MixedDirections),
            ]
        );
    }

    #[test]
    fn rule_2_edges_and_the_allowances() {
        // Neutrals and numbers inside are allowed, not at the edges.
        assert_eq!(check_component(&notation("A-B_1C")), None);
        assert_eq!(check_component(&notation("-AB")), Some(BidiRule::RtlEdges));
        assert_eq!(check_component(&notation("AB~")), Some(BidiRule::RtlEdges));
        // An Arabic-Indic digit (AN) at the end is a number, not a right-to-left letter.
        assert_eq!(
            check_component("\u{0627}\u{0628}\u{0661}"),
            Some(BidiRule::RtlEdges)
        );
        assert_eq!(check_component("\u{0627}\u{0661}\u{0628}"), None);
        // A non-spacing mark after the last letter (Hebrew point qamats) is skipped.
        assert_eq!(check_component("\u{05D0}\u{05D1}\u{05B8}"), None);
        // A percent-encoding in an rtl component: its hex letters are left-to-right.
        assert_eq!(
            check_component("\u{05D0}\u{05D1}%D7%90\u{05D2}"),
            Some(BidiRule::MixedDirections)
        );
    }

    #[test]
    fn utf8_prefix_agrees_with_the_encoder() {
        for c in '\u{80}'..=char::MAX {
            let mut buf = [0u8; 4];
            let bytes = c.encode_utf8(&mut buf).as_bytes();
            assert_eq!(utf8_prefix(c as u32), (bytes[0], bytes[1]), "{c:?}");
        }
    }

    /// The prefilter is sound: every right-to-left character of the `Bidi_Class` data lies in
    /// [`RTL_RANGES`], is seen by [`may_hold_rtl`] and [`for_each_rtl_piece`] wherever it
    /// stands, and is one for [`is_right_to_left`].
    #[test]
    fn the_prefilter_sees_every_right_to_left_character() {
        let adapter = idna_adapter::Adapter::new();
        let mut count = 0;
        for c in (0..=char::MAX as u32).filter_map(char::from_u32) {
            if class(&adapter, c) != Class::Rtl {
                continue;
            }
            count += 1;
            let cp = c as u32;
            assert!(
                RTL_RANGES.iter().any(|&(lo, hi)| (lo..=hi).contains(&cp)),
                "U+{cp:04X}"
            );
            let text = format!("a{c}\u{e9}.b");
            assert!(may_hold_rtl(&text), "U+{cp:04X}");
            let mut pieces = Vec::new();
            for_each_rtl_piece(&text, |b| b == b'.', |p| pieces.push(p.to_owned()));
            assert_eq!(pieces, [format!("a{c}\u{e9}")], "U+{cp:04X}");
            assert!(is_right_to_left(c), "U+{cp:04X}");
        }
        // Hebrew, Arabic, Syriac, Thaana, N'Ko and the rest: thousands of characters.
        assert!(count > 3000, "{count}");
    }

    /// The prefilter lets through the blocks of scripts written left to right that the
    /// benchmarks and the corpora are full of, so a record in them costs one byte walk.
    #[test]
    fn the_prefilter_rejects_left_to_right_scripts() {
        for text in [
            "caf\u{e9}",
            "\u{3bd}\u{3b5}\u{3c1}\u{3cc}",
            "\u{432}\u{43e}\u{434}\u{430}",
            "\u{92a}\u{93e}\u{928}\u{940}",
            "\u{e19}\u{e49}\u{e33}",
            "\u{6c34}\u{5bb6}",
            "\u{bb3c}",
            "\u{2615}\u{1f35e}",
        ] {
            assert!(!may_hold_rtl(text), "{text}");
        }
        assert!(may_hold_rtl("ab\u{5d0}"));
        assert!(may_hold_rtl("\u{10900}"));
    }

    /// What [`check`] gave before the prefilter: every piece split out with `str::split`,
    /// each non-ASCII one judged by [`check_component`].
    fn check_reference(iri: &IriRef<'_>) -> Vec<BidiViolation> {
        let text = iri.as_str();
        let mut found = Vec::new();
        let mut judge = |part: Part, piece: &str| {
            if !piece.is_ascii() {
                found.extend(violation(text, part, piece));
            }
        };
        if let Some(u) = iri.userinfo() {
            judge(Part::Userinfo, u);
        }
        if let (Some(h), HostKind::RegName) = (iri.host(), iri.host_kind()) {
            h.split('.').for_each(|label| judge(Part::Host, label));
        }
        for segment in iri.path().split('/') {
            segment
                .split('.')
                .for_each(|piece| judge(Part::Path, piece));
        }
        if let Some(q) = iri.query() {
            for pair in q.split('&') {
                pair.split('=').for_each(|piece| judge(Part::Query, piece));
            }
        }
        if let Some(f) = iri.fragment() {
            judge(Part::Fragment, f);
        }
        found
    }

    /// Characters of every direction class, edges of the right-to-left blocks, separators
    /// and percent-encodings, for [`check_agrees_with_the_reference`].
    const PIECES: &[&str] = &[
        "a",
        "Z",
        "1",
        "-",
        "~",
        "%D7%90",
        "%31",
        ".",
        "/",
        "&",
        "=",
        ";",
        ":",
        "@",
        "?",
        "#",
        "\u{e9}",
        "\u{58f}",
        "\u{590}",
        "\u{5d0}",
        "\u{5b8}",
        "\u{627}",
        "\u{661}",
        "\u{6f1}",
        "\u{710}",
        "\u{780}",
        "\u{7c0}",
        "\u{800}",
        "\u{8a0}",
        "\u{8ff}",
        "\u{900}",
        "\u{928}",
        "\u{fb1d}",
        "\u{fdfc}",
        "\u{fe70}",
        "\u{feff}",
        "\u{ff21}",
        "\u{10800}",
        "\u{10900}",
        "\u{10fff}",
        "\u{1e900}",
        "\u{1f35e}",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        #[test]
        fn check_agrees_with_the_reference(
            userinfo in proptest::collection::vec(0..PIECES.len(), 0..6),
            host in proptest::collection::vec(0..PIECES.len(), 0..8),
            rest in proptest::collection::vec(0..PIECES.len(), 0..16),
            fragment in proptest::collection::vec(0..PIECES.len(), 0..6),
        ) {
            let pick = |ix: &Vec<usize>, leave_out: &[char]| {
                let text: String = ix.iter().map(|&i| PIECES[i]).collect();
                text.replace(leave_out, "")
            };
            let text = format!(
                "http://{}@{}/{}#{}",
                pick(&userinfo, &['/', '?', '#', '@']),
                pick(&host, &['/', '?', '#', '@', ':']),
                pick(&rest, &['#']),
                pick(&fragment, &['#']),
            );
            let iri = IriRef::parse(&text).unwrap();
            proptest::prop_assert_eq!(check(&iri), check_reference(&iri), "{}", text);
        }
    }

    #[test]
    fn ip_literals_and_the_scheme_are_not_checked() {
        assert_eq!(violations("http://[2001:db8::1]/AB"), []);
        assert_eq!(violations("http://1.2.3.4/AB?x"), []);
    }
}
