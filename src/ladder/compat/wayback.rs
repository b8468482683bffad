//! Placeholder for the `wayback` compatibility profile.

use super::{Refusal, Steps};

/// The buffers of keying one record, reused.
#[derive(Default)]
pub(crate) struct Scratch {}

/// Appends the key of `record` to `out`.
pub(crate) fn write_key(
    record: &[u8],
    out: &mut String,
    _scratch: &mut Scratch,
    _steps: &mut impl Steps,
) -> Result<(), Refusal> {
    let _ = (record, out);
    Err(Refusal { at: 0, message: "not yet" })
}
