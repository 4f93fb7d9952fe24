//! BYTE_STREAM_SPLIT encoder (the inverse of [`crate::encoding::byte_stream_split`]): values
//! of K bytes become K streams of N bytes, stream k holding byte k of every value.
//!
//! The transposition works on blocks of 128 values (which stay in L1): for each stream
//! it gathers byte k of the block's values into a contiguous run of the stream. The kernel is
//! monomorphized for widths 2, 4, 8, 12 and 16, where the gather has a constant stride that
//! LLVM vectorizes into shuffles; other FIXED_LEN_BYTE_ARRAY widths take the same loop with a
//! runtime stride.
//!
//! The streams are page-long, so [`ByteStreamSplitEncoder`] keeps a page's PLAIN bytes until
//! [`flush`](ByteStreamSplitEncoder::flush); [`encode_bytes`] and [`encode`] write a whole
//! page at once.

use super::plain::{extend_le, PlainValue};
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
        4 => split_fixed::<4>(src, dst),
        8 => split_fixed::<8>(src, dst),
        12 => split_fixed::<12>(src, dst),
        16 => split_fixed::<16>(src, dst),
        w => split_any(src, w, dst),
    }
    Ok(())
}

/// Appends the BYTE_STREAM_SPLIT encoding of `values`.
pub fn encode<T: PlainValue>(values: &[T], out: &mut Vec<u8>) {
    #[cfg(target_endian = "little")]
    {
        // SAFETY: as in `plain::extend_le`: the sealed `PlainValue` types have no padding
        // and their memory is their little-endian bytes.
        let bytes = unsafe {
            std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
        };
        // A whole number of values of a positive width: cannot fail.
        let _ = encode_bytes(bytes, T::WIDTH, out);
    }
    #[cfg(not(target_endian = "little"))]
    {
        let mut bytes = Vec::new();
        extend_le(values, &mut bytes);
        let _ = encode_bytes(&bytes, T::WIDTH, out);
    }
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
