//! DELTA_BINARY_PACKED (= 5) for INT32 and INT64.
//!
//! ```text
//! header: <block size: ULEB128> <miniblocks per block: ULEB128> <total values: ULEB128>
//!         <first value: zigzag ULEB128>
//! block:  <min delta: zigzag ULEB128> <one bit-width byte per miniblock> <miniblocks>
//! ```
//!
//! Each miniblock holds `block size / miniblocks` deltas (minus the block's min delta),
//! bit-packed LSB first with its own width (0..=64; above 32 for INT32 only in files that
//! computed the deltas in 64 bits, like DuckDB's, whose low 32 bits are kept). They are unpacked a group of 8 at a time
//! straight into the output, and each group is prefix-summed while still in registers
//! (`unpack_with`), with wrapping arithmetic (32-bit for INT32, 64-bit for INT64), as the
//! spec requires. The output grows a window of values at a time, so a header claiming many
//! values (width-0 miniblocks cost no bytes) does not allocate ahead of decoding. Widths of
//! miniblocks past the last value are ignored; the last miniblock may stop after the groups
//! that hold values.

use super::bitpack::{unpack_with, Unpacked};
use super::{error, read_uleb128, read_zigzag};
use crate::Result;

const NAME: &str = "DELTA_BINARY_PACKED";

/// The most values reserved ahead of decoding.
const RESERVE_LIMIT: usize = 1 << 16;

/// Values decoded per step: the output is grown (zero-filled) by this many, then decoded
/// into in place while those bytes are still in cache.
const WINDOW: usize = 1 << 12;

/// An integer type DELTA_BINARY_PACKED decodes to: `i32` (INT32) or `i64` (INT64).
pub trait DeltaInt: Unpacked + std::fmt::Debug {
    /// The physical type's name, for errors.
    const PHYSICAL: &'static str;
    /// `self + other`, wrapping.
    fn wrapping_add(self, other: Self) -> Self;
    /// Truncates `v` to this type.
    fn from_i64(v: i64) -> Self;
    /// Sign-extends to `i64`.
    fn to_i64(self) -> i64;
}

impl DeltaInt for i32 {
    const PHYSICAL: &'static str = "INT32";
    #[inline(always)]
    fn wrapping_add(self, other: Self) -> Self {
        i32::wrapping_add(self, other)
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        v as i32
    }
    #[inline(always)]
    fn to_i64(self) -> i64 {
        i64::from(self)
    }
}

impl DeltaInt for i64 {
    const PHYSICAL: &'static str = "INT64";
    #[inline(always)]
    fn wrapping_add(self, other: Self) -> Self {
        i64::wrapping_add(self, other)
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        v
    }
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self
    }
}

/// A streaming decoder of DELTA_BINARY_PACKED data.
#[derive(Debug, Clone)]
pub struct DeltaBinaryPackedDecoder<'a> {
    data: &'a [u8],
    pos: usize,
    miniblocks: usize,
    miniblock_size: usize,
    total: usize,
    remaining: usize,
    /// Deltas in miniblocks not reached yet.
    deltas_left: usize,
    first_pending: bool,
    last: i64,
    min_delta: i64,
    /// Position of the current block's bit widths.
    widths_pos: usize,
    /// Index of the next miniblock in the block (`miniblocks` when a new block is needed).
    next_miniblock: usize,
    /// Values left in the whole groups of the current miniblock.
    miniblock_left: usize,
    /// End of the current miniblock (padding included, capped at the data's end).
    miniblock_end: usize,
    bit_width: u32,
    /// The values (final, not deltas) of a group decoded by a call that wanted fewer.
    group: [i64; 8],
    group_pos: usize,
    group_len: usize,
}

impl<'a> DeltaBinaryPackedDecoder<'a> {
    /// Reads and validates the header at the start of `data`.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        let mut pos = 0;
        let block_size = read_uleb128(data, &mut pos, NAME)?;
        let miniblocks = read_uleb128(data, &mut pos, NAME)?;
        let total = read_uleb128(data, &mut pos, NAME)?;
        let first = read_zigzag(data, &mut pos, NAME)?;
        if block_size == 0 || block_size % 128 != 0 || block_size > u64::from(u32::MAX) {
            return Err(error(
                NAME,
                format!("block size {block_size} is not a positive multiple of 128"),
            ));
        }
        if miniblocks == 0 || block_size % miniblocks != 0 || (block_size / miniblocks) % 8 != 0 {
            return Err(error(
                NAME,
                format!(
                    "{miniblocks} miniblocks per block do not divide the block size \
                     {block_size} into multiples of 8 values"
                ),
            ));
        }
        // Every block after the first value takes at least its min delta and bit widths.
        let remaining = (data.len() - pos) as u128;
        let blocks = u128::from(total.saturating_sub(1)).div_ceil(u128::from(block_size));
        if blocks * (1 + u128::from(miniblocks)) > remaining {
            return Err(error(
                NAME,
                format!(
                    "{total} values need {blocks} blocks, more than the {remaining} bytes \
                     that remain can hold"
                ),
            ));
        }
        let total = total as usize;
        let miniblocks = miniblocks as usize;
        Ok(DeltaBinaryPackedDecoder {
            data,
            pos,
            miniblocks,
            miniblock_size: block_size as usize / miniblocks,
            total,
            remaining: total,
            deltas_left: total.saturating_sub(1),
            first_pending: total > 0,
            last: first,
            min_delta: 0,
            widths_pos: pos,
            next_miniblock: miniblocks,
            miniblock_left: 0,
            miniblock_end: pos,
            bit_width: 0,
            group: [0; 8],
            group_pos: 0,
            group_len: 0,
        })
    }

    /// The total value count of the header.
    pub fn len(&self) -> usize {
        self.total
    }

    /// Whether the header's value count is 0.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Values not decoded yet.
    pub fn remaining(&self) -> usize {
        self.remaining
    }

    /// Bytes consumed so far; once every value is decoded, the length of the encoded data
    /// (including the last miniblock's padding), i.e. where the data that follows starts.
    pub fn consumed(&self) -> usize {
        self.pos.max(self.miniblock_end)
    }

    /// The length of the encoded data, i.e. where the data that follows starts: what
    /// [`consumed`](Self::consumed) returns once every value is decoded, found by walking the
    /// block headers and bit widths without decoding (or storing) a value. Its time is bounded
    /// by the data's bytes, not by the header's value count: every miniblock visited has a
    /// bit-width byte. Errors are those decoding would meet in the headers and sizes.
    pub fn encoded_len(&self) -> Result<usize> {
        let mut d = self.clone();
        d.pos += d.miniblock_left / 8 * d.bit_width as usize;
        d.miniblock_left = 0;
        while d.deltas_left > 0 {
            d.next_miniblock::<i64>()?;
            d.pos += d.miniblock_left / 8 * d.bit_width as usize;
            d.miniblock_left = 0;
        }
        Ok(d.consumed())
    }

    /// Decodes every value (appending them to `out`) and returns the bytes consumed. The
    /// output grows as the values are decoded, but it grows to the header's value count:
    /// check [`len`](Self::len) first when that count is not bounded otherwise.
    pub fn decode_all<T: DeltaInt>(mut self, out: &mut Vec<T>) -> Result<usize> {
        self.decode(self.remaining, out)?;
        Ok(self.consumed())
    }

    /// Appends the next `n` values to `out`; an error if fewer remain. On an error `out` is
    /// left as it was and the decoder yields no more values.
    pub fn decode<T: DeltaInt>(&mut self, n: usize, out: &mut Vec<T>) -> Result<()> {
        if n > self.remaining {
            return Err(error(
                NAME,
                format!("{n} values requested, {} remain", self.remaining),
            ));
        }
        // `n` may come from the data (a page's count of width-0 deltas costs no bytes), so
        // reserve a bounded amount up front and grow the output a window at a time, as the
        // values are decoded.
        out.reserve(n.min(RESERVE_LIMIT));
        let len = out.len();
        let mut want = n;
        while want > 0 {
            let step = want.min(WINDOW);
            let start = out.len();
            out.resize(start + step, T::default());
            if let Err(e) = self.fill(&mut out[start..]) {
                out.truncate(len);
                self.remaining = 0;
                return Err(e);
            }
            want -= step;
        }
        self.remaining -= n;
        Ok(())
    }

    /// Decodes the next `out.len()` values (the caller checked that they remain) into `out`.
    fn fill<T: DeltaInt>(&mut self, out: &mut [T]) -> Result<()> {
        let mut last = T::from_i64(self.last);
        let mut i = 0;
        if self.first_pending {
            if let Some(o) = out.first_mut() {
                *o = last;
                self.first_pending = false;
                i = 1;
            }
        }
        while i < out.len() {
            let want = out.len() - i;
            if self.group_pos < self.group_len {
                // The rest of a group decoded by a previous call (its values are final).
                let k = want.min(self.group_len - self.group_pos);
                let group = &self.group[self.group_pos..self.group_pos + k];
                for (o, &v) in out[i..i + k].iter_mut().zip(group) {
                    *o = T::from_i64(v);
                }
                self.group_pos += k;
                i += k;
            } else if self.miniblock_left > 0 && self.bit_width > T::BITS {
                // Deltas wider than the type (DuckDB writes INT32 deltas computed in 64
                // bits): a group is unpacked as 64-bit and its low bits kept, which gives the
                // same values, as the arithmetic is modulo 2^32 either way.
                let mut wide = [0u64; 8];
                unpack_with(&self.data[self.pos..], self.bit_width, &mut wide, |_| {});
                let min_delta = T::from_i64(self.min_delta);
                for (g, &v) in self.group.iter_mut().zip(&wide) {
                    last = last.wrapping_add(T::from_i64(v as i64).wrapping_add(min_delta));
                    *g = last.to_i64();
                }
                self.pos += self.bit_width as usize;
                self.miniblock_left -= 8;
                self.group_pos = 0;
                self.group_len = 8;
            } else if self.miniblock_left > 0 {
                let min_delta = T::from_i64(self.min_delta);
                let prefix_sum = |g: &mut [T; 8]| {
                    for v in g {
                        last = last.wrapping_add(v.wrapping_add(min_delta));
                        *v = last;
                    }
                };
                // Everything after the miniblock's start: the kernels read whole groups in
                // place when the bytes after them (padding, next miniblocks) allow it.
                let src = &self.data[self.pos..];
                let w = self.bit_width as usize;
                let k = (want / 8 * 8).min(self.miniblock_left);
                if k > 0 {
                    unpack_with(src, self.bit_width, &mut out[i..i + k], prefix_sum);
                    self.pos += k / 8 * w;
                    self.miniblock_left -= k;
                    i += k;
                } else {
                    // Fewer than 8 values wanted: decode a whole group, keep the rest.
                    let mut group = [T::default(); 8];
                    unpack_with(src, self.bit_width, &mut group, prefix_sum);
                    self.group = group.map(T::to_i64);
                    self.pos += w;
                    self.miniblock_left -= 8;
                    self.group_pos = 0;
                    self.group_len = 8;
                }
            } else {
                self.next_miniblock::<T>()?;
            }
        }
        self.last = last.to_i64();
        Ok(())
    }

    /// Moves to the next miniblock, reading a block header when needed.
    fn next_miniblock<T: DeltaInt>(&mut self) -> Result<()> {
        self.pos = self.miniblock_end;
        if self.next_miniblock == self.miniblocks {
            self.min_delta = read_zigzag(self.data, &mut self.pos, NAME)?;
            if self.data.len() - self.pos < self.miniblocks {
                return Err(error(
                    NAME,
                    format!(
                        "block needs {} bit-width bytes, {} remain",
                        self.miniblocks,
                        self.data.len() - self.pos
                    ),
                ));
            }
            self.widths_pos = self.pos;
            self.pos += self.miniblocks;
            self.next_miniblock = 0;
        }
        let width = u32::from(self.data[self.widths_pos + self.next_miniblock]);
        if width > 64 {
            return Err(error(
                NAME,
                format!("miniblock bit width {width} > 64 ({})", T::PHYSICAL),
            ));
        }
        // The deltas this miniblock holds (fewer in the last one).
        let values = self.miniblock_size.min(self.deltas_left);
        let groups = values.div_ceil(8);
        let w = width as usize;
        let needed = groups * w;
        let available = self.data.len() - self.pos;
        if needed > available {
            return Err(error(
                NAME,
                format!(
                    "miniblock of {values} values at bit width {width} needs {needed} bytes, \
                     {available} remain"
                ),
            ));
        }
        self.miniblock_end = self.pos + (self.miniblock_size / 8 * w).min(available);
        self.miniblock_left = groups * 8;
        self.bit_width = width;
        self.next_miniblock += 1;
        self.deltas_left -= values;
        Ok(())
    }
}
