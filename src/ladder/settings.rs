//! Key options given by name, as the command line and the Python package take them, checked
//! and turned into [`Options`] in one place, so that every front end accepts the same
//! settings and rejects the others with the same message.
//!
//! [`KEY_OPTIONS`] is the one declaration of those options (SPEC §6: the options of
//! `irinorm normalize`): their names, kinds, choices, defaults and help. The command line
//! builds its arguments from it, the Python package its signatures, and a test holds the
//! library's [`Settings`] and [`Options`], the native binding and the Python stub to it.
//!
//! The rules: `--rules` and `--profile` exclude each other; either implies the protocol rung
//! (RFC 3987 §5.3.4) when no level is given, and with a level other than `protocol` they are
//! an error, never silently ignored; the protocol rung needs one of them.

use std::fmt;
use std::sync::Arc;

use crate::ladder::compat::Compat;
use crate::ladder::options::{FORM_NAMES, LEVEL_NAMES};
use crate::ladder::protocol::Rules;
use crate::ladder::{Form, Level, Normalizer, Options};

/// What a key option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub enum OptionKind {
    /// A switch, off by default.
    Flag,
    /// One of these names.
    Choice(&'static [&'static str]),
    /// Any text.
    Text,
    /// The path of a file, whose text the front end reads ([`RulesText`]).
    File,
}

/// One key option, as every front end declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub struct KeyOption {
    /// The name on the command line, without its `--`.
    pub name: &'static str,
    /// The snake_case name: the field of [`Settings`] and the Python keyword argument.
    pub field: &'static str,
    /// What the option takes.
    pub kind: OptionKind,
    /// The name of its value in help texts (empty for a flag).
    pub value_name: &'static str,
    /// The value the command line and the Python package show as the default, if any (a
    /// flag is off by default). [`Settings`] leaves the field `None` for it.
    pub default: Option<&'static str>,
    /// The one-line help of the command line.
    pub help: &'static str,
    /// The place of the option among the key options of `normalize` and `compare`; `None`
    /// for one declared with the options of every line subcommand (`--strict`).
    pub cli_order: Option<u8>,
}

#[cfg_attr(not(feature = "internals"), allow(dead_code))]
const fn option(name: &'static str, field: &'static str, kind: OptionKind) -> KeyOption {
    KeyOption {
        name,
        field,
        kind,
        value_name: "",
        default: None,
        help: "",
        cli_order: None,
    }
}

#[cfg_attr(not(feature = "internals"), allow(dead_code))]
impl KeyOption {
    const fn value(mut self, value_name: &'static str, default: Option<&'static str>) -> Self {
        self.value_name = value_name;
        self.default = default;
        self
    }

    const fn help(mut self, help: &'static str, cli_order: Option<u8>) -> Self {
        self.help = help;
        self.cli_order = cli_order;
        self
    }

    /// The option of this snake_case name.
    ///
    /// # Panics
    ///
    /// If there is none: the names are the table's.
    pub fn named(field: &str) -> &'static KeyOption {
        KEY_OPTIONS
            .iter()
            .find(|o| o.field == field)
            .unwrap_or_else(|| panic!("no key option {field:?}"))
    }
}

/// The key options, in the order of the fields of [`Settings`] and of the Python keyword
/// arguments (the command line orders them by [`KeyOption::cli_order`]).
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub const KEY_OPTIONS: &[KeyOption] = &[
    option("level", "level", OptionKind::Choice(LEVEL_NAMES))
        .value("LEVEL", None)
        .help(
            "The rung of the comparison ladder [default: scheme, or protocol with --rules or \
             --profile]",
            Some(0),
        ),
    option("form", "form", OptionKind::Choice(FORM_NAMES))
        .value("FORM", None)
        .help(
            "The form of the key [default: uri, or the profile's own form: surt for \
             `wayback`]",
            Some(1),
        ),
    option("profile", "profile", OptionKind::Text)
        .value("NAME", None)
        .help(
            "A built-in versioned profile: the rules `crawler` (the newest), `crawler@1` or \
             `crawler@2`; or a compatibility profile that reproduces another \
             canonicalizer's keys: `wayback` (`wayback@1`, the SURT of CDX indexes) or \
             `w3lib` (`w3lib@1`, Scrapy's canonicalize_url)",
            Some(7),
        ),
    option("rules", "rules", OptionKind::File)
        .value("FILE", None)
        .help(
            "Protocol-rung rules from a TOML file (see docs/protocol.md)",
            Some(6),
        ),
    option("drop-fragment", "drop_fragment", OptionKind::Flag)
        .help("Remove the fragment (RFC 3987 §5.1)", Some(2)),
    option("nfc", "nfc", OptionKind::Flag).help(
        "Apply Unicode NFC first (RFC 3987 §3.1 step 1; off by default per §5.3.2.2)",
        Some(3),
    ),
    option("base", "base", OptionKind::Text)
        .value("IRI", None)
        .help(
            "Resolve relative references against this absolute IRI first",
            Some(4),
        ),
    option("strict", "strict", OptionKind::Flag).help(
        "No trimming and no repairs: each record must be the exact IRI",
        None,
    ),
    option("absolute", "absolute", OptionKind::Flag).help(
        "Reject relative references instead of normalizing them alone",
        Some(5),
    ),
    option("surt-scheme", "surt_scheme", OptionKind::Flag).help(
        "With --form surt, write the scheme too (`http://(com,example,)/`)",
        Some(8),
    ),
];

/// Protocol rules as TOML text (the schema is in docs/protocol.md), with the name of
/// where the text came from, for messages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RulesText {
    /// Where the text came from (a file name), as messages show it.
    pub origin: String,
    /// The TOML text.
    pub text: String,
}

/// Key options given by name (SPEC §6: the options of `irinorm normalize`), one field per
/// entry of [`KEY_OPTIONS`], in its order.
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

setters!(Settings {
    level: Option<String> => with_level,
    form: Option<String> => with_form,
    profile: Option<String> => with_profile,
    rules: Option<RulesText> => with_rules,
    drop_fragment: bool => with_drop_fragment,
    nfc: bool => with_nfc,
    base: Option<String> => with_base,
    strict: bool => with_strict,
    absolute: bool => with_absolute,
    surt_scheme: bool => with_surt_scheme,
});

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
    /// Sets the flag of this snake_case name ([`KeyOption::field`]), as a front end that
    /// reads options by name does.
    pub fn set_flag(&mut self, field: &str, on: bool) -> Result<(), SettingsError> {
        *match field {
            "drop_fragment" => &mut self.drop_fragment,
            "nfc" => &mut self.nfc,
            "strict" => &mut self.strict,
            "absolute" => &mut self.absolute,
            "surt_scheme" => &mut self.surt_scheme,
            _ => return Err(unknown_option(field, "flag")),
        } = on;
        Ok(())
    }

    /// Sets the named option of this snake_case name ([`KeyOption::field`]) that takes a
    /// text (rules are set as [`RulesText`], [`Settings::rules`]).
    pub fn set_text(&mut self, field: &str, text: Option<String>) -> Result<(), SettingsError> {
        *match field {
            "level" => &mut self.level,
            "form" => &mut self.form,
            "profile" => &mut self.profile,
            "base" => &mut self.base,
            _ => return Err(unknown_option(field, "text")),
        } = text;
        Ok(())
    }

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
            (None, Some(name)) if Compat::from_name(name).is_some() => Ok(None),
            (None, Some(name)) => Rules::profile(name).map(Some).ok_or_else(|| {
                let names: Vec<_> = Rules::profile_names().chain(Compat::names()).collect();
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
                    "unknown level {name:?}; levels: {}",
                    LEVEL_NAMES.join(", ")
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
        let compat = self.profile.as_deref().and_then(Compat::from_name);
        let level = self.level(rules.is_some() || compat.is_some())?;
        let form = match &self.form {
            None => compat.map_or(Form::Uri, Compat::form),
            Some(name) => Form::from_name(name).ok_or_else(|| {
                SettingsError::new(format!(
                    "unknown form {name:?}; forms: {}",
                    FORM_NAMES.join(", ")
                ))
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
            compat,
        })
    }
}

fn unknown_option(field: &str, kind: &str) -> SettingsError {
    SettingsError::new(format!("no key option {field:?} takes a {kind}"))
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
    fn a_compatibility_profile_is_the_peer_with_its_defaults() {
        for (name, compat, form) in [
            ("wayback", Compat::Wayback1, Form::Surt),
            ("wayback@1", Compat::Wayback1, Form::Surt),
            ("w3lib", Compat::W3lib1, Form::Uri),
            ("w3lib@1", Compat::W3lib1, Form::Uri),
        ] {
            let o = settings(None, Some(name)).to_options().unwrap();
            assert_eq!(
                (o.level, o.form, o.compat),
                (Level::Protocol, form, Some(compat))
            );
            assert!(o.rules.is_none());
            let given = settings(Some("protocol"), Some(name)).with_form(Some(form.name().into()));
            assert!(Normalizer::from_settings(&given).is_ok(), "{name}");
        }
        // Any other key option would be ignored: it is refused, naming the option.
        let refused = [
            settings(None, Some("wayback")).with_form(Some("uri".into())),
            settings(None, Some("w3lib")).with_form(Some("surt".into())),
            settings(None, Some("w3lib")).with_nfc(true),
            settings(None, Some("wayback")).with_drop_fragment(true),
            settings(None, Some("wayback")).with_strict(true),
            settings(None, Some("w3lib")).with_base(Some("http://a/".into())),
            settings(Some("scheme"), Some("wayback")),
        ];
        for s in refused {
            assert!(Normalizer::from_settings(&s).is_err(), "{s:?}");
        }
        let e = Normalizer::from_settings(&settings(None, Some("w3lib")).with_nfc(true));
        assert!(e.unwrap_err().to_string().contains("--nfc does not apply"));
        let e = settings(None, Some("wayback@2")).to_options().unwrap_err();
        assert!(e.to_string().contains("wayback@1, w3lib, w3lib@1"), "{e}");
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
