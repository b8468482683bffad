//! The native methods of `org.irinorm.Native` (Java), one per use: build and free a
//! normalizer, key one string, key an array of strings in one crossing, explain a record,
//! and the constants and tables Java reads once. Each runs under [`guard`].

use std::ptr::null_mut;

use irinorm::internals::{explained_record_json, octets_as_text, records_of};
use irinorm::{Notes, KEY_VERSION};
use jni::objects::{JByteArray, JClass, JObject, JObjectArray, JString};
use jni::sys::{jint, jlong, jobjectArray, jstring, JNIEnv as RawEnv};
use jni::JNIEnv;

use crate::guard::{guard, Thrown};
use crate::options::{configured, table_rows, Configured};
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

/// The key of one string, or null for null, an invalid record or a lone surrogate.
#[no_mangle]
pub extern "system" fn Java_org_irinorm_Native_normalize<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    handle: jlong,
    url: JString<'l>,
) -> jstring {
    let raw = env.get_raw();
    guard(&mut env, null_mut(), |_| {
        // SAFETY: a live handle, this thread's environment and a local reference.
        Ok(unsafe { key_of(raw, configured_at(handle), url.as_raw()) })
    })
}

/// Writes the key of every string of `urls` at the same index of `keys` (an array of the
/// same length, all null), in one crossing; an invalid record's key stays null.
#[no_mangle]
pub extern "system" fn Java_org_irinorm_Native_normalizeAll<'l>(
    mut env: JNIEnv<'l>,
    _: JClass<'l>,
    handle: jlong,
    urls: JObjectArray<'l>,
    keys: JObjectArray<'l>,
) {
    let raw = env.get_raw();
    guard(&mut env, (), |_| {
        // SAFETY: as for `normalize`; the arrays are live local references.
        unsafe { keys_of(raw, configured_at(handle), urls.as_raw(), keys.as_raw()) };
        Ok(())
    })
}

/// The key of `url` made by `c`, as a new local reference; null where there is none.
///
/// # Safety
///
/// `env` is this thread's environment; `url` is null or a live string reference.
unsafe fn key_of(env: *mut RawEnv, c: &Configured, url: jstring) -> jstring {
    with_text(env, url, |text, key, notes| {
        notes.clear();
        c.keys.normalize_record_into(text, key, notes).is_ok()
    })
}

/// The Java string that `write` makes of the text of `url` (as UTF-8, into an empty
/// buffer, with notes to reuse), or null: for a null `url`, a lone surrogate, or when
/// `write` returns false.
///
/// # Safety
///
/// As for [`key_of`].
unsafe fn with_text(
    env: *mut RawEnv,
    url: jstring,
    write: impl FnOnce(&str, &mut String, &mut Notes) -> bool,
) -> jstring {
    if url.is_null() {
        return null_mut();
    }
    with_scratch(|s| {
        if !read(env, url, &mut s.units, &mut s.text) {
            return null_mut();
        }
        s.key.clear();
        if write(&s.text, &mut s.key, &mut s.notes) {
            new_string(env, &s.key, &mut s.units)
        } else {
            null_mut()
        }
    })
}

/// [`key_of`] for each element of `urls`, stored into `keys`; stops at a pending exception.
///
/// # Safety
///
/// `env` is this thread's environment; `urls` and `keys` are live `String[]` references of
/// the same length.
unsafe fn keys_of(env: *mut RawEnv, c: &Configured, urls: jobjectArray, keys: jobjectArray) {
    let f = &**env;
    let len = f.GetArrayLength.expect("JNI GetArrayLength")(env, urls);
    let get = f.GetObjectArrayElement.expect("JNI GetObjectArrayElement");
    let set = f.SetObjectArrayElement.expect("JNI SetObjectArrayElement");
    let delete = f.DeleteLocalRef.expect("JNI DeleteLocalRef");
    let pending = f.ExceptionCheck.expect("JNI ExceptionCheck");
    for i in 0..len {
        let url = get(env, urls, i);
        let key = key_of(env, c, url);
        if !url.is_null() {
            delete(env, url);
        }
        if !key.is_null() {
            set(env, keys, i, key);
            delete(env, key);
        } else if pending(env) != 0 {
            return;
        }
    }
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
        Ok(unsafe {
            with_text(raw, url.as_raw(), |text, out, _| {
                out.push_str(&explained_record_json(&c.core, text));
                true
            })
        })
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
