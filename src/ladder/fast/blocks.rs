//! What a backend computes: a block of 16, 32 or 64 bytes of a record as bit masks, one bit per
//! byte ([`TailMasks`] for a path, query or fragment, [`HostMasks`] for a host; one byte
//! value, or the capital letters, for the scans of the compatibility profiles), behind the
//! one trait every backend implements ([`Blocks`]).
//!
//! The scan ([`super::tail`], [`super::authority`]) is written once, generic over
//! [`Blocks`]; a backend only turns bytes into masks, each block once. Every backend gives
//! exactly the masks of the portable one ([`super::scalar`]) for the same bytes, which its
//! tests check.

/// What each byte of a block (16, 32 or 64 bytes) of a path, query or fragment is: bit `k` of
/// a field describes byte `k`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TailMasks {
    /// Bytes that no component allows raw: controls (the line feed too), space, the
    /// printable characters URIs forbid, `[`, `]`, DEL.
    pub(crate) bad: u64,
    /// `%`, `#` and the bytes of non-ASCII characters: less common, looked at again one by
    /// one when a record holds them.
    pub(crate) rare: u64,
    /// `.`.
    pub(crate) dot: u64,
    /// `/`.
    pub(crate) slash: u64,
    /// `?` and `;`, where a query or a path parameter may start (the protocol rules' sieve
    /// looks for them), where the scan asks for them
    /// ([`look::MARKS`](super::tail::look::MARKS)); else 0.
    pub(crate) marks: u64,
}

/// What each byte of a block (16, 32 or 64 bytes) of an authority is (bit `k` for byte `k`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct HostMasks {
    /// `.`.
    pub(crate) dot: u64,
    /// `-`.
    pub(crate) hyphen: u64,
    /// Bytes other than `a-z`, `0-9`, `-` and `.`.
    pub(crate) not_ldh: u64,
}

/// How blocks of a record become masks: the width of a block, and the code that computes
/// its masks. Every backend gives the masks of the portable reference
/// ([`super::scalar::tail_masks`], [`super::scalar::host_masks`]) for the same bytes. A
/// value of the type is the permission to run its code (see `avx2::Avx2`).
pub(crate) trait Blocks: Copy {
    /// Bytes per block: 16, 32 or 64 (the masks are `u64`).
    const WIDTH: usize;
    /// The [`TailMasks`] of the block of `b` at `i`, with the classes of
    /// [`look`](super::tail::look) that `LOOK` asks for. Past the end of `b`, the block reads
    /// line feeds ([`padded`]).
    fn tail_masks<const LOOK: u8>(self, b: &[u8], i: usize) -> TailMasks;
    /// The [`HostMasks`] of the block of `b` at `i`.
    fn host_masks(self, b: &[u8], i: usize) -> HostMasks;
    /// The bytes equal to `x` in the block of `b` at `i` (past the end, line feeds).
    fn eq_mask(self, b: &[u8], i: usize, x: u8) -> u64;
    /// The ASCII capital letters `A`-`Z` in the block of `b` at `i`.
    fn capitals(self, b: &[u8], i: usize) -> u64;
}

/// The `N` bytes of `b` from `i` where the text runs out before their end: the rest of the
/// text, then line feeds (which end any record).
#[inline(always)]
pub(super) fn padded<const N: usize>(b: &[u8], i: usize) -> [u8; N] {
    let mut c = [b'\n'; N];
    let rest = &b[i.min(b.len())..];
    c[..rest.len()].copy_from_slice(rest);
    c
}
