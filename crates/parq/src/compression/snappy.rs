//! SNAPPY: the raw Snappy format (no framing), as Parquet stores it, with the `snap` crate.
//! The stream's own length prefix is checked against the declared size before decoding.

use super::{corrupt, init_len, mismatch};
use crate::format::metadata::Compression;
use crate::Result;

/// Decompresses raw Snappy `input` into `out` (exactly `n` bytes).
pub(super) fn decompress(input: &[u8], n: usize, out: &mut Vec<u8>) -> Result<()> {
    let len = snap::raw::decompress_len(input)
        .map_err(|e| corrupt(Compression::Snappy, e.to_string()))?;
    if len != n {
        return Err(mismatch(n, len, false));
    }
    init_len(out, n);
    let written = snap::raw::Decoder::new()
        .decompress(input, out)
        .map_err(|e| corrupt(Compression::Snappy, e.to_string()))?;
    if written != n {
        return Err(mismatch(n, written, false));
    }
    Ok(())
}
