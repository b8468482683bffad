//! What the command line says about itself, generated from the argument definitions:
//! `--version` (with the key version, the built-in profiles and the fast-path backend),
//! `completions SHELL` and `man`.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::CommandFactory;
use irinorm::Rules;

use super::args::Cli;

/// The text of `--version`: the program's version, the key version, the built-in rule
/// profiles (each name with the versioned profile it stands for) and the fast-path backend
/// this CPU gets.
pub(crate) fn long_version() -> &'static str {
    let profiles: Vec<String> = Rules::profile_names()
        .map(|name| {
            let canonical = Rules::profile(name).and_then(|r| r.profile_name());
            match canonical {
                Some(c) if c != name => format!("{name} (= {c})"),
                _ => name.to_owned(),
            }
        })
        .collect();
    let text = format!(
        "{}\nkey version: {}\nprofiles: {}\nfast path: {}",
        env!("CARGO_PKG_VERSION"),
        irinorm::KEY_VERSION,
        profiles.join(", "),
        irinorm::backend_name(),
    );
    // Built once per process, for clap, which keeps a `&'static str`.
    Box::leak(text.into_boxed_str())
}

/// `completions SHELL`: the completion script for `shell` on standard output.
pub(crate) fn completions(shell: clap_complete::Shell) -> Result<ExitCode, String> {
    let mut text = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "irinorm", &mut text);
    write_stdout(&text)
}

/// The manual page's INPUT section: what a record is, what makes one invalid, and which
/// inputs are refused (the list of `CONTAINERS`).
fn render_input_section(text: &mut Vec<u8>) -> io::Result<()> {
    let mut formats: Vec<&str> = Vec::new();
    for c in irinorm::internals::CONTAINERS {
        if !formats.contains(&c.name) {
            formats.push(c.name);
        }
    }
    let paragraphs = [
        "Each line of each input is a record, in order: a line ends at LF, one CR before it \
         is dropped, and a UTF-8 byte order mark at the start of an input is dropped. Inputs \
         compressed with gzip, zstd, xz or bzip2 are decompressed (told by their first \
         bytes, not by their names)."
            .to_owned(),
        "Whatever bytes a line holds, it is a record: a line that cannot be a key is an \
         invalid record, written as an empty key (or as the error of its row, or left out, \
         as --on-error says) with a diagnostic FILE:LINE:COLUMN: kind: message, and the run \
         goes on. A NUL byte makes its line an invalid record of the kind nul, at the column \
         of the first NUL (so the zeros that a log cut by logrotate's copytruncate starts \
         with are one invalid record); any other control character is the kind control. \
         Other kinds: empty, utf8 (with --strict), too-long, bad-percent, disallowed-char, \
         bidi-format, syntax, relative, idna, and record (a record of --csv, --json-field, \
         --field, --cdx or --cdxj that is not well formed or lacks the URL's field)."
            .to_owned(),
        format!(
            "An input is refused only when it is certainly not a list of lines: when its first \
             bytes (after decompression) are the magic number of one of these binary \
             formats: {}. It is refused with exit 2 before any record of any input is \
             written (an input read from a pipe: when the run reaches it), naming the \
             format; --binary text reads it as lines anyway. An uncompressed WARC file is \
             text, and is read as lines.",
            formats.join(", ")
        ),
        "A damaged compressed input (truncated, or with bytes changed) is read up to the \
         damage: every record decoded before it is written, then the run ends with exit 2 \
         and an error naming the file, the codec and how many bytes of the compressed file \
         had been read when decoding stopped."
            .to_owned(),
    ];
    writeln!(text, ".SH INPUT")?;
    for p in paragraphs {
        writeln!(text, ".PP")?;
        writeln!(text, "{}", roff_line(&p))?;
    }
    Ok(())
}

/// `man`: the manual page, in roff, on standard output. It covers the program and, in a
/// section each, every subcommand with its options (their `--help`, 72 columns wide so
/// that the page reads on an 80-column terminal).
pub(crate) fn man() -> Result<ExitCode, String> {
    let mut command = Cli::command();
    command.build();
    let mut text = Vec::new();
    let page = clap_mangen::Man::new(command.clone());
    let render = |text: &mut Vec<u8>| -> io::Result<()> {
        page.render_title(text)?;
        page.render_name_section(text)?;
        page.render_synopsis_section(text)?;
        page.render_description_section(text)?;
        render_input_section(text)?;
        for sub in command.get_subcommands() {
            if sub.get_name() == "help" {
                continue;
            }
            // One section per subcommand: its synopsis, description and options, as in its
            // own `--help`.
            writeln!(text, ".SH \"IRINORM {}\"", sub.get_name().to_uppercase())?;
            let mut help = Vec::new();
            let mut sub = sub.clone().term_width(72);
            write!(help, "{}", sub.render_long_help())?;
            writeln!(text, ".nf")?;
            for line in String::from_utf8_lossy(&help).lines() {
                writeln!(text, "{}", roff_line(line))?;
            }
            writeln!(text, ".fi")?;
        }
        page.render_extra_section(text)?;
        page.render_version_section(text)?;
        Ok(())
    };
    render(&mut text).map_err(|e| format!("rendering the manual page: {e}"))?;
    write_stdout(&text)
}

/// A line of text as a roff line of text: backslashes doubled, and a leading `.` or `'`
/// (which roff would read as a request) protected.
fn roff_line(line: &str) -> String {
    let escaped = line.replace('\\', "\\e");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// Writes `bytes` to standard output: exit 0, or 0 quietly when the reader went away; any
/// other error is an output error (exit 2).
pub(crate) fn write_stdout(bytes: &[u8]) -> Result<ExitCode, String> {
    let mut out = io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(format!("writing output: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roff_lines_are_protected() {
        assert_eq!(roff_line(r"a\b"), r"a\eb");
        assert_eq!(roff_line(".x"), r"\&.x");
        assert_eq!(roff_line("'x"), r"\&'x");
        assert_eq!(roff_line("  x"), "  x");
    }
}
