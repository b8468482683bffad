//! The built-in, versioned profiles (RFC 3987 §5.3.4; SPEC §4, "protocol" and "Stability of
//! keys"): rules files compiled into the library, looked up by name.
//!
//! A released profile version never changes, because keys computed with it are stored; a
//! changed rule set is a new version (`crawler@2`, a new file `profiles/crawler-2.toml` and
//! its row below), and the unversioned name (`crawler`) then moves to it.

/// The `crawler@1` profile.
const CRAWLER_1: &str = include_str!("../../../profiles/crawler-1.toml");

/// The `crawler@2` profile: `crawler@1` and `drop-empty-params`.
const CRAWLER_2: &str = include_str!("../../../profiles/crawler-2.toml");

/// A built-in profile.
pub(super) struct Profile {
    /// The name [`Rules::profile`](super::Rules::profile) accepts.
    pub(super) name: &'static str,
    /// The versioned name the name stands for (`crawler@1`).
    pub(super) canonical: &'static str,
    /// The rules file.
    pub(super) text: &'static str,
}

/// The built-in profiles. `crawler` is the newest `crawler@N`.
pub(super) const PROFILES: &[Profile] = &[
    Profile {
        name: "crawler",
        canonical: "crawler@2",
        text: CRAWLER_2,
    },
    Profile {
        name: "crawler@1",
        canonical: "crawler@1",
        text: CRAWLER_1,
    },
    Profile {
        name: "crawler@2",
        canonical: "crawler@2",
        text: CRAWLER_2,
    },
];

/// The profile called `name`, if any.
pub(super) fn find(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::super::{Action, Rules};
    use super::*;

    #[test]
    fn every_profile_parses_and_names_a_versioned_profile() {
        for p in PROFILES {
            let rules = Rules::profile(p.name).unwrap_or_else(|| panic!("{}", p.name));
            assert_eq!(rules.profile_name(), Some(p.canonical));
            assert!(find(p.canonical).is_some(), "{}", p.canonical);
            assert!(p.canonical.contains('@'), "{}", p.canonical);
            assert!(!rules.is_empty());
        }
        assert!(find("crawler@0").is_none());
        assert!(Rules::profile("crawler@0").is_none());
        assert!(Rules::profile("").is_none());
    }

    #[test]
    fn crawler_is_crawler_2_and_fetch_safe() {
        let r = Rules::profile("crawler").unwrap();
        assert_eq!(r.profile_name(), Some("crawler@2"));
        assert_eq!(Rules::profile("crawler@2").unwrap().rules(), r.rules());
        // crawler@2 is crawler@1 with drop-empty-params, and crawler@1 is unchanged.
        let one = Rules::profile("crawler@1").unwrap();
        assert!(!one
            .rules()
            .iter()
            .any(|x| matches!(x.action, Action::DropEmptyParams)));
        let two: Vec<_> = r
            .rules()
            .iter()
            .filter(|x| !matches!(x.action, Action::DropEmptyParams))
            .cloned()
            .collect();
        assert_eq!(two, one.rules());
        assert_eq!(r.rules().len(), one.rules().len() + 1);
        for rule in Rules::profile("crawler@1")
            .unwrap()
            .rules()
            .iter()
            .chain(r.rules())
        {
            assert!(
                !matches!(
                    rule.action,
                    Action::SortParams
                        | Action::StripWww { .. }
                        | Action::HttpToHttps
                        | Action::TrailingSlash(_)
                        | Action::LowercasePath
                ),
                "{}",
                rule.action.name()
            );
            assert!(rule.scope.is_all());
        }
    }
}
