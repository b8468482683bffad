//! IP literals in a host: `IPv4address`, `IPv6address` and `IPvFuture` exactly as the
//! ABNF of RFC 3986 §3.2.2 spells them, the canonical text form of an IPv6 address
//! (RFC 5952 §4, §5), and the lowercasing of an IP literal at the syntax-based rung
//! (RFC 3986 §6.2.2.1).
//!
//! Nothing here sees brackets: callers strip the `[` `]` around an IP literal first.

use crate::iri::chars;

/// Parses `dec-octet "." dec-octet "." dec-octet "." dec-octet` covering all of `b`.
///
/// `dec-octet` (RFC 3986 §3.2.2) is `DIGIT / %x31-39 DIGIT / "1" 2DIGIT / "2" %x30-34 DIGIT /
/// "25" %x30-35`, which is exactly the decimal numbers 0–255 written without leading zeros.
fn parse_ipv4(b: &[u8]) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut i = 0;
    for (k, slot) in out.iter_mut().enumerate() {
        if k > 0 {
            if b.get(i) != Some(&b'.') {
                return None;
            }
            i += 1;
        }
        let start = i;
        let mut v: u16 = 0;
        while i < b.len() && b[i].is_ascii_digit() && i - start < 3 {
            v = v * 10 + u16::from(b[i] - b'0');
            i += 1;
        }
        let digits = i - start;
        if digits == 0 || v > 255 || (digits > 1 && b[start] == b'0') {
            return None;
        }
        *slot = v as u8;
    }
    if i == b.len() {
        Some(out)
    } else {
        None
    }
}

/// Whether `s` is an `IPv4address` of RFC 3986 §3.2.2:
/// `dec-octet "." dec-octet "." dec-octet "." dec-octet`.
///
/// `dec-octet` is taken exactly as the ABNF has it: 0–255 in decimal with no leading zeros,
/// so `"0"` is a `dec-octet` and `"01"` or `"000"` are not. Anything else (three or five
/// parts, a trailing dot, signs, spaces) is not an `IPv4address`.
pub fn is_ipv4address(s: &str) -> bool {
    parse_ipv4(s.as_bytes()).is_some()
}

/// [`is_ipv4address`] over the bytes of a text.
pub(crate) fn is_ipv4address_bytes(b: &[u8]) -> bool {
    parse_ipv4(b).is_some()
}

/// Parses an `IPv6address` of RFC 3986 §3.2.2 into its eight 16-bit groups.
///
/// Accepts exactly the nine alternatives of the ABNF, with `h16 = 1*4HEXDIG` (either case)
/// and `ls32 = ( h16 ":" h16 ) / IPv4address`: eight groups without `::`, or at most seven
/// explicit groups with one `::` standing for one or more zero groups, where an embedded
/// `IPv4address` may only take the place of the last two groups. Everything else is
/// rejected: zone identifiers (`%eth0`, RFC 6874 is not part of RFC 3986), brackets,
/// groups of five or more hex digits, a second `::`, too many or too few groups, a lone
/// leading or trailing `:`, an `IPv4address` anywhere but at the end, and dotted parts that
/// are not `dec-octet`s (`::01.2.3.4`, `::256.0.0.1`).
///
/// One left-to-right pass over the bytes, no allocation.
pub fn parse_ipv6(s: &str) -> Option<[u16; 8]> {
    let b = s.as_bytes();
    let mut groups = [0u16; 8];
    let mut n = 0usize; // explicit groups written so far
    let mut gap: Option<usize> = None; // group index where "::" stands
    let mut i = 0usize;

    if b.starts_with(b"::") {
        gap = Some(0);
        i = 2;
    } else if b.first() == Some(&b':') {
        return None;
    }

    while i < b.len() {
        if n == 8 {
            return None;
        }
        let start = i;
        let v;
        (v, i) = hex_group(b, i);
        let digits = i - start;
        if digits == 0 {
            return None;
        }
        if b.get(i) == Some(&b'.') {
            // ls32 as IPv4address: must fill the last two groups and end the input.
            if n > 6 {
                return None;
            }
            let v4 = parse_ipv4(&b[start..])?;
            groups[n] = u16::from_be_bytes([v4[0], v4[1]]);
            groups[n + 1] = u16::from_be_bytes([v4[2], v4[3]]);
            n += 2;
            break;
        }
        if digits > 4 {
            return None;
        }
        groups[n] = v as u16;
        n += 1;
        if i == b.len() {
            break;
        }
        if b[i] != b':' {
            return None;
        }
        i += 1;
        if b.get(i) == Some(&b':') {
            if gap.is_some() {
                return None;
            }
            gap = Some(n);
            i += 1;
        } else if i == b.len() {
            // A lone trailing ':'.
            return None;
        }
    }

    expand_gap(groups, n, gap)
}

/// Reads the hex digits of one IPv6 group at `b[i..]`: its value and where they end. At
/// most five are read: five already prove the group too long (and no dec-octet has more
/// than three digits, so it cannot be an IPv4address either).
#[inline]
fn hex_group(b: &[u8], mut i: usize) -> (u32, usize) {
    let start = i;
    let mut v: u32 = 0;
    while i < b.len() && i - start < 5 {
        match chars::hex_value(b[i]) {
            Some(h) => {
                v = (v << 4) | u32::from(h);
                i += 1;
            }
            None => break,
        }
    }
    (v, i)
}

/// The eight groups of an address whose `n` explicit groups were read, with the zero
/// groups of the `::` at group index `gap` put in (RFC 4291 §2.2 form 2).
fn expand_gap(mut groups: [u16; 8], n: usize, gap: Option<usize>) -> Option<[u16; 8]> {
    match gap {
        None if n == 8 => Some(groups),
        None => None,
        Some(_) if n > 7 => None,
        Some(p) => {
            let tail = n - p;
            groups.copy_within(p..n, 8 - tail);
            groups[p..8 - tail].fill(0);
            Some(groups)
        }
    }
}

/// Whether `s` is an `IPvFuture` of RFC 3986 §3.2.2:
/// `"v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )`.
///
/// The `v` matches case-insensitively, as every literal string in ABNF does (RFC 5234 §2.3);
/// the hex digits may be of either case.
pub fn is_ipvfuture(s: &str) -> bool {
    let b = s.as_bytes();
    if !matches!(b.first(), Some(b'v' | b'V')) {
        return false;
    }
    let mut i = 1;
    while i < b.len() && b[i].is_ascii_hexdigit() {
        i += 1;
    }
    if i == 1 || b.get(i) != Some(&b'.') {
        return false;
    }
    let rest = &b[i + 1..];
    !rest.is_empty()
        && rest
            .iter()
            .all(|&c| chars::is(c, chars::UNRESERVED | chars::SUB_DELIM) || c == b':')
}

/// Appends the canonical text form of an IPv6 address (RFC 5952 §4), without brackets.
///
/// * §4.1: leading zeros of each group are dropped, a zero group is written `0`;
/// * §4.2.1–§4.2.3: the longest run of two or more zero groups becomes `::`, the first one
///   when two runs are equally long; a single zero group is never shortened;
/// * §4.3: hex digits are lowercase;
/// * §5: an IPv4-mapped address (`::ffff:0:0/96`, the one well-known prefix RFC 4291 defines
///   for embedding) is written in mixed notation, `::ffff:192.0.2.1`. Other prefixes
///   (IPv4-compatible, ISATAP, NAT64) stay in plain hex.
pub fn write_ipv6_rfc5952(addr: &[u16; 8], out: &mut String) {
    if addr[..5].iter().all(|&g| g == 0) && addr[5] == 0xffff {
        let [a, b] = addr[6].to_be_bytes();
        let [c, d] = addr[7].to_be_bytes();
        use std::fmt::Write as _;
        let _ = write!(out, "::ffff:{a}.{b}.{c}.{d}");
        return;
    }

    // Longest run of zero groups, the first one on a tie; runs of one do not count.
    let (mut best_start, mut best_len) = (8usize, 0usize);
    let mut k = 0;
    while k < 8 {
        if addr[k] == 0 {
            let start = k;
            while k < 8 && addr[k] == 0 {
                k += 1;
            }
            if k - start > best_len {
                best_start = start;
                best_len = k - start;
            }
        } else {
            k += 1;
        }
    }
    if best_len < 2 {
        best_start = 8;
        best_len = 0;
    }

    let mut k = 0;
    while k < 8 {
        if k == best_start {
            out.push_str("::");
            k += best_len;
            continue;
        }
        if k > 0 && k != best_start + best_len {
            out.push(':');
        }
        write_hex_group(addr[k], out);
        k += 1;
    }
}

/// Appends one 16-bit group as lowercase hex without leading zeros (RFC 5952 §4.1, §4.3).
fn write_hex_group(g: u16, out: &mut String) {
    const HEX_LOWER: &[u8; 16] = b"0123456789abcdef";
    let mut started = false;
    for shift in [12u32, 8, 4, 0] {
        let nibble = ((g >> shift) & 0xf) as usize;
        if nibble != 0 || started || shift == 0 {
            started = true;
            out.push(HEX_LOWER[nibble] as char);
        }
    }
}

/// Appends `s` with ASCII letters lowercased and nothing else changed.
///
/// This is the case normalization of RFC 3986 §6.2.2.1 for an IP literal (`IPv6address` or
/// `IPvFuture`, without brackets): the syntax-based rung lowercases the literal but does not
/// compress or otherwise rewrite it (that is [`write_ipv6_rfc5952`], a scheme-independent
/// but not purely syntactic step).
pub fn lowercase_ip_literal(s: &str, out: &mut String) {
    let start = out.len();
    out.push_str(s);
    out[start..].make_ascii_lowercase();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(s: &str) -> String {
        let a = parse_ipv6(s).unwrap_or_else(|| panic!("{s:?} should parse"));
        let mut out = String::new();
        write_ipv6_rfc5952(&a, &mut out);
        out
    }

    #[test]
    fn ipv4_edges() {
        for ok in [
            "0.0.0.0",
            "255.255.255.255",
            "192.0.2.1",
            "10.0.0.1",
            "1.22.199.249",
        ] {
            assert!(is_ipv4address(ok), "{ok}");
        }
        for bad in [
            "256.0.0.1",
            "01.2.3.4",
            "1.2.3.04",
            "000.0.0.0",
            "1.2.3",
            "1.2.3.4.",
            ".1.2.3.4",
            "1.2.3.4.5",
            "1..2.3",
            "",
            "1.2.3.-4",
            "1.2.3.+4",
            " 1.2.3.4",
            "1.2.3.1000",
            "1.2.3.a",
            "0x1.2.3.4",
            "300.1.1.1",
            "260.1.1.1",
        ] {
            assert!(!is_ipv4address(bad), "{bad}");
        }
    }

    #[test]
    fn ipv6_rfc5952_examples() {
        for (input, want) in [
            ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
            ("2001:0db8::0001", "2001:db8::1"),
            ("2001:db8:0:0:0:0:2:1", "2001:db8::2:1"),
            ("2001:db8::0:1", "2001:db8::1"),
            ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
            ("2001:db8::1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
            ("2001:0:0:1:0:0:0:1", "2001:0:0:1::1"),
            ("2001:DB8::ABCD:EF01", "2001:db8::abcd:ef01"),
            ("2001:Db8:0:0:0:0:0:0", "2001:db8::"),
            ("::", "::"),
            ("0:0:0:0:0:0:0:0", "::"),
            ("::1", "::1"),
            ("0:0:0:0:0:0:0:1", "::1"),
            ("1::", "1::"),
            ("1:0:0:0:0:0:0:0", "1::"),
            ("1:0:1:0:1:0:1:0", "1:0:1:0:1:0:1:0"),
            ("::ffff:192.0.2.1", "::ffff:192.0.2.1"),
            ("::FFFF:c000:0201", "::ffff:192.0.2.1"),
            ("0:0:0:0:0:ffff:192.0.2.1", "::ffff:192.0.2.1"),
            ("::ffff:0.0.0.0", "::ffff:0.0.0.0"),
            ("::1.2.3.4", "::102:304"),
            ("64:ff9b::192.0.2.33", "64:ff9b::c000:221"),
            ("1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"),
            ("1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"),
            ("::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8"),
            (
                "FEDC:BA98:7654:3210:FEDC:BA98:7654:3210",
                "fedc:ba98:7654:3210:fedc:ba98:7654:3210",
            ),
            ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
            ("0:0:1:0:0:1:0:0", "::1:0:0:1:0:0"),
        ] {
            assert_eq!(canon(input), want, "{input}");
            // The canonical form parses back to the same address and is a fixed point.
            assert_eq!(parse_ipv6(want), parse_ipv6(input), "{want}");
            assert_eq!(canon(want), want);
        }
        assert_eq!(
            parse_ipv6("2001:db8::1:0:0:1"),
            Some([0x2001, 0xdb8, 0, 0, 1, 0, 0, 1])
        );
        assert_eq!(
            parse_ipv6("::ffff:192.0.2.1"),
            Some([0, 0, 0, 0, 0, 0xffff, 0xc000, 0x0201])
        );
    }

    #[test]
    fn ipv6_invalid() {
        for bad in [
            "1:2:3:4:5:6:7:8:9",
            "1::2::3",
            "12345::",
            "::12345",
            ":1::",
            "1:::2",
            ":::",
            "::1%eth0",
            "fe80::1%25eth0",
            "::256.0.0.1",
            "::01.2.3.4",
            "1:2:3:4:5:6:7:1.2.3.4",
            "1:2:3:4:5:6:7",
            "1:2:3:4:5:6:7:8::",
            "::1:2:3:4:5:6:7:8",
            "1:2:3:4::5:6:7:8",
            "1.2.3.4::",
            "1.2.3.4:1::",
            "::1.2.3.4:1",
            "::1.2.3",
            "::1.2.3.4.5",
            "1:",
            ":1",
            ":",
            "",
            "1",
            "1:2",
            "[::1]",
            "::g",
            "1::2:",
            ":1:2:3:4:5:6:7",
            "1:2:3:4:5:6:7:",
            "::a.b.c.d",
            "::ffff:1.2.3.4.",
            " ::1",
            "::1 ",
            "1:2:3:4:5:6:7:8:",
            "::ffff:0x1.2.3.4",
        ] {
            assert_eq!(parse_ipv6(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn ipv6_accepts_each_abnf_alternative() {
        for ok in [
            "1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:1.2.3.4",
            "::2:3:4:5:6:7:8",
            "::2:3:4:5:6:1.2.3.4",
            "1::3:4:5:6:7:8",
            "::3:4:5:6:7:8",
            "1:2::4:5:6:7:8",
            "1:2:3::5:6:7:8",
            "1:2:3:4::6:7:8",
            "1:2:3:4:5::7:8",
            "1:2:3:4:5::1.2.3.4",
            "1:2:3:4:5:6::8",
            "1:2:3:4:5:6:7::",
            "::",
            "::8",
            "1::",
            "::1.2.3.4",
            "abcd:EF01::ffff",
            "0000:0000::0000",
        ] {
            assert!(parse_ipv6(ok).is_some(), "{ok}");
        }
    }

    #[test]
    fn ipvfuture() {
        for ok in ["v1.x", "V7.a:b", "vF.~-._!$&'()*+,;=:", "v1aB.0", "v1.:"] {
            assert!(is_ipvfuture(ok), "{ok}");
        }
        for bad in [
            "v.x", "v1.", "vG.x", "1.x", "v1x", "", "v", "v1.x/", "v1.x%20", "v1.[", "w1.x",
        ] {
            assert!(!is_ipvfuture(bad), "{bad}");
        }
    }

    #[test]
    fn lowercase_literal() {
        let mut out = String::from("[");
        lowercase_ip_literal("2001:DB8:0:0::1", &mut out);
        assert_eq!(out, "[2001:db8:0:0::1");
        let mut out = String::new();
        lowercase_ip_literal("V1F.AbC:!", &mut out);
        assert_eq!(out, "v1f.abc:!");
    }
}
