//! ZSTD: one or more zstd frames, decompressed in one shot by a reused `DCtx` straight into
//! the output's spare capacity (no window buffer, no zero-fill). A first frame that records
//! a larger content size than declared is rejected before decoding.

use super::{corrupt, mismatch, reserve_output};
use crate::format::metadata::Compression;
use crate::Result;
use ::zstd::zstd_safe::{self, zstd_sys::ZSTD_ErrorCode, DCtx};

/// A reusable zstd decompression context.
pub(super) struct Zstd {
    dctx: DCtx<'static>,
}

impl Zstd {
    pub(super) fn new() -> Result<Self> {
        let dctx = DCtx::try_create()
            .ok_or_else(|| corrupt(Compression::Zstd, "cannot create a decompression context"))?;
        Ok(Zstd { dctx })
    }

    /// Decompresses the zstd frames of `input` into `out` (exactly `n` bytes).
    pub(super) fn decompress(&mut self, input: &[u8], n: usize, out: &mut Vec<u8>) -> Result<()> {
        if let Ok(Some(size)) = zstd_safe::get_frame_content_size(input) {
            if size > n as u64 {
                return Err(mismatch(
                    n,
                    usize::try_from(size).unwrap_or(usize::MAX),
                    true,
                ));
            }
        }
        reserve_output(out, n);
        match self.dctx.decompress(out, input) {
            Ok(written) if written == n => Ok(()),
            Ok(written) => Err(mismatch(n, written, written > n)),
            Err(code) if is_dst_too_small(code) => {
                Err(mismatch(n, out.capacity().saturating_add(1), true))
            }
            Err(code) => Err(corrupt(Compression::Zstd, zstd_safe::get_error_name(code))),
        }
    }
}

fn is_dst_too_small(code: usize) -> bool {
    code == (ZSTD_ErrorCode::ZSTD_error_dstSize_tooSmall as usize).wrapping_neg()
}
