//! [`Layout`]: where each row group and column chunk of a serialized `FileMetaData` starts,
//! found by a structural scan or read from a footer index, and the decoders that use it to
//! jump straight to the chunks asked for.

use std::ops::Range;

use crate::error::{ErrorKind, Result};
use crate::metadata::column_chunk::ChunkKeep;
use crate::metadata::row_group::ColumnSelection;
use crate::metadata::{Arena, ColumnChunk, FileMetaData, RowGroup};
use crate::thrift::Reader;

use super::DecodeOptions;

/// Positions inside a serialized `FileMetaData` (byte offsets from its start).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The `row_groups` list value: from its list header to the byte after its last element.
    pub list: Range<u32>,
    /// Start of each row group struct.
    pub row_group_starts: Vec<u32>,
    /// For row group `i`, its chunks' starts are `chunk_starts[chunk_index[i]..chunk_index[i + 1]]`.
    pub chunk_index: Vec<u32>,
    /// Start of each column chunk struct.
    pub chunk_starts: Vec<u32>,
    /// For each row group, the byte after its `columns` list.
    pub columns_ends: Vec<u32>,
}

impl Layout {
    /// Walks `list<RowGroup>` at `r` (after the field header) recording struct starts,
    /// skipping everything else.
    pub fn scan(r: &mut Reader<'_>) -> Result<Layout> {
        let start = r.pos();
        let n = r.read_list_len()?;
        let mut l = Layout {
            chunk_index: Vec::with_capacity(n + 1),
            row_group_starts: Vec::with_capacity(n),
            columns_ends: Vec::with_capacity(n),
            ..Layout::default()
        };
        l.chunk_index.push(0);
        for i in 0..n {
            l.row_group_starts.push(r.pos() as u32);
            let chunks = &mut l.chunk_starts;
            let mut end = 0u32;
            RowGroup::skip(r, |pos| chunks.push(pos as u32), |pos| end = pos as u32)
                .map_err(|e| e.in_element("RowGroup", i as u32))?;
            l.columns_ends.push(end);
            l.chunk_index.push(l.chunk_starts.len() as u32);
        }
        l.list = start as u32..r.pos() as u32;
        Ok(l)
    }

    /// The number of row groups.
    pub fn num_row_groups(&self) -> usize {
        self.row_group_starts.len()
    }

    /// The chunk starts of row group `rg` (empty when out of range).
    pub fn chunks(&self, rg: usize) -> &[u32] {
        match (self.chunk_index.get(rg), self.chunk_index.get(rg + 1)) {
            (Some(&a), Some(&b)) => self.chunk_starts.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Where chunk `col` of row group `rg` starts and the byte after it, if it exists.
    pub fn chunk_span(&self, rg: usize, col: usize) -> Option<(u32, u32)> {
        let chunks = self.chunks(rg);
        let start = *chunks.get(col)?;
        let end = match chunks.get(col + 1) {
            Some(&next) => next,
            None => *self.columns_ends.get(rg)?,
        };
        Some((start, end))
    }

    /// Heap bytes of the tables.
    pub fn heap_bytes(&self) -> usize {
        (self.row_group_starts.capacity()
            + self.chunk_index.capacity()
            + self.chunk_starts.capacity()
            + self.columns_ends.capacity())
            * 4
    }

    /// Decodes chunk `col` of row group `rg` from `buf`, checking that it ends where the
    /// layout says the next structure begins. `None`: the layout does not describe the
    /// bytes (or the chunk does not decode from where it says).
    pub fn decode_chunk(
        &self,
        r: &mut Reader<'_>,
        arena: Option<&mut Arena>,
        rg: usize,
        col: usize,
        keep: ChunkKeep,
        out: &mut Vec<ColumnChunk>,
    ) -> Option<()> {
        let (start, end) = self.chunk_span(rg, col)?;
        r.set_pos(start as usize);
        ColumnChunk::decode_push(r, arena, keep, out).ok()?;
        if r.pos() != end as usize {
            out.pop();
            return None;
        }
        Some(())
    }

    /// Decodes row group `rg` with the chunks `sel` asks for, each decoded from its start
    /// without walking the others. `None`: the layout does not describe the bytes, or they
    /// do not decode.
    pub fn decode_row_group(
        &self,
        buf: &[u8],
        r: &mut Reader<'_>,
        arena: Option<&mut Arena>,
        rg: usize,
        sel: &ColumnSelection,
    ) -> Option<RowGroup> {
        let start = *self.row_group_starts.get(rg)?;
        let chunks = self.chunks(rg);
        let columns_end = *self.columns_ends.get(rg)?;
        if columns_end as usize > buf.len() {
            return None;
        }
        r.set_pos(start as usize);
        let mut consistent = true;
        let keep = sel.keep();
        let g = RowGroup::decode_with(r, arena, |r, arena, out| {
            let n = r.read_list_len()?;
            let first = chunks.first().map_or(columns_end, |&s| s);
            if n != chunks.len() || r.pos() != first as usize {
                consistent = false;
                return Err(r.error(ErrorKind::Inconsistent(String::new())));
            }
            out.reserve_exact(sel.count(n));
            for j in sel.selected(n) {
                let Some(k) = sel.keep_of(j, keep) else {
                    continue;
                };
                let mut arena = arena.as_deref_mut();
                if self.decode_chunk(r, arena.take(), rg, j, k, out).is_none() {
                    consistent = false;
                    return Err(r.error(ErrorKind::Inconsistent(String::new())));
                }
            }
            r.set_pos(columns_end as usize);
            Ok(())
        });
        match g {
            Ok(g) if consistent => {
                let end = self
                    .row_group_starts
                    .get(rg + 1)
                    .copied()
                    .unwrap_or(self.list.end);
                (r.pos() == end as usize).then_some(g)
            }
            _ => None,
        }
    }
}

impl Layout {
    /// Decodes the footer with `opts`' row group and column selection, each selected chunk
    /// decoded from its start without walking the others. `None`: the layout does not
    /// describe the bytes, or they do not decode (the caller decodes them the usual way,
    /// which names any error).
    pub fn decode_file(&self, footer: &[u8], opts: &DecodeOptions) -> Option<FileMetaData> {
        FileMetaData::decode_with(footer, opts, |r, arena, opts, sel| {
            if r.pos() != self.list.start as usize {
                return Err(r.error(ErrorKind::Inconsistent(String::new())));
            }
            let (chosen, count) = opts.row_group_choice(self.num_row_groups());
            let mut out = Vec::with_capacity(count);
            for i in (0..chosen.len()).filter(|&i| chosen[i]) {
                let g = self
                    .decode_row_group(footer, r, Some(arena), i, sel)
                    .ok_or_else(|| r.error(ErrorKind::Inconsistent(String::new())))?;
                out.push(g);
            }
            r.set_pos(self.list.end as usize);
            Ok(out)
        })
        .ok()
    }
}
