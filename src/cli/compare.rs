//! `compare A B`: the lowest rung of the ladder at which two records have the same key,
//! under the key options of `normalize` and with its lenient repairs.

use std::io::{self, Write};
use std::process::ExitCode;

use irinorm::lowest_common_rung;

use super::args::{key_settings, CompareArgs};

/// Prints the lowest rung at which A and B have the same key (exit 0), or `different`
/// (exit 1).
pub(crate) fn compare(a: &CompareArgs) -> Result<ExitCode, String> {
    let settings = key_settings(&a.key, a.strict)?;
    let rung = lowest_common_rung(&a.a, &a.b, &settings).map_err(|e| e.to_string())?;
    let (answer, code) = match rung {
        Some(level) => (level.name(), ExitCode::SUCCESS),
        None => ("different", ExitCode::from(1)),
    };
    let mut out = io::stdout().lock();
    match writeln!(out, "{answer}").and_then(|()| out.flush()) {
        Ok(()) => Ok(code),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(code),
        Err(e) => Err(format!("writing output: {e}")),
    }
}
