//! TEMPORARY: the record entry point of the library (`Settings`, `Normalizer::from_settings`,
//! `normalize_record_into`, ...) written over the older API, so the bindings build before the
//! library has it. Removed once the library provides these items at its root.

use std::sync::Arc;

use irinorm::protocol::Rules;
use irinorm::{Error, Form, Level, Normalizer, Options};

pub const KEY_VERSION: u32 = 1;

#[derive(Clone, Debug)]
pub struct RulesText {
    pub origin: String,
    pub text: String,
}

#[derive(Clone, Debug, Default)]
pub struct Settings {
    pub level: Option<String>,
    pub form: Option<String>,
    pub profile: Option<String>,
    pub rules: Option<RulesText>,
    pub drop_fragment: bool,
    pub nfc: bool,
    pub base: Option<String>,
    pub strict: bool,
    pub absolute: bool,
    pub surt_scheme: bool,
}

#[derive(Debug)]
pub struct SettingsError(String);

impl std::fmt::Display for SettingsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Clone, Copy, Debug)]
pub enum WarningKind {
    Idna,
}

impl WarningKind {
    pub fn name(self) -> &'static str {
        "idna"
    }
}

#[derive(Clone, Debug)]
pub struct Warning {
    pub kind: WarningKind,
    pub column: usize,
    pub message: &'static str,
}

#[derive(Default)]
pub struct Notes {
    pub warnings: Vec<Warning>,
    repairs: irinorm::repair::Repairs,
}

impl Notes {
    pub fn clear(&mut self) {
        self.warnings.clear();
        self.repairs = Default::default();
    }
}

pub struct Record {
    pub key: Option<String>,
    pub error: Option<Error>,
    pub warnings: Vec<Warning>,
}

pub struct Step {
    pub component: &'static str,
    pub rule: &'static str,
    pub before: String,
    pub after: String,
}

pub struct Explanation {
    pub key: String,
    pub steps: Vec<Step>,
}

pub struct Prepared {
    inner: Normalizer,
    strict: bool,
}

pub trait FromSettings: Sized {
    fn from_settings(s: &Settings) -> Result<Self, SettingsError>;
}

impl FromSettings for Prepared {
    fn from_settings(s: &Settings) -> Result<Self, SettingsError> {
        let err = |m: String| SettingsError(m);
        let rules = if let Some(r) = &s.rules {
            if s.profile.is_some() {
                return Err(err("--rules and --profile cannot be used together".into()));
            }
            Some(
                Rules::from_toml(&r.text)
                    .map_err(|e| err(format!("{}:{}:{}: {}", r.origin, e.line, e.column, e.message)))?,
            )
        } else if let Some(name) = &s.profile {
            Some(Rules::profile(name).ok_or_else(|| {
                let names: Vec<_> = Rules::profile_names().collect();
                err(format!(
                    "unknown profile {name:?}; built-in profiles: {}",
                    names.join(", ")
                ))
            })?)
        } else {
            None
        };
        let level = match (s.level.as_deref(), rules.is_some()) {
            (None, false) => Level::Scheme,
            (None, true) | (Some("protocol"), true) => Level::Protocol,
            (Some("protocol"), false) => {
                return Err(err("--level protocol needs --rules FILE or --profile NAME".into()))
            }
            (Some("string" | "syntax" | "scheme"), true) => {
                return Err(err("--rules and --profile apply only at --level protocol".into()))
            }
            (Some("string"), false) => Level::String,
            (Some("syntax"), false) => Level::Syntax,
            (Some("scheme"), false) => Level::Scheme,
            (Some(other), _) => {
                return Err(err(format!(
                    "invalid level {other:?}; expected string, syntax, scheme or protocol"
                )))
            }
        };
        let form = match s.form.as_deref() {
            None | Some("uri") => Form::Uri,
            Some("iri") => Form::Iri,
            Some("surt") => Form::Surt,
            Some(other) => {
                return Err(err(format!(
                    "invalid form {other:?}; expected uri, iri or surt"
                )))
            }
        };
        let options = Options {
            level,
            form,
            drop_fragment: s.drop_fragment,
            nfc: s.nfc,
            absolute: s.absolute,
            base: s.base.clone(),
            rules: rules.map(Arc::new),
            surt_scheme: s.surt_scheme,
        };
        let inner = Normalizer::new(options).map_err(|e| err(format!("--base: {e}")))?;
        Ok(Prepared {
            inner,
            strict: s.strict,
        })
    }
}

impl Prepared {
    pub fn normalize_record_into(
        &self,
        raw: &str,
        out: &mut String,
        notes: &mut Notes,
    ) -> Result<(), Error> {
        let mut scratch = String::new();
        let rec =
            irinorm::repair::prepare_str(raw, self.strict, &mut scratch, &mut notes.repairs)?;
        self.inner.normalize_into(rec, out)
    }

    pub fn record(&self, raw: &str) -> Record {
        let mut out = String::new();
        let mut notes = Notes::default();
        match self.normalize_record_into(raw, &mut out, &mut notes) {
            Ok(()) => Record {
                key: Some(out),
                error: None,
                warnings: notes.warnings,
            },
            Err(e) => Record {
                key: None,
                error: Some(e),
                warnings: notes.warnings,
            },
        }
    }

    pub fn explain(&self, raw: &str) -> Result<Explanation, Error> {
        let mut scratch = String::new();
        let mut repairs = Default::default();
        let rec = irinorm::repair::prepare_str(raw, self.strict, &mut scratch, &mut repairs)?;
        let e = self.inner.explain(rec)?;
        Ok(Explanation {
            key: e.key,
            steps: e
                .steps
                .into_iter()
                .map(|s| Step {
                    component: s.component,
                    rule: s.rule,
                    before: s.before,
                    after: s.after,
                })
                .collect(),
        })
    }
}
