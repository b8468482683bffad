//! Stage 1, the host (RFC 3987 §5.3.4; SPEC §4, "protocol"): `strip-trailing-dot` and
//! `strip-www`, repeated until the host stops changing, with the guards that keep
//! `strip-www` from reaching a public suffix.
//!
//! Only a `reg-name` host gets here (RFC 3986 §3.2.2): IP literals and IPv4 addresses are
//! never rewritten.

use super::kind::{Component, RuleKind};
use super::rule::{Action, Rule};
use super::{Fired, Rules};

impl Rules {
    /// Stage 1: trailing dots and `www` labels, until the host stops changing. Each scope is
    /// checked against the host as it is at that moment. The result is always a suffix of a
    /// prefix of `host`.
    pub(super) fn host_stage<'k>(&self, mut host: &'k str, fired: &mut dyn Fired) -> &'k str {
        if !self
            .rules
            .iter()
            .any(|r| r.action.kind().component() == Component::Host)
        {
            return host;
        }
        loop {
            let before = host.len();
            for r in &self.rules {
                host = host_rule(r, host, fired);
            }
            if host.len() == before {
                return host;
            }
        }
    }
}

/// One pass of one rule over the host.
fn host_rule<'k>(r: &Rule, mut host: &'k str, fired: &mut dyn Fired) -> &'k str {
    let applies = |h: &str| r.scope.is_all() || r.scope.matches(Some(h));
    match r.action {
        Action::StripTrailingDot => {
            let trimmed = host.trim_end_matches('.');
            if !trimmed.is_empty() && trimmed.len() < host.len() && applies(host) {
                host = trimmed;
                fired.fire(RuleKind::StripTrailingDot);
            }
        }
        Action::StripWww { numbered } => {
            while let Some(rest) = strip_www(host, numbered) {
                if !applies(host) {
                    break;
                }
                host = rest;
                fired.fire(RuleKind::StripWww);
            }
        }
        _ => {}
    }
    host
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
    // Bytes, not characters: a label of an `iri` key may start with non-ASCII ones.
    let is_www = label
        .as_bytes()
        .get(..3)
        .is_some_and(|l| l.eq_ignore_ascii_case(b"www"))
        && {
            let digits = &label.as_bytes()[3..];
            digits.is_empty() || (numbered && digits.iter().all(|b| b.is_ascii_digit()))
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

#[cfg(test)]
mod tests {
    use super::super::HostScope;
    use super::*;

    #[test]
    fn a_non_ascii_first_label_is_no_www() {
        assert_eq!(strip_www("كتب.example.com", true), None);
        assert_eq!(strip_www("wwé.example.com", false), None);
        assert_eq!(strip_www("www.example.com", false), Some("example.com"));
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
    fn host_rules_repeat_until_the_host_is_stable() {
        // The dot hides the `www.` guard's second label until it is gone, whatever the order.
        for rules in [
            vec![
                Action::StripWww { numbered: false },
                Action::StripTrailingDot,
            ],
            vec![
                Action::StripTrailingDot,
                Action::StripWww { numbered: false },
            ],
        ] {
            let rules = Rules::new(rules.into_iter().map(Rule::new).collect());
            let mut fired: Vec<RuleKind> = Vec::new();
            let host = rules.host_stage("www.www.example.com..", &mut fired);
            assert_eq!(host, "example.com");
            fired.sort_by_key(|k| k.name());
            assert_eq!(fired, [RuleKind::StripTrailingDot, RuleKind::StripWww]);
        }
    }

    #[test]
    fn a_scope_sees_the_host_as_it_is_then() {
        let www = Rule::new(Action::StripWww { numbered: false })
            .scoped(HostScope::new(&["www.example.com"]).unwrap());
        let rules = Rules::new(vec![Rule::new(Action::StripTrailingDot), www]);
        assert_eq!(rules.host_stage("www.example.com.", &mut ()), "example.com");
        assert_eq!(
            rules.host_stage("www.www.example.com", &mut ()),
            "www.www.example.com"
        );
    }
}
