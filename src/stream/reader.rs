//! The reader stage (SPEC §2 records, §8 engine): cuts each input into chunks of whole
//! lines, drops a byte order mark at the start of an input, skips the rest of a line that
//! is too long (keeping its first [`TOO_LONG_PREFIX`] bytes), and numbers the chunks for
//! the writer. It reuses the chunks the writer hands back, so a run never holds more than
//! its chunks in flight.
//!
//! A plain regular file is mapped ([`Mapping`]) and its chunks are ranges of the map; any
//! other input is read into the chunks' buffers. Both cut the same records.

use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crossbeam_channel::{Receiver, Sender};

use crate::ladder::record::BOM;
use crate::stream::chunk::{Chunk, ChunkKind, MappedLines, SKIP_READ, TOO_LONG_PREFIX};
use crate::stream::error::RunError;
use crate::stream::framing::{Framing, Layout};
use crate::stream::input::{self, Source};
use crate::stream::mapping::Mapping;
use crate::stream::options::EngineOptions;
use crate::stream::progress::{Counted, Progress};

/// The least a chunk's input buffer grows to when a line does not fit in it (it starts at the
/// chunk size, and doubles from there as a long line needs).
const FIRST_BUFFER: usize = 64 * 1024;

/// The next chunk's worth of a mapped input, from the start of what is left of it.
#[derive(Debug, PartialEq, Eq)]
enum Piece {
    /// Whole lines (the last one may lack its line feed at the end of the input) of this
    /// many bytes.
    Lines(usize),
    /// One line of `line` bytes (without its line feed) that is too long, and the bytes it
    /// takes with its line feed.
    TooLong { line: usize, taken: usize },
}

impl Piece {
    /// The bytes of the input the piece takes.
    fn taken(&self) -> usize {
        match *self {
            Piece::Lines(n) => n,
            Piece::TooLong { taken, .. } => taken,
        }
    }
}

/// Why the reader stopped before the end of its inputs.
enum Halt {
    /// The run is stopping (the writer gave up); not an error of the reader's.
    Stopped,
    /// Reading failed.
    Failed(io::Error),
}

/// The reader stage: cuts inputs into chunks of whole lines.
pub(super) struct Reader<'s> {
    chunk_size: usize,
    max_line: usize,
    /// How many chunks may exist in all.
    in_flight: usize,
    /// How many chunks exist so far (they are made on demand, up to `in_flight`).
    allocated: usize,
    /// A chunk left over from an input that ended, ready for the next input.
    spare: Option<Chunk>,
    /// The sequence number of the next chunk to send.
    seq: u64,
    /// Whether chunks are numbered here (see [`Chunk::first_line`]).
    count_lines: bool,
    /// The records' framing, if any, and the layout of the current input's records (from
    /// its header, read off its first chunk).
    framing: Option<Framing>,
    layout: Layout,
    /// Whether an input whose first block holds a NUL is refused.
    refuse_containers: bool,
    /// Whether regular files are mapped rather than read.
    mmap: bool,
    /// The line number, in the current input, of the next line to send (when counting).
    line: u64,
    /// Bytes read so far (after decompression).
    bytes: u64,
    work: Sender<Chunk>,
    free: Receiver<Chunk>,
    stop: &'s AtomicBool,
    /// Set from outside the run (an interrupt): read nothing more, end as at the end of
    /// the inputs.
    interrupt: Option<&'s AtomicBool>,
}

impl<'s> Reader<'s> {
    /// A reader for a run under `options` that may make `in_flight` chunks, sends them on
    /// `work`, and takes them back from `free`; it stops when `stop` is set.
    pub(super) fn new(
        options: &EngineOptions,
        in_flight: usize,
        work: Sender<Chunk>,
        free: Receiver<Chunk>,
        stop: &'s AtomicBool,
    ) -> Self {
        Reader {
            chunk_size: options.chunk_size.max(1),
            max_line: options.max_line_bytes,
            in_flight,
            allocated: 0,
            spare: None,
            seq: 0,
            count_lines: options.format().needs_lines() || options.framing.is_some(),
            framing: options.framing.clone(),
            layout: Layout::default(),
            refuse_containers: options.refuse_containers,
            mmap: options.mmap,
            line: 1,
            bytes: 0,
            work,
            free,
            stop,
            interrupt: None,
        }
    }

    /// The same reader, ending early once `interrupt` is set.
    pub(super) fn with_interrupt(mut self, interrupt: &'s AtomicBool) -> Self {
        self.interrupt = Some(interrupt);
        self
    }

    /// Whether to stop reading: the run is stopping, or it was interrupted.
    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
            || self.interrupt.is_some_and(|i| i.load(Ordering::Relaxed))
    }

    /// Reads every input in order. Returns the number of bytes read.
    pub(super) fn run(
        mut self,
        sources: Vec<Source<'_>>,
        progress: Option<&dyn Progress>,
    ) -> Result<u64, RunError> {
        for (index, mut source) in sources.into_iter().enumerate() {
            let name = std::mem::take(&mut source.name);
            match self.read_source(index, source, progress) {
                Ok(()) => {}
                Err(Halt::Stopped) => break,
                Err(Halt::Failed(source)) => return Err(RunError::Input { name, source }),
            }
        }
        Ok(self.bytes)
    }

    /// Cuts one input into chunks and sends them on: from a map of it where it is a plain
    /// regular file (and maps are on), or else as it reads it.
    fn read_source(
        &mut self,
        input: usize,
        source: Source<'_>,
        progress: Option<&dyn Progress>,
    ) -> Result<(), Halt> {
        if let Some(map) = self.map(&source) {
            if input::is_plain(map.bytes(), self.refuse_containers).map_err(Halt::Failed)? {
                return self.cut_mapped(input, Arc::new(map), progress);
            }
        }
        // Progress counts stored bytes, before decompression.
        let reader: Box<dyn Read + Send + '_> = match progress {
            Some(progress) => Box::new(Counted {
                inner: source.reader,
                progress,
            }),
            None => source.reader,
        };
        let mut stream = input::decode(reader, self.refuse_containers).map_err(Halt::Failed)?;
        self.read_input(input, &mut *stream)
    }

    /// A map of the source, where maps are on and it is a regular file that can be mapped.
    /// Where it cannot be, it is read, and reading it reports any error.
    fn map(&self, source: &Source<'_>) -> Option<Mapping> {
        let path = source.path.as_deref().filter(|_| self.mmap)?;
        Mapping::open(path).ok().flatten()
    }

    /// Cuts a mapped input into chunks that are ranges of the map, and sends them on.
    fn cut_mapped(
        &mut self,
        input: usize,
        map: Arc<Mapping>,
        progress: Option<&dyn Progress>,
    ) -> Result<(), Halt> {
        self.line = 1;
        let bytes = map.bytes();
        let mut start = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
        self.advance(start, progress);
        while start < bytes.len() {
            if self.stopping() {
                return Err(Halt::Stopped);
            }
            let piece = self.piece(&map, start)?;
            let mut chunk = self.take(input)?;
            let taken = piece.taken();
            // The chunk holds its part of the map until it is written, and then releases it.
            chunk.mapped = Some(MappedLines {
                map: Arc::clone(&map),
                range: start..start + taken,
            });
            match piece {
                Piece::Lines(_) => self.send_lines(chunk)?,
                Piece::TooLong { line, .. } => {
                    self.send_too_long(chunk, &bytes[start..start + line])?;
                }
            }
            start += taken;
            self.advance(taken, progress);
        }
        Ok(())
    }

    /// Counts `n` more bytes of input, and tells `progress`.
    fn advance(&mut self, n: usize, progress: Option<&dyn Progress>) {
        self.bytes += n as u64;
        if let Some(progress) = progress {
            progress.advance(n as u64);
        }
    }

    /// Where the next chunk of a mapped input that starts at `start` ends: after the last
    /// line feed within a chunk's size; or, where a line is longer than that, after that
    /// line, which may be too long.
    fn piece(&self, map: &Mapping, start: usize) -> Result<Piece, Halt> {
        let rest = &map.bytes()[start..];
        let window = &rest[..rest.len().min(self.chunk_size)];
        if window.len() == rest.len() && memchr::memchr(b'\n', window).is_some() {
            return Ok(Piece::Lines(rest.len()));
        }
        if let Some(i) = memchr::memrchr(b'\n', window) {
            return Ok(Piece::Lines(i + 1));
        }
        // One line at least as long as a chunk, or the input's last line.
        let line = self.line_length(map, start, window.len())?;
        let taken = (line + 1).min(rest.len());
        // As `cut_lines` does: too long even without a final CR.
        Ok(if line > self.max_line.saturating_add(1) {
            Piece::TooLong { line, taken }
        } else {
            Piece::Lines(taken)
        })
    }

    /// The length of the line that starts at `start` of a mapped input (up to its line feed
    /// or the end of the input), whose first `from` bytes hold no line feed. It is searched
    /// a chunk's size at a time, stopping if the run is; once the line is known to be too
    /// long, the pages behind the search but for its first bytes (the only ones kept) are
    /// handed back: a line of many GB is never resident whole.
    fn line_length(&self, map: &Mapping, start: usize, from: usize) -> Result<usize, Halt> {
        let rest = &map.bytes()[start..];
        let step = self.chunk_size.max(SKIP_READ);
        let mut at = from;
        // Where the pages given back so far end: each step gives back only what it searched.
        let mut released = start + TOO_LONG_PREFIX;
        while at < rest.len() {
            if self.stopping() {
                return Err(Halt::Stopped);
            }
            let part = &rest[at..rest.len().min(at + step)];
            if let Some(i) = memchr::memchr(b'\n', part) {
                return Ok(at + i);
            }
            at += part.len();
            if at > self.max_line.saturating_add(1) {
                released = map.release_inside(released, start + at);
            }
        }
        Ok(rest.len())
    }

    /// Sends on a too-long `line` (without its line feed) as a [`ChunkKind::TooLong`]
    /// chunk of its first bytes.
    fn send_too_long(&mut self, mut chunk: Chunk, line: &[u8]) -> Result<(), Halt> {
        chunk.kind = ChunkKind::TooLong;
        let mut prefix = &line[..line.len().min(TOO_LONG_PREFIX)];
        // The record loses one final CR; it is in the prefix only if all of the line is.
        if line.len() <= TOO_LONG_PREFIX {
            prefix = prefix.strip_suffix(b"\r").unwrap_or(prefix);
        }
        chunk.push(prefix);
        self.send(chunk, 1)
    }

    /// Cuts one input into chunks and sends them on.
    fn read_input(&mut self, input: usize, src: &mut dyn Read) -> Result<(), Halt> {
        self.line = 1;
        let mut chunk = self.take(input)?;
        if self.drop_bom(src, &mut chunk)? {
            // Do not read again after the end: a terminal would wait for another one.
            return self.finish_input(chunk);
        }
        self.cut_lines(input, chunk, src)
    }

    /// Reads the first bytes of an input into `chunk`, without the byte order mark at the
    /// very start: it is not part of the first record. Returns whether the input has ended.
    fn drop_bom(&mut self, src: &mut dyn Read, chunk: &mut Chunk) -> Result<bool, Halt> {
        let mut at_end = false;
        while chunk.len < BOM.len() && !at_end {
            let want = BOM.len() - chunk.len;
            at_end = self.read(src, chunk, want)? == 0;
        }
        if chunk.data[..chunk.len].starts_with(BOM) {
            chunk.data.copy_within(BOM.len()..chunk.len, 0);
            chunk.len -= BOM.len();
        }
        Ok(at_end)
    }

    /// Reads the rest of an input into `chunk` and the chunks after it, and sends each on
    /// once it is full of whole lines.
    fn cut_lines(
        &mut self,
        input: usize,
        mut chunk: Chunk,
        src: &mut dyn Read,
    ) -> Result<(), Halt> {
        // `data[..scanned]` has been searched for line feeds; the last line begins at
        // `line_start` (0 while the chunk holds no complete line).
        let mut scanned = 0;
        let mut line_start = 0;
        loop {
            if let Some(i) = memchr::memrchr(b'\n', &chunk.data[scanned..chunk.len]) {
                line_start = scanned + i + 1;
            }
            scanned = chunk.len;

            if line_start > 0 && chunk.len >= self.chunk_size {
                // Full: send the whole lines on, carry the unfinished one to a new chunk.
                chunk = self.send_full(input, chunk, line_start)?;
                scanned = chunk.len;
                line_start = 0;
                continue;
            }
            if line_start == 0 && chunk.len > self.max_line.saturating_add(1) {
                // One unfinished line, already too long even without a final CR.
                match self.skip_long_line(input, chunk, src)? {
                    Some(next) => {
                        chunk = next;
                        scanned = 0;
                        continue;
                    }
                    None => return Ok(()),
                }
            }

            let want = self.want(&chunk);
            let n = match self.read(src, &mut chunk, want) {
                Ok(n) => n,
                Err(Halt::Failed(e)) => {
                    // Pass on the complete lines read before the error; drop the cut one.
                    if line_start > 0 {
                        chunk.len = line_start;
                        self.send_lines(chunk)?;
                    }
                    return Err(Halt::Failed(e));
                }
                Err(halt) => return Err(halt),
            };
            if n == 0 {
                return self.finish_input(chunk);
            }
        }
    }

    /// Sends on the whole lines of a full chunk, `data[..line_start]`, and returns a new
    /// chunk that holds the unfinished line after them.
    fn send_full(
        &mut self,
        input: usize,
        mut chunk: Chunk,
        line_start: usize,
    ) -> Result<Chunk, Halt> {
        let mut next = self.take(input)?;
        next.push(&chunk.data[line_start..chunk.len]);
        chunk.len = line_start;
        self.send_lines(chunk)?;
        Ok(next)
    }

    /// How many bytes to read next into `chunk`: up to the chunk size, or, for one line
    /// longer than a chunk, as many again as it holds (the buffer doubles), but never past
    /// the point where the line is known to be too long.
    fn want(&self, chunk: &Chunk) -> usize {
        if chunk.len < self.chunk_size {
            self.chunk_size - chunk.len
        } else {
            chunk.len.min(self.max_line.saturating_add(2) - chunk.len)
        }
    }

    /// At the end of an input, sends what is left: the last lines, the final one maybe
    /// without a line feed.
    fn finish_input(&mut self, chunk: Chunk) -> Result<(), Halt> {
        if chunk.len > 0 {
            self.send_lines(chunk)
        } else {
            self.spare = Some(chunk);
            Ok(())
        }
    }

    /// Consumes the rest of a too-long line whose first `chunk.len` bytes (with no line feed)
    /// are in `chunk`, keeping at most [`TOO_LONG_PREFIX`] bytes of it, and sends it on as a
    /// [`ChunkKind::TooLong`] chunk. Returns a chunk holding what was read after the line,
    /// or `None` at the end of the input.
    fn skip_long_line(
        &mut self,
        input: usize,
        mut chunk: Chunk,
        src: &mut dyn Read,
    ) -> Result<Option<Chunk>, Halt> {
        chunk.kind = ChunkKind::TooLong;
        let mut line_len = chunk.len;
        chunk.len = chunk.len.min(TOO_LONG_PREFIX);
        loop {
            // New bytes land right after the kept prefix: the ones still wanted for it are
            // then already in place, the others are overwritten by the next read.
            let kept = chunk.len;
            let n = self.read(src, &mut chunk, SKIP_READ)?;
            let found = memchr::memchr(b'\n', &chunk.data[kept..kept + n]);
            let part_of_line = found.unwrap_or(n);
            line_len += part_of_line;
            chunk.len = kept + part_of_line.min(TOO_LONG_PREFIX.saturating_sub(kept));
            if n == 0 || found.is_some() {
                let next = match found {
                    Some(i) => {
                        let mut next = self.take(input)?;
                        next.push(&chunk.data[kept + i + 1..kept + n]);
                        Some(next)
                    }
                    None => None,
                };
                // The record loses one final CR; it is in the prefix only if all of the line is.
                if line_len <= TOO_LONG_PREFIX && chunk.data[..chunk.len].ends_with(b"\r") {
                    chunk.len -= 1;
                }
                self.send(chunk, 1)?;
                return Ok(next);
            }
        }
    }

    /// Reads up to `want` bytes after the filled part of `chunk`. Returns how many were
    /// read (0 at the end of the input).
    fn read(&mut self, src: &mut dyn Read, chunk: &mut Chunk, want: usize) -> Result<usize, Halt> {
        if self.stopping() {
            return Err(Halt::Stopped);
        }
        let mut end = chunk.len + want;
        if chunk.data.len() < end {
            // Grow by doubling, so that one long line does not take more memory than it
            // needs; the caller reads again after a short read anyway.
            let grown = (2 * chunk.data.len()).max(FIRST_BUFFER).max(chunk.len + 1);
            chunk.data.resize(end.min(grown), 0);
            end = end.min(chunk.data.len());
        }
        loop {
            match src.read(&mut chunk.data[chunk.len..end]) {
                Ok(n) => {
                    chunk.len += n;
                    self.bytes += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Halt::Failed(e)),
            }
        }
    }

    /// An empty chunk for `input`: a spare one, a new one while fewer than `in_flight`
    /// exist, or else one the writer hands back (waiting for it).
    fn take(&mut self, input: usize) -> Result<Chunk, Halt> {
        if self.stopping() {
            return Err(Halt::Stopped);
        }
        let mut chunk = if let Some(chunk) = self.spare.take() {
            chunk
        } else if let Ok(chunk) = self.free.try_recv() {
            chunk
        } else if self.allocated < self.in_flight {
            self.allocated += 1;
            Chunk::new()
        } else {
            self.free.recv().map_err(|_| Halt::Stopped)?
        };
        chunk.reset(input, self.chunk_size);
        if chunk.data.is_empty() {
            // A new chunk's buffer, zeroed by the allocator: for a whole chunk that is memory
            // fresh from the system, zero already and not resident until it is read into, so
            // a small input does not touch a whole chunk's worth of memory.
            chunk.data = vec![0; self.chunk_size];
        }
        Ok(chunk)
    }

    /// Sends a chunk of whole lines on.
    fn send_lines(&mut self, chunk: Chunk) -> Result<(), Halt> {
        let lines = if self.count_lines {
            memchr::memchr_iter(b'\n', chunk.lines()).count() as u64
        } else {
            0
        };
        self.send(chunk, lines)
    }

    /// Numbers a chunk that holds `lines` line feeds (or one too-long line) and sends it to
    /// the workers.
    fn send(&mut self, mut chunk: Chunk, lines: u64) -> Result<(), Halt> {
        if self.line == 1 {
            self.layout = self.layout_of(&chunk)?;
        }
        chunk.layout = self.layout;
        chunk.seq = self.seq;
        chunk.first_line = self.count_lines.then_some(self.line);
        self.seq += 1;
        self.line += lines;
        self.work.send(chunk).map_err(|_| Halt::Stopped)
    }
}

impl Reader<'_> {
    /// The layout of the records of the input whose first chunk is `chunk`: from its first
    /// line where the framing reads a header there. A name the header lacks stops the run.
    fn layout_of(&self, chunk: &Chunk) -> Result<Layout, Halt> {
        let Some(framing) = &self.framing else {
            return Ok(Layout::default());
        };
        let lines = chunk.lines();
        let first = &lines[..memchr::memchr(b'\n', lines).unwrap_or(lines.len())];
        let first = first.strip_suffix(b"\r").unwrap_or(first);
        let layout = if framing.reads_header() {
            framing.layout(first)
        } else {
            framing.plain_layout()
        };
        layout.map_err(|message| Halt::Failed(io::Error::new(io::ErrorKind::InvalidData, message)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossbeam_channel::bounded;

    /// The chunks the reader sends for `source` under `options`, in order (the test holds
    /// every chunk, so `in_flight` is made large enough for all of them).
    fn chunks(options: &EngineOptions, source: Source<'_>) -> Vec<Chunk> {
        let (work_tx, work_rx) = bounded(64);
        let (_free_tx, free_rx) = bounded(64);
        let stop = AtomicBool::new(false);
        Reader::new(options, 64, work_tx, free_rx, &stop)
            .run(vec![source], None)
            .unwrap();
        work_rx.try_iter().collect()
    }

    #[test]
    fn a_regular_file_is_cut_from_its_map_when_maps_are_on() {
        let path = std::env::temp_dir().join(format!("irinorm-reader-{}.txt", std::process::id()));
        let long = "x".repeat(300);
        std::fs::write(&path, format!("a\nbb\n{long}\r\nccc\n")).unwrap();
        let source = |path: &std::path::Path| Source {
            name: "t".into(),
            reader: Box::new(std::fs::File::open(path).unwrap()),
            size: None,
            path: Some(path.to_owned()),
        };
        let base = EngineOptions::default()
            .with_chunk_size(4)
            .with_max_line_bytes(100);
        // SAFETY: the file is this test's own; nothing else changes it during the run.
        let mapped = chunks(&unsafe { base.clone().with_mmap(true) }, source(&path));
        let read = chunks(&base, source(&path));
        std::fs::remove_file(&path).unwrap();

        let ranges: Vec<_> = mapped
            .iter()
            .map(|c| (c.kind, c.mapped.as_ref().map(|m| m.range.clone())))
            .collect();
        // Whole lines within the chunk size; the too-long line's range is all of it (with
        // its CR and LF), its first bytes copied; then the last line.
        assert_eq!(
            ranges,
            [
                (ChunkKind::Lines, Some(0..2)),
                (ChunkKind::Lines, Some(2..5)),
                (ChunkKind::TooLong, Some(5..307)),
                (ChunkKind::Lines, Some(307..311)),
            ]
        );
        assert_eq!(mapped[2].lines(), &long.as_bytes()[..TOO_LONG_PREFIX]);
        // Read, the same bytes go out in the same records.
        let bytes =
            |cs: &[Chunk]| -> Vec<Vec<u8>> { cs.iter().map(|c| c.lines().to_vec()).collect() };
        assert_eq!(bytes(&mapped).concat(), bytes(&read).concat());
        assert!(read.iter().all(|c| c.mapped.is_none()));
    }
}
