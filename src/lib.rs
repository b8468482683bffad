//! irinorm: normalize IRIs and URIs (RFC 3987, RFC 3986) into canonical comparison keys.

pub mod chars;
pub mod engine;
pub mod error;
pub mod host;
pub mod input;
pub mod output;
pub mod path;
pub mod repair;
pub mod resolve;

pub use error::{Error, ErrorKind};
