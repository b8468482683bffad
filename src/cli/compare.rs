//! `compare A B`: the lowest rung of the ladder at which two records have the same key.

use std::process::ExitCode;

use irinorm::ladder::{Level, Normalizer, Options};

/// The lowest rung at which `a` and `b` have the same key.
pub(crate) fn compare(a: &str, b: &str) -> Result<ExitCode, String> {
    for level in [Level::String, Level::Syntax, Level::Scheme] {
        let n = Normalizer::new(Options::default().with_level(level)).map_err(|e| e.to_string())?;
        let ka = n.normalize(a).map_err(|e| format!("A: {e}"))?;
        let kb = n.normalize(b).map_err(|e| format!("B: {e}"))?;
        if ka == kb {
            println!("{}", level.name());
            return Ok(ExitCode::SUCCESS);
        }
    }
    println!("different");
    Ok(ExitCode::from(1))
}
