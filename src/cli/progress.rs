//! The progress bar the command line draws on a terminal: an [`irinorm::stream::Progress`]
//! drawn by `indicatif`.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use irinorm::stream::Progress;

/// A bar over the inputs' stored sizes on standard error; drawn only when every size is
/// known.
pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    /// A bar that stays hidden until the run starts with a known total.
    pub fn new() -> Bar {
        Bar {
            bar: ProgressBar::hidden(),
        }
    }
}

impl Progress for Bar {
    fn start(&self, total: Option<u64>) {
        let Some(total) = total else { return };
        self.bar.set_length(total);
        self.bar.set_draw_target(ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template(
            "{wide_bar} {bytes}/{total_bytes} {binary_bytes_per_sec} {eta}",
        ) {
            self.bar.set_style(style);
        }
    }

    fn advance(&self, bytes: u64) {
        self.bar.inc(bytes);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
