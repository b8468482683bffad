//! w3lib 2.5.0's `_urlsplit` (`w3lib/_url.py`), its port of CPython's `urlsplit`, for the
//! `w3lib@1` profile: the scheme (`^[a-zA-Z][a-zA-Z0-9+.-]*:`, lowercased), `\` read as `/`
//! before the query in a special scheme, the authority after `//` up to `/`, `?` or `#`, the
//! netloc checks that raise `ValueError` (brackets, `_check_bracketed_netloc`, the NFKC
//! `_checknetloc`), and the `_SplitResult` fields (`username`, `password`, `hostname`,
//! `port`) with `__post_init__`'s port checks.
//!
//! It works on the text after `to_unicode` and `_strip`, as byte ranges of it: every
//! delimiter is ASCII, so Python's code point indices and UTF-8 byte offsets find the same
//! places.

use super::w3lib_ip::{ip_address, IpAddress};
use super::w3lib_unicode::nfkc_14;
use core::ops::Range;
use memchr::{memchr, memchr2, memchr3};

/// A refusal of `_urlsplit`: the text offset of the refused part and the exception.
pub(super) type Raised = (usize, &'static str);

/// The schemes of the URL Standard, w3lib's `_SPECIAL_SCHEMES`.
pub(super) fn is_special(scheme: &str) -> bool {
    matches!(
        scheme.as_bytes(),
        b"ftp" | b"file" | b"http" | b"https" | b"ws" | b"wss"
    )
}

/// The parts of a split URL, as ranges of the text (`netloc` is empty without `//`).
#[derive(Clone, Debug, Default)]
pub(super) struct SplitResult {
    pub(super) scheme: Range<usize>,
    pub(super) netloc: Range<usize>,
    pub(super) path: Range<usize>,
    pub(super) query: Range<usize>,
    pub(super) fragment: Range<usize>,
    pub(super) username: Option<Range<usize>>,
    pub(super) password: Option<Range<usize>>,
    pub(super) hostname: Range<usize>,
    /// `port` as an integer (`None`: no port, or an empty one).
    pub(super) port: Option<u16>,
    /// The port's text (empty without one), for `--explain`.
    pub(super) port_text: Range<usize>,
}

/// The buffers of `_checknetloc` (the netloc without `@:#?`, and its NFKC).
#[derive(Default)]
pub(super) struct NetlocScratch {
    pub(super) cleaned: String,
    pub(super) normalized: String,
}

/// `_urlsplit(text)`: lowercases the scheme and turns `\` into `/` in `text` as w3lib does,
/// and returns the parts, or the `ValueError` it raises.
pub(super) fn urlsplit(
    text: &mut String,
    scratch: &mut NetlocScratch,
) -> Result<SplitResult, Raised> {
    let mut parts = SplitResult::default();
    let start = match scheme_len(text.as_bytes()) {
        Some(n) => {
            text[..n].make_ascii_lowercase();
            parts.scheme = 0..n;
            n + 1
        }
        None => 0,
    };
    if is_special(&text[parts.scheme.clone()]) {
        backslashes_to_slashes(text, start);
    }
    let url = &text.as_bytes()[start..];
    let at = |i: usize| start + i;
    let has_authority = url.starts_with(b"//");
    // w3lib's `str.find` of `/`, `?`, `#`, `[` and `]` from `scan`: the brackets count only
    // in the authority, and a `?` after the first `#` leaves the query empty as in w3lib.
    let mut path_start = 0;
    let mut bracketed = false;
    if has_authority {
        let delim = memchr3(b'/', b'?', b'#', &url[2..]).map_or(url.len(), |i| i + 2);
        let authority = &url[2..delim];
        let (open, close) = (memchr(b'[', authority), memchr(b']', authority));
        if open.is_some() != close.is_some() {
            return Err((at(2), "ValueError: Invalid IPv6 URL"));
        }
        parts.netloc = at(2)..at(delim);
        bracketed = open.is_some();
        if bracketed {
            check_bracketed_netloc(&text[parts.netloc.clone()]).map_err(|e| (at(2), e))?;
        }
        path_start = delim;
    }
    let url = &text.as_bytes()[start..];
    check_netloc(&text[parts.netloc.clone()], scratch).map_err(|e| (at(2), e))?;
    let rest = &url[path_start..];
    let mut path_end = url.len();
    if let Some(h) = memchr(b'#', rest) {
        parts.fragment = at(path_start + h + 1)..at(url.len());
        path_end = path_start + h;
    }
    match memchr(b'?', &url[path_start..path_end]) {
        Some(q) => {
            parts.query = at(path_start + q + 1)..at(path_end);
            path_end = path_start + q;
        }
        None => parts.query = at(path_end)..at(path_end),
    }
    parts.path = at(path_start)..at(path_end);
    split_netloc(text, &mut parts, bracketed)?;
    Ok(parts)
}

/// The length of the scheme matched by `^([a-zA-Z][a-zA-Z0-9+.-]*):`, if any.
fn scheme_len(b: &[u8]) -> Option<usize> {
    if !b.first()?.is_ascii_alphabetic() {
        return None;
    }
    let n = b
        .iter()
        .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')))?;
    (b[n] == b':').then_some(n)
}

/// `\` becomes `/` before the first `?` or `#` (special schemes only).
fn backslashes_to_slashes(text: &mut String, start: usize) {
    let rest = &text.as_bytes()[start..];
    let Some(first) = memchr(b'\\', rest) else {
        return;
    };
    let cut = memchr2(b'?', b'#', rest).unwrap_or(rest.len());
    if first > cut {
        return;
    }
    // ASCII for ASCII: the bytes stay UTF-8 (and the buffer keeps its capacity).
    let mut bytes = core::mem::take(text).into_bytes();
    for b in bytes.iter_mut().skip(start).take(cut) {
        if *b == b'\\' {
            *b = b'/';
        }
    }
    *text = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
}

/// `_check_bracketed_netloc`: nothing before `[` and only `:port` after `]` in the host and
/// port part, and a host that `_check_bracketed_host` accepts.
fn check_bracketed_netloc(netloc: &str) -> Result<(), &'static str> {
    let host_and_port = netloc.rsplit_once('@').map_or(netloc, |(_, h)| h);
    let hostname = match host_and_port.split_once('[') {
        Some((before, bracketed)) => {
            if !before.is_empty() {
                return Err("ValueError: Invalid IPv6 URL");
            }
            let (hostname, port) = bracketed.split_once(']').unwrap_or((bracketed, ""));
            if !port.is_empty() && !port.starts_with(':') {
                return Err("ValueError: Invalid IPv6 URL");
            }
            hostname
        }
        None => host_and_port
            .split_once(':')
            .map_or(host_and_port, |(h, _)| h),
    };
    check_bracketed_host(hostname)
}

/// `_check_bracketed_host`: an IPvFuture (`\Av[a-fA-F0-9]+\..+\Z`) when it starts with `v` or
/// `V`, else an IPv6 address (`ip_address` must accept it, and not as IPv4).
fn check_bracketed_host(hostname: &str) -> Result<(), &'static str> {
    let b = hostname.as_bytes();
    if let Some(rest) = hostname.strip_prefix(['v', 'V']) {
        let hex = rest.bytes().take_while(u8::is_ascii_hexdigit).count();
        let future =
            b[0] == b'v' && hex > 0 && rest[hex..].starts_with('.') && rest.len() > hex + 1;
        return if future {
            Ok(())
        } else {
            Err("ValueError: IPvFuture address is invalid")
        };
    }
    match ip_address(hostname) {
        Some(IpAddress::V6(..)) => Ok(()),
        Some(IpAddress::V4(_)) => Err("ValueError: An IPv4 address cannot be in brackets"),
        None => Err("ValueError: does not appear to be an IPv4 or IPv6 address"),
    }
}

/// `_checknetloc`: a non-ASCII netloc whose NFKC (without `@:#?`) differs must not hold any of
/// `/?#@:\` after it.
fn check_netloc(netloc: &str, scratch: &mut NetlocScratch) -> Result<(), &'static str> {
    if netloc.is_ascii() {
        return Ok(());
    }
    let cleaned = &mut scratch.cleaned;
    cleaned.clear();
    cleaned.extend(
        netloc
            .chars()
            .filter(|c| !matches!(c, '@' | ':' | '#' | '?')),
    );
    scratch.normalized.clear();
    nfkc_14(cleaned, &mut scratch.normalized);
    let normalized = &scratch.normalized;
    if *cleaned != *normalized && normalized.contains(['/', '?', '#', '@', ':', '\\']) {
        return Err("ValueError: netloc contains invalid characters under NFKC normalization");
    }
    Ok(())
}

/// The `_SplitResult` fields from the netloc: `username`/`password` before the last `@`,
/// `hostname` and `port` after it (between `[` and `]` when the authority held brackets), and
/// `__post_init__`'s port checks.
fn split_netloc(text: &str, parts: &mut SplitResult, bracketed: bool) -> Result<(), Raised> {
    let netloc = parts.netloc.clone();
    let b = &text.as_bytes()[netloc.clone()];
    let mut host_start = netloc.start;
    if let Some(i) = b.iter().rposition(|&c| c == b'@') {
        let userinfo = netloc.start..netloc.start + i;
        host_start = userinfo.end + 1;
        match b[..i].iter().position(|&c| c == b':') {
            Some(j) => {
                parts.username = Some(userinfo.start..userinfo.start + j);
                parts.password = Some(userinfo.start + j + 1..userinfo.end);
            }
            None => parts.username = Some(userinfo),
        }
    }
    let hostinfo = &text.as_bytes()[host_start..netloc.end];
    let find = |from: usize, c: u8| {
        hostinfo[from..]
            .iter()
            .position(|&b| b == c)
            .map(|i| i + from)
    };
    let (hostname, port) = if bracketed {
        // `hostinfo.partition("[")[2].partition("]")`, then the text after `:` in the rest.
        let open = find(0, b'[').map_or(hostinfo.len(), |i| i + 1);
        let close = find(open, b']').unwrap_or(hostinfo.len());
        let rest = (close + 1).min(hostinfo.len());
        let port =
            find(rest, b':').map_or(hostinfo.len()..hostinfo.len(), |i| i + 1..hostinfo.len());
        (open..close, port)
    } else {
        match find(0, b':') {
            Some(i) => (0..i, i + 1..hostinfo.len()),
            None => (0..hostinfo.len(), hostinfo.len()..hostinfo.len()),
        }
    };
    parts.hostname = host_start + hostname.start..host_start + hostname.end;
    parts.port_text = host_start + port.start..host_start + port.end;
    parts.port = port_number(&hostinfo[port.clone()]).map_err(|e| (host_start + port.start, e))?;
    Ok(())
}

/// Python's default `sys.get_int_max_str_digits()`: `int()` of a longer decimal text (leading
/// zeros count) raises `ValueError`.
const INT_MAX_STR_DIGITS: usize = 4300;

/// `__post_init__` on the port text: `None` when empty, else ASCII digits (at most 4,300 of
/// them, as `int()` reads them) whose value is at most 65535.
fn port_number(port: &[u8]) -> Result<Option<u16>, &'static str> {
    if port.is_empty() {
        return Ok(None);
    }
    if !port.iter().all(u8::is_ascii_digit) {
        return Err("ValueError: Port could not be cast to integer value");
    }
    if port.len() > INT_MAX_STR_DIGITS {
        return Err("ValueError: Exceeds the limit (4300 digits) for integer string conversion");
    }
    let mut value = 0u32;
    for &d in port {
        value = value * 10 + u32::from(d - b'0');
        if value > 65535 {
            return Err("ValueError: Port out of range 0-65535");
        }
    }
    Ok(u16::try_from(value).ok())
}
