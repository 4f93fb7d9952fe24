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
//! - [`alp`]: ALP for FLOAT and DOUBLE.
//! - `bitmap`: appending to LSB-first bitmaps (validity, booleans).
//! - [`bitpack`]: the LSB-first bit-unpacking kernels shared by the hybrid and delta encodings.
//! - [`encode`]: the encoders of the write path (RLE hybrid, PLAIN, dictionary, delta, BSS).
//!
//! Every count read from the data is checked against the bytes that remain before anything is
//! reserved; malformed input is an [`ErrorKind::Encoding`] error naming the encoding, never a
//! panic. Counts that legitimately cost no bytes per value (RLE runs, width-0 delta
//! miniblocks, the lengths of empty values) size nothing ahead: their output grows as the
//! values are decoded, up to the count the caller asks for, and the room made ahead for a
//! caller's count is at most what the bytes left can hold (see
//! [`delta_length_byte_array::LENGTHS_AHEAD`]).

use crate::{Error, ErrorKind, Result};

pub mod alp;
pub mod bit_packed;
pub(crate) mod bitmap;
pub mod bitpack;
pub mod byte_stream_split;
pub mod delta_binary_packed;
pub mod delta_byte_array;
pub mod delta_length_byte_array;
pub mod dictionary;
pub mod encode;
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

/// The bytes past a value's start that [`copy_chunks`] may read and write: a kernel uses it
/// where both its source and its output's capacity have that many bytes to spare past the
/// value's end, and copies exactly elsewhere (near the end of the page or of the reserved
/// output).
pub(crate) const COPY_SLACK: usize = 32;

/// Prepares Arrow-style byte-array output for `n` more values whose bytes total `bytes`:
/// pushes the leading 0 offset if needed, checks that the final offset fits `O`, and reserves.
///
/// Growth: when `values` must grow, its new capacity extrapolates the bytes per value decoded
/// so far (this batch included) to the values `offsets` has room for (the caller reserves the
/// chunk's value count up front), plus 1/32, so that a chunk whose byte size was unknown or
/// under-estimated grows once to about its final size instead of doubling past it. A value
/// count claimed by the file cannot inflate the allocation much: the extrapolation is capped
/// at 4 times the bytes actually decoded (this batch included). Without room reserved for
/// more values, or when the extrapolation is smaller, `values` at least doubles (or grows by
/// 1/8 when the extrapolation is smaller still), so that regrowth stays amortized.
pub(crate) fn reserve_byte_array<O: OffsetSize>(
    encoding: &'static str,
    offsets: &mut Vec<O>,
    values: &mut Vec<u8>,
    n: usize,
    bytes: usize,
) -> Result<()> {
    let len = values.len();
    let need = match len.checked_add(bytes) {
        Some(end) if end <= O::MAX => end,
        _ => {
            return Err(error(
                encoding,
                format!("{bytes} more value bytes overflow the offset type (already {len})"),
            ))
        }
    };
    if offsets.is_empty() {
        offsets.push(O::from_usize(len));
    }
    try_reserve(encoding, offsets, n)?;
    let cap = values.capacity();
    if need > cap {
        let doubled = cap.saturating_mul(2).max(need);
        // Values decoded once this batch is, and the values the caller made room for.
        let done = offsets.len() - 1 + n;
        let expected = offsets.capacity() - 1;
        let target = if expected > done && done > 0 {
            let estimate = (need as u128 * expected as u128 / done as u128) * 33 / 32;
            let estimate = usize::try_from(estimate).unwrap_or(usize::MAX);
            estimate
                .min(need.saturating_mul(4))
                .max(cap.saturating_add(cap / 8))
                .max(need)
        } else {
            doubled
        };
        // The extrapolation is a guess: if it cannot be had, the bytes needed now will do.
        if values.try_reserve_exact(target - len).is_err() {
            try_reserve(encoding, values, need - len)?;
        }
    }
    Ok(())
}

/// Makes room for `additional` more elements in `v`, or an [`ErrorKind::Encoding`] error
/// naming `encoding` if the allocator cannot: output whose size the data dictates (an RLE
/// run of a long dictionary entry, DELTA_BYTE_ARRAY prefixes repeated many times) may be
/// legitimately described in a few bytes yet too large to hold, which is an error, never an
/// abort.
pub(crate) fn try_reserve<T>(
    encoding: &'static str,
    v: &mut Vec<T>,
    additional: usize,
) -> Result<()> {
    v.try_reserve(additional).map_err(|e| {
        error(
            encoding,
            format!(
                "cannot allocate {additional} more values of {} bytes ({e})",
                std::mem::size_of::<T>()
            ),
        )
    })
}

/// Copies `len` bytes from `src` to `dst` in whole chunks (32 bytes, then 16 at a time), so
/// it may read and write up to [`COPY_SLACK`] bytes past `src + len` and `dst + len`: the
/// short, variable-length copies of the byte-array decoders without a call to `memcpy` per
/// value (values over 128 bytes are copied with one `memcpy`, exactly). Each chunk is read
/// whole before it is written, so `src` may lie less than a chunk before `dst`; the bytes
/// `src..src + len` are copied correctly as long as none of them lies at or after `dst`.
///
/// # Safety
///
/// `src..src + len + COPY_SLACK` must be readable (it may be uninitialized) and
/// `dst..dst + len + COPY_SLACK` writable, both inside allocations; either
/// `src + len <= dst` or the two ranges do not overlap at all.
#[inline(always)]
pub(crate) unsafe fn copy_chunks(src: *const u8, dst: *mut u8, len: usize) {
    if len > 128 {
        // Long values: `memcpy` beats the chunk loop.
        // SAFETY: the ranges `src..src + len` and `dst..dst + len` are readable and writable
        // (the caller vouches for longer ones) and do not overlap (`src + len <= dst`, or
        // not at all).
        unsafe { std::ptr::copy_nonoverlapping(src, dst, len) };
        return;
    }
    // SAFETY: `32 <= len + COPY_SLACK`: inside the ranges the caller vouches for.
    // `ptr::copy` (not `copy_nonoverlapping`) because the chunk may overlap the destination
    // when `src` is less than 32 bytes before `dst`: it reads the whole chunk before writing
    // it (so the bytes before `dst` are copied intact), and copies uninitialized bytes untyped.
    unsafe { std::ptr::copy(src, dst, 32) };
    let mut k = 32;
    while k < len {
        // SAFETY: `k < len`, so `k + 16 < len + COPY_SLACK`: inside the ranges the caller
        // vouches for. The bytes this chunk needs (before `src + len`) lie before `dst` when
        // the ranges overlap, so no earlier chunk wrote them; `ptr::copy` as above.
        unsafe { std::ptr::copy(src.add(k), dst.add(k), 16) };
        k += 16;
    }
}

#[cfg(test)]
mod tests {
    use super::reserve_byte_array;

    #[test]
    fn byte_array_growth_extrapolates_to_the_reserved_values() {
        // Room for 1000 values, none for their bytes, batches of 100 values of 10 bytes: the
        // first batch grows the bytes to 4 times its own (the cap), the fifth to about
        // 1000 x 10 (the extrapolation), and the rest fit.
        let mut offsets: Vec<i32> = Vec::with_capacity(1001);
        let mut values: Vec<u8> = Vec::new();
        let mut grown = 0;
        for _ in 0..10 {
            let before = values.capacity();
            reserve_byte_array("T", &mut offsets, &mut values, 100, 1000).unwrap();
            grown += usize::from(values.capacity() != before);
            values.extend(std::iter::repeat_n(b'x', 1000));
            offsets.extend((1..=100).map(|i| (values.len() - 1000 + 10 * i) as i32));
        }
        assert_eq!(grown, 2);
        assert!(
            (10_000..=10_400).contains(&values.capacity()),
            "{}",
            values.capacity()
        );
        // A claimed value count far above what is decoded: at most 4 times the bytes.
        let mut offsets: Vec<i32> = Vec::with_capacity(1 << 20);
        let mut values: Vec<u8> = Vec::new();
        reserve_byte_array("T", &mut offsets, &mut values, 1, 100).unwrap();
        assert!(values.capacity() <= 400, "{}", values.capacity());
        // No room reserved for more values: the standard doubling.
        let mut offsets: Vec<i32> = vec![0];
        let mut values: Vec<u8> = vec![0; 64];
        offsets.shrink_to_fit();
        values.shrink_to_fit();
        reserve_byte_array("T", &mut offsets, &mut values, 1, 1).unwrap();
        assert!(values.capacity() >= 128);
        // Offsets past the offset type: an error.
        let mut values: Vec<u8> = Vec::new();
        assert!(reserve_byte_array("T", &mut vec![0i32], &mut values, 1, 1 << 31).is_err());
    }
}
