//! One protocol rule (RFC 3987 §5.3.4; SPEC §4, "protocol"): its [`Action`], with the false
//! positives each action may cause, and the [`HostScope`] it is limited to.
//!
//! The name, component and keys of each action are in the table of [`super::kind`]; the
//! code of each action is in the stage of its component ([`super::host`], [`super::path`],
//! [`super::query`], and [`Rules::apply`](super::Rules::apply) for the scheme and the
//! fragment).

use super::kind::RuleKind;
use super::params::ParamFilter;
use super::scope::HostScope;

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

/// What a rule does. Its [`RuleKind`] ([`Action::kind`]) names it: the `kind` of a rules
/// file, printed by `--explain`.
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
    /// `drop-empty-params`: remove the empty pairs of the query, the nothing between two
    /// `&` or between `?` and an `&` or an `&` and the end (`?a=1&&b` → `?a=1&b`,
    /// `?&a` → `?a`, `?&` → `?`). A pair `=` (empty name, empty value) is not empty and
    /// stays. It runs with the filters, so an empty pair goes whether or not its
    /// neighbours are dropped: `?&` and `?&utm_source=1` give the same key.
    ///
    /// False positives: a server that reads the raw query string (a CGI script, a cache
    /// key taken verbatim, a signed URL whose signature covers the query text) sees a
    /// different string. The parsers of common web frameworks skip empty pairs, so the
    /// parameters they hand to the application are the same.
    DropEmptyParams,
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
    /// The kind of the action.
    pub const fn kind(&self) -> RuleKind {
        match self {
            Action::DropParams(_) => RuleKind::DropParams,
            Action::KeepParams(_) => RuleKind::KeepParams,
            Action::SortParams => RuleKind::SortParams,
            Action::DropEmptyQuery => RuleKind::DropEmptyQuery,
            Action::DropEmptyParams => RuleKind::DropEmptyParams,
            Action::DropPathParams(_) => RuleKind::DropPathParams,
            Action::StripTrailingDot => RuleKind::StripTrailingDot,
            Action::StripWww { .. } => RuleKind::StripWww,
            Action::HttpToHttps => RuleKind::HttpToHttps,
            Action::TrailingSlash(_) => RuleKind::TrailingSlash,
            Action::LowercasePath => RuleKind::LowercasePath,
            Action::DropFragment => RuleKind::DropFragment,
        }
    }

    /// The stable name of the action: the `kind` of a rules file, printed by `--explain`
    /// (the name of [`Action::kind`]).
    pub const fn name(&self) -> &'static str {
        self.kind().name()
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

impl SlashPolicy {
    /// Every policy.
    pub const ALL: &'static [SlashPolicy] =
        &[SlashPolicy::Add, SlashPolicy::Remove, SlashPolicy::Keep];

    /// The policy's name in a rules file (`policy = "add"`).
    pub const fn name(self) -> &'static str {
        match self {
            SlashPolicy::Add => "add",
            SlashPolicy::Remove => "remove",
            SlashPolicy::Keep => "keep",
        }
    }

    /// The policy named `name` in a rules file, if any.
    pub fn from_name(name: &str) -> Option<SlashPolicy> {
        SlashPolicy::ALL.iter().copied().find(|p| p.name() == name)
    }
}
