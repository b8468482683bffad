//! Records and keys packed in Java arrays, crossing JNI without a Java string call per
//! record: the records as UTF-16 units in one `char[]` with their end offsets in an `int[]`,
//! the keys written back as UTF-8 into one `byte[]` with theirs (Java makes its strings of
//! them). The arrays are read and written in place (`GetPrimitiveArrayCritical`), so a
//! batch costs one JNI call and no copy but the keys'.
//!
//! An offset `e` is an end when `e >= 0`; `-e - 1` is the end of a record or key that is
//! null (no characters).

use std::ffi::c_void;
use std::ptr::null_mut;

use jni::sys::{jarray, jint, JNIEnv, JNI_ABORT};

use crate::options::Configured;
use crate::text::{utf16_to_utf8, Scratch};

/// A primitive array held in place; given back (written back with `commit`) when dropped,
/// whatever happens in between.
pub(crate) struct Held<'a, T> {
    env: *mut JNIEnv,
    array: jarray,
    data: &'a mut [T],
    mode: jint,
}

impl<T> Held<'_, T> {
    /// Holds `array` (of `T`s, `len` of them: [`array_len`]) in place; `commit`: whether
    /// writes go back to Java.
    ///
    /// # Safety
    ///
    /// `env` is this thread's environment, `array` a live, non-null array of `len` `T`s. No
    /// other JNI call may be made while it is held (but holding other arrays).
    pub(crate) unsafe fn new(
        env: *mut JNIEnv,
        array: jarray,
        len: usize,
        commit: bool,
    ) -> Option<Self> {
        let ptr = (**env).GetPrimitiveArrayCritical?(env, array, null_mut()).cast::<T>();
        if ptr.is_null() {
            return None;
        }
        Some(Held {
            env,
            array,
            data: std::slice::from_raw_parts_mut(ptr, len),
            mode: if commit { 0 } else { JNI_ABORT },
        })
    }

    /// The array's elements.
    pub(crate) fn data(&mut self) -> &mut [T] {
        self.data
    }
}

impl<T> Drop for Held<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the array was held by `new` with this environment.
        unsafe {
            if let Some(release) = (**self.env).ReleasePrimitiveArrayCritical {
                release(
                    self.env,
                    self.array,
                    self.data.as_mut_ptr().cast::<c_void>(),
                    self.mode,
                );
            }
        }
    }
}

/// The length of a Java array, asked before any array is held (no JNI call may be made
/// while one is).
///
/// # Safety
///
/// `env` is this thread's environment, `array` a live, non-null array.
pub(crate) unsafe fn array_len(env: *mut JNIEnv, array: jarray) -> Option<usize> {
    usize::try_from((**env).GetArrayLength?(env, array)).ok()
}

/// An offset as stored: the end, and whether the record or key is null.
fn decode(e: i32) -> (usize, bool) {
    let end = if e < 0 { -(e + 1) } else { e };
    (usize::try_from(end).unwrap_or(0), e < 0)
}

/// The offset stored for `end` (null or not).
fn encode(end: usize, null: bool) -> i32 {
    let e = i32::try_from(end).expect("a key offset fits an int: the array is Java's");
    if null {
        -e - 1
    } else {
        e
    }
}

/// The packed input of one call and where its keys go.
pub(crate) struct Batch<'a> {
    pub(crate) chars: &'a [u16],
    pub(crate) ends: &'a [i32],
    pub(crate) out: &'a mut [u8],
    pub(crate) out_ends: &'a mut [i32],
}

/// Keys records `from..to` of `batch`, their keys from the start of `out`; returns the
/// first record whose key did not fit (`to` when all did). Offsets out of the arrays'
/// bounds are a bug of the caller: a panic.
pub(crate) fn key_records(
    c: &Configured,
    b: Batch<'_>,
    from: usize,
    to: usize,
    s: &mut Scratch,
) -> usize {
    let mut start = if from == 0 {
        0
    } else {
        decode(b.ends[from - 1]).0
    };
    let mut written = 0;
    for i in from..to {
        let (end, null) = decode(b.ends[i]);
        let units = &b.chars[start..end];
        start = end;
        let ok = !null && utf16_to_utf8(units, &mut s.text) && {
            s.key.clear();
            s.notes.clear();
            c.keys
                .normalize_record_into(&s.text, &mut s.key, &mut s.notes)
                .is_ok()
        };
        if ok {
            let Some(slot) = b.out.get_mut(written..written + s.key.len()) else {
                return i;
            };
            slot.copy_from_slice(s.key.as_bytes());
            written += s.key.len();
        }
        b.out_ends[i] = encode(written, !ok);
    }
    to
}

#[cfg(test)]
mod tests {
    use super::{decode, encode};

    #[test]
    fn offsets_carry_their_nulls() {
        for (end, null) in [(0, false), (0, true), (7, false), (7, true)] {
            assert_eq!(decode(encode(end, null)), (end, null));
        }
    }
}
