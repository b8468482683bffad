//! Reading a rules file (RFC 3987 §5.3.4; SPEC §4, "protocol"): the TOML schema of the
//! [module documentation](super), checked against the table of rule kinds
//! ([`super::kind`]), into [`Rule`]s; and [`RulesError`], which says where and why a file
//! could not be read.

use std::fmt;
use std::ops::Range;

use serde::Deserialize;
use toml::Spanned;

use super::kind::RuleKind;
use super::params::{self, ParamFilter, ValueCondition};
use super::rule::{Action, Rule, SlashPolicy};
use super::scope::{self, HostScope};

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
    /// The error `message` at the start of `span` in `text` (the start of the text without a
    /// span).
    fn at(text: &str, span: Option<Range<usize>>, message: &str) -> RulesError {
        let mut start = span.map_or(0, |s| s.start).min(text.len());
        // A span may start inside a multi-byte character only if the parser gave one;
        // step back to a boundary to be safe.
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

/// Reads the rules of a rules file, in file order.
pub(super) fn parse(text: &str) -> Result<Vec<Rule>, RulesError> {
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
        let at = At {
            text,
            rule: raw.span(),
        };
        rules.push(raw.get_ref().to_rule(&at)?);
    }
    Ok(rules)
}

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

/// One `[[rule]]` as written. Every key a kind may take is here; which kind takes which is
/// in the table of [`super::kind`].
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

/// The keys of a [`RawRule`] that some kinds take and others refuse (besides `kind`, which
/// every rule has, and `hosts`, which every kind takes), as the file writes them.
pub(super) const OPTION_KEYS: [&str; 6] = [
    "names",
    "match-case",
    "value-hex-length",
    "value-min-length",
    "numbered",
    "policy",
];

/// Where a rule is: the file's text and the span of the `[[rule]]`, to report errors at.
struct At<'t> {
    text: &'t str,
    rule: Range<usize>,
}

impl At<'_> {
    /// An error at `span`.
    fn err(&self, span: Range<usize>, message: impl fmt::Display) -> RulesError {
        RulesError::at(self.text, Some(span), &message.to_string())
    }

    /// An error at the `[[rule]]` itself (a key is missing).
    fn missing(&self, message: impl fmt::Display) -> RulesError {
        self.err(self.rule.clone(), message)
    }
}

impl RawRule {
    fn to_rule(&self, at: &At<'_>) -> Result<Rule, RulesError> {
        let kind = self.kind(at)?;
        self.check_keys(kind, at)?;
        let scope = self.scope(at)?;
        let action = match kind {
            RuleKind::DropParams => Action::DropParams(self.filter(kind, at)?),
            RuleKind::KeepParams => Action::KeepParams(self.filter(kind, at)?),
            RuleKind::SortParams => Action::SortParams,
            RuleKind::DropEmptyQuery => Action::DropEmptyQuery,
            RuleKind::DropEmptyParams => Action::DropEmptyParams,
            RuleKind::DropPathParams => Action::DropPathParams(self.path_filter(kind, at)?),
            RuleKind::StripTrailingDot => Action::StripTrailingDot,
            RuleKind::StripWww => Action::StripWww {
                numbered: self.numbered.as_ref().is_some_and(|n| *n.get_ref()),
            },
            RuleKind::HttpToHttps => Action::HttpToHttps,
            RuleKind::TrailingSlash => Action::TrailingSlash(self.policy(at)?),
            RuleKind::LowercasePath if scope.is_all() => {
                return Err(at.missing(
                    "rule kind `lowercase-path` needs `hosts`: lowercase paths only of hosts known to be case-insensitive",
                ))
            }
            RuleKind::LowercasePath => Action::LowercasePath,
            RuleKind::DropFragment => Action::DropFragment,
        };
        Ok(Rule { action, scope })
    }

    /// The `kind`, one of the table's names.
    fn kind(&self, at: &At<'_>) -> Result<RuleKind, RulesError> {
        let name = self.kind.get_ref();
        RuleKind::from_name(name).ok_or_else(|| {
            let kinds: Vec<&str> = RuleKind::ALL.iter().map(|k| k.name()).collect();
            at.err(
                self.kind.span(),
                format_args!(
                    "unknown rule kind `{name}`, expected one of {}",
                    kinds.join(", ")
                ),
            )
        })
    }

    /// Refuses a key the kind does not take.
    fn check_keys(&self, kind: RuleKind, at: &At<'_>) -> Result<(), RulesError> {
        // In the order of [`OPTION_KEYS`].
        let given: [Option<Range<usize>>; 6] = [
            self.names.as_ref().map(Spanned::span),
            self.match_case.as_ref().map(Spanned::span),
            self.value_hex_length.as_ref().map(Spanned::span),
            self.value_min_length.as_ref().map(Spanned::span),
            self.numbered.as_ref().map(Spanned::span),
            self.policy.as_ref().map(Spanned::span),
        ];
        for (key, s) in OPTION_KEYS.into_iter().zip(given) {
            if let Some(s) = s.filter(|_| !kind.accepts(key)) {
                return Err(at.err(
                    s,
                    format_args!("key `{key}` does not apply to rule kind `{kind}`"),
                ));
            }
        }
        Ok(())
    }

    /// The `hosts` scope (every host without it).
    fn scope(&self, at: &At<'_>) -> Result<HostScope, RulesError> {
        let Some(list) = &self.hosts else {
            return Ok(HostScope::all());
        };
        if list.get_ref().is_empty() {
            return Err(at.err(
                list.span(),
                "`hosts` must list at least one host (leave it out for all hosts)",
            ));
        }
        let mut patterns = Vec::with_capacity(list.get_ref().len());
        for h in list.get_ref() {
            let pattern =
                scope::compile_host_pattern(h.get_ref()).map_err(|e| at.err(h.span(), e))?;
            patterns.push(pattern);
        }
        Ok(HostScope::from_patterns(patterns))
    }

    /// The `names`, `match-case` and value conditions of a parameter rule.
    fn filter(&self, kind: RuleKind, at: &At<'_>) -> Result<ParamFilter, RulesError> {
        let Some(names) = &self.names else {
            return Err(at.missing(format_args!("rule kind `{kind}` needs `names`")));
        };
        let match_case = self.match_case.as_ref().is_some_and(|m| *m.get_ref());
        let value = ValueCondition {
            hex_length: self.value_hex_length.as_ref().map(|v| *v.get_ref()),
            min_length: self.value_min_length.as_ref().map(|v| *v.get_ref()),
        };
        let mut compiled = Vec::with_capacity(names.get_ref().len());
        for n in names.get_ref() {
            let pattern = params::compile_pattern(n.get_ref(), match_case)
                .map_err(|e| at.err(n.span(), e))?;
            compiled.push(pattern);
        }
        ParamFilter::compiled(compiled, match_case, value).map_err(|e| at.err(names.span(), e))
    }

    /// [`RawRule::filter`] for path parameters, whose names cannot hold a separator.
    fn path_filter(&self, kind: RuleKind, at: &At<'_>) -> Result<ParamFilter, RulesError> {
        let filter = self.filter(kind, at)?;
        for (raw, compiled) in self
            .names
            .iter()
            .flat_map(|l| l.get_ref())
            .zip(filter.names())
        {
            ParamFilter::check_path_name(raw.get_ref(), compiled)
                .map_err(|e| at.err(raw.span(), e))?;
        }
        Ok(filter)
    }

    /// The `policy` of a `trailing-slash` rule.
    fn policy(&self, at: &At<'_>) -> Result<SlashPolicy, RulesError> {
        let Some(p) = &self.policy else {
            return Err(at.missing(
                "rule kind `trailing-slash` needs `policy` (\"add\", \"remove\" or \"keep\")",
            ));
        };
        SlashPolicy::from_name(p.get_ref()).ok_or_else(|| {
            at.err(
                p.span(),
                format_args!(
                    "unknown policy `{}`, expected \"add\", \"remove\" or \"keep\"",
                    p.get_ref()
                ),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value for each key of the schema.
    fn value(key: &str) -> &'static str {
        match key {
            "names" => "[\"a\"]",
            "hosts" => "[\"h.example\"]",
            "policy" => "\"add\"",
            "match-case" | "numbered" => "true",
            "value-hex-length" => "32",
            "value-min-length" => "16",
            other => panic!("no sample value for `{other}`"),
        }
    }

    fn rule(kind: RuleKind, keys: &[&str]) -> String {
        let mut text = format!("version = 1\n[[rule]]\nkind = \"{kind}\"\n");
        for key in keys {
            text.push_str(&format!("{key} = {}\n", value(key)));
        }
        text
    }

    #[test]
    fn every_kind_round_trips_through_toml() {
        for &kind in RuleKind::ALL {
            let all: Vec<&str> = kind.needs().iter().chain(kind.takes()).copied().collect();
            for keys in [kind.needs(), &all[..]] {
                let rules = parse(&rule(kind, keys)).unwrap_or_else(|e| panic!("{kind}: {e}"));
                assert_eq!(rules.len(), 1);
                assert_eq!(rules[0].action.kind(), kind);
                assert_eq!(rules[0].action.name(), kind.name());
            }
        }
    }

    #[test]
    fn every_needed_key_is_needed() {
        for &kind in RuleKind::ALL {
            for missing in kind.needs() {
                let keys: Vec<&str> = kind
                    .needs()
                    .iter()
                    .copied()
                    .filter(|k| k != missing)
                    .collect();
                let e = parse(&rule(kind, &keys)).unwrap_err();
                assert_eq!(e.line, 2, "{kind} without {missing}: {e}");
                assert!(e.message.contains(&format!("needs `{missing}`")), "{e}");
            }
        }
    }

    #[test]
    fn every_other_key_is_refused() {
        for &kind in RuleKind::ALL {
            for key in OPTION_KEYS {
                if kind.accepts(key) {
                    continue;
                }
                let mut keys = kind.needs().to_vec();
                keys.push(key);
                let e = parse(&rule(kind, &keys)).unwrap_err();
                assert_eq!(
                    e.message,
                    format!("key `{key}` does not apply to rule kind `{kind}`")
                );
                assert_eq!(e.line, 4 + kind.needs().len(), "{kind}: {e}");
            }
        }
    }

    #[test]
    fn errors_carry_lines() {
        let e = parse("version = 1\n\n[[rule]]\nkind = \"nope\"\n").unwrap_err();
        assert_eq!((e.line, e.column), (4, 8));
        assert!(e
            .message
            .starts_with("unknown rule kind `nope`, expected one of drop-params, keep-params,"));
        let e = parse("version = 1\n[[rule]]\nkind = \"sort-params\"\nbogus = 1\n").unwrap_err();
        assert_eq!(e.line, 4);
        let e = parse("version = 2\n").unwrap_err();
        assert_eq!(e.line, 1);
        assert_eq!(
            e.to_string(),
            "line 1, column 11: unsupported rules version 2 (this build reads version 1)"
        );
        let e =
            parse("version = 1\n[[rule]]\nkind = \"drop-fragment\"\nhosts = [\"é\", \"a b\"]\n")
                .unwrap_err();
        assert_eq!((e.line, e.column), (4, 15));
        assert_eq!(e.message, HostScope::new(&["a b"]).unwrap_err().to_string());
    }
}
