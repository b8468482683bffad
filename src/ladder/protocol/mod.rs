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
//! This module implements SPEC §4 ("protocol"); `docs/protocol.md` is the guide, with every
//! rule's false positives and the `crawler@1` profile.
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
//! 4. query: [`Action::DropParams`], [`Action::KeepParams`] and
//!    [`Action::DropEmptyParams`] (filters), then
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
//! Every kind takes `hosts`. The kinds, the keys each one needs and takes, and the component
//! it rewrites come from one table ([`RuleKind`]):
//!
//! | `kind` | component | required keys | optional keys | effect |
//! |---|---|---|---|---|
//! | `drop-params` | query | `names` | `match-case`, `value-hex-length`, `value-min-length` | remove matching query parameters |
//! | `keep-params` | query | `names` | `match-case` | remove every query parameter that does not match |
//! | `sort-params` | query |  |  | sort query parameters by name, stably |
//! | `drop-empty-query` | query |  |  | `/a?` → `/a` |
//! | `drop-empty-params` | query |  |  | remove empty `&`-separated pairs (`?a=1&&b` → `?a=1&b`, `?&` → `?`) |
//! | `drop-path-params` | path | `names` | `match-case`, `value-hex-length`, `value-min-length` | remove matching `;name=value` from every path segment |
//! | `strip-trailing-dot` | host |  |  | `example.com.` → `example.com` |
//! | `strip-www` | host |  | `numbered` | `www.example.com` → `example.com` (`numbered = true`: also `www2.`) |
//! | `http-to-https` | scheme |  |  | `http:` → `https:` |
//! | `trailing-slash` | path | `policy` |  | add or remove a trailing `/` (`policy` = `"add"`, `"remove"` or `"keep"`) |
//! | `lowercase-path` | path | `hosts` |  | ASCII letters of the path to lowercase |
//! | `drop-fragment` | fragment |  |  | remove the fragment |
//!
//! An unknown key, an unknown kind, a key that does not apply to the kind, a missing
//! required key, an empty `names` or `hosts` list, a malformed name or host, a wrong type or
//! an unsupported `version` gives a [`RulesError`] with the line and column of the offending
//! text.
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
//!
//! # Where things are
//!
//! | file | what it owns |
//! |---|---|
//! | `mod.rs` | [`Rules`]: building a rule set, the stages in order ([`Rules::apply`]), the scheme and fragment stages |
//! | `kind.rs` | [`RuleKind`]: the table of kinds (name, component, keys, description) |
//! | `rule.rs` | [`Rule`], [`Action`] (with each action's false positives), [`SlashPolicy`] |
//! | `params.rs` | [`ParamFilter`], [`ValueCondition`]: parameter names, globs and values |
//! | `scope.rs` | [`HostScope`]: host patterns |
//! | `schema.rs` | reading a rules file; [`RulesError`] |
//! | `profile.rs` | the built-in profiles |
//! | `host.rs`, `path.rs`, `query.rs` | stages 1, 3 and 4 |
//! | `sieve.rs` | which keys the rules certainly leave as they are, told at a glance (for the fast path) |
//!
//! A new rule kind is: a row of the table in `kind.rs`, a variant of [`Action`] with its
//! arm in [`Action::kind`] (`rule.rs`), a parse arm (`schema.rs`), its code in the stage of
//! its component, its arm in `Sieve::of` (`sieve.rs`: what it looks at), and its section in
//! `docs/protocol.md`. The compiler and the unit tests point at each place that lacks it.

mod host;
mod kind;
mod params;
mod path;
mod profile;
mod query;
mod rule;
mod schema;
mod scope;
mod sieve;

pub use kind::{Component, RuleKind};
pub use params::{ParamFilter, ParamFilterError, ValueCondition};
pub use rule::{Action, Rule, SlashPolicy};
pub use schema::RulesError;
pub use scope::{HostPattern, HostScope, HostScopeError};
pub(crate) use sieve::Glance;

use crate::iri::parse::{HostKind, IriRef};

/// Where [`Rules::apply`] records the kinds of the rules that changed a key: a
/// `Vec<RuleKind>`, a `Vec<&'static str>` of their names (as `--explain` prints them), or
/// `()` to forget them.
pub trait Fired {
    /// Records that a rule of `kind` changed the key. It is called in the order of the
    /// stages, and may be called again with the same kind; the logs here keep the first
    /// call only, so each kind appears once.
    fn fire(&mut self, kind: RuleKind);
}

impl Fired for Vec<RuleKind> {
    fn fire(&mut self, kind: RuleKind) {
        if !self.contains(&kind) {
            self.push(kind);
        }
    }
}

impl Fired for Vec<&'static str> {
    fn fire(&mut self, kind: RuleKind) {
        if !self.contains(&kind.name()) {
            self.push(kind.name());
        }
    }
}

impl Fired for () {
    fn fire(&mut self, _: RuleKind) {}
}

/// A set of protocol rules, from a rules file ([`Rules::from_toml`]), a built-in profile
/// ([`Rules::profile`]) or code ([`Rules::new`]).
///
/// ```
/// use irinorm::{RuleKind, Rules};
/// let rules = Rules::profile("crawler").unwrap();
/// let mut out = String::new();
/// let mut fired: Vec<RuleKind> = Vec::new();
/// rules.apply("http://example.com./a;jsessionid=0A1B.n1?utm_source=x&id=7#top", &mut out, &mut fired);
/// assert_eq!(out, "http://example.com/a?id=7");
/// let names: Vec<&str> = fired.iter().map(|k| k.name()).collect();
/// assert_eq!(names, ["strip-trailing-dot", "drop-path-params", "drop-params", "drop-fragment"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rules {
    rules: Vec<Rule>,
    /// Whether any rule has a scope.
    scoped: bool,
    /// What the rules look at, to let keys they leave as they are through at a glance.
    sieve: sieve::Sieve,
    /// The canonical name of the profile the rules came from.
    profile: Option<&'static str>,
}

impl Rules {
    /// A rule set from rules built in code.
    pub fn new(rules: Vec<Rule>) -> Rules {
        let scoped = rules.iter().any(|r| !r.scope.is_all());
        Rules {
            sieve: sieve::Sieve::of(&rules),
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
        profile::PROFILES.iter().map(|p| p.name)
    }

    /// A built-in profile by name: `crawler@1`, or `crawler` for the newest `crawler@N`.
    pub fn profile(name: &str) -> Option<Rules> {
        let p = profile::find(name)?;
        let mut rules = Rules::from_toml(p.text).ok()?;
        rules.profile = Some(p.canonical);
        Some(rules)
    }

    /// Parses a rules file (the schema is in docs/protocol.md).
    pub fn from_toml(text: &str) -> Result<Rules, RulesError> {
        schema::parse(text).map(Rules::new)
    }

    /// Applies the rules to `key` (a key of the scheme rung, in `uri` or `iri` form) and
    /// appends the result to `out`. The kind of each rule that changed something is
    /// recorded in `fired` (once per kind, in stage order), for `--explain`.
    ///
    /// Idempotent: applying the rules to the result gives the result. A `key` that does
    /// not parse as an IRI reference is appended unchanged.
    pub fn apply(&self, key: &str, out: &mut String, fired: &mut impl Fired) {
        if self.rules.is_empty() {
            out.push_str(key);
            return;
        }
        match IriRef::parse(key) {
            Ok(v) => self.apply_parsed(&v, out, fired),
            Err(_) => out.push_str(key),
        }
    }

    /// [`Rules::apply`] for a key already split into its components, so it is not parsed
    /// again: the ladder's rounds of rules split the scheme-rung key they run on.
    pub(crate) fn apply_view(&self, view: &IriRef<'_>, out: &mut String, fired: &mut impl Fired) {
        if self.rules.is_empty() {
            out.push_str(view.as_str());
        } else {
            self.apply_parsed(view, out, fired);
        }
    }

    /// Whether every rule leaves a key that shows `glance` as it is, told without running
    /// them (see [`Glance`]): `true` only where [`Rules::apply`] would give back the key;
    /// `false` also means "not known".
    #[inline]
    pub(crate) fn leave_at_a_glance(&self, glance: &Glance<'_>) -> bool {
        self.sieve.passes(glance)
    }

    /// [`Rules::leave_at_a_glance`] for a key with no `?` or `;` in its path, query and
    /// fragment (`marks` says whether it may have one), no fragment, and a host that ends in
    /// a `.` only where `dot` says so, told from those flags alone where the rules look at
    /// nothing else; `false` also means "not known" (then ask `leave_at_a_glance`).
    /// Cheaper, and asked first of most keys.
    #[inline(always)]
    pub(crate) fn leave_unmarked(&self, marks: bool, fragment: bool, dot: bool) -> bool {
        self.sieve.passes_unmarked(marks, fragment, dot)
    }

    /// [`Rules::apply`] into a new string, without the list of rules that fired.
    pub fn apply_to_string(&self, key: &str) -> String {
        let mut out = String::with_capacity(key.len());
        self.apply(key, &mut out, &mut ());
        out
    }

    /// The stages, in order, on a parsed key.
    fn apply_parsed(&self, v: &IriRef<'_>, out: &mut String, fired: &mut dyn Fired) {
        // 1. Host.
        let host = match v.host() {
            Some(h) if v.host_kind() == HostKind::RegName => Some(self.host_stage(h, fired)),
            h => h,
        };
        let scope_host = if self.scoped {
            host.map(scope::scope_form)
        } else {
            None
        };
        let sh = scope_host.as_deref();
        let in_scope = |r: &Rule| !self.scoped || r.scope.admits(sh);
        // 2. Scheme, and the authority with the host of stage 1.
        self.scheme_stage(v, host, &in_scope, out, fired);
        // 3. Path.
        self.path_stage(v.path(), v.authority().is_some(), &in_scope, out, fired);
        // 4. Query.
        if let Some(q) = v.query() {
            self.query_stage(q, &in_scope, out, fired);
        }
        // 5. Fragment.
        if let Some(f) = v.fragment() {
            if self.any_in_scope(RuleKind::DropFragment, &in_scope) {
                fired.fire(RuleKind::DropFragment);
            } else {
                out.push('#');
                out.push_str(f);
            }
        }
    }

    /// Stage 2: writes the scheme (`https` for `http` under `http-to-https`, which also
    /// drops a port `443`, now the default) and the authority with `host`.
    fn scheme_stage(
        &self,
        v: &IriRef<'_>,
        host: Option<&str>,
        in_scope: &dyn Fn(&Rule) -> bool,
        out: &mut String,
        fired: &mut dyn Fired,
    ) {
        let mut scheme = v.scheme();
        let mut port = v.port();
        if scheme.is_some_and(|s| s.eq_ignore_ascii_case("http"))
            && self.any_in_scope(RuleKind::HttpToHttps, in_scope)
        {
            scheme = Some("https");
            if port == Some("443") {
                port = None;
            }
            fired.fire(RuleKind::HttpToHttps);
        }
        if let Some(s) = scheme {
            out.push_str(s);
            out.push(':');
        }
        if v.authority().is_some() {
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
    }

    /// Whether a rule of `kind` applies to the reference.
    fn any_in_scope(&self, kind: RuleKind, in_scope: &dyn Fn(&Rule) -> bool) -> bool {
        self.rules
            .iter()
            .any(|r| r.action.kind() == kind && in_scope(r))
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A rule of `kind` that changes the keys of [`every_kind_applies`].
    pub(super) fn sample(kind: RuleKind) -> Action {
        let filter = |names: &[&str]| ParamFilter::new(names).unwrap();
        match kind {
            RuleKind::DropParams => Action::DropParams(filter(&["utm_*"])),
            RuleKind::KeepParams => Action::KeepParams(filter(&["a", "z"])),
            RuleKind::SortParams => Action::SortParams,
            RuleKind::DropEmptyQuery => Action::DropEmptyQuery,
            RuleKind::DropEmptyParams => Action::DropEmptyParams,
            RuleKind::DropPathParams => Action::DropPathParams(filter(&["jsessionid"])),
            RuleKind::StripTrailingDot => Action::StripTrailingDot,
            RuleKind::StripWww => Action::StripWww { numbered: false },
            RuleKind::HttpToHttps => Action::HttpToHttps,
            RuleKind::TrailingSlash => Action::TrailingSlash(SlashPolicy::Remove),
            RuleKind::LowercasePath => Action::LowercasePath,
            RuleKind::DropFragment => Action::DropFragment,
        }
    }

    #[test]
    fn every_kind_applies() {
        let rules = Rules::new(
            RuleKind::ALL
                .iter()
                .map(|&k| Rule::new(sample(k)))
                .collect(),
        );
        let cases = [
            (
                "http://www.example.com./A/b;jsessionid=1/?utm_source=x&z=1&q=3&a=2&&#top",
                "https://example.com/a/b?a=2&z=1",
            ),
            ("http://h.example/?utm_source=1", "https://h.example/"),
        ];
        let mut all = Vec::new();
        for (key, expected) in cases {
            let mut out = String::new();
            let mut fired: Vec<RuleKind> = Vec::new();
            rules.apply(key, &mut out, &mut fired);
            assert_eq!(out, expected, "{key}");
            for k in fired {
                all.fire(k);
            }
            let mut again = Vec::<RuleKind>::new();
            assert_eq!(rules.apply_to_string(&out), out);
            rules.apply(&out, &mut String::new(), &mut again);
            assert_eq!(again, [], "{out}");
        }
        for k in RuleKind::ALL {
            assert!(all.contains(k), "{k} never fired");
        }
        assert_eq!(all.len(), RuleKind::ALL.len());
    }

    #[test]
    fn fired_kinds_and_names_agree() {
        let rules = Rules::profile("crawler").unwrap();
        let key = "http://example.com./a;jsessionid=0A1B.n1?utm_source=x&id=7#top";
        let mut kinds: Vec<RuleKind> = Vec::new();
        let mut names: Vec<&'static str> = Vec::new();
        let mut out = String::new();
        rules.apply(key, &mut out, &mut kinds);
        rules.apply(key, &mut String::new(), &mut names);
        assert_eq!(out, rules.apply_to_string(key));
        assert_eq!(kinds.len(), 4);
        assert!(kinds.iter().map(|k| k.name()).eq(names.iter().copied()));
        // Stage order: host, path, query, fragment.
        assert!(kinds
            .windows(2)
            .all(|w| w[0].component() < w[1].component()));
    }

    #[test]
    fn keys_that_do_not_parse_are_copied() {
        let rules = Rules::profile("crawler").unwrap();
        assert_eq!(rules.apply_to_string("http://a b/#x"), "http://a b/#x");
        assert_eq!(Rules::default().apply_to_string("x y#z"), "x y#z");
    }
}
