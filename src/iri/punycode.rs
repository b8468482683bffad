//! Punycode (RFC 3492): the encoding between the U-label and the ASCII of an A-label, as
//! RFC 3490 §4.1 (ToASCII steps 5 to 7, ToUnicode) and UTS #46 (§4) use it.
//! [`crate::iri::ulabel`] writes both forms of the hosts whose labels UTS #46 keeps as they
//! are with these, without running UTS #46; every other host goes through the `idna`
//! crate.

/// The parameters of Punycode (RFC 3492 §5).
const BASE: u64 = 36;
const TMIN: u64 = 1;
const TMAX: u64 = 26;
const SKEW: u64 = 38;
const DAMP: u64 = 700;
const INITIAL_BIAS: u64 = 72;
const INITIAL_N: u64 = 0x80;

/// Appends the Punycode of `label` (without the `xn--` prefix) to `out`, as RFC 3492 §6.3
/// encodes it: the basic (ASCII) code points in order, a `-` if there were any, then the
/// deltas of the others as variable-length integers. Returns `false`, with `out` as it was,
/// should a delta overflow (a label far longer than DNS allows).
pub(crate) fn encode(label: &[char], out: &mut String) -> bool {
    let start = out.len();
    let ok = encode_deltas(label, out);
    if !ok {
        out.truncate(start);
    }
    ok
}

/// The body of [`encode`]. The code points are handled in increasing order (RFC 3492
/// §6.3), taken from a sorted copy of the label's non-basic code points rather than found
/// by a search per round.
fn encode_deltas(label: &[char], out: &mut String) -> bool {
    let basic = label.iter().filter(|c| c.is_ascii()).count() as u64;
    out.extend(label.iter().filter(|c| c.is_ascii()));
    if basic > 0 {
        out.push('-');
    }
    let mut order = [0u32; 64];
    let Some(order) = order.get_mut(..label.len() - basic as usize) else {
        return false;
    };
    for (slot, &c) in order.iter_mut().zip(label.iter().filter(|c| !c.is_ascii())) {
        *slot = u32::from(c);
    }
    order.sort_unstable();
    let (mut n, mut delta, mut bias, mut handled) = (INITIAL_N, 0u64, INITIAL_BIAS, basic);
    let mut previous = None;
    for &m in order.iter() {
        if previous == Some(m) {
            continue;
        }
        previous = Some(m);
        let m = u64::from(m);
        delta = match (m - n).checked_mul(handled + 1).map(|d| d + delta) {
            Some(d) if d <= u64::from(u32::MAX) => d,
            _ => return false,
        };
        n = m;
        for c in label.iter().map(|&c| u64::from(c)) {
            if c < n {
                delta += 1;
            } else if c == n {
                push_integer(delta, bias, out);
                bias = adapt(delta, handled + 1, handled == basic);
                delta = 0;
                handled += 1;
            }
        }
        delta += 1;
        n += 1;
    }
    true
}

/// Decodes the Punycode `payload` (an A-label without its `xn--`) into `out`, as RFC 3492
/// §6.2 decodes it: the basic code points before the last `-`, then each delta inserted
/// where it says. Returns the number of code points written, or `None` for input that is
/// not Punycode, would overflow, gives a code point that is not a character, or does not
/// fit `out`. Only lowercase digits are taken (`A-Z` stand for the same digits in RFC 3492,
/// but UTS #46 lowercases a label before it decodes it: such a label is left to it).
///
/// Decoding is one to one: whatever decodes is the Punycode [`encode`] writes for what it
/// decodes to. The code points come in increasing order and, for equal ones, left to right
/// (`n` never decreases, and `i` moves past each insertion), which is the order the
/// encoder takes them in, so each delta is the one the encoder computes; and an integer has
/// one spelling as digits (below its threshold ends it; at or above, the digit is fixed
/// modulo `BASE - t`, and the `BASE - t` digits at or above `t` are one of each residue).
/// With lowercase digits only, the payload is then the encoder's, byte for byte (tested).
pub(crate) fn decode(payload: &[u8], out: &mut [char]) -> Option<usize> {
    // A `-` first is no delimiter (RFC 3492 §6.2: the basic code points are those before
    // the last delimiter, if there are any), and no digit either.
    let (basic, deltas) = match payload.iter().rposition(|&c| c == b'-') {
        Some(k) if k > 0 => (&payload[..k], &payload[k + 1..]),
        _ => (&payload[..0], payload),
    };
    if !basic.is_ascii() || basic.len() > out.len() {
        return None;
    }
    for (slot, &c) in out.iter_mut().zip(basic) {
        *slot = char::from(c);
    }
    let mut len = basic.len();
    let (mut n, mut i, mut bias) = (INITIAL_N, 0u64, INITIAL_BIAS);
    let mut digits = deltas.iter();
    while digits.len() > 0 {
        let old = i;
        let mut w = 1u64;
        let mut k = BASE;
        loop {
            let d = digit_value(*digits.next()?)?;
            i = i.checked_add(d.checked_mul(w)?)?;
            let t = threshold(k, bias);
            if d < t {
                break;
            }
            w = w.checked_mul(BASE - t)?;
            k += BASE;
        }
        let points = len as u64 + 1;
        bias = adapt(i - old, points, old == 0);
        n = n.checked_add(i / points)?;
        i %= points;
        let c = char::from_u32(u32::try_from(n).ok()?)?;
        if len == out.len() || i > u64::from(u32::MAX) {
            return None;
        }
        // Labels are short: shifting the tail by hand takes fewer instructions than a call
        // to `memmove` (measured with callgrind).
        let at = i as usize;
        for k in (at..len).rev() {
            out[k + 1] = out[k];
        }
        out[at] = c;
        len += 1;
        i += 1;
    }
    Some(len)
}

/// The value of a lowercase Punycode digit (RFC 3492 §5).
fn digit_value(c: u8) -> Option<u64> {
    match c {
        b'a'..=b'z' => Some(u64::from(c - b'a')),
        b'0'..=b'9' => Some(u64::from(c - b'0') + 26),
        _ => None,
    }
}

/// The threshold of the digit at position `k` under `bias` (RFC 3492 §6.2, §6.3).
fn threshold(k: u64, bias: u64) -> u64 {
    if k <= bias {
        TMIN
    } else if k >= bias + TMAX {
        TMAX
    } else {
        k - bias
    }
}

/// Writes `q` as a generalized variable-length integer under `bias` (RFC 3492 §3.3, §6.3).
fn push_integer(mut q: u64, bias: u64, out: &mut String) {
    let mut k = BASE;
    loop {
        let t = threshold(k, bias);
        if q < t {
            break;
        }
        out.push(digit(t + (q - t) % (BASE - t)));
        q = (q - t) / (BASE - t);
        k += BASE;
    }
    out.push(digit(q));
}

/// The bias adaptation function (RFC 3492 §6.1).
fn adapt(delta: u64, points: u64, first: bool) -> u64 {
    let mut delta = if first { delta / DAMP } else { delta / 2 };
    delta += delta / points;
    let mut k = 0;
    while delta > ((BASE - TMIN) * TMAX) / 2 {
        delta /= BASE - TMIN;
        k += BASE;
    }
    k + (BASE - TMIN + 1) * delta / (delta + SKEW)
}

/// The basic code point of digit `d` (0–35): `a`–`z`, then `0`–`9` (RFC 3492 §5), in
/// lowercase as A-labels are written.
fn digit(d: u64) -> char {
    let d = d as u8;
    char::from(if d < 26 { b'a' + d } else { b'0' + d - 26 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iri::test_rng::Rng;

    fn punycode(label: &str) -> String {
        let mut out = String::new();
        let chars: Vec<char> = label.chars().collect();
        assert!(encode(&chars, &mut out), "{label}");
        out
    }

    #[test]
    fn a_payload_longer_than_the_room_decodes_to_none() {
        // 63 basic code points and one delta: 64 code points, in room for 63 and for 64.
        let label = format!("{}ü", "a".repeat(63));
        let payload = idna::punycode::encode_str(&label).unwrap();
        let mut room = ['\0'; 63];
        assert_eq!(decode(payload.as_bytes(), &mut room), None);
        let mut room = ['\0'; 64];
        assert_eq!(decode(payload.as_bytes(), &mut room), Some(64));
        assert_eq!(room.iter().collect::<String>(), label);
    }

    fn decoded(payload: &str) -> Option<String> {
        let mut buf = ['\0'; 64];
        let n = decode(payload.as_bytes(), &mut buf)?;
        Some(buf[..n].iter().collect())
    }

    #[test]
    fn labels_encode_as_the_idna_crate_encodes_them() {
        let labels = [
            "bücher",
            "münchen",
            "例え",
            "ドメイン名例",
            "мойдомен",
            "abc-é-def",
            "ñ",
            "αβγδε",
            "ไทย",
            "한국어",
            "中文网",
            "a\u{10000}b",
            "\u{10FFFD}",
            "zürich-2024",
        ];
        for label in labels {
            assert_eq!(
                Some(punycode(label)),
                idna::punycode::encode_str(label),
                "{label}"
            );
        }
        assert_eq!(punycode("bücher"), "bcher-kva");
        assert_eq!(punycode("例え"), "r8jz45g");
    }

    #[test]
    fn generated_labels_encode_as_the_idna_crate_encodes_them() {
        let alphabet: Vec<char> = "az09-éüßαωжяאء中文한글ไทย\u{1F600}\u{10000}"
            .chars()
            .collect();
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        for _ in 0..5000 {
            let state = rng.next();
            let len = 1 + (state % 20) as usize;
            let label: String = (0..len)
                .map(|i| alphabet[((state >> (i % 16 * 4)) as usize + i) % alphabet.len()])
                .collect();
            let encoded = punycode(&label);
            assert_eq!(Some(&encoded), idna::punycode::encode_str(&label).as_ref());
            assert_eq!(
                decoded(&encoded).as_deref(),
                Some(label.as_str()),
                "{encoded}"
            );
        }
    }

    #[test]
    fn long_labels_encode_as_the_idna_crate_encodes_them() {
        // Up to 64 code points, with basic code points, repeated ones, and code points far
        // apart.
        let labels = [
            format!("{}ü", "a".repeat(63)),
            "ü".repeat(64),
            "例え".repeat(32),
            format!("{}\u{10FFFD}{}", "z9-".repeat(20), "中".repeat(2)),
            "αωжяא中\u{1F600}".repeat(9),
        ];
        for label in &labels {
            assert_eq!(
                Some(punycode(label)),
                idna::punycode::encode_str(label),
                "{label}"
            );
        }
        // More than 64 code points that are not basic is refused, and leaves `out` alone.
        let chars: Vec<char> = "ü".repeat(65).chars().collect();
        let mut out = String::from("kept");
        assert!(!encode(&chars, &mut out));
        assert_eq!(out, "kept");
    }

    #[test]
    fn payloads_decode_as_the_idna_crate_decodes_them() {
        let digits = b"abkz09-";
        let mut rng = Rng(0x0DDB_1A5E_5BAD_5EED);
        let mut decodable = 0;
        for _ in 0..20_000 {
            let state = rng.next();
            let len = (state % 10) as usize;
            let payload: String = (0..len)
                .map(|i| char::from(digits[((state >> (i * 5)) as usize) % digits.len()]))
                .collect();
            let theirs = idna::punycode::decode_to_string(&payload);
            let ours = decoded(&payload);
            // Ours gives up on labels too long for its buffer; otherwise the two agree.
            if ours.is_some() || theirs.as_ref().map_or(true, |t| t.chars().count() <= 64) {
                assert_eq!(ours, theirs, "{payload}");
            }
            if let Some(label) = &ours {
                // One to one: the payload is what encoding gives back.
                let chars: Vec<char> = label.chars().collect();
                let mut again = String::new();
                assert!(encode(&chars, &mut again));
                assert_eq!(again, payload, "{label}");
            }
            decodable += usize::from(ours.is_some());
        }
        assert!(decodable > 1000, "{decodable}");
        assert_eq!(decoded("bcher-kva").as_deref(), Some("bücher"));
        assert_eq!(decoded("BCHER-KVA"), None);
        assert_eq!(decoded("99999999999999"), None);
    }
}
