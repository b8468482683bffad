//! Stage 4, the query (RFC 3987 §5.3.4; SPEC §4, "protocol"): the filters `drop-params`,
//! `keep-params` and `drop-empty-params`, then `sort-params`, then `drop-empty-query`.
//!
//! Each pair is judged on its own text, never on its neighbours: a filter removes a pair
//! with the `&` that joined it to the others. Without `drop-empty-params` an empty pair is
//! kept as a pair (`?a&&b` stays), and a query left with a single empty pair is the empty
//! query (`?&utm_source=1` → `?`, which `drop-empty-query` removes); with it, empty pairs
//! go too (`?&` → `?`).
//!
//! The query is split on `&` only (`;` is no separator); a parameter's name is the text
//! before its first `=`. Nothing is decoded, so `%26` and `%3D` stay inside the parameter
//! they belong to (RFC 3986 §2.2, §3.4).

use super::kind::RuleKind;
use super::rule::{Action, Rule};
use super::{Fired, Rules};

/// The query rules in scope for one reference.
#[derive(Default)]
struct Plan {
    filters: bool,
    drop_empty_params: bool,
    sort: bool,
    drop_empty: bool,
}

impl Rules {
    /// Stage 4: filters, sorting, empty query. Writes `?` and the query to `out`, or nothing
    /// when an empty query is dropped.
    pub(super) fn query_stage(
        &self,
        query: &str,
        in_scope: &dyn Fn(&Rule) -> bool,
        out: &mut String,
        fired: &mut dyn Fired,
    ) {
        let mut plan = Plan::default();
        for r in self.rules.iter().filter(|r| in_scope(r)) {
            match r.action {
                Action::DropParams(_) | Action::KeepParams(_) => plan.filters = true,
                Action::SortParams => plan.sort = true,
                Action::DropEmptyQuery => plan.drop_empty = true,
                Action::DropEmptyParams => {
                    plan.filters = true;
                    plan.drop_empty_params = true;
                }
                _ => {}
            }
        }
        let start = out.len();
        out.push('?');
        let mut filters = Filters {
            rules: &self.rules,
            in_scope,
            active: plan.filters,
            drop_empty: plan.drop_empty_params,
            by_drop: false,
            by_keep: false,
            by_empty: false,
        };
        if plan.sort {
            write_sorted(query, &mut filters, out, fired);
        } else if plan.filters {
            write_filtered(query, &mut filters, out, fired);
        } else {
            out.push_str(query);
        }
        if plan.drop_empty && out.len() == start + 1 {
            out.truncate(start);
            fired.fire(RuleKind::DropEmptyQuery);
        }
    }
}

/// The filter rules in scope, and which of them removed a parameter.
struct Filters<'r> {
    rules: &'r [Rule],
    in_scope: &'r dyn Fn(&Rule) -> bool,
    /// Whether any filter is in scope.
    active: bool,
    /// Whether `drop-empty-params` is in scope.
    drop_empty: bool,
    by_drop: bool,
    by_keep: bool,
    by_empty: bool,
}

impl Filters<'_> {
    /// Whether `param` survives: no drop rule matches it and every keep rule does.
    fn keeps(&mut self, param: &str) -> bool {
        if !self.active {
            return true;
        }
        if param.is_empty() && self.drop_empty {
            self.by_empty = true;
            return false;
        }
        let in_scope = self.in_scope;
        let dropped = |r: &Rule| match &r.action {
            Action::DropParams(f) => in_scope(r) && f.matches(param),
            _ => false,
        };
        if self.rules.iter().any(dropped) {
            self.by_drop = true;
            return false;
        }
        let not_kept = |r: &Rule| match &r.action {
            Action::KeepParams(f) => in_scope(r) && !f.matches(param),
            _ => false,
        };
        if self.rules.iter().any(not_kept) {
            self.by_keep = true;
            return false;
        }
        true
    }

    /// Records the filters that removed something.
    fn fire(&self, fired: &mut dyn Fired) {
        if self.by_drop {
            fired.fire(RuleKind::DropParams);
        }
        if self.by_keep {
            fired.fire(RuleKind::KeepParams);
        }
        if self.by_empty {
            fired.fire(RuleKind::DropEmptyParams);
        }
    }
}

/// Writes the parameters the filters keep, in their order.
fn write_filtered(query: &str, filters: &mut Filters<'_>, out: &mut String, fired: &mut dyn Fired) {
    let mut first = true;
    for p in query.split('&') {
        if filters.keeps(p) {
            if !first {
                out.push('&');
            }
            first = false;
            out.push_str(p);
        }
    }
    filters.fire(fired);
}

/// Writes the parameters the filters keep, stably sorted by name.
fn write_sorted(query: &str, filters: &mut Filters<'_>, out: &mut String, fired: &mut dyn Fired) {
    let mut kept: Vec<&str> = query.split('&').filter(|p| filters.keeps(p)).collect();
    filters.fire(fired);
    let sorted_already = kept
        .windows(2)
        .all(|w| param_name(w[0]) <= param_name(w[1]));
    if !sorted_already {
        kept.sort_by(|a, b| param_name(a).cmp(param_name(b)));
        fired.fire(RuleKind::SortParams);
    }
    for (i, p) in kept.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        out.push_str(p);
    }
}

/// The name of a query parameter: the text before its first `=`.
fn param_name(p: &str) -> &str {
    p.find('=').map_or(p, |i| &p[..i])
}

#[cfg(test)]
mod tests {
    use super::super::ParamFilter;
    use super::*;

    fn drop_b() -> Rules {
        Rules::new(vec![Rule::new(Action::DropParams(
            ParamFilter::new(&["b"]).unwrap(),
        ))])
    }

    #[test]
    fn query_split_is_on_ampersand_only() {
        let r = drop_b();
        assert_eq!(
            r.apply_to_string("http://h/?a=1;b=2&b=3"),
            "http://h/?a=1;b=2"
        );
        assert_eq!(
            r.apply_to_string("http://h/?a=%26b=1&b"),
            "http://h/?a=%26b=1"
        );
    }

    #[test]
    fn sorting_is_stable_and_by_name_only() {
        let r = Rules::new(vec![Rule::new(Action::SortParams)]);
        let mut out = String::new();
        let mut fired: Vec<RuleKind> = Vec::new();
        r.query_stage("b=1&a=2&a=1&B", &|_| true, &mut out, &mut fired);
        assert_eq!(out, "?B&a=2&a=1&b=1");
        assert_eq!(fired, [RuleKind::SortParams]);
        out.clear();
        fired.clear();
        r.query_stage("a=2&a=1", &|_| true, &mut out, &mut fired);
        assert_eq!((out.as_str(), fired.len()), ("?a=2&a=1", 0));
    }

    #[test]
    fn empty_pairs_go_whatever_their_neighbours() {
        let r = Rules::new(vec![
            Rule::new(Action::DropEmptyParams),
            Rule::new(Action::DropParams(ParamFilter::new(&["utm_*"]).unwrap())),
        ]);
        let q = |query: &str| {
            let mut out = String::new();
            let mut fired: Vec<RuleKind> = Vec::new();
            r.query_stage(query, &|_| true, &mut out, &mut fired);
            (out, fired)
        };
        assert_eq!(q("&").0, "?");
        assert_eq!(q("&utm_source=1").0, "?");
        assert_eq!(q("a=1&&b").0, "?a=1&b");
        assert_eq!(q("a=1&&utm_source=1&&b").0, "?a=1&b");
        assert_eq!(q("&a&").0, "?a");
        // `=` is a pair with an empty name, not an empty pair.
        assert_eq!(q("=&a").0, "?=&a");
        assert_eq!(q("a=1&&b").1, [RuleKind::DropEmptyParams]);
        assert_eq!(q("a=1&b").1, []);
        // Without the rule, empty pairs stay pairs.
        assert_eq!(
            drop_b().apply_to_string("http://h/?a&&b=1&c"),
            "http://h/?a&&c"
        );
    }

    #[test]
    fn out_of_scope_filters_keep_everything() {
        let r = drop_b();
        let mut out = String::new();
        let mut fired: Vec<RuleKind> = Vec::new();
        r.query_stage("b=1&&c", &|_| false, &mut out, &mut fired);
        assert_eq!((out.as_str(), fired.len()), ("?b=1&&c", 0));
    }
}
