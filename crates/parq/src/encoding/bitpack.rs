//! LSB-first bit unpacking, the packing of the RLE / bit-packing hybrid (`Encodings.md`, RLE
//! note 1) and of DELTA_BINARY_PACKED miniblocks.
//!
//! Values are unpacked in groups of 8 (8 values of width `w` fill exactly `w` bytes) by a kernel
//! monomorphized per bit width: the bit offsets are constants, so there is no per-value
//! branching. The width dispatch happens once per call, not per group.

use super::error;
use crate::Result;

/// An integer type the unpacking kernels can write: the low `BITS` bits of each value.
pub trait Unpacked: Copy + Default + Send + Sync + 'static {
    /// The widest bit width this type holds.
    const BITS: u32;
    /// Truncates `v` to this type.
    fn from_u64(v: u64) -> Self;
}

macro_rules! unpacked {
    ($($t:ty => $bits:expr),*) => {$(
        impl Unpacked for $t {
            const BITS: u32 = $bits;
            #[inline(always)]
            fn from_u64(v: u64) -> Self {
                v as $t
            }
        }
    )*};
}
unpacked!(u8 => 8, u16 => 16, u32 => 32, u64 => 64, i32 => 32, i64 => 64);

/// Unpacks one group of 8 values of `W` bits from `src` (at least `W` bytes) into `out[..8]`.
#[inline(always)]
fn unpack8<T: Unpacked, const W: usize>(src: &[u8], out: &mut [T]) {
    let out = &mut out[..8];
    // The group is exactly W bytes; pad it so that every 8- or 16-byte window read is in
    // bounds. With W constant, the copy and every offset below are constants.
    let mut buf = [0u8; 80];
    buf[..W].copy_from_slice(&src[..W]);
    let mask: u64 = if W >= 64 { u64::MAX } else { (1u64 << W) - 1 };
    for (i, o) in out.iter_mut().enumerate() {
        let bit = i * W;
        let byte = bit / 8;
        let shift = bit % 8;
        let v = if W <= 56 {
            let mut w = [0u8; 8];
            w.copy_from_slice(&buf[byte..byte + 8]);
            (u64::from_le_bytes(w) >> shift) & mask
        } else {
            let mut w = [0u8; 16];
            w.copy_from_slice(&buf[byte..byte + 16]);
            ((u128::from_le_bytes(w) >> shift) as u64) & mask
        };
        *o = T::from_u64(v);
    }
}

/// Unpacks `out.len()` values (a multiple of 8) from `src` (at least `out.len() / 8 * W`
/// bytes).
#[inline(never)]
fn unpack_groups<T: Unpacked, const W: usize>(src: &[u8], out: &mut [T]) {
    if W == 0 {
        out.fill(T::default());
        return;
    }
    for (chunk, group) in out.chunks_exact_mut(8).zip(src.chunks(W.max(1))) {
        unpack8::<T, W>(group, chunk);
    }
}

macro_rules! dispatch {
    ($w:expr, $src:expr, $out:expr; $($n:literal)*) => {
        match $w {
            $($n => unpack_groups::<T, $n>($src, $out),)*
            _ => {}
        }
    };
}

/// Unpacks whole groups: `out.len()` must be a multiple of 8, `bit_width <= T::BITS` and
/// `src.len() >= out.len() / 8 * bit_width` (callers check these).
#[inline]
pub(crate) fn unpack_unchecked<T: Unpacked>(src: &[u8], bit_width: u32, out: &mut [T]) {
    debug_assert!(out.len().is_multiple_of(8) && bit_width <= T::BITS);
    debug_assert!(src.len() >= out.len() / 8 * bit_width as usize || bit_width == 0);
    dispatch!(bit_width, src, out;
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
        33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61
        62 63 64);
}

/// Unpacks `out.len()` values of `bit_width` bits, packed LSB first, from the start of `src`
/// and returns the bytes consumed (`ceil(out.len() * bit_width / 8)`).
///
/// A trailing partial group needs only the bytes its values occupy.
pub fn unpack<T: Unpacked>(src: &[u8], bit_width: u32, out: &mut [T]) -> Result<usize> {
    if bit_width > T::BITS {
        return Err(error(
            "bit-packing",
            format!("bit width {bit_width} > {}", T::BITS),
        ));
    }
    let w = bit_width as usize;
    let needed = (out.len() * w).div_ceil(8);
    if src.len() < needed {
        return Err(error(
            "bit-packing",
            format!(
                "{} values of {w} bits need {needed} bytes, {} remain",
                out.len(),
                src.len()
            ),
        ));
    }
    let whole = out.len() / 8 * 8;
    let (head, tail) = out.split_at_mut(whole);
    unpack_unchecked(src, bit_width, head);
    if !tail.is_empty() {
        let mut pad = [0u8; 64];
        let rest = &src[whole / 8 * w..needed];
        pad[..rest.len()].copy_from_slice(rest);
        let mut group = [T::default(); 8];
        unpack_unchecked(&pad, bit_width, &mut group);
        tail.copy_from_slice(&group[..tail.len()]);
    }
    Ok(needed)
}
