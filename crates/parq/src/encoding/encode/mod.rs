//! Page value and level ENCODERS, the write path's inverse of the decoders beside this module.
//!
//! Every encoder appends to a caller-owned `Vec<u8>` (reused page after page), sizes it up
//! front where the output size is known, and works on batches (Arrow-style slices, offsets
//! and LSB-first validity bitmaps) without allocating per value:
//!
//! - [`rle`]: the RLE / bit-packing hybrid (levels, dictionary indices, RLE booleans) with
//!   parquet-cpp's run choices, a streaming [`rle::RleEncoder`] and a 1-bit path straight from
//!   a validity [`Bitmap`]; v1 (length-prefixed) and v2 level helpers.
//! - [`plain`]: PLAIN for every physical type, with null-compacting variants that take the
//!   values of every slot and a validity bitmap and write only the valid ones.
//! - [`dictionary`]: dictionary building (hash tables keyed by value bits or by cached byte
//!   hashes over one arena), the PLAIN dictionary page and the RLE_DICTIONARY data.
//! - [`delta`]: DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY.
//! - [`byte_stream_split`]: BYTE_STREAM_SPLIT for any value width.
//! - [`alp`]: ALP for FLOAT and DOUBLE, with its sampled choice of exponents.
//!
//! Errors are [`ErrorKind::Encoding`](crate::ErrorKind::Encoding) errors naming the encoding:
//! a value wider than the bit width it is encoded with, offsets that are not monotonic or
//! point past their values, a bitmap shorter than its bit range, a total that overflows
//! what the format can hold. Inputs are Arrow data, so the checks are cheap passes (an OR
//! over the values, the first and last offsets), not per-value branches in the kernels.

use super::error;
use crate::Result;

pub mod alp;
pub mod byte_stream_split;
pub mod delta;
pub mod dictionary;
pub mod plain;
pub mod rle;

/// Appends `v` as a ULEB128 varint.
#[inline]
pub(crate) fn write_uleb128(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `v` as a zigzag ULEB128 varint.
#[inline]
pub(crate) fn write_zigzag(out: &mut Vec<u8>, v: i64) {
    write_uleb128(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// The number of bits needed for values up to `max` (0 for 0).
#[inline]
pub fn bit_width(max: u64) -> u32 {
    64 - max.leading_zeros()
}

/// An LSB-first bitmap range (an Arrow validity or boolean buffer): bits
/// `offset..offset + len` of `bytes`.
#[derive(Debug, Clone, Copy)]
pub struct Bitmap<'a> {
    bytes: &'a [u8],
    offset: usize,
    len: usize,
}

impl<'a> Bitmap<'a> {
    /// Bits `offset..offset + len` of `bytes`; an error if `bytes` is shorter.
    pub fn new(bytes: &'a [u8], offset: usize, len: usize) -> Result<Self> {
        match offset.checked_add(len) {
            Some(end) if end.div_ceil(8) <= bytes.len() => Ok(Bitmap { bytes, offset, len }),
            _ => Err(error(
                "bitmap",
                format!(
                    "bits {offset}..+{len} lie past a bitmap of {} bytes",
                    bytes.len()
                ),
            )),
        }
    }

    /// The number of bits.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if the range is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bits `i..i + 64` of the range as a word (bit `i` lowest); bits past the range are 0.
    #[inline(always)]
    pub(crate) fn word(&self, i: usize) -> u64 {
        let abs = self.offset + i;
        let (byte, shift) = (abs / 8, abs % 8);
        // Nine bytes from `byte` (zero past the end of `bytes`), so a shifted word is whole.
        let mut b = [0u8; 9];
        match self.bytes.get(byte..byte + 9) {
            Some(whole) => b.copy_from_slice(whole),
            None => {
                let rest = self.bytes.get(byte..).unwrap_or_default();
                let k = rest.len().min(9);
                b[..k].copy_from_slice(&rest[..k]);
            }
        }
        let lo = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        let w = if shift == 0 {
            lo
        } else {
            lo >> shift | u64::from(b[8]) << (64 - shift)
        };
        let left = self.len.saturating_sub(i);
        if left >= 64 {
            w
        } else {
            w & ((1u64 << left) - 1)
        }
    }

    /// The number of set bits.
    pub fn count_ones(&self) -> usize {
        let mut n = 0;
        let mut i = 0;
        while i < self.len {
            n += self.word(i).count_ones() as usize;
            i += 64;
        }
        n
    }

    /// Replaces `out` with the values of `values` whose bit is set (bit `i` for `values[i]`;
    /// values past the range are ignored), a 64-bit word at a time: all-set words copy 64
    /// values, clear words skip them, mixed words store every value and advance the output
    /// position by its bit (no branch per value).
    pub fn compact<T: Copy>(&self, values: &[T], out: &mut Vec<T>) {
        out.clear();
        let n = values.len().min(self.len);
        out.reserve(n);
        let dst = out.as_mut_ptr();
        let mut pos = 0usize;
        for (w, chunk) in values[..n].chunks(64).enumerate() {
            let bits = self.word(w * 64);
            if bits == u64::MAX {
                // SAFETY: at most `w * 64` values were kept before this chunk, so
                // `pos + chunk.len() <= n <= capacity`; `values` is not part of `out`.
                unsafe { std::ptr::copy_nonoverlapping(chunk.as_ptr(), dst.add(pos), chunk.len()) };
                pos += chunk.len();
            } else if bits != 0 {
                for (j, &v) in chunk.iter().enumerate() {
                    // SAFETY: `pos <= w * 64 + j < n <= capacity` (a slot is kept at most
                    // once per value before it).
                    unsafe { dst.add(pos).write(v) };
                    pos += (bits >> j & 1) as usize;
                }
            }
        }
        // SAFETY: the `pos` values before `pos` were written above (each kept slot was
        // written before `pos` moved past it) and `pos <= n <= capacity`.
        unsafe { out.set_len(pos) };
    }

    /// Calls `f(i, k)` for every run of `k` consecutive set bits starting at bit `i`, in
    /// order, a 64-bit word at a time (all-set words extend a run without a bit loop).
    #[inline]
    pub(crate) fn for_each_set_run(&self, mut f: impl FnMut(usize, usize)) {
        let (mut run_start, mut run_len) = (0usize, 0usize);
        let mut i = 0;
        while i < self.len {
            let mut w = self.word(i);
            let bits = (self.len - i).min(64);
            if w == u64::MAX {
                if run_len == 0 {
                    run_start = i;
                }
                run_len += 64;
            } else {
                let mut pos = 0usize;
                while pos < bits {
                    if w & 1 == 1 {
                        let ones = (w.trailing_ones() as usize).min(bits - pos);
                        if run_len == 0 {
                            run_start = i + pos;
                        } else if run_start + run_len != i + pos {
                            f(run_start, run_len);
                            run_start = i + pos;
                            run_len = 0;
                        }
                        run_len += ones;
                        pos += ones;
                        w = w.checked_shr(ones as u32).unwrap_or(0);
                    } else {
                        if run_len > 0 {
                            f(run_start, run_len);
                            run_len = 0;
                        }
                        let zeros = if w == 0 {
                            bits - pos
                        } else {
                            w.trailing_zeros() as usize
                        };
                        pos += zeros;
                        w = w.checked_shr(zeros as u32).unwrap_or(0);
                    }
                }
            }
            i += 64;
        }
        if run_len > 0 {
            f(run_start, run_len);
        }
    }
}

/// Checks Arrow-style `offsets` (at least one entry; `offsets[0]..offsets[n]` within
/// `values`) and returns the first and last as `usize`. Monotonicity of the entries in
/// between is the caller's Arrow invariant; the kernels still never read out of bounds when
/// it does not hold (they check each slice), they only produce an error.
pub(crate) fn offset_range<O: super::OffsetSize>(
    encoding: &'static str,
    offsets: &[O],
    values: &[u8],
) -> Result<(usize, usize)> {
    let (Some(first), Some(last)) = (offsets.first(), offsets.last()) else {
        return Err(error(
            encoding,
            "offsets must hold at least one entry".to_string(),
        ));
    };
    match (first.to_usize(), last.to_usize()) {
        (Some(a), Some(b)) if a <= b && b <= values.len() => Ok((a, b)),
        _ => Err(error(
            encoding,
            format!(
                "offsets {first:?}..{last:?} out of {} value bytes",
                values.len()
            ),
        )),
    }
}

/// The error for offsets that decrease.
#[cold]
#[inline(never)]
pub(crate) fn bad_offsets(encoding: &'static str, i: usize) -> crate::Error {
    error(
        encoding,
        format!("offsets decrease or leave the values at value {i}"),
    )
}

/// Checks that a validity bitmap covers exactly `n` slots.
pub(crate) fn check_validity(
    encoding: &'static str,
    validity: &Bitmap<'_>,
    n: usize,
) -> Result<()> {
    if validity.len() != n {
        return Err(error(
            encoding,
            format!("{} validity bits for {n} values", validity.len()),
        ));
    }
    Ok(())
}

/// The `(start, end)` byte ranges of checked offsets.
pub(crate) fn ranges_of<O: super::OffsetSize>(
    offsets: &[O],
) -> impl Iterator<Item = (usize, usize)> + '_ {
    offsets
        .windows(2)
        .map(|w| (w[0].to_usize().unwrap_or(0), w[1].to_usize().unwrap_or(0)))
}
