//! Key options as the command line takes them (`--level scheme --drop-fragment`), read by
//! name through the library's one table of them (`KEY_OPTIONS`) into `Settings`, then made
//! into a normalizer by `Normalizer::from_settings`: the Java builder and
//! `Normalizer.fromOptions` both end here, so each option is defined once, in the library,
//! and a bad one gets the command line's message.

use irinorm::internals::{KeyOption, OptionKind, KEY_OPTIONS};
use irinorm::{Normalizer, RulesText, Settings};

/// A normalizer as Java holds it (behind a handle).
pub(crate) struct Configured {
    /// For explanations: warnings included.
    pub(crate) core: Normalizer,
    /// For keys alone: the same normalizer without the checks whose only result is
    /// warnings (keys and errors are the same).
    pub(crate) keys: Normalizer,
}

/// The normalizer of these command-line arguments, or the message that refuses them.
pub(crate) fn configured(args: &[String]) -> Result<Configured, String> {
    let settings = settings_of(args)?;
    let core = Normalizer::from_settings(&settings).map_err(|e| e.to_string())?;
    Ok(Configured {
        keys: core.clone().without_bidi_warnings(),
        core,
    })
}

/// The settings of `--name value`, `--name=value` and `--flag` arguments.
fn settings_of(args: &[String]) -> Result<Settings, String> {
    let mut settings = Settings::default();
    let mut seen: Vec<&str> = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) => (name, Some(value.to_owned())),
            None => (arg.as_str(), None),
        };
        let option =
            option_named(name).ok_or_else(|| format!("unexpected argument '{arg}' found"))?;
        if seen.contains(&option.name) {
            return Err(format!(
                "the argument '--{}' cannot be used multiple times",
                option.name
            ));
        }
        seen.push(option.name);
        if option.kind == OptionKind::Flag {
            if inline.is_some() {
                return Err(format!(
                    "unexpected value for the switch '--{}'",
                    option.name
                ));
            }
            settings
                .set_flag(option.field, true)
                .map_err(|e| e.to_string())?;
            continue;
        }
        let value = inline.or_else(|| args.next().cloned()).ok_or_else(|| {
            format!(
                "a value is required for '--{} <{}>' but none was supplied",
                option.name, option.value_name
            )
        })?;
        set_value(&mut settings, option, value)?;
    }
    Ok(settings)
}

/// The key option of the argument `--name`.
fn option_named(arg: &str) -> Option<&'static KeyOption> {
    let name = arg.strip_prefix("--")?;
    KEY_OPTIONS.iter().find(|o| o.name == name)
}

/// Sets an option that takes a value; a file's text is read here, as the command line does.
fn set_value(settings: &mut Settings, option: &KeyOption, value: String) -> Result<(), String> {
    if option.kind != OptionKind::File {
        return settings
            .set_text(option.field, Some(value))
            .map_err(|e| e.to_string());
    }
    let text = std::fs::read_to_string(&value).map_err(|e| format!("{value}: {e}"))?;
    settings.rules = Some(RulesText {
        origin: value,
        text,
    });
    Ok(())
}

/// The key options as `name<TAB>kind` rows (kind: `flag`, `choice`, `text` or `file`), in
/// the table's order: what the Java builder's setters are checked against.
pub(crate) fn table_rows() -> Vec<String> {
    KEY_OPTIONS
        .iter()
        .map(|o| {
            let kind = match o.kind {
                OptionKind::Flag => "flag",
                OptionKind::Choice(_) => "choice",
                OptionKind::File => "file",
                _ => "text",
            };
            format!("{}\t{kind}", o.name)
        })
        .collect()
}
