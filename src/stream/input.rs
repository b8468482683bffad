//! Input sources: files, standard input, gzip, zstd, xz and bzip2 streams (SPEC §2).
//!
//! An [`Input`] is a named byte stream that the engine reads lines from. Compressed input
//! is recognized by its first bytes (its magic number), never by its file name:
//!
//! - gzip starts with `1F 8B`; it is read with [`flate2::read::MultiGzDecoder`], so a file
//!   made of several gzip members (`cat a.gz b.gz`) is read whole;
//! - zstd starts with `28 B5 2F FD`; consecutive frames are read one after the other;
//! - xz starts with `FD 37 7A 58 5A 00`; consecutive streams are read one after the other;
//! - bzip2 starts with `BZh`, a block size digit `1`–`9` and the magic of a first block
//!   (`31 41 59 26 53 59`) or of the end of the stream (`17 72 45 38 50 90`), so a text line
//!   that happens to begin with `BZh1` is still text; consecutive streams are read whole.
//!
//! Anything else is read as lines, whatever bytes it holds: a NUL or any other byte is a
//! character of a record, which the record's checks report (SPEC §2). Only an input whose
//! first bytes are the magic number of a known binary container ([`CONTAINERS`]: an
//! executable, a document, an image, an archive, a database or a columnar file) can be
//! refused, when the run asks for it
//! ([`EngineOptions::refuse_containers`](crate::stream::EngineOptions::refuse_containers)):
//! such an input is certainly not a list of lines. The look covers the first line (at most
//! [`FIRST_BLOCK`] bytes), so the decision depends on the input's bytes alone and
//! a record is never held back past its line feed. It is made again after decompression, so
//! a compressed archive is refused too.
//!
//! A decoding error of a compressed input names the codec and how many bytes of the
//! compressed input the decoder had read when it stopped (`Damaged`): the damage lies at
//! or before that offset. Every record decoded before it is read as usual.
//!
//! The first bytes are peeked and then put back in front of the stream, so not a byte is
//! lost; where containers are not refused, the peek stops as soon as the bytes can no longer
//! be the start of a compression format's magic number. Decoding
//! starts only when the engine reaches the input (see [`Input::into_reader`]), so opening
//! many files is cheap and a decoding error is reported with the input's name.
//!
//! A regular file is opened by [`Input::open`] to check that it can be read, then closed and
//! opened again only when the engine reaches it, so that a run over many files holds one of
//! them open at a time.

use std::fs::File;
use std::io::{self, Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The most bytes looked at to tell a binary container from lines ([`CONTAINERS`]).
pub const FIRST_BLOCK: usize = 8 * 1024;

/// A compression format recognized by its magic number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Codec {
    Gzip,
    Zstd,
    Xz,
    Bzip2,
}

impl Codec {
    fn name(self) -> &'static str {
        match self {
            Codec::Gzip => "gzip",
            Codec::Zstd => "zstd",
            Codec::Xz => "xz",
            Codec::Bzip2 => "bzip2",
        }
    }
}

/// A binary container format that is certainly not a list of lines, recognized by the bytes
/// it starts with: its name, where its magic number lies, the magic number, and whether a
/// NUL must also be among the bytes looked at (up to the first line feed, `container_of`).
/// That last test is for the magic numbers a line of text could start with (`PAR1`,
/// `GIF89a`, `MZ`, a tar header's `ustar`): the formats behind them have NULs right after.
/// An uncompressed WARC file is text, and is not among them.
pub struct Container {
    /// The format's name, as the refusal names it.
    pub name: &'static str,
    offset: usize,
    magic: &'static [u8],
    with_nul: bool,
}

const fn container(name: &'static str, magic: &'static [u8]) -> Container {
    Container {
        name,
        offset: 0,
        magic,
        with_nul: false,
    }
}

const fn container_with_nul(name: &'static str, offset: usize, magic: &'static [u8]) -> Container {
    Container {
        name,
        offset,
        magic,
        with_nul: true,
    }
}

/// The name of the ZIP archive, which has three magic numbers (a local file header, an empty
/// archive's end record, a spanned archive's marker).
const ZIP: &str = "ZIP archive (also JAR, DOCX, XLSX, ODT, EPUB)";

/// The binary containers refused by their first bytes (each format's specification gives its
/// magic number), and text in UTF-16 or UTF-32, told by its byte order mark (two bytes that
/// never start UTF-8: each of its lines would be read as a record that is not one). The list
/// is in the README and in `irinorm man`.
pub const CONTAINERS: &[Container] = &[
    container("ELF executable", b"\x7FELF"),
    container("Mach-O executable", b"\xFE\xED\xFA\xCE"),
    container("Mach-O executable", b"\xFE\xED\xFA\xCF"),
    container("Mach-O executable", b"\xCE\xFA\xED\xFE"),
    container("Mach-O executable", b"\xCF\xFA\xED\xFE"),
    container(
        "Java class file or Mach-O universal binary",
        b"\xCA\xFE\xBA\xBE",
    ),
    container_with_nul("Windows executable (PE)", 0, b"MZ"),
    container("WebAssembly module", b"\0asm"),
    container("PDF document", b"%PDF-"),
    container(ZIP, b"PK\x03\x04"),
    container(ZIP, b"PK\x05\x06"),
    container(ZIP, b"PK\x07\x08"),
    container(
        "OLE2 compound file (DOC, XLS, MSG)",
        b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1",
    ),
    container("7-Zip archive", b"7z\xBC\xAF\x27\x1C"),
    container("RAR archive", b"Rar!\x1A\x07"),
    container_with_nul("tar archive", 257, b"ustar"),
    container("LZ4 frame (decompress it first)", b"\x04\x22\x4D\x18"),
    container("PNG image", b"\x89PNG\r\n\x1A\n"),
    container("JPEG image", b"\xFF\xD8\xFF"),
    container_with_nul("GIF image", 0, b"GIF87a"),
    container_with_nul("GIF image", 0, b"GIF89a"),
    container("TIFF image", b"II*\0"),
    container("TIFF image", b"MM\0*"),
    container("SQLite database", b"SQLite format 3\0"),
    container(
        "UTF-16 or UTF-32 text (convert it to UTF-8 first)",
        b"\xFF\xFE",
    ),
    container("UTF-16 text (convert it to UTF-8 first)", b"\xFE\xFF"),
    container("UTF-32 text (convert it to UTF-8 first)", b"\0\0\xFE\xFF"),
    container_with_nul("Parquet file", 0, b"PAR1"),
    container("Arrow IPC file", b"ARROW1\0\0"),
    container("Avro object container file", b"Obj\x01"),
];

/// How far past a magic number that needs a NUL the bytes are looked at, line feed or not:
/// the formats that need one have it within a few bytes of their magic number (a GIF's
/// size, a PE's header fields), which may hold a `0x0A` first.
const NUL_REACH: usize = 32;

/// Where the bytes that tell a container end, in an input that starts with `head`: after the
/// first line feed (a record is never held back past its line feed), or after the magic
/// number that the first line is the start of (PNG's holds a line feed), or [`NUL_REACH`]
/// bytes past a magic number that needs a NUL and that the first line starts with; never
/// after [`FIRST_BLOCK`]. The decision depends on the input's bytes alone, never on how its
/// reads came.
fn window_end(head: &[u8]) -> usize {
    let line = memchr::memchr(b'\n', head).map_or(FIRST_BLOCK, |i| i + 1);
    let first = &head[..line.min(head.len())];
    CONTAINERS
        .iter()
        .filter(|c| c.offset == 0)
        .filter_map(|c| {
            let reach = c.magic.len() + if c.with_nul { NUL_REACH } else { 0 };
            let agrees = first.starts_with(c.magic) || c.magic.starts_with(first);
            (agrees && reach > first.len()).then_some(reach)
        })
        .fold(line, usize::max)
        .min(FIRST_BLOCK)
}

/// The binary container whose magic number `head` starts with, if any. `head` is an
/// input's first bytes: the whole input, or at least its window (`window_end`: the first
/// line, or further for a magic number that needs it), which alone is looked at; a NUL that
/// some formats need must be in it.
pub fn container_of(head: &[u8]) -> Option<&'static Container> {
    let head = &head[..head.len().min(window_end(head))];
    CONTAINERS.iter().find(|c| {
        head.get(c.offset..c.offset + c.magic.len()) == Some(c.magic)
            && (!c.with_nul || memchr::memchr(0, head).is_some())
    })
}

/// The error of an input refused as a container: its message, inside an
/// [`io::ErrorKind::InvalidData`] error ([`is_refusal`] tells it from other errors).
#[derive(Debug)]
struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// Whether `error` is the refusal of a binary container (not a reading or decoding error).
pub fn is_refusal(error: &io::Error) -> bool {
    error.get_ref().is_some_and(|e| e.is::<Refused>())
}

/// The error for an input refused as a binary container; `codec` is the compression it
/// was found inside, if any.
fn refused(container: &Container, codec: Option<Codec>) -> io::Error {
    let inside = codec.map_or(String::new(), |c| {
        format!(", once decompressed ({}),", c.name())
    });
    let message = format!(
        "refused: its first bytes{inside} are the magic number of a binary format, {} \
         (irinorm reads lines of text; gzip, zstd, xz and bzip2 are decompressed); \
         `--binary text` reads it as lines anyway",
        container.name
    );
    io::Error::new(io::ErrorKind::InvalidData, Refused(message))
}

/// In a signature, the byte that stands for a bzip2 block size digit, `1`–`9` (no
/// signature has this byte itself).
const DIGIT: u8 = b'?';

/// The magic numbers, longest first where one could start another: gzip (RFC 1952
/// §2.3.1), zstd (RFC 8878 §3.1.1), xz (the .xz format, §2.1.1.1), bzip2 (the stream
/// header followed by a block or an end-of-stream magic).
const SIGNATURES: [(Codec, &[u8]); 5] = [
    (Codec::Gzip, &[0x1F, 0x8B]),
    (Codec::Zstd, &[0x28, 0xB5, 0x2F, 0xFD]),
    (Codec::Xz, &[0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]),
    (
        Codec::Bzip2,
        &[b'B', b'Z', b'h', DIGIT, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59],
    ),
    (
        Codec::Bzip2,
        &[b'B', b'Z', b'h', DIGIT, 0x17, 0x72, 0x45, 0x38, 0x50, 0x90],
    ),
];

/// The longest signature.
const MAGIC_LEN: usize = 10;

/// Whether `head` agrees with `signature` as far as both go.
fn agrees(head: &[u8], signature: &[u8]) -> bool {
    head.iter()
        .zip(signature)
        .all(|(&b, &s)| b == s || (s == DIGIT && (b'1'..=b'9').contains(&b)))
}

/// The codec whose magic number `head` starts with, if any.
fn detect(head: &[u8]) -> Option<Codec> {
    SIGNATURES
        .iter()
        .find(|(_, sig)| head.len() >= sig.len() && agrees(head, sig))
        .map(|&(codec, _)| codec)
}

/// Whether more bytes could still make `head` a magic number.
fn undecided(head: &[u8]) -> bool {
    detect(head).is_none()
        && SIGNATURES
            .iter()
            .any(|(_, sig)| head.len() < sig.len() && agrees(head, sig))
}

/// One input of a run: a name for diagnostics and a byte stream, possibly compressed.
pub struct Input {
    /// The name used in diagnostics and errors: the path as given, or `<stdin>`.
    pub name: String,
    /// The stream as stored (still compressed, if it is).
    reader: Box<dyn Read + Send>,
    /// The stored size in bytes, when known (a regular file), for the progress bar.
    size: Option<u64>,
    /// The path of a regular file, which the engine may map rather than read
    /// ([`EngineOptions::with_mmap`](crate::stream::EngineOptions::with_mmap)).
    path: Option<PathBuf>,
}

impl Input {
    /// Opens a file; `-` means standard input (see [`Input::stdin`]).
    ///
    /// The file is opened here, so a missing or unreadable file, or a directory, is an error
    /// now rather than when the engine reaches it. A regular file is then closed and opened
    /// again when it is first read (a run holds one file open at a time, however many it
    /// reads); anything else (a pipe, a device) stays open.
    ///
    /// The error is the one of [`File::open`], or one saying the path is a directory; it
    /// does not name the path, so a caller that prints it should.
    pub fn open<P: AsRef<Path>>(path: P) -> io::Result<Input> {
        let path = path.as_ref();
        if path == Path::new("-") {
            return Ok(Input::stdin());
        }
        let file = File::open(path)?;
        let metadata = file.metadata()?;
        if metadata.is_dir() {
            return Err(io::Error::other("is a directory"));
        }
        let name = path.display().to_string();
        if metadata.is_file() {
            drop(file);
            let reader = Reopened {
                path: path.to_owned(),
                file: None,
            };
            return Ok(Input {
                name,
                reader: Box::new(reader),
                size: Some(metadata.len()),
                path: Some(path.to_owned()),
            });
        }
        Ok(Input {
            name,
            reader: Box::new(file),
            size: None,
            path: None,
        })
    }

    /// Standard input, named `<stdin>`. Its size is unknown.
    pub fn stdin() -> Input {
        Input::from_reader("<stdin>", io::stdin())
    }

    /// Wraps any byte stream, under `name`. Its size is unknown.
    pub fn from_reader<R: Read + Send + 'static>(name: impl Into<String>, reader: R) -> Input {
        Input {
            name: name.into(),
            reader: Box::new(reader),
            size: None,
            path: None,
        }
    }

    /// The stored size in bytes (compressed size for a compressed file), when known.
    pub fn size(&self) -> Option<u64> {
        self.size
    }

    /// The decoded byte stream: decompressed if the input starts with a gzip, zstd, xz or
    /// bzip2 magic number, otherwise the bytes as stored.
    pub fn into_reader(self) -> io::Result<Box<dyn Read + Send>> {
        decode(self.reader, false)
    }

    /// [`Input::into_reader`], refusing an input that is certainly not a list of lines: one
    /// whose first bytes (after decompression) are the magic number of a binary container
    /// (`container_of`).
    pub fn into_text_reader(self) -> io::Result<Box<dyn Read + Send>> {
        decode(self.reader, true)
    }

    /// For a caller that refuses binary containers before any record is written: the
    /// refusal of a regular file whose first bytes, as stored or decompressed, are a
    /// container's magic number (`container_of`), as the engine would give it. `None`
    /// for anything else: an input that is not a regular file (it is looked at when it is
    /// read), a file that cannot be read or decoded now (the engine reports that in its
    /// place, after the records before it).
    pub fn refusal(&self) -> Option<io::Error> {
        let file = File::open(self.path.as_ref()?).ok()?;
        decode(Box::new(file), true).err().filter(is_refusal)
    }

    /// The input as the engine's reader takes it.
    pub(super) fn into_source(self) -> Source<'static> {
        Source {
            name: self.name,
            reader: self.reader,
            size: self.size,
            path: self.path,
        }
    }
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input")
            .field("name", &self.name)
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

/// One input as the engine's reader takes it ([`Input::into_source`]).
pub(super) struct Source<'a> {
    pub(super) name: String,
    pub(super) reader: Box<dyn Read + Send + 'a>,
    pub(super) size: Option<u64>,
    /// The path of a regular file, which may be mapped instead of read.
    pub(super) path: Option<PathBuf>,
}

/// A regular file, opened again when it is first read (see [`Input::open`]).
struct Reopened {
    path: PathBuf,
    file: Option<File>,
}

impl Read for Reopened {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match &mut self.file {
            Some(file) => file.read(buf),
            None => self.file.insert(File::open(&self.path)?).read(buf),
        }
    }
}

/// Reads into `buf` until it holds at least `want` bytes or the stream ends; returns how
/// many bytes it holds. With `more`, stops early once `more(bytes so far)` is false.
fn fill(
    raw: &mut dyn Read,
    buf: &mut [u8],
    want: usize,
    more: impl Fn(&[u8]) -> bool,
) -> io::Result<usize> {
    let mut filled = 0;
    while filled < want.min(buf.len()) {
        match raw.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => {
                filled += n;
                if !more(&buf[..filled]) {
                    break;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Peeks at the first bytes of `raw` and returns the stream to read lines from: a
/// decompressor when they are a gzip, zstd, xz or bzip2 magic number (whose errors say where
/// decoding stopped, [`Damaged`]), otherwise the stream itself. The peeked bytes are put
/// back in front either way. With `refuse_containers`, an input whose first bytes (after
/// decompression) are a binary container's magic number is an
/// [`io::ErrorKind::InvalidData`] error ([`container_of`]).
pub(crate) fn decode<'a>(
    raw: Box<dyn Read + Send + 'a>,
    refuse_containers: bool,
) -> io::Result<Box<dyn Read + Send + 'a>> {
    let mut raw = raw;
    let mut head = vec![0u8; FIRST_BLOCK];
    // Enough bytes to tell a codec, and a container's magic number where one may begin.
    let want = if refuse_containers {
        FIRST_BLOCK
    } else {
        MAGIC_LEN
    };
    let n = fill(&mut raw, &mut head, want, |h| {
        undecided(h) || (refuse_containers && container_undecided(h))
    })?;
    head.truncate(n);
    let codec = sniff(&head, refuse_containers)?;
    let stream = Cursor::new(head).chain(raw);
    let Some(codec) = codec else {
        return Ok(Box::new(stream));
    };
    let read = Arc::new(AtomicU64::new(0));
    let stream = Tally {
        inner: stream,
        read: Arc::clone(&read),
    };
    let decoder: Box<dyn Read + Send + 'a> = match codec {
        Codec::Gzip => Box::new(flate2::read::MultiGzDecoder::new(stream)),
        Codec::Zstd => Box::new(zstd::stream::read::Decoder::new(stream)?),
        Codec::Xz => Box::new(liblzma::read::XzDecoder::new_multi_decoder(stream)),
        Codec::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(stream)),
    };
    let mut decoded = Damaged {
        inner: decoder,
        codec,
        read,
    };
    if !refuse_containers {
        return Ok(Box::new(decoded));
    }
    // The first block of the decompressed text, as far as the first reads give it.
    let mut block = vec![0u8; FIRST_BLOCK];
    let n = fill(&mut decoded, &mut block, FIRST_BLOCK, container_undecided)?;
    block.truncate(n);
    if let Some(container) = container_of(&block) {
        return Err(refused(container, Some(codec)));
    }
    Ok(Box::new(Cursor::new(block).chain(decoded)))
}

/// Whether to read on before deciding whether `head` is a binary container: until
/// [`window_end`].
fn container_undecided(head: &[u8]) -> bool {
    head.len() < window_end(head)
}

/// What the first bytes of an input say of it: the codec it is compressed with, if any; an
/// error where it is refused as a binary container (`refuse_containers`).
fn sniff(head: &[u8], refuse_containers: bool) -> io::Result<Option<Codec>> {
    let codec = detect(head);
    if refuse_containers && codec.is_none() {
        if let Some(container) = container_of(head) {
            return Err(refused(container, None));
        }
    }
    Ok(codec)
}

/// Whether an input whose first bytes are `head` (as [`sniff`] takes them) is plain text, to
/// be read as it is: `Ok(false)` where it is compressed, an error where it is refused as a
/// binary container.
pub(crate) fn is_plain(head: &[u8], refuse_containers: bool) -> io::Result<bool> {
    Ok(sniff(&head[..head.len().min(FIRST_BLOCK)], refuse_containers)?.is_none())
}

/// A compressed stream that counts the bytes read from it, for [`Damaged`].
struct Tally<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Tally<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// A decompressor whose errors say which codec failed and how many bytes of the compressed
/// input it had read then (SPEC §2): the damage lies at or before that offset (a decoder
/// reads ahead by up to its buffer, 32 KiB at most for these). A truncated input is an error
/// too, [`io::ErrorKind::UnexpectedEof`], never a quiet end.
struct Damaged<'a> {
    inner: Box<dyn Read + Send + 'a>,
    codec: Codec,
    read: Arc<AtomicU64>,
}

impl Read for Damaged<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            if e.kind() == io::ErrorKind::Interrupted {
                return e;
            }
            let at = self.read.load(Ordering::Relaxed);
            io::Error::new(
                e.kind(),
                format!(
                    "decoding {} data failed: {e}; it stopped after byte {at} of the \
                     compressed input (every record before was read)",
                    self.codec.name()
                ),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn read_all(input: Input) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        input.into_reader()?.read_to_end(&mut out)?;
        Ok(out)
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    /// A reader that hands out one byte per call, to check that peeking loses nothing.
    struct Trickle(Vec<u8>, usize);

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.1 == self.0.len() || buf.is_empty() {
                return Ok(0);
            }
            buf[0] = self.0[self.1];
            self.1 += 1;
            Ok(1)
        }
    }

    #[test]
    fn plain_bytes_pass_through_whole() {
        for data in [&b""[..], b"a", b"\x1F", b"abcdef\n", b"\x28\xB5\x2F"] {
            let input = Input::from_reader("t", Trickle(data.to_vec(), 0));
            assert_eq!(read_all(input).unwrap(), data);
        }
    }

    #[test]
    fn gzip_members_are_all_read() {
        let mut data = gzip(b"one\n");
        data.extend(gzip(b"two\n"));
        let input = Input::from_reader("t.txt", Trickle(data, 0));
        assert_eq!(read_all(input).unwrap(), b"one\ntwo\n");
    }

    #[test]
    fn zstd_is_detected_by_magic() {
        let data = zstd::encode_all(&b"a\nb\n"[..], 1).unwrap();
        let input = Input::from_reader("t.gz", Cursor::new(data));
        assert_eq!(read_all(input).unwrap(), b"a\nb\n");
    }

    #[test]
    fn xz_and_bzip2_are_detected_by_magic() {
        let text = b"http://a/\nhttp://b/\n".repeat(50);
        let mut xz = Vec::new();
        liblzma::read::XzEncoder::new(&text[..], 1)
            .read_to_end(&mut xz)
            .unwrap();
        // Two streams one after the other are read whole.
        let mut two = xz.clone();
        two.extend(&xz);
        let input = Input::from_reader("t.txt", Trickle(two, 0));
        assert_eq!(read_all(input).unwrap(), text.repeat(2));
        let mut bz = Vec::new();
        bzip2::read::BzEncoder::new(&text[..], bzip2::Compression::fast())
            .read_to_end(&mut bz)
            .unwrap();
        assert!(bz.starts_with(b"BZh1\x31\x41\x59"));
        let input = Input::from_reader("t", Trickle(bz, 0));
        assert_eq!(read_all(input).unwrap(), text);
        // Text that starts like a bzip2 header is text.
        for data in [&b"BZh1 is not bzip2\n"[..], b"BZh", b"\xFD7zXZ"] {
            let input = Input::from_reader("t", Cursor::new(data.to_vec()));
            assert_eq!(read_all(input).unwrap(), data);
        }
    }

    #[test]
    fn only_binary_containers_are_refused_and_only_when_asked() {
        let refused = |data: &[u8]| {
            let input = Input::from_reader("t", Trickle(data.to_vec(), 0));
            input.into_text_reader().err().map(|e| e.to_string())
        };
        // NUL bytes anywhere are characters of records, never a reason to refuse.
        for data in [
            &b"http://a/\n\x00\x01\x02"[..],
            &[0u8; 4096],
            b"\0http://a/\n",
        ] {
            assert_eq!(refused(data), None);
            let input = Input::from_reader("t", Cursor::new(data.to_vec()));
            let mut out = Vec::new();
            input
                .into_text_reader()
                .unwrap()
                .read_to_end(&mut out)
                .unwrap();
            assert_eq!(out, data);
        }
        let pdf = b"%PDF-1.7\n%\xE2\xE3\xCF\xD3\n1 0 obj\n";
        assert!(refused(pdf).unwrap().contains("PDF document"));
        assert!(refused(b"\x7FELF\x02\x01\x01\0").unwrap().contains("ELF"));
        assert!(refused(b"PK\x03\x04\x14\0").unwrap().contains("ZIP"));
        // Inside a compressed input too.
        let error = refused(&gzip(pdf)).unwrap();
        assert!(
            error.contains("decompressed (gzip)") && error.contains("PDF"),
            "{error}"
        );
        // The magic numbers a text line could start with need a NUL too.
        assert_eq!(refused(b"PAR1 is a path\nhttp://a/\n"), None);
        assert!(refused(b"PAR1\x15\x04\x15\0").unwrap().contains("Parquet"));
        assert_eq!(refused(b"GIF89a\n"), None);
        assert_eq!(refused(b"MZ\n"), None);
        let mut tar = vec![0u8; 1024];
        tar[..8].copy_from_slice(b"urls.txt");
        tar[257..262].copy_from_slice(b"ustar");
        assert!(refused(&tar).unwrap().contains("tar archive"));
        // The decision is the input's, not its reads': one byte a read or all at once.
        let whole = |data: &[u8]| {
            let input = Input::from_reader("t", Cursor::new(data.to_vec()));
            input.into_text_reader().err().map(|e| e.to_string())
        };
        let mut late_nul = b"GIF89a\x01\x01\n".to_vec();
        late_nul.extend_from_slice(&[0; 20]);
        for data in [
            &pdf[..],
            b"\x89PNG\r\n\x1A\n\0",
            b"\x89PNG\r\nx",
            &tar,
            &late_nul,
        ] {
            assert_eq!(refused(data), whole(data), "{data:?}");
        }
        // Not asked: read as it is.
        let input = Input::from_reader("t", Cursor::new(pdf.to_vec()));
        assert_eq!(read_all(input).unwrap(), pdf);
        // Every signature is told by `container_of` from its own bytes (with a NUL after).
        for c in CONTAINERS {
            let mut head = vec![b'x'; c.offset];
            head.extend_from_slice(c.magic);
            head.push(0);
            assert_eq!(container_of(&head).map(|f| f.name), Some(c.name));
        }
    }

    #[test]
    fn damaged_compressed_input_says_where_decoding_stopped() {
        let text = b"http://example.com/a\n".repeat(5000);
        let data = gzip(&text);
        let cut = &data[..data.len() / 2];
        let input = Input::from_reader("t", Cursor::new(cut.to_vec()));
        let mut out = Vec::new();
        let error = input
            .into_reader()
            .unwrap()
            .read_to_end(&mut out)
            .unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with("decoding gzip data failed: "),
            "{message}"
        );
        assert!(
            message.contains(&format!("after byte {} of the compressed", cut.len())),
            "{message}"
        );
        // What was decoded before is a prefix of the text.
        assert!(!out.is_empty() && text.starts_with(&out));
    }

    #[test]
    fn a_short_first_line_is_not_held_back() {
        // A source that gives one line and would then block: the peek must not ask again.
        struct OneLine(bool);
        impl Read for OneLine {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                assert!(
                    !self.0,
                    "read again after a line that cannot be a magic number"
                );
                self.0 = true;
                buf[..2].copy_from_slice(b"a\n");
                Ok(2)
            }
        }
        let mut r = decode(Box::new(OneLine(false)), true).unwrap();
        let mut buf = [0u8; 2];
        r.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"a\n");
    }

    #[test]
    fn truncated_gzip_is_an_error() {
        let data = gzip(&b"http://example.com/\n".repeat(1000));
        let input = Input::from_reader("t", Cursor::new(data[..data.len() / 2].to_vec()));
        assert!(read_all(input).is_err());
    }

    #[test]
    fn files_know_their_size() {
        let path = std::env::temp_dir().join(format!("irinorm-input-{}.txt", std::process::id()));
        std::fs::write(&path, b"x\n").unwrap();
        let input = Input::open(&path).unwrap();
        assert_eq!(input.size(), Some(2));
        assert_eq!(read_all(input).unwrap(), b"x\n");
        std::fs::remove_file(&path).unwrap();
        assert!(Input::open(&path).is_err());
        assert_eq!(Input::open("-").unwrap().name, "<stdin>");
        let dir = Input::open(std::env::temp_dir()).unwrap_err();
        assert!(dir.to_string().contains("directory"), "{dir}");
    }
}
