//! [`ColumnDecoder`]: the column chunks of one flat leaf (max repetition level 0) into one
//! Arrow array.
//!
//! Per chunk: the pages are walked with a [`PageReader`] (whose decompressor and page buffer
//! are kept from chunk to chunk); the dictionary page is decoded once into typed values (or
//! offsets + bytes for byte arrays) and kept for the chunk's data pages; for each data page
//! the definition levels become validity bits (1-bit levels go straight into the bitmap
//! through the RLE bitmap path; other level widths are decoded into a reused level buffer
//! and compared with the max definition level), the non-null values are decoded densely at
//! the end of the column's value buffer and then spread in place, back to front, to their
//! slots, so that null slots get a default value (or an empty byte range) without any
//! per-value allocation or second buffer.
//!
//! Value buffers are pre-sized from the chunk metadata (`num_values`; for byte arrays the
//! chunk's `size_statistics.unencoded_byte_array_data_bytes` when present, else they grow
//! geometrically) and handed over to Arrow without a copy at [`ColumnDecoder::finish`],
//! where the physical values become the leaf's Arrow type ([`super::convert`]).
//!
//! Levels are kept general (any max definition level, the deprecated BIT_PACKED level
//! encoding) so that the nested reader can reuse this decoder for its leaves; for now a leaf
//! with repetition levels is refused with [`ErrorKind::Unsupported`].

use arrow_array::ArrayRef;
use arrow_schema::DataType;

use super::convert;
use super::spread::levels_to_bits;
use super::values::{unsupported_encoding, Storage};
use crate::compression::Decompressor;
use crate::encoding::rle::RleDecoder;
use crate::format::metadata::{ColumnChunk, Encoding, PhysicalType};
use crate::page::{DataSections, Levels, Page, PageMeta, PageReader, PageReaderOptions};
use crate::{Error, ErrorKind, Result};

/// What a [`ColumnDecoder`] decodes: one leaf column and the Arrow type to produce.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnSpec {
    /// The leaf's index in the file schema.
    pub leaf: usize,
    /// The leaf's dotted path (for errors).
    pub path: String,
    /// The physical type.
    pub physical: PhysicalType,
    /// `type_length` of FIXED_LEN_BYTE_ARRAY (0 otherwise).
    pub type_length: usize,
    /// Max definition level.
    pub max_def_level: i16,
    /// Max repetition level (must be 0 for now).
    pub max_rep_level: i16,
    /// The Arrow type of the result.
    pub data_type: DataType,
}

/// Options of a [`ColumnDecoder`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ColumnOptions {
    /// Verify page CRCs (default false).
    pub verify_crc: bool,
    /// Extend chunks for old parquet-mr files (see
    /// [`crate::page::needs_legacy_dictionary_padding`]).
    pub legacy_dictionary_padding: bool,
}

/// Decodes the chunks of one flat leaf column into one Arrow array: see the
/// [module documentation](self).
#[derive(Debug)]
pub struct ColumnDecoder {
    spec: ColumnSpec,
    options: ColumnOptions,
    storage: Storage,
    /// Validity bits of the slots decoded so far (only when `max_def_level > 0`).
    validity: Vec<u8>,
    /// Slots (rows) decoded so far.
    len: usize,
    null_count: usize,
    /// Scratch: decoded levels of one page (the general path).
    levels: Vec<u16>,
    /// Kept from chunk to chunk.
    reuse: Option<(Decompressor, Vec<u8>)>,
    /// (first slot, row group) of every chunk decoded, to place errors found at the end.
    chunks: Vec<(usize, usize)>,
    /// (first slot, page header offset) of every data page decoded, likewise.
    pages: Vec<(usize, u64)>,
}

impl ColumnDecoder {
    /// A decoder of `spec`; an error if the leaf is nested (repetition levels) or its
    /// physical type cannot be read as `spec.data_type`.
    pub fn new(spec: ColumnSpec, options: ColumnOptions) -> Result<Self> {
        if spec.max_rep_level > 0 {
            return Err(Error::new(ErrorKind::Unsupported(format!(
                "nested columns are not supported yet: {}",
                spec.path
            ))));
        }
        let storage = Storage::for_spec(&spec)?;
        Ok(ColumnDecoder {
            spec,
            options,
            storage,
            validity: Vec::new(),
            len: 0,
            null_count: 0,
            levels: Vec::new(),
            reuse: None,
            chunks: Vec::new(),
            pages: Vec::new(),
        })
    }

    /// The column decoded.
    pub fn spec(&self) -> &ColumnSpec {
        &self.spec
    }

    /// Slots (rows) decoded so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was decoded yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Decodes the chunk `chunk` of row group `row_group` from `bytes` (the file from offset
    /// `bytes_offset` on), appending its values to those decoded so far. `footer_buf` is the
    /// footer's buffer ([`crate::format::metadata::FileMetaData::buf`]), used to read the
    /// chunk's size statistics.
    ///
    /// At most `max_rows` rows are decoded (the row group's `num_rows`): values the pages
    /// hold beyond it are not read, as pyarrow reads a row group whose `num_rows` is less
    /// than its chunks hold, or a page whose `num_values` overstates its data.
    pub fn decode_chunk(
        &mut self,
        bytes: &[u8],
        bytes_offset: u64,
        chunk: &ColumnChunk,
        footer_buf: &[u8],
        row_group: usize,
        max_rows: usize,
    ) -> Result<()> {
        let located = |e: Error| locate(e, row_group, self.spec.leaf);
        let options = PageReaderOptions {
            verify_crc: self.options.verify_crc,
            row_group: Some(row_group),
            column: Some(self.spec.leaf),
            legacy_dictionary_padding: self.options.legacy_dictionary_padding,
            ..PageReaderOptions::default()
        };
        let mut pages =
            PageReader::for_column_chunk(bytes, bytes_offset, chunk, options).map_err(located)?;
        if let Some((d, b)) = self.reuse.take() {
            pages = pages.with_decompressor(d).with_buffer(b);
        }
        self.chunks.push((self.len, row_group));
        self.reserve(chunk_hint(chunk, footer_buf, bytes.len()));
        self.storage.clear_dictionary();
        let end = self.len.saturating_add(max_rows);
        let mut result = Ok(());
        while self.len < end {
            let page = match pages.next_page() {
                Ok(Some(page)) => page,
                Ok(None) => break,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            let meta = page_meta(&page);
            if !matches!(page, Page::Dictionary(_)) {
                self.pages.push((self.len, meta.header_offset));
            }
            if let Err(e) = self.decode_page(page, end - self.len) {
                result = Err(locate(in_page(e, &meta), row_group, self.spec.leaf));
                break;
            }
        }
        self.reuse = Some(pages.into_parts());
        result
    }

    /// Reserves room for the chunks `chunks` (the ones about to be decoded into this
    /// array, from a file of `file_bytes` bytes), so that their values land in buffers sized
    /// once, from the metadata (within the bounds of [`chunk_hint`]).
    pub fn reserve_chunks<'c>(
        &mut self,
        chunks: impl IntoIterator<Item = &'c ColumnChunk>,
        footer_buf: &[u8],
        file_bytes: usize,
    ) {
        let mut total = Hint::default();
        for c in chunks {
            let h = chunk_hint(c, footer_buf, file_bytes);
            total.values = total.values.saturating_add(h.values);
            total.bytes = total.bytes.saturating_add(h.bytes);
            total.budget = total.budget.saturating_add(h.budget);
        }
        self.reserve(total);
    }

    /// Room for what `hint` says is coming.
    fn reserve(&mut self, hint: Hint) {
        let values = self.storage.reserve(hint);
        if self.spec.max_def_level > 0 {
            let want = (self.len + values).div_ceil(8);
            self.validity
                .reserve(want.saturating_sub(self.validity.len()));
        }
    }

    /// Decodes `page`, at most `max_rows` of its rows.
    fn decode_page(&mut self, page: Page<'_>, max_rows: usize) -> Result<()> {
        match page {
            Page::Dictionary(d) => {
                let n = d.num_values();
                match d.encoding() {
                    Encoding::Plain | Encoding::PlainDictionary => {
                        self.storage.load_dictionary(d.buffer, n)
                    }
                    other => Err(unsupported_encoding(other, "a dictionary page")),
                }
            }
            Page::DataV1(p) => {
                let sections = p.sections(self.spec.max_rep_level, self.spec.max_def_level)?;
                self.decode_data(p.num_values().min(max_rows), p.encoding(), sections)
            }
            Page::DataV2(p) => {
                let sections = p.sections(self.spec.max_rep_level, self.spec.max_def_level)?;
                // The header's `num_nulls` is not checked: some writers get it wrong, and
                // the definition levels are what count (as pyarrow reads such pages).
                self.decode_data(p.num_values().min(max_rows), p.encoding(), sections)
            }
        }
    }

    fn decode_data(
        &mut self,
        n: usize,
        encoding: Encoding,
        sections: DataSections<'_>,
    ) -> Result<()> {
        let start = self.len;
        let slots = start.checked_add(n).ok_or_else(|| {
            Error::new(ErrorKind::Inconsistent(format!("{n} more slots overflow")))
        })?;
        self.storage.try_room(slots)?;
        let valid = if self.spec.max_def_level == 0 {
            n
        } else {
            self.decode_definition(n, &sections.definition)?
        };
        if valid > 0 {
            self.storage
                .decode(encoding, sections.values, valid, &self.spec)?;
        }
        if valid < n {
            self.storage.spread(start, valid, n, &self.validity);
        }
        self.len += n;
        self.null_count += n - valid;
        Ok(())
    }

    /// Decodes `n` definition levels into validity bits `len..len + n`; returns how many
    /// are set (non-null slots).
    fn decode_definition(&mut self, n: usize, levels: &Levels<'_>) -> Result<usize> {
        let max = self.spec.max_def_level;
        if max == 1 && levels.bit_width == 1 && levels.encoding == Encoding::Rle {
            return RleDecoder::new(levels.data, 1)?.decode_bitmap(n, &mut self.validity, self.len);
        }
        self.levels.clear();
        crate::encoding::try_reserve(super::values::SLOTS, &mut self.levels, n)?;
        self.levels.resize(n, 0);
        levels.decoder()?.decode_exact(&mut self.levels)?;
        let end = (self.len + n).div_ceil(8);
        if self.validity.len() < end {
            self.validity.resize(end, 0);
        }
        let max = max as u16;
        if let Some(&l) = self.levels.iter().find(|&&l| l > max) {
            return Err(Error::new(ErrorKind::Inconsistent(format!(
                "definition level {l} > the column's maximum {max}"
            ))));
        }
        Ok(levels_to_bits(
            &self.levels,
            max,
            &mut self.validity,
            self.len,
        ))
    }

    /// The Arrow array of everything decoded so far; the decoder is empty afterwards (and
    /// keeps its decompressor for the next chunks).
    pub fn finish(&mut self) -> Result<ArrayRef> {
        let len = std::mem::take(&mut self.len);
        let null_count = std::mem::take(&mut self.null_count);
        let validity = std::mem::take(&mut self.validity);
        let chunks = std::mem::take(&mut self.chunks);
        let pages = std::mem::take(&mut self.pages);
        let nulls = (null_count > 0).then(|| convert::null_buffer(validity, len));
        let storage = std::mem::replace(&mut self.storage, Storage::for_spec(&self.spec)?);
        let leaf = self.spec.leaf;
        let column = |e: ConvertError| -> Error {
            let kind = |message| ErrorKind::InvalidColumnData {
                column: self.spec.path.clone(),
                message,
            };
            let Some(slot) = e.slot else {
                return Error::new(kind(e.message));
            };
            let Some((first, rg)) = find(&chunks, slot) else {
                return Error::new(kind(e.message));
            };
            let message = format!("{} (row {} of row group {rg})", e.message, slot - first);
            let err = match find(&pages, slot) {
                // The header offset of the data page that holds the slot.
                Some((_, offset)) => Error::at(kind(message), offset),
                None => Error::new(kind(message)),
            };
            locate(err, rg, leaf)
        };
        storage.finish(len, nulls, &self.spec).map_err(column)
    }
}

/// What the metadata says a chunk holds, for pre-sizing: see [`chunk_hint`].
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Hint {
    /// Slots (values and nulls).
    pub values: usize,
    /// Value bytes of byte arrays.
    pub bytes: usize,
    /// The most bytes that pre-sizing may reserve for the chunk's values in all.
    pub budget: usize,
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
fn chunk_hint(chunk: &ColumnChunk, footer_buf: &[u8], file_bytes: usize) -> Hint {
    let encoded = usize::try_from(chunk.total_compressed_size())
        .unwrap_or(0)
        .min(file_bytes);
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

/// The entry of `list` (sorted by first slot) whose range holds `slot`.
fn find<T: Copy>(list: &[(usize, T)], slot: usize) -> Option<(usize, T)> {
    let i = list.partition_point(|&(s, _)| s <= slot);
    i.checked_sub(1).and_then(|i| list.get(i).copied())
}

/// A conversion error at the end, with the slot it concerns when known.
#[derive(Debug)]
pub(crate) struct ConvertError {
    pub message: String,
    pub slot: Option<usize>,
}

impl ConvertError {
    pub(crate) fn new(message: String) -> Self {
        ConvertError {
            message,
            slot: None,
        }
    }
}

fn page_meta(page: &Page<'_>) -> PageMeta {
    match page {
        Page::Dictionary(p) => p.meta,
        Page::DataV1(p) => p.meta,
        Page::DataV2(p) => p.meta,
    }
}

/// Adds the page's location to a decoding error that has none.
#[cold]
fn in_page(e: Error, meta: &PageMeta) -> Error {
    match e.kind() {
        ErrorKind::InvalidPage { .. } | ErrorKind::PageChecksumMismatch { .. } => e,
        _ if e.frames().iter().any(|f| f.structure == "page") => e,
        _ => e
            .with_offset(meta.header_offset)
            .in_element("page", u32::try_from(meta.ordinal).unwrap_or(u32::MAX)),
    }
}

/// Adds `row group[i] > column[j]` unless the error already names them.
#[cold]
fn locate(e: Error, row_group: usize, column: usize) -> Error {
    if e.frames().iter().any(|f| f.structure == "row group") {
        return e;
    }
    let idx = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
    e.in_element("column", idx(column))
        .in_element("row group", idx(row_group))
}
