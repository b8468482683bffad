//! The kinds of protocol rule (RFC 3987 §5.3.4; SPEC §4, "protocol"), in one table.
//!
//! Each row of the table gives a kind its `kind` name in a rules file, the component of the
//! key it rewrites (which is also the stage it runs in), the keys it needs and the keys it
//! may take, and a one-line description. The enum [`RuleKind`], its names, the parser's list
//! of kinds and keys ([`super::schema`]), the rules table of the documentation and the
//! normalizer's question "did only the query or fragment change?" all read this table.
//!
//! A new kind is a row here, a variant of [`Action`](super::Action) with its
//! [`Action::kind`](super::Action::kind) arm, a parse arm in [`super::schema`] and its code in
//! the stage of its component; the compiler points at each `match` that lacks it.

use std::fmt;

/// The component of a key that a rule rewrites. The rules run one component at a time, in
/// the order of these variants (the stages of the protocol rung, docs/protocol.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Component {
    /// The host (stage 1).
    Host,
    /// The scheme, with the port it makes the default (stage 2).
    Scheme,
    /// The path (stage 3).
    Path,
    /// The query (stage 4).
    Query,
    /// The fragment (stage 5).
    Fragment,
}

impl Component {
    /// The component's name, in lowercase (`host`, `query`).
    pub const fn name(self) -> &'static str {
        match self {
            Component::Host => "host",
            Component::Scheme => "scheme",
            Component::Path => "path",
            Component::Query => "query",
            Component::Fragment => "fragment",
        }
    }
}

/// One row of the table.
struct Row {
    name: &'static str,
    component: Component,
    needs: &'static [&'static str],
    takes: &'static [&'static str],
    effect: &'static str,
}

/// Defines [`RuleKind`] and its rows from one list, so that a kind cannot exist without its
/// name, component, keys and description.
macro_rules! rule_kinds {
    ($(
        $variant:ident = $name:literal, $component:ident,
        needs [$($need:literal),*], takes [$($take:literal),*],
        $effect:literal;
    )+) => {
        /// The kind of a protocol rule: what [`Action`](super::Action) it is, named as the
        /// `kind` of a rules file and as `--explain` prints it ([`RuleKind::name`]).
        ///
        /// Each variant's description below comes from the same table as the parser's list
        /// of kinds and keys.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum RuleKind {
            $(
                #[doc = concat!(
                    "`", $name, "` ([`Component::", stringify!($component), "`]): ", $effect,
                    ". See [`Action::", stringify!($variant), "`](super::Action::",
                    stringify!($variant), ")."
                )]
                $variant,
            )+
        }

        impl RuleKind {
            /// Every kind, in the order of the table.
            pub const ALL: &'static [RuleKind] = &[$(RuleKind::$variant),+];

            const fn row(self) -> Row {
                match self {
                    $(RuleKind::$variant => Row {
                        name: $name,
                        component: Component::$component,
                        needs: &[$($need),*],
                        takes: &[$($take),*],
                        effect: $effect,
                    },)+
                }
            }
        }
    };
}

rule_kinds! {
    DropParams = "drop-params", Query,
        needs ["names"], takes ["match-case", "value-hex-length", "value-min-length"],
        "remove matching query parameters";
    KeepParams = "keep-params", Query,
        needs ["names"], takes ["match-case"],
        "remove every query parameter that does not match";
    SortParams = "sort-params", Query,
        needs [], takes [],
        "sort query parameters by name, stably";
    DropEmptyQuery = "drop-empty-query", Query,
        needs [], takes [],
        "`/a?` → `/a`";
    DropEmptyParams = "drop-empty-params", Query,
        needs [], takes [],
        "remove empty `&`-separated pairs (`?a=1&&b` → `?a=1&b`, `?&` → `?`)";
    DropPathParams = "drop-path-params", Path,
        needs ["names"], takes ["match-case", "value-hex-length", "value-min-length"],
        "remove matching `;name=value` from every path segment";
    StripTrailingDot = "strip-trailing-dot", Host,
        needs [], takes [],
        "`example.com.` → `example.com`";
    StripWww = "strip-www", Host,
        needs [], takes ["numbered"],
        "`www.example.com` → `example.com` (`numbered = true`: also `www2.`)";
    HttpToHttps = "http-to-https", Scheme,
        needs [], takes [],
        "`http:` → `https:`";
    TrailingSlash = "trailing-slash", Path,
        needs ["policy"], takes [],
        "add or remove a trailing `/` (`policy` = `\"add\"`, `\"remove\"` or `\"keep\"`)";
    LowercasePath = "lowercase-path", Path,
        needs ["hosts"], takes [],
        "ASCII letters of the path to lowercase";
    DropFragment = "drop-fragment", Fragment,
        needs [], takes [],
        "remove the fragment";
}

impl RuleKind {
    /// The stable name: the `kind` of a rules file, printed by `--explain`.
    pub const fn name(self) -> &'static str {
        self.row().name
    }

    /// The kind named `name` in a rules file, if any.
    pub fn from_name(name: &str) -> Option<RuleKind> {
        RuleKind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// The component of the key the kind rewrites.
    pub const fn component(self) -> Component {
        self.row().component
    }

    /// Whether a rule of this kind only ever rewrites the query or the fragment, so that
    /// what it leaves is still a key of the scheme rung.
    pub const fn touches_only_query_or_fragment(self) -> bool {
        matches!(self.component(), Component::Query | Component::Fragment)
    }

    /// The keys a rule of this kind must have in a rules file, besides `kind`.
    pub const fn needs(self) -> &'static [&'static str] {
        self.row().needs
    }

    /// The keys a rule of this kind may have besides `kind`, `hosts` and [`Self::needs`].
    pub const fn takes(self) -> &'static [&'static str] {
        self.row().takes
    }

    /// Whether a rule of this kind may have `key` (`hosts` always).
    pub fn accepts(self, key: &str) -> bool {
        key == "hosts" || self.needs().contains(&key) || self.takes().contains(&key)
    }

    /// What a rule of this kind does, in one line of Markdown.
    pub const fn effect(self) -> &'static str {
        self.row().effect
    }
}

impl fmt::Display for RuleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules table as the documentation shows it, from the same rows as the code.
    fn markdown_table() -> String {
        let keys = |keys: &[&str]| {
            let quoted: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
            quoted.join(", ")
        };
        let mut t = String::from(
            "| `kind` | component | required keys | optional keys | effect |\n\
             |---|---|---|---|---|\n",
        );
        for k in RuleKind::ALL {
            t.push_str(&format!(
                "| `{}` | {} | {} | {} | {} |\n",
                k.name(),
                k.component().name(),
                keys(k.needs()),
                keys(k.takes()),
                k.effect()
            ));
        }
        t
    }

    #[test]
    fn every_kind_round_trips_through_its_name() {
        for &k in RuleKind::ALL {
            assert_eq!(RuleKind::from_name(k.name()), Some(k), "{k:?}");
            assert_eq!(k.to_string(), k.name());
        }
        assert_eq!(RuleKind::from_name("sort-param"), None);
        assert_eq!(RuleKind::from_name("Drop-Params"), None);
        assert_eq!(RuleKind::from_name(""), None);
    }

    #[test]
    fn names_are_distinct_kebab_case() {
        for (i, a) in RuleKind::ALL.iter().enumerate() {
            assert!(
                a.name()
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{a}"
            );
            for b in &RuleKind::ALL[i + 1..] {
                assert_ne!(a.name(), b.name());
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn keys_are_keys_of_the_schema() {
        use crate::ladder::protocol::schema::OPTION_KEYS;
        for &k in RuleKind::ALL {
            for key in k.needs().iter().chain(k.takes()) {
                assert!(OPTION_KEYS.contains(key) || *key == "hosts", "{k}: {key}");
                assert!(k.accepts(key), "{k}: {key}");
            }
            assert!(k.accepts("hosts"));
            assert!(!k.accepts("kind"));
            assert!(!k.needs().iter().any(|n| k.takes().contains(n)), "{k}");
        }
        assert!(!RuleKind::SortParams.accepts("policy"));
        assert!(RuleKind::TrailingSlash.accepts("policy"));
    }

    #[test]
    fn only_query_and_fragment_kinds_keep_the_scheme_key() {
        let only: Vec<&str> = RuleKind::ALL
            .iter()
            .filter(|k| k.touches_only_query_or_fragment())
            .map(|k| k.name())
            .collect();
        assert_eq!(
            only,
            [
                "drop-params",
                "keep-params",
                "sort-params",
                "drop-empty-query",
                "drop-empty-params",
                "drop-fragment"
            ]
        );
    }

    #[test]
    fn docs_list_every_kind() {
        let table = markdown_table();
        for k in RuleKind::ALL {
            assert!(table.contains(&format!("| `{}` |", k.name())), "{k}");
        }
        assert_eq!(table.lines().count(), RuleKind::ALL.len() + 2);
        let guide = include_str!("../../../docs/protocol.md");
        assert!(
            guide.contains(&table),
            "docs/protocol.md should hold this rules table:\n{table}"
        );
        let module: String = include_str!("mod.rs")
            .lines()
            .filter_map(|l| l.strip_prefix("//!"))
            .map(|l| format!("{}\n", l.strip_prefix(' ').unwrap_or(l)))
            .collect();
        assert!(
            module.contains(&table),
            "the module documentation should hold this rules table:\n{table}"
        );
    }
}
