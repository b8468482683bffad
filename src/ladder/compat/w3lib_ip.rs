//! Python 3.11's `ipaddress` as the `w3lib@1` profile meets it: `ip_address(text)` (an
//! `IPv4Address` tried first, then an `IPv6Address` with its `%scope` id) and the text of an
//! `IPv6Address` (`str(address)`: lowercase hextets without leading zeros, the longest run of
//! two or more zero hextets, the first of equal runs, written `::`; no dotted IPv4 tail, as
//! 3.11.7 writes it; the scope id kept as given).
//!
//! w3lib 2.5.0 calls `ip_address` to check a bracketed host (`_check_bracketed_host`) and to
//! rewrite it (`_normalize_ipv6_host`).

/// What `ipaddress.ip_address(text)` makes of `text`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum IpAddress<'a> {
    /// An `IPv4Address`.
    V4(u32),
    /// An `IPv6Address` and its scope id (the text after `%`).
    V6(u128, Option<&'a str>),
}

/// `ipaddress.ip_address(text)`; `None` where it raises `ValueError`.
pub(super) fn ip_address(text: &str) -> Option<IpAddress<'_>> {
    if let Some(v4) = parse_v4(text) {
        return Some(IpAddress::V4(v4));
    }
    parse_v6(text).map(|(ip, scope)| IpAddress::V6(ip, scope))
}

/// `IPv4Address(text)`: four dot-separated decimal octets of 1 to 3 ASCII digits, no
/// leading zero, each at most 255.
fn parse_v4(text: &str) -> Option<u32> {
    let mut ip = 0u32;
    let mut count = 0;
    for octet in text.split('.') {
        count += 1;
        if count > 4 {
            return None;
        }
        let b = octet.as_bytes();
        if b.is_empty() || b.len() > 3 || !b.iter().all(u8::is_ascii_digit) {
            return None;
        }
        if b.len() > 1 && b[0] == b'0' {
            return None;
        }
        let value = b.iter().fold(0u32, |v, d| v * 10 + u32::from(d - b'0'));
        if value > 255 {
            return None;
        }
        ip = (ip << 8) | value;
    }
    (count == 4).then_some(ip)
}

/// `IPv6Address(text)`: `_split_scope_id` then `_ip_int_from_string`.
fn parse_v6(text: &str) -> Option<(u128, Option<&str>)> {
    let (addr, scope) = match text.split_once('%') {
        None => (text, None),
        Some((_, "")) => return None,
        Some((_, scope)) if scope.contains('%') => return None,
        Some((addr, scope)) => (addr, Some(scope)),
    };
    ip_int_from_string(addr).map(|ip| (ip, scope))
}

/// `_BaseV6._ip_int_from_string`: at most 8 hextets (a dotted IPv4 tail counts for two), one
/// `::` at most, a leading or trailing `:` only as part of `::`.
fn ip_int_from_string(addr: &str) -> Option<u128> {
    // The parts, with a dotted IPv4 last part replaced by its two hextets.
    let mut parts: [&str; 10] = [""; 10];
    let mut tail = [0u16; 2];
    let mut n = 0;
    let mut v4_tail = false;
    let count = addr.split(':').count();
    if count < 3 {
        return None;
    }
    for (i, part) in addr.split(':').enumerate() {
        if i + 1 == count && part.contains('.') {
            let v4 = parse_v4(part)?;
            tail = [(v4 >> 16) as u16, v4 as u16];
            v4_tail = true;
        } else {
            if n >= 9 {
                return None; // more than 8 colons
            }
            parts[n] = part;
            n += 1;
        }
    }
    let total = n + if v4_tail { 2 } else { 0 };
    if total > 9 {
        return None;
    }
    // The hextet texts, the IPv4 tail's as placeholders read from `tail`.
    let hextet = |i: usize| -> Option<u16> {
        if i >= n {
            return tail.get(i - n).copied();
        }
        parse_hextet(parts[i])
    };
    let is_empty = |i: usize| i < n && parts[i].is_empty();
    let mut skip = None;
    for i in 1..total.saturating_sub(1) {
        if is_empty(i) {
            if skip.is_some() {
                return None;
            }
            skip = Some(i);
        }
    }
    let (hi, lo, skipped) = match skip {
        Some(s) => {
            let mut hi = s;
            let mut lo = total - s - 1;
            if is_empty(0) {
                hi -= 1;
                if hi != 0 {
                    return None;
                }
            }
            if is_empty(total - 1) {
                lo -= 1;
                if lo != 0 {
                    return None;
                }
            }
            let skipped = 8usize.checked_sub(hi + lo).filter(|&k| k >= 1)?;
            (hi, lo, skipped)
        }
        None => {
            if total != 8 || is_empty(0) || is_empty(total - 1) {
                return None;
            }
            (total, 0, 0)
        }
    };
    let mut ip = 0u128;
    for i in 0..hi {
        ip = (ip << 16) | u128::from(hextet(i)?);
    }
    ip = ip.checked_shl(16 * skipped as u32).unwrap_or(0);
    for i in total - lo..total {
        ip = (ip << 16) | u128::from(hextet(i)?);
    }
    Some(ip)
}

/// `_BaseV6._parse_hextet`: 1 to 4 ASCII hex digits.
fn parse_hextet(text: &str) -> Option<u16> {
    let b = text.as_bytes();
    if b.is_empty() || b.len() > 4 || !b.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u16::from_str_radix(text, 16).ok()
}

/// Appends `str(IPv6Address)` for `ip` and `scope` to `out`.
pub(super) fn write_v6(ip: u128, scope: Option<&str>, out: &mut String) {
    let hextets: [u16; 8] = core::array::from_fn(|i| (ip >> (112 - 16 * i)) as u16);
    // `_compress_hextets`: the longest run of zero hextets, the first of equal ones.
    let (mut best, mut best_len, mut run, mut run_len) = (0, 0, 0, 0);
    for (i, &h) in hextets.iter().enumerate() {
        if h == 0 {
            if run_len == 0 {
                run = i;
            }
            run_len += 1;
            if run_len > best_len {
                (best, best_len) = (run, run_len);
            }
        } else {
            run_len = 0;
        }
    }
    // `":".join(hextets)` with the run replaced by one empty piece, and one more empty piece
    // when the run starts or ends the address.
    let compress = best_len > 1;
    let mut first = true;
    let mut piece = |text: Option<u16>, out: &mut String| {
        if !first {
            out.push(':');
        }
        first = false;
        if let Some(h) = text {
            push_hex(h, out);
        }
    };
    if compress && best == 0 {
        piece(None, out);
    }
    let mut i = 0;
    while i < 8 {
        if compress && i == best {
            piece(None, out);
            i += best_len;
            if i == 8 {
                piece(None, out);
            }
            continue;
        }
        piece(Some(hextets[i]), out);
        i += 1;
    }
    if let Some(scope) = scope {
        out.push('%');
        out.push_str(scope);
    }
}

/// Appends `'%x' % h`.
fn push_hex(h: u16, out: &mut String) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut started = false;
    for shift in [12, 8, 4, 0] {
        let d = usize::from((h >> shift) & 0xF);
        if d != 0 || started || shift == 0 {
            out.push(char::from(DIGITS[d]));
            started = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Option<String> {
        match ip_address(s)? {
            IpAddress::V4(_) => Some("v4".into()),
            IpAddress::V6(ip, scope) => {
                let mut out = String::new();
                write_v6(ip, scope, &mut out);
                Some(out)
            }
        }
    }

    #[test]
    fn compat_w3lib_ip_vectors_from_python_3_11() {
        // (input, str(ip_address(input)) or None where it raises), from Python 3.11.7.
        let cases: &[(&str, Option<&str>)] = &[
            ("::", Some("::")),
            ("::1", Some("::1")),
            ("::0:1", Some("::1")),
            ("1::", Some("1::")),
            ("1:0:0:2:0:0:0:3", Some("1:0:0:2::3")),
            ("1:0:0:2:0:0:3:4", Some("1::2:0:0:3:4")),
            ("1:0:2:3:4:5:6:7", Some("1:0:2:3:4:5:6:7")),
            ("0:0:0:0:0:0:0:0", Some("::")),
            ("FFFF::ABCD", Some("ffff::abcd")),
            ("::ffff:1.2.3.4", Some("::ffff:102:304")),
            ("1:2:3:4:5:6:1.2.3.4", Some("1:2:3:4:5:6:102:304")),
            ("fe80::1%eth0", Some("fe80::1%eth0")),
            ("fe80::1%", None),
            ("fe80::1%a%b", None),
            ("1:2:3:4:5:6:7:8:9", None),
            ("1:2:3:4:5:6:7::", Some("1:2:3:4:5:6:7:0")),
            ("::1:2:3:4:5:6:7", Some("0:1:2:3:4:5:6:7")),
            ("1:2:3:4:5:6:7:8::", None),
            (":1::2", None),
            ("1::2:", None),
            ("1:::2", None),
            ("1::2::3", None),
            ("12345::", None),
            ("::01.2.3.4", None),
            ("::1.2.3", None),
            ("1:2", None),
            ("1.2.3.4", Some("v4")),
            ("01.2.3.4", None),
            ("256.1.1.1", None),
            ("", None),
        ];
        for &(input, want) in cases {
            assert_eq!(text(input).as_deref(), want, "{input}");
        }
    }
}
