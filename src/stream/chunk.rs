//! The chunk (SPEC §8): a block of whole lines of one input that travels from the reader
//! through a worker to the writer and back, with what the stages attach to it: the worker's
//! output, the [`VerbatimRun`]s of input lines written as they are, and the [`Report`] of
//! counts and diagnostics. Chunks are recycled, so their buffers are allocated once per run.

use std::any::Any;
use std::ops::Range;
use std::sync::Arc;

use crate::iri::error::Error;
use crate::stream::framing::Layout;
use crate::stream::hyperloglog::HyperLogLog;
use crate::stream::mapping::Mapping;
use crate::stream::output::Stats;

/// How many bytes of a too-long line are kept for the `input` field of tsv and jsonl output.
pub const TOO_LONG_PREFIX: usize = 256;

/// How many bytes the reader asks for at a time while it skips the rest of a too-long line;
/// a chunk keeps buffers of up to twice this (or twice the chunk size) from one use to the
/// next.
pub(super) const SKIP_READ: usize = 64 * 1024;

/// What a chunk's bytes hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ChunkKind {
    /// Whole lines (the last one may lack its line feed at the end of an input).
    Lines,
    /// The first bytes (at most [`TOO_LONG_PREFIX`], without a final carriage return) of
    /// one line that is too long.
    TooLong,
}

/// A block of lines from one input, with everything the stages attach to it. Chunks are
/// recycled: the writer hands each one back to the reader once it has been written.
pub(super) struct Chunk {
    /// The chunk's place in the run; the writer emits chunks in this order.
    pub(super) seq: u64,
    /// The input the lines come from (an index into the list of names).
    pub(super) input: usize,
    /// The line number, within its input, of the chunk's first line, where the reader
    /// counted lines (only jsonl output, and tsv with file names, need them while the records
    /// are formatted).
    /// Otherwise the worker numbers the chunk's lines from 1 and the writer, which knows how
    /// many lines the chunks before it held, adds the rest.
    pub(super) first_line: Option<u64>,
    /// What `data` holds.
    pub(super) kind: ChunkKind,
    /// The bytes read. Only `data[..len]` counts; the rest stays allocated and initialized
    /// so the next read can go straight into it.
    pub(super) data: Vec<u8>,
    /// How many bytes of `data` are filled.
    pub(super) len: usize,
    /// The chunk's range of a mapped file: its lines, read from there rather than from
    /// `data` (see [`Chunk::lines`]); for a [`ChunkKind::TooLong`] line, the whole line,
    /// whose first bytes are in `data`. Its pages are released once the chunk is written
    /// (with those of the chunks before it, at least 4 MiB at a time).
    pub(super) mapped: Option<MappedLines>,
    /// The formatted output lines of the chunk's records, but for the verbatim runs.
    pub(super) out: Vec<u8>,
    /// Lines of `data` written as they are, in between parts of `out`.
    pub(super) verbatim_runs: Vec<VerbatimRun>,
    /// The chunk's counts and diagnostics.
    pub(super) report: Report,
    /// The fields of its input's records, where the run has a framing.
    pub(super) layout: Layout,
}

impl Chunk {
    pub(super) fn new() -> Chunk {
        Chunk {
            seq: 0,
            input: 0,
            first_line: None,
            kind: ChunkKind::Lines,
            data: Vec::new(),
            len: 0,
            mapped: None,
            out: Vec::new(),
            verbatim_runs: Vec::new(),
            report: Report::default(),
            layout: Layout::default(),
        }
    }

    /// Empties the chunk for reuse on `input`, giving back memory that an unusually long
    /// line made it take.
    pub(super) fn reset(&mut self, input: usize, chunk_size: usize) {
        self.input = input;
        self.kind = ChunkKind::Lines;
        self.len = 0;
        if let Some(lines) = self.mapped.take() {
            // Written: the pages before its end are not read again.
            lines.map.release_through(lines.range.end);
        }
        let keep = 2 * chunk_size.max(SKIP_READ);
        if self.data.len() > keep {
            self.data.truncate(chunk_size);
            self.data.shrink_to_fit();
        }
        if self.out.capacity() > 4 * keep {
            self.out = Vec::new();
        }
    }

    /// The chunk's bytes: its range of a mapped file, or else the filled part of `data`.
    pub(super) fn lines(&self) -> &[u8] {
        lines_of(&self.data[..self.len], self.kind, &self.mapped)
    }

    /// Appends `bytes` after the filled part.
    pub(super) fn push(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        if self.data.len() < end {
            self.data.resize(end, 0);
        }
        self.data[self.len..end].copy_from_slice(bytes);
        self.len = end;
    }
}

/// A chunk's part of a mapped file: `map.bytes()[range]`.
pub(super) struct MappedLines {
    pub(super) map: Arc<Mapping>,
    pub(super) range: Range<usize>,
}

impl MappedLines {
    /// Maps the pages of the lines in (see [`Mapping::populate`]).
    pub(super) fn populate(&self) {
        self.map.populate(self.range.clone());
    }
}

/// A chunk's bytes, from its parts (for callers that hold other parts of it borrowed):
/// the range of lines of a mapped file in `mapped`, or else `filled`, the filled part of its
/// data (which holds the first bytes of a too-long line).
pub(super) fn lines_of<'a>(
    filled: &'a [u8],
    kind: ChunkKind,
    mapped: &'a Option<MappedLines>,
) -> &'a [u8] {
    match mapped {
        Some(lines) if kind == ChunkKind::Lines => &lines.map.bytes()[lines.range.clone()],
        _ => filled,
    }
}

/// What a worker learned about a chunk's records.
#[derive(Default)]
pub(super) struct Report {
    /// Record counts (records, invalid, repairs, changed).
    pub(super) stats: Stats,
    /// The output of each valid record, with its key's fingerprint, in order; filled only
    /// when keys are deduplicated (`unique`). (The writer leaves out the records whose key
    /// came before, in this chunk or an earlier one. Invalid records have no span: they are
    /// always written.)
    pub(super) spans: Vec<Span>,
    /// A sketch of the chunk's keys, when they are counted but not deduplicated (`stats`
    /// alone): the writer merges it into the run's, in fixed memory per chunk.
    pub(super) sketch: Option<HyperLogLog>,
    /// The chunk's first invalid records, at most `max_diagnostics`.
    pub(super) diagnostics: Vec<Diagnostic>,
    /// With [`OnError::Fail`](crate::stream::OnError::Fail), the first invalid record: the
    /// worker stopped there, so the chunk's output holds exactly the records before it.
    pub(super) failure: Option<Diagnostic>,
    /// The payload of a panic raised while the chunk was processed.
    pub(super) panic: Option<Box<dyn Any + Send>>,
}

impl Report {
    pub(super) fn clear(&mut self) {
        self.stats = Stats::default();
        self.spans.clear();
        if let Some(sketch) = &mut self.sketch {
            sketch.clear();
        }
        self.diagnostics.clear();
        self.failure = None;
        self.panic = None;
    }
}

/// Where a valid record's output lies in its chunk's output buffer, and the fingerprint of
/// its key.
pub(super) struct Span {
    pub(super) start: usize,
    pub(super) end: usize,
    /// The record's line, numbered as [`Diagnostic::line`] is: for the error of a set
    /// that is full.
    pub(super) line: u64,
    pub(super) fingerprint: u128,
}

/// An invalid record to report.
pub(super) struct Diagnostic {
    pub(super) line: u64,
    pub(super) error: Error,
}

/// Lines of a chunk's input that are written as they are: `data[self.data]` goes out just
/// before `out[self.at..]`. Records that pass through unchanged (most of them) are written
/// this way, from the input buffer, without being copied into the output buffer first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct VerbatimRun {
    pub(super) data: Range<usize>,
    pub(super) at: usize,
}

/// The output of a chunk, in order: its `out` with the `runs` of its `data` put in.
pub(super) fn output_parts<'a>(
    data: &'a [u8],
    out: &'a [u8],
    runs: &[VerbatimRun],
) -> Vec<&'a [u8]> {
    let mut parts = Vec::with_capacity(2 * runs.len() + 1);
    let mut from = 0;
    for run in runs {
        if run.at > from {
            parts.push(&out[from..run.at]);
        }
        parts.push(&data[run.data.clone()]);
        from = run.at;
    }
    if from < out.len() {
        parts.push(&out[from..]);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_parts_put_the_runs_in_place() {
        let data = b"0123456789";
        let out = b"abcdef";
        let join = |runs: &[VerbatimRun]| -> Vec<u8> { output_parts(data, out, runs).concat() };
        let run = |data: Range<usize>, at| VerbatimRun { data, at };
        assert_eq!(join(&[]), b"abcdef");
        assert_eq!(join(&[run(0..2, 0)]), b"01abcdef");
        assert_eq!(join(&[run(0..2, 0), run(5..6, 0)]), b"015abcdef");
        assert_eq!(join(&[run(1..3, 2), run(7..10, 6)]), b"ab12cdef789");
        assert_eq!(output_parts(data, out, &[run(1..3, 6)]).len(), 2);
    }
}
