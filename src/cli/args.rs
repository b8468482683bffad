//! The command line's arguments (SPEC §6): the clap definitions, and their conversion to the
//! library's settings ([`Settings`]) and engine options ([`EngineOptions`]).

use std::io::{self, IsTerminal};
use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::error::ErrorKind;
use clap::{
    value_parser, Arg, ArgAction, ArgMatches, Args, FromArgMatches, Parser, Subcommand, ValueEnum,
    ValueHint,
};
use irinorm::internals::{
    Field, Framing, KeyOption, KeyPlacement, LogPart, OptionKind, RecordFormat, KEY_OPTIONS,
};
use irinorm::stream::{EngineOptions, OnError, OutputMode};
use irinorm::{Grammar, RulesText, Settings, SettingsError};

/// Normalize IRIs and URIs (RFC 3987, RFC 3986), one per line, into canonical keys.
///
/// Exit status: 0 when every record was handled, 1 when `check` found an invalid record or
/// `--on-error fail` stopped at one (`compare`: the two differ), 2 for a usage, input or
/// output error, 130 when interrupted (Ctrl-C).
#[derive(Parser, Debug)]
#[command(name = "irinorm", version, about, max_term_width = 100)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
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
    /// Report what moving a store from one kind of key to another does to its records:
    /// changed keys, groups split, keys merged, each per rule, with examples.
    ///
    /// For example: `irinorm migrate --from "--profile wayback" --to "--form surt" FILE`.
    Migrate(MigrateArgs),
    /// Write a shell completion script to standard output.
    ///
    /// For example `irinorm completions bash > /etc/bash_completion.d/irinorm`, or for zsh
    /// into a directory of `$fpath` as `_irinorm`.
    Completions(CompletionsArgs),
    /// Write the manual page (roff) to standard output: `irinorm man | man -l -`.
    Man,
}

#[derive(Args, Debug)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum OutputArg {
    Key,
    Tsv,
    Jsonl,
    /// The record as read, with its key added (`--key-field`, `--key-name`).
    Record,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum LogArg {
    /// `host ident user [date] "request" status bytes "referer" "agent"`.
    Combined,
    /// `host ident user [date] "request" status bytes`.
    Common,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ProgressArg {
    /// Only when standard error is a terminal.
    Auto,
    /// Always (on a file or pipe, one line a second).
    Always,
    /// Never.
    Never,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum StatsFormatArg {
    /// A human-readable table.
    Text,
    /// One JSON object on one line.
    Json,
}

/// `--binary`: what to do with an input that is a known binary container.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum BinaryArg {
    /// Refuse it, naming its format (exit 2).
    Refuse,
    /// Read it as lines, each a record.
    Text,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum OnErrorArg {
    Mark,
    Skip,
    Fail,
}

/// `--grammar`: one of the library's grammars, by its name ([`Grammar::name`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct GrammarArg(Grammar);

impl ValueEnum for GrammarArg {
    fn value_variants<'a>() -> &'a [Self] {
        use Grammar::*;
        &[
            Self(IriReference),
            Self(Iri),
            Self(AbsoluteIri),
            Self(UriReference),
            Self(Uri),
            Self(AbsoluteUri),
        ]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()))
    }
}

impl GrammarArg {
    /// The library's grammar.
    pub(crate) fn grammar(self) -> Grammar {
        self.0
    }
}

/// Options shared by every line-oriented subcommand.
#[derive(Args, Debug, Clone)]
pub(crate) struct SharedArgs {
    /// Input files (gzip, zstd, xz and bzip2 are detected by content); `-` or none means
    /// standard input.
    #[arg(value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
    /// Read input paths from LIST, one per line, after the FILEs (`-`: standard input).
    #[arg(long, value_name = "LIST")]
    pub(crate) files_from: Option<PathBuf>,
    /// What to write per record: the key alone, `input<TAB>key<TAB>error`, JSON lines
    /// (with file, line, error and warnings), or the record as read with its key added.
    #[arg(long, value_enum, default_value = "key")]
    pub(crate) output: OutputArg,
    #[command(flatten)]
    pub(crate) records: RecordArgs,
    /// In tsv output, start each row with the input's name and the line number.
    #[arg(long)]
    pub(crate) with_filename: bool,
    /// End each output record with a NUL byte instead of a line feed.
    #[arg(short = '0', long)]
    pub(crate) null: bool,
    /// An input whose first bytes are a binary container's magic number (ELF, PDF, ZIP,
    /// PNG, JPEG, GIF, SQLite, Parquet, …; `irinorm man` lists them) is refused with exit 2
    /// before any record is written, or read as lines (`text`). Any other input is always
    /// read as lines: a NUL byte makes its record invalid, never the input.
    #[arg(long, value_enum, default_value = "refuse", value_name = "POLICY")]
    pub(crate) binary: BinaryArg,
    /// What to do with an invalid record: an empty line, nothing, or stop with exit 1.
    #[arg(long, value_enum, default_value = "mark")]
    pub(crate) on_error: OnErrorArg,
    /// Worker threads (default: all cores).
    #[arg(
        short = 'j',
        long,
        value_name = "N",
        default_value_t = 0,
        hide_default_value = true
    )]
    pub(crate) threads: usize,
    #[arg(long, help = KeyOption::named("strict").help)]
    pub(crate) strict: bool,
    /// Longest record in bytes; a longer line is an error record, never held whole.
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 20)]
    pub(crate) max_line_bytes: usize,
    /// Print statistics to standard error at the end (also when interrupted); distinct
    /// keys are estimated (±0.8%) unless --unique counts them.
    #[arg(long)]
    pub(crate) stats: bool,
    /// The form of the statistics; `json` is one object (implies --stats).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub(crate) stats_format: Option<StatsFormatArg>,
    /// Write only the first record of each key, and no invalid records (128-bit
    /// fingerprints, ~21 bytes per distinct key).
    #[arg(long)]
    pub(crate) unique: bool,
    /// The most memory --unique's set of keys may take (K, M, G, T: powers of 1024); a run
    /// that needs more stops with exit 2 at the first record whose key does not fit, every
    /// record before it written [default: half the memory of the machine or container].
    #[arg(long, value_name = "SIZE", value_parser = super::memory::parse_size, requires = "unique")]
    pub(crate) unique_memory: Option<usize>,
    /// No diagnostics about invalid records (errors that stop the run are still printed).
    #[arg(short, long)]
    pub(crate) quiet: bool,
    /// Diagnostics printed before the rest are only counted.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub(crate) max_diagnostics: usize,
    /// Draw a progress bar on standard error: when it is a terminal, always, or never.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    pub(crate) progress: ProgressArg,
    /// Chunk size in bytes (for tests and tuning).
    #[arg(long, hide = true, default_value_t = 1 << 20)]
    pub(crate) chunk_size: usize,
    /// Read files instead of mapping them into memory. A mapped file must not be changed or
    /// truncated by another program during the run (a truncation ends it with an error);
    /// use this for files that may be.
    #[arg(long)]
    pub(crate) no_mmap: bool,
}

/// Records, not bare URLs: where each line's URL is, and where record output puts the key.
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct RecordArgs {
    /// The URL is this field of each line (1-based number, or a header row's column name),
    /// fields separated by --delimiter (a tab by default; a comma with --csv).
    #[arg(long, value_name = "N|NAME", help_heading = "Records")]
    pub(crate) field: Option<String>,
    /// The byte between fields (one ASCII character, or `tab`).
    #[arg(long, value_name = "C", help_heading = "Records")]
    pub(crate) delimiter: Option<String>,
    /// The lines are CSV records (RFC 4180: quoted fields, doubled quotes); a field quoted
    /// across a line feed is an invalid record.
    #[arg(long, help_heading = "Records", conflicts_with_all = ["json_field", "cdx", "cdxj"])]
    pub(crate) csv: bool,
    /// The first line of each input is a header row (implied by a field given by name).
    #[arg(long, help_heading = "Records")]
    pub(crate) header: bool,
    /// The lines are JSON objects; the URL is the string member at PATH (names joined by
    /// dots for nested objects).
    #[arg(long, value_name = "PATH", help_heading = "Records", conflicts_with_all = ["field", "cdx", "cdxj"])]
    pub(crate) json_field: Option<String>,
    /// The input is a CDX index: fields separated by spaces, the legend line ` CDX N b a …`
    /// read where the file starts with one (else the 11-field layout); the URL is field `a`.
    #[arg(long, help_heading = "Records", conflicts_with_all = ["field", "cdxj", "delimiter"])]
    pub(crate) cdx: bool,
    /// The input is a CDXJ index (`urlkey timestamp {json}`): the URL is the `url` member.
    #[arg(long, help_heading = "Records", conflicts_with_all = ["field", "delimiter"])]
    pub(crate) cdxj: bool,
    /// The input is a web server's access log in this format (Apache and nginx); the URL is
    /// the request's target (a relative reference: --base resolves it), or with
    /// `--field referer` the referer (combined only).
    #[arg(long, value_enum, value_name = "FORMAT", help_heading = "Records",
          conflicts_with_all = ["csv", "json_field", "cdx", "cdxj", "delimiter", "header"])]
    pub(crate) log: Option<LogArg>,
    /// In record output, the key replaces this field (number, column name, CDX legend
    /// letter, or JSON member path) instead of being appended.
    #[arg(long, value_name = "N|NAME", help_heading = "Records")]
    pub(crate) key_field: Option<String>,
    /// In record output of JSON lines, the name of the member the key is added as
    /// (default: key).
    #[arg(
        long,
        value_name = "NAME",
        help_heading = "Records",
        conflicts_with = "key_field"
    )]
    pub(crate) key_name: Option<String>,
    /// In record output, also write each record's error (`kind:column: message`; a JSON
    /// `error` member), empty or null for a valid record.
    #[arg(long, help_heading = "Records")]
    pub(crate) error_field: bool,
}

impl RecordArgs {
    /// Whether any of these options is given.
    pub(crate) fn is_set(&self) -> bool {
        let RecordArgs {
            field,
            delimiter,
            csv,
            header,
            json_field,
            cdx,
            cdxj,
            log,
            key_field,
            key_name,
            error_field,
        } = self;
        field.is_some()
            || delimiter.is_some()
            || *csv
            || *header
            || json_field.is_some()
            || *cdx
            || *cdxj
            || log.is_some()
            || key_field.is_some()
            || key_name.is_some()
            || *error_field
    }

    /// The framing these options describe (`record_output`: for `--output record`); `None`
    /// for lines of one URL each. Options that would be ignored are refused.
    pub(crate) fn framing(&self, record_output: bool) -> Result<Option<Framing>, String> {
        let placing = self.key_field.is_some() || self.key_name.is_some() || self.error_field;
        if placing && !record_output {
            return Err(
                "--key-field, --key-name and --error-field place the key in record \
                        output: add --output record"
                    .into(),
            );
        }
        if self.header && (self.json_field.is_some() || self.cdx || self.cdxj) {
            return Err(
                "--header is for --field and --csv (a CDX legend line is found by \
                        itself)"
                    .into(),
            );
        }
        if self.delimiter.is_some() && (self.json_field.is_some() || self.cdxj) {
            return Err("--delimiter is for --field and --csv".into());
        }
        let delimiter = match self.delimiter.as_deref() {
            None => None,
            Some("tab" | "\\t" | "\t") => Some(b'\t'),
            Some(d) if d.len() == 1 && d.is_ascii() && !matches!(d, "\n" | "\r" | "\"") => {
                Some(d.as_bytes()[0])
            }
            Some(d) => {
                return Err(format!(
                    "--delimiter takes one ASCII character (or tab), not {d:?}"
                ))
            }
        };
        let format = if let Some(log) = self.log {
            let part = match self.field.as_deref() {
                None | Some("request") => LogPart::Request,
                Some("referer") if log == LogArg::Combined => LogPart::Referer,
                Some("referer") => return Err("a common log has no referer: --log combined".into()),
                Some(other) => {
                    return Err(format!(
                        "with --log, --field is request or referer, not {other:?}"
                    ))
                }
            };
            RecordFormat::Log(part)
        } else if self.csv {
            RecordFormat::Csv(delimiter.unwrap_or(b','))
        } else if self.json_field.is_some() {
            RecordFormat::JsonLines
        } else if self.cdx {
            RecordFormat::Cdx
        } else if self.cdxj {
            RecordFormat::Cdxj
        } else if self.field.is_some() || delimiter.is_some() || self.header {
            RecordFormat::Delimited(delimiter.unwrap_or(b'\t'))
        } else {
            if self.key_field.is_some() || self.key_name.is_some() || self.error_field {
                return Err(
                    "--key-field, --key-name and --error-field need a record format \
                            (--field, --csv, --json-field, --cdx or --cdxj) and --output record"
                        .into(),
                );
            }
            return Ok(None);
        };
        if let (true, RecordFormat::Delimited(d)) = (record_output, format) {
            if d != b'\t' {
                // A key may hold any printable ASCII character; tabs and spaces never.
                return Err(format!(
                    "--output record of text delimited by {:?} could split a key that holds \
                     it: use --csv --delimiter {:?} (quoted fields), or tabs",
                    char::from(d),
                    char::from(d)
                ));
            }
        }
        let json = format == RecordFormat::JsonLines;
        let url = match (&self.json_field, &self.field) {
            _ if self.log.is_some() => None,
            (Some(path), _) => Some(Field::Name(path.clone())),
            (None, Some(f)) => Some(field(f, "--field")?),
            (None, None) => None,
        };
        let key = match (&self.key_field, &self.key_name) {
            (Some(f), _) if json => KeyPlacement::Replace(Field::Name(f.clone())),
            (Some(f), _) => KeyPlacement::Replace(field(f, "--key-field")?),
            (None, Some(name)) => KeyPlacement::Member(name.clone()),
            (None, None) => KeyPlacement::Append,
        };
        let framing = Framing {
            format,
            url,
            key,
            header: self.header,
            error_field: self.error_field,
        };
        framing.check()?;
        Ok(Some(framing))
    }
}

/// A field given on the command line: a 1-based number, or a name.
fn field(text: &str, option: &str) -> Result<Field, String> {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return match text.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(Field::Index(n - 1)),
            _ => Err(format!("{option} counts fields from 1, not {text}")),
        };
    }
    Ok(Field::Name(text.to_owned()))
}

impl SharedArgs {
    /// Whether statistics are printed at the end.
    pub(crate) fn wants_stats(&self) -> bool {
        self.stats || self.stats_format.is_some()
    }

    /// Whether the run shows or counts warnings: in jsonl rows, or in the statistics.
    pub(crate) fn shows_warnings(&self) -> bool {
        self.output == OutputArg::Jsonl || self.wants_stats()
    }
}

/// The key options of `normalize` and `compare` but `--strict` (which every line
/// subcommand takes): the arguments [`KEY_OPTIONS`] declares, read into [`Settings`] (a rules
/// file by its path, read by [`key_settings`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyArgs {
    settings: Settings,
    rules: Option<PathBuf>,
}

/// The key options the command line declares among them, in its order.
fn cli_key_options() -> Vec<&'static KeyOption> {
    let mut options: Vec<_> = KEY_OPTIONS
        .iter()
        .filter(|o| o.cli_order.is_some())
        .collect();
    options.sort_by_key(|o| o.cli_order);
    options
}

/// The argument of one key option.
fn key_arg(o: &'static KeyOption) -> Arg {
    let arg = Arg::new(o.field).long(o.name).help(o.help);
    let arg = match o.kind {
        OptionKind::Flag => return arg.action(ArgAction::SetTrue),
        OptionKind::Choice(names) => arg.value_parser(PossibleValuesParser::new(names)),
        OptionKind::File => arg
            .value_parser(value_parser!(PathBuf))
            .value_hint(ValueHint::AnyPath),
        _ => arg.value_parser(value_parser!(String)),
    };
    let arg = arg.value_name(o.value_name).action(ArgAction::Set);
    let arg = match o.default {
        Some(default) => arg.default_value(default),
        None => arg,
    };
    // The two sources of protocol rules exclude each other (see `Settings`).
    match o.field {
        "rules" => arg.conflicts_with("profile"),
        _ => arg,
    }
}

impl Args for KeyArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cli_key_options()
            .into_iter()
            .fold(cmd, |c, o| c.arg(key_arg(o)))
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        KeyArgs::augment_args(cmd)
    }
}

impl FromArgMatches for KeyArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut a = KeyArgs::default();
        a.update_from_arg_matches(m)?;
        Ok(a)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        let unknown = |e: SettingsError| clap::Error::raw(ErrorKind::UnknownArgument, e);
        for o in cli_key_options() {
            match o.kind {
                OptionKind::Flag => self.settings.set_flag(o.field, m.get_flag(o.field)),
                OptionKind::File => {
                    self.rules = m.get_one::<PathBuf>(o.field).cloned();
                    Ok(())
                }
                _ => {
                    let text = m.get_one::<String>(o.field).cloned();
                    self.settings.set_text(o.field, text)
                }
            }
            .map_err(unknown)?;
        }
        Ok(())
    }
}

#[derive(Args, Debug)]
pub(crate) struct NormalizeArgs {
    #[command(flatten)]
    pub(crate) key: KeyArgs,
    /// For each record, print the steps that changed it, each with the part it changed
    /// (text blocks, or JSON lines with --output jsonl).
    #[arg(long)]
    pub(crate) explain: bool,
    #[command(flatten)]
    pub(crate) shared: SharedArgs,
}

#[derive(Args, Debug)]
pub(crate) struct ToUriArgs {
    /// Also convert non-ASCII DNS host names to A-labels (the optional ToASCII of §3.1).
    #[arg(long)]
    pub(crate) ascii_host: bool,
    #[command(flatten)]
    pub(crate) shared: SharedArgs,
}

#[derive(Args, Debug)]
pub(crate) struct ResolveArgs {
    /// The absolute base IRI.
    #[arg(long, value_name = "IRI")]
    pub(crate) base: String,
    /// Non-strict resolution: a scheme equal to the base's is ignored (RFC 3986 §5.2.2).
    #[arg(long)]
    pub(crate) non_strict: bool,
    #[command(flatten)]
    pub(crate) shared: SharedArgs,
}

#[derive(Args, Debug)]
pub(crate) struct CheckArgs {
    /// The production each record must match.
    #[arg(long, value_enum, default_value = "iri-reference")]
    pub(crate) grammar: GrammarArg,
    #[command(flatten)]
    pub(crate) shared: SharedArgs,
}

#[derive(Args, Debug)]
pub(crate) struct CompareArgs {
    /// The first IRI.
    pub(crate) a: String,
    /// The second IRI.
    pub(crate) b: String,
    #[command(flatten)]
    pub(crate) key: KeyArgs,
    #[arg(long, help = KeyOption::named("strict").help)]
    pub(crate) strict: bool,
}

#[derive(Args, Debug)]
pub(crate) struct MigrateArgs {
    /// The key options of the keys held now, as `normalize` takes them, in one argument
    /// (e.g. "--profile wayback"; "" for the defaults).
    #[arg(long, value_name = "OPTS", allow_hyphen_values = true)]
    pub(crate) from: String,
    /// The key options of the keys to move to (e.g. "--form surt").
    #[arg(long, value_name = "OPTS", allow_hyphen_values = true)]
    pub(crate) to: String,
    /// The report for people (`text`) or for jobs (`json`, one object).
    #[arg(long, value_enum, default_value = "text")]
    pub(crate) format: MigrateFormat,
    #[command(flatten)]
    pub(crate) shared: SharedArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum MigrateFormat {
    Text,
    Json,
}

/// The key options of `migrate`'s `--from` or `--to` (`which`), read from one argument
/// split at white space, as `normalize` reads them (`--strict` included).
pub(crate) fn key_settings_of(which: &'static str, options: &str) -> Result<Settings, String> {
    let strict = Arg::new("strict").long("strict").action(ArgAction::SetTrue);
    let cmd = KeyArgs::augment_args(clap::Command::new(which).no_binary_name(true))
        .arg(strict)
        .disable_help_flag(true);
    let m = cmd
        .try_get_matches_from(options.split_whitespace())
        .map_err(|e| format!("{which}: {}", e.render().to_string().trim_end()))?;
    let key = KeyArgs::from_arg_matches(&m).map_err(|e| format!("{which}: {e}"))?;
    key_settings(&key, m.get_flag("strict")).map_err(|e| format!("{which}: {e}"))
}

/// The key options as library [`Settings`] (a rules file is read here).
pub(crate) fn key_settings(a: &KeyArgs, strict: bool) -> Result<Settings, String> {
    let rules = match &a.rules {
        None => None,
        Some(path) => Some(RulesText {
            origin: path.display().to_string(),
            text: std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?,
        }),
    };
    Ok(a.settings.clone().with_rules(rules).with_strict(strict))
}

/// The engine options for a run, which reads standard input if `stdin_is_input`.
pub(crate) fn engine_options(
    shared: &SharedArgs,
    stdin_is_input: bool,
) -> Result<EngineOptions, String> {
    // Someone typing at a terminal wants each key as soon as the line is entered; the
    // engine passes a line on as soon as a chunk is full, so make a chunk one byte.
    let interactive = stdin_is_input && io::stdin().is_terminal();
    let options = EngineOptions::default()
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
            OutputArg::Record => OutputMode::Record,
        })
        .with_framing(shared.records.framing(shared.output == OutputArg::Record)?)
        .with_on_error(match shared.on_error {
            OnErrorArg::Mark => OnError::Mark,
            OnErrorArg::Skip => OnError::Skip,
            OnErrorArg::Fail => OnError::Fail,
        })
        .with_strict(shared.strict)
        .with_max_line_bytes(shared.max_line_bytes.max(1))
        .with_unique(shared.unique)
        .with_unique_memory(match (shared.unique, shared.unique_memory) {
            (true, None) => super::memory::default_unique_memory(),
            (_, cap) => cap.unwrap_or(usize::MAX),
        })
        .with_stats(shared.wants_stats())
        .with_max_diagnostics(if shared.quiet {
            0
        } else {
            shared.max_diagnostics
        })
        .with_with_filename(shared.with_filename)
        .with_null_terminated(shared.null)
        .with_refuse_containers(shared.binary == BinaryArg::Refuse);
    // SAFETY: the command line's contract, stated in its README and in the help of
    // `--no-mmap`: an input file is not changed or truncated by another program while
    // irinorm reads it, or else `--no-mmap` is given. (A truncation is reported and ends the
    // run, `cli::sigbus`.)
    Ok(unsafe { options.with_mmap(!shared.no_mmap) })
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    /// The argument `id` of subcommand `sub`.
    fn arg(sub: &str, id: &str) -> Option<Arg> {
        let cli = Cli::command();
        let sub = cli.find_subcommand(sub).expect("a subcommand");
        let found = sub.get_arguments().find(|a| a.get_id() == id).cloned();
        found
    }

    /// What a clap argument says of one option: long name, help, value name, possible
    /// values, default, whether it is a flag (a flag's value is clap's `bool`, not shown).
    fn declared(a: &Arg) -> (String, String, String, Vec<String>, Vec<String>, bool) {
        let flag = matches!(a.get_action(), ArgAction::SetTrue);
        let text = |s: Option<&clap::builder::StyledStr>| s.map(|s| s.to_string());
        let values = a
            .get_possible_values()
            .into_iter()
            .map(|v| v.get_name().to_owned());
        let defaults = a.get_default_values().iter();
        let value_name = a.get_value_names().map(|n| n.join(" "));
        (
            a.get_long().unwrap_or_default().to_owned(),
            text(a.get_help()).unwrap_or_default(),
            value_name.filter(|_| !flag).unwrap_or_default(),
            values.filter(|_| !flag).collect(),
            defaults.map(|d| d.to_string_lossy().into_owned()).collect(),
            flag,
        )
    }

    /// What the table says of one option, in the terms of [`declared`].
    fn tabled(o: &KeyOption) -> (String, String, String, Vec<String>, Vec<String>, bool) {
        let flag = o.kind == OptionKind::Flag;
        let choices = match o.kind {
            OptionKind::Choice(names) => names.iter().map(|n| (*n).to_owned()).collect(),
            _ => Vec::new(),
        };
        (
            o.name.to_owned(),
            o.help.to_owned(),
            o.value_name.to_owned(),
            choices,
            o.default.map(str::to_owned).into_iter().collect(),
            flag,
        )
    }

    #[test]
    fn the_key_arguments_are_the_tables() {
        for sub in ["normalize", "compare"] {
            for o in KEY_OPTIONS {
                let a = arg(sub, o.field).unwrap_or_else(|| panic!("{sub} lacks --{}", o.name));
                assert_eq!(declared(&a), tabled(o), "{sub} --{}", o.name);
            }
        }
        // The line subcommands all take --strict, as the table says it.
        for sub in ["to-uri", "to-iri", "resolve", "check"] {
            let a = arg(sub, "strict").expect("--strict");
            assert_eq!(declared(&a), tabled(KeyOption::named("strict")), "{sub}");
        }
    }

    #[test]
    fn the_key_arguments_come_in_the_tables_order() {
        let cli = Cli::command();
        let normalize = cli.find_subcommand("normalize").unwrap();
        let fields: Vec<&str> = KEY_OPTIONS.iter().map(|o| o.field).collect();
        let ids: Vec<&str> = normalize
            .get_arguments()
            .map(|a| a.get_id().as_str())
            .filter(|id| fields.contains(id) && *id != "strict")
            .collect();
        let ordered: Vec<&str> = cli_key_options().iter().map(|o| o.field).collect();
        assert_eq!(ids, ordered);
        assert_eq!(ordered.len() + 1, KEY_OPTIONS.len());
    }

    #[test]
    fn every_key_argument_reaches_the_settings() {
        let mut line: Vec<String> = ["irinorm", "compare", "a", "b", "--strict"]
            .map(String::from)
            .into();
        // Every key option but --profile, which excludes --rules.
        for o in cli_key_options()
            .into_iter()
            .filter(|o| o.field != "profile")
        {
            line.push(format!("--{}", o.name));
            match o.kind {
                OptionKind::Flag => {}
                OptionKind::Choice(names) => line.push(names[names.len() - 1].to_owned()),
                _ => line.push("x".to_owned()),
            }
        }
        let cli = Cli::try_parse_from(line).unwrap();
        let Command::Compare(c) = cli.command else {
            panic!("compare")
        };
        let s = &c.key.settings;
        assert_eq!(c.key.rules, Some(PathBuf::from("x")));
        assert_eq!(
            (s.level.as_deref(), s.form.as_deref()),
            (Some("protocol"), Some("surt"))
        );
        assert_eq!(s.base.as_deref(), Some("x"));
        assert!(s.drop_fragment && s.nfc && s.absolute && s.surt_scheme && c.strict);
    }
}
