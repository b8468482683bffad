//! A clear message instead of a bare "Bus error" when an input file is shortened while the
//! engine reads it through a memory map (`--no-mmap` reads files instead; see
//! `EngineOptions::with_mmap`).
//!
//! Reading a page of a map past the end of a file that another program has truncated (or a
//! page the system cannot read from the file) raises `SIGBUS` with the code `BUS_ADRERR`,
//! which ends the process. The handler installed here says what happened and how to avoid
//! it, then ends the process with status 2, as other input errors do. Output already
//! handed to the system stays written; output still in irinorm's buffers is lost, so the
//! output may end within a record. A `SIGBUS` of any other code is left to the system.

#[cfg(unix)]
use irinorm::internals::SHORTENED_MAP;

/// What the handler writes to standard error, in three writes:
/// `irinorm: an input file` [`SHORTENED_MAP`] `(SIGBUS)`.
#[cfg(unix)]
const MESSAGE: [&[u8]; 3] = [
    b"irinorm: an input file ",
    SHORTENED_MAP.as_bytes(),
    b" (SIGBUS)\n",
];

/// Installs the handler for `SIGBUS`. Best effort: if the system refuses, the signal ends
/// the process as it would have.
#[cfg(unix)]
pub(super) fn explain_truncated_inputs() {
    extern "C" fn on_sigbus(
        signal: libc::c_int,
        info: *mut libc::siginfo_t,
        _context: *mut libc::c_void,
    ) {
        // SAFETY: the system hands the handler a valid `siginfo_t` (SA_SIGINFO); `write`,
        // `_exit` and `signal` are async-signal-safe, and the message's parts are statics.
        unsafe {
            if !info.is_null() && (*info).si_code == libc::BUS_ADRERR {
                for part in MESSAGE {
                    libc::write(2, part.as_ptr().cast(), part.len());
                }
                libc::_exit(2);
            }
            // Not a read past the end of a map: the default action, once the handler
            // returns and the faulting access runs again.
            libc::signal(signal, libc::SIG_DFL);
        }
    }
    // SAFETY: `sigaction` is given a zeroed (valid, empty) action whose handler is a plain
    // `extern "C"` function of the SA_SIGINFO form that only makes async-signal-safe calls.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
            on_sigbus;
        action.sa_sigaction = handler as usize;
        action.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

/// Elsewhere the signal is left as it is.
#[cfg(not(unix))]
pub(super) fn explain_truncated_inputs() {}
