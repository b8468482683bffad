//! The protocol rung (RFC 3987 §5.3.4): typed crawler rules and versioned profiles.
//!
//! RFC 3987 §5.3.4 ("protocol-based normalization") allows a comparison to use what a
//! protocol or a site actually does with a URI, beyond what the syntax and the scheme
//! specification say. Such rules are heuristics: each one can merge two references that
//! name different resources (a *false positive*, for deduplication a lost page). So here
//! every rule is off unless asked for, is one named, typed [`Action`] (parameter names and
//! globs, host scopes; never free-form regular expressions), and documents the false
//! positives it may cause.
//!
//! [`Rules`] run **after** the scheme rung, on its key: a valid reference in canonical form
//! (lowercase scheme and host, uppercase hex, unreserved characters decoded, dot segments
//! removed, default port dropped). They only move or remove pieces of that key; nothing is
//! ever percent-decoded here, so `%26`, `%3D`, `%2F` stay inside the parameter name or value
//! they belong to (RFC 3986 §2.2: reserved characters are never decoded).
//!
//! # Where a rule looks
//!
//! * **Query parameters.** The query is split on `&` only. `;` is *not* a separator (the
//!   HTML 4 recommendation to accept it is not what servers do today, and `;` is common in
//!   values). A parameter's name is the text before its first `=`, its value the text after
//!   it; `?a` (no value) and `?a=` (empty value) are different parameters and stay
//!   different. Empty parameters (`a=1&&b=2`, a trailing `&`) are kept as they are.
//! * **Path parameters.** Inside each path segment, `;` starts a parameter
//!   (`/a;jsessionid=ABC.node1/b`): its name is the text before the first `=`, its value
//!   runs to the next `;` or the end of the segment. An encoded `%3B` is not a separator.
//! * **Names** are matched against the name as written in the key, where unreserved
//!   characters are already decoded (so `utm%5Fsource` arrived as `utm_source`) and
//!   reserved ones are not (`a%3Db` is the name `a%3Db`, never `a=b`). Non-ASCII characters
//!   are compared in their percent-encoded UTF-8 form, so a rule gives the same result on a
//!   `uri` key and on an `iri` key. Matching is ASCII case-insensitive unless the rule says
//!   `match-case = true`.
//! * **Globs**: `*` matches any run of characters, including none (`utm_*`,
//!   `aspsessionid*`, `*_ref`); every other character is literal. There is no escape: a
//!   `*` in a pattern is always a wildcard.
//! * **The fragment is not a query**: `#utm_source=x` is never touched by a parameter rule;
//!   only [`Action::DropFragment`] removes it.
//!
//! # Host scopes
//!
//! Every rule may be limited to some hosts ([`HostScope`]): `example.com` matches that host
//! exactly, `*.example.com` matches its subdomains (`a.example.com`, `a.b.example.com`) but
//! not `example.com` itself (list both for both). Matching ignores ASCII case and a trailing
//! root dot, and compares IDNs in their A-label form, so scopes behave the same for `uri`
//! and `iri` keys. IP literals are written as keys write them (`[2001:db8::1]`, RFC 5952).
//! A reference without an authority has no host: a scoped rule never applies to it.
//!
//! # Order
//!
//! The order of rules in a file does not change the result, with one exception noted at
//! [`Action::TrailingSlash`]. Rules run in fixed stages so that [`Rules::apply`] is
//! idempotent (`apply(apply(k)) == apply(k)`):
//!
//! 1. host: [`Action::StripTrailingDot`], [`Action::StripWww`], repeated until the host
//!    stops changing (each scope checked against the host as it is at that moment);
//! 2. scheme: [`Action::HttpToHttps`];
//! 3. path: [`Action::LowercasePath`], then [`Action::DropPathParams`], then
//!    [`Action::TrailingSlash`];
//! 4. query: [`Action::DropParams`] and [`Action::KeepParams`] (filters), then
//!    [`Action::SortParams`], then [`Action::DropEmptyQuery`];
//! 5. fragment: [`Action::DropFragment`].
//!
//! Scopes of stages 2–5 are checked against the host that stage 1 produced.
//!
//! # Rules files (TOML)
//!
//! ```toml
//! version = 1                        # required: the schema version
//! description = "my crawl rules"     # optional, ignored
//!
//! [[rule]]
//! kind = "drop-params"               # required: one of the kinds below
//! names = ["utm_*", "gclid"]         # parameter names or globs
//! hosts = ["*.example.com"]          # optional scope (any rule)
//!
//! [[rule]]
//! kind = "drop-params"
//! names = ["sid"]
//! value-hex-length = 32              # only when the value is exactly 32 hex digits
//!
//! [[rule]]
//! kind = "sort-params"
//! ```
//!
//! | `kind` | keys besides `kind` and `hosts` | [`Action`] |
//! |---|---|---|
//! | `drop-params` | `names`, `match-case`, `value-hex-length`, `value-min-length` | [`Action::DropParams`] |
//! | `keep-params` | `names`, `match-case` | [`Action::KeepParams`] |
//! | `sort-params` | | [`Action::SortParams`] |
//! | `drop-empty-query` | | [`Action::DropEmptyQuery`] |
//! | `drop-path-params` | `names`, `match-case`, `value-hex-length`, `value-min-length` | [`Action::DropPathParams`] |
//! | `strip-trailing-dot` | | [`Action::StripTrailingDot`] |
//! | `strip-www` | `numbered` (default `false`) | [`Action::StripWww`] |
//! | `http-to-https` | | [`Action::HttpToHttps`] |
//! | `trailing-slash` | `policy` = `"add"`, `"remove"` or `"keep"` (required) | [`Action::TrailingSlash`] |
//! | `lowercase-path` | (`hosts` required) | [`Action::LowercasePath`] |
//! | `drop-fragment` | | [`Action::DropFragment`] |
//!
//! An unknown key, an unknown kind, a key that does not apply to the kind, a missing
//! required key, an empty `names` list or a malformed name or host gives a [`RulesError`]
//! with the line (and column) of the offending text.
//!
//! # Profiles
//!
//! [`Rules::profile`] returns a built-in, versioned rule set. A profile version never
//! changes once released (keys are stored for years, SPEC §4 "Stability of keys"); a
//! changed rule set is a new version. `crawler` names the newest `crawler@N`.
//!
//! * `crawler@1` (`profiles/crawler-1.toml`) holds only *fetch-safe* rules, whose false
//!   positives are rare and which keep a URL that fetches the same content: drop tracking
//!   parameters, drop session-id parameters (query and `;name=` path parameters), drop the
//!   fragment, drop an empty query, strip a trailing dot from the host. Sorting, `www.`
//!   stripping, `http`→`https` and trailing-slash rules are never in a default profile.

use std::fmt;

use serde::Deserialize;
use toml::Spanned;

use crate::iri::host::{self, HostForm};
use crate::iri::parse::{HostKind, IriRef};

// ---------------------------------------------------------------------------------------
// Rules and actions
// ---------------------------------------------------------------------------------------

/// One rule: what it does and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The rewrite.
    pub action: Action,
    /// The hosts it applies to (all when empty).
    pub scope: HostScope,
}

impl Rule {
    /// A rule that applies to every reference.
    pub fn new(action: Action) -> Rule {
        Rule {
            action,
            scope: HostScope::all(),
        }
    }

    /// The same rule limited to `scope`.
    pub fn scoped(self, scope: HostScope) -> Rule {
        Rule { scope, ..self }
    }
}

/// What a rule does. The name printed by `--explain` is [`Action::name`], the same as the
/// `kind` of a rules file.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Action {
    /// `drop-params`: remove every query parameter the filter matches.
    ///
    /// False positives: a parameter whose name matches but which selects content (a site
    /// that uses `sid` for a "story id", `ref` for a revision). Keep lists of names short and
    /// specific, use a value condition for generic names (`sid` only with a 32-hex-digit
    /// value), and scope site-specific names to their hosts.
    DropParams(ParamFilter),
    /// `keep-params`: remove every query parameter the filter does *not* match (an
    /// allow-list). Empty parameters (`&&`) are removed too: they have no listed name.
    ///
    /// False positives: any parameter the site needs and the list forgets merges pages
    /// (pagination `page`, search `q`). Only ever use it scoped to hosts whose parameters
    /// are known.
    KeepParams(ParamFilter),
    /// `sort-params`: sort query parameters by name (byte order of the name as written, so
    /// `B` sorts before `a`), stably: parameters with the same name keep their relative
    /// order (`a=2&a=1` stays), because the order of repeated names is meaningful to most
    /// servers (lists, `a[]=`).
    ///
    /// False positives: a server that reads parameters positionally or that treats the
    /// order of different names as meaningful (some signed URLs, CGI scripts reading the
    /// raw query). Not fetch-safe: never in a default profile.
    SortParams,
    /// `drop-empty-query`: remove the `?` of an empty query (`/a?` → `/a`), also one that
    /// became empty after parameters were dropped.
    ///
    /// False positives: RFC 3986 §6.2.3 keeps empty components unless the scheme allows
    /// otherwise. An HTTP server sees a different request target (`/a?` and `/a`); in
    /// practice servers ignore the difference, hence this is in the crawler profile.
    DropEmptyQuery,
    /// `drop-path-params`: remove matching `;name=value` parameters from every path segment
    /// (`/a;jsessionid=ABC.node1` → `/a`, `/x;v=1;jsessionid=2/y` → `/x;v=1/y`). The value
    /// runs to the next `;` or `/`, so a load-balancer route suffix (`.node1`) goes with it.
    ///
    /// False positives: a site that uses the matched name as a real matrix parameter. With
    /// session names (`jsessionid`, `phpsessid`) this is vanishingly rare.
    DropPathParams(ParamFilter),
    /// `strip-trailing-dot`: remove the root dot of a fully qualified host name
    /// (`example.com.` → `example.com`), all of them (`a..` → `a`). A host made of dots
    /// only (`.`, `..`) is left alone: removing them would leave an empty host.
    ///
    /// False positives: DNS resolves both names identically, but an HTTP server may route
    /// on the `Host` header literally and serve something else (often an error) for the
    /// dotted form. Merging is what a crawler wants.
    StripTrailingDot,
    /// `strip-www`: remove a leading `www.` label (`www.example.com` → `example.com`),
    /// repeatedly (`www.www.example.com` → `example.com`). With `numbered = true`, also
    /// `www` followed by digits (`www2.`, `www10.`); by default `www2.example.com` stays,
    /// because numbered hosts are often separate servers with different content.
    ///
    /// Guards: the label must be followed by at least two labels and the rest must not
    /// look like a public suffix, so `www.com`, `www.example` (one label left), `www.co.uk`
    /// and `www.com.au` (a two-letter country code under a common second-level label such
    /// as `co`, `com`, `ac`, `gov`, `org`, `net`, `edu`, `ne`, `or`, `go`) stay as they are.
    /// There is no Public Suffix List here: other suffixes (`www.github.io`) are stripped.
    /// A host that would end in an all-digit label (`www.1.2.3.4`) stays.
    ///
    /// False positives: `www.example.com` and `example.com` are different hosts in DNS and
    /// can serve different sites (common for universities and intranets). Opt-in only.
    StripWww {
        /// Also strip `www` followed by one or more digits.
        numbered: bool,
    },
    /// `http-to-https`: write the scheme `http` as `https` (and drop an explicit `:443`,
    /// now the default port).
    ///
    /// False positives: sites that serve different content, or none, over TLS; an explicit
    /// port (`http://a:8080/`) is kept and then names a TLS service that may not exist.
    /// Opt-in only.
    HttpToHttps,
    /// `trailing-slash`: the policy for a slash at the end of a non-root absolute path.
    /// `add` appends `/` unless the last segment contains a `.` (looks like a file name);
    /// `remove` removes every trailing `/` except a lone root `/`; `keep` leaves paths
    /// alone. Only the *first* trailing-slash rule (in file order) whose scope matches the
    /// host applies, so a scoped `keep` before a general `remove` makes an exception.
    ///
    /// False positives: `/dir/` and `/dir` are different resources to HTTP; many servers
    /// redirect one to the other, some serve different pages or an error. Opt-in only.
    TrailingSlash(SlashPolicy),
    /// `lowercase-path`: ASCII letters of the path to lowercase (percent-encodings keep
    /// their uppercase hex; non-ASCII letters are left alone). A rules file must scope it
    /// to hosts (`hosts = [...]`) that are known to be case-insensitive (IIS and other
    /// servers on case-insensitive file systems).
    ///
    /// False positives: on a case-sensitive server `/A` and `/a` are different pages.
    LowercasePath,
    /// `drop-fragment`: remove the fragment. RFC 3987 §5.1: comparisons that select a
    /// network action exclude fragments, which are never sent to the server.
    ///
    /// False positives: single-page applications that route on the fragment (`#!/page`)
    /// serve different content per fragment client-side.
    DropFragment,
}

impl Action {
    /// The stable name of the action: the `kind` of a rules file, printed by `--explain`.
    pub fn name(&self) -> &'static str {
        match self {
            Action::DropParams(_) => "drop-params",
            Action::KeepParams(_) => "keep-params",
            Action::SortParams => "sort-params",
            Action::DropEmptyQuery => "drop-empty-query",
            Action::DropPathParams(_) => "drop-path-params",
            Action::StripTrailingDot => "strip-trailing-dot",
            Action::StripWww { .. } => "strip-www",
            Action::HttpToHttps => "http-to-https",
            Action::TrailingSlash(_) => "trailing-slash",
            Action::LowercasePath => "lowercase-path",
            Action::DropFragment => "drop-fragment",
        }
    }
}

/// The policy of [`Action::TrailingSlash`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlashPolicy {
    /// Append `/` to a path whose last segment has no `.`.
    Add,
    /// Remove trailing slashes (never the root `/`).
    Remove,
    /// Leave the path alone (an exception to a later, broader rule).
    Keep,
}

/// A condition on a parameter's value, for generic names. All given conditions must hold;
/// a parameter without `=` has no value and fails any condition.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ValueCondition {
    /// The value is exactly this many hex digits (either case): `sid` with a PHP session
    /// id, not `sid=12` (a story id).
    pub hex_length: Option<u32>,
    /// The value stands for at least this many octets: its bytes in the key, a `%XX`
    /// counting once, so that `uri` and `iri` keys (`%F0%9F%8D%A3` or `🍣`) agree.
    pub min_length: Option<u32>,
}

impl ValueCondition {
    /// Whether any condition is set.
    pub fn is_any(&self) -> bool {
        self.hex_length.is_none() && self.min_length.is_none()
    }

    fn holds(&self, value: Option<&str>) -> bool {
        if self.is_any() {
            return true;
        }
        let Some(v) = value else { return false };
        if let Some(n) = self.hex_length {
            if v.len() != n as usize || !v.bytes().all(|b| b.is_ascii_hexdigit()) {
                return false;
            }
        }
        if let Some(n) = self.min_length {
            // Every '%' of a key starts a triplet.
            let pct = v.bytes().filter(|&b| b == b'%').count();
            if v.len().saturating_sub(2 * pct) < n as usize {
                return false;
            }
        }
        true
    }
}

/// Which parameters a parameter rule matches: name globs, case sensitivity, and a value
/// condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamFilter {
    /// The patterns, in their matching form (non-ASCII percent-encoded, hex uppercase,
    /// lowercased unless `match_case`).
    names: Vec<String>,
    match_case: bool,
    value: ValueCondition,
}

impl ParamFilter {
    /// A filter for these names or globs, ASCII case-insensitive, any value.
    ///
    /// A pattern must be non-empty and may not contain `&`, `=`, `#`, spaces or control
    /// characters (they cannot occur in a parameter name); a `%` must start a `%XX`
    /// triplet.
    pub fn new<S: AsRef<str>>(names: &[S]) -> Result<ParamFilter, String> {
        Self::with(names, false, ValueCondition::default())
    }

    /// A filter with explicit case sensitivity and value condition.
    pub fn with<S: AsRef<str>>(
        names: &[S],
        match_case: bool,
        value: ValueCondition,
    ) -> Result<ParamFilter, String> {
        if names.is_empty() {
            return Err("`names` must list at least one name".into());
        }
        let mut out = Vec::with_capacity(names.len());
        for n in names {
            out.push(compile_pattern(n.as_ref(), match_case)?);
        }
        Ok(ParamFilter {
            names: out,
            match_case,
            value,
        })
    }

    /// Whether the filter matches `param` (`name`, `name=` or `name=value`).
    pub fn matches(&self, param: &str) -> bool {
        let (name, value) = match param.find('=') {
            Some(i) => (&param[..i], Some(&param[i + 1..])),
            None => (param, None),
        };
        self.matches_name(name) && self.value.holds(value)
    }

    fn matches_name(&self, name: &str) -> bool {
        let encoded;
        let name = if name.is_ascii() {
            name.as_bytes()
        } else {
            let mut s = String::with_capacity(name.len() * 3);
            push_ascii_form(name, &mut s);
            encoded = s;
            encoded.as_bytes()
        };
        let ci = !self.match_case;
        self.names
            .iter()
            .any(|p| glob_match(p.as_bytes(), name, ci))
    }
}

/// Writes `s` with every non-ASCII character as percent-encoded UTF-8 (uppercase hex).
fn push_ascii_form(s: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for c in s.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for &b in c.encode_utf8(&mut buf).as_bytes() {
                out.push('%');
                out.push(HEX[usize::from(b >> 4)] as char);
                out.push(HEX[usize::from(b & 15)] as char);
            }
        }
    }
}

/// Checks a name pattern and puts it in matching form.
fn compile_pattern(p: &str, match_case: bool) -> Result<String, String> {
    if p.is_empty() {
        return Err("an empty parameter name".into());
    }
    let b = p.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if matches!(c, b'&' | b'=' | b'#') || c <= b' ' || c == 0x7F {
            return Err(format!(
                "`{p}`: {:?} cannot occur in a parameter name",
                c as char
            ));
        }
        if c == b'%'
            && !(i + 2 < b.len() && b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit())
        {
            return Err(format!("`{p}`: '%' must start a %XX triplet"));
        }
    }
    let mut s = String::with_capacity(p.len());
    push_ascii_form(p, &mut s);
    // Hex digits of percent-encodings in uppercase, as keys write them.
    let mut bytes = s.into_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            bytes[i + 1] = bytes[i + 1].to_ascii_uppercase();
            bytes[i + 2] = bytes[i + 2].to_ascii_uppercase();
            i += 3;
        } else {
            i += 1;
        }
    }
    if !match_case {
        bytes.make_ascii_lowercase();
    }
    Ok(String::from_utf8(bytes).unwrap_or_default())
}

/// `*`-glob match of `s` against pattern `p`; with `ci`, `p` is lowercase and `s` is
/// compared ASCII case-insensitively. Linear in practice (single-star backtracking).
fn glob_match(p: &[u8], s: &[u8], ci: bool) -> bool {
    let eq = |a: u8, b: u8| {
        if ci {
            a == b.to_ascii_lowercase()
        } else {
            a == b
        }
    };
    let (mut pi, mut si) = (0usize, 0usize);
    let mut star: Option<usize> = None;
    let mut mark = 0usize;
    while si < s.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some(pi);
            pi += 1;
            mark = si;
        } else if pi < p.len() && eq(p[pi], s[si]) {
            pi += 1;
            si += 1;
        } else if let Some(st) = star {
            pi = st + 1;
            mark += 1;
            si = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == b'*' {
        pi += 1;
    }
    pi == p.len()
}

// ---------------------------------------------------------------------------------------
// Host scopes
// ---------------------------------------------------------------------------------------

/// One host pattern of a [`HostScope`], in matching form (lowercase, A-labels, no trailing
/// dot).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostPattern {
    /// Exactly this host.
    Exact(String),
    /// Any strict subdomain of this host (`*.example.com`).
    Subdomains(String),
}

/// The hosts a rule applies to: all hosts when empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostScope {
    patterns: Vec<HostPattern>,
}

impl HostScope {
    /// Every reference, with or without a host.
    pub fn all() -> HostScope {
        HostScope::default()
    }

    /// The hosts matching any of `patterns` (`example.com`, `*.example.com`, an IPv4
    /// address or an IP literal in brackets). IDNs may be given in either form.
    pub fn new<S: AsRef<str>>(patterns: &[S]) -> Result<HostScope, String> {
        let mut out = Vec::with_capacity(patterns.len());
        for p in patterns {
            out.push(compile_host_pattern(p.as_ref())?);
        }
        Ok(HostScope { patterns: out })
    }

    /// Whether the scope is unrestricted.
    pub fn is_all(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Whether the scope admits `host` (in matching form: see [`scope_form`]); `None` for a
    /// reference without an authority.
    fn admits(&self, host: Option<&str>) -> bool {
        if self.patterns.is_empty() {
            return true;
        }
        let Some(h) = host else { return false };
        self.patterns.iter().any(|p| match p {
            HostPattern::Exact(e) => h == e,
            HostPattern::Subdomains(s) => {
                h.len() > s.len() + 1
                    && h.ends_with(s.as_str())
                    && h.as_bytes()[h.len() - s.len() - 1] == b'.'
            }
        })
    }

    /// Whether `host` (as written in a key) is in the scope.
    pub fn matches(&self, host: Option<&str>) -> bool {
        if self.patterns.is_empty() {
            return true;
        }
        let form = host.map(scope_form);
        self.admits(form.as_deref())
    }
}

fn compile_host_pattern(p: &str) -> Result<HostPattern, String> {
    let (sub, body) = match p.strip_prefix("*.") {
        Some(rest) => (true, rest),
        None => (false, p),
    };
    let body = body.strip_suffix('.').unwrap_or(body);
    if body.is_empty() {
        return Err(format!("`{p}`: an empty host"));
    }
    if let Some(inner) = body.strip_prefix('[').and_then(|b| b.strip_suffix(']')) {
        if sub {
            return Err(format!("`{p}`: `*.` cannot precede an IP literal"));
        }
        let mut s = String::from("[");
        match host::parse_ipv6(inner) {
            Some(a) => host::write_ipv6_rfc5952(&a, &mut s),
            None => s.push_str(&inner.to_ascii_lowercase()),
        }
        s.push(']');
        return Ok(HostPattern::Exact(s));
    }
    if let Some(c) = body
        .chars()
        .find(|&c| matches!(c, '*' | '/' | '?' | '#' | '@' | ':' | '[' | ']') || c <= ' ')
    {
        return Err(format!(
            "`{p}`: {c:?} cannot occur in a host pattern (write `example.com` or `*.example.com`)"
        ));
    }
    let mut s = String::new();
    if body.is_ascii() {
        s.push_str(&body.to_ascii_lowercase());
    } else if host::dns_host(body, HostForm::Ascii, &mut s).is_err() {
        return Err(format!("`{p}`: not a valid internationalized host name"));
    }
    Ok(if sub {
        HostPattern::Subdomains(s)
    } else {
        HostPattern::Exact(s)
    })
}

/// A host in the form scopes compare: ASCII lowercase, IDNs as A-labels, no trailing dot.
fn scope_form(host: &str) -> String {
    let h = host.strip_suffix('.').unwrap_or(host);
    if h.is_ascii() {
        return h.to_ascii_lowercase();
    }
    let mut s = String::new();
    if host::dns_host(h, HostForm::Ascii, &mut s).is_err() {
        s.clear();
        s.push_str(h);
    }
    let t = s.strip_suffix('.').map(str::len).unwrap_or(s.len());
    s.truncate(t);
    s
}

// ---------------------------------------------------------------------------------------
// Rule sets
// ---------------------------------------------------------------------------------------

/// The `crawler@1` profile.
const CRAWLER_1: &str = include_str!("../../profiles/crawler-1.toml");

/// The built-in profiles: (name, canonical name, TOML text). `crawler` is the newest
/// `crawler@N`.
const PROFILES: &[(&str, &str, &str)] = &[
    ("crawler", "crawler@1", CRAWLER_1),
    ("crawler@1", "crawler@1", CRAWLER_1),
];

/// A set of protocol rules, from a rules file ([`Rules::from_toml`]), a built-in profile
/// ([`Rules::profile`]) or code ([`Rules::new`]).
///
/// ```
/// use irinorm::ladder::protocol::Rules;
/// let rules = Rules::profile("crawler").unwrap();
/// let mut out = String::new();
/// let mut fired = Vec::new();
/// rules.apply("http://example.com./a;jsessionid=0A1B.n1?utm_source=x&id=7#top", &mut out, &mut fired);
/// assert_eq!(out, "http://example.com/a?id=7");
/// assert_eq!(fired, ["strip-trailing-dot", "drop-path-params", "drop-params", "drop-fragment"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rules {
    rules: Vec<Rule>,
    scoped: bool,
    profile: Option<&'static str>,
}

impl Rules {
    /// A rule set from rules built in code.
    pub fn new(rules: Vec<Rule>) -> Rules {
        let scoped = rules.iter().any(|r| !r.scope.is_all());
        Rules {
            rules,
            scoped,
            profile: None,
        }
    }

    /// The rules, in the order given.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Whether there are no rules (then [`Rules::apply`] copies keys unchanged).
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The canonical name of the built-in profile this set came from (`crawler@1`), if any.
    pub fn profile_name(&self) -> Option<&'static str> {
        self.profile
    }

    /// The names [`Rules::profile`] accepts.
    pub fn profile_names() -> impl Iterator<Item = &'static str> {
        PROFILES.iter().map(|p| p.0)
    }

    /// A built-in profile by name: `crawler@1`, or `crawler` for the newest `crawler@N`.
    pub fn profile(name: &str) -> Option<Rules> {
        let &(_, canonical, text) = PROFILES.iter().find(|p| p.0 == name)?;
        let mut rules = Rules::from_toml(text).ok()?;
        rules.profile = Some(canonical);
        Some(rules)
    }

    /// Parses a rules file (the schema is in the [module documentation](self)).
    pub fn from_toml(text: &str) -> Result<Rules, RulesError> {
        let file: RawFile =
            toml::from_str(text).map_err(|e| RulesError::at(text, e.span(), e.message()))?;
        if *file.version.get_ref() != 1 {
            return Err(RulesError::at(
                text,
                Some(file.version.span()),
                &format!(
                    "unsupported rules version {} (this build reads version 1)",
                    file.version.get_ref()
                ),
            ));
        }
        let mut rules = Vec::with_capacity(file.rule.len());
        for raw in &file.rule {
            rules.push(raw.get_ref().to_rule(text, raw.span())?);
        }
        Ok(Rules::new(rules))
    }

    /// Applies the rules to `key` (a key of the scheme rung, in `uri` or `iri` form) and
    /// appends the result to `out`. The name of each action that changed something is
    /// pushed to `fired` (once per name, in stage order), for `--explain`.
    ///
    /// Idempotent: applying the rules to the result gives the result. A `key` that does
    /// not parse as an IRI reference is appended unchanged.
    pub fn apply(&self, key: &str, out: &mut String, fired: &mut Vec<&'static str>) {
        if self.rules.is_empty() {
            out.push_str(key);
            return;
        }
        let Ok(v) = IriRef::parse(key) else {
            out.push_str(key);
            return;
        };

        // 1. Host.
        let mut host = v.host();
        if let Some(h) = host {
            if v.host_kind() == HostKind::RegName {
                host = Some(self.host_stage(h, fired));
            }
        }
        let scope_host = if self.scoped {
            host.map(scope_form)
        } else {
            None
        };
        let sh = scope_host.as_deref();
        let in_scope = |r: &Rule| !self.scoped || r.scope.admits(sh);

        // 2. Scheme.
        let mut scheme = v.scheme();
        let mut port = v.port();
        if let Some(s) = scheme {
            if s.eq_ignore_ascii_case("http")
                && self
                    .rules
                    .iter()
                    .any(|r| matches!(r.action, Action::HttpToHttps) && in_scope(r))
            {
                scheme = Some("https");
                if port == Some("443") {
                    port = None;
                }
                fire(fired, "http-to-https");
            }
        }
        if let Some(s) = scheme {
            out.push_str(s);
            out.push(':');
        }
        let has_authority = v.authority().is_some();
        if has_authority {
            out.push_str("//");
            if let Some(u) = v.userinfo() {
                out.push_str(u);
                out.push('@');
            }
            out.push_str(host.unwrap_or(""));
            if let Some(p) = port {
                out.push(':');
                out.push_str(p);
            }
        }

        // 3. Path.
        self.path_stage(v.path(), has_authority, &in_scope, out, fired);

        // 4. Query.
        if let Some(q) = v.query() {
            self.query_stage(q, &in_scope, out, fired);
        }

        // 5. Fragment.
        if let Some(f) = v.fragment() {
            if self
                .rules
                .iter()
                .any(|r| matches!(r.action, Action::DropFragment) && in_scope(r))
            {
                fire(fired, "drop-fragment");
            } else {
                out.push('#');
                out.push_str(f);
            }
        }
    }

    /// [`Rules::apply`] into a new string, without the list of rules that fired.
    pub fn apply_to_string(&self, key: &str) -> String {
        let mut out = String::with_capacity(key.len());
        self.apply(key, &mut out, &mut Vec::new());
        out
    }

    /// Stage 1: trailing dots and `www` labels, until the host stops changing. The result
    /// is always a suffix of a prefix of `host`.
    fn host_stage<'k>(&self, mut host: &'k str, fired: &mut Vec<&'static str>) -> &'k str {
        if !self
            .rules
            .iter()
            .any(|r| matches!(r.action, Action::StripTrailingDot | Action::StripWww { .. }))
        {
            return host;
        }
        loop {
            let before = host.len();
            for r in &self.rules {
                let applies = |h: &str| r.scope.is_all() || r.scope.matches(Some(h));
                match r.action {
                    Action::StripTrailingDot => {
                        let trimmed = host.trim_end_matches('.');
                        if !trimmed.is_empty() && trimmed.len() < host.len() && applies(host) {
                            host = trimmed;
                            fire(fired, "strip-trailing-dot");
                        }
                    }
                    Action::StripWww { numbered } => {
                        while let Some(rest) = strip_www(host, numbered) {
                            if !applies(host) {
                                break;
                            }
                            host = rest;
                            fire(fired, "strip-www");
                        }
                    }
                    _ => {}
                }
            }
            if host.len() == before {
                return host;
            }
        }
    }

    /// Stage 3: lowercase, path parameters, trailing slash.
    fn path_stage(
        &self,
        path: &str,
        has_authority: bool,
        in_scope: &dyn Fn(&Rule) -> bool,
        out: &mut String,
        fired: &mut Vec<&'static str>,
    ) {
        let start = out.len();
        let lowered;
        let mut path = path;
        if self
            .rules
            .iter()
            .any(|r| matches!(r.action, Action::LowercasePath) && in_scope(r))
        {
            lowered = lowercase_path(path);
            if lowered != path {
                fire(fired, "lowercase-path");
            }
            path = &lowered;
        }

        let mut dropped = false;
        if path.contains(';')
            && self
                .rules
                .iter()
                .any(|r| matches!(r.action, Action::DropPathParams(_)) && in_scope(r))
        {
            for (i, segment) in path.split('/').enumerate() {
                if i > 0 {
                    out.push('/');
                }
                let mut parts = segment.split(';');
                out.push_str(parts.next().unwrap_or(""));
                for param in parts {
                    let drop = self.rules.iter().any(|r| match &r.action {
                        Action::DropPathParams(f) => in_scope(r) && f.matches(param),
                        _ => false,
                    });
                    if drop {
                        dropped = true;
                    } else {
                        out.push(';');
                        out.push_str(param);
                    }
                }
            }
            if dropped {
                fire(fired, "drop-path-params");
                // Without an authority, a path may not start with "//" (it would be read as
                // one): write "/." first, as the scheme rung does (RFC 3986 §5.2.4, §5.3).
                if !has_authority && out[start..].starts_with("//") {
                    out.insert_str(start, "/.");
                }
            }
        } else {
            out.push_str(path);
        }

        // The first trailing-slash rule in scope decides.
        let policy = self.rules.iter().find_map(|r| match r.action {
            Action::TrailingSlash(p) if in_scope(r) => Some(p),
            _ => None,
        });
        if let Some(policy) = policy {
            let p = &out[start..];
            if p.starts_with('/') {
                match policy {
                    SlashPolicy::Remove => {
                        let keep = p.trim_end_matches('/').len().max(1);
                        if keep < p.len() {
                            out.truncate(start + keep);
                            fire(fired, "trailing-slash");
                        }
                    }
                    SlashPolicy::Add => {
                        let last = &p[p.rfind('/').map_or(0, |i| i + 1)..];
                        if !last.is_empty() && !last.contains('.') {
                            out.push('/');
                            fire(fired, "trailing-slash");
                        }
                    }
                    SlashPolicy::Keep => {}
                }
            }
        }
    }

    /// Stage 4: filters, sorting, empty query.
    fn query_stage(
        &self,
        query: &str,
        in_scope: &dyn Fn(&Rule) -> bool,
        out: &mut String,
        fired: &mut Vec<&'static str>,
    ) {
        let mut filters = false;
        let mut sort = false;
        let mut drop_empty = false;
        for r in self.rules.iter().filter(|r| in_scope(r)) {
            match r.action {
                Action::DropParams(_) | Action::KeepParams(_) => filters = true,
                Action::SortParams => sort = true,
                Action::DropEmptyQuery => drop_empty = true,
                _ => {}
            }
        }
        let start = out.len();
        out.push('?');
        if !filters && !sort {
            out.push_str(query);
        } else {
            let mut dropped_by_drop = false;
            let mut dropped_by_keep = false;
            let keep = |param: &str, by_drop: &mut bool, by_keep: &mut bool| -> bool {
                if !filters {
                    return true;
                }
                for r in &self.rules {
                    match &r.action {
                        Action::DropParams(f) if in_scope(r) && f.matches(param) => {
                            *by_drop = true;
                            return false;
                        }
                        _ => {}
                    }
                }
                for r in &self.rules {
                    match &r.action {
                        Action::KeepParams(f) if in_scope(r) && !f.matches(param) => {
                            *by_keep = true;
                            return false;
                        }
                        _ => {}
                    }
                }
                true
            };
            if sort {
                let mut kept: Vec<&str> = query
                    .split('&')
                    .filter(|p| keep(p, &mut dropped_by_drop, &mut dropped_by_keep))
                    .collect();
                fire_filters(fired, dropped_by_drop, dropped_by_keep);
                let sorted_already = kept
                    .windows(2)
                    .all(|w| param_name(w[0]) <= param_name(w[1]));
                if !sorted_already {
                    kept.sort_by(|a, b| param_name(a).cmp(param_name(b)));
                    fire(fired, "sort-params");
                }
                for (i, p) in kept.iter().enumerate() {
                    if i > 0 {
                        out.push('&');
                    }
                    out.push_str(p);
                }
            } else {
                let mut first = true;
                for p in query.split('&') {
                    if keep(p, &mut dropped_by_drop, &mut dropped_by_keep) {
                        if !first {
                            out.push('&');
                        }
                        first = false;
                        out.push_str(p);
                    }
                }
                fire_filters(fired, dropped_by_drop, dropped_by_keep);
            }
        }
        if drop_empty && out.len() == start + 1 {
            out.truncate(start);
            fire(fired, "drop-empty-query");
        }
    }
}

/// The name of a query parameter: the text before its first `=`.
fn param_name(p: &str) -> &str {
    p.find('=').map_or(p, |i| &p[..i])
}

fn fire_filters(fired: &mut Vec<&'static str>, by_drop: bool, by_keep: bool) {
    if by_drop {
        fire(fired, "drop-params");
    }
    if by_keep {
        fire(fired, "keep-params");
    }
}

fn fire(fired: &mut Vec<&'static str>, name: &'static str) {
    if !fired.contains(&name) {
        fired.push(name);
    }
}

/// ASCII letters to lowercase, except the hex digits of `%XX`.
fn lowercase_path(path: &str) -> String {
    let mut b = path.as_bytes().to_vec();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            i += 3;
        } else {
            b[i] = b[i].to_ascii_lowercase();
            i += 1;
        }
    }
    // Only ASCII bytes changed, so the text is still UTF-8.
    String::from_utf8(b).unwrap_or_else(|_| path.to_owned())
}

/// Second-level labels that, under a two-letter country code, usually form a public suffix
/// (`co.uk`, `com.au`, `ac.jp`, `ne.jp`, `gob.mx`, `gouv.fr`): `www.` before them is kept.
const CC_SECOND_LEVEL: &[&str] = &[
    "ac", "co", "com", "edu", "go", "gob", "gouv", "gov", "ltd", "mil", "ne", "net", "nom", "or",
    "org", "plc", "sch",
];

/// The host without its leading `www` label, when [`Action::StripWww`] allows it.
fn strip_www(host: &str, numbered: bool) -> Option<&str> {
    let dot = host.find('.')?;
    let label = &host[..dot];
    let is_www = label.len() >= 3 && label[..3].eq_ignore_ascii_case("www") && {
        let digits = &label[3..];
        digits.is_empty() || (numbered && digits.bytes().all(|b| b.is_ascii_digit()))
    };
    if !is_www {
        return None;
    }
    let rest = &host[dot + 1..];
    let body = rest.strip_suffix('.').unwrap_or(rest);
    let labels: Vec<&str> = body.split('.').collect();
    if labels.len() < 2 || labels.iter().any(|l| l.is_empty()) {
        return None;
    }
    let last = labels[labels.len() - 1];
    if last.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if labels.len() == 2
        && last.len() == 2
        && last.bytes().all(|b| b.is_ascii_alphabetic())
        && CC_SECOND_LEVEL
            .iter()
            .any(|s| s.eq_ignore_ascii_case(labels[0]))
    {
        return None;
    }
    Some(rest)
}

// ---------------------------------------------------------------------------------------
// Rules files
// ---------------------------------------------------------------------------------------

/// A rules file that could not be read: where and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RulesError {
    /// The line of the offending text, from 1.
    pub line: usize,
    /// The column (in characters) of the offending text, from 1.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl RulesError {
    fn at(text: &str, span: Option<std::ops::Range<usize>>, message: &str) -> RulesError {
        let start = span.map_or(0, |s| s.start).min(text.len());
        // A span may start inside a multi-byte character only if the parser gave one;
        // step back to a boundary to be safe.
        let mut start = start;
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        let before = &text[..start];
        let line = before.matches('\n').count() + 1;
        let column = before
            .rfind('\n')
            .map_or(before, |i| &before[i + 1..])
            .chars()
            .count()
            + 1;
        RulesError {
            line,
            column,
            message: message.trim_end().replace('\n', "; "),
        }
    }
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for RulesError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    version: Spanned<i64>,
    #[serde(default)]
    #[allow(dead_code)]
    description: Option<String>,
    #[serde(default)]
    rule: Vec<Spanned<RawRule>>,
}

type SpannedList = Spanned<Vec<Spanned<String>>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawRule {
    kind: Spanned<String>,
    names: Option<SpannedList>,
    match_case: Option<Spanned<bool>>,
    value_hex_length: Option<Spanned<u32>>,
    value_min_length: Option<Spanned<u32>>,
    hosts: Option<SpannedList>,
    numbered: Option<Spanned<bool>>,
    policy: Option<Spanned<String>>,
}

/// The keys a kind accepts besides `kind` and `hosts`.
const KIND_KEYS: &[(&str, &[&str])] = &[
    (
        "drop-params",
        &[
            "names",
            "match-case",
            "value-hex-length",
            "value-min-length",
        ],
    ),
    ("keep-params", &["names", "match-case"]),
    ("sort-params", &[]),
    ("drop-empty-query", &[]),
    (
        "drop-path-params",
        &[
            "names",
            "match-case",
            "value-hex-length",
            "value-min-length",
        ],
    ),
    ("strip-trailing-dot", &[]),
    ("strip-www", &["numbered"]),
    ("http-to-https", &[]),
    ("trailing-slash", &["policy"]),
    ("lowercase-path", &[]),
    ("drop-fragment", &[]),
];

impl RawRule {
    fn to_rule(&self, text: &str, span: std::ops::Range<usize>) -> Result<Rule, RulesError> {
        let err = |s: std::ops::Range<usize>, m: String| RulesError::at(text, Some(s), &m);
        let kind = self.kind.get_ref().as_str();
        let Some(&(_, allowed)) = KIND_KEYS.iter().find(|k| k.0 == kind) else {
            let kinds: Vec<&str> = KIND_KEYS.iter().map(|k| k.0).collect();
            return Err(err(
                self.kind.span(),
                format!(
                    "unknown rule kind `{kind}`, expected one of {}",
                    kinds.join(", ")
                ),
            ));
        };
        // Keys given that the kind does not take.
        let given: [(&str, Option<std::ops::Range<usize>>); 6] = [
            ("names", self.names.as_ref().map(Spanned::span)),
            ("match-case", self.match_case.as_ref().map(Spanned::span)),
            (
                "value-hex-length",
                self.value_hex_length.as_ref().map(Spanned::span),
            ),
            (
                "value-min-length",
                self.value_min_length.as_ref().map(Spanned::span),
            ),
            ("numbered", self.numbered.as_ref().map(Spanned::span)),
            ("policy", self.policy.as_ref().map(Spanned::span)),
        ];
        for (key, s) in given {
            if let Some(s) = s {
                if !allowed.contains(&key) {
                    return Err(err(
                        s,
                        format!("key `{key}` does not apply to rule kind `{kind}`"),
                    ));
                }
            }
        }

        let scope = match &self.hosts {
            None => HostScope::all(),
            Some(list) => {
                if list.get_ref().is_empty() {
                    return Err(err(
                        list.span(),
                        "`hosts` must list at least one host (leave it out for all hosts)".into(),
                    ));
                }
                let mut patterns = Vec::new();
                for h in list.get_ref() {
                    patterns.push(compile_host_pattern(h.get_ref()).map_err(|m| err(h.span(), m))?);
                }
                HostScope { patterns }
            }
        };

        let filter = || -> Result<ParamFilter, RulesError> {
            let Some(names) = &self.names else {
                return Err(err(
                    span.clone(),
                    format!("rule kind `{kind}` needs `names`"),
                ));
            };
            if names.get_ref().is_empty() {
                return Err(err(
                    names.span(),
                    "`names` must list at least one name".into(),
                ));
            }
            let match_case = self.match_case.as_ref().is_some_and(|m| *m.get_ref());
            let value = ValueCondition {
                hex_length: self.value_hex_length.as_ref().map(|v| *v.get_ref()),
                min_length: self.value_min_length.as_ref().map(|v| *v.get_ref()),
            };
            let mut compiled = Vec::new();
            for n in names.get_ref() {
                compiled
                    .push(compile_pattern(n.get_ref(), match_case).map_err(|m| err(n.span(), m))?);
            }
            Ok(ParamFilter {
                names: compiled,
                match_case,
                value,
            })
        };

        let action = match kind {
            "drop-params" => Action::DropParams(filter()?),
            "keep-params" => Action::KeepParams(filter()?),
            "sort-params" => Action::SortParams,
            "drop-empty-query" => Action::DropEmptyQuery,
            "drop-path-params" => {
                let f = filter()?;
                for (n, raw) in f
                    .names
                    .iter()
                    .zip(self.names.iter().flat_map(|l| l.get_ref()))
                {
                    if n.contains([';', '/', '?']) {
                        return Err(err(
                            raw.span(),
                            format!(
                                "`{}`: a path parameter name cannot contain ';', '/' or '?'",
                                raw.get_ref()
                            ),
                        ));
                    }
                }
                Action::DropPathParams(f)
            }
            "strip-trailing-dot" => Action::StripTrailingDot,
            "strip-www" => Action::StripWww {
                numbered: self.numbered.as_ref().is_some_and(|n| *n.get_ref()),
            },
            "http-to-https" => Action::HttpToHttps,
            "trailing-slash" => {
                let Some(p) = &self.policy else {
                    return Err(err(
                        span,
                        "rule kind `trailing-slash` needs `policy` (\"add\", \"remove\" or \"keep\")".into(),
                    ));
                };
                Action::TrailingSlash(match p.get_ref().as_str() {
                    "add" => SlashPolicy::Add,
                    "remove" => SlashPolicy::Remove,
                    "keep" => SlashPolicy::Keep,
                    other => {
                        return Err(err(
                            p.span(),
                            format!(
                            "unknown policy `{other}`, expected \"add\", \"remove\" or \"keep\""
                        ),
                        ))
                    }
                })
            }
            "lowercase-path" => {
                if scope.is_all() {
                    return Err(err(
                        span,
                        "rule kind `lowercase-path` needs `hosts`: lowercase paths only of hosts known to be case-insensitive".into(),
                    ));
                }
                Action::LowercasePath
            }
            "drop-fragment" => Action::DropFragment,
            _ => unreachable!("kind checked against KIND_KEYS"),
        };
        Ok(Rule { action, scope })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(rules: &Rules, key: &str) -> String {
        rules.apply_to_string(key)
    }

    #[test]
    fn glob() {
        assert!(glob_match(b"utm_*", b"utm_source", false));
        assert!(glob_match(b"utm_*", b"UTM_x", true));
        assert!(!glob_match(b"utm_*", b"utm", true));
        assert!(glob_match(b"*", b"", true));
        assert!(glob_match(b"a*b*c", b"axxbyyc", false));
        assert!(!glob_match(b"a*b*c", b"axxbyy", false));
        assert!(glob_match(b"*id", b"gclid", false));
    }

    #[test]
    fn crawler_profile_parses() {
        let r = Rules::profile("crawler").unwrap();
        assert_eq!(r.profile_name(), Some("crawler@1"));
        assert_eq!(Rules::profile("crawler@1").unwrap().rules(), r.rules());
        assert!(Rules::profile("crawler@0").is_none());
        for rule in r.rules() {
            assert!(!matches!(
                rule.action,
                Action::SortParams
                    | Action::StripWww { .. }
                    | Action::HttpToHttps
                    | Action::TrailingSlash(_)
                    | Action::LowercasePath
            ));
        }
    }

    #[test]
    fn www_guard() {
        assert_eq!(strip_www("www.example.com", false), Some("example.com"));
        assert_eq!(strip_www("www.com", false), None);
        assert_eq!(strip_www("www.co.uk", false), None);
        assert_eq!(strip_www("www.example.co.uk", false), Some("example.co.uk"));
        assert_eq!(strip_www("www2.example.com", false), None);
        assert_eq!(strip_www("www2.example.com", true), Some("example.com"));
        assert_eq!(strip_www("wwwx.example.com", true), None);
        assert_eq!(strip_www("www.1.2.3.4", false), None);
    }

    #[test]
    fn errors_carry_lines() {
        let e = Rules::from_toml("version = 1\n\n[[rule]]\nkind = \"nope\"\n").unwrap_err();
        assert_eq!(e.line, 4);
        let e = Rules::from_toml("version = 1\n[[rule]]\nkind = \"sort-params\"\nbogus = 1\n")
            .unwrap_err();
        assert_eq!(e.line, 4);
        let e = Rules::from_toml("version = 2\n").unwrap_err();
        assert_eq!(e.line, 1);
    }

    #[test]
    fn query_split_is_on_ampersand_only() {
        let r = Rules::new(vec![Rule::new(Action::DropParams(
            ParamFilter::new(&["b"]).unwrap(),
        ))]);
        assert_eq!(run(&r, "http://h/?a=1;b=2&b=3"), "http://h/?a=1;b=2");
        assert_eq!(run(&r, "http://h/?a=%26b=1&b"), "http://h/?a=%26b=1");
    }

    #[test]
    fn non_ascii_names_match_in_both_forms() {
        let f = ParamFilter::new(&["café"]).unwrap();
        assert!(f.matches("café=1"));
        assert!(f.matches("caf%C3%A9=1"));
        assert!(f.matches("CAF%C3%A9"));
    }
}
