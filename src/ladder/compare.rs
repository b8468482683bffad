//! Which rung of the ladder makes two records equivalent (RFC 3987 §5.3: each rung puts
//! together at least the records the rungs below it do): the question a crawler engineer
//! asks when two URLs merge, or do not.

use std::fmt;

use crate::iri::error::Error;
use crate::ladder::options::Level;
use crate::ladder::settings::{Settings, SettingsError};
use crate::ladder::Normalizer;

/// Why two records could not be compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompareError {
    /// The settings cannot make a normalizer.
    Settings(SettingsError),
    /// The first record is invalid.
    A(Error),
    /// The second record is invalid.
    B(Error),
}

impl fmt::Display for CompareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompareError::Settings(e) => write!(f, "{e}"),
            CompareError::A(e) => write!(f, "A: {e}"),
            CompareError::B(e) => write!(f, "B: {e}"),
        }
    }
}

impl std::error::Error for CompareError {}

/// The lowest rung at which `a` and `b` (raw records, repaired as `settings` say) have the
/// same key, trying each rung from `string` up to the one `settings` name (its default:
/// `scheme`, or `protocol` with rules or a profile), keys in the form `settings` name;
/// `None` when they differ at every rung tried. The rules and the profile take part only at
/// the protocol rung.
pub fn lowest_common_rung(
    a: &str,
    b: &str,
    settings: &Settings,
) -> Result<Option<Level>, CompareError> {
    let top = Normalizer::from_settings(settings)
        .map_err(CompareError::Settings)?
        .options()
        .level;
    for level in [Level::String, Level::Syntax, Level::Scheme, Level::Protocol] {
        if level > top {
            break;
        }
        let mut rung = settings.clone();
        rung.level = Some(level.name().to_owned());
        if level != Level::Protocol {
            rung.rules = None;
            rung.profile = None;
        }
        let n = Normalizer::from_settings(&rung).map_err(CompareError::Settings)?;
        let ka = n.normalize(a).map_err(CompareError::A)?;
        let kb = n.normalize(b).map_err(CompareError::B)?;
        if ka == kb {
            return Ok(Some(level));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rung(a: &str, b: &str, profile: Option<&str>) -> Option<Level> {
        let s = Settings {
            profile: profile.map(str::to_owned),
            ..Settings::default()
        };
        lowest_common_rung(a, b, &s).unwrap()
    }

    #[test]
    fn each_rung_names_itself() {
        assert_eq!(rung("http://a/", "http://a/", None), Some(Level::String));
        assert_eq!(rung("HTTP://a/", "http://a/", None), Some(Level::Syntax));
        assert_eq!(rung("http://a", "http://a:80/", None), Some(Level::Scheme));
        assert_eq!(rung("http://a/x", "http://a/y", None), None);
    }

    #[test]
    fn the_protocol_rung_only_with_rules() {
        let (a, b) = ("http://a/?utm_source=x", "http://a/");
        assert_eq!(rung(a, b, None), None);
        assert_eq!(rung(a, b, Some("crawler")), Some(Level::Protocol));
        // Below the protocol rung the rules do not take part.
        assert_eq!(
            rung("HTTP://a/", "http://a/", Some("crawler")),
            Some(Level::Syntax)
        );
    }

    #[test]
    fn lenient_repairs_apply_and_errors_name_the_record() {
        assert_eq!(
            rung("http://a/b c", "http://a/b%20c", None),
            Some(Level::String)
        );
        let e = lowest_common_rung("http://a/", "http://[", &Settings::default()).unwrap_err();
        assert!(matches!(e, CompareError::B(_)), "{e}");
        let strict = Settings {
            strict: true,
            ..Settings::default()
        };
        let e = lowest_common_rung("http://a/b c", "http://a/", &strict).unwrap_err();
        assert!(matches!(e, CompareError::A(_)), "{e}");
    }
}
