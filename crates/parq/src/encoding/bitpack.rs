//! LSB-first bit unpacking, the packing of the RLE / bit-packing hybrid (`Encodings.md`, RLE
//! note 1) and of DELTA_BINARY_PACKED miniblocks.
//!
//! Values are unpacked in groups of 8 (8 values of width `w` fill exactly `w` bytes) by a kernel
//! monomorphized per bit width: the bit offsets are constants, so there is no per-value
//! branching, and each value is one unaligned 8-byte load (16 bytes above 56 bits), a shift and
//! a mask. The width dispatch happens once per call, not per group.
//!
//! A group's loads reach up to `read_len` bytes past its start, a little more than its `w`
//! bytes. Groups with that many bytes left in the source are read in place; only the last one
//! or two of a slice are first copied into a zero-padded stack buffer. Callers that can pass
//! the rest of their data (not just the packed bytes) get every group but the page's last ones
//! read in place.
//!
//! `unpack_with` hands every unpacked group to a closure while it is still in registers, so
//! DELTA_BINARY_PACKED fuses its prefix sum and the dictionary gather could fuse a lookup.
//!
//! `pack` is the inverse, for the encoders (`super::encode`): a group of 8 values is OR-ed
//! into at most 8 64-bit words at constant offsets (the kernel is monomorphized per width
//! too), whose first `w` bytes are the group's packed bytes.

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

/// The bytes the loads of one group of 8 values of `w` bits span from the group's start: the
/// last value's byte offset plus its load window (8 bytes, 16 above 56 bits).
#[inline(always)]
const fn read_len(w: usize) -> usize {
    let window = if w <= 56 { 8 } else { 16 };
    7 * w / 8 + window
}

/// The largest [`read_len`] (width 64): the size of the padding buffer.
const MAX_READ: usize = 7 * 64 / 8 + 16;

/// `N` bytes of `g` from `at`; zeros past its end (unreachable for the constant offsets the
/// kernels use, where this compiles to one unaligned load).
#[inline(always)]
fn load<const N: usize>(g: &[u8], at: usize) -> [u8; N] {
    match g.get(at..).and_then(|s| s.first_chunk::<N>()) {
        Some(b) => *b,
        None => [0; N],
    }
}

/// Unpacks one group of 8 values of `W` bits from `g` (exactly `read_len(W)` bytes, the
/// group's `W` bytes first).
#[inline(always)]
fn unpack8<T: Unpacked, const W: usize>(g: &[u8]) -> [T; 8] {
    let mask: u64 = if W >= 64 { u64::MAX } else { (1u64 << W) - 1 };
    // With `W` constant every offset is a constant below `g.len()` (also a constant), so
    // the loads have no bounds checks.
    std::array::from_fn(|i| {
        let bit = i * W;
        let (byte, shift) = (bit / 8, bit % 8);
        let v = if W <= 56 {
            (u64::from_le_bytes(load(g, byte)) >> shift) & mask
        } else {
            ((u128::from_le_bytes(load(g, byte)) >> shift) as u64) & mask
        };
        T::from_u64(v)
    })
}

/// Unpacks `out.len()` values (a multiple of 8) from `src` (at least `out.len() / 8 * W`
/// bytes; more lets more groups be read in place), calling `f` on each group.
#[inline(always)]
fn unpack_groups<T: Unpacked, F: FnMut(&mut [T; 8]), const W: usize>(
    src: &[u8],
    out: &mut [T],
    mut f: F,
) {
    let (groups, _) = out.as_chunks_mut::<8>();
    if W == 0 {
        for g in groups {
            let mut v = [T::default(); 8];
            f(&mut v);
            *g = v;
        }
        return;
    }
    let need = read_len(W);
    // Groups `0..in_place` have `need` bytes from their start within `src`.
    let in_place = match src.len().checked_sub(need) {
        Some(slack) => (slack / W + 1).min(groups.len()),
        None => 0,
    };
    let (head, tail) = groups.split_at_mut(in_place);
    for (i, g) in head.iter_mut().enumerate() {
        let start = i * W;
        let mut v = unpack8::<T, W>(&src[start..start + need]);
        f(&mut v);
        *g = v;
    }
    for (i, g) in tail.iter_mut().enumerate() {
        let start = (in_place + i) * W;
        let mut pad = [0u8; MAX_READ];
        let rest = src.get(start..).unwrap_or_default();
        let bytes = &rest[..rest.len().min(W)];
        pad[..bytes.len()].copy_from_slice(bytes);
        let mut v = unpack8::<T, W>(&pad[..need]);
        f(&mut v);
        *g = v;
    }
}

macro_rules! dispatch {
    ($w:expr, $src:expr, $out:expr, $f:expr; $($n:literal)*) => {
        match $w {
            $($n => unpack_groups::<T, F, $n>($src, $out, $f),)*
            _ => {}
        }
    };
}

/// Unpacks whole groups and calls `f` on each (in order) right after unpacking it:
/// `out.len()` must be a multiple of 8, `bit_width <= T::BITS` and
/// `src.len() >= out.len() / 8 * bit_width` (callers check these; a shorter `src` reads as
/// zero bits, a width above `T::BITS` leaves `out` untouched).
#[inline]
pub(crate) fn unpack_with<T: Unpacked, F: FnMut(&mut [T; 8])>(
    src: &[u8],
    bit_width: u32,
    out: &mut [T],
    f: F,
) {
    debug_assert!(out.len().is_multiple_of(8) && bit_width <= T::BITS);
    dispatch!(bit_width, src, out, f;
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
        33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61
        62 63 64);
}

/// Unpacks whole groups: `out.len()` must be a multiple of 8, `bit_width <= T::BITS` and
/// `src.len() >= out.len() / 8 * bit_width` (callers check these).
#[inline]
pub(crate) fn unpack_unchecked<T: Unpacked>(src: &[u8], bit_width: u32, out: &mut [T]) {
    unpack_with(src, bit_width, out, |_| {});
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
    // The source beyond `needed` belongs to the caller, but reading it only supplies bits of
    // values past `out`, which are dropped: pass it all so more groups are read in place.
    unpack_unchecked(src, bit_width, head);
    if !tail.is_empty() {
        let mut group = [T::default(); 8];
        unpack_unchecked(&src[whole / 8 * w..needed], bit_width, &mut group);
        tail.copy_from_slice(&group[..tail.len()]);
    }
    Ok(needed)
}

/// Packs one group of 8 values of `W` bits (bits above `W` are masked off) into `dst`
/// (exactly `W` bytes).
#[inline(always)]
fn pack8<T: Copy + Into<u64>, const W: usize>(g: &[T; 8], dst: &mut [u8]) {
    let mask: u64 = if W >= 64 { u64::MAX } else { (1u64 << W) - 1 };
    let mut words = [0u64; 8];
    for (i, &v) in g.iter().enumerate() {
        let v = v.into() & mask;
        let bit = i * W;
        let (w, s) = (bit / 64, bit % 64);
        words[w] |= v << s;
        if s + W > 64 {
            // `s > 0` here (W <= 64), and the group's 8 * W bits end in word 7 at the latest.
            words[w + 1] |= v >> (64 - s);
        }
    }
    let mut bytes = [0u8; 64];
    for (b, w) in bytes.chunks_exact_mut(8).zip(words) {
        b.copy_from_slice(&w.to_le_bytes());
    }
    dst.copy_from_slice(&bytes[..W]);
}

fn pack_groups<T: Copy + Into<u64>, const W: usize>(values: &[T], out: &mut Vec<u8>) {
    let (groups, _) = values.as_chunks::<8>();
    if W == 0 || groups.is_empty() {
        return;
    }
    let start = out.len();
    out.resize(start + groups.len() * W, 0);
    for (dst, g) in out[start..].chunks_exact_mut(W).zip(groups) {
        pack8::<T, W>(g, dst);
    }
}

macro_rules! dispatch_pack {
    ($w:expr, $values:expr, $out:expr; $($n:literal)*) => {
        match $w {
            $($n => pack_groups::<T, $n>($values, $out),)*
            _ => {}
        }
    };
}

/// Appends `values` (whole groups of 8: a trailing partial group is ignored) bit-packed LSB
/// first with `bit_width` bits each (at most 64; bits of a value above `bit_width` are
/// dropped): `values.len() / 8 * bit_width` bytes. The caller checks the width and pads a
/// partial group.
#[inline]
pub(crate) fn pack<T: Copy + Into<u64>>(values: &[T], bit_width: u32, out: &mut Vec<u8>) {
    debug_assert!(bit_width <= 64 && values.len().is_multiple_of(8));
    dispatch_pack!(bit_width, values, out;
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
        33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61
        62 63 64);
}
