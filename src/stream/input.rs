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
//! Anything else is read as it is. The first bytes are peeked and then put back in front of
//! the stream, so not a byte is lost; the peek stops as soon as the bytes can no longer be
//! the start of a magic number, so a terminal's first short line is not held back. Decoding
//! starts only when the engine reaches the input (see [`Input::into_reader`]), so opening
//! many files is cheap and a decoding error is reported with the input's name.
//!
//! A regular file is opened by [`Input::open`] to check that it can be read, then closed and
//! opened again only when the engine reaches it, so that a run over many files holds one of
//! them open at a time.

use std::fs::File;
use std::io::{self, Cursor, Read};
use std::path::{Path, PathBuf};

/// The most bytes looked at to tell text from binary input: an input whose first block
/// (after decompression) holds a NUL is not text.
pub const FIRST_BLOCK: usize = 8 * 1024;

/// A compression format recognized by its magic number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Codec {
    Gzip,
    Zstd,
    Xz,
    Bzip2,
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

    /// [`Input::into_reader`], refusing an input that is not text: one whose first block
    /// ([`FIRST_BLOCK`] bytes at most, after decompression) holds a NUL byte.
    pub fn into_text_reader(self) -> io::Result<Box<dyn Read + Send>> {
        decode(self.reader, true)
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

/// The error for an input that is not text: where its first NUL byte is.
fn not_text(offset: usize, decoded: bool) -> io::Error {
    let what = if decoded { "decompressed " } else { "" };
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "not text: a NUL byte at {what}byte {} (irinorm reads lines of text; gzip, zstd, xz \
             and bzip2 are decompressed, other binary formats are refused)",
            offset + 1
        ),
    )
}

/// Peeks at the first bytes of `raw` and returns the stream to read lines from: a
/// decompressor when they are a gzip, zstd, xz or bzip2 magic number, otherwise the stream
/// itself. The peeked bytes are put back in front either way. With `reject_binary`, a NUL
/// byte in the first block of what the stream holds (decompressed) is an
/// [`io::ErrorKind::InvalidData`] error.
pub(crate) fn decode<'a>(
    mut raw: Box<dyn Read + Send + 'a>,
    reject_binary: bool,
) -> io::Result<Box<dyn Read + Send + 'a>> {
    let mut head = vec![0u8; FIRST_BLOCK];
    let n = fill(&mut raw, &mut head, MAGIC_LEN, undecided)?;
    head.truncate(n);
    let codec = sniff(&head, reject_binary)?;
    let stream = Cursor::new(head).chain(raw);
    let decoded: Box<dyn Read + Send + 'a> = match codec {
        None => return Ok(Box::new(stream)),
        Some(Codec::Gzip) => Box::new(flate2::read::MultiGzDecoder::new(stream)),
        Some(Codec::Zstd) => Box::new(zstd::stream::read::Decoder::new(stream)?),
        Some(Codec::Xz) => Box::new(liblzma::read::XzDecoder::new_multi_decoder(stream)),
        Some(Codec::Bzip2) => Box::new(bzip2::read::MultiBzDecoder::new(stream)),
    };
    if !reject_binary {
        return Ok(decoded);
    }
    // The first block of the decompressed text: one read's worth, so that a slow source is
    // not waited on for a whole block.
    let mut decoded = decoded;
    let mut block = vec![0u8; FIRST_BLOCK];
    let n = fill(&mut decoded, &mut block, 1, |_| false)?;
    block.truncate(n);
    if let Some(at) = memchr::memchr(0, &block) {
        return Err(not_text(at, true));
    }
    Ok(Box::new(Cursor::new(block).chain(decoded)))
}

/// What the first bytes of an input (one read's worth, at most [`FIRST_BLOCK`]) say of it:
/// the codec it is compressed with, if any; an error where it is not compressed but is not
/// text either (`reject_binary` and a NUL byte).
fn sniff(head: &[u8], reject_binary: bool) -> io::Result<Option<Codec>> {
    let codec = detect(head);
    if reject_binary && codec.is_none() {
        if let Some(at) = memchr::memchr(0, head) {
            return Err(not_text(at, false));
        }
    }
    Ok(codec)
}

/// Whether an input whose first bytes are `head` (as [`sniff`] takes them) is plain text, to
/// be read as it is: `Ok(false)` where it is compressed, an error where it is refused as
/// binary.
pub(crate) fn is_plain(head: &[u8], reject_binary: bool) -> io::Result<bool> {
    Ok(sniff(&head[..head.len().min(FIRST_BLOCK)], reject_binary)?.is_none())
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
    fn binary_input_is_refused_only_when_asked() {
        let data = b"http://a/\n\x00\x01\x02".to_vec();
        let input = Input::from_reader("t", Cursor::new(data.clone()));
        assert_eq!(read_all(input).unwrap(), data);
        let input = Input::from_reader("t", Cursor::new(data.clone()));
        let error = input.into_text_reader().err().unwrap();
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        assert!(error.to_string().contains("NUL byte at byte 11"), "{error}");
        // Inside a compressed input too.
        let input = Input::from_reader("t", Cursor::new(gzip(&data)));
        let error = input.into_text_reader().err().unwrap();
        assert!(
            error.to_string().contains("decompressed byte 11"),
            "{error}"
        );
        // A NUL after the first block is a character of a record like any other.
        let mut late = vec![b'a'; FIRST_BLOCK];
        late.push(0);
        let input = Input::from_reader("t", Cursor::new(late.clone()));
        let mut out = Vec::new();
        input
            .into_text_reader()
            .unwrap()
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, late);
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
