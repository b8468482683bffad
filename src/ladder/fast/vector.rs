//! The masks of [`super::blocks`] from a handful of vector operations, written once for
//! the SSE2 and AVX2 backends: a backend ([`super::sse2`], [`super::avx2`]) only says what
//! the operations are on its registers ([`Vector`]). (The AVX-512 backend's comparisons
//! give masks, not vectors: it computes its own.)

use super::blocks::{HostMasks, TailMasks};
use super::tail::look;

/// The few vector operations the SIMD masks are made of, on the 16 bytes of an SSE2 register
/// or the 32 of an AVX2 one (the AVX-512 backend computes its masks with comparisons that
/// give masks, not vectors, and does without these).
pub(super) trait Vector: Copy {
    /// Bytes per vector.
    const WIDTH: usize;
    /// The block of `b` at `i` (see [`super::blocks::padded`] for the end of the text).
    fn load(b: &[u8], i: usize) -> Self;
    /// `x` in every byte.
    fn splat(x: u8) -> Self;
    /// Bytes equal in `self` and `o`: all ones, else all zeros.
    fn eq(self, o: Self) -> Self;
    /// Bitwise or.
    fn or(self, o: Self) -> Self;
    /// Bytewise wrapping subtraction.
    fn sub(self, o: Self) -> Self;
    /// Bytewise unsigned minimum.
    fn min(self, o: Self) -> Self;
    /// Bytes of `self` below those of `o`, as signed bytes.
    fn lt(self, o: Self) -> Self;
    /// The top bit of each byte, bit `k` for byte `k`.
    fn bits(self) -> u32;
}

/// Implements [`Vector`] for a backend's register type, a one-field tuple struct of the
/// register, from the intrinsic of each operation: every method is that one intrinsic on
/// the register (`lt` an expression over the two registers, for a backend that has only
/// the other order). The load reads `WIDTH` bytes of `b` at `i`, or of a copy of the end
/// of `b` padded with line feeds ([`super::blocks::padded`]), so it never reads past `b`.
///
/// Safety is the backend's to give: it invokes this only for a register type that, as its
/// module says, exists only where the processor has the instructions, and whose methods are
/// inlined into code compiled with them. The intrinsics compute on values; the one load
/// reads `WIDTH` bytes from a slice that holds them and needs no alignment.
macro_rules! impl_vector {
    (@binary $v:ident, $($op:ident: $intrinsic:ident),*) => {
        $(
            #[inline(always)]
            fn $op(self, o: $v) -> $v {
                // SAFETY: see `impl_vector`.
                $v(unsafe { $intrinsic(self.0, o.0) })
            }
        )*
    };
    ($v:ident, $width:literal, load: $load:ident, splat: $splat:ident, eq: $eq:ident,
     or: $or:ident, sub: $sub:ident, min: $min:ident,
     lt($a:ident, $b:ident) => $lt:expr, bits: $bits:ident) => {
        impl $crate::ladder::fast::vector::Vector for $v {
            const WIDTH: usize = $width;

            #[inline(always)]
            fn load(b: &[u8], i: usize) -> $v {
                let load = |c: &[u8]| {
                    // SAFETY: see `impl_vector`; `c` holds `WIDTH` bytes.
                    $v(unsafe { $load(c.as_ptr().cast()) })
                };
                match b.get(i..i + $width) {
                    Some(c) => load(c),
                    None => load(&$crate::ladder::fast::blocks::padded::<$width>(b, i)),
                }
            }

            #[inline(always)]
            fn splat(x: u8) -> $v {
                // SAFETY: see `impl_vector`.
                $v(unsafe { $splat(x as i8) })
            }

            $crate::ladder::fast::vector::impl_vector!(@binary $v, eq: $eq, or: $or, sub: $sub, min: $min);

            #[inline(always)]
            fn lt(self, o: $v) -> $v {
                let ($a, $b) = (self.0, o.0);
                // SAFETY: see `impl_vector`.
                $v(unsafe { $lt })
            }

            #[inline(always)]
            fn bits(self) -> u32 {
                // SAFETY: see `impl_vector`.
                unsafe { $bits(self.0) as u32 }
            }
        }
    };
}
pub(super) use impl_vector;

/// The methods of [`super::blocks::Blocks`] that a backend computes with its register type
/// `V` as every backend with a [`Vector`] does (the masks of [`host_masks`], [`eq_mask`],
/// [`capitals`]): invoked inside the backend's `impl Blocks`.
macro_rules! vector_blocks {
    ($v:ty) => {
        #[inline(always)]
        fn host_masks(self, b: &[u8], i: usize) -> $crate::ladder::fast::blocks::HostMasks {
            $crate::ladder::fast::vector::host_masks::<$v>(b, i)
        }

        #[inline(always)]
        fn eq_mask(self, b: &[u8], i: usize, x: u8) -> u64 {
            $crate::ladder::fast::vector::eq_mask::<$v>(b, i, x)
        }

        #[inline(always)]
        fn capitals(self, b: &[u8], i: usize) -> u64 {
            $crate::ladder::fast::vector::capitals::<$v>(b, i)
        }
    };
}
pub(super) use vector_blocks;

/// Bytes equal to `x`.
#[inline(always)]
fn eq_byte<V: Vector>(v: V, x: u8) -> V {
    v.eq(V::splat(x))
}

/// Bytes in `lo..lo + n`, unsigned: `v - lo` (wrapping) is at most `n - 1`.
#[inline(always)]
fn within<V: Vector>(v: V, lo: u8, n: u8) -> V {
    let d = v.sub(V::splat(lo));
    d.min(V::splat(n - 1)).eq(d)
}

/// Controls, space, and non-ASCII bytes: below 0x21 as signed bytes.
#[inline(always)]
fn low_or_high<V: Vector>(v: V) -> V {
    v.lt(V::splat(0x21))
}

/// The printable ASCII characters that no component allows raw, and DEL.
#[inline(always)]
fn forbidden<V: Vector>(v: V) -> V {
    // '<' and '>' are 0x3C and 0x3E: with bit 1 set, both read 0x3E.
    let angle = eq_byte(v.or(V::splat(2)), b'>');
    let quotes = eq_byte(v, b'"').or(eq_byte(v, b'`'));
    // '[' '\' ']' '^', and '{' '|' '}'.
    let brackets = within(v, b'[', 4).or(within(v, b'{', 3));
    quotes.or(eq_byte(v, 0x7f).or(angle)).or(brackets)
}

/// [`super::blocks::Blocks::tail_masks`] with vectors of type `V`.
#[inline(always)]
pub(super) fn tail_masks<V: Vector, const LOOK: u8>(b: &[u8], i: usize) -> TailMasks {
    let v = V::load(b, i);
    let high = v.bits();
    TailMasks {
        marks: if LOOK & look::MARKS != 0 {
            u64::from(marks(v))
        } else {
            0
        },
        // The non-ASCII bytes are taken out of `low_or_high` again.
        bad: u64::from(low_or_high(v).or(forbidden(v)).bits() & !high),
        // The top bit of a non-ASCII byte is set already.
        rare: u64::from(eq_byte(v, b'%').or(eq_byte(v, b'#')).or(v).bits()),
        dot: u64::from(eq_byte(v, b'.').bits()),
        slash: u64::from(eq_byte(v, b'/').bits()),
    }
}

/// [`TailMasks::marks`] of the bytes of `v`: `?` and `;`.
#[inline(always)]
pub(super) fn marks<V: Vector>(v: V) -> u32 {
    eq_byte(v, b'?').or(eq_byte(v, b';')).bits()
}

/// [`super::blocks::Blocks::eq_mask`] with vectors of type `V`.
#[inline(always)]
pub(super) fn eq_mask<V: Vector>(b: &[u8], i: usize, x: u8) -> u64 {
    u64::from(eq_byte(V::load(b, i), x).bits())
}

/// [`super::blocks::Blocks::capitals`] with vectors of type `V`.
#[inline(always)]
pub(super) fn capitals<V: Vector>(b: &[u8], i: usize) -> u64 {
    u64::from(within(V::load(b, i), b'A', 26).bits())
}

/// [`super::blocks::Blocks::host_masks`] with vectors of type `V`.
#[inline(always)]
pub(super) fn host_masks<V: Vector>(b: &[u8], i: usize) -> HostMasks {
    let v = V::load(b, i);
    let dot = eq_byte(v, b'.');
    let hyphen = eq_byte(v, b'-');
    let ldh = within(v, b'a', 26)
        .or(within(v, b'0', 10))
        .or(dot.or(hyphen));
    HostMasks {
        dot: u64::from(dot.bits()),
        hyphen: u64::from(hyphen.bits()),
        not_ldh: u64::from(!ldh.bits() & (u32::MAX >> (32 - V::WIDTH))),
    }
}
