//! SURT keys (Sort-friendly URI Reordering Transform) for web-archive indexes.
//!
//! A SURT writes the host with its labels reversed, so that sorting keys groups a domain
//! with its subdomains (`com,example)/`, `com,example,www)/`), the form the Internet
//! Archive's CDX indexes use. [`write_surt`] rewrites a key of the ladder (normally the
//! `uri` form at the scheme or protocol rung) as a SURT:
//!
//! * **host**: a registered name has its labels reversed and joined with `,`
//!   (`www.example.com` → `com,example,www`). A trailing root dot becomes an empty first
//!   label (`example.com.` → `,com,example`): the scheme rung keeps that dot, so the SURT
//!   keeps the two hosts apart (the protocol rule `strip-trailing-dot` merges them). An
//!   IPv4 address is **not** reversed (`192.0.2.1`): its octets are not a hierarchy of
//!   names. An IP literal keeps its brackets (`[2001:db8::1]`) so that its colons cannot be
//!   mistaken for a port. An empty host (`file:///p`) is written as nothing (`)/p`).
//!   A registered name may contain `,`, `(` and `)` (RFC 3986 sub-delims; never in a DNS
//!   name) and percent-encodings: in the SURT `%`, `,`, `(` and `)` are written `%25`,
//!   `%2c`, `%28`, `%29`, so that the host part always reads back to the key's host
//!   (`b%2Ca` gives `b%252ca`, `b,a` gives `b%2ca`; the `surt` package writes them raw:
//!   `a,b.com` gives the same `com,a,b)` as `a.b.com`). A host that is not ASCII once
//!   decoded keeps its case, as it does in the key (the rungs lowercase only ASCII hosts,
//!   RFC 3987 §5.3.2.1). Two keys with different hosts or ports therefore never share the
//!   host part of their SURTs.
//! * **port**: kept when the key has one (`com,example:8080)`); the scheme rung has
//!   already dropped a default port.
//! * **userinfo**: dropped, as the Internet Archive does: credentials do not belong in an
//!   index, and the archived resource does not depend on them. This merges keys that differ
//!   only in userinfo.
//! * **`)`** closes the host, then the path, `?query` and `#fragment` exactly as the key has
//!   them. Nothing is decoded, re-encoded, sorted or removed here: a fragment or an empty
//!   `?` is in the SURT when it is in the key (drop them with `--drop-fragment` or a
//!   protocol rule, as `crawler@1` does).
//! * **case**: the SURT is ASCII-lowercased throughout (but for a host that is not ASCII
//!   once decoded, above), as Internet Archive SURTs are, including the path, the query and the hex digits of percent-encodings (`%C3%A9` →
//!   `%c3%a9`). Non-ASCII characters (an `iri` key) are left as they are. This lowercasing
//!   merges keys that differ in the case of the path or query (`/A` and `/a`), which a
//!   case-sensitive server treats as different resources; [`SurtOptions::keep_case`] turns
//!   it off.
//! * **scheme**: left out by default (`com,example)/a`); with `include_scheme` it is written
//!   before the host in parentheses, `http://(com,example)/a`, the form of the `surt`
//!   package's `with_scheme=True`. A network-path reference (no scheme) gets `//(`.
//! * A key **without an authority** (`mailto:`, `urn:`, a relative path) has no host to
//!   reverse: it is written as it is (lowercased unless `keep_case`), whatever
//!   `include_scheme` says.
//!
//! No `www` stripping, no repeated unescaping, no query sorting, no slash collapsing:
//! those are crawler heuristics and belong to the protocol rung, where each is a named rule.
//! `docs/surt.md` lists where the result differs from the `surt` Python package and why.
//!
//! ```
//! use irinorm::write_surt;
//! let mut out = String::new();
//! write_surt("http://www.example.com:8080/A/b?Q=1", false, &mut out);
//! assert_eq!(out, "com,example,www:8080)/a/b?q=1");
//! out.clear();
//! write_surt("https://192.0.2.1/x", true, &mut out);
//! assert_eq!(out, "https://(192.0.2.1)/x");
//! ```

use std::cell::RefCell;
use std::mem::MaybeUninit;

use crate::iri::find::{first_of, has_ascii_in_range, rfind};
use crate::iri::parse::{HostKind, IriRef, Layout};
use crate::iri::percent;

/// How [`write_surt_with`] writes a SURT.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SurtOptions {
    /// Write `scheme://(` before the host (`http://(com,example)/`).
    pub include_scheme: bool,
    /// Write a `,` after the last host label (`com,example,)/`), the form of Heritrix SURT
    /// prefixes and of the `surt` package's `trailing_comma=True` (which puts it after the
    /// port instead: irinorm always writes it before the port, `com,example,:8080)`).
    pub trailing_comma: bool,
    /// Keep the case of the path, query and fragment instead of lowercasing them.
    pub keep_case: bool,
}

/// Appends the SURT of `key` to `out`, with the scheme when `include_scheme` is set, in the
/// Internet Archive's lowercased form (docs/surt.md).
pub fn write_surt(key: &str, include_scheme: bool, out: &mut String) {
    write_surt_with(
        key,
        SurtOptions {
            include_scheme,
            ..SurtOptions::default()
        },
        out,
    );
}

/// [`write_surt`] into a new string.
pub fn surt(key: &str, include_scheme: bool) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    write_surt(key, include_scheme, &mut out);
    out
}

/// Appends the SURT of `key` to `out`, as `options` say.
pub fn write_surt_with(key: &str, options: SurtOptions, out: &mut String) {
    push_written(out, |bytes| write_surt_bytes(key, options, bytes));
}

/// [`write_surt_with`] into bytes.
pub(crate) fn write_surt_bytes(key: &str, options: SurtOptions, out: &mut Vec<u8>) {
    match IriRef::parse(key) {
        Ok(view) => write_surt_of_view(&view, options, out),
        // Not a reference at all: nothing to reverse.
        Err(_) => push_cased(key.as_bytes(), options, out),
    }
}

/// [`write_surt`] into bytes, for a key the ladder wrote, valid by construction: its view
/// taken from where its writer recorded its components (`layout`), or split without
/// checking them again ([`IriRef::split_written`]); where that split fails, the key as it
/// is, lowercased.
pub(crate) fn write_surt_of_key(
    key: &str,
    layout: Option<Layout>,
    include_scheme: bool,
    out: &mut Vec<u8>,
) {
    let options = SurtOptions {
        include_scheme,
        ..SurtOptions::default()
    };
    match IriRef::split_written(key, layout) {
        Ok(view) => write_surt_of_view(&view, options, out),
        Err(_) => push_cased(key.as_bytes(), options, out),
    }
}

thread_local! {
    /// The bytes [`push_written`] has a SURT written into, kept from call to call.
    static BYTES: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Appends to `out` what `write` writes into a buffer of bytes. The writers of this module
/// work on bytes (the engine's output is bytes); everything they write is text of the key
/// cut at ASCII bytes, or ASCII, so it is UTF-8.
pub(crate) fn push_written(out: &mut String, write: impl FnOnce(&mut Vec<u8>)) {
    BYTES.with(|cell| {
        let mut fresh = Vec::new();
        let mut borrowed = cell.try_borrow_mut();
        let bytes = match borrowed.as_deref_mut() {
            Ok(b) => b,
            // Re-entered on this thread: a buffer of its own.
            Err(_) => &mut fresh,
        };
        bytes.clear();
        write(bytes);
        let text = std::str::from_utf8(bytes).expect("a SURT is cut from its key at ASCII bytes");
        out.push_str(text);
    });
}

/// [`write_surt_bytes`] for a key already split into its components.
fn write_surt_of_view(view: &IriRef<'_>, options: SurtOptions, out: &mut Vec<u8>) {
    if view.authority().is_none() {
        // No authority: no host to reverse.
        push_cased(view.as_str().as_bytes(), options, out);
        return;
    }
    let parts = SurtParts {
        scheme: view.scheme().map(str::as_bytes),
        host: view.host().unwrap_or("").as_bytes(),
        host_kind: view.host_kind(),
        ldh_dots: None,
        port: view.port().map(str::as_bytes),
        rest: view.path_query_fragment().as_bytes(),
    };
    write_surt_of_parts(&parts, options, out);
}

/// The pieces of a key with an authority that its SURT is written from: text of the key,
/// cut at ASCII bytes.
pub(crate) struct SurtParts<'a> {
    /// The scheme, if any.
    pub(crate) scheme: Option<&'a [u8]>,
    /// The host (empty for `file:///p`), and what kind it is.
    pub(crate) host: &'a [u8],
    pub(crate) host_kind: HostKind,
    /// For a registered name known to hold only `a-z 0-9 - .` (nothing to escape or
    /// lowercase): its dots, bit `k` for byte `k` (of the first 64).
    pub(crate) ldh_dots: Option<u64>,
    /// The port without its `:`, if any (possibly empty).
    pub(crate) port: Option<&'a [u8]>,
    /// The path, query and fragment, as the key writes them.
    pub(crate) rest: &'a [u8],
}

/// Appends the SURT of a key with an authority, from its pieces (the ladder's fast path has
/// them for a record that is its own key, without parsing it).
pub(crate) fn write_surt_of_parts(parts: &SurtParts<'_>, options: SurtOptions, out: &mut Vec<u8>) {
    // The SURT is as long as the key without its scheme and `//`, and without userinfo,
    // but for escapes in the host and the few bytes around the host.
    let scheme = parts.scheme.map_or(0, <[u8]>::len);
    let port = parts.port.map_or(0, <[u8]>::len);
    out.reserve(scheme + parts.host.len() + port + parts.rest.len() + 8);
    if options.include_scheme {
        push_scheme_part(parts.scheme, out);
    }
    let host_start = out.len();
    let host = parts.host;
    match (parts.host_kind, parts.ldh_dots) {
        (HostKind::RegName, Some(dots)) if host.len() < 64 => {
            let host = LdhHost {
                text: host,
                len: host.len(),
                dots,
            };
            push_host_part(host, out);
        }
        (HostKind::RegName, _) if !host.is_empty() => {
            push_reversed_labels(host, out);
            // RFC 3987 §5.3.2.1: the rungs lowercase only a host that is ASCII once decoded;
            // one that is not keeps its case in the key, and so in the SURT, or two hosts
            // the ladder keeps apart (`A%C3%A9`, `a%C3%A9`) would share a SURT.
            if has_ascii_in_range(host, b'A', b'Z') && !percent::has_non_ascii_bytes(host) {
                out[host_start..].make_ascii_lowercase();
            }
        }
        // IPv4 addresses, IP literals (with their brackets) and the empty host as they are
        // (lowercase: the rungs lowercase IP literals).
        _ => {
            out.extend_from_slice(host);
            out[host_start..].make_ascii_lowercase();
        }
    }
    if options.trailing_comma && !host.is_empty() {
        out.push(b',');
    }
    let (port, rest) = (parts.port.unwrap_or_default(), Rest::new(false, parts.rest));
    push_port_and_rest(port, rest, !options.keep_case, out);
}

/// What follows the host and port in a SURT: the key's path, query and fragment.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rest<'a> {
    /// A `/` goes first: the key's path is `/` where the record's is empty (RFC 3986
    /// §6.2.3), and `text` is the record's query and fragment.
    pub(crate) slash: bool,
    /// The path, query and fragment as written: the first `len` bytes of `text`, which may
    /// go on past them (the writer of an LDH host's SURT reads ahead there, a block at a
    /// time, and writes only the rest).
    pub(crate) text: &'a [u8],
    /// The length of the path, query and fragment.
    pub(crate) len: usize,
}

impl<'a> Rest<'a> {
    /// The rest `text`, all of it, with a `/` first where `slash` says.
    pub(crate) fn new(slash: bool, text: &'a [u8]) -> Rest<'a> {
        Rest {
            slash,
            text,
            len: text.len(),
        }
    }
}

/// A registered name of `a-z 0-9 - .` under 64 bytes that is not an IPv4 address, as the
/// fast path hands it to [`write_ldh_surt`]: the first `len` bytes of `text`, which may go
/// on past the host (the rest of the record: the writer reads ahead there, a block at a
/// time, and writes only the host), with its dots at the set bits of `dots`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LdhHost<'a> {
    /// The host, and whatever follows it.
    pub(crate) text: &'a [u8],
    /// The host's length.
    pub(crate) len: usize,
    /// Bit `k` is set where byte `k` of the host is a `.`.
    pub(crate) dots: u64,
}

/// [`write_surt_of_parts`] for the common key of the fast path, inline: an [`LdhHost`], a
/// port (empty for none), and the rest; no scheme written, no trailing comma, the rest
/// lowercased (the Internet Archive's form, [`SurtOptions::default`]). It writes
/// exactly what [`write_surt_of_parts`] writes for those pieces (tested below), sharing its
/// tail for a port longer than [`PORT_ROOM`].
///
/// The SURT is put together in place, in `out`'s spare capacity, and only then counted in
/// its length: the host's labels ([`put_reversed_ldh`]), the port and `)`, then the rest,
/// copied and lowercased a block of sixteen bytes at a time where `rest.text` has them
/// ([`put_rest`]). The bytes a
/// block writes past what it copies are written over by what follows, or left out of the
/// length. Writing there rather than into a buffer on the stack that is then copied out
/// saves that copy's load of sixteen bytes over stores of other widths at other offsets,
/// which the processor cannot forward and waits for; and the blocks save a `memcpy` call and
/// a second pass to lowercase.
#[inline(always)]
pub(crate) fn write_ldh_surt(host: LdhHost<'_>, port: &[u8], rest: Rest<'_>, out: &mut Vec<u8>) {
    write_ldh_surt_ending(host, port, rest, None, out);
}

/// [`write_ldh_surt`], then `ending` if there is one (a line feed).
#[inline(always)]
fn write_ldh_surt_ending(
    host: LdhHost<'_>,
    port: &[u8],
    rest: Rest<'_>,
    ending: Option<u8>,
    out: &mut Vec<u8>,
) {
    if port.len() > PORT_ROOM {
        push_host_part(host, out);
        push_port_and_rest(port, rest, true, out);
        out.extend(ending);
        return;
    }
    let need = ROOM + 2 + rest.len + 16;
    out.reserve(need);
    let base = out.len();
    let room = &mut out.spare_capacity_mut()[..need];
    // The host part, in its room of known size.
    let host_room = room_of(room);
    let mut at = put_reversed_ldh(host, host_room);
    if !port.is_empty() {
        host_room[at] = MaybeUninit::new(b':');
        put(host_room, at + 1, port);
        at += 1 + port.len();
    }
    host_room[at] = MaybeUninit::new(b')');
    at += 1;
    if rest.slash {
        room[at] = MaybeUninit::new(b'/');
        at += 1;
    }
    let mut at = put_rest(rest, room, at);
    if let Some(c) = ending {
        room[at] = MaybeUninit::new(c);
        at += 1;
    }
    // SAFETY: the first `at` bytes of `out`'s spare capacity (`room`, `need` bytes) are
    // written: `put_reversed_ldh` writes every byte before the end it returns, the port, `)`,
    // `/` and the ending are written where they are counted, and `put_rest` writes every byte
    // from where it starts to its end.
    unsafe { out.set_len(base + at) };
}

/// [`write_ldh_surt`] of a record with an LDH host, and a line feed, from where the pieces
/// lie in the record: the record is the first `len` bytes of `line` (which may go on past
/// it: the writer reads ahead there), the host (`host`, its start and end, with its dots at
/// the set bits of `dots`), the authority's end (`end`: a port is between the host and it;
/// the path starts there), and whether the empty path is written `/` (`slash`). Out of
/// line, with its arguments one by one (in registers, the last few on the stack) rather than
/// in a struct: the run of lines that calls it for each line keeps nothing of the record in
/// memory for it.
///
/// Such a SURT always differs from its record, which has an authority: a record with a
/// scheme is longer than its SURT (which drops `scheme://` and adds at most `)/`), and one
/// without a scheme starts with `/`, which its SURT never does (it starts with a byte of the
/// host, or with `:` or `)` where the host is empty).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_ldh_surt_line(
    out: &mut Vec<u8>,
    line: &[u8],
    len: usize,
    host: (usize, usize),
    end: usize,
    dots: u64,
    slash: bool,
) {
    ldh_surt_line(out, line, len, host, end, dots, slash);
}

/// [`write_ldh_surt_line`] with the scheme first ([`SurtOptions::include_scheme`]): the
/// record's scheme is `line[..scheme_end]` (its `:` included; empty where the record has
/// none), written as [`push_scheme_part`] writes it. A function of its own, so that the
/// SURTs without a scheme pay nothing for it.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_ldh_surt_line_with_scheme(
    out: &mut Vec<u8>,
    line: &[u8],
    len: usize,
    scheme_end: usize,
    host: (usize, usize),
    end: usize,
    dots: u64,
    slash: bool,
) {
    push_scheme_part_of_line(line, scheme_end, out);
    ldh_surt_line(out, line, len, host, end, dots, slash);
}

/// [`push_scheme_part`] for the record at the start of `line`, whose scheme (and `:`) is
/// `line[..scheme_end]`, followed by its authority's `//`: the scheme part is then the
/// record's first `scheme_end + 2` bytes and a `(`, which one block of sixteen bytes
/// carries, lowercased as a whole, where the scheme is at most twelve bytes long and
/// `line` holds sixteen bytes (every scheme with a row for DNS hosts is, and most lines
/// do); otherwise it is written the general way.
#[inline(always)]
fn push_scheme_part_of_line(line: &[u8], scheme_end: usize, out: &mut Vec<u8>) {
    debug_assert_eq!(line.get(scheme_end..scheme_end + 2), Some(&b"//"[..]));
    let n = scheme_end + 3;
    match line.get(..16) {
        Some(head) if n <= 16 => {
            let mut block: [u8; 16] = head.try_into().expect("sixteen bytes");
            block[n - 1] = b'(';
            // A whole block is one store; the bytes past the scheme part are cut off again.
            out.extend_from_slice(&block.map(|c| c.to_ascii_lowercase()));
            out.truncate(out.len() - (16 - n));
        }
        _ => push_scheme_part(scheme_end.checked_sub(1).map(|colon| &line[..colon]), out),
    }
}

/// The body of [`write_ldh_surt_line`].
#[inline(always)]
fn ldh_surt_line(
    out: &mut Vec<u8>,
    line: &[u8],
    len: usize,
    host: (usize, usize),
    end: usize,
    dots: u64,
    slash: bool,
) {
    let (start, host_end) = host;
    let host = LdhHost {
        text: &line[start..],
        len: host_end - start,
        dots,
    };
    let port = if host_end < end {
        &line[host_end + 1..end]
    } else {
        &[]
    };
    let rest = Rest {
        slash,
        text: &line[end..],
        len: len - end,
    };
    let from = out.len();
    write_ldh_surt_ending(host, port, rest, Some(b'\n'), out);
    debug_assert!(out[from..out.len() - 1] != line[..len]);
}

/// Writes what a SURT with its scheme ([`SurtOptions::include_scheme`]) has before the
/// host: the scheme and its `:` (none for a network-path reference), then `//(`. The
/// scheme is lowercase in keys already; it is lowercased anyway, so the result does not
/// depend on the rung the key came from.
fn push_scheme_part(scheme: Option<&[u8]>, out: &mut Vec<u8>) {
    let start = out.len();
    if let Some(s) = scheme {
        out.extend_from_slice(s);
        out.push(b':');
    }
    out.extend_from_slice(b"//(");
    out[start..].make_ascii_lowercase();
}

/// Appends the reversed labels of `host` to `out` ([`put_reversed_ldh`]).
#[inline(always)]
fn push_host_part(host: LdhHost<'_>, out: &mut Vec<u8>) {
    out.reserve(ROOM);
    let base = out.len();
    let at = put_reversed_ldh(host, room_of(out.spare_capacity_mut()));
    // SAFETY: `put_reversed_ldh` writes every byte of `out`'s spare capacity before the end
    // it returns, and that capacity holds `ROOM` bytes: the first `at` are written.
    unsafe { out.set_len(base + at) };
}

/// What follows the host in every SURT: `:` and the port unless it is empty, `)`, then the
/// rest, lowercased where `lowercase` says.
#[inline(always)]
fn push_port_and_rest(port: &[u8], rest: Rest<'_>, lowercase: bool, out: &mut Vec<u8>) {
    if !port.is_empty() {
        out.push(b':');
        out.extend_from_slice(port);
    }
    out.push(b')');
    if rest.slash {
        out.push(b'/');
    }
    push_rest(&rest.text[..rest.len], lowercase, out);
}

/// Appends the path, query and fragment of a SURT, lowercased where `lowercase` says.
#[inline(always)]
fn push_rest(text: &[u8], lowercase: bool, out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(text);
    if lowercase {
        out[start..].make_ascii_lowercase();
    }
}

/// Appends `key` as it is, lowercased unless `keep_case`.
fn push_cased(key: &[u8], options: SurtOptions, out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(key);
    if !options.keep_case {
        out[start..].make_ascii_lowercase();
    }
}

/// Writes the labels of `host` last to first, joined with `,`, each as [`push_label`] writes
/// it. Each label is found by a search back from the end of what is left ([`rfind`]).
fn push_reversed_labels(host: &[u8], out: &mut Vec<u8>) {
    let plain = first_of([b'%', b',', b'(', b')'], host).is_none();
    let mut left = host;
    while let Some(dot) = rfind(b'.', left) {
        push_label(&left[dot + 1..], plain, out);
        out.push(b',');
        left = &left[..dot];
    }
    push_label(left, plain, out);
}

/// Writes `rest` at `at` in `room` (which has `rest.len` and sixteen bytes more from `at`),
/// lowercased; returns where it ends, every byte from `at` to there written. A block of
/// sixteen bytes at a time, the bytes of the last block past the rest written too (and
/// left out) where `rest.text` has them; where it does not, the last few byte by byte.
#[inline(always)]
fn put_rest(rest: Rest<'_>, room: &mut [MaybeUninit<u8>], at: usize) -> usize {
    let (text, len) = (rest.text, rest.len);
    let blocks = len.div_ceil(16) * 16;
    if let Some(src) = text.get(..blocks) {
        // The text goes on past the rest's last block: blocks only.
        put_lowered_blocks(&mut room[at..at + blocks], src);
        return at + len;
    }
    // At the end of the text: the whole blocks, then the last few bytes one by one.
    let whole = len / 16 * 16;
    put_lowered_blocks(&mut room[at..at + whole], &text[..whole]);
    let last = room[at + whole..at + len].iter_mut().zip(&text[whole..len]);
    for (d, &c) in last {
        *d = MaybeUninit::new(c.to_ascii_lowercase());
    }
    at + len
}

/// Writes `src` (whole blocks of sixteen bytes) into `room` (as long), lowercased.
#[inline(always)]
fn put_lowered_blocks(room: &mut [MaybeUninit<u8>], src: &[u8]) {
    for (d, s) in room.chunks_exact_mut(16).zip(src.chunks_exact(16)) {
        let block: [u8; 16] = s.try_into().expect("sixteen bytes");
        let d: &mut [MaybeUninit<u8>; 16] = d.try_into().expect("sixteen bytes");
        *d = block.map(|c| MaybeUninit::new(c.to_ascii_lowercase()));
    }
}

/// The bytes of `out`'s spare capacity that [`put_reversed_ldh`] puts a host's labels
/// together in.
type Room = [MaybeUninit<u8>; ROOM];

/// The first [`ROOM`] bytes of `spare`.
#[inline(always)]
fn room_of(spare: &mut [MaybeUninit<u8>]) -> &mut Room {
    (&mut spare[..ROOM]).try_into().expect("ROOM bytes")
}

/// Writes `bytes` into `room` at `at`.
#[inline(always)]
fn put(room: &mut Room, at: usize, bytes: &[u8]) {
    for (d, &c) in room[at..at + bytes.len()].iter_mut().zip(bytes) {
        *d = MaybeUninit::new(c);
    }
}

/// Writes the `N` bytes of `block` into `room` at `at`, as one store of `N` bytes (a copy of
/// a fixed-size array, which the compiler keeps whole).
#[inline(always)]
fn put_array<const N: usize>(room: &mut Room, at: usize, block: [u8; N]) {
    let d: &mut [MaybeUninit<u8>; N] = (&mut room[at..at + N]).try_into().expect("N bytes");
    *d = block.map(MaybeUninit::new);
}

/// The sixteen bytes of `text` from `at`, if it has them.
#[inline(always)]
fn block_at(text: &[u8], at: usize) -> Option<[u8; 16]> {
    text.get(at..at + 16)
        .map(|b| b.try_into().expect("sixteen bytes"))
}

/// Writes the labels of an [`LdhHost`] (the first `len` bytes of its `text`: what follows
/// them there is read but not written), last to first and joined with `,`, at the start of
/// `room`; returns where they
/// end, every byte before it written. Labels are short: each is copied sixteen bytes at a
/// time where `text` has them ([`copy_label`]; the bytes past a label are written over by
/// the `,` and the label after it, or are past the host), rather than by a `memcpy` call
/// per label.
#[inline(always)]
fn put_reversed_ldh(host: LdhHost<'_>, room: &mut Room) -> usize {
    debug_assert!(host.len < 64);
    let (text, mut end, mut dots, mut at) = (host.text, host.len, host.dots, 0);
    loop {
        let dot = (dots != 0).then(|| 63 - dots.leading_zeros() as usize);
        let start = dot.map_or(0, |d| d + 1);
        let len = end - start;
        match block_at(text, start) {
            // Most labels: one block.
            Some(block) if len <= 16 => {
                put_array(room, at, block);
                at += len;
            }
            _ => at = copy_label(text, start, end, room, at),
        }
        let Some(dot) = dot else { break };
        room[at] = MaybeUninit::new(b',');
        at += 1;
        end = dot;
        dots ^= 1 << dot;
    }
    at
}

/// The room a host part needs: a host of under 64 bytes, the sixteen bytes a copy may write
/// past its end, and room for a port of up to [`PORT_ROOM`] bytes with its `:` and `)` after
/// the host.
const ROOM: usize = 64 + 16 + PORT_ROOM + 2;

/// The longest port [`write_ldh_surt`] writes into its room after the host.
const PORT_ROOM: usize = 16;

/// Copies `text[from..to]` (a label) to `room` at `at` and returns where it ends there.
/// Where `text` has sixteen bytes from a position, they are copied whole (one load and one
/// store; those past the label are written over later or left out); at its end, eight at a
/// time ([`host_word`]).
#[inline(always)]
fn copy_label(text: &[u8], from: usize, to: usize, room: &mut Room, at: usize) -> usize {
    let (mut k, mut at) = (from, at);
    while k < to {
        if let Some(block) = block_at(text, k) {
            put_array(room, at, block);
            let take = (to - k).min(16);
            (at, k) = (at + take, k + take);
        } else {
            let take = (to - k).min(8);
            let word = host_word(&text[..to], k, take);
            put_array(room, at, word.to_le_bytes());
            (at, k) = (at + take, k + take);
        }
    }
    at
}

/// The `take` bytes (1 to 8) of `host` from `at`, in the low bytes of a little-endian word
/// (what is above them is not specified): one load of the eight bytes from `at` where the
/// host has them, else of the eight that end with the wanted ones, shifted down; byte by
/// byte only in a host shorter than eight bytes.
#[inline(always)]
fn host_word(host: &[u8], at: usize, take: usize) -> u64 {
    let load = |i: usize| u64::from_le_bytes(host[i..i + 8].try_into().expect("eight bytes"));
    if at + 8 <= host.len() {
        load(at)
    } else if at + take >= 8 {
        load(at + take - 8) >> (8 * (8 - take))
    } else {
        let bytes = &host[at..at + take];
        bytes.iter().rev().fold(0, |w, &c| (w << 8) | u64::from(c))
    }
}

/// Writes a host label with `%` and the characters that delimit the SURT host part (`,`
/// `(` `)`, sub-delims a `reg-name` may hold) percent-encoded (`plain`: it has none of
/// them), in lowercase hex (`%25`, `%2c`, `%28`, `%29`), so that the host part reads back
/// to exactly the key's host: decoding those four gives it back, and a `%2C` of the key
/// (written `%252C`) never meets a `,` (written `%2c`). Inline for the common plain label;
/// the escapes are [`push_escaped_label`]'s.
#[inline(always)]
fn push_label(label: &[u8], plain: bool, out: &mut Vec<u8>) {
    if plain {
        out.extend_from_slice(label);
    } else {
        push_escaped_label(label, out);
    }
}

/// [`push_label`] for a label that may hold `%`, `,`, `(` or `)`.
fn push_escaped_label(label: &[u8], out: &mut Vec<u8>) {
    for &b in label {
        match b {
            b'%' => out.extend_from_slice(b"%25"),
            b',' => out.extend_from_slice(b"%2c"),
            b'(' => out.extend_from_slice(b"%28"),
            b')' => out.extend_from_slice(b"%29"),
            _ => out.push(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iri::test_rng::Rng;

    #[test]
    fn basic_forms() {
        assert_eq!(surt("http://example.com/", false), "com,example)/");
        assert_eq!(surt("http://example.com/", true), "http://(com,example)/");
        assert_eq!(surt("http://[::1]:8080/a", false), "[::1]:8080)/a");
        assert_eq!(surt("http://1.2.3.4/", false), "1.2.3.4)/");
        assert_eq!(surt("http://u:p@example.com/", false), "com,example)/");
        assert_eq!(surt("http://example.com./", false), ",com,example)/");
        assert_eq!(surt("file:///etc/x", true), "file://()/etc/x");
        assert_eq!(surt("mailto:A@B.com", true), "mailto:a@b.com");
        assert_eq!(surt("//example.com/a", true), "//(com,example)/a");
        let mut out = String::new();
        write_surt_with(
            "http://example.com:81/A",
            SurtOptions {
                include_scheme: true,
                trailing_comma: true,
                keep_case: true,
            },
            &mut out,
        );
        assert_eq!(out, "http://(com,example,:81)/A");
    }

    #[test]
    fn escapes_and_case_in_hosts() {
        assert_eq!(surt("http://b%2Ca/", false), "b%252ca)/");
        assert_eq!(surt("foo://b,a(x)/", false), "b%2ca%28x%29)/");
        assert_eq!(surt("foo://A%C3%A9.B/P", false), "B,A%25C3%25A9)/p");
        assert_eq!(surt("foo://AB.C/P", false), "c,ab)/p");
    }

    /// The dots of `host`, bit `k` for byte `k`.
    fn dots_of(host: &[u8]) -> u64 {
        host.iter()
            .enumerate()
            .filter(|(_, &c)| c == b'.')
            .fold(0, |d, (k, _)| d | 1 << k)
    }

    /// A little generator of the hosts the fast path hands the LDH writers: labels of
    /// `a-z 0-9 -` of 1 to 20 bytes (and now and then a trailing root dot), under 64 bytes.
    fn ldh_hosts() -> Vec<String> {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut next = move |n: u64| rng.next() % n;
        let mut hosts: Vec<String> = ["", "a", "com.", "a.b", ".", "..", ".a", "a..b", "1.2.3"]
            .map(String::from)
            .into();
        while hosts.len() < 3000 {
            let mut h = String::new();
            for i in 0..1 + next(6) {
                if i > 0 {
                    h.push('.');
                }
                for _ in 0..1 + next(20) {
                    h.push(char::from(b"abcxyz019-"[next(10) as usize]));
                }
            }
            if next(8) == 0 {
                h.push('.');
            }
            if h.len() < 64 {
                hosts.push(h);
            }
        }
        hosts
    }

    #[test]
    fn ldh_hosts_reverse_as_any_host_does() {
        for host in ldh_hosts() {
            let b = host.as_bytes();
            let mut general = Vec::new();
            push_reversed_labels(b, &mut general);
            // Alone, and with the rest of a record after it (read ahead, not written).
            for text in [host.clone(), format!("{host}:8080/a/long/path/after/it")] {
                let ldh = LdhHost {
                    text: text.as_bytes(),
                    len: b.len(),
                    dots: dots_of(b),
                };
                let mut fast = b"x".to_vec();
                push_host_part(ldh, &mut fast);
                assert_eq!(fast[1..], general[..], "{host}");
            }
        }
    }

    #[test]
    fn the_line_writer_writes_the_surt_of_the_key_from_its_offsets() {
        let records = [
            ("http://www.example.com/A/b?Q=1#F", false),
            ("http://example.com./x", false),
            ("//host-1.example/x?y", false),
            ("ftp://x-y.z:2121/P", false),
            // A port too long for the room after the host: written the general way.
            ("foo://a.b:123456789012345678/P", false),
            ("http://a.b.c", true),
            // As long as its SURT (`b,a)/`), and told apart by its first byte.
            ("//a.b", true),
            ("https://a.b.c:8443?Q", true),
            (
                "http://some-long-label-of-more-than-sixteen.example.org/",
                false,
            ),
            // Schemes whose part before the host (`scheme://(`) fills a block of sixteen
            // bytes, and passes it; one in uppercase, which the writer lowercases as the
            // general one does (the fast path takes none where SURTs are written).
            ("abcdefghijkl://a.b/x", false),
            ("abcdefghijklm://a.b/x", false),
            ("chrome-extension://a.b/x", false),
            ("HTTP://a.b/X", false),
            ("h://a.b", true),
        ];
        for (record, slash) in records {
            let b = record.as_bytes();
            let start = record.find("//").unwrap() + 2;
            let end = b[start..]
                .iter()
                .position(|c| matches!(c, b'/' | b'?' | b'#'))
                .map_or(b.len(), |k| start + k);
            let host_end = record[start..end].find(':').map_or(end, |k| start + k);
            let mut out = b"x".to_vec();
            let dots = dots_of(&b[start..host_end]);
            let host = (start, host_end);
            let len = b.len();
            // The line writer reads past the record: alone, and with another line after it.
            let line = format!("{record}\nhttp://NEXT.LINE/WITH/MORE/TEXT");
            let mut again = out.clone();
            write_ldh_surt_line(&mut out, b, len, host, end, dots, slash);
            write_ldh_surt_line(&mut again, line.as_bytes(), len, host, end, dots, slash);
            assert_eq!(out, again, "{record}");
            // The key of a record with an empty path has its `/` before the query.
            let key = match slash {
                true => format!("{}/{}", &record[..end], &record[end..]),
                false => record.to_string(),
            };
            assert_eq!(
                out,
                format!("x{}\n", surt(&key, false)).as_bytes(),
                "{record}"
            );
            assert_ne!(out[1..out.len() - 1], *b, "{record}");
            // With the scheme: alone, and with another line after it.
            let scheme_end = start - 2;
            let mut with = b"x".to_vec();
            write_ldh_surt_line_with_scheme(&mut with, b, len, scheme_end, host, end, dots, slash);
            let mut again = b"x".to_vec();
            let line = line.as_bytes();
            write_ldh_surt_line_with_scheme(
                &mut again, line, len, scheme_end, host, end, dots, slash,
            );
            assert_eq!(with, again, "{record}");
            assert_eq!(
                with,
                format!("x{}\n", surt(&key, true)).as_bytes(),
                "{record}"
            );
        }
    }

    #[test]
    fn the_inline_writer_writes_what_the_general_one_does() {
        // Rests of every length around the blocks' 16 bytes, in mixed case.
        let mut rests: Vec<String> = ["", "/", "/a/B?Q=1#F", "/%C3%A9/x", "?a=B", "/?a=B#C", "/#F"]
            .map(String::from)
            .into();
        for n in [15, 16, 17, 31, 32, 33, 48, 49] {
            rests.push((0..n).map(|k| char::from(b"/aB?=Z%#-x"[k % 10])).collect());
        }
        // Ports up to the room after the host, and one longer: that goes out on its own.
        let ports = ["", "1", "8080", "1234567890123456", "12345678901234567"];
        let mut hosts = ldh_hosts();
        // Labels of 16, 17, 33 and 63 bytes, and 32 labels.
        for n in [16, 17, 33, 63] {
            hosts.push("a".repeat(n));
        }
        hosts.push(format!("{}c", "b.".repeat(31)));
        for (i, host) in hosts.iter().enumerate() {
            for (port, rest) in ports
                .iter()
                .flat_map(|p| rests.iter().map(move |r| (*p, r)))
            {
                check_inline_writer(host, port, rest, i % 18);
            }
        }
    }

    /// [`write_ldh_surt`] of `host`, `port` and `rest` against [`write_surt_of_parts`]: the
    /// rest alone, and with `after` bytes of text after it (that the blocks read and do not
    /// write).
    fn check_inline_writer(host: &str, port: &str, rest: &str, after: usize) {
        let parts = SurtParts {
            scheme: Some(b"http"),
            host: host.as_bytes(),
            host_kind: HostKind::RegName,
            ldh_dots: None,
            port: (!port.is_empty()).then_some(port.as_bytes()),
            rest: rest.as_bytes(),
        };
        let mut general = Vec::new();
        write_surt_of_parts(&parts, SurtOptions::default(), &mut general);
        let record = format!("{host}:{port}{rest}");
        let ldh = LdhHost {
            text: record.as_bytes(),
            len: host.len(),
            dots: dots_of(host.as_bytes()),
        };
        let fast = |slash, text: &str, after: &str| {
            let mut fast = b"x".to_vec();
            let on = format!("{text}{after}");
            let rest = Rest {
                slash,
                text: on.as_bytes(),
                len: text.len(),
            };
            write_ldh_surt(ldh, port.as_bytes(), rest, &mut fast);
            fast.split_off(1)
        };
        let after = &"\nHTTP://A.B/C/D/E"[..after];
        for after in ["", after] {
            let what = format!("{host} {port} {rest} {after:?}");
            assert_eq!(fast(false, rest, after), general, "{what}");
            // The `/` that an empty path becomes, written before the query and fragment.
            if let Some(text) = rest.strip_prefix('/') {
                assert_eq!(fast(true, text, after), general, "{what}");
            }
        }
    }
}
