//! LDH hosts: names of letters, digits, hyphens and dots whose labels already hold to the
//! rules of [`dns_host`](super::dns_host) (RFC 1123 §2.1 and RFC 3490 §4.1 STD3: 1–63
//! octets a label, at most 253 a name, no hyphen first or last; no `--` in the third and
//! fourth positions, RFC 5891 §4.2.3.1, so every `xn--` label is left to the IDNA path).
//! Such a host needs nothing but lowercasing: both of its forms are the name itself. The
//! parser marks hosts of these bytes ([`is_ldh_byte`]) and the fast path asks the same
//! label shapes ([`has_ldh_label_shapes`]).

use crate::iri::find::{find, positions2};

/// Whether `b` may be a byte of a host that [`is_valid_ldh_host`] takes: an ASCII letter or
/// digit, `-` or `.` (the parser marks hosts made of these alone).
#[inline]
pub(crate) const fn is_ldh_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'.'
}

/// If `host` is a valid LDH host ([`is_valid_ldh_host`]), appends it lowercased, which is
/// both of its forms under [`dns_host`](super::dns_host), and returns `true`; otherwise appends nothing.
pub(super) fn write_valid_ldh_host(host: &str, out: &mut String) -> bool {
    host.bytes().all(is_ldh_byte) && write_ldh_host(host, out)
}

/// For a host known to hold only [`is_ldh_byte`] bytes: if it is a valid LDH host (its
/// lengths and label shapes, [`is_valid_ldh_host`]), appends it lowercased, which is both
/// of its forms under [`dns_host`](super::dns_host), and returns `true`; otherwise appends nothing.
#[inline]
pub(crate) fn write_ldh_host(host: &str, out: &mut String) -> bool {
    debug_assert!(host.bytes().all(is_ldh_byte), "{host:?}");
    if !has_ldh_shape(host.as_bytes()) {
        return false;
    }
    let start = out.len();
    out.push_str(host);
    out[start..].make_ascii_lowercase();
    true
}

/// [`is_valid_ldh_host`] for bytes already known to be [`is_ldh_byte`]s: the lengths of
/// the name and of its labels, and each label's shape.
fn has_ldh_shape(b: &[u8]) -> bool {
    let body = b.strip_suffix(b".").unwrap_or(b);
    if body.is_empty() || body.len() > 253 {
        return false;
    }
    if body.len() < 64 {
        return has_short_ldh_shape(body);
    }
    let mut start = 0;
    while let Some(i) = find(b'.', &body[start..]) {
        if !is_ldh_label_shape(&body[start..start + i]) {
            return false;
        }
        start += i + 1;
    }
    is_ldh_label_shape(&body[start..])
}

/// [`has_ldh_shape`] for a body (the name without its root dot) of 1 to 63 bytes, whose
/// labels are never too long: from the masks of its dots and hyphens, one bit per byte.
#[inline]
fn has_short_ldh_shape(body: &[u8]) -> bool {
    let (dots, hyphens) = positions2(b'.', b'-', body);
    has_ldh_label_shapes(body.len(), dots, hyphens)
}

/// The label shapes of [`is_ldh_label_shape`], at once, for a name body (without its root
/// dot) of `len` bytes, 1 to 63, of letters, digits, `-` and `.`, whose dots and hyphens
/// are the set bits of `dots` and `hyphens` (bit `k` for byte `k`). The fast path asks this
/// too, with the masks its scan made.
#[inline(always)]
pub(crate) fn has_ldh_label_shapes(len: usize, dots: u64, hyphens: u64) -> bool {
    debug_assert!((1..64).contains(&len));
    let last = 1u64 << (len - 1);
    // No empty label: no dot first or last, no two dots in a row.
    if dots & (1 | last) != 0 || dots & (dots >> 1) != 0 {
        return false;
    }
    if hyphens == 0 {
        // Most names.
        return true;
    }
    // No hyphen first or last in a label.
    let (starts, ends) = (1 | dots << 1, last | dots >> 1);
    if hyphens & (starts | ends) != 0 {
        return false;
    }
    // No "--" in the third and fourth positions (a label of two bytes or less has its
    // "third" byte in the next label, which does not start with a hyphen, or is a dot).
    hyphens & (starts << 2) & (hyphens >> 1) == 0
}

/// Whether a pure-ASCII host is already a valid host under the rules of [`dns_host`] and
/// needs nothing but lowercasing: what [`write_valid_ldh_host`] takes, as one predicate,
/// for the tests (of this module and of the fast path's hosts).
#[cfg(test)]
pub(crate) fn is_valid_ldh_host(b: &[u8]) -> bool {
    b.iter().all(|&c| is_ldh_byte(c)) && has_ldh_shape(b)
}

/// Whether a label of letters, digits and hyphens has 1–63 octets, no hyphen first or last,
/// and no `--` in the third and fourth positions (every `xn--` label among them goes to the
/// slow path, where an A-label is validated by decoding it).
fn is_ldh_label_shape(label: &[u8]) -> bool {
    let n = label.len();
    (1..=63).contains(&n)
        && label[0] != b'-'
        && label[n - 1] != b'-'
        && !(n >= 4 && label[2] == b'-' && label[3] == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iri::host::{dns_host, HostForm};

    /// The LDH fast path's rules read off directly, byte by byte: the reference below.
    fn ldh_reference(host: &[u8]) -> bool {
        let body = host.strip_suffix(b".").unwrap_or(host);
        let label_ok = |l: &[u8]| {
            (1..=63).contains(&l.len())
                && l.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'-')
                && l[0] != b'-'
                && l[l.len() - 1] != b'-'
                && !(l.len() >= 4 && &l[2..4] == b"--")
        };
        !body.is_empty() && body.len() <= 253 && body.split(|&c| c == b'.').all(label_ok)
    }

    #[test]
    fn every_short_name_of_letters_hyphens_and_dots_is_judged_as_the_reference_does() {
        // Every text of up to 8 bytes over `a`, `-` and `.` (9,841 of them): each label
        // shape, empty labels, hyphens first, last and in the third and fourth positions.
        let mut texts = vec![Vec::new()];
        for _ in 0..8 {
            let longer: Vec<Vec<u8>> = texts
                .iter()
                .filter(|t| t.len() == texts.last().map_or(0, Vec::len))
                .flat_map(|t| b"a-.".iter().map(move |&c| [t.as_slice(), &[c]].concat()))
                .collect();
            texts.extend(longer);
        }
        assert_eq!(texts.len(), 9841);
        for t in &texts {
            assert_eq!(
                is_valid_ldh_host(t),
                ldh_reference(t),
                "{:?}",
                String::from_utf8_lossy(t)
            );
        }
        // Labels of 63 and 64 bytes, in bodies of up to 64 bytes and more.
        for name in [
            "a".repeat(63),
            format!("{}.", "a".repeat(63)),
            "a".repeat(64),
            format!("{}.b", "a".repeat(63)),
            format!("b.{}", "a".repeat(62)),
            format!("b.{}", "a".repeat(64)),
        ] {
            assert_eq!(
                is_valid_ldh_host(name.as_bytes()),
                ldh_reference(name.as_bytes()),
                "{name}"
            );
        }
    }

    proptest::proptest! {
        /// `is_valid_ldh_host` is the reference, and a host `write_ldh_host` takes is
        /// written as `dns_host` writes it in both forms.
        #[test]
        fn ldh_hosts_are_judged_by_the_rules_and_written_as_dns_host_writes_them(
            host in "[a-zA-Z0-9.-]{0,70}|[a-z]{1,5}(\\.[a-z-]{0,64}){0,4}\\.?|xn--[a-z0-9-]{0,12}\\.com|[a-z%_é.]{0,9}|([a-z0-9]{0,4}-{0,2}){1,3}(\\.([a-z0-9]{0,4}-{0,2}){0,3}){0,4}\\.?"
        ) {
            proptest::prop_assert_eq!(is_valid_ldh_host(host.as_bytes()), ldh_reference(host.as_bytes()));
            if host.bytes().all(is_ldh_byte) {
                let mut ldh = String::from("|");
                let taken = write_ldh_host(&host, &mut ldh);
                proptest::prop_assert_eq!(taken, is_valid_ldh_host(host.as_bytes()));
                for form in [HostForm::Ascii, HostForm::Unicode] {
                    let mut dns = String::from("|");
                    let r = dns_host(&host, form, &mut dns);
                    if taken {
                        proptest::prop_assert!(r.is_ok());
                        proptest::prop_assert_eq!(&ldh, &dns);
                    }
                }
                if !taken {
                    proptest::prop_assert_eq!(ldh, "|");
                }
            }
        }
    }
}
