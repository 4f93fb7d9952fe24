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

use std::sync::Arc;

use arrow_array::ArrayRef;
use arrow_schema::DataType;

use super::convert;
use super::spread::{
    levels_to_bits, spread_bits, spread_fixed, spread_fixed_bytes, spread_offsets,
};
use crate::compression::Decompressor;
use crate::encoding::byte_stream_split::ByteStreamSplitDecoder;
use crate::encoding::delta_binary_packed::DeltaBinaryPackedDecoder;
use crate::encoding::delta_byte_array::DeltaByteArrayDecoder;
use crate::encoding::delta_length_byte_array::DeltaLengthByteArrayDecoder;
use crate::encoding::dictionary::DictionaryDecoder;
use crate::encoding::plain::{self, BooleanDecoder, FixedWidth, Int96};
use crate::encoding::rle::{copy_bits, RleDecoder};
use crate::encoding::OffsetSize;
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnOptions {
    /// Verify page CRCs (default true).
    pub verify_crc: bool,
    /// Extend chunks for old parquet-mr files (see
    /// [`crate::page::needs_legacy_dictionary_padding`]).
    pub legacy_dictionary_padding: bool,
}

impl Default for ColumnOptions {
    fn default() -> Self {
        ColumnOptions {
            verify_crc: true,
            legacy_dictionary_padding: false,
        }
    }
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
    pub fn decode_chunk(
        &mut self,
        bytes: &[u8],
        bytes_offset: u64,
        chunk: &ColumnChunk,
        footer_buf: &[u8],
        row_group: usize,
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
        // Pre-size from the metadata; num_values is checked against the pages by the reader.
        let values = usize::try_from(chunk.num_values()).unwrap_or(0);
        let byte_hint = chunk
            .size_statistics(footer_buf)
            .and_then(|s| s.ok())
            .and_then(|s| s.unencoded_byte_array_data_bytes)
            .and_then(|b| usize::try_from(b).ok());
        // Hints come from the file: bound what is reserved up front by the chunk's size.
        let bound = usize::try_from(chunk.total_uncompressed_size())
            .unwrap_or(0)
            .saturating_mul(8)
            .max(1 << 16);
        self.storage
            .reserve(values.min(bound), byte_hint.unwrap_or(0).min(bound));
        if self.spec.max_def_level > 0 {
            let want = (self.len + values.min(bound)).div_ceil(8);
            self.validity
                .reserve(want.saturating_sub(self.validity.len()));
        }
        self.storage.clear_dictionary();
        let mut result = Ok(());
        loop {
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
            if let Err(e) = self.decode_page(page) {
                result = Err(locate(in_page(e, &meta), row_group, self.spec.leaf));
                break;
            }
        }
        self.reuse = Some(pages.into_parts());
        result
    }

    fn decode_page(&mut self, page: Page<'_>) -> Result<()> {
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
                self.decode_data(p.num_values(), p.encoding(), sections, None)
            }
            Page::DataV2(p) => {
                let sections = p.sections(self.spec.max_rep_level, self.spec.max_def_level)?;
                self.decode_data(p.num_values(), p.encoding(), sections, Some(p.num_nulls()))
            }
        }
    }

    fn decode_data(
        &mut self,
        n: usize,
        encoding: Encoding,
        sections: DataSections<'_>,
        header_nulls: Option<usize>,
    ) -> Result<()> {
        let start = self.len;
        let valid = if self.spec.max_def_level == 0 {
            n
        } else {
            self.decode_definition(n, &sections.definition)?
        };
        if let Some(nulls) = header_nulls {
            if self.spec.max_def_level > 0 && nulls != n - valid {
                return Err(Error::new(ErrorKind::Inconsistent(format!(
                    "the v2 page header counts {nulls} nulls, its definition levels {}",
                    n - valid
                ))));
            }
        }
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

#[cold]
fn unsupported_encoding(encoding: Encoding, what: &str) -> Error {
    Error::new(ErrorKind::Encoding {
        encoding: encoding.spec_name(),
        message: format!("{encoding} is not supported for {what}"),
    })
}

#[cold]
fn no_dictionary() -> Error {
    Error::new(ErrorKind::Encoding {
        encoding: "RLE_DICTIONARY",
        message: "a dictionary-encoded data page without a dictionary page".to_string(),
    })
}

/// The values of a column, by physical type.
#[derive(Debug)]
pub(crate) enum Storage {
    Null,
    Bool(BoolValues),
    I32(Prim<i32>),
    I64(Prim<i64>),
    I96(Prim<Int96>),
    F32(Prim<f32>),
    F64(Prim<f64>),
    Fixed(FixedBytes),
    Bytes(Bytes<i32>),
    LargeBytes(Bytes<i64>),
}

impl Storage {
    fn for_spec(spec: &ColumnSpec) -> Result<Storage> {
        use DataType as D;
        use PhysicalType as P;
        let t = &spec.data_type;
        if *t == D::Null {
            return Ok(Storage::Null);
        }
        let ok = match spec.physical {
            P::Boolean => matches!(t, D::Boolean).then(|| Storage::Bool(BoolValues::default())),
            P::Int32 => matches!(
                t,
                D::Int8
                    | D::Int16
                    | D::Int32
                    | D::UInt8
                    | D::UInt16
                    | D::UInt32
                    | D::Date32
                    | D::Time32(_)
                    | D::Decimal32(..)
                    | D::Decimal64(..)
                    | D::Decimal128(..)
                    | D::Decimal256(..)
            )
            .then(|| Storage::I32(Prim::default())),
            P::Int64 => matches!(
                t,
                D::Int64
                    | D::UInt64
                    | D::Timestamp(..)
                    | D::Time64(_)
                    | D::Duration(_)
                    | D::Date64
                    | D::Decimal64(..)
                    | D::Decimal128(..)
                    | D::Decimal256(..)
            )
            .then(|| Storage::I64(Prim::default())),
            P::Int96 => matches!(t, D::Timestamp(..)).then(|| Storage::I96(Prim::default())),
            P::Float => matches!(t, D::Float32).then(|| Storage::F32(Prim::default())),
            P::Double => matches!(t, D::Float64).then(|| Storage::F64(Prim::default())),
            P::FixedLenByteArray => {
                let w = spec.type_length;
                let fits = match t {
                    D::FixedSizeBinary(n) => usize::try_from(*n) == Ok(w),
                    D::Float16 => w == 2,
                    D::Decimal32(..) | D::Decimal64(..) | D::Decimal128(..) | D::Decimal256(..) => {
                        true
                    }
                    _ => false,
                };
                if w == 0 {
                    return Err(Error::new(ErrorKind::InvalidColumnData {
                        column: spec.path.clone(),
                        message: "FIXED_LEN_BYTE_ARRAY of type_length 0".to_string(),
                    }));
                }
                fits.then(|| Storage::Fixed(FixedBytes::new(w)))
            }
            P::ByteArray => match t {
                D::LargeUtf8 | D::LargeBinary => Some(Storage::LargeBytes(Bytes::default())),
                D::Utf8
                | D::Binary
                | D::Utf8View
                | D::BinaryView
                | D::Decimal32(..)
                | D::Decimal64(..)
                | D::Decimal128(..)
                | D::Decimal256(..) => Some(Storage::Bytes(Bytes::default())),
                D::Dictionary(_, v)
                    if matches!(
                        v.as_ref(),
                        D::Utf8 | D::Binary | D::LargeUtf8 | D::LargeBinary | D::Utf8View
                    ) =>
                {
                    Some(Storage::Bytes(Bytes::default()))
                }
                _ => None,
            },
            P::Unknown(_) => None,
        };
        ok.ok_or_else(|| {
            Error::new(ErrorKind::InvalidColumnData {
                column: spec.path.clone(),
                message: format!(
                    "a {} column cannot be read as Arrow {t}",
                    spec.physical.spec_name()
                ),
            })
        })
    }

    fn reserve(&mut self, values: usize, bytes: usize) {
        match self {
            Storage::Null => {}
            Storage::Bool(b) => b.bits.reserve(values.div_ceil(8)),
            Storage::I32(p) => p.values.reserve(values),
            Storage::I64(p) => p.values.reserve(values),
            Storage::I96(p) => p.values.reserve(values),
            Storage::F32(p) => p.values.reserve(values),
            Storage::F64(p) => p.values.reserve(values),
            Storage::Fixed(f) => f.values.reserve(values.saturating_mul(f.width)),
            Storage::Bytes(b) => b.reserve(values, bytes),
            Storage::LargeBytes(b) => b.reserve(values, bytes),
        }
    }

    fn clear_dictionary(&mut self) {
        match self {
            Storage::Null | Storage::Bool(_) => {}
            Storage::I32(p) => p.has_dict = false,
            Storage::I64(p) => p.has_dict = false,
            Storage::I96(p) => p.has_dict = false,
            Storage::F32(p) => p.has_dict = false,
            Storage::F64(p) => p.has_dict = false,
            Storage::Fixed(f) => f.has_dict = false,
            Storage::Bytes(b) => b.has_dict = false,
            Storage::LargeBytes(b) => b.has_dict = false,
        }
    }

    fn load_dictionary(&mut self, data: &[u8], n: usize) -> Result<()> {
        match self {
            Storage::Null => Ok(()),
            Storage::Bool(_) => Err(unsupported_encoding(
                Encoding::PlainDictionary,
                "BOOLEAN columns",
            )),
            Storage::I32(p) => p.load_dictionary(data, n),
            Storage::I64(p) => p.load_dictionary(data, n),
            Storage::I96(p) => p.load_dictionary(data, n),
            Storage::F32(p) => p.load_dictionary(data, n),
            Storage::F64(p) => p.load_dictionary(data, n),
            Storage::Fixed(f) => f.load_dictionary(data, n),
            Storage::Bytes(b) => b.load_dictionary(data, n),
            Storage::LargeBytes(b) => b.load_dictionary(data, n),
        }
    }

    /// Appends `n` (> 0) dense values of a data page.
    fn decode(
        &mut self,
        encoding: Encoding,
        data: &[u8],
        n: usize,
        spec: &ColumnSpec,
    ) -> Result<()> {
        match self {
            Storage::Null => Ok(()),
            Storage::Bool(b) => b.decode(encoding, data, n),
            Storage::I32(p) => p.decode(encoding, data, n, spec),
            Storage::I64(p) => p.decode(encoding, data, n, spec),
            Storage::I96(p) => p.decode(encoding, data, n, spec),
            Storage::F32(p) => p.decode(encoding, data, n, spec),
            Storage::F64(p) => p.decode(encoding, data, n, spec),
            Storage::Fixed(f) => f.decode(encoding, data, n),
            Storage::Bytes(b) => b.decode(encoding, data, n),
            Storage::LargeBytes(b) => b.decode(encoding, data, n),
        }
    }

    /// Spreads the `dense` values decoded last (from slot `start`) over slots
    /// `start..start + total` following the validity bits.
    fn spread(&mut self, start: usize, dense: usize, total: usize, validity: &[u8]) {
        match self {
            Storage::Null => {}
            Storage::Bool(b) => b.spread(start, dense, total, validity),
            Storage::I32(p) => spread_fixed(&mut p.values, start, dense, total, validity),
            Storage::I64(p) => spread_fixed(&mut p.values, start, dense, total, validity),
            Storage::I96(p) => spread_fixed(&mut p.values, start, dense, total, validity),
            Storage::F32(p) => spread_fixed(&mut p.values, start, dense, total, validity),
            Storage::F64(p) => spread_fixed(&mut p.values, start, dense, total, validity),
            Storage::Fixed(f) => f.spread(start, dense, total, validity),
            Storage::Bytes(b) => spread_offsets(&mut b.offsets, start, dense, total, validity),
            Storage::LargeBytes(b) => spread_offsets(&mut b.offsets, start, dense, total, validity),
        }
    }

    fn finish(
        self,
        len: usize,
        nulls: Option<arrow_buffer::NullBuffer>,
        spec: &ColumnSpec,
    ) -> std::result::Result<ArrayRef, ConvertError> {
        let t = &spec.data_type;
        match self {
            Storage::Null => Ok(Arc::new(arrow_array::NullArray::new(len))),
            Storage::Bool(b) => Ok(convert::boolean(b.bits, len, nulls)),
            Storage::I32(p) => convert::from_i32(p.values, nulls, t),
            Storage::I64(p) => convert::from_i64(p.values, nulls, t),
            Storage::I96(p) => convert::from_int96(&p.values, nulls, t),
            Storage::F32(p) => convert::from_f32(p.values, nulls, t),
            Storage::F64(p) => convert::from_f64(p.values, nulls, t),
            Storage::Fixed(f) => convert::from_fixed(f.values, f.width, len, nulls, t),
            Storage::Bytes(b) => convert::from_bytes(b.offsets, b.values, nulls, t),
            Storage::LargeBytes(b) => convert::from_large_bytes(b.offsets, b.values, nulls, t),
        }
    }
}

/// Booleans: an LSB-first bitmap.
#[derive(Debug, Default)]
pub(crate) struct BoolValues {
    bits: Vec<u8>,
    /// Bits in `bits`.
    len: usize,
    /// The dense values of one page.
    scratch: Vec<u8>,
}

impl BoolValues {
    fn decode(&mut self, encoding: Encoding, data: &[u8], n: usize) -> Result<()> {
        self.scratch.clear();
        match encoding {
            Encoding::Plain => {
                BooleanDecoder::new(data).decode_bitmap(n, &mut self.scratch, 0)?;
            }
            Encoding::Rle => {
                let (mut d, _) = RleDecoder::with_length_prefix(data, 1)?;
                d.decode_bitmap(n, &mut self.scratch, 0)?;
            }
            other => return Err(unsupported_encoding(other, "BOOLEAN columns")),
        }
        let end = (self.len + n).div_ceil(8);
        if self.bits.len() < end {
            self.bits.resize(end, 0);
        }
        copy_bits(&self.scratch, n, &mut self.bits, self.len);
        self.len += n;
        Ok(())
    }

    fn spread(&mut self, start: usize, dense: usize, total: usize, validity: &[u8]) {
        // The dense bits are in `scratch` too: rewrite the page's slots from it.
        if dense == 0 {
            self.scratch.clear();
        }
        spread_bits(&mut self.bits, &self.scratch, start, total, validity);
        self.len = start + total;
    }
}

/// A physical type stored as a vector of fixed-width values.
pub(crate) trait PrimValue: FixedWidth + std::fmt::Debug {
    /// DELTA_BINARY_PACKED, for INT32 and INT64.
    fn delta(_data: &[u8], _n: usize, _out: &mut Vec<Self>) -> Option<Result<()>> {
        None
    }
}

impl PrimValue for i32 {
    fn delta(data: &[u8], n: usize, out: &mut Vec<Self>) -> Option<Result<()>> {
        Some(DeltaBinaryPackedDecoder::new(data).and_then(|mut d| d.decode(n, out)))
    }
}
impl PrimValue for i64 {
    fn delta(data: &[u8], n: usize, out: &mut Vec<Self>) -> Option<Result<()>> {
        Some(DeltaBinaryPackedDecoder::new(data).and_then(|mut d| d.decode(n, out)))
    }
}
impl PrimValue for f32 {}
impl PrimValue for f64 {}
impl PrimValue for Int96 {}

/// Fixed-width physical values and their dictionary.
#[derive(Debug, Default)]
pub(crate) struct Prim<T> {
    values: Vec<T>,
    dict: Vec<T>,
    has_dict: bool,
}

impl<T: PrimValue> Prim<T> {
    fn load_dictionary(&mut self, data: &[u8], n: usize) -> Result<()> {
        self.dict.clear();
        plain::decode_fixed(data, n, &mut self.dict)?;
        self.has_dict = true;
        Ok(())
    }

    fn decode(
        &mut self,
        encoding: Encoding,
        data: &[u8],
        n: usize,
        spec: &ColumnSpec,
    ) -> Result<()> {
        match encoding {
            Encoding::Plain => plain::decode_fixed(data, n, &mut self.values).map(|_| ()),
            Encoding::PlainDictionary | Encoding::RleDictionary => {
                if !self.has_dict {
                    return Err(no_dictionary());
                }
                DictionaryDecoder::new(data)?.gather(n, &self.dict, &mut self.values)
            }
            Encoding::DeltaBinaryPacked => match T::delta(data, n, &mut self.values) {
                Some(r) => r,
                None => Err(unsupported_encoding(encoding, spec.physical.spec_name())),
            },
            Encoding::ByteStreamSplit => {
                let mut d = ByteStreamSplitDecoder::new(data, T::WIDTH)?;
                d.decode(n, &mut self.values)
            }
            other => Err(unsupported_encoding(other, spec.physical.spec_name())),
        }
    }
}

/// FIXED_LEN_BYTE_ARRAY values back to back.
#[derive(Debug)]
pub(crate) struct FixedBytes {
    width: usize,
    values: Vec<u8>,
    dict: Vec<u8>,
    has_dict: bool,
    indices: Vec<u32>,
}

impl FixedBytes {
    fn new(width: usize) -> Self {
        FixedBytes {
            width,
            values: Vec::new(),
            dict: Vec::new(),
            has_dict: false,
            indices: Vec::new(),
        }
    }

    fn load_dictionary(&mut self, data: &[u8], n: usize) -> Result<()> {
        self.dict.clear();
        plain::decode_fixed_len_byte_array(data, self.width, n, &mut self.dict)?;
        self.has_dict = true;
        Ok(())
    }

    fn decode(&mut self, encoding: Encoding, data: &[u8], n: usize) -> Result<()> {
        let w = self.width;
        match encoding {
            Encoding::Plain => {
                plain::decode_fixed_len_byte_array(data, w, n, &mut self.values).map(|_| ())
            }
            Encoding::PlainDictionary | Encoding::RleDictionary => {
                if !self.has_dict {
                    return Err(no_dictionary());
                }
                let mut d = RleDecoder::for_dictionary_indices(data)?;
                self.indices.clear();
                self.indices.resize(n, 0);
                d.decode_exact(&mut self.indices)?;
                let entries = self.dict.len() / w;
                if let Some(&bad) = self.indices.iter().find(|&&i| i as usize >= entries) {
                    return Err(Error::new(ErrorKind::Encoding {
                        encoding: "RLE_DICTIONARY",
                        message: format!("index {bad} out of the dictionary of {entries} entries"),
                    }));
                }
                self.values.reserve(n * w);
                for &i in &self.indices {
                    let s = i as usize * w;
                    self.values.extend_from_slice(&self.dict[s..s + w]);
                }
                Ok(())
            }
            Encoding::DeltaByteArray => {
                DeltaByteArrayDecoder::new(data)?.decode_fixed(n, w, &mut self.values)
            }
            Encoding::ByteStreamSplit => {
                ByteStreamSplitDecoder::new(data, w)?.decode_bytes(n, &mut self.values)
            }
            other => Err(unsupported_encoding(other, "FIXED_LEN_BYTE_ARRAY columns")),
        }
    }

    fn spread(&mut self, start: usize, dense: usize, total: usize, validity: &[u8]) {
        spread_fixed_bytes(&mut self.values, self.width, start, dense, total, validity);
    }
}

/// BYTE_ARRAY values: Arrow-style offsets (one more than the slots, starting at 0) and bytes.
#[derive(Debug)]
pub(crate) struct Bytes<O> {
    offsets: Vec<O>,
    values: Vec<u8>,
    dict_offsets: Vec<O>,
    dict_values: Vec<u8>,
    has_dict: bool,
    lengths: Vec<i32>,
}

impl<O: OffsetSize> Default for Bytes<O> {
    fn default() -> Self {
        Bytes {
            offsets: vec![O::from_usize(0)],
            values: Vec::new(),
            dict_offsets: Vec::new(),
            dict_values: Vec::new(),
            has_dict: false,
            lengths: Vec::new(),
        }
    }
}

impl<O: OffsetSize> Bytes<O> {
    fn reserve(&mut self, values: usize, bytes: usize) {
        self.offsets.reserve(values);
        self.values.reserve(bytes);
    }

    fn load_dictionary(&mut self, data: &[u8], n: usize) -> Result<()> {
        self.dict_offsets.clear();
        self.dict_values.clear();
        plain::decode_byte_array(data, n, &mut self.dict_offsets, &mut self.dict_values)?;
        if self.dict_offsets.is_empty() {
            self.dict_offsets.push(O::from_usize(0));
        }
        self.has_dict = true;
        Ok(())
    }

    fn decode(&mut self, encoding: Encoding, data: &[u8], n: usize) -> Result<()> {
        match encoding {
            Encoding::Plain => {
                plain::decode_byte_array(data, n, &mut self.offsets, &mut self.values).map(|_| ())
            }
            Encoding::PlainDictionary | Encoding::RleDictionary => {
                if !self.has_dict {
                    return Err(no_dictionary());
                }
                DictionaryDecoder::new(data)?.gather_byte_array(
                    n,
                    &self.dict_offsets,
                    &self.dict_values,
                    &mut self.offsets,
                    &mut self.values,
                )
            }
            Encoding::DeltaLengthByteArray => {
                let lengths = std::mem::take(&mut self.lengths);
                let mut d = DeltaLengthByteArrayDecoder::with_buffer(data, lengths)?;
                let r = d.decode(n, &mut self.offsets, &mut self.values);
                self.lengths = d.into_buffer();
                r
            }
            Encoding::DeltaByteArray => {
                DeltaByteArrayDecoder::new(data)?.decode(n, &mut self.offsets, &mut self.values)
            }
            other => Err(unsupported_encoding(other, "BYTE_ARRAY columns")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::rle::set_bits;

    #[test]
    fn spread_fixed_places_values() {
        // Slots 0..6 with validity 1 0 1 1 0 1 after two earlier slots.
        let mut validity = vec![0u8; 1];
        for (i, v) in [true, true, true, false, true, true, false, true]
            .iter()
            .enumerate()
        {
            set_bits(&mut validity, i, 1, *v);
        }
        let mut values = vec![7i32, 8, 1, 2, 3, 4];
        spread_fixed(&mut values, 2, 4, 6, &validity);
        assert_eq!(values, vec![7, 8, 1, 0, 2, 3, 0, 4]);
    }

    #[test]
    fn spread_offsets_places_ranges() {
        let mut validity = vec![0u8; 1];
        for (i, v) in [false, true, false, true].iter().enumerate() {
            set_bits(&mut validity, i, 1, *v);
        }
        let mut offsets = vec![0i32, 2, 5];
        spread_offsets(&mut offsets, 0, 2, 4, &validity);
        assert_eq!(offsets, vec![0, 0, 2, 2, 5]);
    }
}
