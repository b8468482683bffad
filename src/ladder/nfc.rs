//! Unicode NFC of a record (RFC 3987 §3.1 step 1, §5.3.2.2: only with `--nfc`, for text
//! converted from non-Unicode or non-digital sources), applied so that it never creates or
//! removes a delimiter.

use unicode_normalization::UnicodeNormalization;

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
