//! The command line (SPEC §6): argument parsing ([`args`]) and the wiring of each subcommand
//! to a library operation run by the engine ([`lines`]), plus `--explain` ([`explain`]),
//! `compare` ([`compare`]), the progress bar ([`progress`]) and what is generated from the
//! argument definitions: `--version`, shell completions and the manual page ([`about`]),
//! and a larger pipe buffer for standard output ([`pipe`]).
//! Everything here is a thin shell: the library does the work.
//!
//! Nothing here panics on a closed or full output: every write goes through an error that
//! ends in the documented exit status.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};
use irinorm::internals::{bidi_warnings, resolve_components};
use irinorm::stream::Operation;
use irinorm::{Error, Grammar, HostMapping, IriRef, Normalizer, Notes, RawLine, Resolution};

mod about;
mod args;
mod compare;
mod explain;
mod lines;
mod memory;
mod migrate;
mod pipe;
mod progress;
mod sigbus;

use args::{
    key_settings, CheckArgs, Cli, Command, NormalizeArgs, ResolveArgs, SharedArgs, ToUriArgs,
};
use lines::run_lines;

/// Runs the command line; returns the process exit status (SPEC §6).
pub fn main() -> ExitCode {
    let mut command = Cli::command();
    // The long version reads the built-in profiles: made only for a run that may print it.
    if std::env::args_os().skip(1).any(|a| asks_version(&a)) {
        command = command.long_version(about::long_version());
    }
    let cli = match command
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => return clap_exit(&e),
    };
    match run(cli) {
        Ok(code) => code,
        Err(message) => {
            // Best effort: with standard error closed too, the status still tells.
            let _ = writeln!(io::stderr(), "irinorm: {message}");
            ExitCode::from(2)
        }
    }
}

/// Whether the argument `arg` may ask for the version: `--version`, or `-V` alone or among
/// other short flags (`-qV`). A value that only looks so costs the long version's making.
fn asks_version(arg: &std::ffi::OsStr) -> bool {
    let arg = arg.as_encoded_bytes();
    arg == b"--version"
        || (arg.len() > 1 && arg[0] == b'-' && arg[1] != b'-' && arg.contains(&b'V'))
}

/// Prints what clap has to say (help, the version, a usage error) and returns its status;
/// a help text that cannot be written is an output error (exit 2), not a panic.
fn clap_exit(e: &clap::Error) -> ExitCode {
    match e.print() {
        Ok(()) => ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2)),
        Err(io) if io.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(io) => {
            let _ = writeln!(io::stderr(), "irinorm: writing output: {io}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Normalize(a) => normalize(&a),
        Command::ToUri(a) => to_uri(&a),
        Command::ToIri(shared) => to_iri(&shared),
        Command::Resolve(a) => resolve(&a),
        Command::Check(a) => check(a),
        Command::Compare(a) => compare::compare(&a),
        Command::Migrate(a) => migrate::migrate(&a),
        Command::Completions(a) => about::completions(a.shell),
        Command::Man => about::man(),
    }
}

/// `normalize`: the key of every record (or, with `--explain`, the steps).
fn normalize(a: &NormalizeArgs) -> Result<ExitCode, String> {
    let settings = key_settings(&a.key, a.shared.strict)?;
    let mut normalizer = Normalizer::from_settings(&settings).map_err(|e| e.to_string())?;
    if a.explain {
        return explain::explain(&normalizer, &a.shared);
    }
    if !a.shared.shows_warnings() {
        normalizer = normalizer.without_bidi_warnings();
    }

    // The normalizer is an engine operation with a fast path (SPEC §8).
    run_lines(&normalizer, &a.shared, false)
}

/// `to-uri`: the RFC 3987 §3.1 mapping of every record.
fn to_uri(a: &ToUriArgs) -> Result<ExitCode, String> {
    let mapping = if a.ascii_host {
        HostMapping::ToAscii
    } else {
        HostMapping::PercentEncode
    };
    let op = move |rec: &str, out: &mut String| -> Result<(), Error> {
        out.push_str(&irinorm::to_uri(rec, mapping)?);
        Ok(())
    };
    run_lines(&op, &a.shared, false)
}

/// `to-iri`: the RFC 3987 §3.2 conversion of every record.
fn to_iri(shared: &SharedArgs) -> Result<ExitCode, String> {
    let op = |rec: &str, out: &mut String| -> Result<(), Error> {
        out.push_str(&irinorm::to_iri(rec)?);
        Ok(())
    };
    run_lines(&op, shared, false)
}

/// `resolve`: every record resolved against `--base` (RFC 3986 §5.2).
fn resolve(a: &ResolveArgs) -> Result<ExitCode, String> {
    let base_view = IriRef::parse(&a.base).map_err(|e| format!("--base: {e}"))?;
    if !base_view.is_absolute() {
        return Err("--base: the base must be an absolute IRI (with a scheme)".into());
    }
    let base = base_view.components();
    let mode = if a.non_strict {
        Resolution::NonStrict
    } else {
        Resolution::Strict
    };
    let op = move |rec: &str, out: &mut String| -> Result<(), Error> {
        let r = IriRef::parse(rec)?;
        resolve_components(&base, &r.components(), mode, out);
        Ok(())
    };
    run_lines(&op, &a.shared, false)
}

/// `check`: the validity of every record as written; exit 1 if any is invalid.
fn check(a: CheckArgs) -> Result<ExitCode, String> {
    let op = Check(a.grammar.grammar());
    // A validator reports the record as written: no trimming, no repairs.
    let mut shared = a.shared;
    shared.strict = true;
    run_lines(&op, &shared, true)
}

/// `check`'s operation: the record's validity under a grammar, and the warnings of
/// RFC 3987 §4.2 about its bidi structure.
struct Check(Grammar);

impl Operation for Check {
    fn apply(&self, record: &str, out: &mut String) -> Result<(), Error> {
        irinorm::check(record, self.0)?;
        out.push_str(record);
        Ok(())
    }

    fn apply_raw(&self, line: RawLine, out: &mut String, notes: &mut Notes) -> Result<(), Error> {
        let mut scratch = String::new();
        let record = line.prepare(&mut scratch, &mut notes.repairs)?;
        let view = IriRef::parse_as(record, self.0)?;
        bidi_warnings(&view, &mut notes.warnings);
        out.push_str(record);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_that_may_ask_for_the_version() {
        for yes in ["--version", "-V", "-qV", "-Vq"] {
            assert!(asks_version(yes.as_ref()), "{yes}");
        }
        for no in ["--verbose", "-q", "V", "-", "--", "--Version", "file-V.txt"] {
            assert!(!asks_version(no.as_ref()), "{no}");
        }
    }
}
