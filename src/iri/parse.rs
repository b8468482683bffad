//! The parser: one pass over an IRI reference, recording component offsets into the input
//! (RFC 3987 §2.2, RFC 3986 §3 and §4.1).
//!
//! [`IriRef::parse`] splits the text the way RFC 3986 Appendix B does (first `:` before any
//! `/ ? #` ends a scheme, `//` starts an authority, `?` a query, the first `#` a fragment),
//! then checks every component against its production of RFC 3987 §2.2: `iuserinfo`,
//! `ihost` (`IP-literal`, `IPv4address` or `ireg-name`), `port`, the `ipath-*` forms,
//! `iquery` (the only place for `iprivate`) and `ifragment`. Bidi formatting characters are
//! rejected as RFC 3987 §4.1 requires. The URI grammars of RFC 3986 are the same productions
//! restricted to ASCII.
//!
//! The result is a view: a few offsets into the borrowed text, nothing allocated. Writing
//! the components back in order gives the input unchanged ([`IriRef::as_str`]).

use crate::iri::chars::{self, is_bidi_format, is_iprivate, is_ucschar};
use crate::iri::components::Components;
use crate::iri::error::{self, Error, ErrorKind};
use crate::iri::find::{find, find2, find3};
use crate::iri::host;

/// The productions a record can be checked against (RFC 3987 §2.2, RFC 3986 §3–§4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Grammar {
    /// `IRI-reference`: an IRI or a relative reference (the default).
    #[default]
    IriReference,
    /// `IRI`: a scheme is required; a fragment is allowed.
    Iri,
    /// `absolute-IRI`: a scheme is required; no fragment.
    AbsoluteIri,
    /// `URI-reference`: like `IRI-reference`, ASCII only.
    UriReference,
    /// `URI`: like `IRI`, ASCII only.
    Uri,
    /// `absolute-URI`: like `absolute-IRI`, ASCII only.
    AbsoluteUri,
}

impl Grammar {
    /// The command-line name of the grammar (`iri-reference`, `absolute-uri`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Grammar::IriReference => "iri-reference",
            Grammar::Iri => "iri",
            Grammar::AbsoluteIri => "absolute-iri",
            Grammar::UriReference => "uri-reference",
            Grammar::Uri => "uri",
            Grammar::AbsoluteUri => "absolute-uri",
        }
    }

    /// Whether the grammar admits only US-ASCII (the RFC 3986 ones).
    pub fn ascii_only(self) -> bool {
        matches!(
            self,
            Grammar::UriReference | Grammar::Uri | Grammar::AbsoluteUri
        )
    }

    /// Whether the grammar requires a scheme.
    pub fn needs_scheme(self) -> bool {
        !matches!(self, Grammar::IriReference | Grammar::UriReference)
    }

    /// Whether the grammar forbids a fragment.
    pub fn forbids_fragment(self) -> bool {
        matches!(self, Grammar::AbsoluteIri | Grammar::AbsoluteUri)
    }
}

/// What kind of host an authority names (RFC 3986 §3.2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostKind {
    /// `ireg-name`: a registered name, usually DNS (possibly empty).
    RegName,
    /// `IPv4address` in dotted-decimal form.
    Ipv4,
    /// `IP-literal` holding an `IPv6address`.
    Ipv6,
    /// `IP-literal` holding an `IPvFuture`.
    IpvFuture,
}

/// A half-open byte range into the parsed text.
pub(crate) type Span = (u32, u32);

/// A parsed IRI reference: the text and the offsets of its components.
///
/// Offsets are stored as `u32`; texts of 4 GiB or more are rejected by [`IriRef::parse`].
/// Two views are equal when they split the same text the same way (what the parser
/// learned about a component's characters on the way, `IriRef::is_plain`, is not
/// compared).
#[derive(Clone, Copy, Debug, Eq)]
pub struct IriRef<'a> {
    text: &'a str,
    /// Where the components lie.
    spans: Layout,
    host_kind: HostKind,
    /// The components, as [`Component::bit`]s, found to hold no percent-encoding and no
    /// non-ASCII character while they were checked (none for an unchecked split), and
    /// [`LDH_BYTE`] when the host was found to hold only LDH bytes; [`CHECKED`] when the
    /// text was checked, with [`NON_ASCII`] if a non-ASCII character was found.
    plain: u8,
}

/// Which characters a component admits beyond the ASCII ones its table allows.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Component {
    Userinfo,
    RegName,
    Path,
    Query,
    Fragment,
}

impl Component {
    /// Whether ASCII byte `b` (not `%`) may appear raw in the component.
    #[inline]
    const fn allows_ascii(self, b: u8) -> bool {
        let base = chars::ASCII_CLASS[b as usize] & (chars::UNRESERVED | chars::SUB_DELIM) != 0;
        match self {
            Component::RegName => base,
            Component::Userinfo => base || b == b':',
            Component::Path => base || b == b':' || b == b'@' || b == b'/',
            Component::Query | Component::Fragment => {
                base || matches!(b, b':' | b'@' | b'/' | b'?')
            }
        }
    }

    /// The bit of the component in [`COMPONENT_ASCII`].
    #[inline]
    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

const fn build_component_table() -> [u8; 256] {
    let all = [
        Component::Userinfo,
        Component::RegName,
        Component::Path,
        Component::Query,
        Component::Fragment,
    ];
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x80 {
        let mut k = 0;
        while k < all.len() {
            if all[k].allows_ascii(b as u8) {
                t[b] |= all[k].bit();
            }
            k += 1;
        }
        if host::is_ldh_byte(b as u8) {
            t[b] |= LDH_BYTE;
        }
        b += 1;
    }
    t
}

/// The bit in [`COMPONENT_ASCII`] of the bytes of an LDH host name (letters, digits, `-`
/// and `.`, [`host::is_ldh_byte`]), above the component bits.
const LDH_BYTE: u8 = 1 << 5;

/// In [`IriRef::plain`]: a component holds a non-ASCII character (found while checking).
const NON_ASCII: u8 = 1 << 6;

/// In [`IriRef::plain`]: the text was checked (parsed, not only split), so [`NON_ASCII`] is
/// known.
const CHECKED: u8 = 1 << 7;

/// For every byte value, the bits ([`Component::bit`]) of the components that allow it raw
/// (ASCII only; `%` and non-ASCII are checked apart), and [`LDH_BYTE`].
static COMPONENT_ASCII: [u8; 256] = build_component_table();

/// Where the components of a reference lie, as byte offsets into its text: what the parser
/// finds ([`IriRef`] holds one), and what a writer of a valid reference records as it
/// writes it, so that what it wrote is not split again ([`IriRef::laid_out`]). The spans
/// are those of [`IriRef`]'s accessors, without their delimiters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The index of the scheme's `:`, when there is a scheme.
    pub(crate) scheme_end: Option<u32>,
    /// The authority without its `//`.
    pub(crate) authority: Option<Span>,
    /// The userinfo without its `@`.
    pub(crate) userinfo: Option<Span>,
    /// The host, with the brackets of an IP literal; `(0, 0)` without an authority.
    pub(crate) host: Span,
    /// The port without its `:` (possibly empty).
    pub(crate) port: Option<Span>,
    /// The path (possibly empty).
    pub(crate) path: Span,
    /// The query without its `?`.
    pub(crate) query: Option<Span>,
    /// The fragment without its `#`.
    pub(crate) fragment: Option<Span>,
}

impl PartialEq for IriRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        (self.text, self.spans, self.host_kind) == (other.text, other.spans, other.host_kind)
    }
}

impl<'a> IriRef<'a> {
    /// Parses `text` as an `IRI-reference` (RFC 3987 §2.2).
    pub fn parse(text: &'a str) -> Result<IriRef<'a>, Error> {
        Self::parse_as(text, Grammar::IriReference)
    }

    /// Parses `text` against `grammar`. A text that holds a NUL is refused for it
    /// ([`ErrorKind::Nul`] at the first one), whatever else is wrong with it.
    pub fn parse_as(text: &'a str, grammar: Grammar) -> Result<IriRef<'a>, Error> {
        Self::split::<true>(text, grammar)
            .map_err(|error| error::with_nul_first(text.as_bytes(), error))
    }

    /// Splits `text`, an `IRI-reference` that the ladder's fast path has already found valid
    /// and canonical ([`crate::ladder`]), into its components without checking their
    /// characters again: the same splitting as [`IriRef::parse`], which the differential tests
    /// hold it to. An error is still possible (the text is not re-checked, so what the
    /// splitting itself finds wrong is reported), never a wrong split of a valid text.
    pub(crate) fn split_valid(text: &'a str) -> Result<IriRef<'a>, Error> {
        Self::split::<false>(text, Grammar::IriReference)
    }

    /// The view of `text`, a valid `IRI-reference` whose components lie where `layout` says
    /// (its writer recorded them): what [`IriRef::split_valid`] gives for it, without the
    /// splitting. The host's kind is told from its text as the parser tells it (an IP
    /// literal is in brackets, `v` starts an IPvFuture; an IPv4 address is checked for).
    pub(crate) fn laid_out(text: &'a str, layout: Layout) -> IriRef<'a> {
        let host = &text[layout.host.0 as usize..layout.host.1 as usize];
        let host_kind = match host.as_bytes() {
            [b'[', b'v' | b'V', ..] => HostKind::IpvFuture,
            [b'[', ..] => HostKind::Ipv6,
            _ if host::is_ipv4address(host) => HostKind::Ipv4,
            _ => HostKind::RegName,
        };
        let view = IriRef {
            text,
            spans: layout,
            host_kind,
            plain: 0,
        };
        debug_assert!(
            Self::split_valid(text).is_ok_and(|v| v == view),
            "{text:?} is not laid out as {layout:?}"
        );
        view
    }

    /// The view of `text`, a valid `IRI-reference` its writer wrote: from where the writer
    /// recorded its components ([`IriRef::laid_out`]) when `layout` says, else split
    /// ([`IriRef::split_valid`]).
    pub(crate) fn split_written(
        text: &'a str,
        layout: Option<Layout>,
    ) -> Result<IriRef<'a>, Error> {
        match layout {
            Some(layout) => Ok(Self::laid_out(text, layout)),
            None => Self::split_valid(text),
        }
    }

    /// Splits `text` into components (RFC 3986 §3), checking each against `grammar` when
    /// `CHECK` is set.
    #[inline]
    fn split<const CHECK: bool>(text: &'a str, grammar: Grammar) -> Result<IriRef<'a>, Error> {
        if text.len() >= u32::MAX as usize {
            return Err(Error::new(ErrorKind::TooLong, 0, "record of 4 GiB or more"));
        }
        let bytes = text.as_bytes();
        let scheme_end = scheme_end::<CHECK>(text, grammar)?;
        let mut pos = scheme_end.map_or(0, |i| i as usize + 1);

        let mut view = IriRef {
            text,
            spans: Layout {
                scheme_end,
                ..Layout::default()
            },
            host_kind: HostKind::RegName,
            plain: 0,
        };

        // Authority (RFC 3986 §3.2): "//" up to the next '/', '?' or '#'.
        if bytes[pos..].starts_with(b"//") {
            let start = pos + 2;
            let end = find3(b'/', b'?', b'#', &bytes[start..]).map_or(bytes.len(), |i| start + i);
            view.spans.authority = Some((start as u32, end as u32));
            view.parse_authority::<CHECK>(start, end, grammar)?;
            pos = end;
        }

        // Path (RFC 3986 §3.3), up to the first '?' or '#', which ends the hierarchical
        // part: checked, the path's check finds that end on the way (neither is allowed in
        // a path).
        let hier_end = if CHECK {
            let (end, plain) = check_path(text, pos, grammar)?;
            view.plain |= plain;
            end
        } else {
            find2(b'?', b'#', &bytes[pos..]).map_or(bytes.len(), |i| pos + i)
        };
        view.spans.path = (pos as u32, hier_end as u32);
        view.parse_query_fragment::<CHECK>(hier_end, grammar)?;
        if CHECK {
            view.plain |= CHECKED;
        }
        Ok(view)
    }

    /// Query and fragment (RFC 3986 §3.4, §3.5), from `pos`, where the hierarchical part
    /// ends.
    #[inline]
    fn parse_query_fragment<const CHECK: bool>(
        &mut self,
        mut pos: usize,
        grammar: Grammar,
    ) -> Result<(), Error> {
        let (text, bytes) = (self.text, self.text.as_bytes());
        if pos < bytes.len() && bytes[pos] == b'?' {
            let start = pos + 1;
            let end = find(b'#', &bytes[start..]).map_or(bytes.len(), |i| start + i);
            if CHECK {
                self.plain |= check_component(text, start, end, Component::Query, grammar)?;
            }
            self.spans.query = Some((start as u32, end as u32));
            pos = end;
        }
        if pos < bytes.len() {
            // bytes[pos] == '#'
            let start = pos + 1;
            let err = |kind, at: usize, msg| Error::at_byte(kind, text, at, msg);
            if grammar.forbids_fragment() {
                return Err(err(
                    ErrorKind::Syntax,
                    pos,
                    "a fragment is not allowed in an absolute IRI",
                ));
            }
            if let Some(i) = find(b'#', &bytes[start..]) {
                return Err(err(ErrorKind::Syntax, start + i, "a second '#'"));
            }
            if CHECK {
                self.plain |=
                    check_component(text, start, bytes.len(), Component::Fragment, grammar)?;
            }
            self.spans.fragment = Some((start as u32, bytes.len() as u32));
        }
        Ok(())
    }

    /// Splits and checks `iauthority = [ iuserinfo "@" ] ihost [ ":" port ]`.
    fn parse_authority<const CHECK: bool>(
        &mut self,
        start: usize,
        end: usize,
        grammar: Grammar,
    ) -> Result<(), Error> {
        let text = self.text;
        let bytes = text.as_bytes();
        let mut host_start = start;
        if let Some(at) = find(b'@', &bytes[start..end]) {
            if CHECK {
                self.plain |=
                    check_component(text, start, start + at, Component::Userinfo, grammar)?;
            }
            self.spans.userinfo = Some((start as u32, (start + at) as u32));
            host_start = start + at + 1;
        }
        let host_end;
        if bytes.get(host_start) == Some(&b'[') {
            // IP-literal = "[" ( IPv6address / IPvFuture ) "]"
            let Some(close) = memchr::memchr(b']', &bytes[host_start..end]) else {
                let message = "'[' without a closing ']'";
                return Err(syntax_error(text, host_start, host_start, end, message));
            };
            host_end = host_start + close + 1;
            let inner = &text[host_start + 1..host_end - 1];
            if host::parse_ipv6(inner).is_some() {
                self.host_kind = HostKind::Ipv6;
            } else if inner.starts_with(['v', 'V']) {
                if !host::is_ipvfuture(inner) {
                    let message = "malformed IPvFuture literal";
                    let (from, to) = (host_start + 1, host_end - 1);
                    return Err(syntax_error(text, from, from, to, message));
                }
                self.host_kind = HostKind::IpvFuture;
            } else {
                let message = "malformed IPv6 literal";
                let (from, to) = (host_start + 1, host_end - 1);
                return Err(syntax_error(text, from, from, to, message));
            }
            if host_end < end && bytes[host_end] != b':' {
                let message = "unexpected character after ']'";
                return Err(syntax_error(text, host_end, host_end, end, message));
            }
        } else {
            host_end = find(b':', &bytes[host_start..end]).map_or(end, |i| host_start + i);
            if CHECK {
                self.plain |=
                    check_component(text, host_start, host_end, Component::RegName, grammar)?;
            }
            if host::is_ipv4address(&text[host_start..host_end]) {
                self.host_kind = HostKind::Ipv4;
            }
        }
        self.spans.host = (host_start as u32, host_end as u32);
        if host_end < end {
            // port = *DIGIT (RFC 3986 §3.2.3)
            let port_start = host_end + 1;
            if let Some(i) = bytes[port_start..end]
                .iter()
                .position(|b| !b.is_ascii_digit())
            {
                let at = port_start + i;
                return Err(syntax_error(text, at, at, end, "non-digit in the port"));
            }
            self.spans.port = Some((port_start as u32, end as u32));
        }
        Ok(())
    }

    /// The whole text, exactly as parsed.
    pub fn as_str(&self) -> &'a str {
        self.text
    }

    fn slice(&self, span: Span) -> &'a str {
        &self.text[span.0 as usize..span.1 as usize]
    }

    /// The scheme, without its `:`.
    pub fn scheme(&self) -> Option<&'a str> {
        self.spans.scheme_end.map(|e| &self.text[..e as usize])
    }

    /// The authority, without its `//`.
    pub fn authority(&self) -> Option<&'a str> {
        self.spans.authority.map(|s| self.slice(s))
    }

    /// The userinfo, without its `@`.
    pub fn userinfo(&self) -> Option<&'a str> {
        self.spans.userinfo.map(|s| self.slice(s))
    }

    /// The host (with its brackets for an IP literal), when there is an authority.
    pub fn host(&self) -> Option<&'a str> {
        self.spans.authority.map(|_| self.slice(self.spans.host))
    }

    /// The kind of host (meaningful when [`IriRef::host`] is `Some`).
    pub fn host_kind(&self) -> HostKind {
        self.host_kind
    }

    /// The port, without its `:` (possibly empty), when the authority has a `:`.
    pub fn port(&self) -> Option<&'a str> {
        self.spans.port.map(|s| self.slice(s))
    }

    /// Whether `component`, as written, holds no percent-encoding and no non-ASCII
    /// character, as the parser found while checking it: then the syntax rung's
    /// percent-encoding normalization (RFC 3986 §6.2.2.2; RFC 3987 §3.1, §3.2) has nothing
    /// to rewrite in it but case. `false` when unknown (a split without checks, or no such
    /// component).
    #[inline]
    pub(crate) fn is_plain(&self, component: Component) -> bool {
        self.plain & component.bit() != 0
    }

    /// Whether the host, a registered name, was found to hold only letters, digits, `-`
    /// and `.` while it was checked ([`host::is_ldh_byte`]); `false` when unknown.
    #[inline]
    pub(crate) fn host_is_ldh_bytes(&self) -> bool {
        self.plain & LDH_BYTE != 0 && self.host_kind == HostKind::RegName
    }

    /// Whether the text was found to be ASCII while it was checked; `false` when unknown
    /// (an unchecked split).
    #[inline]
    pub(crate) fn is_known_ascii(&self) -> bool {
        self.plain & (CHECKED | NON_ASCII) == CHECKED
    }

    /// The path (possibly empty).
    pub fn path(&self) -> &'a str {
        self.slice(self.spans.path)
    }

    /// The path, query and fragment, as written (from the start of the path to the end).
    pub fn path_query_fragment(&self) -> &'a str {
        &self.text[self.spans.path.0 as usize..]
    }

    /// The query, without its `?`.
    pub fn query(&self) -> Option<&'a str> {
        self.spans.query.map(|s| self.slice(s))
    }

    /// The fragment, without its `#`.
    pub fn fragment(&self) -> Option<&'a str> {
        self.spans.fragment.map(|s| self.slice(s))
    }

    /// Whether the reference has a scheme (is an IRI, not a relative reference).
    pub fn is_absolute(&self) -> bool {
        self.spans.scheme_end.is_some()
    }

    /// The five components of RFC 3986 §5.2, for resolution.
    pub fn components(&self) -> Components<'a> {
        Components {
            scheme: self.scheme(),
            authority: self.authority(),
            path: self.path(),
            query: self.query(),
            fragment: self.fragment(),
        }
    }
}

/// Where the scheme ends (RFC 3986 §3.1: the text before the first `:` that precedes any
/// `/`, `?` or `#`), checked; `None` for a relative reference, which is an error when the
/// grammar needs a scheme.
#[inline]
fn scheme_end<const CHECK: bool>(text: &str, grammar: Grammar) -> Result<Option<u32>, Error> {
    let bytes = text.as_bytes();
    // The common case, a valid scheme and its ':', in one pass: none of the scheme's
    // characters is a delimiter, so the ':' is the first of them.
    let n = bytes
        .iter()
        .position(|&b| !chars::is(b, chars::SCHEME))
        .unwrap_or(bytes.len());
    if n > 0 && bytes.get(n) == Some(&b':') && bytes[0].is_ascii_alphabetic() {
        return Ok(Some(n as u32));
    }
    let first_delim = bytes
        .iter()
        .position(|&b| matches!(b, b':' | b'/' | b'?' | b'#'));
    if let Some(i) = first_delim.filter(|&i| bytes[i] == b':') {
        if CHECK {
            check_scheme(text, i)?;
        }
        return Ok(Some(i as u32));
    }
    if grammar.needs_scheme() {
        return Err(Error::new(
            ErrorKind::Relative,
            1,
            "a scheme is required (relative reference)",
        ));
    }
    Ok(None)
}

/// Checks `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` on `text[..end]`
/// (RFC 3986 §3.1).
fn check_scheme(text: &str, end: usize) -> Result<(), Error> {
    let bytes = text.as_bytes();
    if end == 0 {
        return Err(Error::new(ErrorKind::Syntax, 1, "empty scheme before ':'"));
    }
    if !bytes[0].is_ascii_alphabetic() {
        let message = "a scheme must start with a letter";
        return Err(syntax_error(text, 0, 0, end, message));
    }
    if let Some(i) = bytes[..end]
        .iter()
        .position(|&b| !chars::is(b, chars::SCHEME))
    {
        let message = "character not allowed in a scheme";
        return Err(syntax_error(text, i, i, end, message));
    }
    Ok(())
}

/// A syntax error at byte `at` about `text[from..to]`, unless that span holds a control or a
/// bidi formatting character: those keep their own kind and column wherever they are (a
/// scheme, a port, an IP literal; SPEC §3).
fn syntax_error(text: &str, at: usize, from: usize, to: usize, message: &'static str) -> Error {
    for (j, c) in text[from..to].char_indices() {
        if c.is_ascii_control() {
            return Error::at_byte(ErrorKind::Control, text, from + j, "control character");
        }
        if is_bidi_format(c) {
            let message = "bidi formatting character (RFC 3987 §4.1)";
            return Error::at_byte(ErrorKind::BidiFormat, text, from + j, message);
        }
    }
    Error::at_byte(ErrorKind::Syntax, text, at, message)
}

/// Checks `text[start..end]` against the production of `component`. Returns what it found
/// of the component's bytes: its bit if it holds no percent-encoding and no non-ASCII
/// character (for [`IriRef::is_plain`]), for a host, [`LDH_BYTE`] if every byte is one
/// (for [`IriRef::host_is_ldh_bytes`]), and [`NON_ASCII`] if it holds a non-ASCII character.
fn check_component(
    text: &str,
    start: usize,
    end: usize,
    component: Component,
    grammar: Grammar,
) -> Result<u8, Error> {
    check_run::<false>(text, start, end, component, grammar).map(|(_, found)| found)
}

/// [`check_component`] for a path that starts at `start` and ends at the first `?` or `#`
/// (RFC 3986 §3.3), or at the end of `text`: where it ends, and what it found.
fn check_path(text: &str, start: usize, grammar: Grammar) -> Result<(usize, u8), Error> {
    check_run::<true>(text, start, text.len(), Component::Path, grammar)
}

/// [`check_component`] over `text[start..end]`, which with `STOP` ends early, at the first
/// `?` or `#`: where the component ends, and what it found.
#[inline(always)]
fn check_run<const STOP: bool>(
    text: &str,
    start: usize,
    end: usize,
    component: Component,
    grammar: Grammar,
) -> Result<(usize, u8), Error> {
    let bytes = text.as_bytes();
    let ok = component.bit();
    // The bits every byte so far has in the table; none once an escape or a non-ASCII
    // character is seen.
    let mut all = u8::MAX;
    let mut non_ascii = 0;
    let mut i = start;
    while i < end {
        let b = bytes[i];
        if b == b'%' {
            if !(i + 2 < end
                && chars::is(bytes[i + 1], chars::HEX)
                && chars::is(bytes[i + 2], chars::HEX))
            {
                let message = "'%' not followed by two hex digits";
                return Err(Error::at_byte(ErrorKind::BadPercent, text, i, message));
            }
            all = 0;
            i += 3;
        } else if b >= 0x80 {
            all = 0;
            non_ascii = NON_ASCII;
            // Words of most scripts: a run of plain `ucschar`s told by their UTF-8 alone.
            let run_end = if grammar.ascii_only() {
                i
            } else {
                plain_ucschar_run(bytes, i, end)
            };
            if run_end > i {
                i = run_end;
                continue;
            }
            // Any other non-ASCII character: decoded (the text is valid UTF-8) and checked.
            let c = text[i..].chars().next().unwrap_or('\u{FFFD}');
            if grammar.ascii_only() || !is_plain_ucschar(c) {
                check_non_ascii(text, i, c, component, grammar)?;
            }
            i += c.len_utf8();
        } else {
            i = allowed_ascii_run(bytes, i, end, ok, &mut all);
            if let Some(&b) = bytes[..end].get(i).filter(|&&b| b < 0x80 && b != b'%') {
                if STOP && matches!(b, b'?' | b'#') {
                    break;
                }
                return Err(ascii_error(text, i, b));
            }
        }
    }
    let found = match component {
        Component::RegName => ok | LDH_BYTE,
        _ => ok,
    };
    Ok((i.min(end), all & found | non_ascii))
}

/// Where the run of ASCII bytes from `i` that the component of bit `ok` allows raw ends
/// (at `end` at most): eight bytes a turn while they all pass, then one at a time. `all`
/// keeps only the table bits that every byte of the run has.
#[inline(always)]
fn allowed_ascii_run(bytes: &[u8], mut i: usize, end: usize, ok: u8, all: &mut u8) -> usize {
    while let Some(run) = bytes.get(i..i + 8).filter(|_| i + 8 <= end) {
        let t = run
            .iter()
            .fold(u8::MAX, |t, &b| t & COMPONENT_ASCII[usize::from(b)]);
        if t & ok == 0 {
            break;
        }
        *all &= t;
        i += 8;
    }
    while let Some(&t) = bytes[..end]
        .get(i)
        .map(|&b| &COMPONENT_ASCII[usize::from(b)])
        .filter(|&&t| t & ok != 0)
    {
        *all &= t;
        i += 1;
    }
    i
}

fn ascii_error(text: &str, i: usize, b: u8) -> Error {
    if chars::is(b, chars::CONTROL) {
        Error::at_byte(ErrorKind::Control, text, i, "control character")
    } else if b == b'[' || b == b']' {
        Error::at_byte(
            ErrorKind::Syntax,
            text,
            i,
            "'[' or ']' outside an IP literal",
        )
    } else if b == b'#' {
        Error::at_byte(ErrorKind::Syntax, text, i, "a second '#'")
    } else if chars::is(b, chars::FORBIDDEN_PRINTABLE) {
        Error::at_byte(
            ErrorKind::Syntax,
            text,
            i,
            "character not allowed in a URI or IRI",
        )
    } else {
        Error::at_byte(
            ErrorKind::Syntax,
            text,
            i,
            "character not allowed in this component",
        )
    }
}

/// Whether `c` is in the first range of `ucschar` (RFC 3987 §2.2, U+00A0 to U+D7FF, the
/// letters of most scripts) but outside the block of the bidi formatting characters
/// (U+200E to U+2069): allowed in every component of an IRI without a second look. The
/// others go to [`check_non_ascii`], which has every rule.
#[inline(always)]
fn is_plain_ucschar(c: char) -> bool {
    let u = c as u32;
    (0xA0..=0xD7FF).contains(&u) && !(0x200E..=0x2069).contains(&u)
}

/// Where the run of characters of `bytes` (valid UTF-8) from `i` that [`is_plain_ucschar`]
/// allows ends, before `end`, told from the bytes of each character's UTF-8 without
/// decoding it: U+00A0–U+00BF (`C2 A0`–`C2 BF`), U+00C0–U+07FF (lead `C3`–`DF`),
/// U+0800–U+1FFF and U+3000–U+D7FF (lead `E0`, `E1`, `E3`–`ED`; `ED` reaches U+D7FF only,
/// valid UTF-8 holding no surrogate), and U+2080–U+2FFF (lead `E2`, second byte `82` or
/// above). The few others of the plain range (U+2000–U+200D, U+206A–U+207F) end the run and
/// take the general path, as does everything else. `i` itself when the first is not one.
#[inline(always)]
fn plain_ucschar_run(bytes: &[u8], mut i: usize, end: usize) -> usize {
    while i < end {
        let next = bytes.get(i + 1).copied().unwrap_or(0);
        let len = match bytes[i] {
            0xC3..=0xDF => 2,
            0xC2 if next >= 0xA0 => 2,
            0xE0 | 0xE1 | 0xE3..=0xED => 3,
            0xE2 if next >= 0x82 => 3,
            _ => break,
        };
        i += len;
    }
    i.min(end)
}

#[inline(never)]
fn check_non_ascii(
    text: &str,
    i: usize,
    c: char,
    component: Component,
    grammar: Grammar,
) -> Result<(), Error> {
    if is_bidi_format(c) {
        return Err(Error::at_byte(
            ErrorKind::BidiFormat,
            text,
            i,
            "bidi formatting character (RFC 3987 §4.1)",
        ));
    }
    if grammar.ascii_only() {
        return Err(Error::at_byte(
            ErrorKind::DisallowedChar,
            text,
            i,
            "non-ASCII character in a URI",
        ));
    }
    if is_ucschar(c) {
        return Ok(());
    }
    if is_iprivate(c) {
        if component == Component::Query {
            return Ok(());
        }
        return Err(Error::at_byte(
            ErrorKind::DisallowedChar,
            text,
            i,
            "private-use character outside the query",
        ));
    }
    Err(Error::at_byte(
        ErrorKind::DisallowedChar,
        text,
        i,
        "character not allowed in an IRI",
    ))
}

/// Checks `text` against `grammar`, returning the first error.
pub fn check(text: &str, grammar: Grammar) -> Result<(), Error> {
    IriRef::parse_as(text, grammar).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_ucschar_runs_are_what_is_plain_ucschar_allows() {
        // Every non-ASCII character, alone and after a plain one: a run takes it only if
        // it is plain, and misses only the few plain ones it leaves to the general path.
        let mut missed = Vec::new();
        for c in ('\u{80}'..=char::MAX).filter(|c| c.len_utf8() > 1) {
            let mut buf = [0u8; 8];
            let n = c.encode_utf8(&mut buf[2..]).len();
            buf[..2].copy_from_slice("é".as_bytes());
            let alone = plain_ucschar_run(&buf[2..2 + n], 0, n);
            let after = plain_ucschar_run(&buf[..2 + n], 0, 2 + n);
            assert!(alone == 0 || alone == n, "{c:?}");
            assert_eq!(after, 2 + alone, "{c:?}");
            if alone == n {
                assert!(is_plain_ucschar(c), "{c:?} is not plain");
            } else if is_plain_ucschar(c) {
                missed.push(c);
            }
        }
        let general: Vec<char> = ('\u{2000}'..='\u{200D}')
            .chain('\u{206A}'..='\u{207F}')
            .collect();
        assert_eq!(missed, general);
        // A run stops at `end` and at ASCII.
        let text = "日本語/x".as_bytes();
        assert_eq!(plain_ucschar_run(text, 0, text.len()), 9);
        assert_eq!(plain_ucschar_run(text, 0, 6), 6);
    }

    fn err(text: &str) -> (ErrorKind, usize) {
        let e = IriRef::parse(text).unwrap_err();
        (e.kind, e.column)
    }

    /// The filter before [`check_non_ascii`] lets through only what it accepts, in every
    /// component of every IRI grammar.
    #[test]
    fn plain_ucschars_are_what_the_full_check_accepts() {
        let components = [
            Component::Userinfo,
            Component::RegName,
            Component::Path,
            Component::Query,
            Component::Fragment,
        ];
        let mut plain = 0;
        for c in (0x80..=0x10FFFF).filter_map(char::from_u32) {
            if !is_plain_ucschar(c) {
                continue;
            }
            plain += 1;
            for component in components {
                assert!(
                    check_non_ascii("", 0, c, component, Grammar::Iri).is_ok(),
                    "U+{:04X}",
                    c as u32
                );
            }
        }
        assert!(plain > 50_000, "{plain}");
    }

    #[test]
    fn a_checked_text_is_known_to_be_ascii_or_not() {
        for (text, ascii) in [
            ("http://h/p?q#f", true),
            ("http://u\u{e9}@h/", false),
            ("http://h\u{e9}/", false),
            ("http://h/\u{e9}", false),
            ("http://h/p?\u{e9}", false),
            ("http://h/p#\u{e9}", false),
            ("a/\u{e9}", false),
            ("http://h/%C3%A9", true),
        ] {
            assert_eq!(
                IriRef::parse(text).unwrap().is_known_ascii(),
                ascii,
                "{text}"
            );
            // An unchecked split knows nothing.
            assert!(
                !IriRef::split_valid(text).unwrap().is_known_ascii(),
                "{text}"
            );
        }
    }

    #[test]
    fn is_plain_says_which_components_hold_no_percent_or_non_ascii() {
        let v = IriRef::parse("http://u%41@h\u{e9}.x/p/./q?q=1#f%20").unwrap();
        assert!(!v.is_plain(Component::Userinfo));
        assert!(!v.is_plain(Component::RegName));
        assert!(v.is_plain(Component::Path));
        assert!(v.is_plain(Component::Query));
        assert!(!v.is_plain(Component::Fragment));
        let v = IriRef::parse("/\u{e9}?%7E").unwrap();
        assert!(!v.is_plain(Component::Path));
        assert!(!v.is_plain(Component::Query));
        // Not known without the checks.
        let v = IriRef::split_valid("http://h/p").unwrap();
        assert!(!v.is_plain(Component::Path) && !v.is_plain(Component::RegName));
    }

    proptest::proptest! {
        #[test]
        fn is_plain_is_no_percent_and_no_non_ascii(
            text in "[a-z]{1,3}:(//[a-zA-Z0-9%.é_-]{0,8})?[/a-zA-Z0-9%é.]{0,12}(\\?[a-z0-9%é=]{0,6})?(#[a-z0-9%é]{0,4})?"
        ) {
            let Ok(v) = IriRef::parse(&text) else { return Ok(()) };
            let plain = |s: &str| !s.contains('%') && s.is_ascii();
            proptest::prop_assert_eq!(v.is_plain(Component::Path), plain(v.path()));
            if let Some(q) = v.query() {
                proptest::prop_assert_eq!(v.is_plain(Component::Query), plain(q));
            }
            if let Some(f) = v.fragment() {
                proptest::prop_assert_eq!(v.is_plain(Component::Fragment), plain(f));
            }
            if v.authority().is_some() && v.host_kind() == HostKind::RegName {
                let h = v.host().unwrap_or("");
                proptest::prop_assert_eq!(v.is_plain(Component::RegName), plain(h));
                let ldh = h.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
                proptest::prop_assert_eq!(v.host_is_ldh_bytes(), ldh);
            } else {
                proptest::prop_assert!(!v.host_is_ldh_bytes());
            }
        }
    }

    #[test]
    fn components_of_a_full_iri() {
        let v = IriRef::parse("http://user:pw@Example.com:8080/a/b?q=1#frag").unwrap();
        assert_eq!(v.scheme(), Some("http"));
        assert_eq!(v.authority(), Some("user:pw@Example.com:8080"));
        assert_eq!(v.userinfo(), Some("user:pw"));
        assert_eq!(v.host(), Some("Example.com"));
        assert_eq!(v.host_kind(), HostKind::RegName);
        assert_eq!(v.port(), Some("8080"));
        assert_eq!(v.path(), "/a/b");
        assert_eq!(v.query(), Some("q=1"));
        assert_eq!(v.fragment(), Some("frag"));
    }

    #[test]
    fn host_kinds() {
        let k = |s| IriRef::parse(s).unwrap().host_kind();
        assert_eq!(k("http://[::1]:80/"), HostKind::Ipv6);
        assert_eq!(k("http://[v7.x:y]/"), HostKind::IpvFuture);
        assert_eq!(k("http://1.2.3.4/"), HostKind::Ipv4);
        assert_eq!(k("http://1.2.3.400/"), HostKind::RegName);
    }

    #[test]
    fn relative_references() {
        let v = IriRef::parse("//h/p").unwrap();
        assert_eq!((v.scheme(), v.host(), v.path()), (None, Some("h"), "/p"));
        let v = IriRef::parse("a/b:c?x#y").unwrap();
        assert_eq!(
            (v.path(), v.query(), v.fragment()),
            ("a/b:c", Some("x"), Some("y"))
        );
        let v = IriRef::parse("").unwrap();
        assert_eq!(v.path(), "");
    }

    #[test]
    fn hostile_inputs_name_their_kind_and_column() {
        assert_eq!(err("1http://a/"), (ErrorKind::Syntax, 1));
        assert_eq!(err("http://[::1/"), (ErrorKind::Syntax, 8));
        assert_eq!(err("http://a:8x/"), (ErrorKind::Syntax, 11));
        assert_eq!(err("http://a/\u{0}"), (ErrorKind::Nul, 10));
        assert_eq!(err("http://a/\u{1}b\u{0}"), (ErrorKind::Nul, 12));
        assert_eq!(err("ht\u{0}tp://a/"), (ErrorKind::Nul, 3));
        assert_eq!(err("http://a/\u{202E}x"), (ErrorKind::BidiFormat, 10));
        assert_eq!(err("http://a/\u{E000}"), (ErrorKind::DisallowedChar, 10));
        assert!(IriRef::parse("http://a/?\u{E000}").is_ok());
        assert_eq!(err("http://a/%"), (ErrorKind::BadPercent, 10));
        assert_eq!(err("http://a/#b#c"), (ErrorKind::Syntax, 12));
        assert_eq!(err("http://a/[x]"), (ErrorKind::Syntax, 10));
        assert_eq!(err(":a"), (ErrorKind::Syntax, 1));
    }

    #[test]
    fn split_valid_splits_a_valid_text_as_parse_does() {
        for text in [
            "http://example.com/a/b?c=d&e#f",
            "https://www.example.org:8443/%C3%A9/?q=%2F#top",
            "http://u:p@[2001:db8::1]:80/x",
            "http://192.0.2.1/",
            "file:///etc/passwd",
            "mailto:joe@example.com",
            "urn:isbn:0-1",
            "//example.com/a",
            "/a/b?c",
            "?q#f",
            "#f",
            "a:",
            "http://bücher.example/é?ü#ß",
            "http://example.com./a;jsessionid=1/b?utm_source=x",
        ] {
            assert_eq!(IriRef::split_valid(text), IriRef::parse(text), "{text}");
        }
    }

    #[test]
    fn grammars() {
        assert!(check("a/b", Grammar::IriReference).is_ok());
        assert_eq!(
            check("a/b", Grammar::Iri).unwrap_err().kind,
            ErrorKind::Relative
        );
        assert!(check("http://é/", Grammar::Iri).is_ok());
        assert_eq!(
            check("http://é/", Grammar::Uri).unwrap_err().kind,
            ErrorKind::DisallowedChar
        );
        assert!(check("http://a/#f", Grammar::AbsoluteUri).is_err());
        assert!(check("http://a/?q", Grammar::AbsoluteUri).is_ok());
    }
}
