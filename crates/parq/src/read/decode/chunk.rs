//! A column chunk's metadata as a leaf reads it: the chunk of a leaf in a row group
//! ([`chunk_of`]), the chunks that cannot be read ([`check_chunk`]), what the metadata
//! lets pre-sizing reserve for a chunk's values ([`chunk_hint`]), and a chunk's dictionary
//! on its own, for filters: whether every data page is dictionary-encoded
//! ([`only_dictionary_pages`]), where the dictionary page lies ([`dictionary_page_range`]) and
//! its entries as an Arrow array ([`dictionary_values`]); the chunk a leaf is reading
//! ([`Current`]) and its record counts ([`Counts`]).

use std::ops::Range;

use arrow_array::ArrayRef;
use bytes::Bytes;

use crate::format::crypto::ColumnDecryptor;
use crate::format::metadata::{ColumnChunk, Encoding, FileMetaData, PageType, RowGroup};
use crate::page::{chunk_range, Page, PageReader, PageReaderOptions};
use crate::read::decode::values::{Hint, Storage};
use crate::read::plan::fields::ColumnSpec;
use crate::{Error, ErrorKind, Result};

/// The chunk a leaf is reading.
pub(in crate::read) struct Current {
    pub pages: PageReader,
    pub row_group: usize,
    /// The row group's rows.
    pub rows: u64,
    pub counts: Counts,
    /// What pre-sizing may reserve for the chunk's values, all `max_records` of them.
    pub hint: Hint,
    pub max_records: usize,
}

/// The records of the chunk being read.
pub(in crate::read) struct Counts {
    /// Records the chunk may still give.
    pub records_left: usize,
    /// Records started in the chunk.
    pub records: usize,
}

impl Current {
    /// What pre-sizing may reserve for the next `want` records of the chunk (`None` for
    /// none), so that a batch's buffers are reserved at once rather than grown page by page.
    pub(in crate::read) fn hint_for(&self, want: usize) -> Option<Hint> {
        let want = want.min(self.counts.records_left);
        (want > 0).then(|| self.hint.part(want, self.max_records))
    }
}

impl Counts {
    /// Counts the `rows` records of a page skipped whole.
    pub(in crate::read) fn skipped(&mut self, rows: u64) {
        let r = usize::try_from(rows).unwrap_or(usize::MAX);
        self.records_left = self.records_left.saturating_sub(r);
        self.records = self.records.saturating_add(r);
    }
}

/// The largest dictionary page read on its own (for a filter): larger ones are left to the
/// data path.
pub(crate) const MAX_FILTER_DICTIONARY: u64 = 16 << 20;

/// Row group `rg` of `meta`.
pub(crate) fn row_group(meta: &FileMetaData, rg: usize) -> Result<&RowGroup> {
    meta.row_groups().get(rg).ok_or_else(|| {
        Error::new(ErrorKind::OutOfBounds {
            what: "row group",
            index: rg as u64,
            len: meta.row_groups().len() as u64,
        })
    })
}

/// The chunk of leaf `leaf` in row group `rg`.
pub(crate) fn chunk_of(meta: &FileMetaData, rg: usize, leaf: usize) -> Result<&ColumnChunk> {
    let group = row_group(meta, rg)?;
    group.columns().get(leaf).ok_or_else(|| {
        Error::new(ErrorKind::OutOfBounds {
            what: "column chunk",
            index: leaf as u64,
            len: group.columns().len() as u64,
        })
        .in_row_group(crate::read::error::index(rg))
    })
}

/// Refuses chunks that cannot be read (in another file; encrypted without their key) and
/// gives an encrypted chunk's decryptor: the chunk of leaf `leaf` at `path` in row group `rg`
/// of `meta`.
pub(in crate::read) fn check_chunk(
    meta: &FileMetaData,
    rg: usize,
    leaf: usize,
    chunk: &ColumnChunk,
    path: &str,
) -> Result<Option<ColumnDecryptor>> {
    if chunk.file_path().is_some() {
        return Err(Error::new(ErrorKind::Unsupported(format!(
            "column chunks in other files (file_path) are not supported yet: {path}"
        ))));
    }
    meta.chunk_decryptor(rg, leaf, chunk)
}

/// A page reader with `chunk`'s decryptor, when it has one.
pub(crate) fn decrypting(
    pages: PageReader,
    chunk: &ColumnChunk,
    decryptor: Option<ColumnDecryptor>,
) -> PageReader {
    match decryptor {
        Some(d) => pages.with_decryptor(d, chunk.dictionary_page_offset().is_some()),
        None => pages,
    }
}

/// Output bytes that pre-sizing may reserve per byte a chunk occupies in the file, and at
/// least (see [`chunk_hint`]).
const RESERVE_PER_CHUNK_BYTE: usize = 64;
const RESERVE_MIN_BYTES: usize = 1 << 16;

/// What the metadata says a chunk holds: slots, value bytes of byte arrays, for pre-sizing.
/// `num_values` is checked against the pages as they are read; the byte count is the chunk's
/// `size_statistics.unencoded_byte_array_data_bytes`, or for a chunk without dictionary
/// encoding (whose values are all in its pages) its uncompressed size. As these numbers come
/// from the file, what they make the reader reserve is bounded by the `budget`:
/// [`RESERVE_PER_CHUNK_BYTE`] times the bytes the chunk really occupies in the file (its
/// `total_compressed_size`, clamped to the `file_bytes` there are), at least
/// [`RESERVE_MIN_BYTES`]. Buffers grow past it only as values are really decoded.
pub(in crate::read) fn chunk_hint(chunk: &ColumnChunk, footer_buf: &[u8], file_bytes: u64) -> Hint {
    let encoded = u64::try_from(chunk.total_compressed_size())
        .unwrap_or(0)
        .min(file_bytes);
    let encoded = usize::try_from(encoded).unwrap_or(usize::MAX);
    let budget = encoded
        .saturating_mul(RESERVE_PER_CHUNK_BYTE)
        .max(RESERVE_MIN_BYTES);
    let size = usize::try_from(chunk.total_uncompressed_size()).unwrap_or(0);
    let bound = size.saturating_mul(8).max(1 << 16);
    let values = usize::try_from(chunk.num_values()).unwrap_or(0);
    let encodings = chunk.encodings();
    let dictionary = chunk.dictionary_page_offset().is_some()
        || encodings.contains(Encoding::PlainDictionary)
        || encodings.contains(Encoding::RleDictionary);
    // Encodings expand byte arrays up to ~16x (DELTA_BYTE_ARRAY prefixes) or far more
    // (dictionary indices): the byte count is trusted up to 64x the chunk.
    let byte_bound = size.saturating_mul(64).max(1 << 16);
    let bytes = chunk
        .size_statistics(footer_buf)
        .and_then(|s| s.ok())
        .and_then(|s| s.unencoded_byte_array_data_bytes)
        .and_then(|b| usize::try_from(b).ok())
        .or((!dictionary).then_some(size))
        .unwrap_or(0);
    Hint {
        values: values.min(bound),
        bytes: bytes.min(byte_bound).min(budget),
        budget,
    }
}

/// Whether every data page of `chunk` is dictionary-encoded (so that every non-null value
/// is an entry of its dictionary page), as far as its metadata tells: by `encoding_stats`
/// where present (`footer_buf` is the footer's buffer), else by `encodings` holding a
/// dictionary encoding and besides it only the level encodings (a chunk whose list names
/// PLAIN may have fallen back to it; it is taken as not).
pub(crate) fn only_dictionary_pages(chunk: &ColumnChunk, footer_buf: &[u8]) -> bool {
    let dictionary = |e: Encoding| matches!(e, Encoding::PlainDictionary | Encoding::RleDictionary);
    if chunk.dictionary_page_offset().is_none() {
        return false;
    }
    if let Some(stats) = chunk.encoding_stats(footer_buf) {
        let Ok(stats) = stats else { return false };
        let mut data = stats
            .iter()
            .filter(|s| matches!(s.page_type, PageType::DataPage | PageType::DataPageV2))
            .filter(|s| s.count > 0)
            .peekable();
        return data.peek().is_some() && data.all(|s| dictionary(s.encoding));
    }
    let encodings = chunk.encodings();
    let mut any = false;
    for e in encodings.iter() {
        match e {
            e if dictionary(e) => any = true,
            Encoding::Rle | Encoding::BitPacked => {}
            _ => return false,
        }
    }
    any
}

/// The file range of `chunk`'s dictionary page: from `dictionary_page_offset` (the chunk's
/// start) to `data_page_offset`; `None` when the offsets do not say it, or it is larger than
/// [`MAX_FILTER_DICTIONARY`].
pub(crate) fn dictionary_page_range(chunk: &ColumnChunk) -> Option<Range<u64>> {
    let chunk_range = chunk_range(chunk).ok()?;
    let start = u64::try_from(chunk.dictionary_page_offset()?).ok()?;
    let end = u64::try_from(chunk.data_page_offset()).ok()?;
    let fits = start == chunk_range.start && end > start && end <= chunk_range.end;
    (fits && end - start <= MAX_FILTER_DICTIONARY).then_some(start..end)
}

/// The entries of the dictionary page held in `bytes` (read from file offset `offset`) of
/// `chunk`, as an array of `spec`'s type (a value type: no dictionary); `None` when the
/// bytes do not start with a dictionary page of PLAIN values that decode, or claim more
/// entries than they hold bytes.
pub(crate) fn dictionary_values(
    bytes: Bytes,
    offset: u64,
    chunk: &ColumnChunk,
    spec: &ColumnSpec,
    options: PageReaderOptions,
    decryptor: Option<ColumnDecryptor>,
) -> Option<ArrayRef> {
    let pages = PageReader::new(bytes, offset, chunk.codec(), options);
    let mut pages = decrypting(pages, chunk, decryptor);
    let Ok(Some(Page::Dictionary(page))) = pages.next_page() else {
        return None;
    };
    let n = page.num_values();
    let plain = matches!(
        page.header.encoding,
        Encoding::Plain | Encoding::PlainDictionary
    );
    if !plain || n > page.buffer.len() {
        return None;
    }
    let mut storage = Storage::for_spec(spec).ok()?;
    if n > 0 {
        storage
            .decode(Encoding::Plain, page.buffer, 0, n, spec)
            .ok()?;
    }
    storage.finish(n, None, spec).ok()
}
