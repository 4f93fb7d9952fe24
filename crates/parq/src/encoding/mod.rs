//! Page value and level encodings as batch kernels.
//!
//! One module per encoding of the Parquet spec (`Encodings.md`); each holds the decoder today
//! and leaves room for the encoder beside it. All decoders work on a page slice, append to (or
//! fill) caller-owned, reusable buffers, and never allocate per value:
//!
//! - [`plain`]: PLAIN for every physical type.
//! - [`rle`]: the RLE / bit-packing hybrid (levels, dictionary indices, booleans), including a
//!   direct 1-bit-levels-to-validity-bitmap path.
//! - [`bit_packed`]: the deprecated BIT_PACKED level encoding (MSB first).
//! - [`dictionary`]: fused index decoding and gather from a dictionary.
//! - [`delta_binary_packed`], [`delta_length_byte_array`], [`delta_byte_array`].
//! - [`byte_stream_split`].
//! - `bitmap`: appending to LSB-first bitmaps (validity, booleans).
//! - [`bitpack`]: the LSB-first bit-unpacking kernels shared by the hybrid and delta encodings.
//!
//! Every count read from the data is checked against the bytes that remain before anything is
//! reserved; malformed input is an [`ErrorKind::Encoding`] error naming the encoding, never a
//! panic.

use crate::{Error, ErrorKind, Result};

pub mod bit_packed;
pub(crate) mod bitmap;
pub mod bitpack;
pub mod byte_stream_split;
pub mod delta_binary_packed;
pub mod delta_byte_array;
pub mod delta_length_byte_array;
pub mod dictionary;
pub mod plain;
pub mod rle;

/// An [`ErrorKind::Encoding`] error for `encoding` with `message`.
#[cold]
#[inline(never)]
pub(crate) fn error(encoding: &'static str, message: String) -> Error {
    Error::new(ErrorKind::Encoding { encoding, message })
}

/// Reads a ULEB128 varint of at most 64 bits at `*pos`, advancing `*pos`.
#[inline]
pub(crate) fn read_uleb128(data: &[u8], pos: &mut usize, encoding: &'static str) -> Result<u64> {
    let mut value = 0u64;
    let mut shift = 0u32;
    loop {
        let Some(&byte) = data.get(*pos) else {
            return Err(error(
                encoding,
                format!("truncated varint at byte {}", *pos),
            ));
        };
        *pos += 1;
        if shift == 63 && byte > 1 || shift > 63 {
            return Err(error(encoding, "varint longer than 64 bits".to_string()));
        }
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
        shift += 7;
    }
}

/// Reads a zigzag ULEB128 varint of at most 64 bits at `*pos`, advancing `*pos`.
#[inline]
pub(crate) fn read_zigzag(data: &[u8], pos: &mut usize, encoding: &'static str) -> Result<i64> {
    let v = read_uleb128(data, pos, encoding)?;
    Ok((v >> 1) as i64 ^ -((v & 1) as i64))
}

/// The offset type of a variable-length (byte array) output: `i32` or `i64`, as in Arrow's
/// `Binary`/`LargeBinary`.
///
/// Byte-array decoders append to `offsets` and `values` Arrow-style: `offsets` holds one more
/// entry than there are values, the first being 0. If `offsets` is empty when a decoder is
/// called, it pushes the leading 0 (equal to `values.len()`) first.
pub trait OffsetSize: Copy + Default + Send + Sync + std::fmt::Debug + 'static {
    /// The largest offset this type can hold.
    const MAX: usize;
    /// Converts an in-range offset (callers check against [`Self::MAX`]).
    fn from_usize(v: usize) -> Self;
    /// The offset as a `usize`, or `None` if it is negative.
    fn to_usize(self) -> Option<usize>;
}

impl OffsetSize for i32 {
    const MAX: usize = i32::MAX as usize;
    #[inline]
    fn from_usize(v: usize) -> Self {
        v as i32
    }
    #[inline]
    fn to_usize(self) -> Option<usize> {
        usize::try_from(self).ok()
    }
}

impl OffsetSize for i64 {
    const MAX: usize = i64::MAX as usize;
    #[inline]
    fn from_usize(v: usize) -> Self {
        v as i64
    }
    #[inline]
    fn to_usize(self) -> Option<usize> {
        usize::try_from(self).ok()
    }
}

/// Prepares Arrow-style byte-array output for `n` more values whose bytes total `bytes`:
/// pushes the leading 0 offset if needed, checks that the final offset fits `O`, and reserves
/// exactly.
pub(crate) fn reserve_byte_array<O: OffsetSize>(
    encoding: &'static str,
    offsets: &mut Vec<O>,
    values: &mut Vec<u8>,
    n: usize,
    bytes: usize,
) -> Result<()> {
    let end = values.len().checked_add(bytes);
    match end {
        Some(end) if end <= O::MAX => {}
        _ => {
            return Err(error(
                encoding,
                format!(
                    "{bytes} more value bytes overflow the offset type (already {})",
                    values.len()
                ),
            ))
        }
    }
    if offsets.is_empty() {
        offsets.push(O::from_usize(values.len()));
    }
    offsets.reserve(n);
    values.reserve(bytes);
    Ok(())
}
