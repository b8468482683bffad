//! Input sources: files, standard input, gzip and zstd streams (SPEC §2).
//!
//! An [`Input`] is a named byte stream that the engine reads lines from. Compressed input
//! is recognized by its first bytes (its magic number), never by its file name:
//!
//! - gzip starts with `1F 8B`; it is read with [`flate2::read::MultiGzDecoder`], so a file
//!   made of several gzip members (`cat a.gz b.gz`) is read whole;
//! - zstd starts with `28 B5 2F FD`; consecutive frames are read one after the other.
//!
//! Anything else is read as it is. The magic bytes are peeked and then put back in front of
//! the stream, so not a byte is lost. Decoding starts only when the engine reaches the input
//! (see [`Input::into_reader`]), so opening many files is cheap and a decoding error is
//! reported with the input's name.

use std::fs::File;
use std::io::{self, Cursor, Read};
use std::path::Path;

/// The gzip magic number (RFC 1952 §2.3.1).
const GZIP_MAGIC: [u8; 2] = [0x1F, 0x8B];
/// The zstd frame magic number (RFC 8878 §3.1.1).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// One input of a run: a name for diagnostics and a byte stream, possibly compressed.
pub struct Input {
    /// The name used in diagnostics and errors: the path as given, or `<stdin>`.
    pub name: String,
    /// The stream as stored (still compressed, if it is).
    reader: Box<dyn Read + Send>,
    /// The stored size in bytes, when known (a regular file), for the progress bar.
    size: Option<u64>,
}

impl Input {
    /// Opens a file; `-` means standard input (see [`Input::stdin`]).
    ///
    /// The error is the one of [`File::open`]; it does not name the path, so a caller that
    /// prints it should.
    pub fn open<P: AsRef<Path>>(path: P) -> io::Result<Input> {
        let path = path.as_ref();
        if path == Path::new("-") {
            return Ok(Input::stdin());
        }
        let file = File::open(path)?;
        let size = file
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len());
        Ok(Input {
            name: path.display().to_string(),
            reader: Box::new(file),
            size,
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
        }
    }

    /// The stored size in bytes (compressed size for a compressed file), when known.
    pub fn size(&self) -> Option<u64> {
        self.size
    }

    /// The decoded byte stream: decompressed if the input starts with a gzip or zstd magic
    /// number, otherwise the bytes as stored.
    pub fn into_reader(self) -> io::Result<Box<dyn Read + Send>> {
        decode(self.reader)
    }

    /// Splits the input into its name, its stored stream and its size.
    pub(crate) fn into_parts(self) -> (String, Box<dyn Read + Send>, Option<u64>) {
        (self.name, self.reader, self.size)
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

/// Peeks at the first bytes of `raw` and returns the stream to read lines from: a
/// decompressor when they are a gzip or zstd magic number, otherwise the stream itself. The
/// peeked bytes are put back in front either way.
pub(crate) fn decode<'a>(
    mut raw: Box<dyn Read + Send + 'a>,
) -> io::Result<Box<dyn Read + Send + 'a>> {
    let mut magic = [0u8; 4];
    let mut peeked = 0;
    while peeked < magic.len() {
        match raw.read(&mut magic[peeked..]) {
            Ok(0) => break,
            Ok(n) => peeked += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let head = &magic[..peeked];
    let is_gzip = head.starts_with(&GZIP_MAGIC);
    let is_zstd = head == ZSTD_MAGIC;
    let stream = Cursor::new(head.to_vec()).chain(raw);
    if is_gzip {
        Ok(Box::new(flate2::read::MultiGzDecoder::new(stream)))
    } else if is_zstd {
        Ok(Box::new(zstd::stream::read::Decoder::new(stream)?))
    } else {
        Ok(Box::new(stream))
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
    }
}
