//! The fast path of the `wayback@1` profile: the key of a record of the common shape in
//! one scan of it, equal byte for byte to the key the peer's chain gives
//! ([`super::wayback`]); any other record is left to the chain.
//!
//! It takes a scheme (or none, as `handyurl.parse` reads a bare host), an LDH host
//! (lowercase letters, digits, `-`, `.`) or none, an optional port, and a path and query of
//! printable ASCII, then anything after a `#`; [`key_line`] lists each condition with the
//! step of the chain it stands for. Where the path or query holds a `%` or non-ASCII, the
//! chain's own steps rewrite them, from the parts the scan found
//! ([`super::wayback::write_parts_key`]), without the chain's parse. The host and the path,
//! query and fragment are read a block at a time, as bit masks, by the backends of the
//! ladder's own fast path ([`crate::ladder::fast::Lanes`]): the same masks, asked other
//! questions (and two more: one byte value, capital letters). The scan runs to the end of
//! the line, so that a run of lines ([`crate::ladder::Normalizer::own_key_lines`]) needs no
//! other search for it.

use memchr::{memchr, memchr_iter};

use super::wayback::{
    alpha_reorder_query, default_port, is_session_name_end, parse_port, push_decimal, scheme_end,
    strip_www_len, write_parts_key, Parts, Scratch,
};
use crate::ladder::fast::{ends_crlf, look, Blocks, Task};

/// What [`key_line`] took: the record at the start of the text, and what ends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Taken {
    /// The record's length, without its line end.
    pub(super) len: usize,
    /// The line end after it: 0 (the end of the text), 1 (a line feed) or 2 (CRLF).
    pub(super) ending: usize,
}

/// [`key_line`] as a task for a backend.
pub(super) struct KeyLine<'a> {
    pub(super) text: &'a [u8],
    pub(super) out: &'a mut Vec<u8>,
    pub(super) scratch: &'a mut Scratch,
}

impl Task for KeyLine<'_> {
    type Output = Option<Taken>;

    #[inline(always)]
    fn run<L: Blocks>(self, lanes: L) -> Option<Taken> {
        let mark = self.out.len();
        let taken = key_line(lanes, self.text, self.out, self.scratch);
        if taken.is_none() {
            self.out.truncate(mark);
        }
        taken
    }
}

/// The key of the record at the start of `b` (which ends at the first line feed, or at a
/// carriage return before one, or at the end of `b`), appended to `out`; `None` for a
/// record of another shape (`out` then holds a part of a key, to be dropped).
///
/// The record must be `SCHEME:[//HOST[:PORT]][PATH][?QUERY][#FRAGMENT]` (or
/// `HOST[:PORT][PATH][?QUERY][#FRAGMENT]`) with each part as the comment before its test
/// says; the fragment, after the first `#`, may hold any printable ASCII and non-ASCII (the
/// chain drops it).
#[inline(always)]
fn key_line<L: Blocks>(lanes: L, b: &[u8], out: &mut Vec<u8>, s: &mut Scratch) -> Option<Taken> {
    // SCHEME: `^[a-zA-Z][a-zA-Z0-9+.-]*:`, but `dns` (`dns` keeps its `www`, which the
    // chain handles), and no record starting `filedesc` (`surt` hands it back as it is,
    // [`super::wayback::write_key`]). Its case is kept in a key without host.
    // `IAURLCanonicalizer`'s default ports: 80 for `http`, 443 for `https`, any case.
    // Without a scheme, `handyurl.parse` puts `http://` in front (a record that starts
    // with a host: the host scan refuses any other first byte, so `strip()` has nothing to
    // remove at the start, and no `//` follows that `^(https?://)+` would collapse).
    let (scheme_len, default_port, host_start) = if b.starts_with(b"http://") {
        (4, 80, Some(7))
    } else if b.starts_with(b"https://") {
        (5, 443, Some(8))
    } else if b.starts_with(b"filedesc") {
        return None;
    } else if let Some(len) = scheme_end(b) {
        let scheme = &b[..len];
        if scheme == b"dns" {
            return None;
        }
        let slashes = b.get(len + 1..len + 3) == Some(b"//");
        (len, default_port(scheme), slashes.then_some(len + 3))
    } else {
        (0, 80, Some(0))
    };
    let bare = host_start == Some(0);

    // HOST, after `//`: lowercase ASCII letters, digits, `-` and `.`, with a byte that is
    // no digit nor `.` somewhere, no `.` at either end and no `..`. `.hostname`: no `@` (no
    // userinfo), no `[`, lowercase already. `GoogleURLCanonicalizer`: no `%` to unescape,
    // ASCII (no IDNA), no `..` nor edge dots for `replace(b'..', b'.').strip(b'.')`; a
    // byte that is no digit nor `.` makes it neither all digits nor `DECIMAL_IP` nor
    // `OCTAL_IP` (`attemptIPFormats` leaves it); nothing for `escapeOnce`. So the host is
    // the record's. It ends at the end or at `/`, `?`, `#` or a `:` and digits, so
    // `^(https?://)+` never matches more than the scheme's own `http(s)://`.
    let mut at = scheme_len + 1;
    let mut host = None;
    let mut port = None;
    if let Some(start) = host_start {
        at = start;
        let (end, dots) = scan_host(lanes, b, at)?;
        if end > at {
            let len = end - at;
            let edge = 1 | 1 << (len - 1);
            if dots & (edge | dots >> 1) != 0 || b[at..end].iter().all(|&c| c <= b'9') {
                return None;
            }
            host = Some((at, end, dots));
            // PORT: `:` and 1 to 5 ASCII digits. `SplitResultBytes.port`: `int()` of the
            // digits (leading zeros allowed), `0` is no port (`or None`); `rstrip(b':')`
            // changes nothing, as a digit ends the netloc. A port out of range is the
            // chain's `ValueError`. `IAURLCanonicalizer`: the default port dropped.
            at = end;
            if b.get(at) == Some(&b':') {
                let digits = b[at + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                if !(1..=5).contains(&digits) {
                    return None;
                }
                port = parse_port(&b[at + 1..at + 1 + digits]).ok()?;
                at += 1 + digits;
            }
        }
        // The netloc ends here (`/`, `?`, `#` or the line's end), else the record is not
        // taken. An empty host is taken for the empty netloc only (`file:///x`).
        if !matches!(b.get(at), None | Some(b'/' | b'?' | b'#' | b'\n' | b'\r')) {
            return None;
        }
    }
    // No host: `handyurl.parse` takes one from the path for a scheme starting with `http`
    // (the chain does that); for others the key is `scheme:` and the path.
    if host.is_none() && (bare || b[..scheme_len.min(4)].eq_ignore_ascii_case(b"http")) {
        return None;
    }

    let tail = scan_tail(lanes, b, at)?;
    // The fragment, after the first `#`, is dropped whatever it holds. A `%` or
    // non-ASCII before it is for the chain's rewriting of the path and query
    // ([`write_parts_key`]); the scan has refused controls, space, DEL and the printable
    // bytes that URIs forbid (`escapeOnce` leaves those, but they are rare).
    let (head_end, rewrite) = match tail.first_rare {
        Some(k) if b[k] == b'#' => (k, false),
        Some(k) => (
            memchr(b'#', &b[k..tail.end]).map_or(tail.end, |h| k + h),
            true,
        ),
        None => (tail.end, false),
    };
    let head = &b[at..head_end];
    // The regex split ends the path at the first `?` (or `#`).
    let question = match tail.first_mark {
        Some(k) if k < head_end && b[k] == b'?' => Some(k - at),
        Some(k) if k < head_end => head.iter().position(|&c| c == b'?'),
        _ => None,
    };
    let path = &head[..question.unwrap_or(head.len())];
    let query = question.map_or(&[][..], |q| &head[q + 1..]);
    let taken = Taken {
        len: tail.end,
        ending: tail.ending,
    };
    if rewrite {
        // The parts as `handyurl.parse` splits them: the default port is still there
        // (`IAURLCanonicalizer` drops it).
        let (start, end, _) = host?;
        let parts = Parts {
            scheme: if bare { b"http" } else { &b[..scheme_len] },
            host: &b[start..end],
            port,
            path,
            query,
        };
        return write_parts_key(parts, out, s).map(|()| taken);
    }
    // PATH. `GoogleURLCanonicalizer`: nothing to unescape or escape; with a host,
    // `normalizePath` leaves a path without empty segments but the last and without `.` or
    // `..` segments as it is (after a host the path is empty or starts with `/`; an empty one
    // becomes `/`), and without a host it does not run. `IAURLCanonicalizer`: lowercased; a
    // `(` before a `.aspx` (any case) is not taken (`stripPathSessionID`'s patterns need
    // both); one trailing `/` stripped but from `/`.
    if host.is_some() && tail.odd_segments && !plain_segments(path) {
        return None;
    }
    // QUERY. `GoogleURLCanonicalizer`: nothing to unescape or escape. `IAURLCanonicalizer`:
    // no `=` ending (any case) `sid`, `cfid`, `jsessionid` or `aspsessionid` and 8 bytes
    // (`stripQuerySessionID`'s five patterns each need one); lowercased; its arguments
    // sorted where there are two or more (`alphaReorderQuery`, shared with the chain); an
    // empty query is none (`?` and `?#…` give no `?`).
    if holds(lanes, b, at, at + path.len(), b'(') && contains_aspx_ignoring_case(path) {
        return None;
    }
    let arguments = query_arguments(lanes, b, head_end - query.len(), head_end)?;

    let (scheme, name) = (
        &b[..scheme_len],
        host.map(|(start, end, dots)| (&b[start..end], dots)),
    );
    let port = port.filter(|&p| p != default_port);
    write_surt(lanes, scheme, name, port, head, question, out);
    if arguments {
        let at = out.len() - query.len();
        s.query.clear();
        s.query.extend_from_slice(&out[at..]);
        alpha_reorder_query(&mut s.query, &mut s.swap, &mut s.spans);
        out.truncate(at);
        out.extend_from_slice(&s.query);
    }
    Some(taken)
}

/// The SURT of a record [`key_line`] takes: without host `scheme:` (its case kept); else
/// the host's labels reversed and joined by `,` (`www`, `www2`… stripped first,
/// [`strip_www_len`]), the port, `)`; then the path (`/` if empty, but for no host and no
/// query, with one trailing `/` stripped but from `/`), `?` and the query; the path and
/// query lowercased.
///
/// `head` is the path and the query, `?` between where `question` says (an offset in it);
/// `host` the host and its dots ([`scan_host`]).
#[inline(always)]
fn write_surt<L: Blocks>(
    lanes: L,
    scheme: &[u8],
    host: Option<(&[u8], u64)>,
    port: Option<u32>,
    head: &[u8],
    question: Option<usize>,
    out: &mut Vec<u8>,
) {
    let path = &head[..question.unwrap_or(head.len())];
    let query = question.map_or(&[][..], |q| &head[q + 1..]);
    // A host of at most 64 bytes, a port, `)`, `/`, `?`.
    out.reserve(head.len() + 80);
    match host {
        Some((host, dots)) => {
            let strip = strip_www_len(host);
            let name = &host[strip..];
            let (mut dots, mut label_end) = (dots >> strip, name.len());
            while dots != 0 {
                let dot = 63 - dots.leading_zeros() as usize;
                out.extend_from_slice(&name[dot + 1..label_end]);
                out.push(b',');
                label_end = dot;
                dots &= !(1 << dot);
            }
            out.extend_from_slice(&name[..label_end]);
            if let Some(port) = port {
                out.push(b':');
                push_decimal(port, out);
            }
            out.push(b')');
        }
        None => {
            out.extend_from_slice(scheme);
            out.push(b':');
        }
    }
    let lower_from = out.len();
    // The path and the query lie in `b` as in the key, `?` between, unless a trailing `/`
    // is stripped: one copy then.
    let stripped = path.len() > 1 && path.ends_with(b"/");
    match (path.len(), query.len()) {
        (0, 0) if host.is_none() => {}
        (0, _) => out.push(b'/'),
        (_, 0) => out.extend_from_slice(&path[..path.len() - usize::from(stripped)]),
        // The query is not empty: it ends `head`.
        _ if !stripped => {
            out.extend_from_slice(head);
            return lowercase(lanes, &mut out[lower_from..]);
        }
        (n, _) => out.extend_from_slice(&path[..n - 1]),
    }
    if !query.is_empty() {
        out.push(b'?');
        out.extend_from_slice(query);
    }
    lowercase(lanes, &mut out[lower_from..]);
}

/// The bits of a block at `i` for the bytes before `end` (after `i`).
#[inline(always)]
fn below(i: usize, end: usize) -> u64 {
    match end - i {
        n if n >= 64 => u64::MAX,
        n => (1 << n) - 1,
    }
}

/// Whether `b[from..to]` holds the byte `x`.
#[inline(always)]
fn holds<L: Blocks>(lanes: L, b: &[u8], from: usize, to: usize, x: u8) -> bool {
    let mut i = from;
    while i < to {
        if lanes.eq_mask(b, i, x) & below(i, to) != 0 {
            return true;
        }
        i += L::WIDTH;
    }
    false
}

/// Whether the query `b[from..to]` holds two arguments or more (a `&`); `None` where a `=`
/// ends the name of a session id ([`is_session_name_end`]).
#[inline(always)]
fn query_arguments<L: Blocks>(lanes: L, b: &[u8], from: usize, to: usize) -> Option<bool> {
    let (mut i, mut arguments) = (from, false);
    while i < to {
        let within = below(i, to);
        arguments |= lanes.eq_mask(b, i, b'&') & within != 0;
        let mut equals = lanes.eq_mask(b, i, b'=') & within;
        while equals != 0 {
            let k = i + equals.trailing_zeros() as usize;
            if is_session_name_end(&b[from..k]) {
                return None;
            }
            equals &= equals - 1;
        }
        i += L::WIDTH;
    }
    Some(arguments)
}

/// The ASCII capital letters of `bytes` lowercased, where the masks find them.
#[inline(always)]
fn lowercase<L: Blocks>(lanes: L, bytes: &mut [u8]) {
    let mut i = 0;
    while i < bytes.len() {
        let mut capitals = lanes.capitals(bytes, i) & below(i, bytes.len());
        while capitals != 0 {
            bytes[i + capitals.trailing_zeros() as usize] |= 0x20;
            capitals &= capitals - 1;
        }
        i += L::WIDTH;
    }
}

/// The host at `from`: where it ends (the first byte other than `a-z 0-9 - .`) and its
/// dots, bit `k` for byte `from + k`; `None` for a host of more than 64 bytes.
#[inline(always)]
fn scan_host<L: Blocks>(lanes: L, b: &[u8], from: usize) -> Option<(usize, u64)> {
    let (mut i, mut dots) = (from, 0u64);
    loop {
        let m = lanes.host_masks(b, i);
        let off = i - from;
        if m.not_ldh != 0 {
            let k = m.not_ldh.trailing_zeros() as usize;
            if off + k > 64 {
                return None;
            }
            let before = (1u64 << k).wrapping_sub(1);
            return Some((i + k, dots | (m.dot & before) << off));
        }
        if off + L::WIDTH >= 64 {
            return None;
        }
        dots |= m.dot << off;
        i += L::WIDTH;
    }
}

/// What [`scan_tail`] found.
struct Tail {
    /// The end of the record: its line feed, the carriage return before one, or the end of
    /// the text.
    end: usize,
    /// What ends the line: 0 (the end of the text), 1 (a line feed) or 2 (CRLF).
    ending: usize,
    /// The first `%`, `#` or non-ASCII byte.
    first_rare: Option<usize>,
    /// The first `?` or `;`.
    first_mark: Option<usize>,
    /// A `/` is followed by a `.` or a `/`: the path may hold a segment that
    /// `normalizePath` changes (or a query or fragment such a pair).
    odd_segments: bool,
}

/// Scans the path, query and fragment at `from` to the end of the line: `None` if a byte
/// that no URI component allows raw (a control, space, DEL, `"<>[\]^`{|}`) comes before
/// it.
#[inline(always)]
fn scan_tail<L: Blocks>(lanes: L, b: &[u8], from: usize) -> Option<Tail> {
    let (mut i, mut odd) = (from, 0u64);
    let (mut first_rare, mut first_mark) = (None, None);
    let end = loop {
        let m = lanes.tail_masks::<{ look::MARKS }>(b, i);
        // The bytes before the first one no component allows raw (the record's end).
        let keep = m.bad.wrapping_sub(1) & !m.bad;
        // A '/' just before the block, where the path's first '/' does not count.
        let carry = u64::from(i > from && b[i - 1] == b'/');
        odd |= ((m.slash << 1) | carry) & (m.dot | m.slash) & keep;
        if first_rare.is_none() && m.rare & keep != 0 {
            first_rare = Some(i + (m.rare & keep).trailing_zeros() as usize);
        }
        if first_mark.is_none() && m.marks & keep != 0 {
            first_mark = Some(i + (m.marks & keep).trailing_zeros() as usize);
        }
        if m.bad != 0 {
            break i + m.bad.trailing_zeros() as usize;
        }
        i += L::WIDTH;
    };
    let ending = match b.get(end) {
        None => 0,
        Some(b'\n') => 1,
        Some(_) if ends_crlf(b, end) => 2,
        Some(_) => return None,
    };
    Some(Tail {
        end,
        ending,
        first_rare,
        first_mark,
        odd_segments: odd != 0,
    })
}

/// Whether a path after a host (empty or starting with `/`) has no empty segment but the
/// last, and no `.` or `..` segment: one that `normalizePath` leaves as it is.
fn plain_segments(path: &[u8]) -> bool {
    let Some(rest) = path.strip_prefix(b"/") else {
        return path.is_empty();
    };
    let mut segments = rest.split(|&c| c == b'/').peekable();
    while let Some(segment) = segments.next() {
        let last = segments.peek().is_none();
        if matches!(segment, b"." | b"..") || (segment.is_empty() && !last) {
            return false;
        }
    }
    true
}

/// Whether `.aspx` occurs in `path`, ignoring case.
fn contains_aspx_ignoring_case(path: &[u8]) -> bool {
    memchr_iter(b'.', path).any(|k| {
        path.get(k + 1..k + 5)
            .is_some_and(|s| s.eq_ignore_ascii_case(b"aspx"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_segments_are_told_from_those_normalize_path_changes() {
        for yes in ["", "/", "/a", "/a/", "/a/b", "/.a/b..", "/a/b/"] {
            assert!(plain_segments(yes.as_bytes()), "{yes}");
        }
        for no in ["//", "/a//b", "/.", "/..", "/a/./b", "/a/../", "/a//", "a"] {
            assert!(!plain_segments(no.as_bytes()), "{no}");
        }
    }
}
