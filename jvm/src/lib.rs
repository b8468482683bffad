//! The native part of irinorm's Java API: the methods of `org.irinorm.Native` (Java), each a
//! thin entry over the library, which does all the work.
//!
//! - a normalizer is built from the command line's key options, read by name through the
//!   library's one table of them (`options`), and handed to Java as an opaque handle;
//! - keys go through the library's record entry point (`Normalizer::normalize_record_into`,
//!   the one the command line uses), so a Java string gets the key `irinorm normalize`
//!   writes for the same line; an invalid record (a lone surrogate included) is a null key;
//! - no panic crosses into the JVM: every entry runs under `guard::guard`, which turns a panic
//!   into a Java exception, and bad options are an `IllegalArgumentException` with the
//!   command line's message.

mod entries;
mod guard;
mod options;
mod packed;
mod text;
