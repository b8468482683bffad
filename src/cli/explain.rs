//! `normalize --explain`: each record with the steps of the ladder that changed it.

use std::io::{self, Write};
use std::process::ExitCode;

use irinorm::ladder::Normalizer;

use super::args::SharedArgs;
use super::lines::open_inputs;
use irinorm::stream::records::{Record, Records};

/// `normalize --explain`: each record with the steps that changed it, one block each. The
/// records are the engine's (decompressed, BOM dropped, `--max-line-bytes` applied).
pub(crate) fn explain(normalizer: &Normalizer, shared: &SharedArgs) -> Result<ExitCode, String> {
    let inputs = open_inputs(&shared.files)?;
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    for input in inputs {
        let name = input.name.clone();
        let mut records =
            Records::new(input, shared.max_line_bytes).map_err(|e| format!("{name}: {e}"))?;
        while let Some(record) = records.next_record().map_err(|e| format!("{name}: {e}"))? {
            match explain_one(normalizer, record, &mut out) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
                Err(e) => return Err(format!("writing output: {e}")),
            }
        }
    }
    match out.flush() {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(format!("writing output: {e}")),
    }
}

/// Writes one record's block: the record, each step, the warnings, then the key or error.
fn explain_one(
    normalizer: &Normalizer,
    record: Record<'_>,
    out: &mut impl Write,
) -> io::Result<()> {
    let line = match record {
        Record::Line(line) => line,
        Record::TooLong(prefix) => {
            writeln!(out, "{}...", String::from_utf8_lossy(prefix))?;
            return writeln!(out, "  ! too-long: line longer than --max-line-bytes");
        }
    };
    writeln!(out, "{}", String::from_utf8_lossy(line))?;
    let explained = match std::str::from_utf8(line) {
        Ok(text) => normalizer.explain(text),
        Err(_) => normalizer.explain_bytes(line),
    };
    match explained {
        Ok(e) => {
            for s in &e.steps {
                let after = if s.after.is_empty() {
                    "(removed)"
                } else {
                    &s.after
                };
                writeln!(
                    out,
                    "  {:<9} {:<30} {} -> {}",
                    s.component, s.rule, s.before, after
                )?;
            }
            for w in &e.warnings {
                writeln!(out, "  ~ {w}")?;
            }
            writeln!(out, "  = {}", e.key)
        }
        Err(e) => writeln!(out, "  ! {e}"),
    }
}
