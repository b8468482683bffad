//! Running an operation over every record of the inputs through the library's engine, and
//! turning its outcome into the documented exit codes (SPEC §6: 0, 1, 2).

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use irinorm::stream::input::Input;
use irinorm::stream::{Engine, Operation, RunError};

use super::args::{engine_options, SharedArgs};
use super::progress;

pub(crate) fn open_inputs(files: &[PathBuf]) -> Result<Vec<Input>, String> {
    if files.is_empty() {
        return Ok(vec![Input::stdin()]);
    }
    files
        .iter()
        .map(|f| Input::open(f).map_err(|e| format!("{}: {e}", f.display())))
        .collect()
}

/// Runs one operation over every record of the inputs through the engine.
pub(crate) fn run_lines(
    op: &dyn Operation,
    shared: &SharedArgs,
    is_check: bool,
) -> Result<ExitCode, String> {
    let inputs = open_inputs(&shared.files)?;
    let options = engine_options(shared);
    let bar = progress::Bar::new();
    let mut engine = Engine::new(op, options);
    if io::stderr().is_terminal() {
        engine = engine.with_progress(&bar);
    }
    let stdout = io::stdout();
    let is_tty = stdout.is_terminal();
    let lock = stdout.lock();
    let mut stderr = io::stderr();
    let result = if is_tty {
        engine.run_inputs(inputs, io::LineWriter::new(lock), &mut stderr)
    } else {
        engine.run_inputs(
            inputs,
            io::BufWriter::with_capacity(1 << 16, lock),
            &mut stderr,
        )
    };
    match result {
        Ok(stats) => {
            if shared.stats {
                let _ = stats.write_report(&mut stderr);
            }
            if is_check && stats.invalid > 0 {
                Ok(ExitCode::from(1))
            } else {
                Ok(ExitCode::SUCCESS)
            }
        }
        Err(RunError::BrokenPipe) => Ok(ExitCode::SUCCESS),
        Err(e @ RunError::Invalid { .. }) => {
            let _ = writeln!(stderr, "irinorm: {e}");
            Ok(ExitCode::from(1))
        }
        Err(e) => Err(e.to_string()),
    }
}
