//! The page index (ColumnIndex and OffsetIndex of each column chunk), decoded for all or only
//! for chosen row groups x columns into compact typed forms.

use std::ops::Range;

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{Arena, ColumnChunk, FileMetaData, OffsetIndex, TypedColumnIndex};
use crate::thrift::Reader;

/// The decoded page index of the chosen row groups x columns.
#[derive(Debug, Clone)]
pub struct PageIndex {
    /// The row groups decoded (indices into `FileMetaData::row_groups`).
    pub row_groups: Vec<usize>,
    /// The columns decoded (indices into each `RowGroup::columns`).
    pub columns: Vec<usize>,
    /// Column indexes, row-group major: entry `i * columns.len() + j`; `None` where the chunk
    /// has none.
    pub column_index: Vec<Option<TypedColumnIndex>>,
    /// Offset indexes, laid out like `column_index`.
    pub offset_index: Vec<Option<OffsetIndex>>,
    buf: bytes::Bytes,
}

impl PageIndex {
    /// The buffer byte ranges of the column indexes refer to.
    pub fn buf(&self) -> &[u8] {
        &self.buf
    }

    /// The column index of the `i`th chosen row group and `j`th chosen column.
    pub fn column_index(&self, i: usize, j: usize) -> Option<&TypedColumnIndex> {
        self.column_index
            .get(i * self.columns.len() + j)
            .and_then(Option::as_ref)
    }

    /// The offset index of the `i`th chosen row group and `j`th chosen column.
    pub fn offset_index(&self, i: usize, j: usize) -> Option<&OffsetIndex> {
        self.offset_index
            .get(i * self.columns.len() + j)
            .and_then(Option::as_ref)
    }
}

fn chosen(sel: Option<&[usize]>, n: usize, what: &'static str) -> Result<Vec<usize>> {
    match sel {
        None => Ok((0..n).collect()),
        Some(s) => {
            if let Some(&bad) = s.iter().find(|&&i| i >= n) {
                return Err(Error::new(ErrorKind::OutOfBounds {
                    what,
                    index: bad as u64,
                    len: n as u64,
                }));
            }
            Ok(s.to_vec())
        }
    }
}

fn ranges(c: &ColumnChunk) -> (Option<Range<u64>>, Option<Range<u64>>) {
    let r = |off: Option<i64>, len: Option<i32>| match (off, len) {
        (Some(o), Some(l)) if o >= 0 && l > 0 => Some(o as u64..o as u64 + l as u64),
        _ => None,
    };
    (
        r(c.column_index_offset(), c.column_index_length()),
        r(c.offset_index_offset(), c.offset_index_length()),
    )
}

/// The smallest file range that holds the page index of the chosen row groups x columns, or
/// `None` if none of them has one. Fetch it and pass it to [`decode_page_index`].
pub fn page_index_range(
    meta: &FileMetaData,
    row_groups: Option<&[usize]>,
    columns: Option<&[usize]>,
) -> Option<Range<u64>> {
    let mut out: Option<Range<u64>> = None;
    for (i, g) in meta.row_groups().iter().enumerate() {
        if row_groups.is_some_and(|s| !s.contains(&i)) {
            continue;
        }
        for (j, c) in g.columns().iter().enumerate() {
            if columns.is_some_and(|s| !s.contains(&j)) {
                continue;
            }
            let (ci, oi) = ranges(c);
            for r in [ci, oi].into_iter().flatten() {
                out = Some(match out {
                    None => r,
                    Some(o) => o.start.min(r.start)..o.end.max(r.end),
                });
            }
        }
    }
    out
}

/// Decodes the page index of the chosen row groups x columns (`None`: all) from `bytes`,
/// which hold the file from offset `bytes_offset` on and must cover [`page_index_range`]
/// (pass the whole file with offset 0, or just that range).
pub fn decode_page_index(
    bytes: &[u8],
    bytes_offset: u64,
    meta: &FileMetaData,
    row_groups: Option<&[usize]>,
    columns: Option<&[usize]>,
) -> Result<PageIndex> {
    let rgs = chosen(row_groups, meta.row_groups().len(), "row group")?;
    let ncols = meta.row_groups().first().map_or(0, |g| g.columns().len());
    let cols = chosen(columns, ncols, "column")?;
    let schema = meta.schema();
    let mut arena = Arena::default();
    let mut column_index = Vec::with_capacity(rgs.len() * cols.len());
    let mut offset_index = Vec::with_capacity(rgs.len() * cols.len());
    let slice = |r: &Range<u64>| -> Result<&[u8]> {
        let s = r.start.checked_sub(bytes_offset);
        let e = r.end.checked_sub(bytes_offset);
        match (s, e) {
            (Some(s), Some(e)) if e as usize <= bytes.len() => Ok(&bytes[s as usize..e as usize]),
            _ => Err(Error::new(ErrorKind::WrongRange {
                expected_start: r.start,
                expected_len: r.end - r.start,
                got_start: bytes_offset,
                got_len: bytes.len() as u64,
            })),
        }
    };
    for &i in &rgs {
        let g = &meta.row_groups()[i];
        for &j in &cols {
            let Some(c) = g.columns().get(j) else {
                column_index.push(None);
                offset_index.push(None);
                continue;
            };
            let leaf = meta
                .selection
                .as_ref()
                .and_then(|s| s.columns.as_ref())
                .map_or(j, |c| c.get(j).copied().unwrap_or(j));
            let element = schema.leaf_element(leaf);
            let (ci, oi) = ranges(c);
            let ctx = |e: Error, what: &'static str| {
                e.in_struct(what)
                    .in_element("column", j as u32)
                    .in_element("row group", i as u32)
            };
            column_index.push(match (ci, element.and_then(|e| e.physical_type)) {
                (Some(r), Some(pt)) => {
                    let b = slice(&r)?;
                    let mut rd = Reader::new(b).with_base(r.start);
                    let tl = element.and_then(|e| e.type_length);
                    Some(
                        TypedColumnIndex::decode(&mut rd, Some(&mut arena), pt, tl)
                            .map_err(|e| ctx(e, "ColumnIndex"))?,
                    )
                }
                _ => None,
            });
            offset_index.push(match oi {
                Some(r) => {
                    let b = slice(&r)?;
                    let mut rd = Reader::new(b).with_base(r.start);
                    Some(
                        OffsetIndex::decode(&mut rd, Some(&mut arena))
                            .map_err(|e| ctx(e, "OffsetIndex"))?,
                    )
                }
                None => None,
            });
        }
    }
    Ok(PageIndex {
        row_groups: rgs,
        columns: cols,
        column_index,
        offset_index,
        buf: arena.freeze(),
    })
}
