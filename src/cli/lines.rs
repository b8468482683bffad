//! Running an operation over every record of the inputs through the library's engine, and
//! turning its outcome into the documented exit codes (SPEC §6: 0, 1, 2; 130 when
//! interrupted).
//!
//! Every input is opened before the first record is written: a missing or unreadable file,
//! or a directory, anywhere among the inputs stops the run before it starts (exit 2, nothing
//! written).

use std::io::{self, BufRead, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use irinorm::stream::{Engine, Input, Operation, RunError, Stats};

use super::args::{engine_options, BinaryArg, OutputArg, ProgressArg, SharedArgs, StatsFormatArg};
use super::progress;

/// The longest path accepted in a `--files-from` list, in bytes.
const MAX_LISTED_PATH: usize = 4096;

/// The exit status of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub(crate) const INTERRUPTED: u8 = 130;

/// Set by the Ctrl-C handler; the engine polls it.
static INTERRUPT: AtomicBool = AtomicBool::new(false);

/// Installs the Ctrl-C handler: the first Ctrl-C asks the run to stop cleanly (the records
/// read so far are written, the statistics printed); a second one ends the process at once.
pub(crate) fn catch_interrupt() -> &'static AtomicBool {
    // Installing fails only if a handler is installed already, which is then ours.
    let _ = ctrlc::set_handler(|| {
        if INTERRUPT.swap(true, Ordering::SeqCst) {
            std::process::exit(i32::from(INTERRUPTED));
        }
    });
    &INTERRUPT
}

/// An input path, and where it was named: empty for a FILE argument, `LIST:LINE: ` for
/// one read from a `--files-from` list (so that an error about it says where it is).
pub(crate) struct InputPath {
    pub(crate) path: PathBuf,
    pub(crate) named_at: String,
}

/// The input paths: the FILEs, then those listed in `--files-from`; standard input (`-`)
/// when there are neither.
pub(crate) fn input_paths(shared: &SharedArgs) -> Result<Vec<InputPath>, String> {
    let mut paths: Vec<InputPath> = shared
        .files
        .iter()
        .map(|path| InputPath {
            path: path.clone(),
            named_at: String::new(),
        })
        .collect();
    let Some(list) = &shared.files_from else {
        if paths.is_empty() {
            paths.push(InputPath {
                path: PathBuf::from("-"),
                named_at: String::new(),
            });
        }
        return Ok(paths);
    };
    let list_name = if list.as_os_str() == "-" {
        if paths.iter().any(|p| p.path.as_os_str() == "-") {
            return Err(
                "--files-from -: standard input holds the list of paths, so it \
                        cannot also be an input"
                    .into(),
            );
        }
        "<stdin>".to_owned()
    } else {
        list.display().to_string()
    };
    let reader: Box<dyn BufRead> = if list.as_os_str() == "-" {
        Box::new(io::stdin().lock())
    } else {
        let file = std::fs::File::open(list).map_err(|e| format!("{list_name}: {e}"))?;
        Box::new(io::BufReader::new(file))
    };
    read_list(reader, &list_name, &mut paths)?;
    Ok(paths)
}

/// Adds the paths of a `--files-from` list to `paths`: one per line, a final carriage
/// return dropped, empty lines skipped, each at most [`MAX_LISTED_PATH`] bytes.
fn read_list(
    mut reader: impl BufRead,
    name: &str,
    paths: &mut Vec<InputPath>,
) -> Result<(), String> {
    let mut line = Vec::new();
    let mut number = 0u64;
    loop {
        line.clear();
        number += 1;
        // Never more than the longest path (and its terminator) of one line in memory.
        let limit = (MAX_LISTED_PATH + 2) as u64;
        let n = Read::by_ref(&mut reader)
            .take(limit)
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("{name}: {e}"))?;
        if n == 0 {
            return Ok(());
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        } else if n as u64 == limit {
            return Err(format!(
                "{name}:{number}: path longer than {MAX_LISTED_PATH} bytes"
            ));
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.len() > MAX_LISTED_PATH {
            return Err(format!(
                "{name}:{number}: path longer than {MAX_LISTED_PATH} bytes"
            ));
        }
        if !line.is_empty() {
            paths.push(InputPath {
                path: path_from_bytes(&line, name, number)?,
                named_at: format!("{name}:{number}: "),
            });
        }
    }
}

#[cfg(unix)]
fn path_from_bytes(bytes: &[u8], _: &str, _: u64) -> Result<PathBuf, String> {
    use std::os::unix::ffi::OsStrExt;
    Ok(PathBuf::from(std::ffi::OsStr::from_bytes(bytes)))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: &[u8], name: &str, number: u64) -> Result<PathBuf, String> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(PathBuf::from(s)),
        Err(_) => Err(format!("{name}:{number}: the path is not UTF-8")),
    }
}

/// Opens every input before anything is read, so that a missing or unreadable file, or a
/// directory, fails the run before its first record. Every such path is reported.
pub(crate) fn open_inputs(paths: &[InputPath], binary: BinaryArg) -> Result<Vec<Input>, String> {
    let mut inputs = Vec::with_capacity(paths.len());
    let mut errors = Vec::new();
    for InputPath { path, named_at } in paths {
        let opened = Input::open(path).and_then(|input| refuse_container(input, binary));
        match opened {
            Ok(input) => inputs.push(input),
            Err(e) => errors.push(format!("{named_at}{}: {e}", path.display())),
        }
    }
    if errors.is_empty() {
        Ok(inputs)
    } else {
        Err(errors.join("\nirinorm: "))
    }
}

/// `input`, unless `binary` refuses it as a regular file that starts with a binary
/// container's magic number (as stored or decompressed): then the engine's refusal, before
/// any record of any input is written. (Other inputs are refused by the engine when it
/// reaches them.)
fn refuse_container(input: Input, binary: BinaryArg) -> io::Result<Input> {
    if binary == BinaryArg::Refuse {
        if let Some(refusal) = input.refusal() {
            return Err(refusal);
        }
    }
    Ok(input)
}

/// Runs one operation over every record of the inputs through the engine.
pub(crate) fn run_lines(
    op: &dyn Operation,
    shared: &SharedArgs,
    is_check: bool,
) -> Result<ExitCode, String> {
    if shared.with_filename && shared.output == OutputArg::Key {
        return Err("--with-filename needs --output tsv (jsonl rows always carry the file)".into());
    }
    let paths = input_paths(shared)?;
    let inputs = open_inputs(&paths, shared.binary)?;
    let stdin_is_input = paths.iter().any(|p| p.path.as_os_str() == "-");
    let options = engine_options(shared, stdin_is_input)?;
    if options.mmap() {
        super::sigbus::explain_truncated_inputs();
    }
    let bar = progress::Bar::new(shared.progress == ProgressArg::Always);
    let interrupt = catch_interrupt();
    let mut engine = Engine::new(op, options).with_interrupt(interrupt);
    let show_progress = match shared.progress {
        ProgressArg::Auto => io::stderr().is_terminal(),
        ProgressArg::Always => true,
        ProgressArg::Never => false,
    };
    if show_progress {
        engine = engine.with_progress(&bar);
    }
    let stdout = io::stdout();
    let is_tty = stdout.is_terminal();
    if !is_tty {
        super::pipe::enlarge_stdout();
    }
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
            report_stats(&stats, shared, &mut stderr);
            if stats.interrupted {
                Ok(ExitCode::from(INTERRUPTED))
            } else if is_check && stats.invalid > 0 {
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

/// Prints the statistics when asked for; after an interrupt, at least a line saying how far
/// the run got. Best effort: a closed standard error does not change the exit status.
fn report_stats(stats: &Stats, shared: &SharedArgs, stderr: &mut dyn Write) {
    if shared.wants_stats() {
        let _ = match shared.stats_format {
            Some(StatsFormatArg::Json) => stats.write_json(stderr),
            Some(StatsFormatArg::Text) | None => stats.write_report(stderr),
        };
    } else if stats.interrupted {
        let _ = writeln!(
            stderr,
            "irinorm: interrupted after {} records ({} bytes read)",
            stats.records, stats.input_bytes
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(text: &[u8]) -> Result<Vec<PathBuf>, String> {
        let mut paths = Vec::new();
        read_list(text, "list", &mut paths)?;
        Ok(paths.into_iter().map(|p| p.path).collect())
    }

    #[test]
    fn lists_hold_one_path_a_line() {
        let got = list(b"a.txt\r\n\nb c.gz\nlast").unwrap();
        let want: Vec<PathBuf> = ["a.txt", "b c.gz", "last"].map(PathBuf::from).into();
        assert_eq!(got, want);
        assert_eq!(list(b"").unwrap(), Vec::<PathBuf>::new());
        let long = format!("ok\n{}\n", "x".repeat(MAX_LISTED_PATH + 1));
        assert_eq!(
            list(long.as_bytes()).unwrap_err(),
            format!("list:2: path longer than {MAX_LISTED_PATH} bytes")
        );
        let fits = format!("{}\n", "x".repeat(MAX_LISTED_PATH));
        assert_eq!(list(fits.as_bytes()).unwrap().len(), 1);
    }
}
