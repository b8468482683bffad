//! Why a run stopped before the end of its input ([`RunError`]), and the exit status SPEC §6
//! gives each outcome.

use std::fmt;
use std::io;

use crate::iri::error::Error;

/// What is said of a mapped input file that was shortened (or could not be read) during a
/// run, after "the file" or "an input file": the message of [`RunError::Input`] where a
/// write of its lines fails (`EFAULT`), and of the command line's `SIGBUS` handler where a
/// read of the map fails.
pub const SHORTENED_MAP: &str = "was shortened (or could not be read) while it was read \
through a memory map; use --no-mmap for files that may change during the run";

#[derive(Debug)]
#[non_exhaustive]
pub enum RunError {
    /// An input could not be read or decoded (for example a truncated gzip file). Every
    /// complete line read before the error has been written and the output flushed.
    Input {
        /// The input's name.
        name: String,
        /// The error from reading or decoding it.
        source: io::Error,
    },
    /// The output could not be written.
    Output(io::Error),
    /// The output was closed by its reader (`EPIPE`, as with `irinorm … | head`). Not a
    /// failure: the command line ends quietly with status 0.
    BrokenPipe,
    /// With [`OnError::Fail`](crate::stream::OnError::Fail): the first invalid record in
    /// input order. Every record before it has been written and the output flushed.
    Invalid {
        /// The name of the input holding the record.
        name: String,
        /// The record's line number in that input, from 1.
        line: u64,
        /// What is wrong with it.
        error: Error,
    },
    /// The worker threads could not be started.
    Threads(String),
    /// With `unique`: the set of the keys written reached its memory cap
    /// ([`EngineOptions::unique_memory`](crate::stream::EngineOptions::unique_memory)) at
    /// a record with a new key. Every record before it has been written and the output
    /// flushed; nothing after it was.
    UniqueFull {
        /// The name of the input holding the record.
        name: String,
        /// The record's line number in that input, from 1.
        line: u64,
        /// The distinct keys in the set (all written).
        keys: u64,
        /// The cap, in bytes.
        limit: usize,
    },
}

/// A size in bytes as people read it: `512 bytes`, `64.0 KiB`, `8.0 MiB`, `1.5 GiB`.
fn size(bytes: usize) -> String {
    let units = [("GiB", 30), ("MiB", 20), ("KiB", 10)];
    match units.iter().find(|(_, shift)| bytes >= 1 << shift) {
        Some((unit, shift)) => format!("{:.1} {unit}", bytes as f64 / (1u64 << shift) as f64),
        None => format!("{bytes} bytes"),
    }
}

impl RunError {
    /// The exit status SPEC §6 gives this outcome: 0 for [`RunError::BrokenPipe`], 1 for
    /// [`RunError::Invalid`], 2 for input, output and thread errors.
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::BrokenPipe => 0,
            RunError::Invalid { .. } => 1,
            _ => 2,
        }
    }

    /// Maps a write error to [`RunError::BrokenPipe`] or [`RunError::Output`].
    pub(super) fn from_write(error: io::Error) -> RunError {
        if error.kind() == io::ErrorKind::BrokenPipe {
            RunError::BrokenPipe
        } else {
            RunError::Output(error)
        }
    }
}

impl fmt::Display for RunError {
    /// Formats the error without the program name; [`RunError::Invalid`] reads like a
    /// diagnostic: `NAME:LINE:COL: kind: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Input { name, source } => write!(f, "{name}: {source}"),
            RunError::Output(e) => write!(f, "error writing output: {e}"),
            RunError::BrokenPipe => f.write_str("output closed"),
            RunError::UniqueFull {
                name,
                line,
                keys,
                limit,
            } => write!(
                f,
                "{name}:{line}: --unique stopped here: its set of {keys} distinct keys (about \
                 20 bytes each) reached its memory cap of {}, and this record's key is new; \
                 every record before it was written. Raise the cap (--unique-memory SIZE), or \
                 write the keys without --unique and deduplicate the key column where there \
                 is room (sort -u, or dropDuplicates on Spark)",
                size(*limit)
            ),
            RunError::Invalid { name, line, error } => write!(
                f,
                "{name}:{line}:{}: {}: {}",
                error.column,
                error.kind.name(),
                error.message
            ),
            RunError::Threads(e) => write!(f, "cannot start worker threads: {e}"),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::Input { source, .. } => Some(source),
            RunError::Output(e) => Some(e),
            RunError::Invalid { error, .. } => Some(error),
            RunError::BrokenPipe | RunError::Threads(_) | RunError::UniqueFull { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iri::error::ErrorKind;

    #[test]
    fn exit_codes() {
        assert_eq!(RunError::BrokenPipe.exit_code(), 0);
        let invalid = RunError::Invalid {
            name: "f".into(),
            line: 3,
            error: Error::new(ErrorKind::Syntax, 2, "bad"),
        };
        assert_eq!(invalid.exit_code(), 1);
        assert_eq!(invalid.to_string(), "f:3:2: syntax: bad");
        assert_eq!(RunError::Output(io::Error::other("x")).exit_code(), 2);
    }

    #[test]
    fn sizes_read_as_people_read_them() {
        assert_eq!(size(512), "512 bytes");
        assert_eq!(size(1024), "1.0 KiB");
        assert_eq!(size(8 << 20), "8.0 MiB");
        assert_eq!(size(3 << 29), "1.5 GiB");
    }
}
