//! Key options given by name, as the command line and the Python package take them, checked
//! and turned into [`Options`] in one place, so that every front end accepts the same
//! settings and rejects the others with the same message.
//!
//! The rules: `--rules` and `--profile` exclude each other; either implies the protocol rung
//! (RFC 3987 §5.3.4) when no level is given, and with a level other than `protocol` they are
//! an error, never silently ignored; the protocol rung needs one of them.

use std::fmt;
use std::sync::Arc;

use crate::ladder::protocol::Rules;
use crate::ladder::{Form, Level, Normalizer, Options};

/// Protocol rules as TOML text (the schema is in [`crate::ladder::protocol`]), with the name of
/// where the text came from, for messages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RulesText {
    /// Where the text came from (a file name), as messages show it.
    pub origin: String,
    /// The TOML text.
    pub text: String,
}

/// Key options given by name (SPEC §6: the options of `irinorm normalize`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Settings {
    /// `string`, `syntax`, `scheme` or `protocol`; none means `scheme`, or `protocol` when
    /// rules or a profile are given.
    pub level: Option<String>,
    /// `uri`, `iri` or `surt`; none means `uri`.
    pub form: Option<String>,
    /// A built-in rule profile: `crawler` (the newest) or a pinned one such as `crawler@1`.
    pub profile: Option<String>,
    /// Protocol rules from a TOML text.
    pub rules: Option<RulesText>,
    /// Remove the fragment.
    pub drop_fragment: bool,
    /// Apply Unicode NFC first.
    pub nfc: bool,
    /// Resolve relative references against this absolute IRI first.
    pub base: Option<String>,
    /// No trimming and no lenient repairs.
    pub strict: bool,
    /// Reject relative references.
    pub absolute: bool,
    /// With the `surt` form, write the scheme too.
    pub surt_scheme: bool,
}

/// Options that cannot make a normalizer, given by name ([`Settings`]) or typed
/// ([`Options`]); its text is the command line's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingsError {
    message: String,
}

impl SettingsError {
    pub(crate) fn new(message: impl Into<String>) -> SettingsError {
        SettingsError {
            message: message.into(),
        }
    }
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SettingsError {}

impl Settings {
    /// The rules the settings name, if any.
    fn load_rules(&self) -> Result<Option<Rules>, SettingsError> {
        match (&self.rules, &self.profile) {
            (Some(_), Some(_)) => Err(SettingsError::new(
                "--rules and --profile cannot be used together",
            )),
            (Some(r), None) => Rules::from_toml(&r.text).map(Some).map_err(|e| {
                SettingsError::new(format!(
                    "{}:{}:{}: {}",
                    r.origin, e.line, e.column, e.message
                ))
            }),
            (None, Some(name)) => Rules::profile(name).map(Some).ok_or_else(|| {
                let names: Vec<_> = Rules::profile_names().collect();
                SettingsError::new(format!(
                    "unknown profile {name:?}; built-in profiles: {}",
                    names.join(", ")
                ))
            }),
            (None, None) => Ok(None),
        }
    }

    /// The level: the one named, or the default implied by rules.
    fn level(&self, has_rules: bool) -> Result<Level, SettingsError> {
        let named = match &self.level {
            None => None,
            Some(name) => Some(Level::from_name(name).ok_or_else(|| {
                SettingsError::new(format!(
                    "unknown level {name:?}; levels: string, syntax, scheme, protocol"
                ))
            })?),
        };
        match (named, has_rules) {
            (None, false) => Ok(Level::Scheme),
            (None, true) | (Some(Level::Protocol), true) => Ok(Level::Protocol),
            (Some(Level::Protocol), false) => Err(SettingsError::new(
                "--level protocol needs --rules FILE or --profile NAME",
            )),
            (Some(_), true) => Err(SettingsError::new(
                "--rules and --profile apply only at --level protocol",
            )),
            (Some(level), false) => Ok(level),
        }
    }

    /// Checks the settings and turns them into [`Options`].
    pub fn to_options(&self) -> Result<Options, SettingsError> {
        let rules = self.load_rules()?;
        let level = self.level(rules.is_some())?;
        let form = match &self.form {
            None => Form::Uri,
            Some(name) => Form::from_name(name).ok_or_else(|| {
                SettingsError::new(format!("unknown form {name:?}; forms: uri, iri, surt"))
            })?,
        };
        Ok(Options {
            level,
            form,
            drop_fragment: self.drop_fragment,
            nfc: self.nfc,
            absolute: self.absolute,
            base: self.base.clone(),
            rules: rules.map(Arc::new),
            surt_scheme: self.surt_scheme,
            strict: self.strict,
        })
    }
}

impl Normalizer {
    /// Builds a normalizer from settings given by name, with the command line's messages
    /// for settings that make no sense.
    pub fn from_settings(settings: &Settings) -> Result<Normalizer, SettingsError> {
        Normalizer::new(settings.to_options()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(level: Option<&str>, profile: Option<&str>) -> Settings {
        Settings {
            level: level.map(str::to_owned),
            profile: profile.map(str::to_owned),
            ..Settings::default()
        }
    }

    #[test]
    fn a_profile_implies_the_protocol_rung() {
        let o = settings(None, Some("crawler")).to_options().unwrap();
        assert_eq!(o.level, Level::Protocol);
        assert!(o.rules.is_some());
    }

    #[test]
    fn rules_below_the_protocol_rung_are_rejected_not_ignored() {
        let e = settings(Some("scheme"), Some("crawler"))
            .to_options()
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "--rules and --profile apply only at --level protocol"
        );
        let e = settings(Some("protocol"), None).to_options().unwrap_err();
        assert!(e.to_string().contains("needs --rules"), "{e}");
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let e = settings(Some("exact"), None).to_options().unwrap_err();
        assert!(
            e.to_string().contains("string, syntax, scheme, protocol"),
            "{e}"
        );
        let e = settings(None, Some("nope")).to_options().unwrap_err();
        assert!(e.to_string().contains("crawler@1"), "{e}");
        let s = Settings {
            form: Some("url".into()),
            ..Settings::default()
        };
        assert!(s
            .to_options()
            .unwrap_err()
            .to_string()
            .contains("uri, iri, surt"));
    }

    #[test]
    fn typed_options_with_rules_below_the_protocol_rung_are_rejected() {
        let rules = Some(Arc::new(Rules::profile("crawler").unwrap()));
        let o = Options::default().with_rules(rules.clone());
        let e = Normalizer::new(o).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--rules and --profile apply only at --level protocol"
        );
        let o = Options::default()
            .with_rules(rules)
            .with_level(Level::Protocol);
        assert!(Normalizer::new(o).is_ok());
    }

    #[test]
    fn a_relative_base_is_a_settings_error() {
        let s = Settings {
            base: Some("a/b".into()),
            ..Settings::default()
        };
        let e = Normalizer::from_settings(&s).unwrap_err();
        assert!(e.to_string().starts_with("--base: relative"), "{e}");
    }

    #[test]
    fn rules_errors_name_their_origin() {
        let s = Settings {
            rules: Some(RulesText {
                origin: "my.toml".into(),
                text: "[[rule]]\nbogus = 1\n".into(),
            }),
            ..Settings::default()
        };
        let e = s.to_options().unwrap_err().to_string();
        assert!(e.starts_with("my.toml:"), "{e}");
    }
}
