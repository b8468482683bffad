//! Unicode NFC of a record (RFC 3987 §3.1 step 1, §5.3.2.2: only with `--nfc`, for text
//! converted from non-Unicode or non-digital sources), applied so that it never creates or
//! removes a delimiter.

use crate::iri::ulabel;
use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

/// Appends the NFC of `text` to `out`, one run at a time between the ASCII characters that
/// are not letters or digits and the `%XX` triplets, which are kept as they are: a combining
/// mark never composes with a delimiter or a hex digit (`=` + U+0338 would become `≠`, a
/// reserved character lost; `%CC` + U+0301 would become `%CĆ`).
pub(crate) fn nfc_between_delimiters(text: &str, out: &mut String) {
    let b = text.as_bytes();
    let (mut run, mut i) = (0, 0);
    while i < b.len() {
        let keep = match b[i] {
            b'%' => 3.min(b.len() - i),
            c if c < 0x80 && !c.is_ascii_alphanumeric() => 1,
            _ => 0,
        };
        if keep == 0 {
            i += 1;
            continue;
        }
        nfc_run(&text[run..i], out);
        out.push_str(&text[i..i + keep]);
        i += keep;
        run = i;
    }
    nfc_run(&text[run..], out);
}

/// Appends the NFC of `run` (no ASCII but letters and digits), or `run` itself when its NFC
/// holds another ASCII character: U+037E is canonically `;` and U+1FEF a backtick, and NFC
/// must not create a delimiter or a character that IRIs forbid.
fn nfc_run(run: &str, out: &mut String) {
    // Most runs are in NFC already, which the quick check of UAX #15 §9 tells without
    // normalizing (its answer _yes_ is certain), and before it a lookup per character
    // where each is simple (the kept code points' table): NFC leaves such a run as it is.
    if run.chars().all(ulabel::is_simple) || is_nfc_quick(run.chars()) == IsNormalized::Yes {
        out.push_str(run);
        return;
    }
    let start = out.len();
    out.extend(run.nfc());
    if out.as_bytes()[start..]
        .iter()
        .any(|&b| b < 0x80 && !b.is_ascii_alphanumeric())
    {
        out.truncate(start);
        out.push_str(run);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iri::test_rng::Rng;

    /// [`nfc_run`] without its quick check: the NFC of every run, kept unless it holds
    /// another ASCII character.
    fn nfc_run_reference(run: &str, out: &mut String) {
        let nfc: String = run.nfc().collect();
        if nfc.bytes().any(|b| b < 0x80 && !b.is_ascii_alphanumeric()) {
            out.push_str(run);
        } else {
            out.push_str(&nfc);
        }
    }

    /// Runs of letters in NFC and not: precomposed and combining forms, Hangul syllables
    /// and jamo, marks in both orders, and the two characters whose NFC is ASCII
    /// punctuation.
    #[test]
    fn runs_are_written_as_their_nfc_is() {
        let alphabet: Vec<char> = "aZ9é\u{301}\u{323}\u{308}e\u{1100}\u{1161}\u{11A8}한\u{AC00}\
                                   Å\u{212B}\u{37E}\u{1FEF}\u{F900}ｶ\u{FF9E}क\u{93C}\u{929}"
            .chars()
            .collect();
        let mut rng = Rng(0x0123_4567_89AB_CDEF);
        let mut changed = 0;
        for _ in 0..50_000 {
            let state = rng.next();
            let len = 1 + (state % 9) as usize;
            let run: String = (0..len)
                .map(|i| alphabet[(state >> (i * 6)) as usize % alphabet.len()])
                .collect();
            let (mut got, mut want) = (String::from("x"), String::from("x"));
            nfc_run(&run, &mut got);
            nfc_run_reference(&run, &mut want);
            assert_eq!(got, want, "{run:?}");
            changed += usize::from(got[1..] != run);
        }
        // Not vacuous: many runs change, many do not.
        assert!(changed > 5_000 && changed < 45_000, "{changed}");
    }
}
