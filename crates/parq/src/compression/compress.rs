//! Page compression for the write path: [`Compressor`], one reusable compressor per codec
//! and level, appending a page body's compressed bytes to a caller-owned `Vec<u8>`.
//!
//! The output is reserved to the codec's worst-case bound before compressing, so a page never
//! regrows it mid-stream; codec state (snappy and LZ4 hash tables, the deflate state, the
//! zstd context) lives in the compressor and is reused page after page.
//!
//! | codec          | crate                    | levels (default)                              |
//! |----------------|--------------------------|-----------------------------------------------|
//! | `UNCOMPRESSED` | -                        | -                                             |
//! | `SNAPPY`       | snap (raw format)        | -                                             |
//! | `GZIP`         | flate2 on zlib-rs        | 0-9 ([`DEFAULT_GZIP_LEVEL`] 6; pyarrow: 9)    |
//! | `LZ4_RAW`      | lz4_flex block           | -                                             |
//! | `ZSTD`         | zstd (libzstd)           | zstd's range, 0 = libzstd's default 3 ([`DEFAULT_ZSTD_LEVEL`] 1, as pyarrow) |
//! | `BROTLI`       | -                        | 0-11 ([`DEFAULT_BROTLI_LEVEL`] 8, as pyarrow) |
//!
//! GZIP pages are gzip members (10-byte header, raw deflate, CRC-32 and size trailer), as
//! parquet-cpp writes them. `LZ4` (the deprecated codec with Hadoop framing) and `LZO` are
//! never written ([`ErrorKind::UnsupportedCodec`]): write `LZ4_RAW` instead.

use crate::format::metadata::Compression;
use crate::{Error, ErrorKind, Result};
use ::zstd::zstd_safe::{self, CCtx, CParameter, InBuffer, OutBuffer};

/// The default GZIP level (zlib's default; pyarrow's is 9).
pub const DEFAULT_GZIP_LEVEL: i32 = 6;
/// The default ZSTD level: pyarrow's (`pa.Codec.default_compression_level("zstd")` is 1).
pub const DEFAULT_ZSTD_LEVEL: i32 = 1;
/// The default BROTLI level: pyarrow's (8).
pub const DEFAULT_BROTLI_LEVEL: i32 = 8;

/// The compression levels `codec` accepts, or `None` if it has no levels.
pub fn level_range(codec: Compression) -> Option<std::ops::RangeInclusive<i32>> {
    match codec {
        Compression::Gzip => Some(0..=9),
        Compression::Zstd => Some(zstd_safe::min_c_level()..=zstd_safe::max_c_level()),
        Compression::Brotli => Some(0..=11),
        _ => None,
    }
}

/// The level used for `codec` when none is given, or `None` if it has no levels.
pub fn default_level(codec: Compression) -> Option<i32> {
    match codec {
        Compression::Gzip => Some(DEFAULT_GZIP_LEVEL),
        Compression::Zstd => Some(DEFAULT_ZSTD_LEVEL),
        Compression::Brotli => Some(DEFAULT_BROTLI_LEVEL),
        _ => None,
    }
}

/// The gzip member header: magic, deflate, no flags, no mtime, no extra flags, OS unknown.
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];

enum State {
    Uncompressed,
    Snappy(Box<snap::raw::Encoder>),
    Lz4Raw(Box<lz4_flex::block::CompressTable>),
    Gzip(Box<flate2::Compress>),
    Zstd(CCtx<'static>),
    /// The quality (level).
    Brotli(i32),
}

/// A reusable page compressor for one codec and level. One per writer thread: it is `Send`
/// but takes `&mut self`.
pub struct Compressor {
    codec: Compression,
    level: Option<i32>,
    state: State,
}

impl std::fmt::Debug for Compressor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compressor")
            .field("codec", &self.codec)
            .field("level", &self.level)
            .finish()
    }
}

#[cold]
fn unsupported(codec: Compression, why: &str) -> Error {
    Error::new(ErrorKind::UnsupportedCodec(format!(
        "{codec} compression: {why}"
    )))
}

#[cold]
fn failed(codec: Compression, message: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Io(format!(
        "{codec} compression failed: {message}"
    )))
}

impl Compressor {
    /// A compressor for `codec` at `level` (`None`: [`default_level`]). Errors: a level for a
    /// codec without levels or outside [`level_range`] ([`ErrorKind::InvalidValue`]); `LZ4`,
    /// `LZO` and unknown codecs ([`ErrorKind::UnsupportedCodec`]).
    pub fn new(codec: Compression, level: Option<i32>) -> Result<Self> {
        let level = match (level_range(codec), level) {
            (None, Some(l)) => {
                return Err(Error::new(ErrorKind::InvalidValue {
                    what: "compression level of a codec without levels",
                    value: i64::from(l),
                }))
            }
            (None, None) => None,
            (Some(range), Some(l)) if !range.contains(&l) => {
                return Err(Error::new(ErrorKind::InvalidValue {
                    what: match codec {
                        Compression::Gzip => "GZIP compression level (0-9)",
                        Compression::Brotli => "BROTLI compression level (0-11)",
                        _ => "ZSTD compression level",
                    },
                    value: i64::from(l),
                }))
            }
            (Some(_), l) => l.or(default_level(codec)),
        };
        let state = match codec {
            Compression::Uncompressed => State::Uncompressed,
            Compression::Snappy => State::Snappy(Box::new(snap::raw::Encoder::new())),
            Compression::Lz4Raw => State::Lz4Raw(Box::default()),
            Compression::Gzip => {
                let l = level.unwrap_or(DEFAULT_GZIP_LEVEL) as u32;
                State::Gzip(Box::new(flate2::Compress::new(
                    flate2::Compression::new(l),
                    false,
                )))
            }
            Compression::Zstd => {
                let mut cctx = CCtx::try_create()
                    .ok_or_else(|| failed(codec, "cannot create a compression context"))?;
                cctx.set_parameter(CParameter::CompressionLevel(
                    level.unwrap_or(DEFAULT_ZSTD_LEVEL),
                ))
                .map_err(|c| failed(codec, zstd_safe::get_error_name(c)))?;
                State::Zstd(cctx)
            }
            Compression::Lz4 => {
                return Err(unsupported(
                    codec,
                    "the deprecated Hadoop-framed codec is not written; use LZ4_RAW",
                ))
            }
            Compression::Brotli => State::Brotli(level.unwrap_or(DEFAULT_BROTLI_LEVEL)),
            Compression::Lzo | Compression::Unknown(_) => {
                return Err(unsupported(codec, "not supported"))
            }
        };
        Ok(Compressor {
            codec,
            level,
            state,
        })
    }

    /// The codec.
    pub fn codec(&self) -> Compression {
        self.codec
    }

    /// The level in force (`None` for codecs without levels).
    pub fn level(&self) -> Option<i32> {
        self.level
    }

    /// The most bytes compressing `n` bytes can produce (the codec's bound).
    pub fn max_compressed_len(&self, n: usize) -> usize {
        match self.state {
            State::Uncompressed => n,
            State::Snappy(_) => snap::raw::max_compress_len(n),
            State::Lz4Raw(_) => lz4_flex::block::get_maximum_output_size(n),
            // zlib's deflateBound plus stored-block overhead, and the gzip wrapper.
            State::Gzip(_) => {
                n + (n >> 12) + (n >> 14) + (n >> 25) + 5 * n.div_ceil(16_000) + 13 + 18
            }
            State::Zstd(_) => zstd_safe::compress_bound(n),
            // Incompressible input is stored in meta-blocks of at most 16 MiB, each with a
            // few bytes of header.
            State::Brotli(_) => n + (n >> 14) * 4 + 16,
        }
    }

    /// Compresses `input` (a page body) and appends the result to `out`; returns the bytes
    /// appended. On error `out` is left as it was.
    pub fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<usize> {
        let start = out.len();
        let result = self.compress_into(input, out, start);
        match result {
            Ok(()) => Ok(out.len() - start),
            Err(e) => {
                out.truncate(start);
                Err(e)
            }
        }
    }

    fn compress_into(&mut self, input: &[u8], out: &mut Vec<u8>, start: usize) -> Result<()> {
        let codec = self.codec;
        let bound = self.max_compressed_len(input.len());
        match &mut self.state {
            State::Uncompressed => {
                out.extend_from_slice(input);
                Ok(())
            }
            State::Snappy(enc) => {
                if bound == 0 && !input.is_empty() {
                    return Err(failed(codec, "input too large"));
                }
                out.resize(start + bound, 0);
                let n = enc
                    .compress(input, &mut out[start..])
                    .map_err(|e| failed(codec, e))?;
                out.truncate(start + n);
                Ok(())
            }
            State::Lz4Raw(table) => {
                out.resize(start + bound, 0);
                let n = lz4_flex::block::compress_into_with_table(input, &mut out[start..], table)
                    .map_err(|e| failed(codec, e))?;
                out.truncate(start + n);
                Ok(())
            }
            State::Gzip(deflate) => {
                out.reserve(bound);
                out.extend_from_slice(&GZIP_HEADER);
                deflate.reset();
                loop {
                    let consumed = deflate.total_in() as usize;
                    let status = deflate
                        .compress_vec(&input[consumed..], out, flate2::FlushCompress::Finish)
                        .map_err(|e| failed(codec, e))?;
                    if status == flate2::Status::StreamEnd {
                        break;
                    }
                    // Out of room (never with the bound reserved): grow and go on.
                    out.reserve(out.capacity().max(64));
                }
                out.extend_from_slice(&crc32fast::hash(input).to_le_bytes());
                out.extend_from_slice(&(input.len() as u32).to_le_bytes());
                Ok(())
            }
            State::Zstd(cctx) => {
                out.reserve(bound);
                cctx.reset(zstd_safe::ResetDirective::SessionOnly)
                    .map_err(|c| failed(codec, zstd_safe::get_error_name(c)))?;
                let mut src = InBuffer::around(input);
                loop {
                    let pos = out.len();
                    let mut dst = OutBuffer::around_pos(out, pos);
                    let left = cctx
                        .compress_stream2(
                            &mut dst,
                            &mut src,
                            zstd_safe::zstd_sys::ZSTD_EndDirective::ZSTD_e_end,
                        )
                        .map_err(|c| failed(codec, zstd_safe::get_error_name(c)))?;
                    if left == 0 {
                        break;
                    }
                    // Out of room (never with the bound reserved): grow and go on.
                    out.reserve(left.max(out.capacity()));
                }
                Ok(())
            }
            State::Brotli(quality) => {
                out.reserve(bound);
                let params = brotli::enc::BrotliEncoderParams {
                    quality: *quality,
                    lgwin: 22,
                    size_hint: input.len(),
                    ..Default::default()
                };
                let mut src = input;
                brotli::BrotliCompress(&mut src, out, &params).map_err(|e| failed(codec, e))?;
                Ok(())
            }
        }
    }
}

/// Compresses one page body with a fresh [`Compressor`] (see [`Compressor::compress`]);
/// a writer should keep a [`Compressor`] to reuse codec state across pages.
pub fn compress(
    codec: Compression,
    level: Option<i32>,
    input: &[u8],
    out: &mut Vec<u8>,
) -> Result<usize> {
    Compressor::new(codec, level)?.compress(input, out)
}
