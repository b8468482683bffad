//! `irinorm migrate`: what moving from the keys of `--from` to the keys of `--to` does to
//! the records of the inputs ([`irinorm::MigrationReport`]). The engine reads the inputs on
//! every thread, each record is seen under both normalizers by the
//! [`Migration`](irinorm::Migration) operation, and its observation comes back in input
//! order through the engine's output, to the report.

use std::io::{self, Write};
use std::process::ExitCode;

use irinorm::stream::{Engine, Operation};
use irinorm::{Error, Migration, MigrationReport, Normalizer, Notes, Observation, RawLine};

use super::args::{engine_options, key_settings_of, MigrateArgs, MigrateFormat, OutputArg};
use super::lines::{catch_interrupt, input_paths, open_inputs};

/// `migrate`: the report of a migration over the inputs.
pub(crate) fn migrate(a: &MigrateArgs) -> Result<ExitCode, String> {
    let shared = &a.shared;
    if shared.output != OutputArg::Key || shared.unique || shared.null || shared.with_filename {
        return Err(
            "migrate writes a report: --output, --unique, --null and --with-filename do not apply"
                .into(),
        );
    }
    let normalizer = |which: &'static str, options: &str| -> Result<Normalizer, String> {
        let settings = key_settings_of(which, options)?;
        Normalizer::from_settings(&settings).map_err(|e| format!("{which}: {e}"))
    };
    let op = MigrateOp(Migration::new(
        normalizer("--from", &a.from)?,
        normalizer("--to", &a.to)?,
    ));
    let paths = input_paths(shared)?;
    let inputs = open_inputs(&paths, shared.binary)?;
    let stdin_is_input = paths.iter().any(|p| p.path.as_os_str() == "-");
    let engine =
        Engine::new(&op, engine_options(shared, stdin_is_input)?).with_interrupt(catch_interrupt());
    let mut sink = ReportSink::default();
    let stats = engine
        .run_inputs(inputs, &mut sink, &mut io::stderr())
        .map_err(|e| e.to_string())?;
    sink.flush().map_err(|e| e.to_string())?;
    let summary = sink.report.summary();
    let text = match a.format {
        MigrateFormat::Text => summary.to_text(),
        MigrateFormat::Json => summary.to_json() + "\n",
    };
    io::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| e.to_string())?;
    Ok(if stats.interrupted {
        ExitCode::from(super::lines::INTERRUPTED)
    } else {
        ExitCode::SUCCESS
    })
}

/// The migration as an engine operation: each record's observation in its line form.
struct MigrateOp(Migration);

impl MigrateOp {
    /// Appends the line form of the observation of `raw` to `out`.
    fn observe(&self, raw: &[u8], out: &mut String) {
        let mut obs = Observation::default();
        self.0.observe(raw, &mut obs);
        obs.write_line(out);
    }
}

impl Operation for MigrateOp {
    fn apply(&self, record: &str, out: &mut String) -> Result<(), Error> {
        self.observe(record.as_bytes(), out);
        Ok(())
    }

    fn apply_raw(&self, line: RawLine, out: &mut String, _: &mut Notes) -> Result<(), Error> {
        self.observe(line.bytes, out);
        Ok(())
    }
}

/// Where the engine writes the observations: each complete line is added to the report.
#[derive(Default)]
struct ReportSink {
    report: MigrationReport,
    partial: Vec<u8>,
    obs: Observation,
}

impl ReportSink {
    /// Adds one line: an observation, or an empty line for a record the engine refused
    /// before the operation saw it (a line too long), invalid under both.
    fn add_line(&mut self, line: &[u8]) {
        let text = String::from_utf8_lossy(line);
        if !self.obs.read_line(&text) {
            self.obs = Observation::default();
        }
        self.report.add(&self.obs);
    }
}

impl Write for ReportSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut partial = std::mem::take(&mut self.partial);
        partial.extend_from_slice(buf);
        let mut start = 0;
        while let Some(n) = memchr::memchr(b'\n', &partial[start..]) {
            self.add_line(&partial[start..start + n]);
            start += n + 1;
        }
        partial.drain(..start);
        self.partial = partial;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
