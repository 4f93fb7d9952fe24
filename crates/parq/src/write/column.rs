//! The column writer: one leaf column of a file, row group after row group.
//!
//! For each Arrow array it is given ([`ColumnWriter::write`]), in slices of at most
//! [`MINI_BATCH`] rows so that page limits are checked as pyarrow checks them:
//!
//! 1. the slice's values are viewed as physical values (`Batch`): straight from the Arrow
//!    buffers when the layouts agree (Int32, Int64, floats, strings and binaries with their
//!    offsets, fixed-size binaries, Float16), else converted into a scratch buffer shared by
//!    all columns (narrow and unsigned integers, Date64, Time32(s), Timestamp(s), decimals
//!    to big-endian bytes, intervals to their 12 INTERVAL bytes, views to offsets);
//!    dictionary arrays are gathered to their values, the dictionary's values viewed or
//!    converted once per array;
//! 2. definition levels (max level 0 or 1) go to a streaming RLE encoder straight from the
//!    validity bitmap (no level is materialized); repetition levels will sit beside them
//!    for nested columns, the page layout already has their place;
//! 3. the valid values feed the page statistics, size statistics and the Bloom filter, and
//!    the value encoder: the dictionary (indices kept for the page; when the dictionary
//!    passes its size limit the page is closed and the column falls back to its value
//!    encoding for the rest of the chunk), or PLAIN / DELTA_* / BYTE_STREAM_SPLIT / RLE
//!    (booleans). The chunk's first page tries the dictionary (as parquet-java does): when
//!    its first [`DICTIONARY_TRIAL_VALUES`] values or more are all distinct, or when it
//!    closes and the dictionary page and indices are not smaller than the PLAIN values, the
//!    page's values are encoded again with the fallback encoding and the chunk has no
//!    dictionary;
//! 4. a page is closed when its estimated size reaches the page byte limit or its rows the
//!    row limit: levels and values are assembled as a v1 page (levels with their length
//!    prefix, compressed with the values) or a v2 page (levels uncompressed, values
//!    compressed), with an optional CRC, and kept as a header and a body in the chunk's
//!    buffers; the page's statistics go to the chunk statistics, the column index and the
//!    offset index. Values are encoded after room kept for the levels, which are put there
//!    when the page closes: an uncompressed body stays where it was encoded (the chunk's
//!    buffer), a compressed one is compressed from there into the chunk's buffer, so the
//!    values are copied once on their way to the output.
//!
//! At the end of a row group, [`ColumnWriter::finish_chunk`] writes the dictionary page and
//! the data pages (each header then body, straight from the buffers) to the output, builds
//! the `ColumnChunk` metadata and the chunk's page indexes and Bloom filter, and releases the
//! chunk's buffers. Compressors and conversion scratch space are shared by all the columns of
//! a file ([`Shared`]): only the open pages and the buffered pages of the open row group are
//! per column.

use std::io::Write;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef};
use arrow_buffer::i256;
use arrow_schema::{DataType, IntervalUnit, TimeUnit as ArrowTimeUnit};

use super::arrow_schema::LeafType;
use super::bloom::{hash_f32, hash_f64, hash_i32, hash_i64, Sbbf};
use super::page_index::{BuiltColumnIndex, ColumnIndexBuilder, OffsetIndexBuilder};
use super::properties::{ColumnSettings, DataPageVersion, StatisticsLevel, WriterProperties};
use super::statistics::{SizeStatsAccumulator, StatsAccumulator, StatsOrder};
use crate::compression::compress::Compressor;
use crate::encoding::encode::byte_stream_split::ByteStreamSplitEncoder;
use crate::encoding::encode::delta::{
    DeltaBinaryPackedEncoder, DeltaByteArrayEncoder, DeltaLengthByteArrayEncoder,
    PYARROW_INT64_BLOCK_SIZE,
};
use crate::encoding::encode::dictionary::{ByteArrayDictEncoder, DictEncoder};
use crate::encoding::encode::plain::{self, BooleanEncoder};
use crate::encoding::encode::rle::{self, RleEncoder};
use crate::encoding::encode::{bit_width, Bitmap};
use crate::format::metadata::{
    Arena, ColumnChunk, Compression, DataPageHeader, DataPageHeaderV2, DictionaryPageHeader,
    Encoding, EncodingList, OffsetIndex, PageEncodingStats, PageHeader, PageType, PhysicalType,
    SchemaElement, UnknownFields,
};
use crate::format::thrift::Writer;
use crate::{Error, ErrorKind, Result};

/// Rows given to the encoders at a time: page limits are checked after each slice (as
/// parquet-cpp checks them after each write batch of 1024 values).
pub const MINI_BATCH: usize = 1024;

/// The most values of a page when it has no row limit (a column of nulls never reaches a
/// byte limit).
const MAX_PAGE_VALUES: usize = 1 << 24;

#[cold]
fn column_error(column: &str, message: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Inconsistent(format!(
        "column `{column}`: {message}"
    )))
}

/// Compressors (one per codec and level) and conversion scratch space, shared by all the
/// columns of a file.
#[derive(Debug, Default)]
pub struct Shared {
    compressors: Vec<Compressor>,
    scratch: Scratch,
    /// Dictionary page bodies; v1 page bodies assembled before compression when their
    /// levels outgrew the room kept for them before the values.
    body: Vec<u8>,
    /// Compressed dictionary page bodies.
    packed: Vec<u8>,
    /// The valid values of a fixed-width slice with nulls, gathered once for statistics,
    /// Bloom filter and encoder.
    dense: Dense,
    /// The most bytes of hash table a column's dictionary keeps between two writes (`None`:
    /// no limit); see [`Shared::set_idle_table_bytes`].
    idle_table_bytes: Option<usize>,
}

impl Shared {
    /// The index of the compressor for `codec` at `level`, created when first needed.
    pub fn compressor_index(&mut self, codec: Compression, level: Option<i32>) -> Result<usize> {
        if let Some(i) = self
            .compressors
            .iter()
            .position(|c| c.codec() == codec && (level.is_none() || c.level() == level))
        {
            return Ok(i);
        }
        self.compressors.push(Compressor::new(codec, level)?);
        Ok(self.compressors.len() - 1)
    }

    /// Sets the most bytes of hash table a column's dictionary keeps between two writes: a
    /// larger table is freed when the column's write returns (its entries stay), and rebuilt
    /// by the column's next write if the chunk goes on, when that costs no more than the
    /// write that freed it (the table has no more entries than the values written). A file
    /// writer with many columns sets a share of a budget, so that the tables of the columns
    /// waiting for their next values stay small.
    pub fn set_idle_table_bytes(&mut self, bytes: Option<usize>) {
        self.idle_table_bytes = bytes;
    }
}

/// The valid values of a slice with nulls, one buffer per fixed-width type.
#[derive(Debug, Default)]
struct Dense {
    i32s: Vec<i32>,
    i64s: Vec<i64>,
    f32s: Vec<f32>,
    f64s: Vec<f64>,
}

/// Conversion buffers, reused slice after slice.
#[derive(Debug, Default)]
struct Scratch {
    /// The keys of a dictionary slice.
    keys: Vec<usize>,
    /// The validity of a dictionary slice.
    validity: Vec<u8>,
    /// The values of the slice, converted or gathered.
    out: Buffers,
    /// The converted values of the dictionary of the array being written (dictionaries
    /// whose values need a conversion), kept from its first slice to its last.
    dict: Buffers,
    /// Where the values are in `dict`.
    dict_kind: Kind,
    /// The dictionary `dict` holds: address and length of its values array.
    dict_of: Option<(usize, usize)>,
}

/// Physical values converted from Arrow values.
#[derive(Debug, Default)]
struct Buffers {
    i32s: Vec<i32>,
    i64s: Vec<i64>,
    f32s: Vec<f32>,
    f64s: Vec<f64>,
    /// Fixed-width values back to back, or the bytes of byte strings.
    bytes: Vec<u8>,
    /// Offsets of byte strings into `bytes`.
    offsets: Vec<i64>,
    /// Booleans, LSB first.
    bits: Vec<u8>,
}

/// A slice of an Arrow array as physical values (one per slot, nulls included).
#[derive(Clone, Copy)]
enum Batch<'a> {
    Null,
    Bool(Bitmap<'a>),
    I32(&'a [i32]),
    I64(&'a [i64]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    Bytes32(&'a [i32], &'a [u8]),
    Bytes64(&'a [i64], &'a [u8]),
    Fixed(&'a [u8]),
}

/// The value encoder of data pages.
#[derive(Debug)]
enum ValueEnc {
    /// PLAIN, appended to the page's value buffer (booleans through the bit encoder).
    Plain(BooleanEncoder),
    /// RLE_DICTIONARY indices.
    Dict,
    DeltaI32(Box<DeltaBinaryPackedEncoder<i32>>),
    DeltaI64(Box<DeltaBinaryPackedEncoder<i64>>),
    DeltaLength(Box<DeltaLengthByteArrayEncoder>),
    DeltaBytes(Box<DeltaByteArrayEncoder>),
    Bss(ByteStreamSplitEncoder),
    /// RLE booleans, streamed behind a 4-byte length prefix in the value buffer.
    RleBool(RleEncoder),
}

impl ValueEnc {
    fn encoding(&self) -> Encoding {
        match self {
            ValueEnc::Plain(_) => Encoding::Plain,
            ValueEnc::Dict => Encoding::RleDictionary,
            ValueEnc::DeltaI32(_) | ValueEnc::DeltaI64(_) => Encoding::DeltaBinaryPacked,
            ValueEnc::DeltaLength(_) => Encoding::DeltaLengthByteArray,
            ValueEnc::DeltaBytes(_) => Encoding::DeltaByteArray,
            ValueEnc::Bss(_) => Encoding::ByteStreamSplit,
            ValueEnc::RleBool(_) => Encoding::Rle,
        }
    }
}

/// The dictionary of a chunk.
#[derive(Debug)]
enum Dict {
    I32(DictEncoder<i32>),
    I64(DictEncoder<i64>),
    F32(DictEncoder<f32>),
    F64(DictEncoder<f64>),
    Bytes(ByteArrayDictEncoder),
}

impl Dict {
    fn new(physical: PhysicalType, width: usize) -> Option<Dict> {
        Some(match physical {
            PhysicalType::Int32 => Dict::I32(DictEncoder::new()),
            PhysicalType::Int64 => Dict::I64(DictEncoder::new()),
            PhysicalType::Float => Dict::F32(DictEncoder::new()),
            PhysicalType::Double => Dict::F64(DictEncoder::new()),
            PhysicalType::ByteArray => Dict::Bytes(ByteArrayDictEncoder::new()),
            PhysicalType::FixedLenByteArray => Dict::Bytes(ByteArrayDictEncoder::new_fixed(width)),
            _ => return None,
        })
    }

    fn len(&self) -> usize {
        match self {
            Dict::I32(d) => d.len(),
            Dict::I64(d) => d.len(),
            Dict::F32(d) => d.len(),
            Dict::F64(d) => d.len(),
            Dict::Bytes(d) => d.len(),
        }
    }

    fn size_bytes(&self) -> usize {
        match self {
            Dict::I32(d) => d.dict_size_bytes(),
            Dict::I64(d) => d.dict_size_bytes(),
            Dict::F32(d) => d.dict_size_bytes(),
            Dict::F64(d) => d.dict_size_bytes(),
            Dict::Bytes(d) => d.dict_size_bytes(),
        }
    }

    fn write_page(&self, out: &mut Vec<u8>) -> Result<()> {
        match self {
            Dict::I32(d) => d.write_dictionary_page(out),
            Dict::I64(d) => d.write_dictionary_page(out),
            Dict::F32(d) => d.write_dictionary_page(out),
            Dict::F64(d) => d.write_dictionary_page(out),
            Dict::Bytes(d) => return d.write_dictionary_page(out),
        }
        Ok(())
    }

    fn write_indices(&self, indices: &[u32], out: &mut Vec<u8>) -> Result<()> {
        rle::encode_dictionary_indices(indices, self.len(), out)
    }

    /// Heap bytes of the hash table.
    fn table_bytes(&self) -> usize {
        match self {
            Dict::I32(d) => d.table_bytes(),
            Dict::I64(d) => d.table_bytes(),
            Dict::F32(d) => d.table_bytes(),
            Dict::F64(d) => d.table_bytes(),
            Dict::Bytes(d) => d.table_bytes(),
        }
    }

    /// Frees the hash table (no more values are interned, or the column is idle).
    fn release_table(&mut self) {
        match self {
            Dict::I32(d) => d.release_table(),
            Dict::I64(d) => d.release_table(),
            Dict::F32(d) => d.release_table(),
            Dict::F64(d) => d.release_table(),
            Dict::Bytes(d) => d.release_table(),
        }
    }

    /// The PLAIN size of the values `indices` stand for.
    fn plain_size(&self, indices: &[u32]) -> usize {
        match self {
            Dict::I32(d) => d.plain_size(indices),
            Dict::I64(d) => d.plain_size(indices),
            Dict::F32(d) => d.plain_size(indices),
            Dict::F64(d) => d.plain_size(indices),
            Dict::Bytes(d) => d.plain_size(indices),
        }
    }

    /// Encodes the values `indices` stand for with `enc` (a fallback encoder: PLAIN appends to
    /// `out`, the others keep them until their page is flushed). `fixed` is the width of
    /// FIXED_LEN_BYTE_ARRAY values.
    fn reencode(
        &self,
        name: &str,
        indices: &[u32],
        enc: &mut ValueEnc,
        out: &mut Vec<u8>,
        fixed: Option<usize>,
    ) -> Result<()> {
        match self {
            Dict::I32(d) => reencode_fixed(name, d, indices, enc, out),
            Dict::I64(d) => reencode_fixed(name, d, indices, enc, out),
            Dict::F32(d) => reencode_fixed(name, d, indices, enc, out),
            Dict::F64(d) => reencode_fixed(name, d, indices, enc, out),
            Dict::Bytes(d) => {
                let (mut offsets, mut data) = (Vec::new(), Vec::new());
                for part in indices.chunks(MINI_BATCH) {
                    d.gather(part, &mut offsets, &mut data)?;
                    match (enc as &mut ValueEnc, fixed) {
                        (ValueEnc::Plain(_), Some(w)) => {
                            plain::put_fixed_len_byte_array(&data, w, out)?
                        }
                        (ValueEnc::Plain(_), None) => plain::put_byte_array(&offsets, &data, out)?,
                        (ValueEnc::DeltaLength(e), None) => e.put(&offsets, &data)?,
                        (ValueEnc::DeltaBytes(e), Some(w)) => e.put_fixed(&data, w)?,
                        (ValueEnc::DeltaBytes(e), None) => e.put(&offsets, &data)?,
                        (ValueEnc::Bss(e), Some(_)) => e.put_bytes(&data)?,
                        _ => {
                            return Err(column_error(
                                name,
                                "internal error: no fallback encoder for the dictionary's values",
                            ))
                        }
                    }
                }
                Ok(())
            }
        }
    }
}

/// [`Dict::reencode`] for fixed-width values, a mini-batch at a time.
fn reencode_fixed<T>(
    name: &str,
    d: &DictEncoder<T>,
    indices: &[u32],
    enc: &mut ValueEnc,
    out: &mut Vec<u8>,
) -> Result<()>
where
    T: crate::encoding::encode::dictionary::DictValue + DeltaOrNot,
{
    let mut buf = Vec::with_capacity(indices.len().min(MINI_BATCH));
    for part in indices.chunks(MINI_BATCH) {
        buf.clear();
        d.gather(part, &mut buf)?;
        encode_fixed(name, enc, &buf, out)?;
    }
    Ok(())
}

/// Encodes fixed-width values with a value encoder other than the dictionary (PLAIN appends
/// to `out`, the others keep them until their page is flushed).
fn encode_fixed<T>(name: &str, enc: &mut ValueEnc, v: &[T], out: &mut Vec<u8>) -> Result<()>
where
    T: crate::encoding::encode::dictionary::DictValue + DeltaOrNot,
{
    match enc {
        ValueEnc::Plain(_) => plain::put_fixed(v, out),
        ValueEnc::Bss(e) => e.put(v)?,
        other => {
            if !T::put_delta(other, v) {
                return Err(column_error(
                    name,
                    "internal error: no encoder for these values",
                ));
            }
        }
    }
    Ok(())
}

/// A page kept in the chunk's buffers: the end of its header (in `headers`) and the range
/// of its body (in the chunk's body buffer, see [`ColumnWriter::chunk_bodies`]).
#[derive(Debug, Clone, Copy)]
struct PageSpan {
    header_end: usize,
    body_start: usize,
    body_end: usize,
}

/// A chunk's first data page tries the dictionary: once it holds this many values, all
/// distinct, or when it closes with this many values or more and the dictionary page and
/// the indices are not smaller than the PLAIN values, the chunk gives the dictionary up (the
/// page's values are encoded again with the fallback encoding, and no dictionary page is
/// written). A column with fewer distinct values than this many draws rarely shows this
/// many distinct values in a row (under 1% of uniform draws from 100,000 values); random
/// floats or identifiers always do.
pub const DICTIONARY_TRIAL_VALUES: usize = 1000;

/// The room kept before a page's values for its levels, when they are not known yet.
const LEVELS_ROOM: usize = 8;

/// What a finished chunk hands to the file writer.
#[derive(Debug)]
pub struct FinishedChunk {
    /// The chunk's metadata (byte ranges into the file writer's arena).
    pub chunk: ColumnChunk,
    /// The column index, when written.
    pub column_index: Option<BuiltColumnIndex>,
    /// The offset index.
    pub offset_index: OffsetIndex,
    /// The Bloom filter, when the column has one.
    pub bloom: Option<Sbbf>,
}

/// Writes one leaf column (see the module documentation).
#[derive(Debug)]
pub struct ColumnWriter {
    name: String,
    data_type: DataType,
    physical: PhysicalType,
    width: usize,
    max_def: i16,
    settings: ColumnSettings,
    order: StatsOrder,
    compressor: usize,
    page_bytes: Option<usize>,
    page_rows: usize,
    version: DataPageVersion,
    crc: bool,
    dict_limit: usize,
    bloom_bytes: usize,

    // The open page.
    enc: ValueEnc,
    dict: Option<Dict>,
    indices: Vec<u32>,
    /// The page's encoded values, from `page_start`; the room before them (from `page_base`)
    /// takes the levels when the page closes, so that the body is contiguous without a copy
    /// of the values. Uncompressed, this is the chunk's body buffer (earlier pages first);
    /// compressed, the page's (bodies are compressed into `bodies`).
    values: Vec<u8>,
    page_base: usize,
    page_start: usize,
    /// The room to keep for the levels of the next page.
    levels_room: usize,
    /// Room not yet made at the start of `values` (a chunk's first page makes it, and sizes
    /// the buffer, at its first write: between chunks a column holds no buffer).
    room_due: usize,
    /// The bytes of values of the last page closed (to size the next chunk's buffer).
    last_page_values: usize,
    def_levels: Vec<u8>,
    def_enc: RleEncoder,
    bools: Vec<bool>,
    compact: Vec<u8>,
    page_values: usize,
    page_nulls: usize,
    page_stats: StatsAccumulator,
    page_sizes: SizeStatsAccumulator,
    page_unencoded: u64,

    // The open chunk.
    chunk_stats: StatsAccumulator,
    chunk_sizes: SizeStatsAccumulator,
    column_index: Option<ColumnIndexBuilder>,
    offset_index: OffsetIndexBuilder,
    bloom: Option<Sbbf>,
    headers: Vec<u8>,
    bodies: Vec<u8>,
    pages: Vec<PageSpan>,
    /// Bytes of the chunk's data pages so far (headers and bodies).
    data_bytes: u64,
    chunk_values: u64,
    uncompressed: u64,
    compressed: u64,
    data_pages: Vec<(Encoding, i32)>,
}

impl ColumnWriter {
    /// A writer for the leaf `element` (of Arrow type `data_type` and Parquet type `leaf`)
    /// with `settings`. Errors (naming the column) for requests the column cannot take.
    pub fn new(
        name: &str,
        data_type: &DataType,
        leaf: &LeafType,
        element: &SchemaElement,
        settings: ColumnSettings,
        props: &WriterProperties,
        shared: &mut Shared,
    ) -> Result<ColumnWriter> {
        let physical = leaf.physical;
        let width = leaf.type_length.unwrap_or(0).max(0) as usize;
        let max_def =
            i16::from(element.repetition != Some(crate::format::metadata::Repetition::Required));
        let order = StatsOrder::for_element(element)?;
        let compressor = shared
            .compressor_index(
                settings.codec.compression(),
                settings.codec.effective_level(),
            )
            .map_err(|e| column_error(name, e))?;
        let bloom_bytes = match &settings.bloom_filter {
            Some(b) => {
                if physical == PhysicalType::Boolean {
                    return Err(column_error(name, "BOOLEAN columns have no Bloom filter"));
                }
                let rows = props.max_row_group_rows().unwrap_or(usize::MAX) as u64;
                b.num_bytes(rows)
            }
            None => 0,
        };
        let byte_array = physical == PhysicalType::ByteArray;
        let mut w = ColumnWriter {
            name: name.to_string(),
            data_type: data_type.clone(),
            physical,
            width,
            max_def,
            settings,
            order,
            compressor,
            page_bytes: props.data_page_bytes(),
            page_rows: props
                .data_page_rows()
                .unwrap_or(MAX_PAGE_VALUES)
                .min(MAX_PAGE_VALUES),
            version: props.data_page_version(),
            crc: props.page_crc(),
            dict_limit: props.dictionary_page_size_limit(),
            bloom_bytes,
            enc: ValueEnc::Dict,
            dict: None,
            indices: Vec::new(),
            values: Vec::new(),
            page_base: 0,
            page_start: 0,
            levels_room: LEVELS_ROOM,
            room_due: 0,
            last_page_values: 0,
            def_levels: Vec::new(),
            def_enc: RleEncoder::new(1)?,
            bools: Vec::new(),
            compact: Vec::new(),
            page_values: 0,
            page_nulls: 0,
            page_stats: StatsAccumulator::new(order),
            page_sizes: SizeStatsAccumulator::new(max_def, 0, byte_array),
            page_unencoded: 0,
            chunk_stats: StatsAccumulator::new(order),
            chunk_sizes: SizeStatsAccumulator::new(max_def, 0, byte_array),
            column_index: None,
            offset_index: OffsetIndexBuilder::new(byte_array),
            bloom: None,
            headers: Vec::new(),
            bodies: Vec::new(),
            pages: Vec::new(),
            data_bytes: 0,
            chunk_values: 0,
            uncompressed: 0,
            compressed: 0,
            data_pages: Vec::new(),
        };
        // Check the value encoding now, so that an impossible one fails before any output.
        w.enc = w.value_encoder(w.settings.encoding)?;
        w.start_chunk()?;
        Ok(w)
    }

    /// The column's dotted name.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn value_encoder(&self, encoding: Encoding) -> Result<ValueEnc> {
        use PhysicalType as P;
        Ok(match (encoding, self.physical) {
            (Encoding::Plain, _) => ValueEnc::Plain(BooleanEncoder::new()),
            (Encoding::Rle, P::Boolean) => ValueEnc::RleBool(RleEncoder::new(1)?),
            (Encoding::DeltaBinaryPacked, P::Int32) => ValueEnc::DeltaI32(Box::default()),
            (Encoding::DeltaBinaryPacked, P::Int64) => ValueEnc::DeltaI64(Box::new(
                DeltaBinaryPackedEncoder::with_block_size(PYARROW_INT64_BLOCK_SIZE)?,
            )),
            (Encoding::DeltaLengthByteArray, P::ByteArray) => ValueEnc::DeltaLength(Box::default()),
            (Encoding::DeltaByteArray, P::ByteArray | P::FixedLenByteArray) => {
                ValueEnc::DeltaBytes(Box::default())
            }
            (Encoding::ByteStreamSplit, P::Int32 | P::Float) => {
                ValueEnc::Bss(ByteStreamSplitEncoder::new(4)?)
            }
            (Encoding::ByteStreamSplit, P::Int64 | P::Double) => {
                ValueEnc::Bss(ByteStreamSplitEncoder::new(8)?)
            }
            (Encoding::ByteStreamSplit, P::FixedLenByteArray) => {
                ValueEnc::Bss(ByteStreamSplitEncoder::new(self.width)?)
            }
            (e, p) => {
                return Err(column_error(
                    &self.name,
                    format_args!("the {e} encoding cannot encode {p} values"),
                ))
            }
        })
    }

    /// Prepares the state of a new chunk.
    fn start_chunk(&mut self) -> Result<()> {
        self.dict = if self.settings.dictionary {
            Dict::new(self.physical, self.width)
        } else {
            None
        };
        self.enc = if self.dict.is_some() {
            ValueEnc::Dict
        } else {
            self.value_encoder(self.settings.encoding)?
        };
        self.column_index = (self.settings.statistics == StatisticsLevel::Page)
            .then(|| ColumnIndexBuilder::new(self.order, self.settings.max_statistics_len));
        self.offset_index = OffsetIndexBuilder::new(self.physical == PhysicalType::ByteArray);
        self.bloom = (self.bloom_bytes > 0).then(|| Sbbf::new(self.bloom_bytes));
        self.chunk_stats.clear();
        self.chunk_sizes.clear();
        self.chunk_values = 0;
        self.uncompressed = 0;
        self.compressed = 0;
        self.data_pages.clear();
        self.pages.clear();
        self.data_bytes = 0;
        self.begin_page();
        Ok(())
    }

    /// Bytes of the chunk's buffered pages (for the row group byte budget).
    pub fn buffered_bytes(&self) -> usize {
        self.headers.len()
            + self.bodies.len()
            + self.values.len()
            + self.indices.len()
            + self.def_levels.len()
            + self.dict.as_ref().map_or(0, Dict::size_bytes)
    }

    /// Writes `array` (all its rows) to the open chunk.
    pub fn write(&mut self, array: &ArrayRef, shared: &mut Shared) -> Result<()> {
        let n = array.len();
        if self.max_def == 0 && array.null_count() > 0 {
            return Err(column_error(
                &self.name,
                "the field is not nullable but the array has nulls",
            ));
        }
        if self.page_values == 0 {
            self.make_due_room();
        }
        let mut off = 0;
        while off < n {
            let room = self.page_rows - self.page_values;
            let k = (n - off).min(MINI_BATCH).min(room.max(1));
            self.write_slice(array.as_ref(), off, k, shared)?;
            off += k;
            if self.dict_over_limit() {
                self.flush_page(shared)?;
                self.fall_back()?;
            } else {
                if self.dict_all_distinct() {
                    self.give_up_dictionary()?;
                }
                if self.page_full() {
                    self.flush_page(shared)?;
                }
            }
        }
        // The column now waits for its next values: a large hash table is freed (see
        // `Shared::set_idle_table_bytes`).
        if let (ValueEnc::Dict, Some(d), Some(limit)) =
            (&self.enc, &mut self.dict, shared.idle_table_bytes)
        {
            if d.table_bytes() > limit && d.len() <= n {
                d.release_table();
            }
        }
        Ok(())
    }

    /// True if the open page reached a limit.
    fn page_full(&self) -> bool {
        if self.page_values >= self.page_rows {
            return true;
        }
        match self.page_bytes {
            Some(limit) => self.estimated_page_bytes() >= limit,
            None => false,
        }
    }

    fn estimated_page_bytes(&self) -> usize {
        let values = match &self.enc {
            ValueEnc::Plain(_) | ValueEnc::RleBool(_) => {
                self.values.len().saturating_sub(self.page_start)
            }
            ValueEnc::Dict => {
                let entries = self.dict.as_ref().map_or(0, Dict::len);
                let bits = bit_width(entries.saturating_sub(1) as u64) as usize;
                1 + (self.indices.len() * bits).div_ceil(8)
            }
            ValueEnc::DeltaI32(e) => e.estimated_len(),
            ValueEnc::DeltaI64(e) => e.estimated_len(),
            ValueEnc::DeltaLength(e) => e.estimated_len(),
            ValueEnc::DeltaBytes(e) => e.estimated_len(),
            ValueEnc::Bss(e) => e.len() * self.value_width(),
        };
        values + self.def_levels.len()
    }

    /// Writes rows `off..off + len` of `array`.
    fn write_slice(
        &mut self,
        array: &dyn Array,
        off: usize,
        len: usize,
        shared: &mut Shared,
    ) -> Result<()> {
        let Shared { scratch, dense, .. } = shared;
        let (batch, validity) = to_batch(
            &self.name,
            &self.data_type,
            self.width,
            array,
            off,
            len,
            scratch,
        )?;
        self.put(batch, validity, len, dense)
    }

    /// Puts `n` slots: their values (`batch`) and validity (`None`: all valid).
    fn put(
        &mut self,
        batch: Batch<'_>,
        validity: Option<Bitmap<'_>>,
        n: usize,
        dense: &mut Dense,
    ) -> Result<()> {
        let valid = match (&batch, validity) {
            (Batch::Null, _) => 0,
            (_, Some(v)) => v.count_ones(),
            (_, None) => n,
        };
        let nulls = n - valid;
        if self.max_def == 0 && nulls > 0 {
            return Err(column_error(
                &self.name,
                "the field is not nullable but the array has nulls (or dictionary keys to null values)",
            ));
        }
        if self.page_values == 0 {
            if let ValueEnc::RleBool(_) = self.enc {
                rle::begin_length_prefix(&mut self.values);
            }
        }
        // Definition levels, straight from the validity bitmap.
        if self.max_def > 0 {
            match (&batch, validity) {
                (Batch::Null, _) => self.def_enc.put_repeated(0, n, &mut self.def_levels)?,
                (_, Some(v)) => self.def_enc.put_bitmap(v, &mut self.def_levels)?,
                (_, None) => self.def_enc.put_repeated(1, n, &mut self.def_levels)?,
            }
        }
        let stats = self.settings.statistics != StatisticsLevel::None;
        if stats {
            self.page_stats.add_nulls(nulls as u64);
            if self.max_def > 0 {
                self.page_sizes.add_def_level_run(1, valid as u64);
                self.page_sizes.add_def_level_run(0, nulls as u64);
            }
        }
        self.page_values += n;
        self.page_nulls += nulls;
        let runs = |f: &mut dyn FnMut(usize, usize)| match validity {
            Some(v) => v.for_each_set_run(f),
            None => f(0, n),
        };
        // A fixed-width batch: statistics and bloom filter over the valid runs, then the
        // values through the chunk's encoder (or dictionary of that type).
        macro_rules! fixed_arm {
            ($v:expr, $update:ident, $hash:ident, $dict:ident, $dense:ident) => {{
                // With nulls, the valid values are gathered once (branch-free) and everything
                // after works on the dense slice.
                let v = match validity {
                    Some(m) if valid < n => {
                        m.compact($v, &mut dense.$dense);
                        &dense.$dense[..]
                    }
                    _ => $v,
                };
                if stats {
                    self.page_stats.$update(v);
                }
                if let Some(b) = &mut self.bloom {
                    v.iter().for_each(|&x| b.insert_hash($hash(x)));
                }
                self.put_fixed(v, |d| match d {
                    Dict::$dict(d) => Some(d),
                    _ => None,
                })?;
            }};
        }
        match batch {
            Batch::Null => {}
            Batch::Bool(bits) => {
                self.bools.clear();
                let bools = &mut self.bools;
                runs(&mut |i, k| {
                    for j in i..i + k {
                        bools.push(bits.word(j) & 1 == 1);
                    }
                });
                if stats {
                    self.page_stats.update_bool(&self.bools);
                }
                match &mut self.enc {
                    ValueEnc::Plain(b) => match validity {
                        Some(v) => {
                            b.put_valid(bits, v, &mut self.values)?;
                        }
                        None => b.put(bits, &mut self.values),
                    },
                    ValueEnc::RleBool(r) => r.put(&self.bools, &mut self.values)?,
                    _ => return Err(self.internal("boolean encoder")),
                }
            }
            Batch::I32(v) => fixed_arm!(v, update_i32, hash_i32, I32, i32s),
            Batch::I64(v) => fixed_arm!(v, update_i64, hash_i64, I64, i64s),
            Batch::F32(v) => fixed_arm!(v, update_f32, hash_f32, F32, f32s),
            Batch::F64(v) => fixed_arm!(v, update_f64, hash_f64, F64, f64s),
            Batch::Bytes32(o, d) => self.put_bytes(o, d, validity, n, stats)?,
            Batch::Bytes64(o, d) => self.put_bytes(o, d, validity, n, stats)?,
            Batch::Fixed(data) => {
                let w = self.width;
                // The valid values back to back (the encoders of fixed-width bytes take no
                // validity).
                let data: &[u8] = match validity {
                    None => data,
                    Some(v) => {
                        self.compact.clear();
                        let c = &mut self.compact;
                        v.for_each_set_run(|i, k| c.extend_from_slice(&data[i * w..(i + k) * w]));
                        &self.compact
                    }
                };
                if stats {
                    self.page_stats.update_fixed(data, w);
                }
                if let Some(b) = &mut self.bloom {
                    data.chunks_exact(w.max(1)).for_each(|x| b.insert_bytes(x));
                }
                match &mut self.enc {
                    ValueEnc::Plain(_) => {
                        plain::put_fixed_len_byte_array(data, w, &mut self.values)?
                    }
                    ValueEnc::Dict => match &mut self.dict {
                        Some(Dict::Bytes(d)) => d.put_fixed(data, &mut self.indices)?,
                        _ => return Err(self.internal("fixed dictionary")),
                    },
                    ValueEnc::DeltaBytes(e) => e.put_fixed(data, w)?,
                    ValueEnc::Bss(e) => e.put_bytes(data)?,
                    _ => return Err(self.internal("fixed encoder")),
                }
            }
        }
        Ok(())
    }

    #[cold]
    fn internal(&self, what: &str) -> Error {
        column_error(
            &self.name,
            format_args!("internal error: no {what} for this column"),
        )
    }

    /// Encodes fixed-width values (`i32`, `i64`, `f32`, `f64`), all valid (a batch with
    /// nulls is compacted first).
    fn put_fixed<T>(
        &mut self,
        v: &[T],
        dict_of: impl Fn(&mut Dict) -> Option<&mut DictEncoder<T>>,
    ) -> Result<()>
    where
        T: crate::encoding::encode::dictionary::DictValue + DeltaOrNot,
    {
        if let ValueEnc::Dict = self.enc {
            let Some(d) = self.dict.as_mut().and_then(dict_of) else {
                return Err(column_error(&self.name, "internal error: dictionary type"));
            };
            return d.put(v, &mut self.indices);
        }
        encode_fixed(&self.name, &mut self.enc, v, &mut self.values)
    }

    /// Puts byte strings (`offsets` into `data`, one per slot; `validity`: `None` when all
    /// are valid).
    fn put_bytes<O: crate::encoding::OffsetSize>(
        &mut self,
        offsets: &[O],
        data: &[u8],
        validity: Option<Bitmap<'_>>,
        n: usize,
        stats: bool,
    ) -> Result<()> {
        // One pass over the valid runs: their unencoded bytes, statistics and Bloom filter.
        let at = |i: usize| offsets.get(i).and_then(|o| o.to_usize()).unwrap_or(0);
        let mut page_stats = stats.then_some(&mut self.page_stats);
        let mut bloom = self.bloom.as_mut();
        let mut unencoded = 0u64;
        let mut run = |i: usize, k: usize| {
            unencoded += at(i + k).saturating_sub(at(i)) as u64;
            let run = offsets.get(i..=i + k).unwrap_or_default();
            if let Some(s) = &mut page_stats {
                s.update_byte_array_offsets(run, data);
            }
            if let Some(b) = &mut bloom {
                for w in run.windows(2) {
                    let (s, e) = (w[0].to_usize().unwrap_or(0), w[1].to_usize().unwrap_or(0));
                    b.insert_bytes(data.get(s..e).unwrap_or_default());
                }
            }
        };
        match validity {
            Some(v) => v.for_each_set_run(&mut run),
            None => run(0, n),
        }
        if stats {
            self.page_sizes.add_unencoded_bytes(unencoded);
        }
        self.page_unencoded += unencoded;
        let Some(offsets) = offsets.get(..=n) else {
            return Err(self.internal("offset for every value"));
        };
        match &mut self.enc {
            ValueEnc::Plain(_) => match validity {
                Some(m) => {
                    plain::put_byte_array_valid(offsets, data, m, &mut self.values)?;
                }
                None => plain::put_byte_array(offsets, data, &mut self.values)?,
            },
            ValueEnc::Dict => match (&mut self.dict, validity) {
                (Some(Dict::Bytes(d)), Some(m)) => {
                    d.put_valid(offsets, data, m, &mut self.indices)?;
                }
                (Some(Dict::Bytes(d)), None) => d.put(offsets, data, &mut self.indices)?,
                _ => return Err(self.internal("byte array dictionary")),
            },
            ValueEnc::DeltaLength(e) => match validity {
                Some(m) => {
                    e.put_valid(offsets, data, m)?;
                }
                None => e.put(offsets, data)?,
            },
            ValueEnc::DeltaBytes(e) => match validity {
                Some(m) => {
                    e.put_valid(offsets, data, m)?;
                }
                None => e.put(offsets, data)?,
            },
            _ => return Err(self.internal("byte array encoder")),
        }
        Ok(())
    }

    /// The PLAIN width of one value (0 for byte arrays and booleans).
    fn value_width(&self) -> usize {
        match self.physical {
            PhysicalType::Int32 | PhysicalType::Float => 4,
            PhysicalType::Int64 | PhysicalType::Double => 8,
            PhysicalType::FixedLenByteArray => self.width,
            _ => 0,
        }
    }

    /// Closes the open page: assembles, compresses and keeps it in the chunk's buffers, and
    /// records its statistics and index entries.
    fn flush_page(&mut self, shared: &mut Shared) -> Result<()> {
        if self.page_values == 0 {
            return Ok(());
        }
        if self.page_base > self.page_start || self.page_start > self.values.len() {
            return Err(self.internal("page buffer"));
        }
        let too_big = |name: &str, what: &str, v: usize| {
            i32::try_from(v).map_err(|_| {
                column_error(
                    name,
                    format_args!("a page {what} of {v} does not fit an i32"),
                )
            })
        };
        let num_values = too_big(&self.name, "value count", self.page_values)?;
        let num_nulls = too_big(&self.name, "null count", self.page_nulls)?;
        // Values: everything ends in `self.values`, from `page_start`.
        if let ValueEnc::Dict = self.enc {
            let d = self
                .dict
                .as_ref()
                .ok_or_else(|| column_error(&self.name, "internal error: no dictionary"))?;
            d.write_indices(&self.indices, &mut self.values)?;
            // The chunk's first page decides whether the dictionary pays.
            let encoded = self.values.len() - self.page_start;
            if self.pages.is_empty()
                && self.indices.len() >= DICTIONARY_TRIAL_VALUES
                && d.size_bytes() + encoded >= d.plain_size(&self.indices)
            {
                self.values.truncate(self.page_start);
                self.give_up_dictionary()?;
            }
            self.indices.clear();
        }
        let encoding = self.enc.encoding();
        match &mut self.enc {
            ValueEnc::Plain(b) => b.reset(),
            ValueEnc::Dict => {}
            ValueEnc::DeltaI32(e) => e.flush(&mut self.values),
            ValueEnc::DeltaI64(e) => e.flush(&mut self.values),
            ValueEnc::DeltaLength(e) => e.flush(&mut self.values),
            ValueEnc::DeltaBytes(e) => e.flush(&mut self.values),
            ValueEnc::Bss(e) => e.flush(&mut self.values),
            ValueEnc::RleBool(r) => {
                r.flush(&mut self.values);
                rle::end_length_prefix(&mut self.values, self.page_start)?;
            }
        }
        if self.max_def > 0 {
            self.def_enc.flush(&mut self.def_levels);
        }
        let name = &self.name;
        let compressor = shared
            .compressors
            .get_mut(self.compressor)
            .ok_or_else(|| column_error(name, "internal error: the writer's compressor"))?;
        let codec = compressor.codec();
        let plain_body = codec == Compression::Uncompressed;
        let levels_len = self.def_levels.len();
        let values_len = self.values.len() - self.page_start;
        // The body: levels right before the values when they fit the room kept there (else
        // a copy: into a scratch buffer before compression, or moving the values on).
        // Uncompressed, the body stays where it is; compressed, it is compressed into
        // `bodies`.
        let (page_type, uncompressed_len, v2_levels_len, body_start, body_end) = match self.version
        {
            DataPageVersion::V1 => {
                let levels = if self.max_def > 0 { 4 + levels_len } else { 0 };
                let total = levels + values_len;
                let fits = self.page_start - self.page_base >= levels;
                if fits || plain_body {
                    let start = self.put_levels(levels > 0)?;
                    if plain_body {
                        (PageType::DataPage, total, 0, start, self.values.len())
                    } else {
                        let b = self.bodies.len();
                        compressor.compress(&self.values[start..], &mut self.bodies)?;
                        (PageType::DataPage, total, 0, b, self.bodies.len())
                    }
                } else {
                    // The levels outgrew the room kept for them: assembled in a scratch
                    // buffer (the next pages keep more room).
                    let body = &mut shared.body;
                    body.clear();
                    push_prefixed(body, &self.def_levels)?;
                    body.extend_from_slice(&self.values[self.page_start..]);
                    let b = self.bodies.len();
                    compressor.compress(body, &mut self.bodies)?;
                    (PageType::DataPage, total, 0, b, self.bodies.len())
                }
            }
            DataPageVersion::V2 => {
                let total = levels_len + values_len;
                if plain_body {
                    let start = self.put_levels(false)?;
                    (
                        PageType::DataPageV2,
                        total,
                        levels_len,
                        start,
                        self.values.len(),
                    )
                } else {
                    let b = self.bodies.len();
                    self.bodies.extend_from_slice(&self.def_levels);
                    compressor.compress(&self.values[self.page_start..], &mut self.bodies)?;
                    (
                        PageType::DataPageV2,
                        total,
                        levels_len,
                        b,
                        self.bodies.len(),
                    )
                }
            }
        };
        let body = self
            .chunk_bodies()
            .get(body_start..body_end)
            .ok_or_else(|| column_error(&self.name, "internal error: page body range"))?;
        let compressed_len = body.len();
        let crc = self.crc.then(|| crc32fast::hash(body) as i32);
        // Page statistics in the header at the `page` level.
        let mut arena = Arena::default();
        let statistics = (self.settings.statistics == StatisticsLevel::Page).then(|| {
            self.page_stats
                .to_statistics(&mut arena, self.settings.max_statistics_len)
        });
        let header = PageHeader {
            page_type,
            uncompressed_page_size: too_big(&self.name, "size", uncompressed_len)?,
            compressed_page_size: too_big(&self.name, "size", compressed_len)?,
            crc,
            data_page_header: (page_type == PageType::DataPage).then(|| DataPageHeader {
                num_values,
                encoding,
                definition_level_encoding: Encoding::Rle,
                repetition_level_encoding: Encoding::Rle,
                statistics: statistics.clone(),
                unknown: UnknownFields::default(),
            }),
            index_page_header: None,
            dictionary_page_header: None,
            data_page_header_v2: (page_type == PageType::DataPageV2).then(|| DataPageHeaderV2 {
                num_values,
                num_nulls,
                num_rows: num_values,
                encoding,
                definition_levels_byte_length: v2_levels_len as i32,
                repetition_levels_byte_length: 0,
                is_compressed: Some(codec != Compression::Uncompressed),
                statistics: statistics.clone(),
                unknown: UnknownFields::default(),
            }),
            unknown: UnknownFields::default(),
        };
        let header_start = self.headers.len();
        header.encode(&mut Writer::new(&mut self.headers), arena.as_slice());
        let header_len = self.headers.len() - header_start;
        self.pages.push(PageSpan {
            header_end: self.headers.len(),
            body_start,
            body_end,
        });
        // Where the page lands relative to the first data page.
        self.offset_index.add_page(
            self.data_bytes,
            header_len + compressed_len,
            self.chunk_values,
            Some(self.page_unencoded),
        )?;
        self.data_bytes += (header_len + compressed_len) as u64;
        if let Some(ci) = &mut self.column_index {
            ci.add_page(&self.page_stats, Some(&self.page_sizes));
        }
        self.chunk_stats.merge(&self.page_stats);
        self.chunk_sizes.merge(&self.page_sizes);
        self.page_stats.clear();
        self.page_sizes.clear();
        self.uncompressed += (header_len + uncompressed_len) as u64;
        self.compressed += (header_len + compressed_len) as u64;
        self.chunk_values += self.page_values as u64;
        match self.data_pages.iter_mut().find(|(e, _)| *e == encoding) {
            Some((_, c)) => *c += 1,
            None => self.data_pages.push((encoding, 1)),
        }
        self.page_values = 0;
        self.page_nulls = 0;
        self.page_unencoded = 0;
        // Room for the levels of the next page: those of this one, and some slack.
        self.levels_room = levels_len + levels_len / 4 + LEVELS_ROOM;
        self.last_page_values = values_len;
        self.def_levels.clear();
        if !plain_body {
            self.values.clear();
        }
        self.begin_page();
        Ok(())
    }

    /// The buffer holding the chunk's page bodies: the values buffer when they are not
    /// compressed (each page's body is left where its values were encoded).
    fn chunk_bodies(&self) -> &[u8] {
        if self.settings.codec.compression() == Compression::Uncompressed {
            &self.values
        } else {
            &self.bodies
        }
    }

    /// Starts the values of a page at the end of `values`, after room for its levels (v1:
    /// with their length prefix) when they go before the values in place: uncompressed
    /// pages, and compressed v1 pages (compressed from one contiguous slice).
    fn begin_page(&mut self) {
        let room = match (self.version, self.max_def > 0) {
            (_, false) => 0,
            (DataPageVersion::V1, true) => 4 + self.levels_room,
            (DataPageVersion::V2, true) => {
                if self.settings.codec.compression() == Compression::Uncompressed {
                    self.levels_room
                } else {
                    0
                }
            }
        };
        self.page_base = self.values.len();
        if self.values.capacity() == 0 {
            // A new chunk: the room is made at its first write.
            self.room_due = room;
        } else {
            self.values.resize(self.page_base + room, 0);
        }
        self.page_start = self.values.len();
    }

    /// Makes the room a new chunk's first page keeps for its levels, in a buffer sized as the
    /// column's last page (nothing when the buffer already holds bytes).
    fn make_due_room(&mut self) {
        if !self.values.is_empty() {
            return;
        }
        // Dictionary indices are kept apart until the page closes.
        let hint = match self.enc {
            ValueEnc::Dict => 0,
            _ => self.last_page_values,
        };
        if self.room_due > 0 || (self.values.capacity() == 0 && hint > 0) {
            let room = std::mem::take(&mut self.room_due);
            self.values.reserve(room + hint);
            self.values.resize(room, 0);
            self.page_base = 0;
            self.page_start = room;
        }
    }

    /// Puts the page's levels right before its values (`prefixed`: behind their 4-byte
    /// length, as v1 pages have them), in the room kept there, else moving the values on
    /// (levels that outgrew the room); returns where the body starts in `values`.
    fn put_levels(&mut self, prefixed: bool) -> Result<usize> {
        let len = self.def_levels.len();
        let need = len + if prefixed { 4 } else { 0 };
        let have = self.page_start - self.page_base;
        if have < need {
            self.make_room(need - have);
        }
        let start = self.page_start - need;
        let room = &mut self.values[start..self.page_start];
        room[need - len..].copy_from_slice(&self.def_levels);
        if prefixed {
            rle::end_length_prefix(room, 0)?;
        }
        Ok(start)
    }

    /// Moves the open page's values `extra` bytes on, making room before them.
    #[cold]
    fn make_room(&mut self, extra: usize) {
        let end = self.values.len();
        self.values.resize(end + extra, 0);
        self.values
            .copy_within(self.page_start..end, self.page_start + extra);
        self.page_start += extra;
    }

    /// Closes the chunk of the row group: writes its pages to `out` (whose next byte is at
    /// file offset `pos`), and returns its metadata (byte values into `arena`), page indexes
    /// and Bloom filter. The chunk's buffers are released.
    pub fn finish_chunk<W: Write>(
        &mut self,
        out: &mut W,
        pos: u64,
        arena: &mut Arena,
        shared: &mut Shared,
    ) -> Result<(FinishedChunk, u64)> {
        self.flush_page(shared)?;
        let name = &self.name;
        let compressor = shared
            .compressors
            .get_mut(self.compressor)
            .ok_or_else(|| column_error(name, "internal error: the writer's compressor"))?;
        let codec = compressor.codec();
        let mut written = 0u64;
        let mut chunk = ColumnChunk::new(self.physical, codec);
        // The dictionary page, when the chunk used the dictionary.
        let dict_used = self
            .data_pages
            .iter()
            .any(|(e, _)| *e == Encoding::RleDictionary);
        let mut dict_offset = None;
        if let (true, Some(d)) = (dict_used, &self.dict) {
            let plain = &mut shared.body;
            plain.clear();
            d.write_page(plain)?;
            let body: &[u8] = if codec == Compression::Uncompressed {
                plain
            } else {
                shared.packed.clear();
                compressor.compress(plain, &mut shared.packed)?;
                &shared.packed
            };
            let fit = |v: usize| {
                i32::try_from(v).map_err(|_| {
                    column_error(
                        name,
                        format_args!(
                            "a dictionary page of {v} bytes or entries does not fit an i32"
                        ),
                    )
                })
            };
            let header = PageHeader {
                page_type: PageType::DictionaryPage,
                uncompressed_page_size: fit(plain.len())?,
                compressed_page_size: fit(body.len())?,
                crc: self.crc.then(|| crc32fast::hash(body) as i32),
                data_page_header: None,
                index_page_header: None,
                dictionary_page_header: Some(DictionaryPageHeader {
                    num_values: fit(d.len())?,
                    encoding: Encoding::Plain,
                    is_sorted: None,
                    unknown: UnknownFields::default(),
                }),
                data_page_header_v2: None,
                unknown: UnknownFields::default(),
            };
            let mut h = Vec::new();
            header.encode(&mut Writer::new(&mut h), &[]);
            out.write_all(&h)?;
            out.write_all(body)?;
            dict_offset = Some(pos);
            written += (h.len() + body.len()) as u64;
            self.uncompressed += (h.len() + plain.len()) as u64;
            self.compressed += (h.len() + body.len()) as u64;
        }
        // The data pages, each header then body, straight from the chunk's buffers.
        let data_start = pos + written;
        let bodies = self.chunk_bodies();
        let mut h0 = 0;
        for p in &self.pages {
            let (Some(header), Some(body)) = (
                self.headers.get(h0..p.header_end),
                bodies.get(p.body_start..p.body_end),
            ) else {
                return Err(column_error(&self.name, "internal error: page spans"));
            };
            out.write_all(header)?;
            out.write_all(body)?;
            written += (header.len() + body.len()) as u64;
            h0 = p.header_end;
        }
        let as_i64 = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        chunk.set_num_values(as_i64(self.chunk_values));
        chunk.set_sizes(as_i64(self.uncompressed), as_i64(self.compressed));
        chunk.set_data_page_offset(as_i64(data_start));
        chunk.set_dictionary_page_offset(dict_offset.map(as_i64));
        // Encodings as parquet-cpp lists them.
        let mut encodings = EncodingList::new();
        let mut add = |e: Encoding| {
            if !encodings.contains(e) {
                encodings.push(e);
            }
        };
        if dict_offset.is_some() {
            add(Encoding::Plain);
        }
        add(Encoding::Rle);
        for (e, _) in &self.data_pages {
            add(*e);
        }
        chunk.set_encodings(encodings);
        let mut stats = Vec::with_capacity(1 + self.data_pages.len());
        if dict_offset.is_some() {
            stats.push(PageEncodingStats {
                page_type: PageType::DictionaryPage,
                encoding: Encoding::Plain,
                count: 1,
            });
        }
        let data_type = match self.version {
            DataPageVersion::V1 => PageType::DataPage,
            DataPageVersion::V2 => PageType::DataPageV2,
        };
        for (e, c) in &self.data_pages {
            stats.push(PageEncodingStats {
                page_type: data_type,
                encoding: *e,
                count: *c,
            });
        }
        chunk.set_encoding_stats(&stats, arena);
        if self.settings.statistics != StatisticsLevel::None {
            chunk.set_statistics(
                self.chunk_stats
                    .to_statistics(arena, self.settings.max_statistics_len),
            );
            if let Some(s) = self.chunk_sizes.to_size_statistics() {
                chunk.set_size_statistics(&s, arena);
            }
        }
        let offset_index = std::mem::take(&mut self.offset_index).finish(data_start)?;
        let column_index = self
            .column_index
            .take()
            .and_then(ColumnIndexBuilder::finish);
        let bloom = self.bloom.take().map(|mut b| {
            if let Some(p) = &self.settings.bloom_filter {
                b.fold_to(p.num_bytes(self.chunk_values));
            }
            b
        });
        // Release the chunk's buffers: between chunks a column holds no page data.
        self.headers = Vec::new();
        self.bodies = Vec::new();
        self.values = Vec::new();
        self.indices = Vec::new();
        self.def_levels = Vec::new();
        self.bools = Vec::new();
        self.compact = Vec::new();
        self.pages = Vec::new();
        self.dict = None;
        self.start_chunk()?;
        Ok((
            FinishedChunk {
                chunk,
                column_index,
                offset_index,
                bloom,
            },
            written,
        ))
    }

    /// True if the dictionary passed its size limit (the column falls back).
    fn dict_over_limit(&self) -> bool {
        matches!(self.enc, ValueEnc::Dict)
            && self
                .dict
                .as_ref()
                .is_some_and(|d| d.size_bytes() > self.dict_limit)
    }

    /// Switches to the fallback encoding for the rest of the chunk (the dictionary keeps its
    /// entries: it is still written, for the pages that use it; its hash table is freed).
    fn fall_back(&mut self) -> Result<()> {
        self.enc = self.value_encoder(self.settings.encoding)?;
        if let Some(d) = &mut self.dict {
            d.release_table();
        }
        Ok(())
    }

    /// True if the chunk's first page has [`DICTIONARY_TRIAL_VALUES`] values or more and
    /// every one is a new dictionary entry (the dictionary would only add its indices).
    fn dict_all_distinct(&self) -> bool {
        matches!(self.enc, ValueEnc::Dict)
            && self.pages.is_empty()
            && self.indices.len() >= DICTIONARY_TRIAL_VALUES
            && self
                .dict
                .as_ref()
                .is_some_and(|d| d.len() == self.indices.len())
    }

    /// Gives up the dictionary of a chunk whose first page is open: the page's values (its
    /// indices) are encoded again with the fallback encoding, which the rest of the chunk
    /// uses, and the dictionary is dropped (no page uses it, none is written).
    fn give_up_dictionary(&mut self) -> Result<()> {
        if !self.pages.is_empty() {
            return Err(self.internal("dictionary to give up"));
        }
        let Some(dict) = self.dict.take() else {
            return Err(self.internal("dictionary to give up"));
        };
        let mut enc = self.value_encoder(self.settings.encoding)?;
        let fixed = (self.physical == PhysicalType::FixedLenByteArray).then_some(self.width);
        dict.reencode(&self.name, &self.indices, &mut enc, &mut self.values, fixed)?;
        self.enc = enc;
        self.indices = Vec::new();
        Ok(())
    }
}

/// DELTA_BINARY_PACKED for the integer types; nothing for floats.
trait DeltaOrNot: Sized {
    /// Puts `v` into `enc` when it is a delta encoder of this type; false if it is not.
    fn put_delta(enc: &mut ValueEnc, v: &[Self]) -> bool;
}

macro_rules! delta_or_not {
    ($t:ty, $variant:ident) => {
        impl DeltaOrNot for $t {
            fn put_delta(enc: &mut ValueEnc, v: &[Self]) -> bool {
                match enc {
                    ValueEnc::$variant(e) => {
                        e.put(v);
                        true
                    }
                    _ => false,
                }
            }
        }
    };
    ($t:ty) => {
        impl DeltaOrNot for $t {
            fn put_delta(_: &mut ValueEnc, _: &[Self]) -> bool {
                false
            }
        }
    };
}
delta_or_not!(i32, DeltaI32);
delta_or_not!(i64, DeltaI64);
delta_or_not!(f32);
delta_or_not!(f64);

/// Appends `data` behind its 4-byte little-endian length (v1 levels).
fn push_prefixed(out: &mut Vec<u8>, data: &[u8]) -> Result<()> {
    let pos = rle::begin_length_prefix(out);
    out.extend_from_slice(data);
    rle::end_length_prefix(out, pos)
}

/// The validity of slots `off..off + len` of `array` (`None` when all are valid).
fn validity_of(array: &dyn Array, off: usize, len: usize) -> Result<Option<Bitmap<'_>>> {
    match array.nulls() {
        Some(n) if n.null_count() > 0 => {
            let b = n.inner();
            Ok(Some(Bitmap::new(b.values(), b.offset() + off, len)?))
        }
        _ => Ok(None),
    }
}

/// Fixed-width values of a primitive array of native type `T` viewed as `U` of the same
/// width (e.g. `u32` as `i32`), slots `off..off + len`.
fn prim<T: ArrowPrimitiveType, U: arrow_buffer::ArrowNativeType>(
    array: &dyn Array,
    off: usize,
    len: usize,
) -> &[U] {
    let v = array.as_primitive::<T>().values().inner().typed_data::<U>();
    &v[off..off + len]
}

/// Converts the values of slots `off..off + len` with `f` into `out`.
fn convert<T: ArrowPrimitiveType, U>(
    array: &dyn Array,
    off: usize,
    len: usize,
    out: &mut Vec<U>,
    f: impl Fn(T::Native) -> U,
) {
    out.clear();
    out.extend(
        array.as_primitive::<T>().values()[off..off + len]
            .iter()
            .map(|&v| f(v)),
    );
}

/// A value of a valid slot that its conversion refuses (it does not fit the physical type):
/// the slot (from the first converted one) and the Arrow value.
#[derive(Debug, Clone, Copy)]
struct Unfit {
    slot: usize,
    value: i64,
}

/// Converts the values of slots `off..off + len` with the checked `f` into `out` (`None`:
/// only checks them), and returns the valid slots (per `validity`) whose value `f` refuses, in
/// order (none, without allocating, in the usual case). A refused value becomes 0 in `out`: a
/// null slot's value is never written, and a valid slot's is an error for the caller, before
/// it is put. The loop only sets a flag per value; the slots are looked at only when a value
/// was refused.
fn convert_checked<T: ArrowPrimitiveType, U: Default>(
    array: &dyn Array,
    off: usize,
    len: usize,
    validity: Option<Bitmap<'_>>,
    out: Option<&mut Vec<U>>,
    f: impl Fn(T::Native) -> Option<U>,
) -> Vec<Unfit>
where
    T::Native: Into<i64>,
{
    let values = &array.as_primitive::<T>().values()[off..off + len];
    let refused = match out {
        Some(out) => {
            out.clear();
            let mut refused = false;
            out.extend(values.iter().map(|&v| {
                let u = f(v);
                refused |= u.is_none();
                u.unwrap_or_default()
            }));
            refused
        }
        None => values.iter().fold(false, |r, &v| r | f(v).is_none()),
    };
    if !refused {
        return Vec::new();
    }
    values
        .iter()
        .enumerate()
        .filter(|&(i, &v)| f(v).is_none() && validity.is_none_or(|b| b.word(i) & 1 == 1))
        .map(|(slot, &v)| Unfit {
            slot,
            value: v.into(),
        })
        .collect()
}

/// Why `data_type` refuses `value` (the types [`convert_checked`] converts).
#[cold]
fn unfit_reason(data_type: &DataType, value: i64) -> String {
    use ArrowTimeUnit as U;
    match data_type {
        // Parquet has no seconds unit: seconds are written as milliseconds.
        DataType::Timestamp(U::Second, _) => format!(
            "the Timestamp(Second) value {value} s does not fit INT64 milliseconds (at most \
             {} s either side of 1970-01-01)",
            i64::MAX / 1000
        ),
        DataType::Time32(U::Second) => format!(
            "the Time32(Second) value {value} s does not fit INT32 milliseconds (at most {} s \
             either side of 0)",
            i32::MAX / 1000
        ),
        DataType::Date64 => format!(
            "the Date64 value {value} ms is {} days from 1970-01-01, more than the INT32 days \
             of a DATE hold",
            value / MS_PER_DAY
        ),
        other => format!("the {other} value {value} does not fit its physical type"),
    }
}

/// The error for row `row` (of the array given to [`ColumnWriter::write`]) whose value of type
/// `data_type` its conversion refuses; `what` says where the value is when not in the row
/// itself (a dictionary's values).
#[cold]
fn unfit_error(name: &str, data_type: &DataType, row: usize, value: i64, what: &str) -> Error {
    Error::new(ErrorKind::InvalidColumnData {
        column: name.to_string(),
        message: format!("row {row}{what}: {}", unfit_reason(data_type, value)),
    })
}

/// True for the types [`convert_time`] converts, whose values may not fit.
fn is_checked_time(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Time32(ArrowTimeUnit::Second)
            | DataType::Date64
            | DataType::Timestamp(ArrowTimeUnit::Second, _)
    )
}

/// Milliseconds of a day (Date64 -> DATE days).
const MS_PER_DAY: i64 = 86_400_000;

/// Big-endian two's complement bytes (`to_be`) of the decimals of slots `off..off + len`,
/// `width` bytes each.
fn decimals<T: ArrowPrimitiveType, const N: usize>(
    array: &dyn Array,
    off: usize,
    len: usize,
    to_be: impl Fn(T::Native) -> [u8; N],
    width: usize,
    out: &mut Vec<u8>,
) {
    out.clear();
    for &v in &array.as_primitive::<T>().values()[off..off + len] {
        let be = to_be(v);
        if width <= N {
            out.extend_from_slice(&be[N - width..]);
        } else {
            let sign = if be[0] & 0x80 != 0 { 0xff } else { 0 };
            out.extend(std::iter::repeat_n(sign, width - N));
            out.extend_from_slice(&be);
        }
    }
}

/// INTERVAL values: (months, days, milliseconds) as three little-endian 32-bit integers
/// each. Negative Arrow fields keep their two's complement bits (as arrow-rs writes them).
fn intervals(values: impl Iterator<Item = [i32; 3]>, out: &mut Vec<u8>) {
    out.clear();
    for v in values {
        for x in v {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
}

/// Slots `off..off + len` of `array` as physical values, and their validity.
#[allow(clippy::too_many_arguments)]
fn to_batch<'a>(
    name: &str,
    data_type: &DataType,
    width: usize,
    array: &'a dyn Array,
    off: usize,
    len: usize,
    s: &'a mut Scratch,
) -> Result<(Batch<'a>, Option<Bitmap<'a>>)> {
    if array.data_type() != data_type {
        return Err(column_error(
            name,
            format_args!(
                "an array of type {} for a column of type {data_type}",
                array.data_type()
            ),
        ));
    }
    if let DataType::Dictionary(..) = data_type {
        return dictionary_batch(name, width, array, off, len, s);
    }
    let validity = validity_of(array, off, len)?;
    let batch = match view(name, data_type, width, array, off, len)? {
        Some(b) => b,
        None => {
            let kind = convert_into(
                name, data_type, width, array, off, len, validity, &mut s.out,
            )?;
            kind.batch(&s.out, len)?
        }
    };
    Ok((batch, validity))
}

/// Slots `off..off + len` of `array` straight from its buffers, for the types whose layout is
/// the physical one (`None` for the others, which [`convert_into`] converts).
fn view<'a>(
    name: &str,
    data_type: &DataType,
    width: usize,
    array: &'a dyn Array,
    off: usize,
    len: usize,
) -> Result<Option<Batch<'a>>> {
    use ArrowTimeUnit as U;
    Ok(Some(match data_type {
        DataType::Null => Batch::Null,
        DataType::Boolean => {
            let b = array.as_boolean().values();
            Batch::Bool(Bitmap::new(b.values(), b.offset() + off, len)?)
        }
        DataType::Int32 => Batch::I32(prim::<Int32Type, i32>(array, off, len)),
        DataType::UInt32 => Batch::I32(prim::<UInt32Type, i32>(array, off, len)),
        DataType::Date32 => Batch::I32(prim::<Date32Type, i32>(array, off, len)),
        DataType::Time32(U::Millisecond) => {
            Batch::I32(prim::<Time32MillisecondType, i32>(array, off, len))
        }
        DataType::Int64 => Batch::I64(prim::<Int64Type, i64>(array, off, len)),
        DataType::UInt64 => Batch::I64(prim::<UInt64Type, i64>(array, off, len)),
        DataType::Time64(U::Nanosecond) => {
            Batch::I64(prim::<Time64NanosecondType, i64>(array, off, len))
        }
        DataType::Time64(_) => Batch::I64(prim::<Time64MicrosecondType, i64>(array, off, len)),
        DataType::Timestamp(U::Millisecond, _) => {
            Batch::I64(prim::<TimestampMillisecondType, i64>(array, off, len))
        }
        DataType::Timestamp(U::Microsecond, _) => {
            Batch::I64(prim::<TimestampMicrosecondType, i64>(array, off, len))
        }
        DataType::Timestamp(U::Nanosecond, _) => {
            Batch::I64(prim::<TimestampNanosecondType, i64>(array, off, len))
        }
        DataType::Duration(U::Second) => {
            Batch::I64(prim::<DurationSecondType, i64>(array, off, len))
        }
        DataType::Duration(U::Millisecond) => {
            Batch::I64(prim::<DurationMillisecondType, i64>(array, off, len))
        }
        DataType::Duration(U::Microsecond) => {
            Batch::I64(prim::<DurationMicrosecondType, i64>(array, off, len))
        }
        DataType::Duration(U::Nanosecond) => {
            Batch::I64(prim::<DurationNanosecondType, i64>(array, off, len))
        }
        DataType::Float16 => {
            let v = array
                .as_primitive::<Float16Type>()
                .values()
                .inner()
                .as_slice();
            Batch::Fixed(&v[2 * off..2 * (off + len)])
        }
        DataType::Float32 => Batch::F32(prim::<Float32Type, f32>(array, off, len)),
        DataType::Float64 => Batch::F64(prim::<Float64Type, f64>(array, off, len)),
        DataType::Utf8 => {
            let a = array.as_string::<i32>();
            Batch::Bytes32(&a.value_offsets()[off..=off + len], a.values().as_slice())
        }
        DataType::LargeUtf8 => {
            let a = array.as_string::<i64>();
            Batch::Bytes64(&a.value_offsets()[off..=off + len], a.values().as_slice())
        }
        DataType::Binary => {
            let a = array.as_binary::<i32>();
            Batch::Bytes32(&a.value_offsets()[off..=off + len], a.values().as_slice())
        }
        DataType::LargeBinary => {
            let a = array.as_binary::<i64>();
            Batch::Bytes64(&a.value_offsets()[off..=off + len], a.values().as_slice())
        }
        DataType::FixedSizeBinary(_) => {
            let a = array.as_fixed_size_binary();
            let v = a.value_data();
            let start = (a.offset() + off) * width;
            let data = v.get(start..start + len * width).ok_or_else(|| {
                column_error(name, "fixed-size binary values shorter than the array")
            })?;
            Batch::Fixed(data)
        }
        _ => return Ok(None),
    }))
}

/// Where [`convert_into`] left its values in [`Buffers`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Kind {
    #[default]
    I32,
    I64,
    /// `offsets` and `bytes`.
    Bytes,
    /// `bytes`, `width` bytes a value.
    Fixed,
}

impl Kind {
    /// The `len` values of kind `self` in `b`.
    fn batch(self, b: &Buffers, len: usize) -> Result<Batch<'_>> {
        let n = match self {
            Kind::I32 => b.i32s.len(),
            Kind::I64 => b.i64s.len(),
            Kind::Bytes => b.offsets.len().saturating_sub(1),
            Kind::Fixed => len,
        };
        if n != len {
            return Err(Error::new(ErrorKind::Inconsistent(format!(
                "internal error: {n} converted values for {len} slots"
            ))));
        }
        Ok(match self {
            Kind::I32 => Batch::I32(&b.i32s),
            Kind::I64 => Batch::I64(&b.i64s),
            Kind::Bytes => Batch::Bytes64(&b.offsets, &b.bytes),
            Kind::Fixed => Batch::Fixed(&b.bytes),
        })
    }
}

/// Converts slots `off..off + len` of `array` (validity `validity`), of a type whose layout
/// is not the physical one, into `b`; returns where the values are.
#[allow(clippy::too_many_arguments)]
fn convert_into(
    name: &str,
    data_type: &DataType,
    width: usize,
    array: &dyn Array,
    off: usize,
    len: usize,
    validity: Option<Bitmap<'_>>,
    b: &mut Buffers,
) -> Result<Kind> {
    Ok(match data_type {
        DataType::Int8 => {
            convert::<Int8Type, i32>(array, off, len, &mut b.i32s, i32::from);
            Kind::I32
        }
        DataType::Int16 => {
            convert::<Int16Type, i32>(array, off, len, &mut b.i32s, i32::from);
            Kind::I32
        }
        DataType::UInt8 => {
            convert::<UInt8Type, i32>(array, off, len, &mut b.i32s, i32::from);
            Kind::I32
        }
        DataType::UInt16 => {
            convert::<UInt16Type, i32>(array, off, len, &mut b.i32s, i32::from);
            Kind::I32
        }
        t if is_checked_time(t) => {
            // The whole array is checked at its first slice: a value that does not fit is an
            // error before any slice of the array is put.
            let n = array.len();
            if off == 0 && len < n {
                let all = validity_of(array, 0, n)?;
                if let Some(u) = convert_time(t, array, 0, n, all, None)?.1.first() {
                    return Err(unfit_error(name, t, u.slot, u.value, ""));
                }
            }
            let (kind, unfit) = convert_time(t, array, off, len, validity, Some(b))?;
            if let Some(u) = unfit.first() {
                return Err(unfit_error(name, t, off + u.slot, u.value, ""));
            }
            kind
        }
        DataType::Utf8View => {
            let a = array.as_string_view();
            views(off, len, validity, |i| a.value(i).as_bytes(), b);
            Kind::Bytes
        }
        DataType::BinaryView => {
            let a = array.as_binary_view();
            views(off, len, validity, |i| a.value(i), b);
            Kind::Bytes
        }
        DataType::Decimal32(..) => {
            decimals::<Decimal32Type, 4>(array, off, len, i32::to_be_bytes, width, &mut b.bytes);
            Kind::Fixed
        }
        DataType::Decimal64(..) => {
            decimals::<Decimal64Type, 8>(array, off, len, i64::to_be_bytes, width, &mut b.bytes);
            Kind::Fixed
        }
        DataType::Decimal128(..) => {
            let be = i128::to_be_bytes;
            decimals::<Decimal128Type, 16>(array, off, len, be, width, &mut b.bytes);
            Kind::Fixed
        }
        DataType::Decimal256(..) => {
            let be = i256::to_be_bytes;
            decimals::<Decimal256Type, 32>(array, off, len, be, width, &mut b.bytes);
            Kind::Fixed
        }
        DataType::Interval(IntervalUnit::YearMonth) if width == 12 => {
            let v = &array.as_primitive::<IntervalYearMonthType>().values()[off..off + len];
            intervals(v.iter().map(|&months| [months, 0, 0]), &mut b.bytes);
            Kind::Fixed
        }
        DataType::Interval(IntervalUnit::DayTime) if width == 12 => {
            let v = &array.as_primitive::<IntervalDayTimeType>().values()[off..off + len];
            intervals(v.iter().map(|x| [0, x.days, x.milliseconds]), &mut b.bytes);
            Kind::Fixed
        }
        other => {
            return Err(column_error(
                name,
                format_args!("{other} values are not written"),
            ))
        }
    })
}

/// Converts slots `off..off + len` of `array` of type Time32(Second), Date64 or
/// Timestamp(Second) (validity `validity`) into `b`; returns where the values are and the
/// valid slots whose value does not fit (their converted value is 0). A value is refused
/// rather than wrapped:
///
/// - Timestamp(Second): Parquet has no seconds unit, the value is written in milliseconds;
///   one that overflows INT64 (past `i64::MAX / 1000` s either side) is refused, as pyarrow 26
///   refuses it ("Integer overflow when casting timestamp value").
/// - Time32(Second): likewise in INT32 milliseconds (past 2147483 s either side); pyarrow 26
///   wraps such a value silently, parq refuses it. Values in range are written as they are,
///   even outside a day (86400 s and -1 s are written as pyarrow writes them).
/// - Date64: written as DATE days, truncated toward zero like pyarrow 26 (-1 ms is day 0); a
///   day out of INT32 is refused (pyarrow 26 wraps it silently).
///
/// With `b` `None`, the values are only checked.
fn convert_time(
    data_type: &DataType,
    array: &dyn Array,
    off: usize,
    len: usize,
    validity: Option<Bitmap<'_>>,
    b: Option<&mut Buffers>,
) -> Result<(Kind, Vec<Unfit>)> {
    use ArrowTimeUnit as U;
    Ok(match data_type {
        DataType::Time32(U::Second) => {
            let out = b.map(|b| &mut b.i32s);
            let unfit =
                convert_checked::<Time32SecondType, i32>(array, off, len, validity, out, |v| {
                    v.checked_mul(1000)
                });
            (Kind::I32, unfit)
        }
        DataType::Date64 => {
            let out = b.map(|b| &mut b.i32s);
            let unfit = convert_checked::<Date64Type, i32>(array, off, len, validity, out, |v| {
                i32::try_from(v / MS_PER_DAY).ok()
            });
            (Kind::I32, unfit)
        }
        DataType::Timestamp(U::Second, _) => {
            let out = b.map(|b| &mut b.i64s);
            let unfit =
                convert_checked::<TimestampSecondType, i64>(array, off, len, validity, out, |v| {
                    v.checked_mul(1000)
                });
            (Kind::I64, unfit)
        }
        other => {
            return Err(Error::new(ErrorKind::Inconsistent(format!(
                "internal error: {other} is not a time type converted"
            ))))
        }
    })
}

/// Copies the values of view slots `off..off + len` into offsets and bytes (null slots
/// empty).
fn views<'v>(
    off: usize,
    len: usize,
    validity: Option<Bitmap<'_>>,
    value: impl Fn(usize) -> &'v [u8],
    b: &mut Buffers,
) {
    b.offsets.clear();
    b.bytes.clear();
    b.offsets.push(0);
    for i in 0..len {
        let valid = validity.is_none_or(|v| v.word(i) & 1 == 1);
        if valid {
            b.bytes.extend_from_slice(value(off + i));
        }
        b.offsets.push(b.bytes.len() as i64);
    }
}

/// The keys of slots `off..off + len` of a dictionary array with keys `K` (as `usize`; a
/// negative key becomes a huge one, out of every dictionary) into `keys`, and its values.
fn dictionary_keys<'a, K: ArrowDictionaryKeyType>(
    array: &'a dyn Array,
    off: usize,
    len: usize,
    keys: &mut Vec<usize>,
) -> &'a ArrayRef {
    use arrow_buffer::ArrowNativeType;
    let a = array.as_dictionary::<K>();
    keys.clear();
    keys.extend(
        a.keys().values()[off..off + len]
            .iter()
            .map(|k| k.as_usize()),
    );
    a.values()
}

/// An error if a valid row of the dictionary array `array` (keys of type `key_type`) uses one
/// of the dictionary values `unfit` (valid values of type `value_type`, in order, that do not
/// fit their physical type), naming the first such row.
fn check_unfit_unused(
    name: &str,
    array: &dyn Array,
    key_type: &DataType,
    value_type: &DataType,
    unfit: &[Unfit],
) -> Result<()> {
    let n = array.len();
    let mut keys = Vec::new();
    match key_type {
        DataType::Int8 => dictionary_keys::<Int8Type>(array, 0, n, &mut keys),
        DataType::Int16 => dictionary_keys::<Int16Type>(array, 0, n, &mut keys),
        DataType::Int32 => dictionary_keys::<Int32Type>(array, 0, n, &mut keys),
        DataType::Int64 => dictionary_keys::<Int64Type>(array, 0, n, &mut keys),
        DataType::UInt8 => dictionary_keys::<UInt8Type>(array, 0, n, &mut keys),
        DataType::UInt16 => dictionary_keys::<UInt16Type>(array, 0, n, &mut keys),
        DataType::UInt32 => dictionary_keys::<UInt32Type>(array, 0, n, &mut keys),
        DataType::UInt64 => dictionary_keys::<UInt64Type>(array, 0, n, &mut keys),
        other => {
            return Err(column_error(
                name,
                format_args!("dictionary keys of type {other}"),
            ))
        }
    };
    let key_valid = validity_of(array, 0, n)?;
    for (row, &k) in keys.iter().enumerate() {
        if key_valid.is_some_and(|v| v.word(row) & 1 == 0) {
            continue;
        }
        if let Ok(i) = unfit.binary_search_by_key(&k, |u| u.slot) {
            let value = unfit.get(i).map_or(0, |u| u.value);
            let what = format!(" (dictionary value {k})");
            return Err(unfit_error(name, value_type, row, value, &what));
        }
    }
    Ok(())
}

/// `out` = `values[k]` for every key `k` whose slot is `valid`, `T::default()` for the
/// others.
fn gather<T: Copy + Default>(
    values: &[T],
    keys: &[usize],
    valid: impl Fn(usize, usize) -> bool,
    out: &mut Vec<T>,
) {
    out.clear();
    out.extend(keys.iter().enumerate().map(|(i, &k)| {
        if valid(i, k) {
            values.get(k).copied().unwrap_or_default()
        } else {
            T::default()
        }
    }));
}

/// Byte strings `k` (`offsets`, `data`) for every key `k` whose slot is `valid` (empty for
/// the others) into 64-bit `out_offsets` and `out_bytes`.
fn gather_bytes<O: crate::encoding::OffsetSize>(
    offsets: &[O],
    data: &[u8],
    keys: &[usize],
    valid: impl Fn(usize, usize) -> bool,
    out_offsets: &mut Vec<i64>,
    out_bytes: &mut Vec<u8>,
) {
    out_offsets.clear();
    out_bytes.clear();
    out_offsets.push(0);
    for (i, &k) in keys.iter().enumerate() {
        if valid(i, k) {
            let at = |j: usize| offsets.get(j).and_then(|o| o.to_usize()).unwrap_or(0);
            out_bytes.extend_from_slice(data.get(at(k)..at(k + 1)).unwrap_or_default());
        }
        out_offsets.push(out_bytes.len() as i64);
    }
}

/// Slots `off..off + len` of a dictionary array as the physical values they stand for. The
/// dictionary's values are viewed straight from their buffers when their layout is the
/// physical one, else converted once per array (at its first slice, `off == 0`, kept in
/// [`Scratch::dict`] for the next slices); then each slot takes the value of its key. A null
/// key or a key to a null value is a null slot; a valid key out of the dictionary is an error.
fn dictionary_batch<'a>(
    name: &str,
    width: usize,
    array: &'a dyn Array,
    off: usize,
    len: usize,
    s: &'a mut Scratch,
) -> Result<(Batch<'a>, Option<Bitmap<'a>>)> {
    let DataType::Dictionary(key_type, _) = array.data_type() else {
        return Err(column_error(name, "internal error: not a dictionary array"));
    };
    let keys = &mut s.keys;
    let values: &'a ArrayRef = match **key_type {
        DataType::Int8 => dictionary_keys::<Int8Type>(array, off, len, keys),
        DataType::Int16 => dictionary_keys::<Int16Type>(array, off, len, keys),
        DataType::Int32 => dictionary_keys::<Int32Type>(array, off, len, keys),
        DataType::Int64 => dictionary_keys::<Int64Type>(array, off, len, keys),
        DataType::UInt8 => dictionary_keys::<UInt8Type>(array, off, len, keys),
        DataType::UInt16 => dictionary_keys::<UInt16Type>(array, off, len, keys),
        DataType::UInt32 => dictionary_keys::<UInt32Type>(array, off, len, keys),
        DataType::UInt64 => dictionary_keys::<UInt64Type>(array, off, len, keys),
        ref other => {
            return Err(column_error(
                name,
                format_args!("dictionary keys of type {other}"),
            ))
        }
    };
    let value_type = values.data_type();
    let n_values = values.len();
    // Logical validity: the key is valid and so is the value it points to.
    let key_valid = validity_of(array, off, len)?;
    let value_nulls = values.nulls().filter(|n| n.null_count() > 0);
    let has_nulls = key_valid.is_some() || value_nulls.is_some();
    let key_is_valid = |i: usize| key_valid.is_none_or(|v| v.word(i) & 1 == 1);
    if let Some(i) = s
        .keys
        .iter()
        .enumerate()
        .position(|(i, &k)| k >= n_values && key_is_valid(i))
    {
        return Err(column_error(
            name,
            format_args!(
                "the dictionary key of row {} (of this array) is out of the dictionary of \
                 {n_values} values",
                off + i
            ),
        ));
    }
    s.validity.clear();
    if has_nulls {
        s.validity.resize(len.div_ceil(8), 0);
        for (i, &k) in s.keys.iter().enumerate() {
            let ok = key_is_valid(i) && k < n_values && value_nulls.is_none_or(|n| n.is_valid(k));
            if ok {
                s.validity[i / 8] |= 1 << (i % 8);
            }
        }
    }
    // The dictionary's values as physical values.
    let dict_values = match view(name, value_type, width, values.as_ref(), 0, n_values)? {
        Some(b) => b,
        None => {
            let id = (Arc::as_ptr(values).cast::<()>() as usize, n_values);
            if off == 0 || s.dict_of != Some(id) {
                s.dict_of = None;
                let value_valid = validity_of(values.as_ref(), 0, n_values)?;
                s.dict_kind = if is_checked_time(value_type) {
                    // Values that do not fit are an error only if a row uses them (as in
                    // pyarrow 26): the rows of the whole array are checked, before any slice
                    // of it is put.
                    let (kind, unfit) = convert_time(
                        value_type,
                        values.as_ref(),
                        0,
                        n_values,
                        value_valid,
                        Some(&mut s.dict),
                    )?;
                    if !unfit.is_empty() {
                        check_unfit_unused(name, array, key_type, value_type, &unfit)?;
                    }
                    kind
                } else {
                    convert_into(
                        name,
                        value_type,
                        width,
                        values.as_ref(),
                        0,
                        n_values,
                        value_valid,
                        &mut s.dict,
                    )?
                };
                s.dict_of = Some(id);
            }
            s.dict_kind.batch(&s.dict, n_values)?
        }
    };
    let validity = &s.validity;
    let valid = |i: usize, k: usize| {
        k < n_values && (!has_nulls || validity.get(i / 8).is_some_and(|b| b >> (i % 8) & 1 == 1))
    };
    let keys = &s.keys;
    let out = &mut s.out;
    let kind = match dict_values {
        Batch::Null => None,
        Batch::Bool(bits) => {
            out.bits.clear();
            out.bits.resize(len.div_ceil(8), 0);
            for (i, &k) in keys.iter().enumerate() {
                if valid(i, k) && bits.word(k) & 1 == 1 {
                    out.bits[i / 8] |= 1 << (i % 8);
                }
            }
            Some(Out::Bool)
        }
        Batch::I32(v) => {
            gather(v, keys, valid, &mut out.i32s);
            Some(Out::I32)
        }
        Batch::I64(v) => {
            gather(v, keys, valid, &mut out.i64s);
            Some(Out::I64)
        }
        Batch::F32(v) => {
            gather(v, keys, valid, &mut out.f32s);
            Some(Out::F32)
        }
        Batch::F64(v) => {
            gather(v, keys, valid, &mut out.f64s);
            Some(Out::F64)
        }
        Batch::Bytes32(o, d) => {
            gather_bytes(o, d, keys, valid, &mut out.offsets, &mut out.bytes);
            Some(Out::Bytes)
        }
        Batch::Bytes64(o, d) => {
            gather_bytes(o, d, keys, valid, &mut out.offsets, &mut out.bytes);
            Some(Out::Bytes)
        }
        Batch::Fixed(d) => {
            out.bytes.clear();
            out.bytes.reserve(len * width);
            for (i, &k) in keys.iter().enumerate() {
                let value = if valid(i, k) {
                    d.get(k * width..(k + 1) * width)
                } else {
                    None
                };
                match value {
                    Some(v) => out.bytes.extend_from_slice(v),
                    None => out.bytes.resize(out.bytes.len() + width, 0),
                }
            }
            Some(Out::Fixed)
        }
    };
    let s: &'a Scratch = s;
    let out = &s.out;
    let batch = match kind {
        None => Batch::Null,
        Some(Out::Bool) => Batch::Bool(Bitmap::new(&out.bits, 0, len)?),
        Some(Out::I32) => Batch::I32(&out.i32s),
        Some(Out::I64) => Batch::I64(&out.i64s),
        Some(Out::F32) => Batch::F32(&out.f32s),
        Some(Out::F64) => Batch::F64(&out.f64s),
        Some(Out::Bytes) => Batch::Bytes64(&out.offsets, &out.bytes),
        Some(Out::Fixed) => Batch::Fixed(&out.bytes),
    };
    let validity = if has_nulls {
        Some(Bitmap::new(&s.validity, 0, len)?)
    } else {
        None
    };
    Ok((batch, validity))
}

/// Which buffer of [`Scratch::out`] holds the values gathered from a dictionary.
#[derive(Clone, Copy)]
enum Out {
    Bool,
    I32,
    I64,
    F32,
    F64,
    Bytes,
    Fixed,
}
