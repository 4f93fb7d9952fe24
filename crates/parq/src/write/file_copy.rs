//! Row groups of another file copied into a [`ParquetWriter`] byte for byte: each column
//! chunk's pages (dictionary, data, statistics and all) copied as they are, its metadata
//! moved to the chunk's new offset, its column index copied, its offset index moved, its
//! Bloom filter copied. Nothing is decoded or encoded, so a copy costs what reading and
//! writing the bytes cost.

use std::io::{Read, Seek, SeekFrom, Write};

use super::{writer_error, Inherited, ParquetWriter};
use crate::format::metadata::{
    Arena, BloomFilterHeader, ColumnOrder, FileMetaData, OffsetIndex, RowGroup,
};
use crate::format::thrift::Reader;
use crate::page::{chunk_range, needs_legacy_dictionary_padding};
use crate::{Error, ErrorKind, Result};

/// Bytes copied at a time.
const COPY_BLOCK: usize = 1 << 20;
/// The largest Bloom filter header read to find the filter's size (when the footer does
/// not give its length).
const BLOOM_HEADER_PROBE: u64 = 64;
/// The largest Bloom filter carried (parquet-java's and arrow-rs's own limit).
const MAX_BLOOM_BYTES: u64 = 128 << 20;

/// Why the row groups of a file cannot be copied into a writer, or `None` when they can.
pub(crate) fn copy_refusal(
    writer_encrypted: bool,
    writer_schema: &crate::format::metadata::Schema,
    inherited: Option<&Inherited>,
    meta: &FileMetaData,
) -> Option<&'static str> {
    match inherited {
        // A file written under another header: its statistics would be read otherwise.
        Some(h) if *h != Inherited::of(meta) => {
            return Some("its created_by or column_orders differ from the output's")
        }
        Some(_) => {}
        None => {
            let orders = meta.column_orders.as_deref().unwrap_or_default();
            if orders.len() != writer_schema.num_columns()
                || orders
                    .iter()
                    .any(|o| *o != ColumnOrder::TypeDefined && *o != ColumnOrder::Ieee754TotalOrder)
            {
                return Some("its statistics have no column orders");
            }
            if !crate::schema::stats::trusted_writer(meta.created_by().as_deref()) {
                return Some("its writer's statistics are not trusted");
            }
        }
    }
    if writer_encrypted {
        return Some("the output is encrypted");
    }
    if meta.encryption_algorithm.is_some() || meta.decryptor().is_some() {
        return Some("the file is encrypted");
    }
    if meta.selection.is_some() || meta.projection.is_some() {
        return Some("the footer was decoded in part");
    }
    if !writer_schema.same_layout(meta.schema()) {
        return Some("its Parquet schema differs from the output's");
    }
    let chunks = meta.row_groups().iter().flat_map(RowGroup::columns);
    if chunks.clone().any(|c| c.file_path().is_some()) {
        return Some("its column chunks are in other files");
    }
    if needs_legacy_dictionary_padding(meta.created_by().as_deref()) {
        return Some("its writer left the dictionary page header out of the chunk sizes");
    }
    None
}

/// Reads `len` bytes at `offset` of `source` (whose length is `file_len`), refusing a range
/// past the end before allocating.
fn read_range<R: Read + Seek>(
    source: &mut R,
    offset: u64,
    len: u64,
    file_len: u64,
    what: &'static str,
) -> Result<Vec<u8>> {
    if offset.checked_add(len).is_none_or(|end| end > file_len) {
        return Err(Error::new(ErrorKind::Truncated {
            needed: len,
            remaining: file_len.saturating_sub(offset),
        })
        .in_struct(what));
    }
    let len = usize::try_from(len).map_err(|_| writer_error("a range larger than memory"))?;
    let mut buf = vec![0u8; len];
    source.seek(SeekFrom::Start(offset))?;
    source.read_exact(&mut buf)?;
    Ok(buf)
}

/// The bytes of a chunk's Bloom filter (header and bitset) at `offset`, `len` bytes when the
/// footer says; `None` when its header cannot be read (the copy goes without it).
fn read_bloom<R: Read + Seek>(
    source: &mut R,
    offset: u64,
    len: Option<u64>,
    file_len: u64,
) -> Result<Option<Vec<u8>>> {
    let len = match len {
        Some(l) if l <= MAX_BLOOM_BYTES => l,
        Some(_) => return Ok(None),
        None => {
            let probe = BLOOM_HEADER_PROBE.min(file_len.saturating_sub(offset));
            let head = read_range(source, offset, probe, file_len, "BloomFilterHeader")?;
            let mut r = Reader::new(&head);
            let Ok(header) = BloomFilterHeader::decode(&mut r, None) else {
                return Ok(None);
            };
            match u64::try_from(header.num_bytes) {
                Ok(n) if n <= MAX_BLOOM_BYTES => r.pos() as u64 + n,
                _ => return Ok(None),
            }
        }
    };
    if offset.checked_add(len).is_none_or(|end| end > file_len) {
        return Ok(None);
    }
    read_range(source, offset, len, file_len, "BloomFilter").map(Some)
}

impl<W: Write> ParquetWriter<W> {
    /// Why row groups of the file of `meta` cannot be copied into this writer with
    /// [`copy_row_groups`](Self::copy_row_groups) (its Parquet schema differs, either file
    /// is encrypted, ...), or `None` when they can.
    pub fn copy_refusal(&self, meta: &FileMetaData) -> Option<&'static str> {
        copy_refusal(
            self.encryptor.is_some(),
            &self.schema,
            self.inherited.as_ref(),
            meta,
        )
        .or_else(|| self.float_order_refusal(meta))
    }

    /// Why the float statistics of `meta` would be misread under this writer's column
    /// orders (its float columns under another order than the writer writes), when the
    /// footer is parq's own. (A file with `INT96_TIMESTAMP_ORDER` is refused by
    /// [`copy_refusal`]: its INT96 column index may not be written under `TYPE_ORDER`.)
    fn float_order_refusal(&self, meta: &FileMetaData) -> Option<&'static str> {
        if self.inherited.is_some() {
            return None;
        }
        let ours = self.stats_orders().ok()?;
        let theirs = meta.column_orders.as_deref().unwrap_or_default();
        ours.iter()
            .zip(theirs)
            .any(|(o, t)| o.is_float() && o.column_order() != *t)
            .then_some("its float statistics follow another column order than the output's")
    }

    /// Closes the open row group, then copies row groups `row_groups` of `source` (a Parquet
    /// file whose footer is `meta`) after it, byte for byte (see the
    /// [`edit`](crate::edit) module): pages, statistics, dictionary, page index and Bloom
    /// filters are carried, and the file's `sorting_columns` of each row group. Refused (an
    /// error, nothing written) when [`copy_refusal`](Self::copy_refusal) gives a reason.
    pub fn copy_row_groups<R: Read + Seek>(
        &mut self,
        source: &mut R,
        meta: &FileMetaData,
        row_groups: &[usize],
    ) -> Result<()> {
        self.check()?;
        if let Some(why) = self.copy_refusal(meta) {
            return Err(writer_error(format_args!(
                "row groups cannot be copied: {why}"
            )));
        }
        self.flush()?;
        let r = self.copy_groups(source, meta, row_groups);
        self.guard(r)
    }

    fn copy_groups<R: Read + Seek>(
        &mut self,
        source: &mut R,
        meta: &FileMetaData,
        row_groups: &[usize],
    ) -> Result<()> {
        let file_len = source.seek(SeekFrom::End(0))?;
        let mut block = Vec::new();
        for &i in row_groups {
            let group = meta.row_groups().get(i).ok_or_else(|| {
                writer_error(format_args!(
                    "row group {i} of a file of {}",
                    meta.row_groups().len()
                ))
            })?;
            self.copy_group(source, meta, i, group, file_len, &mut block)
                .map_err(|e| e.in_element("row_groups", i as u32))?;
        }
        Ok(())
    }

    fn copy_group<R: Read + Seek>(
        &mut self,
        source: &mut R,
        meta: &FileMetaData,
        index: usize,
        group: &RowGroup,
        file_len: u64,
        block: &mut Vec<u8>,
    ) -> Result<()> {
        let rg = self.groups.len();
        let ordinal = i16::try_from(rg)
            .map_err(|_| writer_error("more than 32767 row groups (the ordinal is an i16)"))?;
        let buf = meta.buf();
        let start = self.out.pos;
        let mut moved = group.clone();
        let mut compressed = 0i64;
        for (j, chunk) in group.columns().iter().enumerate() {
            let range = chunk_range(chunk).map_err(|e| e.in_element("columns", j as u32))?;
            if range.end > file_len {
                return Err(Error::new(ErrorKind::Truncated {
                    needed: range.end - range.start,
                    remaining: file_len.saturating_sub(range.start),
                })
                .in_element("columns", j as u32));
            }
            let to = self.out.pos;
            let delta = i64::try_from(to)
                .ok()
                .zip(i64::try_from(range.start).ok())
                .and_then(|(to, from)| to.checked_sub(from))
                .ok_or_else(|| writer_error("file offset past i64"))?;
            source.seek(SeekFrom::Start(range.start))?;
            let mut left = range.end - range.start;
            while left > 0 {
                let n = left.min(COPY_BLOCK as u64) as usize;
                block.resize(n, 0);
                source.read_exact(block)?;
                self.out.write_all(block)?;
                left -= n as u64;
            }
            let new = chunk.moved(delta)?;
            compressed = compressed.saturating_add(new.total_compressed_size());
            // The indexes and the Bloom filter are written after the last row group.
            let column_index = match (chunk.column_index_offset(), chunk.column_index_length()) {
                (Some(o), Some(l)) if o > 0 && l > 0 => Some(read_range(
                    source,
                    o as u64,
                    l as u64,
                    file_len,
                    "ColumnIndex",
                )?),
                _ => None,
            };
            let mut arena = Arena::default();
            let offset_index = match (chunk.offset_index_offset(), chunk.offset_index_length()) {
                (Some(o), Some(l)) if o > 0 && l > 0 => {
                    let bytes = read_range(source, o as u64, l as u64, file_len, "OffsetIndex")?;
                    let mut oi = OffsetIndex::decode(&mut Reader::new(&bytes), Some(&mut arena))?;
                    for p in &mut oi.page_locations {
                        p.offset = p
                            .offset
                            .checked_add(delta)
                            .ok_or_else(|| writer_error("page offset past i64"))?;
                    }
                    Some(oi)
                }
                _ => None,
            };
            self.page_index.add_copied(
                rg,
                j,
                column_index.as_deref(),
                offset_index.as_ref(),
                arena.as_slice(),
            )?;
            if let Some(o) = chunk.bloom_filter_offset().filter(|&o| o > 0) {
                let len = chunk
                    .bloom_filter_length()
                    .and_then(|l| u64::try_from(l).ok());
                if let Some(bytes) = read_bloom(source, o as u64, len, file_len)? {
                    let at = self.blooms.len();
                    self.blooms.extend_from_slice(&bytes);
                    self.groups.add_bloom(j, at, bytes.len());
                }
            }
            if let Some(c) = moved.columns.get_mut(j) {
                *c = new;
            }
        }
        let mut g = moved;
        g.file_offset = Some(i64::try_from(start).map_err(|_| writer_error("offset past i64"))?);
        g.total_compressed_size = Some(compressed);
        g.ordinal = Some(ordinal);
        let rows = g.num_rows;
        if rows < 0 {
            return Err(Error::new(ErrorKind::InvalidValue {
                what: "num_rows",
                value: rows,
            })
            .in_element("row_groups", index as u32));
        }
        self.num_rows = self
            .num_rows
            .checked_add(rows)
            .ok_or_else(|| writer_error("more than i64::MAX rows"))?;
        self.groups.push(&g, buf, &self.schema, false)?;
        Ok(())
    }
}
