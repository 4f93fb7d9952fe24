//! Page decompression for the read path: one module per codec of
//! [`Compression`], dispatched by [`Decompressor`].
//!
//! A Parquet page body (after its `PageHeader`) is compressed with the column chunk's codec,
//! and its header declares the size it decompresses to (`uncompressed_page_size`). Every codec
//! here decompresses into a caller-owned `Vec<u8>` and holds it to that declared size:
//!
//! - the declared size is checked against [`Limits::max_page_bytes`] before anything is
//!   allocated ([`ErrorKind::PageTooLarge`]);
//! - it is also checked against the most the codec can expand the compressed bytes to
//!   ([`max_decompressed_len`]), so a few bytes cannot make a codec allocate up to the limit
//!   ([`ErrorKind::Decompression`]);
//! - the output never grows past the buffer's capacity, which is reserved as
//!   `declared + 1` (or kept from earlier pages), so a decompression bomb stops there with
//!   [`ErrorKind::PageSizeMismatch`] (`at_least` set) instead of allocating without bound;
//! - a stream that decompresses to fewer or more bytes is a [`ErrorKind::PageSizeMismatch`];
//! - a corrupt or truncated stream is an [`ErrorKind::Decompression`] naming the codec;
//! - `LZO` and codec values parq does not know are an [`ErrorKind::UnsupportedCodec`].
//!
//! No codec panics on hostile input. On error the output buffer is left empty.
//!
//! Codecs and their crates: `SNAPPY` (snap, raw format), `GZIP` (flate2 raw deflate on the
//! zlib-rs backend; gzip headers and trailers, CRC-32 included, are checked here and
//! concatenated members are decoded one after the other), `LZ4` (the deprecated codec: Hadoop
//! framing, else an LZ4 frame, else a plain LZ4 block, as parquet-cpp and parquet-rs fall back),
//! `LZ4_RAW` (lz4_flex block), `ZSTD` (zstd, one-shot into the destination, multiple frames
//! allowed) and `BROTLI` (brotli-decompressor, standard window sizes only).
//!
//! ```
//! use parq::compression::{Decompressor, Limits};
//! use parq::format::metadata::Compression;
//!
//! let mut decompressor = Decompressor::new(Limits::default());
//! let mut page = Vec::new();
//! decompressor.decompress(Compression::Uncompressed, b"abc", 3, &mut page)?;
//! assert_eq!(page, b"abc");
//! # Ok::<(), parq::Error>(())
//! ```

mod brotli;
pub mod compress;
mod gzip;
mod lz4;
mod lz4_raw;
mod snappy;
mod zstd;

use crate::format::metadata::Compression;
use crate::{Error, ErrorKind, Result};

/// The default [`Limits::max_page_bytes`]: 1 GiB.
pub const DEFAULT_MAX_PAGE_BYTES: usize = 1 << 30;

/// Resource limits of decompression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest declared uncompressed page size accepted; larger pages are rejected before
    /// any memory is allocated for them. Default [`DEFAULT_MAX_PAGE_BYTES`] (1 GiB).
    pub max_page_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_page_bytes: DEFAULT_MAX_PAGE_BYTES,
        }
    }
}

/// A reusable page decompressor: it holds the per-codec state (a zstd decompression context,
/// a zlib-rs inflate state and CRC) so that decompressing page after page allocates nothing
/// in steady state when the caller also reuses its output buffer. One per reader thread: it is
/// `Send` but takes `&mut self`. State is created on the first page of each codec.
///
/// Allocation per page: none for UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW and Hadoop-framed or
/// block LZ4 once `out` has the capacity; BROTLI builds its decoder state (and ring buffer)
/// per page, and so does the rare LZ4 frame fallback.
pub struct Decompressor {
    limits: Limits,
    gzip: Option<gzip::Gzip>,
    zstd: Option<zstd::Zstd>,
}

impl Default for Decompressor {
    fn default() -> Self {
        Decompressor::new(Limits::default())
    }
}

impl std::fmt::Debug for Decompressor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decompressor")
            .field("limits", &self.limits)
            .field("gzip", &self.gzip.is_some())
            .field("zstd", &self.zstd.is_some())
            .finish()
    }
}

impl Decompressor {
    /// A decompressor with `limits`; it allocates nothing until the first page.
    pub fn new(limits: Limits) -> Self {
        Decompressor {
            limits,
            gzip: None,
            zstd: None,
        }
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Decompresses the page body `input`, compressed with `codec`, into `out`, replacing its
    /// contents with exactly `uncompressed_size` bytes (the header's `uncompressed_page_size`).
    ///
    /// Pass the same `out` for page after page: its capacity is reused, and the codecs that
    /// need an initialized destination (SNAPPY, LZ4, LZ4_RAW, BROTLI) overwrite its old
    /// bytes instead of zero-filling them again; GZIP and ZSTD write straight into the spare
    /// capacity. An empty `input` is accepted for a declared size of 0 with every supported
    /// codec. On error `out` is left empty.
    ///
    /// Errors: [`ErrorKind::UnsupportedCodec`] (LZO, unknown values),
    /// [`ErrorKind::PageTooLarge`] (over [`Limits::max_page_bytes`], checked before
    /// allocating), [`ErrorKind::PageSizeMismatch`] (the stream holds another size) and
    /// [`ErrorKind::Decompression`] (corrupt or truncated stream, or a size `input` cannot
    /// expand to, see [`max_decompressed_len`], checked before allocating).
    pub fn decompress(
        &mut self,
        codec: Compression,
        input: &[u8],
        uncompressed_size: usize,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let result = self.dispatch(codec, input, uncompressed_size, out);
        match result {
            Ok(()) if out.len() == uncompressed_size => Ok(()),
            Ok(()) => {
                let actual = out.len();
                out.clear();
                Err(mismatch(uncompressed_size, actual, false))
            }
            Err(e) => {
                out.clear();
                Err(e)
            }
        }
    }

    /// Like [`Decompressor::decompress`], but an `UNCOMPRESSED` page is borrowed from `input`
    /// instead of copied (after its size is checked); other codecs decompress into `out` and
    /// return it as a slice.
    pub fn decompress_or_borrow<'a>(
        &mut self,
        codec: Compression,
        input: &'a [u8],
        uncompressed_size: usize,
        out: &'a mut Vec<u8>,
    ) -> Result<&'a [u8]> {
        if codec == Compression::Uncompressed {
            check_limit(uncompressed_size, &self.limits)?;
            if input.len() != uncompressed_size {
                return Err(mismatch(uncompressed_size, input.len(), false));
            }
            return Ok(input);
        }
        self.decompress(codec, input, uncompressed_size, out)?;
        Ok(out.as_slice())
    }

    fn dispatch(
        &mut self,
        codec: Compression,
        input: &[u8],
        n: usize,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        if matches!(codec, Compression::Lzo | Compression::Unknown(_)) {
            return Err(Error::new(ErrorKind::UnsupportedCodec(codec.to_string())));
        }
        check_limit(n, &self.limits)?;
        if input.is_empty() && n == 0 {
            out.clear();
            return Ok(());
        }
        check_expansion(codec, input.len(), n)?;
        match codec {
            Compression::Uncompressed => {
                if input.len() != n {
                    return Err(mismatch(n, input.len(), false));
                }
                out.clear();
                out.extend_from_slice(input);
                Ok(())
            }
            Compression::Snappy => snappy::decompress(input, n, out),
            Compression::Gzip => self
                .gzip
                .get_or_insert_with(gzip::Gzip::new)
                .decompress(input, n, out),
            Compression::Lz4 => lz4::decompress(input, n, out),
            Compression::Lz4Raw => lz4_raw::decompress(Compression::Lz4Raw, input, n, out),
            Compression::Zstd => {
                if self.zstd.is_none() {
                    self.zstd = Some(zstd::Zstd::new()?);
                }
                match self.zstd.as_mut() {
                    Some(z) => z.decompress(input, n, out),
                    None => Err(corrupt(codec, "no decompression context")),
                }
            }
            Compression::Brotli => brotli::decompress(input, n, out),
            Compression::Lzo | Compression::Unknown(_) => {
                Err(Error::new(ErrorKind::UnsupportedCodec(codec.to_string())))
            }
        }
    }
}

/// Decompresses one page body with a fresh [`Decompressor`]: see
/// [`Decompressor::decompress`] for the contract. Convenient for one-off pages; a page reader
/// should keep a [`Decompressor`] to reuse codec state across pages.
pub fn decompress(
    codec: Compression,
    input: &[u8],
    uncompressed_size: usize,
    out: &mut Vec<u8>,
    limits: &Limits,
) -> Result<()> {
    Decompressor::new(*limits).decompress(codec, input, uncompressed_size, out)
}

/// True if parq can decompress pages of `codec`.
pub fn is_supported(codec: Compression) -> bool {
    !matches!(codec, Compression::Lzo | Compression::Unknown(_))
}

/// The most bytes one compressed SNAPPY byte decompresses to: a 3-byte copy element
/// (2-byte offset) writes at most 64 bytes, every other element less per byte.
pub const SNAPPY_MAX_EXPANSION: u64 = 22;

/// The most bytes one compressed LZ4 byte (block, frame or Hadoop framing; LZ4 and LZ4_RAW)
/// decompresses to: a match grows by at most 255 bytes per length byte, and its token and
/// offset take 3 bytes for at most 19 bytes.
pub const LZ4_MAX_EXPANSION: u64 = 256;

/// The most bytes one compressed GZIP byte decompresses to: deflate's limit, a 258-byte
/// match in two 1-bit codes (1032 bytes per byte).
pub const GZIP_MAX_EXPANSION: u64 = 1032;

/// The most bytes one compressed ZSTD byte decompresses to: an RLE block of 4 bytes (3-byte
/// block header and the byte) repeats the byte at most `2^21 - 1` times, and every other block
/// or frame expands less.
pub const ZSTD_MAX_EXPANSION: u64 = 1 << 19;

/// The most bytes one compressed BROTLI byte decompresses to: a meta-block holds at most
/// `2^24` bytes and its header alone takes more than 3 bytes (28 bits).
pub const BROTLI_MAX_EXPANSION: u64 = 1 << 23;

/// The most bytes `compressed_len` bytes compressed with `codec` can decompress to (exactly
/// `compressed_len` for UNCOMPRESSED), from the codec's largest expansion per byte
/// ([`SNAPPY_MAX_EXPANSION`], [`LZ4_MAX_EXPANSION`], [`GZIP_MAX_EXPANSION`],
/// [`ZSTD_MAX_EXPANSION`], [`BROTLI_MAX_EXPANSION`]); `u64::MAX` for codecs parq cannot
/// decompress. A declared uncompressed size above it is refused before allocating.
pub fn max_decompressed_len(codec: Compression, compressed_len: usize) -> u64 {
    let ratio = match codec {
        Compression::Uncompressed => 1,
        Compression::Snappy => SNAPPY_MAX_EXPANSION,
        Compression::Gzip => GZIP_MAX_EXPANSION,
        Compression::Lz4 | Compression::Lz4Raw => LZ4_MAX_EXPANSION,
        Compression::Zstd => ZSTD_MAX_EXPANSION,
        Compression::Brotli => BROTLI_MAX_EXPANSION,
        Compression::Lzo | Compression::Unknown(_) => return u64::MAX,
    };
    (compressed_len as u64).saturating_mul(ratio)
}

/// Refuses a declared size `n` that `input_len` bytes of `codec` cannot decompress to
/// ([`max_decompressed_len`]), before the codec allocates it. UNCOMPRESSED pages are checked
/// for their exact size instead.
fn check_expansion(codec: Compression, input_len: usize, n: usize) -> Result<()> {
    let max = max_decompressed_len(codec, input_len);
    if codec != Compression::Uncompressed && n as u64 > max {
        return Err(corrupt(
            codec,
            format!(
                "{input_len} compressed bytes cannot hold the declared {n} bytes (at most {max})"
            ),
        ));
    }
    Ok(())
}

fn check_limit(n: usize, limits: &Limits) -> Result<()> {
    if n > limits.max_page_bytes {
        return Err(Error::new(ErrorKind::PageTooLarge {
            page_bytes: n as u64,
            limit: limits.max_page_bytes as u64,
        }));
    }
    Ok(())
}

/// Empties `out` and makes room for `n` bytes plus one (the byte that tells a stream longer
/// than declared from an exact one), growing it exactly (no doubling past the largest page),
/// for the codecs that write into the spare capacity.
fn reserve_output(out: &mut Vec<u8>, n: usize) {
    out.clear();
    out.reserve_exact(n.saturating_add(1));
}

/// Sets `out`'s length to `n` with initialized bytes for the codecs that decompress into a
/// `&mut [u8]`: bytes already initialized by an earlier page are kept (they are about to be
/// overwritten), and only the part never initialized before is zero-filled.
fn init_len(out: &mut Vec<u8>, n: usize) {
    if out.len() >= n {
        out.truncate(n);
    } else {
        if out.capacity() < n {
            // Growing would copy the old bytes; drop them so the allocation copies nothing,
            // and grow to the page's size exactly (no doubling past the largest page).
            out.clear();
            out.reserve_exact(n);
        }
        out.resize(n, 0);
    }
}

/// A corrupt or truncated stream of `codec`.
#[cold]
fn corrupt(codec: Compression, message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Decompression {
        codec: codec.spec_name(),
        message: message.into(),
    })
}

/// A page that decompressed to `actual` bytes (at least, if `at_least`) instead of `expected`.
#[cold]
fn mismatch(expected: usize, actual: usize, at_least: bool) -> Error {
    Error::new(ErrorKind::PageSizeMismatch {
        expected: expected as u64,
        actual: actual as u64,
        at_least,
    })
}
