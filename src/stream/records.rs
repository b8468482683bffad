//! The records of one input, one at a time, for consumers that go record by record rather
//! than through the engine (`normalize --explain`). They are the engine's records (SPEC §2):
//! the input decompressed when it is gzip, zstd, xz or bzip2, a UTF-8 byte order mark at its start
//! dropped, a carriage return before the line feed dropped, and a line longer than the
//! maximum never held whole: only its first bytes are kept, the rest skipped.

use std::io::{self, BufRead, BufReader, Read};

use crate::ladder::record::BOM;
use crate::stream::input::{self, Input};
/// How many bytes of a too-long line are kept, as in the engine.
use crate::stream::TOO_LONG_PREFIX;

/// One record as read: its bytes, before any repair or parsing.
#[derive(Debug, PartialEq, Eq)]
pub enum RawRecord<'a> {
    /// A record within the maximum length, without its line terminator.
    Line(&'a [u8]),
    /// A record longer than the maximum: its first bytes only.
    TooLong(&'a [u8]),
}

/// Reads the records of one input in order, in memory bounded by the maximum line length.
pub struct Records {
    reader: BufReader<Box<dyn Read + Send>>,
    max_line_bytes: usize,
    buf: Vec<u8>,
    at_start: bool,
}

impl Records {
    /// The records of `input`, each at most `max_line_bytes` bytes long.
    pub fn new(input: Input, max_line_bytes: usize) -> io::Result<Records> {
        Records::decoded(input, max_line_bytes, false)
    }

    /// [`Records::new`] for an input that must be a list of lines: one that starts with a
    /// binary container's magic number is refused (see [`Input::into_text_reader`]).
    pub fn text(input: Input, max_line_bytes: usize) -> io::Result<Records> {
        Records::decoded(input, max_line_bytes, true)
    }

    fn decoded(
        input: Input,
        max_line_bytes: usize,
        refuse_containers: bool,
    ) -> io::Result<Records> {
        let raw = input.into_source().reader;
        let decoded = input::decode(raw, refuse_containers)?;
        Ok(Records {
            reader: BufReader::with_capacity(1 << 16, decoded),
            max_line_bytes: max_line_bytes.max(1),
            buf: Vec::new(),
            at_start: true,
        })
    }

    /// The next record, or `None` at the end of the input.
    pub fn next_record(&mut self) -> io::Result<Option<RawRecord<'_>>> {
        self.buf.clear();
        let Some(mut len) = self.read_line()? else {
            return Ok(None);
        };
        if std::mem::take(&mut self.at_start) && self.buf.starts_with(BOM) {
            self.buf.drain(..BOM.len());
            len -= BOM.len();
        }
        // The whole line is in `buf` unless it is longer than the maximum plus a carriage
        // return; then it is too long, carriage return or not.
        if len == self.buf.len() && self.buf.last() == Some(&b'\r') {
            self.buf.pop();
            len -= 1;
        }
        if len > self.max_line_bytes {
            self.buf.truncate(TOO_LONG_PREFIX);
            return Ok(Some(RawRecord::TooLong(&self.buf)));
        }
        Ok(Some(RawRecord::Line(&self.buf)))
    }

    /// Reads up to the next line feed (consumed, not kept into `buf`), keeping at most the
    /// maximum length plus room for a BOM and a carriage return. Returns the line's whole
    /// length, or `None` at the end of the input.
    fn read_line(&mut self) -> io::Result<Option<usize>> {
        let keep = self.max_line_bytes + BOM.len() + 1;
        let mut len = None;
        loop {
            let available = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                return Ok(len);
            }
            let (end, found) = match memchr::memchr(b'\n', available) {
                Some(i) => (i, true),
                None => (available.len(), false),
            };
            let room = keep.saturating_sub(self.buf.len());
            self.buf.extend_from_slice(&available[..end.min(room)]);
            len = Some(len.unwrap_or(0) + end);
            self.reader.consume(end + usize::from(found));
            if found {
                return Ok(len);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(data: &'static [u8], max: usize) -> Vec<Result<Vec<u8>, Vec<u8>>> {
        let input = Input::from_reader("t", data);
        let mut r = Records::new(input, max).unwrap();
        let mut out = Vec::new();
        while let Some(rec) = r.next_record().unwrap() {
            out.push(match rec {
                RawRecord::Line(l) => Ok(l.to_vec()),
                RawRecord::TooLong(p) => Err(p.to_vec()),
            });
        }
        out
    }

    #[test]
    fn records_are_the_engines() {
        let got = records(b"\xEF\xBB\xBFa\r\n\nb", 10);
        assert_eq!(
            got,
            [Ok(b"a".to_vec()), Ok(b"".to_vec()), Ok(b"b".to_vec())]
        );
        // A BOM only at the start; a final line feed starts no record.
        let got = records(b"a\n\xEF\xBB\xBFb\n", 10);
        assert_eq!(got, [Ok(b"a".to_vec()), Ok(b"\xEF\xBB\xBFb".to_vec())]);
    }

    #[test]
    fn too_long_lines_are_cut_not_held() {
        let got = records(b"abcd\nabcde\r\nabc\n", 4);
        assert_eq!(
            got,
            [
                Ok(b"abcd".to_vec()),
                Err(b"abcde".to_vec()),
                Ok(b"abc".to_vec())
            ]
        );
        let long: &'static [u8] = Box::leak(vec![b'x'; 100_000].into_boxed_slice());
        let got = records(long, 8);
        assert!(
            matches!(&got[..], [Err(p)] if p.len() <= TOO_LONG_PREFIX),
            "{got:?}"
        );
    }

    #[test]
    fn compressed_input_is_decoded() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"x\ny\n").unwrap();
        let data: &'static [u8] = Box::leak(gz.finish().unwrap().into_boxed_slice());
        assert_eq!(records(data, 10), [Ok(b"x".to_vec()), Ok(b"y".to_vec())]);
        // Decoded once: a gzip file holding a gzip file gives the inner file's bytes.
        let mut outer = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        outer.write_all(data).unwrap();
        let nested: &'static [u8] = Box::leak(outer.finish().unwrap().into_boxed_slice());
        let input = Input::from_reader("t", nested);
        let mut r = Records::new(input, 1 << 20).unwrap();
        assert!(
            matches!(r.next_record().unwrap(), Some(RawRecord::Line(l)) if l.starts_with(b"\x1F\x8B"))
        );
    }
}
