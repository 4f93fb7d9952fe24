//! BYTE_STREAM_SPLIT (= 9): for values of K bytes, K streams of N bytes each; stream k holds
//! byte k of every value. Used for FLOAT, DOUBLE, INT32, INT64 and FIXED_LEN_BYTE_ARRAY of any
//! width (FLOAT16 is 2). There is no header: the page's value bytes are exactly K * N.
//!
//! The transposition kernel is monomorphized per width for the common widths (2, 4, 8, 12,
//! 16) and writes straight into the output.

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
        let len = out.len();
        out.resize(len + n * self.width, 0);
        let out = &mut out[len..];
        let (d, c) = (self.data, self.count);
        match self.width {
            2 => transpose::<2>(d, c, start, out),
            4 => transpose::<4>(d, c, start, out),
            8 => transpose::<8>(d, c, start, out),
            12 => transpose::<12>(d, c, start, out),
            16 => transpose::<16>(d, c, start, out),
            w => {
                for k in 0..w {
                    let stream = &d[k * c + start..k * c + start + n];
                    for (o, &b) in out[k..].iter_mut().step_by(w).zip(stream) {
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
        out.reserve(n);
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

/// Values per block of the transposition kernels: each block gathers `BLOCK` bytes from
/// each of the K streams (fixed-size arrays, so the loop has no bounds checks and LLVM
/// vectorises the interleaving).
const BLOCK: usize = 64;

/// Interleaves one block: value `j` of `dst` gets byte `k` from `streams[k][j]`. Widths 2
/// and 4 are assembled with shifts and ors of zero-extended bytes, which vectorise even on
/// baseline SSE2 (measured: 2.3x the byte-by-byte loop for 4; for 8 the 64-bit lanes were
/// slower than it), the others byte by byte.
#[inline(always)]
fn interleave_block<const K: usize>(streams: &[&[u8; BLOCK]; K], dst: &mut [[u8; K]; BLOCK]) {
    macro_rules! words {
        ($w:ty) => {{
            let mut words = [0 as $w; BLOCK];
            for (k, s) in streams.iter().enumerate() {
                for (w, &b) in words.iter_mut().zip(s.iter()) {
                    *w |= <$w>::from(b) << (8 * k);
                }
            }
            for (d, w) in dst.iter_mut().zip(words) {
                d.copy_from_slice(&w.to_le_bytes());
            }
        }};
    }
    match K {
        2 => words!(u16),
        4 => words!(u32),
        _ => {
            for (j, value) in dst.iter_mut().enumerate() {
                for (k, b) in value.iter_mut().enumerate() {
                    *b = streams[k][j];
                }
            }
        }
    }
}

/// The streams of values `start..start + n` of the `count`-value page `data`.
#[inline(always)]
fn streams<const K: usize>(data: &[u8], count: usize, start: usize, n: usize) -> [&[u8]; K] {
    std::array::from_fn(|k| &data[k * count + start..][..n])
}

/// Block `b` (values `b * BLOCK..(b + 1) * BLOCK`) of `streams`.
#[inline(always)]
fn block<'a, const K: usize>(streams: &[&'a [u8]; K], b: usize) -> [&'a [u8; BLOCK]; K] {
    std::array::from_fn(|k| {
        streams[k][b * BLOCK..][..BLOCK]
            .try_into()
            .expect("a block of BLOCK bytes")
    })
}

/// Writes values `start..start + out.len() / K` of the `count`-value page `data` into `out`.
#[inline(never)]
fn transpose<const K: usize>(data: &[u8], count: usize, start: usize, out: &mut [u8]) {
    let n = out.len() / K;
    let streams = streams::<K>(data, count, start, n);
    let (values, _) = out.as_chunks_mut::<K>();
    let (blocks, tail) = values.as_chunks_mut::<BLOCK>();
    for (b, dst) in blocks.iter_mut().enumerate() {
        interleave_block(&block(&streams, b), dst);
    }
    let done = blocks.len() * BLOCK;
    for (i, value) in tail.iter_mut().enumerate() {
        for (k, byte) in value.iter_mut().enumerate() {
            *byte = streams[k][done + i];
        }
    }
}

#[inline(never)]
fn typed<T: FixedWidth, const K: usize>(
    data: &[u8],
    count: usize,
    start: usize,
    n: usize,
    out: &mut Vec<T>,
) {
    let streams = streams::<K>(data, count, start, n);
    let mut buf = [[0u8; K]; BLOCK];
    for b in 0..n / BLOCK {
        interleave_block(&block(&streams, b), &mut buf);
        out.extend(buf.iter().map(|v| T::from_le_slice(v)));
    }
    let done = n / BLOCK * BLOCK;
    out.extend((done..n).map(|i| {
        let bytes: [u8; K] = std::array::from_fn(|k| streams[k][i]);
        T::from_le_slice(&bytes)
    }));
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
