//! BYTE_STREAM_SPLIT encoder (the inverse of [`crate::encoding::byte_stream_split`]): values
//! of K bytes become K streams of N bytes, stream k holding byte k of every value.
//!
//! Widths 4 and 8 (FLOAT, INT32, DOUBLE, INT64) transpose 8 values at a time in registers:
//! an 8x8 byte matrix in eight words (width 4: two 4x4 matrices in the words' halves), swapped
//! by shifts and masks, each stream then receiving one 8-byte store per block. Other widths
//! work on blocks of 128 values (which stay in L1): for each stream the kernel gathers byte k
//! of the block's values into a contiguous run of the stream, monomorphized for widths 2, 12
//! and 16 (a constant stride) and with a runtime stride for other FIXED_LEN_BYTE_ARRAY widths.
//!
//! The streams are page-long, so [`ByteStreamSplitEncoder`] keeps a page's PLAIN bytes until
//! [`flush`](ByteStreamSplitEncoder::flush); [`encode_bytes`] and [`encode`] write a whole
//! page at once.

use super::plain::{extend_le, le_bytes, PlainValue};
use crate::encoding::error;
use crate::Result;

const NAME: &str = "BYTE_STREAM_SPLIT";

/// Values transposed per block.
const BLOCK: usize = 128;

#[inline(always)]
fn split_block<const K: usize>(src: &[[u8; K]], n: usize, base: usize, out: &mut [u8]) {
    for k in 0..K {
        let stream = &mut out[k * n + base..k * n + base + src.len()];
        for (o, v) in stream.iter_mut().zip(src) {
            *o = v[k];
        }
    }
}

fn split_fixed<const K: usize>(src: &[u8], out: &mut [u8]) {
    let (values, _) = src.as_chunks::<K>();
    let n = values.len();
    for (b, block) in values.chunks(BLOCK).enumerate() {
        split_block::<K>(block, n, b * BLOCK, out);
    }
}

/// Swaps the `bits`-wide fields of `a` selected by `mask` shifted up by `bits` with the
/// fields of `b` selected by `mask`: one step of a transposition of a byte matrix held in
/// words (row j in word j, byte k of a row in bits 8k..8k+8).
#[inline(always)]
fn swap_fields(a: &mut u64, b: &mut u64, bits: u32, mask: u64) {
    let t = ((*a >> bits) ^ *b) & mask;
    *a ^= t << bits;
    *b ^= t;
}

/// The masks of the transposition steps: the low 32, 16 and 8 bits of each 64-, 32- and
/// 16-bit field.
const M32: u64 = 0x0000_0000_ffff_ffff;
const M16: u64 = 0x0000_ffff_0000_ffff;
const M8: u64 = 0x00ff_00ff_00ff_00ff;

/// Transposes the 8x8 byte matrix in `w`: afterwards byte j of word k is what was byte k of
/// word j. Swaps the off-diagonal 4x4 blocks, then the 2x2 blocks within them, then bytes.
#[inline(always)]
fn transpose_8x8(w: &mut [u64; 8]) {
    let [w0, w1, w2, w3, w4, w5, w6, w7] = w;
    swap_fields(w0, w4, 32, M32);
    swap_fields(w1, w5, 32, M32);
    swap_fields(w2, w6, 32, M32);
    swap_fields(w3, w7, 32, M32);
    swap_fields(w0, w2, 16, M16);
    swap_fields(w1, w3, 16, M16);
    swap_fields(w4, w6, 16, M16);
    swap_fields(w5, w7, 16, M16);
    swap_fields(w0, w1, 8, M8);
    swap_fields(w2, w3, 8, M8);
    swap_fields(w4, w5, 8, M8);
    swap_fields(w6, w7, 8, M8);
}

/// The `K` streams of `out` (each `out.len() / K` bytes).
fn streams<const K: usize>(out: &mut [u8]) -> [&mut [u8]; K] {
    let n = out.len() / K;
    let mut streams: [&mut [u8]; K] = std::array::from_fn(|_| <&mut [u8]>::default());
    let mut rest = out;
    for s in streams.iter_mut() {
        let (head, tail) = rest.split_at_mut(n);
        *s = head;
        rest = tail;
    }
    streams
}

/// Widths 8 and 4 in registers: 8 values at a time through an 8x8 byte transposition
/// (width 4: two 4x4 matrices side by side in the words' halves, values j and j + 4 in word
/// j), each stream receiving 8 bytes per block; values after the last whole block one by one.
fn split_words<const K: usize>(src: &[u8], out: &mut [u8]) {
    debug_assert!(K == 4 || K == 8);
    let (values, _) = src.as_chunks::<K>();
    let mut streams = streams::<K>(out);
    let (blocks, tail) = values.as_chunks::<8>();
    for (b, block) in blocks.iter().enumerate() {
        let mut w = [0u64; 8];
        if K == 8 {
            for (w, v) in w.iter_mut().zip(block) {
                let mut bytes = [0u8; 8];
                bytes.copy_from_slice(&v[..8]);
                *w = u64::from_le_bytes(bytes);
            }
            transpose_8x8(&mut w);
        } else {
            let word = |v: &[u8; K]| {
                let mut bytes = [0u8; 4];
                bytes.copy_from_slice(&v[..4]);
                u64::from(u32::from_le_bytes(bytes))
            };
            for j in 0..4 {
                w[j] = word(&block[j]) | word(&block[j + 4]) << 32;
            }
            let [w0, w1, w2, w3, ..] = &mut w;
            swap_fields(w0, w2, 16, M16);
            swap_fields(w1, w3, 16, M16);
            swap_fields(w0, w1, 8, M8);
            swap_fields(w2, w3, 8, M8);
        }
        for (stream, w) in streams.iter_mut().zip(w) {
            stream[b * 8..b * 8 + 8].copy_from_slice(&w.to_le_bytes());
        }
    }
    let base = blocks.len() * 8;
    for (i, v) in tail.iter().enumerate() {
        for (stream, byte) in streams.iter_mut().zip(v) {
            stream[base + i] = *byte;
        }
    }
}

fn split_any(src: &[u8], width: usize, out: &mut [u8]) {
    let n = src.len() / width;
    for (b, block) in src.chunks(BLOCK * width).enumerate() {
        let base = b * BLOCK;
        let m = block.len() / width;
        for k in 0..width {
            let stream = &mut out[k * n + base..k * n + base + m];
            for (o, v) in stream.iter_mut().zip(block.chunks_exact(width)) {
                *o = v[k];
            }
        }
    }
}

/// Appends the BYTE_STREAM_SPLIT encoding of `src`, PLAIN-layout values of `width` bytes
/// (`src.len()` a multiple of `width`, which is positive).
pub fn encode_bytes(src: &[u8], width: usize, out: &mut Vec<u8>) -> Result<()> {
    if width == 0 || !src.len().is_multiple_of(width) {
        return Err(error(
            NAME,
            format!("{} bytes are not whole values of {width} bytes", src.len()),
        ));
    }
    let start = out.len();
    out.resize(start + src.len(), 0);
    let dst = &mut out[start..];
    match width {
        1 => dst.copy_from_slice(src),
        2 => split_fixed::<2>(src, dst),
        4 => split_words::<4>(src, dst),
        8 => split_words::<8>(src, dst),
        12 => split_fixed::<12>(src, dst),
        16 => split_fixed::<16>(src, dst),
        w => split_any(src, w, dst),
    }
    Ok(())
}

/// Appends the BYTE_STREAM_SPLIT encoding of `values`.
pub fn encode<T: PlainValue>(values: &[T], out: &mut Vec<u8>) {
    // A whole number of values of a positive width: cannot fail.
    let _ = encode_bytes(&le_bytes(values), T::WIDTH, out);
}

/// A streaming BYTE_STREAM_SPLIT encoder: [`put`](Self::put) values (kept as PLAIN bytes in
/// a reusable buffer), then [`flush`](Self::flush) the page.
#[derive(Debug, Clone)]
pub struct ByteStreamSplitEncoder {
    width: usize,
    buf: Vec<u8>,
}

impl ByteStreamSplitEncoder {
    /// An encoder of values of `width` bytes (positive).
    pub fn new(width: usize) -> Result<Self> {
        if width == 0 {
            return Err(error(NAME, "value width 0".to_string()));
        }
        Ok(ByteStreamSplitEncoder {
            width,
            buf: Vec::new(),
        })
    }

    /// Values put since the last flush.
    pub fn len(&self) -> usize {
        self.buf.len() / self.width
    }

    /// True if no value was put since the last flush.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Appends fixed-width values (their width must be the encoder's).
    pub fn put<T: PlainValue>(&mut self, values: &[T]) -> Result<()> {
        if T::WIDTH != self.width {
            return Err(error(
                NAME,
                format!("{}-byte values for a {}-byte encoder", T::WIDTH, self.width),
            ));
        }
        extend_le(values, &mut self.buf);
        Ok(())
    }

    /// Appends the values of the slots set in `validity` (one bit per element of `values`);
    /// returns how many.
    pub fn put_valid<T: PlainValue>(
        &mut self,
        values: &[T],
        validity: super::Bitmap<'_>,
    ) -> Result<usize> {
        if T::WIDTH != self.width {
            return Err(error(
                NAME,
                format!("{}-byte values for a {}-byte encoder", T::WIDTH, self.width),
            ));
        }
        super::plain::put_fixed_valid(values, validity, &mut self.buf)
    }

    /// Appends PLAIN-layout values (FIXED_LEN_BYTE_ARRAY; a whole number of values).
    pub fn put_bytes(&mut self, values: &[u8]) -> Result<()> {
        if !values.len().is_multiple_of(self.width) {
            return Err(error(
                NAME,
                format!(
                    "{} bytes are not whole values of {} bytes",
                    values.len(),
                    self.width
                ),
            ));
        }
        self.buf.extend_from_slice(values);
        Ok(())
    }

    /// Appends the page's streams to `out` and starts over.
    pub fn flush(&mut self, out: &mut Vec<u8>) {
        // The buffer holds whole values of a positive width: cannot fail.
        let _ = encode_bytes(&self.buf, self.width, out);
        self.buf.clear();
    }
}
