//! A larger pipe buffer for standard output, where it is a pipe on Linux.
//!
//! A Linux pipe holds 64 KiB by default. A writer that produces output faster than its
//! reader takes it (`irinorm normalize ... | sort`, or the jsonl rows, about three and a half
//! times the input's bytes) fills it many times a second, and each time it waits and is woken
//! again: thousands of context switches a second, paid in the kernel. With a buffer of
//! 1 MiB (the most an unprivileged process may ask for by default,
//! `/proc/sys/fs/pipe-max-size`), the same output takes a sixth of the switches. This is a
//! request only: where the system refuses it (a lower limit, a user over their pipe quota),
//! or the output is not a pipe, nothing changes.

/// The pipe buffer asked for: 1 MiB.
#[cfg(target_os = "linux")]
const PIPE_BYTES: libc::c_int = 1 << 20;

/// Asks for a pipe buffer of [`PIPE_BYTES`] on standard output, if it is a pipe whose buffer
/// is smaller. Best effort: any failure leaves the pipe as it was.
#[cfg(target_os = "linux")]
pub(super) fn enlarge_stdout() {
    use std::os::fd::AsRawFd;
    let fd = std::io::stdout().as_raw_fd();
    // SAFETY: `fstat` writes into the `stat` it is given, which is plain data; both calls
    // only read or set properties of the descriptor, which stays open for the whole
    // process (standard output), and report failure through their return values.
    unsafe {
        let mut stat: libc::stat = std::mem::zeroed();
        if libc::fstat(fd, &mut stat) != 0 || stat.st_mode & libc::S_IFMT != libc::S_IFIFO {
            return;
        }
        if libc::fcntl(fd, libc::F_GETPIPE_SZ) < PIPE_BYTES {
            libc::fcntl(fd, libc::F_SETPIPE_SZ, PIPE_BYTES);
        }
    }
}

/// Elsewhere pipes are left as they are.
#[cfg(not(target_os = "linux"))]
pub(super) fn enlarge_stdout() {}
