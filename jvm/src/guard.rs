//! The one way into the library from Java: [`guard`] runs an entry point's body, catches any
//! panic (none may unwind into the JVM) and turns every failure into a Java exception, so
//! that each entry returns a value Java can use, with an exception pending when it failed.

use std::panic::{catch_unwind, AssertUnwindSafe};

use jni::JNIEnv;

/// Why an entry point gave no result.
pub(crate) enum Thrown {
    /// Options that make no normalizer: `IllegalArgumentException` with this message.
    Illegal(String),
    /// A JNI call failed (usually with a Java exception already pending, such as an
    /// `OutOfMemoryError`): that exception, or an `IllegalStateException` with this text.
    Jni(String),
}

impl From<jni::errors::Error> for Thrown {
    fn from(e: jni::errors::Error) -> Thrown {
        Thrown::Jni(e.to_string())
    }
}

/// Runs `body`; on an error or a panic, leaves a Java exception pending and returns
/// `fallback` (which Java never sees: the exception is thrown on return).
pub(crate) fn guard<'l, T>(
    env: &mut JNIEnv<'l>,
    fallback: T,
    body: impl FnOnce(&mut JNIEnv<'l>) -> Result<T, Thrown>,
) -> T {
    let outcome = catch_unwind(AssertUnwindSafe(|| body(env)));
    let (class, message) = match outcome {
        Ok(Ok(value)) => return value,
        Ok(Err(Thrown::Illegal(m))) => ("java/lang/IllegalArgumentException", m),
        Ok(Err(Thrown::Jni(m))) => ("java/lang/IllegalStateException", m),
        Err(panic) => ("java/lang/IllegalStateException", panic_text(&*panic)),
    };
    // A JNI failure may have left its own exception pending: that one is thrown.
    if !env.exception_check().unwrap_or(true) {
        // If even this fails, Java gets the fallback without an exception: nothing better
        // can be done from here.
        let _ = env.throw_new(class, message);
    }
    fallback
}

/// The message of a panic, as the library wrote it.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic");
    format!("irinorm: internal error (a bug, please report it): {text}")
}
