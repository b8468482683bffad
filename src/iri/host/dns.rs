//! Registered names through IDNA: mapping a `reg-name` (RFC 3986 §3.2.2) or `ireg-name`
//! (RFC 3987 §2.2) to its A-label (ToASCII) or U-label (ToUnicode) form with UTS #46 (the
//! `idna` crate; RFC 3987 §3.1 and §5.3.3, RFC 3490 §4, RFC 5891 §4.2), and the optional
//! ToASCII step of RFC 3987 §3.1 that leaves ASCII labels as written.
//!
//! LDH hosts take the short way ([`super::ldh`]), hosts whose labels UTS #46 keeps as they
//! are take [`ulabel`]; the others run UTS #46 itself.

use super::ldh::write_valid_ldh_host;
use super::{recent, HostForm, IdnaFailure, Origin};
use crate::iri::chars;
use crate::iri::percent::triplet_at;
use crate::iri::ulabel;
use idna::uts46::{verify_dns_length, AsciiDenyList, DnsLength, ErrorPolicy, Hyphens, Uts46};

/// _UseSTD3ASCIIRules=true_: only `a-z`, `0-9`, `-` (and `.` as separator) survive mapping,
/// as RFC 3987 §3.1 and §5.3.3 ask.
const DENY: AsciiDenyList = AsciiDenyList::STD3;
/// No hyphen first or last in a label, as the STD3 rules of RFC 3490 §4.1 (ToASCII step 3)
/// require. The IDNA2008 ban on `--` in the third and fourth positions (RFC 5891 §4.2.3.1)
/// is not applied: real hosts such as `r4---sn-abc.example` use it.
const HYPHENS: Hyphens = Hyphens::CheckFirstLast;
/// _VerifyDNSLength=true_ (RFC 3490 §4.1 step 8): labels of 1–63 octets and a name of at
/// most 253 octets in ASCII form, except that one trailing root-label dot is allowed.
const DNS_LENGTH: DnsLength = DnsLength::VerifyAllowRootDot;

/// Maps a registered name (`reg-name` of RFC 3986 §3.2.2 or `ireg-name` of RFC 3987 §2.2)
/// to its A-label form ([`HostForm::Ascii`]) or U-label form ([`HostForm::Unicode`]) and
/// appends it to `out`.
///
/// `host` is the host as it appears in the IRI, after the caller has split off userinfo and
/// the port and has recognized IP literals (`[…]`) and, if it wishes, `IPv4address`es: this
/// function only ever sees the name itself, and a `:` in it is an error like any other
/// character STD3 rules forbid. It may contain `%XX` percent-encodings (either hex case) and
/// raw non-ASCII characters.
///
/// Steps:
///
/// 1. An empty host appends nothing and is `Ok` (RFC 3986 §3.2.2 allows an empty
///    `reg-name`).
/// 2. Fast path: a pure-ASCII host without `%` whose labels are already valid LDH labels
///    (letters, digits and hyphens, no hyphen first or last, no `--` in the third and fourth
///    position, so no `xn--` label either; 1–63 octets each, at most 253 octets in all, one
///    trailing root dot allowed) is appended ASCII-lowercased. That is exactly what the
///    slow path produces for such input; every other input takes the slow path.
/// 3. The whole host is percent-decoded to octets (RFC 3986 §3.2.2: percent-encoding in a
///    host represents UTF-8); octets that are not UTF-8, or a `%` not followed by two hex
///    digits, give `Err`.
/// 4. UTS #46 processing, non-transitional (the only mode `idna` 1.x implements), with
///    `idna::uts46::Uts46::process` and
///    * `AsciiDenyList::STD3` (_UseSTD3ASCIIRules=true_, RFC 3987 §3.1: `_`, `%`, `*`,
///      `:`, spaces and the like fail),
///    * `Hyphens::CheckFirstLast` (no hyphen first or last in a label, RFC 3490 §4.1 STD3;
///      the IDNA2008 ban on `--` in the third and fourth positions is not applied, see
///      the constant `HYPHENS`),
///    * `ErrorPolicy::FailFast`, with the _ToUnicode_ closure (`|_, _, _| true`) and an
///      `ascii_sink`, so one pass yields both forms,
///    * then `idna::uts46::verify_dns_length(ascii, true)` on the _ToASCII_ form, i.e.
///      _VerifyDNSLength=true_ except that one trailing root dot is allowed (the crate's
///      `DnsLength::VerifyAllowRootDot`). So `a..b` and `.` fail, `example.com.` keeps its dot.
///
///    UTS #46 mapping treats U+002E, U+3002, U+FF0E and U+FF61 all as label separators
///    (RFC 3490 §3.1 step 1) and writes them as `.`.
///
///    A host whose labels UTS #46 keeps as they are (valid code points in NFC, no joiner,
///    no hyphen first or last, no mark first, `xn--` labels that decode to such labels,
///    and in a Bidi domain name every label holding to the Bidi rule of RFC 5893) gets its
///    two forms without running it (`iri::ulabel`, checked against UTS #46 by its tests):
///    the same result.
/// 5. [`HostForm::Ascii`] appends the _ToASCII_ result; [`HostForm::Unicode`] appends the
///    _ToUnicode_ result, but only if every character of it may stand raw in an `ireg-name`
///    (`iunreserved`, RFC 3987 §2.2: ASCII unreserved or `ucschar`, and not a bidi
///    formatting character, RFC 3987 §4.1); otherwise it is `Err` as well.
///
/// On `Err` nothing is appended to `out`. When both forms are `Ok` for a host, they name the
/// same host: feeding either result back in, in either form, gives the same two results.
pub fn dns_host(host: &str, form: HostForm, out: &mut String) -> Result<(), IdnaFailure> {
    if host.is_empty() {
        return Ok(());
    }
    if write_valid_ldh_host(host, out) {
        return Ok(());
    }
    dns_host_slow(host, form, out, None).map(|_| ())
}

/// Appends the host as the optional ToASCII step of RFC 3987 §3.1 writes it (`to_uri` with
/// [`HostMapping::ToAscii`](crate::iri::convert::HostMapping::ToAscii)): each label that
/// holds non-ASCII characters becomes its A-label, and every other label is left exactly as
/// written, case and percent-encodings included. RFC 3490 §4.1: "ToASCII never alters a
/// sequence of code points that are all in the ASCII range to begin with (although it could
/// fail)": its step 1 skips Nameprep (and so case folding) for such a label. Case is the
/// comparison ladder's business (RFC 3987 §5.3.2.1), not the mapping's.
///
/// The whole name is first checked and converted as [`dns_host`] does in
/// [`HostForm::Ascii`] (so a name fails here exactly when it fails there); its labels are
/// then matched with the labels of `host`, split at the four dots of RFC 3490 §3.1 step 1
/// (written `.` in the result). Should the two not have the same number of labels (a
/// percent-encoded `.` that decoding turned into a separator), the whole converted name is
/// written. On `Err` nothing is appended.
pub fn to_ascii_host(host: &str, out: &mut String) -> Result<(), IdnaFailure> {
    let mut ascii = String::new();
    dns_host(host, HostForm::Ascii, &mut ascii)?;
    let labels: Vec<&str> = host
        .split(['.', '\u{3002}', '\u{FF0E}', '\u{FF61}'])
        .collect();
    if labels.len() != ascii.split('.').count() {
        out.push_str(&ascii);
        return Ok(());
    }
    for (i, (label, converted)) in labels.iter().zip(ascii.split('.')).enumerate() {
        if i > 0 {
            out.push('.');
        }
        out.push_str(if is_ascii_label(label) {
            label
        } else {
            converted
        });
    }
    Ok(())
}

/// Whether a label, as written in an `ireg-name`, is all ASCII once percent-decoded (no raw
/// non-ASCII character, no `%XX` of an octet above 7F).
fn is_ascii_label(label: &str) -> bool {
    let b = label.as_bytes();
    b.iter().enumerate().all(|(i, &c)| {
        c.is_ascii()
            && !(c == b'%'
                && b.get(i + 1)
                    .is_some_and(|&h| chars::hex_value(h).is_some_and(|v| v >= 8)))
    })
}

/// [`dns_host`] in [`HostForm::Unicode`], which also appends the [`HostForm::Ascii`] form
/// of the host to `ascii`, from the same run of UTS #46 (its ToASCII side), telling how the
/// forms were made. On `Err` nothing is appended to either.
pub(crate) fn dns_host_forms(
    host: &str,
    out: &mut String,
    ascii: &mut String,
) -> Result<Origin, IdnaFailure> {
    let start = out.len();
    if host.is_empty() || write_valid_ldh_host(host, out) {
        ascii.push_str(&out[start..]);
        return Ok(Origin::Kept);
    }
    dns_host_slow(host, HostForm::Unicode, out, Some(ascii))
}

/// The slow path of [`dns_host`]: percent-decoding, UTS #46, length and `ireg-name` checks.
/// With `want_ascii`, the ASCII form is appended there too (on success only). A host this
/// thread mapped lately is written as it was then ([`recent`]).
fn dns_host_slow(
    host: &str,
    form: HostForm,
    out: &mut String,
    mut want_ascii: Option<&mut String>,
) -> Result<Origin, IdnaFailure> {
    if host.is_empty() {
        return Ok(Origin::Kept);
    }
    if let Some(origin) = recent::replay(host, form, out, want_ascii.as_deref_mut()) {
        return Ok(origin);
    }
    let (start, mark) = (out.len(), want_ascii.as_deref().map(String::len));
    let origin = map_host(host, form, out, want_ascii.as_deref_mut())?;
    let ascii = want_ascii.as_deref().zip(mark).map(|(a, mark)| &a[mark..]);
    recent::keep(host, form, origin, &out[start..], ascii);
    Ok(origin)
}

/// [`dns_host_slow`] for a host that is not empty, every time.
fn map_host(
    host: &str,
    form: HostForm,
    out: &mut String,
    want_ascii: Option<&mut String>,
) -> Result<Origin, IdnaFailure> {
    // Decoded text is never longer than its encoding: a host whose encoding fits in 256
    // bytes decodes on the stack. (Both buffers are made only where a host has a `%`.)
    let (mut stack, mut heap): ([u8; 256], Vec<u8>);
    let text: &str = if memchr::memchr(b'%', host.as_bytes()).is_some() {
        let buf = if host.len() <= 256 {
            stack = [0; 256];
            &mut stack[..]
        } else {
            heap = vec![0; host.len()];
            &mut heap[..]
        };
        let decoded = percent_decode(host.as_bytes(), buf).ok_or(IdnaFailure)?;
        // `process` checks UTF-8 itself, but an early check keeps the contract obvious.
        std::str::from_utf8(decoded).map_err(|_| IdnaFailure)?
    } else {
        host
    };

    let start = out.len();
    // The ToASCII form goes to `ascii_side` (the caller's buffer if it wants it) where `out`
    // gets the ToUnicode one.
    let wants_ascii = want_ascii.is_some();
    let mut own = String::new();
    let ascii_side = want_ascii.unwrap_or(&mut own);
    let mark = ascii_side.len();
    // The host's two forms where its labels are what UTS #46 makes of them (most hosts);
    // UTS #46 itself for the others.
    let kept = match form {
        HostForm::Ascii => ulabel::write_kept_forms(text, None, out),
        HostForm::Unicode => ulabel::write_kept_forms(text, Some(out), ascii_side),
    };
    let ok = kept || uts46(text, form, out, ascii_side);
    // `ascii_side` is written only where `out` got the ToUnicode form, and not always then
    // (UTS #46 leaves it alone where that form is ASCII): otherwise what `out` got is the
    // ToASCII form itself.
    let ascii_written = ascii_side.len() > mark;
    let ok = ok && {
        let ascii = if ascii_written {
            &ascii_side[mark..]
        } else {
            &out[start..]
        };
        (DNS_LENGTH == DnsLength::Ignore
            || verify_dns_length(ascii, DNS_LENGTH == DnsLength::VerifyAllowRootDot))
            && (form == HostForm::Ascii || out[start..].chars().all(allowed_in_ireg_name))
    };
    if !ok {
        out.truncate(start);
        ascii_side.truncate(mark);
        return Err(IdnaFailure);
    }
    if wants_ascii && !ascii_written {
        ascii_side.push_str(&out[start..]);
    }
    Ok(if kept { Origin::Kept } else { Origin::Uts46 })
}

/// UTS #46 processing of `text` (steps 4 and 5 of [`dns_host`]): `form` appended to
/// `out`, and the ToASCII form to `ascii_side` when `out` got the ToUnicode form and it is
/// not ASCII. Returns whether it succeeded (`out` may hold part of a result otherwise).
fn uts46(text: &str, form: HostForm, out: &mut String, ascii_side: &mut String) -> bool {
    let start = out.len();
    let result = Uts46::new().process(
        text.as_bytes(),
        DENY,
        HYPHENS,
        ErrorPolicy::FailFast,
        |_, _, _| form == HostForm::Unicode,
        out,
        Some(ascii_side),
    );
    match result {
        Ok(idna::uts46::ProcessingSuccess::Passthrough) => {
            // The input was already the output (ASCII, lowercase, valid).
            out.truncate(start);
            out.push_str(text);
            true
        }
        Ok(idna::uts46::ProcessingSuccess::WroteToSink) => true,
        Err(_) => false,
    }
}

/// Whether `c` may appear raw (not percent-encoded) in an `ireg-name` as the U-label form
/// of a host: `iunreserved` of RFC 3987 §2.2 (ASCII `unreserved` or `ucschar`), the label
/// separator `.` included, minus the bidi formatting characters RFC 3987 §4.1 forbids.
fn allowed_in_ireg_name(c: char) -> bool {
    if c.is_ascii() {
        chars::is_unreserved(c as u8)
    } else {
        chars::is_ucschar(c) && !chars::is_bidi_format(c)
    }
}

/// Decodes every `%XX` (either hex case) in `b` into `buf`, which is at least as long as
/// `b`: the decoded bytes, or `None` if a `%` is not followed by two hex digits.
fn percent_decode<'b>(b: &[u8], buf: &'b mut [u8]) -> Option<&'b [u8]> {
    debug_assert!(buf.len() >= b.len());
    let (mut i, mut n) = (0, 0);
    while i < b.len() {
        let (octet, width) = match b[i] {
            b'%' => (triplet_at(b, i)?, 3),
            other => (other, 1),
        };
        buf[n] = octet;
        i += width;
        n += 1;
    }
    Some(&buf[..n])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iri::host::ldh::is_valid_ldh_host;
    use crate::iri::test_rng::Rng;

    fn to_ascii(h: &str) -> Result<String, IdnaFailure> {
        let mut out = String::from("prefix|");
        let r = to_ascii_host(h, &mut out);
        if r.is_err() {
            assert_eq!(out, "prefix|");
        }
        r.map(|()| out["prefix|".len()..].to_owned())
    }

    #[test]
    fn to_ascii_host_leaves_ascii_labels_as_written() {
        // RFC 3490 §4.1: "ToASCII never alters a sequence of code points that are all in
        // the ASCII range to begin with".
        assert_eq!(to_ascii("É.COM").unwrap(), "xn--9ca.COM");
        assert_eq!(to_ascii("WWW.Bücher.DE.").unwrap(), "WWW.xn--bcher-kva.DE.");
        // A percent-encoded ASCII label stays as written; an encoded non-ASCII one is
        // converted (RFC 3986 §3.2.2: it stands for UTF-8).
        assert_eq!(to_ascii("%41b.%C3%A9").unwrap(), "%41b.xn--9ca");
        // The other dots of RFC 3490 §3.1 step 1 separate labels and are written ".".
        assert_eq!(to_ascii("例え\u{3002}TEST").unwrap(), "xn--r8jz45g.TEST");
        // It fails exactly when dns_host fails, ASCII labels included (STD3 rules, §4.1
        // step 3).
        assert!(to_ascii("é.a_b").is_err());
        assert!(to_ascii("é.-a").is_err());
        // An ASCII ACE label is ASCII: left as written.
        assert_eq!(to_ascii("XN--9CA.é").unwrap(), "XN--9CA.xn--9ca");
    }

    fn host(h: &str, form: HostForm) -> Result<String, IdnaFailure> {
        let mut out = String::from("prefix|");
        let r = dns_host(h, form, &mut out);
        if r.is_err() {
            assert_eq!(out, "prefix|", "nothing appended on error for {h:?}");
        }
        r.map(|()| out["prefix|".len()..].to_string())
    }

    fn slow(h: &str, form: HostForm) -> Result<String, IdnaFailure> {
        let mut out = String::from("x");
        let r = dns_host_slow(h, form, &mut out, None);
        if r.is_err() {
            assert_eq!(out, "x");
        }
        r.map(|_| out[1..].to_string())
    }

    fn ascii(h: &str) -> Result<String, IdnaFailure> {
        host(h, HostForm::Ascii)
    }

    #[test]
    fn one_run_gives_both_forms() {
        let hosts = [
            "",
            "example.com",
            "EXAMPLE.com",
            "bücher.de",
            "xn--bcher-kva.de",
            "ex%41mple.com",
            "%C3%BC.de",
            "xn--xn---epa.com",
            "a..b",
            "ήλιος.gr",
            "-a.com",
            "faß.de",
            "ⓔⓧⓐⓜⓟⓛⓔ.com",
            "xn--g9b2c.ήλιος.xn--wgbh1c",
            "%E2%82%AC",
            "a.b.",
            "例え.テスト",
        ];
        for h in hosts {
            let (mut u, mut a) = (String::from("u|"), String::from("a|"));
            let r = dns_host_forms(h, &mut u, &mut a).map(|_| ());
            assert_eq!(r.is_ok(), unicode(h).is_ok(), "{h:?}");
            match r {
                Ok(()) => {
                    assert_eq!(Ok(u[2..].to_string()), unicode(h), "{h:?}");
                    assert_eq!(Ok(a[2..].to_string()), ascii(h), "{h:?}");
                }
                Err(_) => assert_eq!((u.as_str(), a.as_str()), ("u|", "a|"), "{h:?}"),
            }
        }
    }

    fn unicode(h: &str) -> Result<String, IdnaFailure> {
        host(h, HostForm::Unicode)
    }

    /// Where the forms come from labels kept as they are, each form gives the other back:
    /// the `iri` key leans on that and skips the check it makes of UTS #46's forms.
    #[test]
    fn kept_forms_give_each_other_back() {
        let mut hosts = varied_hosts();
        hosts.extend(
            [
                "bücher.de",
                "xn--bcher-kva.de",
                "מילון.il",
                "xn--4dbrk0ce.xn--4dbrk0ce",
                "مصر.xn--wgbh1c",
                "%D7%9E%D7%99%D7%9C%D7%95%D7%9F.il",
                "例え.テスト",
                "Bücher.de",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        let (mut kept, mut processed) = (0, 0);
        for h in &hosts {
            let (mut u, mut a) = (String::new(), String::new());
            match dns_host_forms(h, &mut u, &mut a) {
                Ok(Origin::Kept) => {
                    kept += 1;
                    assert_eq!(ascii(&u), Ok(a.clone()), "{h:?}");
                    assert_eq!(unicode(&a), Ok(u.clone()), "{h:?}");
                }
                Ok(Origin::Uts46) => processed += 1,
                Err(_) => {}
            }
        }
        assert!(kept > 5 && processed > 0, "{kept} {processed}");
    }

    #[test]
    fn idna_examples() {
        assert_eq!(ascii("Bücher.example").unwrap(), "xn--bcher-kva.example");
        assert_eq!(unicode("xn--bcher-kva.example").unwrap(), "bücher.example");
        assert_eq!(unicode("XN--BCHER-KVA.Example").unwrap(), "bücher.example");
        assert_eq!(unicode("Bücher.example").unwrap(), "bücher.example");
        assert_eq!(
            ascii("%E4%B8%AD%E5%9B%BD.example").unwrap(),
            "xn--fiqs8s.example"
        );
        assert_eq!(
            ascii("%e4%b8%ad%E5%9B%bd.example").unwrap(),
            "xn--fiqs8s.example"
        );
        assert_eq!(
            unicode("%E4%B8%AD%E5%9B%BD.example").unwrap(),
            "中国.example"
        );
        assert_eq!(ascii("例え.テスト").unwrap(), "xn--r8jz45g.xn--zckzah");
        assert_eq!(unicode("xn--r8jz45g.xn--zckzah").unwrap(), "例え.テスト");
        assert_eq!(ascii("a．b").unwrap(), "a.b");
        assert_eq!(ascii("a。b｡c").unwrap(), "a.b.c");
        assert_eq!(unicode("a．b").unwrap(), "a.b");
        assert_eq!(ascii("ÖBB.at").unwrap(), "xn--bb-eka.at");
        assert_eq!(unicode("ÖBB.at").unwrap(), "öbb.at");
        // Non-transitional: ß and ς are kept, not mapped to ss / σ.
        assert_eq!(ascii("faß.de").unwrap(), "xn--fa-hia.de");
        assert_eq!(ascii("EXAMPLE.com").unwrap(), "example.com");
        assert_eq!(ascii("%41.com").unwrap(), "a.com");
        assert_eq!(ascii("a%2Eb").unwrap(), "a.b");
    }

    #[test]
    fn long_percent_encoded_hosts_give_what_their_decoded_text_gives() {
        // Hosts whose encoding is just within the stack buffer's 256 bytes, at it, just past
        // it and far past it: each gives what its text, written out, gives, in both forms.
        let (encoded, decoded) = ("%C3%A9".repeat(40), "é".repeat(40));
        let hosts = |w: &str| {
            [
                format!("aaaaaaa{w}.example"),
                format!("aaaaaaaa{w}.example"),
                format!("aaaaaaaaa{w}.example"),
                format!("{w}.{w}.example"),
            ]
        };
        for (host, text) in hosts(&encoded).into_iter().zip(hosts(&decoded)) {
            assert!(ascii(&text).is_ok(), "{text}");
            assert_eq!(ascii(&host), ascii(&text), "{host}");
            assert_eq!(unicode(&host), unicode(&text), "{host}");
        }
        assert_eq!(format!("aaaaaaaa{encoded}.example").len(), 256);
    }

    #[test]
    fn idna_failures() {
        for bad in [
            "%FF.example",
            "a%ff",
            "%C3",
            "%",
            "a%2",
            "a%zz",
            "a_b.com",
            "a b.com",
            "a*b.com",
            "a%25b.com",
            "a%20b.com",
            "xn--zz",
            "xn--",
            "xn--a-",
            "-a.com",
            "a-.com",
            "a..b",
            ".",
            "..",
            ".a",
            "example.com..",
            "example.com:80",
            "user@example.com",
            "a/b",
            "[::1]",
            "\u{200E}a.com",
            "a\u{FFFD}.com",
        ] {
            assert_eq!(ascii(bad), Err(IdnaFailure), "ascii {bad:?}");
            assert_eq!(unicode(bad), Err(IdnaFailure), "unicode {bad:?}");
        }
        // RFC 3490's hyphen rule only: `--` inside a label is fine.
        assert_eq!(ascii("r4---sn-AB.example").unwrap(), "r4---sn-ab.example");
        let long_label = "a".repeat(64);
        assert_eq!(ascii(&long_label), Err(IdnaFailure));
        assert_eq!(ascii(&"a".repeat(63)).unwrap(), "a".repeat(63));
        let long_name = vec!["a".repeat(63); 4].join(".");
        assert_eq!(long_name.len(), 255);
        assert_eq!(ascii(&long_name), Err(IdnaFailure));
    }

    #[test]
    fn trailing_dot_and_empty() {
        assert_eq!(ascii("example.com.").unwrap(), "example.com.");
        assert_eq!(unicode("example.com.").unwrap(), "example.com.");
        assert_eq!(ascii("EXAMPLE.com.").unwrap(), "example.com.");
        assert_eq!(ascii("Bücher.example.").unwrap(), "xn--bcher-kva.example.");
        assert_eq!(
            unicode("xn--bcher-kva.example.").unwrap(),
            "bücher.example."
        );
        assert_eq!(ascii("example．").unwrap(), "example.");
        assert_eq!(ascii("").unwrap(), "");
        assert_eq!(unicode("").unwrap(), "");
    }

    #[test]
    fn port_is_never_part_of_the_host() {
        // Callers split `:port` off first; if they do not, the `:` is a STD3 failure rather
        // than something silently kept or dropped.
        assert_eq!(ascii("example.com:8080"), Err(IdnaFailure));
        assert_eq!(unicode("bücher.example:80"), Err(IdnaFailure));
        assert_eq!(ascii("example.com:"), Err(IdnaFailure));
        assert_eq!(ascii("example.com").unwrap(), "example.com");
    }

    #[test]
    fn unicode_form_character_check() {
        // `_` and `~` are `iunreserved`; STD3 rules never let them through, so the check
        // only has to guard against what an `ireg-name` cannot hold raw.
        for c in [
            'a',
            'z',
            '0',
            '-',
            '.',
            '_',
            '~',
            'é',
            '中',
            '\u{1F600}',
            '\u{200D}',
        ] {
            assert!(allowed_in_ireg_name(c), "{c:?}");
        }
        for c in [
            '%',
            ':',
            '\u{85}',
            '\u{200E}',
            '\u{202E}',
            '\u{2066}',
            '\u{E000}',
            '\u{FDD0}',
            '\u{FFFD}',
            '\u{E0001}',
        ] {
            assert!(!allowed_in_ireg_name(c), "{c:?}");
        }
    }

    /// A few hundred hosts: hand-picked ones plus deterministic pseudo-random ones over an
    /// alphabet that hits every branch of the fast-path check.
    fn varied_hosts() -> Vec<String> {
        let mut hosts: Vec<String> = [
            "a_b.com",
            "xn--nxasmq6b.com",
            "XN--NXASMQ6B.com",
            "Xn--nxasmq6b.com",
            "EXAMPLE.com.",
            "example.com",
            "-a.com",
            "a-.com",
            "a..b",
            "",
            ".",
            "..",
            ".a",
            "a.",
            "a",
            "A",
            "0",
            "1.2.3.4",
            "123",
            "a-b.c-d",
            "ab--cd.com",
            "r4---sn-abc.example",
            "xn--bcher-kva.example",
            "xn--zz",
            "xn--",
            "xn--a",
            "xn--a-",
            "localhost",
            "LOCALHOST.",
            "www.EXAMPLE.org",
            "a*b",
            "a b",
            "a~b",
            "a!b",
            "a%41b",
            "%41",
            "a+b.com",
            "a=b",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        hosts.push("a".repeat(63));
        hosts.push("a".repeat(64));
        hosts.push(format!("{}.com", "b".repeat(63)));
        hosts.push(vec!["c".repeat(63); 4].join("."));
        hosts.push(format!("{}.", vec!["c".repeat(62); 4].join(".")));
        hosts.push(format!("{}.a", vec!["c".repeat(62); 4].join(".")));

        let alphabet = b"aAzZ09-._xXnN~!*";
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..400 {
            let len = (rng.next() % 12) as usize;
            let mut s = String::new();
            for _ in 0..len {
                s.push(alphabet[(rng.next() % alphabet.len() as u64) as usize] as char);
            }
            if rng.next() % 4 == 0 {
                s.insert_str(0, "xn--");
            }
            if rng.next() % 3 == 0 {
                s.push_str(".com");
            }
            if rng.next() % 5 == 0 {
                s.push('.');
            }
            hosts.push(s);
        }
        hosts
    }

    #[test]
    fn fast_path_agrees_with_slow_path() {
        let hosts = varied_hosts();
        assert!(hosts.len() >= 300);
        let mut fast_taken = 0;
        for h in &hosts {
            if is_valid_ldh_host(h.as_bytes()) {
                fast_taken += 1;
            }
            for form in [HostForm::Ascii, HostForm::Unicode] {
                assert_eq!(host(h, form), slow(h, form), "{h:?} {form:?}");
            }
        }
        // The test must exercise both paths.
        assert!(
            fast_taken > 50 && fast_taken < hosts.len() - 50,
            "{fast_taken}"
        );
        for h in ["a_b.com", "xn--nxasmq6b.com", "-a.com", "a..b"] {
            assert!(!is_valid_ldh_host(h.as_bytes()), "{h}");
        }
        assert!(is_valid_ldh_host(b"EXAMPLE.com."));
        assert_eq!(ascii("xn--nxasmq6b.com").unwrap(), "xn--nxasmq6b.com");
        assert_eq!(ascii("XN--NXASMQ6B.com").unwrap(), "xn--nxasmq6b.com");
    }

    /// What the slow path writes for `h` asked each way: `out`, and the ASCII form where
    /// it is wanted.
    fn slow_forms(
        h: &str,
        form: HostForm,
        wants_ascii: bool,
        map: fn(&str, HostForm, &mut String, Option<&mut String>) -> Result<Origin, IdnaFailure>,
    ) -> (Result<Origin, IdnaFailure>, String, String) {
        let (mut out, mut ascii) = (String::from("o|"), String::from("a|"));
        let r = map(h, form, &mut out, wants_ascii.then_some(&mut ascii));
        (r, out, ascii)
    }

    #[test]
    fn a_host_mapped_again_is_written_as_the_first_time() {
        let mut hosts = varied_hosts();
        hosts.extend(
            [
                "Bücher.example",
                "%E4%B8%AD%E5%9B%BD.example",
                "例え.テスト",
                "faß.de",
            ]
            .map(String::from),
        );
        hosts.push(format!("{}.example", "é".repeat(120)));
        // The empty host needs no mapping: `dns_host_slow` answers it before asking.
        for h in hosts.iter().filter(|h| !h.is_empty()) {
            for form in [HostForm::Ascii, HostForm::Unicode] {
                for wants_ascii in [false, true] {
                    let fresh = slow_forms(h, form, wants_ascii, map_host);
                    // The first call maps and keeps it; the second is written from this
                    // thread's recent hosts.
                    for _ in 0..2 {
                        let got = slow_forms(h, form, wants_ascii, dns_host_slow);
                        assert_eq!(got, fresh, "{h:?} {form:?} {wants_ascii}");
                    }
                }
            }
        }
    }

    #[test]
    fn both_forms_name_the_same_host() {
        let mut hosts = varied_hosts();
        hosts.extend(
            [
                "Bücher.example",
                "bücher.example.",
                "%E4%B8%AD%E5%9B%BD.example",
                "例え.テスト",
                "a．b",
                "ÖBB.at",
                "faß.de",
                "ΒΌΛΟΣ.gr",
                "βόλος.gr",
                "xn--nxasmq6b.com",
                "xn--fiqs8s.xn--fiqz9s",
                "мойдомен.рф",
                "עברית.example",
                "\u{0627}\u{0644}\u{0639}\u{0631}\u{0628}\u{064A}\u{0629}.example",
                "१२३.example",
                "ﬁ.example",
                "Ⅻ.example",
                "ab\u{0301}c.example",
                "a\u{200D}b.example",
                "\u{0915}\u{094D}\u{200D}.example",
                "straße.de",
                "xn--strae-oqa.de",
                "ａｂｃ．ｃｏｍ",
                "😀.example",
                "%F0%9F%98%80.example",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        let mut both = 0;
        for h in &hosts {
            let (Ok(a), Ok(u)) = (ascii(h), unicode(h)) else {
                continue;
            };
            both += 1;
            assert!(a.is_ascii(), "{h:?} -> {a:?}");
            assert_eq!(
                ascii(&a).as_deref(),
                Ok(a.as_str()),
                "ascii idempotent {h:?}"
            );
            assert_eq!(
                ascii(&u).as_deref(),
                Ok(a.as_str()),
                "ascii of unicode {h:?}"
            );
            assert_eq!(
                unicode(&a).as_deref(),
                Ok(u.as_str()),
                "unicode of ascii {h:?}"
            );
            assert_eq!(
                unicode(&u).as_deref(),
                Ok(u.as_str()),
                "unicode idempotent {h:?}"
            );
        }
        assert!(both > 100, "{both}");
    }
}
