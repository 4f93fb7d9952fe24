//! [`LazyFooter`]: a footer opened with one structural skip-scan (or, for a file with a
//! footer index, without walking the row groups at all) that knows where every row group
//! and column chunk starts; any chunk or row group is then decoded on demand, in time
//! proportional to its own size.

use std::sync::OnceLock;

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::column_chunk::ChunkKeep;
use crate::metadata::row_group::ColumnSelection;
use crate::metadata::{ColumnChunk, FileMetaData, RowGroup};
use crate::thrift::Reader;

use super::index::FooterIndex;
use super::layout::Layout;
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
    /// Where row groups and chunks start: scanned, or read from the footer index.
    layout: Layout,
    /// Whether `layout` came from the index (then each decode checks it, and a
    /// disagreement falls back to `scanned`).
    indexed: bool,
    /// The scanned layout, made when an indexed one disagrees with the bytes.
    scanned: OnceLock<std::result::Result<Layout, Error>>,
}

impl LazyFooter {
    /// Opens a footer (the Thrift `FileMetaData` bytes): decodes everything except the row
    /// groups and records where each row group and column chunk starts.
    pub fn open(buf: bytes::Bytes, opts: &DecodeOptions) -> Result<LazyFooter> {
        Self::open_with_index(buf, None, opts)
    }

    /// Like [`LazyFooter::open`], using the footer index when it is given and consistent
    /// with the footer (then the row groups are not walked); otherwise scans.
    pub fn open_with_index(
        buf: bytes::Bytes,
        index: Option<FooterIndex<'_>>,
        opts: &DecodeOptions,
    ) -> Result<LazyFooter> {
        if buf.len() as u64 > opts.max_footer_bytes {
            return Err(Error::new(ErrorKind::FooterTooLarge {
                footer_bytes: buf.len() as u64,
                limit: opts.max_footer_bytes,
            }));
        }
        let indexed = index
            .and_then(|i| i.layout(&buf, opts.limits))
            .and_then(|layout| {
                let file = FileMetaData::decode_with(&buf, opts, |r, _arena, _opts, _sel| {
                    jump_over(r, &layout).map(|_| Vec::new())
                })
                .ok()?;
                Some((file, layout))
            });
        let (file, layout, indexed) = match indexed {
            Some((file, layout)) => (file, layout, true),
            None => {
                let (file, layout) = scan(&buf, opts)?;
                (file, layout, false)
            }
        };
        Ok(LazyFooter {
            keep: opts.chunk_keep(),
            opts: opts.clone(),
            buf,
            file,
            layout,
            indexed,
            scanned: OnceLock::new(),
        })
    }

    /// The footer decoded with `opts` (its row group and column selection above all):
    /// through this view's positions when they came from the footer index (checked once,
    /// when the view was opened), else decoded the usual way. The result is the same.
    pub fn decode_selection(&self, opts: &DecodeOptions) -> Result<FileMetaData> {
        if self.indexed {
            if let Some(md) = self.layout.decode_file(&self.buf, opts) {
                return Ok(md);
            }
        }
        super::decode_metadata(&self.buf, opts)
    }

    /// Whether the row group and chunk positions came from a footer index.
    pub fn is_indexed(&self) -> bool {
        self.indexed
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
        self.layout.num_row_groups()
    }

    /// The number of column chunks in row group `rg`.
    pub fn num_columns_in(&self, rg: usize) -> usize {
        self.layout.chunks(rg).len()
    }

    /// The number of leaf columns of the schema.
    pub fn num_columns(&self) -> usize {
        self.file.schema.num_columns()
    }

    /// Heap bytes of the view (index tables and the top-level metadata; the footer buffer is
    /// counted too, as the view keeps it).
    pub fn heap_bytes(&self) -> usize {
        self.buf.len() + self.file.heap_bytes() + self.layout.heap_bytes()
    }

    fn reader(&self) -> Reader<'_> {
        Reader::with_limits(&self.buf, self.opts.limits)
    }

    /// The scanned layout (made once, on the first disagreement of the indexed one).
    fn scanned(&self) -> Result<&Layout> {
        self.scanned
            .get_or_init(|| scan(&self.buf, &self.opts).map(|(_, layout)| layout))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Decodes column chunk `col` of row group `rg`.
    pub fn column_chunk(&self, rg: usize, col: usize) -> Result<ColumnChunk> {
        if rg >= self.num_row_groups() {
            return Err(Error::new(ErrorKind::OutOfBounds {
                what: "row group",
                index: rg as u64,
                len: self.num_row_groups() as u64,
            }));
        }
        let n = self.num_columns_in(rg);
        if col >= n {
            return Err(Error::new(ErrorKind::OutOfBounds {
                what: "column",
                index: col as u64,
                len: n as u64,
            }));
        }
        let mut keep = self.keep;
        if let super::StatisticsPolicy::KeepColumns(c) = &self.opts.statistics {
            keep.statistics = c.contains(&col);
        }
        let mut r = self.reader();
        let mut out = Vec::with_capacity(1);
        if self.indexed
            && self
                .layout
                .decode_chunk(&mut r, None, rg, col, keep, &mut out)
                .is_some()
        {
            if let Some(c) = out.pop() {
                return Ok(c);
            }
        }
        let layout = if self.indexed {
            self.scanned()?
        } else {
            &self.layout
        };
        let start = layout.chunks(rg).get(col).copied().ok_or_else(|| {
            Error::new(ErrorKind::Inconsistent(format!(
                "row group {rg} has no column chunk {col}"
            )))
        })?;
        r.set_pos(start as usize);
        ColumnChunk::decode(&mut r, None, keep).map_err(|e| {
            e.in_element("ColumnChunk", col as u32)
                .in_element("RowGroup", rg as u32)
        })
    }

    /// Decodes row group `rg` with all its column chunks (or the selected ones).
    pub fn row_group(&self, rg: usize) -> Result<RowGroup> {
        if rg >= self.num_row_groups() {
            return Err(Error::new(ErrorKind::OutOfBounds {
                what: "row group",
                index: rg as u64,
                len: self.num_row_groups() as u64,
            }));
        }
        let sel: ColumnSelection = self.opts.column_selection();
        let mut r = self.reader();
        if self.indexed {
            if let Some(g) = self
                .layout
                .decode_row_group(&self.buf, &mut r, None, rg, &sel)
            {
                return Ok(g);
            }
        }
        let layout = if self.indexed {
            self.scanned()?
        } else {
            &self.layout
        };
        let start = layout.row_group_starts.get(rg).copied().unwrap_or(0);
        r.set_pos(start as usize);
        RowGroup::decode(&mut r, None, &sel).map_err(|e| e.in_element("RowGroup", rg as u32))
    }
}

/// Decodes a footer's top-level fields, scanning its row groups for their layout.
fn scan(buf: &[u8], opts: &DecodeOptions) -> Result<(FileMetaData, Layout)> {
    let mut layout = Layout::default();
    let file = FileMetaData::decode_with(buf, opts, |r, _arena, _opts, _sel| {
        layout = Layout::scan(r)?;
        Ok(Vec::new())
    })?;
    Ok((file, layout))
}

/// Passes over the `row_groups` list at `r` to its end as the layout gives it (checked to
/// start where the reader is).
pub(crate) fn jump_over(r: &mut Reader<'_>, layout: &Layout) -> Result<()> {
    if r.pos() != layout.list.start as usize {
        return Err(r.error(ErrorKind::Inconsistent(
            "the footer index does not match the footer".into(),
        )));
    }
    r.set_pos(layout.list.end as usize);
    Ok(())
}
