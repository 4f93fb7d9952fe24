//! The delta encodings (the inverses of [`crate::encoding::delta_binary_packed`],
//! [`crate::encoding::delta_length_byte_array`] and [`crate::encoding::delta_byte_array`]).
//!
//! DELTA_BINARY_PACKED is written as parquet-cpp and arrow-rs write it: blocks of 128 deltas
//! in 4 miniblocks of 32 by default, blocks of 256 in 4 miniblocks of 64 for INT64 (both
//! peers' choice, [`PYARROW_INT64_BLOCK_SIZE`]; the column writer uses it), wrapping arithmetic in the physical type (32-bit for INT32, so an
//! INT32 miniblock is at most 32 bits wide), the block's minimum delta subtracted, one bit
//! width per miniblock (the width of the OR of its values). In a partial last block the
//! last used miniblock is padded with zeros to a full miniblock and the unused miniblocks get width
//! 0 and no bytes. A block is computed on the stack (deltas, minimum, relative values,
//! widths: loops the compiler vectorizes) and each miniblock packed by
//! [`crate::encoding::bitpack`]'s per-width kernel.
//!
//! The header holds the value count, so the streaming encoders ([`DeltaBinaryPackedEncoder`],
//! [`DeltaLengthByteArrayEncoder`], [`DeltaByteArrayEncoder`]) keep the page's encoded blocks
//! (and byte-array bytes) in their own reusable buffers and write header and body at
//! [`flush`](DeltaBinaryPackedEncoder::flush); the one-shot functions ([`encode_binary_packed`],
//! [`encode_length_byte_array`]) write straight into the output.

use super::{
    bad_offsets, bit_width, check_validity, offset_range, ranges_of, write_uleb128, write_zigzag,
    Bitmap,
};
use crate::encoding::bitpack::pack;
use crate::encoding::delta_binary_packed::DeltaInt;
use crate::encoding::{copy_chunks, error, OffsetSize, COPY_SLACK};
use crate::Result;

/// The default block size: 128 values in 4 miniblocks of 32 (parquet-cpp's and arrow-rs's
/// for INT32).
pub const DEFAULT_BLOCK_SIZE: usize = 128;
/// The block size parquet-cpp (pyarrow) and arrow-rs use for INT64: 256 values in 4
/// miniblocks of 64.
/// Fewer block headers for smooth data; larger miniblocks for data with outliers.
pub const PYARROW_INT64_BLOCK_SIZE: usize = 256;

const MAX_BLOCK: usize = 256;
const MINIBLOCKS: usize = 4;

/// Checks a block size: 128 or 256.
fn check_block_size(block: usize) -> Result<()> {
    if block != DEFAULT_BLOCK_SIZE && block != PYARROW_INT64_BLOCK_SIZE {
        return Err(error(
            "DELTA_BINARY_PACKED",
            format!("block size {block}: 128 or 256 are written"),
        ));
    }
    Ok(())
}

/// An integer type DELTA_BINARY_PACKED encodes: `i32` (INT32) or `i64` (INT64).
pub trait DeltaValue: DeltaInt {
    /// `self - prev` wrapping in the type's width, sign-extended to `i64`.
    fn delta_from(self, prev: Self) -> i64;
}

impl DeltaValue for i32 {
    #[inline(always)]
    fn delta_from(self, prev: Self) -> i64 {
        i64::from(self.wrapping_sub(prev))
    }
}

impl DeltaValue for i64 {
    #[inline(always)]
    fn delta_from(self, prev: Self) -> i64 {
        self.wrapping_sub(prev)
    }
}

/// Writes the header: block size, miniblocks, value count, first value.
fn write_header(out: &mut Vec<u8>, block: usize, count: usize, first: i64) {
    write_uleb128(out, block as u64);
    write_uleb128(out, MINIBLOCKS as u64);
    write_uleb128(out, count as u64);
    write_zigzag(out, first);
}

/// Writes one block of 1..=`block` deltas (of an INT32 column: all in `i32` range).
fn write_block(deltas: &[i64], block: usize, out: &mut Vec<u8>) {
    debug_assert!(!deltas.is_empty() && deltas.len() <= block && block <= MAX_BLOCK);
    let min = deltas.iter().fold(i64::MAX, |a, &d| a.min(d));
    write_zigzag(out, min);
    let mut rel = [0u64; MAX_BLOCK];
    for (r, &d) in rel.iter_mut().zip(deltas) {
        *r = d.wrapping_sub(min) as u64;
    }
    let mini = block / MINIBLOCKS;
    let used = deltas.len().div_ceil(mini);
    let mut widths = [0u8; MINIBLOCKS];
    for (w, m) in widths.iter_mut().zip(rel.chunks_exact(mini)).take(used) {
        *w = bit_width(m.iter().fold(0, |a, &v| a | v)) as u8;
    }
    out.extend_from_slice(&widths);
    for (&w, m) in widths.iter().zip(rel.chunks_exact(mini)).take(used) {
        pack(m, u32::from(w), out);
    }
}

/// An upper bound of the encoded size of `n` values of `width` bytes.
fn max_len(n: usize, width: usize) -> usize {
    // Header: 2 + 2 + 10 + 10; per 128 values at most: min delta 10, widths 4, values of
    // `width` bytes (the deltas of INT32 fit 32 bits, of INT64 64).
    26 + n.div_ceil(128) * (14 + 128 * width)
}

/// Appends `values` DELTA_BINARY_PACKED-encoded (header and blocks) with blocks of
/// [`DEFAULT_BLOCK_SIZE`].
pub fn encode_binary_packed<T: DeltaValue>(values: &[T], out: &mut Vec<u8>) {
    encode_blocks(values, DEFAULT_BLOCK_SIZE, out);
}

/// Appends `values` DELTA_BINARY_PACKED-encoded with blocks of `block_size` values (128 or
/// 256, in 4 miniblocks; an error otherwise).
pub fn encode_binary_packed_with_block_size<T: DeltaValue>(
    values: &[T],
    block_size: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    check_block_size(block_size)?;
    encode_blocks(values, block_size, out);
    Ok(())
}

fn encode_blocks<T: DeltaValue>(values: &[T], block: usize, out: &mut Vec<u8>) {
    out.reserve(max_len(values.len(), std::mem::size_of::<T>()));
    let first = values.first().map_or(0, |v| v.to_i64());
    write_header(out, block, values.len(), first);
    let mut deltas = [0i64; MAX_BLOCK];
    // Each block takes the deltas that end at the values of its window.
    let mut i = 1;
    while i < values.len() {
        let k = (values.len() - i).min(block);
        for (d, w) in deltas.iter_mut().zip(values[i - 1..i + k].windows(2)) {
            *d = w[1].delta_from(w[0]);
        }
        write_block(&deltas[..k], block, out);
        i += k;
    }
}

/// A streaming DELTA_BINARY_PACKED encoder: [`put`](Self::put) batches, then
/// [`flush`](Self::flush) the page's data (header and blocks) into the output. Its buffers
/// are kept for the next page.
#[derive(Debug, Clone)]
pub struct DeltaBinaryPackedEncoder<T: DeltaValue> {
    count: usize,
    first: i64,
    prev: T,
    block: usize,
    deltas: [i64; MAX_BLOCK],
    ndeltas: usize,
    /// The encoded full blocks.
    blocks: Vec<u8>,
}

impl<T: DeltaValue> Default for DeltaBinaryPackedEncoder<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: DeltaValue> DeltaBinaryPackedEncoder<T> {
    /// An empty encoder with blocks of [`DEFAULT_BLOCK_SIZE`].
    pub fn new() -> Self {
        DeltaBinaryPackedEncoder {
            count: 0,
            first: 0,
            prev: T::default(),
            block: DEFAULT_BLOCK_SIZE,
            deltas: [0; MAX_BLOCK],
            ndeltas: 0,
            blocks: Vec::new(),
        }
    }

    /// An empty encoder with blocks of `block_size` values (128 or 256; an error otherwise).
    pub fn with_block_size(block_size: usize) -> Result<Self> {
        check_block_size(block_size)?;
        Ok(DeltaBinaryPackedEncoder {
            block: block_size,
            ..Self::new()
        })
    }

    /// Values put since the last flush.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True if no value was put since the last flush.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The size the data would have if flushed now, give or take the last block's bytes
    /// (estimated at the values' width): for page-size checks.
    pub fn estimated_len(&self) -> usize {
        26 + self.blocks.len() + self.ndeltas * std::mem::size_of::<T>()
    }

    /// Appends `values`.
    pub fn put(&mut self, values: &[T]) {
        let Some((&head, _)) = values.split_first() else {
            return;
        };
        let mut i = 0;
        if self.count == 0 {
            self.first = head.to_i64();
            self.prev = head;
            self.count = 1;
            i = 1;
        }
        while i < values.len() {
            let k = (values.len() - i).min(self.block - self.ndeltas);
            let nd = self.ndeltas;
            self.deltas[nd] = values[i].delta_from(self.prev);
            for (d, w) in self.deltas[nd + 1..nd + k]
                .iter_mut()
                .zip(values[i..i + k].windows(2))
            {
                *d = w[1].delta_from(w[0]);
            }
            self.prev = values[i + k - 1];
            self.ndeltas += k;
            self.count += k;
            i += k;
            if self.ndeltas == self.block {
                write_block(&self.deltas[..self.block], self.block, &mut self.blocks);
                self.ndeltas = 0;
            }
        }
    }

    /// Appends the values of the slots set in `validity` (one bit per element of `values`);
    /// returns how many.
    pub fn put_valid(&mut self, values: &[T], validity: Bitmap<'_>) -> Result<usize> {
        check_validity("DELTA_BINARY_PACKED", &validity, values.len())?;
        let mut n = 0;
        validity.for_each_set_run(|i, k| {
            self.put(&values[i..i + k]);
            n += k;
        });
        Ok(n)
    }

    /// Appends the data of every value put since the last flush to `out` and starts over.
    pub fn flush(&mut self, out: &mut Vec<u8>) {
        out.reserve(26 + self.blocks.len() + max_len(self.ndeltas, std::mem::size_of::<T>()));
        write_header(out, self.block, self.count, self.first);
        out.extend_from_slice(&self.blocks);
        if self.ndeltas > 0 {
            write_block(&self.deltas[..self.ndeltas], self.block, out);
        }
        self.count = 0;
        self.first = 0;
        self.ndeltas = 0;
        self.blocks.clear();
    }
}

const DLBA: &str = "DELTA_LENGTH_BYTE_ARRAY";
const DBA: &str = "DELTA_BYTE_ARRAY";

/// Checks offsets (valid range, monotonic, each value at most `i32::MAX` bytes) and returns
/// the byte range they span.
fn check_offsets<O: OffsetSize>(
    encoding: &'static str,
    offsets: &[O],
    values: &[u8],
) -> Result<(usize, usize)> {
    let range = offset_range(encoding, offsets, values)?;
    if let Some(i) = offsets.windows(2).position(|w| {
        let (a, b) = (w[0].to_usize(), w[1].to_usize());
        a > b || b.unwrap_or(0) - a.unwrap_or(0) > i32::MAX as usize
    }) {
        return Err(bad_offsets(encoding, i));
    }
    Ok(range)
}

/// The lengths of checked offsets, into `lengths` (cleared first).
fn lengths_of<O: OffsetSize>(offsets: &[O], lengths: &mut Vec<i32>) {
    lengths.clear();
    lengths.extend(
        offsets
            .windows(2)
            .map(|w| (w[1].to_usize().unwrap_or(0) - w[0].to_usize().unwrap_or(0)) as i32),
    );
}

/// Appends the BYTE_ARRAY values of Arrow-style `offsets` into `values` DELTA_LENGTH_BYTE_ARRAY
/// encoded: the lengths (DELTA_BINARY_PACKED), then all the bytes with one copy. `lengths` is
/// scratch space (reused across calls).
pub fn encode_length_byte_array<O: OffsetSize>(
    offsets: &[O],
    values: &[u8],
    lengths: &mut Vec<i32>,
    out: &mut Vec<u8>,
) -> Result<()> {
    let (first, last) = check_offsets(DLBA, offsets, values)?;
    lengths_of(offsets, lengths);
    out.reserve(max_len(lengths.len(), 4) + (last - first));
    encode_binary_packed(lengths, out);
    out.extend_from_slice(&values[first..last]);
    Ok(())
}

/// A streaming DELTA_LENGTH_BYTE_ARRAY encoder: lengths and bytes are kept until
/// [`flush`](Self::flush).
#[derive(Debug, Clone, Default)]
pub struct DeltaLengthByteArrayEncoder {
    lengths: DeltaBinaryPackedEncoder<i32>,
    bytes: Vec<u8>,
    scratch: Vec<i32>,
}

impl DeltaLengthByteArrayEncoder {
    /// An empty encoder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Values put since the last flush.
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    /// True if no value was put since the last flush.
    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// An estimate of the flushed size, for page-size checks.
    pub fn estimated_len(&self) -> usize {
        self.lengths.estimated_len() + self.bytes.len()
    }

    /// Appends the values of Arrow-style `offsets` into `values`.
    pub fn put<O: OffsetSize>(&mut self, offsets: &[O], values: &[u8]) -> Result<()> {
        let (first, last) = check_offsets(DLBA, offsets, values)?;
        lengths_of(offsets, &mut self.scratch);
        self.lengths.put(&self.scratch);
        self.bytes.extend_from_slice(&values[first..last]);
        Ok(())
    }

    /// Appends the values of the slots set in `validity`; returns how many.
    pub fn put_valid<O: OffsetSize>(
        &mut self,
        offsets: &[O],
        values: &[u8],
        validity: Bitmap<'_>,
    ) -> Result<usize> {
        check_offsets(DLBA, offsets, values)?;
        check_validity(DLBA, &validity, offsets.len() - 1)?;
        let mut n = 0;
        validity.for_each_set_run(|i, k| {
            let o = &offsets[i..i + k + 1];
            let (s, e) = (o[0].to_usize().unwrap_or(0), o[k].to_usize().unwrap_or(0));
            lengths_of(o, &mut self.scratch);
            self.lengths.put(&self.scratch);
            self.bytes.extend_from_slice(&values[s..e]);
            n += k;
        });
        Ok(n)
    }

    /// Appends the page's data (lengths, then bytes) to `out` and starts over.
    pub fn flush(&mut self, out: &mut Vec<u8>) {
        self.lengths.flush(out);
        out.extend_from_slice(&self.bytes);
        self.bytes.clear();
    }
}

/// The length of the common prefix of `a` and `b`, 8 bytes at a time.
#[inline]
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let (wa, _) = a.as_chunks::<8>();
    let (wb, _) = b.as_chunks::<8>();
    for (i, (x, y)) in wa.iter().zip(wb).enumerate() {
        let d = u64::from_le_bytes(*x) ^ u64::from_le_bytes(*y);
        if d != 0 {
            return i * 8 + d.trailing_zeros() as usize / 8;
        }
    }
    let mut i = wa.len() * 8;
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// A streaming DELTA_BYTE_ARRAY encoder (BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY): each value's
/// common prefix length with the previous value (DELTA_BINARY_PACKED), then the suffixes
/// (DELTA_LENGTH_BYTE_ARRAY), kept until [`flush`](Self::flush). The first value of a page has
/// prefix 0.
#[derive(Debug, Clone, Default)]
pub struct DeltaByteArrayEncoder {
    prefixes: DeltaBinaryPackedEncoder<i32>,
    suffixes: DeltaBinaryPackedEncoder<i32>,
    bytes: Vec<u8>,
    /// The page's previous value.
    last: Vec<u8>,
    prefix_scratch: Vec<i32>,
    suffix_scratch: Vec<i32>,
}

impl DeltaByteArrayEncoder {
    /// An empty encoder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Values put since the last flush.
    pub fn len(&self) -> usize {
        self.prefixes.len()
    }

    /// True if no value was put since the last flush.
    pub fn is_empty(&self) -> bool {
        self.prefixes.is_empty()
    }

    /// An estimate of the flushed size, for page-size checks.
    pub fn estimated_len(&self) -> usize {
        self.prefixes.estimated_len() + self.suffixes.estimated_len() + self.bytes.len()
    }

    /// Encodes the values `src[s..e]` of `ranges`, whose lengths total at most `total` bytes
    /// (ranges outside `src` stand for empty values: callers check them first).
    ///
    /// Suffixes are copied in 16-byte chunks ([`copy_chunks`]) where both `src` and the
    /// reserved output have [`COPY_SLACK`] bytes to spare, exactly elsewhere.
    fn put_ranges(
        &mut self,
        src: &[u8],
        ranges: impl Iterator<Item = (usize, usize)>,
        total: usize,
    ) {
        self.prefix_scratch.clear();
        self.suffix_scratch.clear();
        self.bytes.reserve(total + COPY_SLACK);
        let room = self.bytes.capacity();
        let mut prev: Option<&[u8]> = None;
        for (s, e) in ranges {
            let v = src.get(s..e).unwrap_or_default();
            let p = common_prefix(prev.unwrap_or(&self.last), v);
            let suffix = v.get(p..).unwrap_or_default();
            self.prefix_scratch.push(p as i32);
            self.suffix_scratch.push(suffix.len() as i32);
            let pos = self.bytes.len();
            let len = suffix.len();
            if s <= e && e + COPY_SLACK <= src.len() && pos + len + COPY_SLACK <= room {
                // SAFETY: `s <= e <= src.len()`, so `v` is `src[s..e]` (not the empty
                // default) and `suffix` ends at `src[e]`; `e + COPY_SLACK <= src.len()`:
                // readable; `pos + len + COPY_SLACK <= room`: inside the capacity; `src` is
                // not part of `self.bytes`. The `len` bytes after `pos` are initialized by
                // the copy before `set_len`.
                unsafe {
                    copy_chunks(suffix.as_ptr(), self.bytes.as_mut_ptr().add(pos), len);
                    self.bytes.set_len(pos + len);
                }
            } else {
                self.bytes.extend_from_slice(suffix);
            }
            prev = Some(v);
        }
        if let Some(p) = prev {
            self.last.clear();
            self.last.extend_from_slice(p);
        }
        self.prefixes.put(&self.prefix_scratch);
        self.suffixes.put(&self.suffix_scratch);
    }

    /// Appends the BYTE_ARRAY values of Arrow-style `offsets` into `values`.
    pub fn put<O: OffsetSize>(&mut self, offsets: &[O], values: &[u8]) -> Result<()> {
        let (first, last) = check_offsets(DBA, offsets, values)?;
        self.put_ranges(values, ranges_of(offsets), last - first);
        Ok(())
    }

    /// Appends the BYTE_ARRAY values of the slots set in `validity`; returns how many.
    pub fn put_valid<O: OffsetSize>(
        &mut self,
        offsets: &[O],
        values: &[u8],
        validity: Bitmap<'_>,
    ) -> Result<usize> {
        check_offsets(DBA, offsets, values)?;
        check_validity(DBA, &validity, offsets.len() - 1)?;
        let mut n = 0;
        validity.for_each_set_run(|i, k| {
            let o = offsets.get(i..i + k + 1).unwrap_or_default();
            let (s, e) = (o.first(), o.last());
            let total = match (s.and_then(|s| s.to_usize()), e.and_then(|e| e.to_usize())) {
                (Some(s), Some(e)) => e.saturating_sub(s),
                _ => 0,
            };
            self.put_ranges(values, ranges_of(o), total);
            n += k;
        });
        Ok(n)
    }

    /// Appends FIXED_LEN_BYTE_ARRAY values of `width` bytes stored back to back in `values`.
    pub fn put_fixed(&mut self, values: &[u8], width: usize) -> Result<()> {
        if width == 0 || width > i32::MAX as usize || !values.len().is_multiple_of(width) {
            return Err(error(
                DBA,
                format!(
                    "{} bytes are not whole values of {width} bytes",
                    values.len()
                ),
            ));
        }
        let n = values.len() / width;
        self.put_ranges(
            values,
            (0..n).map(|i| (i * width, i * width + width)),
            values.len(),
        );
        Ok(())
    }

    /// Appends the page's data (prefix lengths, suffix lengths, suffix bytes) to `out` and
    /// starts over.
    pub fn flush(&mut self, out: &mut Vec<u8>) {
        self.prefixes.flush(out);
        self.suffixes.flush(out);
        out.extend_from_slice(&self.bytes);
        self.bytes.clear();
        self.last.clear();
    }
}
