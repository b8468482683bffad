//! Python 3.11's `idna` codec, `str.encode("idna")` (`encodings.idna`), byte for byte: IDNA
//! 2003 ToASCII (RFC 3490) per label with Nameprep (RFC 3491) over Unicode 3.2, as both
//! peers of the compatibility profiles call it (`surt` on non-ASCII hosts, `w3lib` on every
//! host).
//!
//! What the codec does, in its order, and where each step lives here:
//!
//! - a name that is all ASCII takes the fast path: no mapping at all, only the label
//!   lengths are checked (empty labels refused but a last one, none of 64 bytes or more);
//! - otherwise the name is split on `.` U+3002 U+FF0E U+FF61, one empty last label being a
//!   trailing dot, and each label goes through ToASCII ([`to_ascii`]): an ASCII label as it
//!   is, any other through Nameprep ([`nameprep`]: the B.1/B.2 mapping, NFKC the way
//!   CPython's `ucd_3_2_0` computes it, the prohibited tables, the bidi rules), then, if
//!   still not ASCII, the `xn--` prefix check and Punycode (RFC 3492);
//! - every label must end between 1 and 63 bytes.
//!
//! The Unicode data comes from that Python ([`super::pyidna_tables`], written by
//! `scripts/gen-pyidna-tables.py`), so nothing depends on the Unicode version of a crate.
//! CPython's 3.2 normalization is not quite Unicode 3.2's: code points unassigned in 3.2 do
//! not decompose (and a handful keep their 3.2 decomposition), but canonical ordering and
//! composition use its current (14.0) data; the tables hold exactly that.

use std::cell::RefCell;

#[path = "pyidna_tables.rs"]
#[rustfmt::skip]
mod tables;

/// The longest label ToASCII accepts, in bytes.
const MAX_LABEL: usize = 63;

/// The buffers of one label's Nameprep and Punycode, reused across calls on a thread.
#[derive(Default)]
struct Buffers {
    mapped: Vec<char>,
    decomposed: Vec<char>,
    skipped: Vec<bool>,
    prepared: Vec<char>,
    punycode: String,
}

thread_local! {
    static BUFFERS: RefCell<Buffers> = RefCell::new(Buffers::default());
}

/// Appends `name.encode("idna")` to `out`; `Err(())` where Python raises `UnicodeError`
/// (`out` is then left as it was).
pub(crate) fn encode(name: &str, out: &mut Vec<u8>) -> Result<(), ()> {
    if name.is_ascii() {
        return encode_ascii(name.as_bytes(), out);
    }
    let mark = out.len();
    let r = BUFFERS.with(|b| match b.try_borrow_mut() {
        Ok(mut b) => encode_labels(name, out, &mut b),
        Err(_) => encode_labels(name, out, &mut Buffers::default()),
    });
    if r.is_err() {
        out.truncate(mark);
    }
    r
}

/// The codec's fast path for an ASCII name: kept as it is (case included) once its labels
/// are checked: none empty or of 64 bytes or more, but the last may be empty.
fn encode_ascii(name: &[u8], out: &mut Vec<u8>) -> Result<(), ()> {
    let mut labels = name.split(|&b| b == b'.').peekable();
    while let Some(label) = labels.next() {
        let last = labels.peek().is_none();
        if label.len() > MAX_LABEL || (label.is_empty() && !last) {
            return Err(());
        }
    }
    out.extend_from_slice(name);
    Ok(())
}

/// IDNA's label separators (RFC 3490 §3.1).
fn is_dot(c: char) -> bool {
    matches!(c, '.' | '\u{3002}' | '\u{FF0E}' | '\u{FF61}')
}

/// The codec's general path: ToASCII on each label, joined with `.`, and the trailing dot
/// kept as one `.`.
fn encode_labels(name: &str, out: &mut Vec<u8>, b: &mut Buffers) -> Result<(), ()> {
    let (body, trailing_dot) = match name.char_indices().next_back() {
        Some((at, c)) if is_dot(c) => (&name[..at], true),
        _ => (name, false),
    };
    for (k, label) in body.split(is_dot).enumerate() {
        if k > 0 {
            out.push(b'.');
        }
        to_ascii(label, out, b)?;
    }
    if trailing_dot {
        out.push(b'.');
    }
    Ok(())
}

/// ToASCII (RFC 3490 §4.1) with AllowUnassigned and without UseSTD3ASCIIRules, as
/// `encodings.idna.ToASCII` runs it.
fn to_ascii(label: &str, out: &mut Vec<u8>, b: &mut Buffers) -> Result<(), ()> {
    if label.is_ascii() {
        return push_checked(label.bytes(), label.len(), out);
    }
    nameprep(label, b)?;
    let prepared = &b.prepared;
    if prepared.iter().all(char::is_ascii) {
        return push_checked(prepared.iter().map(|&c| c as u8), prepared.len(), out);
    }
    if prepared.starts_with(&['x', 'n', '-', '-']) {
        return Err(());
    }
    // Each code point gives at least one byte of Punycode: a label this long cannot fit
    // (and Punycode's arithmetic stays small).
    if prepared.len() + 4 > MAX_LABEL {
        return Err(());
    }
    b.punycode.clear();
    if !crate::iri::punycode::encode(prepared, &mut b.punycode) {
        return Err(());
    }
    let ace = b"xn--".iter().copied().chain(b.punycode.bytes());
    push_checked(ace, 4 + b.punycode.len(), out)
}

/// Appends the `len` bytes of a finished label if its length is 1 to 63.
fn push_checked(label: impl Iterator<Item = u8>, len: usize, out: &mut Vec<u8>) -> Result<(), ()> {
    if len == 0 || len > MAX_LABEL {
        return Err(());
    }
    out.extend(label);
    Ok(())
}

/// Nameprep (RFC 3491, `encodings.idna.nameprep`) of `label` into `b.prepared`: map,
/// normalize, prohibit, check bidi.
fn nameprep(label: &str, b: &mut Buffers) -> Result<(), ()> {
    b.mapped.clear();
    for c in label.chars() {
        push_mapping(c, &mut b.mapped);
    }
    nfkc(b)?;
    let prepared = &b.prepared;
    if prepared.iter().any(|&c| in_ranges(&tables::PROHIBITED, c)) {
        return Err(());
    }
    check_bidi(prepared)
}

/// Appends the stringprep B.1/B.2 mapping of `c` (nothing for B.1) to `out`.
fn push_mapping(c: char, out: &mut Vec<char>) {
    match lookup(&tables::MAP_INDEX, &tables::MAP_DATA, c) {
        Some(mapped) => out.extend_from_slice(mapped),
        None => out.push(c),
    }
}

/// The entry of `c` in a table of strings (a sorted index into a flat array).
fn lookup(index: &[(u32, u16, u8)], data: &'static [char], c: char) -> Option<&'static [char]> {
    let i = index.binary_search_by_key(&(c as u32), |e| e.0).ok()?;
    let &(_, start, len) = index.get(i)?;
    let start = usize::from(start);
    data.get(start..start + usize::from(len))
}

/// Whether `c` lies in one of the sorted inclusive `ranges`.
fn in_ranges(ranges: &[(u32, u32)], c: char) -> bool {
    let c = c as u32;
    let i = ranges.partition_point(|r| r.1 < c);
    ranges.get(i).is_some_and(|r| r.0 <= c)
}

/// The canonical combining class CPython orders and composes with.
fn ccc(c: char) -> u8 {
    if (c as u32) < 0x300 {
        return 0;
    }
    let i = tables::CCC.binary_search_by_key(&(c as u32), |e| e.0);
    i.ok().and_then(|i| tables::CCC.get(i)).map_or(0, |e| e.1)
}

/// The Hangul constants of Unicode §3.12.
const S_BASE: u32 = 0xAC00;
const L_BASE: u32 = 0x1100;
const V_BASE: u32 = 0x1161;
const T_BASE: u32 = 0x11A7;
const L_COUNT: u32 = 19;
const V_COUNT: u32 = 21;
const T_COUNT: u32 = 28;
const N_COUNT: u32 = V_COUNT * T_COUNT;
const S_COUNT: u32 = L_COUNT * N_COUNT;

/// `unicodedata.ucd_3_2_0.normalize("NFKC", …)` of `b.mapped` into `b.prepared`:
/// decomposition, canonical ordering, composition, as CPython's `nfc_nfkc` runs them.
///
/// `Err(())` for a decomposition too long to give a label ToASCII accepts: composition
/// turns at most 4 code points into one (the longest canonical decomposition of a
/// composite), so more than `4 * 63` can only end as a label of 64 bytes or more, or
/// fail before; stopping there keeps the quadratic ordering off long labels.
fn nfkc(b: &mut Buffers) -> Result<(), ()> {
    b.decomposed.clear();
    for &c in &b.mapped {
        push_decomposition(c, &mut b.decomposed);
        if b.decomposed.len() > 4 * MAX_LABEL {
            return Err(());
        }
    }
    order_canonically(&mut b.decomposed);
    compose(&b.decomposed, &mut b.skipped, &mut b.prepared);
    Ok(())
}

/// Appends the full compatibility decomposition of `c` (CPython's 3.2 view) to `out`.
fn push_decomposition(c: char, out: &mut Vec<char>) {
    let s = (c as u32).wrapping_sub(S_BASE);
    if s < S_COUNT {
        let l = L_BASE + s / N_COUNT;
        let v = V_BASE + (s % N_COUNT) / T_COUNT;
        let t = T_BASE + s % T_COUNT;
        out.extend([l, v].into_iter().filter_map(char::from_u32));
        if t != T_BASE {
            out.extend(char::from_u32(t));
        }
        return;
    }
    match lookup(&tables::DECOMP_INDEX, &tables::DECOMP_DATA, c) {
        Some(d) => out.extend_from_slice(d),
        None => out.push(c),
    }
}

/// Sorts each run of nonzero combining classes by class, stably (an insertion sort, as
/// CPython's).
fn order_canonically(s: &mut [char]) {
    for i in 1..s.len() {
        let cur = ccc(s[i]);
        if cur == 0 {
            continue;
        }
        let mut k = i;
        while k > 0 {
            let prev = ccc(s[k - 1]);
            if prev == 0 || prev <= cur {
                break;
            }
            s.swap(k - 1, k);
            k -= 1;
        }
    }
}

/// Canonical composition of the ordered decomposition `d` into `out`, as CPython's
/// `nfc_nfkc` composes: Hangul L V (T) first, then each starter with the unblocked
/// characters after it.
fn compose(d: &[char], skipped: &mut Vec<bool>, out: &mut Vec<char>) {
    out.clear();
    skipped.clear();
    skipped.resize(d.len(), false);
    let mut i = 0;
    while let Some(&c) = d.get(i) {
        if skipped.get(i).copied().unwrap_or(false) {
            i += 1;
            continue;
        }
        if let Some((syllable, used)) = hangul_syllable(d.get(i..).unwrap_or(&[])) {
            out.push(syllable);
            i += used;
            continue;
        }
        let mut composed = c;
        if is_first(composed) {
            let mut blocking = 0u8;
            for (k, &next) in d.iter().enumerate().skip(i + 1) {
                let class = ccc(next);
                if blocking != 0 && (class == 0 || blocking >= class) {
                    if class == 0 {
                        break;
                    }
                    continue;
                }
                match composition(composed, next) {
                    Some(pair) => {
                        composed = pair;
                        if let Some(s) = skipped.get_mut(k) {
                            *s = true;
                        }
                        if !is_first(composed) {
                            break;
                        }
                    }
                    None if class == 0 => break,
                    None => blocking = class,
                }
            }
        }
        out.push(composed);
        i += 1;
    }
}

/// The Hangul syllable a leading L V (T) of `s` composes to, and how many it takes.
fn hangul_syllable(s: &[char]) -> Option<(char, usize)> {
    let l = (*s.first()? as u32)
        .checked_sub(L_BASE)
        .filter(|&l| l < L_COUNT)?;
    let v = (*s.get(1)? as u32)
        .checked_sub(V_BASE)
        .filter(|&v| v < V_COUNT)?;
    let syllable = S_BASE + (l * V_COUNT + v) * T_COUNT;
    let t = s
        .get(2)
        .map(|&t| t as u32)
        .filter(|&t| T_BASE < t && t < T_BASE + T_COUNT);
    match t {
        Some(t) => Some((char::from_u32(syllable + t - T_BASE)?, 3)),
        None => Some((char::from_u32(syllable)?, 2)),
    }
}

/// Whether `c` is the first of some canonical composition.
fn is_first(c: char) -> bool {
    let c = c as u32;
    let i = tables::COMPOSE.partition_point(|e| e.0 < c);
    tables::COMPOSE.get(i).is_some_and(|e| e.0 == c)
}

/// The primary composite of `first` and `second`, if any.
fn composition(first: char, second: char) -> Option<char> {
    let key = (first as u32, second as u32);
    let i = tables::COMPOSE
        .binary_search_by_key(&key, |e| (e.0, e.1))
        .ok()?;
    char::from_u32(tables::COMPOSE.get(i)?.2)
}

/// RFC 3454 §6 (`encodings.idna.nameprep`'s "Check bidi"): a label with a RandALCat
/// character has no LCat character, and starts and ends with RandALCat.
fn check_bidi(label: &[char]) -> Result<(), ()> {
    let rand_al = |c: &char| in_ranges(&tables::RAND_AL, *c);
    if !label.iter().any(rand_al) {
        return Ok(());
    }
    if label.iter().any(|&c| in_ranges(&tables::LEFT_TO_RIGHT, c)) {
        return Err(());
    }
    match (label.first(), label.last()) {
        (Some(a), Some(z)) if rand_al(a) && rand_al(z) => Ok(()),
        _ => Err(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idna(name: &str) -> Result<String, ()> {
        let mut out = b"kept".to_vec();
        let r = encode(name, &mut out);
        if r.is_err() {
            assert_eq!(out, b"kept", "{name:?}: out left as it was");
        }
        r.map(|()| String::from_utf8(out[4..].to_vec()).unwrap())
    }

    /// FNV-1a (64), as the generator computes it.
    fn fnv(data: &[u8], mut h: u64) -> u64 {
        for &b in data {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100000001B3);
        }
        h
    }

    #[test]
    fn every_code_point_alone_encodes_as_python_does() {
        let mut h = 0xCBF29CE484222325;
        let mut out = Vec::new();
        for c in (0..0x110000).filter_map(char::from_u32) {
            out.clear();
            if encode(c.encode_utf8(&mut [0; 4]), &mut out).is_err() {
                out.clear();
                out.push(b'!');
            }
            out.push(b'\n');
            h = fnv(&out, h);
        }
        assert_eq!(h, tables::EXHAUSTIVE_DIGEST);
    }

    #[test]
    fn names_encode_as_python_does() {
        // Each from Python 3.11.7: `name.encode("idna")`.
        let cases: &[(&str, Result<&str, ()>)] = &[
            ("", Ok("")),
            ("Example.COM", Ok("Example.COM")),
            ("example.com.", Ok("example.com.")),
            ("a..b", Err(())),
            (".", Err(())),
            ("bücher.de", Ok("xn--bcher-kva.de")),
            ("BÜCHER.de", Ok("xn--bcher-kva.de")),
            ("bücher。de。", Ok("xn--bcher-kva.de.")),
            ("Ex.bücher", Ok("Ex.xn--bcher-kva")),
            ("fa\u{DF}.de", Ok("fass.de")),
            ("\u{3002}", Err(())),
            ("ü\u{3002}\u{3002}", Err(())),
            ("xn--ü", Err(())),
            ("\u{200B}.com", Err(())),
            ("a\u{200B}ü.com", Ok("xn--a-eha.com")),
            ("\u{5D0}a", Err(())),
            ("\u{5D0}1\u{5D1}", Ok("xn--1-zhce")),
            ("\u{5D0}1", Err(())),
            ("\u{A0}x", Ok(" x")),
            ("\u{2160}ü", Ok("xn--i-eha")),
            ("日本語。ＪＰ", Ok("xn--wgv71a119e.jp")),
        ];
        for (name, want) in cases {
            assert_eq!(idna(name).as_deref().map_err(|_| ()), *want, "{name:?}");
        }
    }

    #[test]
    fn long_labels_are_refused() {
        let long = "ü".repeat(70);
        assert_eq!(idna(&long), Err(()));
        let ascii63 = "a".repeat(63);
        assert!(idna(&ascii63).is_ok());
        assert_eq!(idna(&"a".repeat(64)), Err(()));
        let many_nothings = format!("{}ü", "\u{AD}".repeat(1000));
        assert_eq!(idna(&many_nothings).as_deref(), Ok("xn--tda"));
    }
}
