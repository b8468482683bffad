//! The line loop shared by the floor and the peer programs of `benches/e2e.sh`.
//!
//! Reads the file named by the first argument (standard input when there is none or it is
//! `-`) in blocks of 1 MiB, cut after the last LF; validates each block with `simdutf8` as a
//! whole (line by line only when that fails); splits it on LF with `memchr`; hands each line
//! to `f` (`None` for a line that is not UTF-8) with the output buffer, then writes a LF.
//! The output buffer is written to standard output once per block. A last line without a
//! LF is a line too. A closed output (`EPIPE`) ends the program quietly.

use std::fs::File;
use std::io::{self, Read, Write};

const BLOCK: usize = 1 << 20;

/// Runs `f` over every line of the input named on the command line; exits on error.
pub fn run(f: impl FnMut(Option<&str>, &mut Vec<u8>)) {
    let arg = std::env::args_os().nth(1);
    let input: Box<dyn Read> = match arg {
        Some(path) if path != "-" => match File::open(&path) {
            Ok(file) => Box::new(file),
            Err(e) => {
                eprintln!("{}: {e}", path.to_string_lossy());
                std::process::exit(2);
            }
        },
        _ => Box::new(io::stdin().lock()),
    };
    match each_line(input, io::stdout().lock(), f) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

fn each_line(
    mut input: impl Read,
    mut output: impl Write,
    mut f: impl FnMut(Option<&str>, &mut Vec<u8>),
) -> io::Result<()> {
    let mut buf = vec![0u8; BLOCK];
    let mut len = 0;
    let mut out = Vec::with_capacity(2 * BLOCK);
    loop {
        if len == buf.len() {
            // A line longer than the buffer: grow it.
            buf.resize(2 * buf.len(), 0);
        }
        let n = match input.read(&mut buf[len..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            if len > 0 {
                block(&buf[..len], &mut out, &mut f);
                output.write_all(&out)?;
            }
            return output.flush();
        }
        len += n;
        if len < buf.len() {
            // Fill the block first (reads from a pipe come in small pieces).
            continue;
        }
        if let Some(last) = memchr::memrchr(b'\n', &buf[..len]) {
            block(&buf[..=last], &mut out, &mut f);
            output.write_all(&out)?;
            out.clear();
            buf.copy_within(last + 1..len, 0);
            len -= last + 1;
        }
    }
}

/// Runs `f` over the lines of `block` (which ends with a LF, except at the end of input).
fn block(block: &[u8], out: &mut Vec<u8>, f: &mut impl FnMut(Option<&str>, &mut Vec<u8>)) {
    let valid = simdutf8::basic::from_utf8(block).is_ok();
    let mut start = 0;
    let tail = (block.last() != Some(&b'\n')).then_some(block.len());
    for end in memchr::memchr_iter(b'\n', block).chain(tail) {
        let line = &block[start..end];
        let text = if valid {
            // SAFETY: the whole block is valid UTF-8 and LF is a character boundary.
            Some(unsafe { std::str::from_utf8_unchecked(line) })
        } else {
            simdutf8::basic::from_utf8(line).ok()
        };
        f(text, out);
        out.push(b'\n');
        start = end + 1;
    }
}
