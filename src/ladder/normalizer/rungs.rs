//! The rungs of the ladder over one prepared record (RFC 3987 §5.3, RFC 3986 §6.2): the
//! parsed view (NFC, resolution against the base), the string rung, the key writer's
//! syntax and scheme rungs, the protocol rules' rounds, and the form of the key (itself or
//! its SURT); and the same work for a record the fast path found to be its own key at the
//! scheme rung, from the offsets it recorded.

use crate::iri::bidi;
use crate::iri::error::{Error, ErrorKind};
use crate::iri::host;
use crate::iri::parse::{HostKind, IriRef, Layout};
use crate::iri::percent;
use crate::iri::resolve;
use crate::ladder::fast::Shape;
use crate::ladder::key::KeyWriter;
use crate::ladder::nfc::nfc_between_delimiters;
use crate::ladder::normalizer::scratch::{KeyBuffers, Scratch, Texts};
use crate::ladder::normalizer::Normalizer;
use crate::ladder::options::{Form, Level};
use crate::ladder::protocol::{Glance, Rules};
use crate::ladder::surt;
use crate::ladder::trace::{note, Tracer};

impl Normalizer {
    /// The ladder over one prepared record: `out` gets the key.
    pub(super) fn run(
        &self,
        input: &str,
        out: &mut String,
        scratch: &mut Scratch,
        trace: &mut Tracer<'_>,
    ) -> Result<(), Error> {
        let o = &self.options;
        let view = self.view(input, &mut scratch.texts, trace)?;
        if o.level == Level::String {
            write_string_rung(&view, o.drop_fragment, out, trace);
            return Ok(());
        }
        let writer = KeyWriter::new(o);
        let b = &mut scratch.key;
        if !self.rewrites() {
            writer.write_key::<false>(&view, out, &mut b.path, trace);
            return Ok(());
        }
        b.key.clear();
        let layout = writer.write_key::<true>(&view, &mut b.key, &mut b.path, trace);
        self.after_scheme_rung(&writer, b, layout, out, trace);
        Ok(())
    }

    /// The protocol rules and the SURT form over the scheme-rung key in `b.key`, laid out as
    /// `layout` says where its writer returned that; `out` gets the key.
    fn after_scheme_rung(
        &self,
        writer: &KeyWriter<'_>,
        b: &mut KeyBuffers,
        mut layout: Option<Layout>,
        out: &mut String,
        trace: &mut Tracer<'_>,
    ) {
        if let Some(rules) = self.rules_in_force() {
            let view = IriRef::split_written(&b.key, layout);
            if !view.is_ok_and(|v| rules.leave_at_a_glance(&Glance::of_view(&v))) {
                layout = apply_rules(writer, rules, b, layout, trace);
            }
        }
        self.write_form(&b.key, layout, out, trace);
    }

    /// Writes `key`, the key before the form (laid out as `layout` says, where known), in
    /// the form of the key: itself, or its SURT.
    fn write_form(
        &self,
        key: &str,
        layout: Option<Layout>,
        out: &mut String,
        trace: &mut Tracer<'_>,
    ) {
        if self.options.form != Form::Surt {
            out.push_str(key);
            return;
        }
        let start = out.len();
        surt::push_written(out, |bytes| self.write_form_bytes(key, layout, bytes));
        note(trace, "record", "surt", key, &out[start..]);
    }

    /// [`Normalizer::write_form`] into bytes, without a trace.
    pub(super) fn write_form_bytes(&self, key: &str, layout: Option<Layout>, out: &mut Vec<u8>) {
        if self.options.form == Form::Surt {
            surt::write_surt_of_key(key, layout, self.options.surt_scheme, out);
        } else {
            out.extend_from_slice(key.as_bytes());
        }
    }

    /// The key of `record`, which the fast path found to be its own key at the scheme rung
    /// (`shape` says where its components lie): the record itself, unless the protocol
    /// rules or the SURT form rewrite it. A record that some rule changes takes the rules'
    /// rounds as any other (see [`apply_rules`]); the others need no parse.
    pub(super) fn write_own_key(
        &self,
        record: &str,
        shape: Shape,
        out: &mut String,
        scratch: &mut Scratch,
        trace: &mut Tracer<'_>,
    ) -> Result<(), Error> {
        // A record the sieve does not let through takes the rules' rounds.
        if let Some(rules) = self.rules_in_force() {
            let b = &mut scratch.key;
            if !rules_pass(rules, record, shape) {
                b.key.clear();
                b.key.push_str(record);
                let layout = apply_rules(&KeyWriter::new(&self.options), rules, b, None, trace);
                self.write_form(&b.key, layout, out, trace);
                return Ok(());
            }
        }
        if self.options.form != Form::Surt {
            out.push_str(record);
            return Ok(());
        }
        let start = out.len();
        surt::push_written(out, |bytes| {
            // A record that is its own key always has its SURT written.
            let written = self.write_own_surt(record, shape, bytes);
            debug_assert!(written && shape.is_own_key());
        });
        note(trace, "record", "surt", record, &out[start..]);
        Ok(())
    }

    /// Writes the SURT of `record`, which the fast path took (`shape`), its key before the
    /// form: most records have a lowercase LDH host, whose SURT [`surt::write_ldh_surt`]
    /// writes inline, with the `/` of an empty path ([`Shape::adds_slash`]). Returns `false`,
    /// having written nothing, for a record that adds a `/` and has another host (the full
    /// ladder writes those).
    #[inline(always)]
    pub(super) fn write_own_surt(&self, record: &str, shape: Shape, out: &mut Vec<u8>) -> bool {
        let b = record.as_bytes();
        let ldh = ldh_surt_authority(record, shape).filter(|_| !self.options.surt_scheme);
        if let Some((start, end)) = ldh {
            let host = surt::LdhHost {
                text: &b[start..],
                len: shape.host_end - start,
                dots: shape.host_dots,
            };
            let port = b.get(shape.host_end + 1..end).unwrap_or_default();
            let rest = surt::Rest::new(shape.adds_slash, &b[shape.path..shape.len]);
            surt::write_ldh_surt(host, port, rest, out);
            return true;
        }
        if shape.adds_slash {
            return false;
        }
        self.write_own_parts_surt(record, shape, out);
        true
    }

    /// [`Normalizer::write_own_surt`] for any record, from its pieces.
    fn write_own_parts_surt(&self, record: &str, shape: Shape, out: &mut Vec<u8>) {
        let options = surt::SurtOptions {
            include_scheme: self.options.surt_scheme,
            ..surt::SurtOptions::default()
        };
        match surt_parts(record.as_bytes(), shape) {
            Some(parts) => surt::write_surt_of_parts(&parts, options, out),
            None => surt::write_surt_bytes(record, options, out),
        }
    }

    /// The parsed record the rungs read: the record itself (validated as given, so columns
    /// refer to it), after NFC when asked, resolved against the base when it is relative.
    fn view<'s>(
        &self,
        input: &'s str,
        texts: &'s mut Texts,
        trace: &mut Tracer<'_>,
    ) -> Result<IriRef<'s>, Error> {
        let o = &self.options;
        let Texts { nfc, resolved } = texts;
        let mut view = IriRef::parse(input)?;
        // RFC 3987 §4.2 judges the record as written (a SHOULD: warnings only).
        if self.bidi_warnings {
            bidi::warnings(&view, trace.warnings);
        }
        if o.applies_nfc() && percent::has_non_ascii(input) {
            // NFC applies to the characters the record stands for, so percent-encoded UTF-8
            // is decoded first (RFC 3987 §3.2) and normalized with the raw text; otherwise
            // an IRI-form key, which shows those characters raw, would not be stable.
            let decoded = crate::iri::convert::iri_of(&view);
            if !decoded.is_ascii() {
                nfc.clear();
                nfc_between_delimiters(&decoded, nfc);
                note(trace, "record", "nfc", input, nfc);
                // A record that neither step changed is parsed already.
                if *nfc != *input {
                    view = IriRef::parse(nfc)?;
                }
            }
        }
        if view.is_absolute() {
            return Ok(view);
        }
        if let Some(base) = &o.base {
            let base_view = IriRef::parse(base)?;
            resolved.clear();
            resolve::resolve_components(
                &base_view.components(),
                &view.components(),
                resolve::Resolution::Strict,
                resolved,
            );
            note(trace, "record", "resolve", view.as_str(), resolved);
            return IriRef::parse(resolved);
        }
        if o.absolute {
            return Err(Error::new(
                ErrorKind::Relative,
                1,
                "relative reference (no scheme) and --absolute was given",
            ));
        }
        Ok(view)
    }
}

/// Whether the protocol rules in force (`rules`, asked once by the caller, not per record)
/// leave `record`, which the fast path took (`shape`), as it is: `true` without rules.
/// `false` also means "not known".
#[inline(always)]
pub(super) fn rules_leave(rules: Option<&Rules>, record: &str, shape: Shape) -> bool {
    match rules {
        Some(rules) => rules_pass(rules, record, shape),
        None => true,
    }
}

/// Whether `rules` leave `record`, which the fast path took (`shape`), as it is, told at a
/// glance: by the flags of its shape where they tell (most records have no `?`, `;` or
/// fragment), else by the rules' sieve looking at its pieces. `false` also means "not
/// known".
#[inline(always)]
pub(super) fn rules_pass(rules: &Rules, record: &str, shape: Shape) -> bool {
    // The byte before `host_end` is the host's last; without an authority, or with an
    // empty host, it is the scheme's `:` or a `/` (or there is none), never a `.`.
    let dot = record.as_bytes()[..shape.host_end].ends_with(b".");
    rules.leave_unmarked(shape.marks, shape.fragment, dot)
        || rules.leave_at_a_glance(&glance(record, shape))
}

/// What the protocol rules' sieve needs to see of a record the fast path took. Inline: it
/// runs for every such record, and only cuts it where `shape` says.
#[inline(always)]
fn glance(record: &str, shape: Shape) -> Glance<'_> {
    let b = record.as_bytes();
    Glance {
        scheme: shape.after_scheme.checked_sub(1).map(|end| &b[..end]),
        host: shape.authority.map(|(start, _)| &b[start..shape.host_end]),
        rest: &b[shape.path..shape.len],
        fragment: shape.fragment,
        marks: shape.marks,
    }
}

/// The key of `record` at the scheme rung, which the fast path took (`shape`), as the
/// pieces to write in order: the record, with the `/` of its empty path put in where
/// [`Shape::adds_slash`] says so.
#[inline]
pub(super) fn key_pieces(record: &str, shape: Shape) -> [&str; 3] {
    if shape.adds_slash {
        [&record[..shape.path], "/", &record[shape.path..]]
    } else {
        [record, "", ""]
    }
}

/// Appends the key of `record` at the scheme rung, which the fast path took (`shape`).
#[inline]
pub(super) fn push_adding_slash(record: &str, shape: Shape, out: &mut String) {
    for piece in key_pieces(record, shape) {
        out.push_str(piece);
    }
}

/// The pieces of the SURT of a record the fast path took, if it has an authority.
#[inline]
fn surt_parts(record: &[u8], shape: Shape) -> Option<surt::SurtParts<'_>> {
    let (start, end) = shape.authority?;
    let host = &record[start..shape.host_end];
    let ends_in_digit = host.last().is_some_and(u8::is_ascii_digit);
    Some(surt::SurtParts {
        scheme: shape.after_scheme.checked_sub(1).map(|end| &record[..end]),
        host,
        // An IPv4 address ends in a digit: most hosts are told apart by their last byte.
        host_kind: if ends_in_digit && host::is_ipv4address_bytes(host) {
            HostKind::Ipv4
        } else {
            HostKind::RegName
        },
        ldh_dots: shape.ldh_host.then_some(shape.host_dots),
        port: record.get(shape.host_end + 1..end),
        rest: &record[shape.path..shape.len],
    })
}

/// The string rung (RFC 3987 §5.3.1): the record itself, without its fragment when asked.
fn write_string_rung(
    view: &IriRef<'_>,
    drop_fragment: bool,
    out: &mut String,
    trace: &mut Tracer<'_>,
) {
    let text = view.as_str();
    let end = match (drop_fragment, view.fragment()) {
        (true, Some(f)) => text.len() - f.len() - 1,
        _ => text.len(),
    };
    out.push_str(&text[..end]);
    note(trace, "fragment", "drop-fragment", text, &text[..end]);
}

/// The protocol rung (RFC 3987 §5.3.4) over the scheme-rung key in `b.key` (laid out as
/// `layout` says, where known). A host or path rule may leave what the scheme rung rewrites
/// (`/.;jsessionid=1/` becomes the dot segment `/./`; `bücher..` passes IDNA once its dots
/// are gone): the scheme rung and the rules run again until the key is its own key (at most
/// 8 rounds). Returns the layout of the key it leaves in `b.key`, where known.
pub(super) fn apply_rules(
    writer: &KeyWriter<'_>,
    rules: &Rules,
    b: &mut KeyBuffers,
    mut layout: Option<Layout>,
    trace: &mut Tracer<'_>,
) -> Option<Layout> {
    for _ in 0..8 {
        b.fired.clear();
        b.after.clear();
        match IriRef::split_written(&b.key, layout) {
            Ok(view) => rules.apply_view(&view, &mut b.after, &mut b.fired),
            Err(_) => rules.apply(&b.key, &mut b.after, &mut b.fired),
        }
        for rule in &b.fired {
            note(trace, "protocol", rule.name(), &b.key, &b.after);
        }
        // What the rules wrote is not laid out, unless it is the key as it was.
        if b.after != b.key {
            layout = None;
        }
        std::mem::swap(&mut b.key, &mut b.after);
        if b.fired.iter().all(|k| k.touches_only_query_or_fragment()) {
            break;
        }
        let Ok(again) = IriRef::parse(&b.key) else {
            break;
        };
        b.after.clear();
        // Either way `b.key` ends up with the text the writer wrote.
        layout = writer.write_key::<true>(&again, &mut b.after, &mut b.path, trace);
        if b.after == b.key {
            break;
        }
        std::mem::swap(&mut b.key, &mut b.after);
    }
    layout
}

/// The authority of `record` (its start and end), where the fast path took it (`shape`) with
/// a lowercase LDH host that is not an IPv4 address: a record whose SURT
/// [`surt::write_ldh_surt`] writes (in runs of lines, [`surt::write_ldh_surt_line`]).
#[inline(always)]
pub(super) fn ldh_surt_authority(record: &str, shape: Shape) -> Option<(usize, usize)> {
    let authority = shape.authority.filter(|_| shape.ldh_host)?;
    // An IPv4 address ends in a digit: most hosts are told apart by their last byte.
    let ipv4 = record.as_bytes()[..shape.host_end]
        .last()
        .is_some_and(u8::is_ascii_digit);
    (!ipv4).then_some(authority)
}
