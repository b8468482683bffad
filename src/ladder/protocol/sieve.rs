//! Which keys a rule set leaves as they are, told at a glance (RFC 3987 §5.3.4; SPEC §8):
//! the question the ladder's fast path asks about a record that is already its own key at
//! the scheme rung, before it would run the rules on it.
//!
//! A rule changes a key only where the key shows what the rule's kind looks at: a query for
//! the query rules, a fragment for `drop-fragment`, a `;` in the path for
//! `drop-path-params`, a host that ends in `.` for `strip-trailing-dot`, one that starts
//! with `www` for `strip-www`, the `http` scheme for `http-to-https`. A [`Sieve`] is the
//! union of what the rules of a set look at. A key that shows none of it is left as it is
//! by every rule of the set, whatever their scopes say; a key that shows some of it is not
//! judged here (the rules run on it). The path rules `lowercase-path` and `trailing-slash`
//! look at every path: a set that holds one of them lets nothing through.

use super::params::NamePrefixes;
use super::rule::{Action, Rule, SlashPolicy};
use crate::iri::find::{find, find3};
use crate::iri::parse::IriRef;

/// What the rules of a set look at (see the [module documentation](self)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Sieve {
    query: bool,
    /// What a query must hold for the query rules to change it, when they are only
    /// `drop-params`, `drop-empty-params` and `drop-empty-query` (`None` for other query
    /// rules: then every query is looked at by running the rules).
    params: Option<QuerySieve>,
    fragment: bool,
    path_params: bool,
    trailing_dot: bool,
    www: bool,
    http: bool,
    /// A rule that may change any key.
    any: bool,
    /// No rule looks at anything but the query, the path's `;` parameters, the fragment
    /// and a host's trailing dot (no `any`, `www` or `http`): a key that has none of them
    /// passes whatever its scheme and the rest of its host ([`Sieve::passes_unmarked`]).
    marks_only: bool,
}

/// What `drop-params`, `drop-empty-params` and `drop-empty-query` look at in a query.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct QuerySieve {
    /// The names `drop-params` may drop.
    names: NamePrefixes,
    /// `drop-empty-params`: empty pairs.
    empty_pairs: bool,
    /// `drop-empty-query`: an empty query.
    empty_query: bool,
}

impl QuerySieve {
    /// Whether the rules leave `query` as it is (`false` also means "not known"): no pair
    /// whose name a `drop-params` pattern may match, and nothing empty that a rule drops.
    fn passes(&self, query: &[u8]) -> bool {
        if query.is_empty() {
            return !self.empty_query && !self.empty_pairs;
        }
        let mut start = 0;
        loop {
            let pair = &query[start..];
            // The prefixes look at two bytes of a name at most: those before a `=` or `&`.
            let name_bytes = pair.iter().take(2).take_while(|&&c| c != b'=' && c != b'&');
            let name = &pair[..name_bytes.count()];
            let empty = matches!(pair.first(), None | Some(b'&'));
            if (empty && self.empty_pairs) || self.names.may_match(name) {
                return false;
            }
            match find(b'&', pair) {
                Some(k) => start += k + 1,
                None => return true,
            }
        }
    }
}

/// What a key shows, as the fast path sees it without parsing it (its pieces as bytes: the
/// sieve looks only at ASCII delimiters, and the fast path cuts them without char-boundary
/// checks).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Glance<'a> {
    /// The scheme, if any.
    pub(crate) scheme: Option<&'a [u8]>,
    /// The host, when the key has an authority.
    pub(crate) host: Option<&'a [u8]>,
    /// The path, query and fragment.
    pub(crate) rest: &'a [u8],
    /// Whether the key has a fragment.
    pub(crate) fragment: bool,
    /// Whether the rest may hold a `?` or a `;` (`false` only where it holds neither).
    pub(crate) marks: bool,
}

impl<'a> Glance<'a> {
    /// What a key split by the parser shows (without knowing whether it holds a `?` or a
    /// `;`).
    pub(crate) fn of_view(v: &IriRef<'a>) -> Glance<'a> {
        Glance {
            scheme: v.scheme().map(str::as_bytes),
            host: v
                .host()
                .filter(|_| v.authority().is_some())
                .map(str::as_bytes),
            rest: v.path_query_fragment().as_bytes(),
            fragment: v.fragment().is_some(),
            marks: true,
        }
    }
}

impl Sieve {
    /// What the rules look at.
    pub(super) fn of(rules: &[Rule]) -> Sieve {
        let mut s = Sieve {
            params: Some(QuerySieve::default()),
            ..Sieve::default()
        };
        for r in rules {
            match &r.action {
                Action::DropParams(f) => {
                    s.query = true;
                    if let Some(p) = &mut s.params {
                        p.names.add(f);
                    }
                }
                Action::DropEmptyParams => {
                    s.query = true;
                    if let Some(p) = &mut s.params {
                        p.empty_pairs = true;
                    }
                }
                Action::DropEmptyQuery => {
                    s.query = true;
                    if let Some(p) = &mut s.params {
                        p.empty_query = true;
                    }
                }
                Action::KeepParams(_) | Action::SortParams => {
                    s.query = true;
                    s.params = None;
                }
                Action::DropPathParams(_) => s.path_params = true,
                Action::StripTrailingDot => s.trailing_dot = true,
                Action::StripWww { .. } => s.www = true,
                Action::HttpToHttps => s.http = true,
                Action::DropFragment => s.fragment = true,
                Action::TrailingSlash(SlashPolicy::Keep) => {}
                Action::TrailingSlash(_) | Action::LowercasePath => s.any = true,
            }
        }
        s.marks_only = !(s.any || s.www || s.http);
        s
    }

    /// Whether every rule leaves a key as it is that holds no `?` or `;` in its path, query
    /// and fragment (`marks` says whether it may), has no fragment, and whose host ends in
    /// a `.` only where `dot` says so: [`Sieve::passes`] for such a key, told from those
    /// flags alone where the rules look at nothing else. `false` also means "not known"
    /// (then ask [`Sieve::passes`]).
    #[inline(always)]
    pub(super) fn passes_unmarked(&self, marks: bool, fragment: bool, dot: bool) -> bool {
        let dot_looked_at = dot && self.trailing_dot;
        self.marks_only && !(marks || fragment || dot_looked_at)
    }

    /// Whether every rule leaves a key that shows `g` as it is. `false` also means "not
    /// known". Inline: most keys are told by their flags and host, without a `?` or `;` to
    /// look for ([`Sieve::marks_pass`] looks at the others).
    #[inline]
    pub(super) fn passes(&self, g: &Glance<'_>) -> bool {
        if self.any || (self.fragment && g.fragment) {
            return false;
        }
        if let Some(h) = g.host {
            let www = || h.get(..3).is_some_and(|l| l.eq_ignore_ascii_case(b"www"));
            if (self.trailing_dot && h.ends_with(b".")) || (self.www && www()) {
                return false;
            }
        }
        if self.http && g.scheme.is_some_and(|s| s.eq_ignore_ascii_case(b"http")) {
            return false;
        }
        if !g.marks || (!self.query && !self.path_params) {
            return true;
        }
        self.marks_pass(g)
    }

    /// [`Sieve::passes`] for a key that may hold a `?` or a `;`, once its flags and host
    /// passed: whether its path parameters and query show nothing the rules look at.
    #[inline(never)]
    fn marks_pass(&self, g: &Glance<'_>) -> bool {
        // The path ends at the first `?` or `#`; the query, if any, at the next `#`.
        let rest = g.rest;
        let mut at = 0;
        let path_end = loop {
            match find3(b'?', b'#', b';', &rest[at..]) {
                Some(k) if rest[at + k] == b';' => {
                    if self.path_params {
                        return false;
                    }
                    at += k + 1;
                }
                Some(k) => break at + k,
                None => return true,
            }
        };
        if !self.query || rest[path_end] != b'?' {
            return true;
        }
        let query = &rest[path_end + 1..];
        let query = match g.fragment {
            true => &query[..find(b'#', query).unwrap_or(query.len())],
            false => query,
        };
        self.params.as_ref().is_some_and(|p| p.passes(query))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{RuleKind, Rules};
    use super::*;

    #[test]
    fn a_key_the_sieve_passes_is_left_as_it_is_by_every_rule_set() {
        let keys = [
            "http://example.com/a/b",
            "http://example.com./a",
            "http://www.example.com/a",
            "https://www2.example.com/",
            "http://example.com/a;jsessionid=1/b",
            "http://example.com/a?utm_source=x",
            "http://example.com/a?",
            "http://example.com/a?=x&u=1",
            "http://example.com/a?u&ut=1",
            "http://example.com/a?x=utm_source",
            "http://example.com/a?id=1&&",
            "http://example.com/A/b/",
            "http://example.com/a#f",
            "http://example.com/a#f?g;h",
            "mailto:a@example.com",
            "urn:isbn:1",
            "/a/b/",
            "file:///etc/x",
        ];
        let mut sets: Vec<Rules> = RuleKind::ALL
            .iter()
            .map(|&k| Rules::new(vec![Rule::new(super::super::tests::sample(k))]))
            .collect();
        sets.push(Rules::profile("crawler").unwrap());
        sets.push(Rules::profile("crawler@1").unwrap());
        let (mut passed, mut unmarked) = (0, 0);
        for rules in &sets {
            for key in keys {
                let v = IriRef::parse(key).unwrap();
                let glance = Glance::of_view(&v);
                if rules.sieve.passes(&glance) {
                    passed += 1;
                    assert_eq!(rules.apply_to_string(key), key, "{key} under {rules:?}");
                }
                // The shortcut by flags agrees with the whole look, where it answers.
                let marks = key.contains(['?', ';']);
                let dot = glance.host.is_some_and(|h| h.ends_with(b"."));
                if rules.sieve.passes_unmarked(marks, glance.fragment, dot) {
                    unmarked += 1;
                    assert!(rules.sieve.passes(&glance), "{key} under {rules:?}");
                }
            }
        }
        // The sieve lets keys through (this test is not vacuous), and not all of them; the
        // shortcut answers for some.
        assert!(
            passed > keys.len() && passed < keys.len() * sets.len(),
            "{passed}"
        );
        assert!(unmarked > 0 && unmarked < passed, "{unmarked}");
    }

    #[test]
    fn what_each_kind_looks_at() {
        let crawler = Rules::profile("crawler").unwrap().sieve;
        let g = |rest: &'static str, host: &'static str, fragment| Glance {
            scheme: Some(b"http"),
            host: Some(host.as_bytes()),
            rest: rest.as_bytes(),
            fragment,
            marks: true,
        };
        assert!(crawler.passes(&g("/a/b", "example.com", false)));
        assert!(crawler.passes(&g("/a/b", "www.example.com", false)));
        assert!(!crawler.passes(&g("/a?utm_source=1", "example.com", false)));
        assert!(crawler.passes(&g("/a?id=1&page=2", "example.com", false)));
        assert!(!crawler.passes(&g("/a?id=1&&page=2", "example.com", false)));
        assert!(!crawler.passes(&g("/a?", "example.com", false)));
        assert!(!crawler.passes(&g("/a?sid=1", "example.com", false)));
        assert!(!crawler.passes(&g("/a#?utm_source=1", "example.com", true)));
        assert!(crawler.passes(&g("/a?b;c", "example.com", false)));
        // Names are told by their first two bytes, up to a `=` or `&`.
        assert!(crawler.passes(&g("/a?u=utm_source&=1&x", "example.com", false)));
        assert!(!crawler.passes(&g("/a?x&ut", "example.com", false)));
        assert!(!crawler.passes(&g("/a?x&&y", "example.com", false)));
        assert!(!crawler.passes(&g("/a;b", "example.com", false)));
        assert!(!crawler.passes(&g("/a#b", "example.com", true)));
        assert!(!crawler.passes(&g("/a", "example.com.", false)));
        let www = Sieve::of(&[Rule::new(Action::StripWww { numbered: true })]);
        assert!(!www.passes(&g("/", "WWW.example.com", false)));
        let slash = Sieve::of(&[Rule::new(Action::TrailingSlash(SlashPolicy::Add))]);
        assert!(!slash.passes(&g("/", "example.com", false)));
        let keep = Sieve::of(&[Rule::new(Action::TrailingSlash(SlashPolicy::Keep))]);
        assert!(keep.passes(&g("/a/", "example.com", false)));
    }
}
