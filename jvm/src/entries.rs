//! The native methods of `org.irinorm.Native` (Java), one per use: build and free a
//! normalizer, key one string, key an array of strings in one crossing, explain a record,
//! and the constants and tables Java reads once. Each runs under [`guard`].

use std::ptr::null_mut;

use irinorm::internals::{explained_record_json, octets_as_text, records_of};
use irinorm::{Notes, KEY_VERSION};
use jni::objects::{JByteArray, JCharArray, JClass, JIntArray, JObject, JObjectArray, JString};
use jni::sys::{jarray, jint, jlong, jobjectArray, jstring, JNIEnv as RawEnv};
use jni::JNIEnv;

use crate::guard::{guard, Thrown};
use crate::options::{configured, table_rows, Configured};
use crate::packed::{array_len, key_records, Batch, Held};
use crate::text::{new_string, read, with_scratch};

/// The normalizer behind a handle that [`Java_org_irinorm_Native_create`] returned.
///
/// # Safety
///
/// `handle` came from `create` and was not freed yet (Java's `Normalizer` ensures both).
unsafe fn configured_at<'a>(handle: jlong) -> &'a Configured {
    &*(handle as *const Configured)
}

/// A new normalizer from command-line key options: its handle, or 0 with an
/// `IllegalArgumentException` pending that carries the command line's message.
#[no_mangle]
pub extern "system" fn Java_org_irinorm_Native_create<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    args: JObjectArray<'l>,
) -> jlong {
    guard(&mut env, 0, |env| {
        let args = strings_of(env, &args)?;
        let normalizer = configured(&args).map_err(Thrown::Illegal)?;
        Ok(Box::into_raw(Box::new(normalizer)) as jlong)
    })
}

/// Frees the normalizer of a handle (0 is no normalizer).
#[no_mangle]
pub extern "system" fn Java_org_irinorm_Native_free<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    handle: jlong,
) {
    guard(&mut env, (), |_| {
        if handle != 0 {
            // SAFETY: Java frees each handle once, after its last use.
            drop(unsafe { Box::from_raw(handle as *mut Configured) });
        }
        Ok(())
    })
}

/// Writes the key of one string into `out` as UTF-8 and returns its length: -1 when there
/// is none (null, an invalid record, a lone surrogate), `-n - 2` when `out` is shorter than
/// the key's `n` bytes (nothing written).
#[no_mangle]
pub extern "system" fn Java_org_irinorm_Native_normalizeInto<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    handle: jlong,
    url: JString<'l>,
    out: JByteArray<'l>,
) -> jint {
    let raw = env.get_raw();
    guard(&mut env, -1, |_| {
        // SAFETY: a live handle, this thread's environment, live local references.
        Ok(unsafe { key_into(raw, configured_at(handle), url.as_raw(), out.as_raw()) })
    })
}

/// [`Java_org_irinorm_Native_normalizeInto`]'s work.
///
/// # Safety
///
/// `env` is this thread's environment; `url` is null or a live string, `out` a live
/// `byte[]`.
unsafe fn key_into(env: *mut RawEnv, c: &Configured, url: jstring, out: jarray) -> jint {
    let normalize = |text: &str, key: &mut String, notes: &mut Notes| {
        notes.clear();
        c.keys.normalize_record_into(text, key, notes).is_ok()
    };
    with_text(env, url, normalize, |key, _| copy_key(env, key, out)).unwrap_or(-1)
}

/// Copies `key` to the start of `out`: its length, or `-n - 2` when `out` is shorter than
/// its `n` bytes (or -1 if the array cannot be held).
///
/// # Safety
///
/// `env` is this thread's environment; `out` a live `byte[]`.
unsafe fn copy_key(env: *mut RawEnv, key: &str, out: jarray) -> jint {
    let (Ok(n), Some(len)) = (jint::try_from(key.len()), array_len(env, out)) else {
        return -1;
    };
    if len < key.len() {
        return n.checked_add(2).map_or(-1, |m| -m);
    }
    let Some(mut held) = Held::<u8>::new(env, out, len, true) else {
        return -1;
    };
    held.data()[..key.len()].copy_from_slice(key.as_bytes());
    n
}

/// Keys records `from..to` of the packed records `chars` and `ends` into `out` and
/// `out_ends` (the module `packed`): returns the first record whose key did
/// not fit (`to` when all did).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_org_irinorm_Native_normalizePacked<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    handle: jlong,
    chars: JCharArray<'l>,
    ends: JIntArray<'l>,
    from: jint,
    to: jint,
    out: JByteArray<'l>,
    out_ends: JIntArray<'l>,
) -> jint {
    let raw = env.get_raw();
    let arrays = [
        chars.as_raw(),
        ends.as_raw(),
        out.as_raw(),
        out_ends.as_raw(),
    ];
    guard(&mut env, 0, |_| {
        // SAFETY: a live handle, this thread's environment, live arrays of these types.
        let done = unsafe { packed_keys(raw, configured_at(handle), arrays, from, to) };
        done.ok_or_else(|| Thrown::Jni("irinorm: the packed arrays could not be held".into()))
    })
}

/// [`key_records`] over the four arrays, held in place for the time of the call.
///
/// # Safety
///
/// `env` is this thread's environment; the arrays are live: `char[]`, `int[]`, `byte[]`
/// and `int[]`.
unsafe fn packed_keys(
    env: *mut RawEnv,
    c: &Configured,
    [chars, ends, out, out_ends]: [jarray; 4],
    from: jint,
    to: jint,
) -> Option<jint> {
    let lens = [chars, ends, out, out_ends].map(|a| array_len(env, a));
    let [Some(n_chars), Some(n_ends), Some(n_out), Some(n_out_ends)] = lens else {
        return None;
    };
    let mut chars = Held::<u16>::new(env, chars, n_chars, false)?;
    let mut ends = Held::<i32>::new(env, ends, n_ends, false)?;
    let mut out = Held::<u8>::new(env, out, n_out, true)?;
    let mut out_ends = Held::<i32>::new(env, out_ends, n_out_ends, true)?;
    let (from, to) = (usize::try_from(from).ok()?, usize::try_from(to).ok()?);
    let batch = Batch {
        chars: chars.data(),
        ends: ends.data(),
        out: out.data(),
        out_ends: out_ends.data(),
    };
    let done = with_scratch(|s| key_records(c, batch, from, to, s));
    jint::try_from(done).ok()
}

/// What `finish` makes of the text `write` writes for the text of `url` (as UTF-8, into
/// this thread's key buffer, emptied, with its notes to reuse; `finish` gets its UTF-16
/// buffer too); `None` for a null `url`, a lone surrogate, or when `write` returns false.
///
/// # Safety
///
/// `env` is this thread's environment; `url` is null or a live string reference.
unsafe fn with_text<R>(
    env: *mut RawEnv,
    url: jstring,
    write: impl FnOnce(&str, &mut String, &mut Notes) -> bool,
    finish: impl FnOnce(&str, &mut Vec<u16>) -> R,
) -> Option<R> {
    if url.is_null() {
        return None;
    }
    with_scratch(|s| {
        if !read(env, url, &mut s.units, &mut s.text) {
            return None;
        }
        s.key.clear();
        write(&s.text, &mut s.key, &mut s.notes).then(|| finish(&s.key, &mut s.units))
    })
}

/// The key of one string with the steps that made it, its error and its warnings, as the
/// JSON object the library writes for an explained record (the command line's `--explain
/// --output jsonl`, without the file and line); null for null or a lone surrogate.
#[no_mangle]
pub extern "system" fn Java_org_irinorm_Native_explain<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    handle: jlong,
    url: JString<'l>,
) -> jstring {
    let raw = env.get_raw();
    guard(&mut env, null_mut(), |_| {
        // SAFETY: as for `normalize`.
        let c = unsafe { configured_at(handle) };
        let explain = |text: &str, out: &mut String, _: &mut Notes| {
            out.push_str(&explained_record_json(&c.core, text));
            true
        };
        let json = unsafe { with_text(raw, url.as_raw(), explain, |j, u| new_string(raw, j, u)) };
        Ok(json.unwrap_or(null_mut()))
    })
}

/// The version of the keys (`irinorm::KEY_VERSION`).
#[no_mangle]
pub extern "system" fn Java_org_irinorm_Native_keyVersion<'l>(
    _: JNIEnv<'l>,
    _: JClass<'l>,
) -> jint {
    jint::try_from(KEY_VERSION).unwrap_or(jint::MAX)
}

/// The key options, `name<TAB>kind` each, in the library table's order.
#[no_mangle]
pub extern "system" fn Java_org_irinorm_Native_keyOptions<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
) -> jobjectArray {
    guard(&mut env, null_mut(), |env| string_array(env, table_rows()))
}

/// The records of a file's bytes as the command line reads them, each as text with every
/// octet that is not UTF-8 written `%XX`.
#[no_mangle]
pub extern "system" fn Java_org_irinorm_Native_readRecords<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    data: JByteArray<'l>,
) -> jobjectArray {
    guard(&mut env, null_mut(), |env| {
        let data = env.convert_byte_array(&data)?;
        let records = records_of(&data).map(|r| octets_as_text(r).into_owned());
        string_array(env, records.collect())
    })
}

/// The strings of a Java `String[]` (a null element is an error).
fn strings_of(env: &mut JNIEnv<'_>, array: &JObjectArray<'_>) -> Result<Vec<String>, Thrown> {
    let len = env.get_array_length(array)?;
    let mut out = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    for i in 0..len {
        let item = JString::from(env.get_object_array_element(array, i)?);
        if item.is_null() {
            return Err(Thrown::Illegal("an option is null".to_owned()));
        }
        let text = env.get_string(&item).map_err(|_| {
            Thrown::Illegal("an option is not Unicode text (a lone surrogate)".to_owned())
        })?;
        out.push(text.into());
    }
    Ok(out)
}

/// A new Java `String[]` of `items`.
fn string_array(env: &mut JNIEnv<'_>, items: Vec<String>) -> Result<jobjectArray, Thrown> {
    let len = i32::try_from(items.len()).map_err(|_| Thrown::Jni("too many strings".into()))?;
    let array = env.new_object_array(len, "java/lang/String", JObject::null())?;
    for (i, item) in (0..len).zip(items) {
        let s = env.new_string(item)?;
        env.set_object_array_element(&array, i, &s)?;
        env.delete_local_ref(s)?;
    }
    Ok(array.into_raw())
}
