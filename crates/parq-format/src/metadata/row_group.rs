//! `RowGroup` and `SortingColumn`, with decoding that keeps only the selected column chunks
//! (the others are skipped at scan speed).

use super::column_chunk::ChunkKeep;
use super::{missing, Arena, ColumnChunk, Schema, StructWriter, UnknownFields};
use crate::error::{Error, ErrorKind, Result};
use crate::thrift::{wire, Reader, Writer};

/// `SortingColumn`: a sort order of the row group.
///
/// ```thrift
/// struct SortingColumn { 1: required i32 column_idx; 2: required bool descending;
///                        3: required bool nulls_first; }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SortingColumn {
    /// Leaf column index.
    pub column_idx: i32,
    /// Descending order.
    pub descending: bool,
    /// Nulls before values.
    pub nulls_first: bool,
}

/// `RowGroup`.
///
/// ```thrift
/// struct RowGroup {
///   1: required list<ColumnChunk> columns; 2: required i64 total_byte_size;
///   3: required i64 num_rows; 4: optional list<SortingColumn> sorting_columns;
///   5: optional i64 file_offset; 6: optional i64 total_compressed_size; 7: optional i16 ordinal;
/// }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowGroup {
    /// Field 1, `columns`: one chunk per leaf column (only the selected ones when the footer
    /// was decoded with a column selection).
    pub columns: Vec<ColumnChunk>,
    /// Field 2, `total_byte_size`: uncompressed bytes of all columns.
    pub total_byte_size: i64,
    /// Field 3, `num_rows`.
    pub num_rows: i64,
    /// Field 4, `sorting_columns`.
    pub sorting_columns: Option<Vec<SortingColumn>>,
    /// Field 5, `file_offset`.
    pub file_offset: Option<i64>,
    /// Field 6, `total_compressed_size`.
    pub total_compressed_size: Option<i64>,
    /// Field 7, `ordinal`.
    pub ordinal: Option<i16>,
    /// Fields this version does not know.
    pub unknown: UnknownFields,
}

/// Which column chunks of a row group to decode, and what to keep of each.
#[derive(Debug, Clone, Default)]
pub(crate) struct ColumnSelection {
    /// `Some(mask)`: decode column `j` only if `mask[j]`; `None`: all.
    pub columns: Option<Vec<bool>>,
    /// The selected columns in ascending order, without repeats (`None`: all).
    pub indices: Option<Vec<usize>>,
    /// `Some(mask)`: keep statistics of column `j` only if `mask[j]`; `None`: the
    /// `keep.statistics` flag decides for all.
    pub statistics: Option<Vec<bool>>,
    pub keep: Option<ChunkKeep>,
}

impl ColumnSelection {
    #[inline]
    pub(crate) fn keep(&self) -> ChunkKeep {
        self.keep.unwrap_or(ChunkKeep::ALL)
    }

    /// What to keep of column `j` (given `keep`, the selection's flags), or `None` when the
    /// column is not selected.
    #[inline]
    pub(crate) fn keep_of(&self, j: usize, keep: ChunkKeep) -> Option<ChunkKeep> {
        if let Some(m) = &self.columns {
            if !m.get(j).copied().unwrap_or(false) {
                return None;
            }
        }
        let mut k = keep;
        if let Some(m) = &self.statistics {
            k.statistics = m.get(j).copied().unwrap_or(false);
        }
        Some(k)
    }

    /// The selected columns among `n`, ascending (all of them without a selection).
    pub(crate) fn selected(&self, n: usize) -> impl Iterator<Item = usize> + '_ {
        let (some, all) = match &self.indices {
            Some(v) => (Some(v.iter().copied().take_while(move |&j| j < n)), None),
            None => (None, Some(0..n)),
        };
        some.into_iter().flatten().chain(all.into_iter().flatten())
    }

    /// How many of `n` columns are selected.
    pub(crate) fn count(&self, n: usize) -> usize {
        self.columns
            .as_ref()
            .map_or(n, |m| m.iter().filter(|&&b| b).count().min(n))
    }
}

impl RowGroup {
    const NAME: &'static str = "RowGroup";

    /// The column chunks.
    pub fn columns(&self) -> &[ColumnChunk] {
        &self.columns
    }

    /// The number of rows.
    pub fn num_rows(&self) -> i64 {
        self.num_rows
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.columns.capacity() * std::mem::size_of::<ColumnChunk>()
            + self
                .columns
                .iter()
                .map(ColumnChunk::heap_bytes)
                .sum::<usize>()
            + self
                .sorting_columns
                .as_ref()
                .map_or(0, |s| s.capacity() * 12)
            + self.unknown.heap_bytes()
    }

    /// Decodes a `RowGroup`, keeping the selected column chunks.
    pub(crate) fn decode(
        r: &mut Reader<'_>,
        arena: Option<&mut Arena>,
        sel: &ColumnSelection,
    ) -> Result<RowGroup> {
        Self::decode_with(r, arena, |r, arena, out| decode_columns(r, arena, sel, out))
    }

    /// Decodes a `RowGroup`, handing its `columns` list (after the field header) to `columns`.
    pub(crate) fn decode_with(
        r: &mut Reader<'_>,
        mut arena: Option<&mut Arena>,
        mut columns: impl FnMut(
            &mut Reader<'_>,
            &mut Option<&mut Arena>,
            &mut Vec<ColumnChunk>,
        ) -> Result<()>,
    ) -> Result<RowGroup> {
        let mut g = RowGroup::default();
        let mut seen = 0u8;
        let mut id = 0i16;
        r.enter()?;
        loop {
            let ty = match r.read_field_header(&mut id) {
                Ok(Some(ty)) => ty,
                Ok(None) => break,
                Err(e) => return Err(e.in_struct(Self::NAME)),
            };
            let res = match (id, ty) {
                (1, wire::LIST) => columns(r, &mut arena, &mut g.columns),
                (2, wire::I64) => r.read_i64().map(|v| g.total_byte_size = v),
                (3, wire::I64) => r.read_i64().map(|v| g.num_rows = v),
                (4, wire::LIST) => decode_sorting(r).map(|v| g.sorting_columns = Some(v)),
                (5, wire::I64) => r.read_i64().map(|v| g.file_offset = Some(v)),
                (6, wire::I64) => r.read_i64().map(|v| g.total_compressed_size = Some(v)),
                (7, wire::I16) => r.read_i16().map(|v| g.ordinal = Some(v)),
                _ => g.unknown.keep(r, arena.as_deref_mut(), id, ty),
            };
            if let Err(e) = res {
                return Err(e.in_field(Self::NAME, id));
            }
            if (1..=3).contains(&id) {
                seen |= 1 << id;
            }
        }
        r.leave();
        if seen != 0b1110 {
            let field = match (!seen & 0b1110).trailing_zeros() {
                1 => "columns",
                2 => "total_byte_size",
                _ => "num_rows",
            };
            return Err(missing(r, Self::NAME, field));
        }
        Ok(g)
    }

    /// Skips a `RowGroup` at scan speed, calling `on_chunk` with the position where each of
    /// its column chunks starts and `on_columns_end` with the position after its `columns`.
    pub(crate) fn skip(
        r: &mut Reader<'_>,
        mut on_chunk: impl FnMut(usize),
        mut on_columns_end: impl FnMut(usize),
    ) -> Result<()> {
        r.enter()?;
        r.read_struct(Self::NAME, |r, id, ty| {
            if (id, ty) != (1, wire::LIST) {
                return r.skip_field(ty);
            }
            let n = r.read_list_len()?;
            for j in 0..n {
                on_chunk(r.pos());
                ColumnChunk::skip(r).map_err(|e| e.in_element("ColumnChunk", j as u32))?;
            }
            on_columns_end(r.pos());
            Ok(())
        })?;
        r.leave();
        Ok(())
    }

    /// The row group with its byte ranges moved from `buf` (the buffer they refer to now)
    /// into `arena`, so that it can be encoded beside row groups of another footer; `schema`
    /// is the schema of both.
    pub fn rebased(&self, buf: &[u8], schema: &Schema, arena: &mut Arena) -> Result<RowGroup> {
        let mut bytes = Vec::new();
        self.encode(&mut Writer::new(&mut bytes), buf, schema);
        RowGroup::decode_from(&bytes, Some(arena))
    }

    /// Decodes the `RowGroup` that `bytes` hold whole (as [`encode`](Self::encode) writes
    /// one), every field and column chunk kept: its byte ranges copied into `arena` when
    /// one is given, else ranges into `bytes`. Bytes left after the struct are an error.
    pub fn decode_from(bytes: &[u8], arena: Option<&mut Arena>) -> Result<RowGroup> {
        let mut r = Reader::new(bytes);
        let g = RowGroup::decode(&mut r, arena, &ColumnSelection::default())?;
        if r.pos() != bytes.len() {
            return Err(Error::new(ErrorKind::Inconsistent(format!(
                "{} bytes after a RowGroup of {}",
                bytes.len() - r.pos(),
                r.pos()
            ))));
        }
        Ok(g)
    }

    /// Encodes the row group; `buf` is the buffer its byte ranges refer to and `schema`
    /// supplies each column's `path_in_schema`.
    pub fn encode(&self, w: &mut Writer<'_>, buf: &[u8], schema: &Schema) {
        let mut s = StructWriter::new(&self.unknown, buf);
        s.field(w, wire::LIST, 1);
        w.write_list_header(wire::STRUCT, self.columns.len());
        for (j, c) in self.columns.iter().enumerate() {
            let path: Vec<&[u8]> = schema.leaf_path(j).collect();
            c.encode(w, buf, path.into_iter());
        }
        s.i64(w, 2, self.total_byte_size);
        s.i64(w, 3, self.num_rows);
        if let Some(cols) = &self.sorting_columns {
            s.field(w, wire::LIST, 4);
            w.write_list_header(wire::STRUCT, cols.len());
            for c in cols {
                let mut l = 0;
                w.write_field_header(wire::I32, 1, &mut l);
                w.write_i32(c.column_idx);
                w.write_bool_field(2, c.descending, &mut l);
                w.write_bool_field(3, c.nulls_first, &mut l);
                w.write_stop();
            }
        }
        if let Some(v) = self.file_offset {
            s.i64(w, 5, v);
        }
        if let Some(v) = self.total_compressed_size {
            s.i64(w, 6, v);
        }
        if let Some(v) = self.ordinal {
            s.field(w, wire::I16, 7);
            w.write_i16(v);
        }
        s.end(w);
    }
}

fn decode_columns(
    r: &mut Reader<'_>,
    arena: &mut Option<&mut Arena>,
    sel: &ColumnSelection,
    out: &mut Vec<ColumnChunk>,
) -> Result<()> {
    let n = r.read_list_len()?;
    let keep = sel.keep();
    out.reserve_exact(sel.count(n));
    if sel.columns.is_none() && sel.statistics.is_none() {
        for j in 0..n {
            ColumnChunk::decode_push(r, arena.as_deref_mut(), keep, out)
                .map_err(|e| e.in_element("ColumnChunk", j as u32))?;
        }
        return Ok(());
    }
    for j in 0..n {
        let res = match sel.keep_of(j, keep) {
            Some(k) => ColumnChunk::decode_push(r, arena.as_deref_mut(), k, out),
            None => ColumnChunk::skip(r),
        };
        res.map_err(|e| e.in_element("ColumnChunk", j as u32))?;
    }
    Ok(())
}

fn decode_sorting(r: &mut Reader<'_>) -> Result<Vec<SortingColumn>> {
    let n = r.read_list_len()?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let (mut idx, mut desc, mut nulls_first) = (None, None, None);
        super::read_fields(r, "SortingColumn", |r, fid, fty| match (fid, fty) {
            (1, wire::I32) => r.read_i32().map(|v| idx = Some(v)).map(|_| true),
            (2, wire::BOOL_TRUE | wire::BOOL_FALSE) => {
                desc = Some(fty == wire::BOOL_TRUE);
                Ok(true)
            }
            (3, wire::BOOL_TRUE | wire::BOOL_FALSE) => {
                nulls_first = Some(fty == wire::BOOL_TRUE);
                Ok(true)
            }
            _ => Ok(false),
        })?;
        out.push(SortingColumn {
            column_idx: idx.ok_or_else(|| missing(r, "SortingColumn", "column_idx"))?,
            descending: desc.ok_or_else(|| missing(r, "SortingColumn", "descending"))?,
            nulls_first: nulls_first.ok_or_else(|| missing(r, "SortingColumn", "nulls_first"))?,
        });
    }
    Ok(out)
}
