//! The `w3lib@1` profile: `w3lib.url.canonicalize_url(url)` of the `w3lib` Python package
//! 2.5.0 on Python 3.11 with its defaults (`keep_blank_values=True`, `keep_fragments=False`,
//! `encoding=None`, `query_separator="&"`), the input of Scrapy's request fingerprints;
//! docs/compat-w3lib.md lists what it merges and what it refuses.
//!
//! The chain mirrors `canonicalize_url` and `_safe_url_split`: `to_unicode` (bytes that are
//! not UTF-8 become `%XX`), `_strip`, `_urlsplit` ([`urlsplit`](super::urlsplit)), the
//! userinfo unquoted and quoted again, the hostname lowercased and through `_idna` (NFKC of
//! Unicode 14, then Python's `idna` codec, [`pyidna`](super::pyidna); the raw hostname where
//! that raises `UnicodeError`), the port as an integer, the path with `_unquotepath` and
//! `_quote` (`%2F`, `%3B`, `%3F`, `%25` kept), `_remove_dot_segments` for a path starting
//! with `/`, the `;params` of the last segment as they were quoted, the query parsed by
//! `_parse_qsl`, sorted and written by `_urlencode` (`quote_plus`), the fragment dropped, the
//! host lowercased again, an IPv6 host written by Python's `ipaddress`, and `_urlunparse`.
//!
//! Quoting and unquoting are fused: w3lib first quotes the path and the query with its
//! "safest" sets and then unquotes them, which gives back every byte the first quoting
//! escaped, so each part is read once from the text.

use super::pyidna;
use super::urlsplit::{urlsplit, NetlocScratch, SplitResult};
use super::w3lib_ip::{ip_address, write_v6, IpAddress};
use super::w3lib_unicode::{nfkc_14, py_lower};
use super::{Refusal, Steps};
use memchr::memchr_iter;

/// The buffers of keying one record, reused.
#[derive(Default)]
pub(crate) struct Scratch {
    /// The record after `to_unicode` and `_strip`, as `_urlsplit` leaves it.
    text: String,
    /// The netloc being rebuilt, and its buffers.
    netloc: NetlocBuffers,
    /// The unquoted query fields, one after another, and their spans.
    unquoted: Vec<u8>,
    pairs: Vec<Pair>,
    /// The path before its dot segments are removed.
    path: String,
    /// The buffers of `_checknetloc`.
    check: NetlocScratch,
}

/// The netloc being rebuilt and the buffers of its host.
#[derive(Default)]
struct NetlocBuffers {
    netloc: String,
    /// The lowercased hostname, then the host lowercased again.
    host: String,
    /// NFKC of the hostname (before IDNA).
    nfkc: String,
    /// The IDNA of the hostname.
    idna: Vec<u8>,
}

/// A query field's unquoted key and value, as spans of [`Scratch::unquoted`].
#[derive(Clone, Copy)]
struct Pair {
    key: (u32, u32),
    value: (u32, u32),
}

/// Byte sets of w3lib's quoting, as 256-entry masks.
struct Safe([bool; 256]);

impl Safe {
    const fn of(extra: &[u8]) -> Safe {
        let mut t = [false; 256];
        let unreserved = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";
        let mut i = 0;
        while i < unreserved.len() {
            t[unreserved[i] as usize] = true;
            i += 1;
        }
        let mut i = 0;
        while i < extra.len() {
            t[extra[i] as usize] = true;
            i += 1;
        }
        Safe(t)
    }
    #[inline]
    fn has(&self, b: u8) -> bool {
        self.0[usize::from(b)]
    }
}

/// `_USERINFO_SAFEST_CHARS`: unreserved and the sub-delimiters but `;` and `=`.
static USERINFO_SAFEST: Safe = Safe::of(b"!$&'()*+,");
/// `_PATH_SAFEST_CHARS`: what the path keeps in its first quoting (the `;params` keep it).
static PATH_SAFEST: Safe = Safe::of(b":/?@!$&'()*+,;=%");
/// `_PATH_SAFE_CHARS`: what the path keeps in its second quoting.
static PATH_SAFE: Safe = Safe::of(b":/?@[]!$&'()*+,;=|%");
/// `_PATH_SAFE_CHARS` but `%`: the bytes a path copies as they are.
static PATH_RUN: Safe = Safe::of(b":/?@[]!$&'()*+,;=|");
/// `quote_plus` with no safe characters (`_urlencode`).
static QUERY_PLUS: Safe = Safe::of(b"");

/// The schemes of `urllib.parse.uses_params` (Python 3.11).
fn uses_params(scheme: &str) -> bool {
    matches!(
        scheme.as_bytes(),
        b"" | b"ftp"
            | b"hdl"
            | b"prospero"
            | b"http"
            | b"imap"
            | b"https"
            | b"shttp"
            | b"rtsp"
            | b"rtsps"
            | b"rtspu"
            | b"sip"
            | b"sips"
            | b"mms"
            | b"sftp"
            | b"tel"
    )
}

/// The schemes of `urllib.parse.uses_netloc` (Python 3.11).
fn uses_netloc(scheme: &str) -> bool {
    matches!(
        scheme.as_bytes(),
        b"" | b"ftp"
            | b"http"
            | b"gopher"
            | b"nntp"
            | b"telnet"
            | b"imap"
            | b"wais"
            | b"file"
            | b"mms"
            | b"https"
            | b"shttp"
            | b"snews"
            | b"prospero"
            | b"rtsp"
            | b"rtsps"
            | b"rtspu"
            | b"rsync"
            | b"svn"
            | b"svn+ssh"
            | b"sftp"
            | b"nfs"
            | b"git"
            | b"git+ssh"
            | b"ws"
            | b"wss"
    )
}

/// Where the text came from: the record's offset of text offset 0, when the text is the
/// record's bytes as they were (else refusals point at the whole record).
struct Origin {
    lead: usize,
    verbatim: bool,
}

impl Origin {
    fn refusal(&self, (at, message): (usize, &'static str)) -> Refusal {
        let at = if self.verbatim { self.lead + at } else { 0 };
        Refusal { at, message }
    }
}

/// Appends the key of `record` to `out`: `canonicalize_url(record)`, or the exception it
/// raises as a refusal.
pub(crate) fn write_key(
    record: &[u8],
    out: &mut String,
    scratch: &mut Scratch,
    steps: &mut impl Steps,
) -> Result<(), Refusal> {
    let origin = to_unicode_stripped(record, &mut scratch.text, steps);
    let before = steps.on().then(|| scratch.text.clone());
    let parts = urlsplit(&mut scratch.text, &mut scratch.check).map_err(|e| origin.refusal(e))?;
    if let Some(before) = before {
        let (raw, scheme) = (
            &before.as_bytes()[parts.scheme.clone()],
            &scratch.text[parts.scheme.clone()],
        );
        steps.step("scheme", "lowercase", raw, scheme.as_bytes());
    }
    build_netloc(&scratch.text, &parts, &mut scratch.netloc, steps)
        .map_err(|e| origin.refusal(e))?;
    let text = scratch.text.as_str();
    let scheme = &text[parts.scheme.clone()];
    out.push_str(scheme);
    if !scheme.is_empty() {
        out.push(':');
    }
    let mark = out.len();
    let netloc = scratch.netloc.netloc.as_str();
    if !netloc.is_empty() {
        out.push_str("//");
        out.push_str(netloc);
    }
    let path_at = out.len();
    write_path_and_params(text, &parts, scheme, out, &mut scratch.path, steps);
    // `_urlunsplit`: a path always follows the netloc with a `/`; without a netloc, `//`
    // comes before a path starting with `//` and before a `/` path of a `uses_netloc` scheme.
    if netloc.is_empty() {
        let url = &out[path_at..];
        if url.starts_with("//")
            || (!scheme.is_empty() && uses_netloc(scheme) && url.starts_with('/'))
        {
            out.insert_str(mark, "//");
        }
    } else if !out[path_at..].starts_with('/') {
        out.insert(path_at, '/');
    }
    let query = &text.as_bytes()[parts.query.clone()];
    if !query.is_empty() {
        write_query(query, out, &mut scratch.unquoted, &mut scratch.pairs, steps);
    }
    if !parts.fragment.is_empty() && steps.on() {
        let fragment = &text.as_bytes()[parts.fragment.start - 1..parts.fragment.end];
        steps.step("fragment", "strip", fragment, b"");
    }
    Ok(())
}

/// `_strip(to_unicode(record, "utf8", "percentencode"))`: bytes that are not UTF-8 become
/// `%XX`, then C0 controls and spaces at both ends go, and tabs and newlines anywhere.
fn to_unicode_stripped(record: &[u8], text: &mut String, steps: &mut impl Steps) -> Origin {
    text.clear();
    let mut verbatim = true;
    let mut rest = record;
    loop {
        match core::str::from_utf8(rest) {
            Ok(s) => {
                text.push_str(s);
                break;
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                text.push_str(core::str::from_utf8(valid).unwrap_or_default());
                let bad = e.error_len().unwrap_or(after.len()).max(1).min(after.len());
                for &b in &after[..bad] {
                    push_pct(b, text);
                }
                rest = &after[bad..];
                verbatim = false;
            }
        }
    }
    if steps.on() && !verbatim {
        steps.step("record", "percent-encoding", record, text.as_bytes());
    }
    let before = steps.on().then(|| text.clone());
    let mut lead = 0;
    if has_c0_or_space(text.as_bytes()) {
        let b = text.as_bytes();
        lead = b.iter().position(|&c| c > b' ').unwrap_or(b.len());
        let end = b.iter().rposition(|&c| c > b' ').map_or(lead, |i| i + 1);
        text.truncate(end);
        text.replace_range(..lead, "");
        if text.contains(['\t', '\n', '\r']) {
            text.retain(|c| !matches!(c, '\t' | '\n' | '\r'));
            verbatim = false;
        }
    }
    if let Some(before) = before {
        steps.step("record", "strip", before.as_bytes(), text.as_bytes());
    }
    Origin { lead, verbatim }
}

/// Whether `b` holds a byte up to `0x20` (`_C0_CONTROL_OR_SPACE_RE.search`), eight bytes at a
/// time: a byte below `0x21` is the only way `x - 0x21` borrows into a clear high bit.
fn has_c0_or_space(b: &[u8]) -> bool {
    const LOW: u64 = 0x2121_2121_2121_2121;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut chunks = b.chunks_exact(8);
    for chunk in chunks.by_ref() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        if x.wrapping_sub(LOW) & !x & HIGH != 0 {
            return true;
        }
    }
    chunks.remainder().iter().any(|&c| c <= b' ')
}

/// Rebuilds the netloc into `scratch.netloc` as `_safe_url_split` and `canonicalize_url` do.
fn build_netloc(
    text: &str,
    parts: &SplitResult,
    scratch: &mut NetlocBuffers,
    steps: &mut impl Steps,
) -> Result<(), (usize, &'static str)> {
    let netloc = &mut scratch.netloc;
    netloc.clear();
    if let Some(username) = parts.username.clone() {
        requote_userinfo(&text.as_bytes()[username], netloc);
        if let Some(password) = parts.password.clone() {
            netloc.push(':');
            requote_userinfo(&text.as_bytes()[password], netloc);
        }
        netloc.push('@');
        if steps.on() {
            let raw = &text.as_bytes()[parts.netloc.clone()];
            let raw = raw
                .iter()
                .rposition(|&b| b == b'@')
                .map_or(raw, |i| &raw[..=i]);
            steps.step("userinfo", "percent-encoding", raw, netloc.as_bytes());
        }
    }
    let host_at = netloc.len();
    let raw_host = &text[parts.hostname.clone()];
    lower_hostname(raw_host, &mut scratch.host);
    let host = scratch.host.as_str();
    if steps.on() {
        steps.step("host", "lowercase", raw_host.as_bytes(), host.as_bytes());
    }
    if host.bytes().any(|b| b == b':') {
        if !host.is_ascii() {
            return Err((
                parts.hostname.start,
                "UnicodeEncodeError: non-ASCII bracketed host",
            ));
        }
        netloc.push('[');
        netloc.push_str(host);
        netloc.push(']');
    } else if host.is_ascii() {
        netloc.push_str(host);
    } else {
        scratch.nfkc.clear();
        // `_idna`: NFKC of the hostname without `@:#?` (it holds none of them).
        nfkc_14(host, &mut scratch.nfkc);
        scratch.idna.clear();
        let encoded = pyidna::encode(&scratch.nfkc, &mut scratch.idna).ok();
        match encoded.and_then(|()| core::str::from_utf8(&scratch.idna).ok()) {
            Some(idna) => {
                netloc.push_str(idna);
                if steps.on() {
                    steps.step("host", "idna", host.as_bytes(), idna.as_bytes());
                }
            }
            None => netloc.push_str(host),
        }
    }
    if let Some(port) = parts.port {
        netloc.push(':');
        push_decimal(port, netloc);
        if steps.on() {
            let mut decimal = String::new();
            push_decimal(port, &mut decimal);
            steps.step(
                "port",
                "decimal",
                text[parts.port_text.clone()].as_bytes(),
                decimal.as_bytes(),
            );
        }
    }
    if steps.on() {
        let before = netloc[host_at..].to_string();
        lower_host_again(netloc, host_at, &mut scratch.host);
        steps.step(
            "host",
            "lowercase",
            before.as_bytes(),
            &netloc.as_bytes()[host_at..],
        );
    } else {
        lower_host_again(netloc, host_at, &mut scratch.host);
    }
    normalize_ipv6_host(netloc, host_at, &mut scratch.host, steps);
    Ok(())
}

/// `_quote_into(_unquote(part), _USERINFO_SAFEST_CHARS)`.
fn requote_userinfo(part: &[u8], out: &mut String) {
    let mut i = 0;
    while i < part.len() {
        let (b, n) = unquote_at(part, i);
        push_quoted(b, &USERINFO_SAFEST, out);
        i += n;
    }
}

/// `__post_init__`'s hostname: lowercased before its first `%`, as it is after it.
fn lower_hostname(raw: &str, host: &mut String) {
    host.clear();
    match raw.bytes().position(|b| b == b'%') {
        Some(i) => {
            py_lower(raw.get(..i).unwrap_or_default(), host);
            host.push_str(raw.get(i..).unwrap_or_default());
        }
        None => py_lower(raw, host),
    }
}

/// `canonicalize_url`'s `.lower().removesuffix(":")` of the netloc after the userinfo.
fn lower_host_again(netloc: &mut String, host_at: usize, tmp: &mut String) {
    let host = &netloc[host_at..];
    if host.is_ascii() {
        netloc[host_at..].make_ascii_lowercase();
    } else {
        tmp.clear();
        py_lower(host, tmp);
        netloc.truncate(host_at);
        netloc.push_str(tmp);
    }
    if netloc.ends_with(':') {
        netloc.pop();
    }
}

/// `_normalize_ipv6_host`: the first `[...]` of the netloc, when `ip_address` reads an IPv6
/// address in it, written as `str(address)`.
fn normalize_ipv6_host(
    netloc: &mut String,
    host_at: usize,
    tmp: &mut String,
    steps: &mut impl Steps,
) {
    let b = netloc.as_bytes();
    let Some(open) = b.iter().position(|&c| c == b'[') else {
        return;
    };
    let Some(close) = b[open..].iter().position(|&c| c == b']').map(|i| open + i) else {
        return;
    };
    let Some(IpAddress::V6(ip, scope)) = ip_address(&netloc[open + 1..close]) else {
        return;
    };
    tmp.clear();
    write_v6(ip, scope, tmp);
    if tmp.as_str() == &netloc[open + 1..close] {
        return;
    }
    if steps.on() {
        let before = netloc[host_at..].to_string();
        netloc.replace_range(open + 1..close, tmp);
        steps.step(
            "host",
            "ipv6-text",
            before.as_bytes(),
            &netloc.as_bytes()[host_at..],
        );
    } else {
        netloc.replace_range(open + 1..close, tmp);
    }
}

/// The path of `canonicalize_url`: `_split_params` (a `;` in the last segment, for a
/// `uses_params` scheme), the path part through `_unquotepath` and `_quote(_PATH_SAFE_CHARS)`
/// (`/` when empty) and `_remove_dot_segments` when it starts with `/`, then `;` and the
/// params as `_safe_url_split` quoted them.
fn write_path_and_params(
    text: &str,
    parts: &SplitResult,
    scheme: &str,
    out: &mut String,
    tmp: &mut String,
    steps: &mut impl Steps,
) {
    let raw = text.get(parts.path.clone()).unwrap_or_default();
    let (path, params) = split_params(raw, scheme);
    let at = out.len();
    if path.is_empty() {
        out.push('/');
    } else {
        write_path(path, out);
    }
    if steps.on() {
        steps.step(
            "path",
            "percent-encoding",
            path.as_bytes(),
            &out.as_bytes()[at..],
        );
    }
    let written = &out.as_bytes()[at..];
    let dotted = memchr_iter(b'/', written).any(|i| written.get(i + 1) == Some(&b'.'));
    if dotted && written.first() == Some(&b'/') {
        tmp.clear();
        tmp.push_str(&out[at..]);
        out.truncate(at);
        remove_dot_segments(tmp, out);
        if steps.on() {
            steps.step(
                "path",
                "dot-segments",
                tmp.as_bytes(),
                &out.as_bytes()[at..],
            );
        }
    }
    if let Some(params) = params.filter(|p| !p.is_empty()) {
        out.push(';');
        for &b in params.as_bytes() {
            push_quoted(b, &PATH_SAFEST, out);
        }
    }
}

/// The path part through `_unquotepath` and `_quote(_PATH_SAFE_CHARS)`: `%XX` decoded but
/// `%25`, `%2F`, `%3B` and `%3F` (kept, in capitals), then every byte outside the safe set
/// escaped. Runs of safe ASCII are copied as they are.
fn write_path(path: &str, out: &mut String) {
    let b = path.as_bytes();
    let (mut i, mut run) = (0, 0);
    while i < b.len() {
        let c = b[i];
        if PATH_RUN.has(c) {
            i += 1;
            continue;
        }
        out.push_str(path.get(run..i).unwrap_or_default());
        let (v, n) = unquote_at(b, i);
        if n == 3 && matches!(v, b'%' | b'/' | b';' | b'?') {
            out.push('%');
            out.push(char::from(b[i + 1].to_ascii_uppercase()));
            out.push(char::from(b[i + 2].to_ascii_uppercase()));
        } else {
            push_quoted(v, &PATH_SAFE, out);
        }
        i += n;
        run = i;
    }
    out.push_str(path.get(run..).unwrap_or_default());
}

/// `_split_params`: the path and the params after the first `;` of its last segment.
fn split_params<'a>(path: &'a str, scheme: &str) -> (&'a str, Option<&'a str>) {
    if !uses_params(scheme) {
        return (path, None);
    }
    let last = path.bytes().rposition(|b| b == b'/').map_or(0, |i| i + 1);
    match path.bytes().skip(last).position(|b| b == b';') {
        Some(i) => (
            path.get(..last + i).unwrap_or_default(),
            path.get(last + i + 1..),
        ),
        None => (path, None),
    }
}

/// `_remove_dot_segments` of `path` (which starts with `/`), appended to `out`: each segment
/// written as `/segment`, `..` taking back the last one written.
fn remove_dot_segments(path: &str, out: &mut String) {
    let base = out.len();
    let segments = path.get(1..).unwrap_or_default();
    let mut iter = segments.split('/').peekable();
    while let Some(segment) = iter.next() {
        let last = iter.peek().is_none();
        match segment {
            ".." => {
                if let Some(i) = out[base..].rfind('/') {
                    out.truncate(base + i);
                }
                if last {
                    out.push('/');
                }
            }
            "." => {
                if last {
                    out.push('/');
                }
            }
            _ => {
                out.push('/');
                out.push_str(segment);
            }
        }
    }
    if out.len() == base {
        out.push('/');
    }
}

/// The query of `canonicalize_url`: `_parse_qsl(query, keep_blank_values=True)` (fields
/// split on `&`, empty ones dropped, `+` and `%XX` unquoted), sorted by key then value, and
/// `_urlencode` (`quote_plus`, `=` after every key); `?` and the query when any field is left.
fn write_query(
    query: &[u8],
    out: &mut String,
    unquoted: &mut Vec<u8>,
    pairs: &mut Vec<Pair>,
    steps: &mut impl Steps,
) {
    unquoted.clear();
    pairs.clear();
    for field in query.split(|&b| b == b'&').filter(|f| !f.is_empty()) {
        let (key, value) = match field.iter().position(|&b| b == b'=') {
            Some(i) => (&field[..i], &field[i + 1..]),
            None => (field, &field[field.len()..]),
        };
        let key = unquote_plus(key, unquoted);
        let value = unquote_plus(value, unquoted);
        pairs.push(Pair { key, value });
    }
    if pairs.is_empty() {
        return;
    }
    let bytes = unquoted.as_slice();
    let span = |s: (u32, u32)| bytes.get(s.0 as usize..s.1 as usize).unwrap_or_default();
    let at = out.len();
    if steps.on() {
        urlencode(pairs, span, out);
        let unsorted = out[at..].to_string();
        out.truncate(at);
        steps.step("query", "plus-for-space", query, unsorted.as_bytes());
        pairs.sort_unstable_by(|a, b| {
            (span(a.key), span(a.value)).cmp(&(span(b.key), span(b.value)))
        });
        urlencode(pairs, span, out);
        steps.step(
            "query",
            "sort-params",
            unsorted.as_bytes(),
            &out.as_bytes()[at..],
        );
    } else {
        pairs.sort_unstable_by(|a, b| {
            (span(a.key), span(a.value)).cmp(&(span(b.key), span(b.value)))
        });
        urlencode(pairs, span, out);
    }
    out.insert(at, '?');
}

/// `_urlencode` of the pairs: `quote_plus(key)=quote_plus(value)`, joined with `&`.
fn urlencode<'a>(pairs: &[Pair], span: impl Fn((u32, u32)) -> &'a [u8], out: &mut String) {
    for (i, pair) in pairs.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        quote_plus(span(pair.key), out);
        out.push('=');
        quote_plus(span(pair.value), out);
    }
}

/// `_unquote_plus(part)` appended to `unquoted`; returns its span there.
fn unquote_plus(part: &[u8], unquoted: &mut Vec<u8>) -> (u32, u32) {
    let start = unquoted.len();
    let (mut i, mut run) = (0, 0);
    while i < part.len() {
        if !matches!(part[i], b'%' | b'+') {
            i += 1;
            continue;
        }
        unquoted.extend_from_slice(&part[run..i]);
        let (b, n) = unquote_at(part, i);
        unquoted.push(if n == 1 && b == b'+' { b' ' } else { b });
        i += n;
        run = i;
    }
    unquoted.extend_from_slice(&part[run..]);
    (start as u32, unquoted.len() as u32)
}

/// The byte at `i` of `part` as `_unquote` reads it, and how many bytes it took: a `%`
/// followed by two hex digits is the byte they spell.
#[inline]
fn unquote_at(part: &[u8], i: usize) -> (u8, usize) {
    let b = part[i];
    if b == b'%' {
        if let (Some(h), Some(l)) = (
            part.get(i + 1).and_then(|&c| hex(c)),
            part.get(i + 2).and_then(|&c| hex(c)),
        ) {
            return ((h << 4) | l, 3);
        }
    }
    (b, 1)
}

#[inline]
fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Appends `b` as `_quote` does: as it is when safe, else `%XX` in capitals.
#[inline]
fn push_quoted(b: u8, safe: &Safe, out: &mut String) {
    if safe.has(b) {
        out.push(char::from(b));
    } else {
        push_pct(b, out);
    }
}

/// Appends `quote_plus(bytes)` with no safe characters: unreserved bytes as they are (copied
/// by runs), a space as `+`, any other byte as `%XX`.
fn quote_plus(bytes: &[u8], out: &mut String) {
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if QUERY_PLUS.has(b) {
            continue;
        }
        push_ascii(&bytes[run..i], out);
        if b == b' ' {
            out.push('+');
        } else {
            push_pct(b, out);
        }
        run = i + 1;
    }
    push_ascii(&bytes[run..], out);
}

/// Appends bytes known to be ASCII.
#[inline]
fn push_ascii(ascii: &[u8], out: &mut String) {
    out.push_str(core::str::from_utf8(ascii).unwrap_or_default());
}

#[inline]
fn push_pct(b: u8, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push('%');
    out.push(char::from(HEX[usize::from(b >> 4)]));
    out.push(char::from(HEX[usize::from(b & 15)]));
}

fn push_decimal(n: u16, out: &mut String) {
    let mut buf = [0u8; 5];
    let mut i = buf.len();
    let mut n = n;
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(buf[i..].iter().map(|&b| char::from(b)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iri::test_rng::Rng;
    use crate::ladder::compat::StepNames;

    /// The key of `record`, or `!` and the exception's name for a refusal.
    fn key(record: &[u8]) -> String {
        let mut out = String::from("kept");
        let mut scratch = Scratch::default();
        match write_key(record, &mut out, &mut scratch, &mut ()) {
            Ok(()) => out["kept".len()..].to_string(),
            Err(refusal) => {
                assert!(refusal.at <= record.len(), "{record:?}: {refusal:?}");
                let name = refusal.message.split(':').next().unwrap_or_default();
                format!("!{name}")
            }
        }
    }

    fn check(cases: &[(&[u8], &str)]) {
        for &(input, want) in cases {
            assert_eq!(key(input), want, "{:?}", String::from_utf8_lossy(input));
        }
    }

    // The vectors: each input with what `canonicalize_url(input)` (the input as bytes)
    // returned, or the exception it raised, when run through the installed w3lib 2.5.0 on
    // Python 3.11.7.
    const PUBLISHED: &[(&[u8], &str)] = &[
            (b"http://www.example.com/", "http://www.example.com/"),
            (b"http://www.example.com", "http://www.example.com/"),
            (b"http://www.example.com/do?a=1&b=2&c=3", "http://www.example.com/do?a=1&b=2&c=3"),
            (b"http://www.example.com/do?c=1&b=2&a=3", "http://www.example.com/do?a=3&b=2&c=1"),
            (b"http://www.example.com/do?&a=1", "http://www.example.com/do?a=1"),
            (b"http://www.example.com:8888/do?a=1&b=2&c=3", "http://www.example.com:8888/do?a=1&b=2&c=3"),
            (b"http://www.example.com:/do?a=1&b=2&c=3", "http://www.example.com/do?a=1&b=2&c=3"),
            (b"http://www.example.com/do?c=3&b=5&b=2&a=50", "http://www.example.com/do?a=50&b=2&b=5&c=3"),
            (b"http://www.example.com/do?b=&a=2", "http://www.example.com/do?a=2&b="),
            (b"http://www.example.com/do?b=&c&a=2", "http://www.example.com/do?a=2&b=&c="),
            (b"http://www.example.com/do?1750,4", "http://www.example.com/do?1750%2C4="),
            (b"http://www.example.com/do?q=a space&a=1", "http://www.example.com/do?a=1&q=a+space"),
            (b"http://www.example.com/do?q=a+space&a=1", "http://www.example.com/do?a=1&q=a+space"),
            (b"http://www.example.com/do?q=a%20space&a=1", "http://www.example.com/do?a=1&q=a+space"),
            (b"http://www.example.com/r\xc3\xa9sum\xc3\xa9", "http://www.example.com/r%C3%A9sum%C3%A9"),
            (b"http://www.example.com/r\xc3\xa9sum\xc3\xa9?q=r\xc3\xa9sum\xc3\xa9", "http://www.example.com/r%C3%A9sum%C3%A9?q=r%C3%A9sum%C3%A9"),
            (b"http://www.example.com/r%c3%a9sum%c3%a9", "http://www.example.com/r%C3%A9sum%C3%A9"),
            (b"http://www.example.com/a%a3do", "http://www.example.com/a%A3do"),
            (b"http://www.example.com/a%a3do?q=r%c3%a9sum%c3%a9", "http://www.example.com/a%A3do?q=r%C3%A9sum%C3%A9"),
            (b"http://www.example.com/a%a3do?q=r%e9sum%e9", "http://www.example.com/a%A3do?q=r%E9sum%E9"),
            (b"http://www.example.com/do?k=b%a3", "http://www.example.com/do?k=b%A3"),
            (b"http://www.example.com/do?k=r%c3%a9sum%c3%a9", "http://www.example.com/do?k=r%C3%A9sum%C3%A9"),
            (b"http://www.example.com/a do?a=1", "http://www.example.com/a%20do?a=1"),
            (b"http://www.example.com/a %20do?a=1", "http://www.example.com/a%20%20do?a=1"),
            (b"http://www.example.com/a do\xc2\xa3.html?a=1", "http://www.example.com/a%20do%C2%A3.html?a=1"),
            (b"http://www.example.com/a do\xc2\xa3.html?a=1", "http://www.example.com/a%20do%C2%A3.html?a=1"),
            (b"http://www.example.com/do?price=\xc2\xa3500&a=5&z=3", "http://www.example.com/do?a=5&price=%C2%A3500&z=3"),
            (b"http://www.example.com/do?price=\xc2\xa3500&a=5&z=3", "http://www.example.com/do?a=5&price=%C2%A3500&z=3"),
            (b"http://www.example.com/do?price(\xc2\xa3)=500&a=1", "http://www.example.com/do?a=1&price%28%C2%A3%29=500"),
            (b"http://user:pass@www.example.com:81/do?now=1", "http://user:pass@www.example.com:81/do?now=1"),
            (b"http://user:pass@www.example.com/do?a=1#frag", "http://user:pass@www.example.com/do?a=1"),
            (b"http://www.simplybedrooms.com/White-Bedroom-Furniture/Bedroom-Mirror:-Josephine-Cheval-Mirror.html", "http://www.simplybedrooms.com/White-Bedroom-Furniture/Bedroom-Mirror:-Josephine-Cheval-Mirror.html"),
            (b"http://www.example.com/caf%E9-con-leche.htm", "http://www.example.com/caf%E9-con-leche.htm"),
            (b"http://www.EXAMPLE.com/", "http://www.example.com/"),
            (b"http://www.b\xc3\xbccher.de?q=b\xc3\xbccher", "http://www.xn--bcher-kva.de/?q=b%C3%BCcher"),
            (b"http://\xe3\x81\xaf\xe3\x81\x98\xe3\x82\x81\xe3\x82\x88\xe3\x81\x86.\xe3\x81\xbf\xe3\x82\x93\xe3\x81\xaa/?query=\xe3\x82\xb5&maxResults=5", "http://xn--p8j9a0d9c9a.xn--q9jyb4c/?maxResults=5&query=%E3%82%B5"),
            (b"http://foo.com/AC%2FDC+rocks%3f/?yeah=1", "http://foo.com/AC%2FDC+rocks%3F/?yeah=1"),
            (b"http://foo.com/AC%2FDC/", "http://foo.com/AC%2FDC/"),
            (b"http://www.b\xc3\xbccher.de/r\xc3\xa9sum\xc3\xa9?q=r\xc3\xa9sum\xc3\xa9", "http://www.xn--bcher-kva.de/r%C3%A9sum%C3%A9?q=r%C3%A9sum%C3%A9"),
            (b"http://.example.com/r\xc3\xa9sum\xc3\xa9?q=r\xc3\xa9sum\xc3\xa9", "http://.example.com/r%C3%A9sum%C3%A9?q=r%C3%A9sum%C3%A9"),
            (b"http://www.exampleexampleexampleexampleexampleexampleexampleexampleexampleexampleexample.com/r\xc3\xa9sum\xc3\xa9?q=r\xc3\xa9sum\xc3\xa9", "http://www.exampleexampleexampleexampleexampleexampleexampleexampleexampleexampleexample.com/r%C3%A9sum%C3%A9?q=r%C3%A9sum%C3%A9"),
            (b"http://www.example.com/path/to/%23/foo/bar", "http://www.example.com/path/to/%23/foo/bar"),
            (b"http://www.example.com/path/to/%23/foo/bar#frag", "http://www.example.com/path/to/%23/foo/bar"),
            (b"http://www.example.com/path/to/%23/foo/bar?url=http%3A%2F%2Fwww.example.com%2Fpath%2Fto%2F%23%2Fbar%2Ffoo", "http://www.example.com/path/to/%23/foo/bar?url=http%3A%2F%2Fwww.example.com%2Fpath%2Fto%2F%23%2Fbar%2Ffoo"),
            (b"http://www.example.com/path/to/%23/foo/bar?url=http%3A%2F%2Fwww.example.com%2F%2Fpath%2Fto%2F%23%2Fbar%2Ffoo#frag", "http://www.example.com/path/to/%23/foo/bar?url=http%3A%2F%2Fwww.example.com%2F%2Fpath%2Fto%2F%23%2Fbar%2Ffoo"),
            (b"http://www.example.com/do?c=3&b=5&b=2&a=50", "http://www.example.com/do?a=50&b=2&b=5&c=3"),
            (b"http://[::0:1]/a/../b", "http://[::1]/b"),
        ];
    const EDGES: &[(&[u8], &str)] = &[
            (b"http://example.com/%7Euser/%41", "http://example.com/~user/A"),
            (b"http://example.com/a/./b/../c/.", "http://example.com/a/c/"),
            (b"http://example.com/a/%2E%2E/b", "http://example.com/b"),
            (b"mailto:a/../b", "mailto:a/../b"),
            (b"foo:/a/../b", "foo:/b"),
            (b"http://example.com/?b=2&a=1&a=", "http://example.com/?a=&a=1&b=2"),
            (b"http://example.com/?a=%20&b=+", "http://example.com/?a=+&b=+"),
            (b"http://example.com/?a='", "http://example.com/?a=%27"),
            (b"foo://example.com/?a='", "foo://example.com/?a=%27"),
            (b"http://example.com?a=1", "http://example.com/?a=1"),
            (b"foo://example.com?a=1", "foo://example.com/?a=1"),
            (b"http://Example.COM.:80/", "http://example.com.:80/"),
            (b"HTTP://example.com/", "http://example.com/"),
            (b"http://example.com/a;p=%7e?q", "http://example.com/a;p=%7e?q="),
            (b"http://example.com/a;b/c;d", "http://example.com/a;b/c;d"),
            (b"http://example.com/%2f%3b%3f%25%26%3D%5B%5D%7C%7b", "http://example.com/%2F%3B%3F%25&=[]|%7B"),
            (b"http://example.com/a\\b?c\\d", "http://example.com/a/b?c%5Cd="),
            (b"foo://example.com/a\\b", "foo://example.com/a%5Cb"),
            (b"  http://example.com/a\tb\n  ", "http://example.com/ab"),
            (b"http://ex\tample.com/", "http://example.com/"),
            (b"http://example.com/\xff\xfe?\xc3", "http://example.com/%FF%FE?%C3="),
            (b"http://ex\xffample.com/", "http://ex%ffample.com/"),
            (b"http://a@b@c/", "http://a%40b@c/"),
            (b"http://us%65r:p%40ss@host/", "http://user:p%40ss@host/"),
            (b"http://user:@host/", "http://user:@host/"),
            (b"http://@host/", "http://@host/"),
            (b"http://host:0080/", "http://host:80/"),
            (b"http://host:/", "http://host/"),
            (b"http://[fe80::1%25ETH0]:8080/", "http://[fe80::1%25eth0]:8080/"),
            (b"http://[FE80::0:0:1]/", "http://[fe80::1]/"),
            (b"http://[::ffff:1.2.3.4]/", "http://[::ffff:102:304]/"),
            (b"http://[1:0:0:2:0:0:0:3]/", "http://[1:0:0:2::3]/"),
            (b"http://[v1.abc]/", "http://v1.abc/"),
            (b"http://[v1.\xc3\xa9]/", "http://v1.xn--9ca/"),
            (b"http://fa\xc3\x9f.de/", "http://fass.de/"),
            (b"http://\xce\xa3\xce\xa3.gr/", "http://xn--4xaa.gr/"),
            (b"http://\xef\xbc\xa5\xef\xbc\xb8\xef\xbc\xa1\xef\xbc\xad\xef\xbc\xb0\xef\xbc\xac\xef\xbc\xa5\xef\xbc\x8ecom/", "http://example.com/"),
            (b"http://xn--nxasmq6b.com/", "http://xn--nxasmq6b.com/"),
            (b"http://a..b/", "http://a..b/"),
            (b"http://\xe1\xba\x9e\xcc\x81x.com/", "http://xn--sx-2sa.com/"),
            (b"http://example.com:65535/", "http://example.com:65535/"),
            (b"//example.com/a", "//example.com/a"),
            (b"example.com/a/../b", "example.com/a/../b"),
            (b"", "/"),
            (b"http:", "http:///"),
            (b"http://", "http:///"),
            (b"foo:", "foo:/"),
            (b"http:///a", "http:///a"),
            (b"http:////a", "http:////a"),
            (b"http:/.//a", "http:////a"),
            (b"file:///C:/a/../b", "file:///C:/b"),
            (b"http://example.com/#a?b", "http://example.com/"),
            (b"http://example.com/a?&&", "http://example.com/a"),
            (b"javascript:alert(1)", "javascript:alert(1)"),
            (b"data:text/plain,a b", "data:text/plain,a%20b"),
            (b"http://x/\xe1\xb8\x830", "http://x/%E1%B8%830"),
            (b"http://\xf0\x9e\x80\xb0.com/", "http://xn--ui4h.com/"),
            (b"http://a\xea\x9f\x8b.com/", "http://xn--a-k63e.com/"),
            (b"urn:isbn:0451450523", "urn:isbn:0451450523"),
            (b"tel:+1-201-555-0123;ext=1", "tel:+1-201-555-0123;ext=1"),
        ];
    const REFUSED: &[(&[u8], &str)] = &[
        (b"http://[::1/", "!ValueError"),
        (b"http://::1]/", "!ValueError"),
        (b"http://x[::1]/", "!ValueError"),
        (b"http://[::1]x/", "!ValueError"),
        (b"http://[::1]:x/", "!ValueError"),
        (b"http://[1.2.3.4]/", "!ValueError"),
        (b"http://[zz]/", "!ValueError"),
        (b"http://[V1.a]/", "!ValueError"),
        (b"http://[v1]/", "!ValueError"),
        (b"http://[vG.a]/", "!ValueError"),
        (b"http://host:65536/", "!ValueError"),
        (b"http://host:8a/", "!ValueError"),
        (b"http://host:-1/", "!ValueError"),
        (b"http://host:\xef\xbc\x91/", "!ValueError"),
        (b"http://ex\xe2\x84\x80ample.com/", "!ValueError"),
        (b"http://a\xef\xbc\x83b/", "!ValueError"),
        (b"http://a\xef\xb9\xabb/", "!ValueError"),
        (b"http://[fe80::1%\xc3\xa9]/", "!UnicodeEncodeError"),
        (b"http://[v1.\xc3\xa9:1]/", "!UnicodeEncodeError"),
        (b"http://host:80:90/", "!ValueError"),
    ];

    /// w3lib's own tests of `canonicalize_url` (tests/test_url.py) with the default
    /// arguments, and the examples of its docstring.
    #[test]
    fn compat_w3lib_published_vectors() {
        check(PUBLISHED);
    }

    /// The merges the profile page lists, and the corners of `_urlsplit`, IDNA, IPv6 and
    /// Unicode 14.
    #[test]
    fn compat_w3lib_edge_vectors() {
        check(EDGES);
    }

    /// Each exception of `canonicalize_url`: the brackets, IPvFuture, `ip_address`, IPv4 in
    /// brackets, the ports, the NFKC netloc check, and a non-ASCII bracketed host.
    #[test]
    fn compat_w3lib_refusals() {
        check(REFUSED);
        // `int()` reads at most 4,300 digits (leading zeros count).
        let port = |zeros: usize| key(format!("http://a:{}8/", "0".repeat(zeros)).as_bytes());
        assert_eq!(port(4299), "http://a:8/");
        assert_eq!(port(4300), "!ValueError");
    }

    /// A key is its own key (w3lib's idempotence test), for every key of the vectors.
    #[test]
    fn compat_w3lib_keys_are_fixed_points() {
        for &(_, want) in PUBLISHED.iter().chain(EDGES) {
            if !want.starts_with('!') {
                assert_eq!(key(want.as_bytes()), want);
            }
        }
    }

    /// Any bytes: no panic, a refusal inside the record, no fragment, tab or newline in a
    /// key, and the same key from a reused scratch as from a fresh one.
    #[test]
    fn compat_w3lib_any_bytes() {
        let alphabet =
            "hts:/?#[]@%.;=&+ \\\t\r\nvV0123456789abcfAF:éΣİ℀＃．\u{A7CB}\u{1E030}".as_bytes();
        let mut rng = Rng(0x5eed_031b);
        let mut scratch = Scratch::default();
        for round in 0..20_000 {
            let len = (rng.next() % 40) as usize;
            let mut record = rng.bytes(len, alphabet);
            if round % 3 == 0 {
                let mut prefixed = b"http://".to_vec();
                prefixed.append(&mut record);
                record = prefixed;
            }
            let mut out = String::new();
            let reused = write_key(&record, &mut out, &mut scratch, &mut ()).map(|()| out);
            let fresh = key(&record);
            match reused {
                Ok(k) => {
                    assert!(!k.contains(['#', '\t', '\n', '\r']), "{record:?} -> {k:?}");
                    assert_eq!(k, fresh, "{record:?}");
                }
                Err(_) => assert!(fresh.starts_with('!'), "{record:?}"),
            }
        }
    }

    /// `--explain` sees the named steps.
    #[test]
    fn compat_w3lib_steps() {
        let mut seen = StepNames::default();
        let mut out = String::new();
        let record = b" HTTP://User@WWW.B\xc3\x9cCHER.de:0080/a/./%7e?b=1&a=x+y#f";
        write_key(record, &mut out, &mut Scratch::default(), &mut seen).unwrap();
        assert_eq!(out, "http://User@www.xn--bcher-kva.de:80/a/~?a=x+y&b=1");
        for step in [
            "record/strip",
            "scheme/lowercase",
            "host/lowercase",
            "host/idna",
            "port/decimal",
            "path/percent-encoding",
            "path/dot-segments",
            "query/sort-params",
            "fragment/strip",
        ] {
            assert!(
                seen.names.iter().any(|s| s == step),
                "{step} not in {:?}",
                seen.names
            );
        }
    }
}
