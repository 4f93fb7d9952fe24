//! LZ4_RAW: one plain LZ4 block (no framing, no size prefix), with `lz4_flex`'s safe
//! decoder. Also the last fallback of the deprecated LZ4 codec.

use super::{corrupt, init_len, mismatch};
use crate::format::metadata::Compression;
use crate::Result;
use lz4_flex::block::DecompressError;

/// Decompresses the LZ4 block `input` into `out` (exactly `n` bytes); errors name `codec`.
pub(super) fn decompress(
    codec: Compression,
    input: &[u8],
    n: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    init_len(out, n);
    match lz4_flex::block::decompress_into(input, out) {
        Ok(written) if written == n => Ok(()),
        Ok(written) => Err(mismatch(n, written, false)),
        Err(DecompressError::OutputTooSmall { expected, .. }) => {
            Err(mismatch(n, expected.max(n.saturating_add(1)), true))
        }
        Err(e) => Err(corrupt(codec, e.to_string())),
    }
}
