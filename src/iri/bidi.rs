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
    let mut judge = |part: Part, piece: &str| {
        // An ASCII piece holds nothing right-to-left (a percent-encoding counts as written).
        if piece.is_ascii() {
            return;
        }
        if let Some(rule) = check_component(piece) {
            let start = piece.as_ptr() as usize - text.as_ptr() as usize;
            found.push(BidiViolation {
                part,
                range: start..start + piece.len(),
                rule,
            });
        }
    };
    if let Some(u) = iri.userinfo() {
        judge(Part::Userinfo, u);
    }
    if let (Some(h), HostKind::RegName) = (iri.host(), iri.host_kind()) {
        for label in h.split('.') {
            judge(Part::Host, label);
        }
    }
    for segment in iri.path().split('/') {
        for piece in segment.split('.') {
            judge(Part::Path, piece);
        }
    }
    if let Some(q) = iri.query() {
        for pair in q.split('&') {
            for piece in pair.split('=') {
                judge(Part::Query, piece);
            }
        }
    }
    if let Some(f) = iri.fragment() {
        judge(Part::Fragment, f);
    }
    found
}

/// Whether `c` is a right-to-left character (`Bidi_Class` R or AL): a record without one
/// has no component these rules judge.
pub fn is_right_to_left(c: char) -> bool {
    !c.is_ascii() && class(&idna_adapter::Adapter::new(), c) == Class::Rtl
}

/// Appends a warning of kind [`WarningKind::Bidi`] for every component of `iri` that breaks
/// a rule, its column the 1-based character column of the component in the text `iri` was
/// parsed from. Nothing is done for an ASCII text.
pub fn warnings(iri: &IriRef<'_>, out: &mut Vec<Warning>) {
    let text = iri.as_str();
    if text.is_ascii() {
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
    fn ip_literals_and_the_scheme_are_not_checked() {
        assert_eq!(violations("http://[2001:db8::1]/AB"), []);
        assert_eq!(violations("http://1.2.3.4/AB?x"), []);
    }
}
