//! A footer read for some top-level columns only: the schema, then the chunks of those
//! columns' leaves, decoded through the footer index when the file has one (so the cost is
//! that of the columns chosen, not of the file's width), narrowed with
//! [`FileMetaData::project`] so the reader sees a file of those columns; [`OpenedFooter`]
//! keeps a footer opened so for readers of different columns.

use std::collections::HashMap;
use std::ops::Range;

use bytes::Bytes;

use crate::format::footer::{
    index_payload_len, parse_tail, DecodeOptions, FooterIndex, LazyFooter,
    DEFAULT_MAX_FOOTER_BYTES, INDEX_TRAILER_BYTES, TAIL_BYTES,
};
use crate::format::metadata::FileMetaData;
use crate::read::io::source::{RangeRead, FOOTER_PREFETCH};
use crate::Result;

/// The bytes of `want` from `have` (file bytes from `at`) when it covers them, else read.
fn bytes_of(source: &dyn RangeRead, have: &Bytes, at: u64, want: Range<u64>) -> Result<Bytes> {
    if want.start >= at && want.end <= at + have.len() as u64 {
        return Ok(have.slice((want.start - at) as usize..(want.end - at) as usize));
    }
    source.read_range(want)
}

/// A file's footer read and opened lazily ([`LazyFooter`]: through the footer index when
/// the file has one, else by one structural scan): readers of some columns decode only
/// theirs ([`OpenedFooter::project`]); the whole footer is decoded only when asked
/// ([`OpenedFooter::whole`]).
#[derive(Debug, Clone)]
pub struct OpenedFooter {
    lazy: LazyFooter,
    /// The file offset of the footer's first byte.
    start: u64,
}

impl OpenedFooter {
    /// Reads the footer of `source` (and its index, if it has one) and opens it.
    pub fn open(source: &dyn RangeRead) -> Result<OpenedFooter> {
        let len = source.file_len();
        let tail_at = len.saturating_sub(FOOTER_PREFETCH);
        let tail = source.read_range(tail_at..len)?;
        let tail_bytes = tail.get(tail.len().saturating_sub(8)..).unwrap_or(&[]);
        let footer_len = parse_tail(tail_bytes, len, DEFAULT_MAX_FOOTER_BYTES)?;
        let start = len - TAIL_BYTES - footer_len;
        let footer = bytes_of(source, &tail, tail_at, start..len - TAIL_BYTES)?;
        // The footer index block, if the 12 bytes before the footer end one.
        let trailer_bytes = INDEX_TRAILER_BYTES as u64;
        let block = match start.checked_sub(trailer_bytes + 4) {
            Some(_) => {
                let trailer = bytes_of(source, &tail, tail_at, start - trailer_bytes..start)?;
                match index_payload_len(&trailer).filter(|&n| n + trailer_bytes + 4 <= start) {
                    Some(n) => Some(bytes_of(
                        source,
                        &tail,
                        tail_at,
                        start - trailer_bytes - n..start,
                    )?),
                    None => None,
                }
            }
            None => None,
        };
        let index = block.as_deref().and_then(FooterIndex::find);
        let lazy = LazyFooter::open_with_index(footer, index, &DecodeOptions::minimal())
            .map_err(|e| e.rebase(start))?;
        Ok(OpenedFooter { lazy, start })
    }

    /// The footer without its row groups.
    pub fn file(&self) -> &FileMetaData {
        self.lazy.file()
    }

    /// The number of row groups.
    pub fn num_row_groups(&self) -> usize {
        self.lazy.num_row_groups()
    }

    /// The whole footer, decoded with `opts`.
    pub fn whole(&self, opts: &DecodeOptions) -> Result<FileMetaData> {
        crate::format::footer::decode_metadata(self.lazy.buf(), opts)
            .map_err(|e| e.rebase(self.start))
    }

    /// The footer narrowed to the top-level columns named `columns` (with their subtrees),
    /// only their chunks decoded. `None` when a name is not a top-level column (the caller
    /// reads the whole footer, whose reader then reports the name).
    pub fn project(&self, columns: &[&str]) -> Result<Option<FileMetaData>> {
        let schema = self.lazy.file().schema().clone();
        let spans = schema.top_level()?;
        // One pass over the top-level fields, each looked up among the names asked for (the
        // first field of a name, as the reader resolves names).
        let mut wanted: HashMap<&[u8], Option<usize>> =
            columns.iter().map(|c| (c.as_bytes(), None)).collect();
        for (k, span) in spans.iter().enumerate() {
            if let Some(slot @ None) = wanted.get_mut(schema.name_bytes(span.start)) {
                *slot = Some(k);
            }
        }
        let Some(mut fields) = wanted.into_values().collect::<Option<Vec<usize>>>() else {
            return Ok(None);
        };
        fields.sort_unstable();
        let leaves: Vec<usize> = fields
            .iter()
            .flat_map(|&f| schema.leaves_in(&spans[f]))
            .collect();
        let opts = DecodeOptions {
            columns: Some(leaves),
            schema: Some(schema),
            ..DecodeOptions::default()
        };
        let meta = self
            .lazy
            .decode_selection(&opts)
            .map_err(|e| e.rebase(self.start))?;
        meta.project(&fields).map(Some)
    }
}
