//! LZ4: the deprecated Parquet codec, written in three ways over the years. Tried in order:
//!
//! 1. Hadoop framing (parquet-mr, parquet-cpp since 2021): blocks of a big-endian `u32`
//!    decompressed size and `u32` compressed size, then that many bytes of LZ4 block. The
//!    framing fits only if the blocks cover the whole input, their sizes add up to the page
//!    size and every block decodes to exactly its declared size. Framing that covers the
//!    input but adds up to another size is reported as a size mismatch when no fallback
//!    fits either.
//! 2. An LZ4 frame (older parquet-rs), recognised by the frame magic number.
//! 3. One plain LZ4 block (older parquet-cpp), as parquet-cpp falls back.

use super::{corrupt, init_len, lz4_raw, mismatch};
use crate::format::metadata::Compression;
use crate::Result;
use std::io::Read;

/// The magic number that starts an LZ4 frame, little-endian.
const FRAME_MAGIC: [u8; 4] = [0x04, 0x22, 0x4D, 0x18];

/// Decompresses LZ4 `input` (Hadoop-framed, frame or block) into `out` (exactly `n` bytes).
pub(super) fn decompress(input: &[u8], n: usize, out: &mut Vec<u8>) -> Result<()> {
    init_len(out, n);
    let framed_total = hadoop_total(input);
    if framed_total == Some(n) && hadoop(input, out) {
        return Ok(());
    }
    if input.starts_with(&FRAME_MAGIC) {
        return frame(input, n, out);
    }
    match lz4_raw::decompress(Compression::Lz4, input, n, out) {
        Ok(()) => Ok(()),
        // Hadoop framing that fits the input but declares another total: a size mismatch.
        Err(_) if framed_total.is_some_and(|total| total != n) => {
            Err(mismatch(n, framed_total.unwrap_or(0), false))
        }
        Err(e) => Err(e),
    }
}

/// The blocks of Hadoop framing: `(decompressed size, compressed block)`, or `None`
/// once they stop fitting the input.
fn blocks(mut input: &[u8]) -> impl Iterator<Item = Option<(usize, &[u8])>> {
    std::iter::from_fn(move || {
        if input.is_empty() {
            return None;
        }
        let Some((sizes, rest)) = input.split_first_chunk::<8>() else {
            input = &[];
            return Some(None);
        };
        let decompressed = u32::from_be_bytes([sizes[0], sizes[1], sizes[2], sizes[3]]);
        let compressed = u32::from_be_bytes([sizes[4], sizes[5], sizes[6], sizes[7]]) as usize;
        let Some(block) = rest.get(..compressed) else {
            input = &[];
            return Some(None);
        };
        input = &rest[compressed..];
        Some(Some((decompressed as usize, block)))
    })
}

/// The total decompressed size declared by Hadoop framing if its block headers cover
/// `input` exactly, else `None`.
fn hadoop_total(input: &[u8]) -> Option<usize> {
    if input.len() < 8 {
        return None;
    }
    blocks(input).try_fold(0usize, |total, b| total.checked_add(b?.0))
}

/// Decodes Hadoop-framed blocks into `out`, whose length is their declared total; false if
/// a block does not decode to exactly its declared size.
fn hadoop(input: &[u8], out: &mut [u8]) -> bool {
    let mut pos: usize = 0;
    for b in blocks(input) {
        let Some((decompressed, block)) = b else {
            return false;
        };
        let Some(dst) = out.get_mut(pos..pos.saturating_add(decompressed)) else {
            return false;
        };
        match lz4_flex::block::decompress_into(block, dst) {
            Ok(w) if w == decompressed => pos += decompressed,
            _ => return false,
        }
    }
    pos == out.len()
}

/// Decodes an LZ4 frame into `out` (already `n` bytes long) and checks that it ends there.
fn frame(input: &[u8], n: usize, out: &mut [u8]) -> Result<()> {
    let err = |e: std::io::Error| corrupt(Compression::Lz4, e.to_string());
    let mut decoder = lz4_flex::frame::FrameDecoder::new(input);
    let mut filled = 0;
    while filled < n {
        match decoder.read(&mut out[filled..]).map_err(err)? {
            0 => return Err(mismatch(n, filled, false)),
            k => filled += k,
        }
    }
    let mut extra = [0u8; 1];
    if decoder.read(&mut extra).map_err(err)? != 0 {
        return Err(mismatch(n, n.saturating_add(1), true));
    }
    Ok(())
}
