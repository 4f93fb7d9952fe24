//! `ColumnChunk` and its `ColumnMetaData`, merged into one compact struct (about 170 bytes, no
//! heap allocation in the common case): required and frequent fields inline, presence as bit
//! flags, statistics values as [`ByteRange`]s, rarely used sub-structures kept as raw Thrift
//! ranges decoded on access, and rare fields in a boxed [`ChunkExtras`]. `path_in_schema` is
//! not stored: it is the schema's path of the leaf.

mod decode;
mod fast;
mod packed;

use super::{
    keep_binary, keep_raw, missing, Arena, ByteRange, Compression, EncodingList, PhysicalType,
    Statistics, StructWriter, UnknownFields,
};
use crate::error::{Error, ErrorKind, Result};
use crate::thrift::{wire, Reader, Writer};

mod flag {
    pub const META: u32 = 1 << 0;
    pub const DICT_OFFSET: u32 = 1 << 1;
    pub const OI_OFFSET: u32 = 1 << 2;
    pub const OI_LEN: u32 = 1 << 3;
    pub const CI_OFFSET: u32 = 1 << 4;
    pub const CI_LEN: u32 = 1 << 5;
    pub const STATS: u32 = 1 << 6;
    pub const NULL_COUNT: u32 = 1 << 7;
    pub const MIN: u32 = 1 << 8;
    pub const MAX: u32 = 1 << 9;
    pub const MIN_VALUE: u32 = 1 << 10;
    pub const MAX_VALUE: u32 = 1 << 11;
    pub const MIN_EXACT_SET: u32 = 1 << 12;
    pub const MIN_EXACT: u32 = 1 << 13;
    pub const MAX_EXACT_SET: u32 = 1 << 14;
    pub const MAX_EXACT: u32 = 1 << 15;
    pub const ENC_STATS: u32 = 1 << 16;
    pub const SIZE_STATS: u32 = 1 << 17;
    /// The deprecated `min` differs from `min_value` and is in the extras.
    pub const MIN_IN_EXTRAS: u32 = 1 << 18;
    /// The deprecated `max` differs from `max_value` and is in the extras.
    pub const MAX_IN_EXTRAS: u32 = 1 << 19;
    /// The encodings list does not fit the inline form and is in the extras.
    pub const ENC_IN_EXTRAS: u32 = 1 << 20;
    /// The physical type or codec does not fit 3 bits; both are in the extras.
    pub const WIDE_TYPE_CODEC: u32 = 1 << 21;
    /// The null count does not fit a `u32`; it is in the extras.
    pub const WIDE_NULL_COUNT: u32 = 1 << 22;
    /// `encoding_stats` is held packed (see `packed_stats`), not as raw bytes.
    pub const ENC_STATS_PACKED: u32 = 1 << 23;
    /// Bits 24-26 hold the physical type, bits 27-29 the codec (when they fit 3 bits).
    pub const TYPE_SHIFT: u32 = 24;
    pub const CODEC_SHIFT: u32 = 27;
    pub const TYPE_CODEC_MASK: u32 = 0x3f << TYPE_SHIFT;
    /// `size_statistics` is held packed (see `packed`), not as raw bytes.
    pub const SIZE_STATS_PACKED: u32 = 1 << 30;
    /// The statistics' `nan_count` is present and 0 (other counts are in the extras).
    pub const NAN_ZERO: u32 = 1 << 31;

    /// The flag bits of a physical type and codec of at most 7 each.
    #[inline(always)]
    pub const fn type_codec(t: u32, c: u32) -> u32 {
        (t << TYPE_SHIFT) | (c << CODEC_SHIFT)
    }
}

/// What stays of an encrypted chunk's plaintext `ColumnMetaData` (see
/// `ColumnChunk::set_encrypted`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PlaintextMeta {
    Keep,
    Redact,
    Drop,
}

/// Rarely set fields of a column chunk, boxed so the common chunk stays small.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChunkExtras {
    /// ColumnChunk field 1, `file_path`.
    pub file_path: Option<ByteRange>,
    /// ColumnMetaData field 8, `key_value_metadata`: the raw encoded `list<KeyValue>`.
    pub key_value_metadata: Option<ByteRange>,
    /// ColumnMetaData field 10, `index_page_offset`.
    pub index_page_offset: Option<i64>,
    /// ColumnMetaData field 14, `bloom_filter_offset`.
    pub bloom_filter_offset: Option<i64>,
    /// ColumnMetaData field 15, `bloom_filter_length`.
    pub bloom_filter_length: Option<i32>,
    /// ColumnMetaData field 17, `geospatial_statistics`: the raw encoded struct.
    pub geospatial_statistics: Option<ByteRange>,
    /// Statistics field 4, `distinct_count`.
    pub distinct_count: Option<i64>,
    /// ColumnChunk field 8, `crypto_metadata`: the raw encoded `ColumnCryptoMetaData` union.
    pub crypto_metadata: Option<ByteRange>,
    /// ColumnChunk field 9, `encrypted_column_metadata`.
    pub encrypted_column_metadata: Option<ByteRange>,
    /// Statistics field 2, `min` (deprecated), when it differs from `min_value`.
    pub min: Option<ByteRange>,
    /// Statistics field 1, `max` (deprecated), when it differs from `max_value`.
    pub max: Option<ByteRange>,
    /// `encodings`, when the list does not fit the inline form.
    pub encodings: Option<EncodingList>,
    /// `type` and `codec`, when either does not fit 3 bits (values beyond today's enums).
    pub wide_type_codec: Option<(i32, i32)>,
    /// Statistics field 3, `null_count`, when it does not fit a `u32`.
    pub wide_null_count: Option<i64>,
    /// Statistics field 9, `nan_count`.
    pub nan_count: Option<i64>,
    /// Unknown fields of ColumnChunk.
    pub unknown_chunk: UnknownFields,
    /// Unknown fields of ColumnMetaData.
    pub unknown_meta: UnknownFields,
    /// Unknown fields of Statistics.
    pub unknown_stats: UnknownFields,
}

/// What to keep while decoding a column chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ChunkKeep {
    pub statistics: bool,
    pub encoding_stats: bool,
    pub size_statistics: bool,
    pub geospatial_statistics: bool,
}

impl ChunkKeep {
    pub const ALL: ChunkKeep = ChunkKeep {
        statistics: true,
        encoding_stats: true,
        size_statistics: true,
        geospatial_statistics: true,
    };
}

/// A column chunk: `ColumnChunk` with its `ColumnMetaData` (parquet.thrift).
///
/// ```thrift
/// struct ColumnChunk {
///   1: optional string file_path; 2: required i64 file_offset = 0;
///   3: optional ColumnMetaData meta_data;
///   4: optional i64 offset_index_offset; 5: optional i32 offset_index_length;
///   6: optional i64 column_index_offset; 7: optional i32 column_index_length;
///   8: optional ColumnCryptoMetaData crypto_metadata; 9: optional binary encrypted_column_metadata;
/// }
/// struct ColumnMetaData {
///   1: required Type type; 2: required list<Encoding> encodings;
///   3: required list<string> path_in_schema; 4: required CompressionCodec codec;
///   5: required i64 num_values; 6: required i64 total_uncompressed_size;
///   7: required i64 total_compressed_size; 8: optional list<KeyValue> key_value_metadata;
///   9: required i64 data_page_offset; 10: optional i64 index_page_offset;
///   11: optional i64 dictionary_page_offset; 12: optional Statistics statistics;
///   13: optional list<PageEncodingStats> encoding_stats; 14: optional i64 bloom_filter_offset;
///   15: optional i32 bloom_filter_length; 16: optional SizeStatistics size_statistics;
///   17: optional GeospatialStatistics geospatial_statistics;
/// }
/// ```
///
/// Byte ranges refer to the buffer of the owner (`FileMetaData::buf`, or a lazy footer's
/// buffer for chunks decoded on demand).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnChunk {
    file_offset: i64,
    num_values: i64,
    total_uncompressed_size: i64,
    total_compressed_size: i64,
    data_page_offset: i64,
    dictionary_page_offset: i64,
    offset_index_offset: i64,
    column_index_offset: i64,
    /// `null_count` when it fits a `u32` (else in the extras).
    null_count: u32,
    offset_index_length: i32,
    column_index_length: i32,
    /// `encodings` in the inline form of [`EncodingList`].
    encodings: u64,
    /// `min_value`, or the deprecated `min` when only it is present (or both, equal).
    min_slot: ByteRange,
    /// `max_value`, or the deprecated `max` when only it is present (or both, equal).
    max_slot: ByteRange,
    /// `encoding_stats`: packed (see `packed_stats`) or a raw range, as the flags say.
    encoding_stats: u64,
    /// `size_statistics`: packed (see `packed`) or a raw range, as the flags say.
    size_statistics: u64,
    /// Presence bits, and the physical type and codec (see `flag`).
    flags: u32,
    extras: Option<Box<ChunkExtras>>,
}

/// The entries of a packed `encoding_stats` list.
pub(crate) fn unpack_encoding_stats(bits: u64) -> Vec<super::PageEncodingStats> {
    packed::unpack_encoding_stats(bits)
}

/// Which statistics bound.
#[derive(Clone, Copy)]
enum Bound {
    Min,
    Max,
}

#[inline]
fn opt<T>(flags: u32, f: u32, v: T) -> Option<T> {
    if flags & f != 0 {
        Some(v)
    } else {
        None
    }
}

impl ColumnChunk {
    const NAME: &'static str = "ColumnChunk";
    const META: &'static str = "ColumnMetaData";

    /// ColumnChunk field 2, `file_offset` (deprecated: usually the end of the chunk or 0).
    pub fn file_offset(&self) -> i64 {
        self.file_offset
    }
    /// True if the chunk has `meta_data` (absent for encrypted columns).
    pub fn has_metadata(&self) -> bool {
        self.flags & flag::META != 0
    }
    /// `type`: the physical type recorded in the chunk.
    pub fn physical_type(&self) -> PhysicalType {
        match self.wide_type_codec() {
            Some((t, _)) => PhysicalType::from_thrift(t),
            None => PhysicalType::from_thrift(self.type_codec_i32().0),
        }
    }
    /// `encodings`, in file order.
    pub fn encodings(&self) -> EncodingList {
        match self.extras.as_ref().and_then(|e| e.encodings.as_ref()) {
            Some(list) if self.flags & flag::ENC_IN_EXTRAS != 0 => list.clone(),
            _ => EncodingList::from_inline_bits(self.encodings),
        }
    }
    /// `codec`.
    pub fn codec(&self) -> Compression {
        match self.wide_type_codec() {
            Some((_, c)) => Compression::from_thrift(c),
            None => Compression::from_thrift(self.type_codec_i32().1),
        }
    }
    /// `num_values`: values including nulls (levels, not rows).
    pub fn num_values(&self) -> i64 {
        self.num_values
    }
    /// `total_uncompressed_size`, page headers included.
    pub fn total_uncompressed_size(&self) -> i64 {
        self.total_uncompressed_size
    }
    /// `total_compressed_size`, page headers included.
    pub fn total_compressed_size(&self) -> i64 {
        self.total_compressed_size
    }
    /// `data_page_offset`.
    pub fn data_page_offset(&self) -> i64 {
        self.data_page_offset
    }
    /// `dictionary_page_offset`.
    pub fn dictionary_page_offset(&self) -> Option<i64> {
        opt(self.flags, flag::DICT_OFFSET, self.dictionary_page_offset)
    }
    /// `index_page_offset`.
    pub fn index_page_offset(&self) -> Option<i64> {
        self.extras.as_ref().and_then(|e| e.index_page_offset)
    }
    /// `offset_index_offset`.
    pub fn offset_index_offset(&self) -> Option<i64> {
        opt(self.flags, flag::OI_OFFSET, self.offset_index_offset)
    }
    /// `offset_index_length`.
    pub fn offset_index_length(&self) -> Option<i32> {
        opt(self.flags, flag::OI_LEN, self.offset_index_length)
    }
    /// `column_index_offset`.
    pub fn column_index_offset(&self) -> Option<i64> {
        opt(self.flags, flag::CI_OFFSET, self.column_index_offset)
    }
    /// `column_index_length`.
    pub fn column_index_length(&self) -> Option<i32> {
        opt(self.flags, flag::CI_LEN, self.column_index_length)
    }
    /// `bloom_filter_offset`.
    pub fn bloom_filter_offset(&self) -> Option<i64> {
        self.extras.as_ref().and_then(|e| e.bloom_filter_offset)
    }
    /// `bloom_filter_length`.
    pub fn bloom_filter_length(&self) -> Option<i32> {
        self.extras.as_ref().and_then(|e| e.bloom_filter_length)
    }
    /// `null_count` of the statistics, the field most used for pruning.
    pub fn null_count(&self) -> Option<i64> {
        if self.flags & flag::WIDE_NULL_COUNT != 0 {
            return self.extras.as_ref().and_then(|e| e.wide_null_count);
        }
        opt(self.flags, flag::NULL_COUNT, self.null_count as i64)
    }
    /// `nan_count` of the statistics (FLOAT, DOUBLE, FLOAT16 columns), when present.
    pub fn nan_count(&self) -> Option<i64> {
        if self.flags & flag::STATS == 0 {
            return None;
        }
        if self.flags & flag::NAN_ZERO != 0 {
            return Some(0);
        }
        self.extras.as_ref().and_then(|e| e.nan_count)
    }
    /// True if the chunk has statistics (and they were kept when decoding).
    pub fn has_statistics(&self) -> bool {
        self.flags & flag::STATS != 0
    }
    /// The statistics, when present and kept; byte ranges refer to the owner's buffer.
    pub fn statistics(&self) -> Option<Statistics> {
        let f = self.flags;
        if f & flag::STATS == 0 {
            return None;
        }
        let ex = self.extras.as_deref();
        Some(Statistics {
            max: if f & flag::MAX_IN_EXTRAS != 0 {
                ex.and_then(|e| e.max)
            } else {
                opt(f, flag::MAX, self.max_slot)
            },
            min: if f & flag::MIN_IN_EXTRAS != 0 {
                ex.and_then(|e| e.min)
            } else {
                opt(f, flag::MIN, self.min_slot)
            },
            null_count: self.null_count(),
            distinct_count: ex.and_then(|e| e.distinct_count),
            max_value: opt(f, flag::MAX_VALUE, self.max_slot),
            min_value: opt(f, flag::MIN_VALUE, self.min_slot),
            is_max_value_exact: opt(f, flag::MAX_EXACT_SET, f & flag::MAX_EXACT != 0),
            is_min_value_exact: opt(f, flag::MIN_EXACT_SET, f & flag::MIN_EXACT != 0),
            nan_count: self.nan_count(),
            unknown: ex.map(|e| e.unknown_stats.clone()).unwrap_or_default(),
        })
    }
    /// True if the chunk has `encoding_stats` (and they were kept when decoding).
    pub fn has_encoding_stats(&self) -> bool {
        self.flags & flag::ENC_STATS != 0
    }

    /// `encoding_stats` as raw encoded `list<PageEncodingStats>` bytes, when present, kept,
    /// and not held in the packed form (the common one, see [`ColumnChunk::encoding_stats`]).
    pub fn encoding_stats_raw(&self) -> Option<ByteRange> {
        (self.flags & (flag::ENC_STATS | flag::ENC_STATS_PACKED) == flag::ENC_STATS)
            .then(|| packed::range_from_bits(self.encoding_stats))
    }

    /// `encoding_stats` in the packed form, when held so.
    pub(crate) fn encoding_stats_packed(&self) -> Option<u64> {
        (self.flags & (flag::ENC_STATS | flag::ENC_STATS_PACKED)
            == flag::ENC_STATS | flag::ENC_STATS_PACKED)
            .then_some(self.encoding_stats)
    }

    /// Keeps the encoded `encoding_stats` list `buf[start..end]`: packed when it has the
    /// standard form (no copy), else raw. Returns the flags to set.
    #[inline(always)]
    fn keep_encoding_stats(
        &mut self,
        buf: &[u8],
        start: usize,
        end: usize,
        arena: &mut Option<&mut Arena>,
    ) -> u32 {
        let (bits, is_packed) = packed::keep(buf, start, end, arena, packed::pack_encoding_stats);
        self.encoding_stats = bits;
        flag::ENC_STATS | if is_packed { flag::ENC_STATS_PACKED } else { 0 }
    }

    /// True if the chunk has `size_statistics` (and they were kept when decoding).
    pub fn has_size_statistics(&self) -> bool {
        self.flags & flag::SIZE_STATS != 0
    }

    /// `size_statistics` as raw encoded `SizeStatistics` bytes, when present, kept, and not
    /// held in the packed form (see [`ColumnChunk::size_statistics`]).
    pub fn size_statistics_raw(&self) -> Option<ByteRange> {
        (self.flags & (flag::SIZE_STATS | flag::SIZE_STATS_PACKED) == flag::SIZE_STATS)
            .then(|| packed::range_from_bits(self.size_statistics))
    }

    /// `size_statistics` in the packed form, when held so.
    fn size_statistics_packed_bits(&self) -> Option<u64> {
        (self.flags & (flag::SIZE_STATS | flag::SIZE_STATS_PACKED)
            == flag::SIZE_STATS | flag::SIZE_STATS_PACKED)
            .then_some(self.size_statistics)
    }

    /// `size_statistics` decoded from the packed form, when held so.
    pub(crate) fn size_statistics_packed(&self) -> Option<super::SizeStatistics> {
        self.size_statistics_packed_bits().map(packed::unpack_size)
    }

    /// Keeps the encoded `SizeStatistics` `buf[start..end]`: packed when it has the flat
    /// shape (no copy), else raw. Returns the flags to set.
    #[inline(always)]
    fn keep_size_statistics(
        &mut self,
        buf: &[u8],
        start: usize,
        end: usize,
        arena: &mut Option<&mut Arena>,
    ) -> u32 {
        let (bits, is_packed) = packed::keep(buf, start, end, arena, packed::pack_size);
        self.size_statistics = bits;
        flag::SIZE_STATS
            | if is_packed {
                flag::SIZE_STATS_PACKED
            } else {
                0
            }
    }

    /// The rarely set fields, when any is set.
    pub fn extras(&self) -> Option<&ChunkExtras> {
        self.extras.as_deref()
    }
    /// `file_path`.
    pub fn file_path(&self) -> Option<ByteRange> {
        self.extras.as_ref().and_then(|e| e.file_path)
    }

    /// Heap bytes held by this chunk beyond its own size.
    pub fn heap_bytes(&self) -> usize {
        self.extras.as_ref().map_or(0, |e| {
            std::mem::size_of::<ChunkExtras>()
                + e.unknown_chunk.heap_bytes()
                + e.unknown_meta.heap_bytes()
                + e.unknown_stats.heap_bytes()
                + e.encodings.as_ref().map_or(0, EncodingList::heap_bytes)
        })
    }

    #[inline]
    fn extras_mut(&mut self) -> &mut ChunkExtras {
        self.extras.get_or_insert_with(Default::default)
    }

    /// The physical type and codec as Thrift values.
    fn type_codec_i32(&self) -> (i32, i32) {
        self.wide_type_codec().unwrap_or((
            ((self.flags >> flag::TYPE_SHIFT) & 0x7) as i32,
            ((self.flags >> flag::CODEC_SHIFT) & 0x7) as i32,
        ))
    }

    fn wide_type_codec(&self) -> Option<(i32, i32)> {
        if self.flags & flag::WIDE_TYPE_CODEC == 0 {
            return None;
        }
        self.extras.as_ref().and_then(|e| e.wide_type_codec)
    }

    /// Sets the physical type and codec (bytes inline; wider values in the extras).
    fn set_type_codec(&mut self, t: i32, c: i32) {
        self.flags &= !(flag::TYPE_CODEC_MASK | flag::WIDE_TYPE_CODEC);
        match (t, c) {
            (0..=7, 0..=7) => self.flags |= flag::type_codec(t as u32, c as u32),
            _ => {
                self.extras_mut().wide_type_codec = Some((t, c));
                self.flags |= flag::WIDE_TYPE_CODEC;
            }
        }
    }

    /// Stores the null count (inline when it fits a `u32`, else in the extras); `f` is the
    /// chunk's flags, returned updated.
    fn set_null_count(&mut self, f: u32, v: i64) -> u32 {
        match u32::try_from(v) {
            Ok(n) => {
                self.null_count = n;
                f & !flag::WIDE_NULL_COUNT
            }
            Err(_) => {
                self.extras_mut().wide_null_count = Some(v);
                f | flag::WIDE_NULL_COUNT
            }
        }
    }

    /// Stores the statistics' `nan_count` (a count of 0, the usual one, as a flag; others in
    /// the extras); `f` is the chunk's flags, returned updated.
    fn set_nan_count(&mut self, f: u32, v: Option<i64>) -> u32 {
        match v {
            Some(0) | None => {
                if let Some(e) = self.extras.as_deref_mut() {
                    e.nan_count = None;
                }
                match v {
                    Some(_) => f | flag::NAN_ZERO,
                    None => f & !flag::NAN_ZERO,
                }
            }
            Some(n) => {
                self.extras_mut().nan_count = Some(n);
                f & !flag::NAN_ZERO
            }
        }
    }

    /// Sets the encodings list (inline when it fits, else in the extras).
    pub fn set_encodings(&mut self, list: EncodingList) {
        match list.inline_bits() {
            Some(bits) => {
                self.encodings = bits;
                self.flags &= !flag::ENC_IN_EXTRAS;
            }
            None => {
                self.extras_mut().encodings = Some(list);
                self.flags |= flag::ENC_IN_EXTRAS;
            }
        }
    }

    /// Stores a statistics bound read as the deprecated field (`dep`) and/or the current one
    /// (`new`), ranges of `buf`: one slot holds the value; a deprecated value that differs from
    /// the current one goes to the extras.
    fn set_bounds(&mut self, b: Bound, dep: Option<ByteRange>, new: Option<ByteRange>, buf: &[u8]) {
        let (dep_flag, new_flag, extra_flag) = match b {
            Bound::Min => (flag::MIN, flag::MIN_VALUE, flag::MIN_IN_EXTRAS),
            Bound::Max => (flag::MAX, flag::MAX_VALUE, flag::MAX_IN_EXTRAS),
        };
        let slot = match (dep, new) {
            (None, None) => return,
            (Some(d), None) => {
                self.flags |= dep_flag;
                d
            }
            (None, Some(n)) => {
                self.flags |= new_flag;
                n
            }
            (Some(d), Some(n)) => {
                self.flags |= dep_flag | new_flag;
                if d == n || d.slice(buf) == n.slice(buf) {
                    // One value: keep the range kept first, as the fast path does.
                    d
                } else {
                    self.flags |= extra_flag;
                    let ex = self.extras_mut();
                    match b {
                        Bound::Min => ex.min = Some(d),
                        Bound::Max => ex.max = Some(d),
                    }
                    n
                }
            }
        };
        match b {
            Bound::Min => self.min_slot = slot,
            Bound::Max => self.max_slot = slot,
        }
    }

    /// A chunk with `meta_data` of physical type `physical` compressed with `codec`, every
    /// other field zero or absent (the writer's starting point; see the `set_*` builders).
    pub fn new(physical: PhysicalType, codec: Compression) -> ColumnChunk {
        let mut c = ColumnChunk {
            flags: flag::META,
            ..ColumnChunk::default()
        };
        c.set_type_codec(physical.to_thrift(), codec.to_thrift());
        c
    }

    /// Sets ColumnChunk field 2, `file_offset`.
    pub fn set_file_offset(&mut self, v: i64) {
        self.file_offset = v;
    }

    /// Sets `num_values` (values including nulls).
    pub fn set_num_values(&mut self, v: i64) {
        self.num_values = v;
    }

    /// Sets `total_uncompressed_size` and `total_compressed_size` (page headers included).
    pub fn set_sizes(&mut self, uncompressed: i64, compressed: i64) {
        self.total_uncompressed_size = uncompressed;
        self.total_compressed_size = compressed;
    }

    /// Sets `data_page_offset`.
    pub fn set_data_page_offset(&mut self, v: i64) {
        self.data_page_offset = v;
    }

    /// Sets or clears `dictionary_page_offset`.
    pub fn set_dictionary_page_offset(&mut self, v: Option<i64>) {
        match v {
            Some(v) => {
                self.dictionary_page_offset = v;
                self.flags |= flag::DICT_OFFSET;
            }
            None => {
                self.dictionary_page_offset = 0;
                self.flags &= !flag::DICT_OFFSET;
            }
        }
    }

    /// Sets `offset_index_offset` and `offset_index_length`.
    pub fn set_offset_index_location(&mut self, offset: i64, length: i32) {
        self.offset_index_offset = offset;
        self.offset_index_length = length;
        self.flags |= flag::OI_OFFSET | flag::OI_LEN;
    }

    /// Sets `column_index_offset` and `column_index_length`.
    pub fn set_column_index_location(&mut self, offset: i64, length: i32) {
        self.column_index_offset = offset;
        self.column_index_length = length;
        self.flags |= flag::CI_OFFSET | flag::CI_LEN;
    }

    /// The chunk as it is once its pages are copied `delta` bytes further into another
    /// file: `data_page_offset`, `dictionary_page_offset`, `index_page_offset` and a
    /// non-zero `file_offset` moved by `delta`; the column index, offset index and Bloom
    /// filter locations cleared (they point outside the pages: the copier sets new ones).
    /// An offset moved past `i64` is an error.
    pub fn moved(&self, delta: i64) -> Result<ColumnChunk> {
        let shift = |v: i64| {
            v.checked_add(delta).ok_or_else(|| {
                Error::new(ErrorKind::Inconsistent(format!(
                    "column chunk offset {v} moved by {delta} overflows"
                )))
            })
        };
        let mut c = self.clone();
        if c.file_offset > 0 {
            c.file_offset = shift(c.file_offset)?;
        }
        if c.data_page_offset > 0 {
            c.data_page_offset = shift(c.data_page_offset)?;
        }
        if let Some(d) = self.dictionary_page_offset().filter(|&d| d > 0) {
            c.set_dictionary_page_offset(Some(shift(d)?));
        }
        c.offset_index_offset = 0;
        c.offset_index_length = 0;
        c.column_index_offset = 0;
        c.column_index_length = 0;
        c.flags &= !(flag::OI_OFFSET | flag::OI_LEN | flag::CI_OFFSET | flag::CI_LEN);
        if let Some(ex) = c.extras.as_deref_mut() {
            if let Some(i) = ex.index_page_offset.filter(|&i| i > 0) {
                ex.index_page_offset = Some(shift(i)?);
            }
            ex.bloom_filter_offset = None;
            ex.bloom_filter_length = None;
        }
        Ok(c)
    }

    /// Sets `bloom_filter_offset` and `bloom_filter_length`.
    pub fn set_bloom_filter_location(&mut self, offset: i64, length: i32) {
        let ex = self.extras_mut();
        ex.bloom_filter_offset = Some(offset);
        ex.bloom_filter_length = Some(length);
    }

    /// Sets `encoding_stats`: held packed when the list has the usual shape, else encoded
    /// into `arena` (the buffer the chunk's ranges refer to).
    pub fn set_encoding_stats(&mut self, list: &[super::PageEncodingStats], arena: &mut Arena) {
        let mut raw = Vec::new();
        super::PageEncodingStats::encode_list(list, &mut Writer::new(&mut raw));
        let (bits, is_packed) = match packed::pack_encoding_stats(&raw) {
            Some(bits) => (bits, true),
            None => (packed::range_bits(arena.push(&raw)), false),
        };
        self.encoding_stats = bits;
        self.flags &= !flag::ENC_STATS_PACKED;
        self.flags |= flag::ENC_STATS | if is_packed { flag::ENC_STATS_PACKED } else { 0 };
    }

    /// Sets `size_statistics`: held packed when they have the flat shape, else encoded into
    /// `arena` (the buffer the chunk's ranges refer to).
    pub fn set_size_statistics(&mut self, s: &super::SizeStatistics, arena: &mut Arena) {
        let mut raw = Vec::new();
        s.encode(&mut Writer::new(&mut raw));
        let (bits, is_packed) = match packed::pack_size(&raw) {
            Some(bits) => (bits, true),
            None => (packed::range_bits(arena.push(&raw)), false),
        };
        self.size_statistics = bits;
        self.flags &= !flag::SIZE_STATS_PACKED;
        self.flags |= flag::SIZE_STATS
            | if is_packed {
                flag::SIZE_STATS_PACKED
            } else {
                0
            };
    }

    /// Sets `geospatial_statistics` (encoded into `arena`).
    pub fn set_geospatial_statistics(
        &mut self,
        s: &super::GeospatialStatistics,
        arena: &mut Arena,
    ) {
        let mut raw = Vec::new();
        s.encode(&mut Writer::new(&mut raw));
        self.extras_mut().geospatial_statistics = Some(arena.push(&raw));
    }

    /// Sets the statistics from the general form (used when building chunks).
    pub fn set_statistics(&mut self, s: Statistics) {
        let mut f = self.flags | flag::STATS;
        if let Some(v) = s.null_count {
            f |= flag::NULL_COUNT;
            f = self.set_null_count(f, v);
        }
        if let Some(v) = s.is_max_value_exact {
            f |= flag::MAX_EXACT_SET | if v { flag::MAX_EXACT } else { 0 };
        }
        if let Some(v) = s.is_min_value_exact {
            f |= flag::MIN_EXACT_SET | if v { flag::MIN_EXACT } else { 0 };
        }
        f = self.set_nan_count(f, s.nan_count);
        self.flags = f;
        // Without the buffer, only identical ranges count as the same value.
        self.set_bounds(Bound::Max, s.max, s.max_value, &[]);
        self.set_bounds(Bound::Min, s.min, s.min_value, &[]);
        if s.distinct_count.is_some() || !s.unknown.is_empty() {
            let ex = self.extras_mut();
            ex.distinct_count = s.distinct_count;
            ex.unknown_stats = s.unknown;
        }
    }

    /// Encodes this chunk as a `ColumnChunk` struct. `buf` is the buffer its byte ranges refer
    /// to; `path` is the leaf's `path_in_schema`.
    pub fn encode<'p>(
        &self,
        w: &mut Writer<'_>,
        buf: &[u8],
        path: impl ExactSizeIterator<Item = &'p [u8]>,
    ) {
        let none = UnknownFields::default();
        let ex = self.extras.as_deref();
        let mut s = StructWriter::new(ex.map_or(&none, |e| &e.unknown_chunk), buf);
        if let Some(v) = ex.and_then(|e| e.file_path) {
            s.binary(w, 1, v.slice(buf));
        }
        s.i64(w, 2, self.file_offset);
        if self.has_metadata() {
            s.field(w, wire::STRUCT, 3);
            self.encode_meta(w, buf, path);
        }
        if let Some(v) = self.offset_index_offset() {
            s.i64(w, 4, v);
        }
        if let Some(v) = self.offset_index_length() {
            s.i32(w, 5, v);
        }
        if let Some(v) = self.column_index_offset() {
            s.i64(w, 6, v);
        }
        if let Some(v) = self.column_index_length() {
            s.i32(w, 7, v);
        }
        if let Some(v) = ex.and_then(|e| e.crypto_metadata) {
            s.field(w, wire::STRUCT, 8);
            w.write_raw(v.slice(buf));
        }
        if let Some(v) = ex.and_then(|e| e.encrypted_column_metadata) {
            s.binary(w, 9, v.slice(buf));
        }
        s.end(w);
    }

    /// Encodes this chunk's `ColumnMetaData` as a standalone struct (what an encrypted
    /// column's `encrypted_column_metadata` holds before encryption).
    pub fn encode_metadata<'p>(
        &self,
        out: &mut Vec<u8>,
        buf: &[u8],
        path: impl ExactSizeIterator<Item = &'p [u8]>,
    ) {
        self.encode_meta(&mut Writer::new(out), buf, path);
    }

    /// Marks the chunk encrypted: its encoded `ColumnCryptoMetaData` and, when given, its
    /// encrypted `ColumnMetaData` module (ranges of the footer's buffer). With `meta`
    /// `Keep` its plaintext `ColumnMetaData` stays, `Redact` keeps it without statistics
    /// (a plaintext footer's view for readers without the key), `Drop` leaves it out.
    pub(crate) fn set_encrypted(
        &mut self,
        crypto_metadata: ByteRange,
        encrypted_metadata: Option<ByteRange>,
        meta: PlaintextMeta,
    ) {
        let e = self.extras_mut();
        e.crypto_metadata = Some(crypto_metadata);
        e.encrypted_column_metadata = encrypted_metadata;
        match meta {
            PlaintextMeta::Keep => {}
            PlaintextMeta::Redact => {
                const STATS: u32 = flag::STATS
                    | flag::NULL_COUNT
                    | flag::MIN
                    | flag::MAX
                    | flag::MIN_VALUE
                    | flag::MAX_VALUE
                    | flag::MIN_EXACT_SET
                    | flag::MIN_EXACT
                    | flag::MAX_EXACT_SET
                    | flag::MAX_EXACT
                    | flag::MIN_IN_EXTRAS
                    | flag::MAX_IN_EXTRAS
                    | flag::WIDE_NULL_COUNT
                    | flag::ENC_STATS
                    | flag::ENC_STATS_PACKED
                    | flag::SIZE_STATS
                    | flag::SIZE_STATS_PACKED
                    | flag::NAN_ZERO;
                self.flags &= !STATS;
                let e = self.extras_mut();
                e.distinct_count = None;
                e.nan_count = None;
                e.min = None;
                e.max = None;
                e.wide_null_count = None;
                e.geospatial_statistics = None;
                e.unknown_stats = UnknownFields::default();
            }
            PlaintextMeta::Drop => self.flags &= !flag::META,
        }
    }

    fn encode_meta<'p>(
        &self,
        w: &mut Writer<'_>,
        buf: &[u8],
        path: impl ExactSizeIterator<Item = &'p [u8]>,
    ) {
        let none = UnknownFields::default();
        let ex = self.extras.as_deref();
        let mut s = StructWriter::new(ex.map_or(&none, |e| &e.unknown_meta), buf);
        let (t, c) = self.type_codec_i32();
        s.i32(w, 1, t);
        s.field(w, wire::LIST, 2);
        let encodings = self.encodings();
        w.write_list_header(wire::I32, encodings.len());
        for e in encodings.iter() {
            w.write_i32(e.to_thrift());
        }
        s.field(w, wire::LIST, 3);
        w.write_list_header(wire::BINARY, path.len());
        for p in path {
            w.write_binary(p);
        }
        s.i32(w, 4, c);
        s.i64(w, 5, self.num_values);
        s.i64(w, 6, self.total_uncompressed_size);
        s.i64(w, 7, self.total_compressed_size);
        if let Some(v) = ex.and_then(|e| e.key_value_metadata) {
            s.field(w, wire::LIST, 8);
            w.write_raw(v.slice(buf));
        }
        s.i64(w, 9, self.data_page_offset);
        if let Some(v) = self.index_page_offset() {
            s.i64(w, 10, v);
        }
        if let Some(v) = self.dictionary_page_offset() {
            s.i64(w, 11, v);
        }
        if let Some(st) = self.statistics() {
            s.field(w, wire::STRUCT, 12);
            st.encode(w, buf);
        }
        if let Some(bits) = self.encoding_stats_packed() {
            s.field(w, wire::LIST, 13);
            packed::write_encoding_stats(bits, w);
        } else if let Some(v) = self.encoding_stats_raw() {
            s.field(w, wire::LIST, 13);
            w.write_raw(v.slice(buf));
        }
        if let Some(v) = self.bloom_filter_offset() {
            s.i64(w, 14, v);
        }
        if let Some(v) = self.bloom_filter_length() {
            s.i32(w, 15, v);
        }
        if let Some(bits) = self.size_statistics_packed_bits() {
            s.field(w, wire::STRUCT, 16);
            packed::write_size(bits, w);
        } else if let Some(v) = self.size_statistics_raw() {
            s.field(w, wire::STRUCT, 16);
            w.write_raw(v.slice(buf));
        }
        if let Some(v) = ex.and_then(|e| e.geospatial_statistics) {
            s.field(w, wire::STRUCT, 17);
            w.write_raw(v.slice(buf));
        }
        s.end(w);
    }
}

/// Skips `path_in_schema` (a list of strings; the path is derived from the schema).
#[inline]
fn skip_path(r: &mut Reader<'_>) -> Result<()> {
    let n = r.read_list_len()?;
    for _ in 0..n {
        r.read_binary_range()?;
    }
    Ok(())
}
