//! [`LazyFooter`]: a footer opened with one structural skip-scan that records where every row
//! group and column chunk starts; any chunk or row group is then decoded on demand, in time
//! proportional to its own size.

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::column_chunk::ChunkKeep;
use crate::metadata::row_group::ColumnSelection;
use crate::metadata::{ColumnChunk, FileMetaData, RowGroup};
use crate::thrift::Reader;

use super::DecodeOptions;

/// A lazily decoded footer. [`LazyFooter::file`] holds everything but the row groups;
/// [`LazyFooter::column_chunk`] and [`LazyFooter::row_group`] decode on demand. Chunks and
/// row groups decoded from it keep byte ranges into [`LazyFooter::buf`] (no copy).
#[derive(Debug, Clone)]
pub struct LazyFooter {
    buf: bytes::Bytes,
    file: FileMetaData,
    keep: ChunkKeep,
    opts: DecodeOptions,
    /// Start of each row group struct.
    row_group_starts: Vec<u32>,
    /// For row group `i`, its chunks' starts are `chunk_starts[chunk_index[i]..chunk_index[i + 1]]`.
    chunk_index: Vec<u32>,
    chunk_starts: Vec<u32>,
}

impl LazyFooter {
    /// Opens a footer (the Thrift `FileMetaData` bytes): decodes everything except the row
    /// groups and records where each row group and column chunk starts.
    pub fn open(buf: bytes::Bytes, opts: &DecodeOptions) -> Result<LazyFooter> {
        if buf.len() as u64 > opts.max_footer_bytes {
            return Err(Error::new(ErrorKind::FooterTooLarge {
                footer_bytes: buf.len() as u64,
                limit: opts.max_footer_bytes,
            }));
        }
        let mut row_group_starts = Vec::new();
        let mut chunk_index = vec![0u32];
        let mut chunk_starts = Vec::new();
        let file = FileMetaData::decode_with(&buf, opts, |r, _arena, _opts, _sel| {
            scan_row_groups(
                r,
                &mut row_group_starts,
                &mut chunk_index,
                &mut chunk_starts,
            )?;
            Ok(Vec::new())
        })?;
        Ok(LazyFooter {
            keep: opts.chunk_keep(),
            opts: opts.clone(),
            buf,
            file,
            row_group_starts,
            chunk_index,
            chunk_starts,
        })
    }

    /// The footer without its row groups (`row_groups` is empty).
    pub fn file(&self) -> &FileMetaData {
        &self.file
    }

    /// The footer bytes, which chunks decoded from this view point into.
    pub fn buf(&self) -> &[u8] {
        &self.buf
    }

    /// The number of row groups.
    pub fn num_row_groups(&self) -> usize {
        self.row_group_starts.len()
    }

    /// The number of column chunks in row group `rg`.
    pub fn num_columns_in(&self, rg: usize) -> usize {
        match (self.chunk_index.get(rg), self.chunk_index.get(rg + 1)) {
            (Some(&a), Some(&b)) => (b - a) as usize,
            _ => 0,
        }
    }

    /// The number of leaf columns of the schema.
    pub fn num_columns(&self) -> usize {
        self.file.schema.num_columns()
    }

    /// Heap bytes of the view (index tables and the top-level metadata; the footer buffer is
    /// counted too, as the view keeps it).
    pub fn heap_bytes(&self) -> usize {
        self.buf.len()
            + self.file.heap_bytes()
            + (self.row_group_starts.capacity()
                + self.chunk_index.capacity()
                + self.chunk_starts.capacity())
                * 4
    }

    fn reader_at(&self, pos: u32) -> Reader<'_> {
        let mut r = Reader::with_limits(&self.buf, self.opts.limits);
        r.set_pos(pos as usize);
        r
    }

    /// Decodes column chunk `col` of row group `rg`.
    pub fn column_chunk(&self, rg: usize, col: usize) -> Result<ColumnChunk> {
        let n = self.num_columns_in(rg);
        if rg >= self.num_row_groups() {
            return Err(Error::new(ErrorKind::OutOfBounds {
                what: "row group",
                index: rg as u64,
                len: self.num_row_groups() as u64,
            }));
        }
        if col >= n {
            return Err(Error::new(ErrorKind::OutOfBounds {
                what: "column",
                index: col as u64,
                len: n as u64,
            }));
        }
        let at = self.chunk_index[rg] as usize + col;
        let mut keep = self.keep;
        if let super::StatisticsPolicy::KeepColumns(c) = &self.opts.statistics {
            keep.statistics = c.contains(&col);
        }
        let mut r = self.reader_at(self.chunk_starts[at]);
        ColumnChunk::decode(&mut r, None, keep).map_err(|e| {
            e.in_element("ColumnChunk", col as u32)
                .in_element("RowGroup", rg as u32)
        })
    }

    /// Decodes row group `rg` with all its column chunks (or the selected ones).
    pub fn row_group(&self, rg: usize) -> Result<RowGroup> {
        let Some(&start) = self.row_group_starts.get(rg) else {
            return Err(Error::new(ErrorKind::OutOfBounds {
                what: "row group",
                index: rg as u64,
                len: self.num_row_groups() as u64,
            }));
        };
        let sel: ColumnSelection = self.opts.column_selection();
        let mut r = self.reader_at(start);
        RowGroup::decode(&mut r, None, &sel).map_err(|e| e.in_element("RowGroup", rg as u32))
    }
}

/// Walks `list<RowGroup>` recording struct starts, skipping everything else.
fn scan_row_groups(
    r: &mut Reader<'_>,
    row_group_starts: &mut Vec<u32>,
    chunk_index: &mut Vec<u32>,
    chunk_starts: &mut Vec<u32>,
) -> Result<()> {
    let n = r.read_list_len()?;
    row_group_starts.reserve_exact(n);
    for i in 0..n {
        row_group_starts.push(r.pos() as u32);
        RowGroup::skip(r, |pos| chunk_starts.push(pos as u32))
            .map_err(|e| e.in_element("RowGroup", i as u32))?;
        chunk_index.push(chunk_starts.len() as u32);
    }
    Ok(())
}
