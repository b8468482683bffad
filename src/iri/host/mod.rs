//! Hosts: IP literals (RFC 3986 §3.2.2, RFC 5952) and registered names through IDNA
//! (UTS #46 via the `idna` crate; RFC 3987 §3.1 and §5.3.3, RFC 3490 §4, RFC 5891 §4.2).
//!
//! This module owns everything that looks *inside* the `host` subcomponent once the
//! authority has been split into userinfo, host and port:
//!
//! * recognizing `IPv4address`, `IPv6address` and `IPvFuture` exactly as the ABNF of
//!   RFC 3986 §3.2.2 spells them ([`is_ipv4address`], [`parse_ipv6`], [`is_ipvfuture`]);
//! * writing an IPv6 address in the canonical text form of RFC 5952 §4 and §5
//!   ([`write_ipv6_rfc5952`]), or merely lowercasing an IP literal at the syntax-based rung
//!   of RFC 3986 §6.2.2.1 ([`lowercase_ip_literal`]);
//! * mapping a `reg-name` / `ireg-name` to its A-label (ToASCII) or U-label (ToUnicode) form
//!   ([`dns_host`]).
//!
//! Nothing here sees brackets, userinfo or a port: callers strip the `[` `]` around an
//! IP literal and split the `:port` off before calling in.
//!
//! Each concept has its file: `ip` (IP literals, RFC 3986 §3.2.2, RFC 5952), `ldh` (LDH
//! hosts, which need nothing but lowercasing) and `dns` (registered names through IDNA).
//! This module holds what they share (the forms of a name and how they were made, the
//! failure) and names their entry points.

mod dns;
mod ip;
mod ldh;
mod recent;

pub(crate) use dns::dns_host_forms;
pub use dns::{dns_host, to_ascii_host};
pub(crate) use ip::is_ipv4address_bytes;
pub use ip::{is_ipv4address, is_ipvfuture, lowercase_ip_literal, parse_ipv6, write_ipv6_rfc5952};
#[cfg(test)]
pub(crate) use ldh::is_valid_ldh_host;
pub(crate) use ldh::{has_ldh_label_shapes, is_ldh_byte, write_ldh_host};

/// Which form [`dns_host`] writes a registered name in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostForm {
    /// ToASCII: every non-ASCII label as an A-label (`xn--…`), RFC 3987 §3.1 /
    /// RFC 3490 §4.1; the form a URI carries.
    Ascii,
    /// ToUnicode: every A-label decoded to its U-label, RFC 3490 §4.2; the form
    /// RFC 3987 §5.3.3 recommends keeping in an IRI for legibility.
    Unicode,
}

/// Why a host could not be processed.
///
/// Returned by [`dns_host`] when the host is not a valid internationalized domain name
/// under the rules it documents (invalid percent-encoded UTF-8, a character STD3 rules
/// forbid, a hyphen in the wrong place, an empty or over-long label, bad Punycode, a
/// disallowed code point, a bidi or joiner rule violation, or a U-label form that an
/// `ireg-name` cannot carry raw).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdnaFailure;

/// How a host's forms were made ([`dns_host_forms`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Its labels are what UTS #46 makes of them without running it: the empty host, an
    /// LDH host (lowercased), or labels [`ulabel`](crate::iri::ulabel) keeps as they are. Each form gives the
    /// other back, label by label (an A-label is the Punycode of its U-label, one to one).
    Kept,
    /// UTS #46 made them.
    Uts46,
}
