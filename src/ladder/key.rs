//! The syntax and scheme rungs (RFC 3987 §5.3.2, §5.3.3; RFC 3986 §6.2.2, §6.2.3): the key
//! of one parsed, valid reference, written component by component into one buffer from the
//! offsets of that one parse. What each scheme does comes from its row of
//! [`crate::iri::scheme::SCHEMES`], the table the fast path reads too.

use crate::iri::error::{Warning, WarningKind};
use crate::iri::host::{self, HostForm, Origin};
use crate::iri::parse::{Component, HostKind, IriRef, Layout, Span};
use crate::iri::path;
use crate::iri::percent::{self, Recode};
use crate::iri::scheme::{self, SchemeRule, Special};
use crate::ladder::options::{Form, Options};
use crate::ladder::trace::{note, Tracer};

/// Writes keys at the configured rung and form.
pub(crate) struct KeyWriter<'o> {
    options: &'o Options,
    /// The percent-encoding policy of the syntax rung in the configured form.
    policy: Recode,
}

impl<'o> KeyWriter<'o> {
    /// A writer for `options`.
    #[inline]
    pub(crate) fn new(options: &'o Options) -> KeyWriter<'o> {
        let policy = Recode::canonical(options.form == Form::Iri);
        KeyWriter { options, policy }
    }

    /// Writes the key of a parsed, valid reference at the syntax or scheme rung, and, where
    /// `LAYOUT` says, returns where the key's components lie in it ([`Layout`], offsets from
    /// where the key starts in `out`; `None` for a key of `u32::MAX` bytes or more, which the
    /// parser refuses too), so that the work after the scheme rung need not split it again.
    /// `scratch` is a buffer the writer reuses, so that a record takes no allocation of its
    /// own: for the `iri` form's A-label side of a host, then for the path.
    ///
    /// The work of recording is compiled out of the writer that does not. Each form is one
    /// function, with the helpers below inlined into it whole (`#[inline(always)]`): left to
    /// the compiler, the helpers with two callers go out of line, which costs every
    /// non-canonical record more than the recording does.
    #[inline(never)]
    pub(crate) fn write_key<const LAYOUT: bool>(
        &self,
        view: &IriRef<'_>,
        out: &mut String,
        scratch: &mut String,
        trace: &mut Tracer<'_>,
    ) -> Option<Layout> {
        let mut rec = Recorder::<LAYOUT> {
            base: out.len(),
            layout: Layout::default(),
        };
        let rule = self.write_scheme(view, out, trace);
        if view.scheme().is_some() {
            let colon = rec.at(out) - 1;
            rec.mark(|l| l.scheme_end = Some(colon));
        }
        let mut j = Job {
            view,
            rule,
            out,
            scratch,
            trace,
        };
        if view.authority().is_some() {
            self.write_authority(&mut j, &mut rec);
        }
        let path = rec.at(j.out);
        self.write_path(&mut j);
        rec.mark_span(path, j.out, |l, span| l.path = span);
        self.write_query_fragment(view, j.out, j.trace, &mut rec);
        rec.finish(j.out)
    }

    /// `?` and the query, `#` and the fragment (unless it is dropped), with where they lie.
    #[inline(always)]
    fn write_query_fragment<const LAYOUT: bool>(
        &self,
        view: &IriRef<'_>,
        out: &mut String,
        trace: &mut Tracer<'_>,
        rec: &mut Recorder<LAYOUT>,
    ) {
        if let Some(q) = view.query() {
            out.push('?');
            let start = out.len();
            let p = Recode {
                in_query: true,
                ..self.policy
            };
            let query = rec.at(out);
            recode(view, Component::Query, q, p, out);
            note(trace, "query", "percent-encoding", q, &out[start..]);
            rec.mark_span(query, out, |l, span| l.query = Some(span));
        }
        let Some(f) = view.fragment() else { return };
        if self.options.drop_fragment {
            note(trace, "fragment", "drop-fragment", f, "");
            return;
        }
        out.push('#');
        let start = out.len();
        let fragment = rec.at(out);
        recode(view, Component::Fragment, f, self.policy, out);
        note(trace, "fragment", "percent-encoding", f, &out[start..]);
        rec.mark_span(fragment, out, |l, span| l.fragment = Some(span));
    }

    /// The scheme, lowercased (case-insensitive, lowercase is canonical: RFC 3986 §3.1,
    /// §6.2.2.1), with its `:`; returns its row of the scheme table at the scheme rung.
    #[inline(always)]
    fn write_scheme(
        &self,
        view: &IriRef<'_>,
        out: &mut String,
        trace: &mut Tracer<'_>,
    ) -> Option<&'static SchemeRule> {
        let s = view.scheme()?;
        let start = out.len();
        out.push_str(s);
        out[start..].make_ascii_lowercase();
        note(trace, "scheme", "case", s, &out[start..]);
        let rule = if self.options.applies_scheme_rows() {
            scheme::lookup(&out[start..])
        } else {
            None
        };
        out.push(':');
        rule
    }

    /// `//`, the userinfo, the host and the port (RFC 3986 §3.2), with where they lie.
    #[inline(always)]
    fn write_authority<const LAYOUT: bool>(
        &self,
        j: &mut Job<'_, '_, '_>,
        rec: &mut Recorder<LAYOUT>,
    ) {
        j.out.push_str("//");
        let authority = rec.at(j.out);
        if let Some(u) = j.view.userinfo() {
            let start = j.out.len();
            let userinfo = rec.at(j.out);
            recode(j.view, Component::Userinfo, u, self.policy, j.out);
            note(j.trace, "userinfo", "percent-encoding", u, &j.out[start..]);
            rec.mark_span(userinfo, j.out, |l, span| l.userinfo = Some(span));
            j.out.push('@');
        }
        let host = rec.at(j.out);
        self.write_host(j);
        rec.mark_span(host, j.out, |l, span| l.host = span);
        match j.view.port() {
            None => {}
            Some("") => note(j.trace, "port", "empty-port", ":", ""),
            Some(p) => {
                let start = j.out.len();
                // Past the `:`, where one is written. (Wrapping: wrong only in a key too long
                // for its layout to be returned.)
                let port = rec.at(j.out).wrapping_add(1);
                match j.rule {
                    Some(r) => scheme::write_port(r, p, j.out),
                    None => {
                        j.out.push(':');
                        j.out.push_str(p);
                    }
                }
                if j.out.len() > start {
                    rec.mark_span(port, j.out, |l, span| l.port = Some(span));
                }
                if j.trace.is_some() {
                    let before = format!(":{p}");
                    let after = j.out[start..].to_owned();
                    note(j.trace, "port", "default-port", &before, &after);
                }
            }
        }
        rec.mark_span(authority, j.out, |l, span| l.authority = Some(span));
    }

    /// The host: a registered name (IDNA at the scheme rung for DNS schemes), or an IP
    /// literal (RFC 5952 text for IPv6 at the scheme rung).
    #[inline(always)]
    fn write_host(&self, j: &mut Job<'_, '_, '_>) {
        let h = j.view.host().unwrap_or("");
        let start = j.out.len();
        match j.view.host_kind() {
            HostKind::RegName => self.write_reg_name(j),
            HostKind::Ipv4 => j.out.push_str(h),
            HostKind::Ipv6 => {
                let inner = &h[1..h.len() - 1];
                match (j.rule, host::parse_ipv6(inner)) {
                    (Some(_), Some(addr)) => {
                        j.out.push('[');
                        host::write_ipv6_rfc5952(&addr, j.out);
                        j.out.push(']');
                        note(j.trace, "host", "ipv6-rfc5952", h, &j.out[start..]);
                    }
                    _ => {
                        host::lowercase_ip_literal(h, j.out);
                        note(j.trace, "host", "case", h, &j.out[start..]);
                    }
                }
            }
            HostKind::IpvFuture => {
                host::lowercase_ip_literal(h, j.out);
                note(j.trace, "host", "case", h, &j.out[start..]);
            }
        }
    }

    /// A registered name: IDNA for a DNS host at the scheme rung (a host that fails it keeps
    /// its syntax form, with a warning: SPEC §4), otherwise case and percent-encoding; then
    /// `file://localhost` becomes `file://` (RFC 8089 §2).
    #[inline(always)]
    fn write_reg_name(&self, j: &mut Job<'_, '_, '_>) {
        let h = j.view.host().unwrap_or("");
        let start = j.out.len();
        let idna_done = j.rule.is_some_and(|r| r.dns_host) && self.write_dns_host(j);
        if !idna_done {
            // RFC 3987 §5.3.2.1: only a host that is US-ASCII once decoded is lowercased
            // here; the scheme rung's IDNA handles the others.
            let p = Recode {
                lowercase: !percent::has_non_ascii(h),
                ..self.policy
            };
            percent::recode(h, p, j.out);
            note(
                j.trace,
                "host",
                "case and percent-encoding",
                h,
                &j.out[start..],
            );
        }
        // Asked only of a row that may drop a host: most records are not `file:`.
        let drops = j
            .rule
            .filter(|r| scheme::may_drop_host(r))
            .is_some_and(|r| {
                let port = j.view.port().map(str::as_bytes);
                scheme::drops_host(r, &j.out.as_bytes()[start..], port)
            });
        if drops && j.view.userinfo().is_none() {
            j.out.truncate(start);
            note(j.trace, "host", "file-localhost", "localhost", "");
        }
    }

    /// A DNS host through IDNA, in the key's form; `false`, with nothing written and a
    /// warning noted, when IDNA rejects it.
    #[inline(always)]
    fn write_dns_host(&self, j: &mut Job<'_, '_, '_>) -> bool {
        let h = j.view.host().unwrap_or("");
        let start = j.out.len();
        // A valid LDH host is its own A-label and U-label form: lowercased, without UTS #46
        // (the parser has seen its bytes; only the label shapes are left to check).
        let ok = (j.view.host_is_ldh_bytes() && host::write_ldh_host(h, j.out))
            || match self.options.form {
                Form::Uri | Form::Surt => host::dns_host(h, HostForm::Ascii, j.out).is_ok(),
                Form::Iri => write_unicode_host(h, j.out, j.scratch),
            };
        if ok {
            note(j.trace, "host", "idna", h, &j.out[start..]);
        } else {
            j.trace.warnings.push(Warning::new(
                WarningKind::Idna,
                host_column(j.view),
                "the host fails IDNA processing; its syntax form is kept",
            ));
        }
        ok
    }

    /// The path: percent-encoding, dot segments (RFC 3986 §6.2.2.3, §5.2.4), the guard that
    /// keeps a path from being read as an authority, and the scheme's own path rules.
    #[inline(always)]
    fn write_path(&self, j: &mut Job<'_, '_, '_>) {
        let p = j.view.path();
        let has_authority = j.view.authority().is_some();
        let start = j.out.len();
        // Dot segments go from any path that resolution would clean; a relative-path
        // reference keeps its dots (SPEC §3), since their meaning depends on the base.
        let remove_dots = path::removes_dot_segments(j.view.is_absolute(), has_authority, p);
        if remove_dots && j.view.is_plain(Component::Path) && p.contains('.') {
            // Nothing to recode (so no `%2E` to decode): the dots go straight from the record.
            path::remove_dot_segments(p, j.out);
            note(j.trace, "path", "dot-segments", p, &j.out[start..]);
        } else {
            recode(j.view, Component::Path, p, self.policy, j.out);
            note(j.trace, "path", "percent-encoding", p, &j.out[start..]);
            // Decoding may have made dots (`%2E`): the recoded path is where to look.
            if remove_dots && path::has_dot_segments(&j.out[start..]) {
                j.scratch.clear();
                j.scratch.push_str(&j.out[start..]);
                j.out.truncate(start);
                path::remove_dot_segments(j.scratch, j.out);
                note(j.trace, "path", "dot-segments", j.scratch, &j.out[start..]);
            }
        }
        if !has_authority && j.out[start..].starts_with("//") {
            // Without an authority, a path starting with "//" would be re-read as one.
            j.out.insert_str(start, "/.");
            note(
                j.trace,
                "path",
                "authority-guard",
                &j.out[start + 2..],
                &j.out[start..],
            );
        }
        if let Some(r) = j.rule {
            write_scheme_path(r, has_authority, start, j.out, j.trace);
        }
    }
}

/// One key being written: the parsed record, its row of the scheme table (at the scheme
/// rung), and where the key, the writer's scratch text and the reports go.
struct Job<'j, 'v, 't> {
    view: &'j IriRef<'v>,
    rule: Option<&'static SchemeRule>,
    out: &'j mut String,
    /// A buffer reused from key to key (see [`KeyWriter::write_key`]).
    scratch: &'j mut String,
    trace: &'j mut Tracer<'t>,
}

/// A [`Layout`] recorded as a key is written from `base` on in its buffer, where `ON`
/// says (otherwise nothing is recorded, and the compiler drops the work).
struct Recorder<const ON: bool> {
    base: usize,
    layout: Layout,
}

impl<const ON: bool> Recorder<ON> {
    /// Where `out` ends, as an offset into the key. (Wrong only for a key of 4 GiB or more,
    /// whose layout [`Recorder::finish`] does not return.)
    #[inline(always)]
    fn at(&self, out: &str) -> u32 {
        (out.len() - self.base) as u32
    }

    /// Records a part of the layout, where one is recorded.
    #[inline(always)]
    fn mark(&mut self, set: impl FnOnce(&mut Layout)) {
        if ON {
            set(&mut self.layout);
        }
    }

    /// Records the span from `from` to where `out` ends as a part of the layout, where one
    /// is recorded.
    #[inline(always)]
    fn mark_span(&mut self, from: u32, out: &str, set: impl FnOnce(&mut Layout, Span)) {
        let span = (from, self.at(out));
        self.mark(|l| set(l, span));
    }

    /// The layout of the key that ends where `out` does, where one was recorded and the key
    /// is shorter than `u32::MAX` bytes (as the parser wants a text to be).
    #[inline(always)]
    fn finish(self, out: &str) -> Option<Layout> {
        let fits = out.len() - self.base < u32::MAX as usize;
        (ON && fits).then_some(self.layout)
    }
}

/// Writes `text`, component `component` of `view`, under `policy`
/// ([`percent::recode`]): copied as it is when the parser found it plain
/// ([`IriRef::is_plain`]), since recoding rewrites only percent-encodings, non-ASCII
/// characters and, when `policy.lowercase` asks, letters.
#[inline]
fn recode(view: &IriRef<'_>, component: Component, text: &str, policy: Recode, out: &mut String) {
    if !policy.lowercase && view.is_plain(component) {
        out.push_str(text);
    } else {
        percent::recode(text, policy, out);
    }
}

/// The scheme rung's rules for the path written at `out[start..]`: an empty path becomes
/// `/` where the scheme says so, and the scheme's special rule (`mailto:` domains, `urn:`
/// NIDs) applies.
#[inline(always)]
fn write_scheme_path(
    r: &SchemeRule,
    has_authority: bool,
    start: usize,
    out: &mut String,
    trace: &mut Tracer<'_>,
) {
    if has_authority && out.len() == start && r.empty_path_is_slash {
        out.push('/');
        note(trace, "path", "empty-path", "", "/");
    }
    let (rule, rewrite): (&str, fn(&mut String, usize)) = match r.special {
        Special::Mailto => ("mailto-domain", scheme::lowercase_mailto_domains),
        Special::Urn => ("urn-nid", scheme::lowercase_urn_nid),
        Special::None | Special::File => return,
    };
    let before = trace.is_some().then(|| out[start..].to_owned());
    rewrite(out, start);
    if let Some(b) = before {
        note(trace, "path", rule, &b, &out[start..]);
    }
}

/// Appends the U-label form of a DNS host for the `iri` key, keeping the two key forms in
/// the same equivalence classes (SPEC §5: `to_uri(key_iri(x)) == key_uri(x)`, where
/// `to_uri` applies ToASCII to the host, RFC 3987 §3.1).
///
/// The U-label form is used only when it maps back to the host's A-label form; otherwise
/// the A-label form itself is written (it is a valid `ireg-name`, and ToASCII leaves it
/// as it is). That happens for an A-label whose decoding is itself a string that IDNA
/// rejects, such as `xn--xn---epa`, which decodes to `xn--é`: a label that starts with
/// `xn--` but is not ASCII (RFC 5891 §4.2.3.1 forbids `--` in the third and fourth
/// positions of a U-label). Returns `false`, with nothing appended, when both forms fail.
/// `ascii` is scratch: it gets the A-label form.
fn write_unicode_host(h: &str, out: &mut String, ascii: &mut String) -> bool {
    let start = out.len();
    // One run of UTS #46 gives both forms of the host.
    ascii.clear();
    if let Ok(origin) = host::dns_host_forms(h, out, ascii) {
        // Forms of labels kept as they are map to each other by construction.
        if origin == Origin::Kept || out[start..].is_ascii() {
            return true;
        }
        let mut back = String::new();
        if host::dns_host(&out[start..], HostForm::Ascii, &mut back).is_ok() && *ascii == back {
            return true;
        }
        out.truncate(start);
        // The A-label form, which the same run found valid.
        out.push_str(ascii);
        return true;
    }
    host::dns_host(h, HostForm::Ascii, out).is_ok()
}

/// The 1-based character column of the host in the text `view` was parsed from.
fn host_column(view: &IriRef<'_>) -> usize {
    let text = view.as_str();
    let at = view
        .host()
        .map_or(0, |h| h.as_ptr() as usize - text.as_ptr() as usize);
    text[..at].chars().count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ladder::options::Level;
    use proptest::prelude::*;

    /// The records of [`the_layout_of_a_key_is_where_a_split_finds_its_components`]: every
    /// component, present and absent, empty and not, and the rewrites that move them.
    const LAID_OUT: &[&str] = &[
        "http://www.example.com/a/b?q=1#f",
        "HTTP://User:Pw@Example.COM:8080/A/./b/../c?Q#F",
        "http://example.com:80/",
        "https://example.com:443?x",
        "http://example.com:/p",
        "http://example.com#",
        "http://example.com?",
        "http://[2001:DB8::1]:8080/x",
        "http://[v7.Abc]/",
        "http://%31.2.3.4/x",
        "http://192.0.2.1:81",
        "file://localhost/etc/x",
        "file:///etc/x",
        "mailto:Someone@Example.COM",
        "urn:ISBN:1",
        "//example.com/x",
        "/a/../b?c",
        "a/b#c",
        "?q",
        "#f",
        "",
        "x:////a//b",
        "x:/.//a",
        "/.//a",
        "http://@h/",
        "http://h:0080/",
        "http://h:08080",
        "x://h:8",
        "file://localhost:/x",
        "http://[::FFFF:1.2.3.4]/",
        "http://１.２.３.４/",
        "http://xn--bcher-kva.example/%7e%C3%A9/caf%c3%a9?%41=%e2%82%ac",
        "http://bücher.example/é?ü#ö",
    ];

    #[test]
    fn the_layout_of_a_key_is_where_a_split_finds_its_components() {
        for level in [Level::Syntax, Level::Scheme] {
            for form in [Form::Uri, Form::Iri] {
                for drop_fragment in [false, true] {
                    let mut options = Options::default().with_level(level).with_form(form);
                    options.drop_fragment = drop_fragment;
                    let writer = KeyWriter::new(&options);
                    for record in LAID_OUT {
                        let view = IriRef::parse(record).expect(record);
                        let (mut warnings, mut scratch) = (Vec::new(), String::new());
                        let mut trace = Tracer {
                            steps: None,
                            warnings: &mut warnings,
                        };
                        // Written after other text: the layout is the key's own.
                        let mut out = String::from("before ");
                        let layout =
                            writer.write_key::<true>(&view, &mut out, &mut scratch, &mut trace);
                        let key = &out["before ".len()..];
                        let split = IriRef::split_valid(key).expect(key);
                        let laid_out = IriRef::laid_out(key, layout.expect(key));
                        // Equal views: the same spans and the same kind of host.
                        assert_eq!(laid_out, split, "{record} as {key}");
                    }
                }
            }
        }
    }

    proptest! {
        /// What [`recode`] relies on to copy a plain component: under every policy the
        /// rungs use without lowercasing, recoding text with no `%` and no non-ASCII
        /// character gives the text back.
        #[test]
        fn recoding_a_plain_component_changes_nothing(
            text in "[A-Za-z0-9._~!$&'()*+,;=:@/?-]{0,40}",
            iri: bool,
            in_query: bool,
            decode_unreserved: bool,
            uppercase_hex: bool,
        ) {
            let policy = Recode {
                decode_unreserved,
                uppercase_hex,
                encode_non_ascii: !iri,
                decode_utf8: iri,
                in_query,
                lowercase: false,
            };
            let mut out = String::new();
            percent::recode(&text, policy, &mut out);
            prop_assert_eq!(out, text);
        }
    }
}
