//! The column writer: one leaf column of a file, row group after row group.
//!
//! For each Arrow array it is given ([`ColumnWriter::write`]), in slices of at most
//! [`MINI_BATCH`] rows so that page limits are checked as pyarrow checks them:
//!
//! 1. the slice's values are viewed as physical values (`Batch`, in the `values` module):
//!    straight from the Arrow buffers when the layouts agree, else converted into a scratch
//!    buffer shared by all columns;
//! 2. levels: for a flat column (max definition level 0 or 1), definition levels go to a
//!    streaming RLE encoder straight from the validity bitmap (no level is materialized);
//!    for a nested leaf ([`ColumnWriter::write_nested`]), the levels shredded from the
//!    field's array (`levels`) are encoded as they are, repetition levels beside
//!    definition levels, in slices that end at record boundaries, and the values are those
//!    of the entries' leaf slots (valid where the definition level is the maximum);
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
//! Given a sink (the file writer's output, when it writes a row group column after column),
//! closed pages go to it as soon as no dictionary page is still to come before them: at
//! once without a dictionary, from the fallback on with one (the dictionary page first).
//! At the end of a row group, [`ColumnWriter::finish_chunk`] writes the dictionary page and
//! the data pages still kept (each header then body, straight from the buffers), builds
//! the `ColumnChunk` metadata and the chunk's page indexes and Bloom filter, and releases the
//! chunk's buffers. Compressors and conversion scratch space are shared by all the columns of
//! a file ([`Shared`]): only the open pages and the buffered pages of the open row group are
//! per column.
//!
//! The writer's state is kept by job: the open page's levels (`PageLevels`) and what it
//! holds (`PageTally`), apart from the open chunk's closed pages and totals
//! (`ChunkState`). This file holds that state and the values' way in; `nested` is the way
//! in of a nested leaf's levels and values, `page` closes and assembles pages, `dict` tries
//! and gives up the dictionary and takes page statistics from its entries, `chunk` writes
//! pages out and ends the chunk.

use std::io::Write;

use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType, Field};

use super::arrow_schema::LeafType;
use super::encoder::{encode_fixed, DeltaOrNot, Dict, ValueEnc};
use super::levels::{shred, Shredded};
use super::page_index::{BuiltColumnIndex, ColumnIndexBuilder, OffsetIndexBuilder};
use super::properties::{ColumnSettings, DataPageVersion, StatisticsLevel, WriterProperties};
use super::size_stats::SizeStatsAccumulator;
use super::statistics::{StatsAccumulator, StatsOrder};
use super::values::{column_error, to_batch, Batch, Scratch};
use crate::bloom::{hash_f32, hash_f64, hash_i32, hash_i64, Sbbf};
use crate::compression::compress::Compressor;
use crate::encoding::encode::byte_stream_split::ByteStreamSplitEncoder;
use crate::encoding::encode::delta::{DeltaBinaryPackedEncoder, PYARROW_INT64_BLOCK_SIZE};
use crate::encoding::encode::dictionary::DictEncoder;
use crate::encoding::encode::plain::{self, BooleanEncoder};
use crate::encoding::encode::rle::{self, RleEncoder};
use crate::encoding::encode::{bit_width, Bitmap};
use crate::format::crypto::{ColumnEncryptor, ModuleType};
use crate::format::metadata::LogicalType;
use crate::format::metadata::{
    Arena, ColumnChunk, Compression, DataPageHeader, DataPageHeaderV2, DictionaryPageHeader,
    Encoding, EncodingList, OffsetIndex, PageEncodingStats, PageHeader, PageType, PhysicalType,
    SchemaElement, UnknownFields,
};
use crate::format::thrift::Writer;
use crate::wkb::GeoStatsAccumulator;
use crate::{Error, Result};

pub use super::encoder::MINI_BATCH;
pub use chunk::ColumnHints;

mod chunk;
mod dict;
mod encrypt;
mod nested;
mod page;
mod shelf;

/// The most values of a page when it has no row limit (a column of nulls never reaches a
/// byte limit).
const MAX_PAGE_VALUES: usize = 1 << 24;

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
    /// Page body buffers of finished chunks, for the next chunks.
    kept_bodies: shelf::BodyShelf,
    /// The validity of a slice of a nested leaf's value slots.
    slot_bits: Vec<u8>,
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

    /// Space for another thread encoding columns of the same file: the same compressors at
    /// the same indices, its own buffers.
    pub fn for_thread(&self) -> Result<Shared> {
        let compressors = self
            .compressors
            .iter()
            .map(|c| Compressor::new(c.codec(), c.level()))
            .collect::<Result<Vec<_>>>()?;
        Ok(Shared {
            compressors,
            idle_table_bytes: self.idle_table_bytes,
            ..Shared::default()
        })
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

/// Compressor `index` of `compressors` (from [`Shared::compressor_index`]) for the column
/// `column`.
fn compressor<'c>(
    compressors: &'c mut [Compressor],
    index: usize,
    column: &str,
) -> Result<&'c mut Compressor> {
    compressors
        .get_mut(index)
        .ok_or_else(|| column_error(column, "internal error: the writer's compressor"))
}

/// The valid values of a slice with nulls, one buffer per fixed-width type; a slice's
/// booleans one per byte; the valid values of a FIXED_LEN_BYTE_ARRAY slice back to back.
#[derive(Debug, Default)]
struct Dense {
    i32s: Vec<i32>,
    i64s: Vec<i64>,
    f32s: Vec<f32>,
    f64s: Vec<f64>,
    bools: Vec<bool>,
    fixed: Vec<u8>,
}

/// The level entries of a slice of a nested leaf.
#[derive(Debug, Clone, Copy)]
struct Levels<'a> {
    def: &'a [u16],
    /// Empty when the column has no repetition levels.
    rep: &'a [u16],
    /// The records that the entries start.
    records: usize,
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

/// What a column writer is made for: the leaf, its Arrow and Parquet types and its levels.
#[derive(Debug, Clone, Copy)]
pub struct ColumnSpec<'a> {
    /// The dotted path.
    pub name: &'a str,
    /// The Arrow type of the values given (the leaf's, below any list, struct or map).
    pub data_type: &'a DataType,
    /// The Parquet type.
    pub leaf: &'a LeafType,
    /// The leaf's schema element.
    pub element: &'a SchemaElement,
    /// The maximum definition level.
    pub max_def: i16,
    /// The maximum repetition level.
    pub max_rep: i16,
    /// The definition level from which a level entry has a value slot (see
    /// [`levels::slot_level`](super::levels::slot_level)).
    pub slot_level: u16,
}

/// Writes one leaf column (see the module documentation).
#[derive(Debug)]
pub struct ColumnWriter {
    name: String,
    data_type: DataType,
    physical: PhysicalType,
    width: usize,
    max_def: i16,
    max_rep: i16,
    slot_level: u16,
    settings: ColumnSettings,
    order: StatsOrder,
    compressor: usize,
    page_bytes: Option<usize>,
    page_rows: usize,
    version: DataPageVersion,
    crc: bool,
    dict_limit: usize,
    bloom_bytes: usize,
    /// The entries to size the next chunk's dictionary of fixed-width values for, when its
    /// first values come: those of the last chunk's, when it gave the dictionary up on a
    /// first page of distinct values (the next chunk's trial then fills a table of that
    /// size without growing it), else 0.
    dict_hint: usize,

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
    /// The open page's levels.
    levels: PageLevels,
    /// What the open page holds.
    page: PageTally,
    /// The open chunk: its closed pages and what they hold.
    chunk: ChunkState,
    /// The open chunk's encryptor, in an encrypted file.
    encryptor: Option<ColumnEncryptor>,
}

/// The encoded levels of the open page.
#[derive(Debug)]
struct PageLevels {
    def: Vec<u8>,
    def_enc: RleEncoder,
    /// Only for a column with repetition levels (kept apart, so that a wide schema's flat
    /// columns stay small).
    rep: Option<Box<RepLevels>>,
}

/// The repetition levels of the open page.
#[derive(Debug)]
struct RepLevels {
    levels: Vec<u8>,
    enc: RleEncoder,
    /// The page's repetition and definition levels, as they go in its body.
    block: Vec<u8>,
}

impl PageLevels {
    /// Bytes of the encoded levels.
    fn len(&self) -> usize {
        self.def.len() + self.rep.as_ref().map_or(0, |r| r.levels.len())
    }
}

/// What the open page holds: its level entries (`values`, as the page header counts
/// them), records and nulls, its statistics and unencoded bytes.
#[derive(Debug)]
struct PageTally {
    values: usize,
    records: usize,
    nulls: usize,
    stats: StatsAccumulator,
    sizes: SizeStatsAccumulator,
    unencoded: u64,
    /// The page's number, which `seen` marks dictionary entries with.
    number: u32,
    /// Per entry of a byte array dictionary, the number of the last page whose statistics
    /// took it (a page's statistics take each distinct value once).
    seen: Vec<u32>,
}

/// The open chunk: the pages closed so far (headers and, compressed, bodies) and what
/// they add up to (statistics, page indexes, Bloom filter, sizes, counts).
#[derive(Debug)]
struct ChunkState {
    stats: StatsAccumulator,
    sizes: SizeStatsAccumulator,
    column_index: Option<ColumnIndexBuilder>,
    offset_index: OffsetIndexBuilder,
    bloom: Option<Sbbf>,
    headers: Vec<u8>,
    bodies: Vec<u8>,
    /// The room the next chunk's bodies take at once, from the last chunk's size, rather
    /// than growing (and copying) as pages close.
    bodies_hint: usize,
    pages: Vec<PageSpan>,
    /// Bytes of the chunk's data pages so far (headers and bodies), kept or written out.
    data_bytes: u64,
    /// The `GeospatialStatistics` of a GEOMETRY column.
    geo: Option<Box<GeoStatsAccumulator>>,
    /// Bytes of the dictionary page, once written out.
    dict_bytes: Option<u64>,
    /// Level entries.
    values: u64,
    records: u64,
    uncompressed: u64,
    compressed: u64,
    data_pages: Vec<(Encoding, i32)>,
}

impl ColumnWriter {
    /// A writer for the leaf `spec` with `settings`. Errors (naming the column) for requests
    /// the column cannot take.
    pub fn new(
        spec: ColumnSpec<'_>,
        settings: ColumnSettings,
        props: &WriterProperties,
        shared: &mut Shared,
    ) -> Result<ColumnWriter> {
        let ColumnSpec {
            name,
            data_type,
            leaf,
            element,
            max_def,
            max_rep,
            slot_level,
        } = spec;
        let physical = leaf.physical;
        let width = leaf.type_length.unwrap_or(0).max(0) as usize;
        let mut order = StatsOrder::for_element(element)?;
        if props.float_total_order() {
            order = order.total_order();
        }
        let level_width = |max: i16| rle::level_bit_width(max.max(1) as u16);
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
            max_rep,
            slot_level,
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
            dict_hint: 0,
            encryptor: None,
            enc: ValueEnc::Dict,
            dict: None,
            indices: Vec::new(),
            values: Vec::new(),
            page_base: 0,
            page_start: 0,
            levels_room: LEVELS_ROOM,
            room_due: 0,
            last_page_values: 0,
            levels: PageLevels {
                def: Vec::new(),
                def_enc: RleEncoder::new(level_width(max_def))?,
                rep: if max_rep > 0 {
                    Some(Box::new(RepLevels {
                        levels: Vec::new(),
                        enc: RleEncoder::new(level_width(max_rep))?,
                        block: Vec::new(),
                    }))
                } else {
                    None
                },
            },
            page: PageTally {
                values: 0,
                records: 0,
                nulls: 0,
                stats: StatsAccumulator::new(order),
                sizes: SizeStatsAccumulator::new(max_def, max_rep, byte_array),
                unencoded: 0,
                number: 1,
                seen: Vec::new(),
            },
            chunk: ChunkState {
                stats: StatsAccumulator::new(order),
                sizes: SizeStatsAccumulator::new(max_def, max_rep, byte_array),
                column_index: None,
                offset_index: OffsetIndexBuilder::new(byte_array),
                bloom: None,
                headers: Vec::new(),
                bodies: Vec::new(),
                bodies_hint: 0,
                pages: Vec::new(),
                data_bytes: 0,
                geo: matches!(element.logical_type, Some(LogicalType::Geometry { .. }))
                    .then(Box::default),
                dict_bytes: None,
                values: 0,
                records: 0,
                uncompressed: 0,
                compressed: 0,
                data_pages: Vec::new(),
            },
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
            (Encoding::Alp, P::Float) => ValueEnc::AlpF32(Box::default()),
            (Encoding::Alp, P::Double) => ValueEnc::AlpF64(Box::default()),
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
        self.chunk.column_index = (self.settings.statistics == StatisticsLevel::Page)
            .then(|| ColumnIndexBuilder::new(self.order, self.settings.max_statistics_len));
        self.chunk.offset_index = OffsetIndexBuilder::new(self.physical == PhysicalType::ByteArray);
        self.chunk.bloom = (self.bloom_bytes > 0).then(|| Sbbf::new(self.bloom_bytes));
        self.chunk.stats.clear();
        self.chunk.sizes.clear();
        self.chunk.values = 0;
        self.chunk.records = 0;
        self.chunk.uncompressed = 0;
        self.chunk.compressed = 0;
        self.chunk.data_pages.clear();
        self.chunk.pages.clear();
        self.chunk.data_bytes = 0;
        self.chunk.dict_bytes = None;
        self.begin_page();
        Ok(())
    }

    /// Bytes of the chunk's buffered pages (for the row group byte budget).
    pub fn buffered_bytes(&self) -> usize {
        self.chunk.headers.len()
            + self.chunk.bodies.len()
            + self.values.len()
            + self.indices.len()
            + self.levels.len()
            + self.dict.as_ref().map_or(0, Dict::size_bytes)
    }

    /// Writes `array` (all its rows) to the open chunk. Without `sink`, the chunk's pages are
    /// kept until [`finish_chunk`](Self::finish_chunk); with it, pages go to it as soon as
    /// no dictionary page is still to come before them (the column has no dictionary, or it
    /// fell back, when the dictionary page goes first): the caller makes `sink` the output
    /// at the chunk's place, where nothing else is written until the chunk is finished.
    pub fn write(
        &mut self,
        array: &ArrayRef,
        shared: &mut Shared,
        mut sink: Option<&mut dyn Write>,
    ) -> Result<()> {
        let n = array.len();
        if self.max_def == 0 && array.null_count() > 0 {
            return Err(column_error(
                &self.name,
                "the field is not nullable but the array has nulls",
            ));
        }
        if self.page.values == 0 {
            self.make_due_room();
        }
        let mut off = 0;
        while off < n {
            let room = self.page_rows - self.page.records;
            let k = (n - off).min(MINI_BATCH).min(room.max(1));
            self.write_slice(array.as_ref(), off, k, shared)?;
            off += k;
            self.end_slice(shared, sink.as_mut().map(|s| &mut **s as &mut dyn Write))?;
        }
        self.end_write(n, shared);
        Ok(())
    }

    /// After a slice: the dictionary's fallback and trial, and the page limits; closed
    /// pages to `sink` when they may go.
    fn end_slice(&mut self, shared: &mut Shared, sink: Option<&mut dyn Write>) -> Result<()> {
        self.take_kept_bodies(shared, sink.is_none());
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
        if let Some(out) = sink {
            if self.page.values == 0
                && !self.chunk.pages.is_empty()
                && !matches!(self.enc, ValueEnc::Dict)
            {
                self.write_out(out, shared)?;
            }
        }
        Ok(())
    }

    /// The column now waits for its next values (`n` were written): a large hash table is
    /// freed (see `Shared::set_idle_table_bytes`).
    fn end_write(&mut self, n: usize, shared: &Shared) {
        if let (ValueEnc::Dict, Some(d), Some(limit)) =
            (&self.enc, &mut self.dict, shared.idle_table_bytes)
        {
            if d.table_bytes() > limit && d.len() <= n {
                d.release_table();
            }
        }
    }

    /// True if the open page reached a limit.
    fn page_full(&self) -> bool {
        if self.page.records >= self.page_rows {
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
            ValueEnc::AlpF32(e) => e.estimated_len(),
            ValueEnc::AlpF64(e) => e.estimated_len(),
        };
        values + self.levels.len()
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
        self.put(batch, validity, len, dense, None)
    }

    /// Puts `n` slots: their values (`batch`) and validity (`None`: all valid), and their
    /// level entries: `levels` for a nested leaf, else one per slot (from the validity).
    fn put(
        &mut self,
        batch: Batch<'_>,
        validity: Option<Bitmap<'_>>,
        n: usize,
        dense: &mut Dense,
        levels: Option<Levels<'_>>,
    ) -> Result<()> {
        let valid = match (&batch, validity) {
            (Batch::Null, _) => 0,
            (_, Some(v)) => v.count_ones(),
            (_, None) => n,
        };
        let entries = levels.as_ref().map_or(n, |l| l.def.len());
        let nulls = entries.saturating_sub(valid);
        if self.max_def == 0 && nulls > 0 {
            return Err(column_error(
                &self.name,
                "the field is not nullable but the array has nulls (or dictionary keys to null values)",
            ));
        }
        if self.page.values == 0 {
            if let ValueEnc::RleBool(_) = self.enc {
                rle::begin_length_prefix(&mut self.values);
            }
        }
        let stats = self.settings.statistics != StatisticsLevel::None;
        match &levels {
            Some(l) => {
                if self.max_def > 0 {
                    self.levels.def_enc.put(l.def, &mut self.levels.def)?;
                }
                if let Some(r) = &mut self.levels.rep {
                    r.enc.put(l.rep, &mut r.levels)?;
                }
                if stats {
                    self.page.sizes.add_def_levels(l.def);
                    self.page.sizes.add_rep_levels(l.rep);
                }
                self.page.records += l.records;
            }
            None => {
                // Definition levels, straight from the validity bitmap.
                if self.max_def > 0 {
                    match (&batch, validity) {
                        (Batch::Null, _) => {
                            self.levels
                                .def_enc
                                .put_repeated(0, n, &mut self.levels.def)?
                        }
                        (_, Some(v)) => self.levels.def_enc.put_bitmap(v, &mut self.levels.def)?,
                        (_, None) => {
                            self.levels
                                .def_enc
                                .put_repeated(1, n, &mut self.levels.def)?
                        }
                    }
                    if stats {
                        self.page.sizes.add_def_level_run(1, valid as u64);
                        self.page.sizes.add_def_level_run(0, nulls as u64);
                    }
                }
                self.page.records += n;
            }
        }
        if stats {
            self.page.stats.add_nulls(nulls as u64);
        }
        self.page.values += entries;
        self.page.nulls += nulls;
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
                    self.page.stats.$update(v);
                }
                if let Some(b) = &mut self.chunk.bloom {
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
                let bools = &mut dense.bools;
                bools.clear();
                runs(&mut |i, k| {
                    for j in i..i + k {
                        bools.push(bits.word(j) & 1 == 1);
                    }
                });
                if stats {
                    self.page.stats.update_bool(bools);
                }
                match &mut self.enc {
                    ValueEnc::Plain(b) => match validity {
                        Some(v) => {
                            b.put_valid(bits, v, &mut self.values)?;
                        }
                        None => b.put(bits, &mut self.values),
                    },
                    ValueEnc::RleBool(r) => r.put(bools, &mut self.values)?,
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
                        let c = &mut dense.fixed;
                        c.clear();
                        v.for_each_set_run(|i, k| c.extend_from_slice(&data[i * w..(i + k) * w]));
                        c
                    }
                };
                if stats {
                    self.page.stats.update_fixed(data, w);
                }
                if let Some(b) = &mut self.chunk.bloom {
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
            if d.is_empty() && self.dict_hint > 0 {
                // Sized when the chunk's first values come, not before: between chunks a
                // column holds a small table.
                *d = DictEncoder::with_capacity(self.dict_hint);
            }
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
        // With a dictionary, the statistics take the page's distinct entries instead.
        let dict_stats = stats && matches!(self.dict, Some(Dict::Bytes(_))) && self.enc.is_dict();
        let at = |i: usize| offsets.get(i).and_then(|o| o.to_usize()).unwrap_or(0);
        let mut page_stats = (stats && !dict_stats).then_some(&mut self.page.stats);
        let mut bloom = self.chunk.bloom.as_mut();
        let mut geo = self.chunk.geo.as_deref_mut().filter(|_| stats);
        let mut unencoded = 0u64;
        let mut run = |i: usize, k: usize| {
            unencoded += at(i + k).saturating_sub(at(i)) as u64;
            let run = offsets.get(i..=i + k).unwrap_or_default();
            if let Some(s) = &mut page_stats {
                s.update_byte_array_offsets(run, data);
            }
            if let Some(g) = &mut geo {
                for w in run.windows(2) {
                    let (s, e) = (w[0].to_usize().unwrap_or(0), w[1].to_usize().unwrap_or(0));
                    g.update(data.get(s..e).unwrap_or_default());
                }
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
            self.page.sizes.add_unencoded_bytes(unencoded);
        }
        self.page.unencoded += unencoded;
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
            ValueEnc::Dict => {
                let from = self.indices.len();
                match (&mut self.dict, validity) {
                    (Some(Dict::Bytes(d)), Some(m)) => {
                        d.put_valid(offsets, data, m, &mut self.indices)?;
                    }
                    (Some(Dict::Bytes(d)), None) => d.put(offsets, data, &mut self.indices)?,
                    _ => return Err(self.internal("byte array dictionary")),
                }
                if dict_stats {
                    self.dict_entry_stats(from);
                }
            }
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

    /// True if the open page is the chunk's first.
    fn first_page_open(&self) -> bool {
        self.chunk.data_bytes == 0
    }
}
