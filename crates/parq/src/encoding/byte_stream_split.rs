//! BYTE_STREAM_SPLIT (= 9): for values of K bytes, K streams of N bytes each; stream k holds
//! byte k of every value. Used for FLOAT, DOUBLE, INT32, INT64 and FIXED_LEN_BYTE_ARRAY of any
//! width (FLOAT16 is 2). There is no header: the page's value bytes are exactly K * N.
//!
//! The transposition kernel is monomorphized per width for the common widths (2, 4, 8, 12,
//! 16) and writes straight into the output, a block of 64 values at a time. For widths 2, 4
//! and 8 it interleaves stream pairs in ever wider lanes, which LLVM turns into SIMD byte,
//! word and dword unpacks even on baseline x86_64 (SSE2).

use std::mem::MaybeUninit;

use super::error;
use super::plain::FixedWidth;
use crate::Result;

const NAME: &str = "BYTE_STREAM_SPLIT";

/// A streaming decoder of BYTE_STREAM_SPLIT data.
#[derive(Debug, Clone)]
pub struct ByteStreamSplitDecoder<'a> {
    data: &'a [u8],
    width: usize,
    /// N: values in the page (the length of each stream).
    count: usize,
    /// The next value to decode.
    pos: usize,
}

impl<'a> ByteStreamSplitDecoder<'a> {
    /// A decoder of `data` (all of the page's value bytes) holding values of `width` bytes.
    pub fn new(data: &'a [u8], width: usize) -> Result<Self> {
        if width == 0 {
            return Err(error(NAME, "value width 0".to_string()));
        }
        if !data.len().is_multiple_of(width) {
            return Err(error(
                NAME,
                format!(
                    "{} bytes are not a whole number of {width}-byte values",
                    data.len()
                ),
            ));
        }
        Ok(ByteStreamSplitDecoder {
            data,
            width,
            count: data.len() / width,
            pos: 0,
        })
    }

    /// Values left.
    pub fn remaining(&self) -> usize {
        self.count - self.pos
    }

    fn take(&mut self, n: usize) -> Result<usize> {
        if n > self.remaining() {
            return Err(error(
                NAME,
                format!("{n} values requested, {} remain", self.remaining()),
            ));
        }
        let start = self.pos;
        self.pos += n;
        Ok(start)
    }

    /// Appends the next `n` values to `out` as `width` little-endian bytes each (the PLAIN
    /// layout; FIXED_LEN_BYTE_ARRAY values back to back).
    pub fn decode_bytes(&mut self, n: usize, out: &mut Vec<u8>) -> Result<()> {
        let start = self.take(n)?;
        if n == 0 {
            return Ok(());
        }
        let (d, c, w) = (self.data, self.count, self.width);
        // `n * w` is at most the page's byte count, so this cannot overflow or over-allocate.
        let len = out.len();
        out.resize(len + n * w, 0);
        let out = &mut out[len..];
        match w {
            2 => transpose::<_, 2>(streams(d, c, start, n), as_values(out), |v| v),
            4 => transpose::<_, 4>(streams(d, c, start, n), as_values(out), |v| v),
            8 => transpose::<_, 8>(streams(d, c, start, n), as_values(out), |v| v),
            12 => transpose::<_, 12>(streams(d, c, start, n), as_values(out), |v| v),
            16 => transpose::<_, 16>(streams(d, c, start, n), as_values(out), |v| v),
            w => {
                // `out` holds `n * w` bytes: byte `k` of value `i` is at `i * w + k`.
                for (k, stream) in d.chunks_exact(c).take(w).enumerate() {
                    let stream = &stream[start..start + n];
                    for (o, &b) in out.iter_mut().skip(k).step_by(w).zip(stream) {
                        *o = b;
                    }
                }
            }
        }
        Ok(())
    }

    /// Appends the next `n` values to `out` as `T` (`f32`, `f64`, `i32`, `i64`, ...), whose
    /// width must be the decoder's.
    pub fn decode<T: FixedWidth>(&mut self, n: usize, out: &mut Vec<T>) -> Result<()> {
        if T::WIDTH != self.width {
            return Err(error(
                NAME,
                format!(
                    "value width {} does not match the output type's {}",
                    self.width,
                    T::WIDTH
                ),
            ));
        }
        let start = self.take(n)?;
        if n == 0 {
            return Ok(());
        }
        let (d, c) = (self.data, self.count);
        match T::WIDTH {
            2 => typed::<T, 2>(d, c, start, n, out),
            4 => typed::<T, 4>(d, c, start, n, out),
            8 => typed::<T, 8>(d, c, start, n, out),
            12 => typed::<T, 12>(d, c, start, n, out),
            _ => {
                let mut tmp = Vec::new();
                self.pos = start;
                self.decode_bytes(n, &mut tmp)?;
                out.extend(tmp.chunks_exact(T::WIDTH).map(T::from_le_slice));
            }
        }
        Ok(())
    }
}

/// Values per block of the transposition kernels: each block reads `BLOCK` bytes from each
/// of the K streams as fixed-size arrays, so the loops have no bounds checks and LLVM
/// vectorises the interleaving.
const BLOCK: usize = 64;

/// `a[j]` in the low half and `b[j]` in the high half of each lane: one interleaving step
/// (SSE2 `punpckl/h` once vectorised).
macro_rules! zip {
    ($name:ident, $from:ty => $to:ty) => {
        #[inline(always)]
        fn $name(a: &[$from; BLOCK], b: &[$from; BLOCK]) -> [$to; BLOCK] {
            let mut out = [0; BLOCK];
            for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                *o = <$to>::from(x) | <$to>::from(y) << <$from>::BITS;
            }
            out
        }
    };
}
zip!(zip8, u8 => u16);
zip!(zip16, u16 => u32);
zip!(zip32, u32 => u64);

/// The first `K` bytes of `b` (which has exactly `K` where this is used).
#[inline(always)]
fn first<const K: usize>(b: &[u8]) -> [u8; K] {
    std::array::from_fn(|i| b.get(i).copied().unwrap_or(0))
}

/// Interleaves one block: value `j` gets byte `k` from `s[k][j]`, and `put(j, value)`
/// stores it. Widths 2, 4 and 8 interleave stream pairs, then pairs of pairs, in ever wider
/// lanes (log2(K) vectorised steps); the others go byte by byte.
#[inline(always)]
fn interleave_block<const K: usize>(s: &[[u8; BLOCK]; K], mut put: impl FnMut(usize, [u8; K])) {
    macro_rules! emit {
        ($words:expr) => {
            for (j, w) in $words.iter().enumerate() {
                put(j, first(&w.to_le_bytes()));
            }
        };
    }
    match s.as_slice() {
        [a, b] => emit!(zip8(a, b)),
        [a, b, c, d] => emit!(zip16(&zip8(a, b), &zip8(c, d))),
        [a, b, c, d, e, f, g, h] => emit!(zip32(
            &zip16(&zip8(a, b), &zip8(c, d)),
            &zip16(&zip8(e, f), &zip8(g, h))
        )),
        _ => {
            (0..BLOCK).for_each(|j| put(j, std::array::from_fn(|k| s[k][j])));
        }
    }
}

/// The streams of values `start..start + n` of the `count`-value page `data`.
#[inline(always)]
fn streams<const K: usize>(data: &[u8], count: usize, start: usize, n: usize) -> [&[u8]; K] {
    std::array::from_fn(|k| &data[k * count + start..][..n])
}

/// `out` (a multiple of `K` bytes) as `K`-byte values.
#[inline(always)]
fn as_values<const K: usize>(out: &mut [u8]) -> &mut [[u8; K]] {
    out.as_chunks_mut::<K>().0
}

/// Writes `conv` of value `j` of `streams` (each at least `out.len()` bytes) into `out[j]`,
/// for every `j` in `0..out.len()` (the typed decoder relies on that).
#[inline(always)]
fn transpose<V, const K: usize>(streams: [&[u8]; K], out: &mut [V], conv: impl Fn([u8; K]) -> V) {
    let n = out.len();
    let blocks: [&[[u8; BLOCK]]; K] = std::array::from_fn(|k| streams[k][..n].as_chunks().0);
    let (dst, tail) = out.as_chunks_mut::<BLOCK>();
    for (b, dst) in dst.iter_mut().enumerate() {
        let s: [[u8; BLOCK]; K] = std::array::from_fn(|k| blocks[k][b]);
        interleave_block(&s, |j, v| dst[j] = conv(v));
    }
    let done = n / BLOCK * BLOCK;
    for (i, o) in tail.iter_mut().enumerate() {
        *o = conv(std::array::from_fn(|k| streams[k][done + i]));
    }
}

/// Appends values `start..start + n` of the `count`-value page `data` to `out` as `T`,
/// transposing straight into its spare capacity (no zero-filling pass over the output).
#[inline(never)]
fn typed<T: FixedWidth, const K: usize>(
    data: &[u8],
    count: usize,
    start: usize,
    n: usize,
    out: &mut Vec<T>,
) {
    out.reserve(n);
    let len = out.len();
    let s = streams::<K>(data, count, start, n);
    let spare = &mut out.spare_capacity_mut()[..n];
    transpose(s, spare, |v| MaybeUninit::new(T::from_le_slice(&v)));
    // SAFETY: `reserve(n)` made `spare` (the `n` slots after `len`) exist, and `transpose`
    // assigns every element of the slice it is given (the blocks, then the tail), so slots
    // `len..len + n` are initialized.
    unsafe { out.set_len(len + n) };
}

/// Appends all values of `data` (values of `width` bytes) to `out` as PLAIN-layout bytes.
pub fn decode_bytes(data: &[u8], width: usize, out: &mut Vec<u8>) -> Result<()> {
    let mut d = ByteStreamSplitDecoder::new(data, width)?;
    let n = d.remaining();
    d.decode_bytes(n, out)
}

/// Appends all values of `data` to `out` as `T`.
pub fn decode<T: FixedWidth>(data: &[u8], out: &mut Vec<T>) -> Result<()> {
    let mut d = ByteStreamSplitDecoder::new(data, T::WIDTH)?;
    let n = d.remaining();
    d.decode(n, out)
}
