//! Page index of written column chunks: a [`ColumnIndexBuilder`] and an
//! [`OffsetIndexBuilder`] per chunk record each data page as it is written; a file's
//! [`PageIndexWriter`] keeps every chunk's indexes, Thrift-encoded with parq-format's
//! encoders into two streams of bytes (a few dozen bytes per page, compressed a MiB at a
//! time, nothing else held), and writes them after the row groups: all column indexes, then all offset indexes, as
//! parquet-cpp and arrow-rs lay them out. It returns where each chunk's indexes landed, to be
//! set on its `ColumnChunk` (`column_index_offset`/`_length`, `offset_index_offset`/`_length`).
//!
//! Column index rules (the spec's, as pyarrow 26 and arrow-rs 60 apply them): a page holding
//! only nulls is a null page with empty min and max; a page whose non-null values give no
//! min/max (only NaNs under `TYPE_ORDER`, or a column without order such as INT96) makes the
//! chunk's column index invalid, and none is written for it (the offset index still is);
//! under `IEEE_754_TOTAL_ORDER` a page of NaNs only has its smallest and largest NaN as
//! bounds. Float columns get `nan_counts`. Min/max are
//! truncated as in the statistics ([`StatsAccumulator::bounds`]). `boundary_order` is computed
//! on the written bounds of non-null pages: ASCENDING when mins and maxes never decrease
//! (also for a single such page), else DESCENDING when they never increase, else UNORDERED
//! (also when every page is a null page, as pyarrow 26 writes it). `null_counts` is always written; level histograms (concatenated per page) when
//! the column's maximum level is above 0.

use std::cmp::Ordering;
use std::io::Write;

use super::packed::Packed;
use super::properties::property_error;
use super::size_stats::SizeStatsAccumulator;
use super::statistics::{StatsAccumulator, StatsOrder};
use crate::format::crypto::{ColumnEncryptor, ModuleType};
use crate::format::metadata::{
    BoundaryOrder, ByteRange, ColumnIndex, OffsetIndex, PageLocation, UnknownFields,
};
use crate::format::thrift::Writer;
use crate::Result;

/// Builds the `ColumnIndex` of one column chunk, page by page.
#[derive(Debug, Clone)]
pub struct ColumnIndexBuilder {
    order: StatsOrder,
    max_len: Option<usize>,
    buf: Vec<u8>,
    null_pages: Vec<bool>,
    min_values: Vec<ByteRange>,
    max_values: Vec<ByteRange>,
    null_counts: Vec<i64>,
    nan_counts: Vec<i64>,
    def_hist: Vec<i64>,
    rep_hist: Vec<i64>,
    ascending: bool,
    descending: bool,
    last: Option<(ByteRange, ByteRange)>,
    valid: bool,
}

/// A finished column index with the buffer its min/max ranges point into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltColumnIndex {
    /// The index.
    pub index: ColumnIndex,
    /// The bytes of its min/max values.
    pub buf: Vec<u8>,
}

impl BuiltColumnIndex {
    /// Appends the Thrift encoding of the index to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        self.index.encode(&mut Writer::new(out), &self.buf);
    }
}

impl ColumnIndexBuilder {
    /// A builder for a column of `order`, truncating binary bounds to `max_len` bytes.
    pub fn new(order: StatsOrder, max_len: Option<usize>) -> Self {
        ColumnIndexBuilder {
            order,
            max_len,
            buf: Vec::new(),
            null_pages: Vec::new(),
            min_values: Vec::new(),
            max_values: Vec::new(),
            null_counts: Vec::new(),
            nan_counts: Vec::new(),
            def_hist: Vec::new(),
            rep_hist: Vec::new(),
            ascending: true,
            descending: true,
            last: None,
            valid: order != StatsOrder::Undefined,
        }
    }

    /// True while the index can still be written.
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// Gives up the index of this chunk (e.g. statistics were not collected for a page).
    pub fn invalidate(&mut self) {
        self.valid = false;
        self.buf = Vec::new();
        self.min_values = Vec::new();
        self.max_values = Vec::new();
    }

    /// Pages recorded.
    pub fn num_pages(&self) -> usize {
        self.null_pages.len()
    }

    /// Records the next data page: its statistics and, when size statistics are collected,
    /// its level histograms.
    pub fn add_page(&mut self, stats: &StatsAccumulator, sizes: Option<&SizeStatsAccumulator>) {
        if !self.valid {
            return;
        }
        if stats.order() != self.order {
            return self.invalidate();
        }
        let null_count = i64::try_from(stats.null_count()).unwrap_or(i64::MAX);
        if stats.value_count() == 0 {
            self.null_pages.push(true);
            self.min_values.push(ByteRange::default());
            self.max_values.push(ByteRange::default());
        } else {
            let Some(b) = stats.bounds(self.max_len) else {
                return self.invalidate();
            };
            let min = push(&mut self.buf, &b.min);
            let max = push(&mut self.buf, &b.max);
            if let Some((lmin, lmax)) = self.last {
                let cmp = |x: ByteRange, y: ByteRange| {
                    self.order
                        .compare(x.slice(&self.buf), y.slice(&self.buf))
                        .unwrap_or(Ordering::Equal)
                };
                let (cmin, cmax) = (cmp(lmin, min), cmp(lmax, max));
                if cmin.is_gt() || cmax.is_gt() {
                    self.ascending = false;
                }
                if cmin.is_lt() || cmax.is_lt() {
                    self.descending = false;
                }
            }
            self.last = Some((min, max));
            self.null_pages.push(false);
            self.min_values.push(min);
            self.max_values.push(max);
        }
        self.null_counts.push(null_count);
        self.nan_counts
            .push(i64::try_from(stats.nan_count()).unwrap_or(i64::MAX));
        if let Some(s) = sizes {
            self.def_hist.extend_from_slice(s.def_histogram());
            self.rep_hist.extend_from_slice(s.rep_histogram());
        }
    }

    /// The boundary order of the pages recorded so far.
    pub fn boundary_order(&self) -> BoundaryOrder {
        if self.last.is_none() {
            // No page with values: nothing is ordered (as pyarrow 26 writes it).
            BoundaryOrder::Unordered
        } else if self.ascending {
            BoundaryOrder::Ascending
        } else if self.descending {
            BoundaryOrder::Descending
        } else {
            BoundaryOrder::Unordered
        }
    }

    /// The column index, or `None` when it is invalid or has no page.
    pub fn finish(self) -> Option<BuiltColumnIndex> {
        if !self.valid || self.null_pages.is_empty() {
            return None;
        }
        let boundary_order = self.boundary_order();
        let n = self.null_pages.len();
        // Histograms are complete only if every page contributed one of the same length.
        let hist = |h: Vec<i64>| (!h.is_empty() && h.len().is_multiple_of(n)).then_some(h);
        Some(BuiltColumnIndex {
            index: ColumnIndex {
                null_pages: self.null_pages,
                min_values: self.min_values,
                max_values: self.max_values,
                boundary_order,
                null_counts: Some(self.null_counts),
                repetition_level_histograms: hist(self.rep_hist),
                definition_level_histograms: hist(self.def_hist),
                nan_counts: self.order.is_float().then_some(self.nan_counts),
                unknown: UnknownFields::default(),
            },
            buf: self.buf,
        })
    }
}

fn push(buf: &mut Vec<u8>, v: &[u8]) -> ByteRange {
    let r = ByteRange::new(buf.len(), v.len());
    buf.extend_from_slice(v);
    r
}

/// Builds the `OffsetIndex` of one column chunk, page by page. Page offsets may be recorded
/// relative to any base (e.g. the start of the chunk's buffered pages) and are moved by
/// [`OffsetIndexBuilder::finish`]'s `base`.
#[derive(Debug, Clone, Default)]
pub struct OffsetIndexBuilder {
    locations: Vec<PageLocation>,
    unencoded: Option<Vec<i64>>,
}

impl OffsetIndexBuilder {
    /// A builder; `byte_array` for BYTE_ARRAY columns, which record
    /// `unencoded_byte_array_data_bytes` per page.
    pub fn new(byte_array: bool) -> Self {
        OffsetIndexBuilder {
            locations: Vec::new(),
            unencoded: byte_array.then(Vec::new),
        }
    }

    /// Records the next data page: `offset` of its header, `compressed_page_size` of header
    /// and body, `first_row_index` in the row group, and its unencoded BYTE_ARRAY bytes
    /// (ignored for other columns; a missing value drops the list). Errors for sizes that do
    /// not fit the index's integer types.
    pub fn add_page(
        &mut self,
        offset: u64,
        compressed_page_size: usize,
        first_row_index: u64,
        unencoded_byte_array_data_bytes: Option<u64>,
    ) -> Result<()> {
        let offset = i64::try_from(offset)
            .map_err(|_| property_error(format_args!("page offset {offset} is too large")))?;
        let size = i32::try_from(compressed_page_size).map_err(|_| {
            property_error(format_args!(
                "page of {compressed_page_size} bytes is too large for the offset index \
                 (at most {} bytes)",
                i32::MAX
            ))
        })?;
        let first_row_index = i64::try_from(first_row_index).map_err(|_| {
            property_error(format_args!(
                "first row index {first_row_index} is too large"
            ))
        })?;
        self.locations.push(PageLocation {
            offset,
            compressed_page_size: size,
            first_row_index,
            unknown: UnknownFields::default(),
        });
        if let Some(list) = &mut self.unencoded {
            match unencoded_byte_array_data_bytes.and_then(|v| i64::try_from(v).ok()) {
                Some(v) => list.push(v),
                None => self.unencoded = None,
            }
        }
        Ok(())
    }

    /// Pages recorded.
    pub fn num_pages(&self) -> usize {
        self.locations.len()
    }

    /// The offset index, with every offset moved by `base`.
    pub fn finish(self, base: u64) -> Result<OffsetIndex> {
        let base = i64::try_from(base)
            .map_err(|_| property_error(format_args!("chunk offset {base} is too large")))?;
        let mut locations = self.locations;
        for l in &mut locations {
            l.offset = l.offset.checked_add(base).ok_or_else(|| {
                property_error(format_args!("page offset past {} bytes", i64::MAX))
            })?;
        }
        Ok(OffsetIndex {
            page_locations: locations,
            unencoded_byte_array_data_bytes: self.unencoded,
            unknown: UnknownFields::default(),
        })
    }
}

/// Where the page index of one column chunk was written (absolute file offsets and
/// lengths), to set on its `ColumnChunk`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageIndexLocation {
    /// Row group ordinal.
    pub row_group: usize,
    /// Leaf column ordinal.
    pub column: usize,
    /// `column_index_offset` and `column_index_length`, when a column index was written.
    pub column_index: Option<(i64, i32)>,
    /// `offset_index_offset` and `offset_index_length`, when an offset index was written.
    pub offset_index: Option<(i64, i32)>,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    row_group: usize,
    column: usize,
    column_index: Option<(usize, usize)>,
    offset_index: Option<(usize, usize)>,
}

/// Collects the encoded page indexes of a file's column chunks until they are written after
/// the last row group.
#[derive(Debug, Clone, Default)]
pub struct PageIndexWriter {
    column_indexes: Packed,
    offset_indexes: Packed,
    entries: Vec<Entry>,
}

impl PageIndexWriter {
    /// An empty writer.
    pub fn new() -> Self {
        PageIndexWriter::default()
    }

    /// Encodes and keeps the indexes of chunk `column` of row group `row_group`, as the
    /// modules of `encryptor` for an encrypted chunk.
    pub fn add_chunk(
        &mut self,
        row_group: usize,
        column: usize,
        column_index: Option<&BuiltColumnIndex>,
        offset_index: Option<&OffsetIndex>,
        encryptor: Option<&ColumnEncryptor>,
    ) -> Result<()> {
        let (ci, oi) = self.encode_chunk(column_index, offset_index, encryptor)?;
        self.push(row_group, column, ci, oi);
        Ok(())
    }

    /// Encodes and keeps the indexes of a chunk, as the modules of `encryptor` for an
    /// encrypted chunk, without recording the chunk: returns where they are among the
    /// column indexes and among the offset indexes (start and length), for the caller to
    /// place once [`write`](Self::write) has written them (column indexes from its `at`,
    /// offset indexes from `at` + [`column_indexes_len`](Self::column_indexes_len)).
    #[allow(clippy::type_complexity)]
    pub fn encode_chunk(
        &mut self,
        column_index: Option<&BuiltColumnIndex>,
        offset_index: Option<&OffsetIndex>,
        encryptor: Option<&ColumnEncryptor>,
    ) -> Result<(Option<(usize, usize)>, Option<(usize, usize)>)> {
        let seal = |out: &mut Vec<u8>, start: usize, kind: ModuleType| -> Result<()> {
            if let Some(e) = encryptor {
                let plain = out.split_off(start);
                e.encrypt(kind, 0, &plain, out)?;
            }
            Ok(())
        };
        let column_index = match column_index {
            Some(ci) => {
                let (at, kept) = (self.column_indexes.len(), self.column_indexes.open());
                let start = kept.len();
                ci.encode(kept);
                seal(kept, start, ModuleType::ColumnIndex)?;
                Some((at, kept.len() - start))
            }
            None => None,
        };
        let offset_index = match offset_index {
            Some(oi) => {
                let (at, kept) = (self.offset_indexes.len(), self.offset_indexes.open());
                let start = kept.len();
                oi.encode(&mut Writer::new(kept), &[]);
                seal(kept, start, ModuleType::OffsetIndex)?;
                Some((at, kept.len() - start))
            }
            None => None,
        };
        self.column_indexes.seal_if_full()?;
        self.offset_indexes.seal_if_full()?;
        Ok((column_index, offset_index))
    }

    /// Bytes of the column indexes kept (written first, the offset indexes after them).
    pub fn column_indexes_len(&self) -> usize {
        self.column_indexes.len()
    }

    /// Keeps the indexes of a chunk copied from another file: its column index as encoded
    /// there (it holds no file offset), and its offset index (its pages at their new
    /// offsets), whose unknown fields' bytes are in `buf`.
    pub fn add_copied(
        &mut self,
        row_group: usize,
        column: usize,
        column_index: Option<&[u8]>,
        offset_index: Option<&OffsetIndex>,
        buf: &[u8],
    ) -> Result<()> {
        let column_index = column_index.map(|ci| {
            let start = self.column_indexes.len();
            self.column_indexes.open().extend_from_slice(ci);
            (start, ci.len())
        });
        let offset_index = offset_index.map(|oi| {
            let start = self.offset_indexes.len();
            oi.encode(&mut Writer::new(self.offset_indexes.open()), buf);
            (start, self.offset_indexes.len() - start)
        });
        self.push(row_group, column, column_index, offset_index);
        self.column_indexes.seal_if_full()?;
        self.offset_indexes.seal_if_full()
    }

    fn push(
        &mut self,
        row_group: usize,
        column: usize,
        column_index: Option<(usize, usize)>,
        offset_index: Option<(usize, usize)>,
    ) {
        if column_index.is_some() || offset_index.is_some() {
            self.entries.push(Entry {
                row_group,
                column,
                column_index,
                offset_index,
            });
        }
    }

    /// Bytes [`PageIndexWriter::write`] will write.
    pub fn byte_len(&self) -> usize {
        self.column_indexes.len() + self.offset_indexes.len()
    }

    /// True if no chunk has an index.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.column_indexes.heap_bytes()
            + self.offset_indexes.heap_bytes()
            + self.entries.capacity() * std::mem::size_of::<Entry>()
    }

    /// Writes all column indexes, then all offset indexes, to `out`, whose first byte is at
    /// file offset `at`; returns the location of every chunk's indexes, in the order the
    /// chunks were added.
    pub fn write<W: Write>(&self, out: &mut W, at: u64) -> Result<Vec<PageIndexLocation>> {
        self.column_indexes.write(out)?;
        self.offset_indexes.write(out)?;
        let oi_base = at.saturating_add(self.column_indexes.len() as u64);
        let loc = |base: u64, r: Option<(usize, usize)>| -> Result<Option<(i64, i32)>> {
            r.map(|(start, len)| {
                let off = i64::try_from(base.saturating_add(start as u64)).map_err(|_| {
                    property_error("page index offset past the largest file offset")
                })?;
                let len = i32::try_from(len)
                    .map_err(|_| property_error("a page index larger than 2 GiB"))?;
                Ok((off, len))
            })
            .transpose()
        };
        self.entries
            .iter()
            .map(|e| {
                Ok(PageIndexLocation {
                    row_group: e.row_group,
                    column: e.column,
                    column_index: loc(at, e.column_index)?,
                    offset_index: loc(oi_base, e.offset_index)?,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Past a few MiB the kept indexes are compressed in segments; what is written is still
    /// every chunk's bytes in order, where the returned locations say.
    #[test]
    fn indexes_kept_compressed_are_written_as_added() {
        let mut w = PageIndexWriter::new();
        let mut expected_ci = Vec::new();
        let mut expected_oi = Vec::new();
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let chunks = 100_000;
        for c in 0..chunks {
            // Column indexes of 40-80 bytes, a quarter of them random.
            let len = 40 + c % 41;
            let ci: Vec<u8> = (0..len)
                .map(|i| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1);
                    if i % 4 == 0 {
                        (state >> 56) as u8
                    } else {
                        i as u8
                    }
                })
                .collect();
            expected_ci.extend_from_slice(&ci);
            let oi = OffsetIndex {
                page_locations: vec![PageLocation {
                    offset: 4 + 5_000 * c as i64,
                    compressed_page_size: 5_000,
                    first_row_index: 0,
                    unknown: UnknownFields::default(),
                }],
                unencoded_byte_array_data_bytes: None,
                unknown: UnknownFields::default(),
            };
            oi.encode(&mut Writer::new(&mut expected_oi), &[]);
            w.add_copied(c / 1000, c % 1000, Some(&ci), Some(&oi), &[])
                .unwrap();
        }
        assert!(w.column_indexes.sealed().len() >= 2 && !w.offset_indexes.sealed().is_empty());
        let (raw, packed) = w
            .column_indexes
            .sealed()
            .iter()
            .chain(w.offset_indexes.sealed())
            .fold((0, 0), |(r, p), (len, bytes)| (r + len, p + bytes.len()));
        assert!(packed < raw * 3 / 4, "{packed} of {raw} bytes");
        assert_eq!(w.byte_len(), expected_ci.len() + expected_oi.len());
        let mut out = Vec::new();
        let at = 1_000;
        let locations = w.write(&mut out, at).unwrap();
        assert_eq!(
            out,
            [expected_ci.as_slice(), expected_oi.as_slice()].concat()
        );
        assert_eq!(locations.len(), chunks);
        let last = locations[chunks - 1];
        let (off, len) = last.column_index.unwrap();
        let start = (off as u64 - at) as usize;
        assert_eq!(
            &out[start..start + len as usize],
            &expected_ci[expected_ci.len() - len as usize..]
        );
        let (off, len) = last.offset_index.unwrap();
        assert_eq!(off as u64 + len as u64, at + out.len() as u64);
    }
}
