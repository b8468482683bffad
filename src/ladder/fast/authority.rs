//! The authority of a record (RFC 3986 §3.2): for a scheme whose hosts are DNS names, a
//! lowercase LDH host checked a block of masks at a time ([`FastPath::dns_authority`]);
//! for the others, a byte-class scan ([`FastPath::reg_authority_ok`]); then the port, and
//! what the scheme's row says about the host and an empty path.

use super::blocks::Blocks;
use super::scheme::FastScheme;
use super::tail::look;
use super::FastPath;
use crate::iri::chars;
use crate::iri::host;
use crate::iri::scheme::{self, SchemeRule};

/// A byte that the syntax rung would change or reject in an ASCII `reg-name`: anything but
/// lowercase `unreserved` and `sub-delims` (`:` and the authority's end excepted).
pub(super) const H_NOT_LOWER_REG: u8 = 1 << 0;
/// A byte that a `reg-name` cannot hold raw: anything but `unreserved` and `sub-delims`
/// (`:` and the authority's end excepted).
pub(super) const H_NOT_STRING: u8 = 1 << 1;
/// `:`.
const H_COLON: u8 = 1 << 2;
/// A byte that ends the authority: `/`, `?`, `#`, or the line feed that ends the record.
const H_END: u8 = 1 << 3;

const fn build_host_table() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        let mut f = 0u8;
        if b == b':' {
            f |= H_COLON;
        } else if matches!(b, b'/' | b'?' | b'#' | b'\n') {
            f |= H_END;
        } else {
            let reg = chars::ASCII_CLASS[i] & (chars::UNRESERVED | chars::SUB_DELIM) != 0;
            if !reg {
                f |= H_NOT_STRING;
            }
            if !reg || b.is_ascii_uppercase() {
                f |= H_NOT_LOWER_REG;
            }
        }
        t[i] = f;
        i += 1;
    }
    t
}

/// The class of every byte value, for authorities without a DNS rule.
static HOST_CLASS: [u8; 256] = build_host_table();

/// Scans `b` from `from` to the first byte whose class (in `table`) has a bit of `stop`.
/// Returns its index (or `b.len()`) and the OR of the classes of the bytes before it.
#[inline]
fn scan_to_stop(b: &[u8], from: usize, table: &[u8; 256], stop: u8) -> (usize, u8) {
    let mut acc = 0u8;
    for (k, &c) in b[from..].iter().enumerate() {
        let class = table[c as usize];
        if class & stop != 0 {
            return (from + k, acc);
        }
        acc |= class;
    }
    (b.len(), acc)
}

/// The bits below bit `n` (`n <= 64`).
#[inline(always)]
fn low_bits(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// Whether byte `at` of `b` ends an authority: `/ ? #`, or the end of the record (a line
/// feed, or a carriage return that the scan of the tail then finds before one).
#[inline(always)]
fn ends_authority(b: &[u8], at: usize) -> bool {
    matches!(b.get(at), None | Some(b'/' | b'?' | b'#' | b'\r' | b'\n'))
}

/// The masks of the bytes of `a-z 0-9 - .` from `start`, up to 64 of them, one block at a
/// time: (not LDH, `.`, `-`), bit `k` for byte `start + k`.
#[inline(always)]
fn host_bits<L: Blocks>(lanes: L, b: &[u8], start: usize) -> (u64, u64, u64) {
    let (mut not_ldh, mut dot, mut hyphen) = (0u64, 0u64, 0u64);
    for k in 0..64 / L::WIDTH {
        let at = L::WIDTH * k;
        let m = lanes.host_masks(b, start + at);
        not_ldh |= m.not_ldh << at;
        dot |= m.dot << at;
        hyphen |= m.hyphen << at;
        if m.not_ldh != 0 {
            break;
        }
    }
    (not_ldh, dot, hyphen)
}

/// Whether a host of `a-z 0-9 - .` of `len` bytes (0 < `len` < 64, with the masks `dot` and
/// `hyphen` of its bytes) is an LDH name: one trailing root dot allowed, and the labels
/// before it shaped as the IRI core's rule says ([`host::has_ldh_label_shapes`]).
#[inline(always)]
fn ldh_labels(len: usize, dot: u64, hyphen: u64) -> bool {
    let body = len - ((dot >> (len - 1)) & 1) as usize;
    body > 0 && host::has_ldh_label_shapes(body, dot & low_bits(body), hyphen & low_bits(body))
}

/// Whether a host is a valid LDH name in lowercase: what the fast path of
/// [`host::dns_host`] takes as it is (`is_valid_ldh_host`: labels of letters, digits and
/// hyphens, 1–63 octets, no hyphen first or last, no `--` in the third and fourth position,
/// so no `xn--` label; at most 253 octets; one trailing root dot allowed), with no
/// uppercase letter: such a host is its own A-label and U-label form. The reference the
/// tests hold the fast path's hosts to.
#[cfg(test)]
pub(super) fn is_lowercase_ldh_host(b: &[u8]) -> bool {
    host::is_valid_ldh_host(b) && !b.iter().any(u8::is_ascii_uppercase)
}

/// Where an authority the fast path takes ends, and where its host does (the host is never
/// preceded by userinfo: the fast path leaves userinfo to the full ladder).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct AuthorityEnds {
    /// The end of the host: the port's `:`, or the end of the authority.
    pub(super) host: usize,
    /// The end of the authority.
    pub(super) end: usize,
    /// The host is a lowercase LDH name (or empty): letters, digits, `-` and `.` only.
    pub(super) ldh: bool,
    /// The `.` of an LDH host (under 64 bytes), bit `k` for byte `k` of the host; 0 for
    /// other hosts.
    pub(super) dots: u64,
    /// The path is empty and the scheme's row writes it `/` (RFC 3986 §6.2.3): the key is
    /// not the record itself, but the record with a `/` at the end of the authority.
    pub(super) adds_slash: bool,
}

impl FastPath {
    /// The authority that starts at `start` (after its `//`), if it is valid and written
    /// as the rung writes it under the checks of the scheme's row `rule`, if any
    /// ([`FastScheme::of`]): where it ends, and where its host does.
    #[inline(always)]
    pub(super) fn authority<L: Blocks, const LOOK: u8>(
        &self,
        lanes: L,
        b: &[u8],
        start: usize,
        rule: Option<&'static SchemeRule>,
    ) -> Option<AuthorityEnds> {
        let row = rule.and_then(|r| FastScheme::of(r).row_checks());
        let no_localhost = row.is_some_and(|r| r.no_localhost);
        let mut ends = match row {
            Some(r) if r.dns_host => {
                self.dns_authority(lanes, b, start, Some(r.row), no_localhost)?
            }
            // Below the scheme rung ([`look::LDH_REG`]), a registered name that happens to be
            // a lowercase LDH name (most are) is taken with the masks of DNS hosts, which also
            // give its dots (for the SURT form); any other is looked at byte by byte.
            _ if LOOK & look::LDH_REG != 0 => {
                match self.dns_authority(lanes, b, start, row.map(|r| r.row), no_localhost) {
                    Some(ends) => ends,
                    None => self.reg_authority(b, start, row.map(|r| r.row), no_localhost)?,
                }
            }
            _ => self.reg_authority(b, start, row.map(|r| r.row), no_localhost)?,
        };
        let end = ends.end;
        let empty_path = || matches!(b.get(end), None | Some(b'?' | b'#' | b'\r' | b'\n'));
        ends.adds_slash = row.is_some_and(|r| r.empty_path_is_slash) && empty_path();
        Some(ends)
    }

    /// For a scheme without a DNS rule: the end of the authority that starts at `start`, if
    /// [`FastPath::reg_authority_ok`] takes it, looked at byte by byte; its host is not
    /// taken for an LDH name. With `no_localhost`, the host must not be `localhost`.
    #[inline(always)]
    fn reg_authority(
        &self,
        b: &[u8],
        start: usize,
        row: Option<&SchemeRule>,
        no_localhost: bool,
    ) -> Option<AuthorityEnds> {
        let (end, acc) = scan_to_stop(b, start, &HOST_CLASS, H_END);
        if !self.reg_authority_ok(&b[start..end], acc, row) {
            return None;
        }
        if no_localhost && is_localhost(b, start) {
            return None;
        }
        let host = b[start..end].iter().position(|&c| c == b':');
        Some(AuthorityEnds {
            host: host.map_or(end, |k| start + k),
            end,
            ldh: false,
            dots: 0,
            adds_slash: false,
        })
    }

    /// For a scheme whose hosts are DNS names (scheme rung): the end of the authority that
    /// starts at `start`, if it is valid and already canonical. The host must be empty or
    /// a lowercase LDH name, exactly what the fast path of [`host::dns_host`] takes, which
    /// is its own A-label and U-label form; no userinfo (nor anything else outside
    /// `a-z 0-9 - . :`); a canonical port if any (under `row`'s rule, if a row applies);
    /// with `no_localhost`, not `localhost`. Hosts of 64 bytes or more are left to the full
    /// ladder. For a registered name without a DNS rule, such a host is valid and
    /// canonical too (lowercase `unreserved`), so the same answer holds there.
    #[inline(always)]
    pub(super) fn dns_authority<L: Blocks>(
        &self,
        lanes: L,
        b: &[u8],
        start: usize,
        row: Option<&SchemeRule>,
        no_localhost: bool,
    ) -> Option<AuthorityEnds> {
        let (not_ldh, dot, hyphen) = host_bits(lanes, b, start);
        if not_ldh == 0 {
            // A host of 64 bytes or more: the full ladder.
            return None;
        }
        let host_len = not_ldh.trailing_zeros() as usize;
        // What follows the host: the end of the authority, or a port and then the end.
        let mut end = start + host_len;
        if b.get(end) == Some(&b':') {
            let port = end + 1;
            end = b[port..]
                .iter()
                .position(|c| !c.is_ascii_digit())
                .map_or(b.len(), |k| port + k);
            if !ends_authority(b, end) || !self.port_ok(&b[port..end], row) {
                return None;
            }
        } else if !ends_authority(b, end) {
            // Userinfo, an IP literal, or anything else: the full ladder.
            return None;
        }
        if host_len > 0 && !ldh_labels(host_len, dot, hyphen) {
            return None;
        }
        if no_localhost && b[start..start + host_len] == *scheme::DROPPED_HOST {
            return None;
        }
        Some(AuthorityEnds {
            host: start + host_len,
            end,
            ldh: true,
            dots: dot & low_bits(host_len),
            adds_slash: false,
        })
    }

    /// Whether the authority `a` (without its `//`) of a scheme without a DNS rule is valid
    /// and written as the rung writes it: no userinfo, no IP literal, no `%`, an ASCII host
    /// that is lowercase from the syntax rung on, a port in canonical form (under `row`'s
    /// rule, if a row applies). `acc` is the OR of the [`HOST_CLASS`] classes of its bytes.
    #[inline]
    fn reg_authority_ok(&self, a: &[u8], acc: u8, row: Option<&SchemeRule>) -> bool {
        // RFC 3987 §5.3.2.1: an ASCII host is lowercased.
        if acc & self.host_mask != 0 {
            return false;
        }
        if acc & H_COLON == 0 {
            return true;
        }
        let colon = memchr::memchr(b':', a).unwrap_or(a.len());
        self.port_ok(&a[colon + 1..], row)
    }

    /// Whether the port `p` (without its `:`) is valid and written as the rung writes it:
    /// the syntax rung drops an empty port, and a row writes its port as
    /// [`scheme::canonical_port`] says.
    #[inline]
    fn port_ok(&self, p: &[u8], row: Option<&SchemeRule>) -> bool {
        if !p.iter().all(u8::is_ascii_digit) {
            return false;
        }
        if self.string_level {
            return true;
        }
        if p.is_empty() {
            return false;
        }
        match row {
            Some(r) => {
                std::str::from_utf8(p).is_ok_and(|p| scheme::canonical_port(r, p) == Some(p))
            }
            None => true,
        }
    }
}

/// Whether the host that starts at byte `start` of `b` is the one a row may drop
/// ([`scheme::DROPPED_HOST`]): those letters, then a port or the end of the authority (the
/// fast path refuses it even with a port, which the full ladder keeps).
#[inline]
fn is_localhost(b: &[u8], start: usize) -> bool {
    let at = start + scheme::DROPPED_HOST.len();
    b[start..].starts_with(scheme::DROPPED_HOST)
        && (b.get(at) == Some(&b':') || ends_authority(b, at))
}

#[cfg(test)]
mod tests {
    use super::super::scalar::Scalar;
    use super::*;
    use crate::iri::scheme::lookup;
    use crate::ladder::Options;

    /// The end of the DNS authority `a`, with every backend this processor has, at the
    /// start of a text and after a prefix; they must all agree.
    fn dns_end(f: &FastPath, a: &str, rule: &SchemeRule) -> Option<usize> {
        let mut answers = vec![];
        for prefix in [
            "",
            "http://",
            "http://a-long-prefix-to-move-the-host-along/",
        ] {
            let b = format!("{prefix}{a}");
            let (b, at) = (b.as_bytes(), prefix.len());
            let minus = |e: Option<AuthorityEnds>| e.map(|e| e.end - at);
            answers.push(minus(f.dns_authority(Scalar, b, at, Some(rule), false)));
            #[cfg(target_arch = "x86_64")]
            {
                let sse2 = super::super::sse2::Sse2;
                answers.push(minus(f.dns_authority(sse2, b, at, Some(rule), false)));
                if let Some(lanes) = super::super::avx2::Avx2::detect() {
                    answers.push(minus(f.dns_authority(lanes, b, at, Some(rule), false)));
                }
            }
            #[cfg(all(target_arch = "x86_64", irinorm_avx512))]
            if let Some(lanes) = super::super::avx512::Avx512::detect() {
                answers.push(minus(f.dns_authority(lanes, b, at, Some(rule), false)));
            }
        }
        assert!(
            answers.windows(2).all(|p| p[0] == p[1]),
            "{a:?}: {answers:?}"
        );
        answers[0]
    }

    #[test]
    fn dns_authorities() {
        let f = FastPath::new(&Options::default());
        let http = lookup("http").unwrap();
        for (a, want) in [
            ("example.com/x", Some(11)),
            ("example.com", Some(11)),
            ("example.com.:8080?", Some(17)),
            ("a-b.c-d#", Some(7)),
            ("/", Some(0)),
            (":81/", Some(3)),
            ("1.2.3.4\n", Some(7)),
            ("Example.com/", None),
            ("example.com:80/", None),
            ("example.com:080/", None),
            ("example.com:/", None),
            ("example.com:8x/", None),
            ("user@example.com/", None),
            ("[::1]/", None),
            ("a..b/", None),
            (".a/", None),
            ("a../", None),
            ("./", None),
            ("-a.b/", None),
            ("a-.b/", None),
            ("a.-b/", None),
            ("a.b-/", None),
            ("xn--bcher-kva.example/", None),
            ("r4---sn.example/", None),
            ("ab--c/", None),
            ("a_b/", None),
            ("a%41/", None),
            ("\u{e9}/", None),
        ] {
            assert_eq!(dns_end(&f, a, http), want, "{a:?}");
        }
        assert_eq!(dns_end(&f, "abc--d.example/", http), Some(14));
        let long = format!("{}.com/", "a".repeat(59));
        assert_eq!(dns_end(&f, &long, http), Some(63));
        let longer = format!("{}.com/", "a".repeat(60));
        assert_eq!(dns_end(&f, &longer, http), None);
    }

    #[test]
    fn the_rows_checks_apply_to_the_authority() {
        let f = FastPath::new(&Options::default());
        let checks = |name: &str| lookup(name);
        let end = |a: &str, row| {
            f.authority::<_, 0>(Scalar, a.as_bytes(), 0, row)
                .map(|e| e.end)
        };
        assert_eq!(end("localhost/", checks("http")), Some(9));
        assert_eq!(end("localhost/", checks("file")), None);
        assert_eq!(end("localhost:1/", checks("file")), None);
        assert_eq!(end("localhost./", checks("file")), Some(10));
        assert_eq!(end("localhostx/", checks("file")), Some(10));
        // An empty path means "/" for http, not for file or a scheme without a row.
        let slash = |a: &str, row| {
            f.authority::<_, 0>(Scalar, a.as_bytes(), 0, row)
                .map(|e| e.adds_slash)
        };
        for a in [
            "example.com",
            "example.com?q",
            "example.com#f",
            "example.com:8080\r\n",
        ] {
            assert_eq!(slash(a, checks("http")), Some(true), "{a}");
        }
        assert_eq!(slash("example.com/", checks("http")), Some(false));
        assert_eq!(end("example.com", checks("file")), Some(11));
        assert_eq!(slash("example.com", checks("file")), Some(false));
        assert_eq!(end("example.com", None), Some(11));
        assert_eq!(slash("example.com", None), Some(false));
        // A port without a row is kept as written; an empty one is dropped.
        assert_eq!(end("example.com:80/", None), Some(14));
        assert_eq!(end("example.com:080/", None), Some(15));
        assert_eq!(end("example.com:/", None), None);
    }

    #[test]
    fn ports_are_written_as_the_row_writes_them() {
        let f = FastPath::new(&Options::default());
        for row in crate::iri::scheme::SCHEMES {
            for p in ["1", "8080", "0", "00", "0080", "65535"] {
                let mut written = String::new();
                scheme::write_port(row, p, &mut written);
                let same = written.strip_prefix(':') == Some(p);
                assert_eq!(f.port_ok(p.as_bytes(), Some(row)), same, "{} {p}", row.name);
            }
            if let Some(d) = row.default_port {
                assert!(!f.port_ok(d.as_bytes(), Some(row)), "{}", row.name);
            }
        }
    }

    #[test]
    fn ldh_hosts() {
        for h in [
            "a",
            "example.com",
            "example.com.",
            "a-b.c",
            "r4-s.x",
            "1.2.3.4",
        ] {
            assert!(is_lowercase_ldh_host(h.as_bytes()), "{h}");
        }
        for h in [
            "", ".", "a..b", ".a", "A.com", "-a", "a-", "xn--a", "ab--c", "r4---sn", "a_b",
            "a.com..",
        ] {
            assert!(!is_lowercase_ldh_host(h.as_bytes()), "{h}");
        }
        assert!(is_lowercase_ldh_host("a".repeat(63).as_bytes()));
        assert!(!is_lowercase_ldh_host("a".repeat(64).as_bytes()));
        assert!(!is_lowercase_ldh_host(
            format!("{}.b", "a".repeat(64)).as_bytes()
        ));
        let long = vec!["c".repeat(63); 4].join(".");
        assert!(!is_lowercase_ldh_host(long.as_bytes()));
    }
}
