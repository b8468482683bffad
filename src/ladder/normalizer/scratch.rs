//! The buffers each thread reuses for the records it normalizes ([`Scratch`]), so that the
//! hot path allocates nothing once they have grown.

use std::cell::RefCell;

use crate::ladder::compat::CompatScratch;
use crate::ladder::protocol::RuleKind;

/// Buffers reused by every record a thread normalizes, so the hot path allocates nothing
/// once they have grown.
#[derive(Default)]
pub(super) struct Scratch {
    /// The texts a record may be re-read from before its key is written.
    pub(super) texts: Texts,
    /// The buffers of writing the key.
    pub(super) key: KeyBuffers,
    /// The record after the lenient repairs.
    pub(super) repaired: String,
    /// The buffers of the compatibility profiles.
    pub(super) compat: CompatScratch,
}

/// The texts a record may be re-read from.
#[derive(Default)]
pub(super) struct Texts {
    /// The record after NFC.
    pub(super) nfc: String,
    /// The record after resolution against the base.
    pub(super) resolved: String,
}

/// The buffers of writing a key.
#[derive(Default)]
pub(super) struct KeyBuffers {
    /// The key writer's scratch ([`crate::ladder::key::KeyWriter::write_key`]): the A-label
    /// form of an `iri` key's host, then a path after percent-encoding normalization, before
    /// dot removal.
    pub(super) path: String,
    /// The scheme-rung key, before protocol rules or the SURT transform.
    pub(super) key: String,
    /// The key after the protocol rules.
    pub(super) after: String,
    /// The kinds of the protocol rules that fired.
    pub(super) fired: Vec<RuleKind>,
}

thread_local! {
    pub(super) static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Runs `f` with this thread's buffers, or with fresh ones where they are in use (a caller
/// that re-enters the ladder on this thread: not the library itself).
pub(super) fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut borrowed) => f(&mut borrowed),
        Err(_) => f(&mut Scratch::default()),
    })
}
