//! The progress display the command line draws (`--progress`): an
//! [`irinorm::stream::Progress`] drawn by `indicatif` on standard error.
//!
//! On a terminal it is a bar over the inputs' stored sizes (a byte count and a rate when a
//! size is unknown, as for standard input, with `--progress always`). With `--progress
//! always` and standard error not a terminal (a log file), it is one plain line a second.

use std::io::{self, IsTerminal, Write};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};
use irinorm::stream::Progress;

/// A progress display on standard error.
pub struct Bar {
    bar: ProgressBar,
    /// Draw even when the total is unknown or standard error is not a terminal.
    always: bool,
}

impl Bar {
    /// A display that stays hidden until the run starts; with `always`, it is drawn
    /// whatever standard error is and whether or not the total is known.
    pub fn new(always: bool) -> Bar {
        Bar {
            bar: ProgressBar::hidden(),
            always,
        }
    }
}

impl Progress for Bar {
    fn start(&self, total: Option<u64>) {
        let template = match total {
            Some(total) => {
                self.bar.set_length(total);
                "{wide_bar} {bytes}/{total_bytes} {binary_bytes_per_sec} {eta}"
            }
            None if self.always => "{spinner} {bytes} {binary_bytes_per_sec} {elapsed}",
            None => return,
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            self.bar.set_style(style);
        }
        let target = if io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else if self.always {
            ProgressDrawTarget::term_like_with_hz(Box::new(LogLines), 1)
        } else {
            return;
        };
        self.bar.set_draw_target(target);
    }

    fn advance(&self, bytes: u64) {
        self.bar.inc(bytes);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// A draw target for standard error when it is not a terminal: each redraw is a new plain
/// line, with no cursor movement or escape sequences.
#[derive(Debug)]
struct LogLines;

impl TermLike for LogLines {
    fn width(&self) -> u16 {
        80
    }

    fn move_cursor_up(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_down(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_right(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn move_cursor_left(&self, _: usize) -> io::Result<()> {
        Ok(())
    }

    fn write_line(&self, s: &str) -> io::Result<()> {
        // A progress line is best effort: a closed standard error does not stop the run.
        if !s.trim().is_empty() {
            let _ = writeln!(io::stderr(), "{s}");
        }
        Ok(())
    }

    fn write_str(&self, s: &str) -> io::Result<()> {
        let _ = io::stderr().write_all(s.as_bytes());
        Ok(())
    }

    fn clear_line(&self) -> io::Result<()> {
        Ok(())
    }

    fn flush(&self) -> io::Result<()> {
        let _ = io::stderr().flush();
        Ok(())
    }
}
