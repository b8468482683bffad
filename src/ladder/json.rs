//! JSON text (RFC 8259) of what the ladder reports, written in one place for every front
//! end: the command line's jsonl rows and `--explain` rows (`stream::output`, the binary's
//! `cli::explain`) and the Python package's `explain` (which reads it back).
//!
//! - string bodies: [`push_json_str`] (RFC 8259 §7 escapes), [`push_json_bytes`] (octets
//!   that are not UTF-8 written `%XX`, never U+FFFD);
//! - an error or warning: `push_json_note`; an explained record: [`push_explained_json`],
//!   or [`push_invalid_json`] for an invalid one; the whole object of one record explained,
//!   for the bindings: [`explained_record_json`];
//! - the escaping machinery they use, which the tsv fields of the stream's output share:
//!   escape tables, a block scan for the bytes to escape, and decimal numbers.

use crate::iri::error::{Error, Warning};
use crate::ladder::Normalizer;

/// Appends the body of a JSON string (without quotes) holding `s`: `"`, `\\` and the
/// controls U+0000–U+001F escaped, everything else as it is.
pub fn push_json_str(out: &mut Vec<u8>, s: &str) {
    push_escaped(out, s.as_bytes(), &JSON_ESCAPES, json_next);
}

/// Appends the body of a JSON string holding the bytes `raw`: valid UTF-8 is escaped as by
/// [`push_json_str`], every other octet is written `%XX`.
pub fn push_json_bytes(out: &mut Vec<u8>, raw: &[u8]) {
    if let Ok(s) = std::str::from_utf8(raw) {
        return push_json_str(out, s);
    }
    for piece in raw.utf8_chunks() {
        push_json_str(out, piece.valid());
        for &b in piece.invalid() {
            out.extend_from_slice(&[
                b'%',
                HEX_UPPER[usize::from(b >> 4)],
                HEX_UPPER[usize::from(b & 15)],
            ]);
        }
    }
}

/// Appends `{"kind":"…","column":N,"message":"…"}`, an error or a warning.
pub(crate) fn push_json_note(out: &mut Vec<u8>, kind: &str, column: usize, message: &str) {
    out.extend_from_slice(b"{\"kind\":\"");
    push_json_str(out, kind);
    out.extend_from_slice(b"\",\"column\":");
    push_decimal(out, column as u64);
    out.extend_from_slice(b",\"message\":\"");
    push_json_str(out, message);
    out.extend_from_slice(b"\"}");
}

/// Appends `n` in decimal without going through the formatting machinery.
pub(crate) fn push_decimal(out: &mut Vec<u8>, n: u64) {
    let mut digits = [0u8; 20];
    let start = decimal_digits(n, &mut digits);
    out.extend_from_slice(&digits[start..]);
}

/// Writes `n` in decimal at the end of `digits`, two digits at a time, and returns where
/// its first digit is.
fn decimal_digits(mut n: u64, digits: &mut [u8; 20]) -> usize {
    /// `00`, `01`, …, `99`.
    const PAIRS: [u8; 200] = {
        let mut t = [0u8; 200];
        let mut i = 0;
        while i < 100 {
            t[2 * i] = b'0' + (i / 10) as u8;
            t[2 * i + 1] = b'0' + (i % 10) as u8;
            i += 1;
        }
        t
    };
    let mut i = digits.len();
    while n >= 100 {
        let pair = (n % 100) as usize * 2;
        n /= 100;
        i -= 2;
        digits[i..i + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    if n >= 10 {
        i -= 2;
        digits[i..i + 2].copy_from_slice(&PAIRS[n as usize * 2..n as usize * 2 + 2]);
    } else {
        i -= 1;
        digits[i] = b'0' + n as u8;
    }
    i
}

/// What each byte becomes in an escaped field, one entry per byte value: 0 for the byte
/// itself, [`UNICODE`] for `\u00xx` (lowercase hex), any other value `x` for the two bytes
/// `\x`.
pub(crate) type EscapeTable = [u8; 256];

/// The entry of an [`EscapeTable`] for a byte written `\u00xx`.
const UNICODE: u8 = b'u';

/// Builds an [`EscapeTable`]: every byte in `short` becomes `\` and its partner, and, when
/// `controls` is set, every other byte below 0x20 becomes `\u00xx`.
pub(crate) const fn escape_table(short: &[(u8, u8)], controls: bool) -> EscapeTable {
    let mut table = [0u8; 256];
    if controls {
        let mut b = 0;
        while b < 0x20 {
            table[b] = UNICODE;
            b += 1;
        }
    }
    let mut i = 0;
    while i < short.len() {
        table[short[i].0 as usize] = short[i].1;
        i += 1;
    }
    table
}

/// JSON strings (RFC 8259 §7): `"`, `\` and the controls U+0000–U+001F, with the short
/// escapes where there is one.
pub(crate) const JSON_ESCAPES: EscapeTable = escape_table(
    &[
        (b'"', b'"'),
        (b'\\', b'\\'),
        (b'\n', b'n'),
        (b'\r', b'r'),
        (b'\t', b't'),
        (0x08, b'b'),
        (0x0C, b'f'),
    ],
    true,
);

/// Appends `bytes` to `out` with the bytes that `table` marks escaped. `next` finds the
/// first such byte of a slice (and must find exactly the bytes `table` marks): the clean
/// run before it is copied in one piece.
#[inline(always)]
pub(crate) fn push_escaped(
    out: &mut Vec<u8>,
    bytes: &[u8],
    table: &EscapeTable,
    next: impl Fn(&[u8]) -> Option<usize>,
) {
    let mut rest = bytes;
    while let Some(i) = next(rest) {
        let b = rest[i];
        out.extend_from_slice(&rest[..i]);
        match table[usize::from(b)] {
            UNICODE => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX_LOWER[usize::from(b >> 4)],
                HEX_LOWER[usize::from(b & 15)],
            ]),
            short => {
                debug_assert_ne!(short, 0, "byte {b:#04x} found but not escaped");
                out.extend_from_slice(&[b'\\', short]);
            }
        }
        rest = &rest[i + 1..];
    }
    out.extend_from_slice(rest);
}

/// The index of the first byte of `bytes` that [`JSON_ESCAPES`] escapes.
#[inline]
pub(crate) fn json_next(bytes: &[u8]) -> Option<usize> {
    first_where(bytes, |b| (b < 0x20) | (b == b'"') | (b == b'\\'))
}

/// The index of the first byte of `bytes` for which `hit` holds. Strings of 16 bytes or
/// more are tested 16 bytes at a time (`hit` must be branch-free, so that the compiler
/// turns the test into vector compares), their last few bytes in the 16 that end them;
/// shorter ones byte by byte.
#[inline(always)]
pub(crate) fn first_where(bytes: &[u8], hit: impl Fn(u8) -> bool + Copy) -> Option<usize> {
    let any = |block: &[u8]| {
        let block: &[u8; 16] = block.try_into().expect("sixteen bytes");
        block.iter().fold(false, |any, &b| any | hit(b))
    };
    let first_in = |block: &[u8]| block.iter().position(|&b| hit(b));
    let mut blocks = bytes.chunks_exact(16);
    let mut at = 0;
    for block in &mut blocks {
        if any(block) {
            return first_in(block).map(|i| at + i);
        }
        at += 16;
    }
    match blocks.remainder() {
        [] => None,
        tail if at == 0 => first_in(tail),
        // The 16 bytes that end `bytes`: those before `at` were found clean already.
        _ => {
            let last = bytes.len() - 16;
            let block = &bytes[last..];
            any(block).then(|| last + first_in(block).expect("a hit"))
        }
    }
}

pub(crate) const HEX_LOWER: &[u8; 16] = b"0123456789abcdef";
const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

/// A step of an explanation as shown: component, rule, and the text before and after.
pub type ShownStep<'a> = (&'a str, &'a str, &'a str, &'a str);

/// Appends the members of an explained record (no braces, for the caller to add its own
/// members first): `"input":"…","key":"…","steps":[{"component","rule","before","after"}…],
/// "warnings":[…]`. `input` is the record as read ([`push_json_bytes`]).
pub fn push_explained_json<'a>(
    out: &mut Vec<u8>,
    input: &[u8],
    key: &str,
    steps: impl IntoIterator<Item = ShownStep<'a>>,
    warnings: &[Warning],
) {
    push_input(out, input);
    out.push(b'"');
    push_json_str(out, key);
    out.extend_from_slice(b"\",\"steps\":[");
    for (i, step) in steps.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_step(out, step);
    }
    out.extend_from_slice(b"],\"warnings\":[");
    push_json_warnings(out, warnings);
    out.push(b']');
}

/// Appends the warnings as notes ([`push_json_note`]), separated by commas (the brackets
/// are the caller's).
pub(crate) fn push_json_warnings(out: &mut Vec<u8>, warnings: &[Warning]) {
    for (i, w) in warnings.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_json_note(out, w.kind.name(), w.column, w.message);
    }
}

/// The JSON object of one record explained by `normalizer` ([`Normalizer::explain`]):
/// [`push_explained_json`] or [`push_invalid_json`] in braces. What the bindings' `explain`
/// gives (the Python package's and the Java API's).
pub fn explained_record_json(normalizer: &Normalizer, raw: &str) -> String {
    let mut out = vec![b'{'];
    match normalizer.explain(raw) {
        Ok(e) => {
            let steps = e
                .steps
                .iter()
                .map(|s| (s.component, s.rule, &*s.before, &*s.after));
            push_explained_json(&mut out, raw.as_bytes(), &e.key, steps, &e.warnings);
        }
        Err(e) => push_invalid_json(&mut out, raw.as_bytes(), &e),
    }
    out.push(b'}');
    String::from_utf8(out).expect("JSON text of UTF-8 input is UTF-8")
}

/// Appends the members of an invalid record, as [`push_explained_json`] does:
/// `"input":"…","key":null,"steps":[],"warnings":[],"error":{"kind","column","message"}`.
pub fn push_invalid_json(out: &mut Vec<u8>, input: &[u8], error: &Error) {
    push_input(out, input);
    out.extend_from_slice(b"null,\"steps\":[],\"warnings\":[],\"error\":");
    push_json_note(out, error.kind.name(), error.column, error.message);
}

/// Appends `"input":"…","key":`.
fn push_input(out: &mut Vec<u8>, input: &[u8]) {
    out.extend_from_slice(b"\"input\":\"");
    push_json_bytes(out, input);
    out.extend_from_slice(b"\",\"key\":");
}

/// Appends `{"component":"…","rule":"…","before":"…","after":"…"}`.
fn push_step(out: &mut Vec<u8>, (component, rule, before, after): ShownStep<'_>) {
    let fields = [
        ("component", component),
        ("rule", rule),
        ("before", before),
        ("after", after),
    ];
    out.push(b'{');
    for (i, (name, value)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'"');
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b"\":\"");
        push_json_str(out, value);
        out.push(b'"');
    }
    out.push(b'}');
}
