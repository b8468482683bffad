//! Java strings in and out of the hot path, through raw JNI calls and per-thread buffers:
//! a string is read as its UTF-16 units with one copy (`GetStringRegion`) and turned into
//! UTF-8 here, where a lone surrogate is found (the string is not Unicode text, so no
//! record: a null key); a key goes back as UTF-16 (`NewString`), whatever it holds.

use std::cell::RefCell;
use std::ptr::null_mut;

use irinorm::Notes;
use jni::sys::{jsize, jstring, JNIEnv};

/// Buffers larger than this are given back after use, so that a thread that once keyed a
/// huge string does not keep its memory.
const KEEP_CAPACITY: usize = 1 << 16;

/// The buffers of one thread's calls.
#[derive(Default)]
pub(crate) struct Scratch {
    /// UTF-16 units, of the record read and of the key written.
    pub(crate) units: Vec<u16>,
    /// The record as UTF-8.
    pub(crate) text: String,
    /// The key.
    pub(crate) key: String,
    /// What the library notes besides the key (unused here, reused for its allocation).
    pub(crate) notes: Notes,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Runs `f` with this thread's buffers.
pub(crate) fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    SCRATCH.with(|cell| {
        let mut scratch = cell.borrow_mut();
        let result = f(&mut scratch);
        if scratch.units.capacity() > KEEP_CAPACITY || scratch.text.capacity() > KEEP_CAPACITY {
            *scratch = Scratch::default();
        }
        result
    })
}

/// Reads the Java string `s` (not null) into `text` as UTF-8, through `units`; false when
/// it holds a lone surrogate.
///
/// # Safety
///
/// `env` is the current thread's JNI environment and `s` a live, non-null string reference.
pub(crate) unsafe fn read(
    env: *mut JNIEnv,
    s: jstring,
    units: &mut Vec<u16>,
    text: &mut String,
) -> bool {
    let f = &**env;
    let len = f.GetStringLength.expect("JNI GetStringLength")(env, s);
    let n = usize::try_from(len).unwrap_or(0);
    units.clear();
    units.reserve(n);
    f.GetStringRegion.expect("JNI GetStringRegion")(env, s, 0, len, units.as_mut_ptr());
    units.set_len(n);
    utf16_to_utf8(units, text)
}

/// `units` as UTF-8 in `text`; false when they hold a lone surrogate.
pub(crate) fn utf16_to_utf8(units: &[u16], text: &mut String) -> bool {
    text.clear();
    // ASCII (most URLs): one narrowing pass that the compiler vectorizes, kept when no unit
    // was above 0x7F.
    let mut all = 0;
    // SAFETY: the bytes are checked below: kept only if all are ASCII, else cleared.
    let bytes = unsafe { text.as_mut_vec() };
    bytes.extend(units.iter().map(|&u| {
        all |= u;
        u as u8
    }));
    if all < 0x80 {
        return true;
    }
    bytes.clear();
    for c in char::decode_utf16(units.iter().copied()) {
        match c {
            Ok(c) => text.push(c),
            Err(_) => return false,
        }
    }
    true
}

/// A new Java string holding `key`, written through `units`; null with an exception pending
/// when the JVM could not make it.
///
/// # Safety
///
/// `env` is the current thread's JNI environment.
pub(crate) unsafe fn new_string(env: *mut JNIEnv, key: &str, units: &mut Vec<u16>) -> jstring {
    units.clear();
    if key.is_ascii() {
        units.extend(key.bytes().map(u16::from));
    } else {
        units.extend(key.encode_utf16());
    }
    let Ok(len) = jsize::try_from(units.len()) else {
        return null_mut();
    };
    (**env).NewString.expect("JNI NewString")(env, units.as_ptr(), len)
}

#[cfg(test)]
mod tests {
    use super::utf16_to_utf8;

    #[test]
    fn utf16_is_read_as_utf8_and_lone_surrogates_are_refused() {
        let mut text = String::new();
        for s in ["http://a/", "http://é.example/😀", ""] {
            let units: Vec<u16> = s.encode_utf16().collect();
            assert!(utf16_to_utf8(&units, &mut text));
            assert_eq!(text, s);
        }
        for units in [
            &[0x68, 0xD800][..],
            &[0xDC00, 0x61],
            &[0xD83D, 0xD83D, 0xDE00],
        ] {
            assert!(!utf16_to_utf8(units, &mut text), "{units:?}");
        }
    }
}
