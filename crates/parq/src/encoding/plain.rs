//! PLAIN (PLAIN = 0): values back to back, little endian.
//!
//! - BOOLEAN: bit-packed, LSB first ([`BooleanDecoder`]).
//! - INT32, INT64, INT96 (12 bytes), FLOAT, DOUBLE: fixed-width little endian
//!   ([`decode_fixed`] with `i32`, `i64`, [`Int96`], `f32`, `f64`).
//! - FIXED_LEN_BYTE_ARRAY: the bytes ([`decode_fixed_len_byte_array`]).
//! - BYTE_ARRAY: a 4-byte little-endian length, then the bytes ([`decode_byte_array`]).
//!
//! Every function decodes from the start of a slice and returns the bytes it consumed, so a
//! page reader decoding in batches advances its slice by that much.

use super::bitmap::BitAppender;
use super::rle::popcount;
use super::{copy_chunks, error, reserve_byte_array, OffsetSize, COPY_SLACK};
use crate::Result;

const NAME: &str = "PLAIN";

/// A deprecated INT96 value (12 bytes as stored: 8-byte nanoseconds of the day, then the
/// 4-byte Julian day, both little endian).
pub type Int96 = [u8; 12];

/// A fixed-width physical type of PLAIN: `i32`, `i64`, [`Int96`], `f32`, `f64`.
pub trait FixedWidth: Copy + Default + Send + Sync + 'static {
    /// The stored width in bytes.
    const WIDTH: usize;
    /// Reads a value from exactly `WIDTH` little-endian bytes.
    fn from_le_slice(b: &[u8]) -> Self;
}

macro_rules! fixed_width {
    ($($t:ty => $w:expr),*) => {$(
        impl FixedWidth for $t {
            const WIDTH: usize = $w;
            #[inline(always)]
            fn from_le_slice(b: &[u8]) -> Self {
                let mut a = [0u8; $w];
                a.copy_from_slice(b);
                <$t>::from_le_bytes(a)
            }
        }
    )*};
}
fixed_width!(i32 => 4, i64 => 8, f32 => 4, f64 => 8, u16 => 2, u32 => 4, u64 => 8);

impl FixedWidth for Int96 {
    const WIDTH: usize = 12;
    #[inline(always)]
    fn from_le_slice(b: &[u8]) -> Self {
        let mut a = [0u8; 12];
        a.copy_from_slice(b);
        a
    }
}

#[cold]
#[inline(never)]
fn truncated(what: &str, n: usize, needed: usize, remaining: usize) -> crate::Error {
    error(
        NAME,
        format!("{n} {what} values need {needed} bytes, {remaining} remain"),
    )
}

/// Appends `n` fixed-width values from the start of `data` to `out`; returns the bytes
/// consumed (`n * T::WIDTH`).
pub fn decode_fixed<T: FixedWidth>(data: &[u8], n: usize, out: &mut Vec<T>) -> Result<usize> {
    let needed = n.checked_mul(T::WIDTH).filter(|&b| b <= data.len());
    let Some(needed) = needed else {
        let needed = n.saturating_mul(T::WIDTH);
        return Err(truncated(std::any::type_name::<T>(), n, needed, data.len()));
    };
    out.reserve(n);
    out.extend(data[..needed].chunks_exact(T::WIDTH).map(T::from_le_slice));
    Ok(needed)
}

/// Appends `n` FIXED_LEN_BYTE_ARRAY values of `width` bytes from the start of `data` to
/// `out` (back to back); returns the bytes consumed (`n * width`).
pub fn decode_fixed_len_byte_array(
    data: &[u8],
    width: usize,
    n: usize,
    out: &mut Vec<u8>,
) -> Result<usize> {
    let needed = n.checked_mul(width).filter(|&b| b <= data.len());
    let Some(needed) = needed else {
        let needed = n.saturating_mul(width);
        return Err(truncated("FIXED_LEN_BYTE_ARRAY", n, needed, data.len()));
    };
    out.extend_from_slice(&data[..needed]);
    Ok(needed)
}

/// Appends `n` BYTE_ARRAY values from the start of `data` to Arrow-style `offsets` and
/// `values` (see [`OffsetSize`]); returns the bytes consumed. The lengths are scanned and
/// checked first, so `values` is reserved once; the copies are then made in whole chunks
/// (see `copy_chunks`) where the page and the output have the bytes to spare.
pub fn decode_byte_array<O: OffsetSize>(
    data: &[u8],
    n: usize,
    offsets: &mut Vec<O>,
    values: &mut Vec<u8>,
) -> Result<usize> {
    // Pass 1: validate the lengths and total the bytes.
    let consumed = for_each_byte_array(data, n, |_| {})?;
    let total = consumed - 4 * n;
    reserve_byte_array(NAME, offsets, values, n, total)?;
    // Pass 2: copy into the spare capacity reserved above, in whole chunks where the page
    // and the capacity have COPY_SLACK bytes to spare past the value.
    let start = values.len();
    let room = values.capacity();
    let base = values.as_mut_ptr();
    let mut out = start;
    let mut pos = 0usize;
    for o in &mut offsets.spare_capacity_mut()[..n] {
        // Pass 1 checked that every length and its bytes lie in `data[..consumed]`.
        let len = read_length(data, pos).unwrap_or(0);
        let src = pos + 4;
        if src + len + COPY_SLACK <= data.len() && out + len + COPY_SLACK <= room {
            // SAFETY: `src + len + COPY_SLACK <= data.len()`: readable, and
            // `out + len + COPY_SLACK <= room`, the capacity of `values`: writable, as
            // `copy_chunks` needs; `data` is not part of `values`, so they do not overlap.
            unsafe { copy_chunks(data.as_ptr().add(src), base.add(out), len) };
        } else {
            let piece = &data[src..src + len];
            // SAFETY: `out + len <= start + total` (the lengths of pass 1 total `total`), inside
            // the capacity reserved above; `piece` does not overlap `values`.
            unsafe { std::ptr::copy_nonoverlapping(piece.as_ptr(), base.add(out), len) };
        }
        out += len;
        pos = src + len;
        o.write(O::from_usize(out));
    }
    // SAFETY: the loop wrote bytes `start..out` of `values` (`out == start + total`) and the
    // `n` offsets after `offsets.len()`, within the capacities reserved above.
    unsafe {
        values.set_len(out);
        offsets.set_len(offsets.len() + n);
    }
    Ok(consumed)
}

/// Calls `f` with each of the first `n` BYTE_ARRAY values of `data` in turn, each checked to
/// lie within it first; returns the bytes consumed.
#[inline]
pub fn for_each_byte_array(data: &[u8], n: usize, mut f: impl FnMut(&[u8])) -> Result<usize> {
    // Each value needs at least 4 bytes.
    if n > data.len() / 4 {
        return Err(truncated("BYTE_ARRAY", n, n.saturating_mul(4), data.len()));
    }
    let mut pos = 0usize;
    for i in 0..n {
        let len = read_length(data, pos).ok_or_else(|| {
            error(
                NAME,
                format!("BYTE_ARRAY value {i} of {n}: length truncated at byte {pos}"),
            )
        })?;
        pos += 4;
        let Some(value) = data.get(pos..).and_then(|rest| rest.get(..len)) else {
            return Err(error(
                NAME,
                format!(
                    "BYTE_ARRAY value {i} of {n}: length {len} > {} bytes remaining",
                    data.len() - pos
                ),
            ));
        };
        f(value);
        pos += len;
    }
    Ok(pos)
}

/// `data` past its first `n` PLAIN BYTE_ARRAY values (length-prefixed), which are checked to
/// lie within it.
pub fn skip_byte_array(data: &[u8], n: usize) -> Result<&[u8]> {
    let mut pos = 0usize;
    for i in 0..n {
        let end = read_length(data, pos)
            .and_then(|len| pos.checked_add(4)?.checked_add(len))
            .filter(|&end| end <= data.len())
            .ok_or_else(|| {
                error(
                    NAME,
                    format!("BYTE_ARRAY value {i} of {n} skipped: truncated at byte {pos}"),
                )
            })?;
        pos = end;
    }
    Ok(data.get(pos..).unwrap_or_default())
}

/// The 4-byte little-endian length at `data[pos..]`, if all four bytes are there.
#[inline(always)]
fn read_length(data: &[u8], pos: usize) -> Option<usize> {
    let b: [u8; 4] = data.get(pos..pos.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(b) as usize)
}

/// A streaming decoder of PLAIN booleans (bit-packed, LSB first).
#[derive(Debug, Clone)]
pub struct BooleanDecoder<'a> {
    data: &'a [u8],
    /// The next bit to read.
    bit: usize,
}

impl<'a> BooleanDecoder<'a> {
    /// A decoder of the bit-packed booleans in `data`.
    pub fn new(data: &'a [u8]) -> Self {
        BooleanDecoder { data, bit: 0 }
    }

    /// Booleans left (including the padding bits of the last byte).
    pub fn remaining(&self) -> usize {
        self.data.len() * 8 - self.bit
    }

    /// Bytes consumed so far (a started byte counts).
    pub fn consumed(&self) -> usize {
        self.bit.div_ceil(8)
    }

    fn check(&self, n: usize) -> Result<()> {
        if n > self.remaining() {
            return Err(error(
                NAME,
                format!("{n} BOOLEAN values requested, {} remain", self.remaining()),
            ));
        }
        Ok(())
    }

    /// Decodes the next `out.len()` booleans.
    pub fn decode(&mut self, out: &mut [bool]) -> Result<()> {
        self.check(out.len())?;
        for (i, o) in out.iter_mut().enumerate() {
            let b = self.bit + i;
            *o = self.data[b / 8] >> (b % 8) & 1 != 0;
        }
        self.bit += out.len();
        Ok(())
    }

    /// Decodes the next `n` booleans into bits `bit_offset..bit_offset + n` of the LSB-first
    /// bitmap `bitmap` (bits before `bit_offset` are kept; the bitmap ends at the last bit
    /// decoded, rounded up to a byte); returns the number of `true` values.
    pub fn decode_bitmap(
        &mut self,
        n: usize,
        bitmap: &mut Vec<u8>,
        bit_offset: usize,
    ) -> Result<usize> {
        self.check(n)?;
        let mut out = BitAppender::at(bitmap, bit_offset, n);
        let mut ones = 0;
        let mut done = 0;
        // Leading bits up to a source byte boundary one at a time, then whole source bytes.
        while done < n && !(self.bit + done).is_multiple_of(8) {
            let b = self.bit + done;
            let v = self.data[b / 8] >> (b % 8) & 1;
            out.push(u64::from(v), 1);
            ones += v as usize;
            done += 1;
        }
        let rest = n - done;
        let src = &self.data[(self.bit + done) / 8..];
        let (whole, tail) = src[..rest.div_ceil(8)].split_at(rest / 8);
        out.push_bytes(whole);
        ones += popcount(whole);
        if let Some(&last) = tail.first() {
            let last = last & ((1u8 << (rest % 8)) - 1);
            out.push(u64::from(last), (rest % 8) as u32);
            ones += last.count_ones() as usize;
        }
        self.bit += n;
        Ok(ones)
    }
}
