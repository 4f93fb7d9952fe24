//! RLE / bit-packing hybrid encoder: definition and repetition levels, dictionary indices and
//! RLE booleans (see [`crate::encoding::rle`] for the layout).
//!
//! Runs are chosen as parquet-cpp chooses them, so pages come out byte for byte like
//! pyarrow's: values are taken in groups of 8 counted from the end of the last RLE run; a
//! group of 8 equal values starts an RLE run, which then extends value by value as far as
//! the value repeats; other groups go to a bit-packed run of at most 63 groups (so its header
//! is one byte, written when the run closes). At the end, a partial group of equal values
//! with no bit-packed run open is an RLE run; otherwise it is padded with zeros into the
//! bit-packed run.
//!
//! [`RleEncoder`] is streaming: batches of values ([`RleEncoder::put`]), repeated values
//! ([`RleEncoder::put_repeated`], O(1) for a long run) and 1-bit data straight from an Arrow
//! bitmap ([`RleEncoder::put_bitmap`]: words of equal bits extend RLE runs 64 at a time, and
//! bit-packed groups of width 1 are the bitmap's bytes) can be mixed; the page's data is
//! complete after [`RleEncoder::flush`]. Bit-packed groups of the other widths are packed a
//! run at a time by [`crate::encoding::bitpack`]'s per-width kernels.

use super::{bit_width, write_uleb128, Bitmap};
use crate::encoding::bitpack::pack;
use crate::encoding::error;
use crate::Result;

const NAME: &str = "RLE";

/// The most groups in one bit-packed run: its header `63 << 1 | 1` fits one byte.
const MAX_GROUPS: usize = 63;

/// A streaming RLE / bit-packing hybrid encoder of values of a fixed bit width (0..=32).
///
/// Between [`new`](Self::new) (or [`reset`](Self::reset)) and [`flush`](Self::flush), every
/// call must be given the same `out`, and nothing else may write to it: an open bit-packed
/// run's header byte is patched in place when the run closes.
#[derive(Debug, Clone)]
pub struct RleEncoder {
    bit_width: u32,
    /// Values of a group not complete yet.
    pending: [u32; 8],
    npending: usize,
    /// An RLE run in progress (`run_len >= 8`), written when it ends.
    run_value: u32,
    run_len: u64,
    /// An open bit-packed run: its groups so far and the position of its header byte.
    lit_groups: usize,
    lit_pos: usize,
}

impl RleEncoder {
    /// An encoder of values of `bit_width` bits (at most 32).
    pub fn new(bit_width: u32) -> Result<Self> {
        if bit_width > 32 {
            return Err(error(NAME, format!("bit width {bit_width} > 32")));
        }
        Ok(Self::with_width(bit_width))
    }

    /// An encoder of a width already checked (at most 32).
    const fn with_width(bit_width: u32) -> Self {
        RleEncoder {
            bit_width,
            pending: [0; 8],
            npending: 0,
            run_value: 0,
            run_len: 0,
            lit_groups: 0,
            lit_pos: 0,
        }
    }

    /// The bit width of the values.
    pub fn bit_width(&self) -> u32 {
        self.bit_width
    }

    /// Drops any unflushed state, to start a new page's data.
    pub fn reset(&mut self) {
        self.npending = 0;
        self.run_len = 0;
        self.lit_groups = 0;
    }

    /// An upper bound of the bytes `n` more values add: every value bit-packed, plus the
    /// headers of runs of 63 groups and a padded last group.
    pub fn max_encoded_len(n: usize, bit_width: u32) -> usize {
        let groups = n.div_ceil(8) + 1;
        groups * bit_width as usize + groups.div_ceil(MAX_GROUPS) + 5 + 4
    }

    #[cold]
    #[inline(never)]
    fn too_wide(&self, or: u64) -> crate::Error {
        error(
            NAME,
            format!(
                "a value of {} bits does not fit bit width {}",
                bit_width(or),
                self.bit_width
            ),
        )
    }

    /// Appends `values` (each below `2^bit_width`; an error otherwise, before anything is
    /// written). `T` is `u8`, `u16` (levels), `u32` (indices) or `u64`.
    pub fn put<T: Copy + Into<u64> + PartialEq>(
        &mut self,
        values: &[T],
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let or = values.iter().fold(0u64, |a, &v| a | v.into());
        if or >> self.bit_width != 0 {
            return Err(self.too_wide(or));
        }
        out.reserve(Self::max_encoded_len(values.len(), self.bit_width));
        let n = values.len();
        let mut i = 0;
        loop {
            if self.run_len > 0 {
                let k = equal_prefix(&values[i..], u64::from(self.run_value));
                self.run_len += k as u64;
                i += k;
                if i == n {
                    return Ok(());
                }
                self.end_run(out);
            }
            if self.npending > 0 || n - i < 8 {
                let take = (8 - self.npending).min(n - i);
                for (p, &v) in self.pending[self.npending..self.npending + take]
                    .iter_mut()
                    .zip(&values[i..i + take])
                {
                    *p = v.into() as u32;
                }
                self.npending += take;
                i += take;
                if self.npending < 8 {
                    return Ok(());
                }
                self.npending = 0;
                let g = self.pending;
                self.group(&g, out);
                continue;
            }
            // Whole groups straight from `values`: the bit-packed ones in one packing call.
            let room = MAX_GROUPS - self.lit_groups;
            let mut k = 0;
            while k < room && i + 8 * (k + 1) <= n && !all_equal(&values[i + 8 * k..][..8]) {
                k += 1;
            }
            if k > 0 {
                self.literal(&values[i..i + 8 * k], out);
                i += 8 * k;
            } else {
                // `n - i >= 8` and the room is never 0: the group at `i` is all equal.
                self.start_run(values[i].into() as u32, out);
                i += 8;
            }
        }
    }

    /// Appends `n` copies of `value` (below `2^bit_width`): O(1) once an RLE run is under
    /// way.
    pub fn put_repeated(&mut self, value: u32, n: usize, out: &mut Vec<u8>) -> Result<()> {
        if u64::from(value) >> self.bit_width != 0 {
            return Err(self.too_wide(u64::from(value)));
        }
        let mut left = n;
        while left > 0 {
            if self.run_len > 0 {
                if value == self.run_value {
                    self.run_len += left as u64;
                    return Ok(());
                }
                self.end_run(out);
            }
            if self.npending > 0 || left < 8 {
                let take = (8 - self.npending).min(left);
                self.pending[self.npending..self.npending + take].fill(value);
                self.npending += take;
                left -= take;
                if self.npending == 8 {
                    self.npending = 0;
                    let g = self.pending;
                    self.group(&g, out);
                }
            } else {
                self.start_run(value, out);
                left -= 8;
            }
        }
        Ok(())
    }

    /// Appends the bits of `bitmap` as 1-bit values (the bit width must be 1): levels of a
    /// column with max definition level 1 from its validity bitmap, or booleans. No level is
    /// materialized: equal bits extend runs a word at a time, and bit-packed groups are the
    /// bitmap's bytes (shifted to the range's offset).
    pub fn put_bitmap(&mut self, bitmap: Bitmap<'_>, out: &mut Vec<u8>) -> Result<()> {
        if self.bit_width != 1 {
            return Err(error(
                NAME,
                format!("bitmap encoding needs bit width 1, not {}", self.bit_width),
            ));
        }
        let n = bitmap.len();
        out.reserve(Self::max_encoded_len(n, 1));
        let mut i = 0;
        loop {
            if self.run_len > 0 {
                let ones = self.run_value == 1;
                while i < n {
                    let w = bitmap.word(i);
                    let avail = (n - i).min(64);
                    let t = if ones {
                        w.trailing_ones()
                    } else {
                        w.trailing_zeros()
                    } as usize;
                    let t = t.min(avail);
                    self.run_len += t as u64;
                    i += t;
                    if t < avail {
                        break;
                    }
                }
                if i == n {
                    return Ok(());
                }
                self.end_run(out);
            }
            if self.npending > 0 || n - i < 8 {
                let take = (8 - self.npending).min(n - i);
                let w = bitmap.word(i);
                for (k, p) in self.pending[self.npending..self.npending + take]
                    .iter_mut()
                    .enumerate()
                {
                    *p = (w >> k & 1) as u32;
                }
                self.npending += take;
                i += take;
                if self.npending < 8 {
                    return Ok(());
                }
                self.npending = 0;
                let g = self.pending;
                self.group(&g, out);
                continue;
            }
            // Up to 8 whole groups (bytes) of the next word.
            let w = bitmap.word(i);
            let whole = ((n - i) / 8).min(8).min(MAX_GROUPS - self.lit_groups);
            let mut k = 0;
            while k < whole {
                let b = (w >> (8 * k)) as u8;
                if b == 0 || b == 0xff {
                    break;
                }
                k += 1;
            }
            if k > 0 {
                self.open_literal(out);
                out.extend_from_slice(&w.to_le_bytes()[..k]);
                self.lit_groups += k;
                if self.lit_groups == MAX_GROUPS {
                    self.close_literal(out);
                }
                i += 8 * k;
            } else {
                // `whole >= 1` (n - i >= 8, room >= 1) and byte 0 is all zeros or all ones.
                self.start_run((w & 1) as u32, out);
                i += 8;
            }
        }
    }

    /// Writes what is pending (a run, a partial group) and closes the open bit-packed run:
    /// the data in `out` is then complete. The encoder can be used for the next page.
    pub fn flush(&mut self, out: &mut Vec<u8>) {
        if self.run_len > 0 {
            self.end_run(out);
        }
        if self.npending > 0 {
            let p = &self.pending[..self.npending];
            if self.lit_groups == 0 && p.iter().all(|&v| v == p[0]) {
                self.run_value = p[0];
                self.run_len = self.npending as u64;
                self.end_run(out);
            } else {
                let mut g = [0u32; 8];
                g[..self.npending].copy_from_slice(p);
                self.literal(&g, out);
            }
            self.npending = 0;
        }
        self.close_literal(out);
    }

    /// A complete group of 8 pending values.
    fn group(&mut self, g: &[u32; 8], out: &mut Vec<u8>) {
        if all_equal(g) {
            self.start_run(g[0], out);
        } else {
            self.literal(g, out);
        }
    }

    #[inline]
    fn open_literal(&mut self, out: &mut Vec<u8>) {
        if self.lit_groups == 0 {
            self.lit_pos = out.len();
            out.push(0);
        }
    }

    /// Appends whole groups (at most the room left in the open run) to a bit-packed run.
    fn literal<T: Copy + Into<u64>>(&mut self, groups: &[T], out: &mut Vec<u8>) {
        self.open_literal(out);
        pack(groups, self.bit_width, out);
        self.lit_groups += groups.len() / 8;
        if self.lit_groups == MAX_GROUPS {
            self.close_literal(out);
        }
    }

    fn close_literal(&mut self, out: &mut [u8]) {
        if self.lit_groups > 0 {
            out[self.lit_pos] = (self.lit_groups << 1 | 1) as u8;
            self.lit_groups = 0;
        }
    }

    fn start_run(&mut self, value: u32, out: &mut [u8]) {
        self.close_literal(out);
        self.run_value = value;
        self.run_len = 8;
    }

    fn end_run(&mut self, out: &mut Vec<u8>) {
        write_uleb128(out, self.run_len << 1);
        let bytes = self.bit_width.div_ceil(8) as usize;
        out.extend_from_slice(&self.run_value.to_le_bytes()[..bytes]);
        self.run_len = 0;
    }
}

#[inline(always)]
fn all_equal<T: Copy + PartialEq>(g: &[T]) -> bool {
    let first = g[0];
    g.iter().fold(true, |a, &v| a & (v == first))
}

/// How many values at the start of `values` equal `v`: 16 at a time, then one at a time.
#[inline]
fn equal_prefix<T: Copy + Into<u64>>(values: &[T], v: u64) -> usize {
    let mut k = 0;
    for chunk in values.chunks_exact(16) {
        if !chunk.iter().fold(true, |a, &x| a & (x.into() == v)) {
            break;
        }
        k += 16;
    }
    while k < values.len() && values[k].into() == v {
        k += 1;
    }
    k
}

/// The bit width of levels up to `max_level`.
pub fn level_bit_width(max_level: u16) -> u32 {
    bit_width(u64::from(max_level))
}

/// Appends a 4-byte placeholder for a v1 length prefix; returns its position for
/// [`end_length_prefix`].
pub fn begin_length_prefix(out: &mut Vec<u8>) -> usize {
    out.extend_from_slice(&[0; 4]);
    out.len() - 4
}

/// Writes the length of the data after the prefix at `pos` into it; an error if it exceeds
/// `u32::MAX` bytes.
pub fn end_length_prefix(out: &mut [u8], pos: usize) -> Result<()> {
    let len = out.len() - pos - 4;
    let len = u32::try_from(len).map_err(|_| {
        error(
            NAME,
            format!("{len} bytes overflow the 4-byte length prefix"),
        )
    })?;
    out[pos..pos + 4].copy_from_slice(&len.to_le_bytes());
    Ok(())
}

/// Appends `values` of `bit_width` bits as complete hybrid data without a length prefix (v2
/// page levels).
pub fn encode<T: Copy + Into<u64> + PartialEq>(
    values: &[T],
    bit_width: u32,
    out: &mut Vec<u8>,
) -> Result<()> {
    let mut e = RleEncoder::new(bit_width)?;
    e.put(values, out)?;
    e.flush(out);
    Ok(())
}

/// Appends `values` of `bit_width` bits as hybrid data behind its 4-byte length (v1 page
/// levels).
pub fn encode_with_length_prefix<T: Copy + Into<u64> + PartialEq>(
    values: &[T],
    bit_width: u32,
    out: &mut Vec<u8>,
) -> Result<()> {
    let start = out.len();
    let pos = begin_length_prefix(out);
    match encode(values, bit_width, out) {
        Ok(()) => end_length_prefix(out, pos),
        Err(e) => {
            out.truncate(start);
            Err(e)
        }
    }
}

/// Appends the bits of `bitmap` as 1-bit hybrid data without a length prefix: the v2
/// definition levels of a column with max definition level 1, from its validity bitmap.
pub fn encode_bitmap(bitmap: Bitmap<'_>, out: &mut Vec<u8>) {
    let mut e = RleEncoder::with_width(1);
    // Width 1 is the width `put_bitmap` needs: it cannot fail.
    let _ = e.put_bitmap(bitmap, out);
    e.flush(out);
}

/// Appends the bits of `bitmap` as 1-bit hybrid data behind its 4-byte length: v1
/// definition levels from a validity bitmap, or RLE-encoded booleans (the RLE encoding of
/// BOOLEAN values always has the length prefix).
pub fn encode_bitmap_with_length_prefix(bitmap: Bitmap<'_>, out: &mut Vec<u8>) -> Result<()> {
    let pos = begin_length_prefix(out);
    encode_bitmap(bitmap, out);
    end_length_prefix(out, pos)
}

/// Appends RLE_DICTIONARY data: the bit-width byte for a dictionary of `num_entries`
/// entries (the width of `num_entries - 1`, as parquet-cpp), then the hybrid-encoded
/// `indices` (each below `num_entries`; an error otherwise).
pub fn encode_dictionary_indices(
    indices: &[u32],
    num_entries: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    let w = bit_width(num_entries.saturating_sub(1) as u64);
    if let Some(&max) = indices.iter().max() {
        if max as usize >= num_entries {
            return Err(error(
                "RLE_DICTIONARY",
                format!("index {max} out of a dictionary of {num_entries} entries"),
            ));
        }
    }
    out.push(w as u8);
    encode(indices, w, out)
}
