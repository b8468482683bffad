//! A clear message instead of a bare "Bus error" when an input file is shortened while the
//! engine reads it through a memory map (`--no-mmap` reads files instead; see
//! `EngineOptions::mmap`).
//!
//! Reading a page of a map past the end of a file that another program has truncated raises
//! `SIGBUS`, which ends the process. The handler installed here says what happened and how
//! to avoid it, then ends the process with status 2, as other input errors do. The records
//! written before it stay written.

/// What the handler writes to standard error.
#[cfg(unix)]
const MESSAGE: &[u8] = b"irinorm: an input file was shortened while it was read (SIGBUS): \
irinorm maps input files into memory; use --no-mmap for files that may be truncated during the run\n";

/// Installs the handler for `SIGBUS`. Best effort: if the system refuses, the signal ends
/// the process as it would have.
#[cfg(unix)]
pub(super) fn explain_truncated_inputs() {
    extern "C" fn on_sigbus(_: libc::c_int) {
        // SAFETY: `write` and `_exit` are async-signal-safe; the message is a static.
        unsafe {
            libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
            libc::_exit(2);
        }
    }
    // SAFETY: `sigaction` is given a zeroed (valid, empty) action whose handler is a plain
    // `extern "C"` function that only makes async-signal-safe calls.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as extern "C" fn(libc::c_int) as usize;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

/// Elsewhere the signal is left as it is.
#[cfg(not(unix))]
pub(super) fn explain_truncated_inputs() {}
