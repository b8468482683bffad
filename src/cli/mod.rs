//! The command line (SPEC §6): argument parsing and the wiring of each subcommand to a
//! library operation run by the [`Engine`]. The binary's `main` is
//! one call to [`main`].

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

mod progress;

use clap::{Args, Parser, Subcommand, ValueEnum};

use irinorm::iri::convert::{self, HostMapping};
use irinorm::iri::error::Error;
use irinorm::iri::parse::{self, Grammar, IriRef};
use irinorm::iri::resolve;
use irinorm::ladder::settings::{RulesText, Settings};
use irinorm::ladder::{Level, Normalizer, Options};
use irinorm::stream::input::Input;
use irinorm::stream::{Engine, EngineOptions, OnError, Operation, OutputMode, RunError};

/// Normalize IRIs and URIs (RFC 3987, RFC 3986), one per line, into canonical keys.
#[derive(Parser, Debug)]
#[command(name = "irinorm", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Write the canonical key of every record (RFC 3987 §5.3 comparison ladder).
    Normalize(NormalizeArgs),
    /// Map IRIs to URIs (RFC 3987 §3.1), nothing else.
    ToUri(ToUriArgs),
    /// Convert URIs to IRIs (RFC 3987 §3.2), nothing else.
    ToIri(SharedArgs),
    /// Resolve references against a base (RFC 3986 §5.2), nothing normalized.
    Resolve(ResolveArgs),
    /// Check validity only, of each record exactly as written (no trimming or repairs);
    /// exit 1 if any record is invalid.
    Check(CheckArgs),
    /// Print the lowest rung at which A and B are equivalent, or "different" (exit 1).
    Compare(CompareArgs),
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum LevelArg {
    String,
    Syntax,
    Scheme,
    Protocol,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum FormArg {
    Uri,
    Iri,
    Surt,
}

impl LevelArg {
    /// The library's name of the level.
    fn name(self) -> &'static str {
        match self {
            LevelArg::String => "string",
            LevelArg::Syntax => "syntax",
            LevelArg::Scheme => "scheme",
            LevelArg::Protocol => "protocol",
        }
    }
}

impl FormArg {
    /// The library's name of the form.
    fn name(self) -> &'static str {
        match self {
            FormArg::Uri => "uri",
            FormArg::Iri => "iri",
            FormArg::Surt => "surt",
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum OutputArg {
    Key,
    Tsv,
    Jsonl,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum OnErrorArg {
    Mark,
    Skip,
    Fail,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum GrammarArg {
    IriReference,
    Iri,
    AbsoluteIri,
    UriReference,
    Uri,
    AbsoluteUri,
}

/// Options shared by every line-oriented subcommand.
#[derive(Args, Debug, Clone)]
struct SharedArgs {
    /// Input files (gzip and zstd detected by content); `-` or none means standard input.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// What to write per record: the key alone, `input<TAB>key<TAB>error`, or JSON lines.
    #[arg(long, value_enum, default_value = "key")]
    output: OutputArg,
    /// What to do with an invalid record: an empty line, nothing, or stop with exit 1.
    #[arg(long, value_enum, default_value = "mark")]
    on_error: OnErrorArg,
    /// Worker threads (default: all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// No trimming and no repairs: each record must be the exact IRI.
    #[arg(long)]
    strict: bool,
    /// Longest record in bytes; a longer line is an error record, never held whole.
    #[arg(long, default_value_t = 1 << 20)]
    max_line_bytes: usize,
    /// Print statistics to standard error at the end.
    #[arg(long)]
    stats: bool,
    /// Write only the first record of each key (128-bit fingerprints, ~16 bytes per key).
    #[arg(long)]
    unique: bool,
    /// Diagnostics printed before the rest are only counted.
    #[arg(long, default_value_t = 20)]
    max_diagnostics: usize,
    /// Chunk size in bytes (for tests and tuning).
    #[arg(long, hide = true, default_value_t = 1 << 20)]
    chunk_size: usize,
}

#[derive(Args, Debug)]
struct NormalizeArgs {
    /// The rung of the comparison ladder [default: scheme, or protocol with --rules or
    /// --profile].
    #[arg(long, value_enum)]
    level: Option<LevelArg>,
    /// The form of the key.
    #[arg(long, value_enum, default_value = "uri")]
    form: FormArg,
    /// Remove the fragment (RFC 3987 §5.1).
    #[arg(long)]
    drop_fragment: bool,
    /// Apply Unicode NFC first (RFC 3987 §3.1 step 1; off by default per §5.3.2.2).
    #[arg(long)]
    nfc: bool,
    /// Resolve relative references against this absolute IRI first.
    #[arg(long, value_name = "IRI")]
    base: Option<String>,
    /// Reject relative references instead of normalizing them alone.
    #[arg(long)]
    absolute: bool,
    /// Protocol-rung rules from a TOML file (see docs/protocol.md).
    #[arg(long, value_name = "FILE", conflicts_with = "profile")]
    rules: Option<PathBuf>,
    /// A built-in versioned rule profile: `crawler` (the newest) or `crawler@1`.
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,
    /// With --form surt, write the scheme too (`http://(com,example,)/`).
    #[arg(long)]
    surt_scheme: bool,
    /// For each record, print the steps that changed it (sequential, human-readable).
    #[arg(long)]
    explain: bool,
    #[command(flatten)]
    shared: SharedArgs,
}

#[derive(Args, Debug)]
struct ToUriArgs {
    /// Also convert non-ASCII DNS host names to A-labels (the optional ToASCII of §3.1).
    #[arg(long)]
    ascii_host: bool,
    #[command(flatten)]
    shared: SharedArgs,
}

#[derive(Args, Debug)]
struct ResolveArgs {
    /// The absolute base IRI.
    #[arg(long, value_name = "IRI")]
    base: String,
    /// Non-strict resolution: a scheme equal to the base's is ignored (RFC 3986 §5.2.2).
    #[arg(long)]
    non_strict: bool,
    #[command(flatten)]
    shared: SharedArgs,
}

#[derive(Args, Debug)]
struct CheckArgs {
    /// The production each record must match.
    #[arg(long, value_enum, default_value = "iri-reference")]
    grammar: GrammarArg,
    #[command(flatten)]
    shared: SharedArgs,
}

#[derive(Args, Debug)]
struct CompareArgs {
    /// The first IRI.
    a: String,
    /// The second IRI.
    b: String,
}

/// Runs the command line; returns the process exit status (SPEC §6).
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("irinorm: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Normalize(a) => {
            let normalizer =
                Normalizer::from_settings(&key_settings(&a)?).map_err(|e| e.to_string())?;
            if a.explain {
                return explain(&normalizer, &a.shared);
            }
            // The normalizer is an engine operation with a fast path (SPEC §8).
            run_lines(&normalizer, &a.shared, false)
        }
        Command::ToUri(a) => {
            let mapping = if a.ascii_host {
                HostMapping::ToAscii
            } else {
                HostMapping::PercentEncode
            };
            let op = move |rec: &str, out: &mut String| -> Result<(), Error> {
                out.push_str(&convert::to_uri(rec, mapping)?);
                Ok(())
            };
            run_lines(&op, &a.shared, false)
        }
        Command::ToIri(shared) => {
            let op = |rec: &str, out: &mut String| -> Result<(), Error> {
                out.push_str(&convert::to_iri(rec)?);
                Ok(())
            };
            run_lines(&op, &shared, false)
        }
        Command::Resolve(a) => {
            let base_view = IriRef::parse(&a.base).map_err(|e| format!("--base: {e}"))?;
            if !base_view.is_absolute() {
                return Err("--base: the base must be an absolute IRI (with a scheme)".into());
            }
            let base = base_view.components();
            let strict = !a.non_strict;
            let op = move |rec: &str, out: &mut String| -> Result<(), Error> {
                let r = IriRef::parse(rec)?;
                resolve::resolve_components(&base, &r.components(), strict, out);
                Ok(())
            };
            run_lines(&op, &a.shared, false)
        }
        Command::Check(a) => {
            let grammar = match a.grammar {
                GrammarArg::IriReference => Grammar::IriReference,
                GrammarArg::Iri => Grammar::Iri,
                GrammarArg::AbsoluteIri => Grammar::AbsoluteIri,
                GrammarArg::UriReference => Grammar::UriReference,
                GrammarArg::Uri => Grammar::Uri,
                GrammarArg::AbsoluteUri => Grammar::AbsoluteUri,
            };
            let op = move |rec: &str, out: &mut String| -> Result<(), Error> {
                parse::check(rec, grammar)?;
                out.push_str(rec);
                Ok(())
            };
            // A validator reports the record as written: no trimming, no repairs.
            let mut shared = a.shared;
            shared.strict = true;
            run_lines(&op, &shared, true)
        }
        Command::Compare(a) => compare(&a.a, &a.b),
    }
}

/// The key options of `normalize` as library [`Settings`] (a rules file is read here).
fn key_settings(a: &NormalizeArgs) -> Result<Settings, String> {
    let rules = match &a.rules {
        None => None,
        Some(path) => Some(RulesText {
            origin: path.display().to_string(),
            text: std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?,
        }),
    };
    let mut s = Settings::default();
    s.level = a.level.map(|l| l.name().to_owned());
    s.form = Some(a.form.name().to_owned());
    s.profile = a.profile.clone();
    s.rules = rules;
    s.drop_fragment = a.drop_fragment;
    s.nfc = a.nfc;
    s.base = a.base.clone();
    s.strict = a.shared.strict;
    s.absolute = a.absolute;
    s.surt_scheme = a.surt_scheme;
    Ok(s)
}

/// The lowest rung at which `a` and `b` have the same key.
fn compare(a: &str, b: &str) -> Result<ExitCode, String> {
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

fn engine_options(shared: &SharedArgs) -> EngineOptions {
    // Someone typing at a terminal wants each key as soon as the line is entered; the
    // engine passes a line on as soon as a chunk is full, so make a chunk one byte.
    let interactive = io::stdin().is_terminal()
        && (shared.files.is_empty() || shared.files.iter().any(|f| f.as_os_str() == "-"));
    EngineOptions::default()
        .with_threads(shared.threads)
        .with_chunk_size(if interactive {
            1
        } else {
            shared.chunk_size.max(1)
        })
        .with_output(match shared.output {
            OutputArg::Key => OutputMode::Key,
            OutputArg::Tsv => OutputMode::Tsv,
            OutputArg::Jsonl => OutputMode::Jsonl,
        })
        .with_on_error(match shared.on_error {
            OnErrorArg::Mark => OnError::Mark,
            OnErrorArg::Skip => OnError::Skip,
            OnErrorArg::Fail => OnError::Fail,
        })
        .with_strict(shared.strict)
        .with_max_line_bytes(shared.max_line_bytes.max(1))
        .with_unique(shared.unique)
        .with_stats(shared.stats)
        .with_max_diagnostics(shared.max_diagnostics)
}

fn open_inputs(files: &[PathBuf]) -> Result<Vec<Input>, String> {
    if files.is_empty() {
        return Ok(vec![Input::stdin()]);
    }
    files
        .iter()
        .map(|f| Input::open(f).map_err(|e| format!("{}: {e}", f.display())))
        .collect()
}

/// Runs one operation over every record of the inputs through the engine.
fn run_lines(op: &dyn Operation, shared: &SharedArgs, is_check: bool) -> Result<ExitCode, String> {
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

/// Whether the normalizer repairs records.
fn normalizer_repair(n: &Normalizer) -> irinorm::iri::repair::Repair {
    if n.options().strict {
        irinorm::iri::repair::Repair::Strict
    } else {
        irinorm::iri::repair::Repair::Lenient
    }
}

/// `normalize --explain`: each record with the steps that changed it, one block each.
fn explain(normalizer: &Normalizer, shared: &SharedArgs) -> Result<ExitCode, String> {
    let inputs = open_inputs(&shared.files)?;
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut scratch = String::new();
    let mut repairs = irinorm::iri::repair::Repairs::default();
    for input in inputs {
        let name = input.name.clone();
        let mut reader =
            io::BufReader::new(input.into_reader().map_err(|e| format!("{name}: {e}"))?);
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = io::BufRead::read_until(&mut reader, b'\n', &mut line)
                .map_err(|e| format!("{name}: {e}"))?;
            if n == 0 {
                break;
            }
            if line.last() == Some(&b'\n') {
                line.pop();
            }
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let shown = String::from_utf8_lossy(&line).into_owned();
            let r = match std::str::from_utf8(&line) {
                Ok(text) => normalizer.explain(text),
                Err(_) => irinorm::iri::repair::prepare(
                    &line,
                    normalizer_repair(normalizer),
                    &mut scratch,
                    &mut repairs,
                )
                .and_then(|rec| normalizer.explain(rec)),
            };
            let w = (|| -> io::Result<()> {
                writeln!(out, "{shown}")?;
                match r {
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
                        writeln!(out, "  = {}", e.key)
                    }
                    Err(e) => writeln!(out, "  ! {e}"),
                }
            })();
            match w {
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
