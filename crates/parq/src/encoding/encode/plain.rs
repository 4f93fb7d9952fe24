//! PLAIN encoders (the inverse of [`crate::encoding::plain`]).
//!
//! - INT32, INT64, INT96, FLOAT, DOUBLE: [`put_fixed`] (one copy of the values' bytes on
//!   little-endian targets) and [`put_fixed_valid`].
//! - FIXED_LEN_BYTE_ARRAY: [`put_fixed_len_byte_array`], [`put_fixed_len_byte_array_valid`].
//! - BYTE_ARRAY from Arrow `i32`/`i64` offsets: [`put_byte_array`] (4-byte length, bytes; the
//!   output is sized exactly and short values are copied in 16-byte chunks),
//!   [`put_byte_array_valid`].
//! - BOOLEAN: [`BooleanEncoder`], bit-packed LSB first from a bitmap, continuing the last
//!   partial byte across batches.
//!
//! The `_valid` variants take the values of every slot of an Arrow array plus its validity
//! [`Bitmap`] and write only the valid values (the null compaction a column writer needs):
//! the bitmap is read a 64-bit word at a time and each run of valid slots is one copy.

use super::{bad_offsets, check_validity, offset_range, Bitmap};
use crate::encoding::bitmap::BitAppender;
use crate::encoding::plain::{FixedWidth, Int96};
use crate::encoding::{copy_chunks, error, OffsetSize, COPY_SLACK};
use crate::Result;

const NAME: &str = "PLAIN";

mod sealed {
    pub trait Sealed {}
}

/// A fixed-width physical type PLAIN encodes: `i32`, `i64`, [`Int96`], `f32`, `f64` (and
/// `u16`, `u32`, `u64` for raw fixed-width bytes). Sealed: every implementation is a plain
/// value without padding whose in-memory bytes on a little-endian target are its PLAIN bytes.
pub trait PlainValue: FixedWidth + sealed::Sealed {
    /// Writes the value's `WIDTH` little-endian bytes to `out` (exactly `WIDTH` long).
    fn write_le(self, out: &mut [u8]);
}

macro_rules! plain_value {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl PlainValue for $t {
            #[inline(always)]
            fn write_le(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
plain_value!(i32, i64, f32, f64, u16, u32, u64);

impl sealed::Sealed for Int96 {}
impl PlainValue for Int96 {
    #[inline(always)]
    fn write_le(self, out: &mut [u8]) {
        out.copy_from_slice(&self);
    }
}

/// The PLAIN bytes of `values`: their memory on a little-endian target (no copy), else a
/// little-endian copy.
#[inline]
pub(crate) fn le_bytes<T: PlainValue>(values: &[T]) -> std::borrow::Cow<'_, [u8]> {
    #[cfg(target_endian = "little")]
    {
        debug_assert_eq!(std::mem::size_of::<T>(), T::WIDTH);
        // SAFETY: `T` is one of the sealed `PlainValue` types (integers, floats, `[u8; 12]`):
        // `size_of::<T>() == T::WIDTH`, no padding, every byte initialized, alignment of `u8`
        // is 1; on a little-endian target its memory is its little-endian PLAIN encoding.
        let bytes = unsafe {
            std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
        };
        std::borrow::Cow::Borrowed(bytes)
    }
    #[cfg(not(target_endian = "little"))]
    {
        let mut bytes = vec![0; values.len() * T::WIDTH];
        for (o, &v) in bytes.chunks_exact_mut(T::WIDTH).zip(values) {
            v.write_le(o);
        }
        std::borrow::Cow::Owned(bytes)
    }
}

/// Appends the PLAIN bytes of `values`.
#[inline]
pub(crate) fn extend_le<T: PlainValue>(values: &[T], out: &mut Vec<u8>) {
    out.extend_from_slice(&le_bytes(values));
}

/// Appends `values` PLAIN-encoded (`values.len() * T::WIDTH` bytes).
pub fn put_fixed<T: PlainValue>(values: &[T], out: &mut Vec<u8>) {
    out.reserve(values.len() * T::WIDTH);
    extend_le(values, out);
}

/// Appends the values of the slots set in `validity` (one bit per element of `values`);
/// returns how many were written.
pub fn put_fixed_valid<T: PlainValue>(
    values: &[T],
    validity: Bitmap<'_>,
    out: &mut Vec<u8>,
) -> Result<usize> {
    check_validity(NAME, &validity, values.len())?;
    let valid = validity.count_ones();
    out.reserve(valid * T::WIDTH);
    validity.for_each_set_run(|i, k| extend_le(&values[i..i + k], out));
    Ok(valid)
}

/// Checks FIXED_LEN_BYTE_ARRAY input: a positive width dividing the bytes (or no bytes).
fn check_width(values: &[u8], width: usize) -> Result<usize> {
    if width == 0 {
        if values.is_empty() {
            return Ok(0);
        }
        return Err(error(NAME, "FIXED_LEN_BYTE_ARRAY width 0".to_string()));
    }
    if !values.len().is_multiple_of(width) {
        return Err(error(
            NAME,
            format!(
                "{} bytes are not whole values of {width} bytes",
                values.len()
            ),
        ));
    }
    Ok(values.len() / width)
}

/// Appends FIXED_LEN_BYTE_ARRAY values of `width` bytes stored back to back in `values`.
pub fn put_fixed_len_byte_array(values: &[u8], width: usize, out: &mut Vec<u8>) -> Result<()> {
    check_width(values, width)?;
    out.extend_from_slice(values);
    Ok(())
}

/// Appends the FIXED_LEN_BYTE_ARRAY values (of `width` bytes, back to back in `values`) of
/// the slots set in `validity`; returns how many were written.
pub fn put_fixed_len_byte_array_valid(
    values: &[u8],
    width: usize,
    validity: Bitmap<'_>,
    out: &mut Vec<u8>,
) -> Result<usize> {
    let n = check_width(values, width)?;
    check_validity(NAME, &validity, n)?;
    let valid = validity.count_ones();
    out.reserve(valid * width);
    validity.for_each_set_run(|i, k| out.extend_from_slice(&values[i * width..(i + k) * width]));
    Ok(valid)
}

/// Appends the BYTE_ARRAY values `offsets[i]..offsets[i + 1]` of `values` (Arrow-style
/// offsets, `n + 1` of them for `n` values) as 4-byte lengths and bytes. The output grows by
/// exactly `4 * n` plus the bytes. Errors (before anything is written): no offsets, offsets
/// outside `values`, a value over `u32::MAX` bytes; offsets that decrease are found while
/// copying and leave `out` as it was.
pub fn put_byte_array<O: OffsetSize>(
    offsets: &[O],
    values: &[u8],
    out: &mut Vec<u8>,
) -> Result<()> {
    let (first, last) = offset_range(NAME, offsets, values)?;
    let n = offsets.len() - 1;
    let total = 4 * n + (last - first);
    let start = out.len();
    out.reserve(total + COPY_SLACK);
    let room = out.capacity();
    let base = out.as_mut_ptr();
    let mut pos = start;
    let mut prev = first;
    for (i, o) in offsets[1..].iter().enumerate() {
        let end = o.to_usize().unwrap_or(usize::MAX);
        if end < prev || end > last {
            // Nothing past `out.len()` has been committed: dropping the written bytes.
            return Err(bad_offsets(NAME, i));
        }
        let len = end - prev;
        if len > u32::MAX as usize {
            return Err(error(NAME, format!("value {i} of {len} bytes > u32::MAX")));
        }
        // SAFETY: the values `first..end` total at most `last - first` bytes and each
        // length is written once, so `pos + 4 + len <= start + total`, within the capacity
        // reserved above.
        unsafe {
            std::ptr::copy_nonoverlapping((len as u32).to_le_bytes().as_ptr(), base.add(pos), 4)
        };
        pos += 4;
        if end + COPY_SLACK <= values.len() && pos + len + COPY_SLACK <= room {
            // SAFETY: `prev + len + COPY_SLACK <= values.len()`: readable; `pos + len +
            // COPY_SLACK <= room`: writable capacity; `values` is not part of `out`.
            unsafe { copy_chunks(values.as_ptr().add(prev), base.add(pos), len) };
        } else {
            // SAFETY: `prev..end` lies in `values`; `pos + len <= start + total` as above.
            unsafe { std::ptr::copy_nonoverlapping(values.as_ptr().add(prev), base.add(pos), len) };
        }
        pos += len;
        prev = end;
    }
    debug_assert_eq!(pos, start + total);
    // SAFETY: bytes `start..pos` were all written above (lengths and values back to back),
    // within the capacity.
    unsafe { out.set_len(pos) };
    Ok(())
}

/// Appends the BYTE_ARRAY values of the slots set in `validity` (one bit per value of
/// `offsets`); returns how many were written. Same errors as [`put_byte_array`].
pub fn put_byte_array_valid<O: OffsetSize>(
    offsets: &[O],
    values: &[u8],
    validity: Bitmap<'_>,
    out: &mut Vec<u8>,
) -> Result<usize> {
    offset_range(NAME, offsets, values)?;
    check_validity(NAME, &validity, offsets.len() - 1)?;
    let start = out.len();
    let mut written = 0;
    let mut result = Ok(());
    validity.for_each_set_run(|i, k| {
        if result.is_ok() {
            result = put_byte_array(&offsets[i..i + k + 1], values, out);
            written += k;
        }
    });
    if let Err(e) = result {
        out.truncate(start);
        return Err(e);
    }
    Ok(written)
}

/// A PLAIN BOOLEAN encoder: values bit-packed LSB first, continuing across batches in the
/// last, partial byte of `out`. Between [`new`](Self::new) (or [`reset`](Self::reset)) and
/// the page's end, every call must be given the same `out`, with nothing else written to it;
/// the data is complete after any call (its last byte padded with zeros).
#[derive(Debug, Clone, Default)]
pub struct BooleanEncoder {
    /// Bits used in the last byte of `out` (0 = byte-aligned).
    used: u32,
    /// Values written.
    count: usize,
}

impl BooleanEncoder {
    /// A new encoder (for a page's values).
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts a new page.
    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// Values written so far.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True if nothing was written.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    fn appender<'o>(&self, out: &'o mut Vec<u8>, n: usize) -> BitAppender<'o> {
        let bit = if self.used == 0 {
            out.len() * 8
        } else {
            (out.len() - 1) * 8 + self.used as usize
        };
        BitAppender::at(out, bit, n)
    }

    /// Appends the booleans of `bits`.
    pub fn put(&mut self, bits: Bitmap<'_>, out: &mut Vec<u8>) {
        let n = bits.len();
        {
            let mut a = self.appender(out, n);
            let mut i = 0;
            while i < n {
                let k = (n - i).min(64);
                a.push(bits.word(i), k as u32);
                i += 64;
            }
        }
        self.finish(n);
    }

    /// Appends the booleans of `values` at the slots set in `validity` (both cover the same
    /// slots); returns how many were written.
    pub fn put_valid(
        &mut self,
        values: Bitmap<'_>,
        validity: Bitmap<'_>,
        out: &mut Vec<u8>,
    ) -> Result<usize> {
        check_validity(NAME, &validity, values.len())?;
        let n = values.len();
        let mut written = 0;
        {
            let mut a = self.appender(out, n);
            let mut i = 0;
            while i < n {
                let k = (n - i).min(64);
                let (v, mut m) = (values.word(i), validity.word(i));
                if m.count_ones() as usize == k {
                    a.push(v, k as u32);
                    written += k;
                } else if m != 0 {
                    let (mut acc, mut j) = (0u64, 0u32);
                    while m != 0 {
                        let p = m.trailing_zeros();
                        acc |= (v >> p & 1) << j;
                        j += 1;
                        m &= m - 1;
                    }
                    a.push(acc, j);
                    written += j as usize;
                }
                i += 64;
            }
        }
        self.finish(written);
        Ok(written)
    }

    fn finish(&mut self, n: usize) {
        self.count += n;
        self.used = ((self.used as usize + n) % 8) as u32;
    }
}
