//! BROTLI: a brotli stream (RFC 7932) decoded by `brotli-decompressor` into the declared size.
//! Large-window streams (a non-standard extension) are refused, which bounds the decoder's
//! ring buffer to 16 MiB. The decoder state is built per page. Bytes after the end of the
//! stream are ignored, as parquet-cpp does.

use super::{corrupt, init_len, mismatch};
use crate::format::metadata::Compression;
use crate::Result;
use brotli_decompressor::{BrotliDecompressStream, BrotliResult, BrotliState, StandardAlloc};

/// Decompresses the brotli stream `input` into `out` (exactly `n` bytes).
pub(super) fn decompress(input: &[u8], n: usize, out: &mut Vec<u8>) -> Result<()> {
    init_len(out, n);
    let mut state = BrotliState::new_strict(
        StandardAlloc::default(),
        StandardAlloc::default(),
        StandardAlloc::default(),
    );
    let (mut avail_in, mut in_pos) = (input.len(), 0);
    let (mut avail_out, mut out_pos, mut total) = (n, 0, 0);
    let result = BrotliDecompressStream(
        &mut avail_in,
        &mut in_pos,
        input,
        &mut avail_out,
        &mut out_pos,
        out,
        &mut total,
        &mut state,
    );
    match result {
        BrotliResult::ResultSuccess if out_pos == n => Ok(()),
        BrotliResult::ResultSuccess => Err(mismatch(n, out_pos, false)),
        BrotliResult::NeedsMoreOutput => Err(mismatch(n, n.saturating_add(1), true)),
        BrotliResult::NeedsMoreInput => {
            Err(corrupt(Compression::Brotli, "truncated brotli stream"))
        }
        BrotliResult::ResultFailure => Err(corrupt(
            Compression::Brotli,
            format!("invalid brotli stream ({:?})", state.error_code),
        )),
    }
}
