//! The row groups a [`ParquetWriter`](super::ParquetWriter) has finished, kept until the
//! footer as the bytes they are encoded to in it, compressed a MiB at a time ([`Packed`]).
//! A decoded column chunk holds 128 bytes and more on the heap; encoded, a chunk of a wide
//! file is about 100 bytes, and its repeated field headers and close values compress
//! several times over, so a file of millions of chunks keeps tens of MB, not hundreds.
//!
//! What is only known when the file ends (where the Bloom filters and page indexes landed)
//! is set on a row group as the footer streams out: the row group is decoded from its
//! bytes, given its places, and encoded again. Row groups that need no place (continued
//! from an appended file) stream out as they were kept.

use super::writer_error;
use crate::format::metadata::{ColumnChunk, RowGroup, Schema};
use crate::format::thrift::Writer;
use crate::write::packed::Packed;
use crate::write::page_index::PageIndexLocation;
use crate::Result;

/// A chunk's Bloom filter, kept in the writer's buffer until the footer: where it is there.
#[derive(Debug, Clone, Copy)]
struct BloomEntry {
    row_group: usize,
    column: usize,
    start: usize,
    len: usize,
}

/// The finished row groups of a file, in order, and the places to set on them.
#[derive(Debug, Default)]
pub(super) struct FinishedGroups {
    /// Every row group's encoding, one after the other; a segment is sealed only between
    /// two row groups.
    bytes: Packed,
    /// Each row group's encoded length.
    lens: Vec<u32>,
    /// Whether each row group's page-index offsets are places among the kept page indexes
    /// (made file offsets with `index_bases`), not file offsets.
    relative: Vec<bool>,
    /// The file offsets where the column indexes and the offset indexes were written.
    index_bases: Option<(u64, u64)>,
    /// The page indexes' places of the chunks that brought theirs (copied ones), by row
    /// group.
    locations: Vec<PageIndexLocation>,
    /// The Bloom filters' places in the writer's buffer, by row group.
    blooms: Vec<BloomEntry>,
    /// The file offset the buffered Bloom filters were written at.
    bloom_base: Option<u64>,
}

impl FinishedGroups {
    /// Row groups kept.
    pub(super) fn len(&self) -> usize {
        self.lens.len()
    }

    /// Keeps `g`, whose byte ranges refer to `buf` and whose paths are `schema`'s. With
    /// `relative_indexes` its chunks' page-index offsets are places among the kept indexes
    /// (see [`set_index_places`](Self::set_index_places)).
    pub(super) fn push(
        &mut self,
        g: &RowGroup,
        buf: &[u8],
        schema: &Schema,
        relative_indexes: bool,
    ) -> Result<()> {
        let open = self.bytes.open();
        let start = open.len();
        g.encode(&mut Writer::new(open), buf, schema);
        let len = u32::try_from(open.len() - start)
            .map_err(|_| writer_error("a row group's metadata over 4 GiB"))?;
        self.lens.push(len);
        self.relative.push(relative_indexes);
        self.bytes.seal_if_full()
    }

    /// Sets where the page indexes were written: the kept ones' column indexes from
    /// `column_indexes`, their offset indexes from `offset_indexes`, and the places of the
    /// copied chunks' indexes.
    pub(super) fn set_index_places(
        &mut self,
        column_indexes: u64,
        offset_indexes: u64,
        mut copied: Vec<PageIndexLocation>,
    ) {
        copied.sort_by_key(|l| (l.row_group, l.column));
        self.index_bases = Some((column_indexes, offset_indexes));
        self.locations = copied;
    }

    /// Keeps the place of column `column`'s Bloom filter in the writer's buffer (`len`
    /// bytes from `start`), for the row group to be kept next.
    pub(super) fn add_bloom(&mut self, column: usize, start: usize, len: usize) {
        self.blooms.push(BloomEntry {
            row_group: self.len(),
            column,
            start,
            len,
        });
    }

    /// Sets the file offset the buffered Bloom filters were written at.
    pub(super) fn set_bloom_base(&mut self, base: u64) {
        self.bloom_base = Some(base);
    }

    /// Hands each row group's footer bytes, its places set, to `each` in order; `scratch`
    /// holds the row groups encoded again.
    pub(super) fn visit(
        &self,
        schema: &Schema,
        scratch: &mut Vec<u8>,
        mut each: impl FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        let mut rg = 0;
        self.bytes.for_each_segment(|segment| {
            let mut pos = 0;
            while pos < segment.len() {
                let len = *self
                    .lens
                    .get(rg)
                    .ok_or_else(|| writer_error("kept row group bytes past the last one"))?
                    as usize;
                let bytes = segment
                    .get(pos..pos + len)
                    .ok_or_else(|| writer_error("a kept row group past its segment"))?;
                if self.has_places(rg) {
                    let mut g = RowGroup::decode_from(bytes, None)?;
                    self.set_places(rg, &mut g)?;
                    scratch.clear();
                    g.encode(&mut Writer::new(scratch), bytes, schema);
                    each(scratch)?;
                } else {
                    each(bytes)?;
                }
                pos += len;
                rg += 1;
            }
            Ok(())
        })?;
        if rg != self.lens.len() {
            return Err(writer_error("kept row groups missing"));
        }
        Ok(())
    }

    /// True if row group `rg` has a place to set.
    fn has_places(&self, rg: usize) -> bool {
        self.relative.get(rg).copied().unwrap_or(false)
            || !self.copied_of(rg).is_empty()
            || !self.blooms_of(rg).is_empty()
    }

    fn copied_of(&self, rg: usize) -> &[PageIndexLocation] {
        let from = self.locations.partition_point(|l| l.row_group < rg);
        let to = self.locations.partition_point(|l| l.row_group <= rg);
        self.locations.get(from..to).unwrap_or_default()
    }

    fn blooms_of(&self, rg: usize) -> &[BloomEntry] {
        let from = self.blooms.partition_point(|b| b.row_group < rg);
        let to = self.blooms.partition_point(|b| b.row_group <= rg);
        self.blooms.get(from..to).unwrap_or_default()
    }

    /// Sets row group `rg`'s page-index and Bloom filter places on `g`.
    fn set_places(&self, rg: usize, g: &mut RowGroup) -> Result<()> {
        if self.relative.get(rg).copied().unwrap_or(false) {
            for c in &mut g.columns {
                let (ci, oi) = (
                    c.column_index_offset().zip(c.column_index_length()),
                    c.offset_index_offset().zip(c.offset_index_length()),
                );
                if ci.is_none() && oi.is_none() {
                    continue;
                }
                let (ci_base, oi_base) = self
                    .index_bases
                    .ok_or_else(|| writer_error("page indexes kept but not written"))?;
                let offset = |base: u64, start: i64| {
                    u64::try_from(start)
                        .ok()
                        .and_then(|s| base.checked_add(s))
                        .and_then(|o| i64::try_from(o).ok())
                        .ok_or_else(|| {
                            writer_error("page index offset past the largest file offset")
                        })
                };
                if let Some((o, n)) = ci {
                    c.set_column_index_location(offset(ci_base, o)?, n);
                }
                if let Some((o, n)) = oi {
                    c.set_offset_index_location(offset(oi_base, o)?, n);
                }
            }
        }
        for l in self.copied_of(rg) {
            let c = chunk(g, rg, l.column)?;
            if let Some((o, n)) = l.column_index {
                c.set_column_index_location(o, n);
            }
            if let Some((o, n)) = l.offset_index {
                c.set_offset_index_location(o, n);
            }
        }
        for b in self.blooms_of(rg) {
            let base = self
                .bloom_base
                .ok_or_else(|| writer_error("Bloom filters kept but not written"))?;
            let offset = u64::try_from(b.start)
                .ok()
                .and_then(|s| base.checked_add(s))
                .and_then(|o| i64::try_from(o).ok())
                .ok_or_else(|| writer_error("file offset past i64"))?;
            let length =
                i32::try_from(b.len).map_err(|_| writer_error("Bloom filter over 2 GiB"))?;
            chunk(g, rg, b.column)?.set_bloom_filter_location(offset, length);
        }
        Ok(())
    }
}

/// Column chunk `column` of `g`, row group `rg`.
fn chunk(g: &mut RowGroup, rg: usize, column: usize) -> Result<&mut ColumnChunk> {
    g.columns
        .get_mut(column)
        .ok_or_else(|| writer_error(format_args!("row group {rg} has no column chunk {column}")))
}
